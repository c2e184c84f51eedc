"""Tracebacks drawn by `rich` (accelerate, DeepSpeed, axolotl, FastChat and others install its
handler) -> Python's own format, so the frames parse like any traceback.

rich draws the stack in a box: a frame is `/path/file.py:42 in function` (a long path or the
function name wrapped onto the next line), its code lines are `  41 │ code` with `❱` on the line
that ran; the exception follows the box in plain text.
"""
from __future__ import annotations

import re

_BOX_TOP = re.compile(r"^\s*╭─+ Traceback \(most recent call last\) ─+╮\s*$")
_BOX_BOTTOM = re.compile(r"^\s*╰─+╯\s*$")
_SIDE = re.compile(r"^\s*│ ?(?P<inner>.*?)\s*│?\s*$")
_FRAME = re.compile(r"^(?P<file>(?:[A-Za-z]:)?[^\s:│][^│]*?\.pyw?|<[^>\n]+>):(?P<line>\d+) in"
                    r"(?: (?P<func>\S+))?$")
_PATH_START = re.compile(r"^(?:[/~.]|[A-Za-z]:[\\/]|<)")
_RAN = re.compile(r"^❱\s*\d+\s*│\s?(?P<code>.*)$")
_GUIDES = re.compile(r"^(?:\s*│)+")
_MAX_WRAP = 4                          # lines a wrapped path may take


def _inner(line: str) -> str:
    m = _SIDE.match(line)
    return m.group("inner").rstrip() if m else line.strip()


def _frames(box: list[str]) -> list[str]:
    """The box's lines as Python traceback lines."""
    out: list[str] = []
    i = 0
    while i < len(box):
        text = box[i].strip()
        ran = _RAN.match(text)
        if ran:
            code = _GUIDES.sub("", ran.group("code"))      # rich's indentation guides
            out.append(f"    {code.strip()}")
            i += 1
            continue
        if _PATH_START.match(text):
            joined, j = text, i
            while not _FRAME.match(joined) and j + 1 < len(box) and j - i < _MAX_WRAP:
                j += 1
                joined += box[j].strip()          # a path rich wrapped mid-name
            m = _FRAME.match(joined)
            if m:
                func = m.group("func")
                if func is None and j + 1 < len(box) and re.fullmatch(r"[\w.<>]+",
                                                                      box[j + 1].strip()):
                    j += 1
                    func = box[j].strip()
                out.append(f'  File "{m.group("file")}", line {m.group("line")}, in '
                           f'{func or "<unknown>"}')
                i = j + 1
                continue
        i += 1
    return out


def unbox(text: str) -> str:
    """The paste with each rich traceback box rewritten as `Traceback (most recent call
    last):` and Python's frame lines; other text unchanged."""
    if "╭" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not _BOX_TOP.match(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not _BOX_BOTTOM.match(lines[end]):
            end += 1
        out.append("Traceback (most recent call last):")
        out.extend(_frames([_inner(ln) for ln in lines[i + 1:end]]))
        i = end + 1
    return "\n".join(out)
