"""The catalogue's errors of devices, precision and distributed set-ups: CUDA missing or in a
forked process, mixed precision the hardware lacks, quantized or device-mapped models on the
wrong GPU, DeepSpeed and DDP settings, shared memory and disk space, and warnings about optional
GPU kernels that are no error."""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.parse import PYTHON_CHILD, ParsedError
from wizard.triage.signature import Signature, signature_maker

# a CUDA GPU without bfloat16 shown in the paste: its name, or its compute capability below 8
_PRE_AMPERE = re.compile(r"\b(?:Tesla )?(?:V100|T4|P100|P40|K80|M60)\b|\bGTX ?\d{3,4}\b|"
                         r"\bRTX ?20[5-8]0\b|\bmajor=[1-7],|compute capability:? ?[1-7]\.\d")


def refine_precision_device(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """bf16 refused on a machine whose paste shows a CUDA GPU older than Ampere: the GPU lacks
    bfloat16 (not CUDA)."""
    if not re.search(r"bf16|tf32", parsed.text, re.I) or \
            not _PRE_AMPERE.search(parsed.text):
        return None
    return {"id": "bf16-unsupported-gpu",
            "cause": "bf16 (and tf32) was asked for on a CUDA GPU older than Ampere: it has no "
                     "bfloat16 arithmetic.",
            "fix": "TrainingArguments(..., bf16=False, tf32=False, fp16=True)   # or --bf16 False "
                   "--tf32 False --fp16 True"}


def refine_launcher_report(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The launcher's line is the answer only when the child's own error is not in the paste:
    an exception printed before it is the error to read (its signature, or its own triage)."""
    if any(c.exc_type for c in parsed.chain):
        return {"reject": True}
    return None


_d = signature_maker(11)


DEVICE_SIGNATURES: list[Signature] = [
    _d("fsdp-flat-param-mixed-dtypes",
       r"FlatParameter requires uniform dtype but got (?P<a>[\w.]+) and (?P<b>[\w.]+)",
       "FSDP flattens the parameters of each wrapped unit into one FlatParameter of one dtype, "
       "and the model holds two: a half-precision base with float32 adapters (LoRA) or modules "
       "kept in float32.",
       "One FlatParameter per wrapped unit, one dtype per FlatParameter.",
       ["model.precision-unsupported"],
       "model = model.to(torch.float32)   # one dtype for every parameter before FSDP wraps it\n"
       "# and let FSDP compute in half precision: accelerate config mixed_precision: bf16 "
       "(MixedPrecision(param_dtype=torch.bfloat16))",
       title="FSDP: parameters of two dtypes", framework="pytorch", priority=14),
    _d("cuda-unavailable",
       # a script's own assert on torch.cuda.is_available()
       r"AssertionError: CUDA is not available|"
       r"Found no NVIDIA driver on your system|No CUDA GPUs are available|CUDA driver initialization "
       r"failed, you might not have a CUDA gpu",
       "The code asks for CUDA on a machine (or container, or runtime) without an NVIDIA GPU or "
       "driver: a CPU notebook runtime, a container started without GPU access, or "
       "CUDA_VISIBLE_DEVICES hiding every GPU.",
       "torch finds no usable NVIDIA driver, so every .cuda() / device='cuda' fails.",
       ["environment.device"],
       "import torch; print(torch.cuda.is_available())   # then pick a GPU runtime, or:\n"
       "device = 'cuda' if torch.cuda.is_available() else 'cpu'",
       title="No NVIDIA GPU or driver here"),
    _d("invalid-device-ordinal",
       # torch < 1.0
       r"CUDA error \(\d+\): invalid device ordinal|"
       r"CUDA error: invalid device ordinal|Invalid device id|invalid CUDA 'device=\d+' requested",
       "The code asks for a GPU index that this process cannot see: cuda:1 (or device_map "
       "{'': 1}, --gpu_ids 1) on a machine with one GPU, or CUDA_VISIBLE_DEVICES hides it (after "
       "CUDA_VISIBLE_DEVICES=1 the only visible GPU is cuda:0).",
       "CUDA numbers the visible GPUs from 0; an index past the last one does not exist.",
       ["environment.device"],
       "import torch; print(torch.cuda.device_count())   # the GPUs this process sees\n"
       "device = 'cuda:0'   # with CUDA_VISIBLE_DEVICES=N the chosen GPU is cuda:0",
       title="No GPU with that index here"),
    _d("mps-op-not-implemented",
       # torch 1.12's typo
       r"The operator '(?P<op2>aten::[\w.]+)' is not current implemented for the MPS device|"
       r"The operator '(?P<op>aten::[\w.]+)' is not currently implemented for the MPS device|"
       # an operator MPS has, but not for that dtype: "MPS does not support cumsum op with int64
       # input" (macOS 13.3 and a newer torch add it)
       r"MPS does not support (?P<op3>\w+) op with (?P<dtype>\w+) input",
       "The PyTorch release installed has no Apple-GPU (MPS) kernel for an operator the model "
       "uses.",
       "Each operator needs a kernel per device; newer PyTorch releases add MPS kernels.",
       ["environment.device"],
       "export PYTORCH_ENABLE_MPS_FALLBACK=1   # run that operator on the CPU\n"
       "pip install -U torch   # newer releases implement more operators on MPS",
       title="An operator without an MPS kernel"),
    _d("flash-attn-wheel-download-failed",
       r"Guessing wheel URL:\s*(?P<url>https://\S+\.whl)",
       "flash-attn's setup.py first downloads the prebuilt wheel that matches your torch, CUDA "
       "and Python from its GitHub releases, and that download failed (no network, a proxy or "
       "firewall, GitHub closing the connection), so pip went on to a build that failed too.",
       "Installing flash-attn from PyPI fetches a prebuilt wheel by URL; only without one does "
       "it compile (an hour, and nvcc).", ["environment.package-versions"],
       "wget <the wheel URL the log guessed>   # from a machine that reaches github.com\n"
       "pip install ./flash_attn-*.whl   # or retry: pip install flash-attn --no-build-isolation",
       title="flash-attn's prebuilt wheel could not be downloaded",
       # the download itself failed (not the build after a 404 for a combination without wheel)
       requires=r"Remote end closed connection|Connection (?:reset|refused|aborted|timed out)|"
                r"urlopen error|timed? ?out|Temporary failure in name resolution|SSL|"
                r"ProxyError|Network is unreachable", priority=14),
    _d("flash-attention-needs-ampere",
       r"FlashAttention only supports Ampere GPUs or newer|"
       # flash-attn 1/2 before 2.3: the backward of large heads only on A100/H100 (sm80/sm90)
       r"Head dim > \d+ backward requires A100 or H100|"
       # the kernel's own check, in torch's words: "Expected is_sm80 || is_sm90 to be true"
       r"Expected (?P<needs>is_sm\w{1,4}(?: \|\| is_sm\w{1,4}){0,3}) to be true, but got false",
       "FlashAttention has no kernel for this GPU: FlashAttention 2 needs Ampere (compute "
       "capability 8.0) or newer (a T4, V100 or RTX 20xx is older), and its backward pass for "
       "head dimensions above 64 needs the shared memory of an A100/H100 (sm80/sm90), so "
       "training on consumer Ampere/Ada cards fails too.",
       "attn_implementation='flash_attention_2' loads the flash-attn kernels, which this GPU "
       "cannot run.",
       ["environment.device"],
       "model = AutoModelForCausalLM.from_pretrained(name, attn_implementation='sdpa')",
       title="FlashAttention needs an Ampere GPU"),
    _d("mps-float64",
       r"Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support "
       r"float64",
       "A float64 tensor (a NumPy array's default dtype, a .double(), a float64 buffer) is "
       "moved to or created on Apple's MPS device, which has no float64.",
       "MPS computes in float32 and lower.", ["data.label-dtype-problem-type"],
       "t = torch.as_tensor(array, dtype=torch.float32).to('mps')   # cast before moving; "
       "model.float() for float64 weights", framework="pytorch",
       title="float64 on Apple's MPS"),
    _d("mps-bfloat16-unsupported",
       r"Trying to convert BFloat16 to the MPS backend but it does not have support for that dtype",
       "bfloat16 on Apple's MPS needs PyTorch 2.3 or newer on macOS 14 or newer; this one has "
       "neither, so the model (or autocast) in bf16 fails.", "MPS gained bf16 late.",
       ["model.precision-unsupported"],
       "model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.float16)   # or "
       "float32\nTrainingArguments(..., bf16=False)   # or: pip install -U torch on macOS 14+",
       framework="pytorch", title="bfloat16 on an older MPS"),
    _d("mps-tensor-over-4gb",
       r"total bytes of NDArray > 2\*\*32",
       "Apple's MPS cannot hold one tensor over 4 GB: the batch, the sequence length or the "
       "vocabulary-wide logits make one too large.", "MPS indexes tensors with 32 bits.",
       ["memory.largest-batch"],
       "TrainingArguments(per_device_train_batch_size=1, gradient_accumulation_steps=8)   # and "
       "a shorter max_seq_length", framework="pytorch", title="A tensor over 4 GB on MPS"),
    _d("cuda-checkpoint-on-cpu",
       r"Attempting to deserialize object on a CUDA device but torch\.cuda\.is_available\(\) is "
       r"False",
       "The checkpoint holds CUDA tensors, and torch.load restores them to CUDA, which this "
       "machine (CPU-only, a Mac) lacks.", "torch.load puts storages back where they were.",
       ["environment.device"], "state = torch.load(path, map_location='cpu')   # or 'mps'",
       framework="pytorch", title="A CUDA checkpoint loaded without CUDA"),
    _d("torch-xla-without-tpu",
       r"Missing XLA configuration",
       "torch_xla is installed on a machine without a TPU (a GPU or CPU image), and the "
       "Trainer (or Lightning) sees it and sets up XLA.", "TrainingArguments detects torch_xla.",
       ["environment.device"],
       "pip uninstall -y torch_xla   # on a GPU/CPU machine\n# or, transformers >= 4.39: "
       "export USE_TORCH_XLA=0", title="torch_xla without a TPU"),
    _d("tpu-local-filesystem",
       r"File system scheme '\[local\]' not implemented",
       "A Colab or Cloud TPU runs on a remote host that cannot read the notebook's local disk "
       "or Drive: data, checkpoints and the model directory must be in a GCS bucket.",
       "The TPU workers read files themselves.", ["environment.device"],
       "model_dir = 'gs://my-bucket/model'   # and the data on gs:// too\n"
       "# Keras saving: options=tf.saved_model.SaveOptions(experimental_io_device='/job:localhost')",
       framework="tensorflow", title="A TPU reading local files"),
    _d("rocm-gpu-not-in-build",
       r"HIP error: invalid device function|hipErrorNoBinaryForGpu",
       "The ROCm build of PyTorch has no kernels for this AMD GPU's architecture (consumer RDNA "
       "cards outside the build's list).", "ROCm wheels ship code for a list of gfx targets.",
       ["environment.device"],
       "export HSA_OVERRIDE_GFX_VERSION=10.3.0   # RDNA2; 11.0.0 for RDNA3\n# or a torch built "
       "for the card: PYTORCH_ROCM_ARCH=<gfx>", title="No kernels for this AMD GPU"),
    _d("triton-gpu-too-old",
       r"which is too old to be supported by the triton GPU compiler",
       "torch.compile's inductor generates Triton kernels, which need CUDA capability 7.0 or "
       "newer; this GPU (Pascal or older: GTX 10xx, P100, P40) has less.",
       "Triton does not target older GPUs.", ["environment.device"],
       "TrainingArguments(torch_compile=False)   # or: export TORCHDYNAMO_DISABLE=1",
       framework="pytorch", title="torch.compile on a GPU Triton cannot target"),
    _d("half-precision-on-cpu",
       r"\"?\b\w{1,80}\"? not implemented for '(?:Half|BFloat16)(?:'|\b)",
       "The model is in float16 (torch_dtype=torch.float16 or .half()) and runs on the CPU, "
       "which has no float16 kernels for this operation (or the GPU was not used).",
       "PyTorch implements many float16 operations only on CUDA.",
       ["environment.device", "model.precision-unsupported"],
       "model = AutoModelForCausalLM.from_pretrained(checkpoint, torch_dtype=torch.float32)  "
       "# on CPU\n# or move model and inputs to the GPU: model.to('cuda')",
       title="An operation is not implemented for Half on this device", framework="pytorch"),
    _d("precision-needs-cuda",
       r"(?:FP16|fp16|bf16|BF16)[^\n]{0,120}can only be used on CUDA|"
       r"(?:fp16|bf16) mixed precision requires a GPU|Tried to use `?fp16`? but it is not supported "
       r"on cpu|"
       r"Your setup doesn't support bf16/gpu|bf16 \(`--bf16`\)[^\n]{0,80}requires? "
       r"(?:PyTorch >= 1\.10 and )?(?:an )?(?:Ampere|NVIDIA)",
       "Mixed precision was asked for (fp16=True / bf16=True) on a machine without a suitable "
       "GPU (no CUDA, or bf16 on a GPU older than Ampere).",
       "fp16 needs a CUDA GPU; bf16 needs Ampere (A100, RTX 30xx) or newer.",
       ["environment.device", "model.precision-unsupported"],
       "TrainingArguments(..., fp16=torch.cuda.is_available(), bf16=False)",
       title="Mixed precision needs a suitable GPU", refine=refine_precision_device),
    _d("quantized-model-moved",
       r"`?\.(?:to|half|float)(?:\(\))?`? is not supported for `?4-bit`? or `?8-bit`? "
       r"(?:bitsandbytes )?models|Calling `?cuda\(\)`? "
       r"is not supported for `?4-bit`? or `?8-bit`? quantized models",
       "A 4-bit/8-bit bitsandbytes model was moved or cast with .to()/.cuda()/.half() (by your "
       "code, a project's loading code, or Trainer/pipeline placing it): quantized weights are "
       "placed and cast once, at loading.",
       "from_pretrained(..., device_map=...) puts the quantized weights on their device; they "
       "cannot be moved or cast afterwards.",
       ["model.precision-unsupported"],
       "model = AutoModelForCausalLM.from_pretrained(name, quantization_config=bnb, "
       "device_map={'': 0})\n# and no model.to(...) / model.cuda() afterwards",
       priority=14, title="A quantized model cannot be moved"),
    _d("bf16-unsupported-gpu",
       # TrainingArguments(tf32=True) on an older GPU (or none)
       r"--tf32 requires Ampere or a newer GPU arch|"
       r"bf16 mixed precision requires PyTorch >= [\d.]+ and a supported device|Bfloat16 is only "
       r"supported on GPUs with compute capability of at least 8\.0|"
       r"Current CUDA Device does not support bfloat16|"
       # ptxas compiling a bf16 kernel (Triton's) for a GPU before sm_80
       r"Feature '[^'\n]*bf16' requires \.target sm_\d+ or higher",
       "bf16 was asked for on a GPU without bfloat16 (a T4, a V100 or older).",
       "bfloat16 arithmetic needs an Ampere (A100, RTX 30xx) or newer GPU; older ones run "
       "fp16.", ["model.precision-unsupported"],
       "mixed_precision = 'fp16'   # or TrainingArguments(fp16=True) instead of bf16=True",
       priority=17, title="bf16 on a GPU without bfloat16"),
    _d("triton-missing-warning-harmless",
       r"A matching Triton is not available, some optimizations will not be enabled",
       "Not an error: xformers (or bitsandbytes) looks for Triton, which has no build for this "
       "platform (Windows); the optional Triton kernels are skipped and training runs as "
       "usual.", "Triton only adds optional fused kernels here.", [],
       "# nothing to fix; on Windows a community build exists: pip install triton-windows",
       title="Triton not available (a warning)", priority=0, benign=True),
    _d("cuda-in-forked-subprocess",
       r"Cannot re-initialize CUDA in forked subprocess",
       "CUDA was used in the main process and then in a forked worker (DataLoader num_workers, "
       "Dataset.map num_proc with a model or GPU tensors inside).",
       "A forked child cannot reuse the parent's CUDA context; it needs the spawn start method "
       "or no CUDA work in workers.", ["environment.device"],
       "dataset.map(fn, num_proc=1)   # or keep GPU work out of map / DataLoader workers\n"
       "# or: torch.multiprocessing.set_start_method('spawn')", priority=13,
       title="CUDA in a forked worker"),
    _d("pin-memory-thread-error",
       r"Caught RuntimeError in pin memory thread",
       "The DataLoader's pin-memory thread could not page-lock a batch (pin_memory=True, the "
       "Trainer's default): the machine ran short of page-locked host memory, or CUDA failed "
       "in that thread. Pinning only speeds up the copy to the GPU.",
       "With pin_memory the DataLoader copies each batch into page-locked memory in a thread.",
       ["environment.device"],
       "TrainingArguments(..., dataloader_pin_memory=False)   # or DataLoader(..., "
       "pin_memory=False)", title="Pin-memory thread failed"),
    _d("dataloader-shared-memory",
       # a rank killed by SIGBUS: NCCL's buffers in a full /dev/shm
       r"Signal 7 \(SIGBUS\) received by PID|"
       r"DataLoader worker \(pid\(?s?\)? [\d, ]+\) (?:exited unexpectedly|is killed by signal: "
       r"Bus error)|unable to open shared memory object|This might be caused by insufficient "
       r"shared memory \(shm\)",
       "DataLoader workers pass batches through shared memory, and there is too little of it "
       "(a Docker container's 64 MB /dev/shm) or too few file handles.",
       "Each worker process hands its batches to the main process in /dev/shm.",
       ["environment.device"],
       "TrainingArguments(..., dataloader_num_workers=0)   # or DataLoader(num_workers=0)\n"
       "# docker run --shm-size=8g ...   |   ulimit -n 65535", priority=12,
       title="DataLoader workers out of shared memory"),
    _d("ddp-unused-parameters",
       r"Expected to have finished reduction in the prior iteration before starting a new one",
       "Under DDP some parameters got no gradient in a step (a head or branch the loss does not "
       "use, frozen-but-registered layers, or gradient checkpointing with reentrant "
       "checkpoints).", "DDP waits for a gradient of every parameter unless told some go "
       "unused.", ["model.frozen-parameters"],
       "TrainingArguments(..., ddp_find_unused_parameters=True)\n# with gradient "
       "checkpointing: gradient_checkpointing_kwargs={'use_reentrant': False}", priority=13,
       title="DDP: parameters without gradients"),
    _d("quantized-model-wrong-device",
       r"You can't train a model that has been loaded in 8-bit precision on a different device "
       r"than the one you're training on|You can't train a model that has been loaded with "
       r"`device_map='auto'` in any distributed mode|"
       # torch's DDP refusing a module whose parameters sit on several devices
       r"DistributedDataParallel device_ids and output_device arguments only work with "
       r"single-device",
       "A quantized (or device_map='auto') model sits on another GPU than the process trains "
       "on: under DDP/accelerate each process needs its own copy on its own GPU.",
       "With several processes, device_map must place the whole model on the process's GPU.",
       ["environment.device"],
       "model = AutoModelForCausalLM.from_pretrained(name, quantization_config=bnb, "
       "device_map={'': torch.cuda.current_device()})   # or PartialState().process_index",
       priority=14, title="A quantized model on another GPU than the process"),
    _d("deepspeed-zero3-device-map",
       # newer transformers
       r"DeepSpeed Zero-3 is not compatible with passing a `device_map`|"
       r"DeepSpeed Zero-3 is not compatible with `low_cpu_mem_usage=True` or with passing a "
       r"`device_map`",
       "from_pretrained got a device_map (or low_cpu_mem_usage) under DeepSpeed ZeRO-3, which "
       "partitions and places the weights itself.",
       "ZeRO-3 shards every parameter across processes at load time.", ["environment.device"],
       "model = AutoModelForCausalLM.from_pretrained(name)   # no device_map under ZeRO-3",
       priority=14, title="device_map under ZeRO-3"),
    _d("deepspeed-offload-client-optimizer",
       r"You are using ZeRO-Offload with a client provided optimizer",
       "ZeRO-Offload runs the optimizer on the CPU and needs DeepSpeed's CPU Adam, not the "
       "torch optimizer the script or Trainer passed.",
       "The offloaded optimizer step runs on the CPU copy of the weights.",
       ["environment.device"],
       '"optimizer": {"type": "AdamW", "params": {"lr": "auto"}}   # in ds_config, or '
       '"zero_force_ds_cpu_optimizer": false', priority=14,
       title="ZeRO-Offload with a torch optimizer"),
    _d("distributed-child-failed",
       r"torch\.distributed\.elastic\.multiprocessing\.errors\.ChildFailedError|ChildFailedError:|"
       # accelerate launch re-raising its Python child's exit; the DeepSpeed launcher's handler;
       # a driver script running the training steps (DeepSpeed-Chat's train.py)
       rf"CalledProcessError: {PYTHON_CHILD.pattern}"
       r"[^\n]{0,3000}?returned non-zero exit status (?!-9\b)-?\d+|"
       r"sigkill_handler\][^\n]{0,3000}? exits with return code = (?!-9\b)-?\d+|"
       r"\bStep \d+ exited with non-zero status \d+",
       "A process the launcher started failed; this line only reports it: the cause is that "
       "process's own traceback, printed above it (the first 'Traceback' of a rank) or in its "
       "log file.",
       "torchrun, accelerate launch and the deepspeed launcher collect the exit of every process "
       "they start and report it at the end.",
       ["environment.device"],
       "accelerate launch --num_processes 1 train.py   # one process: its error is the first "
       "one printed\n# or scroll up to the first 'Traceback (most recent call last)' of a rank",
       priority=2, title="A process of the launch failed (its error is above)",
       refine=refine_launcher_report),
    _d("windows-symlink-not-permitted",
       r"\[WinError 1314\]|A required privilege is not held by the client",
       "Windows refuses to create a symbolic link without administrator rights or Developer "
       "Mode, and the library links files into its cache or save folder (a pretrained model's "
       "files).",
       "Creating symlinks on Windows needs the SeCreateSymbolicLinkPrivilege.",
       ["environment.package-versions"],
       "# Settings > For developers > Developer Mode: On (then a new terminal)\n# or the "
       "library's copy option instead of links (SpeechBrain: local_strategy=LocalStrategy.COPY; "
       "huggingface_hub falls back to copies by itself)", priority=12,
       title="Windows refuses to create a symlink"),
    _d("disk-full",
       # torch.save cut short by a full volume
       r"PytorchStreamWriter failed writing file [\w/.-]{0,200}: file write failed|"
       r"\[Errno 28\] No space left on device|No space left on device \(os error 28\)|"
       # SageMaker's training job packing its artifacts
       r"\bInsufficient disk space\b",
       "The disk (or the partition of the Hugging Face cache or /tmp) is full: a download, a "
       "dataset cache or a checkpoint could not be written.",
       "Models, datasets (Arrow caches) and checkpoints are written under HF_HOME, the dataset "
       "cache and output_dir.", ["environment.package-versions"],
       "df -h ~/.cache /tmp .   # which is full\nexport HF_HOME=/big/disk/hf   # or: "
       "hf cache rm <repo_id>; TrainingArguments(save_total_limit=2)",
       priority=13, title="No space left on device"),
    _d("deepspeed-config-mismatch-training-args",
       r"Please correct the following DeepSpeed config values that mismatch TrainingArguments "
       r"values|(?:^|\n)\W{0,4}- ?ds [\w.]+=\S+ vs hf [\w|+().]+=\S+|\bds fp16\.enabled=\w+ vs "
       r"hf ",
       "The DeepSpeed config file and TrainingArguments disagree on a setting (bf16/fp16, batch "
       "size, gradient accumulation, learning rate ...) that both define.",
       "The Trainer fills 'auto' values of the DeepSpeed config from TrainingArguments and "
       "refuses explicit values that contradict them.", ["hyperparameters.hidden-defaults"],
       '"bf16": {"enabled": "auto"}   # in the DeepSpeed JSON: "auto" lets TrainingArguments '
       "decide\n# or pass the matching flag: --bf16 True", priority=14,
       title="DeepSpeed config values mismatch TrainingArguments"),
]
