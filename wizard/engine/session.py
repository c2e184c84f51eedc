"""Walk the check steps for one case; UI-agnostic, emits events that front ends render."""
from __future__ import annotations

import json
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from wizard import __version__
from wizard.context import check_local_paths
from wizard.core.case import Case, CaseError
from wizard.core.findings import Finding, Verdict
from wizard.core.tasks import runs_for, skip_reason
from wizard.engine.plan import Step, plan
from wizard.engine.registry import PROBES, resolve
from wizard.engine.verdict import decide
from wizard.engine.worker import DEFAULT_TIMEOUT, Worker, probe_error
from wizard.evidence.environment import environment_info

# Failing findings after which no batch can be built: later probes that need one are skipped
BATCH_BLOCKERS = frozenset({"data.label-column-missing", "data.string-labels", "data.no-pad-token",
                            "data.ragged-batch", "data.raw-text-columns"})
EventKind = str  # "step" | "progress" | "finding" | "verdict"


@dataclass
class Event:
    kind: EventKind
    data: dict[str, Any]


@dataclass
class Result:
    case: Case
    environment: dict[str, Any]
    device: str
    path: list[str]
    findings: list[Finding]
    verdict: Verdict
    reports: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "wizard_version": __version__,
            "case": self.case.to_dict(),
            "environment": self.environment,
            "device": self.device,
            "path": self.path,
            "findings": [f.to_dict() for f in self.findings],
            "verdict": self.verdict.to_dict(),
            "reports": self.reports,
            "seconds": round(self.seconds, 2),
        }

    def fails(self) -> list[Finding]:
        return [f for f in self.findings if f.status == "fail"]


def static_result(case: Case) -> Result:
    """A result with nothing run: the findings read without running (a script's static
    checks) are folded in by the caller, which decides the verdict."""
    return Result(case, environment_info(), "none (nothing was run)", ["script"], [],
                  decide(case, []))


class Session:
    """Runs the steps of the tree in order; probes needing the framework go to the worker."""

    def __init__(self, case: Case, device: str = "auto", timeout: float = DEFAULT_TIMEOUT,
                 on_event: Callable[[Event], None] | None = None,
                 steps: list[Step] | None = None, autosave: Path | None = None,
                 ctx: Any = None, oauth_token: str | None = None):
        """`ctx`: a Context over live objects (Context.from_objects); its probes then run in
        this process, on those objects, instead of in the worker. `oauth_token`: a signed-in
        user's own Hub token (the web app) for the Hub lookups; never saved."""
        self.case = case
        self.device = device
        self.timeout = timeout
        self.on_event = on_event or (lambda e: None)
        self.steps = steps if steps is not None else plan(case)
        self.autosave = autosave
        self.ctx = ctx
        self.oauth_token = oauth_token
        self.findings: list[Finding] = []
        self.path: list[str] = []

    def _emit(self, kind: str, **data: Any) -> None:
        self.on_event(Event(kind, data))

    def run(self) -> Result:
        start = time.perf_counter()
        if self.ctx is None:
            check_local_paths(self.case)
        environment = environment_info()
        worker = Worker(self.case, self.device, self.timeout,
                        on_progress=lambda m: self._emit("progress", message=m))
        if self.ctx is None and any(PROBES[n].in_worker for s in self.steps for n in s.probes
                                    if n in PROBES):
            worker.start()  # the framework loads there while the local probes run here
        fatal = False
        try:
            for index, step in enumerate(self.steps):
                if fatal:
                    break
                if step.needs is not None and not step.needs(self.case, self.findings):
                    continue  # e.g. the report step: only for a library-bug candidate
                self.path.append(step.id)
                self._emit("step", id=step.id, title=step.title, why=step.why, index=index,
                           total=len(self.steps))
                for name in step.probes:
                    info = PROBES.get(name)
                    in_worker = info.in_worker if info else True
                    if not runs_for(self.case.task, name, self.case.adapter.active):
                        continue  # a check of another task (or of an adapter the case lacks)
                    self._emit("progress", message=info.title if info else name)
                    why = skip_reason(self.case.task, name)
                    if why:
                        found = [Finding("wizard.not-for-task", "skip",
                                         f"{info.title if info else name}: not for "
                                         f"{self.case.task}",
                                         evidence={"probe": name, "task": self.case.task},
                                         explanation=f"Not run: {why}.")]
                    elif not in_worker:
                        found = self._local(name)
                    elif self.ctx is not None:
                        found = self._inline(name)
                    else:
                        found = worker.run(name)
                    found = self._explained(name, found)
                    for f in found:
                        self.findings.append(f)
                        self._emit("finding", finding=f)
                    self._save(environment, worker.resolved_device)
                blocking = next((f for f in self.findings if f.status == "fail"
                                 or f.evidence.get("blocks")), None)
                if step.stop_on_fail and blocking is not None:
                    fatal = True  # e.g. the framework cannot run here: straight to the verdict
                    self._skip_rest(self.steps[index + 1:], blocking)
        finally:
            worker.close()
        verdict = decide(self.case, self.findings)
        self._emit("verdict", verdict=verdict)
        live_backend = self.ctx is not None and getattr(self.ctx, "is_loaded", lambda n: False)(
            "backend")  # a stand-in context (tests, plugins) has no framework of its own
        device = worker.resolved_device or (self.ctx.device if live_backend else None)
        result = Result(self.case, environment, device or _fallback_device(self.device),
                        self.path, self.findings, verdict, seconds=time.perf_counter() - start)
        self._save(environment, result.device, result)
        return result

    def _skip_rest(self, steps: list[Step], because: Finding) -> None:
        """A skip finding for each step that cannot run after `because`."""
        for step in steps:
            if step.needs is not None:
                continue  # a step that runs only when findings call for it (the report step)
            f = Finding("wizard.step-skipped", "skip", f"{step.title}: not run",
                        evidence={"step": step.id, "because": because.id},
                        explanation=f"Not run because: {because.title}.")
            self.findings.append(f)
            self._emit("finding", finding=f)

    def _explained(self, name: str, found: list[Finding]) -> list[Finding]:
        """A probe that crashed after a finding that makes the batch impossible did not fail on
        its own: a skip naming that finding, not one more error (no cascades)."""
        blocker = next((f for f in self.findings
                        if f.status == "fail" and f.id in BATCH_BLOCKERS), None)
        if blocker is None:
            return found
        info = PROBES.get(name)
        return [Finding("wizard.step-skipped", "skip",
                        f"{info.title if info else name}: not run",
                        evidence={"probe": name, "because": blocker.id, "error": f.title},
                        explanation=f"Not run because: {blocker.title}.")
                if f.id == "wizard.probe-crashed" else f for f in found]

    def _inline(self, name: str) -> list[Finding]:
        """A worker probe run in this process on the live context."""

        try:
            found = resolve(name)(self.case, self.ctx)
        except CaseError:
            raise
        except Exception as exc:
            return [probe_error(name, f"raised {type(exc).__name__}: {exc}",
                           "The traceback is in the evidence.", traceback.format_exc()[-4000:])]
        notes, self.ctx.notes[:] = list(self.ctx.notes), []
        return [*notes, *found]

    def _local(self, name: str) -> list[Finding]:
        try:
            # the signed-in user's token, and what the checks before found (report.reported-before
            # searches for the failure they saw)
            return resolve(name)(self.case, {"oauth_token": self.oauth_token,
                                             "findings": list(self.findings)})
        except Exception as exc:  # same contract as the worker: a finding, never a crash

            return [probe_error(name, f"raised {type(exc).__name__}: {exc}",
                           "This is a problem inside the wizard; please report it.")]

    def _save(self, environment: dict[str, Any], device: str | None,
              result: Result | None = None) -> None:
        """Write the findings so far, so nothing is lost if the wizard is interrupted."""
        if self.autosave is None:
            return
        data = result.to_dict() if result else {
            "case": self.case.to_dict(), "environment": environment, "device": device,
            "path": self.path, "findings": [f.to_dict() for f in self.findings], "verdict": None}
        self.autosave.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.autosave.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=2, default=str))
        tmp.replace(self.autosave)


def _fallback_device(requested: str) -> str:
    return "cpu" if requested in ("auto", "cpu") else requested
