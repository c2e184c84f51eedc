"""The report step's probes, run only when the checks point at a library bug: a verified
standalone reproduction, a differential run in the other framework, and whether a newer
release of the failing library exists. Frameworks are imported lazily, here and in the
subprocesses these probes start."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from wizard.core.case import Case
from wizard.core.findings import Finding
from wizard.evidence.release import (
    CHECKED_PACKAGES,
    check_packages,
    configured_index_url,
)
from wizard.evidence.repro import (
    config_overrides,
    failure_from_forward,
    reproduce,
)
from wizard.settings import current as current_settings
from wizard.triage.match import triage
from wizard.triage.parse import parse_traceback

TOLERANCE = 1e-4        # max |logits_pt - logits_tf| on the same weights and batch
DIFF_TIMEOUT = 240.0    # the other framework's subprocess (loading TensorFlow is slow)
FRAMEWORK_NAMES = {"pytorch": "PyTorch", "tensorflow": "TensorFlow"}


# ---------------------------------------------------------------------------------------------
# What the model saw, shared by the probes
# ---------------------------------------------------------------------------------------------
def _features(ctx: Any) -> dict[str, np.ndarray]:
    """The batch as the plain forward received it (without labels)."""
    batch = ctx.batch
    return {k: np.asarray(v) for k, v in batch.inputs.items()
            if not (batch.labels_in_inputs and k == batch.label_key)}


def _model_config(ctx: Any) -> Any:
    model = ctx.loaded("model")
    return getattr(model, "config", None) or ctx.config


def _checkpoint_kwargs(case: Case) -> dict[str, Any]:
    kw: dict[str, Any] = {}
    if case.num_labels is not None:
        kw["num_labels"] = case.num_labels
    if case.revision:
        kw["revision"] = case.revision
    if case.trust_remote_code:
        kw["trust_remote_code"] = True
    if case.framework == "tensorflow" and (Path(case.model).expanduser() / "tf_model.h5").is_file():
        kw["use_safetensors"] = False   # transformers 4.57 cannot read PyTorch safetensors in TF
    return kw


def nonfinite_weights(ctx: Any) -> int | None:
    """How many NaN/Inf values the loaded model's weights hold (None if unknown)."""
    model = ctx.loaded("model")
    if model is None:
        return None
    try:
        if hasattr(model, "parameters"):
            import torch

            with torch.no_grad():
                return int(sum(int((~torch.isfinite(p)).sum()) for p in model.parameters()))
        return int(sum(int((~np.isfinite(np.asarray(w))).sum()) for w in model.weights))
    except Exception:
        return None


# ---------------------------------------------------------------------------------------------
# The standalone reproduction
# ---------------------------------------------------------------------------------------------
def probe_reproduction(case: Case, ctx: Any) -> list[Finding]:
    """Write the smallest standalone script that fails like the wizard's forward pass did, and
    verify it in a fresh interpreter."""

    fwd = ctx.forward
    failure = failure_from_forward(fwd, case.framework)
    if failure is None:
        return [_nothing_to_reproduce(case)]
    if failure.kind == "raise":
        known = triage(failure.traceback).primary
        if known is not None:
            return [Finding(
                "report.reproduction", "info",
                f"Not reproduced: the forward pass fails with a known error "
                f"({known.signature.title or known.signature.id})",
                evidence={"verified": False, "failure": failure.to_dict(),
                          "known_error": known.signature.id},
                explanation=f"{known.cause} A known error is not a library bug; its fix: "
                            f"{known.fix or 'see the triage findings'}")]
    config = _model_config(ctx)
    batch = ctx.batch
    budget = current_settings().repro_budget
    device = "cuda" if case.framework == "pytorch" and str(ctx.device).startswith("cuda") else "cpu"
    repro = reproduce(failure, case.framework, _features(ctx), batch.labels,
                      model_type=getattr(config, "model_type", "") or "",
                      config=config_overrides(config), checkpoint=case.model,
                      checkpoint_kwargs=_checkpoint_kwargs(case), indices=list(batch.indices),
                      device=device, budget=budget, try_tiny=not case.trust_remote_code)
    ev = repro.evidence()
    if failure.kind == "nan":
        ev["nonfinite_weights"] = nonfinite_weights(ctx)
    tries = len(repro.attempts)
    if repro.verified:
        assert repro.model is not None and repro.inputs is not None
        n = repro.inputs.batch_size
        title = (f"Reproduced in a standalone script: {repro.model.describe()}, "
                 f"{n} sample{'s' if n > 1 else ''} (verified in a fresh interpreter)")
        why = ("The weights do not matter: a tiny random model of the same architecture fails "
               "the same way, so the fault is in the code, not in the checkpoint."
               if repro.model.tiny else
               "Only the real checkpoint reproduces it: the fault depends on its weights or "
               "config, so the script needs the checkpoint.")
        return [Finding("report.reproduction", "warn", title, evidence=ev,
                        explanation=f"{why} Run it with `python repro.py`; it is written next to "
                                    "the report, ready for an issue.", fix=repro.script)]
    reason = repro.stopped or f"none of {tries} candidate script(s) failed the same way"
    return [Finding("report.reproduction", "info",
                    "The failure did not reproduce in a standalone script",
                    evidence=ev,
                    explanation=f"The wizard's forward pass failed, but {reason} "
                                "(see the attempts). Something outside one forward pass is "
                                "involved (the environment, a device, state left by earlier "
                                "code), so the report is not marked verified.",
                    fix=repro.script)]


def _nothing_to_reproduce(case: Case) -> Finding:
    pasted = parse_traceback(case.traceback) if case.traceback.strip() else None
    package = pasted.innermost_library_package if pasted else None
    where = f" (the pasted error is raised inside {package})" if package else ""
    return Finding("report.reproduction", "info",
                   "No failure in one forward pass to reproduce",
                   evidence={"verified": False, "pasted_error_package": package},
                   explanation="One batch runs through the model without an error or NaN here"
                               f"{where}, so the wizard cannot write a script that reproduces "
                               "it: add the smallest code that triggers the error to the report.")


# ---------------------------------------------------------------------------------------------
# The differential run: same weights, same batch, the other framework
# ---------------------------------------------------------------------------------------------
def other_framework_available(framework: str) -> str | None:
    """None when the other framework can run beside this transformers, else why not."""
    import importlib.metadata
    import importlib.util

    other = "tensorflow" if framework == "pytorch" else "pytorch"
    if importlib.util.find_spec("tensorflow" if other == "tensorflow" else "torch") is None:
        return f"{FRAMEWORK_NAMES[other]} is not installed"
    if importlib.util.find_spec("tensorflow") is not None and importlib.util.find_spec("tf_keras") is None:
        return "tf-keras is not installed (transformers' TensorFlow models need it)"
    try:
        major = int(importlib.metadata.version("transformers").split(".")[0])
    except Exception:
        major = 0
    if major >= 5:
        return "transformers>=5 has no TensorFlow classes"
    return None


def _side(logits: np.ndarray | None, error: str | None) -> dict[str, Any]:
    if logits is None:
        return {"status": "raised", "error": error}
    bad = np.flatnonzero(~np.isfinite(logits.reshape(len(logits), -1)).all(axis=1))
    if bad.size:
        return {"status": "nan", "rows": bad[:20].tolist()}
    return {"status": "ok"}


def probe_differential(case: Case, ctx: Any) -> list[Finding]:
    """The loaded weights in the other framework on the same batch: logits that disagree, or
    only one side failing, point at one framework's implementation in the library."""
    other = "tensorflow" if case.framework == "pytorch" else "pytorch"
    names = f"{FRAMEWORK_NAMES[case.framework]} and {FRAMEWORK_NAMES[other]}"
    why_not = other_framework_available(case.framework)
    if why_not:
        return [Finding("report.framework-mismatch", "skip",
                        f"No differential run: {why_not}",
                        evidence={"frameworks": [case.framework, other], "reason": why_not},
                        explanation=f"Comparing {names} on the same weights needs both "
                                    "frameworks beside transformers 4.x.")]
    fwd = ctx.forward
    with tempfile.TemporaryDirectory(prefix="wizard-diff-") as tmp:
        folder = Path(tmp)
        if case.framework == "pytorch":
            ctx.model.save_pretrained(folder / "model", safe_serialization=False)
        else:
            ctx.model.save_pretrained(folder / "model")
        np.savez(folder / "batch.npz", **_features(ctx))
        theirs = _run_other_side(other, folder)
    return [compare_frameworks(case.framework, fwd.logits, fwd.error, theirs)]


def compare_frameworks(framework: str, logits: Any, error: str | None,
                       theirs: dict[str, Any]) -> Finding:
    """The differential finding from this side's forward (logits or error) and the other
    side's result ({"stage": "load"|"forward"|"done", "error", "logits", "side"})."""
    other = "tensorflow" if framework == "pytorch" else "pytorch"
    mine = _side(None if logits is None else np.asarray(logits), error)
    ev: dict[str, Any] = {"frameworks": [framework, other], framework: mine,
                          other: theirs.get("side", {}), "tolerance": TOLERANCE,
                          "weights": "the loaded model saved and converted (from_pt / TF->PT)"}
    if theirs.get("stage") == "load":
        ev["reason"] = theirs.get("error")
        return Finding("report.framework-mismatch", "skip",
                       f"No differential run: the model could not be loaded in "
                       f"{FRAMEWORK_NAMES[other]}", evidence=ev,
                       explanation=f"{theirs.get('error')}")
    other_side = theirs["side"]
    a, b = FRAMEWORK_NAMES[framework], FRAMEWORK_NAMES[other]
    if mine["status"] == "ok" and other_side["status"] == "ok":
        diff = float(np.max(np.abs(np.asarray(logits, dtype=np.float64) -
                                   np.asarray(theirs["logits"], dtype=np.float64))))
        ev["max_abs_diff"] = float(f"{diff:.3g}")
        if diff <= TOLERANCE:
            ev["points_at_library"] = False
            return Finding("report.framework-mismatch", "pass",
                           f"{a} and {b} agree on the same weights (max |diff| {diff:.2g})",
                           evidence=ev)
        ev["points_at_library"] = True
        return Finding("report.framework-mismatch", "warn",
                       f"{a} and {b} disagree on the same weights and batch "
                       f"(max |diff| {diff:.3g} > {TOLERANCE:g})", evidence=ev,
                       explanation="The same weights and inputs should give the same logits in "
                                   "both implementations; a gap this large points at one of "
                                   "them in the library.")
    if mine["status"] != "ok" and other_side["status"] != "ok":
        ev["points_at_library"] = False
        return Finding("report.framework-mismatch", "info",
                       f"{a} and {b} both fail on this batch", evidence=ev,
                       explanation="Both implementations fail: the cause is shared (the "
                                   "inputs, the config or the weights), not one framework's "
                                   "code.")
    ev["points_at_library"] = True
    failing, working = (a, b) if mine["status"] != "ok" else (b, a)
    return Finding("report.framework-mismatch", "warn",
                   f"Only {failing} fails: {working} gives finite logits on the same weights "
                   "and batch", evidence=ev,
                   explanation=f"The same weights and inputs work in {working}, so the fault "
                               f"is in the {failing} implementation in the library.")


def _run_other_side(other: str, folder: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in ("USE_TF", "USE_TORCH")}
    env.update({"TF_USE_LEGACY_KERAS": "1", "TF_CPP_MIN_LOG_LEVEL": "3",
                "TOKENIZERS_PARALLELISM": "false",
                "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
    cmd = [sys.executable, "-c", "import sys; from wizard.checks.library import other_side_main; "
           "sys.exit(other_side_main(sys.argv[1:]))", other, str(folder)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=DIFF_TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        return {"stage": "load", "error": f"the {FRAMEWORK_NAMES[other]} run did not finish "
                                          f"within {DIFF_TIMEOUT:.0f} s"}
    status = folder / "status.json"
    if not status.is_file():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return {"stage": "load", "error": f"the {FRAMEWORK_NAMES[other]} run died: {tail[0][:300]}"}
    result = json.loads(status.read_text())
    if result.get("stage") == "done":
        logits = np.load(folder / "logits.npy")
        result["logits"] = logits
        result["side"] = _side(logits, None)
    elif result.get("stage") == "forward":
        result["side"] = {"status": "raised", "error": result.get("error")}
    return result


def other_side_main(argv: list[str]) -> int:
    """Subprocess: load the saved model in `framework`, run the saved batch, write the result."""
    import traceback

    framework, folder = argv[0], Path(argv[1])
    status: dict[str, Any] = {"stage": "load"}
    try:
        import warnings

        warnings.filterwarnings("ignore")
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        features = dict(np.load(folder / "batch.npz"))
        if framework == "tensorflow":
            from transformers import TFAutoModelForSequenceClassification

            model = TFAutoModelForSequenceClassification.from_pretrained(folder / "model",
                                                                         from_pt=True)
            run = lambda: np.asarray(model(features, training=False).logits)  # noqa: E731
        else:
            import torch
            from transformers import (
                AutoConfig,
                AutoModelForSequenceClassification,
                TFAutoModelForSequenceClassification,
            )
            from transformers.modeling_tf_pytorch_utils import (
                load_tf2_model_in_pytorch_model,
            )

            tf_model = TFAutoModelForSequenceClassification.from_pretrained(folder / "model")
            pt = AutoModelForSequenceClassification.from_config(
                AutoConfig.from_pretrained(folder / "model"))
            model = load_tf2_model_in_pytorch_model(pt, tf_model).eval()

            def run() -> np.ndarray:
                with torch.no_grad():
                    out = model(**{k: torch.as_tensor(v) for k, v in features.items()})
                return out.logits.float().numpy()
        status = {"stage": "forward"}
        logits = run()
        np.save(folder / "logits.npy", logits)
        status = {"stage": "done"}
    except Exception as exc:
        status.update(error=f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ''}",
                      traceback=traceback.format_exc()[-4000:])
    (folder / "status.json").write_text(json.dumps(status))
    return 0


# ---------------------------------------------------------------------------------------------
# Newer releases of the failing libraries
# ---------------------------------------------------------------------------------------------
def failing_packages(case: Case, ctx: Any) -> list[str]:
    """Libraries in the failing frames (innermost first), then transformers and the framework."""

    found: list[str] = []
    texts = []
    fwd = ctx.loaded("forward") if ctx is not None else None
    if fwd is not None and fwd.traceback:
        texts.append(fwd.traceback)
    if case.traceback.strip():
        texts.append(case.traceback)
    for text in texts:
        for frame in reversed(parse_traceback(text).frames):
            pkg = frame.package if frame.is_library else None
            if pkg in CHECKED_PACKAGES and pkg not in found:
                found.append(pkg)
    for pkg in ("transformers", "torch" if case.framework == "pytorch" else "tensorflow"):
        if pkg not in found:
            found.append(pkg)
    return found[:3]


def probe_newer_release(case: Case, ctx: Any) -> list[Finding]:
    """Whether the index has newer releases of the libraries the failure runs through."""

    infos = check_packages(failing_packages(case, ctx))
    ev: dict[str, Any] = {"packages": [i.to_dict() for i in infos],
                          "index": configured_index_url() or "pip's configured index"}
    targets = {i.package: _usable_target(i, case) for i in infos if i.newer_available}
    newer = [i for i in infos if targets.get(i.package)]
    unknown = [i for i in infos if not i.checked]
    notes = [f"transformers {i.newer[0]} exists, but transformers 5 has no TensorFlow classes"
             for i in infos if i.newer_available and i.package == "transformers"
             and case.framework == "tensorflow" and _major(i.newer[0]) >= 5]
    if newer:
        parts = [f"{i.package} {targets[i.package]} (installed {i.installed})" for i in newer]
        fixes = [f'pip install -U "{i.distribution}=={targets[i.package]}"' for i in newer]
        return [Finding("report.newer-release", "warn",
                        f"A newer release exists: {', '.join(parts)}", evidence=ev,
                        explanation="Try the newer release before opening an issue: the bug may "
                                    "be fixed already." + ("".join(f" ({n})" for n in notes)),
                        fix="\n".join(fixes + ["python -m wizard check case.yaml  # again"]))]
    if unknown:
        why = "; ".join(f"{i.package}: {i.error}" for i in unknown)
        return [Finding("report.newer-release", "info",
                        "Whether a newer release exists could not be checked", evidence=ev,
                        explanation=f"{why}. Look at the library's release notes before opening "
                                    "an issue.",
                        fix="pip index versions transformers")]
    names = ", ".join(f"{i.package} {i.installed}" for i in infos)
    return [Finding("report.newer-release", "pass",
                    f"No newer release to try: {names} {'are' if len(infos) > 1 else 'is'} the "
                    "newest usable here", evidence=ev,
                    explanation=" ".join(f"{n}." for n in notes))]


def _major(version: str) -> int:
    try:
        return int(version.split(".")[0])
    except ValueError:
        return 0


def _usable_target(info: Any, case: Case) -> str | None:
    """The newest release this case can move to (transformers 5 dropped TensorFlow)."""
    if info.package == "transformers" and case.framework == "tensorflow":
        same = info.latest_same_major
        return same if same and same in info.newer and _major(same) < 5 else None
    return info.newer[0] if info.newer else None
