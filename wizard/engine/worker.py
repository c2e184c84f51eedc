"""Run probes in a child process with a time limit: a crash, hang or OOM there becomes an
`error` finding naming the probe, never a dead wizard. The child keeps its loaded context
(model, data) between probes and is restarted after a failure."""
from __future__ import annotations

import os
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Callable

from wizard.context import Context
from wizard.core.case import Case, CaseError
from wizard.core.findings import Finding
from wizard.core.childproc import Child, claim, target_of
from wizard.engine.registry import resolve
from wizard.engine.warm import WORKER_TARGET
from wizard.frameworks import child_env, preload, use_framework
from wizard.settings import PROBE_TIMEOUT

DEFAULT_TIMEOUT = PROBE_TIMEOUT
QUIT_WAIT = 0.2   # seconds a finished worker gets to exit before it is killed (nothing to save)
_GOODBYE = ""  # an empty probe name: the worker's loop ends


def worker_entry(conn: Any) -> None:
    """The worker child's entry (see core.childproc): the case first, then probe names. A
    prestarted worker nobody claimed sees its pipe close and ends quietly."""
    try:  # before the case: a worker started ahead (engine.warm) imports while it waits
        preload()
    except Exception:  # noqa: BLE001 - the probes that need it report it
        pass
    try:
        case_dict, device = conn.recv()
    except (EOFError, OSError):
        return
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
    try:  # import the framework now, while the parent runs its own probes
        ctx.backend
    except Exception:  # noqa: BLE001  (the probes that need it report it)
        pass
    while True:
        try:
            name = conn.recv()
        except EOFError:
            return
        if not name:  # None or the goodbye
            return
        try:
            findings = resolve(name)(case, ctx)
            findings = [*ctx.notes, *findings]
            ctx.notes.clear()
            device_now = ctx.loaded("backend") and ctx.device
            conn.send(("result", [f.to_dict() for f in findings], {"device": device_now}))
        except CaseError as exc:
            conn.send(("case-error", str(exc), exc.field_name))
        except BaseException as exc:  # reported as a finding by the parent
            conn.send(("error", type(exc).__name__, str(exc)[:2000], traceback.format_exc()[-4000:]))


if target_of(worker_entry) != WORKER_TARGET:  # the warm start names this entry by its path
    raise ImportError(f"wizard.engine.warm.WORKER_TARGET is {WORKER_TARGET!r}, but the worker's "
                      f"entry is {target_of(worker_entry)!r}")


class Worker:
    """One child process per session; restarted when a probe kills it."""

    def __init__(self, case: Case, device: str = "auto", timeout: float = DEFAULT_TIMEOUT,
                 on_progress: Callable[[str], None] | None = None):
        self.case = case
        self.device = device
        self.timeout = timeout
        self.on_progress = on_progress or (lambda m: None)
        self.resolved_device: str | None = None
        # what the child prints (TensorFlow's C++ logs, warnings) stays off the user's screen
        self.log = Path(tempfile.gettempdir()) / f"wizard-worker-{os.getpid()}-{id(self)}.log"
        self._child: Child | None = None

    def start(self) -> None:
        """Start the child (if it is not running): it imports the framework while the caller
        does other work."""
        if self._child is None or not self._child.alive():
            env = child_env(self.case.framework, self.device)
            warm = claim(WORKER_TARGET, env)  # started by `python -m wizard` before parsing
            if warm is not None and warm.log is not None:
                self.log = warm.log
            self._child = warm or Child(worker_entry, env, log=self.log)
            self._child.send((self.case.to_dict(), self.device))

    def run(self, name: str, timeout: float | None = None) -> list[Finding]:
        self.start()
        child = self._child
        limit = timeout or self.timeout
        child.send(name)
        deadline = time.monotonic() + limit
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.close(kill=True)
                return [probe_error(name, f"did not finish within {limit:.0f} s and was stopped",
                               "Re-run with a longer --timeout, or a smaller batch_size/max_samples.")]
            if not child.poll(min(left, 0.5)):
                if not child.alive():
                    return [self._died(name)]
                continue
            try:
                msg = child.recv()
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
                return [probe_error(name, f"raised {etype}: {message.splitlines()[0] if message else ''}",
                               "This is a problem inside the wizard or the loading of your "
                               "model/data; the traceback is in the evidence.", tb)]

    def _died(self, name: str) -> Finding:
        code = self._child.exit_code() if self._child is not None else None
        tail = self._child.log_tail() if self._child is not None else ""
        self.close(kill=True)
        why = ("was killed (signal 9: most likely out of memory)" if code in (-9, 137)
               else f"died with exit code {code}")
        return probe_error(name, f"its process {why}",
                      "Re-run with a smaller training.batch_size or dataset.max_samples, or --device cpu.",
                      tail)

    def close(self, kill: bool = False) -> None:
        if self._child is not None:
            self._child.stop(kill=kill, goodbye=None if kill else _GOODBYE, wait=QUIT_WAIT)
            self._child = None
        self.log.unlink(missing_ok=True)

    def __enter__(self) -> "Worker":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def probe_error(probe: str, what: str, advice: str, tb: str = "") -> Finding:
    return Finding("wizard.probe-crashed", "error", f"Probe {probe!r} {what}",
                   evidence={"probe": probe, **({"traceback": tb} if tb else {})},
                   explanation=f"The {probe!r} probe {what}; the other checks went on without "
                               f"it. {advice}")
