"""The environment family: errors whose cause is the installation, not the code or the data.

Five causes, each answered with the command that fixes it: env-missing-package (pip install X),
env-version-too-old (pip install -U "X>=V"), env-version-too-new (an API a release removed or
changed: the pin, or the new spelling), env-binary-incompatible (compiled packages built against
other versions) and env-setup-step-skipped (the step that was left out: git lfs, a restart after
pip install, a download). Several rules (signatures) lead to each cause; a rule's refine decides
which cause it is from the names and versions in the paste and the table in versions.py, and
names the versions installed here.
"""
from __future__ import annotations

import re
from typing import Any

from wizard.triage import api_history
from wizard.triage.env_answers import (
    BINARY,
    MISSING,
    NEW,
    NOT_NAMES,
    OLD,
    QUOTE,
    SETUP,
    answer,
    fold_groups,
    pin,
    stated_version,
    upgrade,
)
from wizard.triage.env_arguments import (
    refine_cli_option,
    refine_cli_subcommand,
    refine_kwarg_newer_than_stated,
    refine_keras_kwargs,
    refine_release_removed,
    refine_hook_arity,
    refine_removed_argument_in_code,
    refine_unexpected_kwarg,
)
from wizard.triage.env_imports import (
    refine_cannot_import,
    refine_import_line,
    refine_module_attribute,
    refine_name_not_defined,
    refine_no_module,
)
from wizard.triage.env_skew import (
    refine_binary_built_for,
    refine_installed_conflict,
    refine_pins_conflict,
    refine_unbatched_input,
)
from wizard.triage.env_releases import (
    refine_constructor_argument,
    refine_dataset_script_release,
    refine_example_script,
    refine_not_supported_yet,
)
from wizard.triage.parse import ParsedError
from wizard.triage.python_syntax import refine_python_too_old
from wizard.triage.signature import Signature
from wizard.triage.packages import pip_name, version_lt
from wizard.triage.versions import paste_versions, satisfies


# ---------------------------------------------------------------------------------------------
# refine functions of the rules below (imports: env_imports.py; arguments: env_arguments.py)
# ---------------------------------------------------------------------------------------------
def refine_requires_version(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    fold_groups(ev, ("pkg", "low", "high", "below"))
    pkg = str(ev.get("pkg", "")).strip("`'\"")
    low = str(ev.get("low", "") or "")
    high = str(ev.get("high", "") or ev.get("below", "") or "")
    if not pkg or pkg.lower() in ("python", "the", "a"):
        return {"reject": True}
    found = ev.get("found") or ev.get("found2") or stated_version(parsed, pkg)
    found = str(found) if found else None
    if found and high and version_lt(found, high) is False:
        return answer(NEW, pkg, f"{pip_name(pkg)} {found} is newer than the code supports "
                      f"(< {high}).", pin(pkg, high), ev)
    if found and low and version_lt(found, low) is False:
        return answer(SETUP, pkg, f"{pip_name(pkg)} {found} satisfies >= {low}, but the running "
                      "Python still has the old version loaded: the runtime was not restarted "
                      "after pip install.", "# restart the runtime / kernel, then re-run "
                      "(Colab: Runtime > Restart session)", ev)
    fix = (f'pip install "{pip_name(pkg)}>={low},<{high}"' if low and high  # keep the upper bound
           else upgrade(pkg, low or None))
    if high and not low and not found:   # (a found release at or above it: answered above)
        return answer(NEW, pkg, f"The code works only with {pip_name(pkg)} < {high}; the "
                      "installed release is newer.", pin(pkg, high), ev)
    if low and high and not found:
        return answer(OLD, pkg, f"The code accepts only {pip_name(pkg)} >= {low}, < {high}, and "
                      "the installed release is outside that range (a newer code release may "
                      "accept yours).", fix + "   # then restart the runtime", ev)
    return answer(OLD, pkg, f"{pip_name(pkg)} is older than required (>= {low}"
                  + (f", < {high}" if high else "") + ")." if low
                  else f"{pip_name(pkg)} is older than required.",
                  fix + "   # then restart the runtime", ev)


_REMOTE_CODE_IMPORTS = re.compile(r"This modeling file requires the following packages that were "
                                  r"not found in your environment: (?P<pkgs>[\w.-]+(?:, "
                                  r"[\w.-]+)*)")


def refine_fixed_on_main(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The reporter's release of a package lacks a change its main branch has: installing from
    the repository fixed it."""
    pkg = str(ev.get("pkg", ""))
    if pkg.lower() in NOT_NAMES or pkg.startswith(("git+", "-")) or pkg in ("pip", "."):
        return {"reject": True}
    return answer(OLD, pkg, f"The change the code needs is on {pip_name(pkg)}'s main branch and "
                  "not in the release installed: installing from the repository fixed it, as "
                  "the reporter found.", f"pip install git+<{pip_name(pkg)}'s repository URL>   "
                  f"# until a release has it; then: {upgrade(pkg)}", ev)


def refine_upgrade_fixed_it(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The reporter says upgrading a package fixed it: the release installed was too old."""
    fold_groups(ev, ("pkg", "ver"))
    pkg, version = str(ev.get("pkg") or ""), ev.get("ver")
    if not re.fullmatch(r"[A-Za-z][\w.-]*", pkg) or pkg.lower() in NOT_NAMES:
        return {"reject": True}
    return answer(OLD, pkg, f"The reporter found that upgrading {pip_name(pkg)} fixed it: the "
                  "release installed was older than the code needs.", upgrade(pkg, version), ev)


def refine_peft_config_dict(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A dict's missing attribute is peft's config dict only when the code reads it there."""
    attr = re.escape(str(ev.get("attr", "")))
    return None if re.search(rf"\.peft_config\.{attr}\b", parsed.text) else {"reject": True}


def refine_requires_package(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    fold_groups(ev, ("pkg",))
    pkg = str(ev.get("pkg", "")).strip("`'\".,")
    if not re.fullmatch(r"[A-Za-z][\w.\[\]-]{1,40}", pkg) or pkg.lower() in NOT_NAMES:
        return {"reject": True}
    remote = _REMOTE_CODE_IMPORTS.search(parsed.text)
    if remote:                        # trust_remote_code: transformers checks the file's imports
        names = [pip_name(n) for n in remote.group("pkgs").split(", ")]
        flash = "flash-attn" in names
        fix = f"pip install {' '.join(names)}" + (" --no-build-isolation" if flash else "") + \
            "   # then restart the runtime"
        if flash:                     # no CUDA GPU to build it for: skip it in the check
            fix += ("\n# without a CUDA GPU (flash-attn cannot be built), if the model runs without"
                    " it:\nfrom unittest.mock import patch\n"
                    "from transformers.dynamic_module_utils import get_imports\n"
                    "def no_flash(f): return [i for i in get_imports(f) if i != \"flash_attn\"]\n"
                    "with patch(\"transformers.dynamic_module_utils.get_imports\", no_flash):\n"
                    "    model = AutoModelForCausalLM.from_pretrained(name, trust_remote_code=True, "
                    "attn_implementation=\"eager\")")
        return answer(MISSING, names[0], f"The model repository's own code (trust_remote_code) "
                      f"imports {', '.join(names)}, which transformers checks before loading it, "
                      "and they are not installed.", fix, ev, tuple(names[1:]))
    return answer(MISSING, pkg, f"The optional package {pip_name(pkg)} is needed for this "
                  "feature and is not installed.", f"pip install {pip_name(pkg)}   # then "
                  "restart the runtime", ev)


def refine_binary(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    text = parsed.text
    built, have = ev.get("built"), ev.get("have")
    if built and have and int(str(built), 16) > int(str(have), 16):
        return answer(BINARY, "numpy", f"A compiled package (torch, torchvision, ...) was built "
                      f"against a newer NumPy C API ({built}) than the installed NumPy has "
                      f"({have}): NumPy is older than the build needs.",
                      "pip install -U numpy   # the NumPy the compiled packages were built for",
                      ev)
    if re.search(r"numpy|_ARRAY_API|multiarray", text, re.I):
        return answer(BINARY, "numpy", "A compiled package was built against NumPy 1.x and NumPy 2 "
                      "is installed (or the other way round).",
                      'pip install "numpy<2"   # or upgrade the package built for NumPy 1', ev)
    lib = re.search(r"(?:site|dist)-packages[/\\](?P<pkg>[\w-]+)", text)
    pkg = lib.group("pkg") if lib else (parsed.innermost_library_package or "torch")
    pkg = re.sub(r"(?:_\d+)?_(?:cuda|cpu|C|ext|lib)$", "", pkg)   # flash_attn_2_cuda -> flash_attn
    return answer(BINARY, pkg, f"The compiled code of {pip_name(pkg)} does not match the installed "
                  "libraries it links against (torch / CUDA / the C library): it was built for "
                  "other versions.", f"pip install --force-reinstall --no-cache-dir "
                  f"{pip_name(pkg)}   # a build matching the installed torch/CUDA", ev, ("torch",))


def refine_bnb(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    text = parsed.text
    if re.search(r"[A-Z]:\\|\.dll\b|windows", text, re.I):
        return answer(OLD, "bitsandbytes", "bitsandbytes before 0.43 has no Windows CUDA build: "
                      "it falls back to the CPU library.", upgrade("bitsandbytes", "0.43.0"),
                      ev, ("torch",))
    if _MAC.search(text) or \
            re.search(r"No GPU found|GPU is (?:needed|required) for quantization", text, re.I):
        return dict(_BNB_NEEDS_CUDA)
    stated = stated_version(parsed, "bitsandbytes")
    if stated and version_lt(stated, "0.43.0"):
        # before 0.43 a release shipped binaries for the CUDA versions of its day and found the
        # runtime by searching paths: on a newer CUDA (12.x for 0.39) it fell back to the CPU build
        return answer(OLD, "bitsandbytes", f"bitsandbytes {stated} loaded its CPU build on a GPU "
                      "machine: releases before 0.43 searched for the CUDA runtime by path and "
                      "shipped binaries for fewer CUDA versions.",
                      "pip install -U bitsandbytes   # 0.43+ finds CUDA through torch\n"
                      "python -m bitsandbytes   # then shows which CUDA it uses", ev, ("torch",))
    return answer(BINARY, "bitsandbytes", "bitsandbytes did not find a CUDA runtime matching its "
                  "binaries, so it loaded the CPU build.",
                  "python -m bitsandbytes   # shows which CUDA it found\n"
                  "pip install -U bitsandbytes", ev, ("torch",))


def refine_bnb_unavailable(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """transformers finds bitsandbytes unusable: on a machine without CUDA (a Mac) no release
    helps; otherwise it is missing or too old."""
    if _MAC.search(parsed.text) or re.search(r"cuda\.is_available\(\)\W{0,5}False|\bno CUDA\b|"
                                             r"CPU[- ]only", parsed.text, re.I):
        return dict(_BNB_NEEDS_CUDA)
    return answer(MISSING, "bitsandbytes", "transformers finds no usable bitsandbytes (missing, or "
                  "too old for the quantization asked for).",
                  "pip install -U bitsandbytes accelerate   # then restart the runtime", ev)


_MAC = re.compile(r"/Users/|darwin|\.dylib|mac ?os|apple|\bM[1-4]\b|\bmps\b", re.I)
_BNB_NEEDS_CUDA = {"id": "bnb-requires-cuda-gpu",
                   "cause": "bitsandbytes quantization and 8-bit optimizers need an NVIDIA CUDA "
                            "GPU; this machine has none (Apple Silicon/MPS and CPU are not "
                            "supported by this bitsandbytes).",
                   "fix": "# run the quantized (QLoRA) training on a CUDA machine, or here load "
                          "the model without BitsAndBytesConfig (e.g. torch_dtype=torch.float16 "
                          "on mps)"}


def refine_tokenizer_class(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The class tokenizer_config.json names, read against every transformers release: added
    later (upgrade), a released class spelt otherwise (a checkpoint converted with a
    pre-release), or no release's class at all (the repository's own code)."""
    cls = str(ev.get("cls", ""))
    released = {n.lower(): n for n in api_history.top_names("transformers")}
    if cls and released and cls not in released.values():
        if cls.endswith("Fast") and cls[:-4] in released.values():
            return {"id": "fast-tokenizer-class-unavailable",
                    "cause": f"{cls} does not exist: the model has only a slow (Python) tokenizer, "
                             f"{cls[:-4]}, and AutoTokenizer looks for the fast one (use_fast=True "
                             "is its default; or the checkpoint's tokenizer_config.json names the "
                             "fast class).",
                    "fix": "tokenizer = AutoTokenizer.from_pretrained(checkpoint, use_fast=False)"
                           f"   # or: {cls[:-4]}.from_pretrained(checkpoint)"}
        if cls.lower() in released:
            return _stale_tokenizer_class(cls, released[cls.lower()])
        return {"id": "trust-remote-code-required",
                "cause": f"The checkpoint's tokenizer_config.json names {cls}, which no "
                         "transformers release has: the repository ships it as its own code "
                         "(auto_map), which runs only with trust_remote_code=True.",
                "fix": "tokenizer = AutoTokenizer.from_pretrained(checkpoint, "
                       "trust_remote_code=True)   # after reading the repository's code"}
    if not released and re.search(r"[A-Z]{2,}[a-z]", cls.replace("Tokenizer", "")) and \
            not cls.startswith(("GPT", "XLM", "MBart", "BERT", "T5", "CLIP", "LED", "MPNet",
                                "RoBERTa")):
        return _stale_tokenizer_class(cls, None)
    span = api_history.top_name("transformers", cls) if cls else None
    if span is not None and span.first != api_history.releases("transformers")[0]:
        return answer(OLD, "transformers", f"{cls} is named in the checkpoint's "
                      f"tokenizer_config.json; transformers has it from {span.first} on, and "
                      "the installed one is older (or sentencepiece/tokenizers it needs is "
                      "missing).", upgrade("transformers", span.first) +
                      "   # and: pip install sentencepiece", ev)
    return answer(OLD, "transformers", f"{cls} is named in the checkpoint's tokenizer_config.json "
                  "but the installed transformers does not have it (it was added in a later "
                  "release, or sentencepiece/tokenizers it needs is missing).",
                  upgrade("transformers") + "   # and: pip install sentencepiece", ev)


def _stale_tokenizer_class(cls: str, released: str | None) -> dict[str, Any]:
    return {"id": "stale-tokenizer-class-name",
            "cause": f"The checkpoint's tokenizer_config.json names {cls}, a class name no "
                     "transformers release has (a checkpoint converted with a pre-release)"
                     + (f"; the released class is {released}." if released else "."),
            "fix": "# edit tokenizer_config.json: \"tokenizer_class\": \""
                   + (released or "<the released class, e.g. LlamaTokenizer>")
                   + "\"\n# or load the tokenizer class directly"}


# model types of architectures people fine-tune that older transformers releases lack (a bare
# "KeyError: 'qwen2'" names one of them)
_ARCHITECTURES = frozenset({
    "llama", "mistral", "mixtral", "qwen", "qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl", "qwen3",
    "qwen3_moe", "gemma", "gemma2", "gemma3", "gemma3_text", "phi", "phi3", "phi4", "falcon",
    "starcoder2", "stablelm", "olmo", "olmo2", "cohere", "cohere2", "deepseek_v2", "deepseek_v3",
    "mamba", "mamba2", "jamba", "dbrx", "granite", "smollm3", "llava", "llava_next", "idefics2",
    "paligemma", "mllama", "modernbert", "gpt_oss", "glm", "glm4", "exaone", "internlm2"})


def refine_tf_op(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A text op (tensorflow-text registers them) is a missing package; any other op is one of
    a newer TensorFlow than installed."""
    if re.search(r"UTF8|Wordpiece|Sentencepiece|Regex|Normalize|Whitespace|Unicode|"
                 r"BertTokenizer|Split|CaseFold", str(ev.get("op", ""))):
        return None
    return {"id": OLD, "cause": "The SavedModel was exported with a newer TensorFlow than the one "
                                "installed (its op is unknown here).",
            "fix": "pip install -U tensorflow"}


def refine_model_type_key(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """KeyError: 'mistral' where transformers maps a config's model_type to its class."""
    model_type = str(ev.get("model_type", ""))
    if not re.search(r"configuration_auto|CONFIG_MAPPING|model_type", parsed.text) and \
            model_type not in _ARCHITECTURES:
        return {"reject": True}
    return answer(OLD, "transformers", f"The checkpoint's model_type '{model_type}' is not in "
                  "the installed transformers: the architecture was added in a later release.",
                  upgrade("transformers"), ev)


# ---------------------------------------------------------------------------------------------
# the rules
# ---------------------------------------------------------------------------------------------
def refine_tokenizers_format(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The paste's own code trains a tokenizer with no pre-tokenizer, saves it and fails to load
    it back: one release wrote and read the file, so no version skew; the BPE merges learnt
    across spaces, which the merges format of tokenizer.json cannot hold."""
    text = parsed.text
    trained = re.search(r"\.train(?:_from_iterator)?\(", text)
    round_trip = re.search(r"\.save(?:_pretrained)?\(", text) and \
        re.search(r"\.from_(?:file|pretrained)\(", text)
    if not (trained and round_trip) or re.search(r"pre_tokenizer\s*=", text):
        return None
    return {"id": "tokenizer-merges-file-unrepresentable",
            "cause": "The tokenizer was trained without a pre-tokenizer, so its BPE merges contain "
                     "spaces; tokenizer.json's merges format cannot hold them, and the file the "
                     "same code saved does not load back.",
            "fix": "from tokenizers.pre_tokenizers import Whitespace\n"
                   "tokenizer.pre_tokenizer = Whitespace()   # before training; then save and load"}


def refine_tf_checkpoint(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """No files at a TensorFlow checkpoint path: one of the checkpoint's own files given where
    its prefix belongs, else files that were never downloaded there."""
    path = str(ev.get("path", "")).rstrip(".,;:'\"`")
    m = re.search(r"^(?P<prefix>.+?)\.(?:index|meta|data-\d+-of-\d+)$", path)
    if m:
        return {"id": "tf-checkpoint-prefix-wrong",
                "cause": f"{path} is one of a TensorFlow checkpoint's files; a checkpoint is "
                         f"addressed by its prefix ({m.group('prefix')}).",
                "fix": f"init_checkpoint = '{m.group('prefix')}'   # the prefix, without "
                       ".index/.meta/.data-*"}
    return {"cause": f"There are no checkpoint files at {path or 'that path'}: the checkpoint "
                     "the script expects was never downloaded or unpacked there (or the path "
                     "points elsewhere)."}


_RECORDED = ("transformers", "trl", "peft", "datasets", "accelerate", "huggingface-hub")


def refine_requirement_violated(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The paste states the versions of a library and of one of its dependencies, and that
    release of the library requires another range of the dependency (its wheel's
    Requires-Dist): the environment is inconsistent, whatever else went wrong."""
    stated = paste_versions(parsed.text)
    for pkg in _RECORDED:
        if pkg not in stated:
            continue
        for dep, spec in sorted(api_history.requirements(pkg, stated[pkg]).items()):
            have = stated.get(dep)
            if not have or satisfies(have, spec) is not False:
                continue
            low = re.search(r">=?\s*(\d[\w.]*)", spec)
            old = bool(low and version_lt(have, low.group(1)))
            ev.update(package=dep, required=spec, by=f"{pkg} {stated[pkg]}", found=have)
            return answer(OLD if old else NEW, dep,
                          f"{pkg} {stated[pkg]} requires {dep}{spec}, and the paste runs {dep} "
                          f"{have}: the two were installed separately (--no-deps, conda, a "
                          f"second pip install of one of them).",
                          f'pip install "{dep}{spec}"   # or: pip install -U {pkg} {dep}, '
                          "together", ev)
    return {"reject": True}


def refine_output_unpacked(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A string meeting a tensor method is an unpacked ModelOutput only beside a pretrained
    encoder and away from the data pipeline (raw text reaching a collator is another cause)."""
    if not ev.get("tensor_attr"):
        return None
    model = re.search(r"\b(?:bert|roberta|electra|xlnet|albert|encoder|pooled|transformers)\b|"
                      r"^\s*_\s*,\s*\w+\s*=", parsed.text, re.I | re.M)
    data = re.search(r"collat|DataLoader|_utils[/\\.]fetch|tokeniz", parsed.text, re.I)
    return None if model and not data else {"reject": True}


def _sig(rule_id: str, family: str, pattern: str, cause: str, fix: str, refine: Any = None,
         priority: int = 15, title: str = "", probes: tuple[str, ...] = (),
         requires: str | None = None) -> Signature:
    return Signature(rule_id, pattern, cause,
                     "The error comes from the installation (packages, versions, builds or a "
                     "setup step), not from the code, the data or the hyperparameters.",
                     list(probes) or ["environment.package-versions"], fix, title=title or cause,
                     priority=priority, refine=refine, family=family, requires=requires)


ENV_SIGNATURES: list[Signature] = [
    _sig("env-tiktoken-encoding-unknown", OLD,
         r"Unknown encoding (?P<encoding>\w+)\. Plugins found",
         "The installed tiktoken does not know that encoding: encodings arrive with tiktoken "
         "releases (o200k_base, GPT-4o's, came in 0.7.0).",
         'pip install -U tiktoken   # then restart the runtime', priority=14),
    # ChatGLM's remote quantization code takes round_up and its kernels from cpm_kernels, whose
    # failed import it swallows
    _sig("env-cpm-kernels-missing", MISSING,
         r"name '(?:round_up|compress_int4_weight|extract_weight_to_half)' is not defined",
         "The model's own quantization code (ChatGLM's quantization.py, run with trust_remote_code) "
         "takes its CUDA kernels from the cpm_kernels package, which is not installed: the code "
         "swallows that import error and fails later on the names it would have defined.",
         "pip install cpm_kernels   # then restart; or load the model without quantization",
         priority=14),
    _sig("env-lazy-module-without-spec", NEW,
         r"\b(?P<module>(?:transformers|diffusers|datasets)(?:\.\w+)+)\.__spec__ is None",
         "Another installed package probes (importlib.util.find_spec) a module of a release that "
         "loads its modules lazily without a __spec__: a newer prober (torchmetrics 0.7 and "
         "later, pytorch-lightning, ...) against an older transformers.",
         'pip install -U transformers   # lazy modules carry a __spec__ in later releases\n'
         '# or keep the prober at the release before it probed: pip install "torchmetrics<0.7"',
         priority=14),
    _sig("env-git-lfs-pointer", SETUP,
         r"invalid load key, '?v'?|version https://git-lfs|git-lfs\.github\.com/spec|"
         r"cloned a repository without having git-lfs|"
         r"Parquet magic bytes not found in footer",
         "The weights file is a Git LFS pointer (a small text file): the repo was cloned without "
         "git-lfs, so the weights were never downloaded.",
         "git lfs install && git lfs pull   # in the cloned folder\n"
         "# or load by repo id: from_pretrained('org/name')", priority=19),
    _sig("env-spm-model-unreadable", SETUP,
         r"sentencepiece_processor\.cc\(\d+\)\s*\[model_proto->ParseFromArray|"
         # newer sentencepiece
         r"could not parse ModelProto from",
         "The tokenizer.model file is not a SentencePiece model: a Git LFS pointer (cloned "
         "without git-lfs), an HTML page or a cut download.",
         "git lfs install && git lfs pull   # in the cloned folder; or load by Hub id\n"
         "head -c 200 tokenizer.model   # a text pointer or HTML means the file never came",
         priority=17),
    _sig("env-state-dict-position-ids", NEW,
         r"Unexpected key\(s\) in state_dict:[^\n]*position_ids|"
         # load_state_dict(strict=False)'s return value
         r"_IncompatibleKeys\([^\n]{0,300}?unexpected_keys=\[[^\]\n]*position_ids",
         "The state dict was saved by a transformers older than 4.31, which stored position_ids "
         "as a buffer; the installed release no longer has it, so a strict load_state_dict "
         "refuses the extra key.",
         "model.load_state_dict(state_dict, strict=False)   # position_ids is rebuilt\n"
         '# or: pip install "transformers<4.31"', priority=16),
    _sig("env-state-dict-position-ids-missing", OLD,
         r"Missing key\(s\) in state_dict: (?:\"[\w.]*position_ids\",? ?)+\.?[ \t]*(?:\n|$)",
         "The state dict was saved by transformers 4.31 or later, which no longer stores "
         "position_ids; the transformers loading it is older and expects the buffer.",
         "pip install -U transformers   # or: model.load_state_dict(state_dict, strict=False)",
         priority=16),
    _sig("env-torch-dtype-itemsize", OLD,
         r"'torch\.dtype' object has no attribute 'itemsize'",
         "A library (transformers, accelerate, peft) reads torch.dtype.itemsize, which torch "
         "added in 2.1; the installed torch is older.",
         'pip install -U "torch>=2.1"   # or pin the library to a release that supports your '
         "torch", priority=16),
    _sig("env-rouge-scores-are-floats", NEW,
         r"'numpy\.float64' object has no attribute '(?:mid|low|high|fmeasure)'",
         "The code reads ROUGE scores as the AggregateScore tuples (.mid.fmeasure) of the old "
         "datasets.load_metric; evaluate's rouge returns plain floats.",
         "result = rouge.compute(predictions=preds, references=refs)\n"
         "result = {k: round(v * 100, 4) for k, v in result.items()}   # already the F-measures",
         priority=16),
    _sig("env-peft-config-dict", NEW,
         r"'dict' object has no attribute '(?P<attr>\w+)'",
         "The code reads model.peft_config as one config object; since peft 0.3 it is a dict of "
         "configs keyed by adapter name ('default'), so the code was written for an older peft.",
         "model.peft_config['default'].save_pretrained(path)   # or model.save_pretrained(path)\n"
         "# or: pip install the peft release the project pins", refine=refine_peft_config_dict,
         priority=16),
    _sig("env-empty-adapter-state-dict-override", NEW,
         # a size in bytes, not a model's (Qwen2-VL-72B)
         r"adapter_model\.(?:bin|safetensors)[^\n]{0,200}?\b(?:(?:only|just) )?(?:(?:4\d\d|"
         r"[1-9]\d?) ?bytes?|4\d\d ?B)\b|\b(?:(?:4\d\d|[1-9]\d?) ?bytes?|4\d\d ?B)\b[^\n]{0,120}?"
         r"adapter_model|"
         r"adapter_model\.(?:bin|safetensors)[^\n]{0,120}?\b(?:is )?empty\b",
         "The saved adapter is empty: the training script (alpaca-lora's finetune.py and the "
         "scripts copied from it) replaces model.state_dict with get_peft_model_state_dict, and "
         "the peft release installed applies it again in save_pretrained, filtering out every "
         "key: the script was written for an older peft.",
         "# delete the override in the script:\n#   model.state_dict = (lambda self, *_, **__: "
         "get_peft_model_state_dict(self, old_state_dict())).__get__(model, type(model))\n"
         "# or: pip install the peft release the script pins", priority=16),
    _sig("env-non-consecutive-added-token", OLD,
         r"Non-consecutive added token '[^'\n]*' found",
         "The tokenizer was saved by a newer transformers (added tokens are stored "
         "differently since 4.34) than the one loading it.", 'pip install -U transformers',
         priority=16),
    _sig("env-rope-scaling-llama3", OLD,
         r"[`']rope_scaling[`'] must be a dictionary with (?:two|with two) fields, [`']type[`'] "
         r"and [`']factor[`']",
         "The checkpoint's rope_scaling (Llama 3.1 and later: rope_type 'llama3') is newer than "
         "the installed transformers, which knows only {type, factor}.",
         'pip install -U "transformers>=4.43"', priority=17),
    _sig("env-bnb-4bit-serialization", OLD,
         r"You are calling `save_pretrained` on a 4-bit converted model",
         "Saving a 4-bit model needs a newer bitsandbytes (and transformers) than installed.",
         'pip install -U "bitsandbytes>=0.41.3" transformers   # or save only the adapter: '
         "model.save_pretrained(dir) on the PeftModel", priority=16),
    _sig("env-tf-op-not-registered", MISSING,
         r"Op type not registered '(?P<op>\w+)'",
         "The SavedModel uses a TensorFlow op that no installed package registers.",
         "pip install tensorflow-text   # then: import tensorflow_text  (before loading)",
         refine=refine_tf_op, priority=16),
    _sig("env-torch-weights-only", NEW,
         r"Weights only load failed\. In PyTorch 2\.6, we changed the default value of the "
         r"`weights_only` argument",
         "PyTorch 2.6 loads checkpoints with weights_only=True by default; this file (an "
         "optimizer state, a pickled object of an older library) needs the old behaviour.",
         "torch.load(path, weights_only=False)   # only for files you trust\n"
         "# or: pip install -U transformers accelerate   # releases that load these files",
         priority=17),
    _sig("env-torch-load-needs-2-6", OLD,
         r"Due to a serious vulnerability issue in `torch\.load`, even with `weights_only=True`, "
         r"we now require users to upgrade torch to at least v2\.6",
         "transformers refuses torch.load of .bin checkpoints with torch older than 2.6.",
         'pip install -U "torch>=2.6"   # or load a .safetensors copy of the weights',
         priority=17),
    _sig("env-keras-missing", MISSING,
         r"Keras cannot be imported\. Check that it is installed",
         "TensorFlow's Keras (tf-keras for transformers' TF models) is not installed.",
         "pip install tf-keras   # then: export TF_USE_LEGACY_KERAS=1", priority=16),
    _sig("env-restart-runtime", SETUP,
         # not the advice closing transformers' "requires the X library but it was not found"
         # ("Please note that you may need to restart your runtime after installation")
         r"(?<!may )(?:must|need to|please) restart (?:the|your) (?:runtime|kernel|session)|"
         r"restart the runtime in order to use newly installed",
         "Packages were installed or upgraded inside a running session; the old versions stay "
         "loaded until the runtime restarts.", "# restart the runtime / kernel, then re-run"),
    _sig("env-nltk-resource", SETUP,
         r"Resource (?P<resource>\w+) not found\.\s+Please use the NLTK Downloader|"
         # the first line cut off
         r"Please use the NLTK Downloader to obtain the resource:\s+(?:>>> import nltk\s+)?"
         r">>> nltk\.download\('(?P<resource2>\w+)'\)",
         "An NLTK data package was never downloaded.",
         "python -c \"import nltk; nltk.download('punkt')\"   # the resource the error names"),
    _sig("env-spacy-model", SETUP,
         r"Can't find model '(?P<model>[\w-]+)'\. It doesn't seem to be a Python package",
         "The spaCy pipeline was never downloaded.", "python -m spacy download en_core_web_sm"),
    _sig("env-requires-version", OLD,
         r"(?<![\w-])(?P<pkg>[A-Za-z][\w-]*)\s*(?:>=\s*(?P<low>\d[\w.]*)(?:,\s*!=\s*[\d.]+)*(?:,\s*<\s*"
         r"(?P<high>\d[\w.]*))?|<\s*(?P<below>\d[\w.]*)) is required for a normal functioning of "
         r"this module, but found "
         r"[\w-]+==(?P<found>\d[\w.]*)|"
         r"requires?\s+(?:the\s+)?`?(?:package\s+)?`?(?P<pkg2>[A-Za-z][\w-]*)`?\s*(?:version\s*)?"
         r"(?:>=|>|~=)\s*`?(?P<low2>\d[\w.]*)|"
         r"make sure (?:that )?you have installed `(?P<pkg3>[A-Za-z][\w-]*)>=(?P<low3>\d[\w.]*)`|"
         # "longlora.py requires transformers between 4.41.2 and 4.45.0"
         r"requires?\s+`?(?P<pkg4>[A-Za-z][\w-]*)`?\s+(?:version\s+)?between\s+v?"
         r"(?P<low4>\d[\w.]*\d)\s+and\s+v?(?P<high4>\d[\w.]*\d)|"
         # "Please either install transformers<5.0.0 or create ..."
         r"\b(?:please |either |pip )install `?['\"]?(?P<pkg5>[A-Za-z][\w-]*)\s*<\s*"
         r"(?P<below5>\d[\w.]*\d)",
         "A package is older (or newer) than the code requires.", "pip install -U <package>",
         refine=refine_requires_version, priority=17),
    _sig("env-binary", BINARY,
         r"numpy\.dtype size changed|numpy\.core\.multiarray failed to import|compiled using "
         r"NumPy 1\.x cannot be run in\s+NumPy 2|_ARRAY_API not found|undefined symbol: \w+|"
         r"DLL load failed|with CUDA capability sm_\d+ is not compatible with the current PyTorch "
         r"installation|GLIBC(?:XX)?_[\d.]+'? not found|Expected \d+ from C header, got \d+ "
         r"from PyObject|incompatible architecture \(have|no kernel image is available for "
         r"execution on the device|cannot open shared object file|"
         r"Error loading \"[^\"\n]+\.dll\" or one of its dependencies|Numpy is not available|"
         r"module compiled against (?:ABI|API) version (?P<built>0x[0-9a-fA-F]{1,4}) but this "
         r"version of numpy is (?P<have>0x[0-9a-fA-F]{1,4})",
         "Compiled packages were built against other versions of their dependencies.",
         "pip install --force-reinstall --no-cache-dir <package>", refine=refine_binary,
         priority=17),
    _sig("env-driver-too-old", BINARY,
         r"The NVIDIA driver on your system is too old \(found version (?P<driver>\d+)\)|"
         # CUDA init failing: a runtime (often a container's, with cuda-compat) above the driver
         r"Unexpected error from cudaGetDeviceCount\(\)|CUDA driver version is insufficient for "
         r"CUDA runtime version",
         "The installed PyTorch (or the container's CUDA runtime) was built for a newer CUDA than "
         "the NVIDIA driver supports (forward compatibility works only on datacenter GPUs).",
         "# update the NVIDIA driver, or install a torch built for an older CUDA, e.g.:\n"
         "pip install torch --index-url https://download.pytorch.org/whl/cu118", priority=17),
    _sig("env-torchvision-cuda", BINARY,
         r"PyTorch and torchvision were compiled with different CUDA versions|"
         r"operator torchvision::nms does not exist",
         "torchvision was built for another torch or CUDA than the installed one (torch upgraded "
         "alone, or the two from different indexes).",
         "pip install --force-reinstall torch torchvision   # together, from one index",
         priority=17),
    _sig("env-protobuf-too-new", NEW,
         r"Descriptors cannot (?:not )?be created directly|'MessageFactory' object has no attribute "
         r"'GetPrototype'",
         "The installed protobuf is newer than the generated code of a package that uses it "
         "(protobuf 4 rejects code generated by protoc < 3.19; protobuf 5 removed "
         "MessageFactory.GetPrototype).",
         'pip install "protobuf<=3.20.3"   # or: upgrade the package whose _pb2 files fail\n'
         "# or: export PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python", priority=17),
    _sig("env-bitsandbytes-cpu", BINARY,
         r"bitsandbytes was compiled without GPU support|installed version of bitsandbytes was "
         r"compiled without GPU support|CUDA Setup failed despite GPU being available|"
         r"No GPU found\. A GPU is needed for quantization|"
         # its CPU build loaded, then asked for a GPU kernel
         r"libbitsandbytes_cpu\.(?:so|dll)\W{0,3}(?:undefined symbol|function '\w+' not found)|"
         r"'NoneType' object has no attribute 'c(?:adam|quantize|dequantize)\w*'",
         "bitsandbytes cannot use a GPU here.", "python -m bitsandbytes", refine=refine_bnb,
         priority=18),
    _sig("env-bnb-unavailable", MISSING,
         r"Using `bitsandbytes` (?:4|8)-bit quantization requires (?:the latest version of "
         r"bitsandbytes|Accelerate)|Using `load_in_(?:8|4)bit=True` requires Accelerate:? `?pip "
         r"install accelerate`? and the latest version of bitsandbytes",
         "transformers finds no usable bitsandbytes.", "pip install -U bitsandbytes accelerate",
         refine=refine_bnb_unavailable, priority=18),
    _sig("env-bnb-training", OLD,
         r"is quantized with QuantizationMethod\.BITS_AND_BYTES but that quantization method do "
         r"not support training",
         "transformers allows training an 8-bit bitsandbytes model only with bitsandbytes 0.37.0 "
         "or later; the installed bitsandbytes is older.",
         'pip install -U "bitsandbytes>=0.37.0"   # then restart the runtime', priority=18),
    _sig("env-cli-command-unknown", OLD,
         r"error: argument (?:command|subcommand|\{[\w,-]+\}|[\w_]+): invalid choice: "
         r"'(?P<command>[\w-]+)' \(choose from (?P<choices>[^)\n]{1,400})\)",
         "The library's command-line tool has no such command in the installed release.",
         "pip install -U <the package>", refine=refine_cli_subcommand, priority=15),
    _sig("env-cli-option-unknown", OLD,
         r"(?m)(?:^|[\s\"'`:\u201c\uff1a])(?P<prog>[A-Za-z][\w.-]*): error: unrecognized "
         r"arguments: (?P<options>[^\n]+)",
         "The library's command-line tool has no such option in the installed release.",
         "pip install -U <the package>", refine=refine_cli_option, priority=14),
    _sig("env-kwarg-newer-than-release", OLD,
         r"missing \d+ required positional arguments?: '\w+'",
         "The code passes a keyword that a later release introduced.", "pip install -U <package>",
         refine=refine_kwarg_newer_than_stated, priority=9),
    _sig("env-fixed-on-main-branch", OLD,
         # "pip install spacy-llm --upgrade ... does not add the change. Installing from github
         # resolves the issue"
         r"\bpip3? install (?:-U |--upgrade )?(?P<pkg>[A-Za-z][\w.-]*)[^\n]*(?:\n[^\n]*){0,12}?\n"
         r"[^\n]*\b(?:install\w*|build\w*) (?:it |them )?from (?:the )?(?:github|git|source|"
         r"main(?: branch)?|master(?: branch)?)\b[^\n]{0,40}?\b(?:resolv\w*|fix\w*|solv\w*|works?|"
         r"worked)\b",
         "The fix is on the package's main branch, not in a release yet.",
         "pip install git+<the package's repository>", refine=refine_fixed_on_main, priority=14),
    _sig("env-upgrade-fixed-it", OLD,
         # "I was able to fix this by upgrading to `datasets>=2.6.0`", "upgrading peft to 0.5
         # solved it" (not "upgrading did not help")
         r"\b(?:fix(?:ed)?|solved?|resolved?) (?:it |this |that |the (?:issue|problem|error) )?by "
         r"(?:upgrad|updat)\w* (?:to )?`?(?P<pkg>[A-Za-z][\w.-]*?)`?(?:\s*(?:>=|==|to|version)\s*"
         r"v?(?P<ver>\d+\.\d+[\w.]*))?`?(?![\w.-])|"
         r"\b(?:upgrad|updat)\w* `?(?P<pkg2>[A-Za-z][\w.-]*?)`? to (?:version )?`?v?(?P<ver2>\d+"
         r"\.\d+[\w.]*)`? (?:fixe[sd]|solve[sd]|resolve[sd]) (?:it|this|the)|"
         # "Upgrading to `timm-0.4.12` fixed it": pip's name-version spelling
         r"\b(?:upgrad|updat)\w* to `?(?P<pkg5>[A-Za-z][\w.]*?)-v?(?P<ver5>\d+\.\d+[\w.]*)`? "
         r"(?:fixe[sd]|solve[sd]|resolve[sd]) (?:it|this|the)|"
         r"\b(?:once|after) (?:I )?(?:updat|upgrad)\w* (?:to )?(?:the )?(?:latest |newest )?(?:version "
         r"(?:of )?)?`?(?P<pkg3>[A-Za-z][\w.-]*?)`?,? (?:this |the )?(?:problem|issue|error) "
         r"(?:is|was|went) (?:gone|away|solved|fixed|resolved)|"
         # "trl == 0.14.0 would get error: ...\nupgrade to 0.15.0 is ok."
         r"\b(?P<pkg4>[A-Za-z][\w.-]*) ?==? ?v?\d+\.\d+[\w.]*\b[^\n]{0,60}?\b(?:errors?|fails?)\b"
         r"[^\n]*\n[^\n]{0,40}?\bupgrad\w* to (?:version )?v?(?P<ver4>\d+\.\d+[\w.]*),? (?:is "
         r"(?:ok|okay|fine)|works?|fixe[sd] it|solve[sd] it)\b",
         "The reporter found that upgrading a package fixed it.", "pip install -U <the package>",
         refine=refine_upgrade_fixed_it, priority=14),
    _sig("env-pins-conflict", OLD,
         r"Cannot install (?P<what>[^\n]{1,200}?) because these package versions have conflicting "
         r"dependencies",
         "Pinned versions cannot be installed together.", "loosen one of the pins",
         refine=refine_pins_conflict, priority=18),
    _sig("env-xla-cuda-compiler-missing", SETUP,
         r"Could not find compiler for platform CUDA|could not find registered compiler for "
         r"platform CUDA|Can't find libdevice directory",
         "TensorFlow compiles the model with XLA (jit_compile, the default of Keras 3's fit on a "
         "GPU) and finds no CUDA compiler tools (ptxas, libdevice) for it: the CUDA toolkit "
         "TensorFlow's XLA needs is not installed.",
         "pip install \"tensorflow[and-cuda]\"   # brings the CUDA tools XLA needs\n"
         "# or: model.compile(..., jit_compile=False)", priority=16),
    _sig("env-cuda-toolkit-missing", SETUP,
         r"CUDA_HOME does not exist, unable to compile CUDA op|CUDA_HOME environment variable is "
         r"not set|nvcc (?:was )?not found|No CUDA runtime is found, using CUDA_HOME|"
         r"Error building extension '\w+'",
         "Building a CUDA extension (DeepSpeed ops, flash-attn, apex) needs the CUDA compiler "
         "(nvcc, from a CUDA toolkit); the torch wheel ships only the runtime.",
         "conda install -c nvidia cuda-toolkit   # or the CUDA toolkit of your torch's CUDA "
         "version\nexport CUDA_HOME=/usr/local/cuda   # where nvcc is: $CUDA_HOME/bin/nvcc",
         priority=17),
    # pip after an install: "trl 0.12.0 requires transformers>=4.46.0, but you have
    # transformers 4.44.2 which is incompatible" (older pip: "has requirement ... you'll have")
    _sig("env-installed-conflict", NEW,
         r"(?P<who>[A-Za-z][\w.-]{0,60}) (?:\d[\w.]* )?(?:requires|has requirement) "
         r"(?P<pkg>[A-Za-z][\w.-]{0,60})(?:\[[\w,-]{1,60}\])?(?P<spec>[<>=!~][^,\s]{1,30}(?:,"
         r"[<>=!~][^,\s]{1,30}){0,4}), but you(?:'ll)? have (?:(?P=pkg) )?(?P<found>\d[\w.+]*) "
         r"which is incompatible",
         "An installed package sits beside a release of its dependency outside the range it "
         "requires.", "pip install <the range it requires>", refine=refine_installed_conflict,
         priority=17),
    _sig("env-extension-built-for-other-torch", BINARY,
         r"(?P<ext>xFormers) was built for:\s*PyTorch (?P<built>\S+)[^\n]*\(you have "
         r"(?P<have>[^)\s]+)\)",
         "A compiled extension was built for another torch release than the installed one.",
         "pip install -U xformers", refine=refine_binary_built_for, priority=17),
    _sig("env-dataset-scripts", NEW,
         r"Dataset scripts are no longer supported|`?trust_remote_code`? is not supported "
         r"anymore\.\s*Please check that the Hugging Face dataset",
         "datasets 4 removed loading scripts; this dataset is still a script on the Hub.",
         'pip install "datasets<4.0.0"   # or load a script-free (parquet) revision:\n'
         "# load_dataset(name, revision='refs/convert/parquet')", priority=18),
    _sig("env-fsspec-glob", OLD,
         r"Invalid pattern: '\*\*' can only be an entire path component|"
         r"Loading a (?:streaming )?dataset cached in a LocalFileSystem is not supported",
         "The installed datasets is older than the installed fsspec: fsspec 2023.10 changed how "
         "'**' globs are read and how its local file system is named, which datasets before "
         "2.14.6 does not handle.",
         'pip install -U "datasets>=2.14.6"   # or: pip install "fsspec<=2023.9.2"',
         priority=18),
    _sig("env-tokenizer-not-callable", OLD,
         r"'(?P<cls>\w*Tokenizer(?:Fast)?)' object is not callable",
         "Calling the tokenizer itself (tokenizer(texts, ...)) needs transformers 3.0 or later; "
         "an older transformers (2.x, often pinned by another package) is installed.",
         'pip install -U "transformers>=3.0.0"   # or, on 2.x: tokenizer.encode_plus(...) / '
         "tokenizer.batch_encode_plus(...)", priority=16),
    _sig("env-datasets-map-tensors", OLD,
         r"Provided `function` which is applied to all elements of table returns a `dict` of "
         r"types\s+\[<class '(?:torch\.Tensor|tensorflow)",
         "Dataset.map before datasets 2.5.0 takes only lists and NumPy arrays from the function; "
         "this one returns tensors (tokenizer(..., return_tensors='pt')).",
         'pip install -U "datasets>=2.5.0"   # or return lists: tokenizer(batch["text"]) and '
         'ds.set_format("torch") afterwards', priority=16),
    _sig("env-datasets-parquet-splits", OLD,
         r"NonMatchingSplitsSizesError[\s\S]{0,600}?'recorded': SplitInfo\([^)]{0,300}?"
         r"dataset_name='parquet'",
         "The Hub now serves this dataset as parquet files, whose split sizes differ from the "
         "ones its old loading script recorded; the installed datasets still verifies against "
         "the script's numbers.",
         'pip install -U datasets   # reads the parquet export with its own split info',
         priority=16),
    _sig("env-numpy-symbolic-tensor", NEW,
         r"Cannot convert a symbolic Tensor \([^)\n]*\) to a numpy array",
         "NumPy 1.20 or later with TensorFlow 2.4 or older: that TensorFlow's RNN layers call a "
         "NumPy function NumPy 1.20 no longer accepts tensors in.",
         'pip install "numpy<1.20"   # or: pip install -U tensorflow', priority=16),
    _sig("env-keras-tf-mismatch", NEW,
         r"Another metric with the same name already exists",
         "The standalone keras package is of another release than TensorFlow (keras 2.7 "
         "installed beside TensorFlow 2.6): both register the same metrics on import.",
         'pip install "keras==2.6.*"   # the keras of your TensorFlow release (TensorFlow 2.6 -> '
         'keras 2.6)', priority=16),
    _sig("env-keras-new-optimizer", NEW,
         r"(?:decay|lr) is deprecated in the new Keras optimizer|is not a legacy optimizer|"
         r"Could not interpret optimizer identifier: <keras\.optimizers\.legacy",
         "TensorFlow 2.11 made the new Keras optimizers the default; code written for the "
         "older ones passes their arguments (decay=, lr=) or mixes the two kinds.",
         "tf.keras.optimizers.legacy.Adam(learning_rate=3e-5, decay=...)   # the older "
         "optimizer\n# or the new one without decay: tf.keras.optimizers.Adam(learning_rate="
         "tf.keras.optimizers.schedules.PolynomialDecay(...))", priority=16),
    _sig("env-model-output-tuple", NEW,
         r"argument '\w+' \(position \d+\) must be Tensor, not str|"
         # the TensorFlow form: the key names of a ModelOutput reach a Keras layer
         r"Inputs to a layer should be tensors\. Got: (?:last_hidden_state|pooler_output|logits|"
         r"hidden_states)\b|"
         # the loss unpacked from the output is its first key's name: loss.item() on "loss"
         r"'str' object has no attribute '(?:item|backward)'|"
         # the pooled output unpacked as `_, pooled = bert(...)` meets a tensor method
         r"'str' object has no attribute '(?P<tensor_attr>size|dim|shape)'",
         "Since transformers 4 models return a ModelOutput (a dict), not a tuple: unpacking it "
         "(`_, pooled = bert(...)`) gives the key names (strings), which the next layer gets.",
         "outputs = self.bert(input_ids, attention_mask=mask)\npooled = outputs.pooler_output\n"
         "# or: self.bert(..., return_dict=False)", priority=16, refine=refine_output_unpacked),
    _sig("env-unknown-architecture", OLD,
         r"does not recognize this architecture|model type `?(?P<model_type>[\w-]+)`? but "
         r"Transformers does not recognize",
         "The checkpoint's model type is newer than the installed transformers.",
         'pip install -U transformers', priority=17),
    _sig("env-model-type-key", OLD,
         r"(?m)^KeyError: '(?P<model_type>[a-z][a-z0-9_-]{1,40})'`{0,3}\s*$",
         "The checkpoint's model type is newer than the installed transformers.",
         "pip install -U transformers", refine=refine_model_type_key, priority=16),
    _sig("env-tokenizer-class", OLD,
         r"Tokenizer class (?P<cls>\w+) does not exist or is not currently imported",
         "The tokenizer class the checkpoint names is not in the installed transformers.",
         "pip install -U transformers sentencepiece", refine=refine_tokenizer_class),
    _sig("env-tokenizers-format", OLD,
         r"data did not match any variant of untagged enum (?:ModelWrapper|PyPreTokenizerTypeWrapper"
         r"|PyNormalizerTypeWrapper|PyDecoderWrapper|PreTokenizerWrapper|NormalizerWrapper)",
         "tokenizer.json was written by a newer tokenizers than the one installed (rarely: a "
         "tokenizer saved in a form it cannot read back, e.g. BPE merges containing spaces).",
         'pip install -U tokenizers transformers', refine=refine_tokenizers_format, priority=16),
    _sig("env-keras-no-loss-tf2", OLD,
         r"The model cannot be compiled because it has no loss to optimize",
         "compile() without a loss, with the loss computed in a custom train_step, needs "
         "TensorFlow >= 2.2.", 'pip install -U "tensorflow>=2.2"'),
    _sig("env-keras3-kwargs", NEW,
         r"Unrecognized keyword arguments(?: passed to (?P<callee>\w+))?: \{'(?P<arg>\w+)'",
         "Keras 3 no longer accepts an argument of Keras 2.", "pip install tf-keras",
         refine=refine_keras_kwargs, priority=16),
    _sig("env-python-too-old", OLD,
         r"SyntaxError: (?:invalid syntax|f-string)|'type' object is not subscriptable|"
         r"unsupported operand type\(s\) for \|: '|"
         # no exception line (prose may follow): a traceback cut at the line that does not parse
         r"\A(?![\w.]*(?:Error|Exception)\b)",
         "A library needs a newer Python than the one running it.",
         "# use a newer Python (a new environment)", refine=refine_python_too_old, priority=16),
    _sig("env-tf-checkpoint-missing", SETUP,
         r"(?:Failed to get matching files on|Failed to find any matching files for) "
         r"(?P<path>[^\s]+)",
         "No TensorFlow checkpoint files at the path given.",
         "ls <checkpoint prefix>*   # expect .index and .data-* files\n"
         "# download and unpack the checkpoint the README names, then point the flag at its prefix",
         refine=refine_tf_checkpoint, priority=15),
    _sig("env-requirement-violated", OLD,
         r"(?-i:\b(?:trl|peft|transformers|datasets|accelerate|huggingface[-_]hub|Huggingface_hub))"
         r"`?(?:==|:|\s+v?|\s+version:?\s*)\s*\d+\.\d+",
         "A library runs beside a release of its dependency that it does not support.",
         "pip install -U <the library> <the dependency>   # together", priority=3,
         refine=refine_requirement_violated),
    _sig("env-release-removed-argument", NEW,
         r"(?-i:\b(?P<pkg>trl|peft|transformers|datasets|accelerate))(?:==|\s+v?|\s+version\s+)"
         r"(?P<ver>\d+\.\d+(?:\.\d+)?)\b",
         "A release took out an argument the code passes.", "pip install \"<package><release>\"",
         refine=refine_release_removed, priority=4),
    _sig("env-dataset-script-release", OLD,
         r"Couldn't find file (?:locally )?at (?P<name>[\w.-]+)/[\w.-]+\.py,? or remotely at "
         r"https://raw\.githubusercontent\.com/huggingface/(?:datasets|nlp)/(?P<release>[\w.]+)/",
         "The installed datasets predates the dataset's loading script.",
         "pip install -U datasets", refine=refine_dataset_script_release, priority=16),
    _sig("env-dataset-script-on-hub", OLD,
         r"Couldn't find file at https?://huggingface\.co/datasets/[\w.-]+/(?P<name>[\w.-]+)/"
         r"resolve/[\w.%-]+/(?P=name)\.py",
         "The installed datasets looks for a loading script named after the dataset in its Hub "
         "repository, as datasets 1.x did; a repository of data files only (parquet, csv, json) "
         "loads with a newer datasets. (If the repository is private or gated, the same lookup "
         "fails without a token.)",
         "pip install -U datasets\n# private or gated: huggingface-cli login first",
         priority=16),
    _sig("env-example-script-release", OLD,
         r"(?P<script>\brun_\w+\.py)\b[\s\S]{0,800}?\b(?:ImportError|cannot import name)\b|"
         r"\b(?:ImportError|cannot import name)\b[\s\S]{0,800}?(?P<script2>\brun_\w+\.py)\b",
         "An example script of the main branch runs against an older installed release.",
         "pip install git+https://github.com/huggingface/transformers",
         refine=refine_example_script, priority=9),
    _sig("env-not-supported-yet", OLD,
         r"\bnot (?:yet )?supported yet\b|\bnot yet supported\b",
         "The library does not support this yet in the installed release.",
         "pip install -U <package>", refine=refine_not_supported_yet, priority=8),
    _sig("env-constructor-argument", NEW,
         r"(?<!\w)(?P<cls>[A-Z]\w{0,80})\.__init__\(\) missing \d+ required positional arguments?: "
         r"'(?P<arg>\w+)'",
         "A library class now requires an argument the code does not pass.",
         "pip install \"<package><installed>\"", refine=refine_constructor_argument, priority=12),
    _sig("env-notebook-widgets-missing", MISSING,
         r"I(?:nt)?Progress not found\. Please update jupyter and ipywidgets|"
         r"name 'I(?:nt)?Progress' is not defined",
         "The notebook's progress bars (tqdm.auto: checkpoint shards, Hub downloads) need "
         "ipywidgets, which the kernel's environment lacks.",
         "pip install ipywidgets   # in the kernel's environment, then restart the kernel",
         priority=18),
    _sig("env-no-module", MISSING,
         rf"No module (?:named|found) {QUOTE}(?P<module>[A-Za-z_][\w.]*){QUOTE}",
         "A module cannot be imported.", "pip install <package>", refine=refine_no_module),
    _sig("env-cannot-import", OLD,
         rf"cannot import name {QUOTE}(?P<name>\w+){QUOTE}(?: from (?P<partial>partially initialized "
         rf"module )?{QUOTE}(?P<module>[\w.]+){QUOTE}(?: \(most likely due to a circular import\))?"
         r"(?P<loc> \([^)\n]*\))?)?",
         "A name cannot be imported from a package.", "pip install -U <package>",
         refine=refine_cannot_import),
    _sig("env-import-line", OLD,
         r"(?m)^\s*`*from (?P<module>[A-Za-z_][\w.]*) import (?P<name>[A-Z]\w*)`*\s*$",
         "A class is imported from a library it does not belong to.", "from <its library> import "
         "<name>", refine=refine_import_line, priority=5),
    _sig("env-module-attribute", OLD,
         rf"(?P<kind>module|type object) ?{QUOTE}(?P<module>[A-Za-z_][\w.]*){QUOTE} has no "
         rf"attribute {QUOTE}(?P<name>\w+)",
         "A module of a library lacks a name the code uses.", "pip install -U <package>",
         refine=refine_module_attribute, priority=12),
    _sig("env-unexpected-kwarg", OLD,
         r"(?<![A-Za-z0-9_.])(?P<callee>[A-Za-z_][\w.]*)\(\) ?got an unexpected keyword argument"
         r" ?['\"](?P<arg>\w+)['\"]",
         "A function got an argument the installed release does not have.",
         "pip install -U <package>", refine=refine_unexpected_kwarg, priority=11),
    _sig("env-hook-arity", NEW,
         r"(?<![\w.])(?:\w{1,80}\.)?(?P<hook>training_step|compute_loss|prediction_step|"
         r"evaluation_loop|train_step|test_step|_prepare_inputs|log|create_optimizer)\(\) takes "
         r"(?:from \d+ to )?(?P<takes>\d+) positional arguments? but (?P<given>\d+) (?:were|was) "
         r"given",
         "A Trainer hook is overridden with fewer parameters than the library now passes.",
         "def <hook>(self, *args, **kwargs)", refine=refine_hook_arity, priority=11),
    _sig("env-unbatched-input", NEW,
         r"Wrong shape for input_ids(?P<flat> \(shape (?:torch\.Size\(\[\d+\]\)|\(\d+,?\))\))?",
         "A transformers model got input_ids without a batch dimension.",
         "input_ids.unsqueeze(0)", refine=refine_unbatched_input, priority=12),
    _sig("env-removed-argument-in-code", NEW,
         # or the reporter tells of an error without pasting it
         r"\bTypeError\b|\b(?:getting|get|got|facing|having|encounter\w*) (?:this|the following|an?|"
         r"the same) error\b",
         "The code passes an argument the installed release removed.",
         "drop or rename the argument", refine=refine_removed_argument_in_code, priority=2),
    _sig("env-name-not-defined", OLD,
         r"name '(?P<name>[A-Z]\w*|flash_attn_\w+)' is not defined|"
         # the same in a reporter's words: 'The function or method "Partial State" is not defined'
         r"[\"'`](?P<name2>[A-Z][\w ]{0,40}?)[\"'`] is not defined",
         "A name imported only when an optional package is recent enough is undefined.",
         "pip install -U <package>", refine=refine_name_not_defined, priority=12),
    _sig("env-tracker-missing", MISSING,
         r"`?log_with=\[?'?(?P<pkg>wandb|tensorboard|comet_ml|mlflow|aim|clearml|dvclive|swanlab)'?"
         r"\]?`? was passed but no supported trackers are currently installed",
         "The experiment tracker asked for (log_with=...) is not installed, so accelerate logs "
         "nowhere.", "pip install <tracker>", refine=refine_requires_package, priority=15),
    # builds that do not match each other, and build tools missing (several threads each)
    _sig("env-xformers-build-mismatch", BINARY,
         r"No operator found for `?memory_efficient_attention_\w+`?|xFormers wasn't build with "
         r"CUDA support|xFormers can't load C\+\+/CUDA extensions",
         "The installed xformers was built for another torch/CUDA than the one installed (a "
         "runtime that changed torch under a pinned xformers), so it has no kernel to run.",
         "python -m xformers.info   # 'built for PyTorch X, you have Y'\npip install -U xformers "
         "--index-url https://download.pytorch.org/whl/cu121   # the build for the installed "
         "torch", priority=17),
    _sig("env-cuda-toolkit-mismatch", BINARY,
         r"The detected CUDA version \((?P<toolkit>[\d.]+)\) mismatches the version that was"
         r"\s+used to compile\s+PyTorch \((?P<torch_cuda>[\d.]+)\)|Installed CUDA version "
         r"(?P<toolkit2>[\d.]+) does not match the version torch was compiled with "
         r"(?P<torch_cuda2>[\d.]+)",
         "A CUDA extension (flash-attn, xformers, apex, DeepSpeed's ops) is compiled with the "
         "system CUDA toolkit, whose version differs from the CUDA the torch wheel was built with.",
         "nvcc --version; python -c \"import torch; print(torch.version.cuda)\"\n# make them "
         "match: a torch built for the toolkit, or CUDA_HOME pointing at the toolkit torch "
         "needs; or a prebuilt wheel of the extension", priority=17),
    _sig("env-cudnn-shadowed", BINARY,
         r"cuDNN version incompatibility: PyTorch was compiled\s+against \([\d, ]+\) but found "
         r"runtime version \([\d, ]+\)",
         "torch loads an older cuDNN than the one its wheel was built against: a system or "
         "conda cuDNN on LD_LIBRARY_PATH shadows the one bundled with torch.",
         "unset LD_LIBRARY_PATH   # or drop the old cuDNN folder from it\n"
         "pip install --force-reinstall torch   # its bundled cuDNN", priority=17),
    _sig("env-mkl-gomp-conflict", BINARY,
         r"MKL_THREADING_LAYER=INTEL is incompatible with libgomp",
         "Intel MKL (a conda numpy or torch) and GNU OpenMP (a pip torch) are loaded in one "
         "process, and a new process refuses the mix.",
         "export MKL_THREADING_LAYER=GNU   # before the training script (or reinstall numpy from "
         "pip, without MKL)", priority=17),
    _sig("env-build-tool-missing", MISSING,
         r"Ninja is required to load C\+\+ extensions|Failed to find C compiler\. Please specify "
         r"via CC environment variable",
         "A kernel is compiled at run time (DeepSpeed's ops, a custom extension, Triton's launcher "
         "for torch.compile, Unsloth or Liger) and its build tool (ninja, a C compiler) is missing.",
         "pip install ninja   # and a C compiler: apt-get install -y build-essential (Windows: the "
         "MSVC build tools)", priority=17),
    _sig("env-protobuf-duplicate-proto", BINARY,
         r"Couldn't build proto file into descriptor pool: duplicate file name "
         r"\(?sentencepiece_model\.proto\)?",
         "Two packages register their own copy of sentencepiece_model.proto with protobuf 4's "
         "C++ backend, which refuses the duplicate.",
         'pip install "protobuf==3.20.3"   # or: export PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python',
         priority=17),
    _sig("env-bitsandbytes-4bit-version", OLD,
         r"You have a version of `?bitsandbytes`? that is not compatible with (?:4|8)bit",
         "transformers found a bitsandbytes too old for 4/8-bit loading, or a broken or duplicate "
         "install whose metadata reports another version.",
         "pip install -U --force-reinstall bitsandbytes   # then restart the runtime",
         priority=17),
    _sig("env-datasets-list-feature", OLD,
         r"Feature type '(?:List|Json)' not found",
         "The data (its dataset_info or parquet metadata) was written by datasets 4, whose List "
         "feature type the installed datasets 3 or older does not know.",
         'pip install -U "datasets>=4.0"   # the release that wrote it; or write the data again '
         "with the release you train with", priority=17),
    _sig("env-torchcodec-unloadable", BINARY,
         r"Could not load libtorchcodec",
         "datasets 4 decodes audio and video with torchcodec, whose library needs a shared FFmpeg "
         "of a supported major version and the torch its wheel was built for.",
         "conda install -c conda-forge \"ffmpeg<8\"   # or apt-get install ffmpeg\npip install "
         "torchcodec==<the release matching your torch>", priority=17),
    _sig("env-pyarrow-numpy-dtype", BINARY,
         r"Did not pass numpy\.dtype object",
         "pyarrow older than 3.0 beside NumPy 1.20 or later, whose dtype classes it no longer "
         "recognises.", 'pip install -U "pyarrow>=3.0"   # or: pip install "numpy<1.20"',
         priority=17),
    _sig("env-dynamo-python-too-new", OLD,
         r"Dynamo is not supported on Python 3\.1\d\+",
         "torch.compile supports Python 3.12 only from PyTorch 2.4 (3.13 from 2.6); the "
         "installed torch is older than the interpreter.",
         'pip install -U "torch>=2.4"   # or Python 3.11, or TrainingArguments(torch_compile=False)',
         priority=17),
    _sig("env-mps-autocast-unsupported", NEW,
         r"User specified an unsupported autocast device_type 'mps'",
         "transformers 4.38.2 wrapped rotary embeddings in torch.autocast(device_type=...), which "
         "the installed PyTorch does not offer for 'mps'.",
         'pip install -U "transformers>=4.39"   # or pin transformers==4.38.1', priority=17),
    _sig("env-legacy-package-hub-id", OLD,
         r"(?:OSError|EnvironmentError): file (?P<id>[\w.-]+/[\w.-]+) not found",
         "pytorch_transformers and pytorch_pretrained_bert, transformers' predecessors, know only "
         "their own shortcut names (bert-base-uncased ...): they predate the Hub's namespaced "
         "ids (organisation/model), so they look for a local file of that name.",
         "pip install -U transformers   # then: from transformers import BertModel; "
         "BertModel.from_pretrained(\"organisation/model\")",
         requires=r"pytorch_transformers|pytorch_pretrained_bert", priority=15),
    _sig("env-autogptq-kernels-missing", BINARY,
         r"auto_gptq[\w.]*:CUDA extension not installed|(?<![\w-])CUDA extension not installed\b|"
         r"name '?autogptq_cuda_(?:64|256)'? (?:is )?not defined",
         "auto-gptq's compiled CUDA kernels cannot be imported: the wheel does not match the "
         "installed torch/CUDA (or torch is a CPU build), so GPTQ layers run slow fallbacks or "
         "fail.",
         "pip uninstall -y auto-gptq && pip install auto-gptq --no-build-isolation "
         "--extra-index-url https://huggingface.github.io/autogptq-index/whl/cu118/   # the wheel "
         "for torch.version.cuda", priority=17,
         requires=r"auto_?gptq|AutoGPTQ|GPTQ|exllama"),
    _sig("env-quantization-method-unknown", OLD,
         r"Unknown quantization type, got (?P<method>\w+) - supported types are",
         "The checkpoint's quantization_config names a quant_method the installed transformers "
         "does not know (fp8 checkpoints such as DeepSeek-V3 need 4.50 or later).",
         'pip install -U transformers   # knows more quantization methods\n# or load a bf16 '
         "conversion of the checkpoint", priority=17),
    _sig("env-requires-package", MISSING,
         r"requires the (?P<pkg>[\w-]+) library but it was not found|"
         r"(?:please|you need to|you must|you should|make sure to) (?:first )?(?:pip )?install "
         r"(?!the following)"
         r"(?:it with )?`?['\"]?(?:pip install )?(?P<pkg2>[A-Za-z][\w\[\].-]*)['\"`]?(?![\w.]*\s*"
         r"(?:>=|==|>))|(?<![\w-])(?!(?:kernels?|extensions?|modules?|packages?|library|libraries|"
         r"backends?|dependency|dependencies|drivers?|plugins?|components?|it|this|that)\b)"
         r"(?P<pkg3>[A-Za-z][\w-]*)`? (?:is|are|seems to be|appears to be) not installed|"
         r"requires `?(?P<pkg4>[A-Za-z][\w-]*)`? to be installed|"
         r"(?:need|must) (?:to )?have `?(?P<pkg5>[A-Za-z][\w-]*)`? installed|"
         r"requires [A-Za-z][\w-]*:? `pip install ['\"]?(?P<pkg6>[A-Za-z][\w\[\].-]*)|"
         r"requires `(?P<pkg7>[A-Za-z][\w-]*)`\.? You can install it with `pip install|"
         r"make sure (?:that )?you have `?(?P<pkg8>[A-Za-z][\w-]*)`? installed|"
         # evaluate's metrics: "you need to install the following dependencies['nltk'] using ..."
         r"install the following dependencies ?\[['\"]?(?P<pkg9>[A-Za-z][\w.-]*)|"
         # "requires optimum (`pip install optimum`)", "Try `pip install hf_transfer`"
         r"requires (?:the )?(?:latest version of )?`?(?P<pkg10>[A-Za-z][\w-]*)`?(?: library)? "
         r"\(`pip install|\bTry `pip install (?P<pkg11>[A-Za-z][\w\[\].-]*)`|"
         # a model repository's own code (trust_remote_code) imports it
         r"requires the following packages that were not found in your environment: "
         r"(?P<pkg12>[A-Za-z][\w.-]*)|"
         r"(?<![\w-])(?P<pkg13>[A-Za-z][\w-]*) is not available => install it using `pip install|"
         # transformers' "The package optimum is required to use Better Transformer."
         r"\bThe package `?(?P<pkg14>[A-Za-z][\w-]*)`? is required to use\b|"
         # the reporter's words for it: "the colab fails and asks to run pip install accelerate"
         r"\b(?:asks?|asked|tells?|told|says?|said) (?:me |you |us )?to (?:run )?[`'\"]?!?pip "
         r"install (?:-U )?(?P<pkg15>[A-Za-z][\w\[\].-]*)",
         "An optional package the feature needs is not installed.", "pip install <package>",
         refine=refine_requires_package, priority=13),
]
