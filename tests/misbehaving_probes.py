"""Probes that misbehave on purpose, for the worker's tests (run as "module:function")."""
from __future__ import annotations

import os
import signal
import time

from wizard.core.findings import Finding


def ok(case, ctx):
    return [Finding("environment.device", "info", f"worker pid {os.getpid()}",
                    evidence={"pid": os.getpid()})]


def raises(case, ctx):
    raise RuntimeError("boom inside the probe")


def hangs(case, ctx):
    time.sleep(3600)


def killed(case, ctx):
    os.kill(os.getpid(), signal.SIGKILL)  # what the kernel's OOM killer does


def exits(case, ctx):
    os._exit(3)


def eats_memory(case, ctx):
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    hog = [bytearray(1 << 26) for _ in range(64)]  # 4 GiB against a 1 GiB limit
    return [Finding("environment.device", "info", str(len(hog)))]


def flags(case, ctx):
    """The framework switches the child process runs with."""
    return [Finding("environment.device", "info", "flags",
                    evidence={k: os.environ.get(k) for k in ("USE_TF", "TF_USE_LEGACY_KERAS")})]


def modules(case, ctx):
    """Which heavy modules the worker had imported before this probe asked for anything."""
    import sys

    return [Finding("environment.device", "info", "modules",
                    evidence={"pid": os.getpid(),
                              **{m: m in sys.modules for m in ("torch", "datasets")}})]
