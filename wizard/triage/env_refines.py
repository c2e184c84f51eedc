"""Refine functions of the environment rules: they read the names and versions in a paste and
decide which of the five environment causes a match is (imports: env_imports.py; arguments:
env_arguments.py; releases: env_releases.py; skew between packages: env_skew.py)."""
from __future__ import annotations

import re
from typing import Any

from wizard.triage import api_history
from wizard.triage.env_answers import (
    BINARY,
    MISMATCH,
    MISSING,
    NEW,
    NOT_NAMES,
    OLD,
    SETUP,
    answer,
    fold_groups,
    pin,
    stated_version,
    upgrade,
)
from wizard.triage.packages import pip_name, version_lt
from wizard.triage.parse import ParsedError
from wizard.triage.tf_builds import other_cuda, other_cuda_answer
from wizard.triage.versions import history_span_change, paste_versions, satisfies


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


def refine_older_release_works(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The reporter found that an older release of a package works: the one that failed was
    newer than the code supports. A release named only as working ("in X 1.2 it works") counts
    when the paste runs a newer one; a downgrade that worked counts by itself."""
    downgraded = bool(ev.get("pkg2") or ev.get("pkg3"))
    fold_groups(ev, ("pkg", "ver"))
    pkg, version = str(ev.get("pkg") or ""), str(ev.get("ver") or "")
    if not re.fullmatch(r"[A-Za-z][\w.-]*", pkg) or pkg.lower() in NOT_NAMES | {"back", "down"}:
        return {"reject": True}
    named = [m.group(1) for m in re.finditer(rf"(?<![\w.-]){re.escape(pkg)}`?(?:\s*[:=]=?\s*|\s+v?)"
                                             r"(\d+\.\d+[\w.]*?)(?![\w.])", parsed.text, re.I)]
    ran = next((v for v in [stated_version(parsed, pkg), *named]
                if v and version_lt(version, v)), None)
    if not downgraded and ran is None:
        return {"reject": True}
    return answer(NEW, pkg, f"The reporter found that {pip_name(pkg)} {version} works: the "
                  + (f"{ran} that failed" if ran else "release that failed") + " is newer than "
                  "the code supports (it changed or removed something the code uses).",
                  f'pip install "{pip_name(pkg)}=={version}"   # the release that works; or the '
                  "code's release written for the newer one", ev)


def refine_model_type_taken(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A package registers its own config under a model type that the installed transformers
    now ships itself: the package was written for an older transformers. Registered by the
    user's code, it is the user's name to change."""
    key = str(ev.get("key", ""))
    caller = next((f for f in reversed(parsed.frames)
                   if f.package != "transformers" and f.kind != "other"), None)
    if caller is not None and caller.is_library and caller.package:
        lib = pip_name(caller.package)
        return answer(NEW, "transformers", f"The installed transformers ships its own model type "
                      f"'{key}', and {lib} registers its config under the same name: {lib} was "
                      "written for an older transformers.",
                      f"pip install -U {lib}   # a release written for this transformers\n"
                      f"# or: {pin('transformers', stated_version(parsed, 'transformers'))}   "
                      f"# the release {lib} requires (pip show {lib})", ev, (lib,))
    return {"id": "model-type-name-taken",
            "cause": f"Your config's model_type '{key}' is a name transformers already uses for "
                     "one of its own models, so AutoConfig.register refuses it.",
            "fix": f"class MyConfig(PretrainedConfig):\n    model_type = 'my-{key}'   # a name of "
                   "your own"}


def refine_release_skew_guess(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """An argument or a module attribute that the called code does not have, when no rule knows
    the package: most often the code follows another release of it than the one installed
    (which way, the paste does not tell). A guess: the user's own function or module is left
    alone, and any evidence of a library bug outweighs it."""
    callee, module = str(ev.get("callee") or ""), str(ev.get("module") or "")
    if callee:
        base = callee.rpartition(".")[2]
        if re.search(rf"^\s*def {re.escape(base)}\s*\(", parsed.text, re.M):
            return {"reject": True}   # a function of the paste's own code
        what = f"{callee}() and the code calling it disagree on its arguments"
        package = ""
    else:
        top = module.split(".")[0]
        if any(f.is_user and re.search(rf"(?:^|[/\\]){re.escape(top)}(?:\.py$|[/\\])", f.file)
               for f in parsed.frames):
            return {"reject": True}   # a module of the user's project
        what = f"{module} has no {ev.get('name')} in the installed release"
        package = top
    result = answer(MISMATCH, package, f"{what}: most often the code was written for another "
                    "release of the package that defines it than the one installed (an argument "
                    "or name added or removed between releases).",
                    "pip list   # the installed release of the package the call goes to\n"
                    "# then the release the code was written for (its requirements or README "
                    "name it): pip install \"<package>==<that release>\"", ev)
    return {**result, "guess": True}


def refine_config_class(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The library whose class a saved configuration names, for the upgrade."""
    path = str(ev.get("path", ""))
    top = path.split(".")[0]
    return answer(OLD, top, f"The model's saved configuration names {path}, which the installed "
                  f"{pip_name(top)} does not have: the model was saved with a newer release.",
                  f"{upgrade(top)}   # then load the model again", ev)


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
    if re.search(r"Could not load dynamic library '\w", text):     # TensorFlow's loader
        found = other_cuda(text)
        return other_cuda_answer(found) if found else answer(
            BINARY, "tensorflow", "TensorFlow cannot load the CUDA libraries of the release it "
            "is built against: the installed CUDA and cuDNN are of another release.",
            'pip install "tensorflow[and-cuda]"   # Linux, 2.14+; else the CUDA and cuDNN of '
            "your TensorFlow's release (tensorflow.org: tested build configurations)", ev)
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


def refine_processor_class(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A class the checkpoint's processor config names, read against transformers' releases:
    added in a later release (upgrade), else a release question whose side the paste does not
    tell (a config written for a pre-release, or for an older name)."""
    cls = str(ev.get("cls", ""))
    span = api_history.top_name("transformers", cls) if cls else None
    if span is not None and span.first != api_history.releases("transformers")[0]:
        return answer(OLD, "transformers", f"The checkpoint's config names {cls}, which "
                      f"transformers has from {span.first} on.", upgrade("transformers",
                                                                            span.first), ev)
    return answer(MISMATCH, "transformers", f"The checkpoint's config names {cls}, which the "
                  "installed transformers does not have: the model was published for another "
                  "release (a newer one, or a development build whose class names changed).",
                  "pip install \"transformers==<the release the model card names>\"", ev)


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


def model_type_added(model_type: str) -> str | None:
    """The release that added transformers' model folder for ``model_type`` ('qwen2' ->
    '4.37.0'); None for a model transformers 3 had already (its flat layout), or none."""
    name = model_type.replace("-", "_")
    if api_history.module(f"transformers.configuration_{name}") is not None:
        return None                   # in transformers 3's flat layout already
    span = api_history.module(f"transformers.models.{name}")
    change = history_span_change(span, model_type) if span is not None else None
    return change.added if change is not None and not change.removed else None


def refine_model_type_key(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """KeyError: 'mistral' where transformers maps a config's model_type to its class; a
    KeyError in the reporter's prose counts when the key is a model transformers added later."""
    model_type = str(ev.get("model_type", ""))
    text = parsed.text
    added = model_type_added(model_type)
    alone = (parsed.exc_name == "KeyError" and
             (parsed.message or "").strip(" '\"`") == model_type) or \
        re.search(rf"(?m)^KeyError: '{re.escape(model_type)}'`{{0,3}}\s*$", text)
    if not alone and not (added and re.search(r"transformers|from_pretrained|\bAuto[A-Z]", text)):
        return {"reject": True}
    if not re.search(r"configuration_auto|CONFIG_MAPPING|model_type", text) and \
            model_type not in _ARCHITECTURES and not added:
        return {"reject": True}
    stated = stated_version(parsed, "transformers")
    since = f" (it is in transformers from {added} on)" if added else ""
    return answer(OLD, "transformers", f"The checkpoint's model_type '{model_type}' is not in "
                  f"the installed transformers: the architecture was added in a later "
                  f"release{since}.",
                  upgrade("transformers", added if added and version_lt(stated, added) is not False
                          else None), ev)


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


def refine_placeholder_class(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A class without from_pretrained is transformers' placeholder only when transformers
    exports that class (a class of the paste's own is the user's code)."""
    cls = str(ev.get("cls", ""))
    if re.search(rf"^\s*class\s+{re.escape(cls)}\b", parsed.text, re.M) or \
            api_history.top_name("transformers", cls) is None:
        return {"reject": True}
    return None


def refine_output_unpacked(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A string meeting a tensor method is an unpacked ModelOutput only beside a pretrained
    encoder and away from the data pipeline (raw text reaching a collator is another cause)."""
    if not ev.get("tensor_attr"):
        return None
    model = re.search(r"\b(?:bert|roberta|electra|xlnet|albert|encoder|pooled|transformers)\b|"
                      r"^\s*_\s*,\s*\w+\s*=", parsed.text, re.I | re.M)
    data = re.search(r"collat|DataLoader|_utils[/\\.]fetch|tokeniz", parsed.text, re.I)
    return None if model and not data else {"reject": True}
