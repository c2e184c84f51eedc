"""hyperparameters.warmup-longer-than-training: a warmup of at least the run's optimizer steps
fails (the steps counted as the Trainer counts them: batches, accumulation, epochs), a warmup
inside the run passes, and a run cut by max_steps (a smoke test) is only warned about; the
script reader reads gradient_accumulation_steps and max_steps."""
from __future__ import annotations

from wizard.checks.warmup_length import optimizer_steps, probe_warmup_length
from wizard.core.case import Case
from wizard.core.findings import Finding


def case(**training) -> Case:
    return Case.from_dict({"model": "m", "framework": "pytorch", "task": "text-generation",
                           "dataset": {"path": "d", "text_columns": ["text"]},
                           "training": {"trainer": "trainer", "batch_size": 4, "epochs": 3,
                                        **training}}, validate=False)


def described(rows: int) -> dict:
    return {"findings": [Finding("environment.dataset-source", "info", "Dataset d",
                                 evidence={"splits": {"train": rows, "validation": 16}})]}


def test_the_optimizer_steps_are_counted_as_the_trainer_counts_them():
    assert optimizer_steps(case(gradient_accumulation_steps=8), 64) == 6   # 16 // 8 x 3
    assert optimizer_steps(case(), 65) == 51                                # ceil(65/4) x 3
    assert optimizer_steps(case(max_steps=7), 10_000) == 7


def test_a_warmup_longer_than_the_run_fails_and_one_inside_it_passes():
    [long] = probe_warmup_length(case(warmup_steps=100, gradient_accumulation_steps=8),
                                 described(64))
    assert long.status == "fail" and long.evidence["optimizer_steps"] == 6
    assert "warmup_ratio=0.1" in long.fix
    [short] = probe_warmup_length(case(warmup_steps=100), described(4000))   # 3000 steps
    assert short.status == "pass"
    # a smoke test cut by max_steps: said, not the fault
    [smoke] = probe_warmup_length(case(warmup_steps=10, max_steps=3), described(4000))
    assert smoke.status == "warn"
    # nothing to judge: no warmup, or no size for the train split
    assert probe_warmup_length(case(), described(64)) == []
    assert probe_warmup_length(case(warmup_steps=100), {"findings": []}) == []


def test_the_script_reader_reads_accumulation_and_max_steps():
    from wizard.script.reader import read_script

    script = ("from transformers import Trainer, TrainingArguments\n"
              "args = TrainingArguments('out', per_device_train_batch_size=4, "
              "gradient_accumulation_steps=8, max_steps=50, warmup_steps=100)\n"
              "Trainer(model=model, args=args, train_dataset=ds).train()\n")
    t = read_script(script).case.training
    assert (t.gradient_accumulation_steps, t.max_steps, t.warmup_steps) == (8, 50, 100)
