"""Resolve a model or a dataset from the Hub, a local folder or data files: metadata first, clear errors.

One code path for every source. A Hub id is read from its metadata (`model_info`, `config.json` alone,
the dataset viewer's /splits, /info and /first-rows) before anything large is downloaded; a local
`save_pretrained` / `save_to_disk` folder or CSV/JSON/Parquet files give the same `ModelRef` /
`DatasetRef`. Offline (`HF_HUB_OFFLINE=1`) or when the Hub cannot be reached, refs come from the Hub
and datasets caches. Every failure is a `HubError` (a `ValueError`) whose message is one sentence
naming the repo and the fix, with a machine-readable `kind`.

Works with huggingface-hub 0.36 (requests) and 2.x (httpx2); the differences live in `_compat`
helpers below (`_network_error_types`, `_reset_http_sessions`, `_download_one`).
"""
from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import struct
from dataclasses import asdict, dataclass, field
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Literal, Mapping, Sequence

from wizard.errors import WizardError

if TYPE_CHECKING:  # heavy imports stay lazy
    import datasets

DEFAULT_VIEWER_URL = "https://datasets-server.huggingface.co"
DEFAULT_TIMEOUT = 10.0  # seconds; HF_HUB_ETAG_TIMEOUT overrides it, as in huggingface_hub
PREVIEW_ROWS = 5
DATA_SUFFIXES = {".csv": "csv", ".tsv": "csv", ".json": "json", ".jsonl": "json", ".ndjson": "json",
                 ".parquet": "parquet", ".txt": "text", ".arrow": "arrow"}
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
H5_SUFFIXES = (".h5",)
WEIGHT_PATTERNS = ("*.safetensors", "*.h5", "*.bin", "*.pt", "*.pth")  # model_file_patterns' weights
WEIGHT_SUFFIXES = (".safetensors",) + PICKLE_SUFFIXES + H5_SUFFIXES + (".msgpack",)
SAFETENSORS_DTYPE_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
                           "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}

Progress = Callable[[str, int, int], None]
"""progress(filename, bytes_done_so_far_in_all_files, total_bytes_of_all_files)."""


# --- errors ------------------------------------------------------------------------------
class HubError(WizardError):
    """A Hub or local-source problem as one sentence naming the repo and the fix."""

    kind = "hub-error"

    def __init__(self, message: str, *, repo: str | None = None, fix: str = "", kind: str | None = None,
                 evidence: dict[str, Any] | None = None):
        super().__init__(message)
        self.message, self.repo, self.fix = message, repo, fix
        self.evidence = dict(evidence or {})
        if kind:
            self.kind = kind

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


# --- results -----------------------------------------------------------------------------
@dataclass
class FileInfo:
    path: str
    size: int | None = None


@dataclass
class ModelRef:
    """A resolved model. `location` is what to pass to from_pretrained; the token never serialises."""

    kind: Literal["local", "hub"]
    ref: str
    repo_id: str | None = None
    path: str | None = None  # local folder, or the cache snapshot folder holding config.json
    revision: str | None = None  # as asked
    commit: str | None = None  # resolved commit sha (hub)
    source: Literal["local", "hub", "cache"] = "local"
    config: dict[str, Any] = field(default_factory=dict)
    model_type: str | None = None
    architectures: list[str] = field(default_factory=list)
    pipeline_tag: str | None = None
    library_name: str | None = None
    safetensors_params: dict[str, int] | None = None  # dtype -> parameter count
    num_parameters: int | None = None
    has_safetensors: bool = False
    weights_format: Literal["safetensors", "pickle", "h5", "other", "none"] = "none"
    weight_files: list[str] = field(default_factory=list)
    needs_remote_code: bool = False
    auto_map: dict[str, Any] = field(default_factory=dict)
    code_files: list[str] = field(default_factory=list)
    files: list[FileInfo] = field(default_factory=list)
    files_complete: bool = True  # False when listed from a partial cache snapshot
    private: bool | None = None
    gated: bool | str | None = None
    endpoint: str | None = None
    cache_dir: str | None = None
    token_source: str = "none"
    notes: list[str] = field(default_factory=list)
    token: str | None = field(default=None, repr=False)

    @property
    def param_bytes(self) -> int | None:
        """Bytes of the parameters as stored, from the safetensors dtype counts (None when unknown)."""
        if not self.safetensors_params:
            return None
        return sum(n * SAFETENSORS_DTYPE_BYTES.get(d, 4) for d, n in self.safetensors_params.items())

    @property
    def location(self) -> str:
        return self.path if self.kind == "local" else self.repo_id  # type: ignore[return-value]

    @property
    def name(self) -> str:
        return self.repo_id or self.path or self.ref

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("token", None)
        return d


@dataclass
class DatasetRef:
    """A resolved dataset: where it lives, its configs, splits, features and a few first rows."""

    kind: Literal["hub", "disk", "files"]
    ref: str
    repo_id: str | None = None
    path: str | None = None  # save_to_disk folder, data folder, or loader name (csv/json/parquet)
    data_files: dict[str, list[str]] | None = None
    revision: str | None = None
    commit: str | None = None
    source: Literal["local", "hub", "cache"] = "local"
    config: str | None = None
    configs: list[str] = field(default_factory=list)
    split: str | None = None
    splits: dict[str, int | None] = field(default_factory=dict)  # split -> num_examples (None: unknown)
    features: dict[str, Any] = field(default_factory=dict)  # datasets.Features.to_dict() form
    first_rows: list[dict[str, Any]] = field(default_factory=list)
    download_bytes: int | None = None
    viewer: bool = False  # whether the dataset viewer answered
    viewer_error: str | None = None
    private: bool | None = None
    gated: bool | str | None = None
    endpoint: str | None = None
    cache_dir: str | None = None
    token_source: str = "none"
    notes: list[str] = field(default_factory=list)
    token: str | None = field(default=None, repr=False)

    @property
    def columns(self) -> list[str]:
        return list(self.features) or (list(self.first_rows[0]) if self.first_rows else [])

    @property
    def name(self) -> str:
        return self.repo_id or self.path or self.ref

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("token", None)
        return d


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


def human_bytes(n: int | float | None) -> str:
    if n is None:
        return "unknown size"
    size = float(n)
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if abs(size) < 1000 or unit == "TB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} TB"


# --- offline mode, tokens ----------------------------------------------------------------
def is_offline() -> bool:
    """Whether huggingface_hub is in offline mode (HF_HUB_OFFLINE=1)."""
    from huggingface_hub import constants

    check = getattr(constants, "is_offline_mode", None)  # hub 2.x
    return bool(check() if callable(check) else constants.HF_HUB_OFFLINE)


def set_offline(enabled: bool) -> None:
    """Switch offline mode for huggingface_hub and datasets in this process (both read it at import)."""
    import sys

    from huggingface_hub import constants

    os.environ["HF_HUB_OFFLINE"] = "1" if enabled else "0"
    os.environ["HF_DATASETS_OFFLINE"] = "1" if enabled else "0"
    constants.HF_HUB_OFFLINE = enabled
    if "datasets" in sys.modules:
        from datasets import config as ds_config

        ds_config.HF_HUB_OFFLINE = enabled
        if hasattr(ds_config, "HF_DATASETS_OFFLINE"):
            ds_config.HF_DATASETS_OFFLINE = enabled
    _reset_http_sessions()


def resolve_token(token: str | None = None, oauth_token: Any = None) -> tuple[str | None, str]:
    """(token, where it came from): argument, oauth (the app's login), HF_TOKEN, saved login, or none.

    `oauth_token` may be a string or an object with `.token` (gradio's OAuthToken).
    """
    if token:
        return token, "argument"
    if oauth_token is not None:
        value = getattr(oauth_token, "token", oauth_token)
        if isinstance(value, str) and value:
            return value, "oauth"
    from huggingface_hub import constants, get_token

    if getattr(constants, "HF_HUB_DISABLE_IMPLICIT_TOKEN", False):
        return None, "none"
    env = os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN")
    if env and env.strip():
        return env.strip(), "HF_TOKEN"
    try:
        saved = get_token()
    except Exception:  # a broken token file or OIDC setup must not crash resolution
        saved = None
    return (saved, "saved login") if saved else (None, "none")


# --- models ------------------------------------------------------------------------------
def resolve_model(ref: str, revision: str | None = None, token: str | None = None, endpoint: str | None = None,
                  *, oauth_token: Any = None, cache_dir: str | Path | None = None,
                  timeout: float | None = None) -> ModelRef:
    """Resolve a Hub id (at a branch, tag or commit) or a save_pretrained folder; no weights are read."""
    timeout = _timeout(timeout)
    ref = (ref or "").strip()
    if not ref:
        raise HubInvalidRef("No model was given; pass a Hub id such as distilbert-base-uncased or a folder "
                            "saved with save_pretrained.", fix="model: distilbert-base-uncased")
    tok, source = resolve_token(token, oauth_token)
    local = _local_path(ref, what="model")
    if local is not None:
        return _local_model(ref, local, source)
    repo_id = _valid_repo_id(ref, "model")
    cache = str(cache_dir) if cache_dir else None
    base = dict(kind="hub", ref=ref, repo_id=repo_id, revision=revision, endpoint=endpoint, cache_dir=cache,
                token_source=source, token=tok)
    if is_offline():
        return _cached_model(ModelRef(**base, source="cache"), note="offline mode is on (HF_HUB_OFFLINE=1)")
    api = _api(endpoint, tok)
    try:
        info = api.model_info(repo_id, revision=revision, files_metadata=True, timeout=timeout,
                              token=tok or False)
    except Exception as exc:
        err = _as_hub_error(exc, what="model", repo=repo_id, revision=revision, has_token=bool(tok),
                            endpoint=endpoint, timeout=timeout)
        if isinstance(err, (HubUnreachable, HubTimeout)):
            with contextlib.suppress(HubError):
                return _cached_model(ModelRef(**base, source="cache"), note=_fallback_note(err))
        raise err from None
    mref = ModelRef(**base, source="hub", commit=info.sha, pipeline_tag=info.pipeline_tag,
                    library_name=info.library_name, private=info.private, gated=info.gated,
                    files=[FileInfo(s.rfilename, _sibling_size(s)) for s in (info.siblings or [])])
    if info.safetensors is not None:
        mref.safetensors_params = dict(info.safetensors.parameters)
        mref.num_parameters = int(info.safetensors.total)
    names = [f.path for f in mref.files]
    if names and "config.json" not in names:
        raise HubEntryNotFound(
            f"The model {repo_id!r} has no config.json (library: {info.library_name or 'unknown'}), so it is not "
            "a transformers checkpoint; pick a transformers model or a folder saved with save_pretrained.",
            repo=repo_id, fix="model: distilbert-base-uncased   # a transformers checkpoint",
            evidence={"files": names[:20], "library_name": info.library_name})
    config_path = _download_one(repo_id, "config.json", revision=revision, token=tok, endpoint=endpoint,
                                cache_dir=cache, timeout=timeout, what="model")
    mref.path = str(Path(config_path).parent)
    mref.config = _read_json(Path(config_path), repo_id)
    hub_config = info.config or {}
    _fill_from_config(mref, extra_auto_map=(hub_config.get("tokenizer_config") or {}).get("auto_map"))
    return mref


def load_config(model_ref: ModelRef | str, **resolve_kwargs: Any) -> dict[str, Any]:
    """The model's config.json as a dict (resolving `model_ref` first when it is a string)."""
    mref = resolve_model(model_ref, **resolve_kwargs) if isinstance(model_ref, str) else model_ref
    if mref.config:
        return dict(mref.config)
    if mref.path and (Path(mref.path) / "config.json").is_file():
        return _read_json(Path(mref.path) / "config.json", mref.name)
    raise HubEntryNotFound(f"No config.json is known for the model {mref.name!r}; resolve it again with "
                           "resolve_model().", repo=mref.name)


def auto_config(model_ref: ModelRef, trust_remote_code: bool = False) -> Any:
    """transformers' PretrainedConfig for the ref, from the config file alone (no network for local/cache)."""
    ensure_remote_code_allowed(model_ref, trust_remote_code)
    from transformers import AutoConfig

    if trust_remote_code and model_ref.kind == "hub":  # the code files may not be cached yet
        return AutoConfig.from_pretrained(model_ref.repo_id, revision=model_ref.commit or model_ref.revision,
                                          token=model_ref.token, trust_remote_code=True,
                                          cache_dir=model_ref.cache_dir)
    return AutoConfig.from_pretrained(model_ref.path, trust_remote_code=trust_remote_code)


def needs_trust_remote_code(obj: ModelRef | Mapping[str, Any] | str, **resolve_kwargs: Any) -> bool:
    """True when the model's config maps its classes to code in the repo (`auto_map`).

    Accepts a ModelRef, a config dict, or a model reference string (resolved first, metadata only).
    """
    if isinstance(obj, str):
        obj = resolve_model(obj, **resolve_kwargs)
    if isinstance(obj, ModelRef):
        return obj.needs_remote_code
    return bool(obj.get("auto_map"))


def ensure_remote_code_allowed(model_ref: ModelRef, trust_remote_code: bool = False) -> None:
    """Raise HubRemoteCodeRequired unless the user said yes; the wizard never turns it on by itself."""
    if model_ref.needs_remote_code and trust_remote_code is not True:
        files = ", ".join(model_ref.code_files[:4]) or ", ".join(
            str(v) for v in list(model_ref.auto_map.values())[:3])
        raise HubRemoteCodeRequired(
            f"The model {model_ref.name!r} needs its own Python code ({files}) and the wizard never runs repo "
            "code without your explicit yes; read that code, then set trust_remote_code: true in the case.",
            repo=model_ref.name, fix="trust_remote_code: true   # in the case file, after reading the repo's .py files",
            evidence={"auto_map": model_ref.auto_map, "code_files": model_ref.code_files})


def unsafe_weights(model_ref: ModelRef, framework: str | None = None) -> bool:
    """True when the only weights are pickle files, or HDF5 files for a non-TensorFlow user."""
    return model_ref.weights_format == "pickle" or (model_ref.weights_format == "h5" and framework != "tensorflow")


def ensure_safe_weights(model_ref: ModelRef, allow_pickle: bool = False, framework: str | None = None) -> None:
    """Raise HubPickleWeightsOnly when the only weights are pickle (.bin) files (or .h5 outside TensorFlow)."""
    if unsafe_weights(model_ref, framework) and not allow_pickle:
        raise HubPickleWeightsOnly(_pickle_message(model_ref), repo=model_ref.name, fix=_pickle_fix(model_ref),
                                   evidence={"weight_files": model_ref.weight_files})


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
                  patterns: Sequence[str] | None = None, *, repo_type: str = "model", token: str | None = None,
                  endpoint: str | None = None, cache_dir: str | Path | None = None,
                  timeout: float | None = None) -> DownloadPlan:
    """How much a download of the files matching `patterns` (default: all) would fetch, before fetching.

    Uses the file list a ref already has; for a plain repo id, `get_paths_info` (exact names) or
    `list_repo_tree(recursive=True)`. Patterns are fnmatch patterns; ones without a "/" match top-level
    files only. For a ref resolved from the cache, only the cached files are known.
    """
    timeout = _timeout(timeout)
    if isinstance(repo, (ModelRef, DatasetRef)):
        ref = repo
        if ref.kind != "hub" or ref.source == "cache":  # nothing to fetch, or only the cache is known
            files = _filter(_list_local_files(Path(ref.path)), patterns) if ref.path and Path(ref.path).is_dir() \
                else []
            total = sum(f.size or 0 for f in files)
            return DownloadPlan(ref.name, None, files, total, cached_bytes=total)
        repo_id, revision = ref.repo_id or "", ref.commit or ref.revision
        token, endpoint = ref.token, ref.endpoint
        cache_dir = cache_dir or ref.cache_dir
        repo_type = "dataset" if isinstance(ref, DatasetRef) else "model"
        listed = ref.files if isinstance(ref, ModelRef) and ref.files_complete and ref.files else None
    else:
        repo_id, listed = _valid_repo_id(repo, repo_type), None
        token = resolve_token(token)[0]
    if listed is None:
        listed = _list_hub_files(repo_id, revision, patterns, repo_type, token, endpoint, timeout, cache_dir)
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


def download_model(model_ref: ModelRef, *, patterns: Sequence[str] | None = None, framework: str | None = None,
                   allow_pickle: bool = False, trust_remote_code: bool = False, progress: Progress | None = None,
                   timeout: float | None = None) -> str:
    """Fetch what fine-tuning needs into the Hub cache and return the local folder (a local ref: its path).

    huggingface_hub shows its tqdm bars as usual; `progress(filename, done_bytes, total_bytes)` is called
    as bytes arrive (hub 2.x) or after each file (hub 0.36).
    """
    timeout = _timeout(timeout)
    if model_ref.kind == "local":
        return model_ref.path or model_ref.ref
    ensure_remote_code_allowed(model_ref, trust_remote_code)
    ensure_safe_weights(model_ref, allow_pickle, framework)
    pats = list(patterns) if patterns is not None else model_file_patterns(model_ref, framework, trust_remote_code)
    plan = download_size(model_ref, patterns=pats)
    folder = model_ref.path
    done = 0
    for f in plan.files:
        local = _download_one(model_ref.repo_id or "", f.path, revision=model_ref.commit or model_ref.revision,
                              token=model_ref.token, endpoint=model_ref.endpoint, cache_dir=model_ref.cache_dir,
                              timeout=timeout, what="model", progress=progress, progress_offset=done,
                              progress_total=plan.total_bytes, local_only=is_offline())
        done += f.size or os.path.getsize(local)
        if progress is not None:
            progress(f.path, done, plan.total_bytes)
        folder = str(Path(local).parents[len(Path(f.path).parts) - 1])
    return folder or ""


# --- datasets ----------------------------------------------------------------------------
def resolve_dataset(ref: str | None, config: str | None = None, split: str | None = None, token: str | None = None,
                    endpoint: str | None = None, viewer_url: str | None = None, *, data_files: Any = None,
                    revision: str | None = None, oauth_token: Any = None, cache_dir: str | Path | None = None,
                    timeout: float | None = None) -> DatasetRef:
    """Resolve a Hub dataset id, a save_to_disk folder, a data folder or data files (csv/json/parquet).

    Hub datasets are described from the dataset viewer (features, splits, first rows) before any data
    is downloaded; local ones from their files. `split` is checked when given. The viewer's base URL is
    `viewer_url`, else $WIZARD_VIEWER_URL, else https://datasets-server.huggingface.co.
    """
    timeout = _timeout(timeout)
    ref = (ref or "").strip()
    tok, source = resolve_token(token, oauth_token)
    cache = str(cache_dir) if cache_dir else None
    files = _normalise_data_files(data_files)
    if not ref and not files:
        raise HubInvalidRef("No dataset was given; pass a Hub id (e.g. nyu-mll/glue), a save_to_disk folder, "
                            "or data files.", fix="dataset:\n  path: nyu-mll/glue\n  config: mrpc")
    if not ref or (files and ref in DATA_SUFFIXES.values()):
        return _files_dataset(ref or _builder_for(files), files, split, source, cache)
    local = _local_path(ref, what="dataset")
    if local is not None:
        if local.is_file():
            return _files_dataset(_builder_for({"train": [str(local)]}), {"train": [str(local)]}, split, source,
                                  cache, ref=ref)
        if (local / "dataset_dict.json").is_file() or (local / "state.json").is_file():
            return _disk_dataset(ref, local, split, source)
        return _files_dataset(str(local), files, split, source, cache, ref=ref, config=config)
    repo_id = _valid_repo_id(ref, "dataset")
    dref = DatasetRef(kind="hub", ref=ref, repo_id=repo_id, data_files=files, revision=revision, config=config,
                      endpoint=endpoint, cache_dir=cache, token_source=source, token=tok, source="hub")
    if is_offline():
        return _cached_dataset(dref, split, note="offline mode is on (HF_HUB_OFFLINE=1)")
    api = _api(endpoint, tok)
    try:
        info = api.dataset_info(repo_id, revision=revision, timeout=timeout, token=tok or False)
    except Exception as exc:
        err = _as_hub_error(exc, what="dataset", repo=repo_id, revision=revision, has_token=bool(tok),
                            endpoint=endpoint, timeout=timeout)
        if isinstance(err, (HubUnreachable, HubTimeout)):
            with contextlib.suppress(HubError):
                return _cached_dataset(dref, split, note=_fallback_note(err))
        raise err from None
    dref.commit, dref.private, dref.gated = info.sha, info.private, info.gated
    if info.gated:  # metadata of gated repos is public; their files are not
        _check_file_access(repo_id, "dataset", [s.rfilename for s in info.siblings or []], info.sha, tok,
                           endpoint, timeout)
    card = _card_dict(info.card_data)
    if revision not in (None, "main") or files:
        dref.viewer_error = "the dataset viewer describes the main branch without custom data_files only"
    else:
        try:
            _describe_from_viewer(dref, viewer_url or os.environ.get("WIZARD_VIEWER_URL") or DEFAULT_VIEWER_URL,
                                  timeout)
        except HubDatasetSpecError:
            raise
        except HubError as exc:
            dref.viewer, dref.viewer_error = False, exc.message
    if files:
        dref.splits = {k: None for k in files}
    elif not dref.viewer:
        _describe_from_card(dref, card)
    _check_split(dref, split)
    return dref


def load_dataset_sample(ref: DatasetRef, split: str | None = None, max_samples: int = 512) -> "datasets.Dataset":
    """The first `max_samples` rows of a split as a `datasets.Dataset`, streaming so only they are read."""
    import datasets

    split = split or ref.split or _default_split(ref.splits) or "train"
    if max_samples < 1:
        raise HubInvalidRef(f"max_samples must be at least 1, not {max_samples}.", repo=ref.name,
                            fix="dataset:\n  max_samples: 512")
    if ref.kind == "disk":
        obj = datasets.load_from_disk(ref.path)
        if isinstance(obj, datasets.DatasetDict):
            if split not in obj:
                raise _split_error(ref, split, list(obj))
            obj = obj[split]
        return obj.select(range(min(max_samples, len(obj))))
    kwargs: dict[str, Any] = dict(split=split, streaming=True)
    if ref.kind == "hub":
        kwargs.update(path=ref.repo_id, name=ref.config, revision=ref.revision, token=ref.token or None)
    else:
        kwargs.update(path=ref.path, name=ref.config)
    if ref.data_files:
        kwargs["data_files"] = ref.data_files
    if ref.cache_dir:
        kwargs["cache_dir"] = ref.cache_dir
    try:
        with _datasets_endpoint(ref.endpoint):
            stream = datasets.load_dataset(**kwargs)
            rows = list(islice(iter(stream), max_samples))
            features = stream.features
    except HubError:
        raise
    except Exception as exc:
        if isinstance(exc, ValueError) and ("Bad split" in str(exc) or "Unknown split" in str(exc)):
            known = str(exc).split("Available splits:")[-1] if "Available splits:" in str(exc) else ""
            names = [n.strip(" '[]\"") for n in known.split(",") if n.strip(" '[]\"")] or list(ref.splits)
            raise _split_error(ref, split, names) from None
        if ref.kind != "hub":
            raise HubInvalidRef(f"The data of {ref.name!r} cannot be read ({type(exc).__name__}: "
                                f"{str(exc).splitlines()[0][:160] if str(exc) else ''}); check that the files still "
                                "exist and are csv with a header row, json lines or parquet.", repo=ref.name,
                                fix="dataset:\n  data_files:\n    train: data/train.csv") from None
        raise _as_hub_error(exc, what="dataset", repo=ref.name, revision=ref.revision, has_token=bool(ref.token),
                            endpoint=ref.endpoint) from None
    if features is None and ref.features and rows and set(ref.features) == set(rows[0]):
        with contextlib.suppress(Exception):
            features = datasets.Features.from_dict(ref.features)
    try:
        return datasets.Dataset.from_list(rows, features=features)
    except Exception:
        return datasets.Dataset.from_list(rows)


# --- model helpers -----------------------------------------------------------------------
def _local_model(ref: str, folder: Path, source: str) -> ModelRef:
    if folder.is_file():
        raise HubInvalidRef(f"{ref!r} is a file; pass the folder that holds config.json (the folder given to "
                            "save_pretrained).", repo=ref, fix=f"model: {folder.parent}")
    config_path = folder / "config.json"
    if not config_path.is_file():
        raise HubEntryNotFound(f"The folder {ref!r} has no config.json; save the model there with "
                               "model.save_pretrained(folder) (and the tokenizer with tokenizer.save_pretrained).",
                               repo=ref, fix=f'model.save_pretrained("{folder}")\ntokenizer.save_pretrained("{folder}")')
    mref = ModelRef(kind="local", ref=ref, path=str(folder.resolve()), source="local", token_source=source,
                    files=_list_local_files(folder), config=_read_json(config_path, ref))
    _fill_from_config(mref)
    _local_safetensors_params(mref, folder)
    return mref


def _cached_model(mref: ModelRef, note: str) -> ModelRef:
    """The ref from the Hub cache only; HubOffline when config.json was never cached."""
    config_path = _download_one(mref.repo_id or "", "config.json", revision=mref.revision, token=mref.token,
                                endpoint=mref.endpoint, cache_dir=mref.cache_dir, timeout=_timeout(None),
                                what="model", local_only=True)
    folder = Path(config_path).parent
    mref.path, mref.source, mref.commit = str(folder), "cache", folder.name
    mref.config = _read_json(Path(config_path), mref.repo_id or "")
    mref.files, mref.files_complete = _list_local_files(folder), False
    mref.notes.append(f"resolved from the Hub cache: {note}")
    _fill_from_config(mref)
    _local_safetensors_params(mref, folder)
    return mref


def _fill_from_config(mref: ModelRef, extra_auto_map: Any = None) -> None:
    cfg = mref.config
    mref.model_type = cfg.get("model_type")
    mref.architectures = list(cfg.get("architectures") or [])
    auto_map = dict(cfg.get("auto_map") or {})
    if isinstance(extra_auto_map, Mapping):
        auto_map.update({f"tokenizer:{k}": v for k, v in extra_auto_map.items()})
    mref.auto_map, mref.needs_remote_code = auto_map, bool(auto_map)
    names = [f.path for f in mref.files]
    mref.code_files = [n for n in names if n.endswith(".py")]
    mref.weight_files = [n for n in names if n.endswith(WEIGHT_SUFFIXES) or n.endswith(".index.json")
                         and any(n.endswith(s + ".index.json") for s in WEIGHT_SUFFIXES)]
    weights = [n for n in mref.weight_files if not n.endswith(".index.json")]
    mref.has_safetensors = any(n.endswith(".safetensors") for n in weights)
    if mref.has_safetensors:
        mref.weights_format = "safetensors"
    elif any(n.endswith(PICKLE_SUFFIXES) for n in weights):
        mref.weights_format = "pickle"
    elif any(n.endswith(H5_SUFFIXES) for n in weights):
        mref.weights_format = "h5"
    else:
        mref.weights_format = "other" if weights else "none"


def _local_safetensors_params(mref: ModelRef, folder: Path) -> None:
    """Parameter counts per dtype from the safetensors headers (8-byte length + JSON), no tensors read."""
    counts: dict[str, int] = {}
    for f in mref.files:
        p = folder / f.path
        if not f.path.endswith(".safetensors") or not p.is_file():
            continue
        try:
            with open(p, "rb") as fh:
                (n,) = struct.unpack("<Q", fh.read(8))
                if n > 100_000_000:  # not a plausible header
                    continue
                header = json.loads(fh.read(n))
        except (OSError, ValueError, struct.error):
            continue
        for name, t in header.items():
            if name != "__metadata__" and isinstance(t, dict):
                count = 1
                for dim in t.get("shape", []):
                    count *= int(dim)
                counts[t.get("dtype", "?")] = counts.get(t.get("dtype", "?"), 0) + count
    if counts:
        mref.safetensors_params, mref.num_parameters = counts, sum(counts.values())


def _pickle_message(mref: ModelRef) -> str:
    files = ", ".join(Path(f).name for f in mref.weight_files[:3])
    if mref.weights_format == "h5":
        return (f"The model {mref.name!r} has only TensorFlow HDF5 weights ({files}) and no safetensors; "
                "PyTorch cannot load them without from_tf=True, so prefer a revision with model.safetensors "
                "or convert once.")
    return (f"The model {mref.name!r} has only pickle weights ({files}) and no safetensors; unpickling can run "
            "arbitrary code, so prefer a revision with model.safetensors (often a 'safetensors' PR, "
            "revision='refs/pr/N') or convert a trusted copy once.")


def _pickle_fix(mref: ModelRef) -> str:
    return ("from transformers import AutoModel\n"
            f'model = AutoModel.from_pretrained("{mref.location}", use_safetensors=False)  # only if you trust it\n'
            'model.save_pretrained("model-safetensors", safe_serialization=True)')


# --- dataset helpers ---------------------------------------------------------------------
def _describe_from_viewer(dref: DatasetRef, viewer_url: str, timeout: float) -> None:
    base = viewer_url.rstrip("/")
    name = dref.repo_id or ""
    splits = _viewer_get(f"{base}/splits", {"dataset": name}, dref, timeout).get("splits") or []
    if not splits:
        raise HubError(f"The dataset viewer has no splits for {name!r} yet; the wizard reads the data itself "
                       "instead.", repo=name, kind="viewer-unavailable")
    configs: list[str] = []
    for s in splits:
        if s.get("config") not in configs:
            configs.append(s.get("config"))
    dref.configs = configs
    dref.config = _pick_config(dref, configs)
    dref.splits = {s["split"]: None for s in splits if s.get("config") == dref.config}
    info = _viewer_get(f"{base}/info", {"dataset": name, "config": dref.config}, dref, timeout)
    dinfo = info.get("dataset_info") or {}
    dref.features = dict(dinfo.get("features") or {})
    for sname, sinfo in (dinfo.get("splits") or {}).items():
        dref.splits[sname] = (sinfo or {}).get("num_examples")
    dref.download_bytes = dinfo.get("download_size")
    dref.viewer = True
    preview = _default_split(dref.splits)
    if preview:
        with contextlib.suppress(HubError):
            rows = _viewer_get(f"{base}/first-rows", {"dataset": name, "config": dref.config, "split": preview},
                               dref, timeout).get("rows") or []
            dref.first_rows = [r.get("row", {}) for r in rows[:PREVIEW_ROWS]]


def _viewer_get(url: str, params: dict[str, Any], dref: DatasetRef, timeout: float) -> dict[str, Any]:
    from huggingface_hub.utils import get_session

    headers = {"Authorization": f"Bearer {dref.token}"} if dref.token else {}
    try:
        r = get_session().get(url, params=params, headers=headers, timeout=timeout)
    except Exception as exc:
        raise _as_hub_error(exc, what="dataset", repo=dref.repo_id or "", revision=None,
                            has_token=bool(dref.token), endpoint=url.rsplit("/", 1)[0], timeout=timeout) from None
    if r.status_code != 200:
        try:
            detail = r.json().get("error")
        except Exception:
            detail = None
        raise HubError(f"The dataset viewer answered HTTP {r.status_code} for {dref.repo_id!r} "
                       f"({detail or r.headers.get('X-Error-Code') or 'no detail'}); the wizard reads the data "
                       "itself instead.", repo=dref.repo_id, kind="viewer-unavailable")
    return r.json()


def _pick_config(dref: DatasetRef, configs: list[str]) -> str | None:
    if dref.config:
        if configs and dref.config not in configs:
            raise HubDatasetSpecError(
                f"The dataset {dref.name!r} has no config {dref.config!r}; use one of {', '.join(configs[:10])}.",
                repo=dref.name, kind="config-not-found", fix=f"dataset:\n  config: {configs[0]}",
                evidence={"configs": configs})
        return dref.config
    if len(configs) == 1:
        return configs[0]
    if "default" in configs:
        return "default"
    if configs:
        raise HubDatasetSpecError(
            f"The dataset {dref.name!r} has {len(configs)} configs ({', '.join(configs[:10])}); choose one with "
            "dataset.config.", repo=dref.name, kind="config-required", fix=f"dataset:\n  config: {configs[0]}",
            evidence={"configs": configs})
    return None


def _describe_from_card(dref: DatasetRef, card: dict[str, Any]) -> None:
    """Features and splits from the dataset card's `dataset_info`, when the viewer could not say."""
    infos = card.get("dataset_info")
    infos = infos if isinstance(infos, list) else [infos] if isinstance(infos, dict) else []
    names = [c.get("config_name", "default") for c in card.get("configs") or [] if isinstance(c, dict)]
    names += [i.get("config_name", "default") for i in infos if i.get("config_name", "default") not in names]
    dref.configs = names
    if names:
        dref.config = _pick_config(dref, names)
    for i in infos:
        if i.get("config_name", "default") != (dref.config or "default"):
            continue
        feats = i.get("features") or []
        if isinstance(feats, list):  # card form: [{name, dtype}] -> Features.to_dict() form
            dref.features = {f["name"]: {"dtype": f["dtype"], "_type": "Value"} if isinstance(f.get("dtype"), str)
                             else f.get("dtype") for f in feats if "name" in f}
        for s in i.get("splits") or []:
            dref.splits[s.get("name")] = s.get("num_examples")
        dref.download_bytes = i.get("download_size")


def _check_file_access(repo_id: str, repo_type: str, names: list[str], revision: str | None, token: str | None,
                       endpoint: str | None, timeout: float) -> None:
    """HEAD one small file (README.md first) so a gated repo says so before any data is requested."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    name = "README.md" if "README.md" in names else (names[0] if names else None)
    if name is None:
        return
    url = hf_hub_url(repo_id, name, repo_type=repo_type, revision=revision, endpoint=endpoint)
    try:
        get_hf_file_metadata(url, token=token or False, timeout=timeout)
    except Exception as exc:
        raise _as_hub_error(exc, what=repo_type, repo=repo_id, revision=revision, has_token=bool(token),
                            endpoint=endpoint, timeout=timeout, filename=name) from None


def _cached_dataset(dref: DatasetRef, split: str | None, note: str) -> DatasetRef:
    """Describe a Hub dataset from the datasets cache (prepared by an earlier load_dataset)."""
    import datasets

    kwargs: dict[str, Any] = {"path": dref.repo_id, "name": dref.config, "revision": dref.revision}
    if dref.data_files:
        kwargs["data_files"] = dref.data_files
    if dref.cache_dir:
        kwargs["cache_dir"] = dref.cache_dir
    try:
        with _datasets_endpoint(dref.endpoint):
            builder = datasets.load_dataset_builder(**kwargs)
    except Exception as exc:
        fix = f"hf download {dref.repo_id} --repo-type dataset   # once, online; or unset HF_HUB_OFFLINE"
        if is_offline():
            raise HubOffline(f"The dataset {dref.repo_id!r} is not in the local datasets cache and offline mode "
                             "is on (HF_HUB_OFFLINE=1); load it once with network access, or unset "
                             "HF_HUB_OFFLINE.", repo=dref.repo_id, fix=fix,
                             evidence={"detail": str(exc).splitlines()[0][:200]}) from None
        raise HubUnreachable(f"{note.rstrip('.')}, and the dataset {dref.repo_id!r} is not in the local cache "
                             "either; check the connection or load it once online.", repo=dref.repo_id,
                             fix=fix) from None
    dref.source, dref.config = "cache", builder.config.name
    if builder.info.features is not None:
        dref.features = builder.info.features.to_dict()
    dref.splits = {k: v.num_examples for k, v in (builder.info.splits or {}).items()}
    dref.notes.append(f"resolved from the datasets cache: {note}")
    _check_split(dref, split)
    return dref


def _disk_dataset(ref: str, folder: Path, split: str | None, source: str) -> DatasetRef:
    import datasets

    try:
        obj = datasets.load_from_disk(str(folder))
    except Exception as exc:
        raise HubInvalidRef(f"The folder {ref!r} looks like a save_to_disk folder but cannot be loaded "
                            f"({str(exc).splitlines()[0][:120]}); save it again with dataset.save_to_disk(folder).",
                            repo=ref, fix=f'dataset.save_to_disk("{folder}")') from None
    parts = dict(obj) if isinstance(obj, datasets.DatasetDict) else {"train": obj}
    dref = DatasetRef(kind="disk", ref=ref, path=str(folder.resolve()), source="local", token_source=source,
                      splits={k: len(v) for k, v in parts.items()})
    first = parts[_default_split(dref.splits) or next(iter(parts))]
    dref.features = first.features.to_dict()
    dref.first_rows = [_jsonable(dict(r)) for r in first.select(range(min(PREVIEW_ROWS, len(first))))]
    _check_split(dref, split)
    return dref


def _files_dataset(path: str, files: dict[str, list[str]] | None, split: str | None, source: str,
                   cache: str | None, ref: str | None = None, config: str | None = None) -> DatasetRef:
    """Data files (csv/json/parquet/text) or a folder of them, described by streaming a few rows."""
    for paths in (files or {}).values():
        for p in paths:
            if "://" not in p and not any(c in p for c in "*?[") and not Path(p).expanduser().exists():
                raise HubInvalidRef(f"The data file {p!r} does not exist; check the path (relative paths are "
                                    "taken from the current folder).", repo=p, fix="dataset:\n  data_files:\n"
                                    "    train: data/train.csv")
    dref = DatasetRef(kind="files", ref=ref or path, path=path, data_files=files, config=config, source="local",
                      token_source=source, cache_dir=cache,
                      splits={k: None for k in files} if files else {})
    import datasets

    try:
        kwargs: dict[str, Any] = {"path": path, "name": config, "streaming": True}
        if files:
            kwargs["data_files"] = files
        if cache:
            kwargs["cache_dir"] = cache
        streams = datasets.load_dataset(**kwargs)
        dref.splits = dref.splits or {k: None for k in streams}
        stream = streams[_default_split(dref.splits) or next(iter(streams))]
        rows = list(islice(iter(stream), PREVIEW_ROWS))
    except Exception as exc:
        raise HubInvalidRef(f"The data files of {dref.name!r} cannot be read ({str(exc).splitlines()[0][:160]}); "
                            "check their format (csv with a header row, json lines, or parquet).",
                            repo=dref.name, fix="dataset:\n  data_files:\n    train: data/train.csv") from None
    dref.first_rows = [_jsonable(r) for r in rows]
    feats = stream.features
    if feats is None and rows:
        feats = datasets.Dataset.from_list(rows).features
    dref.features = feats.to_dict() if feats is not None else {}
    _check_split(dref, split)
    return dref


def _check_split(dref: DatasetRef, split: str | None) -> None:
    if split and dref.splits and split not in dref.splits:
        raise _split_error(dref, split, list(dref.splits))
    dref.split = split or _default_split(dref.splits)


def _split_error(dref: DatasetRef, split: str, known: list[str]) -> HubDatasetSpecError:
    return HubDatasetSpecError(
        f"The dataset {dref.name!r}{f' (config {dref.config})' if dref.config else ''} has no split {split!r}; "
        f"use one of {', '.join(known) or 'its splits'}.", repo=dref.name, kind="split-not-found",
        fix=f"dataset:\n  train_split: {known[0] if known else 'train'}", evidence={"splits": known})


def _jsonable(value: Any, depth: int = 0) -> Any:
    """A preview-safe copy of a row: JSON types kept (long lists cut), others (images, arrays) as a tag."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Mapping) and depth < 3:
        return {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and depth < 3:
        return [_jsonable(v, depth + 1) for v in value[:64]]
    return f"<{type(value).__name__}>"


def _default_split(splits: Mapping[str, Any]) -> str | None:
    if "train" in splits:
        return "train"
    return next(iter(splits), None)


def _normalise_data_files(data_files: Any) -> dict[str, list[str]] | None:
    if not data_files:
        return None
    if isinstance(data_files, (str, os.PathLike)):
        return {"train": [str(data_files)]}
    if isinstance(data_files, Mapping):
        return {str(k): [str(v)] if isinstance(v, (str, os.PathLike)) else [str(x) for x in v]
                for k, v in data_files.items()}
    return {"train": [str(x) for x in data_files]}


def _builder_for(files: dict[str, list[str]] | None) -> str:
    for paths in (files or {}).values():
        for p in paths:
            name = p.lower().rsplit("?", 1)[0]
            for suffix, builder in DATA_SUFFIXES.items():
                if name.endswith(suffix) or name.endswith(suffix + ".gz"):
                    return builder
    raise HubInvalidRef("The data files have no known extension; use .csv, .json/.jsonl, .parquet or .txt files.",
                        fix="dataset:\n  data_files:\n    train: data/train.csv")


def _card_dict(card: Any) -> dict[str, Any]:
    if card is None:
        return {}
    if isinstance(card, Mapping):
        return dict(card)
    to_dict = getattr(card, "to_dict", None)
    return dict(to_dict()) if callable(to_dict) else {}


@contextlib.contextmanager
def _datasets_endpoint(endpoint: str | None) -> Iterator[None]:
    """datasets reads its Hub endpoint from `datasets.config.HF_ENDPOINT`; point it at `endpoint` meanwhile."""
    if not endpoint:
        yield
        return
    from datasets import config as ds_config

    saved = ds_config.HF_ENDPOINT, ds_config.HUB_DATASETS_URL
    ds_config.HF_ENDPOINT = endpoint.rstrip("/")
    ds_config.HUB_DATASETS_URL = ds_config.HF_ENDPOINT + "/datasets/{repo_id}/resolve/{revision}/{path}"
    try:
        yield
    finally:
        ds_config.HF_ENDPOINT, ds_config.HUB_DATASETS_URL = saved


# --- shared helpers ----------------------------------------------------------------------
def _fallback_note(err: HubError) -> str:
    what = "timed out" if isinstance(err, HubTimeout) else "could not be reached"
    return f"the Hub at {err.evidence.get('endpoint', 'its endpoint')} {what} ({err.evidence.get('detail', '')[:100]})"


def _timeout(timeout: float | None) -> float:
    if timeout is not None:
        return float(timeout)
    try:
        return float(os.environ.get("HF_HUB_ETAG_TIMEOUT") or DEFAULT_TIMEOUT)
    except ValueError:
        return DEFAULT_TIMEOUT


def _api(endpoint: str | None, token: str | None) -> Any:
    from huggingface_hub import HfApi

    return HfApi(endpoint=endpoint, token=token or False, library_name="hf-debug-wizard", library_version="0.1")


def _looks_like_path(ref: str) -> bool:
    return (ref.startswith((".", "/", "~")) or "\\" in ref or ref.count("/") > 1
            or Path(ref).suffix.lower() in DATA_SUFFIXES or (len(ref) > 1 and ref[1] == ":"))


def _local_path(ref: str, what: str) -> Path | None:
    p = Path(ref).expanduser()
    if p.exists():
        return p
    if _looks_like_path(ref):
        raise HubInvalidRef(f"The {what} path {ref!r} does not exist; check the folder (relative paths are "
                            "taken from the case file's folder) or give a Hub id (owner/name).", repo=ref,
                            fix=f"{what}: ./my-{what}   # a folder saved with save_pretrained / save_to_disk"
                            if what == "model" else "dataset:\n  path: ./my-dataset")
    return None


def _valid_repo_id(ref: str, what: str) -> str:
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(ref)
    except Exception as exc:  # HFValidationError
        raise HubInvalidRef(f"{ref!r} is neither an existing folder nor a valid Hub {what} id "
                            f"({str(exc).split(':')[0]}); use owner/name as shown on the Hub page.",
                            repo=ref, fix=f"{what}: owner/name") from None
    return ref


def _sibling_size(s: Any) -> int | None:
    lfs = getattr(s, "lfs", None)
    size = getattr(s, "size", None)
    if size is None and lfs is not None:
        size = lfs.get("size") if isinstance(lfs, Mapping) else getattr(lfs, "size", None)
    return size


def _list_local_files(folder: Path) -> list[FileInfo]:
    out = []
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if p.is_file() and not any(part.startswith(".") for part in Path(rel).parts):
            out.append(FileInfo(rel, p.stat().st_size))
    return out


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


def _list_hub_files(repo_id: str, revision: str | None, patterns: Sequence[str] | None, repo_type: str,
                    token: str | None, endpoint: str | None, timeout: float,
                    cache_dir: str | Path | None) -> list[FileInfo]:
    if is_offline():
        raise HubOffline(f"Offline mode is on (HF_HUB_OFFLINE=1), so the size of {repo_id!r} cannot be asked from "
                         "the Hub; unset HF_HUB_OFFLINE to see it.", repo=repo_id, fix="unset HF_HUB_OFFLINE")
    api = _api(endpoint, token)
    try:
        if patterns and not any(c in p for p in patterns for c in "*?["):
            entries = api.get_paths_info(repo_id, list(patterns), revision=revision, repo_type=repo_type,
                                         token=token or False)
        else:
            entries = list(api.list_repo_tree(repo_id, recursive=True, revision=revision, repo_type=repo_type,
                                              token=token or False))
    except Exception as exc:
        raise _as_hub_error(exc, what=repo_type, repo=repo_id, revision=revision, has_token=bool(token),
                            endpoint=endpoint, timeout=timeout) from None
    return [FileInfo(e.path, _sibling_size(e)) for e in entries if hasattr(e, "size") and hasattr(e, "blob_id")]


def _read_json(path: Path, name: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HubInvalidRef(f"The config.json of {name!r} is not valid JSON ({exc}); save the model again with "
                            "save_pretrained.", repo=name, fix="model.save_pretrained(folder)") from None
    if not isinstance(data, dict):
        raise HubInvalidRef(f"The config.json of {name!r} is not a JSON object; save the model again with "
                            "save_pretrained.", repo=name, fix="model.save_pretrained(folder)")
    return data


def _download_one(repo_id: str, filename: str, *, revision: str | None, token: str | None, endpoint: str | None,
                  cache_dir: str | None, timeout: float, what: str, local_only: bool = False,
                  progress: Progress | None = None, progress_offset: int = 0, progress_total: int = 0,
                  repo_type: str | None = None) -> str:
    """hf_hub_download with errors as HubError; byte progress through tqdm_class where the hub has it."""
    import inspect

    from huggingface_hub import hf_hub_download

    kwargs: dict[str, Any] = dict(repo_id=repo_id, filename=filename, revision=revision, cache_dir=cache_dir,
                                  token=token or False, endpoint=endpoint, etag_timeout=timeout,
                                  local_files_only=local_only or is_offline(), repo_type=repo_type)
    if progress is not None and "tqdm_class" in inspect.signature(hf_hub_download).parameters:  # hub >= 1.0
        kwargs["tqdm_class"] = _progress_tqdm(progress, filename, progress_offset, progress_total)
    try:
        return hf_hub_download(**kwargs)
    except Exception as exc:
        raise _as_hub_error(exc, what=what, repo=repo_id, revision=revision, has_token=bool(token),
                            endpoint=endpoint, timeout=timeout, filename=filename, cache_dir=cache_dir) from None


def _progress_tqdm(progress: Progress, filename: str, offset: int, total: int) -> type:
    from huggingface_hub.utils import tqdm as hf_tqdm

    class _CallbackTqdm(hf_tqdm):  # type: ignore[misc, valid-type]
        def update(self, n: float | None = 1) -> bool | None:
            out = super().update(n)
            with contextlib.suppress(Exception):
                progress(filename, offset + int(self.n), total or int(self.total or 0))
            return out

    return _CallbackTqdm


def _reset_http_sessions() -> None:
    """Drop cached HTTP sessions so a changed offline flag takes effect (0.36 mounts it per session)."""
    from huggingface_hub import utils

    for name in ("reset_sessions", "close_session"):  # 0.36, 2.x
        fn = getattr(utils, name, None)
        if callable(fn):
            with contextlib.suppress(Exception):
                fn()


def _network_error_types() -> tuple[tuple[type, ...], tuple[type, ...]]:
    """(timeout types, connection types) of whichever HTTP stacks are installed (requests, httpx, httpx2)."""
    import socket

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
    out, seen, todo = [], set(), [exc]
    while todo:
        e = todo.pop(0)
        if id(e) in seen:
            continue
        seen.add(id(e))
        out.append(e)
        todo += [c for c in (e.__cause__, e.__context__) if c is not None]
    return out


def _as_hub_error(exc: BaseException, *, what: str, repo: str, revision: str | None, has_token: bool,
                  endpoint: str | None, timeout: float | None = None, filename: str | None = None,
                  cache_dir: str | Path | None = None) -> HubError:
    """Translate huggingface_hub/datasets/network exceptions (both hub versions) into one HubError."""
    if isinstance(exc, HubError):
        return exc
    from huggingface_hub import constants, errors

    host = (endpoint or constants.ENDPOINT).rstrip("/")
    timeout = _timeout(timeout)
    page = f"{host}/{'datasets/' if what == 'dataset' else ''}{repo}"
    chain = _chain(exc)
    status = next((getattr(getattr(e, "response", None), "status_code", None) for e in chain
                   if isinstance(e, errors.HfHubHTTPError) and getattr(e, "response", None) is not None), None)
    detail = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
    ev = {"exception": type(exc).__name__, "detail": detail, "status": status, "endpoint": host}
    login = "hf auth login   # or: export HF_TOKEN=hf_..."
    if isinstance(exc, errors.GatedRepoError):
        if status == 401 or not has_token:
            return HubGated(f"The {what} {repo!r} is gated and no token was sent; accept its conditions at {page} "
                            "and log in with that account (hf auth login or HF_TOKEN).", repo=repo,
                            fix=f"# 1. open {page} and accept the conditions\n{login}", evidence=ev)
        return HubGated(f"The {what} {repo!r} is gated and this token's account has not been granted access; "
                        f"accept the conditions at {page}, wait for approval if it is manual, and retry.",
                        repo=repo, fix=f"# open {page} and accept the conditions, then retry", evidence=ev)
    if isinstance(exc, errors.RepositoryNotFoundError):
        if not has_token:
            return HubAuthRequired(f"The {what} {repo!r} was not found on {host} without a token; if it is "
                                   "private, log in (hf auth login) or set HF_TOKEN, otherwise check the id.",
                                   repo=repo, fix=login, evidence=ev)
        return HubNotFound(f"The {what} {repo!r} does not exist on {host} or this token cannot see it; check the "
                           "id (owner/name) and that the token's account has access.", repo=repo,
                           fix=f"{what}: owner/name   # copy the id from its page on {host}", evidence=ev)
    if isinstance(exc, getattr(errors, "DisabledRepoError", ())):
        return HubAccessDenied(f"The {what} {repo!r} has been disabled on {host}; use another {what}.",
                               repo=repo, kind="disabled", evidence=ev)
    if isinstance(exc, errors.RevisionNotFoundError):
        return HubRevisionNotFound(f"The revision {revision!r} does not exist in the {what} {repo!r}; use a branch, "
                                   f"tag or commit listed at {page}/tree/main, or leave revision empty for main.",
                                   repo=repo, fix="revision: main", evidence=ev)
    local_entry = getattr(errors, "LocalEntryNotFoundError", ())
    if isinstance(exc, errors.EntryNotFoundError) and not isinstance(exc, local_entry):
        return HubEntryNotFound(f"The {what} {repo!r} has no file {filename!r} at revision {revision or 'main'}; "
                                f"check the file list at {page}/tree/{revision or 'main'}.", repo=repo,
                                fix=f"# files: {page}/tree/{revision or 'main'}", evidence=ev)
    timeouts, connections = _network_error_types()
    network = None  # the first network-level exception in the chain decides (a ConnectTimeout is a timeout)
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
        return HubTimeout(f"The Hub at {host} did not answer within {timeout:g} s for the {what} {repo!r}; retry, "
                          "allow more time (HF_HUB_ETAG_TIMEOUT=60), or use the cached copy with HF_HUB_OFFLINE=1.",
                          repo=repo, fix="export HF_HUB_ETAG_TIMEOUT=60   # or HF_HUB_OFFLINE=1 with a cached copy",
                          evidence=ev)
    offline_fix = f"hf download {repo}{' --repo-type dataset' if what == 'dataset' else ''}   # once, online"
    if is_offline() or network == "offline":
        where = f" ({cache_dir or constants.HF_HUB_CACHE})"
        return HubOffline(f"The {what} {repo!r}{f' file {filename!r}' if filename else ''} is not in the local "
                          f"cache{where} and offline mode is on (HF_HUB_OFFLINE=1); run once with network access "
                          "to cache it, or unset HF_HUB_OFFLINE.", repo=repo,
                          fix=f"unset HF_HUB_OFFLINE   # or: {offline_fix}", evidence=ev)
    if status is not None and status >= 500:
        return HubUnreachable(f"The Hub at {host} answered HTTP {status} for the {what} {repo!r}; it is "
                              "probably a temporary outage, retry in a few minutes.", repo=repo,
                              fix="# retry later; status: https://status.huggingface.co", evidence=ev)
    if isinstance(exc, local_entry) or network == "unreachable":
        return HubUnreachable(f"The Hub at {host} could not be reached for the {what} {repo!r} and it is not in the "
                              "local cache; check the connection, proxy and HF_ENDPOINT, or run where the Hub is "
                              "reachable once to cache it.", repo=repo,
                              fix="curl -I https://huggingface.co   # check the connection; HF_ENDPOINT for a mirror",
                              evidence=ev)
    if status in (401, 403):
        return HubAccessDenied(f"The Hub refused access to the {what} {repo!r} (HTTP {status}); check that "
                               "the token is valid and has read access.", repo=repo, fix=login, evidence=ev)
    if isinstance(exc, getattr(errors, "HFValidationError", ())):
        return HubInvalidRef(f"{repo!r} is not a valid Hub {what} id ({detail}); use owner/name.", repo=repo,
                             fix=f"{what}: owner/name", evidence=ev)
    name = "DatasetNotFoundError"
    if any(type(e).__name__ == name for e in chain):
        return HubNotFound(f"The {what} {repo!r} was not found ({detail}); check the id, or log in if it is "
                           "private.", repo=repo, fix=login, evidence=ev)
    return HubError(f"Resolving the {what} {repo!r} failed ({type(exc).__name__}: {detail}); check the id and "
                    "the connection, then retry.", repo=repo, fix=f"{what}: owner/name", evidence=ev)
