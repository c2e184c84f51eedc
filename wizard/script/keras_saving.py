"""Keras saving of a whole transformers model to HDF5: transformers' TF models are subclassed
Keras models, which the HDF5 format cannot hold (only their weights)."""
from __future__ import annotations

import ast
from typing import Any

from wizard.script.syntax import call_name, kwarg

_H5 = (".h5", ".hdf5")


def read_keras_saving(r: Any) -> None:
    """Set `facts.h5_whole_model` to (line, code) of a ModelCheckpoint or model.save() that
    writes the whole model to an .h5 file, in a Keras script on a transformers model. `r` is
    the script reader (wizard.script.extract.Reader)."""
    if r.facts.entry != "keras" or not r.facts.model_is_transformers:
        return
    for call in r.s.calls:
        name = call_name(call)
        if name == "ModelCheckpoint":
            path = kwarg(call, "filepath", 0)
            weights = kwarg(call, "save_weights_only", 5)
        elif name == "save" and isinstance(call.func, ast.Attribute):
            path, weights = kwarg(call, "filepath", 0), None
            fmt = kwarg(call, "save_format", 2)
            if fmt is not None and r.val(fmt) == "tf":
                continue
        else:
            continue
        target = r.val(path) if path is not None else None
        if isinstance(target, str) and target.lower().endswith(_H5) and \
                (weights is None or r.val(weights) is not True):
            r.facts.h5_whole_model = (call.lineno, r.s.code(call))
            return
