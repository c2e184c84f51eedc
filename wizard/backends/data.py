"""Load the user's dataset splits (a save_to_disk folder, data files, or a Hub id), sampled."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from wizard.core.case import CaseError, DatasetSpec
from wizard.hub.dataset import load_dataset_sample, resolve_dataset

_FILE_BUILDERS = {".csv": "csv", ".tsv": "csv", ".json": "json", ".jsonl": "json",
                  ".parquet": "parquet", ".txt": "text"}


def load_splits(spec: DatasetSpec) -> dict[str, Any]:
    """The train and eval splits, each cut to `spec.max_samples` rows."""
    import datasets

    wanted = [s for s in (spec.train_split, spec.eval_split) if s]
    path = Path(spec.path).expanduser() if spec.path else None
    if path is not None and path.is_dir() and ((path / "dataset_dict.json").exists()
                                               or (path / "dataset_info.json").exists()):
        loaded = datasets.load_from_disk(str(path))
        if isinstance(loaded, datasets.Dataset):
            loaded = datasets.DatasetDict({spec.train_split: loaded})
    elif spec.data_files:
        files = spec.data_files
        first = files if isinstance(files, str) else next(iter(
            files.values() if isinstance(files, dict) else files))
        first = first[0] if isinstance(first, list) else first
        builder = _FILE_BUILDERS.get(Path(str(first)).suffix.lower())
        if builder is None:
            raise CaseError(f"`dataset.data_files` {first!r} has an unknown type; use csv, json, "
                            "jsonl, parquet or txt files.", "dataset.data_files")
        loaded = datasets.load_dataset(builder, data_files=files)
    else:
        ref = resolve_dataset(spec.path, config=spec.config)
        return {s: load_dataset_sample(ref, s, spec.max_samples) for s in wanted}
    missing = [s for s in wanted if s not in loaded]
    if spec.train_split in missing:
        raise CaseError(f"The dataset has no split {spec.train_split!r} (splits: "
                        f"{', '.join(loaded)}); set `dataset.train_split` to one of those.",
                        "dataset.train_split")
    if missing:
        raise CaseError(f"The dataset has no split {missing[0]!r} (splits: {', '.join(loaded)}); "
                        "set `dataset.eval_split` to one of those, or to null.", "dataset.eval_split")
    return {s: loaded[s].select(range(min(spec.max_samples, len(loaded[s])))) for s in wanted}
