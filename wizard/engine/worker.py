"""Run probes in a child process with a time limit: a crash, hang or OOM there becomes an
`error` finding naming the probe, never a dead wizard. The child keeps its loaded context
(model, data) between probes and is restarted after a failure."""
from __future__ import annotations

import multiprocessing as mp
import subprocess
import sys
import time
import traceback
from typing import Any, Callable

from wizard.context import Context
from wizard.core.case import Case, CaseError
from wizard.core.findings import Finding
from wizard.engine.registry import resolve
from wizard.frameworks import child_env, use_framework
from wizard.settings import PROBE_TIMEOUT

DEFAULT_TIMEOUT = PROBE_TIMEOUT


def _child_entry(fd: int) -> None:
    from multiprocessing.connection import Connection

    conn = Connection(fd)
    case_dict, device = conn.recv()
    _child_main(conn, case_dict, device)


def _child_main(conn: Any, case_dict: dict[str, Any], device: str) -> None:
    """The worker process: receive probe names, send back findings as dicts."""
    case = Case.from_dict(case_dict)
    use_framework(case.framework)  # the parent's child_env set them; a direct call sets them here
    import warnings

    warnings.filterwarnings("ignore")
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()

    ctx = Context(case, device=device, progress=lambda m: conn.send(("progress", m)))
    while True:
        try:
            name = conn.recv()
        except EOFError:
            return
        if name is None:
            return
        try:
            findings = resolve(name)(case, ctx)
            findings = [*ctx.notes, *findings]
            ctx.notes.clear()
            device_now = ctx.__dict__.get("backend") and ctx.device
            conn.send(("result", [f.to_dict() for f in findings], {"device": device_now}))
        except CaseError as exc:
            conn.send(("case-error", str(exc), exc.field_name))
        except BaseException as exc:  # reported as a finding by the parent
            conn.send(("error", type(exc).__name__, str(exc)[:2000], traceback.format_exc()[-4000:]))


class Worker:
    """One child process per session; restarted when a probe kills it."""

    def __init__(self, case: Case, device: str = "auto", timeout: float = DEFAULT_TIMEOUT,
                 on_progress: Callable[[str], None] | None = None):
        self.case = case
        self.device = device
        self.timeout = timeout
        self.on_progress = on_progress or (lambda m: None)
        self.resolved_device: str | None = None
        self._proc: Any = None
        self._conn: Any = None

    def _start(self) -> None:
        # A plain subprocess, not multiprocessing's spawn: that would re-import the user's
        # __main__ (a notebook or script without a main guard) in the child.
        parent, child = mp.Pipe()
        env = child_env(self.case.framework, self.device)
        self._proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from wizard.engine.worker import _child_entry; "
             "_child_entry(int(sys.argv[1]))", str(child.fileno())],
            pass_fds=[child.fileno()], env=env)
        child.close()
        self._conn = parent
        parent.send((self.case.to_dict(), self.device))

    def run(self, name: str, timeout: float | None = None) -> list[Finding]:
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        limit = timeout or self.timeout
        self._conn.send(name)
        deadline = time.monotonic() + limit
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.close(kill=True)
                return [_error(name, f"did not finish within {limit:.0f} s and was stopped",
                               "Re-run with a longer --timeout, or a smaller batch_size/max_samples.")]
            try:
                ready = self._conn.poll(min(left, 0.5))
            except (EOFError, OSError):
                ready = False
            if not ready:
                if self._proc.poll() is not None:
                    return [self._died(name)]
                continue
            try:
                msg = self._conn.recv()
            except (EOFError, OSError):
                return [self._died(name)]
            kind = msg[0]
            if kind == "progress":
                self.on_progress(msg[1])
            elif kind == "result":
                if msg[2].get("device"):
                    self.resolved_device = msg[2]["device"]
                return [Finding.from_dict(d) for d in msg[1]]
            elif kind == "case-error":
                raise CaseError(msg[1], msg[2])
            elif kind == "error":
                _, etype, message, tb = msg
                return [_error(name, f"raised {etype}: {message.splitlines()[0] if message else ''}",
                               "This is a problem inside the wizard or the loading of your "
                               "model/data; the traceback is in the evidence.", tb)]

    def _died(self, name: str) -> Finding:
        code = None
        if self._proc is not None:
            try:
                code = self._proc.wait(5)  # the pipe closes a moment before the exit is reaped
            except subprocess.TimeoutExpired:
                pass
        self.close(kill=True)
        why = ("was killed (signal 9: most likely out of memory)" if code in (-9, 137)
               else f"died with exit code {code}")
        return _error(name, f"its process {why}",
                      "Re-run with a smaller training.batch_size or dataset.max_samples, or --device cpu.")

    def close(self, kill: bool = False) -> None:
        if self._proc is None:
            return
        try:
            if not kill and self._proc.poll() is None:
                self._conn.send(None)
                self._proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(10)
        self._conn.close()
        self._proc = None
        self._conn = None

    def __enter__(self) -> "Worker":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _error(probe: str, what: str, advice: str, tb: str = "") -> Finding:
    return Finding("wizard.probe-crashed", "error", f"Probe {probe!r} {what}",
                   evidence={"probe": probe, **({"traceback": tb} if tb else {})},
                   explanation=f"The {probe!r} probe {what}; the other checks went on without "
                               f"it. {advice}")
