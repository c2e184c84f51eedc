"""What a Hub dataset holds, before any data is downloaded: configs, splits, features and first
rows from the dataset viewer (/splits, /info, /first-rows), or from the dataset card when the
viewer cannot say."""
from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from wizard.hub.errors import HubDatasetSpecError, HubError, as_hub_error
from wizard.hub.refs import PREVIEW_ROWS, DatasetRef, default_split

DEFAULT_VIEWER_URL = "https://datasets-server.huggingface.co"


def describe_from_viewer(dref: DatasetRef, viewer_url: str, timeout: float) -> None:
    """Configs, splits, features, sizes and first rows from the dataset viewer's /splits, /info
    and /first-rows; HubError when the viewer cannot say."""
    base = viewer_url.rstrip("/")
    name = dref.repo_id or ""
    splits = _viewer_get(f"{base}/splits", {"dataset": name}, dref, timeout).get("splits") or []
    if not splits:
        raise HubError(f"The dataset viewer has no splits for {name!r} yet; the wizard reads the "
                       "data itself instead.", repo=name, kind="viewer-unavailable")
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
    preview = default_split(dref.splits)
    if preview:
        with contextlib.suppress(HubError):
            params = {"dataset": name, "config": dref.config, "split": preview}
            rows = _viewer_get(f"{base}/first-rows", params, dref, timeout).get("rows") or []
            dref.first_rows = [r.get("row", {}) for r in rows[:PREVIEW_ROWS]]


def _viewer_get(url: str, params: dict[str, Any], dref: DatasetRef,
                timeout: float) -> dict[str, Any]:
    from huggingface_hub.utils import get_session

    headers = {"Authorization": f"Bearer {dref.token}"} if dref.token else {}
    try:
        r = get_session().get(url, params=params, headers=headers, timeout=timeout)
    except Exception as exc:
        raise as_hub_error(exc, what="dataset", repo=dref.repo_id or "", revision=None,
                           has_token=bool(dref.token), endpoint=url.rsplit("/", 1)[0],
                           timeout=timeout) from None
    if r.status_code != 200:
        try:
            detail = r.json().get("error")
        except Exception:
            detail = None
        raise HubError(f"The dataset viewer answered HTTP {r.status_code} for {dref.repo_id!r} "
                       f"({detail or r.headers.get('X-Error-Code') or 'no detail'}); the wizard "
                       "reads the data itself instead.", repo=dref.repo_id,
                       kind="viewer-unavailable")
    return r.json()


def _pick_config(dref: DatasetRef, configs: list[str]) -> str | None:
    if dref.config:
        if configs and dref.config not in configs:
            raise HubDatasetSpecError(
                f"The dataset {dref.name!r} has no config {dref.config!r}; use one of "
                f"{', '.join(configs[:10])}.", repo=dref.name, kind="config-not-found",
                fix=f"dataset:\n  config: {configs[0]}", evidence={"configs": configs})
        return dref.config
    if len(configs) == 1:
        return configs[0]
    if "default" in configs:
        return "default"
    if configs:
        raise HubDatasetSpecError(
            f"The dataset {dref.name!r} has {len(configs)} configs ({', '.join(configs[:10])}); "
            "choose one with dataset.config.", repo=dref.name, kind="config-required",
            fix=f"dataset:\n  config: {configs[0]}", evidence={"configs": configs})
    return None


def describe_from_card(dref: DatasetRef, card_data: Any) -> None:
    """Features and splits from the dataset card's `dataset_info`, when the viewer could not say."""
    card = _card_dict(card_data)
    infos = card.get("dataset_info")
    infos = infos if isinstance(infos, list) else [infos] if isinstance(infos, dict) else []
    names = [c.get("config_name", "default") for c in card.get("configs") or []
             if isinstance(c, dict)]
    names += [i.get("config_name", "default") for i in infos
              if i.get("config_name", "default") not in names]
    dref.configs = names
    if names:
        dref.config = _pick_config(dref, names)
    for i in infos:
        if i.get("config_name", "default") != (dref.config or "default"):
            continue
        feats = i.get("features") or []
        if isinstance(feats, list):  # card form: [{name, dtype}] -> Features.to_dict() form
            dref.features = {f["name"]: {"dtype": f["dtype"], "_type": "Value"}
                             if isinstance(f.get("dtype"), str) else f.get("dtype")
                             for f in feats if "name" in f}
        for s in i.get("splits") or []:
            dref.splits[s.get("name")] = s.get("num_examples")
        dref.download_bytes = i.get("download_size")


def _card_dict(card: Any) -> dict[str, Any]:
    """The card's YAML metadata as a dict, whatever form huggingface_hub gives it in."""
    if card is None:
        return {}
    if isinstance(card, Mapping):
        return dict(card)
    to_dict = getattr(card, "to_dict", None)
    return dict(to_dict()) if callable(to_dict) else {}
