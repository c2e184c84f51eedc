"""The Gradio app driven through its API with gradio_client: app.py served in a subprocess for
the demo case and bad input, an in-process app for ten concurrent sessions, and the Hub
discussion against a loopback fake of the Hub."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import zipfile
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

pytest.importorskip("gradio")
pytest.importorskip("gradio_client")

from gradio_client import Client  # noqa: E402

from wizard.frontends.app.form import (  # noqa: E402
    FormError,
    answers_from_case,
    case_from_answers,
    form_errors,
    form_questions,
    reachable,
)
from wizard.core.case import Case, CaseError  # noqa: E402
from wizard.engine.plan import QUESTIONS, STEPS  # noqa: E402
from tests.github_server import FakeGitHub  # noqa: E402
from tests.github_server import serve as serve_github  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(url: str, proc: subprocess.Popen | None = None, log: Path | None = None,
                  timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            tail = log.read_text()[-3000:] if log else ""
            raise AssertionError(f"app.py exited with {proc.returncode}:\n{tail}")
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"the app did not answer at {url} within {timeout} s")


def value(v: Any) -> Any:
    """An output's value, whether it came back plain or as an update dict."""
    if isinstance(v, dict) and v.get("__type__") == "update":
        return v.get("value")
    return v


def named(names: list[str], outputs: Any) -> dict[str, Any]:
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    assert len(names) == len(outputs), (names, outputs)
    return dict(zip(names, outputs))


def visible_errors(out: dict[str, Any]) -> dict[str, str]:
    """The error boxes shown, in the page's order (the general box is hidden by its class)."""
    return {k: value(v) for k, v in out.items()
            if k.startswith("error:") and isinstance(v, dict) and v.get("visible")
            and value(v) and "wz-off" not in (v.get("elem_classes") or [])}


@pytest.fixture(scope="module")
def api() -> dict[str, Any]:
    """Endpoint input/output names, from an app built the same way app.py builds it."""
    from wizard.frontends.app.ui import AppConfig, build_app

    return build_app(AppConfig()).wizard_api


@pytest.fixture(scope="module")
def github() -> Iterator[FakeGitHub]:
    """A fake of GitHub's issue search for the served app."""
    yield from serve_github()


@pytest.fixture(scope="module")
def served(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory,
           github: FakeGitHub) -> Iterator[str]:
    """`python app.py` on a free port, its demo button pointed at the test fixtures (and its
    issue searches at the fake GitHub)."""
    tmp = tmp_path_factory.mktemp("served")
    (tmp / "cache").mkdir()
    (tmp / "cache" / demo_dir.name).symlink_to(demo_dir, target_is_directory=True)
    port = free_port()
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
           "WIZARD_CACHE": str(tmp / "cache"), "GRADIO_TEMP_DIR": str(tmp / "gradio"),
           "TMPDIR": str(tmp), "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONPATH": str(ROOT),
           "WIZARD_PROBE_TIMEOUT": "240", "WIZARD_GITHUB_API": github.url}
    log = tmp / "app.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_until_up(url, proc, log)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


# -- the form is the tree -----------------------------------------------------------------------
def test_form_fields_are_the_trees_questions(api: dict[str, Any]) -> None:
    assert api["fields"] == [q.id for q in form_questions()]
    assert set(api["fields"]) == set(QUESTIONS)


def test_fields_show_and_hide_as_the_tree_walks() -> None:
    answers = answers_from_case(Case())
    assert "traceback" not in reachable(answers)          # only asked for symptom "error"
    assert "traceback" in reachable({**answers, "symptom": "error"})
    keras = {**answers, "framework": "tensorflow", "trainer": "keras"}
    assert {"loss", "labels"} <= set(reachable(keras))    # Keras-only questions
    assert "learning_rate" in reachable(keras)            # a Keras script can set it apart too
    assert not {"loss", "labels"} & set(reachable(answers))


def test_trust_question_shows_only_for_a_model_that_ships_code(demo_dir: Path,
                                                              tmp_path: Path) -> None:
    from tests.test_tree import remote_code_model

    from wizard.demo.cases import course_case

    answers = {**answers_from_case(course_case(demo_dir, "pytorch")), "symptom": "not-sure"}
    assert "trust_remote_code" not in reachable(answers)
    remote = {**answers, "model": str(remote_code_model(tmp_path / "remote"))}
    assert "trust_remote_code" in reachable(remote)
    assert case_from_answers(remote).trust_remote_code is False   # never on by default
    assert case_from_answers({**remote, "trust_remote_code": True}).trust_remote_code is True
    assert case_from_answers({**answers, "trust_remote_code": True}).trust_remote_code is False


def test_bad_answers_name_their_field(demo_dir: Path) -> None:
    answers = answers_from_case(Case())
    with pytest.raises(CaseError) as exc:
        case_from_answers({**answers, "model": "m", "dataset": "d", "batch_size": "sixteen"})
    assert exc.value.field_name == "training.batch_size" and "whole number" in str(exc.value)
    with pytest.raises(CaseError) as exc:
        case_from_answers({**answers, "model": "m", "dataset": "d", "trainer": "keras"})
    assert exc.value.field_name == "training.trainer"


def test_every_bad_answer_at_once_in_the_users_words(demo_dir: Path) -> None:
    from wizard.demo.cases import course_case
    from wizard.frontends.app.run import dataset_columns

    good = answers_from_case(course_case(demo_dir, "pytorch"))
    assert form_errors(good, columns=dataset_columns) == []
    bad = {**good, "model": str(demo_dir / "no-such-model"), "num_labels": "three",
           "text_columns": ["premise", "hypothesiz"], "label_column": "labelz",
           "learning_rate": "fast", "optimizer": " "}
    errors = form_errors(bad, columns=dataset_columns)
    assert [e.qid for e in errors] == ["model", "num_labels", "text_columns", "label_column",
                                       "optimizer", "learning_rate"]  # the form's order
    said = {e.qid: e.message for e in errors}
    assert said["model"].endswith("does not exist here; give a folder written by "
                                  "save_pretrained, or a Hub id such as distilbert-base-uncased.")
    assert said["num_labels"] == ("'three' is not a whole number; write it like 3, or leave it "
                                  "empty.")
    assert said["text_columns"].startswith("'hypothesiz' is not in the dataset (its columns: ")
    assert "'labelz' is not in the dataset" in said["label_column"]
    assert said["learning_rate"] == "'fast' is not a number; write it like 5e-5, or leave it empty."
    assert said["optimizer"].startswith("Write the optimizer as your script has it")
    for message in said.values():  # no case-file names, no prompt pasted into a sentence
        assert "`" not in message and "dataset." not in message and "training." not in message
        assert "if you set it" not in message
    missing = form_errors({**good, "dataset": "", "text_columns": []})
    assert [(e.qid, e.message.split(":")[0]) for e in missing] == [
        ("dataset", "Give the dataset"), ("text_columns", "Pick at least one text column")]
    # Keras: the learning rate is asked (and checked) too
    keras = {**good, "framework": "tensorflow", "trainer": "keras", "learning_rate": "-1"}
    assert form_errors(keras) == [FormError("learning_rate", "-1 is not above 0; write it "
                                                             "like 5e-5, or leave it empty.")]
    assert case_from_answers({**keras, "learning_rate": "3e-5"}).training.learning_rate == 3e-5


def test_the_terminal_says_it_as_the_form_does(demo_dir: Path) -> None:
    """One source of the wording: the terminal wizard's re-asked questions and the form's boxes
    carry the same sentences."""
    from wizard.frontends.terminal.interactive import Validation
    from wizard.frontends.terminal.interactive import parse_answer as terminal_answer

    good = answers_from_case(Case())
    for qid, raw in (("batch_size", "sixteen"), ("num_labels", "many"), ("learning_rate", "fast"),
                     ("model", str(demo_dir / "missing")), ("dataset", str(demo_dir / "gone")),
                     ("learning_rate", "0")):
        with pytest.raises(Validation) as said:
            terminal_answer(QUESTIONS[qid], raw, Case(), None)
        answers = {**good, "model": "m", "dataset": "d", qid: raw}
        form = {e.qid: e.message for e in form_errors(answers)}
        assert form[qid] == str(said.value), qid
    with pytest.raises(Validation) as said:
        terminal_answer(QUESTIONS["label_column"], "labelz", Case(), ["premise", "label"])
    assert str(said.value) == ("'labelz' is not in the dataset (its columns: premise, label); "
                               "pick one of those.")


# -- app.py in a subprocess: the demo case and bad input ------------------------------------------
def test_demo_case_full_run(served: str, api: dict[str, Any], tmp_path: Path) -> None:
    client = Client(served, verbose=False, download_files=str(tmp_path))
    filled = named(api["demo"], client.predict(api_name="/demo"))
    assert "built-in demo" in value(filled["demo_note"])
    fields = [value(filled[f"field:{q}"]) for q in api["fields"]]
    answers = dict(zip(api["fields"], fields))
    assert answers["symptom"] == "error" and Path(answers["model"]).name in ("model", "model-tf")
    assert answers["text_columns"] == ["premise", "hypothesis"]

    job = client.submit(*fields, None, api_name="/check")
    out = named(api["check"], job.result(timeout=900))
    assert len(job.outputs()) > 3  # streamed: the log grew while the checks ran
    assert not visible_errors(out)
    result = json.loads(value(out["result"]))
    assert result["verdict"]["kind"] == "user-error"
    fails = {f["id"] for f in result["findings"] if f["status"] == "fail"}
    assert "data.labels-out-of-range" in fails
    assert "user-error" in value(out["verdict"]) and "num_labels" in value(out["verdict"])
    log = value(out["log"])
    for step in result["path"]:
        assert STEPS[step].title in log
    bundle = value(out["bundle"])
    with zipfile.ZipFile(bundle) as zf:
        names = {Path(n).name for n in zf.namelist()}
    assert {"report.md", "report-github.md", "report-forum.md", "report-hub.md", "case.yaml",
            "result.json", "label-balance.png"} <= names

    # a user error: the report is the fix, to keep; nothing to file, so no format or link for it
    report = named(api["report"], client.predict("github", api_name="/report"))
    assert "Labels reach 2" in value(report["text"])
    assert report["format"]["value"] == "markdown"
    assert [c[1] for c in report["format"]["choices"]] == ["markdown"]
    assert "This report is the fix" in value(report["note"])
    links = client.predict(True, "huggingface/transformers", api_name="/share_links")
    assert value(links) == ""
    assert value(client.predict(False, "huggingface/transformers", api_name="/share_links")) == ""


def test_only_a_pasted_error_runs_without_a_model(served: str, api: dict[str, Any],
                                                  github: FakeGitHub, tmp_path: Path) -> None:
    """Symptom error, the error pasted, the model left empty: no other field is asked, nothing
    is flagged, and the run reads the error (its cause and fix) and checks the environment."""
    answers = {**answers_from_case(Case()), "symptom": "error", "model": "",
               "traceback": "ValueError: Asking to pad but the tokenizer does not have a "
                            "padding token. Please select a token to use as `pad_token`"}
    assert "dataset" not in reachable(answers) and "model" in reachable(answers)
    assert form_errors(answers) == []
    assert case_from_answers(answers).error_only
    assert "model" in [e.qid for e in form_errors({**answers, "traceback": ""})]

    client = Client(served, verbose=False, download_files=str(tmp_path))
    job = client.submit(*[answers.get(q) for q in api["fields"]], None, api_name="/check")
    out = named(api["check"], job.result(timeout=600))
    assert not visible_errors(out)
    result = json.loads(value(out["result"]))
    assert result["path"] == ["installation", "triage"]
    assert result["verdict"]["primary"] == "triage.known-error"
    assert "Read from the error alone" in value(out["verdict"])
    known = next(f for f in result["findings"] if f["id"] == "triage.known-error")
    assert "pad_token" in known["fix"]
    assert github.queries == []           # not asked (and a known cause): nothing sent

    # an error no signature knows, and yes to the search: the issues, the solved one linked
    unknown = {**answers, "search_issues": True,
               "traceback": "Traceback (most recent call last):\n  File \"/usr/lib/python3/"
                            "site-packages/transformers/trainer.py\", line 9, in train\n    "
                            "x()\nRuntimeError: The gradient accumulation state went out of "
                            "sync with the scheduler at step 3"}
    assert "search_issues" in reachable(unknown)
    job = client.submit(*[unknown.get(q) for q in api["fields"]], None, api_name="/check")
    out = named(api["check"], job.result(timeout=600))
    result = json.loads(value(out["result"]))
    assert result["path"] == ["installation", "triage", "reported-before"]
    assert '<a href="https://github.com/huggingface/transformers/issues/29876"' in \
        value(out["verdict"])
    assert len(github.queries) == 1 and "repo:huggingface/transformers" in github.queries[0]["q"]


def test_bad_input_shows_every_sentence_next_to_its_field(served: str, api: dict[str, Any],
                                                           demo_dir: Path, tmp_path: Path) -> None:
    from wizard.demo.cases import course_case

    client = Client(served, verbose=False)
    answers = answers_from_case(course_case(demo_dir, "pytorch"))

    def check(**changes: Any) -> dict[str, Any]:
        fields = [{**answers, **changes}[q] for q in api["fields"]]
        return named(api["check"], client.submit(*fields, None, api_name="/check").result(timeout=120))

    missing = check(model=str(demo_dir / "no-such-model"))
    assert list(visible_errors(missing)) == ["error:model", "error:general"]
    message = visible_errors(missing)["error:model"]
    assert "does not exist here" in message and "Traceback" not in message
    assert message.count(". ") == 0 and len(message) < 300  # one sentence
    assert "1 answer above needs a fix" in visible_errors(missing)["error:general"]

    # several wrong answers: all of them at once, in the form's order, each in its field's box
    many = check(label_column="labelz", learning_rate="fast", num_labels="three", dataset="")
    shown = visible_errors(many)
    assert list(shown) == ["error:num_labels", "error:dataset", "error:learning_rate",
                           "error:general"]
    assert "Give the dataset" in shown["error:dataset"] and "not a number" in shown[
        "error:learning_rate"]
    assert shown["error:general"].endswith("num_labels, Dataset, Learning rate.")

    column = check(label_column="labelz")
    assert list(visible_errors(column)) == ["error:label_column", "error:general"]
    assert "'labelz' is not in the dataset" in visible_errors(column)["error:label_column"]

    columns = client.predict(str(demo_dir / "dataset"), "", [], None, api_name="/columns")
    picked = [value(c) for c in columns[:2]]
    assert set(columns[0]["choices"][i][0] for i in range(len(columns[0]["choices"]))) >= {
        "premise", "hypothesis", "label"}
    assert picked[1] == "label"
    bad = client.predict(str(demo_dir / "nowhere"), "", [], None, api_name="/columns")
    assert value(bad[2]) and "Traceback" not in value(bad[2])

    from gradio_client import handle_file

    case_file = tmp_path / "case.yaml"
    case_file.write_text(course_case(demo_dir, "pytorch").to_yaml())
    loaded = named(api["demo"], client.predict(handle_file(str(case_file)), api_name="/load_case"))
    assert value(loaded["field:model"]) == str(demo_dir / "model")
    assert value(loaded["field:text_columns"]) == ["premise", "hypothesis"]
    case_file.write_text("model: [unclosed\n")
    broken = named(api["demo"], client.predict(handle_file(str(case_file)), api_name="/load_case"))
    assert "not valid YAML" in visible_errors(broken)["error:general"]


# -- the user's own script, read statically (issue 10) ----------------------------------------------
TRAINER_SCRIPT = """\
import sys
from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments
from datasets import load_dataset
checkpoint = sys.argv[1]
ds = load_dataset("imdb").map(lambda ex: tokenizer(ex["text"]), batched=True)
names = ds["train"].features["label"].names
model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=len(names))
Trainer(model=model, args=TrainingArguments("o"), train_dataset=ds["train"]).train()
"""


def test_pasted_script_fills_the_form(served: str, api: dict[str, Any], tmp_path: Path) -> None:
    from gradio_client import handle_file

    from wizard.script.reader import course_script_path

    client = Client(served, verbose=False)
    course = course_script_path().read_text()  # the course's TF script, verbatim
    answers = {**answers_from_case(Case()), "symptom": "error",
               "traceback": "InvalidArgumentError: Received a label value of 2"}
    fields = [answers[q] for q in api["fields"]]
    out = named(api["read_script"], client.predict(course, *fields, api_name="/read_script"))
    assert not visible_errors(out)
    got = {q: value(out[f"field:{q}"]) for q in api["fields"]}
    assert (got["model"], got["framework"], got["trainer"]) == ("distilbert-base-uncased",
                                                                "tensorflow", "keras")
    assert (got["dataset"], got["dataset_config"]) == ("glue", "mnli")
    assert got["text_columns"] == ["premise", "hypothesis"] and got["label_column"] == "label"
    assert (got["optimizer"], got["loss"], got["labels"], got["batch_size"]) == (
        "adam", "sparse_categorical_crossentropy", "inputs", 16)
    # what a script does not say stays as the user gave it
    assert got["symptom"] == "error" and got["traceback"] == answers["traceback"]
    note = value(out["script_note"])
    assert "never run" in note and "Fill in" not in note  # the course script is read completely
    assert "data.labels-in-inputs-with-keras-loss" in note and "(line 20)" in note
    assert "hyperparameters.learning-rate-too-high" in note and "(line 30)" in note

    # the checks then carry the script's findings, each with its line (the model id cannot be
    # reached offline, so the run stops after the environment step)
    filled = [got[q] for q in api["fields"]]
    job = client.submit(*filled, None, api_name="/check")
    checked = named(api["check"], job.result(timeout=300))
    result = json.loads(value(checked["result"]))
    by_id = {f["id"]: f for f in result["findings"]}
    assert by_id["script.read"]["status"] == "info"
    assert by_id["data.labels-in-inputs-with-keras-loss"]["evidence"]["line"] == 20
    assert by_id["hyperparameters.learning-rate-too-high"]["status"] == "fail"
    assert result["case"]["training"]["optimizer"] == "adam"

    # values computed at run time: one note naming them, with their lines
    partial = named(api["read_script"], client.predict(TRAINER_SCRIPT, *filled,
                                                       api_name="/read_script"))
    note = value(partial["script_note"])
    assert "Fill in 2 values" in note and "**Model** (line 4: `checkpoint = sys.argv[1]`)" in note
    assert "num_labels" in note and "line 6" in note
    assert value(partial["field:model"]) == "" and value(partial["field:trainer"]) == "trainer"
    assert "script.no-truncation" in note  # a static finding of this script, with its line

    # an uploaded .py file lands in the box and fills the form the same way
    script = tmp_path / "train.py"
    script.write_text(course)
    current = [value(partial[f"field:{q}"]) for q in api["fields"]]  # what the page shows now
    uploaded = named(api["load_script"], client.predict(handle_file(str(script)), *current,
                                                        api_name="/load_script"))
    assert value(uploaded["script"]).rstrip("\n") == course.rstrip("\n")
    assert value(uploaded["field:model"]) == "distilbert-base-uncased"
    assert "train.py" in value(uploaded["script_note"])


@pytest.mark.parametrize("text, needle", [
    ("import os\nmodel.fit(\n", "syntax error at line 2"),
    ("print('hello')\n", "No training code was found"),
    ("   \n", "Paste a training script first"),
])
def test_unreadable_script_is_one_sentence(served: str, api: dict[str, Any], text: str,
                                           needle: str) -> None:
    client = Client(served, verbose=False)
    fields = [answers_from_case(Case())[q] for q in api["fields"]]
    out = named(api["read_script"], client.predict(text, *fields, api_name="/read_script"))
    errors = visible_errors(out)
    assert set(errors) == {"error:script"}
    message = errors["error:script"]
    assert needle in message and "Traceback" not in message and "\n" not in message
    assert message.rstrip(".").count(". ") == 0  # one sentence
    assert not value(out["script_note"])  # the form is left as it was


# -- the report step's reproduction script (issue 7) -----------------------------------------------
def _repro_result(case: Case) -> dict[str, Any]:
    """A library-bug result whose report.reproduction finding is the engine's own: a script
    rendered by wizard.evidence.repro, with its evidence, as Session.run() would return it."""
    import numpy as np

    from wizard.evidence.repro import (Attempt, Failure, ModelSpec, Reproduction, render_script,
                               select_inputs, tiny_config)
    from wizard.core.findings import Finding, Verdict
    from wizard.engine.session import Result

    failure = Failure("raise", "pytorch", "RuntimeError: boom in attention", error="RuntimeError: "
                      "boom in attention", package="transformers")
    model = ModelSpec(True, "distilbert", tiny_config({"model_type": "distilbert", "dim": 768}),
                      checkpoint="org/model", kwargs={"num_labels": 3})
    inputs = select_inputs({"input_ids": np.array([[2, 5, 3]]),
                            "attention_mask": np.array([[1, 1, 1]])}, np.array([2]), [0])
    repro = Reproduction(failure, True, render_script("pytorch", failure, model, inputs), model,
                         inputs, output="RuntimeError: boom in attention",
                         attempts=[Attempt(1, 3, "tiny", True, "same error", 1.0)])
    found = Finding("report.reproduction", "warn", "Reproduced in a standalone script",
                    evidence=repro.evidence(), explanation="Run it with `python repro.py`.",
                    fix=repro.script)
    verdict = Verdict("library-bug", "report.reproduction", "A bug inside transformers.")
    return Result(case, {}, "cpu", ["environment", "report"], [found], verdict).to_dict()


@pytest.fixture
def scripted_app(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[tuple[str, list]]:
    """The app in this process, its checks replaced by a runner that returns a prepared result
    (the last one queued) and records how it was called."""
    from wizard.frontends.app import run as app_run
    from wizard.frontends.app.ui import AppConfig, build_app, launch_kwargs

    calls: list[dict[str, Any]] = []
    results: list[Any] = []

    def runner(case_dict: dict[str, Any], *args: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
        calls.append({"case": case_dict, "args": args, **kwargs})
        yield {"kind": "step", "id": "environment", "title": "Your environment", "why": ""}
        yield {"kind": "result", "result": results[-1](Case.from_dict(case_dict))}

    monkeypatch.setattr(app_run, "run_events", runner)
    config = AppConfig(work_dir=tmp_path / "sessions", oauth=False)
    demo = build_app(config)
    port = free_port()
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True,
                        quiet=True, **launch_kwargs(config))
    try:
        yield f"http://127.0.0.1:{port}/", results
    finally:
        demo.close()


def test_report_shows_the_reproduction_script(scripted_app: tuple[str, list], api: dict[str, Any],
                                              demo_dir: Path, tmp_path: Path) -> None:
    from wizard.demo.cases import course_case

    url, results = scripted_app
    client = Client(url, verbose=False, download_files=str(tmp_path))
    fields = [answers_from_case(course_case(demo_dir, "pytorch"))[q] for q in api["fields"]]
    results.append(_repro_result)
    out = named(api["check"], client.submit(*fields, None, api_name="/check").result(timeout=120))
    assert "library-bug" in value(out["verdict"])
    report = named(api["report"], client.predict("github", api_name="/report"))
    script = value(report["repro"])
    expected = _repro_result(course_case(demo_dir, "pytorch"))["findings"][0]["fix"]
    assert script.strip() == expected.strip() and "boom in attention" in script
    compile(script, "repro.py", "exec")  # standalone Python, as shown
    downloaded = value(report["repro_file"])
    assert Path(downloaded).name == "repro.py"
    assert Path(downloaded).read_text().strip() == script.strip()  # what the page shows
    assert "```python" in value(report["text"])  # the issue text carries it too
    assert value(report["github_repo"]) == "huggingface/transformers"  # the blamed library's
    # a library bug: every format, and the links once the text is read
    assert report["format"]["value"] == "github"
    assert [c[1] for c in report["format"]["choices"]] == ["markdown", "github", "forum", "hub"]
    links = value(client.predict(True, "huggingface/transformers", api_name="/share_links"))
    assert "https://github.com/huggingface/transformers/issues/new?title=" in links
    assert "https://discuss.huggingface.co/new-topic?title=" in links
    assert "local folder" in links and "prefilled link above" not in links  # no Hub page

    # a result without a reproduction shows none
    def no_repro(case: Case) -> dict[str, Any]:
        data = _repro_result(case)
        data["findings"] = [{**data["findings"][0], "fix": "", "evidence": {"verified": False}}]
        return data

    results.append(no_repro)
    client.submit(*fields, None, api_name="/check").result(timeout=120)
    report = named(api["report"], client.predict("github", api_name="/report"))
    assert not value(report["repro"]) and not value(report["repro_file"])


# -- ten sessions at once --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def quick_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app in this process, walking only the steps that need no model (fast sessions)."""
    from wizard.frontends.app.ui import AppConfig, build_app, launch_kwargs

    config = AppConfig(steps=("environment", "triage", "curves"), concurrency=4,
                       work_dir=tmp_path_factory.mktemp("sessions"))
    demo = build_app(config)
    port = free_port()
    demo.queue(default_concurrency_limit=config.concurrency).launch(
        server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
        **launch_kwargs(config))
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        demo.close()


def test_ten_concurrent_sessions_keep_their_state(quick_app: str, api: dict[str, Any],
                                                  demo_dir: Path, tmp_path: Path) -> None:
    from wizard.demo.cases import course_case

    from gradio_client import handle_file

    base = answers_from_case(course_case(demo_dir, "pytorch"))
    barrier = threading.Barrier(10)
    logs = tmp_path / "trainer_state.json"  # session 0 uploads logs whose eval loss rises
    history = [{"step": s, "epoch": s / 10, "loss": 2.0 - 0.15 * s} for s in range(1, 11)]
    history += [{"step": s, "epoch": s / 10, "eval_loss": 1.0 + 0.1 * max(0, s - 4) ** 1.5}
                for s in range(1, 11)]
    logs.write_text(json.dumps({"log_history": history}))

    def session(i: int) -> tuple[int, dict[str, Any], str]:
        client = Client(quick_app, verbose=False)
        answers = {**base, "batch_size": 8 + i, "optimizer": f"Adam(learning_rate={i + 1}e-5)",
                   "traceback": f"IndexError: Target {i + 3} is out of bounds."}
        fields = [answers[q] for q in api["fields"]]
        upload = [handle_file(str(logs))] if i == 0 else None
        barrier.wait(timeout=60)  # all ten press "Run the checks" together
        out = named(api["check"], client.submit(*fields, upload, api_name="/check").result(timeout=300))
        report = named(api["report"], client.predict("markdown", api_name="/report"))
        return i, json.loads(value(out["result"])), value(report["text"])

    with ThreadPoolExecutor(10) as pool:
        results = list(pool.map(session, range(10)))
    bundles = set()
    for i, result, report in results:
        case = result["case"]
        assert case["training"]["batch_size"] == 8 + i
        assert case["training"]["optimizer"] == f"Adam(learning_rate={i + 1}e-5)"
        assert case["traceback"] == f"IndexError: Target {i + 3} is out of bounds."
        assert f"Target {i + 3} is out of bounds" in report
        assert all(f"Target {j + 3} is out" not in report for j in range(10) if j != i)
        curves = {f["id"] for f in result["findings"] if f["id"].startswith("curves.")}
        if i == 0:  # the uploaded logs went to this session only
            assert result["path"] == ["environment", "triage", "curves"]
            assert Path(case["logs"]).name == "trainer_state.json"
            assert "curves.overfitting" in curves
        else:
            assert result["path"] == ["environment", "triage"] and not curves
            assert case["logs"] is None
        bundles.add(json.dumps(result["case"], sort_keys=True))
    assert len(bundles) == 10


# -- the Hub discussion: the user's own token, never the machine's ---------------------------------
class _FakeDiscussions(BaseHTTPRequestHandler):
    requests: list[dict[str, Any]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, code: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        self.requests.append({"path": self.path, "auth": self.headers.get("authorization"),
                              "body": body})
        if self.headers.get("authorization") != "Bearer hf_userOAuthToken1234567890":
            self._send(401, {"error": "Invalid credentials"})
            return
        self._send(200, {"num": 7})

    def do_GET(self) -> None:
        repo = self.path.split("/api/models/")[1].split("/discussions")[0]
        self._send(200, {"title": "t", "num": 7, "author": {"name": "a-user"},
                         "createdAt": "2025-01-01T00:00:00.000Z", "status": "open",
                         "repo": {"name": repo, "type": "model"}, "isPullRequest": False,
                         "events": [], "changes": {}})


@pytest.fixture
def fake_hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    from wizard.hub.connection import is_offline, set_offline

    _FakeDiscussions.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeDiscussions)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("HF_ENDPOINT", url)
    monkeypatch.setenv("HF_TOKEN", "hf_spaceOwnerSecret1234567890")  # must never be used
    was_offline = is_offline()
    set_offline(False)
    try:
        yield url
    finally:
        set_offline(was_offline)
        server.shutdown()


def _state(model: str) -> dict[str, Any]:
    result = {"case": {"model": model, "framework": "pytorch"},
              "verdict": {"kind": "library-bug", "summary": "A bug."},
              "findings": [{"id": "triage.possible-library-bug", "status": "warn",
                            "title": "The error comes from inside transformers"}]}
    return {"result": result, "texts": {"hub": "The full report, as read by the user."}}


class _Token:
    token = "hf_userOAuthToken1234567890"


def test_discussion_is_opened_with_the_users_token(fake_hub: str) -> None:
    from wizard.frontends.app.ui import open_discussion

    message = open_discussion(_state("someone/tiny-model"), True, _Token())
    assert message.startswith("Opened:") and "someone/tiny-model/discussions/7" in message
    (request,) = _FakeDiscussions.requests
    assert request["path"] == "/api/models/someone/tiny-model/discussions"
    assert request["auth"] == "Bearer hf_userOAuthToken1234567890"
    assert request["body"]["description"] == "The full report, as read by the user."
    assert "inside transformers" in request["body"]["title"]


def test_discussion_needs_sign_in_and_the_tick(fake_hub: str) -> None:
    from wizard.frontends.app.ui import open_discussion

    assert "Sign in" in open_discussion(_state("someone/tiny-model"), True, None)
    assert "tick the box" in open_discussion(_state("someone/tiny-model"), False, _Token())
    assert "local folder" in open_discussion(_state("/data/my-model"), True, _Token())
    assert _FakeDiscussions.requests == []  # nothing sent, least of all with HF_TOKEN


def test_sign_in_only_in_a_space_with_oauth(monkeypatch: pytest.MonkeyPatch) -> None:
    import gradio as gr

    from wizard.frontends.app.ui import AppConfig, build_app

    for var in ("SPACE_ID", "OAUTH_CLIENT_ID"):
        monkeypatch.delenv(var, raising=False)
    assert not AppConfig().oauth_enabled  # locally: the prefilled link instead
    monkeypatch.setenv("SPACE_ID", "someone/hf-debug-wizard")
    assert not AppConfig().oauth_enabled  # a Space without hf_oauth
    monkeypatch.setenv("OAUTH_CLIENT_ID", "client-id")
    assert AppConfig().oauth_enabled
    demo = build_app(AppConfig(oauth=False))
    assert not any(isinstance(b, gr.LoginButton) for b in demo.blocks.values())
    assert "discussion" not in demo.wizard_api  # no endpoint that could post without sign-in


# -- the user's token for the Hub lookups of their own run (issue 9) -------------------------------
USER_TOKEN = "hf_userOAuthToken1234567890"
OWNER_TOKEN = "hf_spaceOwnerSecret1234567890"


@pytest.fixture
def private_hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    """A loopback fake Hub with a private model and dataset only the user's token can read; the
    machine's HF_TOKEN (the Space owner's) is set and must never be what a user's run sends."""
    from tests.hub_server import FakeHub
    from tests.test_hub import N_PARAMS, TRAIN, VALID, model_files
    from wizard.hub.connection import is_offline, set_offline

    fake = FakeHub()
    fake.add_model("someone/private-bert", model_files(), private=True, owners={USER_TOKEN},
                   safetensors={"parameters": {"F32": N_PARAMS}, "total": N_PARAMS})
    fake.add_dataset("someone/private-ds", {"train": TRAIN, "validation": VALID}, private=True,
                     owners={USER_TOKEN})
    with fake:
        for name, val in {"HF_ENDPOINT": fake.url, "WIZARD_VIEWER_URL": fake.viewer_url,
                          "HF_TOKEN": OWNER_TOKEN, "HF_HUB_CACHE": str(tmp_path / "hub"),
                          "HF_DATASETS_CACHE": str(tmp_path / "datasets"),
                          "HF_TOKEN_PATH": str(tmp_path / "token")}.items():
            monkeypatch.setenv(name, val)
        (tmp_path / "token").write_text(OWNER_TOKEN)  # a saved login, the owner's too
        was_offline = is_offline()
        set_offline(False)
        try:
            yield fake
        finally:
            set_offline(was_offline)


def _private_case() -> Case:
    return Case.from_dict({"model": "someone/private-bert", "framework": "pytorch",
                           "dataset": {"path": "someone/private-ds", "eval_split": "validation",
                                       "text_columns": ["premise", "hypothesis"],
                                       "label_column": "label"}})


def test_users_token_reaches_their_run_and_nothing_saved(private_hub: Any, tmp_path: Path) -> None:
    from wizard.frontends.app.run import run_events, write_bundle

    autosave = tmp_path / "run" / "session.json"
    events = list(run_events(_private_case().to_dict(), "cpu", 240.0, ("environment", "data"),
                             autosave=str(autosave), hub_token=USER_TOKEN))
    assert events[-1]["kind"] == "result", events[-1]
    result = events[-1]["result"]
    by_id = {f["id"]: f for f in result["findings"]}
    # the Hub probe resolved both private repos with the user's login ...
    assert by_id["environment.model-source"]["evidence"]["token"] == "oauth"
    assert by_id["environment.dataset-source"]["evidence"]["token"] == "oauth"
    # ... and the probe worker read the private dataset's rows with it too
    assert by_id["data.label-column-missing"]["status"] == "pass"
    assert "3 classes" in by_id["data.label-balance"]["title"]
    assert private_hub.paths_requested("/datasets/someone/private-ds/resolve/")
    # the token is in nothing the run keeps or shares
    bundle = write_bundle(result, tmp_path / "run" / "report")
    kept = [json.dumps(events), autosave.read_text(), yaml_dump(result["case"])]
    kept += [p.read_text(errors="replace") for p in (tmp_path / "run" / "report").rglob("*")
             if p.is_file() and p.suffix in (".md", ".json", ".yaml", ".py")]
    with zipfile.ZipFile(bundle) as zf:
        kept += [zf.read(n).decode(errors="replace") for n in zf.namelist()]
    assert all(USER_TOKEN not in text and OWNER_TOKEN not in text for text in kept)


def test_signed_out_run_in_a_space_sends_no_token(private_hub: Any) -> None:
    from wizard.frontends.app.run import run_events

    events = list(run_events(_private_case().to_dict(), "cpu", 120.0, ("environment",),
                             isolated=True))
    result = events[-1]["result"]
    fails = {(f["id"], f["title"]) for f in result["findings"] if f["status"] == "fail"}
    # "needs a token" (401: none was sent), not "not found" (what the owner's token would get)
    assert fails == {("environment.hub-auth-required", "Model someone/private-bert needs a token"),
                     ("environment.hub-auth-required", "Dataset someone/private-ds needs a token")}
    assert not any(authorized for _, _, authorized in private_hub.log)


def yaml_dump(data: dict[str, Any]) -> str:
    import yaml

    return yaml.safe_dump(data)


def test_app_passes_the_signed_in_users_token_to_the_run(monkeypatch: pytest.MonkeyPatch,
                                                         demo_dir: Path, tmp_path: Path) -> None:
    """With sign-in on, gradio hands the check its user's OAuthToken; the run gets that token
    (in a process of its own) and the session's state and result never hold it."""
    import types

    import gradio as gr
    from gradio import helpers, routes

    from wizard.frontends.app import run as app_run
    from wizard.frontends.app.ui import AppConfig, build_app
    from wizard.demo.cases import course_case

    calls: list[dict[str, Any]] = []

    def runner(case_dict: dict[str, Any], *args: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
        calls.append(kwargs)
        yield {"kind": "result", "result": _repro_result(Case.from_dict(case_dict))}

    monkeypatch.setattr(app_run, "run_events", runner)
    monkeypatch.setattr(routes, "attach_oauth", lambda app: None)  # gradio[oauth] not needed
    demo = build_app(AppConfig(oauth=True, work_dir=tmp_path))
    assert sum(isinstance(b, gr.LoginButton) for b in demo.blocks.values()) == 2  # setup, share
    check = next(f for f in demo.fns.values() if f.api_name == "check")
    fields = [answers_from_case(course_case(demo_dir, "pytorch"))[q.id] for q in form_questions()]
    session = {"oauth_info": {"access_token": USER_TOKEN, "scope": "openid inference-api",
                              "expires_at": int(time.time()) + 3600}}
    inputs, progress_at, *_ = helpers.special_args(check.fn, [{}, *fields, None],
                                                   request=types.SimpleNamespace(session=session))
    assert getattr(inputs[1], "token", None) == USER_TOKEN  # where gradio puts the user's token
    assert progress_at == 2 and check.tracks_progress    # the progress bar reaches the run
    plain = next(f for f in build_app(AppConfig(work_dir=tmp_path)).fns.values()
                 if f.api_name == "check")
    assert helpers.special_args(plain.fn, [{}, *fields, None])[1] == 1 and plain.tracks_progress
    outputs = list(check.fn(*inputs))
    assert calls == [{"autosave": calls[0]["autosave"], "hub_token": USER_TOKEN, "isolated": True}]
    assert "library-bug" in str(outputs[-1])
    assert all(USER_TOKEN not in json.dumps(o, default=str) for out in outputs for o in out
               if isinstance(o, (dict, str)))
    # not signed in: the run is still isolated, with no token at all
    inputs, *_ = helpers.special_args(check.fn, [{}, *fields, None],
                                      request=types.SimpleNamespace(session={}))
    list(check.fn(*inputs))
    assert calls[-1]["hub_token"] is None and calls[-1]["isolated"] is True


# -- ZeroGPU and the Space folder ------------------------------------------------------------------
def test_zero_gpu_runs_the_checks_under_spaces_gpu(monkeypatch: pytest.MonkeyPatch,
                                                   demo_dir: Path) -> None:
    import types

    from wizard.frontends.app.run import gpu_runner, run_events
    from wizard.demo.cases import course_case

    assert gpu_runner() is run_events  # no ZeroGPU: the plain function, no `spaces` import
    calls: list[int] = []

    def gpu(duration: int = 60) -> Any:
        def decorate(fn: Any) -> Any:
            def on_gpu(*args: Any, **kwargs: Any) -> Any:
                calls.append(duration)
                yield from fn(*args, **kwargs)
            return on_gpu
        return decorate

    monkeypatch.setitem(sys.modules, "spaces", types.SimpleNamespace(GPU=gpu))
    monkeypatch.setenv("SPACES_ZERO_GPU", "true")
    runner = gpu_runner(77)
    case = course_case(demo_dir, "pytorch")
    events = list(runner(case.to_dict(), "auto", 60.0, ("environment", "triage")))
    assert calls == [77]
    assert events[-1]["kind"] == "result"
    assert events[-1]["result"]["path"] == ["environment", "triage"]
    bad = Case.from_dict({**case.to_dict(), "model": str(demo_dir / "missing")})
    (error,) = list(runner(bad.to_dict(), "auto", 60.0, ("environment",)))
    assert error["kind"] == "case-error" and error["field"] == "model"


def test_build_space_assembles_a_deployable_folder(tmp_path: Path) -> None:
    import yaml

    out = tmp_path / "space"
    proc = subprocess.run(["bash", "scripts/build_space.sh", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    readme = (out / "README.md").read_text(encoding="utf-8")
    front = yaml.safe_load(readme.split("---\n")[1])
    assert front["sdk"] == "gradio" and front["app_file"] == "app.py"
    assert str(front["python_version"]) == "3.11" and front["suggested_hardware"]
    assert front["hf_oauth"] is True and "write-discussions" in front["hf_oauth_scopes"]
    assert len(front["short_description"]) <= 60
    for path in ("app.py", "requirements.txt", "wizard/frontends/app/ui.py", "wizard/engine/plan.py",
                 "wizard/reports/render.py", "wizard/reports/links.py",
                 "wizard/reports/templates/github.md.j2"):
        assert (out / path).is_file(), path
    assert not (out / "tests").exists() and not list(out.rglob("__pycache__"))
    assert "spaces" in (out / "requirements.txt").read_text().split()
    # the folder stands on its own: its own engine and templates, not the checkout's
    code = ("import sys; sys.path.insert(0, '.'); import wizard.frontends.app.ui as ui, wizard.reports.jinja as r; "
            "print(ui.__file__); print(r.template_dirs()[0])")
    proc = subprocess.run([sys.executable, "-c", code], cwd=out, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": ""}, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert all(line.startswith(str(out)) for line in proc.stdout.split()), proc.stdout


def test_a_page_that_lost_the_runs_last_update_gets_it_from_the_tick(
        monkeypatch: pytest.MonkeyPatch, demo_dir: Path, tmp_path: Path) -> None:
    """A busy machine can make a run's stream drop its last updates: the page then shows the run
    going forever. The run keeps its last update in its folder, and the page's direct tick sends
    it again; the tick is armed only while the page's state says a run is going."""
    import gradio as gr
    from gradio import helpers

    from wizard.demo.cases import course_case
    from wizard.frontends.app import run as app_run
    from wizard.frontends.app.ui import AppConfig, build_app

    def runner(case_dict: dict[str, Any], *args: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
        yield {"kind": "step", "id": "environment", "title": "Your environment", "why": ""}
        yield {"kind": "result", "result": _repro_result(Case.from_dict(case_dict))}

    monkeypatch.setattr(app_run, "run_events", runner)
    demo = build_app(AppConfig(work_dir=tmp_path, oauth=False))
    check = next(f for f in demo.fns.values() if f.api_name == "check")
    tick = next(f for f in demo.fns.values() if getattr(f.fn, "__name__", "") == "recover")
    arm = next(f for f in demo.fns.values() if f.fn is not None and f.fn.__name__ == "<lambda>"
               and [type(b).__name__ for b in f.outputs] == ["Timer"])
    assert not tick.queue and not arm.queue  # answered directly, never on the run's stream
    fields = [answers_from_case(course_case(demo_dir, "pytorch"))[q.id] for q in form_questions()]
    inputs, *_ = helpers.special_args(check.fn, [{}, *fields, None])
    updates = list(check.fn(*inputs))
    first, last = updates[0], updates[-1]
    going = first[1]                         # the state the page keeps if the rest is lost
    assert going["running"] is True and arm.fn(going).active is True
    assert arm.fn(last[1]).active is False   # the last update disarms it

    recovered = tick.fn(going)
    assert isinstance(recovered[-1], gr.Timer) and recovered[-1].active is False
    assert recovered[0].selected == 3        # the verdict step, as the stream's last update
    assert recovered[1]["result"] == last[1]["result"] and recovered[1]["running"] is False
    assert recovered[8:-3] == last[8:-2]     # the note, log, verdict, table and JSON: the same
    assert recovered[-3].value == last[-2].value and recovered[-3].interactive  # the bundle
    # the run goes on (nothing kept yet): nothing to send, the tick stays armed
    waiting = tick.fn({**going, "runs": going["runs"] + 1})
    assert waiting[-1].active is True and all(u == gr.skip() for u in waiting[:-1])
    # a page that got everything: the tick stops without sending anything
    assert tick.fn(last[1])[-1].active is False
    # a new run in the same folder never gets an earlier run's last update
    again = list(check.fn(*helpers.special_args(check.fn, [last[1], *fields, None])[0]))
    assert again[0][1]["runs"] == going["runs"] + 1 and tick.fn(again[-1][1])[-1].active is False


def test_a_run_that_stops_on_a_surprise_disarms_the_tick(
        monkeypatch: pytest.MonkeyPatch, demo_dir: Path, tmp_path: Path) -> None:
    """An unexpected exception ends the run with one sentence, and the page's state says the
    run is over, so the recovery tick stops instead of polling forever."""
    from gradio import helpers

    from wizard.demo.cases import course_case
    from wizard.frontends.app import run as app_run
    from wizard.frontends.app.ui import AppConfig, build_app

    def runner(case_dict: dict[str, Any], *args: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
        yield {"kind": "step", "id": "environment", "title": "Your environment", "why": ""}
        raise RuntimeError("the engine broke")

    monkeypatch.setattr(app_run, "run_events", runner)
    demo = build_app(AppConfig(work_dir=tmp_path, oauth=False))
    check = next(f for f in demo.fns.values() if f.api_name == "check")
    arm = next(f for f in demo.fns.values() if f.fn is not None and f.fn.__name__ == "<lambda>"
               and [type(b).__name__ for b in f.outputs] == ["Timer"])
    fields = [answers_from_case(course_case(demo_dir, "pytorch"))[q.id] for q in form_questions()]
    updates = list(check.fn(*helpers.special_args(check.fn, [{}, *fields, None])[0]))
    assert updates[0][1]["running"] is True
    stopped = updates[-1]
    assert "the engine broke" in str(stopped) and stopped[1]["running"] is False
    assert arm.fn(stopped[1]).active is False
