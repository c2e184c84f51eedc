"""What the web app runs, with no gradio in it: one Session per user as a stream of plain events,
the report bundle, the dataset's columns for the pickers, and the Hub discussion.

Events are dicts (picklable, so they can cross a ZeroGPU process boundary):
{"kind": "step", "id", "title", "why"}, {"kind": "progress", "message"},
{"kind": "finding", "finding": Finding.to_dict()}, {"kind": "verdict", "verdict": {...}},
{"kind": "result", "result": Result.to_dict()} (last), or instead of it
{"kind": "case-error", "message", "field"} for bad input, {"kind": "crash", "message"}.
"""
from __future__ import annotations

import os
import queue
import shutil
import threading
import zipfile
from pathlib import Path
from typing import Any, Callable, Iterator

from wizard.case import Case, CaseError
from wizard.findings import Finding, Verdict

FORMATS = ("markdown", "github", "forum", "hub")


def run_events(case_dict: dict[str, Any], device: str = "auto", timeout: float = 300.0,
               only_steps: tuple[str, ...] | None = None, inline: bool = False,
               autosave: str | None = None) -> Iterator[dict[str, Any]]:
    """Run the tree's checks for one case in a thread; yield its events as they happen.

    `inline` runs the probes in this process (ZeroGPU: this process holds the GPU) instead of
    the worker child process; `only_steps` limits the walk to these tree step ids.
    """
    from wizard.session import Session
    from wizard.tree import plan

    events: queue.Queue[dict[str, Any] | None] = queue.Queue()
    case = Case.from_dict(case_dict)
    steps = [s for s in plan(case) if only_steps is None or s.id in only_steps]

    def on_event(event: Any) -> None:
        data = dict(event.data)
        if "finding" in data:
            data["finding"] = data["finding"].to_dict()
        if "verdict" in data:
            data["verdict"] = data["verdict"].to_dict()
        events.put({"kind": event.kind, **data})

    def target() -> None:
        try:
            ctx = None
            if inline:
                from wizard.context import Context, check_local_paths

                check_local_paths(case)
                ctx = Context(case, device=device, progress=lambda m: events.put(
                    {"kind": "progress", "message": m}))
            session = Session(case, device=device, timeout=timeout, on_event=on_event,
                              steps=steps, autosave=Path(autosave) if autosave else None, ctx=ctx)
            events.put({"kind": "result", "result": session.run().to_dict()})
        except CaseError as exc:
            events.put({"kind": "case-error", "message": str(exc), "field": exc.field_name})
        except Exception as exc:  # shown as one sentence; the wizard itself keeps running
            events.put({"kind": "crash", "message": _one_line(exc)})
        finally:
            events.put(None)

    threading.Thread(target=target, name="wizard-session", daemon=True).start()
    while (item := events.get()) is not None:
        yield item


def gpu_runner(duration: int = 120) -> Callable[..., Iterator[dict[str, Any]]]:
    """`run_events` for this machine: under `spaces.GPU` on ZeroGPU (probes inline, in the
    process that holds the GPU), the plain function elsewhere."""
    if not os.environ.get("SPACES_ZERO_GPU"):
        return run_events
    import spaces  # the Space's app.py imported it before anything touched CUDA

    @spaces.GPU(duration=duration)
    def run_on_gpu(case_dict: dict[str, Any], device: str = "auto", timeout: float = 300.0,
                   only_steps: tuple[str, ...] | None = None, inline: bool = True,
                   autosave: str | None = None) -> Iterator[dict[str, Any]]:
        yield from run_events(case_dict, device, timeout, only_steps, inline=True,
                              autosave=autosave)

    return run_on_gpu


def result_from_dict(d: dict[str, Any]) -> Any:
    """A session Result back from Result.to_dict() (the app keeps plain dicts in its state)."""
    from wizard.session import Result

    result = Result(Case.from_dict(d["case"]), d.get("environment") or {}, d.get("device", "cpu"),
                    list(d.get("path", [])), [Finding.from_dict(f) for f in d["findings"]],
                    Verdict(**d["verdict"]), list(d.get("reports", [])), d.get("seconds", 0.0))
    return result


def write_bundle(result_dict: dict[str, Any], out_dir: Path) -> Path:
    """Write every report format, the plots, case.yaml and result.json into out_dir, and zip
    them; returns the zip's path."""
    import json

    from reports.render import write_reports

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


def dataset_columns(path: str, config: str | None = None) -> list[str]:
    """The dataset's column names, read from its metadata (the viewer or local files); raises
    CaseError with one sentence when the dataset cannot be found."""
    from wizard.hub import HubError, resolve_dataset

    try:
        ref = resolve_dataset(path.strip(), config=(config or "").strip() or None)
    except HubError as exc:
        raise CaseError(str(exc), "dataset.path") from None
    return list(ref.columns)


def preflight(case: Case) -> None:
    """The engine's own input checks before a run, where they are cheap: local folders exist,
    and a local dataset has the columns the case names (CaseError otherwise)."""
    from wizard.context import Context, check_local_paths, is_local_ref

    check_local_paths(case)
    if case.dataset.path and is_local_ref(case.dataset.path):
        Context(case).raw  # loads the few rows the checks use and checks the columns


def create_hub_discussion(repo_id: str, title: str, description: str, token: str | None,
                          endpoint: str | None = None) -> str:
    """Open a discussion on a model's Hub page as the signed-in user; returns its URL.

    `token` is the user's own OAuth token: without one this refuses (it never falls back to
    the machine's saved login or HF_TOKEN, which on a Space belong to the Space's owner).
    """
    from huggingface_hub import HfApi

    from reports.redact import redact

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
        raise PermissionError(f"The discussion could not be opened ({_one_line(exc)}); copy "
                              "the report and open it on the model's page instead.") from None
    return discussion.url


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300]}" if text else type(exc).__name__
