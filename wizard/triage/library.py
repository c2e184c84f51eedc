"""Is it a bug in a library? The evidence a paste gives, and the known, fixed bugs.

`assess_library_bug` weighs what a paste shows: a Rust panic (a library must never panic), an
internal crash (NameError, or an AttributeError on a library's own object, raised in library
code; an UnboundLocalError or NameError in library source the paste links to), the library's own
example script or notebook failing as given, a file the library wrote that it cannot read back, a
TensorFlow graph that the library itself failed to build, the reporter's statement that the same
code works on an older release (a regression), or a fix being described. The innermost frames
being library code with no known signature is the weakest evidence (kept as before).
`find_known_bug` looks the paste up in the offline table of known, fixed bugs (known_bugs.py): a
paste that matches one on a version before the fix gets "known bug, fixed in X: upgrade" and the
thread.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from wizard.triage import api_history
from wizard.triage.env_answers import (
    FAMILY,
    foreign_private,
    private_call_mismatch,
    import_within_declared,
    importer_of,
    LIBRARIES,
    blamed_library,
    internal_call_mismatch,
    lagging_override,
    own_data_file_missing,
    private_override_arity,
    project_subclass,
    removed_internal_user,
    top_of,
)
from wizard.triage.env_imports import hardware_path_taken, own_submodule_missing
from wizard.triage.frames import Frame, attribute_reader_frame
from wizard.triage.known_bugs import KNOWN_BUGS, KnownBug
from wizard.triage.parse import ParsedError
from wizard.triage.packages import dist_key, pip_name
from wizard.triage.versions import installed_version, paste_versions


_PANIC = re.compile(r"panicked at|PanicException|RUST_BACKTRACE", re.I)
# EXDEV: a rename from one file system to another, which only a copy can do
_CROSS_DEVICE = re.compile(r"\[Errno 18\] Invalid cross-device link|\bEXDEV\b")
_NODEDEF = re.compile(r"errors? while building NodeDef", re.I)
# datasets' verification of a loading script's source files (NonMatchingChecksumError)
_CHECKSUM = re.compile(r"NonMatchingChecksumError|Checksums didn't match (?:for dataset source "
                       r"files|for downloaded)", re.I)
_REGRESSION = [re.compile(p, re.I) for p in (
    # "works with 4.30" (not "does not work, using 0.19": that is the failure, not the fix)
    r"(?<!not )(?<!n't )(?<!never )(?<!no longer )"
    r"\b(?:works?|worked|working|runs? (?:fine|smoothly)|no (?:issue|problem|error)s?|resolves?|"
    r"resolved|goes away|went away)\b[^.\n]{0,40}?\b(?:with|on|in|using|after downgrad\w*"
    r"(?: to)?)\s+(?:`?[\w-]+`?\s*(?:==|=|\s)\s*)?`?v?\d+\.\d+",
    r"(?:downgrad\w*|revert\w*|roll\w* back|going back|go back|fall(?:ing)? back|switch\w* "
    r"back)\b[^\n]{0,60}?\d+\.\d+[^\n]{0,60}?"
    r"(?:works?|fix\w*|solv\w*|resolv\w*|no longer|gone|fine|runnable|runs)\b",
    # no version named: "this is recent behavior", "until recently it worked", "it used to work"
    r"\bthis is (?:a )?(?:recent|new) behaviou?r\b|\buntil (?:recently|the past "
    r"(?:few )?(?:days|weeks|months))\b[^.\n]{0,80}?\bwork(?:ed|s)\b|\bworked (?:fine|perfectly|"
    r"without (?:any )?(?:issue|problem)s?)\b[^.\n]{0,40}?\b(?:until|before) (?:recently|yesterday|"
    r"last week|the (?:latest|last|new|recent) (?:release|update|version))",
    # a pull request or commit the reporter blames, as a link
    r"\b(?:due to|caused by|introduced (?:by|in)|because of|since) (?:this |the )?(?:\[?(?:PR|pull "
    r"request|commit|change)\]?\(?|\[[^\]\n]{1,150}\]\()https?://github\.com/[\w.-]+/[\w.-]+/"
    r"(?:pull|commit)/",
    # two releases side by side: "In version 4.3.x the following code ... In version 4.2.x the
    # code returned a tensor"
    r"\b(?:in|with|on|using) (?:version |release |v)\d+\.\d+[\w.]*,? (?:the (?:same )?code|it|this) "
    r"(?:returned|worked|works fine|works)\b",
    r"(?:after|since|on|upon|when) (?:upgrad\w*|updat\w*|bump\w*)\b[^\n]{0,60}?\d+\.\d+[^\n]"
    r"{0,120}?(?:fail\w*|break\w*|broke\w*|error|crash\w*|raises?)",
    # "This recent PR included in 4.39.0 imports it and lead to a hard requirement on torch 2"
    r"\b(?:this|the|a) (?:recent |new |latest )?(?:PR|pull request|commit)\b[^\n]{0,80}?\b(?:lead|led|"
    r"leads) to\b(?![^\n]*\?)|"
    # the word in prose, not a string in code (output_mode == "regression")
    r"(?<!['\"_])\bregression\b(?!['\"])|\bintroduced (?:by|in) (?:PR )?#\d+|"
    r"(?:caused|broken|broke) by (?:PR )?#\d+|"
    r"(?:PR|pull request) #?\d+ (?:introduced|broke|breaks)",
    r"\b(?:in|with) `?[\w-]+`? v?\d+\.\d+\S* but not (?:in|with|on) `?[\w-]+`? v?\d+\.\d+",
    r"(?:broken|broke|breaks|doesn't work|does not work|no longer works?|stopped working)\b"
    r"[^.\n]{0,30}?\b(?:in|with|since|on|from)\s+(?:`?[\w-]+`?\s+)?v?\d+\.\d+",
    r"\b(?:in|with) `?[\w-]+`? v?\d+\.\d+\S*(?: and v?\d+\.\d+\S*)?,? (?:it|this) (?:doesn't|"
    r"does not|no longer|fails|breaks|raises)",
    # nothing of the user's changed: "was working fine yesterday", "no changes to the notebook",
    # "the newly pushed changes broke the installation"
    r"\b(?:was|were|had been) (?:working|running) (?:fine |perfectly |well )?(?:yesterday|last "
    r"week|a (?:day|week) ago|(?:up )?(?:until|till|til) (?:today|yesterday|recently|last week))|\bno changes? (?:to|in) (?:the|my) "
    r"(?:code|notebook|script)\b|\b(?:newly|recently) pushed changes? (?:broke|break)|\b(?:latest|"
    r"new|recent) (?:commit|push|update|release) (?:broke|breaks|has broken)\b",
    # "Since (Python) version 0.11.3, tokenizers are not dealing with mask tokens as ..."
    r"\bsince (?:\(?[\w ]{1,20}\)? )?(?:version |release |v)\d+\.\d+[\w.]*,? [^.\n]{0,80}?\b(?:not|no "
    r"longer|fails?|broke|breaks|wrong)\b",
    # the same in Chinese: "the old version trained fine" (老版能成功训练), "the solution was to
    # pin transformers to 4.50.2" (解决方案是将transformers 固定为4.50.2版本)
    r"(?:老|旧|之前的?|以前的?|上一?个|上(?:周|星期|个月|次)的?|昨天的?)版本?[^\n，。,；]{0,20}?"
    r"(?:可以|能|正常|没有?问题|成功|不会)|"
    # "after today's git pull it fails" (今天git pull更新后...报错): the project's own new code
    r"git pull[^\n，。]{0,12}?(?:后|之后|以后)[^\n]{0,30}?(?:报错|出错|错误|失败)|"
    r"(?:解决|处理)(?:方案|方法|办法)是[^\n]{0,20}?(?:降级|回退|退回|固定|锁定|换成|改成|改为|"
    r"安装)[^\n]{0,30}?\d+\.\d+|(?:降级|回退|退回)(?:到|为|成)?[^\n，。]{0,30}?\d+\.\d+[^\n]{0,30}?"
    r"(?:可以|就好|正常|解决|没有?问题|成功)",
    # a release named as the breaking one: "transformers 4.35.0 is breaking peft 0.6"
    r"\bv?\d+\.\d+[\w.]* (?:is |are )?(?:breaking|breaks|broke)\b",
    # the other word order: "on version 0.14.0, no errors occur"
    r"\b(?:on|with|in|using) (?:version |release |v)?\d+\.\d+[\w.]*,? (?:there (?:is|are) )?"
    r"(?:no (?:errors?|issues?|problems?)|(?:it|everything) works)",
    # the release first, then the word: "transformers-4.47.0 worked for me", "0.19 works fine"
    r"(?<![\w.])`?[\w-]+`?[- =]v?\d+\.\d+[\w.]*`? (?:worked|works (?:fine|well|perfectly|for me)|"
    r"is working|was working)\b(?![^.\n]{0,30}\?)",
)]
# a pull request's own words ("Fixes #123", "Fixes bug: ..."), or the reporter sending one
_FIX_DESCRIBED = re.compile(r"^\s*(?:Fixes|Fix|Fixing|Closes|Resolves)\s+(?:#\d+|`|an? (?:bug|"
                            r"issue)|the following (?:bug|error|issue|crash))|"
                            r"^\s*Fixes (?:a |the )?bug\b|"
                            r"^\s*(?:This )?(?:pull request|PR) (?:in order |is )?to fix\b|"
                            r"^\s*(?:This PR |It )?(?:prevents|avoids) the following (?:error|bug|"
                            r"crash)|"
                            # a dependency the library forgot to declare
                            r"\b(?:add|adding) (?:it|this|`?[\w-]+`?) (?:to|in) (?:the )?`?(?:setup\.py|"
                            r"install_requires|pyproject\.toml)`?(?: requirements)?\b", re.I | re.M)
# the reporter about to send a fix: evidence against a signature of the error, not against the
# installation's answer (the pull request may only pin a requirement)
_FIX_OFFERED = re.compile(r"\bI(?:'ll| will|'ve| have|'m going to| am going to)? (?:open|opened|"
                          r"submit|submitted|send|sent|make|made|create|created) (?:a|the) "
                          r"(?:PR|pull request)\b|\bgoing to (?:open|create|submit|send|make) "
                          r"(?:a|the) (?:PR|pull request)\b", re.I)
_DEV_BUILD = re.compile(r"\b\d+\.\d+\.\d+\.?dev\d*\b|\b(?:install\w*|built|using) (?:`?[\w-]+`? )?"
                        r"from (?:master|main|source)\b", re.I)
# the failing code is the library's own: its official example scripts or notebooks, run as given
_OFFICIAL_EXAMPLE = re.compile(
    r"\[x\]\s*(?:the )?official example scripts?"
    r"|github\.com/huggingface/(?:notebooks|[\w-]+/(?:blob|tree)/[\w.-]+/examples)/"
    r"|\b(?:running|ran|run|executing|execute) (?:the )?`?examples?/(?:[\w.-]+/)*run_\w+\.py\b"
    r"|colab\.research\.google\.com/github/huggingface/"
    r"|\b(?:run|running|ran|using|use|with) the (?:official |documented )?example (?:code|script|"
    r"notebook)\b"
    r"|\bthe example (?:code|script) (?:from|in|of) the (?:docs|documentation|README|model card)",
    re.I)
_OWN_SCRIPT = re.compile(r"\[x\]\s*my own (?:modified )?scripts?", re.I)
# a link to a line of a library's own source (the reporter pointing at the code that fails)
_BLOB = r"github\.com/{org}/[\w.-]+/blob/[\w.-]+/[\w/.-]+\.py"
_SOURCE_LINK = re.compile(_BLOB.format(org="(?:huggingface|keras-team|tensorflow|pytorch)"))
# the library writing a file it cannot parse back: `x.save("p")` ... `from_file("p")` fails on
# the content
# a link to a commit of a library (the reporter pointing at the change that broke it)
_COMMIT_LINK = re.compile(r"github\.com/(?:huggingface|keras-team|tensorflow|pytorch)/[\w.-]+/"
                          r"commit/[0-9a-f]{7,40}", re.I)
_SAVED = re.compile(r"\.(?:save|save_pretrained|save_to_disk|save_model)\(\s*(?:\w+\s*=\s*)?"
                    r"(?P<q>[\"'])(?P<path>[^\"'\n]+)(?P=q)")
_LOAD_CALL = r"\.(?:from_file|from_pretrained|load_from_disk|load)\(\s*(?:\w+\s*=\s*)?[\"']{}[\"']"
# the file is there but its content does not parse (a missing file is a wrong path or loader)
_UNPARSABLE = re.compile(r"line \d+ column \d+|JSONDecodeError|Expecting (?:value|property)|"
                         r"invalid (?:json|format|file)|(?:could not|failed to|unable to) "
                         r"(?:parse|deserializ\w*|decode)|unexpected (?:token|character|end)|"
                         r"corrupt\w*", re.I)
_CRASH_TYPES = frozenset({"NameError", "UnboundLocalError", "AttributeError"})
# a builtin value used as if it had a method it never had: the library's own code is wrong
_BUILTIN_MISUSE = re.compile(r"'(?P<type>dict|list|str|tuple|int|float|bool|set|bytes)' object "
                             r"has no attribute '(?P<attr>\w+)'")
_LITERAL = r"(?:-?\d+(?:\.\d+)?(?:e-?\d+)?|'[^'\n]*'|\"[^\"\n]*\"|True|False|None)"
_LITERAL_CALL = re.compile(rf"\.\w+\(\s*(?:(?:\w+\s*=\s*)?{_LITERAL}\s*,?\s*)+\)\s*$")
# Keras' mixed precision switched on, and a half-precision tensor meeting a float32 one
_POLICY = re.compile(r"mixed_(?:b?float16)|set_(?:global_)?policy\(")
_HALF_VS_FLOAT = re.compile(r"expected to be a (?:half|bfloat16|float16) tensor but is a float "
                            r"tensor|expected to be a float tensor but is a (?:half|bfloat16) "
                            r"tensor|tf\.(?:b?float16) != tf\.float32|tf\.float32 != "
                            r"tf\.(?:b?float16)")
# exception types a library raises by accident (its own validation raises ValueError & co.)
_INTERNAL_TYPES = frozenset({"AttributeError", "TypeError", "KeyError", "IndexError",
                             "UnboundLocalError", "NameError", "ZeroDivisionError"})
# a private attribute missing ("'X' object has no attribute '_x'", or the name alone as
# __delattr__ words it), not a dunder and not an attribute of None
_PRIVATE_ATTR = re.compile(r"(?:^|(?<!'NoneType') object has no attribute ')"
                           r"(?P<attr>_(?!_)\w+)'?\s*$")
_LIB_OBJECT = re.compile(r"'(?P<cls>[A-Z]\w+)' object has no attribute '(?P<attr>\w+)'")
_NO_MODULE = re.compile(r"No module named '(?P<module>[A-Za-z_][\w.]*)'")
_NAME_ERROR = re.compile(r"name '(?P<name>[A-Z]\w+)' is not defined")
_LIB_NAMES = re.compile(
    r"^(?:Peft\w*|Lora\w*|\w+Trainer|\w+Config|\w+Tokenizer\w*|\w+For[A-Z]\w+|\w+Model|"
    r"Dataset\w*|Builder\w*|Accelerator\w*|\w+State|\w+Plugin|\w+Collator\w*|\w+Processor|"
    r"\w+Pipeline)$")


@dataclass
class LibraryBug:
    """Why the paste points at a library bug, in which package, and a known fix if any."""

    package: str | None
    version: str | None               # the version the paste states, else the one installed here
    reasons: list[str] = field(default_factory=list)
    strong: bool = False              # outweighs a user-error signature found in the paste
    known: KnownBug | None = None

    @property
    def installed(self) -> str | None:
        return installed_version(self.package) if self.package else None

    def title(self) -> str:
        pkg = " ".join(x for x in (self.package, self.version) if x) or "a library"
        if self.known is not None:
            return f"Known bug in {pkg}, fixed in {self.known.fixed_in}: upgrade"
        return f"Possible bug in {pkg}"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"package": self.package, "version": self.version,
                             "installed": self.installed, "reasons": self.reasons,
                             "strong": self.strong}
        if self.known is not None:
            d["known_bug"] = {"fixed_in": self.known.fixed_in, "url": self.known.url,
                              "summary": self.known.summary}
        return d


def _version_of(package: str | None, parsed: ParsedError) -> str | None:
    if not package:
        return None
    return paste_versions(parsed.text).get(dist_key(package)) or installed_version(package)


def find_known_bug(parsed: ParsedError) -> tuple[KnownBug, str | None] | None:
    """The known bug the paste shows on an affected version (the paste's, else installed)."""
    text = parsed.text
    for bug in KNOWN_BUGS:
        if not re.search(bug.pattern, text, re.I):
            continue
        if bug.requires and not re.search(bug.requires, text, re.I):
            continue
        version = _version_of(bug.package, parsed)
        if bug.affects(version):
            return bug, version
    return None


def _package(parsed: ParsedError) -> str | None:
    """The library to blame: the one using another's removed internal or importing a name a
    release it declares supported lacks, the one that read a missing attribute, the innermost
    library frame's, else one the message or paste names."""
    internal = removed_internal_user(parsed)
    if internal:
        return internal[0]
    sub = project_subclass(parsed)
    if sub:
        return sub[0]                 # the project that builds its own subclass
    if import_within_declared(parsed):
        return importer_of(parsed)    # the project importing the name, not the package lacking it
    reader = _attribute_reader(parsed) if parsed.exc_name == "AttributeError" else None
    if reader is not None and reader.is_library and reader.package:
        # the code that read it, not torch's __getattr__ raising for it
        return pip_name(top_of(reader.package))
    blamed = blamed_library(parsed)
    if blamed:
        return blamed
    stated = [k for k in paste_versions(parsed.text) if k.replace("-", "_") in LIBRARIES
              or k in ("huggingface-hub", "sentence-transformers", "tf-keras")]
    return stated[0] if stated else None


_NONE_ATTR = re.compile(r"'NoneType' object has no attribute '(?P<attr>\w+)'")


def _unset_argument(parsed: ParsedError) -> tuple[str, str] | None:
    """(name, attribute) when library code reads an attribute of a plain name that is None (an
    argument left at its default) and the user's call line does not pass that argument."""
    m = _NONE_ATTR.search(parsed.message or "")
    relevant = [f for f in parsed.frames if f.kind != "other"]
    if m is None or not relevant or not relevant[-1].is_library:
        return None
    attr = m.group("attr")
    used = re.search(rf"(?<![\w.])(?P<name>[a-z_]\w*)\.{attr}\b", relevant[-1].code or "")
    user = parsed.innermost_user_frame
    if used is None or used.group("name") in ("self", "cls") or user is None:
        return None
    if re.search(rf"\b{used.group('name')}\s*=", user.code or ""):
        return None                   # the user passed it (perhaps None themselves)
    return used.group("name"), attr


# a library's own message saying it should not have happened ("Please file a bug report!")
_ASKS_FOR_REPORT = re.compile(r"\b(?:Please|Kindly) (?:file|open|submit|report) (?:a |an )?(?:bug "
                              r"report|bug|issue)\b(?:[^\n]{0,40}?(?:github|bug tracker))?|"
                              r"\bplease report (?:this|it) (?:as a bug|to (?:us|the maintainers)|"
                              r"on github)|\bthis (?:should never happen|is a bug in (?:the "
                              r"library|transformers|datasets|tokenizers|peft|trl|accelerate))\b")
# a name (public-looking) missing from a library's private Python module; compiled modules
# (torch._C) missing a symbol are a build question
_OWN_PRIVATE = re.compile(r"module '(?P<module>[A-Za-z]\w*(?:\.\w+)*\._(?!C')\w+(?:\.\w+)*)' has no "
                          r"attribute '(?P<name>[A-Za-z]\w*)'")
_IMPORT_LINE = re.compile(r"\s*(?:from\s+[\w.]+\s+import\b|import\s+[\w.]+)")
_ARITY = re.compile(r"(?<!\w)(?P<callee>\w{1,100})\(\) (?:takes (?:from )?\d+ (?:to \d+ )?positional arguments? but "
                    r"\d+ (?:were|was) given|missing \d+ required positional arguments?)")
# a link to a line of a repository's source beside words blaming that line
_SOURCE_LINE = re.compile(_BLOB.format(org=r"[\w.-]+") + r"#L\d+")
# a library module named with a line of it ("in `modeling_voxtral.py` at line 512")
_NAMED_LINE = (r"`?(?:modeling|tokenization|configuration|processing|trainer|data_collator|"
               r"generation)_?\w{0,40}\.py`? (?:at |on )?line \d+")
_BLAMED_LINE = re.compile(rf"(?:{_SOURCE_LINE.pattern}|{_NAMED_LINE})" + r"[\s\S]{0,400}?"
                          r"(?:\b(?:this line|the line|(?:could|would|will|may) cause|causes?|is a "
                          r"bug|should be|revise|remove)\b|"
                          # the same in Chinese: should, needs to, modify, change to, causes, this
                          # line, has a problem, is a bug
                          r"应该|应当|需要|修改|改成|改为|导致|这一?行|有问题|是一?个?bug)|"
                          r"\b(?:revise|remove|change) \[?line \d+\]?\(", re.I)
# the same blame written before the link: "The issue seems to be [here](...#L1093)", or the
# library's code described as skipping a step: "calls repo_info(...) without forwarding the token"
_BLAME_BEFORE = re.compile(r"\b(?:issue|problem|bug|culprit) (?:seems to (?:be|come from|lie)|"
                           r"is|lies|might be|may be|comes from)\s+(?:\[?here\]?\(?|in |at |"
                           r"from )?|\b(?:without|not|never) (?:forwarding|passing|propagating|"
                           r"checking|handling)\b|"
                           # "It appears the bf16 check is verifying cuda packaging ..."
                           r"\b(?:it )?(?:appears|seems|looks like) (?:that )?(?:the|this) "
                           r"[\w ]{0,30}?\b(?:check|code|function|method|condition|logic)\b",
                           re.I)
_CHANGE_ASKED = re.compile(r"\b(?:revise|remove|delete|change) (?:\[?line \d+\]?|this line|that "
                           r"line)", re.I)
# the reporter editing that line: "Replaced it with ... and the error was gone"
_EDITED = re.compile(r"\b(?:replac\w+|chang\w+|edit\w+|modif\w+|patch\w+) (?:it|this|that|the "
                     r"line|this line|it to|line \d+)\b[^\n]{0,200}?\b(?:error|problem|issue|crash)"
                     r" (?:was|is|went) (?:gone|away|fixed|solved|resolved)", re.I)
# interactive sessions: the call and its printed result side by side
_SESSION = re.compile(r"^\s*(?:>>>|\(Pdb\)|In \[\d+\]:)\s*\S", re.M)
_WRONG_WORDS = re.compile(r"\b(?:(?:are|is) (?:not correct|incorrect|wrong|(?:a (?:little |bit )*)?"
                          r"broken)|incorrect(?:ly)? \w+|"
                          r"fails? to (?:correctly|properly)|(?:go|goes|went) off the "
                          r"rails|(?:gives?|returns?|prints?) (?:the )?wrong|wrong (?:result|output|"
                          r"offsets?|values?))\b", re.I)


# the reporter, having read the library's code, saying it does something wrong: "after debugging
# the code found that it wrongly tries to index into the str"
_CODE_MISBEHAVES = re.compile(r"\b(?:it|the code|this code|the (?:function|method|trainer|library)"
                              r"|`?\w+(?:\.\w+)*\(\)`?) (?:wrongly|incorrectly|mistakenly|"
                              r"erroneously) \w+|"
                              # "This is because the current code basically tries to do:"
                              r"\bbecause the (?:current |original )?code (?:\w+ )?(?:tries|tried|"
                              r"assumes|expects)\b", re.I)


# an "expected results" heading followed by a value (a list, a shape, a number), not by prose
_EXPECTED_VALUE = re.compile(r"^[#* \t]*expected (?:results?|outputs?|behaviou?r)[ \t:*]*\n"
                             r"(?:[ \t]*(?:```\w*)?[ \t]*\n){0,3}[ \t]*(?:[\[\(\{'\"]|torch\.Size|"
                             r"tensor\(|array\(|\d)",
                             re.M | re.I)


def _blamed_before(text: str) -> bool:
    """Blame words up to 300 characters before a link to a line of a library's source."""
    return any(_BLAME_BEFORE.search(text[max(0, m.start() - 300):m.start()])
               for m in _SOURCE_LINE.finditer(text))


def _own_call_arity(parsed: ParsedError) -> str | None:
    """The function a library line calls with the wrong number of arguments (TypeError; an
    object's `__call__` when the line calls a name), when the paste does not define that function
    itself (a callback of the user's is theirs)."""
    relevant = [f for f in parsed.frames if f.kind != "other"]
    if (parsed.exc_name or "") != "TypeError" or not relevant or not relevant[-1].is_library:
        return None
    m = _ARITY.search(parsed.message or "")
    if m is None:
        return None
    callee = m.group("callee")
    code = relevant[-1].code or ""
    called = re.search(r"\w\(", code) if callee == "__call__" else re.search(rf"\b{callee}\(", code)
    if callee in ("__init__", "forward", "call") or not called:
        return None
    if re.search(rf"^\s*def {callee}\s*\(", parsed.text, re.M):
        return None
    return callee


def _silent_wrong_output(parsed: ParsedError) -> bool:
    """No exception: library calls on literal input with their printed result (an interactive
    session, or a script that prints), and the reporter saying that result is wrong, or
    showing the result they expected beside it."""
    printed = len(re.findall(r"^\s*print\(", parsed.text, re.M)) >= 1 and re.search(
        r"\.from_pretrained\(\s*['\"]|Tokenizer\(|Collator\w*\(", parsed.text)
    if parsed.exc_type or (len(_SESSION.findall(parsed.text)) < 2 and not printed):
        return False
    if re.search(r"^\s*(?:(?:>>>|\(Pdb\))\s*)?(?:def|class)\s", parsed.text, re.M):
        return False                  # code of the user's own in between
    return bool(_WRONG_WORDS.search(parsed.text) or _EXPECTED_VALUE.search(parsed.text))


def _evidence(parsed: ParsedError) -> tuple[list[str], bool]:
    """(reasons, strong) the paste gives for a library bug."""
    text, reasons, strong = parsed.text, [], False
    if _PANIC.search(text):
        reasons.append("a Rust panic inside the library (a library must return an error, never "
                       "panic)")
        strong = True
    plain = text.replace("__", "")     # markdown emphasis (`__4.30__`; normalize drops `**`)
    for rx in _REGRESSION:
        m = rx.search(plain)
        if m:
            reasons.append(f"a regression: \"{m.group(0).strip()[:120]}\"")
            strong = True
            break
    if _FIX_DESCRIBED.search(text) or (_SOURCE_LINE.search(text) and _EDITED.search(text)):
        reasons.append("the paste describes a fix of library code")
        strong = True
    elif _FIX_OFFERED.search(text):
        reasons.append("the reporter offers a fix of the library's code (a pull request)")
        strong = True
    if _OFFICIAL_EXAMPLE.search(text) and not _OWN_SCRIPT.search(text):
        reasons.append("the failing code is the library's own example (its script or notebook, "
                       "as given): nothing of yours is in the way")
    saved = _SAVED.search(text)
    if saved and re.search(_LOAD_CALL.format(re.escape(saved.group("path"))), text) and \
            _UNPARSABLE.search(text[saved.end():]):
        reasons.append(f"the library cannot read back {saved.group('path')!r}, the file it wrote "
                       "itself: its own output must load")
    own = _OWN_PRIVATE.search(parsed.message or text)
    if own and not re.search(rf"\b{re.escape(own.group('name'))}\b",
                             text.replace(own.group(0), "")):
        reasons.append(f"the library's own private module {own.group('module')} lacks "
                       f"{own.group('name')}, which its own code uses: one release disagreeing "
                       "with itself")
    if _ASKS_FOR_REPORT.search(text):
        reasons.append("the library's own message calls it a bug and asks for a report")
        strong = True
    if _COMMIT_LINK.search(text):
        reasons.append("the paste points at the library commit that the reporter blames")
    if _CHECKSUM.search(text):
        reasons.append("the files the dataset's loading script downloads no longer match the "
                       "checksums it records: the source changed upstream and the script needs an "
                       "update (meanwhile: load_dataset(..., verification_mode=\"no_checks\"); a "
                       "download cut off midway reads the same: download_mode=\"force_redownload\")")
    if _POLICY.search(text) and _HALF_VS_FLOAT.search(parsed.message or text) and \
            parsed.library_frames_innermost:
        reasons.append(f"under Keras' mixed-precision policy, {parsed.innermost_library_package}'s"
                       " own model code meets a float32 tensor where the policy computes in half "
                       "precision: the model hard-codes float32 somewhere instead of following "
                       "the policy")
    inner = parsed.frames[-1] if parsed.frames else None
    if _CROSS_DEVICE.search(parsed.message or "") and inner is not None and inner.is_library:
        reasons.append(f"{inner.package or 'library'} code renames a file across two file "
                       "systems (os.replace/os.rename cannot; shutil.move can): the library "
                       "assumes its cache and the target folder share a disk")
    if _NODEDEF.search(text):
        reasons.append("TensorFlow failed to build a graph node of the library's own model")
    name = parsed.exc_name or ""
    inner_lib = parsed.library_frames_innermost
    m = _LIB_OBJECT.search(parsed.message or "")
    declared = import_within_declared(parsed)
    if declared:
        reasons.append(f"{declared[1]} {declared[2]} lacks {declared[0]}, yet the project's own "
                       f"requirements declare it supported: the project imports a name that a "
                       "release it supports does not have")
    # raised inside library code (by the frame that read it, not an attribute hook); with no
    # frames the reader is unknown (user code, or another library of another release reading a
    # removed attribute: version skew), so it is no evidence
    reader = _attribute_reader(parsed)
    if name == "AttributeError" and m and _LIB_NAMES.match(m.group("cls")) and reader is not None \
            and reader.is_library:
        reasons.append(f"an internal AttributeError on the library's own {m.group('cls')}")
    hidden = _PRIVATE_ATTR.search((parsed.message or "").strip().split("\n", 1)[0])
    if name == "AttributeError" and hidden and reader is not None and reader.is_library and \
            not any(hidden.group("attr") in (f.code or "") for f in parsed.user_frames):
        reasons.append(f"library code ({reader.package}) reads the private attribute "
                       f"{hidden.group('attr')}, which nothing of yours sets: the library's own "
                       "state, or a release of one library relying on another's internals")
    b = _BUILTIN_MISUSE.search(parsed.message or "")
    user = parsed.innermost_user_frame
    plain_call = user is not None and bool(_LITERAL_CALL.search(user.code or ""))
    if name == "AttributeError" and b and inner_lib and plain_call:
        reasons.append(f"library code calls .{b.group('attr')}() on a {b.group('type')}, which "
                       f"has no such method, while your call passes plain values")
    elif name in _INTERNAL_TYPES and inner_lib and plain_call:
        reasons.append(f"{name} raised inside library code while your call passes plain values "
                       f"({user.code.strip()[:80]})")
    misbehaves = _CODE_MISBEHAVES.search(text)
    if misbehaves and name in _INTERNAL_TYPES and inner_lib and not parsed.user_frames:
        reasons.append(f"the reporter read the library's code (\"{misbehaves.group(0)}\"), and "
                       f"the {name} is raised there with no code of yours in the traceback")
    if user is not None and _IMPORT_LINE.match(user.code or "") and inner_lib and \
            name in _INTERNAL_TYPES | {"SyntaxError", "IndentationError"}:
        reasons.append(f"{name} raised inside library code while your line only imports it "
                       f"({user.code.strip()[:80]}): nothing of yours reached it")
    arity = _own_call_arity(parsed)
    if arity:
        reasons.append(f"library code calls {arity}() with another number of arguments than it "
                       "takes, on its own line: its code is wrong whatever the input")
    if (_BLAMED_LINE.search(text) or _blamed_before(text)) and not parsed.user_frames:
        reasons.append("the paste points at a line of the library's source as the cause")
        if _CHANGE_ASKED.search(text):
            reasons.append("the paste describes a fix of library code: a change of that line")
            strong = True
    if _silent_wrong_output(parsed):
        reasons.append("a library call on literal input returns a wrong result (no code of yours "
                       "in between)")
    unset = _unset_argument(parsed)
    if unset:
        reasons.append(f"library code reads .{unset[1]} of its argument {unset[0]}, which is None "
                       f"because your call did not pass it: the library does not handle its own "
                       "default")
    sub = project_subclass(parsed)
    if sub and api_history.kwarg_in_no_release(sub[2], sub[3]):
        project, cls, key, arg = sub
        pkg, base = pip_name(key.split(".", 1)[0]), key.split(".", 1)[1]
        reasons.append(f"{project}'s own code builds {cls}, its subclass of {pkg}'s {base}, with "
                       f"{arg}, which no release of {base} takes: the project passes a field its "
                       "class does not define")
    own = internal_call_mismatch(parsed)
    if own:
        reasons.append(f"{own}'s own code passes an argument by name to a {own} function that "
                       "does not take it (one release disagreeing with itself)")
    lagging = lagging_override(parsed)
    if lagging:
        fn, arg, framework = lagging
        reasons.append(f"{fn}() is a library's own override (or patched-in replacement) of a "
                       f"{framework} method, and {framework} now passes it {arg}=, which it does "
                       "not take: the library lags the framework release (until its fix: pin "
                       f"{framework} to the release before {arg} appeared)")
    private = private_override_arity(parsed)
    if private:
        reasons.append(f"{private[0]} overrides the private method {private[1]}() of the class it "
                       "extends, which a newer release calls with more arguments: the project "
                       "relied on an internal (its fix: accept the new arguments; until then pin "
                       "the older release)")
    call = private_call_mismatch(parsed)
    if call:
        reasons.append(f"{call[0]}'s own line calls {call[1]}(), a private function, with "
                       "arguments its installed definition does not take: an internal changed "
                       "its signature under the library (its fix: a release that follows the "
                       "change; until then the release of the package defining it that the "
                       "library was written for)")
    packaged = own_data_file_missing(parsed)
    if packaged:
        reasons.append(f"{packaged[0]}'s own code opens {packaged[1]}, a file inside its installed "
                       "package that is not there: the release was packaged without it (or the "
                       f"install is incomplete: pip install --force-reinstall --no-cache-dir "
                       f"{packaged[0]})")
    internal = removed_internal_user(parsed)
    if internal:
        lib, change, what = internal
        reasons.append(f"{lib} uses {what}, an internal of {change.package} that {change.package} "
                       f"{change.removed} removed: the fix is a {lib} release that stops using it "
                       f"(until then: pip install \"{change.package}<{change.removed}\")")
    foreign = None if internal else foreign_private(parsed)
    if foreign:
        lib, module, name = foreign
        top = module.split(".")[0]
        reasons.append(f"{lib} (or a package it uses) reaches for "
                       f"{module}.{name}, a private name of {top} that the installed {top} does "
                       f"not have: the library relied on an internal (its fix: a release that "
                       f"stops using it; until then the {top} release it was written for)")
    missing = _NO_MODULE.search(parsed.message or "")
    hardware = hardware_path_taken(parsed, missing.group("module")) if missing else None
    if hardware:
        reasons.append(f"{hardware}'s own code imports {missing.group('module')}, a backend of "
                       "an accelerator this machine does not have: its device detection took that "
                       "accelerator's path (a flag saved in the checkpoint's config, such as "
                       "xla_device, or an environment variable), whatever your code does")
    if missing and own_submodule_missing(parsed, missing.group("module")):
        module = missing.group("module")
        reasons.append(f"{module.split('.')[0]}'s own code imports {module}, which the installed "
                       "release does not contain: the release was packaged without it (or the "
                       "install is half-updated: pip install --force-reinstall --no-cache-dir "
                       f"{module.split('.')[0]})")
    n = _NAME_ERROR.search(text)
    if n and (inner_lib or not parsed.frames) and _LIB_NAMES.match(n.group("name")):
        reasons.append(f"NameError: the library uses {n.group('name')} without importing it")
    elif name in _CRASH_TYPES - {"AttributeError"} and inner_lib:
        reasons.append(f"{name} raised inside library code")
    elif not parsed.frames and _SOURCE_LINK.search(text) and \
            (crash := re.search(r"\b(UnboundLocalError|NameError)\b", text)):
        reasons.append(f"{crash.group(1)} in the library source the paste links to: its code reads "
                       "a name it never assigned or imported, whatever the input")
    if _DEV_BUILD.search(text) and (reasons or (name in _INTERNAL_TYPES and inner_lib)):
        reasons.append("a development build of the library")   # only beside other evidence
    return reasons, strong


# a model repository's own code (trust_remote_code) that an Auto class does not know
_REMOTE_UNREGISTERED = re.compile(r"Unrecognized configuration class <class '(?P<cls>"
                                  r"transformers_modules\.[\w.-]+)'> for this kind of AutoModel: "
                                  r"(?P<auto>\w+)")


# a library's source file named in prose with its line: "stemming from `accelerate/state.py`
# line 232", "in transformers/trainer.py:1530"
_NAMED_SOURCE = re.compile(r"(?<![\w/.-])`?(?P<file>(?P<pkg>[a-z_]\w*)/(?:\w+/)*\w+\.py)`?"
                           r"(?:,? (?:at |on )?line |:)(?P<line>\d+)")


def _attribute_reader(parsed: ParsedError) -> Any:
    """The frame that read the missing attribute: the innermost one that is not an attribute hook
    (`__getattr__`, `__getattribute__`, `__delattr__`, `__setattr__`: a config's, a module's or
    torch's pass-through raises for its caller); without frames, a library's source line the
    paste names in its prose; else None."""
    reader = attribute_reader_frame(parsed.frames)
    if reader is not None:
        return reader
    named = next((m for m in _NAMED_SOURCE.finditer(parsed.text)
                  if m.group("pkg") in LIBRARIES), None)
    if named is None or parsed.frames:
        return None
    return Frame(file=named.group("file"), line=int(named.group("line")), function=None,
                 kind="library", package=named.group("pkg"))


def assess_library_bug(parsed: ParsedError, matches: Sequence[Any]) -> LibraryBug | None:
    """The library bug the paste points at, or None. `matches` are the signature matches (best
    first): an environment cause, or a user-error signature in the error itself, explains the
    error unless the evidence is strong (a regression, a panic, a described fix)."""
    known = find_known_bug(parsed)
    if known is not None:
        bug, version = known
        return LibraryBug(bug.package, version, [f"known bug: {bug.summary}"], True, bug)
    real = [m for m in matches if not m.signature.benign]
    reasons, strong = _evidence(parsed)
    if real and real[0].guess and reasons:
        real = []                     # the evidence outweighs a guess
    fixed_here = any(r.startswith("the paste describes") for r in reasons)
    if real and real[0].cause_id in FAMILY and not fixed_here:
        return None                   # the installation explains it, unless the library's own
                                      # line is shown wrong or fixed
    remote = _REMOTE_UNREGISTERED.search(parsed.text)
    if remote and not real:
        reasons.append(f"the model repository's own code ({remote.group('cls').split('.')[-1]}, "
                       f"trust_remote_code) is not registered for {remote.group('auto')}: its "
                       "config's auto_map lacks that class, a fault of the repository")
    if not reasons:
        return None
    stated = any(r.startswith(("a regression", "the paste describes", "the reporter offers"))
                 for r in reasons)
    if real and (not stated or real[0].signature.behaviour_change and not fixed_here):
        return None                   # a signature explains the error (or the regression)
    package = _package(parsed)
    return LibraryBug(package, _version_of(package, parsed), reasons, strong)
