"""Errors of the user's own training code around the model: tensor methods used on a tensor of
another layout or size (view on a non-contiguous tensor, item on a vector), a PEFT model's
generate called with positional arguments, and TensorFlow variables created outside the
strategy's scope.
"""
from __future__ import annotations

from wizard.triage.signature import Signature, signature_maker

_c = signature_maker(12)


CODE_SIGNATURES: list[Signature] = [
    _c("view-on-non-contiguous",
       r"view size is not compatible with input tensor's size and stride",
       "Code calls .view() on a tensor whose memory is not contiguous (after transpose, permute "
       "or a slice): an own forward or loss, or an older library release doing so.",
       ".view() reinterprets memory without copying and needs a contiguous layout.",
       ["model.forward"], "x = x.reshape(batch, -1)   # or: x.contiguous().view(batch, -1)",
       title="view() on a non-contiguous tensor", framework="pytorch"),
    _c("item-on-non-scalar",
       r"a Tensor with (?P<n>\d+) elements cannot be converted to Scalar|only one element tensors "
       r"can be converted to Python scalars",
       "`.item()` (or float()) was called on a tensor with several values: a per-example loss "
       "(reduction='none'), or one loss per GPU gathered by DataParallel.",
       "Only a one-element tensor has a Python scalar value.", ["model.forward"],
       "loss = loss.mean()   # then loss.item()", title="item() on a tensor of several values",
       framework="pytorch"),
    _c("peft-generate-positional-args",
       r"Peft\w{0,40}\.generate\(\) takes 1 positional argument but \d+ were given",
       "PeftModel.generate takes keyword arguments only; the inputs were passed positionally "
       "(model.generate(input_ids)).",
       "PEFT wraps generate as generate(*, **kwargs) to forward them to the base model.",
       ["model.adapter"], "model.generate(input_ids=input_ids, max_new_tokens=64)   # or: "
       "model.generate(**inputs)", title="PeftModel.generate with positional arguments",
       framework="pytorch", priority=14),
    _c("tf-strategy-scope-mismatch",
       r"Trying to create optimizer slot variable under the scope for tf\.distribute\.Strategy|"
       r"Mixing different tf\.distribute\.Strategy objects|"
       r"was not created in the distribution strategy scope of",
       "The model (or its optimizer) was created outside strategy.scope() while training runs "
       "under a tf.distribute strategy (TPU, MirroredStrategy), or two strategies are mixed.",
       "Variables belong to the strategy whose scope created them.", ["model.forward"],
       "with strategy.scope():\n    model = TFAutoModelForSequenceClassification.from_pretrained("
       "ckpt)\n    model.compile(optimizer=tf.keras.optimizers.Adam(3e-5))",
       title="Created outside the strategy's scope", framework="tensorflow"),
]
