"""Environment rules for skew between packages: one library builds a call that a newer release
of another rejects (sentence-transformers' unbatched input to a newer transformers, told apart
from the same error raised by the user's own call), pins that cannot be installed together, and
a compiled extension built for another torch.
"""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.env_answers import BINARY, NEW, OLD, answer, importer_of
from wizard.triage.packages import version_lt
from wizard.triage.parse import ParsedError
from wizard.triage.versions import satisfies

# code of the paste that calls a model (or a Keras predict) directly with token ids
_DIRECT_CALL = re.compile(r"\b\w*model\w*(?:\.predict)?\((?:[^()\n]*\b(?:input_ids|inputs?|"
                          r"encod\w*|tokens?|ids)\b|\*\*)", re.I)
# a library between the user and the model that builds the batch itself
_BUILDERS = re.compile(r"\b(?:sentence_transformers|SentenceTransformer|txtai|simpletransformers|"
                       r"flair|bertopic|setfit)\b", re.I)


def refine_unbatched_input(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """1-D input_ids reached a transformers model. From the user's own call: the batch dimension
    is missing. Through a library that builds the batch (sentence-transformers and the tools on
    top of it): that library is older than the installed transformers, which stopped accepting
    unbatched input (3.1)."""
    user = parsed.innermost_user_frame
    own = (user is not None and bool(_DIRECT_CALL.search(user.code or ""))) or \
        (not _BUILDERS.search(parsed.text) and bool(_DIRECT_CALL.search(parsed.text)))
    builder = importer_of(parsed, "transformers") or (
        m.group(0) if (m := _BUILDERS.search(parsed.text)) else None)
    if not ev.get("flat") and (own or builder is None):
        return {"reject": True}       # no shape shown, no library building the batch: unknown
    if own or builder is None:
        return {"id": "missing-batch-dimension",
                "cause": "The model got one sequence without its batch dimension: input_ids of "
                         "shape (seq_len,) instead of (batch, seq_len).",
                "fix": "input_ids = input_ids.unsqueeze(0)   # or np.expand_dims(x, 0); or pass "
                       "the tokenizer's batched output (return_tensors='pt')"}
    lib = "sentence-transformers" if re.search(r"sentence|SentenceTransformer|txtai|setfit|"
                                               r"bertopic", builder, re.I) else builder
    return answer(NEW, "transformers", f"{lib} passes unbatched (1-D) input_ids, which the "
                  "installed transformers rejects since 3.1: it is newer than that "
                  f"{lib} release supports.",
                  f'pip install -U {lib}   # a release made for the installed transformers\n'
                  '# or: pip install "transformers<3.1"', ev, (lib,))


_CONFLICT = re.compile(r"The user requested (?P<pkg>[\w.-]+)\s*==\s*(?P<pinned>[\w.]+)\s*\n\s*"
                       r"(?P<dep>[\w.-]+) (?P<dep_version>[\w.]+) depends on (?P=pkg)\s*"
                       r"(?P<spec>[^\n]{1,120})")


def refine_pins_conflict(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """pip's resolver: two pins of one requirements file (or command) that cannot hold
    together. Its own explanation names both; the fix is the pin the dependency accepts."""
    m = _CONFLICT.search(parsed.text)
    if m is None:
        return {"id": "requirements-pins-conflict",
                "cause": "The requirements pin versions that cannot be installed together: one "
                         "pinned package requires another in a range the other pin is outside "
                         "of.",
                "fix": "pip install -r requirements.txt   # after loosening the pin pip names in "
                       "'The conflict is caused by'"}
    pkg, pinned, dep = m.group("pkg"), m.group("pinned"), m.group("dep")
    spec = m.group("spec").strip().replace(" and ", ",")
    return {"id": "requirements-pins-conflict",
            "cause": f"The requirements pin {pkg}=={pinned}, but the pinned {dep} "
                     f"{m.group('dep_version')} requires {pkg} {spec}: both cannot be installed.",
            "fix": f'pip install "{pkg}{spec.replace(" ", "")}"   # replace the {pkg}=={pinned} pin '
                   f"with the range {dep} {m.group('dep_version')} accepts (or drop the pin)"}


def refine_installed_conflict(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """pip's warning after an install: a package now sits beside a release of its dependency
    outside the range it requires. Above an upper bound (or a == pin) the dependency is too new
    for it; below a lower bound, too old."""
    who, pkg, spec, found = (str(ev.get(k, "")) for k in ("who", "pkg", "spec", "found"))
    spec = spec.replace(" ", "")
    bounds = re.findall(r"(<=|<|==|~=|>=|>)\s*(\d[\w.]*)", spec)
    upper = [b for op, b in bounds if op in ("<", "<=", "==", "~=")
             and satisfies(found, op + b) is False and version_lt(found, b) is not True]
    kind = NEW if upper or not any(op in (">", ">=") for op, _ in bounds) else OLD
    return answer(kind, pkg, f"{who} requires {pkg}{spec}, and {pkg} {found} is installed: "
                  f"{pkg} is {'newer' if kind == NEW else 'older'} than {who} supports (an "
                  f"install step changed {pkg} after {who}).",
                  f'pip install "{pkg}{spec}"   # the range {who} accepts\n'
                  f"# or: pip install -U {who}   # a release made for {pkg} {found}", ev, (who,))


def refine_binary_built_for(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A compiled extension (xFormers) built for another torch: install the build that matches
    the installed torch, or the torch it was built for."""
    ext, built, have = str(ev.get("ext")), str(ev.get("built")), str(ev.get("have"))
    return answer(BINARY, ext.lower(), f"{ext} was built for torch {built}, and torch {have} is "
                  "installed (an install step upgraded torch after it), so its compiled "
                  "extensions do not load.",
                  f"pip install -U {ext.lower()}   # a build for torch {have}\n"
                  f"# or: pip install torch=={built.split('+')[0]}   # the torch it was built for",
                  ev, ("torch",))
