"""A pasted traceback -> ParsedError: the exception, its message, its frames and its causes.

`parse_traceback` reads a whole Python traceback, only its last line, an IPython/Jupyter
traceback, Keras "in user code:" errors, TensorFlow graph errors ("Detected at node ...") and
chained exceptions, pasted with or without indentation, ANSI colours or Windows line endings.
It never raises.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from typing import Any

from wizard.triage.frames import Frame, make_frame
from wizard.triage.normalize import normalize, normalize_with_breaks, to_int


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


_TB_HEADER = re.compile(r"^\s*(?:(?P<type>[\w.]+)\s+)?Traceback \(most recent call last\):?\s*$")
_CHAIN = {"The above exception was the direct cause of the following exception:": "cause",
          "During handling of the above exception, another exception occurred:": "context"}
# also a first frame whose 'File "' the selection cut off ('lib/peft/lora.py", line 154, in f')
_PY_FRAME = re.compile(
    r'^\s*(?:File "|(?=[^"\s][^"\n]*\.pyx?", line \d+, in \S))'
    r'(?P<file>[^"\n]*)", line (?P<line>\d+)(?:, in(?: (?P<func>.*?))?)?\s*\**\s*$')
# pytest's tracebacks (CI logs): "src/setfit/trainer.py:353: in train"
_PYTEST_FRAME = re.compile(r"^(?P<file>\S+\.py):(?P<line>\d+): in (?P<func>\S+)$")
# IPython 8 prints module-level frames without ", in <module>" (File /x/pkg/__init__.py:40)
_IPY8_FRAME = re.compile(r"^File (?P<file>\S.*?):(?P<line>\d+), in (?P<func>.+)$|"
                         r"^File (?P<file2>\S.*?\.py[cw]?):(?P<line2>\d+)$")
_IPY_CELL = re.compile(r"^(?:Cell In\s?\[(?P<cell>[^\]\n]*)\], line (?P<line>\d+)"
                       r"|Input In \[(?P<cell2>[^\]\n]*)\], in (?P<func>.+))\s*$")
_IPY7_FRAME = re.compile(
    r"^(?P<file>(?:~|[A-Za-z]:|/|\.|<ipython-input-)[^\n]*?(?:\.py[cw]?|>)) in (?P<func>[^\s(]+)")
_IPY_CODE = re.compile(r"^\s*(?P<arrow>-*>)?\s*(?P<no>\d+)(?:\s(?P<code>.*))?$")
_KERAS_OLD_FRAME = re.compile(
    r"^\s*(?P<file>\S[^\n]*?\.py):(?P<line>\d+) (?P<func>\S+)(?:\s+\*+)?$")
_SKIP = re.compile(r"^(?:[\^~\s]+|\[Previous line repeated \d+ more times?\]"
                   r"|\.\.\.\s*<\d+ lines>\s*\.\.\.|\.\.\.|\d+ frames|-{5,}|(?:_ ){5,}_?"
                   r"|<stack traces unavailable>)$")
_EXC_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?: \(see above for traceback\))?"
                       r"(?::(?P<msg>.*))?$")
_EXC_STRICT = re.compile(
    r"^\s*(?P<type>(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning|Iteration|"
    r"Fault|Failure|Exhausted|Invalid)|Exception))(?: \(see above for traceback\))?(?::(?P<msg>.*))?$")
# an exception named inside a sentence: "... it results in ValueError: Unrecognized ..."
_EXC_INLINE = re.compile(
    r"(?:^|(?<=[\s`'\"*(\[>:]))(?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Invalid))"
    r"(?P<msg> ?: \S.*)$")
# VS Code: "Exception has occurred: ImportError" with the message on the next line;
# the Hub's dataset viewer: "Exception:     ImportError" then "Message:       ..."
_VSCODE_EXC = re.compile(r"^\s*Exception has occurred: (?P<type>[\w.]+)")
_VIEWER_EXC = re.compile(r"^\s*Exception:\s+(?P<type>[\w.]+)\s*$")
_VIEWER_MSG = re.compile(r"^\s*Message:\s+(?P<msg>\S.*)$")
_DETECTED = re.compile(
    r"Detected at node '?(?P<node>[^'\n]*?)'? defined at \(most recent call last\):")
_NODE_LINE = re.compile(r"^\s*Node: '?(?P<node>[^'\n]*)'?\s*$")
_GRAPH_NODE = re.compile(r"\[\[\{\{node (?P<node>[^}\n]+)\}\}\]\]")
_GRAPH_OP = re.compile(r"\[Op:(?P<op>[^\]\n]+)\]")
_FUNCTION_NODE = re.compile(r"^\{\{function_node [^}\n]*\}\}\s*")
_DEVICE = re.compile(r"/device:(?P<dev>[A-Za-z_]+:\d+)")


def _frame_header(line: str) -> Frame | None:
    """A frame header line in any of the formats Python, IPython and Keras print."""
    m = _PY_FRAME.match(line)
    if m:
        return make_frame(m.group("file"), m.group("line"), m.group("func"), "python")
    s = line.strip()
    m = _IPY_CELL.match(s)
    if m:
        cell = m.group("cell") if m.group("cell") is not None else m.group("cell2")
        return make_frame(f"Cell In[{cell}]", m.group("line"), m.group("func"), "ipython")
    m = _PYTEST_FRAME.match(s)
    if m:
        return make_frame(m.group("file"), m.group("line"), m.group("func"), "python")
    m = _IPY8_FRAME.match(s)
    if m:
        return make_frame(m.group("file") or m.group("file2"), m.group("line") or m.group("line2"),
                          m.group("func") or "<module>", "ipython")
    if not line[:1].isspace():
        m = _IPY7_FRAME.match(s)
        if m:
            return make_frame(m.group("file"), None, m.group("func"), "ipython")
    return None


def _split_segments(lines: list[str], breaks: frozenset[int] = frozenset()
                    ) -> list[tuple[str | None, list[str], int]]:
    """Split at chain markers, at a new traceback header after an exception line, and at frames
    after an exception line and a closing code fence; each segment with the index of its first
    line."""
    segments: list[tuple[str | None, list[str], int]] = []
    cur: list[str] = []
    at = 0                            # the index of cur's first line
    relation: str | None = None
    seen_header = False
    seen_exc = False                  # an exception line ended this segment's frames
    fenced = False                    # and a code block closed after it
    for i, line in enumerate(lines):
        s = line.strip()
        if s in _CHAIN:
            segments.append((relation, cur, at))
            cur, at, relation, seen_header, seen_exc = [], i + 1, _CHAIN[s], False, False
            fenced = False
            continue
        fenced = fenced or (seen_exc and i in breaks)
        if seen_exc and (not line[:1].isspace() or fenced) and _PY_FRAME.match(line):
            # frames at the margin (or in the next code block) after an exception: the next of
            # several errors pasted one after another without their "Traceback" headers
            segments.append((relation, cur, at))
            cur, at, relation, seen_header, seen_exc = [], i, "separate", True, False
            fenced = False
        elif cur and not line[:1].isspace() and _EXC_STRICT.match(line) and \
                any(_PY_FRAME.match(x) for x in cur):
            seen_exc = True
        if _TB_HEADER.match(line):
            seen_exc = fenced = False
            if seen_header and cur:
                # a second traceback in the same paste; keep a separator line with IPython's
                prev = cur[-1] if cur else ""
                carry = [cur.pop()] if re.fullmatch(r"-{5,}", prev.strip()) else []
                segments.append((relation, cur, at))
                cur, at, relation = carry, i - len(carry), "separate"
            seen_header = True
        cur.append(line)
    segments.append((relation, cur, at))
    return [seg for seg in segments if any(x.strip() for x in seg[1])] or [(None, [], 0)]


def _parse_frames(lines: list[str], start: int, origin_hint: str | None = None,
                  flat_code: bool = True) -> tuple[list[Frame], int]:
    """Frames from lines[start:] up to the exception line; returns (frames, its index)."""
    frames: list[Frame] = []
    cur: Frame | None = None
    header_indent = 0
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
            header_indent = len(line) - len(line.lstrip())
            i += 1
            continue
        if cur is not None and line[:1].isspace() and _EXC_STRICT.match(line) and \
                len(line) - len(line.lstrip()) <= header_indent:
            break                             # a traceback pasted indented: its exception line
        if cur is not None and cur.origin == "ipython":
            m = _IPY_CODE.match(line)
            if m and (line[:1].isspace() or m.group("arrow")):
                if m.group("arrow"):
                    cur.code = (m.group("code") or "").strip() or cur.code
                    if cur.line is None:
                        cur.line = to_int(m.group("no"))
                i += 1
                continue
        if cur is not None and line[:1].isspace():
            if cur.code is None:
                cur.code = s
            i += 1
            continue
        if cur is None and not frames and line[:1].isspace() and not _EXC_STRICT.match(line):
            i += 1                            # code of a frame elided with "..." above
            continue
        if flat_code and cur is not None and cur.code is None and not _EXC_LINE.match(s):
            cur.code = s                      # unindented code in a flattened paste
            i += 1
            continue
        break
    return frames, i


def _parse_segment(lines: list[str], breaks: frozenset[int] = frozenset()
                   ) -> tuple[ParsedError, list[str]]:
    """One traceback (or a bare message) -> the error, and the lines that are not frames.
    `breaks`: indices of lines after a closing code fence, where a message ends."""
    err = ParsedError()
    header_type: str | None = None
    start: int | None = None
    for j, line in enumerate(lines):
        m = _TB_HEADER.match(line)
        if m:
            header_type, start, err.has_traceback = m.group("type"), j + 1, True
            break
    if start is None:
        # frames without a header, unless an exception line that goes on with its frames comes
        # first (TF/Keras: "InvalidArgumentError: Graph execution error:", "in user code:"); an
        # error stated above its traceback is read from above the frames
        first_exc = next((k for k, ln in enumerate(lines) if not ln[:1].isspace() and
                          _EXC_STRICT.match(ln) and ln.rstrip().endswith(":")), len(lines))
        for j, line in enumerate(lines[:first_exc]):
            if _frame_header(line) is not None:
                start, err.has_traceback = j, True
                break
    loose: list[str] = []
    if start is not None:
        loose.extend(ln for ln in lines[:start] if not _TB_HEADER.match(ln) and ln.strip())
        frames, idx = _parse_frames(lines, start)
        err.frames = frames
        rest = lines[idx:]
        exc_at = 0 if rest else None
        above = None
        if not any(_EXC_STRICT.match(ln) for ln in rest):
            above = next((ln for ln in lines[:start]
                          if not ln[:1].isspace() and _EXC_STRICT.match(ln)), None)
            special = _special_exception(lines[:start]) if above is None else None
            if special is not None:   # VS Code's "Exception has occurred: X", then its frames
                above = f"{special[0]}: {special[1]}"
        if above is not None:
            # no exception line below the frames, one stated above them (a report that opens
            # with the error, then its traceback)
            loose.extend(ln for ln in rest if ln.strip())
            rest, exc_at = [above], 0
        if rest and not _EXC_LINE.match(rest[0].strip()):
            # output printed between the frames and the exception line (progress bars, logs)
            later = next((k for k, ln in enumerate(rest) if _EXC_STRICT.match(ln) and
                          not ln[:1].isspace()), None)
            if later is not None:
                loose.extend(rest[:later])
                exc_at = later
    else:
        rest = lines
        special = _special_exception(rest)
        if special is not None:
            err.exc_type, err.raw_message = special
            err.message = err.raw_message
            loose.extend(rest)
            _unwrap_graph(err)
            return err, loose
        exc_at = next((k for k, ln in enumerate(rest) if _EXC_STRICT.match(ln) and
                       not ln[:1].isspace()), None)
        if exc_at is None:
            exc_at = next((k for k, ln in enumerate(rest) if _EXC_STRICT.match(ln)), None)
        if exc_at is None:
            inline = _inline_exception(rest)
            if inline is not None:
                err.exc_type, err.raw_message = inline
                err.message = err.raw_message
                loose.extend(rest)
                _unwrap_keras(err)
                _unwrap_graph(err)
                return err, loose
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
        first_at = len(lines) - len(rest) + exc_at      # the exception line's index in lines
        end = next((b - first_at - 1 for b in sorted(breaks) if b > first_at), None)
        if end is not None:
            tail = tail[:end]
        err.raw_message = "\n".join([head, *tail]).strip("\n").strip()
        loose.extend(rest[exc_at:])
    elif start is None:
        err.raw_message = "\n".join(rest).strip()
        loose.extend(rest)
    if header_type and not err.exc_type:
        err.exc_type = header_type
    if not err.raw_message.strip() and err.frames:
        err.raw_message = _raised_literal(lines[start or 0:])
    err.message = err.raw_message
    _unwrap_keras(err)
    _unwrap_graph(err)
    return err, loose


_RAISE = re.compile(r"\braise\s+\w+\(")
_LINE_NO = re.compile(r"^\s*(?:-*>\s*)?\d+\s")
_LITERAL = re.compile(r"[fr]?([\"'])(?P<msg>(?:(?!\1).){10,})\1")


def _raised_literal(lines: list[str]) -> str:
    """The message a traceback cut before its exception line still shows: the string literal of
    the innermost `raise X("...")` (a notebook prints the raising code with its context)."""
    at = max((k for k, ln in enumerate(lines) if _RAISE.search(ln)), default=None)
    if at is None:
        return ""
    code = " ".join(_LINE_NO.sub("", ln).strip() for ln in lines[at:at + 4])
    m = _LITERAL.search(code[_RAISE.search(code).end():])
    return m.group("msg").strip() if m else ""


def _special_exception(lines: list[str]) -> tuple[str, str] | None:
    """(type, message) of the VS Code and dataset-viewer formats, which split the two."""
    for k, ln in enumerate(lines):
        m = _VSCODE_EXC.match(ln) or _VIEWER_EXC.match(ln)
        if not m:
            continue
        after = [x for x in lines[k + 1:k + 4] if x.strip()]
        if not after:
            return None
        msg = _VIEWER_MSG.match(after[0])
        return m.group("type"), (msg.group("msg") if msg else after[0]).strip()
    return None


def _inline_exception(lines: list[str]) -> tuple[str, str] | None:
    """(type, message) of the first exception named inside a sentence, without markdown."""
    for ln in lines:
        m = _EXC_INLINE.search(ln.strip())
        if m and not _PY_FRAME.match(ln):
            msg = m.group("msg").lstrip(" :").strip().rstrip("`*").strip()
            return m.group("type"), msg
    return None


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
            cur = make_frame(m.group("file"), m.group("line"), m.group("func"), "keras")
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


# a launcher re-raising the exit of the Python process it started (torchrun's ChildFailedError,
# accelerate launch's CalledProcessError): the child's own error is the one to read
_LAUNCHER_REPORT = re.compile(r"(?:\w+\.)*ChildFailedError$|(?:\w+\.)*CalledProcessError$")
# a command line that runs a Python program (not pip, not a build): a launcher's child
PYTHON_CHILD = re.compile(r"Command '\['[^'\n]*python[\d.]*'(?!, '-m', 'pip')(?!, 'setup\.py')")


def _launched_error(errors: list[ParsedError]) -> int:
    """The index of the error a paste is about: the last one, unless it is a launcher's report
    of a Python child whose own exception is printed before it (then that one), or has no
    exception line at all (prose after "During handling...", a traceback cut before its
    exception) while an earlier one has (then the last that has)."""
    last = errors[-1]
    if not last.exc_type:
        named = [i for i, e in enumerate(errors[:-1]) if e.exc_type]
        if named:
            return named[-1]
    report = bool(last.exc_type and _LAUNCHER_REPORT.match(last.exc_type)) and (
        "ChildFailedError" in last.exc_type or bool(PYTHON_CHILD.search(last.message or "")))
    if not report:
        return len(errors) - 1
    child = [i for i, e in enumerate(errors[:-1])
             if e.exc_type and not _LAUNCHER_REPORT.match(e.exc_type)]
    return child[-1] if child else len(errors) - 1


def _parse(text: Any) -> ParsedError:
    norm, breaks = normalize_with_breaks(text)
    if not norm.strip():
        return ParsedError(text=norm)
    errors: list[ParsedError] = []
    loose_all: list[str] = []
    for relation, seg, at in _split_segments(norm.split("\n"), breaks):
        err, loose = _parse_segment(seg, frozenset(b - at for b in breaks if b > at))
        err.relation = relation
        errors.append(err)
        loose_all.extend(loose)
    at = _launched_error(errors)
    final = errors[at]
    final.chain = errors[:at] + errors[at + 1:]
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
