"""Causal LM / SFT checks on the first batch as it enters the model: labels against input_ids,
padding and the prompt in the loss, the pad = eos pitfall, and the chat template."""
from __future__ import annotations

from typing import Any

import numpy as np

from wizard.backends.lm_data import IGNORE_INDEX, is_chat, prompt_and_text
from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding

# chat formats by a marker only they use
CHAT_MARKERS = {"ChatML": "<|im_start|>", "Llama 2 / Mistral": "[INST]",
                "Llama 3": "<|start_header_id|>", "Gemma": "<start_of_turn>",
                "Phi-3 / Zephyr": "<|user|>"}
PROMPT_KEPT_WARN = 0.5  # share of prompt tokens left in the loss above which it warns


def _row_tokens(tok: Any, ids: np.ndarray, labels: np.ndarray, mask: np.ndarray,
                limit: int = 40) -> list[str]:
    """One row as `token|label` pairs (label shown as -100 or =, the same id as the input)."""
    out = []
    for t, lab, m in list(zip(ids, labels, mask))[:limit]:
        word = tok.convert_ids_to_tokens(int(t)) if tok is not None else str(int(t))
        shown = "-100" if lab == IGNORE_INDEX else ("=" if lab == t else str(int(lab)))
        out.append(f"{word}|{shown}" + ("" if m else "(pad)"))
    return out


def probe_lm_labels(case: Case, ctx: Context) -> list[Finding]:
    """The labels of the first batch: present, equal to input_ids where kept, padding and (for
    completion-only SFT) the prompt masked, the eos kept."""
    batch = ctx.batch
    inputs = batch.inputs
    labels = inputs.get("labels", batch.labels)
    if labels is None:
        return [Finding(
            "data.lm-labels-missing", "fail", "The batch has no labels: the model returns no loss",
            evidence={"keys": sorted(inputs)},
            explanation="A causal LM computes its loss only when `labels` enter with the "
                        "inputs; DataCollatorWithPadding does not make them for a text without a "
                        "label column.",
            fix="data_collator = DataCollatorForLanguageModeling(tokenizer, mlm=False)")]
    ids = np.asarray(inputs["input_ids"])
    labels = np.asarray(labels)
    mask = np.asarray(inputs.get("attention_mask", np.ones_like(ids)))
    try:
        tok = ctx.tokenizer
    except Exception:  # noqa: BLE001 - a live run without a loadable tokenizer: ids only
        tok = None
    kept, real = labels != IGNORE_INDEX, mask == 1
    evidence: dict[str, Any] = {
        "batch_shape": list(ids.shape), "label_positions": int(kept.sum()),
        "masked_positions": int((~kept).sum()), "padding_positions": int((~real).sum()),
        "labels_made_by": case.preprocessing.lm_labels,
        "example_row": _row_tokens(tok, ids[0], labels[0], mask[0])}
    findings: list[Finding] = []
    if labels.shape != ids.shape:
        return [Finding("data.lm-labels", "fail",
                        f"labels have shape {list(labels.shape)}, input_ids {list(ids.shape)}",
                        evidence=evidence,
                        explanation="A causal LM's labels are its input_ids, position by "
                                    "position; the model shifts them itself.",
                        fix="data_collator = DataCollatorForLanguageModeling(tokenizer, mlm=False)")]
    differ = kept & (labels != ids)
    if differ.any():
        shifted = bool(ids.shape[1] > 1 and (labels[:, :-1] == ids[:, 1:])[kept[:, :-1]].mean() > 0.9)
        findings.append(Finding(
            "data.lm-labels", "fail",
            f"labels differ from input_ids at {int(differ.sum())} kept position(s)"
            + (": they are already shifted" if shifted else ""),
            evidence={**evidence, "already_shifted": shifted},
            explanation="transformers' causal LMs shift the labels by one inside the model; "
                        "labels shifted (or built from another text) by the script train the "
                        "model to predict the wrong token.",
            fix='batch["labels"] = batch["input_ids"].clone()   # unshifted; -100 where ignored'))
    pad_kept = kept & ~real
    if pad_kept.any():
        share = pad_kept.sum() / max(1, kept.sum())
        findings.append(Finding(
            "data.lm-padding-in-loss", "fail",
            f"{int(pad_kept.sum())} padding position(s) are trained on ({share:.0%} of the loss)",
            evidence={**evidence, "padding_in_loss": int(pad_kept.sum()),
                      "share_of_loss": round(float(share), 3)},
            explanation="The labels at padding positions are real token ids, so the model "
                        "learns to predict padding after every text and the loss is diluted. "
                        "Copying input_ids to labels keeps the padding.",
            fix=_fix_padding(case)))
    findings += _prompt_finding(case, ctx, kept, real, evidence)
    findings += _eos_findings(case, tok, ids, kept, real, evidence)
    if not any(f.status == "fail" for f in findings):
        masked = f"{evidence['padding_positions']} padding position(s)"
        if evidence.get("prompt_tokens") and not evidence.get("prompt_tokens_in_loss"):
            masked += f" and the {evidence['prompt_tokens']} prompt tokens"
        masked += " masked"
        findings.insert(0, Finding(
            "data.lm-labels", "pass", f"labels are input_ids with {masked} (-100)",
            evidence=evidence,
            explanation="The labels match input_ids wherever the loss is taken; the model "
                        "shifts them by one itself."))
    return findings


def _fix_padding(case: Case) -> str:
    if case.preprocessing.lm_labels == "copy":
        return ("# drop `labels = input_ids` from the preprocessing and let the collator mask "
                "the padding:\ndata_collator = DataCollatorForLanguageModeling(tokenizer, mlm=False)")
    return ('labels[batch["attention_mask"] == 0] = -100')


def _prompt_finding(case: Case, ctx: Context, kept: np.ndarray, real: np.ndarray,
                    evidence: dict[str, Any]) -> list[Finding]:
    """For prompt/completion or chat data built by the wizard: is the prompt in the loss?"""
    if ctx.supplied:
        return []  # a live batch may be shuffled: its rows are not the dataset's first rows
    split = ctx.tokenized[case.dataset.train_split]
    if "prompt_length" not in split.column_names:
        return []
    lengths = list(split.select(range(kept.shape[0]))["prompt_length"])
    prompt_total = kept_in_prompt = 0
    for i, n in enumerate(lengths):
        start = int((~real[i]).sum()) if not real[i, 0] else 0  # left padding
        prompt_total += int(n)
        kept_in_prompt += int(kept[i, start:start + int(n)].sum())
    if not prompt_total:
        return []
    share = kept_in_prompt / prompt_total
    evidence.update(prompt_tokens=prompt_total, prompt_tokens_in_loss=kept_in_prompt)
    info = dict(evidence)
    if share <= PROMPT_KEPT_WARN:
        return []
    return [Finding(
        "data.lm-prompt-in-loss", "warn",
        f"{share:.0%} of the prompt tokens are trained on, not only the completion",
        evidence=info,
        explanation="The dataset separates prompt and completion, but the labels keep the "
                    "prompt, so part of the loss teaches the model to write the questions.",
        fix="SFTConfig(completion_only_loss=True)   # TRL; or set the prompt's labels to -100")]


def _eos_findings(case: Case, tok: Any, ids: np.ndarray, kept: np.ndarray, real: np.ndarray,
                  evidence: dict[str, Any]) -> list[Finding]:
    eos = getattr(tok, "eos_token_id", None)
    if not isinstance(eos, int):
        return []
    pad = getattr(tok, "pad_token_id", None)
    eos_real = (ids == eos) & real
    info = {**evidence, "eos_token_id": eos, "pad_token_id": pad,
            "eos_in_texts": int(eos_real.sum())}
    if eos_real.any():
        masked = eos_real & ~kept
        if masked.any():
            return [Finding(
                "data.lm-eos-masked", "fail",
                f"The eos token is masked out of the labels at {int(masked.sum())} of "
                f"{int(eos_real.sum())} place(s)" + (" (pad_token = eos_token)" if pad == eos else ""),
                evidence={**info, "eos_masked": int(masked.sum())},
                explanation="The collator sets every pad_token_id to -100; with pad_token = "
                            "eos_token that includes the real eos ending each text, so the model "
                            "never learns to stop generating.",
                fix='tokenizer.add_special_tokens({"pad_token": "<pad>"})\n'
                    "model.resize_token_embeddings(len(tokenizer))   # a pad distinct from eos")]
        return []
    sft = len(case.dataset.text_columns) >= 2 or case.preprocessing.lm_labels == "completion-only"
    return [Finding(
        "data.lm-no-eos", "warn" if sft else "info",
        "No text in the first batch ends with the eos token",
        evidence=info,
        explanation="Nothing in the labels marks where a text ends; an SFT model trained this "
                    "way keeps generating after its answer.",
        fix="texts = [t + tokenizer.eos_token for t in texts]")]


def probe_chat_template(case: Case, ctx: Context) -> list[Finding]:
    """Chat-shaped rows need the tokenizer's chat template; pre-formatted texts should use the
    markers of that template, each one token."""
    split = ctx.raw[case.dataset.train_split]
    cols = [c for c in case.dataset.text_columns if c in split.column_names]
    if not cols:
        return []
    tok = ctx.tokenizer
    template = getattr(tok, "chat_template", None) or ""
    if isinstance(template, dict):
        template = " ".join(str(v) for v in template.values())
    values = list(split[cols[0]][:32])
    if any(is_chat(v) for v in values):
        if not template:
            return [Finding(
                "data.chat-template-missing", "fail",
                f"Column {cols[0]!r} holds chat messages but the tokenizer has no chat template",
                evidence={"column": cols[0], "example": values[0][:3]},
                explanation="apply_chat_template raises without a template, or the roles are "
                            "flattened into plain text the model will not see at inference.",
                fix="tokenizer.chat_template = AutoTokenizer.from_pretrained(INSTRUCT_MODEL)"
                    ".chat_template")]
        _, text = prompt_and_text(case, split[0], tok)
        return [Finding("data.chat-template-missing", "pass",
                        "Chat rows are formatted with the tokenizer's chat template",
                        evidence={"column": cols[0], "rendered_example": text[:300]})]
    texts = [v for v in values if isinstance(v, str)]
    found = {name: m for name, m in CHAT_MARKERS.items() if any(m in t for t in texts)}
    if not found:
        return []
    findings = []
    for name, marker in found.items():
        pieces = len(tok(marker, add_special_tokens=False)["input_ids"])
        problems = []
        if marker not in template:
            problems.append("the tokenizer's chat template does not use it" if template else
                            "the tokenizer has no chat template")
        if pieces > 1:
            problems.append(f"the tokenizer splits it into {pieces} tokens")
        evidence = {"format": name, "marker": marker, "tokens_per_marker": pieces,
                    "template_set": bool(template)}
        if problems:
            findings.append(Finding(
                "data.chat-template-mismatch", "warn",
                f"The texts are formatted as {name} ({marker}) but {' and '.join(problems)}",
                evidence=evidence,
                explanation="Training and inference must use one chat format: the model's "
                            "own template, whose markers are single special tokens.",
                fix="text = tokenizer.apply_chat_template(messages, tokenize=False)"))
        else:
            findings.append(Finding("data.chat-template-mismatch", "pass",
                                    f"The texts use the tokenizer's own chat format ({name})",
                                    evidence=evidence))
    return findings
