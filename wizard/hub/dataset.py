"""Resolve a dataset from the Hub, a save_to_disk folder, a data folder or data files, and read a
small sample of it.

A Hub dataset is described from the dataset viewer or its card before any data is downloaded;
offline (`HF_HUB_OFFLINE=1`) or when the Hub cannot be reached, from the datasets cache.
"""
from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wizard.hub.auth import resolve_token
from wizard.hub.connection import hub_api, is_offline, timeout_seconds
from wizard.hub.dataset_info import DEFAULT_VIEWER_URL, describe_from_card, describe_from_viewer
from wizard.hub.errors import (
    HubDatasetSpecError,
    HubError,
    HubInvalidRef,
    HubOffline,
    HubTimeout,
    HubUnreachable,
    as_hub_error,
    fallback_note,
)
from wizard.hub.refs import (
    DATA_SUFFIXES,
    PREVIEW_ROWS,
    DatasetRef,
    builder_for,
    default_split,
    local_path,
    normalise_data_files,
    valid_repo_id,
)

if TYPE_CHECKING:  # heavy imports stay lazy
    import datasets


def resolve_dataset(ref: str | None, config: str | None = None, split: str | None = None,
                    token: str | None = None, endpoint: str | None = None,
                    viewer_url: str | None = None, *, data_files: Any = None,
                    revision: str | None = None, oauth_token: Any = None,
                    cache_dir: str | Path | None = None,
                    timeout: float | None = None) -> DatasetRef:
    """Resolve a Hub dataset id, a save_to_disk folder, a data folder or data files
    (csv/json/parquet).

    Hub datasets are described from the dataset viewer (features, splits, first rows) before any
    data is downloaded; local ones from their files. `split` is checked when given. The viewer's
    base URL is `viewer_url`, else $WIZARD_VIEWER_URL, else https://datasets-server.huggingface.co.
    """
    timeout = timeout_seconds(timeout)
    ref = (ref or "").strip()
    tok, source = resolve_token(token, oauth_token)
    cache = str(cache_dir) if cache_dir else None
    files = normalise_data_files(data_files)
    if not ref and not files:
        raise HubInvalidRef("No dataset was given; pass a Hub id (e.g. nyu-mll/glue), a "
                            "save_to_disk folder, or data files.",
                            fix="dataset:\n  path: nyu-mll/glue\n  config: mrpc")
    if not ref or (files and ref in DATA_SUFFIXES.values()):
        return _files_dataset(ref or builder_for(files), files, split, source, cache)
    local = local_path(ref, what="dataset")
    if local is not None:
        if local.is_file():
            one = {"train": [str(local)]}
            return _files_dataset(builder_for(one), one, split, source, cache, ref=ref)
        if (local / "dataset_dict.json").is_file() or (local / "state.json").is_file():
            return _disk_dataset(ref, local, split, source)
        return _files_dataset(str(local), files, split, source, cache, ref=ref, config=config)
    repo_id = valid_repo_id(ref, "dataset")
    dref = DatasetRef(kind="hub", ref=ref, repo_id=repo_id, data_files=files, revision=revision,
                      config=config, endpoint=endpoint, cache_dir=cache, token_source=source,
                      token=tok, source="hub")
    if is_offline():
        return _cached_dataset(dref, split, note="offline mode is on (HF_HUB_OFFLINE=1)")
    api = hub_api(endpoint, tok)
    try:
        info = api.dataset_info(repo_id, revision=revision, timeout=timeout, token=tok or False)
    except Exception as exc:
        err = as_hub_error(exc, what="dataset", repo=repo_id, revision=revision,
                           has_token=bool(tok), endpoint=endpoint, timeout=timeout)
        if isinstance(err, (HubUnreachable, HubTimeout)):
            with contextlib.suppress(HubError):
                return _cached_dataset(dref, split, note=fallback_note(err))
        raise err from None
    dref.commit, dref.private, dref.gated = info.sha, info.private, info.gated
    if info.gated:  # metadata of gated repos is public; their files are not
        _check_file_access(repo_id, "dataset", [s.rfilename for s in info.siblings or []],
                           info.sha, tok, endpoint, timeout)
    if revision not in (None, "main") or files:
        dref.viewer_error = ("the dataset viewer describes the main branch without custom "
                             "data_files only")
    else:
        try:
            describe_from_viewer(dref, viewer_url or os.environ.get("WIZARD_VIEWER_URL")
                                 or DEFAULT_VIEWER_URL, timeout)
        except HubDatasetSpecError:
            raise
        except HubError as exc:
            dref.viewer, dref.viewer_error = False, exc.message
    if files:
        dref.splits = {k: None for k in files}
    elif not dref.viewer:
        describe_from_card(dref, info.card_data)
    _check_split(dref, split)
    return dref


def load_dataset_sample(ref: DatasetRef, split: str | None = None,
                        max_samples: int = 512) -> datasets.Dataset:
    """The first `max_samples` rows of a split as a `datasets.Dataset`, streaming so only they are
    read."""
    import datasets

    split = split or ref.split or default_split(ref.splits) or "train"
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
    kwargs: dict[str, Any] = {"split": split, "streaming": True}
    if ref.kind == "hub":
        kwargs.update(path=ref.repo_id, name=ref.config, revision=ref.revision,
                      token=ref.token or None)
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
            known = str(exc).split("Available splits:")[-1] \
                if "Available splits:" in str(exc) else ""
            names = [n.strip(" '[]\"") for n in known.split(",") if n.strip(" '[]\"")] \
                or list(ref.splits)
            raise _split_error(ref, split, names) from None
        if ref.kind != "hub":
            first = str(exc).splitlines()[0][:160] if str(exc) else ""
            raise HubInvalidRef(f"The data of {ref.name!r} cannot be read ({type(exc).__name__}: "
                                f"{first}); check that the files still exist and are csv with a "
                                "header row, json lines or parquet.", repo=ref.name,
                                fix="dataset:\n  data_files:\n    train: data/train.csv") from None
        raise as_hub_error(exc, what="dataset", repo=ref.name, revision=ref.revision,
                           has_token=bool(ref.token), endpoint=ref.endpoint) from None
    if features is None and ref.features and rows and set(ref.features) == set(rows[0]):
        with contextlib.suppress(Exception):
            features = datasets.Features.from_dict(ref.features)
    try:
        return datasets.Dataset.from_list(rows, features=features)
    except Exception:
        return datasets.Dataset.from_list(rows)


def _check_file_access(repo_id: str, repo_type: str, names: list[str], revision: str | None,
                       token: str | None, endpoint: str | None, timeout: float) -> None:
    """HEAD one small file (README.md first) so a gated repo says so before any data is
    requested."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    name = "README.md" if "README.md" in names else (names[0] if names else None)
    if name is None:
        return
    url = hf_hub_url(repo_id, name, repo_type=repo_type, revision=revision, endpoint=endpoint)
    try:
        get_hf_file_metadata(url, token=token or False, timeout=timeout)
    except Exception as exc:
        raise as_hub_error(exc, what=repo_type, repo=repo_id, revision=revision,
                           has_token=bool(token), endpoint=endpoint, timeout=timeout,
                           filename=name) from None


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
        fix = (f"hf download {dref.repo_id} --repo-type dataset   # once, online; or unset "
               "HF_HUB_OFFLINE")
        if is_offline():
            raise HubOffline(f"The dataset {dref.repo_id!r} is not in the local datasets cache and "
                             "offline mode is on (HF_HUB_OFFLINE=1); load it once with network "
                             "access, or unset HF_HUB_OFFLINE.", repo=dref.repo_id, fix=fix,
                             evidence={"detail": str(exc).splitlines()[0][:200]}) from None
        raise HubUnreachable(f"{note.rstrip('.')}, and the dataset {dref.repo_id!r} is not in the "
                             "local cache either; check the connection or load it once online.",
                             repo=dref.repo_id, fix=fix) from None
    dref.source, dref.config = "cache", builder.config.name
    if builder.info.features is not None:
        dref.features = builder.info.features.to_dict()
    dref.splits = {k: v.num_examples for k, v in (builder.info.splits or {}).items()}
    dref.notes.append(f"resolved from the datasets cache: {note}")
    _check_split(dref, split)
    return dref


def _disk_dataset(ref: str, folder: Path, split: str | None, source: str) -> DatasetRef:
    described = _describe_saved(folder)  # its own files: no `datasets` import (about 0.6 s)
    if described is not None:
        splits, features, rows = described
        dref = DatasetRef(kind="disk", ref=ref, path=str(folder.resolve()), source="local",
                          token_source=source, splits=splits)
        dref.features, dref.first_rows = features, [_jsonable(r) for r in rows]
        _check_split(dref, split)
        return dref
    import datasets

    try:
        obj = datasets.load_from_disk(str(folder))
    except Exception as exc:
        raise HubInvalidRef(f"The folder {ref!r} looks like a save_to_disk folder but cannot be "
                            f"loaded ({str(exc).splitlines()[0][:120]}); save it again with "
                            "dataset.save_to_disk(folder).", repo=ref,
                            fix=f'dataset.save_to_disk("{folder}")') from None
    parts = dict(obj) if isinstance(obj, datasets.DatasetDict) else {"train": obj}
    dref = DatasetRef(kind="disk", ref=ref, path=str(folder.resolve()), source="local",
                      token_source=source, splits={k: len(v) for k, v in parts.items()})
    first = parts[default_split(dref.splits) or next(iter(parts))]
    dref.features = first.features.to_dict()
    dref.first_rows = [_jsonable(dict(r))
                       for r in first.select(range(min(PREVIEW_ROWS, len(first))))]
    _check_split(dref, split)
    return dref


def _describe_saved(folder: Path) -> tuple[dict[str, int], dict[str, Any], list[dict]] | None:
    """A save_to_disk folder read from its own files (dataset_dict.json, each split's
    dataset_info.json, state.json and Arrow files): the row count of each split, the features
    and the first rows of the default split; None when the layout is not the usual one."""
    try:
        import pyarrow as pa

        listing = folder / "dataset_dict.json"
        names = json.loads(listing.read_text())["splits"] if listing.is_file() else None
        dirs = {n: folder / n for n in names} if names else {"train": folder}
        splits: dict[str, int] = {}
        heads: dict[str, Any] = {}
        for name, d in dirs.items():
            splits[name] = 0
            for entry in json.loads((d / "state.json").read_text())["_data_files"]:
                for batch in pa.ipc.open_stream(pa.memory_map(str(d / entry["filename"]))):
                    splits[name] += batch.num_rows  # memory-mapped: the data is not read
                    if batch.num_rows and name not in heads:
                        heads[name] = batch
        first = default_split(splits) or next(iter(splits))
        features = json.loads((dirs[first] / "dataset_info.json").read_text())["features"]
        head = heads.get(first)
        rows = head.slice(0, PREVIEW_ROWS).to_pylist() if head is not None else []
        return splits, features, rows
    except Exception:  # noqa: BLE001  (another layout: datasets reads it)
        return None


def _files_dataset(path: str, files: dict[str, list[str]] | None, split: str | None, source: str,
                   cache: str | None, ref: str | None = None,
                   config: str | None = None) -> DatasetRef:
    """Data files (csv/json/parquet/text) or a folder of them, described by streaming a few rows."""
    for paths in (files or {}).values():
        for p in paths:
            if "://" not in p and not any(c in p for c in "*?[") \
                    and not Path(p).expanduser().exists():
                raise HubInvalidRef(f"The data file {p!r} does not exist; check the path (relative "
                                    "paths are taken from the current folder).", repo=p,
                                    fix="dataset:\n  data_files:\n    train: data/train.csv")
    dref = DatasetRef(kind="files", ref=ref or path, path=path, data_files=files, config=config,
                      source="local", token_source=source, cache_dir=cache,
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
        stream = streams[default_split(dref.splits) or next(iter(streams))]
        rows = list(islice(iter(stream), PREVIEW_ROWS))
    except Exception as exc:
        raise HubInvalidRef(f"The data files of {dref.name!r} cannot be read "
                            f"({str(exc).splitlines()[0][:160]}); check their format (csv with a "
                            "header row, json lines, or parquet).", repo=dref.name,
                            fix="dataset:\n  data_files:\n    train: data/train.csv") from None
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
    dref.split = split or default_split(dref.splits)


def _split_error(dref: DatasetRef, split: str, known: list[str]) -> HubDatasetSpecError:
    return HubDatasetSpecError(
        f"The dataset {dref.name!r}{f' (config {dref.config})' if dref.config else ''} has no "
        f"split {split!r}; use one of {', '.join(known) or 'its splits'}.", repo=dref.name,
        kind="split-not-found", fix=f"dataset:\n  train_split: {known[0] if known else 'train'}",
        evidence={"splits": known})


def _jsonable(value: Any, depth: int = 0) -> Any:
    """A preview-safe copy of a row: JSON types kept (long lists cut), others (images, arrays) as
    a tag."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Mapping) and depth < 3:
        return {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and depth < 3:
        return [_jsonable(v, depth + 1) for v in value[:64]]
    return f"<{type(value).__name__}>"


@contextlib.contextmanager
def _datasets_endpoint(endpoint: str | None) -> Iterator[None]:
    """datasets reads its Hub endpoint from `datasets.config.HF_ENDPOINT`; point it at `endpoint`
    meanwhile."""
    if not endpoint:
        yield
        return
    from datasets import config as ds_config

    saved = ds_config.HF_ENDPOINT, ds_config.HUB_DATASETS_URL
    ds_config.HF_ENDPOINT = endpoint.rstrip("/")
    ds_config.HUB_DATASETS_URL = (ds_config.HF_ENDPOINT
                                  + "/datasets/{repo_id}/resolve/{revision}/{path}")
    try:
        yield
    finally:
        ds_config.HF_ENDPOINT, ds_config.HUB_DATASETS_URL = saved
