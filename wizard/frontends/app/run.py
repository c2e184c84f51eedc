"""What the web app runs, with no gradio in it: one Session per user as a stream of plain events
(with the signed-in user's own Hub token, in a process of its own), the report bundle and its
reproduction script, the dataset's columns for the pickers, a pasted training script read
statically, and the Hub discussion.

Events are dicts (picklable, so they can cross a ZeroGPU process boundary):
{"kind": "step", "id", "title", "why"}, {"kind": "progress", "message"},
{"kind": "finding", "finding": Finding.to_dict()}, {"kind": "verdict", "verdict": {...}},
{"kind": "result", "result": Result.to_dict()} (last), or instead of it
{"kind": "case-error", "message", "field"} for bad input, {"kind": "crash", "message"}.
"""
from __future__ import annotations

import json
import os
import queue
import shutil
import threading
import zipfile
from pathlib import Path
from typing import Any, Callable, Iterator

from wizard.context import Context, check_local_paths, is_local_ref
from wizard.core.case import Case, CaseError
from wizard.core.findings import Finding, Verdict
from wizard.engine.plan import plan
from wizard.engine.session import Result, Session
from wizard.engine.verdict import merge_static
from wizard.errors import one_line
from wizard.evidence.repro import SCRIPT_NAME, script_from_result
from wizard.core.childproc import Child
from wizard.frameworks import child_env
from wizard.hub.dataset import resolve_dataset
from wizard.hub.errors import HubError
from wizard.reports.redact import redact
from wizard.reports.render import write_reports
from wizard.script.fixes import CodeNames, fit_fixes
from wizard.script.reader import read_script
from wizard.settings import PROBE_TIMEOUT

FORMATS = ("markdown", "github", "forum", "hub")
FINAL_NAME = "final.json"  # a run folder's last update, kept for a page that lost it


def run_events(case_dict: dict[str, Any], device: str = "auto", timeout: float = PROBE_TIMEOUT,
               only_steps: tuple[str, ...] | None = None, inline: bool = False,
               autosave: str | None = None, hub_token: str | None = None,
               isolated: bool = False) -> Iterator[dict[str, Any]]:
    """Run the tree's checks for one case; yield its events as they happen.

    `inline` runs the probes in this process (ZeroGPU: this process holds the GPU) instead of
    the worker child process; `only_steps` limits the walk to these tree step ids.

    `hub_token` is the signed-in user's own token (the app's OAuth login) for the Hub lookups of
    this run: private and gated models and datasets. It never enters the case, the result or
    the saved files. A run with a token, or any `isolated` run (a Space with sign-in), happens in
    a child process of its own whose environment holds that token or none at all: never the
    machine's HF_TOKEN or saved login, and nothing another session could see.
    """
    if hub_token or isolated:
        yield from _events_in_child(case_dict, device, timeout, only_steps, inline, autosave,
                                    hub_token)
        return
    events: queue.Queue[dict[str, Any] | None] = queue.Queue()
    threading.Thread(target=_session_events, name="wizard-session", daemon=True,
                     args=(case_dict, device, timeout, only_steps, inline, autosave,
                           events.put)).start()
    while (item := events.get()) is not None:
        yield item


def _session_events(case_dict: dict[str, Any], device: str, timeout: float,
                    only_steps: tuple[str, ...] | None, inline: bool, autosave: str | None,
                    put: Callable[[dict[str, Any] | None], None],
                    hub_token: str | None = None) -> None:
    """One Session over the case; each event goes to `put` as a plain dict, then None."""

    def on_event(event: Any) -> None:
        put(event_dict(event))

    try:
        case = Case.from_dict(case_dict)
        steps = [s for s in plan(case) if only_steps is None or s.id in only_steps]
        ctx = None
        if inline:

            check_local_paths(case)
            ctx = Context(case, device=device, progress=lambda m: put(
                {"kind": "progress", "message": m}))
        session = Session(case, device=device, timeout=timeout, on_event=on_event, steps=steps,
                          autosave=Path(autosave) if autosave else None, ctx=ctx,
                          oauth_token=hub_token)
        put({"kind": "result", "result": session.run().to_dict()})
    except CaseError as exc:
        put({"kind": "case-error", "message": str(exc), "field": exc.field_name})
    except Exception as exc:  # shown as one sentence; the wizard itself keeps running
        put({"kind": "crash", "message": one_line(exc, 300, typed=True)})
    finally:
        put(None)


def event_dict(event: Any) -> dict[str, Any]:
    """A session Event as the plain dict the app streams (findings and verdicts as dicts)."""
    data = dict(event.data)
    if "finding" in data:
        data["finding"] = data["finding"].to_dict()
    if "verdict" in data:
        data["verdict"] = data["verdict"].to_dict()
    return {"kind": event.kind, **data}


def _child_env(hub_token: str | None) -> dict[str, str]:
    """The session child's environment: the user's token as its only token, or no token."""
    env = child_env(None)
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", _USER_TOKEN_FLAG):
        env.pop(name, None)
    env["HF_TOKEN_PATH"] = os.devnull  # never the machine's saved login (`hf auth login`)
    if hub_token:
        env["HF_TOKEN"] = hub_token  # what transformers/datasets send, here and in the worker
        env["HF_HUB_DISABLE_IMPLICIT_TOKEN"] = "0"
        env[_USER_TOKEN_FLAG] = "1"
    else:
        env["HF_HUB_DISABLE_IMPLICIT_TOKEN"] = "1"
    return env


_USER_TOKEN_FLAG = "WIZARD_USER_TOKEN"  # set in a session child whose HF_TOKEN is the user's


def session_entry(conn: Any) -> None:
    """The session child's entry (see core.childproc): run one session, send its events back."""
    args = conn.recv()
    token = os.environ.get("HF_TOKEN") if os.environ.get(_USER_TOKEN_FLAG) else None

    def put(item: dict[str, Any] | None) -> None:
        try:
            conn.send(item)
        except (OSError, ValueError):  # the app went away: nobody is listening any more
            pass

    try:
        _session_events(*args, put=put, hub_token=token)
    finally:
        conn.close()


def _events_in_child(case_dict: dict[str, Any], device: str, timeout: float,
                     only_steps: tuple[str, ...] | None, inline: bool, autosave: str | None,
                     hub_token: str | None) -> Iterator[dict[str, Any]]:
    # its own process group: when the app stops it, its probe worker goes too
    child = Child(session_entry, _child_env(hub_token), group=True)
    finished = False

    def died() -> dict[str, Any]:
        return {"kind": "crash", "message": "the checks' process stopped early (exit code "
                                            f"{child.exit_code(None)})"}

    try:
        child.send((case_dict, device, timeout, only_steps, inline, autosave))
        while True:
            if child.poll(0.5):
                try:
                    item = child.recv()
                except (EOFError, OSError):
                    yield died()
                    break
                if item is None:
                    finished = True
                    break
                yield item
            elif not child.alive() and not child.poll(0):
                yield died()
                break
    finally:
        child.stop(kill=not finished)


def gpu_runner(duration: int = 120) -> Callable[..., Iterator[dict[str, Any]]]:
    """`run_events` for this machine: under `spaces.GPU` on ZeroGPU (probes inline, in the
    process that holds the GPU), the plain function elsewhere."""
    if not os.environ.get("SPACES_ZERO_GPU"):
        return run_events
    import spaces  # the Space's app.py imported it before anything touched CUDA

    @spaces.GPU(duration=duration)
    def run_on_gpu(case_dict: dict[str, Any], device: str = "auto", timeout: float = PROBE_TIMEOUT,
                   only_steps: tuple[str, ...] | None = None, inline: bool = True,
                   autosave: str | None = None, hub_token: str | None = None,
                   isolated: bool = False) -> Iterator[dict[str, Any]]:
        yield from run_events(case_dict, device, timeout, only_steps, inline=True,
                              autosave=autosave, hub_token=hub_token, isolated=isolated)

    return run_on_gpu


def result_from_dict(d: dict[str, Any]) -> Any:
    """A session Result back from Result.to_dict() (the app keeps plain dicts in its state)."""

    # a record of what ran, not input to check: a script run's case may leave fields open
    result = Result(Case.from_dict(d["case"], validate=False), d.get("environment") or {}, d.get("device", "cpu"),
                    list(d.get("path", [])), [Finding.from_dict(f) for f in d["findings"]],
                    Verdict(**d["verdict"]), list(d.get("reports", [])), d.get("seconds", 0.0))
    return result


def write_bundle(result_dict: dict[str, Any], out_dir: Path) -> Path:
    """Write every report format, the plots, case.yaml and result.json into out_dir, and zip
    them; returns the zip's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    result = result_from_dict(result_dict)
    written = write_reports(result, out_dir, FORMATS)
    result.reports = [p.name for p in written]
    (out_dir / "case.yaml").write_text(result.case.to_yaml(), encoding="utf-8")
    (out_dir / "result.json").write_text(json.dumps(result.to_dict(), indent=2, default=str),
                                         encoding="utf-8")
    zip_path = out_dir.parent / "hf-debug-wizard-report.zip"
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(out_dir.rglob("*")):
            if path.is_file():
                zf.write(path, f"hf-debug-wizard-report/{path.relative_to(out_dir)}")
    return zip_path


def save_final(run_dir: Path, final: dict[str, Any]) -> Path:
    """Keep a run's last update (result, bundle, note, log) in its folder, whole or not at all,
    so that a page whose stream lost it can fetch it again."""
    run_dir.mkdir(parents=True, exist_ok=True)
    path, tmp = run_dir / FINAL_NAME, run_dir / (FINAL_NAME + ".tmp")
    tmp.write_text(json.dumps(final, default=str), encoding="utf-8")
    tmp.replace(path)
    return path


def forget_final(run_dir: Path) -> None:
    """A run starts: a last update kept in its folder by an earlier run is not this run's."""
    (run_dir / FINAL_NAME).unlink(missing_ok=True)


def load_final(run_dir: Path) -> dict[str, Any] | None:
    """The last update `save_final` kept for this run, or None while the run goes on."""
    try:
        return json.loads((run_dir / FINAL_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def gather_logs(uploads: list[str] | None, out_dir: Path) -> str | None:
    """Uploaded training logs as one path the curves probe reads: the file itself, or a folder
    holding all of them (TensorBoard event files, checkpoint folders' trainer_state.json)."""
    files = [Path(u) for u in uploads or [] if u]
    if not files:
        return None
    out_dir.mkdir(parents=True, exist_ok=True)
    copies = []
    for f in files:
        target = out_dir / f.name
        shutil.copyfile(f, target)
        copies.append(target)
    return str(copies[0]) if len(copies) == 1 else str(out_dir)


def dataset_columns(path: str, config: str | None = None,
                    hub_token: str | None = None) -> list[str]:
    """The dataset's column names, read from its metadata (the viewer or local files); raises
    CaseError with one sentence when the dataset cannot be found. `hub_token`: the signed-in
    user's own token, for a private or gated dataset."""

    try:
        ref = resolve_dataset(path.strip(), config=(config or "").strip() or None,
                              oauth_token=hub_token or None)
    except HubError as exc:
        raise CaseError(str(exc), "dataset.path") from None
    return list(ref.columns)


MAX_SCRIPT_CHARS = 500_000


def read_pasted_script(text: str | None, name: str | None = None) -> Any:
    """A pasted (or uploaded) training script read statically, never run: a ScriptReading.
    CaseError with one sentence when there is nothing to read: no text, a syntax error, or no
    training code at all."""

    label = name or "The script"
    if not (text or "").strip():
        raise CaseError("Paste a training script first, or upload its .py file.")
    if len(text or "") > MAX_SCRIPT_CHARS:
        raise CaseError(f"{label} is longer than {MAX_SCRIPT_CHARS // 1000} KB of text; paste "
                        "the training script itself.")
    reading = read_script(text or "", name)  # ScriptError (a CaseError): one sentence
    if not reading.read:
        raise CaseError(f"No training code was found in {name or 'the script'}: no "
                        "from_pretrained, load_dataset, fit(), Trainer or optimizer.step() call; "
                        "paste the script that trains your model, or fill in the fields below.")
    return reading


def merge_static_findings(result_dict: dict[str, Any], static: list[dict[str, Any]],
                          names: dict[str, str] | None = None) -> dict[str, Any]:
    """A run's result with the findings read from the user's script folded in (each keeps its
    line; where the run checked the same thing, the run's finding wins), verdict re-decided,
    and the fixes written with the script's own names."""
    if not static and not names:
        return result_dict
    result = result_from_dict(result_dict)
    result = merge_static(result, [Finding.from_dict(f) for f in static])
    fit_fixes(result.findings, CodeNames(**(names or {})), result.case.training.batch_size)
    return {**result_dict, **{k: v for k, v in result.to_dict().items()
                              if k in ("findings", "verdict")}}


def repro_script(result_dict: dict[str, Any],
                 bundle_dir: Path | None = None) -> tuple[str, Path | None]:
    """The reproduction script of a result, as shared (tokens, e-mails and home paths removed),
    and the repro.py the bundle holds; ("", None) when the result has none."""

    script = script_from_result(result_dict)
    if not script:
        return "", None
    path = bundle_dir / SCRIPT_NAME if bundle_dir is not None else None
    if path is not None and path.is_file():
        return path.read_text(encoding="utf-8"), path
    return redact(script), None


def preflight(case: Case) -> None:
    """The engine's own input checks before a run, where they are cheap: local folders exist,
    and a local dataset has the columns the case names (CaseError otherwise)."""

    check_local_paths(case)
    if case.dataset.path and is_local_ref(case.dataset.path):
        Context(case).check_columns()  # loads the few rows the checks use


def create_hub_discussion(repo_id: str, title: str, description: str, token: str | None,
                          endpoint: str | None = None) -> str:
    """Open a discussion on a model's Hub page as the signed-in user; returns its URL.

    `token` is the user's own OAuth token: without one this refuses (it never falls back to
    the machine's saved login or HF_TOKEN, which on a Space belong to the Space's owner).
    """
    from huggingface_hub import HfApi


    if not token:
        raise PermissionError("Sign in with Hugging Face first: the discussion is opened in "
                              "your name, with your own account.")
    api = HfApi(endpoint=endpoint or os.environ.get("HF_ENDPOINT") or None, token=False)
    try:
        discussion = api.create_discussion(repo_id, redact(title)[:200], token=token,
                                           description=redact(description), repo_type="model")
    except Exception as exc:
        status = getattr(getattr(exc, "response", None), "status_code", None)
        if status in (401, 403):
            raise PermissionError(f"The Hub refused to open a discussion on {repo_id} (HTTP "
                                  f"{status}); sign in again and allow the app to open "
                                  "discussions for you.") from None
        if status == 404:
            raise PermissionError(f"The Hub has no model {repo_id!r}; check the model id.") from None
        raise PermissionError(f"The discussion could not be opened ({one_line(exc, 300, typed=True)}); copy "
                              "the report and open it on the model's page instead.") from None
    return discussion.url

