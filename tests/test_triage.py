"""Error-message triage: real tracebacks map to the right signature and numbers; others to none.

Most tracebacks are produced for real: PyTorch ones in-process, transformers ones in a child
process (USE_TF=0 there, so this session's TensorFlow tests are not affected) and TensorFlow/Keras
ones in a child process in env tf. CUDA messages, which a CPU cannot produce, are pasted texts
written with the exact wording torch prints.
"""
from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import traceback
from pathlib import Path
from typing import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wizard.core.case import Case
from wizard.core.catalogue import CHECKS
from wizard.core.findings import Finding
from wizard.triage.frames import classify_path
from wizard.triage.match import Triage, probe_triage, triage
from wizard.triage.parse import ParsedError, parse_traceback
from wizard.triage.signatures import SIGNATURES, Signature, unknown_probe_ids

HAS_TF = importlib.util.find_spec("tensorflow") is not None
needs_tf = pytest.mark.skipif(not HAS_TF, reason="TensorFlow is tested in env 'tf'")


def capture(fn: Callable[[], object]) -> str:
    """traceback.format_exc() of what fn raises (fails the test when it raises nothing)."""
    try:
        fn()
    except BaseException:  # noqa: BLE001
        return traceback.format_exc()
    pytest.fail("expected an exception")


def ids(t: Triage) -> list[str]:
    return [m.signature.id for m in t.matches]


# ------------------------------------------------------------------------------------------
# Child processes that produce real transformers / TensorFlow errors (started together)
# ------------------------------------------------------------------------------------------
HF_SCRIPT = r'''
import json, logging, os, sys, traceback
import numpy as np
import torch
from tokenizers import Tokenizer, models, pre_tokenizers
import datasets
from transformers import (AutoModelForSequenceClassification, BertConfig,
    BertForSequenceClassification, BertTokenizerFast, DataCollatorWithPadding,
    PreTrainedTokenizerFast, Trainer, TrainingArguments)

out, logs = {}, []
class Grab(logging.Handler):
    def emit(self, record):
        logs.append(record.getMessage())
logging.getLogger("transformers").addHandler(Grab())

def grab(name, fn):
    logs.clear()
    try:
        fn()
        out[name] = None
    except BaseException:
        out[name] = "\n".join(logs + [traceback.format_exc()])

d = sys.argv[1]
vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"w{i}" for i in range(40)] + ["the", "a", "cat"]
open(f"{d}/vocab.txt", "w").write("\n".join(vocab))
tok = BertTokenizerFast(f"{d}/vocab.txt", model_max_length=32)
cfg = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                 intermediate_size=32, max_position_embeddings=32, num_labels=2)
torch.manual_seed(0)
m = BertForSequenceClassification(cfg).eval()
m.save_pretrained(f"{d}/model")
wl = Tokenizer(models.WordLevel({w: i for i, w in enumerate(vocab)}, unk_token="[UNK]"))
wl.pre_tokenizer = pre_tokenizers.Whitespace()
nopad = PreTrainedTokenizerFast(tokenizer_object=wl)

grab("no_pad", lambda: nopad(["the cat", "a"], padding=True))
grab("unable_input_ids", lambda: tok(["the cat w1 w2", "a"], return_tensors="pt"))
grab("unable_label", lambda: DataCollatorWithPadding(tok)(
    [{"input_ids": [2, 45, 3], "label": [0, 1]}, {"input_ids": [2, 3], "label": [1]}]))
grab("unable_text", lambda: DataCollatorWithPadding(tok)(
    [{"input_ids": [2, 45, 3], "text": "the cat"}, {"input_ids": [2, 3], "text": "a"}]))
grab("missing_input_ids", lambda: m(attention_mask=torch.ones(1, 3, dtype=torch.long)))
grab("token_labels", lambda: m(input_ids=torch.ones(2, 8, dtype=torch.long),
                               labels=torch.ones(2, 8, dtype=torch.long)))
grab("size_mismatch", lambda: AutoModelForSequenceClassification.from_pretrained(
    f"{d}/model", num_labels=3))
def too_long():
    enc = tok("the " * 40, return_tensors="pt")   # logs the 'Token indices ...' warning
    m(input_ids=enc["input_ids"])
grab("too_long", too_long)
grab("too_long_all_inputs", lambda: m(**tok("the " * 40, return_tensors="pt")))
def added_token():
    tok.add_tokens(["zzz"])                        # no resize_token_embeddings
    m(**tok("the zzz cat", return_tensors="pt"))
grab("added_token", added_token)
def multi_label():
    ml = BertForSequenceClassification(BertConfig(**{**cfg.to_dict(),
                                                     "problem_type": "multi_label_classification"}))
    ml(input_ids=torch.ones(2, 4, dtype=torch.long), labels=torch.tensor([[1, 0], [0, 1]]))
grab("multi_label_long", multi_label)
def no_loss():
    args = TrainingArguments(output_dir=f"{d}/out", report_to=[], use_cpu=True)
    Trainer(model=m, args=args).compute_loss(m, dict(tok(["the cat"], return_tensors="pt")))
grab("no_loss", no_loss)
def metric_logits():   # what evaluate does with compute(predictions=logits, ...)
    feats = datasets.Features({"predictions": datasets.Value("int32"),
                               "references": datasets.Value("int32")})
    feats.encode_batch({"predictions": list(np.random.rand(4, 3)), "references": [0, 1, 2, 1]})
grab("metric_logits", metric_logits)
print("@@JSON@@" + json.dumps(out))
'''

TF_SCRIPT = r'''
import json, os, sys, traceback
import numpy as np
import tensorflow as tf
import tf_keras

out = {}
def grab(name, fn):
    try:
        fn()
        out[name] = None
    except BaseException:
        out[name] = traceback.format_exc()

x = np.zeros((8, 3), "float32")
y = np.array([0, 1, 2, 1, 0, 1, 0, 1])
def model():
    return tf_keras.Sequential([tf_keras.layers.Dense(2, input_shape=(3,))])
def label_range_fit():
    m = model()
    m.compile(loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True), optimizer="adam")
    m.fit(x, y, epochs=1, verbose=0)
grab("label_range_fit", label_range_fit)
grab("label_range_eager", lambda: tf_keras.losses.sparse_categorical_crossentropy(
    y, tf.zeros((8, 2)), from_logits=True))
def no_gradients():
    m = model()
    m.compile(loss=lambda t, p: tf.reduce_sum(tf.cast(t, tf.float32)) * 0.0, optimizer="adam")
    m.fit(x, np.zeros(8), epochs=1, verbose=0)
grab("no_gradients", no_gradients)
def keras3_optimizer():
    import keras   # Keras 3, what `tensorflow.keras` is without TF_USE_LEGACY_KERAS=1
    model().compile(loss="mse", optimizer=keras.optimizers.Adam(1e-3))
grab("keras3_optimizer", keras3_optimizer)
grab("oom_cpu", lambda: tf.zeros((10**12, 10)))
def keras3_transformers():   # as when tf-keras is not installed
    for name in [k for k in sys.modules if k == "tf_keras" or k.startswith("tf_keras.")]:
        del sys.modules[name]
    sys.modules["tf_keras"] = None
    import transformers.activations_tf  # noqa: F401
grab("keras3_transformers", keras3_transformers)
print("@@JSON@@" + json.dumps(out))
'''

_PROCS: dict[str, subprocess.Popen] = {}


def _start(name: str, script: str, tmp: Path, env_extra: dict[str, str]) -> None:
    (tmp / f"{name}.py").write_text(script)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false", "TF_CPP_MIN_LOG_LEVEL": "3", **env_extra}
    _PROCS[name] = subprocess.Popen([sys.executable, str(tmp / f"{name}.py"), str(tmp)],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    env=env, cwd=str(tmp))


def _collect(name: str) -> dict[str, str | None]:
    proc = _PROCS[name]
    stdout, stderr = proc.communicate(timeout=300)
    marker = stdout.rfind("@@JSON@@")
    assert marker != -1, f"{name} script failed:\n{stderr[-3000:]}"
    return json.loads(stdout[marker + len("@@JSON@@"):])


@pytest.fixture(scope="module")
def children(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Start the transformers and TensorFlow scripts at once; each fixture below waits."""
    if "hf" not in _PROCS:
        _start("hf", HF_SCRIPT, tmp_path_factory.mktemp("hf"), {"USE_TF": "0"})
    if HAS_TF and "tf" not in _PROCS:
        _start("tf", TF_SCRIPT, tmp_path_factory.mktemp("tf"),
               {"TF_USE_LEGACY_KERAS": "1", "USE_TORCH": "0"})


@pytest.fixture(scope="module")
def hf(children: None) -> dict[str, str | None]:
    return _collect("hf")


@pytest.fixture(scope="module")
def tf_errors(children: None) -> dict[str, str | None]:
    if not HAS_TF:
        pytest.skip("TensorFlow is tested in env 'tf'")
    return _collect("tf")


def real(d: dict[str, str | None], name: str) -> str:
    text = d.get(name)
    assert text, f"{name} raised nothing"
    return text


# ------------------------------------------------------------------------------------------
# Real PyTorch errors (in-process)
# ------------------------------------------------------------------------------------------
def test_torch_target_out_of_bounds() -> None:
    import torch
    import torch.nn.functional as F
    text = capture(lambda: F.cross_entropy(torch.zeros(4, 2), torch.tensor([0, 1, 2, 1])))
    t = triage(text)
    assert t.primary.signature.id == "torch-target-out-of-bounds"
    assert t.primary.evidence["target"] == 2
    assert t.primary.evidence["num_labels_needed_at_least"] == 3
    assert "data.labels-out-of-range" in t.probes
    p = t.parsed
    assert p.exc_type == "IndexError" and p.message == "Target 2 is out of bounds."
    assert p.innermost_frame.package == "torch" and p.library_frames_innermost
    assert p.innermost_user_frame.file == __file__
    assert "cross_entropy" in (p.innermost_user_frame.code or "")


def test_torch_negative_target_gets_its_own_cause() -> None:
    import torch
    import torch.nn.functional as F
    text = capture(lambda: F.cross_entropy(torch.zeros(2, 2), torch.tensor([0, -1])))
    m = triage(text).primary
    assert m.signature.id == "torch-target-out-of-bounds" and m.evidence["target"] == -1
    assert "-100" in m.cause


def test_torch_embedding_index_out_of_range() -> None:
    import torch
    text = capture(lambda: torch.nn.Embedding(10, 4)(torch.tensor([[1, 12]])))
    t = triage(text)
    assert ids(t) == ["index-out-of-range-in-self"]
    assert {"data.token-ids-out-of-vocab", "data.sequence-longer-than-positions"} <= set(t.probes)


def test_torch_ragged_tensor_numbers() -> None:
    import torch
    t = triage(capture(lambda: torch.tensor([[1, 2, 3], [1, 2]])))
    assert t.primary.signature.id == "ragged-sequences"
    assert (t.primary.evidence["expected"], t.primary.evidence["dim"],
            t.primary.evidence["got"]) == (3, 1, 2)


def test_torch_long_labels_where_float_expected() -> None:
    import torch
    import torch.nn.functional as F

    def huber() -> None:
        x = torch.zeros(4, requires_grad=True)
        F.huber_loss(x, torch.tensor([1, 0, 1, 0])).backward()
    t = triage(capture(huber))
    assert t.primary.signature.id == "label-dtype-long-expected-float"
    assert t.primary.evidence["found"] == "Long" and t.primary.evidence["expected"] == "Float"


def test_too_many_values_to_unpack_dict_batch() -> None:
    def loop() -> None:
        batch = {"input_ids": 1, "attention_mask": 2, "labels": 3}
        input_ids, labels = batch  # noqa: F841 - the classic: iterating a dict gives its keys
    t = triage(capture(loop))
    assert t.primary.signature.id == "too-many-values-to-unpack"
    assert t.primary.evidence["expected"] == 2
    assert not t.parsed.library_frames_innermost


def test_real_chained_exception_direct_cause() -> None:
    import torch
    import torch.nn.functional as F

    def step() -> None:
        try:
            F.cross_entropy(torch.zeros(4, 2), torch.tensor([0, 1, 5, 1]))
        except IndexError as exc:
            raise RuntimeError("training step 3 failed") from exc
    t = triage(capture(step))
    p = t.parsed
    assert p.exc_type == "RuntimeError" and p.message == "training step 3 failed"
    assert len(p.chain) == 1 and p.chain[0].exc_type == "IndexError" and p.relation == "cause"
    assert t.primary.signature.id == "torch-target-out-of-bounds"
    assert t.primary.where == "chained" and t.primary.evidence["target"] == 5


def test_real_chained_exception_during_handling() -> None:
    import torch
    import torch.nn.functional as F

    def step() -> None:
        batch = {"input_ids": [1, 2]}
        try:
            batch["labels"]
        except KeyError:
            F.cross_entropy(torch.zeros(2, 2), torch.tensor([0, 2]))
    t = triage(capture(step))
    assert t.parsed.relation == "context" and t.parsed.chain[0].exc_type == "KeyError"
    assert t.primary.signature.id == "torch-target-out-of-bounds" and t.primary.where == "exception"


# ------------------------------------------------------------------------------------------
# Real transformers errors (child process)
# ------------------------------------------------------------------------------------------
def test_hf_no_pad_token(hf: dict) -> None:
    t = triage(real(hf, "no_pad"))
    assert t.primary.signature.id == "no-pad-token" and "data.no-pad-token" in t.probes
    assert t.parsed.innermost_frame.package == "transformers"
    assert "tokenizer.pad_token = tokenizer.eos_token" in t.primary.fix


def test_hf_unable_to_create_tensor_chained_from_ragged(hf: dict) -> None:
    t = triage(real(hf, "unable_input_ids"))
    assert ids(t)[:2] == ["unable-to-create-tensor", "ragged-sequences"]
    assert t.primary.evidence["feature"] == "input_ids"
    ragged = t.matches[1]
    assert ragged.where == "chained" and ragged.evidence["dim"] == 1
    assert t.parsed.chain[0].message.startswith("expected sequence of length")


def test_hf_unable_to_create_tensor_nested_labels_and_raw_text(hf: dict) -> None:
    labels = triage(real(hf, "unable_label")).primary
    assert labels.evidence["feature"] == "label" and "lists" in labels.cause
    text = triage(real(hf, "unable_text")).primary
    assert text.evidence["feature"] == "text" and "remove_columns" in text.fix
    assert "data.raw-text-columns" in text.probes


def test_hf_missing_input_ids_both_wordings(hf: dict) -> None:
    t = triage(real(hf, "missing_input_ids"))   # 4.x: "have to specify either", 5.x: "must ..."
    assert t.primary.signature.id == "missing-input-ids"
    assert "data.batch-structure" in t.probes


def test_hf_token_labels_batch_size_mismatch(hf: dict) -> None:
    m = triage(real(hf, "token_labels")).primary
    assert m.signature.id == "batch-size-mismatch"
    assert (m.evidence["input_batch"], m.evidence["target_batch"]) == (2, 16)
    assert m.evidence["labels_per_example"] == 8 and "token-level" in m.cause


def test_hf_head_size_mismatch_numbers(hf: dict) -> None:
    m = triage(real(hf, "size_mismatch")).primary
    assert m.signature.id == "head-size-mismatch" and "ignore_mismatched_sizes=True" in m.fix
    # transformers 4.x puts the shapes in the message; 5.x in the load report logged above it
    assert m.evidence["checkpoint_num_labels"] == 2 and m.evidence["requested_num_labels"] == 3


def test_hf_sequence_too_long_warning_and_error(hf: dict) -> None:
    t = triage(real(hf, "too_long"))
    assert ids(t)[:2] == ["expanded-size-positions", "sequence-longer-than-max"]
    assert t.primary.evidence["length"] == 42 and t.primary.evidence["max_positions"] == 32
    warning = t.matches[1]
    assert (warning.evidence["length"], warning.evidence["max_length"]) == (42, 32)
    assert t.probes[0] == "data.sequence-longer-than-positions"


def test_hf_sequence_too_long_at_the_position_embeddings(hf: dict) -> None:
    m = triage(real(hf, "too_long_all_inputs")).primary
    assert m.signature.id == "tensor-size-mismatch-dim1"
    assert (m.evidence["length"], m.evidence["max_positions"]) == (42, 32)
    assert "position_embeddings" in m.evidence["code"] and "42 tokens" in m.cause


def test_generic_broadcast_error_in_user_code_stays_generic() -> None:
    import torch
    m = triage(capture(lambda: torch.zeros(2, 5) + torch.zeros(2, 3))).primary
    assert m.signature.id == "tensor-size-mismatch-dim1" and "usually" in m.cause


def test_hf_added_token_without_resize(hf: dict) -> None:
    t = triage(real(hf, "added_token"))
    assert t.primary.signature.id == "index-out-of-range-in-self"
    assert "resize_token_embeddings" in t.primary.fix
    assert t.parsed.innermost_frame.function == "embedding"


def test_hf_multi_label_with_integer_labels(hf: dict) -> None:
    m = triage(real(hf, "multi_label_long")).primary
    assert m.signature.id == "label-dtype-long-expected-float"
    assert m.evidence["output_type"] == "Long"


def test_hf_trainer_no_loss_names_the_inputs(hf: dict) -> None:
    m = triage(real(hf, "no_loss")).primary
    assert m.signature.id == "model-returned-no-loss"
    assert m.evidence["keys"] == ["logits"] and "labels" not in m.evidence["inputs"]
    assert "input_ids" in m.evidence["inputs"] and "never reached" in m.cause


def test_hf_metric_fed_logits(hf: dict) -> None:
    m = triage(real(hf, "metric_logits")).primary
    assert m.signature.id == "metric-fed-logits" and "argmax" in m.fix


# ------------------------------------------------------------------------------------------
# Real TensorFlow / Keras errors (child process, env tf)
# ------------------------------------------------------------------------------------------
@needs_tf
def test_tf_graph_label_out_of_range(tf_errors: dict) -> None:
    t = triage(real(tf_errors, "label_range_fit"))
    p = t.parsed
    assert p.exc_name == "InvalidArgumentError"
    assert p.message.startswith("Received a label value of 2")
    assert "SparseSoftmaxCrossEntropyWithLogits" in (p.graph_node or "")
    assert (p.graph_op or "").startswith("__inference_train_function")
    assert any(f.origin == "tf-graph" for f in p.frames)
    assert p.innermost_user_frame.function == "label_range_fit"
    m = t.primary
    assert m.signature.id == "tf-label-out-of-range"
    assert (m.evidence["label"], m.evidence["high"], m.evidence["model_num_labels"]) == (2, 2, 2)
    assert m.evidence["num_labels_needed_at_least"] == 3
    assert sorted(m.evidence["label_values"]) == [0, 0, 0, 1, 1, 1, 1, 2]   # fit shuffles
    assert t.probes[0] == "data.labels-out-of-range"


@needs_tf
def test_tf_eager_label_out_of_range(tf_errors: dict) -> None:
    t = triage(real(tf_errors, "label_range_eager"))
    assert t.parsed.message.startswith("Received a label value")   # {{function_node}} stripped
    assert t.parsed.device == "CPU:0"
    assert t.primary.signature.id == "tf-label-out-of-range"


@needs_tf
def test_tf_keras_no_gradients_in_user_code_block(tf_errors: dict) -> None:
    t = triage(real(tf_errors, "no_gradients"))
    p = t.parsed
    assert p.keras_user_code and p.exc_type == "ValueError"
    assert p.message.startswith("No gradients provided for any variable")
    assert p.innermost_frame.function == "filter_empty_gradients"
    assert p.innermost_frame.package == "tf_keras" and p.innermost_frame.origin == "keras"
    m = t.primary
    assert m.signature.id == "keras-no-gradients"
    assert m.probes[0] == "data.labels-in-inputs-with-keras-loss"
    assert m.evidence["first_variable"].endswith("kernel:0")


@needs_tf
def test_tf_keras3_optimizer_identifier(tf_errors: dict) -> None:
    m = triage(real(tf_errors, "keras3_optimizer")).primary
    assert m.signature.id == "keras-optimizer-identifier"
    assert m.evidence["keras3_object"] is True and "tf_keras.optimizers" in m.fix


@needs_tf
def test_tf_resource_exhausted_on_cpu(tf_errors: dict) -> None:
    m = triage(real(tf_errors, "oom_cpu")).primary
    assert m.signature.id == "out-of-memory"
    assert m.evidence["tensor_shape"] == [10**12, 10] and m.evidence["tensor_dtype"] == "float"
    assert "RAM" in m.cause


@needs_tf
def test_tf_keras3_with_transformers(tf_errors: dict) -> None:
    t = triage(real(tf_errors, "keras3_transformers"))
    assert t.parsed.relation == "context"            # raised while handling the tf_keras import
    assert t.parsed.chain[0].exc_type == "ModuleNotFoundError"
    assert t.primary.signature.id == "keras-3-installed" and "tf-keras" in t.primary.fix


# ------------------------------------------------------------------------------------------
# Pasted texts: GPU messages a CPU cannot produce, and other paste formats
# ------------------------------------------------------------------------------------------
CUDA_ASSERT_NLL = """\
../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && t < n_classes` failed.
../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.
Traceback (most recent call last):
  File "/home/ana/mnli/train.py", line 58, in <module>
    trainer.train()
  File "/home/ana/.venv/lib/python3.10/site-packages/transformers/trainer.py", line 1539, in train
    return inner_training_loop(
  File "/home/ana/.venv/lib/python3.10/site-packages/transformers/trainer.py", line 1869, in _inner_training_loop
    tr_loss_step = self.training_step(model, inputs)
  File "/home/ana/.venv/lib/python3.10/site-packages/transformers/trainer.py", line 2781, in training_step
    self.accelerator.backward(loss)
  File "/home/ana/.venv/lib/python3.10/site-packages/torch/autograd/__init__.py", line 266, in backward
    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
RuntimeError: CUDA error: device-side assert triggered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
"""

CUDA_ASSERT_INDEX = """\
[rank0]: ../aten/src/ATen/native/cuda/Indexing.cu:1289: indexSelectLargeIndex: block: [120,0,0], thread: [64,0,0] Assertion `srcIndex < srcSelectDimSize` failed.
[rank0]: Traceback (most recent call last):
[rank0]:   File "/workspace/finetune.py", line 40, in <module>
[rank0]:     outputs = model(**batch)
[rank0]:   File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl
[rank0]:     return self._call_impl(*args, **kwargs)
[rank0]: torch.AcceleratorError: CUDA error: device-side assert triggered
"""

TORCH_OOM_NEW = """\
Traceback (most recent call last):
  File "/content/train.py", line 77, in <module>
    loss.backward()
  File "/usr/local/lib/python3.10/dist-packages/torch/_tensor.py", line 522, in backward
    torch.autograd.backward(
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 14.75 GiB of which 512.06 MiB is free. Process 4121 has 6.20 GiB memory in use. Including non-PyTorch memory, this process has 8.03 GiB memory in use. Of the allocated memory 7.61 GiB is allocated by PyTorch, and 291.14 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
"""

TORCH_OOM_OLD_LAST_LINE = ("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; "
                           "11.17 GiB total capacity; 10.62 GiB already allocated; 1.81 MiB free; "
                           "10.68 GiB reserved in total by PyTorch)")

TORCH_OOM_CAPACTY = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. "
                     "GPU 0 has a total capacty of 8.00 GiB of which 0 bytes is free. Of the "
                     "allocated memory 7.44 GiB is allocated by PyTorch, and 3.16 MiB is reserved "
                     "by PyTorch but unallocated.")

TF_GPU_OOM_GRAPH = """\
Traceback (most recent call last):
  File "/content/fit.py", line 31, in <module>
    model.fit(tf_train, validation_data=tf_val, epochs=3)
  File "/usr/local/lib/python3.10/dist-packages/tf_keras/src/utils/traceback_utils.py", line 70, in error_handler
    raise e.with_traceback(filtered_tb) from None
  File "/usr/local/lib/python3.10/dist-packages/tensorflow/python/eager/execute.py", line 53, in quick_execute
    tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,
tensorflow.python.framework.errors_impl.ResourceExhaustedError: Graph execution error:

Detected at node tf_bert_for_sequence_classification/bert/encoder/layer_._11/attention/self/Softmax defined at (most recent call last):
  File "/content/fit.py", line 31, in <module>

  File "/usr/local/lib/python3.10/dist-packages/tf_keras/src/engine/training.py", line 1804, in fit

OOM when allocating tensor with shape[32,12,512,512] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc
\t [[{{node tf_bert_for_sequence_classification/bert/encoder/layer_._11/attention/self/Softmax}}]]
Hint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom to RunOptions for current allocation info. This isn't available when running in Eager mode.
 [Op:__inference_train_function_27164]
"""

TF_OLD_GRAPH_NODE_FORMAT = """\
InvalidArgumentError: Graph execution error:

Detected at node 'sparse_categorical_crossentropy/SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits' defined at (most recent call last):
    File "C:\\Users\\minh\\anaconda3\\lib\\runpy.py", line 196, in _run_module_as_main
      return _run_code(code, main_globals, None,
    File "C:\\Users\\minh\\nli\\train_nli.py", line 44, in <module>
      model.fit(tf_train_dataset, epochs=3)
    File "C:\\Users\\minh\\anaconda3\\lib\\site-packages\\keras\\backend.py", line 5238, in sparse_categorical_crossentropy
      res = tf.nn.sparse_softmax_cross_entropy_with_logits(
Node: 'sparse_categorical_crossentropy/SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits'
Received a label value of 2 which is outside the valid range of [0, 2).  Label values: 1 2 0 0 2 1 1 2
\t [[{{node sparse_categorical_crossentropy/SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits}}]] [Op:__inference_train_function_10286]
"""

COLAB_IPYTHON8 = """\
---------------------------------------------------------------------------
IndexError                                Traceback (most recent call last)
Cell In[7], line 3
      1 logits = model(**batch).logits
      2 labels = batch["labels"]
----> 3 loss = torch.nn.functional.cross_entropy(logits, labels)

File /usr/local/lib/python3.10/dist-packages/torch/nn/functional.py:3059, in cross_entropy(input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing)
   3057 if size_average is not None or reduce is not None:
   3058     reduction = _Reduction.legacy_get_string(size_average, reduce)
-> 3059 return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)

IndexError: Target 3 is out of bounds.
"""

IPYTHON7_KERAS_OLD = """\
---------------------------------------------------------------------------
ValueError                                Traceback (most recent call last)
<ipython-input-12-4b1f3c2d9e0a> in <module>()
      1 model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
----> 2 model.fit(tf_train_dataset, epochs=3)

/usr/local/lib/python3.7/dist-packages/tensorflow/python/keras/engine/training.py in _method_wrapper(self, *args, **kwargs)
    106   def _method_wrapper(self, *args, **kwargs):
    107     if not self._in_multi_worker_mode():  # pylint: disable=protected-access
--> 108       return method(self, *args, **kwargs)
    109

10 frames
/usr/local/lib/python3.7/dist-packages/tensorflow/python/framework/func_graph.py in wrapper(*args, **kwargs)
    975           except Exception as e:  # pylint:disable=broad-except
    976             if hasattr(e, "ag_error_metadata"):
--> 977               raise e.ag_error_metadata.to_exception(e)
    978             else:
    979               raise

ValueError: in user code:

    /usr/local/lib/python3.7/dist-packages/tensorflow/python/keras/engine/training.py:805 train_function  *
        return step_function(self, iterator)
    /usr/local/lib/python3.7/dist-packages/tensorflow/python/keras/optimizer_v2/optimizer_v2.py:598 apply_gradients
        grads_and_vars = optimizer_utils.filter_empty_gradients(grads_and_vars)
    /usr/local/lib/python3.7/dist-packages/tensorflow/python/keras/optimizer_v2/utils.py:79 filter_empty_gradients
        ([v.name for _, v in grads_and_vars],))

    ValueError: No gradients provided for any variable: ['tf_distil_bert_for_sequence_classification/distilbert/embeddings/word_embeddings/weight:0', 'tf_distil_bert_for_sequence_classification/classifier/bias:0'].
"""

KERAS3_LAST_LINE = ("ValueError: Your currently installed version of Keras is Keras 3, but this is "
                    "not yet supported in Transformers. Please install the backwards-compatible "
                    "tf-keras package with `pip install tf-keras`.")


def test_cuda_assert_from_the_loss_kernel() -> None:
    t = triage(CUDA_ASSERT_NLL)
    m = t.primary
    assert m.signature.id == "cuda-device-side-assert" and m.where == "exception"
    assert m.evidence["kernel"] == "nll_loss_forward_reduce_cuda_kernel_2d"
    assert m.evidence["kernel_line"] == 250 and m.evidence["assertions_printed"] == 2
    assert m.probes[0] == "data.labels-out-of-range" and "num_labels" in m.cause
    assert t.parsed.innermost_user_frame.where() == "/home/ana/mnli/train.py:58 in <module>"
    assert "cpu()" in m.fix


def test_cuda_assert_from_an_embedding_with_rank_prefixes() -> None:
    t = triage(CUDA_ASSERT_INDEX)
    assert t.parsed.exc_type == "torch.AcceleratorError"
    assert t.parsed.innermost_user_frame.file == "/workspace/finetune.py"
    m = t.primary
    assert m.signature.id == "cuda-device-side-assert"
    assert m.evidence["assertion"] == "srcIndex < srcSelectDimSize"
    assert m.probes[0] == "data.token-ids-out-of-vocab"


def test_torch_oom_new_format_numbers_and_other_process() -> None:
    m = triage(TORCH_OOM_NEW).primary
    assert m.signature.id == "out-of-memory"
    ev = m.evidence
    assert ev["tried_to_allocate"] == "1.50 GiB" and ev["tried_to_allocate_mib"] == 1536.0
    assert ev["total_capacity"] == "14.75 GiB" and ev["free"] == "512.06 MiB"
    assert ev["other_processes"] == [{"pid": 4121, "memory": "6.20 GiB"}]
    assert m.probes[0] == "memory.gpu-held-by-other-process" and "nvidia-smi" in m.cause


def test_torch_oom_old_format_last_line_only() -> None:
    t = triage(TORCH_OOM_OLD_LAST_LINE)
    assert not t.parsed.has_traceback and t.parsed.exc_type == "RuntimeError"
    ev = t.primary.evidence
    assert (ev["tried_to_allocate"], ev["total_capacity"], ev["free"]) == (
        "20.00 MiB", "11.17 GiB", "1.81 MiB")
    assert ev["allocated_by_pytorch"] == "10.62 GiB"


def test_torch_oom_with_the_capacty_typo_of_older_torch() -> None:
    ev = triage(TORCH_OOM_CAPACTY).primary.evidence
    assert ev["total_capacity"] == "8.00 GiB" and ev["free"] == "0 bytes"


def test_tf_gpu_oom_in_a_graph_error() -> None:
    t = triage(TF_GPU_OOM_GRAPH)
    p = t.parsed
    assert p.exc_name == "ResourceExhaustedError" and p.message.startswith("OOM when allocating")
    assert p.graph_node.endswith("attention/self/Softmax") and p.device == "GPU:0"
    m = t.primary
    assert m.signature.id == "out-of-memory"
    assert m.evidence["tensor_shape"] == [32, 12, 512, 512]
    assert m.evidence["tensor_mib"] == 384.0            # 32*12*512*512 floats
    assert "memory.tf-grabs-all-gpu-memory" in m.probes


def test_tf_graph_error_old_format_windows_paths() -> None:
    t = triage(TF_OLD_GRAPH_NODE_FORMAT)
    p = t.parsed
    assert p.exc_type == "InvalidArgumentError" and p.message.startswith("Received a label value")
    assert [f.kind for f in p.frames] == ["other", "user", "library"]
    assert p.innermost_user_frame.where().endswith("train_nli.py:44 in <module>")
    assert p.innermost_user_frame.code == "model.fit(tf_train_dataset, epochs=3)"
    m = t.primary
    assert m.signature.id == "tf-label-out-of-range" and m.evidence["label_values"][:3] == [1, 2, 0]


def test_colab_ipython8_traceback() -> None:
    t = triage(COLAB_IPYTHON8)
    p = t.parsed
    assert p.exc_type == "IndexError"
    assert [(f.file, f.line, f.kind) for f in p.frames] == [
        ("Cell In[7]", 3, "user"),
        ("/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py", 3059, "library")]
    assert p.frames[0].code.startswith("loss = torch.nn.functional.cross_entropy")
    assert t.primary.signature.id == "torch-target-out-of-bounds"
    assert t.primary.evidence["target"] == 3


def test_ipython7_with_old_keras_user_code_block() -> None:
    t = triage(IPYTHON7_KERAS_OLD)
    p = t.parsed
    assert p.keras_user_code and p.message.startswith("No gradients provided")
    assert p.frames[0].file.startswith("<ipython-input-12") and p.frames[0].line == 2
    assert p.innermost_frame.function == "filter_empty_gradients"
    assert p.innermost_frame.line == 79 and p.innermost_frame.package == "tensorflow"
    assert t.primary.signature.id == "keras-no-gradients"
    assert t.primary.evidence["first_variable"].startswith("tf_distil_bert")


def test_only_the_last_line() -> None:
    t = triage(KERAS3_LAST_LINE)
    assert t.parsed.exc_type == "ValueError" and not t.parsed.frames
    assert t.primary.signature.id == "keras-3-installed"
    m = triage("Received a label value of 7 which is outside the valid range of [0, 5).").primary
    assert m.evidence["num_labels_needed_at_least"] == 8 and m.evidence["model_num_labels"] == 5


def test_paste_noise_ansi_crlf_indent_quote() -> None:
    import torch
    import torch.nn.functional as F
    text = capture(lambda: F.cross_entropy(torch.zeros(2, 2), torch.tensor([0, 4])))
    clean = triage(text)
    coloured = text.replace("IndexError", "\x1b[1;31mIndexError\x1b[0m").replace(
        "File ", "\x1b[35mFile \x1b[0m")
    variants = [coloured, text.replace("\n", "\r\n"), textwrap.indent(text, "    "),
                textwrap.indent(text, "> "), "```pytb\n" + text + "```\n",
                textwrap.indent(text, "\t")]
    for v in variants:
        t = triage(v)
        assert t.primary.signature.id == "torch-target-out-of-bounds", repr(v[:80])
        assert t.primary.evidence["target"] == 4
        assert [f.where() for f in t.parsed.frames] == [f.where() for f in clean.parsed.frames]


def test_progress_bar_between_frames_and_exception() -> None:
    text = ('Traceback (most recent call last):\n  File "/w/train.py", line 3, in <module>\n'
            "    trainer.train()\n  0%|          | 0/10 [00:00<?, ?it/s]\n"
            "Epoch 1/3\nValueError: Expected input batch_size (8) to match target batch_size (1024).")
    t = triage(text)
    assert t.parsed.exc_type == "ValueError"
    assert t.primary.evidence["labels_per_example"] == 128


def test_nan_loss_names_the_learning_rate_check() -> None:
    t = triage("Epoch 1/3\n 63/1227 [>.....] - ETA: 5:42 - loss: nan - accuracy: 0.3351")
    assert t.primary.signature.id == "nan-loss"
    assert {"model.nan-loss-samples", "hyperparameters.learning-rate-too-high"} <= set(t.probes)


# ------------------------------------------------------------------------------------------
# No false positives
# ------------------------------------------------------------------------------------------
def test_unrelated_user_errors_match_nothing(tmp_path: Path) -> None:
    import torch
    missing = tmp_path / "data" / "train.csv"

    def key_error() -> None:
        batch = {"input_ids": [1, 2], "attention_mask": [1, 1]}
        print(batch["label"])

    def attr_error() -> None:
        outputs = None
        outputs.logits  # noqa: B018

    texts = [capture(lambda: open(missing)), capture(key_error), capture(attr_error),
             capture(lambda: 1 / 0), capture(lambda: json.loads("{")),
             capture(lambda: torch.zeros(2, 3) @ torch.zeros(4, 5))]
    for text in texts:
        t = triage(text)
        assert t.matches == [], (t.parsed.last_line, ids(t))
        assert t.verdict == "unknown-error", t.parsed.last_line
        findings = probe_triage(Case(model="m", traceback=text), None)
        assert [f.id for f in findings] == ["triage.unknown-error"]
        assert findings[0].evidence["your_code"].startswith(__file__)


def test_signature_words_inside_source_lines_do_not_match() -> None:
    text = ('Traceback (most recent call last):\n  File "/w/check.py", line 9, in <module>\n'
            '    assert "CUDA out of memory" not in log, "Target 3 is out of bounds"\n'
            "AssertionError: log check failed")
    assert triage(text).matches == []


def test_benign_warning_is_not_the_verdict() -> None:
    text = ("Some weights of DistilBertForSequenceClassification were not initialized from the "
            "model checkpoint at distilbert-base-uncased and are newly initialized: "
            "['classifier.bias', 'classifier.weight']\n"
            'Traceback (most recent call last):\n  File "/w/t.py", line 2, in <module>\n'
            "    run()\nZeroDivisionError: division by zero")
    t = triage(text)
    assert ids(t) == ["newly-initialized-head"] and t.primary is None
    assert t.verdict == "unknown-error"


# ------------------------------------------------------------------------------------------
# Library frames and the library-bug verdict
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("path,kind,package", [
    ("/usr/local/lib/python3.10/dist-packages/transformers/trainer.py", "library", "transformers"),
    ("/home/u/.venv/lib/python3.11/site-packages/torch/nn/functional.py", "library", "torch"),
    ("C:\\Users\\u\\anaconda3\\Lib\\site-packages\\datasets\\arrow_dataset.py", "library",
     "datasets"),
    ("/home/u/src/transformers/src/transformers/models/bert/modeling_bert.py", "library",
     "transformers"),
    ("/home/u/pytorch/torch/nn/modules/module.py", "library", "torch"),
    ("/home/u/tf/tensorflow/python/eager/execute.py", "library", "tensorflow"),
    ("/home/u/tf-keras/tf_keras/src/engine/training.py", "library", "tf_keras"),
    ("/home/u/keras/keras/src/trainers/trainer.py", "library", "keras"),
    ("/tmp/__autograph_generated_filex1y2.py", "library", "tensorflow"),
    ("/home/u/project/train.py", "user", None),
    ("/home/u/datasets/prepare.py", "user", None),         # a user folder named like a library
    ("/home/u/torch_experiments/train.py", "user", None),
    ("transformers/modeling_tf_bert.py", "library", "transformers"),   # cut, or printed relative
    ("datasets/coco.py", "user", None),                    # a project's own folder of loaders
    ("src/peft_utils/train.py", "user", None),
    ("/tmp/ipykernel_4242/1234567.py", "user", None),
    ("Cell In[3]", "user", None),
    ("<ipython-input-5-abc>", "user", None),
    ("<frozen runpy>", "other", None),
    ("/usr/lib/python3.10/runpy.py", "other", None),
    ("C:\\Users\\u\\anaconda3\\lib\\asyncio\\base_events.py", "other", None),
    ("importlib\\__init__.py", "other", None),
    ("", "other", None),
])
def test_classify_path(path: str, kind: str, package: str | None) -> None:
    assert classify_path(path) == (kind, package)


def test_a_user_error_raised_inside_library_code_is_not_a_library_bug() -> None:
    import torch
    text = capture(lambda: torch.nn.Linear(3, 2)(torch.zeros(2, 4)))
    t = triage(text)
    assert t.parsed.library_frames_innermost and t.parsed.innermost_library_package == "torch"
    assert t.cause_id == "layer-input-shape-mismatch" and t.bug is None
    # library frames innermost and nothing else: unknown, not a bug (no positive evidence)
    text = capture(lambda: torch.nn.Sequential()[5])     # IndexError inside torch.nn
    t = triage(text)
    assert t.parsed.library_frames_innermost and t.matches == []
    assert t.verdict == "unknown-error"
    f, = probe_triage(Case(model="m", traceback=text), None)
    assert f.id == "triage.unknown-error"


def test_library_code_misusing_a_builtin_on_plain_values_is_a_possible_library_bug() -> None:
    frames = (f"Traceback (most recent call last):\n  File \"prep.py\", line 4, in <module>\n"
              f"    parts = dataset.train_test_split(test_size=0.2)\n  File \"{SITE}/datasets/"
              "arrow_dataset.py\", line 1034, in train_test_split\n    train_kwargs = "
              "cache_kwargs.deepcopy()\n")
    t = triage(frames + "AttributeError: 'dict' object has no attribute 'deepcopy'")
    assert t.cause_id == "library-bug" and t.bug.package == "datasets"
    assert "plain values" in t.bug.reasons[0]
    f, = probe_triage(Case(model="m", traceback=frames + "KeyError: 'train'"), None)
    assert f.id == "triage.possible-library-bug" and "python -m wizard run train.py" in f.fix
    # the library validating the user's value (ValueError) is the user's error
    assert triage(frames + "ValueError: test_size=0.2 should be ...").verdict == "unknown-error"
    # a call with the user's own objects: no evidence the values are valid
    own = frames.replace("test_size=0.2", "my_split")
    assert triage(own + "KeyError: 'train'").verdict == "unknown-error"


def test_stdlib_frames_do_not_make_a_library_bug() -> None:
    t = triage(capture(lambda: json.loads("{")))   # innermost frames: json/decoder.py
    assert t.parsed.innermost_frame.kind == "other"
    assert not t.parsed.library_frames_innermost and t.verdict == "unknown-error"


# ------------------------------------------------------------------------------------------
# probe_triage, to_dict and the catalogue
# ------------------------------------------------------------------------------------------
def test_probe_triage_known_error_finding() -> None:
    f, = probe_triage(Case(model="m", traceback=COLAB_IPYTHON8), None)
    assert isinstance(f, Finding) and f.id == "triage.known-error" and f.status == "info"
    assert f.evidence["signature"] == "torch-target-out-of-bounds"
    assert f.evidence["numbers"]["target"] == 3
    assert f.evidence["confirm_with"] == ["data.labels-out-of-range"]
    assert f.evidence["your_code"].startswith("Cell In[7]:3")
    assert "num_labels" in f.fix
    json.dumps(f.to_dict())


def test_probe_triage_without_a_traceback() -> None:
    assert probe_triage(Case(model="m"), None) == []
    assert probe_triage(Case(model="m", traceback="  \n\t"), None) == []


def test_to_dict_is_json() -> None:
    d = triage(TF_GPU_OOM_GRAPH).to_dict()
    json.dumps(d)
    assert d["verdict"] == "known-error" and d["matches"][0]["id"] == "out-of-memory"
    assert d["parsed"]["library_frames_innermost"] is True
    assert d["parsed"]["innermost_user_frame"]["file"] == "/content/fit.py"
    assert d["likely_causes"][0]["confirm_with"]


def test_signature_catalogue_is_well_formed() -> None:
    assert len({s.id for s in SIGNATURES}) == len(SIGNATURES)
    for s in SIGNATURES:
        assert isinstance(s, Signature) and s.regex().pattern
        assert s.cause and s.explanation, s.id
        assert s.benign or (s.fix and s.probes), s.id
        for p in s.probes:
            assert p.split(".", 1)[0] in ("data", "model", "hyperparameters", "memory",
                                          "environment", "training", "curves", "script"), p
    for id_ in ("triage.known-error", "triage.unknown-error", "triage.possible-library-bug"):
        assert CHECKS[id_].category == "triage"
    # ids the signatures name that other checks are expected to provide
    assert "data.labels-out-of-range" not in unknown_probe_ids()
    assert "data.no-pad-token" in unknown_probe_ids() or "data.no-pad-token" in CHECKS


# ------------------------------------------------------------------------------------------
# The parser never raises
# ------------------------------------------------------------------------------------------
SAMPLES = [CUDA_ASSERT_NLL, CUDA_ASSERT_INDEX, TORCH_OOM_NEW, TF_GPU_OOM_GRAPH,
           TF_OLD_GRAPH_NODE_FORMAT, COLAB_IPYTHON8, IPYTHON7_KERAS_OLD, KERAS3_LAST_LINE]
TRICKY = ["Traceback (most recent call last):", "During handling of the above exception, "
          "another exception occurred:", "The above exception was the direct cause of the "
          "following exception:", "ValueError: in user code:", "    ValueError: x",
          "Detected at node 'n' defined at (most recent call last):", "Node: 'n'",
          '  File "a.py", line 99999999999999999999999999, in f', "Cell In[", "Cell In[2], line ",
          "----> 99999999999999999999999 x", "-> ", "File x:1, in ", "x.py in f(", "\x1b[31m",
          "Target 99999999999999999999999999999 is out of bounds.",
          "Received a label value of 9999999999999999999999 which is outside the valid range of "
          "[0, 99999999999999999999999).  Label values: 1 2 99999999999999999999999 -",
          "OOM when allocating tensor with shape[99999999999999999999,0,] and type half",
          "Expected input batch_size (0) to match target batch_size (0).",
          "size mismatch for classifier.weight: copying a param with shape torch.Size([]) from "
          "checkpoint, the shape in current model is torch.Size([3, ]).",
          "Tried to allocate 1e999 GiB", "Process 1 has 9.9.9 GiB memory in use", "", " ", "\t",
          "[rank0]: ", "```", "> ", "\r", "\x00", "\ufeff", "\u202e"]


def _assert_sound(text: str) -> None:
    p = parse_traceback(text)
    assert isinstance(p, ParsedError) and p.parse_error is None, p.parse_error
    t = triage(text)
    assert t.error is None, t.error
    json.dumps(t.to_dict())
    for f in probe_triage(Case(model="m", traceback=text), None):
        assert f.id in CHECKS


@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=3000))
def test_never_raises_on_random_text(text: str) -> None:
    _assert_sound(text)


@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SAMPLES), st.integers(0, 5000), st.integers(0, 5000), st.text(max_size=40))
def test_never_raises_on_truncated_and_spliced_tracebacks(sample: str, a: int, b: int,
                                                          junk: str) -> None:
    lo, hi = sorted((a % (len(sample) + 1), b % (len(sample) + 1)))
    _assert_sound(sample[lo:hi])
    _assert_sound(sample[:lo] + junk + sample[hi:])


@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(TRICKY),
                          st.sampled_from([ln for s in SAMPLES for ln in s.split("\n")]),
                          st.text(max_size=30)), max_size=40),
       st.sampled_from(["\n", "\r\n", "\r"]))
def test_never_raises_on_line_soup(lines: list[str], sep: str) -> None:
    _assert_sound(sep.join(lines))


@functools.lru_cache(maxsize=1)
def _real_torch_tracebacks() -> tuple[str, ...]:
    import torch
    import torch.nn.functional as F

    def chained() -> None:
        try:
            torch.tensor([[1, 2, 3], [1]])
        except ValueError as exc:
            raise RuntimeError("collate failed") from exc
    return (capture(lambda: F.cross_entropy(torch.zeros(4, 2), torch.tensor([0, 1, 2, 1]))),
            capture(lambda: torch.nn.Embedding(10, 4)(torch.tensor([[1, 12]]))), capture(chained))


@settings(max_examples=120, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_never_raises_on_truncated_real_tracebacks(hf: dict, data: st.DataObject) -> None:
    samples = list(_real_torch_tracebacks()) + [v for v in hf.values() if v]
    sample = data.draw(st.sampled_from(samples))
    lo = data.draw(st.integers(0, len(sample)))
    hi = data.draw(st.integers(lo, len(sample)))
    _assert_sound(sample[lo:hi])
    _assert_sound(sample[:lo] + data.draw(st.text(max_size=20)) + sample[hi:])


def test_never_raises_on_odd_inputs() -> None:
    for odd in (None, b"\xff\xfeIndexError: Target 1 is out of bounds.", 42, "x" * 2_000_001,
                "Traceback (most recent call last):\n" * 5000):
        p = parse_traceback(odd)  # type: ignore[arg-type]
        assert p.parse_error is None
        assert triage(odd).error is None  # type: ignore[arg-type]
    assert triage(b"IndexError: Target 1 is out of bounds.").primary.evidence["target"] == 1


# ------------------------------------------------------------------------------------------
# The environment family, more signatures and the library-bug verdict (pastes written here)
# ------------------------------------------------------------------------------------------
SITE = "/home/ana/.venv/lib/python3.11/site-packages"
ENV_PASTES = {
    "env-git-lfs-pointer": ("env-setup-step-skipped",
                            "loading weights file ./my-bert/pytorch_model.bin\n"
                            "UnpicklingError: invalid load key, 'v'."),
    "env-restart-runtime": ("env-setup-step-skipped",
                            "WARNING: The following packages were previously imported in this "
                            "runtime: [numpy]\nYou must restart the runtime in order to use newly "
                            "installed versions."),
    "env-nltk-resource": ("env-setup-step-skipped",
                          "LookupError: \n  Resource punkt not found.\n  Please use the NLTK "
                          "Downloader to obtain the resource:"),
    "env-spacy-model": ("env-setup-step-skipped",
                        "OSError: [E050] Can't find model 'en_core_web_sm'. It doesn't seem to be "
                        "a Python package or a valid path to a data directory."),
    "env-requires-version": ("env-version-too-old",
                             "ImportError: Using the `Trainer` with `PyTorch` requires "
                             "`accelerate>=0.26.0`: Please run `pip install transformers[torch]` "
                             "or `pip install 'accelerate>=0.26.0'`"),
    "env-binary": ("env-binary-incompatible",
                   "  File \"train.py\", line 1, in <module>\n    import pandas\n"
                   "ValueError: numpy.dtype size changed, may indicate binary incompatibility. "
                   "Expected 96 from C header, got 88 from PyObject"),
    "env-bitsandbytes-cpu": ("env-binary-incompatible",
                             "/opt/conda/lib/python3.10/site-packages/bitsandbytes/cextension.py:"
                             "34: UserWarning: The installed version of bitsandbytes was compiled "
                             "without GPU support. 8-bit optimizers are unavailable."),
    "env-dataset-scripts": ("env-version-too-new",
                            "RuntimeError: Dataset scripts are no longer supported, but found "
                            "my_corpus.py"),
    "env-model-output-tuple": ("env-version-too-new",
                               "TypeError: linear(): argument 'input' (position 1) must be "
                               "Tensor, not str"),
    "env-unknown-architecture": ("env-version-too-old",
                                 "ValueError: The checkpoint you are trying to load has model "
                                 "type `qwen3` but Transformers does not recognize this "
                                 "architecture."),
    "env-tokenizer-class": ("env-version-too-old",
                            "ValueError: Tokenizer class GemmaTokenizer does not exist or is not "
                            "currently imported."),
    "env-tokenizers-format": ("env-version-too-old",
                              "Exception: data did not match any variant of untagged enum "
                              "ModelWrapper at line 250373 column 3"),
    "env-keras-no-loss-tf2": ("env-version-too-old",
                              "ValueError: The model cannot be compiled because it has no loss "
                              "to optimize."),
    "env-keras3-kwargs": ("env-version-too-new",
                          "ValueError: Unrecognized keyword arguments passed to LSTM: "
                          "{'time_major': False}"),
    "env-no-module": ("env-missing-package",
                      "Traceback (most recent call last):\n  File \"prep.py\", line 3, in "
                      "<module>\n    from sklearn.model_selection import train_test_split\n"
                      "ModuleNotFoundError: No module named 'sklearn'"),
    "env-cannot-import": ("env-version-too-new",
                          "Traceback (most recent call last):\n  File \"app.py\", line 2, in "
                          "<module>\n    from datasets import load_metric\nImportError: cannot "
                          f"import name 'load_metric' from 'datasets' ({SITE}/datasets/"
                          "__init__.py)"),
    "env-module-attribute": ("env-version-too-new",
                             f"  File \"{SITE}/pycocotools/cocoeval.py\", line 378, in "
                             "accumulate\n    tps = np.logical_and(dtm, np.logical_not(dtIg))"
                             ".astype(np.float)\nAttributeError: module 'numpy' has no attribute"
                             " 'float'."),
    "env-unexpected-kwarg": ("env-version-too-old",
                             "Traceback (most recent call last):\n  File \"sft.py\", line 40, in "
                             "<module>\n    trainer = DPOTrainer(model, ref, args=args, "
                             "loss_type='ipo')\nTypeError: DPOTrainer.__init__() got an "
                             "unexpected keyword argument 'loss_type'"),
    "env-name-not-defined": ("env-version-too-old",
                             f"  File \"{SITE}/transformers/training_args.py\", line 1772, in "
                             "_setup_devices\n    self.distributed_state = PartialState(\n"
                             "NameError: name 'PartialState' is not defined"),
    "env-requires-package": ("env-missing-package",
                             "ImportError: \nAutoModelForCausalLM requires the protobuf library "
                             "but it was not found in your environment."),
    "env-sentencepiece-none": ("env-missing-package",
                               "tok = T5Tokenizer.from_pretrained('t5-small')\n"
                               "ids = tok.encode('hello')\nAttributeError: 'NoneType' object has "
                               "no attribute 'encode'"),
}
# the same words where the cause is not the installation: none of these may name that rule
ENV_NEGATIVES = {
    "env-git-lfs-pointer": "UnpicklingError: invalid load key, '\\x00'.",
    "env-restart-runtime": "Note: the trainer will restart from the last checkpoint.",
    "env-nltk-resource": "Resource punkt was found and loaded.",
    "env-spacy-model": "Loaded model 'en_core_web_sm' from the cache.",
    "env-requires-version": "Requirement already satisfied: accelerate>=0.26.0 in ./venv",
    "env-binary": "The dtype of the embeddings changed from float32 to bfloat16.",
    "env-bitsandbytes-cpu": "bitsandbytes: loaded the CUDA 12.1 library (GPU support on).",
    "env-dataset-scripts": "Dataset script found, building the dataset from my_corpus.py",
    "env-model-output-tuple": "TypeError: can only concatenate str (not \"int\") to str",
    "env-unknown-architecture": "Instantiating a model of type bert from a config of type bert.",
    "env-tokenizer-class": "Tokenizer class BertTokenizerFast loaded from the cache.",
    "env-tokenizers-format": "Exception: data looks fine",
    "env-keras-no-loss-tf2": "model.compile(optimizer='adam', loss='mse')",
    "env-keras3-kwargs": "ValueError: Unrecognized data type: x=<generator object>",
    "env-no-module": "Loaded module named encoder.layer.0 from the checkpoint.",
    "env-cannot-import": "We cannot import the names of the labels from the CSV header.",
    "env-module-attribute": ("Traceback (most recent call last):\n  File \"t.py\", line 4, in "
                             "<module>\n    helpers.clean(x)\nAttributeError: module 'helpers' "
                             "has no attribute 'clean'"),
    "env-unexpected-kwarg": ("Traceback (most recent call last):\n  File \"t.py\", line 9, in "
                             "<module>\n    make_batches(rows, size=8)\nTypeError: make_batches() "
                             "got an unexpected keyword argument 'size'"),
    "env-name-not-defined": ("Traceback (most recent call last):\n  File \"t.py\", line 3, in "
                             "<module>\n    print(Total)\nNameError: name 'Total' is not defined"),
    "env-requires-package": "Please install the latest version of the course notebook.",
    "env-sentencepiece-none": ("tok = AutoTokenizer.from_pretrained(path)\nAttributeError: "
                               "'NoneType' object has no attribute 'encode'"),
}


@pytest.mark.parametrize("rule", sorted(ENV_PASTES))
def test_environment_rule_names_its_cause_and_a_command(rule: str) -> None:
    cause_id, paste = ENV_PASTES[rule]
    t = triage(paste)
    assert t.primary is not None and t.primary.signature.id == rule, (rule, ids(t))
    assert t.cause_id == cause_id and t.primary.fix.strip()
    f, = probe_triage(Case(model="m", traceback=paste), None)
    assert f.id == "triage.known-error" and f.evidence["cause_id"] == cause_id


@pytest.mark.parametrize("rule", sorted(ENV_NEGATIVES))
def test_environment_rule_does_not_fire_on_its_words_alone(rule: str) -> None:
    assert rule not in ids(triage(ENV_NEGATIVES[rule])), rule


def test_environment_commands_and_versions() -> None:
    t = triage(ENV_PASTES["env-requires-version"][1])
    assert 'pip install -U "accelerate>=0.26.0"' in t.primary.fix
    # the paste shows an installed version that satisfies the requirement: a restart is missing
    t = triage("Using the `Trainer` with `PyTorch` requires `accelerate>=0.20.1`, but I already "
               "have accelerate Version: 0.25.0")
    assert t.cause_id == "env-setup-step-skipped" and "restart" in t.primary.fix
    t = triage(ENV_PASTES["env-cannot-import"][1])
    assert 'pip install "datasets<3.0.0"' in t.primary.fix and "evaluate" in t.primary.fix
    t = triage(ENV_PASTES["env-no-module"][1])
    assert "pip install scikit-learn" in t.primary.fix
    # a package installed here is named with its version
    t = triage("ModuleNotFoundError: No module named 'yaml'")    # installed here, not there
    assert t.primary.evidence["installed"] == {"PyYAML": importlib.metadata.version("PyYAML")}
    assert "Installed here: PyYAML" in t.primary.cause
    assert t.primary.fix.startswith("python -m pip install PyYAML")


def test_environment_direction_follows_the_stated_version() -> None:
    base = ("TypeError: __init__() got an unexpected keyword argument 'evaluation_strategy'\n"
            "training_args = TrainingArguments(output_dir='out', evaluation_strategy='steps')")
    assert triage(base + "\n- `transformers` version: 3.1.0").cause_id == "env-version-too-old"
    # 3.3.1 has the argument (from 3.2 on): not a release too old
    assert triage(base + "\n- `transformers` version: 3.3.1").cause_id != "env-version-too-old"
    # the field left TrainingArguments with 4.51 (the released wheels say so)
    assert triage(base + "\n- `transformers` version: 4.52.0").cause_id == "env-version-too-new"
    tf = ("ImportError: cannot import name 'TFBertModel' from 'transformers' (unknown location)")
    assert triage(tf).cause_id == "env-missing-package"
    assert "tensorflow" in triage(tf).primary.fix
    assert triage(tf + "\nI have tf 2.0 installed").cause_id == "env-version-too-old"
    assert triage(tf + "\n- `transformers` version: 5.0.0").cause_id == "env-version-too-new"
    torch_missing = "ImportError: cannot import name 'AdamW' from 'transformers' (unknown location)"
    assert "torch" in triage(torch_missing).primary.fix


def test_environment_library_to_library_skew() -> None:
    """A library calling another with an argument it lacks: the callee is too old."""
    paste = (f"Traceback (most recent call last):\n  File \"serve.py\", line 3, in <module>\n"
             f"    main()\n  File \"{SITE}/trl/scripts/vllm_serve.py\", line 238, in main\n"
             f"    llm = LLM(\n  File \"{SITE}/vllm/entrypoints/llm.py\", line 212, in __init__\n"
             "    engine_args = EngineArgs(\nTypeError: EngineArgs.__init__() got an unexpected "
             "keyword argument 'worker_extension_cls'")
    t = triage(paste)
    assert t.cause_id == "env-version-too-old" and 'pip install "trl[vllm]"' in t.primary.fix
    assert t.primary.evidence["package"] == "vllm"
    # a library calling the user's override with a new argument: the library is too new
    t = triage("TypeError: MyTrainer.compute_loss() got an unexpected keyword argument "
               "'num_items_in_batch'")
    assert t.cause_id == "env-version-too-new" and "num_items_in_batch=None" in t.primary.fix
    # a library module importing another library's removed internals: that library's bug
    t = triage(f"  File \"{SITE}/transformers/modeling_tf_utils.py\", line 39, in <module>\n"
               "    from keras.saving.hdf5_format import save_attributes_to_hdf5_group\n"
               "ModuleNotFoundError: No module named 'keras.saving.hdf5_format'")
    assert t.cause_id == "library-bug" and t.bug.package == "transformers"
    t = triage("ModuleNotFoundError: No module named 'tokenizers.tokenizers'")
    assert t.cause_id == "env-binary-incompatible"


HF_PASTES = {
    "datasetdict-instead-of-dataset": "AttributeError: 'DatasetDict' object has no attribute "
                                      "'select_columns'",
    "arrow-mixed-column-types": "pyarrow.lib.ArrowInvalid: Could not convert 'n/a' with type str:"
                                " tried to convert to double",
    "invalid-jsonl-format": "pyarrow.lib.ArrowInvalid: JSON parse error: Missing a comma or '}' "
                            "after an object member. in row 12",
    "dataset-script-not-streamable": "FileNotFoundError: https://huggingface.co/datasets/org/"
                                     "corpus/resolve/main/data.zip/train.jsonl",
    "hub-invalid-token": "requests.exceptions.HTTPError: Invalid user token. If you didn't pass a "
                         "user token, make sure you are properly logged in.",
    "hub-gated-repo": "OSError: You are trying to access a gated repo.\nMake sure to have access "
                      "to it at https://huggingface.co/org/model.\n403 Client Error.",
    "hub-upload-too-large": "huggingface_hub.errors.HfHubHTTPError: 413 Client Error: Payload Too "
                            "Large for url: https://huggingface.co/api/datasets/org/x/commit/main",
    "gpu-held-by-other-process": "tensorflow.python.framework.errors_impl.InternalError: Blas "
                                 "GEMM launch failed : a.shape=(32, 768), b.shape=(768, 2)",
    "cudnn-failed-to-initialize": "UnknownError: Failed to get convolution algorithm. This is "
                                  "probably because cuDNN failed to initialize",
    "string-labels-not-encoded": "ValueError: too many dimensions 'str'",
    "tokenizer-unk-token-not-set": "Exception: WordPiece error: Missing [UNK] token from the "
                                   "vocabulary",
    "tokenizer-stride-too-large": "thread '<unnamed>' panicked at 'assertion failed: stride < "
                                  "max_len', tokenizers-lib/src/tokenizer/encoding.rs:311:9",
    "rust-compiler-not-found": "running build_rust\nerror: can't find Rust compiler\n"
                               "ERROR: Failed building wheel for tokenizers",
    "no-wheel-for-python-version": "ERROR: Could not find a version that satisfies the "
                                   "requirement torch==1.8.1 (from versions: 2.2.0, 2.3.0)\n"
                                   "ERROR: No matching distribution found for torch==1.8.1",
    "torch-cpu-only-build": "    model.to('cuda')\nAssertionError: Torch not compiled with CUDA "
                            "enabled",
    "pytorch-model-in-keras": "AttributeError: 'KerasTensor' object has no attribute 'size'",
    "model-class-without-head": "model = AutoModel.from_pretrained('t5-small')\n"
                                "ValueError: You have to specify either decoder_input_ids or "
                                "decoder_inputs_embeds",
    "fp16-weights-with-amp": "ValueError: Attempting to unscale FP16 gradients.",
    "gradient-checkpointing-inputs-no-grad": "RuntimeError: element 0 of tensors does not require "
                                             "grad and does not have a grad_fn",
    "gradient-checkpointing-with-ddp-find-unused": "RuntimeError: Expected to mark a variable "
                                                   "ready only once.",
    "label-dtype-double-expected-float": "RuntimeError: Found dtype Double but expected Float",
    "trl-wrong-config-class": "AttributeError: 'TrainingArguments' object has no attribute "
                              "'max_prompt_length'",
    "sft-missing-text-field": "ValueError: You passed `packing=False` to the SFTTrainer, but you "
                              "didn't pass a `dataset_text_field` or `formatting_func` argument.",
    "wrong-argument-type": "AttributeError: 'function' object has no attribute 'named_parameters'",
    "keras-h5-save-unsupported": "TypeError: ('Not JSON Serializable:', RobertaConfig {...})",
    "model-dir-missing-weights": "OSError: Error no file named ['pytorch_model.bin', "
                                 "'tf_model.h5'] found in directory ./ckpt",
}
HF_NEGATIVES = {
    "datasetdict-instead-of-dataset": "DatasetDict({train: Dataset({features: ['text']})})",
    "arrow-mixed-column-types": "Converted 12000 rows to Arrow.",
    "invalid-jsonl-format": "Generating train split: 12000 examples",
    "dataset-script-not-streamable": "Downloading https://example.com/data.zip: 100%",
    "hub-invalid-token": "Token is valid (permission: write).",
    "hub-gated-repo": "This repository is public.",
    "hub-upload-too-large": "Upload 3 LFS files: 100%",
    "gpu-held-by-other-process": "Created TensorFlow device (GPU:0 with 14000 MB memory)",
    "cudnn-failed-to-initialize": "Loaded cuDNN version 8900",
    "string-labels-not-encoded": "label2id = {'neg': 0, 'pos': 1}",
    "tokenizer-unk-token-not-set": "unk_token='[UNK]' added to the vocabulary",
    "tokenizer-stride-too-large": "tokenizer(texts, stride=128, max_length=512)",
    "rust-compiler-not-found": "Successfully built tokenizers",
    "no-wheel-for-python-version": "Successfully installed torch-2.3.0",
    "torch-cpu-only-build": "torch.cuda.is_available(): True",
    "pytorch-model-in-keras": "AttributeError: 'Tensor' object has no attribute 'numpy'",
    "model-class-without-head": "decoder_input_ids were built from the labels",
    "fp16-weights-with-amp": "Using fp16 mixed precision with a GradScaler.",
    "gradient-checkpointing-inputs-no-grad": "trainable params: 294912 || all params: 124734720",
    "gradient-checkpointing-with-ddp-find-unused": "ddp_find_unused_parameters=False",
    "label-dtype-double-expected-float": "RuntimeError: Found dtype Float but expected Float",
    "trl-wrong-config-class": "AttributeError: 'Namespace' object has no attribute 'lr'",
    "sft-missing-text-field": "SFTTrainer(model, train_dataset=ds, dataset_text_field='text')",
    "wrong-argument-type": "AttributeError: 'function' object has no attribute 'cache_clear'",
    "keras-h5-save-unsupported": "TypeError: Object of type ndarray is not JSON serializable",
    "model-dir-missing-weights": "loading file model.safetensors from ./ckpt",
}


@pytest.mark.parametrize("sig_id", sorted(HF_PASTES))
def test_more_signatures(sig_id: str) -> None:
    t = triage(HF_PASTES[sig_id])
    assert t.primary is not None and t.cause_id == sig_id, (sig_id, ids(t), t.verdict)
    assert t.primary.fix and t.primary.probes


@pytest.mark.parametrize("sig_id", sorted(HF_NEGATIVES))
def test_more_signatures_do_not_fire_on_healthy_output(sig_id: str) -> None:
    assert sig_id not in ids(triage(HF_NEGATIVES[sig_id])), sig_id


def test_older_wordings_of_known_errors() -> None:
    cases = {
        "cuda-device-side-assert": "/pytorch/aten/src/THCUNN/ClassNLLCriterion.cu:108: "
                                   "cunn_ClassNLLCriterion_updateOutput_kernel: block: [0,0,0], "
                                   "thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.",
        "no-pad-token": "ValueError: Unable to set proper padding strategy as the tokenizer does "
                        "not have a padding token.",
        "keras-shapes-incompatible": "ValueError: Error when checking target: expected dense_3 to "
                                     "have shape (5,) but got array with shape (1,)",
        "hub-unreachable": "ConnectionError: Couldn't reach https://raw.githubusercontent.com/"
                           "huggingface/datasets/1.4.1/datasets/squad/squad.py",
        "out-of-memory": "The evaluation crashes with a CUDA memory error after 2000 steps.",
        "nan-loss": "print(loss)\ntensor(nan, device='cuda:0', grad_fn=<NllLossBackward0>)",
        "label-dtype-long-expected-float": "failed assertion `Error getting visible function: "
                                           "(null) Function square_i64 was not found in the "
                                           "library'",
    }
    for want, paste in cases.items():
        assert triage(paste).cause_id == want, (want, ids(triage(paste)))
    assert "hub-unreachable" not in ids(triage("FileNotFoundError: Couldn't reach https://hf.co/"
                                               "x/y.py (error 404)"))
    assert triage("nan-loss: tensor(0.6931, grad_fn=<NllLossBackward0>)").matches == []


def test_keras_compile_without_loss() -> None:
    paste = ("model.compile(optimizer='adam', metrics=['accuracy'])\nmodel.fit(x, y)\n"
             "ValueError: No gradients provided for any variable: ['dense/kernel:0'].")
    assert triage(paste).cause_id == "keras-compile-without-loss"
    with_loss = paste.replace("optimizer='adam'", "optimizer='adam', loss='mse'")
    assert triage(with_loss).cause_id == "keras-no-gradients"


def test_bitsandbytes_platforms() -> None:
    mac = ("/Users/ana/venv/lib/python3.11/site-packages/bitsandbytes/cextension.py:34: "
           "UserWarning: The installed version of bitsandbytes was compiled without GPU support.")
    win = mac.replace("/Users/ana/venv/lib/", "C:\\Users\\ana\\venv\\Lib\\").replace("/", "\\")
    assert triage(mac).cause_id == "bnb-requires-cuda-gpu"
    assert triage(win).cause_id == "env-version-too-old"
    assert 'bitsandbytes>=0.43.0' in triage(win).primary.fix


def test_stale_tokenizer_class_name() -> None:
    t = triage("ValueError: Tokenizer class LLaMATokenizer does not exist or is not currently "
               "imported.")
    assert t.cause_id == "stale-tokenizer-class-name"
    t = triage("ImportError: cannot import name 'PartialState' from 'transformers.trainer_pt_utils'")
    assert t.cause_id == "wrong-import-path" and "from accelerate import" in t.primary.fix


# ------------------------------------------------------------------------------------------
# Library bugs: the evidence of a paste, and the table of known, fixed bugs
# ------------------------------------------------------------------------------------------
def test_rust_panic_is_a_library_bug() -> None:
    paste = ("thread '<unnamed>' panicked at 'called `Option::unwrap()` on a `None` value', "
             "tokenizers-lib/src/models/unigram/trainer.rs:203:53\nTraceback (most recent call "
             "last):\n  File \"train_tok.py\", line 12, in <module>\n    tok.train(files, "
             "trainer)\npyo3_runtime.PanicException: called `Option::unwrap()` on a `None` value")
    t = triage(paste)
    assert t.verdict == "possible-library-bug" and t.cause_id == "library-bug"
    assert t.bug.package == "tokenizers" and "panic" in t.bug.reasons[0]
    f, = probe_triage(Case(model="m", traceback=paste), None)
    assert f.id == "triage.possible-library-bug" and f.title.startswith("Possible bug in tokenizers")
    assert "python -m wizard run train.py" in f.fix


def test_regression_statement_outweighs_a_user_error_signature() -> None:
    paste = ("Training the token classification tutorial fails with TensorFlow 2.11 but not with "
             "TensorFlow 2.9:\n(0) UNIMPLEMENTED: Cast string to float is not supported\n"
             "[[{{node Cast_1}}]]")
    t = triage(paste)
    assert t.cause_id == "library-bug" and t.bug.strong
    assert "string-labels-not-encoded" in ids(t)
    assert triage(paste.split("\n", 1)[1]).cause_id == "string-labels-not-encoded"
    t = triage("After upgrading to datasets 2.14.0 our filter() step started failing with\n"
               "KeyError: 'indices'\nIt worked with 2.13.1.")
    assert t.cause_id == "library-bug" and t.bug.package == "datasets"


def test_internal_crash_in_library_code_is_a_library_bug() -> None:
    paste = (f"Traceback (most recent call last):\n  File \"run.py\", line 8, in <module>\n"
             f"    trainer.train()\n  File \"{SITE}/trl/trainer/sft_trainer.py\", line 301, in "
             "__init__\n    if isinstance(model, PeftModel):\nNameError: name 'PeftModel' is not "
             "defined")
    t = triage(paste)
    assert t.cause_id == "library-bug" and t.bug.package == "trl"
    assert any("NameError" in r for r in t.bug.reasons)
    # the user's own NameError is not
    assert triage(ENV_NEGATIVES["env-name-not-defined"]).verdict == "unknown-error"


def test_the_librarys_own_example_failing_as_given_is_a_possible_library_bug() -> None:
    paste = ("TFSequenceClassifierOutput returns a loss without the batch dimension\n\n"
             "### System Info\n- `transformers` version: 4.22.2\n\n### Reproduction\n"
             "https://colab.research.google.com/github/huggingface/notebooks/blob/main/examples/"
             "text_classification-tf.ipynb\n\n### Expected behavior\nfit() trains")
    t = triage(paste)
    assert t.cause_id == "library-bug" and t.bug.package == "transformers"
    assert t.bug.version == "4.22.2" and "example" in t.bug.reasons[0] and not t.bug.strong
    ticked = ("* [x] the official example scripts: run_glue.py\n* [ ] my own modified scripts\n"
              "It crashes in the middle of the epoch.")
    assert triage(ticked).cause_id == "library-bug"
    # their own modified script, or a known user error in the example's output: not a bug
    assert triage(ticked.replace("[ ] my own", "[x] my own")).bug is None
    t = triage(ticked + "\nValueError: Asking to pad but the tokenizer does not have a padding "
               "token. Please select a token to use as `pad_token`")
    assert t.bug is None and t.cause_id == "no-pad-token"


def test_an_unbound_or_undefined_name_in_linked_library_source_is_a_library_bug() -> None:
    link = ("https://github.com/huggingface/transformers/blob/0123abc/src/transformers/models/"
            "transfo_xl/modeling_transfo_xl_utilities.py#L120")
    paste = (f"In {link} the n_clusters == 0 branch never sets it:\n"
             "UnboundLocalError: local variable 'out' referenced before assignment")
    t = triage(paste)
    assert t.cause_id == "library-bug" and t.bug.package == "transformers"
    assert "UnboundLocalError" in t.bug.reasons[0]
    # no link to library source and no frames: whose code it is stays unknown
    assert triage(paste.replace(link, "my script")).bug is None
    # a NameError the reporter traces to an unguarded line of the library's source
    t = triage("Using SFTTrainer always raises a `NameError`: the reference at https://github.com/"
               "huggingface/trl/blob/34e6948/trl/trainer/sft_trainer.py#L154 is not guarded by "
               "is_peft_available().")
    assert t.cause_id == "library-bug" and "NameError" in t.bug.reasons[0]


def test_a_file_the_library_wrote_and_cannot_read_back_is_a_library_bug() -> None:
    paste = ("tok = tokenizers.BertWordPieceTokenizer()\ntok.train(['corpus.txt'])\n"
             "tok.save('tokenizer.json')\ntok2 = tokenizers.Tokenizer.from_file('tokenizer.json')\n"
             "Exception: key must be a string at line 1 column 69")
    t = triage(paste)
    assert t.cause_id == "library-bug" and "read back 'tokenizer.json'" in t.bug.reasons[0]
    # loading some other file is not a round trip
    assert triage(paste.replace("from_file('tokenizer.json')", "from_file('old.json')")).bug is None
    # a file the loader does not find is a wrong loader or path (a DatasetDict saved, a Dataset
    # loaded), not an unreadable file
    missing = ("ds.save_to_disk('mydir')\nd = Dataset.load_from_disk('mydir')\n"
               "FileNotFoundError: [Errno 2] No such file or directory: 'mydir/art/info.json'")
    assert triage(missing).bug is None


def test_a_printed_result_beside_the_value_expected_is_a_possible_library_bug() -> None:
    paste = ("```python\nfrom transformers import AutoTokenizer\n"
             "t = AutoTokenizer.from_pretrained('meta-llama/Meta-Llama-3-8B-Instruct')\n"
             "print(t('are you ok?', add_special_tokens=False)[0].offsets)\n```\n"
             "output:\n```\n[(0, 0), (3, 3), (7, 7), (10, 10)]\n```\n"
             "### Expected behavior\n\n```\n[(0, 3), (3, 7), (7, 10), (10, 11)]\n```\n")
    t = triage(paste)
    assert t.cause_id == "library-bug" and "wrong result" in t.bug.reasons[0]
    # the template's heading followed by prose, or a question, states no expected value
    prose = paste.split("### Expected")[0] + "### Expected behavior\n\nI expect it to work.\n"
    assert triage(prose).cause_id != "library-bug"
    asked = paste.split("### Expected")[0] + "Is this a bug or expected behavior?\n"
    assert triage(asked).cause_id != "library-bug"


def test_a_librarys_override_that_lags_the_framework_it_overrides_is_a_library_bug() -> None:
    keras = ("optimizer, lr = create_optimizer(1e-4, 1000000, 10000)\nmodel.compile(optimizer="
             "optimizer)\nmodel.fit(x, y)\nTypeError: apply_gradients() got an unexpected keyword "
             "argument 'experimental_aggregate_gradients'")
    t = triage(keras)
    assert t.cause_id == "library-bug" and "keras now passes" in t.bug.reasons[0]
    patched = triage("TypeError: LoraLayer_update_layer() got an unexpected keyword argument "
                     "'use_dora'")
    assert patched.cause_id == "library-bug" and "peft now passes it use_dora=" in \
        patched.bug.reasons[0]
    # the paste's own override: the user's code, not a library's
    own = triage("class MyOpt(tf.keras.optimizers.Adam):\n    def apply_gradients(self, grads):\n"
                 "        ...\n" + keras.split("\n")[-1])
    assert own.cause_id != "library-bug"


def test_a_pull_request_describing_its_fix_is_a_library_bug() -> None:
    error = ("`RuntimeError: Error(s) in loading state_dict for BertForSequenceClassification:\n"
             "\tsize mismatch for classifier.weight: copying a param with shape torch.Size([3, 768]) "
             "from checkpoint, the shape in current model is torch.Size([2, 768]).`")
    pr = triage("Pull request in order to fix a mismatch in model and weight size when loading "
                "the bert models.\n" + error)
    assert pr.cause_id == "library-bug"
    # the same error asked about is the user's head size
    assert triage("How do I fix this when loading my model?\n" + error).cause_id != "library-bug"


def test_a_dataset_source_that_no_longer_matches_its_checksums_is_a_library_bug() -> None:
    paste = ("ds = load_dataset('web_of_science', 'WOS5736')\n"
             "NonMatchingChecksumError: Checksums didn't match for dataset source files:\n"
             "['https://data.mendeley.com/datasets/9rw3vkcfy4/6/files/WebOfScience.zip?dl=1']")
    t = triage(paste)
    assert t.cause_id == "library-bug" and t.bug.package == "datasets"
    assert 'verification_mode="no_checks"' in t.bug.reasons[0]
    # a file the user's own code writes and checks is not the dataset's script
    assert triage("ValueError: checksum of model.bin differs from the one I saved").bug is None


def test_environment_errors_are_not_library_bugs() -> None:
    paste = (f"Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\n"
             f"    import sentence_transformers\n  File \"{SITE}/sentence_transformers/"
             "SentenceTransformer.py\", line 12, in <module>\n    from huggingface_hub import "
             "cached_download\nImportError: cannot import name 'cached_download' from "
             f"'huggingface_hub' ({SITE}/huggingface_hub/__init__.py)\nIt worked with the previous "
             "huggingface_hub 0.25.2.")
    t = triage(paste)
    assert t.bug is None and t.cause_id == "env-version-too-new"
    assert 'huggingface-hub<0.26.0' in t.primary.fix


def test_known_fixed_bug_on_an_affected_version() -> None:
    paste = ("TypeError: PeftModelForSequenceClassification.add_adapter() got an unexpected "
             "keyword argument 'low_cpu_mem_usage'\npeft version: 0.13.2")
    t = triage(paste)
    assert t.cause_id == "library-bug" and t.bug.known is not None
    assert t.bug.known.fixed_in == "0.14.0"
    f, = probe_triage(Case(model="m", traceback=paste), None)
    assert f.title == "Known bug in peft 0.13.2, fixed in 0.14.0: upgrade"
    assert 'pip install -U "peft>=0.14.0"' in f.fix and "github.com/huggingface/peft" in f.fix
    # fixed in the version the paste shows: not this bug
    assert triage(paste.replace("0.13.2", "0.14.0")).bug is None or \
        triage(paste.replace("0.13.2", "0.14.0")).bug.known is None
    # a bug that needs its affected release: a plain "Config name is missing" is the user's
    assert triage("ValueError: Config name is missing.").bug is None
    assert triage("ValueError: Config name is missing.\ndatasets 2.16.0").bug.known is not None
    # the 8-bit optimizers' NaN losses: only on the releases that had the wrong map
    nan = "With AdamW8bit the loss becomes nan after a few steps. bitsandbytes=={}"
    assert triage(nan.format("0.37.0")).bug.known.fixed_in == "0.41.1"
    for release in ("0.35.4", "0.41.1"):
        known = triage(nan.format(release)).bug
        assert known is None or known.known is None
    # unsloth's patched Trainer method behind a newer transformers: any release before the fix
    patched = triage("TypeError: _unsloth_get_batch_samples() takes 3 positional arguments but "
                     "4 were given")
    assert patched.bug.known.fixed_in == "2025.3.18"
    assert triage(patched.parsed.text + "\nunsloth==2025.3.18").bug is None or triage(
        patched.parsed.text + "\nunsloth==2025.3.18").bug.known is None
    # bugs of two releases only: named by the paste's release, never guessed without it
    fp8 = "AttributeError: module 'torch' has no attribute 'float8_e4m3fn'\n- `transformers` " \
          "version: {}"
    assert triage(fp8.format("4.43.1")).bug.known.fixed_in == "4.43.2"
    for release in ("4.42.4", "4.43.2"):
        known = triage(fp8.format(release)).bug
        assert known is None or known.known is None


# ------------------------------------------------------------------------------------------
# The text around the error
# ------------------------------------------------------------------------------------------
def test_prose_fences_and_notebook_links_around_the_error() -> None:
    paste = ("I followed the docs and got this, any idea?\n\n```python\n"
             "---------------------------------------------------------------------------\n"
             "ModuleNotFoundError                       Traceback (most recent call last)\n"
             "Cell In[12], [line 3](vscode-notebook-cell:?execution_count=12&line=3)\n"
             "      1 import torch\n----> 3 import evaluate\n\n"
             "ModuleNotFoundError: No module named 'evaluate'\n```\nThanks in advance!")
    t = triage(paste)
    assert t.parsed.exc_type == "ModuleNotFoundError" and t.parsed.frames[0].file == "Cell In[12]"
    assert t.cause_id == "env-missing-package" and "pip install evaluate" in t.primary.fix
    colab = ("[/usr/local/lib/python3.10/dist-packages/transformers/trainer.py](https://localhost"
             ":8080/#) in train(self)\n\x1b[0;31mKeyError\x1b[0m: 'x'")
    assert triage(colab).parsed.frames[0].package == "transformers"


def test_a_message_ends_at_its_code_block_and_the_next_block_is_the_next_error() -> None:
    paste = ("```\nTraceback (most recent call last):\n"
             '  File "/x/site-packages/datasets/features/audio.py", line 172, in decode\n'
             "    raise ImportError(\"To support decoding audio data, please install "
             "'torchcodec'.\")\n"
             "ImportError: To support decoding audio data, please install 'torchcodec'.\n```\n\n"
             "After `pip install torchcodec` and run, got\n```\n"
             '  File "/x/site-packages/torchcodec/_core/ops.py", line 69, in load_libraries\n'
             "    raise RuntimeError(\n"
             "RuntimeError: Could not load libtorchcodec. Likely causes:\n"
             "          1. FFmpeg is not properly installed in your environment.\n```\n"
             "I tried everything, please help")
    t = triage(paste)
    assert t.parsed.exc_type == "RuntimeError" and t.cause_id == "env-binary-incompatible"
    assert "please help" not in t.parsed.message and "FFmpeg" in t.parsed.message
    assert t.parsed.chain[0].message == \
        "To support decoding audio data, please install 'torchcodec'."
    # control: without fences the lines after an exception still belong to its message
    plain = triage("ValueError: the config is wrong.\nIt needs a key 'x'.")
    assert plain.parsed.message == "the config is wrong.\nIt needs a key 'x'."


def test_error_inside_a_sentence_glued_fences_pytest_and_escaped_newlines() -> None:
    t = triage("When I build the layer it results in ValueError: Unrecognized keyword arguments "
               "passed to Embedding: {'input_length': 20} - why?")
    assert t.parsed.exc_type == "ValueError" and t.cause_id == "env-version-too-new"
    t = triage("```RuntimeError: Expected to mark a variable ready only once. blah```")
    assert t.parsed.exc_type == "RuntimeError"
    t = triage("tests/test_x.py:3: in <module>\n    import peft\nE   ModuleNotFoundError: No "
               "module named 'peft'")
    assert t.parsed.exc_type == "ModuleNotFoundError" and t.cause_id == "env-missing-package"
    t = triage('"Traceback (most recent call last):\\n  File \\"/app/a.py\\", line 3, in <module>'
               '\\nModuleNotFoundError: No module named \'tokenizers.tokenizers\'\\n"')
    assert t.cause_id == "env-binary-incompatible"
    t = triage("Exception has occurred: ImportError       (note: full exception trace is shown)\n"
               "cannot import name 'SFTConfig' from 'trl' (/x/site-packages/trl/__init__.py)")
    assert t.parsed.exc_type == "ImportError" and t.cause_id == "env-version-too-old"
    t = triage("Status code:   400\nException:     ImportError\nMessage:       To support "
               "decoding audio files, please install 'librosa'.")
    assert t.parsed.exc_type == "ImportError" and t.cause_id == "env-missing-package"
    t = triage("NameError: name \u2018PeftModel\u2019 is not defined\nIf I downgrade to 0.4.0 the "
               "issue is no longer there")
    assert t.cause_id == "library-bug"
    # two ranks printing the same exception line at once
    t = triage("Traceback (most recent call last):\n    \"input_ids\": feature[\"input_ids_j\"],\n"
               "KeyErrorKeyError: : 'input_ids_j'")
    assert t.parsed.exc_type == "KeyError" and t.parsed.message == "'input_ids_j'"
    # an input method's full-width punctuation around the message
    t = triage("推理的时候报错：\nInput type （BFloat16） and bias type （Half） should be the same.")
    assert t.cause_id == "mixed-dtypes"


def test_only_output_pasted_matches_nothing_or_the_symptom() -> None:
    healthy = ("{'loss': 0.6931, 'learning_rate': 4.9e-05, 'epoch': 0.1}\n"
               "tensor([[ 0.1234, -0.5678]], grad_fn=<AddmmBackward0>)\n"
               "UserWarning: `resume_download` is deprecated\n"
               "Some weights of BertForSequenceClassification were not initialized from the "
               "model checkpoint at bert-base-uncased and are newly initialized")
    t = triage(healthy)
    assert t.primary is None or t.primary.signature.benign
    assert t.bug is None


@settings(max_examples=120, deadline=3000, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(), max_size=4000),
       st.lists(st.sampled_from([p for _, p in ENV_PASTES.values()] + list(HF_PASTES.values())
                                + list(ENV_NEGATIVES.values())), max_size=4),
       st.sampled_from(["\n", "\r\n", " ", "```\n", "\n> ", "\\n"]))
def test_never_raises_on_unicode_prose_around_errors(noise: str, pastes: list[str],
                                                     sep: str) -> None:
    _assert_sound(sep.join([noise[: len(noise) // 2], *pastes, noise[len(noise) // 2:]]))


def test_never_raises_on_huge_pastes() -> None:
    block = "\n".join([p for _, p in ENV_PASTES.values()] + list(HF_PASTES.values()))
    for text in (block * 200, ("x" * 9999 + "\n") * 60, "\u202e\U0001F600" * 150_000,
                 "File \"" * 100_000, "requires " * 50_000):
        t = triage(text)
        assert t.error is None and t.parsed.parse_error is None


def test_a_required_version_range_keeps_its_upper_bound_in_the_fix():
    from wizard.triage.match import triage

    paste = ("ImportError: tokenizers>=0.21,<0.22 is required for a normal functioning of this "
             "module, but found tokenizers==0.19.1.")
    fix = triage(paste).primary.fix
    assert 'pip install "tokenizers>=0.21,<0.22"' in fix


# ------------------------------------------------------------------------------------------
# API-usage families read from the error's own words, and the benchmark's machine independence
# ------------------------------------------------------------------------------------------
USAGE_PASTES = {
    "layer-input-shape-mismatch": "RuntimeError: mat1 and mat2 shapes cannot be multiplied "
                                  "(8x768 and 512x2)",
    "tokenizer-input-not-text": "TypeError: TextEncodeInput must be Union[TextInputSequence, "
                                "Tuple[InputSequence, InputSequence]]",
    "keras-fit-unsupported-input": "ValueError: Failed to find data adapter that can handle "
                                   "input: <class 'transformers.tokenization_utils_base."
                                   "BatchEncoding'>, <class 'NoneType'>",
    "half-precision-on-cpu": "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'",
    "mixed-dtypes": "RuntimeError: expected scalar type Half but found Float",
    "input-ids-not-integer": "RuntimeError: Expected tensor for argument #1 'indices' to have "
                             "scalar type Long; but got torch.FloatTensor instead",
    "keras-data-cardinality": "ValueError: Data cardinality is ambiguous:\n  x sizes: 100\n"
                              "  y sizes: 90",
    "loss-not-scalar": "RuntimeError: grad can be implicitly created only for scalar outputs",
    "backward-through-graph-twice": "RuntimeError: Trying to backward through the graph a "
                                    "second time (or directly access saved tensors after ...",
    "generate-unused-kwargs": "ValueError: The following `model_kwargs` are not used by the "
                              "model: ['token_type_ids'] (note: typos in the generate ...)",
    "peft-target-modules-not-found": "ValueError: Target modules {'q_proj', 'v_proj'} not found "
                                     "in the base model. Please check the target modules.",
    "column-not-in-dataset": "ValueError: Column to remove ['text'] not in the dataset. Current "
                             "columns in the dataset: ['sentence', 'label']",
    "keras-custom-objects-on-load": "ValueError: Unknown layer: TFBertMainLayer. Please ensure "
                                    "this object is passed to the `custom_objects` argument.",
    "meta-tensor-model": "NotImplementedError: Cannot copy out of meta tensor; no data!",
    "label-dtype-float-expected-long": "RuntimeError: expected scalar type Long but found Float"
                                       "\n  File \"x.py\", line 3, in f\n    "
                                       "F.cross_entropy(logits, labels)",
    "keras-3-installed": "from transformers import TFBertModel\nValueError: A KerasTensor "
                         "cannot be used as input to a TensorFlow function.",
    "missing-input-ids": "ValueError: You should supply an encoding or a list of encodings to "
                         "this method that includes input_ids, but you provided ['label']",
    "index-out-of-range-in-self": "InvalidArgumentError: indices[0,5] = 30522 is not in "
                                  "[0, 30522) [Op:ResourceGather]",
    "keras-shapes-incompatible": "ValueError: logits and labels must have the same shape "
                                 "((None, 2) vs (None, 1))",
    "env-version-too-old": "ValueError: Invalid pattern: '**' can only be an entire path "
                           "component",
    "env-version-too-new": "NotImplementedError: Cannot convert a symbolic Tensor "
                           "(lstm/strided_slice:0) to a numpy array.",
    "decode-negative-ids": "OverflowError: out of range integral type conversion attempted",
    "offsets-need-fast-tokenizer": "NotImplementedError: return_offset_mapping is not available "
                                   "when using Python tokenizers.",
    "trust-remote-code-required": "ValueError: Loading org/m requires you to execute the "
                                  "configuration file in that repo on your local machine. ... "
                                  "set the option `trust_remote_code=True` to remove this error.",
    "quantized-model-without-adapters": "ValueError: You cannot perform fine-tuning on purely "
                                        "quantized models. Please attach trainable adapters",
    "load-best-model-strategy-mismatch": "ValueError: --load_best_model_at_end requires the save "
                                         "and eval strategy to match, but found",
    "metric-for-best-model-not-found": "KeyError: 'eval_accuracy'",
    "empty-dataset": "ValueError: num_samples should be a positive integer value, but got "
                     "num_samples=0",
    "eval-dataset-missing": "ValueError: Trainer: evaluation requires an eval_dataset.",
    "precision-needs-cuda": "ValueError: FP16 Mixed precision training with AMP or APEX "
                            "(`--fp16`) and FP16 half precision evaluation (`--fp16_full_eval`) "
                            "can only be used on CUDA devices.",
    "numpy-value-not-json-serializable": "TypeError: Object of type int64 is not JSON "
                                         "serializable",
    "no-pad-token": "AssertionError: Cannot handle batch sizes > 1 if no padding token is "
                    "defined.",
}


def test_an_unknown_model_type_key_is_an_old_transformers() -> None:
    paste = (f"Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n"
             f"    model = AutoModelForCausalLM.from_pretrained('mistralai/Mistral-7B-v0.1')\n"
             f"  File \"{SITE}/transformers/models/auto/configuration_auto.py\", line 917, in "
             "from_pretrained\n    config_class = CONFIG_MAPPING[config_dict['model_type']]\n"
             "KeyError: 'mistral'")
    t = triage(paste)
    assert t.cause_id == "env-version-too-old" and "mistral" in t.primary.cause
    assert 'pip install -U "transformers>=4.34.0"' in t.primary.fix   # the release that added it
    assert triage("KeyError: 'label'").cause_id == "unknown"    # a column, not a model type


def test_a_name_a_module_lost_is_dated_by_that_modules_history() -> None:
    said = ("  File \"/root/.cache/huggingface/modules/transformers_modules/m/modeling_m.py\", "
            "line 30, in <module>\n    from transformers.utils.import_utils import "
            "is_torch_fx_available\nImportError: cannot import name 'is_torch_fx_available' from "
            "'transformers.utils.import_utils'")
    t = triage(said)
    assert t.cause_id == "env-version-too-new" and 'transformers<5.0.0' in t.primary.fix
    # a name the module gained: too old, with the release that added it
    t = triage("transformers==4.30.2\nImportError: cannot import name 'GenerationMode' from "
               "'transformers.generation.utils'")
    assert t.cause_id == "env-version-too-old" and "4.32" in t.primary.cause + t.primary.fix


def test_a_model_type_key_in_prose_is_dated_by_the_release_that_added_the_model() -> None:
    said = ("Running the quick start with transformers I get KeyError: 'qwen2' . Is my "
            "transformers too old?")
    t = triage(said)
    assert t.cause_id == "env-version-too-old"
    assert 'transformers>=4.37.0' in t.primary.fix and "4.37.0" in t.primary.cause
    # a model transformers 3 had already, or a key that is no model, in prose: not this
    assert triage(said.replace("qwen2", "bert")).cause_id != "env-version-too-old"
    assert triage(said.replace("qwen2", "input_ids")).cause_id != "env-version-too-old"


@pytest.mark.parametrize("cause_id", sorted(USAGE_PASTES))
def test_usage_families_name_the_cause_and_a_fix(cause_id: str) -> None:
    t = triage("I get this when training, any idea?\n```\n" + USAGE_PASTES[cause_id] + "\n```")
    assert t.cause_id == cause_id and t.primary.fix.strip()
    f, = probe_triage(Case(model="m", traceback=USAGE_PASTES[cause_id]), None)
    assert f.id == "triage.known-error" and f.fix


@pytest.mark.parametrize("text", [
    "ValueError: Input 0 is fine",                     # no shape words
    "RuntimeError: expected scalar type Long but found Float",   # no loss in sight: not labels
    "ValueError: A KerasTensor cannot be used as input to a TensorFlow function.",  # plain Keras
    "The loss went from 0.7 to 0.3 and the model predicts the input must be of type fine",
])
def test_usage_families_need_their_own_words(text: str) -> None:
    got = triage(text).cause_id
    assert got not in ("label-dtype-float-expected-long", "keras-3-installed",
                       "layer-input-shape-mismatch", "tokenizer-input-not-text"), got


def test_a_tokenizer_warning_of_long_sequences_explains_an_index_error() -> None:
    index = "IndexError: index out of range in self"
    assert triage(index).cause_id == "index-out-of-range-in-self"
    t = triage("Token indices sequence length is longer than the specified maximum sequence "
               "length for this model (601 > 512). Running this sequence through the model will "
               "result in indexing errors\n" + index)
    assert t.cause_id == "sequence-longer-than-max" and t.primary.evidence["length"] == 601


def test_pastes_from_elsewhere_ignore_the_versions_installed_here() -> None:
    from wizard.triage.versions import installed_version, pastes_from_elsewhere
    here = installed_version("pytest")
    assert here is not None
    with pastes_from_elsewhere():
        assert installed_version("pytest") is None
    assert installed_version("pytest") == here


def test_a_dataset_looked_up_as_a_model_is_the_wrong_repo_type() -> None:
    url = ("huggingface_hub.utils._errors.RepositoryNotFoundError: 404 Client Error: Repository "
           "Not Found for url: https://huggingface.co/org/my-data/resolve/main/README.md")
    t = triage("hf_hub_download('org/my-data', 'README.md')\n" + url)
    assert t.cause_id == "model-id-not-found"           # nothing says it is a dataset
    t = triage("hf_hub_download('org/my-data', 'README.md')  # no repo_type given\n" + url)
    assert t.cause_id == "hub-wrong-repo-type" and "repo_type='dataset'" in t.primary.fix
    t = triage("ds = load_dataset('org/my-data')\n" + url)
    assert t.cause_id == "hub-wrong-repo-type" and t.primary.evidence["repo"] == "org/my-data"


def test_a_near_miss_of_a_common_argument_is_a_typo_not_a_version() -> None:
    t = triage("TypeError: TrainingArguments.__init__() got an unexpected keyword argument "
               "'per_device_train_batchsize'")
    assert t.cause_id == "misspelt-argument"
    assert t.primary.evidence["did_you_mean"] == "per_device_train_batch_size"
    renamed = triage("TypeError: TrainingArguments.__init__() got an unexpected keyword argument "
                     "'evaluation_strategy'")
    assert renamed.cause_id in ("env-version-too-new", "env-version-too-old")


@pytest.mark.parametrize("text", [
    "AttributeError: module 'tensorflow' has no attribute 'Session'",
    "AttributeError: module 'tensorflow' has no attribute 'placeholder'",
    "ModuleNotFoundError: No module named 'tensorflow.contrib'",
    "ImportError: cannot import name 'pad_sequences' from 'keras.preprocessing.sequence'",
])
def test_apis_a_release_removed_make_the_installed_release_too_new(text: str) -> None:
    t = triage(text)
    assert t.cause_id == "env-version-too-new", t.primary.cause if t.primary else None
    assert 'pip install "' in t.primary.fix and "# or:" in t.primary.fix


def test_a_keyerror_looking_up_a_dataset_row_is_a_missing_column_not_a_library_bug():
    """datasets' row lookup raising KeyError for a name the user's function subscripts: the
    column is missing; the same KeyError without that lookup stays unexplained."""
    paste = ('Traceback (most recent call last):\n'
             '  File "/home/u/train.py", line 14, in tokenize\n'
             '    return tokenizer(batch["sentence"], truncation=True)\n'
             '  File "/usr/lib/python3.11/site-packages/datasets/formatting/formatting.py", '
             'line 280, in __getitem__\n'
             '    value = self.data[key]\n'
             "KeyError: 'sentence'\n")
    r = triage(paste)
    assert r.cause_id == "column-not-in-dataset" and r.bug is None
    assert triage(paste.replace('batch["sentence"]', "pick(batch)")).cause_id != \
        "column-not-in-dataset"


def test_a_pull_requests_own_words_describe_a_fix_of_library_code() -> None:
    paste = ("# What does this PR do?\n\nFixes bug: \nWhen resuming, saving raises at "
             "`checkpoints_sorted.index(best)`:\nValueError: '/ckpt/checkpoint-100' is not in list.")
    t = triage(paste)
    assert t.cause_id == "library-bug" and t.bug.strong
    # a user telling how they fixed their own code is not a fix of library code
    assert triage("Fix the issue by setting tokenizer.pad_token = tokenizer.eos_token\n"
                  "ValueError: '/ckpt/checkpoint-100' is not in list.").bug is None
