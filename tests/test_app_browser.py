"""The web app in a real headless Chromium (Debian's /usr/bin/chromium through Playwright; no
browser download): one user's journey from the first step to the report (a pasted script, a
form with several bad answers, the demo case, the checks, the verdict, the report, the tick, the
links and the bundle's download), back navigation, and screenshots of the main steps into
docs/screenshots/ (WIZARD_SCREENSHOTS to put them elsewhere).

The journey fails when a control of a step cannot be clicked (something covers it), or when a
gradio status tracker is still busy a few seconds after the server has answered every call: the
page looks done, but the tracker covers what the user must click next (gradio 6.17 left one
over the report step for good)."""
from __future__ import annotations

import os
import re
import socket
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[1]
SHOTS = Path(os.environ.get("WIZARD_SCREENSHOTS", ROOT / "docs" / "screenshots"))

pytest.importorskip("gradio")
sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = [pytest.mark.app, pytest.mark.browser,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium "
                                 "(scripts/install_browser.sh)")]
RUN_TIMEOUT_MS = 600_000
SETTLE_S = 5.0     # how long a tracker may stay busy once the server has answered everything
CLICK_MS = 5_000   # how long a control may stay covered (or disabled) before the test fails

# gradio's status tracker (the "processing | 1.2s" overlay on an event's outputs): the same
# element in gradio 6.17 and 6.31; idle, it carries the class "hide" (in the DOM, no box)
TRACKER = '[data-testid="status-tracker"]'
BUSY_TRACKERS = """(sel) => Array.from(document.querySelectorAll(sel))
  .filter(e => !e.classList.contains('hide') && e.getClientRects().length > 0)
  .map(e => { const owner = e.parentElement && e.parentElement.closest('[id]');
              const text = e.innerText.replace(/\\s+/g, ' ').trim();
              return (owner && owner.id ? '#' + owner.id : '(page)') + ' "' + text + '"'; })"""


class Server:
    """The page's calls to the app in flight (a queued event's stream, a direct call, an
    upload): the server has answered when none is left. The heartbeat never ends; not counted."""

    def __init__(self, page: Any) -> None:
        self.open: set[Any] = set()
        self.answered = time.monotonic()
        page.on("request", self._sent)
        page.on("requestfinished", self._done)
        page.on("requestfailed", self._done)  # gradio 6.17 aborts an event stream once done

    def _sent(self, request: Any) -> None:
        if "/gradio_api/" in request.url and "/heartbeat/" not in request.url:
            self.open.add(request)

    def _done(self, request: Any) -> None:
        if request in self.open:
            self.open.discard(request)
            self.answered = time.monotonic()


@pytest.fixture(scope="module")
def app_url(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from wizard.frontends.app.ui import AppConfig, build_app, launch_kwargs

    config = AppConfig(demo_root=demo_dir, work_dir=tmp_path_factory.mktemp("sessions"))
    demo = build_app(config)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    demo.queue(default_concurrency_limit=2).launch(
        server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
        **launch_kwargs(config))
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        demo.close()


@pytest.fixture(scope="module")
def page(app_url: str) -> Iterator[sync_api.Page]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        pg = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
        pg.set_default_timeout(60_000)
        pg.server = Server(pg)  # type: ignore[attr-defined]
        pg.goto(app_url)
        pg.wait_for_selector("#demo-btn")
        try:
            yield pg
        finally:
            browser.close()


def settle(page: sync_api.Page, after: str, timeout_s: float = 120.0) -> None:
    """Wait for the server to answer every call, then for every status tracker to go idle:
    fail when one is still busy SETTLE_S seconds after the last answer."""
    server: Server = page.server  # type: ignore[attr-defined]
    start = time.monotonic()
    while True:
        page.wait_for_timeout(100)  # Playwright reports requests while it waits
        now = time.monotonic()
        if server.open:
            if now - start > timeout_s:
                pytest.fail(f"after {after}: the server has not answered within {timeout_s:.0f} s: "
                            + ", ".join(r.url for r in server.open))
            continue
        busy = page.evaluate(BUSY_TRACKERS, TRACKER)
        if not busy:
            return
        if now - max(server.answered, start) > SETTLE_S:
            pytest.fail(f"after {after}: a status tracker is still busy {SETTLE_S:.0f} s after the "
                        f"server answered, covering what is under it: {'; '.join(busy)}")


def clickable(target: sync_api.Locator, what: str) -> None:
    """Fail unless the control can be clicked now: visible, enabled, and not covered by anything
    (Playwright's actionability checks, without clicking)."""
    try:
        target.click(trial=True, timeout=CLICK_MS)
    except sync_api.TimeoutError as exc:
        lines = [line.strip(" -") for line in str(exc).splitlines() if line.strip(" -")]
        why = next((line for line in reversed(lines) if "intercepts" in line or "not " in line),
                   lines[-1] if lines else "")
        pytest.fail(f"{what} cannot be clicked within {CLICK_MS / 1000:.0f} s: {why}")


def press(page: sync_api.Page, target: sync_api.Locator | str, what: str,
          timeout_s: float = 120.0) -> None:
    """Click a control the way a user does, then let the page settle."""
    locator = page.locator(target) if isinstance(target, str) else target
    clickable(locator, what)
    locator.click()
    settle(page, what, timeout_s)


def all_clickable(page: sync_api.Page, step: str, selectors: list[str]) -> None:
    for selector in selectors:
        clickable(page.locator(selector).first, f"on the {step} step, {selector}")


def shot(page: sync_api.Page, name: str, max_height: int = 2400) -> None:
    """The page from its top, at most `max_height` pixels of it, 1280 px wide."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(400)
    height = min(page.evaluate("document.documentElement.scrollHeight"), max_height)
    page.screenshot(path=str(SHOTS / name), full_page=True,
                    clip={"x": 0, "y": 0, "width": 1280, "height": height})


def field(page: sync_api.Page, qid: str) -> sync_api.Locator:
    return page.locator(f"#q-{qid} input, #q-{qid} textarea").first


def only_error(page: sync_api.Page, qid: str, text: str) -> None:
    """One sentence next to the field it names; every other field's error box hidden."""
    expect = sync_api.expect
    expect(page.locator(f"#err-{qid}")).to_be_visible()
    expect(page.locator(f"#err-{qid}")).to_contain_text(text)
    shown = page.locator("[id^=err-]:visible")
    assert shown.count() == 1, [shown.nth(i).inner_text() for i in range(shown.count())]
    assert "Traceback" not in page.locator("body").inner_text()
    expect(page.locator("#run-btn")).to_be_visible()  # still on the first step


def test_journey_from_setup_to_report(page: sync_api.Page, demo_dir: Path,
                                      tmp_path: Path) -> None:
    expect = sync_api.expect
    settle(page, "opening the page")
    assert page.locator(TRACKER).count() > 0  # the trackers are there to watch (idle)
    for label in ("Describe your setup", "Checks", "Verdict", "Report"):
        expect(page.get_by_text(label, exact=True).first).to_be_visible()
    all_clickable(page, "setup", ["#demo-btn", "#case-upload", "#run-btn",
                                  "#q-symptom label", "#script-box button"])
    # the form follows the tree: the traceback is asked only for the symptom "error"
    expect(page.locator("#row-traceback")).to_be_hidden()
    press(page, page.locator("#q-symptom label", has_text="An error inside"), "the symptom")
    expect(page.locator("#row-traceback")).to_be_visible()
    expect(page.locator("#row-loss")).to_be_hidden()  # a Keras question, not asked for PyTorch

    # a pasted script fills the form (read, never run), its findings shown with their lines
    from wizard.script.reader import course_script_path

    press(page, page.get_by_text("…or paste your training script", exact=False).first,
          "opening the script box")
    editor = page.locator("#script-code .cm-content")
    editor.click()
    page.keyboard.insert_text(course_script_path().read_text())
    press(page, "#script-read", "Read the script")
    expect(page.locator("#script-note")).to_contain_text("line 20", timeout=60_000)
    expect(page.locator("#script-note")).to_contain_text("learning-rate-too-high")
    expect(field(page, "model")).to_have_value("distilbert-base-uncased")
    expect(field(page, "dataset_config")).to_have_value("mnli")
    expect(page.locator("#row-loss")).to_be_visible()  # a Keras script: the Keras questions
    page.locator("#script-code").scroll_into_view_if_needed()
    page.wait_for_timeout(400)
    page.locator("#script-box").screenshot(path=str(SHOTS / "1-script.png"))
    press(page, page.get_by_text("…or paste your training script", exact=False).first,
          "closing the script box")

    # 1. the demo case fills every field
    press(page, "#demo-btn", "Try the demo case", timeout_s=180)
    expect(page.locator("#demo-note")).to_contain_text("built-in demo")
    expect(field(page, "model")).to_have_value(str(demo_dir / "model"))
    expect(field(page, "dataset")).to_have_value(str(demo_dir / "dataset"))
    expect(page.locator("#q-text_columns")).to_contain_text("premise")
    expect(page.locator("#q-text_columns")).to_contain_text("hypothesis")
    expect(field(page, "traceback")).not_to_have_value("")
    shot(page, "1-setup.png")

    # a bad form, several answers wrong: one sentence at a time next to the field it names, no
    # traceback, still on the first step; each fixed answer brings up the next
    field(page, "num_labels").fill("three")
    field(page, "model").fill(str(demo_dir / "no-such-model"))
    press(page, "#run-btn", "Run the checks (num_labels and the model wrong)")
    only_error(page, "num_labels", "whole number")
    field(page, "num_labels").fill("")
    press(page, "#run-btn", "Run the checks (the model wrong)")
    only_error(page, "model", "does not exist")
    field(page, "model").fill(str(demo_dir / "model"))
    field(page, "dataset").fill(str(demo_dir / "no-such-dataset"))
    press(page, "#run-btn", "Run the checks (the dataset wrong)")
    only_error(page, "dataset", "does not exist")
    field(page, "dataset").fill(str(demo_dir / "dataset"))
    field(page, "dataset").blur()  # the column pickers look the dataset up again
    settle(page, "the dataset's columns")
    expect(page.locator("#q-text_columns")).to_contain_text("hypothesis")
    all_clickable(page, "setup", ["#demo-btn", "#run-btn", "#q-framework label"])

    # 2. the checks stream their log, then the verdict comes up
    page.click("#run-btn")
    expect(page.locator("#run-log textarea")).to_have_value(
        re.compile("Your environment"), timeout=120_000)
    expect(page.locator("[id^=err-]:visible")).to_have_count(0)
    verdict = page.locator("#verdict")
    expect(verdict).to_contain_text("Verdict: user-error", timeout=RUN_TIMEOUT_MS)
    settle(page, "the checks")
    expect(verdict).to_contain_text("num_labels")
    expect(page.get_by_text("What to do")).to_be_visible()
    expect(page.locator("#step-verdict")).to_contain_text("num_labels=3")  # the fix, as code
    expect(page.locator("#findings-table")).to_contain_text("data.labels-out-of-range")
    all_clickable(page, "verdict", ["#back-to-checks", "#to-report",
                                    "#step-verdict button:has-text('The result as JSON')"])
    shot(page, "3-verdict.png")

    # back to the checks: finding cards with evidence, fixes and the interactive plot
    press(page, "#back-to-checks", "Back to the checks")
    checks = page.locator("#step-checks")
    expect(checks).to_contain_text("Labels reach 2 but the model has num_labels=2")
    expect(checks).to_contain_text("Evidence")
    expect(page.locator("#run-status")).to_contain_text("Done")
    all_clickable(page, "checks", ["#back-to-setup", "#to-verdict"])
    balance = page.locator("#card-data-label-balance")
    expect(balance).to_contain_text("3 classes")
    expect(balance.locator(".vega-embed")).to_be_hidden()  # info cards start closed
    press(page, balance.get_by_role("button", name=re.compile("data.label-balance")),
          "a finding card")
    expect(balance.locator(".vega-embed")).to_be_visible(timeout=30_000)  # interactive plot
    balance.scroll_into_view_if_needed()
    page.wait_for_timeout(600)
    balance.screenshot(path=str(SHOTS / "2-checks-plot.png"))
    shot(page, "2-checks.png")

    # 3. → 4. the report: its preview, its text, the bundle; the links only once the user has
    # read the final text
    press(page, "#to-verdict", "See the verdict")
    expect(verdict).to_be_visible()
    press(page, "#to-report", "Write the report")
    preview = page.locator("#report-preview")
    expect(preview).to_contain_text("hf-debug-wizard report")
    expect(preview).to_contain_text("Labels reach 2")
    all_clickable(page, "report", [
        "#confirm input[type=checkbox]", "#bundle", "#back-to-verdict", "#start-over",
        "#report-format label:has-text('Forum post')", "#report-preview",
        "#step-report button[role=tab]:has-text('Text to copy or edit')"])
    expect(page.locator("#share")).to_be_hidden()
    expect(page.locator("#bundle")).to_be_visible()
    expect(page.locator("#repro")).to_be_hidden()  # a user error: no reproduction script
    press(page, page.get_by_role("tab", name="Text to copy or edit"), "the text tab")
    expect(page.locator("#report-code")).to_contain_text("hf-debug-wizard report")
    press(page, page.get_by_role("tab", name="Preview"), "the preview tab")

    with page.expect_download() as download:
        press(page, "#bundle", "Download the bundle")
    bundle = tmp_path / download.value.suggested_filename
    download.value.save_as(bundle)
    names = {Path(n).name for n in zipfile.ZipFile(bundle).namelist()}
    assert {"report.md", "report-github.md", "report-forum.md", "report-hub.md", "case.yaml",
            "result.json"} <= names, names

    confirm = page.locator("#confirm input[type=checkbox]")
    press(page, confirm, "the tick: I have read the final text")
    expect(confirm).to_be_checked()
    links = page.locator("#share-links a")
    expect(links.first).to_be_visible()
    all_clickable(page, "report", ["#share-links a", "#github-repo input, #github-repo textarea"])
    # another format is another text to read: the tick and the links go until it is read
    press(page, page.locator("#report-format label", has_text="GitHub issue"), "GitHub issue")
    expect(preview).not_to_contain_text("hf-debug-wizard report")
    expect(confirm).not_to_be_checked()
    expect(page.locator("#share")).to_be_hidden()
    press(page, confirm, "the tick, for the GitHub issue")
    expect(links.first).to_be_visible()
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert any(h.startswith("https://github.com/huggingface/transformers/issues/new?")
               for h in hrefs)
    assert any(h.startswith("https://discuss.huggingface.co/new-topic?") for h in hrefs)
    assert all(len(h) <= 6000 for h in hrefs)
    expect(page.locator("#share")).to_contain_text("local folder")  # no Hub page for the demo
    shot(page, "4-report.png")
    press(page, page.get_by_role("tab", name="Text to copy or edit"), "the text tab")
    # the editor draws only the lines in view: the title comment is the first of them
    expect(page.locator("#report-code")).to_contain_text(  # TF's primary fault, or PyTorch's
        re.compile(r"Title: (Labels ride inside the inputs|Labels reach 2)"))

    # back navigation keeps the result
    press(page, "#back-to-verdict", "Back to the verdict")
    expect(verdict).to_contain_text("Verdict: user-error")
    press(page, page.get_by_text("Describe your setup", exact=True).first, "the first step")
    expect(field(page, "model")).to_have_value(str(demo_dir / "model"))
    assert page.locator(".toast-body.error").count() == 0
