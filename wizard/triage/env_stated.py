"""What a paste states about releases, checked against the tables read from the released wheels:
a name the reporter says was removed, a model type a stated transformers release does not know,
and an import line a traceback was cut at, beside the release the paste lists."""
from __future__ import annotations

import re
from typing import Any

from wizard.triage import api_history
from wizard.triage.env_answers import (
    OLD,
    answer,
    answer_from_change,
    importer_of,
    named_libraries,
    stated_version,
    top_of,
    upgrade,
)
from wizard.triage.env_refines import model_type_added
from wizard.triage.packages import version_lt
from wizard.triage.parse import ParsedError
from wizard.triage.versions import ApiChange, history_span_change

_IMPORT = re.compile(r"\s*from (?P<module>[A-Za-z_][\w.]*) import \(?(?P<names>\w+(?:, *\w+)*)")


def _gone_everywhere(package: str, name: str) -> ApiChange | None:
    """The change of a name that a release of ``package`` removed from every module that had it
    (a name moved elsewhere is still importable, so not removed)."""
    spans = [api_history.top_name(package, name)]
    spans += [api_history.module_name(m, name)
              for m in api_history.modules_with_name(package, name)]
    spans = [s for s in spans if s is not None]
    if not spans or any(not s.removed for s in spans):
        return None
    rels = api_history.releases(spans[0].package)
    last = max(spans, key=lambda s: rels.index(s.last))
    change = history_span_change(last, name)
    return change if change is not None and change.removed else None


def refine_name_said_removed(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The reporter says a name was removed (or deprecated), and a library the paste names
    removed it, in a release not older than the one the paste lists: the code that uses it was
    written for an older release (pin below it, or update that code)."""
    name = str(ev.get("name", ""))
    for package in dict.fromkeys(named_libraries(parsed.text)):
        change = _gone_everywhere(package, name)
        stated = stated_version(parsed, package)
        if change is not None and (not stated or not version_lt(stated, change.removed)):
            return answer_from_change(change, f"`{name}`", parsed, ev, importer_of(parsed))
    return {"reject": True}


def refine_model_type_said_unsupported(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """"transformers 4.34.1 does not support 'gemma2'": true when the table dates the model's
    folder after that release, and then the upgrade is to the release that added it."""
    model_type, said = str(ev.get("model_type", "")), str(ev.get("version", ""))
    added = model_type_added(model_type)
    if not added or not version_lt(said, added):
        return {"reject": True}
    return answer(OLD, "transformers", f"transformers {said} has no '{model_type}' model: "
                  f"it was added in {added}.", upgrade("transformers", added), ev)


def refine_import_cut(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A traceback cut at an import line (no exception printed), beside the release of the
    imported library that the paste lists: a name that release lacks is the error."""
    last = parsed.frames[-1].code if parsed.frames and not parsed.exc_type else None
    line = _IMPORT.match(last or "")
    if line is None:
        return {"reject": True}
    module = line.group("module")
    package = top_of(module)
    stated = stated_version(parsed, package)
    if not stated:
        return {"reject": True}
    for name in re.findall(r"\w+", line.group("names")):
        span = api_history.top_name(package, name) if module == package else \
            api_history.module_name(module, name)
        if span is not None and not span.present_in(stated):
            change = history_span_change(span, name)
            if change is not None:
                return answer_from_change(change, f"`{name}`", parsed, ev, importer_of(parsed))
    return {"reject": True}
