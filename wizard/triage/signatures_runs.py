"""Errors of the run around the data: a process killed for RAM, models too big for the GPU,
NCCL, DeepSpeed and FSDP set-ups, attention kernels a model lacks, torch.load's weights-only
default, torch.compile without Triton, tokenizer converters, encoder-decoder start tokens,
generation settings, Hub limits and revisions, experiment trackers without a login, and the
warnings of these steps that are no error.
"""
from __future__ import annotations

import math
import re
from typing import Any

from wizard.triage.env_answers import MISSING, NEW
from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature, signature_maker

_LOSS = re.compile(r"(?:^|[\s{,'\"])(?:train_|eval_|val_)?loss['\"]?\s*[:=]\s*(\d+\.\d+)")


def refine_chance_loss(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """At least two logged losses (a train and a validation loss, or several steps), the last
    ones all within 0.005 of ln(k) for one k in 2..20 (a log that only starts there, then falls,
    is learning)."""
    values = [float(v) for v in _LOSS.findall(parsed.text)[:500]]
    if len(values) < 2:
        return {"reject": True}
    for k in range(2, 21):
        if all(abs(v - math.log(k)) < 0.005 for v in values[-3:]):
            ev["classes"] = k
            return None
    return {"reject": True}


def refine_hub_file(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A 404 is a missing file only when the paste asks for one file of a repository (a
    filename, a /resolve/ URL); a 404 on the repository itself is a wrong or private id."""
    if re.search(r"EntryNotFound|Entry Not Found|hf_hub_url|hf_hub_download|filename\s*=|"
                 r"/resolve/", parsed.text):
        return None
    return {"reject": True}


# model families released in bfloat16, whose activations overflow float16
_BF16_FAMILY = re.compile(r"(?<![A-Za-z])(?:llama[- ]?[23]|llama3|meta-llama/(?:Meta-)?Llama-[23]|qwen\d*(?:\.\d)?|"
                          r"gemma\d*|mistral|mixtral|(?:flan-|m)?t5|bloomz?|falcon|deepseek|"
                          r"baichuan\d*|internlm\d*|yi-\d|phi-?3)", re.I)


def refine_bf16_family(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """float16 beside NaN/inf is the bf16 overflow only for a model family released in bf16,
    and not for a model cast to half for training (pure fp16: see refine_nan). DeepSpeed's
    scaler at its minimum is an overflow on every step whatever the model's name."""
    if ev.get("scaler"):
        return None
    if not (_BF16_FAMILY.search(parsed.text) or _BF16_UNAVAILABLE.search(parsed.text)) or \
            re.search(r"\.half\(\)", parsed.text):
        return {"reject": True}
    return None


# the reporter running float16 because the GPU has no bfloat16 (the model was meant for bf16)
_BF16_UNAVAILABLE = re.compile(
    r"(?:does not|doesn't|do not|don't|cannot|can't|not) support (?:for )?(?:bf16|bfloat16)|"
    r"(?:bf16|bfloat16) (?:is )?(?:not|un)supported|no (?:bf16|bfloat16) support|"
    r"instead of (?:bf16|bfloat16)", re.I)


# GPUs whose NCCL P2P transport is known not to work, or the reporter saying P2P off helped
_P2P_SUSPECT = re.compile(r"\bRTX ?40[6-9]0\b|\b40[6-9]0s?\b|NCCL_P2P_DISABLE", re.I)
# NCCL's line when /dev/shm is not writable (not too small: its own rule)
_SHM_DENIED = r"Call to shm_open failed\s*:\s*Permission denied"
_SEVERAL_GPUS = re.compile(r"multi(?:ple)?[- ]?gpus?|\b(?:[2-9]|\d{2}) ?(?:x ?)?(?:gpus|cards)\b|"
                           r"\b[2-9] ?x ?(?:rtx ?)?\d{4}|\b(?:nccl|ddp|torchrun|deepspeed)\b|"
                           r"accelerate launch|init_process_group|(?:4090|gpu)s\b", re.I)


_m = signature_maker(12)


RUN_SIGNATURES: list[Signature] = [
    _m("script-requires-train-or-eval-flag",
       r"At least one of `?do_train`? or `?do_eval`? must be True",
       "The example script (BERT/BioBERT's run_classifier or run_ner) was started without "
       "--do_train and without --do_eval: it refuses to run only for prediction.",
       "Those scripts check the flags before anything else; prediction alone is not one of the "
       "modes they accept.", ["script.run"],
       "python run_ner.py --do_train=true --do_eval=true ...   # at least one of them",
       title="Neither --do_train nor --do_eval"),
    _m("host-memory-exhausted",
       r"(?m)^\W{0,4}Killed\s*$|<Signals\.SIGKILL: 9>|exit(?:ed with)? ?code[ \t]*:?[ \t]*-9\b|"
       r"returned non-zero exit status -9\b|Signal 9 \(SIGKILL\) received by PID|"
       r"exits with return code = -9\b|"
       # the reporter quoting the shell's one word: "it just says killed"
       r"\b(?:says|said|prints?|printed|shows?|showed|outputs?) [\"'`]?killed\b|"
       # an IDE's or a container's exit status (128 + 9), Colab's notice
       r"exit(?:ed with)? code 137\b|Your session crashed after using all available RAM",
       "The operating system killed the process for lack of RAM (not GPU memory): a model "
       "loaded on the CPU in float32 before moving to the GPU, a whole dataset held in memory, "
       "or several processes each loading the full model.",
       "Linux's out-of-memory killer ends the largest process with SIGKILL (exit code -9); "
       "Python prints no traceback.",
       ["memory.estimate"],
       "model = AutoModelForCausalLM.from_pretrained(ckpt, torch_dtype=torch.bfloat16, "
       "device_map='auto',\n                                             low_cpu_mem_usage=True)\n"
       "dataset = load_dataset(..., streaming=True)   # for data larger than RAM\n"
       "# free -g; dmesg | grep -i oom   # confirm", title="Killed: out of RAM",
       priority=14),
    _m("model-offloaded-without-folder",
       r"had weights offloaded to the disk\. Please provide an `?offload_folder`?|"
       r"We need an `?offload_dir`? to dispatch this model",
       "device_map='auto' found the model too big for the GPUs and the CPU RAM together and "
       "placed some weights on disk, which needs a folder to write them to.",
       "accelerate fills the GPUs, then the CPU, then the disk; disk offload is very slow.",
       ["memory.will-not-fit", "memory.estimate"],
       "model = AutoModelForCausalLM.from_pretrained(ckpt, device_map='auto', "
       "torch_dtype=torch.bfloat16,\n"
       "                                             offload_folder='offload')\n"
       "# better: a smaller or 4-bit model (BitsAndBytesConfig(load_in_4bit=True)), or more GPU "
       "memory", title="Weights offloaded to disk without a folder", priority=15),
    _m("quantized-model-does-not-fit",
       r"Some modules are dispatched on the CPU or the disk\. Make sure you have enough GPU RAM "
       r"to fit the quantized model|"
       # older transformers
       r"8-bit operations? (?:on `?bitsandbytes`? )?(?:are|is) not supported under CPU",
       "The quantized model does not fit in the GPU's free memory, so device_map='auto' placed "
       "some layers on the CPU or disk, which 8-bit/4-bit layers cannot run on.",
       "bitsandbytes layers run on the GPU only.",
       ["memory.will-not-fit", "memory.gpu-held-by-other-process"],
       "BitsAndBytesConfig(load_in_4bit=True)   # 4-bit instead of 8-bit, or a smaller model\n"
       "# free the GPU first (other notebooks, earlier models); or, slow: "
       "llm_int8_enable_fp32_cpu_offload=True with a device_map",
       title="The quantized model does not fit on the GPU", priority=13),
    _m("nccl-collective-timeout",
       # a rank that did not arrive at init_process_group
       r"Timed out initializing process group in store based barrier|"
       # torch 1.13-2.0 at the first collective
       r"ncclUniqueId[^\n]{0,200}Socket Timeout|"
       r"Watchdog caught collective operation timeout|ProcessGroupNCCL\w*\.cpp[^\n]{0,200}"
       r"Timeout\(ms\)=\d+|NCCL (?:communicator|watchdog)[^\n]{0,80}time(?:d )?out",
       "One process of a distributed run did work the others waited on for longer than the "
       "collective timeout (30 minutes by default): tokenizing or mapping the dataset, "
       "evaluating or saving on the main process only, or processes that took different paths.",
       "Every rank must reach each collective operation; NCCL's watchdog aborts the run when "
       "one does not within the timeout.",
       ["environment.device"],
       "TrainingArguments(..., ddp_timeout=7200)   # seconds\n"
       "# or prepare the dataset once before launching (map with cache), or with accelerate:\n"
       "Accelerator(kwargs_handlers=[InitProcessGroupKwargs(timeout=timedelta(hours=2))])",
       title="NCCL collective timed out", priority=11),
    _m("nccl-system-error",
       r"NCCL Error \d+: unhandled system error|"   # older torch
       r"NCCL error in:?[^\n]{0,200}(?:unhandled system error|unhandled cuda error|internal "
       r"error|invalid usage)",
       "NCCL could not set up communication between the GPUs: a container's small /dev/shm, "
       "peer-to-peer or InfiniBand transport the machine does not support, or the wrong network "
       "interface.",
       "NCCL picks shared memory, P2P, InfiniBand or sockets per machine; a transport that "
       "fails at setup ends the run with a generic system error.",
       ["environment.device"],
       "NCCL_DEBUG=INFO torchrun ...   # shows which transport fails\n"
       "NCCL_P2P_DISABLE=1 NCCL_IB_DISABLE=1 torchrun ...   # or: docker run --shm-size=16g",
       title="NCCL failed to set up", priority=11,
       # NCCL's own lines name the cause: two ranks on one GPU (nccl-duplicate-gpu), /dev/shm
       refine=lambda ev, parsed: {"reject": True}
       if re.search(r"Duplicate GPU detected|Error while creating shared memory segment|"
                    r"Call to (?:shm_open|posix_fallocate) failed", parsed.text) else None),
    # NCCL's own lines (NCCL_DEBUG=INFO, or "Last error:") name which setup step failed
    _m("docker-shm-too-small",
       r"Error while creating shared memory segment|NCCL WARN Call to posix_fallocate failed",
       "NCCL could not create its shared-memory segment in /dev/shm: it is too small (a Docker "
       "container's default is 64 MB) for the buffers NCCL shares between the GPUs of a node.",
       "Within a node NCCL passes data through /dev/shm; a container's small default fills up.",
       ["environment.device"],
       "docker run --shm-size=16g ...   # or --ipc=host; in Kubernetes an emptyDir with "
       "medium: Memory on /dev/shm\n# or, slower: NCCL_SHM_DISABLE=1 torchrun ...",
       title="/dev/shm too small for NCCL", family="nccl-system-error", priority=12,
       refine=lambda ev, parsed: {"reject": True}
       if re.search(_SHM_DENIED, parsed.text) else None),
    _m("shm-permission-denied",
       _SHM_DENIED,
       "NCCL may not create files in /dev/shm: the user running the training has no write "
       "permission there, so NCCL's shared-memory transport fails at setup.",
       "shm_open creates NCCL's segments as files under /dev/shm.", ["environment.device"],
       "ls -ld /dev/shm   # should be drwxrwxrwt\nsudo chmod 1777 /dev/shm   # or: "
       "NCCL_SHM_DISABLE=1 torchrun ...", title="No permission on /dev/shm",
       family="nccl-system-error", priority=13),
    # a hang, not an error: only where the paste names the GPUs NCCL's P2P fails on, or says
    # that turning P2P off helped
    _m("nccl-p2p-unsupported",
       r"\b(?:stuck|hangs?|hanging|hung|freez\w*|deadlock\w*)\b",
       "A multi-GPU run hangs at its first collective operation: NCCL's direct GPU-to-GPU (P2P) "
       "transport does not work on this machine (consumer RTX 40-series cards have no P2P; on "
       "servers, PCI ACS or the IOMMU blocks it), so the ranks wait for data that never comes.",
       "Within a node NCCL moves data GPU to GPU over PCIe/NVLink (P2P) when the driver offers "
       "it; where the transfers do not arrive, no error is raised and the run waits forever.",
       ["environment.device"],
       "NCCL_P2P_DISABLE=1 torchrun ...   # through host memory instead: slower, works\n"
       "nvidia-smi topo -m; NCCL_DEBUG=INFO   # which transport NCCL picks\n"
       "# servers: disable PCI ACS / set iommu=pt in the kernel command line",
       title="Multi-GPU run hangs: NCCL P2P does not work here", priority=10,
       refine=lambda ev, parsed: None if _P2P_SUSPECT.search(parsed.text) and
       _SEVERAL_GPUS.search(parsed.text) else {"reject": True}),
    _m("webdataset-nodesplitter-missing",
       r"you need to add an explicit nodesplitter to your input pipeline",
       "The run is distributed (several processes or nodes, launched by torchrun, accelerate or "
       "FSDP), and a WebDataset pipeline does not say how its shards are split across them; "
       "WebDataset has no default for that and refuses to iterate.",
       "Each node must read its own shards, or every node trains on the same data.",
       ["environment.device"],
       "dataset = wds.WebDataset(urls, nodesplitter=wds.split_by_node, shardshuffle=True)   # "
       "plus wds.split_by_worker for DataLoader workers\n# or resampled=True for an endless "
       "stream of shards per node",
       title="WebDataset needs a nodesplitter for distributed training"),
    _m("nccl-internode-transport",
       r"Some NCCL operations have failed or timed out|NCCL (?:operations|communicator) "
       r"(?:have |has )?(?:failed|aborted)",
       "The run spans several machines and NCCL's collectives between them fail: the transport "
       "NCCL picked between the nodes (InfiniBand the nodes do not have, or the wrong network "
       "interface) does not carry the traffic, while a run on one node works.",
       "Within a node NCCL uses NVLink, PCIe or shared memory; between nodes InfiniBand or "
       "sockets on an interface it guesses.",
       ["environment.device"],
       "NCCL_DEBUG=INFO torchrun ...   # shows the transport and interface per node\n"
       "NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=eth0 torchrun ...   # sockets on the interface "
       "the nodes share (ip addr shows its name)",
       title="NCCL between nodes failed",
       # a launch over several machines
       requires=r"--nnodes[= ]?(?:[2-9]|\d\d)|--num_machines[= ]?(?:[2-9]|\d\d)|"
                r"--node_rank[= ]?[1-9]|\bmulti-?node\b", priority=10),
    _m("deepspeed-batch-size-mismatch",
       r"train_batch_size is not equal to micro_batch_per_gpu \* gradient_acc_step \* "
       r"world_size",
       "The DeepSpeed config's batch sizes do not multiply out for this run: its "
       "train_batch_size was written for another number of GPUs or another accumulation.",
       "DeepSpeed checks train_batch_size = micro batch x accumulation x number of GPUs.",
       ["hyperparameters.hidden-defaults"],
       '"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", '
       '"gradient_accumulation_steps": "auto"   # the Trainer fills them in',
       title="DeepSpeed batch sizes do not add up", priority=13),
    _m("fsdp-wrap-class-not-found",
       r"Could not find the transformer layer class (?:to wrap|(?P<cls>\w+)) in the model",
       "The FSDP auto-wrap policy names a decoder layer class the model does not have "
       "(fsdp_transformer_layer_cls_to_wrap copied from another architecture, e.g. "
       "LlamaDecoderLayer for a Qwen or Mistral model).",
       "FSDP wraps each module of the named class as one shard unit.",
       ["model.forward"],
       "print({type(m).__name__ for m in model.modules() if 'Layer' in type(m).__name__})\n"
       "# then: fsdp_config={'transformer_layer_cls_to_wrap': ['Qwen2DecoderLayer']}",
       title="FSDP layer class not in the model", priority=13),
    _m("attention-implementation-unsupported",
       # transformers 4.34's words; LLaMA-Factory's
       r"The current architecture does not support Flash Attention 2\.0|Current model does not support FlashAttention-2|"
       r"does not support an attention implementation through torch\.nn\.functional\."
       r"scaled_dot_product_attention yet|does not support Flash Attention 2\.0 yet",
       "attn_implementation asks for SDPA or FlashAttention-2 on a model class that does not "
       "implement it (in the installed transformers release).",
       "Each architecture lists the attention kernels it implements; newer releases add them.",
       ["environment.device"],
       "model = AutoModel.from_pretrained(ckpt, attn_implementation='eager')\n"
       "# or: pip install -U transformers   # newer releases implement sdpa for more models",
       title="Attention implementation not supported by this model", framework="pytorch"),
    # frequent errors of LLM fine-tuning set-ups, from several public threads each
    _m("fsdp-mixed-dtype-params",
       r"Must flatten tensors with uniform dtype but got (?P<dtype_a>torch\.\w+) and "
       r"(?P<dtype_b>torch\.\w+)",
       "FSDP flattens the parameters of each wrapped unit into one tensor of one dtype, and "
       "this unit mixes two: LoRA adapters (or norms) upcast to float32 by PEFT, TRL or "
       "prepare_model_for_kbit_training beside bf16/fp16 base weights.",
       "FSDP (v1) keeps one FlatParameter per wrapped module; every parameter in it must share "
       "a dtype.", ["model.precision-unsupported"],
       "model = get_peft_model(model, lora_config, autocast_adapter_dtype=False)   # adapters in "
       "the base dtype\n# or after it: for p in model.parameters(): p.data = p.data.to("
       "torch.bfloat16) if p.dtype == torch.float32 else p.data", framework="pytorch",
       title="FSDP unit with two parameter dtypes"),
    _m("fsdp-quantized-integer-params",
       r"Cannot flatten integer dtype tensors",
       "FSDP shards only floating-point parameters, and bitsandbytes stores quantized weights "
       "as integers (uint8/int8): FSDP with QLoRA needs bitsandbytes >= 0.43 and a float storage "
       "dtype; 8-bit LoRA does not work with FSDP.",
       "bnb_4bit_quant_storage stores the packed 4-bit weights in a float dtype FSDP can shard.",
       ["model.precision-unsupported"],
       "BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type='nf4', "
       "bnb_4bit_compute_dtype=torch.bfloat16,\n                   bnb_4bit_quant_storage=torch."
       "bfloat16)   # and torch_dtype=torch.bfloat16; pip install -U 'bitsandbytes>=0.43'",
       framework="pytorch", title="FSDP over integer (quantized) weights"),
    _m("quantized-weights-require-grad",
       r"[Oo]nly Tensors of floating point (?:and complex )?dtype can require gradients",
       "Code asks for gradients on integer tensors: the quantized (int8/uint8) weights of a "
       "bitsandbytes model unfrozen by a script, 8-bit LoRA under DeepSpeed ZeRO-3 or FSDP, or "
       "FSDP with the default uint8 4-bit storage.",
       "Integer tensors can never require gradients; quantized weights stay frozen and only "
       "the adapters train.", ["model.frozen-parameters"],
       "# keep quantized modules frozen; under FSDP/ZeRO-3 use 4-bit with a float storage:\n"
       "BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16, "
       "bnb_4bit_quant_storage=torch.bfloat16)", framework="pytorch",
       title="Gradients asked of integer (quantized) weights"),
    _m("deepspeed-cpu-adam-not-built",
       r"'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'",
       "DeepSpeed could not build or load its cpu_adam extension (optimizer offload to CPU): "
       "the CUDA toolkit does not match torch's CUDA, a header or library is missing, or there "
       "is no compiler; this AttributeError comes from __del__ afterwards. The build error is "
       "printed earlier in the log.",
       "Offloading the optimizer makes DeepSpeed JIT-compile its CPU Adam on first use.",
       ["environment.package-versions"],
       "python -c \"import deepspeed; deepspeed.ops.adam.cpu_adam.CPUAdamBuilder().load()\"   # "
       "shows the real build error\n# a CUDA toolkit matching torch.version.cuda (CUDA_HOME), "
       "then: DS_BUILD_CPU_ADAM=1 pip install --no-cache-dir deepspeed\n# or drop "
       "\"offload_optimizer\" from the ZeRO config", title="DeepSpeed's CPU Adam was not built"),
    _m("trainer-passes-num-items-in-batch",
       r"forward\(\) got an unexpected keyword argument ['\"]num_items_in_batch['\"]",
       "transformers' Trainer (from 4.46) passes num_items_in_batch to the model's forward "
       "whenever that forward takes **kwargs; this model's forward hands its kwargs on to a "
       "sub-module that does not take it. A regression of the Trainer for such models, not an "
       "old install.",
       "Trainer.model_accepts_loss_kwargs is read from the forward's signature.",
       ["model.forward"],
       "model.accepts_loss_kwargs = False   # before Trainer(...): no num_items_in_batch in "
       "forward\n# or a transformers release where this model class is fixed", priority=20,
       framework="pytorch", title="The Trainer passes num_items_in_batch to forward"),
    _m("torch-load-weights-only",
       r"Weights only load failed|WeightsUnpickler error: Unsupported global",
       "torch 2.6 made torch.load(weights_only=True) the default; the checkpoint holds pickled "
       "Python objects besides tensors (a Trainer checkpoint's RNG state or optimizer, NumPy "
       "values, a whole saved model), which that mode refuses.",
       "weights_only=True loads only tensors and allow-listed types, to avoid running code "
       "from untrusted pickles.",
       ["environment.pickle-weights-only"],
       "torch.load(path, weights_only=False)   # only for a checkpoint you trust\n"
       "pip install -U transformers   # resumes Trainer checkpoints under torch>=2.6\n"
       "# or: pip install \"torch<2.6\"", title="torch.load refuses the checkpoint (weights "
       "only)", family=NEW, behaviour_change=True, priority=14),
    _m("torch-compile-without-triton",
       r"Cannot find a working triton installation",
       "torch.compile's default backend (inductor) generates Triton kernels for the GPU, and "
       "Triton is not installed (or has no build for this platform, e.g. Windows).",
       "inductor compiles GPU code with Triton; without it compilation fails.",
       ["environment.device"],
       "pip install triton   # Linux; on Windows: pip install triton-windows\n"
       "# or train without compiling: TrainingArguments(torch_compile=False)",
       title="torch.compile needs Triton", family=MISSING, priority=14),
    _m("env-tokenizer-converter-missing",
       r"Converting from (?:Tiktoken|SentencePiece) failed|Couldn't instantiate the backend "
       r"tokenizer from one of:",
       "The fast tokenizer has to be converted from the checkpoint's slow tokenizer files, and "
       "the package that reads them is not installed (sentencepiece and protobuf for a "
       "tokenizer.model, tiktoken for a tiktoken file).",
       "Without a tokenizer.json, transformers builds the fast tokenizer from the slow one; "
       "each slow format needs its reader package.",
       ["environment.package-versions"],
       "pip install sentencepiece protobuf tiktoken   # then restart the runtime",
       priority=12, family="env-missing-package", title="No converter for the tokenizer files"),
    _m("decoder-start-token-missing",
       r"Make sure to set the decoder_start_token_id attribute of the model's configuration|"
       r"decoder_start_token_id or bos_token_id has to be defined for encoder-decoder generation|"
       r"self\.model\.config\.decoder_start_token_id has to be defined",
       "An encoder-decoder model (EncoderDecoderModel from two encoders, e.g. bert2bert) has no "
       "decoder_start_token_id (and often no pad_token_id) in its config, so it cannot shift the "
       "labels into decoder inputs.",
       "The decoder's inputs are the labels shifted right, starting with the start token.",
       ["model.decoder-start-missing"],
       "model.config.decoder_start_token_id = tokenizer.cls_token_id\n"
       "model.config.pad_token_id = tokenizer.pad_token_id",
       title="decoder_start_token_id not set", priority=13),
    _m("fp16-overflow-bf16-model",
       # DeepSpeed's fp16 scaler after overflow on every step
       r"(?P<scaler>Current loss scale already at minimum) - cannot decrease scale anymore|"
       r"(?<![A-Za-z0-9])(?:fp16|float16)(?![A-Za-z0-9])[\s\S]{0,200}?(?<![A-Za-z])(?:nan|inf)"
       r"(?![A-Za-z])|(?<![A-Za-z])(?:nan|inf)(?![A-Za-z])[\s\S]{0,200}?(?<![A-Za-z0-9])(?:fp16|"
       r"float16)(?![A-Za-z0-9])",
       "The model was pretrained in bfloat16, and in float16 (fp16 training or inference) its "
       "activations pass float16's maximum (65504) and overflow to inf, then NaN: the loss goes "
       "NaN (or 0), outputs turn to NaN.",
       "bfloat16 has float32's range; float16 does not, and weights trained in bf16 rely on it.",
       ["model.fp16-overflow-risk", "model.nan-loss-samples"],
       "args = TrainingArguments(..., bf16=True, fp16=False)   # Ampere or newer GPUs\n"
       "model = AutoModelForCausalLM.from_pretrained(ckpt, torch_dtype=torch.bfloat16)\n"
       "# a GPU without bf16 (T4, V100): train in float32 (fp16=False)",
       title="float16 overflow of a model pretrained in bfloat16", framework="pytorch",
       priority=9, refine=refine_bf16_family),
    _m("sampling-from-non-finite-logits",
       r"probability tensor contains either `?inf`?, `?nan`? or element < 0",
       "generate(do_sample=True) drew from logits that are inf or NaN: the model runs in float16 "
       "and overflows (common for Llama-family weights), its weights became NaN in training, or "
       "a temperature near 0 divided the logits into inf.",
       "Sampling turns the logits into probabilities with softmax; one inf or NaN makes the "
       "whole distribution invalid.",
       ["model.fp16-overflow-risk", "model.nan-loss-samples"],
       "model = AutoModelForCausalLM.from_pretrained(ckpt, torch_dtype=torch.bfloat16)   # not "
       "float16\n"
       "print(any(torch.isnan(p).any() for p in model.parameters()))   # weights NaN after "
       "training?\nmodel.generate(**inputs, do_sample=True, temperature=0.7)   # or "
       "do_sample=False", title="Sampling from inf/NaN probabilities", framework="pytorch"),
    _m("generation-temperature-zero",
       # transformers < 4.38
       r"`?temperature`? has to be a strictly positive float, but is 0(?:\.0)?\b|"
       r"`?temperature`? \(=0(?:\.0)?\) has to be a strictly positive float",
       "temperature=0 was passed to generate with sampling; greedy decoding is "
       "do_sample=False, not temperature 0.",
       "Sampling divides the logits by the temperature.",
       ["hyperparameters.hidden-defaults"],
       "model.generate(**inputs, do_sample=False)   # greedy\n"
       "# or sample with temperature > 0: do_sample=True, temperature=0.7",
       title="temperature=0 with sampling", priority=12),
    _m("generate-default-max-length",
       r"Using the model-agnostic default `?max_length`? \(=20\) to control the generation "
       r"length",
       "generate() stops after 20 tokens in all (prompt included) because neither max_new_tokens "
       "nor a generation config sets a length: the outputs look cut off.",
       "Without max_new_tokens, generate falls back to max_length=20.",
       ["hyperparameters.hidden-defaults"],
       "model.generate(**inputs, max_new_tokens=256)", title="Generation stops at 20 tokens",
       priority=0),
    _m("distributed-not-launched",
       # torch < 1.7
       r"Default process group is not initialized|"
       r"Default process group has not been initialized, please make sure to call "
       r"init_process_group",
       "Distributed code (a DistributedSampler, dist.barrier, SyncBatchNorm, a DeepSpeed or "
       "FSDP setting) runs in a script started with plain python, so no process group exists.",
       "torchrun and accelerate launch start the processes and create the process group.",
       ["environment.device"],
       "torchrun --nproc_per_node=2 train.py   # or: accelerate launch train.py",
       title="Process group not initialized (no launcher)", priority=13),
    _m("distributed-port-in-use",
       # Windows' EADDRINUSE
       r"system error: 10048\b|"
       r"Address already in use|The server socket has failed to (?:listen|bind)[^\n]{0,120}"
       r"errno: 98",
       "The port the launcher uses for its processes to meet (29500 by default) is taken: an "
       "earlier run still alive, or two runs on one machine.",
       "torchrun and accelerate rendezvous on MASTER_PORT.", ["environment.device"],
       "accelerate launch --main_process_port 29501 train.py   # or: torchrun --master_port "
       "29501 ...\n# or end the old run: pkill -f train.py", title="Launcher port in use",
       priority=12),
    _m("cuda-error-asynchronous",
       r"CUDA error: an illegal memory access was encountered|CUBLAS_STATUS_EXECUTION_FAILED|"
       r"cublas runtime error : the GPU program failed to execute|"
       r"CUDA error: unspecified launch failure",
       "A CUDA kernel failed, and CUDA reports it at a later call, so the traceback points at the "
       "wrong line. In fine-tuning the usual cause is an index out of range on the GPU (a token "
       "id beyond the embeddings, a label beyond the classes); otherwise a kernel or driver "
       "fault.", "GPU kernels run asynchronously; errors surface at the next synchronisation.",
       ["model.cpu-rerun", "data.token-ids-out-of-vocab", "data.labels-out-of-range"],
       "CUDA_LAUNCH_BLOCKING=1 python train.py   # the real failing line\n"
       "# or one batch on the CPU, which raises the readable IndexError", priority=10,
       title="A CUDA kernel failed (reported late)"),
    _m("gpu-unusable",
       r"all CUDA-capable devices are busy or unavailable|uncorrectable ECC error encountered",
       "The GPU cannot take this process: it is in exclusive mode and held by another process, "
       "or it reports a hardware memory (ECC) fault.",
       "A GPU in exclusive-process mode accepts one process; ECC errors need a reset.",
       ["memory.gpu-held-by-other-process", "environment.device"],
       "nvidia-smi   # which processes hold the GPU, and its ECC counters\n"
       "CUDA_VISIBLE_DEVICES=1 python train.py   # another GPU; ask the admin to reset a faulty "
       "one", title="The GPU is busy or faulty", priority=12),
    _m("vllm-kv-cache-too-small",
       # vLLM V1
       r"To serve at least one request with the models?'s max seq len \(\d+\), \([\d.]+ \w?i?B KV cache is needed, which is larger than the available KV cache memory|"
       r"larger than the maximum number of tokens that can be stored in KV cache|No available "
       r"memory for the cache blocks",
       "vLLM has too little GPU memory left for the KV cache after loading the weights: the "
       "model's full context length does not fit (or another process holds memory).",
       "vLLM reserves gpu_memory_utilization of the GPU for weights and the KV cache.",
       ["memory.will-not-fit", "memory.gpu-held-by-other-process"],
       "LLM(model=ckpt, max_model_len=8192, gpu_memory_utilization=0.95)   # a shorter context",
       title="vLLM: KV cache too small", priority=12),
    _m("gemma2-needs-eager-attention",
       r"strongly recommended to train Gemma2 models with the `?eager`? attention implementation",
       "Gemma 2 is trained here with sdpa or flash attention, which skip its attention logit "
       "soft-capping: the loss is worse or NaN.",
       "Gemma 2 caps attention logits; only the eager implementation applies the cap.",
       ["model.fp16-overflow-risk"],
       "AutoModelForCausalLM.from_pretrained(ckpt, attn_implementation='eager')",
       title="Gemma 2 needs eager attention", priority=0),
    _m("library-info-warning",
       r"Unsloth should be imported before transformers|`?loss_type=None`? was set in the config "
       r"but it is unrecognised|The new embeddings will be initialized from a multivariate normal "
       r"distribution|Setting `?save_embedding_layers`? to `?True`?|Setting `?pad_token_id`? to "
       r"`?eos_token_id`?:?\s?\d* for open-end generation|The attention mask and the pad token id "
       r"were not set|were not used when initializing \w+|The model weights are not tied|"
       r"fan_in_fan_out is set to False but the target module is `?Conv1D|Could not find a config "
       r"file in [^\n]{1,200} - will assume that the vocabulary was not modified|couldn't be "
       r"hashed properly, a random hash was used instead|cache-system uses symlinks by default|"
       r"Special tokens have been added in the vocabulary, make sure the associated word "
       r"embeddings are fine-tuned|The current process just got forked, after parallelism has "
       r"already been used|with a fast tokenizer, using the `__call__` method is faster|"
       r"`torch_dtype` is deprecated! Use `dtype` instead|`tokenizer` is deprecated and will be "
       r"removed in version [\d.]+ for `\w+\.__init__`\. Use `processing_class` instead|"
       r"There were missing keys in the checkpoint model loaded: \['lm_head\.weight'\]",
       "Not an error: an informational message of the library about a default it chose (import "
       "order, the loss, the pad token for generation, pretraining weights a task model does "
       "not use, new embeddings, caching, symlinks).",
       "These messages describe a default the library chose.", [],
       "# nothing to fix", title="An informational message (not an error)", priority=0,
       benign=True),
    _m("fp16-and-bf16-both",
       r"At most one of fp16 and bf16 can be True",
       "Both fp16 and bf16 are switched on (often bf16=True beside a config or script default "
       "of fp16=True).", "One mixed-precision mode is used at a time.",
       ["hyperparameters.hidden-defaults"],
       "TrainingArguments(..., bf16=True, fp16=False)   # bf16 on Ampere or newer, else fp16",
       title="fp16 and bf16 both on", priority=13),
    _m("deepspeed-config-not-found",
       r"Expected a string path to an existing deepspeed config, or a dictionary",
       "The DeepSpeed config path does not exist from where the script runs (a relative path "
       "and another working directory, or a misspelt name).",
       "The Trainer reads the config from the path given to deepspeed=.",
       ["environment.device"],
       "TrainingArguments(..., deepspeed=os.path.abspath('ds_config.json'))   # ls it first",
       title="DeepSpeed config not found", family="local-file-missing", priority=13),
    _m("cache-dir-not-writable",
       # transformers' warning; HOME resolving to /
       r"There was a problem when trying to write in your cache folder|Permission denied: '/\.cache'|"
       r"Permission denied: '[^'\n]{0,200}(?:\.cache[/\\]huggingface|huggingface[/\\](?:hub|"
       r"datasets|modules))|(?:Read-only file system|PermissionError)[^\n]{0,200}\.cache[/\\]"
       r"huggingface",
       "The Hugging Face cache folder is not writable for this user or container (a cache made "
       "by root, a read-only home, a shared cluster path).",
       "Models and datasets are cached under HF_HOME (~/.cache/huggingface).",
       ["environment.download-size"],
       "export HF_HOME=/a/writable/path/hf   # before starting Python; or cache_dir= in "
       "from_pretrained / load_dataset", title="Cache folder not writable", priority=13),
    _m("loss-stuck-at-chance",
       r"(?:^|[\s{,'\"])loss['\"]?\s*[:=]\s*\d\.\d{3}",
       "The loss stays at ln(number of classes): the model predicts the uniform distribution "
       "and is not learning. Fine-tuning a pretrained transformer, the usual cause is a learning "
       "rate far too high (Keras' Adam default 1e-3), which destroys the pretrained weights in "
       "the first steps; otherwise labels that do not vary or an output layer that is frozen.",
       "A classifier that outputs equal probabilities over k classes has loss ln(k).",
       ["hyperparameters.learning-rate-too-high", "training.cannot-overfit-batch",
        "data.label-balance"],
       "optimizer = tf.keras.optimizers.Adam(learning_rate=3e-5)   # or "
       "TrainingArguments(learning_rate=2e-5)\n# then check that one batch can be overfit",
       title="Loss stuck at chance level", priority=1, refine=refine_chance_loss),
    _m("hub-file-not-in-repo",
       r"(?<!Local)EntryNotFoundError|"
       r"404 Client Error(?![^\n]{0,40}(?:Repository|Revision) Not Found)"
       r"[^\n]{0,60}Not Found for url|Entry Not Found for url",
       "The repository exists but has no file of that name (at that revision): renamed or "
       "removed since the tutorial or script was written, or a path inside the repository "
       "spelt differently.",
       "hf_hub_download / hf_hub_url address one file of a repository by its path.",
       ["environment.hub-file-missing"],
       "from huggingface_hub import list_repo_files\n"
       "print(list_repo_files(repo_id, repo_type='dataset'))   # the files it has now",
       title="No such file in the repository", priority=11, refine=refine_hub_file),
    _m("hub-rate-limited",
       # a mirror or a shortened URL
       r"429 Client Error:? Too Many Requests for url\b|"
       r"429 Client Error: Too Many Requests for url: https://huggingface\.co|"
       r"HTTP Error 429 thrown while requesting",
       "The Hub refused more requests from this address for a while: many downloads or "
       "dataset file listings in a short time (several processes, streaming many shards, "
       "resolving a large dataset), often without a token.",
       "The Hub rate-limits anonymous and free requests per IP and per token.",
       ["environment.hub-unreachable"],
       "hf auth login   # authenticated requests get a higher limit\n"
       "# download once and reuse: snapshot_download(repo_id, local_dir=...); wait and retry",
       title="Too many requests to the Hub", priority=13),
    _m("hub-revision-not-found",
       # transformers' own wording
       r"is not a valid git identifier \(branch name, tag name or commit id\)|"
       r"RevisionNotFoundError|Revision Not Found for url|Invalid rev id: (?P<revision>\S+)",
       "The revision (branch, tag or commit) named with revision= does not exist in the "
       "repository.", "revision= selects a branch, tag or commit of the Hub repository.",
       ["environment.revision-not-found"],
       "AutoModel.from_pretrained(repo_id, revision='main')   # or a commit hash the repository's "
       "history shows", title="No such revision", priority=12),
    _m("wandb-not-logged-in",
       # the interactive login menu (a run waiting on it)
       r"wandb: \(1\) Create a W&B account|wandb: Enter your choice|"
       r"api_key not configured \(no-tty\)|wandb\.errors\.\w*Error: api_key not configured",
       "The Trainer reports to Weights & Biases (report_to defaults to every installed "
       "integration in older releases) and wandb has no API key in this non-interactive run.",
       "wandb asks for a login on a terminal; without one it stops.",
       ["hyperparameters.hidden-defaults"],
       "TrainingArguments(..., report_to='none')   # or: wandb login / WANDB_API_KEY=...\n"
       "# or: export WANDB_DISABLED=true", title="wandb is not logged in", family="env-setup-step-skipped",
       priority=12),
    _m("num-return-sequences-greedy",
       r"Greedy methods without beam search do not support `?num_return_sequences`? different "
       r"than 1",
       "generate() was asked for several sequences per input with greedy decoding, which has "
       "only one.",
       "Greedy search keeps the single most likely continuation; several need sampling or "
       "beams.", ["model.forward"],
       "model.generate(**inputs, do_sample=True, num_return_sequences=4)   # or num_beams=4",
       title="num_return_sequences with greedy decoding", priority=13),
    _m("whole-model-offloaded-to-disk",
       r"You are trying to offload the whole model to the disk",
       "device_map='auto' found no room for the model on a GPU or in RAM: no GPU is visible "
       "(CUDA unavailable, CUDA_VISIBLE_DEVICES), or max_memory leaves none.",
       "accelerate places layers on GPUs first, then the CPU, then the disk; nothing fits "
       "before the disk here.", ["memory.estimate"],
       "import torch; print(torch.cuda.is_available())   # the GPU must be visible\n"
       "model = AutoModelForCausalLM.from_pretrained(ckpt, device_map='auto', "
       "torch_dtype=torch.bfloat16)   # or a 4-bit quantization_config",
       title="The whole model would go to the disk", priority=13),
    _m("generation-attention-mask-not-set",
       r"The attention mask is not set and cannot be inferred from input because pad token is "
       r"same as eos token",
       "A warning, not an error: generate() got no attention_mask, and with pad == eos it cannot "
       "tell padding from an end of sequence, so batched or padded prompts may generate badly.",
       "generate() infers the mask from pad tokens only when the pad token is its own token.", [],
       "out = model.generate(**inputs)   # inputs = tokenizer(..., return_tensors='pt') carries "
       "attention_mask", title="generate() without an attention mask (a warning)", priority=0,
       benign=True),
    _m("tensor-copy-constructed-warning",
       r"To copy construct from a tensor, it is recommended to use sourceTensor\.clone\(\)\."
       r"detach\(\)",
       "A warning, not an error: torch.tensor() was called on something that is already a "
       "tensor (often in a Dataset's __getitem__ over tokenizer outputs).",
       "torch.tensor copies its input; on a tensor that copy keeps no graph and PyTorch warns.",
       [], "item = {k: v.clone().detach() for k, v in encodings.items()}   # or "
       "torch.as_tensor(v)", title="torch.tensor() on a tensor (a warning)", priority=0,
       benign=True),
    _m("merge-into-4bit-rounding-warning",
       r"Merge lora module to (?:4|8)-bit linear may get different generations due to rounding "
       r"errors",
       "A warning: the adapter is merged into 4-bit (or 8-bit) weights, which are dequantized, "
       "merged and quantized again, so the merged model generates a little differently from the "
       "adapter on top of the quantized base.",
       "Re-quantizing after the merge rounds the weights again.", ["model.adapter"],
       "base = AutoModelForCausalLM.from_pretrained(<the unquantized base>, torch_dtype=torch."
       "bfloat16)\nmerged = PeftModel.from_pretrained(base, adapter).merge_and_unload()   # merge "
       "in 16 bits, then quantize if needed", title="Merging into 4-bit weights (a warning)",
       priority=0, benign=True),
    _m("pipeline-device-with-device-map",
       r"The model has been loaded with `?accelerate`? and therefore cannot be moved to a specific "
       r"device",
       "pipeline(..., device=...) got a model loaded with a device_map (accelerate already "
       "placed it, possibly over several devices), which the pipeline must not move again.",
       "A dispatched model keeps the placement accelerate gave it.", ["environment.device"],
       "pipe = pipeline('text-generation', model=model, tokenizer=tokenizer)   # no device=",
       title="A device for a model placed by device_map", priority=13),
    _m("use-cache-with-checkpointing-warning",
       r"`?use_cache=True`? is incompatible with gradient checkpointing\. Setting "
       r"`?use_cache=False`?|Caching is incompatible with gradient checkpointing in \w+\. Setting "
       r"`?use_cache=False`?",
       "Not an error: with gradient checkpointing, transformers turns the generation cache off "
       "for training, as it should.", "The cache is only useful when generating.", [],
       "model.config.use_cache = False   # silences it; re-enable for generation",
       title="use_cache with gradient checkpointing (a warning)", priority=0, benign=True),
    _m("truncation-not-activated-warning",
       r"Truncation was not explicitly activated but `?max_length`? is provided a specific "
       r"value",
       "Not an error: the tokenizer was given max_length without truncation=True and truncates "
       "with its default strategy.", "Set truncation explicitly to choose the strategy.", [],
       "tokenizer(texts, max_length=512, truncation=True)", priority=0, benign=True,
       title="Truncation not explicitly activated (a warning)"),
    _m("unused-columns-ignored-info",
       r"The following columns in the (?:training|evaluation|test) set don't have a corresponding "
       r"argument in `[\w.]+` and have been ignored",
       "Not an error: the Trainer drops dataset columns the model's forward does not take (the "
       "raw text, ids).", "remove_unused_columns=True is the default.", [],
       "# nothing to fix; set remove_unused_columns=False only when a collator needs them",
       title="Unused columns ignored (information)", priority=0, benign=True),
    _m("dataparallel-gather-scalars-warning",
       r"Was asked to gather along dimension 0, but all input tensors were scalars",
       "Not an error: with several GPUs in one process (DataParallel), each GPU returns its "
       "scalar loss and they are stacked into a vector, which the Trainer averages.",
       "DataParallel gathers the outputs of the replicas.", [],
       "# nothing to fix; torchrun --nproc_per_node=N train.py runs DDP instead, which is faster",
       title="DataParallel gathered scalars (a warning)", priority=0, benign=True),
]
