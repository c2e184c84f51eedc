"""Keep the libraries' own warnings off the command line's stderr.

The contract says bad input is one sentence on stderr; a `DeprecationWarning` or urllib3's
"SOCKS support ... DependencyWarning" printed by an import would come before it. `--debug` and
an explicit `python -W ...` / `PYTHONWARNINGS` keep them.
"""
from __future__ import annotations

import sys
import warnings
from typing import Sequence


def quiet_library_warnings(argv: Sequence[str]) -> bool:
    """Ignore warnings in this process unless asked for; True when they are now ignored."""
    if "--debug" in argv or sys.warnoptions:
        return False
    warnings.simplefilter("ignore")
    return True
