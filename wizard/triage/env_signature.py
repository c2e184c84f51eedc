"""The constructor shared by the environment family's rules."""
from __future__ import annotations

from typing import Any

from wizard.triage.signature import Signature


def env_signature(rule_id: str, family: str, pattern: str, cause: str, fix: str,
                  refine: Any = None, priority: int = 15, title: str = "",
                  probes: tuple[str, ...] = (), requires: str | None = None,
                  outcome: bool = False, fallback: bool = False) -> Signature:
    """A rule of the environment family: its checks default to the installed versions."""
    return Signature(rule_id, pattern, cause,
                     "The error comes from the installation (packages, versions, builds or a "
                     "setup step), not from the code, the data or the hyperparameters.",
                     list(probes) or ["environment.package-versions"], fix, title=title or cause,
                     priority=priority, refine=refine, family=family, requires=requires,
                     outcome=outcome, fallback=fallback)
