"""Prefilled links that open a GitHub issue, a forum topic or a Hub discussion in the browser.

Each link is capped at `max_len` characters (GitHub and browsers refuse very long URLs). When the
full text does not fit, the link carries a short body that asks the user to paste the saved
report file instead, and the function says so (`fit` is False). Title and body are redacted
again on the way out (a no-op for text that already was), since a URL leaves the machine.
"""
from __future__ import annotations

import os
import re
from typing import Iterable
from urllib.parse import quote

from wizard.reports.redact import redact

GITHUB = "https://github.com"
FORUM = "https://discuss.huggingface.co"
HUB = "https://huggingface.co"
ELLIPSIS = "…"
TITLE_MAX = 250  # GitHub allows 256 characters, Discourse 255 by default

_REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_HUB_REPO_ID = re.compile(r"(?:[A-Za-z0-9][A-Za-z0-9_.-]*/)?[A-Za-z0-9][A-Za-z0-9_.-]*")
_HUB_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}

# (query name, value, characters left unencoded)
Param = tuple[str, str, str]


def _url(base: str, params: Iterable[Param]) -> str:
    query = "&".join(f"{name}={quote(value, safe=safe)}" for name, value, safe in params)
    return f"{base}?{query}" if query else base


def _truncate(text: str, budget: int, safe: str = "") -> str:
    """Longest prefix of `text` (plus an ellipsis when cut) whose encoded length fits `budget`."""
    if len(quote(text, safe=safe)) <= budget:
        return text
    lo, hi = 0, len(text)  # invariant: text[:lo] + ELLIPSIS fits (or lo == 0)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(quote(text[:mid] + ELLIPSIS, safe=safe)) <= budget:
            lo = mid
        else:
            hi = mid - 1
    cut = text[:lo] + ELLIPSIS
    return cut if len(quote(cut, safe=safe)) <= budget else ""


def paste_note(report_file: str | None = None) -> str:
    """The short body used when a report is too long for a link."""
    where = f"`{redact(str(report_file))}`" if report_file else "the report file the wizard saved"
    return ("The full report was too long for a link. It is saved on your computer as "
            f"{where}: please paste its whole contents here, in place of this text, "
            "and read it once more before posting.")


def _fit(base: str, head: list[Param], title: Param, body: Param, tail: list[Param],
         max_len: int, report_file: str | None, body_key: str) -> tuple[str, bool]:
    """The full link if it fits, else the paste-the-file link, cutting the title if needed."""
    if max_len <= 0:
        raise ValueError(f"max_len must be a positive number of characters, not {max_len}.")
    if len(title[1]) > TITLE_MAX:
        title = (title[0], title[1][:TITLE_MAX - 1].rstrip() + ELLIPSIS, title[2])
    full = _url(base, [*head, title, body, *tail])
    if len(full) <= max_len:
        return full, True
    note = (body_key, paste_note(report_file), body[2])
    empty_title = (title[0], "", title[2])
    room = max_len - len(_url(base, [*head, empty_title, note, *tail]))
    if room >= 0:
        title = (title[0], _truncate(title[1], room, title[2]), title[2])
        return _url(base, [*head, title, note, *tail]), False
    room = max_len - len(_url(base, [*head, empty_title, (body_key, "", body[2]), *tail]))
    if room < 0:
        raise ValueError(f"max_len={max_len} is too short for even an empty link to {base}.")
    note = (body_key, _truncate(note[1], room, body[2]), body[2])
    return _url(base, [*head, empty_title, note, *tail]), False


def github_issue_url(repo: str, title: str, body: str, max_len: int = 6000,
                     labels: Iterable[str] | None = None, *,
                     report_file: str | None = None) -> tuple[str, bool]:
    """A github.com new-issue link with title and body filled in, and whether the body fit.

    `repo` is "owner/name" (e.g. "huggingface/transformers"); `labels` only apply when the
    user may label issues there. `report_file` is named in the short body used when the full
    one does not fit.
    """
    repo = repo.strip().strip("/")
    if repo.startswith(GITHUB):
        repo = repo[len(GITHUB):].strip("/")
    if not _REPO.fullmatch(repo):
        raise ValueError(f"repo must look like 'owner/name' (e.g. 'huggingface/transformers'), "
                         f"not {repo!r}.")
    tail = [("labels", ",".join(labels), ",")] if labels else []
    return _fit(f"{GITHUB}/{repo}/issues/new", [], ("title", redact(title), ""),
                ("body", redact(body), ""), tail, max_len, report_file, "body")


def forum_topic_url(title: str, body: str, category: str | None = None, max_len: int = 6000, *,
                    tags: Iterable[str] | None = None,
                    report_file: str | None = None) -> tuple[str, bool]:
    """A discuss.huggingface.co new-topic link (Discourse `/new-topic`), and whether it all fit.

    `category` is the category's slug or name ("beginners", "transformers", or
    "parent/child"); `tags` a list of tag names.
    """
    tail: list[Param] = []
    if category:
        tail.append(("category", category.strip().strip("/"), "/"))
    if tags:
        tail.append(("tags", ",".join(tags), ","))
    return _fit(f"{FORUM}/new-topic", [], ("title", redact(title), ""),
                ("body", redact(body), ""), tail, max_len, report_file, "body")


def _hub_base(repo_id: str, repo_type: str) -> str:
    kind = repo_type.strip().lower().rstrip("s")
    if kind not in _HUB_PREFIX:
        raise ValueError(f"repo_type must be 'model', 'dataset' or 'space', not {repo_type!r}.")
    repo_id = repo_id.strip().strip("/")
    if not _HUB_REPO_ID.fullmatch(repo_id) or ".." in repo_id:
        raise ValueError(f"repo_id must look like 'namespace/name' (e.g. "
                         f"'google-bert/bert-base-uncased'), not {repo_id!r}.")
    endpoint = (os.environ.get("HF_ENDPOINT") or HUB).rstrip("/")
    return f"{endpoint}/{_HUB_PREFIX[kind]}{repo_id}"


def hub_discussion_url(repo_id: str, repo_type: str = "model") -> str:
    """The community tab (discussions) of a model, dataset or Space on the Hub."""
    return f"{_hub_base(repo_id, repo_type)}/discussions"


def hub_discussion_prefill_url(repo_id: str, title: str, description: str,
                               repo_type: str = "model", max_len: int = 6000, *,
                               report_file: str | None = None) -> tuple[str, bool]:
    """A Hub "new discussion" link with title and description filled in, and whether it fit."""
    base = f"{_hub_base(repo_id, repo_type)}/discussions/new"
    return _fit(base, [], ("title", redact(title), ""), ("description", redact(description), ""),
                [], max_len, report_file, "description")


# -- where a report is worth sharing ------------------------------------------------------------
SHARE_TARGETS = ("github", "forum", "hub")
_TITLE_LINE = re.compile(r"^(?:<!-- Title: (?P<comment>.*?) -->|\*\*Title:\*\* (?P<bold>.*))$",
                         re.MULTILINE)


def share_targets(result: dict) -> tuple[str, ...]:
    """Where a result's report is worth sharing, from its verdict: a library bug goes to the
    library's GitHub issues, the forum and the model's Hub discussion; an inconclusive result
    is a question for the forum (and for the model's discussion when its checkpoint's weights
    hold NaN/Inf); a user error or a healthy setup goes nowhere: its report is the fix."""
    kind = (result.get("verdict") or {}).get("kind")
    if kind == "library-bug":
        return SHARE_TARGETS
    if kind == "inconclusive":
        damaged = any(f.get("id") == "report.reproduction"
                      and (f.get("evidence") or {}).get("nonfinite_weights")
                      for f in result.get("findings") or [])
        return ("forum", "hub") if damaged else ("forum",)
    return ()


def split_title(text: str) -> tuple[str | None, str]:
    """The title a report text carries (`<!-- Title: ... -->` or `**Title:** ...`) and the
    text without that line, for a link whose title field takes it; (None, text) if none."""
    match = _TITLE_LINE.search(text)
    if match is None:
        return None, text
    title = (match.group("comment") or match.group("bold") or "").strip()
    body = (text[:match.start()] + text[match.end():].lstrip("\n")).lstrip("\n")
    return title or None, body
