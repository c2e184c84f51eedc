"""Model-head probes: the classification head against the checkpoint and the dataset's classes.

- `probe_checkpoint_head`: loads the checkpoint the way the case does (num_labels as the user
  passes it) and reads transformers' own loading info: a head whose size differs from the
  checkpoint's (the real "size mismatch" error, reproduced), and the weights that are newly
  initialised (the expected new head, or body weights that did not load).
- `probe_num_labels`: the head's number of outputs against the classes in the data.
- `probe_label_mapping`: config.id2label / label2id against the dataset's ClassLabel names.
"""
from __future__ import annotations

import logging
import re
from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np

from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding
from wizard.core.tasks import task_of
from wizard.frameworks import import_tensorflow, import_torch

IGNORE_LABELS = (-100, -1)  # transformers' ignore index; datasets' "no label" (GLUE test splits)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_GENERIC = re.compile(r"^LABEL_\d+$")


def model_class(case: Case) -> str:
    """The AutoModel class the case's task loads (wizard.core.tasks)."""
    task = task_of(case.task)
    name = task.model_class if task is not None else "AutoModelForSequenceClassification"
    return f"TF{name}" if case.framework == "tensorflow" else name


def label_values(ctx: Context) -> dict[str, np.ndarray]:
    """Integer labels of each loaded split, without the ignore values; {} for other labels."""
    out: dict[str, np.ndarray] = {}
    for split in ctx.raw:
        labels = ctx.labels(split)
        if labels.dtype.kind in "iu" and labels.ndim == 1:
            out[split] = labels[~np.isin(labels, IGNORE_LABELS)]
    return out


def dataset_classes(ctx: Context) -> tuple[int, list[str] | None, list[int]]:
    """(number of classes, ClassLabel names or None, label values seen in the sample)."""
    names = ctx.label_names
    seen = sorted({int(v) for arr in label_values(ctx).values() for v in np.unique(arr)})
    n = max(len(names) if names else 0, (max(seen) + 1) if seen else 0)
    return n, names, seen


# -- loading the checkpoint with its loading info ------------------------------------------------
@contextmanager
def captured_transformers_log() -> Iterator[list[str]]:
    """Collect transformers' warnings (the loading report) instead of printing them."""
    from transformers.utils import logging as hf_logging

    logger = logging.getLogger("transformers")
    records: list[str] = []

    class _Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(_ANSI.sub("", record.getMessage()))

    keep = _Keep(level=logging.WARNING)
    default = getattr(hf_logging, "_default_handler", None)
    had_default = default is not None and default in logger.handlers
    old = hf_logging.get_verbosity()
    if had_default:
        logger.removeHandler(default)
    logger.addHandler(keep)
    hf_logging.set_verbosity_warning()
    try:
        yield records
    finally:
        logger.removeHandler(keep)
        hf_logging.set_verbosity(old)
        if had_default:
            logger.addHandler(default)


def _load_with_info(case: Case, ctx: Context, **extra: Any) -> tuple[Any, dict[str, Any]]:
    """from_pretrained(..., output_loading_info=True), as the case (and the backend) load the
    model; TF models loaded through the tf_model.h5 fallback get `_wizard_h5_fallback`."""
    kwargs: dict[str, Any] = {**ctx.pretrained_kwargs(), "output_loading_info": True, **extra}
    location = ctx.model_location
    if case.num_labels is not None:
        kwargs["num_labels"] = case.num_labels
    if case.framework == "tensorflow":

        import_tensorflow()
        from transformers import TFAutoModelForSequenceClassification as cls
        try:
            return cls.from_pretrained(location, **kwargs)
        except TypeError as exc:  # transformers 4.57's TF safetensors loader (see the backend)
            if "safe_open" not in str(exc):
                raise
            model, info = cls.from_pretrained(location, use_safetensors=False, **kwargs)
            info["_wizard_h5_fallback"] = True
            return model, info

    import_torch()
    import transformers

    return getattr(transformers, model_class(case)).from_pretrained(location, **kwargs)


def _first_lines(exc: BaseException, n: int = 3) -> str:
    lines = [ln.strip() for ln in _ANSI.sub("", str(exc)).strip().splitlines() if ln.strip()]
    return f"{type(exc).__name__}: " + " ".join(lines[:n])[:600]


def _shape(value: Any) -> list[int] | None:
    try:
        return [int(x) for x in tuple(value)]
    except Exception:
        return None


def _mismatched(info: dict[str, Any], model: Any, log: list[str]) -> list[dict[str, Any]]:
    """[{param, checkpoint, model}] from the loading info (tuples in TF / transformers 5, names
    in transformers 4 PyTorch, whose shapes are in the logged warning)."""
    out = []
    logged = {m.group(1): (m.group(2), m.group(3)) for m in re.finditer(
        r"- ([\w./:]+): found shape (?:torch\.Size\()?\[?\(?([\d, ]*)\]?\)?\)? in the checkpoint "
        r"and (?:torch\.Size\()?\[?\(?([\d, ]*)\]?\)?\)? in the model", "\n".join(log))}
    for item in sorted(info.get("mismatched_keys") or [], key=str):
        if isinstance(item, (tuple, list)) and len(item) == 3:
            out.append({"param": str(item[0]), "checkpoint": _shape(item[1]),
                        "model": _shape(item[2])})
            continue
        name = str(item)
        ck, md = logged.get(name, (None, None))
        model_shape = None
        try:
            model_shape = list(model.state_dict()[name].shape)
        except Exception:
            pass
        out.append({"param": name,
                    "checkpoint": [int(x) for x in ck.replace(",", " ").split()] if ck else None,
                    "model": model_shape or ([int(x) for x in md.replace(",", " ").split()]
                                             if md else None)})
    return out


def _weighted_tf_layers(model: Any, names: list[str]) -> list[str]:
    """TF loading info names layers; keep those that hold weights (not dropout layers)."""
    kept = []
    for name in names:
        try:
            weighted = bool(model.get_layer(name).weights)
        except Exception:
            weighted = not name.startswith("dropout")
        if weighted:
            kept.append(name)
    return kept


def _is_head(name: str, prefix: str, framework: str) -> bool:
    if framework == "tensorflow":
        return name != prefix
    return not name.startswith(prefix + ".")


def probe_checkpoint_head(case: Case, ctx: Context) -> list[Finding]:
    """Load the checkpoint as the case does and read the loading info: head size mismatch
    (the real error), the newly initialised head, body weights that did not load."""
    if not case.model:
        return []
    from transformers import AutoConfig

    try:
        ck_config = AutoConfig.from_pretrained(ctx.model_location, **ctx.pretrained_kwargs())
    except Exception:
        return []  # not reachable or not a checkpoint: the environment/hub probes report it
    ck_labels = int(ck_config.num_labels)
    archs = list(getattr(ck_config, "architectures", None) or [])
    findings: list[Finding] = []
    error = None
    ignore = bool(getattr(case, "ignore_mismatched_sizes", False))
    with captured_transformers_log() as log:
        try:
            model, info = _load_with_info(case, ctx, ignore_mismatched_sizes=ignore)
        except Exception as exc:
            error = _first_lines(exc)
            try:
                model, info = _load_with_info(case, ctx, ignore_mismatched_sizes=True)
            except Exception:
                return []  # not a head problem: the forward probe reports the loading error
    mismatched = _mismatched(info, model, log)
    if not mismatched and not ctx.is_loaded("model") and not info.get("_wizard_h5_fallback"):
        # the same from_pretrained call the backend makes: keep it instead of loading twice
        ctx.put("model", model.to(ctx.device) if hasattr(model, "to") else model)
    prefix = getattr(model, "base_model_prefix", "") or ""
    names = _label_names_or_none(ctx)
    cls = model_class(case)
    evidence_common = {"checkpoint": case.model, "checkpoint_architectures": archs,
                       "checkpoint_num_labels": ck_labels, "num_labels": case.num_labels}
    if mismatched:
        report = [ln for ln in "\n".join(log).splitlines()
                  if "MISMATCH" in ln or "found shape" in ln][:6]
        fix = (f"model = {cls}.from_pretrained(\n    {case.model!r},\n"
               f"    num_labels={case.num_labels},\n    ignore_mismatched_sizes=True,  # a new head "
               "for your classes, to be trained")
        if names and case.num_labels == len(names):
            fix += (f"\n    id2label={dict(enumerate(names))},"
                    f"\n    label2id={ {n: i for i, n in enumerate(names)} },")
        fix += "\n)"
        findings.append(Finding(
            "model.head-size-mismatch", "fail" if error else "info",
            (f"Loading with num_labels={case.num_labels} fails: the checkpoint's head has "
             f"{ck_labels} outputs" if error else
             f"The checkpoint's {ck_labels}-output head was replaced by a new "
             f"{case.num_labels}-output head (ignore_mismatched_sizes=True)"),
            evidence={**evidence_common, "error": error, "mismatched": mismatched,
                      "loading_report": report},
            explanation=("The checkpoint was fine-tuned with another number of classes, so its "
                         "classifier weights cannot be copied into a head of the size you ask "
                         "for. from_pretrained raised the error above (reproduced here). Pass "
                         "ignore_mismatched_sizes=True to drop the old head and train a new one; "
                         "the body's weights still load." if error else
                         "The old head was dropped; the new one starts random and is trained by "
                         "fine-tuning."),
            fix=fix if error else ""))
        if error and not ctx.is_loaded("model"):  # let the other probes run on the fixed load
            ctx.put("model", model.to(ctx.device) if hasattr(model, "to") else model)
            findings[-1].evidence["wizard_continues_with"] = "ignore_mismatched_sizes=True"
    missing = [str(k) for k in sorted(info.get("missing_keys") or [])]
    unexpected = [str(k) for k in sorted(info.get("unexpected_keys") or [])]
    if case.framework == "tensorflow":
        missing = _weighted_tf_layers(model, missing)
        unexpected = [k for k in unexpected if not k.startswith("dropout")]
    head_new = [k for k in missing if _is_head(k, prefix, case.framework)]
    body_new = [k for k in missing if not _is_head(k, prefix, case.framework)]
    evidence = {**evidence_common, "newly_initialised": missing[:20],
                "newly_initialised_count": len(missing),
                "not_used_from_checkpoint": unexpected[:20],
                "not_used_count": len(unexpected), "base_model_prefix": prefix}
    if body_new:
        findings.append(Finding(
            "model.new-head", "warn",
            f"{len(body_new)} weights of the model body are newly initialised, not loaded",
            evidence={**evidence, "body_newly_initialised": body_new[:20]},
            explanation="Not only the head but parts of the pretrained body start from random "
                        "values: the checkpoint's weight names do not match this architecture "
                        "(another model type, or weights saved from a different class). Training "
                        "then starts largely from scratch.",
            fix=f"from transformers import AutoConfig\n"
                f"print(AutoConfig.from_pretrained({case.model!r}).model_type)  # must match the "
                f"checkpoint\nmodel, info = {cls}.from_pretrained({case.model!r}, "
                "output_loading_info=True)\nprint(info['missing_keys'])"))
    elif head_new:
        findings.append(Finding(
            "model.new-head", "info",
            f"A new classification head is initialised ({', '.join(head_new[:4])}"
            f"{', ...' if len(head_new) > 4 else ''}): expected for fine-tuning",
            evidence=evidence,
            explanation="The checkpoint has no sequence-classification head (or not for these "
                        "classes), so transformers creates one with random weights and warns "
                        "'Some weights ... were not initialized from the model checkpoint'. "
                        "That warning is not an error: fine-tuning trains the new head."))
    elif not mismatched:
        findings.append(Finding(
            "model.new-head", "pass",
            f"Every weight comes from the checkpoint (its head already has {ck_labels} outputs)",
            evidence=evidence))
    return findings


def _label_names_or_none(ctx: Context) -> list[str] | None:
    try:
        return ctx.label_names
    except Exception:
        return None


def _config(ctx: Context) -> Any:
    model = ctx.loaded("model")
    return getattr(model, "config", None) or ctx.config


# -- num_labels against the classes ---------------------------------------------------------------
def probe_num_labels(case: Case, ctx: Context) -> list[Finding]:
    """More outputs than classes (info); fewer is data.labels-out-of-range's failure."""
    num_labels = int(_config(ctx).num_labels)
    n, names, seen = dataset_classes(ctx)
    if not n or num_labels < 2 or num_labels < n:
        return []  # regression/one output, or too few outputs: other checks report those
    evidence = {"num_labels": num_labels, "classes": n, "label_names": names, "labels_seen": seen,
                "source": "num_labels" if case.num_labels is not None else "the checkpoint's config"}
    if num_labels == n:
        return [Finding("model.num-labels-vs-classes", "pass",
                        f"The head has one output per class ({n})", evidence=evidence)]
    extra = list(range(n, num_labels))
    return [Finding(
        "model.num-labels-vs-classes", "info",
        f"The head has {num_labels} outputs but the data has {n} classes",
        evidence={**evidence, "outputs_never_targeted": extra},
        explanation=f"Outputs {extra[0]}..{extra[-1]} are never a target. Training still works "
                    f"(they are pushed down), but the initial loss is near ln({num_labels}) "
                    f"instead of ln({n}), and an undertrained model can predict a class that "
                    "does not exist.",
        fix=f"model = {model_class(case)}.from_pretrained({case.model!r}, num_labels={n})")]


# -- id2label / label2id against the ClassLabel names -------------------------------------------
def probe_label_mapping(case: Case, ctx: Context) -> list[Finding]:
    """config.id2label/label2id against the dataset's ClassLabel names."""
    names = _label_names_or_none(ctx)
    if not names:
        return []
    config = _config(ctx)
    id2label = {int(k): str(v) for k, v in (getattr(config, "id2label", None) or {}).items()}
    label2id = {str(k): int(v) for k, v in (getattr(config, "label2id", None) or {}).items()}
    model_names = [id2label.get(i, "") for i in range(len(id2label))]
    evidence = {"id2label": id2label, "label2id": label2id,
                "dataset_names": dict(enumerate(names))}
    fix = (f"model = {model_class(case)}.from_pretrained(\n    {case.model!r},\n"
           f"    num_labels={len(names)},\n    id2label={dict(enumerate(names))},\n"
           f"    label2id={ {n: i for i, n in enumerate(names)} },\n)")
    inverse = {v: k for k, v in id2label.items()}
    if label2id and inverse != label2id:
        return [Finding(
            "model.label-mapping", "warn", "label2id is not the inverse of id2label",
            evidence=evidence,
            explanation="Pipelines and the Hub widget use id2label to name predictions and "
                        "label2id to encode labels; when they disagree, one of the two names "
                        "classes wrongly. Usually id2label was passed without label2id.",
            fix=fix)]
    if all(_GENERIC.match(v) for v in model_names):
        return [Finding(
            "model.label-mapping", "info",
            f"id2label holds the generic names LABEL_0..LABEL_{len(model_names) - 1}",
            evidence=evidence,
            explanation="Training works, but predictions, pipelines and the saved model will say "
                        "LABEL_1 instead of the class name. Pass the dataset's names.",
            fix=fix)]
    norm = [n.strip().lower() for n in names]
    got = [n.strip().lower() for n in model_names]
    if got[:len(norm)] == norm:
        return [Finding("model.label-mapping", "pass",
                        "id2label matches the dataset's class names", evidence=evidence)]
    if sorted(got) == sorted(norm):
        swapped = [{"id": i, "model": model_names[i], "dataset": names[i]}
                   for i in range(len(names)) if got[i] != norm[i]]
        remap = {i: got.index(n) for i, n in enumerate(norm)}
        return [Finding(
            "model.label-mapping", "warn",
            "The checkpoint numbers the same classes in another order than the dataset",
            evidence={**evidence, "differs_at": swapped, "dataset_id_to_model_id": remap},
            explanation="The checkpoint's head was trained with other ids for these classes: "
                        "evaluated as is, its predictions are read as the wrong class (accuracy "
                        "far below what the model can do). Either map the dataset's labels to "
                        "the model's ids, or fine-tune with a new head.",
            fix=f"remap = {remap}  # dataset id -> model id\n"
                "dataset = dataset.map(lambda ex: {'label': remap[ex['label']]})")]
    return [Finding(
        "model.label-mapping", "info",
        "The checkpoint's labels name other classes than the dataset's",
        evidence=evidence,
        explanation="The checkpoint was fine-tuned for another task. Its head's outputs mean "
                    "those classes; fine-tuning re-learns them, but set id2label/label2id so the "
                    "saved model names the new classes.",
        fix=fix)]
