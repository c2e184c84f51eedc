"""data.lm-completion-truncated on the tiny Llama's prompt/completion and text data: completions
that fit pass, completions cut (or cut away by a prompt that fills max_length) fail, truncation
that keeps the end passes, and a plain text trained on whole gets no finding; the script reader
takes TRL's prompt/completion rows for a completion-only loss."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import needs_torch
from tests.test_causal_lm import by_id, lm_case, probe

pytestmark = needs_torch
PAIRS_WORDS = 11  # "question : what did tom 's cat do on day one ?"


@pytest.fixture(scope="module")
def fx(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from tests.lm_fixtures import build

    return build(tmp_path_factory.mktemp("lm"))


def pairs_case(fx: dict[str, Path], max_length: int, side: str | None = None, **over):
    return lm_case(fx, dataset={"path": str(fx["pairs"]), "text_columns": ["prompt", "completion"]},
                   preprocessing={"lm_labels": "completion-only", "max_length": max_length,
                                  "truncation_side": side}, **over)


def test_completions_that_fit_pass_and_cut_ones_fail(fx):
    fits = by_id(probe(pairs_case(fx, 48), "lm-completion-length"), "data.lm-completion-truncated")
    assert fits.status == "pass" and fits.evidence["longer_than_limit"] == 0

    cut = by_id(probe(pairs_case(fx, PAIRS_WORDS + 3), "lm-completion-length"),
                "data.lm-completion-truncated")
    assert cut.status == "fail" and cut.evidence["completions_lost"] == 0
    assert cut.evidence["longer_than_limit"] == cut.evidence["rows"]
    assert "SFTConfig(max_length=" in cut.fix

    lost = by_id(probe(pairs_case(fx, PAIRS_WORDS - 3), "lm-completion-length"),
                 "data.lm-completion-truncated")
    assert lost.status == "fail" and lost.evidence["completions_lost"] == lost.evidence["rows"]
    assert "cut away entirely" in lost.title


def test_truncation_that_keeps_the_end_keeps_the_completion(fx, tmp_path):
    from transformers import AutoTokenizer

    left = tmp_path / "tiny-llama-left"
    shutil.copytree(fx["model"], left)
    AutoTokenizer.from_pretrained(left, truncation_side="left").save_pretrained(left)
    found = by_id(probe(pairs_case(fx, PAIRS_WORDS + 3, model=str(left)), "lm-completion-length"),
                  "data.lm-completion-truncated")
    assert found.status == "pass" and found.evidence["truncation_side"] == "left"
    # the case saying so (the script sets it) over a tokenizer that cuts the right
    said = by_id(probe(pairs_case(fx, PAIRS_WORDS + 3, side="left"), "lm-completion-length"),
                 "data.lm-completion-truncated")
    assert said.status == "pass"


def test_a_text_trained_on_whole_is_not_judged(fx):
    """Cutting the end of a plain text is ordinary truncation: no finding at all."""
    assert probe(lm_case(fx, preprocessing={"max_length": 8}), "lm-completion-length") == []
    # the same text with the loss on its end (completion-only): cut completions
    only = probe(lm_case(fx, preprocessing={"max_length": 8, "lm_labels": "completion-only"}),
                 "lm-completion-length")
    assert by_id(only, "data.lm-completion-truncated").status == "fail"


def test_script_building_prompt_completion_rows_is_read_as_completion_only():
    from wizard.script.reader import read_script

    script = ("from datasets import load_from_disk\nfrom trl import SFTConfig, SFTTrainer\n"
              "raw = load_from_disk('data')\n\n"
              "def to_pc(example):\n    return {ROWS}\n\n"
              "ds = raw.map(to_pc)\n"
              "trainer = SFTTrainer(model='m', args=SFTConfig('out', max_length=64), "
              "train_dataset=ds['train'])\ntrainer.train()\n")
    pc = read_script(script.replace("ROWS", "{'prompt': example['text'], "
                                            "'completion': example['answer']}")).case
    assert pc.preprocessing.lm_labels == "completion-only"
    # control: rows of plain text are trained on whole, by TRL's own collator
    text = read_script(script.replace("ROWS", "{'text': example['text']}")).case
    assert text.preprocessing.lm_labels == "sft"


def test_the_truncation_side_is_read_from_the_script():
    from wizard.script.reader import read_script

    base = ("from transformers import AutoTokenizer\n"
            "tokenizer = AutoTokenizer.from_pretrained('m'{kw})\n{line}")
    assert read_script(base.format(kw="", line="tokenizer.truncation_side = 'left'\n")
                       ).case.preprocessing.truncation_side == "left"
    assert read_script(base.format(kw=", truncation_side='left'", line="")
                       ).case.preprocessing.truncation_side == "left"
    sft = ("from trl import SFTConfig, SFTTrainer\nargs = SFTConfig('out', truncation_mode="
           "'keep_end')\nSFTTrainer(model='m', args=args, train_dataset=ds).train()\n")
    assert read_script(sft).case.preprocessing.truncation_side == "left"
    # control: nothing said, the tokenizer's own
    assert read_script(base.format(kw="", line="")).case.preprocessing.truncation_side is None
