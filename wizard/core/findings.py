"""Finding, Plot and Verdict: what probes return and what every front end renders."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from wizard.core.catalogue import CHECKS

Status = Literal["pass", "info", "warn", "fail", "skip", "error"]
STATUSES: tuple[str, ...] = ("pass", "info", "warn", "fail", "skip", "error")
VerdictKind = Literal["user-error", "library-bug", "healthy", "inconclusive"]


@dataclass
class Plot:
    """Data for one figure; `path` is set once a PNG has been rendered from it.

    kind: "line" (series: {name: [y...]}, optional x: {name: [x...]}), "bar"
    (series: {"labels": [...], "values": [...]}) or "scatter" (series: {"x", "y", "label"}).
    marks: vertical markers, e.g. [{"x": 3, "label": "overfitting starts"}].
    """

    name: str
    title: str
    kind: Literal["line", "bar", "scatter", "hist"]
    series: dict[str, Any]
    x: dict[str, Any] = field(default_factory=dict)
    xlabel: str = ""
    ylabel: str = ""
    log_y: bool = False
    marks: list[dict[str, Any]] = field(default_factory=list)
    path: str | None = None


@dataclass
class Finding:
    """One check's outcome. `id` must be in the catalogue; `fix` is code the user can paste."""

    id: str
    status: Status
    title: str
    evidence: dict[str, Any] = field(default_factory=dict)
    explanation: str = ""
    fix: str = ""
    plots: list[Plot] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.id not in CHECKS:
            raise ValueError(f"finding id {self.id!r} is not in the catalogue (wizard/core/catalogue.py)")
        if self.status not in STATUSES:
            raise ValueError(f"status {self.status!r} is not one of {STATUSES}")

    @property
    def category(self) -> str:
        return CHECKS[self.id].category

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["category"] = self.category
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Finding":
        d = dict(d)
        d.pop("category", None)
        d["plots"] = [Plot(**p) for p in d.get("plots", [])]
        return cls(**d)


@dataclass
class Verdict:
    kind: VerdictKind
    primary: str | None
    summary: str
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
