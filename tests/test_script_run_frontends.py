"""Running the user's own script from every front end, by the one path of `wizard run`:
`python -m wizard check --script train.py --run ARGS`, and the app's "Run the script" button
(served for real, driven with gradio_client). On the real bugs of the pinned stacks (env tf:
a TF model from a safetensors-only folder, huggingface/transformers#40028, and a PyTorch model
left on the meta device by from_tf=True, #37786; env modern: trl's add_eos without an EOS token)
both end in library-bug with the verified reproduction; the control (a user error, env modern)
never does. The button is off on a shared
Space unless its owner allows it."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.conftest import HAS_TF, needs_tf
from tests.test_reprex_real import FROM_TF_BUG, SAFETENSORS_BUG, SFT_NO_EOS_BUG
from tests.test_run_script import LOOP_SCRIPT, write

pytest.importorskip("gradio_client")

from gradio_client import Client  # noqa: E402

from tests.test_app_client import free_port, named, value  # noqa: E402
from wizard.frontends.app.script_run import scripts_runnable, why_not_runnable  # noqa: E402
from wizard.frontends.terminal.cli import main  # noqa: E402

USER_ERROR = LOOP_SCRIPT.replace('batch["premise"]', 'batch["sentence"]')
NO_DATASET = '''\
import sys
import torch
from transformers import AutoModelForSequenceClassification
model = AutoModelForSequenceClassification.from_pretrained(sys.argv[1], num_labels=3)
out = model(input_ids=torch.tensor([[1, 2, 3]]), labels=torch.tensor([5]))
out.loss.backward()
'''


@pytest.fixture(scope="module")
def app_url() -> Iterator[tuple[str, Any]]:
    """The app served on a free port, as on the user's own machine (scripts runnable). Its
    session folders live outside pytest's rotating temp folders (a run outlasts them)."""
    from wizard.frontends.app.ui import AppConfig, build_app, launch_kwargs

    work = Path(tempfile.mkdtemp(prefix="wizard-script-run-"))
    config = AppConfig(work_dir=work, oauth=False, run_scripts=True, run_time_limit=600)
    demo = build_app(config)
    port = free_port()
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True,
                        quiet=True, **launch_kwargs(config))
    try:
        yield f"http://127.0.0.1:{port}/", demo.wizard_api
    finally:
        demo.close()
        shutil.rmtree(work, ignore_errors=True)


def _run_in_app(url: str, api: dict[str, Any], text: str, args: str, tmp_path: Path
                ) -> tuple[Client, dict[str, Any], dict[str, Any], int]:
    client = Client(url, verbose=False, download_files=str(tmp_path))
    job = client.submit(text, args, api_name="/run_script")
    out = named(api["run_script"], job.result(timeout=600))
    result = json.loads(value(out["result"]) or "{}")
    return client, out, result, len(job.outputs())


# -- the terminal: check --script --run ------------------------------------------------------------
def test_a_script_that_forms_no_case_is_told_to_run(tmp_path, capsys):
    script = tmp_path / "train.py"
    script.write_text(NO_DATASET)
    assert main(["check", "--script", str(script), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "dataset.path" in err and f"check --script {script} --run" in err
    assert "python -m wizard run" in err
    assert main(["check", "--run", "x", "--out", str(tmp_path / "o")]) == 2
    assert "--run runs a script" in capsys.readouterr().err


@pytest.mark.skipif(HAS_TF, reason="env modern runs the PyTorch control")
def test_check_script_run_is_wizard_run_and_a_user_error_stays_one(demo_dir, tmp_path):
    script = write(tmp_path, USER_ERROR, MODEL_DIR=str(demo_dir / "model"),
                   DATA_DIR=str(demo_dir / "dataset"))
    out = tmp_path / "result.json"
    code = main(["check", "--script", str(script), "--run", "--json", str(out), "-q",
                 "--out", str(tmp_path / "o")])
    data = json.loads(out.read_text())
    assert code == 1 and data["run"]["ended"] == "raised"      # it ran, as `wizard run` does
    assert any(f["id"] == "script.run" for f in data["findings"])
    assert data["verdict"]["kind"] != "library-bug"
    assert not [f for f in data["findings"] if f["id"].startswith("report.")]


@pytest.fixture(scope="module")
def no_eos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A tiny causal LM whose tokenizer has no EOS token, and a text dataset (the trl bug of
    tests/test_reprex_real.py)."""
    from transformers import AutoTokenizer

    from tests.lm_fixtures import build

    root = tmp_path_factory.mktemp("no-eos")
    fx = build(root / "fx")
    shutil.copytree(fx["model"], root / "model")
    tok = AutoTokenizer.from_pretrained(root / "model")
    tok.eos_token = None
    tok.save_pretrained(root / "model")
    return {"model": root / "model", "text": fx["text"], "out": root / "sft-out"}


@pytest.mark.skipif(HAS_TF, reason="the trl 1.16 stack is env modern's")
def test_check_script_run_on_a_real_trl_bug_is_a_library_bug(no_eos, tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SFT_NO_EOS_BUG)
    out = tmp_path / "result.json"
    code = main(["check", "--script", str(script), "--run", str(no_eos["model"]),
                 str(no_eos["text"]), str(no_eos["out"]), "--json", str(out), "-q",
                 "--out", str(tmp_path / "o")])
    data = json.loads(out.read_text())
    assert code == 1 and data["verdict"]["kind"] == "library-bug"
    repro = next(f for f in data["findings"] if f["id"] == "report.reproduction")
    assert repro["evidence"]["verified"] and "SFTTrainer(" in repro["fix"]


# -- the app: Run the script -------------------------------------------------------------------------
def test_run_is_off_on_a_shared_space_unless_allowed(tmp_path):
    assert scripts_runnable({}) is True
    assert scripts_runnable({"SPACE_ID": "me/wizard"}) is False
    assert scripts_runnable({"SPACE_ID": "me/wizard", "WIZARD_RUN_SCRIPTS": "1"}) is True
    assert scripts_runnable({"WIZARD_RUN_SCRIPTS": "0"}) is False
    from wizard.frontends.app.ui import AppConfig, build_app, launch_kwargs

    config = AppConfig(work_dir=tmp_path / "s", oauth=False, run_scripts=False)
    demo = build_app(config)
    port = free_port()
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True,
                        quiet=True, **launch_kwargs(config))
    try:
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        out = named(demo.wizard_api["run_script"],
                    client.predict(NO_DATASET, "x", api_name="/run_script"))
    finally:
        demo.close()
    said = value(out["error:script"])
    assert said == f"⚠ {why_not_runnable()}" and "python -m wizard run train.py" in said
    assert not value(out["result"])  # nothing ran


def test_bad_input_to_run_is_one_sentence(app_url, tmp_path):
    url, api = app_url
    client = Client(url, verbose=False)
    out = named(api["run_script"], client.predict("", "", api_name="/run_script"))
    assert "Paste a training script first" in value(out["error:script"])
    out = named(api["run_script"], client.predict(NO_DATASET, "'unbalanced",
                                                  api_name="/run_script"))
    assert "arguments could not be read" in value(out["error:script"])


@pytest.mark.skipif(HAS_TF, reason="env modern runs the PyTorch control")
def test_app_run_of_a_user_error_is_never_a_library_bug(app_url, demo_dir, tmp_path):
    url, api = app_url
    text = USER_ERROR.replace("MODEL_DIR", str(demo_dir / "model")).replace(
        "DATA_DIR", str(demo_dir / "dataset"))
    client, out, result, updates = _run_in_app(url, api, text, "", tmp_path)
    assert updates > 3  # streamed
    assert result["verdict"]["kind"] != "library-bug", value(out["status"])
    assert value(out["bundle"])  # the report files of a script run are written
    assert any(f["id"] == "script.run" for f in result["findings"])
    report = named(api["report"], client.predict("github", api_name="/report"))
    assert not value(report["repro"])


@pytest.mark.skipif(HAS_TF, reason="the trl 1.16 stack is env modern's")
def test_app_run_of_the_trl_bug_ends_in_library_bug(app_url, no_eos, tmp_path):
    url, api = app_url
    args = f"{no_eos['model']} {no_eos['text']} {no_eos['out']}"
    client, out, result, _ = _run_in_app(url, api, SFT_NO_EOS_BUG, args, tmp_path)
    assert result["verdict"]["kind"] == "library-bug", value(out["status"])
    report = named(api["report"], client.predict("github", api_name="/report"))
    script = value(report["repro"])
    assert "SFTTrainer(" in script and "from_config(" in script and "sys.argv" not in script
    assert Path(value(report["repro_file"])).read_text().strip() == script.strip()


# the two real bugs of the TensorFlow stack: (script, the checkpoint file left out, its
# arguments beyond the checkpoint, what the reproduction keeps, the area's maintainer)
TF_STACK_BUGS = {
    "tf-from-safetensors-only": (SAFETENSORS_BUG, "tf_model.h5", ("dataset",),
                                 ("TFAutoModelForSequenceClassification.from_pretrained(",
                                  "holds: config.json, model.safetensors"), "@Rocketknight1"),
    "from-tf-left-on-meta": (FROM_TF_BUG, "model.safetensors", (),
                             ("from_tf=True", "tf_model.h5"), "@Cyrilvallez"),
}


@needs_tf
@pytest.mark.parametrize("bug", list(TF_STACK_BUGS))
def test_app_run_of_a_tf_stack_bug_ends_in_library_bug(app_url, demo_dir, tmp_path, bug):
    text, left_out, more, kept, maintainer = TF_STACK_BUGS[bug]
    url, api = app_url
    ckpt = tmp_path / "checkpoint"       # what the other framework's user pushes
    ckpt.mkdir()
    for f in (demo_dir / "model").iterdir():
        if f.name != left_out:
            shutil.copy(f, ckpt / f.name)
    args = " ".join([str(ckpt), *(str(demo_dir / m) for m in more)])
    client, out, result, updates = _run_in_app(url, api, text, args, tmp_path)
    assert updates > 3, (value(out["status"]), value(out["error:script"]), value(out["log"]))
    assert result["verdict"]["kind"] == "library-bug", value(out["status"])
    assert "could not be written" not in value(out["status"]) and value(out["bundle"])
    assert "library-bug" in value(out["verdict"])
    assert "Reproduce it from your script" in value(out["log"])  # the report step streamed
    report = named(api["report"], client.predict("github", api_name="/report"))
    script = value(report["repro"])
    assert all(k in script for k in kept) and "sys.argv" not in script
    assert len(script.strip().splitlines()) <= 30
    assert Path(value(report["repro_file"])).read_text().strip() == script.strip()
    issue = value(report["text"])
    assert "### Reproduction" in issue and maintainer in issue.split("### Information")[0]
    assert value(report["github_repo"]) == "huggingface/transformers"


def test_a_space_never_hands_its_own_token_to_a_pasted_script(monkeypatch, tmp_path):
    from wizard.frontends.app import script_run

    seen: dict[str, str] = {}

    class Recorder:
        def __init__(self, entry: Any, env: dict[str, str], **kwargs: Any) -> None:
            seen.update(env)
            raise RuntimeError("recorded")

    monkeypatch.setattr(script_run, "Child", Recorder)
    monkeypatch.setenv("SPACE_ID", "me/wizard")
    monkeypatch.setenv("HF_TOKEN", "hf_owner_token")
    with pytest.raises(RuntimeError, match="recorded"):
        list(script_run.run_script_events(NO_DATASET, "x", tmp_path, 10))
    assert "HF_TOKEN" not in seen and seen["HF_TOKEN_PATH"] == os.devnull
