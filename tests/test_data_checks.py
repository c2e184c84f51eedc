"""Data checks (labels, text, tokenizer, collation) on PyTorch: each fires on a faulty tiny setup
and stays quiet on a healthy one; the demo's healthy case gives no warning at all."""
from __future__ import annotations

import copy
import json

import pytest

pytest.importorskip("torch")  # USE_TF=0 comes from conftest where TensorFlow is absent

from tests.test_data_support import (build_gpt2_style, by_id, context, loud, make_case,  # noqa: E402
                                     splits, text_rows)
from wizard.checks import collation, labels, text, tokenizer  # noqa: E402
from wizard.checks.labels import chi2_sf  # noqa: E402

ALL_PROBES = [labels.probe_label_column, labels.probe_label_values, labels.probe_eval_labels,
              text.probe_empty_text, text.probe_duplicates, text.probe_lengths,
              tokenizer.probe_pad_token, tokenizer.probe_vocab,
              tokenizer.probe_tokenizer_checkpoint, collation.probe_collation]


def run_all(case, ctx):
    return [f for probe in ALL_PROBES for f in probe(case, ctx)]


@pytest.fixture(scope="module")
def tok(demo_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(demo_dir / "model")


@pytest.fixture(scope="module")
def model(demo_dir):
    from transformers import AutoModelForSequenceClassification
    from transformers.utils import logging

    logging.set_verbosity_error()
    return AutoModelForSequenceClassification.from_pretrained(demo_dir / "model", num_labels=3)


@pytest.fixture(scope="module")
def gpt2_dir(tmp_path_factory):
    return build_gpt2_style(tmp_path_factory.mktemp("gpt2-style"))


def fresh_tok(path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(path)


# -- the healthy demo, loaded the real way ------------------------------------------------------
def test_course_case_gets_no_new_fault_from_these_checks(demo_dir):
    """The course's three faults belong to other checks; these add none (num_labels=2 with
    labels 0..2 is data.labels-out-of-range's)."""
    from wizard.context import Context
    from wizard.demo.cases import course_case

    case = course_case(demo_dir, "pytorch")
    assert loud(run_all(case, Context(case, device="cpu"))) == []


@pytest.mark.parametrize("trainer", ["trainer", "loop"])
def test_demo_healthy_case_raises_nothing(demo_dir, trainer):
    from wizard.context import Context
    from wizard.demo.cases import healthy_case

    case = healthy_case(demo_dir, "pytorch")
    case.training.trainer = trainer
    ctx = Context(case, device="cpu")
    found = run_all(case, ctx)
    assert loud(found) == []
    ids = {f.id for f in found if f.status == "pass"}
    assert {"data.label-column-missing", "data.label-dtype-problem-type", "data.eval-label-shift",
            "data.empty-text", "data.train-eval-duplicates", "data.sequence-longer-than-positions",
            "data.no-pad-token", "data.token-ids-out-of-vocab",
            "data.tokenizer-model-mismatch"} <= ids
    lengths = by_id(found, "data.text-lengths")
    assert lengths.status == "info" and lengths.plots[0].kind == "hist"
    assert set(lengths.plots[0].series) == {"train", "validation"}


# -- labels ---------------------------------------------------------------------------------------
def test_label_column_missing_names_the_closest(demo_dir, tok):
    rows = text_rows(8)
    raw = splits(train={"text": rows["text"], "lable": rows["label"]})
    case = make_case(demo_dir, dataset={"eval_split": None})
    f = by_id(labels.probe_label_column(case, context(case, raw, tok)), "data.label-column-missing")
    assert f.status == "fail" and f.evidence["closest"] == ["lable"]
    assert 'rename_column(\'lable\', "labels")' in f.fix


def test_label_column_dropped_by_trainer(demo_dir, tok, model):
    rows = text_rows(8)
    raw = splits(train={"text": rows["text"], "sentiment": rows["label"]})
    case = make_case(demo_dir, dataset={"eval_split": None, "label_column": "sentiment"})
    f = by_id(labels.probe_label_column(case, context(case, raw, tok, model=model)),
              "data.label-column-missing")
    assert f.status == "fail" and "sentiment" in f.evidence["trainer_drops"]
    assert "labels" in f.evidence["model_forward_accepts"]
    assert "rename_column('sentiment', \"labels\")" in f.fix


def test_label_column_misnamed_in_a_loop_runs_the_model(demo_dir, tok, model):
    rows = text_rows(8)
    raw = splits(train={"text": rows["text"], "sentiment": rows["label"]})
    case = make_case(demo_dir, dataset={"eval_split": None, "label_column": "sentiment"},
                     training={"trainer": "loop"})
    f = by_id(labels.probe_label_column(case, context(case, raw, tok, model=model)),
              "data.label-column-missing")
    assert f.status == "fail"
    # transformers 4.57: TypeError for the unknown keyword; 5.x takes **kwargs and returns no loss
    assert "sentiment" in f.evidence.get("framework_error", "") or f.evidence["loss"] is None


def test_label_column_removed_by_preprocessing(demo_dir, tok):
    raw = splits(train=text_rows(8))
    tokenized = {"train": raw["train"].map(lambda b: tok(b["text"]), batched=True,
                                           remove_columns=["text", "label"])}
    case = make_case(demo_dir, dataset={"eval_split": None})
    f = by_id(labels.probe_label_column(case, context(case, raw, tok, tokenized=tokenized)),
              "data.label-column-missing")
    assert f.status == "fail" and "removed" in f.title
    assert f.evidence["tokenized_columns"] == ["input_ids", "attention_mask"]


def test_label_column_labels_and_keras_separate_pass(demo_dir, tok):
    rows = text_rows(8)
    raw = splits(train={"text": rows["text"], "labels": rows["label"]})
    case = make_case(demo_dir, dataset={"eval_split": None, "label_column": "labels"})
    assert by_id(labels.probe_label_column(case, context(case, raw, tok)),
                 "data.label-column-missing").status == "pass"


def test_string_labels_fail_with_the_collator_error(demo_dir, tok):
    rows = text_rows(9, labels=["neg", "pos", "neutral"] * 3)
    raw = splits(train=rows)
    case = make_case(demo_dir, dataset={"eval_split": None})
    f = by_id(labels.probe_label_values(case, context(case, raw, tok)), "data.string-labels")
    assert f.status == "fail" and f.evidence["counts"] == {"neg": 3, "pos": 3, "neutral": 3}
    assert "Unable to create tensor" in f.evidence["framework_error"]
    assert "label2id = {'neg': 0, 'neutral': 1, 'pos': 2}" in f.fix and "num_labels=3" in f.fix


def test_one_based_labels(demo_dir, tok, model):
    raw = splits(train=text_rows(9, labels=[1, 2, 3] * 3), validation=text_rows(3, [1, 2, 3]))
    case = make_case(demo_dir)
    f = by_id(labels.probe_label_values(case, context(case, raw, tok, model=model)),
              "data.labels-not-zero-based")
    assert f.status == "fail" and f.evidence["labels_seen"] == [1, 2, 3]
    assert "x['label'] - 1" in f.fix and "num_labels=3" in f.fix

    from transformers import AutoConfig

    four = AutoConfig.from_pretrained(case.model, num_labels=4)
    case4 = make_case(demo_dir, num_labels=4)
    f = by_id(labels.probe_label_values(case4, context(case4, raw, tok, config=four)),
              "data.labels-not-zero-based")
    assert f.status == "warn"


def test_zero_based_labels_are_quiet(demo_dir, tok, model):
    raw = splits(train=text_rows(9), validation=text_rows(3))
    case = make_case(demo_dir)
    found = labels.probe_label_values(case, context(case, raw, tok, model=model))
    assert [f.id for f in found] == ["data.label-dtype-problem-type"]
    assert found[0].status == "pass"


def test_float_labels_with_a_classification_head(demo_dir, tok, model):
    raw = splits(train=text_rows(6, labels=[0.0, 1.0, 2.0] * 2))
    case = make_case(demo_dir, dataset={"eval_split": None})
    ctx = context(case, raw, tok, model=model)
    f = by_id(labels.probe_label_values(case, ctx), "data.label-dtype-problem-type")
    assert f.status == "fail" and f.evidence["integer_valued"] is True
    assert "Target size" in f.evidence["framework_error"]
    assert 'Value("int64")' in f.fix
    assert model.config.problem_type is None  # the probe's run leaves the config as it was


def test_class_ids_the_script_casts_to_float(demo_dir, tok, model):
    """Integer ids in the dataset, cast to float on the way (training.float_labels)."""
    raw = splits(train=text_rows(6, labels=[0, 1, 2] * 2))
    case = make_case(demo_dir, dataset={"eval_split": None}, training={"float_labels": True})
    f = by_id(labels.probe_label_values(case, context(case, raw, tok, model=model)),
              "data.label-dtype-problem-type")
    assert f.status == "fail" and f.evidence["cast_by_the_script"] is True
    assert "dtype=torch.long" in f.fix
    # control: the same ids reaching the model as integers
    plain = make_case(demo_dir, dataset={"eval_split": None})
    f = by_id(labels.probe_label_values(plain, context(plain, raw, tok, model=model)),
              "data.label-dtype-problem-type")
    assert f.status == "pass"


def test_float_labels_with_nan_are_named(demo_dir, tok, model):
    raw = splits(train=text_rows(4, labels=[0.0, float("nan"), 2.0, 1.0]))
    case = make_case(demo_dir, dataset={"eval_split": None})
    f = by_id(labels.probe_label_values(case, context(case, raw, tok, model=model)),
              "data.label-dtype-problem-type")
    assert f.status == "fail" and f.evidence["nan_rows"] == [1] and "filter" in f.fix


def test_float_labels_for_regression_are_quiet(demo_dir, tok):
    from transformers import AutoConfig

    raw = splits(train=text_rows(6, labels=[0.1, 3.5, 2.2, 4.9, 1.0, 0.0]))
    case = make_case(demo_dir, num_labels=1, dataset={"eval_split": None})
    config = AutoConfig.from_pretrained(case.model, num_labels=1)
    found = labels.probe_label_values(case, context(case, raw, tok, config=config))
    assert loud(found) == []


def test_integer_labels_with_one_output_warn(demo_dir, tok):
    from transformers import AutoConfig

    raw = splits(train=text_rows(6, labels=[0, 1] * 3))
    case = make_case(demo_dir, num_labels=1, dataset={"eval_split": None})
    config = AutoConfig.from_pretrained(case.model, num_labels=1)
    f = by_id(labels.probe_label_values(case, context(case, raw, tok, config=config)),
              "data.label-dtype-problem-type")
    assert f.status == "warn" and "num_labels=2" in f.fix


def test_one_output_under_a_binary_loss_takes_zero_and_one(demo_dir, tok):
    from transformers import AutoConfig

    from wizard.checks import data

    raw = splits(train=text_rows(6, labels=[0, 1] * 3))
    case = make_case(demo_dir, "tensorflow", num_labels=1, dataset={"eval_split": None},
                     training={"loss": "binary_crossentropy", "from_logits": True,
                               "labels": "separate"})
    config = AutoConfig.from_pretrained(case.model, num_labels=1)
    ctx = context(case, raw, tok, config=config)
    assert loud(labels.probe_label_values(case, ctx)) == []
    assert by_id(data.probe_labels_range(case, ctx), "data.labels-out-of-range").status == "pass"
    # control: a 2 is out of range for one binary output too
    bad = splits(train=text_rows(6, labels=[0, 1, 2] * 2))
    f = by_id(data.probe_labels_range(case, context(case, bad, tok, config=config)),
              "data.labels-out-of-range")
    assert f.status == "fail"


def test_class_ids_for_a_loss_that_takes_one_hot_rows(demo_dir, tok):
    raw = splits(train=text_rows(6))
    case = make_case(demo_dir, "tensorflow", num_labels=3, dataset={"eval_split": None},
                     training={"loss": "categorical_crossentropy", "from_logits": True,
                               "labels": "separate"})
    f = by_id(labels.probe_label_values(case, context(case, raw, tok)),
              "data.class-ids-for-one-hot-loss")
    assert f.status == "fail" and f.evidence["labels_seen"] == [0, 1, 2]
    assert "SparseCategoricalCrossentropy" in f.fix
    # control: the sparse loss takes class ids
    sparse = make_case(demo_dir, "tensorflow", num_labels=3, dataset={"eval_split": None},
                       training={"loss": "sparse_categorical_crossentropy", "from_logits": True,
                                 "labels": "separate"})
    assert not any(f.id == "data.class-ids-for-one-hot-loss"
                   for f in labels.probe_label_values(sparse, context(sparse, raw, tok)))
    # control: ids one-hot encoded on the way (tf.one_hot in the pipeline) are one-hot rows
    encoded = make_case(demo_dir, "tensorflow", num_labels=3, dataset={"eval_split": None},
                        training={"loss": "categorical_crossentropy", "from_logits": True,
                                  "labels": "separate", "one_hot_labels": True})
    assert not any(f.id == "data.class-ids-for-one-hot-loss"
                   for f in labels.probe_label_values(encoded, context(encoded, raw, tok)))


def _multilabel_model(model):
    m = copy.deepcopy(model)
    m.config.problem_type = "multi_label_classification"
    return m


def test_multilabel_integer_vectors_fail_float_vectors_pass(demo_dir, tok, model):
    m = _multilabel_model(model)
    case = make_case(demo_dir, dataset={"eval_split": None})
    ints = splits(train=text_rows(4, labels=[[1, 0, 1], [0, 1, 0], [0, 0, 1], [1, 1, 0]]))
    f = by_id(labels.probe_label_values(case, context(case, ints, tok, model=m)),
              "data.label-dtype-problem-type")
    assert f.status == "fail" and "can't be cast" in f.evidence["framework_error"]
    assert 'Sequence(Value("float32"))' in f.fix
    floats = splits(train=text_rows(2, labels=[[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]))
    assert loud(labels.probe_label_values(case, context(case, floats, tok, model=m))) == []


def test_multilabel_problem_type_with_class_ids_fails(demo_dir, tok, model):
    m = _multilabel_model(model)
    case = make_case(demo_dir, dataset={"eval_split": None})
    raw = splits(train=text_rows(6))
    f = by_id(labels.probe_label_values(case, context(case, raw, tok, model=m)),
              "data.label-dtype-problem-type")
    assert f.status == "fail" and "Target size" in f.evidence["framework_error"]


def test_token_labels_for_a_sequence_head(demo_dir, tok, model):
    rows = text_rows(4)
    rows["label"] = [[0] * len(tok(t)["input_ids"]) for t in rows["text"]]
    case = make_case(demo_dir, dataset={"eval_split": None})
    f = by_id(labels.probe_label_values(case, context(case, splits(train=rows), tok, model=model)),
              "data.token-labels-for-sequence-head")
    assert f.status == "fail"
    assert "Expected input batch_size (2) to match target batch_size" in f.evidence["framework_error"]
    assert f.evidence["label_lengths"] == f.evidence["input_lengths"][:4]
    assert "AutoModelForTokenClassification" in f.fix


def test_eval_classes_unseen_in_train(demo_dir, tok):
    raw = splits(train=text_rows(40, labels=[0, 1] * 20),
                 validation=text_rows(9, labels=[0, 1, 2] * 3, offset=100))
    case = make_case(demo_dir)
    found = labels.probe_eval_labels(case, context(case, raw, tok))
    f = by_id(found, "data.eval-classes-unseen")
    assert f.status == "fail" and f.evidence["unseen_classes"] == [2]
    assert f.evidence["whole_train_split_read"] and "whole train split" in f.explanation
    assert f.evidence["eval_rows_with_them"] == [2, 5, 8]
    assert not [x for x in found if x.id == "data.eval-label-shift"]
    # a sample cut at max_samples may just have missed the class: a warning only
    case.dataset.max_samples = 40
    f = by_id(labels.probe_eval_labels(case, context(case, raw, tok)), "data.eval-classes-unseen")
    assert f.status == "warn" and not f.evidence["whole_train_split_read"]


def test_eval_label_shift(demo_dir, tok):
    raw = splits(train=text_rows(60, labels=[0] * 54 + [1] * 6),
                 validation=text_rows(60, labels=[0] * 10 + [1] * 50, offset=100))
    case = make_case(demo_dir)
    f = by_id(labels.probe_eval_labels(case, context(case, raw, tok)), "data.eval-label-shift")
    assert f.status == "warn" and f.evidence["p_value"] < 1e-6
    assert f.evidence["eval_accuracy_of_train_majority"] == pytest.approx(10 / 60, abs=1e-3)


def test_eval_label_shift_stays_quiet_on_sampling_noise(demo_dir, tok):
    import random

    case = make_case(demo_dir)
    statuses = []
    for seed in range(40):
        rng = random.Random(seed)
        draw = lambda n: rng.choices([0, 1, 2], weights=[0.5, 0.3, 0.2], k=n)  # noqa: E731
        raw = splits(train=text_rows(200, labels=draw(200)),
                     validation=text_rows(40, labels=draw(40), offset=300))
        statuses += [f.status for f in labels.probe_eval_labels(case, context(case, raw, tok))]
    assert statuses.count("warn") == 0


def test_chi2_survival_function_matches_tables():
    assert chi2_sf(3.841, 1) == pytest.approx(0.05, abs=1e-4)
    assert chi2_sf(13.816, 2) == pytest.approx(0.001, abs=1e-5)
    assert chi2_sf(30.0, 10) == pytest.approx(0.000857, abs=1e-5)


# -- text -----------------------------------------------------------------------------------------
def test_none_text_fails_with_the_tokenizer_error(demo_dir, tok):
    rows = text_rows(6)
    rows["text"][4] = None
    case = make_case(demo_dir, dataset={"eval_split": None})
    f = by_id(text.probe_empty_text(case, context(case, splits(train=rows), tok)), "data.empty-text")
    assert f.status == "fail" and f.evidence["not_text"]["train.text"]["indices"] == [4]
    assert "TextEncodeInput" in f.evidence["framework_error"] or \
        "TextInputSequence" in f.evidence["framework_error"]
    # the other probes that need tokenized rows skip instead of crashing
    ctx = context(case, splits(train=rows), tok)
    assert by_id(text.probe_lengths(case, ctx), "data.text-lengths").status == "skip"
    assert by_id(collation.probe_collation(case, ctx), "data.ragged-batch").status == "skip"


def test_empty_strings_warn_and_a_negligible_share_is_info(demo_dir, tok):
    rows = text_rows(20)
    rows["text"][3], rows["text"][7] = "", "   "
    case = make_case(demo_dir, dataset={"eval_split": None})
    f = by_id(text.probe_empty_text(case, context(case, splits(train=rows), tok)), "data.empty-text")
    assert f.status == "warn" and f.evidence["empty"]["train.text"]["indices"] == [3, 7]
    assert f.evidence["model_sees"] == "[CLS] [SEP]"
    rows = text_rows(200)
    rows["text"][50] = ""
    f = by_id(text.probe_empty_text(case, context(case, splits(train=rows), tok)), "data.empty-text")
    assert f.status == "info"


def test_train_eval_duplicates(demo_dir, tok):
    train = text_rows(30)
    evals = text_rows(10, offset=100)
    evals["text"][2], evals["text"][6] = train["text"][5], train["text"][11]
    evals["label"][6] = (train["label"][11] + 1) % 3
    case = make_case(demo_dir)
    f = by_id(text.probe_duplicates(case, context(case, splits(train=train, validation=evals), tok)),
              "data.train-eval-duplicates")
    assert f.status == "fail" and f.evidence["count"] == 2  # a fifth of the eval rows
    assert [(e["eval_index"], e["train_index"]) for e in f.evidence["examples"]] == [(2, 5), (6, 11)]
    assert f.evidence["with_different_labels"] == [6]
    more = text_rows(40, offset=100)
    more["text"][2], more["text"][6] = train["text"][5], train["text"][11]
    f = by_id(text.probe_duplicates(case, context(case, splits(train=train, validation=more), tok)),
              "data.train-eval-duplicates")
    assert f.status == "warn" and f.evidence["eval_share"] == 0.05


def test_duplicates_compare_every_text_column(demo_dir, tok):
    train = {"premise": ["a cat", "a dog"], "hypothesis": ["it sleeps", "it barks"], "label": [0, 1]}
    evals = {"premise": ["a cat", "a bird"], "hypothesis": ["it runs", "it sings"], "label": [0, 1]}
    case = make_case(demo_dir, dataset={"text_columns": ["premise", "hypothesis"]})
    f = by_id(text.probe_duplicates(case, context(case, splits(train=train, validation=evals), tok)),
              "data.train-eval-duplicates")
    assert f.status == "pass"


def _long_rows(n):
    rows = text_rows(n)
    rows["text"][1] = " ".join(["the cat saw the dog"] * 40)  # ~200 tokens
    return rows


def test_sequences_longer_than_positions_without_truncation(demo_dir, tok, model):
    case = make_case(demo_dir, dataset={"eval_split": None}, preprocessing={"truncation": False})
    found = text.probe_lengths(case, context(case, splits(train=_long_rows(6)), tok, model=model))
    f = by_id(found, "data.sequence-longer-than-positions")
    assert f.status == "fail" and f.evidence["too_long"]["train"]["rows"] == [1]
    assert "128" in f.evidence["framework_error"]
    assert "max_length=128" in f.fix
    hist = by_id(found, "data.text-lengths").plots[0]
    assert hist.kind == "hist" and max(hist.series["train"]) > 128


def test_truncation_at_the_model_maximum_is_quiet(demo_dir, tok, model):
    case = make_case(demo_dir, dataset={"eval_split": None})
    found = text.probe_lengths(case, context(case, splits(train=_long_rows(6)), tok, model=model))
    assert loud(found) == []
    lengths = by_id(found, "data.text-lengths")
    assert lengths.evidence["splits"]["train"]["truncated"] == 1
    assert lengths.evidence["truncation_limit"] == 128


def test_max_length_above_the_model_maximum_fails(demo_dir, tok, model):
    case = make_case(demo_dir, dataset={"eval_split": None}, preprocessing={"max_length": 256})
    f = by_id(text.probe_lengths(case, context(case, splits(train=_long_rows(6)), tok, model=model)),
              "data.sequence-longer-than-positions")
    assert f.status == "fail" and "above the model's 128" in f.explanation


def test_short_max_length_truncating_most_rows_warns(demo_dir, tok):
    case = make_case(demo_dir, dataset={"eval_split": None}, preprocessing={"max_length": 8})
    f = by_id(text.probe_lengths(case, context(case, splits(train=text_rows(12)), tok)),
              "data.text-lengths")
    assert f.status == "warn" and f.evidence["splits"]["train"]["truncated_share"] >= 0.5
    assert "max_length=16" in f.fix
    assert [m["x"] for m in f.plots[0].marks] == [8, 128]


# -- tokenizer ------------------------------------------------------------------------------------
def _gpt2_case(demo_dir, gpt2_dir, **over):
    case = make_case(demo_dir, dataset={"eval_split": None}, **over)
    case.model = str(gpt2_dir)
    return case


def _gpt2_raw():
    from tests.test_data_support import CORPUS

    return splits(train={"text": CORPUS, "label": [0, 1, 2, 0, 1]})


def test_no_pad_token_fails_with_the_collator_error(demo_dir, gpt2_dir):
    case = _gpt2_case(demo_dir, gpt2_dir)
    f = by_id(tokenizer.probe_pad_token(case, context(case, _gpt2_raw(), fresh_tok(gpt2_dir))),
              "data.no-pad-token")
    assert f.status == "fail" and f.evidence["pad_token"] is None
    assert "Asking to pad but the tokenizer does not have a padding token" in \
        f.evidence["framework_error"]
    assert "tokenizer.pad_token = tokenizer.eos_token" in f.fix
    assert "model.config.pad_token_id" in f.fix


def test_pad_token_without_config_pad_id_fails_on_the_model(demo_dir, gpt2_dir):
    from transformers import AutoModelForSequenceClassification

    tok2 = fresh_tok(gpt2_dir)
    tok2.pad_token = tok2.eos_token
    m = AutoModelForSequenceClassification.from_pretrained(gpt2_dir)
    case = _gpt2_case(demo_dir, gpt2_dir)
    f = by_id(tokenizer.probe_pad_token(case, context(case, _gpt2_raw(), tok2, model=m)),
              "data.no-pad-token")
    assert f.status == "fail"
    assert "Cannot handle batch sizes > 1 if no padding token is defined" in \
        f.evidence["framework_error"]
    assert f.fix == "model.config.pad_token_id = tokenizer.pad_token_id"


def test_wrong_config_pad_id_changes_the_prediction(demo_dir, gpt2_dir):
    from transformers import AutoModelForSequenceClassification

    tok2 = fresh_tok(gpt2_dir)
    tok2.pad_token = tok2.eos_token
    m = AutoModelForSequenceClassification.from_pretrained(gpt2_dir)
    m.config.pad_token_id = 7  # not the id the tokenizer pads with
    case = _gpt2_case(demo_dir, gpt2_dir)
    f = by_id(tokenizer.probe_pad_token(case, context(case, _gpt2_raw(), tok2, model=m)),
              "data.no-pad-token")
    assert f.status == "fail" and f.evidence["padding_changes_logits"] is True


def test_pad_token_fixed_as_the_course_says_passes(demo_dir, gpt2_dir):
    from transformers import AutoModelForSequenceClassification

    tok2 = fresh_tok(gpt2_dir)
    tok2.pad_token = tok2.eos_token
    m = AutoModelForSequenceClassification.from_pretrained(gpt2_dir)
    m.config.pad_token_id = tok2.pad_token_id
    case = _gpt2_case(demo_dir, gpt2_dir)
    ctx = context(case, _gpt2_raw(), tok2, model=m)
    found = [f for p in ALL_PROBES for f in p(case, ctx)]
    assert loud(found) == []


def test_encoder_without_config_pad_id_is_fine(demo_dir, tok, model):
    """The attention mask makes padding invisible to an encoder: measured, not assumed."""
    m = copy.deepcopy(model)
    m.config.pad_token_id = None
    case = make_case(demo_dir, dataset={"eval_split": None})
    f = by_id(tokenizer.probe_pad_token(case, context(case, splits(train=text_rows(6)), tok,
                                                      model=m)), "data.no-pad-token")
    assert f.status == "pass" and f.evidence["padding_changes_logits"] is False
    assert f.evidence["tokens"] < f.evidence["padded_to"]


def test_added_tokens_without_resize(demo_dir, model):
    tok2 = fresh_tok(demo_dir / "model")
    tok2.add_tokens(["<zork>", "<quux>"])
    rows = text_rows(6)
    rows["text"][3] = "the cat saw <zork> and <quux>"
    case = make_case(demo_dir, dataset={"eval_split": None})
    f = by_id(tokenizer.probe_vocab(case, context(case, splits(train=rows), tok2, model=model)),
              "data.token-ids-out-of-vocab")
    rows_n = model.get_input_embeddings().weight.shape[0]
    assert f.status == "fail" and f.evidence["out_of_range"]["train"]["rows"] == [3]
    assert f.evidence["out_of_range"]["train"]["ids"] == [rows_n, rows_n + 1]
    assert set(f.evidence["tokens"].values()) == {"<zork>", "<quux>"}
    assert "index out of range in self" in f.evidence["framework_error"]
    assert f.fix == "model.resize_token_embeddings(len(tokenizer))"

    resized = copy.deepcopy(model)
    resized.resize_token_embeddings(len(tok2))
    assert by_id(tokenizer.probe_vocab(case, context(case, splits(train=rows), tok2, model=resized)),
                 "data.token-ids-out-of-vocab").status == "pass"


def test_added_tokens_not_yet_used_warn(demo_dir, model):
    tok2 = fresh_tok(demo_dir / "model")
    tok2.add_tokens(["<zork>"])
    case = make_case(demo_dir, dataset={"eval_split": None})
    f = by_id(tokenizer.probe_vocab(case, context(case, splits(train=text_rows(6)), tok2,
                                                  model=model)), "data.token-ids-out-of-vocab")
    assert f.status == "warn"


def test_tokenizer_from_another_checkpoint(demo_dir, gpt2_dir, model):
    case = make_case(demo_dir, dataset={"eval_split": None})
    f = by_id(tokenizer.probe_tokenizer_checkpoint(
        case, context(case, splits(train=text_rows(6)), fresh_tok(gpt2_dir), model=model)),
        "data.tokenizer-model-mismatch")
    assert f.status == "fail" and f.evidence["mismatched_share"] > 0.5
    assert f.evidence["first_example"] != f.evidence["as_the_model_reads_it"]
    assert str(demo_dir / "model") in f.fix


def test_same_tokenizer_saved_elsewhere_passes(demo_dir, model, tmp_path):
    fresh_tok(demo_dir / "model").save_pretrained(tmp_path / "copy")
    case = make_case(demo_dir, dataset={"eval_split": None})
    f = by_id(tokenizer.probe_tokenizer_checkpoint(
        case, context(case, splits(train=text_rows(6)), fresh_tok(tmp_path / "copy"), model=model)),
        "data.tokenizer-model-mismatch")
    assert f.status == "pass" and f.evidence["shared_with_other_ids"] == 0


def test_tokenizer_much_smaller_than_the_table_warns(demo_dir, tok):
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(demo_dir / "model", num_labels=3)
    config.vocab_size = 1000
    case = make_case(demo_dir, dataset={"eval_split": None})
    f = by_id(tokenizer.probe_tokenizer_checkpoint(
        case, context(case, splits(train=text_rows(6)), tok, config=config)),
        "data.tokenizer-model-mismatch")
    assert f.status == "warn" and f.evidence["embedding_rows"] == 1000


# -- collation ------------------------------------------------------------------------------------
def test_ragged_batch_without_padding(demo_dir, tok):
    case = make_case(demo_dir, dataset={"eval_split": None}, preprocessing={"padding": "none"})
    f = by_id(collation.probe_collation(case, context(case, splits(train=text_rows(6)), tok)),
              "data.ragged-batch")
    assert f.status == "fail" and len(set(f.evidence["lengths"])) > 1
    assert "expected sequence of length" in f.evidence["framework_error"]
    assert "DataCollatorWithPadding(tokenizer)" in f.fix


def test_no_padding_is_fine_with_batch_size_one_or_equal_lengths(demo_dir, tok):
    one = make_case(demo_dir, dataset={"eval_split": None}, preprocessing={"padding": "none"},
                    training={"batch_size": 1})
    assert collation.probe_collation(one, context(one, splits(train=text_rows(6)), tok)) == []
    padded = make_case(demo_dir, dataset={"eval_split": None},
                       preprocessing={"padding": "max_length", "max_length": 32})
    f = by_id(collation.probe_collation(padded, context(padded, splits(train=text_rows(6)), tok)),
              "data.ragged-batch")
    assert f.status == "pass" and set(f.evidence["lengths"]) == {32}
    dynamic = make_case(demo_dir, dataset={"eval_split": None})
    assert collation.probe_collation(dynamic, context(dynamic, splits(train=text_rows(6)), tok)) == []


def test_raw_text_columns_from_a_pasted_error(demo_dir, tok):
    tb = ("ValueError: Unable to create tensor, you should probably activate truncation and/or "
          "padding with 'padding=True' 'truncation=True' to have batched tensors with the same "
          "length. Perhaps your features (`text` in this case) have excessive nesting (inputs "
          "type `list` where type `int` is expected).")
    case = make_case(demo_dir, dataset={"eval_split": None}, training={"trainer": "loop"},
                     symptom="error", traceback=tb)
    f = by_id(collation.probe_collation(case, context(case, splits(train=text_rows(6)), tok)),
              "data.raw-text-columns")
    assert f.status == "fail" and f.evidence["extra_columns"] == ["text"]
    assert "(`text` in this case)" in f.evidence["framework_error"]
    assert "remove_columns(['text'])" in f.fix


def test_raw_text_columns_in_a_live_dataset_with_a_loop(demo_dir, tok):
    raw = splits(train=text_rows(6))
    tokenized = {"train": raw["train"].map(lambda b: tok(b["text"]), batched=True)}
    loop = make_case(demo_dir, dataset={"eval_split": None}, training={"trainer": "loop"})
    ctx = context(loop, raw, tok, tokenized=tokenized)
    ctx.supplied = {"raw", "tokenizer", "tokenized"}  # what Context.from_objects records
    f = by_id(collation.probe_collation(loop, ctx), "data.raw-text-columns")
    assert f.status == "fail"
    # Trainer drops the columns itself; and without a live dataset nothing is claimed
    trainer = make_case(demo_dir, dataset={"eval_split": None})
    ctx = context(trainer, raw, tok, tokenized=tokenized)
    ctx.supplied = {"tokenized"}
    assert collation.probe_collation(trainer, ctx) == []
    assert collation.probe_collation(loop, context(loop, raw, tok)) == []


def test_raw_text_columns_when_the_trainer_keeps_every_column(demo_dir, tok):
    raw = splits(train=text_rows(6))
    keeps = make_case(demo_dir, dataset={"eval_split": None},
                      training={"remove_unused_columns": False})
    f = by_id(collation.probe_collation(keeps, context(keeps, raw, tok)), "data.raw-text-columns")
    assert f.status == "fail" and "remove_unused_columns=False" in f.explanation
    # control: the Trainer's default drops the columns
    default = make_case(demo_dir, dataset={"eval_split": None})
    assert collation.probe_collation(default, context(default, raw, tok)) == []


# -- end to end: the worker process on a case file's data ---------------------------------------
@pytest.fixture(scope="module")
def faulty_case(demo_dir, tmp_path_factory):
    """On disk: labels 1..3, an eval text copied from train, padding off."""
    from datasets import DatasetDict

    from wizard.demo.fixtures import mnli_rows

    train, evals = mnli_rows(40, seed=1), mnli_rows(20, seed=2)
    train["label"] = [v + 1 for v in train["label"]]
    evals["label"] = [v + 1 for v in evals["label"]]
    for col in ("premise", "hypothesis"):
        evals[col][3] = train[col][7]
    out = tmp_path_factory.mktemp("faulty") / "dataset"
    DatasetDict({k: v for k, v in splits(train=train, validation=evals).items()}).save_to_disk(
        str(out))
    case = make_case(demo_dir, dataset={"path": str(out), "text_columns": ["premise", "hypothesis"]},
                     preprocessing={"padding": "none"}, training={"trainer": "loop"})
    return case


DATA_PROBES = ("wizard.checks.labels:probe_label_column", "wizard.checks.labels:probe_label_values",
               "wizard.checks.labels:probe_eval_labels", "wizard.checks.text:probe_empty_text",
               "wizard.checks.text:probe_duplicates", "wizard.checks.text:probe_lengths",
               "wizard.checks.tokenizer:probe_pad_token", "wizard.checks.tokenizer:probe_vocab",
               "wizard.checks.tokenizer:probe_tokenizer_checkpoint",
               "wizard.checks.collation:probe_collation")


def test_worker_runs_the_checks_on_a_faulty_case(faulty_case):
    from wizard.engine.session import Session
    from wizard.engine.plan import Step

    step = Step("data", "Check your data", "", DATA_PROBES)
    result = Session(faulty_case, device="cpu", steps=[step]).run()
    status = {f.id: f.status for f in result.findings}
    assert status["data.labels-not-zero-based"] == "fail"
    assert status["data.ragged-batch"] == "fail"
    assert status["data.train-eval-duplicates"] == "warn"
    assert [f for f in result.findings if f.status == "error"] == []
    assert result.verdict.kind == "user-error"
    ragged = by_id(result.findings, "data.ragged-batch")
    assert "expected sequence of length" in ragged.evidence["framework_error"]
    json.dumps([f.to_dict() for f in result.findings])  # plain JSON types only (no numpy)


def _registered() -> bool:
    from wizard.engine.registry import PROBES

    return any(p.target.startswith("wizard.checks.labels:") for p in PROBES.values())


@pytest.mark.skipif(not _registered(), reason="the data probes are not in the registry yet")
def test_cli_check_reports_the_new_data_findings(faulty_case, tmp_path):
    from tests.helpers import check_case

    proc, result = check_case(faulty_case, tmp_path)
    assert proc.returncode == 1, proc.stderr[-2000:]
    fails = {f["id"] for f in result["findings"] if f["status"] == "fail"}
    assert {"data.labels-not-zero-based", "data.ragged-batch"} <= fails
    assert "data" in result["path"]

