"""Refine functions: a signature's evidence -> a more precise cause, checks or fix.

Each takes the evidence found in the paste (and may add numbers to it) and the parsed error;
it returns {"cause", "probes", "fix"} overrides, or None to keep the signature's own.
"""
from __future__ import annotations

import math
import re
from typing import Any, Callable

from wizard.triage.normalize import to_int
from wizard.triage.parse import ParsedError
from wizard.triage.paths import PUBLIC_DATASETS, PUBLIC_METRICS, is_local_path

Refine = Callable[[dict, ParsedError], "dict[str, Any] | None"]


def _shape(s: Any) -> list[int] | None:
    """'2, 768' (or an int already converted) -> [2, 768]."""
    if isinstance(s, int) and not isinstance(s, bool):
        return [s]
    if not isinstance(s, str):
        return None
    nums = [to_int(x) for x in re.split(r"[,\sx]+", s.strip()) if x]
    return [n for n in nums if n is not None] if nums and all(n is not None for n in nums) else None


_BYTES = {"b": 1, "bytes": 1, "kib": 2**10, "kb": 10**3, "mib": 2**20, "mb": 10**6,
          "gib": 2**30, "gb": 10**9, "tib": 2**40, "tb": 10**12}


def _mib(size: Any) -> float | None:
    """'20.00 MiB' -> 20.0 (MiB)."""
    m = re.fullmatch(r"\s*([\d.]+)\s*([KMGT]i?B|bytes|B)\s*", str(size or ""), re.I)
    if not m:
        return None
    try:
        return round(float(m.group(1)) * _BYTES[m.group(2).lower()] / 2**20, 2)
    except (ValueError, KeyError, OverflowError):
        return None


def refine_target(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    t = ev.get("target")
    if isinstance(t, int) and t >= 0:
        ev["num_labels_needed_at_least"] = t + 1
        return {"cause": f"A label has the value {t}, but the model's classification head has at "
                         f"most {t} outputs: num_labels is smaller than the number of classes "
                         f"(it needs to be at least {t + 1})."}
    if isinstance(t, int) and t < 0:
        return {"cause": f"A label is {t}: PyTorch's cross-entropy ignores only -100, so a "
                         "placeholder label such as -1 (missing, or padding) is out of range.",
                "fix": "dataset = dataset.map(lambda b: {'labels': [-100 if l < 0 else l "
                       "for l in b['labels']]}, batched=True)"}
    return None


def refine_tf_label(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    label, high = ev.get("label"), ev.get("high")
    values = [v for v in (to_int(x) for x in str(ev.get("label_values", "")).split()[:200])
              if v is not None]
    if values:
        ev["label_values"] = values[:50]
    if isinstance(high, int):
        ev["model_num_labels"] = high
    if isinstance(label, int) and label < 0:
        return {"cause": f"A label is {label}: sparse categorical cross-entropy needs labels in "
                         f"0..{(high or 1) - 1}; drop or remap the placeholder label."}
    biggest = max([v for v in values if v >= 0] + ([label] if isinstance(label, int) else []),
                  default=None)
    if biggest is not None and isinstance(high, int) and biggest >= high:
        ev["num_labels_needed_at_least"] = biggest + 1
        return {"cause": f"The labels go up to {biggest} but the model has {high} outputs: "
                         f"num_labels={high} is too small (the data needs at least {biggest + 1})."}
    return None


_TOO_LONG = re.compile(r"Token indices sequence length is longer than the specified maximum "
                       r"sequence length for this model \((?P<length>\d+) > (?P<max_length>\d+)\)")


# checkpoints with fewer positions than the usual 512, and the longest input they take
_SHORT_POSITIONS = ((re.compile(r"bertweet", re.I), 128), (re.compile(r"phobert", re.I), 256))
_MAX_LENGTH = re.compile(r"\bmax_(?:seq_)?length\s*[=:]?\s*(?P<n>\d{3,5})\b")
_ADDED_TOKENS = re.compile(r"\.add_(?:special_)?tokens\(")


def _library_code(parsed: ParsedError) -> str:
    """The code lines of the innermost library frames (the failing library line and its
    callers)."""
    return " ".join(f.code or "" for f in parsed.frames[-3:] if f.is_library)


def _which_table(parsed: ParsedError) -> dict[str, Any] | None:
    """Which embedding table an out-of-range lookup ran past, when the paste shows it: the
    position table (the failing line reads position embeddings; a max_length above what the
    checkpoint has positions for), or the token table (tokens added without resizing it)."""
    code = _library_code(parsed)
    asked = [int(m.group("n")) for m in _MAX_LENGTH.finditer(parsed.text)]
    short = next((n for rx, n in _SHORT_POSITIONS if rx.search(parsed.text)), None)
    if short is not None and asked and max(asked) > short:
        return {"id": "sequence-longer-than-max",
                "cause": f"The checkpoint has position embeddings for {short} tokens, and the "
                         f"inputs are padded or truncated to {max(asked)}: the position lookup "
                         "runs past its table.",
                "probes": ["data.sequence-longer-than-positions"],
                "fix": f"tokenizer(texts, truncation=True, max_length={short})"}
    if re.search(r"position_(?:embeddings|ids)|embed_positions", code) and \
            not re.search(r"word_embeddings|embed_tokens|\bwte\b|token_type", code):
        return {"id": "sequence-longer-than-max",
                "cause": "The failing line looks up the position embeddings: a sequence is longer "
                         "than the model's max_position_embeddings (truncation off, or max_length "
                         "above the model's limit).",
                "probes": ["data.sequence-longer-than-positions"],
                "fix": "tokenizer(texts, truncation=True, max_length=tokenizer.model_max_length)"}
    if _ADDED_TOKENS.search(parsed.text) and "resize_token_embeddings" not in parsed.text:
        return {"id": "token-embeddings-not-resized",
                "cause": "Tokens were added to the tokenizer and the model's embedding matrix was "
                         "not resized: the new token ids lie past the end of its table.",
                "probes": ["data.token-ids-out-of-vocab"],
                "fix": "tokenizer.add_special_tokens(...)\n"
                       "model.resize_token_embeddings(len(tokenizer))   # after adding tokens"}
    return None


def refine_index_error(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """An index error after the tokenizer warned of a sequence too long: the positions ran out;
    else the table the paste shows it ran past."""
    m = _TOO_LONG.search(parsed.text)
    if m is None:
        return _which_table(parsed)
    ev["length"], ev["max_length"] = int(m.group("length")), int(m.group("max_length"))
    return {"id": "sequence-longer-than-max",
            "cause": f"The tokenizer warned of a sequence of {m.group('length')} tokens, longer "
                     f"than the model's {m.group('max_length')}: without truncation the position "
                     "embedding lookup runs past its table.",
            "probes": ["data.sequence-longer-than-positions"],
            "fix": "tokenizer(texts, truncation=True, max_length=tokenizer.model_max_length)"}


def refine_assert(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    too_long = refine_index_error(ev, parsed)
    if too_long is not None:
        return too_long
    assertion = str(ev.get("assertion", ""))
    kernel = str(ev.get("kernel", ""))
    ev["assertions_printed"] = len(re.findall(r"Assertion `[^`'\n]*[`'] failed", parsed.text))
    if "n_classes" in assertion or "nll_loss" in kernel.lower() or "NLL" in kernel:
        return {"cause": "A label is outside 0..num_labels-1 (the assertion comes from the "
                         "cross-entropy kernel): num_labels is too small or a label is -1.",
                "probes": ["data.labels-out-of-range", "model.cpu-rerun"]}
    table = _which_table(parsed)
    if table is not None:
        return table
    code = _library_code(parsed)
    if "srcIndex < srcSelectDimSize" in assertion or "indexSelect" in kernel or re.search(
            r"\bembeddings?\b|_embeddings\b|embed_tokens", code):
        # the GPU form of the CPU's "index out of range in self": the same cause
        return {"id": "index-out-of-range-in-self",
                "cause": "An embedding lookup got an index past the end of its table: token ids "
                         ">= the vocabulary size (tokens added without resize_token_embeddings, "
                         "tokenizer from another checkpoint) or sequences longer than the "
                         "position embeddings (truncation off).",
                "probes": ["data.token-ids-out-of-vocab", "data.sequence-longer-than-positions",
                           "model.cpu-rerun"],
                "fix": "model.resize_token_embeddings(len(tokenizer))\n"
                       "tokenizer(texts, truncation=True, max_length=model.config."
                       "max_position_embeddings)"}
    if "input_val >= zero && input_val <= one" in assertion:
        return {"cause": "Binary cross-entropy got probabilities or targets outside [0, 1] (use "
                         "BCEWithLogits on raw logits; multi-label targets must be 0/1 floats).",
                "probes": ["data.label-dtype-problem-type", "model.cpu-rerun"]}
    return None


# the reporter saying the memory problem is behind them ("It now fits on my gpu")
_OOM_SOLVED = re.compile(r"\bnow fits\b|"
                         r"\b(?:no longer|not) (?:runs? )?(?:out of memory|OOM)\b|\bOOM (?:is )?"
                         r"(?:gone|solved|fixed)\b", re.I)


def refine_multilabel_scores(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Multi-label targets beside continuous scores: a threshold turns the scores into labels,
    not an argmax."""
    if ev.get("y_true_kind") == "multilabel-indicator" and \
            str(ev.get("y_pred_kind", "")).startswith("continuous"):
        return {"cause": "The metric got one score per label (multi-label logits or "
                         "probabilities) where it expects 0/1 per label: multi-label predictions "
                         "need a threshold, not an argmax.",
                "fix": "def compute_metrics(eval_pred):\n    logits, labels = eval_pred\n"
                       "    predictions = (1 / (1 + np.exp(-logits)) > 0.5).astype(int)\n"
                       "    return {'f1_micro': f1_score(labels, predictions, average='micro')}"}
    return None


def refine_oom(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    if not parsed.exc_type and _OOM_SOLVED.search(parsed.text):
        return {"reject": True}       # told as solved: the paste is about what came after
    for key in ("tried_to_allocate", "total_capacity", "free", "allocated_by_pytorch",
                "reserved_unallocated"):
        if key in ev:
            mib = _mib(ev[key])
            if mib is not None:
                ev[key + "_mib"] = mib
    others = re.findall(r"Process (\d{1,12}) has ([\d.]{1,12} [KMGT]iB) memory in use", parsed.text)
    if others:
        ev["other_processes"] = [{"pid": to_int(p), "memory": m} for p, m in others[:8]]
    shape = _shape(ev.get("tensor_shape"))
    if shape is not None:
        ev["tensor_shape"] = shape
        n = 1
        for d in shape[:8]:
            n *= max(d, 0)
        ev["tensor_elements"] = n
        width = {"half": 2, "bfloat16": 2, "double": 8, "int64": 8}.get(
            str(ev.get("tensor_dtype", "float")).lower(), 4)
        ev["tensor_mib"] = round(n * width / 2**20, 1)
    if re.search(r"\bnested_concat\b|in (?:evaluation|prediction)_loop\b", parsed.text):
        return {"cause": "The GPU ran out of memory in evaluation: the Trainer keeps every eval "
                         "batch's logits on the GPU (nested_concat) until the end, which for a "
                         "language model's vocabulary-wide logits is far more than training "
                         "needs.",
                "fix": "def preprocess_logits_for_metrics(logits, labels):\n"
                       "    return logits.argmax(dim=-1)   # keep ids, not scores\n"
                       "Trainer(..., preprocess_logits_for_metrics=preprocess_logits_for_metrics)"
                       "\n# and/or TrainingArguments(eval_accumulation_steps=8) to move them to "
                       "the CPU"}
    if "cpu" in str(ev.get("tf_device", "")).lower() or "DefaultCPUAllocator" in parsed.text:
        return {"cause": "The process ran out of main memory (RAM): a tensor or the batch is too "
                         "large for this machine.",
                "probes": ["memory.will-not-fit", "memory.largest-batch"]}
    if others:
        return {"cause": "The GPU ran out of memory and other processes hold part of it "
                         f"({', '.join(m for _, m in others[:3])}); free them (nvidia-smi) or "
                         "lower the batch size.",
                "probes": ["memory.gpu-held-by-other-process", "memory.will-not-fit",
                           "memory.largest-batch"]}
    if "gpu" in str(ev.get("tf_device", "")).lower() or "GPU_0_bfc" in parsed.text:
        return {"probes": ["memory.will-not-fit", "memory.tf-grabs-all-gpu-memory",
                           "memory.gpu-held-by-other-process", "memory.largest-batch"]}
    return None


def refine_unable_tensor(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    feat = str(ev.get("feature", ""))
    if feat in ("label", "labels", "label_ids"):
        return {"cause": f"The `{feat}` column holds lists (token-level or multi-label labels, "
                         "or labels of different lengths) where the collator expects one "
                         "integer per example.",
                "probes": ["data.batch-structure", "data.token-labels-for-sequence-head"],
                "fix": "print(dataset['train'].features['label'])\n"
                       "# one integer per example for sequence classification;\n"
                       "# token labels need AutoModelForTokenClassification and "
                       "DataCollatorForTokenClassification(tokenizer)"}
    if feat and feat not in ("input_ids", "attention_mask", "token_type_ids",
                             "special_tokens_mask", "position_ids"):
        return {"cause": f"The raw column `{feat}` is still in the dataset, and the collator "
                         "tries to turn it into a tensor.",
                "probes": ["data.raw-text-columns", "data.batch-structure"],
                "fix": f"tokenized = tokenized.remove_columns([{feat!r}])"}
    return None


def refine_batch_mismatch(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    inp, tgt = ev.get("input_batch"), ev.get("target_batch")
    if not (isinstance(inp, int) and isinstance(tgt, int) and inp > 0 and tgt > 0):
        return None
    if tgt > inp and tgt % inp == 0:
        ev["labels_per_example"] = tgt // inp
        return {"cause": f"There are {tgt // inp} labels per example ({tgt} targets for {inp} "
                         "predictions): token-level labels (one per token) reached a "
                         "sequence-classification head, which predicts one class per example."}
    if inp > tgt and inp % tgt == 0:
        ev["predictions_per_label"] = inp // tgt
        return {"cause": f"The model makes {inp // tgt} predictions per label: a token-level "
                         "head (one prediction per token) got one label per example.",
                "fix": "model = AutoModelForSequenceClassification.from_pretrained(checkpoint, "
                       "num_labels=num_labels)"}
    return None


def refine_no_loss(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Which part of the loss went missing (the labels, or a head that computes it); a bare
    KeyError 'loss' only when the Trainer read it."""
    if ev.pop("old", None) and not re.search(r"trainer\.py|compute_loss|\bTrainer\b|"
                                             r"outputs\[[\"']loss", parsed.text):
        return {"reject": True}
    inputs = [x.strip() for x in str(ev.get("inputs", "")).split(",") if x.strip()]
    keys = [x.strip() for x in str(ev.get("keys", "")).split(",") if x.strip()]
    if inputs:
        ev["inputs"] = inputs
    if keys:
        ev["keys"] = keys
    if inputs and not ({"labels", "label", "label_ids", "start_positions"} & set(inputs)):
        return {"cause": "The labels never reached the model: the batch has only "
                         f"{', '.join(inputs)}. The label column is missing, named differently "
                         "(it must be `label` or `labels`), or was dropped by "
                         "remove_unused_columns."}
    if inputs:
        return {"cause": "The model got labels but returned no loss: its class has no head that "
                         "computes one (e.g. AutoModel instead of "
                         "AutoModelForSequenceClassification), or a custom forward ignores them.",
                "probes": ["model.no-loss"]}
    return None


def refine_unpack(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    inner = parsed.innermost_frame
    code = (inner.code or "") if inner else ""
    if inner is not None and inner.is_library and re.search(r"shape|size\(\)", code):
        ev["code"] = code
        return {"cause": "The inputs have one dimension too many (e.g. [1, batch, seq]): each "
                         "example was tokenized with return_tensors, or a list of encodings was "
                         "stacked, so the model cannot unpack (batch_size, seq_length).",
                "probes": ["data.batch-structure"],
                "fix": "tokenized = dataset.map(lambda b: tokenizer(b['text'], truncation=True),"
                       " batched=True)  # no return_tensors inside map"}
    return None


def refine_size_mismatch(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    ck, mo = _shape(ev.get("checkpoint_shape")), _shape(ev.get("model_shape"))
    if ck is not None:
        ev["checkpoint_shape"] = ck
    if mo is not None:
        ev["model_shape"] = mo
    if ck == [0] or mo == [0]:
        return {"reject": True}       # ZeRO-3's empty placeholders: the zero3 signatures
    if ck and mo and len(mo) == 2 and mo[1] == 1 and 0 < 2 * mo[0] == math.prod(ck):
        module = re.sub(r"\.(?:weight|bias)$", "", str(ev.get("param", ""))).rsplit(".", 1)[-1]
        return {"id": "state-dict-into-quantized-layer",
                "cause": f"The model was loaded in 4-bit (bitsandbytes: load_in_4bit, "
                         f"--load-4bit), which packs each Linear weight two values a byte into a "
                         f"[{mo[0]}, 1] tensor; the full-precision {ck} weight of the checkpoint "
                         "cannot be copied into it.",
                "probes": ["model.adapter"],
                "fix": "# load without 4-bit for this step (drop --load-4bit / load_in_4bit), or "
                       "keep that module unquantized:\nBitsAndBytesConfig(load_in_4bit=True, "
                       f"llm_int8_skip_modules=['{module or '<the module>'}'])   # the module the "
                       "checkpoint holds"}
    param = str(ev.get("param", ""))
    if re.search(r"\.lora_(?:[AB]|down|up|embedding_[AB])\b", param):
        return {"id": "adapter-for-another-base-model",
                "cause": f"The adapter's {param.split('.lora_')[0].rsplit('.', 1)[-1]} weights "
                         "have other shapes than the model's: the LoRA was trained on another "
                         "base model (an SDXL LoRA in an SD 1.5 pipeline, a 13B adapter on a 7B "
                         "model), not a classification head.",
                "probes": ["model.adapter"],
                "fix": "# load the base model (or pipeline) the adapter was trained on: its "
                       "adapter_config.json names it (base_model_name_or_path)\n"
                       "model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained("
                       "BASE), adapter_path)"}
    if "embeddings" in param and ck and mo:
        return {"cause": f"The embedding matrix has {ck[0]} rows in the checkpoint and {mo[0]} in "
                         "the model: the vocabulary size changed (tokens added, or another "
                         "tokenizer). Load with the checkpoint's config, then resize.",
                "probes": ["data.token-ids-out-of-vocab"],
                "fix": "model = AutoModelForSequenceClassification.from_pretrained(checkpoint)\n"
                       "model.resize_token_embeddings(len(tokenizer))"}
    if ck and mo and ck[0] != mo[0]:
        ev["checkpoint_num_labels"], ev["requested_num_labels"] = ck[0], mo[0]
        return {"cause": f"The checkpoint's classification head has {ck[0]} outputs and you asked "
                         f"for {mo[0]} (num_labels={mo[0]}); the head cannot be loaded as is."}
    return None


# an optimizer object of tf.keras 2.x, and one of standalone Keras 2.x (Keras 3's live in keras.src)
_TF_KERAS_OBJECT = re.compile(r"<tensorflow\.(?:python\.)?keras\.")
_KERAS_2_OBJECT = re.compile(r"<keras\.(?!src\.)")


def _mixed_keras_optimizer(ident: str, parsed: ParsedError) -> bool:
    """An optimizer object of one Keras handed to the other's compile(): a tf.keras object to
    standalone keras, or a standalone Keras 2 object to tf.keras (read from the frame that
    raised)."""
    raiser = parsed.innermost_frame
    path = (raiser.file if raiser is not None else "").replace("\\", "/")
    tf_keras_raised = "/tensorflow/python/keras/" in path or "/tensorflow/keras/" in path
    standalone_raised = "/keras/" in path and not tf_keras_raised and "/tf_keras/" not in path
    return bool(_TF_KERAS_OBJECT.match(ident) and standalone_raised
                or _KERAS_2_OBJECT.match(ident) and tf_keras_raised)


def refine_optimizer(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    ident = str(ev.get("identifier", "")).strip()
    if _mixed_keras_optimizer(ident, parsed):
        return {"id": "keras-and-tf-keras-mixed",
                "cause": f"The optimizer {ident.split(' object')[0].lstrip('<')} belongs to one "
                         "Keras (tf.keras or standalone keras) and the model that compiles it to "
                         "the other: each accepts only its own optimizers.",
                "fix": "from tensorflow import keras   # one Keras for the model, its layers and "
                       "the optimizer\nmodel.compile(optimizer=keras.optimizers.Adam(1e-3), "
                       "loss=...)"}
    if re.search(r"keras\.src\.optimizers|keras\.optimizers\.", ident) and "tf_keras" not in ident:
        ev["keras3_object"] = True
        return None
    if ident and not ident.startswith("<"):
        return {"cause": f"{ident} is not an optimizer name this Keras knows.",
                "probes": ["hyperparameters.hidden-defaults"],
                "fix": "from tf_keras.optimizers import Adam\n"
                       "model.compile(optimizer=Adam(learning_rate=5e-5))"}
    return None


def _dims(shape: Any) -> list[str]:
    return [d.strip() for d in str(shape or "").split(",") if d.strip()]


def _shape_text(dims: list[str]) -> str:
    """A shape as Python prints it: (None, 15, 1), (None,)."""
    return f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(dims)})"


def refine_ragged(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Samples of two shapes of three or more dimensions (channels, height, width) stacked by
    the default collate are images of different sizes, not token sequences to pad."""
    a, b = _dims(ev.get("expected2")), _dims(ev.get("got2"))
    if len(a) >= 3 and len(a) == len(b) and a != b:
        return {"id": "inconsistent-sample-shapes-in-batch",
                "cause": f"The samples of a batch have different shapes ({_shape_text(a)} "
                         f"and {_shape_text(b)}): images (or feature maps) of different sizes, "
                         "which the default collate cannot stack.",
                "fix": "transforms.Compose([transforms.Resize((224, 224)), transforms.ToTensor()])"
                       "   # one size for every sample\n# or a collate_fn that pads or crops "
                       "them to one shape"}
    return None


def refine_keras_shapes(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Predictions that keep a time axis ([batch, steps, k]) against one label per example
    ([batch] or [batch, 1]): the model's head sits on the sequence, with no pooling between."""
    pairs = (("logits", "labels"), ("logits2", "labels2"), ("output4", "target4"),
             ("shape_b", "shape_a"))
    for pred_key, label_key in pairs:
        pred, label = _dims(ev.get(pred_key)), _dims(ev.get(label_key))
        one_label = len(label) == 1 or len(label) == 2 and label[-1] in ("1", "None")
        if len(pred) == 3 and one_label and pred[1] not in ("None", "1"):
            return {"id": "missing-pooling-before-output",
                    "cause": f"The model emits one prediction per time step "
                             f"{_shape_text(pred)} and each example has one label "
                             f"{_shape_text(label)}: nothing between the sequence (an "
                             "Embedding, LSTM or Conv1D output) and the Dense head removes the "
                             "time axis.",
                    "fix": "x = layers.GlobalAveragePooling1D()(x)   # (or Flatten()) before "
                           "the output Dense\n# recurrent: the last LSTM/GRU with "
                           "return_sequences=False"}
    return None


def refine_expanded(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    length, limit = ev.get("length"), ev.get("max_positions")
    if isinstance(length, int) and isinstance(limit, int):
        ev["too_long_by"] = length - limit
    return None


def refine_broadcast(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Confident only when raised where a model adds its position embeddings."""
    inner = parsed.innermost_frame
    code = (inner.code or "") if inner else ""
    if inner is not None and inner.is_library and re.search(r"position|token_type", code):
        refine_expanded(ev, parsed)
        ev["code"] = code
        return {"cause": f"A sequence of {ev.get('length')} tokens is longer than the model's "
                         f"{ev.get('max_positions')} position embeddings: truncation is off or "
                         "max_length is larger than the model allows.",
                "probes": ["data.sequence-longer-than-positions"],
                "fix": "tokenizer(texts, truncation=True, "
                       "max_length=model.config.max_position_embeddings)"}
    return None


_TAPE_ANSWER = {
    "id": "gradients-are-none",
    "cause": "In a custom GradientTape loop the loss does not depend on the variables as the tape "
             "recorded them: part of it was computed after the `with tf.GradientTape()` block, "
             "through NumPy (.numpy(), np.*), or with ops that have no gradient (argmax, argsort, "
             "round, a cast to int).",
    "fix": "with tf.GradientTape() as tape:\n    logits = model(x, training=True)\n"
           "    loss = loss_fn(y, logits)   # every step of the loss inside the block, TF ops only\n"
           "grads = tape.gradient(loss, model.trainable_variables)"}


def refine_no_gradients(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """compile() shown without a loss: the loss is simply missing. A GradientTape loop: the
    loss left the tape."""
    if re.search(r"GradientTape|tape\.gradient", parsed.text):
        return _TAPE_ANSWER
    calls = re.findall(r"\.compile\(([^()]*(?:\([^()]*\)[^()]*)*)\)", parsed.text)
    if calls and not any("loss" in c for c in calls):
        return {"id": "keras-compile-without-loss",
                "cause": "The model was compiled without a loss, so fit() has nothing that "
                         "depends on the weights to differentiate.",
                "fix": "model.compile(optimizer='adam', loss='sparse_categorical_crossentropy')"}
    return None


_MODEL_URL = re.compile(r"huggingface\.co/(?!api/|datasets/|spaces/)(?:api/models/)?"
                        r"(?P<repo>[\w.-]+/[\w.-]+)/(?:resolve|tree|revision)")


def refine_gradients_none(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Gradients that do not exist (TensorFlow's warning, or printed as None) mean the loss left
    the tape, whatever the loop."""
    return dict(_TAPE_ANSWER)


# a metric or dataset looked up on the Hub by name (evaluate.load, load_dataset)
_HUB_NAME = re.compile(r"Module '(?P<metric>[\w.-]{1,100})' doesn't exist on the Hugging Face Hub|"
                       r"Dataset '(?P<dataset>[\w./-]{1,200})' doesn't exist on the Hub|"
                       r"Couldn't find '(?P<dataset2>[\w./-]{1,200})' on the Hugging Face Hub")
_NOT_A_FOLDER = re.compile(r"(?P<path>[^\s'\"`]{1,300}) is not a local folder and is not a valid "
                           r"model identifier")


# the hints huggingface_hub appends to every "Repository Not Found": not the reporter's words
_HUB_HINTS = re.compile(r"If you are trying to access a private or gated (?:repo|repository)"
                        r"[^\n]*|Please make sure you specified the correct `?repo_id`? and "
                        r"`?repo_type`?\.?", re.I)


def _without_hub_hints(text: str) -> str:
    return _HUB_HINTS.sub("", text)


def refine_repo_not_found(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A dataset (or Space) looked up as a model: the URL is a model URL while the code names
    the repo type or loads that id as a dataset. A repo the paste says is gated (a license to
    accept) exists: the Hub hides it until the terms are accepted."""
    said = _without_hub_hints(parsed.loose_text or parsed.text)
    if re.search(r"\bgated\b|\blicen[cs]e\b|accept(?:ed|ing)? (?:the|its) (?:terms|conditions)",
                 said, re.I):
        return {"id": "hub-gated-repo",
                "cause": "The repository exists but is gated: until you accept its terms on the "
                         "Hub and authenticate, the Hub answers as if it did not exist.",
                "fix": "# accept the terms at https://huggingface.co/<repo>, then:\n"
                       "hf auth login"}
    public = _HUB_NAME.search(parsed.text)
    if public:
        name = next(g for g in public.groups() if g)
        kind = "metric" if public.group("metric") else "dataset"
        if name in (PUBLIC_METRICS if kind == "metric" else PUBLIC_DATASETS):
            return {"id": "hub-unreachable",
                    "cause": f"'{name}' is a {kind} that certainly exists on the Hub, so the name "
                             "is not the problem: the Hub was not reached from this machine (no "
                             "network, a proxy or firewall, a region that needs a mirror) and it "
                             f"is not cached; or a local folder named {name} hides it.",
                    "fix": ("pip install -U evaluate   # 0.4.1 beside a newer huggingface_hub "
                            "looks metrics up where they are not\n" if kind == "metric" else "")
                           + "curl -I https://huggingface.co   # reachable?\n"
                           "export HF_ENDPOINT=https://hf-mirror.com   # a mirror, where the Hub "
                           "is blocked\n# or run it once where the Hub is reachable, so it is "
                           "cached"}
    named = _NOT_A_FOLDER.search(parsed.text)
    if named and is_local_path(named.group("path")):
        path = named.group("path")
        return {"id": "local-file-missing",
                "cause": f"{path} is a local path (a training run's folder), and no folder is "
                         "there: from_pretrained then reads the name as a Hub id. The run did not "
                         "save there, or the path is relative to another working directory.",
                "fix": f"import os; print(os.getcwd(), os.path.isdir('{path}'))\n"
                       "trainer.save_model(folder)   # or download the shared checkpoint into it"}
    m = _MODEL_URL.search(parsed.text)
    if m is None:
        return None
    repo = m.group("repo")
    as_dataset = re.search(rf"load_dataset\(\s*['\"]{re.escape(repo)}['\"]", parsed.text)
    if not (as_dataset or re.search(r"\brepo_type\b", _without_hub_hints(parsed.text))):
        return None
    ev["repo"] = repo
    return {"id": "hub-wrong-repo-type",
            "cause": f"{repo} was looked up as a model repository (the URL has no /datasets/), "
                     "but it is a dataset (or Space): the call did not pass repo_type.",
            "fix": f"hf_hub_download('{repo}', filename, repo_type='dataset')   # or "
                   "HfApi().<method>(..., repo_type='dataset')"}


# the whole model cast to fp16 in the paste's code (not a dtype for loading frozen weights)
_HALF_MODEL = re.compile(r"\bmodel\w*\s*=\s*\w*model\w*\.half\(\)|\bmodel\w*\.half\(\)\s*$|"
                         r"\bmodel\w*\s*=\s*\w*model\w*\.to\(\s*(?:dtype\s*=\s*)?torch\.float16\s*\)",
                         re.M)


# a diffusion model's VAE giving NaN latents (the reporter's words, English or Chinese)
_VAE_NAN = re.compile(r"(?is)(?<![a-z])vae(?![a-z]).{0,120}?(?:latent|encod|编码).{0,80}?"
                      r"(?<![a-z])nan(?![a-z])")


def refine_nan(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A NaN (or zero) loss after the whole model was cast to fp16 for training: pure
    half-precision training, not mixed precision. NaN latents out of a diffusion model's VAE:
    the VAE overflowing in float16."""
    if _VAE_NAN.search(parsed.text):
        return {"id": "fp16-numerical-overflow",
                "cause": "The VAE encodes the images to NaN latents: in float16 its activations "
                         "overflow (the SDXL VAE above all), and the loss on NaN latents is NaN.",
                "fix": "vae.to(dtype=torch.float32)   # keep the VAE in float32 under fp16 "
                       "training\n# SDXL: --pretrained_vae_model_name_or_path "
                       "madebyollin/sdxl-vae-fp16-fix; or mixed_precision='bf16'"}
    if not _HALF_MODEL.search(parsed.text) or re.search(r"\b(?:LoraConfig|get_peft_model|"
                                                        r"peft)\b", parsed.text):
        return None
    return {"id": "pure-fp16-training",
            "cause": "The whole model was cast to fp16 (model.half()) and trained: its weights and "
                     "updates are held in half precision, where small updates vanish and large "
                     "activations overflow, so the loss collapses to 0 or NaN. Mixed precision "
                     "keeps float32 master weights.",
            "fix": "# drop model.half(); train in mixed precision instead\n"
                   "TrainingArguments(..., bf16=True)   # or fp16=True on GPUs without bf16\n"
                   "# to save memory: LoRA, an 8-bit optimizer (optim='adamw_bnb_8bit') or "
                   "gradient checkpointing"}


# several GPUs made visible (or asked for) to one process, and no launcher that starts one
# process per GPU
_MANY_GPUS = re.compile(r"CUDA_VISIBLE_DEVICES=\d+(?:,\d+)+|\bmulti-?GPU\b|\bmultiple GPUs\b|"
                        r"\b(?:several|two|four|eight|\d) GPUs\b|多卡|多GPU|"
                        # "2x T4 GPUs", "4个32G的GPU显卡" (four 32 GB GPUs)
                        r"\b[2-9] ?[x×] ?(?:\w+ )?GPUs\b|[2-9两四八] ?[个张块][^\n]{0,10}?(?:GPU|显卡)",
                        re.I)
_LAUNCHER = re.compile(r"\btorchrun\b|torch\.distributed\.(?:run|launch)|accelerate launch|"
                       r"\bdeepspeed\s+(?:--|\S+\.py)|--nproc_per_node|\bdevice_map\b")


_ONE_PROCESS_PER_GPU = ("torchrun --nproc_per_node 4 train.py ...   # one process per GPU (or "
                        "accelerate launch)\n# or train on one GPU: CUDA_VISIBLE_DEVICES=0 python "
                        "train.py ...")


def refine_devices(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Two GPUs in one operation, with several GPUs visible to a plain `python train.py`: the
    Trainer spread one process over them (DataParallel) instead of one process per GPU."""
    devices = {str(v) for k, v in ev.items() if re.fullmatch(r"device_[ab]\d?", k)}
    if not all(d.startswith("cuda:") for d in devices) or len(devices) < 2:
        return None
    if not _MANY_GPUS.search(parsed.text) or _LAUNCHER.search(parsed.text):
        return None
    return {"id": "multi-gpu-without-distributed-launcher",
            "cause": "Several GPUs are visible to one training process started without a "
                     "distributed launcher, so the Trainer spreads that process over them "
                     "(DataParallel) and the model's custom code meets tensors on two GPUs.",
            "fix": _ONE_PROCESS_PER_GPU}


_PLAIN_PYTHON = re.compile(r"(?m)(?:^|[\s=])python3? (?:-u )?[\w./-]+\.py\b")


def refine_dtypes_many_gpus(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Mixed dtypes with several GPUs visible to one process started with a plain `python x.py`
    (the command must be shown: without it a launcher may well have been used): the Trainer
    wraps the model in DataParallel, whose replica threads do not inherit the thread-local
    autocast of fp16/bf16."""
    if not _MANY_GPUS.search(parsed.text) or _LAUNCHER.search(parsed.text) or \
            not _PLAIN_PYTHON.search(parsed.text):
        return None
    return {"id": "multi-gpu-without-distributed-launcher",
            "cause": "Several GPUs are visible to one training process started with plain "
                     "python, so the Trainer runs the model in DataParallel: its replicas run in "
                     "threads where mixed precision's autocast is not active, and half and float "
                     "tensors meet.",
            "fix": _ONE_PROCESS_PER_GPU}
