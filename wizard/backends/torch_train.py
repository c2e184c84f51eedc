"""PyTorch training probes: train steps on one batch, per-layer gradients, pooled embeddings.

Every function leaves the model as it found it: weights, buffers, requires_grad flags, .grad
tensors and train/eval mode are restored (`preserved`), and the global RNG is forked.
"""
from __future__ import annotations

import contextlib
import inspect
import math
import time
from typing import Any, Callable, Iterator

import numpy as np

from wizard.backends.train_types import (
    HIST_SAMPLE,
    OVERFIT_EARLY_STOP,
    OVERFIT_TIME_LIMIT,
    GradientSnapshot,
    OptimizerChoice,
    Target,
    TrainRun,
    finish_layer,
    layer_key,
)
from wizard.errors import one_line
from wizard.frameworks import import_torch

OPTIMIZER_ARGS = ("betas", "eps", "weight_decay", "momentum", "nesterov", "amsgrad", "alpha",
                  "dampening", "lr_decay", "rho")


# -- keeping the model as it was ----------------------------------------------------------------
@contextlib.contextmanager
def preserved(model: Any) -> Iterator[None]:
    """Restore weights, buffers, requires_grad, .grad and the train/eval mode afterwards."""
    torch = import_torch()
    state = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
    params = list(model.parameters())
    flags = [(p, p.requires_grad, p.grad) for p in params]
    mode = model.training
    for p in params:
        p.grad = None  # our backward passes must not add into the user's gradients
    devices = sorted({p.device.index for p in params if p.device.type == "cuda"})
    try:
        with torch.random.fork_rng(devices=devices):
            torch.manual_seed(0)
            yield
    finally:
        with torch.no_grad():
            model.load_state_dict(state)
        for p, requires, grad in flags:
            p.requires_grad_(requires)
            p.grad = grad
        model.train(mode)


# -- inputs, outputs and the loss ---------------------------------------------------------------
def model_device(model: Any) -> Any:
    torch = import_torch()
    for p in model.parameters():
        return p.device
    return torch.device("cpu")


def _tensors(arrays: dict[str, np.ndarray], device: Any) -> dict[str, Any]:
    torch = import_torch()
    return {k: torch.as_tensor(np.asarray(v)).to(device) for k, v in arrays.items()}


def _features(target: Target, batch: Any = None) -> tuple[dict[str, Any], Any]:
    """(inputs without the labels, labels) as tensors on the model's device."""
    torch = import_torch()
    batch = batch if batch is not None else target.batch
    device = model_device(target.model)
    inputs = {k: v for k, v in batch.inputs.items()
              if not (batch.labels_in_inputs and k == batch.label_key)}
    labels = None
    if batch.labels is not None:
        labels = torch.as_tensor(np.asarray(batch.labels)).to(device)
    return _tensors(inputs, device), labels


def call_model(model: Any, inputs: dict[str, Any], **kwargs: Any) -> Any:
    """model(x) for plain (x, y) batches (stored under the key "x"), model(**inputs) else."""
    if set(inputs) == {"x"} and not kwargs:
        return model(inputs["x"])
    return model(**inputs, **kwargs)


def output_tensor(out: Any) -> Any:
    """The logits (or whatever the network outputs) from a transformers output or a tensor."""
    if hasattr(out, "logits"):
        return out.logits
    if isinstance(out, dict):
        return out.get("logits", next(iter(out.values())))
    if isinstance(out, (tuple, list)):
        return out[0]
    return out


def resolve_loss(target: Target, out: Any, labels: Any) -> tuple[Callable[[Any, Any], Any], str]:
    """The loss function the run uses: the user's, else a default for the output and labels."""
    torch = import_torch()
    loss = target.loss
    if isinstance(loss, str):
        fn = getattr(torch.nn.functional, loss, None)
        if fn is None:
            raise ValueError(f"torch.nn.functional has no loss {loss!r}; pass a loss function.")
        return fn, f"torch.nn.functional.{loss}"
    if loss is not None:
        return loss, _loss_name(loss)
    if labels is not None and labels.dtype in (torch.int64, torch.int32, torch.int16, torch.uint8):
        if out.dim() == 2 and out.shape[1] > 1:
            return (lambda o, y: torch.nn.functional.cross_entropy(o, y.long())), "CrossEntropyLoss (assumed)"
        return (lambda o, y: torch.nn.functional.binary_cross_entropy_with_logits(
            o.reshape(y.shape).float(), y.float())), "BCEWithLogitsLoss (assumed)"
    return (lambda o, y: torch.nn.functional.mse_loss(o.reshape(y.shape).float(), y.float())), \
        "MSELoss (assumed)"


def _loss_name(loss: Any) -> str:
    return type(loss).__name__ if not inspect.isfunction(loss) else getattr(loss, "__name__", "loss")


def compute_loss(target: Target, model: Any, batch: Any = None) -> Any:
    """The training loss of one forward pass, wired like the user's run."""
    inputs, labels = _features(target, batch)
    if target.transformers and target.loss is None:
        out = call_model(model, inputs, **({"labels": labels} if labels is not None else {}))
        if getattr(out, "loss", None) is None:
            raise ValueError("the model returned no loss: pass labels in the batch or a loss=")
        return out.loss
    out = output_tensor(call_model(model, inputs))
    fn, _ = resolve_loss(target, out, labels)
    return fn(out, labels)


def eval_loss(target: Target, model: Any) -> float:
    torch = import_torch()
    mode = model.training
    model.eval()
    try:
        with torch.no_grad():
            return float(compute_loss(target, model).float())
    finally:
        model.train(mode)


# -- optimizers -----------------------------------------------------------------------------------
def _unwrap(opt: Any) -> Any:
    """accelerate's AcceleratedOptimizer (Trainer.optimizer) wraps the real one."""
    inner = getattr(opt, "optimizer", None)
    return inner if inner is not None and hasattr(inner, "param_groups") else opt


def choice_from_instance(opt: Any) -> OptimizerChoice:
    opt = _unwrap(opt)
    group = opt.param_groups[0] if getattr(opt, "param_groups", None) else {}
    lr = group.get("lr")
    lr = float(lr) if lr is not None else None
    kwargs = {k: _plain(group[k]) for k in OPTIMIZER_ARGS if k in group}
    return OptimizerChoice(type(opt).__name__, kwargs, lr, "your optimizer object",
                           instance=opt)


def build_optimizer(choice: OptimizerChoice, params: list[Any]) -> Any:
    torch = import_torch()
    if choice.instance is not None:
        cls = type(_unwrap(choice.instance))
        group = dict(_unwrap(choice.instance).param_groups[0])
        accepted = inspect.signature(cls).parameters
        kwargs = {k: v for k, v in group.items() if k in accepted and k != "params"}
        return cls(params, **kwargs)
    classes = {n.lower(): getattr(torch.optim, n) for n in dir(torch.optim)
               if isinstance(getattr(torch.optim, n), type)}
    cls = classes.get(choice.name.lower().replace("_", ""), classes.get(choice.name.lower()))
    if cls is None:
        raise ValueError(f"torch.optim has no optimizer {choice.name!r}")
    accepted = inspect.signature(cls).parameters
    kwargs = {k: v for k, v in choice.kwargs.items() if k in accepted}
    if choice.learning_rate is not None:
        kwargs["lr"] = choice.learning_rate
    return cls(params, **kwargs)


# -- training on one batch --------------------------------------------------------------------------
def parameter_counts(model: Any) -> tuple[int, int]:
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return trainable, sum(p.numel() for p in model.parameters())


def train_run(target: Target, choice: OptimizerChoice, steps: int, label: str,
              time_limit: float = OVERFIT_TIME_LIMIT) -> TrainRun:
    """`steps` optimizer steps on the same batch; the model is restored afterwards."""
    torch = import_torch()
    model = target.model
    run = TrainRun(label, choice.describe(), choice.learning_rate)
    start = time.perf_counter()
    with preserved(model):
        params = [p for p in model.parameters() if p.requires_grad]
        run.trainable_params = sum(p.numel() for p in params)
        try:
            run.initial = eval_loss(target, model)
            opt = build_optimizer(choice, params) if params else None
            model.train()
            for step in range(steps):
                loss = compute_loss(target, model)
                value = float(loss.detach().float())
                run.losses.append(value)
                if not math.isfinite(value):
                    run.stopped = f"non-finite loss at step {step}"
                    break
                if opt is None:
                    if step >= 4:
                        run.stopped = "no trainable parameters: nothing to update"
                        break
                    continue
                opt.zero_grad(set_to_none=True)
                loss.backward()
                if choice.clip_norm:
                    torch.nn.utils.clip_grad_norm_(params, choice.clip_norm)
                opt.step()
                if value < OVERFIT_EARLY_STOP * run.initial:
                    run.stopped = f"loss below {OVERFIT_EARLY_STOP:.0%} of the start"
                    break
                if time.perf_counter() - start > time_limit:
                    run.stopped = f"time limit ({time_limit:.0f} s)"
                    break
            run.final = eval_loss(target, model)
            if params:
                run.final_snapshot = gradient_snapshot(target, step=len(run.losses),
                                                       keep_state=False)
        except Exception as exc:  # the framework's words are the evidence
            run.error = f"{type(exc).__name__}: {one_line(exc)}"
    run.seconds = time.perf_counter() - start
    return run


# -- gradients -----------------------------------------------------------------------------------
def _module_order(model: Any, run: Callable[[], Any]) -> tuple[dict[str, int], Any]:
    """The order in which modules owning parameters are first called during `run()`."""
    order: dict[str, int] = {}
    handles = []
    for name, module in model.named_modules():
        if any(True for _ in module.parameters(recurse=False)):
            def hook(mod: Any, args: Any, name: str = name) -> None:
                order.setdefault(name, len(order))
            handles.append(module.register_forward_pre_hook(hook))
    try:
        result = run()
    finally:
        for h in handles:
            h.remove()
    return order, result


def _embedding_params(model: Any) -> set[str]:
    torch = import_torch()
    out = set()
    for mname, module in model.named_modules():
        if isinstance(module, (torch.nn.Embedding, torch.nn.EmbeddingBag)):
            for pname, _ in module.named_parameters(recurse=False):
                out.add(f"{mname}.{pname}" if mname else pname)
    return out


def gradient_snapshot(target: Target, step: int | None = None, keep_state: bool = True
                      ) -> GradientSnapshot:
    """Per-layer gradient statistics after one backward pass on the batch (inference mode:
    no dropout, so the figures are reproducible)."""
    model = target.model
    ctx = preserved(model) if keep_state else contextlib.nullcontext()
    with ctx:
        mode = model.training
        model.eval()
        for p in model.parameters():
            p.grad = None
        try:
            order, loss = _module_order(model, lambda: compute_loss(target, model))
            value = float(loss.detach().float())
            if loss.requires_grad:  # else: frozen, or a loss detached from the weights
                loss.backward()
            snap = snapshot_from_grads(model, order, sample=True)
        finally:
            model.train(mode)
        snap.loss = value
        snap.step = step
        if not keep_state:
            for p in model.parameters():
                p.grad = None
    return snap


def snapshot_from_grads(model: Any, order: dict[str, int] | None = None,
                        sample: bool = False) -> GradientSnapshot:
    """Group the current .grad tensors by layer (input → output) into a GradientSnapshot."""
    torch = import_torch()
    named = list(model.named_parameters())
    embed = _embedding_params(model)
    rank = {}
    for i, (name, _) in enumerate(named):
        module = name.rsplit(".", 1)[0] if "." in name else ""
        rank[name] = (order.get(module, len(order) + i) if order else i, i)
    groups: dict[str, list[tuple[str, Any]]] = {}
    first_rank: dict[str, tuple[int, int]] = {}
    no_grad, trainable, frozen = [], 0, 0
    for name, p in sorted(named, key=lambda kv: rank[kv[0]]):
        if not p.requires_grad:
            frozen += p.numel()
            continue
        trainable += p.numel()
        if p.grad is None:
            no_grad.append(name)
            continue
        key = layer_key(name)
        groups.setdefault(key, []).append((name, p))
        first_rank.setdefault(key, rank[name])
    gen = torch.Generator().manual_seed(0)
    layers = []
    for key in sorted(groups, key=lambda k: first_rank[k]):
        members = groups[key]
        kind = "embedding" if any(n in embed for n, _ in members) or "embed" in key.lower() \
            else "layer"
        stats = []
        units = dead = 0
        samples = []
        count = 0
        for name, p in members:
            g = p.grad.detach()
            if g.is_sparse:
                g = g.coalesce().to_dense()
            g = g.float()
            count += g.numel()
            a = g.abs()
            stats.append(torch.stack([a.sum(), (g * g).sum(), a.max() if g.numel() else a.sum(),
                                      (g == 0).sum().float(), (~torch.isfinite(g)).sum().float()]))
            if g.dim() == 2 and kind == "layer":
                units += g.shape[0]
                dead += int((g == 0).all(dim=1).sum())
            if sample:
                flat = a.flatten()
                if flat.numel() > HIST_SAMPLE * 4:
                    idx = torch.randperm(flat.numel(), generator=gen)[:HIST_SAMPLE * 4]
                    flat = flat[idx.to(flat.device)]
                samples.append(flat)
        s = torch.stack(stats).sum(0).double()
        s[2] = torch.stack(stats)[:, 2].max().double()
        sum_abs, sum_sq, max_abs, zeros, nonfinite = s.tolist()
        smp = None
        if samples:
            cat = torch.cat(samples)
            cat = cat[cat > 0]
            if cat.numel() > HIST_SAMPLE:
                cat = cat[torch.randperm(cat.numel(), generator=gen)[:HIST_SAMPLE].to(cat.device)]
            smp = cat.cpu().numpy()
        layers.append(finish_layer(key, kind, count, sum_abs, sum_sq, max_abs, int(zeros),
                                   int(nonfinite), units, dead, smp))
    return GradientSnapshot(layers, no_grad=no_grad, trainable_params=trainable,
                            frozen_params=frozen)


# -- embeddings, outputs --------------------------------------------------------------------------
def pooled_embeddings(target: Target, batches: list[Any]) -> tuple[dict[str, np.ndarray], Any] | None:
    """First-token and mask-mean pooled last hidden states (transformers), or the input of the
    last Linear layer (plain networks), for each batch."""
    torch = import_torch()
    model = target.model
    pooled: dict[str, list[np.ndarray]] = {}
    labels: list[np.ndarray] = []
    mode = model.training
    model.eval()
    try:
        with torch.no_grad():
            for batch in batches:
                inputs, _ = _features(target, batch)
                got = _hidden(model, inputs, target.transformers)
                if got is None:
                    return None
                for k, v in got.items():
                    pooled.setdefault(k, []).append(v)
                if batch.labels is not None:
                    labels.append(np.asarray(batch.labels))
    finally:
        model.train(mode)
    out = {k: np.concatenate(v) for k, v in pooled.items()}
    lab = np.concatenate(labels) if labels and sum(map(len, labels)) == len(next(iter(out.values()))) else None
    return out, lab


def _hidden(model: Any, inputs: dict[str, Any], transformers: bool) -> dict[str, np.ndarray] | None:
    torch = import_torch()
    if transformers:
        out = call_model(model, inputs, output_hidden_states=True)
        states = getattr(out, "hidden_states", None) or getattr(out, "encoder_hidden_states", None)
        if not states:
            return None
        h = states[-1].float()
        mask = inputs.get("attention_mask")
        m = (mask.float() if mask is not None else torch.ones(h.shape[:2], device=h.device))[..., None]
        mean = (h * m).sum(1) / m.sum(1).clamp(min=1)
        return {"first-token": h[:, 0].cpu().numpy(), "mean": mean.cpu().numpy()}
    last = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    if not last:
        return None
    seen: dict[str, Any] = {}
    handle = last[-1].register_forward_hook(lambda mod, args, out: seen.setdefault("x", args[0]))
    try:
        call_model(model, inputs)
    finally:
        handle.remove()
    x = seen.get("x")
    return None if x is None else {"penultimate": x.float().reshape(len(x), -1).cpu().numpy()}


def loss_expectation(target: Target) -> tuple[str, str] | None:
    """What the user's loss expects: 'logits', 'probabilities' or 'log-probabilities'."""
    torch = import_torch()
    loss = target.loss
    if loss is None:
        return None  # transformers computes cross-entropy from its logits itself
    nn, F = torch.nn, torch.nn.functional
    table = [((nn.CrossEntropyLoss, nn.BCEWithLogitsLoss, nn.MultiLabelSoftMarginLoss), "logits"),
             ((nn.NLLLoss,), "log-probabilities"), ((nn.BCELoss,), "probabilities")]
    for classes, expects in table:
        if isinstance(loss, classes):
            return expects, type(loss).__name__
    funcs = {F.cross_entropy: "logits", F.binary_cross_entropy_with_logits: "logits",
             F.nll_loss: "log-probabilities", F.binary_cross_entropy: "probabilities"}
    fn = getattr(F, loss, None) if isinstance(loss, str) else loss
    if fn in funcs:
        return funcs[fn], getattr(fn, "__name__", str(loss))
    return None


ACTIVATIONS = {"Softmax": "softmax", "Sigmoid": "sigmoid", "LogSoftmax": "log_softmax"}


def raw_outputs(target: Target) -> tuple[np.ndarray, str | None]:
    """The model's output on the batch and its final activation ('linear' for transformers
    heads, which return logits; the last module called for plain networks; None unknown)."""
    torch = import_torch()
    model = target.model
    mode = model.training
    model.eval()
    last: list[Any] = []
    handles = [m.register_forward_hook(lambda mod, a, o: last.append(mod))
               for m in model.modules() if not any(True for _ in m.children())]
    try:
        with torch.no_grad():
            inputs, _ = _features(target)
            out = output_tensor(call_model(model, inputs)).float().cpu().numpy()
    finally:
        for h in handles:
            h.remove()
        model.train(mode)
    if target.transformers:
        return out, "linear"
    name = type(last[-1]).__name__ if last else ""
    return out, ACTIVATIONS.get(name, "linear" if name == "Linear" else None)


def _plain(v: Any) -> Any:
    if isinstance(v, tuple):
        return tuple(float(x) for x in v)
    try:
        return float(v) if not isinstance(v, bool) else v
    except (TypeError, ValueError):
        return str(v)

