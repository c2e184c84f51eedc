"""Hyperparameter probes: make the defaults behind string shortcuts visible, and judge them."""
from __future__ import annotations

from typing import Any

from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding
from wizard.core.optimizer import OptimizerSpec, parse_optimizer

ADAM_FAMILY = {"adam", "adamw", "nadam", "adamax", "lamb", "lion", "adafactor", "adamw_torch",
               "adamw_hf", "adamw_torch_fused"}
LR_START = 5e-5  # the usual start for fine-tuning a pretrained transformer with Adam
LR_WARN = 1e-4   # top of the usual fine-tuning range (course: 1e-5..1e-4)
LR_FAIL = 3e-4   # 3x above it: the loss typically stalls high or diverges
ADAPTER_LR = (2e-4, 1e-3, 3e-3)  # LoRA adapters: (start, warn above, fail above)
# Plain networks trained from scratch: (start, warn above, fail above) per optimizer family
PLAIN_LR: dict[str, tuple[float, float, float]] = {"adaptive": (1e-3, 1e-2, 1e-1),
                                                   "sgd": (1e-2, 0.3, 1.0)}
# Where each range comes from (shown with the finding)
LR_SOURCES = {
    "adapter": "LoRA (Hu et al., 2021) and QLoRA (Dettmers et al., 2023: 2e-4 for 7B-13B, 1e-4 "
               "above); peft and TRL examples use 1e-4..3e-4",
    "fine-tuning": "HF course chapter 8 (Adam 1e-5..1e-4, 5e-5 to start); BERT (Devlin et al., "
                   "2019) fine-tunes at 2e-5..5e-5",
    "adaptive": "the Keras and PyTorch Adam defaults (1e-3) and their examples",
    "sgd": "the Keras SGD default (0.01) and the PyTorch examples (0.01..0.1, momentum 0.9); "
           "above 1 plain SGD diverges on normalised inputs",
}


def is_adam_family(spec: OptimizerSpec) -> bool:
    """Adam and its kin, as the fine-tuning range is known for (transformers' AdamWeightDecay too)."""
    key = spec.name.lower().replace("_", "")
    return key in {a.replace("_", "") for a in ADAM_FAMILY} or key == "adamweightdecay"


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


def optimizer_defaults(case: Case, ctx: Context, spec: OptimizerSpec) -> dict[str, Any]:
    backend = ctx.backend
    if case.framework == "pytorch" and case.trainer == "trainer":
        return backend.trainer_defaults()
    try:
        return backend.optimizer_defaults(spec.name)
    except Exception:  # an optimizer the framework does not know: nothing to expose
        return {}


def probe_optimizer(case: Case, ctx: Context) -> list[Finding]:
    spec = parse_optimizer(case.training.optimizer)
    defaults = optimizer_defaults(case, ctx, spec)
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
    found = learning_rate_finding(lr, source, spec, case.framework, case.trainer,
                                  checkpoint=case.model, adapter=case.adapter.active)
    return findings + ([found] if found else [])


def learning_rate_finding(lr: float, source: str, spec: OptimizerSpec, framework: str,
                          trainer: str | None, *, plain: bool = False, line: int | None = None,
                          checkpoint: str | None = None,
                          evidence: dict[str, Any] | None = None,
                          adapter: bool = False) -> Finding | None:
    """`hyperparameters.learning-rate-too-high` for the rate a run uses, judged by the usual range
    of its optimizer family: fine-tuning a pretrained transformer with Adam (1e-5..1e-4), or a
    plain network trained from scratch (PLAIN_LR), or a LoRA adapter (`adapter`: ADAPTER_LR).
    None when no range applies. `line`: where a script sets it."""
    at = f" (line {line})" if line else ""
    evidence = {**(evidence or {}), "learning_rate": lr, "source": source,
                "optimizer": spec.written}
    if plain or spec.family == "sgd":  # SGD has no fine-tuning convention: its own usual range
        family = spec.family if spec.family in PLAIN_LR else None
        if family is None:
            return None
        start, warn, fail = PLAIN_LR[family]
        network = "a plain network" if plain else "a pretrained model"
        evidence.update({"network": "plain (trained from scratch)" if plain else "pretrained",
                         "family": family, "recommended_range": [start / 10, warn],
                         "recommended_start": start, "warn_above": warn, "fail_above": fail,
                         "range_source": LR_SOURCES[family]})
        usual = f"for {spec.name} on {network}"
        explanation = (f"The run uses learning_rate={lr:g} ({source}). With {spec.name}, "
                       f"{network} usually trains from about {start:g} and rarely above "
                       f"{warn:g} ({LR_SOURCES[family]}); at {lr:g} the first updates overshoot, "
                       "the loss jumps or turns NaN, and ReLU units can die. Lower it, then raise "
                       "it while the loss still falls smoothly.")
        title = f"Learning rate {lr:g}{at} is {lr / start:.0f}x the usual {start:g} for {spec.name}"
    elif adapter:
        if not is_adam_family(spec):
            return None
        start, warn, fail = ADAPTER_LR
        evidence.update({"recommended_range": [1e-4, 3e-4], "recommended_start": start,
                         "range_source": LR_SOURCES["adapter"], "adapter": True})
        usual = f"for a LoRA adapter with {spec.name}"
        explanation = (f"The run uses learning_rate={lr:g} ({source}). LoRA adapters train at "
                       "about 1e-4..3e-4, higher than a full fine-tune because only the small "
                       f"adapter matrices move; at {lr:g} the loss spikes or diverges.")
        title = f"Learning rate {lr:g}{at} is {lr / start:.0f}x the usual {start:g} for LoRA"
    else:
        if not is_adam_family(spec):
            return None
        start, warn, fail = LR_START, LR_WARN, LR_FAIL
        evidence.update({"recommended_range": [1e-5, 1e-4], "recommended_start": start,
                         "range_source": LR_SOURCES["fine-tuning"]})
        usual = f"for {spec.name}"
        explanation = (f"The run uses learning_rate={lr:g} ({source}). Pretrained transformers "
                       "are fine-tuned with Adam at 1e-5..1e-4; at 1e-3 the loss stalls high or "
                       "diverges. Restart from the pretrained checkpoint: weights already "
                       "damaged by a too-high rate do not recover.")
        title = f"Learning rate {lr:g}{at} is {lr / start:.0f}x the usual 5e-5 for fine-tuning"
    if lr <= warn:
        return Finding("hyperparameters.learning-rate-too-high", "pass",
                       f"Learning rate {lr:g}{at} is in a usual range {usual}", evidence=evidence)
    return Finding("hyperparameters.learning-rate-too-high", "fail" if lr > fail else "warn",
                   title, evidence=evidence, explanation=explanation,
                   fix=lr_fix(framework, trainer, start,
                              spec.name if plain or spec.family == "sgd" else "Adam",
                              sgd=spec.family == "sgd",
                              restart=not plain and not adapter, checkpoint=checkpoint,
                              keep_loss=plain,
                              note="  # LoRA: try 1e-4..3e-4" if adapter else None))


def lr_fix(framework: str, trainer: str | None, lr: float, name: str = "Adam", *,
           sgd: bool = False, restart: bool = True, checkpoint: str | None = None,
           note: str | None = None, keep_loss: bool = False) -> str:
    """The code that sets learning rate `lr`, as the user's framework and training loop take it.
    `restart`: a pretrained model whose weights a too-high rate damaged (reload them, AdamW);
    `keep_loss`: a plain Keras model compiled with its own loss."""
    if note is None:
        note = "  # try 1e-5..1e-4" if restart else ""
    rate = f"{lr:g}".replace("e-0", "e-").replace("e+0", "e+")
    name = "SGD" if sgd else name
    extra = ", momentum=0.9" if sgd else ""
    if framework == "tensorflow":
        where = repr(checkpoint) if checkpoint else "model_checkpoint"
        head = ("import tf_keras  # transformers' TF models run on tf-keras (Keras 2)\n\n"
                f"model = TFAutoModelForSequenceClassification.from_pretrained({where})"
                "  # restart from the checkpoint\n" if restart else "import tf_keras\n\n")
        loss = ", loss=loss" if keep_loss else ""
        return (head + f"model.compile(optimizer=tf_keras.optimizers.{name}(learning_rate={rate}"
                f"{extra}){loss}){note}")
    if trainer == "trainer":
        return f"args = TrainingArguments(output_dir, learning_rate={rate}){note}"
    torch_name = "SGD" if sgd else "AdamW" if restart else name
    code = f"optimizer = torch.optim.{torch_name}(model.parameters(), lr={rate}{extra}){note}"
    return code + ("\n# and reload the model from the checkpoint before training again"
                   if restart else "")
