"""Fixes written against the user's own code: the checks write their fixes with the course's
names (`tokenized_datasets`, `model_checkpoint`, `data_collator`, `tokenizer`, `model`); a script
that calls them `ds`, `ckpt`, `tok` gets fixes that paste into it as they are. A collator the
script never defines is added where the fix needs one."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from wizard.core.findings import Finding

COURSE = {"tokenized": "tokenized_datasets", "checkpoint": "model_checkpoint",
          "collator": "data_collator", "tokenizer": "tokenizer", "model": "model"}


@dataclass
class CodeNames:
    """The script's own names (None where it has none)."""

    tokenized: str | None = None      # the tokenized DatasetDict (or Dataset)
    checkpoint: str | None = None     # a variable, or the checkpoint literal's repr
    collator: str | None = None
    tokenizer: str | None = None
    model: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


def fit_fix(fix: str, names: CodeNames, batch_size: int | None = None) -> str:
    """`fix` with the course's names replaced by the script's; a collator the script lacks is
    defined first; the batch size is the script's."""
    if not fix:
        return fix
    out = fix
    for key, course in COURSE.items():
        own = getattr(names, key)
        if own and own != course:
            out = re.sub(rf"(?<![\w.\"']){re.escape(course)}\b", own, out)
    if names.collator is None and re.search(r"(?<![\w.])data_collator\b", out) and \
            not re.search(r"^\s*data_collator\s*=", out, re.M):
        tok = names.tokenizer or "tokenizer"
        out = (f"data_collator = DataCollatorWithPadding({tok}, return_tensors=\"np\")"
               "  # your script has no collator yet\n" + out)
    if batch_size is not None:
        out = re.sub(r"\bbatch_size=\d+", f"batch_size={batch_size}", out)
    return out


def fit_fixes(findings: list[Finding], names: CodeNames, batch_size: int | None = None) -> None:
    """Rewrite each finding's fix in place for the script's names."""
    for f in findings:
        f.fix = fit_fix(f.fix, names, batch_size)
