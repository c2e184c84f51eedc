"""The environment block: every package line, versions from metadata, no framework imports
unless asked (checked in a fresh interpreter), device lines from an imported framework."""
from __future__ import annotations

import importlib.metadata as metadata
import importlib.util
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from wizard.evidence import environment as env
from wizard.evidence.environment import NOT_INSTALLED, PACKAGES, environment_block, environment_info

ROOT = Path(__file__).resolve().parents[1]
HAS_TF = importlib.util.find_spec("tensorflow") is not None
HAS_TORCH = importlib.util.find_spec("torch") is not None
HEAVY = ("torch", "tensorflow", "transformers", "datasets", "gradio", "keras", "tf_keras",
         "accelerate", "numpy")


def _run(code: str, timeout: int = 120) -> dict:
    """Run `code` in a fresh interpreter from the repo root; it prints one JSON object."""
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environ, timeout=timeout,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_block_has_a_line_for_every_package() -> None:
    info = environment_info()
    block = environment_block(info)
    lines = block.splitlines()
    for label in PACKAGES:
        if label == "torch":
            wanted = "- PyTorch version (CUDA build): "
        elif label == "tensorflow":
            wanted = "- TensorFlow version (CUDA build): "
        else:
            wanted = f"- `{label}` version: "
        matching = [ln for ln in lines if ln.startswith(wanted)]
        assert len(matching) == 1, (label, block)
        assert info["packages"][label].split(" ")[0] in matching[0]
    for start in ("- Platform: ", "- Python version: ", "- PyTorch devices: ", "- TensorFlow GPUs: ",
                  "- Environment variables: "):
        assert sum(ln.startswith(start) for ln in lines) == 1, start
    json.dumps(info)  # JSON-ready for `--json`


def test_versions_come_from_metadata_with_not_installed_fallback() -> None:
    info = environment_info()
    assert info["packages"]["transformers"] == metadata.version("transformers")
    assert info["packages"]["huggingface_hub"] == metadata.version("huggingface-hub")
    assert env._package_version(("surely-not-a-real-distribution-xyz",)) == (NOT_INSTALLED, None)
    if HAS_TF:
        assert info["packages"]["tensorflow"] != NOT_INSTALLED
        assert info["tensorflow"]["distribution"] in PACKAGES["tensorflow"][0]
        assert info["packages"]["tf-keras"] != NOT_INSTALLED
    else:
        assert info["packages"]["tensorflow"] == NOT_INSTALLED
        assert "- TensorFlow version (CUDA build): not installed" in environment_block(info)
    if HAS_TORCH:
        assert info["packages"]["torch"] == metadata.version("torch")


def test_no_framework_is_imported_and_it_is_fast() -> None:
    out = _run(
        "import json, sys, time\n"
        "from wizard.evidence.environment import environment_block, environment_info\n"
        "best = min(((time.perf_counter(), environment_block(environment_info()),"
        " time.perf_counter()) for _ in range(3)), key=lambda t: t[2] - t[0])\n"
        f"print(json.dumps({{'seconds': best[2] - best[0], 'block': best[1],"
        f" 'imported': [m for m in {HEAVY!r} if m in sys.modules]}}))")
    assert out["imported"] == []
    assert out["seconds"] < 0.5
    assert "not probed" in out["block"] or not (HAS_TORCH or HAS_TF)


@pytest.mark.skipif(not HAS_TORCH, reason="needs torch")
def test_imported_torch_is_probed_and_probing_imports_tensorflow_only_when_asked() -> None:
    """One interpreter (torch imports are slow): torch imported first, then, where TensorFlow
    is installed, probe_frameworks=True."""
    out = _run(
        "import json, sys, torch\n"
        "from wizard.evidence.environment import environment_info, environment_block\n"
        "info = environment_info()\n"
        "out = {'torch': info['torch'], 'block': environment_block(info),"
        " 'tf_imported': 'tensorflow' in sys.modules}\n"
        f"if {HAS_TF}:\n"
        "    probed = environment_info(probe_frameworks=True)\n"
        "    out.update(probed=probed, probed_block=environment_block(probed))\n"
        "print(json.dumps(out))", timeout=300)
    assert out["tf_imported"] is False
    t = out["torch"]
    assert t["probed"] is True and isinstance(t["cuda_available"], bool) and t["error"] is None
    assert t["accelerator"] in ("CUDA", "MPS", "CPU")
    assert "- PyTorch devices: not probed" not in out["block"]
    if HAS_TF:
        assert "- TensorFlow GPUs: not probed" in out["block"]
        tf_info = out["probed"]["tensorflow"]
        assert tf_info["probed"] and tf_info["error"] is None and isinstance(tf_info["gpus"], list)
        assert "- TensorFlow GPUs: " + str(len(tf_info["gpus"])) in out["probed_block"]


def _fake_torch(initialized: bool) -> types.ModuleType:
    fake = types.ModuleType("torch")
    fake.__version__ = "2.13.0+cu126"
    fake.version = types.SimpleNamespace(cuda="12.6", hip=None)
    fake.cuda = types.SimpleNamespace(
        is_available=lambda: True, device_count=lambda: 2, is_initialized=lambda: initialized,
        get_device_name=lambda i: f"NVIDIA H200 #{i}")
    fake.backends = types.SimpleNamespace(mps=types.SimpleNamespace(is_available=lambda: False))
    return fake


def test_gpu_lines_from_an_imported_cuda_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(env, "_package_version",
                        lambda names: ("2.13.0+cu126", "torch") if names == ("torch",)
                        else (NOT_INSTALLED, None))
    monkeypatch.setitem(sys.modules, "torch", _fake_torch(initialized=True))
    block = environment_block(environment_info())
    assert "- PyTorch version (CUDA build): 2.13.0+cu126 (CUDA 12.6)" in block
    assert "- PyTorch devices: CUDA, 2 GPU(s): NVIDIA H200 #0, NVIDIA H200 #1" in block
    # CUDA not initialised yet: count only, names would initialise CUDA in this process
    monkeypatch.setitem(sys.modules, "torch", _fake_torch(initialized=False))
    info = environment_info()
    assert info["torch"]["gpu_count"] == 2 and info["torch"]["gpus"] is None
    assert "2 GPU(s): names not probed" in environment_block(info)


def test_cuda_build_is_read_without_importing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "version.py").write_text(
        "from typing import Optional\n__version__ = '2.13.0+cu126'\n"
        "cuda: Optional[str] = '12.6'\nhip: Optional[str] = None\n")
    tf_dir = tmp_path / "tensorflow" / "python" / "platform"
    tf_dir.mkdir(parents=True)
    (tf_dir / "build_info.py").write_text(
        "import collections\nbuild_info = collections.OrderedDict([('cuda_version', '12.5.1'),"
        " ('cudnn_version', '9'), ('is_cuda_build', True)])\n")
    monkeypatch.setattr(env, "_package_dir", lambda module: tmp_path / module)
    assert env._torch_static_build() == {"cuda": "12.6", "hip": None}
    assert env._tf_static_build() == "12.5.1"
    (tmp_path / "torch" / "version.py").write_text("cuda: Optional[str] = None\n")
    assert env._torch_static_build()["cuda"] is None


def test_stale_import_and_env_vars_are_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    installed = environment_info()["packages"]["huggingface_hub"]
    fake = types.ModuleType("huggingface_hub")
    fake.__version__ = "0.0.1"
    monkeypatch.setitem(sys.modules, "huggingface_hub", fake)
    monkeypatch.setenv("TF_USE_LEGACY_KERAS", "1")
    monkeypatch.setenv("HF_TOKEN", "hf_" + "Qm7vKx2LpR9tZ4wYc8NbJ5hF1gD6sE3aU0")
    info = environment_info()
    assert info["imported_versions"]["huggingface_hub"] == {"installed": installed,
                                                           "imported": "0.0.1"}
    block = environment_block(info)
    assert f"`huggingface_hub` 0.0.1 is imported but {installed} is installed" in block
    assert "TF_USE_LEGACY_KERAS=1" in block and "hf_" not in block


def test_block_renders_a_partial_or_older_info_dict() -> None:
    block = environment_block({"python": "3.10.12", "packages": {"transformers": "4.40.0"}})
    assert "- Python version: 3.10.12" in block
    assert "- `transformers` version: 4.40.0" in block
    assert "- `datasets` version: unknown" in block
    assert "- PyTorch version (CUDA build): unknown" in block  # not "CPU-only build"
    assert "unknown" not in environment_block({})  # an empty dict: read this environment
