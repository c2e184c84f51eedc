"""TensorFlow that sees no GPU: the CUDA and cuDNN each release is built against, and the releases
and CUDA a paste states.

A TensorFlow up to 2.13 loads the system's CUDA libraries by their versioned names
(libcudart.so.10.1, libcublas.so.11): a CUDA 10 build needs that exact release, a CUDA 11 build
any CUDA 11 (minor-version compatibility). From 2.14 on Linux the CUDA libraries come as pip
extras (tensorflow[and-cuda]), and from 2.11 native Windows has no GPU build at all.
"""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.packages import version_lt
from wizard.triage.parse import ParsedError
from wizard.triage.versions import paste_versions

# tensorflow.org's tested build configurations: release -> (CUDA, cuDNN)
BUILT_WITH: dict[str, tuple[str, str]] = {
    "1.3": ("8.0", "6"), "1.4": ("8.0", "6"),
    **{f"1.{m}": ("9.0", "7") for m in range(5, 13)},
    "1.13": ("10.0", "7.4"), "1.14": ("10.0", "7.4"), "1.15": ("10.0", "7.4"),
    "2.0": ("10.0", "7.4"), "2.1": ("10.1", "7.6"), "2.2": ("10.1", "7.6"),
    "2.3": ("10.1", "7.6"), "2.4": ("11.0", "8.0"),
    **{f"2.{m}": ("11.2", "8.1") for m in range(5, 12)},
    "2.12": ("11.8", "8.6"), "2.13": ("11.8", "8.6"),
}

# where the GPU list comes back empty or a check says no GPU (a signature: case-insensitive)
TF_NO_GPU = (
    r"Num GPUs Available:?\s*0\b|GPU is NOT AVAILABLE|list_physical_devices\(['\"]GPU['\"]\)\)?"
    r"[^\n]{0,40}?(?:\n[^\n]{0,60})?(?:\[ ?\]|\ban empty list\b)|"
    r"is_buil[dt]_with_cuda\(\)\)?[^\n]{0,30}?\bfalse\b|"
    r"(?:^|\n)\W{0,4}\[PhysicalDevice\(name='/physical_device:CPU:0', device_type='CPU'\)\]"
    r"\W{0,4}(?:\n|$)|"
    r"\b(?:not|doesn't|does not|can't|cannot|won't) (?:detect|find|see|use|utili[sz]e|recogni[sz]e)"
    r"\w* (?:my |the |any )?GPU")

_TF_STATED = re.compile(r"(?:\btf|tensor ?flow(?:-gpu)?)(?: version)?(?:\s*\([^)\n]{0,20}\))?"
                        r"[ \t=:#]{0,3}(?:\n[ \t#]*){0,2}v?([12]\.\d+)", re.I)
_CUDA_STATED = re.compile(r"\bcuda(?:[ _-]?toolkit)?(?:/cudnn)?(?: version)?[ \t=:]{0,3}"
                          r"(?:\n\s*){0,2}v?(\d{1,2}\.\d)|Cuda compilation tools, release "
                          r"(\d{1,2}\.\d)", re.I)
# not the system's CUDA: nvidia-smi's header (the newest the driver supports), torch's own
_NOT_SYSTEM_CUDA = re.compile(r"Driver Version|NVIDIA-SMI|torch", re.I)


def _major_minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def stated_tensorflows(text: str) -> set[str]:
    """The TensorFlow releases (major.minor) a paste states: environment block, pins, prose."""
    found = {_major_minor(v) for v in _TF_STATED.findall(text[:20000])}
    versions = paste_versions(text)
    found |= {_major_minor(versions[k]) for k in ("tensorflow", "tensorflow-gpu") if k in versions}
    return {v for v in found if re.fullmatch(r"[12]\.\d+", v)}


def _newest(versions: set[str]) -> str | None:
    return max(versions, key=lambda v: tuple(map(int, v.split("."))), default=None)


def stated_cuda(text: str) -> str | None:
    """The one CUDA release a paste states (none when it states several)."""
    found = set()
    for m in _CUDA_STATED.finditer(text[:20000]):
        line = text[text.rfind("\n", 0, m.start()) + 1: text.find("\n", m.end())]
        if not _NOT_SYSTEM_CUDA.search(line):
            found.add(m.group(1) or m.group(2))
    return found.pop() if len(found) == 1 else None


def _loads(built: str, have: str) -> bool:
    """Whether libraries of CUDA `have` serve a build against CUDA `built`."""
    if int(built.split(".")[0]) >= 11:
        return built.split(".")[0] == have.split(".")[0]
    return built == have


def other_cuda(text: str) -> dict[str, str] | None:
    """The stated TensorFlow (up to 2.13) and the CUDA it is built against, when the paste
    states another CUDA that cannot serve it."""
    releases, have = stated_tensorflows(text), stated_cuda(text)
    tf = releases.pop() if len(releases) == 1 else None
    if not tf or not have or tf not in BUILT_WITH:
        return None
    cuda, cudnn = BUILT_WITH[tf]
    if _loads(cuda, have):
        return None
    return {"tf": tf, "cuda": cuda, "cudnn": cudnn, "have": have}


def on_native_windows(text: str) -> bool:
    """Whether the paste runs on Windows itself (not in WSL)."""
    return bool(re.search(r"\bWindows\b|\bwin(?:32|_amd64|10|11)\b", text, re.I)
                and not re.search(r"\bWSL", text))


def refine_windows_tf_gpu(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Only on Windows (not WSL) with a TensorFlow of 2.11 or later stated in the paste."""
    tf = _newest(stated_tensorflows(parsed.text))
    if on_native_windows(parsed.text) and tf and version_lt(tf, "2.11") is False:
        return None
    return {"reject": True}


def other_cuda_answer(found: dict[str, str]) -> dict[str, Any]:
    """The refine result for a TensorFlow that cannot load the CUDA the paste states."""
    return {"id": "env-binary-incompatible",
            "cause": f"TensorFlow {found['tf']} is built against CUDA {found['cuda']} and cuDNN "
                     f"{found['cudnn']}, and the paste states CUDA {found['have']}: TensorFlow "
                     "cannot load that CUDA's libraries, so it runs on the CPU.",
            "fix": f"# install CUDA {found['cuda']} with cuDNN {found['cudnn']}, or the "
                   f"TensorFlow release built for CUDA {found['have']}; e.g. in a conda env:\n"
                   f"conda install -c conda-forge cudatoolkit={found['cuda']} "
                   f"cudnn={found['cudnn']}\n"
                   "python -c \"import tensorflow as tf; "
                   "print(tf.config.list_physical_devices('GPU'))\""}


def refine_tf_other_cuda(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """TensorFlow sees no GPU: only when the paste states a CUDA its release cannot load (the
    Windows rule answers for 2.11 and later there)."""
    found = other_cuda(parsed.text)
    if found is None:
        return {"reject": True}
    return other_cuda_answer(found)


def refine_gpu_libraries(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """TensorFlow cannot load its GPU libraries: a stated CUDA of another release than its
    build is that mismatch, else the CUDA packages are missing."""
    found = other_cuda(parsed.text)
    return other_cuda_answer(found) if found else None


def refine_tf_cuda_extras(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """TensorFlow 2.14 or later on Linux sees no GPU (no Windows, no CUDA of another release in
    the paste): its CUDA libraries come as pip extras, which the install skipped or which the
    loader does not find."""
    tf = _newest(stated_tensorflows(parsed.text))
    if not tf or version_lt(tf, "2.14") is not False or on_native_windows(parsed.text) or \
            re.search(r"\b(?:macOS|Darwin|OS X)\b", parsed.text) or other_cuda(parsed.text):
        return {"reject": True}
    extras = re.search(r"tensorflow\[and-cuda\]", parsed.text, re.I)
    return {"cause": f"TensorFlow {tf} on Linux loads CUDA and cuDNN from the pip packages its "
                     "and-cuda extra installs (nvidia-*), not from the system CUDA. "
                     + ("They are installed here, yet the loader does not find them under "
                        "site-packages/nvidia (seen with 2.16.1): point LD_LIBRARY_PATH at them."
                        if extras else "The install skipped them (pip install tensorflow "
                        "alone is the CPU setup), so TensorFlow runs on the CPU."),
            "fix": ('pip install "tensorflow[and-cuda]"   # the CUDA libraries as pip packages\n'
                    'NVIDIA_DIR=$(dirname $(dirname $(python -c "import nvidia.cudnn; '
                    'print(nvidia.cudnn.__file__)")))\n'
                    'export LD_LIBRARY_PATH=$(echo $NVIDIA_DIR/*/lib | tr " " ":"):'
                    '$LD_LIBRARY_PATH   # if it still sees no GPU\n'
                    "python -c \"import tensorflow as tf; "
                    "print(tf.config.list_physical_devices('GPU'))\"")}
