"""Errors of generating with a fine-tuned model and serving it through pipelines: generating
past the model's context, sampling settings greedy decoding ignores, beam counts, remote model
code older than the installed transformers, Apple MPS without an attention mask, pipelines and
arguments transformers 5 removed, batching without a pad token, a PEFT task type that does not
match the model's head, and device_map="auto" on classes that cannot be split.
"""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.env_answers import NEW
from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature, signature_maker

_g = signature_maker(14)
_GENERATING = re.compile(r"generat|max[ _]new[ _]tokens|max_length|num_return_sequences|"
                         r"pipeline\(", re.I)


def refine_past_context(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The attention's causal mask is as long as the model's context (a power of two: 1024 for
    GPT-2, 2048 for GPT-J/NeoX); a longer sequence of prompt and generated tokens is b > a."""
    a, b = ev.get("context"), ev.get("length")
    if not (isinstance(a, int) and isinstance(b, int)) or not (a >= 512 and a & (a - 1) == 0
                                                               and a < b <= a + 8192):
        return {"reject": True}
    if not _GENERATING.search(parsed.text):
        return {"id": "sequence-longer-than-max",
                "cause": f"The input is {b} positions long, past the model's {a}: its attention "
                         "mask is only that long. Truncate to the model's maximum length.",
                "fix": "tokenizer(texts, truncation=True, max_length=model.config."
                       "max_position_embeddings)"}
    return {"cause": f"The prompt and the generated tokens together are {b} positions, past the "
                     f"model's context of {a}: its causal mask is only {a} long."}


def refine_removed_pipeline(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A KeyError on a task's name is the pipeline's only beside a pipeline call (a dataset
    column named 'translation' raises the same)."""
    if ev.get("key_error") and not re.search(r"\bpipeline\(", parsed.text):
        return {"reject": True}
    return None


def refine_task_type(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Which way the PEFT task type and the head disagree."""
    if ev.get("head"):
        head = str(ev["head"])
        kind = "TOKEN_CLS" if "TokenClassification" in head else "SEQ_CLS"
        return {"cause": f"get_peft_model(task_type=\"CAUSAL_LM\") wraps {head} in a "
                         "PeftModelForCausalLM, which reads prepare_inputs_for_generation: a "
                         "classification head has none. The task type does not match the head.",
                "fix": f"LoraConfig(task_type=TaskType.{kind}, ...)   # the task type of "
                       f"{head}"}
    return None


INFERENCE_SIGNATURES: list[Signature] = [
    _g("clip-context-length",
       r"is too long for context length (?P<max_length>\d+)",
       "A text is longer than CLIP's text context (77 tokens), and clip.tokenize refuses it "
       "instead of truncating.",
       "CLIP's text encoder has a fixed number of positions.",
       ["data.sequence-longer-than-positions"],
       "clip.tokenize(texts, truncate=True)   # cut at the context length\n# transformers: "
       "processor(text=texts, truncation=True, padding=True)",
       title="Text longer than CLIP's context", family="sequence-longer-than-max"),
    _g("generation-config-missing-pad-token-id",
       r"If `?eos_token_id`? is defined, make sure that `?pad_token_id`? is defined",
       "generate() got an eos_token_id but no pad_token_id: the model's generation config (or "
       "the GenerationConfig passed in) leaves pad_token_id unset, and generating a batch "
       "needs one to pad finished sequences.",
       "Sequences that end early are padded with pad_token_id until the longest is done.",
       ["data.no-pad-token"],
       "model.generation_config.pad_token_id = tokenizer.pad_token_id or "
       "tokenizer.eos_token_id\n# or per call: model.generate(..., pad_token_id="
       "tokenizer.eos_token_id)",
       title="generate() without a pad_token_id"),
    _g("generation-past-context",
       r"The size of tensor a \((?P<context>\d+)\) must match the size of tensor b "
       r"\((?P<length>\d+)\) at non-singleton dimension 3",
       "The prompt and the generated tokens together are longer than the model's context "
       "(n_positions / max_position_embeddings): the causal mask stops at the context.",
       "A model with absolute positions (GPT-2, GPT-J, GPT-NeoX) holds a causal-mask buffer "
       "exactly as long as its context; dimension 3 of the attention scores is the key length.",
       ["data.sequence-longer-than-positions"],
       "limit = model.config.max_position_embeddings\ninputs = tokenizer(text, truncation=True, "
       "max_length=limit - max_new_tokens, return_tensors='pt')\nmodel.generate(**inputs, "
       "max_new_tokens=max_new_tokens)   # prompt + new tokens <= limit",
       title="Generating past the model's context", priority=16, refine=refine_past_context),
    _g("greedy-ignores-sampling-settings",
       r"`?do_sample`? is set to `?False`?\. However, `?(?:temperature|top_p|top_k|typical_p)`? "
       r"is set to|"
       # transformers >= 4.45 lists them in one warning
       r"The following generation flags are not valid and may be ignored: \[[^\]\n]{0,200}"
       r"'(?:temperature|top_p|top_k|typical_p)'",
       "Greedy decoding (do_sample=False) with sampling settings (temperature, top_p, top_k) "
       "still set, usually by the checkpoint's generation_config.json: greedy decoding ignores "
       "them. A warning, not the cause of bad output.",
       "transformers validates the generation config and warns about flags the chosen mode "
       "does not use.", ["model.forward"],
       "model.generate(**inputs, do_sample=False, temperature=None, top_p=None, top_k=None)\n"
       "# or sample for real: do_sample=True, temperature=0.7",
       title="Sampling settings beside greedy decoding (harmless)", benign=True),
    _g("num-return-sequences-over-beams",
       r"num_return_sequences`? \(\d+\) has to be smaller or equal to `?num_beams`? \(\d+\)",
       "Beam search returns at most num_beams sequences; more were asked for.",
       "Without sampling, generate keeps num_beams hypotheses and returns the best of them.",
       ["model.forward"],
       "model.generate(**inputs, num_beams=15, num_return_sequences=15)\n# or sample: "
       "do_sample=True, num_return_sequences=15",
       title="More sequences asked for than beams"),
    _g("remote-code-older-than-transformers",
       r"_extract_past_from_model_output\(\) got an unexpected keyword argument "
       r"'standardize_cache_format'",
       "The model's own code (trust_remote_code: ChatGLM, GLM-4, CogVLM) calls a transformers "
       "method with an argument transformers 4.44 removed: the installed transformers is newer "
       "than the model code.", "Remote model code is pinned to the transformers it was written "
       "for; the Hub repo may since have updated it.", ["environment.package-versions"],
       'pip install "transformers<4.44"\n# or download the model repo again (its modeling file '
       "was updated for newer transformers)", priority=20, family=NEW,
       title="Model code older than the installed transformers"),
    _g("llava-model-path-missing-llava-name",
       r"'NoneType' object has no attribute '(?:preprocess|image_mean|crop_size|image_std)'",
       "LLaVA's load_pretrained_model builds the vision tower and returns an image processor "
       "only when the model's name (the checkpoint folder's name) contains \"llava\"; for this "
       "folder it returned image_processor=None.",
       "The loader picks the model class from the name, not from config.json.",
       ["model.forward"],
       "mv ./checkpoints/my-model ./checkpoints/llava-my-model   # a name with 'llava' in it\n"
       "# or: load_pretrained_model(path, model_base, model_name='llava-v1.5-7b')",
       title="A LLaVA checkpoint whose name lacks 'llava'",
       requires=r"llava|load_pretrained_model"),
    _g("import-order-patching",
       r"eos_token`? \('<EOS_TOKEN>'\) is not found in the vocabulary",
       "trl was imported before unsloth: Unsloth patches trl's SFTConfig and SFTTrainer when it "
       "is imported, and without the patch the config's placeholder eos_token '<EOS_TOKEN>' "
       "reaches the tokenizer.", "Unsloth rewrites trl's classes at import time.",
       ["environment.package-versions"],
       "from unsloth import FastLanguageModel   # first, before trl and transformers\n"
       "from trl import SFTConfig, SFTTrainer", title="trl imported before unsloth",
       requires=r"unsloth"),
    _g("mps-generate-without-attention-mask",
       r"Can't infer missing attention mask on `?mps`? device",
       "generate() was called on Apple MPS without an attention_mask; transformers infers the "
       "mask with torch.isin, which MPS lacks before torch 2.4.",
       "Without a mask, generate guesses it from the pad token.", ["environment.device"],
       "inputs = tokenizer(prompt, return_tensors='pt').to('mps')\nmodel.generate(**inputs)   "
       "# passes attention_mask\n# or: pip install -U \"torch>=2.4\"",
       title="No attention mask on MPS"),
    _g("pipeline-argument-removed",
       r"TokenClassificationPipeline\._sanitize_parameters\(\) got an unexpected keyword "
       r"argument '(?:grouped_entities|ignore_subwords)'",
       "transformers 5 removed the token-classification pipeline's grouped_entities and "
       "ignore_subwords arguments; the code was written for transformers 4.",
       "aggregation_strategy replaced them (deprecated since transformers 4.5).",
       ["environment.package-versions"],
       'ner = pipeline("ner", model=name, aggregation_strategy="simple")   # was '
       'grouped_entities=True\n# or keep the code: pip install "transformers<5"',
       priority=20, family=NEW, title="A pipeline argument transformers 5 removed"),
    _g("pipeline-task-removed",
       r"Unknown task (?:summarization|translation(?:_\w{1,20})?|text2text-generation)\b|"
       r"Invalid translation task translation\b|(?P<key_error>KeyError: '(?:translation|"
       r"summarization|text2text-generation)')",
       "transformers 5 removed the summarization, translation and text2text-generation "
       "pipelines; the code was written for transformers 4.",
       "The listing of available tasks no longer holds them.", ["environment.package-versions"],
       'pip install "transformers<5"   # keeps those pipelines\n# or on 5: inputs = '
       "tokenizer(text, return_tensors='pt'); model.generate(**inputs)  (AutoModelForSeq2SeqLM)",
       priority=20, family=NEW, title="A pipeline transformers 5 removed",
       refine=refine_removed_pipeline),
    _g("pipeline-batching-without-pad-token",
       r"Pipeline with tokenizer without pad_token cannot do batching",
       "pipeline(..., batch_size > 1) pads the batch, and the tokenizer (a decoder-only "
       "checkpoint's) has no pad token.", "Decoder-only checkpoints ship without a pad token.",
       ["data.no-pad-token"],
       "pipe.tokenizer.pad_token_id = pipe.model.config.eos_token_id\npipe.tokenizer."
       "padding_side = 'left'   # for generation", family="no-pad-token",
       title="Batching a pipeline without a pad token"),
    _g("peft-task-type-mismatch",
       r"'(?P<head>\w{0,80}For(?:Sequence|Token)Classification)' object has no attribute "
       r"'prepare_inputs_for_generation'|"
       r"(?<![\w.])(?P<decoder>\w{0,80}(?:ForCausalLM|LMHeadModel|ForConditionalGeneration|"
       r"Model))\.forward\(\) got an unexpected keyword argument 'decoder_input_ids'",
       "The PEFT task type does not match the model: task_type=\"SEQ_2_SEQ_LM\" (or a seq2seq "
       "script) on a decoder-only model passes decoder_input_ids to a forward that takes none; "
       "task_type=\"CAUSAL_LM\" on a classifier asks for generation methods it lacks.",
       "get_peft_model builds the PeftModel subclass of the task type, which feeds the base "
       "model that task's inputs.", ["model.adapter"],
       "LoraConfig(task_type=TaskType.CAUSAL_LM, ...)   # a decoder-only model\n# SEQ_CLS for "
       "...ForSequenceClassification, TOKEN_CLS for ...ForTokenClassification",
       priority=20, title="The PEFT task type does not match the model",
       refine=refine_task_type),
    _g("device-map-auto-unsupported",
       r"(?<!\w)(?P<cls>\w{1,80}) does not support [`'\"]?device_map[`'\"]?\s*[=:]\s*[`'\"]?auto",
       "from_pretrained(device_map=\"auto\") (or load_in_8bit/4bit) needs a model class that "
       "declares _no_split_modules; this class (BERT-family heads) does not, so accelerate "
       "cannot split it.", "accelerate splits a model only between the blocks the class names.",
       ["environment.device"],
       'model = AutoModelForSequenceClassification.from_pretrained(name, device_map={"": 0})   '
       "# the whole model on one GPU\n# or no device_map and model.to('cuda')",
       title="device_map='auto' on a class that cannot be split"),
]

