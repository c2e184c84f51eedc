"""The table of known, fixed bugs: each entry's paste gets "known bug, fixed in X" on a release
before the fix (named in the paste when the bug has a first affected release), and no longer
once the paste runs the release with the fix."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from wizard.triage.known_bugs import KNOWN_BUGS
from wizard.triage.match import probe_triage, triage
from wizard.triage.versions import pastes_from_elsewhere

SAMPLES = yaml.safe_load((Path(__file__).parent / "data" / "known_bug_samples.yaml").read_text())


def _known(text: str) -> str | None:
    with pastes_from_elsewhere():
        t = triage(text)
    return t.bug.known.url if t.bug is not None and t.bug.known is not None else None


@pytest.mark.parametrize("sample", SAMPLES, ids=[s["url"].rsplit("/", 3)[-3] + "-" +
                                                 s["url"].rsplit("/", 1)[-1] for s in SAMPLES])
def test_a_known_bug_on_an_affected_release_and_not_after_the_fix(sample: dict) -> None:
    affected = sample["affected"]
    text = sample["sample"] + (f"\n{sample['package']}=={affected}" if affected else "")
    assert _known(text) == sample["url"]
    name = "[-_]".join(re.escape(part) for part in re.split(r"[-_]", sample["package"]))
    fixed = re.sub(rf"(?i)\b({name}\s*(?:version)?\s*(?:==|=|:|\s)\s*v?)\d[\w.]*",
                   rf"\g<1>{sample['fixed_in']}", sample["sample"])
    assert _known(fixed + f"\n{sample['package']}=={sample['fixed_in']}") != sample["url"]


def test_every_entry_has_a_sample_or_came_from_the_corpus() -> None:
    urls = {s["url"] for s in SAMPLES}
    from_samples = [b for b in KNOWN_BUGS if b.url in urls]
    assert len(from_samples) == len(SAMPLES)


def test_the_answer_names_the_release_with_the_fix_and_the_thread() -> None:
    sample = next(s for s in SAMPLES if s["package"] == "deepspeed")

    class Case:
        traceback = sample["sample"]
    with pastes_from_elsewhere():
        finding = probe_triage(Case())[0]
    assert finding.id == "triage.possible-library-bug"
    assert f'pip install -U "deepspeed>={sample["fixed_in"]}"' in finding.fix
    assert sample["url"] in finding.explanation


def test_datasets_2_3_refusing_the_ignore_index_in_a_classlabel_column() -> None:
    paste = ('  File "/env/site-packages/datasets/features/features.py", line 1018, in '
             "cast_storage\n    raise ValueError(f\"Class label {min_max['min']} less than -1\")\n"
             "ValueError: Class label -100 less than -1")
    url = "https://github.com/microsoft/unilm/issues/760"
    assert _known(paste) == url     # the message exists in datasets 2.3 only
    assert _known(paste + "\ndatasets==2.4.0") != url
    # control: a label past the names list is the user's data, not this bug
    assert _known("ValueError: Class label 7 greater than configured num_classes 3") != url
