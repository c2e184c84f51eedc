"""From findings to a verdict: user error, library bug, healthy, or inconclusive.

A library bug needs all of: a failure that points into library code (the forward pass raises
with library frames innermost, returns NaN/Inf logits on a freshly loaded model, or a pasted
traceback ends in library code with no known signature), user-side checks that are clean (no
fault and no crashed check among the data/model/hyperparameter/... checks), and proof from the
report step: the failure reproduces in a standalone script run in a fresh interpreter, or the
differential run (same weights and batch in the other framework) points at one
implementation. Any user-side fault makes the verdict user-error, whatever else was found.
"""
from __future__ import annotations

from typing import Any

from wizard.core.case import Case
from wizard.core.findings import Finding, Verdict
from wizard.triage.frames import classify_path
from wizard.triage.match import triage
from wizard.triage.messages import describe_error, error_signature

# Findings that describe the failure itself, not the user's setup.
SYMPTOM_IDS = frozenset({"model.forward", "model.forward-raised", "model.nan-loss-samples",
                         "model.initial-loss"})
NOT_USER_SIDE = frozenset({"report", "triage", "wizard"})      # categories
REPORT_PROBES = frozenset({"differential", "reproduction", "newer-release"})
# Findings that observe how training behaves (one batch overfit, gradients, the loss curve):
# when a fault of the setup itself is found beside one, that fault is the cause it observes.
OBSERVATION_CATEGORIES = frozenset({"training", "curves"})
# Faults that follow from another fault when both are found: the cause comes first.
# A tokenizer from another checkpoint with a larger vocabulary is why ids overrun the table.
CONSEQUENCES: dict[str, frozenset[str]] = {
    "data.token-ids-out-of-vocab": frozenset({"data.tokenizer-model-mismatch"}),
}


def _find(findings: list[Finding], id: str) -> Finding | None:
    return next((f for f in findings if f.id == id), None)


def user_side_faults(findings: list[Finding]) -> list[Finding]:
    """Failing checks of the user's setup (the failure's own symptoms excluded), faults of the
    setup before the observations of training they explain."""
    faults = [f for f in findings if f.status == "fail" and f.category not in NOT_USER_SIDE
              and f.id not in SYMPTOM_IDS]
    failed = {f.id for f in faults}
    return sorted(faults, key=lambda f: (f.category in OBSERVATION_CATEGORIES,
                                         bool(CONSEQUENCES.get(f.id, frozenset()) & failed)))


def user_side_errors(findings: list[Finding]) -> list[Finding]:
    """Checks of the user's setup that could not run (so the setup is not known to be clean).
    A check that crashed on the very error the forward pass raises is the failure itself,
    not an unknown about the setup."""
    out = []
    same_error = _forward_error_signature(findings)
    for f in findings:
        if f.status != "error":
            continue
        if f.id == "wizard.probe-crashed":
            if f.evidence.get("probe") in REPORT_PROBES:
                continue
            if same_error and _signature(f.evidence.get("traceback", "")) == same_error:
                continue
            out.append(f)
        elif f.category not in NOT_USER_SIDE:
            out.append(f)
    return out


def _signature(text: str) -> str | None:
    return error_signature(text) if text else None


def _forward_error_signature(findings: list[Finding]) -> str | None:
    raised = _find(findings, "model.forward-raised")
    return _signature(raised.evidence.get("traceback", "")) if raised is not None else None


def known_forward_error(findings: list[Finding]) -> Any:
    """The triage signature the forward pass's own error matches (a known, non-library cause)."""
    raised = _find(findings, "model.forward-raised")
    if raised is None or not raised.evidence.get("traceback"):
        return None

    return triage(raised.evidence["traceback"]).primary


def library_signals(findings: list[Finding]) -> list[tuple[Finding, str]]:
    """Findings that point into library code, each with the reason in words."""
    out: list[tuple[Finding, str]] = []
    raised = _find(findings, "model.forward-raised")
    if raised is not None and raised.evidence.get("innermost_in_library") \
            and known_forward_error(findings) is None:
        frame = raised.evidence.get("innermost_frame") or {}
        where = _short_path(frame.get("file", ""))
        func = f" in {frame['function']}" if frame.get("function") else ""

        error = describe_error(raised.evidence.get("traceback", ""),
                               str(raised.evidence.get("error") or ""))
        out.append((raised, f"The forward pass raises {error[:160]} inside library code "
                            f"({where}{func})"))
    forward = _find(findings, "model.forward")
    if forward is not None and forward.status == "fail":
        rows = ", ".join(str(i) for i in forward.evidence.get("samples", [])[:5])
        out.append((forward, "A freshly loaded model returns NaN/Inf logits on a clean batch "
                             f"(samples {rows or '?'}{', ...' if len(forward.evidence.get('samples', [])) > 5 else ''})"))
    pasted = _find(findings, "triage.possible-library-bug")
    if pasted is not None:
        out.append((pasted, f"The pasted error is raised inside "
                            f"{pasted.evidence.get('package') or 'library'} code and matches no "
                            "known user error"))
    repro = _find(findings, "report.reproduction")
    if pasted is None and repro is not None and repro.evidence.get("from") == "script" \
            and repro.evidence.get("verified"):
        out.append((repro, f"A script cut from yours raises {repro.evidence.get('expected')} "
                           "again in a fresh interpreter"))
    return out


def library_bug_candidate(case: Case, findings: list[Finding]) -> bool:
    """Whether the report step should run: library signals and a clean user side."""
    return bool(library_signals(findings)) and not user_side_faults(findings) \
        and not user_side_errors(findings)


def decide(case: Case, findings: list[Finding]) -> Verdict:
    faults = user_side_faults(findings)
    if faults:
        primary = faults[0]
        rest = f" (and {len(faults) - 1} more fault{'s' if len(faults) > 2 else ''})" if len(faults) > 1 else ""
        return Verdict("user-error", primary.id, f"{primary.title}{rest}.",
                       reasons=[f"{f.id}: {f.title}" for f in faults])
    blocked = next((f for f in findings if f.evidence.get("blocks")), None)
    if blocked is not None:
        skipped = [f for f in findings if f.id == "wizard.step-skipped"]
        return Verdict("inconclusive", blocked.id,
                       f"{blocked.title}: {len(skipped)} step(s) could not run, so nothing about "
                       "your setup was judged.", reasons=[f.title for f in skipped])
    if case.error_only and not any(f.category == "script" for f in findings):
        return _error_only_verdict(findings)      # a paste alone (not a script read or run)
    signals = library_signals(findings)
    if signals:
        return _library_verdict(findings, signals)
    known = known_forward_error(findings)
    if known is not None:
        return Verdict("inconclusive", "model.forward-raised",
                       f"The forward pass fails with a known error "
                       f"({known.signature.title or known.signature.id}): {known.cause}",
                       reasons=[f"signature {known.signature.id}; confirm with: "
                                f"{', '.join(known.probes) or 'the fix shown'}"])
    warns = [f for f in findings if f.status == "warn"]
    errors = [f for f in findings if f.status == "error"]
    if errors:
        return Verdict("inconclusive", errors[0].id,
                       f"{len(errors)} check(s) could not run; no fault found in the others.",
                       reasons=[f.title for f in errors])
    if case.symptom in ("none", "not-sure"):
        summary = "No fault found: the setup looks healthy."
        if warns:
            summary = f"No fault found; {len(warns)} warning(s) worth a look."
        return Verdict("healthy", warns[0].id if warns else None, summary,
                       reasons=[f"{f.id}: {f.title}" for f in warns])
    return Verdict("inconclusive", warns[0].id if warns else None,
                   f"The checks found no fault that explains the symptom ({case.symptom}).",
                   reasons=[f"{f.id}: {f.title}" for f in warns])


def _error_only_verdict(findings: list[Finding]) -> Verdict:
    """Only a pasted error: the cause its words name, unconfirmed (no model ran here)."""
    read = next((f for f in findings if f.category == "triage"), None)
    warns = [f"{f.id}: {f.title}" for f in findings if f.status == "warn" and f is not read]
    seen = _find(findings, "report.reported-before")
    if seen is not None and seen.evidence.get("issues"):
        fixed = seen.evidence.get("fixed_by")
        warns.append(f"{seen.title}: read {seen.evidence['issues'][0]} first"
                     + (f" (fixed by {fixed})" if fixed else ""))
    then = ("Read from the error alone: give the model (and the dataset) to run the checks that "
            "confirm it, or run the script with the wizard (python -m wizard run train.py).")
    if read is None or read.id == "triage.unknown-error":
        return Verdict("inconclusive", read.id if read else None,
                       "The error matches no known one. " + then, reasons=warns)
    return Verdict("inconclusive", read.id, f"{read.title}. {then}",
                   reasons=[_clip(read.explanation.split(". ")[0]), *warns])


def _clip(text: str, limit: int = 200) -> str:
    """The text, cut at a word before `limit` characters (with an ellipsis) when longer."""
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def _library_verdict(findings: list[Finding], signals: list[tuple[Finding, str]]) -> Verdict:
    reasons = [why for _, why in signals]
    errors = user_side_errors(findings)
    clean = sorted({f.id for f in findings if f.category not in NOT_USER_SIDE
                    and f.id not in SYMPTOM_IDS and f.status in ("pass", "info", "warn")})
    if errors:
        reasons += [f"could not run: {f.title}" for f in errors]
        return Verdict("inconclusive", signals[0][0].id,
                       f"The failure points into library code, but {len(errors)} check(s) of "
                       "your setup could not run, so it is not known to be clean.",
                       reasons=reasons)
    reasons.append(f"The checks of the setup are clean: no fault in {len(clean)} check(s) "
                   f"({', '.join(clean[:6])}{', ...' if len(clean) > 6 else ''})")
    repro = _find(findings, "report.reproduction")
    diff = _find(findings, "report.framework-mismatch")
    release = _find(findings, "report.newer-release")
    verified = bool(repro is not None and repro.evidence.get("verified"))
    diff_points = bool(diff is not None and diff.evidence.get("points_at_library"))
    for f in (repro, diff, release):
        if f is not None:
            reasons.append(f"{f.id}: {f.title}")
    latest = _find(findings, "report.latest-release")
    newer = release is not None and release.status == "warn"
    then = " A newer release exists: try it before opening an issue." if newer else ""
    if latest is not None:
        reasons.append(f"{latest.id}: {latest.title}")
        then = f" {latest.title}"
    if repro is not None and repro.evidence.get("known_error"):
        return Verdict("inconclusive", repro.id,
                       f"The failure matches a known error ({repro.evidence['known_error']}), "
                       "not a library bug: see the triage findings.", reasons=reasons)
    bad_weights = repro.evidence.get("nonfinite_weights") if repro is not None else None
    if bad_weights and not diff_points:
        return Verdict("inconclusive", "model.forward",
                       f"The loaded weights hold {bad_weights} NaN/Inf values: the checkpoint is "
                       "the likely cause, not the library. Ask on the model's Hub discussion "
                       "(--format hub) or pick another checkpoint/revision.", reasons=reasons)
    if verified or diff_points:
        primary = repro if verified else diff
        assert primary is not None
        package = _package(signals)
        how = []
        if verified:
            tiny = repro.evidence.get("tiny_config")
            how.append("it reproduces in a standalone script" +
                       (" with a tiny random model (no download needed)" if tiny else
                        " with your checkpoint" if repro.evidence.get("checkpoints", True)
                        else ""))
        if diff_points:
            how.append("the other framework behaves differently on the same weights")
        return Verdict("library-bug", primary.id,
                       f"Your setup checks out and the failure comes from inside {package}: "
                       f"{' and '.join(how)}. This looks like a library bug; the report and "
                       f"its repro.py are ready to review.{then}", reasons=reasons)
    if repro is None and diff is None:
        summary = ("The failure points into library code and your setup checks out, but the "
                   "reproduction step did not run, so this is not confirmed as a library bug.")
    elif repro is not None and not repro.evidence.get("attempts"):
        summary = ("The error points into library code and your setup checks out, but one "
                   "forward pass does not fail here, so the wizard could not reproduce it: "
                   "add the code that triggers the error to the report draft.")
    else:
        summary = ("The failure points into library code and your setup checks out, but it "
                   "did not reproduce in a standalone script: not confirmed as a library bug. "
                   "The report draft lists what was tried.")
    return Verdict("inconclusive", signals[0][0].id, summary + then, reasons=reasons)


def _package(signals: list[tuple[Finding, str]]) -> str:
    for f, _ in signals:  # a verified reproduction names the library to blame
        if f.id == "report.reproduction" and f.evidence.get("verified") and \
                f.evidence.get("package"):
            return str(f.evidence["package"])
    for f, _ in signals:
        frame = f.evidence.get("innermost_frame") or {}

        if frame.get("file"):
            kind, pkg = classify_path(frame["file"])
            if kind == "library" and pkg:
                return pkg
        if f.evidence.get("package"):
            return str(f.evidence["package"])
        if f.id == "model.forward":
            return "transformers"  # NaN logits: the model's code
    return "the library"


def _short_path(path: str) -> str:
    """site-packages/transformers/models/x.py -> transformers/models/x.py."""
    p = path.replace("\\", "/")
    for marker in ("site-packages/", "dist-packages/"):
        if marker in p:
            return p.split(marker, 1)[1]
    return "/".join(p.split("/")[-3:])


def combine_findings(static: list[Finding], dynamic: list[Finding]) -> list[Finding]:
    """Static findings first; where a run produced the same check id, the run's finding wins
    and keeps the script line in its evidence."""
    by_id = {f.id: f for f in dynamic}
    out: list[Finding] = []
    for f in static:
        twin = by_id.get(f.id)
        if twin is None:
            out.append(f)
        elif "line" in f.evidence:
            twin.evidence.setdefault("script", {"line": f.evidence["line"],
                                                "code": f.evidence.get("code", "")})
    return out + list(dynamic)


def merge_static(result: Any, static: list[Finding]) -> Any:
    """A Session result with a script's static findings folded in, the verdict decided again."""
    result.findings = combine_findings(static, result.findings)
    result.verdict = decide(result.case, result.findings)
    return result
