"""Start the probe worker before the command line is even parsed: `python -m wizard demo` and
`check CASE.yaml` know their framework from the command line (or the case file), and the worker
spends that time importing it, off the critical path of the parent's own imports.

Light on purpose: it imports no framework and none of the checks (the worker does, once).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Sequence

import yaml

from wizard.core.childproc import prestart
from wizard.frameworks import child_env, default_demo_framework, process_defaults

WORKER_TARGET = "wizard.engine.worker:worker_entry"  # checked when wizard.engine.worker imports
COMMANDS = ("demo", "check")
VALUED = ("--out", "--resume", "--device", "--framework", "--cache", "--timeout", "--json",
          "--report", "--format", "--write-case", "--gpu", "--gpus", "--map", "--set")


def warm_worker(argv: Sequence[str]) -> None:
    """Prestart the worker for this command line when its framework is known; else nothing.
    A worker started for nothing is stopped at exit; never raises."""
    try:
        planned = planned_worker(list(argv))
        if planned is None:
            return
        process_defaults()
        framework, device = planned
        log = Path(tempfile.gettempdir()) / f"wizard-worker-{os.getpid()}-warm.log"
        prestart(WORKER_TARGET, child_env(framework, device), log=log)
    except Exception:  # noqa: BLE001 - an optimisation: the session starts its own worker
        return


def planned_worker(argv: list[str]) -> tuple[str, str] | None:
    """(framework, device) of the worker this command line will start, when known cheaply."""
    words = _words(argv)
    if not words or words[0] not in COMMANDS or "--script" in argv or "--write-case" in argv:
        return None
    device = _option(argv, "--device") or "auto"
    if words[0] == "demo":
        return _option(argv, "--framework") or default_demo_framework(), device
    if len(words) < 2 or not words[1].endswith((".yaml", ".yml")):
        return None
    data = yaml.safe_load(Path(words[1]).read_text(encoding="utf-8"))
    framework = data.get("framework", "pytorch") if isinstance(data, dict) else None
    for i, item in enumerate(argv[:-1]):  # --set framework=... wins over the file
        if item == "--set" and argv[i + 1].startswith("framework="):
            framework = argv[i + 1].split("=", 1)[1].strip()
    return (framework, device) if framework in ("pytorch", "tensorflow") else None


def _words(argv: list[str]) -> list[str]:
    """The positional words (the command first), skipping options and their values."""
    out, skip = [], False
    for item in argv:
        if skip:
            skip = False
        elif item.startswith("-"):
            skip = item in VALUED
        else:
            out.append(item)
    return out


def _option(argv: list[str], name: str) -> str | None:
    for i, item in enumerate(argv):
        if item == name and i + 1 < len(argv):
            return argv[i + 1]
        if item.startswith(name + "="):
            return item.split("=", 1)[1]
    return None
