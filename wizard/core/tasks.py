"""The Hub tasks the wizard diagnoses, and which checks apply to each.

A task names its model class, whether it has a label column, the checks that do not apply to it
(each with the reason shown on its skip) and the checks that exist for it alone. The session
skips the first and leaves the second out of every other task's walk.
"""
from __future__ import annotations

from dataclasses import dataclass, field

CLASSIFICATION = "text-classification"
CAUSAL_LM = "text-generation"
TOKEN_CLS = "token-classification"
SEQ2SEQ = "text2text-generation"
QA = "question-answering"


@dataclass(frozen=True)
class Task:
    id: str
    label: str
    model_class: str                 # the transformers AutoModel... class
    label_column: bool               # the dataset has a label column the checks read
    # probe name -> why it is not run for this task
    not_applicable: dict[str, str] = field(default_factory=dict)


_LM_NO_LABELS = ("a causal LM's labels are its own input_ids (shifted inside the model), not a "
                 "label column")
_LM_NO_HEAD = "a causal LM has no classification head: its output is the vocabulary"
CAUSAL_LM_SKIPS = {
    "label-column": _LM_NO_LABELS,
    "label-values": _LM_NO_LABELS,
    "labels": _LM_NO_LABELS,
    "balance": "a causal LM has no classes to balance",
    "eval-labels": _LM_NO_LABELS,
    "labels-in-inputs": "a causal LM computes its own loss from the labels in the inputs",
    "checkpoint-head": _LM_NO_HEAD,
    "num-labels": _LM_NO_HEAD,
    "label-mapping": _LM_NO_HEAD,
    "from-logits": "a causal LM computes its own loss (no Keras loss over class logits)",
    "loss-strings": "a causal LM computes its own loss (no Keras loss over class logits)",
    "metrics": "classification metrics do not apply; a causal LM is judged by its loss "
               "(perplexity)",
    "eval-label-set": _LM_NO_LABELS,
}

_TOKEN_LABELS = "token labels are checked word by word by the token-label check"
TOKEN_CLS_SKIPS = {
    "label-column": "the tags reach the model as labels re-aligned to the tokens, checked by the "
                    "token-label check",
    "empty-text": "the text is a list of words per row (is_split_into_words)",
    "label-values": _TOKEN_LABELS,
    "labels": _TOKEN_LABELS,
    "balance": "the tag balance of token labels is not judged (most tokens are O by nature)",
    "eval-labels": _TOKEN_LABELS,
    "label-mapping": _TOKEN_LABELS,
    "num-labels": "the tags are checked against the head's num_labels by the token-label check",
    "from-logits": "a token classifier computes its own loss over each token",
    "loss-strings": "a token classifier computes its own loss over each token",
    "metrics": "sequence-level classification metrics do not apply; token classification is "
               "judged per entity (seqeval)",
    "eval-label-set": _TOKEN_LABELS,
    "duplicates": "the text is a list of words per row; duplicates are not compared",
}

_S2S_LABELS = ("a seq2seq model's labels are its tokenized target texts (the second text column), "
               "checked by the seq2seq label check")
_S2S_HEAD = "a seq2seq model has no classification head: its output is the vocabulary"
SEQ2SEQ_SKIPS = {
    "label-column": _S2S_LABELS,
    "label-values": _S2S_LABELS,
    "labels": _S2S_LABELS,
    "balance": "a seq2seq model has no classes to balance",
    "eval-labels": _S2S_LABELS,
    "labels-in-inputs": "a seq2seq model computes its own loss from the labels in the inputs",
    "checkpoint-head": _S2S_HEAD,
    "num-labels": _S2S_HEAD,
    "label-mapping": _S2S_HEAD,
    "from-logits": "a seq2seq model computes its own loss over the target tokens",
    "loss-strings": "a seq2seq model computes its own loss over the target tokens",
    "metrics": "classification metrics do not apply; a seq2seq model is judged by its loss and "
               "a generation metric (ROUGE, BLEU)",
    "eval-label-set": _S2S_LABELS,
}

_QA_LABELS = ("an extractive QA model's labels are start/end token positions, checked by the "
              "answer-position check")
QA_SKIPS = {
    "label-column": _QA_LABELS,
    "label-values": _QA_LABELS,
    "labels": _QA_LABELS,
    "balance": "answer positions have no classes to balance",
    "eval-labels": _QA_LABELS,
    "labels-in-inputs": "a QA model computes its own loss from start_positions/end_positions",
    "num-labels": "a QA head has two outputs per token (start, end), not num_labels classes",
    "label-mapping": "a QA head has no label names",
    "checkpoint-head": "a QA head has two outputs per token, not a class count",
    "from-logits": "a QA model computes its own loss over the token positions",
    "loss-strings": "a QA model computes its own loss over the token positions",
    "metrics": "classification metrics do not apply; extractive QA is judged by exact match and "
               "F1 (squad)",
    "eval-label-set": _QA_LABELS,
    "duplicates": "QA datasets ask several questions about one context by design",
    "lengths": "a QA context is cut into windows; the answers lost to truncation are counted by "
               "the answer-position check",
}

TASKS: dict[str, Task] = {t.id: t for t in [
    Task(CLASSIFICATION, "Text classification (AutoModelForSequenceClassification)",
         "AutoModelForSequenceClassification", True),
    Task(CAUSAL_LM, "Text generation / causal LM, SFT (AutoModelForCausalLM)",
         "AutoModelForCausalLM", False, CAUSAL_LM_SKIPS),
    Task(TOKEN_CLS, "Token classification / NER (AutoModelForTokenClassification)",
         "AutoModelForTokenClassification", True, TOKEN_CLS_SKIPS),
    Task(SEQ2SEQ, "Text-to-text / seq2seq: translation, summarization (AutoModelForSeq2SeqLM)",
         "AutoModelForSeq2SeqLM", False, SEQ2SEQ_SKIPS),
    Task(QA, "Extractive question answering (AutoModelForQuestionAnswering)",
         "AutoModelForQuestionAnswering", True, QA_SKIPS),
]}

# checks that exist for some tasks only: probe name -> the tasks it runs for
TASK_ONLY_PROBES: dict[str, frozenset[str]] = {
    "lm-labels": frozenset({CAUSAL_LM}),
    "lm-completion-length": frozenset({CAUSAL_LM}),
    "chat-template": frozenset({CAUSAL_LM}),
    "token-labels": frozenset({TOKEN_CLS}),
    "token-metrics": frozenset({TOKEN_CLS}),
    "seq2seq-labels": frozenset({SEQ2SEQ}),
    "qa-positions": frozenset({QA}),
    "packing": frozenset({CAUSAL_LM}),
}
# checks that run only when the case has an adapter (LoRA / QLoRA)
ADAPTER_PROBES = frozenset({"adapter"})

# how a causal LM's labels are made (preprocessing.lm_labels)
LM_LABELS = {
    "collator": "DataCollatorForLanguageModeling(tokenizer, mlm=False): labels are input_ids "
                "with every pad_token_id set to -100",
    "copy": "labels = input_ids copied in the preprocessing function (padding kept as labels)",
    "sft": "TRL's SFTTrainer with its own collator: labels are input_ids with the padding "
           "positions set to -100 (an eos that is also the pad token stays in the labels)",
    "completion-only": "the prompt and the padding set to -100, the loss on the completion only "
                       "(TRL's completion_only_loss, a prompt/completion dataset)",
}


# how word labels are put on subword tokens (preprocessing.token_labels)
TOKEN_LABELS = {
    "first-subword": "the word's label on its first subword, -100 on the others and on special "
                     "tokens (word_ids(), the course's align_labels_with_tokens)",
    "all-subwords": "the word's label on every subword (label_all_tokens=True)",
    "none": "the word labels given as they are, one per word, not aligned to the tokens",
}


# seq2seq: how the target texts are tokenized (preprocessing.targets)
SEQ2SEQ_TARGETS = {
    "text-target": "tokenizer(inputs, text_target=targets, ...): the targets in the "
                   "tokenizer's target mode",
    "as-inputs": "tokenizer(targets) called like the inputs (labels = its input_ids)",
}
# seq2seq: what the labels are padded with (preprocessing.label_pad)
LABEL_PADS = {
    "-100": "-100: DataCollatorForSeq2Seq(tokenizer, model=model) (label_pad_token_id=-100, its "
            "default)",
    "pad-id": "the pad token id: targets padded to max_length by the tokenizer, or "
              "label_pad_token_id=tokenizer.pad_token_id",
}
# extractive QA: how start/end positions are found (preprocessing.qa_positions)
QA_POSITIONS = {
    "offsets": "from offset_mapping and sequence_ids() (the course's prepare_train_features)",
    "char": "answer_start, the character index, used as the token position",
}


def task_of(task_id: str) -> Task | None:
    return TASKS.get(task_id)


def has_label_column(task_id: str) -> bool:
    task = TASKS.get(task_id)
    return task.label_column if task is not None else True


def skip_reason(task_id: str, probe: str) -> str | None:
    """Why `probe` does not apply to the task (None: it applies)."""
    task = TASKS.get(task_id)
    return task.not_applicable.get(probe) if task is not None else None


def runs_for(task_id: str, probe: str, has_adapter: bool) -> bool:
    """False for a check that belongs to other tasks (or needs an adapter the case lacks): it is
    left out of the walk, not skipped."""
    if probe in ADAPTER_PROBES and not has_adapter:
        return False
    tasks = TASK_ONLY_PROBES.get(probe)
    return tasks is None or task_id in tasks
