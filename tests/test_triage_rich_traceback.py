"""Tracebacks drawn by rich (boxed, wrapped paths, indentation guides, rank prefixes) parse into
the same frames as Python's own format."""
from __future__ import annotations

from wizard.triage.match import triage
from wizard.triage.normalize import normalize

_BOX = """[rank0]: ╭───────────────────── Traceback (most recent call last) ──────────────────────╮
[rank0]: │ /root/envs/fc/lib/python3.10/site-packages/transformers/traine │
[rank0]: │ r.py:1927 in _inner_training_loop                                           │
[rank0]: │                                                                              │
[rank0]: │   1926 │   │   │   │   │   with model.no_sync():                             │
[rank0]: │ ❱ 1927 │   │   │   │   │   │   tr_loss_step = self.training_step(model, inputs)│
[rank0]: │                                                                              │
[rank0]: │ /home/me/train.py:88 in    │
[rank0]: │ main                                                                         │
[rank0]: │ ❱  88 │   loss.backward()                                                   │
[rank0]: ╰──────────────────────────────────────────────────────────────────────────────╯
[rank0]: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""


def test_a_rich_box_becomes_python_frames() -> None:
    text = normalize(_BOX)
    assert 'File "/root/envs/fc/lib/python3.10/site-packages/transformers/trainer.py", line ' \
        "1927, in _inner_training_loop" in text
    assert '  File "/home/me/train.py", line 88, in main\n    loss.backward()' in text
    t = triage(_BOX)
    frames = t.parsed.frames
    assert [f.line for f in frames] == [1927, 88]
    assert frames[0].is_library and frames[0].package == "transformers"
    assert frames[1].is_user and frames[1].code == "loss.backward()"
    assert frames[0].code == "tr_loss_step = self.training_step(model, inputs)"   # no guides
    assert t.parsed.exc_type == "RuntimeError"


def test_text_without_a_box_is_unchanged() -> None:
    plain = "Some │ table │ of values\nValueError: bad"
    assert normalize(plain) == plain
