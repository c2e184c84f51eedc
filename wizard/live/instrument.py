"""Run a user's training script with the wizard attached, the way `python -m cProfile` does.

Nothing in the script is edited. While it runs, hooks that are installed when the frameworks
are imported (never importing one themselves) watch the places where training happens:
tf_keras / keras `Model.fit`, transformers `Trainer.train` and `PreTrainedModel.__call__`,
`torch.optim` optimizer steps and `Tensor.backward`. At the first training batch the real model
and that batch are handed to `on_first_batch` (the probes run there, before any weight update);
afterwards each step's loss is recorded, and the run is stopped after `steps` steps or at the
first non-finite loss. Everything is undone when the run ends.
"""
from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import inspect
import math
import os
import runpy
import sys
import time
import traceback
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from wizard.context import Batch

LABEL_KEYS = ("labels", "label", "label_ids", "start_positions")
_ACTIVE: "Instrument | None" = None
_HERE = str(Path(__file__).resolve())


class StopRun(BaseException):
    """Raised inside the script to end the run early (steps reached, non-finite loss)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class Capture:
    """What was seen while the script ran."""

    script: str
    argv: list[str]
    entry: str | None = None              # keras.fit | trainer.train | torch.forward
    framework: str | None = None
    model: Any = None
    batch: Batch | None = None
    batch_where: str = ""
    tokenizer: Any = None
    tokenizer_call: dict[str, Any] | None = None
    trainer: Any = None
    loads: list[dict[str, Any]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    losses: list[float] = field(default_factory=list)
    loss_note: str = ""
    steps: int = 0
    nonfinite: dict[str, Any] | None = None
    ended: str = "finished"               # finished | stopped | nonfinite | raised | exited | interrupted
    exit_code: int | None = None
    error: BaseException | None = None
    traceback: str = ""
    seconds: float = 0.0
    probes: Any = None                    # whatever on_first_batch returned
    optimizers: list[Any] = field(default_factory=list)  # weak references
    last_batch: dict[str, Any] | None = None

    def optimizer_for(self, model: Any) -> Any:
        """The live torch optimizer that holds this model's parameters."""
        try:
            ids = {id(p) for p in model.parameters()}
        except Exception:
            return None
        for ref in reversed(self.optimizers):
            opt = ref()
            if opt is None:
                continue
            for group in getattr(opt, "param_groups", []):
                if any(id(p) in ids for p in group.get("params", [])):
                    return opt
        return None


# -- import hooks ------------------------------------------------------------------------------
class _PostImport(importlib.abc.MetaPathFinder):
    """Calls `callbacks[name](module)` right after the module `name` has been executed."""

    def __init__(self, callbacks: dict[str, Callable[[Any], None]]):
        self.callbacks = callbacks
        self._busy: set[str] = set()

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in self.callbacks or fullname in self._busy:
            return None
        self._busy.add(fullname)
        try:
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
            else:
                return None
        finally:
            self._busy.discard(fullname)
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _Loader(spec.loader, self.callbacks[fullname])
        return spec


class _Loader(importlib.abc.Loader):
    def __init__(self, loader: Any, callback: Callable[[Any], None]):
        self.loader = loader
        self.callback = callback

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        module.__loader__ = self.loader
        if getattr(module, "__spec__", None) is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        try:
            self.callback(module)
        except Exception:  # a hook must never break the user's import
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)


# -- the instrument ----------------------------------------------------------------------------
class Instrument:
    """Context manager: installs the hooks for one run and removes them afterwards."""

    def __init__(self, capture: Capture, on_first_batch: Callable[[Capture], Any] | None = None,
                 steps: int | None = None, stop_on_nonfinite: bool = True):
        self.capture = capture
        self.on_first_batch = on_first_batch
        self.max_steps = steps
        self.stop_on_nonfinite = stop_on_nonfinite
        self.busy = False
        self._patches: list[tuple[Any, str, Any, bool]] = []
        self._handles: list[Any] = []
        self._primary_optimizer: Any = None
        self._keras_prev: tuple[int, float] | None = None
        self._finder = _PostImport({
            "tf_keras": self._patch_tf_keras, "keras": self._patch_keras,
            "transformers.modeling_utils": self._patch_modeling,
            "transformers.trainer": self._patch_trainer,
            "transformers.tokenization_utils_base": self._patch_tokenizer,
            "datasets": self._patch_datasets, "torch": self._patch_torch})

    def __enter__(self) -> "Instrument":
        global _ACTIVE
        _ACTIVE = self
        sys.meta_path.insert(0, self._finder)
        for name, callback in self._finder.callbacks.items():
            if name in sys.modules:  # already imported (a notebook, a test): patch it now
                try:
                    callback(sys.modules[name])
                except Exception:
                    pass
        return self

    def __exit__(self, *exc: Any) -> None:
        global _ACTIVE
        if self._finder in sys.meta_path:
            sys.meta_path.remove(self._finder)
        for owner, name, original, own in reversed(self._patches):
            if own:
                setattr(owner, name, original)
            else:
                try:
                    delattr(owner, name)
                except AttributeError:
                    pass
        for handle in self._handles:
            try:
                handle.remove()
            except Exception:
                pass
        self._patches.clear()
        self._handles.clear()
        _ACTIVE = None

    def _patch(self, owner: Any, name: str, make: Callable[[Any], Any]) -> None:
        if any(o is owner and n == name for o, n, _, _ in self._patches):
            return
        own = name in vars(owner)
        original = vars(owner)[name] if own else getattr(owner, name)
        self._patches.append((owner, name, original, own))
        setattr(owner, name, make(getattr(owner, name)))

    # -- probes ------------------------------------------------------------------------------
    def _first_batch(self) -> None:
        if self.on_first_batch is None:
            return
        self.busy = True
        state = _save_rng()
        try:
            self.capture.probes = self.on_first_batch(self.capture)
        except Exception as exc:  # the probes must never break the user's run
            self.capture.probes = exc
        finally:
            _restore_rng(state)
            self.busy = False

    def _loss(self, value: float, where: str) -> None:
        c = self.capture
        c.losses.append(value)
        if not math.isfinite(value) and c.nonfinite is None:
            c.nonfinite = {"step": c.steps, "loss": value, "where": where}
            if c.framework == "pytorch" and c.model is not None:
                c.nonfinite.update(_torch_state(c.model, c.last_batch))
            if self.stop_on_nonfinite:
                raise StopRun("nonfinite")

    def _step_done(self) -> None:
        self.capture.steps += 1
        if self.max_steps is not None and self.capture.steps >= self.max_steps:
            raise StopRun("steps")

    # -- Keras ------------------------------------------------------------------------------
    def _patch_tf_keras(self, module: Any) -> None:
        model_cls = getattr(module, "Model", None)
        if model_cls is not None:
            self._patch(model_cls, "fit", lambda orig: self._fit_wrapper(orig, "tf_keras"))

    def _patch_keras(self, module: Any) -> None:
        model_cls = getattr(module, "Model", None)
        if model_cls is not None and hasattr(model_cls, "fit"):
            self._patch(model_cls, "fit", lambda orig: self._fit_wrapper(orig, "keras"))

    def _fit_wrapper(self, orig: Callable, keras_module: str) -> Callable:
        inst = self

        @functools.wraps(orig)
        def fit(model: Any, *args: Any, **kwargs: Any) -> Any:
            if _ACTIVE is not inst or inst.busy:
                return orig(model, *args, **kwargs)
            try:
                bound = inspect.signature(orig).bind(model, *args, **kwargs)
            except TypeError:
                return orig(model, *args, **kwargs)
            a = bound.arguments
            c = inst.capture
            if c.batch is None:
                c.entry, c.framework, c.model = "keras.fit", "tensorflow", model
                c.settings.update(_keras_settings(model, a))
                element, where = _first_keras_element(a.get("x"), a.get("y"), a.get("batch_size"))
                if element is not None:
                    c.batch, c.batch_where = _tf_batch(element), where
                    inst._first_batch()
            callbacks = list(a.get("callbacks") or [])
            callbacks.append(_keras_callback(keras_module, inst))
            a["callbacks"] = callbacks
            return orig(*bound.args, **bound.kwargs)

        return fit

    def on_keras_batch_end(self, batch: int, logs: dict[str, Any] | None) -> None:
        if self.busy or not logs or "loss" not in logs:
            return
        mean = float(np.asarray(logs["loss"]))
        prev = self._keras_prev
        if batch == 0 or prev is None or prev[0] != batch - 1:
            value = mean
        else:  # Keras shows the epoch's running mean: recover this step's own loss
            value = (batch + 1) * mean - batch * prev[1]
        self._keras_prev = (batch, mean)
        self.capture.loss_note = ("per step, recovered from Keras's running mean (exact for "
                                  "equal batch sizes)")
        self._loss(value if math.isfinite(mean) else mean, f"epoch batch {batch}")
        self._step_done()

    # -- transformers ---------------------------------------------------------------------------
    def _patch_modeling(self, module: Any) -> None:
        cls = getattr(module, "PreTrainedModel", None)
        if cls is None:
            return
        import torch

        inst = self
        base_call = torch.nn.Module.__call__

        def make(_orig: Any) -> Callable:
            def __call__(model: Any, *args: Any, **kwargs: Any) -> Any:
                # the first call with gradients on is a training step, even in eval mode
                if _ACTIVE is inst and not inst.busy and torch.is_grad_enabled():
                    c = inst.capture
                    if c.batch is None:
                        inst._torch_first_forward(model, args, kwargs)
                    elif model is c.model:
                        c.last_batch = kwargs
                return base_call(model, *args, **kwargs)
            return __call__

        self._patch(cls, "__call__", make)

    def _torch_first_forward(self, model: Any, args: tuple, kwargs: dict) -> None:
        c = self.capture
        c.framework, c.model, c.last_batch = "pytorch", model, kwargs
        c.entry = "trainer.train" if c.trainer is not None else "torch.forward"
        c.batch = _torch_batch(model, args, kwargs)
        c.batch_where = ("the first batch Trainer passed to the model" if c.trainer is not None
                         else "the first call of the model in training mode")
        c.settings.update(_torch_settings(c, model))
        was_training = bool(model.training)
        c.settings["model_training_mode"] = was_training
        self._first_batch()
        try:
            model.train(was_training)  # the backend's forward switched it to eval
        except Exception:
            pass

    def _patch_trainer(self, module: Any) -> None:
        cls = getattr(module, "Trainer", None)
        if cls is None:
            return
        inst = self

        def make(orig: Callable) -> Callable:
            @functools.wraps(orig)
            def train(trainer: Any, *args: Any, **kwargs: Any) -> Any:
                if _ACTIVE is inst and inst.capture.trainer is None:
                    inst.capture.trainer = trainer
                    if inst.capture.tokenizer is None:
                        inst.capture.tokenizer = getattr(trainer, "processing_class", None) or \
                            getattr(trainer, "tokenizer", None)
                return orig(trainer, *args, **kwargs)
            return train

        self._patch(cls, "train", make)

    def _patch_tokenizer(self, module: Any) -> None:
        cls = getattr(module, "PreTrainedTokenizerBase", None)
        if cls is None:
            return
        inst = self

        def make(orig: Callable) -> Callable:
            @functools.wraps(orig)
            def __call__(tok: Any, *args: Any, **kwargs: Any) -> Any:
                c = inst.capture
                if _ACTIVE is inst and not inst.busy and c.tokenizer_call is None:
                    c.tokenizer = tok  # the tokenizer the script uses, over one it only made
                    texts = [a for a in (args[:2] or [kwargs.get("text"), kwargs.get("text_pair")])]
                    c.tokenizer_call = {
                        "first_texts": [_first_text(t) for t in texts if t is not None],
                        **{k: kwargs[k] for k in ("truncation", "padding", "max_length")
                           if k in kwargs and isinstance(kwargs[k], (bool, int, str, type(None)))}}
                return orig(tok, *args, **kwargs)
            return __call__

        self._patch(cls, "__call__", make)

        def make_init(orig: Callable) -> Callable:
            @functools.wraps(orig)
            def __init__(tok: Any, *args: Any, **kwargs: Any) -> None:
                orig(tok, *args, **kwargs)
                c = inst.capture
                # a tokenizer the script makes, kept (with what the script later sets on it,
                # such as its pad token) until one is called: a cached dataset.map never calls it
                if _ACTIVE is inst and not inst.busy and c.tokenizer_call is None:
                    c.tokenizer = tok
            return __init__

        self._patch(cls, "__init__", make_init)

    def _patch_datasets(self, module: Any) -> None:
        inst = self
        for name in ("load_dataset", "load_from_disk"):
            if not hasattr(module, name):
                continue

            def make(orig: Callable, name: str = name) -> Callable:
                @functools.wraps(orig)
                def load(*args: Any, **kwargs: Any) -> Any:
                    result = orig(*args, **kwargs)
                    if _ACTIVE is inst and not inst.busy:
                        inst.capture.loads.append(_load_record(name, args, kwargs, result))
                    return result
                return load

            self._patch(module, name, make)

    # -- torch ---------------------------------------------------------------------------------
    def _patch_torch(self, module: Any) -> None:
        inst = self
        optim = sys.modules.get("torch.optim.optimizer")  # torch.optim hides the submodule name
        if optim is None:
            return

        def make_init(orig: Callable) -> Callable:
            @functools.wraps(orig)
            def __init__(opt: Any, *args: Any, **kwargs: Any) -> None:
                orig(opt, *args, **kwargs)
                if _ACTIVE is inst:
                    inst.capture.optimizers.append(weakref.ref(opt))
            return __init__

        self._patch(optim.Optimizer, "__init__", make_init)

        def post_step(opt: Any, args: Any, kwargs: Any) -> None:
            if _ACTIVE is not inst or inst.busy:
                return
            if inst._primary_optimizer is None:
                inst._primary_optimizer = weakref.ref(opt)
            if inst._primary_optimizer() is opt:
                inst._step_done()

        register = getattr(optim, "register_optimizer_step_post_hook", None)
        if register is not None:
            self._handles.append(register(post_step))

        def make_backward(orig: Callable) -> Callable:
            @functools.wraps(orig)
            def backward(tensor: Any, *args: Any, **kwargs: Any) -> Any:
                if _ACTIVE is inst and not inst.busy and tensor.numel() == 1:
                    inst._loss(float(tensor.detach().float().cpu()), f"backward() call "
                                                                      f"{len(inst.capture.losses)}")
                return orig(tensor, *args, **kwargs)
            return backward

        self._patch(module.Tensor, "backward", make_backward)


# -- reading the live objects ------------------------------------------------------------------
def _keras_callback(keras_module: str, inst: Instrument) -> Any:
    base = sys.modules[keras_module].callbacks.Callback

    class WizardCallback(base):  # type: ignore[misc, valid-type]
        def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
            inst.on_keras_batch_end(batch, logs)

    return WizardCallback()


def _first_keras_element(x: Any, y: Any, batch_size: Any) -> tuple[Any, str]:
    """The first batch fit() will see, without consuming anything the script relies on."""
    tf = sys.modules.get("tensorflow")
    if tf is not None and isinstance(x, tf.data.Dataset):
        for element in x.take(1):
            return element, ("the first element of the tf.data.Dataset given to fit() (a "
                             "shuffled dataset reshuffles for fit's own first step)")
        return None, ""
    n = int(batch_size or 32)
    if isinstance(x, dict):
        features = {k: v[:n] for k, v in x.items()}
        return ((features, y[:n]) if y is not None else features,
                f"the first {n} rows of the arrays given to fit()")
    if hasattr(x, "shape") and hasattr(x, "__getitem__"):
        return ((x[:n], y[:n]) if y is not None else x[:n],
                f"the first {n} rows of the arrays given to fit()")
    return None, ""


def _tf_batch(element: Any) -> Batch:
    if isinstance(element, (tuple, list)) and len(element) >= 2:
        features, labels = element[0], element[1]
    else:
        features, labels = element, None
    if not isinstance(features, dict):
        features = {"input_ids": features}
    arrays = {k: np.asarray(v) for k, v in features.items()}
    key = next((k for k in LABEL_KEYS if k in arrays), None)
    if key is not None:
        label_arr = arrays[key]
    elif isinstance(labels, dict):
        label_arr = np.asarray(next(iter(labels.values())))
    else:
        label_arr = None if labels is None else np.asarray(labels)
    n = len(next(iter(arrays.values()))) if arrays else 0
    return Batch(inputs=arrays, labels=label_arr, labels_in_inputs=key is not None,
                 label_key=key or "labels", indices=list(range(n)), native=element)


def _keras_settings(model: Any, a: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"epochs": a.get("epochs", 1), "fit_batch_size": a.get("batch_size")}
    opt = getattr(model, "optimizer", None)
    if opt is not None:
        out["optimizer_class"] = type(opt).__name__
        out["optimizer_module"] = type(opt).__module__
        lr = getattr(opt, "learning_rate", None)
        try:
            if callable(lr) and not hasattr(lr, "numpy"):
                out["learning_rate_schedule"] = type(lr).__name__
                lr = lr(0)
            out["learning_rate"] = float(f"{float(np.asarray(lr)):.7g}")
        except Exception:
            pass
    loss = getattr(model, "loss", None)
    if getattr(model, "_using_dummy_loss", False):
        out["loss"], out["loss_note"] = None, "the model's internal loss (compile without loss=)"
    elif isinstance(loss, str):
        out["loss"] = loss
    elif loss is not None:
        name = getattr(loss, "__name__", None) or type(loss).__name__
        out["loss"] = _snake(name)
        try:
            out["from_logits"] = loss.get_config().get("from_logits")
        except Exception:
            pass
    for name in ("run_eagerly", "jit_compile"):
        try:
            out[name] = bool(getattr(model, name))
        except Exception:
            pass
    return out


def _torch_batch(model: Any, args: tuple, kwargs: dict) -> Batch:
    import torch

    data = dict(kwargs)
    if args:
        try:
            names = list(inspect.signature(model.forward).parameters)
            data.update({names[i]: a for i, a in enumerate(args) if i < len(names)})
        except (TypeError, ValueError):
            data["input_ids"] = args[0]
    arrays = {k: v.detach().cpu().numpy() for k, v in data.items() if isinstance(v, torch.Tensor)}
    key = next((k for k in LABEL_KEYS if k in arrays), None)
    n = len(next(iter(arrays.values()))) if arrays else 0
    return Batch(inputs=arrays, labels=arrays.get(key) if key else None,
                 labels_in_inputs=key is not None, label_key=key or "labels",
                 indices=list(range(n)), native=data)


def _torch_settings(c: Capture, model: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    try:
        out["device"] = str(next(model.parameters()).device)
        out["dtype"] = str(next(model.parameters()).dtype).replace("torch.", "")
    except Exception:
        pass
    if c.trainer is not None:
        args = c.trainer.args
        for name in ("learning_rate", "per_device_train_batch_size", "weight_decay",
                     "num_train_epochs", "warmup_ratio", "warmup_steps", "fp16", "bf16",
                     "remove_unused_columns", "label_names", "gradient_accumulation_steps",
                     "max_steps", "lr_scheduler_type", "optim"):
            value = getattr(args, name, None)
            value = getattr(value, "value", value)  # enums (OptimizerNames, SchedulerType)
            out[f"TrainingArguments.{name}"] = value if isinstance(
                value, (int, float, str, bool, list, type(None))) else str(getattr(value, "value", value))
        collator = getattr(c.trainer, "data_collator", None)
        out["data_collator"] = type(collator).__name__ if collator is not None else None
        out["compute_metrics"] = getattr(getattr(c.trainer, "compute_metrics", None), "__name__", None)
    opt = c.optimizer_for(model)
    if opt is not None:
        group = opt.param_groups[0]
        out["optimizer_class"] = type(opt).__name__
        out["learning_rate"] = float(group.get("lr", float("nan")))
        out["weight_decay"] = float(group.get("weight_decay", 0.0) or 0.0)
    return out


def _torch_state(model: Any, batch: dict[str, Any] | None) -> dict[str, Any]:
    """Evidence at the first non-finite loss: are the weights still finite, the batch's labels."""
    import torch

    out: dict[str, Any] = {}
    try:
        bad = [n for n, p in model.named_parameters() if not torch.isfinite(p).all()]
        out["weights_finite"] = not bad
        if bad:
            out["non_finite_weights"] = bad[:5]
    except Exception:
        pass
    labels = (batch or {}).get("labels")
    if isinstance(labels, torch.Tensor):
        out["batch_labels"] = labels.detach().cpu().reshape(-1)[:32].tolist()
    return out


def _load_record(name: str, args: tuple, kwargs: dict, result: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"call": name, "result": result}
    if name == "load_from_disk":
        rec["path"] = args[0] if args else kwargs.get("dataset_path")
    else:
        rec["path"] = args[0] if args else kwargs.get("path")
        rec["config"] = args[1] if len(args) > 1 else kwargs.get("name")
        rec["split"] = kwargs.get("split")
        rec["data_files"] = kwargs.get("data_files")
    rec["path"] = str(rec["path"]) if rec["path"] is not None else None
    return rec


def _first_text(value: Any) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], str):
        return value[0]
    return None


def _snake(name: str) -> str:
    import re

    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _save_rng() -> dict[str, Any]:
    import random

    state: dict[str, Any] = {"random": random.getstate(), "numpy": np.random.get_state()}
    torch = sys.modules.get("torch")
    if torch is not None:
        state["torch"] = torch.random.get_rng_state()
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def _restore_rng(state: dict[str, Any]) -> None:
    import random

    random.setstate(state["random"])
    np.random.set_state(state["numpy"])
    torch = sys.modules.get("torch")
    if torch is not None and "torch" in state:
        torch.random.set_rng_state(state["torch"])
        if "cuda" in state:
            torch.cuda.set_rng_state_all(state["cuda"])


# -- running the script ------------------------------------------------------------------------
def run_script(script: str | Path, argv: list[str] | None = None,
               on_first_batch: Callable[[Capture], Any] | None = None,
               steps: int | None = None, stop_on_nonfinite: bool = True,
               environ: dict[str, str] | None = None) -> Capture:
    """Run `script` as __main__ with the hooks on; never raises for what the script does."""
    path = Path(script).resolve()
    capture = Capture(str(path), list(argv or []))
    old_argv, old_env = sys.argv[:], {k: os.environ.get(k) for k in (environ or {})}
    sys.argv = [str(path), *capture.argv]
    sys.path.insert(0, str(path.parent))
    os.environ.update(environ or {})
    start = time.perf_counter()
    try:
        with Instrument(capture, on_first_batch, steps, stop_on_nonfinite):
            runpy.run_path(str(path), run_name="__main__")
    except StopRun as stop:
        capture.ended = "nonfinite" if stop.reason == "nonfinite" else "stopped"
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        capture.exit_code = code
        capture.ended = "finished" if code == 0 else "exited"
        if code != 0 and exc.code is not None and not isinstance(exc.code, int):
            capture.traceback = str(exc.code)
    except KeyboardInterrupt:
        capture.ended = "interrupted"
    except BaseException as exc:  # noqa: BLE001 - the script's own error is the evidence
        capture.ended, capture.error = "raised", exc
        capture.traceback = user_traceback(exc)
    finally:
        capture.seconds = time.perf_counter() - start
        sys.argv = old_argv
        try:
            sys.path.remove(str(path.parent))
        except ValueError:
            pass
        for k, v in old_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return capture


def user_traceback(exc: BaseException) -> str:
    """The traceback as Python prints it, without the wizard's and runpy's own frames."""
    te = traceback.TracebackException(type(exc), exc, exc.__traceback__)
    _strip(te, set())
    return _scrub("".join(te.format()))


def _ours(filename: str) -> bool:
    return filename == _HERE or filename.startswith("<frozen runpy") or filename.endswith(
        (f"{os.sep}runpy.py", f"{os.sep}runpy{os.sep}__init__.py"))


def _strip(te: traceback.TracebackException, seen: set[int]) -> None:
    if id(te) in seen:
        return
    seen.add(id(te))
    te.stack = traceback.StackSummary.from_list([f for f in te.stack if not _ours(f.filename)])
    for nxt in (te.__cause__, te.__context__):
        if nxt is not None:
            _strip(nxt, seen)


def _scrub(text: str) -> str:
    """Frames quoted inside messages (TensorFlow's "defined at" stacks) lose ours too."""
    out: list[str] = []
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if stripped.startswith('File "') and _ours(stripped[6:].split('"', 1)[0]):
            indent = len(line) - len(stripped)
            i += 1
            while i < len(lines) and lines[i].strip() and \
                    len(lines[i]) - len(lines[i].lstrip()) > indent and \
                    not lines[i].lstrip().startswith('File "'):
                i += 1  # the frame's code line(s)
            continue
        out.append(line)
        i += 1
    return "".join(out)
