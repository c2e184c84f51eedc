"""`python -m wizard run [options] train.py [script args]`: run a training script with the wizard
attached (like `python -m cProfile`): the script is not edited; its first batch, model and
settings are checked live, its loss is followed step by step, its errors are diagnosed.

The wizard's options go before the script (as with cProfile); `--steps`, `--json`, `--report`,
`--format`, `--keep-going` and `--quiet` placed after the script's own arguments are taken too,
unless the script's argparse declares an option of that name.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from wizard.core.case import CaseError
from wizard.frontends.terminal.console import (
    finding_line,
    finding_panel,
    make_console,
    verdict_panel,
)
from wizard.live.run import run_instrumented
from wizard.reports.render import write_reports
from wizard.script.reader import case_from_script
from wizard.settings import PROBE_TIMEOUT

# wizard option -> takes a value
TRAILING_OPTIONS = {"--steps": True, "--json": True, "--report": True, "--format": True,
                    "--keep-going": False, "--quiet": False, "-q": False}


def register(subparsers: Any) -> None:
    """Add the `run` subcommand."""
    p = subparsers.add_parser(
        "run", help="run your training script with the wizard attached",
        usage="python -m wizard run [options] train.py [script args]",
        description="Run a training script unchanged, with hooks on Keras fit(), Trainer.train(), "
                    "the model's first training forward and the optimizer steps: the checks run "
                    "on the real model and the first batch before any weight update, the loss is "
                    "followed step by step, and an error the script raises is diagnosed.",
        epilog="Options placed after the script's own arguments (--steps, --json, --report, "
               "--format, --keep-going, -q) are the wizard's too, unless the script's argparse "
               "declares them.")
    p.add_argument("--steps", type=int, metavar="N", help="stop the script after N training steps")
    p.add_argument("--keep-going", action="store_true",
                   help="do not stop at the first non-finite loss")
    p.add_argument("--json", metavar="OUT.json", help="write the result as JSON")
    p.add_argument("--report", metavar="DIR", help="write the report(s) and plots into DIR")
    p.add_argument("--format", action="append", choices=["markdown", "github", "forum", "hub"],
                   help="report format (repeatable; default markdown)")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda", "gpu"],
                   help="device for checks that load their own model (the script's model stays "
                        "where the script puts it)")
    p.add_argument("--timeout", type=float, default=PROBE_TIMEOUT, metavar="S",
                   help=f"time limit per probe in seconds (default {PROBE_TIMEOUT:g})")
    p.add_argument("--out", default="wizard-out", metavar="DIR",
                   help="where the result is saved (default ./wizard-out)")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the verdict")
    p.add_argument("--search-issues", action="store_true",
                   help="when no known cause explains the failure, search the GitHub issues of "
                        "the library it comes from (sends only the message's stable words)")
    p.add_argument("script", metavar="train.py", help="the training script")
    p.add_argument("script_args", nargs=argparse.REMAINDER, help="arguments for the script")
    p.set_defaults(func=run)


def split_trailing(args: argparse.Namespace, script_flags: set[str]) -> list[str]:
    """Take the wizard's options out of the script's arguments (unless the script owns them)."""
    rest: list[str] = []
    items = list(args.script_args)
    i = 0
    while i < len(items):
        token = items[i]
        name, _, inline = token.partition("=")
        if name in TRAILING_OPTIONS and name not in script_flags:
            value = inline if inline else (items[i + 1] if TRAILING_OPTIONS[name]
                                           and i + 1 < len(items) else None)
            if TRAILING_OPTIONS[name] and value is None:
                raise ValueError(f"{name} needs a value")
            i += 1 if inline or not TRAILING_OPTIONS[name] else 2
            if name == "--steps":
                args.steps = int(value)  # type: ignore[arg-type]
            elif name == "--format":
                args.format = (args.format or []) + [value]
            elif name in ("--json", "--report"):
                setattr(args, name[2:], value)
            elif name == "--keep-going":
                args.keep_going = True
            else:
                args.quiet = True
            continue
        rest.append(token)
        i += 1
    return rest


def run(args: argparse.Namespace) -> int:
    """0: the run found no fault; 1: a fault, or the script failed; 2: bad input."""

    try:
        flags = case_from_script(args.script).facts.cli_flags
        argv = split_trailing(args, flags)
        if args.steps is not None and args.steps < 1:
            raise ValueError("--steps must be at least 1")
    except CaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"error: {exc}; e.g. python -m wizard run --steps 20 train.py", file=sys.stderr)
        return 2
    err = make_console(stderr=True)
    printer = _Printer(err, args.quiet)
    if not args.quiet:
        err.print(f"[dim]wizard: running {args.script} {' '.join(argv)} with the wizard attached"
                  + (f" (stops after {args.steps} steps)" if args.steps else "") + "[/]")
    try:
        outcome = run_instrumented(args.script, argv, steps=args.steps,
                                   stop_on_nonfinite=not args.keep_going, device=args.device,
                                   timeout=args.timeout, on_event=printer,
                                   refs=getattr(args, "refs", None),
                                   answers={**(getattr(args, "answers", None) or {}),
                                            **({"search_issues": True}
                                               if getattr(args, "search_issues", False) else {})})
    except CaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result = outcome.result
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "case.yaml").write_text(result.case.to_yaml(), encoding="utf-8")
    if args.report:

        result.reports = [str(p) for p in write_reports(result, Path(args.report),
                                                        tuple(args.format or ["markdown"]))]
    data = result.to_dict()
    data["run"] = {"script": outcome.capture.script, "argv": outcome.capture.argv,
                   "entry": outcome.capture.entry, "ended": outcome.capture.ended,
                   "steps": outcome.capture.steps}
    text = json.dumps(data, indent=2, default=str)
    (out_dir / "session.json").write_text(text, encoding="utf-8")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(text, encoding="utf-8")
    console = make_console()
    if not args.quiet:
        for f in result.findings:
            if f.id in ("script.read", "script.run") or f.category == "triage":
                printer.show(f)
    console.print()
    console.print(verdict_panel(result.verdict))
    console.print(f"[dim]{len(result.findings)} findings, {len(result.fails())} fault(s), "
                  f"{outcome.capture.ended}, {result.seconds:.1f} s[/]")
    for path in result.reports:
        console.print(f"report: {path}")
    if args.json:
        console.print(f"json: {args.json}")
    failed = outcome.capture.ended in ("raised", "exited", "nonfinite")
    return 1 if result.fails() or failed else 0


class _Printer:
    """Session events to stderr as they come, without a spinner (the script prints too)."""

    def __init__(self, console: Any, quiet: bool):
        self.console = console
        self.quiet = quiet

    def __call__(self, event: Any) -> None:
        if self.quiet:
            return
        if event.kind == "step":
            self.console.rule(f"[bold]{event.data['title']}", align="left")
        elif event.kind == "finding":
            self.show(event.data["finding"])
        elif event.kind == "progress":
            self.console.print(f"[dim]… {event.data['message']}")

    def show(self, f: Any) -> None:
        self.console.print(finding_panel(f) if f.status in ("fail", "warn", "error")
                           else finding_line(f))
