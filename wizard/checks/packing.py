"""Packing for causal LM / SFT: examples concatenated into blocks must be separated by an eos
(else they run together and the model learns to continue one text with the next), and a block
must not be longer than the model's context."""
from __future__ import annotations

from typing import Any

import numpy as np

from wizard.backends.lm_data import packing_length
from wizard.checks.collation import model_config
from wizard.checks.text import max_positions
from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding

LIVE_BLOCKS = 20_000   # the packed blocks of a live run searched for an eos

EOS_FIX = ("def add_eos(example):\n"
           "    example[\"text\"] = example[\"text\"] + tokenizer.eos_token\n"
           "    return example\n"
           "raw = raw.map(add_eos)   # before tokenizing and packing; TRL's SFTTrainer adds it "
           "itself")


def probe_packing(case: Case, ctx: Context) -> list[Finding]:
    if not case.preprocessing.packing:
        return []
    tok = ctx.tokenizer
    block = packing_length(case, tok)
    limit, source = max_positions(model_config(ctx))
    evidence: dict[str, Any] = {"block_length": block, "model_context": limit,
                                "context_from": source, "eos_token": tok.eos_token}
    findings: list[Finding] = []
    if limit is not None and block > limit:
        findings.append(Finding(
            "data.packing-too-long", "fail",
            f"Packed blocks of {block} tokens are {block / limit:.1f}x the model's context of "
            f"{limit} tokens",
            evidence=evidence,
            explanation="Positions past the context have no trained embedding: learned "
                        "positions raise an index error, rotary ones train on positions the "
                        "model never saw, and attention memory grows with the square of the "
                        "block.",
            fix=f"SFTConfig(packing=True, max_length={limit})   # or block_size = {limit} in "
                "group_texts"))
    # a live run's data is the script's own, already packed: its joins are not known here,
    # but a stream of examples packed without any eos has none in any block
    split = None if ctx.supplied else ctx.tokenized[case.dataset.train_split]
    if split is None:
        findings += _live_blocks_without_eos(ctx, case, tok, evidence)
    if split is not None and "joins" in split.column_names:
        joins = int(np.sum(split["joins"]))
        bare = int(np.sum(split["joins_without_eos"]))
        evidence.update(packed_blocks=len(split), joins=joins, joins_without_eos=bare)
        if bare:
            findings.append(Finding(
                "data.packing-no-eos", "fail",
                f"{bare} of {joins} joins between packed examples have no eos: the examples "
                "run together",
                evidence=evidence,
                explanation="Packing concatenates examples into one stream; without an eos "
                            "ending each one the model is trained to continue a text with the "
                            "start of an unrelated one, and never learns where to stop.",
                fix=EOS_FIX))
    if not findings:
        findings.append(Finding(
            "data.packing", "pass",
            f"Packed blocks of {block} tokens fit the model's context"
            + (f"; all {evidence['joins']} joins between examples have an eos"
               if evidence.get("joins") else ""),
            evidence=evidence))
    return findings


def _live_blocks_without_eos(ctx: Context, case: Case, tok: Any,
                             evidence: dict[str, Any]) -> list[Finding]:
    """The script's packed blocks (a live run): examples joined with an eos leave one in
    some block; none in any of them means they were joined without one."""
    eos = getattr(tok, "eos_token_id", None)
    try:
        split = ctx.tokenized[case.dataset.train_split]
    except Exception:  # noqa: BLE001 - the live data is not a tokenized split: nothing to count
        return []
    if not isinstance(eos, int) or "input_ids" not in getattr(split, "column_names", ()):
        return []
    blocks = [list(ids) for ids in split["input_ids"][:LIVE_BLOCKS]]
    if len(blocks) < 2 or any(eos in ids for ids in blocks):
        return []
    evidence.update(packed_blocks=len(blocks), eos_in_blocks=0,
                    tokens=sum(len(ids) for ids in blocks))
    return [Finding(
        "data.packing-no-eos", "fail",
        f"None of the {len(blocks)} packed blocks holds an eos: the examples run together",
        evidence=evidence,
        explanation="Packing concatenates examples into one stream; without an eos ending "
                    "each one the model is trained to continue a text with the start of an "
                    "unrelated one, and never learns where to stop.",
        fix=EOS_FIX)]
