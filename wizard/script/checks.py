"""Checks that need no run: they read the facts the script reader found, each with its line."""
from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from wizard.checks.hyperparameters import learning_rate_finding
from wizard.core.findings import Finding
from wizard.core.optimizer import parse_optimizer
from wizard.engine.plan import get_field
from wizard.script.syntax import Unresolved
from wizard.script.types import ScriptReading
from wizard.triage.env_arguments import HOOK_SIGNATURES
from wizard.triage.packages import version_lt

if TYPE_CHECKING:
    pass

# Learning rates behind a string or an optimizer built without one (tf-keras 2.x and torch 2.x
# signatures; tests/test_script_reader.py compares them with the installed frameworks).
KERAS_DEFAULT_LR = {"adam": 1e-3, "adamw": 1e-3, "nadam": 1e-3, "adamax": 1e-3, "rmsprop": 1e-3,
                    "sgd": 1e-2, "adagrad": 1e-3, "adadelta": 1e-3, "ftrl": 1e-3,
                    "adamweightdecay": 1e-3}
TORCH_DEFAULT_LR = {"adam": 1e-3, "adamw": 1e-3, "sgd": 1e-3, "rmsprop": 1e-2, "adagrad": 1e-2,
                    "adadelta": 1.0, "adamax": 2e-3, "nadam": 2e-3, "radam": 1e-3, "asgd": 1e-2,
                    "rprop": 1e-2, "sparseadam": 1e-3}
TRAINER_DEFAULT_LR = 5e-5  # TrainingArguments.learning_rate
KERAS3_BREAKS = ("optimizer", "callbacks", "metrics")  # measured with tf-keras 2.21 + Keras 3.15


def static_findings(reading: "ScriptReading", environ: Mapping[str, str] | None = None,
                    versions: Mapping[str, str | None] | None = None) -> list[Finding]:
    """Every static check on one reading, the reading's own summary first."""
    env = os.environ if environ is None else environ
    found = [_read_finding(reading)]
    for check in (_transformers_5, _keras3, _labels_in_columns, _from_logits, _no_truncation,
                  _learning_rate, _zero_grad, _schedule_length, _unbatched, _hook_signatures,
                  _new_tokens, _generation_padding, _h5_whole_model):
        found += check(reading, env, versions or {})
    return found


def _version(name: str, versions: Mapping[str, str | None]) -> str | None:
    if name in versions:
        return versions[name]
    dists = {"tensorflow": ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-macos")}
    for dist in dists.get(name, (name,)):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _major_minor(version: str | None) -> tuple[int, int]:
    try:
        parts = (version or "").split(".")
        return int(parts[0]), int("".join(ch for ch in parts[1] if ch.isdigit()) or 0)
    except (ValueError, IndexError):
        return (0, 0)


def _where(reading: "ScriptReading", line: int) -> dict[str, Any]:
    return {"script": Path(reading.path).name if reading.path else "<script>", "line": line}


# -- the reading itself -------------------------------------------------------------------------
def _read_finding(reading: "ScriptReading") -> Finding:
    read = {}
    for dotted, src in reading.read.items():
        try:
            value = get_field(reading.case, dotted)
        except AttributeError:
            value = None
        read[dotted] = {"value": value, "line": src.line, "code": src.code}
    ok = reading.entry != "none" and not reading.missing()
    name = Path(reading.path).name if reading.path else "the script"
    title = (f"Read {name}: {len(read)} setting(s)" +
             (f", {len(reading.questions)} left to run time" if reading.questions else "") +
             ("" if reading.entry != "none" else "; no training call found"))
    fix = ""
    if reading.questions:
        fix = "# values the script only knows at run time; give them as answers:\n" + "\n".join(
            f"{q.field}: ...   # line {q.line}: {q.code}" for q in reading.questions)
    return Finding("script.read", "info" if ok else "warn", title,
                   evidence={"entry": reading.entry, "read": read,
                             "questions": [q.to_dict() for q in reading.questions],
                             "settings": reading.settings, "notes": reading.notes},
                   explanation=reading.summary(), fix=fix)


# -- environment ---------------------------------------------------------------------------------
def _transformers_5(reading: "ScriptReading", env: Mapping[str, str],
                    versions: Mapping[str, str | None]) -> list[Finding]:
    facts = reading.facts
    version = _version("transformers", versions)
    if not facts.tf_imports or _major_minor(version)[0] < 5:
        return []
    name, line = facts.tf_imports[0]
    return [Finding(
        "environment.transformers-without-tensorflow", "fail",
        f"{name} (line {line}) does not exist in transformers {version}",
        evidence={**_where(reading, line), "code": name,
                  "tf_names": [n for n, _ in facts.tf_imports], "transformers": version},
        explanation="transformers 5 removed TFAutoModel... and every TensorFlow class, so this "
                    "import fails before anything runs. Run the script on transformers 4.57 with "
                    "tf-keras, or move it to PyTorch.",
        fix='pip install "transformers>=4.57,<5" "tf-keras~=2.21"\nexport TF_USE_LEGACY_KERAS=1\n'
            "# or: AutoModelForSequenceClassification + Trainer (PyTorch)")]


def _keras3(reading: "ScriptReading", env: Mapping[str, str],
            versions: Mapping[str, str | None]) -> list[Finding]:
    facts = reading.facts
    if reading.case.framework != "tensorflow" or not facts.model_is_transformers:
        return []
    legacy = facts.legacy_keras_in_script or str(env.get("TF_USE_LEGACY_KERAS", "")).lower() in (
        "1", "true", "yes")
    tf_version = _version("tensorflow", versions)
    keras_version = _version("keras", versions)
    out: list[Finding] = []
    for role, qual, line, code in facts.keras_objects:
        if role not in KERAS3_BREAKS:
            continue
        if qual.startswith("keras.") and _major_minor(keras_version)[0] >= 3:
            status, why = "fail", f"`keras` is Keras {keras_version} (Keras 3)"
        elif qual.startswith("tensorflow.keras.") and not legacy:
            if tf_version is None:
                status, why = "warn", "with TensorFlow >= 2.16, tf.keras is Keras 3"
            elif _major_minor(tf_version) >= (2, 16):
                status, why = "fail", f"with TensorFlow {tf_version}, tf.keras is Keras 3"
            else:
                continue
        else:
            continue
        out.append(Finding(
            "script.keras3-with-tf-keras", status,
            f"A Keras 3 {role.rstrip('s')} (line {line}) is handed to a tf-keras model",
            evidence={**_where(reading, line), "code": code, "role": role, "imported_as": qual,
                      "tensorflow": tf_version, "keras": keras_version,
                      "TF_USE_LEGACY_KERAS": env.get("TF_USE_LEGACY_KERAS")},
            explanation=f"transformers' TF models are tf-keras (Keras 2) models, but {why}: "
                        f"compile()/fit() reject its objects ({role}: 'Could not interpret "
                        "optimizer identifier' or an AttributeError inside fit).",
            fix="import tf_keras  # Keras 2, what transformers' TF models are built on\n"
                "model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5))\n"
                "# or keep tf.keras and start Python with: export TF_USE_LEGACY_KERAS=1"))
    return out


# -- Keras wiring ---------------------------------------------------------------------------------
def _labels_in_columns(reading: "ScriptReading", env: Mapping[str, str],
                       versions: Mapping[str, str | None]) -> list[Finding]:
    facts = reading.facts
    loss = facts.loss
    if facts.entry != "keras" or facts.labels_place != "inputs" or loss is None:
        return []
    return [Finding(
        "data.labels-in-inputs-with-keras-loss", "fail",
        f"Labels ride inside the inputs (line {facts.labels_line}) while compile() got a loss "
        f"(line {loss.line})",
        evidence={**_where(reading, facts.labels_line), "code": facts.labels_code,
                  "compile_line": loss.line, "compile_loss": loss.written,
                  "label_column": reading.case.dataset.label_column},
        explanation="The label column is in `columns`, so it sits in the input dict and the "
                    "model computes its own loss from it, while compile(loss=...) asks Keras for "
                    "a second loss on labels it never gets where it expects them. Older "
                    "transformers fail with 'No gradients provided for any variable'; 4.57 copies "
                    f"the labels out and trains on {loss.written}, silently computed on logits.",
        fix="# Option 1 (simplest): let the model use its internal loss\n"
            "model.compile(optimizer=optimizer)  # no loss=\n\n"
            "# Option 2: keep a Keras loss and pass the labels separately\n"
            "train_dataset = tokenized_datasets[\"train\"].to_tf_dataset(\n"
            "    columns=[\"input_ids\", \"attention_mask\"], label_cols=[\"labels\"],\n"
            "    batch_size=16, shuffle=True, collate_fn=data_collator)")]


def _from_logits(reading: "ScriptReading", env: Mapping[str, str],
                 versions: Mapping[str, str | None]) -> list[Finding]:
    facts = reading.facts
    loss = facts.loss
    if facts.entry != "keras" or loss is None or "crossentropy" not in loss.name.lower():
        return []
    from_logits = bool(loss.from_logits)
    if facts.softmax_head is not None:
        if not from_logits:
            return []
        line, code = facts.softmax_head
        return [Finding(
            "script.from-logits-mismatch", "fail",
            f"from_logits=True (line {loss.line}) on a model that ends in a softmax (line {line})",
            evidence={**_where(reading, loss.line), "code": loss.written, "head_line": line,
                      "head": code},
            explanation="The model already outputs probabilities; from_logits=True applies a "
                        "second softmax inside the loss, which flattens the gradients.",
            fix="loss = tf_keras.losses.SparseCategoricalCrossentropy(from_logits=False)  "
                "# or drop the softmax activation from the last layer")]
    if not facts.model_is_transformers or from_logits or facts.labels_place == "inputs":
        return []  # labels inside the inputs: data.labels-in-inputs-with-keras-loss says it
    given = "from_logits=False" if loss.from_logits is False else "from_logits left at its default False"
    return [Finding(
        "script.from-logits-mismatch", "fail",
        f"The loss (line {loss.line}) treats the model's logits as probabilities",
        evidence={**_where(reading, loss.line), "code": loss.written, "loss": loss.name,
                  "from_logits": loss.from_logits, "model_class": facts.model_class},
        explanation=f"{facts.model_class} outputs raw logits (no softmax), but the loss has "
                    f"{given}: Keras then computes the cross-entropy of values that are not "
                    "probabilities, so the loss and its gradients are wrong without any error.",
        fix="import tf_keras\n\nmodel.compile(optimizer=optimizer,\n"
            "              loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))")]


# -- preprocessing --------------------------------------------------------------------------------
def _no_truncation(reading: "ScriptReading", env: Mapping[str, str],
                   versions: Mapping[str, str | None]) -> list[Finding]:
    tok = reading.facts.tokenize
    if tok is None or isinstance(tok.truncation, Unresolved) or \
            (tok.truncation and tok.truncation != "do_not_truncate"):
        return []
    return [Finding(
        "script.no-truncation", "warn", f"The tokenizer call (line {tok.line}) does not truncate",
        evidence={**_where(reading, tok.line), "code": tok.code, "truncation": tok.truncation,
                  "max_length": None if isinstance(tok.max_length, Unresolved) else tok.max_length},
        explanation="Without truncation=True, any text longer than the model's maximum length "
                    "(512 tokens for BERT-like models) reaches the position embeddings and fails "
                    "with 'index out of range' (PyTorch) or 'indices[...] is not in [0, 512)' "
                    "(TensorFlow) — on the first long sample, possibly hours into training.",
        fix=f"{tok.code.split('(')[0]}(..., truncation=True)  # optionally max_length=256")]


# -- stepping ---------------------------------------------------------------------------------
def _zero_grad(reading: "ScriptReading", env: Mapping[str, str],
               versions: Mapping[str, str | None]) -> list[Finding]:
    if reading.facts.zero_grad is not False or reading.facts.loop_step is None:
        return []
    line, code = reading.facts.loop_step
    return [Finding(
        "script.zero-grad-missing", "fail",
        f"The training loop never clears the gradients (no zero_grad(); step at line {line})",
        evidence={**_where(reading, line), "code": code},
        explanation="PyTorch adds each backward() to the gradients already stored: without "
                    "optimizer.zero_grad() every step applies the sum of all earlier gradients, "
                    "which grows step by step, so the loss stalls or diverges (no error).",
        fix="loss.backward()\noptimizer.step()\noptimizer.zero_grad()   # every step (with "
            "gradient accumulation: after each optimizer.step())")]


def _schedule_length(reading: "ScriptReading", env: Mapping[str, str],
                     versions: Mapping[str, str | None]) -> list[Finding]:
    schedule, epochs = reading.facts.schedule, reading.case.training.epochs
    if schedule is None or not isinstance(epochs, int) or isinstance(epochs, bool) or epochs < 2:
        return []
    return [Finding(
        "script.schedule-ends-early", "fail",
        f"The learning-rate schedule (line {schedule.line}) lasts one epoch; training runs "
        f"{epochs}",
        evidence={**_where(reading, schedule.line), "code": schedule.code,
                  "steps": schedule.steps_code, "epochs": epochs},
        explanation=f"The schedule's length is {schedule.steps_code}, the batches of one epoch, "
                    f"so the learning rate reaches its end value (0 for transformers' "
                    f"schedules) after the first epoch and epochs 2 to {epochs} barely train.",
        fix=f"num_training_steps = num_epochs * {schedule.steps_code}")]


def _fault_at(reading: "ScriptReading", fact: tuple[int, str] | None, check_id: str,
             title: str, explanation: str, fix: str, key: str = "code") -> list[Finding]:
    """One failing static finding at the (line, code) the reader found; none without it.
    `title` and `fix` may name {line} and {code}."""
    if fact is None:
        return []
    line, code = fact
    return [Finding(check_id, "fail", title.format(line=line, code=code),
                    evidence={**_where(reading, line), key: code}, explanation=explanation,
                    fix=fix.format(line=line, code=code))]


def _unbatched(reading: "ScriptReading", env: Mapping[str, str],
               versions: Mapping[str, str | None]) -> list[Finding]:
    return _fault_at(
        reading, reading.facts.unbatched, "script.tf-dataset-not-batched",
        "The tf.data dataset given to fit() is never batched (line {line})",
        "from_tensor_slices yields one example at a time, and fit() does not batch a "
        "tf.data.Dataset: the model gets each example's token ids as if they were a batch "
        "(input_ids of shape (seq_len,)), and fails or trains on nonsense.",
        "{code}.shuffle(1000).batch(16)")


def _hook_signatures(reading: "ScriptReading", env: Mapping[str, str],
                     versions: Mapping[str, str | None]) -> list[Finding]:
    installed = _version("transformers", versions)
    out = []
    for o in reading.facts.hook_overrides:
        if installed is None or version_lt(installed, o.added) is not False:
            continue    # a release that does not pass the argument yet
        out.append(Finding(
            "script.trainer-hook-signature", "fail",
            f"{o.cls}.{o.hook}() (line {o.line}) cannot take {o.argument}, which transformers "
            f"{installed} passes",
            evidence={**_where(reading, o.line), "code": o.code, "argument": o.argument,
                      "passed_since": o.added, "transformers": installed},
            explanation=f"Since transformers {o.added} the Trainer calls {o.hook}() with "
                        f"{o.argument}=...; an override written with the older signature (the "
                        "recipe copied from before that release) fails on the first step with "
                        f"'got an unexpected keyword argument {o.argument!r}'.",
            fix=HOOK_SIGNATURES.get(o.hook, f"def {o.hook}(self, *args, **kwargs):")
            + "   # or add **kwargs"))
    return out


def _new_tokens(reading: "ScriptReading", env: Mapping[str, str],
                versions: Mapping[str, str | None]) -> list[Finding]:
    return _fault_at(
        reading, reading.facts.new_tokens_frozen, "script.adapter-new-tokens-frozen",
        "Tokens added at line {line} keep untrained embeddings: the LoRA adapter leaves the "
        "embeddings frozen",
        "resize_token_embeddings gives each added token a new row in the input embeddings (and "
        "the output head), but LoRA trains only its target modules: the new rows stay as they "
        "were initialised, so the model never learns the tokens it is being taught to read and "
        "write (a chat template's end-of-turn token: generation does not stop).",
        'LoraConfig(..., modules_to_save=["embed_tokens", "lm_head"])   # GPT-2: ["wte", '
        '"lm_head"]\n# or peft >= 0.15: LoraConfig(..., trainable_token_indices=[ids of the '
        "added tokens])")


def _generation_padding(reading: "ScriptReading", env: Mapping[str, str],
                        versions: Mapping[str, str | None]) -> list[Finding]:
    return _fault_at(
        reading, reading.facts.right_padded_generate, "script.generate-right-padding",
        "generate() at line {line} gets prompts padded on the right",
        "A decoder-only model continues from the last position of each row: with padding on "
        "the right, every prompt shorter than the longest one ends in pad tokens, and its answer "
        "is generated after them (transformers warns 'right-padding was detected'). Evaluation "
        "by generation then scores answers that training never produced.",
        'tokenizer.padding_side = "left"   # before tokenizing the prompts for generate()',
        key="tokenized_by")


def _h5_whole_model(reading: "ScriptReading", env: Mapping[str, str],
                    versions: Mapping[str, str | None]) -> list[Finding]:
    return _fault_at(
        reading, reading.facts.h5_whole_model, "script.keras-h5-whole-model",
        "Line {line} saves the whole transformers model to an .h5 file",
        "transformers' TF models are subclassed Keras models; HDF5 holds whole models only for "
        "Functional and Sequential ones, so saving raises NotImplementedError, with "
        "ModelCheckpoint at the end of the first epoch, after it has trained.",
        'tf_keras.callbacks.ModelCheckpoint("best.weights.h5", save_weights_only=True, '
        'save_best_only=True)\n# then model.save_pretrained("out") for a folder '
        "from_pretrained() loads")


# -- hyperparameters ------------------------------------------------------------------------------
def _learning_rate(reading: "ScriptReading", env: Mapping[str, str],
                   versions: Mapping[str, str | None]) -> list[Finding]:

    facts, case = reading.facts, reading.case
    opt = facts.optimizer
    out: list[Finding] = []
    lr: Any = None
    if facts.entry == "trainer" and (opt is None or opt.learning_rate is None):
        written = case.training.learning_rate is not None
        lr = facts.trainer_lr if written or facts.trainer_lr is not None else TRAINER_DEFAULT_LR
        line = reading.read.get("training.learning_rate") or reading.read.get("training.batch_size")
        source = ("TrainingArguments(learning_rate=...)" if written
                  else "the default of TrainingArguments")
        name, written_as, line_no = "adamw", "TrainingArguments", line.line if line else 0
    elif opt is not None:
        table = KERAS_DEFAULT_LR if facts.entry == "keras" else TORCH_DEFAULT_LR
        name, written_as, line_no = opt.name, opt.written, opt.line
        if opt.learning_rate is None:
            lr = table.get(opt.name.lower())
            kind = "Keras" if facts.entry == "keras" else "torch.optim"
            source = f"the default of {kind} {opt.name}" + (
                f" (optimizer={opt.written})" if opt.string_shortcut else " (no learning rate given)")
            if opt.string_shortcut and lr is not None:
                out.append(Finding(
                    "hyperparameters.hidden-defaults", "info",
                    f"optimizer={opt.written} (line {opt.line}) means "
                    f"{opt.name.capitalize() if opt.name.islower() else opt.name}"
                    f"(learning_rate={lr:g})",
                    evidence={**_where(reading, opt.line), "code": opt.written,
                              "means": {"learning_rate": lr}, "loss": case.training.loss,
                              "source": "tf-keras 2.x defaults"},
                    explanation="A string shortcut sets every hyperparameter of the optimizer to "
                                "its default, and nothing in the script shows it."))
        else:
            lr = opt.learning_rate
            source = opt.note or f"{opt.name}(learning_rate=...)"
    if isinstance(lr, Unresolved) or not isinstance(lr, (int, float)) or isinstance(lr, bool):
        return out
    spec = parse_optimizer("AdamWeightDecay" if name.lower() == "adamweightdecay" else name)
    spec.written = written_as
    found = learning_rate_finding(float(lr), source, spec, case.framework, facts.entry,
                                  line=line_no, evidence={**_where(reading, line_no),
                                                          "code": written_as},
                                  adapter=case.adapter.active)
    return out + ([found] if found else [])
