"""Errors of the fine-tuning frameworks built on transformers (Unsloth, LLaMA-Factory, ms-swift):
their own checks of the data, the template, the model and the set-up, each with its usual cause."""
from __future__ import annotations

import difflib
import re
from typing import Any

from wizard.triage.env_answers import OLD, SETUP
from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature, signature_maker

_f = signature_maker(14)


# datasets the LLaMA-Factory checkout registers in data/dataset_info.json itself
_SHIPPED_DATASETS = ("alpaca_en_demo", "alpaca_zh_demo", "identity", "mllm_demo",
                     "mllm_audio_demo", "mllm_video_demo", "glaive_toolcall_en_demo",
                     "glaive_toolcall_zh_demo", "dpo_en_demo", "dpo_zh_demo", "kto_en_demo",
                     "c4_demo", "wiki_demo")


def refine_dataset_key(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A dataset the checkout ships is always registered in its data/dataset_info.json: not
    finding it means the command ran elsewhere (a notebook's `!cd` does not carry over to the
    next `!` line). A near miss of one is a typo."""
    name = str(ev.get("name", "")).strip("'\"`.")
    notebook_cd = re.search(r"^\s*!\s*cd\s", parsed.text, re.M)
    if name in _SHIPPED_DATASETS or notebook_cd:
        return {"id": "wrong-working-directory",
                "cause": f"{name} is not found although LLaMA-Factory registers its datasets in "
                         "its data/dataset_info.json: the command ran outside the checkout, so "
                         "the relative dataset_dir 'data' pointed elsewhere (in a notebook, "
                         "`!cd` does not carry over to the next `!` line).",
                "fix": "%cd LLaMA-Factory   # a notebook: the magic keeps the directory\n"
                       "llamafactory-cli train examples/train_lora/....yaml\n# or pass "
                       "--dataset_dir /path/to/LLaMA-Factory/data"}
    close = difflib.get_close_matches(name, _SHIPPED_DATASETS, n=1, cutoff=0.85)
    if close:
        return {"cause": f"{name} is not a registered dataset key: a misspelling of "
                         f"{close[0]}.", "fix": f"dataset: {close[0]}"}
    return None


FRAMEWORK_SIGNATURES: list[Signature] = [
    _f("feature-unsupported-model-type",
       # the framework's own assertion that the model's type is one the feature implements
       r"(?m)^\W*assert [^\n]{0,120}\bin (?:[\w.]*\.)?model_type\b|"
       r"^\W*assert (?:[\w.]*\.)?model_type (?:in|==) ",
       "The feature you turned on (a tuner, an attention patch, a training mode) is implemented "
       "only for some model types, which the framework asserts; this model's type is not one "
       "of them.",
       "Patches such as LongLoRA's shifted attention or a model-specific kernel are written per "
       "architecture.",
       ["model.forward"],
       "# the asserted types are the ones the feature supports: use one of those models, or "
       "train this model without the feature (e.g. plain LoRA instead of LongLoRA)",
       title="A feature for other model types", priority=12,
       requires=r"AssertionError"),
    _f("response-markers-not-in-text",
       r"All labels in your dataset are -100",
       "train_on_responses_only masked every token: the instruction_part / response_part strings "
       "it was given do not occur verbatim in the formatted text (the markers of another chat "
       "template than the one applied), so no response is ever found.",
       "Only the tokens after the response marker keep their labels.", ["data.lm-labels"],
       "print(trainer.train_dataset[0]['text'])   # copy the exact markers from here\n"
       "trainer = train_on_responses_only(trainer, instruction_part=\"<|im_start|>user\\n\", "
       "response_part=\"<|im_start|>assistant\\n\")", title="Response markers not in the text"),
    _f("framework-no-valid-samples",
       r"Cannot find valid samples, check `?data/README\.md`?",
       "LLaMA-Factory kept no sample after preprocessing: the file does not match the format "
       "and columns its dataset_info.json entry declares (alpaca vs sharegpt, ranking for DPO), "
       "or, for pre-training, the whole corpus is shorter than one cutoff_len block.",
       "Samples whose fields do not parse as the declared format are dropped.",
       ["data.batch-structure"],
       "# make the file match data/README.md and its dataset_info.json entry (formatting, "
       "columns, ranking: true for DPO)\n# pre-training: more text than cutoff_len tokens, or a "
       "smaller cutoff_len", family="dataset-format-mismatch",
       title="No valid samples in the dataset"),
    _f("verl-dataset-fields-missing",
       r"Reward function is not implemented for data_source=(?P<source>'[^'\n]*'|\S*)|"
       r"KeyError: '(?P<field>reward_model|data_source|ground_truth)'",
       "verl reads from each sample the fields its preprocessing scripts write into the parquet "
       "files: data_source (which picks the reward function), prompt, and reward_model with its "
       "ground_truth. The dataset given lacks them (converted by other means), or names a "
       "data_source that no built-in reward function serves.",
       "verl's rule-based rewards are looked up by data_source; ground_truth comes from "
       "reward_model.", ["data.batch-structure"],
       "python examples/data_preprocess/gsm8k.py --local_dir ~/data/gsm8k   # its scripts write "
       "the fields; rows of your own: {'data_source': ..., 'prompt': [...], 'reward_model': "
       "{'style': 'rule', 'ground_truth': ...}}\n# a data_source of your own: "
       "custom_reward_function.path=my_reward.py custom_reward_function.name=compute_score",
       family="dataset-format-mismatch", title="verl's dataset fields missing",
       requires=r"\bverl\b|main_ppo|ray_trainer|reward_manager|default_compute_score"),
    _f("framework-dataset-not-registered",
       r"Undefined dataset (?P<name>\S{1,200}) in dataset_info\.json",
       "--dataset names no key of dataset_info.json in dataset_dir: a file name or path given "
       "instead of the registered key, a typo, or the command run outside the LLaMA-Factory "
       "folder (data/ is not its data folder).", "LLaMA-Factory looks datasets up by key.",
       ["environment.dataset-not-found"],
       "# data/dataset_info.json:  \"my_data\": {\"file_name\": \"my_data.json\"}\n"
       "llamafactory-cli train ... --dataset my_data --dataset_dir data   # from its root",
       title="A dataset not registered in dataset_info.json", refine=refine_dataset_key),
    _f("dataset-not-marked-ranking",
       r"Please use ranked datasets? for reward model(?:ing)?(?: or DPO training)?|"
       r"(?:ranked|ranking|pairwise) datasets? (?:is )?(?:required|needed) for (?:reward|DPO|"
       r"RM|KTO|ORPO)",
       "The reward-model or DPO stage got a dataset registered as ordinary SFT data: its entry "
       "in dataset_info.json lacks \"ranking\": true (or its columns name no chosen/rejected "
       "pair).", "Pairwise stages read a chosen and a rejected answer per prompt, which only "
       "ranked datasets declare.", ["data.batch-structure"],
       "# data/dataset_info.json\n\"my_pairs\": {\"file_name\": \"my_pairs.json\", \"ranking\": "
       "true, \"columns\": {\"prompt\": \"instruction\", \"chosen\": \"chosen\", \"rejected\": "
       "\"rejected\"}}", title="An SFT dataset given to a pairwise stage"),
    _f("value-head-model-without-lm-head",
       r"The model does not have a language model head, please use a model that has one",
       "trl's value-head wrapper (AutoModelForCausalLMWithValueHead) found no language-model "
       "head on the model it wraps: a base model without a causal-LM head (AutoModel, an "
       "encoder), or a model whose own code names its output layer otherwise than the heads trl "
       "knows (lm_head, embed_out, output_layer).",
       "The value head sits beside the LM head, and the wrapper looks that head up by name.",
       ["model.new-head"],
       "# a causal-LM checkpoint, loaded by its causal-LM class\nmodel = "
       "AutoModelForCausalLMWithValueHead.from_pretrained('<a *ForCausalLM checkpoint>')\n# a "
       "model with its own head name: rename the attribute to lm_head, or use a trl trainer that "
       "needs no value head (GRPO, RLOO)",
       title="A model without the LM head trl's value head expects"),
    _f("llamafactory-template-not-found",
       r"Template \S{1,80} does not exist",
       "The template named is not one the installed LLaMA-Factory defines: a wrong name (Qwen2 "
       "uses `qwen`), or a pip-installed llamafactory older than the checkout that has it.",
       "Templates are registered by name in the installed package.",
       ["data.chat-template-mismatch"],
       "template: qwen   # a name of src/llamafactory/data/template.py\n# newer templates: cd "
       "LLaMA-Factory && git pull && pip install -e .", title="An unknown template name"),
    _f("framework-processor-missing",
       r"Processor was not found, please check and update your (?:model file|processor config)",
       "A multimodal template needs the model's processor and none was loaded: the installed "
       "transformers is too old to know it (a new vision-language model), or the model is "
       "text-only (Gemma-3 1B/270m) and the template is the multimodal one.",
       "The vision templates read images through AutoProcessor.", ["environment.package-versions"],
       "pip install -U transformers   # a release that knows the model's processor\n# a text-only "
       "model: its text template (template: gemma, not gemma3)",
       title="No processor for a multimodal template"),
    _f("unsloth-gguf-quantizer-missing",
       r"Unsloth: Quantization failed",
       "save_pretrained_gguf found no working llama.cpp quantizer: Unsloth's automatic build of "
       "llama.cpp failed, or llama.cpp moved its binaries (cmake puts llama-quantize under "
       "build/bin).", "GGUF export runs llama.cpp's llama-quantize.",
       ["environment.package-versions"],
       "git clone https://github.com/ggml-org/llama.cpp && cd llama.cpp && cmake -B build && "
       "cmake --build build --config Release\ncp build/bin/llama-quantize .   # then save again",
       family=SETUP, title="llama.cpp's quantizer not built"),
    _f("untrained-tokens-in-data",
       r"Untrained tokens (?:of \[\[[\d, ]{0,400}\]\] )?found, but embed_tokens & lm_head not "
       r"trainable",
       "The text holds tokens whose embeddings were never trained (reserved special tokens, or "
       "the chat template of another model: a Llama-3 template on a base model), and LoRA does "
       "not train embed_tokens / lm_head: they would give NaNs.",
       "Reserved tokens of a base model have untrained (zero or random) rows.",
       ["data.chat-template-mismatch"],
       "# the model's own chat template (or its instruct model), no reserved tokens in the data;\n"
       "# or train the embeddings: get_peft_model(model, target_modules=[..., 'embed_tokens', "
       "'lm_head'])", title="Untrained tokens in the data"),
    _f("unsloth-single-gpu",
       r"Unsloth currently does not support multi GPU setups",
       "Open-source Unsloth trains on one GPU and refuses when several are visible (a multi-GPU "
       "launch, DeepSpeed/FSDP, LLaMA-Factory's use_unsloth on several cards).",
       "Its kernels and patches assume one device.", ["environment.device"],
       "CUDA_VISIBLE_DEVICES=0 python train.py   # or drop Unsloth for multi-GPU training",
       title="Unsloth on several GPUs"),
    _f("unsloth-model-not-supported-yet",
       r"Unsloth: [\w./-]{1,120} not supported yet",
       "The installed Unsloth predates support for this model's architecture (or its variant, "
       "such as a long-context rope scaling): Unsloth patches architectures one by one.",
       "FastLanguageModel dispatches to the architectures it has patched.",
       ["environment.package-versions"],
       'pip install --upgrade --force-reinstall --no-cache-dir unsloth unsloth_zoo',
       family=OLD, title="A model the installed Unsloth does not support yet"),
    _f("swift-model-type-not-registered",
       r"model_type:? '?[\w.-]{1,80}'? is not registered|model_type: '[\w.-]{1,80}' not in \[",
       "The installed ms-swift predates the model_type (new models land on its main branch "
       "first).", "ms-swift knows models by a registry of model types.",
       ["environment.package-versions"],
       "pip install -U ms-swift   # or: pip install git+https://github.com/modelscope/ms-swift",
       family=OLD, title="A model type ms-swift does not know yet"),
    _f("quantize-before-merge",
       r"Please merge adapters before quantizing the model",
       "Quantized export (export_quantization_bit) was asked for while an adapter is still "
       "given: the adapter must be merged first, then the merged model quantized.",
       "Export quantizes a plain model only.", ["model.adapter"],
       "# 1: export (merge) without export_quantization_bit\n# 2: model_name_or_path: <the merged "
       "folder>, no adapter, export_quantization_bit: 4", title="Quantizing before merging"),
]
