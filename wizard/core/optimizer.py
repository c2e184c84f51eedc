"""Optimizers as users write them, read once for every check: 'adam', 'Adam(learning_rate=5e-5)',
'torch.optim.SGD(momentum=0.9)', 'adamw_bnb_8bit', or {name: ..., lr: ...}."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

ADAPTIVE = frozenset({"adam", "adamw", "nadam", "radam", "adamax", "lamb", "lion", "adafactor",
                      "adamwtorch", "adamwhf", "adamwtorchfused", "adamweightdecay", "rmsprop",
                      "adagrad", "adadelta", "createoptimizer"})
SGD = frozenset({"sgd", "asgd"})


@dataclass
class OptimizerSpec:
    """The optimizer as written: its name, the arguments given, and the text itself."""

    name: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    written: str = ""
    is_string_shortcut: bool = False

    @property
    def key(self) -> str:
        """The name's last dotted part, lower case: 'torch.optim.AdamW' -> 'adamw'."""
        return self.name.rsplit(".", 1)[-1].lower()

    @property
    def family(self) -> str:
        """"adaptive" (Adam and its kin), "sgd", or "other"."""
        key = self.key.replace("_", "")
        if key in SGD or key.startswith("sgd"):
            return "sgd"
        if key in ADAPTIVE or key.startswith(("adam", "pagedadam", "nadam", "radam", "lion")):
            return "adaptive"
        return "other"

    @property
    def momentum(self) -> float:
        """The momentum given (0.0 when none)."""
        try:
            return float(self.kwargs.get("momentum") or 0.0)
        except (TypeError, ValueError):
            return 0.0

    @property
    def learning_rate(self) -> float | None:
        for key in ("learning_rate", "lr"):
            value = self.kwargs.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
        return None


def parse_optimizer(value: Any) -> OptimizerSpec:
    """Read an optimizer as the user wrote it; never raises."""
    if isinstance(value, dict):
        kwargs = {k: v for k, v in value.items() if k != "name"}
        return OptimizerSpec(str(value.get("name", "adamw")), kwargs, written=str(value))
    text = str(value if value is not None else "").strip() or "adamw"
    if "(" not in text:
        return OptimizerSpec(text, {}, written=repr(text), is_string_shortcut=True)
    try:
        call = ast.parse(text, mode="eval").body
        if not isinstance(call, ast.Call):
            raise ValueError(text)
        name = ast.unparse(call.func).split(".")[-1]
        kwargs: dict[str, Any] = {}
        for kw in call.keywords:
            if kw.arg:
                try:
                    kwargs[kw.arg] = ast.literal_eval(kw.value)
                except ValueError:
                    pass  # a variable: its value is not in the text
        if call.args:  # Keras optimizers take the learning rate first
            try:
                kwargs.setdefault("learning_rate", ast.literal_eval(call.args[0]))
            except ValueError:
                pass
        return OptimizerSpec(name, kwargs, written=text)
    except (SyntaxError, ValueError):
        name = re.split(r"\(", text, maxsplit=1)[0].strip()
        kwargs = {m.group(1): _number(m.group(2))
                  for m in re.finditer(r"(\w+)\s*[=:]\s*([0-9.eE+-]+)", text)}
        return OptimizerSpec(name, kwargs, written=text)


def _number(text: str) -> Any:
    try:
        return float(text)
    except ValueError:
        return text
