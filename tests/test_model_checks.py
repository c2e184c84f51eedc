"""Model checks (head, trainable parameters, loss, precision, framework hints): each fires on a
faulty tiny setup and stays quiet on a healthy one, on PyTorch (both envs) and TensorFlow (env
tf); the demo's healthy case gives no warning or failure from them, end to end."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from wizard.core.case import Case
from wizard.context import Batch, Context
from wizard.core.findings import Finding
from wizard.checks import model_head, precision, trainable

HAS_TF = importlib.util.find_spec("tensorflow") is not None
needs_tf = pytest.mark.skipif(not HAS_TF, reason="TensorFlow is tested in env 'tf'")
if HAS_TF:  # before the PyTorch backend sets USE_TF=0, which hides TF from these libraries
    import datasets  # noqa: F401
    import transformers  # noqa: F401
NAMES = ["entailment", "neutral", "contradiction"]
MODEL_PROBES = [model_head.probe_checkpoint_head, model_head.probe_num_labels,
                model_head.probe_label_mapping, trainable.probe_trainable,
                trainable.probe_model_loss, precision.probe_precision, precision.probe_cpu_rerun,
                precision.probe_run_eagerly]


# -- tiny objects -------------------------------------------------------------------------------
def tiny_config(num_labels: int = 3, **kw: Any) -> Any:
    from transformers import DistilBertConfig

    return DistilBertConfig(vocab_size=64, dim=16, n_layers=1, n_heads=2, hidden_dim=32,
                            max_position_embeddings=32, num_labels=num_labels, **kw)


def torch_model(config: Any, cls: str = "DistilBertForSequenceClassification") -> Any:
    import torch
    import transformers

    torch.manual_seed(0)
    return getattr(transformers, cls)(config).eval()


def tf_model(config: Any, cls: str = "TFDistilBertForSequenceClassification") -> Any:
    import transformers

    model = getattr(transformers, cls)(config)
    model(model.dummy_inputs)
    return model


def tiny_batch(labels: tuple[int, ...] = (0, 1, 2, 0, 1, 2), key: str = "labels",
               in_inputs: bool = True, seq: int = 8) -> Batch:
    rng = np.random.default_rng(0)
    n = len(labels)
    ids = rng.integers(5, 60, size=(n, seq)).astype(np.int64)
    inputs = {"input_ids": ids, "attention_mask": np.ones((n, seq), np.int64)}
    arr = np.asarray(labels, np.int64)
    if in_inputs:
        inputs[key] = arr
    return Batch(inputs=inputs, labels=arr, labels_in_inputs=in_inputs, label_key=key,
                 indices=list(range(n)))


def tiny_raw(train: tuple[int, ...] = (0, 1, 2) * 4, validation: tuple[int, ...] = (0, 1, 2, 1),
             names: list[str] | None = NAMES, column: str = "label") -> dict[str, Any]:
    from datasets import ClassLabel, Dataset, Features, Value

    def ds(labels: tuple[int, ...]) -> Any:
        words = ["the cat saw the dog", "a dog ran", "the bird sang a song", "hello world"]
        feats = Features({"text": Value("string"), column: ClassLabel(names=names)}) if names \
            else None
        return Dataset.from_dict({"text": [words[i % 4] for i in range(len(labels))],
                                  column: list(labels)}, features=feats)

    return {"train": ds(train), "validation": ds(validation)}


def tiny_tokenizer() -> Any:
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    words = "the cat saw dog a ran bird sang song hello world".split()
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, **{w: i + 4 for i, w in enumerate(words)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]",
                                   cls_token="[CLS]", sep_token="[SEP]",
                                   model_input_names=["input_ids", "attention_mask"])


def make_case(framework: str = "pytorch", model: str = "tiny", **over: Any) -> Case:
    data: dict[str, Any] = {
        "model": model, "framework": framework,
        "dataset": {"path": "tiny", "text_columns": ["text"], "label_column": "label"},
        "training": {"optimizer": {"name": "Adam", "learning_rate": 5e-5}, "batch_size": 4,
                     "trainer": "keras" if framework == "tensorflow" else "trainer"},
        "symptom": "none"}
    for key, value in over.items():
        if isinstance(value, dict):
            data.setdefault(key, {}).update(value)
        else:
            data[key] = value
    return Case.from_dict(data)


def ctx_for(case: Case, **objects: Any) -> Context:
    objects.setdefault("raw", tiny_raw())
    return Context.from_objects(case, device="cpu", **objects)


def one(findings: list[Finding], id: str) -> Finding:
    matches = [f for f in findings if f.id == id]
    assert len(matches) == 1, [(f.id, f.status, f.title) for f in findings]
    return matches[0]


def loud(findings: list[Finding]) -> list[tuple[str, str, str]]:
    return [(f.id, f.status, f.title) for f in findings if f.status in ("warn", "fail", "error")]


# -- checkpoints on disk ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def torch_ckpts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A 2-label fine-tuned checkpoint, a base checkpoint, and one whose weight names fit no
    DistilBERT (body weights cannot load)."""
    from safetensors.torch import load_file, save_file

    root = tmp_path_factory.mktemp("torch-ckpts")
    out = {"cls2": root / "cls2", "base": root / "base", "renamed": root / "renamed"}
    torch_model(tiny_config(2)).save_pretrained(out["cls2"])
    torch_model(tiny_config(), "DistilBertModel").save_pretrained(out["base"])
    torch_model(tiny_config(), "DistilBertModel").save_pretrained(out["renamed"])
    weights = out["renamed"] / "model.safetensors"
    save_file({f"encoder_v2.{k}": v for k, v in load_file(weights).items()}, weights,
              metadata={"format": "pt"})
    return out


@pytest.fixture(scope="module")
def tf_ckpts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("tensorflow")
    root = tmp_path_factory.mktemp("tf-ckpts")
    out = {"cls2": root / "cls2", "base": root / "base"}
    tf_model(tiny_config(2)).save_pretrained(out["cls2"])
    tf_model(tiny_config(), "TFDistilBertModel").save_pretrained(out["base"])
    return out


FRAMEWORKS = ["pytorch", pytest.param("tensorflow", marks=needs_tf)]


# -- head size, new head ---------------------------------------------------------------------------
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_head_size_mismatch_reproduces_the_loading_error(framework, torch_ckpts, tf_ckpts_lazy):
    ckpts = torch_ckpts if framework == "pytorch" else tf_ckpts_lazy()
    case = make_case(framework, model=str(ckpts["cls2"]), num_labels=3)
    ctx = ctx_for(case)
    found = model_head.probe_checkpoint_head(case, ctx)
    f = one(found, "model.head-size-mismatch")
    assert f.status == "fail"
    ev = f.evidence
    assert ev["checkpoint_num_labels"] == 2 and ev["num_labels"] == 3
    if framework == "pytorch":
        assert "size mismatch" in ev["error"] or "ignore_mismatched_sizes" in ev["error"]
        weight = next(m for m in ev["mismatched"] if m["param"].endswith("classifier.weight"))
        assert weight["checkpoint"] == [2, 16] and weight["model"] == [3, 16]
    else:
        assert "cannot reshape" in ev["error"]
        kernel = next(m for m in ev["mismatched"] if "classifier" in m["param"] and
                      "kernel" in m["param"])
        assert kernel["checkpoint"] == [16, 2] and kernel["model"] == [16, 3]
    assert "ignore_mismatched_sizes=True" in f.fix and "id2label" in f.fix
    # the other checks go on with the fixed load: a 3-output head
    assert ev["wizard_continues_with"] == "ignore_mismatched_sizes=True"
    assert int(ctx.model.config.num_labels) == 3
    assert "model.new-head" not in {x.id for x in found if x.status in ("warn", "fail")}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_head_matching_the_checkpoint_is_quiet(framework, torch_ckpts, tf_ckpts_lazy):
    ckpts = torch_ckpts if framework == "pytorch" else tf_ckpts_lazy()
    for num_labels in (2, None):
        case = make_case(framework, model=str(ckpts["cls2"]), num_labels=num_labels)
        found = model_head.probe_checkpoint_head(case, ctx_for(case))
        assert [f.id for f in found] == ["model.new-head"]
        assert one(found, "model.new-head").status == "pass"


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_new_head_on_a_base_checkpoint_is_info_not_a_warning(framework, torch_ckpts, tf_ckpts_lazy):
    ckpts = torch_ckpts if framework == "pytorch" else tf_ckpts_lazy()
    case = make_case(framework, model=str(ckpts["base"]), num_labels=3)
    found = model_head.probe_checkpoint_head(case, ctx_for(case))
    f = one(found, "model.new-head")
    assert f.status == "info"
    new = f.evidence["newly_initialised"]
    assert any("classifier" in k for k in new) and all("distilbert" not in k for k in new)
    assert "not an error" in f.explanation


def test_body_weights_that_do_not_load_are_a_warning(torch_ckpts):
    case = make_case(model=str(torch_ckpts["renamed"]), num_labels=3)
    f = one(model_head.probe_checkpoint_head(case, ctx_for(case)), "model.new-head")
    assert f.status == "warn"
    assert any(k.startswith("distilbert.embeddings") for k in f.evidence["body_newly_initialised"])
    assert f.evidence["not_used_count"] > 0


@pytest.fixture(scope="module")
def tf_ckpts_lazy(request: pytest.FixtureRequest) -> Any:
    """tf_ckpts built only when a TensorFlow test asks for it."""
    return lambda: request.getfixturevalue("tf_ckpts")


# -- num_labels and id2label -----------------------------------------------------------------------
def test_more_outputs_than_classes_is_info():
    case = make_case(num_labels=5)
    f = one(model_head.probe_num_labels(case, ctx_for(case, config=tiny_config(5))),
            "model.num-labels-vs-classes")
    assert f.status == "info"
    assert f.evidence["classes"] == 3 and f.evidence["outputs_never_targeted"] == [3, 4]
    assert "num_labels=3" in f.fix


def test_num_labels_equal_passes_and_fewer_is_left_to_the_data_check():
    case = make_case(num_labels=3)
    assert one(model_head.probe_num_labels(case, ctx_for(case, config=tiny_config(3))),
               "model.num-labels-vs-classes").status == "pass"
    case = make_case(num_labels=2)
    assert model_head.probe_num_labels(case, ctx_for(case, config=tiny_config(2))) == []


def test_label_mapping_in_another_order_warns_with_the_remap():
    order = ["contradiction", "neutral", "entailment"]  # roberta-large-mnli's order
    config = tiny_config(3, id2label=dict(enumerate(order)),
                         label2id={n: i for i, n in enumerate(order)})
    case = make_case(num_labels=3)
    f = one(model_head.probe_label_mapping(case, ctx_for(case, config=config)), "model.label-mapping")
    assert f.status == "warn"
    assert f.evidence["dataset_id_to_model_id"] == {0: 2, 1: 1, 2: 0}
    assert "remap" in f.fix


def test_label_mapping_generic_matching_and_inconsistent():
    case = make_case(num_labels=3)
    generic = model_head.probe_label_mapping(case, ctx_for(case, config=tiny_config(3)))
    assert one(generic, "model.label-mapping").status == "info"
    assert "id2label={0: 'entailment'" in generic[0].fix
    good = tiny_config(3, id2label=dict(enumerate(NAMES)), label2id={n: i for i, n in enumerate(NAMES)})
    assert one(model_head.probe_label_mapping(case, ctx_for(case, config=good)),
               "model.label-mapping").status == "pass"
    bad = tiny_config(3, id2label=dict(enumerate(NAMES)), label2id={n: 0 for n in NAMES})
    assert one(model_head.probe_label_mapping(case, ctx_for(case, config=bad)),
               "model.label-mapping").status == "warn"


# -- trainable parameters --------------------------------------------------------------------------
def test_nothing_trainable_fails_and_a_fresh_model_passes_torch():
    case = make_case()
    model = torch_model(tiny_config())
    found = trainable.probe_trainable(case, ctx_for(case, model=model))
    assert [(f.id, f.status) for f in found] == [("model.nothing-trainable", "pass")]
    for p in model.parameters():
        p.requires_grad = False
    f = one(trainable.probe_trainable(case, ctx_for(case, model=model)), "model.nothing-trainable")
    assert f.status == "fail" and f.evidence["trainable"] == 0
    assert "requires_grad = True" in f.fix


def test_frozen_body_fails_at_a_fine_tuning_rate_else_info_or_warn_by_symptom_torch():
    model = torch_model(tiny_config())
    for p in model.distilbert.parameters():
        p.requires_grad = False
    f = one(trainable.probe_trainable(make_case(), ctx_for(make_case(), model=model)),
            "model.frozen-parameters")
    assert f.status == "fail" and f.evidence["learning_rate"] == 5e-5  # the head alone at 5e-5
    assert f.evidence["body_trainable"] == 0 and f.evidence["head_trainable"] > 0
    head_rate = {"optimizer": {"name": "Adam", "learning_rate": 1e-3}}
    feature = make_case(training=head_rate)
    f = one(trainable.probe_trainable(feature, ctx_for(feature, model=model)),
            "model.frozen-parameters")
    assert f.status == "info"  # feature extraction at a head's rate: a choice, not a fault
    slow = make_case(symptom="loss-not-decreasing", training=head_rate)
    assert one(trainable.probe_trainable(slow, ctx_for(slow, model=model)),
               "model.frozen-parameters").status == "warn"
    model = torch_model(tiny_config())
    for p in model.classifier.parameters():
        p.requires_grad = False
    f = one(trainable.probe_trainable(make_case(), ctx_for(make_case(), model=model)),
            "model.frozen-parameters")
    assert f.status == "warn" and "classifier" in f.fix


@needs_tf
def test_trainable_checks_on_tensorflow():
    case = make_case("tensorflow")
    model = tf_model(tiny_config())
    assert [f.status for f in trainable.probe_trainable(case, ctx_for(case, model=model))] == ["pass"]
    model.distilbert.trainable = False
    f = one(trainable.probe_trainable(case, ctx_for(case, model=model)), "model.frozen-parameters")
    assert f.status == "fail" and f.evidence["body_trainable"] == 0  # head alone at 5e-5
    model.trainable = False
    f = one(trainable.probe_trainable(case, ctx_for(case, model=model)), "model.nothing-trainable")
    assert f.status == "fail"


# -- the model's own loss ------------------------------------------------------------------------
@pytest.mark.parametrize("trainer", ["trainer", "loop"])
def test_a_class_without_a_head_returns_no_loss_torch(trainer):
    case = make_case(training={"trainer": trainer})
    bare = torch_model(tiny_config(), "DistilBertModel")
    f = one(trainable.probe_model_loss(case, ctx_for(case, model=bare, batch=tiny_batch())),
            "model.no-loss")
    assert f.status == "fail"
    assert "AutoModelForSequenceClassification" in f.fix
    # transformers 4 rejects `labels`; transformers 5 ignores it and returns no loss
    assert "labels" in f.evidence.get("error", "") or "did not return a loss" in \
        f.evidence["trainer_message"]
    healthy = torch_model(tiny_config())
    f = one(trainable.probe_model_loss(case, ctx_for(case, model=healthy, batch=tiny_batch())),
            "model.no-loss")
    assert f.status == "pass" and f.evidence["loss"] > 0


def test_labels_the_trainer_drops_never_reach_the_model_torch():
    case = make_case(dataset={"label_column": "target"})
    batch = tiny_batch(key="target")
    f = one(trainable.probe_model_loss(case, ctx_for(case, model=torch_model(tiny_config()),
                                                     batch=batch)), "model.no-loss")
    assert f.status == "fail" and f.evidence["dropped_by_trainer"] == ["target"]
    assert f.evidence["trainer_message"].startswith("The model did not return a loss from the inputs")
    assert "rename_column('target', 'labels')" in f.fix


def test_keras_with_a_compile_loss_does_not_need_the_model_loss():
    case = make_case("tensorflow", training={"loss": "sparse_categorical_crossentropy"})
    assert trainable.probe_model_loss(case, ctx_for(case)) == []


@needs_tf
def test_no_loss_on_tensorflow_bare_model_and_head():
    case = make_case("tensorflow")
    f = one(trainable.probe_model_loss(case, ctx_for(case, model=tf_model(tiny_config(),
                                                                          "TFDistilBertModel"),
                                                     batch=tiny_batch())), "model.no-loss")
    assert f.status == "fail" and "TFAutoModelForSequenceClassification" in f.fix
    f = one(trainable.probe_model_loss(case, ctx_for(case, model=tf_model(tiny_config()),
                                                     batch=tiny_batch())), "model.no-loss")
    assert f.status == "pass"


# -- precision -----------------------------------------------------------------------------------
def test_fp16_on_t5_warns_and_on_distilbert_passes():
    from transformers import T5Config

    t5 = torch_model(T5Config(vocab_size=64, d_model=16, d_kv=8, d_ff=32, num_layers=1,
                              num_decoder_layers=1, num_heads=2, num_labels=3,
                              decoder_start_token_id=0), "T5ForSequenceClassification")
    case = make_case(training={"mixed_precision": "fp16", "trainer": "loop"})
    batch = tiny_batch()
    batch.inputs["input_ids"][:, -1] = t5.config.eos_token_id  # T5's head reads the eos token
    found = precision.probe_precision(case, ctx_for(case, model=t5, batch=batch))
    f = one(found, "model.fp16-overflow-risk")
    assert f.status == "warn" and f.evidence["model_type"] == "t5"
    assert f.evidence["fp16_forward_finite"] is True and "bf16" in f.fix
    found = precision.probe_precision(case, ctx_for(case, model=torch_model(tiny_config()),
                                                    batch=tiny_batch()))
    f = one(found, "model.fp16-overflow-risk")
    assert f.status == "pass" and f.evidence["headroom"] > 8


def test_fp16_overflow_on_the_first_batch_fails():
    import torch

    model = torch_model(tiny_config())
    with torch.no_grad():
        model.distilbert.embeddings.word_embeddings.weight.mul_(1e6)  # activations far past 65504
        model.distilbert.embeddings.LayerNorm.weight.mul_(1e6)
    case = make_case(training={"mixed_precision": "fp16", "trainer": "loop"})
    f = one(precision.probe_precision(case, ctx_for(case, model=model, batch=tiny_batch())),
            "model.fp16-overflow-risk")
    assert f.status == "fail" and f.evidence["max_abs_activation_fp32"] >= 65504


def test_bf16_with_trainer_on_cpu_reproduces_the_error():
    case = make_case(training={"mixed_precision": "bf16"})
    f = one(precision.probe_precision(case, ctx_for(case, model=torch_model(tiny_config()))),
            "model.precision-unsupported")
    assert f.status == "fail"
    assert "doesn't support bf16" in f.evidence["error"]
    assert make_case().training.mixed_precision == "fp32"
    assert precision.probe_precision(make_case(), ctx_for(make_case())) == []


@needs_tf
def test_mixed_float16_without_a_gpu_warns_on_tensorflow():
    case = make_case("tensorflow", training={"mixed_precision": "fp16"})
    found = precision.probe_precision(case, ctx_for(case, model=tf_model(tiny_config()),
                                                    batch=tiny_batch()))
    assert one(found, "model.precision-unsupported").status == "warn"
    assert one(found, "model.fp16-overflow-risk").status == "pass"


# -- framework hints: CPU re-run, run_eagerly ---------------------------------------------------
ASSERT_PASTE = ("RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might "
                "be asynchronously reported at some other API call, so the stacktrace below might "
                "be incorrect.")


def _tokenized_ctx(case: Case, model: Any, train: tuple[int, ...]) -> Context:
    tok = tiny_tokenizer()
    raw = tiny_raw(train=train)
    tokenized = {k: v.map(lambda b: tok(b["text"], truncation=True), batched=True)
                 for k, v in raw.items()}
    return ctx_for(case, raw=raw, tokenizer=tok, tokenized=tokenized, model=model)


def test_cpu_rerun_turns_a_device_side_assert_into_the_readable_error():
    case = make_case(num_labels=2, traceback=ASSERT_PASTE, training={"trainer": "loop"})
    ctx = _tokenized_ctx(case, torch_model(tiny_config(2)), train=(0, 1, 0, 1, 0, 1, 2, 0))
    f = one(precision.probe_cpu_rerun(case, ctx), "model.cpu-rerun")
    assert f.status == "warn"
    assert "Target 2 is out of bounds" in f.evidence["error"]
    assert f.evidence["batch"] == 1 and f.evidence["rows"] == [4, 7]  # batch_size 4
    assert f.evidence["labels"] == [0, 1, 2] and f.evidence["num_labels"] == 2
    assert "already gives the readable error" in f.explanation  # the checks ran on CPU
    assert "model.cpu()" in f.fix


def test_cpu_rerun_without_an_error_is_info_and_without_a_cuda_paste_is_silent():
    case = make_case(num_labels=3, traceback=ASSERT_PASTE, training={"trainer": "loop"})
    ctx = _tokenized_ctx(case, torch_model(tiny_config(3)), train=(0, 1, 2) * 4)
    f = one(precision.probe_cpu_rerun(case, ctx), "model.cpu-rerun")
    assert f.status == "info" and f.evidence["rows_run_on_cpu"] == 12
    quiet = make_case(num_labels=3, traceback="IndexError: Target 2 is out of bounds.")
    assert precision.probe_cpu_rerun(quiet, ctx) == []


GRAPH_PASTE = """Traceback (most recent call last):
  File "/home/me/train.py", line 10, in <module>
    model.fit(tf_train_dataset, epochs=1)
  File "/usr/lib/python3.11/site-packages/tf_keras/src/utils/traceback_utils.py", line 70, in error_handler
    raise e.with_traceback(filtered_tb) from None
tensorflow.python.framework.errors_impl.InvalidArgumentError: Graph execution error:

Detected at node tf_distil_bert_for_sequence_classification/sparse_categorical_crossentropy/SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits defined at (most recent call last):
  File "/home/me/train.py", line 10, in <module>

  File "/usr/lib/python3.11/site-packages/transformers/modeling_tf_utils.py", line 313, in hf_compute_loss

Received a label value of 2 which is outside the valid range of [0, 2).  Label values: 1 2 1 0
\t [[{{node tf_distil_bert_for_sequence_classification/sparse_categorical_crossentropy/SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits}}]] [Op:__inference_train_function_4091]
"""


@needs_tf
def test_run_eagerly_gives_the_plain_error_for_a_graph_error():
    case = make_case("tensorflow", num_labels=2, traceback=GRAPH_PASTE, symptom="error")
    model = tf_model(tiny_config(2))
    before = [w.copy() for w in model.get_weights()]
    ctx = ctx_for(case, model=model, batch=tiny_batch(labels=(0, 1, 2, 1)))
    f = one(precision.probe_run_eagerly(case, ctx), "model.tf-run-eagerly")
    assert f.status == "warn"
    assert "Received a label value of 2" in f.evidence["eager_error"]
    assert "{{" not in f.evidence["eager_error"] and f.evidence["innermost_frames"]
    assert "run_eagerly=True" in f.fix
    assert all(np.array_equal(a, b) for a, b in zip(before, model.get_weights()))  # restored


@needs_tf
def test_run_eagerly_on_a_healthy_batch_is_info_and_other_errors_are_ignored():
    case = make_case("tensorflow", num_labels=3, traceback=GRAPH_PASTE, symptom="error")
    ctx = ctx_for(case, model=tf_model(tiny_config(3)), batch=tiny_batch(labels=(0, 1, 2, 1)))
    assert one(precision.probe_run_eagerly(case, ctx), "model.tf-run-eagerly").status == "info"
    other = make_case("tensorflow", traceback="ValueError: No gradients provided for any variable")
    assert precision.probe_run_eagerly(other, ctx) == []


# -- the demo's healthy case, loaded the real way, and one run through the worker ------------------
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_demo_healthy_case_has_no_model_warnings(demo_dir, framework):
    from wizard.demo.cases import healthy_case

    case = healthy_case(demo_dir, framework)
    ctx = Context(case, device="cpu")
    found = [f for probe in MODEL_PROBES for f in probe(case, ctx)]
    assert loud(found) == []
    status = {f.id: f.status for f in found}
    assert status["model.new-head"] == "info"              # the demo model is a base checkpoint
    assert status["model.nothing-trainable"] == "pass"
    assert status["model.no-loss"] == "pass"
    assert status["model.num-labels-vs-classes"] == "pass"


def test_worker_run_finds_the_head_mismatch_and_goes_on(demo_dir, tmp_path):
    """End to end through the session and its worker process: a 2-label fine-tuned checkpoint
    loaded with num_labels=3; the forward probe then runs on the fixed load."""
    from wizard.demo.cases import healthy_case
    from wizard.engine.session import Session
    from wizard.engine.plan import Step

    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    ckpt = tmp_path / "finetuned-2"
    AutoModelForSequenceClassification.from_pretrained(demo_dir / "model", num_labels=2) \
        .save_pretrained(ckpt)
    AutoTokenizer.from_pretrained(demo_dir / "model").save_pretrained(ckpt)
    case = healthy_case(demo_dir, "pytorch")
    case.model = str(ckpt)
    step = Step("model", "Check your model", "", (
        "wizard.checks.model_head:probe_checkpoint_head", "wizard.checks.model:probe_forward",
        "wizard.checks.trainable:probe_model_loss"))
    result = Session(case, device="cpu", steps=[step]).run()
    status = {f.id: f.status for f in result.findings}
    assert status["model.head-size-mismatch"] == "fail"
    assert status["model.forward"] == "pass"
    assert [f for f in result.findings if f.status == "error"] == []
