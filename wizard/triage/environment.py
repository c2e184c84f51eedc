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

import difflib
import re
from typing import Any

from wizard.triage import api_history
from wizard.triage.parse import ParsedError
from wizard.triage.python_syntax import refine_python_too_old
from wizard.triage.signature import Signature
from wizard.triage.versions import (
    ApiChange,
    api_change,
    argument_change,
    dist_key,
    installed_version,
    paste_versions,
    pip_name,
    satisfies,
    version_lt,
)

_Q = r"['\"`]?"                     # an optional quote around a name in a message
MISSING, OLD, NEW = "env-missing-package", "env-version-too-old", "env-version-too-new"
BINARY, SETUP = "env-binary-incompatible", "env-setup-step-skipped"
FAMILY = (MISSING, OLD, NEW, BINARY, SETUP)

LIBRARIES = frozenset({
    "transformers", "datasets", "tokenizers", "accelerate", "peft", "trl", "torch", "tensorflow",
    "tensorflow_core", "keras", "tf_keras", "numpy", "pyarrow", "huggingface_hub", "bitsandbytes",
    "sentence_transformers", "scipy", "sklearn", "pandas", "evaluate", "safetensors", "jax",
    "flax", "vllm", "deepspeed", "diffusers", "torchvision", "torchaudio", "sentencepiece",
    "tensorflow_hub", "tensorflow_text", "keras_nlp", "keras_hub", "unsloth", "optimum",
    "xformers", "flash_attn", "auto_gptq"})
_BACKENDS = {"TF": "tensorflow", "Flax": "flax"}
_HOME = {"PartialState": "accelerate", "Accelerator": "accelerate", "AcceleratorState": "accelerate",
         "load_dataset": "datasets", "Dataset": "datasets", "DatasetDict": "datasets",
         "hf_hub_download": "huggingface_hub", "snapshot_download": "huggingface_hub",
         "LoraConfig": "peft", "get_peft_model": "peft", "SFTTrainer": "trl",
         "DPOTrainer": "trl"}
_HOOKS = frozenset({"compute_loss", "training_step", "prediction_step", "evaluation_loop",
                    "train_step", "test_step", "predict_step", "call", "get_train_dataloader",
                    "get_eval_dataloader", "create_optimizer", "create_scheduler", "log",
                    "_save", "save_model", "compute_metrics", "on_step_end", "on_log",
                    "on_evaluate", "on_epoch_end", "_prepare_inputs"})
_LIB_CLASS = [
    (re.compile(r"^(?:Peft|Lora|LoRA|AdaLora|IA3|LoHa|LoKr|Vera|Boft|Prefix|Prompt)\w*$"), "peft"),
    (re.compile(r"^(?:SFT|DPO|PPO|PPOv2|RLOO|KTO|ORPO|CPO|GRPO|BCO|GKD|Reward|Online\w*|XPO|"
                r"Nash\w*)(?:Trainer|Config)$"), "trl"),
    (re.compile(r"^(?:EngineArgs|AsyncEngineArgs|LLM|SamplingParams)$"), "vllm"),
    (re.compile(r"^(?:Accelerator|PartialState|AcceleratorState)$"), "accelerate"),
    (re.compile(r"^(?:Dataset|DatasetDict|IterableDataset|BuilderConfig|DatasetBuilder|"
                r"Features)$"), "datasets"),
    (re.compile(r"^(?:Trainer|Seq2SeqTrainer|TrainingArguments|Seq2SeqTrainingArguments|"
                r"PreTrainedModel|PretrainedConfig|[A-Z]\w*(?:Config|TokenizerFast|Tokenizer|"
                r"Model|Pipeline|Processor|FeatureExtractor|Collator\w*)|[A-Z]\w*For[A-Z]\w*)$"),
     "transformers"),
]
_HF_NAMED = re.compile(r"\b(?:transformers?|datasets|tokenizers|accelerate|peft|trl|keras|"
                       r"SentenceTransformer|"
                       r"tensorflow|torch|diffusers|sentence.transformers|from_pretrained|"
                       r"TrainingArguments|Trainer|AutoModel\w*|AutoTokenizer|LoraConfig)\b",
                       re.I)
_USER_CLASS = re.compile(r"^(?:Custom|My|Our|New)|Custom|Wrapper$")


def _libclass(name: str) -> str | None:
    return next((pkg for rx, pkg in _LIB_CLASS if rx.match(name or "")), None)


def _top(module: str) -> str:
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


def _stated(parsed: ParsedError, package: str) -> str | None:
    return paste_versions(parsed.text).get(dist_key(package))


def _installed_in_paste(parsed: ParsedError, package: str) -> str | None:
    """The release the paste installs (`pip install X==v`) or reports running (an environment
    block's `X` version: v), not one it merely mentions."""
    name = re.escape(pip_name(package)).replace("\\-", "[-_]")
    m = re.search(rf"pip install[^\n]*?\b{name}==(?P<v>\d[\w.]*)|^\W*`?{name}`? version:\s*"
                  rf"(?P<v2>\d[\w.]*)", parsed.text, re.I | re.M)
    return (m.group("v") or m.group("v2")) if m else None


def _answer(cause_id: str, package: str, cause: str, fix: str, ev: dict,
            extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """A refine result: the cause id, cause (with the installed versions) and the fix."""
    inst = _installed(package, *extra)
    if inst:
        ev["installed"] = inst
    ev["package"] = pip_name(package)
    return {"id": cause_id, "cause": cause + _here(inst), "fix": fix}


def _upgrade(package: str, version: str | None = None) -> str:
    spec = f"{pip_name(package)}>={version}" if version else pip_name(package)
    return f'pip install -U "{spec}"'


def _pin(package: str, version: str | None) -> str:
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


def answer_from_change(change: ApiChange, what: str, parsed: ParsedError, ev: dict,
                 importer: str | None = None) -> dict[str, Any]:
    """The answer for a name the API table knows (none for a library's use of another's internal:
    a library bug, see `removed_internal_user`)."""
    if change.private and removed_internal_user(parsed) is not None:
        return {"reject": True}
    direction = _direction(change, _stated(parsed, change.package))
    pkg = change.package
    if direction == NEW:
        cause = (f"{what} was removed from {pkg} in {change.removed}"
                 + (f"; the code that uses it ({importer}) was written for an older {pkg}"
                    if importer else "; the code was written for an older release") + ".")
        fix = (f"{_pin(pkg, change.removed)}   # or: {change.replacement}"
               if change.replacement else _pin(pkg, change.removed))
        return _answer(NEW, pkg, cause, fix, ev, (importer or "",))
    cause = (f"{what} exists only from {pkg} {change.added} on; the {pkg} that ran the code is "
             "older" + (f" than {importer} needs" if importer else "") + ".")
    here = installed_version(pkg)
    if here and change.added and version_lt(here, change.added) is False:
        cause += (f" The {pkg} installed here has it: the code ran in another "
                  "environment (another venv or notebook kernel), which needs the upgrade.")
    return _answer(OLD, pkg, cause, _upgrade(pkg, change.added), ev, (importer or "",))


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
    owner, caller = _libclass(owner_cls), relevant[-1].package
    named = re.search(rf"\b{re.escape(m.group('arg'))}\s*=", relevant[-1].code or "")
    if owner and caller and named and dist_key(owner) == dist_key(_top(caller)):
        return pip_name(owner)
    return None


def _importer(parsed: ParsedError, besides: str | None = None) -> str | None:
    """The library whose code raised (the innermost library frame), if any; with `besides`,
    the innermost library frame of another package than that one (who called into it)."""
    if besides is None:
        pkg = parsed.innermost_library_package
        return pip_name(pkg) if pkg else None
    for f in reversed(parsed.library_frames):
        if f.package and dist_key(f.package) != dist_key(besides):
            return pip_name(f.package)
    return None


_MISSING_NAME = re.compile(rf"No module (?:named|found) {_Q}(?P<module>[A-Za-z_][\w.]*){_Q}|"
                           rf"\b[Mm]odule {_Q}(?P<owner>[A-Za-z_][\w.]*){_Q} has no attribute "
                           rf"{_Q}(?P<attr>\w+)")
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
    change = ((api_change(attr, _top(module)) or api_change(f"{module}.{attr}")) if attr
              else None) or api_change(module)
    if change is None or not change.private:
        return None
    name = f"{module}.{attr}" if attr else module
    for f in reversed(parsed.library_frames):
        if f.package and _top(f.package) not in (_top(module), _top(change.package)):
            return pip_name(f.package), change, name
    if parsed.frames:
        return None
    used = re.search(rf"(?:from|import)\s+{re.escape(module)}\b", parsed.text) or \
        (attr and re.search(rf"\b{re.escape(attr)}\s*\(", parsed.text))
    lib = _HF_IMPORT.search(parsed.text)
    return (pip_name(lib.group("lib")), change, name) if lib and not used else None


def _fold(ev: dict, keys: tuple[str, ...]) -> None:
    """Alternatives of one pattern name their groups pkg, pkg2, ...: fold them into pkg."""
    for k in keys:
        for alt in (f"{k}{n}" for n in range(2, 10)):
            if ev.get(k) in (None, "") and ev.get(alt) not in (None, ""):
                ev[k] = ev.pop(alt)


# ---------------------------------------------------------------------------------------------
# refine functions, one per rule
# ---------------------------------------------------------------------------------------------
def refine_no_module(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    module = str(ev.get("module", "")).strip(".")
    top = _top(module)
    parts = module.split(".")
    if not module:
        return {"reject": True}
    if module == "numpy._core" or module.startswith("numpy._core."):
        return _answer(OLD, "numpy", "The data or model was saved with NumPy 2, and the installed "
                       "NumPy 1.x cannot unpickle it (numpy._core is NumPy 2's module).",
                       _upgrade("numpy", "2"), ev)
    if (len(parts) > 1 and (parts[-1] == "_C" or parts[-1] == parts[0]
                            or parts[-1].startswith("_multiarray"))):
        return _answer(BINARY, top, f"{module} is the compiled extension of {top}; it is missing or "
                       "was built for another Python or platform (a source tree or another "
                       "interpreter's install shadows the wheel).",
                       f"pip install --force-reinstall --no-cache-dir {pip_name(top)}   "
                       "# with the pip of the Python that runs the code", ev)
    change = api_change(module)
    if change is not None:
        return answer_from_change(change, f"The module {module}", parsed, ev, _importer(parsed))
    if len(parts) > 1 and top in LIBRARIES:
        if ".models." in f".{module}." and top == "transformers":
            return _answer(OLD, top, f"{module} is a model the installed transformers does not "
                           "have yet (it was added in a later release).", _upgrade(top), ev)
        importer = _importer(parsed)
        return _answer(NEW, top, f"{module} is no longer a module of the installed {top}: a "
                       f"release moved or removed it, and the code importing it "
                       f"({importer or 'yours'}) was written for an older {top}.",
                       f"{_upgrade(importer) if importer and importer != pip_name(top) else ''}"
                       f"{'   # or: ' if importer and importer != pip_name(top) else ''}"
                       f"pip install \"{pip_name(top)}<{installed_version(top) or 'the version it was written for'}\"",
                       ev, (importer or "",))
    pkg = pip_name(module)
    cause = f"The package {pkg} is not installed in the Python environment that runs the code."
    if top in ("torch", "tensorflow", "flax", "jax"):
        cause += " transformers needs it for the model classes of that framework."
    if installed_version(module):
        cause += (f" It is installed here, so the code ran with another interpreter (a notebook "
                  "kernel or venv other than this one): install it with that Python's pip.")
        return _answer(MISSING, module, cause, f"python -m pip install {pkg}   # with the python "
                       "that runs the code; then restart the kernel", ev)
    return _answer(MISSING, module, cause, f"pip install {pkg}   # then restart the runtime", ev)


def refine_cannot_import(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    name, module = str(ev.get("name", "")), str(ev.get("module", "") or "")
    if not module:                    # "cannot import name 'X'": the paste's own import line
        m = re.search(rf"from\s+([\w.]+)\s+import\s+[^\n]*\b{re.escape(name)}\b", parsed.text)
        module = m.group(1) if m else ""
        ev["module"] = module or None
    top = _top(module) if module else ""
    if not name:
        return {"reject": True}
    if "unknown location" in str(ev.get("loc", "")) and top in LIBRARIES and top != "transformers":
        pkg = pip_name(top)
        return {"id": "broken-package-install",
                "cause": f"Python found {top} only as a folder without its package files (a "
                         f"namespace package, hence 'unknown location'): the {pkg} install is "
                         f"broken, or a folder named {top} in the working directory shadows it.",
                "fix": f'python -c "import {top}; print({top}.__path__)"   # where it is found\n'
                       f"pip uninstall -y {pkg} && pip install --no-cache-dir {pkg}"}
    change = api_change(name, pip_name(top) if top else None) or api_change(f"{module}.{name}")
    if change is not None and change.removed and not change.added and \
            version_lt(_installed_in_paste(parsed, change.package), change.removed):
        change = None                 # the paste's release still had it: something else
    home = _HOME.get(name) or _libclass(name)
    if home and top and top != home and top in LIBRARIES and not (change and change.removed):
        ev["home"] = home
        return {"id": "wrong-import-path",
                "cause": f"{name} belongs to {home}, not to {module}.",
                "fix": f"from {home} import {name}"}
    prefix = next((p for p in _BACKENDS if name.startswith(p) and name[len(p):len(p) + 1]
                   .isupper()), None) if top == "transformers" else None
    if prefix and change is not None and change.removed == "5.0.0":
        change = None                 # transformers 4 exports them only beside their backend
    if change is None and module:
        change = api_change(module)
    if change is not None:
        return answer_from_change(change, f"{name} ({module or change.package})", parsed, ev,
                            _importer(parsed))
    if top == "transformers":
        tf_ver = _stated(parsed, "tensorflow")
        if prefix and version_lt(_stated(parsed, "transformers"), "5.0.0") is False:
            return _answer(NEW, "transformers", f"transformers 5 removed its {prefix} classes; "
                           f"{name} exists only in transformers 4.", _pin("transformers", "5"),
                           ev)
        if prefix == "TF" and tf_ver and version_lt(tf_ver, "2.3.0"):
            return _answer(OLD, "tensorflow", f"transformers exports its TF classes ({name}) only "
                           f"with TensorFlow >= 2.3; TensorFlow {tf_ver} is too old.",
                           _upgrade("tensorflow", "2.3"), ev, ("transformers",))
        if prefix:
            backend = _BACKENDS[prefix]
            return _answer(MISSING, backend, f"transformers exports {name} only when {backend} is "
                           f"installed in the same environment, and it is not (or not "
                           "importable).", f"pip install {backend}   # then restart the runtime",
                           ev, ("transformers",))
        if "unknown location" in str(ev.get("loc", "")):
            return _answer(MISSING, "torch", f"transformers exports its PyTorch objects ({name}) "
                           "only when PyTorch is installed in the same environment.",
                           "pip install torch   # or: pip install 'transformers[torch]'", ev,
                           ("transformers",))
    if not top or top not in LIBRARIES | {_top(k) for k in ("sentence_transformers",)}:
        if not top and parsed.innermost_library_package is None:
            return {"reject": True}
    pkg = (module if module and top not in LIBRARIES else top) or \
        parsed.innermost_library_package or ""
    if not pkg:
        return {"reject": True}
    importer = _importer(parsed)
    who = importer if importer and importer != pip_name(pkg) else "the code"
    return _answer(OLD, pkg, f"{name} is not in the installed {pip_name(pkg)}: {who} needs a "
                   f"newer release (names are added over releases; if {name} was removed "
                   "instead, pin the release the code was written for).", _upgrade(pkg), ev,
                   (importer or "",))


def refine_import_line(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The paste's own import line takes a class from a library it does not belong to, and the
    paste says the import fails (the error line itself may be missing)."""
    name, module = str(ev.get("name", "")), str(ev.get("module", ""))
    home = _HOME.get(name) or _libclass(name)
    top = _top(module)
    failed = re.search(r"ImportError|can(?:no|')t import|can not import|unable to import|"
                       r"fail(?:s|ed)? to import", parsed.text, re.I)
    if not failed or not home or top not in LIBRARIES or dist_key(top) == dist_key(home):
        return {"reject": True}
    ev["home"] = home
    return {"id": "wrong-import-path", "cause": f"{name} belongs to {home}, not to {module}.",
            "fix": f"from {home} import {name}"}


def refine_module_attribute(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    module, name = str(ev.get("module", "")), str(ev.get("name", ""))
    top = _top(module)
    if top not in LIBRARIES:
        return {"reject": True}
    change = api_change(name, pip_name(top)) or api_change(f"{module}.{name}") or \
        api_change(module)
    if change is None and top in ("keras", "tensorflow"):
        change = api_change(name, "tensorflow")
    importer = _importer(parsed)
    if change is not None:
        return answer_from_change(change, f"{module}.{name}", parsed, ev, importer)
    if ev.get("kind") == "type" and "." not in module:
        return {"reject": True}
    private = name.startswith("_") or any(p.startswith("_") for p in module.split(".")[1:])
    if private and (not importer or importer == pip_name(top)) and \
            not re.search(rf"(?<!has no attribute ){_Q}{re.escape(name)}\b",
                          parsed.text.replace(f"attribute '{name}'", "")):
        return {"reject": True}       # the library's own private module: see library.py
    if private and importer and importer != pip_name(top):
        return _answer(NEW, top, f"{importer} uses {module}.{name}, an internal of {top} that a "
                       f"newer {top} moved or removed.", f"{_upgrade(importer)}   # or: "
                       f"{_pin(top, installed_version(top))}", ev, (importer,))
    return _answer(OLD, top, f"{module} has no {name} in the installed {pip_name(top)}: the code "
                   "(or a library that uses it) needs a newer release.", _upgrade(top), ev,
                   (importer or "",))


# arguments of the APIs fine-tuning calls most (TrainingArguments, from_pretrained, the tokenizer,
# LoraConfig, SFTConfig, Keras compile/fit): a near miss of one of them is a typo, not a version
_COMMON_ARGS = (
    "output_dir", "learning_rate", "num_train_epochs", "per_device_train_batch_size",
    "per_device_eval_batch_size", "gradient_accumulation_steps", "weight_decay", "warmup_steps",
    "warmup_ratio", "logging_steps", "save_steps", "eval_steps", "save_strategy",
    "eval_strategy", "evaluation_strategy", "logging_dir", "load_best_model_at_end",
    "metric_for_best_model", "save_total_limit", "max_steps", "lr_scheduler_type", "fp16",
    "bf16", "gradient_checkpointing", "report_to", "push_to_hub", "remove_unused_columns",
    "label_names", "seed", "max_grad_norm", "optim", "dataloader_num_workers",
    "num_labels", "id2label", "label2id", "torch_dtype", "device_map", "trust_remote_code",
    "ignore_mismatched_sizes", "cache_dir", "revision", "token", "quantization_config",
    "truncation", "padding", "max_length", "return_tensors", "add_special_tokens",
    "is_split_into_words", "return_offsets_mapping", "stride", "r", "lora_alpha",
    "lora_dropout", "target_modules", "task_type", "bias", "modules_to_save",
    "dataset_text_field", "max_seq_length", "packing", "optimizer", "loss", "metrics",
    "epochs", "batch_size", "validation_data", "callbacks", "train_dataset", "eval_dataset",
    "data_collator", "compute_metrics", "tokenizer", "processing_class", "max_new_tokens",
    "do_sample", "temperature", "top_p", "top_k", "num_beams")


def _typo_of(arg: str) -> str | None:
    """The common argument `arg` is a near miss of (not a name of its own), or None."""
    if arg in _COMMON_ARGS or len(arg) < 4:
        return None
    close = difflib.get_close_matches(arg, _COMMON_ARGS, n=1, cutoff=0.85)
    return close[0] if close else None


# the reporter asks a project's authors which release they ran (their code, not the user's)
_AUTHORS_VERSION = re.compile(r"\b(?:which|what) version of `?[\w-]+`? (?:did |do )?you (?:use|used|"
                              r"run)|\bversion of `?[\w-]+`? you used\b|not (?:mentioned|listed|"
                              r"pinned) in (?:the )?requirements", re.I)


def refine_unexpected_kwarg(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    callee, arg = str(ev.get("callee", "")), str(ev.get("arg", ""))
    if internal_call_mismatch(parsed):
        return {"reject": True}       # the library's own call: see library.py
    owner_cls, _, method = callee.rpartition(".")
    if method == "forward" and arg in ("labels", "label", "label_ids") and _base_model(owner_cls,
                                                                                 parsed):
        return {"id": "model-class-without-head",
                "cause": f"The batch carries {arg}, and {owner_cls or 'the model'}.forward() takes "
                         "none: a base model without a task head (AutoModel) or your own forward "
                         "cannot compute a loss from labels in any release.",
                "fix": "model = AutoModelForSequenceClassification.from_pretrained(name, "
                       "num_labels=N)   # a class with the task's head\n# or: def forward(self, "
                       "input_ids, attention_mask=None, labels=None): ... compute the loss"}
    if not owner_cls:
        method = callee
        if callee == "__init__":      # the class of the call that passes the argument
            m = re.search(rf"(?<![\w.])(?P<cls>[A-Z]\w*)\([^()]*?\b{re.escape(arg)}\s*=", parsed.text)
            owner_cls = m.group("cls") if m else ""
    owner = _libclass(owner_cls) if owner_cls else None
    change = (api_change(arg, owner) if owner else api_change(arg)) or \
        argument_change(owner_cls or callee, arg)
    typo = _typo_of(arg) if change is None else None
    cls = owner_cls.rpartition(".")[2]
    name = cls if method == "__init__" else callee     # the class, or the function called
    key = api_history.owner(name) if name else None
    if typo is None and change is None and key and api_history.kwarg_in_no_release(key, arg):
        cls = name
        if _AUTHORS_VERSION.search(parsed.text):
            pkg = pip_name(key.split(".", 1)[0])
            return {"id": "requires-forked-package",
                    "cause": f"No release of {pkg} gives {cls} the argument {arg}: the project's "
                             f"code was written against a modified {pkg} (a fork or a copy it "
                             "ships), not the one on PyPI.",
                    "fix": f"pip uninstall {pkg}   # then install the project's own copy, e.g.\n"
                           f"pip install -e ./{pkg}   # or the fork its README or requirements name"}
        return {"id": "invalid-config-argument",
                "cause": f"{arg} is not an argument of {cls} in any release (misspelt, invented or "
                         "taken from another class): no upgrade or pin makes it valid.",
                "fix": f"{cls}(...)   # drop {arg}; see help({cls}) for the arguments it takes"}
    if typo is not None:
        ev["did_you_mean"] = typo
        return {"id": "misspelt-argument",
                "cause": f"{arg} is not an argument of {callee}() in any release: it is a "
                         f"misspelling of {typo}.",
                "fix": f"{callee}(..., {typo}=...)   # not {arg}"}
    if arg == "token_type_ids" and method in ("forward", "call", "__call__"):
        return {"id": "unsupported-token-type-ids",
                "cause": "The model has no segment (token type) embeddings (DistilBERT, RoBERTa-"
                         "style, BART, T5, decoder LLMs), so its forward takes no token_type_ids; "
                         "code or a tokenizer written for BERT passes them.",
                "fix": "batch.pop('token_type_ids', None)   # or: tokenizer(..., "
                       "return_token_type_ids=False)"}
    caller = _importer(parsed, owner) if owner else _importer(parsed)
    if not owner_cls and caller is not None and change is None and _your_function(callee, parsed):
        return {"id": "callback-signature-mismatch",
                "cause": f"{caller} calls your function {callee}() with the keyword argument "
                         f"{arg}, which its signature does not declare: a function handed to a "
                         f"library must accept the arguments the library passes.",
                "fix": f"def {callee}(..., **kwargs):   # accept {arg} and the other keywords "
                       f"{caller} passes"}
    if owner_cls and owner is None and (method in _HOOKS or _USER_CLASS.search(owner_cls) or
                                        re.search(r"trainer$", owner_cls, re.I)):
        pkg = caller or (change.package if change else "transformers")
        note = f" (added in {pkg} {change.added})" if change and change.added else ""
        return _answer(NEW, pkg, f"{pkg} now calls your override {callee}() with the new "
                       f"argument {arg}{note}; the override has the older signature.",
                       (change.replacement if change and change.replacement else
                        f"def {method}(self, ..., {arg}=None, **kwargs):  # accept the new "
                        "argument") + f"\n# or: {_pin(pkg, change.added if change else None)}",
                       ev)
    if owner is None and caller is None and change is None and not _HF_NAMED.search(parsed.text):
        return {"reject": True}           # a function of the user's own code
    if change is not None and (owner is None or dist_key(change.package) == dist_key(owner)):
        return answer_from_change(change, f"The argument {arg} of {callee}()", parsed, ev, caller)
    pkg = owner or caller or ""
    if owner and caller and dist_key(caller) != dist_key(owner):
        return _answer(OLD, owner, f"{caller} passes {arg} to {callee}(), which the installed "
                       f"{owner} does not have: {owner} is older than {caller} needs.",
                       f'pip install "{caller}[{owner}]"   # the {owner} version {caller} pins\n'
                       f"# or: {_upgrade(owner)}", ev, (caller,))
    if not pkg:
        mentioned = [k for k in paste_versions(parsed.text) if k in
                     ("transformers", "trl", "peft", "datasets", "accelerate", "tokenizers")]
        pkg = mentioned[0] if mentioned else ""
    if not pkg and method != "forward":
        return _answer(OLD, "", f"{callee}() has no argument {arg} in the installed release: "
                       "the code follows the documentation of a newer release.",
                       "pip install -U <the package of " + callee + ">", ev)
    pkg = pkg or "transformers"
    return _answer(OLD, pkg, f"{callee}() has no argument {arg} in the installed {pip_name(pkg)}:"
                   " the code follows the documentation of a newer release (check the version "
                   "the docs are for).", _upgrade(pkg), ev)


def _base_model(owner_cls: str, parsed: ParsedError) -> bool:
    """Whether the model is a base model without a task head (BertModel, AutoModel): the class
    named in the error, else the class the paste loads; a class with a head (...ForMaskedLM)
    takes labels, so an error there is about its release."""
    if owner_cls:
        return bool(re.fullmatch(r"[A-Z]\w*Model", owner_cls)) and "For" not in owner_cls
    text = parsed.text
    return bool(re.search(r"\b(?:AutoModel|[A-Z]\w*(?<!For)Model)\.from_pretrained", text)) and \
        not re.search(r"\b\w+For[A-Z]\w*\.from_pretrained", text)


def _your_function(name: str, parsed: ParsedError) -> bool:
    """Whether the paste shows `name` as a function of the user's code: defined there, handed
    to a library as a value (reward_funcs=[name], compute_metrics=name), or called by library
    code through a variable (the library's line calls `reward_func(...)`, not `name(...)`)."""
    if name.startswith("_") or name in _HOOKS or name in ("forward", "generate"):
        return False                  # a method of a model or trainer, not a free function
    n = re.escape(name)
    lib = [f for f in parsed.frames if f.kind != "other"]
    code = lib[-1].code or "" if lib and lib[-1].is_library else ""
    if code and re.search(r"(?<![\w.])[a-z_]\w*\(", code) and not re.search(rf"\b{n}\(", code):
        return True
    return bool(re.search(rf"^\s*def {n}\s*\(|\w+\s*=\s*\[?[^\n=]*?(?<![\w.]){n}\s*[,\])\n]",
                          parsed.text, re.M))


def refine_keras_kwargs(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    arg = str(ev.get("arg", ""))
    change = api_change(arg, "keras")
    return _answer(NEW, "keras", f"Keras 3 (TensorFlow >= 2.16) no longer accepts {arg}"
                   f"{' in ' + str(ev['callee']) if ev.get('callee') else ''}; the code was "
                   "written for Keras 2.",
                   (f"# {change.replacement}\n" if change else "") +
                   'pip install "tf-keras~=2.16"  # Keras 2, with: export TF_USE_LEGACY_KERAS=1',
                   ev, ("tensorflow",))


def refine_requires_version(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    _fold(ev, ("pkg", "low"))
    pkg = str(ev.get("pkg", "")).strip("`'\"")
    low = str(ev.get("low", "") or "")
    high = str(ev.get("high", "") or "")
    if not pkg or pkg.lower() in ("python", "the", "a"):
        return {"reject": True}
    found = ev.get("found") or ev.get("found2") or _stated(parsed, pkg)
    found = str(found) if found else None
    if found and high and version_lt(found, high) is False:
        return _answer(NEW, pkg, f"{pip_name(pkg)} {found} is newer than the code supports "
                       f"(< {high}).", _pin(pkg, high), ev)
    if found and low and version_lt(found, low) is False:
        return _answer(SETUP, pkg, f"{pip_name(pkg)} {found} satisfies >= {low}, but the running "
                       "Python still has the old version loaded: the runtime was not restarted "
                       "after pip install.", "# restart the runtime / kernel, then re-run "
                       "(Colab: Runtime > Restart session)", ev)
    fix = (f'pip install "{pip_name(pkg)}>={low},<{high}"' if low and high  # keep the upper bound
           else _upgrade(pkg, low or None))
    return _answer(OLD, pkg, f"{pip_name(pkg)} is older than required (>= {low}"
                   + (f", < {high}" if high else "") + ")." if low
                   else f"{pip_name(pkg)} is older than required.",
                   fix + "   # then restart the runtime", ev)


def refine_requires_package(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    _fold(ev, ("pkg",))
    pkg = str(ev.get("pkg", "")).strip("`'\".,")
    if not re.fullmatch(r"[A-Za-z][\w.\[\]-]{1,40}", pkg) or pkg.lower() in _STOP:
        return {"reject": True}
    return _answer(MISSING, pkg, f"The optional package {pip_name(pkg)} is needed for this "
                   "feature and is not installed.", f"pip install {pip_name(pkg)}   # then "
                   "restart the runtime", ev)


_STOP = frozenset({"the", "it", "a", "an", "latest", "this", "from", "with", "using", "them",
                   "version", "required", "all", "these", "that", "and", "or", "to", "package",
                   "packages", "dependencies", "again", "manually"})


def refine_name_not_defined(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    _fold(ev, ("name",))
    name = str(ev.get("name", "")).replace(" ", "")
    home = _HOME.get(name) or _libclass(name)
    change = api_change(name, home) if home else None
    if change is None:
        return {"reject": True}
    return _answer(OLD, change.package, f"{name} is imported only when {change.package} >= "
                   f"{change.added} is installed; an older (or missing) {change.package} leaves "
                   "it undefined.", _upgrade(change.package, change.added) +
                   "   # then restart the runtime", ev)


def refine_binary(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    text = parsed.text
    if re.search(r"numpy|_ARRAY_API|multiarray", text, re.I):
        return _answer(BINARY, "numpy", "A compiled package was built against NumPy 1.x and NumPy 2 "
                       "is installed (or the other way round).",
                       'pip install "numpy<2"   # or upgrade the package built for NumPy 1', ev)
    lib = re.search(r"(?:site|dist)-packages[/\\](?P<pkg>[\w-]+)", text)
    pkg = lib.group("pkg") if lib else (parsed.innermost_library_package or "torch")
    pkg = re.sub(r"(?:_\d+)?_(?:cuda|cpu|C|ext|lib)$", "", pkg)   # flash_attn_2_cuda -> flash_attn
    return _answer(BINARY, pkg, f"The compiled code of {pip_name(pkg)} does not match the installed "
                   "libraries it links against (torch / CUDA / the C library): it was built for "
                   "other versions.", f"pip install --force-reinstall --no-cache-dir "
                   f"{pip_name(pkg)}   # a build matching the installed torch/CUDA", ev, ("torch",))


def refine_bnb(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    text = parsed.text
    if re.search(r"[A-Z]:\\|\.dll\b|windows", text, re.I):
        return _answer(OLD, "bitsandbytes", "bitsandbytes before 0.43 has no Windows CUDA build: "
                       "it falls back to the CPU library.", _upgrade("bitsandbytes", "0.43.0"),
                       ev, ("torch",))
    if re.search(r"/Users/|darwin|\.dylib|mac ?os|apple|\bM[1-4]\b|\bmps\b", text, re.I) or \
            re.search(r"No GPU found|GPU is (?:needed|required) for quantization", text, re.I):
        return {"id": "bnb-requires-cuda-gpu",
                "cause": "bitsandbytes quantization and 8-bit optimizers need an NVIDIA CUDA GPU; "
                         "this machine has none (Apple Silicon/MPS and CPU are not supported by "
                         "this bitsandbytes).",
                "fix": "# run the quantized (QLoRA) training on a CUDA machine, or here load the "
                       "model without BitsAndBytesConfig (e.g. torch_dtype=torch.float16 on mps)"}
    return _answer(BINARY, "bitsandbytes", "bitsandbytes did not find a CUDA runtime matching its "
                   "binaries, so it loaded the CPU build.",
                   "python -m bitsandbytes   # shows which CUDA it found\n"
                   "pip install -U bitsandbytes", ev, ("torch",))


def refine_tokenizer_class(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    cls = str(ev.get("cls", ""))
    if re.search(r"[A-Z]{2,}[a-z]", cls.replace("Tokenizer", "")) and not cls.startswith(
            ("GPT", "XLM", "MBart", "BERT", "T5", "CLIP", "LED", "MPNet", "RoBERTa")):
        return {"id": "stale-tokenizer-class-name",
                "cause": f"The checkpoint's tokenizer_config.json names {cls}, a class name no "
                         "transformers release has (a checkpoint converted with a pre-release).",
                "fix": "# edit tokenizer_config.json: \"tokenizer_class\": \"<the released class, "
                       "e.g. LlamaTokenizer>\"\n# or load the tokenizer class directly"}
    return _answer(OLD, "transformers", f"{cls} is named in the checkpoint's tokenizer_config.json "
                   "but the installed transformers does not have it (it was added in a later "
                   "release, or sentencepiece/tokenizers it needs is missing).",
                   _upgrade("transformers") + "   # and: pip install sentencepiece", ev)


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
    return _answer(OLD, "transformers", f"The checkpoint's model_type '{model_type}' is not in "
                   "the installed transformers: the architecture was added in a later release.",
                   _upgrade("transformers"), ev)


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


_NAMED_IDENT = re.compile(r"`(?P<a>[a-z_][a-z0-9_]{3,})`|\b(?P<b>[a-z_][a-z0-9_]{3,})\s*=(?!=)")


def refine_release_removed(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The paste names a release and an argument (in backticks, or passed as a keyword) that
    this very release took out of one of the package's classes: the code predates it."""
    pkg, version = str(ev.get("pkg", "")), str(ev.get("ver", ""))
    minor = ".".join(version.split(".")[:2])
    names = {m.group("a") or m.group("b") for m in _NAMED_IDENT.finditer(parsed.text)}
    def named(key: str) -> bool:      # the paste names the class or its Trainer/Config pair
        stem = re.sub(r"(?:Trainer|Config)$", "", key.rsplit(".", 1)[-1])
        return bool(stem) and re.search(rf"\b{re.escape(stem)}(?:Trainer|Config)\b",
                                        parsed.text) is not None

    for key in sorted(api_history.callables(pkg), key=lambda k: not named(k)):
        for name in sorted(names):
            change = argument_change(key, name)
            if change and change.removed and change.removed.startswith(minor + "."):
                cls = key.rsplit(".", 1)[-1]
                ev.update(name=name, callable=cls)
                fix = _pin(change.package, change.removed)
                if change.replacement:
                    fix += f"   # or: {change.replacement}"
                return _answer(NEW, change.package, f"{change.package} {change.removed} took "
                               f"{name} out of {cls}; the code was written for an older release.",
                               fix, ev)
    return {"reject": True}


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
            return _answer(OLD if old else NEW, dep,
                           f"{pkg} {stated[pkg]} requires {dep}{spec}, and the paste runs {dep} "
                           f"{have}: the two were installed separately (--no-deps, conda, a "
                           f"second pip install of one of them).",
                           f'pip install "{dep}{spec}"   # or: pip install -U {pkg} {dep}, '
                           "together", ev)
    return {"reject": True}


def _sig(rule_id: str, family: str, pattern: str, cause: str, fix: str, refine: Any = None,
         priority: int = 15, title: str = "", probes: tuple[str, ...] = ()) -> Signature:
    return Signature(rule_id, pattern, cause,
                     "The error comes from the installation (packages, versions, builds or a "
                     "setup step), not from the code, the data or the hyperparameters.",
                     list(probes) or ["environment.package-versions"], fix, title=title or cause,
                     priority=priority, refine=refine, family=family)


ENV_SIGNATURES: list[Signature] = [
    _sig("env-git-lfs-pointer", SETUP,
         r"invalid load key, '?v'?|version https://git-lfs|git-lfs\.github\.com/spec|"
         r"cloned a repository without having git-lfs|"
         r"Error while deserializing header: HeaderTooLarge",
         "The weights file is a Git LFS pointer (a small text file): the repo was cloned without "
         "git-lfs, so the weights were never downloaded.",
         "git lfs install && git lfs pull   # in the cloned folder\n"
         "# or load by repo id: from_pretrained('org/name')", priority=19),
    _sig("env-spm-model-unreadable", SETUP,
         r"sentencepiece_processor\.cc\(\d+\)\s*\[model_proto->ParseFromArray",
         "The tokenizer.model file is not a SentencePiece model: a Git LFS pointer (cloned "
         "without git-lfs), an HTML page or a cut download.",
         "git lfs install && git lfs pull   # in the cloned folder; or load by Hub id\n"
         "head -c 200 tokenizer.model   # a text pointer or HTML means the file never came",
         priority=17),
    _sig("env-state-dict-position-ids", NEW,
         r"Unexpected key\(s\) in state_dict:[^\n]*position_ids",
         "The state dict was saved by a transformers older than 4.31, which stored position_ids "
         "as a buffer; the installed release no longer has it, so a strict load_state_dict "
         "refuses the extra key.",
         "model.load_state_dict(state_dict, strict=False)   # position_ids is rebuilt\n"
         '# or: pip install "transformers<4.31"', priority=16),
    _sig("env-non-consecutive-added-token", OLD,
         r"Non-consecutive added token '[^'\n]*' found",
         "The tokenizer was saved by a newer transformers (added tokens are stored "
         "differently since 4.34) than the one loading it.", 'pip install -U transformers',
         priority=16),
    _sig("env-rope-scaling-llama3", OLD,
         r"`rope_scaling` must be a dictionary with (?:two|with two) fields, `type` and `factor`",
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
         r"(?:must|need to|please) restart (?:the|your) (?:runtime|kernel|session)|"
         r"restart the runtime in order to use newly installed",
         "Packages were installed or upgraded inside a running session; the old versions stay "
         "loaded until the runtime restarts.", "# restart the runtime / kernel, then re-run"),
    _sig("env-nltk-resource", SETUP,
         r"Resource (?P<resource>\w+) not found\.\s+Please use the NLTK Downloader",
         "An NLTK data package was never downloaded.",
         "python -c \"import nltk; nltk.download('punkt')\"   # the resource the error names"),
    _sig("env-spacy-model", SETUP,
         r"Can't find model '(?P<model>[\w-]+)'\. It doesn't seem to be a Python package",
         "The spaCy pipeline was never downloaded.", "python -m spacy download en_core_web_sm"),
    _sig("env-requires-version", OLD,
         r"(?<![\w-])(?P<pkg>[A-Za-z][\w-]*)\s*>=\s*(?P<low>\d[\w.]*)(?:,\s*!=\s*[\d.]+)*(?:,\s*<\s*"
         r"(?P<high>\d[\w.]*))? is required for a normal functioning of this module, but found "
         r"[\w-]+==(?P<found>\d[\w.]*)|"
         r"requires?\s+(?:the\s+)?`?(?:package\s+)?`?(?P<pkg2>[A-Za-z][\w-]*)`?\s*(?:version\s*)?"
         r"(?:>=|>|~=)\s*`?(?P<low2>\d[\w.]*)|"
         r"make sure (?:that )?you have installed `(?P<pkg3>[A-Za-z][\w-]*)>=(?P<low3>\d[\w.]*)`",
         "A package is older (or newer) than the code requires.", "pip install -U <package>",
         refine=refine_requires_version, priority=17),
    _sig("env-binary", BINARY,
         r"numpy\.dtype size changed|numpy\.core\.multiarray failed to import|compiled using "
         r"NumPy 1\.x cannot be run in NumPy 2|_ARRAY_API not found|undefined symbol: \w+|"
         r"DLL load failed|GLIBC(?:XX)?_[\d.]+'? not found|Expected \d+ from C header, got \d+ "
         r"from PyObject|incompatible architecture \(have|no kernel image is available for "
         r"execution on the device|cannot open shared object file|"
         r"Error loading \"[^\"\n]+\.dll\" or one of its dependencies|Numpy is not available",
         "Compiled packages were built against other versions of their dependencies.",
         "pip install --force-reinstall --no-cache-dir <package>", refine=refine_binary,
         priority=17),
    _sig("env-driver-too-old", BINARY,
         r"The NVIDIA driver on your system is too old \(found version (?P<driver>\d+)\)",
         "The installed PyTorch was built for a newer CUDA than the NVIDIA driver supports.",
         "# update the NVIDIA driver, or install a torch built for an older CUDA, e.g.:\n"
         "pip install torch --index-url https://download.pytorch.org/whl/cu118", priority=17),
    _sig("env-torchvision-cuda", BINARY,
         r"PyTorch and torchvision were compiled with different CUDA versions",
         "torchvision was built for another CUDA than the installed torch (installed separately, "
         "or from another index).",
         "pip install --force-reinstall torch torchvision   # together, from one index",
         priority=17),
    _sig("env-protobuf-too-new", NEW,
         r"Descriptors cannot be created directly|'MessageFactory' object has no attribute "
         r"'GetPrototype'",
         "The installed protobuf is newer than the generated code of a package that uses it "
         "(protobuf 4 rejects code generated by protoc < 3.19; protobuf 5 removed "
         "MessageFactory.GetPrototype).",
         'pip install "protobuf<=3.20.3"   # or: upgrade the package whose _pb2 files fail\n'
         "# or: export PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python", priority=17),
    _sig("env-bitsandbytes-cpu", BINARY,
         r"bitsandbytes was compiled without GPU support|installed version of bitsandbytes was "
         r"compiled without GPU support|CUDA Setup failed despite GPU being available|"
         r"No GPU found\. A GPU is needed for quantization",
         "bitsandbytes cannot use a GPU here.", "python -m bitsandbytes", refine=refine_bnb,
         priority=18),
    _sig("env-dataset-scripts", NEW,
         r"Dataset scripts are no longer supported",
         "datasets 4 removed loading scripts; this dataset is still a script on the Hub.",
         'pip install "datasets<4.0.0"   # or load a script-free (parquet) revision:\n'
         "# load_dataset(name, revision='refs/convert/parquet')", priority=18),
    _sig("env-fsspec-glob", OLD,
         r"Invalid pattern: '\*\*' can only be an entire path component|"
         r"Loading a dataset cached in a LocalFileSystem is not supported",
         "The installed datasets is older than the installed fsspec: fsspec 2023.10 changed how "
         "'**' globs are read and how its local file system is named, which datasets before "
         "2.14.6 does not handle.",
         'pip install -U "datasets>=2.14.6"   # or: pip install "fsspec<=2023.9.2"',
         priority=18),
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
    _sig("env-model-output-tuple", NEW,
         r"argument '\w+' \(position \d+\) must be Tensor, not str|"
         # the TensorFlow form: the key names of a ModelOutput reach a Keras layer
         r"Inputs to a layer should be tensors\. Got: (?:last_hidden_state|pooler_output|logits|"
         r"hidden_states)\b",
         "Since transformers 4 models return a ModelOutput (a dict), not a tuple: unpacking it "
         "(`_, pooled = bert(...)`) gives the key names (strings), which the next layer gets.",
         "outputs = self.bert(input_ids, attention_mask=mask)\npooled = outputs.pooler_output\n"
         "# or: self.bert(..., return_dict=False)", priority=16),
    _sig("env-unknown-architecture", OLD,
         r"does not recognize this architecture|model type `?(?P<model_type>[\w-]+)`? but "
         r"Transformers does not recognize",
         "The checkpoint's model type is newer than the installed transformers.",
         'pip install -U transformers', priority=17),
    _sig("env-model-type-key", OLD,
         r"(?m)^KeyError: '(?P<model_type>[a-z][a-z0-9_-]{1,40})'$",
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
         r"\A\Z",     # no exception line: a traceback cut at the line that does not parse
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
    _sig("env-no-module", MISSING,
         rf"No module (?:named|found) {_Q}(?P<module>[A-Za-z_][\w.]*){_Q}",
         "A module cannot be imported.", "pip install <package>", refine=refine_no_module),
    _sig("env-cannot-import", OLD,
         rf"cannot import name {_Q}(?P<name>\w+){_Q}(?: from {_Q}(?P<module>[\w.]+){_Q}"
         r"(?P<loc> \([^)\n]*\))?)?",
         "A name cannot be imported from a package.", "pip install -U <package>",
         refine=refine_cannot_import),
    _sig("env-import-line", OLD,
         r"(?m)^\s*`*from (?P<module>[A-Za-z_][\w.]*) import (?P<name>[A-Z]\w*)`*\s*$",
         "A class is imported from a library it does not belong to.", "from <its library> import "
         "<name>", refine=refine_import_line, priority=5),
    _sig("env-module-attribute", OLD,
         rf"(?P<kind>module|type object) ?{_Q}(?P<module>[A-Za-z_][\w.]*){_Q} has no attribute "
         rf"{_Q}(?P<name>\w+)",
         "A module of a library lacks a name the code uses.", "pip install -U <package>",
         refine=refine_module_attribute, priority=12),
    _sig("env-unexpected-kwarg", OLD,
         r"(?<![A-Za-z0-9_.])(?P<callee>[A-Za-z_][\w.]*)\(\) ?got an unexpected keyword argument"
         r" ?['\"](?P<arg>\w+)['\"]",
         "A function got an argument the installed release does not have.",
         "pip install -U <package>", refine=refine_unexpected_kwarg, priority=11),
    _sig("env-name-not-defined", OLD,
         r"name '(?P<name>[A-Z]\w*)' is not defined|"
         # the same in a reporter's words: 'The function or method "Partial State" is not defined'
         r"[\"'`](?P<name2>[A-Z][\w ]{0,40}?)[\"'`] is not defined",
         "A name imported only when an optional package is recent enough is undefined.",
         "pip install -U <package>", refine=refine_name_not_defined, priority=12),
    _sig("env-requires-package", MISSING,
         r"requires the (?P<pkg>[\w-]+) library but it was not found|"
         r"(?:please|you need to|you must|you should|make sure to) (?:first )?(?:pip )?install "
         r"(?:it with )?`?['\"]?(?:pip install )?(?P<pkg2>[A-Za-z][\w\[\].-]*)['\"`]?(?![\w.]*\s*"
         r"(?:>=|==|>))|(?<![\w-])(?P<pkg3>[A-Za-z][\w-]*)`? (?:is|are|seems to be|appears to be) not installed|"
         r"requires `?(?P<pkg4>[A-Za-z][\w-]*)`? to be installed|"
         r"(?:need|must) (?:to )?have `?(?P<pkg5>[A-Za-z][\w-]*)`? installed|"
         r"requires [A-Za-z][\w-]*:? `pip install (?P<pkg6>[A-Za-z][\w\[\].-]*)`|"
         r"requires `(?P<pkg7>[A-Za-z][\w-]*)`\.? You can install it with `pip install|"
         r"make sure (?:that )?you have `?(?P<pkg8>[A-Za-z][\w-]*)`? installed",
         "An optional package the feature needs is not installed.", "pip install <package>",
         refine=refine_requires_package, priority=13),
]
