"""Environment probes: is the case's framework importable here, does transformers have it, and do
the installed Hugging Face libraries sit inside the ranges their releases require of each other."""
from __future__ import annotations

import importlib.metadata
import importlib.util
from typing import Callable

from wizard.core.case import Case
from wizard.core.findings import Finding
from wizard.triage import api_history
from wizard.triage.versions import satisfies

# the libraries whose releases' requirements the release history records
_LIBRARIES = ("transformers", "datasets", "accelerate", "peft", "trl", "huggingface-hub",
              "sentence-transformers", "evaluate")


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _major(version: str | None) -> int:
    try:
        return int((version or "0").split(".")[0])
    except ValueError:
        return 0


def probe_environment(case: Case, ctx: object = None) -> list[Finding]:
    """Fatal mismatches between the case and this Python environment (no framework import)."""
    findings: list[Finding] = []
    transformers = _version("transformers")
    if case.error_only:
        pass                          # no model runs here: only the installed releases matter
    elif case.framework == "tensorflow":
        if importlib.util.find_spec("tensorflow") is None:
            findings.append(Finding(
                "environment.framework-missing", "fail", "TensorFlow is not installed here",
                evidence={"framework": "tensorflow", "transformers": transformers},
                explanation="The case says framework: tensorflow, but this environment has no "
                            "TensorFlow, so the model cannot be run.",
                fix='pip install "transformers>=4.57,<5" "tensorflow~=2.21" "tf-keras~=2.21"\n'
                    "export TF_USE_LEGACY_KERAS=1"))
        if _major(transformers) >= 5:
            findings.append(Finding(
                "environment.transformers-without-tensorflow", "fail",
                f"transformers {transformers} has no TensorFlow classes",
                evidence={"transformers": transformers, "tensorflow": _version("tensorflow")
                          or _version("tensorflow-cpu")},
                explanation="transformers 5 removed TFAutoModel... and every TF model class. "
                            "Run the TensorFlow path on transformers 4.57 with tf-keras, or move "
                            "the script to PyTorch.",
                fix='pip install "transformers>=4.57,<5" "tf-keras~=2.21"\n'
                    "export TF_USE_LEGACY_KERAS=1\n"
                    "# or: switch to AutoModelForSequenceClassification + Trainer (PyTorch)"))
    elif importlib.util.find_spec("torch") is None:
        findings.append(Finding(
            "environment.framework-missing", "fail", "PyTorch is not installed here",
            evidence={"framework": "pytorch", "transformers": transformers},
            explanation="The case says framework: pytorch, but torch cannot be imported.",
            fix="pip install torch accelerate"))
    findings.extend(_version_conflicts())
    return findings


def _version_conflicts(version: Callable[[str], str | None] = _version) -> list[Finding]:
    """A finding for each installed library release whose requirement on another installed
    library (from the release's wheel) the installed version does not meet; [] when all fit."""
    out: list[Finding] = []
    for lib in _LIBRARIES:
        have = version(lib)
        if not have:
            continue
        for dep, spec in sorted(api_history.requirements(lib, have).items()):
            found = version(dep)
            if found is None or satisfies(found, spec) is not False:
                continue
            out.append(Finding(
                "environment.package-versions", "warn",
                f"{lib} {have} requires {dep}{spec}, and {dep} {found} is installed",
                evidence={"package": lib, "version": have, "requires": f"{dep}{spec}",
                          "installed": found},
                explanation=f"The release of {lib} installed here was built against {dep}"
                            f"{spec}; outside that range its imports or calls into {dep} can "
                            "fail (the two were installed separately, with --no-deps, or by "
                            "another tool).",
                fix=f'pip install "{dep}{spec}"   # or: pip install -U {lib} {dep}, together'))
    return out
