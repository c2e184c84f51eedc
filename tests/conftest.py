"""Shared test setup: offline Hub, quiet frameworks, and the tiny demo fixtures built once."""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("WIZARD_INDEX_URL", "http://127.0.0.1:9/simple")  # never the real package index
os.environ.setdefault("WIZARD_GITHUB_API", "http://127.0.0.1:9")  # never the real GitHub

HAS_TF = importlib.util.find_spec("tensorflow") is not None
HAS_TORCH = importlib.util.find_spec("torch") is not None
if not HAS_TF:
    os.environ.setdefault("USE_TF", "0")

needs_tf = pytest.mark.skipif(not HAS_TF, reason="TensorFlow is tested in env 'tf'")
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="needs torch")


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The offline demo fixtures (tiny DistilBERT, WordPiece tokenizer, MNLI-shaped dataset)."""
    from wizard.demo.fixtures import build_fixtures, cache_name

    cache = os.environ.get("WIZARD_TEST_CACHE")
    base = Path(cache) if cache else tmp_path_factory.mktemp("cache")
    root = base / cache_name()  # WIZARD_CACHE=root.parent finds it
    return build_fixtures(root, frameworks=("tensorflow", "pytorch") if HAS_TF else ("pytorch",))
