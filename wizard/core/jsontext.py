"""JSON for people: nested mappings indented, short lists and mappings kept on one line."""
from __future__ import annotations

import json
from typing import Any

WIDTH = 88


def dumps_readable(value: Any, indent: int = 0) -> str:
    flat = json.dumps(value, default=str, ensure_ascii=False)
    if len(flat) + indent <= WIDTH or not isinstance(value, (dict, list)) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, list):
        if all(not isinstance(v, (dict, list)) for v in value):
            return _wrap_scalars(value, indent)
        inner = [pad + dumps_readable(v, indent + 2) for v in value]
        return "[\n" + ",\n".join(inner) + "\n" + " " * indent + "]"
    inner = [f"{pad}{json.dumps(str(k), ensure_ascii=False)}: {dumps_readable(v, indent + 2)}"
             for k, v in value.items()]
    return "{\n" + ",\n".join(inner) + "\n" + " " * indent + "}"


def _wrap_scalars(values: list[Any], indent: int) -> str:
    pad = " " * (indent + 2)
    lines, line = [], ""
    for v in values:
        item = json.dumps(v, default=str, ensure_ascii=False)
        if line and len(pad) + len(line) + len(item) + 2 > WIDTH:
            lines.append(line.rstrip())
            line = ""
        line += item + ", "
    lines.append(line.rstrip(", "))
    return "[\n" + ",\n".join(pad + l.rstrip(",") for l in lines) + "\n" + " " * indent + "]"
