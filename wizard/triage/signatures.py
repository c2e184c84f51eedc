"""The catalogue of known errors: SIGNATURES, one Signature per error message of fine-tuning with
transformers on PyTorch and TensorFlow/Keras, with its usual cause, the checks that confirm it
and the fix.
"""
from __future__ import annotations

from wizard.core.catalogue import CHECKS
from wizard.triage.refine import (
    refine_assert,
    refine_batch_mismatch,
    refine_broadcast,
    refine_devices,
    refine_expanded,
    refine_gradients_none,
    refine_index_error,
    refine_keras_shapes,
    refine_multilabel_scores,
    refine_no_gradients,
    refine_nan,
    refine_no_loss,
    refine_oom,
    refine_ragged,
    refine_optimizer,
    refine_repo_not_found,
    refine_size_mismatch,
    refine_target,
    refine_tf_label,
    refine_unable_tensor,
    refine_unpack,
)
from wizard.triage.environment import ENV_SIGNATURES
from wizard.triage.signature import Refine, Signature, compile_pattern  # noqa: F401 (re-export)
from wizard.triage.signatures_attention import ATTENTION_SIGNATURES
from wizard.triage.signatures_code import CODE_SIGNATURES
from wizard.triage.signatures_data import DATA_SIGNATURES
from wizard.triage.signatures_devices import DEVICE_SIGNATURES
from wizard.triage.signatures_diffusion import DIFFUSION_SIGNATURES
from wizard.triage.signatures_export import EXPORT_SIGNATURES
from wizard.triage.signatures_frameworks import FRAMEWORK_SIGNATURES
from wizard.triage.signatures_hf import HF_SIGNATURES
from wizard.triage.signatures_hub_download import HUB_DOWNLOAD_SIGNATURES
from wizard.triage.signatures_hub_push import HUB_PUSH_SIGNATURES
from wizard.triage.signatures_inference import INFERENCE_SIGNATURES
from wizard.triage.signatures_keras import KERAS_SIGNATURES
from wizard.triage.signatures_media import MEDIA_SIGNATURES
from wizard.triage.signatures_media_inputs import MEDIA_INPUT_SIGNATURES
from wizard.triage.signatures_metrics import METRIC_SIGNATURES
from wizard.triage.signatures_onnx import ONNX_SIGNATURES
from wizard.triage.signatures_quantized import QUANTIZED_SIGNATURES
from wizard.triage.signatures_runs import RUN_SIGNATURES
from wizard.triage.signatures_serving import SERVING_SIGNATURES
from wizard.triage.signatures_setup import SETUP_SIGNATURES
from wizard.triage.signatures_tokenizer_errors import TOKENIZER_ERROR_SIGNATURES
from wizard.triage.signatures_tokenizers import TOKENIZER_SIGNATURES
from wizard.triage.signatures_torch import TORCH_SIGNATURES
from wizard.triage.signatures_usage import USAGE_SIGNATURES


SIGNATURES: list[Signature] = [
    Signature(
        "keras-no-gradients", r"No gradients provided for any variable",
        "The loss Keras minimises does not depend on the model's weights. With a transformers "
        "TF model this is the labels-inside-the-inputs fault: the model computes its own loss from "
        "the labels in the input dict while compile(loss=...) asks Keras for another loss that "
        "gets no labels. A custom loss or train_step that ignores the model output does the same.",
        "Keras found no gradient for any trainable variable, so the optimizer has nothing to "
        "apply. In the course (chapter 8) this is the first fault of the broken MNLI script.",
        ["data.labels-in-inputs-with-keras-loss", "model.initial-loss"],
        "model.compile(optimizer=Adam(learning_rate=5e-5))  # no loss=: the model's own loss\n"
        "# or: keep loss=... and pass the labels separately:\n"
        "# tf_ds = ds.to_tf_dataset(columns=['input_ids', 'attention_mask'], "
        "label_cols=['labels'], ...)",
        title="No gradients provided for any variable",
        evidence=(r"No gradients provided for any variable: \(?\[?'(?P<first_variable>[^']+)'",),
        framework="tensorflow", priority=12, refine=refine_no_gradients),
    Signature(
        "gradients-are-none",
        r"Gradients do not exist for variables [\s\S]{0,2000}?when minimizing the loss|"
        r"tape\.gradient\([^\n]*\)[\s\S]{0,600}?\[None(?:, None)+\]",
        "The loss does not depend on the variables as the tape recorded them.",
        "TensorFlow differentiates only the operations recorded inside the GradientTape block; "
        "a loss computed outside it, through NumPy or with non-differentiable ops has no path "
        "back to the weights, so their gradients are None.",
        ["model.initial-loss"],
        "with tf.GradientTape() as tape:\n    loss = loss_fn(y, model(x, training=True))",
        title="Gradients are None", framework="tensorflow", priority=11,
        refine=refine_gradients_none),
    Signature(
        "torch-target-out-of-bounds",
        r"Target (?P<target>-?\d+) (?:is )?out of bounds|cur_target >= 0 && cur_target < n_classes",
        "A label is outside 0..num_labels-1: the model has fewer outputs than the data has "
        "classes.",
        "PyTorch's cross-entropy indexes the logits with each label; a label >= num_labels (or "
        "negative, other than -100) has no logit to pick.",
        ["data.labels-out-of-range"],
        "model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=3)  "
        "# the number of classes in the data",
        title="Target N is out of bounds", framework="pytorch", priority=14,
        refine=refine_target),
    Signature(
        "tf-label-out-of-range",
        r"Received a label value of (?P<label>-?\d+) which is outside the valid range of "
        r"\[(?P<low>-?\d+), (?P<high>\d+)\)",
        "A label is outside 0..num_labels-1: the model has fewer outputs than the data has "
        "classes.",
        "Sparse categorical cross-entropy checks every label against the number of logits. On GPU "
        "or with XLA the same fault gives a NaN loss instead of this error.",
        ["data.labels-out-of-range"],
        "model = TFAutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=3)  "
        "# the number of classes in the data",
        title="Received a label value of N which is outside the valid range",
        evidence=(r"Label values: (?P<label_values>[-\d ]+)",), framework="tensorflow",
        priority=14, refine=refine_tf_label),
    Signature(
        "cuda-device-side-assert",
        r"device-side assert(?:ion)? triggered|cuda runtime error \((?:59|710)\)|"
        r"Assertion `(?:t >= 0 && t < n_classes|srcIndex < srcSelectDimSize)` failed",
        "A CUDA kernel's bounds check failed, most often a label >= num_labels in the loss, or a "
        "token id / position past the end of an embedding table. The Python line shown is often "
        "not where it happened: CUDA reports errors asynchronously.",
        "After a device-side assert the CUDA context is unusable; every later CUDA call fails "
        "too. Re-running the failing batch on CPU turns it into a readable Python error.",
        ["data.labels-out-of-range", "data.token-ids-out-of-vocab",
         "data.sequence-longer-than-positions", "model.cpu-rerun"],
        "# re-run the failing step on CPU to get a readable error\n"
        "model = model.cpu()\nbatch = {k: v.cpu() for k, v in batch.items()}\nmodel(**batch)\n"
        "# or: CUDA_LAUNCH_BLOCKING=1 python train.py",
        title="CUDA error: device-side assert triggered",
        evidence=(r"(?P<kernel_file>[\w./\\-]{1,200}\.cu):(?P<kernel_line>\d+): (?:void )?"
                  r"(?P<kernel>\w+)[^\n]*?Assertion `(?P<assertion>[^`'\n]+)[`'] failed",),
        framework="pytorch", priority=13, refine=refine_assert),
    Signature(
        "out-of-memory",
        r"CUDA out of memory|OutOfMemoryError|OOM when allocating tensor|ResourceExhaustedError|"
        r"Resource exhausted|RESOURCE_EXHAUSTED|CUDA_ERROR_OUT_OF_MEMORY|MPS backend out of memory|"
        r"DefaultCPUAllocator: (?:can't allocate|not enough) memory|CUDA (?:memory|OOM) (?:exception|error)|"
        r"out of (?:GPU|CUDA|device) memory|\bOOM (?:error|exception)s?\b|\bCUDA OOM\b|"
        # the reporter's words: "I get OOM", and in Chinese "报OOM", "显存不足" (GPU memory short)
        r"\b(?:got|get|getting|gets|hit|hitting|throws?|reports?|running into|ran into) (?:an? |"
        r"the )?OOM\b|报\s*OOM|OOM\s*了|显存(?:不足|不够|溢出|爆了)|爆显存|"
        r"CUDA error: out of memory|cuda runtime error \(2\) : out of memory|"
        r"ran out of memory trying to allocate|"
        # Apple silicon: Metal's command buffer (MLX, MPS) on unified memory
        r"\[METAL\] Command buffer execution failed: Insufficient Memory|"
        r"kIOGPUCommandBufferCallbackErrorOutOfMemory",
        "The model, its gradients and optimizer state and the activations of one batch do not fit "
        "in the device's memory (or another process holds part of it).",
        "Memory grows with parameters (weights + gradients + 2 Adam moments = 16 bytes per "
        "parameter in fp32) and with batch size x sequence length for activations. TensorFlow also "
        "grabs all GPU memory at start unless memory growth is on.",
        ["memory.will-not-fit", "memory.gpu-held-by-other-process", "memory.largest-batch"],
        "# halve the batch and keep the effective batch with accumulation\n"
        "args = TrainingArguments(..., per_device_train_batch_size=8,\n"
        "                         gradient_accumulation_steps=2,\n"
        "                         gradient_checkpointing=True, bf16=True)\n"
        "# TensorFlow: for gpu in tf.config.list_physical_devices('GPU'): "
        "tf.config.experimental.set_memory_growth(gpu, True)\n"
        "# see who holds the GPU: nvidia-smi",
        title="Out of memory",
        evidence=(r"Tried to allocate (?P<tried_to_allocate>[\d.]+ [KMGT]?i?B)",
                  r"(?P<total_capacity>[\d.]{1,12} [KMGT]iB) total capacity",
                  r"total capac?i?ty of (?P<total_capacity>[\d.]+ [KMGT]iB)",
                  r"(?:of which |; )(?P<free>[\d.]{1,12} (?:[KMGT]iB|bytes)) (?:is )?free",
                  r"(?P<allocated_by_pytorch>[\d.]{1,12} [KMGT]iB) (?:is allocated by PyTorch|"
                  r"already allocated)",
                  r"(?P<reserved_unallocated>[\d.]{1,12} [KMGT]iB) is reserved by PyTorch "
                  r"but unallocated",
                  r"GPU (?P<gpu>\d+)",
                  r"OOM when allocating tensor (?:with|of) shape ?\[(?P<tensor_shape>[\d, ]*)\] "
                  r"and type (?P<tensor_dtype>\w+)(?: on (?P<tf_device>\S+))?",
                  r"you tried to allocate (?P<cpu_bytes>\d+) bytes"),
        priority=13, refine=refine_oom),
    Signature(
        "unable-to-create-tensor",
        r"Unable to create tensor ?, you should probably activate (?:truncation and/or )?padding",
        "The examples of a batch have different lengths (no padding/truncation) or a column holds "
        "something that is not a list of ids (raw text, nested labels).",
        "return_tensors / a collator stacks the examples into one rectangular tensor; ragged "
        "lists or strings cannot be stacked.",
        ["data.ragged-batch", "data.raw-text-columns", "data.batch-structure"],
        "from transformers import DataCollatorWithPadding\n"
        "collator = DataCollatorWithPadding(tokenizer)  # pads each batch\n"
        "tokenized = dataset.map(lambda b: tokenizer(b['text'], truncation=True), batched=True,\n"
        "                        remove_columns=['text'])",
        title="Unable to create tensor: activate truncation and/or padding",
        evidence=(r"Perhaps your features \(`(?P<feature>[^`\n]+)` in this case\)",),
        priority=13, refine=refine_unable_tensor),
    Signature(
        "ragged-sequences",
        # the same with DataLoader workers (the batch stacked in shared memory)
        r"Trying to resize storage that is not resizable|"
        r"expected sequence of length (?P<expected>\d+) at dim (?P<dim>\d+) \(got (?P<got>\d+)\)|"
        # the default collate stacking examples of different lengths
        r"stack expects each tensor to be equal size, but got \[(?P<expected2>[\d, ]+)\] at "
        r"entry \d+ and \[(?P<got2>[\d, ]+)\] at entry \d+|"
        # TensorFlow: lists of different lengths to tf.constant / convert_to_tensor
        # NumPy: rows of different lengths (>= 1.24 an error, before it a warning)
        r"setting an array element with a sequence\. The requested array has an inhomogeneous "
        r"shape|Creating an ndarray from ragged nested sequences|"
        r"Can't convert non-rectangular Python sequence to Tensor|Cannot add tensor to the batch:"
        r" number of elements does not match|Cannot batch tensors with different shapes in "
        r"component \d+",
        "A list of sequences of different lengths was turned into a tensor without padding.",
        "torch.tensor needs every row to have the same length; tokenized examples differ in length "
        "until a collator pads them.",
        ["data.ragged-batch", "data.batch-structure"],
        "from transformers import DataCollatorWithPadding\n"
        "collator = DataCollatorWithPadding(tokenizer)\n"
        "# or: tokenizer(texts, padding=True, truncation=True, return_tensors='pt')",
        title="expected sequence of length X at dim 1 (got Y)", framework="pytorch", priority=11,
        refine=refine_ragged),
    Signature(
        "batch-size-mismatch",
        r"Expected input batch_size \((?P<input_batch>\d+)\) to match target batch_size "
        r"\((?P<target_batch>\d+)\)",
        "The logits and the labels disagree on the number of examples: token-level labels for a "
        "sequence-classification head, or the other way round.",
        "Cross-entropy pairs one prediction with one label; the ratio of the two numbers tells "
        "how many labels each example carries.",
        ["data.token-labels-for-sequence-head", "data.batch-structure"],
        "model = AutoModelForTokenClassification.from_pretrained(checkpoint, num_labels=num_labels)"
        "\n# (token labels) - or give one label per example for sequence classification",
        title="Expected input batch_size (X) to match target batch_size (Y)", framework="pytorch",
        priority=13, refine=refine_batch_mismatch),
    Signature(
        "logits-labels-first-dim",
        r"logits and labels must have the same first dimension, got logits shape "
        r"\[(?P<logits_rows>\d+),(?P<num_classes>\d+)\] and labels shape \[(?P<label_rows>\d+)\]",
        "The logits and the labels disagree on the number of examples (token-level labels for a "
        "sequence-classification head, or labels of another shape).",
        "Sparse cross-entropy pairs one row of logits with one label.",
        ["data.token-labels-for-sequence-head", "data.batch-structure"],
        "print(tf_dataset.element_spec)\n"
        "# labels must have shape (batch,) for sequence classification",
        title="logits and labels must have the same first dimension", framework="tensorflow",
        priority=12),
    Signature(
        "model-returned-no-loss",
        r"The model did not return a loss from the inputs(?:, only the following keys: "
        r"(?P<keys>[^.\n]*)\.(?: For reference, the inputs it received are (?P<inputs>[^.\n]*))?)?|"
        # the older Trainer's wording: its lookup of outputs["loss"] failed
        r"(?P<old>KeyError\W{1,3}'loss')",
        "The Trainer needs the model to compute the loss, and it did not: the labels did not reach "
        "the model, or the model class has no loss.",
        "Trainer passes the batch to model(**batch) and reads outputs.loss; the model returns a "
        "loss only when it gets `labels` and has a task head.",
        ["data.label-column-missing", "model.no-loss", "data.batch-structure"],
        "dataset = dataset.rename_column('label_column_name', 'labels')\n"
        "model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=n)\n"
        "# and keep TrainingArguments(remove_unused_columns=True) unless the columns are custom",
        title="The model did not return a loss from the inputs", framework="pytorch", priority=13,
        refine=refine_no_loss),
    Signature(
        "too-many-values-to-unpack",
        r"too many values to unpack \(expected (?P<expected>\d+)(?:, got (?P<got>\d+))?\)",
        "Often in fine-tuning code: iterating a dict batch (`for input_ids, labels in loader` "
        "walks the keys), unpacking a ModelOutput, or inputs with an extra dimension inside the "
        "model.",
        "Python unpacked an object with more items than names on the left; which object it is "
        "shows in the innermost frame's code line.",
        ["data.batch-structure"],
        "for batch in loader:\n    outputs = model(**batch)\n    loss, logits = outputs.loss, "
        "outputs.logits",
        title="too many values to unpack", priority=4, refine=refine_unpack),
    Signature(
        "no-pad-token",
        # DataCollatorForLanguageModeling in transformers 2.x
        r"You are attempting to pad samples but the tokenizer you are using \(\w+\) does not have one|"
        r"Asking to pad but the tokenizer does not have a padding token|Unable to set proper "
        r"padding strategy as the tokenizer does not have a padding token|Cannot handle batch "
        r"sizes > 1 if no padding token is defined|"
        r"attempting to pad samples but the tokenizer you are using \(\w+\) does not have a pad "
        r"token|Using pad_token, but it is not set yet|Padding token is not set|"
        r"Can't find a pad token in the tokenizer|"
        # a collator passing tokenizer.pad_token_id (None) as the padding value
        r"pad_sequence\(\): argument 'padding_value' \(position 3\)",
        "The tokenizer (GPT-2, LLaMA, Mistral style) has no pad token, so it cannot pad a batch.",
        "Decoder-only checkpoints ship without a pad token; padding needs one, and the model "
        "config needs its id for sequence classification.",
        ["data.no-pad-token"],
        "tokenizer.pad_token = tokenizer.eos_token\nmodel.config.pad_token_id = "
        "tokenizer.pad_token_id",
        title="Asking to pad but the tokenizer does not have a padding token", priority=14),
    Signature(
        "missing-input-ids",
        r"You have to specify either (?<!decoder_)input_ids or inputs_embeds|You must specify "
        r"exactly one of "
        r"input_ids or inputs_embeds|You should supply an encoding or a list of encodings to "
        r"this method that includes input_ids|(?m:^KeyError: '?input_ids'?$)|"
        r"The batch received was empty, your model won't be able to train on it",
        "The batch that reached the model has no `input_ids`: the columns were renamed or dropped, "
        "to_tf_dataset got other columns, or raw text was passed instead of token ids.",
        "Every transformers model needs input_ids (or inputs_embeds); it raises when neither "
        "arrives.",
        ["data.batch-structure"],
        "tokenized = dataset.map(lambda b: tokenizer(b['text'], truncation=True), batched=True)\n"
        "print(tokenized['train'].column_names)  # must include input_ids\n"
        "# Keras: ds.to_tf_dataset(columns=['input_ids', 'attention_mask'], label_cols=['labels'])",
        title="You have to specify either input_ids or inputs_embeds", priority=13),
    Signature(
        "head-size-mismatch",
        r"size mismatch for [\w.]+: copying a param with shape|\|\s*MISMATCH\s*\||You set "
        r"`ignore_mismatched_sizes` to `False`|"
        # torch < 1.0: load_state_dict's older words
        r"While copying the parameter named \"?[\w.]+\"?, whose dimensions in the model are "
        r"[^\n]{1,80}? and whose dimensions in the checkpoint are",
        "The checkpoint's weights have other shapes than the model you built, usually the "
        "classification head: num_labels differs from the checkpoint's.",
        "A fine-tuned checkpoint's head has one row per class it was trained on; a new num_labels "
        "needs a new head.",
        ["model.head-size-mismatch"],
        "model = AutoModelForSequenceClassification.from_pretrained(\n    checkpoint, "
        "num_labels=num_labels, ignore_mismatched_sizes=True)  # new head, to be trained",
        title="size mismatch for classifier.weight",
        evidence=(r"size mismatch for (?P<param>[\w.]+): copying a param with shape "
                  r"(?:torch\.Size\()?\[(?P<checkpoint_shape>[\d, ]*)\]\)? from checkpoint, "
                  r"the shape in current model is (?:torch\.Size\()?\[(?P<model_shape>[\d, ]*)\]",
                  r"(?P<param>[\w.]{1,200})\s*\|\s*MISMATCH\s*\|[^\n]*?ckpt: torch\.Size\(\["
                  r"(?P<checkpoint_shape>[\d, ]*)\]\) vs model: ?torch\.Size\(\[(?P<model_shape>"
                  r"[\d, ]*)\]\)",
                  r"Error\(s\) in loading state_dict for (?P<module>\w+)"),
        priority=13, refine=refine_size_mismatch),
    Signature(
        "sequence-longer-than-max",
        # Whisper's labels beyond its 448 decoder positions
        r"Labels' sequence length \d+ cannot exceed the maximum allowed length of \d+ tokens|"
        r"Token indices sequence length is longer than the specified maximum sequence length for "
        r"this model \((?P<length>\d+) > (?P<max_length>\d+)\)",
        "Texts are tokenized without truncation, so some are longer than the model accepts.",
        "Past max_position_embeddings the position lookup fails ('index out of range in self', or "
        "a device-side assert on GPU).",
        ["data.sequence-longer-than-positions"],
        "tokenizer(texts, truncation=True, max_length=tokenizer.model_max_length)",
        title="Token indices sequence length is longer than the specified maximum", priority=8),
    Signature(
        "index-out-of-range-in-self",
        r"index out of range in self|indices\[[\d,]+\] = (?P<index>\d+) is not in \[0, "
        r"(?P<table_size>\d+)\)|"
        # the same lookup in torch < 1.5: with the table size, or the TH kernel's location
        r"index out of range: Tried to access index (?P<token_id>\d+) out of table with "
        r"(?P<table_rows>\d+) rows|index out of range at [^\n]{0,120}?TH\w*/generic/\w+\.c",
        "An embedding lookup got an index past the end of its table: a token id >= the vocabulary "
        "size (tokens added without resize_token_embeddings, another checkpoint's tokenizer) or a "
        "sequence longer than the position embeddings (truncation off).",
        "torch.embedding raises this on CPU; on GPU the same fault is a device-side assert.",
        ["data.token-ids-out-of-vocab", "data.sequence-longer-than-positions"],
        "model.resize_token_embeddings(len(tokenizer))\n"
        "tokenizer(texts, truncation=True, max_length=model.config.max_position_embeddings)",
        title="index out of range in self", framework="pytorch", priority=13,
        refine=refine_index_error),
    Signature(
        "expanded-size-positions",
        r"The expanded size of the tensor \((?P<length>\d+)\) must match the existing size "
        r"\((?P<max_positions>\d+)\) at non-singleton dimension 1",
        "A sequence is longer than the model's position buffers (max_position_embeddings): "
        "truncation is off or max_length is larger than the model allows.",
        "BERT-style models expand a buffer of max_position_embeddings token types/positions to the "
        "sequence length; a longer sequence cannot be expanded.",
        ["data.sequence-longer-than-positions"],
        "tokenizer(texts, truncation=True, max_length=model.config.max_position_embeddings)",
        title="The expanded size of the tensor must match the existing size", framework="pytorch",
        priority=9, refine=refine_expanded),
    Signature(
        "tensor-size-mismatch-dim1",
        r"The size of tensor a \((?P<length>\d+)\) must match the size of tensor b "
        r"\((?P<max_positions>\d+)\) at non-singleton dimension 1\b",
        "Two tensors disagree on dimension 1, in a transformer usually the sequence length: a "
        "sequence longer than max_position_embeddings, or inputs and masks of different lengths.",
        "Element-wise operations need equal sizes; inside an embedding layer the second number is "
        "the model's maximum number of positions.",
        ["data.sequence-longer-than-positions", "data.batch-structure"],
        "tokenizer(texts, truncation=True, max_length=model.config.max_position_embeddings)",
        title="The size of tensor a must match the size of tensor b at dimension 1",
        framework="pytorch", priority=3, refine=refine_broadcast),
    Signature(
        "label-dtype-long-expected-float",
        r"Found dtype (?P<found>Long|Int|Short|Byte|Bool) but expected (?P<expected>Float|Double|"
        r"Half|BFloat16)|result type Float can't be cast to the desired output type "
        r"(?P<output_type>Long|Int)|Function (?:square|pow|mse\w*)_i64 was not found",
        "Integer labels reached a loss that needs floats: num_labels=1 (regression, MSE) or "
        "problem_type='multi_label_classification' (BCE) with integer class ids.",
        "transformers picks the loss from num_labels, problem_type and the labels' dtype: "
        "integer labels with one output mean regression, which needs float targets.",
        ["data.label-dtype-problem-type"],
        "# single-label classification: one output per class\n"
        "model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=2)\n"
        "# regression or multi-label: float labels\n"
        "dataset = dataset.map(lambda b: {'labels': [float(x) for x in b['label']]}, batched=True)",
        title="Found dtype Long but expected Float", framework="pytorch", priority=13),
    Signature(
        "keras-3-installed",
        r"Your currently installed version of Keras is Keras 3",
        "TensorFlow >= 2.16 brings Keras 3, which transformers' TF models do not support.",
        "transformers' TF classes are written for Keras 2; they need the tf-keras package and "
        "TF_USE_LEGACY_KERAS=1.",
        ["environment.keras-3"],
        'pip install "tf-keras~=2.16"  # the same minor version as tensorflow\n'
        "export TF_USE_LEGACY_KERAS=1   # before importing tensorflow",
        title="Your currently installed version of Keras is Keras 3", framework="tensorflow",
        priority=14),
    Signature(
        "keras-optimizer-identifier",
        r"Could not interpret optimizer identifier:? ?(?P<identifier>[^\n]*)",
        "A Keras 3 optimizer (`from tensorflow.keras.optimizers import Adam` or `keras.optimizers`"
        " on TF >= 2.16) was handed to a tf-keras model, which only accepts its own optimizers.",
        "With TF_USE_LEGACY_KERAS unset, tensorflow.keras is Keras 3 while transformers' models "
        "are tf-keras models; their compile() rejects the foreign object.",
        ["hyperparameters.keras3-optimizer"],
        "import os\nos.environ['TF_USE_LEGACY_KERAS'] = '1'  # before importing tensorflow\n"
        "from tf_keras.optimizers import Adam\nmodel.compile(optimizer=Adam(learning_rate=5e-5))",
        title="Could not interpret optimizer identifier", framework="tensorflow", priority=13,
        refine=refine_optimizer),
    Signature(
        "keras-shapes-incompatible",
        # TF 1.x/2.0
        r"logits and labels must be broadcastable: logits_size=\[(?P<logits3>\d+,\d+)\] labels_size=\[(?P<labels3>\d+,\d+)\]|A target array with shape \((?P<got3>[^()\n]*)\) was passed for an output of shape \((?P<expected3>[^()\n]*)\)|"
        r"Shapes \((?P<shape_a>[^()\n]*)\) and \((?P<shape_b>[^()\n]*)\) are incompatible|"
        r"Error when checking target: expected \w+ to have shape \((?P<expected>[^()\n]*)\) but got "
        r"array with shape \((?P<got>[^()\n]*)\)|`?logits`? and `?labels`? must have the same "
        r"shape,? (?:received )?\(\((?P<logits2>[^()\n]*)\) vs \((?P<labels2>[^()\n]*)\)\)?|"
        r"Incompatible shapes: \[\d+,\d+\] vs\. \[\d+\]|logits and labels must have the same shape "
        r"\(\((?P<logits>[^()\n]*)\) vs \((?P<labels>[^()\n]*)\)\)|Can not squeeze dim\[1\], "
        r"expected a dimension of 1, got \d+|"
        # Keras 3's words
        r"Arguments `target` and `output` must have the same (?:rank \(ndim\)|shape)",
        "Often: loss='categorical_crossentropy' (one-hot labels) with integer class ids, or a head "
        "with another number of outputs than the labels have.",
        "Categorical cross-entropy compares a one-hot label vector with the predictions, so both "
        "must have one column per class.",
        ["hyperparameters.hidden-defaults", "data.batch-structure"],
        "model.compile(optimizer=Adam(5e-5), "
        "loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))",
        evidence=(r"target\.shape=\((?P<target4>[^()\n]*)\), output\.shape=\((?P<output4>"
                  r"[^()\n]*)\)",),
        title="Shapes (...) and (...) are incompatible", framework="tensorflow", priority=6,
        refine=refine_keras_shapes),
    Signature(
        "metric-fed-logits",
        r"only (?:size-1|length-1|0-dimensional|one element) (?:arrays|tensors) can be converted "
        r"to Python scalars|Classification metrics can't handle a mix of (?P<y_true_kind>[\w-]+) "
        r"and (?P<y_pred_kind>[\w-]+) targets|"
        # sklearn's and evaluate's words for a 2-D array of scores where ids belong
        r"Expected a 1D array, got an array with shape \(\d+, ?\d+\)|Predictions and/or "
        r"references don't match the expected format",
        "The metric got the logits (one row of scores per example) where it expects one class id "
        "per example.",
        "Accuracy/F1 compare class ids; compute_metrics receives raw logits and must take the "
        "argmax first.",
        ["hyperparameters.metric-fed-logits"],
        "def compute_metrics(eval_pred):\n    logits, labels = eval_pred\n"
        "    predictions = np.argmax(logits, axis=-1)\n"
        "    return metric.compute(predictions=predictions, references=labels)",
        title="only size-1 arrays can be converted to Python scalars (metric fed logits)",
        priority=9, refine=refine_multilabel_scores),
    Signature(
        "devices-differ",
        r"Expected all tensors to be on the same device, but (?:found at least two devices, )?"
        r"(?P<device_a>[\w:]+) and (?P<device_b>[\w:]+)|"
        # torch >= 2.6 names the tensor: "but got mat1 is on cpu, different from other tensors
        # on cuda:0"
        r"Expected all tensors to be on the same device, but got \w+ is on (?P<device_a4>[\w:]+), "
        r"different from other tensors on (?P<device_b4>[\w:]+)|"
        # torch 1.0-1.8: "Expected object of backend CUDA but got backend CPU for argument #3",
        # "Tensor for argument #2 'mat1' is on CPU, but expected it to be on GPU"
        r"Expected object of backend (?P<device_a5>\w+) but got backend (?P<device_b5>\w+)|"
        r"Tensor for (?:argument #\d+ )?'\w+' is on (?P<device_a6>[\w:]+)(?: \(\d+\))?, but "
        r"expected (?:it|them) to be on (?P<device_b6>[\w:]+)|"
        # the wordings of torch < 1.8
        r"Expected object of device type (?P<device_a2>\w+) but got device type (?P<device_b2>\w+)|"
        r"expected device (?P<device_a3>[\w:]+) but got device (?P<device_b3>[\w:]+)|"
        r"Input, output and indices must be on the current device|"
        # a layer's input and weight on two devices (the input on the GPU, the weight not, or
        # the reverse), and Apple's MPS form of it
        r"Input type \((?:torch\.)?cuda\.\w+\) and weight type \((?:torch\.)?(?!cuda)\w+\)|"
        r"Input type \((?:torch\.)?(?!cuda)\w+\) and weight type \((?:torch\.)?cuda\.\w+\)|"
        r"Placeholder storage has not been allocated on MPS device",
        "The batch and the model are on different devices (e.g. inputs on CPU, model on cuda:0).",
        "Every tensor of one operation must live on one device; a plain loop has to move the "
        "batch.",
        ["environment.device"],
        "batch = {k: v.to(model.device) for k, v in batch.items()}",
        title="Expected all tensors to be on the same device", framework="pytorch", priority=12,
        refine=refine_devices),
    Signature(
        "nan-loss",
        r"Invalid loss, terminating training|returned nan values in its \d+\w* output|"
        r"\b\w*loss['\"]?\s*[:=]\s*nan\b|\btensor\(nan\b|\[nan(?:\.0)?(?:, nan(?:\.0)?)*\]|"
        # a NaN gradient norm in the Trainer's logs, or the reporter's words
        r"\bgrad_norm['\"]?\s*[:=]\s*nan\b|"
        r"\bloss(?:es)? (?:becomes?|became|goes|went|turns?|turned|is|are|was|were|keeps? "
        r"(?:coming back|coming out|showing up|being)|comes? back|shows? up) (?:to |as )?`?"
        r"(?:nan|NaN)\b|"
        # a reporter's Chinese: "loss为nan", "loss变成了nan"
        r"(?<![A-Za-z_])loss\s*(?:为|是|变成了?|变为|出现了?)\s*nan(?![A-Za-z])",
        "The loss became NaN: labels outside 0..num_labels-1 (TF on GPU/XLA), a learning rate far "
        "too high, fp16 overflow, or NaN/Inf in the inputs.",
        "NaN spreads through the weights within one step; the first samples with a NaN per-sample "
        "loss point at the cause.",
        ["model.nan-loss-samples", "data.labels-out-of-range",
         "hyperparameters.learning-rate-too-high", "curves.nan"],
        "loss = tf_keras.losses.sparse_categorical_crossentropy(labels, model(batch).logits, "
        "from_logits=True)\nprint(np.flatnonzero(np.isnan(loss)), labels.numpy()[np.isnan(loss)])",
        title="Loss is NaN", priority=5, refine=refine_nan),
    Signature(
        "hub-unreachable",
        r"(?:We )?couldn't connect to '?https?://huggingface\.co|OfflineModeIsEnabled|Couldn't reach "
        r"(?![^\n]*error 404)'?https?://|Max retries exceeded with url|"
        r"LocalEntryNotFoundError|outgoing traffic has been disabled|Cannot find the requested "
        r"files in the (?:disk )?cache|HTTPSConnectionPool\(host='(?:huggingface\.co|"
        r"cdn-lfs[\w.-]{0,40}|cas-bridge[\w.-]{0,40}|hf-mirror\.com)', port=443\): Read timed out|"
        # an SSL failure on the way to the Hub (a proxy or firewall in between)
        r"SSLError[^\n]{0,40}HTTPSConnectionPool\(host='huggingface\.co'",
        "The Hub could not be reached (offline, proxy, firewall) and the files are not in the "
        "cache.",
        "from_pretrained downloads into the cache on first use; offline it can only use what is "
        "cached or a local folder.",
        ["environment.hub-unreachable"],
        "# on a machine with access: model.save_pretrained('my-model'); "
        "tokenizer.save_pretrained('my-model')\n"
        "model = AutoModelForSequenceClassification.from_pretrained('./my-model')",
        title="We couldn't connect to huggingface.co", priority=8),
    Signature(
        "model-id-not-found",
        r"is not a local folder and is not a valid model identifier|RepositoryNotFoundError|"
        r"Repository Not Found for url|Dataset '[^'\n]{1,200}' doesn't exist on the Hub|"
        r"Couldn't find '[^'\n]{1,200}' on the Hugging Face Hub|Module '[^'\n]{1,200}' doesn't "
        r"exist on the Hugging Face Hub",
        "The model name is misspelt, the repository is private or gated (needs a token), or a "
        "local path does not exist.",
        "from_pretrained treats a string that is not an existing folder as a Hub id.",
        ["environment.model-not-found", "environment.hub-auth-required",
         "environment.gated-repo"],
        "from huggingface_hub import login\nlogin()  # for private or gated models\n"
        "# and check the id at https://huggingface.co/<id>",
        title="not a valid model identifier", priority=8, refine=refine_repo_not_found),
    Signature(
        "newly-initialized-head",
        r"Some weights of \w+ were not initialized from the model checkpoint|"
        # pytorch-pretrained-bert's INFO line
        r"Weights of \w+ not initialized from pretrained model|"
        # SetFit loading a Sentence Transformer that has no trained head
        r"model_head\.pkl not found[^\n]{0,80}?initiali[sz]ing classification head with random "
        r"weights",
        "Not an error: a new classification head is created for fine-tuning, as expected when "
        "loading a base checkpoint into a ...ForSequenceClassification model (or a Sentence "
        "Transformer into SetFit).",
        "The warning lists the head's weights; they are trained by fine-tuning. Look for the real "
        "error further down the output.",
        [],
        "",
        title="Some weights were not initialized (expected)", priority=0, benign=True),
]

SIGNATURES += (HF_SIGNATURES + USAGE_SIGNATURES + DEVICE_SIGNATURES + KERAS_SIGNATURES
               + TOKENIZER_SIGNATURES + DATA_SIGNATURES + CODE_SIGNATURES + RUN_SIGNATURES
               + MEDIA_SIGNATURES + EXPORT_SIGNATURES + SETUP_SIGNATURES + METRIC_SIGNATURES
               + INFERENCE_SIGNATURES + TOKENIZER_ERROR_SIGNATURES + TORCH_SIGNATURES
               + HUB_PUSH_SIGNATURES + DIFFUSION_SIGNATURES + FRAMEWORK_SIGNATURES
               + QUANTIZED_SIGNATURES + ONNX_SIGNATURES + ATTENTION_SIGNATURES
               + MEDIA_INPUT_SIGNATURES + HUB_DOWNLOAD_SIGNATURES + SERVING_SIGNATURES
               + ENV_SIGNATURES)

_BY_ID = {s.id: s for s in SIGNATURES}


def find_signature(sig_id: str) -> Signature | None:
    """The signature with this id, or None."""
    return _BY_ID.get(sig_id)


def unknown_probe_ids() -> list[str]:
    """Probe ids the signatures name that are not (yet) in the catalogue."""
    return sorted({p for s in SIGNATURES for p in s.probes if p not in CHECKS})
