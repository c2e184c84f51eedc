"""Environment probes: is the case's framework importable here, does transformers have it, and do
the installed Hugging Face libraries sit inside the ranges their releases require of each other."""
from __future__ import annotations

import importlib.metadata
import importlib.util
import os
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
    if case.framework == "tensorflow":
        findings.extend(_keras_3(_version, os.environ.get("TF_USE_LEGACY_KERAS")))
    findings.extend(_version_conflicts())
    return findings


def _keras_3(version: Callable[[str], str | None] = _version,
             legacy: str | None = None) -> list[Finding]:
    """Keras 3 installed as `keras` beside transformers' TF models (Keras 2 models): a fault
    without tf-keras, a warning when `tf.keras` still resolves to Keras 3 (TF_USE_LEGACY_KERAS
    unset) so that objects built with it meet the models' tf-keras; [] otherwise."""
    keras, tf_keras = version("keras"), version("tf-keras")
    if _major(keras) < 3 or _major(version("transformers")) >= 5:
        return []
    evidence = {"keras": keras, "tf-keras": tf_keras, "TF_USE_LEGACY_KERAS": legacy}
    if tf_keras is None:
        return [Finding(
            "environment.keras-3", "fail", f"Keras {keras} is installed and tf-keras is not",
            evidence=evidence,
            explanation="transformers' TensorFlow models are Keras 2 models: they import "
                        "tf_keras, and refuse Keras 3 (\"Your currently installed version of "
                        "Keras is Keras 3\").",
            fix='pip install "tf-keras~=2.21"   # the tf-keras matching your TensorFlow\n'
                "export TF_USE_LEGACY_KERAS=1   # before Python starts")]
    if legacy not in ("1", "true", "True"):
        return [Finding(
            "environment.keras-3", "warn", "tf.keras is Keras 3 here, transformers' models are "
            "tf-keras", evidence=evidence,
            explanation="Without TF_USE_LEGACY_KERAS=1, tf.keras and `import keras` give Keras 3, "
                        "while transformers' TF models use tf-keras (Keras 2): layers, inputs, "
                        "optimizers or callbacks built with one fail inside the other (\"Data of "
                        "type KerasTensor is not allowed\", an optimizer identifier not "
                        "understood).",
            fix="export TF_USE_LEGACY_KERAS=1   # before Python starts (or os.environ[...] = "
                "\"1\" before importing TensorFlow)")]
    return []


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
