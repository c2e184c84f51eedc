"""Errors of quantized models (bitsandbytes, HQQ) and of launching on GPUs: paged optimizers
where unified memory is missing, binaries without kernels for the GPU, int8 matmul on older
cards, quantized modules offloaded to the CPU, quantizations that cannot be saved, device-mapped
models in DataParallel, distributed code started without a launcher, and accelerate configs
written by a newer accelerate."""
from __future__ import annotations

from wizard.triage.env_answers import BINARY, OLD
from wizard.triage.signature import Signature, signature_maker

_q = signature_maker(15)


QUANTIZED_SIGNATURES: list[Signature] = [
    _q("mlx-quantized-matmul-no-grad",
       r"QuantizedMatmul::vjp no gradient wrt the quantized matrix",
       "Full fine-tuning of a quantized model (MLX): the quantized weights cannot be trained, "
       "only adapters on top of them.",
       "Quantized matrices are packed integers; no gradient flows into them.",
       ["model.frozen-parameters"],
       "mlx_lm.lora --model QUANTIZED_MODEL --train ...   # LoRA on the quantized model, or full "
       "fine-tuning of an fp16/bf16 model",
       title="Training quantized weights", family="quantized-weights-require-grad"),
    _q("paged-optimizer-without-unified-memory",
       r"Error invalid device ordinal at line \d+ in file \S{0,200}bitsandbytes",
       "A paged optimizer (paged_adamw_8bit / paged_adamw_32bit) needs CUDA unified memory, "
       "which WSL2, native Windows and Jetson do not offer; bitsandbytes' call then fails with "
       "this misleading 'invalid device ordinal'.",
       "Paged optimizers page their state between GPU and CPU through managed memory.",
       ["environment.device"],
       "TrainingArguments(..., optim=\"adamw_8bit\")   # not paged_adamw_* on WSL2/Windows/Jetson",
       title="A paged optimizer without unified memory"),
    _q("bnb-binary-lacks-gpu-kernels",
       r"Error named symbol not found at line \d+ in file \S{0,200}bitsandbytes",
       "The bitsandbytes binary has no kernel for (one of) the visible GPUs' compute capability: "
       "an old GPU, or a machine mixing GPU generations.",
       "Each CUDA binary holds kernels for the architectures it was built for.",
       ["environment.device"],
       "CUDA_VISIBLE_DEVICES=0 python train.py   # one supported GPU\npip install -U "
       "bitsandbytes", family=BINARY, title="bitsandbytes without kernels for this GPU"),
    _q("bnb-cpu-only-build",
       r"'NoneType' object has no attribute 'cuDeviceGetCount'",
       "bitsandbytes could not load the CUDA driver library: a CPU-only bitsandbytes build, or "
       "an old bitsandbytes on Windows (no official support before 0.43).",
       "bitsandbytes loads libcuda at import; without it its handle is None.",
       ["environment.device"],
       "pip uninstall -y bitsandbytes && pip install -U bitsandbytes   # a CUDA-enabled wheel "
       "(>= 0.43 on Windows too)", family=BINARY, title="A bitsandbytes without CUDA"),
    _q("bnb-int8-matmul-old-gpu",
       r"(?:Your|my|the) GPU does not support Int8 Matmul",
       "LLM.int8() (load_in_8bit) in bitsandbytes before 0.37 needs int8 tensor-core matmul, "
       "which GPUs older than Turing (P40, M40, GTX 10xx) lack; 0.37 added it for every "
       "architecture.", "bitsandbytes < 0.37 used cuBLASLt's int8 matmul only.",
       ["environment.package-versions"],
       "pip install -U \"bitsandbytes>=0.37.0\"   # or load in 4-bit", family=OLD,
       title="Int8 matmul on an older GPU"),
    _q("quantized-weights-offloaded",
       r"Blockwise quantization only supports 16/32-bit floats, but got torch\.uint8",
       "A sequential CPU offload (enable_sequential_cpu_offload, accelerate's cpu_offload) moves "
       "the already quantized 4-bit weights back to the GPU, and bitsandbytes tries to quantize "
       "them again.", "bitsandbytes quantizes a weight when it first moves to the GPU.",
       ["memory.will-not-fit"],
       "pipe.enable_model_cpu_offload()   # whole models, not enable_sequential_cpu_offload()\n"
       "# or keep the quantized modules on the GPU: device_map={'': 0}",
       title="Quantized weights offloaded layer by layer"),
    _q("quantized-model-not-serializable",
       r"is quantized with (?:QuantizationMethod\.)?\w{1,40} and is not serializable",
       "save_pretrained (or push_to_hub) on a model quantized on the fly with a method the "
       "installed transformers (or quantizer) cannot save yet (HQQ before its serialization "
       "support, quanto while it was experimental).",
       "Each quantization method saves its weights its own way.",
       ["environment.package-versions"],
       "pip install -U transformers hqq   # newer releases save HQQ models\n# or save the "
       "unquantized model and quantize it when loading", family=OLD,
       title="A quantized model that cannot be saved"),
    _q("device-mapped-model-in-dataparallel",
       r"module must have its parameters and buffers on device cuda:0 \(device_ids\[0\]\) but "
       r"found one of them on device: cuda:\d+",
       "A model split across GPUs (device_map=\"auto\") was run by the Trainer from a plain "
       "`python` launch with several GPUs visible, so the Trainer wrapped it in DataParallel, "
       "which needs the whole model on cuda:0 (the Trainer skips that wrapping for "
       "device-mapped models since transformers 4.28).",
       "DataParallel replicates a module that lives on its first device.", ["environment.device"],
       "pip install -U transformers   # >= 4.28\n# or one GPU: CUDA_VISIBLE_DEVICES=0 python "
       "train.py; or DDP: torchrun ... with device_map={'': local_rank}",
       title="A device-mapped model in DataParallel"),
    _q("distributed-init-without-launcher",
       r"environment variable (?:RANK|WORLD_SIZE|MASTER_ADDR|MASTER_PORT|LOCAL_RANK) expected, "
       r"but not set|KeyError: '(?:RANK|LOCAL_RANK|WORLD_SIZE)'",
       "The script initialises torch.distributed (env:// rendezvous) but was started with plain "
       "`python`: RANK, WORLD_SIZE and MASTER_ADDR are set by a distributed launcher.",
       "init_process_group reads the process's rank and the group's size from the environment.",
       ["environment.device"],
       "torchrun --nproc_per_node=<gpus> train.py ...   # or: accelerate launch train.py\n# one "
       "GPU: skip init_process_group", family="multi-gpu-without-distributed-launcher",
       title="torch.distributed without a launcher"),
    _q("accelerate-config-from-newer-release",
       r"The config file at \S{1,300} had unknown keys \(",
       "The accelerate config YAML was written by a newer accelerate (or another tool): the "
       "installed accelerate does not know some of its keys.",
       "accelerate validates its config file's keys.", ["environment.package-versions"],
       "pip install -U accelerate\n# or delete the listed keys; or: rm ~/.cache/huggingface/"
       "accelerate/default_config.yaml && accelerate config", family=OLD,
       title="An accelerate config from a newer release"),
]
