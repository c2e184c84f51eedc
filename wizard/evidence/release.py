"""Is there a newer release of a library than the one installed? Asked of pip's index.

`pip index versions NAME` runs in a subprocess with a short timeout and no retries; the index
is pip's own configuration unless `index_url` (or $WIZARD_INDEX_URL) names one. When the index
cannot be reached the answer says it could not be checked, never guesses.
"""
from __future__ import annotations

import importlib.metadata as metadata
import os
import re
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

from wizard.settings import current as current_settings

INDEX_URL_ENV = "WIZARD_INDEX_URL"   # an index URL, or "off" to skip the check
TIMEOUT = 15.0
CHECKED_PACKAGES = ("transformers", "datasets", "tokenizers", "torch", "tensorflow", "accelerate",
                    "huggingface_hub", "tf_keras", "safetensors")
_DISTRIBUTIONS = {"tensorflow": ("tensorflow", "tensorflow-cpu", "tensorflow-gpu",
                                 "tensorflow-macos", "tensorflow-intel"),
                  "huggingface_hub": ("huggingface-hub",), "tf_keras": ("tf-keras",)}


@dataclass
class ReleaseInfo:
    """The installed version of one package against the newest on the index."""

    package: str                       # the import name, as in the failing frames
    distribution: str | None           # the name on the index
    installed: str | None
    checked: bool = False
    latest: str | None = None
    newer: list[str] = field(default_factory=list)   # newer final releases, newest first
    latest_same_major: str | None = None
    error: str | None = None           # why it could not be checked

    @property
    def newer_available(self) -> bool:
        return self.checked and bool(self.newer)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["newer_available"] = self.newer_available
        return d


def installed_distribution(package: str) -> tuple[str | None, str | None]:
    """(distribution name, installed version) of an import name, from installed metadata."""
    for dist in _DISTRIBUTIONS.get(package, (package.replace("_", "-"),)):
        try:
            return dist, metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return None, None


def configured_index_url() -> str | None:
    """$WIZARD_INDEX_URL when set (and not "off"), else None (pip's own configuration)."""
    url = current_settings().index_url
    return None if not url or check_disabled() else url


def check_disabled() -> bool:
    return (current_settings().index_url or "").lower() in ("off", "none", "0")


def available_versions(distribution: str, index_url: str | None = None,
                       timeout: float = TIMEOUT, python: str | None = None) -> list[str]:
    """The versions `pip index versions` lists (newest first). Raises RuntimeError with one
    sentence when the index cannot be asked or does not know the package."""
    cmd = [python or sys.executable, "-m", "pip", "index", "versions", distribution,
           "--disable-pip-version-check", "--no-input", "--retries", "0",
           "--timeout", str(max(1, int(timeout)))]
    if index_url:
        cmd += ["--isolated", "--index-url", index_url]
    env = {**os.environ, "PIP_NO_INPUT": "1", "PYTHONWARNINGS": "ignore"}
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 5, env=env)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"pip did not answer within {timeout:.0f} s")
    except OSError as exc:
        raise RuntimeError(f"pip could not be started ({exc.strerror or exc})")
    m = re.search(r"^Available versions:\s*(.+)$", proc.stdout, re.M)
    if (proc.returncode != 0 or not m) and index_url and not _reachable(index_url, distribution,
                                                                          timeout):
        raise RuntimeError(f"the package index {index_url} could not be reached")
    if proc.returncode != 0 or not m:
        lines = [ln.strip() for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip()]
        why = next((ln for ln in reversed(lines) if ln.startswith("ERROR")), lines[-1] if lines
                   else f"exit code {proc.returncode}")
        raise RuntimeError(why.removeprefix("ERROR: ")[:300])
    return [v.strip() for v in m.group(1).split(",") if v.strip()]


def _reachable(index_url: str, distribution: str, timeout: float) -> bool:
    """Whether the index answers at all (pip says "no matching distribution" either way)."""
    import urllib.error
    import urllib.request

    url = f"{index_url.rstrip('/')}/{distribution}/"
    try:
        with urllib.request.urlopen(url, timeout=min(timeout, 5)):
            return True
    except urllib.error.HTTPError:
        return True                    # it answered, e.g. 404 for an unknown package
    except (OSError, ValueError):
        return False


def check_newer_release(package: str, installed: str | None = None,
                        index_url: str | None = None, timeout: float = TIMEOUT) -> ReleaseInfo:
    """Whether the index has a newer final release of `package` (an import name such as
    transformers, torch, tensorflow, tf_keras) than the installed (or given) version."""
    from packaging.version import InvalidVersion, Version

    dist, found = installed_distribution(package)
    info = ReleaseInfo(package, dist or package.replace("_", "-"), installed or found)
    if info.installed is None:
        info.error = f"{package} is not installed"
        return info
    if check_disabled():
        info.error = f"the release check is switched off (${INDEX_URL_ENV}=off)"
        return info
    try:
        versions = available_versions(info.distribution or package, index_url or
                                      configured_index_url(), timeout)
    except RuntimeError as exc:
        info.error = f"could not be checked: {exc}"
        return info
    parsed = []
    for v in versions:
        try:
            parsed.append(Version(v))
        except InvalidVersion:
            continue
    finals = sorted({v for v in parsed if not v.is_prerelease and not v.is_devrelease},
                    reverse=True)
    try:
        current = Version(info.installed)
    except InvalidVersion:
        info.error = f"the installed version {info.installed!r} cannot be compared"
        return info
    info.checked = True
    info.latest = str(finals[0]) if finals else None
    info.newer = [str(v) for v in finals if v > current][:10]
    same = [v for v in finals if v.major == current.major]
    info.latest_same_major = str(same[0]) if same else None
    return info


def check_packages(packages: Iterable[str], index_url: str | None = None,
                   timeout: float = TIMEOUT) -> list[ReleaseInfo]:
    """check_newer_release for each package (in order, without repeats)."""
    seen: list[str] = []
    for p in packages:
        if p and p not in seen:
            seen.append(p)
    return [check_newer_release(p, index_url=index_url, timeout=timeout) for p in seen]
