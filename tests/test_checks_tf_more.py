"""TensorFlow/Keras counterparts of the checks whose other tests run on PyTorch only: each check
fires on a faulty tiny TensorFlow setup and stays quiet on a healthy one (env tf; skipped where
TensorFlow is missing). One TF context on the demo's healthy case is loaded for the module; the
faulty variants reuse its model (weights changed and restored), tokenizer, batch and forward."""
from __future__ import annotations

import contextlib
import math
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

from tests.conftest import HAS_TF, needs_tf
from tests.test_data_support import (CORPUS, build_gpt2_tokenizer, by_id, context, loud, make_case,
                                     splits, text_rows)
from tests.test_metrics import ARGMAX, FED_LOGITS
from tests.test_metrics import raw as class_raw

pytestmark = needs_tf
if HAS_TF:  # before any PyTorch backend sets USE_TF=0, which hides TF from these libraries
    import datasets  # noqa: F401
    import transformers  # noqa: F401

NAMES = ["entailment", "neutral", "contradiction"]  # the demo dataset's ClassLabel names


# -- shared objects ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tok(demo_dir: Path) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(demo_dir / "model")


@pytest.fixture(scope="module")
def tf_ctx(demo_dir: Path) -> Any:
    """The demo's healthy TF case, loaded the real way: model, first batch, forward pass."""
    from wizard.context import Context
    from wizard.demo.cases import healthy_case

    ctx = Context(healthy_case(demo_dir, "tensorflow"), device="cpu")
    ctx.forward  # noqa: B018  loads the model and builds the batch too
    return ctx


@pytest.fixture(scope="module")
def tf_model(tf_ctx: Any) -> Any:
    return tf_ctx.model


def tf_case(demo_dir: Path, **over: Any) -> Any:
    """The demo's healthy TF case (MNLI pairs, num_labels=3, Keras, labels in the inputs)."""
    from wizard.demo.cases import healthy_case

    case = healthy_case(demo_dir, "tensorflow")
    for section, values in over.items():
        for key, value in values.items():
            setattr(getattr(case, section), key, value)
    return case


def like(tf_ctx: Any, case: Any = None, **objects: Any) -> Any:
    """A fresh context over the shared TF objects; `objects` replace some of them."""
    from wizard.context import Context

    base = {"config": tf_ctx.config, "tokenizer": tf_ctx.tokenizer, "raw": tf_ctx.raw,
            "tokenized": tf_ctx.tokenized, "model": tf_ctx.model, "batch": tf_ctx.batch}
    base.update(objects)
    return Context.from_objects(case or tf_ctx.case, device="cpu", **base)


@contextlib.contextmanager
def altered(model: Any, change: Any) -> Iterator[Any]:
    """`change(model)` for the duration of the block; every weight is put back afterwards."""
    saved = model.get_weights()
    try:
        change(model)
        yield model
    finally:
        model.set_weights(saved)


def scale(var: Any, factor: float) -> None:
    var.assign(var * factor)


@pytest.fixture(scope="module")
def gpt2_tok_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A byte-level BPE tokenizer trained locally with no pad token (eos only), saved."""
    out = tmp_path_factory.mktemp("gpt2-tok")
    build_gpt2_tokenizer(out)
    return out


def fresh_tok(path: Path) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(path)


def tf_gpt2(tok: Any, pad_token_id: int | None = None) -> Any:
    """A 1-layer TFGPT2ForSequenceClassification (3 labels) for this tokenizer."""
    import tf_keras
    from transformers import GPT2Config, TFGPT2ForSequenceClassification

    tf_keras.utils.set_random_seed(0)
    config = GPT2Config(vocab_size=len(tok), n_positions=64, n_embd=16, n_layer=1, n_head=2,
                        num_labels=3, bos_token_id=tok.eos_token_id, eos_token_id=tok.eos_token_id,
                        pad_token_id=pad_token_id)
    model = TFGPT2ForSequenceClassification(config)
    model(model.dummy_inputs)
    return model


# == data ======================================================================================
def test_batch_structure_shows_the_keras_batch(demo_dir, tf_ctx, tok):
    from wizard.checks.data import probe_batch_structure

    raw = tf_ctx.raw["train"]
    f = by_id(probe_batch_structure(tf_ctx.case, tf_ctx), "data.batch-structure")
    assert f.status == "info" and f.evidence["batch_size"] == 16
    assert set(f.evidence["inputs"]) == {"input_ids", "attention_mask", "labels"}
    assert f.evidence["labels"] == "inside the input dict"
    first = f.evidence["examples"][0]
    row = raw[first["index"]]
    assert first["decoded"] == tok.decode(tok(row["premise"], row["hypothesis"])["input_ids"])
    assert first["label"] == row["label"] and first["label_name"] == NAMES[row["label"]]
    # labels passed separately (to_tf_dataset(label_cols=...)): a batch of its own
    case = tf_case(demo_dir, training={"labels": "separate"})
    sep = by_id(probe_batch_structure(case, like(tf_ctx, case, batch=None)), "data.batch-structure")
    assert sep.evidence["labels"] == "separate from the inputs"
    assert set(sep.evidence["inputs"]) == {"input_ids", "attention_mask"}
    assert [e["label"] for e in sep.evidence["examples"]] == \
        [e["label"] for e in f.evidence["examples"]]


def test_label_balance_on_tensorflow(demo_dir, tf_ctx, tok):
    from wizard.checks.data import probe_label_balance

    case = make_case(demo_dir, "tensorflow")

    def balance(labels: list[int]) -> Any:
        raw = splits(train=text_rows(len(labels), labels=labels),
                     validation=text_rows(6, offset=200))
        return by_id(probe_label_balance(case, context(case, raw, tok, config=tf_ctx.config)),
                     "data.label-balance")

    f = balance([1] * 57 + [0, 2, 0])
    assert f.status == "warn" and f.evidence["majority_constant"]["accuracy"] == 0.95 and f.fix
    ok = balance([0, 1, 2] * 20)
    assert ok.status == "info" and ok.evidence["expected_initial_loss_ln_C"] == round(math.log(3), 4)


def test_string_labels_fail_in_the_keras_loss(demo_dir, tok, tf_model):
    from wizard.checks import labels

    case = make_case(demo_dir, "tensorflow", dataset={"eval_split": None})
    raw = splits(train=text_rows(9, labels=["neg", "pos", "neutral"] * 3))
    f = by_id(labels.probe_label_values(case, context(case, raw, tok, model=tf_model)),
              "data.string-labels")
    assert f.status == "fail" and f.evidence["counts"] == {"neg": 3, "pos": 3, "neutral": 3}
    # to_tf_dataset's collator makes a string array; the model's loss then cannot cast it
    assert "Cast string to int64 is not supported" in f.evidence["framework_error"]
    assert "TFAutoModelForSequenceClassification" in f.fix and "num_labels=3" in f.fix
    quiet = labels.probe_label_values(case, context(case, splits(train=text_rows(9)), tok,
                                                    model=tf_model))
    assert loud(quiet) == [] and "data.string-labels" not in {x.id for x in quiet}


def test_one_based_labels_on_tensorflow(demo_dir, tok, tf_model):
    from wizard.checks import labels

    case = make_case(demo_dir, "tensorflow")
    raw = splits(train=text_rows(9, labels=[1, 2, 3] * 3), validation=text_rows(3, [1, 2, 3]))
    f = by_id(labels.probe_label_values(case, context(case, raw, tok, model=tf_model)),
              "data.labels-not-zero-based")
    assert f.status == "fail" and f.evidence["labels_seen"] == [1, 2, 3]
    assert f.evidence["num_labels"] == 3
    assert "x['label'] - 1" in f.fix and "TFAutoModelForSequenceClassification" in f.fix
    zero = splits(train=text_rows(9), validation=text_rows(3))
    found = labels.probe_label_values(case, context(case, zero, tok, model=tf_model))
    assert [(x.id, x.status) for x in found] == [("data.label-dtype-problem-type", "pass")]


def test_label_dtype_against_the_tf_loss(demo_dir, tok, tf_model):
    from transformers import AutoConfig

    from wizard.checks import labels

    one = AutoConfig.from_pretrained(demo_dir / "model", num_labels=1)
    case1 = make_case(demo_dir, "tensorflow", num_labels=1, dataset={"eval_split": None})
    ints = splits(train=text_rows(6, labels=[0, 1] * 3))
    f = by_id(labels.probe_label_values(case1, context(case1, ints, tok, config=one)),
              "data.label-dtype-problem-type")
    assert f.status == "warn" and f.evidence["labels_seen"] == [0, 1]
    assert "TFAutoModelForSequenceClassification" in f.fix and "num_labels=2" in f.fix
    floats = splits(train=text_rows(6, labels=[0.1, 3.5, 2.2, 4.9, 1.0, 0.0]))
    assert loud(labels.probe_label_values(case1, context(case1, floats, tok, config=one))) == []
    # multi-hot vectors: the TF model's own loss is sparse categorical cross-entropy
    case = make_case(demo_dir, "tensorflow", dataset={"eval_split": None})
    hot = splits(train=text_rows(4, labels=[[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0],
                                            [1.0, 1.0, 0.0]]))
    f = by_id(labels.probe_label_values(case, context(case, hot, tok, model=tf_model)),
              "data.label-dtype-problem-type")
    assert f.status == "fail" and "`labels.shape` must equal `logits.shape`" in \
        f.evidence["framework_error"]
    assert "BinaryCrossentropy(from_logits=True)" in f.fix
    keras = make_case(demo_dir, "tensorflow", dataset={"eval_split": None},
                      training={"loss": "binary_crossentropy", "labels": "separate"})
    assert by_id(labels.probe_label_values(keras, context(keras, hot, tok, model=tf_model)),
                 "data.label-dtype-problem-type").status == "pass"


def test_eval_classes_unseen_and_label_shift_on_tensorflow(demo_dir, tok):
    from wizard.checks import labels

    case = make_case(demo_dir, "tensorflow")
    unseen = splits(train=text_rows(40, labels=[0, 1] * 20),
                    validation=text_rows(9, labels=[0, 1, 2] * 3, offset=100))
    f = by_id(labels.probe_eval_labels(case, context(case, unseen, tok)), "data.eval-classes-unseen")
    assert f.status == "fail" and f.evidence["unseen_classes"] == [2]  # all of train was read
    shifted = splits(train=text_rows(60, labels=[0] * 54 + [1] * 6),
                     validation=text_rows(60, labels=[0] * 10 + [1] * 50, offset=100))
    f = by_id(labels.probe_eval_labels(case, context(case, shifted, tok)), "data.eval-label-shift")
    assert f.status == "warn" and f.evidence["p_value"] < 1e-6
    same = splits(train=text_rows(60), validation=text_rows(30, offset=100))
    found = labels.probe_eval_labels(case, context(case, same, tok))
    assert [(x.id, x.status) for x in found] == [("data.eval-label-shift", "pass")]


def test_empty_text_on_tensorflow(demo_dir, tok):
    from wizard.checks import text

    case = make_case(demo_dir, "tensorflow", dataset={"eval_split": None})
    rows = text_rows(6)
    rows["text"][4] = None
    f = by_id(text.probe_empty_text(case, context(case, splits(train=rows), tok)), "data.empty-text")
    assert f.status == "fail" and f.evidence["not_text"]["train.text"]["indices"] == [4]
    rows = text_rows(20)
    rows["text"][3] = ""
    f = by_id(text.probe_empty_text(case, context(case, splits(train=rows), tok)), "data.empty-text")
    assert f.status == "warn" and f.evidence["model_sees"] == "[CLS] [SEP]"
    assert by_id(text.probe_empty_text(case, context(case, splits(train=text_rows(20)), tok)),
                 "data.empty-text").status == "pass"


def test_train_eval_duplicates_on_tensorflow(demo_dir, tok):
    from wizard.checks import text

    case = make_case(demo_dir, "tensorflow")
    train, evals = text_rows(30), text_rows(10, offset=100)
    clean = splits(train=train, validation=evals)
    assert by_id(text.probe_duplicates(case, context(case, clean, tok)),
                 "data.train-eval-duplicates").status == "pass"
    evals["text"][2] = train["text"][5]
    f = by_id(text.probe_duplicates(case, context(case, splits(train=train, validation=evals), tok)),
              "data.train-eval-duplicates")
    assert f.status == "fail" and f.evidence["eval_indices"] == [2]  # a tenth of the eval rows
    more = text_rows(40, offset=100)
    more["text"][2] = train["text"][5]
    f = by_id(text.probe_duplicates(case, context(case, splits(train=train, validation=more), tok)),
              "data.train-eval-duplicates")
    assert f.status == "warn" and f.evidence["eval_indices"] == [2]  # one in 40


def test_text_lengths_cut_short_on_tensorflow(demo_dir, tok, tf_model):
    from wizard.checks import text

    short = make_case(demo_dir, "tensorflow", dataset={"eval_split": None},
                      preprocessing={"max_length": 8})
    f = by_id(text.probe_lengths(short, context(short, splits(train=text_rows(12)), tok,
                                                model=tf_model)), "data.text-lengths")
    assert f.status == "warn" and f.evidence["splits"]["train"]["truncated_share"] >= 0.5
    assert f.evidence["max_positions"] == 128 and "max_length=16" in f.fix
    full = make_case(demo_dir, "tensorflow", dataset={"eval_split": None})
    found = text.probe_lengths(full, context(full, splits(train=text_rows(12)), tok, model=tf_model))
    assert loud(found) == [] and by_id(found, "data.text-lengths").status == "info"


def test_no_pad_token_on_tensorflow(demo_dir, gpt2_tok_dir, tok, tf_model):
    from wizard.checks import tokenizer

    case = make_case(demo_dir, "tensorflow", dataset={"eval_split": None})
    case.model = str(gpt2_tok_dir)
    raw = splits(train={"text": CORPUS, "label": [0, 1, 2, 0, 1]})
    bare = fresh_tok(gpt2_tok_dir)
    f = by_id(tokenizer.probe_pad_token(case, context(case, raw, bare, model=tf_gpt2(bare))),
              "data.no-pad-token")
    assert f.status == "fail" and f.evidence["pad_token"] is None
    assert "Asking to pad but the tokenizer does not have a padding token" in \
        f.evidence["framework_error"]
    assert "tokenizer.pad_token = tokenizer.eos_token" in f.fix
    # the course's first half of the fix: a pad token, but config.pad_token_id left unset. TF's
    # GPT-2 head then pools the last position, a pad token in the padded row: other logits
    padded = fresh_tok(gpt2_tok_dir)
    padded.pad_token = padded.eos_token
    f = by_id(tokenizer.probe_pad_token(case, context(case, raw, padded, model=tf_gpt2(padded))),
              "data.no-pad-token")
    assert f.status == "fail" and f.evidence["padding_changes_logits"] is True
    assert f.fix == "model.config.pad_token_id = tokenizer.pad_token_id"
    fixed = tf_gpt2(padded, pad_token_id=padded.pad_token_id)
    assert by_id(tokenizer.probe_pad_token(case, context(case, raw, padded, model=fixed)),
                 "data.no-pad-token").status == "pass"
    # an encoder: the attention mask hides the padding, measured on the TF model
    demo = make_case(demo_dir, "tensorflow", dataset={"eval_split": None})
    pad_id = tf_model.config.pad_token_id
    tf_model.config.pad_token_id = None
    try:
        f = by_id(tokenizer.probe_pad_token(demo, context(demo, splits(train=text_rows(6)), tok,
                                                          model=tf_model)), "data.no-pad-token")
    finally:
        tf_model.config.pad_token_id = pad_id
    assert f.status == "pass" and f.evidence["padding_changes_logits"] is False


def test_tokenizer_from_another_checkpoint_on_tensorflow(demo_dir, gpt2_tok_dir, tf_model,
                                                        tmp_path):
    from wizard.checks import tokenizer

    case = make_case(demo_dir, "tensorflow", dataset={"eval_split": None})
    raw = splits(train=text_rows(6))
    f = by_id(tokenizer.probe_tokenizer_checkpoint(
        case, context(case, raw, fresh_tok(gpt2_tok_dir), model=tf_model)),
        "data.tokenizer-model-mismatch")
    assert f.status == "fail" and f.evidence["mismatched_share"] > 0.5
    assert f.evidence["embedding_rows_source"] == "model.get_input_embeddings()"
    assert str(demo_dir / "model") in f.fix
    fresh_tok(demo_dir / "model").save_pretrained(tmp_path / "copy")
    f = by_id(tokenizer.probe_tokenizer_checkpoint(
        case, context(case, raw, fresh_tok(tmp_path / "copy"), model=tf_model)),
        "data.tokenizer-model-mismatch")
    assert f.status == "pass" and f.evidence["shared_with_other_ids"] == 0


# == model =====================================================================================
def test_nan_logits_and_a_healthy_forward_on_tensorflow(tf_ctx, tf_model):
    from wizard.checks.model import probe_forward

    healthy = probe_forward(tf_ctx.case, tf_ctx)
    assert by_id(healthy, "model.forward").status == "pass"
    assert {f.id for f in healthy} == {"model.forward", "model.initial-loss"}  # no NaN samples
    with altered(tf_model, lambda m: m.classifier.kernel.assign(
            np.full(tuple(m.classifier.kernel.shape), np.nan, np.float32))):
        found = probe_forward(tf_ctx.case, like(tf_ctx, forward=None))
    f = by_id(found, "model.forward")
    assert f.status == "fail" and f.evidence["samples"] == list(range(10))
    assert by_id(found, "model.nan-loss-samples").status == "warn"


def test_forward_raised_on_tensorflow(tf_ctx, tf_model):
    from wizard.context import Batch
    from wizard.checks.model import probe_forward

    first = tf_ctx.batch
    ids = first.inputs["input_ids"].copy()
    ids[1, 2] = tf_model.config.vocab_size + 5  # past the embedding table
    batch = Batch({**first.inputs, "input_ids": ids}, first.labels, first.labels_in_inputs,
                  first.label_key, first.indices)
    found = probe_forward(tf_ctx.case, like(tf_ctx, batch=batch, forward=None))
    f = by_id(found, "model.forward-raised")
    assert f.status == "warn" and [x.id for x in found] == ["model.forward-raised"]
    # the message inside Keras' "Exception encountered when calling layer" wrapper
    assert f.evidence["error"].startswith("InvalidArgumentError: The maximum value of input_ids")
    assert "must be smaller than the embedding layer's input dimension" in f.evidence["error"]
    assert f.evidence["innermost_in_library"] is True
    assert "model.forward-raised" not in {x.id for x in probe_forward(tf_ctx.case, tf_ctx)}


def test_nan_loss_samples_for_labels_past_the_head_on_tensorflow(tf_ctx):
    from wizard.context import Batch
    from wizard.checks.model import probe_forward

    first = tf_ctx.batch
    labels = first.labels.copy()
    labels[[2, 5]] = 3  # a 3-way head has no output 3
    batch = Batch({**first.inputs, first.label_key: labels}, labels, True, first.label_key,
                  first.indices)
    found = probe_forward(tf_ctx.case, like(tf_ctx, batch=batch, forward=None))
    f = by_id(found, "model.nan-loss-samples")
    assert f.status == "warn" and f.evidence["indices"] == [2, 5]
    assert f.evidence["labels_of_those"] == [3]
    assert "Received a label value of 3 which is outside the valid range of [0, 3)" in \
        f.evidence["framework_error"]
    assert by_id(found, "model.forward").status == "pass"  # the logits themselves are finite


def test_initial_loss_far_from_ln_c_on_tensorflow(tf_ctx, tf_model):
    from wizard.checks.model import probe_forward

    ok = by_id(probe_forward(tf_ctx.case, tf_ctx), "model.initial-loss")
    assert ok.status == "info" and ok.evidence["initial_loss"] == pytest.approx(math.log(3), abs=0.1)
    with altered(tf_model, lambda m: scale(m.classifier.kernel, 1e4)):  # a saturated head
        found = probe_forward(tf_ctx.case, like(tf_ctx, forward=None))
    f = by_id(found, "model.initial-loss")
    assert f.status == "warn" and f.evidence["initial_loss"] > 1.5 * math.log(3)
    assert "logits" in f.fix


def test_num_labels_against_the_classes_on_tensorflow(demo_dir, tf_ctx):
    from transformers import AutoConfig

    from wizard.checks import model_head

    case = tf_case(demo_dir)
    five = AutoConfig.from_pretrained(demo_dir / "model", num_labels=5)
    f = by_id(model_head.probe_num_labels(case, like(tf_ctx, case, config=five, model=None)),
              "model.num-labels-vs-classes")
    assert f.status == "info" and f.evidence["outputs_never_targeted"] == [3, 4]
    assert "TFAutoModelForSequenceClassification" in f.fix and "num_labels=3" in f.fix
    assert by_id(model_head.probe_num_labels(case, tf_ctx), "model.num-labels-vs-classes") \
        .status == "pass"


def test_label_mapping_on_tensorflow(demo_dir, tf_ctx):
    from transformers import AutoConfig

    from wizard.checks import model_head

    case = tf_case(demo_dir)
    order = ["contradiction", "neutral", "entailment"]
    swapped = AutoConfig.from_pretrained(demo_dir / "model", num_labels=3,
                                         id2label=dict(enumerate(order)),
                                         label2id={n: i for i, n in enumerate(order)})
    f = by_id(model_head.probe_label_mapping(case, like(tf_ctx, case, config=swapped, model=None)),
              "model.label-mapping")
    assert f.status == "warn" and f.evidence["dataset_id_to_model_id"] == {0: 2, 1: 1, 2: 0}
    named = AutoConfig.from_pretrained(demo_dir / "model", num_labels=3,
                                       id2label=dict(enumerate(NAMES)),
                                       label2id={n: i for i, n in enumerate(NAMES)})
    assert by_id(model_head.probe_label_mapping(case, like(tf_ctx, case, config=named, model=None)),
                 "model.label-mapping").status == "pass"
    generic = by_id(model_head.probe_label_mapping(case, tf_ctx), "model.label-mapping")
    assert generic.status == "info" and "TFAutoModelForSequenceClassification" in generic.fix


def test_fp16_overflow_on_the_first_batch_on_tensorflow(demo_dir, tf_ctx, tf_model):
    from wizard.checks import precision

    case = tf_case(demo_dir, training={"mixed_precision": "fp16"})
    ok = by_id(precision.probe_precision(case, like(tf_ctx, case)), "model.fp16-overflow-risk")
    assert ok.status == "pass" and ok.evidence["headroom"] > 8

    def blow_up(m: Any) -> None:  # activations far past 65504 from the embeddings on
        scale(m.distilbert.embeddings.weight, 1e6)
        scale(m.distilbert.embeddings.LayerNorm.gamma, 1e6)

    with altered(tf_model, blow_up):
        f = by_id(precision.probe_precision(case, like(tf_ctx, case)), "model.fp16-overflow-risk")
    assert f.status == "fail" and f.evidence["max_abs_activation_fp32"] >= 65504
    assert "mixed_bfloat16" in f.fix


# == hyperparameters ===========================================================================
def test_hidden_defaults_of_a_keras_optimizer_string(demo_dir, tf_ctx):
    from wizard.checks.hyperparameters import probe_optimizer

    case = tf_case(demo_dir, training={"optimizer": "adam"})
    f = by_id(probe_optimizer(case, like(tf_ctx, case)), "hyperparameters.hidden-defaults")
    assert f.status == "info" and f.evidence["means"]["class"] == "tf_keras.optimizers.Adam"
    assert f.evidence["means"]["learning_rate"] == pytest.approx(1e-3)
    assert f.evidence["means"]["epsilon"] == pytest.approx(1e-7)  # Keras's, not PyTorch's 1e-8
    spelled = probe_optimizer(tf_ctx.case, tf_ctx)  # Adam(learning_rate=5e-5) spelled out
    assert [(x.id, x.status) for x in spelled] == [("hyperparameters.learning-rate-too-high",
                                                    "pass")]


SMOOTHED = '''
import numpy as np

def compute_metrics(eval_pred):
    logits, labels = eval_pred
    correct = int((np.argmax(logits, axis=-1) == labels).sum())
    return {"accuracy": (correct + 1) / (len(labels) + 1)}  # not the accuracy
'''
ONE_SHORT = '''
import numpy as np

def compute_metrics(eval_pred):
    logits, labels = eval_pred
    return metric.compute(predictions=np.argmax(logits, axis=-1), references=labels[:-1])
'''


def metrics_ctx(demo_dir: Path, tf_ctx: Any, raw: Any = None, **training: Any) -> tuple[Any, Any]:
    """The healthy TF case with metrics / compute_metrics set, over the TF model's logits."""
    case = tf_case(demo_dir, training=training)
    return case, like(tf_ctx, case, forward=tf_ctx.forward, **({"raw": raw} if raw else {}))


def test_compute_metrics_fed_tf_logits(demo_dir, tf_ctx):
    from wizard.checks import metrics

    case, c = metrics_ctx(demo_dir, tf_ctx, compute_metrics=FED_LOGITS)
    f = by_id(metrics.probe_metrics(case, c), "hyperparameters.metric-fed-logits")
    assert f.status == "fail" and f.evidence["logits_shape"] == [16, 3]
    assert "don't match the expected format" in f.evidence["error_with_logits"]
    assert "np.argmax(logits, axis=-1)" in f.fix
    case, c = metrics_ctx(demo_dir, tf_ctx, compute_metrics=ARGMAX)
    found = metrics.probe_metrics(case, c)
    assert loud(found) == []
    assert by_id(found, "hyperparameters.metric-fed-logits").status == "pass"


def test_metric_loading_and_errors_on_tensorflow(demo_dir, tf_ctx):
    from wizard.checks import metrics

    case, c = metrics_ctx(demo_dir, tf_ctx, metrics=["accuracy"])
    found = metrics.probe_metrics(case, c)
    note = by_id(found, "metrics.metric-unavailable")
    assert note.status == "info" and note.evidence["offline"] is True
    assert loud(found) == []
    row = by_id(found, "metrics.baselines").evidence["table"]["model_one_batch"]
    assert row["accuracy"] == {"accuracy": row["wizard"]["accuracy"]}
    case, c = metrics_ctx(demo_dir, tf_ctx, metrics=["f1"])
    f = by_id(metrics.probe_metrics(case, c), "metrics.metric-error")
    assert f.status == "fail" and "average='binary'" in f.evidence["error"]
    assert "average='macro'" in f.fix


def test_metric_value_and_shape_problems_on_tensorflow(demo_dir, tf_ctx):
    from wizard.checks import metrics

    case, c = metrics_ctx(demo_dir, tf_ctx, compute_metrics=SMOOTHED)
    f = by_id(metrics.probe_metrics(case, c), "metrics.value-disagrees")
    right = by_id(metrics.probe_metrics(case, c), "metrics.baselines") \
        .evidence["table"]["model_one_batch"]["wizard"]["accuracy"]
    assert f.status == "warn" and f.evidence["disagree"]["accuracy"]["wizard"] == right
    case, c = metrics_ctx(demo_dir, tf_ctx, compute_metrics=ONE_SHORT)
    f = by_id(metrics.probe_metrics(case, c), "metrics.prediction-label-mismatch")
    assert f.status == "fail" and "Mismatch in the number of predictions (16)" in \
        f.evidence["error_with_logits"]
    text_labels = class_raw(["yes", "no", "yes"], ["no", "yes"], names=None)
    case, c = metrics_ctx(demo_dir, tf_ctx, raw=text_labels)
    f = by_id(metrics.probe_metrics(case, c), "metrics.prediction-label-mismatch")
    assert f.status == "fail" and f.evidence["first_labels"] == ["no", "yes"]


def test_eval_label_set_on_tensorflow(demo_dir, tf_ctx):
    from wizard.checks import metrics

    def status(raw: Any) -> list[tuple[str, str]]:
        case, c = metrics_ctx(demo_dir, tf_ctx, raw=raw)
        return [(f.id, f.status) for f in metrics.probe_eval_label_set(case, c)]

    assert status(class_raw((0, 1, 2) * 4, (-1, -1, -1))) == [("metrics.eval-label-set", "fail")]
    assert status(class_raw((0, 1, 2) * 4, (0, 1, 2), eval_names=["neutral", "entailment",
                                                                 "contradiction"])) == [
        ("metrics.eval-label-set", "warn")]
    assert status(class_raw((0, 1, 2) * 4, (0, 1, 2, 1))) == [("metrics.eval-label-set", "pass")]
    assert status(tf_ctx.raw) == [("metrics.eval-label-set", "pass")]


# == training ==================================================================================
def test_frozen_tf_transformer_cannot_overfit_and_gets_no_gradient(tf_ctx, tf_model):
    from wizard.checks import training as T

    tf_model.trainable = False
    try:
        c = like(tf_ctx)
        overfit = by_id(T.probe_overfit(tf_ctx.case, c), "training.cannot-overfit-batch")
        grads = T.probe_gradients(tf_ctx.case, c)
    finally:
        tf_model.trainable = True
    assert overfit.status == "fail" and overfit.evidence["points_to"] == "frozen"
    assert overfit.evidence["known_good_run"] is None
    assert "model.trainable = True" in overfit.fix
    f = by_id(grads, "training.no-gradient")
    assert f.status == "fail" and f.evidence["trainable_params"] == 0
    assert f.evidence["frozen_params"] > 0
    assert tf_model.trainable_weights  # unfrozen again for the other tests


def _keras_xy(n: int = 48, same_inputs: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 8)).astype("float32")
    y = ((x[:, 0] > 0).astype("int64") + (x[:, 1] > 0).astype("int64"))
    if same_inputs:  # one input repeated with every label: nothing to learn from it
        x = np.repeat(x[:1], n, axis=0)
        y = np.arange(n, dtype="int64") % 3
    return x, y


def _keras_mlp(width: int = 32) -> Any:
    import tf_keras

    tf_keras.utils.set_random_seed(0)
    model = tf_keras.Sequential([tf_keras.Input((8,)),
                                 tf_keras.layers.Dense(width, activation="relu"),
                                 tf_keras.layers.Dense(3)])
    model.compile(optimizer=tf_keras.optimizers.Adam(1e-3),
                  loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def test_keras_model_that_cannot_overfit_points_at_the_data():
    from wizard.api import diagnose

    stuck = diagnose(_keras_mlp(), _keras_xy(same_inputs=True), checks=["overfit"])
    f = stuck["training.cannot-overfit-batch"]
    assert f.status == "fail" and f.evidence["points_to"] == "data"
    assert f.evidence["known_good_run"]["final_over_initial"] > 0.5
    learns = diagnose(_keras_mlp(), _keras_xy(), checks=["overfit"])
    assert learns["training.overfit-batch"].status == "info"
    assert learns.get("training.cannot-overfit-batch") is None


def test_keras_layer_left_out_of_the_forward_gets_no_gradient():
    import tf_keras

    from wizard.api import diagnose

    class WithSpare(tf_keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.hidden = tf_keras.layers.Dense(16, activation="relu")
            self.out = tf_keras.layers.Dense(3)
            self.spare = tf_keras.layers.Dense(3, name="spare")

        def call(self, x: Any, training: bool = False) -> Any:
            h = self.hidden(x)
            self.spare(h)  # an auxiliary head whose output is dropped: nothing reaches the loss
            return self.out(h)

    tf_keras.utils.set_random_seed(0)
    loss = tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model = WithSpare()
    model(np.zeros((1, 8), "float32"))
    f = diagnose(model, _keras_xy(), loss=loss, checks=["gradients"])["training.no-gradient"]
    assert f.status == "warn" and f.evidence["count"] == 2  # the spare kernel and bias
    assert f.evidence["layers"] == ["spare"], f.evidence
    healthy = diagnose(_keras_mlp(), _keras_xy(), loss=loss, checks=["gradients"])
    assert healthy["training.no-gradient"].status == "pass"


def test_embeddings_of_tf_models(demo_dir, tf_ctx):
    import tf_keras

    from wizard.api import diagnose
    from wizard.checks import training as T

    f = by_id(T.probe_embeddings(tf_ctx.case, like(tf_ctx)), "training.embeddings")
    assert f.status == "info" and f.evidence["pooling"] == "first-token"
    assert f.evidence["samples"] == 128 and f.evidence["dim"] == 32
    assert set(f.plots[0].series) == set(NAMES) and f.evidence["classes"] == 3
    assert "mean" in f.evidence["other_pooling"]
    # a functional Keras model: the input of its last layer. Three clusters, one per class,
    # stay apart there; the same points with shuffled labels do not
    rng = np.random.default_rng(0)
    y = np.arange(96, dtype="int64") % 3
    x = (rng.normal(scale=0.3, size=(96, 8)) + 3 * np.eye(8)[y]).astype("float32")
    plain = diagnose(_keras_mlp(), (x, y), checks=["embeddings"])["training.embeddings"]
    assert plain.status == "info" and plain.evidence["pooling"] == "penultimate"
    assert plain.evidence["dim"] == 32 and plain.evidence["nearest_centroid_accuracy"] >= 0.9
    shuffled = diagnose(_keras_mlp(), (x, rng.permutation(y)),
                        checks=["embeddings"])["training.embeddings"]
    assert shuffled.evidence["nearest_centroid_accuracy"] < 0.6
    assert shuffled.evidence["silhouette"] < plain.evidence["silhouette"]

    class Sub(tf_keras.Model):  # subclassed: no graph of layers to cut at the penultimate
        def __init__(self) -> None:
            super().__init__()
            self.dense = tf_keras.layers.Dense(3)

        def call(self, x: Any, training: bool = False) -> Any:
            return self.dense(x)

    sub = Sub()
    sub(x[:1])
    skipped = diagnose(sub, (x, y), loss=tf_keras.losses.SparseCategoricalCrossentropy(
        from_logits=True), checks=["embeddings"])["training.embeddings"]
    assert skipped.status == "skip"
