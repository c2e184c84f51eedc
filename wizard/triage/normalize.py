"""Pasted text -> plain text: the first step of reading an error someone pasted.

`normalize` removes ANSI colours, Windows line ends, control characters, torchrun/accelerate
rank prefixes, pytest's `E   ` prefix, Markdown fences (whole-line or glued to an error line),
quote marks and full-width ASCII, Markdown bold, image and notebook links (Colab, VS Code),
escaped newlines of a traceback pasted as a string, and dedents; it redraws rich's boxed
tracebacks in Python's format, rejoins a frame header the terminal wrapped and an exception line
two ranks printed at once.
`to_int` reads a number from it.
"""
from __future__ import annotations

import re
import textwrap
from collections import Counter
from typing import Any

from wizard.triage.rich_traceback import unbox

MAX_CHARS = 200_000            # longer pastes keep their head and (mostly) their tail
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
_ORPHAN_SGR = re.compile(r"\[(?:\d{1,3};){0,4}\d{1,3}m")   # colour codes whose ESC got lost
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_LINE_PREFIX = re.compile(r"^(?:\[(?:rank|default)\d+\]:\s?)", re.M)   # torchrun/accelerate
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                         # an input method's full-width ASCII ("（BFloat16）", "报错："), and its space
                         **{chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)},
                         "\u3000": " "})
_FENCE = re.compile(r"^\s*```[\w+-]*\s*$")
_TAGGED_FENCE = re.compile(r"^\s*```[\w+-]+\s*$")
_GLUED_OPEN = re.compile(r"^(\s*)```+[ \t]*(?=\S)")     # a fence glued to the line it opens
_GLUED_CLOSE = re.compile(r"(?<=\S)```+$")          # or closes
_PYTEST_E = re.compile(r"^E {2,}(?=\S)", re.M)
_QUOTE = re.compile(r"^[ \t]*>(?!>)[ \t]?", re.M)
_IMAGE = re.compile(r"!\[[^\]\n]{0,200}\]\([^)\s]{0,2000}\)")
_NB_LINK = re.compile(r"\[(?P<text>[^\]\n]{1,500})\]\((?:https?://localhost[^)\s]*|"
                      r"vscode-notebook-cell:[^)\s]*|file://[^)\s]*|#[^)\s]*)\)")
# a frame header wrapped by the terminal before its function name
_WRAPPED_HEADER = re.compile(r'^([ \t]*File "[^"\n]*", line \d+, in)[ \t]*\n[ \t]*([\w.<>]+)[ \t]*$',
                             re.M)
# two ranks printing the same exception at once: "KeyErrorKeyError: : 'input_ids_j'"
_INTERLEAVED_EXC = re.compile(r"^(?P<type>[A-Z]\w*(?:Error|Exception))(?P=type): : ", re.M)
# "NllbTokenizerFast' object has no attribute 'x": the opening quote lost to Markdown
_HALF_QUOTED = re.compile(r"(?<![\w'\"`.])(?P<cls>[A-Za-z_]\w*)' object has no attribute "
                          r"'(?P<attr>\w+)'?")
# Markdown bold around a message ("It complains about **Unknown layer: X**"), not `**kwargs`
_BOLD = re.compile(r"(?<![\w*])\*\*(?=[^\s*])([^*\n]{1,500}?)(?<=[^\s*])\*\*(?![\w*])")
_ESCAPED_TB = re.compile(r'\\n\s*(?:File \\?"|Traceback|[A-Z]\w*(?:Error|Exception)\b)')


# a traceback flattened onto one line (a forum's or a title's reflow): frame headers with their
# code after them, the exception at the end
_FUNC = r"(?:<[^>\n]{1,40}>|[\w.]+)"         # main, Trainer.train, <module>, <cell line: 0>
_FLAT_HEADER = re.compile(rf'(File "[^"\n]+", line \d+, in {_FUNC})[ \t]+(?=\S)')
_FLAT_SPLIT = re.compile(rf'[ \t]+(?=File "[^"\n]+", line \d+, in {_FUNC})')
_FLAT_EXC = re.compile(r'(?:[ \t]+|(?<=[)\]\'"]))(?=(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*)?(?:Error|'
                       r'Exception|Exit|Interrupt)(?::|$))')


# a traceback's lines in inline code (`  File "..."` ... `ValueError: ...`): the lone backtick
# that opens a frame or an exception line, and the one that closes a line holding an odd number
_TICK_OPEN = re.compile(r'^(\s*)`(?!`)(?=\s*(?:File "|Traceback \(|(?:[A-Za-z_]\w*\.)*[A-Z]\w*'
                        r'(?:Error|Exception)\b))')
_TICK_CLOSE = re.compile(r"(?<=[^`\s])`\s*$")
# a frame header after the reporter's words on its line ('why do I get [rank0]:   File "x.py",
# line 3, in f', 'error : "/x/modules.py", line 254, in f'): the header on a line of its own
_TRAILING_HEADER = re.compile(rf'^(?P<pre>.*?[^\s"])[ \t]*(?P<rank>\[rank\d+\]:)?[ \t]*(?:File )?'
                              rf'"(?P<file>[^"\n]+\.pyx?)", line (?P<line>\d+), '
                              rf'in (?P<func>{_FUNC})\s*$')


def _untick(line: str) -> str:
    """A traceback line without the inline-code backticks around it."""
    line = _TICK_OPEN.sub(r"\1", line)
    if line.count("`") % 2:
        line = _TICK_CLOSE.sub("", line)
    return line


def _split_trailing_header(line: str, heads: Counter[str]) -> str:
    """The reporter's words ending in a colon, then the frame header that ends their line, as
    two lines; not a log's own line prefix ("stderr:", a timestamp) that every line carries."""
    m = _TRAILING_HEADER.match(line) if '", line ' in line else None
    if m is None or not (m.group("rank") or m.group("pre").endswith((":", "\uff1a"))) or \
            m.group("pre").rstrip().endswith("File") or \
            sum(n for h, n in heads.items() if h.startswith(_head(m.group("pre")))) > 1:
        return line
    header = f'File "{m.group("file")}", line {m.group("line")}, in {m.group("func")}'
    return f'{m.group("pre")}\n  {header}'


def _head(line: str) -> str:
    """A line's first characters with its digits as 0: one key for a log's prefixes."""
    return re.sub(r"\d", "0", line.lstrip()[:12])


def _unflatten(line: str) -> str:
    """One line holding frame headers followed by their code, as a traceback's lines."""
    if not _FLAT_HEADER.search(line):
        return line
    pieces = _FLAT_SPLIT.split(line)
    out = []
    for k, piece in enumerate(pieces):
        m = _FLAT_HEADER.match(piece)
        if m is None:
            out.append(piece)
            continue
        code = piece[m.end():]
        if k == len(pieces) - 1:      # the last frame's code, then the exception
            code = _FLAT_EXC.sub("\n", code, count=1)
        out.append(f"  {m.group(1)}\n    {code}")
    return "\n".join(out)


def normalize(text: Any) -> str:
    """Plain text of a paste: no ANSI colours, \\n line ends, no rank prefixes, dedented."""
    return normalize_with_breaks(text)[0]


def normalize_with_breaks(text: Any) -> tuple[str, frozenset[int]]:
    """`normalize`'s text, and the indices of its lines that follow a closing Markdown fence
    (an error message pasted in a code block ends there; the prose after it is the reporter's)."""
    if text is None:
        return "", frozenset()
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    elif not isinstance(text, str):
        text = str(text)
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS // 10] + "\n...\n" + text[-(MAX_CHARS - MAX_CHARS // 10):]
    if _ESCAPED_TB.search(text):              # a traceback pasted as an escaped string
        text = text.replace("\\n", "\n").replace('\\"', '"').replace("\\t", "    ")
    text = _ANSI.sub("", text)
    text = _ORPHAN_SGR.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\xa0", " ").replace("\u200b", "").replace("\ufeff", "")
    text = text.translate(_QUOTES)
    text = _CTRL.sub("", text)
    text = _LINE_PREFIX.sub("", text)
    text = _PYTEST_E.sub("", text)
    text = _QUOTE.sub("", text)
    text = unbox(text)
    text = _IMAGE.sub("", text)
    text = _WRAPPED_HEADER.sub(r"\1 \2", text)
    if "`" in text:
        text = "\n".join(_untick(ln) for ln in text.split("\n"))
    if 'File "' in text or '", line ' in text:
        rows = text.split("\n")
        heads = Counter(_head(ln) for ln in rows if ln.strip())     # a log's few line prefixes
        text = "\n".join(_unflatten(_split_trailing_header(ln, heads)) for ln in rows)
    text = _INTERLEAVED_EXC.sub(r"\g<type>: ", text)
    text = _NB_LINK.sub(lambda m: m.group("text"), text)
    text = _BOLD.sub(r"\1", text)
    if "' object has no attribute '" in text:
        text = _HALF_QUOTED.sub(r"'\g<cls>' object has no attribute '\g<attr>'", text)
    lines: list[str] = []
    breaks: set[int] = set()
    inside = False
    for ln in text.split("\n"):
        if _FENCE.match(ln):
            if inside and not _TAGGED_FENCE.match(ln):     # "```python" always opens one
                breaks.add(len(lines))
                inside = False
            else:
                inside = True
            continue
        ln = ln.rstrip()
        glued_open, glued_close = _GLUED_OPEN.match(ln), _GLUED_CLOSE.search(ln)
        lines.append(_GLUED_CLOSE.sub("", _GLUED_OPEN.sub(r"\1", ln)))
        if glued_close and not glued_open:
            breaks.add(len(lines))
            inside = False
        elif glued_open and not glued_close:
            inside = True
    out = textwrap.dedent("\n".join(lines))
    lead = len(out) - len(out.lstrip("\n"))
    return out.strip("\n"), frozenset(b - lead for b in breaks if b > lead)


def to_int(value: Any) -> int | None:
    """An int from an int or a string of digits (as read from a paste), else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    s = str(value).strip() if value is not None else ""
    if re.fullmatch(r"-?\d{1,18}", s):
        return int(s)
    return None
