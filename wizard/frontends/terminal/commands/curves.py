"""`python -m wizard curves PATH [--json] [--plot FILE]`: diagnose the loss curves of a run."""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from wizard.checks.curves import LogsError, analyse_curves, read_curves, read_curves_text
from wizard.reports.plots import PlotError, render

DEFAULT_PLOT = "wizard-out/curves.png"
STATUS_STYLE = {"pass": "green", "info": "cyan", "warn": "yellow", "fail": "bold red",
                "skip": "dim", "error": "magenta"}


def register(subparsers: Any) -> None:
    """Add the `curves` subcommand."""
    p = subparsers.add_parser(
        "curves", help="read training logs and diagnose the loss curves",
        description="Read a Trainer trainer_state.json (or its checkpoint/output folder), a Keras "
                    "CSVLogger .csv or History .json, a TensorBoard event folder, or console output "
                    "saved as text (Keras fit() lines, the Trainer's printed logs or notebook "
                    "table, a loop's `step 10 loss 2.31` prints; '-' reads it from stdin); report "
                    "overfitting, divergence, plateaus, spikes, oscillation and NaN, and save the "
                    "loss plot.")
    _arguments(p)
    p.set_defaults(func=run)


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", help="training log file or folder, or - for console output on stdin")
    p.add_argument("--json", action="store_true", help="print the findings as JSON on stdout")
    p.add_argument("--plot", default=DEFAULT_PLOT, metavar="FILE",
                   help=f"where to save the loss plot (default: {DEFAULT_PLOT})")


def run(args: argparse.Namespace) -> int:
    """Read, analyse, plot, print; 0 when the logs were analysed, 2 for bad input."""

    try:
        curves = read_curves_text(sys.stdin.read()) if args.path == "-" else read_curves(args.path)
    except LogsError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    findings = analyse_curves(curves)
    plot = findings[0].plots[0]
    try:
        plot_path = render(plot, Path(args.plot))
    except PlotError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if args.json:
        out = {"path": curves.path, "format": curves.source_format, "x_unit": curves.x_unit,
               "plot": str(plot_path), "findings": [f.to_dict() for f in findings]}
        print(json.dumps(_finite(out), indent=2, allow_nan=False))
    else:
        _print_rich(findings, plot_path)
    return 0


def _finite(value: Any) -> Any:
    """Strict JSON: NaN and Inf become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _print_rich(findings: list[Any], plot_path: Path) -> None:
    from rich.console import Console
    from rich.panel import Panel
    from rich.syntax import Syntax
    from rich.table import Table

    console = Console()
    table = Table(show_lines=False, header_style="bold", expand=False)
    for col in ("status", "id", "title", "evidence"):
        table.add_column(col, overflow="fold")
    for f in findings:
        table.add_row(f"[{STATUS_STYLE.get(f.status, '')}]{f.status}[/]", f.id, f.title,
                      _evidence_text(f.evidence))
    console.print(table)
    for f in findings:
        if f.status not in ("warn", "fail"):
            continue
        style = STATUS_STYLE[f.status]
        console.print(Panel(f.explanation or f.title, title=f"[{style}]{f.id}[/]",
                            title_align="left", border_style=style))
        if f.fix:
            console.print(Panel(Syntax(f.fix, "python", word_wrap=True), title="fix",
                                title_align="left", border_style="dim"))
    console.print(f"Loss plot saved to [bold]{plot_path}[/]")


def _evidence_text(ev: dict[str, Any], limit: int = 10) -> str:
    items = []
    for k, v in ev.items():
        if k in ("path", "format", "checks", "skipped", "notes"):
            continue
        if isinstance(v, list):
            v = f"[{len(v)} items]" if v and isinstance(v[0], dict) else ", ".join(map(str, v))
        elif isinstance(v, dict):
            v = ", ".join(f"{a}={b}" for a, b in v.items())
        items.append(f"{k}={v}")
    more = f" (+{len(items) - limit} more)" if len(items) > limit else ""
    return "\n".join(items[:limit]) + more


def main(argv: list[str] | None = None) -> int:
    """Run the subcommand on its own (python -m wizard.frontends.terminal.commands.curves PATH ...)."""
    p = argparse.ArgumentParser(prog="python -m wizard curves",
                                description="Diagnose the loss curves of a training run.")
    _arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
