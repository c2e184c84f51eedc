"""Refine functions of the rules in signatures_hf.py: they read the paste to pick the answer's
wording, fix or cause (a checkpoint folder, the tokenizer kind, the Hub operation, ...)."""
from __future__ import annotations

import re
from typing import Any

from wizard.triage import api_history
from wizard.triage.env_answers import MISSING, answer, own_data_file_missing
from wizard.triage.packages import listed_pip_name, normal_name, version_lt
from wizard.triage.parse import ParsedError
from wizard.triage.paths import PUBLIC_MODELS, is_local_path
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


# commands whose package has another name
_COMMAND_PACKAGE = {"huggingface-cli": "huggingface_hub[cli]", "transformers-cli": "transformers",
                    "datasets-cli": "datasets", "diffusers-cli": "diffusers",
                    "llamafactory-cli": "llamafactory"}


def refine_no_wheel(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """pip found no distribution: a command's or an import's name where the package has
    another; on a platform the paste shows that often lacks wheels (Windows, Apple silicon),
    say so; else the generic answer."""
    req = str(ev.get("requirement") or ev.get("requirement2") or "the package").rstrip(".,;")
    asked = re.split(r"[<>=!~\[;@ ]", req, maxsplit=1)[0]
    package = _COMMAND_PACKAGE.get(asked.lower()) or listed_pip_name(asked)
    if package and normal_name(package.split("[")[0]) != normal_name(asked):
        return {"id": "pip-distribution-name-differs",
                "cause": f"No package on PyPI is named {asked}: that is the name of a command or "
                         f"of the module you import, and the package that provides it is "
                         f"{package}.",
                "fix": f'pip install "{package}"'}
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
    if re.search(r"(?<![A-Za-z_])save_only_model(?![A-Za-z_])", parsed.text):
        return {"id": "save-only-model-not-resumable",
                "cause": "The run saved with save_only_model, so its checkpoints hold the weights "
                         "alone: no optimizer, scheduler, RNG or DeepSpeed state (global_step*), "
                         "which resuming needs.",
                "fix": "# resume needs full checkpoints: drop save_only_model (its point is to "
                       "leave that state out)\n# or start a new run from the weights: "
                       "model_name_or_path=<checkpoint-N>, without resume_from_checkpoint"}
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



# a GGUF model named in the paste: an engine's option, a .gguf file, or the reporter's words
_GGUF = re.compile(r"(?:--quantization|--load[-_]format)[ =]+gguf\b|\.gguf\b|\bgguf[ _](?:format|"
                   r"files?|models?)\b", re.I)


# Meta's original Llama release: consolidated.00.pth shards and params.json
_META_ORIGINAL = re.compile(r"(?<![A-Za-z0-9_])consolidated\.\d{2}\.pth(?![A-Za-z0-9_])")


def refine_local_folder(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Only for a local path (a Hub id without the file is another matter); Meta's original
    release where the Hugging Face format belongs; a GGUF model's folder where its file
    belongs."""
    # prose glued before the path ("错误信息：/llama/...") is not part of it
    path = re.sub(r"^[^\x00-\x7f]+[:：]?", "", str(ev.get("path") or ev.get("path2") or ""))
    if not is_local_path(path):
        return {"reject": True}
    if _META_ORIGINAL.search(parsed.text):
        return {"id": "checkpoint-not-hf-format",
                "cause": f"{path} holds a model in Meta's original release format "
                         "(consolidated.NN.pth with params.json), not the Hugging Face format "
                         "(config.json and model*.safetensors) that from_pretrained reads.",
                "fix": "# the Hugging Face-format repository of the same model (its -hf "
                       "name, e.g. meta-llama/Llama-2-13b-chat-hf), or convert the download:\n"
                       "python -m transformers.models.llama.convert_llama_weights_to_hf "
                       f"--input_dir {path} --model_size <7B|13B|70B> --output_dir ./hf-model"}
    if _GGUF.search(parsed.text):
        return {"id": "folder-instead-of-file-path",
                "cause": f"{path} is the folder that holds a GGUF model, and a GGUF model is one "
                         "file: given a folder, the loader (vLLM, Aphrodite, transformers) reads "
                         "it as a Hugging Face model folder and looks for its config.json.",
                "fix": "--model /path/to/model-Q4_K_M.gguf --tokenizer <the original model's "
                       "repo>   # vLLM and its forks: the .gguf file itself\n"
                       "# transformers: AutoModelForCausalLM.from_pretrained(folder, "
                       "gguf_file=\"model-Q4_K_M.gguf\")"}
    return None


# the download caches of huggingface_hub, sentence-transformers and torch.hub
_CACHE_DIR = re.compile(r"[/\\]\.cache[/\\](?:huggingface[/\\](?:hub|transformers|diffusers)|torch[/\\]"
                        r"(?:hub|transformers))[/\\]|[/\\]hub[/\\]models--|"
                        r"sentence_transformers[/\\][\w.-]+[/\\]")


# a training script's own check that its data folder exists (kept when copied into a notebook)
_SCRIPT_FOLDER_CHECK = re.compile(r"(?:Instance|Class) images root doesn't exists?")


def refine_loader_path(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A missing file that a library was asked to read; the user's own open() of a missing file
    is plain code (the line shown is the answer)."""
    relevant = [f for f in parsed.frames if f.kind != "other"]
    if relevant and relevant[-1].is_user and not _SCRIPT_FOLDER_CHECK.search(parsed.message or ""):
        return {"reject": True}
    path = str(ev.get("path") or ev.get("path2") or "")
    if own_data_file_missing(parsed):
        return {"reject": True}       # the package's own file: see library.py
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
                "fix": ("hf auth login   # gated: accept the licence on its page first\n"
                        if gated else "") + "curl -I https://huggingface.co   # reachable?\n"
                       "export HF_ENDPOINT=https://hf-mirror.com   # a mirror, where the Hub is "
                       "blocked\n# or download once where it is reachable (hf "
                       f"download {path}) and load the local folder"}
    return {"id": "model-id-not-found",
            "cause": f"{path} is not a repository the Hub serves here: misspelt, private or "
                     "gated (needs a token), or the Hub is unreachable and it is not cached.",
            "fix": "hf auth login   # for private or gated repositories\n"
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


_WHEEL_PYTHON = re.compile(r"-cp(?P<major>\d)(?P<minor>\d{1,2})-")


def refine_wheel_tags(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A wheel refused by its tags: a CPython tag names the Python it is for (the usual case on
    a notebook platform whose Python moved on); without one, the platform."""
    wheel = str(ev.get("wheel") or "")
    m = _WHEEL_PYTHON.search(wheel)
    if m is None:
        return None
    version = f"{m.group('major')}.{m.group('minor')}"
    return {"id": "no-wheel-for-python-version",
            "cause": f"{wheel} is built for Python {version} (its cp{m.group('major')}"
                     f"{m.group('minor')} tag), and the Python running pip is another version (or "
                     "platform): pip refuses it.",
            "fix": f"python --version   # not {version}: take the wheel tagged for this Python, "
                   f"or run Python {version} (a venv or conda env with python={version})"}
