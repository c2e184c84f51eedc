"""Errors of computing metrics in evaluation: the metric libraries' own refusals (empty
references for WER, an old seqeval without the report arguments evaluate passes, flat
tag lists given to a newer seqeval, lm-evaluation-harness's shadowed task names)."""
from __future__ import annotations

from wizard.triage.signature import Signature, signature_maker

_e = signature_maker(12)


METRIC_SIGNATURES: list[Signature] = [
    _e("metric-input-shape-mismatch",
       # pytorch-ignite's classification metrics (Accuracy, Precision, Recall, ConfusionMatrix)
       r"y and y_pred must have (?:the )?same shape of \(batch_size, num_categories, \.\.\.\)|"
       r"y must have shape of \(batch_size, \.\.\.\) and y_pred must have shape of "
       r"\(batch_size, num_categories, \.\.\.\)",
       "The metric reads the task from the shapes of y_pred and y: multiclass wants logits "
       "[batch, num_classes] and class ids [batch]; multilabel (is_multilabel=True) wants both "
       "[batch, num_labels] with more than one label; binary wants both [batch]. The shapes "
       "given fit none of these (a trailing dimension of 1, or a single category passed as "
       "multilabel).",
       "The classification metrics infer binary, multiclass or multilabel from the shapes.",
       ["data.batch-structure"],
       "def output_transform(output):\n    y_pred, y = output\n    return y_pred.squeeze(-1), "
       "y.squeeze(-1)   # [batch, C] and [batch]\nAccuracy(output_transform=output_transform)   "
       "# binary: is_multilabel=False with y_pred of 0/1 values",
       title="Metric inputs of shapes that fit no task"),
    _e("metric-inputs-not-flattened",
       # scikit-learn: a 2-D array of class ids (one row per sequence) is "multiclass-multioutput"
       r"multiclass-multioutput is not supported|can't handle a mix of multiclass-multioutput "
       r"and|and multiclass-multioutput targets",
       "A classification metric (scikit-learn's accuracy, F1, ...) got one row of class ids per "
       "sequence (token tags, per-token predictions of a language model) where it takes one id "
       "per example: it reads the 2-D array as several outputs and refuses it.",
       "scikit-learn's classification metrics take flat 1-D arrays; sequence-labelling scores "
       "need flattening first (dropping the -100 positions) or seqeval, which takes one list "
       "of tags per sentence.",
       ["data.token-labels"],
       "keep = labels != -100\nf1_score(labels[keep], predictions[keep], average='macro')   # "
       "flat, padding dropped\n# entity-level NER scores: seqeval.metrics.f1_score(true_tags, "
       "pred_tags)",
       title="Per-sequence labels given to a per-example metric"),
    _e("wer-empty-reference",
       r"one or more references are empty strings",
       "Some reference transcripts are empty strings, which jiwer (WER/CER) refuses: the dataset "
       "has clips without a transcript, or the labels decoded to nothing (all -100 or special "
       "tokens).", "An error rate divides by the reference's length.",
       ["data.empty-text"],
       "ds = ds.filter(lambda t: len(t.strip()) > 0, input_columns=['sentence'])   # before "
       "training\n# in compute_metrics: keep the pairs whose reference is not empty",
       title="Empty reference transcripts for WER"),
    _e("seqeval-too-old",
       r"classification_report\(\) got an unexpected keyword argument '(?:output_dict|suffix|"
       r"scheme|mode)'",
       "evaluate's seqeval metric passes arguments that seqeval added in 1.0; an older seqeval "
       "is installed.", "The metric wraps seqeval.metrics.classification_report.",
       ["environment.package-versions"], 'pip install -U "seqeval>=1.0"', priority=20,
       family="env-version-too-old", title="seqeval older than the metric needs"),
    _e("seqeval-flat-tag-lists",
       r"Found input variables without list of list",
       "seqeval 1.0 and later take one list of tags per sentence; the code (written for seqeval "
       "0.0.x) passes one flattened list of tags.",
       "seqeval reads entities sentence by sentence.", ["data.token-labels"],
       "f1_score([tags_of_sentence_1, tags_of_sentence_2, ...], [preds_1, preds_2, ...])   # "
       "lists of lists\n# a flat list as one sentence: f1_score([true_tags], [pred_tags])",
       title="Flat tag lists given to seqeval"),
    _e("cross-encoder-num-labels-mismatch",
       r"truth value of an array with more than one element is ambiguous",
       "CEBinaryClassificationEvaluator scores one logit per pair, and the CrossEncoder was "
       "built with num_labels=2: each prediction is an array of two.",
       "The binary evaluator thresholds a single score.", ["model.num-labels-vs-classes"],
       "model = CrossEncoder(name, num_labels=1)   # one score per pair for binary evaluation",
       title="A two-label CrossEncoder in the binary evaluator",
       requires=r"CEBinaryClassificationEvaluator|CrossEncoder"),
    _e("lm-eval-task-shadowed",
       r"No tasks specified, or no tasks found\. Please verify the task names",
       "lm-evaluation-harness found no task of that name: a folder named like the task in the "
       "current directory (./mmlu) shadows it, or the run is inside an edited checkout.",
       "lm_eval resolves task names against paths first.", ["environment.package-versions"],
       "cd /tmp && lm_eval --model hf --tasks mmlu ...   # a directory without a ./mmlu\n"
       "lm_eval --tasks list   # the names this release knows", title="lm-eval found no task", priority=14),
]
