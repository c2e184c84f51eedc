"""Errors of the training set-up's configuration: a configuration pydantic rejects, momentum
cycled on an optimizer without it, a model left out of DeepSpeed under ZeRO-3,
FSDP units mixing frozen and trainable weights, accelerate's DeepSpeed settings given twice,
experiment trackers refusing TrainingArguments' values, and Hub code written for an older
gradient-checkpointing API.
"""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.env_answers import answer, upgrade
from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature, signature_maker

_g = signature_maker(12)

# pydantic's report of one field: "pretraining_dataset\n  Input should be a valid list [type=..."
# (pydantic 2) or "value is not a valid list (type=type_error.list)" (pydantic 1)
_PYDANTIC_KIND = {"missing": ("Field required", "field required"),
                  "extra": ("Extra inputs are not permitted", "extra fields not permitted")}


# the momentum-like hyperparameters each optimizer class has (Keras names; torch keeps them in
# param_groups): a schedule that cycles momentum needs the one its optimizer has
_OWN_MOMENTUM = {"SGD": {"momentum", "nesterov"}, "RMSprop": {"momentum", "rho"},
                 "Adadelta": {"rho"}, "Adagrad": set(), "Ftrl": set(),
                 **{k: {"beta_1", "beta_2", "beta1", "beta2", "betas"}
                    for k in ("Adam", "AdamW", "Adamax", "Nadam", "Lion", "LAMB", "Lamb")}}


def refine_momentum(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """An optimizer lacking a hyperparameter of its own is another fault (a wrapper, a
    release)."""
    opt, attr = ev.get("opt"), ev.get("attr")
    if opt and attr in _OWN_MOMENTUM.get(str(opt), set()):
        return {"reject": True}
    return None


def refine_config_field(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A missing field and an unknown key are other faults of the same configuration."""
    field, model, problem = ev.get("field", "?"), ev.get("model", "the configuration"), \
        str(ev.get("problem", ""))
    if problem.startswith(_PYDANTIC_KIND["missing"]):
        return {"id": "config-field-missing",
                "cause": f"The configuration lacks {field}, which {model} requires.",
                "fix": f"# add {field} to the config (YAML file or keyword arguments); the "
                       "tool's example configs of the installed release show its form"}
    if problem.startswith(_PYDANTIC_KIND["extra"]):
        return {"id": "config-field-unknown",
                "cause": f"The configuration has a key {field} that {model} does not define: a "
                         "typo, or an option of another release of the tool (renamed, removed or "
                         "not yet added).",
                "fix": f"# remove or rename {field} in the config; compare with the example "
                       "configs of the installed release (pip show <tool>)"}
    if field.endswith("stage3_prefetch_bucket_size") and "fractional" in problem:
        # transformers before 4.45 filled "auto" with 0.9 * hidden_size**2, a float, which
        # DeepSpeed 0.15's pydantic config refuses
        return answer("env-version-too-old", "transformers",
                      "DeepSpeed (0.15 on) validates stage3_prefetch_bucket_size as an integer, "
                      "and transformers before 4.45 fills its \"auto\" value with a float "
                      "(0.9 * hidden_size**2).", upgrade("transformers", "4.45.0") +
                      "   # or write an integer for stage3_prefetch_bucket_size in place of "
                      "\"auto\"", ev)
    return {"cause": f"The configuration gives {field} a value of the wrong type: {model} "
                     f"validates it, and says: {problem.strip()[:160]}",
            "fix": f"# in the config file, write {field} in the form the message asks for "
                   "(a YAML list takes '- ' items, even for one entry; a number has no quotes)"}


def refine_zero3_model(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A weight that is not 2-D is an unprepared ZeRO-3 model only when the paste runs
    DeepSpeed ZeRO-3."""
    return None if re.search(r"zero[_ -]?(?:stage[_ ]?)?3|stage3|zero3|deepspeed|"
                             r"tensor\(\[\], device=", parsed.text, re.I) else {"reject": True}


def refine_unsloth_old_trl(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Indexing the GRPO batch by name fails on a list when Unsloth compiled its trainer from a
    trl older than 0.15 (the line that reads prompt_ids is the innermost frame's)."""
    code = " ".join(f.code or "" for f in parsed.frames[-2:]) if parsed.frames else parsed.text
    return None if re.search(r"inputs\[['\"]prompt_ids['\"]\]", code) else {"reject": True}


def refine_ppo_models(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    return None if re.search(r"PPO|value_model|reward_model", parsed.text) else {"reject": True}


def refine_mlflow(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    return None if re.search(r"mlflow", parsed.text, re.I) else {"reject": True}


SETUP_SIGNATURES: list[Signature] = [
    _g("optimizer-lacks-cycled-momentum",
       r"optimizer must support momentum(?: or beta1)? with `?cycle_momentum`? option enabled|"
       r"'(?P<opt>SGD|RMSprop|Adagrad|Adadelta|Adam|AdamW|Adamax|Nadam|Ftrl|Lion|LAMB|Lamb)' "
       r"object has no attribute '(?P<attr>beta_1|beta_2|beta1|beta2|betas|momentum|rho)'",
       "The code cycles or reads a momentum hyperparameter the optimizer does not have: a "
       "one-cycle policy (ktrain's fit_onecycle, fastai, torch's OneCycleLR/CyclicLR with "
       "cycle_momentum=True) moves beta_1 of Adam-like optimizers or momentum of SGD, and the "
       "optimizer in use has neither (RMSprop has no beta_1, Adam no momentum, Adagrad none).",
       "Momentum cycling rewrites one named hyperparameter of the optimizer at every step.",
       ["hyperparameters.hidden-defaults"],
       "model.compile(optimizer=tf.keras.optimizers.Adam(3e-5), ...)   # beta_1 to cycle\n"
       "# torch: OneCycleLR(optimizer, max_lr, total_steps, cycle_momentum=False), or an "
       "optimizer with momentum/betas", title="Momentum cycled on an optimizer without it",
       refine=refine_momentum),
    _g("tracker-imported-after-framework",
       r"You must import Comet before these modules: (?P<modules>[\w, .]+)",
       "comet_ml patches the frameworks when it is imported, so it must come before them; here "
       "torch (or tensorflow, tensorboard) was imported first, directly or through a library "
       "(transformers, lightning) that imports it.",
       "Comet hooks the frameworks at import time to log automatically.",
       ["environment.package-versions"],
       "import comet_ml   # the very first import of the script\nimport torch\n...",
       title="Comet imported after the framework", priority=14),
    _g("config-field-wrong-type",
       r"\d+ validation errors? for (?P<model>[\w.]+)\s*\n\s*(?P<field>[\w.\[\]-]+)\s*\n\s*"
       r"(?P<problem>Input should be[^\n\[]*|Field required|Extra inputs are not permitted|"
       r"value is not a valid[^\n(]*|field required|extra fields not permitted|[^\n]*\(type="
       r"type_error[^\n]*)",
       "A field of the configuration has a value of the wrong type.",
       "Configuration classes (axolotl's, LLaMA-Factory's, many trainers' and servers') are "
       "pydantic models: each field is checked against its declared type when the config is "
       "read, before any training, and the error names the field.",
       ["environment.package-versions"],
       "# give the named field the type the message asks for in the config file",
       title="A configuration field pydantic rejects", refine=refine_config_field),
    _g("zero-inference-requires-stage3",
       r"ZeRO inference only makes sense with ZeRO Stage 3",
       "The Trainer evaluated or predicted under DeepSpeed without training first (do_eval or "
       "predict alone, or evaluation before train), which runs DeepSpeed's ZeRO inference, and "
       "the DeepSpeed config is not ZeRO stage 3.",
       "Without an optimizer to shard, DeepSpeed only offers inference through ZeRO-3's "
       "parameter partitioning; stages 1 and 2 shard optimizer states and gradients only.",
       ["environment.package-versions"],
       "--deepspeed ds_zero3.json   # a stage-3 config for evaluation alone\n# or evaluate "
       "without --deepspeed (the model fits one GPU for inference), or train before evaluating",
       framework="pytorch", title="ZeRO inference on a stage 1/2 config", priority=14),
    _g("zero3-model-not-prepared",
       r"'weight' must be 2-D",
       "Under DeepSpeed ZeRO-3, from_pretrained partitions every model's weights and leaves "
       "empty tensors in their place; a second model (a DPO/PPO reference model, a "
       "distillation teacher, a frozen encoder) was never passed through DeepSpeed, so its "
       "layers run on the empty shards.",
       "ZeRO-3 gathers a layer's weights only inside the engine that owns them.",
       ["model.forward"],
       "ref_model = accelerator.prepare(ref_model)   # or deepspeed.initialize(model=teacher, "
       "config=ds_config)[0]\n# trl: an up-to-date DPOTrainer prepares its ref_model itself",
       framework="pytorch", title="A model left out of DeepSpeed under ZeRO-3",
       refine=refine_zero3_model),
    _g("fsdp-mixed-requires-grad",
       r"Must flatten tensors with uniform `?requires_grad`? when `?use_orig_params=False`?|"
       r"`?FlatParameter`? requires uniform `?requires_grad`?",
       "FSDP flattens each wrapped unit into one parameter, which without use_orig_params must "
       "be all frozen or all trainable; LoRA (or partial freezing) puts frozen base weights and "
       "trainable adapters in the same decoder layer.",
       "use_orig_params=True keeps the original parameters, frozen or not, inside the flat one.",
       ["model.frozen-parameters"],
       "# accelerate config, fsdp_config:\nfsdp_use_orig_params: true\n# or TrainingArguments("
       "fsdp='full_shard auto_wrap', fsdp_config={'use_orig_params': True})",
       framework="pytorch", title="FSDP unit of frozen and trainable weights"),
    _g("accelerate-deepspeed-config-twice",
       r"When using `deepspeed_config_file`, the following accelerate config variables will be "
       r"ignored",
       "accelerate was given a DeepSpeed JSON (deepspeed_config_file) and DeepSpeed settings in "
       "its own config or launch flags as well (often a stale default_config.yaml): gradient "
       "accumulation, clipping, ZeRO stage, offload or mixed precision twice.",
       "With a DeepSpeed JSON, the JSON alone decides; accelerate refuses the duplicates.",
       ["hyperparameters.hidden-defaults"],
       "rm ~/.cache/huggingface/accelerate/default_config.yaml && accelerate config   # keep only "
       "deepspeed_config_file\n# and put those values in the DeepSpeed JSON ('auto' takes the "
       "Trainer's)", title="DeepSpeed settings given twice"),
    _g("nccl-unavailable-on-platform",
       r"Distributed package doesn't have NCCL built in",
       "The run asks torch.distributed for the NCCL backend (a launcher, DeepSpeed, FSDP, or "
       "backend='nccl' in the code) on Windows or macOS, whose PyTorch has no NCCL.",
       "NCCL ships only with PyTorch for Linux.", ["environment.device"],
       "python train.py   # one GPU: no distributed launcher\n# several on Windows: "
       "torch.distributed.init_process_group(backend='gloo'), or Linux / WSL2",
       title="NCCL asked for where PyTorch has none"),
    _g("spawn-without-main-guard",
       r"An attempt has been made to start a new process before the\s+current process has "
       r"finished its bootstrapping phase",
       "On Windows and macOS worker processes are spawned and re-import the main script: "
       "DataLoader workers (num_workers > 0) or Dataset.map(num_proc > 1) started from "
       "top-level code without an `if __name__ == \"__main__\":` guard.",
       "Each spawned process runs the script's top level again.", ["data.batch-structure"],
       "if __name__ == \"__main__\":\n    main()   # the training code under the guard\n# or "
       "dataloader_num_workers=0 and map(..., num_proc=None)",
       title="Worker processes without the main guard"),
    _g("nccl-duplicate-gpu",
       r"Duplicate GPU detected\s*:\s*rank \d+ and rank \d+ both on CUDA device",
       "Two ranks of the distributed run were placed on one GPU: more processes than visible "
       "GPUs, or each process not pinned to its local rank.",
       "NCCL refuses a communicator with two ranks on one device.", ["environment.device"],
       "CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node 2 train.py   # one process per GPU\n"
       "torch.cuda.set_device(int(os.environ['LOCAL_RANK']))   # in a hand-written loop",
       priority=18, title="Two ranks on one GPU"),
    _g("trl-vllm-server-not-started",
       r"vllm_client[^\n]{0,40}Server is not up yet",
       "GRPOTrainer(use_vllm=True) in server mode (the default from trl 0.16) waits for a "
       "separate `trl vllm-serve` process, and none was started (or it is on a host, port or "
       "GPUs the client cannot reach).",
       "The trainer is only the client of the vLLM server in this mode.",
       ["hyperparameters.hidden-defaults"],
       "CUDA_VISIBLE_DEVICES=0 trl vllm-serve --model MODEL   # first, on its own GPU\n"
       "CUDA_VISIBLE_DEVICES=1,2,3 accelerate launch train.py   # then the training\n"
       "# one GPU: GRPOConfig(use_vllm=True, vllm_mode='colocate')",
       title="No trl vllm-serve for the trainer to reach"),
    _g("unsloth-vllm-engine-missing",
       r"object has no attribute 'vllm_engine'",
       "Unsloth's GRPO trainer with use_vllm=True reads model.vllm_engine, which exists only when "
       "the model was loaded with FastLanguageModel.from_pretrained(..., fast_inference=True) "
       "on a model family Unsloth's vLLM path supports.",
       "fast_inference=True builds the vLLM engine beside the model.", ["model.forward"],
       "model, tokenizer = FastLanguageModel.from_pretrained(name, fast_inference=True, "
       "max_lora_rank=r)\n# or GRPOConfig(use_vllm=False) for models without it",
       title="No vLLM engine on the Unsloth model"),
    _g("unsloth-grpo-trl-too-old",
       r"list indices must be integers or slices, not str",
       "Unsloth compiles its GRPO trainer from the installed trl, and trl 0.14 does not turn "
       "the batch into the dict of prompt_ids and prompt_mask it reads: trl is older than this "
       "Unsloth needs.", "Unsloth patches trl's trainer in place.",
       ["environment.package-versions"],
       'pip install -U "trl>=0.15.2" unsloth unsloth_zoo   # then delete '
       "unsloth_compiled_cache/ and restart", priority=18, family="env-version-too-old",
       title="trl too old for Unsloth's GRPO", refine=refine_unsloth_old_trl),
    _g("ppo-models-not-sequence-classifiers",
       r"object has no attribute 'base_model_prefix'",
       "The PPO trainer (trl >= 0.11) reads the reward and value models as transformers "
       "sequence classifiers (base_model_prefix, score); a value-head model or another class was "
       "passed.", "PPOTrainer calls getattr(model, model.base_model_prefix) and model.score.",
       ["model.forward"],
       "reward_model = AutoModelForSequenceClassification.from_pretrained(rm_path, "
       "num_labels=1)\nvalue_model = AutoModelForSequenceClassification.from_pretrained(rm_path,"
       " num_labels=1)", priority=18, title="PPO's reward/value model of another class",
       refine=refine_ppo_models),
    _g("zero3-reference-model-copy",
       r"is not compatible with `create_reference_model\(\)`",
       "The trainer was given no ref_model and tried to copy the policy for one, which ZeRO-3's "
       "sharded parameters do not allow: the reference model has to be loaded on its own.",
       "create_reference_model deep-copies the model.", ["model.forward"],
       "ref_model = AutoModelForCausalLM.from_pretrained(model_id, torch_dtype=torch.bfloat16)\n"
       "trainer = DPOTrainer(model=model, ref_model=ref_model, ...)   # or PEFT: ref_model=None",
       title="A reference model copied under ZeRO-3"),
    _g("gptq-exllama-offloaded",
       r"Found modules on cpu/disk\. Using Exllama (?:or Exllamav2 )?backend requires all the "
       r"modules to be on GPU",
       "A GPTQ model is loaded with its ExLlama kernels while some modules are on the CPU or "
       "disk (no device_map, device_map='cpu', or 'auto' offloading on a small GPU).",
       "The ExLlama kernels run on the GPU only.", ["memory.will-not-fit"],
       "model = AutoModelForCausalLM.from_pretrained(model_id, device_map='auto')   # all on the "
       "GPU if it fits\n# otherwise: quantization_config=GPTQConfig(bits=4, use_exllama=False)",
       title="GPTQ's ExLlama kernels with offloaded modules"),
    _g("gptq-exllama-buffer-too-small",
       r"(?:The )?temp_state buffer is too small",
       "A GPTQ model quantized with act-order runs on ExLlama, whose reorder buffer holds 2048 "
       "tokens by default; a longer prompt or training sequence overflows it.",
       "auto-gptq sizes the buffer once, at load time.", ["data.text-lengths"],
       "from auto_gptq import exllama_set_max_input_length\n"
       "model = exllama_set_max_input_length(model, max_input_length=8192)",
       title="ExLlama's buffer shorter than the sequence"),
    _g("peft-label-names-warning",
       r"No label_names provided for model class `?PeftModel\w*`?",
       "Not an error: the Trainer reads label names from forward's signature, which PeftModel "
       "hides behind **kwargs; a causal LM still computes its loss from the batch's labels.",
       "Look for the real error, if any, further down.", [],
       "TrainingArguments(..., label_names=['labels'])   # silences it",
       title="No label_names for a PEFT model (harmless)", priority=0, benign=True),
    _g("legacy-tuple-cache",
       r"['\"]tuple['\"] object has no attribute '(?:get_seq_length|get_usable_length|update)'",
       "past_key_values arrive as legacy tuples where the model expects a Cache object (the "
       "cache refactor of transformers 4.36 and later): PEFT's prefix tuning before 0.14, or a "
       "model's own Hub code written for the tuple format.",
       "Models now read and update the cache through Cache methods.", ["model.adapter"],
       "pip install -U peft   # >= 0.14 builds prefix-tuning caches as Cache objects\n"
       "# a model with its own Hub code: the transformers release that code was written for",
       title="Tuple caches where a Cache is expected"),
    _g("zero-gradient-reduced-twice",
       r"has already been reduced\.\s+Gradient computed twice for this partition",
       "DeepSpeed ZeRO-2/3 reduces each parameter's gradient once per step, and this one was "
       "reduced twice: reentrant gradient checkpointing re-runs hooks, or one module runs twice "
       "in a step (two forward passes before one backward).",
       "ZeRO's backward hooks allow one reduction per parameter per step.", ["model.forward"],
       "TrainingArguments(..., gradient_checkpointing=False)   # or "
       "gradient_checkpointing_kwargs={'use_reentrant': False}\n# or one forward pass over "
       "both inputs concatenated", title="A gradient reduced twice under ZeRO"),
    _g("local-rank-argument",
       r"unrecognized arguments: --local[-_]rank=\d+|not used by the HfArgumentParser: "
       r"\[(?:'[^'\n]*', )*'--local[-_]rank=\d+'",
       "torch.distributed.launch passes every process a --local-rank argument (--local_rank "
       "before PyTorch 2.0) that the script's argparse (or HfArgumentParser) does not declare "
       "in that spelling, or at all: the script is written for torchrun, which passes none.",
       "torchrun passes no argument at all: the rank is in LOCAL_RANK.", ["script.read"],
       "parser.add_argument('--local-rank', '--local_rank', type=int, default=-1)\n# or torchrun "
       "and int(os.environ['LOCAL_RANK'])", title="The launcher's --local-rank not accepted"),
    _g("zero3-inflight-params",
       r"still have inflight params",
       "ZeRO-3 prefetches parameters in the order it traced, and this step ran modules in "
       "another order (data-dependent branches, generate or eval beside training, extra towers).",
       "Prefetching follows the module order of earlier steps.", ["model.forward"],
       '"zero_optimization": {"stage": 3, "stage3_prefetch_bucket_size": 0}   # in the DeepSpeed '
       "config; or pip install -U deepspeed, or ZeRO stage 2",
       title="ZeRO-3 prefetch out of order"),
    _g("collective-on-cpu-tensor",
       r"Tensors must be CUDA and dense|No backend type associated with device type cpu",
       "A CPU tensor was passed to a collective (all_reduce, broadcast, gather) of an NCCL "
       "process group, which takes CUDA tensors only (a metric or stat left on the CPU).",
       "NCCL communicates between GPUs.", ["environment.device"],
       "value = value.to(accelerator.device)   # before gather / all_reduce\n# or "
       "init_process_group(backend='cpu:gloo,cuda:nccl')", title="A CPU tensor in an NCCL collective"),
    _g("accelerate-deepspeed-without-dataloader",
       r"When using DeepSpeed,? `accelerate\.prepare\(\)` requires you to pass at least one of "
       r"training or evaluation dataloaders",
       "accelerate is set up for DeepSpeed (often a leftover `accelerate config`), and prepare() "
       "got no DataLoader from which to fill train_micro_batch_size_per_gpu='auto'.",
       "DeepSpeed's batch size comes from the dataloader when the config says 'auto'.",
       ["hyperparameters.hidden-defaults"],
       "accelerate config   # no DeepSpeed, if the script does not use it\n# or pass the "
       "dataloader in the same prepare() call", title="accelerate's DeepSpeed without a dataloader"),
    _g("lr-read-as-string",
       r"'<=' not supported between instances of 'float' and 'str'|'(?:<|>|>=)' not supported "
       r"between instances of 'str' and 'float'",
       "A learning rate (or another optimizer number) reached the optimizer as a string: YAML "
       "reads 1e-5 (no dot) as text, and the config was passed on as read.",
       "PyYAML follows YAML 1.1, where a float needs a dot.",
       ["hyperparameters.hidden-defaults"],
       "learning_rate: 1.0e-5   # in the YAML (or 0.00001); or lr = float(cfg['lr'])",
       priority=14, title="A learning rate read as text"),
    _g("optimizer-name-unknown",
       r"(?<!\w)'?(?P<name>\w{1,60})'? is not a valid OptimizerNames",
       "TrainingArguments(optim=...) names an optimizer the installed transformers does not "
       "know: the paged_* optimizers came in 4.30, and adamw_hf was removed later.",
       "optim= takes the names of OptimizerNames in the installed release.",
       ["hyperparameters.hidden-defaults"],
       'pip install -U "transformers>=4.30.1"   # paged_adamw_*; for adamw_hf: optim="adamw_torch"',
       family="env-version-too-old", title="An optimizer name this release does not know"),
    _g("adafactor-lr-with-relative-step",
       r"Cannot combine manual `lr` and `relative_step=True` options",
       "Adafactor computes its own step size with relative_step=True (its default), so a "
       "learning rate given as well is refused.", "The two are alternatives.",
       ["hyperparameters.hidden-defaults"],
       "Adafactor(params, lr=1e-3, scale_parameter=False, relative_step=False, "
       "warmup_init=False)", title="Adafactor with an lr and relative_step"),
    _g("model-without-gradient-checkpointing",
       r"(?<!\w)(?P<cls>\w{1,100}) does not support gradient checkpointing",
       "Gradient checkpointing was asked of a model class that does not implement it "
       "(supports_gradient_checkpointing is False), typically a model's own Hub code.",
       "The Trainer calls gradient_checkpointing_enable() when gradient_checkpointing=True.",
       ["hyperparameters.hidden-defaults"],
       "TrainingArguments(..., gradient_checkpointing=False)   # or a release of the model's "
       "code (or of transformers) that supports it", title="No gradient checkpointing here"),
    _g("bnb-config-on-quantized-checkpoint",
       r"'BitsAndBytesConfig' object has no attribute 'get_loading_attributes'",
       "A BitsAndBytesConfig was passed to from_pretrained for a checkpoint that is already "
       "quantized (GPTQ, AWQ, compressed-tensors, MXFP4): transformers merges it into the "
       "checkpoint's own quantization config, which bitsandbytes' config cannot be.",
       "A checkpoint carries its quantization_config.", ["model.precision-unsupported"],
       "model = AutoModelForCausalLM.from_pretrained(unquantized_id, quantization_config=bnb)   "
       "# QLoRA from the unquantized model\n# or load the quantized one without "
       "quantization_config", title="bitsandbytes over an already quantized checkpoint"),
    _g("offloaded-model-moved",
       r"You can't move a model that has some modules offloaded to cpu or disk",
       "The model was loaded with device_map='auto' (some layers offloaded to the CPU or disk) "
       "and then moved with .to()/.cuda() (by the code, DeepSpeed or an older Trainer).",
       "A dispatched model stays where accelerate placed it.", ["memory.will-not-fit"],
       "model = AutoModelForCausalLM.from_pretrained(name, device_map='auto')   # and no "
       ".to(device)\n# training with DeepSpeed/DDP: no device_map at all",
       title="A dispatched model moved"),
    _g("flash-attention-float32",
       r"FlashAttention only supports? fp16 and bf16 data type|"
       r"Flash Attention 2(?:\.0)? only supports torch\.float16 and torch\.bfloat16 dtypes\. "
       r"You passed torch\.float32",
       "FlashAttention-2 is on but the model was loaded without torch_dtype, so in float32, or "
       "runs without bf16/fp16.", "The kernels exist for half precision only.",
       ["model.precision-unsupported"],
       "AutoModelForCausalLM.from_pretrained(name, attn_implementation='flash_attention_2', "
       "torch_dtype=torch.bfloat16)   # and bf16=True in training",
       title="FlashAttention in float32"),
    _g("chatglm-remote-tokenizer-too-old",
       r"'ChatGLMTokenizer' object has no attribute '(?:sp_tokenizer|tokenizer)'",
       "ChatGLM's own tokenizer code (trust_remote_code) sets its tokenizer after "
       "super().__init__(), which from transformers 4.34 already calls methods that need it.",
       "transformers 4.34 changed PreTrainedTokenizer.__init__.",
       ["environment.package-versions"],
       'pip install "transformers<4.34"   # or a newer tokenization_chatglm.py from the model '
       "repo (it sets the tokenizer before super().__init__())", priority=18,
       family="env-version-too-new", title="ChatGLM's tokenizer code and transformers 4.34"),
    _g("mlflow-param-too-long",
       r"exceeded length limit of (?:250|500|6000)",
       "The MLflow callback logs every TrainingArguments value and the model config as params, "
       "and one of them (id2label, label2id, task_specific_params) is longer than MLflow's "
       "limit; report_to picks MLflow up whenever it is installed (before transformers 5).",
       "MLflow caps the length of a param's value.", ["hyperparameters.hidden-defaults"],
       "TrainingArguments(..., report_to='none')   # or report_to=['tensorboard']; or "
       "pip uninstall mlflow", title="A param too long for MLflow", refine=refine_mlflow),
    _g("tracker-config-value-type",
       r"value should be one of int, float, str, bool, or torch\.Tensor",
       "The config given to the experiment tracker (accelerator.init_trackers with TensorBoard) "
       "holds a list, dict or None, which TensorBoard's hparams cannot log.",
       "TensorBoard hparams take scalars and strings only.", ["training.embeddings"],
       "config = {k: v if isinstance(v, (int, float, str, bool)) else str(v) for k, v in "
       "vars(args).items()}\naccelerator.init_trackers('run', config=config)",
       title="A tracker config value TensorBoard cannot log"),
]
