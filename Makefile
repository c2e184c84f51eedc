# Two commands matter: `make demo` and `make test` (see README.md).
PY ?= python3
export HF_HUB_OFFLINE := 1
export HF_DATASETS_OFFLINE := 1
export TF_USE_LEGACY_KERAS := 1
export TF_CPP_MIN_LOG_LEVEL := 3
export TOKENIZERS_PARALLELISM := false
export MPLBACKEND := Agg

.PHONY: wheel setup demo test test-envs test-tf test-modern test-wheel docs clean

wheel:
	rm -rf dist && $(PY) -m pip install -q --disable-pip-version-check build && $(PY) -m build -q --wheel --outdir dist . >/dev/null

setup: wheel
	scripts/setup_env.sh tf
	scripts/setup_env.sh modern

demo: wheel
	scripts/setup_env.sh tf
	.venv-tf/bin/python -m wizard demo

test: setup test-wheel test-envs

# Both environments' suites at once (three concurrent runs; see the script).
test-envs:
	scripts/test_envs.sh

test-tf:
	scripts/test_envs.sh tf

test-modern:
	scripts/test_envs.sh modern

# The demo run from the installed wheel, outside the checkout: templates must ship in it.
test-wheel:
	scripts/wheel_demo_check.sh

docs:
	.venv-modern/bin/python -m wizard checks --markdown > docs/checks.md

clean:
	rm -rf dist build .venv-tf .venv-modern wizard-out
