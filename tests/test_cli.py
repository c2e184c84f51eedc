"""The command line: bad input gets one sentence and exit code 2, never a traceback."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import ROOT, run_cli


def _bad(proc):
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    err = proc.stderr.strip()
    assert "Traceback" not in err and "Traceback" not in proc.stdout
    assert err.startswith("error: ") and len(err.splitlines()) == 1
    return err


@pytest.mark.parametrize("content, words", [
    ("model: [", "not valid YAML"),
    ("model: m\ndataset: {path: d}\nepochs: 3\n", "Unknown field `epochs`"),
    ("model: m\ndataset: {path: d}\nframework: mxnet\n", "`framework: mxnet`"),
    ("model: ./no/such/model\ndataset: {path: d}\n", "`model: ./no/such/model` does not exist"),
])
def test_bad_case_files(tmp_path, content, words):
    case = tmp_path / "case.yaml"
    case.write_text(content)
    err = _bad(run_cli("check", str(case), "--out", str(tmp_path / "o")))
    assert words in err


def test_missing_case_file(tmp_path):
    assert "does not exist" in _bad(run_cli("check", str(tmp_path / "nope.yaml")))


def test_unknown_column_names_the_field_and_the_columns(demo_dir, tmp_path):
    from wizard.demo.cases import healthy_case

    case = healthy_case(demo_dir, "pytorch")
    case.dataset.text_columns = ["premise", "hypotesis"]
    path = tmp_path / "case.yaml"
    path.write_text(case.to_yaml())
    err = _bad(run_cli("check", str(path), "--out", str(tmp_path / "o"), "--quiet"))
    assert "'hypotesis'" in err and "dataset.text_columns" in err and "hypothesis" in err


def test_unknown_split_is_a_fault_with_the_fix(demo_dir, tmp_path):
    from tests.helpers import check_case, fails, finding
    from wizard.demo.cases import healthy_case

    case = healthy_case(demo_dir, "pytorch")
    case.dataset.eval_split = "validation_matched"
    proc, result = check_case(case, tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert fails(result) == ["environment.dataset-config"]
    f = finding(result, "environment.dataset-config")
    assert f["evidence"]["splits"] == ["train", "validation"]
    assert "eval_split: validation" in f["fix"]
    assert result["path"] == ["environment"]  # nothing else can run on a split that is not there


def test_checks_lists_the_catalogue_as_json():
    proc = run_cli("checks", "--json")
    assert proc.returncode == 0
    ids = {c["id"] for c in json.loads(proc.stdout)}
    assert {"data.labels-out-of-range", "data.labels-in-inputs-with-keras-loss",
            "hyperparameters.learning-rate-too-high"} <= ids
    assert all(c["category"] == c["id"].split(".")[0] for c in json.loads(proc.stdout))


def test_docs_checks_md_is_generated_from_the_catalogue():
    from tests.helpers import ROOT
    from wizard.frontends.terminal.cli import catalogue_markdown

    assert (ROOT / "docs" / "checks.md").read_text().strip() == catalogue_markdown().strip(), \
        "docs/checks.md is stale: run `make docs`"


def test_env_prints_the_environment_block():
    proc = run_cli("env")
    assert proc.returncode == 0
    for name in ("transformers", "huggingface_hub", "datasets", "torch", "Python"):
        assert name.lower() in proc.stdout.lower()


def test_demo_write_case_round_trips(demo_dir, tmp_path):
    out = tmp_path / "demo.yaml"
    proc = run_cli("demo", "--framework", "pytorch", "--cache", str(demo_dir), "--write-case", str(out))
    assert proc.returncode == 0, proc.stderr
    from wizard.core.case import Case

    case = Case.from_file(out)
    assert case.training.optimizer == "adam" and case.num_labels is None


class _Terminal:
    """A stdin that says it is a terminal: --no-input must not prompt even there."""

    def isatty(self) -> bool:
        return True


def test_no_input_never_prompts_and_names_what_to_add(tmp_path, monkeypatch, capsys):
    from wizard.frontends.terminal import cli, interactive
    from wizard.core.case import Case
    from wizard.engine.plan import QuestionWalk

    asked: list[str] = []
    monkeypatch.setattr(interactive, "run_interactive", lambda *a, **k: asked.append("walk") or 0)
    monkeypatch.setattr(cli.sys, "stdin", _Terminal())

    def error(*argv: str) -> str:
        assert cli.main(list(argv)) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: ") and len(err.splitlines()) == 1, err
        return err

    assert cli.main(["--out", str(tmp_path / "walk")]) == 0 and asked == ["walk"]  # a terminal: the walk
    err = error("--no-input", "--out", str(tmp_path / "o"))
    assert "--no-input" in err and "check CASE.yaml" in err and "--script" in err
    # an unfinished session: the next question's case field
    walk = QuestionWalk(Case.from_dict({}, validate=False))
    walk.answer("nan-loss")
    walk.answer("pytorch")
    interactive.save_progress(walk, tmp_path / "s")
    err = error("--no-input", "--resume", str(tmp_path / "s"), "--out", str(tmp_path / "o"))
    assert "`model`" in err and "session.yaml" in err
    # a case file missing a required field, with the flag before or after the command
    case = tmp_path / "case.yaml"
    case.write_text("model: m\nsymptom: nan-loss\n")
    for argv in (["--no-input", "check", str(case)], ["check", str(case), "--no-input"]):
        assert "`dataset.path`" in error(*argv, "--out", str(tmp_path / "o"))
    assert asked == ["walk"]  # never prompted
    assert cli.build_parser().parse_args(["check", "x", "--no-input"]).no_input
    assert not cli.build_parser().parse_args(["check", "x"]).no_input


def test_a_label_column_the_dataset_lacks_is_a_finding_not_a_crash(demo_dir, tmp_path):
    """check reports it (exit 1, a report), names the dataset's columns, and the checks that
    need labels are skipped naming it, not a cascade of crashes."""
    from wizard.demo.cases import healthy_case

    case = healthy_case(demo_dir, "pytorch")
    case.dataset.label_column = "category"
    path = tmp_path / "case.yaml"
    path.write_text(case.to_yaml())
    out = tmp_path / "out.json"
    proc = run_cli("check", str(path), "--out", str(tmp_path / "o"), "--json", str(out))
    assert proc.returncode == 1, proc.stderr[-2000:]
    data = json.loads(out.read_text())
    missing = next(f for f in data["findings"] if f["id"] == "data.label-column-missing")
    assert missing["status"] == "fail" and "label" in json.dumps(missing["evidence"])
    assert data["verdict"]["primary"] == "data.label-column-missing"
    assert not [f for f in data["findings"] if f["id"] == "wizard.probe-crashed"]
    skipped = [f for f in data["findings"] if f["id"] == "wizard.step-skipped"]
    assert skipped and all(f["evidence"]["because"] == "data.label-column-missing" for f in skipped)


def test_the_json_written_beside_a_report_is_redacted_like_it(demo_dir, tmp_path):
    from wizard.demo.cases import healthy_case

    key = "0123456789abcdef0123456789abcdef01234567"
    case = healthy_case(demo_dir, "pytorch")
    case.notes = f"wandb key: {key}"
    path = tmp_path / "case.yaml"
    path.write_text(case.to_yaml())
    shared, own = tmp_path / "shared.json", tmp_path / "own.json"
    run_cli("check", str(path), "--out", str(tmp_path / "a"), "--json", str(shared),
            "--report", str(tmp_path / "report"))
    run_cli("check", str(path), "--out", str(tmp_path / "b"), "--json", str(own))
    assert key not in shared.read_text() and "<WANDB_API_KEY>" in shared.read_text()
    assert key in own.read_text()  # the user's own file, not for sharing: kept as it was
    json.loads(shared.read_text())


def test_every_fix_of_the_demo_is_python_that_compiles(demo_dir, tmp_path):
    """Fixes are snippets to paste: each one of the course case's findings compiles."""
    from wizard.demo.cases import course_case

    path = tmp_path / "case.yaml"
    path.write_text(course_case(demo_dir, "pytorch").to_yaml())
    out = tmp_path / "out.json"
    run_cli("check", str(path), "--out", str(tmp_path / "o"), "--json", str(out))
    fixes = [(f["id"], f["fix"]) for f in json.loads(out.read_text())["findings"] if f.get("fix")]
    assert len(fixes) >= 2
    for fid, fix in fixes:
        compile(fix, fid, "exec")


def test_check_reads_an_error_alone_from_a_file_or_stdin(tmp_path):
    """`check --traceback` with no case: the error is read and the environment checked (no
    model, no dataset); the JSON holds the cause and the fix; the verdict says it is unconfirmed."""
    error = tmp_path / "error.txt"
    error.write_text("Hi, my notebook fails:\n```\nValueError: Asking to pad but the tokenizer "
                     "does not have a padding token. Please select a token to use as `pad_token`"
                     "\n```\n")
    out = tmp_path / "out.json"
    proc = run_cli("check", "--traceback", str(error), "--json", str(out), "--out",
                   str(tmp_path / "s"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Fix" in proc.stdout and "pad_token" in proc.stdout    # the cause comes with its fix
    result = json.loads(out.read_text())
    assert result["path"] == ["installation", "triage"]
    assert result["verdict"]["primary"] == "triage.known-error"
    assert "Read from the error alone" in result["verdict"]["summary"]
    known = next(f for f in result["findings"] if f["id"] == "triage.known-error")
    assert known["evidence"]["signature"] == "no-pad-token" and "pad_token" in known["fix"]
    assert not [f for f in result["findings"] if f["id"].startswith("environment.model")]
    # the same from stdin; an empty or missing file is one sentence
    piped = subprocess.run([sys.executable, "-m", "wizard", "check", "--traceback", "-", "--quiet",
                            "--json", str(tmp_path / "p.json"), "--out", str(tmp_path / "s2")],
                           input=error.read_text(), capture_output=True, text=True,
                           cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert piped.returncode == 0, piped.stderr[-2000:]
    assert json.loads((tmp_path / "p.json").read_text())["verdict"]["primary"] == \
        "triage.known-error"
    assert "cannot read" in _bad(run_cli("check", "--traceback", str(tmp_path / "none.txt")))
    (tmp_path / "empty.txt").write_text("  \n")
    assert "is empty" in _bad(run_cli("check", "--traceback", str(tmp_path / "empty.txt")))


def test_a_case_without_model_or_error_names_both_ways(tmp_path):
    case = tmp_path / "case.yaml"
    case.write_text("dataset: {path: d}\n")
    err = _bad(run_cli("check", str(case), "--out", str(tmp_path / "o")))
    assert "`model:`" in err and "`traceback:`" in err


@pytest.mark.parametrize("argv, shown", [(["check", "case.yaml"], False),
                                         (["--debug", "check", "case.yaml"], True)])
def test_library_warnings_stay_off_stderr_unless_debugging(argv, shown, monkeypatch):
    import warnings

    from wizard.frontends.terminal.quiet import quiet_library_warnings

    monkeypatch.setattr(sys, "warnoptions", [])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert quiet_library_warnings(argv) is not shown
        warnings.warn("SOCKS support in urllib3 requires PySocks", ImportWarning)
    assert bool(seen) is shown


def test_explicit_warning_options_are_kept(monkeypatch):
    from wizard.frontends.terminal.quiet import quiet_library_warnings

    monkeypatch.setattr(sys, "warnoptions", ["default"])
    assert quiet_library_warnings(["check", "case.yaml"]) is False
