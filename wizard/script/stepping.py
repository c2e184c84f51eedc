"""How the script steps its optimizer, beyond the reading of the training call: whether a
custom loop ever clears the gradients, and how long the learning-rate schedule it builds lasts
(a schedule sized for one epoch's batches while training runs several)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from wizard.script.syntax import call_name, kwarg

# schedule builders whose learning rate reaches its end value after N steps: the argument that
# gives N (keyword, position); transformers' get_* schedules end at 0
SCHEDULES = {"get_scheduler": ("num_training_steps", 3),
             "get_linear_schedule_with_warmup": ("num_training_steps", 2),
             "get_cosine_schedule_with_warmup": ("num_training_steps", 2),
             "get_polynomial_decay_schedule_with_warmup": ("num_training_steps", 2),
             "get_cosine_with_hard_restarts_schedule_with_warmup": ("num_training_steps", 2),
             "create_optimizer": ("num_train_steps", 1),
             "PolynomialDecay": ("decay_steps", 1), "CosineDecay": ("decay_steps", 1)}
# calls whose result is a stream of batches (len() of it counts batches, not examples)
BATCHERS = {"DataLoader", "to_tf_dataset", "prepare_tf_dataset", "batch", "padded_batch"}


@dataclass
class ScheduleInfo:
    """A schedule whose length is one epoch's batches: where, and what it was given."""

    line: int
    code: str                     # the schedule call as written
    steps_code: str               # the expression its length resolves to: len(train_dataloader)


def read_stepping(r: Any) -> None:
    """Fill the reader's facts: `zero_grad` for a custom loop, `schedule` for a schedule one
    epoch long. `r` is the script reader (wizard.script.extract.Reader)."""
    s = r.s
    step = _step_in_a_loop(s.tree) if r.facts.entry == "loop" else None
    if step is not None:
        r.facts.loop_step = (step.lineno, s.code(step))
        r.facts.zero_grad = any(call_name(c) == "zero_grad" for c in s.calls) or any(
            isinstance(n, (ast.Assign, ast.AugAssign)) and any(
                isinstance(t, ast.Attribute) and t.attr == "grad"
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))
            for n in ast.walk(s.tree))
    for call in s.calls:
        spec = SCHEDULES.get(call_name(call) or "")
        if spec is None:
            continue
        steps = kwarg(call, *spec)
        if steps is not None and _one_epoch(r, steps) and _decays(r, call):
            expr, _ = s.definition(steps)
            r.facts.schedule = ScheduleInfo(call.lineno, s.code(call), s.code(expr))
            return


def _step_in_a_loop(tree: ast.AST) -> ast.Call | None:
    """The step() call that a for/while loop repeats together with backward() (one step
    alone needs no clearing)."""
    for loop in ast.walk(tree):
        if isinstance(loop, (ast.For, ast.While)):
            calls = [c for c in ast.walk(loop) if isinstance(c, ast.Call)]
            if any(call_name(c) == "backward" for c in calls):
                steps = [c for c in calls if call_name(c) == "step"]
                if steps:   # the optimizer's, not a scheduler's, when the names tell
                    return min(steps, key=lambda c: ("sched" in ast.unparse(c.func).lower(),
                                                     c.lineno))
    return None


def _one_epoch(r: Any, steps: ast.AST) -> bool:
    """The step count is len(<batches>) and nothing else (no "* num_epochs")."""
    expr, _ = r.s.definition(steps)
    if not (isinstance(expr, ast.Call) and call_name(expr) == "len" and expr.args):
        return False
    source, _ = r.s.definition(expr.args[0])
    return isinstance(source, ast.Call) and call_name(source) in BATCHERS


def _decays(r: Any, call: ast.Call) -> bool:
    """Keras' PolynomialDecay ends at end_learning_rate: a schedule only when that is below the
    start (the others end at 0, or at alpha * the start)."""
    if call_name(call) != "PolynomialDecay":
        return True
    start, end = r.val(kwarg(call, "initial_learning_rate", 0)), r.val(
        kwarg(call, "end_learning_rate", 2))
    end = 1e-4 if end is None else end
    return isinstance(start, (int, float)) and isinstance(end, (int, float)) and end < start
