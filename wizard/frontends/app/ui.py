"""The Gradio front end: the decision tree as four steps (setup → checks → verdict → report).

The setup form is built from `wizard.engine.plan.QUESTIONS` (through wizard.frontends.app.form), the checks are
the tree's plan run by `wizard.engine.session.Session` (through wizard.frontends.app.run), and everything shown
comes from the result (wizard.frontends.app.views). Each browser session has its own gr.State; nothing is
shared between sessions. `build_app(AppConfig(...))` returns the Blocks; app.py launches it.
"""
from __future__ import annotations

import copy
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import gradio as gr

from wizard.core.case import Case, CaseError
from wizard.core.repositories import DEFAULT_REPOSITORY, issue_repository
from wizard.demo.cases import course_case
from wizard.demo.fixtures import build_fixtures, default_cache_dir
from wizard.engine.plan import QUESTIONS, Question, plan, set_field
from wizard.errors import one_line
from wizard.frameworks import default_demo_framework
from wizard.frontends.app.form import (
    FormError,
    answers_from_case,
    case_from_answers,
    choices_for,
    error_for,
    form_errors,
    form_questions,
    parse_answer,
    reachable,
)
from wizard.frontends.app.run import (
    create_hub_discussion,
    dataset_columns,
    forget_final,
    gather_logs,
    gpu_runner,
    load_final,
    merge_static_findings,
    preflight,
    read_pasted_script,
    repro_script,
    save_final,
    write_bundle,
)
from wizard.frontends.app.script_run import (
    SCRIPT_NAME,
    run_script_events,
    script_argv,
    script_run_note,
    script_run_plan,
    scripts_runnable,
    why_not_runnable,
)
from wizard.frontends.app.views import (
    PROBLEMS,
    evidence_text,
    finding_label,
    findings_table,
    fix_list_markdown,
    hub_model_id,
    log_line,
    other_checks_label,
    plan_markdown,
    FORMAT_LABELS,
    plot_frame,
    report_formats,
    report_note,
    report_title,
    result_summary,
    share_links,
    step_status,
    verdict_html,
)
from wizard.frontends.app.views import script_note as script_note_md
from wizard.frontends.app.wording import field_name, in_users_words
from wizard.reports.links import share_targets, split_title
from wizard.reports.render import render_report, suspected_package
from wizard.settings import PROBE_TIMEOUT
from wizard.settings import current as current_settings

_GRADIO = tuple(int(p) for p in gr.__version__.split(".")[:2] if p.isdigit())
FORMAT_CHOICES = [(label, fmt) for fmt, label in FORMAT_LABELS.items()]
CSS = """
.wz-off { display: none !important; }
.wz-error p, .wz-error { color: #b91c1c; font-weight: 600; margin: 0; }
.wz-verdict { border-left: 6px solid #a3a3a3; padding: 0.6em 1em; border-radius: 6px;
              background: rgba(127,127,127,0.08); }
.wz-verdict-user-error { border-color: #dc2626; }
.wz-verdict-library-bug { border-color: #9333ea; }
.wz-verdict-healthy { border-color: #16a34a; }
.wz-verdict-inconclusive { border-color: #ca8a04; }
.wz-verdict-kind { font-size: 1.25em; font-weight: 700; }
.wz-verdict-meta, .wz-note { opacity: 0.75; font-size: 0.9em; }
.wz-card-fail, .wz-card-error { border-left: 5px solid #dc2626 !important; }
.wz-card-warn { border-left: 5px solid #ca8a04 !important; }
.wz-card-pass { border-left: 5px solid #16a34a !important; }
.wz-card-info, .wz-card-skip { border-left: 5px solid #64748b !important; }
/* the stepper: the first and last labels start and end at their dots (centred, "Describe your
   setup" ran off the left edge) */
.stepper .step-item:first-child .step-label { left: 0; text-align: left; }
.stepper .step-item:last-child .step-label { right: 0; text-align: right; }
/* tables: a column is as wide as its longest word (narrow columns broke words letter by
   letter); only a word longer than a whole line breaks, and code anywhere */
.prose table th, .prose table td { word-break: normal !important;
                                   overflow-wrap: break-word !important; hyphens: manual; }
.prose table td code { overflow-wrap: anywhere !important; white-space: normal !important; }
#findings-table summary { cursor: pointer; font-weight: 600; margin: 0.6em 0; }
#report-preview { border: 1px solid var(--border-color-primary); border-radius: 8px;
                  padding: 0 14px; }
@media (max-width: 640px) {
  .stepper .step-label { white-space: normal; width: 92px; max-width: none; font-size: 12px;
                         top: calc(100% + 2px); bottom: auto; }
  .stepper { margin-bottom: 16px; }
  /* the findings table as one small block per finding: status and check on a line, the
     finding under them */
  #findings-table table, #findings-table tbody, #findings-table tr { display: block; width: 100%; }
  #findings-table thead { display: none; }
  #findings-table tr { padding: 6px 0; border-bottom: 1px solid var(--border-color-primary); }
  #findings-table td { display: inline; border: none !important; padding: 0 6px 0 0 !important; }
  #findings-table td:last-child { display: block; }
}
"""
# Outside the app's own element, which gradio scopes the CSS above to: a phone's narrow page
# keeps its width for the form (gradio pads it by 32 px a side).
HEAD_CSS = """<style>
@media (max-width: 640px) {
  .gradio-container .main.app { padding-left: 8px !important; padding-right: 8px !important; }
}
</style>"""
# The checks' elapsed time goes on between two events of the run, as the terminal's does: each
# `.wz-elapsed.wz-from-N` counts on from N seconds (in the page: no request to the server).
TICK_JS = """() => {
  setInterval(() => {
    for (const el of document.querySelectorAll('.wz-elapsed')) {
      if (!el.dataset.seen) { el.dataset.seen = String(Date.now()); }
      const from = Number((el.className.match(/wz-from-(\\d+)/) || [0, 0])[1]);
      el.textContent = Math.floor(from + (Date.now() - Number(el.dataset.seen)) / 1000) + ' s';
    }
  }, 1000);
}"""
# Shown/hidden columns toggle a class rather than `visible`: gradio versions differ on
# whether a column made visible later mounts ("hidden" hides in 6.17 but not in later ones).
HIDE = ["wz-off"]
RECOVER_TICK_S = 2.0  # how often a page whose run is going looks for the run's saved last update


def _column(shown: bool) -> Any:
    return gr.Column(elem_classes=[] if shown else HIDE)



@dataclass
class AppConfig:
    """How the app runs; `from_env()` reads the WIZARD_* variables a Space can set."""

    device: str = "auto"              # where probes run: auto (the best there is), cpu, cuda
    probe_timeout: float = PROBE_TIMEOUT      # seconds per probe, per session (WIZARD_PROBE_TIMEOUT)
    concurrency: int = 2              # sessions whose checks run at once (WIZARD_CONCURRENCY)
    max_file_size: str = "25mb"       # per uploaded log or case file (WIZARD_MAX_FILE_SIZE)
    steps: tuple[str, ...] | None = None  # limit the walk to these tree steps (None: all)
    demo_root: Path | None = None     # where the demo fixtures are built (default cache)
    oauth: bool | None = None         # "Sign in with HF"; None: on in a Space with hf_oauth
    gpu_duration: int = 120           # seconds of ZeroGPU time asked per run
    run_time_limit: int = 1800        # seconds one session's checks may take in all
    github_repo: str = DEFAULT_REPOSITORY  # another value: every issue goes there
    work_dir: Path | None = None      # per-session folders go here (default: a temp folder)
    run_scripts: bool | None = None   # "Run the script"; None: locally yes, on a Space only
                                      # with WIZARD_RUN_SCRIPTS=1

    @property
    def scripts_runnable(self) -> bool:
        return self.run_scripts if self.run_scripts is not None else scripts_runnable()

    @classmethod
    def from_env(cls) -> "AppConfig":
        s = current_settings()
        return cls(device=s.device, probe_timeout=s.probe_timeout, concurrency=s.concurrency,
                   max_file_size=s.max_file_size, gpu_duration=s.gpu_duration,
                   run_time_limit=s.run_time_limit)

    @property
    def oauth_enabled(self) -> bool:
        if self.oauth is not None:
            return self.oauth
        return bool(os.environ.get("SPACE_ID") and os.environ.get("OAUTH_CLIENT_ID"))


def launch_kwargs(config: AppConfig) -> dict[str, Any]:
    """Arguments for Blocks.launch that belong to the app (host and port come from
    GRADIO_SERVER_NAME / GRADIO_SERVER_PORT as usual)."""
    # the ticker goes in the page's head: gradio 6.17 does not run launch(js=...)
    return {"max_file_size": config.max_file_size, "css": CSS,
            "head": f"{HEAD_CSS}<script>({TICK_JS})();</script>", "show_error": False}


# -- building the form from the tree -----------------------------------------------------------
# the form's own label where the tree's prompt speaks of one framework only
LABELS = {"learning_rate": "Learning rate, if your script sets it apart from the optimizer "
                           "(TrainingArguments(learning_rate=...), create_optimizer(init_lr=...); "
                           "empty if not)"}


def _label(q: Question) -> str:
    return LABELS.get(q.id) or q.prompt.replace("; finish with an empty line", "")


def _component(q: Question, value: Any, case: Case) -> gr.components.Component:
    common = {"label": _label(q), "info": q.why, "elem_id": f"q-{q.id}"}
    if q.kind == "select":
        return gr.Radio(choices=[(c.label, c.value) for c in q.choices_for(case)], value=value,
                        **common)
    if q.kind == "multiline":
        return gr.Textbox(value=value, lines=5, max_lines=20, **common)
    if q.kind == "number" and not q.optional:  # optional numbers are text: empty means unset
        return gr.Number(value=value, precision=0, minimum=1, **common)
    if q.kind == "columns":
        return gr.Dropdown(choices=list(value or []), value=value, multiselect=True,
                           allow_custom_value=True, **common)
    if q.kind == "column":
        return gr.Dropdown(choices=[value] if value else [], value=value,
                           allow_custom_value=True, **common)
    placeholder = "e.g. 5e-5" if q.kind == "float" else None
    return gr.Textbox(value=value, lines=1, placeholder=placeholder, **common)


def _rows(questions: list[Question]) -> list[list[Question]]:
    """Questions in tree order, short fields paired side by side; choices and pasted text
    take a whole row."""
    rows: list[list[Question]] = []
    current: list[Question] = []
    for q in questions:
        if q.kind in ("select", "multiline"):
            rows += [current] if current else []
            rows.append([q])
            current = []
            continue
        current.append(q)
        if len(current) == 2:
            rows.append(current)
            current = []
    return rows + ([current] if current else [])


@dataclass
class _Form:
    questions: list[Question]
    comps: dict[str, Any] = field(default_factory=dict)
    cols: dict[str, Any] = field(default_factory=dict)
    errs: dict[str, Any] = field(default_factory=dict)

    def answers(self, values: tuple[Any, ...]) -> dict[str, Any]:
        return {q.id: v for q, v in zip(self.questions, values)}

    @property
    def selects(self) -> list[Question]:
        return [q for q in self.questions if q.kind == "select"]


def _error_updates(form: _Form, errors: list[FormError], shown: set[str] | None = None
                   ) -> list[Any]:
    """One update per field's error box, then the general one (next to the Run button): each
    message goes next to its field; the general box counts them and holds the messages no
    shown field can (a case file's split, say)."""
    by_field: dict[str, str] = {}
    general: list[str] = []
    for e in errors:
        if e.qid in form.comps and (shown is None or e.qid in shown) and e.qid not in by_field:
            by_field[e.qid] = e.message
        else:
            general.append(e.message if e.qid is None else f"{field_name(e.qid)}: {e.message}")
    out = [gr.update(value=f"⚠ {by_field[q.id]}", visible=True) if q.id in by_field
           else gr.update(value="", visible=False) for q in form.questions]
    lines = [f"⚠ {m}" for m in general]
    if by_field:
        names = ", ".join(field_name(q.id) for q in form.questions if q.id in by_field)
        n = len(by_field)
        lines.insert(0, f"⚠ {n} answer{'s' if n > 1 else ''} above need{'' if n > 1 else 's'} "
                        f"a fix before the checks can run: {names}.")
    out.append(_general(lines))
    return out


def _general(lines: list[str]) -> Any:
    """The general error box (next to the Run button) with these lines, hidden when none."""
    return gr.update(value="\n\n".join(lines), visible=True,
                     elem_classes=["wz-error"] if lines else ["wz-error", *HIDE])


def _visibility_updates(form: _Form, answers: dict[str, Any], base: Case | None) -> list[Any]:
    shown = set(reachable(answers, base))
    return [gr.Column(visible=q.id in shown) for q in form.questions]


def _choice_updates(form: _Form, answers: dict[str, Any], base: Case | None) -> list[Any]:
    out = []
    for q in form.selects:
        offered = choices_for(q.id, answers, base)
        values = [v for _, v in offered]
        value = answers.get(q.id) if answers.get(q.id) in values else (values[0] if values else None)
        out.append(gr.Radio(choices=offered, value=value))
    return out


def _base(state: dict[str, Any]) -> Case | None:
    # not validated: a script read may leave the model to fill in; the run validates the case
    return Case.from_dict(state["base"], validate=False) if state.get("base") else None


def _user_token(oauth_token: Any) -> str | None:
    """The signed-in user's own token from gradio's OAuthToken (None when not signed in)."""
    token = getattr(oauth_token, "token", None)
    return token if isinstance(token, str) and token else None


def _session_dir(state: dict[str, Any], config: AppConfig) -> Path:
    if not state.get("dir") or not Path(state["dir"]).is_dir():
        root = config.work_dir or Path(tempfile.gettempdir())
        root.mkdir(parents=True, exist_ok=True)
        state["dir"] = tempfile.mkdtemp(prefix="hf-wizard-session-", dir=root)
    return Path(state["dir"])


def _forget_session(state: Any) -> None:
    import shutil

    if isinstance(state, dict) and state.get("dir"):
        shutil.rmtree(state["dir"], ignore_errors=True)


# -- the app -----------------------------------------------------------------------------------
def build_app(config: AppConfig | None = None) -> gr.Blocks:
    """The wizard as a Gradio Blocks app. `demo.wizard_api` names each API endpoint's inputs and
    outputs (as the gradio_client sees them) for scripts and tests."""

    config = config or AppConfig.from_env()
    runner = gpu_runner(config.gpu_duration)
    questions = form_questions()
    form = _Form(questions)
    defaults = answers_from_case(Case())
    default_case = Case()
    default_shown = set(reachable(defaults))
    runnable = config.scripts_runnable

    with gr.Blocks(title="hf-debug-wizard", delete_cache=(3600, 6 * 3600)) as demo:
        state = gr.State({}, time_to_live=6 * 3600, delete_callback=_forget_session)
        live = gr.State([])      # finding dicts as they arrive (the cards on the checks step)
        result_st = gr.State({})  # the finished result (the verdict step)
        # while a run streams, a direct (unqueued) tick looks for its saved final update: a
        # busy machine can make the stream drop its last updates (gradio 6.17), never the tick
        watch = gr.Timer(RECOVER_TICK_S, active=False)
        gr.Markdown("# hf-debug-wizard\nFind out why fine-tuning a Hugging Face model fails: "
                    "describe your setup, and the wizard runs the checks an expert would run "
                    "by hand on your own model and data, then writes the verdict and a report.")
        with gr.Walkthrough(selected=1) as walk:
            # -- 1. setup ------------------------------------------------------------------
            with gr.Step("Describe your setup", id=1, elem_id="step-setup"):
                with gr.Row():
                    demo_btn = gr.Button("Try the demo case", variant="secondary",
                                         elem_id="demo-btn", scale=0, min_width=220)
                    case_upload = gr.UploadButton("Load a case file (YAML)", file_types=[".yaml", ".yml"],
                                                  file_count="single", scale=0, min_width=260,
                                                  elem_id="case-upload")
                    if config.oauth_enabled:  # the user's own token for private/gated repos
                        gr.LoginButton(scale=0, min_width=260, elem_id="login-setup")
                demo_note = gr.Markdown("", elem_id="demo-note")
                with gr.Accordion("…or paste your training script: it is read (and run only "
                                  "when you press Run the script)", open=False,
                                  elem_id="script-box"):
                    script_code = gr.Code("", language="python", interactive=True, lines=10,
                                          max_lines=30, elem_id="script-code",
                                          label="train.py (Read the script: parsed to fill the "
                                                "fields below, nothing executed)")
                    with gr.Row():
                        script_btn = gr.Button("Read the script", variant="secondary", scale=0,
                                               min_width=200, elem_id="script-read")
                        script_upload = gr.UploadButton("Upload a .py file", file_types=[".py"],
                                                        file_count="single", scale=0,
                                                        min_width=200, elem_id="script-upload")
                    script_err = gr.Markdown("", visible=False, elem_classes="wz-error",
                                             elem_id="err-script")
                    script_note = gr.Markdown("", elem_id="script-note")
                    # run it: the same as `python -m wizard run train.py ARGS`, on this machine
                    with gr.Row(equal_height=True):
                        script_args = gr.Textbox("", label="The script's arguments (as on a "
                                                 "command line)", lines=1, scale=3,
                                                 interactive=runnable, elem_id="script-args")
                        script_run_btn = gr.Button("Run the script", variant="secondary",
                                                   scale=0, min_width=200, interactive=runnable,
                                                   elem_id="script-run")
                    gr.Markdown(script_run_note(runnable), elem_classes="wz-note",
                                elem_id="script-run-note")
                for row in _rows(questions):
                    with gr.Row(equal_height=False):
                        for q in row:
                            with gr.Column(visible=q.id in default_shown,
                                           elem_id=f"row-{q.id}") as col:
                                form.comps[q.id] = _component(q, defaults[q.id], default_case)
                                if q.id == "logs":
                                    # the hint above the box, not floating over its icon
                                    gr.Markdown("…or upload them (trainer_state.json, a Keras "
                                                "CSV, TensorBoard event files):",
                                                elem_classes="wz-note", elem_id="logs-hint")
                                    logs_upload = gr.File(
                                        label="Training logs to upload", show_label=False,
                                        file_count="multiple", height=120, elem_id="logs-upload")
                                form.errs[q.id] = gr.Markdown("", visible=False,
                                                              elem_classes="wz-error",
                                                              elem_id=f"err-{q.id}")
                            form.cols[q.id] = col
                # shown and hidden by its class: gradio 6.17 did not always draw it when it
                # was made visible later
                general_err = gr.Markdown("", elem_classes=["wz-error", *HIDE],
                                          elem_id="err-general")
                run_btn = gr.Button("Run the checks →", variant="primary", elem_id="run-btn")
            # -- 2. checks -----------------------------------------------------------------
            with gr.Step("Checks", id=2, elem_id="step-checks"):
                plan_md = gr.Markdown("Describe your setup first.", elem_id="plan")
                status_md = gr.Markdown("", elem_id="run-status")
                log_box = gr.Textbox(label="Log", lines=10, max_lines=18, autoscroll=True,
                                     interactive=False, elem_id="run-log")

                # renders are quick and answered directly (queue=False): queued, they shared
                # the run's event stream, and under load the browser could close that stream
                # with the run's last updates (the verdict) still on their way
                @gr.render(inputs=[live], queue=False)
                def _cards(found: list[dict[str, Any]]) -> None:
                    found = found or []  # what needs attention first, then the rest, in order
                    for f in [f for f in found if f.get("status") in PROBLEMS]:
                        _finding_card(f)
                    rest = [f for f in found if f.get("status") not in PROBLEMS]
                    if rest:
                        with gr.Accordion(other_checks_label(len(rest)), open=False,
                                          elem_id="other-checks"):
                            for f in rest:
                                _finding_card(f)

                with gr.Row():
                    back1_btn = gr.Button("← Change the setup", elem_id="back-to-setup")
                    to_verdict_btn = gr.Button("See the verdict →", variant="primary",
                                               interactive=False, elem_id="to-verdict")
            # -- 3. verdict ----------------------------------------------------------------
            with gr.Step("Verdict", id=3, elem_id="step-verdict"):
                verdict_box = gr.HTML("<p>No verdict yet: run the checks first.</p>",
                                      elem_id="verdict")

                # the fixes as one Markdown, set by an event: a second render beside the cards'
                # could run at the same moment and race with it inside gradio
                fix_md = gr.Markdown("", elem_id="fix-list")
                result_st.change(fix_list_markdown, result_st, fix_md, queue=False,
                                 show_progress="hidden")

                table_md = gr.Markdown("", elem_id="findings-table")
                with gr.Accordion("The result as JSON (the scripting contract)", open=False):
                    result_json = gr.Code("", language="json", interactive=False, max_lines=30,
                                          elem_id="result-json", label="result.json")
                with gr.Row():
                    back2_btn = gr.Button("← Back to the checks", elem_id="back-to-checks")
                    to_report_btn = gr.Button("Write the report →", variant="primary",
                                              elem_id="to-report")
            # -- 4. report -----------------------------------------------------------------
            with gr.Step("Report", id=4, elem_id="step-report"):
                fmt = gr.Radio(FORMAT_CHOICES, value="markdown", label="Report for",
                               elem_id="report-format")
                note_md = gr.Markdown("", elem_id="report-note")
                with gr.Tabs():
                    with gr.Tab("Preview", id="preview"):
                        preview_md = gr.Markdown("", elem_id="report-preview", max_height=720)
                    with gr.Tab("Text to copy or edit", id="text", elem_id="report-text-tab"):
                        report_code = gr.Code("", language="markdown", interactive=True,
                                              lines=16, max_lines=40, elem_id="report-code",
                                              label="The report: edit it if you like; this "
                                                    "text is what you share (tokens, e-mails "
                                                    "and home paths are already removed)")
                with gr.Column(elem_classes=HIDE, elem_id="repro") as repro_col:
                    repro_code = gr.Code("", language="python", interactive=False, lines=12,
                                         max_lines=40, buttons=["copy"], elem_id="repro-code",
                                         label="The reproduction script (repro.py): it runs on "
                                               "its own, for the issue's Reproduction section")
                    repro_btn = gr.DownloadButton("Download repro.py", value=None,
                                                  elem_id="repro-download")
                bundle_btn = gr.DownloadButton("Download the bundle (.zip: reports, plots, "
                                               "case.yaml)", value=None, interactive=False,
                                               elem_id="bundle")
                with gr.Column(elem_classes=HIDE, elem_id="confirm-box") as confirm_col:
                    confirm = gr.Checkbox(False, label="I have read the final text above; it "
                                          "holds nothing I don't want to make public.",
                                          elem_id="confirm")
                with gr.Column(elem_classes=HIDE, elem_id="share") as share_col:
                    with gr.Column(elem_classes=HIDE, elem_id="github-repo-box") as repo_col:
                        repo_box = gr.Textbox(config.github_repo, label="GitHub repository for "
                                              "the issue", elem_id="github-repo")
                    links_html = gr.HTML("", elem_id="share-links")
                    hub_status = gr.Markdown("", elem_id="hub-status")
                    with gr.Column(elem_classes=HIDE, elem_id="hub-box") as hub_col:
                        if config.oauth_enabled:
                            gr.LoginButton()
                            hub_btn = gr.Button("Open the discussion on the model's Hub page, "
                                                "signed in as you", elem_id="hub-open")
                        else:
                            hub_btn = None
                with gr.Row():
                    back3_btn = gr.Button("← Back to the verdict", elem_id="back-to-verdict")
                    restart_btn = gr.Button("Start over", elem_id="start-over")

        comps = [form.comps[q.id] for q in questions]
        cols = [form.cols[q.id] for q in questions]
        errs = [form.errs[q.id] for q in questions] + [general_err]
        select_comps = [form.comps[q.id] for q in form.selects]
        col_pickers = [form.comps["text_columns"], form.comps["label_column"]]

        # -- the form follows the tree ------------------------------------------------------
        def refresh(st: dict[str, Any], *values: Any) -> list[Any]:
            answers = form.answers(values)
            base = _base(st)
            return _visibility_updates(form, answers, base) + _choice_updates(form, answers, base)

        for q in form.selects:
            form.comps[q.id].change(refresh, [state, *comps], cols + select_comps, queue=False,
                                    show_progress="hidden", api_visibility="private")
        for trigger in (form.comps["model"].blur, form.comps["model"].submit):
            # a model that ships its own code brings the trust_remote_code question
            trigger(refresh, [state, *comps], cols + select_comps, show_progress="hidden",
                    api_visibility="private")

        def lookup_columns(path: str, config_name: str, text_cols: list[str] | None,
                           label_col: str | None, token: str | None = None) -> list[Any]:

            if not (path or "").strip():
                return [gr.skip(), gr.skip(), gr.update(value="", visible=False)]
            try:
                columns = dataset_columns(path, config_name, token)
            except CaseError as exc:
                return [gr.skip(), gr.skip(), gr.update(
                    value=f"⚠ {in_users_words(str(exc), exc.field_name)}", visible=True)]
            keep = [c for c in text_cols or [] if c in columns]
            label = label_col if label_col in columns else ("label" if "label" in columns else None)
            return [gr.Dropdown(choices=columns, value=keep or [c for c in columns if c != label][:1]),
                    gr.Dropdown(choices=columns, value=label),
                    gr.update(value="", visible=False)]

        def lookup_columns_signed_in(path: str, config_name: str, text_cols: list[str] | None,
                                     label_col: str | None,
                                     oauth_token: gr.OAuthToken | None) -> list[Any]:
            return lookup_columns(path, config_name, text_cols, label_col, _user_token(oauth_token))

        columns_fn = lookup_columns_signed_in if config.oauth_enabled else lookup_columns
        ds_inputs = [form.comps["dataset"], form.comps["dataset_config"], *col_pickers]
        ds_outputs = [*col_pickers, form.errs["dataset"]]
        form.comps["dataset"].blur(columns_fn, ds_inputs, ds_outputs, api_name="columns",
                                   concurrency_limit=None)
        for trigger in (form.comps["dataset"].submit, form.comps["dataset_config"].blur,
                        form.comps["dataset_config"].submit):
            trigger(columns_fn, ds_inputs, ds_outputs, concurrency_limit=None,
                    api_visibility="private")

        # -- demo case / case file ------------------------------------------------------------
        fill_outputs = [state, *comps, *cols, *errs, demo_note, script_note, script_code]
        script_outputs = [*fill_outputs, script_err]
        n_fill = len(fill_outputs)

        def fill_from_case(st: dict[str, Any], case: Case, note: str, keep_base: bool = True,
                           script: dict[str, Any] | None = None, token: str | None = None,
                           script_text_note: str = "", script_text: Any = "") -> list[Any]:
            """Every field from a case; the case stays the base for the fields no question
            asks (splits, preprocessing, ...). `script`: the findings read from the user's
            script, kept for the run (any other fill forgets them, and empties the box)."""

            st = {**(st or {}), "base": case.to_dict() if keep_base else None, "script": script}
            base = case if keep_base else None
            answers = answers_from_case(case)
            try:
                columns = dataset_columns(case.dataset.path, case.dataset.config, token) \
                    if case.dataset.path else None
            except CaseError:
                columns = None
            updates: list[Any] = []
            for q in questions:
                value = answers[q.id]
                if q.kind == "select":
                    updates.append(gr.Radio(choices=choices_for(q.id, answers, base), value=value))
                elif q.kind in ("columns", "column"):
                    picks = columns or (list(value) if isinstance(value, list) else [value])
                    updates.append(gr.Dropdown(choices=[c for c in picks if c], value=value))
                else:
                    updates.append(gr.update(value=value))
            return [st, *updates, *_visibility_updates(form, answers, base),
                    *_error_updates(form, []), note, script_text_note, script_text]

        def load_demo(st: dict[str, Any], progress: gr.Progress = gr.Progress()) -> list[Any]:

            framework = default_demo_framework()
            root = config.demo_root or default_cache_dir()
            progress(0.1, desc="Building the demo model and dataset (once)")
            build_fixtures(root, frameworks=(framework,))
            case = course_case(root, framework)
            return fill_from_case(st, case, f"Filled in the built-in demo: the course's broken "
                                  f"DistilBERT-on-MNLI script ({framework}), on a tiny offline "
                                  "model and dataset. Press **Run the checks**.")

        def load_case_file(st: dict[str, Any], file: Any) -> list[Any]:
            path = Path(file if isinstance(file, str) else getattr(file, "name", ""))
            try:
                case = Case.from_file(path)
            except CaseError as exc:
                return [st, *[gr.skip()] * (len(comps) + len(cols)),
                        *_error_updates(form, [FormError(None, str(exc))]), "", gr.skip(),
                        gr.skip()]
            return fill_from_case(st, case, f"Filled in from {path.name}.")

        demo_btn.click(load_demo, [state], fill_outputs, api_name="demo",
                       show_progress_on=[demo_note])
        case_upload.upload(load_case_file, [state, case_upload], fill_outputs, api_name="load_case")

        # -- the user's own script, read statically --------------------------------------------
        def read_script_text(st: dict[str, Any], text: str, values: tuple[Any, ...],
                             name: str | None = None, token: str | None = None,
                             shown: Any = None) -> list[Any]:
            """Fill the form from a pasted script; the symptom, traceback and logs stay as the
            user gave them (a script does not say them). Bad input: one sentence."""

            try:
                reading = read_pasted_script(text, name)
            except CaseError as exc:
                return [gr.skip()] * n_fill + [gr.update(value=f"⚠ {exc}", visible=True)]
            case = copy.deepcopy(reading.case)
            answers = form.answers(values)
            for qid in ("symptom", "traceback", "logs"):
                q = QUESTIONS[qid]
                try:
                    set_field(case, q.field, parse_answer(q, answers.get(qid), case))
                except CaseError:
                    pass  # an unusable answer: the case's default stays
            data = reading.to_dict()
            return fill_from_case(st, case, "", script={"findings": data["findings"],
                                                        "names": reading.names.to_dict()},
                                  token=token,
                                  script_text_note=script_note_md(data),
                                  script_text=gr.skip() if shown is None else shown) + [
                gr.update(value="", visible=False)]

        def read_script_box(st: dict[str, Any], text: str, *values: Any) -> list[Any]:
            return read_script_text(st, text, values)

        def read_script_box_signed_in(st: dict[str, Any], oauth_token: gr.OAuthToken | None,
                                      text: str, *values: Any) -> list[Any]:
            return read_script_text(st, text, values, token=_user_token(oauth_token))

        def read_script_file(st: dict[str, Any], file: Any, *values: Any,
                             token: str | None = None) -> list[Any]:
            path = Path(_path(file))
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                return [gr.skip()] * n_fill + [gr.update(
                    value=f"⚠ {path.name} is not UTF-8 text; save it as a .py text file.",
                    visible=True)]
            except OSError:
                return [gr.skip()] * n_fill + [gr.update(
                    value="⚠ The upload could not be read; try again.", visible=True)]
            return read_script_text(st, text, values, path.name, token, shown=text)

        def read_script_file_signed_in(st: dict[str, Any], oauth_token: gr.OAuthToken | None,
                                       file: Any, *values: Any) -> list[Any]:
            return read_script_file(st, file, *values, token=_user_token(oauth_token))

        signed_in = config.oauth_enabled
        script_btn.click(read_script_box_signed_in if signed_in else read_script_box,
                         [state, script_code, *comps], script_outputs, api_name="read_script")
        script_upload.upload(read_script_file_signed_in if signed_in else read_script_file,
                             [state, script_upload, *comps], script_outputs,
                             api_name="load_script")

        # -- the checks -------------------------------------------------------------------------
        run_outputs = [walk, state, live, result_st, *errs, plan_md, status_md, log_box,
                       verdict_box, table_md, result_json, bundle_btn, to_verdict_btn]
        n_err = len(errs)

        # gradio injects gr.Progress only into a parameter before *values
        def run(st: dict[str, Any], progress: gr.Progress = gr.Progress(), *values: Any,
                token: str | None = None) -> Iterator[list[Any]]:
            """Validate, then stream the session; any surprise is one sentence, not "Error".
            `token`: the signed-in user's own, for this run's Hub lookups only (not kept)."""
            try:
                yield from _run(st, *values, progress=progress, token=token)
            except Exception as exc:
                stopped = {**copy.deepcopy(st or {}), "running": False}   # disarms the watch
                yield [gr.skip(), stopped] + [gr.skip()] * (2 + n_err) + [
                    gr.skip(), f"⚠ The checks stopped: {one_line(exc, 300, typed=True)}. Please report this.",
                    *[gr.skip()] * 6]

        def run_signed_in(st: dict[str, Any], oauth_token: gr.OAuthToken | None,
                          progress: gr.Progress = gr.Progress(), *values: Any
                          ) -> Iterator[list[Any]]:
            yield from run(st, progress, *values, token=_user_token(oauth_token))

        def _run(st: dict[str, Any], *values: Any, progress: Any,
                 token: str | None = None) -> Iterator[list[Any]]:

            started = time.monotonic()  # the elapsed time counts from the press of Run
            *answers_in, uploads = values
            st = copy.deepcopy(st or {})
            answers = form.answers(tuple(answers_in))
            skip_rest = [gr.skip()] * 8

            def bad_input(errors: list[FormError]) -> list[Any]:
                st["running"] = False
                shown = set(reachable(answers, _base(st)))
                return [gr.Walkthrough(selected=1), st, gr.skip(), gr.skip(),
                        *_error_updates(form, errors, shown), *skip_rest]

            try:
                session_dir = _session_dir(st, config)
                st["runs"] = int(st.get("runs", 0)) + 1
                run_dir = session_dir / f"run-{st['runs']}"
                if uploads:
                    answers["logs"] = gather_logs([_path(u) for u in uploads], run_dir / "logs")
                errors = form_errors(answers, _base(st), columns=dataset_columns)
                if errors:  # every bad answer at once, each next to its field
                    yield bad_input(errors)
                    return
                case = case_from_answers(answers, _base(st))
                preflight(case)
            except CaseError as exc:
                yield bad_input([error_for(exc)])
                return
            steps = [s for s in plan(case) if config.steps is None or s.id in config.steps]
            st["result"], st["running"] = None, True
            forget_final(run_dir)
            yield [gr.Walkthrough(selected=2), st, [], {}, *_error_updates(form, []),
                   plan_markdown(steps), step_status(0, len(steps), "", time.monotonic() - started),
                   "", gr.skip(), gr.skip(), "", gr.DownloadButton(value=None, interactive=False),
                   gr.Button(interactive=False)]
            progress(0, desc="Starting")
            events = runner(case.to_dict(), config.device, config.probe_timeout, config.steps,
                            autosave=str(run_dir / "session.json"), hub_token=token,
                            isolated=config.oauth_enabled)
            yield from follow(st, events, run_dir, started, len(steps), progress, bad_input,
                              st.get("script") or {})

        def follow(st: dict[str, Any], events: Iterator[dict[str, Any]], run_dir: Path,
                   started: float, total: int, progress: Any, bad_input: Any,
                   script: dict[str, Any]) -> Iterator[list[Any]]:
            """A run's events as the checks step's updates, ending on the verdict step (the
            checks of a case, and a script run under the wizard alike). `script`: the findings
            read from the user's script, to fold into the result."""
            lines: list[str] = []
            found: list[dict[str, Any]] = []
            done = shown = 0
            title = "Starting"
            for event in events:
                kind = event["kind"]
                if kind == "case-error":
                    yield bad_input([error_for(CaseError(event["message"], event.get("field")))])
                    return
                if kind == "crash":
                    st["running"] = False
                    ask = "" if event.get("expected") else " Please report this."
                    yield [gr.skip(), st, gr.skip(), gr.skip(), *[gr.skip()] * n_err, gr.skip(),
                           f"⚠ The checks stopped: {event['message']}.{ask}",
                           "\n".join(lines), *[gr.skip()] * 5]
                    return
                if kind == "result":
                    # the script's own findings (with their lines) join the run's, as in
                    # `python -m wizard check --script`
                    result = merge_static_findings(event["result"], script.get("findings") or [],
                                                   script.get("names"))
                    done_note = f"**Done:** {result_summary(result)}."
                    try:
                        bundle: Path | None = write_bundle(result, run_dir / "report")
                    except Exception as exc:  # the verdict stands; only the files are missing
                        bundle = None
                        done_note += f" ⚠ The report files could not be written: {one_line(exc, 300, typed=True)}."
                    final = {"result": result, "bundle": str(bundle) if bundle else None,
                             "report_dir": str(run_dir / "report") if bundle else None,
                             "note": done_note, "log": "\n".join(lines)}
                    save_final(run_dir, final)
                    progress(1.0, desc="Done")
                    yield final_updates(st, final)
                    return
                line = log_line(event)
                if line is not None:
                    lines.append(line)
                status: Any = gr.skip()
                if kind == "step":
                    total = int(event.get("total") or total)
                    done, title = int(event.get("index", done)) + 1, event["title"]
                    status = step_status(done, total, title, time.monotonic() - started)
                    progress((done - 1) / max(total, 1), desc=f"Step {done} of {total} · {title}")
                elif kind == "progress":
                    status = step_status(done, total, title, time.monotonic() - started,
                                         event["message"])
                    progress(max(done - 1, 0) / max(total, 1), desc=event["message"])
                # The cards are re-rendered once per step, not once per finding: every render is
                # a round trip through the queue, and a burst of them can stall the page.
                new_live = gr.skip()
                if kind == "finding":
                    found = [*found, event["finding"]]
                elif kind == "step" and len(found) != shown:
                    new_live, shown = found, len(found)
                yield [gr.skip(), gr.skip(), new_live, gr.skip(), *[gr.skip()] * n_err, gr.skip(),
                       status, "\n".join(lines), *[gr.skip()] * 5]

        run_btn.click(run_signed_in if config.oauth_enabled else run,
                      [state, *comps, logs_upload], run_outputs, api_name="check",
                      show_progress_on=[status_md], show_progress="minimal",
                      time_limit=config.run_time_limit)

        # -- the user's own script, run under the wizard (this machine only) -----------------
        def run_pasted_script(st: dict[str, Any], text: str, args: str,
                              progress: gr.Progress = gr.Progress()) -> Iterator[list[Any]]:
            """Run the pasted script as `python -m wizard run` does, in a child process with the
            app's time limit; stream it on the checks step, end on the verdict step. Bad input
            (or a Space that does not run scripts): one sentence under the script box."""
            started = time.monotonic()
            st = copy.deepcopy(st or {})
            hidden = gr.update(value="", visible=False)

            def refused(message: str) -> list[Any]:
                return [gr.skip()] * len(run_outputs) + [
                    gr.update(value=f"⚠ {message}", visible=True)]

            if not runnable:
                yield refused(why_not_runnable())
                return
            try:
                read_pasted_script(text, SCRIPT_NAME)
                argv = script_argv(args)
            except CaseError as exc:
                yield refused(str(exc))
                return

            def bad_input(errors: list[FormError]) -> list[Any]:
                st["running"] = False
                return [gr.Walkthrough(selected=1), st, gr.skip(), gr.skip(),
                        *_error_updates(form, errors), *[gr.skip()] * 8]

            st["runs"] = int(st.get("runs", 0)) + 1
            run_dir = _session_dir(st, config) / f"run-{st['runs']}"
            st["result"], st["running"] = None, True
            forget_final(run_dir)
            yield [gr.Walkthrough(selected=2), st, [], {}, *_error_updates(form, []),
                   script_run_plan(SCRIPT_NAME, argv),
                   step_status(0, 0, "", time.monotonic() - started), "", gr.skip(), gr.skip(),
                   "", gr.DownloadButton(value=None, interactive=False),
                   gr.Button(interactive=False), hidden]
            progress(0, desc="Starting")
            events = run_script_events(text, args, run_dir, config.run_time_limit)
            for update in follow(st, events, run_dir, started, 0, progress, bad_input, {}):
                yield [*update, gr.skip()]

        script_run_btn.click(run_pasted_script, [state, script_code, script_args],
                             [*run_outputs, script_err], api_name="run_script",
                             show_progress_on=[status_md], show_progress="minimal",
                             time_limit=config.run_time_limit + 60)

        def final_updates(st: dict[str, Any], final: dict[str, Any]) -> list[Any]:
            """The run's last update: the verdict step with the finished result."""
            result, bundle = final["result"], final["bundle"]
            st = {**st, "result": result, "bundle": bundle, "report_dir": final["report_dir"],
                  "running": False}
            return [gr.Walkthrough(selected=3), st, list(result["findings"]), result,
                    *[gr.skip()] * n_err, gr.skip(), final["note"], final["log"],
                    verdict_html(result["verdict"], result_summary(result)),
                    findings_table(result), json.dumps(result, indent=2, default=str),
                    gr.DownloadButton(value=bundle, interactive=bundle is not None),
                    gr.Button(interactive=True)]

        def recover(st: dict[str, Any]) -> list[Any]:
            """The timer's tick: once the run's final update is saved but the page still shows
            the run going (its stream lost the update), send it again; stop when not running."""
            st = st or {}
            final = load_final(Path(st["dir"]) / f"run-{st['runs']}") \
                if st.get("running") and st.get("dir") and st.get("runs") else None
            if final is None:
                return [gr.skip()] * len(run_outputs) + [gr.Timer(active=bool(st.get("running")))]
            return [*final_updates(st, final), gr.Timer(active=False)]

        # armed by the run's first update (which sets "running"), never before it: a tick then
        # always sees this run's state
        state.change(lambda st: gr.Timer(active=bool((st or {}).get("running"))), [state],
                     watch, queue=False, show_progress="hidden", api_visibility="private")
        watch.tick(recover, [state], [*run_outputs, watch], queue=False, show_progress="hidden",
                   api_visibility="private")

        # -- navigation -----------------------------------------------------------------------
        for button, step in ((back1_btn, 1), (to_verdict_btn, 3), (back2_btn, 2), (back3_btn, 3)):
            button.click(lambda step=step: gr.Walkthrough(selected=step), None, walk, queue=False,
                         api_visibility="private")

        def restart(st: dict[str, Any]) -> list[Any]:
            st = {k: v for k, v in (st or {}).items() if k in ("dir", "runs")}
            return [gr.Walkthrough(selected=1), *fill_from_case(st, Case(), "", keep_base=False),
                    gr.update(value="", visible=False)]

        restart_btn.click(restart, [state], [walk, *fill_outputs, script_err], queue=False,
                          api_visibility="private")

        # -- the report -----------------------------------------------------------------------
        report_outputs = [walk, state, preview_md, report_code, confirm, share_col, hub_status,
                          repro_col, repro_code, repro_btn, fmt, note_md, confirm_col, repo_col,
                          hub_col, repo_box]

        def repro_updates(st: dict[str, Any]) -> list[Any]:
            """The reproduction script, shown only when the result has one."""

            report_dir = Path(st["report_dir"]) if st.get("report_dir") else None
            script, path = repro_script(st.get("result") or {}, report_dir)
            if not script:
                return [_column(False), "", gr.DownloadButton(value=None)]
            return [_column(True), script,
                    gr.DownloadButton(value=str(path) if path else None,
                                      interactive=path is not None)]

        def sharing_updates(result: dict[str, Any], fmt_value: str) -> list[Any]:
            """The formats the verdict offers, what the step says about sharing, and the tick,
            the GitHub repository and the Hub sign-in only where the verdict shares there."""
            targets = share_targets(result) if result else ()
            return [gr.Radio(choices=report_formats(result) if result else FORMAT_CHOICES[:1],
                             value=fmt_value),
                    report_note(result) if result else "", _column(bool(targets)),
                    _column("github" in targets),
                    _column("hub" in targets and hub_model_id(result) is not None)]

        def show_report(st: dict[str, Any], fmt_value: str, go: bool = True) -> list[Any]:
            """The report in the picked format (the Markdown one where the verdict does not
            offer that format); `go`: move to the report step, and set its choices."""

            st = copy.deepcopy(st or {})
            result = st.get("result")
            if not result:
                return [gr.Walkthrough(selected=2) if go else gr.skip(), st,
                        "Run the checks first: the report is written from their result.", "",
                        False, _column(False), "", *repro_updates({}),
                        *sharing_updates({}, "markdown"), gr.skip()]
            offered = [f for _, f in report_formats(result)]
            fmt_value = fmt_value if fmt_value in offered else "markdown"
            st["texts"] = {f: render_report(result, f) for f in offered}
            text = st["texts"][fmt_value]
            sharing = sharing_updates(result, fmt_value) if go else [gr.skip()] * 5
            # the issue goes to the library the evidence blames (trl's bug to huggingface/trl)
            repo = (issue_repository(suspected_package(result))
                    if config.github_repo == DEFAULT_REPOSITORY else config.github_repo) \
                if go else gr.skip()
            return [gr.Walkthrough(selected=4) if go else gr.skip(), st, text, text, False,
                    _column(False), "", *repro_updates(st), *sharing, repo]

        # gradio 6.17 draws a step's components the first time the step is selected; here that
        # happens inside this event's own answer, and a tracker on an output drawn that way is
        # never cleared ("processing" stayed over the preview and the tick box for good). The
        # progress goes on the button instead: a button draws no tracker, the step's outputs get
        # none (as the checks' final answer draws the verdict step with none on it).
        to_report_btn.click(show_report, [state, fmt], report_outputs, api_name="report",
                            show_progress_on=[to_report_btn])
        # `input`, not `change`: the report step sets the choices itself
        fmt.input(lambda st, f: show_report(st, f, go=False), [state, fmt], report_outputs,
                  queue=False, api_visibility="private")

        def edited(st: dict[str, Any], fmt_value: str, text: str) -> list[Any]:
            st = copy.deepcopy(st or {})
            st.setdefault("texts", {})[fmt_value] = text
            return [st, text, False, _column(False)]

        report_code.input(edited, [state, fmt, report_code], [state, preview_md, confirm, share_col],
                          queue=False, show_progress="hidden", api_visibility="private")

        def confirmed(st: dict[str, Any], ok: bool, repo: str) -> list[Any]:
            if not ok or not (st or {}).get("texts") or not st.get("result"):
                return [_column(False), ""]
            links = share_links(st["result"], st["texts"], repo, sign_in=config.oauth_enabled)
            return [_column(bool(links)), links]

        confirm.change(confirmed, [state, confirm, repo_box], [share_col, links_html],
                       api_name="share_links")
        repo_box.blur(confirmed, [state, confirm, repo_box], [share_col, links_html],
                      api_visibility="private")

        if hub_btn is not None:
            hub_btn.click(open_discussion, [state, confirm], [hub_status], api_name="discussion")

        demo.wizard_api = {  # type: ignore[attr-defined]
            "fields": [q.id for q in questions],
            "demo": _api_names(fill_outputs, form, {demo_note: "demo_note",
                                                    general_err: "error:general",
                                                    script_note: "script_note",
                                                    script_code: "script"}),
            "check": _api_names(run_outputs, form, {
                plan_md: "plan", status_md: "status", log_box: "log", verdict_box: "verdict",
                table_md: "table", result_json: "result", bundle_btn: "bundle",
                general_err: "error:general"}),
            "report": _api_names(report_outputs, form, {preview_md: "preview",
                                                        report_code: "text", confirm: "confirm",
                                                        fmt: "format", note_md: "note",
                                                        hub_status: "hub_status",
                                                        repro_code: "repro",
                                                        repro_btn: "repro_file",
                                                        repo_box: "github_repo"}),
            "read_script": _api_names(script_outputs, form, {
                demo_note: "demo_note", general_err: "error:general", script_note: "script_note",
                script_err: "error:script", script_code: "script"}),
            "run_script": _api_names([*run_outputs, script_err], form, {
                plan_md: "plan", status_md: "status", log_box: "log", verdict_box: "verdict",
                table_md: "table", result_json: "result", bundle_btn: "bundle",
                general_err: "error:general", script_err: "error:script"}),
            "share_links": ["links"],
            **({"discussion": ["hub_status"]} if hub_btn is not None else {}),
        }
        demo.wizard_api["load_script"] = demo.wizard_api["read_script"]  # same outputs
    return demo


def open_discussion(st: dict[str, Any], ok: bool, oauth_token: gr.OAuthToken | None) -> str:
    """Open a discussion on the model's Hub page with the signed-in user's own token."""

    st = st or {}
    if not ok:
        return "⚠ Read the final text and tick the box first."
    result, texts = st.get("result"), st.get("texts") or {}
    if not result or "hub" not in texts:
        return "⚠ Run the checks and open the report first."
    if "hub" not in share_targets(result):
        return "⚠ This result is not one to post on the model's page: see the report step."
    repo_id = hub_model_id(result)
    if not repo_id:
        return "⚠ The model is a local folder: it has no Hub page to open a discussion on."
    token = getattr(oauth_token, "token", None) if oauth_token is not None else None
    try:
        title, body = split_title(texts["hub"])
        url = create_hub_discussion(repo_id, title or report_title(result), body, token)
    except PermissionError as exc:
        return f"⚠ {exc}"
    return f"Opened: [{url}]({url})"


def _finding_card(f: dict[str, Any]) -> None:
    status = f.get("status", "info")
    with gr.Accordion(finding_label(f), open=status in PROBLEMS,
                      elem_id="card-" + re.sub(r"[^A-Za-z0-9_-]", "-", str(f.get("id"))),
                      elem_classes=["wz-card", f"wz-card-{status}"]):
        if f.get("explanation"):
            gr.Markdown(f["explanation"])
        evidence = evidence_text(f)
        if evidence:
            gr.Code(evidence, language="json", label="Evidence", interactive=False,
                    max_lines=12)
        traceback = (f.get("evidence") or {}).get("traceback")
        if traceback:
            gr.Code(str(traceback), label="Traceback", interactive=False, max_lines=15)
        if f.get("fix"):
            gr.Code(f["fix"], language="python", label="Fix: paste this", interactive=False)
        for plot in f.get("plots") or []:
            _plot(plot)


def _plot(plot: dict[str, Any]) -> None:
    frame = plot_frame(plot)
    if frame is None:
        return
    kind, df, kwargs = frame
    if _GRADIO < (6, 31):  # gradio 6.17's plots fail to draw with a list `sort` (bars fall
        kwargs.pop("sort", None)  # back to the label's alphabetical order there)
    component = {"line": gr.LinePlot, "bar": gr.BarPlot, "scatter": gr.ScatterPlot}[kind]
    component(df, label=plot.get("title") or plot.get("name"), **kwargs)



def _path(upload: Any) -> str:
    return upload if isinstance(upload, str) else getattr(upload, "name", str(upload))


def _api_names(outputs: list[Any], form: _Form, named: dict[Any, str]) -> list[str]:
    """The names of the outputs a gradio_client call returns, in order."""
    by_block = {**{c: f"field:{q}" for q, c in form.comps.items()},
                **{c: f"error:{q}" for q, c in form.errs.items()}, **named}
    names = []
    for block in outputs:
        if getattr(block, "skip_api", True):  # state, layouts and buttons are not returned
            continue
        names.append(by_block.get(block, type(block).__name__))
    return names
