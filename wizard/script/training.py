"""The training part of the script reader: Keras compile()/fit(), Trainer with its
TrainingArguments, and a plain PyTorch loop (optimizer, DataLoader, epochs)."""
from __future__ import annotations

import ast
from typing import Any

from wizard.script.syntax import Unresolved, call_name, kwarg, receiver
from wizard.script.tf_data import read_tf_data
from wizard.script.types import (
    TRAINING_ARGUMENT_DEFAULTS,
    LossInfo,
    OptimizerInfo,
    ScriptQuestion,
    Source,
    as_list,
    shown,
    snake,
)


class TrainingReader:
    """Mixin of the reader (wizard/script_extract.py): reads how the script trains."""

    def _keras(self, fit: ast.Call) -> None:
        read_tf_data(self, fit)
        model_expr = receiver(fit)
        self._model_from(model_expr)
        x = kwarg(fit, "x", 0)
        y = kwarg(fit, "y", 1)
        t = self._trace(x)
        val = kwarg(fit, "validation_data")
        eval_t = self._trace(val) if val is not None else None
        self._dataset(t, eval_t)
        self._tokenization(t)
        tf = t.tf_call
        if tf is not None and call_name(tf) == "to_tf_dataset":
            cols = self._opt(kwarg(tf, "columns", 0))
            label_cols = self._opt(kwarg(tf, "label_cols", 1))
            cols_l = as_list(cols)
            labels_l = as_list(label_cols)
            if labels_l:
                self._labels(t, "separate", labels_l, tf)
            elif cols is None or (cols_l and any(c in ("label", "labels", "label_ids")
                                                 for c in cols_l)):
                self._labels(t, "inputs", cols_l, tf)  # columns=None keeps every column
            elif isinstance(cols, Unresolved):
                self.set("training.labels", cols, tf)
            else:
                self.notes.append(f"The dataset given to fit() (line {tf.lineno}) has no label "
                                  "column in `columns` or `label_cols`: Keras gets no labels.")
            bs = kwarg(tf, "batch_size")
            if bs is not None:
                self.set("training.batch_size", self.val(bs), tf)
            self.setting("to_tf_dataset", {"columns": shown(cols), "label_cols": shown(label_cols)}, tf)
            if kwarg(tf, "collate_fn") is not None:
                self.setting("data_collator", self.s.code(kwarg(tf, "collate_fn")), tf)
            else:
                self._unpadded(tf)
        elif tf is not None:  # prepare_tf_dataset: inputs and labels separated by the model
            self._labels(t, "separate", [], tf)
            bs = kwarg(tf, "batch_size")
            if bs is not None:
                self.set("training.batch_size", self.val(bs), tf)
            self.setting("prepare_tf_dataset", self.s.code(tf), tf)
        else:
            self._labels(t, "separate" if y is not None else None, [], fit)
            if y is None:
                self.notes.append(f"fit() at line {fit.lineno} gets `{self.s.code(x, 60)}`, which "
                                  "could not be followed to a to_tf_dataset call; where the labels "
                                  "go is unknown.")
            bs = kwarg(fit, "batch_size")
            if bs is not None:
                self.set("training.batch_size", self.val(bs), fit)
        epochs = kwarg(fit, "epochs")
        if epochs is not None:
            self.set("training.epochs", self.val(epochs), fit)
        for name in ("callbacks", "steps_per_epoch", "validation_data", "class_weight"):
            if kwarg(fit, name) is not None:
                self.setting(f"fit.{name}", self.s.code(kwarg(fit, name)), fit)
                if name == "callbacks":
                    self._keras_objects("callbacks", kwarg(fit, name))
        self._compile(fit, model_expr)

    def _compile(self, fit: ast.Call, model_expr: ast.AST | None) -> None:
        calls = [c for c in self.s.calls if call_name(c) == "compile" and receiver(c) is not None
                 and c.lineno <= fit.lineno]
        same = [c for c in calls if self.s.code(receiver(c)) == self.s.code(model_expr)]
        comp = (same or calls or [None])[-1]
        if comp is None:
            self.notes.append(f"fit() is called at line {fit.lineno} but compile() is never "
                              "called before it: Keras refuses to train an uncompiled model.")
            return
        self.facts.compile_line = comp.lineno
        opt = kwarg(comp, "optimizer", 0)
        self.facts.optimizer = self._keras_optimizer(opt, comp)
        o = self.facts.optimizer
        if o.string_shortcut:
            self.set("training.optimizer", o.name, comp)
        elif isinstance(o.learning_rate, Unresolved):
            self.data["training"]["optimizer"] = {"name": o.name}
            self.read["training.optimizer"] = Source(o.line, self.s.line_code(o.line))
            self.set("training.learning_rate", o.learning_rate, o.lr_node or comp)
        else:
            spec = {"name": o.name}
            if o.learning_rate is not None:
                spec["learning_rate"] = float(o.learning_rate)
            self.data["training"]["optimizer"] = spec
            self.read["training.optimizer"] = Source(o.line, self.s.line_code(o.line))
        loss = kwarg(comp, "loss", 1)
        if loss is not None:
            self.facts.loss = self._keras_loss(loss, comp)
            if self.facts.loss is not None:
                self.set("training.loss", self.facts.loss.name, comp)
                if self.facts.loss.from_logits is not None:
                    self.set("training.from_logits", self.facts.loss.from_logits, comp)
        else:
            self.data["training"]["loss"] = None
            self.read["training.loss"] = Source(comp.lineno, self.s.line_code(comp.lineno))
        for name in ("metrics", "run_eagerly", "jit_compile", "steps_per_execution"):
            node = kwarg(comp, name, 2 if name == "metrics" else None)
            if node is not None:
                v = self.val(node)
                self.setting(f"compile.{name}", v if not isinstance(v, Unresolved)
                             else self.s.code(node), comp)
                if name == "metrics":
                    self._keras_objects("metrics", node)

    def _keras_optimizer(self, node: ast.AST | None, comp: ast.Call) -> OptimizerInfo:
        if node is None:
            return OptimizerInfo("'rmsprop' (compile's default)", "rmsprop", comp.lineno,
                                 string_shortcut=True,
                                 note="compile() without an optimizer uses 'rmsprop'")
        value = self.val(node)
        if isinstance(value, str):
            return OptimizerInfo(repr(value), value, comp.lineno, string_shortcut=True)
        expr, binding = self.s.definition(node) if isinstance(node, ast.Name) else (node, None)
        if isinstance(expr, ast.Call):
            q = self.s.qualname(expr.func) or call_name(expr)
            name = q.split(".")[-1]
            if name == "create_optimizer":
                lr_node = kwarg(expr, "init_lr", 0)
                wd = self.val(kwarg(expr, "weight_decay_rate"))
                info = OptimizerInfo(self.s.code(expr), "AdamWeightDecay" if wd else "Adam",
                                     expr.lineno, origin=q)
                info.lr_node, info.learning_rate = lr_node, self.val(lr_node)
                info.note = "transformers.create_optimizer: Adam with a linear decay from init_lr"
                return info
            lr_node = kwarg(expr, "learning_rate", 0) or kwarg(expr, "lr")
            info = OptimizerInfo(self.s.code(expr), name, expr.lineno, origin=q)
            self.facts.keras_objects.append(("optimizer", q, expr.lineno, self.s.code(expr)))
            if lr_node is not None:
                info.lr_node = lr_node
                info.learning_rate, info.note = self._learning_rate(lr_node)
            return info
        return OptimizerInfo(self.s.code(node), self.s.code(node), comp.lineno,
                             learning_rate=Unresolved(node, f"the optimizer `{self.s.code(node)}` "
                                                            "is made at run time"))

    def _learning_rate(self, node: ast.AST) -> tuple[Any, str]:
        """A learning rate, or a schedule's initial rate."""
        expr, _b = self.s.definition(node) if isinstance(node, ast.Name) else (node, None)
        if isinstance(expr, ast.Call):
            name = call_name(expr)
            init = kwarg(expr, "initial_learning_rate", 0)
            if init is not None and ("Decay" in name or "Schedule" in name or "WarmUp" in name):
                return self.val(init), f"the initial rate of the {name} schedule"
        return self.val(node), ""

    def _keras_loss(self, node: ast.AST, comp: ast.Call) -> LossInfo | None:
        value = self.val(node)
        if isinstance(value, str):
            return LossInfo(repr(value), value, comp.lineno)
        if value is None:
            return None
        expr, _b = self.s.definition(node) if isinstance(node, ast.Name) else (node, None)
        if isinstance(expr, ast.Call):
            q = self.s.qualname(expr.func) or call_name(expr)
            name = q.split(".")[-1]
            fl = kwarg(expr, "from_logits")
            from_logits = self.val(fl) if fl is not None else None
            self.facts.keras_objects.append(("loss", q, expr.lineno, self.s.code(expr)))
            return LossInfo(self.s.code(expr), snake(name), expr.lineno,
                            from_logits if isinstance(from_logits, bool) else None, q)
        if isinstance(expr, (ast.Attribute, ast.Name)):
            q = self.s.qualname(expr) or self.s.code(expr)
            return LossInfo(self.s.code(expr), q.split(".")[-1], comp.lineno, None, q)
        return LossInfo(self.s.code(node), self.s.code(node), comp.lineno)

    def _keras_objects(self, role: str, node: ast.AST) -> None:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                q = self.s.qualname(sub.func) or ""
                if "keras" in q:
                    self.facts.keras_objects.append((role, q, sub.lineno, self.s.code(sub)))

    # -- Trainer ------------------------------------------------------------------------------
    def _trainer(self, train: ast.Call, trainer: ast.Call) -> None:
        model = kwarg(trainer, "model", 0)
        if model is None and kwarg(trainer, "model_init") is not None:
            fn = kwarg(trainer, "model_init")
            body = self.s.functions.get(fn.id) if isinstance(fn, ast.Name) else None
            inner = next((c for c in ast.walk(body) if isinstance(c, ast.Call)
                          and call_name(c) == "from_pretrained"), None) if body else None
            model = inner
        self._model_from(model)
        t = self._trace(kwarg(trainer, "train_dataset", 3))
        ev = kwarg(trainer, "eval_dataset", 4)
        self._dataset(t, self._trace(ev) if ev is not None else None)
        self._tokenization(t)
        self._labels(t, "inputs", [], kwarg(trainer, "train_dataset", 3) or trainer)
        args_node = kwarg(trainer, "args", 1)
        targs, binding = self.s.definition(args_node) if isinstance(args_node, ast.Name) \
            else (args_node, None)
        if not (isinstance(targs, ast.Call) and call_name(targs).endswith(("TrainingArguments", "SFTConfig"))):
            if args_node is not None and binding is not None and binding.value is not None:
                self.facts.trainer_lr = Unresolved(binding.value, "parsed at run time")
                self.notes.append(f"The TrainingArguments are made at run time (line "
                                  f"{binding.line}: `{self.s.code(binding.value, 80)}`, e.g. from "
                                  "the command line): the learning rate and batch size are "
                                  "whatever is passed there; the wizard's run command reads them "
                                  "live.")
                targs = None
            else:
                targs = next((c for c in self.s.calls
                              if call_name(c).endswith(("TrainingArguments", "SFTConfig"))), None)
            if targs is None and args_node is None:
                self.notes.append("Trainer gets no TrainingArguments: its defaults apply "
                                  "(learning_rate=5e-5, batch size 8).")
                self.set("training.batch_size", 8, trainer)
        if targs is not None:
            self._training_arguments(targs)
        if call_name(trainer) == "Trainer" and all(
                kwarg(trainer, name, pos) is None for name, pos in
                (("data_collator", 2), ("tokenizer", None), ("processing_class", None))):
            self._unpadded(trainer)  # default_data_collator stacks the rows as they are
        for name, pos in (("data_collator", 2), ("compute_metrics", None), ("callbacks", None)):
            node = kwarg(trainer, name, pos)
            self.setting(name, self.s.code(node) if node is not None else None,
                         node if node is not None else trainer, default=node is None)
        opts = kwarg(trainer, "optimizers")
        if opts is not None:
            expr = opts.elts[0] if isinstance(opts, ast.Tuple) and opts.elts else None
            self._torch_optimizer(expr)

    def _unpadded(self, node: ast.AST) -> None:
        """No padding collator: rows keep the lengths the tokenizer gave them, so unless the
        tokenizer padded them (padding=True / "max_length"), nothing pads the batch."""
        info = self.facts.tokenize
        if info is not None and not info.padding and \
                self.data["preprocessing"].get("padding") == "dynamic":
            self.set("preprocessing.padding", "none", node)

    def _training_arguments(self, call: ast.Call) -> None:
        self.setting("TrainingArguments", self.s.code(call, 200), call)
        got = {kw.arg: kw.value for kw in call.keywords if kw.arg}

        def value(name: str) -> Any:
            return self.val(got[name]) if name in got else TRAINING_ARGUMENT_DEFAULTS.get(name)

        if "learning_rate" in got:
            self.set("training.learning_rate", value("learning_rate"), call)
        self.facts.trainer_lr = value("learning_rate")
        self.set("training.batch_size", value("per_device_train_batch_size"), call)
        if "weight_decay" in got:
            self.set("training.weight_decay", value("weight_decay"), call)
        self.set("training.epochs", value("num_train_epochs"), call,
                 transform=lambda v: max(1, int(round(float(v)))))
        fp16, bf16 = value("fp16"), value("bf16")
        if isinstance(bf16, bool) and bf16:
            self.set("training.mixed_precision", "bf16", call)
        elif isinstance(fp16, bool) and fp16:
            self.set("training.mixed_precision", "fp16", call)
        elif isinstance(fp16, Unresolved) or isinstance(bf16, Unresolved):
            self.set("training.mixed_precision", fp16 if isinstance(fp16, Unresolved) else bf16, call)
        for name in ("warmup_steps", "warmup_ratio"):
            warm = value(name)
            if name in got and isinstance(warm, (int, float)) and not isinstance(warm, bool):
                self.set(f"training.{name}", warm, call)
        for name, dotted in (("gradient_accumulation_steps", "training.gradient_accumulation_steps"),
                             ("max_steps", "training.max_steps")):
            count = value(name)
            if name in got and isinstance(count, int) and not isinstance(count, bool) and count > 0:
                self.set(dotted, count, call)
        if value("remove_unused_columns") is False:
            self.set("training.remove_unused_columns", False, call)
        optim = value("optim")
        if isinstance(optim, str):
            self.set("training.optimizer", "adamw" if optim.startswith("adamw") else optim, call)
        for name in ("warmup_ratio", "warmup_steps", "remove_unused_columns", "label_names",
                     "gradient_accumulation_steps", "max_steps", "lr_scheduler_type",
                     "per_device_eval_batch_size", "eval_strategy", "evaluation_strategy",
                     "max_grad_norm", "output_dir"):
            if name in got:
                self.setting(f"TrainingArguments.{name}", self.val(got[name]), call)
            elif name in TRAINING_ARGUMENT_DEFAULTS:
                self.setting(f"TrainingArguments.{name}", TRAINING_ARGUMENT_DEFAULTS[name], call,
                             default=True)

    # -- plain PyTorch loop -------------------------------------------------------------------
    def _loop(self, step: ast.Call) -> None:
        opt_expr, _b = self.s.definition(receiver(step))
        self._torch_optimizer(opt_expr)
        self._model_from(self._loop_model(opt_expr))
        loaders = [c for c in self.s.calls if call_name(c) == "DataLoader"]
        loader = next((c for c in loaders if "train" in self._bound_name(c)), None) or \
            (loaders[0] if loaders else None)
        t = self._trace(loader) if loader is not None else self.new_trace()
        if loader is None:
            self.notes.append("No DataLoader was found: the batches the loop feeds the model "
                              "could not be followed.")
            any_map = next((c for c in self.s.calls if call_name(c) == "map"), None)
            t = self._trace(any_map)
        self._dataset(t)
        self._tokenization(t)
        self._labels(t, "inputs", [], loader or step)
        if loader is not None:
            bs = kwarg(loader, "batch_size", 1)
            self.set("training.batch_size", self.val(bs) if bs is not None else 1, loader)
            if kwarg(loader, "collate_fn") is not None:
                self.setting("data_collator", self.s.code(kwarg(loader, "collate_fn")), loader)
            else:
                self._unpadded(loader)  # torch's default_collate stacks the rows as they are
        for loop in ast.walk(self.s.tree):
            if isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call) and \
                    call_name(loop.iter) == "range" and "epoch" in self.s.code(loop.target):
                args = loop.iter.args
                self.set("training.epochs", self.val(args[-1] if len(args) == 1 else args[1]),
                         loop)
                break
        names = {call_name(c) for c in self.s.calls}
        if "GradScaler" in names:
            self.set("training.mixed_precision", "fp16", next(
                c for c in self.s.calls if call_name(c) == "GradScaler"))
        self.notes.append(f"A custom training loop (optimizer.step() at line {step.lineno}): the "
                          "optimizer, the DataLoader and the data pipeline were read; what the "
                          "loop does at each step (its loss, clipping, scheduler) was not.")

    def _bound_name(self, call: ast.Call) -> str:
        for name, binds in self.s.assignments.items():
            if any(b.value is call for b in binds):
                return name
        return ""

    def _loop_model(self, opt_expr: ast.AST | None) -> ast.AST | None:
        if isinstance(opt_expr, ast.Call):
            params = kwarg(opt_expr, "params", 0)
            for sub in ast.walk(params) if params is not None else []:
                if isinstance(sub, ast.Call) and call_name(sub) in ("parameters", "named_parameters"):
                    return receiver(sub)
        return None

    def _torch_optimizer(self, expr: ast.AST | None) -> None:
        if not isinstance(expr, ast.Call):
            if expr is not None:
                self.questions.append(ScriptQuestion(
                    "training.optimizer", getattr(expr, "lineno", 0), self.s.code(expr),
                    "the optimizer is made at run time"))
            return
        q = self.s.qualname(expr.func) or call_name(expr)
        name = q.split(".")[-1]
        info = OptimizerInfo(self.s.code(expr), name, expr.lineno, origin=q)
        lr = kwarg(expr, "lr", 1)
        if lr is not None:
            info.lr_node, info.learning_rate = lr, self.val(lr)
        self.facts.optimizer = info
        spec: dict[str, Any] = {"name": name}
        if isinstance(info.learning_rate, Unresolved):
            self.set("training.learning_rate", info.learning_rate, lr)
        elif info.learning_rate is not None:
            spec["learning_rate"] = info.learning_rate
        wd = kwarg(expr, "weight_decay")
        if wd is not None:
            self.set("training.weight_decay", self.val(wd), expr)
        self.data["training"]["optimizer"] = spec
        self.read["training.optimizer"] = Source(expr.lineno, self.s.line_code(expr.lineno))

    # -- no training call ---------------------------------------------------------------------
    def _no_entry(self, tape: bool) -> None:
        call = self._last_model_from_pretrained()
        if call is not None:
            self._from_pretrained(call)
        any_map = next((c for c in self.s.calls if call_name(c) in ("to_tf_dataset", "DataLoader",
                                                                     "prepare_tf_dataset", "map")), None)
        t = self._trace(any_map)
        self._dataset(t)
        self._tokenization(t)
        if tape:
            self.notes.append("A custom TensorFlow loop (tf.GradientTape): the model and the data "
                              "were read; the loss, the optimizer and the step were not.")
        else:
            self.notes.append("The script never calls fit(), Trainer.train() or optimizer.step(): "
                              "the model and data parts were read where present; the training "
                              "settings are the case defaults.")

