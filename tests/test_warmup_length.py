"""hyperparameters.warmup-longer-than-training: a warmup of at least the run's optimizer steps
fails (the steps counted as the Trainer counts them: batches, accumulation, epochs, over the
whole train split even when only a sample of it is loaded), a warmup inside the run passes, and
a run cut by max_steps (a smoke test) is only warned about; the script reader reads
gradient_accumulation_steps and max_steps."""
from __future__ import annotations

from wizard.checks.warmup_length import optimizer_steps, probe_warmup_length
from wizard.context import Context
from wizard.core.case import Case


def case(path: str = "d", **training) -> Case:
    return Case.from_dict({"model": "m", "framework": "pytorch", "task": "text-generation",
                           "dataset": {"path": path, "text_columns": ["text"]},
                           "training": {"trainer": "trainer", "batch_size": 4, "epochs": 3,
                                        **training}}, validate=False)


def live(c: Case, rows: int) -> Context:
    """The script's own train split, as a live run hands it over."""
    from datasets import Dataset

    return Context.from_objects(c, raw={"train": Dataset.from_dict({"text": ["a b"] * rows})})


def test_the_optimizer_steps_are_counted_as_the_trainer_counts_them():
    assert optimizer_steps(case(gradient_accumulation_steps=8), 64) == 6   # 16 // 8 x 3
    assert optimizer_steps(case(), 65) == 51                                # ceil(65/4) x 3
    assert optimizer_steps(case(max_steps=7), 10_000) == 7


def test_a_warmup_longer_than_the_run_fails_and_one_inside_it_passes():
    long_case = case(warmup_steps=100, gradient_accumulation_steps=8)
    [long] = probe_warmup_length(long_case, live(long_case, 64))
    assert long.status == "fail" and long.evidence["optimizer_steps"] == 6
    assert "warmup_ratio=0.1" in long.fix
    short_case = case(warmup_steps=100)
    [short] = probe_warmup_length(short_case, live(short_case, 4000))   # 3000 steps
    assert short.status == "pass"
    # a smoke test cut by max_steps: said, not the fault
    smoke = case(warmup_steps=10, max_steps=3)
    [warned] = probe_warmup_length(smoke, live(smoke, 4000))
    assert warned.status == "warn"
    # nothing to judge: no warmup
    plain = case()
    assert probe_warmup_length(plain, live(plain, 64)) == []


def test_a_sampled_split_is_counted_whole(tmp_path):
    """Only max_samples rows are loaded; the size comes from the dataset's description."""
    from datasets import Dataset, DatasetDict

    folder = tmp_path / "data"
    DatasetDict({"train": Dataset.from_dict({"text": ["a b"] * 600})}).save_to_disk(str(folder))
    c = case(str(folder), warmup_steps=200)          # 600 rows: 150 batches x 3 = 450 steps
    c.dataset.max_samples, c.dataset.eval_split = 64, None
    [found] = probe_warmup_length(c, Context(c, device="cpu"))
    assert found.status == "pass" and found.evidence["train_rows"] == 600
    c.training.warmup_steps = 450
    [found] = probe_warmup_length(c, Context(c, device="cpu"))
    assert found.status == "fail"


def test_the_script_reader_reads_accumulation_and_max_steps():
    from wizard.script.reader import read_script

    script = ("from transformers import Trainer, TrainingArguments\n"
              "args = TrainingArguments('out', per_device_train_batch_size=4, "
              "gradient_accumulation_steps=8, max_steps=50, warmup_steps=100)\n"
              "Trainer(model=model, args=args, train_dataset=ds).train()\n")
    t = read_script(script).case.training
    assert (t.gradient_accumulation_steps, t.max_steps, t.warmup_steps) == (8, 50, 100)
