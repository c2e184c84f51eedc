"""Environment rules read from what a release says about itself: a dataset script looked up
under the installed datasets' own release tag, a library's example script run against an older
installed release, a feature a library says it does "not support yet", and a library class whose
constructor now requires an argument the code (written for an older release) does not pass.
"""
from __future__ import annotations

import re
from typing import Any

from wizard.triage import api_history
from wizard.triage.env_answers import (
    NEW,
    OLD,
    USER_CLASS,
    answer,
    libclass,
    named_library,
    pin,
    stated_version,
    upgrade,
)
from wizard.triage.packages import pip_name, version_lt
from wizard.triage.parse import ParsedError
from wizard.triage.versions import installed_version

_NOT_YET = re.compile(r"\s*\b(?:(?:is|are) )?not (?:yet )?supported yet\b|\s*\b(?:(?:is|are) )?not "
                      r"yet supported\b", re.I)
_WORKED_BEFORE = re.compile(r"\b(?:used to work|was working|worked (?:fine |well )?(?:with|on|in|"
                            r"before|until)|works? (?:fine )?(?:with|on|in) v?\d+\.\d+)", re.I)
_ORG = {"unsloth": "unslothai", "bitsandbytes": "bitsandbytes-foundation",
        "deepspeed": "deepspeedai", "sentence-transformers": "UKPLab"}


def refine_dataset_script_release(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """datasets 1.x fetched a canonical dataset's script from the GitHub tag of its own release:
    a dataset added after that release is not there (on master it would be: then the name is
    wrong, not the release)."""
    release, name = str(ev.get("release", "")), str(ev.get("name", ""))
    if not re.fullmatch(r"\d+\.\d+\.\d+", release):
        return {"reject": True}
    return answer(OLD, "datasets", f"datasets {release} looks for the {name!r} loading script "
                  f"under its own release tag ({release}); a dataset added to the library after "
                  f"{release} is not there.", upgrade("datasets"), ev)


def refine_packaged_builder(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """load_dataset('audiofolder') looked for a script or a Hub dataset of that name: the name
    is one of datasets' own builders, which the installed release predates (a release that has
    it, stated in the paste, is another matter)."""
    name = str(ev.get("name") or ev.get("name2") or ev.get("name3") or "")
    span = api_history.module(f"datasets.packaged_modules.{name}") if name else None
    packaged = api_history.module("datasets.packaged_modules")
    if span is None or packaged is None or span.first == packaged.first:
        return {"reject": True}       # a builder since the packaged builders began (csv, json)
    stated = stated_version(parsed, "datasets")
    if stated and version_lt(stated, span.first) is False:
        return {"reject": True}
    return answer(OLD, "datasets", f"{name!r} is one of datasets' own builders, added by "
                  f"datasets {span.first}; the installed release predates it, so load_dataset "
                  f"looks for a loading script or a Hub dataset of that name instead.",
                  upgrade("datasets", span.first), ev)


def refine_example_script(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A library's example script failing to import from the library: the examples on the main
    branch follow the source, newer than the installed release. The library is the one the
    failing import names."""
    failing = re.search(r"cannot import name \S+ from ['\"`]?(?P<lib>[A-Za-z_]\w*)", parsed.text)
    lib = (pip_name(failing.group("lib")) if failing else named_library(parsed)) or "transformers"
    if lib not in ("transformers", "datasets", "accelerate", "peft", "trl", "diffusers"):
        return {"reject": True}
    return answer(OLD, lib, f"The example script ({ev.get('script')}) comes from {lib}'s main "
                  f"branch, which follows the source: it imports names that the installed {lib} "
                  "release does not have yet.",
                  f"pip install git+https://github.com/huggingface/{lib}   # the examples on main "
                  f"need the source\n# or run the examples of your release: git checkout "
                  f"v{installed_version(lib) or stated_version(parsed, lib) or '<your version>'}",
                  ev)


def refine_not_supported_yet(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A library saying it does not support something *yet*: a later release may (the first
    answer a maintainer gives). Only for a library's own words: its frame, or a message of a
    library the paste names."""
    lib = named_library(parsed)
    if lib is None or _WORKED_BEFORE.search(parsed.text):
        return {"reject": True}       # a release that used to do it: a regression, not "yet"
    stated = stated_version(parsed, lib)
    line = next((ln for ln in parsed.text.splitlines() if _NOT_YET.search(ln)), "")
    what = _NOT_YET.split(line, 1)[0][-80:].strip(" '\"`(")
    return answer(OLD, lib, f"{lib}{' ' + stated if stated else ''} says it does not support "
                  f"this yet{f' ({what})' if what else ''}: support came, or comes, in a later "
                  f"release.", upgrade(lib) + "   # or its main branch: pip install "
                  f"git+https://github.com/{_ORG.get(lib, 'huggingface')}/{lib}", ev)


def refine_constructor_argument(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A library class whose constructor requires an argument the call does not pass: the code
    follows an older release's signature (the library's classes default their options)."""
    cls, arg = str(ev.get("cls", "")), str(ev.get("arg", ""))
    lib = libclass(cls)
    if not lib or USER_CLASS.search(cls) or \
            re.search(rf"^\s*class {re.escape(cls)}\b", parsed.text, re.M):
        return {"reject": True}
    return answer(NEW, lib, f"{cls}() of the installed {lib} requires {arg!r}, which the code "
                  f"does not pass: it was written for an older {lib}, whose {cls} took other "
                  "arguments.", f"# follow the installed release's documentation for {cls}(...)"
                  f"\n{pin(lib, installed_version(lib) or stated_version(parsed, lib))}   # or "
                  "the release the code was written for", ev)
