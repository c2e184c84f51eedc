"""Terminal rendering of session events and results with rich (front end only: no checks here)."""
from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from wizard.core.findings import Finding, Verdict
from wizard.core.jsontext import dumps_readable

STYLE = {"fail": "bold red", "warn": "yellow", "error": "bold magenta", "pass": "green",
         "info": "cyan", "skip": "dim"}
ICON = {"fail": "✗", "warn": "!", "error": "✗", "pass": "✓", "info": "i", "skip": "-"}
VERDICT_STYLE = {"user-error": "red", "library-bug": "magenta", "healthy": "green",
                 "inconclusive": "yellow"}


def make_console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def finding_line(f: Finding) -> Text:
    return Text.assemble((f" {ICON[f.status]} ", STYLE[f.status]), (f"{f.title}", ""),
                         (f"  [{f.id}]", "dim"))


def detailed(f: Finding) -> bool:
    """Shown with its explanation and fix: faults, warnings, checks that could not run, and what
    a pasted error reads as (its cause and fix, whatever its status), and the issues a search
    the user asked for found."""
    return f.status in ("fail", "warn", "error") or (f.category == "triage" and bool(f.fix)) \
        or f.id == "report.reported-before"


def finding_panel(f: Finding, verbose_evidence: bool = False) -> Panel:
    parts: list[Any] = []
    if f.explanation:
        parts.append(Text(f.explanation))
    evidence = _evidence_text(f.evidence, verbose_evidence)
    if evidence:
        parts.append(Text("\nEvidence", style="bold"))
        parts.append(Syntax(evidence, "json", word_wrap=True, theme="ansi_dark"))
    if f.fix:
        parts.append(Text("\nFix", style="bold"))
        parts.append(Syntax(f.fix, "python", word_wrap=True, theme="ansi_dark"))
    for p in f.plots:
        if p.path:
            parts.append(Text(f"plot: {p.path}", style="dim"))
    return Panel(Group(*parts), title=Text(f"{ICON[f.status]} {f.title}", style=STYLE[f.status]),
                 subtitle=f"{f.id} · {f.status}", border_style=STYLE[f.status].split()[-1],
                 title_align="left", subtitle_align="right")


def _evidence_text(evidence: dict[str, Any], verbose: bool) -> str:
    if not evidence:
        return ""
    shown = {k: v for k, v in evidence.items() if verbose or k != "traceback"}
    text = dumps_readable(shown)
    lines = text.splitlines()
    return text if verbose or len(lines) <= 30 else "\n".join(lines[:30] + ["  ..."])


def verdict_panel(v: Verdict) -> Panel:
    body = Text(v.summary)
    for r in v.reasons:
        body.append(f"\n • {r}")
    style = VERDICT_STYLE.get(v.kind, "white")
    return Panel(body, title=Text(f"Verdict: {v.kind}", style=f"bold {style}"),
                 border_style=style, title_align="left")


def summary_table(findings: list[Finding]) -> Table:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("status")
    table.add_column("check")
    table.add_column("finding")
    for f in findings:
        table.add_row(Text(f.status, style=STYLE[f.status]), f.id, f.title)
    return table


class EventPrinter:
    """Renders session events as they come: step headers, findings, and below them a progress
    bar over the walk's steps with what is running now and for how long."""

    def __init__(self, console: Console, quiet: bool = False):
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        self.console = console
        self.quiet = quiet
        live = not quiet and console.is_terminal  # a live bar only where it can redraw
        self.progress = Progress(
            SpinnerColumn(), TextColumn("[bold]{task.fields[step]}"), BarColumn(bar_width=24),
            MofNCompleteColumn(), TextColumn("steps"), TimeElapsedColumn(),
            TextColumn("[dim]{task.description}"), console=console, transient=True,
        ) if live else None
        self.task: Any = None

    def __enter__(self) -> "EventPrinter":
        if self.progress:
            self.progress.start()
            self.task = self.progress.add_task("starting", total=None, step="")
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.progress:
            self.progress.stop()

    def __call__(self, event: Any) -> None:
        if self.quiet:
            return
        if event.kind == "progress":
            if self.progress:
                self.progress.update(self.task, description=event.data["message"])
            return
        if event.kind == "step":
            if self.progress and event.data.get("total"):
                self.progress.update(self.task, total=event.data["total"],
                                     completed=event.data.get("index", 0),
                                     step=event.data["title"], description="")
            self.console.rule(f"[bold]{event.data['title']}", align="left")
            self.console.print(f"[dim]{event.data['why']}")
        elif event.kind == "finding":
            f = event.data["finding"]
            self.console.print(finding_panel(f) if detailed(f) else finding_line(f))
        elif event.kind == "verdict" and self.progress:
            self.progress.stop()


def summary_line(result: Any) -> str:
    """Findings, faults, device and time of a finished run, in one dim line."""
    return (f"[dim]{len(result.findings)} findings, {len(result.fails())} fault(s), device "
            f"{result.device}, {result.seconds:.1f} s[/]")


def exit_code(result: Any) -> int:
    """0 when no fault was found, 1 when one was (`check`, the guided wizard, `run`)."""
    return 1 if result.fails() else 0
