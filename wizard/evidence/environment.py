"""Versions, platform and devices for a bug report, like `transformers env`.

Versions come from installed metadata, so nothing heavy is imported: TensorFlow and torch are
only imported (and asked about devices) when the process has already imported them or the
caller passes `probe_frameworks=True`.
"""
from __future__ import annotations

import importlib.metadata as metadata
import importlib.util
import os
import platform
import re
import sys
from pathlib import Path
from typing import Any

NOT_INSTALLED = "not installed"
NOT_PROBED = "not probed"
ON_DEVICES = "the checks' device is reported with them; `python -m wizard env --devices` lists all"
UNKNOWN = "unknown"

# label -> (distribution names to try, in order; module name for the imported-version check)
PACKAGES: dict[str, tuple[tuple[str, ...], str | None]] = {
    "hf-debug-wizard": (("hf-debug-wizard",), "wizard"),
    "transformers": (("transformers",), "transformers"),
    "huggingface_hub": (("huggingface-hub",), "huggingface_hub"),
    "datasets": (("datasets",), "datasets"),
    "tokenizers": (("tokenizers",), "tokenizers"),
    "safetensors": (("safetensors",), "safetensors"),
    "accelerate": (("accelerate",), "accelerate"),
    "torch": (("torch",), "torch"),
    "tensorflow": (("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-macos",
                    "tensorflow-intel", "intel-tensorflow", "tf-nightly", "tf-nightly-cpu"),
                   "tensorflow"),
    "keras": (("keras",), "keras"),
    "tf-keras": (("tf-keras",), "tf_keras"),
    "gradio": (("gradio",), "gradio"),
    "numpy": (("numpy",), "numpy"),
}

# Environment variables that change which framework/device/keras a run uses (never secrets).
RELEVANT_ENV_VARS = (
    "CUDA_VISIBLE_DEVICES", "USE_TF", "USE_TORCH", "TF_USE_LEGACY_KERAS", "KERAS_BACKEND",
    "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE", "PYTORCH_CUDA_ALLOC_CONF",
    "TF_FORCE_GPU_ALLOW_GROWTH", "ACCELERATE_MIXED_PRECISION",
)


def _package_version(dists: tuple[str, ...]) -> tuple[str, str | None]:
    """(version or NOT_INSTALLED, the distribution that provided it)."""
    for dist in dists:
        try:
            return metadata.version(dist), dist
        except metadata.PackageNotFoundError:
            continue
        except Exception:  # broken metadata: treat as absent rather than crash a report
            continue
    return NOT_INSTALLED, None


def _imported_version(module: str | None) -> str | None:
    """__version__ of a module the process has already imported (never imports it)."""
    mod = sys.modules.get(module) if module else None
    version = getattr(mod, "__version__", None)
    return str(version) if version else None


def _package_dir(module: str) -> Path | None:
    """Folder of a top-level package without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) if locations else None


def _read_text(path: Path | None) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path else ""
    except OSError:
        return ""


def _torch_static_build() -> dict[str, str | None]:
    """CUDA/ROCm build of the installed torch, read from torch/version.py without importing."""
    text = _read_text((_package_dir("torch") or Path("/nonexistent")) / "version.py")
    found: dict[str, str | None] = {}
    for key in ("cuda", "hip"):
        m = re.search(rf"^{key}\s*(?::[^=]*)?=\s*['\"]([^'\"]+)['\"]", text, re.M)
        found[key] = m.group(1) if m else None
    return found


def _tf_static_build() -> str | None:
    """CUDA version TensorFlow was built with (None for a CPU build), without importing it."""
    path = (_package_dir("tensorflow") or Path("/nonexistent")) / "python/platform/build_info.py"
    m = re.search(r"['\"]cuda_version['\"]\s*,\s*['\"]([^'\"]+)['\"]", _read_text(path))
    return m.group(1) if m else None


def _torch_info(version: str, probe: bool) -> dict[str, Any]:
    build = _torch_static_build() if version != NOT_INSTALLED else {"cuda": None, "hip": None}
    info: dict[str, Any] = {"version": version, "cuda_build": build["cuda"],
                            "rocm_build": build["hip"], "probed": False, "accelerator": None,
                            "cuda_available": None, "gpu_count": None, "gpus": None,
                            "mps_available": None, "error": None}
    if version == NOT_INSTALLED or not (probe or "torch" in sys.modules):
        return info
    try:
        import torch  # already imported, or the caller asked for it

        info.update(probed=True, version=str(torch.__version__),
                    cuda_build=getattr(torch.version, "cuda", None),
                    rocm_build=getattr(torch.version, "hip", None))
        cuda = torch.cuda.is_available()
        info["cuda_available"] = bool(cuda)
        info["gpu_count"] = int(torch.cuda.device_count()) if cuda else 0
        info["gpus"] = None if cuda else []
        mps = getattr(getattr(torch, "backends", None), "mps", None)
        info["mps_available"] = bool(mps.is_available()) if mps is not None else False
        # Names need CUDA initialised; only do that when it already is or probing was asked
        # for (initialising CUDA in a parent process breaks fork-started CUDA children).
        if cuda and (probe or torch.cuda.is_initialized()):
            info["gpus"] = [str(torch.cuda.get_device_name(i)) for i in range(info["gpu_count"])]
        info["accelerator"] = "CUDA" if cuda else ("MPS" if info["mps_available"] else "CPU")
    except Exception as exc:  # a broken install is evidence, not a crash
        info["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0]
    return info


def _tf_info(version: str, dist: str | None, probe: bool) -> dict[str, Any]:
    info: dict[str, Any] = {"version": version, "distribution": dist,
                            "cuda_build": _tf_static_build() if dist else None,
                            "probed": False, "gpus": None, "error": None}
    if version == NOT_INSTALLED or not (probe or "tensorflow" in sys.modules):
        return info
    try:
        import tensorflow as tf  # already imported, or the caller asked for it

        info.update(probed=True, version=str(tf.__version__))
        build = dict(tf.sysconfig.get_build_info())
        info["cuda_build"] = build.get("cuda_version") or None
        names = []
        for device in tf.config.list_physical_devices("GPU"):
            try:
                details = tf.config.experimental.get_device_details(device)
            except Exception:
                details = {}
            names.append(str(details.get("device_name") or device.name))
        info["gpus"] = names
    except Exception as exc:
        info["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0]
    return info


def _runtime() -> str:
    if "google.colab" in sys.modules or os.environ.get("COLAB_RELEASE_TAG"):
        return "Google Colab"
    if os.environ.get("KAGGLE_KERNEL_RUN_TYPE"):
        return "Kaggle"
    if os.environ.get("SPACE_ID"):
        return "Hugging Face Space"
    if "ipykernel" in sys.modules:
        return "Jupyter"
    return "script"


def environment_info(probe_frameworks: bool = False) -> dict[str, Any]:
    """Versions, platform and devices as a JSON-ready dict.

    `packages` maps each package label to its installed version or "not installed";
    `imported_versions` lists modules whose already-imported version differs from the installed
    one (a runtime not restarted after `pip install`). Device figures under `torch` and
    `tensorflow` are filled only when the framework was already imported or
    `probe_frameworks=True` (which imports it, and for torch initialises CUDA).
    """
    packages: dict[str, str] = {}
    dists: dict[str, str | None] = {}
    stale: dict[str, dict[str, str]] = {}
    for label, (names, module) in PACKAGES.items():
        version, dist = _package_version(names)
        imported = _imported_version(module)
        if label == "hf-debug-wizard" and version == NOT_INSTALLED and imported:
            version = f"{imported} (run from source)"
        elif imported and version != NOT_INSTALLED and imported != version:
            stale[label] = {"installed": version, "imported": imported}
        packages[label] = version
        dists[label] = dist
    return {
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "runtime": _runtime(),
        "packages": packages,
        "imported_versions": stale,
        "torch": _torch_info(packages["torch"], probe_frameworks),
        "tensorflow": _tf_info(packages["tensorflow"], dists["tensorflow"], probe_frameworks),
        "env_vars": {k: os.environ[k] for k in RELEVANT_ENV_VARS if k in os.environ},
    }


def _torch_lines(t: dict[str, Any]) -> list[str]:
    if t["version"] in (NOT_INSTALLED, UNKNOWN):
        return [f"- PyTorch version (CUDA build): {t['version']}", "- PyTorch devices: NA"]
    build = (f"CUDA {t['cuda_build']}" if t["cuda_build"]
             else f"ROCm {t['rocm_build']}" if t["rocm_build"] else "CPU-only build")
    lines = [f"- PyTorch version (CUDA build): {t['version']} ({build})"]
    if t["error"]:
        lines.append(f"- PyTorch devices: import failed: {t['error']}")
    elif not t["probed"]:
        lines.append(f"- PyTorch devices: {NOT_PROBED} here ({ON_DEVICES})")
    elif t["cuda_available"]:
        names = ", ".join(t["gpus"]) if t["gpus"] else "names not probed"
        lines.append(f"- PyTorch devices: CUDA, {t['gpu_count']} GPU(s): {names}")
    else:
        lines.append(f"- PyTorch devices: {t['accelerator']} (no CUDA GPU)")
    return lines


def _tf_lines(t: dict[str, Any]) -> list[str]:
    if t["version"] in (NOT_INSTALLED, UNKNOWN):
        return [f"- TensorFlow version (CUDA build): {t['version']}", "- TensorFlow GPUs: NA"]
    dist = f" [{t['distribution']}]" if t["distribution"] not in (None, "tensorflow") else ""
    build = f"CUDA {t['cuda_build']}" if t["cuda_build"] else "CPU-only build"
    lines = [f"- TensorFlow version (CUDA build): {t['version']}{dist} ({build})"]
    if t["error"]:
        lines.append(f"- TensorFlow GPUs: import failed: {t['error']}")
    elif not t["probed"]:
        lines.append(f"- TensorFlow GPUs: {NOT_PROBED} here ({ON_DEVICES})")
    else:
        gpus = t["gpus"] or []
        lines.append(f"- TensorFlow GPUs: {len(gpus)}" + (f" ({', '.join(gpus)})" if gpus else ""))
    return lines


def _complete(info: dict[str, Any]) -> dict[str, Any]:
    """`info` with every key the block reads (an older or partial dict must still render)."""
    unknown = UNKNOWN
    out = {"python": unknown, "python_implementation": "CPython", "platform": unknown,
           "runtime": unknown, "imported_versions": {}, "env_vars": {}, **info}
    out["packages"] = {label: unknown for label in PACKAGES} | dict(info.get("packages") or {})
    for fw, fields in (("torch", ("cuda_build", "rocm_build", "accelerator", "cuda_available",
                                  "gpu_count", "gpus", "error")),
                       ("tensorflow", ("distribution", "cuda_build", "gpus", "error"))):
        given = dict(info.get(fw) or {})
        out[fw] = {"version": out["packages"][fw], "probed": False,
                   **{f: None for f in fields}, **given}
    return out


def environment_block(info: dict[str, Any] | None = None) -> str:
    """The environment as a Markdown list for the "System Info" part of a bug report.

    `info` is an `environment_info()` dict (e.g. read back from a result JSON); keys it lacks
    show as "unknown". Without it, the current environment is read.
    """
    info = _complete(info) if info else environment_info()
    pkgs = info["packages"]
    lines = [
        f"- `hf-debug-wizard` version: {pkgs['hf-debug-wizard']}",
        f"- Platform: {info['platform']}",
        f"- Python version: {info['python']}"
        + ("" if info.get("python_implementation", "CPython") == "CPython"
           else f" ({info['python_implementation']})"),
        f"- Runtime: {info.get('runtime', 'script')}",
    ]
    for label in ("transformers", "huggingface_hub", "datasets", "tokenizers", "safetensors",
                  "accelerate"):
        lines.append(f"- `{label}` version: {pkgs[label]}")
    lines += _torch_lines(info["torch"])
    lines += _tf_lines(info["tensorflow"])
    for label in ("keras", "tf-keras", "gradio", "numpy"):
        lines.append(f"- `{label}` version: {pkgs[label]}")
    for label, v in info.get("imported_versions", {}).items():
        lines.append(f"- Note: `{label}` {v['imported']} is imported but {v['installed']} is "
                     "installed (restart the runtime)")
    env = info.get("env_vars", {})
    lines.append("- Environment variables: "
                 + (", ".join(f"{k}={v}" for k, v in env.items()) if env else "none of note set"))
    return "\n".join(lines) + "\n"
