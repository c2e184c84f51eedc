"""Where the run will happen: a short list of GPUs with their memory, and the one reader of what
users write for one ("A100 40GB", "a10g", "24", "24 GB"), with one sentence for a bad value.

The memory is the card's total as `nvidia-smi` shows it, in GiB (a T4 sold as 16 GB has 15 GiB,
an A10G 22.5); a figure the user types is taken as GiB of one card. The estimate adds the CUDA
context itself. Nothing here imports a framework.
"""
from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from wizard.errors import CaseError

# name -> memory of one card in GiB, as nvidia-smi reports its total (the common fine-tuning
# cards; the name's GB is the size it is sold as)
GPUS: dict[str, float] = {
    "T4": 15.0, "P100": 15.9, "V100-16GB": 15.8, "V100-32GB": 31.7, "L4": 22.5, "A10G": 22.5,
    "A10": 22.5, "RTX-3090": 24.0, "RTX-4090": 24.0, "RTX-5090": 31.8, "RTX-A6000": 48.0,
    "L40S": 45.0, "A100-40GB": 40.0, "A100-80GB": 80.0, "H100": 79.6, "H200": 140.4,
    "MI300X": 192.0,
}
SOLD_AS = {"T4": 16, "P100": 16, "L4": 24, "A10G": 24, "A10": 24, "RTX-3090": 24,
           "RTX-4090": 24, "RTX-5090": 32, "RTX-A6000": 48, "L40S": 48, "H100": 80, "H200": 141,
           "MI300X": 192}
# names that stand for more than one card: the sizes to choose from
AMBIGUOUS = {"A100": ("A100-40GB", "A100-80GB"), "V100": ("V100-16GB", "V100-32GB")}
_GB = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:gb|gib|g)?\s*$", re.I)


@dataclass(frozen=True)
class Gpu:
    """One card of the target: its name (None for a bare memory figure) and memory in GB."""

    name: str | None
    memory_gib: float

    @property
    def label(self) -> str:
        return self.name or f"a {self.memory_gib:g} GiB GPU"


def _key(text: str) -> str:
    text = re.sub(r"nvidia|geforce|tesla|sxm\d?|pcie|nvl|hbm\d?e?", "", text.lower())
    return re.sub(r"[^a-z0-9]", "", text)


_BY_KEY = {_key(name): name for name in GPUS}
_BY_KEY.update({_key(name.replace("RTX-", "")): name for name in GPUS if name.startswith("RTX-")})
_BY_KEY.update({_key(name.replace("GB", "")): name for name in GPUS if name.endswith("GB")})
_BY_KEY.update({_key(f"{name}{gb}GB"): name for name, gb in SOLD_AS.items()})


def known_gpus() -> str:
    """The list as one line for a prompt or a message."""
    return ", ".join(GPUS)


def read_gpu(text: str | float | int, field: str | None = None) -> Gpu:
    """A GPU name from GPUS (any spacing or case, "NVIDIA A100 80GB" too) or the memory of one
    card ("24", "24 GB", read as GiB); for anything else a CaseError in one sentence, naming the
    case field `field` when given (a case file), else quoting the answer (a form)."""
    raw = str(text).strip() if not isinstance(text, bool) else str(text)
    subject = f"`{field}: {raw[:40]}`" if field else repr(raw[:40])
    key = _key(raw)
    if key in _BY_KEY and not isinstance(text, bool):
        name = _BY_KEY[key]
        return Gpu(name, GPUS[name])
    m = _GB.match(raw)
    if m and not isinstance(text, bool):
        gib = float(m.group(1))
        if not 1 <= gib <= 1024:
            raise CaseError(f"{subject} is not the memory of a GPU; give the memory of one card "
                            "in GiB, e.g. 24.", field)
        return Gpu(None, gib)
    for short, sizes in AMBIGUOUS.items():
        if key == _key(short):
            said = f"{short} comes in {' and '.join(sizes)}; write which one, e.g. {sizes[0]}."
            raise CaseError(f"{subject} is ambiguous: {said}" if field else said, field)
    hint = difflib.get_close_matches(key, list(_BY_KEY), n=1, cutoff=0.6)
    did = f" (did you mean {_BY_KEY[hint[0]]}?)" if hint else ""
    raise CaseError(f"{subject} is not a GPU this wizard knows{did}; write one of "
                    f"{known_gpus()}, or the memory of one card in GiB (e.g. 24).", field)


def gpu_here() -> bool:
    """Whether this machine has an NVIDIA GPU, without importing a framework: the driver's
    /proc entries (Linux) or NVML; WIZARD_DEVICE=cpu or CUDA_VISIBLE_DEVICES="" says no."""
    if os.environ.get("WIZARD_DEVICE", "").lower() == "cpu" or \
            os.environ.get("CUDA_VISIBLE_DEVICES", "0").strip() in ("", "-1"):
        return False
    gpus = Path("/proc/driver/nvidia/gpus")
    try:
        if gpus.is_dir() and any(gpus.iterdir()):
            return True
    except OSError:
        pass
    try:
        import pynvml

        pynvml.nvmlInit()
        return pynvml.nvmlDeviceGetCount() > 0
    except Exception:
        return False
