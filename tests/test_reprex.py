"""Reproductions written from the user's own script (the reprex way).

The slicer (ast def-use), the candidates (inlined argv/env/paths, a few rows of data, a tiny
model of the same config class), verification by exception type + library function and
shrinking, all against `buggy`, a fake library installed in a folder named site-packages
(tests/reprex_fakes.py), and the rerun on the latest release in a throwaway venv with a local
wheel folder (fixed / still failing) or an unreachable index (skipped, with the reason).
"""
from __future__ import annotations

import json

import pytest

from tests.reprex_fakes import SCRIPT, install, wheel
from wizard.evidence.release_rerun import rerun_on_latest
from wizard.evidence.repro import run_script
from wizard.evidence.reprex import (Signature, default_runner, same_failure, signature_of,
                                    verify_and_shrink)
from wizard.script.reprex_source import build_candidates, string_constants
from wizard.script.slicer import slice_script

UNREACHABLE = "http://127.0.0.1:9/simple"

TRAIN = '''\
import os
import sys
from datasets import load_from_disk
from transformers import AutoModelForSequenceClassification, AutoTokenizer

def main():
    print("starting")
    out_dir = os.environ.get("OUT_DIR", "runs")
    checkpoint = sys.argv[1]
    raw = load_from_disk(sys.argv[2])
    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=3)
    model.config.use_cache = False
    model.save_pretrained(out_dir)
    tokenized = raw.map(lambda b: tokenizer(b["text"]), batched=True)
    model.train()
    print("done")

if __name__ == "__main__":
    main()
'''


def _line(source: str, text: str) -> int:
    return next(i for i, ln in enumerate(source.splitlines(), 1) if text in ln)


# -- the slicer --------------------------------------------------------------------------------
def test_slice_keeps_what_the_failing_line_depends_on():
    line = _line(TRAIN, "tokenized = raw.map")
    sliced = slice_script(TRAIN, line)
    assert sliced is not None
    code = sliced.source
    assert "raw = load_from_disk(sys.argv[2])" in code and "tokenizer = AutoTokenizer" in code
    assert "checkpoint = sys.argv[1]" in code and "import sys" in code
    assert "print(" not in code and "out_dir" not in code       # not needed by the failing line
    assert "model" not in code and "model.train()" not in code  # after it / unrelated
    assert code.strip().splitlines()[-1].startswith("tokenized = raw.map")


def test_slice_keeps_calls_that_change_a_needed_object():
    line = _line(TRAIN, "model.save_pretrained(out_dir)")
    code = slice_script(TRAIN, line).source
    assert "model.config.use_cache = False" in code       # mutates the model the line saves
    assert "out_dir = os.environ.get" in code and "import os" in code
    assert "raw" not in code and "tokenizer" not in code


def test_a_line_outside_module_level_code_is_not_sliced():
    source = "def f(x):\n    return x + 1\n\nf(2)\n"
    assert slice_script(source, 2) is None
    assert slice_script("def broken(:\n", 1) is None


# -- the candidates ----------------------------------------------------------------------------
def test_candidates_inline_the_run_and_swap_data_and_model(tmp_path):
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "config.json").write_text(json.dumps(
        {"model_type": "bert", "hidden_size": 768, "num_hidden_layers": 12,
         "num_attention_heads": 12, "intermediate_size": 3072, "vocab_size": 30522,
         "architectures": ["BertForMaskedLM"]}))
    line = _line(TRAIN, "model.save_pretrained(out_dir)")
    rows = {"kind": "dict", "splits": {"train": {"text": ["a b", "c"], "label": [0, 1]}}}
    cands = build_candidates(TRAIN, line, argv=["train.py", "./ckpt", "data"],
                             environ={"OUT_DIR": "/out/here"}, cwd=tmp_path, data=[rows])
    labels = [c.label for c in cands]
    assert labels == ["slice, tiny model", "slice, your checkpoint",
                      "script up to the failing line, tiny model",
                      "script up to the failing line, your checkpoint"]
    tiny, real = cands[0].source, cands[1].source
    assert "AutoConfig.for_model('bert'" in tiny and "'hidden_size': 32" in tiny
    assert "'vocab_size': 30522" in tiny and "'num_labels': 3" in tiny   # token ids stay valid
    assert f"checkpoint = {str(ckpt.resolve())!r}" in real   # relative argv path made absolute and "from_pretrained(checkpoint" in real
    assert "out_dir = '/out/here'" in real and "sys.argv" not in real and "os.environ" not in real
    whole = cands[3].source
    assert "DatasetDict({'train': Dataset.from_dict({'text': ['a b', 'c']" in whole
    assert "from datasets import Dataset, DatasetDict" in whole and "load_from_disk" not in whole
    for c in cands:
        compile(c.source, "repro.py", "exec")
    assert cands[0].tiny and not cands[1].tiny and cands[3].swapped_data


def test_a_tiny_model_is_not_run_when_the_failing_line_is_the_load_itself(tmp_path):
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "config.json").write_text(json.dumps({"model_type": "bert", "hidden_size": 768}))
    source = (f"from transformers import AutoModel\ncheckpoint = {str(ckpt)!r}\n"
              "model = AutoModel.from_pretrained(checkpoint)\nmodel.save_pretrained('x')\n")
    at_load = {c.tiny: c.not_run for c in build_candidates(source, 3)}
    # from_config never runs the loading code that raised: not worth a fresh interpreter
    assert at_load[True].startswith("the failing line is the model's loading")
    assert at_load[False] == ""
    after = {c.tiny: c.not_run for c in build_candidates(source, 4)}
    assert after[True] == ""    # a later line: the tiny model is tried first


def test_no_tiny_model_without_a_readable_config():
    source = "from transformers import AutoModel\nm = AutoModel.from_pretrained('org/x')\n"
    cands = build_candidates(source, 2, read_config=lambda _c: None)
    assert [c.label for c in cands] == ["script up to the failing line, your checkpoint"]
    assert string_constants([]) == {}


# -- verification and shrinking against a fake library ----------------------------------------
@pytest.fixture(scope="module")
def buggy(tmp_path_factory):
    root = tmp_path_factory.mktemp("buggy")
    site = install(root / "lib" / "site-packages")
    return {"root": root, "site": site, "env": {"PYTHONPATH": str(site)}}


def test_signature_is_exception_type_and_library_function(buggy):
    out = run_script(SCRIPT, env=buggy["env"])
    sig = signature_of(out.stderr)
    assert sig == Signature("ValueError", "buggy", "core.py", "sort_check")
    assert same_failure(out, sig)[0]
    other = Signature("ValueError", "buggy", "core.py", "another_function")
    assert not same_failure(out, other)[0]


def test_verified_then_shrunk_and_a_non_reproduction_is_never_offered(buggy):
    sig = Signature("ValueError", "buggy", "core.py", "sort_check")
    runner = default_runner(env=buggy["env"])
    ok = SCRIPT.replace('print("loading")', 'print("loading")\nunused = 1')
    clean = SCRIPT.replace("[3, 1, 2]", "[1, 2, 3]")          # sorted: the library is fine
    result = verify_and_shrink([("clean", clean), ("as written", ok)], sig, runner)
    assert result.verified and result.label == "as written"
    assert "print(" not in result.script and "unused" not in result.script   # shrunk away
    assert "data = [3, 1, 2]" in result.script and result.lines == 3
    assert [t.reproduced for t in result.tries][:2] == [False, True]
    none = verify_and_shrink([("clean", clean)], sig, runner)
    assert not none.verified and none.script == ""


# -- does it still fail on the latest release? ------------------------------------------------
@pytest.mark.parametrize("fixed", [True, False], ids=["fixed", "still-fails"])
def test_latest_release_rerun_in_a_throwaway_venv(buggy, fixed):
    sig = Signature("ValueError", "buggy", "core.py", "sort_check")
    wheels = buggy["root"] / ("fixed" if fixed else "still")
    wheel(wheels, "3.0" if fixed else "2.0", fixed=fixed)
    info = rerun_on_latest(SCRIPT, sig, "buggy", find_links=str(wheels),
                           layers=[str(buggy["site"])])
    assert info.installed == "1.0"
    if fixed:
        assert info.status == "fixed" and info.line.startswith("Fixed in buggy 3.0: upgrade")
    else:
        assert info.status == "still-fails" and info.line.startswith("Still fails on buggy 2.0")
    # the user's own environment is untouched
    assert (buggy["site"] / "buggy-1.0.dist-info").is_dir()


def test_latest_release_skipped_with_the_reason_when_no_index_answers(buggy):
    sig = Signature("ValueError", "buggy", "core.py", "sort_check")
    info = rerun_on_latest(SCRIPT, sig, "buggy", index_url=UNREACHABLE)
    assert info.status == "skipped" and "could not be reached" in info.line
    assert info.line.startswith("Not checked against the latest buggy release")


# -- end to end: `wizard run` on a script that hits the fake library's bug -------------------
FAKE_TRAIN = '''\
import sys
from buggy.core import sort_check

def main():
    data = [int(x) for x in sys.argv[1:]]
    print("checking", data)
    extra = len(data)
    sort_check(data)

if __name__ == "__main__":
    main()
'''


def test_run_ends_in_library_bug_with_the_reprex_in_the_issue_form(buggy, tmp_path,
                                                                    monkeypatch):
    from wizard.live.run import run_instrumented
    from wizard.reports.render import render_report

    monkeypatch.setenv("PYTHONPATH", str(buggy["site"]))   # the fresh interpreters see buggy
    script = tmp_path / "train.py"
    script.write_text(FAKE_TRAIN)
    events = []
    r = run_instrumented(script, ["3", "1", "2"], on_event=events.append).result
    assert r.verdict.kind == "library-bug" and r.verdict.primary == "report.reproduction"
    repro = next(f for f in r.findings if f.id == "report.reproduction")
    assert repro.fix == ("from buggy.core import sort_check\n"
                         "data = [int(x) for x in ['3', '1', '2']]\nsort_check(data)\n")
    latest = next(f for f in r.findings if f.id == "report.latest-release")
    assert latest.status == "skip" and "could not be reached" in latest.title
    assert latest.title in r.verdict.summary
    progress = [e.data["message"] for e in events if e.kind == "progress"]
    assert progress[0].startswith("reproduction: trying candidate 1/")
    issue = render_report(r.to_dict(), "github")
    for section in ("### System Info", "### Who can help?", "### Reproduction",
                    "### Expected behavior"):
        assert section in issue
    assert "sort_check(data)" in issue and "cut down from my training script" in issue
    assert "checkpoint" not in issue.split("### Reproduction")[1].split("```")[0]


def test_a_clean_run_never_gets_a_reproduction(buggy, tmp_path, monkeypatch):
    from wizard.live.run import run_instrumented

    monkeypatch.setenv("PYTHONPATH", str(buggy["site"]))
    script = tmp_path / "train.py"
    script.write_text(FAKE_TRAIN)
    r = run_instrumented(script, ["1", "2", "3"]).result
    assert r.verdict.kind != "library-bug"
    assert not [f for f in r.findings if f.category == "report"]


def test_who_can_help_by_area():
    from wizard.reports.maintainers import who_can_help

    tf = ".../site-packages/transformers/modeling_tf_pytorch_utils.py"
    assert who_can_help("transformers", tf) == ("TensorFlow", ("@Rocketknight1",))
    assert who_can_help("transformers", "transformers/trainer.py")[0] == "trainer"
    assert who_can_help("transformers", "transformers/models/bert/modeling_bert.py")[0] == \
        "text models"
    assert who_can_help("datasets", "datasets/arrow_dataset.py")[1] == ("@lhoestq",)
    assert who_can_help("buggy", "buggy/core.py") == ("", ())
