"""Reported before? GitHub's issue search for the pasted error (wizard/evidence/issue_search.py,
the report.reported-before check), against httpx transports and a fake GitHub on 127.0.0.1."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest

from tests.github_server import ISSUES, FakeGitHub, serve
from wizard import api
from wizard.evidence.issue_search import forget_answers, search_issues

ROOT = Path(__file__).resolve().parents[1]
# an error no signature knows, raised inside transformers' Trainer
UNKNOWN = """Traceback (most recent call last):
  File "/home/ana/project/train.py", line 12, in <module>
    trainer.train()
  File "/usr/lib/python3.11/site-packages/transformers/trainer.py", line 2240, in train
    return inner_training_loop(
  File "/usr/lib/python3.11/site-packages/transformers/trainer.py", line 2612, in _inner_training_loop
    self.control = self.callback_handler.on_step_end(args, self.state, self.control)
RuntimeError: The gradient accumulation state went out of sync with the scheduler at step 3
"""
KNOWN = ("ValueError: Asking to pad but the tokenizer does not have a padding token. Please "
         "select a token to use as `pad_token`")


def _answer(items: list[dict[str, Any]], seen: list[httpx.Request]) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"total_count": len(items), "items": items})
    return httpx.MockTransport(handle)


def _items() -> list[dict[str, Any]]:
    return [{**i, "html_url": f"https://github.com/huggingface/transformers/issues/{i['number']}"}
            for i in ISSUES]


@pytest.fixture(autouse=True)
def nothing_kept() -> Iterator[None]:
    """Each test asks GitHub afresh (answers are kept for a while within one process)."""
    forget_answers()
    yield
    forget_answers()


@pytest.fixture()
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    for fake in serve():
        monkeypatch.setenv("WIZARD_GITHUB_API", fake.url)
        monkeypatch.delenv("GITHUB_TOKEN", raising=False)
        monkeypatch.delenv("GH_TOKEN", raising=False)
        yield fake


def test_solved_issues_come_first_and_the_query_is_the_repositorys(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
    seen: list[httpx.Request] = []
    with httpx.Client(transport=_answer(_items(), seen)) as client:
        found = search_issues("huggingface/transformers", '"went out of sync" RuntimeError',
                              client=client)
    assert found.error is None and found.total == 3
    # closed as solved, then closed otherwise, then open; GitHub's order within each
    assert [h.number for h in found.hits] == [29876, 29001, 30001]
    assert found.hits[0].solved and not found.hits[1].solved and not found.hits[2].solved
    assert "[closed, 7 comments]" in found.hits[0].line()
    assert "closed (not planned), 1 comment]" in found.hits[1].line() and "[open," in found.hits[2].line()
    assert found.hits[0].fixed_by is None      # its timeline could not be read: left unsaid
    q = seen[0].url.params["q"]
    assert q == '"went out of sync" RuntimeError repo:huggingface/transformers is:issue'
    assert seen[0].headers["Authorization"] == "Bearer ghp_secret"
    assert found.page.startswith("https://github.com/huggingface/transformers/issues?q=")


@pytest.mark.parametrize("response, says", [
    (httpx.Response(403, headers={"X-RateLimit-Remaining": "0"}, json={}), "set GITHUB_TOKEN"),
    (httpx.Response(429, json={}), "limit is used up"),
    (httpx.Response(500, json={}), "GitHub answered 500"),
    (httpx.Response(200, text="<html>"), "could not be read"),
    (httpx.Response(200, json={"items": [{"title": "no number"}]}), "could not be read"),
])
def test_every_failure_is_one_sentence(response: httpx.Response, says: str,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return response
    with httpx.Client(transport=httpx.MockTransport(handle)) as client:
        found = search_issues("huggingface/peft", '"a b c"', client=client)
    assert says in found.error and found.hits == []
    assert "Authorization" not in seen[0].headers


def test_an_unreachable_github_is_one_sentence() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("Connection refused", request=request)
    with httpx.Client(transport=httpx.MockTransport(refuse)) as client:
        found = search_issues("huggingface/peft", '"a b c"', client=client)
    assert found.error.startswith("GitHub could not be reached (ConnectError")


def test_api_searches_only_when_asked_and_sends_no_paths(github: FakeGitHub) -> None:
    report = api.check({}, traceback=UNKNOWN, search_issues=True, device="cpu")
    assert report.result.path == ["api", "installation", "triage", "reported-before"]
    found = next(f for f in report.findings if f.id == "report.reported-before")
    assert found.status == "info"
    assert found.title == ("Reported before: 3 issues of transformers with this error "
                           "(1 closed as solved)")
    assert found.fix.startswith("# read first: https://github.com/huggingface/transformers/"
                                "issues/29876")
    assert [q["q"] for q in github.queries] == [
        '"The gradient accumulation state went out" RuntimeError repo:huggingface/transformers '
        'is:issue']
    assert "ana" not in github.queries[0]["q"] and "train.py" not in github.queries[0]["q"]
    assert report.result.verdict.reasons[-1].endswith(
        "read https://github.com/huggingface/transformers/issues/29876 first (fixed by #29901, "
        "merged 2024-05-02)")
    assert "pip install -U transformers   # the fix of #29876" in found.fix
    assert found.evidence["fix_url"] == "https://github.com/huggingface/transformers/pull/29901"

    api.check({}, traceback=UNKNOWN, device="cpu")            # not asked: nothing leaves
    api.check({}, traceback=KNOWN, search_issues=True, device="cpu")   # a known cause: no need
    assert len(github.queries) == 1


def test_a_used_up_rate_limit_skips_with_the_page_to_read(github: FakeGitHub) -> None:
    github.rate_limited = True
    report = api.check({"search_issues": True}, traceback=UNKNOWN, device="cpu")
    found = next(f for f in report.findings if f.id == "report.reported-before")
    assert found.status == "skip" and "set GITHUB_TOKEN" in found.explanation
    assert "github.com/huggingface/transformers/issues?q=" in found.fix
    assert not any("Reported before" in r for r in report.result.verdict.reasons)


def test_cli_flag_prints_the_issues(github: FakeGitHub, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = tmp_path / "result.json"
    done = subprocess.run([sys.executable, "-m", "wizard", "check", "--traceback", "-",
                           "--search-issues", "--json", str(out), "--device", "cpu"],
                          input=UNKNOWN, text=True, capture_output=True, env=env, cwd=ROOT,
                          timeout=300)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    assert "Reported before: 3 issues of transformers" in done.stdout
    assert "#29876" in done.stdout
    result = json.loads(out.read_text())
    assert result["case"]["search_issues"] is True
    assert len(github.queries) == 1


def test_a_full_case_searches_after_the_report_step() -> None:
    from wizard.core.case import Case
    from wizard.engine.plan import plan

    case = Case(model="distilbert-base-uncased", symptom="error", traceback=UNKNOWN)
    assert [s.id for s in plan(case)][-1] == "report"
    case.search_issues = True
    assert [s.id for s in plan(case)][-2:] == ["report", "reported-before"]


def test_a_paste_without_an_exception_is_searched_by_the_programs_line() -> None:
    from wizard.triage.match import error_line, triage

    paste = ("Hi, I get an error when I train my model, any idea?\n"
             "model = AutoModel.from_pretrained(path)\n"
             "the scheduler state could not be restored from the checkpoint at step 5\n"
             "thanks for your help")
    assert error_line(paste) == ("the scheduler state could not be restored from the checkpoint "
                                 "at step 5")
    assert triage(paste).search_terms[1] == '"the scheduler state could not be"'
    # only the reporter's words: nothing to search for, rather than their sentence
    assert triage("I get an error when I train my model, can anyone help?").search_terms is None


def test_wizard_run_searches_a_failure_raised_inside_a_library(github: FakeGitHub,
                                                                tmp_path: Path) -> None:
    """`wizard run --search-issues` on a script whose library raises an error no signature
    knows: the search runs after the run; the same script raising in its own code is not
    searched for (the line shown is where to start)."""
    lib = tmp_path / "site-packages" / "widgetlib"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text(
        "def assemble(n):\n"
        "    raise RuntimeError(f'The widget pipeline lost its gate after {n} parts')\n")
    script = tmp_path / "train.py"
    script.write_text(f"import sys\nsys.path.insert(0, {str(lib.parent)!r})\n"
                      "import widgetlib\nwidgetlib.assemble(3)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "USE_TF": "0"}
    out = tmp_path / "out.json"
    done = subprocess.run([sys.executable, "-m", "wizard", "run", "--out", str(tmp_path / "s"),
                           "--search-issues", "--json", str(out), str(script)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.exists(), done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["path"][-1] == "reported-before"
    assert [q["q"] for q in github.queries] == [
        '"The widget pipeline lost its gate" RuntimeError repo:huggingface/transformers is:issue']

    script.write_text("raise RuntimeError('The widget pipeline lost its gate after 3 parts')\n")
    subprocess.run([sys.executable, "-m", "wizard", "run", "--out", str(tmp_path / "s2"),
                    "--search-issues", "--json", str(out), str(script)],
                   cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert json.loads(out.read_text())["path"][-1] != "reported-before"
    assert len(github.queries) == 1


def test_the_same_search_again_is_answered_from_what_was_kept() -> None:
    seen: list[httpx.Request] = []
    with httpx.Client(transport=_answer(_items(), seen)) as client:
        first = search_issues("huggingface/peft", '"a b c"', client=client)
        again = search_issues("huggingface/peft", '"a b c"', client=client)
        other = search_issues("huggingface/peft", '"a b d"', client=client)
    searches = [r for r in seen if r.url.path == "/search/issues"]
    assert len(searches) == 2 and again is first and other is not first

    def refuse(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(500, json={})
    with httpx.Client(transport=httpx.MockTransport(refuse)) as client:   # failures are not kept
        search_issues("huggingface/trl", '"x y z"', client=client)
        search_issues("huggingface/trl", '"x y z"', client=client)
    assert len([r for r in seen if "trl" in r.url.params.get("q", "")]) == 2


@pytest.mark.parametrize("events, fixed_by", [
    ([{"event": "cross-referenced", "source": {"type": "issue", "issue": {
        "number": 29901, "html_url": "https://github.com/huggingface/transformers/pull/29901",
        "pull_request": {"merged_at": "2024-05-02T09:00:00Z"},
        "repository": {"full_name": "huggingface/transformers"}}}},
      {"event": "closed", "commit_id": None}], "#29901, merged 2024-05-02"),
    ([{"event": "cross-referenced", "source": {"type": "issue", "issue": {   # another repo's,
        "number": 7, "html_url": "https://github.com/x/y/pull/7",          # or not merged
        "pull_request": {"merged_at": "2024-05-01T09:00:00Z"}, "repository": {"full_name": "x/y"}}}},
      {"event": "cross-referenced", "source": {"type": "issue", "issue": {
          "number": 8, "pull_request": {"merged_at": None}}}},
      {"event": "closed", "commit_id": "1a2b3c4d5e6f", "commit_url": "https://x"}],
     "commit 1a2b3c4"),
    ([{"event": "closed", "commit_id": None}], None),
    ({"message": "Not Found"}, None),
])
def test_the_first_solved_issue_says_what_fixed_it(events: Any, fixed_by: str | None) -> None:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.endswith("/timeline"):
            return httpx.Response(200 if isinstance(events, list) else 404, json=events)
        return httpx.Response(200, json={"total_count": 3, "items": _items()})
    with httpx.Client(transport=httpx.MockTransport(handle)) as client:
        found = search_issues("huggingface/transformers", '"x y z"', client=client)
    assert [r.url.path for r in seen] == [
        "/search/issues", "/repos/huggingface/transformers/issues/29876/timeline"]
    assert found.hits[0].fixed_by == fixed_by and all(h.fixed_by is None for h in found.hits[1:])
    assert (f"fixed by {fixed_by}," in found.hits[0].line()) == bool(fixed_by)


def test_a_timeline_that_times_out_leaves_the_search_standing() -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/timeline"):
            raise httpx.ReadTimeout("slow", request=request)
        return httpx.Response(200, json={"total_count": 3, "items": _items()})
    with httpx.Client(transport=httpx.MockTransport(handle)) as client:
        found = search_issues("huggingface/transformers", '"x y z"', client=client)
    assert found.error is None and len(found.hits) == 3 and found.hits[0].fixed_by is None


@pytest.mark.parametrize("paste, repository", [
    # no frames: the library the user's code enters through, not the one it is built on
    ("from transformers import AutoModelForCausalLM\nfrom trl import SFTTrainer\n"
     "trainer = SFTTrainer(model=model, train_dataset=ds)\n"
     "ValueError: The train_dataset has no column that can be used for training",
     "huggingface/trl"),
    # a library class named in the message
    ("TypeError: DPOTrainer.__init__() got an unexpected keyword argument 'foo_bar'\n"
     "transformers 4.40, torch 2.2", "huggingface/trl"),
    # a library class the code calls
    ("embedder = SentenceTransformer(modules=[word_embedding_model, pooling_model])\n"
     "embeddings = embedder.encode(corpus)\nRuntimeError: CUDA error: invalid argument",
     "huggingface/sentence-transformers"),
    # the innermost library frame still decides
    ("from trl import SFTTrainer\nTraceback (most recent call last):\n"
     '  File "/usr/lib/python3/site-packages/datasets/arrow_dataset.py", line 3, in map\n'
     "    raise ValueError(x)\nValueError: Column lengths mismatch between batches",
     "huggingface/datasets"),
    # 'evaluate' as a word is no library named
    ("I want to evaluate the model after training.\nfrom transformers import Trainer\n"
     "RuntimeError: Expected all tensors to be on the same device", "huggingface/transformers"),
])
def test_the_search_goes_to_the_repository_of_the_library_used(paste: str,
                                                                 repository: str) -> None:
    from wizard.triage.match import triage

    terms = triage(paste).search_terms
    assert terms is not None and terms[0] == repository
