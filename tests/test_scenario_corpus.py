"""The scenario corpus of benchmarks/scenarios/ is well formed: each setup has its script, its
case file (a valid case once the fixture folder is filled in), an answer key naming check
ids of the catalogue (or a cause marked uncatalogued) and its round; the corpus covers both
frameworks, every task and healthy setups."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from wizard.core.case import Case
from wizard.core.catalogue import CHECKS

SCENARIOS = Path(__file__).resolve().parents[1] / "benchmarks" / "scenarios"
FOLDERS = sorted(p.parent for p in SCENARIOS.glob("*/scenario.yaml"))


def key(folder: Path) -> dict:
    return yaml.safe_load((folder / "scenario.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_each_setup_has_a_script_a_valid_case_and_a_key_from_the_catalogue(folder):
    meta = key(folder)
    expect = meta["expect"]
    assert meta["framework"] in ("pytorch", "tensorflow") and meta["fault"]
    assert expect["kind"] in ("user-error", "healthy", "inconclusive", "library-bug")
    if expect["kind"] == "healthy":
        assert not expect.get("primary")
    else:
        for check in [expect["primary"], *(expect.get("also") or [])]:
            # a cause no check of the catalogue names is keyed as such (always a miss)
            assert check in CHECKS or check.startswith("uncatalogued."), \
                f"{folder.name}: {check} is not in the catalogue"
    assert isinstance(meta.get("round", 1), int) and meta.get("round", 1) >= 1
    script = (folder / "train.py").read_text(encoding="utf-8")
    compile(script, str(folder / "train.py"), "exec")
    assert "@FIXTURES@" in script
    text = (folder / "case.yaml").read_text(encoding="utf-8").replace("@FIXTURES@", "/fixtures")
    case = Case.from_dict(yaml.safe_load(text))
    assert case.framework == meta["framework"]


def test_the_corpus_covers_frameworks_tasks_styles_and_healthy_setups():
    metas = [key(f) for f in FOLDERS]
    tasks = {yaml.safe_load((f / "case.yaml").read_text(encoding="utf-8")).get(
        "task", "text-classification") for f in FOLDERS}
    assert len(metas) >= 40 and sum(m["expect"]["kind"] == "healthy" for m in metas) >= 10
    assert {m["framework"] for m in metas} == {"pytorch", "tensorflow"}
    assert {"keras", "trainer", "loop", "sft"} <= {m["style"] for m in metas}
    assert {"text-classification", "text-generation", "token-classification"} <= tasks
