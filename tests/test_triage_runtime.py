"""Common runtime errors of fine-tuning: labels of the wrong rank or integer width, raw values at
the default collate, sampling from inf/NaN, a process killed for RAM, NCCL failures, disk
offload, unsupported attention kernels, files that are not UTF-8, tokenizer converters, split
words for byte-level BPE, an uncompiled Keras model. Each with the paste it answers (as a real
traceback reads) and a control it must leave alone."""
from __future__ import annotations

import pytest

from wizard.core.catalogue import CHECKS
from wizard.triage.match import triage
from wizard.triage.signatures import SIGNATURES

_LOSS = ('Traceback (most recent call last):\n  File "train.py", line 41, in <module>\n'
         "    loss = criterion(logits, labels)\n"
         '  File "/usr/lib/python3.10/site-packages/torch/nn/modules/loss.py", line 1174, in '
         "forward\n    return F.cross_entropy(input, target, weight=self.weight,\n"
         '  File "/usr/lib/python3.10/site-packages/torch/nn/functional.py", line 3029, in '
         "cross_entropy\n    return torch._C._nn.cross_entropy_loss(input, target, weight)\n")


@pytest.mark.parametrize("paste, expected", [
    (_LOSS + "RuntimeError: 0D or 1D target tensor expected, multi-target not supported",
     "labels-with-extra-dimension"),
    (_LOSS + "RuntimeError: \"nll_loss_forward_reduce_cuda_kernel_2d_index\" not implemented "
             "for 'Int'", "label-dtype-int-expected-long"),
    ("RuntimeError: Expected object of type Variable[torch.LongTensor] but found type "
     "Variable[torch.IntTensor] for argument #1 'target'", "label-dtype-int-expected-long"),
    ("tokenizer.add_special_tokens({'pad_token': '<pad>'})\nValueError: Adding unknown special "
     "tokens is not supported", "tokenizer-cannot-add-new-special-tokens"),
    ("python run_squad.py --train_file train-v2.0.json\nValueError: For training, each question "
     "should have exactly 1 answer.", "squad-v2-flag-missing"),
    ("TypeError: default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
     "lists; found <class 'str'>", "text-column-reaches-collate"),
    ("  File \"gen.py\", line 9, in <module>\n    out = model.generate(**inputs, do_sample=True)"
     "\nRuntimeError: probability tensor contains either `inf`, `nan` or element < 0",
     "sampling-from-non-finite-logits"),
    ("Loading checkpoint shards:  67%|██████▋   | 2/3 [00:41<00:20, 20.6s/it]\nKilled",
     "host-memory-exhausted"),
    ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n===\ntrain.py FAILED\n"
     "  exitcode  : -9 (pid: 5217)\n  error_file: <N/A>\n  traceback : Signal 9 (SIGKILL) "
     "received by PID 5217", "host-memory-exhausted"),
    ("[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=5, OpType=BROADCAST, Timeout(ms)=1800000) ran for 1800650 milliseconds "
     "before timing out.", "nccl-collective-timeout"),
    ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
     "ProcessGroupNCCL.cpp:1691, unhandled system error (run with NCCL_DEBUG=INFO for details), "
     "NCCL version 2.19.3", "nccl-system-error"),
    ("ValueError: The current `device_map` had weights offloaded to the disk. Please provide an "
     "`offload_folder` for them. Alternatively, make sure you have `safetensors` installed if "
     "the model you are using offers the weights in this format.",
     "model-offloaded-without-folder"),
    ("ValueError: GPT2Model does not support an attention implementation through "
     "torch.nn.functional.scaled_dot_product_attention yet.",
     "attention-implementation-unsupported"),
    ("ValueError: Couldn't instantiate the backend tokenizer from one of: \n(1) a `tokenizers` "
     "library serialization file, \n(2) a slow tokenizer instance to convert or \n(3) an "
     "equivalent slow tokenizer class to instantiate and convert. \nYou need to have "
     "sentencepiece installed to convert a slow tokenizer to a fast one.",
     "env-missing-package"),
    ("ValueError: Converting from Tiktoken failed, if a converter for SentencePiece is "
     "available, provide a model path with a SentencePiece tokenizer.model file.",
     "env-missing-package"),
    ("ValueError: You need to instantiate RobertaTokenizerFast with add_prefix_space=True to use "
     "it with pretokenized inputs.", "add-prefix-space-for-pretokenized"),
    ("  File \"train.py\", line 30, in <module>\n    model.fit(train_ds, epochs=3)\n"
     "RuntimeError: You must call `compile()` before using the model.",
     "keras-model-not-compiled"),
    ("ValueError: args.max_steps must be set to a positive value if dataloader does not have a "
     "length, was -1", "iterable-dataset-without-length"),
    ("TypeError: object of type 'IterableDataset' has no len()",
     "iterable-dataset-without-length"),
    ("_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so "
     "you have two options, do those steps only if you trust the source of the checkpoint.",
     "env-version-too-new"),
    ("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nRuntimeError: Cannot "
     "find a working triton installation.", "env-missing-package"),
    ("ValueError: Unable to infer channel dimension format", "image-channels-unknown"),
    ("ValueError: The model corresponding to this feature extractor: WhisperFeatureExtractor was "
     "trained using a sampling rate of 16000. Please make sure that the provided `raw_speech` "
     "input was sampled with 16000 and not 44100.", "audio-sampling-rate-mismatch"),
    ("ValueError: The `formatting_func` should return a list of processed strings since it can "
     "lead to silent bugs.", "formatting-func-returns-string"),
    ("huggingface_hub.errors.HfHubHTTPError: 429 Client Error: Too Many Requests for url: "
     "https://huggingface.co/api/datasets/x/tree/main", "hub-rate-limited"),
    ("ValueError: `temperature` (=0.0) has to be a strictly positive float, otherwise your next "
     "token scores will be invalid.", "generation-temperature-zero"),
    ("My outputs are cut off after a few words:\nUserWarning: Using the model-agnostic default "
     "`max_length` (=20) to control the generation length.", "generate-default-max-length"),
    ("UserWarning: \"`sparse_categorical_crossentropy` received `from_logits=True`, but the "
     "`output` argument was produced by a Softmax activation and thus does not represent "
     "logits. Was this intended?", "softmax-output-with-from-logits"),
    ("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
     "Your Tesla T4 GPU has compute capability 7.5.", "bf16-unsupported-gpu"),
    ("NotImplementedError: Cannot convert a symbolic tf.Tensor (args_0:0) to a numpy array. "
     "This error may indicate that you're trying to pass a Tensor to a NumPy call",
     "numpy-call-on-symbolic-tensor"),
    ("W tensorflow/core/common_runtime/gpu/gpu_device.cc:2256] Cannot dlopen some GPU "
     "libraries. Please make sure the missing libraries mentioned above are installed properly",
     "env-missing-package"),
    ("ValueError: Expected input data to be non-empty.", "empty-dataset"),
    ("ValueError: Class label 5 greater than configured num_classes 2",
     "classlabel-out-of-range"),
    ("RuntimeError: One of the subprocesses has abruptly died during map operation.To debug the "
     "error, disable multiprocessing.", "map-worker-died"),
    ("  File \"prep.py\", line 20, in <module>\n    ds = ds.map(tok, num_proc=8)\n"
     "TypeError: cannot pickle '_thread.RLock' object", "map-function-not-picklable"),
    ("huggingface_hub.errors.RevisionNotFoundError: 404 Client Error. Revision Not Found for "
     "url: https://huggingface.co/api/models/gpt2/revision/v2.", "hub-revision-not-found"),
    ("ValueError: Tried to use `fp16` but it is not supported on cpu", "precision-needs-cuda"),
    ("AssertionError: Check batch related parameters. train_batch_size is not equal to "
     "micro_batch_per_gpu * gradient_acc_step * world_size 16 != 4 * 1 * 2",
     "deepspeed-batch-size-mismatch"),
    ("ValueError: Could not find the transformer layer class to wrap in the model.",
     "fsdp-wrap-class-not-found"),
    ("ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough "
     "GPU RAM to fit the quantized model.", "quantized-model-does-not-fit"),
    ("ValueError: Make sure to set the decoder_start_token_id attribute of the model's "
     "configuration.", "decoder-start-token-missing"),
    ("  File \"train.py\", line 52, in compute_metrics\n    decoded = tokenizer.batch_decode("
     "preds, skip_special_tokens=True)\nTypeError: argument 'ids': 'list' object cannot be "
     "interpreted as an integer", "decode-logits-not-ids"),
    ("wandb.errors.UsageError: api_key not configured (no-tty). call wandb.login(key=[your_api_"
     "key])", "env-setup-step-skipped"),
    ("  File \"train.py\", line 31, in compute_metrics\n    preds = logits.argmax(-1)\n"
     "AttributeError: 'tuple' object has no attribute 'argmax'", "model-output-misread"),
    ("ImportError: To be able to use evaluate-metric/seqeval, you need to install the following "
     "dependencies['seqeval'] using 'pip install seqeval' for instance'", "env-missing-package"),
    ("ValueError: Using `low_cpu_mem_usage=True` or a `device_map` requires Accelerate: `pip "
     "install 'accelerate>=0.26.0'`", "env-missing-package"),
    ("UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with "
     "the current PyTorch installation.", "env-binary-incompatible"),
    ("ValueError: decay is deprecated in the new Keras optimizer, please check the docstring "
     "for valid arguments, or use the legacy optimizer, e.g., tf.keras.optimizers.legacy.Adam.",
     "env-version-too-new"),
    ("ValueError: Fast download using 'hf_transfer' is enabled (HF_HUB_ENABLE_HF_TRANSFER=1) but "
     "'hf_transfer' package is not available in your environment.", "env-missing-package"),
    ("ValueError: You are trying to restore a checkpoint from a legacy Keras optimizer into a "
     "v2.11+ Optimizer, which can cause errors. Please update the optimizer referenced in your "
     "code to be an instance of `tf.keras.optimizers.legacy.Optimizer`", "env-version-too-new"),
    ("TypeError: compute_loss() got an unexpected keyword argument 'num_items_in_batch'",
     "env-version-too-new"),
    ("ValueError: Input None is not valid. Should be a string, a list/tuple of strings or a "
     "list/tuple of integers.", "tokenizer-input-not-text"),
    ("Exception: Truncation error: Sequence to truncate too short to respect the provided "
     "max_length", "truncation-stride-too-large"),
    ("RuntimeError: view size is not compatible with input tensor's size and stride (at least "
     "one dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
     "view-on-non-contiguous"),
    ("RuntimeError: a Tensor with 2 elements cannot be converted to Scalar",
     "item-on-non-scalar"),
    ("TypeError: PeftModelForCausalLM.generate() takes 1 positional argument but 2 were given",
     "peft-generate-positional-args"),
    ("ValueError: Trying to create optimizer slot variable under the scope for "
     "tf.distribute.Strategy (<OneDeviceStrategy object at 0x7f>), which is different from the "
     "scope used for the original variable", "tf-strategy-scope-mismatch"),
    ("RuntimeError: Default process group has not been initialized, please make sure to call "
     "init_process_group.", "distributed-not-launched"),
    ("RuntimeError: The server socket has failed to listen on any local network address. The "
     "server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).",
     "distributed-port-in-use"),
    ("RuntimeError: CUDA error: an illegal memory access was encountered\nCUDA kernel errors "
     "might be asynchronously reported at some other API call", "cuda-error-asynchronous"),
    ("RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable",
     "gpu-unusable"),
    ("ValueError: The model's max seq len (32768) is larger than the maximum number of tokens "
     "that can be stored in KV cache (20000).", "vllm-kv-cache-too-small"),
    ("My Gemma 2 LoRA loss is NaN.\nUserWarning: It is strongly recommended to train Gemma2 "
     "models with the `eager` attention implementation instead of `sdpa`.",
     "gemma2-needs-eager-attention"),
    ("ValueError: Some keys are not used by the HfArgumentParser: ['lora_r']",
     "hf-argparser-unused-args"),
    ("OSError: Error no file named model.safetensors, or model.safetensors.index.json and thus "
     "cannot be loaded with `safetensors`. Please make sure that the model has been saved with "
     "`safe_serialization=True` or do not set `use_safetensors=True`.",
     "model-dir-missing-weights"),
    ("ValueError: At most one of fp16 and bf16 can be True, but not both",
     "fp16-and-bf16-both"),
    ("ValueError: Expected a string path to an existing deepspeed config, or a dictionary, or a "
     "base64 encoded string. Received: ds_config.json", "local-file-missing"),
    ("PermissionError: [Errno 13] Permission denied: '/root/.cache/huggingface/datasets/"
     "downloads'", "cache-dir-not-writable"),
    ("ValueError: Couldn't infer the same data file format for all splits. Got {NamedSplit('train'"
     "): ('json', {}), NamedSplit('validation'): ('csv', {})}", "data-files-mixed-formats"),
    ("pyarrow.lib.ArrowInvalid: offset overflow while concatenating arrays",
     "arrow-offset-overflow"),
    ("TypeError: Couldn't cast array of type\nstruct<role: string, content: string>\nto\nnull",
     "arrow-mixed-column-types"),
    ("ValueError: Columns ['text'] not in the dataset. Current columns in the dataset: "
     "['input_ids', 'attention_mask', 'label']", "column-not-in-dataset"),
    ("ImportError: Loading a GPTQ quantized model requires optimum (`pip install optimum`) and "
     "auto-gptq library (`pip install auto-gptq`)", "env-missing-package"),
    ("ValueError: Fast download using 'hf_transfer' is enabled (HF_HUB_ENABLE_HF_TRANSFER=1) but "
     "'hf_transfer' package is not available in your environment. Try `pip install hf_transfer`.",
     "env-missing-package"),
    ("TypeError: LlamaForCausalLM.gradient_checkpointing_enable() got an unexpected keyword "
     "argument 'gradient_checkpointing_kwargs'", "env-version-too-old"),
    ("AttributeError: 'DynamicCache' object has no attribute 'get_max_length'",
     "env-version-too-new"),
    ("WARNING:tensorflow:Your input ran out of data; interrupting training. Make sure that your "
     "dataset or generator can generate at least `steps_per_epoch * epochs` batches",
     "keras-input-ran-out-of-data"),
    ("WARNING:tensorflow:Early stopping conditioned on metric `val_loss` which is not available. "
     "Available metrics are: loss,accuracy", "keras-monitor-metric-missing"),
    ("ValueError: Unable to synchronously create dataset (name already exists)",
     "keras-h5-duplicate-names"),
    ("Epoch 3/3\n500/500 [==============================] - 91s 182ms/step - loss: 0.6931 - "
     "accuracy: 0.5012 - val_loss: 0.6931 - val_accuracy: 0.5000", "loss-stuck-at-chance"),
    ("ds fp16.enabled=True vs hf fp16|fp16_full_eval+fp16_backend(amp)=False",
     "deepspeed-config-mismatch-training-args"),
    ("- ds train_micro_batch_size_per_gpu=4 vs hf per_device_train_batch_size=8",
     "deepspeed-config-mismatch-training-args"),
    ("AttributeError: 'str' object has no attribute 'item'", "env-version-too-new"),
    # NumPy's ABI message as printed: wrapped before "NumPy 2"
    ("A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.0 as it may crash.",
     "env-binary-incompatible"),
    ("ValueError: Video features and video tokens do not match: tokens: 1035, features 1152",
     "vlm-image-tokens-truncated"),
    ("I'm getting a memory error trying to run predictions: `RuntimeError: Caught RuntimeError "
     "in pin memory thread for device 0.`", "pin-memory-thread-error"),
    ('  File "temp.py", line 5, in <module>\n    tokenizer = AutoTokenizer.from_pretrained('
     '"vinai/bertweet-base")\n  File "/env/lib/python3.8/site-packages/transformers/models/auto/'
     'tokenization_auto.py", line 275, in tokenizer_class_from_name\n    if c.__name__ == '
     "class_name:\nAttributeError: 'NoneType' object has no attribute '__name__'",
     "fast-tokenizer-class-unavailable"),
])
def test_a_common_runtime_error_names_its_cause(paste: str, expected: str) -> None:
    assert triage(paste).cause_id == expected


_NCCL = ("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
         "NCCLUtils.hpp:268, unhandled system error (run with NCCL_DEBUG=INFO for details), "
         "NCCL version 2.21.5\nncclSystemError: System call (e.g. socket, malloc) or external "
         "library call failed or device error.\nLast error:\n")


@pytest.mark.parametrize("lines, expected", [
    ("Error while creating shared memory segment /dev/shm/nccl-1YsMbG (size 7340384)",
     "docker-shm-too-small"),
    ("node08:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission "
     "denied\nnode08:27106:27302 [0] include/shm.h:48 NCCL WARN Error while creating shared "
     "memory segment nccl-shm-recv-b7948f403864987a-0-3-0 (size 4460544)",
     "shm-permission-denied"),
    ("", "nccl-system-error"),        # no line of NCCL's own: the setup failed, which step unsaid
])
def test_nccls_own_lines_name_the_setup_step_that_failed(lines: str, expected: str) -> None:
    t = triage(_NCCL + lines)
    assert t.cause_id == "nccl-system-error" and t.primary.signature.id == expected


@pytest.mark.parametrize("paste, expected", [
    ("Training with multiple 4090 gpus always gets stuck and no report is shown; with 3090 "
     "everything is fine.", "nccl-p2p-unsupported"),
    ("The model freezes when using 4 or more GPUs with torchrun; with NCCL_P2P_DISABLE=1 it "
     "works. What problems can that cause?", "nccl-p2p-unsupported"),
    # a hang without the GPUs P2P fails on (every rank must call save_state), a 4090 that does
    # not hang, and one GPU
    ("With DeepSpeed, accelerator.save_state() hangs when only the main process calls it.",
     None),
    ("Training on 2x RTX 4090 with torchrun: the loss is NaN after 100 steps.", None),
    ("My RTX 4090 gets stuck at 100% utilisation when generating.", None),
])
def test_a_multi_gpu_hang_is_p2p_only_where_the_paste_points_there(paste: str,
                                                                     expected: str | None) -> None:
    got = triage(paste).cause_id
    assert got == expected if expected else got != "nccl-p2p-unsupported"


def test_a_port_in_use_beside_nccls_error_is_the_port() -> None:
    t = triage("What is the reason of 'RuntimeError: Address already in use', 'RuntimeError: "
               "NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:784, unhandled "
               "system error, NCCL version 2.7.8'")
    assert t.cause_id == "distributed-port-in-use"


@pytest.mark.parametrize("paste", [
    # cross-entropy with long labels of the right rank, and nll_loss on floats (another cause)
    _LOSS + "RuntimeError: expected scalar type Long but found Float",
    "TypeError: default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
    "lists; found <class 'torch.device'>",
    "Epoch 1: loss is inf, skipping step",
    # "Killed" inside a sentence, and a process that exited with another code
    "The job was Killed by the scheduler after 2 hours of queueing, any idea?",
    "exitcode  : 1 (pid: 5217)",
    "NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>",
    "You must call `compile()` on the optimizer",
    # the same AttributeError in the user's own code, far from AutoTokenizer
    '  File "train.py", line 9, in log\n    print(fn.__name__)\nAttributeError: \'NoneType\' '
    "object has no attribute '__name__'",
])
def test_the_same_words_in_another_error_are_left_alone(paste: str) -> None:
    ids = {m.signature.id for m in triage(paste).matches}
    assert not ids & {"labels-with-extra-dimension", "label-dtype-int-expected-long",
                      "text-column-reaches-collate", "sampling-from-non-finite-logits",
                      "host-memory-exhausted", "nccl-collective-timeout", "nccl-system-error",
                      "keras-model-not-compiled", "fast-tokenizer-class-unavailable"}


def test_too_many_indices_reads_who_indexed() -> None:
    inside = ("  File \"run.py\", line 12, in <module>\n    out = model(input_ids)\n"
              '  File "/opt/conda/lib/python3.10/site-packages/transformers/models/bert/'
              'modeling_bert.py", line 958, in forward\n'
              "    batch_size, seq_length = input_shape\n"
              "IndexError: too many indices for tensor of dimension 1")
    t = triage(inside)
    assert t.cause_id == "missing-batch-dimension" and "unsqueeze(0)" in t.primary.fix
    mine = ("  File \"metrics.py\", line 7, in compute_metrics\n    preds = logits[:, 1]\n"
            "IndexError: too many indices for tensor of dimension 1")
    assert triage(mine).cause_id == "too-many-indices"


def test_a_file_that_is_not_utf8_is_read_by_what_reads_it() -> None:
    data = ("  File \"prep.py\", line 4, in <module>\n    ds = load_dataset('csv', "
            "data_files='reviews.csv')\nUnicodeDecodeError: 'utf-8' codec can't decode byte "
            "0xe9 in position 1021: invalid continuation byte")
    assert "encoding='latin-1'" in triage(data).primary.fix
    weights = ("  File \"load.py\", line 3, in <module>\n    tok = AutoTokenizer.from_pretrained("
               "'out/pytorch_model.bin')\nUnicodeDecodeError: 'utf-8' codec can't decode byte "
               "0x80 in position 64: invalid start byte")
    t = triage(weights)
    assert t.cause_id == "file-not-utf8" and "the folder" in t.primary.fix
    # a UTF-8 file read with Windows' code page: the default encoding, not the file
    windows = ("    data = json.load(open(path))\nUnicodeDecodeError: 'charmap' codec can't decode "
               "byte 0x8d in position 238339: character maps to <undefined>")
    t = triage(windows)
    assert t.cause_id == "default-encoding-not-utf8" and 'encoding=\"utf-8\"' in t.primary.fix


def test_warnings_that_are_no_error_give_way_to_the_error() -> None:
    warning = ("`use_cache=True` is incompatible with gradient checkpointing. Setting "
               "`use_cache=False`.\n")
    alone = triage(warning)
    assert alone.cause_id == "use-cache-with-checkpointing-warning"
    assert alone.primary.signature.benign
    with_error = triage(warning + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
                        "2.00 GiB")
    assert with_error.cause_id == "out-of-memory"
    # the default-length warning explains short outputs, never a real error beside it
    short = ("UserWarning: Using the model-agnostic default `max_length` (=20) to control the "
             "generation length.\nIndexError: index out of range in self")
    assert triage(short).cause_id != "generate-default-max-length"


def test_numpy_on_a_symbolic_tensor_reads_the_release_from_the_wording() -> None:
    # TensorFlow <= 2.4 said "symbolic Tensor": its RNN layers and NumPy >= 1.20 disagree
    old = triage("  File \"model.py\", line 8, in build\n    x = LSTM(64)(emb)\n"
                 "NotImplementedError: Cannot convert a symbolic Tensor (lstm/strided_slice:0) "
                 "to a numpy array.")
    assert old.cause_id == "env-version-too-new" and "numpy<1.20" in old.primary.fix
    new = triage("NotImplementedError: Cannot convert a symbolic tf.Tensor (args_0:0) to a numpy "
                 "array.")
    assert new.cause_id == "numpy-call-on-symbolic-tensor" and "py_function" in new.primary.fix


def test_a_warning_pasted_alone_is_read_as_the_warning_it_is() -> None:
    alone = triage("UserWarning: Was asked to gather along dimension 0, but all input tensors "
                   "were scalars; will instead unsqueeze and return a vector.")
    assert alone.cause_id == "dataparallel-gather-scalars-warning"
    info = triage("The following columns in the training set don't have a corresponding "
                  "argument in `BertForSequenceClassification.forward` and have been ignored: "
                  "text.\nRuntimeError: CUDA error: device-side assert triggered")
    assert info.cause_id == "cuda-device-side-assert"


def test_a_hook_argument_a_release_added_is_read_as_the_override_lagging() -> None:
    t = triage("TypeError: compute_loss() got an unexpected keyword argument "
               "'num_items_in_batch'")
    assert "your override compute_loss()" in t.primary.cause
    assert "num_items_in_batch=None" in t.primary.fix
    # Keras' call() with an argument of no release is not read as a Trainer override
    keras = triage("TypeError: call() got an unexpected keyword argument 'training'")
    assert keras.cause_id != "env-version-too-new"


def test_informational_messages_are_not_the_error() -> None:
    info = ("The new embeddings will be initialized from a multivariate normal distribution "
            "that has old embeddings' mean and covariance.\n")
    assert triage(info).primary.signature.benign
    assert triage(info + "RuntimeError: CUDA error: device-side assert triggered"
                  ).cause_id == "cuda-device-side-assert"


def test_a_loss_at_chance_level_only_when_it_stays_there() -> None:
    three = "{'loss': 1.0986, 'epoch': 1.0}\n{'loss': 1.0985, 'epoch': 2.0}\n{'loss': 1.0987}"
    t = triage(three)
    assert t.cause_id == "loss-stuck-at-chance" and t.primary.evidence["classes"] == 3
    # a run that starts at ln(2) and learns, and one loss value alone, are no finding
    learning = "{'loss': 0.6931}\n{'loss': 0.5120}\n{'loss': 0.3011}\n{'loss': 0.2105}"
    assert "loss-stuck-at-chance" not in {m.signature.id for m in triage(learning).matches}
    assert "loss-stuck-at-chance" not in {m.signature.id for m in triage("loss: 0.6931").matches}


def test_a_real_argument_of_a_newer_release_is_no_misspelling() -> None:
    t = triage("TypeError: LlamaForCausalLM.gradient_checkpointing_enable() got an unexpected "
               "keyword argument 'gradient_checkpointing_kwargs'")
    assert t.cause_id != "misspelt-argument"
    assert triage("TypeError: TrainingArguments.__init__() got an unexpected keyword argument "
                  "'learning_rte'").cause_id == "misspelt-argument"


def test_a_well_known_repository_that_cannot_be_loaded_was_not_reached() -> None:
    msg = ("OSError: Can't load tokenizer for '{0}'. If you were trying to load it from "
           "'https://huggingface.co/models', make sure you don't have a local directory with the "
           "same name. Otherwise, make sure '{0}' is the correct path to a directory containing "
           "all relevant files for a BertTokenizer tokenizer.")
    for public in ("bert-base-uncased", "openai/clip-vit-large-patch14"):
        t = triage(msg.format(public))
        assert t.cause_id == "hub-unreachable" and "HF_ENDPOINT" in t.primary.fix
    gated = triage(msg.format("meta-llama/Llama-2-7b-hf"))
    assert gated.cause_id == "hub-unreachable" and "hf auth login" in gated.primary.fix
    assert "hf auth login" not in triage(msg.format("bert-base-uncased")).primary.fix
    # an id of nobody we know may be misspelt or private; a path is a local folder
    assert triage(msg.format("someone/my-modle")).cause_id == "model-id-not-found"
    assert triage(msg.format("./out/checkpoint-500")).cause_id == "local-file-missing"
    # the older wording of the same error
    old = ("OSError: Can't load config for 'xlnet-base-cased'. Make sure that:\n\n"
           "- 'xlnet-base-cased' is a correct model identifier listed on "
           "'https://huggingface.co/models'\n")
    assert triage(old).cause_id == "hub-unreachable"


def test_old_releases_and_mismatched_pairs_read_from_their_words() -> None:
    lm = triage("TypeError: forward() got an unexpected keyword argument 'lm_labels'")
    assert lm.cause_id == "env-version-too-new" and "labels=" in lm.primary.fix
    keras = triage("AlreadyExistsError: Another metric with the same name already exists.")
    assert keras.cause_id == "env-version-too-new" and "keras==" in keras.primary.fix
    # a model type the release lacks, pasted inside a markdown backtick
    gptj = triage("    config_class = CONFIG_MAPPING[config_dict['model_type']]\n"
                  "KeyError: 'gptj'`")
    assert gptj.cause_id == "env-version-too-old"


def test_a_404_is_a_missing_file_only_when_one_file_was_asked_for() -> None:
    file404 = ("data_files = hf_hub_url(repo_id='lewtun/github-issues', filename='issues.jsonl', "
               "repo_type='dataset')\nHTTPError: 404 Client Error: Not Found for url: "
               "https://huggingface.co/datasets/lewtun/github-issues/resolve/main/issues.jsonl")
    assert triage(file404).cause_id == "hub-file-not-in-repo"
    repo404 = "HTTPError: 404 Client Error: Not Found for url: https://example.org/api/x"
    assert triage(repo404).cause_id != "hub-file-not-in-repo"


def test_mixed_dtypes_under_a_plain_python_run_on_several_gpus() -> None:
    err = ('  File "peft/tuners/lora.py", line 902, in forward\n    result = F.linear(x, '
           "self.weight)\nRuntimeError: expected scalar type Float but found Half\n")
    plain = triage(err + "CUDA_VISIBLE_DEVICES=0,1,2,3 python src/train_bash.py --fp16")
    assert plain.cause_id == "multi-gpu-without-distributed-launcher"
    # with a launcher, or with no command shown, it stays the dtype question
    assert triage(err + "CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node 2 train.py"
                  ).cause_id == "mixed-dtypes"
    assert triage(err + "multi-GPU LoRA training").cause_id == "mixed-dtypes"


def test_pad_sequence_given_a_none_pad_id() -> None:
    t = triage("TypeError: pad_sequence(): argument 'padding_value' (position 3) must be float, "
               "not NoneType")
    assert t.cause_id == "no-pad-token"


def test_a_class_of_another_project_is_not_dated_by_a_library_of_the_same_class_name() -> None:
    error = "AttributeError: 'CrossEncoder' object has no attribute 'gradient_checkpointing_enable'"
    library = triage(error + "\nfrom sentence_transformers import CrossEncoder")
    assert "sentence-transformers 5.0" in library.primary.cause
    project = triage(error + "\ntorchrun --nproc_per_node 1 -m FlagEmbedding.reranker.run "
                     "--gradient_checkpointing")
    assert "sentence-transformers" not in project.primary.cause
    # the class imported from another package: not transformers' class of that name
    error = "AttributeError: 'WhisperModel' object has no attribute 'push_to_hub'"
    ours = triage("from transformers import WhisperModel\n" + error)
    assert ours.cause_id == "env-version-too-old" and "transformers" in ours.primary.fix
    theirs = triage("from faster_whisper import WhisperModel\n" + error)
    assert "transformers" not in (theirs.primary.fix if theirs.primary else "")


_TF_ON_KERAS3 = (
    '  File "/usr/lib/python3.11/site-packages/transformers/modeling_tf_utils.py", line 2919, in '
    "from_pretrained\n    model.build()\n"
    '  File "/usr/lib/python3.11/site-packages/keras/src/layers/layer.py", line 223, in '
    "build_wrapper\n    original_build_method(*args, **kwargs)\n"
    '  File "/usr/lib/python3.11/site-packages/transformers/modeling_tf_utils.py", line 1134, in '
    "build\n    if self.built or call_context().in_call:\n"
    "TypeError: 'NoneType' object is not callable\n")


def test_a_transformers_tf_model_on_keras_3_read_from_its_frames() -> None:
    # "it works with keras 2.14" is the environment that changed, not a library regression
    t = triage(_TF_ON_KERAS3 + "This works with transformers 4.36.2, tensorflow 2.14, keras 2.14.")
    assert t.cause_id == "keras-3-installed" and t.bug is None
    assert "TF_USE_LEGACY_KERAS=1" in t.primary.fix
    # Keras 2.13-2.15 also live under keras/src/ (other files); no transformers model: no finding
    keras2 = _TF_ON_KERAS3.replace("layers/layer.py", "engine/base_layer.py")
    assert "keras-3-under-tf-model" not in {m.signature.id for m in triage(keras2).matches}
    plain = _TF_ON_KERAS3.replace("transformers/modeling_tf_utils.py", "mylib/model.py")
    assert "keras-3-under-tf-model" not in {m.signature.id for m in triage(plain).matches}


_LOOKUP = ('  File "/usr/lib/python3.10/site-packages/transformers/models/bert/modeling_bert.py", '
           "line 211, in forward\n    {}\nIndexError: index out of range in self\n")


def test_an_embedding_lookup_out_of_range_names_the_table_the_paste_shows() -> None:
    plain = triage("IndexError: index out of range in self")
    assert plain.cause_id == "index-out-of-range-in-self"
    positions = triage(_LOOKUP.format("position_embeddings = self.position_embeddings("
                                      "position_ids)"))
    assert positions.cause_id == "sequence-longer-than-max"
    words = triage(_LOOKUP.format("inputs_embeds = self.word_embeddings(input_ids)"))
    assert words.cause_id == "index-out-of-range-in-self"
    # a checkpoint with 128 positions asked for 512
    short = triage("tokenizer = AutoTokenizer.from_pretrained('vinai/bertweet-base')\n"
                   "inputs = tokenizer(text, truncation=True, max_length=512)\n"
                   "IndexError: index out of range in self")
    assert short.cause_id == "sequence-longer-than-max" and "max_length=128" in short.primary.fix
    added = "tokenizer.add_special_tokens({'additional_special_tokens': ['<x>']})\n"
    grown = triage(added + "IndexError: index out of range in self")
    assert grown.cause_id == "token-embeddings-not-resized"
    resized = triage(added + "model.resize_token_embeddings(len(tokenizer))\n"
                     "IndexError: index out of range in self")
    assert resized.cause_id == "index-out-of-range-in-self"


def test_a_device_side_assert_on_an_embedding_line_is_no_label_fault() -> None:
    paste = ('  File "/usr/local/lib/python3.6/dist-packages/transformers/modeling_bert.py", line '
             "177, in forward\n    embeddings = inputs_embeds + position_embeddings + "
             "token_type_embeddings\nRuntimeError: CUDA error: device-side assert triggered")
    assert triage(paste).cause_id == "index-out-of-range-in-self"
    loss = paste.replace("embeddings = inputs_embeds + position_embeddings + "
                         "token_type_embeddings", "loss = loss_fct(logits, labels)")
    assert triage(loss).cause_id == "cuda-device-side-assert"


def test_generation_without_a_decoder_start_token() -> None:
    t = triage("ValueError: decoder_start_token_id or bos_token_id has to be defined for "
               "encoder-decoder generation")
    assert t.cause_id == "decoder-start-token-missing"


def test_pip_reporting_an_installed_pair_outside_the_range() -> None:
    newer = triage("ERROR: pip's dependency resolver does not currently take into account all the "
                   "packages that are installed.\ntransformers 4.45.0 requires tokenizers<0.21,"
                   ">=0.20, but you have tokenizers 0.21.0 which is incompatible.")
    assert newer.cause_id == "env-version-too-new"
    assert 'pip install "tokenizers<0.21,>=0.20"' in newer.primary.fix
    older = triage("transformers 4.45.0 requires tokenizers<0.21,>=0.20, but you have "
                   "tokenizers 0.19.1 which is incompatible.")
    assert older.cause_id == "env-version-too-old"
    # the older pip's words, and a == pin
    pinned = triage("ERROR: transformers 2.3.0 has requirement tokenizers==0.0.11, but you'll "
                    "have tokenizers 0.1.1 which is incompatible.")
    assert pinned.cause_id == "env-version-too-new"


def test_a_label_column_that_is_no_classlabel() -> None:
    for paste in ("AttributeError: 'Value' object has no attribute 'names'",
                  "ValueError: Stratifying by column is only supported for ClassLabel column, and "
                  "column label is Value."):
        t = triage(paste)
        assert t.cause_id == "label-column-not-classlabel"
        assert "class_encode_column" in t.primary.fix
    assert triage("AttributeError: 'ClassLabel' object has no attribute 'foo'"
                  ).cause_id != "label-column-not-classlabel"


def test_a_training_arguments_field_of_transformers_is_no_trl_config_question() -> None:
    reader = ('  File "/usr/local/lib/python3.10/dist-packages/transformers/utils/notebook.py", line '
              '295, in on_train_begin\n    self.first_column = "Epoch" if args.eval_strategy == '
              'IntervalStrategy.EPOCH else "Step"\nAttributeError: \'TrainingArguments\' object '
              "has no attribute 'eval_strategy'")
    t = triage(reader)
    assert t.cause_id == "env-version-too-new" and 'transformers<4.41.0' in t.primary.fix
    mine = triage("print(args.eval_strategy)\nAttributeError: 'TrainingArguments' object has no "
                  "attribute 'eval_strategy'")
    assert mine.cause_id == "env-version-too-old"
    # a field only TRL's configs have: the wrong config class, as before
    trl = triage("AttributeError: 'TrainingArguments' object has no attribute 'dataset_text_field'")
    assert trl.cause_id == "trl-wrong-config-class"


def test_a_none_tokenizer_class_of_a_sentencepiece_checkpoint() -> None:
    paste = ("AttributeError: 'NoneType' object has no attribute 'from_pretrained'\n"
             "This code was working yesterday but doesn't work today:\n"
             "from transformers import AutoTokenizer\n"
             "AutoTokenizer('Helsinki-NLP/opus-mt-en-fr')")
    t = triage(paste)
    assert t.cause_id == "env-missing-package" and "sentencepiece" in t.primary.fix
    assert t.bug is None              # the missing package explains "it worked yesterday"
    assert triage("AttributeError: 'NoneType' object has no attribute 'from_pretrained'"
                  ).cause_id != "env-missing-package"


def test_tensorflow_gpu_on_native_windows_after_2_10() -> None:
    log = ("OS: Windows 10, CUDA 11.8, cuDNN 8.6\nI tried tf 2.10 and it works.\n"
           "Tensor Flow Version: 2.12.0\nGPU is NOT AVAILABLE")
    t = triage(log)
    assert t.cause_id == "tf-gpu-unsupported-on-native-windows" and "WSL2" in t.primary.fix
    # the same log on Linux, on WSL, or with TensorFlow 2.10: no such finding
    for other in (log.replace("Windows 10", "Ubuntu 22.04"), log + "\n(inside WSL2)",
                  log.replace("2.12.0", "2.10.1").replace("tf 2.10", "tf 2.9")):
        ids = {m.signature.id for m in triage(other).matches}
        assert "tf-gpu-unsupported-on-native-windows" not in ids


def test_keras_save_of_a_transformers_tf_model() -> None:
    paste = ("model.save('saved')\n        return self.serving_output(output)\n\n"
             "    TypeError: tf__serving_output() takes 1 positional argument but 2 were given")
    t = triage(paste)
    assert t.cause_id == "keras-save-instead-of-save-pretrained"
    assert "save_pretrained" in t.primary.fix
    other = "TypeError: forward() takes 1 positional argument but 2 were given"
    assert triage(other).cause_id != "keras-save-instead-of-save-pretrained"


def test_llama_cpp_converter_vocab_size_mismatch() -> None:
    placeholder = triage("vocab size mismatch (model has -1 but tokenizer.model has 32000)")
    assert placeholder.cause_id == "vocab-size-mismatch"
    assert '"vocab_size": 32000' in placeholder.primary.fix
    added = triage("Exception: Vocab size mismatch (model has 32000, but tokenizer.model combined "
                   "with added tokens has 32002).")
    assert added.cause_id == "added-tokens-vocab-mismatch"
    assert "resize_token_embeddings" in added.primary.fix
    assert "params.json" not in added.primary.cause


def test_label_smoothing_on_multi_label_targets() -> None:
    error = "RuntimeError: gather(): Expected dtype int64 for index"
    t = triage("TrainingArguments(label_smoothing_factor=0.1), problem_type="
               "'multi_label_classification'\n" + error)
    assert t.cause_id == "label-smoothing-with-multilabel" and "=0.0" in t.primary.fix
    assert triage(error).cause_id != "label-smoothing-with-multilabel"


def test_pip_asked_for_a_command_or_import_name() -> None:
    cli = triage("pip install huggingface-cli\nERROR: Could not find a version that satisfies the "
                 "requirement huggingface-cli (from versions: none)\nERROR: No matching "
                 "distribution found for huggingface-cli")
    assert cli.cause_id == "pip-distribution-name-differs"
    assert 'pip install "huggingface_hub[cli]"' in cli.primary.fix
    assert "opencv-python" in triage("ERROR: No matching distribution found for cv2").primary.fix
    # a package under its own name that has no such release: the release question
    for own in ("torch==1.4.0", "tensorflow_text==2.12", "ruamel.yaml==0.1"):
        assert triage(f"ERROR: No matching distribution found for {own}").cause_id == \
            "no-wheel-for-python-version"


def test_serving_and_conversion_of_a_fine_tuned_checkpoint() -> None:
    bnb = "vllm serve me/model-bnb-4bit\nKeyError: 'layers.10.mlp.down_proj.weight.absmax'"
    t = triage(bnb)
    assert t.cause_id == "serving-quantization-flags-missing"
    assert "--load-format bitsandbytes" in t.primary.fix
    assert triage(bnb.replace("vllm serve", "python load.py")).cause_id != t.cause_id
    tp = triage("vllm with tensor parallel 4: The input size is not aligned with the quantized "
                "weight shape. This can be caused by too large tensor parallel size.")
    assert tp.cause_id == "tensor-parallel-size-not-divisor"
    gguf = triage("    model_arch = gguf.MODEL_ARCH.ARCEE\nAttributeError: type object "
                  "'MODEL_ARCH' has no attribute 'ARCEE'")
    assert gguf.cause_id == "env-version-too-old" and "gguf-py" in gguf.primary.fix
    assert triage("AttributeError: type object 'Config' has no attribute 'ARCEE'"
                  ).cause_id != "env-version-too-old"
    core = triage("ValueError: File format not supported: filepath=my_model Keras Core only "
                  "supports V3 `.keras` and `.weights.h5` files.")
    assert core.primary.signature.id == "keras3-savedmodel-load"


def test_restart_advice_in_a_missing_backend_message_is_no_restart_finding() -> None:
    missing = ("ImportError: \nT5Converter requires the protobuf library but it was not found in "
               "your environment. Checkout the instructions on the\ninstallation page of its repo. "
               "Please note that you may need to restart your runtime after installation.")
    t = triage(missing)
    assert t.cause_id == "env-missing-package" and "pip install protobuf" in t.primary.fix
    restart = triage("You must restart the runtime in order to use newly installed versions.")
    assert restart.cause_id == "env-setup-step-skipped"


def test_the_new_signatures_name_checks_the_catalogue_has() -> None:
    new = {"labels-with-extra-dimension", "label-dtype-int-expected-long",
           "text-column-reaches-collate", "sampling-from-non-finite-logits",
           "host-memory-exhausted", "nccl-collective-timeout", "nccl-system-error",
           "model-offloaded-without-folder", "attention-implementation-unsupported",
           "file-not-utf8", "too-many-indices", "add-prefix-space-for-pretokenized",
           "keras-model-not-compiled", "iterable-dataset-without-length",
           "torch-load-weights-only", "torch-compile-without-triton", "image-channels-unknown",
           "audio-sampling-rate-mismatch", "formatting-func-returns-string",
           "hub-rate-limited", "generation-temperature-zero",
           "generate-default-max-length", "softmax-output-with-from-logits",
           "numpy-call-on-symbolic-tensor", "tf-gpu-libraries-missing", "classlabel-out-of-range",
           "map-worker-died", "map-function-not-picklable", "hub-revision-not-found",
           "deepspeed-batch-size-mismatch", "fsdp-wrap-class-not-found",
           "quantized-model-does-not-fit", "decoder-start-token-missing", "decode-logits-not-ids",
           "wandb-not-logged-in", "truncation-stride-too-large", "view-on-non-contiguous",
           "item-on-non-scalar", "peft-generate-positional-args", "tf-strategy-scope-mismatch",
           "distributed-not-launched", "distributed-port-in-use", "cuda-error-asynchronous",
           "gpu-unusable", "vllm-kv-cache-too-small", "gemma2-needs-eager-attention",
           "fp16-and-bf16-both", "deepspeed-config-not-found", "cache-dir-not-writable",
           "loss-stuck-at-chance", "data-files-mixed-formats", "arrow-offset-overflow",
           "keras-input-ran-out-of-data", "keras-monitor-metric-missing",
           "keras-h5-duplicate-names", "hub-file-not-in-repo", "label-column-not-classlabel",
           "tf-gpu-unsupported-on-native-windows"}
    sigs = [s for s in SIGNATURES if s.id in new]
    assert len(sigs) == len(new)
    assert all(p in CHECKS for s in sigs for p in s.probes)
