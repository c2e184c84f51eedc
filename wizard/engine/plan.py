"""The decision tree as data, in one place; every front end renders it.

Two parts:
- QUESTIONS: the setup, symptom first. Each question fills one case field, says why it is
  asked, and names the next question (edges by answer, or by a condition on the case).
- STEPS and PLANS: the checks in the course's order. The symptom picks a plan (the order of
  steps); a step's `when` skips what the case makes irrelevant, its `needs` what the findings
  so far make pointless, and `stop_on_fail` ends the walk at the verdict when nothing after it
  could run.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from wizard.context import is_local_ref
from wizard.core.case import SYMPTOMS, Case
from wizard.core.tasks import (
    CAUSAL_LM,
    CLASSIFICATION,
    LABEL_PADS,
    LM_LABELS,
    QA,
    SEQ2SEQ,
    TOKEN_CLS,
    TOKEN_LABELS,
    has_label_column,
)
from wizard.core.gpus import gpu_here, read_gpu
from wizard.engine.verdict import library_bug_candidate
from wizard.hub.resolve import needs_trust_remote_code, resolve_model
from wizard.triage.match import triage

Cond = Callable[[Case], bool]


def _always(case: Case) -> bool:
    return True


# -- the setup questions ---------------------------------------------------------------------
@dataclass(frozen=True)
class Choice:
    value: Any
    label: str
    when: Cond = _always  # offered only when this holds


@dataclass(frozen=True)
class Edge:
    to: str
    when: Cond = _always
    label: str = ""


@dataclass(frozen=True)
class Question:
    id: str
    field: str               # dotted Case field the answer goes to
    prompt: str
    why: str
    kind: str                # select | text | multiline | number | float | columns | column | optional-text
    edges: tuple[Edge, ...]
    choices: tuple[Choice, ...] = ()
    optional: bool = False   # an empty answer leaves the field unset
    when: Cond = _always     # asked only when this holds (otherwise skipped to its first edge)
    # checks a text answer beyond its kind: raises CaseError with the sentence to show
    check: Callable[[str], Any] | None = None

    def choices_for(self, case: Case) -> list[Choice]:
        return [c for c in self.choices if c.when(case)]

    def next_id(self, case: Case) -> str:
        for edge in self.edges:
            if edge.when(case):
                return edge.to
        return "checks"


SYMPTOM_LABELS = {
    "error": "An error inside fit()/train() (paste it)",
    "nan-loss": "The loss is NaN",
    "loss-not-decreasing": "The loss does not go down",
    "out-of-memory": "Out of memory",
    "metric-wrong": "A metric makes no sense",
    "slow": "Training is too slow",
    "not-sure": "Not sure: run every check",
    "none": "Nothing yet: check my setup before training",
}
assert set(SYMPTOM_LABELS) == set(SYMPTOMS)


def needs_remote_code(model: str, revision: str | None = None) -> bool:
    """True when the model's config maps its classes to code in the repo (metadata only; a
    model that cannot be resolved counts as not needing it: the environment step reports it).
    Hub ids are looked up once per id and revision."""
    if not model:
        return False

    return (_remote_code if is_local_ref(model) else _remote_code_hub)(model, revision)


def _remote_code(model: str, revision: str | None) -> bool:
    try:
        return needs_trust_remote_code(model, revision=revision, timeout=10)
    except Exception:  # noqa: BLE001 - not found, offline, a bad config: the checks report it;
        return False   # a question's condition must never end the walk


@lru_cache(maxsize=64)
def _remote_code_hub(model: str, revision: str | None) -> bool:
    return _remote_code(model, revision)


def model_task(model: str, revision: str | None = None) -> str | None:
    """The task the model's config names (architectures ending in ForCausalLM: a causal LM,
    ForTokenClassification: a token classifier), from metadata alone; None when it names no
    other task than sequence classification or cannot be read."""
    if not model:
        return None
    return (_model_task if is_local_ref(model) else _model_task_hub)(model, revision)


def _model_task(model: str, revision: str | None) -> str | None:
    try:
        archs = resolve_model(model, revision=revision, timeout=10).architectures or []
    except Exception:  # noqa: BLE001 - the environment step reports a model that cannot be
        return None    # resolved; a question's condition must never end the walk
    for suffix, task in (("ForCausalLM", CAUSAL_LM), ("ForTokenClassification", TOKEN_CLS),
                         ("ForQuestionAnswering", QA), ("ForConditionalGeneration", SEQ2SEQ),
                         ("ForSeq2SeqLM", SEQ2SEQ)):
        if any(a.endswith(suffix) for a in archs):
            return task
    return None


@lru_cache(maxsize=64)
def _model_task_hub(model: str, revision: str | None) -> str | None:
    return _model_task(model, revision)


def _asks_task(case: Case) -> bool:
    """Asked for a PyTorch case whose model is a causal LM or a token classifier (or whose task
    is already set)."""
    return _pt(case) and (case.task != CLASSIFICATION
                          or model_task(case.model, case.revision) is not None)


def _lm(case: Case) -> bool:
    return case.task == CAUSAL_LM


def _s2s(case: Case) -> bool:
    return case.task == SEQ2SEQ


def _qa(case: Case) -> bool:
    return case.task == QA


def _tf(case: Case) -> bool:
    return case.framework == "tensorflow"


def _pt(case: Case) -> bool:
    return case.framework == "pytorch"


def _keras(case: Case) -> bool:
    return case.framework == "tensorflow" and case.trainer == "keras"


def _plans_for_a_gpu(case: Case) -> bool:
    """Out of memory (symptom or pasted error) or "not sure", and no GPU on this machine (a
    laptop, a Space without one): the memory step needs the GPU the run will happen on."""
    return (case.symptom in ("out-of-memory", "not-sure") or _out_of_memory(case)) \
        and not gpu_here()


def _has_target(case: Case) -> bool:
    return case.target.gpu not in (None, "")


QUESTIONS: dict[str, Question] = {q.id: q for q in [
    Question("symptom", "symptom", "What goes wrong?",
             "The symptom picks which checks run first.", "select",
             (Edge("traceback", lambda c: c.symptom == "error"), Edge("framework")),
             choices=tuple(Choice(k, v) for k, v in SYMPTOM_LABELS.items())),
    Question("traceback", "traceback", "Paste the error message (the whole traceback or its last "
             "line)",
             "Known error messages point straight at the checks that confirm their cause.",
             "multiline", (Edge("framework"),), optional=True),
    Question("framework", "framework", "Which framework does your script use?",
             "TensorFlow/Keras and PyTorch fail in different ways on the same fault.", "select",
             (Edge("model"),),
             choices=(Choice("tensorflow", "TensorFlow / Keras (TFAutoModel..., fit)"),
                      Choice("pytorch", "PyTorch (AutoModel..., Trainer or a loop)"))),
    Question("model", "model", "Model: a Hub id (e.g. distilbert-base-uncased) or a local "
             "save_pretrained folder", "The checks run your own model (with only the error you "
             "pasted, leave it empty: the error is read and your environment checked).", "text",
             (Edge("search_issues", lambda c: c.error_only), Edge("trust_remote_code"))),
    Question("search_issues", "search_issues", "Search the library's GitHub issues for this "
             "error when no known cause explains it?",
             "The same error reported before often has its answer in the thread; only the "
             "message's words that every report shares are sent to GitHub.", "select",
             (Edge("checks"),),
             choices=(Choice(False, "No: nothing leaves this machine"),
                      Choice(True, "Yes: search GitHub (the error message's words only)"))),
    Question("trust_remote_code", "trust_remote_code", "This model ships its own Python code "
             "(auto_map in its config), which runs when it loads. Run it?",
             "The wizard never runs a repo's code without your explicit yes; read its .py "
             "files first.", "select", (Edge("task"),),
             choices=(Choice(False, "No: don't run the repo's code (the model will not load)"),
                      Choice(True, "Yes: I have read the repo's .py files and trust them")),
             when=lambda c: needs_remote_code(c.model, c.revision)),
    Question("task", "task", "What do you fine-tune the model for?",
             "A causal LM (SFT) has no label column: its labels are its own tokens, and other "
             "checks apply.", "select", (Edge("num_labels"),),
             choices=(Choice(CAUSAL_LM, "Text generation: causal LM / SFT (AutoModelForCausalLM)"),
                      Choice(CLASSIFICATION, "Text classification "
                                             "(AutoModelForSequenceClassification)"),
                      Choice(TOKEN_CLS, "Token classification / NER "
                                        "(AutoModelForTokenClassification)"),
                      Choice(SEQ2SEQ, "Text-to-text / seq2seq: translation, summarization "
                                      "(AutoModelForSeq2SeqLM)"),
                      Choice(QA, "Extractive question answering "
                                 "(AutoModelForQuestionAnswering)")),
             when=_asks_task),
    Question("num_labels", "num_labels", "num_labels you pass to from_pretrained (empty if you "
             "don't pass it)", "A head with fewer outputs than classes gives NaN or index errors.",
             "number", (Edge("dataset"),), optional=True,
             when=lambda c: has_label_column(c.task) and c.task != QA),
    Question("dataset", "dataset.path", "Dataset: a Hub id, a save_to_disk folder, or a data file",
             "The checks look at your data as the model sees it.", "text",
             (Edge("dataset_config"),)),
    Question("dataset_config", "dataset.config", "Dataset config name (e.g. mnli; empty if none)",
             "Hub datasets such as glue have one config per task.", "optional-text",
             (Edge("text_columns"),), optional=True),
    Question("text_columns", "dataset.text_columns", "Text column(s) you tokenize",
             "These are decoded and checked for empty text and lengths.", "columns",
             (Edge("lm_labels", _lm), Edge("label_pad", _s2s), Edge("label_column"))),
    Question("label_column", "dataset.label_column", "Label column",
             "Labels are checked against num_labels and for balance.", "column",
             (Edge("token_labels", lambda c: c.task == TOKEN_CLS), Edge("stride", _qa),
              Edge("trainer")),
             when=lambda c: has_label_column(c.task)),
    Question("label_pad", "preprocessing.label_pad", "What are the labels padded with?",
             "A seq2seq model's loss skips only -100: labels padded with the pad id are trained "
             "on.", "select", (Edge("max_target_length"),), when=_s2s,
             choices=tuple(Choice(k, v) for k, v in LABEL_PADS.items())),
    Question("max_target_length", "preprocessing.max_target_length", "max_length you give the "
             "targets (text_target=...; empty if none)", "Targets cut short lose their end and "
             "their eos.", "number", (Edge("trainer"),), optional=True, when=_s2s),
    Question("stride", "preprocessing.stride", "stride of the overflowing windows "
             "(return_overflowing_tokens=True; empty if you don't use them)",
             "Without windows, answers past max_length are cut off and trained as 'no answer'.",
             "number", (Edge("trainer"),), optional=True, when=_qa),
    Question("token_labels", "preprocessing.token_labels", "How are the word labels put on the "
             "subwords?", "Tokenizing splits words and adds special tokens: the labels must be "
             "re-aligned with word_ids().", "select", (Edge("trainer"),),
             when=lambda c: c.task == TOKEN_CLS,
             choices=tuple(Choice(k, v) for k, v in TOKEN_LABELS.items())),
    Question("lm_labels", "preprocessing.lm_labels", "How are the labels made?",
             "A causal LM's labels are its input_ids; padding (and, for SFT, the prompt) must be "
             "-100.", "select", (Edge("packing"),), when=_lm,
             choices=tuple(Choice(k, v) for k, v in LM_LABELS.items())),
    Question("packing", "preprocessing.packing", "Do you pack the texts into blocks?",
             "Packed texts need an eos between them, and a block must fit the model's context.",
             "select", (Edge("adapter"),), when=_lm,
             choices=(Choice(False, "No: one text per row, padded"),
                      Choice(True, "Yes: packed into blocks of max_length (SFTConfig(packing="
                                   "True), the course's group_texts)"))),
    Question("adapter", "adapter.method", "Do you train a LoRA / QLoRA adapter (peft)?",
             "The adapter, its target modules and its learning rate are checked.", "select",
             (Edge("trainer"),), when=_lm,
             choices=(Choice("none", "No: a full fine-tune"),
                      Choice("lora", "LoRA (peft LoraConfig)"),
                      Choice("qlora", "QLoRA: LoRA on a 4-bit base (bitsandbytes)"))),
    Question("trainer", "training.trainer", "How do you train?",
             "Keras fit, Trainer and a plain loop hide different defaults.", "select",
             (Edge("optimizer"),),
             choices=(Choice("keras", "model.compile + model.fit (Keras)", _tf),
                      Choice("trainer", "transformers Trainer", _pt),
                      Choice("loop", "my own loop (torch.optim...)", _pt))),
    Question("optimizer", "training.optimizer", "Optimizer exactly as you wrote it (e.g. adam, "
             "Adam(learning_rate=5e-5), adamw)",
             "A string like \"adam\" hides a learning rate of 0.001.", "text",
             (Edge("learning_rate"),)),
    Question("learning_rate", "training.learning_rate", "Learning rate, if you set it apart "
             "from the optimizer (e.g. TrainingArguments(learning_rate=...), a Keras schedule's "
             "first rate; empty if not)",
             "It overrides the optimizer's default.", "float", (Edge("loss"),), optional=True),
    Question("loss", "training.loss", "Loss passed to compile(loss=...) (empty if none)",
             "With labels inside the inputs, a compile() loss is the course's first fault.",
             "optional-text", (Edge("labels"),), optional=True, when=_keras),
    Question("labels", "training.labels", "Where do the labels go?",
             "Keras expects labels apart from the inputs when it computes the loss.", "select",
             (Edge("batch_size"),), when=_keras,
             choices=(Choice("inputs", "inside the input dict (columns=[..., \"labels\"])"),
                      Choice("separate", "separately (label_cols=[\"labels\"])"))),
    Question("batch_size", "training.batch_size", "Batch size", "Memory and the first batch "
             "depend on it.", "number", (Edge("target_gpu"),)),
    Question("target_gpu", "target.gpu", "The GPU you will train on (T4, L4, A10G, RTX-4090, "
             "A100-40GB, A100-80GB, H100, ...) or its memory in GiB (empty if not known)",
             "There is no GPU here: the memory step judges the fit, and the plans that fit, "
             "against the GPU the run will happen on.", "optional-text",
             (Edge("target_count", _has_target), Edge("logs")), optional=True,
             when=_plans_for_a_gpu, check=read_gpu),
    Question("target_count", "target.count", "How many of those GPUs (empty for one)?",
             "Data parallel keeps a full copy of the model on every GPU; sharding (FSDP, "
             "ZeRO-3) splits it over them.", "number", (Edge("logs"),), optional=True,
             when=lambda c: _plans_for_a_gpu(c) and _has_target(c)),
    Question("logs", "logs", "Training logs, if you have them (trainer_state.json, a Keras CSV, "
             "or a TensorBoard folder; empty if none)",
             "Loss curves show overfitting, plateaus and the first NaN.", "optional-text",
             (Edge("checks"),), optional=True),
]}
FIRST_QUESTION = "symptom"


# -- the checks --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    id: str
    title: str
    why: str
    probes: tuple[str, ...]
    when: Cond = _always
    stop_on_fail: bool = False
    # runs only when the findings so far call for it (checked by the session before the step)
    needs: Callable[[Case, list], bool] | None = None


def _out_of_memory(case: Case) -> bool:
    """The symptom, or a pasted error that triage reads as out of memory."""
    if case.symptom == "out-of-memory":
        return True
    if not case.traceback.strip():
        return False

    primary = triage(case.traceback).primary
    return primary is not None and primary.signature.id == "out-of-memory"


def _forward_runs(case: Case, findings: list) -> bool:
    """The training steps need a forward pass that works: training a model whose fresh forward
    raises or gives NaN/Inf only repeats that failure (the report step judges it)."""
    return not any(f.id in ("model.forward", "model.forward-raised")
                   and f.status in ("fail", "warn") for f in findings)


STEPS: dict[str, Step] = {s.id: s for s in [
    Step("environment", "Your environment, model and dataset",
         "A missing framework, transformers without TF classes, or a model or dataset that cannot "
         "be reached stops everything else; metadata comes before any download.",
         ("environment", "hub"), stop_on_fail=True),
    Step("triage", "The error message",
         "A known error message points straight at the checks that confirm its cause.",
         ("triage",), when=lambda c: bool(c.traceback.strip())),
    Step("data", "Check your data",
         "Look at the data where it enters the model: if it is broken, nothing downstream can fix it.",
         # structural checks first: they name the fault when the batch cannot even be built
         ("label-column", "empty-text", "chat-template", "pad-token", "collation",
          "label-values", "vocab", "lengths", "tokenizer-checkpoint", "batch", "lm-labels",
          "lm-completion-length", "packing", "token-labels", "seq2seq-labels", "qa-positions",
          "labels-in-inputs", "labels", "balance", "eval-labels", "duplicates")),
    Step("model", "Check your model",
         "One batch through the freshly loaded model, no update: NaN and wrong losses show here.",
         ("checkpoint-head", "num-labels", "label-mapping", "adapter", "trainable", "model-loss",
          "precision", "cpu-rerun", "run-eagerly", "forward")),
    Step("hyperparameters", "Check your hyperparameters",
         "String shortcuts hide defaults (\"adam\" means learning_rate=0.001).",
         ("optimizer", "loss-strings", "from-logits", "weight-decay", "warmup", "warmup-length",
          "keras3-optimizer")),
    Step("metrics", "Check your metric",
         "A metric computed the wrong way (logits where class ids are expected) or one no better "
         "than predicting the majority class makes a good model look broken.",
         ("metrics", "token-metrics", "eval-label-set")),
    Step("memory", "Estimate memory",
         "Out of memory is the most common wall: weights, gradients, optimizer state and "
         "activations, from metadata before anything is downloaded.", ("memory",)),
    Step("memory-measure", "Measure memory on the device",
         "The estimate is a model; one real training step at your batch size shows the peak, "
         "and a search (halving, then bisecting) finds the largest batch that fits. Each attempt "
         "runs in a fresh process, so an out-of-memory cannot poison the next.",
         ("memory-measure", "largest-batch"), when=_out_of_memory),
    Step("overfit", "Overfit one batch",
         "A model that cannot learn one batch by heart cannot learn the dataset: your optimizer "
         "on the first batch, next to a known-good one, says whether the learning rate, the "
         "loss wiring or the data is at fault.", ("overfit",), needs=_forward_runs),
    Step("gradients", "Check the gradient flow",
         "Per-layer gradients at the first step and after your optimizer ran show frozen, "
         "vanishing, exploding or dead layers.", ("gradients",), needs=_forward_runs),
    Step("curves", "Read your training logs",
         "Loss curves show overfitting, plateaus, spikes and the first NaN.",
         ("curves",), when=lambda c: bool(c.logs)),
]}


# -- the report step (wizard/evidence/repro.py, wizard/checks/library.py) ---------------------------------
def _library_bug_candidate(case: Case, findings: list) -> bool:
    return library_bug_candidate(case, findings)


STEPS["report"] = Step(
    "report", "Reproduce the failure for a bug report",
    "Only when the failure points into library code and your setup checks out: a standalone "
    "script must reproduce it (or the other framework, where installed, must differ) before it "
    "is called a library bug.",
    ("reproduction", "differential", "newer-release"), needs=_library_bug_candidate)
# -- end of the report step -----------------------------------------------------------------------

# The training steps (a real step, one batch overfit, per-layer gradients) run only for the
# symptoms they explain: an error is diagnosed by the cheaper checks (a pasted out-of-memory
# error measures the step), and "none" checks a setup before any training.
PLANS: dict[str, tuple[str, ...]] = {
    "error": ("environment", "triage", "data", "model", "hyperparameters", "metrics", "memory",
              "memory-measure", "curves"),
    "nan-loss": ("environment", "triage", "data", "model", "hyperparameters", "overfit",
                 "gradients", "curves"),
    "loss-not-decreasing": ("environment", "triage", "data", "hyperparameters", "model",
                            "overfit", "gradients", "curves"),
    "out-of-memory": ("environment", "triage", "memory", "memory-measure", "hyperparameters",
                      "data", "model"),
    "metric-wrong": ("environment", "triage", "data", "metrics", "model", "curves",
                     "hyperparameters", "overfit"),
    "slow": ("environment", "triage", "memory", "hyperparameters", "data", "model"),
    "not-sure": ("environment", "triage", "data", "model", "hyperparameters", "metrics", "memory",
                 "memory-measure", "overfit", "gradients", "curves"),
    "none": ("environment", "data", "model", "hyperparameters", "metrics", "memory", "curves"),
}
assert set(PLANS) == set(SYMPTOMS) and all(s in STEPS for p in PLANS.values() for s in p)


# Only a pasted error, no model to run: the error is read and the installed libraries checked.
STEPS["installation"] = Step(
    "installation", "Your installed libraries",
    "With only the error at hand, the libraries installed here are checked against each other; "
    "the error's own words name the cause.", ("environment",))
ERROR_ONLY_PLAN = ("installation", "triage", "reported-before")


def _no_known_cause(case: Case, findings: list) -> bool:
    """No known cause explains the failure: a pasted error new to the catalogue (not raised in
    the user's own code) or a possible bug, or a failure inside library code with a clean setup
    (the report step's candidate)."""
    return any(f.id == "triage.possible-library-bug" or f.id == "triage.unknown-error"
               and not f.evidence.get("raised_in_your_code") for f in findings) \
        or library_bug_candidate(case, findings)


# Asked for only (case.search_issues): the failing library's GitHub issues, searched for the
# failure; after the report step in a full plan, right after triage with only the error at hand.
STEPS["reported-before"] = Step(
    "reported-before", "Reported before?",
    "The same error reported before often has its answer in the thread: the issues of the "
    "library it points at are searched for the words of the message every report shares.",
    ("reported-before",), when=lambda c: c.search_issues, needs=_no_known_cause)
FINAL_STEPS = ("report", "reported-before")  # after every plan; each only when `needs` holds


def plan(case: Case, live: bool = False) -> list[Step]:
    """The steps this case walks, in order (before any probe outcome is known); `live`: on a
    running script's own objects, where a model is there even when the case names none."""
    pasted = case.error_only and not live
    names = ERROR_ONLY_PLAN if pasted else (*PLANS[case.symptom], *FINAL_STEPS)
    return [STEPS[s] for s in names if STEPS[s].when(case)]


# -- walking the questions ---------------------------------------------------------------------
@dataclass
class QuestionWalk:
    """UI-agnostic walk through QUESTIONS: current(), answer(value), back()."""

    case: Case
    position: str = FIRST_QUESTION
    history: list[str] = field(default_factory=list)

    def current(self) -> Question | None:
        while self.position != "checks":
            q = QUESTIONS[self.position]
            if q.when(self.case):
                return q
            self.position = q.next_id(self.case)
        return None

    def answer(self, value: Any) -> None:
        """Set the current question's field (already validated) and move on."""
        q = self.current()
        assert q is not None, "the questions are done"
        set_field(self.case, q.field, value)
        self.history.append(q.id)
        self.position = q.next_id(self.case)

    def back(self) -> bool:
        if not self.history:
            return False
        self.position = self.history.pop()
        return True

    @property
    def done(self) -> bool:
        return self.current() is None


def set_field(case: Case, dotted: str, value: Any) -> None:
    obj: Any = case
    *parents, last = dotted.split(".")
    for p in parents:
        obj = getattr(obj, p)
    setattr(obj, last, value)


def get_field(case: Case, dotted: str) -> Any:
    obj: Any = case
    for p in dotted.split("."):
        obj = getattr(obj, p)
    return obj


assert all(q.edges for q in QUESTIONS.values())
assert all(e.to in QUESTIONS or e.to == "checks" for q in QUESTIONS.values() for e in q.edges)
