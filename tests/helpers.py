"""Helpers shared by tests: run the real CLI in a subprocess on a case; triage a paste as one
from another machine."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from wizard.core.case import Case
from wizard.triage.match import Triage, triage
from wizard.triage.versions import pastes_from_elsewhere

ROOT = Path(__file__).resolve().parents[1]
SITE = "/usr/local/lib/python3.10/dist-packages"     # a library's folder in a pasted frame


def triage_elsewhere(paste: str) -> Triage:
    """Triage of a paste from another machine (the versions installed here are not its)."""
    with pastes_from_elsewhere():
        return triage(paste)


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 600,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "wizard", *args], cwd=cwd or ROOT, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def check_case(case: Case, tmp: Path, *extra: str) -> tuple[subprocess.CompletedProcess, dict[str, Any]]:
    """`python -m wizard check CASE.yaml --json OUT.json` on `case`; returns (process, JSON)."""
    tmp.mkdir(parents=True, exist_ok=True)
    case_file = tmp / "case.yaml"
    case_file.write_text(case.to_yaml())
    out = tmp / "out.json"
    proc = run_cli("check", str(case_file), "--json", str(out), "--out", str(tmp / "session"),
                   "--quiet", *extra)
    assert out.exists(), proc.stderr[-3000:]
    return proc, json.loads(out.read_text())


def fails(result: dict[str, Any]) -> list[str]:
    return sorted(f["id"] for f in result["findings"] if f["status"] == "fail")


def finding(result: dict[str, Any], id: str) -> dict[str, Any]:
    matches = [f for f in result["findings"] if f["id"] == id]
    assert matches, f"no finding {id}: {[f['id'] for f in result['findings']]}"
    return matches[0]
