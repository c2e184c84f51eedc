"""Stack frames of a pasted traceback and whose code each one is (yours, a library's, Python's)."""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any

from wizard.triage.normalize import to_int

LIBRARY_PACKAGES = ("transformers", "datasets", "torch", "tensorflow", "keras", "tf_keras",
                    "accelerate", "tokenizers", "huggingface_hub")

# an installed egg ("seq2seq-0.1.4-py3.6.egg/seq2seq/...") holds the package one level down
_SITE = re.compile(r"/(?:site|dist)-packages/(?:[^/]+\.egg/)?(?P<pkg>[^/]+)", re.I)
_SRC_LAYOUT = re.compile(
    r"(?:^|/)src/(?P<pkg>transformers|datasets|accelerate|huggingface_hub|tokenizers|tf_keras)/")
# a repository's folder holding the package of its name, maybe under src/ (peft/src/peft/)
_CHECKOUT = re.compile(r"(?=(?:^|/)(?P<repo>[\w.-]+)/(?:src/)?(?P<pkg>\w+)/)")
_REPO_LAYOUT = re.compile(
    r"(?:^|/)(?:(?P<torch>torch)/(?:nn|autograd|utils|cuda|optim|distributed|amp|fx|jit|_dynamo|"
    r"_inductor|_C|_refs|_prims|_decomp|_subclasses|_library|multiprocessing|_tensor\.py|"
    r"functional\.py|_ops\.py|serialization\.py|overrides\.py|_compile\.py|_utils\w*\.py|"
    r"__init__\.py)"
    r"|(?P<tensorflow>tensorflow)/(?:python|core|compiler|dtensor|lite)/"
    r"|(?P<tf_keras>tf_keras)/(?:src|api)/"
    r"|(?P<keras>keras)/(?:src|engine|layers|optimizers|saving|trainers|models|metrics)/)")
_LIBDIR = re.compile(r"(?:^|/)lib(?:64)?/(?:python\d+(?:\.\d+)*/)?(?P<mod>[A-Za-z_]\w*)(?:\.py|/)",
                     re.I)
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"runpy", "threading", "asyncio"}
# packages whose source a paste names by a relative path ("transformers/modeling_tf_bert.py":
# a cut frame, or a path printed relative to site-packages)
# ("datasets/" is as often a project's own folder of data loaders: DETR's datasets/coco.py)
_INSTALLED = frozenset(LIBRARY_PACKAGES) - {"datasets"} | {
    "peft", "trl", "diffusers", "sentence_transformers", "bitsandbytes", "deepspeed", "timm",
    "evaluate", "safetensors", "optimum", "vllm", "numpy", "pandas", "sklearn", "scipy",
    "lightning", "pytorch_lightning", "torchvision", "torchaudio", "jax", "flax"}


# a path whose start the reporter elided or redacted: ".../trl/trainer/x.py", "<env>/peft/x.py"
_ELIDED = re.compile(r"^(?:\.{3}|\u2026|\[\.\.\.\]|<[^<>/]{1,40}>)/+(?P<pkg>\w+)/")


def classify_path(path: str) -> tuple[str, str | None]:
    """("user" | "library" | "other", package) for a frame's file name.

    Library code: anything under site-packages/dist-packages, or the source tree of a known
    library (transformers, datasets, torch, tensorflow, keras, tf_keras, accelerate, tokenizers,
    huggingface_hub). Other: the standard library, frozen and generated code. The rest is user code.
    """
    p = (path or "").strip().replace("\\", "/")
    if not p:
        return "other", None
    m = _ELIDED.match(p)
    if m and m.group("pkg") in _INSTALLED:
        return "library", m.group("pkg")      # a path the reporter shortened: .../trl/trainer/
    if p.startswith("<"):
        if p.startswith(("<frozen", "<string>", "<__array_function__")):
            return "other", None
        return "user", None                   # <stdin>, <ipython-input-...>
    if p.startswith(("Cell In", "Input In")):
        return "user", None
    if "__autograph_generated_file" in p:
        return "library", "tensorflow"        # TF's conversion of Keras' train_function
    if "unsloth_compiled_cache/" in p:
        return "library", "unsloth"           # trainers unsloth generates and runs
    m = re.search(r"/(?P<pkg>datasets|evaluate)_modules/", p)
    if m:
        return "library", m.group("pkg")      # a metric's or dataset's script the library fetched
    if re.search(r"/pip-(?:req-build|install|build)-\w+/", p):
        return "library", None                # a package pip is building (its setup.py)
    m = _SITE.search(p)
    if m:
        pkg = m.group("pkg")
        pkg = re.sub(r"\.py[cdw]?$", "", pkg)
        return "library", pkg
    m = _SRC_LAYOUT.search(p)
    if m:
        return "library", m.group("pkg")
    for m in _CHECKOUT.finditer(p):
        if m.group("pkg") in _INSTALLED and \
                re.sub(r"[-_.]", "", m.group("repo")).lower() == m.group("pkg").replace("_", ""):
            return "library", m.group("pkg")  # a source checkout: trl/trl/, DeepSpeed/deepspeed/
    m = _REPO_LAYOUT.search(p)
    if m:
        return "library", next(k for k, v in m.groupdict().items() if v)
    m = _LIBDIR.search(p)
    if m and m.group("mod") in _STDLIB:
        return "other", None
    first = p.split("/", 1)[0]
    if "/" in p and not p.startswith(("/", "~", ".")) and ":" not in first and first in _STDLIB:
        return "other", None                  # embedded Pythons print stdlib paths relative
    if "/" in p and not p.startswith(("/", "~", ".")) and first in _INSTALLED:
        return "library", first
    return "user", None


@dataclass
class Frame:
    """One stack frame: where it is, the line of code shown, and whose code it is."""

    file: str
    line: int | None
    function: str | None
    code: str | None = None
    kind: str = "user"                # user | library | other
    package: str | None = None
    origin: str = "python"            # python | ipython | keras | tf-graph

    @property
    def is_library(self) -> bool:
        return self.kind == "library"

    @property
    def is_user(self) -> bool:
        return self.kind == "user"

    def where(self) -> str:
        line = f":{self.line}" if self.line is not None else ""
        func = f" in {self.function}" if self.function else ""
        return f"{self.file}{line}{func}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "function": self.function,
                "code": self.code, "kind": self.kind, "package": self.package,
                "origin": self.origin, "is_library": self.is_library}


# a class's attribute hooks: a config's, a module's or torch's pass-through raises for its caller
ATTRIBUTE_HOOKS = ("__getattr__", "__getattribute__", "__delattr__", "__setattr__")


def attribute_reader_frame(frames: list[Frame]) -> Frame | None:
    """The frame whose code read a missing attribute: the innermost one that is neither Python's
    own nor an attribute hook."""
    relevant = [f for f in frames if f.kind != "other"]
    while relevant and relevant[-1].function in ATTRIBUTE_HOOKS:
        relevant.pop()
    return relevant[-1] if relevant else None


def make_frame(file: str, line: str | int | None, func: str | None, origin: str) -> Frame:
    """A Frame of a header line's parts, with its kind and package from the file name."""
    kind, pkg = classify_path(file)
    return Frame(file=file.strip(), line=to_int(line), function=(func or "").strip() or None,
                 kind=kind, package=pkg, origin=origin)
