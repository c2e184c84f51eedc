"""Seq2seq checks on the first batch and the sample: the model can build its decoder inputs
(a decoder_start_token_id), the label padding is -100, the targets fit max_target_length, and
targets tokenized like inputs get the ids text_target= would give them."""
from __future__ import annotations

from typing import Any

import numpy as np

from wizard.backends.lm_data import IGNORE_INDEX
from wizard.backends.seq2seq_data import target_ids
from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding

TARGET_CUT_WARN = 0.05  # share of targets cut by max_target_length above which it warns
TARGET_FIX = ('model_inputs = tokenizer(examples["{source}"], max_length={max_length}, '
              'truncation=True)\n'
              'model_inputs["labels"] = tokenizer(text_target=examples["{target}"], '
              'max_length={target_length}, truncation=True)["input_ids"]')


def _start_fix(config: Any, tok: Any) -> str:
    """The line that gives the model a decoder start token (T5 starts with pad, BERT2BERT with
    CLS, most others with bos)."""
    if getattr(config, "model_type", "") in ("t5", "mt5", "umt5", "longt5"):
        name = "pad_token_id"
    elif getattr(tok, "cls_token_id", None) is not None:
        name = "cls_token_id"
    else:
        name = "bos_token_id"
    return f"model.config.decoder_start_token_id = tokenizer.{name}"


def probe_seq2seq_labels(case: Case, ctx: Context) -> list[Finding]:
    config, tok, batch = ctx.config, ctx.tokenizer, ctx.batch
    start = getattr(config, "decoder_start_token_id", None)
    evidence: dict[str, Any] = {"decoder_start_token_id": start,
                                "pad_token_id": tok.pad_token_id, "eos_token_id": tok.eos_token_id,
                                "label_pad": str(case.preprocessing.label_pad),
                                "targets": case.preprocessing.targets}
    findings: list[Finding] = []
    if start is None:
        findings.append(Finding(
            "model.decoder-start-missing", "fail",
            "The model has no decoder_start_token_id: it cannot build its decoder inputs",
            evidence={**evidence, "model_type": getattr(config, "model_type", None)},
            explanation="A seq2seq model makes its decoder_input_ids by shifting the labels "
                        "right behind decoder_start_token_id; without it the forward with labels "
                        "raises (an encoder-decoder assembled from two checkpoints has none).",
            fix=_start_fix(config, tok)))
    labels = batch.inputs.get("labels", batch.labels)
    if labels is None:
        return findings + [Finding(
            "data.seq2seq-label-padding", "fail", "The batch has no labels: the model returns no loss",
            evidence={**evidence, "keys": sorted(batch.inputs)},
            explanation="A seq2seq model computes its loss only when the tokenized targets enter "
                        "as `labels`.",
            fix=TARGET_FIX.format(source=case.dataset.text_columns[0], max_length=128,
                                  target=case.dataset.text_columns[-1], target_length=128))]
    labels = np.asarray(labels)
    padded = _padding_in_labels(labels, tok.pad_token_id, tok.eos_token_id)
    kept = int((labels != IGNORE_INDEX).sum())
    evidence.update(batch_shape=list(labels.shape), label_positions=kept,
                    masked_positions=int((labels == IGNORE_INDEX).sum()),
                    example_labels=tok.convert_ids_to_tokens(
                        [int(t) for t in labels[0] if t != IGNORE_INDEX][:32]))
    if "decoder_input_ids" in batch.inputs:
        evidence["decoder_input_ids_row"] = [int(t) for t in batch.inputs["decoder_input_ids"][0][:8]]
    if padded:
        findings.append(Finding(
            "data.seq2seq-label-padding", "fail",
            f"{padded} label position(s) are padding with the pad id {tok.pad_token_id} "
            f"({padded / max(1, kept):.0%} of the loss), not -100",
            evidence={**evidence, "padding_in_loss": padded},
            explanation="The loss skips only -100. Labels padded with the pad token id train "
                        "the model to write padding after every target and dilute the loss.",
            fix="data_collator = DataCollatorForSeq2Seq(tokenizer, model=model, "
                "label_pad_token_id=-100)\n# targets padded by the tokenizer: labels = [[t if t != "
                "tokenizer.pad_token_id else -100 for t in l] for l in labels]"))
    if not ctx.supplied:
        findings += _target_findings(case, ctx, evidence)
    if not any(f.status in ("fail", "warn") for f in findings):
        findings.insert(0, Finding(
            "data.seq2seq-labels", "pass",
            f"Labels are the tokenized targets ({kept} tokens in the first batch), padded with "
            f"-100; the decoder starts with token {start}",
            evidence=evidence,
            explanation="The model shifts the labels right behind decoder_start_token_id to "
                        "make its decoder inputs; padding at -100 stays out of the loss."))
    return findings


def _padding_in_labels(labels: np.ndarray, pad: int | None, eos: int | None) -> int:
    """Label positions holding the pad id (after the first eos when pad = eos: the eos ending a
    target is a real label)."""
    if pad is None:
        return 0
    if pad != eos:
        return int((labels == pad).sum())
    total = 0
    for row in labels:
        ends = np.flatnonzero(row == eos)
        if ends.size:
            total += int((row[ends[0] + 1:] == pad).sum())
    return total


def _target_findings(case: Case, ctx: Context, evidence: dict[str, Any]) -> list[Finding]:
    """Targets cut by max_target_length, and targets tokenized as inputs where the tokenizer's
    target mode gives other ids."""
    spec, pre = case.dataset, case.preprocessing
    split = ctx.tokenized[spec.train_split]
    findings: list[Finding] = []
    lengths = np.asarray(split["target_length"]) if "target_length" in split.column_names else None
    if lengths is not None and lengths.size:
        evidence.update(target_tokens_median=int(np.median(lengths)),
                        target_tokens_max=int(lengths.max()))
        if pre.max_target_length:
            cut = int((lengths > pre.max_target_length).sum())
            evidence.update(max_target_length=pre.max_target_length, targets_cut=cut,
                            targets_in_sample=int(lengths.size))
            if cut / lengths.size > TARGET_CUT_WARN:
                p99 = int(np.ceil(np.percentile(lengths, 99)))
                findings.append(Finding(
                    "data.seq2seq-targets-truncated", "warn",
                    f"{cut} of {lengths.size} targets ({cut / lengths.size:.0%}) are longer than "
                    f"max_target_length={pre.max_target_length} and are cut (longest: "
                    f"{int(lengths.max())} tokens)",
                    evidence=evidence,
                    explanation="A cut target loses its end and its eos: the model learns to "
                                "stop mid-sentence, and generation is scored against text it "
                                "never saw.",
                    fix=TARGET_FIX.format(source=spec.text_columns[0],
                                          max_length=pre.max_length or 512,
                                          target=spec.text_columns[1], target_length=p99)
                    + f"   # {p99} tokens cover 99% of the targets"))
    if pre.targets == "as-inputs":
        targets = [str(t) for t in ctx.raw[spec.train_split][spec.text_columns[1]][:64]]
        as_inputs = target_ids(ctx.tokenizer, targets, "as-inputs")
        as_targets = target_ids(ctx.tokenizer, targets, "text-target")
        differ = [i for i, (a, b) in enumerate(zip(as_inputs, as_targets)) if a != b]
        evidence.update(targets_compared=len(targets), targets_differ=len(differ))
        if differ:
            i = differ[0]
            findings.append(Finding(
                "data.seq2seq-targets-as-inputs", "fail",
                f"{len(differ)} of {len(targets)} targets get other token ids tokenized as "
                "inputs than with text_target=",
                evidence={**evidence, "row": i, "as_inputs": as_inputs[i][:16],
                          "text_target": as_targets[i][:16]},
                explanation="This tokenizer has a target mode (a target language code, another "
                            "vocabulary or special tokens): targets tokenized like the inputs "
                            "teach the model the wrong target tokens.",
                fix=TARGET_FIX.format(source=spec.text_columns[0],
                                      max_length=pre.max_length or 512,
                                      target=spec.text_columns[1],
                                      target_length=pre.max_target_length or 128)))
    return findings
