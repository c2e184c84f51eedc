"""`python -m wizard check --script train.py [--map REF=PATH] [--set FIELD=VALUE]` through the
real CLI: the course's script and a Trainer script read statically, checked, and their faults in
the JSON; a value left to run time (when the script shows no fault without it) and a syntax
error are one sentence and exit code 2."""
from __future__ import annotations

import importlib.util
import json

import pytest

from tests.helpers import fails, finding, run_cli
from tests.test_script_reader import COURSE_FAULTS, TRAINER_SCRIPT
from tests.test_script_reader import mnli_local  # noqa: F401  (a fixture: MNLI's split names)
from wizard.script.reader import course_script_path

HAS_TF = importlib.util.find_spec("tensorflow") is not None
needs_tf = pytest.mark.skipif(not HAS_TF, reason="TensorFlow is tested in env 'tf'")


def check_script(tmp_path, script, *options):
    """`check --script` with JSON out; returns (process, JSON or None when none was written)."""
    out = tmp_path / "out.json"
    proc = run_cli("check", "--script", str(script), "--json", str(out), "--out",
                   str(tmp_path / "session"), *options)
    return proc, (json.loads(out.read_text()) if out.exists() else None)


@needs_tf
def test_course_script_through_the_cli_gives_its_faults(demo_dir, mnli_local, tmp_path):
    proc, result = check_script(tmp_path, course_script_path(),
                                "--map", f"distilbert-base-uncased={demo_dir / 'model'}",
                                "--map", f"glue={mnli_local}")
    assert result is not None, proc.stderr[-3000:]
    assert proc.returncode == 1  # faults found
    assert "course_script.py: a Keras compile()/fit() script; read 14 setting(s)" in proc.stderr
    assert fails(result) == COURSE_FAULTS
    assert result["findings"][0]["id"] == "script.read"
    assert result["case"]["model"] == str(demo_dir / "model")
    assert finding(result, "data.labels-in-inputs-with-keras-loss")["evidence"]["script"]["line"] == 20
    assert result["verdict"]["primary"] == "data.ragged-batch"  # no batch can be built first


def test_trainer_script_needs_its_run_time_value_then_gives_its_faults(demo_dir, tmp_path):
    script = tmp_path / "train.py"  # num_labels comes from the command line (line 16)
    maps = ("--map", f"distilbert-base-uncased={demo_dir / 'model'}",
            "--map", f"glue={demo_dir / 'dataset'}")
    script.write_text(TRAINER_SCRIPT.replace("NUM_LABELS", "int(sys.argv[1])").replace("LR", "2e-5"))
    proc, result = check_script(tmp_path, script, *maps)  # nothing static to say: one sentence
    assert proc.returncode == 2 and result is None
    assert "Traceback" not in proc.stderr
    error = proc.stderr.strip().splitlines()[-1]
    assert error.startswith("error: train.py leaves 1 value(s) to run time: `num_labels` (line 16")
    assert "--set num_labels=VALUE" in error

    # a fault the script already shows is a verdict, with what the other checks still need
    script.write_text(TRAINER_SCRIPT.replace("NUM_LABELS", "int(sys.argv[1])").replace("LR", "1e-3"))
    proc, result = check_script(tmp_path, script, *maps)
    assert result is not None and proc.returncode == 1, proc.stderr[-3000:]
    assert result["verdict"]["primary"] == "hyperparameters.learning-rate-too-high"
    assert "the others need num_labels (--set)" in result["verdict"]["summary"]
    assert fails(result) == ["hyperparameters.learning-rate-too-high"]  # nothing was run
    assert result["device"].startswith("none")
    assert "Only the script's static checks ran: train.py leaves 1 value(s)" in proc.stderr

    proc, result = check_script(tmp_path, script, *maps, "--set", "num_labels=2", "--quiet")
    assert result is not None, proc.stderr[-3000:]
    assert proc.returncode == 1
    assert result["case"]["num_labels"] == 2 and result["case"]["framework"] == "pytorch"
    assert fails(result) == ["data.labels-out-of-range", "hyperparameters.learning-rate-too-high"]
    lr = finding(result, "hyperparameters.learning-rate-too-high")
    assert lr["evidence"]["learning_rate"] == pytest.approx(1e-3)
    assert lr["evidence"]["script"]["line"] == 24


def test_syntax_error_is_one_sentence_and_exit_2(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import os\nmodel.fit(\n")
    proc, result = check_script(tmp_path, script)
    assert proc.returncode == 2 and result is None
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: Nothing could be read: the script has a syntax error at "
                               "line 2 (`model.fit(`)")
