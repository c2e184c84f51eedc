"""An injected library fault for the library-bug tests.

`install(folder, mode)` writes a `sitecustomize.py` into `folder`; a Python started with that
folder on PYTHONPATH (the CLI, its worker, the reproduction script) patches DistilBERT's
feed-forward layer inside transformers as soon as transformers imports it. The patched code
is compiled with the transformers module's own file name, so its frames are library frames.

Modes: "raise" (a RuntimeError once the sequence is longer than 8 tokens, so the tiny dummy
inputs transformers builds TF models with still pass) and "nan" (NaN outputs). `frameworks`
limits the fault to "pytorch", "tensorflow" or both.
"""
from __future__ import annotations

import os
from pathlib import Path

RAISE_MESSAGE = "FFN received a tensor with an invalid stride layout"

SITECUSTOMIZE = r'''
import importlib.abc
import importlib.machinery
import os
import sys

_MODE = os.environ.get("WIZARD_TEST_FAULT", "")
_WHERE = os.environ.get("WIZARD_TEST_FAULT_FRAMEWORKS", "pytorch,tensorflow").split(",")
_TARGETS = {}
if "pytorch" in _WHERE:
    _TARGETS["transformers.models.distilbert.modeling_distilbert"] = ("FFN", "forward")
if "tensorflow" in _WHERE:
    _TARGETS["transformers.models.distilbert.modeling_tf_distilbert"] = ("TFFFN", "call")

_RAISE = """
def _injected(self, input, *args, **kwargs):
    if input.shape[1] is not None and input.shape[1] > 8:
        raise RuntimeError("%s")
    return _original(self, input, *args, **kwargs)
"""
_NAN = """
def _injected(self, input, *args, **kwargs):
    return _original(self, input, *args, **kwargs) * float("nan")
"""


def _patch(module):
    cls_name, attr = _TARGETS[module.__name__]
    cls = getattr(module, cls_name)
    namespace = {"_original": getattr(cls, attr)}
    source = _RAISE if _MODE == "raise" else _NAN
    exec(compile(source, module.__file__, "exec"), namespace)
    setattr(cls, attr, namespace["_injected"])


class _Loader(importlib.abc.Loader):
    def __init__(self, inner):
        self.inner = inner

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        _patch(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name not in _TARGETS:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


if _MODE in ("raise", "nan") and _TARGETS:
    sys.meta_path.insert(0, _Finder())
''' % RAISE_MESSAGE


def install(folder: Path, mode: str, frameworks: str = "pytorch,tensorflow") -> dict[str, str]:
    """Write the sitecustomize into `folder`; returns the environment that switches it on."""
    assert mode in ("raise", "nan"), mode
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    root = Path(__file__).resolve().parents[1]
    path = os.pathsep.join([str(folder), str(root), os.environ.get("PYTHONPATH", "")])
    return {"PYTHONPATH": path.rstrip(os.pathsep), "WIZARD_TEST_FAULT": mode,
            "WIZARD_TEST_FAULT_FRAMEWORKS": frameworks}
