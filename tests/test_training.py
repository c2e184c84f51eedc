"""Training-dynamics probes (wizard/checks/training.py) on constructed faulty and healthy runs:
tiny MLPs in PyTorch and Keras, and the offline demo DistilBERT through a Context."""
from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from wizard.checks import training as T

HAS_TF = importlib.util.find_spec("tensorflow") is not None
HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_tf = pytest.mark.skipif(not HAS_TF, reason="TensorFlow is tested in env 'tf'")
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="needs torch")


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """The test machine has 2 shared cores: several intra-op threads per test only contend."""
    if HAS_TORCH:
        import torch

        torch.set_num_threads(1)
    if HAS_TF:
        import tensorflow as tf
        import datasets  # noqa: F401  both decide at import whether TF is available: import
        import transformers  # noqa: F401  them before the torch backend sets USE_TF=0

        try:
            tf.config.threading.set_intra_op_parallelism_threads(1)
            tf.config.threading.set_inter_op_parallelism_threads(1)
        except RuntimeError:  # TensorFlow already initialised by another test module
            pass
    yield


def by_id(findings, id):
    found = [f for f in findings if f.id == id]
    assert found, f"no {id}: {[(f.id, f.status) for f in findings]}"
    return found[0]


# == rules on constructed snapshots (no framework) ==============================================
def _layer(name, mean, zero=0.0, nonfinite=0, kind="layer"):
    return T.LayerGrad(name=name, kind=kind, params=100, mean_abs=mean, norm=mean * 10,
                       zero_fraction=zero, nonfinite=nonfinite)


def test_layer_key_groups_blocks_embeddings_and_modules():
    assert T.layer_key("bert.encoder.layer.3.attention.self.query.weight") == "bert.encoder.layer.3"
    assert T.layer_key("distilbert.embeddings.word_embeddings.weight") == "distilbert.embeddings"
    assert T.layer_key("classifier.bias") == "classifier"
    assert T.layer_key("4.weight") == "4"
    assert T.layer_key("distilbert/transformer/layer_._1/ffn/lin1/kernel:0") == \
        "distilbert.transformer.layer_._1"
    assert T.layer_key("dense_2/kernel:0") == "dense_2"


def test_rule_layers_compare_the_block_stack_not_the_fresh_head():
    body = [_layer("enc.layer.0", 1e-6), _layer("enc.layer.1", 1e-6), _layer("classifier", 1e-2)]
    first, last = T.rule_layers(body)
    assert (first.name, last.name) == ("enc.layer.0", "enc.layer.1")
    plain = [_layer("0", 1e-6), _layer("2", 1e-3), _layer("4", 1e-2)]
    assert [l.name for l in T.rule_layers(plain)] == ["0", "4"]


@pytest.mark.parametrize("first,status", [(1e-7, "warn"), (1e-3, "pass")])
def test_vanishing_rule(first, status):
    snap = T.GradientSnapshot([_layer("0", first), _layer("2", 1e-4), _layer("4", 1e-2)],
                              trainable_params=300)
    assert by_id(T.judge_gradients(snap), "training.vanishing-gradients").status == status


@pytest.mark.parametrize("first,nonfinite,status", [(1.0, 0, "warn"), (1e-2, 3, "fail"),
                                                    (1e-2, 0, "pass")])
def test_exploding_rule(first, nonfinite, status):
    snap = T.GradientSnapshot([_layer("0", first, nonfinite=nonfinite), _layer("4", 1e-2)],
                              trainable_params=200)
    assert by_id(T.judge_gradients(snap), "training.exploding-gradients").status == status


def test_dead_units_and_no_gradient_rules():
    snap = T.GradientSnapshot([_layer("emb", 1e-3, zero=0.9, kind="embedding"),
                               _layer("0", 1e-3, zero=0.8), _layer("2", 1e-2, zero=0.1)],
                              no_grad=["pooler.dense.weight"], trainable_params=400)
    found = T.judge_gradients(snap)
    dead = by_id(found, "training.dead-units")
    assert dead.status == "warn" and [l["layer"] for l in dead.evidence["layers"]] == ["0"]
    assert by_id(found, "training.no-gradient").status == "warn"
    frozen = T.judge_gradients(T.GradientSnapshot([], trainable_params=0, frozen_params=10))
    assert by_id(frozen, "training.no-gradient").status == "fail"


def _run(initial, final, lr=1e-3, losses=None, trainable=100, label="your settings"):
    return T.TrainRun(label, f"Adam(learning_rate={lr})", lr, losses or [initial, final],
                      initial=initial, final=final, trainable_params=trainable)


def test_overfit_verdicts_point_at_the_right_cause():
    info = {"size": 16, "label_entropy": 1.0986}
    learnt = T.judge_overfit(_run(1.1, 0.1), None, "pytorch", "loop", info, 40)
    assert (learnt.id, learnt.status) == ("training.overfit-batch", "info") and learnt.plots
    good = _run(1.1, 0.2, lr=3e-3, label="known-good")
    slow = T.judge_overfit(_run(1.1, 1.09, lr=5e-5), good, "pytorch", "loop", info, 40)
    assert (slow.status, slow.evidence["points_to"]) == ("warn", "learning-rate")
    high = T.judge_overfit(_run(1.1, 1.09, lr=1e-2), good, "pytorch", "loop", info, 40)
    assert (high.status, high.evidence["points_to"]) == ("fail", "learning-rate")
    nan = T.judge_overfit(_run(1.1, float("nan"), losses=[1.1, float("nan")]), good,
                          "tensorflow", "keras", info, 40)
    assert nan.status == "fail" and "diverges" in nan.title and "learning_rate=0.003" in nan.fix
    data = T.judge_overfit(_run(1.1, 1.09), _run(1.1, 1.1, lr=3e-3), "pytorch", "loop", info, 40)
    assert (data.status, data.evidence["points_to"]) == ("fail", "data")
    assert "entropy of this batch's labels" in data.explanation
    broken = T.TrainRun("known-good", "Adam(learning_rate=0.003)", 3e-3, [], initial=None,
                        final=None, trainable_params=100, error="ValueError: no loss")
    unknown = T.judge_overfit(_run(1.1, 1.09), broken, "pytorch", "loop", info, 40)
    assert (unknown.status, unknown.evidence["points_to"]) == ("warn", "unknown")
    assert "could not run" in unknown.title and "ValueError: no loss" in unknown.explanation
    frozen = T.judge_overfit(_run(1.1, 1.1, trainable=0), None, "pytorch", "loop", info, 40)
    assert (frozen.status, frozen.evidence["points_to"]) == ("fail", "frozen")


def test_multi_hot_labels_have_their_own_floor_and_keep_the_users_loss_in_keras():
    from wizard.backends.batch import Batch

    hot = np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 1], [1, 0, 0, 0]], dtype=np.float32)
    multi = Batch({"input_ids": np.arange(16).reshape(4, 4)}, hot, False, "labels", [0, 1, 2, 3])
    p = hot.mean(axis=0)
    floor = float(np.mean(-(p * np.log(p) + (1 - p) * np.log(1 - p))))
    assert T.batch_info(multi)["label_entropy"] == pytest.approx(floor, abs=1e-3)
    assert T.batch_info(multi)["multi_hot"]
    one_hot = Batch({"input_ids": np.zeros((4, 2))}, np.eye(4, dtype=np.float32), False, "labels",
                    [0, 1, 2, 3])
    assert T.batch_info(one_hot)["label_entropy"] == pytest.approx(math.log(4), abs=1e-3)
    # TF models compute a single-label loss whatever problem_type says: multi-hot keeps the user's
    assert not T.own_loss_fits("tensorflow", multi) and T.own_loss_fits("pytorch", multi)
    assert T.own_loss_fits("tensorflow", one_hot)


def test_a_comparison_run_below_the_label_entropy_shows_the_model_can_learn():
    info = {"size": 16, "label_entropy": 0.66, "multi_hot": True}
    user = _run(0.694, 0.691, lr=5e-5)
    # a slow but steady known-good run on multi-hot labels: 58 % of its start, far below 0.66
    steady = T.judge_overfit(user, _run(0.694, 0.40, lr=3e-3, label="known-good"), "pytorch",
                             "trainer", info, 40)
    assert (steady.status, steady.evidence["points_to"]) == ("warn", "learning-rate")
    assert "entropy of the batch's labels" in steady.explanation
    # one that only learns the label frequencies says nothing about the learning rate
    prior = T.judge_overfit(user, _run(0.694, 0.62, lr=3e-3, label="known-good"), "pytorch",
                            "trainer", info, 40)
    assert (prior.status, prior.evidence["points_to"]) == ("fail", "data")
    assert not T.comparison_learns(_run(0.694, 0.40), {"size": 16})
    # single-label: a small net memorising shuffled labels also ends below 75 % of their entropy
    assert not T.comparison_learns(_run(1.16, 0.767), {"size": 128, "label_entropy": 1.04})


def test_a_causal_lms_token_ids_get_no_label_entropy():
    from wizard.backends.batch import Batch

    # a causal LM's labels are token ids (and -100): no label entropy is made up for them
    ids = np.array([[5, 9, 2, -100], [7, 3, 2, -100]])
    lm = Batch({"input_ids": np.where(ids < 0, 0, ids)}, ids, True, "labels", [0, 1])
    assert "label_entropy" not in T.batch_info(lm)


def test_output_kind_and_loss_wiring():
    probs = np.array([[0.2, 0.8], [0.5, 0.5]])
    assert T.output_kind(probs) == "probabilities"
    assert T.output_kind(np.log(probs)) == "log-probabilities"
    assert T.output_kind(np.array([[0.01, 0.02], [0.03, 0.0]])) == "logits"  # small raw logits
    assert T.output_kind(np.array([[0.3], [0.6]]), "sigmoid") == "sigmoid"
    bad = T.judge_loss_output("probabilities", "logits", "CrossEntropyLoss", "pytorch", {})
    assert bad.status == "fail" and "Softmax" in bad.fix
    assert T.judge_loss_output("logits", "logits", "CrossEntropyLoss", "pytorch", {}).status == "pass"


def test_embedding_separation_scores():
    rng = np.random.default_rng(0)
    labels = np.repeat([0, 1, 2], 20)
    apart = rng.normal(size=(60, 8)) * 0.1 + np.eye(3, 8)[labels] * 5
    mixed = rng.normal(size=(60, 8))
    assert T.silhouette(apart, labels) > 0.8 and T.nearest_centroid_accuracy(apart, labels) == 1.0
    assert abs(T.silhouette(mixed, labels)) < 0.1
    f = T.embedding_finding(apart, labels, "mean", ["a", "b", "c"])
    assert f.status == "info" and set(f.plots[0].series) == {"a", "b", "c"}
    assert f.evidence["pca_explained_variance"][0] > 0.3


# == PyTorch: constructed faulty runs ============================================================
def _torch_data(n=64, shuffle=False, seed=0):
    import torch

    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 8, generator=g)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
    if shuffle:
        y = y[torch.randperm(n, generator=g)]
    return x, y


def _mlp(width=32, depth=1, act="relu", seed=0):
    import torch

    torch.manual_seed(seed)
    layers, d = [], 8
    for _ in range(depth):
        layers += [torch.nn.Linear(d, width), torch.nn.ReLU() if act == "relu" else torch.nn.Sigmoid()]
        d = width
    return torch.nn.Sequential(*layers, torch.nn.Linear(d, 3))


def _diagnose(model, data, checks, **kw):
    import torch

    from wizard.api import diagnose

    kw.setdefault("loss", torch.nn.CrossEntropyLoss())
    return diagnose(model, data, checks=checks, **kw)


@needs_torch
def test_torch_deep_sigmoid_mlp_has_vanishing_gradients_and_relu_mlp_not():
    deep = _diagnose(_mlp(16, depth=12, act="sigmoid"), _torch_data(), ["gradients"])
    f = deep["training.vanishing-gradients"]
    assert f.status == "warn" and f.evidence["first_over_last"] < 1e-3
    flow = deep["training.gradient-flow"]
    assert [p.kind for p in flow.plots] == ["bar", "hist"]
    assert flow.evidence["layers"][0]["layer"] == "0"  # ordered input -> output
    healthy = _diagnose(_mlp(32, depth=2), _torch_data(), ["gradients"])
    assert healthy["training.vanishing-gradients"].status == "pass"
    assert all(f.status in ("pass", "info") for f in healthy.findings)


@needs_torch
def test_torch_too_high_learning_rate_explodes():
    import torch

    model = _mlp()
    bad = _diagnose(model, _torch_data(), ["gradients"],
                    optimizer=torch.optim.SGD(model.parameters(), lr=50.0))
    f = bad["training.exploding-gradients"]
    assert f.status == "fail" and "SGD" in f.evidence["optimizer_run"]
    model = _mlp()
    ok = _diagnose(model, _torch_data(), ["gradients"],
                   optimizer=torch.optim.SGD(model.parameters(), lr=0.05))
    assert ok["training.exploding-gradients"].status == "pass"


@needs_torch
def test_torch_dead_relu_units():
    import torch

    model = _mlp()
    with torch.no_grad():
        model[0].bias.fill_(-10.0)  # every ReLU of the hidden layer is off for every input
    dead = _diagnose(model, _torch_data(), ["gradients"])
    f = dead["training.dead-units"]
    assert f.status == "fail" and f.evidence["layers"][0]["dead_units"] == 32
    assert "training.vanishing-gradients" not in dead  # dead units explain it, not vanishing
    assert _diagnose(_mlp(), _torch_data(), ["gradients"])["training.dead-units"].status == "pass"


@needs_torch
def test_torch_overfit_one_batch_frozen_shuffled_and_healthy():
    model = _mlp()
    for p in model.parameters():
        p.requires_grad_(False)
    frozen = _diagnose(model, _torch_data(), ["overfit", "gradients"])
    assert frozen["training.cannot-overfit-batch"].evidence["points_to"] == "frozen"
    assert frozen["training.no-gradient"].status == "fail"
    shuffled = _diagnose(_mlp(width=8), _torch_data(128, shuffle=True), ["overfit"])
    f = shuffled["training.cannot-overfit-batch"]
    assert f.status == "fail" and f.evidence["points_to"] == "data"
    assert f.evidence["known_good_run"]["final_over_initial"] > T.OVERFIT_PASS_RATIO
    healthy = _diagnose(_mlp(), _torch_data(), ["overfit"])
    ok = healthy["training.overfit-batch"]
    assert ok.status == "info" and ok.evidence["your_run"]["final_over_initial"] <= 0.5
    assert ok.plots[0].kind == "line"


@needs_torch
def test_torch_unused_module_gets_no_gradient_and_model_is_left_as_it_was():
    import torch

    class WithUnused(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Linear(8, 3)
            self.unused = torch.nn.Linear(8, 3)

        def forward(self, x):
            return self.body(x)

    torch.manual_seed(0)
    model = WithUnused()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    report = _diagnose(model, _torch_data(), ["gradients", "overfit"])
    f = report["training.no-gradient"]
    assert f.status == "warn" and f.evidence["layers"] == ["unused"]
    after = model.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)  # restored after training
    assert all(p.grad is None for p in model.parameters())


@needs_torch
def test_torch_demo_transformer_trains_and_projects(demo_dir):
    import torch

    from wizard.context import Context
    from wizard.demo.cases import healthy_case

    case = healthy_case(demo_dir, "pytorch")
    case.training.optimizer = {"name": "Adam", "learning_rate": 3e-3}
    torch.manual_seed(0)
    ctx = Context(case, device="cpu")
    over = T.probe_overfit(case, ctx)[0]
    assert over.id == "training.overfit-batch", over.title
    grads = T.probe_gradients(case, ctx)
    assert all(f.status in ("pass", "info") for f in grads), [(f.id, f.status) for f in grads]
    flow = by_id(grads, "training.gradient-flow")
    names = [l["layer"] for l in flow.evidence["layers"]]
    assert names[0] == "distilbert.embeddings" and names[-1] == "classifier"
    emb = T.probe_embeddings(case, ctx)[0]
    assert emb.evidence["samples"] == T.EMBED_SAMPLES and emb.evidence["pooling"] == "first-token"
    assert set(emb.plots[0].series) == {"entailment", "neutral", "contradiction"}


# == TensorFlow / Keras ===========================================================================
def _keras_mlp(depth=1, act="relu", width=32, out_act=None, bias=0.0, seed=0):
    import tf_keras

    tf_keras.utils.set_random_seed(seed)
    layers = [tf_keras.Input((8,))]
    for _ in range(depth):
        layers.append(tf_keras.layers.Dense(width, activation=act,
                                            bias_initializer=tf_keras.initializers.Constant(bias)))
    layers.append(tf_keras.layers.Dense(3, activation=out_act))
    return tf_keras.Sequential(layers)


def _keras_data(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 8)).astype("float32")
    return x, ((x[:, 0] > 0).astype("int64") + (x[:, 1] > 0).astype("int64"))


@needs_tf
def test_keras_vanishing_dead_units_and_healthy():
    import tf_keras

    from wizard.api import diagnose

    loss = tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    deep_model = _keras_mlp(depth=12, act="sigmoid", width=16)
    deep = diagnose(deep_model, _keras_data(), loss=loss, checks=["gradients"])
    assert deep["training.vanishing-gradients"].status == "warn"
    # layers are listed input to output (Keras numbers layer names per process: compare to the model)
    assert deep["training.gradient-flow"].evidence["layers"][0]["layer"] == deep_model.layers[0].name
    dead = diagnose(_keras_mlp(bias=-10.0), _keras_data(), loss=loss, checks=["gradients"])
    assert dead["training.dead-units"].status == "fail"
    healthy = diagnose(_keras_mlp(depth=2), _keras_data(), loss=loss, checks=["gradients"])
    assert all(f.status in ("pass", "info") for f in healthy.findings)


@needs_tf
def test_keras_softmax_output_with_from_logits_true():
    import tf_keras

    from wizard.api import diagnose

    wrong = diagnose(_keras_mlp(out_act="softmax"), _keras_data(),
                     loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                     checks=["loss-output"])
    f = wrong["training.loss-output-mismatch"]
    assert f.status == "fail" and f.evidence["final_activation"] == "softmax"
    right = diagnose(_keras_mlp(), _keras_data(),
                     loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                     checks=["loss-output"])
    assert right["training.loss-output-mismatch"].status == "pass"


@needs_tf
def test_tf_demo_transformer_overfit_and_keras_loss_on_logits(demo_dir):
    import copy

    from wizard.backends import tf_train
    from wizard.context import Context
    from wizard.demo.cases import healthy_case

    case = healthy_case(demo_dir, "tensorflow")
    case.training.optimizer = {"name": "Adam", "learning_rate": 3e-3}
    ctx = Context(case, device="cpu")
    weights = [w.copy() for w in ctx.model.get_weights()]
    assert T.probe_overfit(case, ctx)[0].id == "training.overfit-batch"
    grads = T.probe_gradients(case, ctx)
    assert all(f.status in ("pass", "info") for f in grads), [(f.id, f.status) for f in grads]
    assert all(np.array_equal(a, b) for a, b in zip(weights, ctx.model.get_weights()))
    # The course's fault 1 (labels in the inputs + compile(loss="...")): the runs train on
    # Keras's string loss applied to the logits, exactly as compile() does.
    wired = copy.deepcopy(case)
    wired.training.loss = "sparse_categorical_crossentropy"
    target = T.target_for(wired, ctx)
    keras = ctx.backend.keras_loss(wired.training.loss, ctx.batch.labels, ctx.forward.logits)
    assert tf_train.eval_loss(target, ctx.model) == pytest.approx(keras, rel=1e-3)
    own = tf_train.eval_loss(T.target_for(case, ctx), ctx.model)
    assert own == pytest.approx(math.log(3), abs=0.05)
