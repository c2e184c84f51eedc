"""A Python child process that talks to its parent over a pipe: the one implementation behind the
probe worker and the app's session processes.

A plain subprocess, not multiprocessing's spawn: spawn would re-import the user's __main__ (a
notebook, a script without a main guard, app.py) in the child. The child runs `entry(conn)`, a
module-level function named by its module and name, with the pipe's other end.
"""
from __future__ import annotations

import atexit
import importlib
import multiprocessing as mp
import os
import signal
import subprocess
import sys
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Callable, Mapping


class Child:
    """One child process running `entry(conn)`. `group`: it and its own children form a process
    group that `stop(kill=True)` ends together. `log`: where its stdout and stderr go, appended
    (native libraries write there around Python, e.g. TensorFlow's C++ log lines)."""

    def __init__(self, entry: Callable[[Connection], None] | str, env: Mapping[str, str],
                 group: bool = False, log: Path | None = None):
        self.target = entry if isinstance(entry, str) else target_of(entry)
        self.env = dict(env)
        parent, child = mp.Pipe()
        self.conn = parent
        self.log = log
        out = open(log, "ab") if log is not None else None  # noqa: SIM115 (the child's, closed below)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from wizard.core.childproc import child_main; "
             "child_main(sys.argv[1], int(sys.argv[2]))", self.target, str(child.fileno())],
            pass_fds=[child.fileno()], env=dict(env), start_new_session=group,
            stdout=out, stderr=out)
        child.close()
        if out is not None:
            out.close()
        self.group = group

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, item: Any) -> None:
        self.conn.send(item)

    def poll(self, timeout: float) -> bool:
        """True when a message is waiting (a closed pipe counts: recv then raises EOFError)."""
        try:
            return self.conn.poll(timeout)
        except (EOFError, OSError):
            return False

    def recv(self) -> Any:
        return self.conn.recv()

    def log_tail(self, lines: int = 20) -> str:
        """The last lines the child printed (empty without a log)."""
        if self.log is None or not self.log.exists():
            return ""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def exit_code(self, wait: float = 5.0) -> int | None:
        """The exit code, waiting a moment (the pipe closes before the exit is reaped)."""
        try:
            return self.proc.wait(wait)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, kill: bool = False, goodbye: Any = None, wait: float = 10.0) -> None:
        """Ask the child to finish (`goodbye` sent when not None), then kill it if it must."""
        try:
            if not kill and self.alive():
                if goodbye is not None:
                    self.conn.send(goodbye)
                self.proc.wait(wait)
        except (OSError, subprocess.TimeoutExpired):
            pass
        if self.alive():
            if self.group:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    self.proc.kill()
            else:
                self.proc.kill()
            self.proc.wait(10)
        self.conn.close()


def target_of(entry: Callable[..., Any]) -> str:
    """'module:function', how a child finds its entry."""
    return f"{entry.__module__}:{entry.__qualname__}"


_WARM: list[Child] = []  # children started before anyone asked for them (see prestart)


def prestart(target: str, env: Mapping[str, str], log: Path | None = None) -> Child:
    """Start a child for `target` now, while the caller still imports and parses: `claim` hands
    it over; one nobody claims is stopped when this process exits."""
    if not _WARM:
        atexit.register(_stop_unclaimed)
    child = Child(target, env, log=log)
    _WARM.append(child)
    return child


def claim(target: str, env: Mapping[str, str]) -> Child | None:
    """The prestarted child for `target` started with exactly `env`, still alive; else None."""
    for child in list(_WARM):
        if child.target == target and child.env == dict(env) and child.alive():
            _WARM.remove(child)
            return child
    return None


def _stop_unclaimed() -> None:
    while _WARM:
        _WARM.pop().stop(kill=True)


def child_main(target: str, fd: int) -> None:
    """The child's side: find `module:function` and run it with the pipe."""
    module, name = target.split(":")
    entry = getattr(importlib.import_module(module), name)
    entry(Connection(fd))
