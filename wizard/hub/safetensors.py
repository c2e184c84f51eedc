"""Safetensors headers, local or on the Hub: tensor names, dtypes and shapes without the tensors.

A .safetensors file starts with an 8-byte little-endian header length, then that many bytes of
JSON: {tensor name: {"dtype", "shape", "data_offsets"}, "__metadata__": {...}}. On the Hub the
headers are read with HTTP range requests (`HfApi.get_safetensors_metadata`).
"""
from __future__ import annotations

import json
import math
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from wizard.hub.auth import resolve_token
from wizard.hub.connection import hub_api
from wizard.hub.errors import HubInvalidRef, as_hub_error

MAX_HEADER_BYTES = 100_000_000  # the safetensors library's own limit on the header length
SAFETENSORS_DTYPE_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2,
                           "I8": 1, "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}
INDEX_FILE = "model.safetensors.index.json"
SINGLE_FILE = "model.safetensors"

Header = dict[str, Any]
"""A parsed header: {tensor name: {"dtype": ..., "shape": [...], ...}, "__metadata__": {...}}."""


def read_header(path: str | Path) -> Header:
    """The JSON header of a local .safetensors file; HubInvalidRef when it is not one.

    Only the header is read. OSError (a missing or unreadable file) passes through.
    """
    with open(path, "rb") as fh:
        head = fh.read(8)
        if len(head) != 8:
            raise HubInvalidRef(f"{path} is too short to be a safetensors file; re-save the model.",
                                repo=str(path), fix="model.save_pretrained(folder)")
        (size,) = struct.unpack("<Q", head)
        if size > MAX_HEADER_BYTES:
            raise HubInvalidRef(f"{path} has a {size}-byte header, which is not a safetensors "
                                "header; re-save the model with save_pretrained().",
                                repo=str(path), fix="model.save_pretrained(folder)")
        raw = fh.read(size)
    try:
        header = json.loads(raw)
    except ValueError:
        header = None
    if not isinstance(header, dict):
        raise HubInvalidRef(f"{path} has a header that is not JSON; re-save the model with "
                            "save_pretrained().", repo=str(path),
                            fix="model.save_pretrained(folder)")
    return header


def weight_files(folder: str | Path) -> list[Path]:
    """The safetensors files a save_pretrained folder loads: the shards its index names (which may
    be missing), else model.safetensors, else none."""
    folder = Path(folder)
    index = folder / INDEX_FILE
    if index.is_file():
        weight_map = json.loads(index.read_text()).get("weight_map", {})
        return [folder / f for f in sorted(set(weight_map.values()))]
    single = folder / SINGLE_FILE
    return [single] if single.is_file() else []


def hub_headers(repo_id: str, revision: str | None = None, endpoint: str | None = None,
                token: str | bool | None = None) -> dict[str, Header]:
    """{filename: header} of a Hub model's safetensors files, by HTTP range requests only.

    HfApi.get_safetensors_metadata has the same signature in huggingface_hub 0.36 and 2.x: its
    files_metadata[name].tensors hold dtype and shape. Failures are HubErrors.
    """
    tok = resolve_token(token)[0]
    try:
        meta = hub_api(endpoint, tok).get_safetensors_metadata(repo_id, revision=revision)
    except Exception as exc:
        raise as_hub_error(exc, what="model", repo=repo_id, revision=revision,
                           has_token=bool(tok), endpoint=endpoint) from None
    return {fname: {name: {"dtype": t.dtype, "shape": list(t.shape)}
                    for name, t in fm.tensors.items()}
            for fname, fm in meta.files_metadata.items()}


def dtype_counts(headers: Iterable[Header]) -> dict[str, int]:
    """Elements per dtype of every tensor in the headers, as the Hub's model_info counts them."""
    counts: dict[str, int] = {}
    for header in headers:
        for name, t in header.items():
            if name != "__metadata__" and isinstance(t, dict):
                dtype = t.get("dtype", "?")
                counts[dtype] = counts.get(dtype, 0) + math.prod(int(d) for d in t.get("shape", []))
    return counts
