"""Error text for people and for comparison: the core of a Keras-wrapped message, a one-line
description of a traceback, and its signature (exception name + message with the parts that
change between runs replaced)."""
from __future__ import annotations

import re

from wizard.triage.parse import parse_traceback

_HEX = re.compile(r"0x[0-9a-fA-F]+")
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.+~-]+){2,}")
_NUM = re.compile(r"(?<![A-Za-z_])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
_KERAS_WRAP = re.compile(r"Exception encountered when calling (?:layer|Layer) [^\n]*\n(?P<core>.*?)"
                         r"(?:\n\s*Call arguments received by .*)?$", re.S)


def normalise_message(message: str) -> str:
    """A message with the parts that change between runs replaced: addresses, paths, numbers;
    Keras' "Exception encountered when calling layer" wrapper reduced to the error inside."""
    text = core_message(message)
    text = _HEX.sub("<addr>", text)
    text = _PATH.sub("<path>", text)
    text = _NUM.sub("N", text)
    return " ".join(text.split())[:300]


def core_message(message: str) -> str:
    """The error inside Keras' "Exception encountered when calling layer" wrapper, if any."""
    m = _KERAS_WRAP.search(message or "")
    return (m.group("core") if m else (message or "")).strip()


def describe_error(text: str, fallback: str = "") -> str:
    """"ExceptionName: first line of the core message" of a traceback, for people."""

    parsed = parse_traceback(text)
    if not parsed.exc_name:
        return fallback
    first = next((ln.strip() for ln in core_message(parsed.message).splitlines() if ln.strip()), "")
    return f"{parsed.exc_name}: {first[:300]}" if first else parsed.exc_name


def error_signature(text: str) -> str | None:
    """"ExceptionName: normalised message" of the last exception in a traceback, or None."""

    parsed = parse_traceback(text)
    if not parsed.exc_name:
        return None
    return f"{parsed.exc_name}: {normalise_message(parsed.message)}"
