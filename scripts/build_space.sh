#!/usr/bin/env bash
# Assemble a folder that deploys as a Hugging Face Space, unchanged:
#   scripts/build_space.sh [OUT_DIR]        (default: build/space)
# It holds app.py, wizard/ (templates included), space/README.md as README.md (the Space's
# front matter) and space/requirements.txt. Upload it with e.g.
#   hf upload YOUR_NAME/hf-debug-wizard build/space . --repo-type space
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/build/space}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
[ "$out" != "$root" ] || { echo "refusing to build the Space into the checkout itself" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out"
cp "$root/app.py" "$out/app.py"
for dir in wizard; do
  (cd "$root" && find "$dir" -type f ! -name '*.pyc' ! -path '*/__pycache__/*' -print0) |
    (cd "$root" && xargs -0 cp --parents -t "$out")
done
cp "$root/space/README.md" "$out/README.md"
cp "$root/space/requirements.txt" "$out/requirements.txt"

# The front matter the Space needs, and the project's dependencies in its requirements.
python3 - "$root" "$out" <<'PY'
import re, sys
from pathlib import Path

root, out = Path(sys.argv[1]), Path(sys.argv[2])
readme = (out / "README.md").read_text(encoding="utf-8")
m = re.match(r"---\n(.*?)\n---\n", readme, re.S)
if not m:
    sys.exit("space/README.md has no front matter")
front = m.group(1)
for key in ("sdk: gradio", "app_file: app.py", "python_version:", "suggested_hardware:",
            "hf_oauth: true", "write-discussions"):
    if key not in front:
        sys.exit(f"space/README.md front matter lacks {key!r}")
reqs = {re.split(r"[<>=~!\[; ]", l.strip())[0].lower().replace("_", "-")
        for l in (out / "requirements.txt").read_text().splitlines() if l.strip() and not l.startswith("#")}
deps = re.search(r"^dependencies = \[(.*?)^\]", (root / "pyproject.toml").read_text(), re.S | re.M)
missing = [d for d in re.findall(r'"([A-Za-z0-9_.-]+)', deps.group(1) if deps else "")
           if d.lower().replace("_", "-") not in reqs]
if missing:
    sys.exit(f"space/requirements.txt lacks the project's dependencies: {', '.join(missing)}")
PY
echo "Space folder ready: $out ($(find "$out" -type f | wc -l) files)"
