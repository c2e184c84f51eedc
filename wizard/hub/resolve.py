"""Resolve a model from the Hub or a save_pretrained folder from metadata alone: `model_info`,
config.json and the safetensors headers, never the weights.

A Hub id is read from `model_info` and its `config.json`; a local folder from its files. Offline
(`HF_HUB_OFFLINE=1`) or when the Hub cannot be reached, the ref comes from the Hub cache.
"""
from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wizard.hub.auth import resolve_token
from wizard.hub.connection import hub_api, is_offline, timeout_seconds
from wizard.hub.download import download_file, hub_file_size
from wizard.hub.errors import (
    HubEntryNotFound,
    HubError,
    HubInvalidRef,
    HubTimeout,
    HubUnreachable,
    as_hub_error,
    fallback_note,
)
from wizard.hub.refs import (
    H5_SUFFIXES,
    PICKLE_SUFFIXES,
    WEIGHT_SUFFIXES,
    FileInfo,
    ModelRef,
    list_local_files,
    local_path,
    valid_repo_id,
)
from wizard.hub.safetensors import dtype_counts, read_header
from wizard.hub.safety import ensure_remote_code_allowed


def resolve_model(ref: str, revision: str | None = None, token: str | None = None,
                  endpoint: str | None = None, *, oauth_token: Any = None,
                  cache_dir: str | Path | None = None, timeout: float | None = None) -> ModelRef:
    """Resolve a Hub id (at a branch, tag or commit) or a save_pretrained folder; no weights are
    read."""
    timeout = timeout_seconds(timeout)
    ref = (ref or "").strip()
    if not ref:
        raise HubInvalidRef("No model was given; pass a Hub id such as distilbert-base-uncased or "
                            "a folder saved with save_pretrained.",
                            fix="model: distilbert-base-uncased")
    tok, source = resolve_token(token, oauth_token)
    local = local_path(ref, what="model")
    if local is not None:
        return _local_model(ref, local, source)
    repo_id = valid_repo_id(ref, "model")
    cache = str(cache_dir) if cache_dir else None
    base: dict[str, Any] = {"kind": "hub", "ref": ref, "repo_id": repo_id, "revision": revision,
                            "endpoint": endpoint, "cache_dir": cache, "token_source": source,
                            "token": tok}
    if is_offline():
        return _cached_model(ModelRef(**base, source="cache"),
                             note="offline mode is on (HF_HUB_OFFLINE=1)")
    api = hub_api(endpoint, tok)
    try:
        info = api.model_info(repo_id, revision=revision, files_metadata=True, timeout=timeout,
                              token=tok or False)
    except Exception as exc:
        err = as_hub_error(exc, what="model", repo=repo_id, revision=revision, has_token=bool(tok),
                           endpoint=endpoint, timeout=timeout)
        if isinstance(err, (HubUnreachable, HubTimeout)):
            with contextlib.suppress(HubError):
                return _cached_model(ModelRef(**base, source="cache"), note=fallback_note(err))
        raise err from None
    mref = ModelRef(**base, source="hub", commit=info.sha, pipeline_tag=info.pipeline_tag,
                    library_name=info.library_name, private=info.private, gated=info.gated,
                    files=[FileInfo(s.rfilename, hub_file_size(s)) for s in (info.siblings or [])])
    if info.safetensors is not None:
        mref.safetensors_params = dict(info.safetensors.parameters)
        mref.num_parameters = int(info.safetensors.total)
    names = [f.path for f in mref.files]
    if names and "config.json" not in names:
        raise HubEntryNotFound(
            f"The model {repo_id!r} has no config.json (library: "
            f"{info.library_name or 'unknown'}), so it is not a transformers checkpoint; pick a "
            "transformers model or a folder saved with save_pretrained.",
            repo=repo_id, fix="model: distilbert-base-uncased   # a transformers checkpoint",
            evidence={"files": names[:20], "library_name": info.library_name})
    config_path = download_file(repo_id, "config.json", revision=revision, token=tok,
                                endpoint=endpoint, cache_dir=cache, timeout=timeout, what="model")
    mref.path = str(Path(config_path).parent)
    mref.config = _read_config_file(Path(config_path), repo_id)
    hub_config = info.config or {}
    tokenizer_config = hub_config.get("tokenizer_config") or {}
    _fill_from_config(mref, extra_auto_map=tokenizer_config.get("auto_map"))
    return mref


def load_config(model_ref: ModelRef | str, **resolve_kwargs: Any) -> dict[str, Any]:
    """The model's config.json as a dict (resolving `model_ref` first when it is a string)."""
    mref = resolve_model(model_ref, **resolve_kwargs) if isinstance(model_ref, str) else model_ref
    if mref.config:
        return dict(mref.config)
    if mref.path and (Path(mref.path) / "config.json").is_file():
        return _read_config_file(Path(mref.path) / "config.json", mref.name)
    raise HubEntryNotFound(f"No config.json is known for the model {mref.name!r}; resolve it again "
                           "with resolve_model().", repo=mref.name)


def auto_config(model_ref: ModelRef, trust_remote_code: bool = False) -> Any:
    """transformers' PretrainedConfig for the ref, from the config file alone (no network for
    local/cache)."""
    ensure_remote_code_allowed(model_ref, trust_remote_code)
    from transformers import AutoConfig

    if trust_remote_code and model_ref.kind == "hub":  # the code files may not be cached yet
        return AutoConfig.from_pretrained(model_ref.repo_id,
                                          revision=model_ref.commit or model_ref.revision,
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


def _read_config_file(path: Path, name: str) -> dict[str, Any]:
    """A config.json as a dict; HubInvalidRef when it is not a JSON object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HubInvalidRef(f"The config.json of {name!r} is not valid JSON ({exc}); save the "
                            "model again with save_pretrained.", repo=name,
                            fix="model.save_pretrained(folder)") from None
    if not isinstance(data, dict):
        raise HubInvalidRef(f"The config.json of {name!r} is not a JSON object; save the model "
                            "again with save_pretrained.", repo=name,
                            fix="model.save_pretrained(folder)")
    return data


def _local_model(ref: str, folder: Path, source: str) -> ModelRef:
    if folder.is_file():
        raise HubInvalidRef(f"{ref!r} is a file; pass the folder that holds config.json (the "
                            "folder given to save_pretrained).", repo=ref,
                            fix=f"model: {folder.parent}")
    config_path = folder / "config.json"
    if not config_path.is_file():
        raise HubEntryNotFound(f"The folder {ref!r} has no config.json; save the model there with "
                               "model.save_pretrained(folder) (and the tokenizer with "
                               "tokenizer.save_pretrained).", repo=ref,
                               fix=f'model.save_pretrained("{folder}")\n'
                                   f'tokenizer.save_pretrained("{folder}")')
    mref = ModelRef(kind="local", ref=ref, path=str(folder.resolve()), source="local",
                    token_source=source, files=list_local_files(folder),
                    config=_read_config_file(config_path, ref))
    _fill_from_config(mref)
    _local_safetensors_params(mref, folder)
    return mref


def _cached_model(mref: ModelRef, note: str) -> ModelRef:
    """The ref from the Hub cache only; HubOffline when config.json was never cached."""
    config_path = download_file(mref.repo_id or "", "config.json", revision=mref.revision,
                                token=mref.token, endpoint=mref.endpoint, cache_dir=mref.cache_dir,
                                timeout=timeout_seconds(None), what="model", local_only=True)
    folder = Path(config_path).parent
    mref.path, mref.source, mref.commit = str(folder), "cache", folder.name
    mref.config = _read_config_file(Path(config_path), mref.repo_id or "")
    mref.files, mref.files_complete = list_local_files(folder), False
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
    mref.weight_files = [n for n in names if n.endswith(WEIGHT_SUFFIXES)
                         or n.endswith(".index.json")
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
    """Parameter counts per dtype from the local safetensors headers; files that cannot be read
    are skipped."""
    headers = []
    for f in mref.files:
        p = folder / f.path
        if not f.path.endswith(".safetensors") or not p.is_file():
            continue
        try:
            headers.append(read_header(p))
        except (OSError, HubError):
            continue
    counts = dtype_counts(headers)
    if counts:
        mref.safetensors_params, mref.num_parameters = counts, sum(counts.values())
