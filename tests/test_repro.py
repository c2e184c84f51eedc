"""The minimal reproduction, the differential run and the newer-release check.

Unit tests of the pieces (error signatures, tiny configs, inputs, rendering, the release check
against a local PEP 503 index), then the issue's end-to-end test: a fault injected inside
transformers (tests/library_fault.py: in the CLI, its worker and every script they start) on
the otherwise healthy demo case gives verdict library-bug and a report whose repro.py, run
here in a fresh interpreter, fails the same way; without the fault the same script says it
did not reproduce.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from wizard.evidence.release import check_newer_release
from wizard.evidence.repro import (NAN_MESSAGE, Failure, ModelSpec, Outcome, check_outcome, candidates,
                           render_script, reproduce, select_inputs, tiny_config)
from wizard.triage.messages import error_signature, normalise_message
from tests.conftest import HAS_TF
from tests.helpers import run_cli
from tests.github_server import serve as serve_github
from tests.library_fault import RAISE_MESSAGE, install
from wizard.demo.cases import healthy_case

UNREACHABLE_INDEX = "http://127.0.0.1:9/simple"


# -- error signatures -------------------------------------------------------------------------
def _tb(message: str, exc: str = "RuntimeError", path: str = "/a/site-packages/x.py") -> str:
    return (f'Traceback (most recent call last):\n  File "{path}", line 3, in f\n    g()\n'
            f"{exc}: {message}\n")


def test_error_signature_ignores_what_changes_between_runs():
    a = error_signature(_tb("shape [16, 24, 32] at 0x7f3a2b1c in /home/u/run/x.py"))
    b = error_signature(_tb("shape [1, 19, 32] at 0x55aa00 in /tmp/y/z.py", path="/b/q.py"))
    assert a == b == "RuntimeError: shape [N, N, N] at <addr> in <path>"
    assert error_signature(_tb("another message")) != a
    assert error_signature(_tb("shape [1]", exc="ValueError")) != error_signature(_tb("shape [1]"))
    assert error_signature("no traceback here") is None


def test_keras_wrapper_is_reduced_to_the_error_inside():
    wrapped = ("Exception encountered when calling layer 'ffn' (type TFFFN).\n\n"
               f"{RAISE_MESSAGE}\n\nCall arguments received by layer 'ffn' (type TFFFN):\n"
               "  • input=tf.Tensor(shape=(16, 24, 32), dtype=float32)")
    assert normalise_message(wrapped) == RAISE_MESSAGE
    assert error_signature(_tb(wrapped)) == f"RuntimeError: {RAISE_MESSAGE}"


# -- the model: tiny config -------------------------------------------------------------------
BERT = {"model_type": "bert", "vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12,
        "num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 512,
        "id2label": {0: "a", 1: "b", 2: "c"}, "architectures": ["BertModel"],
        "_name_or_path": "/home/someone/bert", "transformers_version": "4.57.6"}
LLAMA = {"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096,
         "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
         "intermediate_size": 11008, "head_dim": 128, "pad_token_id": 0,
         "layer_types": ["full_attention"] * 32}


def test_tiny_config_shrinks_the_sizes_and_keeps_the_rest():
    kw = tiny_config(BERT)
    assert (kw["hidden_size"], kw["num_hidden_layers"], kw["num_attention_heads"],
            kw["intermediate_size"]) == (32, 2, 2, 64)
    assert kw["vocab_size"] == 30522 and kw["num_labels"] == 3  # token ids stay valid
    assert not {"architectures", "_name_or_path", "transformers_version", "model_type",
                "id2label"} & set(kw)
    kw = tiny_config(LLAMA)
    assert kw["num_key_value_heads"] == 1 and kw["head_dim"] == 16  # grouped attention kept
    assert kw["layer_types"] == ["full_attention"] * 2
    small = {"model_type": "distilbert", "dim": 16, "n_layers": 1, "n_heads": 2}
    assert tiny_config(small) == {"dim": 16, "n_layers": 1, "n_heads": 2}


@pytest.mark.parametrize("config", [BERT, LLAMA], ids=["bert", "llama"])
def test_tiny_configs_build_real_models(config):
    from transformers import AutoConfig, AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_config(
        AutoConfig.for_model(config["model_type"], **tiny_config(config)))
    assert sum(p.numel() for p in model.parameters()) < 3_000_000


# -- the inputs and the candidates ------------------------------------------------------------
def test_select_inputs_trims_padding_only_when_asked():
    ids = np.array([[2, 5, 6, 3, 0, 0], [2, 7, 8, 9, 10, 3]])
    feats = {"input_ids": ids, "attention_mask": (ids != 0).astype(int)}
    one = select_inputs(feats, np.array([1, 0]), [0], indices=[40, 41], trim=True)
    assert one.features["input_ids"] == [[2, 5, 6, 3]] and one.trimmed
    assert one.labels == [1] and one.dataset_rows == [40] and one.seq_len == 4
    full = select_inputs(feats, None, [0, 1], trim=False)
    assert full.features["input_ids"][0] == [2, 5, 6, 3, 0, 0] and not full.trimmed
    assert full.labels is None and full.batch_size == 2


def test_candidates_go_from_one_sample_to_the_whole_batch():
    nan = Failure("nan", "pytorch", "AssertionError: x", rows=[3, 5])
    assert candidates(nan, 8) == [([3], True), ([3, 5], False), (list(range(8)), False)]
    raise_ = Failure("raise", "pytorch", "RuntimeError: x")
    assert candidates(raise_, 4) == [([0], True), ([0, 1, 2, 3], False)]


# -- rendering and checking -------------------------------------------------------------------
@pytest.mark.parametrize("framework", ["pytorch", "tensorflow"])
@pytest.mark.parametrize("kind", ["raise", "nan"])
@pytest.mark.parametrize("tiny", [True, False])
def test_scripts_render_to_valid_standalone_python(framework, kind, tiny):
    failure = Failure(kind, framework, "RuntimeError: boom", error='RuntimeError: a """ b \\ "')
    model = ModelSpec(tiny, "distilbert", tiny_config({"model_type": "distilbert", "dim": 768}),
                      checkpoint="org/model", kwargs={"num_labels": 3})
    inputs = select_inputs({"input_ids": np.array([[2, 5, 3]]),
                            "attention_mask": np.array([[1, 1, 1]])}, np.array([2]), [0])
    script = render_script(framework, failure, model, inputs)
    compile(script, "repro.py", "exec")
    assert "[2, 5, 3]" in script and "labels" in script
    assert ("for_model('distilbert'" in script) is tiny
    assert ("from_pretrained('org/model', num_labels=3)" in script) is (not tiny)
    assert ("TFAutoModel" in script) is (framework == "tensorflow")
    assert (NAN_MESSAGE in script) is (kind == "nan")
    assert "wizard" not in script.replace("hf-debug-wizard", "")  # public APIs only


def test_check_outcome_needs_the_same_signature():
    failure = Failure("raise", "pytorch", f"RuntimeError: {RAISE_MESSAGE}")
    same = Outcome(1, "", _tb(RAISE_MESSAGE), 1.0)
    assert check_outcome(same, failure) == (True, "same error signature")
    assert not check_outcome(Outcome(1, "", _tb("other"), 1.0), failure)[0]
    ok, why = check_outcome(Outcome(0, "Not reproduced: ran fine.", "", 1.0), failure)
    assert not ok and why.startswith("Not reproduced")
    assert check_outcome(Outcome(None, "", "", 120.0, timed_out=True), failure) == (False,
                                                                                   "timed out")
    nan = Failure("nan", "pytorch", f"AssertionError: {normalise_message(NAN_MESSAGE)}")
    assert check_outcome(Outcome(1, "", _tb(f"{NAN_MESSAGE} [0] of 1", "AssertionError"), 1), nan)[0]


def test_a_failure_that_does_not_happen_is_never_verified(tmp_path):
    """One real run: the script of a healthy tiny model does not fail, so no 'verified'."""
    failure = Failure("raise", "pytorch", f"RuntimeError: {RAISE_MESSAGE}")
    feats = {"input_ids": np.array([[2, 5, 6, 7, 8, 9, 10, 11, 12, 3]]),
             "attention_mask": np.ones((1, 10), dtype=int)}
    config = {"model_type": "distilbert", "vocab_size": 64, "dim": 32, "n_layers": 1,
              "n_heads": 2, "hidden_dim": 32, "num_labels": 2}
    r = reproduce(failure, "pytorch", feats, None, "distilbert", config, checkpoint="",
                  env={"WIZARD_TEST_FAULT": ""}, budget=200)
    assert not r.verified and r.attempts and r.attempts[0].model == "tiny"
    assert r.attempts[0].why.startswith("Not reproduced")
    assert r.evidence()["verified"] is False and "output" not in r.evidence()


# -- the differential run's verdict -----------------------------------------------------------
def _done(logits) -> dict:
    logits = np.asarray(logits, dtype=np.float32)
    finite = np.isfinite(logits).all()
    return {"stage": "done", "logits": logits,
            "side": {"status": "ok"} if finite else {"status": "nan", "rows": [0]}}


def test_differential_agreement_mismatch_and_one_sided_failure():
    from wizard.checks.library import TOLERANCE, compare_frameworks

    logits = np.array([[0.1, -0.2, 0.3], [0.0, 0.5, -0.5]], dtype=np.float32)
    agree = compare_frameworks("pytorch", logits, None, _done(logits + TOLERANCE / 10))
    assert agree.status == "pass" and agree.evidence["points_at_library"] is False
    apart = compare_frameworks("pytorch", logits, None, _done(logits + 10 * TOLERANCE))
    assert apart.status == "warn" and apart.evidence["points_at_library"] is True
    assert apart.evidence["max_abs_diff"] == pytest.approx(10 * TOLERANCE, rel=0.01)
    only_tf = compare_frameworks("pytorch", logits, None, _done(np.full((2, 3), np.nan)))
    assert only_tf.status == "warn" and only_tf.title.startswith("Only TensorFlow fails")
    only_pt = compare_frameworks("pytorch", None, "RuntimeError: x", _done(logits))
    assert only_pt.title.startswith("Only PyTorch fails")
    both = compare_frameworks("tensorflow", None, "RuntimeError: x",
                              {"stage": "forward", "side": {"status": "raised", "error": "x"}})
    assert both.status == "info" and both.evidence["points_at_library"] is False
    no_class = compare_frameworks("pytorch", logits, None,
                                  {"stage": "load", "error": "ValueError: no TF class"})
    assert no_class.status == "skip" and "points_at_library" not in no_class.evidence


# -- newer releases, against a local PEP 503 index ------------------------------------------------
FILES = {"transformers": ["transformers-4.57.6-py3-none-any.whl",
                          "transformers-4.58.0-py3-none-any.whl",
                          "transformers-99.1.0-py3-none-any.whl",
                          "transformers-100.0.0rc1-py3-none-any.whl"],
         "torch": ["torch-2.13.0-py3-none-any.whl", "torch-1.0.0-py3-none-any.whl"]}


class _Index(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        name = self.path.strip("/").split("/")[-1]
        if name not in FILES:
            self.send_response(404)
            self.end_headers()
            return
        links = "".join(f'<a href="/files/{f}">{f}</a><br>' for f in FILES[name])
        body = f"<!DOCTYPE html><html><body>{links}</body></html>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def simple_index():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Index)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/simple"
    server.shutdown()


def test_newer_release_found_on_the_index(simple_index):
    info = check_newer_release("transformers", installed="4.57.6", index_url=simple_index)
    assert info.checked and info.newer_available
    assert info.latest == "99.1.0" and info.newer == ["99.1.0", "4.58.0"]  # no pre-release
    assert info.latest_same_major == "4.58.0"


def test_up_to_date_and_unknown_packages(simple_index):
    torch_info = check_newer_release("torch", installed="2.13.0+cpu", index_url=simple_index)
    assert torch_info.checked and not torch_info.newer_available
    missing = check_newer_release("datasets", installed="5.0.0", index_url=simple_index)
    assert not missing.checked and "could not be checked" in missing.error


def test_unreachable_or_disabled_index_says_it_could_not_be_checked(monkeypatch):
    info = check_newer_release("transformers", installed="4.57.6", index_url=UNREACHABLE_INDEX)
    assert not info.checked and not info.newer_available
    assert "could not be reached" in info.error
    monkeypatch.setenv("WIZARD_INDEX_URL", "off")
    off = check_newer_release("transformers", installed="4.57.6")
    assert not off.checked and "switched off" in off.error


# -- end to end: an injected library fault on the healthy demo case ----------------------------
def _check(case, tmp: Path, env: dict[str, str], *formats: str) -> tuple[subprocess.CompletedProcess, dict]:
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "case.yaml").write_text(case.to_yaml())
    args = ["check", str(tmp / "case.yaml"), "--json", str(tmp / "out.json"), "--out",
            str(tmp / "session"), "--quiet", "--device", "cpu", "--report", str(tmp / "report")]
    for fmt in formats:
        args += ["--format", fmt]
    proc = run_cli(*args, env=env)
    assert (tmp / "out.json").exists(), proc.stderr[-3000:]
    return proc, json.loads((tmp / "out.json").read_text())


def _finding(result: dict, id: str) -> dict:
    found = [f for f in result["findings"] if f["id"] == id]
    assert found, [f["id"] for f in result["findings"]]
    return found[0]


def _run_repro(path: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """repro.py in a fresh interpreter, in an empty folder, as a maintainer would run it."""
    run_dir = path.parent / "maintainer"
    run_dir.mkdir(exist_ok=True)
    (run_dir / "repro.py").write_text(path.read_text())
    full = {k: v for k, v in os.environ.items() if not k.startswith("WIZARD_TEST_FAULT")}
    return subprocess.run([sys.executable, "repro.py"], cwd=run_dir, env={**full, **env},
                          capture_output=True, text=True, timeout=300)


def _fault_env(tmp: Path, mode: str, frameworks: str) -> dict[str, str]:
    env = install(tmp / "fault", mode, frameworks)
    env["WIZARD_INDEX_URL"] = UNREACHABLE_INDEX   # the release check never reaches the real index
    return env


@pytest.mark.slow
def test_injected_raise_in_transformers_gives_a_verified_library_bug_report(demo_dir, tmp_path):
    env = _fault_env(tmp_path, "raise", "pytorch")
    case = healthy_case(demo_dir, "pytorch")
    case.search_issues = True             # and the issues searched for the failure, before filing
    for github in serve_github():
        env["WIZARD_GITHUB_API"] = github.url
        proc, result = _check(case, tmp_path, env, "github", "forum", "hub")
        queries = list(github.queries)
    assert result["verdict"]["kind"] == "library-bug", result["verdict"]
    assert result["verdict"]["primary"] == "report.reproduction"
    assert result["path"][-2:] == ["report", "reported-before"]
    related = _finding(result, "report.reported-before")
    assert related["title"].startswith("Reported before: 3 issues of transformers")
    assert [q["q"] for q in queries] == ['"FFN received a tensor with an" RuntimeError '
                                         'repo:huggingface/transformers is:issue']
    repro = _finding(result, "report.reproduction")
    ev = repro["evidence"]
    assert repro["status"] == "warn" and ev["verified"] is True
    assert ev["tiny_config"] is True and ev["batch_size"] == 1  # shrunk to the minimum
    assert ev["failure"]["signature"] == f"RuntimeError: {RAISE_MESSAGE}"
    assert ev["failure"]["package"] == "transformers"
    release = _finding(result, "report.newer-release")
    assert release["status"] == "info" and "could not be checked" in release["title"]
    diff = _finding(result, "report.framework-mismatch")
    if HAS_TF:  # the same weights in TensorFlow run fine: only PyTorch fails
        assert diff["status"] == "warn" and diff["evidence"]["points_at_library"] is True
        assert diff["evidence"]["tensorflow"]["status"] == "ok"
        assert diff["evidence"]["pytorch"]["status"] == "raised"
    else:
        assert diff["status"] == "skip"

    report = tmp_path / "report"
    for name in ("report-github.md", "report-forum.md", "report-hub.md", "repro.py"):
        assert (report / name).is_file(), sorted(p.name for p in report.iterdir())
    assert str(report / "repro.py") in result["reports"]
    github = (report / "report-github.md").read_text()
    for section in ("### System Info", "### Who can help?", "### Information", "### Tasks",
                    "### Reproduction", "### Expected behavior"):
        assert section in github
    assert "```python" in github and RAISE_MESSAGE in github and "fresh Python" in github
    assert "Possibly related, from [a search of the existing issues](https://github.com/" \
           "huggingface/transformers/issues?q=" in github
    assert "https://github.com/huggingface/transformers/issues/29876, " in github
    assert "**Category:**" in (report / "report-forum.md").read_text()

    # The maintainer's view: the script alone reproduces the failure in a fresh interpreter ...
    with_fault = _run_repro(report / "repro.py", env)
    assert with_fault.returncode != 0
    assert error_signature(with_fault.stderr) == ev["failure"]["signature"]
    # ... and on a library without the fault it says so (the check can fail).
    without = _run_repro(report / "repro.py", {})
    assert without.returncode == 0, without.stderr[-2000:]
    assert "Not reproduced" in without.stdout


@pytest.mark.slow
def test_injected_nan_in_transformers_gives_a_verified_library_bug(demo_dir, tmp_path):
    env = _fault_env(tmp_path, "nan", "pytorch")
    _, result = _check(healthy_case(demo_dir, "pytorch"), tmp_path, env, "github")
    assert _finding(result, "model.forward")["status"] == "fail"   # the symptom ...
    assert result["verdict"]["kind"] == "library-bug"              # ... is not a user error
    ev = _finding(result, "report.reproduction")["evidence"]
    assert ev["verified"] and ev["tiny_config"] and ev["samples"] == [0]
    assert ev["nonfinite_weights"] == 0
    script = tmp_path / "report" / "repro.py"
    run = _run_repro(script, env)
    assert run.returncode != 0 and NAN_MESSAGE in run.stderr
    assert _run_repro(script, {}).returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not HAS_TF, reason="TensorFlow is tested in env 'tf'")
def test_tensorflow_path_injected_nan_with_differential(demo_dir, tmp_path):
    env = _fault_env(tmp_path, "nan", "tensorflow")
    _, result = _check(healthy_case(demo_dir, "tensorflow"), tmp_path, env, "github", "hub")
    assert result["verdict"]["kind"] == "library-bug", result["verdict"]
    ev = _finding(result, "report.reproduction")["evidence"]
    assert ev["verified"] and ev["tiny_config"] and ev["failure"]["framework"] == "tensorflow"
    diff = _finding(result, "report.framework-mismatch")
    assert diff["status"] == "warn" and diff["evidence"]["pytorch"]["status"] == "ok"
    assert diff["evidence"]["tensorflow"]["status"] == "nan"
    script = tmp_path / "report" / "repro.py"
    assert "TFAutoModelForSequenceClassification" in script.read_text()
    run = _run_repro(script, env)
    assert run.returncode != 0 and NAN_MESSAGE in run.stderr
