"""The verdict: user error vs library bug vs inconclusive, and the report step's gate.

Unit tests on findings built by hand, a property test (no user-side fault is ever outvoted),
the session's gating of the report step, and one real run of the course's user-error case
with a library fault injected on top: it must stay user-error.
"""
from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import run_cli
from tests.library_fault import install
from wizard.core.case import Case
from wizard.core.catalogue import CHECKS
from wizard.demo.cases import course_case
from wizard.core.findings import Finding
from wizard.engine.verdict import (NOT_USER_SIDE, SYMPTOM_IDS, decide, library_bug_candidate,
                            library_signals)

SITE = "/venv/lib/python3.11/site-packages"
LIBRARY_TB = f'''Traceback (most recent call last):
  File "{SITE}/wizard/backends/torch.py", line 80, in forward
    logits = model(**self._tensors(features)).logits
  File "{SITE}/torch/nn/modules/module.py", line 1789, in _call_impl
    return forward_call(*args, **kwargs)
  File "{SITE}/transformers/models/distilbert/modeling_distilbert.py", line 255, in forward
    ffn_output = self.ffn(attention_output)
RuntimeError: FFN received a tensor with an invalid stride layout
'''
KNOWN_TB = f'''Traceback (most recent call last):
  File "{SITE}/transformers/models/distilbert/modeling_distilbert.py", line 99, in forward
    input_embeds = self.word_embeddings(input_ids)
  File "{SITE}/torch/nn/functional.py", line 2551, in embedding
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
IndexError: index out of range in self
'''


def case(symptom: str = "none") -> Case:
    return Case.from_dict({"model": "m", "dataset": {"path": "d"}, "symptom": symptom})


def raised(tb: str = LIBRARY_TB) -> Finding:
    return Finding("model.forward-raised", "warn", "The forward pass raises RuntimeError inside "
                   "library code", evidence={
                       "error": tb.strip().splitlines()[-1], "innermost_in_library": True,
                       "innermost_frame": {"file": f"{SITE}/transformers/models/distilbert/"
                                                   "modeling_distilbert.py",
                                           "function": "forward"},
                       "traceback": tb})


def nan_logits() -> Finding:
    return Finding("model.forward", "fail", "The model outputs NaN/Inf logits for 16 samples",
                   evidence={"samples": list(range(10))})


def clean() -> list[Finding]:
    return [Finding("data.labels-out-of-range", "pass", "All labels are within 0..2"),
            Finding("data.batch-structure", "info", "The first batch"),
            Finding("hyperparameters.learning-rate-too-high", "pass", "lr 5e-05")]


def repro(verified: bool = True, **extra) -> Finding:
    attempt = {"samples": 1, "model": "tiny", "reproduced": verified, "why": "ran without error"}
    return Finding("report.reproduction", "warn" if verified else "info", "Reproduced",
                   evidence={"verified": verified, "tiny_config": True, "attempts": [attempt],
                             **extra}, fix="print('repro')")


def diff(points: bool) -> Finding:
    return Finding("report.framework-mismatch", "warn" if points else "pass", "differential",
                   evidence={"points_at_library": points})


def release(status: str = "warn") -> Finding:
    return Finding("report.newer-release", status, "A newer release exists: transformers 9.0")


LABELS_FAULT = Finding("data.labels-out-of-range", "fail", "Labels outside 0..num_labels-1")


# -- library bug: every condition needed ------------------------------------------------------
def test_library_bug_needs_signal_clean_side_and_verified_reproduction():
    v = decide(case(), [*clean(), raised(), repro(True), release()])
    assert v.kind == "library-bug" and v.primary == "report.reproduction"
    assert "transformers" in v.summary and "tiny random model" in v.summary
    assert "newer release" in v.summary  # said before recommending a new issue
    assert any("inside library code" in r and "modeling_distilbert.py" in r for r in v.reasons)
    assert any("clean" in r for r in v.reasons)


def test_nan_logits_on_a_clean_setup_are_a_library_bug_once_reproduced():
    v = decide(case(), [*clean(), nan_logits(), repro(True)])
    assert v.kind == "library-bug"
    assert decide(case(), [*clean(), nan_logits()]).kind == "inconclusive"  # step not run


def test_not_reproduced_and_no_differential_is_inconclusive():
    v = decide(case(), [*clean(), raised(), repro(False), diff(False)])
    assert v.kind == "inconclusive" and v.primary == "model.forward-raised"
    assert "did not reproduce" in v.summary


def test_differential_alone_is_enough():
    v = decide(case(), [*clean(), raised(), repro(False), diff(True)])
    assert v.kind == "library-bug" and v.primary == "report.framework-mismatch"


def test_nonfinite_weights_point_at_the_checkpoint_not_the_library():
    v = decide(case(), [*clean(), nan_logits(), repro(True, nonfinite_weights=12)])
    assert v.kind == "inconclusive" and "12 NaN/Inf" in v.summary and "Hub" in v.summary


def test_a_known_error_inside_library_frames_is_not_a_library_bug():
    findings = [*clean(), raised(KNOWN_TB), repro(True)]
    assert library_signals(findings) == []
    assert not library_bug_candidate(case(), findings)
    v = decide(case(), findings)
    assert v.kind == "inconclusive" and "index out of range" in v.summary


def test_a_crashed_user_side_check_blocks_the_library_verdict():
    crashed = Finding("wizard.probe-crashed", "error", "Probe 'labels' raised",
                      evidence={"probe": "labels"})
    findings = [*clean(), raised(), crashed, repro(True)]
    assert not library_bug_candidate(case(), findings)
    assert decide(case(), findings).kind == "inconclusive"
    # a crash of a report-step probe does not make the user side unclean
    report_crash = Finding("wizard.probe-crashed", "error", "Probe 'differential' raised",
                           evidence={"probe": "differential"})
    assert decide(case(), [*clean(), raised(), report_crash, repro(True)]).kind == "library-bug"


def test_a_check_that_crashes_on_the_forward_error_itself_is_not_an_unknown():
    same = Finding("wizard.probe-crashed", "error", "Probe 'model-loss' raised RuntimeError",
                   evidence={"probe": "model-loss", "traceback": LIBRARY_TB})
    assert library_bug_candidate(case(), [*clean(), same, raised()])
    assert decide(case(), [*clean(), same, raised(), repro(True)]).kind == "library-bug"
    other = Finding("wizard.probe-crashed", "error", "Probe 'model-loss' raised KeyError",
                    evidence={"probe": "model-loss", "traceback": LIBRARY_TB.replace(
                        "RuntimeError: FFN received", "KeyError: FFN missed")})
    assert not library_bug_candidate(case(), [*clean(), other, raised()])


def test_pasted_library_traceback_is_a_candidate_but_needs_proof():
    pasted = Finding("triage.possible-library-bug", "warn", "Unknown error raised inside datasets",
                     evidence={"package": "datasets"})
    assert library_bug_candidate(case("error"), [*clean(), pasted])
    nothing = Finding("report.reproduction", "info", "No failure in one forward pass to "
                      "reproduce", evidence={"verified": False})
    v = decide(case("error"), [*clean(), pasted, nothing])
    assert v.kind == "inconclusive" and "could not reproduce" in v.summary


# -- user error always wins -------------------------------------------------------------------
def test_user_side_fault_wins_over_every_library_signal():
    findings = [LABELS_FAULT, raised(), nan_logits(), repro(True), diff(True), release()]
    v = decide(case("error"), findings)
    assert v.kind == "user-error" and v.primary == "data.labels-out-of-range"
    assert not library_bug_candidate(case("error"), findings)


def test_a_setup_fault_is_the_cause_of_the_training_observation_beside_it():
    """Cannot overfit one batch is what training shows; the frozen body found beside it is why."""
    overfit = Finding("training.cannot-overfit-batch", "fail", "Cannot overfit one batch")
    frozen = Finding("model.frozen-parameters", "fail", "The pretrained body is frozen")
    v = decide(case("loss-not-decreasing"), [*clean(), overfit, frozen])
    assert v.kind == "user-error" and v.primary == "model.frozen-parameters"
    assert v.reasons[1].startswith("training.cannot-overfit-batch")
    alone = decide(case("loss-not-decreasing"), [*clean(), overfit])
    assert alone.primary == "training.cannot-overfit-batch"


def test_a_tokenizer_from_another_checkpoint_is_why_ids_overrun_the_table():
    overrun = Finding("data.token-ids-out-of-vocab", "fail", "Token ids up to 311 reach 250 rows")
    other = Finding("data.tokenizer-model-mismatch", "fail", "The tokenizer is not the model's")
    v = decide(case("loss-not-decreasing"), [*clean(), overrun, other])
    assert v.primary == "data.tokenizer-model-mismatch"
    assert v.reasons[1].startswith("data.token-ids-out-of-vocab")
    assert decide(case("loss-not-decreasing"), [*clean(), overrun]).primary == overrun.id


def test_nan_logits_alone_are_not_a_user_error():
    # model.forward's fail is the symptom itself, not a fault of the setup
    assert decide(case(), [*clean(), nan_logits(), repro(True)]).kind != "user-error"


USER_SIDE = sorted(i for i, c in CHECKS.items() if c.category not in NOT_USER_SIDE
                   and i not in SYMPTOM_IDS)
ANY_ID = sorted(CHECKS)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fault=st.sampled_from(USER_SIDE),
       others=st.lists(st.tuples(st.sampled_from(ANY_ID),
                                 st.sampled_from(["pass", "info", "warn", "fail", "skip", "error"])),
                       max_size=12),
       extra=st.lists(st.sampled_from(["raised", "nan", "repro", "diff", "release"]), max_size=5))
def test_property_no_user_side_fault_ever_yields_library_bug(fault, others, extra):
    findings = [Finding(fault, "fail", "a fault in the setup")]
    findings += [Finding(i, s, "t") for i, s in others]
    makers = {"raised": raised, "nan": nan_logits, "repro": repro, "diff": lambda: diff(True),
              "release": release}
    findings += [makers[e]() for e in extra]
    v = decide(case("error"), findings)
    assert v.kind == "user-error"
    assert not library_bug_candidate(case("error"), findings)


# -- the session runs the report step only for a candidate -----------------------------------
def test_session_runs_the_report_step_only_for_a_candidate(tmp_path):
    from wizard.context import Context
    from wizard.engine.session import Session
    from wizard.engine.plan import STEPS, Step

    report = STEPS["report"]
    fake_report = Step("report", report.title, report.why,
                       ("tests.test_verdict:fake_reproduction",), needs=report.needs)
    for first, expect_report in (("tests.test_verdict:fake_library_failure", True),
                                 ("tests.test_verdict:fake_user_fault", False)):
        c = case()
        ctx = Context.from_objects(c, device="cpu")
        result = Session(c, device="cpu", ctx=ctx, steps=[
            Step("model", "m", "w", (first,)), fake_report]).run()
        assert ("report" in result.path) is expect_report
        assert result.verdict.kind == ("library-bug" if expect_report else "user-error")


def fake_library_failure(case, ctx):
    return [*clean(), raised()]


def fake_user_fault(case, ctx):
    return [LABELS_FAULT, raised()]


def fake_reproduction(case, ctx):
    return [repro(True)]


# -- a real user-error case with a library fault injected: still user-error ------------------
def test_course_case_with_injected_library_fault_stays_user_error(demo_dir, tmp_path):
    env = install(tmp_path / "fault", "raise", "pytorch")
    env["WIZARD_INDEX_URL"] = "http://127.0.0.1:9/simple"   # never the real index
    c = course_case(demo_dir, "pytorch")
    (tmp_path / "case.yaml").write_text(c.to_yaml())
    out = tmp_path / "out.json"
    proc = run_cli("check", str(tmp_path / "case.yaml"), "--json", str(out), "--out",
                   str(tmp_path / "s"), "--quiet", "--device", "cpu", env=env)
    result = json.loads(Path(out).read_text())
    assert proc.returncode == 1, proc.stderr[-2000:]
    ids = {f["id"] for f in result["findings"]}
    assert "model.forward-raised" in ids          # the injected fault really fired
    assert result["verdict"]["kind"] == "user-error"
    assert "report" not in result["path"]
    assert not any(i.startswith("report.") for i in ids)
