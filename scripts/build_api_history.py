"""Build ``wizard/triage/api_history.json``: when each public name of the Hugging Face libraries
appeared and disappeared, read from their released wheels.

A maintainer script, run by hand (never by the tests or CI) with an interpreter that has pip and
reaches PyPI::

    .venv-modern/bin/python scripts/build_api_history.py     # all packages, ~25 min, ~0.9 GB fetched
    .venv-modern/bin/python scripts/build_api_history.py --packages peft trl --merge

For each package it takes the latest patch of every minor release from a starting release on
(pre-releases and dev builds skipped; the newest patch that has a wheel), downloads its wheel with
``pip download --no-deps``, reads the wheel as a zip WITHOUT installing or importing it (Python
source is parsed with ``ast``, plus a few line-anchored regular expressions to index definitions)
and deletes it again.

What is recorded, with versions as indices into ``releases[package]`` (a name present in releases
i..j with a gap in between is stored as the widest ``[i, j]``, so its first and last releases are
right, and the runs of releases that lacked it in between go to ``top_gaps[package][name]``,
``module_gaps[package][path]`` or ``kwarg_gaps["pkg.Qualname"][arg]`` as ``[[a, b], ...]``):

* ``top[package][name]`` -- names importable as ``from package import name``. Read statically from
  ``package/__init__.py``: names of ``from .x import A, B`` (and ``from package.x import ...``),
  ``from .x import *`` (the target's ``__all__`` or its public module-level names), ``__all__``, the
  string entries of dict literals whose values are lists of names (``_import_structure``,
  huggingface_hub's ``_SUBMOD_ATTRS``) and of ``d["k"].extend([...])`` / ``.append(...)`` /
  ``d["k"] = [...]``. Approximation: where transformers builds its model exports dynamically
  (``define_import_structure`` over ``models/``), each file under ``models/`` (but ``modular_*``
  and ``convert_*``) contributes its ``__all__`` literal, and a ``{modeling,configuration,
  tokenization,processing,image_processing,feature_extraction,video_processing}_*.py`` file
  lacking one contributes every public (not ``_``-prefixed) class or function defined at column 0
  -- which may also count a few helpers that are not really exported. A ``from .x import *``
  without ``__all__`` counts x's public module-level definitions, assignments and imports.
* ``modules[package][dotted.path]`` -- every ``.py`` module and package directory in the wheel,
  plus the deprecated paths transformers 5.x still serves through its legacy module alias finder
  (``_LEGACY_MODULE_ALIASES`` keys, ``models.x.image_processing_x_fast``).
* ``names[package][dotted.module][name]`` -- ``[first, last]`` of a public name a plain module
  binds at its top level (definitions, assignments, what it imports from its own package, in
  ``if`` / ``try`` blocks too), recorded only when the module's file gained or lost it while the
  file existed: so "cannot import name 'X' from 'pkg.sub.mod'" can be dated. Lazily exporting
  package ``__init__`` files are left out.
* ``kwargs["pkg.Qualname"][arg]`` -- keyword arguments of a fixed list of callables (``TARGETS``),
  looked up by name across the package's modules: a function's or method's parameters (not
  ``self``, ``*args``, ``**kwargs``, nor positional-only ones); for a class its ``__init__``
  parameters or, for a dataclass, its annotated fields merged with those of its bases in the same
  package. Where a callable takes ``**kwargs`` the string keys it reads from them
  (``kwargs.pop("k")``, ``kwargs.get("k")``, ``kwargs["k"]``) count as arguments too.
* ``varkw["pkg.Qualname"]`` -- runs ``[[first, last], ...]`` of releases in which the callable takes
  ``**kwargs`` that it does not simply forward to a base class (so any keyword is accepted).
* ``bases["pkg.Qualname"]`` -- a class whose keyword arguments flow to a class of another package
  (trl's ``SFTConfig`` dataclass inherits transformers' ``TrainingArguments`` fields): a lookup
  unions the two. One base per class (the newest release's).
* ``callables["pkg.Qualname"]`` -- ``[first, last]`` releases in which the callable was found.
* ``members["pkg.Class"][name]`` -- members of a fixed list of classes (``MEMBER_CLASSES``), for
  "'X' object has no attribute 'y'": methods (``def`` / ``async def``), properties, nested classes,
  class-level assignments, annotated fields, names imported in the class body, ``__slots__``, and
  attributes stored on the instance in any of its methods (``self.y = ...``, ``self.a, self.b =``,
  ``for self.i in``, ``setattr(self, "y", ...)``); dunder names are left out. The members of its
  bases in the same package are folded in (bases resolved through the file's imports, recursively);
  standard-library ``dict`` / ``OrderedDict`` / ``UserDict`` / ``NamedTuple`` bases add their public
  methods. Gaps go to ``member_gaps``; ``classes["pkg.Class"]`` is ``[first, last]`` of the class.
  A class found only as a module-level alias (``PreTrainedTokenizer = PythonBackend`` in
  transformers 5.x) is read from the aliased class; ``PretrainedConfig`` (renamed
  ``PreTrainedConfig`` in 5.0) is recorded under both keys, each with the whole history.
* ``member_bases["pkg.Class"]`` -- recorded classes of *other* packages it inherits from (trl's
  trainers from ``transformers.Trainer``, peft's configs from ``transformers.PushToHubMixin``),
  newest release's first, unioned over releases; a lookup walks them.
* ``member_open["pkg.Class"][reason]`` -- runs ``[[first, last], ...]`` of releases in which no
  attribute can be said missing: ``__getattr__`` / ``__getattribute__`` defined by it or an
  in-package base; ``setattr`` (``setattr(self, k, v)`` or ``self.__dict__.update(...)`` with names
  from a parameter or a loop over one -- not under ``if hasattr(self, k)`` / ``if k in KNOWN`` nor
  after ``assert k in KNOWN``, nor in ``__setstate__``); ``base X`` (a base outside the scanned
  packages: ``torch.nn.Module``, keras ``Model``, ...); ``subclass fields`` (``ModelOutput``, by
  hand: its instances are always of subclasses with their own fields).

Known gaps: names created at runtime (``globals()[...]``, list comprehensions over ``dir()``) are
missed; members added to a class from outside it (monkey-patching, decorators that set attributes,
``datasets``' torch ``IterableDataset`` parent added at import time) are missed, and a nested
function's own ``self`` counts as the class's; a class found under several files is taken from the
one the package ``__init__`` maps it to, else the shortest non-experimental/deprecated path.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

PIP = [sys.executable, "-m", "pip"]
OUT = Path(__file__).resolve().parent.parent / "wizard" / "triage" / "api_history.json"

# import name -> (pip name, first minor release scanned)
PACKAGES: dict[str, tuple[str, str]] = {
    "transformers": ("transformers", "3.0"),
    "peft": ("peft", "0.2"),
    "trl": ("trl", "0.4"),
    "datasets": ("datasets", "1.0"),
    "accelerate": ("accelerate", "0.5"),
    "huggingface_hub": ("huggingface-hub", "0.5"),
    "sentence_transformers": ("sentence-transformers", "2.0"),
    "evaluate": ("evaluate", "0.1"),
    "diffusers": ("diffusers", "0.3"),
    # compiled: its classes are read from the type stubs (.pyi) the wheels ship; the first
    # release with a wheel for this interpreter is the first scanned
    "tokenizers": ("tokenizers", "0.13"),
}
STUBS = {"tokenizers"}

TARGETS: dict[str, list[str]] = {
    "transformers": [
        "TrainingArguments", "Seq2SeqTrainingArguments", "Trainer", "Seq2SeqTrainer",
        "BitsAndBytesConfig", "GenerationConfig", "DataCollatorForLanguageModeling",
        "DataCollatorWithPadding", "DataCollatorForSeq2Seq", "DataCollatorForTokenClassification",
        "EarlyStoppingCallback", "pipeline", "PreTrainedTokenizerBase.__call__",
        "PreTrainedTokenizerBase.pad", "TFPreTrainedModel.prepare_tf_dataset",
        # model forwards: the arguments old code passes (GPT-2's `past`, `lm_labels`,
        # `masked_lm_labels`, the seq2seq caches' old names) and when they were renamed
        "GPT2LMHeadModel.forward", "GPT2Model.forward", "OpenAIGPTLMHeadModel.forward",
        "BertModel.forward", "BertForMaskedLM.forward", "BertForPreTraining.forward",
        "BertForSequenceClassification.forward", "T5ForConditionalGeneration.forward",
        "BartForConditionalGeneration.forward", "XLNetLMHeadModel.forward",
        "LlamaForCausalLM.forward", "LlamaModel.forward",
    ],
    "peft": [
        "LoraConfig", "PromptTuningConfig", "PrefixTuningConfig", "IA3Config", "get_peft_model",
        "prepare_model_for_kbit_training", "PeftModel.from_pretrained",
    ],
    "trl": [
        "SFTTrainer", "SFTConfig", "DPOTrainer", "DPOConfig", "GRPOTrainer", "GRPOConfig",
        "PPOTrainer", "PPOConfig", "RewardTrainer", "RewardConfig", "KTOTrainer", "KTOConfig",
        "ORPOTrainer", "ORPOConfig", "DataCollatorForCompletionOnlyLM",
    ],
    "datasets": [
        "load_dataset", "load_from_disk", "Dataset.map", "Dataset.filter",
        "Dataset.train_test_split", "Dataset.to_tf_dataset", "Dataset.set_format",
    ],
    "accelerate": ["Accelerator", "Accelerator.prepare"],
    "huggingface_hub": [
        "hf_hub_download", "snapshot_download", "login", "HfApi.upload_folder", "HfApi.create_repo",
    ],
    "sentence_transformers": [
        "SentenceTransformer", "SentenceTransformer.encode", "SentenceTransformer.fit",
        "CrossEncoder", "CrossEncoder.fit", "SentenceTransformerTrainer",
        "SentenceTransformerTrainingArguments",
    ],
    "evaluate": ["load", "EvaluationModule.compute"],
    "diffusers": ["DiffusionPipeline.from_pretrained", "UNet2DConditionModel",
                  "StableDiffusionPipeline.__call__"],
    "tokenizers": ["Tokenizer.train", "Tokenizer.from_pretrained", "Tokenizer.encode_batch"],
}

# class name -> "pkg.Name" for classes another package's classes may inherit from
CROSS_BASES = {
    name: f"{pkg}.{name}" for pkg, names in TARGETS.items() for name in names if "." not in name
}

# classes whose members (attributes and methods) are recorded; see ``members`` in the docstring
MEMBER_CLASSES: dict[str, list[str]] = {
    "transformers": [
        "Trainer", "Seq2SeqTrainer", "TrainingArguments", "PreTrainedModel", "TFPreTrainedModel",
        "PreTrainedTokenizerBase", "PreTrainedTokenizer", "PreTrainedTokenizerFast",
        "PretrainedConfig", "PreTrainedConfig", "GenerationConfig", "BatchEncoding", "ModelOutput",
        "Pipeline", "TrainerCallback", "TrainerState", "TrainerControl", "EvalPrediction",
        "BitsAndBytesConfig", "ProcessorMixin",
        "PushToHubMixin",  # a base of peft's PeftConfig and PeftModel
        # the configs of the models most fine-tuned: "'LlamaConfig' object has no attribute
        # 'rope_theta'" is a field another release added or moved
        "LlamaConfig", "MistralConfig", "MixtralConfig", "Qwen2Config", "Qwen3Config",
        "Qwen2VLConfig", "GemmaConfig", "Gemma2Config", "Gemma3Config", "Gemma3TextConfig",
        "PhiConfig", "Phi3Config", "GPT2Config", "GPTNeoXConfig", "FalconConfig", "OPTConfig",
        "BloomConfig", "BertConfig", "RobertaConfig", "DistilBertConfig", "DebertaV2Config",
        "T5Config", "BartConfig", "WhisperConfig", "ViTConfig", "CLIPConfig", "CLIPTextConfig",
        "LlavaConfig",
    ],
    "peft": ["PeftModel", "PeftModelForCausalLM", "LoraConfig", "PeftConfig", "LoraModel"],
    "trl": ["SFTTrainer", "DPOTrainer", "GRPOTrainer", "RewardTrainer", "SFTConfig", "DPOConfig",
            "GRPOConfig"],
    "datasets": ["Dataset", "DatasetDict", "IterableDataset", "Features", "DatasetInfo"],
    "accelerate": ["Accelerator", "PartialState"],
    "huggingface_hub": ["HfApi", "ModelInfo"],
    "sentence_transformers": ["SentenceTransformer", "CrossEncoder"],
    "evaluate": ["EvaluationModule"],
    "tokenizers": ["Tokenizer", "Encoding"],
}
# one class under two names: each key holds the history of whichever name a release defines
MEMBER_RENAMES = {"transformers.PretrainedConfig": "transformers.PreTrainedConfig",
                  "transformers.PreTrainedConfig": "transformers.PretrainedConfig"}
# always "open" (no attribute is ever said to be missing): ModelOutput's instances are always of a
# subclass whose fields (loss, logits, ...) it does not know
MEMBER_OPEN_BY_DESIGN = {"transformers.ModelOutput": "subclass fields"}
# bases that need no resolving, and the public members of the standard-library ones
SKIP_BASES = {"", "object", "Generic", "ABC", "Protocol"}
BUILTIN_MEMBERS: dict[str, list[str]] = {
    "dict": dir(dict), "OrderedDict": dir(dict) + ["move_to_end", "popitem"],
    "UserDict": dir(dict) + ["data"], "NamedTuple": dir(tuple) + ["_asdict", "_fields", "_replace",
                                                                   "_field_defaults", "_make"],
}
ALIAS_RE = r"^{}\s*=\s*([A-Za-z_]\w*)\s*$"

MODEL_FILE = re.compile(
    r"/models/(?:deprecated/)?[^/]+/(?:modeling|configuration|tokenization|processing|"
    r"image_processing|feature_extraction|video_processing)_[^/]*\.py$"
)
DEF_RE = re.compile(r"^(class|def|async def)\s+([A-Za-z_]\w*)", re.MULTILINE)
ALL_RE = re.compile(r"^__all__\s*=\s*(\[.*?\]|\(.*?\))", re.MULTILINE | re.DOTALL)
STABLE = re.compile(r"^\d+(\.\d+)*$")
AVOID = ("/experimental/", "/deprecated/", "/legacy", "/tests/", "/commands/", "/cli/", "_tf_",
         "modeling_tf", "modeling_flax", "/contrib/")
UNWRAP = {"dataclass", "dataclasses"}


def vkey(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def pick_releases(pip_name: str, start: str) -> list[list[str]]:
    """Per minor release >= ``start`` (stable releases only), its patches newest first: the first
    one that has a wheel is scanned."""
    out = subprocess.run([*PIP, "index", "versions", pip_name], capture_output=True, text=True,
                         check=True).stdout
    line = next(line for line in out.splitlines() if line.startswith("Available versions:"))
    versions = [v.strip() for v in line.split(":", 1)[1].split(",")]
    minors: dict[tuple[int, ...], list[str]] = {}
    for v in versions:
        if STABLE.match(v) and vkey(v)[:2] >= vkey(start)[:2]:
            minors.setdefault(vkey(v)[:2], []).append(v)
    return [sorted(minors[k], key=vkey, reverse=True) for k in sorted(minors)]

# ---------------------------------------------------------------------------- reading one wheel


class Release:
    """The Python sources of one wheel of package ``pkg``, with a lazy ``ast`` cache."""

    def __init__(self, pkg: str, files: dict[str, str]):
        self.pkg = pkg
        self.files = files
        self._trees: dict[str, ast.Module | None] = {}
        self.classes: dict[str, list[str]] = {}
        self.funcs: dict[str, list[str]] = {}
        for path, text in files.items():
            if "/dummy_" in path or "/utils/dummy" in path:
                continue
            for kind, name in DEF_RE.findall(text):
                (self.classes if kind == "class" else self.funcs).setdefault(name, []).append(path)
        self.init_map: dict[str, str] = {}  # exported name -> module path prefix ("trl/trainer")
        self.where: dict[int, str] = {}  # id(definition node) -> its file

    def import_aliases(self, path: str | None) -> dict[str, str]:
        """``from x import Y as Z`` in file ``path``: {"Z": "Y"}."""
        tree = self.tree(path) if path else None
        return {a.asname: a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for a in node.names if a.asname} if tree else {}

    def base_names(self, node: ast.ClassDef) -> list[str]:
        aliases = self.import_aliases(self.where.get(id(node)))
        return [aliases.get(n, n) for n in map(_name_of, node.bases)]

    def tree(self, path: str) -> ast.Module | None:
        if path not in self._trees:
            try:
                self._trees[path] = ast.parse(self.files[path])
            except (SyntaxError, ValueError):
                self._trees[path] = None
        return self._trees[path]

    def module_file(self, dotted_rel: str) -> str | None:
        base = f"{self.pkg}/{dotted_rel.replace('.', '/')}" if dotted_rel else self.pkg
        for cand in (base + ".py", base + "/__init__.py"):
            if cand in self.files:
                return cand
        return None


def strings_in(node: ast.AST) -> list[str]:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    return []


def public_module_names(tree: ast.Module) -> list[str]:
    """``__all__`` if the module has one, else its public module-level names."""
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return strings_in(node.value)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names += [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
    return [n for n in names if not n.startswith("_")]


def _defined_at_top(stmts: list[ast.stmt], out: set[str], pkg: str) -> None:
    """Names a module binds at its top level, in ``if`` / ``try`` / ``with`` blocks too; of its
    imports those from its own package ``pkg``, never ``Optional`` or ``nn``."""
    for node in stmts:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
        elif isinstance(node, ast.ImportFrom) and (
                node.level or (node.module or "").split(".")[0] == pkg):
            out.update(a.asname or a.name for a in node.names if a.name != "*")
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                _defined_at_top(getattr(node, block, []), out, pkg)
            for handler in getattr(node, "handlers", []):
                _defined_at_top(handler.body, out, pkg)


def module_names(rel: Release) -> dict[str, list[str]]:
    """The public names each plain module binds (``from pkg.mod import name``), what it imports
    from its own package included (a name moved elsewhere stays importable where it was);
    package ``__init__`` files that export lazily (``_LazyModule``) are left out."""
    out: dict[str, list[str]] = {}
    for path, text in rel.files.items():
        parts = path[:-3].split("/")
        init = parts[-1] == "__init__"
        if init:
            if "_LazyModule" in text or "_import_structure" in text:
                continue
            parts = parts[:-1]
        if not all(p.isidentifier() for p in parts) or len(parts) < 2:
            continue
        tree = rel.tree(path)
        if tree is None:
            continue
        names: set[str] = set()
        _defined_at_top(tree.body, names, rel.pkg)
        out[".".join(parts)] = sorted(n for n in names if not n.startswith("_"))
    return out


def read_init(rel: Release) -> set[str]:
    """Names importable from the package root, read statically from its ``__init__.py``."""
    pkg = rel.pkg
    init = f"{pkg}/__init__.py"
    tree = rel.tree(init) if init in rel.files else None
    names: set[str] = set()
    if tree is None:
        return names

    def mapped(name: str, module: str) -> None:
        if name.isidentifier() and not name.startswith("_"):
            names.add(name)
            if module:
                rel.init_map.setdefault(name, f"{pkg}/{module.replace('.', '/')}")

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level == 0:
                if not (mod == pkg or mod.startswith(pkg + ".")):
                    continue
                mod = mod[len(pkg) + 1:]
            elif node.level > 1:
                continue
            for alias in node.names:
                if alias.name == "*":
                    target = rel.module_file(mod)
                    sub = rel.tree(target) if target else None
                    for n in public_module_names(sub) if sub else []:
                        mapped(n, mod)
                else:
                    mapped(alias.asname or alias.name, mod)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            if value is None:
                continue
            for t in targets:
                if isinstance(t, ast.Name) and t.id == "__all__":
                    for n in strings_in(value):
                        mapped(n, "")
                elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    key = t.slice.value if isinstance(t.slice, ast.Constant) else ""
                    for n in strings_in(value):
                        mapped(n, key if isinstance(key, str) else "")
            if isinstance(value, ast.Dict):
                for k, v in zip(value.keys, value.values):
                    key = k.value if isinstance(k, ast.Constant) else ""
                    key = key if isinstance(key, str) else ""
                    if isinstance(v, (ast.List, ast.Tuple)):
                        for n in strings_in(v):
                            mapped(n, key)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr not in ("extend", "append", "add", "update"):
                continue
            owner = node.func.value
            if isinstance(owner, ast.Subscript) and isinstance(owner.value, ast.Name):
                key = owner.slice.value if isinstance(owner.slice, ast.Constant) else ""
                for arg in node.args:
                    for n in strings_in(arg):
                        mapped(n, key if isinstance(key, str) else "")
            elif isinstance(owner, ast.Name) and owner.id == "__all__":
                for arg in node.args:
                    for n in strings_in(arg):
                        mapped(n, "")
    return names


def dynamic_model_exports(rel: Release) -> set[str]:
    """transformers' ``define_import_structure`` era: exports of the model files (see docstring)."""
    pkg = rel.pkg
    roots = [f"{pkg}/__init__.py", f"{pkg}/models/__init__.py"]
    if not any("define_import_structure" in rel.files.get(p, "") for p in roots):
        return set()
    names: set[str] = set()
    for path, text in rel.files.items():
        base = path.rsplit("/", 1)[-1]
        if not path.startswith(f"{pkg}/models/") or base.startswith(("modular_", "convert_")):
            continue
        found = ALL_RE.search(text)
        if found:
            try:
                exported = ast.literal_eval(found.group(1))
                names.update(n for n in exported if isinstance(n, str))
                continue
            except (ValueError, SyntaxError):
                pass
        if MODEL_FILE.search(path):
            names.update(n for kind, n in DEF_RE.findall(text) if not n.startswith("_"))
    return {n for n in names if n.isidentifier() and not n.startswith("_")}


def modules_of(rel: Release) -> set[str]:
    mods: set[str] = set()
    for path in rel.files:
        parts = path[:-3].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not all(p.isidentifier() for p in parts):
            continue
        for i in range(1, len(parts) + 1):
            mods.add(".".join(parts[:i]))
    # transformers 5.x serves deprecated module paths through a meta-path alias finder
    init = f"{rel.pkg}/__init__.py"
    tree = rel.tree(init) if init in rel.files else None
    for node in ast.walk(tree) if tree else []:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
                and any(isinstance(t, ast.Name) and "ALIAS" in t.id for t in node.targets)):
            for key in node.value.keys:
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    mods.add(f"{rel.pkg}.{key.value}")
    if "_LEGACY_FAST_IMAGE_PROCESSOR_MODULE" in rel.files.get(init, ""):
        fast = re.compile(rf"^{rel.pkg}\.models\.\w+\.image_processing_(?!pil_)\w+$")
        mods |= {m + "_fast" for m in mods if fast.match(m) and not m.endswith("_fast")}
    return mods


# ---------------------------------------------------------------------------- keyword arguments


def _name_of(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Subscript):  # Generic[T]
        return _name_of(expr.value)
    if isinstance(expr, ast.Call):
        return _name_of(expr.func)
    return ""


def _deco_names(node: ast.AST) -> set[str]:
    return {_name_of(d) for d in getattr(node, "decorator_list", [])}


def _top_def(tree: ast.Module, name: str, cls: bool) -> ast.AST | None:
    kinds = (ast.ClassDef,) if cls else (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in tree.body:
        if isinstance(node, kinds) and node.name == name:
            return node
    for node in tree.body:  # defined under a module-level if/try
        if isinstance(node, (ast.If, ast.Try)):
            for sub in ast.walk(node):
                if isinstance(sub, kinds) and sub.name == name:
                    return sub
    return None


def find_def(rel: Release, name: str, cls: bool, exclude: ast.AST | None = None) -> ast.AST | None:
    cands = (rel.classes if cls else rel.funcs).get(name, [])
    prefix = rel.init_map.get(name, "")

    def prio(path: str) -> tuple:
        in_map = bool(prefix) and (path == prefix + ".py" or path.startswith(prefix + "/"))
        return (not in_map, any(a in path for a in AVOID), len(path), path)

    for path in sorted(cands, key=prio):
        tree = rel.tree(path)
        node = _top_def(tree, name, cls) if tree else None
        if node is not None and node is not exclude:  # a shim subclassing its namesake
            rel.where[id(node)] = path
            return node
    return None


def _varkw_keys(fn: ast.AST, varkw: str) -> set[str]:
    keys: set[str] = set()
    for node in ast.walk(fn):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("pop", "get", "setdefault")
                and isinstance(node.func.value, ast.Name) and node.func.value.id == varkw
                and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)):
            keys.add(node.args[0].value)
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
              and node.value.id == varkw and isinstance(node.slice, ast.Constant)
              and isinstance(node.slice.value, str)):
            keys.add(node.slice.value)
        elif (isinstance(node, ast.Compare) and len(node.ops) == 1
              and isinstance(node.ops[0], ast.In) and isinstance(node.left, ast.Constant)
              and isinstance(node.left.value, str) and isinstance(node.comparators[0], ast.Name)
              and node.comparators[0].id == varkw):
            keys.add(node.left.value)
    return {k for k in keys if k.isidentifier()}


def func_args(fn: ast.AST, method: bool) -> tuple[set[str], str | None]:
    """Keyword-able parameter names of a def, and the name of its ``**`` parameter if any."""
    a = fn.args
    pos = [*a.posonlyargs, *a.args]
    skip = 1 if method and pos and "staticmethod" not in _deco_names(fn) else 0
    names = [p.arg for p in pos[skip:] if p not in a.posonlyargs] + [p.arg for p in a.kwonlyargs]
    varkw = a.kwarg.arg if a.kwarg else None
    args = set(names)
    if varkw:
        args |= _varkw_keys(fn, varkw)
    return args, varkw


def _forwards_to_super(fn: ast.AST, varkw: str) -> bool:
    for node in ast.walk(fn):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "__init__"
                and any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == varkw
                        for k in node.keywords)):
            return True
    return False


class Sig:
    __slots__ = ("args", "varkw", "xbase")

    def __init__(self, args: set[str] | None = None, varkw: bool = False, xbase: str | None = None):
        self.args = args or set()
        self.varkw = varkw
        self.xbase = xbase


def _base_sig(rel: Release, base: str, depth: int, sub: ast.ClassDef) -> Sig | None:
    """The signature contribution of base class ``base`` of ``sub``: in-package, another package's,
    or None."""
    if base in ("object", "Generic", "ABC", "Protocol", "") or depth > 8:
        return None
    node = find_def(rel, base, cls=True, exclude=sub)
    if node is not None:
        return class_sig(rel, node, depth + 1)
    xkey = CROSS_BASES.get(base)
    if xkey and not xkey.startswith(rel.pkg + "."):
        return Sig(xbase=xkey)
    return None


def class_sig(rel: Release, node: ast.ClassDef, depth: int = 0) -> Sig:
    bases = rel.base_names(node)
    init = next((n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == "__init__"), None)
    if init is not None:
        args, varkw = func_args(init, method=True)
        sig = Sig(args, varkw=bool(varkw))
        if varkw and _forwards_to_super(init, varkw):
            sig.varkw = False
            for b in bases:
                bs = _base_sig(rel, b, depth, node)
                if bs is not None:
                    sig.args |= bs.args
                    sig.varkw = bs.varkw
                    sig.xbase = bs.xbase
                    break
        return sig
    if UNWRAP & _deco_names(node):
        sig = Sig()
        for b in bases:
            bs = _base_sig(rel, b, depth, node)
            if bs is not None:
                sig.args |= bs.args
                sig.varkw |= bs.varkw
                sig.xbase = sig.xbase or bs.xbase
        for stmt in node.body:
            if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                    and "ClassVar" not in ast.unparse(stmt.annotation)
                    and not stmt.target.id.startswith("_")):
                sig.args.add(stmt.target.id)
        return sig
    for b in bases:
        bs = _base_sig(rel, b, depth, node)
        if bs is not None:
            return bs
    return Sig()


def find_method(rel: Release, cls: ast.ClassDef, method: str, depth: int = 0) -> ast.AST | None:
    for n in cls.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == method:
            return n
    if depth > 8:
        return None
    for b in rel.base_names(cls):
        base = find_def(rel, b, cls=True, exclude=cls)
        if base is not None:
            found = find_method(rel, base, method, depth + 1)
            if found is not None:
                return found
    return None


def target_sig(rel: Release, target: str) -> Sig | None:
    if "." in target:
        cls_name, method = target.split(".", 1)
        cls = find_def(rel, cls_name, cls=True)
        fn = find_method(rel, cls, method) if cls is not None else None
        if fn is None:
            return None
        args, varkw = func_args(fn, method=True)
        return Sig(args, bool(varkw))
    if target[0].isupper():
        cls = find_def(rel, target, cls=True)
        return class_sig(rel, cls) if cls is not None else None
    fn = find_def(rel, target, cls=False)
    if fn is None:
        return None
    args, varkw = func_args(fn, method=False)
    return Sig(args, bool(varkw))


# ---------------------------------------------------------------------------- class members


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _file_imports(rel: Release, path: str) -> dict[str, tuple[str, str | None]]:
    """Names bound by imports in file ``path``: {local name: (module, imported name or None for a
    module)}. A relative module is resolved to its dotted path inside the package."""
    cache = rel.__dict__.setdefault("_imports", {})
    if path in cache:
        return cache[path]
    out: dict[str, tuple[str, str | None]] = {}
    tree = rel.tree(path)
    for node in ast.walk(tree) if tree else []:
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = (a.name if a.asname else
                                                         a.name.split(".")[0], None)
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                parts = path[:-3].split("/")[:-node.level]
                mod = ".".join([*parts, *([mod] if mod else [])])
            for a in node.names:
                if a.name != "*":
                    out[a.asname or a.name] = (mod, a.name)
    cache[path] = out
    return out


def _find_class_in(rel: Release, module: str, name: str) -> ast.ClassDef | None:
    """Class ``name`` defined in the package module ``module`` (dotted), if that file has it."""
    base = module.replace(".", "/")
    for cand in (base + ".py", base + "/__init__.py"):
        tree = rel.tree(cand) if cand in rel.files else None
        node = _top_def(tree, name, cls=True) if tree else None
        if node is not None:
            rel.where[id(node)] = cand
            return node
    return None


def resolve_base(rel: Release, path: str, expr: ast.expr) -> tuple[str, str, str]:
    """What base expression ``expr`` of a class in file ``path`` names: (kind, name, module) with
    kind "skip", "local" (a class of this package), "cross" (name: "pkg.Class" of a recorded class
    of another scanned package), "builtin" (a standard-library base) or "external"."""
    while isinstance(expr, ast.Subscript):  # Generic[T]
        expr = expr.value
    imports = _file_imports(rel, path)
    if isinstance(expr, ast.Name):
        name, imp = expr.id, imports.get(expr.id)
        if name in SKIP_BASES:
            return "skip", name, ""
        if imp is None:  # defined in this file (or star-imported)
            if name in BUILTIN_MEMBERS:
                return "builtin", name, ""
            return "local", name, path[:-3].replace("/", ".")
        module, name = imp[0], imp[1] or name
    elif isinstance(expr, ast.Attribute):
        dotted = []
        node: ast.expr = expr
        while isinstance(node, ast.Attribute):
            dotted.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in imports:
            return "external", expr.attr, ""
        mod, imported = imports[node.id]
        module = ".".join([mod, *([imported] if imported else []), *reversed(dotted[1:])])
        name = expr.attr
    else:
        return "external", _name_of(expr), ""
    root = module.split(".")[0]
    if name in SKIP_BASES:
        return "skip", name, module
    if root == rel.pkg:
        return "local", name, module
    if root in MEMBER_CLASSES and name in MEMBER_CLASSES[root]:
        return "cross", f"{root}.{name}", module
    if name in BUILTIN_MEMBERS and root in ("collections", "typing"):
        return "builtin", name, module
    return "external", name, module


class Members:
    __slots__ = ("names", "open", "seen", "xbases")

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.open: set[str] = set()  # why no attribute may be said missing
        self.xbases: list[str] = []  # recorded classes of other packages it inherits from
        self.seen: set[int] = set()


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _method_members(fn: ast.AST, acc: Members) -> None:
    """``self.x = ...`` (any store to ``self.x``) and ``setattr(self, "x", ...)`` in a method;
    ``setattr(self, name, ...)`` / ``self.__dict__.update(...)`` with names from the caller (a
    parameter, or a loop over one) make the class open ("setattr")."""
    if "staticmethod" in _deco_names(fn):
        return
    restores = fn.name == "__setstate__"  # unpickling sets the attributes pickling saved
    pos = [*fn.args.posonlyargs, *fn.args.args]
    if not pos:
        return
    me = pos[0].arg
    params = {p.arg for p in [*pos[1:], *fn.args.kwonlyargs]}
    params |= {p.arg for p in (fn.args.vararg, fn.args.kwarg) if p}
    tainted = set(params)
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.comprehension)) and _mentions(node.iter, params):
            tainted |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    # under `if hasattr(self, k):` / `if k in KNOWN:` (or after `assert k in KNOWN`) only known
    # attributes are set
    def known(test: ast.expr) -> bool:
        return any((isinstance(c, ast.Call) and _name_of(c.func) == "hasattr" and c.args
                    and isinstance(c.args[0], ast.Name) and c.args[0].id == me)
                   or (isinstance(c, ast.Compare) and isinstance(c.left, ast.Name)
                       and isinstance(c.ops[0], ast.In) and not _mentions(c.comparators[0], params))
                   for c in ast.walk(test))

    guarded: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.If) and known(node.test):
            guarded |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
        elif isinstance(node, ast.Assert) and known(node.test):
            tainted -= {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
    for node in ast.walk(fn):
        if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name) and node.value.id == me):
            acc.names.add(node.attr)
        elif isinstance(node, ast.Call) and not restores and id(node) not in guarded:
            f = node.func
            if (isinstance(f, ast.Name) and f.id == "setattr" and len(node.args) >= 2
                    and isinstance(node.args[0], ast.Name) and node.args[0].id == me):
                key = node.args[1]
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    acc.names.add(key.value)
                elif _mentions(key, tainted):
                    acc.open.add("setattr")
            elif (isinstance(f, ast.Attribute) and f.attr == "update"
                  and isinstance(f.value, ast.Attribute) and f.value.attr == "__dict__"
                  and isinstance(f.value.value, ast.Name) and f.value.value.id == me
                  and any(_mentions(a, params) for a in [*node.args, *node.keywords])):
                acc.open.add("setattr")


def _body_members(stmts: list[ast.stmt], acc: Members) -> None:
    for stmt in stmts:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            acc.names.add(stmt.name)
            _method_members(stmt, acc)
        elif isinstance(stmt, ast.ClassDef):
            acc.names.add(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                acc.names |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
                if isinstance(t, ast.Name) and t.id == "__slots__" and stmt.value is not None:
                    acc.names |= set(strings_in(stmt.value))
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):  # Trainer imports log_metrics & co.
            acc.names |= {a.asname or a.name.split(".")[0] for a in stmt.names if a.name != "*"}
        elif isinstance(stmt, ast.If):
            _body_members(stmt.body + stmt.orelse, acc)
        elif isinstance(stmt, ast.Try):
            _body_members(stmt.body + stmt.orelse + stmt.finalbody
                          + [s for h in stmt.handlers for s in h.body], acc)
        elif isinstance(stmt, ast.With):
            _body_members(stmt.body, acc)


def collect_members(rel: Release, node: ast.ClassDef, acc: Members, depth: int = 0) -> None:
    """Members of class ``node`` and of its bases in the same package (folded in), noting the
    recorded classes of other packages it inherits from and why it may be open."""
    if id(node) in acc.seen or depth > 12:
        return
    acc.seen.add(id(node))
    _body_members(node.body, acc)
    for hook in ("__getattr__", "__getattribute__"):
        if hook in acc.names:
            acc.open.add(hook)
    path = rel.where.get(id(node), "")
    for expr in node.bases:
        kind, name, module = resolve_base(rel, path, expr)
        if kind == "cross":
            if name not in acc.xbases:
                acc.xbases.append(name)
        elif kind == "builtin":
            acc.names.update(BUILTIN_MEMBERS[name])
        elif kind == "local":
            base = _find_class_in(rel, module, name) if module else None
            if base is None or base is node:
                base = find_def(rel, name, cls=True, exclude=node)
            if base is not None:
                collect_members(rel, base, acc, depth + 1)
            else:
                acc.open.add(f"base {name}")
        elif kind == "external":
            acc.open.add(f"base {name}")


def find_class_or_alias(rel: Release, name: str) -> ast.ClassDef | None:
    """Class ``name``, or the class a module-level ``name = Other`` alias points to (transformers
    5.x: ``PreTrainedTokenizer = PythonBackend``, ``PretrainedConfig = PreTrainedConfig``)."""
    node = find_def(rel, name, cls=True)
    if node is not None:
        return node
    pattern = re.compile(ALIAS_RE.format(re.escape(name)), re.MULTILINE)
    for path in sorted(rel.files, key=lambda p: (any(a in p for a in AVOID), len(p), p)):
        if "/dummy_" in path or "/utils/dummy" in path:
            continue
        found = pattern.search(rel.files[path])
        if found and found.group(1) != name:
            tree = rel.tree(path)
            node = _top_def(tree, found.group(1), cls=True) if tree else None
            if node is None:
                node = find_def(rel, found.group(1), cls=True)
            if node is not None:
                rel.where.setdefault(id(node), path)
                return node
    return None


def scan_members(rel: Release) -> dict[str, dict]:
    """{"pkg.Class": {"names": [...], "open": [...], "xbases": [...]}} for this release."""
    out: dict[str, dict] = {}
    for name in MEMBER_CLASSES.get(rel.pkg, []):
        node = find_class_or_alias(rel, name)
        if node is None:
            continue
        acc = Members()
        collect_members(rel, node, acc)
        key = f"{rel.pkg}.{name}"
        if key in MEMBER_OPEN_BY_DESIGN:
            acc.open.add(MEMBER_OPEN_BY_DESIGN[key])
        out[key] = {"names": sorted(n for n in acc.names if not _dunder(n)),
                    "open": sorted(acc.open), "xbases": acc.xbases}
    for key, other in MEMBER_RENAMES.items():
        if key.startswith(rel.pkg + ".") and key not in out and other in out:
            out[key] = out[other]
    return out


# ---------------------------------------------------------------------------- one release


# the dependencies whose required ranges are recorded (Requires-Dist without an extra)
DEPENDENCIES = ("transformers", "peft", "trl", "datasets", "accelerate", "huggingface-hub",
                "tokenizers", "torch", "safetensors")


def requirements(metadata: str) -> dict[str, str]:
    """{dependency: specifier} of a wheel's METADATA, for DEPENDENCIES, extras left out."""
    out: dict[str, str] = {}
    for line in metadata.splitlines():
        m = re.match(r"Requires-Dist:\s*([A-Za-z0-9_.-]+)\s*(?:\[[^\]]*\])?\s*\(?([^;)]*)\)?\s*(;.*)?$",
                     line)
        if not m or (m.group(3) and "extra" in m.group(3)):
            continue
        name = re.sub(r"[-_.]+", "-", m.group(1)).lower()
        if name in DEPENDENCIES and m.group(2).strip():     # several lines for one: all hold
            spec = m.group(2).replace(" ", "")
            out[name] = f"{out[name]},{spec}" if name in out else spec
    return out


def scan_wheel(pkg: str, wheel: Path) -> dict:
    files: dict[str, str] = {}
    requires: dict[str, str] = {}
    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            if info.filename.startswith(pkg + "/") and info.filename.endswith(
                    (".py", ".pyi") if pkg in STUBS else ".py"):
                files[info.filename] = zf.read(info).decode("utf-8", errors="replace")
            elif info.filename.endswith(".dist-info/METADATA"):
                requires = requirements(zf.read(info).decode("utf-8", errors="replace"))
    rel = Release(pkg, files)
    top = read_init(rel) | dynamic_model_exports(rel)
    kwargs: dict[str, tuple[list[str], bool, str | None]] = {}
    for target in TARGETS[pkg]:
        sig = target_sig(rel, target)
        if sig is not None:
            kwargs[f"{pkg}.{target}"] = (sorted(sig.args), sig.varkw, sig.xbase)
    return {"top": sorted(top), "modules": sorted(modules_of(rel)), "kwargs": kwargs,
            "names": module_names(rel),
            "members": scan_members(rel), "files": len(files), "requires": requires}


def scan_release(pkg: str, pip_name: str, candidates: list[str]) -> dict:
    """Download, scan and delete the wheel of the first of ``candidates`` that has one."""
    errors = []
    for version in candidates:
        tmp = Path(tempfile.mkdtemp(prefix=f"apihist-{pkg}-"))
        try:
            proc = subprocess.run(
                [*PIP, "download", "--no-deps", "--no-cache-dir", "--only-binary=:all:",
                 "--ignore-requires-python", "-q", "-d", str(tmp), f"{pip_name}=={version}"],
                capture_output=True, text=True)
            wheels = list(tmp.glob("*.whl"))
            if wheels:
                return {"version": version, **scan_wheel(pkg, wheels[0])}
            err = [ln for ln in proc.stderr.splitlines() if "is ignored" not in ln]
            errors.append(f"{version}: {(' '.join(err) or 'no wheel')[-120:]}")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return {"version": candidates[0], "error": "; ".join(errors)}

# ---------------------------------------------------------------------------- aggregation


def _seen(table: dict, key: str, i: int) -> None:
    table.setdefault(key, set()).add(i)


def _finish(table: dict, gaps: dict) -> dict:
    """{key: indices} -> {key: [first, last]}; releases missing in between go to ``gaps``."""
    out = {}
    for key, indices in table.items():
        out[key] = [min(indices), max(indices)]
        holes = [i for i in range(min(indices), max(indices)) if i not in indices]
        if holes:
            gaps[key] = _runs(holes)
    return out


def changed_names(per_release: list[dict[str, list[str]]]) -> dict[str, dict[str, list[int]]]:
    """{module: {name: [first, last]}} for the names a module's file gained or lost while it
    existed as a file (a name present in every release that had the file is left out: where the
    file went, a module path served by an alias, the name's fate is not known)."""
    files: dict = {}
    names: dict = {}
    for i, mods in enumerate(per_release):
        for mod, found in mods.items():
            _seen(files, mod, i)
            for name in found:
                _seen(names.setdefault(mod, {}), name, i)
    out: dict[str, dict[str, list[int]]] = {}
    for mod, table in names.items():
        lo, hi = min(files[mod]), max(files[mod])
        for name, indices in table.items():
            first, last = min(indices), max(indices)
            if first > lo or last < hi:
                out.setdefault(mod, {})[name] = [first, last]
    return out


def _runs(indices: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for i in sorted(indices):
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--packages", nargs="*", default=list(PACKAGES))
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--merge", action="store_true",
                    help="keep the other packages already in --out")
    opts = ap.parse_args()

    t0 = time.time()
    data: dict = {k: {} for k in ("releases", "top", "modules", "names", "kwargs", "varkw",
                                  "bases", "callables", "top_gaps", "module_gaps", "kwarg_gaps",
                                  "classes", "members", "member_gaps", "member_bases",
                                  "member_open", "requires")}
    if opts.merge and opts.out.exists():
        old = json.loads(opts.out.read_text())
        for section, table in old.items():
            for key, value in table.items():
                pkg = key.split(".")[0]
                if pkg not in opts.packages:
                    data[section][key] = value

    jobs = []
    for pkg in opts.packages:
        pip_name, start = PACKAGES[pkg]
        minors = pick_releases(pip_name, start)
        print(f"{pkg}: {len(minors)} minor releases {minors[0][0]} .. {minors[-1][0]}", flush=True)
        jobs += [(pkg, pip_name, patches) for patches in minors]

    results: dict[tuple[str, str], dict] = {}
    with ProcessPoolExecutor(max_workers=opts.jobs) as pool:
        futures = {pool.submit(scan_release, *job): job for job in jobs}
        for n, fut in enumerate(as_completed(futures), 1):
            pkg = futures[fut][0]
            res = fut.result()
            version = res["version"]
            results[(pkg, version)] = res
            if "error" in res:
                print(f"[{n}/{len(jobs)}] {pkg} {version}: SKIPPED ({res['error']})", flush=True)
            else:
                print(f"[{n}/{len(jobs)}] {pkg} {version}: {res['files']} files, "
                      f"{len(res['top'])} top names, {len(res['kwargs'])} callables, "
                      f"{len(res['members'])} classes "
                      f"({time.time() - t0:.0f}s)", flush=True)

    for pkg in opts.packages:
        scanned = sorted((v for p, v in results if p == pkg and "error" not in results[(p, v)]),
                         key=vkey)
        data["releases"][pkg] = scanned
        data["requires"][pkg] = {v: results[(pkg, v)]["requires"] for v in scanned
                                 if results[(pkg, v)]["requires"]}
        top: dict = {}
        mods: dict = {}
        calls: dict = {}
        kwargs: dict = {}
        varkw_at: dict[str, list[int]] = {}
        for i, version in enumerate(scanned):
            res = results[(pkg, version)]
            for name in res["top"]:
                _seen(top, name, i)
            for mod in res["modules"]:
                _seen(mods, mod, i)
            for key, (args, varkw, xbase) in res["kwargs"].items():
                _seen(calls, key, i)
                table = kwargs.setdefault(key, {})
                for arg in args:
                    _seen(table, arg, i)
                if varkw:
                    varkw_at.setdefault(key, []).append(i)
                if xbase:
                    data["bases"][key] = xbase  # newest release wins
        data["top"][pkg] = _finish(top, data["top_gaps"].setdefault(pkg, {}))
        data["names"][pkg] = changed_names(
            [results[(pkg, version)]["names"] for version in scanned])
        data["modules"][pkg] = _finish(mods, data["module_gaps"].setdefault(pkg, {}))
        data["callables"].update(_finish(calls, {}))
        for key, table in kwargs.items():
            data["kwargs"][key] = _finish(table, data["kwarg_gaps"].setdefault(key, {}))
            if not data["kwarg_gaps"][key]:
                del data["kwarg_gaps"][key]
        for key, indices in varkw_at.items():
            data["varkw"][key] = _runs(indices)

        classes: dict = {}
        members: dict = {}
        open_at: dict = {}
        for i, version in enumerate(scanned):
            for key, rec in results[(pkg, version)]["members"].items():
                _seen(classes, key, i)
                table = members.setdefault(key, {})
                for name in rec["names"]:
                    _seen(table, name, i)
                for reason in rec["open"]:
                    _seen(open_at.setdefault(key, {}), reason, i)
        for i, version in reversed(list(enumerate(scanned))):  # newest release's bases first
            for key, rec in results[(pkg, version)]["members"].items():
                bases = data["member_bases"].setdefault(key, [])
                bases += [b for b in rec["xbases"] if b not in bases]
        data["member_bases"] = {k: v for k, v in data["member_bases"].items() if v}
        data["classes"].update(_finish(classes, {}))
        for key, table in members.items():
            gaps = data["member_gaps"].setdefault(key, {})
            data["members"][key] = _finish(table, gaps)
            if not gaps:
                del data["member_gaps"][key]
        for key, reasons in open_at.items():
            data["member_open"][key] = {r: _runs(sorted(ix)) for r, ix in reasons.items()}

    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    opts.out.write_text(text + "\n")
    print(f"wrote {opts.out} ({len(text) / 1e6:.2f} MB) in {time.time() - t0:.0f}s")


if __name__ == "__main__":
    sys.exit(main())
