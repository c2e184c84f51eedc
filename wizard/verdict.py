"""From findings to a verdict: user error, library bug, healthy, or inconclusive."""
from __future__ import annotations

from wizard.case import Case
from wizard.findings import Finding, Verdict


def decide(case: Case, findings: list[Finding]) -> Verdict:
    fails = [f for f in findings if f.status == "fail"]
    warns = [f for f in findings if f.status == "warn"]
    errors = [f for f in findings if f.status == "error"]
    if fails:
        primary = fails[0]
        rest = f" (and {len(fails) - 1} more fault{'s' if len(fails) > 2 else ''})" if len(fails) > 1 else ""
        return Verdict("user-error", primary.id, f"{primary.title}{rest}.",
                       reasons=[f"{f.id}: {f.title}" for f in fails])
    library = [f for f in findings if f.id == "triage.possible-library-bug"]
    if library:
        return Verdict("library-bug", library[0].id,
                       "The checks of your setup are clean and the error comes from inside a "
                       "library: this looks like a library bug; a report is ready to review.",
                       reasons=[library[0].title] + [f"{f.id}: {f.title}" for f in warns])
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
