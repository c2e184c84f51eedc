"""Fetching from the Hub: which files fine-tuning needs, how much a download would fetch, and the
download itself with byte progress; every failure is a HubError."""
from __future__ import annotations

import contextlib
import fnmatch
import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from wizard.hub.auth import resolve_token
from wizard.hub.connection import hub_api, is_offline, timeout_seconds
from wizard.hub.errors import HubOffline, as_hub_error
from wizard.hub.refs import (
    H5_SUFFIXES,
    DatasetRef,
    FileInfo,
    ModelRef,
    list_local_files,
    valid_repo_id,
)
from wizard.hub.safety import ensure_remote_code_allowed, ensure_safe_weights

WEIGHT_PATTERNS = ("*.safetensors", "*.h5", "*.bin", "*.pt", "*.pth")  # the weights it may pick

Progress = Callable[[str, int, int], None]
"""progress(filename, bytes_done_so_far_in_all_files, total_bytes_of_all_files)."""


@dataclass
class DownloadPlan:
    """What a download would fetch: the files, their sizes, and how much is already cached."""

    repo: str
    revision: str | None
    files: list[FileInfo]
    total_bytes: int
    cached_bytes: int = 0
    unknown_sizes: int = 0

    @property
    def to_download_bytes(self) -> int:
        return max(self.total_bytes - self.cached_bytes, 0)

    def describe(self, bandwidth_bytes_per_s: float = 10e6) -> str:
        """e.g. '3 files, 268.0 MB to download (1.2 kB cached), about 27 s at 10 MB/s'."""
        s = f"{len(self.files)} files, {human_bytes(self.to_download_bytes)} to download"
        if self.cached_bytes:
            s += f" ({human_bytes(self.cached_bytes)} cached)"
        if self.to_download_bytes:
            s += (f", about {self.to_download_bytes / bandwidth_bytes_per_s:.0f} s at "
                  f"{human_bytes(int(bandwidth_bytes_per_s))}/s")
        if self.unknown_sizes:
            s += f"; {self.unknown_sizes} file(s) of unknown size"
        return s

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["to_download_bytes"] = self.to_download_bytes
        return d


def human_bytes(n: float | None) -> str:
    """e.g. '268.0 MB' (powers of 1000), or 'unknown size' for None."""
    if n is None:
        return "unknown size"
    size = float(n)
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if abs(size) < 1000 or unit == "TB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} TB"


def model_file_patterns(model_ref: ModelRef, framework: str | None = None,
                        trust_remote_code: bool = False) -> list[str]:
    """Top-level files a fine-tuning run needs: configs, tokenizer files and one weights format.

    TensorFlow prefers tf_model.h5 when there is one; otherwise safetensors, else the pickle files.
    """
    patterns = ["*.json", "*.txt", "*.model", "*.tiktoken", "*.spm"]
    has_h5 = any(f.endswith(H5_SUFFIXES) for f in model_ref.weight_files)
    if framework == "tensorflow" and has_h5:
        patterns.append("*.h5")
    elif model_ref.has_safetensors:
        patterns.append("*.safetensors")
    elif framework != "tensorflow" and model_ref.weights_format == "h5":
        patterns.append("*.h5")  # loadable with from_tf=True
    else:
        patterns += ["*.bin", "*.pt", "*.pth"]
    if trust_remote_code and model_ref.needs_remote_code:
        patterns.append("*.py")
    return patterns


def download_size(repo: str | ModelRef | DatasetRef, revision: str | None = None,
                  patterns: Sequence[str] | None = None, *, repo_type: str = "model",
                  token: str | None = None, endpoint: str | None = None,
                  cache_dir: str | Path | None = None,
                  timeout: float | None = None) -> DownloadPlan:
    """How much a download of the files matching `patterns` (default: all) would fetch, before
    fetching.

    Uses the file list a ref already has; for a plain repo id, `get_paths_info` (exact names) or
    `list_repo_tree(recursive=True)`. Patterns are fnmatch patterns; ones without a "/" match
    top-level files only. For a ref resolved from the cache, only the cached files are known.
    """
    timeout = timeout_seconds(timeout)
    if isinstance(repo, (ModelRef, DatasetRef)):
        ref = repo
        if ref.kind != "hub" or ref.source == "cache":  # nothing to fetch, or only the cache known
            files = _filter(list_local_files(Path(ref.path)), patterns) \
                if ref.path and Path(ref.path).is_dir() else []
            total = sum(f.size or 0 for f in files)
            return DownloadPlan(ref.name, None, files, total, cached_bytes=total)
        repo_id, revision = ref.repo_id or "", ref.commit or ref.revision
        token, endpoint = ref.token, ref.endpoint
        cache_dir = cache_dir or ref.cache_dir
        repo_type = "dataset" if isinstance(ref, DatasetRef) else "model"
        listed = ref.files if isinstance(ref, ModelRef) and ref.files_complete and ref.files \
            else None
    else:
        repo_id, listed = valid_repo_id(repo, repo_type), None
        token = resolve_token(token)[0]
    if listed is None:
        listed = _list_hub_files(repo_id, revision, patterns, repo_type, token, endpoint, timeout)
    files = _filter(listed, patterns)
    cached = 0
    from huggingface_hub import try_to_load_from_cache

    for f in files:
        with contextlib.suppress(Exception):
            hit = try_to_load_from_cache(repo_id, f.path, cache_dir=cache_dir, revision=revision,
                                         repo_type=repo_type)
            if isinstance(hit, str):
                cached += f.size or os.path.getsize(hit)
    return DownloadPlan(repo_id, revision, files, sum(f.size or 0 for f in files), cached,
                        sum(1 for f in files if f.size is None))


def download_model(model_ref: ModelRef, *, patterns: Sequence[str] | None = None,
                   framework: str | None = None, allow_pickle: bool = False,
                   trust_remote_code: bool = False, progress: Progress | None = None,
                   timeout: float | None = None) -> str:
    """Fetch what fine-tuning needs into the Hub cache and return the local folder (a local ref:
    its path).

    huggingface_hub shows its tqdm bars as usual; `progress(filename, done_bytes, total_bytes)` is
    called as bytes arrive (hub 2.x) or after each file (hub 0.36).
    """
    timeout = timeout_seconds(timeout)
    if model_ref.kind == "local":
        return model_ref.path or model_ref.ref
    ensure_remote_code_allowed(model_ref, trust_remote_code)
    ensure_safe_weights(model_ref, allow_pickle, framework)
    pats = list(patterns) if patterns is not None \
        else model_file_patterns(model_ref, framework, trust_remote_code)
    plan = download_size(model_ref, patterns=pats)
    folder = model_ref.path
    done = 0
    for f in plan.files:
        local = download_file(model_ref.repo_id or "", f.path,
                              revision=model_ref.commit or model_ref.revision,
                              token=model_ref.token, endpoint=model_ref.endpoint,
                              cache_dir=model_ref.cache_dir, timeout=timeout, what="model",
                              progress=progress, progress_offset=done,
                              progress_total=plan.total_bytes, local_only=is_offline())
        done += f.size or os.path.getsize(local)
        if progress is not None:
            progress(f.path, done, plan.total_bytes)
        folder = str(Path(local).parents[len(Path(f.path).parts) - 1])
    return folder or ""


def download_file(repo_id: str, filename: str, *, revision: str | None, token: str | None,
                  endpoint: str | None, cache_dir: str | None = None,
                  timeout: float | None = None, what: str = "model", local_only: bool = False,
                  progress: Progress | None = None, progress_offset: int = 0,
                  progress_total: int = 0, repo_type: str | None = None) -> str:
    """hf_hub_download of one file (the cached copy when offline or `local_only`) with errors as
    HubError; byte progress through tqdm_class where the hub has it. `token` is sent as given
    (None: no token)."""
    from huggingface_hub import hf_hub_download

    timeout = timeout_seconds(timeout)
    kwargs: dict[str, Any] = {"repo_id": repo_id, "filename": filename, "revision": revision,
                              "cache_dir": cache_dir, "token": token or False,
                              "endpoint": endpoint, "etag_timeout": timeout,
                              "local_files_only": local_only or is_offline(),
                              "repo_type": repo_type}
    if progress is not None and "tqdm_class" in inspect.signature(hf_hub_download).parameters:
        # hub >= 1.0
        kwargs["tqdm_class"] = _progress_tqdm(progress, filename, progress_offset, progress_total)
    try:
        return hf_hub_download(**kwargs)
    except Exception as exc:
        raise as_hub_error(exc, what=what, repo=repo_id, revision=revision, has_token=bool(token),
                           endpoint=endpoint, timeout=timeout, filename=filename,
                           cache_dir=cache_dir) from None


def _progress_tqdm(progress: Progress, filename: str, offset: int, total: int) -> type:
    from huggingface_hub.utils import tqdm as hf_tqdm

    class _CallbackTqdm(hf_tqdm):  # type: ignore[misc, valid-type]
        def update(self, n: float | None = 1) -> bool | None:
            out = super().update(n)
            with contextlib.suppress(Exception):
                progress(filename, offset + int(self.n), total or int(self.total or 0))
            return out

    return _CallbackTqdm


def hub_file_size(entry: Any) -> int | None:
    """The size of a file entry from the Hub (a model_info sibling or a repo tree entry)."""
    lfs = getattr(entry, "lfs", None)
    size = getattr(entry, "size", None)
    if size is None and lfs is not None:
        size = lfs.get("size") if isinstance(lfs, Mapping) else getattr(lfs, "size", None)
    return size


def _filter(files: Sequence[FileInfo], patterns: Sequence[str] | None) -> list[FileInfo]:
    if patterns is None:
        return list(files)
    out = []
    for f in files:
        for pat in patterns:
            if ("/" in pat or "/" not in f.path) and fnmatch.fnmatchcase(f.path, pat):
                out.append(f)
                break
    return out


def _list_hub_files(repo_id: str, revision: str | None, patterns: Sequence[str] | None,
                    repo_type: str, token: str | None, endpoint: str | None,
                    timeout: float) -> list[FileInfo]:
    if is_offline():
        raise HubOffline(f"Offline mode is on (HF_HUB_OFFLINE=1), so the size of {repo_id!r} "
                         "cannot be asked from the Hub; unset HF_HUB_OFFLINE to see it.",
                         repo=repo_id, fix="unset HF_HUB_OFFLINE")
    api = hub_api(endpoint, token)
    try:
        if patterns and not any(c in p for p in patterns for c in "*?["):
            entries = api.get_paths_info(repo_id, list(patterns), revision=revision,
                                         repo_type=repo_type, token=token or False)
        else:
            entries = list(api.list_repo_tree(repo_id, recursive=True, revision=revision,
                                              repo_type=repo_type, token=token or False))
    except Exception as exc:
        raise as_hub_error(exc, what=repo_type, repo=repo_id, revision=revision,
                           has_token=bool(token), endpoint=endpoint, timeout=timeout) from None
    return [FileInfo(e.path, hub_file_size(e)) for e in entries
            if hasattr(e, "size") and hasattr(e, "blob_id")]
