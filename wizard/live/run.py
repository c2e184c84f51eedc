"""`python -m wizard run`: read the script, run it instrumented, probe the live objects, decide.

The static reading gives the case its skeleton (how the script wrote things: `optimizer="adam"`,
the columns, the truncation); the run replaces what it saw live: the model, the first batch as
it entered the model, the compiled optimizer and loss, the TrainingArguments, the loaded data.
"""
from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from wizard.context import Context
from wizard.core.case import Case, CaseError
from wizard.core.findings import Finding, Plot
from wizard.core.tasks import CAUSAL_LM, QA, SEQ2SEQ, has_label_column
from wizard.engine.plan import STEPS, plan
from wizard.engine.session import Event, Result, Session
from wizard.engine.verdict import combine_findings, decide
from wizard.evidence.environment import environment_info
from wizard.live.instrument import Capture, run_script
from wizard.live.reprex import report_findings, should_reproduce
from wizard.checks.curves import analyse_curves
from wizard.checks.reported import probe_reported_before
from wizard.checks.curves_read import Curves, Series
from wizard.script.fixes import fit_fixes
from wizard.script.reader import ScriptReading, case_from_script
from wizard.settings import PROBE_TIMEOUT
from wizard.triage.match import probe_triage

# Steps run on the live objects before the script's first update: none of them changes the
# model's weights. A step that trains (overfit one batch) must work on a copy before it joins.
LIVE_STEPS = ("environment", "data", "model", "hyperparameters", "metrics")
LIVE_CURVE_MIN_POINTS = 8   # steps of loss before the curve rules judge a run
# the live probes that read the raw dataset's rows (nothing to read in a script that builds its
# one batch by hand)
RAW_DATA_PROBES = frozenset({"label-column", "empty-text", "label-values", "batch", "num-labels",
                             "metrics"})
ENTRY_TRAINER = {"keras.fit": "keras", "trainer.train": "trainer", "torch.forward": "loop"}
ENTRY_WORDS = {"keras.fit": "Keras fit()", "trainer.train": "Trainer.train()",
               "torch.forward": "the model's first training forward"}


@dataclass
class RunOutcome:
    result: Any                 # wizard.engine.session.Result: every finding and the verdict
    capture: Capture
    reading: ScriptReading


def run_instrumented(script: str | Path, argv: list[str] | None = None, steps: int | None = None,
                     stop_on_nonfinite: bool = True, device: str = "auto",
                     timeout: float = PROBE_TIMEOUT, on_event: Callable[[Any], None] | None = None,
                     refs: Mapping[str, str] | None = None,
                     answers: Mapping[str, Any] | None = None) -> RunOutcome:
    """Run `script` with `argv` under the wizard. Raises ScriptError (a CaseError) only when the
    script cannot be read at all (missing, a syntax error)."""
    reading = case_from_script(script, refs=refs, answers=answers)
    environ = {}
    facts = reading.facts
    tf_script = facts.imports_tensorflow or bool(facts.tf_imports) or facts.entry == "keras" or \
        reading.case.framework == "tensorflow"
    if not tf_script and not loads_tf_weights(reading) and "USE_TF" not in os.environ:
        environ["USE_TF"] = "0"  # transformers 4.x would otherwise import TensorFlow too

    def on_first_batch(capture: Capture) -> dict[str, Any]:
        return probe_live(reading, capture, device, timeout, on_event)

    capture = run_script(script, argv, on_first_batch=on_first_batch, steps=steps,
                         stop_on_nonfinite=stop_on_nonfinite, environ=environ)
    return RunOutcome(assemble(reading, capture, device, timeout, on_event), capture, reading)


def loads_tf_weights(reading: ScriptReading) -> bool:
    """Whether the script loads TensorFlow weights into a PyTorch model (from_tf=True):
    transformers needs TensorFlow importable for it, so USE_TF=0 must not be set."""
    return bool(reading.case.load_args.get("from_tf"))


# -- the probes on the live objects ----------------------------------------------------------------
def live_case(static: Case, capture: Capture) -> tuple[Case, dict[str, Any], list[str]]:
    """The static case updated with what the run saw; the raw splits; notes on what is missing."""
    case = Case.from_dict(static.to_dict(), validate=False)
    case.source = static.source
    notes: list[str] = []
    s, t = capture.settings, case.training
    case.framework = capture.framework or case.framework
    t.trainer = ENTRY_TRAINER.get(capture.entry or "", t.trainer)
    config = getattr(capture.model, "config", None)
    if "CausalLM" in type(capture.model).__name__:  # AutoModelForCausalLM, PeftModelForCausalLM
        case.task = CAUSAL_LM
    elif type(capture.model).__name__.endswith("ForTokenClassification"):
        case.task = "token-classification"
    elif type(capture.model).__name__.endswith("ForQuestionAnswering"):
        case.task = QA
    elif getattr(config, "is_encoder_decoder", False) and \
            type(capture.model).__name__.endswith(("ForConditionalGeneration", "Seq2SeqLM")):
        case.task = SEQ2SEQ
    if not case.model:
        case.model = str(getattr(config, "_name_or_path", "") or "")
    if t.trainer == "keras":
        if "loss" in s:
            t.loss = s["loss"]
        if s.get("from_logits") is not None:
            t.from_logits = bool(s["from_logits"])
        _live_optimizer(case, s)
        if isinstance(s.get("epochs"), int):
            t.epochs = s["epochs"]
    elif t.trainer == "trainer":
        lr = s.get("TrainingArguments.learning_rate")
        t.learning_rate = float(lr) if isinstance(lr, (int, float)) else t.learning_rate
        bs = s.get("TrainingArguments.per_device_train_batch_size")
        t.batch_size = int(bs) if isinstance(bs, int) and bs > 0 else t.batch_size
        t.weight_decay = float(s.get("TrainingArguments.weight_decay") or 0.0)
        epochs = s.get("TrainingArguments.num_train_epochs")
        t.epochs = max(1, int(round(float(epochs)))) if isinstance(epochs, (int, float)) else t.epochs
        t.mixed_precision = "bf16" if s.get("TrainingArguments.bf16") else (
            "fp16" if s.get("TrainingArguments.fp16") else "fp32")
        warm = s.get("TrainingArguments.warmup_steps") or s.get("TrainingArguments.warmup_ratio")
        if isinstance(warm, (int, float)) and not isinstance(warm, bool) and warm > 0:
            t.warmup_steps = max(1, int(warm))  # a ratio (< 1) counts as warmup set
        for name in ("gradient_accumulation_steps", "max_steps"):
            count = s.get(f"TrainingArguments.{name}")
            if isinstance(count, int) and not isinstance(count, bool) and count > 0:
                setattr(t, name, count)
        optim = str(s.get("TrainingArguments.optim") or "adamw")
        t.optimizer = "adamw" if optim.startswith("adamw") else optim
    else:
        _live_optimizer(case, s)
        if "weight_decay" in s:
            t.weight_decay = float(s["weight_decay"])
    batch = capture.batch
    if batch is not None and batch.indices and t.trainer != "trainer":
        t.batch_size = len(batch.indices)
    if batch is not None:
        t.labels = "inputs" if batch.labels_in_inputs else "separate"
    if capture.settings.get("model_training_mode") is False and t.trainer == "loop":
        notes.append("The model was in eval mode at its first training step (model.train() was "
                     "never called after from_pretrained): dropout is off while training.")
    raw = _live_raw(case, capture, notes)
    return case, raw, notes


def _live_optimizer(case: Case, s: dict[str, Any]) -> None:
    cls, lr = s.get("optimizer_class"), s.get("learning_rate")
    if not cls:
        return
    written = case.training.optimizer
    if isinstance(written, str) and "(" not in written and written.lower() == cls.lower():
        return  # keep the string shortcut: the hidden-defaults check reads it
    spec: dict[str, Any] = {"name": cls}
    if isinstance(lr, (int, float)) and math.isfinite(lr):
        spec["learning_rate"] = float(lr)
    case.training.optimizer = spec
    case.training.learning_rate = None


def _live_raw(case: Case, capture: Capture, notes: list[str]) -> dict[str, Any]:
    """Train/eval splits of the data the script loaded (sampled), keyed like the case's."""
    try:
        import datasets
    except ImportError:
        return {}
    spec = case.dataset
    source = None
    for rec in capture.loads:
        res = rec["result"]
        if isinstance(res, datasets.DatasetDict) or isinstance(res, datasets.Dataset):
            source = rec
            if isinstance(res, datasets.Dataset) or spec.train_split in res:
                break
    splits: dict[str, Any] = {}
    if source is not None:
        res = source["result"]
        if not spec.path and source.get("path") and not source.get("data_files"):
            spec.path = source["path"]
            if source.get("config"):
                spec.config = source["config"]
        if isinstance(res, datasets.Dataset):
            splits[spec.train_split] = res
        else:
            if spec.train_split not in res and len(res):
                notes.append(f"The loaded dataset has no {spec.train_split!r} split; the checks "
                             f"use {next(iter(res))!r}.")
                spec.train_split = next(iter(res))
            splits = {k: res[k] for k in (spec.train_split, spec.eval_split) if k and k in res}
    elif capture.trainer is not None and isinstance(getattr(capture.trainer, "train_dataset", None),
                                                    datasets.Dataset):
        splits[spec.train_split] = capture.trainer.train_dataset
        ev = getattr(capture.trainer, "eval_dataset", None)
        if isinstance(ev, datasets.Dataset) and spec.eval_split:
            splits[spec.eval_split] = ev
    if spec.eval_split not in splits:
        spec.eval_split = None
    if not splits:
        return {}
    columns = splits[spec.train_split].column_names
    if spec.label_column not in columns and has_label_column(case.task):
        other = next((c for c in ("label", "labels", "label_ids") if c in columns), None)
        if case.task == "token-classification":  # tags: the first column of int sequences
            features = splits[spec.train_split].features
            other = next((c for c in columns if getattr(getattr(features[c], "feature", None),
                                                        "dtype", "") in ("int64", "int32")
                          or hasattr(getattr(features[c], "feature", None), "names")), other)
        if other is None:
            notes.append(f"The dataset has no label column {spec.label_column!r} (columns: "
                         f"{', '.join(columns)}); the label checks were skipped.")
            return {}
        spec.label_column = other
    if not spec.text_columns or any(c not in columns for c in spec.text_columns):
        features = splits[spec.train_split].features
        texts = [c for c in columns if getattr(features[c], "dtype", "") in ("string", "large_string")]
        spec.text_columns = texts[:2] or spec.text_columns
    return {k: v.select(range(min(spec.max_samples, len(v)))) for k, v in splits.items()}


def probe_live(reading: ScriptReading, capture: Capture, device: str, timeout: float,
               on_event: Callable[[Any], None] | None) -> dict[str, Any]:
    """Run the checks on the captured model and batch, in this process, before any update."""

    case, raw, notes = live_case(reading.case, capture)
    model = capture.model
    # the model stays where the script put it; TensorFlow's devices are fixed once it started
    dev = capture.settings.get("device", "auto") if case.framework == "pytorch" else "auto"
    objects: dict[str, Any] = {"model": model, "batch": capture.batch,
                               "config": getattr(model, "config", None)}
    if capture.tokenizer is not None:
        objects["tokenizer"] = capture.tokenizer
    drop = {"hub"}
    if raw:
        objects["raw"] = raw
    elif not case.dataset.path and not case.dataset.data_files:
        objects["label_names"] = None
        drop |= {"labels", "balance", *RAW_DATA_PROBES}
        notes.append("The script loads no dataset (its batch is built in the script), so the "
                     "checks that read the raw rows were skipped.")
    else:
        objects["label_names"] = None
        drop |= {"labels", "balance"}
        notes.append("The script's raw dataset was not seen, so the label range and balance "
                     "checks were skipped.")
    ctx = Context.from_objects(case, device=dev, **objects)
    ctx.scratch["live_run"] = True  # the script's own objects, already built without raising
    steps = [dataclasses.replace(s, probes=tuple(p for p in s.probes if p not in drop))
             for s in plan(case, live=True) if s.id in LIVE_STEPS]
    try:
        result = Session(case, device=dev, timeout=timeout, on_event=on_event, steps=steps,
                         ctx=ctx).run()
    except CaseError as exc:
        return {"case": case, "notes": notes + [f"The checks stopped: {exc}"], "result": None}
    return {"case": case, "notes": notes, "result": result}


# -- putting the run together ------------------------------------------------------------------------
def assemble(reading: ScriptReading, capture: Capture, device: str = "auto",
             timeout: float = PROBE_TIMEOUT, on_event: Callable[[Any], None] | None = None) -> Any:
    """One Result for the whole run: static findings, the run, triage, the live probes."""

    probes = capture.probes if isinstance(capture.probes, dict) else {}
    notes = list(probes.get("notes", []))
    if isinstance(capture.probes, Exception):
        notes.append(f"The checks on the live objects raised {type(capture.probes).__name__}: "
                     f"{capture.probes}")
    session = probes.get("result")
    case: Case = probes.get("case") or Case.from_dict(reading.case.to_dict(), validate=False)
    if capture.traceback and capture.ended in ("raised", "exited"):
        case.traceback, case.symptom = capture.traceback, "error"
    elif capture.nonfinite is not None:
        case.symptom = "nan-loss"
    findings: list[Finding] = []
    path: list[str] = []
    if session is not None:
        findings, path = list(session.findings), list(session.path)
        environment, dev = session.environment, session.device
    else:
        environment, dev = environment_info(), device if device != "auto" else "cpu"
        if capture.ended == "raised" and capture.batch is None and reading.complete:
            notes.append("The script raised before training started; the setup read from the "
                         "script was checked instead.")
            try:  # in this process: the script has already imported its framework here

                fallback = Session(case, device=device, timeout=timeout, on_event=on_event,
                                   ctx=Context(case, device=device)).run()
                findings, path, dev = list(fallback.findings), list(fallback.path), fallback.device
                environment = fallback.environment
            except CaseError as exc:
                notes.append(f"That check stopped: {exc}")
    if case.traceback and not any(f.category == "triage" for f in findings):
        findings = probe_triage(case) + findings
        path = ["triage", *path]
    merged = combine_findings(reading.findings, findings)
    head = [f for f in merged if f.id == "script.read"]
    rest = [f for f in merged if f.id != "script.read"]
    extra = [_nonfinite_finding(capture)] if capture.nonfinite is not None else []
    extra += live_curve_findings(capture.losses, capture.script)
    all_findings = head + [run_finding(reading, capture, notes)] + rest + extra
    all_findings += report_step(capture, all_findings, on_event)
    searched = search_step(case, all_findings, on_event)
    all_findings += searched
    path += ["reported-before"] if searched else []
    fit_fixes(all_findings, reading.names, case.training.batch_size)
    verdict = decide(case, all_findings)
    return Result(case, environment, dev, ["script", *path], all_findings, verdict,
                  seconds=capture.seconds)


def check_case(case: Case, device: str = "auto", timeout: float = PROBE_TIMEOUT,
               on_event: Callable[[Any], None] | None = None,
               autosave: Path | None = None) -> Result:
    """The checks of a case (`python -m wizard check CASE.yaml`, wizard.api.check); when the
    case pastes the error its script raised (`traceback:` + `script:`, `script_args:`), then
    the report step of `wizard run` on that script, without running it: the reproduction is
    cut at the lines of the script the traceback names and verified in a fresh interpreter.
    The verdict is decided on all of it."""
    result = Session(case, device=device, timeout=timeout, on_event=on_event,
                     autosave=autosave).run()
    if not case.script or not case.traceback.strip():
        return result
    capture = Capture(script=case.script, argv=list(case.script_args), ended="raised",
                      traceback=case.traceback)
    found = report_step(capture, list(result.findings), on_event)
    if not found:
        return result
    findings = [*result.findings, *found]
    return Result(case, result.environment, result.device, [*result.path, "report"], findings,
                  decide(case, findings), seconds=result.seconds)


def report_step(capture: Capture, findings: list[Finding],
                on_event: Callable[[Any], None] | None) -> list[Finding]:
    """The library-bug report step (wizard.live.reprex), with its progress as session events."""
    if should_reproduce(capture, findings) is None:
        return []
    emit = on_event or (lambda _e: None)
    emit(Event("step", {"id": "report", "title": "Reproduce it from your script",
                        "why": "The error comes from library code and your setup checks out: "
                               "a short script that fails the same way is what a maintainer "
                               "needs."}))
    found = report_findings(capture, findings,
                            on_progress=lambda m: emit(Event("progress", {"message": m})))
    for f in found:
        emit(Event("finding", {"finding": f}))
    return found


def search_step(case: Case, findings: list[Finding],
                on_event: Callable[[Any], None] | None) -> list[Finding]:
    """The issue search the user asked for (STEPS["reported-before"]), when no known cause
    explains the failure."""
    step = STEPS["reported-before"]
    if not step.when(case) or not step.needs(case, findings):
        return []
    emit = on_event or (lambda _e: None)
    emit(Event("step", {"id": step.id, "title": step.title, "why": step.why}))
    found = probe_reported_before(case, {"findings": findings})
    for f in found:
        emit(Event("finding", {"finding": f}))
    return found


def run_finding(reading: ScriptReading, capture: Capture, notes: list[str]) -> Finding:
    name = Path(capture.script).name
    c = capture
    if c.batch is not None:
        status = "info"
        title = f"Ran {name}: captured the first batch at {ENTRY_WORDS.get(c.entry or '', c.entry)}"
    else:
        status = "warn"
        title = f"Ran {name}: it never reached a training step, nothing was captured"
    ended = {"finished": "the script finished", "stopped": f"stopped after {c.steps} step(s) as asked",
             "nonfinite": f"stopped at the first non-finite loss (step {c.steps})",
             "raised": f"the script raised {type(c.error).__name__}" if c.error else "the script raised",
             "exited": f"the script exited with status {c.exit_code}",
             "interrupted": "interrupted"}[c.ended]
    title += f"; {ended}"
    evidence: dict[str, Any] = {"script": c.script, "argv": c.argv, "entry": c.entry,
                                "ended": c.ended, "steps": c.steps, "seconds": round(c.seconds, 2)}
    if c.batch is not None:
        evidence["batch"] = {
            "where": c.batch_where, "batch_size": len(c.batch.indices),
            "inputs": {k: {"shape": list(v.shape), "dtype": str(v.dtype)}
                       for k, v in c.batch.inputs.items()},
            "labels": "inside the inputs" if c.batch.labels_in_inputs else "separate",
            "label_key": c.batch.label_key}
    evidence["settings"] = _plain(c.settings)
    if c.losses:
        evidence["losses"] = [_num(v) for v in c.losses[:200]]
        evidence["loss_note"] = c.loss_note or "per backward() call"
    if c.loads:
        evidence["datasets_loaded"] = [{k: v for k, v in r.items() if k != "result"} for r in c.loads]
    if c.tokenizer_call:
        evidence["first_tokenizer_call"] = _plain(c.tokenizer_call)
    if c.error is not None:
        evidence["error"] = f"{type(c.error).__name__}: {str(c.error).strip().splitlines()[0][:300]}" \
            if str(c.error).strip() else type(c.error).__name__
    if notes:
        evidence["notes"] = notes
    plots = []
    finite = [(i, v) for i, v in enumerate(c.losses) if math.isfinite(v)]
    if len(finite) > 1:
        plots.append(Plot(name="run-loss", title=f"Loss per step ({name})", kind="line",
                          series={"loss": [round(v, 6) for _, v in finite]},
                          x={"loss": [i for i, _ in finite]}, xlabel="step", ylabel="loss"))
    explanation = ("The wizard ran the script unchanged, with hooks on the training calls: "
                   "the checks ran on the real model and the first batch before any weight "
                   "update." if c.batch is not None else
                   "The script did not reach fit(), Trainer.train() or a training forward of a "
                   "transformers model while it ran, so only what the script's text says could "
                   "be checked.")
    return Finding("script.run", status, title, evidence=evidence,
                   explanation=" ".join([explanation, *notes]), plots=plots,
                   fix="" if c.batch is not None else
                   "python -m wizard run --steps 5 train.py   # a script that calls fit()/train()")


def _nonfinite_finding(c: Capture) -> Finding:
    info = c.nonfinite or {}
    value = info.get("loss")
    kind = "NaN" if isinstance(value, float) and math.isnan(value) else "Inf"
    evidence = {"step": info.get("step"), "loss": _num(value), "where": info.get("where"),
                "losses_before": [_num(v) for v in c.losses[:-1][-10:]]}
    for key in ("weights_finite", "non_finite_weights", "batch_labels"):
        if key in info:
            evidence[key] = info[key]
    where = ("the weights are already non-finite" if info.get("weights_finite") is False else
             "the weights were still finite, so this batch or this step produced it")
    return Finding(
        "curves.nan", "fail", f"The training loss became {kind} at step {info.get('step')}",
        evidence=evidence,
        explanation=f"The run was stopped at the first non-finite loss ({where}). After a NaN "
                    "step every weight it touches is NaN; look at that batch (its labels "
                    "against num_labels), the learning rate and mixed precision.",
        fix="args = TrainingArguments(..., learning_rate=2e-5, max_grad_norm=1.0, bf16=True)\n"
            "# Keras: model.fit(..., callbacks=[tf_keras.callbacks.TerminateOnNaN()])")


def _num(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return round(v, 6) if isinstance(v, float) else v


def _plain(d: Any) -> Any:
    if isinstance(d, dict):
        return {str(k): _plain(v) for k, v in d.items()}
    if isinstance(d, (list, tuple)):
        return [_plain(v) for v in d]
    if isinstance(d, float):
        return _num(d)
    if isinstance(d, (int, str, bool, type(None))):
        return d
    return str(d)


def live_curve_findings(losses: list[float], script: str) -> list[Finding]:
    """The loss the run printed, judged by the curve rules (divergence, spikes, plateau, no
    decrease), not only NaN (the NaN finding is the run's own)."""
    finite = [v for v in losses if math.isfinite(v)]
    if len(finite) < LIVE_CURVE_MIN_POINTS:
        return []
    curves = Curves(train=Series(x=[float(i + 1) for i in range(len(losses))],
                                 values=[float(v) for v in losses], name="loss"),
                    eval=Series(), x_unit="step", source_format="text_log",
                    path=f"the loss of each step of {Path(script).name}")
    return [f for f in analyse_curves(curves)
            if f.status in ("warn", "fail") and f.id != "curves.nan"]
