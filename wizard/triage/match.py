"""Error-message triage: a pasted traceback -> its parts -> known signatures -> likely causes.

`parse_traceback` reads a whole Python traceback, only its last line, an IPython/Jupyter
traceback, Keras "in user code:" errors, TensorFlow graph errors ("Detected at node ...") and
chained exceptions, pasted with or without indentation, ANSI colours or Windows line endings.
It never raises. `triage` matches the result against `SIGNATURES` (known error messages of
fine-tuning with transformers on PyTorch and TensorFlow/Keras), extracts the numbers they carry
and names the checks that would confirm each cause. `probe_triage` turns that into findings.
"""
from __future__ import annotations

import re
import sys
import textwrap
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from wizard.core.catalogue import CHECKS
from wizard.core.findings import Finding

MAX_CHARS = 200_000            # longer pastes keep their head and (mostly) their tail
LIBRARY_PACKAGES = ("transformers", "datasets", "torch", "tensorflow", "keras", "tf_keras",
                    "accelerate", "tokenizers", "huggingface_hub")

# ---------------------------------------------------------------------------------------------
# Normalising pasted text
# ---------------------------------------------------------------------------------------------
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
_ORPHAN_SGR = re.compile(r"\[(?:\d{1,3};){0,4}\d{1,3}m")   # colour codes whose ESC got lost
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_LINE_PREFIX = re.compile(r"^(?:\[(?:rank|default)\d+\]:\s?)", re.M)   # torchrun/accelerate
_FENCE = re.compile(r"^\s*```[\w+-]*\s*$")


def normalize(text: Any) -> str:
    """Plain text of a paste: no ANSI colours, \\n line ends, no rank prefixes, dedented."""
    if text is None:
        return ""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    elif not isinstance(text, str):
        text = str(text)
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS // 10] + "\n...\n" + text[-(MAX_CHARS - MAX_CHARS // 10):]
    text = _ANSI.sub("", text)
    text = _ORPHAN_SGR.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\xa0", " ").replace("\u200b", "").replace("\ufeff", "")
    text = _CTRL.sub("", text)
    text = _LINE_PREFIX.sub("", text)
    lines = [ln.rstrip() for ln in text.split("\n") if not _FENCE.match(ln)]
    quoted = [ln for ln in lines if ln.strip()]
    if quoted and all(ln.lstrip().startswith(">") for ln in quoted):
        lines = [re.sub(r"^\s*> ?", "", ln) for ln in lines]
    return textwrap.dedent("\n".join(lines)).strip("\n")


# ---------------------------------------------------------------------------------------------
# Frames and where their code lives
# ---------------------------------------------------------------------------------------------
_SITE = re.compile(r"/(?:site|dist)-packages/(?P<pkg>[^/]+)", re.I)
_SRC_LAYOUT = re.compile(
    r"(?:^|/)src/(?P<pkg>transformers|datasets|accelerate|huggingface_hub|tokenizers|tf_keras)/")
_REPO_LAYOUT = re.compile(
    r"(?:^|/)(?:(?P<torch>torch)/(?:nn|autograd|utils|cuda|optim|distributed|amp|fx|jit|_dynamo|"
    r"_inductor|_C|_refs|_prims|_decomp|_subclasses|_library|multiprocessing|_tensor\.py|"
    r"functional\.py|_ops\.py|serialization\.py|overrides\.py|_compile\.py|_utils\w*\.py|"
    r"__init__\.py)"
    r"|(?P<tensorflow>tensorflow)/(?:python|core|compiler|dtensor|lite)/"
    r"|(?P<tf_keras>tf_keras)/(?:src|api)/"
    r"|(?P<keras>keras)/(?:src|engine|layers|optimizers|saving|trainers|models|metrics)/)")
_LIBDIR = re.compile(r"(?:^|/)lib(?:64)?/(?:python\d+(?:\.\d+)*/)?(?P<mod>[A-Za-z_]\w*)(?:\.py|/)",
                     re.I)
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"runpy", "threading", "asyncio"}


def classify_path(path: str) -> tuple[str, str | None]:
    """("user" | "library" | "other", package) for a frame's file name.

    Library code: anything under site-packages/dist-packages, or the source tree of a known
    library (transformers, datasets, torch, tensorflow, keras, tf_keras, accelerate, tokenizers,
    huggingface_hub). Other: the standard library, frozen and generated code. The rest is user code.
    """
    p = (path or "").strip().replace("\\", "/")
    if not p:
        return "other", None
    if p.startswith("<"):
        if p.startswith(("<frozen", "<string>", "<__array_function__")):
            return "other", None
        return "user", None                   # <stdin>, <ipython-input-...>
    if p.startswith(("Cell In", "Input In")):
        return "user", None
    if "__autograph_generated_file" in p:
        return "library", "tensorflow"        # TF's conversion of Keras' train_function
    m = _SITE.search(p)
    if m:
        pkg = m.group("pkg")
        pkg = re.sub(r"\.py[cdw]?$", "", pkg)
        return "library", pkg
    m = _SRC_LAYOUT.search(p)
    if m:
        return "library", m.group("pkg")
    m = _REPO_LAYOUT.search(p)
    if m:
        return "library", next(k for k, v in m.groupdict().items() if v)
    m = _LIBDIR.search(p)
    if m and m.group("mod") in _STDLIB:
        return "other", None
    first = p.split("/", 1)[0]
    if "/" in p and not p.startswith(("/", "~", ".")) and ":" not in first and first in _STDLIB:
        return "other", None                  # embedded Pythons print stdlib paths relative
    return "user", None


@dataclass
class Frame:
    """One stack frame: where it is, the line of code shown, and whose code it is."""

    file: str
    line: int | None
    function: str | None
    code: str | None = None
    kind: str = "user"                # user | library | other
    package: str | None = None
    origin: str = "python"            # python | ipython | keras | tf-graph

    @property
    def is_library(self) -> bool:
        return self.kind == "library"

    @property
    def is_user(self) -> bool:
        return self.kind == "user"

    def where(self) -> str:
        line = f":{self.line}" if self.line is not None else ""
        func = f" in {self.function}" if self.function else ""
        return f"{self.file}{line}{func}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "function": self.function,
                "code": self.code, "kind": self.kind, "package": self.package,
                "origin": self.origin, "is_library": self.is_library}


def _frame(file: str, line: str | int | None, func: str | None, origin: str) -> Frame:
    kind, pkg = classify_path(file)
    return Frame(file=file.strip(), line=_int(line), function=(func or "").strip() or None,
                 kind=kind, package=pkg, origin=origin)


# ---------------------------------------------------------------------------------------------
# The parsed error
# ---------------------------------------------------------------------------------------------
@dataclass
class ParsedError:
    """What a pasted error says: the exception, its message, its frames and its causes."""

    exc_type: str | None = None       # as printed, e.g. "torch.OutOfMemoryError"
    message: str = ""                 # the core message (Keras/TF wrappers removed)
    raw_message: str = ""             # everything after "Type: "
    frames: list[Frame] = field(default_factory=list)
    chain: list["ParsedError"] = field(default_factory=list)   # earlier exceptions, in order
    relation: str | None = None       # cause | context | separate: link to the one before
    graph_node: str | None = None
    graph_op: str | None = None
    device: str | None = None
    keras_user_code: bool = False
    has_traceback: bool = False
    text: str = ""                    # the normalised paste
    loose_text: str = ""              # the paste without frame lines (for signature search)
    parse_error: str | None = None    # set only when the parser itself failed

    @property
    def exc_name(self) -> str | None:
        return self.exc_type.rsplit(".", 1)[-1] if self.exc_type else None

    @property
    def last_line(self) -> str:
        first = self.message.strip().split("\n", 1)[0] if self.message.strip() else ""
        if self.exc_type:
            return f"{self.exc_type}: {first}" if first else self.exc_type
        return first

    @property
    def user_frames(self) -> list[Frame]:
        return [f for f in self.frames if f.is_user]

    @property
    def library_frames(self) -> list[Frame]:
        return [f for f in self.frames if f.is_library]

    @property
    def innermost_frame(self) -> Frame | None:
        return self.frames[-1] if self.frames else None

    @property
    def innermost_user_frame(self) -> Frame | None:
        users = self.user_frames
        return users[-1] if users else None

    @property
    def library_frames_innermost(self) -> bool:
        """True when the innermost frame that is not standard-library code is library code."""
        relevant = [f for f in self.frames if f.kind != "other"]
        return bool(relevant) and relevant[-1].is_library

    @property
    def innermost_library_package(self) -> str | None:
        relevant = [f for f in self.frames if f.kind != "other"]
        return relevant[-1].package if relevant and relevant[-1].is_library else None

    @property
    def all_errors(self) -> list["ParsedError"]:
        return [*self.chain, self]

    def to_dict(self, with_chain: bool = True) -> dict[str, Any]:
        inner, user = self.innermost_frame, self.innermost_user_frame
        d: dict[str, Any] = {
            "exc_type": self.exc_type, "exc_name": self.exc_name, "message": self.message,
            "last_line": self.last_line, "relation": self.relation,
            "frames": [f.to_dict() for f in self.frames],
            "innermost_frame": inner.to_dict() if inner else None,
            "innermost_user_frame": user.to_dict() if user else None,
            "library_frames_innermost": self.library_frames_innermost,
            "graph_node": self.graph_node, "graph_op": self.graph_op, "device": self.device,
            "keras_user_code": self.keras_user_code, "has_traceback": self.has_traceback,
            "parse_error": self.parse_error,
        }
        if with_chain:
            d["chain"] = [c.to_dict(with_chain=False) for c in self.chain]
        return d


# ---------------------------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------------------------
_TB_HEADER = re.compile(r"^\s*(?:(?P<type>[\w.]+)\s+)?Traceback \(most recent call last\):?\s*$")
_CHAIN = {"The above exception was the direct cause of the following exception:": "cause",
          "During handling of the above exception, another exception occurred:": "context"}
_PY_FRAME = re.compile(
    r'^\s*File "(?P<file>[^"\n]*)", line (?P<line>\d+)(?:, in (?P<func>.*?))?\s*\**\s*$')
_IPY8_FRAME = re.compile(r"^File (?P<file>\S.*?):(?P<line>\d+), in (?P<func>.+)$")
_IPY_CELL = re.compile(r"^(?:Cell In\s?\[(?P<cell>[^\]\n]*)\], line (?P<line>\d+)"
                       r"|Input In \[(?P<cell2>[^\]\n]*)\], in (?P<func>.+))\s*$")
_IPY7_FRAME = re.compile(
    r"^(?P<file>(?:~|[A-Za-z]:|/|\.|<ipython-input-)[^\n]*?(?:\.py[cw]?|>)) in (?P<func>[^\s(]+)")
_IPY_CODE = re.compile(r"^\s*(?P<arrow>-*>)?\s*(?P<no>\d+)(?:\s(?P<code>.*))?$")
_KERAS_OLD_FRAME = re.compile(
    r"^\s*(?P<file>\S[^\n]*?\.py):(?P<line>\d+) (?P<func>\S+)(?:\s+\*+)?$")
_SKIP = re.compile(r"^(?:[\^~\s]+|\[Previous line repeated \d+ more times?\]"
                   r"|\.\.\.\s*<\d+ lines>\s*\.\.\.|\.\.\.|\d+ frames|-{5,}"
                   r"|<stack traces unavailable>)$")
_EXC_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?: \(see above for traceback\))?"
                       r"(?::(?P<msg>.*))?$")
_EXC_STRICT = re.compile(
    r"^\s*(?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning|Iteration|"
    r"Fault|Failure|Exhausted))(?: \(see above for traceback\))?(?::(?P<msg>.*))?$")
_DETECTED = re.compile(
    r"Detected at node '?(?P<node>[^'\n]*?)'? defined at \(most recent call last\):")
_NODE_LINE = re.compile(r"^\s*Node: '?(?P<node>[^'\n]*)'?\s*$")
_GRAPH_NODE = re.compile(r"\[\[\{\{node (?P<node>[^}\n]+)\}\}\]\]")
_GRAPH_OP = re.compile(r"\[Op:(?P<op>[^\]\n]+)\]")
_FUNCTION_NODE = re.compile(r"^\{\{function_node [^}\n]*\}\}\s*")
_DEVICE = re.compile(r"/device:(?P<dev>[A-Za-z_]+:\d+)")


def _int(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    s = str(value).strip() if value is not None else ""
    if re.fullmatch(r"-?\d{1,18}", s):
        return int(s)
    return None


def _frame_header(line: str) -> Frame | None:
    """A frame header line in any of the formats Python, IPython and Keras print."""
    m = _PY_FRAME.match(line)
    if m:
        return _frame(m.group("file"), m.group("line"), m.group("func"), "python")
    s = line.strip()
    m = _IPY_CELL.match(s)
    if m:
        cell = m.group("cell") if m.group("cell") is not None else m.group("cell2")
        return _frame(f"Cell In[{cell}]", m.group("line"), m.group("func"), "ipython")
    m = _IPY8_FRAME.match(s)
    if m:
        return _frame(m.group("file"), m.group("line"), m.group("func"), "ipython")
    if not line[:1].isspace():
        m = _IPY7_FRAME.match(s)
        if m:
            return _frame(m.group("file"), None, m.group("func"), "ipython")
    return None


def _split_segments(lines: list[str]) -> list[tuple[str | None, list[str]]]:
    """Split at chain markers and at a new traceback header after an exception line."""
    segments: list[tuple[str | None, list[str]]] = []
    cur: list[str] = []
    relation: str | None = None
    seen_header = False
    for line in lines:
        s = line.strip()
        if s in _CHAIN:
            segments.append((relation, cur))
            cur, relation, seen_header = [], _CHAIN[s], False
            continue
        if _TB_HEADER.match(line):
            if seen_header and cur:
                # a second traceback in the same paste; keep a separator line with IPython's
                prev = cur[-1] if cur else ""
                carry = [cur.pop()] if re.fullmatch(r"-{5,}", prev.strip()) else []
                segments.append((relation, cur))
                cur, relation = carry, "separate"
            seen_header = True
        cur.append(line)
    segments.append((relation, cur))
    return [(r, seg) for r, seg in segments if any(x.strip() for x in seg)] or [(None, [])]


def _parse_frames(lines: list[str], start: int, origin_hint: str | None = None,
                  flat_code: bool = True) -> tuple[list[Frame], int]:
    """Frames from lines[start:] up to the exception line; returns (frames, its index)."""
    frames: list[Frame] = []
    cur: Frame | None = None
    i = start
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if not s or _SKIP.match(s):
            i += 1
            continue
        f = _frame_header(line)
        if f is not None:
            if origin_hint:
                f.origin = origin_hint
            frames.append(f)
            cur = f
            i += 1
            continue
        if cur is not None and cur.origin == "ipython":
            m = _IPY_CODE.match(line)
            if m and (line[:1].isspace() or m.group("arrow")):
                if m.group("arrow"):
                    cur.code = (m.group("code") or "").strip() or cur.code
                    if cur.line is None:
                        cur.line = _int(m.group("no"))
                i += 1
                continue
        if cur is not None and line[:1].isspace():
            if cur.code is None:
                cur.code = s
            i += 1
            continue
        if flat_code and cur is not None and cur.code is None and not _EXC_LINE.match(s):
            cur.code = s                      # unindented code in a flattened paste
            i += 1
            continue
        break
    return frames, i


def _parse_segment(lines: list[str]) -> tuple[ParsedError, list[str]]:
    """One traceback (or a bare message) -> the error, and the lines that are not frames."""
    err = ParsedError()
    header_type: str | None = None
    start: int | None = None
    for j, line in enumerate(lines):
        m = _TB_HEADER.match(line)
        if m:
            header_type, start, err.has_traceback = m.group("type"), j + 1, True
            break
    if start is None:
        # frames without a header, unless an exception line comes first (TF/Keras messages
        # that embed frames, e.g. "InvalidArgumentError: Graph execution error: ...")
        first_exc = next((k for k, ln in enumerate(lines) if not ln[:1].isspace() and
                          _EXC_STRICT.match(ln)), len(lines))
        for j, line in enumerate(lines[:first_exc]):
            s = line.strip()
            if _PY_FRAME.match(line) or _IPY8_FRAME.match(s) or _IPY_CELL.match(s):
                start, err.has_traceback = j, True
                break
    loose: list[str] = []
    if start is not None:
        loose.extend(ln for ln in lines[:start] if not _TB_HEADER.match(ln) and ln.strip())
        frames, idx = _parse_frames(lines, start)
        err.frames = frames
        rest = lines[idx:]
        exc_at = 0 if rest else None
        if rest and not _EXC_LINE.match(rest[0].strip()):
            # output printed between the frames and the exception line (progress bars, logs)
            later = next((k for k, ln in enumerate(rest) if _EXC_STRICT.match(ln) and
                          not ln[:1].isspace()), None)
            if later is not None:
                loose.extend(rest[:later])
                exc_at = later
    else:
        rest = lines
        exc_at = next((k for k, ln in enumerate(rest) if _EXC_STRICT.match(ln) and
                       not ln[:1].isspace()), None)
        if exc_at is None:
            exc_at = next((k for k, ln in enumerate(rest) if _EXC_STRICT.match(ln)), None)
        if exc_at is not None:
            loose.extend(rest[:exc_at])
    if exc_at is not None and exc_at < len(rest):
        first = rest[exc_at].strip()
        m = _EXC_LINE.match(first) or _EXC_STRICT.match(first)
        if m:
            err.exc_type = m.group("type")
            head = (m.group("msg") or "").strip()
        else:
            head = first
        tail = rest[exc_at + 1:]
        err.raw_message = "\n".join([head, *tail]).strip("\n").strip()
        loose.extend(rest[exc_at:])
    elif start is None:
        err.raw_message = "\n".join(rest).strip()
        loose.extend(rest)
    if header_type and not err.exc_type:
        err.exc_type = header_type
    err.message = err.raw_message
    _unwrap_keras(err)
    _unwrap_graph(err)
    return err, loose


def _unwrap_keras(err: ParsedError) -> None:
    """Keras' "in user code:" block: its frames, and the exception nested at its end."""
    lines = err.message.split("\n")
    if not lines or not lines[0].strip().startswith("in user code:"):
        return
    err.keras_user_code = True
    body = textwrap.dedent("\n".join(lines[1:])).split("\n")
    nested_at = None
    for k, ln in enumerate(body):
        if _EXC_STRICT.match(ln) and not _PY_FRAME.match(ln):
            nested_at = k
    frame_lines = body[:nested_at] if nested_at is not None else body
    cur: Frame | None = None
    for ln in frame_lines:
        m = _PY_FRAME.match(ln) or _KERAS_OLD_FRAME.match(ln)
        if m:
            cur = _frame(m.group("file"), m.group("line"), m.group("func"), "keras")
            err.frames.append(cur)
        elif cur is not None and ln.strip() and cur.code is None:
            cur.code = ln.strip()
    if nested_at is not None:
        m = _EXC_STRICT.match(body[nested_at])
        if m:
            err.exc_type = m.group("type")
            rest = textwrap.dedent("\n".join(body[nested_at + 1:]))
            err.message = "\n".join([(m.group("msg") or "").strip(), rest]).strip()


def _unwrap_graph(err: ParsedError) -> None:
    """TF graph errors: node, op, device, the 'defined at' frames, and the core message."""
    msg = err.message
    m = _GRAPH_NODE.search(msg)
    if m:
        err.graph_node = m.group("node").strip()
    m = _GRAPH_OP.search(msg)
    if m:
        err.graph_op = m.group("op").strip()
    m = _DEVICE.search(msg)
    if m:
        err.device = m.group("dev")
    m = _DETECTED.search(msg)
    if m:
        err.graph_node = m.group("node").strip() or err.graph_node
        after = msg[m.end():].split("\n")
        frames, idx = _parse_frames(after, 0, origin_hint="tf-graph", flat_code=False)
        err.frames.extend(frames)
        core = after[idx:]
        if core and _NODE_LINE.match(core[0]):
            core = core[1:]
        msg = "\n".join(core).strip() or msg
    msg = _FUNCTION_NODE.sub("", msg.strip())
    err.message = msg


def _parse(text: Any) -> ParsedError:
    norm = normalize(text)
    if not norm.strip():
        return ParsedError(text=norm)
    errors: list[ParsedError] = []
    loose_all: list[str] = []
    for relation, seg in _split_segments(norm.split("\n")):
        err, loose = _parse_segment(seg)
        err.relation = relation
        errors.append(err)
        loose_all.extend(loose)
    final = errors[-1]
    final.chain = errors[:-1]
    final.text = norm
    final.loose_text = "\n".join(loose_all)
    return final


def parse_traceback(text: str) -> ParsedError:
    """Parse a pasted error. Never raises: on an internal failure the text is kept as message."""
    try:
        return _parse(text)
    except Exception as exc:  # noqa: BLE001 - a paste must never crash the wizard
        try:
            norm = normalize(text)
        except Exception:  # noqa: BLE001
            norm = ""
        return ParsedError(message=norm, raw_message=norm, text=norm, loose_text=norm,
                           parse_error=f"{type(exc).__name__}: {exc}")


# ---------------------------------------------------------------------------------------------
# Signatures
# ---------------------------------------------------------------------------------------------
Refine = Callable[[dict, ParsedError], "dict[str, Any] | None"]


@dataclass
class Signature:
    """A known error message: what it usually means, the checks that confirm it, the fix.

    `pattern` finds the signature; named groups become evidence. `evidence` holds more regexes
    whose named groups add numbers found anywhere in the paste. `probes` are check ids (some
    are checks other parts of the wizard implement; see `unknown_probe_ids`). `refine` may look
    at the evidence and return a more precise cause/probes/fix.
    """

    id: str
    pattern: str
    cause: str
    explanation: str
    probes: list[str]
    fix: str
    title: str = ""
    evidence: tuple[str, ...] = ()
    framework: str = "any"            # pytorch | tensorflow | any
    priority: int = 10                # ties between signatures found at the same place
    refine: Refine | None = None
    benign: bool = False              # a warning that is not the error (never the primary match)

    def regex(self) -> re.Pattern[str]:
        return _compile(self.pattern)


@lru_cache(maxsize=None)
def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _shape(s: Any) -> list[int] | None:
    """'2, 768' (or an int already converted) -> [2, 768]."""
    if isinstance(s, int) and not isinstance(s, bool):
        return [s]
    if not isinstance(s, str):
        return None
    nums = [_int(x) for x in re.split(r"[,\sx]+", s.strip()) if x]
    return [n for n in nums if n is not None] if nums and all(n is not None for n in nums) else None


_BYTES = {"b": 1, "bytes": 1, "kib": 2**10, "kb": 10**3, "mib": 2**20, "mb": 10**6,
          "gib": 2**30, "gb": 10**9, "tib": 2**40, "tb": 10**12}


def _mib(size: Any) -> float | None:
    """'20.00 MiB' -> 20.0 (MiB)."""
    m = re.fullmatch(r"\s*([\d.]+)\s*([KMGT]i?B|bytes|B)\s*", str(size or ""), re.I)
    if not m:
        return None
    try:
        return round(float(m.group(1)) * _BYTES[m.group(2).lower()] / 2**20, 2)
    except (ValueError, KeyError, OverflowError):
        return None


def _refine_target(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    t = ev.get("target")
    if isinstance(t, int) and t >= 0:
        ev["num_labels_needed_at_least"] = t + 1
        return {"cause": f"A label has the value {t}, but the model's classification head has at "
                         f"most {t} outputs: num_labels is smaller than the number of classes "
                         f"(it needs to be at least {t + 1})."}
    if isinstance(t, int) and t < 0:
        return {"cause": f"A label is {t}: PyTorch's cross-entropy ignores only -100, so a "
                         "placeholder label such as -1 (missing, or padding) is out of range.",
                "fix": "dataset = dataset.map(lambda b: {'labels': [-100 if l < 0 else l "
                       "for l in b['labels']]}, batched=True)"}
    return None


def _refine_tf_label(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    label, high = ev.get("label"), ev.get("high")
    values = [v for v in (_int(x) for x in str(ev.get("label_values", "")).split()[:200])
              if v is not None]
    if values:
        ev["label_values"] = values[:50]
    if isinstance(high, int):
        ev["model_num_labels"] = high
    if isinstance(label, int) and label < 0:
        return {"cause": f"A label is {label}: sparse categorical cross-entropy needs labels in "
                         f"0..{(high or 1) - 1}; drop or remap the placeholder label."}
    biggest = max([v for v in values if v >= 0] + ([label] if isinstance(label, int) else []),
                  default=None)
    if biggest is not None and isinstance(high, int) and biggest >= high:
        ev["num_labels_needed_at_least"] = biggest + 1
        return {"cause": f"The labels go up to {biggest} but the model has {high} outputs: "
                         f"num_labels={high} is too small (the data needs at least {biggest + 1})."}
    return None


def _refine_assert(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    assertion = str(ev.get("assertion", ""))
    kernel = str(ev.get("kernel", ""))
    ev["assertions_printed"] = len(re.findall(r"Assertion `[^`'\n]*[`'] failed", parsed.text))
    if "n_classes" in assertion or "nll_loss" in kernel.lower() or "NLL" in kernel:
        return {"cause": "A label is outside 0..num_labels-1 (the assertion comes from the "
                         "cross-entropy kernel): num_labels is too small or a label is -1.",
                "probes": ["data.labels-out-of-range", "model.cpu-rerun"]}
    if "srcIndex < srcSelectDimSize" in assertion or "indexSelect" in kernel:
        return {"cause": "An embedding lookup got an index past the end of its table: token ids "
                         ">= the vocabulary size (tokens added without resize_token_embeddings, "
                         "tokenizer from another checkpoint) or sequences longer than the "
                         "position embeddings (truncation off).",
                "probes": ["data.token-ids-out-of-vocab", "data.sequence-longer-than-positions",
                           "model.cpu-rerun"],
                "fix": "model.resize_token_embeddings(len(tokenizer))\n"
                       "tokenizer(texts, truncation=True, max_length=model.config."
                       "max_position_embeddings)"}
    if "input_val >= zero && input_val <= one" in assertion:
        return {"cause": "Binary cross-entropy got probabilities or targets outside [0, 1] (use "
                         "BCEWithLogits on raw logits; multi-label targets must be 0/1 floats).",
                "probes": ["data.label-dtype-problem-type", "model.cpu-rerun"]}
    return None


def _refine_oom(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    for key in ("tried_to_allocate", "total_capacity", "free", "allocated_by_pytorch",
                "reserved_unallocated"):
        if key in ev:
            mib = _mib(ev[key])
            if mib is not None:
                ev[key + "_mib"] = mib
    others = re.findall(r"Process (\d{1,12}) has ([\d.]{1,12} [KMGT]iB) memory in use", parsed.text)
    if others:
        ev["other_processes"] = [{"pid": _int(p), "memory": m} for p, m in others[:8]]
    shape = _shape(ev.get("tensor_shape"))
    if shape is not None:
        ev["tensor_shape"] = shape
        n = 1
        for d in shape[:8]:
            n *= max(d, 0)
        ev["tensor_elements"] = n
        width = {"half": 2, "bfloat16": 2, "double": 8, "int64": 8}.get(
            str(ev.get("tensor_dtype", "float")).lower(), 4)
        ev["tensor_mib"] = round(n * width / 2**20, 1)
    if "cpu" in str(ev.get("tf_device", "")).lower() or "DefaultCPUAllocator" in parsed.text:
        return {"cause": "The process ran out of main memory (RAM): a tensor or the batch is too "
                         "large for this machine.",
                "probes": ["memory.will-not-fit", "memory.largest-batch"]}
    if others:
        return {"cause": "The GPU ran out of memory and other processes hold part of it "
                         f"({', '.join(m for _, m in others[:3])}); free them (nvidia-smi) or "
                         "lower the batch size.",
                "probes": ["memory.gpu-held-by-other-process", "memory.will-not-fit",
                           "memory.largest-batch"]}
    if "gpu" in str(ev.get("tf_device", "")).lower() or "GPU_0_bfc" in parsed.text:
        return {"probes": ["memory.will-not-fit", "memory.tf-grabs-all-gpu-memory",
                           "memory.gpu-held-by-other-process", "memory.largest-batch"]}
    return None


def _refine_unable_tensor(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    feat = str(ev.get("feature", ""))
    if feat in ("label", "labels", "label_ids"):
        return {"cause": f"The `{feat}` column holds lists (token-level or multi-label labels, "
                         "or labels of different lengths) where the collator expects one "
                         "integer per example.",
                "probes": ["data.batch-structure", "data.token-labels-for-sequence-head"],
                "fix": "print(dataset['train'].features['label'])\n"
                       "# one integer per example for sequence classification;\n"
                       "# token labels need AutoModelForTokenClassification and "
                       "DataCollatorForTokenClassification(tokenizer)"}
    if feat and feat not in ("input_ids", "attention_mask", "token_type_ids",
                             "special_tokens_mask", "position_ids"):
        return {"cause": f"The raw column `{feat}` is still in the dataset, and the collator "
                         "tries to turn it into a tensor.",
                "probes": ["data.raw-text-columns", "data.batch-structure"],
                "fix": f"tokenized = tokenized.remove_columns([{feat!r}])"}
    return None


def _refine_batch_mismatch(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    inp, tgt = ev.get("input_batch"), ev.get("target_batch")
    if not (isinstance(inp, int) and isinstance(tgt, int) and inp > 0 and tgt > 0):
        return None
    if tgt > inp and tgt % inp == 0:
        ev["labels_per_example"] = tgt // inp
        return {"cause": f"There are {tgt // inp} labels per example ({tgt} targets for {inp} "
                         "predictions): token-level labels (one per token) reached a "
                         "sequence-classification head, which predicts one class per example."}
    if inp > tgt and inp % tgt == 0:
        ev["predictions_per_label"] = inp // tgt
        return {"cause": f"The model makes {inp // tgt} predictions per label: a token-level "
                         "head (one prediction per token) got one label per example.",
                "fix": "model = AutoModelForSequenceClassification.from_pretrained(checkpoint, "
                       "num_labels=num_labels)"}
    return None


def _refine_no_loss(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    inputs = [x.strip() for x in str(ev.get("inputs", "")).split(",") if x.strip()]
    keys = [x.strip() for x in str(ev.get("keys", "")).split(",") if x.strip()]
    if inputs:
        ev["inputs"] = inputs
    if keys:
        ev["keys"] = keys
    if inputs and not ({"labels", "label", "label_ids", "start_positions"} & set(inputs)):
        return {"cause": "The labels never reached the model: the batch has only "
                         f"{', '.join(inputs)}. The label column is missing, named differently "
                         "(it must be `label` or `labels`), or was dropped by "
                         "remove_unused_columns."}
    if inputs:
        return {"cause": "The model got labels but returned no loss: its class has no head that "
                         "computes one (e.g. AutoModel instead of "
                         "AutoModelForSequenceClassification), or a custom forward ignores them.",
                "probes": ["model.no-loss"]}
    return None


def _refine_unpack(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    inner = parsed.innermost_frame
    code = (inner.code or "") if inner else ""
    if inner is not None and inner.is_library and re.search(r"shape|size\(\)", code):
        ev["code"] = code
        return {"cause": "The inputs have one dimension too many (e.g. [1, batch, seq]): each "
                         "example was tokenized with return_tensors, or a list of encodings was "
                         "stacked, so the model cannot unpack (batch_size, seq_length).",
                "probes": ["data.batch-structure"],
                "fix": "tokenized = dataset.map(lambda b: tokenizer(b['text'], truncation=True),"
                       " batched=True)  # no return_tensors inside map"}
    return None


def _refine_size_mismatch(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    ck, mo = _shape(ev.get("checkpoint_shape")), _shape(ev.get("model_shape"))
    if ck is not None:
        ev["checkpoint_shape"] = ck
    if mo is not None:
        ev["model_shape"] = mo
    param = str(ev.get("param", ""))
    if "embeddings" in param and ck and mo:
        return {"cause": f"The embedding matrix has {ck[0]} rows in the checkpoint and {mo[0]} in "
                         "the model: the vocabulary size changed (tokens added, or another "
                         "tokenizer). Load with the checkpoint's config, then resize.",
                "probes": ["data.token-ids-out-of-vocab"],
                "fix": "model = AutoModelForSequenceClassification.from_pretrained(checkpoint)\n"
                       "model.resize_token_embeddings(len(tokenizer))"}
    if ck and mo and ck[0] != mo[0]:
        ev["checkpoint_num_labels"], ev["requested_num_labels"] = ck[0], mo[0]
        return {"cause": f"The checkpoint's classification head has {ck[0]} outputs and you asked "
                         f"for {mo[0]} (num_labels={mo[0]}); the head cannot be loaded as is."}
    return None


def _refine_optimizer(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    ident = str(ev.get("identifier", ""))
    if re.search(r"keras\.src\.optimizers|keras\.optimizers\.", ident) and "tf_keras" not in ident:
        ev["keras3_object"] = True
        return None
    if ident and not ident.startswith("<"):
        return {"cause": f"{ident} is not an optimizer name this Keras knows.",
                "probes": ["hyperparameters.hidden-defaults"],
                "fix": "from tf_keras.optimizers import Adam\n"
                       "model.compile(optimizer=Adam(learning_rate=5e-5))"}
    return None


def _refine_expanded(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    length, limit = ev.get("length"), ev.get("max_positions")
    if isinstance(length, int) and isinstance(limit, int):
        ev["too_long_by"] = length - limit
    return None


def _refine_broadcast(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Confident only when raised where a model adds its position embeddings."""
    inner = parsed.innermost_frame
    code = (inner.code or "") if inner else ""
    if inner is not None and inner.is_library and re.search(r"position|token_type", code):
        _refine_expanded(ev, parsed)
        ev["code"] = code
        return {"cause": f"A sequence of {ev.get('length')} tokens is longer than the model's "
                         f"{ev.get('max_positions')} position embeddings: truncation is off or "
                         "max_length is larger than the model allows.",
                "probes": ["data.sequence-longer-than-positions"],
                "fix": "tokenizer(texts, truncation=True, "
                       "max_length=model.config.max_position_embeddings)"}
    return None


SIGNATURES: list[Signature] = [
    Signature(
        "keras-no-gradients", r"No gradients provided for any variable",
        "The loss Keras minimises does not depend on the model's weights. With a transformers "
        "TF model this is the labels-inside-the-inputs fault: the model computes its own loss from "
        "the labels in the input dict while compile(loss=...) asks Keras for another loss that "
        "gets no labels. A custom loss or train_step that ignores the model output does the same.",
        "Keras found no gradient for any trainable variable, so the optimizer has nothing to "
        "apply. In the course (chapter 8) this is the first fault of the broken MNLI script.",
        ["data.labels-in-inputs-with-keras-loss", "model.initial-loss"],
        "model.compile(optimizer=Adam(learning_rate=5e-5))  # no loss=: the model's own loss\n"
        "# or: keep loss=... and pass the labels separately:\n"
        "# tf_ds = ds.to_tf_dataset(columns=['input_ids', 'attention_mask'], "
        "label_cols=['labels'], ...)",
        title="No gradients provided for any variable",
        evidence=(r"No gradients provided for any variable: \(?\[?'(?P<first_variable>[^']+)'",),
        framework="tensorflow", priority=12),
    Signature(
        "torch-target-out-of-bounds",
        r"Target (?P<target>-?\d+) is out of bounds|cur_target >= 0 && cur_target < n_classes",
        "A label is outside 0..num_labels-1: the model has fewer outputs than the data has "
        "classes.",
        "PyTorch's cross-entropy indexes the logits with each label; a label >= num_labels (or "
        "negative, other than -100) has no logit to pick.",
        ["data.labels-out-of-range"],
        "model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=3)  "
        "# the number of classes in the data",
        title="Target N is out of bounds", framework="pytorch", priority=14,
        refine=_refine_target),
    Signature(
        "tf-label-out-of-range",
        r"Received a label value of (?P<label>-?\d+) which is outside the valid range of "
        r"\[(?P<low>-?\d+), (?P<high>\d+)\)",
        "A label is outside 0..num_labels-1: the model has fewer outputs than the data has "
        "classes.",
        "Sparse categorical cross-entropy checks every label against the number of logits. On GPU "
        "or with XLA the same fault gives a NaN loss instead of this error.",
        ["data.labels-out-of-range"],
        "model = TFAutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=3)  "
        "# the number of classes in the data",
        title="Received a label value of N which is outside the valid range",
        evidence=(r"Label values: (?P<label_values>[-\d ]+)",), framework="tensorflow",
        priority=14, refine=_refine_tf_label),
    Signature(
        "cuda-device-side-assert",
        r"device-side assert(?:ion)? triggered|cuda runtime error \((?:59|710)\)",
        "A CUDA kernel's bounds check failed, most often a label >= num_labels in the loss, or a "
        "token id / position past the end of an embedding table. The Python line shown is often "
        "not where it happened: CUDA reports errors asynchronously.",
        "After a device-side assert the CUDA context is unusable; every later CUDA call fails "
        "too. Re-running the failing batch on CPU turns it into a readable Python error.",
        ["data.labels-out-of-range", "data.token-ids-out-of-vocab",
         "data.sequence-longer-than-positions", "model.cpu-rerun"],
        "# re-run the failing step on CPU to get a readable error\n"
        "model = model.cpu()\nbatch = {k: v.cpu() for k, v in batch.items()}\nmodel(**batch)\n"
        "# or: CUDA_LAUNCH_BLOCKING=1 python train.py",
        title="CUDA error: device-side assert triggered",
        evidence=(r"(?P<kernel_file>[\w./\\-]{1,200}\.cu):(?P<kernel_line>\d+): (?:void )?"
                  r"(?P<kernel>\w+)[^\n]*?Assertion `(?P<assertion>[^`'\n]+)[`'] failed",),
        framework="pytorch", priority=13, refine=_refine_assert),
    Signature(
        "out-of-memory",
        r"CUDA out of memory|OutOfMemoryError|OOM when allocating tensor|ResourceExhaustedError|"
        r"Resource exhausted|RESOURCE_EXHAUSTED|CUDA_ERROR_OUT_OF_MEMORY|MPS backend out of memory|"
        r"DefaultCPUAllocator: can't allocate memory",
        "The model, its gradients and optimizer state and the activations of one batch do not fit "
        "in the device's memory (or another process holds part of it).",
        "Memory grows with parameters (weights + gradients + 2 Adam moments = 16 bytes per "
        "parameter in fp32) and with batch size x sequence length for activations. TensorFlow also "
        "grabs all GPU memory at start unless memory growth is on.",
        ["memory.will-not-fit", "memory.gpu-held-by-other-process", "memory.largest-batch"],
        "# halve the batch and keep the effective batch with accumulation\n"
        "args = TrainingArguments(..., per_device_train_batch_size=8,\n"
        "                         gradient_accumulation_steps=2,\n"
        "                         gradient_checkpointing=True, bf16=True)\n"
        "# TensorFlow: for gpu in tf.config.list_physical_devices('GPU'): "
        "tf.config.experimental.set_memory_growth(gpu, True)\n"
        "# see who holds the GPU: nvidia-smi",
        title="Out of memory",
        evidence=(r"Tried to allocate (?P<tried_to_allocate>[\d.]+ [KMGT]?i?B)",
                  r"(?P<total_capacity>[\d.]{1,12} [KMGT]iB) total capacity",
                  r"total capac?i?ty of (?P<total_capacity>[\d.]+ [KMGT]iB)",
                  r"(?:of which |; )(?P<free>[\d.]{1,12} (?:[KMGT]iB|bytes)) (?:is )?free",
                  r"(?P<allocated_by_pytorch>[\d.]{1,12} [KMGT]iB) (?:is allocated by PyTorch|"
                  r"already allocated)",
                  r"(?P<reserved_unallocated>[\d.]{1,12} [KMGT]iB) is reserved by PyTorch "
                  r"but unallocated",
                  r"GPU (?P<gpu>\d+)",
                  r"OOM when allocating tensor (?:with|of) shape ?\[(?P<tensor_shape>[\d, ]*)\] "
                  r"and type (?P<tensor_dtype>\w+)(?: on (?P<tf_device>\S+))?",
                  r"you tried to allocate (?P<cpu_bytes>\d+) bytes"),
        priority=13, refine=_refine_oom),
    Signature(
        "unable-to-create-tensor",
        r"Unable to create tensor, you should probably activate truncation and/or padding",
        "The examples of a batch have different lengths (no padding/truncation) or a column holds "
        "something that is not a list of ids (raw text, nested labels).",
        "return_tensors / a collator stacks the examples into one rectangular tensor; ragged "
        "lists or strings cannot be stacked.",
        ["data.ragged-batch", "data.raw-text-columns", "data.batch-structure"],
        "from transformers import DataCollatorWithPadding\n"
        "collator = DataCollatorWithPadding(tokenizer)  # pads each batch\n"
        "tokenized = dataset.map(lambda b: tokenizer(b['text'], truncation=True), batched=True,\n"
        "                        remove_columns=['text'])",
        title="Unable to create tensor: activate truncation and/or padding",
        evidence=(r"Perhaps your features \(`(?P<feature>[^`\n]+)` in this case\)",),
        priority=13, refine=_refine_unable_tensor),
    Signature(
        "ragged-sequences",
        r"expected sequence of length (?P<expected>\d+) at dim (?P<dim>\d+) \(got (?P<got>\d+)\)",
        "A list of sequences of different lengths was turned into a tensor without padding.",
        "torch.tensor needs every row to have the same length; tokenized examples differ in length "
        "until a collator pads them.",
        ["data.ragged-batch", "data.batch-structure"],
        "from transformers import DataCollatorWithPadding\n"
        "collator = DataCollatorWithPadding(tokenizer)\n"
        "# or: tokenizer(texts, padding=True, truncation=True, return_tensors='pt')",
        title="expected sequence of length X at dim 1 (got Y)", framework="pytorch", priority=11),
    Signature(
        "batch-size-mismatch",
        r"Expected input batch_size \((?P<input_batch>\d+)\) to match target batch_size "
        r"\((?P<target_batch>\d+)\)",
        "The logits and the labels disagree on the number of examples: token-level labels for a "
        "sequence-classification head, or the other way round.",
        "Cross-entropy pairs one prediction with one label; the ratio of the two numbers tells "
        "how many labels each example carries.",
        ["data.token-labels-for-sequence-head", "data.batch-structure"],
        "model = AutoModelForTokenClassification.from_pretrained(checkpoint, num_labels=num_labels)"
        "\n# (token labels) - or give one label per example for sequence classification",
        title="Expected input batch_size (X) to match target batch_size (Y)", framework="pytorch",
        priority=13, refine=_refine_batch_mismatch),
    Signature(
        "logits-labels-first-dim",
        r"logits and labels must have the same first dimension, got logits shape "
        r"\[(?P<logits_rows>\d+),(?P<num_classes>\d+)\] and labels shape \[(?P<label_rows>\d+)\]",
        "The logits and the labels disagree on the number of examples (token-level labels for a "
        "sequence-classification head, or labels of another shape).",
        "Sparse cross-entropy pairs one row of logits with one label.",
        ["data.token-labels-for-sequence-head", "data.batch-structure"],
        "print(tf_dataset.element_spec)\n"
        "# labels must have shape (batch,) for sequence classification",
        title="logits and labels must have the same first dimension", framework="tensorflow",
        priority=12),
    Signature(
        "model-returned-no-loss",
        r"The model did not return a loss from the inputs(?:, only the following keys: "
        r"(?P<keys>[^.\n]*)\.(?: For reference, the inputs it received are (?P<inputs>[^.\n]*))?)?",
        "The Trainer needs the model to compute the loss, and it did not: the labels did not reach "
        "the model, or the model class has no loss.",
        "Trainer passes the batch to model(**batch) and reads outputs.loss; the model returns a "
        "loss only when it gets `labels` and has a task head.",
        ["data.label-column-missing", "model.no-loss", "data.batch-structure"],
        "dataset = dataset.rename_column('label_column_name', 'labels')\n"
        "model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=n)\n"
        "# and keep TrainingArguments(remove_unused_columns=True) unless the columns are custom",
        title="The model did not return a loss from the inputs", framework="pytorch", priority=13,
        refine=_refine_no_loss),
    Signature(
        "too-many-values-to-unpack",
        r"too many values to unpack \(expected (?P<expected>\d+)(?:, got (?P<got>\d+))?\)",
        "Often in fine-tuning code: iterating a dict batch (`for input_ids, labels in loader` "
        "walks the keys), unpacking a ModelOutput, or inputs with an extra dimension inside the "
        "model.",
        "Python unpacked an object with more items than names on the left; which object it is "
        "shows in the innermost frame's code line.",
        ["data.batch-structure"],
        "for batch in loader:\n    outputs = model(**batch)\n    loss, logits = outputs.loss, "
        "outputs.logits",
        title="too many values to unpack", priority=4, refine=_refine_unpack),
    Signature(
        "no-pad-token",
        r"Asking to pad but the tokenizer does not have a padding token",
        "The tokenizer (GPT-2, LLaMA, Mistral style) has no pad token, so it cannot pad a batch.",
        "Decoder-only checkpoints ship without a pad token; padding needs one, and the model "
        "config needs its id for sequence classification.",
        ["data.no-pad-token"],
        "tokenizer.pad_token = tokenizer.eos_token\nmodel.config.pad_token_id = "
        "tokenizer.pad_token_id",
        title="Asking to pad but the tokenizer does not have a padding token", priority=14),
    Signature(
        "missing-input-ids",
        r"You have to specify either input_ids or inputs_embeds|You must specify exactly one of "
        r"input_ids or inputs_embeds",
        "The batch that reached the model has no `input_ids`: the columns were renamed or dropped, "
        "to_tf_dataset got other columns, or raw text was passed instead of token ids.",
        "Every transformers model needs input_ids (or inputs_embeds); it raises when neither "
        "arrives.",
        ["data.batch-structure"],
        "tokenized = dataset.map(lambda b: tokenizer(b['text'], truncation=True), batched=True)\n"
        "print(tokenized['train'].column_names)  # must include input_ids\n"
        "# Keras: ds.to_tf_dataset(columns=['input_ids', 'attention_mask'], label_cols=['labels'])",
        title="You have to specify either input_ids or inputs_embeds", priority=13),
    Signature(
        "head-size-mismatch",
        r"size mismatch for [\w.]+: copying a param with shape|\|\s*MISMATCH\s*\||You set "
        r"`ignore_mismatched_sizes` to `False`",
        "The checkpoint's weights have other shapes than the model you built, usually the "
        "classification head: num_labels differs from the checkpoint's.",
        "A fine-tuned checkpoint's head has one row per class it was trained on; a new num_labels "
        "needs a new head.",
        ["model.head-size-mismatch"],
        "model = AutoModelForSequenceClassification.from_pretrained(\n    checkpoint, "
        "num_labels=num_labels, ignore_mismatched_sizes=True)  # new head, to be trained",
        title="size mismatch for classifier.weight",
        evidence=(r"size mismatch for (?P<param>[\w.]+): copying a param with shape "
                  r"(?:torch\.Size\()?\[(?P<checkpoint_shape>[\d, ]*)\]\)? from checkpoint, "
                  r"the shape in current model is (?:torch\.Size\()?\[(?P<model_shape>[\d, ]*)\]",
                  r"(?P<param>[\w.]{1,200})\s*\|\s*MISMATCH\s*\|[^\n]*?ckpt: torch\.Size\(\["
                  r"(?P<checkpoint_shape>[\d, ]*)\]\) vs model: ?torch\.Size\(\[(?P<model_shape>"
                  r"[\d, ]*)\]\)",
                  r"Error\(s\) in loading state_dict for (?P<module>\w+)"),
        priority=13, refine=_refine_size_mismatch),
    Signature(
        "sequence-longer-than-max",
        r"Token indices sequence length is longer than the specified maximum sequence length for "
        r"this model \((?P<length>\d+) > (?P<max_length>\d+)\)",
        "Texts are tokenized without truncation, so some are longer than the model accepts.",
        "Past max_position_embeddings the position lookup fails ('index out of range in self', or "
        "a device-side assert on GPU).",
        ["data.sequence-longer-than-positions"],
        "tokenizer(texts, truncation=True, max_length=tokenizer.model_max_length)",
        title="Token indices sequence length is longer than the specified maximum", priority=8),
    Signature(
        "index-out-of-range-in-self",
        r"index out of range in self",
        "An embedding lookup got an index past the end of its table: a token id >= the vocabulary "
        "size (tokens added without resize_token_embeddings, another checkpoint's tokenizer) or a "
        "sequence longer than the position embeddings (truncation off).",
        "torch.embedding raises this on CPU; on GPU the same fault is a device-side assert.",
        ["data.token-ids-out-of-vocab", "data.sequence-longer-than-positions"],
        "model.resize_token_embeddings(len(tokenizer))\n"
        "tokenizer(texts, truncation=True, max_length=model.config.max_position_embeddings)",
        title="index out of range in self", framework="pytorch", priority=13),
    Signature(
        "expanded-size-positions",
        r"The expanded size of the tensor \((?P<length>\d+)\) must match the existing size "
        r"\((?P<max_positions>\d+)\) at non-singleton dimension 1",
        "A sequence is longer than the model's position buffers (max_position_embeddings): "
        "truncation is off or max_length is larger than the model allows.",
        "BERT-style models expand a buffer of max_position_embeddings token types/positions to the "
        "sequence length; a longer sequence cannot be expanded.",
        ["data.sequence-longer-than-positions"],
        "tokenizer(texts, truncation=True, max_length=model.config.max_position_embeddings)",
        title="The expanded size of the tensor must match the existing size", framework="pytorch",
        priority=9, refine=_refine_expanded),
    Signature(
        "tensor-size-mismatch-dim1",
        r"The size of tensor a \((?P<length>\d+)\) must match the size of tensor b "
        r"\((?P<max_positions>\d+)\) at non-singleton dimension 1\b",
        "Two tensors disagree on dimension 1, in a transformer usually the sequence length: a "
        "sequence longer than max_position_embeddings, or inputs and masks of different lengths.",
        "Element-wise operations need equal sizes; inside an embedding layer the second number is "
        "the model's maximum number of positions.",
        ["data.sequence-longer-than-positions", "data.batch-structure"],
        "tokenizer(texts, truncation=True, max_length=model.config.max_position_embeddings)",
        title="The size of tensor a must match the size of tensor b at dimension 1",
        framework="pytorch", priority=3, refine=_refine_broadcast),
    Signature(
        "label-dtype-long-expected-float",
        r"Found dtype (?P<found>Long|Int|Short|Byte|Bool) but expected (?P<expected>Float|Double|"
        r"Half|BFloat16)|result type Float can't be cast to the desired output type "
        r"(?P<output_type>Long|Int)",
        "Integer labels reached a loss that needs floats: num_labels=1 (regression, MSE) or "
        "problem_type='multi_label_classification' (BCE) with integer class ids.",
        "transformers picks the loss from num_labels, problem_type and the labels' dtype: "
        "integer labels with one output mean regression, which needs float targets.",
        ["data.label-dtype-problem-type"],
        "# single-label classification: one output per class\n"
        "model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=2)\n"
        "# regression or multi-label: float labels\n"
        "dataset = dataset.map(lambda b: {'labels': [float(x) for x in b['label']]}, batched=True)",
        title="Found dtype Long but expected Float", framework="pytorch", priority=13),
    Signature(
        "keras-3-installed",
        r"Your currently installed version of Keras is Keras 3",
        "TensorFlow >= 2.16 brings Keras 3, which transformers' TF models do not support.",
        "transformers' TF classes are written for Keras 2; they need the tf-keras package and "
        "TF_USE_LEGACY_KERAS=1.",
        ["environment.keras-3"],
        'pip install "tf-keras~=2.16"  # the same minor version as tensorflow\n'
        "export TF_USE_LEGACY_KERAS=1   # before importing tensorflow",
        title="Your currently installed version of Keras is Keras 3", framework="tensorflow",
        priority=14),
    Signature(
        "keras-optimizer-identifier",
        r"Could not interpret optimizer identifier:? ?(?P<identifier>[^\n]*)",
        "A Keras 3 optimizer (`from tensorflow.keras.optimizers import Adam` or `keras.optimizers`"
        " on TF >= 2.16) was handed to a tf-keras model, which only accepts its own optimizers.",
        "With TF_USE_LEGACY_KERAS unset, tensorflow.keras is Keras 3 while transformers' models "
        "are tf-keras models; their compile() rejects the foreign object.",
        ["hyperparameters.keras3-optimizer"],
        "import os\nos.environ['TF_USE_LEGACY_KERAS'] = '1'  # before importing tensorflow\n"
        "from tf_keras.optimizers import Adam\nmodel.compile(optimizer=Adam(learning_rate=5e-5))",
        title="Could not interpret optimizer identifier", framework="tensorflow", priority=13,
        refine=_refine_optimizer),
    Signature(
        "keras-shapes-incompatible",
        r"Shapes \((?P<shape_a>[^()\n]*)\) and \((?P<shape_b>[^()\n]*)\) are incompatible",
        "Often: loss='categorical_crossentropy' (one-hot labels) with integer class ids, or a head "
        "with another number of outputs than the labels have.",
        "Categorical cross-entropy compares a one-hot label vector with the predictions, so both "
        "must have one column per class.",
        ["hyperparameters.hidden-defaults", "data.batch-structure"],
        "model.compile(optimizer=Adam(5e-5), "
        "loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))",
        title="Shapes (...) and (...) are incompatible", framework="tensorflow", priority=6),
    Signature(
        "metric-fed-logits",
        r"only (?:size-1|length-1|0-dimensional|one element) (?:arrays|tensors) can be converted "
        r"to Python scalars|Classification metrics can't handle a mix of (?P<y_true_kind>[\w-]+) "
        r"and (?P<y_pred_kind>[\w-]+) targets",
        "The metric got the logits (one row of scores per example) where it expects one class id "
        "per example.",
        "Accuracy/F1 compare class ids; compute_metrics receives raw logits and must take the "
        "argmax first.",
        ["hyperparameters.metric-fed-logits"],
        "def compute_metrics(eval_pred):\n    logits, labels = eval_pred\n"
        "    predictions = np.argmax(logits, axis=-1)\n"
        "    return metric.compute(predictions=predictions, references=labels)",
        title="only size-1 arrays can be converted to Python scalars (metric fed logits)",
        priority=9),
    Signature(
        "devices-differ",
        r"Expected all tensors to be on the same device, but (?:found at least two devices, )?"
        r"(?P<device_a>[\w:]+) and (?P<device_b>[\w:]+)",
        "The batch and the model are on different devices (e.g. inputs on CPU, model on cuda:0).",
        "Every tensor of one operation must live on one device; a plain loop has to move the "
        "batch.",
        ["environment.device"],
        "batch = {k: v.to(model.device) for k, v in batch.items()}",
        title="Expected all tensors to be on the same device", framework="pytorch", priority=12),
    Signature(
        "nan-loss",
        r"Invalid loss, terminating training|returned nan values in its \d+\w* output|"
        r"\bloss['\"]?\s*[:=]\s*nan\b",
        "The loss became NaN: labels outside 0..num_labels-1 (TF on GPU/XLA), a learning rate far "
        "too high, fp16 overflow, or NaN/Inf in the inputs.",
        "NaN spreads through the weights within one step; the first samples with a NaN per-sample "
        "loss point at the cause.",
        ["model.nan-loss-samples", "data.labels-out-of-range",
         "hyperparameters.learning-rate-too-high", "curves.nan"],
        "loss = tf_keras.losses.sparse_categorical_crossentropy(labels, model(batch).logits, "
        "from_logits=True)\nprint(np.flatnonzero(np.isnan(loss)), labels.numpy()[np.isnan(loss)])",
        title="Loss is NaN", priority=5),
    Signature(
        "hub-unreachable",
        r"We couldn't connect to '?https?://huggingface\.co|OfflineModeIsEnabled|"
        r"LocalEntryNotFoundError|outgoing traffic has been disabled|Cannot find the requested "
        r"files in the (?:disk )?cache",
        "The Hub could not be reached (offline, proxy, firewall) and the files are not in the "
        "cache.",
        "from_pretrained downloads into the cache on first use; offline it can only use what is "
        "cached or a local folder.",
        ["environment.hub-unreachable"],
        "# on a machine with access: model.save_pretrained('my-model'); "
        "tokenizer.save_pretrained('my-model')\n"
        "model = AutoModelForSequenceClassification.from_pretrained('./my-model')",
        title="We couldn't connect to huggingface.co", priority=8),
    Signature(
        "model-id-not-found",
        r"is not a local folder and is not a valid model identifier|RepositoryNotFoundError|"
        r"Repository Not Found for url",
        "The model name is misspelt, the repository is private or gated (needs a token), or a "
        "local path does not exist.",
        "from_pretrained treats a string that is not an existing folder as a Hub id.",
        ["environment.model-not-found", "environment.hub-auth-required",
         "environment.gated-repo"],
        "from huggingface_hub import login\nlogin()  # for private or gated models\n"
        "# and check the id at https://huggingface.co/<id>",
        title="not a valid model identifier", priority=8),
    Signature(
        "newly-initialized-head",
        r"Some weights of \w+ were not initialized from the model checkpoint",
        "Not an error: a new classification head is created for fine-tuning, as expected when "
        "loading a base checkpoint into a ...ForSequenceClassification model.",
        "The warning lists the head's weights; they are trained by fine-tuning. Look for the real "
        "error further down the output.",
        [],
        "",
        title="Some weights were not initialized (expected)", priority=0, benign=True),
]

_BY_ID = {s.id: s for s in SIGNATURES}


def find_signature(sig_id: str) -> Signature | None:
    return _BY_ID.get(sig_id)


def unknown_probe_ids() -> list[str]:
    """Probe ids the signatures name that are not (yet) in the catalogue."""
    return sorted({p for s in SIGNATURES for p in s.probes if p not in CHECKS})


# ---------------------------------------------------------------------------------------------
# Matching and triage
# ---------------------------------------------------------------------------------------------
_WEIGHTS = {"exception": 100, "chained": 60, "text": 40}


@dataclass
class SignatureMatch:
    """One signature found in a paste: where, the numbers it carried, the refined cause."""

    signature: Signature
    where: str                        # exception | chained | text
    evidence: dict[str, Any]
    excerpt: str
    score: int
    cause: str
    probes: list[str]
    fix: str

    def to_dict(self) -> dict[str, Any]:
        s = self.signature
        return {"id": s.id, "title": s.title or s.id, "where": self.where, "score": self.score,
                "evidence": self.evidence, "excerpt": self.excerpt, "cause": self.cause,
                "explanation": s.explanation, "probes": self.probes, "fix": self.fix,
                "framework": s.framework}


def _convert(value: str) -> Any:
    n = _int(value)
    return n if n is not None else value.strip()


def _regions(parsed: ParsedError) -> list[tuple[str, str]]:
    core = parsed.message or parsed.raw_message
    head = f"{parsed.exc_type}: {core}" if parsed.exc_type else core
    regions = [("exception", head)]
    for c in reversed(parsed.chain):
        regions.append(("chained", f"{c.exc_type}: {c.raw_message}" if c.exc_type
                        else c.raw_message))
    regions.append(("text", parsed.loose_text or parsed.text))
    return regions


def match_signatures(parsed: ParsedError) -> list[SignatureMatch]:
    """Every signature found in the parsed paste, best first."""
    regions = _regions(parsed)
    loose = parsed.loose_text or parsed.text
    matches: list[SignatureMatch] = []
    for order, sig in enumerate(SIGNATURES):
        rx = sig.regex()
        for where, text in regions:
            m = rx.search(text)
            if not m:
                continue
            ev = {k: _convert(v) for k, v in m.groupdict().items() if v is not None}
            for extra in sig.evidence:
                found = _compile(extra).search(text) or _compile(extra).search(loose)
                if found:
                    for k, v in found.groupdict().items():
                        if v is not None and k not in ev:
                            ev[k] = _convert(v)
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = text.find("\n", m.end())
            excerpt = text[line_start: line_end if line_end != -1 else len(text)].strip()[:400]
            over = sig.refine(ev, parsed) if sig.refine else None
            over = over or {}
            matches.append(SignatureMatch(
                signature=sig, where=where, evidence=ev, excerpt=excerpt,
                score=_WEIGHTS[where] + sig.priority,
                cause=over.get("cause", sig.cause), probes=list(over.get("probes", sig.probes)),
                fix=over.get("fix", sig.fix)))
            break
    order_of = {s.id: i for i, s in enumerate(SIGNATURES)}
    matches.sort(key=lambda x: (-x.score, order_of[x.signature.id]))
    return matches


@dataclass
class Triage:
    """A paste's parse, the signatures it matches (best first) and what to check next."""

    parsed: ParsedError
    matches: list[SignatureMatch] = field(default_factory=list)
    error: str | None = None          # set only when triage itself failed

    @property
    def primary(self) -> SignatureMatch | None:
        """The best match that explains the error (a benign warning only when nothing else)."""
        real = [m for m in self.matches if not m.signature.benign]
        if real:
            return real[0]
        if self.matches and not self.parsed.exc_type:
            return self.matches[0]
        return None

    @property
    def likely_causes(self) -> list[dict[str, Any]]:
        seen: set[str] = set()
        out = []
        for m in self.matches:
            if m.cause in seen:
                continue
            seen.add(m.cause)
            out.append({"signature": m.signature.id, "cause": m.cause,
                        "confirm_with": m.probes, "fix": m.fix})
        return out

    @property
    def probes(self) -> list[str]:
        """Check ids that would confirm the causes, most likely first, without repeats."""
        out: list[str] = []
        for m in self.matches:
            out.extend(p for p in m.probes if p not in out)
        return out

    @property
    def verdict(self) -> str:
        """known-error | possible-library-bug | unknown-error | empty."""
        if not self.parsed.text.strip():
            return "empty"
        if self.primary is not None:
            return "known-error"
        return "possible-library-bug" if self.parsed.library_frames_innermost else "unknown-error"

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "parsed": self.parsed.to_dict(),
                "matches": [m.to_dict() for m in self.matches],
                "likely_causes": self.likely_causes, "probes": self.probes, "error": self.error}


def triage(text: str) -> Triage:
    """Parse a pasted error and match it against the signature catalogue. Never raises."""
    parsed = parse_traceback(text)
    try:
        return Triage(parsed=parsed, matches=match_signatures(parsed))
    except Exception as exc:  # noqa: BLE001 - a paste must never crash the wizard
        return Triage(parsed=parsed, error=f"{type(exc).__name__}: {exc}")


# ---------------------------------------------------------------------------------------------
# The probe
# ---------------------------------------------------------------------------------------------
def _short(text: str, limit: int = 300) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _base_evidence(p: ParsedError) -> dict[str, Any]:
    inner, user = p.innermost_frame, p.innermost_user_frame
    ev: dict[str, Any] = {"exception": p.exc_type, "message": _short(p.message.split("\n")[0]
                                                                      if p.message else "")}
    if user is not None:
        ev["your_code"] = user.where() + (f": {user.code}" if user.code else "")
    if inner is not None:
        ev["raised_in"] = inner.where()
    if p.chain:
        ev["chained_from"] = [c.last_line[:200] for c in p.chain]
    if p.graph_node:
        ev["graph_node"] = p.graph_node
    return ev


def probe_triage(case: Any, ctx: Any = None) -> list[Finding]:
    """Findings for the pasted traceback of the case ([] when there is none)."""
    text = getattr(case, "traceback", "") or ""
    if not isinstance(text, str) or not text.strip():
        return []
    t = triage(text)
    p = t.parsed
    ev = _base_evidence(p)
    if t.error:
        ev["triage_error"] = t.error
    if t.primary is not None:
        m = t.primary
        ev.update({"signature": m.signature.id, "numbers": m.evidence, "found_in": m.where,
                   "matched_line": m.excerpt, "confirm_with": m.probes})
        others = [x.signature.id for x in t.matches if x is not m]
        if others:
            ev["also_matches"] = others
        return [Finding("triage.known-error", "info",
                        f"The error is a known one: {m.signature.title or m.signature.id}",
                        evidence=ev, explanation=f"{m.cause} {m.signature.explanation}".strip(),
                        fix=m.fix)]
    if t.matches:
        ev["also_matches"] = [x.signature.id for x in t.matches]
    graph = bool(p.graph_node or p.graph_op or "Graph execution error" in p.message)
    cuda = "CUDA" in p.message
    if graph:
        hint = "model.compile(optimizer=optimizer, run_eagerly=True)  # readable TF errors"
    elif cuda:
        hint = ("model = model.cpu(); batch = {k: v.cpu() for k, v in batch.items()}; "
                "model(**batch)  # re-run on CPU for a readable error")
    else:
        hint = ""
    if p.library_frames_innermost:
        lib = [f for f in p.frames if f.is_library][-3:]
        ev["innermost_library_frames"] = [f.where() + (f": {f.code}" if f.code else "")
                                          for f in lib]
        ev["package"] = p.innermost_library_package
        return [Finding(
            "triage.possible-library-bug", "warn",
            f"Unknown error raised inside {p.innermost_library_package or 'library'} code",
            evidence=ev,
            explanation="No known signature matches, and the innermost frames are library code. "
                        "If the checks of your data, model and hyperparameters come out clean, "
                        "this may be a bug in the library: the report step writes a minimal "
                        "reproduction for an issue.",
            fix=hint or "python -m wizard check case.yaml --report report/ --format github")]
    return [Finding("triage.unknown-error", "info", "The error matches no known signature",
                    evidence=ev,
                    explanation="No known signature matches this error"
                                + (" and it was raised in your code; start at the line shown."
                                   if p.innermost_user_frame is not None else "."),
                    fix=hint)]
