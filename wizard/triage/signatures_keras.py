"""Keras errors of building, saving and loading models around a pretrained layer: classes Keras
does not know when it loads a model, tensors of two Keras implementations in one model, and
weights read from a layer that was never built."""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature


def refine_unbuilt_weights(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """An IndexError on a line reading a layer's weights by index: only when that line is the
    failing one (the innermost frame's code, or the line the notebook arrow points at)."""
    inner = parsed.innermost_frame
    line = (inner.code if inner is not None else "") or ""
    arrow = re.search(r"^-+> ?\d+ (?P<code>.*)$", parsed.text, re.M)
    code = line or (arrow.group("code") if arrow else "")
    if not re.search(r"\.(?:weights|trainable_weights|variables|trainable_variables)\s*\[|"
                     r"\.get_weights\(\)\s*\[", code):
        return {"reject": True}
    return None


KERAS_SIGNATURES: list[Signature] = [
    Signature(
        "keras-custom-objects-on-load",
        r"Unknown (?:layer|object|loss|metric|optimizer|activation)(?: type| function)?:? "
        r"'?(?P<name>\w+)'?\. Please ensure "
        r"(?:this object|you are using a `keras\.utils\.custom_object_scope`)|"
        # older Keras: "ValueError: Unknown layer: TokenEmbedding"; a reporter's own words
        r"(?m:Unknown (?:layer|loss|metric|activation(?: function)?): ?'?(?P<name2>\w+)'?\s*$)|"
        r"\bmiss(?:ing)? the custom (?:layer|object) '?(?P<name3>\w+)",
        "The saved Keras model contains a class Keras does not know at load time (a transformers "
        "layer such as TFBertMainLayer, a layer of the library that built the model, or your own "
        "layer/loss).",
        "load_model rebuilds each layer by class name; classes outside Keras must be passed in.",
        ["model.forward"],
        "model.save_pretrained('out'); model = TFAutoModelForSequenceClassification."
        "from_pretrained('out')\n# or: tf_keras.models.load_model(path, custom_objects="
        "{'TFBertMainLayer': TFBertMainLayer})   # import the layers of the library that built it",
        title="Unknown layer on load_model", framework="tensorflow", priority=11),
    Signature(
        "keras-and-tf-keras-mixed",
        r"'tuple' object has no attribute 'layer'|'Tensor' object has no attribute "
        r"'_keras_history'",
        "Standalone Keras and tf.keras are mixed in one model: a library built its layers with "
        "one implementation and your code adds layers of the other, which does not understand "
        "their tensors.",
        "Each Keras implementation records a tensor's history its own way; a tensor of the other "
        "one has none it can read.",
        ["model.forward"],
        "import os; os.environ['TF_KERAS'] = '1'   # before importing keras-bert (and friends): "
        "build on tf.keras\nfrom tensorflow import keras   # and use this keras everywhere",
        title="keras and tf.keras in one model", framework="tensorflow", priority=12),
    Signature(
        "weights-loaded-before-build",
        r"IndexError: list index out of range",
        "The weights were read from (or loaded into) a Keras layer before it was built: a layer "
        "creates its weights only when it first sees an input shape, so its weight list is "
        "still empty.",
        "Keras builds a layer on its first call or model.build(); until then .weights is [].",
        ["model.forward"],
        "model.build(input_shape=(None, max_seq_len))   # or one call: layer(tf.zeros((1, 128)))"
        "\n# then load the weights",
        title="Weights of a layer that was never built", framework="tensorflow", priority=8,
        refine=refine_unbuilt_weights),
]
