"""Has this error been reported before? GitHub's issue search, asked for the failing library.

Only when the user asks for it (the case's `search_issues`): the query holds the words of the
error message that stay the same between reports (wizard/core/repositories.py), nothing else of
the paste. $GITHUB_TOKEN is sent when set (a higher rate limit); $WIZARD_GITHUB_API names another
endpoint (GitHub Enterprise). Every failure is one sentence in `IssueSearch.error`, never raised.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from wizard.core.repositories import issue_page
from wizard.settings import Settings
from wizard.settings import current as current_settings

TIMEOUT = 10.0
SHOWN = 5
KEEP_S = 600.0
_ANSWERS: dict[tuple[str, str, str], tuple[float, "IssueSearch"]] = {}


@dataclass
class IssueHit:
    """One issue the search found."""

    number: int
    title: str
    url: str
    state: str                        # open | closed
    state_reason: str | None = None   # completed | not_planned | reopened | None
    comments: int = 0
    closed_at: str | None = None
    fixed_by: str | None = None       # "#29901, merged 2024-05-02" or "commit 1a2b3c4"
    fix_url: str | None = None

    @property
    def solved(self) -> bool:
        """Closed as done (not as "not planned" or a duplicate): its thread holds an answer."""
        return self.state == "closed" and self.state_reason in (None, "completed")

    def line(self) -> str:
        how = ("closed" if self.solved else f"closed ({(self.state_reason or '').replace('_', ' ')})"
               if self.state == "closed" else "open")
        said = f"{self.comments} comment{'s' * (self.comments != 1)}"
        fixed = f", fixed by {self.fixed_by}" if self.fixed_by else ""
        return f"#{self.number} {self.title} [{how}{fixed}, {said}] {self.url}"


@dataclass
class IssueSearch:
    """What the search asked and found; `error` says why it could not ask."""

    repository: str
    query: str
    total: int = 0
    hits: list[IssueHit] = field(default_factory=list)
    error: str | None = None

    @property
    def page(self) -> str:
        """The same search on github.com, for the user to read on."""
        return issue_page(self.repository, self.query)


def search_issues(repository: str, query: str, *, client: httpx.Client | None = None,
                  timeout: float = TIMEOUT) -> IssueSearch:
    """The issues of `repository` that match `query`, solved ones first (SHOWN at most). An
    answer is kept for KEEP_S seconds: the same search again (another session of the app, a
    rerun) does not spend GitHub's rate limit."""
    settings = current_settings()
    key = (settings.github_api, repository, query)
    kept = _ANSWERS.get(key)
    if kept is not None and time.monotonic() - kept[0] < KEEP_S:
        return kept[1]
    found = _search(repository, query, settings, client, timeout)
    if found.error is None:
        _ANSWERS[key] = (time.monotonic(), found)
    return found


def forget_answers() -> None:
    """Drop the kept answers (the next search asks GitHub again)."""
    _ANSWERS.clear()


def _search(repository: str, query: str, settings: Settings, client: httpx.Client | None,
            timeout: float) -> IssueSearch:
    found = IssueSearch(repository, query)
    headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
               "User-Agent": "hf-debug-wizard"}
    if settings.github_token:
        headers["Authorization"] = f"Bearer {settings.github_token}"
    api = settings.github_api.rstrip("/")
    own = client is None
    http = client or httpx.Client(timeout=timeout)
    try:
        response = http.get(f"{api}/search/issues", headers=headers,
                            params={"q": f"{query} repo:{repository} is:issue", "per_page": 20})
        found.error = _refused(response)
        if found.error is None:
            _read(found, response)
        solved = next((h for h in found.hits if h.solved), None)
        if solved is not None:      # what closed it: a second request, the hit stands without
            try:
                _fixed_by(solved, repository, http.get(
                    f"{api}/repos/{repository}/issues/{solved.number}/timeline",
                    headers=headers, params={"per_page": 100}))
            except httpx.HTTPError:
                pass
    except httpx.TimeoutException:
        found.error = f"GitHub did not answer within {timeout:g} s"
    except httpx.HTTPError as exc:
        found.error = f"GitHub could not be reached ({type(exc).__name__}: {str(exc)[:100]})"
    finally:
        if own:
            http.close()
    return found


def _refused(response: httpx.Response) -> str | None:
    """Why GitHub did not answer the search, or None."""
    if response.status_code == 429 or (response.status_code == 403 and
                                       response.headers.get("x-ratelimit-remaining") == "0"):
        return ("GitHub's search limit is used up for now (10 searches a minute without a "
                "token): set GITHUB_TOKEN, or try again in a minute")
    if response.status_code != 200:
        return f"GitHub answered {response.status_code} to the search"
    return None


def _read(found: IssueSearch, response: httpx.Response) -> None:
    """The search's answer into `found`: the hits, solved ones first (GitHub's order within)."""
    try:
        body = response.json()
        items = [_hit(item) for item in body.get("items", [])]
    except (ValueError, KeyError, TypeError, AttributeError):
        found.error = "GitHub's answer to the search could not be read"
        return
    found.total = int(body.get("total_count") or len(items))
    order = {id(h): i for i, h in enumerate(items)}
    items.sort(key=lambda h: (not h.solved, h.state != "closed", order[id(h)]))
    found.hits = items[:SHOWN]


def _fixed_by(hit: IssueHit, repository: str, response: httpx.Response) -> None:
    """What closed a solved issue, from its timeline: the merged pull request of the same
    repository that referenced it last, else the commit that closed it. Left unset when the
    timeline cannot be read (the hit stands without it)."""
    if response.status_code != 200:
        return
    try:
        events = response.json()
        for event in events:
            source = (event.get("source") or {}).get("issue") or {}
            merged = (source.get("pull_request") or {}).get("merged_at")
            same = (source.get("repository") or {}).get("full_name", repository) == repository
            if event.get("event") == "cross-referenced" and merged and same:
                hit.fixed_by = f"#{source['number']}, merged {str(merged)[:10]}"
                hit.fix_url = str(source.get("html_url") or "")
            elif event.get("event") == "closed" and event.get("commit_id") and not hit.fixed_by:
                hit.fixed_by = f"commit {str(event['commit_id'])[:7]}"
                hit.fix_url = str(event.get("commit_url") or "")
    except (ValueError, KeyError, TypeError, AttributeError):
        return


def _hit(item: dict[str, Any]) -> IssueHit:
    return IssueHit(number=int(item["number"]), title=str(item.get("title") or "").strip(),
                    url=str(item["html_url"]), state=str(item.get("state") or "open"),
                    state_reason=item.get("state_reason"), comments=int(item.get("comments") or 0),
                    closed_at=item.get("closed_at"))
