"""What a measured training step needs in its child process, whatever the framework: the
config it builds, peak memory readings, and telling an out-of-memory from other errors."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from wizard.estimate.memory import ModelGeometry

OOM_MARKERS = ("out of memory", "can't allocate memory", "cannot allocate memory",
                "defaultcpuallocator", "resourceexhausted", "oom when allocating",
                "failed to allocate memory", "std::bad_alloc",
                "memoryerror")   # a MemoryError inside a traced function: autograph's StagingError


def status_bytes(key: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def rss_peak() -> int:
    hwm = status_bytes("VmHWM")
    if hwm is not None:
        return hwm
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(r if sys.platform == "darwin" else r * 1024)


def reset_peak() -> bool:
    try:  # Linux >= 4.0: "5" resets VmHWM to the current RSS
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def tune_malloc() -> None:
    """Make freed tensors leave RSS at once (mmap above 64 KiB, one arena), so RSS tracks memory."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 64 * 1024)   # M_MMAP_THRESHOLD
        libc.mallopt(-1, 64 * 1024)   # M_TRIM_THRESHOLD
        libc.mallopt(-8, 1)           # M_ARENA_MAX
    except Exception:
        pass


def is_oom(exc: BaseException) -> bool:
    """An out-of-memory: MemoryError, torch's OutOfMemoryError, TensorFlow's
    tf.errors.ResourceExhaustedError (or a subclass), or their messages."""
    if isinstance(exc, MemoryError):
        return True
    if any(c.__name__ in ("OutOfMemoryError", "ResourceExhaustedError")
           for c in type(exc).__mro__):
        return True
    return any(m in str(exc).lower() for m in OOM_MARKERS)


HEAD_WORDS = {"cls": "SequenceClassification", "token": "TokenClassification",
               "qa": "QuestionAnswering"}


def step_config(spec: dict[str, Any]) -> tuple[Any, str]:
    """The model's config as a step spec sets it up (num_labels, a decoder start for
    encoder-decoders), and the head the step trains."""
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(spec["model"], revision=spec.get("revision"))
    if spec.get("num_labels"):
        config.num_labels = int(spec["num_labels"])
    if getattr(config, "is_encoder_decoder", False) and \
            getattr(config, "decoder_start_token_id", None) is None:
        config.decoder_start_token_id = getattr(config, "pad_token_id", None) or 0
    return config, ModelGeometry.from_config(config).head_kind(spec.get("task"))
