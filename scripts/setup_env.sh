#!/usr/bin/env bash
# Create (or refresh) the virtual environment for one of the two tested stacks and install the
# project's wheel into it, with every dependency pinned by constraints/<env>.txt.
#   env "tf":     transformers 4.57 + tensorflow-cpu 2.21 + tf-keras + torch (the TF path)
#   env "modern": transformers 5 + huggingface-hub 2 + torch, no TensorFlow
set -euo pipefail
env="${1:?usage: scripts/setup_env.sh tf|modern}"
cd "$(dirname "$0")/.."
venv=".venv-$env"
wheel=$(ls dist/hf_debug_wizard-*.whl 2>/dev/null | head -n1 || true)
[ -n "$wheel" ] || { echo "no wheel in dist/: run 'make wheel' first" >&2; exit 1; }
case "$env" in
  tf) extras="tf,torch,llm,app,dev" ;;
  modern) extras="torch,llm,app,dev" ;;
  *) echo "unknown env '$env' (use tf or modern)" >&2; exit 2 ;;
esac
stamp="$venv/.installed"
want="$(cat constraints/$env.txt pyproject.toml | sha256sum | cut -c1-16)"
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  "$venv/bin/pip" install -q --disable-pip-version-check --upgrade pip
  "$venv/bin/pip" install -q --disable-pip-version-check -c "constraints/$env.txt" "$wheel[$extras]"
  if [ "$env" = tf ]; then
    # tf-keras depends on `tensorflow`, which would pull a second TF wheel beside tensorflow-cpu.
    "$venv/bin/pip" install -q --disable-pip-version-check --no-deps -c constraints/tf.txt tf-keras
  fi
  echo "$want" > "$stamp"
fi
# Always the freshly built wheel: the demo and the wheel test run the installed package.
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps --force-reinstall "$wheel"
echo "$venv ready ($("$venv/bin/python" -c 'import transformers; print("transformers", transformers.__version__)'))"
