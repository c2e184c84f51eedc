"""Label probes: the label column reaches the model, its values are class ids the loss accepts,
and the eval split's classes match the train split's."""
from __future__ import annotations

import difflib
import inspect
import math
from collections import Counter
from typing import Any

import numpy as np

from wizard.checks.collation import (
    LABEL_NAMES,
    framework_message,
    model_config,
    padded_inputs,
    run_model,
    try_collate,
)
from wizard.checks.model_head import model_class
from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding

IGNORE_INDEX = -100
SHIFT_MIN_SAMPLES = 30      # per split, before a label shift is judged
SHIFT_MAX_P = 1e-3          # chi-square test of homogeneity
SHIFT_MIN_TV = 0.15         # total variation distance between the two label distributions


# -- the label column -------------------------------------------------------------------------
def probe_label_column(case: Case, ctx: Context) -> list[Finding]:
    """The label column exists, survives preprocessing, and has a name the trainer passes on."""
    spec = case.dataset
    train = ctx.raw[spec.train_split]  # loading settles label / labels / label_ids first
    col = spec.label_column
    columns = list(train.column_names)
    if col not in columns:
        return [_missing(case, ctx, col, columns)]
    try:
        tokenized_columns = list(ctx.tokenized[spec.train_split].column_names)
    except Exception:
        tokenized_columns = None
    if tokenized_columns is not None and col not in tokenized_columns and not (
            set(LABEL_NAMES) & set(tokenized_columns)):
        return [Finding(
            "data.label-column-missing", "fail",
            f"Preprocessing removed the label column {col!r}",
            evidence={"raw_columns": columns, "tokenized_columns": tokenized_columns},
            explanation="The raw dataset has the labels but the tokenized one does not (typically "
                        "map(..., remove_columns=dataset.column_names)); the model gets no labels "
                        "and returns no loss.",
            fix="tokenized = dataset.map(tokenize, batched=True,\n"
                f"                        remove_columns=[c for c in dataset['train'].column_names "
                f"if c != {col!r}])")]
    where = _label_route(case)
    if col in LABEL_NAMES or where == "keras-separate":
        return [Finding("data.label-column-missing", "pass",
                        f"The label column {col!r} reaches the model as `labels`",
                        evidence={"label_column": col, "route": where})]
    return [_misnamed(case, ctx, col, columns, where)]


def _label_route(case: Case) -> str:
    if case.trainer == "keras":
        return "keras-inputs" if case.training.labels == "inputs" else "keras-separate"
    return case.trainer  # trainer | loop


def _missing(case: Case, ctx: Context, col: str, columns: list[str]) -> Finding:
    train = ctx.raw[case.dataset.train_split]
    guess = difflib.get_close_matches(col, columns, n=1, cutoff=0.5)
    classlike = [c for c in columns if type(train.features[c]).__name__ == "ClassLabel"
                 or (getattr(train.features[c], "dtype", "") in ("int64", "int32", "int8", "int16")
                     and c not in ("idx", "id"))]
    pick = (guess or classlike or ["label"])[0]
    return Finding(
        "data.label-column-missing", "fail",
        f"The dataset has no column {col!r}",
        evidence={"label_column": col, "columns": columns, "closest": guess[:1],
                  "integer_or_classlabel_columns": classlike},
        explanation="Without a label column the model gets no labels: Trainer raises 'The model "
                    "did not return a loss from the inputs', Keras trains without targets.",
        fix=f"dataset = dataset.rename_column({pick!r}, \"labels\")\n"
            "# or in the case file: dataset.label_column: " + pick)


def _misnamed(case: Case, ctx: Context, col: str, columns: list[str], where: str) -> Finding:
    """A label column called neither label nor labels nor label_ids."""
    evidence: dict[str, Any] = {"label_column": col, "route": where,
                                "names_passed_on_as_labels": list(LABEL_NAMES)}
    if where == "trainer":
        params = _forward_params(ctx)
        kept = sorted(set(params) | set(LABEL_NAMES))
        evidence["model_forward_accepts"] = params
        evidence["trainer_drops"] = [c for c in columns if c not in kept]
        explanation = (f"Trainer(remove_unused_columns=True, the default) keeps only the "
                       f"columns model.forward accepts plus label/label_ids, so it drops {col!r}: "
                       "the model gets no labels and training stops with 'The model did not "
                       "return a loss from the inputs'.")
    else:
        try:
            outcome = _call_with_column(ctx, col)
        except Exception as exc:
            outcome = {"model_not_run": framework_message(exc)}
        evidence.update(outcome)
        what = outcome.get("framework_error") or (
            "the model ran and returned no loss" if outcome.get("loss") is None else
            "the model ran")
        explanation = (f"The collator passes {col!r} on under its own name, so the model is "
                       f"called with `{col}=...` instead of `labels=...`. Calling your model "
                       f"that way on two rows: {what}.")
    return Finding(
        "data.label-column-missing", "fail",
        f"The label column {col!r} does not reach the model as `labels`",
        evidence=evidence, explanation=explanation,
        fix=f"dataset = dataset.rename_column({col!r}, \"labels\")")


def _forward_params(ctx: Context) -> list[str]:
    model = ctx.model
    fn = getattr(model, "forward", None) or getattr(model, "call")
    return [n for n, p in inspect.signature(fn).parameters.items()
            if n != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]


def _call_with_column(ctx: Context, col: str) -> dict[str, Any]:
    split = ctx.tokenized[ctx.case.dataset.train_split]
    rows = split.select(range(min(2, len(split))))
    values = np.asarray(rows[col])
    if values.dtype.kind not in "iuf":
        return {}
    out = run_model(ctx, padded_inputs(ctx, list(rows["input_ids"])), extra={col: values})
    out.pop("logits", None)
    return out


# -- label values -----------------------------------------------------------------------------
def probe_label_values(case: Case, ctx: Context) -> list[Finding]:
    """String labels, labels not starting at 0, label dtype vs problem_type, token-level labels."""
    spec = case.dataset
    col = spec.label_column
    if col not in ctx.raw[spec.train_split].column_names:
        return []  # data.label-column-missing reports it
    values = {s: list(ds[col]) for s, ds in ctx.raw.items() if col in ds.column_names}
    every = [v for vs in values.values() for v in vs if v is not None]
    if not every:
        return []
    if any(isinstance(v, str) for v in every):
        return [_string_labels(case, ctx, values)]
    if any(isinstance(v, (list, tuple)) for v in every):
        return _list_labels(case, ctx, values)
    findings: list[Finding] = []
    floats = any(isinstance(v, float) for v in every) or case.training.float_labels
    if not floats:
        shifted = _not_zero_based(case, ctx, values)
        if shifted:
            findings.append(shifted)
        findings += _class_ids_for_a_one_hot_loss(case, values)
    findings += _scalar_dtype(case, ctx, values, floats)
    return findings


def _class_ids_for_a_one_hot_loss(case: Case, values: dict[str, list]) -> list[Finding]:
    """Keras' CategoricalCrossentropy takes one one-hot row per example; class ids (one integer
    each) are SparseCategoricalCrossentropy's labels."""
    loss = str(case.training.loss or "").lower().replace("_", "").rsplit(".", 1)[-1]
    if case.framework != "tensorflow" or case.training.one_hot_labels or loss not in (
            "categoricalcrossentropy", "categoricalfocalcrossentropy"):
        return []   # one-hot encoding on the way (tf.one_hot in the pipeline) makes the rows
    train = values[case.dataset.train_split]
    seen = sorted({int(v) for v in train if v is not None})
    written = case.training.loss
    return [Finding(
        "data.class-ids-for-one-hot-loss", "fail",
        f"loss={written} expects one-hot rows; the labels are class ids {seen[:6]}",
        evidence={"loss": written, "label_column": case.dataset.label_column,
                  "labels_seen": seen[:20], "first_labels": train[:5]},
        explanation="CategoricalCrossentropy compares each example's outputs with a one-hot "
                    "row as long as the outputs; a class id is one number, so Keras raises "
                    "'Shapes (None, 1) and (None, N) are incompatible' (or, broadcast, computes "
                    "a wrong loss).",
        fix="loss = tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True)   # class ids")]


def _string_labels(case: Case, ctx: Context, values: dict[str, list]) -> Finding:
    col = case.dataset.label_column
    counts = Counter(str(v) for vs in values.values() for v in vs if v is not None)
    names = sorted(counts)
    train = values[case.dataset.train_split]
    first = [{"index": i, "label": v} for i, v in enumerate(train[:5])]
    tf = case.framework == "tensorflow"
    try:
        error, where = _string_label_error(case, ctx, col, len(train), tf)
    except Exception:  # the texts cannot be tokenized: data.empty-text says why
        error, where = None, ""
    label2id = {n: i for i, n in enumerate(names)}
    evidence: dict[str, Any] = {"label_column": col, "distinct": len(names),
                                "counts": dict(counts.most_common(20)), "first_rows": first}
    if error:
        evidence["framework_error"] = error
    cls = model_class(case)
    shown = label2id if len(label2id) <= 20 else "{name: i for i, name in enumerate(names)}"
    return Finding(
        "data.string-labels", "fail",
        f"The labels are strings ({', '.join(repr(n) for n in names[:4])}"
        f"{', ...' if len(names) > 4 else ''}), never mapped to class ids",
        evidence=evidence,
        explanation="Losses need integer class ids; a string label cannot become a tensor"
                    + (" the loss accepts" if tf else "")
                    + (f" ({where} on two rows: {error})" if error else "") + ".",
        fix=f"label2id = {shown}\n"
            f"dataset = dataset.map(lambda x: {{\"labels\": label2id[x[{col!r}]]}}, "
            f"remove_columns=[{col!r}])\n"
            f"model = {cls}.from_pretrained(\n    checkpoint, num_labels={len(names)},\n"
            "    label2id=label2id, id2label={i: n for n, i in label2id.items()})")


def _string_label_error(case: Case, ctx: Context, col: str, n: int, tf: bool
                        ) -> tuple[str | None, str]:
    """What the user's pipeline says to two rows with string labels, and which step said it.

    PyTorch: the padding collator cannot make a tensor of strings. Keras: the collator of
    to_tf_dataset (return_tensors="np") makes a string array, so the model's loss is what
    fails ('Cast string to int64 is not supported')."""
    from transformers import DataCollatorWithPadding

    rows = ctx.tokenized[case.dataset.train_split].select(range(min(2, n)))
    features = [{"input_ids": r["input_ids"], col: r[col]} for r in rows]
    collator = DataCollatorWithPadding(ctx.tokenizer, return_tensors="np" if tf else "pt")
    error = try_collate(collator, features)
    if error or not tf:
        return error, "the collator"
    out = run_model(ctx, padded_inputs(ctx, [list(r["input_ids"]) for r in rows]),
                    labels=np.asarray([str(r[col]) for r in rows]))
    return out.get("framework_error") or out.get("not_run"), "your model"


def _not_zero_based(case: Case, ctx: Context, values: dict[str, list]) -> Finding | None:
    """Integer labels 1..C (0 never used): a 1-based labelling."""
    ints = sorted({int(v) for vs in values.values() for v in vs
                   if v is not None and int(v) != IGNORE_INDEX})
    if len(ints) < 2 or ints[0] != 1 or ints != list(range(1, ints[-1] + 1)):
        return None
    num_labels = model_config(ctx).num_labels
    col = case.dataset.label_column
    counts = Counter(int(v) for vs in values.values() for v in vs if v is not None)
    crashes = ints[-1] >= num_labels
    return Finding(
        "data.labels-not-zero-based", "fail" if crashes else "warn",
        f"The labels run 1..{ints[-1]}: class 0 is never used",
        evidence={"labels_seen": ints, "counts": {str(k): counts[k] for k in ints},
                  "num_labels": num_labels, "splits_checked": list(values)},
        explanation=("Class ids must start at 0. " + (
            f"Label {ints[-1]} has no output in a {num_labels}-way head (raising num_labels "
            "would hide the fault behind an output that is never trained)." if crashes else
            f"The {num_labels}-way head keeps an output for a class 0 that never occurs, and "
            "every predicted id is one off from the dataset's names.")),
        fix=f"dataset = dataset.map(lambda x: {{\"labels\": x[{col!r}] - 1}}, "
            f"remove_columns=[{col!r}])\n"
            f"model = {model_class(case)}.from_pretrained(checkpoint, "
            f"num_labels={len(ints)})")


def _scalar_dtype(case: Case, ctx: Context, values: dict[str, list], floats: bool) -> list[Finding]:
    config = model_config(ctx)
    num_labels, problem = int(config.num_labels), getattr(config, "problem_type", None)
    col = case.dataset.label_column
    train = [v for v in values[case.dataset.train_split] if v is not None]
    arr = np.asarray(train, dtype=float)
    evidence: dict[str, Any] = {"label_column": col, "dtype": "float" if floats else "int",
                                "num_labels": num_labels, "problem_type": problem,
                                "first_labels": train[:8]}
    torch = case.framework == "pytorch"
    if floats and num_labels > 1 and problem != "regression" and torch:
        nan = np.flatnonzero(~np.isfinite(arr))
        whole = bool(np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)))
        evidence.update(nan_rows=nan[:10].tolist(), nan_count=int(nan.size),
                        integer_valued=whole)
        evidence.update(_try_labels(ctx, np.nan_to_num(arr[:2]).astype(np.float32)))
        if case.training.float_labels:
            evidence["cast_by_the_script"] = True
        fix = ("labels = torch.tensor(labels, dtype=torch.long)   # class ids stay int64 "
               "(the script casts them to float)" if case.training.float_labels and whole else
               f"from datasets import Value\ndataset = dataset.cast_column({col!r}, "
               "Value(\"int64\"))" if whole else
               "model = AutoModelForSequenceClassification.from_pretrained(checkpoint, "
               "num_labels=1)  # regression on float targets")
        if nan.size:
            fix = (f"dataset = dataset.filter(lambda x: x[{col!r}] == x[{col!r}])  # drop NaN "
                   "labels\n" + fix)
        return [Finding(
            "data.label-dtype-problem-type", "fail",
            f"Float labels with a {num_labels}-way head: transformers switches to multi-label loss",
            evidence=evidence,
            explanation="With num_labels > 1 and float labels, transformers sets "
                        "problem_type='multi_label_classification' and uses BCEWithLogitsLoss, "
                        "which needs one 0/1 vector per example: "
                        + (evidence.get("framework_error") or "the loss is wrong")
                        + (f". {nan.size} labels are NaN (missing values read as float)"
                           if nan.size else "") + ".",
            fix=fix)]
    if problem == "multi_label_classification" and not floats and torch:
        evidence.update(_try_labels(ctx, arr[:2].astype(np.int64)))
        return [Finding(
            "data.label-dtype-problem-type", "fail",
            "problem_type='multi_label_classification' with one class id per example",
            evidence=evidence,
            explanation="Multi-label loss (BCEWithLogitsLoss) needs a float 0/1 vector of "
                        f"length {num_labels} per example: "
                        + (evidence.get("framework_error") or "the loss is wrong") + ".",
            fix="# single-label: drop problem_type\nmodel = AutoModelForSequenceClassification."
                f"from_pretrained(checkpoint, num_labels={num_labels})\n"
                "# multi-label: one-hot float vectors\n"
                f"dataset = dataset.map(lambda x: {{\"labels\": [float(i == x[{col!r}]) for i in "
                f"range({num_labels})]}}, remove_columns=[{col!r}])")]
    if num_labels == 1 and not floats and not case.training.binary_loss:
        distinct = sorted({int(v) for v in train})
        evidence["labels_seen"] = distinct[:20]
        return [Finding(
            "data.label-dtype-problem-type", "warn",
            f"num_labels=1 with integer labels {distinct[:6]}: the model does regression",
            evidence=evidence,
            explanation="One output means problem_type='regression': the loss is MSE on the "
                        "class ids and the predictions are real numbers, not classes.",
            fix=f"model = {model_class(case)}.from_pretrained(checkpoint, "
                f"num_labels={max(2, len(distinct))})\n# or, for a real regression target: "
                f"dataset = dataset.cast_column({col!r}, Value(\"float32\"))")]
    if floats and num_labels == 1:
        title = "The labels are float regression targets for a 1-output head"
    elif floats:
        title = f"The labels are float class ids; {case.framework} casts them for the loss"
    else:
        title = f"The labels are integer class ids for a {num_labels}-way head"
    return [Finding("data.label-dtype-problem-type", "pass", title, evidence=evidence)]


def _try_labels(ctx: Context, labels: np.ndarray) -> dict[str, Any]:
    """What the user's model says to two rows with these labels."""
    try:
        ids = list(ctx.tokenized[ctx.case.dataset.train_split].select(range(len(labels)))["input_ids"])
        out = run_model(ctx, padded_inputs(ctx, ids), labels=labels)
    except Exception as exc:
        return {"model_not_run": framework_message(exc)}
    out.pop("logits", None)
    return out


def _list_labels(case: Case, ctx: Context, values: dict[str, list]) -> list[Finding]:
    """Lists as labels: multi-hot vectors (fine when float, length num_labels) or token labels."""
    config = model_config(ctx)
    num_labels, problem = int(config.num_labels), getattr(config, "problem_type", None)
    col = case.dataset.label_column
    train = [v for v in values[case.dataset.train_split] if v is not None]
    lengths = [len(v) for v in train]
    flat = [x for v in train for x in v]
    multi_hot = (set(lengths) == {num_labels} and all(x in (0, 1) for x in flat)
                 and problem != "single_label_classification")
    evidence: dict[str, Any] = {"label_column": col, "num_labels": num_labels,
                                "problem_type": problem, "label_lengths": lengths[:10],
                                "first_labels": [v[:12] for v in train[:3]]}
    if multi_hot:
        floats = all(isinstance(x, float) for x in flat)
        if case.framework == "tensorflow":
            return [_tf_multi_hot(case, ctx, train, evidence)]
        if floats:
            return [Finding("data.label-dtype-problem-type", "pass",
                            f"Multi-label targets: 0/1 vectors of length {num_labels}",
                            evidence=evidence)]
        evidence.update(_try_labels(ctx, np.asarray(train[:2], dtype=np.int64)))
        return [Finding(
            "data.label-dtype-problem-type", "fail",
            "Multi-label targets are integers; BCEWithLogitsLoss needs floats",
            evidence=evidence,
            explanation="Multi-hot labels must be float: "
                        + (evidence.get("framework_error") or "the loss is wrong") + ".",
            fix=f"from datasets import Sequence, Value\ndataset = dataset.cast_column({col!r}, "
                "Sequence(Value(\"float32\")))")]
    try:
        tokenized = ctx.tokenized[case.dataset.train_split]
        ids = list(tokenized.select(range(min(2, len(tokenized))))["input_ids"])
        evidence["input_lengths"] = [len(i) for i in tokenized.select(
            range(min(10, len(tokenized))))["input_ids"]]
    except Exception:
        ids = []
    if len(ids) == 2:
        width = max(len(v) for v in train[:2])
        labels = np.full((2, width), IGNORE_INDEX, dtype=np.int64)
        for i, v in enumerate(train[:2]):
            labels[i, :len(v)] = [int(x) for x in v]
        out = run_model(ctx, padded_inputs(ctx, ids), labels=labels)
        out.pop("logits", None)
        evidence.update(out)
    error = evidence.get("framework_error")
    return [Finding(
        "data.token-labels-for-sequence-head", "fail",
        "The labels are lists (one per token) but the model predicts one class per example",
        evidence=evidence,
        explanation="A sequence-classification head makes one prediction per example; "
                    f"{len(train)} examples carry {sum(lengths)} labels. Run on two rows, the "
                    f"model says: {error or 'no error, but the loss pairs the wrong values'}.",
        fix="# token classification (NER, POS):\n"
            "from transformers import AutoModelForTokenClassification, "
            "DataCollatorForTokenClassification\n"
            "model = AutoModelForTokenClassification.from_pretrained(checkpoint, "
            "num_labels=num_labels)\n"
            "data_collator = DataCollatorForTokenClassification(tokenizer)\n"
            "# sequence classification: one integer label per example")]


def _tf_multi_hot(case: Case, ctx: Context, train: list, evidence: dict[str, Any]) -> Finding:
    """Keras: multi-hot targets need a Keras loss; transformers' TF models have no multi-label
    loss of their own (they always use sparse categorical cross-entropy for num_labels > 1)."""
    num_labels = evidence["num_labels"]
    if case.training.loss:
        return Finding("data.label-dtype-problem-type", "pass",
                       f"Multi-label targets: 0/1 vectors of length {num_labels}, for your "
                       f"Keras loss {case.training.loss!r}", evidence=evidence)
    evidence.update(_try_labels(ctx, np.asarray(train[:2], dtype=np.float32)))
    error = evidence.get("framework_error")
    if not error:
        return Finding("data.label-dtype-problem-type", "pass",
                       f"Multi-label targets: 0/1 vectors of length {num_labels}",
                       evidence=evidence)
    return Finding(
        "data.label-dtype-problem-type", "fail",
        "Multi-label targets for the model's own loss, which is single-label in TensorFlow",
        evidence=evidence,
        explanation="transformers' TensorFlow models compute sparse categorical cross-entropy "
                    "(one class id per example) whenever num_labels > 1, whatever the "
                    "problem_type; 0/1 vectors need a Keras loss. Your model on two rows: "
                    f"{error}.",
        fix="import tf_keras\n"
            "train_dataset = tokenized_datasets[\"train\"].to_tf_dataset(\n"
            "    columns=[\"input_ids\", \"attention_mask\"], label_cols=[\"labels\"],\n"
            f"    batch_size={case.training.batch_size}, shuffle=True, collate_fn=data_collator)\n"
            "model.compile(optimizer=optimizer,\n"
            "              loss=tf_keras.losses.BinaryCrossentropy(from_logits=True))")


# -- train vs eval ------------------------------------------------------------------------------
def probe_eval_labels(case: Case, ctx: Context) -> list[Finding]:
    """Classes in eval that train never shows, and an eval label distribution far from train's."""
    spec = case.dataset
    col = spec.label_column
    if not spec.eval_split or spec.eval_split not in ctx.raw:
        return []
    train_ds, eval_ds = ctx.raw[spec.train_split], ctx.raw[spec.eval_split]
    if col not in train_ds.column_names or col not in eval_ds.column_names:
        return []
    train, evals = _scalar_labels(list(train_ds[col])), _scalar_labels(list(eval_ds[col]))
    if train is None or evals is None or not train or not evals:
        return []
    ct, ce = Counter(train), Counter(evals)
    names = ctx.loaded("label_names") or _names(train_ds, col)
    majority = ct.most_common(1)[0][0]
    base: dict[str, Any] = {
        "train_rows": len(train), "eval_rows": len(evals),
        "train_counts": {str(k): v for k, v in sorted(ct.items(), key=lambda kv: str(kv[0]))},
        "eval_counts": {str(k): v for k, v in sorted(ce.items(), key=lambda kv: str(kv[0]))},
        "eval_accuracy_of_train_majority": round(ce.get(majority, 0) / len(evals), 3),
        "eval_majority_share": round(ce.most_common(1)[0][1] / len(evals), 3)}
    unseen = sorted((k for k in ce if k not in ct), key=str)
    if unseen:
        rows = [i for i, v in enumerate(evals) if v in set(unseen)]
        # fewer rows than the sample cap: the whole train split was read, so the classes are
        # truly absent from it (a sample of a larger split may just have missed them)
        whole = len(train) < spec.max_samples
        return [Finding(
            "data.eval-classes-unseen", "fail" if whole else "warn",
            f"{len(rows)} eval rows have classes the train rows never show: "
            f"{', '.join(_show(k, names) for k in unseen[:5])}",
            evidence={**base, "unseen_classes": unseen, "eval_rows_with_them": rows[:10],
                      "eval_share": round(len(rows) / len(evals), 3),
                      "whole_train_split_read": whole},
            explanation=(f"The whole train split ({len(train)} rows) never shows these classes, "
                         if whole else
                         f"Among the {len(train)} train rows checked these classes never occur, ")
                        + 
                        "so the model cannot learn them and every eval row of theirs is scored "
                        "wrong. If the train split is sorted by label, its first rows are not "
                        "representative: shuffle before selecting.",
            fix="from datasets import concatenate_datasets\n"
                "full = concatenate_datasets([dataset['train'], dataset['validation']])\n"
                f"dataset = full.train_test_split(test_size=0.1, stratify_by_column={col!r}, "
                "seed=0)  # needs a ClassLabel column\n"
                "# or: dataset['train'] = dataset['train'].shuffle(seed=0)")]
    shift = _shift(ct, ce)
    base.update(shift)
    if (len(train) >= SHIFT_MIN_SAMPLES and len(evals) >= SHIFT_MIN_SAMPLES
            and shift["p_value"] < SHIFT_MAX_P and shift["total_variation"] >= SHIFT_MIN_TV):
        worst = max(shift["share_difference"], key=lambda k: abs(shift["share_difference"][k]))
        return [Finding(
            "data.eval-label-shift", "warn",
            f"The eval labels are distributed unlike the train labels (total variation "
            f"{shift['total_variation']:.2f})",
            evidence=base,
            explanation=f"Class {_show(worst, names)} holds {shift['train_share'][worst]:.0%} of "
                        f"the train rows and {shift['eval_share'][worst]:.0%} of the eval rows "
                        f"(chi-square p = {shift['p_value']:.1e}). Eval metrics then measure "
                        "another mix than training optimises; a sorted train split (first rows "
                        "only) looks like this too.",
            fix="dataset['train'] = dataset['train'].shuffle(seed=0)\n"
                "# or re-split with stratify_by_column=" + repr(col))]
    return [Finding("data.eval-label-shift", "pass",
                    "The eval split has the train split's classes in similar shares",
                    evidence=base)]


def _scalar_labels(values: list) -> list | None:
    """Integer or string labels without the unlabelled ones (None, -1 as in GLUE test splits,
    -100); None for float or list labels."""
    out = [v for v in values if v is not None]
    if any(isinstance(v, (list, tuple, float)) for v in out):
        return None
    return [v for v in out if not (isinstance(v, int) and v < 0)]


def _names(ds: Any, col: str) -> list[str] | None:
    return list(getattr(ds.features.get(col), "names", None) or []) or None


def _show(label: Any, names: list[str] | None) -> str:
    if names and isinstance(label, int) and 0 <= label < len(names):
        return f"{label} ({names[label]})"
    return repr(label) if isinstance(label, str) else str(label)


def _shift(ct: Counter, ce: Counter) -> dict[str, Any]:
    keys = sorted(set(ct) | set(ce), key=str)
    nt, ne = sum(ct.values()), sum(ce.values())
    st = {str(k): ct.get(k, 0) / nt for k in keys}
    se = {str(k): ce.get(k, 0) / ne for k in keys}
    tv = 0.5 * sum(abs(st[k] - se[k]) for k in st)
    chi2 = 0.0
    for k in keys:
        total = ct.get(k, 0) + ce.get(k, 0)
        for n, observed in ((nt, ct.get(k, 0)), (ne, ce.get(k, 0))):
            expected = total * n / (nt + ne)
            if expected > 0:
                chi2 += (observed - expected) ** 2 / expected
    dof = max(1, len(keys) - 1)
    return {"total_variation": round(tv, 4), "chi2": round(chi2, 3), "dof": dof,
            "p_value": float(f"{chi2_sf(chi2, dof):.3g}"),
            "train_share": {k: round(v, 3) for k, v in st.items()},
            "eval_share": {k: round(v, 3) for k, v in se.items()},
            "share_difference": {k: round(se[k] - st[k], 3) for k in st}}


def chi2_sf(x: float, dof: int) -> float:
    """P(X > x) for a chi-square variable with `dof` degrees of freedom (regularised upper
    incomplete gamma Q(dof/2, x/2), series / continued fraction as in Numerical Recipes)."""
    a, x = dof / 2.0, x / 2.0
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(1000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-14:
                break
        return min(1.0, max(0.0, 1.0 - total * math.exp(log_front)))
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-14:
            break
    return min(1.0, max(0.0, math.exp(log_front) * h))
