"""Render a session's result with the Jinja2 templates in templates/ (also inside the wheel)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from wizard.core.repositories import issue_repository
from wizard.evidence.environment import environment_block
from wizard.evidence.repro import write_script
from wizard.reports.jinja import environment
from wizard.reports.links import share_targets
from wizard.reports.maintainers import issue_form, who_can_help
from wizard.reports.plots import render_all
from wizard.reports.redact import redact

FORMATS = ("markdown", "github", "forum", "hub")


def shown_findings(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The findings a report lists: the verdict's primary one first, then fail, error, warn."""
    primary = (result.get("verdict") or {}).get("primary")
    rank = {"fail": 1, "error": 2, "warn": 3}
    shown = [f for f in result["findings"] if f["status"] in rank]
    return sorted(shown, key=lambda f: (f["id"] != primary, rank[f["status"]]))


def helpers(result: dict[str, Any]) -> dict[str, Any]:
    """The area of the library the error comes from and who to tag for it."""
    for f in result["findings"]:  # a verified reproduction names the library and its file
        ev = f.get("evidence") or {}
        if f["id"] == "report.reproduction" and ev.get("verified") and ev.get("file"):
            area, handles = who_can_help(ev.get("package"), str(ev["file"]))
            if handles:
                return {"area": area, "handles": list(handles)}
    for f in result["findings"]:
        ev = f.get("evidence") or {}
        if f["id"] == "triage.possible-library-bug" and ev.get("raised_in"):
            area, handles = who_can_help(ev.get("package"), str(ev["raised_in"]).split(":")[0])
            return {"area": area, "handles": list(handles)}
        frame = ev.get("innermost_frame") or {}
        if f["id"] == "model.forward-raised" and frame.get("file"):
            area, handles = who_can_help(frame.get("package") or "transformers", frame["file"])
            return {"area": area, "handles": list(handles)}
    return {"area": "", "handles": []}


def suspected_package(result: dict[str, Any]) -> str | None:
    """The library the evidence blames: the verified reproduction's, else triage's."""
    for ids in (("report.reproduction",), ("triage.possible-library-bug", "model.forward-raised")):
        for f in result["findings"]:
            ev = f.get("evidence") or {}
            package = ev.get("package") or (ev.get("innermost_frame") or {}).get("package")
            if f["id"] in ids and package and (f["id"] != "report.reproduction"
                                               or ev.get("verified")):
                return str(package)
    return None


def blamed_library(result: dict[str, Any]) -> dict[str, str]:
    """The library a bug report is about (the one the evidence blames, else the failing code's
    of an unverified reproduction, else transformers), its repository and its issue form."""
    package = suspected_package(result)
    if package is None:
        package = next((((f.get("evidence") or {}).get("failure") or {}).get("package")
                        for f in result["findings"] if f["id"] == "report.reproduction"), None)
    package = package or "transformers"
    return {"package": package, "repo": issue_repository(package), "form": issue_form(package)}


def render_report(result: dict[str, Any], fmt: str = "markdown") -> str:
    """The report text for `result` (a Result.to_dict()), redacted. The github, forum and hub
    formats of a result with nowhere to share it (a user error: see links.share_targets) are
    the fix-focused report instead of an issue to file."""

    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r}; use one of {', '.join(FORMATS)}")
    text = environment().get_template(f"{fmt}.md.j2").render(
        result=result, case=result["case"], verdict=result["verdict"],
        findings=result["findings"], env_block=environment_block(result.get("environment")),
        shown=shown_findings(result), share=share_targets(result), helpers=helpers(result),
        blamed=blamed_library(result),
        passed=[f for f in result["findings"] if f["status"] in ("pass", "info", "skip")])
    return redact(text)


def write_reports(result: Any, out_dir: Path, formats: tuple[str, ...] = ("markdown",)) -> list[Path]:
    """Render plots to PNG, then each report format, into out_dir; returns the files written."""

    out_dir.mkdir(parents=True, exist_ok=True)
    render_all(result.findings, out_dir / "plots")
    data = result.to_dict()
    paths = []
    for fmt in formats:
        path = out_dir / ("report.md" if fmt == "markdown" else f"report-{fmt}.md")
        path.write_text(render_report(data, fmt), encoding="utf-8")
        paths.append(path)

    script = write_script(data, out_dir)
    if script is not None:
        paths.append(script)
    return paths
