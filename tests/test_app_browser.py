"""The web app in a real headless Chromium (Debian's /usr/bin/chromium through Playwright; no
browser download): the demo case from the first step to the report, bad input on the way, back
navigation, and screenshots of the main steps into docs/screenshots/."""
from __future__ import annotations

import os
import re
import socket
from pathlib import Path
from typing import Iterator

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
        pg = browser.new_page(viewport={"width": 1280, "height": 900})
        pg.set_default_timeout(60_000)
        pg.goto(app_url)
        pg.wait_for_selector("#demo-btn")
        try:
            yield pg
        finally:
            browser.close()


def shot(page: sync_api.Page, name: str, max_height: int = 2400) -> None:
    """The page from its top, at most `max_height` pixels of it."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(400)
    height = min(page.evaluate("document.documentElement.scrollHeight"), max_height)
    page.screenshot(path=str(SHOTS / name), full_page=True,
                    clip={"x": 0, "y": 0, "width": 1280, "height": height})


def field(page: sync_api.Page, qid: str) -> sync_api.Locator:
    return page.locator(f"#q-{qid} input, #q-{qid} textarea").first


def test_demo_case_from_setup_to_report(page: sync_api.Page, demo_dir: Path) -> None:
    expect = sync_api.expect
    for label in ("Describe your setup", "Checks", "Verdict", "Report"):
        expect(page.get_by_text(label, exact=True).first).to_be_visible()
    # the form follows the tree: the traceback is asked only for the symptom "error"
    expect(page.locator("#row-traceback")).to_be_hidden()
    page.locator("#q-symptom label", has_text="An error inside").click()
    expect(page.locator("#row-traceback")).to_be_visible()
    expect(page.locator("#row-loss")).to_be_hidden()  # a Keras question, not asked for PyTorch

    # a pasted script fills the form (read, never run), its findings shown with their lines
    from wizard.script.reader import course_script_path

    page.get_by_text("…or paste your training script", exact=False).first.click()
    editor = page.locator("#script-code .cm-content")
    editor.click()
    page.keyboard.insert_text(course_script_path().read_text())
    page.click("#script-read")
    expect(page.locator("#script-note")).to_contain_text("line 20", timeout=60_000)
    expect(page.locator("#script-note")).to_contain_text("learning-rate-too-high")
    expect(field(page, "model")).to_have_value("distilbert-base-uncased")
    expect(field(page, "dataset_config")).to_have_value("mnli")
    expect(page.locator("#row-loss")).to_be_visible()  # a Keras script: the Keras questions
    page.locator("#script-code").scroll_into_view_if_needed()
    page.wait_for_timeout(400)
    page.locator("#script-box").screenshot(path=str(SHOTS / "1-script.png"))
    page.get_by_text("…or paste your training script", exact=False).first.click()  # close it

    # 1. the demo case fills every field
    page.click("#demo-btn")
    expect(page.locator("#demo-note")).to_contain_text("built-in demo", timeout=180_000)
    expect(field(page, "model")).to_have_value(str(demo_dir / "model"))
    expect(field(page, "dataset")).to_have_value(str(demo_dir / "dataset"))
    expect(page.locator("#q-text_columns")).to_contain_text("premise")
    expect(page.locator("#q-text_columns")).to_contain_text("hypothesis")
    expect(field(page, "traceback")).not_to_have_value("")
    shot(page, "1-setup.png")

    # bad input: one sentence next to the field, no traceback, still on the first step
    field(page, "model").fill(str(demo_dir / "no-such-model"))
    page.click("#run-btn")
    error = page.locator("#err-model")
    expect(error).to_be_visible()
    expect(error).to_contain_text("does not exist")
    assert "Traceback" not in page.locator("body").inner_text()
    expect(page.locator("#run-btn")).to_be_visible()
    field(page, "model").fill(str(demo_dir / "model"))

    # 2. the checks stream their log, then the verdict comes up
    page.click("#run-btn")
    expect(page.locator("#run-log textarea")).to_have_value(
        re.compile("Your environment"), timeout=120_000)
    expect(error).to_be_hidden()
    verdict = page.locator("#verdict")
    expect(verdict).to_contain_text("Verdict: user-error", timeout=RUN_TIMEOUT_MS)
    expect(verdict).to_contain_text("num_labels")
    expect(page.get_by_text("What to do")).to_be_visible()
    expect(page.locator("#step-verdict")).to_contain_text("num_labels=3")  # the fix, as code
    expect(page.locator("#findings-table")).to_contain_text("data.labels-out-of-range")
    shot(page, "3-verdict.png")

    # back to the checks: finding cards with evidence, fixes and the interactive plot
    page.click("#back-to-checks")
    checks = page.locator("#step-checks")
    expect(checks).to_contain_text("Labels reach 2 but the model has num_labels=2")
    expect(checks).to_contain_text("Evidence")
    expect(page.locator("#run-status")).to_contain_text("Done")
    balance = page.locator("#card-data-label-balance")
    expect(balance).to_contain_text("3 classes")
    expect(balance.locator(".vega-embed")).to_be_hidden()  # info cards start closed
    balance.get_by_role("button", name=re.compile("data.label-balance")).click()
    expect(balance.locator(".vega-embed")).to_be_visible(timeout=30_000)  # interactive plot
    balance.scroll_into_view_if_needed()
    page.wait_for_timeout(600)
    balance.screenshot(path=str(SHOTS / "2-checks-plot.png"))
    shot(page, "2-checks.png")

    # 3. → 4. the report; links appear only once the user has read the final text
    page.click("#to-verdict")
    expect(verdict).to_be_visible()
    page.click("#to-report")
    expect(page.locator("#report-preview")).to_contain_text("hf-debug-wizard report")
    expect(page.locator("#report-preview")).to_contain_text("Labels reach 2")
    expect(page.locator("#share")).to_be_hidden()
    expect(page.locator("#bundle")).to_be_visible()
    expect(page.locator("#repro")).to_be_hidden()  # a user error: no reproduction script
    page.locator("#report-format label", has_text="GitHub issue").click()
    expect(page.locator("#report-preview")).not_to_contain_text("hf-debug-wizard report")
    page.locator("#confirm input[type=checkbox]").check()
    links = page.locator("#share-links a")
    expect(links.first).to_be_visible()
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert any(h.startswith("https://github.com/huggingface/transformers/issues/new?") for h in hrefs)
    assert any(h.startswith("https://discuss.huggingface.co/new-topic?") for h in hrefs)
    assert all(len(h) <= 6000 for h in hrefs)
    expect(page.locator("#share")).to_contain_text("local folder")  # no Hub page for the demo
    shot(page, "4-report.png")
    page.get_by_role("tab", name="Text to copy or edit").click()
    # the editor draws only the lines in view: the title comment is the first of them
    expect(page.locator("#report-code")).to_contain_text(  # TF's primary fault, or PyTorch's
        re.compile(r"Title: (Labels ride inside the inputs|Labels reach 2)"))

    # back navigation keeps the result
    page.click("#back-to-verdict")
    expect(verdict).to_contain_text("Verdict: user-error")
    page.get_by_text("Describe your setup", exact=True).first.click()
    expect(field(page, "model")).to_have_value(str(demo_dir / "model"))
    assert page.locator(".toast-body.error").count() == 0
