"""The script reader's core: values into case fields (or questions), the model, the tokenizer,
the data pipeline traced back from the training call to its load_dataset."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from wizard.core.case import Case
from wizard.core.tasks import task_of
from wizard.script.label_names import label_feature_column, saved_class_names
from wizard.script.llm import read_llm
from wizard.script.seq2seq_qa import read_seq2seq_qa
from wizard.script.generation import read_generation
from wizard.script.keras_saving import read_keras_saving
from wizard.script.label_dtype import read_label_dtype
from wizard.script.new_tokens import read_new_tokens
from wizard.script.overrides import read_overrides
from wizard.script.stepping import read_stepping
from wizard.script.names import read_names
from wizard.script.syntax import ScriptAST, Unresolved, call_name, kwarg, receiver
from wizard.script.training import TrainingReader
from wizard.script.types import (
    CASE_TYPES,
    DATASET_LOADERS,
    DATASET_METHODS_KEEPING_ROWS,
    FILE_BUILDERS,
    IN_MEMORY_BUILDERS,
    TASKS,
    TORCH_OPTIMIZERS,
    TRAINER_CLASSES,
    Facts,
    ScriptQuestion,
    ScriptReading,
    Source,
    TokenizeInfo,
    is_model_class,
    is_tokenizer_call,
    line_node,
)


@dataclass
class _Trace:
    """How a dataset expression was made: load call, split, .map functions, renames."""

    load: ast.Call | None = None
    split: Any = None
    derived_split: bool = False
    map_fns: list[ast.expr] = field(default_factory=list)
    renames: dict[str, str] = field(default_factory=dict)  # new -> old
    tf_call: ast.Call | None = None
    loader: ast.Call | None = None
    built_in_memory: ast.Call | None = None



class Reader(TrainingReader):
    """Reads one parsed script into case data, settings, questions, notes and facts."""

    def __init__(self, s: ScriptAST, path: str | None, refs: dict[str, str]):
        self.s = s
        self.path = path
        self.refs = refs
        self.data: dict[str, Any] = {"dataset": {}, "preprocessing": {}, "training": {}}
        self.read: dict[str, Source] = {}
        self.settings: dict[str, dict[str, Any]] = {}
        self.questions: list[ScriptQuestion] = []
        self.notes: list[str] = []
        self.facts = Facts()
        self._any_fit: ast.Call | None = None

    # -- recording -------------------------------------------------------------------------------
    def set(self, dotted: str, value: Any, node: ast.AST | None, transform: Any = None) -> bool:
        """Set a case field from a resolved value, or turn it into a question."""
        line = getattr(node, "lineno", 0)
        if isinstance(value, Unresolved):
            if not any(q.field == dotted for q in self.questions):
                where = value.node if getattr(value.node, "lineno", None) else node
                self.questions.append(ScriptQuestion(
                    dotted, getattr(where, "lineno", line),
                    self.s.line_code(getattr(where, "lineno", line)) or self.s.code(node),
                    value.reason))
            return False
        if transform is not None:
            value = transform(value)
        want = CASE_TYPES.get(dotted)
        ok = want is None or value is None or isinstance(value, want) or (
            want is float and isinstance(value, int) and not isinstance(value, bool))
        if want is int and isinstance(value, float) and value.is_integer():
            value, ok = int(value), True
        if not ok or (want in (int, float) and isinstance(value, bool)):
            self.questions.append(ScriptQuestion(dotted, line, self.s.code(node),
                                                 f"{value!r} is not a {want.__name__}"))
            return False
        obj = self.data
        *parents, last = dotted.split(".")
        for p in parents:
            obj = obj.setdefault(p, {})
        obj[last] = float(value) if want is float and value is not None else value
        self.read[dotted] = Source(line, self.s.line_code(line) if line else "")
        return True

    def setting(self, name: str, value: Any, node: ast.AST | None, default: bool = False) -> None:
        line = getattr(node, "lineno", 0)
        shown = value.reason if isinstance(value, Unresolved) else value
        self.settings[name] = {"value": shown, "line": line,
                               "code": self.s.code(node) if node is not None else "",
                               **({"default": True} if default else {}),
                               **({"resolved": False} if isinstance(value, Unresolved) else {})}

    def val(self, node: ast.AST | None) -> Any:
        return self.s.value(node)

    def _opt(self, node: ast.AST | None) -> Any:
        """An optional argument's value: None when it is not given."""
        return None if node is None else self.s.value(node)

    # -- main ---------------------------------------------------------------------------------
    def run(self) -> ScriptReading:
        s = self.s
        self._imports()
        self.facts.cli_flags = set(s.cli_flags)
        fit = self._first_call_on_model("fit")
        train = next((c for c in s.calls if call_name(c) == "train" and self._trainer_call(c)), None)
        steps = [c for c in s.calls if call_name(c) == "step" and receiver(c) is not None]
        backward = [c for c in s.calls if call_name(c) == "backward"]
        tape = any(call_name(c) == "GradientTape" for c in s.calls)
        if fit is None and train is None and not (steps and backward):
            fit = self._any_fit  # x.fit(...) on something not traced to a model
        if fit is not None:
            self.facts.entry = "keras"
            self._keras(fit)
        elif train is not None:
            self.facts.entry = "trainer"
            self._trainer(train, self._trainer_call(train))
        elif steps and backward:
            self.facts.entry = "loop"
            self._loop(self._optimizer_step(steps))
        else:
            self._no_entry(tape)
        self._framework()
        read_llm(self)
        read_seq2seq_qa(self)
        read_stepping(self)
        read_overrides(self)
        read_new_tokens(self)
        read_label_dtype(self)
        read_generation(self)
        read_keras_saving(self)
        self._freezing()
        self._pad_token()
        self._num_labels_from_class_names()
        self._compute_metrics()
        self._legacy_keras_flag()
        self._argparse_notes()
        case = Case.from_dict(self.data, validate=False)
        case.source = self.path
        return ScriptReading(self.path, case, self.facts.entry, self.read, self.settings,
                             self.questions, self.notes, [], self.facts, read_names(s))

    def _imports(self) -> None:
        for local, (qual, line) in self.s.imports.items():
            if qual.split(".")[0] in ("tensorflow", "keras", "tf_keras"):
                self.facts.imports_tensorflow = True
            if qual.startswith("transformers.") and qual.split(".")[-1].startswith("TF"):
                self.facts.tf_imports.append((qual.split(".")[-1], line))
            if qual.split(".")[-1] in ("create_optimizer", "AdamWeightDecay", "KerasMetricCallback",
                                       "PushToHubCallback") and qual.startswith("transformers"):
                self.facts.tf_imports.append((qual.split(".")[-1], line))

    def _first_call_on_model(self, name: str) -> ast.Call | None:
        """The first `x.fit(...)`, preferring one whose `x` is a model the script builds."""
        self._any_fit = None
        for c in self.s.calls:
            if call_name(c) != name or receiver(c) is None:
                continue
            expr, _b = self.s.definition(receiver(c))
            made_by = (self.s.qualname(expr.func) or "") if isinstance(expr, ast.Call) else ""
            q = made_by or self.s.qualname(receiver(c)) or ""
            if q.split(".")[0] in ("sklearn", "np", "numpy", "pd", "pandas", "xgboost",
                                   "lightgbm"):
                continue
            if isinstance(expr, ast.Call) and (call_name(expr) in ("from_pretrained", "Model",
                                                                   "Sequential")
                                               or is_model_class(call_name(expr))):
                return c
            self._any_fit = self._any_fit or c
        return None

    def _optimizer_step(self, steps: list[ast.Call]) -> ast.Call:
        """The optimizer.step() among the .step() calls (not a scheduler's or a scaler's)."""
        for c in steps:
            expr, _b = self.s.definition(receiver(c))
            if isinstance(expr, ast.Call):
                q = self.s.qualname(expr.func) or call_name(expr)
                if call_name(expr) in TORCH_OPTIMIZERS or ".optim." in f".{q}." and \
                        "lr_scheduler" not in q:
                    return c
        named = [c for c in steps if "optim" in self.s.code(receiver(c)).lower()]
        return (named or steps)[0]

    def _trainer_call(self, train: ast.Call) -> ast.Call | None:
        expr, _ = self.s.definition(receiver(train))
        if isinstance(expr, ast.Call) and call_name(expr).endswith(TRAINER_CLASSES):
            return expr
        return None

    def _framework(self) -> None:
        cls = self.facts.model_class or ""
        if cls.startswith("TF") or self.facts.entry == "keras":
            fw = "tensorflow"
        elif cls.startswith("Flax"):
            fw = None
            self.notes.append(f"{cls} is a Flax model: the wizard checks TensorFlow and PyTorch "
                              "models only.")
        else:
            fw = "pytorch" if (cls or self.facts.entry in ("trainer", "loop")) else None
        if fw:
            self.facts.framework = fw
            self.data["framework"] = fw
            self.read["framework"] = Source(self.facts.model_line,
                                            self.s.line_code(self.facts.model_line))
        if self.facts.entry != "none":
            self.data["training"]["trainer"] = self.facts.entry

    def _legacy_keras_flag(self) -> None:
        for node in ast.walk(self.s.tree):
            if isinstance(node, ast.Constant) and node.value == "TF_USE_LEGACY_KERAS":
                self.facts.legacy_keras_in_script = True

    def _argparse_notes(self) -> None:
        for dest, d in self.s.used_defaults.items():
            self.notes.append(f"`{dest}` was read from its default in the script (line {d.line}); "
                              "a value given on the command line would change it.")

    # -- model and tokenizer ------------------------------------------------------------------
    def _model_from(self, expr: ast.AST | None) -> None:
        """The checkpoint and class behind a model expression (a name or a from_pretrained)."""
        node, _ = self.s.definition(expr) if isinstance(expr, ast.Name) else (expr, None)
        call = node if isinstance(node, ast.Call) and call_name(node) == "from_pretrained" else None
        if call is None:
            if isinstance(node, ast.Call):
                self._custom_keras_model(node)
            call = self._last_model_from_pretrained()
            if call is None:
                return
            if node is not None:
                self.notes.append(f"The model trained here is built at line {node.lineno} "
                                  f"(`{self.s.code(node, 80)}`); the checks load the checkpoint "
                                  f"of line {call.lineno} with a classification head.")
        self._from_pretrained(call)

    def _compute_metrics(self) -> None:
        """The source of the function given to Trainer(compute_metrics=...) or
        KerasMetricCallback(metric_fn=...): the metric checks call it the way those do."""
        for call in self.s.calls:
            name = call_name(call)
            node = (kwarg(call, "compute_metrics") if name.endswith("Trainer") else
                    kwarg(call, "metric_fn", 0) if name == "KerasMetricCallback" else None)
            if not isinstance(node, ast.Name):
                continue
            fn = next((d for d in ast.walk(self.s.tree) if isinstance(d, ast.FunctionDef)
                       and d.name == node.id), None)
            if fn is not None:
                self.set("training.compute_metrics", ast.get_source_segment(self.s.source, fn)
                         or ast.unparse(fn), call)
                return

    def _model_names(self) -> set[str]:
        """Names bound to a model's from_pretrained."""
        return {t.id for node in ast.walk(self.s.tree) if isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call) and call_name(node.value) == "from_pretrained"
                and is_model_class(self.s.qualname(receiver(node.value)) or "")
                for t in node.targets if isinstance(t, ast.Name)}

    def _pad_token(self) -> None:
        """`tokenizer.pad_token = tokenizer.eos_token` (or a literal token) and
        `model.config.pad_token_id = tokenizer.pad_token_id` (or from_pretrained(...,
        pad_token_id=...)): the checks set the same on their tokenizer and config."""
        tokenizers, models = self._tokenizer_names(), self._model_names()
        for node in ast.walk(self.s.tree):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                path = _dotted(target) or ""
                root, _, rest = path.partition(".")
                if root in tokenizers and rest == "pad_token":
                    value = _tokenizer_attr(node.value, tokenizers)
                    value = value if value is not None else self.val(node.value)
                    self.set("preprocessing.pad_token", value, node)
                elif root in models and rest.startswith("config.") and rest.count(".") == 1:
                    self._config_value(rest.split(".")[1], node.value, tokenizers, node)
        for call in self.s.calls:
            if call_name(call) == "from_pretrained" and \
                    is_model_class(self.s.qualname(receiver(call)) or ""):
                for key in ("pad_token_id", "eos_token_id"):
                    if kwarg(call, key) is not None:
                        self._config_value(key, kwarg(call, key), tokenizers, call)

    def _config_value(self, key: str, expr: ast.AST, tokenizers: set[str], node: ast.AST) -> None:
        value = _tokenizer_attr(expr, tokenizers)
        value = value if value is not None else self.val(expr)
        if isinstance(value, (str, int, float, bool)) or value is None:
            self.set(f"model_config.{key}", value, node)

    def _freezing(self) -> None:
        """Parts of the model the script freezes: `model.bert.trainable = False`,
        `model.bert.requires_grad_(False)`, `for p in model.bert.parameters(): p.requires_grad =
        False` (the checks then load the model frozen the same way)."""
        models = self._model_names()
        found: list[tuple[str, ast.AST]] = []
        for node in ast.walk(self.s.tree):
            for part in _frozen_parts(node):
                path = _dotted(part)
                root, _, rest = (path or "").partition(".")
                if path and root in models:
                    found.append((rest, node))
        if found:
            self.set("freeze", sorted({path for path, _ in found}), found[0][1])

    def _last_model_from_pretrained(self) -> ast.Call | None:
        found = [c for c in self.s.calls if call_name(c) == "from_pretrained"
                 and is_model_class(self.s.qualname(receiver(c)) or "")]
        return found[-1] if found else None

    def _num_labels_from_class_names(self) -> None:
        """`num_labels=len(label_names)` (or id2label from them), the names being the label
        feature's class names: counted from the local dataset's saved features."""
        if not any(q.field == "num_labels" for q in self.questions):
            return
        call = self._last_model_from_pretrained()
        node = None if call is None else kwarg(call, "num_labels") or kwarg(call, "id2label")
        column = label_feature_column(self.s, node)
        dataset = self.data.get("dataset") or {}
        names = saved_class_names(dataset.get("path"), dataset.get("train_split") or "train",
                                  column) if column else None
        if names is None:
            return
        self.questions = [q for q in self.questions if q.field != "num_labels"]
        self.set("num_labels", len(names), call)
        self.notes.append(f"num_labels: the {len(names)} class names of the dataset's "
                          f"{column!r} column ({', '.join(names[:6])}"
                          f"{', ...' if len(names) > 6 else ''}).")

    def _custom_keras_model(self, node: ast.Call) -> None:
        for c in self.s.calls:
            if call_name(c) in ("Dense", "Activation", "Softmax"):
                act = self.val(kwarg(c, "activation", 1 if call_name(c) == "Dense" else 0))
                if call_name(c) == "Softmax" or act in ("softmax", "sigmoid"):
                    self.facts.softmax_head = (c.lineno, self.s.code(c))

    def _from_pretrained(self, call: ast.Call) -> None:
        cls = (self.s.qualname(receiver(call)) or "").split(".")[-1]
        self.facts.model_class = cls
        self.facts.model_line = call.lineno
        self.facts.model_is_transformers = True
        self.setting("model_class", cls, call)
        ref = kwarg(call, "pretrained_model_name_or_path", 0)
        self.set("model", self._ref(self.val(ref)), call)
        for suffix, task in TASKS.items():
            if cls.endswith(suffix):
                self.set("task", task, call)
                if task_of(task) is None:
                    self.notes.append(f"{cls} is a {task} model; the wizard's data and model "
                                      "checks are built for sequence classification.")
        num = kwarg(call, "num_labels")
        id2label = kwarg(call, "id2label")
        if num is not None:
            self.set("num_labels", self.val(num), call)
        elif id2label is not None:
            labels = self.val(id2label)
            self.set("num_labels", labels if isinstance(labels, Unresolved) else len(labels), call)
        for name in ("id2label", "label2id"):
            if kwarg(call, name) is not None:
                mapping = self.val(kwarg(call, name))
                self.setting(name, mapping, call)
                if isinstance(mapping, dict) and mapping:   # the config takes its size from it
                    self.set(f"model_config.{name}", dict(mapping), call)
        for name, dotted in (("revision", "revision"), ("trust_remote_code", "trust_remote_code"),
                             ("ignore_mismatched_sizes", "ignore_mismatched_sizes")):
            if kwarg(call, name) is not None:
                self.set(dotted, self.val(kwarg(call, name)), call)
        for name in LOAD_ARGS:
            node = kwarg(call, name)
            if node is not None:
                value = self.val(node)  # a literal, else the code as written (torch.bfloat16)
                self.set(f"load_args.{name}",
                         self.s.code(node) if isinstance(value, Unresolved) else value, call)

    def _ref(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.refs.get(value, value)
        return value

    def _tokenizer_names(self) -> set[str]:
        names = {"tokenizer", "tok", "processor"}
        for call in self.s.calls:
            if call_name(call) == "from_pretrained":
                q = self.s.qualname(receiver(call)) or ""
                if "Tokenizer" in q or "Processor" in q:
                    for name, binds in self.s.assignments.items():
                        if any(b.value is call for b in binds):
                            names.add(name)
                    checkpoint = self._ref(self.val(kwarg(call, "pretrained_model_name_or_path", 0)))
                    self.setting("tokenizer", checkpoint, call)
                    model = self.data.get("model")
                    if isinstance(checkpoint, str) and isinstance(model, str) and \
                            checkpoint.rstrip("/") != model.rstrip("/"):
                        self.set("tokenizer", checkpoint, call)  # not the model's own tokenizer
        return names

    # -- data ---------------------------------------------------------------------------------
    def _trace(self, expr: ast.AST | None) -> _Trace:
        t = _Trace()
        for _ in range(60):
            if expr is None:
                break
            if isinstance(expr, ast.Name):
                expr, _b = self.s.definition(expr)
                continue
            if isinstance(expr, ast.Subscript):
                idx = self.val(expr.slice)
                if t.split is None and isinstance(idx, str):
                    t.split = idx
                expr = expr.value
                continue
            if not isinstance(expr, ast.Call):
                break
            name = call_name(expr)
            if name in DATASET_LOADERS:
                t.load = expr
                break
            if name in IN_MEMORY_BUILDERS:
                t.built_in_memory = expr
                break
            if name == "prepare_tf_dataset":
                t.tf_call = t.tf_call or expr
                expr = kwarg(expr, "dataset", 0)
            elif name == "to_tf_dataset":
                t.tf_call = t.tf_call or expr
                expr = receiver(expr)
            elif name == "DataLoader":
                t.loader = t.loader or expr
                expr = kwarg(expr, "dataset", 0)
            elif name == "map":
                fn = kwarg(expr, "function", 0)
                if fn is not None:
                    t.map_fns.append(fn)
                expr = receiver(expr)
            elif name == "rename_column":
                old, new = self.val(kwarg(expr, "original_column_name", 0)), \
                    self.val(kwarg(expr, "new_column_name", 1))
                if isinstance(old, str) and isinstance(new, str):
                    t.renames[new] = old
                expr = receiver(expr)
            elif name == "rename_columns":
                mapping = self.val(kwarg(expr, "column_mapping", 0))
                if isinstance(mapping, dict):
                    t.renames.update({v: k for k, v in mapping.items()})
                expr = receiver(expr)
            elif name == "train_test_split":
                if t.split in ("train", "test"):
                    t.derived_split = True
                    t.split = None
                expr = receiver(expr)
            elif name in DATASET_METHODS_KEEPING_ROWS and receiver(expr) is not None:
                expr = receiver(expr)
            else:
                break
        return t

    def _dataset(self, t: _Trace, eval_trace: _Trace | None = None) -> None:
        if t.load is None and t.built_in_memory is None and not any(
                call_name(c) in DATASET_LOADERS for c in self.s.calls):
            t.built_in_memory = next((c for c in self.s.calls if call_name(c) in IN_MEMORY_BUILDERS
                                      and "Dataset" in (self.s.qualname(c.func) or "")), None)
        if t.built_in_memory is not None:
            c = t.built_in_memory
            self.questions.append(ScriptQuestion(
                "dataset.path", c.lineno, self.s.line_code(c.lineno),
                f"the dataset is built in the script ({call_name(c)}); save it with "
                "save_to_disk and give that folder, or run the script under the wizard"))
        load = t.load or next((c for c in self.s.calls if call_name(c) in DATASET_LOADERS), None)
        if load is None:
            if t.built_in_memory is None:
                self.notes.append("No load_dataset/load_from_disk call was found, so the dataset "
                                  "is unknown.")
            return
        if t.load is None:
            self.notes.append(f"The training data could not be followed back to its source; the "
                              f"dataset loaded at line {load.lineno} is used.")
        if call_name(load) == "load_from_disk":
            self.set("dataset.path", self._ref(self.val(kwarg(load, "dataset_path", 0))), load)
        else:
            path = self.val(kwarg(load, "path", 0))
            files = kwarg(load, "data_files")
            if isinstance(path, str) and path in FILE_BUILDERS and files is not None:
                value = self.val(files)
                if isinstance(value, Unresolved):
                    self.set("dataset.path", value, load)
                else:
                    self.data["dataset"]["data_files"] = value
                    self.read["dataset.data_files"] = Source(load.lineno,
                                                             self.s.line_code(load.lineno))
            else:
                self.set("dataset.path", self._ref(path), load)
                config = kwarg(load, "name", 1)
                if config is not None:
                    self.set("dataset.config", self.val(config), load)
            split = kwarg(load, "split")
            if split is not None:
                value = self.val(split)
                if isinstance(value, str) and re.fullmatch(r"\w+", value):
                    self.set("dataset.train_split", value, load)
                elif not isinstance(value, Unresolved):
                    self.notes.append(f"The split {value!r} (line {load.lineno}) is a slice or a "
                                      "list; the checks read the whole split.")
        if t.derived_split:
            self.notes.append("The script splits the data with train_test_split; the checks "
                              "sample the split it was made from.")
        elif isinstance(t.split, str) and "dataset.train_split" not in self.read:
            self.set("dataset.train_split", t.split, t.tf_call or t.loader or load)
        eval_split = eval_trace.split if eval_trace is not None else None
        if eval_split is None:
            eval_split = self._other_split(t.split)
        self.data["dataset"]["eval_split"] = eval_split if isinstance(eval_split, str) else None

    def _other_split(self, train_split: Any) -> str | None:
        """An evaluation split the script prepares even if it does not train on it."""
        for c in self.s.calls:
            if call_name(c) in ("to_tf_dataset", "prepare_tf_dataset", "DataLoader"):
                t = self._trace(c)
                if isinstance(t.split, str) and t.split != (train_split or "train"):
                    return t.split
        return None

    def _tokenization(self, t: _Trace) -> None:
        names = self._tokenizer_names()
        fns = list(t.map_fns) + [kwarg(c, "function", 0) for c in self.s.calls
                                 if call_name(c) == "map" and kwarg(c, "function", 0) is not None]
        for fn in fns:
            body: ast.AST | None = fn
            if isinstance(fn, ast.Name):
                body = self.s.functions.get(fn.id)
            elif isinstance(fn, ast.Attribute):
                body = None
            if body is None:
                continue
            info = self._tokenize_in(body, names)
            if info is not None:
                self.facts.tokenize = info
                break
        info = self.facts.tokenize
        if info is None:
            any_call = next((c for c in self.s.calls if isinstance(c.func, ast.Name)
                             and c.func.id in names), None)
            if any_call is None:
                self.notes.append("No tokenizer call was found, so the text columns and the "
                                  "truncation could not be read.")
                load = t.load or next((c for c in self.s.calls if call_name(c) in DATASET_LOADERS),
                                      None)
                line = load.lineno if load is not None else 0
                self.questions.append(ScriptQuestion(
                    "dataset.text_columns", line, self.s.line_code(line) if line else "",
                    "no tokenizer call was found (is the dataset tokenized already?)"))
                return
            info = self._tokenizer_call_info(any_call)
            self.facts.tokenize = info
        if info.columns:
            self.set("dataset.text_columns", info.columns[:2], line_node(info.line))
        else:
            self.questions.append(ScriptQuestion(
                "dataset.text_columns", info.line, info.code,
                "the text given to the tokenizer is not a column looked up by name"))
        self.set("preprocessing.truncation", info.truncation, line_node(info.line),
                 transform=lambda v: bool(v) and v != "do_not_truncate")
        if info.max_length is not None:
            self.set("preprocessing.max_length", info.max_length, line_node(info.line))
        pad = info.padding
        if isinstance(pad, Unresolved):
            self.set("preprocessing.padding", pad, line_node(info.line))
        else:
            self.set("preprocessing.padding", "max_length" if pad == "max_length" else "dynamic",
                     line_node(info.line))

    def _tokenize_in(self, fn: ast.AST, names: set[str]) -> TokenizeInfo | None:
        found: TokenizeInfo | None = None
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and found is None and is_tokenizer_call(node, names):
                found = self._tokenizer_call_info(node)
        if found is None:
            return None
        for node in ast.walk(fn):  # labels made inside the function: out["labels"] = ex["score"]
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Subscript) and self.val(target.slice) in ("labels", "label"):
                        cols = self.columns_in(node.value) or self._appended_from(fn, node.value)
                        if cols:
                            found.label_from = cols[0]
        return found

    def _appended_from(self, fn: ast.AST, value: ast.AST) -> list[str]:
        """The columns a list is built from in a loop (`for i, tags in
        enumerate(examples["ner_tags"]): ... all_labels.append(row)`)."""
        if not isinstance(value, ast.Name):
            return []
        for loop in ast.walk(fn):
            if isinstance(loop, ast.For) and any(
                    isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                    and n.func.attr in ("append", "extend") and isinstance(n.func.value, ast.Name)
                    and n.func.value.id == value.id for n in ast.walk(loop)):
                cols = self.columns_in(loop.iter)
                if cols:
                    return cols
        return []

    def _tokenizer_call_info(self, call: ast.Call) -> TokenizeInfo:
        info = TokenizeInfo(call.lineno, self.s.code(call))
        texts = [kwarg(call, "text", 0), kwarg(call, "text_pair", 1)]
        for t in texts:
            if t is not None:
                for col in self.columns_in(t):
                    if col not in info.columns:
                        info.columns.append(col)
        trunc = kwarg(call, "truncation")
        info.truncation = self.val(trunc) if trunc is not None else False
        pad = kwarg(call, "padding")
        info.padding = self.val(pad) if pad is not None else None
        ml = kwarg(call, "max_length")
        info.max_length = self.val(ml) if ml is not None else None
        return info

    def columns_in(self, node: ast.AST, depth: int = 0) -> list[str]:
        """The columns an expression reads by name: examples["text"], raw[split]["text"], and
        through the names it uses (texts = list(raw[split]["text"]); a, b = x, y by position)."""
        cols: list[str] = []

        def visit(sub: ast.AST) -> None:
            if isinstance(sub, ast.Subscript):
                key, base = self.val(sub.slice), sub.value
                while isinstance(base, ast.Subscript):   # raw[split]["text"]: the split is no column
                    base = base.value
                if isinstance(key, str) and isinstance(base, ast.Name):
                    cols.append(key)
                    return
            elif isinstance(sub, ast.Name) and depth < 2:
                b = self.s.binding(sub.id, sub)
                if b is not None and b.kind == "assign" and b.value is not None and \
                        b.scope is not self.s.tree:
                    value: ast.AST | None = b.value
                    if b.index is not None:
                        elts = getattr(value, "elts", None)
                        value = elts[b.index] if elts and b.index < len(elts) else None
                    if value is not None:
                        cols.extend(self.columns_in(value, depth + 1))
                return
            for child in ast.iter_child_nodes(sub):
                visit(child)

        visit(node)
        return list(dict.fromkeys(cols))

    def _labels(self, t: _Trace, place: str | None, names: list[str], node: ast.AST | None) -> None:
        if place is not None:
            self.set("training.labels", place, node)
            self.facts.labels_place = place
            self.facts.labels_line = getattr(node, "lineno", 0)
            self.facts.labels_code = self.s.line_code(self.facts.labels_line)
        from_fn = self.facts.tokenize.label_from if self.facts.tokenize else None
        label = next((n for n in names if n in ("labels", "label", "label_ids")), None) or \
            (names[0] if names else None)
        if from_fn:
            column = from_fn
        elif label and label in t.renames:
            column = t.renames[label]
        elif label in (None, "labels", "label_ids"):
            column = "label"
            if label:
                self.notes.append(f"The script asks for a column {label!r}; the dataset's label "
                                  "column is taken to be 'label' (DataCollatorWithPadding renames "
                                  "label to labels; without such a collator, to_tf_dataset in "
                                  f"recent datasets raises 'Column {label} not found in "
                                  "dataset!').")
        else:
            column = label
        self.set("dataset.label_column", column, node)

    # -- Keras --------------------------------------------------------------------------------

    def new_trace(self) -> _Trace:
        return _Trace()


LOAD_ARGS = ("from_tf", "from_pt", "torch_dtype", "dtype", "device_map", "load_in_4bit",
             "load_in_8bit", "quantization_config", "attn_implementation")


def _frozen_parts(node: ast.AST) -> list[ast.expr]:
    """The expressions a statement freezes (see Reader._freezing)."""
    def false(value: ast.AST | None) -> bool:
        return isinstance(value, ast.Constant) and value.value is False

    if isinstance(node, ast.Assign) and false(node.value):
        return [t.value for t in node.targets
                if isinstance(t, ast.Attribute) and t.attr == "trainable"]
    if isinstance(node, ast.Call) and call_name(node) == "requires_grad_" and \
            node.args and false(node.args[0]) and isinstance(node.func, ast.Attribute):
        return [node.func.value]
    if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and \
            call_name(node.iter) == "parameters" and isinstance(node.iter.func, ast.Attribute) and \
            isinstance(node.target, ast.Name):
        loop_var = node.target.id
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and false(stmt.value) and any(
                    isinstance(t, ast.Attribute) and t.attr == "requires_grad"
                    and isinstance(t.value, ast.Name) and t.value.id == loop_var
                    for t in stmt.targets):
                return [node.iter.func.value]
    return []


def _tokenizer_attr(expr: ast.AST, tokenizers: set[str]) -> str | None:
    """`tokenizer.eos_token` as "eos_token" when `tokenizer` is one of the script's tokenizers."""
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and \
            expr.value.id in tokenizers and expr.attr.endswith(("_token", "_token_id")):
        return expr.attr
    return None


def _dotted(expr: ast.AST) -> str | None:
    """`model.bert.embeddings` as a string; None for anything but names and attributes."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    return ".".join([expr.id, *reversed(parts)])
