"""Package versions for the environment family: the ones a paste states, the ones installed here
(importlib.metadata, nothing imported), pip names of import names, and a table of API changes
between releases (what was added, removed or moved, and in which version).
"""
from __future__ import annotations

import importlib.metadata
import json
import re
from dataclasses import dataclass
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from wizard.triage import api_history
from wizard.triage.packages import dist_key, parse_version, pip_name, version_lt

_HERE = {"on": True}


@contextmanager
def pastes_from_elsewhere() -> Iterator[None]:
    """Within it, pastes come from other machines: the versions installed here say nothing about
    them, so installed_version answers None (used to score the corpus of real reports the same
    on every machine)."""
    before = _HERE["on"]
    _HERE["on"] = False
    try:
        yield
    finally:
        _HERE["on"] = before


def installed_version(name: str) -> str | None:
    """The version of a distribution installed here (importlib.metadata), or None (always None
    inside pastes_from_elsewhere)."""
    return _installed_here(name) if _HERE["on"] else None


@lru_cache(maxsize=256)
def _installed_here(name: str) -> str | None:
    for candidate in dict.fromkeys((pip_name(name), name, dist_key(name))):
        try:
            return importlib.metadata.version(candidate)
        except Exception:  # noqa: BLE001 - not installed, or broken metadata
            continue
    return None


_KNOWN = (r"transformers?|datasets|tokenizers|accelerate|peft|trl|torch|pytorch|tensorflow|tf|"
          r"keras|tf[-_]keras|huggingface[-_]hub|numpy|pyarrow|bitsandbytes|sentence[-_]transformers|"
          r"safetensors|vllm|deepspeed|evaluate|jax|flax|python|cuda|sentencepiece|diffusers|unsloth|"
          r"xformers|flash[-_]attn|optimum|auto[-_]gptq")
_STATED = [
    # "- `transformers` version: 4.24.0", "Tensorflow version (GPU?): 2.11.0 (False)"
    re.compile(r"(?<![\w.-])`?(?P<pkg>[A-Za-z][\w.-]{1,40})`?\s+version(?:\s*\([^)\n]{0,30}\))?\s*:\s*"
               r"(?P<ver>v?\d+(?:\.\d+)+[\w.+-]*)", re.I),
    # "trl: 0.12.0.dev0", "bitsandbytes==0.47", "datasets 2.16.0", "tf2.0", "transformer 3,3,1"
    # "transformers-4.48.1 worked" (a wheel's or a folder's name)
    re.compile(rf"(?<![\w/.-])`?(?P<pkg>{_KNOWN})`?(?:\s*(?:==|:|=)\s*|\s*v|\s+version\s+|\s+v?|"
               r"-(?=\d+\.\d+\.\d+\b)|(?<=tf))(?P<ver>\d+(?:[.,]\d+)+[\w.+-]*)", re.I),
    # an interactive session printing it: ">>> kashgari.__version__\n'2.0.0.alpha'"
    re.compile(r"(?<![\w.])(?P<pkg>[A-Za-z][\w-]{0,40})\.__version__\)?\s*(?:\n\s*(?:Out\[\d+\]:"
               r"\s*)?)?['\"]?(?P<ver>\d+(?:\.\d+)+[\w.+-]*)"),
    # any package pinned exactly: "bert4keras==0.10.6", "tensorflow-gpu==1.14.0"
    re.compile(r"(?<![\w/.-])(?P<pkg>[A-Za-z][\w.-]{1,40})\s*==\s*(?P<ver>\d+(?:\.\d+)+[\w.+-]*)"),
]


# a line of an environment block: the package name first ("- `torch` 2.6.0", "torch==2.6.0")
_BLOCK_LINE = re.compile(r"^[ \t]*(?:[-*|>]+[ \t]*)?`?$")


def paste_versions(text: str) -> dict[str, str]:
    """Package versions the paste states (environment blocks, pins, "datasets 2.16.0"), keyed by
    dist_key: a line that starts with the package (an environment block) before a mention in
    the prose ("added in torch 2.7"), else the first mention."""
    return dict(_stated(text or ""))


@lru_cache(maxsize=64)
def _stated(text: str) -> tuple[tuple[str, str], ...]:
    """paste_versions, once per paste (many rules ask it of the same one)."""
    found: dict[str, tuple[bool, str]] = {}
    for rx in _STATED:
        for m in rx.finditer(text):
            key = dist_key(m.group("pkg"))
            if key in ("version", "python-version"):
                continue
            line_start = text.rfind("\n", 0, m.start()) + 1
            in_prose = not _BLOCK_LINE.match(text[line_start:m.start("pkg")])
            if key not in found or found[key][0] and not in_prose:
                found[key] = (in_prose, m.group("ver").rstrip(".,").replace(",", "."))
    return tuple((k, v) for k, (_, v) in found.items())


_SPEC = re.compile(r"(?P<op>>=|<=|==|!=|~=|>|<)\s*(?P<ver>\d+(?:\.\d+)*(?:\.\*)?)")


def declared_window(text: str, package: str) -> list[tuple[str, str]] | None:
    """A project's supported range of `package` that the paste shows, with both a lower and an
    upper bound ("transformers>=4.41.2,<=4.49.0,!=4.46.*": a requirements line, not a user's
    single pin), as (operator, version) pairs; None when there is none."""
    name = re.escape(package).replace(r"\-", "[-_]")
    for m in re.finditer(rf"(?<![\w.-]){name}\s*(?P<spec>(?:[<>=!~]=?\s*\d[\w.*]*\s*,?\s*)+)",
                         text or "", re.I):
        spec = [(s.group("op"), s.group("ver")) for s in _SPEC.finditer(m.group("spec"))]
        if any(op in (">=", ">") for op, _ in spec) and any(op in ("<=", "<") for op, _ in spec):
            return spec
    return None


def within(version: str, spec: list[tuple[str, str]]) -> bool:
    """Whether `version` satisfies every (operator, version) pair (a trailing .* matches a
    prefix)."""
    for op, ver in spec:
        if ver.endswith(".*"):
            prefix = version == ver[:-2] or version.startswith(ver[:-1])
            if (op == "==") != prefix:
                return False
            continue
        lt, gt = version_lt(version, ver), version_lt(ver, version)
        if lt is None or gt is None:
            return False
        ok = {">=": not lt, ">": gt, "<=": not gt, "<": lt, "==": not lt and not gt,
              "!=": lt or gt, "~=": not lt}[op]
        if not ok:
            return False
    return True


@dataclass(frozen=True)
class ApiChange:
    """A name a release added or removed: an import, attribute, argument or module."""

    package: str                      # pip name
    name: str                         # the name as the error prints it
    added: str | None = None          # first release that has it
    removed: str | None = None        # first release without it (or where it moved)
    replacement: str = ""             # what to use instead, or where it moved
    internal: bool = False            # not public API of `package` (also: a `_name` segment)

    @property
    def private(self) -> bool:
        """Whether the name is an internal of its package, which a release may change at will."""
        return self.internal or any(p.startswith("_") for p in re.split(r"[.:]", self.name))


_NUMPY_REMOVED = Path(__file__).with_name("numpy_removed.json")

API_CHANGES: tuple[ApiChange, ...] = (
    # huggingface_hub
    ApiChange("huggingface-hub", "cached_download", removed="0.26.0",
              replacement="from huggingface_hub import hf_hub_download"),
    ApiChange("huggingface-hub", "huggingface_hub.snapshot_download", removed="0.11.0",
              replacement="from huggingface_hub import snapshot_download"),
    ApiChange("huggingface-hub", "HfFolder", removed="1.0.0",
              replacement="from huggingface_hub import get_token"),
    ApiChange("huggingface-hub", "Repository", removed="1.0.0",
              replacement="HfApi().upload_folder(...)"),
    ApiChange("huggingface-hub", "split_torch_state_dict_into_shards", added="0.23.0"),
    ApiChange("huggingface-hub", "huggingface_hub.errors", added="0.24.0"),
    # transformers
    # the models' label arguments of 2.x/3.x (deprecated, then removed in 4.0)
    ApiChange("transformers", "lm_labels", removed="4.0.0", replacement="labels=..."),
    ApiChange("transformers", "masked_lm_labels", removed="4.0.0", replacement="labels=..."),
    # the models' cache argument of 2.x/3.x, renamed in 4.0 (GPT-2's past, BART's
    # decoder_cached_states, T5's decoder_past_key_value_states)
    *(ApiChange("transformers", name, removed="4.0.0", replacement="past_key_values=...")
      for name in ("past", "decoder_cached_states", "decoder_past_key_value_states",
                   "decoder_past_key_values")),
    ApiChange("transformers", "top_k_top_p_filtering", removed="4.39.0",
              replacement="upgrade the package that imports it (e.g. trl)"),
    ApiChange("transformers", "evaluation_strategy", added="3.2.0", removed="4.51.0",
              replacement="eval_strategy=..."),
    ApiChange("transformers", "num_items_in_batch", added="4.46.0",
              replacement="def compute_loss(self, model, inputs, return_outputs=False, "
                          "num_items_in_batch=None):"),
    ApiChange("transformers", "processing_class", added="4.46.0"),
    # the tokenizers' argument renamed in 3.2 (PR #7236); later releases refuse the old name
    ApiChange("transformers", "is_pretokenized", removed="3.2.0",
              replacement="tokenizer(words, is_split_into_words=True, ...)"),
    ApiChange("transformers", "eval_strategy", added="4.41.0"),
    ApiChange("transformers", "BitsAndBytesConfig", added="4.27.0"),
    ApiChange("transformers", "LlamaTokenizer", added="4.28.0"),
    ApiChange("transformers", "LlamaForCausalLM", added="4.28.0"),
    ApiChange("transformers", "MistralForCausalLM", added="4.34.0"),
    ApiChange("transformers", "Qwen2ForCausalLM", added="4.37.0"),
    ApiChange("transformers", "GemmaForCausalLM", added="4.38.0"),
    ApiChange("transformers", "Phi3ForCausalLM", added="4.40.0"),
    ApiChange("transformers", "Gemma2ForCausalLM", added="4.42.0"),
    ApiChange("transformers", "PartialState", added="4.29.0",
              replacement="from accelerate import PartialState"),
    # accelerate
    ApiChange("accelerate", "PartialState", added="0.20.1"),
    # peft
    ApiChange("peft", "prepare_model_for_int8_training", removed="0.10.0",
              replacement="from peft import prepare_model_for_kbit_training"),
    ApiChange("peft", "prepare_model_for_kbit_training", added="0.4.0"),
    ApiChange("peft", "use_dora", added="0.9.0"),
    ApiChange("peft", "use_rslora", added="0.7.0"),
    ApiChange("peft", "LoftQConfig", added="0.7.0"),
    # trl
    ApiChange("trl", "SFTConfig", added="0.9.0"),
    ApiChange("trl", "GRPOTrainer", added="0.14.0"),
    ApiChange("trl", "GRPOConfig", added="0.14.0"),
    ApiChange("trl", "loss_type", added="0.7.0"),
    ApiChange("trl", "dataset_text_field", removed="0.12.0",
              replacement="SFTConfig(dataset_text_field=...)"),
    ApiChange("trl", "max_seq_length", removed="0.12.0",
              replacement="SFTConfig(max_seq_length=...)"),
    # trl 0.29 took the PPO family and the less used trainers out of the top-level package
    # (they lived in trl.experimental from 0.26; the PPO ones are gone from later releases)
    *(ApiChange("trl", name, removed="0.29.0",
                replacement="the code's own PPO loop, or a trainer trl still ships (GRPOTrainer)")
      for name in ("AutoModelForCausalLMWithValueHead", "AutoModelForSeq2SeqLMWithValueHead",
                   "PPOTrainer", "PPOConfig")),
    *(ApiChange("trl", name, removed="0.29.0",
                replacement=f"from trl.experimental.{module} import {name}")
      for name, module in (("ORPOTrainer", "orpo"), ("ORPOConfig", "orpo"), ("CPOTrainer", "cpo"),
                           ("CPOConfig", "cpo"), ("OnlineDPOTrainer", "online_dpo"),
                           ("OnlineDPOConfig", "online_dpo"))),
    ApiChange("transformers", "AdamW", removed="4.50.0",
              replacement="from torch.optim import AdamW"),
    # datasets
    ApiChange("datasets", "load_metric", removed="3.0.0",
              replacement="import evaluate; metric = evaluate.load(...)"),
    # tokenizers
    ApiChange("tokenizers", "from_pretrained", added="0.11.0"),
    # keras / tensorflow
    # Keras internals (never in the public tf.keras API) that TF releases moved or deleted
    ApiChange("tensorflow", "keras.engine", removed="2.13.0",
              replacement="upgrade the package that imports it (transformers)", internal=True),
    ApiChange("tensorflow", "keras.saving.hdf5_format", removed="2.11.0",
              replacement="upgrade the package that imports it (transformers)", internal=True),
    ApiChange("tensorflow", "expand_1d", removed="2.11.0",
              replacement="upgrade the package that calls it (transformers)", internal=True),
    ApiChange("tensorflow", "swish", added="2.2.0"),
    # members: "Base.attr" holds for every class whose name ends with Base (DynamicCache,
    # OneDeviceStrategy).
    # the KV cache classes (DynamicCache, StaticCache ...): model code of a Hub repository
    # (trust_remote_code) written for an older transformers calls what a release removed
    ApiChange("transformers", "Cache.get_max_length", removed="4.49.0",
              replacement="cache.get_max_cache_shape()   # or a revision of the model's code "
                          "for the installed transformers"),
    ApiChange("transformers", "Cache.seen_tokens", removed="4.54.0",
              replacement="cache.get_seq_length()   # or a revision of the model's code for the "
                          "installed transformers"),
    ApiChange("transformers", "Cache.get_usable_length", removed="4.54.0",
              replacement="cache.get_seq_length()   # or a revision of the model's code for the "
                          "installed transformers"),
    ApiChange("tensorflow", "Strategy.experimental_run_v2", removed="2.4.0",
              replacement="strategy.run(fn, args=...)   # or a release of the calling library "
                          "that uses it"),

    ApiChange("keras", "keras.preprocessing.text", removed="3.0.0",
              replacement="keras.layers.TextVectorization (or Keras 2: pip install tf-keras; "
                          "import tf_keras as keras)"),
    ApiChange("keras", "input_length", removed="3.0.0",
              replacement="drop input_length (Keras 3 infers it from the input)"),
    # TensorFlow 1 graph-mode APIs that TensorFlow 2.0 removed from the top-level namespace
    *(ApiChange("tensorflow", name, removed="2.0.0",
                replacement=f"tf.compat.v1.{name} (or rewrite for TF2: eager, tf.function, Keras)")
      for name in ("Session", "placeholder", "get_default_graph", "ConfigProto",
                   "global_variables_initializer", "InteractiveSession", "reset_default_graph",
                   "variable_scope", "set_random_seed", "GPUOptions", "to_float", "to_int32",
                   "log", "get_variable", "random_normal", "truncated_normal_initializer")),
    ApiChange("tensorflow", "contrib", removed="2.0.0",
              replacement="the TF2 equivalent (tf.keras, tensorflow-addons) of the contrib module"),
    ApiChange("tensorflow", "tensorflow.contrib", removed="2.0.0",
              replacement="the TF2 equivalent (tf.keras, tensorflow-addons) of the contrib module"),
    ApiChange("keras", "get_session", removed="2.4.0",
              replacement="tf.compat.v1.keras.backend.get_session()"),
    ApiChange("keras", "set_session", removed="2.4.0",
              replacement="tf.compat.v1.keras.backend.set_session(...)"),
    # Keras 2.11 made the new optimizers the default; their internals differ from the legacy ones
    ApiChange("keras", "get_updates", removed="2.11.0",
              replacement="tf.keras.optimizers.legacy.Adam(...)"),
    ApiChange("keras", "_set_hyper", removed="2.11.0",
              replacement="tf.keras.optimizers.legacy.Adam(...)"),
    ApiChange("keras", "pad_sequences", removed="3.0.0",
              replacement="from keras.utils import pad_sequences"),
    # torch
    ApiChange("torch", "torch._six", removed="2.0.0",
              replacement="upgrade the package that imports it"),
    ApiChange("torch", "SAVE_STATE_WARNING", removed="1.8.0", internal=True,
              replacement="upgrade the package that imports it (transformers 4.2 and later)"),
    ApiChange("torch", "compile", added="2.0.0"),
    ApiChange("torch", "register_pytree_node", added="2.2.0"),
    ApiChange("torch", "float8_e4m3fn", added="2.1.0"),
    # flash-attn 2.0 renamed the variable-length ("unpadded") kernels
    ApiChange("flash-attn", "flash_attn_varlen_func", added="2.0.0"),
    ApiChange("flash-attn", "flash_attn_varlen_qkvpacked_func", added="2.0.0"),
    ApiChange("flash-attn", "flash_attn_unpadded_func", removed="2.0.0",
              replacement="from flash_attn import flash_attn_varlen_func"),
    ApiChange("flash-attn", "flash_attn_unpadded_qkvpacked_func", removed="2.0.0",
              replacement="from flash_attn import flash_attn_varlen_qkvpacked_func"),
    # numpy: aliases removed in 1.24 and 2.0
    *(ApiChange("numpy", n, removed="1.24.0", replacement=f"{n} (the Python builtin)")
      for n in ("float", "int", "bool", "object", "str", "long", "complex", "unicode")),
    # numpy 2: every name of 1.26's namespace a 2.x release no longer serves, read from the
    # wheels (scripts/build_numpy_removed.py)
    *(ApiChange("numpy", n, removed=removed, replacement=r)
      for n, (removed, r) in json.loads(_NUMPY_REMOVED.read_text(encoding="utf-8")).items()),
)


def api_change(name: str, package: str | None = None) -> ApiChange | None:
    """The table entry for a name (module paths match their tail), of `package` when given;
    else what the released wheels show (history_change)."""
    name = (name or "").strip().strip("'\"")
    want = dist_key(package) if package else None
    for c in API_CHANGES:
        if want and dist_key(c.package) != want and not c.name.startswith(want.split("-")[0]):
            continue
        if c.package == "numpy" and want != "numpy":
            continue                  # its bare names (cast, source, product) are common words
        if name == c.name or (("." in c.name) and (name == c.name or name.startswith(c.name + "."))):
            return c
    return history_change(name, package)


def _minor(version: str | None) -> str | None:
    """'4.51.3' -> '4.51.0': the history scans one patch per minor release."""
    v = parse_version(version)
    return f"{v[0]}.{v[1] if len(v) > 1 else 0}.0" if v else None


def history_span_change(span: "api_history.Span | None", name: str,
                 replacement: str = "") -> ApiChange | None:
    """A Span as an ApiChange: added when the first scanned release lacked it, removed when
    the newest lacks it; None for a name every scanned release has."""
    if span is None:
        return None
    first = api_history.releases(span.package)[0]
    added = _minor(span.first) if span.first != first else None
    removed = _minor(span.removed) if span.removed else None
    if not (added or removed):
        return None
    return ApiChange(span.package, name, added=added, removed=removed, replacement=replacement)


def history_change(name: str, package: str | None = None) -> ApiChange | None:
    """The change the released wheels show for a top-level name of `package` or a module path
    (api_history), for the names the hand-written table does not list."""
    name = (name or "").strip().strip("'\"")
    span = api_history.top_name(package, name) if package and "." not in name else None
    if span is None and "." in name:
        span = api_history.module(name)
        if span is None:              # a name of a module: "transformers.utils.is_x_available"
            span = api_history.module_name(*name.rsplit(".", 1))
    return history_span_change(span, name)


def argument_change(callee: str, arg: str) -> ApiChange | None:
    """The change of keyword argument `arg` of a callable the history records ('SFTTrainer',
    'TrainingArguments.__init__', 'trl.SFTConfig')."""
    key = api_history.owner(callee)
    if not key:
        return None
    span = api_history.kwarg(key, arg)
    moved = ""
    if span is not None and span.removed and key.endswith("Trainer"):
        # trl moved its trainers' options into their config classes
        config = api_history.kwarg(key[: -len("Trainer")] + "Config", arg)
        if config is not None and config.removed is None:
            cls = key.rsplit(".", 1)[-1][: -len("Trainer")] + "Config"
            moved = f"{cls}(..., {arg}=...) passed as args= (it moved there in {config.first})"
    return history_span_change(span, arg, moved)


def member_change(cls: str, attr: str) -> ApiChange | None:
    """The change of attribute or method `attr` of a class the history records ('Trainer',
    'Dataset', 'SFTTrainer'): added or removed, in the releases of the package that has it; else
    a table entry "Base.attr" for a class named ...Base (OneDeviceStrategy: Strategy)."""
    found = history_span_change(api_history.member(cls, attr), f"{cls}.{attr}")
    if found is not None:
        return found
    for i in [0] + [m.start() for m in re.finditer(r"(?<=[a-z0-9])[A-Z]", cls)]:
        for c in API_CHANGES:
            if c.name == f"{cls[i:]}.{attr}":
                return c
    return None


def satisfies(version: str, specifier: str) -> bool | None:
    """Whether `version` meets a requirement specifier ('>=4.46.0,<5'); None when a part cannot
    be read (wildcards, non-numeric versions)."""
    ok = True
    for part in filter(None, (p.strip() for p in specifier.split(","))):
        m = re.fullmatch(r"(>=|<=|==|!=|~=|>|<)\s*(\d[\w.]*)", part)
        if not m:
            return None
        op, bound = m.groups()
        lt, gt = version_lt(version, bound), version_lt(bound, version)
        if lt is None:
            return None
        if op == "~=":            # ~=X.Y.Z: >= X.Y.Z and < X.(Y+1)
            head = [int(x) for x in re.findall(r"\d+", bound)][:-1] or [0]
            upper = ".".join(map(str, head[:-1] + [head[-1] + 1]))
            ok &= not lt and bool(version_lt(version, upper))
            continue
        ok &= {">=": not lt, "<=": not gt, ">": gt, "<": lt, "==": not lt and not gt,
               "!=": lt or gt}[op]
    return ok
