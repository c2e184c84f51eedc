"""The case file: YAML in and out, and one-sentence errors for bad input (fuzzed)."""
from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.core.case import Case, CaseError

MINIMAL = {"model": "distilbert-base-uncased", "dataset": {"path": "glue", "config": "mnli"}}


def test_minimal_case_gets_defaults():
    case = Case.from_dict(MINIMAL)
    assert case.framework == "pytorch" and case.training.batch_size == 16
    assert case.trainer == "trainer"
    assert case.num_labels is None  # "as the user passes it": not passed


def test_yaml_round_trip():
    case = Case.from_dict({**MINIMAL, "framework": "tensorflow", "num_labels": 3,
                           "training": {"optimizer": {"name": "Adam", "learning_rate": 5e-5},
                                        "loss": "sparse_categorical_crossentropy"}})
    again = Case.from_yaml(case.to_yaml())
    assert again.to_dict() == case.to_dict()
    assert again.trainer == "keras"


@pytest.mark.parametrize("text, field, words", [
    ("model: [unclosed", None, "not valid YAML"),
    ("- a\n- b\n", None, "mapping"),
    ("", None, "empty"),
    ("model: m\ndataset: {path: d}\ntrainig: {}\n", "trainig", "did you mean `training`"),
    ("model: m\ndataset: {path: d}\nframework: jax\n", "framework", "tensorflow, pytorch"),
    ("model: m\ndataset: {path: d}\nframework: tensorflw\n", "framework", "did you mean 'tensorflow'"),
    ("model: m\ndataset: {path: d}\ntraining: {batch_size: many}\n", "training.batch_size", "integer"),
    ("model: m\ndataset: {path: d}\ntraining: {learning_rate: fast}\n", "training.learning_rate", "5e-5"),
    ("model: m\ndataset: {path: d, colums: [a]}\n", "dataset.colums", "dataset."),
    ("dataset: {path: d}\n", "model", "Hub id"),
    ("model: m\n", "dataset.path", "save_to_disk"),
    ("model: m\ndataset: {path: d}\nnum_labels: 0\n", "num_labels", "positive"),
])
def test_bad_case_is_one_sentence_naming_the_field(text, field, words):
    with pytest.raises(CaseError) as err:
        Case.from_yaml(text)
    message = str(err.value)
    assert words in message
    assert "\n" not in message and "Traceback" not in message
    if field:
        assert err.value.field_name == field


def test_learning_rate_accepts_yaml_strings_like_5e_5():
    # YAML 1.1 reads `5e-5` as a string; the case must still take it as a number.
    case = Case.from_yaml("model: m\ndataset: {path: d}\ntraining: {learning_rate: 5e-5}\n")
    assert case.training.learning_rate == pytest.approx(5e-5)


yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["model", "dataset", "training", "path", "framework",
                                       "num_labels", "text_columns", "optimizer", "batch_size",
                                       "symptom", "labels", "x", "preprocessing", "padding"])
                      | st.text(max_size=8), children, max_size=5),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(yaml_values)
def test_arbitrary_yaml_never_raises_anything_but_case_error(value):
    text = yaml.safe_dump(value)
    try:
        Case.from_yaml(text)
    except CaseError as exc:
        assert str(exc) and "\n" not in str(exc)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_never_raises_anything_but_case_error(text):
    try:
        Case.from_yaml(text)
    except CaseError:
        pass


def test_pasted_logs_in_place_of_a_file_name_are_kept(tmp_path):
    # a Keras console log pasted under `logs:` is text, not a path: one line of it is longer
    # than a file name may be, which must not stop the case from loading
    pasted = "".join(f"{{'loss': 0.69{i}, 'grad_norm': 1.2, 'learning_rate': 5e-05, 'epoch': 0.{i}}} "
                     for i in range(6)) + "\n"
    path = tmp_path / "case.yaml"
    path.write_text(yaml.safe_dump({**MINIMAL, "logs": pasted}))
    case = Case.from_file(path)
    assert case.logs == pasted
def test_the_tokenizer_and_config_values_a_script_sets_are_applied():
    """preprocessing.pad_token, model_config (a tokenizer attribute's name standing for its
    value) and tokenizer reach the objects the checks use."""
    from types import SimpleNamespace

    from wizard.context import Context, set_pad_token

    case = Case.from_dict({**MINIMAL, "tokenizer": "other-checkpoint",
                           "preprocessing": {"pad_token": "eos_token"},
                           "model_config": {"pad_token_id": "pad_token_id", "dropout": 0.2}})
    again = Case.from_yaml(case.to_yaml())
    assert again.tokenizer == "other-checkpoint" and again.preprocessing.pad_token == "eos_token"
    tok = SimpleNamespace(eos_token="<eos>", pad_token=None)
    set_pad_token(tok, case.preprocessing.pad_token)
    assert tok.pad_token == "<eos>"
    set_pad_token(tok, "[PAD]")
    assert tok.pad_token == "[PAD]"
    tok.pad_token_id = 7
    config = SimpleNamespace(pad_token_id=None)
    Context.from_objects(case, tokenizer=tok).set_config_values(config)
    assert config.pad_token_id == 7 and config.dropout == 0.2


def test_a_script_is_the_one_that_raised_the_pasted_error(tmp_path):
    (tmp_path / "train.py").write_text("print('hi')\n")
    text = yaml.safe_dump({**MINIMAL, "traceback": "TypeError: x", "script": "train.py",
                           "script_args": ["./ckpt", 3]})
    (tmp_path / "case.yaml").write_text(text)
    case = Case.from_file(tmp_path / "case.yaml")      # relative to the case file
    assert case.script == str((tmp_path / "train.py").resolve())
    assert case.script_args == ["./ckpt", "3"]
    with pytest.raises(CaseError, match="paste its error too") as err:
        Case.from_dict({**MINIMAL, "script": case.script})
    assert err.value.field_name == "traceback"
    with pytest.raises(CaseError, match="does not exist") as err:
        Case.from_dict({**MINIMAL, "traceback": "TypeError: x", "script": str(tmp_path / "no.py")})
    assert err.value.field_name == "script"
    with pytest.raises(CaseError, match="arguments of `script:`"):
        Case.from_dict({**MINIMAL, "script_args": ["x"]})
