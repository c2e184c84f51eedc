"""Who to tag in a GitHub issue, by the area of the library the error comes from.

A small offline table after the "Who can help?" lists of the libraries' own issue forms
(transformers' bug report form, as of its 4.57/5.x releases; peft's, below): the innermost
library file of the failing traceback picks the area. Handles change over time; the form's own
list is the reference, so the report says where they come from. trl's and accelerate's bug
forms have no such list (their maintainers triage), so no handles are guessed for them here.
"""
from __future__ import annotations

import re

from wizard.core.repositories import library_key

# (library, path pattern inside the package, area, handles), first match wins
AREAS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("transformers", r"(^|/)modeling_tf_|(^|/)tf_utils|keras_callbacks|optimization_tf",
     "TensorFlow", ("@Rocketknight1",)),
    ("transformers", r"(^|/)trainer|training_args|(^|/)integrations/", "trainer",
     ("@zach-huggingface", "@SunMarc")),
    ("transformers", r"(^|/)generation/", "generate", ("@gante",)),
    ("transformers", r"(^|/)pipelines/", "pipelines", ("@Rocketknight1",)),
    ("transformers", r"tokenization_|(^|/)tokenization", "tokenizers",
     ("@ArthurZucker", "@itazap")),
    ("transformers", r"(^|/)modeling_utils|(^|/)models/auto/|configuration_utils|"
                     r"(^|/)safetensors", "model loading (from_pretrained)", ("@Cyrilvallez",)),
    ("transformers", r"(^|/)quantizers/|(^|/)integrations/bitsandbytes", "quantization",
     ("@SunMarc", "@MekkCyber")),
    ("transformers", r"(^|/)models/", "text models", ("@ArthurZucker", "@Cyrilvallez")),
    # huggingface/peft .github/ISSUE_TEMPLATE/bug-report.yml, "Who can help?": "Library:
    # @benjaminbossan @githubnemo" (its other areas: the diffusers integration, documentation)
    ("peft", r"", "library", ("@benjaminbossan", "@githubnemo")),
    ("datasets", r"", "datasets", ("@lhoestq",)),
    ("accelerate", r"", "accelerate", ("@SunMarc", "@zach-huggingface")),
    ("tokenizers", r"", "tokenizers", ("@ArthurZucker", "@itazap")),
)


def who_can_help(library: str | None, file: str | None) -> tuple[str, tuple[str, ...]]:
    """(area, handles) for a failing file inside `library` (empty when unknown)."""
    path = (file or "").replace("\\", "/")
    path = path.split("site-packages/", 1)[-1]
    if library and path.startswith(library + "/"):
        path = path[len(library) + 1:]
    for lib, pattern, area, handles in AREAS:
        if lib == library and re.search(pattern, path):
            return area, handles
    return "", ()


# the libraries whose own GitHub bug-report form has a template (github_<library>.md.j2); a
# bug in any other library is written in transformers' form
ISSUE_FORMS: tuple[str, ...] = ("transformers", "datasets", "accelerate", "trl", "peft")


def issue_form(package: str | None) -> str:
    """The report template of the bug-report form of `package` (transformers' when it has none)."""
    name = library_key(package)
    return f"github_{name if name in ISSUE_FORMS else 'transformers'}.md.j2"


