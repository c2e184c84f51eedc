"""Build ``wizard/triage/numpy_removed.json``: the names NumPy 2 took out of its main namespace,
the release that removed each, and what to use instead, read from the released wheels.

A maintainer script, run by hand (never by the tests or CI) with an interpreter that has pip and
reaches PyPI::

    .venv-modern/bin/python scripts/build_numpy_removed.py     # ~1 minute, ~100 MB fetched

It installs NumPy 1.26.4 and the latest patch of each 2.x minor release into temporary folders
(``pip install --no-deps --target``), imports each in a fresh interpreter and records which public
names of 1.26 each release still serves (``getattr``, so names a module ``__getattr__`` keeps
behind a deprecation count as present). A name is removed in the first release that lacks it.
The replacement is NumPy 2's own migration note (``numpy._expired_attrs_2_0``) where it has one,
else the note below (``NOTES``, from the NumPy 2.0 migration guide).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "wizard" / "triage" / "numpy_removed.json"
RELEASES = ["1.26.4", "2.0.2", "2.1.3", "2.2.6", "2.3.5", "2.4.6"]
ERRSTATE = "np.errstate (the error-handling constants are gone)"
NOTES = {
    "ALLOW_THREADS": "no replacement (an internal build flag)",
    "BUFSIZE": "8192, the value (np.getbufsize())",
    "UFUNC_BUFSIZE_DEFAULT": "8192, the value (np.getbufsize())",
    "CLIP": "the string 'clip'", "WRAP": "the string 'wrap'", "RAISE": "the string 'raise'",
    "MAXDIMS": "no replacement (64 in NumPy 2)", "MAY_SHARE_BOUNDS": "0, the value",
    "MAY_SHARE_EXACT": "-1, the value", "FLOATING_POINT_SUPPORT": "no replacement",
    "UFUNC_PYVALS_NAME": "no replacement", "NAN": "np.nan",
    "RankWarning": "np.exceptions.RankWarning", "cumproduct": "np.cumprod", "product": "np.prod",
    "msort": "np.sort(a, axis=0)", "disp": "print", "kernel_version": "no replacement",
    "numarray": "no replacement", "oldnumeric": "no replacement",
    "compat": "no replacement (Python 2 support)", "in1d": "np.isin", "trapz": "np.trapezoid",
}
_PROBE = """
import json, sys, warnings
warnings.simplefilter("ignore")
import numpy
names = json.loads(sys.argv[1])
served = []
for n in names:
    try:
        getattr(numpy, n)
        served.append(n)
    except Exception:
        pass
notes = {}
try:
    from numpy._expired_attrs_2_0 import __expired_attributes__ as notes
except ImportError:
    pass
print(json.dumps({"public": sorted(n for n in dir(numpy) if not n.startswith("_")),
                  "served": served, "notes": notes}))
"""


def _probe(release: str, names: list[str], root: Path) -> dict:
    target = root / release
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
                    str(target), f"numpy=={release}"], check=True)
    out = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(names)], check=True,
                         capture_output=True, text=True, env={"PYTHONPATH": str(target)})
    return json.loads(out.stdout)


def _replacement(note: str) -> str:
    note = " ".join(note.split())
    m = re.fullmatch(r"Use (.+?) instead\.?", note)
    return m.group(1).replace("`", "") if m else note.rstrip(".")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        first = _probe(RELEASES[0], [], Path(tmp))
        names = first["public"]
        probes = {r: _probe(r, names, Path(tmp)) for r in RELEASES[1:]}
    notes = probes[RELEASES[-1]]["notes"]
    removed: dict[str, list[str]] = {}
    for name in names:
        gone = next((r for r in RELEASES[1:] if name not in probes[r]["served"]), None)
        if gone is None:
            continue
        note = notes.get(name) or NOTES.get(name) or (ERRSTATE if name.startswith(
            ("ERR_", "FPE_", "SHIFT_")) else "no replacement")
        removed[name] = [re.sub(r"\.\d+$", ".0", gone), _replacement(note)]
    OUT.write_text(json.dumps(removed, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(removed)} names -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
