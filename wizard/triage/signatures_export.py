"""Errors right after fine-tuning: resuming with another trainable set, checkpoints of empty
ZeRO-3 shards, adapter configs that cannot be written, converting to GGUF or CTranslate2,
serving the model or its adapter with vLLM or text-generation-inference, saving weights that
safetensors cannot share or a config holding a torch dtype, loading an adapter onto an
offloaded base; and the pipeline's warning about PEFT models that is no error.
"""
from __future__ import annotations

from typing import Any

from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature, signature_maker

_x = signature_maker(12)


def refine_params_placeholder(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """-1 for the model's vocabulary: the placeholder in params.json of Meta's own Llama
    download, not added tokens."""
    if str(ev.get("model")) != "-1":
        return None
    tokens = ev.get("tokens")
    return {"id": "vocab-size-mismatch",
            "cause": "The model folder's params.json (Meta's own Llama download) holds the "
                     f"placeholder vocab_size -1, so the converter compares -1 with the "
                     f"tokenizer's {tokens} tokens.",
            "fix": f'# in the model folder\'s params.json: "vocab_size": {tokens}\n'
                   "python convert.py <model folder>   # then convert again"}


EXPORT_SIGNATURES: list[Signature] = [
    _x("export-task-not-inferable-local-dir",
       r"Cannot infer the task from a local directory yet, please specify the task manually",
       "Exporting a model from a local folder: optimum infers the task from the Hub's metadata, "
       "which a local folder does not have.",
       "The task (text-classification, text-generation, stable-diffusion ...) picks the export's "
       "inputs and outputs.", ["environment.model-source"],
       "optimum-cli export onnx --task text-classification -m ./my_model ./onnx_out",
       title="Export from a local folder needs --task"),
    _x("optimizer-groups-changed-on-resume",
       r"loaded state dict contains a parameter group that doesn't match the size of "
       r"optimizer's group",
       "resume_from_checkpoint rebuilt the optimizer over another set of trainable parameters "
       "than the one it was saved with: the reloaded model leaves modules_to_save (lm_head, "
       "embed_tokens) or other modules frozen, or the target modules (or a library release) "
       "changed the trainable set.",
       "An optimizer's saved state holds one entry per trainable parameter, group by group.",
       ["model.frozen-parameters"],
       "model.print_trainable_parameters()   # must equal the first run's count\n"
       "# the same LoraConfig (target_modules, modules_to_save) as the saved run; or "
       "resume without the optimizer state: trainer.train() from the adapter weights",
       title="Resumed with another trainable set"),
    _x("zero3-empty-weights-saved",
       r"Trying to set a tensor of shape torch\.Size\(\[0\]\) in \"\w+\"|"
       r"copying a param with shape (?:torch\.Size\()?\[0\]\)? from checkpoint|"
       # DeepSpeed's own per-rank file, its weights listed with empty shapes
       r"zero_pp_rank_\d+_mp_rank_\d+_model_states\.pt[\s\S]{0,300}?torch\.Size\(\[0\]\)",
       "The checkpoint was saved under DeepSpeed ZeRO-3 without gathering the partitioned "
       "parameters: each weight in it is an empty placeholder of shape [0].",
       "ZeRO-3 keeps each parameter sharded across the GPUs; a plain state_dict sees none of it.",
       ["model.forward"],
       "# ds_config: \"zero_optimization\": {\"stage3_gather_16bit_weights_on_model_save\": "
       "true}, then trainer.save_model()\n# or rebuild the weights from the shards: python "
       "zero_to_fp32.py CHECKPOINT_DIR pytorch_model.bin", title="Empty ZeRO-3 weights saved",
       priority=15),              # a size-0 weight is ZeRO-3's, whichever weight it is
    _x("zero3-load-state-dict-into-partitioned-model",
       r"the shape in current model is (?:torch\.Size\()?\[0\]",
       "The model was built under DeepSpeed ZeRO-3 (a Trainer or accelerate stage-3 config, "
       "HfDeepSpeedConfig, zero.Init), which partitions every parameter across the processes: "
       "each holds an empty placeholder of size 0, into which a full state dict cannot be "
       "copied.", "ZeRO-3 keeps each parameter sharded across the GPUs; a plain "
       "load_state_dict sees only the local, empty slice.", ["model.forward"],
       "model = AutoModelForCausalLM.from_pretrained(CHECKPOINT_DIR)   # loads into the "
       "partitioned model\n# or: with deepspeed.zero.GatheredParameters(list(model.parameters()),"
       " modifier_rank=0): model.load_state_dict(state_dict)",
       title="A state dict loaded into ZeRO-3's empty shards", priority=15),
    _x("zero3-partitioned-weights-used",
       r"The size of tensor [ab] \(0\) must match the size of tensor [ab] \(\d+\)|"
       r"The size of tensor [ab] \(\d+\) must match the size of tensor [ab] \(0\)",
       "A weight used outside the DeepSpeed ZeRO-3 engine is its process's empty shard: the "
       "model was built under ZeRO-3 (an accelerate or Trainer DeepSpeed config with stage 3), "
       "which partitions every parameter across the processes, and merging the adapter (or any "
       "arithmetic on the weights) read the local placeholder of size 0.",
       "Under ZeRO-3 each process holds a slice of each parameter; outside a gather its "
       "weights are empty tensors of size 0.",
       ["model.adapter"],
       "# merge on one process, without the ZeRO-3 config:\n"
       "python merge.py   # not accelerate launch --config_file zero3.yaml\n"
       "# or inside the run: with deepspeed.zero.GatheredParameters(list(model.parameters())): "
       "model = model.merge_and_unload()",
       title="ZeRO-3's empty weight shards used",
       # a weight-side operation: merging an adapter, DeepSpeed named (not an empty batch)
       requires=r"merge_and_unload|merge_adapter|\bmerge\b|deepspeed|\bzero[_ -]?(?:3|stage)\b|"
                r"zero_optimization|zero\.init|ds_config",
       priority=6),
    _x("lora-config-set-not-serializable",
       r"Object of type set is not JSON serializable",
       "A PEFT config holds a Python set (target_modules={'q_proj', ...}, as some tutorials "
       "write), which json cannot write into adapter_config.json when the adapter is saved.",
       "PEFT writes its config as JSON; sets are not JSON.", ["model.adapter"],
       "LoraConfig(target_modules=['q_proj', 'v_proj'], ...)   # a list, not {...}",
       title="A set in the adapter config",
       # the adapter config's only when the paste is about one
       requires=r"LoraConfig|target_modules|adapter_config|\bpeft\b|get_peft_model|\bpert model"),
    _x("gguf-quantized-checkpoint",
       r"Can not map tensor '[^'\n]{0,200}\.(?:SCB|absmax|quant_map|quant_state\w*|qweight|"
       r"qzeros|g_idx|scales|biases)'",
       "llama.cpp's converter was run on a quantized checkpoint (bitsandbytes 4/8-bit saved after "
       "QLoRA, GPTQ or MLX): its quantization tensors have no GGUF name.",
       "GGUF conversion reads plain fp16/bf16 weights and quantizes them itself.",
       ["model.adapter"],
       "base = AutoModelForCausalLM.from_pretrained(base_id, torch_dtype=torch.float16)   # not "
       "quantized\nmodel = PeftModel.from_pretrained(base, adapter_dir).merge_and_unload()\n"
       "model.save_pretrained('merged'); tokenizer.save_pretrained('merged')   # then convert "
       "'merged'", title="GGUF conversion of a quantized checkpoint"),
    _x("gguf-legacy-convert-script",
       r"KeyError: '[^'\n]{1,200}'",
       "llama.cpp's old convert.py reads only LLaMA-style checkpoints (their config keys such as "
       "rms_norm_eps, their tensor names, float weights): another architecture (Phi, Qwen, "
       "GPT-2 style) has keys and tensors it does not know. Its successor, convert_hf_to_gguf.py, "
       "converts the Hugging Face architectures.",
       "convert.py was the LLaMA converter; llama.cpp removed it in 2024 for "
       "convert_hf_to_gguf.py (convert-hf-to-gguf.py before).",
       ["environment.package-versions"],
       "python llama.cpp/convert_hf_to_gguf.py ./model --outfile model.gguf --outtype f16   # "
       "from the fp16/bf16 Hugging Face folder (safetensors shards are read directly)",
       title="llama.cpp's LLaMA-only convert.py on another architecture",
       # the legacy script by name (not convert_hf_to_gguf.py), converting to GGUF
       requires=r"(?s)(?=.*(?<![\w-])convert\.py\b)(?=.*(?:gguf|llama\.cpp))", priority=4),
    _x("converter-unsupported-architecture",
       # a converter's own table of architectures
       r"No conversion is registered for the model configuration (?P<config>\w+)|"
       # MLX's model class built by an example script, given weights it has no place for
       r"Received parameters not in model|"
       # a conversion script looking up a weight or config name of the architecture it knows
       # (a tensor's dotted name, or a config key of an architecture: not a data option)
       r"KeyError: '(?P<key>[A-Za-z_]\w*(?:\.\w+)+|\w*(?:weight|bias|embed|layer|norm|proj|attn|"
       r"head|hidden|vocab|rope|expert|model_type)\w*)'",
       "The conversion (or example) script handles fewer architectures than the model it was "
       "given: it looks up the weight and config names, or the model class, of the "
       "architectures it was written for (a converter for one family, an example that "
       "implements a few), and this checkpoint is another architecture or layout.",
       "A converter maps each tensor and config key of the architectures it supports by name; "
       "a checkpoint of another family has names it does not know.",
       ["environment.package-versions"],
       "python -c \"import json; print(json.load(open('MODEL_DIR/config.json'))"
       "['architectures'])\"   # the architecture to convert\n# then the converter written for "
       "it (the library's newer release or its supported-models list), or the library's own "
       "export for a model transformers knows (save_pretrained, optimum export)",
       title="The converter does not know this architecture",
       # a converter's or example script's frames, file or command in the paste
       requires=r"(?i)\bconvert\w*\.py\b|\bconvert_\w+|\bconvertor\b|-converter\b|"
                r"\bexamples?[/\\]|mlx[-_]examples",
       priority=3),
    _x("tflite-select-tf-ops-needed",
       r"Regular TensorFlow ops are not supported by this interpreter|Make sure you apply/link "
       r"the Flex delegate before inference|Select TensorFlow op\(s\), included in the given "
       r"model, is\(are\) not supported by this interpreter",
       "The converted TFLite model still holds regular TensorFlow ops (Flex ops such as "
       "FlexShape), which only an interpreter linked with the Select TF ops (Flex delegate) can "
       "run; the interpreter used has TFLite's builtin ops only.",
       "Transformer graphs use ops outside TFLite's builtins; the converter keeps them as Flex "
       "ops when SELECT_TF_OPS is allowed, and the runtime must bring their kernels.",
       ["environment.package-versions"],
       "converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS, "
       "tf.lite.OpsSet.SELECT_TF_OPS]\ninterpreter = tf.lite.Interpreter(model_path=path)   # "
       "full TensorFlow links the Flex delegate (tflite_runtime does not)\n# Android: add "
       "org.tensorflow:tensorflow-lite-select-tf-ops to the app's dependencies",
       title="TFLite model needs the Select TF ops (Flex delegate)"),
    _x("added-tokens-vocab-mismatch",
       r"Vocab size mismatch \(model has (?P<model>-?\d+),? but [^\n]{0,200}?has "
       r"(?P<tokens>\d+)\)|"
       r"Vocabulary has size (?P<tokens2>\d+) but the model expected a vocabulary of size "
       r"(?P<model2>\d+)",
       "The saved tokenizer has tokens the model's embedding matrix lacks (added_tokens.json, "
       "e.g. a '<pad>' added for training without resizing the embeddings), so a converter "
       "counts more tokens than vocab_size.",
       "Converters (llama.cpp, CTranslate2) read the tokenizer with its added tokens.",
       ["data.tokenizer-model-mismatch"],
       "model.resize_token_embeddings(len(tokenizer)); model.save_pretrained(out)   # or, for a "
       "pad token only: tokenizer.pad_token = tokenizer.eos_token and drop added_tokens.json",
       title="Added tokens beyond the model's vocabulary", refine=refine_params_placeholder),
    _x("unsloth-llama-cpp-not-built",
       r"Unsloth: The file '?llama\.cpp/(?:llama-)?quantize'?[^\n]{0,80}does not exist",
       "Unsloth's GGUF export needs a built llama.cpp beside the script; it was cloned but not "
       "compiled (or, since llama.cpp builds with CMake, the binary is in llama.cpp/build/bin).",
       "save_pretrained_gguf calls llama.cpp's quantize binary.", ["environment.package-versions"],
       "cmake -S llama.cpp -B llama.cpp/build && cmake --build llama.cpp/build --config Release "
       "-j\ncp llama.cpp/build/bin/llama-quantize llama.cpp/   # or: pip install -U unsloth",
       title="llama.cpp not built for Unsloth's GGUF export", family="env-setup-step-skipped"),
    _x("vllm-lora-rank-too-large",
       r"LoRA rank (?P<rank>\d+) is greater than max_lora_rank (?P<max>\d+)",
       "vLLM reserves its LoRA buffers for max_lora_rank (16 by default); the adapter was "
       "trained with a larger r.", "The engine's LoRA slots are sized at start-up.",
       ["model.adapter"],
       "vllm serve BASE --enable-lora --max-lora-rank 64 --lora-modules name=ADAPTER_DIR\n"
       "# python: LLM(model=BASE, enable_lora=True, max_lora_rank=64)",
       title="Adapter rank above vLLM's max_lora_rank"),
    _x("lora-adapter-for-another-model",
       r"expected target modules in (?P<expected>\[[^\]\n]*\]) but received "
       r"(?P<received>\[[^\]\n]*\])",
       "The adapter targets modules the served model does not have: it was trained on another "
       "base model (its module names belong to another architecture, such as Mixtral's w1/w2/w3 "
       "beside Llama's gate_proj/up_proj/down_proj), or another folder than the adapter meant "
       "was loaded.",
       "A LoRA adapter names the modules of the model it was trained on; the server applies it "
       "only to modules of the same names.", ["model.adapter"],
       "python -c \"import json; c = json.load(open('ADAPTER_DIR/adapter_config.json')); "
       "print(c['base_model_name_or_path'], c['target_modules'])\"   # the base it belongs to\n"
       "# serve it with that base model, or train the adapter on this one",
       title="An adapter of another base model"),
    _x("vllm-unsupported-lora-weight",
       r"is unsupported LoRA weight",
       "The adapter holds full weights besides lora_A/lora_B (modules_to_save lm_head or "
       "embed_tokens after adding tokens, or a LoRA on lm_head), which vLLM's multi-LoRA "
       "loader does not take.", "vLLM serves only the LoRA matrices of supported modules.",
       ["model.adapter"],
       "model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base, "
       "torch_dtype='auto'), adapter).merge_and_unload()\nmodel.save_pretrained('merged')   # "
       "and serve 'merged' instead of the adapter", title="Adapter weights vLLM cannot serve"),
    _x("vllm-bnb-prequantized-unsupported",
       r"Cannot find any of \['adapter_name_or_path'\] in the model's quantization config",
       "vLLM before 0.5.4 read every bitsandbytes quantization config as a QLoRA adapter's and "
       "could not load a checkpoint saved in 4-bit (a *-bnb-4bit model, or one saved quantized "
       "after fine-tuning).", "Later releases load pre-quantized bitsandbytes checkpoints.",
       ["environment.package-versions"],
       "pip install -U vllm   # then LLM(model=path, quantization='bitsandbytes', "
       "load_format='bitsandbytes')\n# or save the model merged in 16-bit",
       title="vLLM and a pre-quantized bitsandbytes checkpoint", family="env-version-too-old"),
    _x("adapter-keys-missing-on-load",
       r"Found missing adapter keys while loading the checkpoint",
       "PeftModel.from_pretrained found no saved weights for some LoRA modules, which keep their "
       "initial values (B = 0, so the adapter may do nothing): the key names saved in training "
       "differ from the model loaded now (another model class or transformers release, or "
       "another adapter_name).", "Adapter weights are matched to modules by name.",
       ["model.adapter"],
       "model = PeftModel.from_pretrained(base, adapter_dir)   # base: the same class (and "
       "release) as in training, default adapter_name\nprint(model.peft_config)",
       title="Adapter weights missing for some modules"),
    _x("merged-folder-without-tokenizer",
       r"Unrecognized configuration class <class 'transformers_modules\.[\w.-]+'> to build an "
       r"AutoTokenizer",
       "AutoTokenizer was pointed at a folder of a trust_remote_code model (a LoRA-merged or "
       "fine-tuned output) that holds no tokenizer files: the merge saved the model alone.",
       "A remote-code tokenizer needs its tokenizer_config.json (auto_map), tokenization_*.py "
       "and vocabulary files.", ["data.tokenizer-model-mismatch"],
       "tokenizer = AutoTokenizer.from_pretrained(BASE_MODEL, trust_remote_code=True)\n"
       "tokenizer.save_pretrained(MERGED_DIR)   # beside the merged model",
       title="A merged folder without its tokenizer"),
    _x("shared-tensors-not-saved",
       r"contained shared tensors \[[^\]\n]{0,400}\] that are mismatching the transformers base "
       r"configuration|mismatching the transformers base configuration\. Try saving using "
       r"`?safe_serialization=False",
       "save_pretrained (safetensors) found two weights sharing memory that the model class does "
       "not declare as tied (a vision embedding reusing the text one, a merged export, a "
       "distilled model tying lm_head by hand): safetensors cannot store aliased tensors.",
       "safetensors writes each tensor once; only the ties the config declares are dropped.",
       ["model.forward"],
       "model.save_pretrained(out_dir, safe_serialization=False)\n# or untie before saving: "
       "model.lm_head.weight = torch.nn.Parameter(model.lm_head.weight.clone())",
       title="Shared weights safetensors cannot save"),
    _x("served-tied-embeddings-missing",
       r"weight (?:lm_head|encoder\.embed_tokens|shared)\.weight does not exist|"
       r"KeyError: '?lm_head\.weight'?",
       "The server loads a model whose output layer reuses its input embeddings "
       "(tie_word_embeddings: Qwen2-0.5B/1.5B, T5): the checkpoint has no lm_head.weight, and "
       "that text-generation-inference release looks it up instead of reusing the embedding.",
       "Tied weights are saved once, under the embedding's name.", ["model.forward"],
       "# upgrade text-generation-inference (tied embeddings are supported since mid-2024)\n"
       "# or save untied: model.config.tie_word_embeddings = False; model.lm_head.weight = "
       "torch.nn.Parameter(model.get_input_embeddings().weight.clone()); "
       "model.save_pretrained(out)", title="A tied output layer the server cannot find"),
    _x("adapter-on-offloaded-base",
       r"KeyError: '?base_model\.model\.[\w.]{1,200}",
       "PeftModel.from_pretrained on a base model loaded with device_map='auto' that did not "
       "fit: accelerate put some modules on disk (meta tensors), and the adapter cannot be "
       "loaded into them.", "Offloaded modules hold no weights in memory until a hook loads "
       "them.", ["memory.will-not-fit"],
       "base = AutoModelForCausalLM.from_pretrained(name, device_map='auto', "
       "offload_folder='offload')\nmodel = PeftModel.from_pretrained(base, adapter, "
       "offload_folder='offload')\n# or load in 4-bit / on a machine where nothing is offloaded",
       title="An adapter loaded onto an offloaded base", requires=r"offload|meta parameter|device_map"),
    _x("torch-dtype-in-saved-config",
       r"Object of type '?dtype'? is not JSON serializable|"
       r"`?torch\.(?:bfloat16|float16|float32)`? is not JSON serializable",
       "A torch.dtype object reached a config being saved as JSON: torch_dtype passed to a "
       "tokenizer's from_pretrained (or through a pipeline's kwargs) lands in "
       "tokenizer_config.json, or a nested sub-config kept torch.float32 (transformers before "
       "4.18).", "Configs store the dtype as a string ('bfloat16').", ["model.forward"],
       "tokenizer = AutoTokenizer.from_pretrained(name)   # no torch_dtype here\nmodel = "
       "AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16)\n# nested "
       "configs: pip install -U \"transformers>=4.18\"", title="A torch dtype in a saved config"),
    _x("pipeline-peft-model-warning",
       r"The model '(?:PeftModel\w*|PeftModelFor\w+)' is not supported for [\w-]+\.",
       "Not an error: the pipeline compares the model's class name with its list of causal LMs, "
       "which lacks the PEFT wrapper classes, and logs this although generation works (newer "
       "transformers accept PEFT models).", "Look for the real error, if any, further down.", [],
       "model = peft_model.merge_and_unload()   # optional: the pipeline then sees the base "
       "class", title="The pipeline's PEFT warning (harmless)", priority=0, benign=True),
]
