"""More of the catalogue: errors of datasets, tokenizers, the Hub, PEFT/TRL, Keras, mixed precision
and CUDA set-ups that fine-tuning runs into, each with its usual cause and fix."""
from __future__ import annotations

import re
from typing import Any

from wizard.triage import api_history
from wizard.triage.env_answers import MISSING, answer
from wizard.triage.packages import version_lt
from wizard.triage.parse import ParsedError
from wizard.triage.paths import LOCAL_PATH, PUBLIC_MODELS, is_local_path
from wizard.triage.signature import Signature, signature_maker
from wizard.triage.versions import paste_versions



def refine_partial_checkpoint(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The fix names the unfinished checkpoint folder of the error."""
    path = str(ev.get("path", "")).strip()
    return {"fix": f"rm -rf {path}   # unfinished: resuming then takes the previous checkpoint\n"
                   "# or: trainer.train(resume_from_checkpoint='<output_dir>/checkpoint-<an "
                   "earlier step>')"} if path else None

def refine_no_grad(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    if re.search(r"gradient.?checkpointing|peft|lora|get_peft_model", parsed.text, re.I):
        return {"cause": "Gradient checkpointing on a model whose input embeddings are frozen "
                         "(LoRA/PEFT): no checkpointed input requires grad, so the loss has no "
                         "grad_fn."}
    return None


# checkpoints whose tokenizer is a SentencePiece model (Marian's opus-mt, T5, mT5, ALBERT, XLM-R ...)
_SENTENCEPIECE_CHECKPOINT = re.compile(r"opus-mt-|\b(?:google/)?(?:flan-)?m?t5-(?:small|base|large|"
                                       r"xl|3b|11b)|\balbert-|\bxlm-roberta-|\bcamembert|"
                                       r"\bmbart-|pegasus-|\bxlnet-")


def refine_sentencepiece(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Only with a SentencePiece tokenizer class in the paste (those are None without it)."""
    if not re.search(r"\b(?:T5|MT5|Albert|XLNet|Camembert|MBart\w*|Pegasus|Marian|Llama|"
                     r"XLMRoberta|BigBird|DebertaV2|Reformer|BarthezTokenizer|Speech2Text|M2M100|"
                     r"Bartpho|Rembert|FNet|Plbart|NllbT?|XGLM|Gemma|CodeLlama|LayoutXLM|"
                     r"BertGeneration|GPTSw3|MLuke|SpeechT5|Siglip|Udop|SeamlessM4T|Cpm|ErnieM|"
                     r"BigBirdPegasus|Pegasus_?X?)Tokenizer\b", parsed.text) and \
            not _SENTENCEPIECE_CHECKPOINT.search(parsed.text):
        return {"reject": True}
    return None


_BARE_MODEL = re.compile(r"\b(?:TF)?AutoModel\.from_pretrained|\b(?:TF)?[A-Z]\w*(?<!For)(?<!LM)Model"
                         r"\.from_pretrained|were not used when initializing (?:TF)?[A-Z]\w*"
                         r"(?<!For)Model\b|\.generate\(")


def _bare_model(parsed: ParsedError) -> bool:
    """The paste loads (or generates with) a model class without a seq2seq head."""
    return bool(_BARE_MODEL.search(parsed.text)) and not re.search(
        r"\b\w+For(?:ConditionalGeneration|Seq2SeqLM)\b", parsed.text)


def refine_head_missing(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Decoder inputs missing: the model's class when the paste loads a bare model (AutoModel,
    T5Model) or generates with one (the signature's other messages always)."""
    decoder = "decoder_input_ids or decoder_inputs_embeds" in parsed.text
    return None if not decoder or _bare_model(parsed) else {"reject": True}


# an encoder-decoder model, by class or by checkpoint name
_SEQ2SEQ = re.compile(r"\b(?:TF|Flax)?(?:T5|MT5|UMT5|LongT5|Bart|MBart|Pegasus|Marian|LED|ProphetNet|"
                      r"Blenderbot|FSMT|M2M100)(?:Model|For\w+)\b|\bAutoModelForSeq2SeqLM\b|"
                      r"\bEncoderDecoderModel\b|['\"/](?:t5|mt5|flan-t5|bart|mbart)-[\w-]+['\"]|"
                      r"\b(?:T5|mT5|BART)(?:-(?:small|base|large|3b|11b))?\b")
# the user's line calls something with one or more arguments: the encoder got its inputs
_CALL_WITH_INPUT = re.compile(r"\w\)?\((?!\s*\))")


def refine_decoder_call(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Decoder inputs missing from the call (encoder inputs only, no labels) of a model that
    has its head. Older releases said "input_ids or inputs_embeds" for the decoder too: that
    wording counts only when the paste names an encoder-decoder model and the user's line calls
    it with inputs."""
    if _bare_model(parsed):
        return {"reject": True}
    if "decoder_input" in (parsed.message or ""):
        return None
    stated = paste_versions(parsed.text).get("transformers")
    if stated and version_lt(stated, "4.0") is False:
        return {"reject": True}       # the decoder's own wording since 2.9 (PR #4128)
    user = parsed.innermost_user_frame
    called = user is not None and bool(_CALL_WITH_INPUT.search(user.code or ""))
    return None if called and _SEQ2SEQ.search(parsed.text) else {"reject": True}


def refine_padding_side(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """With pad_token_id set to eos_token_id, a prompt ending in EOS looks right-padded: the
    warning can be a false alarm on a left-padded batch."""
    if not re.search(r"pad_token(?:_id)?\s*=\s*(?:tokenizer\.|self\.tokenizer\.)?eos_token|"
                     r"pad_token_id\s*(?:==|is|equals?)\s*(?:the )?eos", parsed.text):
        return None
    return {"id": "pad-equals-eos-false-warning",
            "cause": "pad_token_id equals eos_token_id, so a prompt that ends with EOS looks "
                     "right-padded to generate(): the warning can fire on left-padded batches.",
            "fix": "tokenizer.pad_token = tokenizer.unk_token or '<|pad|>'   # a pad token "
                   "distinct from EOS silences it; left padding stays right for generation"}


_TRAINING = re.compile(r"\b(?:\w*Trainer|trainer\.train|\.fit)\b|\b(?:GRPO|SFT|DPO|PPO|RLHF)\b|"
                       r"\b(?:training|fine-?tun\w+|train\.py|compute_loss|training_step)\b", re.I)


def refine_flash_padding(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The flash-attention check runs whenever use_cache is on, so in a training forward pass
    (no generation) the answer is use_cache=False, not left padding."""
    if re.search(r"\.generate\(|\bpipeline\(", parsed.text) and not re.search(
            r"\b(?:GRPO|PPO|RLOO|online)\w*", parsed.text):
        return None                   # generation: left padding is the fix
    if not _TRAINING.search(parsed.text):
        return None
    return {"id": "use-cache-on-during-training",
            "cause": "A training forward pass ran with use_cache on: the model's flash-attention "
                     "path then treats the right-padded batch as batched generation and refuses "
                     "it. Training needs no cache, and right padding is right for training.",
            "fix": "model.config.use_cache = False   # right after from_pretrained, before training"}


def refine_other_framework_weights(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The message says the other framework's weights are there: load and convert those. The
    folder holds model.safetensors, yet the file names searched leave it out: transformers
    looks for it only when the safetensors package is installed."""
    m = re.search(r"but there is a file for (?P<fw>TensorFlow|Flax|PyTorch) weights", parsed.text)
    searched = re.search(r"no file named ([^\n]*?)(?: found)? in directory|does not appear to have "
                         r"a file named ([^\n]*)", parsed.text, re.I)
    names = (searched.group(1) or searched.group(2)) if searched else ""
    if m is None and searched and "safetensors" not in names and \
            re.search(r"\bmodel(?:-\d+-of-\d+)?\.safetensors\b", parsed.text):
        return answer(MISSING, "safetensors", "The folder holds its weights as model.safetensors, "
                      f"but the files searched ({names.strip()[:120]}) leave safetensors out: "
                      "transformers looks for them only when the safetensors package is "
                      "installed.", "pip install safetensors   # then restart the runtime", ev)
    if m is None:
        return None
    flag = {"TensorFlow": "from_tf", "Flax": "from_flax", "PyTorch": "from_pt"}[m.group("fw")]
    return {"id": "no-pytorch-weights-on-hub" if flag != "from_pt" else "no-tf-weights-on-hub",
            "cause": f"The checkpoint holds only {m.group('fw')} weights, and this model class "
                     "looks for its own framework's weights.",
            "fix": f"model = <the class>.from_pretrained(name, {flag}=True)   # converts them "
                   f"(needs {m.group('fw').lower()} installed); or save_pretrained the converted "
                   "model once"}


# a numbered layer of a model's body, in state-dict names ('bert.encoder.layer.3.attention...',
# 'model.layers.0.self_attn...', 'transformer.h.5...', 'encoder.block.2...') or Flax key tuples
# (('encoder', 'layer', '9', 'attention', ...))
_BODY_LAYER = re.compile(r"\b(?:layers?|h|block|blocks)(?:\.|', ')\d+\b")


def refine_body_weights_unused(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Unused weights of the model's body are lost layers; unused heads (a pretraining head, a
    pooler) are the expected note of a task model (library-info-warning)."""
    return None if _BODY_LAYER.search(str(ev.get("unused", ""))) else {"reject": True}


# the platform a paste shows: pip's interpreter line, an environment block, a wheel tag
_PLATFORMS = (("Windows", re.compile(r"\bWindows\b|\bMSC v\.\d+|\bwin_amd64\b|\bwin32\b")),
              ("macOS on Apple silicon", re.compile(r"\b(?:macOS|Darwin|OS X)\b[^\n]{0,60}?"
                                                    r"\barm64\b|\bApple (?:M\d|silicon)\b", re.I)))


def refine_no_wheel(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """pip found no distribution: on a platform the paste shows that often lacks wheels
    (Windows, Apple silicon), say so; else the generic answer."""
    req = str(ev.get("requirement") or ev.get("requirement2") or "the package").rstrip(".,;")
    where = next((name for name, rx in _PLATFORMS if rx.search(parsed.text)), None)
    if where is None:
        return None
    return {"cause": f"pip finds no distribution of {req} for this platform ({where}): the "
                     f"package publishes no wheels for {where} (for this release, or at all), or "
                     "none for this Python version.",
            "fix": f"pip download {req} --no-deps -d /tmp/x   # pip -v lists the files it skipped "
                   f"and why\n# no {where} wheels: run it under Linux (WSL2 on Windows, a "
                   "container) or pick a release whose files include your platform on PyPI"}


def refine_checkpoint_resume(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A checkpoint folder holding only adapter weights (LoRA): older Trainers resume only from
    full model weights. resume_from_checkpoint=True itself failing: nothing to resume from."""
    if ev.get("none_in_dir"):
        return {"cause": "trainer.train(resume_from_checkpoint=True) found no checkpoint-N folder "
                         "in output_dir: nothing was saved there yet, or the run saved elsewhere.",
                "fix": "from transformers.trainer_utils import get_last_checkpoint\n"
                       "trainer.train(resume_from_checkpoint=get_last_checkpoint(args.output_dir))"
                       "   # None: from the start"}
    if not re.search(r"adapter_model\.(?:bin|safetensors)|\bLoRA\b|\blora\b|peft", parsed.text):
        return None
    return {"id": "adapter-checkpoint-not-resumable",
            "cause": "The checkpoint folder holds only the adapter (adapter_model.*), not full model "
                     "weights, and the Trainer that resumes looks for full weights: resuming from "
                     "adapter-only checkpoints came with newer transformers releases.",
            "fix": 'pip install -U transformers peft   # resumes adapter checkpoints\n'
                   "# or load the adapter to keep training: PeftModel.from_pretrained(base, "
                   "'checkpoint-8000', is_trainable=True)"}


def refine_frozen_adapter(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Only when the paste loads a saved adapter without is_trainable=True (a fresh
    get_peft_model with nothing trainable is another fault)."""
    call = re.search(r"PeftModel\.from_pretrained\((?P<args>[^()]{0,400})\)", parsed.text)
    if call is None or re.search(r"is_trainable\s*=\s*True", call.group("args")):
        return {"reject": True}
    return None


def refine_hub_signature(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The fix names a signature the module has (the first the error lists)."""
    return {"fix": f"hub.KerasLayer(handle, signature={ev['available']!r}, "
                   "signature_outputs_as_dict=True)   # one of the signatures the error lists"}


def refine_collated_label(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Only with a transformers collator as collate_fn and an error (or the reporter's word)."""
    collator = re.search(r"collate_fn\s*=\s*(?:\w+\.)?(?:Default)?DataCollator\w*|"
                         r"\bDataCollator\w*\([^)\n]*\)[\s\S]{0,400}?collate_fn\s*=", parsed.text)
    failed = parsed.exc_type or re.search(r"\b(?:error|fails?|assert\w*)\b", parsed.text, re.I)
    return None if collator and failed else {"reject": True}


# a local path as a loader prints it: ./x, ../x, /x, ~/x, C:\x



def refine_local_folder(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Only for a local path (a Hub id without the file is another matter)."""
    return None if re.match(LOCAL_PATH, str(ev.get("path") or ev.get("path2") or "")) else \
        {"reject": True}


# the download caches of huggingface_hub, sentence-transformers and torch.hub
_CACHE_DIR = re.compile(r"[/\\]\.cache[/\\](?:huggingface[/\\](?:hub|transformers|diffusers)|torch[/\\]"
                        r"(?:hub|transformers))[/\\]|[/\\]hub[/\\]models--|"
                        r"sentence_transformers[/\\][\w.-]+[/\\]")


def refine_loader_path(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A missing file that a library was asked to read; the user's own open() of a missing file
    is plain code (the line shown is the answer)."""
    relevant = [f for f in parsed.frames if f.kind != "other"]
    if relevant and relevant[-1].is_user:
        return {"reject": True}
    path = str(ev.get("path") or ev.get("path2") or "")
    if _CACHE_DIR.search(path):       # a file the library itself downloaded there
        return {"id": "incomplete-model-download",
                "cause": f"{path} is inside the download cache, where the library put the "
                         "model's files itself: an earlier download stopped midway and left the "
                         "folder without this file.",
                "fix": "rm -rf <the cached model folder named in the path>   # then load again: "
                       "it downloads anew\n# or: from_pretrained(name, force_download=True)"}
    return None


# safetensors asked to read a pickled checkpoint: load_file("pytorch_model.bin")
_PICKLE_AS_SAFETENSORS = re.compile(r"(?:load_file|safe_open|load_safetensors)\(\s*[^)\n]{0,200}?"
                                    r"\.(?:bin|pt|pth|ckpt|pkl)\b", re.I)
_LFS_CLONE = re.compile(r"\bgit (?:clone|lfs)\b|\bgit-lfs\b", re.I)


def refine_unreadable_weights(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A weights file safetensors cannot read: a pickled checkpoint given to safetensors, a
    clone without git-lfs when the paste shows one, else a cut or failed download."""
    if _PICKLE_AS_SAFETENSORS.search(parsed.text):
        return {"id": "pickle-file-loaded-as-safetensors",
                "cause": "The file given to safetensors is a pickled PyTorch checkpoint (.bin, "
                         ".pt), not a safetensors file: its first bytes are read as the header "
                         "length, a meaningless huge number.",
                "fix": "state_dict = torch.load(path, map_location='cpu', weights_only=True)   "
                       "# a .bin/.pt file\n# or load the .safetensors file of the repository"}
    if _LFS_CLONE.search(parsed.text):
        return {"id": "env-setup-step-skipped",
                "cause": "The weights file is a Git LFS pointer (a small text file): the repo "
                         "was cloned without git-lfs, so the weights were never downloaded.",
                "fix": "git lfs install && git lfs pull   # in the cloned folder"}
    return None


# the vocabulary files a tokenizer class asks for, and the words of a tokenizer of the other kind
_BPE_FILES = re.compile(r"vocabulary files named \[?'vocab\.json', 'merges\.txt'\]?")
_WORDPIECE_FILES = re.compile(r"vocabulary files named \[?'vocab\.txt'\]?")
_WORDPIECE = re.compile(r"\bWordPiece|BertWordPieceTokenizer|\bvocab\.txt\b(?! but)")
_BPE = re.compile(r"ByteLevelBPETokenizer|\bByte[- ]?Level BPE\b|\bmerges\.txt\b")


# a library's own data folder in the home directory (~/.camel_tools/data/..., ~/.stanza/...), not
# a cache or config folder of the system
_LIBRARY_DATA_DIR = re.compile(r"(?P<dir>(?:~|/root|/home/[^/\s]+|/Users/[^/\s]+|[A-Za-z]:\\Users\\"
                               r"[^\\\s]+)[/\\]\.(?!cache\b|local\b|config\b|conda\b|"
                               r"virtualenvs\b|pyenv\b|keras\b)[\w-]+[/\\](?:data|models?|"
                               r"resources?|pretrained)\b)")


def _other_tokenizer_kind(text: str) -> tuple[str, str, str] | None:
    """(files asked for, the saved kind, its class) when the class asks for BPE files and the
    paste trained or saved a WordPiece tokenizer, or the other way round."""
    if _BPE_FILES.search(text) and _WORDPIECE.search(_BPE_FILES.sub("", text)):
        return "BPE (vocab.json, merges.txt)", "WordPiece (vocab.txt)", "BertTokenizerFast"
    if _WORDPIECE_FILES.search(text) and _BPE.search(_WORDPIECE_FILES.sub("", text)):
        return "WordPiece (vocab.txt)", "BPE (vocab.json, merges.txt)", "RobertaTokenizerFast"
    return None


def refine_load_path(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A path (./x, /x, ~/x, C:\\x, several folders deep) is a local folder without the files;
    an org/name id is a Hub repository that cannot be found."""
    path = str(ev.get("path") or ev.get("path2") or ev.get("path3") or ev.get("path4") or
               ev.get("path5") or ev.get("path6") or "")
    if is_local_path(path):
        data = _LIBRARY_DATA_DIR.search(path)
        if data:
            return {"id": "env-setup-step-skipped",
                    "cause": f"{path} is inside {data.group('dir')}, the data folder a library "
                             "fills with its own download step (models, resources): that step was "
                             "not run (or was cut short), so the folder lacks the files.",
                    "fix": f"# run the library's data download (its README names it, e.g. "
                           f"`<tool> download` / `<lib>_data -i all`), then: ls {path}"}
        other = _other_tokenizer_kind(parsed.text)
        if other:
            return {"id": "tokenizer-class-mismatch",
                    "cause": f"The tokenizer class looks for {other[0]} files, and the "
                             f"tokenizer saved in {path} is {other[1]}: a tokenizer trained with "
                             "one algorithm is loaded with the class of another.",
                    "fix": f"tokenizer = PreTrainedTokenizerFast(tokenizer_file='{path}/"
                           "tokenizer.json')   # the trained tokenizer saved with .save(); or "
                           f"the class of its kind ({other[2]})"}
        if ev.get("path2") or ev.get("path6"):   # PeftModel.from_pretrained / AutoPeftModel
            return {"id": "local-file-missing",
                    "cause": f"The folder {path} holds no adapter_config.json: no adapter was "
                             "saved there (a full model, a checkpoint of another run, or a path "
                             "relative to another working directory).",
                    "fix": f"import os; print(os.listdir('{path}'))   # what was saved\n"
                           "model.save_pretrained(folder)   # on the PeftModel: writes "
                           "adapter_config.json and the adapter weights"}
        return {"id": "local-file-missing",
                "cause": f"The folder {path} does not hold the files to load (a model saved "
                         "without its tokenizer, a checkpoint folder, or a path relative to "
                         "another working directory).",
                "fix": f"tokenizer.save_pretrained('{path}')   # where the model was saved\n"
                       "# or load the tokenizer from the original Hub checkpoint"}
    if path in PUBLIC_MODELS:
        gated = re.match(r"meta-llama/|google/gemma|mistralai/", path) is not None
        return {"id": "hub-unreachable",
                "cause": f"{path} is a well-known public repository, so the name is not the "
                         "problem: the Hub was not reached from this machine (no network, a "
                         "proxy or firewall, a region that needs a mirror) and the files are not "
                         "cached; or a local folder of that name hides it."
                         + (" It is also gated: without a token of an account that accepted its "
                            "licence, it cannot be downloaded either." if gated else ""),
                "fix": ("huggingface-cli login   # gated: accept the licence on its page first\n"
                        if gated else "") + "curl -I https://huggingface.co   # reachable?\n"
                       "export HF_ENDPOINT=https://hf-mirror.com   # a mirror, where the Hub is "
                       "blocked\n# or download once where it is reachable (huggingface-cli "
                       f"download {path}) and load the local folder"}
    return {"id": "model-id-not-found",
            "cause": f"{path} is not a repository the Hub serves here: misspelt, private or "
                     "gated (needs a token), or the Hub is unreachable and it is not cached.",
            "fix": "huggingface-cli login   # for private or gated repositories\n"
                   f"# and check the id at https://huggingface.co/{path}"}


_SAYS_STRING_LABELS = re.compile(r"\b(?:labels? (?:as|are|is) (?:a )?strings?|string labels?)\b",
                                 re.I)


def refine_grpo_groups(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The per-device batch that holds whole groups of completions, from the numbers the error
    gives (processes, batch, accumulation steps, generations)."""
    if ev.get("too_few") is not None:
        return {"cause": "GRPO scores each completion against the other completions of its "
                         "prompt, so it needs at least 2 generations per prompt; "
                         f"num_generations={ev['too_few']}.",
                "fix": "GRPOConfig(num_generations=4, per_device_train_batch_size=4, ...)   # "
                       ">= 2 generations; the batch a multiple of them"}
    gens = int(ev.get("generations") or ev.get("generations2") or 0)
    if gens < 1:
        return None
    procs, accum = int(ev.get("processes") or 1), int(ev.get("accum") or 1)
    if ev.get("gen_batch"):           # trl >= 0.18: the generation batch itself
        return {"fix": f"GRPOConfig(per_device_train_batch_size={gens}, "
                       f"gradient_accumulation_steps=1, num_generations={gens}, ...)   # "
                       "num_processes x per_device_train_batch_size x gradient_accumulation_steps "
                       f"(or generation_batch_size) a multiple of {gens}"}
    batch = int(ev.get("batch") or 1)
    fit = next(b for b in range(batch, batch + gens + 1) if procs * b * accum % gens == 0)
    return {"fix": f"GRPOConfig(per_device_train_batch_size={fit}, num_generations={gens}, ...)"
                   f"   # {procs} process(es) x {fit}" + (f" x {accum}" if ev.get("accum") else "")
                   + f" completions hold whole groups of {gens}; or num_generations = one of "
                     "the valid values the error lists"}


def refine_training_args_field(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A field transformers' own TrainingArguments has in some releases (eval_strategy from
    4.41) is no TRL field: the object that lacks it is another release's TrainingArguments (or
    another library's class of that name), read by code of a different release."""
    attr = str(ev.get("attr", ""))
    span = api_history.kwarg("transformers.TrainingArguments", attr)
    if span is None:
        return None                   # a TRL trainer's field: the wrong config class
    first = ".".join(span.first.split(".")[:2]) + ".0"      # the history scans one patch a minor
    reader = [f for f in parsed.frames if f.is_library and f.package == "transformers"]
    other = re.search(r"\b(setfit)\b", parsed.text, re.I)   # a library with a TrainingArguments
                                                          # of its own
    if reader or other:
        owner = other.group(1) if other else "the library whose TrainingArguments it is"
        return {"id": "env-version-too-new",
                "cause": f"transformers code reads args.{attr}, a field its TrainingArguments has "
                         f"from {first} on, from a TrainingArguments that lacks it ({owner}'s "
                         "own class, or one of an older release): transformers is newer than "
                         "that code supports.",
                "fix": f'pip install "transformers<{first}"   # the release before it\n'
                       f"# or upgrade {owner if other else 'the library'} to a release made for "
                       "the installed transformers"}
    return {"id": "env-version-too-old",
            "cause": f"The code reads args.{attr}, a TrainingArguments field from transformers "
                     f"{first} on, and the installed transformers is older.",
            "fix": f'pip install -U "transformers>={first}"'}


def refine_string_labels(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A bare UnimplementedError (its message lost) is the string cast only when the reporter
    says the labels are strings."""
    if ev.get("unimplemented") and not _SAYS_STRING_LABELS.search(parsed.text) and \
            not re.search(r"Cast string to (?:float|int)", parsed.text, re.I):
        return {"reject": True}
    if ev.get("word") and not re.search(r"\blabels?\b|\blabel_(?:col|column|list|ids?)\b|"
                                        r"\btargets?\b|\bclass(?:es)?\b|\bnum_labels\b",
                                        parsed.text, re.I):
        return {"reject": True}       # int() of a word, with no label in sight: anything
    return None


# a 403 on reading a repository's files (not on a commit, an upload or a repo creation)
_DOWNLOAD = re.compile(r"/resolve/|hf_hub_download|snapshot_download|from_pretrained|\bdownload",
                       re.I)
_WRITE = re.compile(r"/(?:commit|preupload|upload)\b|create_repo|push_to_hub|upload_\w+\(|"
                    r"git push", re.I)


def refine_invalid_token(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """huggingface_hub appends "Invalid username or password." to the 401 of a repository it
    does not find (or may not show): then the repository is the question, not the token."""
    if ev.get("password") and re.search(r"Repository ?Not ?Found|RepositoryNotFoundError",
                                        parsed.text):
        return {"reject": True}
    return None


def refine_download_forbidden(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A bare 403 is the gate only when the paste downloads (a write refused is another
    cause)."""
    if ev.get("forbidden") and (_WRITE.search(parsed.text) or not _DOWNLOAD.search(parsed.text)):
        return {"reject": True}
    if ev.get("unauthorized") and re.search(r"correct model identifier|Repository ?Not ?Found|"
                                            r"not a valid model identifier", parsed.text):
        return {"reject": True}       # the same 401 answers a repository that is not there
    return None


def refine_wrapped_load_error(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """transformers' wrapper of torch.load's error answers only when the paste lacks the error it
    wraps (shown, the chained error is the cause)."""
    return {"reject": True} if parsed.chain else None


_s = signature_maker(12)


HF_SIGNATURES: list[Signature] = [
    _s("datasetdict-instead-of-dataset",
       r"'DatasetDict' object has no attribute '(?P<attr>\w+)'|No such file or directory: "
       r"'(?:[^'\n]*[/\\])?state\.json'|Expected a \w*Dataset\w* but got a DatasetDict",
       "load_dataset without split= returns a DatasetDict (one Dataset per split); the call "
       "needs one split (a Dataset).",
       "DatasetDict methods apply to every split; Dataset-only methods (train_test_split, "
       "load_from_disk of one split, ...) need dataset['train'].",
       ["data.batch-structure"],
       "dataset = load_dataset('csv', data_files='data.csv', split='train')\n"
       "# or: dataset = dataset['train'];  saved DatasetDict: datasets.load_from_disk(path)",
       title="'DatasetDict' object has no attribute ..."),
    _s("incomplete-checkpoint-resumed",
       r"No such file or directory: '(?P<path>[^'\n]*checkpoint-\d+)[/\\](?:trainer_state\.json|"
       r"optimizer\.pt|scheduler\.pt|rng_state\w*\.pth|training_args\.bin)'",
       "The checkpoint resumed from is incomplete: a run stopped (killed, preempted, out of disk) "
       "while the Trainer was writing it, and resume_from_checkpoint=True takes the newest "
       "checkpoint-N folder whether or not all its files were written.",
       "Trainer writes the model, then the optimizer, scheduler, RNG and trainer_state.json into "
       "checkpoint-N; resuming reads all of them.",
       ["environment.hub-file-missing"],
       "rm -rf <output_dir>/checkpoint-N   # the unfinished one; resuming then takes the previous\n"
       "# or: trainer.train(resume_from_checkpoint='<output_dir>/checkpoint-<an earlier step>')",
       title="Resuming from an unfinished checkpoint", priority=12,
       refine=refine_partial_checkpoint),
    _s("arrow-mixed-column-types",
       r"Couldn't cast array of type[\s\S]{1,300}?\sto\s|"
       r"Could not convert .{1,200}? with type \w+: tried to convert to \w+|changed from "
       r"(?:object|array|string|number) to (?:object|array|string|number)|ArrowTypeError: "
       r"Expected bytes, got an? '\w+' object",
       "A column holds values of different types across rows (numbers and strings, objects and "
       "lists); an Arrow column has exactly one type.",
       "datasets infers each column's type from the first rows and fails on the first row of "
       "another type.",
       ["data.batch-structure"],
       "rows = [{**r, 'col': str(r['col'])} for r in rows]   # one type per column\n"
       "# or: Dataset.from_list(rows, features=Features({'col': Value('string'), ...}))",
       title="ArrowInvalid: Could not convert ... with type ..."),
    _s("invalid-jsonl-format",
       r"Exceeded maximum rows|JSON parse error: (?:Missing a (?:comma|name|closing)|The document "
       r"(?:is empty|root must not be followed))",
       "The file is not JSON Lines (one JSON object per line): several objects share a line, or "
       "it is one big JSON document.",
       "datasets' JSON reader reads one row per line; a whole-file array or glued objects "
       "overflow or break it.",
       ["data.batch-structure"],
       "df.to_json('train.jsonl', orient='records', lines=True)   # one object per line"),
    _s("dataset-script-not-streamable",
       r"FileNotFoundError[\s\S]{0,300}?https?://[^\s'\"]+?\.(?:zip|tar\.gz|tgz|tar|7z)/[^\s'\"]+",
       "The dataset's loading script joins paths inside a downloaded archive as if it were "
       "extracted; with streaming=True the archive is never extracted.",
       "In streaming mode archives are read with dl_manager.iter_archive, not by path.",
       ["environment.dataset-config"],
       "load_dataset(name, split='train')   # without streaming=True\n"
       "# script authors: use dl_manager.iter_archive(...) for files inside archives"),
    _s("hub-invalid-token",
       r"Invalid user token|(?P<password>Invalid username or password)|Invalid credentials in Authorization "
       r"header|token (?:is )?(?:not valid|invalid|expired)|Invalid token passed|401 Client Error:"
       r" Unauthorized for url: https://huggingface\.co/api/(?:repos/create|whoami)",
       "The token in use is invalid (revoked, mistyped, or an HF_TOKEN variable that overrides "
       "the one saved by login).",
       "HF_TOKEN in the environment takes priority over huggingface-cli login.",
       ["environment.hub-auth-required"],
       "unset HF_TOKEN   # or set it to a valid token\nhuggingface-cli login\n"
       "huggingface-cli whoami", priority=14, refine=refine_invalid_token),
    _s("hub-gated-repo",
       r"Cannot access gated repo|You are trying to access a gated repo|is a gated (?:repo|"
       r"repository|dataset|model)|GatedRepoError|awaiting a review from the repo authors|"
       # a download refused (403) without the gate named: older huggingface_hub releases
       r"(?P<forbidden>403 (?:Client Error: )?Forbidden for url)|"
       # older huggingface_hub: 401 on a file of a gated (or private, or missing) repository
       r"(?P<unauthorized>401 Client Error: Unauthorized for url: https://huggingface\.co/"
       r"(?!api/)[^\s]+/resolve/)",
       "The repository is gated: accept its terms on the Hub and authenticate.",
       "Gated repos answer 401/403 until the license is accepted and a token is sent.",
       ["environment.gated-repo", "environment.hub-auth-required"],
       "# accept the terms at https://huggingface.co/<repo>, then:\nhuggingface-cli login",
       priority=13, refine=refine_download_forbidden),
    _s("hub-upload-too-large",
       r"413 Client Error: Payload Too Large|Payload Too Large for url",
       "The upload exceeds the Hub's limits (50 GB per file, very large commits).",
       "Split large files and upload big folders in several commits.",
       ["environment.download-size"],
       "huggingface-cli upload-large-folder <repo> <folder> --repo-type=dataset"),
    _s("gpu-held-by-other-process",
       r"Blas (?:x?GEMM\w*) launch failed|failed to create cublas handle|CUBLAS_STATUS_"
       r"(?:ALLOC_FAILED|NOT_INITIALIZED)",
       "cuBLAS cannot start because the GPU's memory is already taken: another process "
       "(another notebook kernel) or TensorFlow's pre-allocation holds it.",
       "TensorFlow grabs nearly all GPU memory at start; a second process finds none left.",
       ["memory.gpu-held-by-other-process", "memory.tf-grabs-all-gpu-memory"],
       "nvidia-smi   # stop the other processes\nfor gpu in tf.config.list_physical_devices("
       "'GPU'):\n    tf.config.experimental.set_memory_growth(gpu, True)", priority=13),
    _s("cudnn-failed-to-initialize",
       r"CUDNN_STATUS_(?:INTERNAL_ERROR|NOT_INITIALIZED|ALLOC_FAILED)|cuDNN failed to initialize|"
       r"Could not create cudnn handle",
       "cuDNN could not create its handle, usually because TensorFlow pre-allocated the GPU's "
       "memory (or a CUDA/cuDNN version mismatch).",
       "Memory growth leaves room for cuDNN's workspace.",
       ["memory.tf-grabs-all-gpu-memory", "memory.gpu-held-by-other-process"],
       "for gpu in tf.config.list_physical_devices('GPU'):\n"
       "    tf.config.experimental.set_memory_growth(gpu, True)", priority=13),
    _s("string-labels-not-encoded",
       r"Cast string to (?:float|int\d*) is not supported|too many dimensions 'str'|"
       r"new\(\): invalid data type 'str'|^(?P<unimplemented>UnimplementedError)\b|"
       # a class name cast by int() (a loader or the user's own code)
       r"invalid literal for int\(\) with base 10: '(?P<word>[A-Za-z][\w -]{0,40})'",
       "The labels are strings (class names); losses and collators need integer class ids.",
       "Keras casts targets to numbers and PyTorch builds label tensors; neither takes strings.",
       ["data.string-labels"],
       "dataset = dataset.class_encode_column('label')\n"
       "# or: label2id = {l: i for i, l in enumerate(sorted(set(labels)))}", priority=13,
       refine=refine_string_labels),
    _s("tokenizer-unk-token-not-set",
       r"Missing \[?UNK\]? token from the vocabulary|`?unk_id`? is missing|Encountered an unknown "
       r"token but|Unk token `?[^`\n]{1,20}`? not found in the vocabulary",
       "The tokenizer has no unknown token in its vocabulary (or the model was not told which "
       "it is), so an out-of-vocabulary piece cannot be encoded.",
       "WordPiece/Unigram map unknown pieces to unk_token; the token must be in the vocab and "
       "named to the model/trainer.",
       ["data.tokenizer-model-mismatch"],
       "trainer = trainers.UnigramTrainer(vocab_size=..., special_tokens=['<unk>'], "
       "unk_token='<unk>')\n# or load with the special tokens used in training: "
       "BertWordPieceTokenizer(vocab, unk_token='<unk>')", priority=13),
    _s("tokenizer-stride-too-large",
       r"assertion failed: stride < max_len|stride \(\d+\) (?:is|must be)|stride .{0,30}(?:must|"
       r"should) be (?:strictly )?(?:less|smaller) than",
       "stride must be smaller than max_length minus the special tokens.",
       "The overflow windows overlap by `stride` tokens; with no room left for new tokens the "
       "tokenizer cannot advance.",
       ["data.text-lengths"], "tokenizer(texts, truncation=True, max_length=512, stride=128, "
       "return_overflowing_tokens=True)", priority=14),
    _s("rust-compiler-not-found",
       r"Can ?not find Rust compiler|can't find Rust compiler|error: could not compile `?"
       r"tokenizers|Failed building wheel for tokenizers|Building wheel for tokenizers "
       r"\(pyproject\.toml\) did not run successfully",
       "pip is building tokenizers from source (no wheel for this Python/platform) and finds no "
       "Rust compiler on the PATH of the process that builds it.",
       "Wheels exist for common platforms and Python versions; elsewhere the Rust toolchain is "
       "needed (and sudo drops the user's PATH).",
       ["environment.package-versions"],
       "curl https://sh.rustup.rs -sSf | sh   # then, without sudo: pip install tokenizers\n"
       "# or use a Python version with tokenizers wheels", priority=14),
    _s("no-wheel-for-python-version",
       r"Could not find a version that satisfies the requirement (?P<requirement>[^\s(]+)|"
       r"No matching distribution found for (?P<requirement2>\S+)",
       "pip finds no release of the package for this Python version and platform (or the "
       "pinned version does not exist).",
       "Wheels are built per Python version; new Pythons get them only in later releases.",
       ["environment.package-versions"],
       "python --version   # use a Python the pinned release supports, or a newer release",
       priority=14, refine=refine_no_wheel),
    _s("torch-cpu-only-build", r"Torch not compiled with CUDA enabled|module 'torch\._C' has no "
       r"attribute '_cuda_\w+'",
       "The installed PyTorch is a CPU-only build.",
       "CUDA support is chosen at install time by the wheel's index (cu121, cpu, ...).",
       ["environment.device"],
       "pip install torch --index-url https://download.pytorch.org/whl/cu121   # your CUDA",
       priority=15),
    _s("pytorch-model-in-keras",
       r"'?(?:tensorflow\.python\.\w+\.)?(?:Keras)?Tensor'? object has no attribute '?(?:size|"
       r"dim|new_ones)\b",
       "A TensorFlow/Keras tensor reached a PyTorch model (AutoModel loads PyTorch classes).",
       "Keras layers need the TF classes (TFAutoModel...).",
       ["model.forward"], "from transformers import TFAutoModel\n"
       "bert = TFAutoModel.from_pretrained('bert-base-cased')"),
    _s("model-class-without-head",
       r"You have to specify either decoder_input_ids or decoder_inputs_embeds|The current model "
       r"class \(\w+\) is not compatible with `\.generate\(\)`|The following keyword arguments "
       r"are not supported by this model: \['labels?'\]",
       "The model class has no head for the task (AutoModel gives the bare encoder-decoder), so "
       "generate()/training cannot build decoder inputs.",
       "Generation and seq2seq training need ...ForConditionalGeneration / AutoModelForSeq2SeqLM,"
       " which shift the labels into decoder inputs.",
       ["model.no-loss"], "model = AutoModelForSeq2SeqLM.from_pretrained(checkpoint)",
       refine=refine_head_missing),
    _s("fp16-weights-with-amp", r"Attempting to unscale FP16 gradients",
       "The trainable weights are fp16 (model loaded with torch_dtype=float16) and fp16 AMP is "
       "on; the GradScaler needs float32 master weights.",
       "AMP keeps weights in fp32 and computes in fp16; fp16 weights have fp16 gradients.",
       ["model.precision-unsupported"],
       "model = AutoModelForCausalLM.from_pretrained(checkpoint, torch_dtype=torch.float32)\n"
       "# or keep fp16 frozen weights and cast the trainable (LoRA) ones: p.data = p.data.float()"
       "\n# or: TrainingArguments(bf16=True)", priority=14),
    _s("gradient-checkpointing-inputs-no-grad",
       r"element 0 of tensors does not require grad and does not have a grad_fn|"
       # the same, as torch.utils.checkpoint's warning: the loss then trains nothing
       r"None of the inputs have requires_grad=True\. Gradients will be None",
       "Nothing in the loss requires grad: all weights are frozen, or gradient checkpointing "
       "runs on a model whose input embeddings are frozen (LoRA/PEFT).",
       "Reentrant checkpointing needs an input that requires grad.",
       ["model.nothing-trainable", "model.frozen-parameters"],
       "model.enable_input_require_grads()   # before get_peft_model, with checkpointing\n"
       "# or: peft.prepare_model_for_kbit_training(model)", refine=refine_no_grad),
    _s("gradient-checkpointing-with-ddp-find-unused",
       r"Expected to mark a variable ready only once|has been marked as ready twice",
       "Multi-GPU (DDP) training with reentrant gradient checkpointing and "
       "find_unused_parameters=True: the recomputed forward fires DDP's hooks twice.",
       "DDP counts each parameter once per backward; reentrant checkpointing re-runs forward.",
       ["training.gradient-flow"],
       "TrainingArguments(..., ddp_find_unused_parameters=False,\n"
       "                  gradient_checkpointing_kwargs={'use_reentrant': False})",
       priority=14),
    _s("label-dtype-double-expected-float",
       r"Found dtype Double but expected Float|expected scalar type Float but found Double|"
       r"mat1 and mat2 must have the same dtype, but got Double and Float",
       "The labels (or inputs) are float64 (NumPy's default) while the model is float32.",
       "PyTorch does not promote inside the loss's backward; both sides need one dtype.",
       ["data.label-dtype-problem-type"],
       "labels = labels.astype('float32')   # or torch.tensor(labels, dtype=torch.float32)",
       priority=13),
    _s("trl-wrong-config-class",
       r"'(?:Seq2Seq)?TrainingArguments' object has no attribute '(?P<attr>\w+)'",
       "A plain transformers TrainingArguments was passed to a TRL trainer, which needs its own "
       "config class (SFTConfig, DPOConfig, ...) with the trainer's extra fields.",
       "TRL trainers read trainer-specific fields from args.",
       ["hyperparameters.hidden-defaults"],
       "from trl import DPOConfig\nargs = DPOConfig(output_dir='out', ...)", priority=13,
       refine=refine_training_args_field),
    _s("grpo-batch-not-divisible-by-generations",
       r"The (?:global|effective) (?:train|eval) batch size \((?P<processes>\d+) x (?P<batch>\d+)"
       r"(?: x (?P<accum>\d+))?\) must be evenly divisible by the number of generations per "
       r"prompt \((?P<generations>\d+)\)|\bgeneration_batch_size \((?P<gen_batch>\d+)\) must "
       r"be divisible by num_generations \((?P<generations2>\d+)\)|GRPO requires at least 2 "
       r"generations per prompt[^\n]{0,80}?You provided (?P<too_few>\d+)|"
       r"(?<![\w-])eval batch size must be evenly divisible by the number of generations per "
       r"prompt",
       "The GRPO batch does not hold whole groups of completions: num_processes x "
       "per_device_train_batch_size (x gradient_accumulation_steps in newer trl) must be a "
       "multiple of num_generations. In GRPO the batch counts completions, not prompts.",
       "GRPO's advantage compares the completions of one prompt with each other, so every "
       "prompt's num_generations completions must land in the same batch.",
       ["hyperparameters.hidden-defaults"],
       "GRPOConfig(per_device_train_batch_size=8, num_generations=8, ...)   # the batch a "
       "multiple of num_generations", priority=14, refine=refine_grpo_groups),
    _s("sft-missing-text-field",
       r"You passed `packing=False` to the SFTTrainer(?:/SFTConfig)?, but you didn't pass a "
       r"`dataset_text_field` "
       r"or `formatting_func`|You need to (?:pass|provide) (?:either )?(?:a )?`?dataset_text_field"
       r"`? or `?formatting_func",
       "SFTTrainer was not told where the text is: without packing it needs dataset_text_field "
       "or a formatting_func.",
       "It builds the training text from that column or function.",
       ["data.batch-structure"], "SFTTrainer(..., dataset_text_field='text')   # or "
       "formatting_func=..., or packing=True for a packed dataset", priority=14),
    _s("dpo-ref-model-with-peft-config",
       r"You passed both a ref_model and a peft_config",
       "DPOTrainer got a separate reference model and a peft_config: with PEFT the reference is "
       "the base model with the adapter disabled, so a second model is refused.",
       "Training an adapter keeps the base weights; trl uses them, adapter off, as the "
       "reference.", ["model.forward"],
       "DPOTrainer(model, ref_model=None, args=config, peft_config=peft_config, ...)",
       priority=14),
    _s("packing-with-completion-only-collator",
       r"You passed a `?DataCollatorForCompletionOnlyLM`? to the SFTTrainer\. This is not "
       r"compatible with the `?packing`? argument",
       "packing=True and DataCollatorForCompletionOnlyLM do not go together: the collator "
       "masks each example's prompt, which it cannot find inside packed sequences.",
       "Packing concatenates examples into one sequence; the completion-only collator needs "
       "one example per row.", ["data.batch-structure"],
       "SFTConfig(packing=False, ...)   # keep the completion-only loss\n"
       "# or, on a recent trl: a prompt/completion dataset with SFTConfig(packing=True, "
       "completion_only_loss=True)", priority=14),
    _s("encoder-decoder-missing-decoder-inputs",
       r"You have to specify either (?:decoder_)?input(?:_id)?s or (?:decoder_)?inputs_embeds",
       "An encoder-decoder model (T5, BART, mT5 ...) was called with encoder inputs only: its "
       "decoder needs decoder_input_ids, or labels from which the model derives them.",
       "Seq2seq models shift the labels right to build the decoder's inputs; without labels "
       "or decoder inputs the decoder has nothing to read.", ["model.forward"],
       "outputs = model(input_ids=ids, attention_mask=mask, labels=label_ids)\n"
       "# features only: model.get_encoder()(input_ids=ids, attention_mask=mask)",
       priority=14, refine=refine_decoder_call),
    _s("packing-dataset-too-small",
       r"Error occurred while packing the dataset\. Make sure that your dataset has enough "
       r"samples to at least yield one packed sequence",
       "Packing joins the examples into blocks of max_seq_length tokens, and all of the "
       "dataset's text together is shorter than one block (few or short examples, or a "
       "text field that is empty).", "SFTTrainer's packed dataset yields only whole blocks.",
       ["data.batch-structure"],
       "SFTConfig(packing=False, ...)   # or a max_seq_length below the dataset's total tokens",
       priority=14),
    _s("wrong-padding-side",
       r"A decoder-only architecture is being used, but right-padding was detected",
       "The prompts of a batch are padded on the right, so a decoder-only model generates "
       "after the pad tokens.", "generate() continues from the last position of each row; "
       "left padding puts every prompt's end there.", ["data.no-pad-token"],
       "tokenizer.padding_side = 'left'   # for batched generation (right is right for training)",
       priority=12, refine=refine_padding_side),
    _s("flash-attention-right-padding",
       r"You are attempting to perform batched generation with padding_side='right'",
       "A batch padded on the right reached a flash-attention model with use_cache on: for "
       "batched generation the prompts must be padded on the left.",
       "The flash-attention path of the model refuses right padding whenever use_cache is on.",
       ["data.no-pad-token"],
       "tokenizer.padding_side = 'left'   # before tokenizing the prompts for generate()",
       priority=13, family="wrong-padding-side", refine=refine_flash_padding),
    _s("checkpoint-not-found",
       # resume_from_checkpoint=True with no checkpoint-N folder in output_dir
       r"(?P<none_in_dir>No valid checkpoint found in output directory)|"
       # the path cut off
       r"Can't find a valid checkpoint(?! at)|"
       r"Can't find a valid checkpoint at (?P<path>\S{0,300})",
       "resume_from_checkpoint points at a folder without a checkpoint the Trainer can load (a "
       "wrong path, or a folder without model weights).",
       "The Trainer resumes from the model weights, optimizer and scheduler state of a "
       "checkpoint-N folder inside output_dir.", ["environment.hub-file-missing"],
       "trainer.train(resume_from_checkpoint=True)   # the last checkpoint-N in output_dir; or "
       "the full path of one", priority=12, refine=refine_checkpoint_resume),
    _s("peft-adapter-loaded-frozen",
       r"trainable params: 0 \|\| all params",
       "The adapter was loaded for inference: PeftModel.from_pretrained loads a saved adapter "
       "frozen unless is_trainable=True, so nothing is left to train.",
       "A loaded adapter is frozen by default (inference mode); training it further needs "
       "is_trainable=True.", ["model.nothing-trainable"],
       "model = PeftModel.from_pretrained(base_model, adapter_path, is_trainable=True)",
       priority=13, refine=refine_frozen_adapter, behaviour_change=True),
    _s("merge-into-quantized-unsupported",
       r"Cannot merge LORA layers when the model is (?:gptq|awq|loaded in \d-bit|quantized)|"
       # LLaMA-Factory's and ms-swift's export
       r"Cannot merge adapters to a quantized model|is a quantized model and does not support "
       r"merge-lora",
       "merge_and_unload() on a quantized base model (GPTQ, AWQ): its packed quantized weights "
       "cannot take the LoRA delta, so PEFT does not implement the merge.",
       "Merging adds B@A to each weight, which needs weights in a float dtype.",
       ["model.precision-unsupported"],
       "base = AutoModelForCausalLM.from_pretrained(<the unquantized base>, torch_dtype=torch."
       "float16)\nmodel = PeftModel.from_pretrained(base, adapter).merge_and_unload()   # then "
       "quantize the merged model\n# LLaMA-Factory: llamafactory-cli export with "
       "--model_name_or_path <the unquantized base>", priority=13),
    _s("folder-without-config",
       r"(?<!\S)(?P<path>\S{1,300}) does not appear to have a file named config\.json|"
       r"Unrecognized model in (?P<path2>\S{1,300}?)\. Should have a `model_type` key in its config\.json",
       "The folder has no usable config.json: it holds only an adapter (LoRA: "
       "adapter_config.json), a training checkpoint of something else, or nothing was saved "
       "there.", "from_pretrained builds the model from config.json, then loads the weights.",
       ["environment.hub-file-missing"],
       "ls <the folder>   # adapter_config.json only: PeftModel.from_pretrained(base_model, "
       "folder)\n# else save it: model.save_pretrained(folder)", priority=11,
       family="local-file-missing", refine=refine_local_folder),
    _s("hub-not-logged-in",
       # transformers 4.x
       r"You specified use_auth_token=True, but a [Hh]ugging ?[Ff]ace token was not found|"
       r"LocalTokenNotFoundError|Token is required \((?:`token=True`|write-access action)\),? "
       r"but no token found|The secret `?HF_TOKEN`? does not exist in your Colab secrets|"
       r"You are not authenticated with the Hugging Face Hub in this notebook",
       "The call needs a Hugging Face token (a push, a private or gated repo) and none is "
       "saved or set on this machine.", "huggingface_hub reads the token from HF_TOKEN or the "
       "login cache.", ["environment.hub-auth-required"],
       "huggingface-cli login   # or: export HF_TOKEN=hf_...  (a token with write access to "
       "push)", priority=14),
    _s("hub-write-refused",
       # another wording; repository creation and LFS uploads refused
       r"You don't have the rights to create a (?:model|dataset|space) under this namespace|403 Client Error: Forbidden for url: https?://[\w.-]{0,40}huggingface\.co/(?:api/repos/create|[\w./-]{1,200}\.git/info/lfs/objects/batch)|"
       r"You don't have the rights to create a (?:model|dataset|space) under the namespace|"
       r"403 Forbidden: [^\n]{0,80}(?:write|rights|permission)|"
       # a commit to a repository the token may only open pull requests on
       r"403 Client Error: Forbidden for url: https?://[\w.-]{0,40}huggingface\.co/api/(?:models|"
       r"datasets|spaces)/[\w.-]{1,96}/[\w.-]{1,96}/(?:commit|preupload)|pass `create_pr=1` as a "
       r"query parameter",
       "The token can read but not write there: a read-only (or fine-grained) token, or a "
       "namespace (organisation) it has no write rights in.",
       "push_to_hub creates and writes the repository with the token's rights.",
       ["environment.hub-auth-required"],
       "huggingface-cli login   # with a token that has the write role\n"
       "# or push to your own namespace: hub_model_id='<your user>/<name>'", priority=14),
    _s("checkpoint-file-unreadable",
       r"Unable to load weights from pytorch checkpoint file",
       "torch.load could not read the weights file; the error it raised (printed above this "
       "one) says why: a Git LFS pointer instead of the weights ('invalid load key'), a cut "
       "download ('failed finding central directory'), a file saved by a newer torch than the "
       "one loading it ('maximum supported version'), or too little RAM.",
       "transformers wraps torch.load's own error in this one, and suggests from_tf only in "
       "case the file is a TensorFlow checkpoint.",
       ["environment.hub-file-missing"],
       "ls -l <the folder>   # a weights file of a few hundred bytes is an LFS pointer: git lfs "
       "pull\npython -c \"import torch; torch.load('pytorch_model.bin', map_location='cpu')\"   "
       "# shows the real error", title="Unable to load weights from pytorch checkpoint file",
       priority=6, refine=refine_wrapped_load_error),
    _s("incomplete-model-download",
       # huggingface_hub's check of a cut download
       r"Consistency check failed: file should be of size \d+ but has size \d+|"
       r"(?:SafetensorError|safetensors)[^\n]{0,80}?deserializing header: (?:MetadataIncompleteBuffer|"
       r"InvalidHeaderDeserialization)|Error while deserializing header: HeaderTooLarge|"
       r"PytorchStreamReader failed reading zip archive: failed finding central directory|"
       r"Unable to (?:open|synchronously open) file \(file signature not found\)|"
       # TensorFlow restoring a checkpoint whose bytes are not the ones it wrote
       r"Checksum does not match: stored \d+ vs\. calculated on the restored bytes \d+",
       "The weights file is cut or not what its name says (an interrupted download, a full "
       "disk while saving, a Git LFS pointer or an HTML page saved under that name).",
       "safetensors, torch.load and h5py read an index at the end or a signature at the start; "
       "a partial file has neither.", ["environment.hub-file-missing"],
       "ls -l <the weights file>   # far smaller than on the Hub: fetch it again\n"
       "huggingface-cli download <repo> --force-download   # or git lfs pull in a clone",
       priority=14, title="The weights file is incomplete", refine=refine_unreadable_weights),
    _s("data-files-different-columns",
       r"All the data files must have the same columns|Features of the new split don't match "
       r"the features of the existing splits|Couldn't cast\n[\s\S]{0,2000}?because column names "
       r"don't match",
       "The data files (or the files of one split) do not have the same columns, so datasets "
       "cannot read them into one table.", "load_dataset infers one schema per split from the "
       "first file.", ["data.batch-structure"],
       "load_dataset('json', data_files={'train': 'a.jsonl'})   # one schema per split; or fix "
       "the files so their columns agree", priority=14),
    _s("wrong-argument-type",
       r"has no attribute '?(?:modules|named_parameters|named_modules)\b",
       "An object that is not a torch module (e.g. a Python function) was passed where the "
       "library expects a model.",
       "The library calls module methods (modules(), named_parameters()) on that argument.",
       ["model.forward"], "# pass a model: AutoModelForSequenceClassification.from_pretrained("
       "..., num_labels=1)"),
    _s("config-object-for-a-number",
       r"'(?:<|<=|>|>=|\+|\*|/)' not supported between instances of '(?P<cls>\w{0,60}(?:Config|"
       r"Arguments|Args))' and '(?:int|float)'|unsupported operand type\(s\) for [^\n]{1,4}: "
       r"'(?P<cls2>\w{0,60}(?:Config|Arguments|Args))' and '(?:int|float)'",
       "A config object was passed where the function expects a number: it takes the settings as "
       "keyword arguments (r=..., lora_alpha=...), so the object landed in a numeric parameter.",
       "A positional argument binds to the first parameter, whatever object it is.",
       ["model.forward"], "get_peft_model(model, r=16, lora_alpha=16, target_modules=[...])   # "
       "the function's own keywords, not a config object", family="wrong-argument-type"),
    _s("keras-h5-save-unsupported",
       r"Not JSON Serializable:?'?,? ?<?\w*Config|Object of type '?\w+Config'? is not JSON "
       r"serializable|"
       # Keras' own words for a layer it cannot serialise (a subclassed / transformers layer)
       r"Layer \w+ has arguments (?:\[[^\]\n]*\] )?in `__init__` and therefore must override "
       r"`get_config(?:\(\))?`|Saving the model to HDF5 format requires the model to be a Functional model "
       r"or a Sequential model",
       "Keras cannot serialise a transformers layer (its config object) into the H5/Keras "
       "format.",
       "H5/.keras saving stores each layer's constructor arguments as JSON.",
       ["model.forward"], "tf.saved_model.save(model, 'saved/')   # or model.save_weights(...)"
       "\n# transformers models: model.save_pretrained('dir')"),
    _s("checkpoint-weights-unused",
       r"Some weights of the model checkpoint at (?P<ckpt>\S+) were not used when initializing "
       r"(?P<cls>\w+): (?P<unused>[\[{(][^\n]{0,4000})",
       "The checkpoint's weights of the model's body (its numbered layers) were not used: their "
       "names do not match the class's (a checkpoint saved with an outdated naming or by another "
       "framework's class, another architecture, or a wrapper's prefix), so those layers start "
       "from random values.",
       "from_pretrained loads the weights whose names match the class's parameters and warns "
       "about the rest.", ["model.forward"],
       "model.save_pretrained('resaved')   # after loading with the class it was saved from\n"
       "# compare: set(model.state_dict()) against the checkpoint's keys; a newer revision of "
       "the checkpoint, or from_pt=True / from_tf=True for the other framework's weights",
       title="The checkpoint's layers were not loaded", priority=8,
       refine=refine_body_weights_unused),
    _s("model-dir-missing-weights",
       r"Error no file named \[?'?(?:pytorch_model\.bin|tf_model\.h5|model\.safetensors)|does not "
       r"appear to have a file named (?:pytorch_model\.bin|tf_model\.h5|model\.safetensors|"
       r"flax_model\.msgpack)|model\.safetensors\.index\.json and thus cannot be loaded with "
       r"`?safetensors|Unable to load weights from h5 file\. If you tried to load a TF 2\.0 "
       r"model from a PyTorch checkpoint",
       "The folder has no weights in a format from_pretrained reads (e.g. training checkpoints "
       "instead of a save_pretrained folder, or only the other framework's weights).",
       "from_pretrained looks for model.safetensors / pytorch_model.bin / tf_model.h5 in the "
       "folder.", ["environment.hub-file-missing"],
       "model.save_pretrained('out/model')   # then from_pretrained('out/model')\n"
       "# the other framework's weights: from_pretrained(path, from_tf=True) / from_pt=True",
       priority=12, refine=refine_other_framework_weights),
    _s("no-tf-weights-on-hub",
       r"Error retrieving file [^\n]*\.h5\b",
       "The checkpoint on the Hub has no TensorFlow weights (tf_model.h5), only PyTorch ones, so "
       "a TF model class cannot download its weights.",
       "TF classes load tf_model.h5; older transformers fail to retrieve it and do not fall back "
       "to the PyTorch weights.", ["environment.hub-file-missing"],
       "model = TFBertModel.from_pretrained(name, from_pt=True)   # converts the PyTorch "
       "weights (needs torch installed)", priority=13, framework="tensorflow"),
    _s("group-by-length-without-input-ids",
       r"Can only automatically infer lengths for datasets whose items are dictionaries with an "
       r"'?input_ids'? key",
       "group_by_length sorts examples by the length of their input_ids, and this dataset has "
       "none: pairwise (DPO, reward) examples carry prompt/chosen/rejected ids instead.",
       "Trainer's LengthGroupedSampler reads len(example['input_ids']) of every example.",
       ["data.batch-structure"],
       "TrainingArguments(..., group_by_length=False)   # or a length_column_name the dataset has",
       priority=13),
    _s("collator-renames-label-to-labels",
       r"\blabel_cols\s*=\s*\[?\s*['\"]label['\"]",
       "transformers' data collators rename the column `label` to `labels` in every batch, so "
       "to_tf_dataset's label_cols=['label'] names a key the collated batch no longer has.",
       "DataCollatorWithPadding and DefaultDataCollator return `labels`, whatever the dataset "
       "called it.", ["data.batch-structure"],
       "ds.to_tf_dataset(columns=[...], label_cols=['labels'], batch_size=16, collate_fn=collator)",
       priority=13, refine=refine_collated_label),
    _s("local-file-missing",
       r"No such file or directory(?: \(os error 2\)|: '(?P<path>[^'\n]{1,300})')|"
       r"\[Errno 2\][^\n]{0,40}?'(?P<path2>[^'\n]{1,300})'|"
       # datasets' data_files that match nothing
       r"Unable to find '(?P<path3>[^'\n]{1,300})'|"
       # a local path that does not exist, which from_pretrained then reads as a Hub repo id
       r"Repo id must (?:be in the form|use alphanumeric chars)[^\n]{0,200}?: '(?P<path4>"
       + LOCAL_PATH + r"[^'\n]{0,300})'",
       "A file the code or the loader reads is not at the path given: it was never downloaded "
       "or saved there, the path is relative to another working directory, or the name is "
       "misspelt.",
       "Loaders that take a local path (a vocab or merges file, a tokenizer.json, data files, a "
       "checkpoint folder) open it as given; nothing is downloaded for a local path.",
       ["environment.hub-file-missing"],
       "import os; print(os.getcwd(), os.path.exists(PATH))   # the path the error names\n"
       "# download it first (hf_hub_download(repo_id, filename)) or load by Hub id: "
       "from_pretrained('org/name')",
       priority=6, title="A file is not at the path given", refine=refine_loader_path),
    _s("cannot-load-from-path",
       # peft < 0.3: the adapter's config
       r"Can't find config\.json at '(?P<path6>[^'\n]{1,300})'|"
       r"Can't load (?:the )?(?:tokenizer|config|configuration|model|feature extractor|"
       r"image processor|processor) (?:for|of) '(?P<path>[^'\n]{1,300})'|"
       r"Can't find '?adapter_config\.json'? at '(?P<path2>[^'\n]{1,300})'|"
       # transformers 3 and early 4: "- 't5-base' is a correct model identifier listed on ..."
       r"'(?P<path3>[^'\n]{1,300})' is a correct model identifier listed on|"
       r"Incorrect path_or_model_id: '(?P<path4>[^'\n]{1,300})'|"
       # transformers 2 and 3: "Model name 'x' was not found in tokenizers model name list (...)"
       r"Model name '(?P<path5>[^'\n]{1,300})' was not found in (?:tokenizers )?model name list",
       "Nothing loadable of that kind is where the name points: a local folder without those "
       "files, or a Hub id that is misspelt, private or unreachable.",
       "from_pretrained reads a local folder when one of that name exists, else the Hub id.",
       ["environment.model-not-found", "environment.hub-file-missing"],
       "tokenizer.save_pretrained(folder)   # beside model.save_pretrained(folder)\n"
       "# or the Hub id of the original checkpoint: AutoTokenizer.from_pretrained('org/name')",
       priority=7, title="Cannot load from that name", refine=refine_load_path),
    _s("env-sentencepiece-none",
       r"'NoneType' object has no attribute '(?:encode|batch_encode_plus|encode_plus|tokenize|"
       r"decode|convert_tokens_to_ids|prepare_seq2seq_batch|pad|from_pretrained)'|\btype\(tokenizer\)"
       r"[^\n]{0,60}?\bNoneType\b|tokenizer (?:is|returns?) None\b|'NoneType' object is not callable|"
       r"Tokenizer(?:\.from_pretrained\([^)\n]{0,200}\))? (?:is|returns?|gives?|was) None\b|"
       # transformers 4.0 stopped installing sentencepiece: "Not able to load T5 tokenizer"
       r"\b(?:not able|unable|can(?:no|')t|fail(?:s|ed)?) to (?:load|import|create|use) (?:the |a |"
       r"my )?\w{0,20}(?:T5|MT5|Albert|XLNet|Marian\w*|MBart|Pegasus|Camembert|XLMRoberta|Llama)"
       r"[ -]?Tokenizer\b",
       "sentencepiece is not installed: this SentencePiece tokenizer class is a None placeholder "
       "without it, so from_pretrained returns None.",
       "transformers exposes sentencepiece-based tokenizers only when the package is present.",
       ["environment.package-versions"], "pip install sentencepiece   # then restart the runtime",
       priority=13, refine=refine_sentencepiece, family="env-missing-package"),
    _s("tf-dataset-unknown-cardinality",
       r"(?:training|evaluation|eval|test) dataset must have an asserted cardinality",
       "TFTrainer needs a tf.data.Dataset whose length it can read; datasets built with "
       "from_generator, TFRecordDataset or filter report an unknown cardinality (-2).",
       "TFTrainer reads dataset.cardinality() to plan its steps and refuses a negative one; "
       "TFTrainer is deprecated in favour of Keras' model.fit.", ["data.batch-structure"],
       "train_ds = train_ds.apply(tf.data.experimental.assert_cardinality(num_examples))\n"
       "# or, as TFTrainer is deprecated: model.compile(optimizer=...); model.fit(train_ds, ...)",
       title="The dataset's cardinality is unknown", framework="tensorflow", priority=13),
    _s("hub-signature-not-specified",
       r"Unknown signature (?P<signature>[\w-]+) in (?P<handle>[^\n]+?) \(available signatures: "
       r"[^\n]*?'(?P<available>[\w-]+)'",
       "The TF Hub module (TF1 format) has no signature of the name hub.KerasLayer asked for "
       "(`default` when none is given); its signatures are others.",
       "A TF1 Hub module exports named signatures; hub.KerasLayer calls `default` unless "
       "signature= names another, and its outputs need signature_outputs_as_dict=True or "
       "output_key=.", ["script.run"],
       "hub.KerasLayer(handle, signature='tokens', signature_outputs_as_dict=True)   # one of "
       "the signatures the error lists",
       title="The TF Hub module has no such signature", framework="tensorflow", priority=13,
       refine=refine_hub_signature),
]
