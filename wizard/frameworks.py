"""Which frameworks this environment can run, and the environment a child process that imports
one gets: the one place that knows TensorFlow's and PyTorch's settings."""
from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any, Mapping


FRAMEWORK_VAR = "WIZARD_FRAMEWORK"  # the framework a child process of the wizard works with


def default_demo_framework() -> str:
    """The framework the installed stack runs: TensorFlow only beside transformers 4.x."""
    if importlib.util.find_spec("tensorflow") is None:
        return "pytorch"
    try:
        major = int(importlib.metadata.version("transformers").split(".")[0])
    except Exception:
        major = 5
    return "tensorflow" if major < 5 else "pytorch"


def process_defaults() -> None:
    """What every wizard process sets for itself first (tokenizers' fork warning off)."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def package_root() -> str:
    """The folder that holds the `wizard` package (a checkout or site-packages)."""
    return str(Path(__file__).resolve().parents[1])


def framework_settings(framework: str | None, device: str = "auto") -> dict[str, str]:
    """The variables a process that imports `framework` needs, set before the import:
    transformers 4.x TF models need tf-keras; PyTorch paths must not import TensorFlow."""
    env = {"TOKENIZERS_PARALLELISM": "false", "TF_CPP_MIN_LOG_LEVEL": "3",
           "HF_DATASETS_DISABLE_PROGRESS_BARS": "1"}
    if framework == "tensorflow":
        env["TF_USE_LEGACY_KERAS"] = "1"
    elif framework == "pytorch":
        env["USE_TF"] = "0"
    if device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""
    return env


def use_framework(framework: str | None) -> None:
    """Apply `framework_settings` to this process, keeping what the user set."""
    for key, value in framework_settings(framework).items():
        os.environ.setdefault(key, value)


def child_env(framework: str | None, device: str = "auto",
              base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a child process of the wizard: the wizard importable, the framework's
    settings, and no USE_TF=0 left over from a PyTorch session for a TensorFlow child."""
    env = dict(os.environ if base is None else base)
    paths = [package_root(), *sys.path, *env.get("PYTHONPATH", "").split(os.pathsep)]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(p for p in paths if p))
    if framework == "tensorflow":
        env.pop("USE_TF", None)
    settings = framework_settings(framework, device)
    for key in ("USE_TF", "CUDA_VISIBLE_DEVICES"):
        if key in settings:
            env[key] = settings.pop(key)
    for key, value in settings.items():
        env.setdefault(key, value)
    env[FRAMEWORK_VAR] = framework or ""
    return env


def preload(framework: str | None = None) -> None:
    """Import what a probe worker for `framework` (default: the one its parent named in
    child_env) needs first: the framework, datasets and transformers' auto classes."""
    framework = framework if framework is not None else os.environ.get(FRAMEWORK_VAR)
    if framework == "tensorflow":
        import_tensorflow()
    elif framework == "pytorch":
        import_torch()
    else:
        return
    import datasets  # noqa: F401
    import transformers

    transformers.AutoConfig, transformers.AutoTokenizer  # noqa: B018 (the lazy imports, now)


def import_tensorflow() -> Any:
    """TensorFlow, imported with the settings transformers' TF classes need."""
    use_framework("tensorflow")
    import tensorflow as tf

    return tf


def import_torch() -> Any:
    """PyTorch; transformers 4.x is kept from importing TensorFlow too, unless this process
    already uses TensorFlow."""
    if "tensorflow" not in sys.modules and "transformers" not in sys.modules:
        os.environ.setdefault("USE_TF", "0")
    import torch

    return torch
