"""Refine functions of the rules in signatures_usage.py: they read the user's code and the paste
to tell which misuse of an API it is and to word its fix."""
from __future__ import annotations

import re
from typing import Any

from wizard.triage import api_history
from wizard.triage.env_answers import (
    OLD,
    answer,
    answer_from_change,
    article,
    libclass,
    stated_version,
    upgrade,
)
from wizard.triage.frames import attribute_reader_frame
from wizard.triage.packages import dist_key, version_lt
from wizard.triage.parse import ParsedError
from wizard.triage.versions import api_change, history_span_change, member_change, paste_versions


def refine_target_list(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Two target lists that name no layer whatever the model: 'all-linear' on a peft before
    0.8 (or wrapped in a list, which makes it a module name), and an empty list (a helper that
    collects nn.Linear layers finds none in a quantized model)."""
    modules = str(ev.get("modules", "")).strip("` ")
    if re.fullmatch(r"\[?['\"]?all-linear['\"]?\]?", modules):
        return {"id": "env-version-too-old",
                "cause": "target_modules='all-linear' is understood by peft 0.8.0 and later, and "
                         "only as a string: an older peft (or a wrapper that put it in a list) "
                         "looks for a module named 'all-linear'.",
                "fix": 'pip install -U "peft>=0.8.0"\nLoraConfig(target_modules="all-linear", '
                       "...)   # the string, not ['all-linear']"}
    if re.fullmatch(r"\[\s*\]|set\(\)", modules):
        return {"cause": "target_modules is empty: the helper that collects the linear layers "
                         "(find_all_linear_names) matched none, as the model's layers are "
                         "quantized classes (GPTQ QuantLinear, bitsandbytes Linear4bit) rather "
                         "than torch.nn.Linear.",
                "fix": "# collect the names by the quantized class, or pass them:\n"
                       "LoraConfig(target_modules=['q_proj', 'k_proj', 'v_proj', 'o_proj'], ...)"}
    return None


def refine_layer_shapes(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A layer's shapes: not when the user's own code did the product (innermost frame yours)."""
    relevant = [f for f in parsed.frames if f.kind != "other"]
    if relevant and relevant[-1].is_user:
        return {"reject": True}
    return None


def refine_float_labels(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Float class labels for cross-entropy: only when the message is about the target."""
    if "target" in str(ev.get("what", "")).lower() or re.search(r"nll_loss|cross_entropy",
                                                               parsed.text):
        return None
    return {"reject": True}


def refine_row_key(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A bare KeyError is a missing column only when it is raised looking up a row or batch of
    a dataset (datasets' own __getitem__) that the user's code subscripted with that name."""
    library = [f for f in parsed.frames if f.is_library]
    user = [f for f in parsed.frames if f.is_user]
    name = str(ev.get("key", ""))
    row_lookup = any(f.package == "datasets" and f.function == "__getitem__" for f in library)
    named_in_user_code = any(f"[{q}{name}{q}]" in (f.code or "") for f in user for q in "'\"")
    # a library reading the column an argument names (element[dataset_text_field])
    configured = any(re.search(r"\[\s*(?:self\.)?\w*(?:field|column)\w*\s*\]", f.code or "")
                     for f in library)
    if row_lookup and configured and not named_in_user_code:
        return {"cause": f"The dataset has no column '{name}': the library reads the column that "
                         "one of its arguments names (e.g. dataset_text_field, whose default is "
                         "'text'), and the rows have other columns.",
                "fix": f"print(dataset.column_names)   # then: dataset_text_field='<the text "
                       f"column>', or dataset = dataset.rename_column('<yours>', '{name}'), or "
                       "a formatting_func"}
    return None if row_lookup and named_in_user_code else {"reject": True}


# objects whose missing attribute is about the data or the framework, not a library interface
_NOT_INTERFACES = frozenset({"NoneType", "Tensor", "EagerTensor", "KerasTensor", "ndarray",
                             "DataFrame", "Series", "str", "list", "dict", "tuple", "int",
                             "float", "bool", "function", "method", "module", "generator"})


# objects a library hands to your own functions (compute_metrics, callbacks): only your code
# reads them, so a missing attribute on one is yours even when the paste shows no frames
_HANDED_TO_YOU = frozenset({"EvalPrediction", "TrainerState", "TrainerControl"})


def _version_skew(cls: str, attr: str, parsed: ParsedError) -> dict[str, Any]:
    """No frame shown and no code of the paste reads .attr: a library reads an attribute that
    another library's object lacks, the mark of two packages of mismatched releases."""
    if re.search(r"Output|BatchEncoding|BatchFeature|Tensor|Dataset", cls) or attr in (
            "shape", "size", "dim", "numpy", "detach", "cpu", "cuda", "to", "items", "keys"):
        return {"reject": True}       # data handled by the user's code, not a library's state
    error_line = f"object has no attribute '{attr}'"
    if re.search(rf"\.{re.escape(attr)}\b", parsed.text.replace(error_line, "")):
        return {"reject": True}       # the paste's own code reads it
    base = _newer_base_member(cls, attr)
    if base is not None:
        return {"id": "env-version-too-new",
                "cause": f"{cls} is a class of custom code (a model repository's remote code, a "
                         f"plugin or another project) built on transformers' {base.owner}: "
                         f"transformers {base.first} and later call .{attr} on every such "
                         f"object, and this class, written for an older transformers, does not "
                         "have it.",
                "fix": f'pip install "transformers<{base.first}"   # the release the custom code '
                       "was written for, until its authors update it"}
    return {"id": "env-version-too-old", "guess": True,
            "cause": f"Library code reads .{attr} of {article(cls)} {cls}, which the installed "
                     f"release of the package that defines {cls} does not have: two packages of "
                     "mismatched releases (one reads what the other removed, or has not added "
                     "yet).",
            "fix": "pip list   # the versions of the packages involved\n"
                   "pip install -U <the package whose code reads it>   # upgrade them together"}


_BASES = {"Config": "transformers.PretrainedConfig", "Model": "transformers.PreTrainedModel",
          "Tokenizer": "transformers.PreTrainedTokenizerBase"}


def _newer_base_member(cls: str, attr: str) -> api_history.Span | None:
    """The member span of transformers' base class (by the class name's ending) when `cls` is not
    transformers' own and the base gained `attr` after the first scanned release."""
    if api_history.top_name("transformers", cls) is not None:
        return None
    key = next((v for k, v in _BASES.items() if cls.endswith(k)), None)
    span = api_history.member(key, attr) if key else None
    rels = api_history.releases("transformers")
    return span if span is not None and rels and span.first != rels[0] else None


def _across_libraries(cls: str, attr: str, raiser: str | None) -> dict[str, Any]:
    """Library code of one package reads .attr of another package's class: the two packages are
    of mismatched releases (not a bug of either). Library code on its own class: another matter."""
    home = libclass(cls)
    if not home or not raiser or dist_key(home) == dist_key(raiser) or \
            re.search(r"Output|BatchEncoding|BatchFeature|Tensor", cls):
        return {"reject": True}
    if api_history.member_in_no_release(cls, attr):
        return {"reject": True}       # no release ever had it: the reading code is wrong
    if api_history.releases(home) and api_history.top_name(home, cls) is None:
        return {"reject": True}       # named like one of its classes, but none it ever exported
    return {"id": "env-version-too-new",
            "cause": f"{raiser}'s code reads .{attr} of {home}'s {cls}, which the installed {home} "
                     f"does not have: the two packages are of mismatched releases ({raiser} was "
                     f"written for another {home}: one removed it, or has not added it yet).",
            "fix": f"pip install -U {dist_key(raiser)}   # a release written for the installed "
                   f"{home}\n# or pin {home} to the release {raiser} was written for (its "
                   "requirements name it)"}


_RUNS_MODULE = re.compile(r"(?:^|\s)-m\s+(?P<pkg>[A-Za-z_]\w*)\.")


def _another_projects_class(package: str, parsed: ParsedError, cls: str) -> bool:
    """The paste imports `cls` from another package (`from faster_whisper import WhisperModel`,
    not transformers'), or never names `package` and runs another project's module (`python -m
    FlagEmbedding.reranker.run`, frames of another package): a class of the same name may well
    be that project's own (FlagEmbedding's CrossEncoder, not sentence-transformers')."""
    imported = re.search(rf"^\W*from\s+(?P<pkg>[\w.]+)\s+import\b[^\n]*\b{re.escape(cls)}\b",
                         parsed.text, re.M)
    if imported:
        return dist_key(imported.group("pkg").split(".")[0]) != dist_key(package)
    names = {package.lower(), package.lower().replace("-", "_")}
    if any(re.search(rf"\b{re.escape(n)}\b", parsed.text, re.I) for n in names):
        return False
    runs = _RUNS_MODULE.search(parsed.text)
    others = {f.package for f in parsed.frames if f.is_library and f.package}
    return bool(runs and runs.group("pkg").lower() not in names) or bool(others - names)


def _dated_member(cls: str, attr: str, ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A member the released wheels show another release of the class's package had: added
    later (upgrade) or removed (pin), whoever's code reads it; None when the release the paste
    runs has it, or the history does not record the class."""
    change = member_change(cls, attr)
    if change is None or _another_projects_class(change.package, parsed, cls):
        return None
    reader = attribute_reader_frame(parsed.frames)
    if reader is not None and reader.package and dist_key(reader.package) == \
            dist_key(change.package):
        return None                   # the package reading its own class: one release, no skew
    stated = paste_versions(parsed.text).get(dist_key(change.package))
    span = api_history.member(cls, attr)
    if stated and (span.present_in(stated) if span is not None else (
            version_lt(stated, change.added or "0") is False
            and version_lt(stated, change.removed or "99999") is True)):
        return None                   # that release has it: something else
    return answer_from_change(change, f"{cls}.{attr}", parsed, ev)


def refine_quantized_target(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A quantized linear layer (GPTQ's QuantLinear, AWQ's WQLinear) refused: the targets are
    right and the installed peft predates that backend."""
    if not re.search(r"QuantLinear|WQLinear|Marlin|Exllama", str(ev.get("module", "")), re.I):
        return None
    return {"id": "env-version-too-old",
            "cause": f"The base model is quantized (GPTQ/AWQ) and the installed peft does not "
                     f"know its layer class {ev.get('module')}: the targets are right, peft is "
                     "older than that backend's support (GPTQ from 0.6.1, AWQ from 0.9).",
            "fix": "pip install -U peft optimum auto-gptq   # or autoawq; keep target_modules"}


def refine_object_attribute(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Your own code reads an attribute that an object a library gave it does not have: only
    when the innermost frame is yours (library code failing on its own object is another
    matter) and the class is not one the paste defines. A member another release had is a
    version answer."""
    cls = str(ev.get("cls") or ev.get("cls2") or ev.get("cls3") or "")
    attr = str(ev.get("attr") or ev.get("attr2") or ev.get("attr3") or "")
    ev.update(cls=cls, attr=attr)
    relevant = [f for f in parsed.frames if f.kind != "other"]
    if cls in _NOT_INTERFACES:
        return {"reject": True}
    if re.search(rf"^\s*class\s+{re.escape(cls)}\b", parsed.text, re.M):
        return {"reject": True}
    dated = _dated_member(cls, attr, ev, parsed)
    if dated is not None:
        return dated
    if not relevant and cls not in _HANDED_TO_YOU:
        return _version_skew(cls, attr, parsed)
    if relevant and not relevant[-1].is_user:
        return _across_libraries(cls, attr, relevant[-1].package)
    never = (f" No release of {cls} has had it." if api_history.member_in_no_release(cls, attr)
             else "")
    return {"cause": f"Your code reads .{attr} of {article(cls)} {cls}, which has no attribute "
                     f"of that name: the fields of {cls} are named otherwise (a misspelling, or "
                     f"the name of another object).{never}",
            "fix": f"print([a for a in dir(obj) if not a.startswith('_')])   # the fields "
                   f"{article(cls)} {cls} has, instead of .{attr}"}


def refine_multilabel_view(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Only for a multi-label set-up, and with fewer values than one row of labels needs (a
    reshape elsewhere fails for other reasons)."""
    if not re.search(r"multi.?label|multi_target_strategy", parsed.text, re.I) or (
            ev.get("size") and int(ev["size"]) % max(int(ev.get("num_labels") or 1), 1) == 0):
        return {"reject": True}
    return None


def refine_inplace_owner(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Whose code made the in-place write is unknown when no frame of the user's is shown (the
    error is raised in backward): then it is a guess that evidence of a library bug outweighs."""
    return None if parsed.user_frames else {"guess": True}


def refine_truncation_not_asked(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Only when the paste's own tokenizer calls never pass truncation (and some call shows)."""
    calls = re.findall(r"\.(?:encode\w*|batch_encode_plus)\(([^)]*)\)|\b\w*tokenizer\w*\(([^)]*)\)",
                       parsed.text, re.I)
    if not calls or any("truncation" in a + b for a, b in calls):
        return {"reject": True}
    return None


_TRAINER_PASSES = frozenset({"prompts", "completions", "prompt", "completion", "completion_ids",
                             "trainer_state", "kwargs", "self"})


def refine_reward_parameter(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A missing positional argument is a dataset column only for a reward function of a GRPO
    run (its name, or the paste, says reward), and only for a name the trainer does not pass
    itself (prompts and completions come from the trainer in every release that passes any)."""
    if str(ev.get("column", "")) in _TRAINER_PASSES:
        return {"reject": True}
    if re.search(r"reward", str(ev.get("fn", "")), re.I) or \
            re.search(r"\bGRPO|reward_funcs?\b", parsed.text, re.I):
        return None
    return {"reject": True}


def refine_unused_model_kwargs(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """An unused model kwarg that the models' forward took in earlier transformers releases
    (GPT-2's `past` until 3.5): code written for an older transformers, not a misspelling."""
    for name in re.findall(r"'(\w+)'", str(ev.get("kwargs", ""))):
        change = api_change(name, "transformers")
        span = api_history.forward_kwarg_removed(name)
        if span is not None and (change is None or not change.removed):
            change = history_span_change(span, name)
        if change is not None and change.removed:
            return answer_from_change(change, f"The models' forward argument {name}", parsed, ev)
    return None


def refine_vocabulary_rows(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Two sizes of dimension 0 that are both vocabulary-sized and a few rows apart (32000 and
    32002) are a vocabulary and the same vocabulary with added tokens; other sizes are not."""
    if "rows_a" not in ev:
        return None                   # the "size mismatch for lm_head" wording
    a, b = int(ev["rows_a"]), int(ev["rows_b"])
    return None if min(a, b) >= 5000 and 0 < abs(a - b) <= 1000 else {"reject": True}


# the model class an Auto class maps a config to, when it is not "<Model>For<Task>"
_AUTO_SUFFIX = {"AutoModel": "Model", "AutoModelForSeq2SeqLM": "ForConditionalGeneration",
                "AutoModelForVision2Seq": "ForConditionalGeneration",
                "AutoModelForImageTextToText": "ForConditionalGeneration",
                "AutoModelForSpeechSeq2Seq": "ForConditionalGeneration"}


def refine_auto_class(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """An Auto class refusing a config: when a release of transformers has the model's class for
    that task (ElectraConfig, AutoModelForSequenceClassification: ElectraForSequenceClassification)
    the release that ran the code predates it; when none has, the Auto class does not fit. A
    repository's own code (transformers_modules) is another question (library.py)."""
    config, auto = str(ev.get("config", "")), str(ev.get("auto", ""))
    if config.startswith("transformers_modules."):
        return {"reject": True}
    cls = config.rsplit(".", 1)[-1]
    framework = next((p for p in ("TF", "Flax") if auto.startswith(p + "Auto")), "")
    base = auto[len(framework):]
    suffix = _AUTO_SUFFIX.get(base) or (base[len("AutoModel"):]
                                        if base.startswith("AutoModelFor") else None)
    if not cls.endswith("Config") or not suffix:
        return None
    name = framework + cls[:-len("Config")] + suffix
    span = api_history.top_name("transformers", name)
    stated = stated_version(parsed, "transformers")
    if span is None or version_lt(stated, span.first) is False or \
            (span.removed and version_lt(stated, span.removed) is not True):
        return None
    change = history_span_change(span, name)
    added = change.added if change else None
    return answer(OLD, "transformers", f"{name} is the model class {auto} maps "
                  f"{cls} to, and the transformers that ran the code predates it (the Auto "
                  "classes learn a model's task classes release by release).",
                  upgrade("transformers", added), ev)


# what the Trainer passes every schedule
_SCHEDULE_COMMON = {"optimizer", "num_warmup_steps", "num_training_steps"}


def refine_schedule_arguments(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A schedule lacking only what every schedule takes is your own call missing an argument,
    not a schedule type's own arguments."""
    missing = set(re.findall(r"'(\w+)'", str(ev.get("args") or "")))
    return {"reject": True} if missing and not missing - _SCHEDULE_COMMON else None


def refine_hidden_column_characters(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Only when the columns the message lists hold the name asked for, as written or once
    stripped of spaces and a byte-order mark: a name that is simply another is not this."""
    column = str(ev.get("column") or ev.get("column2") or "")
    listed = re.findall(r"'([^']*)'", str(ev.get("listed") or ev.get("listed2") or ""))
    if column and any(name.strip(" \t\ufeff\u00a0") == column.strip(" \t\ufeff\u00a0")
                      for name in listed):
        return None
    return {"reject": True}
