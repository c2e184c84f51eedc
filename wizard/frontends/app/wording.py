"""The setup's validation messages in the user's words, one source for the web form and the
terminal wizard (no gradio here): each says what is wrong with an answer and what to write
instead, and names a field as the form does ("Dataset"), never as a case-file key
(`dataset.path`)."""
from __future__ import annotations

import re
from typing import Any

from wizard.engine.plan import QUESTIONS, Question

# question id -> the field as the form names it
NAMES: dict[str, str] = {
    "symptom": "What goes wrong", "traceback": "Error message", "framework": "Framework",
    "model": "Model", "trust_remote_code": "Run the repo's code", "num_labels": "num_labels",
    "dataset": "Dataset", "dataset_config": "Dataset config", "text_columns": "Text columns",
    "label_column": "Label column", "trainer": "How you train", "optimizer": "Optimizer",
    "learning_rate": "Learning rate", "loss": "Loss", "labels": "Where the labels go",
    "batch_size": "Batch size", "logs": "Training logs", "target_gpu": "Target GPU",
    "target_count": "Number of GPUs", "search_issues": "Search GitHub's issues",
}
# case fields no question asks (a case file or a script sets them), as a sentence names them
OTHER_FIELDS: dict[str, str] = {
    "dataset.data_files": "the dataset's data files", "dataset.train_split": "the train split",
    "dataset.eval_split": "the evaluation split", "dataset.max_samples": "the rows to check",
    "revision": "the model's revision", "preprocessing.max_length": "max_length",
    "preprocessing.padding": "the padding", "training.mixed_precision": "the mixed precision",
    "training.epochs": "the number of epochs", "training.weight_decay": "the weight decay",
    "training.warmup_steps": "the warmup steps", "training.from_logits": "from_logits",
    "target.memory_gib": "the target GPU's memory", "target.strategy": "the multi-GPU strategy",
}
EXAMPLES = {"num_labels": "3", "batch_size": "16", "learning_rate": "5e-5", "target_count": "2"}
REQUIRED = {
    "model": "Give the model: a Hub id such as distilbert-base-uncased, or the folder your "
             "script's save_pretrained wrote.",
    "dataset": "Give the dataset: a Hub id such as glue, a folder written by save_to_disk, or a "
               "data file (.csv, .json, .parquet).",
    "text_columns": "Pick at least one text column: the one(s) your script tokenizes.",
    "label_column": "Pick the column that holds the labels.",
    "optimizer": "Write the optimizer as your script has it, such as adam or "
                 "Adam(learning_rate=5e-5).",
    "batch_size": "Give the batch size, a whole number such as 16.",
}
INSTEAD = {  # what a local path that does not exist should be instead
    "model": "a folder written by save_pretrained, or a Hub id such as distilbert-base-uncased",
    "dataset": "a folder written by save_to_disk, a data file (.csv, .json, .parquet), or a Hub "
               "id such as glue",
    "logs": "trainer_state.json, a Keras CSV log or a TensorBoard folder, or leave it empty",
}
_PATH_QUESTIONS = {"model": "model", "dataset.path": "dataset", "logs": "logs"}
_CASE_FIELD = re.compile(r"`([a-z_]+(?:\.[a-z_]+)*)(?::\s*([^`]*))?`")


def question_id(q: Question | str) -> str:
    """The tree question's id for a question or a case field ("dataset.path" -> "dataset");
    a field no question asks stays as it is."""
    if isinstance(q, Question):
        return q.id.split(":", 1)[-1] if q.id.startswith("script:") else q.id
    return next((x.id for x in QUESTIONS.values() if x.field == q), q)


def field_name(q: Question | str) -> str:
    """A field as the form names it: "Dataset" for the question `dataset` or the case field
    `dataset.path`; a case field no question asks in plain words ("Train split")."""
    qid = question_id(q)
    if qid in NAMES:
        return NAMES[qid]
    words = (OTHER_FIELDS.get(qid) or qid.rsplit(".", 1)[-1].replace("_", " ")).removeprefix("the ")
    return words[:1].upper() + words[1:]


def in_sentence(q: Question | str) -> str:
    """A field as it reads inside a sentence: "the dataset", "num_labels"."""
    qid = question_id(q)
    if qid in OTHER_FIELDS:
        return OTHER_FIELDS[qid]
    name = field_name(qid)
    return name if "_" in name or qid not in NAMES else f"the {name[:1].lower()}{name[1:]}"


def _or_empty(q: Question) -> str:
    return ", or leave it empty" if q.optional else ""


def _shown(raw: Any) -> str:
    """An answer as a message quotes it: numbers bare (2.5), other text quoted ('three')."""
    if isinstance(raw, str):
        try:
            raw = float(raw.strip())
        except ValueError:
            return repr(raw.strip())
    if isinstance(raw, float) and raw.is_integer():
        return str(int(raw))
    return str(raw)


def required(q: Question) -> str:
    """An answer the checks cannot do without is empty."""
    return REQUIRED.get(question_id(q), f"Fill in {in_sentence(q)}; the checks need it.")


def not_whole_number(q: Question, raw: Any) -> str:
    example = EXAMPLES.get(question_id(q), "16")
    return f"{_shown(raw)} is not a whole number; write it like {example}{_or_empty(q)}."


def too_small(q: Question, value: Any) -> str:
    return f"{_shown(value)} is too small; use 1 or more{_or_empty(q)}."


def not_a_number(q: Question, raw: Any) -> str:
    example = EXAMPLES.get(question_id(q), "5e-5")
    return f"{_shown(raw)} is not a number; write it like {example}{_or_empty(q)}."


def not_positive(q: Question, value: Any) -> str:
    example = EXAMPLES.get(question_id(q), "5e-5")
    return f"{_shown(value)} is not above 0; write it like {example}{_or_empty(q)}."


def not_offered(q: Question, raw: Any, labels: list[str]) -> str:
    return f"{_shown(raw)} is not a choice here; pick one of: {'; '.join(labels)}."


def missing_path(q: Question | str, path: str) -> str:
    """A local path (model, dataset or logs) that does not exist on this machine."""
    instead = INSTEAD.get(question_id(q), "an existing path")
    return f"{path} does not exist here; give {instead}."


def unknown_columns(q: Question, unknown: list[str], columns: list[str]) -> str:
    """Columns the dataset does not have, with the ones it has."""
    names = " and ".join(repr(c) for c in unknown)
    verb = "is" if len(unknown) == 1 else "are"
    pick = "one of those" if question_id(q) == "label_column" or len(unknown) == 1 else "from those"
    return f"{names} {verb} not in the dataset (its columns: {', '.join(columns)}); pick {pick}."


def in_users_words(message: str, field: str | None = None) -> str:
    """A message of the engine or a case file (naming `dataset.label_column`, or
    `model: /x` for a path) as the form would say it."""
    path_q = _PATH_QUESTIONS.get(field or "")
    qid = question_id(field) if field else None
    if qid in QUESTIONS and re.search(r"The case has no|is empty|cannot be empty", message):
        return required(QUESTIONS[qid])
    match = _CASE_FIELD.search(message)
    if path_q and "does not exist" in message and match and match.group(2):
        return missing_path(path_q, match.group(2).strip())

    def plain(m: re.Match[str]) -> str:
        name = in_sentence(m.group(1))
        return f"{name} {m.group(2).strip()}" if m.group(2) else name

    text = _CASE_FIELD.sub(plain, message)
    text = re.sub(r"(^|[.!?]\s+)the ", lambda m: m.group(1) + "The ", text)
    return text[:1].upper() + text[1:]


def hub_not_checked(what: str, reason: str) -> str:
    """A Hub id that cannot be looked up now (offline, unreachable): said once, as what it means
    for the run, never as a fault of the answer."""
    saved = "save_pretrained" if what == "model" else "save_to_disk"
    return (f"{reason.rstrip('.')}. The answer is kept, but the checks that need the {what} will "
            f"be skipped, not failed. To check them here, give a folder written by {saved}.")
