"""The HubError family and `as_hub_error`, the one translation of huggingface_hub, datasets,
requests and httpx exceptions into them.

Every Hub or local-source failure is a `HubError` (a `WizardError`, so a `ValueError`) whose
message is one sentence naming the repo and the fix, with a machine-readable `kind`; the fix (often
a line of code or YAML) is kept apart in `fix`.
"""
from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

from wizard.errors import WizardError
from wizard.hub.connection import is_offline, timeout_seconds


class HubError(WizardError):
    """A Hub or local-source problem as one sentence naming the repo and the fix."""

    kind = "hub-error"

    def __init__(self, message: str, *, repo: str | None = None, fix: str = "",
                 kind: str | None = None, evidence: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message, self.repo, self.fix = message, repo, fix
        self.evidence = dict(evidence or {})
        if kind:
            self.kind = kind

    def __str__(self) -> str:
        """The sentence alone: the fix is code to show apart from it (`fix`, `to_dict`)."""
        return self.message

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "repo": self.repo, "message": self.message, "fix": self.fix,
                "evidence": self.evidence}


class HubNotFound(HubError):
    kind = "not-found"


class HubAuthRequired(HubError):
    """Not found without a token: missing, or private and the user is not logged in."""
    kind = "auth-required"


class HubGated(HubError):
    kind = "gated"


class HubAccessDenied(HubError):
    kind = "access-denied"


class HubRevisionNotFound(HubError):
    kind = "revision-not-found"


class HubEntryNotFound(HubError):
    kind = "entry-not-found"


class HubOffline(HubError):
    kind = "offline"


class HubUnreachable(HubError):
    kind = "unreachable"


class HubTimeout(HubError):
    kind = "timeout"


class HubRemoteCodeRequired(HubError):
    kind = "needs-remote-code"


class HubPickleWeightsOnly(HubError):
    kind = "pickle-weights-only"


class HubInvalidRef(HubError):
    kind = "invalid-ref"


class HubDatasetSpecError(HubError):
    """config-required, config-not-found or split-not-found."""
    kind = "config-not-found"


def fallback_note(err: HubError) -> str:
    """Why a ref came from the cache after the Hub timed out or could not be reached."""
    what = "timed out" if isinstance(err, HubTimeout) else "could not be reached"
    return (f"the Hub at {err.evidence.get('endpoint', 'its endpoint')} {what} "
            f"({err.evidence.get('detail', '')[:100]})")


def _network_error_types() -> tuple[tuple[type, ...], tuple[type, ...]]:
    """(timeout types, connection types) of whichever HTTP stacks are installed (requests, httpx,
    httpx2)."""
    timeouts: list[type] = [TimeoutError, socket.timeout]
    connections: list[type] = [ConnectionError]
    for mod_name, t_names, c_names in (("requests.exceptions", ("Timeout",), ("ConnectionError",)),
                                       ("httpx2", ("TimeoutException",), ("TransportError",)),
                                       ("httpx", ("TimeoutException",), ("TransportError",))):
        try:
            mod = __import__(mod_name, fromlist=["_"])
        except ImportError:
            continue
        timeouts += [getattr(mod, n) for n in t_names if hasattr(mod, n)]
        connections += [getattr(mod, n) for n in c_names if hasattr(mod, n)]
    return tuple(timeouts), tuple(connections)


def _chain(exc: BaseException) -> list[BaseException]:
    """`exc` and every exception it was raised from or during, each once."""
    out, seen, todo = [], set(), [exc]
    while todo:
        e = todo.pop(0)
        if id(e) in seen:
            continue
        seen.add(id(e))
        out.append(e)
        todo += [c for c in (e.__cause__, e.__context__) if c is not None]
    return out


def as_hub_error(exc: BaseException, *, what: str, repo: str, revision: str | None,
                 has_token: bool, endpoint: str | None, timeout: float | None = None,
                 filename: str | None = None, cache_dir: str | Path | None = None) -> HubError:
    """Translate huggingface_hub/datasets/network exceptions (both hub versions) into one
    HubError."""
    if isinstance(exc, HubError):
        return exc
    from huggingface_hub import constants, errors

    host = (endpoint or constants.ENDPOINT).rstrip("/")
    timeout = timeout_seconds(timeout)
    page = f"{host}/{'datasets/' if what == 'dataset' else ''}{repo}"
    chain = _chain(exc)
    status = next((getattr(getattr(e, "response", None), "status_code", None) for e in chain
                   if isinstance(e, errors.HfHubHTTPError)
                   and getattr(e, "response", None) is not None), None)
    detail = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
    ev = {"exception": type(exc).__name__, "detail": detail, "status": status, "endpoint": host}
    login = "hf auth login   # or: export HF_TOKEN=hf_..."
    if isinstance(exc, errors.GatedRepoError):
        if status == 401 or not has_token:
            return HubGated(f"The {what} {repo!r} is gated and no token was sent; accept its "
                            f"conditions at {page} and log in with that account (hf auth login or "
                            "HF_TOKEN).", repo=repo,
                            fix=f"# 1. open {page} and accept the conditions\n{login}", evidence=ev)
        return HubGated(f"The {what} {repo!r} is gated and this token's account has not been "
                        f"granted access; accept the conditions at {page}, wait for approval if it "
                        "is manual, and retry.",
                        repo=repo, fix=f"# open {page} and accept the conditions, then retry",
                        evidence=ev)
    if isinstance(exc, errors.RepositoryNotFoundError):
        if not has_token:
            return HubAuthRequired(f"There is no {what} {repo!r} on the Hub at {host} for a "
                                   "request without a token; if it is private, log in (hf auth "
                                   "login) or set HF_TOKEN, otherwise check the id.",
                                   repo=repo, fix=login, evidence=ev)
        return HubNotFound(f"There is no {what} {repo!r} on the Hub at {host} that this token can "
                           "see; check the id (owner/name) and that the token's account has "
                           "access.", repo=repo,
                           fix=f"{what}: owner/name   # copy the id from its page on {host}",
                           evidence=ev)
    if isinstance(exc, getattr(errors, "DisabledRepoError", ())):
        return HubAccessDenied(f"The {what} {repo!r} has been disabled on {host}; use another "
                               f"{what}.", repo=repo, kind="disabled", evidence=ev)
    if isinstance(exc, errors.RevisionNotFoundError):
        return HubRevisionNotFound(f"The {what} {repo!r} has no revision {revision!r}; use a "
                                   f"branch, tag or commit listed at {page}/tree/main, or leave "
                                   "revision empty for main.",
                                   repo=repo, fix="revision: main", evidence=ev)
    local_entry = getattr(errors, "LocalEntryNotFoundError", ())
    if isinstance(exc, errors.EntryNotFoundError) and not isinstance(exc, local_entry):
        return HubEntryNotFound(f"The {what} {repo!r} has no file {filename!r} at revision "
                                f"{revision or 'main'}; check the file list at "
                                f"{page}/tree/{revision or 'main'}.", repo=repo,
                                fix=f"# files: {page}/tree/{revision or 'main'}", evidence=ev)
    timeouts, connections = _network_error_types()
    # the first network-level exception in the chain decides (a ConnectTimeout is a timeout)
    network = None
    for e in chain:
        if isinstance(e, errors.OfflineModeIsEnabled):
            network = "offline"
        elif isinstance(e, timeouts):
            network = "timeout"
        elif isinstance(e, connections):
            network = "unreachable"
        if network:
            break
    if network == "timeout" and not is_offline():
        return HubTimeout(f"The Hub at {host} did not answer within {timeout:g} s for the {what} "
                          f"{repo!r}; retry, allow more time (HF_HUB_ETAG_TIMEOUT=60), or use the "
                          "cached copy with HF_HUB_OFFLINE=1.", repo=repo,
                          fix="export HF_HUB_ETAG_TIMEOUT=60   # or HF_HUB_OFFLINE=1 with a cached "
                              "copy",
                          evidence=ev)
    repo_type = " --repo-type dataset" if what == "dataset" else ""
    offline_fix = f"hf download {repo}{repo_type}   # once, online"
    if is_offline() or network == "offline":
        where = f" ({cache_dir or constants.HF_HUB_CACHE})"
        return HubOffline(f"The {what} {repo!r}{f' file {filename!r}' if filename else ''} is not "
                          f"in the local cache{where} and offline mode is on (HF_HUB_OFFLINE=1); "
                          "run once with network access to cache it, or unset HF_HUB_OFFLINE.",
                          repo=repo, fix=f"unset HF_HUB_OFFLINE   # or: {offline_fix}", evidence=ev)
    if status is not None and status >= 500:
        return HubUnreachable(f"The Hub at {host} answered HTTP {status} for the {what} {repo!r}; "
                              "it is probably a temporary outage, retry in a few minutes.",
                              repo=repo, fix="# retry later; status: https://status.huggingface.co",
                              evidence=ev)
    if isinstance(exc, local_entry) or network == "unreachable":
        return HubUnreachable(f"The Hub at {host} could not be reached for the {what} {repo!r} and "
                              "it is not in the local cache; check the connection, proxy and "
                              "HF_ENDPOINT, or run where the Hub is reachable once to cache it.",
                              repo=repo,
                              fix="curl -I https://huggingface.co   # check the connection; "
                                  "HF_ENDPOINT for a mirror",
                              evidence=ev)
    if status in (401, 403):
        return HubAccessDenied(f"The Hub refused access to the {what} {repo!r} (HTTP {status}); "
                               "check that the token is valid and has read access.", repo=repo,
                               fix=login, evidence=ev)
    if isinstance(exc, getattr(errors, "HFValidationError", ())):
        return HubInvalidRef(f"{repo!r} is not a valid Hub {what} id ({detail}); use owner/name.",
                             repo=repo, fix=f"{what}: owner/name", evidence=ev)
    if any(type(e).__name__ == "DatasetNotFoundError" for e in chain):
        return HubNotFound(f"The {what} {repo!r} was not found ({detail}); check the id, or log in "
                           "if it is private.", repo=repo, fix=login, evidence=ev)
    return HubError(f"Resolving the {what} {repo!r} failed ({type(exc).__name__}: {detail}); check "
                    "the id and the connection, then retry.", repo=repo, fix=f"{what}: owner/name",
                    evidence=ev)
