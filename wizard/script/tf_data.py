"""What the script hands to Keras' fit(): a tf.data pipeline built from tensors that is never
batched (fit() then takes each example as a batch of its own tokens), and labels it one-hot
encodes on the way (tf.one_hot, to_categorical)."""
from __future__ import annotations

import ast
from typing import Any

from wizard.script.syntax import call_name, kwarg

SOURCES = {"from_tensor_slices", "from_tensors", "from_generator"}
BATCHING = {"batch", "padded_batch", "ragged_batch", "bucket_by_sequence_length", "rebatch"}
MAX_LINKS = 20
ONE_HOT = {"one_hot", "to_categorical"}


def read_tf_data(r: Any, fit: ast.Call) -> None:
    """Set `facts.unbatched` to (line, code) when fit()'s data is a tf.data pipeline from tensors
    with no batching step, and `training.one_hot_labels` when the script one-hot encodes. `r`
    is the script reader (wizard.script.extract.Reader)."""
    one_hot = next((c for c in r.s.calls if call_name(c) in ONE_HOT), None)
    if one_hot is not None:
        r.set("training.one_hot_labels", True, one_hot)
    if kwarg(fit, "batch_size") is not None:
        return
    expr, _ = r.s.definition(kwarg(fit, "x", 0))
    for _ in range(MAX_LINKS):
        if not isinstance(expr, ast.Call) or not isinstance(expr.func, ast.Attribute):
            return
        name = call_name(expr)
        if name in BATCHING:
            return
        if name in SOURCES:
            r.facts.unbatched = (expr.lineno, r.s.code(expr))
            return
        expr, _ = r.s.definition(expr.func.value)   # the method's receiver: one link up
