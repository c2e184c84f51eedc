"""`num_labels` counted from the dataset's own class names, as the course writes it:

    label_names = raw_datasets["train"].features["ner_tags"].feature.names
    model = AutoModelForTokenClassification.from_pretrained(ckpt, num_labels=len(label_names))
    # or id2label={i: name for i, name in enumerate(label_names)}

The script is never run: the column is read from the expression, and the names from the
features that `save_to_disk` wrote next to a local dataset (dataset_info.json), without loading
the data. A Hub dataset stays a question.
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

from wizard.script.syntax import ScriptAST, call_name

_MAX_STEPS = 12


def label_feature_column(s: ScriptAST, node: ast.AST | None) -> str | None:
    """The column whose ClassLabel names `node` counts or enumerates (None: something else)."""
    for _ in range(_MAX_STEPS):
        if isinstance(node, ast.Name):
            node, _binding = s.definition(node)
        elif isinstance(node, ast.Call) and call_name(node) in ("len", "enumerate", "list", "dict",
                                                                "zip") and node.args:
            node = node.args[0] if call_name(node) != "zip" or len(node.args) < 2 else node.args[1]
        elif isinstance(node, (ast.DictComp, ast.ListComp, ast.SetComp)):
            node = node.generators[0].iter
        elif isinstance(node, ast.Attribute) and node.attr in ("names", "feature"):
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "features":
            key = node.slice
            return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) \
                else None
        else:
            return None
    return None


def saved_class_names(path: str | None, split: str, column: str) -> list[str] | None:
    """The ClassLabel names of `column` (or of its sequence's items) in a dataset saved with
    save_to_disk at `path`; None when it is not such a folder or the column has none."""
    if not path:
        return None
    folder = Path(path)
    for info in (folder / split / "dataset_info.json", folder / "dataset_info.json"):
        if info.is_file():
            try:
                features = json.loads(info.read_text(encoding="utf-8")).get("features") or {}
            except (OSError, ValueError):
                return None
            feature = features.get(column) if isinstance(features, dict) else None
            while isinstance(feature, dict) and "feature" in feature:
                feature = feature["feature"]
            names = feature.get("names") if isinstance(feature, dict) else None
            return list(names) if isinstance(names, list) and names else None
    return None
