"""Completion-only SFT: does truncation leave the completion in the text? The completion sits at
the end of each example, and truncation that keeps the start cuts the end first."""
from __future__ import annotations

from typing import Any

import numpy as np

from wizard.backends.lm_data import prompt_and_text
from wizard.checks.text import truncation_limit
from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding

CUT_FAIL_SHARE = 0.20  # share of examples whose completion is cut that fails (below: a warning)
ROWS = 256             # rows of the train split measured


def probe_completion_truncation(case: Case, ctx: Context) -> list[Finding]:
    """data.lm-completion-truncated: with the loss on the completion, the share of examples
    whose completion loses tokens (or all of them) to max_length."""
    pre = case.preprocessing
    if pre.packing or not pre.truncation:
        return []
    split = ctx.raw.get(case.dataset.train_split) if hasattr(ctx.raw, "get") else None
    if split is None or not len(split):
        return []
    tok = ctx.tokenizer
    cut = truncation_limit(case, tok)
    if cut is None:
        return []
    rows = [split[i] for i in range(min(ROWS, len(split)))]
    pairs = [prompt_and_text(case, row, tok) for row in rows]
    known_prompt = any(p for p, _ in pairs)
    if pre.lm_labels != "completion-only" and not known_prompt:
        return []  # the whole text is trained on: a cut end is the ordinary truncation
    eos = getattr(tok, "eos_token", None) or ""
    texts = [t + eos if pre.add_eos and eos and not t.endswith(eos) else t for _, t in pairs]
    whole = np.asarray([len(x) for x in tok(texts, truncation=False)["input_ids"]])
    prompts = [p for p, _ in pairs]
    prompt_len = np.asarray([len(x) if p else 0 for p, x in zip(
        prompts, tok([p or " " for p in prompts], truncation=False)["input_ids"])])
    keeps_end = (pre.truncation_side or getattr(tok, "truncation_side", "right")) == "left"
    cut_rows = whole > cut
    lost = (prompt_len >= cut) & cut_rows if known_prompt else np.zeros_like(cut_rows)
    evidence: dict[str, Any] = {
        "rows": len(rows), "truncation_limit": cut,
        "truncation_side": "left" if keeps_end else "right",
        "longer_than_limit": int(cut_rows.sum()), "completions_lost": int(lost.sum()),
        "prompt_known": known_prompt, "median_tokens": float(np.median(whole)),
        "longest": int(whole.max())}
    if keeps_end or not cut_rows.any():
        why = ("truncation keeps the end (truncation_side='left')" if keeps_end and cut_rows.any()
               else f"every example fits in {cut} tokens")
        return [Finding("data.lm-completion-truncated", "pass",
                        f"The completions survive truncation: {why}", evidence=evidence)]
    share = float(cut_rows.mean())
    if known_prompt and lost.any():
        title = (f"{int(lost.sum())} of {len(rows)} prompts fill max_length={cut} by themselves: "
                 "their completions are cut away entirely")
    else:
        title = (f"{int(cut_rows.sum())} of {len(rows)} examples are longer than max_length={cut}: "
                 "truncation cuts the completion at their end")
    status = "fail" if share >= CUT_FAIL_SHARE else "warn"
    p99 = int(np.ceil(np.percentile(whole, 99)))
    return [Finding(
        "data.lm-completion-truncated", status, title, evidence=evidence,
        explanation="The loss is taken on the completion only, and it comes last in each "
                    "example; truncation that keeps the start cuts it first. A cut completion "
                    "teaches a cut answer; one cut away entirely leaves the example nothing to "
                    "train on (TRL drops such rows, and with all of them gone train() fails on "
                    "an empty dataset).",
        fix=f"SFTConfig(max_length={p99})   # {p99} tokens hold 99% of the examples; or shorten "
            "the prompts (truncate the prompt, not the answer)")]
