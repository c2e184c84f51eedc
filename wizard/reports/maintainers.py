"""Who to tag in a GitHub issue, by the area of the library the error comes from.

A small offline table after the "Who can help?" lists of the libraries' own issue forms
(transformers' bug report form, as of its 4.57/5.x releases; peft's, below): the innermost
library file of the failing traceback picks the area. Handles change over time; the form's own
list is the reference, so the report says where they come from. trl's and accelerate's bug
forms have no such list (their maintainers triage), so no handles are guessed for them here.
"""
from __future__ import annotations

import re

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


# where each library's issues are filed (its own repository, its own issue form)
REPOSITORIES: dict[str, str] = {
    "transformers": "huggingface/transformers", "datasets": "huggingface/datasets",
    "accelerate": "huggingface/accelerate", "tokenizers": "huggingface/tokenizers",
    "peft": "huggingface/peft", "trl": "huggingface/trl", "safetensors": "huggingface/safetensors",
    "huggingface_hub": "huggingface/huggingface_hub", "diffusers": "huggingface/diffusers",
    "evaluate": "huggingface/evaluate", "keras": "keras-team/keras", "tf_keras": "keras-team/tf-keras",
    "tensorflow": "tensorflow/tensorflow", "torch": "pytorch/pytorch",
}
DEFAULT_REPOSITORY = REPOSITORIES["transformers"]


def issue_repository(package: str | None) -> str:
    """The GitHub repository where a bug in `package` is filed (transformers' when unknown)."""
    return REPOSITORIES.get(_library(package), DEFAULT_REPOSITORY)


# the libraries whose own GitHub bug-report form has a template (github_<library>.md.j2); a
# bug in any other library is written in transformers' form
ISSUE_FORMS: tuple[str, ...] = ("transformers", "datasets", "accelerate", "trl", "peft")


def issue_form(package: str | None) -> str:
    """The report template of the bug-report form of `package` (transformers' when it has none)."""
    name = _library(package)
    return f"github_{name if name in ISSUE_FORMS else 'transformers'}.md.j2"


def _library(package: str | None) -> str:
    """A package or module name as the tables key it: "huggingface-hub" -> "huggingface_hub"."""
    return (package or "").split(".")[0].replace("-", "_").lower()
