"""Case: the user's setup, read from and written to YAML, validated with one-sentence errors."""
from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from wizard.core.tasks import (
    LABEL_PADS,
    LM_LABELS,
    QA,
    QA_POSITIONS,
    SEQ2SEQ,
    SEQ2SEQ_TARGETS,
    TOKEN_LABELS,
)
from wizard.core.gpus import Gpu, read_gpu
from wizard.errors import CaseError

FRAMEWORKS = ("tensorflow", "pytorch")
SYMPTOMS = ("error", "nan-loss", "loss-not-decreasing", "out-of-memory", "metric-wrong", "slow",
            "not-sure", "none")
LABEL_PLACES = ("inputs", "separate")
PADDINGS = ("dynamic", "max_length", "none")
TRAINERS = ("keras", "trainer", "loop")
PRECISIONS = ("fp32", "fp16", "bf16")
# the Hub task names a case may carry; those in wizard.core.tasks.TASKS get their own checks
TASK_NAMES = ("text-classification", "text-generation", "token-classification",
              "question-answering", "text2text-generation", "fill-mask", "multiple-choice")
ADAPTER_METHODS = ("none", "lora", "qlora")
STRATEGIES = ("ddp", "zero1", "zero2", "zero3", "fsdp")


@dataclass
class DatasetSpec:
    path: str = ""
    config: str | None = None
    data_files: Any = None
    train_split: str = "train"
    eval_split: str | None = "validation"
    text_columns: list[str] = field(default_factory=lambda: ["text"])
    label_column: str = "label"
    max_samples: int = 512


@dataclass
class Preprocessing:
    truncation: bool = True
    max_length: int | None = None
    padding: str = "dynamic"
    # which end truncation cuts: "right" keeps the start, "left" keeps the end (None: the
    # tokenizer's own, `tokenizer.truncation_side`)
    truncation_side: str | None = None
    # causal LM: how the labels are made (wizard.core.tasks.LM_LABELS)
    lm_labels: str = "collator"
    # the pad token the script sets: a token, or "eos_token" for `tokenizer.pad_token =
    # tokenizer.eos_token` (None: the tokenizer's own)
    pad_token: str | None = None
    # token classification: how word labels are put on subwords (wizard.core.tasks.TOKEN_LABELS)
    token_labels: str = "first-subword"
    # seq2seq: how the targets are tokenized (SEQ2SEQ_TARGETS), their max_length (None: not
    # cut), and what the labels are padded with (LABEL_PADS)
    targets: str = "text-target"
    max_target_length: int | None = None
    label_pad: str = "-100"
    # extractive QA: the overflow windows' stride (None: one window, the rest cut) and how the
    # start/end positions are found (QA_POSITIONS)
    stride: int | None = None
    qa_positions: str = "offsets"
    # causal LM: examples concatenated into blocks of max_length tokens (SFTConfig(packing=True),
    # the course's group_texts)
    packing: bool = False
    # causal LM: an eos appended to each text that lacks one before tokenizing (TRL's
    # SFTTrainer does)
    add_eos: bool = False


@dataclass
class Adapter:
    """A LoRA / QLoRA adapter as the script's LoraConfig sets it (method None: no adapter)."""
    method: str | None = None  # lora | qlora; None or "none": no adapter
    r: int = 8
    alpha: float | None = None
    dropout: float = 0.0
    target_modules: list[str] = field(default_factory=list)  # empty: peft's default for the model

    @property
    def active(self) -> bool:
        return self.method not in (None, "none")


@dataclass
class Training:
    optimizer: Any = "adamw"
    learning_rate: float | None = None
    loss: str | None = None
    labels: str = "inputs"
    batch_size: int = 16
    epochs: int = 1
    weight_decay: float = 0.0
    mixed_precision: str = "fp32"
    trainer: str | None = None
    from_logits: bool | None = None
    warmup_steps: int | None = None
    warmup_ratio: float | None = None
    gradient_accumulation_steps: int = 1  # batches per optimizer update
    max_steps: int | None = None          # the Trainer's: optimizer updates, over the epochs
    metrics: list[str] = field(default_factory=list)
    compute_metrics: str | None = None  # the function's source, as written
    remove_unused_columns: bool = True  # the Trainer's: False hands every column to the collator
    one_hot_labels: bool = False        # the pipeline one-hot encodes the class ids (tf.one_hot)
    float_labels: bool = False          # the script casts the labels to float before the model

    @property
    def binary_loss(self) -> bool:
        """A binary cross-entropy (Keras' BinaryCrossentropy): each output is one 0/1 label."""
        return "binary" in str(self.loss or "").lower()


@dataclass
class Target:
    """Where the run will happen when it is not this machine: a GPU (a name from
    wizard.core.gpus.GPUS, or the memory of one card in GiB) and how many of them."""

    gpu: str | None = None            # "A100-40GB", "T4", "24" (GiB)
    count: int | None = None          # cards; None is one
    memory_gib: float | None = None   # per card, instead of the name's (e.g. what is free)
    strategy: str | None = None       # how the cards share the run: ddp (None), zeroN, fsdp

    def card(self) -> Gpu | None:
        """The target card (name and memory), or None when the case names no target."""
        if self.gpu in (None, "") and self.memory_gib is None:
            return None
        found = read_gpu(self.gpu, "target.gpu") if self.gpu not in (None, "") else Gpu(None, 0.0)
        if self.memory_gib is not None:
            return Gpu(found.name, float(self.memory_gib))
        return found

    @property
    def cards(self) -> int:
        return int(self.count or 1)


@dataclass
class Case:
    model: str = ""
    revision: str | None = None
    # where the tokenizer is loaded from when it is not the model's own (Hub id or folder)
    tokenizer: str | None = None
    framework: str = "pytorch"
    task: str = "text-classification"
    num_labels: int | None = None
    ignore_mismatched_sizes: bool = False
    trust_remote_code: bool = False
    # modules the user freezes, as paths from the model ("bert", "distilbert.embeddings"); "" is
    # the whole model (model.trainable = False)
    freeze: list[str] = field(default_factory=list)
    # other arguments given to from_pretrained, as written (from_tf, torch_dtype, device_map,
    # load_in_4bit, quantization_config, attn_implementation)
    load_args: dict[str, Any] = field(default_factory=dict)
    # attributes the script sets on model.config after loading (or passes to from_pretrained as
    # config values): a value, or a tokenizer attribute's name for `= tokenizer.<name>`
    # (`model.config.pad_token_id = tokenizer.pad_token_id` is pad_token_id: pad_token_id)
    model_config: dict[str, Any] = field(default_factory=dict)
    dataset: DatasetSpec = field(default_factory=DatasetSpec)
    preprocessing: Preprocessing = field(default_factory=Preprocessing)
    training: Training = field(default_factory=Training)
    adapter: Adapter = field(default_factory=Adapter)
    target: Target = field(default_factory=Target)
    symptom: str = "not-sure"
    traceback: str = ""
    # the training script that raised `traceback` (a path, relative to the case file) and the
    # arguments it ran with: a library bug's reproduction is cut from it
    script: str | None = None
    script_args: list[str] = field(default_factory=list)
    # search the GitHub issues of the library the error points at (sends the error message's
    # stable words to GitHub; off unless the user says so)
    search_issues: bool = False
    logs: str | None = None
    notes: str = ""
    source: str | None = None  # where the case came from (file path), not written back

    @property
    def error_only(self) -> bool:
        """Only a pasted error, no model: the error is read and this environment checked."""
        return not self.model.strip() and bool(self.traceback.strip())

    # -- YAML ---------------------------------------------------------------------------
    @classmethod
    def from_yaml(cls, text: str, base_dir: Path | None = None, validate: bool = True) -> "Case":
        """`validate=False` reads a partial case (an interrupted session) without the
        completeness checks; field names and types are still checked."""
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark is not None else ""
            raise CaseError(f"The case file is not valid YAML{where}; fix the syntax "
                            "(see `python -m wizard demo --write-case demo.yaml` for an example).")
        if data is None:
            raise CaseError("The case file is empty; it needs at least `model:` and `dataset:`.")
        if not isinstance(data, dict):
            raise CaseError("The case file must be a mapping of fields (model:, dataset:, ...), "
                            f"not a {type(data).__name__}.")
        case = cls.from_dict(data, validate=False)
        if base_dir is not None:
            case.resolve_paths(base_dir)
        if validate:  # after the paths are the case file's (the script must exist)
            case.validate()
        return case

    @classmethod
    def from_file(cls, path: str | Path, validate: bool = True) -> "Case":
        p = Path(path)
        if not p.is_file():
            raise CaseError(f"The case file {str(p)!r} does not exist; check the path.")
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise CaseError(f"The case file {str(p)!r} is not UTF-8 text; save it as a YAML text file.")
        case = cls.from_yaml(text, base_dir=p.parent, validate=validate)
        case.source = str(p)
        return case

    @classmethod
    def from_dict(cls, data: dict[str, Any], validate: bool = True) -> "Case":
        case = _build(cls, data, prefix="")
        if validate:
            case.validate()
        return case

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("source", None)
        return d

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False, allow_unicode=True)

    def resolve_paths(self, base_dir: Path) -> None:
        """Make relative local paths (model, dataset, logs, script) relative to the case file."""
        for obj, name in ((self, "model"), (self, "tokenizer"), (self.dataset, "path"),
                          (self, "logs"), (self, "script")):
            value = getattr(obj, name)
            if value and not Path(value).is_absolute() and _is_file_or_dir(base_dir / value):
                setattr(obj, name, str((base_dir / value).resolve()))

    # -- validation ---------------------------------------------------------------------
    def validate(self) -> None:
        if not self.model and not self.traceback.strip():
            raise CaseError("The case has no `model:`; add a Hub id (e.g. distilbert-base-uncased) "
                            "or a local save_pretrained folder (or, with only an error, paste it "
                            "as `traceback:`).", "model")
        _choice("framework", self.framework, FRAMEWORKS)
        _choice("task", self.task, TASK_NAMES)
        if self.task == "text-generation" and self.framework == "tensorflow":
            raise CaseError("Causal LM cases are checked with PyTorch (transformers 5 has no "
                            "TensorFlow LMs to fine-tune); set `framework: pytorch`.", "framework")
        _choice("preprocessing.lm_labels", self.preprocessing.lm_labels, tuple(LM_LABELS))
        _choice("preprocessing.token_labels", self.preprocessing.token_labels,
                tuple(TOKEN_LABELS))
        if self.task == "token-classification" and self.framework == "tensorflow":
            raise CaseError("Token classification cases are checked with PyTorch; set "
                            "`framework: pytorch`.", "framework")
        if self.task in (SEQ2SEQ, QA) and self.framework == "tensorflow":
            raise CaseError("Seq2seq and question-answering cases are checked with PyTorch; set "
                            "`framework: pytorch`.", "framework")
        _choice("preprocessing.targets", self.preprocessing.targets, tuple(SEQ2SEQ_TARGETS))
        _choice("preprocessing.label_pad", str(self.preprocessing.label_pad), tuple(LABEL_PADS))
        _choice("preprocessing.qa_positions", self.preprocessing.qa_positions,
                tuple(QA_POSITIONS))
        for name in ("max_target_length", "stride"):
            value = getattr(self.preprocessing, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise CaseError(f"`preprocessing.{name}` must be a positive number of tokens "
                                "(or left out).", f"preprocessing.{name}")
        if self.task in (SEQ2SEQ, QA) and len(self.dataset.text_columns) < 2:
            what, example = (("the source and the target text", "[document, summary]")
                             if self.task == SEQ2SEQ else
                             ("the question and the context", "[question, context]"))
            raise CaseError(f"A {self.task} case needs two text columns, {what} (e.g. "
                            f"`dataset.text_columns: {example}`).", "dataset.text_columns")
        if self.adapter.method is not None:
            _choice("adapter.method", self.adapter.method, ADAPTER_METHODS)
            if self.adapter.r < 1:
                raise CaseError("`adapter.r` must be a positive integer such as 8 or 16.",
                                "adapter.r")
        _choice("symptom", self.symptom, SYMPTOMS)
        _choice("training.labels", self.training.labels, LABEL_PLACES)
        _choice("preprocessing.padding", self.preprocessing.padding, PADDINGS)
        if self.preprocessing.truncation_side is not None:
            _choice("preprocessing.truncation_side", self.preprocessing.truncation_side,
                    ("right", "left"))
        _choice("training.mixed_precision", self.training.mixed_precision, PRECISIONS)
        if self.training.trainer is not None:
            _choice("training.trainer", self.training.trainer, TRAINERS)
        if self.num_labels is not None and self.num_labels < 1:
            raise CaseError("`num_labels` must be a positive integer (or left out to keep the "
                            "model's default).", "num_labels")
        if self.training.gradient_accumulation_steps < 1:
            raise CaseError("`training.gradient_accumulation_steps` must be at least 1.",
                            "training.gradient_accumulation_steps")
        if self.training.batch_size < 1:
            raise CaseError("`training.batch_size` must be at least 1.", "training.batch_size")
        if self.training.learning_rate is not None and not self.training.learning_rate > 0:
            raise CaseError("`training.learning_rate` must be a positive number such as 5e-5.",
                            "training.learning_rate")
        if self.dataset.max_samples < 1:
            raise CaseError("`dataset.max_samples` must be at least 1.", "dataset.max_samples")
        if not self.dataset.path and not self.dataset.data_files and not self.error_only:
            raise CaseError("The case has no `dataset.path`; add a Hub id, a save_to_disk folder, "
                            "or `dataset.data_files`.", "dataset.path")
        if not self.dataset.text_columns and not self.error_only:
            raise CaseError("`dataset.text_columns` is empty; list the text column(s), e.g. "
                            "[premise, hypothesis].", "dataset.text_columns")
        self._validate_target()
        self._validate_script()
        opt = self.training.optimizer
        if not isinstance(opt, (str, dict)) or (isinstance(opt, dict) and "name" not in opt):
            raise CaseError("`training.optimizer` must be a string such as adam or "
                            "'Adam(learning_rate=5e-5)', or a mapping with `name:`.",
                            "training.optimizer")

    def _validate_script(self) -> None:
        if not self.script:
            if self.script_args:
                raise CaseError("`script_args` are the arguments of `script:`; add the script "
                                "that raised the error (e.g. `script: train.py`).", "script")
            return
        if not Path(self.script).expanduser().is_file():
            raise CaseError(f"The script {self.script!r} does not exist; give the path of the "
                            "training script that raised the error (relative to the case "
                            "file).", "script")
        if not self.traceback.strip():
            raise CaseError("`script:` names the script that raised `traceback:`; paste its "
                            f"error too, or run it under the wizard: python -m wizard run "
                            f"{self.script}.", "traceback")

    def _validate_target(self) -> None:
        t = self.target
        if t.gpu not in (None, ""):
            read_gpu(t.gpu, "target.gpu")
        if t.count is not None and t.count < 1:
            raise CaseError("`target.count` must be the number of GPUs, at least 1.",
                            "target.count")
        if t.memory_gib is not None and not 0 < t.memory_gib <= 1024:
            raise CaseError("`target.memory_gib` must be the memory of one GPU in GiB, e.g. 24.",
                            "target.memory_gib")
        if t.strategy is not None:
            _choice("target.strategy", t.strategy, STRATEGIES)

    @property
    def trainer(self) -> str:
        """keras for TensorFlow, trainer for PyTorch, unless the case says otherwise."""
        if self.training.trainer:
            return self.training.trainer
        return "keras" if self.framework == "tensorflow" else "trainer"


def _show(value: Any) -> str:
    """A value as it can stand in a one-line message."""
    text = str(value)
    return text if text.isprintable() and len(text) <= 60 else repr(text)[:60]


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        hint = difflib.get_close_matches(str(value), allowed, n=1)
        did = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise CaseError(f"`{name}: {_show(value)}` is not one of {', '.join(allowed)}{did}; "
                        "use one of those values.", name)


def _build(cls: type, data: Any, prefix: str) -> Any:
    if not isinstance(data, dict):
        raise CaseError(f"`{prefix.rstrip('.')}` must be a mapping of fields, not "
                        f"{type(data).__name__}.", prefix.rstrip("."))
    known = {f.name: f for f in fields(cls) if f.name != "source"}
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        key_s = str(key)
        if key_s not in known:
            hint = difflib.get_close_matches(key_s, list(known), n=1)
            did = f"did you mean `{prefix}{hint[0]}`? " if hint else ""
            raise CaseError(f"Unknown field `{prefix}{_show(key_s)}` in the case file; {did}"
                            f"known fields here: {', '.join(known)}.", prefix + key_s)
        kwargs[key_s] = _coerce(known[key_s], value, prefix + key_s)
    return cls(**kwargs)


def _coerce(f: Any, value: Any, name: str) -> Any:
    sub = {"dataset": DatasetSpec, "preprocessing": Preprocessing, "training": Training,
           "adapter": Adapter, "target": Target}
    if f.name in sub and not name.count("."):
        return _build(sub[f.name], value if value is not None else {}, name + ".")
    types = [t for t in _types(f.type)]
    if value is None:
        if "None" in types or "Any" in types:
            return None
        raise CaseError(f"`{name}` cannot be empty; give it a value or remove the line.", name)
    if "Any" in types:
        return value
    if "list[str]" in types:
        if isinstance(value, str):
            return [value]
        if isinstance(value, list) and all(isinstance(v, (str, int)) for v in value):
            return [str(v) for v in value]
        raise CaseError(f"`{name}` must be a list of column names, e.g. [premise, hypothesis].", name)
    if "bool" in types:
        if isinstance(value, bool):
            return value
        raise CaseError(f"`{name}` must be true or false.", name)
    if "int" in types:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise CaseError(f"`{name}` must be an integer, not {value!r}.", name)
    if "float" in types:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        raise CaseError(f"`{name}` must be a number such as 5e-5, not {value!r}.", name)
    if "str" in types:
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
        raise CaseError(f"`{name}` must be a string, not {type(value).__name__}.", name)
    return value


def _types(annotation: Any) -> list[str]:
    text = annotation if isinstance(annotation, str) else str(annotation)
    return [t.strip() for t in text.split("|")] if "|" in text else [text.strip()]


def _is_file_or_dir(path: Path) -> bool:
    """Whether `path` exists; False for text that cannot be a path (too long, a NUL byte), such
    as a pasted log given where a file name was expected."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False
