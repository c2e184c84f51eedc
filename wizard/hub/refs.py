"""What a reference is: a Hub id, a local folder, or data files; and the resolved `ModelRef` /
`DatasetRef` that every source gives, in the same shape."""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from wizard.hub.errors import HubInvalidRef
from wizard.hub.safetensors import SAFETENSORS_DTYPE_BYTES

DATA_SUFFIXES = {".csv": "csv", ".tsv": "csv", ".json": "json", ".jsonl": "json", ".ndjson": "json",
                 ".parquet": "parquet", ".txt": "text", ".arrow": "arrow"}
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
H5_SUFFIXES = (".h5",)
WEIGHT_SUFFIXES = (".safetensors",) + PICKLE_SUFFIXES + H5_SUFFIXES + (".msgpack",)
PREVIEW_ROWS = 5  # the first rows a DatasetRef keeps


@dataclass
class FileInfo:
    path: str
    size: int | None = None


@dataclass
class ModelRef:
    """A resolved model. `location` is what to pass to from_pretrained; the token never
    serialises."""

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
        """Bytes of the parameters as stored, from the safetensors dtype counts (None when
        unknown)."""
        if not self.safetensors_params:
            return None
        return sum(n * SAFETENSORS_DTYPE_BYTES.get(d, 4)
                   for d, n in self.safetensors_params.items())

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
    splits: dict[str, int | None] = field(default_factory=dict)  # split -> num_examples or None
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


def default_split(splits: Mapping[str, Any]) -> str | None:
    """The "train" split when there is one, else the first split, else None."""
    if "train" in splits:
        return "train"
    return next(iter(splits), None)


# --- reading a reference -----------------------------------------------------------------
def looks_like_path(ref: str) -> bool:
    """Whether `ref` is written as a path (./x, /x, ~/x, a/b/c, C:..., x.csv), not a Hub id."""
    return (ref.startswith((".", "/", "~")) or "\\" in ref or ref.count("/") > 1
            or Path(ref).suffix.lower() in DATA_SUFFIXES or (len(ref) > 1 and ref[1] == ":"))


def local_path(ref: str, what: str) -> Path | None:
    """The existing file or folder `ref` names; None for a Hub id; HubInvalidRef for a path that
    does not exist."""
    p = Path(ref).expanduser()
    if p.exists():
        return p
    if looks_like_path(ref):
        raise _missing_path(ref, what)
    return None


def hub_id(ref: str, what: str) -> str:
    """`ref` as a Hub id (not looked up); HubInvalidRef when it is a path or no valid id."""
    if looks_like_path(ref):
        raise _missing_path(ref, what)
    return valid_repo_id(ref, what)


def _missing_path(ref: str, what: str) -> HubInvalidRef:
    fix = (f"{what}: ./my-{what}   # a folder saved with save_pretrained / save_to_disk"
           if what == "model" else "dataset:\n  path: ./my-dataset")
    return HubInvalidRef(f"{ref!r} is neither a local folder nor a Hub {what} id: that path does "
                         "not exist; check the folder (relative paths are taken from the case "
                         "file's folder) or give a Hub id (owner/name).", repo=ref, fix=fix)


def valid_repo_id(ref: str, what: str) -> str:
    """`ref` when it is a valid Hub id (owner/name or name); HubInvalidRef otherwise."""
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(ref)
    except Exception as exc:  # HFValidationError
        raise HubInvalidRef(f"{ref!r} is neither an existing folder nor a valid Hub {what} id "
                            f"({str(exc).split(':')[0]}); use owner/name as shown on the Hub page.",
                            repo=ref, fix=f"{what}: owner/name") from None
    return ref


def list_local_files(folder: Path) -> list[FileInfo]:
    """Every file under `folder` with its size, hidden files and folders left out."""
    out = []
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if p.is_file() and not any(part.startswith(".") for part in Path(rel).parts):
            out.append(FileInfo(rel, p.stat().st_size))
    return out


def normalise_data_files(data_files: Any) -> dict[str, list[str]] | None:
    """data_files as {split: [paths]}: a path or a list of paths is the train split."""
    if not data_files:
        return None
    if isinstance(data_files, (str, os.PathLike)):
        return {"train": [str(data_files)]}
    if isinstance(data_files, Mapping):
        return {str(k): [str(v)] if isinstance(v, (str, os.PathLike)) else [str(x) for x in v]
                for k, v in data_files.items()}
    return {"train": [str(x) for x in data_files]}


def builder_for(files: dict[str, list[str]] | None) -> str:
    """The datasets loader (csv, json, parquet, text, arrow) for the data files' extension."""
    for paths in (files or {}).values():
        for p in paths:
            name = p.lower().rsplit("?", 1)[0]
            for suffix, builder in DATA_SUFFIXES.items():
                if name.endswith((suffix, suffix + ".gz")):
                    return builder
    raise HubInvalidRef("The data files have no known extension; use .csv, .json/.jsonl, .parquet "
                        "or .txt files.", fix="dataset:\n  data_files:\n    train: data/train.csv")
