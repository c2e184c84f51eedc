"""What a seq2seq or extractive-QA script says beyond the common reading: the target column and
how targets are tokenized (text_target= or like the inputs), max_target_length and the label
padding (DataCollatorForSeq2Seq's label_pad_token_id); the answers column, the stride and
whether start/end positions come from offset_mapping."""
from __future__ import annotations

import ast
from typing import Any

from wizard.core.tasks import QA, SEQ2SEQ
from wizard.script.syntax import Unresolved, call_name, kwarg

TOKENIZER_NAMES = ("tokenizer", "tok")


def read_seq2seq_qa(r: Any) -> None:
    """Fill the reader's case data for a seq2seq or QA script. `r` is the script reader
    (wizard.script.extract.Reader)."""
    calls = list(r.s.calls)
    if r.data.get("task") == SEQ2SEQ:
        _seq2seq(r, calls)
    elif r.data.get("task") == QA:
        _qa(r, calls)


def _columns(node: ast.AST | None) -> list[str]:
    """The string keys subscripted inside `node` (examples["document"] -> document)."""
    if node is None:
        return []
    return [n.slice.value for n in ast.walk(node) if isinstance(n, ast.Subscript)
            and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str)]


def _tokenizer_calls(calls: list[ast.Call]) -> list[ast.Call]:
    return [c for c in calls if call_name(c) in TOKENIZER_NAMES]


def _seq2seq(r: Any, calls: list[ast.Call]) -> None:
    tok_calls = _tokenizer_calls(calls)
    target_call = next((c for c in tok_calls if kwarg(c, "text_target") is not None), None)
    as_target = any(isinstance(n, ast.Attribute) and n.attr == "as_target_tokenizer"
                    for n in ast.walk(r.s.tree))
    source_call = next((c for c in tok_calls if c.args and c is not target_call), None)
    source = _columns(source_call.args[0]) if source_call is not None else []
    if target_call is not None:
        target = _columns(kwarg(target_call, "text_target"))
        r.set("preprocessing.targets", "text-target", target_call)
    else:  # a second tokenizer call on another column: the targets tokenized like inputs
        target_call = next((c for c in tok_calls if c.args and c is not source_call
                            and _columns(c.args[0]) and _columns(c.args[0]) != source), None)
        target = _columns(target_call.args[0]) if target_call is not None else []
        if target_call is not None:
            r.set("preprocessing.targets", "text-target" if as_target else "as-inputs",
                  target_call)
    if source and target:
        r.set("dataset.text_columns", [source[0], target[0]], source_call)
    if target_call is not None:
        length = kwarg(target_call, "max_length")
        if length is not None:
            r.set("preprocessing.max_target_length", r.val(length), target_call)
        padding = kwarg(target_call, "padding")
        replaced = any(isinstance(n, ast.UnaryOp) and isinstance(n.operand, ast.Constant)
                       and n.operand.value == 100 for n in ast.walk(r.s.tree))
        if padding is not None and r.val(padding) == "max_length" and not replaced:
            r.set("preprocessing.label_pad", "pad-id", target_call)
    collator = next((c for c in calls if call_name(c) == "DataCollatorForSeq2Seq"), None)
    pad = kwarg(collator, "label_pad_token_id") if collator is not None else None
    if pad is not None:
        value = r.val(pad)
        if isinstance(pad, ast.Attribute) and pad.attr == "pad_token_id":
            r.set("preprocessing.label_pad", "pad-id", collator)
        elif value == -100:
            r.set("preprocessing.label_pad", "-100", collator)
        elif isinstance(value, Unresolved):
            r.set("preprocessing.label_pad", value, collator)


def _qa(r: Any, calls: list[ast.Call]) -> None:
    pair = next((c for c in _tokenizer_calls(calls) if len(c.args) >= 2), None)
    if pair is None:
        return
    stride = kwarg(pair, "stride")
    if stride is not None:
        r.set("preprocessing.stride", r.val(stride), pair)
    offsets = kwarg(pair, "return_offsets_mapping")
    uses_offsets = offsets is not None and r.val(offsets) is True and any(
        call_name(c) == "sequence_ids" for c in calls)
    r.set("preprocessing.qa_positions", "offsets" if uses_offsets else "char", pair)
    answers = next((k for k in _columns(r.s.tree) if "answer" in k and k != "answer_start"), None)
    if answers is not None:
        r.set("dataset.label_column", answers, pair)
