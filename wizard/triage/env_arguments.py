"""Environment rules for keyword arguments: an argument a function or class does not take in the
release that ran it (added later, removed, moved to a config class, misspelt, or in no release at
all), and an argument a named release took out.
"""
from __future__ import annotations

import difflib
import itertools
import re
from typing import Any

from wizard.triage import api_history
from wizard.triage.env_answers import (
    HF_NAMED,
    HOOKS,
    NEW,
    OLD,
    USER_CLASS,
    answer,
    answer_from_change,
    importer_of,
    internal_call_mismatch,
    lagging_override,
    libclass,
    pin,
    project_subclass,
    upgrade,
)
from wizard.triage.parse import ParsedError
from wizard.triage.packages import dist_key, parse_version, pip_name, version_lt
from wizard.triage.versions import api_change, argument_change, paste_versions

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
    if arg in _COMMON_ARGS or len(arg) < 4 or api_history.kwarg_added(arg):
        return None                   # a name of its own (some release added it)
    close = difflib.get_close_matches(arg, _COMMON_ARGS, n=1, cutoff=0.85)
    return close[0] if close else None


# the reporter asks a project's authors which release they ran (their code, not the user's)
_AUTHORS_VERSION = re.compile(r"\b(?:which|what) version of `?[\w-]+`? (?:did |do )?you (?:use|used|"
                              r"run)|\bversion of `?[\w-]+`? you used\b|not (?:mentioned|listed|"
                              r"pinned) in (?:the )?requirements", re.I)

# the reporter saying an upgrade started it: "Upgrading to version `trl>0.9` throws ..."
_UPGRADE_STARTED = re.compile(r"\b(?:upgrad|updat|bump)\w*\b[^\n]{0,40}?(?P<ver>\d+\.\d+(?:\.\d+)?)"
                              r"[^\n]{0,80}?\b(?:throws?|threw|fails?|failed|raises?|raised|breaks?|"
                              r"broke|errors?|gives?)\b", re.I)


def refine_unexpected_kwarg(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    callee, arg = str(ev.get("callee", "")), str(ev.get("arg", ""))
    if internal_call_mismatch(parsed) or lagging_override(parsed):
        return {"reject": True}       # the library's own call or override: see library.py
    sub = project_subclass(parsed)
    if sub is not None:
        return _project_subclass_answer(*sub, ev)
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
    model_call = (method or callee) in ("forward", "call")
    own = _own_definition(method or callee, parsed) if model_call else None
    if model_call and own is None and arg in ("label", "target", "targets"):
        return {"id": "labels-column-misnamed",
                "cause": f"The batch carries a column named {arg}; the model's "
                         f"{method or callee}() takes the class ids as labels, so the column "
                         "reaches it under a name it does not know.",
                "fix": f"dataset = dataset.rename_column('{arg}', 'labels')   # before "
                       "to_tf_dataset / prepare_tf_dataset, or a custom collator"}
    if not owner_cls:
        method = callee
        if callee == "__init__":      # the class of the call that passes the argument
            m = re.search(rf"(?<![\w.])(?P<cls>[A-Z]\w*)\([^()]*?\b{re.escape(arg)}\s*=", parsed.text)
            owner_cls = m.group("cls") if m else ""
    owner = libclass(owner_cls) if owner_cls else None
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
        upgraded = _UPGRADE_STARTED.search(parsed.text)
        if upgraded:
            pkg = pip_name(key.split(".", 1)[0])
            return {"id": "env-version-too-new",
                    "cause": f"No release of {pkg} gives {cls} the argument {arg}, yet the paste "
                             f"says an upgrade started the error: the newer {pkg} builds {cls} "
                             "itself from arguments the code prepares for another class (a "
                             "subclass of TrainingArguments, a config of the older release), a "
                             "change of that release the code was not written for.",
                    "fix": f'pip install "{pkg}<{upgraded.group("ver")}"   # the release before the '
                           f"upgrade; or pass {cls} only its own arguments"}
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
    if own and not re.search(rf"\b{re.escape(arg)}\b|\*\*", own.group("params")):
        return {"id": "callback-signature-mismatch",
                "cause": f"Your model's {method}() does not take {arg}, which its caller passes "
                         "(the Trainer passes the batch's columns, generate() and wrappers such "
                         "as PEFT pass their own options).",
                "fix": f"def {method}(self, input_ids, attention_mask=None, {arg}=None, "
                       "**kwargs):   # accept what the caller passes"}
    # a model's forward is reached through torch's module dispatch: torch is not its caller
    caller = importer_of(parsed, owner or ("torch" if model_call else None))
    if not owner_cls and caller is not None and change is None and _your_function(callee, parsed):
        return {"id": "callback-signature-mismatch",
                "cause": f"{caller} calls your function {callee}() with the keyword argument "
                         f"{arg}, which its signature does not declare: a function handed to a "
                         f"library must accept the arguments the library passes.",
                "fix": f"def {callee}(..., **kwargs):   # accept {arg} and the other keywords "
                       f"{caller} passes"}
    # a hook named without its class ("compute_loss() got ... 'num_items_in_batch'"), with an
    # argument a release added to it: only the library passes it, to the user's override
    your_hook = not owner_cls and callee in HOOKS and change is not None and bool(change.added)
    overridden = bool(owner_cls) and owner is None and bool(
        method in HOOKS or USER_CLASS.search(owner_cls) or re.search(r"trainer$", owner_cls, re.I))
    if your_hook or overridden:
        pkg = caller or (change.package if change else "transformers")
        note = f" (added in {pkg} {change.added})" if change and change.added else ""
        return answer(NEW, pkg, f"{pkg} now calls your override {callee}() with the new "
                      f"argument {arg}{note}; the override has the older signature.",
                      (change.replacement if change and change.replacement else
                        f"def {method}(self, ..., {arg}=None, **kwargs):  # accept the new "
                        "argument") + f"\n# or: {pin(pkg, change.added if change else None)}",
                      ev)
    if not owner_cls and caller is None and change is None and method == "__init__" and \
            not re.search(r"^\s*def __init__\s*\(", parsed.text, re.M):
        added = api_history.kwarg_added(arg)
        if added:                     # a keyword the libraries gained: some release is older
            where = ", ".join(f"{s.package} {s.first} ({s.owner.split('.', 1)[1]})" for s in added)
            names = " ".join(s.package for s in added)
            return answer(OLD, added[0].package, f"The call passes {arg}=, which these libraries "
                          f"only take from these releases on: {where}. The class is not named, but "
                          "the code (or the library that makes the call) was written for newer "
                          "releases than the one that ran it.", f"pip install -U {names}", ev,
                          tuple(s.package for s in added[1:]))
    model_arg = model_call and own is None and arg in _MODEL_FORWARD_ARGS   # not a forward of yours
    if owner is None and caller is None and change is None and not model_arg and \
            not HF_NAMED.search(parsed.text):
        return {"reject": True}           # a function of the user's own code
    if change is not None and (owner is None or dist_key(change.package) == dist_key(owner)):
        return answer_from_change(change, f"The argument {arg} of {callee}()", parsed, ev, caller)
    pkg = owner or caller or ""
    if owner and caller and dist_key(caller) != dist_key(owner):
        return answer(OLD, owner, f"{caller} passes {arg} to {callee}(), which the installed "
                      f"{owner} does not have: {owner} is older than {caller} needs.",
                      f'pip install "{caller}[{owner}]"   # the {owner} version {caller} pins\n'
                      f"# or: {upgrade(owner)}", ev, (caller,))
    if not pkg:
        mentioned = [k for k in paste_versions(parsed.text) if k in
                     ("transformers", "trl", "peft", "datasets", "accelerate", "tokenizers")]
        pkg = mentioned[0] if mentioned else ""
    if not pkg and method != "forward":
        return answer(OLD, "", f"{callee}() has no argument {arg} in the installed release: "
                      "the code follows the documentation of a newer release.",
                      "pip install -U <the package of " + callee + ">", ev)
    pkg = pkg or "transformers"
    return answer(OLD, pkg, f"{callee}() has no argument {arg} in the installed {pip_name(pkg)}:"
                  " the code follows the documentation of a newer release (check the version "
                  "the docs are for).", upgrade(pkg), ev)


def _project_subclass_answer(project: str, cls: str, key: str, arg: str,
                             ev: dict) -> dict[str, Any]:
    """A project's subclass of a library class built with an argument the base lacks: which
    side moved, from the base's history; no release of the base with it is the project's own
    bug (library.py)."""
    base_pkg, base = pip_name(key.split(".", 1)[0]), key.split(".", 1)[1]
    span = api_history.kwarg(key, arg)
    if span is None:
        return {"reject": True}
    what = f"{project} builds {cls}, its subclass of {base_pkg}'s {base}, with {arg}"
    if span.removed:
        return answer(NEW, base_pkg, f"{what}, which {base_pkg} took from {span.first} to "
                      f"{span.last} and removed in {span.removed}: the installed {base_pkg} is "
                      f"newer than this {project} release supports.",
                      f"{pin(base_pkg, span.removed)}   # or a {project} release written for "
                      f"{base_pkg} {span.removed}", ev, (project,))
    return answer(OLD, base_pkg, f"{what}, which {base_pkg} takes only from {span.first}: the "
                  f"installed {base_pkg} is older than this {project} release needs.",
                  upgrade(base_pkg, span.first), ev, (project,))


# keyword arguments that transformers (or a library built on it) passes to its models'
# forward/call and that releases added: a model without one is of an older transformers
_MODEL_FORWARD_ARGS = frozenset({"return_dict", "output_attentions", "output_hidden_states",
                                 "use_cache", "past_key_values", "cache_position",
                                 "logits_to_keep", "num_logits_to_keep"})


def _own_definition(name: str, parsed: ParsedError) -> re.Match[str] | None:
    """The paste's own `def name(...)` (its parameters in the group params), or None."""
    return re.search(rf"^\s*def {re.escape(name)}\s*\((?P<params>[^)]{{0,500}})\)", parsed.text,
                     re.M)


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
    if name.startswith("_") or name in HOOKS or name in ("forward", "generate"):
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
    return answer(NEW, "keras", f"Keras 3 (TensorFlow >= 2.16) no longer accepts {arg}"
                  f"{' in ' + str(ev['callee']) if ev.get('callee') else ''}; the code was "
                  "written for Keras 2.",
                  (f"# {change.replacement}\n" if change else "") +
                  'pip install "tf-keras~=2.16"  # Keras 2, with: export TF_USE_LEGACY_KERAS=1',
                  ev, ("tensorflow",))


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
            if change and change.removed and change.removed.startswith(minor + ".") and \
                    dist_key(change.package) == dist_key(pkg):     # not a base's other package
                cls = key.rsplit(".", 1)[-1]
                ev.update(name=name, callable=cls)
                fix = pin(change.package, change.removed)
                if change.replacement:
                    fix += f"   # or: {change.replacement}"
                return answer(NEW, change.package, f"{change.package} {change.removed} took "
                              f"{name} out of {cls}; the code was written for an older release.",
                              fix, ev)
    return {"reject": True}


# the signatures transformers gave the hooks it now calls with one more argument (4.46:
# num_items_in_batch; 4.47: Trainer.log's start_time), and that argument
HOOK_SIGNATURES = {
    "training_step": "def training_step(self, model, inputs, num_items_in_batch=None):",
    "compute_loss": "def compute_loss(self, model, inputs, return_outputs=False, "
                    "num_items_in_batch=None):",
    "log": "def log(self, logs, start_time=None):",
}
HOOK_NEW_ARGUMENTS = {"training_step": ("num_items_in_batch", "4.46.0"),
                      "compute_loss": ("num_items_in_batch", "4.46.0"),
                      "log": ("start_time", "4.47.0")}


def refine_hook_arity(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A Trainer hook overridden with fewer parameters than the library now passes
    (`training_step() takes 3 positional arguments but 4 were given`): the override was written
    for an older release."""
    hook, takes, given = str(ev.get("hook")), int(ev.get("takes", 0)), int(ev.get("given", 0))
    # a trainer library's own line calling the hook on itself (self.log(logs, start_time)):
    # only an override of the user's (or the project's) can take fewer arguments
    called_on_self = any(f.is_library and f.package in ("transformers", "trl") and
                         re.search(rf"\bself\.{hook}\(", f.code or "") for f in parsed.frames)
    if given <= takes or not (called_on_self or re.search(
            rf"^\s*def {hook}\s*\(|Trainer\b|\bfinetune|\bTraining(?:Arguments|Config)\b",
            parsed.text, re.M)):
        return {"reject": True}
    pkg = importer_of(parsed) or "transformers"
    arg, added = HOOK_NEW_ARGUMENTS.get(hook, ("", None))
    note = f" (transformers {added} added {arg})" if added else ""
    fix = HOOK_SIGNATURES.get(hook) or f"def {hook}(self, *args, **kwargs):   # accept what " \
        "the library passes"
    return answer(NEW, pkg, f"{pkg} now calls your override {hook}() with {given - takes} more "
                  f"argument(s) than it declares{note}: the override (yours, or the project's "
                  "script you run) has the older signature.",
                  f"{fix}\n# or: {pin('transformers' if added else pkg, added)}", ev)


_CALL_OPEN = re.compile(r"(?<![\w.])(?P<cls>[A-Z]\w{0,60})\(")
_MAX_CALLS = 50                       # config calls read per paste (a paste has a handful)


def _call_arguments(text: str, start: int) -> str:
    """The argument text of the call opened just before `start`, up to its closing parenthesis
    (or the end of a paste cut off inside the call; at most 3000 characters)."""
    depth = 0
    for i, ch in enumerate(text[start:start + 3000]):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return text[start:start + i]
            depth -= 1
    return text[start:start + 3000]


def removed_arguments_in_code(parsed: ParsedError) -> list[tuple[str, str, "api_history.Span"]]:
    """(class, argument, span) for each argument the paste's code passes to a library config
    class whose newest release no longer takes it (and the release the paste states, if any,
    does not take either), the earliest removed first. Config dataclasses only (TrainingArguments,
    SFTConfig, LoraConfig ...): a removed field is rejected outright, while other callables often
    keep accepting a renamed keyword for a while (a deprecation shim the wheels do not show)."""
    found = {}
    stated = paste_versions(parsed.text)
    calls = (c for c in _CALL_OPEN.finditer(parsed.text)
             if re.search(r"(?:Arguments|Config|Args)$", c.group("cls")))
    for call in itertools.islice(calls, _MAX_CALLS):
        key = api_history.owner(call.group("cls"))
        if key is None or not re.search(r"(?:Arguments|Config|Args)$", key):
            continue
        args = _call_arguments(parsed.text, call.end())
        for arg in re.findall(r"(?<![\w.])([a-z_]\w*)\s*=(?!=)", args):
            span = api_history.kwarg(key, arg)
            if span is None or span.removed is None or (call.group("cls"), arg) in found:
                continue
            version = stated.get(dist_key(span.package))
            if not (version and span.present_in(version)):
                found[(call.group("cls"), arg)] = span
    return sorted(((c, a, s) for (c, a), s in found.items()),
                  key=lambda x: parse_version(x[2].removed) or ())


def refine_removed_argument_in_code(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A TypeError whose message is cut off (or not pasted) beside code that passes removed
    arguments: they are the likely cause."""
    if re.search(r"unexpected keyword argument|positional argument", parsed.text):
        return {"reject": True}       # the message names the argument: the other rules read it
    if parsed.exc_name not in (None, "TypeError"):
        return {"reject": True}       # another error was pasted
    found = removed_arguments_in_code(parsed)
    if not found:
        return {"reject": True}
    cls, arg, span = found[0]
    message = parsed.message or ""
    stated = re.search(r"(?m)^\W{0,4}TypeError: \S", parsed.text)    # a message of its own
    if stated and message.strip() and cls not in message and "argument" not in message:
        return {"reject": True}       # a complete message about something else: the call passed
    removed = ".".join(span.removed.split(".")[:2]) + ".0"
    named = ", ".join(f"{a}= ({s.package} {'.'.join(s.removed.split('.')[:2])})"
                      for _, a, s in found)
    change = api_change(arg, span.package)
    swap = f"   # or: {change.replacement}" if change and change.replacement else ""
    return answer(NEW, span.package, f"The code passes {cls} arguments that newer releases "
                  f"removed: {named}. The TypeError is a newer release rejecting them.",
                  f"{pin(span.package, removed)}{swap}", ev)


# the command-line tools of the libraries (trl, accelerate, huggingface-cli / hf, ms-swift,
# LLaMA-Factory, peft has none): a subcommand they do not list came in a later release
_CLIS = {"trl": "trl", "accelerate": "accelerate", "huggingface-cli": "huggingface_hub",
         "hf": "huggingface_hub", "swift": "ms-swift", "llamafactory-cli": "llamafactory",
         "datasets-cli": "datasets", "transformers-cli": "transformers",
         "transformers": "transformers", "diffusers-cli": "diffusers", "optimum-cli": "optimum"}


def refine_cli_subcommand(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """`<tool> <command>` refused by a library's CLI: a near miss of a listed command is a typo;
    otherwise the command came in a release later than the one installed."""
    command = str(ev.get("command", ""))
    listed = re.findall(r"'([\w-]+)'", str(ev.get("choices", "")))
    tool = re.search(rf"(?<![\w-])(?P<tool>{'|'.join(map(re.escape, _CLIS))})(?:\.exe)?\s+"
                     rf"{re.escape(command)}\b|usage: (?P<usage>[\w-]+)", parsed.text)
    name = tool and (tool.group("tool") or tool.group("usage"))
    if not name or name.lower() not in _CLIS:
        return {"reject": True}
    package = _CLIS[name.lower()]
    close = difflib.get_close_matches(command, listed, n=1, cutoff=0.8)
    if close:
        return {"id": "cli-command-typo",
                "cause": f"{name} has no command {command!r}: a typo of {close[0]!r}.",
                "fix": f"{name} {close[0]} ..."}
    return answer(OLD, package, f"{command!r} is not a command of the installed {pip_name(package)}"
                  f" ({name} knows: {', '.join(listed)}): it came in a later release.",
                  upgrade(package), ev)


def refine_cli_option(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """An installed command-line tool (a console script, not a .py file of the project) refusing
    an option: the installed release predates it (the documentation followed a newer one). A
    script's own arguments (train.py: error: ...) are the script's question."""
    prog, options = str(ev.get("prog", "")), str(ev.get("options", "")).split()
    if ev.get("argv"):                # a tool's parser listing what it left: the tool run
        options = re.findall(r"['\"](--[\w-]+)", str(ev["argv"]))
        run = re.search(rf"(?m)^\s*(?:[A-Z_]+=\S*\s+)*(?P<tool>{'|'.join(map(re.escape, _CLIS))})"
                        r"\s+[a-z]", parsed.text)
        prog = run.group("tool") if run else "python"
    flags = [o for o in options if o.startswith("--")]
    if not flags or prog.lower() in ("python", "python3", "ipykernel_launcher") or \
            re.search(r"\.py\w?$", prog):
        return {"reject": True}
    package = _CLIS.get(prog.lower())
    if package is None and re.search(rf"\bpython[\d.]*\s+-m\s+{re.escape(prog)}\b", parsed.text):
        return {"reject": True}       # a project's module run from its folder, not a release
    target = pip_name(package) if package else f"<the package that provides {prog}>"
    return answer(OLD, package or prog, f"The installed {prog} does not know "
                  f"{', '.join(flags)}: the release installed predates that option (the "
                  "documentation or example follows a newer release, often the main branch).",
                  f"{prog} --help   # the options of the installed release\n"
                  f"pip install -U {target}", ev)


_CALL_KWARG = re.compile(r"[(,]\s*(?P<arg>[a-z_]\w*)\s*=(?!=)")


def refine_kwarg_newer_than_stated(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A call that takes **kwargs swallows a keyword its release does not know yet, and then lacks
    a required argument: the paste's code passes a keyword that came in a release after the one
    the paste states (tokenizer(text_target=...) on transformers 4.21)."""
    stated = paste_versions(parsed.text)
    for arg in dict.fromkeys(m.group("arg") for m in _CALL_KWARG.finditer(parsed.text)):
        for span in api_history.kwarg_added(arg):
            have = stated.get(dist_key(span.package))
            if have and version_lt(have, span.first):
                owner = (span.owner or "").split(".", 1)[-1]
                return answer(OLD, span.package, f"{arg}= came to {owner} in {pip_name(span.package)}"
                              f" {span.first}; the paste runs {have}, which takes it as an unknown "
                              "keyword, so the call lacks its required argument.",
                              upgrade(span.package, span.first), ev)
    return {"reject": True}
