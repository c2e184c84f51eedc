"""Hyperparameter checks (string losses, from_logits, weight decay, warmup, Keras 3 optimizers):
each fires on a faulty tiny setup and stays quiet on a healthy one; the demo's healthy case
gives no warning or failure from them on either framework."""
from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest

from wizard.core.case import Case
from wizard.context import Batch, Context
from wizard.core.findings import Finding
from wizard.checks import optimizer_checks as oc

HAS_TF = importlib.util.find_spec("tensorflow") is not None
needs_tf = pytest.mark.skipif(not HAS_TF, reason="TensorFlow is tested in env 'tf'")
if HAS_TF:  # before the PyTorch backend sets USE_TF=0, which hides TF from these libraries
    import datasets  # noqa: F401
    import transformers  # noqa: F401
HYPER_PROBES = [oc.probe_loss_strings, oc.probe_from_logits, oc.probe_weight_decay,
                oc.probe_warmup, oc.probe_keras3_optimizer]


def make_case(framework: str = "pytorch", **training: Any) -> Case:
    return Case.from_dict({
        "model": "tiny", "framework": framework,
        "dataset": {"path": "tiny", "text_columns": ["text"]},
        "training": {"optimizer": {"name": "Adam", "learning_rate": 5e-5},
                     "trainer": "keras" if framework == "tensorflow" else "trainer", **training}})


def batch(labels: tuple[int, ...] = (0, 1, 2, 1), in_inputs: bool = False) -> Batch:
    ids = np.random.default_rng(0).integers(5, 60, size=(len(labels), 8)).astype(np.int64)
    inputs = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    arr = np.asarray(labels, np.int64)
    if in_inputs:
        inputs["labels"] = arr
    return Batch(inputs=inputs, labels=arr, labels_in_inputs=in_inputs, label_key="labels",
                 indices=list(range(len(labels))))


def tf_transformer() -> Any:
    import tf_keras
    from transformers import DistilBertConfig, TFDistilBertForSequenceClassification

    tf_keras.utils.set_random_seed(0)  # the same tiny head in every run

    model = TFDistilBertForSequenceClassification(DistilBertConfig(
        vocab_size=64, dim=16, n_layers=1, n_heads=2, hidden_dim=32, max_position_embeddings=32,
        num_labels=3))
    model(model.dummy_inputs)
    return model


def keras_softmax_model() -> Any:
    """A plain Keras classifier whose last layer is a softmax (outputs probabilities)."""
    import tf_keras

    ids = tf_keras.Input(shape=(8,), dtype="int64", name="input_ids")
    x = tf_keras.layers.Embedding(64, 8)(ids)
    x = tf_keras.layers.GlobalAveragePooling1D()(x)
    return tf_keras.Model(ids, tf_keras.layers.Dense(3, activation="softmax")(x))


def ctx(case: Case, **objects: Any) -> Context:
    return Context.from_objects(case, device="cpu", **objects)


def one(findings: list[Finding], id: str) -> Finding:
    matches = [f for f in findings if f.id == id]
    assert len(matches) == 1, [(f.id, f.status, f.title) for f in findings]
    return matches[0]


def loud(findings: list[Finding]) -> list[tuple[str, str, str]]:
    return [(f.id, f.status, f.title) for f in findings if f.status in ("warn", "fail", "error")]


# -- string losses ---------------------------------------------------------------------------------
@needs_tf
def test_a_string_loss_lists_what_it_hides():
    case = make_case("tensorflow", loss="sparse_categorical_crossentropy")
    c = ctx(case)
    c.__dict__["metrics"] = ["accuracy"]
    f = one(oc.probe_loss_strings(case, c), "hyperparameters.string-loss-defaults")
    assert f.status == "info"
    loss = f.evidence["loss"]
    assert loss["means"] == "tf_keras.losses.SparseCategoricalCrossentropy"
    assert loss["defaults"]["from_logits"] is False and loss["defaults"]["ignore_class"] is None
    assert loss["defaults"]["reduction"] == "auto"
    assert f.evidence["metrics"]["means"] == {"accuracy": "sparse_categorical_accuracy"}
    assert "from_logits=True" in f.fix


def test_no_string_loss_is_silent():
    assert oc.probe_loss_strings(make_case("tensorflow"), ctx(make_case("tensorflow"))) == []
    assert oc.probe_loss_strings(make_case(), ctx(make_case())) == []


# -- from_logits -------------------------------------------------------------------------------------
@needs_tf
def test_string_loss_on_transformer_logits_fails_with_both_losses():
    case = make_case("tensorflow", loss="sparse_categorical_crossentropy", labels="separate")
    f = one(oc.probe_from_logits(case, ctx(case, model=tf_transformer(), batch=batch())),
            "hyperparameters.from-logits-mismatch")
    assert f.status == "fail" and f.evidence["outputs"] == "logits"
    right = f.evidence["loss_with_from_logits_True"]
    assert abs(right - np.log(3)) < 0.2  # the real loss of an untrained head is near ln 3
    assert abs(f.evidence["loss_with_from_logits_False"] - right) > 0.5
    assert "from_logits=True" in f.fix


@needs_tf
def test_from_logits_true_on_logits_passes():
    case = make_case("tensorflow", loss="SparseCategoricalCrossentropy(from_logits=True)",
                     labels="separate")
    f = one(oc.probe_from_logits(case, ctx(case, model=tf_transformer(), batch=batch())),
            "hyperparameters.from-logits-mismatch")
    assert f.status == "pass"


@needs_tf
def test_softmax_model_with_from_logits_true_fails_and_false_passes():
    model = keras_softmax_model()
    b = Batch(inputs={"input_ids": batch().inputs["input_ids"]}, labels=np.array([0, 1, 2, 1]),
              labels_in_inputs=False, label_key="labels", indices=[0, 1, 2, 3])
    case = make_case("tensorflow", loss="sparse_categorical_crossentropy", labels="separate",
                     from_logits=True)
    f = one(oc.probe_from_logits(case, ctx(case, model=model, batch=b)),
            "hyperparameters.from-logits-mismatch")
    assert f.status == "fail" and f.evidence["outputs"].startswith("probabilities")
    assert "from_logits=False" in f.fix
    case = make_case("tensorflow", loss="sparse_categorical_crossentropy", labels="separate")
    assert one(oc.probe_from_logits(case, ctx(case, model=model, batch=b)),
               "hyperparameters.from-logits-mismatch").status == "pass"


def test_labels_inside_the_inputs_are_left_to_the_data_check():
    case = make_case("tensorflow", loss="sparse_categorical_crossentropy")
    assert oc.probe_from_logits(case, ctx(case, batch=batch(in_inputs=True))) == []


# -- weight decay --------------------------------------------------------------------------------
@pytest.mark.parametrize("framework", ["pytorch", pytest.param("tensorflow", marks=needs_tf)])
def test_weight_decay_above_0_1_warns(framework):
    case = make_case(framework, optimizer="AdamW(learning_rate=5e-5, weight_decay=0.5)",
                     trainer="loop" if framework == "pytorch" else "keras")
    f = one(oc.probe_weight_decay(case, ctx(case)), "hyperparameters.weight-decay-too-high")
    assert f.status == "warn" and f.evidence["weight_decay"] == 0.5
    assert f.evidence["weights_kept_after_1000_steps"] == pytest.approx((1 - 5e-5 * 0.5) ** 1000,
                                                                         rel=1e-4)
    assert "weight_decay=0.01" in f.fix


def test_weight_decay_in_range_passes_and_coupled_adam_is_named():
    case = make_case(weight_decay=0.01)
    assert one(oc.probe_weight_decay(case, ctx(case)),
               "hyperparameters.weight-decay-too-high").status == "pass"
    case = make_case(optimizer="Adam(lr=5e-5, weight_decay=0.3)", trainer="loop")
    f = one(oc.probe_weight_decay(case, ctx(case)), "hyperparameters.weight-decay-too-high")
    assert f.status == "warn" and f.evidence["decoupled"] is False and "AdamW" in f.explanation


# -- warmup --------------------------------------------------------------------------------------
def test_no_warmup_at_a_high_rate_warns_and_usual_rates_pass():
    case = make_case(learning_rate=2e-4)  # Trainer: warmup 0 by default
    f = one(oc.probe_warmup(case, ctx(case)), "hyperparameters.no-warmup")
    assert f.status == "warn" and f.evidence["warmup_source"] == "the default of TrainingArguments"
    assert "warmup_ratio=0.1" in f.fix
    case = make_case(learning_rate=5e-5)
    assert one(oc.probe_warmup(case, ctx(case)), "hyperparameters.no-warmup").status == "pass"
    case = make_case(learning_rate=1e-3)  # far too high: lower it first
    assert one(oc.probe_warmup(case, ctx(case)), "hyperparameters.no-warmup").status == "info"


def test_warmup_given_to_the_optimizer_passes():
    case = make_case(optimizer="AdamW(lr=2e-4, warmup_steps=100)", trainer="loop")
    f = one(oc.probe_warmup(case, ctx(case)), "hyperparameters.no-warmup")
    assert f.status == "pass" and f.evidence["warmup"] == 100


@needs_tf
def test_transformers_create_optimizer_with_warmup_passes_on_tensorflow():
    written = "create_optimizer(init_lr=2e-4, num_train_steps=100, num_warmup_steps=10)"
    case = make_case("tensorflow", optimizer=written)
    f = one(oc.probe_warmup(case, ctx(case)), "hyperparameters.no-warmup")
    assert f.status == "pass" and f.evidence["learning_rate"] == 2e-4
    case = make_case("tensorflow", optimizer=written.replace(", num_warmup_steps=10", ""))
    assert one(oc.probe_warmup(case, ctx(case)), "hyperparameters.no-warmup").status == "warn"


# -- Keras 3 optimizer -----------------------------------------------------------------------------
@needs_tf
def test_a_keras3_optimizer_is_compiled_for_real_and_rejected():
    model = tf_transformer()
    case = make_case("tensorflow", optimizer="tf.keras.optimizers.Adam(learning_rate=5e-5)")
    f = one(oc.probe_keras3_optimizer(case, ctx(case, model=model)),
            "hyperparameters.keras3-optimizer")
    assert f.status == "warn"
    assert "Could not interpret optimizer identifier" in f.evidence["error"]
    assert f.evidence["keras3_class"].startswith("keras.")
    assert "TF_USE_LEGACY_KERAS" in f.fix and "tf_keras.optimizers.Adam(learning_rate=5e-05)" in f.fix
    pasted = make_case("tensorflow", optimizer="Adam(learning_rate=5e-5)")
    pasted.traceback = ("ValueError: Could not interpret optimizer identifier: "
                        "<keras.src.optimizers.adam.Adam object at 0x7f>")
    assert one(oc.probe_keras3_optimizer(pasted, ctx(pasted, model=model)),
               "hyperparameters.keras3-optimizer").status == "fail"


def test_tf_keras_optimizers_are_not_flagged():
    for written in ("tf_keras.optimizers.Adam(learning_rate=5e-5)", "Adam(learning_rate=5e-5)",
                    "adam"):
        case = make_case("tensorflow", optimizer=written)
        assert oc.probe_keras3_optimizer(case, ctx(case)) == []
    assert oc.probe_keras3_optimizer(make_case(), ctx(make_case())) == []


# -- the demo's healthy case ---------------------------------------------------------------------
@pytest.mark.parametrize("framework", ["pytorch", pytest.param("tensorflow", marks=needs_tf)])
def test_demo_healthy_case_has_no_hyperparameter_warnings(demo_dir, framework):
    from wizard.demo.cases import healthy_case

    case = healthy_case(demo_dir, framework)
    c = Context(case, device="cpu")
    found = [f for probe in HYPER_PROBES for f in probe(case, c)]
    assert loud(found) == []
    status = {f.id: f.status for f in found}
    assert status["hyperparameters.weight-decay-too-high"] == "pass"
    assert status["hyperparameters.no-warmup"] == "pass"


@needs_tf
def test_demo_healthy_variant_with_a_spelled_out_loss_passes(demo_dir):
    from wizard.demo.cases import healthy_case

    case = healthy_case(demo_dir, "tensorflow")
    case.training.labels = "separate"
    case.training.loss = "SparseCategoricalCrossentropy(from_logits=True)"
    c = Context(case, device="cpu")
    found = [f for probe in HYPER_PROBES for f in probe(case, c)]
    assert loud(found) == []
    assert one(found, "hyperparameters.from-logits-mismatch").status == "pass"


@pytest.mark.parametrize("written, status", [("SGD(lr=5.0)", "fail"), ("SGD(lr=0.5, momentum=0.9)", "warn"),
                                             ("SGD(lr=0.01, momentum=0.9)", "pass"),
                                             ("AdamW(lr=5e-5)", "pass"), ("Adam(lr=1e-3)", "fail")])
def test_the_learning_rate_is_judged_by_its_optimizer_family(written, status):
    """Plain SGD far above any usual rate is not 'a usual range' (Adam's fine-tuning range does
    not apply to it); each range names where it comes from."""
    from wizard.checks.hyperparameters import learning_rate_finding
    from wizard.core.optimizer import parse_optimizer

    spec = parse_optimizer(written)
    f = learning_rate_finding(spec.learning_rate, written, spec, "pytorch", "loop")
    assert f is not None and f.status == status, f
    assert f.evidence["range_source"]
    if status != "pass":
        torch_class = "SGD" if spec.family == "sgd" else "AdamW"
        assert f"torch.optim.{torch_class}(model.parameters(), lr=" in f.fix
