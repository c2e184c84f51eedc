"""A fake library for the reproduction tests: `buggy`, installed as version 1.0 in a folder put
on sys.path (its dist-info makes it an installed distribution), and wheels of later versions in
a local folder (a `--find-links` index): 2.0 still has the bug, 3.0 fixed it."""
from __future__ import annotations

import base64
import hashlib
import sys
import zipfile
from pathlib import Path

BUG = "raise ValueError('tokens must be sorted')"
MODULE = {"buggy": "def sort_check(x):\n    if list(x) != sorted(x):\n        {bug}\n    return x\n"}
SCRIPT = '''import sys
from buggy.core import sort_check
data = [3, 1, 2]
print("loading")
sort_check(data)
'''


def _files(version: str, fixed: bool) -> dict[str, str]:
    body = MODULE["buggy"].format(bug="return sorted(x)" if fixed else BUG)
    return {"buggy/__init__.py": f"__version__ = {version!r}\n", "buggy/core.py": body}


def install(folder: Path, version: str = "1.0") -> Path:
    """buggy `version` (with the bug) unpacked into `folder`, like site-packages."""
    for rel, text in _files(version, fixed=False).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    info = folder / f"buggy-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: buggy\nVersion: {version}\n")
    (info / "RECORD").write_text("")
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return folder


def wheel(folder: Path, version: str, fixed: bool) -> Path:
    """A pure-Python wheel of buggy `version` in `folder` (a find-links index)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"buggy-{version}-py3-none-any.whl"
    info = f"buggy-{version}.dist-info"
    files = dict(_files(version, fixed))
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: buggy\nVersion: {version}\n"
    files[f"{info}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{name},sha256={digest.decode()},{len(text.encode())}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = "\n".join(record) + "\n"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return path
