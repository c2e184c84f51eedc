"""The guided terminal wizard, driven for real through a pseudo-terminal."""
from __future__ import annotations

import json
import os
import sys

import pexpect

from tests.helpers import ROOT, check_case, fails
from tests.test_script_reader import TRAINER_SCRIPT
from wizard.core.case import Case

ENTER = "\r"


UNKNOWN_ERROR = """Traceback (most recent call last):
  File "train.py", line 12, in <module>
    trainer.train()
  File "/usr/lib/python3.11/site-packages/transformers/trainer.py", line 2612, in _inner_loop
    self.control = self.callback_handler.on_step_end(args, self.state, self.control)
RuntimeError: The gradient accumulation state went out of sync with the scheduler at step 3"""


def spawn(out_dir, *args, cache=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TERM": "xterm",
           "COLUMNS": "110", "LINES": "50", "PROMPT_TOOLKIT_NO_CPR": "1"}
    if cache:
        env["WIZARD_CACHE"] = str(cache)
    child = pexpect.spawn(sys.executable, ["-m", "wizard", "--out", str(out_dir), *args],
                          env=env, encoding="utf-8", timeout=90, dimensions=(50, 110))
    child.logfile_read = open(out_dir.parent / f"{out_dir.name}.pty.log", "w")
    return child


def pick(child, key):
    child.send(key)
    child.send(ENTER)


def no_script(child):
    """The script question: Enter answers the setup questions instead."""
    child.expect("Path to your training script")
    child.sendline("")


def answer_from_dataset(child, demo_dir, optimizer="adam", batch_size=""):
    """Dataset onwards (columns picked from the real dataset, my own loop, no logs)."""
    child.expect("Dataset")
    child.sendline(str(demo_dir / "dataset"))
    child.expect("config")
    child.sendline("")
    child.expect("Text column")
    child.send(ENTER)
    child.expect("Label column")
    child.send(ENTER)
    child.expect("How do you train")
    pick(child, "2")
    child.expect("Optimizer")
    child.sendline(optimizer)
    child.expect("Learning rate")
    child.sendline("")
    child.expect("Batch size")
    child.sendline(batch_size)
    child.expect("Training logs")
    child.sendline("")


def answer_setup(child, demo_dir, optimizer="adam"):
    """The script question (none) onwards, for the tiny PyTorch demo model and dataset."""
    no_script(child)
    child.expect("Which framework")
    pick(child, "2")                      # pytorch
    child.expect("Model")
    child.sendline(str(demo_dir / "model"))
    child.expect("num_labels")
    child.sendline("")                    # not passed: the config's default (2)
    answer_from_dataset(child, demo_dir, optimizer)  # batch size: Enter keeps [16]


def finish(child):
    child.expect("Write a report", timeout=300)
    pick(child, "1")
    child.expect(pexpect.EOF, timeout=60)
    child.close()
    return child.exitstatus


def test_nan_loss_walk_with_a_bad_answer_and_back(demo_dir, tmp_path):
    out = tmp_path / "nan"
    child = spawn(out)
    child.expect("What goes wrong")
    pick(child, "2")                      # NaN loss
    no_script(child)
    child.expect("Which framework")
    child.send("<")                       # '<' in a menu goes back at once
    child.expect("Path to your training script")
    child.sendline("")
    child.expect("Which framework")
    pick(child, "2")
    child.expect("Model")
    child.sendline("/no/such/model")
    child.expect("does not exist here")   # re-asked with the reason
    child.expect("Model")
    child.sendline("some-org/not-cached-model")  # offline, not cached: said once, kept
    child.expect("offline mode is on")
    child.expect("need the model will be skipped")
    child.expect("num_labels")
    child.sendline("<")
    child.expect("Model")
    child.sendline(str(demo_dir / "model"))
    child.expect("num_labels")
    child.sendline("<")                   # back to the model question
    child.expect("Model")
    child.sendline("")                    # Enter keeps the answer already given
    child.expect("num_labels")
    child.sendline("many")
    child.expect("not a whole number")
    child.expect("num_labels")
    child.sendline("")
    answer_from_dataset(child, demo_dir)
    child.expect("Setup complete")
    child.expect("Verdict: user-error", timeout=300)
    assert finish(child) == 1             # a fault found: exit 1, as `check` does
    saved = Case.from_file(out / "session.yaml")
    assert saved.model == str(demo_dir / "model") and saved.num_labels is None
    assert saved.dataset.text_columns == ["premise", "hypothesis"]
    assert saved.training.optimizer == "adam" and saved.training.trainer == "loop"
    result = json.loads((out / "session.json").read_text())
    assert fails(result) == ["data.labels-out-of-range", "hyperparameters.learning-rate-too-high"]
    assert (out / "report.md").exists()
    # A saved session is a case file: `check` replays it to the same verdict.
    _, replay = check_case(saved, tmp_path / "replay")
    assert fails(replay) == fails(result)


def test_pasted_error_walk_goes_through_triage(demo_dir, tmp_path):
    out = tmp_path / "err"
    child = spawn(out)
    child.expect("What goes wrong")
    pick(child, "1")                      # an error
    child.expect("Paste the error")
    for line in ("Traceback (most recent call last):", '  File "train.py", line 9, in <module>',
                 "IndexError: Target 2 is out of bounds.", "", ""):
        child.sendline(line)
    answer_setup(child, demo_dir, optimizer="AdamW(lr=5e-5)")
    child.expect("The error message", timeout=120)   # the triage step ran
    child.expect("Verdict: user-error", timeout=300)
    assert finish(child) == 1             # a fault found: exit 1, as `check` does
    result = json.loads((out / "session.json").read_text())
    assert result["path"][:3] == ["environment", "triage", "data"]
    assert "Target 2 is out of bounds" in result["case"]["traceback"]
    assert fails(result) == ["data.labels-out-of-range"]


def test_only_a_pasted_error_is_read_without_a_model(tmp_path):
    """Empty model after a pasted error: the error is read, the environment checked, and the
    verdict says so; nothing about a model or dataset is asked."""
    out = tmp_path / "only"
    child = spawn(out)
    child.expect("What goes wrong")
    pick(child, "1")
    child.expect("Paste the error")
    for line in ("Traceback (most recent call last):", '  File "train.py", line 3, in <module>',
                 "    trainer.train()", "torch.OutOfMemoryError: CUDA out of memory. Tried to "
                 "allocate 2.00 GiB (GPU 0; 14.75 GiB total capacity)", "", ""):
        child.sendline(line)
    no_script(child)
    child.expect("Which framework")
    pick(child, "2")
    child.expect("Model")
    child.sendline("")                    # no model: only the error
    child.expect("Search the library's GitHub issues")
    pick(child, "1")                      # no: nothing leaves the machine
    child.expect("The error message", timeout=120)
    child.expect("Verdict: inconclusive", timeout=120)
    child.expect("Read from the error alone")
    assert finish(child) == 0
    result = json.loads((out / "session.json").read_text())
    assert result["path"] == ["installation", "triage"]
    known = [f for f in result["findings"] if f["id"] == "triage.known-error"]
    assert known and "Out of memory" in known[0]["title"]


def test_a_pasted_error_nobody_knows_is_searched_among_the_issues(tmp_path, monkeypatch):
    """Yes to the search: the issues GitHub finds for the error are listed, and the verdict
    points at the solved one."""
    from tests.github_server import serve

    for github in serve():
        monkeypatch.setenv("WIZARD_GITHUB_API", github.url)
        out = tmp_path / "search"
        child = spawn(out)
        child.expect("What goes wrong")
        pick(child, "1")
        child.expect("Paste the error")
        for line in (*UNKNOWN_ERROR.splitlines(), "", ""):
            child.sendline(line)
        no_script(child)
        child.expect("Which framework")
        pick(child, "2")
        child.expect("Model")
        child.sendline("")
        child.expect("Search the library's GitHub issues")
        pick(child, "2")                  # yes
        child.expect("Reported before: 3 issues of transformers", timeout=120)
        child.expect("#29876")
        child.expect("Verdict: inconclusive", timeout=120)
        child.expect("issues/29876 first")
        assert finish(child) == 0
        result = json.loads((out / "session.json").read_text())
        assert result["path"] == ["installation", "triage", "reported-before"]
        assert result["case"]["search_issues"] is True and len(github.queries) == 1


def test_ctrl_c_saves_and_resume_continues(demo_dir, tmp_path):
    out = tmp_path / "resume"
    child = spawn(out)
    child.expect("What goes wrong")
    pick(child, "3")                      # loss does not go down
    no_script(child)
    child.expect("Which framework")
    pick(child, "2")
    child.expect("Model")
    child.sendline(str(demo_dir / "model"))
    child.expect("num_labels")
    child.sendintr()
    child.expect("answers are saved")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    saved = Case.from_yaml((out / "session.yaml").read_text(), validate=False)  # partial
    assert saved.symptom == "loss-not-decreasing" and saved.model == str(demo_dir / "model")

    child = spawn(out, "--resume", str(out))
    child.expect("num_labels")           # picks up where it stopped
    child.sendline("3")
    answer_from_dataset(child, demo_dir, optimizer="AdamW(lr=5e-5)", batch_size="8")
    child.expect("Verdict: inconclusive", timeout=300)
    assert finish(child) == 0
    result = json.loads((out / "session.json").read_text())
    assert fails(result) == [] and result["case"]["training"]["batch_size"] == 8


def test_training_script_is_read_and_only_its_run_time_value_asked(demo_dir, tmp_path):
    out = tmp_path / "script"
    script = tmp_path / "train.py"  # num_labels comes from the command line (line 16)
    script.write_text(TRAINER_SCRIPT.replace("NUM_LABELS", "int(sys.argv[1])").replace("LR", "1e-3")
                      .replace('"distilbert-base-uncased"', repr(str(demo_dir / "model")))
                      .replace('load_dataset("glue", "mnli")',
                               f'load_dataset({str(demo_dir / "dataset")!r})'))
    broken = tmp_path / "broken.py"
    broken.write_text("import os\nmodel.fit(\n")
    child = spawn(out)
    child.expect("What goes wrong")
    pick(child, "2")                      # NaN loss
    child.expect("Path to your training script")
    child.sendline(str(tmp_path / "nope.py"))
    child.expect("does not exist")        # one sentence, asked again
    child.expect("Path to your training script")
    child.sendline(str(broken))
    child.expect(r"syntax error at line 2")
    child.expect("Path to your training script")
    child.sendline(str(script))
    child.expect("a Trainer script")      # what was read, with the lines
    child.expect("training.batch_size")
    child.expect("line 24")
    child.expect(r"learning-rate-too-high\]")  # a static finding, with its line
    child.expect("line 24")
    child.expect("num_labels you pass")   # the one value left to run time, with its line
    child.expect("line 16")
    child.sendline("<")                   # back over the questions the script answered
    child.expect("Path to your training script")
    child.sendline(str(script))
    child.expect("num_labels you pass")
    child.sendline("2")
    child.expect("Training logs")         # not in a script: still asked
    child.sendline("")
    child.expect("Setup complete")
    child.expect("Verdict: user-error", timeout=300)
    assert finish(child) == 1             # a fault found: exit 1, as `check` does
    saved = Case.from_file(out / "session.yaml")
    assert (saved.model, saved.num_labels, saved.symptom) == (str(demo_dir / "model"), 2, "nan-loss")
    assert (saved.training.trainer, saved.training.learning_rate) == ("trainer", 1e-3)
    result = json.loads((out / "session.json").read_text())
    assert fails(result) == ["data.labels-out-of-range", "hyperparameters.learning-rate-too-high"]
    assert result["findings"][0]["id"] == "script.read"  # the static findings joined the run's
    lr = next(f for f in result["findings"] if f["id"] == "hyperparameters.learning-rate-too-high")
    assert lr["evidence"]["script"]["line"] == 24


def test_demo_from_the_first_question(demo_dir, tmp_path):
    out = tmp_path / "walk"
    out.mkdir()
    (out / "session.yaml").write_text("symptom: nan-loss\n")   # a half-finished session
    child = spawn(out, cache=demo_dir.parent)
    child.expect("What goes wrong")
    pick(child, "9")                      # the built-in demo case
    child.expect("The demo", timeout=120)
    child.expect("Verdict: user-error", timeout=300)
    child.expect(r"\d+ findings, \d+ fault\(s\), device \w+")   # the summary line
    assert finish(child) == 1             # a fault found: exit 1, as `check` does
    result = json.loads((out / "demo" / "session.json").read_text())
    assert "data.labels-out-of-range" in fails(result)
    assert (out / "session.yaml").read_text() == "symptom: nan-loss\n"   # left as it was
    screen = (tmp_path / "walk.pty.log").read_text()
    assert "absl" not in screen and "oneDNN" not in screen   # no library log line


def test_without_a_terminal_the_wizard_points_to_check():
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "wizard"], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2 and "python -m wizard check" in proc.stderr


def test_a_model_that_ships_code_is_run_only_after_an_explicit_yes(demo_dir, tmp_path):
    from tests.test_tree import remote_code_model

    model = remote_code_model(tmp_path / "remote-model")
    out = tmp_path / "trust"
    child = spawn(out)
    child.expect("What goes wrong")
    pick(child, "7")                      # not sure
    no_script(child)
    child.expect("Which framework")
    pick(child, "2")
    child.expect("Model")
    child.sendline(str(model))
    child.expect("ships its own Python code")
    child.expect("No: don't run")         # the first (default) choice is no
    pick(child, "2")                      # yes, after reading it
    child.expect("num_labels")
    child.sendline("<")                   # back: the question again
    child.expect("ships its own Python code")
    pick(child, "1")
    child.expect("num_labels")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    saved = Case.from_yaml((out / "session.yaml").read_text(), validate=False)
    assert saved.model == str(model) and saved.trust_remote_code is False


def test_resume_in_the_middle_of_the_scripts_questions(demo_dir, tmp_path):
    out = tmp_path / "script-resume"
    script = tmp_path / "train.py"
    script.write_text(TRAINER_SCRIPT.replace("NUM_LABELS", "int(sys.argv[1])").replace("LR", "1e-3")
                      .replace('"distilbert-base-uncased"', repr(str(demo_dir / "model")))
                      .replace('load_dataset("glue", "mnli")',
                               f'load_dataset({str(demo_dir / "dataset")!r})'))
    child = spawn(out)
    child.expect("What goes wrong")
    pick(child, "2")
    child.expect("Path to your training script")
    child.sendline(str(script))
    child.expect("num_labels you pass")
    child.sendintr()                      # stopped on the script's run-time value
    child.expect("answers are saved")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130

    child = spawn(out, "--resume", str(out))
    child.expect("num_labels you pass")   # the same question, still tied to its line
    child.expect("line 16")
    child.sendline("2")
    child.expect("Training logs")         # the answers the script gave are not asked again
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    saved = Case.from_yaml((out / "session.yaml").read_text(), validate=False)
    assert (saved.num_labels, saved.training.learning_rate) == (2, 1e-3)
    assert saved.model == str(demo_dir / "model") and saved.training.trainer == "trainer"
