"""Types, constants and small helpers shared by the script reader's modules."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wizard.core.case import Case, CaseError
from wizard.core.findings import Finding
from wizard.engine.plan import QUESTIONS
from wizard.engine.verdict import merge_static
from wizard.script.fixes import CodeNames, fit_fixes
from wizard.script.stepping import ScheduleInfo
from wizard.script.syntax import Unresolved

DATASET_LOADERS = {"load_dataset", "load_from_disk"}
IN_MEMORY_BUILDERS = {"from_dict", "from_pandas", "from_list", "from_generator", "from_csv",
                      "from_json", "from_parquet", "from_text", "from_sql"}
FILE_BUILDERS = {"csv", "json", "parquet", "text", "pandas", "arrow"}
TRAINER_CLASSES = ("Trainer",)  # any class name ending with it (Seq2SeqTrainer, SFTTrainer ...)
TORCH_OPTIMIZERS = {"Adam", "AdamW", "SGD", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam",
                    "RAdam", "Adafactor", "LBFGS", "SparseAdam", "ASGD", "Rprop", "Lion",
                    "AdamW8bit", "PagedAdamW", "PagedAdamW8bit"}
TASKS = {"ForSequenceClassification": "text-classification",
         "ForTokenClassification": "token-classification",
         "ForQuestionAnswering": "question-answering", "ForCausalLM": "text-generation",
         "ForMaskedLM": "fill-mask", "ForSeq2SeqLM": "text2text-generation",
         "ForMultipleChoice": "multiple-choice"}
DATASET_METHODS_KEEPING_ROWS = {"shuffle", "select", "filter", "with_format", "remove_columns",
                                "select_columns", "cast_column", "cast", "set_format",
                                "class_encode_column", "flatten", "sort", "with_transform",
                                "take", "skip", "batch", "prefetch", "cache", "unbatch",
                                "repeat", "flatten_indices"}
TRAINING_ARGUMENT_DEFAULTS = {"learning_rate": 5e-5, "per_device_train_batch_size": 8,
                              "weight_decay": 0.0, "num_train_epochs": 3.0,
                              "remove_unused_columns": True, "optim": "adamw_torch"}
CASE_TYPES = {"model": str, "tokenizer": str, "revision": str, "framework": str, "task": str, "num_labels": int,
              "freeze": list, "ignore_mismatched_sizes": bool,
               "trust_remote_code": bool, "dataset.path": str, "dataset.config": str,
               "dataset.train_split": str, "dataset.eval_split": str, "dataset.text_columns": list,
               "dataset.label_column": str, "preprocessing.truncation": bool,
               "preprocessing.max_length": int, "preprocessing.padding": str,
               "preprocessing.pad_token": str, "preprocessing.targets": str,
               "preprocessing.max_target_length": int, "preprocessing.label_pad": str,
               "preprocessing.stride": int, "preprocessing.qa_positions": str,
               "preprocessing.packing": bool, "preprocessing.add_eos": bool,
               "training.learning_rate": float, "training.loss": str, "training.labels": str,
               "training.batch_size": int, "training.epochs": int, "training.weight_decay": float,
               "training.mixed_precision": str, "training.trainer": str,
               "training.from_logits": bool, "training.remove_unused_columns": bool,
               "training.one_hot_labels": bool}


class ScriptError(CaseError):
    """The script cannot be read at all (missing, not text, a syntax error): one sentence."""


@dataclass
class Source:
    """Where a value was read: the line and its code."""

    line: int
    code: str

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "code": self.code}


@dataclass
class ScriptQuestion:
    """A case field the script sets only at run time: ask the user, showing the line."""

    field: str
    line: int
    code: str
    reason: str

    @property
    def prompt(self) -> str:
        base = next((q.prompt for q in QUESTIONS.values() if q.field == self.field),
                    f"Value of `{self.field}`")
        return f"{base} — line {self.line}: `{self.code}` ({self.reason})"

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "line": self.line, "code": self.code, "reason": self.reason}


@dataclass
class OptimizerInfo:
    written: str
    name: str
    line: int
    learning_rate: Any = None       # a number, Unresolved, or None when not written
    lr_node: ast.AST | None = None
    origin: str = ""                # qualified name of the class (tensorflow.keras.optimizers.Adam)
    string_shortcut: bool = False
    note: str = ""


@dataclass
class LossInfo:
    written: str
    name: str                       # sparse_categorical_crossentropy, or the class/function name
    line: int
    from_logits: bool | None = None  # as written; None: not given (the default applies)
    origin: str = ""


@dataclass
class TokenizeInfo:
    line: int
    code: str
    truncation: Any = False
    padding: Any = None
    max_length: Any = None
    columns: list[str] = field(default_factory=list)
    label_from: str | None = None


@dataclass
class Facts:
    """What the static checks need, as read from the script."""

    entry: str = "none"                                # keras | trainer | loop | none
    framework: str | None = None
    model_class: str | None = None
    model_line: int = 0
    model_is_transformers: bool = False
    tf_imports: list[tuple[str, int]] = field(default_factory=list)
    imports_tensorflow: bool = False                   # tensorflow / keras / tf_keras imported
    cli_flags: set[str] = field(default_factory=set)   # options the script's argparse declares
    keras_objects: list[tuple[str, str, int, str]] = field(default_factory=list)
    legacy_keras_in_script: bool = False
    optimizer: OptimizerInfo | None = None
    loss: LossInfo | None = None
    labels_place: str | None = None
    labels_line: int = 0
    labels_code: str = ""
    compile_line: int = 0
    tokenize: TokenizeInfo | None = None
    softmax_head: tuple[int, str] | None = None
    trainer_lr: Any = None
    zero_grad: bool | None = None                      # a custom loop clears the gradients
    loop_step: tuple[int, str] | None = None           # the step() such a loop repeats
    schedule: ScheduleInfo | None = None               # a schedule one epoch long
    unbatched: tuple[int, str] | None = None           # fit() on tf.data never batched
    hook_overrides: list[Any] = field(default_factory=list)  # Trainer hooks, old signatures
    new_tokens_frozen: tuple[int, str] | None = None    # tokens added, LoRA leaves them out
    right_padded_generate: tuple[int, str] | None = None  # batched generate, pads on the right
    h5_whole_model: tuple[int, str] | None = None       # a whole HF TF model saved to .h5


@dataclass
class ScriptReading:
    """The case read from a script, with where each value came from and what is missing."""

    path: str | None
    case: Case
    entry: str
    read: dict[str, Source] = field(default_factory=dict)
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    questions: list[ScriptQuestion] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    facts: Facts = field(default_factory=Facts, repr=False)
    names: CodeNames = field(default_factory=CodeNames)  # the script's own variable names

    @property
    def complete(self) -> bool:
        """True when the case can be checked as it is (no open question, validates)."""
        if self.questions:
            return False
        try:
            self.case.validate()
        except CaseError:
            return False
        return True

    def faults(self) -> list[Finding]:
        """The static findings that fail: a fault the script shows without being run."""
        return [f for f in self.findings if f.status == "fail" and f.id != "script.read"]

    def missing(self) -> list[str]:
        """Sentences naming what is still needed before the case can be checked."""
        out = [f"`{q.field}` (line {q.line}: `{q.code}` — {q.reason})" for q in self.questions]
        asked = {q.field for q in self.questions}
        if not self.case.model and "model" not in asked:
            out.append("`model` (no from_pretrained call found)")
        if not self.case.dataset.path and not self.case.dataset.data_files and \
                "dataset.path" not in asked:
            out.append("`dataset.path` (no load_dataset/load_from_disk call found)")
        return out

    def require_complete(self) -> None:
        """Raise one CaseError sentence listing what the script leaves open."""
        missing = self.missing()
        if missing:
            name = Path(self.path).name if self.path else "the script"
            fields = [q.field for q in self.questions]
            fields += [f for f in ("model", "dataset.path") if f not in fields and any(
                m.startswith(f"`{f}`") for m in missing)]
            options = " ".join(f"--set {f}=VALUE" for f in fields)
            raise CaseError(f"{name} leaves {len(missing)} value(s) to run time: "
                            f"{'; '.join(missing)}. Give them with {options} (answers= in "
                            "Python), or run the script under the wizard: python -m wizard check "
                            f"--script {self.path or 'train.py'} --run [ARG ...] (the same as "
                            f"python -m wizard run {self.path or 'train.py'} [ARG ...]).")
        self.case.validate()

    def summary(self) -> str:
        """What could and could not be read, in sentences."""
        name = Path(self.path).name if self.path else "The script"
        entry = {"keras": "a Keras compile()/fit() script", "trainer": "a Trainer script",
                 "loop": "a custom PyTorch training loop",
                 "none": "a script without a training call"}[self.entry]
        parts = [f"{name}: {entry}; read {len(self.read)} setting(s) of the case"
                 + (f", {len(self.questions)} left to run time" if self.questions else "") + "."]
        parts += self.notes
        return " ".join(parts)

    def merge(self, result: Any) -> Any:
        """Fold these static findings into a Session result, re-decide the verdict, and write
        every fix with the script's own names."""
        result = merge_static(result, self.findings)
        fit_fixes(result.findings, self.names, self.case.training.batch_size)
        return result

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "entry": self.entry, "complete": self.complete,
                "case": self.case.to_dict(),
                "read": {k: v.to_dict() for k, v in self.read.items()},
                "settings": self.settings, "questions": [q.to_dict() for q in self.questions],
                "notes": self.notes, "summary": self.summary(),
                "findings": [f.to_dict() for f in self.findings]}



# -- small helpers -----------------------------------------------------------------------------
def is_model_class(qual: str) -> bool:
    last = qual.split(".")[-1]
    return ("Model" in last or "For" in last) and "Tokenizer" not in last and \
        "Config" not in last and "Processor" not in last


def is_tokenizer_call(call: ast.Call, names: set[str]) -> bool:
    f = call.func
    if isinstance(f, ast.Name):
        return f.id in names
    if isinstance(f, ast.Attribute):
        if f.attr in ("encode_plus", "batch_encode_plus", "__call__"):
            return True
        return f.attr in names and isinstance(f.value, ast.Name) and f.value.id == "self"
    return False


def as_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return []


def shown(value: Any) -> Any:
    return value.reason if isinstance(value, Unresolved) else value


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def line_node(line: int) -> ast.AST:
    node = ast.Pass()
    node.lineno = line
    return node
