"""Reported before? The failing library's GitHub issues searched for the failure, when the user
asked for it (case.search_issues): a pasted error no known cause explains, or a failure inside
library code that the checks found (a library-bug candidate)."""
from __future__ import annotations

from typing import Any

from wizard.core.case import Case
from wizard.core.repositories import package_of
from wizard.core.findings import Finding
from wizard.evidence.issue_search import search_issues
from wizard.triage.match import triage

ID = "report.reported-before"


def failure_text(case: Case, ctx: Any) -> str:
    """The failure to search for: the pasted error, else the one the checks saw raised inside
    library code (the forward pass, the reproduction)."""
    if case.traceback.strip():
        return case.traceback
    found = ctx.get("findings", []) if isinstance(ctx, dict) else []
    for f in found:
        if f.id == "model.forward-raised" and f.evidence.get("traceback"):
            return str(f.evidence["traceback"])
    for f in found:
        failure = (f.evidence.get("failure") or {}) if f.id == "report.reproduction" else {}
        if failure.get("error"):
            return str(failure["error"])
    return ""


def probe_reported_before(case: Case, ctx: Any = None) -> list[Finding]:
    """The issues that match the failure's stable words, solved ones first."""
    text = failure_text(case, ctx)
    terms = triage(text).search_terms if text.strip() else None
    if terms is None:
        return [Finding(ID, "skip", "Reported before: nothing in the message to search for",
                        explanation="The error's message is only names, numbers and paths, "
                                    "which differ from one report to the next; search the "
                                    "library's issues for the exception and the call instead.")]
    found = search_issues(*terms)
    ev: dict[str, Any] = {"repository": found.repository, "query": found.query,
                          "page": found.page, "total": found.total,
                          "issues": [h.url for h in found.hits],
                          "solved": [h.number for h in found.hits if h.solved]}
    first = next((h for h in found.hits if h.solved and h.fixed_by), None)
    if first is not None:
        ev.update(fixed_by=first.fixed_by, fix_url=first.fix_url)
    library = found.repository.split("/")[-1]
    if found.error:
        return [Finding(ID, "skip", f"Reported before: the issues of {library} could not be searched",
                        evidence=ev, explanation=f"{found.error}. The same search on GitHub: "
                                                 f"{found.page}",
                        fix=f"# reported before? {found.page}")]
    if not found.hits:
        return [Finding(ID, "info", f"Reported before: no issue of {library} has this error",
                        evidence=ev,
                        explanation="No issue holds the message's words: it may be new; a "
                                    "report with a verified reproduction (python -m wizard run "
                                    "train.py) is what a maintainer can act on.",
                        fix=f"# the search: {found.page}")]
    solved = [h for h in found.hits if h.solved]
    what = (f"{len(solved)} closed as solved" if solved else "none closed as solved")
    fixed = (f"#{first.number} was fixed by {first.fixed_by}: a release of {library} made after "
             f"it has the fix, unless yours already has it.\n" if first is not None else "")
    upgrade = f"pip install -U {package_of(found.repository)}   # the fix of #{first.number}\n" \
        if first is not None else ""
    return [Finding(ID, "info",
                    f"Reported before: {found.total} issue{'s' * (found.total != 1)} of {library} "
                    f"with this error ({what})", evidence=ev,
                    explanation="Read the first one's thread: its answer or the fix it links to "
                                "is usually the answer here. " + fixed
                                + "\n".join(h.line() for h in found.hits),
                    fix=f"# read first: {found.hits[0].url}\n{upgrade}# all of them: {found.page}")]
