"""The cause vocabulary: one name per root cause, shared by the wizard's signatures and the real
error corpus.

A signature id (or an environment rule's family) names how an error shows; a corpus tag names
what a thread established. Several of them name one cause in different words: a label past the
head is "torch-target-out-of-bounds" in PyTorch, "tf-label-out-of-range" in TensorFlow and a
device-side assert on a GPU. `CAUSES` groups them by meaning, each group with the sentence that
defines it; a tag in no group is a cause of its own. The vocabulary was written from the tags'
meanings before any tuning against it, and is how `benchmarks/triage_accuracy.py` scores.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cause:
    """One root cause: its definition and the tags (signature ids, corpus tags) that name it."""

    name: str
    meaning: str
    tags: tuple[str, ...]


CAUSES: tuple[Cause, ...] = (
    Cause("label-out-of-range",
          "A label (class id) outside 0..num_labels-1 reaches the loss: the head has fewer "
          "outputs than the data has classes, or the ids do not start at 0.",
          ("torch-target-out-of-bounds", "tf-label-out-of-range", "cuda-device-side-assert")),
    Cause("keras-implementations-mixed",
          "Objects of two Keras implementations meet in one model (standalone keras and "
          "tf.keras, or a Keras 2 layer from tf-keras in a Keras 3 model).",
          ("keras-and-tf-keras-mixed", "keras-3-model-keras-2-layer")),
    Cause("graph-kept-across-steps",
          "A tensor of an earlier step's graph (a recurrent state, a memory, a running loss) is "
          "carried into the next step without .detach(), so backward goes through a freed graph.",
          ("backward-through-graph-twice", "recurrent-state-not-detached")),
    Cause("hub-outage",
          "The Hub itself fails to answer (a 5xx: an outage or overload), not the user's network, "
          "credentials or code.",
          ("hub-down", "hub-outage")),
    Cause("sequence-too-long",
          "A sequence longer than the model's position embeddings reaches the model "
          "(no truncation, or max_length above the model's limit).",
          ("sequence-longer-than-max", "expanded-size-positions", "tensor-size-mismatch-dim1",
           "generation-past-context")),
    Cause("tensor-parallel-size-not-dividing",
          "The tensor parallel size does not divide a dimension the GPUs split evenly (the "
          "attention heads, the key-value heads, a quantized weight's groups).",
          ("tensor-parallel-not-dividing-heads", "tensor-parallel-size-not-divisor")),
    Cause("labels-not-numeric",
          "The labels are still strings (class names), not integer class ids.",
          ("string-labels-not-encoded", "labels-not-encoded-as-ids")),
    Cause("features-not-batchable",
          "The examples of a batch cannot be stacked into one tensor: sequences of different "
          "lengths without padding, columns that are not lists of ids (raw text), or arrays of "
          "Python objects.",
          ("unable-to-create-tensor", "ragged-sequences", "object-array-to-tensor")),
    Cause("label-shape-mismatch",
          "The labels' shape does not fit the model's output (another number of examples, "
          "one-hot against class ids, token-level against sequence-level).",
          ("batch-size-mismatch", "logits-labels-first-dim", "keras-shapes-incompatible",
           "bce-target-size-mismatch", "cross-entropy-class-dim",
           "multilabel-labels-not-multi-hot")),
    Cause("label-dtype-mismatch",
          "The labels' dtype is not the one the loss needs (ints for a float loss, float64 "
          "against float32, floats for a class-id loss).",
          ("label-dtype-long-expected-float", "label-dtype-double-expected-float",
           "label-dtype-float-expected-long", "label-dtype-int-expected-long",
           "label-dtype-int32-expected-long")),
    Cause("loss-not-connected-to-weights",
          "The loss that is differentiated has no gradient path to the trainable weights: no "
          "loss compiled, computed outside the tape or through NumPy, a non-differentiable op, "
          "or nothing upstream requires grad.",
          ("keras-no-gradients", "keras-compile-without-loss", "loss-computed-outside-tape",
           "numpy-in-gradient-tape", "loss-not-differentiable",
           "gradient-checkpointing-inputs-no-grad", "gradients-are-none")),
    Cause("zero3-partitioned-weights",
          "Weights of a model partitioned by DeepSpeed ZeRO-3 are read outside the engine "
          "without gathering them (merging an adapter, saving a state dict, loading one into "
          "it): each process holds an empty shard of size 0.",
          ("zero3-partitioned-weights-used", "zero3-merge-partitioned-weights",
           "zero3-empty-weights-saved", "zero3-load-state-dict-into-partitioned-model")),
    Cause("gpu-memory-exhausted",
          "The GPU has not enough free memory for what is asked of it (the model and batch, "
          "models or tensors piling up in one session, another process, or TensorFlow's "
          "pre-allocation leaving none for cuDNN/cuBLAS).",
          ("out-of-memory", "models-accumulate-in-loop", "embeddings-kept-on-gpu-with-grad",
           "gpu-held-by-other-process",
           "quantized-model-does-not-fit",
           "cudnn-failed-to-initialize")),
    Cause("version-mismatch",
          "Installed releases do not match what the code was written for: a name or argument "
          "was added in a later release or removed in a newer one, or Keras 3 stands where "
          "Keras 2 is needed.",
          ("env-version-too-old", "env-version-too-new", "env-version-mismatch",
           "keras-3-installed",
           "keras-optimizer-identifier", "keras-tensor-with-keras-3",
           "remote-code-older-than-transformers", "peft-trl-version-mismatch")),
    Cause("package-missing",
          "A package the code or the feature needs is not installed where the code runs.",
          ("env-missing-package",)),
    Cause("build-unsupported-here",
          "The installed build of a package cannot run on this platform, hardware or runtime: "
          "compiled against other versions, CPU-only, no wheel for this Python, no backend for "
          "this GPU or OS.",
          ("env-binary-incompatible", "torch-cpu-only-build", "bnb-requires-cuda-gpu",
           "no-wheel-for-python-version", "no-wheel-for-platform", "flash-attention-needs-ampere",
           "cuda-unavailable")),
    Cause("setup-step-skipped",
          "A setup step was left out: git-lfs, a restart after installing, a data download, a "
          "build tool on the PATH.",
          ("env-setup-step-skipped", "rust-compiler-not-found", "env-restart-runtime")),
    Cause("local-file-missing",
          "The local path given to a loader does not hold the file it reads (never downloaded, "
          "or a folder of another format).",
          ("tokenizer-file-not-found", "model-dir-missing-weights", "local-file-missing")),
    Cause("hub-access-denied",
          "The Hub refuses access: a gated repository whose terms were not accepted, or an "
          "invalid token in use.",
          ("hub-gated-repo", "hub-invalid-token", "hub-not-logged-in", "hub-write-refused")),
    Cause("hub-repo-not-found",
          "The Hub (or a library's preset registry) has no model of that id and type "
          "(misspelt, renamed, private, or a dataset looked up as a model).",
          ("model-id-not-found", "hub-wrong-repo-type", "keras-preset-unknown",
           "hub-repo-private")),
    Cause("no-chat-template",
          "The tokenizer has no chat template (a base model's), so apply_chat_template, or a "
          "trainer that formats conversations with it, has nothing to format with.",
          ("chat-template-not-set", "no-chat-template")),
    Cause("fp16-trainable-weights",
          "The weights being trained are held in fp16 (model.half(), or loaded with "
          "torch_dtype=float16 and trained in full): the GradScaler refuses them, or the updates "
          "underflow and the loss collapses to 0 / NaN.",
          ("fp16-weights-with-amp", "pure-fp16-training")),
    Cause("weights-only-in-other-framework",
          "The checkpoint holds weights of another framework only (TensorFlow weights for a "
          "PyTorch class, PyTorch weights for a TF class): they load with from_tf / from_pt.",
          ("no-tf-weights-on-hub", "no-pytorch-weights-on-hub")),
    Cause("precision-unsupported-here",
          "Mixed precision was asked for on hardware that lacks it: fp16/bf16 without a CUDA GPU, "
          "or bf16 (tf32) on a GPU older than Ampere (T4, V100).",
          ("precision-needs-cuda", "bf16-unsupported-gpu")),
    Cause("model-placement-under-ddp",
          "A model placed by device_map (spread over several GPUs with 'auto', or quantized onto "
          "another GPU than the process's) is trained or run by several processes (DDP/"
          "accelerate), which need one whole copy per process on its own GPU.",
          ("quantized-model-wrong-device", "device-map-auto-with-ddp")),
    Cause("wrong-object-passed",
          "An API got an object of the wrong kind: a DatasetDict for a Dataset, the base "
          "TrainingArguments for a TRL config, a function for a model, a PyTorch model in "
          "Keras, a type fit() or the tokenizer cannot take.",
          ("datasetdict-instead-of-dataset", "trl-wrong-config-class", "wrong-argument-type",
           "pytorch-model-in-keras", "keras-fit-unsupported-input", "tokenizer-input-not-text")),
    Cause("user-code-interface-mismatch",
          "The user's code and a library object disagree on an interface: it unpacks, reads or "
          "declares other fields or arguments than the library returns or passes.",
          ("too-many-values-to-unpack", "evalprediction-wrong-attribute",
           "reward-func-missing-kwargs", "library-object-missing-attribute",
           "callback-signature-mismatch", "model-output-misread")),
    Cause("nonexistent-name",
          "The code names an import path, argument or option that no release has (misspelt or "
          "invented).",
          ("wrong-import-path", "invalid-config-argument", "misspelt-argument",
           "unsupported-trainer-argument", "hf-argparser-unused-args")),
    Cause("data-file-unparseable",
          "The data files do not parse into one table: a column with mixed types, or a file "
          "that is not the format it is read as.",
          ("arrow-mixed-column-types", "invalid-jsonl-format", "data-files-different-columns")),
    Cause("checkpoint-shape-mismatch",
          "The checkpoint's weights have other shapes than the model built to load them "
          "(another number of labels, a resized vocabulary).",
          ("head-size-mismatch", "adapter-vocab-size-mismatch", "vocab-size-mismatch",
           "checkpoint-tensor-shape-mismatch", "checkpoint-weight-reshape-failed",
           "hub-config-weights-mismatch")),
    Cause("checkpoint-weights-not-loaded",
          "The checkpoint's weights of the model's body were not loaded: their names do not "
          "match the class's (an outdated or other-framework naming), so the layers are random.",
          ("checkpoint-weights-unused", "hub-checkpoint-outdated-weights")),
    Cause("remote-code-module-name-invalid",
          "The module transformers writes for a checkpoint's own code is named after the local "
          "path it was loaded from, and that path (a relative one with '/', on Windows) is no "
          "module name.",
          ("remote-code-module-name-invalid", "windows-model-path-forward-slash")),
    Cause("example-script-unsupported-model",
          "A library's example or conversion script handles fewer architectures than the "
          "model it is given (an old LLaMA-only converter, an example written for one family).",
          ("example-script-unsupported-model", "gguf-legacy-convert-script",
           "converter-unsupported-architecture")),
    Cause("nccl-internode-transport",
          "NCCL's transport between the machines of a multi-node run fails (InfiniBand the "
          "nodes lack, the wrong network interface).",
          ("nccl-internode-transport", "nccl-infiniband-unavailable")),
    Cause("feature-unsupported-model-type",
          "A framework feature (a tuner, an attention patch) is implemented only for some model "
          "types, and the model is of another.",
          ("feature-unsupported-model-type", "longlora-model-unsupported")),
    Cause("state-dict-key-prefix",
          "A checkpoint saved from a wrapped model (DataParallel/DDP's module., torch.compile's "
          "_orig_mod., a PEFT model's base_model.model.) is loaded into the bare one, or the "
          "other way round: every key differs by the wrapper's prefix.",
          ("state-dict-key-prefix", "dataparallel-state-dict-prefix",
           "compiled-state-dict-prefix")),
    Cause("host-memory-exhausted",
          "The operating system killed the process for lack of RAM (CPU memory, not the GPU's).",
          ("host-memory-exhausted", "cpu-ram-exhausted")),
    Cause("bnb-int8-matmul-old-gpu",
          "bitsandbytes' int8 matrix multiplication needs a GPU newer than the one the run has.",
          ("bnb-int8-matmul-old-gpu", "bnb-int8-matmul-unsupported-gpu")),
    Cause("peft-target-modules-not-found",
          "LoRA's target modules are not modules of the model it is applied to (names of another "
          "architecture, or an adapter trained on another base model).",
          ("peft-target-modules-not-found", "lora-adapter-for-another-model")),
    Cause("pip-build-isolation",
          "pip builds a package in an isolated environment without the packages its setup.py "
          "imports (torch), so the build fails although they are installed.",
          ("pip-build-isolation", "build-isolation-hides-torch")),
    Cause("flash-attn-wheel-download-failed",
          "flash-attn's installer could not download its prebuilt wheel (network), and the "
          "build it fell back to failed.",
          ("flash-attn-wheel-download-failed", "prebuilt-wheel-download-failed")),
    Cause("ollama-file-not-gguf",
          "ollama was given a file that is not GGUF (a safetensors model or adapter it cannot "
          "convert), and reads it as one.",
          ("ollama-file-not-gguf", "ollama-adapter-requires-gguf")),
    Cause("dataset-argument-none",
          "A dataset argument is None: no train_dataset (or eval_dataset) was passed, or the "
          "variable holding it was never assigned.",
          ("dataset-argument-none", "train-dataset-missing")),
    Cause("half-and-float-without-autocast",
          "Half-precision weights (a float16/bfloat16 or quantized model) meet float32 tensors in "
          "one operation because no mixed precision (autocast, --fp16/--bf16) is on.",
          ("mixed-dtypes", "quantization-without-fp16-flag")),
    Cause("token-type-ids-not-accepted",
          "The tokenizer's token_type_ids reach a model whose forward takes none (DistilBERT "
          "and other architectures without segment embeddings).",
          ("unsupported-token-type-ids", "token-type-ids-not-accepted")),
    Cause("momentum-cycled-without-it",
          "A schedule cycles (or code reads) a momentum hyperparameter the optimizer in use does "
          "not have: beta_1 of an Adam-like optimizer on RMSprop, momentum on Adam.",
          ("optimizer-lacks-cycled-momentum", "cycle-momentum-with-non-adam-optimizer")),
    Cause("fp16-overflow",
          "Values pass float16's range (65504) in fp16 training or inference and overflow to "
          "inf, then NaN: a model pretrained in bfloat16, SDXL's VAE, a loss scaler that cannot "
          "go lower. bf16 or fp32 has the range.",
          ("fp16-overflow-bf16-model", "fp16-numerical-overflow")),
    Cause("optimizer-groups-changed-on-resume",
          "A saved optimizer state is loaded into an optimizer whose parameter groups differ "
          "(other trainable parameters, frozen layers, another model).",
          ("optimizer-groups-changed-on-resume", "optimizer-param-groups-changed-on-resume")),
    Cause("columns-dropped-by-trainer",
          "The Trainer's remove_unused_columns dropped dataset columns the data pipeline still "
          "needs (a raw image or audio column for an on-the-fly transform, or every column the "
          "wrapped model's forward does not name).",
          ("raw-media-column-dropped", "remove-unused-columns-drops-inputs")),
)

_BY_TAG: dict[str, str] = {tag: c.name for c in CAUSES for tag in c.tags}


def cause_of(tag: str) -> str:
    """The cause a tag names: its group's name, or the tag itself when it is in no group."""
    return _BY_TAG.get(tag, tag)


def same_cause(a: str, b: str) -> bool:
    """Whether two tags name one cause."""
    return cause_of(a) == cause_of(b)
