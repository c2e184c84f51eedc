"""The Python API: run the wizard's checks on live objects in a notebook or a script.

    from wizard import diagnose
    report = diagnose(model, batch, tokenizer=tokenizer, optimizer=optimizer)
    report.show()              # rich panels in a terminal, Markdown + plots in a notebook
    report.write("report/")    # the same report files as `python -m wizard check`

    from wizard import check   # a case: `python -m wizard check CASE.yaml` in a notebook
    report = check("case.yaml", traceback=pasted_error, script="train.py", script_args=[...])

Works on transformers models (TensorFlow and PyTorch) and on a plain Keras model or torch
nn.Module with (x, y) data; the checks that need a tokenizer or a dataset run when given one.
"""
from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Iterable

import numpy as np

from wizard.backends.tf_train import choice_from_instance
from wizard.checks.hyperparameters import effective_learning_rate, learning_rate_finding
from wizard.checks.training import LiveSetup, training_backend, output_kind, target_for
from wizard.context import Batch, Context, ForwardResult
from wizard.core.case import Case, DatasetSpec, Training
from wizard.core.findings import Finding, Verdict
from wizard.core.optimizer import parse_optimizer
from wizard.engine.plan import Step
from wizard.engine.session import Session
from wizard.errors import InputError
from wizard.frontends.terminal.console import (
    detailed,
    finding_line,
    finding_panel,
    make_console,
    verdict_panel,
)
from wizard.live.run import check_case
from wizard.reports.plots import render_all
from wizard.reports.render import write_reports
from wizard.settings import PROBE_TIMEOUT

TRAINING = "wizard.checks.training"
# short name -> registered probe name (when the registry has it) or "module:function"
CHECKS: dict[str, str] = {
    "environment": "environment",
    "batch": "batch",
    "labels-in-inputs": "labels-in-inputs",
    "labels": "labels",
    "balance": "balance",
    "forward": "forward",
    "optimizer": "optimizer",
    "loss-output": f"{TRAINING}:probe_loss_output",
    "overfit": f"{TRAINING}:probe_overfit",
    "gradients": f"{TRAINING}:probe_gradients",
    "embeddings": f"{TRAINING}:probe_embeddings",
    "curves": "curves",
}
ANY_NETWORK = ("environment", "forward", "optimizer", "loss-output", "overfit", "gradients",
               "embeddings", "curves")
PLAIN_LEARNING_RATE = "wizard.api:probe_plain_learning_rate"  # "optimizer" on a plain network
# Plain networks trained from scratch (not a pretrained transformer): per optimizer family the
# usual start, and the rates above which it warns / fails. Adaptive: the Adam default 1e-3
# (Kingma & Ba; torch and Keras), 10x above it is the top of the usual search range, 100x
# diverges. SGD: Keras's default 0.01 and 0.1 (the ResNet recipe, with momentum) are usual.
# == the report ==================================================================================
@dataclass
class Report:
    """The findings and the verdict of one diagnose() call."""

    result: Any  # wizard.engine.session.Result

    @property
    def findings(self) -> list[Finding]:
        return self.result.findings

    @property
    def verdict(self) -> Verdict:
        return self.result.verdict

    @property
    def failed(self) -> list[Finding]:
        return [f for f in self.findings if f.status == "fail"]

    def get(self, id: str) -> Finding | None:
        return next((f for f in self.findings if f.id == id), None)

    def __getitem__(self, id: str) -> Finding:
        found = self.get(id)
        if found is None:
            raise KeyError(f"no finding {id!r}; found: {', '.join(f.id for f in self.findings)}")
        return found

    def __contains__(self, id: object) -> bool:
        return any(f.id == id for f in self.findings)

    def ids(self, *statuses: str) -> list[str]:
        return [f.id for f in self.findings if not statuses or f.status in statuses]

    def to_dict(self) -> dict[str, Any]:
        return self.result.to_dict()

    def write(self, out_dir: str | Path, formats: Iterable[str] = ("markdown",)) -> list[Path]:
        """Plots (PNG) and report files, as `python -m wizard check --report DIR` writes them."""

        out = Path(out_dir)
        paths = write_reports(self.result, out, tuple(formats))
        (out / "result.json").write_text(json.dumps(self.to_dict(), indent=2, default=str))
        self.result.reports = [str(p) for p in paths]
        return paths

    def show(self, plots: bool = True) -> None:
        """Rich panels in a terminal; Markdown and the plots inline in a notebook."""
        if _in_notebook():
            from IPython.display import Image, Markdown, display

            display(Markdown(self._repr_markdown_()))
            if plots:
                with tempfile.TemporaryDirectory() as tmp:

                    for path in render_all(self.findings, tmp):
                        display(Image(filename=str(path)))
            return

        console = make_console()
        for f in self.findings:
            console.print(finding_panel(f) if detailed(f) else finding_line(f))
        console.print(verdict_panel(self.verdict))

    def _repr_markdown_(self) -> str:
        v = self.verdict
        lines = [f"**Verdict: {v.kind}** — {v.summary}", "", "| status | check | finding |",
                 "|---|---|---|"]
        lines += [f"| {f.status} | `{f.id}` | {f.title.replace('|', '/')} |" for f in self.findings]
        for f in self.findings:
            if detailed(f) and f.status != "error" and f.fix:
                lines += ["", f"**{f.title}**", "", f.explanation, "", "```python", f.fix, "```"]
        return "\n".join(lines)

    def __repr__(self) -> str:
        counts = {s: len([f for f in self.findings if f.status == s])
                  for s in ("fail", "warn", "error")}
        return (f"<Report {self.verdict.kind}: {len(self.findings)} findings, "
                + ", ".join(f"{n} {s}" for s, n in counts.items()) + ">")


def _in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


# == diagnose =====================================================================================
def diagnose(model: Any, batch: Any = None, *, tokenizer: Any = None, dataset: Any = None,
             optimizer: Any = None, loss: Any = None, num_labels: int | None = None,
             training_args: Any = None, logs: Any = None, checks: Iterable[str] | None = None,
             steps: int | None = None, label_column: str | None = None,
             on_event: Any = None) -> Report:
    """Run the wizard's checks on live objects.

    model: a transformers model (PyTorch or TF), a torch nn.Module or a Keras model.
    batch: one batch as the model gets it: a dict (labels under "labels"/"label"), or
        (inputs, labels); None takes the first batch of `dataset`.
    dataset: a datasets.Dataset (tokenized, or raw text with `tokenizer`), a DataLoader or a
        tf.data.Dataset; a datasets.Dataset also feeds the label checks.
    optimizer: the optimizer object (torch.optim / tf_keras), or a string like "adam";
        Keras: defaults to model.optimizer when compiled. training_args: TrainingArguments.
    loss: the loss as compile()/your loop uses it (string, loss object or function); Keras:
        defaults to model.loss. None: the transformers model's own loss.
    logs: training logs: a path (trainer_state.json, CSVLogger, TensorBoard folder), a Keras
        History, a Trainer, or a log_history list.
    checks: names from wizard.api.CHECKS (default: all that apply). On a plain network
        "optimizer" judges the given optimizer's learning rate by the ranges for training from
        scratch (hyperparameters.PLAIN_LR), not by the transformer fine-tuning range.
    steps: steps for the overfit-one-batch runs (default 40).
    """

    framework = framework_of(model)
    transformers = is_transformers_model(model)
    if framework == "tensorflow":
        optimizer, loss = _keras_compiled(model, optimizer, loss)
    live_batch = to_batch(batch, dataset, tokenizer, framework, label_column)
    raw = _raw_splits(dataset, label_column)
    case = _case(model, framework, transformers, live_batch, optimizer, loss, num_labels,
                 training_args, logs, raw, label_column)
    objects: dict[str, Any] = {"model": model, "batch": live_batch}
    if tokenizer is not None:
        objects["tokenizer"] = tokenizer
    if raw is not None:
        objects["raw"] = raw
    if transformers:
        objects["config"] = model.config
    device = _device_of(model, framework)
    ctx = Context.from_objects(case, device=device, **objects)
    ctx.live = LiveSetup(optimizer=optimizer, loss=loss, training_args=training_args,
                         plain=not transformers, steps=steps)
    if not transformers:
        _prefill_plain(ctx, live_batch, num_labels)
    names = _checks(checks, transformers, framework, tokenizer, raw, case, live_batch,
                    has_optimizer=optimizer is not None or training_args is not None)
    steps_ = tuple(Step(n, n, "", (_probe_name(n, transformers),)) for n in names)
    result = Session(case, device=device, ctx=ctx, steps=steps_,
                     on_event=on_event).run()
    result.path = ["api", *result.path]
    return Report(result)


# == check: a case ===================================================================================
def check(case: Case | Mapping[str, Any] | str | Path, *, traceback: str | None = None,
          script: str | Path | None = None, script_args: Iterable[str] | None = None,
          device: str = "auto", timeout: float = PROBE_TIMEOUT, on_event: Any = None,
          search_issues: bool | None = None) -> Report:
    """Run the checks of a case, as `python -m wizard check CASE.yaml` does.

    case: a Case, the path of a case file, or its fields as a dict.
    traceback, script, script_args: the case fields of the same names, given here: a pasted
        error and the training script that raised it (with its arguments). When the error
        comes from inside a library and the setup checks out, a reproduction is cut from the
        script and verified in a fresh interpreter (report.reproduction; verdict library-bug).
    search_issues: when no known cause explains the error, search the GitHub issues of the
        library it points at (report.reported-before; only the message's stable words are sent).
    """
    given = _case_of(case)
    if traceback is not None:
        given.traceback = traceback
        given.symptom = "error" if given.symptom in ("not-sure", "none") else given.symptom
    if script is not None:
        given.script = str(script)
    if script_args is not None:
        given.script_args = [str(a) for a in script_args]
    if search_issues is not None:
        given.search_issues = search_issues
    given.validate()
    result = check_case(given, device=device, timeout=timeout, on_event=on_event)
    result.path = ["api", *result.path]
    return Report(result)


def _case_of(case: Case | Mapping[str, Any] | str | Path) -> Case:
    """A copy of the case, not validated yet (check() sets its own fields first)."""
    if isinstance(case, Case):
        return Case.from_dict(case.to_dict(), validate=False)
    if isinstance(case, Mapping):
        return Case.from_dict(dict(case), validate=False)
    return Case.from_file(case, validate=False)


def _probe_name(check: str, transformers: bool) -> str:
    """The probe behind a check name; a plain network's learning rate has its own ranges."""
    if check == "optimizer" and not transformers:
        return PLAIN_LEARNING_RATE
    return CHECKS[check]


def _checks(checks: Iterable[str] | None, transformers: bool, framework: str, tokenizer: Any,
            raw: Any, case: Case, batch: Any, has_optimizer: bool = True) -> list[str]:
    if checks is not None:
        names = list(checks)
        unknown = [n for n in names if n not in CHECKS]
        if unknown:
            raise InputError(f"Unknown check {unknown[0]!r}; use some of: "
                                   f"{', '.join(CHECKS)}.")
        return names
    names = list(CHECKS)
    if not transformers:
        names = [n for n in names if n in ANY_NETWORK]
        if not has_optimizer:  # a plain network's learning rate is only judged when given
            names = [n for n in names if n != "optimizer"]
    if tokenizer is None or "input_ids" not in batch.inputs:
        names = [n for n in names if n != "batch"]
    if framework != "tensorflow" or batch.labels is None:
        names = [n for n in names if n != "labels-in-inputs"]
    if raw is None:
        names = [n for n in names if n not in ("labels", "balance")]
    if not case.logs:
        names = [n for n in names if n != "curves"]
    if batch.labels is None:
        names = [n for n in names if n not in ("overfit", "loss-output", "embeddings")]
    integer = batch.labels is not None and np.asarray(batch.labels).dtype.kind in "iu"
    if not transformers and not integer:
        names = [n for n in names if n != "forward"]  # its initial-loss check is for classes
    return names


# -- recognising the objects ------------------------------------------------------------------------
def framework_of(model: Any) -> str:
    """'pytorch' for a torch nn.Module, 'tensorflow' for a Keras model (no framework import)."""
    import sys

    torch = sys.modules.get("torch")
    if torch is not None and isinstance(model, torch.nn.Module):
        return "pytorch"
    for cls in type(model).__mro__:
        mod = cls.__module__ or ""
        if mod.startswith(("tf_keras", "keras", "tensorflow")):
            return "tensorflow"
    raise InputError(f"diagnose() needs a torch nn.Module or a Keras model, not "
                           f"{type(model).__name__}; pass the model object itself.")


def is_transformers_model(model: Any) -> bool:
    return any((cls.__module__ or "").startswith("transformers")
               for cls in type(model).__mro__) and hasattr(model, "config")


def _device_of(model: Any, framework: str) -> str:
    if framework == "pytorch":
        for p in model.parameters():
            return str(p.device)
    return "auto"


def _keras_compiled(model: Any, optimizer: Any, loss: Any) -> tuple[Any, Any]:
    """compile()'s optimizer and loss, unless given; transformers' dummy loss is no loss."""
    if optimizer is None:
        optimizer = getattr(model, "optimizer", None)
    if loss is None and getattr(model, "compiled_loss", None) is not None:
        if not getattr(model, "_using_dummy_loss", False):
            loss = getattr(model, "loss", None)
    return optimizer, loss


def _np(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):
        return value.detach().cpu().numpy()
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    return np.asarray(value)


def to_batch(batch: Any, dataset: Any, tokenizer: Any, framework: str,
             label_column: str | None = None) -> Any:
    """A wizard.context.Batch from a dict, an (inputs, labels) pair, or a dataset's first batch."""

    if batch is None:
        batch = _first_of(dataset, tokenizer, label_column)
    native = batch
    if isinstance(batch, (tuple, list)) and len(batch) in (2, 3):
        x, y = batch[0], batch[1]
        inputs = ({k: _np(v) for k, v in x.items()} if isinstance(x, Mapping) or hasattr(x, "keys")
                  else {"x": _np(x)})
        labels = _np(y) if y is not None else None
        n = len(next(iter(inputs.values())))
        return Batch(inputs, labels, False, None, list(range(n)), native=native)
    if isinstance(batch, Mapping) or hasattr(batch, "keys"):
        inputs = {k: _np(batch[k]) for k in batch.keys()}
        key = next((k for k in ("labels", "label", label_column) if k and k in inputs), None)
        n = len(next(iter(inputs.values())))
        if key is not None and key != "labels":
            inputs["labels"] = inputs.pop(key)
            key = "labels"
        return Batch(inputs, inputs.get(key) if key else None, key is not None, key or "labels",
                     list(range(n)), native=native)
    if batch is not None and not isinstance(batch, (str, bytes)):
        inputs = {"x": _np(batch)}
        return Batch(inputs, None, False, None, list(range(len(inputs["x"]))), native=native)
    raise InputError("Give a batch (a dict with input_ids/labels, or (inputs, labels)) or "
                           "a dataset to take the first batch from.")


def _first_of(dataset: Any, tokenizer: Any, label_column: str | None) -> Any:
    if dataset is None:
        raise InputError("Give a batch (a dict with input_ids/labels, or (inputs, labels)) "
                               "or a dataset to take the first batch from.")
    if hasattr(dataset, "column_names") and hasattr(dataset, "select"):
        return _collate_rows(dataset, tokenizer, label_column)
    try:
        return next(iter(dataset))
    except StopIteration:
        raise InputError("The dataset is empty; give one with at least one batch.") from None
    except TypeError:
        raise InputError(f"Cannot iterate over {type(dataset).__name__}; give a "
                               "datasets.Dataset, a DataLoader or a tf.data.Dataset.") from None


def _collate_rows(ds: Any, tokenizer: Any, label_column: str | None, size: int = 16) -> Any:
    """The first rows of a datasets.Dataset, tokenized if needed and padded like a collator."""
    if tokenizer is None:
        raise InputError("A datasets.Dataset needs tokenizer= to be batched like the model "
                               "sees it; pass the tokenizer (or a batch).")
    from transformers import DataCollatorWithPadding

    rows = ds.select(range(min(size, len(ds))))
    label = next((c for c in (label_column, "labels", "label") if c and c in rows.column_names),
                 None)
    names = list(getattr(tokenizer, "model_input_names", ["input_ids", "attention_mask"]))
    if "input_ids" not in rows.column_names:
        texts = [c for c in rows.column_names if rows.features[c].dtype == "string"][:2]
        if not texts:
            raise InputError("The dataset has neither input_ids nor a text column; "
                                   "tokenize it first (dataset.map(tokenize, batched=True)).")
        enc = tokenizer(*[list(rows[c]) for c in texts], truncation=True)
        feats = [{k: enc[k][i] for k in enc if k in names} for i in range(len(rows))]
    else:
        feats = [{k: r[k] for k in names if k in r} for r in rows]
    if label:
        for f, r in zip(feats, rows):
            f["labels"] = r[label]
    return dict(DataCollatorWithPadding(tokenizer, return_tensors="np")(feats))


def _raw_splits(dataset: Any, label_column: str | None) -> dict[str, Any] | None:
    """{"train": dataset} for a datasets.Dataset with a label column (feeds the label checks)."""
    if dataset is None or not hasattr(dataset, "column_names"):
        return None
    if not any(c in dataset.column_names for c in (label_column, "label", "labels") if c):
        return None
    return {"train": dataset}


def _case(model: Any, framework: str, transformers: bool, batch: Any, optimizer: Any, loss: Any,
          num_labels: int | None, training_args: Any, logs: Any, raw: Any,
          label_column: str | None) -> Case:
    """A Case describing the live objects (not validated: there are no files behind it)."""
    name = (getattr(getattr(model, "config", None), "_name_or_path", "") or type(model).__name__)
    label_col = next((c for c in (label_column, "label", "labels")
                      if c and raw is not None and c in raw["train"].column_names), "label")
    text_cols = ["text"]
    if raw is not None:
        text_cols = [c for c in raw["train"].column_names
                     if raw["train"].features[c].dtype == "string"][:2] or ["text"]
    training = Training(labels="inputs" if batch.labels_in_inputs else "separate",
                        batch_size=len(batch.indices))
    if training_args is not None:
        training.trainer = "trainer"
        training.learning_rate = float(training_args.learning_rate)
        training.weight_decay = float(getattr(training_args, "weight_decay", 0.0))
        training.optimizer = "adamw"
    elif optimizer is not None:
        training.trainer = "keras" if framework == "tensorflow" else "loop"
        training.optimizer = _optimizer_spec(optimizer)
    else:
        training.trainer = "keras" if framework == "tensorflow" else "loop"
        training.optimizer = "adam"
    if isinstance(loss, str):
        training.loss = loss
    elif loss is not None:
        training.loss = getattr(loss, "__name__", None) or type(loss).__name__
        config = getattr(loss, "get_config", lambda: {})()
        if "from_logits" in config:
            training.from_logits = bool(config["from_logits"])
    case = Case(model=name, framework=framework,
                num_labels=num_labels or getattr(getattr(model, "config", None), "num_labels", None),
                dataset=DatasetSpec(path="(live objects)", eval_split=None,
                                    label_column=label_col, text_columns=text_cols),
                training=training, symptom="not-sure", logs=_logs_path(logs),
                notes="Checked through the Python API on live objects.")
    return case


def _optimizer_spec(optimizer: Any) -> Any:
    """What the optimizer probe reads: the user's string, or {name, learning_rate} of an object."""
    if isinstance(optimizer, (str, dict)):
        return optimizer
    inner = getattr(optimizer, "optimizer", None)
    opt = inner if inner is not None and hasattr(inner, "param_groups") else optimizer
    if hasattr(opt, "param_groups"):
        lr = opt.param_groups[0].get("lr")
        return {"name": type(opt).__name__, "lr": float(lr)} if lr is not None else \
            {"name": type(opt).__name__}

    choice = choice_from_instance(opt)
    spec: dict[str, Any] = {"name": type(opt).__name__}
    if choice.learning_rate is not None:
        spec["learning_rate"] = choice.learning_rate
    return spec


def _logs_path(logs: Any) -> str | None:
    """A path the curves reader takes: as given, or a JSON file written from the object."""
    if logs is None:
        return None
    if isinstance(logs, (str, Path)):
        return str(logs)
    data: Any = None
    name = "history.json"
    if hasattr(logs, "history") and isinstance(logs.history, dict):  # Keras History
        data = {k: [float(v) for v in vals] for k, vals in logs.history.items()}
        if getattr(logs, "epoch", None):
            data["epoch"] = list(logs.epoch)
    elif hasattr(logs, "state") and hasattr(logs.state, "log_history"):  # Trainer
        data, name = {"log_history": logs.state.log_history}, "trainer_state.json"
    elif hasattr(logs, "log_history"):  # TrainerState
        data, name = {"log_history": logs.log_history}, "trainer_state.json"
    elif isinstance(logs, list):
        data, name = {"log_history": logs}, "trainer_state.json"
    elif isinstance(logs, dict):
        data = logs
    else:
        raise InputError(f"logs= takes a path, a Keras History, a Trainer or a "
                               f"log_history list, not {type(logs).__name__}.")
    path = Path(tempfile.mkdtemp(prefix="wizard-logs-")) / name
    path.write_text(json.dumps(data, default=float))
    return str(path)


def _prefill_plain(ctx: Any, batch: Any, num_labels: int | None) -> None:
    """Plain networks: the forward pass the model probe reads, computed here (the backends'
    forward expects a transformers output with .logits)."""
    import time


    be = training_backend(ctx.case.framework)
    target = target_for(ctx.case, ctx)
    start = time.perf_counter()
    values, activation = be.raw_outputs(target)
    kind = output_kind(values, activation)
    logits = np.asarray(values, dtype=np.float64)
    if logits.ndim == 1:
        logits = logits[:, None]
    if kind == "probabilities":
        logits = np.log(np.clip(logits, 1e-12, 1.0))
    loss = None
    if batch.labels is not None:
        try:
            loss = be.eval_loss(target, target.model)
        except Exception:
            loss = None
    classes = num_labels or (logits.shape[1] if logits.ndim == 2 else 1)
    ctx.put("config", SimpleNamespace(num_labels=int(classes)))
    ctx.put("forward", ForwardResult(logits=logits.reshape(len(logits), -1), loss=loss,
                                     seconds=time.perf_counter() - start))


# -- the learning rate of a plain network ----------------------------------------------------------
def probe_plain_learning_rate(case: Case, ctx: Any) -> list[Finding]:
    """The learning rate of the live optimizer (or training arguments) of a plain Keras model or
    torch nn.Module, judged by the usual range of its optimizer family for training from
    scratch (hyperparameters.PLAIN_LR); the transformer fine-tuning range (1e-5..1e-4) does not apply."""

    live = getattr(ctx, "live", None)
    if live is not None and live.optimizer is None and live.training_args is None:
        return []  # the case's optimizer is only a placeholder: nothing to judge
    spec = parse_optimizer(case.training.optimizer)
    lr, source = effective_learning_rate(case, spec, {})
    found = None if lr is None else learning_rate_finding(lr, source, spec, case.framework,
                                                          case.trainer, plain=True)
    return [found] if found else []
