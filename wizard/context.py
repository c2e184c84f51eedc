"""The shared, lazily loaded context probes run against: config, tokenizer, data, model, batch."""
from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import Any, Callable

import numpy as np

from wizard.backends.batch import Batch, ForwardResult
from wizard.backends.data import load_splits
from wizard.backends.lm_data import encode_lm, pack_lm
from wizard.backends.qa_data import tokenize_qa
from wizard.backends.seq2seq_data import encode_seq2seq
from wizard.backends.token_data import encode_tokens
from wizard.backends.tf import TFBackend
from wizard.backends.torch import TorchBackend
from wizard.core.case import Case, CaseError
from wizard.core.findings import Finding
from wizard.core.tasks import CAUSAL_LM, QA, SEQ2SEQ, TOKEN_CLS, has_label_column
from wizard.frameworks import import_torch
from wizard.hub.download import WEIGHT_PATTERNS, download_model, human_bytes, model_file_patterns
from wizard.hub.errors import HubError
from wizard.hub.resolve import resolve_model


# Names DataCollatorWithPadding / default_data_collator turn into `labels`, and that Trainer's
# remove_unused_columns keeps (transformers Trainer._set_signature_columns_if_needed).
LABEL_NAMES = ("label", "labels", "label_ids")


def is_local_ref(ref: str) -> bool:
    """True when `ref` is meant as a local path rather than a Hub id."""
    return ref.startswith(("/", "./", "../", "~")) or os.path.exists(ref) or "\\" in ref


def check_local_paths(case: Case) -> None:
    """Fail early, with one sentence, on local folders that do not exist."""
    for name, value in (("model", case.model), ("dataset.path", case.dataset.path),
                        ("logs", case.logs)):
        if value and is_local_ref(value) and not Path(value).expanduser().exists():
            raise CaseError(f"`{name}: {value}` does not exist; give the folder written by "
                            "save_pretrained/save_to_disk, or a Hub id.", name)


class Context:
    """Loads each piece once, on first use. Probes share one Context per worker process."""

    def __init__(self, case: Case, device: str = "auto",
                 progress: Callable[[str], None] | None = None):
        self.case = case
        self.requested_device = device
        self.progress = progress or (lambda message: None)
        self.notes: list[Finding] = []  # findings raised while loading (e.g. a loading fallback)
        self.supplied: set[str] = set()
        self.scratch: dict[str, Any] = {}  # what probes keep between calls (runs, step runners)

    def loaded(self, name: str, default: Any = None) -> Any:
        """A piece (model, forward, config, ...) if it is loaded or was supplied; never loads it."""
        return self.__dict__.get(name, default)

    def is_loaded(self, name: str) -> bool:
        return name in self.__dict__

    def put(self, name: str, value: Any) -> None:
        """Replace a piece (a model loaded another way, a computed forward)."""
        self.__dict__[name] = value

    @classmethod
    def from_objects(cls, case: Case, device: str = "auto", **objects: Any) -> "Context":
        """A context over live objects (a notebook's model, tokenizer, batch, ...): each given
        object replaces the one the context would load. Keys: config, tokenizer, raw (dict of
        split name -> datasets.Dataset), tokenized, model, batch (a Batch), forward."""
        known = {"config", "tokenizer", "raw", "tokenized", "model", "batch", "forward",
                 "backend", "label_names"}
        unknown = set(objects) - known
        if unknown:
            raise TypeError(f"unknown context objects {sorted(unknown)}; use {sorted(known)}")
        ctx = cls(case, device=device)
        ctx.supplied = set(objects)  # probes can tell the user's own objects from the wizard's
        for name, value in objects.items():
            if value is not None:
                ctx.__dict__[name] = value  # pre-fills the cached_property
        return ctx

    # -- framework --------------------------------------------------------------------
    @cached_property
    def backend(self) -> Any:
        if self.case.framework == "tensorflow":

            return TFBackend(self)

        return TorchBackend(self)

    @property
    def device(self) -> str:
        return self.backend.device

    # -- Hub / local objects ----------------------------------------------------------
    @cached_property
    def model_location(self) -> str:
        """What from_pretrained gets for the model: the case's model, or, once the hub probe has
        resolved a Hub repo from its metadata, the cache folder the files fine-tuning needs are
        fetched into (one weights format), with progress."""
        return self._fetched(weights=True)

    @cached_property
    def files_location(self) -> str:
        """The same for the config and the tokenizer: their files alone, no weights."""
        return self._fetched(weights=False)

    @cached_property
    def model_ref(self) -> Any:
        """The model resolved from its metadata alone. The hub probe runs in the parent process,
        so a worker's context resolves it again (from the Hub's answer or its cache); None when it
        cannot be resolved here (the hub probe has said why)."""
        try:
            return resolve_model(self.case.model, revision=self.case.revision,
                                 token=getattr(self, "hub_token", None),
                                 endpoint=getattr(self, "hub_endpoint", None),
                                 cache_dir=getattr(self, "hub_cache_dir", None))
        except HubError:
            return None

    def _fetched(self, weights: bool) -> str:
        ref = self.model_ref
        if ref is None or ref.kind != "hub" or ref.source != "hub":
            return self.case.model

        def report(name: str, done: int, total: int) -> None:
            share = f" ({done / total:.0%})" if total else ""
            self.progress(f"downloading {ref.name}: {name}, {human_bytes(done)} of "
                          f"{human_bytes(total)}{share}")

        patterns = model_file_patterns(ref, self.case.framework, self.case.trust_remote_code)
        if not weights:
            patterns = [p for p in patterns if p not in WEIGHT_PATTERNS]
        # pickle-only weights were already reported by the hub probe; loading them is the user's call
        return download_model(ref, patterns=patterns, framework=self.case.framework,
                              allow_pickle=True, trust_remote_code=self.case.trust_remote_code,
                              progress=report if weights else None)

    def pretrained_kwargs(self, location: str | None = None) -> dict[str, Any]:
        """revision and trust_remote_code as from_pretrained takes them for `location`
        (default: the model's); a fetched cache folder needs no revision."""
        local = (location or self.model_location) != self.case.model
        return {"revision": None if local else self.case.revision,
                "trust_remote_code": self.case.trust_remote_code}

    def model_load_kwargs(self) -> dict[str, Any]:
        """The case's other from_pretrained arguments that load the same model here: the
        weights' framework and dtype, the attention. Quantization and device maps need a GPU
        (and bitsandbytes / accelerate): the checks load the model unquantized, on their device."""
        args = self.case.load_args
        out: dict[str, Any] = {}
        for key in ("from_tf", "from_pt", "attn_implementation"):
            if key in args:
                out[key] = args[key]
        dtype = args.get("torch_dtype", args.get("dtype"))
        if dtype is not None and self.case.framework == "pytorch":
            name = str(dtype).rsplit(".", 1)[-1].strip("'\"")
            torch = import_torch()
            out["torch_dtype"] = "auto" if name == "auto" else getattr(torch, name, None)
            if out["torch_dtype"] is None:
                del out["torch_dtype"]
        return out

    @cached_property
    def config(self) -> Any:
        from transformers import AutoConfig

        self.progress("loading the model config")
        kwargs: dict[str, Any] = self.pretrained_kwargs(self.files_location)
        if self.case.num_labels is not None:
            kwargs["num_labels"] = self.case.num_labels
        config = AutoConfig.from_pretrained(self.files_location, **kwargs)
        self.set_config_values(config)
        return config

    @cached_property
    def tokenizer(self) -> Any:
        from transformers import AutoTokenizer

        self.progress("loading the tokenizer")
        where = self.case.tokenizer or self.files_location
        tok = AutoTokenizer.from_pretrained(where, **self.pretrained_kwargs(where))
        set_pad_token(tok, self.case.preprocessing.pad_token)
        if self.case.preprocessing.truncation_side:
            tok.truncation_side = self.case.preprocessing.truncation_side
        return tok

    def set_config_values(self, config: Any) -> None:
        """The values the user's script sets on model.config (`case.model_config`), a
        tokenizer attribute's name standing for `tokenizer.<name>`."""
        for key, value in self.case.model_config.items():
            if isinstance(value, str) and value.endswith("_token_id"):
                value = getattr(self.tokenizer, value, None)
            setattr(config, key, value)

    @cached_property
    def raw(self) -> Any:
        """The train (and eval) splits, at most `dataset.max_samples` rows each."""

        self.progress("loading the dataset")
        splits = load_splits(self.case.dataset)
        self._label_alias(splits)
        self._check_columns(splits)
        return splits

    def _label_alias(self, splits: Any) -> None:
        """label, labels and label_ids all reach the model as `labels` (the collators rename
        them): a case naming one of them, over a dataset that has another, means that one."""
        spec = self.case.dataset
        columns = splits[spec.train_split].column_names
        if spec.label_column in LABEL_NAMES and spec.label_column not in columns:
            spec.label_column = next((c for c in LABEL_NAMES if c in columns), spec.label_column)

    def _check_columns(self, splits: Any, label: bool = False) -> None:
        """CaseError for a text column the dataset lacks (nothing can be tokenized); a missing
        label column is a finding of the label-column probe, unless `label` (a form's check)."""
        spec = self.case.dataset
        columns = splits[spec.train_split].column_names
        label = label and has_label_column(self.case.task)
        for col in [*spec.text_columns, *([spec.label_column] if label else [])]:
            if col not in columns:
                field_name = ("dataset.label_column" if col == spec.label_column
                              else "dataset.text_columns")
                raise CaseError(f"Column {col!r} is not in the dataset's {spec.train_split!r} split "
                                f"(columns: {', '.join(columns)}); set `{field_name}` to one of "
                                "those.", field_name)

    def check_columns(self) -> None:
        """Every column the case names is in the dataset (CaseError naming the field if not)."""
        self._check_columns(self.raw, label=True)

    @cached_property
    def tokenized(self) -> Any:
        """Tokenized like the user's preprocessing function; the label column kept as is."""
        spec, pre = self.case.dataset, self.case.preprocessing
        tok = self.tokenizer

        def encode(examples: dict[str, list]) -> Any:
            texts = [examples[c] for c in spec.text_columns[:2]]
            kwargs: dict[str, Any] = {"truncation": pre.truncation}
            if pre.max_length:
                kwargs["max_length"] = pre.max_length
            if pre.padding == "max_length":
                kwargs["padding"] = "max_length"
            return tok(*texts, **kwargs)

        self.progress("tokenizing the sample")
        task = self.case.task
        if task == QA:  # one row per window: the columns change
            return {name: tokenize_qa(self.case, tok, split) for name, split in self.raw.items()}
        if task == CAUSAL_LM:
            encode = encode_lm(self.case, tok)  # noqa: F811 - the causal LM's own pipeline
        elif task == TOKEN_CLS:
            encode = encode_tokens(self.case, tok)  # noqa: F811 - words and aligned labels
        elif task == SEQ2SEQ:
            encode = encode_seq2seq(self.case, tok)  # noqa: F811 - sources, and targets as labels
        out = {name: split.map(encode, batched=True) for name, split in self.raw.items()}
        if task == CAUSAL_LM and pre.packing:
            out = {name: pack_lm(self.case, tok, split) for name, split in out.items()}
        return out

    @cached_property
    def label_names(self) -> list[str] | None:
        feature = self.raw[self.case.dataset.train_split].features.get(self.case.dataset.label_column)
        return list(getattr(feature, "names", None) or []) or None

    def labels(self, split: str | None = None) -> np.ndarray:
        split = split or self.case.dataset.train_split
        values = self.raw[split][self.case.dataset.label_column]
        try:
            return np.asarray(values)
        except ValueError:  # ragged (token-level) labels: other checks report them
            return np.asarray(values, dtype=object)

    @property
    def num_labels(self) -> int:
        return int(self.config.num_labels)

    @cached_property
    def model(self) -> Any:
        self.progress(f"loading the model ({self.case.framework})")
        model = self.backend.load_model()
        self.set_config_values(model.config)
        for path in self.case.freeze:  # as the user's script freezes it, before any check
            freeze_module(model, path, self.case.framework)
        return model

    @cached_property
    def batch(self) -> Batch:
        self.progress("building the first batch as the model sees it")
        return self.backend.first_batch()

    @cached_property
    def forward(self) -> ForwardResult:
        """One batch through the freshly loaded model (no weight update)."""
        self.progress("running one batch through the model")
        return self.backend.forward(self.batch)


def freeze_module(model: Any, path: str, framework: str) -> None:
    """Freeze `model.<path>` ("" for the whole model) as the user's script does: Keras
    `.trainable = False`, PyTorch `requires_grad = False` on its parameters."""
    module = model
    for part in [p for p in path.split(".") if p]:
        module = getattr(module, part)
    if framework == "tensorflow":
        module.trainable = False
    else:
        for param in module.parameters():
            param.requires_grad = False


def set_pad_token(tokenizer: Any, pad_token: str | None) -> None:
    """`tokenizer.pad_token = ...` as the user's script sets it: a token, or the name of one of
    the tokenizer's special tokens (eos_token)."""
    if not pad_token:
        return
    if pad_token.endswith("_token") and getattr(tokenizer, pad_token, None) is not None:
        pad_token = getattr(tokenizer, pad_token)
    tokenizer.pad_token = pad_token
