"""PyTorch backend (transformers AutoModel... classes, Trainer or a plain loop)."""
from __future__ import annotations

import inspect
import time
import traceback
from typing import Any

import numpy as np

from wizard.backends.adapters import apply_adapter
from wizard.backends.batch import Batch, ForwardResult
from wizard.backends.lm_data import lm_batch
from wizard.backends.qa_data import qa_batch
from wizard.backends.seq2seq_data import decoder_inputs, seq2seq_batch
from wizard.backends.token_data import token_batch
from wizard.core.tasks import CAUSAL_LM, QA, SEQ2SEQ, TOKEN_CLS
from wizard.errors import one_line
from wizard.frameworks import import_torch


class TorchBackend:
    framework = "pytorch"

    def __init__(self, ctx: Any):
        self.ctx = ctx
        torch = import_torch()
        wanted = ctx.requested_device
        if wanted in ("auto", "gpu", "cuda"):
            self.device = "cuda" if torch.cuda.is_available() else "cpu"
        else:
            self.device = wanted

    def load_model(self) -> Any:
        import transformers

        import_torch().manual_seed(0)  # a newly initialised head: the same evidence every run
        case = self.ctx.case
        kwargs: dict[str, Any] = {**self.ctx.pretrained_kwargs(), **self.ctx.model_load_kwargs()}
        if case.task in (CAUSAL_LM, SEQ2SEQ, QA):  # heads sized by the vocabulary or positions
            auto = {CAUSAL_LM: transformers.AutoModelForCausalLM,
                    QA: transformers.AutoModelForQuestionAnswering,
                    SEQ2SEQ: transformers.AutoModelForSeq2SeqLM}[case.task]
        else:
            auto = transformers.AutoModelForTokenClassification if case.task == TOKEN_CLS \
                else transformers.AutoModelForSequenceClassification
            if case.num_labels is not None:
                kwargs["num_labels"] = case.num_labels
        model = auto.from_pretrained(self.ctx.model_location, **kwargs)
        if case.adapter.active:  # LoRA / QLoRA as the script puts it on (the 4-bit base aside)
            model, self.ctx.scratch["adapter"] = apply_adapter(model, case)
        return model.to(self.device)

    def model_input_names(self) -> list[str]:
        """Columns the model's forward accepts (what Trainer's remove_unused_columns keeps)."""
        params = inspect.signature(self.ctx.model.forward).parameters
        names = list(getattr(self.ctx.tokenizer, "model_input_names", ["input_ids"]))
        return [n for n in names if n in params]

    def first_batch(self) -> Batch:
        """The first batch as Trainer / a DataLoader with DataCollatorWithPadding yields it."""
        from transformers import DataCollatorWithPadding

        case, ctx = self.ctx.case, self.ctx
        split = ctx.tokenized[case.dataset.train_split]
        label_col = case.dataset.label_column
        n = min(case.training.batch_size, len(split))
        rows = split.select(range(n))
        if case.task == QA:  # the positions ride in the inputs; the model computes its loss
            arrays = qa_batch(self.model_input_names(), list(rows))
            return Batch(inputs=arrays, labels=None, labels_in_inputs=True, label_key=None,
                         indices=list(range(n)),
                         native={k: import_torch().as_tensor(v) for k, v in arrays.items()})
        if case.task in (CAUSAL_LM, TOKEN_CLS, SEQ2SEQ):
            if case.task == SEQ2SEQ:
                arrays = seq2seq_batch(case, ctx.tokenizer, list(rows))
                shifted = decoder_inputs(ctx.model, arrays["labels"])
                if shifted is not None:  # as DataCollatorForSeq2Seq(model=model) adds them
                    arrays["decoder_input_ids"] = shifted
            else:
                arrays = lm_batch(case, ctx.tokenizer, list(rows)) if case.task == CAUSAL_LM \
                    else token_batch(ctx.tokenizer, list(rows))
            return Batch(inputs=arrays, labels=arrays["labels"], labels_in_inputs=True,
                         label_key="labels", indices=list(range(n)),
                         native={k: import_torch().as_tensor(v) for k, v in arrays.items()})
        keep = [c for c in self.model_input_names() if c in rows.column_names]
        features = [{k: row[k] for k in keep + [label_col]} for row in rows]
        native = DataCollatorWithPadding(ctx.tokenizer, return_tensors="pt")(features)
        arrays = {k: v.numpy() for k, v in native.items()}
        label_key = next((k for k in ("labels", "label", label_col) if k in arrays), None)
        labels = arrays.get(label_key) if label_key else None
        in_inputs = case.training.labels == "inputs"
        if not in_inputs and label_key:
            arrays.pop(label_key)
        return Batch(inputs=arrays, labels=labels, labels_in_inputs=in_inputs and label_key is not None,
                     label_key=label_key or "labels", indices=list(range(n)), native=native)

    def _tensors(self, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
        torch = import_torch()
        return {k: torch.as_tensor(v).to(self.device) for k, v in arrays.items()}

    def forward(self, batch: Batch) -> ForwardResult:
        torch = import_torch()
        model = self.ctx.model
        model.eval()
        start = time.perf_counter()
        features = {k: v for k, v in batch.inputs.items() if k != batch.label_key}
        with torch.no_grad():
            try:
                plain = model(**self._tensors(features))
                logits = _logits(plain)
            except Exception as exc:  # the plain forward itself fails: evidence for triage
                return ForwardResult(logits=None, raised="logits",
                                     error=f"{type(exc).__name__}: {one_line(exc)}",
                                     traceback=traceback.format_exc(),
                                     seconds=time.perf_counter() - start)
            result = ForwardResult(logits=logits)
            if getattr(plain, "loss", None) is not None:  # positions in the inputs (QA)
                result.loss = float(plain.loss)
            if batch.labels is not None:
                try:
                    out = model(**self._tensors({**features, "labels": batch.labels}))
                    result.loss = float(out.loss) if out.loss is not None else None
                except Exception as exc:
                    result.error = f"{type(exc).__name__}: {one_line(exc)}"
                    result.traceback = traceback.format_exc()
        result.seconds = time.perf_counter() - start
        return result

    def optimizer_defaults(self, name: str) -> dict[str, Any]:
        """What `torch.optim.<Name>(model.parameters())` uses when nothing else is passed."""
        torch = import_torch()
        classes = {n.lower(): getattr(torch.optim, n) for n in dir(torch.optim)
                   if isinstance(getattr(torch.optim, n), type)}
        cls = classes.get(name.lower())
        if cls is None:
            return {}
        shown = ("lr", "betas", "eps", "weight_decay", "momentum", "nesterov", "amsgrad")
        defaults = {k: p.default for k, p in inspect.signature(cls).parameters.items()
                    if k in shown and p.default is not inspect.Parameter.empty}
        if "lr" in defaults:
            defaults["learning_rate"] = float(defaults.pop("lr"))
        return {"class": f"torch.optim.{cls.__name__}", **defaults}

    def trainer_defaults(self) -> dict[str, Any]:
        """TrainingArguments' defaults, read from transformers itself."""
        import dataclasses

        from transformers import TrainingArguments

        fields = {f.name: f.default for f in dataclasses.fields(TrainingArguments)}
        return {"class": "transformers.TrainingArguments",
                **{k: v if isinstance(v, (int, float)) else str(getattr(v, "value", v))
                   for k, v in fields.items() if k in ("learning_rate", "weight_decay",
                                                      "warmup_steps", "lr_scheduler_type", "optim")}}



def _logits(out: Any) -> np.ndarray:
    """The output's logits; a QA head's start and end logits stacked, one row per window and
    end (each a distribution over the positions, as its loss takes them)."""
    if getattr(out, "logits", None) is None and getattr(out, "start_logits", None) is not None:
        return np.concatenate([out.start_logits.float().cpu().numpy(),
                               out.end_logits.float().cpu().numpy()])
    return out.logits.float().cpu().numpy()
