"""The app's "Run the script": a pasted training script run under the wizard in a child process
of its own, with a time limit, by the one implementation of `python -m wizard run`
(wizard.live.run.run_instrumented, the reproduction step included); its events stream back as
the plain dicts of wizard.frontends.app.run.

Running pasted code is only safe on the user's own machine: `scripts_runnable` says whether this
app may (locally yes; on a shared Space only with WIZARD_RUN_SCRIPTS=1).
"""
from __future__ import annotations

import os
import shlex
import time
from pathlib import Path
from typing import Any, Iterator, Mapping

from wizard.core.case import CaseError
from wizard.core.childproc import Child
from wizard.errors import one_line
from wizard.frameworks import child_env
from wizard.frontends.app.run import event_dict, read_pasted_script
from wizard.live.run import loads_tf_weights, run_instrumented
from wizard.settings import Settings

SCRIPT_NAME = "train.py"


def scripts_runnable(env: Mapping[str, str] | None = None) -> bool:
    """Whether this app runs pasted scripts: on the user's own machine, yes; on a shared Space
    (SPACE_ID set) only when its owner set WIZARD_RUN_SCRIPTS=1."""
    env = os.environ if env is None else env
    chosen = Settings.from_env(env).run_scripts
    return chosen if chosen is not None else not env.get("SPACE_ID")


def why_not_runnable(name: str = SCRIPT_NAME) -> str:
    """The one sentence shown beside the disabled button."""
    return ("Running a pasted script is off on a shared Space: it would run on the Space's "
            f"machine, not yours. Run it on your own machine instead: `python -m wizard run "
            f"{name} ARGS` (or `python -m wizard check --script {name} --run ARGS`).")


def script_run_note(runnable: bool) -> str:
    """What the Run button does, or why it is off."""
    if not runnable:
        return why_not_runnable()
    return ("**Run the script** runs it here, on this machine, as `python -m wizard run "
            f"{SCRIPT_NAME} ARGS` does: the checks see its live model and first batch, and an "
            "error from inside a library gets a reproduction written from it, verified in a "
            "fresh interpreter.")


def script_run_plan(name: str, argv: list[str]) -> str:
    """The checks step's heading for a script run."""
    command = " ".join(["python -m wizard run", name, *(shlex.quote(a) for a in argv)])
    return (f"**Running {name} under the wizard** (as `{command}`): the checks run on its live "
            "model and first batch before any weight update; an error from inside a library "
            "gets a reproduction written from the script, verified in a fresh interpreter.")


def script_argv(text: str | None) -> list[str]:
    """The script's arguments as typed on a command line; CaseError on unbalanced quotes."""
    try:
        return shlex.split(text or "")
    except ValueError as exc:
        raise CaseError(f"The script's arguments could not be read ({exc}); write them as on "
                        "a command line, e.g. ./checkpoint ./data --epochs 1.") from None


def script_run_entry(conn: Any) -> None:
    """The child's side: run the script under the wizard, send each event, then the result."""
    script, argv = conn.recv()

    def put(item: dict[str, Any] | None) -> None:
        try:
            conn.send(item)
        except (OSError, ValueError):  # the app went away
            pass

    try:
        outcome = run_instrumented(script, argv, on_event=lambda e: put(event_dict(e)))
        put({"kind": "result", "result": outcome.result.to_dict()})
    except CaseError as exc:
        put({"kind": "case-error", "message": str(exc), "field": exc.field_name})
    except Exception as exc:  # one sentence; the app keeps running
        put({"kind": "crash", "message": one_line(exc, 300, typed=True)})
    finally:
        put(None)
        conn.close()


def run_script_events(text: str, args: str | None, run_dir: Path,
                      time_limit: float) -> Iterator[dict[str, Any]]:
    """Write the pasted script into run_dir, run it under the wizard in a child process (its
    own process group, stopped past `time_limit` seconds), and yield its events. Bad input is
    one {"kind": "case-error"} event."""
    try:
        reading = read_pasted_script(text, SCRIPT_NAME)
        argv = script_argv(args)
    except CaseError as exc:
        yield {"kind": "case-error", "message": str(exc), "field": None}
        return
    run_dir.mkdir(parents=True, exist_ok=True)
    script = run_dir / SCRIPT_NAME
    script.write_text(text, encoding="utf-8")
    env = child_env(reading.case.framework)
    if loads_tf_weights(reading):  # PyTorch from TensorFlow weights: TF must stay importable
        env.pop("USE_TF", None)
    if env.get("SPACE_ID"):  # a Space's own token is its owner's, never a pasted script's
        for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
            env.pop(name, None)
        env["HF_TOKEN_PATH"] = os.devnull
    child = Child(script_run_entry, env, group=True, log=run_dir / "script-output.log")
    deadline = time.monotonic() + time_limit
    finished = False
    try:
        child.send((str(script), argv))
        yield {"kind": "progress", "message": f"running {SCRIPT_NAME} {' '.join(argv)}".strip()}
        while True:
            if time.monotonic() > deadline:
                yield {"kind": "crash", "expected": True,
                       "message": f"the script ran past the time limit of {time_limit:.0f} s "
                                  "and was stopped"}
                break
            if child.poll(0.5):
                try:
                    item = child.recv()
                except (EOFError, OSError):
                    item = {"kind": "crash", "expected": True, "message": _died(child)}
                if item is None:
                    finished = True
                    break
                yield item
                if item["kind"] == "crash":
                    break
            elif not child.alive() and not child.poll(0):
                yield {"kind": "crash", "expected": True, "message": _died(child)}
                break
    finally:
        child.stop(kill=not finished)


def _died(child: Child) -> str:
    tail = child.log_tail(3).strip().replace("\n", " ")[-300:]
    return f"the script's process stopped early (exit code {child.exit_code(None)})" + (
        f": {tail}" if tail else "")
