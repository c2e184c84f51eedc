"""Extractive QA checks on the training windows: start/end positions inside the context and on
the answer (not on question tokens, not past the sequence, end not before start), and the share
of answers lost to truncation (every window of the example points at CLS)."""
from __future__ import annotations

from typing import Any

import numpy as np

from wizard.backends.qa_data import DEFAULT_MAX_LENGTH, answer_of
from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding

LOST_WARN = 0.05  # share of answers lost to truncation above which it warns
POSITIONS_FIX = '''def prepare_train_features(examples):
    inputs = tokenizer(examples["{question}"], examples["{context}"], truncation="only_second",
                       max_length={max_length}, stride={stride}, return_overflowing_tokens=True,
                       return_offsets_mapping=True, padding="max_length")
    starts, ends = [], []
    for i, offsets in enumerate(inputs["offset_mapping"]):
        answer = examples["{answers}"][inputs["overflow_to_sample_mapping"][i]]
        s_char = answer["answer_start"][0]
        e_char = s_char + len(answer["text"][0])
        seq = inputs.sequence_ids(i)
        c0 = seq.index(1)
        c1 = len(seq) - 1 - seq[::-1].index(1)
        if offsets[c0][0] > s_char or offsets[c1][1] < e_char:
            starts.append(0); ends.append(0)      # not in this window: CLS
            continue
        s = c0
        while s <= c1 and offsets[s][0] <= s_char: s += 1
        e = c1
        while e >= c0 and offsets[e][1] >= e_char: e -= 1
        starts.append(s - 1); ends.append(e + 1)
    inputs["start_positions"], inputs["end_positions"] = starts, ends
    return inputs'''


def _fix(case: Case) -> str:
    spec, pre = case.dataset, case.preprocessing
    return POSITIONS_FIX.format(question=spec.text_columns[0], context=spec.text_columns[1],
                                answers=spec.label_column,
                                max_length=pre.max_length or DEFAULT_MAX_LENGTH,
                                stride=pre.stride or 128)


def probe_qa_positions(case: Case, ctx: Context) -> list[Finding]:
    spec, pre = case.dataset, case.preprocessing
    if ctx.supplied:
        return _batch_only(ctx)
    windows = ctx.tokenized[spec.train_split]
    raw = ctx.raw[spec.train_split]
    contexts, answers = raw[spec.text_columns[1]], raw[spec.label_column]
    counts = {"outside_sequence": 0, "on_question_tokens": 0, "end_before_start": 0,
              "span_without_answer": 0}
    answered: set[int] = set()
    example: dict[str, Any] | None = None
    for row in windows:
        start, end, seq = int(row["start_positions"]), int(row["end_positions"]), row["sequence_ids"]
        if start == 0 and end == 0:
            continue  # CLS: no answer in this window
        found = answer_of(answers[row["example_id"]])
        fault = None
        if not (0 <= start < len(seq) and 0 <= end < len(seq)):
            fault = "outside_sequence"
        elif seq[start] != 1 or seq[end] != 1:
            fault = "on_question_tokens"
        elif end < start:
            fault = "end_before_start"
        elif found is not None:
            offsets = row["offset_mapping"]
            span = contexts[row["example_id"]][offsets[start][0]:offsets[end][1]]
            if found[0].strip() not in span:
                fault = "span_without_answer"
        if fault is None:
            answered.add(int(row["example_id"]))
            continue
        counts[fault] += 1
        if example is None:
            example = {"window": len(answered) + sum(counts.values()) - 1, "fault": fault,
                       "start_positions": start, "end_positions": end,
                       "window_length": len(seq), "answer": found[0] if found else None}
    with_answer = [i for i in range(len(raw)) if answer_of(answers[i]) is not None]
    lost = [i for i in with_answer if i not in answered]
    wrong = sum(counts.values())
    evidence: dict[str, Any] = {
        **counts, "windows": len(windows), "examples": len(raw),
        "examples_with_answer": len(with_answer), "answers_lost_to_truncation": len(lost),
        "lost_share": round(len(lost) / max(1, len(with_answer)), 4),
        "max_length": pre.max_length or DEFAULT_MAX_LENGTH, "stride": pre.stride,
        "qa_positions": pre.qa_positions, "lost_examples": lost[:10]}
    findings: list[Finding] = []
    if wrong:
        parts = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items() if n)
        findings.append(Finding(
            "data.qa-positions-wrong", "fail",
            f"{wrong} of {len(windows)} windows have start/end positions off the answer ({parts})",
            evidence={**evidence, "first_wrong": example},
            explanation="start_positions and end_positions are token indices inside the "
                        "context part of each window, found with offset_mapping and "
                        "sequence_ids(); character positions (answer_start) or positions "
                        "counted before truncation point at question tokens or past the end.",
            fix=_fix(case)))
        return findings
    share = len(lost) / max(1, len(with_answer))
    if with_answer and share > LOST_WARN:
        findings.append(Finding(
            "data.qa-answers-truncated", "warn",
            f"{len(lost)} of {len(with_answer)} answers ({share:.0%}) are cut off by truncation "
            f"at max_length={evidence['max_length']}"
            + ("" if pre.stride else " with no stride") + " and are trained as 'no answer' (CLS)",
            evidence=evidence,
            explanation="truncation='only_second' keeps the question and cuts the context; "
                        "an answer past the cut appears in no window, so the model is taught "
                        "that the context does not answer. Overflowing windows with a stride "
                        "keep every part of the context.",
            fix=_fix(case)))
    else:
        findings.append(Finding(
            "data.qa-positions", "pass",
            f"Start/end positions sit on the answer inside the context in all {len(windows)} "
            f"windows; {len(lost)} of {len(with_answer)} answers ({share:.0%}) lost to truncation",
            evidence=evidence,
            explanation="Each window's positions point at the answer's tokens in the context, "
                        "or at CLS when the window does not hold it."))
    return findings


def _batch_only(ctx: Context) -> list[Finding]:
    """A live run's own batch: positions inside the sequence and end not before start."""
    inputs = ctx.batch.inputs
    if "start_positions" not in inputs or "end_positions" not in inputs:
        return [Finding("data.qa-positions-wrong", "fail",
                        "The batch has no start_positions / end_positions: the model returns no "
                        "loss", evidence={"keys": sorted(inputs)},
                        fix="train_dataset = raw.map(prepare_train_features, batched=True, "
                            "remove_columns=raw.column_names)")]
    start, end = np.asarray(inputs["start_positions"]), np.asarray(inputs["end_positions"])
    width = np.asarray(inputs["input_ids"]).shape[1]
    outside = int(((start < 0) | (start >= width) | (end < 0) | (end >= width)).sum())
    backwards = int((end < start).sum())
    evidence = {"windows": int(start.size), "outside_sequence": outside,
                "end_before_start": backwards, "sequence_length": width}
    if outside or backwards:
        return [Finding("data.qa-positions-wrong", "fail",
                        f"{outside + backwards} of {start.size} windows in the batch have "
                        "positions outside the sequence or an end before the start",
                        evidence=evidence, fix="# start/end positions from offset_mapping and "
                                               "sequence_ids(): see prepare_train_features")]
    return [Finding("data.qa-positions", "pass", "The batch's start/end positions are inside the "
                    "sequence", evidence=evidence)]
