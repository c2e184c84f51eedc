"""Render wizard.core.findings.Plot objects to PNG files with matplotlib (Agg, imported lazily).

Series layouts by kind (the same as the Plot docstring):
- line:    series {name: [y, ...]}, optional x {name: [x, ...]} (default 0..n-1)
- bar:     series {"labels": [...], "values": [...]} (optional "colors": [...]); several value
           lists {"labels": [...], name: [...], ...} give grouped bars
- scatter: series {"x": [...], "y": [...], "label": "..."} or {name: {"x": [...], "y": [...]}}
- hist:    series {name: [values, ...]} (overlaid); optional x {"bins": 30}
`marks` are vertical lines: [{"x": 3, "label": "overfitting starts", "color": "#d62728"}].
None, NaN and Inf in the data are left out of the figure.
"""
from __future__ import annotations

import importlib
import math
import re
import threading
from pathlib import Path
from typing import Any, Iterable

from wizard.core.findings import Finding, Plot
from wizard.errors import WizardError

DPI = 110
FIGSIZE = (8.0, 4.5)
MARK_COLOR = "#d62728"
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")


class PlotError(WizardError):
    """A plot whose data cannot be drawn, named in one sentence."""


def warm_up() -> None:
    """Import matplotlib in a background thread (about half a second), so the plots are drawn
    without waiting once the checks are done."""
    threading.Thread(target=importlib.import_module, args=("matplotlib.figure",),
                     daemon=True).start()


def render(plot: Plot, path: str | Path) -> Path:
    """Draw `plot` into a PNG at `path` (parent folders are created); sets plot.path."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    out = Path(path)
    if out.suffix.lower() != ".png":
        out = out.with_name(out.name + ".png")
    fig = Figure(figsize=FIGSIZE, dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    drawers = {"line": _line, "bar": _bar, "scatter": _scatter, "hist": _hist}
    if plot.kind not in drawers:
        raise PlotError(f"Plot {plot.name!r} has kind {plot.kind!r}; use one of line, bar, "
                        "scatter or hist.")
    labelled = drawers[plot.kind](ax, plot)
    if plot.log_y:
        ax.set_yscale("log")
    labelled += _marks(ax, plot.marks)
    ax.set_title(plot.title, fontsize=12, fontweight="bold", loc="left")
    ax.set_xlabel(plot.xlabel)
    ax.set_ylabel(plot.ylabel)
    ax.grid(True, which="major", alpha=0.3, linewidth=0.8)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if labelled > 1 or (labelled == 1 and plot.marks):
        ax.legend(frameon=False, fontsize=9, loc="best")
    fig.tight_layout()
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, format="png", dpi=DPI)
    except OSError as exc:
        raise PlotError(f"Cannot write the plot to {str(out)!r} ({exc.strerror or exc}); "
                        "choose a folder you can write to.") from None
    plot.path = str(out)
    return out


def render_all(findings: Iterable[Finding], out_dir: str | Path) -> list[Path]:
    """Render every plot of every finding into out_dir (file name from plot.name)."""
    out_dir = Path(out_dir)
    paths: list[Path] = []
    done: set[int] = set()
    used: set[str] = set()
    for finding in findings:
        for plot in finding.plots:
            if id(plot) in done:
                continue
            done.add(id(plot))
            stem = _safe_name(plot.name) or _safe_name(finding.id) or "plot"
            name, n = stem, 1
            while name in used:
                n += 1
                name = f"{stem}-{n}"
            used.add(name)
            paths.append(render(plot, out_dir / f"{name}.png"))
    return paths


# -- drawing ----------------------------------------------------------------------------------
def _line(ax: Any, plot: Plot) -> int:
    count = 0
    for i, (name, ys) in enumerate(plot.series.items()):
        y = _floats(ys, plot, name)
        xs = plot.x.get(name) if isinstance(plot.x, dict) else None
        x = _floats(xs, plot, name) if xs is not None else [float(j) for j in range(len(y))]
        if len(x) != len(y):
            raise PlotError(f"Plot {plot.name!r}: series {name!r} has {len(y)} values but "
                            f"{len(x)} x positions; give one x per value.")
        pts = [(a, b) for a, b in zip(x, y) if _ok(a) and _ok(b, plot.log_y)]
        if not pts:
            continue
        px, py = zip(*pts)
        marker = "o" if len(pts) <= 40 else None
        ax.plot(px, py, label=str(name), color=PALETTE[i % len(PALETTE)], linewidth=1.8,
                marker=marker, markersize=3.5)
        count += 1
    if not count:
        _empty(ax)
    elif not plot.log_y:
        _widen_flat(ax)
    xs_all = [v for name in plot.series for v in (plot.x.get(name) or [])] if isinstance(plot.x, dict) else []
    if xs_all and all(isinstance(v, (int, float)) and float(v).is_integer() for v in xs_all):
        from matplotlib.ticker import MaxNLocator
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return count


def _widen_flat(ax: Any) -> None:
    """Show an almost flat line as flat: at least +-2.5 % of its level on the y axis."""
    lo, hi = ax.dataLim.y0, ax.dataLim.y1
    level = max(abs(lo), abs(hi))
    if level > 0 and (hi - lo) < 0.05 * level:
        mid = (lo + hi) / 2
        ax.set_ylim(mid - 0.025 * level, mid + 0.025 * level)


def _bar(ax: Any, plot: Plot) -> int:
    s = dict(plot.series)
    labels = [str(v) for v in s.pop("labels", [])]
    colors = s.pop("colors", None)
    groups = {"values": s.pop("values")} if "values" in s else s
    if not labels or not groups:
        raise PlotError(f"Plot {plot.name!r}: a bar plot needs series "
                        "{'labels': [...], 'values': [...]}.")
    width = 0.8 / len(groups)
    for g, (name, vals) in enumerate(groups.items()):
        v = [val if _ok(val, plot.log_y) else 0.0 for val in _floats(vals, plot, name)]
        if len(v) != len(labels):
            raise PlotError(f"Plot {plot.name!r}: {len(labels)} labels but {len(v)} values "
                            f"in {name!r}; give one value per label.")
        pos = [j + (g - (len(groups) - 1) / 2) * width for j in range(len(labels))]
        color = colors if (colors and len(groups) == 1) else PALETTE[g % len(PALETTE)]
        ax.bar(pos, v, width=width * 0.95, color=color,
               label=None if name == "values" else str(name))
    positive = [val for vals in groups.values() for val in _floats(vals, plot, "") if _ok(val, True)]
    if plot.log_y and positive:
        ax.set_yscale("log")
        ax.set_ylim(bottom=min(positive) / 2)  # the smallest bar stays visible
    ax.set_axisbelow(True)
    ax.set_xticks(range(len(labels)))
    long = len(labels) > 8 or max(len(lab) for lab in labels) > 10
    ax.set_xticklabels(labels, rotation=30 if long else 0, ha="right" if long else "center",
                       fontsize=8 if long else 9)
    return 0 if "values" in groups else len(groups)


def _scatter(ax: Any, plot: Plot) -> int:
    s = plot.series
    groups = {s.get("label", ""): s} if "x" in s and "y" in s else s
    count = 0
    for i, (name, g) in enumerate(groups.items()):
        if not isinstance(g, dict) or "x" not in g or "y" not in g:
            raise PlotError(f"Plot {plot.name!r}: a scatter plot needs series "
                            "{'x': [...], 'y': [...]} (or one such mapping per group).")
        x, y = _floats(g["x"], plot, name), _floats(g["y"], plot, name)
        pts = [(a, b) for a, b in zip(x, y) if _ok(a) and _ok(b, plot.log_y)]
        if pts:
            px, py = zip(*pts)
            ax.scatter(px, py, s=16, alpha=0.75, color=PALETTE[i % len(PALETTE)],
                       label=str(name) if name else None)
            count += 1 if name else 0
    return count


def _hist(ax: Any, plot: Plot) -> int:
    bins = plot.x.get("bins", "auto") if isinstance(plot.x, dict) else "auto"
    multi = len(plot.series) > 1
    count = 0
    for i, (name, vals) in enumerate(plot.series.items()):
        v = [a for a in _floats(vals, plot, name) if _ok(a)]
        if v:
            ax.hist(v, bins=bins, alpha=0.55 if multi else 0.85, color=PALETTE[i % len(PALETTE)],
                    label=str(name), edgecolor="white", linewidth=0.4)
            count += 1
    if not count:
        _empty(ax)
    return count


def _marks(ax: Any, marks: list[dict[str, Any]]) -> int:
    seen: set[str] = set()
    for m in marks:
        x = m.get("x")
        if not isinstance(x, (int, float)) or not math.isfinite(x):
            continue
        label = str(m.get("label", ""))
        ax.axvline(x, color=m.get("color", MARK_COLOR), linestyle=":", linewidth=1.6,
                   label=label if label and label not in seen else None)
        seen.add(label)
    return len(seen)


def _empty(ax: Any) -> None:
    ax.text(0.5, 0.5, "no finite values to plot", transform=ax.transAxes, ha="center",
            va="center", color="#7f7f7f")


# -- helpers ----------------------------------------------------------------------------------
def _floats(values: Any, plot: Plot, name: Any) -> list[float]:
    try:
        return [float("nan") if v is None else float(v) for v in values]
    except (TypeError, ValueError):
        raise PlotError(f"Plot {plot.name!r}: series {name!r} must be a list of numbers.") from None


def _ok(v: float, positive: bool = False) -> bool:
    return math.isfinite(v) and (v > 0 or not positive)


def _safe_name(name: str) -> str:
    stem = re.sub(r"\.png$", "", str(name), flags=re.IGNORECASE)
    return re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-.")
