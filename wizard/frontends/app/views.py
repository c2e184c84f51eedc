"""Text and data the web app shows, from plain result dicts (no gradio here, no checks either):
the plan, log lines, finding headers and evidence, the verdict, plot frames, report links."""
from __future__ import annotations

import html
import math
import re
from typing import Any

from wizard.context import is_local_ref
from wizard.core.jsontext import dumps_readable
from wizard.frontends.app.form import field_label
from wizard.reports.links import (
    forum_topic_url,
    github_issue_url,
    hub_discussion_prefill_url,
    share_targets,
    split_title,
)
from wizard.reports.render import shown_findings

ICON = {"fail": "✗", "warn": "!", "error": "✗", "pass": "✓", "info": "i", "skip": "–"}
PROBLEMS = ("fail", "warn", "error")
VERDICT_TITLE = {"user-error": "A fault in the setup, yours to fix",
                 "library-bug": "This looks like a library bug",
                 "healthy": "No fault found",
                 "inconclusive": "Inconclusive"}


def plan_markdown(steps: list[Any]) -> str:
    """The tree's steps for this case, numbered, each with why it is there."""
    lines = ["**The checks, in this order** (the symptom picks the order):", ""]
    lines += [f"{i}. **{s.title}** — {s.why}" for i, s in enumerate(steps, 1)]
    return "\n".join(lines)


def step_status(index: int, total: int, title: str, seconds: float, doing: str = "") -> str:
    """Where the checks are, as the terminal's progress bar says it: "Step 3 of 9 · Check your
    data · 12 s", then what runs now."""
    where = f"Step {index} of {total} · {title}" if index else "Starting the checks"
    # the page counts the seconds on between two events (ui.TICK_JS; the class carries the
    # seconds: the Markdown drops data- attributes)
    elapsed = f'<span class="wz-elapsed wz-from-{seconds:.0f}">{seconds:.0f} s</span>'
    return f"**{where} · {elapsed}**" + (f" — {html.escape(doing)}" if doing else "")


def log_line(event: dict[str, Any]) -> str | None:
    """One line of the streamed log for a session event (None: nothing to log)."""
    kind = event["kind"]
    if kind == "step":
        return f"\n== {event['title']}"
    if kind == "progress":
        return f"   … {event['message']}"
    if kind == "finding":
        f = event["finding"]
        return f" {ICON.get(f['status'], '?')} {f['status']:<5} {f['title']}  [{f['id']}]"
    if kind == "verdict":
        return f"\n== Verdict: {event['verdict']['kind']}: {event['verdict']['summary']}"
    return None


def finding_label(f: dict[str, Any]) -> str:
    return f"{ICON.get(f['status'], '?')} {f['status'].upper()} · {f['title']} · {f['id']}"


def evidence_text(f: dict[str, Any]) -> str:
    """The evidence as readable JSON, without the traceback (shown on its own)."""
    shown = {k: v for k, v in (f.get("evidence") or {}).items() if k != "traceback"}
    return dumps_readable(shown) if shown else ""


_URL = re.compile(r"https?://[^\s<>\"']+[^\s<>\"'.,;:)]")


def _linked(text: str) -> str:
    """The text, escaped, with its web addresses as links (an issue to read first)."""
    out, last = [], 0
    for m in _URL.finditer(text):
        out += [html.escape(text[last:m.start()]),
                f'<a href="{html.escape(m.group())}" target="_blank" rel="noopener">'
                f"{html.escape(m.group())}</a>"]
        last = m.end()
    return "".join(out) + html.escape(text[last:])


def verdict_html(verdict: dict[str, Any], summary_line: str = "") -> str:
    kind = verdict.get("kind", "inconclusive")
    reasons = "".join(f"<li>{_linked(str(r))}</li>" for r in verdict.get("reasons") or [])
    return (f'<div class="wz-verdict wz-verdict-{html.escape(kind)}">'
            f'<div class="wz-verdict-kind">Verdict: {html.escape(kind)} — '
            f'{html.escape(VERDICT_TITLE.get(kind, kind))}</div>'
            f'<p class="wz-verdict-summary">{html.escape(verdict.get("summary", ""))}</p>'
            + (f"<ul>{reasons}</ul>" if reasons else "")
            + (f'<p class="wz-verdict-meta">{html.escape(summary_line)}</p>' if summary_line else "")
            + "</div>")


def result_summary(result: dict[str, Any]) -> str:
    found = result.get("findings") or []
    fails = sum(1 for f in found if f["status"] == "fail")
    return (f"{len(found)} findings, {fails} fault(s), on device {result.get('device', '?')}, "
            f"in {float(result.get('seconds') or 0):.1f} s")


def findings_table(result: dict[str, Any]) -> str:
    """The findings as a Markdown table: those that need attention, then the others (passed,
    or for information) folded under one line."""
    found = result.get("findings") or []
    problems = [f for f in found if f["status"] in PROBLEMS]
    rest = [f for f in found if f["status"] not in PROBLEMS]
    if not found:
        return "No findings."
    parts = [_table(problems) if problems else "No problems found."]
    if rest:
        parts += [f"<details><summary>{other_checks_label(len(rest))}</summary>", "",
                  _table(rest), "", "</details>"]
    return "\n\n".join(parts[:1]) + ("\n\n" + "\n".join(parts[1:]) if rest else "")


def other_checks_label(n: int) -> str:
    """The line the passed and informational findings are folded under."""
    return f"The other {n} checks: passed, or for information" if n != 1 else \
        "The other check: passed, or for information"


def _table(found: list[dict[str, Any]]) -> str:
    rows = ["| status | check | finding |", "|---|---|---|"]
    for f in found:
        title = str(f["title"]).replace("|", "\\|")
        rows.append(f"| {ICON.get(f['status'], '?')} {f['status']} | `{f['id']}` | {title} |")
    return "\n".join(rows)


def fixes(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The findings to act on, faults first, each with a fix."""
    order = {"fail": 0, "error": 1, "warn": 2}
    todo = [f for f in result.get("findings") or [] if f["status"] in order and f.get("fix")]
    return sorted(todo, key=lambda f: order[f["status"]])


def fix_list_markdown(result: dict[str, Any]) -> str:
    """"What to do": each finding to act on, its explanation and its fix as code to paste."""
    todo = fixes(result or {})
    if not todo:
        return ""
    parts = ["### What to do"]
    for f in todo:
        fence = "````" if "```" in f["fix"] else "```"
        parts += [f"**{finding_label(f)}**", str(f.get("explanation") or ""),
                  f"Fix: paste this\n\n{fence}python\n{f['fix']}\n{fence}"]
    return "\n\n".join(p for p in parts if p)


# -- a script read statically ------------------------------------------------------------------
def script_note(reading: dict[str, Any]) -> str:
    """What was read from a pasted script (ScriptReading.to_dict()): the summary, one note naming
    the values the script leaves to run time, and the findings it raises already, with lines."""
    lines = [f"**Read, never run:** {reading.get('summary', '')}",
             "", "The fields below are filled in from it; check them, then run the checks."]
    missing = script_missing(reading)
    if missing:
        lines += ["", f"⚠ **Fill in {len(missing)} value{'s' if len(missing) > 1 else ''} the "
                      "script only knows at run time:** " + "; ".join(missing) + "."]
    found = [f for f in reading.get("findings") or [] if f.get("id") != "script.read"]
    found.sort(key=lambda f: {"fail": 0, "error": 1, "warn": 2}.get(f.get("status"), 3))
    if found:
        lines += ["", "**Found in the script already** (they join the result when you run the "
                      "checks):"]
        for f in found:
            line = (f.get("evidence") or {}).get("line")
            where = f" — line {line}" if line and f"line {line}" not in str(f.get("title")) else ""
            lines.append(f"- {ICON.get(f.get('status'), '?')} **{str(f.get('status')).upper()}** "
                         f"· {f.get('title')}{where} · `{f.get('id')}`")
    return "\n".join(lines)


def script_missing(reading: dict[str, Any]) -> list[str]:
    """The form fields a script leaves open, each named as the form names it, with its line."""

    out: list[str] = []
    asked = set()
    for q in reading.get("questions") or []:
        asked.add(q["field"])
        where = f"line {q['line']}: `{q['code']}`" if q.get("line") else q.get("reason", "")
        out.append(f"**{field_label(q['field'])}** ({where})")
    case = reading.get("case") or {}
    dataset = case.get("dataset") or {}
    if not case.get("model") and "model" not in asked:
        out.append(f"**{field_label('model')}** (no from_pretrained call in the script)")
    if not dataset.get("path") and not dataset.get("data_files") and "dataset.path" not in asked:
        out.append(f"**{field_label('dataset.path')}** (no load_dataset or load_from_disk call "
                   "in the script)")
    return out


# -- plots ------------------------------------------------------------------------------------
def plot_frame(plot: dict[str, Any]) -> tuple[str, Any, dict[str, Any]] | None:
    """(component kind "line" | "bar" | "scatter", a pandas DataFrame, keyword arguments) for
    a Plot dict, or None when it holds nothing to draw. NaN/Inf/None values are left out."""
    import pandas as pd

    kind, series = plot.get("kind"), dict(plot.get("series") or {})
    xs = plot.get("x") if isinstance(plot.get("x"), dict) else {}
    base = {"title": plot.get("title") or None, "x_title": plot.get("xlabel") or None,
            "y_title": plot.get("ylabel") or None}
    marks = [m for m in plot.get("marks") or [] if _finite(m.get("x"))]
    if marks:
        base["caption"] = "; ".join(f"{m.get('label') or 'mark'} at x={m['x']:g}" for m in marks)
    rows: list[dict[str, Any]] = []
    if kind == "line":
        for name, ys in series.items():
            xvals = xs.get(name) or list(range(len(ys)))
            rows += [{"x": float(x), "y": float(y), "series": str(name)}
                     for x, y in zip(xvals, ys) if _finite(x) and _finite(y)]
        extra = {"color": "series"} if len(series) > 1 else {}
        return ("line", pd.DataFrame(rows), {**base, "x": "x", "y": "y", **extra}) if rows else None
    if kind == "bar":
        labels = [str(v) for v in series.pop("labels", [])]
        series.pop("colors", None)
        groups = {"values": series.pop("values")} if "values" in series else series
        for name, vals in groups.items():
            rows += [{"label": lab, "value": float(v) if _finite(v) else 0.0, "group": str(name)}
                     for lab, v in zip(labels, vals)]
        extra = {"color": "group"} if len(groups) > 1 else {}
        return ("bar", pd.DataFrame(rows), {**base, "x": "label", "y": "value", "sort": labels,
                                            **_from_zero(rows), **extra}) if rows else None
    if kind == "scatter":
        groups = {series.get("label", ""): series} if "x" in series and "y" in series else series
        for name, g in groups.items():
            if isinstance(g, dict):
                rows += [{"x": float(a), "y": float(b), "group": str(name)}
                         for a, b in zip(g.get("x", []), g.get("y", [])) if _finite(a) and _finite(b)]
        extra = {"color": "group"} if len(groups) > 1 else {}
        return ("scatter", pd.DataFrame(rows), {**base, "x": "x", "y": "y", **extra}) if rows else None
    if kind == "hist":
        import numpy as np

        values = {n: [float(v) for v in vals if _finite(v)] for n, vals in series.items()}
        every = [v for vals in values.values() for v in vals]
        if not every:
            return None
        bins = xs.get("bins", 20) if isinstance(xs.get("bins", 20), int) else 20
        edges = np.histogram_bin_edges(every, bins=bins)
        labels = [f"{a:.3g}–{b:.3g}" for a, b in zip(edges[:-1], edges[1:])]
        for name, vals in values.items():
            counts, _ = np.histogram(vals, bins=edges)
            rows += [{"label": lab, "value": int(c), "group": str(name)} for lab, c in zip(labels, counts)]
        extra = {"color": "group"} if len(values) > 1 else {}
        return ("bar", pd.DataFrame(rows), {**base, "x": "label", "y": "value", "sort": labels,
                                            **_from_zero(rows), **extra})
    return None


def _from_zero(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Bars start at zero (the plot would otherwise zoom to the data's range)."""
    values = [r["value"] for r in rows]
    low, high = min(0.0, min(values)), max(0.0, max(values))
    return {"y_lim": [low * 1.1, high * 1.1 or 1.0]}


def _finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


# -- report and links -------------------------------------------------------------------------
def report_title(result: dict[str, Any]) -> str:
    """The verdict's primary finding (else the first problem, else the summary) as a title."""

    problems = shown_findings({"findings": [], **result})
    framework = (result.get("case") or {}).get("framework", "")
    head = problems[0]["title"] if problems else (result.get("verdict") or {}).get("summary", "")
    return f"[{framework}] {head}".strip() if framework else head


def hub_model_id(result: dict[str, Any]) -> str | None:
    """The model's Hub id, or None when the case's model is a local folder."""

    model = str((result.get("case") or {}).get("model") or "").strip()
    return model if model and not is_local_ref(model) and model.count("/") <= 1 else None


FORMAT_LABELS = {"markdown": "Markdown (to keep)", "github": "GitHub issue",
                 "forum": "Forum post", "hub": "Hub discussion"}


def report_formats(result: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, format) of the reports the report step offers: the Markdown report, then a
    format for each place the verdict makes worth sharing (links.share_targets)."""
    targets = share_targets(result)
    labels = {**FORMAT_LABELS, **({"forum": "Forum question"} if "github" not in targets else {})}
    return [(labels[f], f) for f in ("markdown", *targets)]


def report_note(result: dict[str, Any]) -> str:
    """What the report step says about sharing, from the verdict."""
    kind = (result.get("verdict") or {}).get("kind")
    targets = share_targets(result)
    if kind == "user-error":
        return ("**This report is the fix, to keep.** The fault is in your setup, not in a "
                "library, so there is nothing to file: no GitHub issue, forum post or Hub "
                "discussion. Apply the fix (on the verdict step, and in the report), then train "
                "again.")
    if not targets:
        return ("**Nothing to file:** the checks found no fault in your setup. Keep the report "
                "(or the bundle) for the record.")
    if "github" not in targets:
        return ("**Not confirmed as a library bug:** ask on the forum. Pick **Forum question**, "
                "read its final text, then tick the box under it for its prefilled link.")
    return ("**This looks like a library bug.** Pick where to report it, read the final text, "
            "then tick the box under it for the prefilled links.")


def share_links(result: dict[str, Any], texts: dict[str, str],
                github_repo: str = "huggingface/transformers", sign_in: bool = False) -> str:
    """HTML with the prefilled links for the places the verdict makes worth sharing: the
    GitHub issue, the forum topic, the Hub discussion ("" for none). Each link's title is the
    one its text carries. `sign_in`: the app can open the discussion as the signed-in user."""

    targets = share_targets(result)
    items: list[str] = []

    def title_body(fmt: str) -> tuple[str, str]:
        title, body = split_title(texts[fmt])
        return title or report_title(result), body

    if "github" in targets:
        title, body = title_body("github")
        try:
            url, fit = github_issue_url(github_repo, title, body, report_file="report-github.md")
            items.append(_link(url, f"Open a GitHub issue on {github_repo}", fit,
                               "report-github.md"))
        except ValueError as exc:
            items.append(f"<li class='wz-error'>{html.escape(str(exc))}</li>")
    if "forum" in targets:
        title, body = title_body("forum")
        url, fit = forum_topic_url(title, body, category=_forum_category(texts["forum"]),
                                   report_file="report-forum.md")
        label = "Post on" if "github" in targets else "Ask your question on"
        items.append(_link(url, f"{label} the Hugging Face forum", fit, "report-forum.md"))
    repo_id = hub_model_id(result)
    if "hub" in targets and repo_id:
        title, body = title_body("hub")
        try:
            url, fit = hub_discussion_prefill_url(repo_id, title, body,
                                                  report_file="report-hub.md")
            items.append(_link(url, f"Open a discussion on {repo_id} (prefilled page)", fit,
                               "report-hub.md"))
            if not sign_in:
                items.append("<li class='wz-note'>Opening the discussion for you, in your name, "
                             "needs <b>Sign in with Hugging Face</b>, which works when this app "
                             "runs as a Space; here, use the prefilled link above.</li>")
        except ValueError as exc:
            items.append(f"<li class='wz-error'>{html.escape(str(exc))}</li>")
    elif "hub" in targets:
        items.append("<li>The model is a local folder, so it has no Hub page to open a "
                     "discussion on.</li>")
    return "<ul class='wz-links'>" + "".join(items) + "</ul>" if items else ""


def _forum_category(text: str) -> str:
    """The forum category a forum text names (**Category:** 🤗Datasets -> datasets)."""
    for line in text.splitlines():
        if line.startswith("**Category:**"):
            name = line.split("**Category:**", 1)[1].strip().lstrip("🤗").strip().lower()
            return name or "transformers"
    return "transformers"


def _link(url: str, label: str, fit: bool, file_name: str) -> str:
    note = "" if fit else (f" <span class='wz-note'>(the report is too long for a link: the page "
                           f"opens with a short note; paste the text above, or {file_name} from "
                           "the bundle, in its place)</span>")
    return (f"<li><a href=\"{html.escape(url, quote=True)}\" target=\"_blank\" "
            f"rel=\"noopener noreferrer\">{html.escape(label)}</a>{note}</li>")
