"""Errors of the user's own training code around the model: tensor methods used on a tensor of
another layout or size (view on a non-contiguous tensor, item on a vector), a PEFT model's
generate called with positional arguments, TensorFlow variables created outside the
strategy's scope, a wrapped model used as the model, weights that do not fit the tensors they
are saved from or loaded into (a TensorFlow checkpoint of another shape too), and a name the
code never imported.
"""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature, signature_maker

_c = signature_maker(12)

# the usual imports of names that code uses as modules
_USUAL_IMPORT = {"models": "from sentence_transformers import models",
                 "losses": "from sentence_transformers import losses",
                 "util": "from sentence_transformers import util",
                 "nn": "from torch import nn", "F": "import torch.nn.functional as F",
                 "np": "import numpy as np", "pd": "import pandas as pd",
                 "tf": "import tensorflow as tf", "torch": "import torch",
                 "keras": "from tensorflow import keras", "os": "import os",
                 "datasets": "import datasets", "transformers": "import transformers"}


def refine_weight_reshape(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The saved array's own row count, when its size is a whole number of the config's rows
    (a vocabulary or label count that differs); other sizes are no config mismatch."""
    size, rows, cols = (int(ev.get(k) or 0) for k in ("size", "rows", "cols"))
    if not (size and rows and cols) or size % cols or size // cols == rows:
        return {"reject": True}
    saved = size // cols
    return {"cause": f"The saved weight holds {saved} rows of {cols}; the config builds the "
                     f"layer with {rows} (a vocabulary or label count): the checkpoint's config "
                     "and its weights disagree (a config edited after the weights were saved, "
                     "e.g. on the Hub, or the config of another checkpoint).",
            "fix": "model = TFAutoModel.from_pretrained(name, revision=\"<the commit before the "
                   f"config changed>\")\n# or a config with the saved size: "
                   f"from_pretrained(name, vocab_size={saved})   # if it is the vocabulary"}


# a wrapper's prefix on every saved key: DataParallel/DDP, torch.compile, a PEFT model
_PREFIXES = (("module.", "torch.nn.DataParallel or DistributedDataParallel",
              "state_dict = {k.removeprefix('module.'): v for k, v in state_dict.items()}\n"
              "model.load_state_dict(state_dict)   # or save model.module.state_dict() next time"),
             ("_orig_mod.", "torch.compile",
              "state_dict = {k.removeprefix('_orig_mod.'): v for k, v in state_dict.items()}\n"
              "model.load_state_dict(state_dict)   # or save model._orig_mod.state_dict()"),
             ("base_model.model.", "a PEFT model (get_peft_model)",
              "model = PeftModel.from_pretrained(base_model, adapter_dir)   # load it as the "
              "adapter it is\n# or merge first: peft_model.merge_and_unload().save_pretrained(out)"))


def refine_key_prefix(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The keys carry a wrapper's prefix on one side only: the checkpoint was saved from the
    wrapped model and is loaded into the bare one (or the other way round)."""
    key = str(ev.get("key") or ev.get("key2") or "")
    prefix = next((p for p in _PREFIXES if key.startswith(p[0])), None)
    if prefix is None:
        return {"reject": True}
    unexpected = bool(re.search(rf"[Uu]nexpected key(?:\(s\)|s)?[^\n]{{0,40}}?[\"']"
                                rf"{re.escape(prefix[0])}", parsed.text))
    saved, loaded = ("the wrapped model", "the bare one") if unexpected else \
        ("the bare model", "the wrapped one")
    return {"id": "compiled-state-dict-prefix" if prefix[0] == "_orig_mod." else
            "state-dict-key-prefix",
            "cause": f"Every key of the checkpoint {'has' if unexpected else 'lacks'} the prefix "
                     f"'{prefix[0]}' that {prefix[1]} adds: it was saved from {saved} and is "
                     f"loaded into {loaded}.",
            "fix": prefix[2] if unexpected else
            f"model.load_state_dict(state_dict)   # on the model before wrapping it in {prefix[1]}"}


def refine_undefined_name(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A NameError in the user's own code for a name the paste's code uses and never defines or
    imports (a notebook cell that did not run, an import line left out)."""
    name = str(ev.get("name", ""))
    inner = parsed.innermost_frame
    if inner is not None and not inner.is_user:
        return {"reject": True}       # library code: a version or a library bug (see env rules)
    text = parsed.text.replace(f"name '{name}' is not defined", "")
    n = re.escape(name)
    if not re.search(rf"(?<![\w.]){n}\s*(?:\.\w|\(|\[)", text):
        return {"reject": True}       # the paste does not show the code using it
    if re.search(rf"\bimport\s+[^\n]*\b{n}\b|\bas\s+{n}\b|^\s*{n}\s*[:=]|\bdef\s+{n}\b|"
                 rf"\bclass\s+{n}\b|\bfor\s+{n}\b|\bwith\s[^\n]*\bas\s+{n}\b", text, re.M):
        return {"reject": True}       # it is defined in the paste: defined later, or elsewhere
    fix = _USUAL_IMPORT.get(name)
    return {"fix": (fix + "   # at the top, and run that cell first") if fix else
            f"# define or import {name} before this line (in a notebook: run the cell that does)"}


CODE_SIGNATURES: list[Signature] = [
    _c("state-dict-key-prefix",
       r"""[Uu]nexpected key(?:\(s\)|s)?(?: in state_dict)?:? ?["']?(?P<key>(?:module|_orig_mod|"""
       r"""base_model\.model)\.[\w.]+)|Missing key\(s\) in state_dict: ["'](?P<key2>(?:module|"""
       r"""_orig_mod|base_model\.model)\.[\w.]+)""",
       "The checkpoint's keys and the model's differ by a wrapper's prefix.",
       "A wrapper (DataParallel, torch.compile, PEFT) stores the model under an attribute, so "
       "its state_dict keys start with that attribute's name.", ["model.forward"],
       "state_dict = {k.removeprefix('module.'): v for k, v in state_dict.items()}",
       title="State dict keys with a wrapper's prefix", refine=refine_key_prefix, priority=13),
    _c("missing-import",
       r"name '(?P<name>[A-Za-z_]\w*)' is not defined",
       "Your code uses a name it never defines or imports: an import line left out, or a notebook "
       "cell that defines it not run (or run in another session).",
       "Python looks a name up when the line runs; nothing defined it before.",
       ["script.read"], "# import or define it before the line that uses it",
       title="A name your code never defined", priority=6, refine=refine_undefined_name),
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
       # Python < 3.10 drops the class name; a PEFT model in the paste
       r"(?<![\w.])generate\(\) takes 1 positional argument but \d+ were given(?=[\s\S]{0,3000}?\b[Pp]eft)|"
       r"Peft\w{0,40}\.generate\(\) takes 1 positional argument but \d+ were given",
       "PeftModel.generate takes keyword arguments only; the inputs were passed positionally "
       "(model.generate(input_ids)).",
       "PEFT wraps generate as generate(*, **kwargs) to forward them to the base model.",
       ["model.adapter"], "model.generate(input_ids=input_ids, max_new_tokens=64)   # or: "
       "model.generate(**inputs)", title="PeftModel.generate with positional arguments",
       framework="pytorch", priority=14),
    _c("wrapped-model-attribute",
       r"'(?P<wrapper>DistributedDataParallel|DataParallel|DeepSpeedEngine|FullyShardedDataParallel|"
       r"OptimizedModule)' object has no attribute '(?P<attr>\w+)'",
       "The model is wrapped (by DDP, DataParallel, DeepSpeed, FSDP or torch.compile) and the "
       "code reads a method or attribute of the model itself (generate, config, "
       "save_pretrained ...) from the wrapper.",
       "A wrapper module forwards only forward(); the model's own methods live on "
       "wrapper.module (torch.compile: wrapper._orig_mod).",
       ["model.forward"],
       "unwrapped = accelerator.unwrap_model(model)   # or: model.module (DDP, DataParallel)\n"
       "unwrapped.generate(**inputs)", title="A method of the model read from its wrapper",
       framework="pytorch", priority=16),
    _c("dict-moved-to-device",
       r"'dict' object has no attribute '(?:to|cuda)'",
       "The code moves a batch with batch.to(device), and the batch is a plain dict (a "
       "collator's or a dataset's output), which has no .to().",
       "Only tensors (and transformers' BatchEncoding) have .to(); a dict of tensors moves "
       "key by key.", ["data.batch-structure"],
       "batch = {k: v.to(device) for k, v in batch.items()}",
       title="A dict of tensors moved with .to()", framework="pytorch"),
    _c("safetensors-non-contiguous",
       r"You are trying to save a non contiguous tensor",
       "Some weights are views of other memory (transposed, sliced or re-tied by the code that "
       "built or modified the model), and safetensors stores only contiguous tensors.",
       "safetensors writes each tensor's memory as it lies; a view has no contiguous storage of "
       "its own.",
       ["model.forward"],
       "for p in model.parameters():\n    p.data = p.data.contiguous()\n"
       "model.save_pretrained(out)   # or: save_pretrained(out, safe_serialization=False); "
       "Trainer: TrainingArguments(save_safetensors=False)",
       title="safetensors refuses a non-contiguous tensor", framework="pytorch"),
    _c("checkpoint-tensor-shape-mismatch",
       r"Trying to set a tensor of shape torch\.Size\(\[(?P<ckpt>[\d, ]{1,40})\]\) in \"(?P<param>"
       r"\w+)\" \(which has shape torch\.Size\(\[(?P<model>[\d, ]{1,40})\]\)\), this looks incorrect",
       "The checkpoint holds a weight of another shape than the model built to load it: it was "
       "saved after the vocabulary was resized or the head changed (num_labels), and the model "
       "is built from a config of the original size (loading on the meta device or with a "
       "device_map copies weights without a size check of its own).",
       "With low_cpu_mem_usage or a device_map, weights are set into tensors of the model's own "
       "shape; another shape is refused.",
       ["model.head-size-mismatch"],
       "model = AutoModelForCausalLM.from_pretrained(base)\n"
       "model.resize_token_embeddings(len(tokenizer))   # the size the checkpoint was saved at\n"
       "# a classifier: from_pretrained(ckpt, num_labels=N, ignore_mismatched_sizes=True)",
       title="A weight of another shape than the model's", framework="pytorch", priority=14),
    _c("checkpoint-weight-reshape-failed",
       r"cannot reshape array of size (?P<size>\d+) into shape \((?P<rows>\d+), ?(?P<cols>\d+)\)",
       "A saved weight has another number of elements than the model built to load it: the "
       "checkpoint's config and its weights disagree (a config edited after the weights were "
       "saved, e.g. on the Hub, or the config of another checkpoint).",
       "Loading reshapes each saved array into the shape the config gives the layer.",
       ["model.head-size-mismatch"],
       "model = TFAutoModel.from_pretrained(name, revision=\"<the commit before the config "
       "changed>\")   # or the config that matches the weights",
       title="A saved weight that does not fit the config", priority=12,
       refine=refine_weight_reshape,
       requires=r"from_pretrained|load_weights|load_model|checkpoint|\.h5\b|weights"),
    _c("stale-checkpoint-in-output-dir",
       r"Assign requires shapes of both tensors to match\. lhs shape= ?\[(?P<model>[\d, ]{1,40})\] "
       r"rhs shape= ?\[(?P<ckpt>[\d, ]{1,40})\]",
       "TensorFlow restored a checkpoint whose variable has another shape than the graph built "
       "now (lhs: the model, rhs: the checkpoint): most often a checkpoint an earlier run left in "
       "the output/model directory, which an Estimator restores by itself, built with another "
       "vocabulary or number of classes; or an init checkpoint of another configuration.",
       "tf.train.Saver / Estimator restore every variable by name and refuse another shape.",
       ["model.head-size-mismatch"],
       "rm -rf <output_dir>   # or a new --output_dir / model_dir for the new data\n"
       "# an init checkpoint of another config: the config (vocab_size, num_labels) it was "
       "trained with", title="A checkpoint of another shape restored", framework="tensorflow",
       priority=14),
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
