"""Data checks on TensorFlow/Keras (env tf): the demo's healthy case stays quiet, and the checks
that run the model or the Keras input pipeline fire with TensorFlow's own error text."""
from __future__ import annotations

import pytest

pytest.importorskip("tensorflow")
pytest.importorskip("tf_keras")

from tests.test_data_support import by_id, context, loud, make_case, splits, text_rows  # noqa: E402
from wizard.checks import collation, labels, text, tokenizer  # noqa: E402

ALL_PROBES = [labels.probe_label_column, labels.probe_label_values, labels.probe_eval_labels,
              text.probe_empty_text, text.probe_duplicates, text.probe_lengths,
              tokenizer.probe_pad_token, tokenizer.probe_vocab,
              tokenizer.probe_tokenizer_checkpoint, collation.probe_collation]


@pytest.fixture(scope="module")
def tok(demo_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(demo_dir / "model")


@pytest.fixture(scope="module")
def tf_model(demo_dir):
    """The demo model loaded by the wizard's TF backend (num_labels=3)."""
    from wizard.context import Context

    return Context(make_case(demo_dir, "tensorflow"), device="cpu").model


@pytest.mark.parametrize("labels_go", ["inputs", "separate"])
def test_demo_healthy_case_raises_nothing_on_tensorflow(demo_dir, tf_model, labels_go):
    from wizard.context import Context
    from wizard.demo.cases import healthy_case

    case = healthy_case(demo_dir, "tensorflow")
    case.training.labels = labels_go
    ctx = Context(case, device="cpu")
    ctx.__dict__["model"] = tf_model  # the same checkpoint, loaded once for the module
    found = [f for p in ALL_PROBES for f in p(case, ctx)]
    assert loud(found) == []
    assert by_id(found, "data.text-lengths").plots[0].kind == "hist"


def test_ragged_batch_through_to_tf_dataset(demo_dir, tok, tf_model):
    case = make_case(demo_dir, "tensorflow", dataset={"eval_split": None},
                     preprocessing={"padding": "none"})
    f = by_id(collation.probe_collation(case, context(case, splits(train=text_rows(6)), tok,
                                                      model=tf_model)), "data.ragged-batch")
    assert f.status == "fail"
    assert f.evidence["collator_tried"].startswith("Dataset.to_tf_dataset")
    assert "all input arrays must have the same shape" in f.evidence["framework_error"]
    assert "collate_fn=data_collator" in f.fix


def test_token_ids_past_the_table_on_tensorflow(demo_dir, tf_model):
    from transformers import AutoTokenizer

    tok2 = AutoTokenizer.from_pretrained(demo_dir / "model")
    tok2.add_tokens(["<zork>"])
    rows = text_rows(4)
    rows["text"][2] = "the cat saw <zork>"
    case = make_case(demo_dir, "tensorflow", dataset={"eval_split": None})
    f = by_id(tokenizer.probe_vocab(case, context(case, splits(train=rows), tok2, model=tf_model)),
              "data.token-ids-out-of-vocab")
    assert f.status == "fail" and f.evidence["out_of_range"]["train"]["rows"] == [2]
    assert "must be smaller than the embedding layer's input dimension" in \
        f.evidence["framework_error"]


def test_sequence_longer_than_positions_on_tensorflow(demo_dir, tok, tf_model):
    rows = text_rows(4)
    rows["text"][1] = " ".join(["the cat saw the dog"] * 40)
    case = make_case(demo_dir, "tensorflow", dataset={"eval_split": None},
                     preprocessing={"truncation": False})
    f = by_id(text.probe_lengths(case, context(case, splits(train=rows), tok, model=tf_model)),
              "data.sequence-longer-than-positions")
    assert f.status == "fail" and "is not in [0, 128)" in f.evidence["framework_error"]


def test_token_labels_on_tensorflow(demo_dir, tok, tf_model):
    rows = text_rows(4)
    rows["label"] = [[0] * len(tok(t)["input_ids"]) for t in rows["text"]]
    case = make_case(demo_dir, "tensorflow", dataset={"eval_split": None})
    f = by_id(labels.probe_label_values(case, context(case, splits(train=rows), tok,
                                                      model=tf_model)),
              "data.token-labels-for-sequence-head")
    assert f.status == "fail" and "`labels.shape` must equal `logits.shape`" in \
        f.evidence["framework_error"]


def test_misnamed_label_inside_keras_inputs(demo_dir, tok, tf_model):
    rows = text_rows(6)
    raw = splits(train={"text": rows["text"], "sentiment": rows["label"]})
    case = make_case(demo_dir, "tensorflow", dataset={"eval_split": None,
                                                      "label_column": "sentiment"})
    f = by_id(labels.probe_label_column(case, context(case, raw, tok, model=tf_model)),
              "data.label-column-missing")
    assert f.status == "fail"
    assert "unexpected keyword argument 'sentiment'" in f.evidence["framework_error"]
    separate = make_case(demo_dir, "tensorflow", dataset={"eval_split": None,
                                                          "label_column": "sentiment"},
                         training={"labels": "separate"})
    assert by_id(labels.probe_label_column(separate, context(separate, raw, tok, model=tf_model)),
                 "data.label-column-missing").status == "pass"


def test_float_class_ids_are_fine_for_keras(demo_dir, tok, tf_model):
    raw = splits(train=text_rows(6, labels=[0.0, 1.0, 2.0] * 2))
    case = make_case(demo_dir, "tensorflow", dataset={"eval_split": None})
    found = labels.probe_label_values(case, context(case, raw, tok, model=tf_model))
    assert loud(found) == [] and found[0].id == "data.label-dtype-problem-type"


def test_labels_passed_separately_from_a_column_not_named_label(demo_dir, tok, tf_model):
    """A healthy Keras setup whose label column is `category`, labels passed separately: the
    batch is built (it used to raise "Label column labels not found in dataset!")."""
    rows = text_rows(8)
    rows["category"] = rows.pop("label")
    case = make_case(demo_dir, "tensorflow", dataset={"eval_split": None, "label_column": "category"},
                     training={"labels": "separate"})
    ctx = context(case, splits(train=rows), tok, model=tf_model)
    batch = ctx.batch
    assert not batch.labels_in_inputs and list(batch.labels) == rows["category"][:4]
    assert loud([f for p in ALL_PROBES for f in p(case, ctx)]) == []
