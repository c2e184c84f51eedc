"""Reported before? The failing library's GitHub issues searched for the pasted error, when the
user asked for it (case.search_issues) and triage named no known cause."""
from __future__ import annotations

from typing import Any

from wizard.core.case import Case
from wizard.core.findings import Finding
from wizard.evidence.issue_search import search_issues
from wizard.triage.match import triage

ID = "report.reported-before"


def probe_reported_before(case: Case, ctx: Any = None) -> list[Finding]:
    """The issues that match the error's stable words, solved ones first."""
    terms = triage(case.traceback).search_terms if case.traceback.strip() else None
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
    return [Finding(ID, "info",
                    f"Reported before: {found.total} issue{'s' * (found.total != 1)} of {library} "
                    f"with this error ({what})", evidence=ev,
                    explanation="Read the first one's thread: its answer or the fix it links to "
                                "is usually the answer here.\n"
                                + "\n".join(h.line() for h in found.hits),
                    fix=f"# read first: {found.hits[0].url}\n# all of them: {found.page}")]
