"""The Jinja2 environment over the templates shipped inside the package."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jinja2

from wizard.core.jsontext import dumps_readable


def template_dirs() -> list[Path]:
    """The templates folder inside the package."""
    here = Path(__file__).resolve().parent
    return [here / "templates"]


def environment() -> Any:
    """Jinja2 over the package's templates, with the report filters."""
    dirs = template_dirs()
    if not dirs:
        raise FileNotFoundError("the report templates are missing from this installation; "
                                "reinstall hf-debug-wizard")
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([str(d) for d in dirs]),
                             autoescape=False, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.filters["tojson_pretty"] = dumps_readable
    env.filters["compact"] = compact_value
    return env


def compact_value(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
