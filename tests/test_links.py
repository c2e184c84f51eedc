"""Prefilled GitHub / forum / Hub links: exact round trip through percent-encoding, the length
cap honoured to the character, and the paste-the-file fallback."""
from __future__ import annotations

import random
import socket
from urllib.parse import parse_qs, urlsplit

import pytest

from wizard.reports.links import (TITLE_MAX, forum_topic_url, github_issue_url, hub_discussion_prefill_url,
                           hub_discussion_url, paste_note, share_targets, split_title)

TRICKY = ("a & b = c; 100% sure #1 + 2 ?x=y /path\\back `code` \"quoted\" 'single' <tag>\n"
          "tabs\tand newlines\r\n… ünïcödé 中文 🤗 \u00a0nbsp")


@pytest.fixture(autouse=True)
def quiet_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/zoltan")
    monkeypatch.setenv("USER", "zoltan")
    monkeypatch.setenv("LOGNAME", "zoltan")
    monkeypatch.setattr(socket, "gethostname", lambda: "vm")
    monkeypatch.delenv("HF_ENDPOINT", raising=False)


def _query(url: str) -> dict[str, str]:
    q = parse_qs(urlsplit(url).query, keep_blank_values=True, strict_parsing=True,
                 errors="strict")
    assert all(len(v) == 1 for v in q.values()), q
    return {k: v[0] for k, v in q.items()}


def test_github_round_trip_and_encoding() -> None:
    url, fit = github_issue_url("huggingface/transformers", "Trainer: NaN loss " + TRICKY, TRICKY,
                                labels=["bug", "help wanted"])
    assert fit
    assert url.startswith("https://github.com/huggingface/transformers/issues/new?title=")
    q = _query(url)
    assert q["title"] == "Trainer: NaN loss " + TRICKY
    assert q["body"] == TRICKY
    assert q["labels"] == "bug,help wanted"
    raw = url.split("?", 1)[1]
    for ch in " \n\t#+\"'<>`\\":  # nothing that would end, split or mangle the query
        assert ch not in raw
    assert "%2B" in raw and "%20" in raw and "%0A" in raw  # + is not a space


def test_github_cap_is_exact() -> None:
    base_len = len(github_issue_url("o/r", "t", "")[0])
    for max_len in (base_len + 10, 500, 2000, 6000):
        n = max_len - base_len
        url, fit = github_issue_url("o/r", "t", "x" * n, max_len=max_len)
        assert fit and len(url) == max_len  # exactly at the cap still fits
        url, fit = github_issue_url("o/r", "t", "x" * (n + 1), max_len=max_len,
                                    report_file="wizard-out/report-github.md")
        assert len(url) <= max_len
        if max_len >= 500:
            assert not fit
            assert _query(url)["body"] == paste_note("wizard-out/report-github.md")
            assert "wizard-out/report-github.md" in _query(url)["body"]


def test_fallback_names_the_report_file_without_the_home_path() -> None:
    url, fit = github_issue_url("huggingface/transformers", "OOM", "y" * 10000,
                                report_file="/home/zoltan/runs/report.md")
    assert not fit and len(url) <= 6000
    body = _query(url)["body"]
    assert "~/runs/report.md" in body and "zoltan" not in url
    assert "paste" in body


@pytest.mark.parametrize("seed", range(3))
def test_cap_honoured_for_multibyte_text_at_every_length(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = "aé中🤗 \n&%+"
    for _ in range(40):
        max_len = rng.randint(220, 1500)
        title = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 400)))
        body = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 800)))
        for make in (lambda: github_issue_url("o/r", title, body, max_len=max_len),
                     lambda: forum_topic_url(title, body, "beginners", max_len=max_len),
                     lambda: hub_discussion_prefill_url("o/m", title, body, max_len=max_len)):
            try:
                url, fit = make()
            except ValueError:
                continue  # only for caps too short for the fixed parts of the link
            assert len(url) <= max_len
            q = _query(url)  # strict decoding: no percent sequence was cut in half
            text_key = "description" if "discussions" in url else "body"
            if fit:
                assert q[text_key] == body
            else:
                assert paste_note().startswith(q[text_key].removesuffix("…"))


def test_long_title_is_shortened_so_the_body_still_fits() -> None:
    url, fit = github_issue_url("o/r", "T" * 5000, "short body")
    assert fit
    q = _query(url)
    assert q["body"] == "short body" and len(q["title"]) == TITLE_MAX and q["title"].endswith("…")


def test_too_small_cap_and_bad_repo_are_one_sentence_errors() -> None:
    with pytest.raises(ValueError, match="too short"):
        github_issue_url("huggingface/transformers", "t", "b", max_len=30)
    for bad in ("transformers", "a/b/c", "", "own er/name"):
        with pytest.raises(ValueError, match="owner/name"):
            github_issue_url(bad, "t", "b")
    assert github_issue_url("https://github.com/huggingface/datasets/", "t", "b")[0].startswith(
        "https://github.com/huggingface/datasets/issues/new?")


def test_secrets_never_reach_a_url() -> None:
    token = "hf_" + "Qm7vKx2LpR9tZ4wYc8NbJ5hF1gD6sE3aU0"
    url, _ = github_issue_url("o/r", f"fails with {token}", f"token={token}\n/home/zoltan/x")
    assert token not in url and "zoltan" not in url
    assert "%3CHF_TOKEN%3E" in url


def test_forum_topic_url() -> None:
    url, fit = forum_topic_url("Loss is NaN with TFAutoModel", TRICKY, category="Beginners",
                               tags=["tensorflow", "keras"])
    assert fit
    assert url.startswith("https://discuss.huggingface.co/new-topic?title=")
    q = _query(url)
    assert q == {"title": "Loss is NaN with TFAutoModel", "body": TRICKY, "category": "Beginners",
                 "tags": "tensorflow,keras"}
    url, _ = forum_topic_url("t", "b", category="transformers/trainer")
    assert "category=transformers/trainer" in url  # Discourse's parent/child form stays readable
    url, _ = forum_topic_url("t", "b")
    assert "category" not in _query(url)
    url, fit = forum_topic_url("t", "z" * 7000, report_file="report-forum.md")
    assert not fit and len(url) <= 6000 and "report-forum.md" in _query(url)["body"]


def test_hub_discussion_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    assert hub_discussion_url("google-bert/bert-base-uncased") == \
        "https://huggingface.co/google-bert/bert-base-uncased/discussions"
    assert hub_discussion_url("gpt2") == "https://huggingface.co/gpt2/discussions"
    assert hub_discussion_url("nyu-mll/glue", "dataset") == \
        "https://huggingface.co/datasets/nyu-mll/glue/discussions"
    assert hub_discussion_url("gradio/hello_world", repo_type="spaces") == \
        "https://huggingface.co/spaces/gradio/hello_world/discussions"
    url, fit = hub_discussion_prefill_url("google-bert/bert-base-uncased", "Tokenizer question",
                                          TRICKY)
    assert fit and url.startswith(
        "https://huggingface.co/google-bert/bert-base-uncased/discussions/new?title=")
    assert _query(url) == {"title": "Tokenizer question", "description": TRICKY}
    with pytest.raises(ValueError, match="repo_type"):
        hub_discussion_url("gpt2", "notebook")
    for bad in ("a/b/c", "../etc", "", "has space/x"):
        with pytest.raises(ValueError, match="repo_id"):
            hub_discussion_url(bad)
    monkeypatch.setenv("HF_ENDPOINT", "https://hf-mirror.example/")
    assert hub_discussion_url("gpt2") == "https://hf-mirror.example/gpt2/discussions"


def test_sharing_follows_the_verdict() -> None:
    def result(kind: str, **evidence: object) -> dict:
        found = [{"id": "report.reproduction", "status": "warn", "evidence": evidence}]
        return {"verdict": {"kind": kind}, "findings": found}

    assert share_targets(result("library-bug")) == ("github", "forum", "hub")
    assert share_targets(result("inconclusive")) == ("forum",)          # a question
    assert share_targets(result("inconclusive", nonfinite_weights=4)) == ("forum", "hub")
    assert share_targets(result("user-error")) == ()                    # the report is the fix
    assert share_targets(result("healthy")) == ()
    assert share_targets({}) == ()


def test_split_title_takes_the_title_out_of_the_text() -> None:
    assert split_title("<!-- Title: A bug -->\n<!-- New issue -->\n### System Info\n") == (
        "A bug", "<!-- New issue -->\n### System Info\n")
    assert split_title("**Category:** X\n\n**Title:** Why?\n\nHi!\n") == (
        "Why?", "**Category:** X\n\nHi!\n")
    assert split_title("# A report\n") == (None, "# A report\n")


def test_the_issue_goes_to_the_library_the_evidence_blames() -> None:
    from wizard.core.repositories import issue_repository
    from wizard.reports.render import suspected_package

    def result(*findings: dict) -> dict:
        return {"findings": list(findings)}

    repro = {"id": "report.reproduction", "status": "warn",
             "evidence": {"verified": True, "package": "trl", "file": "trl/trainer/sft.py"}}
    assert suspected_package(result(repro)) == "trl"
    assert issue_repository("trl") == "huggingface/trl"
    unverified = {**repro, "evidence": {**repro["evidence"], "verified": False}}
    assert suspected_package(result(unverified)) is None   # an unverified script blames nothing
    triage = {"id": "triage.possible-library-bug", "status": "warn",
              "evidence": {"package": "datasets", "raised_in": "datasets/arrow_dataset.py:10"}}
    assert issue_repository(suspected_package(result(unverified, triage))) == "huggingface/datasets"
    forward = {"id": "model.forward-raised", "status": "fail",
               "evidence": {"innermost_frame": {"package": "torch", "file": "torch/nn/x.py"}}}
    assert issue_repository(suspected_package(result(forward))) == "pytorch/pytorch"
    assert issue_repository(None) == issue_repository("some-unknown-lib") == \
        "huggingface/transformers"
    assert issue_repository("huggingface-hub") == "huggingface/huggingface_hub"


def test_an_unknown_error_links_a_search_of_the_library_issues_for_its_stable_words() -> None:
    from urllib.parse import unquote

    from wizard.core.repositories import issue_search_url
    from wizard.triage.match import probe_triage

    url = issue_search_url("peft", "ValueError", "Layer 'model.layers.3' has 12 shards at "
                           "/tmp/run/x.bin but expected 0x1f")
    assert url is not None and url.startswith("https://github.com/huggingface/peft/issues?q=")
    # a phrase never joins the words around a number, a path or a name that vary
    assert unquote(url.split("?q=", 1)[1]) == '"shards at" "but expected" ValueError'
    # a quoted name is the subject of the message, unless it is the object's type
    assert unquote(issue_search_url("torch", "KeyError", "'labels'").split("?q=")[1]) == \
        "labels KeyError"
    assert unquote(issue_search_url("trl", "AttributeError", "'LlamaForCausalLM' object has no "
                                    "attribute 'vllm_engine'").split("?q=")[1]) == \
        '"object has no attribute" vllm_engine AttributeError'
    assert issue_search_url("torch", None, "12 at /tmp/x") is None   # nothing stable to search

    class Case:
        traceback = ('  File "/usr/lib/python3.10/site-packages/trl/trainer/sft.py", line 9, in '
                     "pack\n    x = self.buf[3]\nRuntimeError: the packing buffer of the trainer "
                     "overflowed after 12 steps")
    finding = probe_triage(Case())[0]
    assert finding.id == "triage.unknown-error"
    assert "github.com/huggingface/trl/issues?q=" in finding.fix
    assert finding.evidence["reported_before"] in finding.fix
