"""`python -m wizard` / `hf-wizard`: the terminal front end and the scripting contract.

Exit codes: 0 ran (and, for `check`, found no fault), 1 `check` found a fault,
2 bad input (one sentence on stderr), 3 an internal error, 130 interrupted (work saved).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from wizard.core.case import Case
from wizard.core.gpus import read_gpu
from wizard.core.catalogue import CATEGORIES, CHECKS
from wizard.demo.cases import course_case, healthy_case
from wizard.demo.fixtures import default_cache_dir, ensure_fixtures
from wizard.engine.session import static_result
from wizard.errors import CaseError, UsageError, WizardError
from wizard.evidence.environment import environment_block, environment_info
from wizard.frameworks import default_demo_framework, process_defaults
from wizard.frontends.terminal import interactive
from wizard.frontends.terminal.quiet import quiet_library_warnings
from wizard.frontends.terminal.commands import curves as curves_command
from wizard.frontends.terminal.commands import memory as memory_command
from wizard.frontends.terminal.commands import run as run_command
from wizard.frontends.terminal.console import (
    EventPrinter,
    exit_code,
    make_console,
    summary_line,
    verdict_panel,
)
from wizard.live.run import check_case
from wizard.reports.plots import warm_up as plots_warm_up
from wizard.reports.redact import redact
from wizard.reports.render import write_reports
from wizard.script.reader import case_from_script
from wizard.settings import PROBE_TIMEOUT

EXTRA_COMMANDS = (memory_command, curves_command, run_command)  # each: register(subparsers), run(args) -> exit code




def _add_output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", metavar="OUT.json", help="write the result as JSON (the scripting contract)")
    p.add_argument("--report", metavar="DIR", help="write the report(s) and plots into DIR")
    p.add_argument("--format", action="append", choices=["markdown", "github", "forum", "hub"],
                   help="report format (repeatable; default markdown)")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda", "gpu"],
                   help="where the probes run (default: the best available)")
    p.add_argument("--timeout", type=float, default=PROBE_TIMEOUT, metavar="S",
                   help=f"time limit per probe in seconds (default {PROBE_TIMEOUT:g})")
    p.add_argument("--out", default="wizard-out", metavar="DIR",
                   help="where the session is saved as it goes (default ./wizard-out)")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the verdict")
    p.add_argument("--no-input", action="store_true", default=argparse.SUPPRESS,
                   help="never prompt; missing answers are errors")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m wizard",
        description="hf-debug-wizard: find out why fine-tuning a Hugging Face model fails.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    parser.add_argument("--resume", metavar="DIR", help="continue a saved interactive session")
    parser.add_argument("--out", default="wizard-out", metavar="DIR",
                        help="where the interactive session is saved (default ./wizard-out)")
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda", "gpu"])
    # also accepted after a command (its own option there only sets it when given)
    parser.add_argument("--no-input", action="store_true",
                        help="never prompt: without a case, or with an unfinished --resume "
                             "session, exit 2 naming what to add")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser("check", help="run the checks on a case file (non-interactive)")
    check.add_argument("case", metavar="CASE.yaml", nargs="?")
    check.add_argument("--script", metavar="train.py",
                       help="read the case from a training script (parsed, never executed)")
    check.add_argument("--map", action="append", default=[], metavar="REF=PATH",
                       help="with --script: read a Hub id of the script as a local folder")
    check.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                       help="with --script: a value the script leaves to run time")
    check.add_argument("--run", nargs="*", metavar="ARG",
                       help="with --script: run the script with these arguments under the "
                            "wizard instead of only reading it (the same as python -m wizard "
                            "run train.py ARG ...): the checks see the live objects, and an "
                            "error from inside a library gets a verified reproduction "
                            "(arguments that begin with '-': use python -m wizard run)")
    check.add_argument("--traceback", metavar="ERROR.txt",
                       help="the error your script raised, as a file (- reads it from stdin): "
                            "alone, it is read and this environment checked; with CASE.yaml, "
                            "it is the case's traceback")
    check.add_argument("--search-issues", action="store_true",
                       help="when no known cause explains the error, search the GitHub issues "
                            "of the library it points at (sends only the words of the message "
                            "that every report shares; $GITHUB_TOKEN is used when set)")
    check.add_argument("--gpu", metavar="NAME", help="the GPU the run will happen on, when it "
                       "is not this machine's (T4, L4, A10G, A100-40GB, H100, ... or its memory "
                       "in GiB): the memory step judges the fit and the plans against it")
    check.add_argument("--gpus", type=int, metavar="N", help="how many of those GPUs")
    _add_output_options(check)
    check.set_defaults(func=cmd_check)

    demo = sub.add_parser("demo", help="run the built-in offline demo (the course's broken script)")
    demo.add_argument("--framework", choices=["tensorflow", "pytorch"],
                      help="default: tensorflow where it can run here, else pytorch")
    demo.add_argument("--healthy", action="store_true", help="the fixed script instead of the broken one")
    demo.add_argument("--write-case", metavar="FILE", help="only write the demo case file and exit")
    demo.add_argument("--cache", metavar="DIR", help="where the demo fixtures are built")
    _add_output_options(demo)
    demo.set_defaults(func=cmd_demo)

    env = sub.add_parser("env", help="print the environment block for a bug report")
    env.add_argument("--json", action="store_true")
    env.add_argument("--devices", action="store_true", help="also import the frameworks to list devices")
    env.set_defaults(func=cmd_env)

    checks = sub.add_parser("checks", help="list every check id in the catalogue")
    checks.add_argument("--json", action="store_true")
    checks.add_argument("--markdown", action="store_true", help="the catalogue as docs/checks.md")
    checks.set_defaults(func=cmd_checks)

    for command in EXTRA_COMMANDS:
        command.register(sub)
    return parser


# -- check / demo -------------------------------------------------------------------------
def _run_case(case: Any, args: argparse.Namespace, demo: bool = False, reading: Any = None) -> int:
    console = make_console()
    out_dir = Path(args.out)
    autosave = out_dir / "session.json"
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "case.yaml").write_text(case.to_yaml(), encoding="utf-8")
    printer = EventPrinter(console, quiet=args.quiet)
    plots_warm_up()
    try:
        with printer:
            result = check_case(case, device=args.device, timeout=args.timeout,
                                on_event=printer, autosave=autosave)
        if reading is not None:
            result = reading.merge(result)  # the script's static findings, with their lines
    except KeyboardInterrupt:
        print(f"Interrupted: the findings so far are saved in {autosave}.", file=sys.stderr)
        return 130
    return _finish(result, args, console, autosave, demo)


def _finish(result: Any, args: argparse.Namespace, console: Any, autosave: Path,
            demo: bool = False) -> int:
    """Reports, JSON, the saved session, the verdict panel; the exit code."""
    out_dir = autosave.parent
    formats = tuple(args.format or ["markdown"])
    if args.report or demo:

        report_dir = Path(args.report) if args.report else out_dir
        result.reports = [str(p) for p in write_reports(result, report_dir, formats)]
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(result.to_dict(), indent=2, default=str)
        # written for sharing beside a report: the same redaction as the report
        Path(args.json).write_text(redact(text) if args.report else text, encoding="utf-8")
    autosave.write_text(json.dumps(result.to_dict(), indent=2, default=str), encoding="utf-8")
    console.print()
    console.print(verdict_panel(result.verdict))
    console.print(summary_line(result))
    for path in result.reports:
        console.print(f"report: {path}")
    if args.json:
        console.print(f"json: {args.json}")
    return 0 if demo else exit_code(result)


def cmd_check(args: argparse.Namespace) -> int:
    if args.run is not None and not args.script:
        raise UsageError("--run runs a script: python -m wizard check --script train.py --run "
                         "[ARG ...].")
    if args.script:
        import yaml


        if args.case:
            raise UsageError("Give either CASE.yaml or --script train.py, not both.")
        refs = dict(_pair(m, "--map") for m in args.map)
        answers = {k: yaml.safe_load(v) for k, v in (_pair(s, "--set") for s in args.set)}
        if args.run is not None:  # the one way a script runs under the wizard: `wizard run`
            return run_command.run(argparse.Namespace(
                script=args.script, script_args=list(args.run), steps=None, keep_going=False,
                json=args.json, report=args.report, format=args.format, device=args.device,
                timeout=args.timeout, out=args.out, quiet=args.quiet, refs=refs,
                answers=answers, search_issues=args.search_issues))
        reading = case_from_script(args.script, refs=refs, answers=answers)
        if not args.quiet:
            print(reading.summary(), file=sys.stderr)
        if not reading.complete and reading.faults():
            return _static_only(reading, args)
        reading.require_complete()  # a CaseError naming each open value and its line
        return _run_case(_aimed(reading.case, args), args, reading=reading)
    pasted = _read_traceback(args.traceback) if args.traceback else None
    if not args.case and pasted is None:
        raise UsageError("Give a case file (python -m wizard check CASE.yaml), a script "
                         "(python -m wizard check --script train.py) or an error (python -m "
                         "wizard check --traceback error.txt).")
    case = Case.from_file(args.case, validate=False) if args.case else Case()
    if pasted is not None:
        case.traceback = pasted
        case.symptom = "error" if case.symptom in ("not-sure", "none") else case.symptom
    case.search_issues = case.search_issues or args.search_issues
    case.validate()
    return _run_case(_aimed(case, args), args)


def _static_only(reading: Any, args: argparse.Namespace) -> int:
    """A script that leaves values to run time but already shows a fault: the verdict of its
    static checks (nothing run), and one sentence naming what the other checks need."""
    try:
        reading.require_complete()
    except CaseError as exc:
        print(f"Only the script's static checks ran: {exc}", file=sys.stderr)
    console = make_console()
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "case.yaml").write_text(reading.case.to_yaml(), encoding="utf-8")
    result = reading.merge(static_result(reading.case))
    open_fields = ", ".join(q.field for q in reading.questions) or "model, dataset.path"
    result.verdict.summary += (f" Only the script's static checks ran: the others need "
                               f"{open_fields} (--set) or the script run (python -m wizard run).")
    return _finish(result, args, console, out_dir / "session.json")


def _read_traceback(path: str) -> str:
    """The pasted error of --traceback: a file, or stdin for '-'."""
    if path == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise UsageError(f"--traceback: cannot read {path!r} ({exc.strerror}); give the file "
                             "that holds the error, or - to paste it on stdin.") from None
    if not text.strip():
        raise UsageError("--traceback: the error is empty; paste the traceback (or its last "
                         "line).")
    return text


def _aimed(case: Case, args: argparse.Namespace) -> Case:
    """The case with the target GPU of --gpu / --gpus (over the case's own)."""
    if getattr(args, "gpu", None):
        try:
            read_gpu(args.gpu)
        except CaseError as exc:
            raise UsageError(f"--gpu: {exc}") from None
        case.target.gpu = args.gpu
    if getattr(args, "gpus", None) is not None:
        if args.gpus < 1:
            raise UsageError("--gpus must be the number of GPUs, at least 1.")
        case.target.count = args.gpus
    return case


def cmd_no_input(args: argparse.Namespace) -> int:
    """`python -m wizard --no-input [--resume DIR]`: replay a finished session, never prompt."""
    if not args.resume:
        raise UsageError("--no-input never prompts, so give what to check: a case file "
                         "(python -m wizard check CASE.yaml), a script (python -m wizard check "
                         "--script train.py) or a finished session (--resume DIR).")

    saved = Path(args.resume)
    walk = interactive.load_progress(saved)
    missing = walk.current()
    if missing is not None:
        case_file = saved if saved.is_file() else interactive.session_files(saved)[0]
        raise UsageError(f"The saved session has no answer for `{missing.field}` yet; add it to "
                         f"{case_file} or run without --no-input to be asked.")
    walk.case.validate()  # a CaseError names the field
    run = argparse.Namespace(out=args.out, device=args.device, timeout=PROBE_TIMEOUT, quiet=False,
                             json=None, report=None, format=None)
    return _run_case(walk.case, run)


def _pair(text: str, option: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise UsageError(f"{option} {text!r} is not KEY=VALUE; e.g. {option} "
                         "distilbert-base-uncased=./models/distilbert")
    return key.strip(), value.strip()




def cmd_demo(args: argparse.Namespace) -> int:
    framework = args.framework or default_demo_framework()
    root = Path(args.cache) if args.cache else default_cache_dir()
    if not args.quiet:
        print(f"Demo fixtures: {root} (built once, offline)", file=sys.stderr)
    ensure_fixtures(root, framework)
    case = (healthy_case if args.healthy else course_case)(root, framework)
    if args.write_case:
        Path(args.write_case).write_text(case.to_yaml(), encoding="utf-8")
        print(f"wrote {args.write_case}")
        return 0
    return _run_case(case, args, demo=True)


# -- env / checks -------------------------------------------------------------------------
def cmd_env(args: argparse.Namespace) -> int:
    info = environment_info(probe_frameworks=args.devices)
    print(json.dumps(info, indent=2, default=str) if args.json else environment_block(info))
    return 0


def cmd_checks(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps([c.to_dict() for c in CHECKS.values()], indent=2))
    elif args.markdown:
        print(catalogue_markdown())
    else:
        from rich.table import Table


        table = Table("id", "category", "detects", box=None, header_style="bold")
        for c in CHECKS.values():
            table.add_row(c.id, c.category, c.detects)
        make_console().print(table)
    return 0


def catalogue_markdown() -> str:
    lines = ["# Check catalogue", "",
             "Generated from `wizard/core/catalogue.py` by `python -m wizard checks --markdown`. "
             "An id, once published, keeps its meaning.", ""]
    for cat in CATEGORIES:
        checks = [c for c in CHECKS.values() if c.category == cat]
        if not checks:
            continue
        lines += [f"## {cat}", ""]
        for c in checks:
            lines += [f"### `{c.id}` — {c.title}", "", f"- **Detects:** {c.detects}",
                      f"- **Why:** {c.why}"]
            if c.fix:
                lines += ["- **Fix:**", "", "  ```python",
                          *[f"  {ln}" for ln in c.fix.splitlines()],
                          "  ```"]
            if c.source:
                lines.append(f"- **Source of the threshold:** {c.source}")
            lines.append("")
    return "\n".join(lines)


# -- entry point --------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    process_defaults()
    quiet_library_warnings(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)

    if not getattr(args, "func", None) and args.no_input:
        args.func = cmd_no_input  # never the interactive walk
    if not getattr(args, "func", None):
        if not sys.stdin.isatty():
            parser.print_help()
            print("\nThe guided wizard needs a terminal; in scripts use `python -m wizard check "
                  "CASE.yaml` (see `python -m wizard demo --write-case demo.yaml`).", file=sys.stderr)
            return 2

        try:
            return interactive.run_interactive(Path(args.out), Path(args.resume) if args.resume else None,
                                   device=args.device)
        except WizardError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2

    try:
        return int(args.func(args) or 0)
    except WizardError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    except Exception as exc:  # one sentence, never a raw traceback (unless --debug)
        if args.debug:
            raise
        message = _known_error(exc)
        if message:
            print(f"error: {message}", file=sys.stderr)
            return 2
        print(f"internal error: {type(exc).__name__}: {exc} (re-run with --debug for the "
              "traceback, and please report it)", file=sys.stderr)
        return 3


def _known_error(exc: Exception) -> str | None:
    """Errors from the system that are bad input, not wizard bugs."""
    if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError)):
        return f"{exc.strerror or exc}: {exc.filename}" if getattr(exc, "filename", None) else str(exc)
    return None


if __name__ == "__main__":
    sys.exit(main())
