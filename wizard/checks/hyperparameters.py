"""Hyperparameter probes: make the defaults behind string shortcuts visible, and judge them."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding

ADAM_FAMILY = {"adam", "adamw", "nadam", "adamax", "lamb", "lion", "adafactor", "adamw_torch",
               "adamw_hf", "adamw_torch_fused"}
LR_WARN = 1e-4  # top of the usual fine-tuning range (course: 1e-5..1e-4)
LR_FAIL = 3e-4  # 3x above it: the loss typically stalls high or diverges


@dataclass
class OptimizerSpec:
    """The optimizer as the user wrote it: 'adam', 'Adam(learning_rate=5e-5)' or {name: ...}."""

    name: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    written: str = ""
    is_string_shortcut: bool = False


def parse_optimizer(value: Any) -> OptimizerSpec:
    if isinstance(value, dict):
        kwargs = {k: v for k, v in value.items() if k != "name"}
        return OptimizerSpec(str(value["name"]), kwargs, written=str(value))
    text = str(value).strip()
    if "(" not in text:
        return OptimizerSpec(text, {}, written=repr(text), is_string_shortcut=True)
    try:
        call = ast.parse(text, mode="eval").body
        assert isinstance(call, ast.Call)
        name = ast.unparse(call.func).split(".")[-1]
        kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords if kw.arg}
        if call.args:  # Keras optimizers take the learning rate first
            kwargs.setdefault("learning_rate", ast.literal_eval(call.args[0]))
        return OptimizerSpec(name, kwargs, written=text)
    except Exception:
        return OptimizerSpec(text.split("(")[0], {}, written=text)


def effective_learning_rate(case: Case, spec: OptimizerSpec, defaults: dict[str, Any]) -> tuple[float | None, str]:
    """The learning rate the run really uses, and where it comes from."""
    if case.training.learning_rate is not None:
        return case.training.learning_rate, "training.learning_rate"
    for key in ("learning_rate", "lr"):
        if key in spec.kwargs and isinstance(spec.kwargs[key], (int, float)):
            return float(spec.kwargs[key]), f"{spec.name}({key}=...)"
    if "learning_rate" in defaults:
        return float(defaults["learning_rate"]), f"the default of {defaults.get('class', spec.name)}"
    return None, "unknown"


def _defaults(case: Case, ctx: Context, spec: OptimizerSpec) -> dict[str, Any]:
    backend = ctx.backend
    if case.framework == "pytorch" and case.trainer == "trainer":
        return backend.trainer_defaults()
    try:
        return backend.optimizer_defaults(spec.name)
    except Exception:  # an optimizer the framework does not know: nothing to expose
        return {}


def probe_optimizer(case: Case, ctx: Context) -> list[Finding]:
    spec = parse_optimizer(case.training.optimizer)
    defaults = _defaults(case, ctx, spec)
    lr, source = effective_learning_rate(case, spec, defaults)
    findings: list[Finding] = []
    hidden = {k: v for k, v in defaults.items() if k not in spec.kwargs and k != "class"}
    if spec.is_string_shortcut and hidden:
        shown = ", ".join(f"{k}={v}" for k, v in hidden.items())
        findings.append(Finding(
            "hyperparameters.hidden-defaults", "info",
            f"optimizer={spec.written} means {defaults.get('class', spec.name)}({shown})",
            evidence={"written": spec.written, "means": defaults,
                      "loss": case.training.loss},
            explanation="A string shortcut hides every hyperparameter behind it; the values above "
                        "were read from the installed framework."))
    if lr is None:
        return findings
    family = spec.name.lower().replace("_", "") in {a.replace("_", "") for a in ADAM_FAMILY}
    evidence = {"learning_rate": lr, "source": source, "optimizer": spec.written,
                "recommended_range": [1e-5, 1e-4], "recommended_start": 5e-5}
    if family and lr > LR_WARN:
        status = "fail" if lr > LR_FAIL else "warn"
        findings.append(Finding(
            "hyperparameters.learning-rate-too-high", status,
            f"Learning rate {lr:g} is {lr / 5e-5:.0f}x the usual 5e-5 for fine-tuning",
            evidence=evidence,
            explanation=f"The run uses learning_rate={lr:g} ({source}). Pretrained transformers "
                        "are fine-tuned with Adam at 1e-5..1e-4; at 1e-3 the loss stalls high or "
                        "diverges. Restart from the pretrained checkpoint: weights already "
                        "damaged by a too-high rate do not recover.",
            fix=_lr_fix(case)))
    else:
        findings.append(Finding("hyperparameters.learning-rate-too-high", "pass",
                                f"Learning rate {lr:g} is in a usual range for {spec.name}",
                                evidence=evidence))
    return findings


def _lr_fix(case: Case) -> str:
    if case.framework == "tensorflow":
        return ("import tf_keras  # transformers' TF models run on tf-keras (Keras 2)\n\n"
                f"model = TFAutoModelForSequenceClassification.from_pretrained({case.model!r})"
                "  # restart from the checkpoint\n"
                "model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5))"
                "  # try 1e-5..1e-4")
    if case.trainer == "trainer":
        return "args = TrainingArguments(output_dir, learning_rate=5e-5)  # try 1e-5..1e-4"
    return ("optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)  # try 1e-5..1e-4\n"
            "# and reload the model from the checkpoint before training again")
