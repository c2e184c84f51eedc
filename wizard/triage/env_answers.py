"""The environment family's causes and how its answers are written: the fix as a command (pip
install, the pin, the upgrade), the versions installed here, the direction of a version change,
and whose code calls what (the importer of a name, a library's call of its own function, a
library using another package's removed internal). Its public names serve the family's rule
modules: signatures_env_*.py and the env_*.py refine modules.
"""
from __future__ import annotations

import re
from typing import Any

from wizard.triage import api_history
from wizard.triage.parse import ParsedError
from wizard.triage.packages import dist_key, pip_name, version_lt
from wizard.triage.versions import (
    ApiChange,
    api_change,
    declared_window,
    installed_version,
    paste_versions,
    within,
)

QUOTE = r"['\"`]?"                     # an optional quote around a name in a message
MISSING, OLD, NEW = "env-missing-package", "env-version-too-old", "env-version-too-new"
BINARY, SETUP = "env-binary-incompatible", "env-setup-step-skipped"
MISMATCH = "env-version-mismatch"     # a release question whose direction the paste does not tell
FAMILY = (MISSING, OLD, NEW, BINARY, SETUP, MISMATCH)

LIBRARIES = frozenset({
    "transformers", "datasets", "tokenizers", "accelerate", "peft", "trl", "torch", "tensorflow",
    "tensorflow_core", "keras", "tf_keras", "numpy", "pyarrow", "huggingface_hub", "bitsandbytes",
    "sentence_transformers", "scipy", "sklearn", "pandas", "evaluate", "safetensors", "jax",
    "flax", "vllm", "deepspeed", "diffusers", "torchvision", "torchaudio", "sentencepiece",
    "tensorflow_hub", "tensorflow_text", "keras_nlp", "keras_hub", "unsloth", "optimum",
    "xformers", "flash_attn", "auto_gptq"})
BACKENDS = {"TF": "tensorflow", "Flax": "flax"}
HOME = {"PartialState": "accelerate", "Accelerator": "accelerate", "AcceleratorState": "accelerate",
         "load_dataset": "datasets", "Dataset": "datasets", "DatasetDict": "datasets",
         "hf_hub_download": "huggingface_hub", "snapshot_download": "huggingface_hub",
         "LoraConfig": "peft", "get_peft_model": "peft", "SFTTrainer": "trl",
         "DPOTrainer": "trl", "flash_attn_varlen_func": "flash_attn",
         "flash_attn_varlen_qkvpacked_func": "flash_attn"}
HOOKS = frozenset({"compute_loss", "training_step", "prediction_step", "evaluation_loop",
                    "train_step", "test_step", "predict_step", "call", "get_train_dataloader",
                    "get_eval_dataloader", "create_optimizer", "create_scheduler", "log",
                    "_save", "save_model", "compute_metrics", "on_step_end", "on_log",
                    "on_evaluate", "on_epoch_end", "_prepare_inputs"})
_LIB_CLASS = [
    (re.compile(r"^(?:Peft|Lora|LoRA|AdaLora|IA3|LoHa|LoKr|Vera|Boft|Prefix|Prompt)\w*$"), "peft"),
    (re.compile(r"^(?:SFT|DPO|PPO|PPOv2|RLOO|KTO|ORPO|CPO|GRPO|BCO|GKD|Reward|Online\w*|XPO|"
                r"Nash\w*)(?:Trainer|Config)$|^AutoModelFor\w+WithValueHead$|"
                r"^PreTrainedModelWrapper$"), "trl"),
    (re.compile(r"^(?:EngineArgs|AsyncEngineArgs|LLM|SamplingParams)$"), "vllm"),
    (re.compile(r"^(?:SentenceTransformer\w*|CrossEncoder\w*|SparseEncoder\w*)$"),
     "sentence_transformers"),
    (re.compile(r"^(?:Accelerator|PartialState|AcceleratorState)$"), "accelerate"),
    (re.compile(r"^(?:Linear8bitLt|Linear4bit|Params4bit|Int8Params|MatmulLtState|QuantState|"
                r"GlobalOptimManager|StableEmbedding|Embedding4bit|Embedding8bit)$"),
     "bitsandbytes"),
    (re.compile(r"^(?:DeepSpeedEngine|DeepSpeedZeroOptimizer\w*|DeepSpeedConfig|"
                r"DeepSpeedZeroConfig|PipelineEngine)$"), "deepspeed"),
    (re.compile(r"^Fast(?:Language|Vision|Model|Llama|Mistral|Qwen\d*|Gemma\d*)\w*Model$|"
                r"^FastModel$"), "unsloth"),
    (re.compile(r"^(?:Dataset|DatasetDict|IterableDataset|BuilderConfig|DatasetBuilder|"
                r"Features)$"), "datasets"),
    (re.compile(r"^(?:Trainer|Seq2SeqTrainer|TrainingArguments|Seq2SeqTrainingArguments|"
                r"PreTrainedModel|PretrainedConfig|[A-Z]\w*(?:Config|TokenizerFast|Tokenizer|"
                r"Model|Pipeline|Processor|FeatureExtractor|Collator\w*)|[A-Z]\w*For[A-Z]\w*)$"),
     "transformers"),
]
HF_NAMED = re.compile(r"\b(?:transformers?|datasets|tokenizers|accelerate|peft|trl|keras|"
                       r"SentenceTransformer|"
                       r"tensorflow|torch|diffusers|sentence.transformers|from_pretrained|"
                       r"TrainingArguments|Trainer|AutoModel\w*|AutoTokenizer|LoraConfig)\b",
                       re.I)
USER_CLASS = re.compile(r"^(?:Custom|My|Our|New)|Custom|Wrapper$")


def article(word: str) -> str:
    """'an' before a vowel sound's letter (an AutoModel), else 'a'."""
    return "an" if word[:1].upper() in "AEIOU" else "a"


def libclass(name: str) -> str | None:
    return next((pkg for rx, pkg in _LIB_CLASS if rx.match(name or "")), None)


# the libraries a paste names, by the names it uses for them, the ones built on others first:
# a report is filed where the user's own code enters (trl's trainer runs transformers' code)
_NAMED_LIBRARY = re.compile(r"\b(unsloth|trl|peft|sentence[_-]transformers|diffusers|"
                            r"accelerate|datasets|bitsandbytes|deepspeed|tokenizers|"
                            r"huggingface_hub|transformers|keras|tensorflow|torch)\b", re.I)
_DOWNSTREAM = ("unsloth", "trl", "peft", "sentence-transformers", "diffusers", "evaluate",
               "accelerate", "datasets", "bitsandbytes", "deepspeed", "tokenizers",
               "huggingface-hub", "transformers", "keras", "tensorflow", "torch")
_RANK = {name: i for i, name in enumerate(_DOWNSTREAM)}
_IMPORT_LINE = re.compile(r"^[ \t>]*(?:from|import)\s+([A-Za-z_]\w*)", re.M)


def named_libraries(text: str) -> list[str]:
    """The libraries the text names, in order, as pip names (repeats kept)."""
    return [pip_name(m.lower().replace("_", "-") if m.lower().startswith("sentence")
                     else m.lower()) for m in _NAMED_LIBRARY.findall(text)]


_CLASS_NAME = re.compile(r"(?<![\w.])([A-Z][A-Za-z0-9]+)\b")
_CLASS_CALL = re.compile(r"(?<![\w.])([A-Z][A-Za-z0-9]+)\(")


def named_library(parsed: ParsedError) -> str | None:
    """The library of the innermost library frame, else the one the paste names most often in
    lower case, as a package name (ties to the one built on the others), pip name."""
    pkg = parsed.innermost_library_package
    if pkg:
        return pip_name(pkg)
    return _most_named(named_libraries(" ".join(re.findall(r"\b[a-z_-]+\b", parsed.text))))


def _most_named(named: list[str]) -> str | None:
    """The name most frequent in `named`, ties to the library built on the others."""
    return min(named, key=lambda n: (-named.count(n), _RANK.get(n, len(_RANK)))) if named else None


def _classes(names: list[str]) -> list[str]:
    """The packages of the library classes among `names` (DPOTrainer: trl)."""
    return [pip_name(pkg) for pkg in map(libclass, names) if pkg]


def blamed_library(parsed: ParsedError) -> str | None:
    """The library an error comes from: the innermost library frame's; else, the one built on
    the others first (the user's entry point: a DPOTrainer report goes to trl), one the error
    message names, whose class it names, that the paste's code imports or whose class it calls;
    else the one the paste names most often (pip name)."""
    pkg = parsed.innermost_library_package
    if pkg:
        return pip_name(pkg)
    message = parsed.message or ""
    for found in (named_libraries(message) + _classes(_CLASS_NAME.findall(message)),
                  [pip_name(m) for m in _IMPORT_LINE.findall(parsed.text)]
                  + _classes(_CLASS_CALL.findall(parsed.text))):
        known = [n for n in found if n in _RANK]
        if known:
            return min(known, key=_RANK.__getitem__)
    return _most_named(named_libraries(parsed.text))


def top_of(module: str) -> str:
    top = (module or "").split(".", 1)[0]
    return "tensorflow" if top == "tensorflow_core" else top


def _installed(*names: str) -> dict[str, str]:
    """{pip name: version} of the named packages installed here."""
    out = {}
    for n in names:
        if n:
            v = installed_version(n)
            if v:
                out[pip_name(n)] = v
    return out


def _here(installed: dict[str, str]) -> str:
    return (" Installed here: " + ", ".join(f"{k} {v}" for k, v in installed.items()) + "."
            if installed else "")


def stated_version(parsed: ParsedError, package: str) -> str | None:
    return paste_versions(parsed.text).get(dist_key(package))


def installed_in_paste(parsed: ParsedError, package: str) -> str | None:
    """The release the paste installs (`pip install X==v`) or reports running (an environment
    block's `X` version: v), not one it merely mentions."""
    name = re.escape(pip_name(package)).replace("\\-", "[-_]")
    m = re.search(rf"pip install[^\n]*?\b{name}==(?P<v>\d[\w.]*)|^\W*`?{name}`? version:\s*"
                  rf"(?P<v2>\d[\w.]*)", parsed.text, re.I | re.M)
    return (m.group("v") or m.group("v2")) if m else None


def answer(cause_id: str, package: str, cause: str, fix: str, ev: dict,
           extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """A refine result: the cause id, cause (with the installed versions) and the fix."""
    inst = _installed(package, *extra)
    if inst:
        ev["installed"] = inst
    ev["package"] = pip_name(package)
    return {"id": cause_id, "cause": cause + _here(inst), "fix": fix}


# packages that build against the installed torch, so pip must not isolate the build
_NO_ISOLATION = frozenset({"flash-attn", "mamba-ssm", "causal-conv1d"})


def upgrade(package: str, version: str | None = None) -> str:
    spec = f"{pip_name(package)}>={version}" if version else pip_name(package)
    flag = " --no-build-isolation" if pip_name(package) in _NO_ISOLATION else ""
    return f'pip install -U "{spec}"{flag}'


def pin(package: str, version: str | None) -> str:
    version = _release(version)
    return f'pip install "{pip_name(package)}<{version}"' if version else \
        f"pip install <an older {pip_name(package)}>"


def _release(version: str | None) -> str | None:
    """'2.13.0+cpu' -> '2.13.0' (pip pins take the release part)."""
    m = re.match(r"\d+(?:\.\d+)*", version or "")
    return m.group(0) if m else None


def _direction(change: ApiChange, stated: str | None) -> str:
    """Too old (the name came later) or too new (a release removed it)."""
    if stated:
        if change.removed and version_lt(stated, change.removed) is False:
            return NEW
        if change.added and version_lt(stated, change.added):
            return OLD
        if change.removed and change.added and version_lt(stated, change.removed):
            return OLD
    return NEW if change.removed else OLD


# a release named as the one that brought a name, not the one that ran ("introduced in 4.5.0")
_BROUGHT = re.compile(r"\b(?:introduc\w*|added|availabl\w*|since|from|requires?|needs?|"
                      r"at least|minimum|newer|later|upgrad\w*)\b[^\n]{0,30}$", re.I)


def _has_it(change: ApiChange, stated: str | None, text: str) -> bool:
    """Whether the release the paste states it ran is one the table says has the name."""
    if not (stated and change.added and version_lt(stated, change.added) is False) or \
            change.removed and version_lt(stated, change.removed) is False:
        return False
    at = text.find(stated)
    return at >= 0 and not _BROUGHT.search(text[max(0, at - 60):at])


def answer_from_change(change: ApiChange, what: str, parsed: ParsedError, ev: dict,
                 importer: str | None = None) -> dict[str, Any]:
    """The answer for a name the API table knows (none for a library's use of another's internal:
    a library bug, see `removed_internal_user`)."""
    if change.private and removed_internal_user(parsed) is not None:
        return {"reject": True}
    stated = stated_version(parsed, change.package)
    direction = _direction(change, stated)
    pkg = change.package
    if direction == OLD and _has_it(change, stated, parsed.text):
        return {"reject": True}
    if direction == NEW:
        cause = (f"{what} was removed from {pkg} in {change.removed}"
                 + (f"; the code that uses it ({importer}) was written for an older {pkg}"
                    if importer else "; the code was written for an older release") + ".")
        fix = (f"{pin(pkg, change.removed)}   # or: {change.replacement}"
               if change.replacement else pin(pkg, change.removed))
        return answer(NEW, pkg, cause, fix, ev, (importer or "",))
    cause = (f"{what} exists only from {pkg} {change.added} on; the {pkg} that ran the code is "
             "older" + (f" than {importer} needs" if importer else "") + ".")
    here = installed_version(pkg)
    if here and change.added and version_lt(here, change.added) is False:
        cause += (f" The {pkg} installed here has it: the code ran in another "
                  "environment (another venv or notebook kernel), which needs the upgrade.")
    return answer(OLD, pkg, cause, upgrade(pkg, change.added), ev, (importer or "",))


_KWARG = re.compile(r"(?<![A-Za-z0-9_.])(?P<callee>[A-Za-z_][\w.]*)\(\) got an unexpected keyword "
                    r"argument ['\"](?P<arg>\w+)['\"]")


def internal_call_mismatch(parsed: ParsedError) -> str | None:
    """The package whose own code passes an argument by name to its own function, which does not
    take it: the innermost frame is that package's line naming `arg=`, and the callee is a class
    of the same package. A release is consistent with itself, so this is a bug, not a version
    question (a line that only forwards **kwargs passes the caller's arguments: not this)."""
    m = _KWARG.search(parsed.message or "")
    relevant = [f for f in parsed.frames if f.kind != "other"]
    if m is None or not relevant or not relevant[-1].is_library:
        return None
    owner_cls = m.group("callee").rpartition(".")[0]
    code = relevant[-1].code or ""
    caller = relevant[-1].package
    # the class's package: known, or named by the line itself ("sillm.Template(...)")
    qualified = re.search(rf"\b(\w+)(?:\.\w+)*\.{re.escape(owner_cls)}\s*\(", code) \
        if owner_cls else None
    owner = libclass(owner_cls) or (qualified.group(1) if qualified else None)
    named = re.search(rf"\b{re.escape(m.group('arg'))}\s*=", code)
    if owner and caller and named and dist_key(owner) == dist_key(top_of(caller)):
        return pip_name(owner)
    return None


_CAMEL_START = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def project_subclass(parsed: ParsedError) -> tuple[str, str, str, str] | None:
    """(project, class, base key, argument) when an unexpected keyword argument goes to a class
    that a project derives from a recorded library class by prefixing its own name (axolotl's
    `AxolotlGRPOConfig`, built on trl's `GRPOConfig`), and the paste neither defines that class
    nor calls it with the argument itself: the project's own code builds it. The project is the
    prefix when the paste names it elsewhere, else the innermost library frame of another
    package than the base's."""
    m = _KWARG.search(parsed.message or "") or _KWARG.search(parsed.text)
    if m is None:
        return None
    cls, arg = m.group("callee").removesuffix(".__init__").rpartition(".")[2], m.group("arg")
    if not cls[:1].isupper() or api_history.owner(cls) or \
            re.search(rf"^\s*class {re.escape(cls)}\b", parsed.text, re.M) or \
            re.search(rf"\b{re.escape(cls)}\((?:[^()]|\([^()]*\))*?\b{re.escape(arg)}\s*=",
                      parsed.text):
        return None
    for start in _CAMEL_START.finditer(cls):
        key = api_history.owner(cls[start.start():])
        if key is None:
            continue
        prefix = cls[:start.start()]
        named = re.search(rf"(?<![A-Za-z]){re.escape(prefix)}(?![A-Za-z])", parsed.text, re.I)
        other = importer_of(parsed, key.split(".", 1)[0])
        project = prefix.lower() if named else other
        return (pip_name(project), cls, key, arg) if project else None
    return None


# methods a framework calls on the subclasses libraries define (an optimizer's apply_gradients,
# a PEFT layer's update_layer): the framework adds arguments, the subclass must take them
_FRAMEWORK_CALLED = {"apply_gradients": "keras", "_resource_apply_dense": "keras",
                     "_resource_apply_sparse": "keras", "update_layer": "peft"}


def lagging_override(parsed: ParsedError) -> tuple[str, str, str] | None:
    """(function, argument, framework) when a library's own override of a framework method, or
    its patched-in replacement of one (named `Class_method`), does not take an argument the
    framework now passes. None when the paste defines that function itself (then it is yours)."""
    m = _KWARG.search(parsed.message or parsed.text)
    if m is None:
        return None
    callee, arg = m.group("callee").rpartition(".")[2], m.group("arg")
    if re.search(rf"^\s*def {re.escape(callee)}\s*\(", parsed.text, re.M):
        return None
    patched = re.fullmatch(r"(?P<cls>[A-Z][A-Za-z0-9]+)_(?P<meth>[a-z_]\w*)", callee)
    if patched and patched.group("meth") in _FRAMEWORK_CALLED:
        return callee, arg, _FRAMEWORK_CALLED[patched.group("meth")]
    if callee in _FRAMEWORK_CALLED:
        return callee, arg, _FRAMEWORK_CALLED[callee]
    return None


_PRIVATE_ARITY = re.compile(r"(?<![\w.])(?P<cls>[A-Z]\w{0,80})\.(?P<method>_[a-z]\w{0,80})\(\) takes "
                            r"(?P<takes>\d+) positional arguments? but (?P<given>\d+) (?:were|was) "
                            r"given")


def private_override_arity(parsed: ParsedError) -> tuple[str, str] | None:
    """(class, method) when a project's class overrides another library's private method (a
    Trainer's `_get_train_sampler`) and that library now calls it with more arguments: code that
    relied on an internal, which the paste does not define itself."""
    m = _PRIVATE_ARITY.search(parsed.message or "") or _PRIVATE_ARITY.search(parsed.text)
    if m is None or int(m.group("given")) <= int(m.group("takes")) or m.group("method") in HOOKS:
        return None                   # a documented hook (_prepare_inputs): a version question
    if re.search(rf"^\s*def {re.escape(m.group('method'))}\s*\(", parsed.text, re.M):
        return None
    return m.group("cls"), m.group("method")


_PRIVATE_CALL = re.compile(r"(?<![\w.])(?P<fn>_[A-Za-z]\w{0,80})\(\)(?: (?:missing \d+ required "
                           r"(?:positional|keyword-only) arguments?|takes (?:from )?\d+ (?:to \d+ )?"
                           r"positional arguments? but \d+ (?:were|was) given|got an unexpected "
                           r"keyword argument)|"
                           # a torch operator's binding: an argument of another type at a position
                           r": argument '\w+' \(position \d+\) must be [\w.]+, not \w+)")


def private_call_mismatch(parsed: ParsedError) -> tuple[str, str] | None:
    """(library, function) when a library's own line calls a private function, bare or through
    its module (`_flash_attn_forward(...)`, `torch._softmax_backward_data(...)`), with arguments
    its installed definition does not take (missing, extra, or of another type), not one of the
    user's functions: an internal whose signature changed under the library."""
    m = _PRIVATE_CALL.search(parsed.message or "")
    inner = parsed.frames[-1] if parsed.frames else None
    if m is None or inner is None or not inner.is_library or not inner.package:
        return None
    fn = m.group("fn")
    if not re.search(rf"(?<!\w){re.escape(fn)}\b", inner.code or "") or \
            any(f.is_user and f.function == fn for f in parsed.frames):
        return None
    return pip_name(inner.package), fn


_OWN_FILE = re.compile(r"No such file or directory: ['\"](?P<path>[^'\"\n]*?[/\\](?:site|dist)-packages"
                       r"[/\\](?P<pkg>[A-Za-z_]\w*)[/\\][^'\"\n]+)['\"]")


def own_data_file_missing(parsed: ParsedError) -> tuple[str, str] | None:
    """(package, path) when a package's own code opens a file inside its own installed folder
    that is not there: the release was packaged without it (or the install is incomplete)."""
    m = _OWN_FILE.search(parsed.message or "") or _OWN_FILE.search(parsed.text)
    if m is None:
        return None
    pkg = m.group("pkg")
    relevant = [f for f in parsed.frames if f.kind != "other"]
    if relevant and dist_key(relevant[-1].package or "") != dist_key(pkg):
        return None                   # another package's or the user's code asked for it
    return pip_name(pkg), m.group("path")


def importer_of(parsed: ParsedError, besides: str | None = None) -> str | None:
    """The library whose code raised (the innermost library frame), if any; with `besides`,
    the innermost library frame of another package than that one (who called into it)."""
    if besides is None:
        pkg = parsed.innermost_library_package
        return pip_name(pkg) if pkg else None
    for f in reversed(parsed.library_frames):
        if f.package and dist_key(f.package) != dist_key(besides):
            return pip_name(f.package)
    return None


_MISSING_NAME = re.compile(rf"No module (?:named|found) {QUOTE}(?P<module>[A-Za-z_][\w.]*){QUOTE}|"
                           rf"\b[Mm]odule {QUOTE}(?P<owner>[A-Za-z_][\w.]*){QUOTE} has no "
                           rf"attribute {QUOTE}(?P<attr>\w+)")
_HF_IMPORT = re.compile(r"^\W*(?:from|import)\s+(?P<lib>transformers|datasets|peft|trl|accelerate|"
                        r"sentence_transformers|deepspeed|diffusers)\b", re.M)


def removed_internal_user(parsed: ParsedError) -> tuple[str, ApiChange, str] | None:
    """(library, change, name) when a library used another package's internal that a release of
    that package removed: a library bug, not the user's version question (the internal was never
    promised; a public name removed after deprecation stays a version mismatch). The user is the
    innermost library frame of another package; with no such frame, the library the paste's own
    code imports from, when that code never names the internal itself."""
    m = _MISSING_NAME.search(parsed.text)
    if m is None:
        return None
    module, attr = m.group("module") or m.group("owner"), m.group("attr")
    change = ((api_change(attr, top_of(module)) or api_change(f"{module}.{attr}")) if attr
              else None) or api_change(module)
    if change is None or not change.private:
        return None
    name = f"{module}.{attr}" if attr else module
    for f in reversed(parsed.library_frames):
        if f.package and top_of(f.package) not in (top_of(module), top_of(change.package)):
            return pip_name(f.package), change, name
    if parsed.frames:
        return None
    used = re.search(rf"(?:from|import)\s+{re.escape(module)}\b", parsed.text) or \
        (attr and re.search(rf"\b{re.escape(attr)}\s*\(", parsed.text))
    lib = _HF_IMPORT.search(parsed.text)
    return (pip_name(lib.group("lib")), change, name) if lib and not used else None


_PRIVATE_MISSING = re.compile(
    rf"cannot import name {QUOTE}(?P<name>_[A-Za-z]\w*){QUOTE} from {QUOTE}(?P<module>[A-Za-z]\w*\.[\w.]+)"
    rf"{QUOTE}(?! \(unknown)|\b[Mm]odule {QUOTE}(?P<owner>[A-Za-z]\w*\.[\w.]+){QUOTE} has no attribute "
    rf"{QUOTE}(?P<attr>_[A-Za-z]\w*){QUOTE}")
# compiled extensions and their loaders: a build question, not a private name of Python code
_EXTENSION = re.compile(r"^_(?:C|\w*(?:_C|ext|lib|core|cuda|pywrap\w*|internal|imaging|umath))$")
_IMPORTS = re.compile(r"^\W*(?:from|import)\s+(?P<lib>[A-Za-z]\w*)", re.M)


_CANNOT_IMPORT = re.compile(rf"cannot import name {QUOTE}(?P<name>\w+){QUOTE} from {QUOTE}"
                            rf"(?P<module>[A-Za-z_][\w.]*){QUOTE}")


def import_within_declared(parsed: ParsedError) -> tuple[str, str, str] | None:
    """(name, package, release) when a name cannot be imported from a package whose release the
    paste states inside the supported range the project itself declares (a requirements line
    with both bounds): the project imports what a release it supports lacks, its own fault."""
    m = _CANNOT_IMPORT.search(parsed.text)
    if m is None:
        return None
    top = m.group("module").split(".")[0]
    release = stated_version(parsed, top)
    window = declared_window(parsed.text, pip_name(top)) if release else None
    if release is None or window is None or not within(release, window):
        return None
    return m.group("name"), pip_name(top), release


def foreign_private(parsed: ParsedError) -> tuple[str, str, str] | None:
    """(library, module, name) when an installed library uses a private (underscore) name of
    another package that the installed release of it lacks: the user's code never names it, and
    the code of another package reached for it (its frame, or the library the paste imports)."""
    m = _PRIVATE_MISSING.search(parsed.text)
    if m is None or "partially initialized" in parsed.text:
        return None
    module, name = m.group("module") or m.group("owner"), m.group("name") or m.group("attr")
    if _EXTENSION.match(name) or name.startswith("__"):
        return None
    rest = parsed.text.replace(m.group(0), "")
    for code in filter(None, (f.code for f in parsed.library_frames)):
        rest = rest.replace(code, "")  # a library's own line reaching for it is not the user's
    if re.search(rf"(?<![\w'\"`]){re.escape(name)}\b", rest):
        return None                   # the paste's own code (or another error line) names it
    top = top_of(module)
    for f in reversed(parsed.library_frames):
        if f.package and dist_key(top_of(f.package)) != dist_key(top):
            return None if _companions(f.package, top) else (pip_name(f.package), module, name)
    if parsed.library_frames and not any(f.package for f in parsed.library_frames):
        return None
    if parsed.frames and not parsed.library_frames:
        return None                   # the user's own frame reached for it
    libs = [g for g in _IMPORTS.findall(parsed.text) if dist_key(g) != dist_key(top)]
    if not libs or _companions(libs[0], top):
        return None                   # no library shown reaching for it (or a pair out of step)
    return pip_name(libs[0]), module, name


def _companions(a: str, b: str) -> bool:
    """Packages released in step by one project (unsloth and unsloth_zoo): a private name one
    lacks is the pair out of step (upgrade both), not one relying on the other's internals."""
    a, b = dist_key(top_of(a)), dist_key(top_of(b))
    return a.startswith(b + "-") or b.startswith(a + "-")


def fold_groups(ev: dict, keys: tuple[str, ...]) -> None:
    """Alternatives of one pattern name their groups pkg, pkg2, ...: fold them into pkg."""
    for k in keys:
        for alt in (f"{k}{n}" for n in range(2, 32)):
            if ev.get(k) in (None, "") and ev.get(alt) not in (None, ""):
                ev[k] = ev.pop(alt)


# words a message puts where a name goes ("requires the latest", "install them")
NOT_NAMES = frozenset({"the", "it", "a", "an", "latest", "this", "from", "with", "using", "them",
                   "version", "required", "all", "these", "that", "and", "or", "to", "package",
                   "packages", "dependencies", "again", "manually"})
