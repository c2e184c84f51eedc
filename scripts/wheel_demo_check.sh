#!/usr/bin/env bash
# Run `wizard demo` from the installed wheel in an empty folder (no checkout on sys.path) and
# check the contract: three faults found, a report rendered from the packaged templates.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
"$root/.venv-tf/bin/python" - <<'PY'
import wizard, wizard.reports.jinja as r
assert "site-packages" in wizard.__file__, f"not the installed wheel: {wizard.__file__}"
assert any("site-packages" in str(d) for d in r.template_dirs()), r.template_dirs()
PY
"$root/.venv-tf/bin/python" -m wizard demo --quiet --out out --json out/demo.json
"$root/.venv-tf/bin/python" - <<'PY'
import json
d = json.load(open("out/demo.json"))
fails = sorted(f["id"] for f in d["findings"] if f["status"] == "fail")
want = ["data.labels-in-inputs-with-keras-loss", "data.labels-out-of-range",
        "hyperparameters.learning-rate-too-high"]
assert fails == want, fails
assert open(d["reports"][0]).read().startswith("# hf-debug-wizard report")
print("wheel demo: 3 faults found, report", d["reports"][0].rsplit("/", 1)[-1], "rendered from the wheel")
PY
