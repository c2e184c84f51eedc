"""The minimal reproduction: a standalone script from the case and the observed failure,
verified in a fresh interpreter and shrunk (fewest samples, smallest batch, tiny config).

The script uses public APIs only and inlines the failing sample(s) as token ids / attention
masks (no dataset, no tokenizer). Where the weights do not matter it builds a tiny, randomly
initialised model of the same architecture (`AutoConfig.for_model(model_type, ...)` from the
real config with its sizes shrunk), so a maintainer needs no download. A candidate script
counts as a reproduction only when a fresh `sys.executable` running it fails with the same
error signature (exception type + normalised message, read with wizard.triage.messages), or raises the
script's own non-finite-logits assertion for a NaN failure.
"""
from __future__ import annotations

import os
import pprint
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

from wizard.reports.jinja import environment
from wizard.reports.redact import redact
from wizard.settings import REPRO_BUDGET
from wizard.triage.messages import describe_error, error_signature, normalise_message
from wizard.triage.parse import parse_traceback

NAN_MESSAGE = "non-finite logits (NaN/Inf) for samples"
NOT_REPRODUCED = "Not reproduced:"
RUN_TIMEOUT = 120.0        # one candidate script
TOTAL_BUDGET = REPRO_BUDGET  # all candidates together (below the worker's probe limit)
SCRIPT_NAME = "repro.py"

# -- the failure ------------------------------------------------------------------------------


@dataclass
class Failure:
    """What went wrong in the wizard's own forward pass, in a comparable form."""

    kind: str                          # "raise" | "nan"
    framework: str                     # "pytorch" | "tensorflow"
    signature: str                     # "RuntimeError: <normalised message>"
    error: str = ""                    # the error as raised (first line), for people
    rows: list[int] = field(default_factory=list)   # failing rows of the batch (nan)
    package: str | None = None         # the library of the innermost frame (raise)
    traceback: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("traceback")
        return d


def failure_from_forward(forward: Any, framework: str) -> Failure | None:
    """The failure of a ForwardResult: the plain forward raised, or gave non-finite logits."""
    import numpy as np


    if getattr(forward, "raised", None) == "logits" or forward.logits is None:
        tb = forward.traceback or ""
        parsed = parse_traceback(tb)
        signature = error_signature(tb) or f"{(forward.error or 'Error').split(':')[0]}: " + \
            normalise_message((forward.error or "").partition(":")[2])
        return Failure("raise", framework, signature,
                       error=describe_error(tb, forward.error or ""),
                       package=parsed.innermost_library_package, traceback=tb)
    logits = np.asarray(forward.logits)
    bad = np.flatnonzero(~np.isfinite(logits.reshape(len(logits), -1)).all(axis=1))
    if bad.size:
        return Failure("nan", framework, f"AssertionError: {normalise_message(NAN_MESSAGE)}",
                       error=f"{bad.size} of {len(logits)} samples have NaN/Inf logits",
                       rows=[int(i) for i in bad])
    return None


# -- the model: tiny config or the checkpoint ------------------------------------------------

# Config attributes by role, across architectures; only int values above the tiny size shrink.
_SIZES: dict[str, tuple[tuple[str, ...], int]] = {
    "hidden": (("hidden_size", "dim", "d_model", "n_embd", "embed_dim", "pooler_hidden_size",
                "word_embed_proj_dim"), 32),
    "layers": (("num_hidden_layers", "n_layers", "num_layers", "n_layer", "encoder_layers",
                "decoder_layers", "num_decoder_layers"), 2),
    "heads": (("num_attention_heads", "n_heads", "n_head", "encoder_attention_heads",
               "decoder_attention_heads", "num_heads"), 2),
    "ffn": (("intermediate_size", "hidden_dim", "ffn_dim", "n_inner", "encoder_ffn_dim",
             "decoder_ffn_dim", "d_ff"), 64),
    "embedding": (("embedding_size",), 16),
    "head_dim": (("head_dim", "d_kv"), 16),
    "experts": (("num_local_experts", "num_experts"), 4),
    "experts_per_token": (("num_experts_per_tok",), 2),
}
SIZE_KEYS = frozenset(k for keys, _ in _SIZES.values() for k in keys)   # every size attribute
_DROP = {"_name_or_path", "transformers_version", "architectures", "torch_dtype", "dtype",
         "_attn_implementation_autoset", "_commit_hash", "auto_map", "quantization_config",
         "model_type", "id2label", "label2id", "max_window_layers"}


def tiny_config(config: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments for `AutoConfig.for_model(model_type, **kw)`: the real config's
    non-default values with its sizes shrunk (hidden 32, 2 layers, 2 heads, FFN 64)."""
    kw = {k: v for k, v in config.items() if k not in _DROP and not k.startswith("_")}
    num_labels = len(config.get("id2label") or {}) or config.get("num_labels")
    if num_labels:
        kw["num_labels"] = int(num_labels)
    full = {**config, **kw}
    for keys, size in _SIZES.values():
        for key in keys:
            value = full.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value > size:
                kw[key] = size
    heads = next((kw[k] for k in _SIZES["heads"][0] if k in kw), None)
    kv = full.get("num_key_value_heads")
    if isinstance(kv, int) and heads:
        orig_heads = next((full[k] for k in _SIZES["heads"][0] if isinstance(full.get(k), int)), kv)
        kw["num_key_value_heads"] = 1 if kv < orig_heads else heads
    layers = next((kw[k] for k in _SIZES["layers"][0] if k in kw), None)
    if layers and isinstance(full.get("layer_types"), list):
        kw["layer_types"] = full["layer_types"][:layers]
    return kw


@dataclass
class ModelSpec:
    """How the script gets its model."""

    tiny: bool
    model_type: str
    config: dict[str, Any] = field(default_factory=dict)   # for_model kwargs when tiny
    checkpoint: str = ""
    kwargs: dict[str, Any] = field(default_factory=dict)   # from_pretrained kwargs

    def describe(self) -> str:
        if self.tiny:
            sizes = ", ".join(f"{k}={self.config[k]}" for keys, _ in _SIZES.values()
                              for k in keys if k in self.config)
            return f"a tiny random {self.model_type} ({sizes})"
        return f"the checkpoint {self.checkpoint}"


# -- the inputs -------------------------------------------------------------------------------


@dataclass
class Inputs:
    """The sample(s) the script inlines."""

    features: dict[str, list[list[int]]]
    labels: list[Any] | None
    rows: list[int]                       # rows of the wizard's batch
    dataset_rows: list[int]               # rows of the dataset split
    trimmed: bool = False                 # padding columns no chosen row uses were dropped

    @property
    def batch_size(self) -> int:
        return len(self.rows)

    @property
    def seq_len(self) -> int:
        first = next(iter(self.features.values()), [])
        return len(first[0]) if first else 0


def select_inputs(features: dict[str, Any], labels: Any, rows: Iterable[int],
                  indices: list[int] | None = None, trim: bool = False) -> Inputs:
    """The given rows of a batch (numpy arrays), optionally without all-padding columns."""
    import numpy as np

    rows = [int(r) for r in rows]
    arrays = {k: np.asarray(v)[rows] for k, v in features.items()}
    trimmed = False
    mask = arrays.get("attention_mask")
    if trim and mask is not None and mask.ndim == 2:
        used = np.flatnonzero(mask.any(axis=0))
        if used.size and used.size < mask.shape[1]:
            keep = np.arange(used.min(), used.max() + 1)
            arrays = {k: (v[:, keep] if v.ndim == 2 and v.shape[1] == mask.shape[1] else v)
                      for k, v in arrays.items()}
            trimmed = True
    label_list = None
    if labels is not None:
        label_list = np.asarray(labels)[rows].tolist()
    indices = indices or list(range(max(rows) + 1 if rows else 0))
    return Inputs({k: v.tolist() for k, v in arrays.items()}, label_list, rows,
                  [indices[r] if r < len(indices) else r for r in rows], trimmed)


# -- rendering --------------------------------------------------------------------------------


def config_overrides(config: Any) -> dict[str, Any]:
    """The values of a transformers config that differ from its class's defaults."""
    from transformers import AutoConfig

    values = config.to_dict()
    try:
        defaults = AutoConfig.for_model(values["model_type"]).to_dict()
    except Exception:  # an architecture this transformers cannot build: keep everything
        defaults = {}
    return {k: v for k, v in values.items() if k not in defaults or defaults[k] != v}


def _literal(value: Any, indent: int = 4) -> str:
    """A Python literal, one row per line for 2-D lists, one key per line for dicts."""
    if isinstance(value, dict) and value:
        pad = " " * (indent + 4)
        items = [f"{pad}{k!r}: {_literal(v, indent + 4)}," for k, v in value.items()]
        return "{\n" + "\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(value, list) and value and all(isinstance(r, list) for r in value):
        pad = " " * (indent + 4)
        rows = [pad + _wrap_row(r, indent + 4) for r in value]
        return "[\n" + ",\n".join(rows) + ",\n" + " " * indent + "]"
    return pprint.pformat(value, width=88 - indent, sort_dicts=False, compact=True).replace(
        "\n", "\n" + " " * indent)


def _wrap_row(row: list[Any], indent: int) -> str:
    text = pprint.pformat(row, width=96 - indent, compact=True)
    return text.replace("\n", "\n" + " " * indent)


def render_script(framework: str, failure: Failure, model: ModelSpec, inputs: Inputs,
                  device: str = "cpu", title: str = "") -> str:
    """The reproduction script's text (templates/repro_torch.py.j2 or repro_tf.py.j2)."""

    name = "repro_tf.py.j2" if framework == "tensorflow" else "repro_torch.py.j2"
    ckpt_args = [repr(model.checkpoint)] + [f"{k}={v!r}" for k, v in model.kwargs.items()]
    env = environment()
    env.filters["pyrepr"] = repr
    return env.get_template(name).render(
        nan_message=NAN_MESSAGE, not_reproduced=NOT_REPRODUCED,
        title=_docstring_safe(title or default_title(failure, model)), kind=failure.kind,
        failure=failure,
        tiny=model.tiny, model_type=model.model_type, config_literal=_literal(model.config, 0),
        checkpoint_args=", ".join(ckpt_args), device=device,
        features={k: _literal(v, 4) for k, v in inputs.features.items()},
        labels=_literal(inputs.labels, 0) if inputs.labels is not None else None,
        dataset_rows=inputs.dataset_rows, batch_size=inputs.batch_size)


def _docstring_safe(text: str) -> str:
    """One line that cannot end the script's docstring early."""
    text = text.replace("\\", "/").replace('"' * 3, "'" * 3)
    return " ".join(text.split()).rstrip('"')


def default_title(failure: Failure, model: ModelSpec) -> str:
    arch = model.model_type or "the model"
    framework = {"pytorch": "PyTorch", "tensorflow": "TensorFlow"}.get(failure.framework,
                                                                      failure.framework)
    if failure.kind == "nan":
        return f"{arch} ({framework}): the forward pass returns NaN/Inf logits"
    error = (failure.error or failure.signature).strip()
    error = error if len(error) <= 110 else error[:109] + "…"
    return f"{arch} ({framework}): the forward pass raises {error}"


# -- running and checking ---------------------------------------------------------------------


@dataclass
class Outcome:
    """One run of a candidate script."""

    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False

    @property
    def output(self) -> str:
        return (self.stdout + ("\n" if self.stdout and self.stderr else "") + self.stderr).strip()


def run_script(script: str, timeout: float = RUN_TIMEOUT, env: dict[str, str] | None = None,
               python: str | None = None) -> Outcome:
    """Run `script` as repro.py in a fresh interpreter in an empty folder."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="wizard-repro-") as tmp:
        path = Path(tmp) / SCRIPT_NAME
        path.write_text(script, encoding="utf-8")
        full_env = {**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1",
                    "TOKENIZERS_PARALLELISM": "false"}
        try:
            proc = subprocess.run([python or sys.executable, SCRIPT_NAME], cwd=tmp, env=full_env,
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            return Outcome(None, _text(exc.stdout, tmp), _text(exc.stderr, tmp),
                           time.perf_counter() - start, timed_out=True)
        return Outcome(proc.returncode, _text(proc.stdout, tmp), _text(proc.stderr, tmp),
                       time.perf_counter() - start)


def _text(value: Any, tmp: str) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    text = (value or "").replace(os.path.realpath(tmp) + os.sep, "").replace(tmp + os.sep, "")
    return text[-20000:]


def check_outcome(outcome: Outcome, failure: Failure) -> tuple[bool, str]:
    """(reproduced, why): the run failed with the failure's signature."""
    if outcome.timed_out:
        return False, "timed out"
    if outcome.returncode == 0:
        line = next((ln for ln in outcome.stdout.splitlines() if ln.startswith(NOT_REPRODUCED)),
                    "ran without error")
        return False, line
    got = error_signature(outcome.stderr)
    if got is None:
        return False, f"exit code {outcome.returncode} without a Python traceback"
    if got == failure.signature or (failure.kind == "nan" and got.startswith(failure.signature)):
        return True, "same error signature"
    return False, f"another error: {got[:200]}"


# -- candidates, shrinking --------------------------------------------------------------------


@dataclass
class Attempt:
    samples: int
    seq_len: int
    model: str              # "tiny" | "checkpoint"
    reproduced: bool
    why: str
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["seconds"] = round(self.seconds, 1)
        return d


@dataclass
class Reproduction:
    """The outcome of reproducing: the chosen script and how it was verified."""

    failure: Failure
    verified: bool
    script: str = ""                       # the smallest verified script (or the last tried)
    model: ModelSpec | None = None
    inputs: Inputs | None = None
    output: str = ""                       # what the verified run printed (the traceback)
    attempts: list[Attempt] = field(default_factory=list)
    stopped: str = ""                      # why the search stopped early, if it did

    @property
    def weights_matter(self) -> bool | None:
        """True when only the checkpoint reproduces, False when the tiny config does."""
        if not self.verified or self.model is None:
            return None
        return not self.model.tiny

    def evidence(self) -> dict[str, Any]:
        ev: dict[str, Any] = {"verified": self.verified, "failure": self.failure.to_dict(),
                              "attempts": [a.to_dict() for a in self.attempts]}
        if self.model is not None and self.inputs is not None:
            ev.update({"title": default_title(self.failure, self.model),
                       "model": self.model.describe(), "tiny_config": self.model.tiny,
                       "weights_matter": self.weights_matter,
                       "samples": self.inputs.dataset_rows, "batch_size": self.inputs.batch_size,
                       "seq_len": self.inputs.seq_len, "padding_trimmed": self.inputs.trimmed})
        if self.output:
            ev["output"] = self.output[-6000:]
        if self.stopped:
            ev["stopped"] = self.stopped
        ev["command"] = f"python {SCRIPT_NAME}"
        return ev


def candidates(failure: Failure, batch_size: int) -> list[tuple[list[int], bool]]:
    """(rows, trim padding) from the smallest: one failing row, the failing rows, the batch."""
    first = failure.rows[:1] or [0]
    sets: list[tuple[list[int], bool]] = [(first, True)]
    if failure.rows and len(failure.rows) > 1 and len(failure.rows) < batch_size:
        sets.append((list(failure.rows), False))
    sets.append((list(range(batch_size)), False))
    return sets


def reproduce(failure: Failure, framework: str, features: dict[str, Any], labels: Any,
              model_type: str, config: dict[str, Any], checkpoint: str,
              checkpoint_kwargs: dict[str, Any] | None = None, indices: list[int] | None = None,
              device: str = "cpu", env: dict[str, str] | None = None,
              run_timeout: float = RUN_TIMEOUT, budget: float = TOTAL_BUDGET,
              try_tiny: bool = True) -> Reproduction:
    """Try candidate scripts from the smallest (one sample, tiny config) up to the whole batch
    with the checkpoint; the first one whose fresh run fails the same way is the reproduction."""
    import numpy as np

    batch_size = len(np.asarray(next(iter(features.values()))))
    models: list[ModelSpec] = []
    if try_tiny and model_type:
        models.append(ModelSpec(True, model_type, tiny_config(config)))
    if checkpoint:  # "" when there is no checkpoint to load (live objects)
        models.append(ModelSpec(False, model_type, checkpoint=checkpoint,
                                kwargs=dict(checkpoint_kwargs or {})))
    result = Reproduction(failure, verified=False)
    start = time.monotonic()
    tried: set[str] = set()
    for rows, trim in candidates(failure, batch_size):
        inputs = select_inputs(features, labels, rows, indices, trim=trim)
        for model in models:
            script = render_script(framework, failure, model, inputs, device=device)
            if script in tried:
                continue  # e.g. one sample without padding: trimmed == untrimmed
            tried.add(script)
            left = budget - (time.monotonic() - start)
            if left < 10:
                result.stopped = f"time budget of {budget:.0f} s used up"
                return result
            outcome = run_script(script, timeout=min(run_timeout, left), env=env)
            ok, why = check_outcome(outcome, failure)
            result.attempts.append(Attempt(inputs.batch_size, inputs.seq_len,
                                           "tiny" if model.tiny else "checkpoint", ok, why,
                                           outcome.seconds))
            result.script, result.model, result.inputs = script, model, inputs
            if ok:
                result.verified = True
                result.output = outcome.output
                return result
    result.output = ""
    return result


# -- writing ----------------------------------------------------------------------------------


def script_from_result(result: dict[str, Any]) -> str | None:
    """The reproduction script of a Result.to_dict(), if the session wrote one."""
    for f in result.get("findings", []):
        if f.get("id") == "report.reproduction" and f.get("fix") and \
                (f.get("evidence") or {}).get("attempts"):
            return f["fix"]
    return None


def write_script(result: dict[str, Any], out_dir: Path) -> Path | None:
    """Write the (redacted) reproduction script next to the report as repro.py."""

    script = script_from_result(result)
    if not script:
        return None
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / SCRIPT_NAME
    path.write_text(redact(script), encoding="utf-8")
    return path
