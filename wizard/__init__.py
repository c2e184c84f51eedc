"""hf-debug-wizard: the checks an expert runs by hand when fine-tuning breaks, run for you."""
from typing import Any

__version__ = "0.1.0"

_LAZY = {"diagnose": "wizard.api", "check": "wizard.api", "Report": "wizard.api",
         "WizardKerasCallback": "wizard.callbacks", "WizardTrainerCallback": "wizard.callbacks"}


def __getattr__(name: str) -> Any:
    """`from wizard import diagnose` (or check) without importing the API (or a framework) up
    front."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'wizard' has no attribute {name!r}")
