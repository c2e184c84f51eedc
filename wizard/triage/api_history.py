"""The API history of the Hugging Face libraries: in which releases a name existed.

Reads ``api_history.json`` (built from the released wheels by ``scripts/build_api_history.py``; see
its docstring for what is recorded and the approximations) so triage can tell, for
"cannot import name 'X'" (from the package or one of its modules), "No module named 'pkg.sub'"
and "got an unexpected keyword argument 'k'", whether the name was added later (upgrade), removed
(pin below the removing release or use the replacement), or never existed in any release (a typo
or the wrong class: no upgrade helps). For
"'X' object has no attribute 'y'" it knows the members of a few dozen classes (``member``,
``member_in_no_release``); classes that forward or compute attributes answer nothing there.

Only the latest patch of each minor release is scanned: ``first`` and ``last`` are such releases, so
"first == 4.41.2" means "from 4.41 on". A name missing from some releases between its first and last
has those runs in ``Span.gaps``; ``Span.present_in(version)`` accounts for them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from wizard.triage.packages import parse_version, pip_name

_DATA = Path(__file__).with_name("api_history.json")

@dataclass(frozen=True)
class Span:
    """Releases of ``package`` that have ``name``, between ``first`` and ``last``."""

    package: str  # pip name
    name: str
    first: str  # first scanned release that has it
    last: str  # last scanned release that has it
    latest: str  # newest scanned release of the package
    owner: str | None = None  # for a keyword argument: the callable (maybe a base) that has it
    gaps: tuple[tuple[str, str], ...] = ()  # runs of releases between first and last without it

    @property
    def removed(self) -> str | None:
        """The scanned release right after ``last``; None while the newest release has it."""
        if self.last == self.latest:
            return None
        rels = releases(self.package)
        return rels[rels.index(self.last) + 1]

    def present_in(self, version: str) -> bool:
        """Whether release ``version`` (matched to its scanned minor release) has the name."""
        idx = _release_index(_import_name(self.package), version)
        if idx is None:
            return False
        rels = releases(self.package)
        if not rels.index(self.first) <= idx <= rels.index(self.last):
            return False
        return not any(rels.index(a) <= idx <= rels.index(b) for a, b in self.gaps)


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    return json.loads(_DATA.read_text(encoding="utf-8"))


def _numbers(text: str) -> tuple[int, ...]:
    """A release's numbers ((4, 41, 0)); () when the text is not a release."""
    return parse_version(text) or ()


def _import_name(package: str) -> str:
    """``huggingface-hub`` / ``Huggingface_Hub`` -> ``huggingface_hub``."""
    return package.strip().lower().replace("-", "_").replace(".", "_")


def releases(package: str) -> list[str]:
    """The scanned releases of ``package`` (import or pip spelling), oldest first."""
    return list(_data()["releases"].get(_import_name(package), []))


def _span(package: str, name: str, pair: list[int], owner: str | None = None,
          gaps: list[list[int]] | None = None) -> Span:
    rels = _data()["releases"][package]
    holes = tuple((rels[a], rels[b]) for a, b in gaps or ())
    return Span(pip_name(package), name, rels[pair[0]], rels[pair[1]], rels[-1], owner, holes)


def top_name(package: str, name: str) -> Span | None:
    """When ``from package import name`` worked (a submodule counts too); None if never."""
    pkg = _import_name(package)
    data = _data()
    pair = data["top"].get(pkg, {}).get(name)
    if pair is not None:
        return _span(pkg, name, pair, gaps=data["top_gaps"].get(pkg, {}).get(name))
    pair = data["modules"].get(pkg, {}).get(f"{pkg}.{name}")
    if pair is not None:
        return _span(pkg, name, pair, gaps=data["module_gaps"].get(pkg, {}).get(f"{pkg}.{name}"))
    return None


def top_names(package: str) -> list[str]:
    """Every name the top level of ``package`` exported in some scanned release."""
    return list(_data()["top"].get(_import_name(package), {}))


def exporters(name: str) -> list[str]:
    """The packages whose top level ever exported ``name`` (import spelling)."""
    return [pkg for pkg, names in _data()["top"].items() if name in names]


def module(path: str) -> Span | None:
    """When the module ``path`` (``"transformers.generation_utils"``) existed; None if never."""
    pkg = _import_name(path.split(".", 1)[0])
    dotted = ".".join([pkg, *path.split(".")[1:]])
    pair = _data()["modules"].get(pkg, {}).get(dotted)
    if pair is None:
        return None
    return _span(pkg, dotted, pair, gaps=_data()["module_gaps"].get(pkg, {}).get(dotted))


def module_name(path: str, name: str) -> Span | None:
    """When ``from path import name`` worked, for a name the module's file gained or lost
    while it existed; None for one every release of the module had, or none had."""
    pkg = _import_name(path.split(".", 1)[0])
    dotted = ".".join([pkg, *path.split(".")[1:]])
    pair = _data().get("names", {}).get(pkg, {}).get(dotted, {}).get(name)
    return _span(pkg, name, pair) if pair is not None else None


def modules_with_name(package: str, name: str) -> list[str]:
    """The modules of ``package`` whose file gained or lost ``name`` in some scanned release."""
    pkg = _import_name(package)
    return [m for m, names in _data().get("names", {}).get(pkg, {}).items() if name in names]


def owner(name: str) -> str | None:
    """The key of the recorded callable that ``name`` denotes, or None.

    Accepts ``"SFTTrainer"``, ``"SFTTrainer.__init__"``, ``"trl.SFTConfig"``, ``"Dataset.map"`` or a
    full path such as ``"trl.trainer.sft_trainer.SFTTrainer"``.
    """
    name = name.strip().removesuffix("()")
    name = name.removesuffix(".__init__")
    keys = _data()["kwargs"]
    if name in keys:
        return name
    parts = name.split(".")
    if parts and _import_name(parts[0]) in _data()["releases"]:
        parts[0] = _import_name(parts[0])
        if ".".join(parts) in keys:
            return ".".join(parts)
        for i in range(1, len(parts)):  # drop submodule parts: trl.trainer.sft_trainer.SFTTrainer
            key = ".".join([parts[0], *parts[i:]])
            if key in keys:
                return key
        return None
    for i in range(len(parts)):  # no package: match the qualified name in any package
        tail = ".".join(parts[i:])
        for pkg in _data()["releases"]:
            if f"{pkg}.{tail}" in keys:
                return f"{pkg}.{tail}"
    return None


def _package_of(owner_key: str) -> str:
    return owner_key.split(".", 1)[0]


def _base_chain(owner_key: str) -> list[str]:
    chain = [owner_key]
    bases = _data()["bases"]
    while chain[-1] in bases and bases[chain[-1]] not in chain:
        chain.append(bases[chain[-1]])
    return chain


def kwarg(owner_key: str, arg: str) -> Span | None:
    """When the callable ``owner_key`` accepted keyword ``arg`` (its own or a base class's).

    An argument a class inherits from a base of another package (``trl.SFTConfig`` from
    ``transformers.TrainingArguments``) and later redeclares itself is reported from the base, whose
    span (in the base's releases) is the wider truth; ``Span.owner`` names the callable that had it.
    """
    found: list[tuple[str, list[int]]] = []
    for key in _base_chain(owner_key):
        pair = _data()["kwargs"].get(key, {}).get(arg)
        if pair is not None:
            found.append((key, pair))
    if not found:
        return None
    key, pair = found[0]
    callable_first = _data()["callables"].get(key, pair)[0]
    if len(found) > 1 and pair[0] > callable_first:
        key, pair = found[1]
    gaps = _data()["kwarg_gaps"].get(key, {}).get(arg)
    return _span(_package_of(key), arg, pair, owner=key, gaps=gaps)


def _release_index(package: str, version: str) -> int | None:
    """Index of the scanned release for ``version``: same minor, else the newest one before it."""
    rels = _data()["releases"].get(package, [])
    want = _numbers(version)
    best = None
    for i, rel in enumerate(rels):
        have = _numbers(rel)
        if have[:2] == want[:2]:
            return i
        if have <= want:
            best = i
    return best


def kwarg_in_no_release(owner_key: str, arg: str) -> bool:
    """True when ``owner_key`` is a recorded callable, ``arg`` is in none of its scanned releases
    (nor its bases'), and no release of it (or its bases) took ``**kwargs``."""
    if owner_key not in _data()["kwargs"] or kwarg(owner_key, arg) is not None:
        return False
    return not any(_data()["varkw"].get(key) for key in _base_chain(owner_key))


def kwarg_added(arg: str) -> list[Span]:
    """The recorded callables that gained keyword ``arg`` after their first scanned release and
    still take it in the newest one (``token``: ``datasets.load_dataset`` from 2.14, ...), one per
    package, oldest package name first."""
    data, found = _data(), {}
    for key in sorted(data["kwargs"]):
        span = kwarg(key, arg)
        first = data["callables"].get(key, [0])[0]
        if span is None or span.owner != key or span.last != span.latest:
            continue
        if _release_index(_package_of(key), span.first) == first:
            continue                  # taken since the callable's first release: never added
        found.setdefault(span.package, span)
    return list(found.values())


def forward_kwarg_removed(arg: str) -> Span | None:
    """Keyword ``arg`` of a recorded model forward (``transformers.GPT2LMHeadModel.forward``) that
    a release took away for good, or None: the release after its last one accepts no ``**kwargs``
    either (transformers 5's forwards take them, so their explicit arguments did not go away)."""
    data = _data()
    for key in sorted(k for k in data["kwargs"] if k.endswith(".forward")):
        span = kwarg(key, arg)
        if span is None or span.removed is None:
            continue
        after = releases(span.package).index(span.removed)
        if not any(a <= after <= b for a, b in data["varkw"].get(key, [])):
            return span
    return None


def callables(package: str) -> list[str]:
    """The keys of the recorded callables of ``package`` (``"trl.SFTTrainer"``, ...)."""
    prefix = _import_name(package) + "."
    return [k for k in _data()["kwargs"] if k.startswith(prefix)]


# ---------------------------------------------------------------------------- class members


def member_class(name: str) -> str | None:
    """The key (``"transformers.Trainer"``) of the recorded class ``name`` denotes, or None.

    Accepts ``"Trainer"``, ``"transformers.Trainer"``, ``"trl.trainer.sft_trainer.SFTTrainer"``.
    """
    name = name.strip().strip("'\"").removesuffix("()")
    keys = _data()["classes"]
    if name in keys:
        return name
    parts = name.split(".")
    if parts and _import_name(parts[0]) in _data()["releases"] and len(parts) > 1:
        pkg = _import_name(parts[0])
        key = f"{pkg}.{parts[-1]}"  # drop submodule parts
        return key if key in keys else None
    for pkg in _data()["releases"]:
        if f"{pkg}.{parts[-1]}" in keys:
            return f"{pkg}.{parts[-1]}"
    if "transformers.PreTrainedModel" in keys and (_HEAD_CLASS.match(parts[-1]) or (
            _MODEL_CLASS.match(parts[-1]) and parts[-1] in _data()["top"].get("transformers", {}))):
        return "transformers.PreTrainedModel"   # a model class: its members come from the base
    if "transformers.PreTrainedTokenizerBase" in keys and _TOKENIZER_CLASS.match(parts[-1]) and (
            parts[-1].endswith("Fast") or not _OTHER_TOKENIZER.search(parts[-1])):
        return "transformers.PreTrainedTokenizerBase"   # a tokenizer class (a checkpoint's own too)
    return None


# a transformers PyTorch model class (LlamaForCausalLM, BertModel), not a TF/Flax one: a name
# with a task head is one (a model repository's own code names its classes so too); a bare
# "...Model" only when transformers exported it (ReftModel, PeftModel wrap a model, they are none)
_MODEL_CLASS = re.compile(r"^(?!TF|Flax)[A-Z]\w*(?:For[A-Z]\w+|Model)$")
_HEAD_CLASS = re.compile(r"^(?!TF|Flax)[A-Z]\w*For[A-Z]\w+$")
# a transformers tokenizer class (LlamaTokenizerFast, a repository's own Telechat2Tokenizer); the
# tokenizers library's and Keras' own classes are named after their algorithm
_TOKENIZER_CLASS = re.compile(r"^(?!TF|Flax|Keras)[A-Z]\w+Tokenizer(?:Fast)?$")
_OTHER_TOKENIZER = re.compile(r"WordPiece|BytePair|SentencePiece|BPE|Unigram|ByteLevel|Regex|"
                              r"Whitespace|Character")


def _member_chain(class_key: str) -> list[str]:
    """``class_key`` and the recorded classes of other packages it inherits from (transitively)."""
    chain = [class_key]
    for key in chain:
        chain += [b for b in _data()["member_bases"].get(key, []) if b not in chain]
    return chain


def member(class_key_or_name: str, attr: str) -> Span | None:
    """When instances of the class had attribute or method ``attr``; None if in no scanned release.

    Members are methods, properties, class-level assignments and annotated fields, and attributes
    assigned as ``self.attr = ...`` in the class's methods; those of its bases in the same package
    are folded into the class's own record. A member inherited from a recorded class of another
    package (``trl.SFTTrainer`` from ``transformers.Trainer``) is reported from that base -- also
    when the class itself redeclared it only later -- and ``Span.owner`` is then the base's key;
    otherwise ``Span.owner`` is the class's own key and the span is in its package's releases.
    """
    key = member_class(class_key_or_name)
    if key is None:
        return None
    found = [(k, _data()["members"].get(k, {}).get(attr)) for k in _member_chain(key)]
    found = [(k, pair) for k, pair in found if pair is not None]
    if not found:
        return None
    owner_key, pair = found[0]
    if len(found) > 1 and owner_key == key and pair[0] > _data()["classes"][key][0]:
        owner_key, pair = found[1]
    gaps = _data()["member_gaps"].get(owner_key, {}).get(attr)
    return _span(_package_of(owner_key), attr, pair, owner=owner_key, gaps=gaps)


def member_open(class_key_or_name: str) -> dict[str, str]:
    """Why no attribute of the class can be said missing: {reason: "pkg.Class"} over all its scanned
    releases and those of its recorded bases. Reasons: ``__getattr__`` / ``__getattribute__`` (it
    forwards or computes attributes: ``BatchEncoding``, ``PeftModel`` -> its base model,
    ``PretrainedConfig``'s ``attribute_map``), ``setattr`` (it sets attributes named by its caller,
    e.g. ``GenerationConfig(**kwargs)``), ``base X`` (a base outside the scanned packages, such as
    ``torch.nn.Module`` or keras ``Model``) and ``subclass fields`` (``ModelOutput``)."""
    key = member_class(class_key_or_name)
    reasons: dict[str, str] = {}
    for k in _member_chain(key) if key else []:
        for reason in _data()["member_open"].get(k, {}):
            reasons.setdefault(reason, k)
    return reasons


def member_in_no_release(class_key_or_name: str, attr: str) -> bool:
    """True when the class is recorded, ``attr`` is a member of none of its scanned releases (nor of
    its bases'), and the class is closed: such classes answer nothing, i.e. this is False for a
    class that in any release defines ``__getattr__`` / ``__getattribute__``, sets attributes named
    by its caller or has a base outside the scanned packages (see ``member_open``)."""
    key = member_class(class_key_or_name)
    if key is None or member(key, attr) is not None:
        return False
    return not member_open(key)


def requirements(package: str, version: str) -> dict[str, str]:
    """What the release of ``package`` matching ``version`` (its scanned minor release) requires
    of the other recorded libraries and torch: {dependency pip name: specifier}, from the wheel's
    Requires-Dist (extras left out); {} for a release before the first scanned one."""
    pkg = _import_name(package)
    idx = _release_index(pkg, version)
    rels = releases(pkg)
    if idx is None or (_numbers(version)[:2] != _numbers(rels[idx])[:2] and idx == 0):
        return {}
    return dict(_data().get("requires", {}).get(pkg, {}).get(rels[idx], {}))
