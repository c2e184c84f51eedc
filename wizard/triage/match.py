"""Matching a parsed paste against SIGNATURES: `triage` names the known errors it shows, the
numbers they carry and the checks that would confirm each cause; `probe_triage` turns that into
findings.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from wizard.core.findings import Finding
from wizard.core.repositories import issue_search_terms, issue_search_url
from wizard.triage.causes import cause_of
from wizard.triage.env_answers import FAMILY, blamed_library
from wizard.triage.library import LibraryBug, assess_library_bug
from wizard.triage.literals import fold, required_runs
from wizard.triage.normalize import to_int
from wizard.triage.parse import ParsedError, parse_traceback
from wizard.triage.signatures import SIGNATURES, Signature, compile_pattern
from wizard.triage.versions import installed_version

_WEIGHTS = {"exception": 100, "chained": 60, "text": 40, "unwrapped": 40}
# a line break inside a sentence: a message hard-wrapped by a terminal, pip or the reporter
# ("mismatches the version that was used to compile\n      PyTorch (11.8)")
_SOFT_BREAK = re.compile(r"(?<=[\w,'\"`])[ \t]*\n[ \t]*(?=[\w(\['\"`])")


@dataclass
class SignatureMatch:
    """One signature found in a paste: where, the numbers it carried, the refined cause."""

    signature: Signature
    where: str                        # exception | chained | text
    evidence: dict[str, Any]
    excerpt: str
    score: int
    cause: str
    probes: list[str]
    fix: str
    cause_id: str = ""                # the cause it names (a family id for environment rules)
    guess: bool = False               # inferred from what the paste lacks: any evidence of a
                                      # library bug outweighs it
    explanation: str | None = None    # the signature's, unless a refinement named another cause

    def __post_init__(self) -> None:
        if self.explanation is None:
            # the signature's explanation describes its own reading of the error: a refinement
            # that names another cause (a version question instead of a misspelt field) brings
            # its own words, and the two would contradict each other
            renamed = bool(self.cause_id) and self.cause_id != self.signature.cause_id
            self.explanation = "" if renamed else self.signature.explanation
        self.cause_id = self.cause_id or self.signature.cause_id

    def to_dict(self) -> dict[str, Any]:
        s = self.signature
        return {"id": s.id, "cause_id": self.cause_id, "title": s.title or s.id,
                "where": self.where, "score": self.score,
                "evidence": self.evidence, "excerpt": self.excerpt, "cause": self.cause,
                "explanation": self.explanation, "probes": self.probes, "fix": self.fix,
                "framework": s.framework}


def _convert(value: str) -> Any:
    n = to_int(value)
    return n if n is not None else value.strip()


def _regions(parsed: ParsedError) -> list[tuple[str, str]]:
    core = parsed.message or parsed.raw_message
    head = f"{parsed.exc_type}: {core}" if parsed.exc_type else core
    regions = [("exception", head)]
    for c in reversed(parsed.chain):
        regions.append(("chained", f"{c.exc_type}: {c.raw_message}" if c.exc_type
                        else c.raw_message))
    loose = parsed.loose_text or parsed.text
    regions.append(("text", loose))
    joined = _rejoined(loose)
    if joined:
        regions.append(("unwrapped", joined))   # searched only where nothing else matched
    return regions


def _rejoined(text: str) -> str:
    """The runs of lines a soft break ties together, each joined into one line (nothing else:
    a short text to search again)."""
    runs: list[tuple[int, int]] = []
    start: int | None = None
    end = -1
    for m in _SOFT_BREAK.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if start is None or line_start > end:
            if start is not None:
                runs.append((start, end))
            start = line_start
        nxt = text.find("\n", m.end())
        end = nxt if nxt != -1 else len(text)
    if start is not None:
        runs.append((start, end))
    return "\n".join(_SOFT_BREAK.sub(" ", text[a:b]) for a, b in runs)


def match_signatures(parsed: ParsedError) -> list[SignatureMatch]:
    """Every signature found in the parsed paste, best first."""
    regions = _regions(parsed)
    folded = [fold(text) for _, text in regions]
    loose = parsed.loose_text or parsed.text
    matches: list[SignatureMatch] = []
    for sig in SIGNATURES:
        rx = sig.regex()
        needs = required_runs(sig.pattern)
        for (where, text), low in zip(regions, folded):
            if needs and not any(n in low for n in needs):
                continue              # the regex cannot match without one of these runs
            m = rx.search(text)
            if not m:
                continue
            if sig.requires and not compile_pattern(sig.requires).search(parsed.text):
                break                 # the generic message without this signature's context
            ev = {k: _convert(v) for k, v in m.groupdict().items() if v is not None}
            for extra in sig.evidence:
                found = compile_pattern(extra).search(text) or compile_pattern(extra).search(loose)
                if found:
                    for k, v in found.groupdict().items():
                        if v is not None and k not in ev:
                            ev[k] = _convert(v)
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = text.find("\n", m.end())
            excerpt = text[line_start: line_end if line_end != -1 else len(text)].strip()[:400]
            over = sig.refine(ev, parsed) if sig.refine else None
            over = over or {}
            if over.get("reject"):
                continue
            matches.append(SignatureMatch(
                signature=sig, where=where, evidence=ev, excerpt=excerpt,
                score=_WEIGHTS[where] + sig.priority,
                cause=over.get("cause", sig.cause), probes=list(over.get("probes", sig.probes)),
                fix=over.get("fix", sig.fix), cause_id=over.get("id", ""),
                guess=bool(over.get("guess")), explanation=over.get("explanation")))
            break
    order_of = {s.id: i for i, s in enumerate(SIGNATURES)}
    matches.sort(key=lambda x: (-x.score, order_of[x.signature.id]))
    if any(not m.signature.fallback and not m.signature.benign for m in matches):
        matches = [m for m in matches if not m.signature.fallback]
    said = next((m for m in matches if m.signature.outcome), None)
    if said is not None and matches[0].cause_id in FAMILY and \
            matches[0].cause_id != said.cause_id:
        matches.remove(said)          # what fixed it, by the reporter, over the other answer
        matches.insert(0, said)       # the error alone suggested (an upgrade, a pin, a setup)
    return matches


@dataclass
class Triage:
    """A paste's parse, the signatures it matches (best first), a library bug it points at, and
    what to check next."""

    parsed: ParsedError
    matches: list[SignatureMatch] = field(default_factory=list)
    error: str | None = None          # set only when triage itself failed
    bug: LibraryBug | None = None     # evidence of a library bug (outweighs text-only matches)

    @property
    def primary(self) -> SignatureMatch | None:
        """The best match that explains the error; a benign warning only when nothing else
        does and the paste has no exception, the exception is a warning, or the warning's words
        are the exception's own message. None when the paste points at a library bug instead."""
        if self.bug is not None:
            return None
        real = [m for m in self.matches if not m.signature.benign]
        if real:
            return real[0]
        warning_only = (self.parsed.exc_name or "").endswith("Warning")
        if self.matches and (not self.parsed.exc_type or warning_only):
            return self.matches[0]
        raised = [m for m in self.matches if m.where == "exception"]
        return raised[0] if raised else None   # a warning's words raised as the error itself

    @property
    def cause_id(self) -> str:
        """The cause named: the primary match's cause id, "library-bug" or "unknown"."""
        if self.primary is not None:
            return self.primary.cause_id
        return "library-bug" if self.verdict == "possible-library-bug" else "unknown"

    @property
    def blamed_package(self) -> str | None:
        """The library the error points at: the bug's, the innermost library frame's, or the
        one the paste names."""
        p = self.parsed
        return (self.bug.package if self.bug else None) or p.innermost_library_package \
            or blamed_library(p)

    @property
    def search_terms(self) -> tuple[str, str] | None:
        """(repository, query): this error among the issues of the library it points at."""
        p = self.parsed
        line = p.message if p.exc_type else error_line(p.loose_text or p.text)
        return issue_search_terms(self.blamed_package, p.exc_type, line or "")

    @property
    def likely_causes(self) -> list[dict[str, Any]]:
        seen: set[str] = set()
        out = []
        for m in self.matches:
            if m.cause in seen:
                continue
            seen.add(m.cause)
            out.append({"signature": m.signature.id, "cause": m.cause,
                        "confirm_with": m.probes, "fix": m.fix})
        return out

    @property
    def probes(self) -> list[str]:
        """Check ids that would confirm the causes, most likely first, without repeats."""
        out: list[str] = []
        for m in self.matches:
            out.extend(p for p in m.probes if p not in out)
        return out

    @property
    def verdict(self) -> str:
        """known-error | possible-library-bug | unknown-error | empty."""
        if not self.parsed.text.strip():
            return "empty"
        if self.primary is not None:
            return "known-error"
        if self.bug is not None:
            return "possible-library-bug"
        return "unknown-error"

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "cause_id": self.cause_id,
                "root_cause": cause_of(self.cause_id),
                "parsed": self.parsed.to_dict(),
                "library_bug": self.bug.to_dict() if self.bug is not None else None,
                "matches": [m.to_dict() for m in self.matches],
                "likely_causes": self.likely_causes, "probes": self.probes, "error": self.error}


# a line a program wrote, not its reader: words of failure, no person, no question, no code
_FAILURE = re.compile(r"(?i)\b(?:error|exception|fail(?:ed|ure|s)?|cannot|can't|could ?n[o']t|"
                      r"unable|not (?:found|supported|exist|allowed|available|enough)|invalid|"
                      r"expected|must|mismatch|unsupported|unknown|missing|denied|refused|"
                      r"out of|exceeds?|too (?:many|few|long|large|small)|warn\w*|deprecated)\b")
_PERSON = re.compile(r"(?i)\b(?:i|i'm|i've|my|me|we|our|thanks?|hi|hello|help|"
                     r"anyone|somebody|issue|problem|bug)\b|\?\s*$")
_CODE = re.compile(r"^\s*(?:>>>|\$|#|import |from |def |class |[\w.\[\]'\"]+\s*[+-]?=[^=])")


def error_line(text: str) -> str | None:
    """The first line of a paste with no exception type that reads as the program's error
    message rather than the reporter's words or code; None when there is none."""
    for line in text.splitlines():
        line = line.strip()
        if len(line.split()) >= 3 and _FAILURE.search(line) and not _PERSON.search(line) \
                and not _CODE.match(line):
            return line
    return None


def triage(text: str) -> Triage:
    """Parse a pasted error and match it against the signature catalogue. Never raises."""
    parsed = parse_traceback(text)
    try:
        matches = match_signatures(parsed)
        return Triage(parsed=parsed, matches=matches, bug=assess_library_bug(parsed, matches))
    except Exception as exc:  # noqa: BLE001 - a paste must never crash the wizard
        return Triage(parsed=parsed, error=f"{type(exc).__name__}: {exc}")


# ---------------------------------------------------------------------------------------------
# The probe
# ---------------------------------------------------------------------------------------------
def _short(text: str, limit: int = 300) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _base_evidence(p: ParsedError) -> dict[str, Any]:
    inner, user = p.innermost_frame, p.innermost_user_frame
    ev: dict[str, Any] = {"exception": p.exc_type, "message": _short(p.message.split("\n")[0]
                                                                      if p.message else "")}
    if user is not None:
        ev["your_code"] = user.where() + (f": {user.code}" if user.code else "")
    if inner is not None:
        ev["raised_in"] = inner.where()
    if p.chain:
        ev["chained_from"] = [c.last_line[:200] for c in p.chain]
    if p.graph_node:
        ev["graph_node"] = p.graph_node
    return ev


def probe_triage(case: Any, ctx: Any = None) -> list[Finding]:
    """Findings for the pasted traceback of the case ([] when there is none)."""
    text = getattr(case, "traceback", "") or ""
    if not isinstance(text, str) or not text.strip():
        return []
    t = triage(text)
    p = t.parsed
    ev = _base_evidence(p)
    if t.error:
        ev["triage_error"] = t.error
    if t.primary is not None:
        m = t.primary
        ev.update({"signature": m.signature.id, "cause_id": m.cause_id, "numbers": m.evidence,
                   "found_in": m.where, "matched_line": m.excerpt, "confirm_with": m.probes})
        others = [x.signature.id for x in t.matches if x is not m]
        if others:
            ev["also_matches"] = others
        title = m.signature.title or m.signature.id
        if m.cause_id in FAMILY:
            first = re.split(r":\s|\.(?:\s|$)", m.cause, maxsplit=1)[0]   # not 4.46.0's dots
            first = first if len(first) <= 120 else first[:120].rsplit(" ", 1)[0] + " …"
            title = f"Environment ({m.cause_id}): {first}"
            if m.evidence.get("installed"):
                ev["installed"] = m.evidence["installed"]
        said = ("A likely cause, guessed from the error's shape" if m.guess else
                "The error is a known one")
        return [Finding("triage.known-error", "info", f"{said}: {title}",
                        evidence=ev, explanation=f"{m.cause} {m.explanation}".strip(),
                        fix=m.fix)]
    if t.matches:
        ev["also_matches"] = [x.signature.id for x in t.matches]
    graph = bool(p.graph_node or p.graph_op or "Graph execution error" in p.message)
    cuda = "CUDA" in p.message
    if graph:
        hint = "model.compile(optimizer=optimizer, run_eagerly=True)  # readable TF errors\n"
    elif cuda:
        hint = ("model = model.cpu(); batch = {k: v.cpu() for k, v in batch.items()}; "
                "model(**batch)  # re-run on CPU for a readable error\n")
    else:
        hint = ""
    if t.verdict == "possible-library-bug":
        bug = t.bug
        package = (bug.package if bug else None) or p.innermost_library_package
        lib = [f for f in p.frames if f.is_library][-3:]
        if lib:
            ev["innermost_library_frames"] = [f.where() + (f": {f.code}" if f.code else "")
                                              for f in lib]
        ev["package"] = package
        if bug is not None:
            ev["library_bug"] = bug.to_dict()
        if bug is not None and bug.known is not None:
            k = bug.known
            return [Finding(
                "triage.possible-library-bug", "warn", bug.title(), evidence=ev,
                explanation=f"A known bug of {k.package} before {k.fixed_in}: {k.summary} "
                            f"({k.url}).",
                fix=f'pip install -U "{k.package}>={k.fixed_in}"   # {k.url}')]
        version = (bug.version if bug else None) or (
            installed_version(package) if package else None)
        title = f"Possible bug in {' '.join(x for x in (package, version) if x) or 'a library'}"
        why = ("; ".join(bug.reasons) + ". " if bug is not None and bug.reasons else
               "No known signature matches, and the innermost frames are library code. ")
        return [Finding(
            "triage.possible-library-bug", "warn", title, evidence=ev,
            explanation=why + "If the checks of your data, model and hyperparameters come out "
                        "clean, run the script with the wizard: it reproduces the failure and "
                        "writes a minimal reproduction for an issue.",
            fix=hint + "python -m wizard run train.py   # reproduces it; the report holds the "
                       "reproduction for the issue")]
    search = issue_search_url(t.blamed_package, p.exc_type, p.message)
    if search:
        ev["reported_before"] = search
    mine = p.innermost_frame is not None and p.innermost_frame.is_user
    ev["raised_in_your_code"] = mine
    return [Finding("triage.unknown-error", "info", "The error matches no known signature",
                    evidence=ev,
                    explanation="No known signature matches this error"
                                + ("; it was raised in your code: start at the line shown."
                                   if mine else
                                   "; the checks of your data, model and settings come next, "
                                   "and the same error reported before often has its answer."),
                    fix=hint + ("" if mine else "python -m wizard run train.py   # the checks on "
                                "your live objects, and a reproduction\n")
                    + (f"# reported before? {search}" if search else ""))]
