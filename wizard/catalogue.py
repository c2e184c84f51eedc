"""The one catalogue of check ids. An id, once published, keeps its meaning.

Each entry says what the check detects, why it matters, the usual fix, and where its threshold
comes from. `docs/checks.md` is generated from this module (`python -m wizard checks --markdown`).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

CATEGORIES = ("environment", "data", "model", "hyperparameters", "memory", "training", "curves",
              "triage", "report", "wizard")


@dataclass(frozen=True)
class Check:
    id: str
    category: str
    title: str
    detects: str
    why: str
    fix: str
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


CHECKS: dict[str, Check] = {}


def _check(id: str, title: str, detects: str, why: str, fix: str, source: str = "") -> None:
    category = id.split(".", 1)[0]
    assert category in CATEGORIES, id
    assert id not in CHECKS, id
    CHECKS[id] = Check(id, category, title, detects, why, fix, source)


# --- wizard itself -------------------------------------------------------------------------
_check("wizard.probe-crashed", "A probe could not finish",
       "A probe raised, hung past its time limit, or its process died (out of memory, segfault).",
       "The wizard goes on without it; the message tells what happened so it can be retried.",
       "Re-run with a longer --timeout, a smaller batch, or --device cpu.")

# --- environment ---------------------------------------------------------------------------
_check("environment.device", "Device the probes ran on",
       "Which accelerator the probes used (CUDA GPU, TensorFlow GPU, or CPU).",
       "Numbers such as memory and speed depend on it.", "Pass --device to override.")
_check("environment.tf-safetensors-load-bug",
       "transformers could not load PyTorch safetensors into TensorFlow",
       "TFAutoModel....from_pretrained failed with \"'builtins.safe_open' object is not "
       "iterable\" and the wizard fell back to tf_model.h5.",
       "A library incompatibility (transformers 4.57 TF loader vs safetensors' safe_open), not "
       "a fault in the user's setup.",
       "model = TFAutoModelForSequenceClassification.from_pretrained(checkpoint, "
       "use_safetensors=False)", "measured: transformers 4.57.6 with safetensors 0.4.5..0.8.0")
_check("environment.transformers-without-tensorflow",
       "TensorFlow model classes are not available in this transformers",
       "A TensorFlow case run beside transformers>=5, which removed its TF classes.",
       "TFAutoModel... raise ImportError or AttributeError there.",
       'pip install "transformers>=4.57,<5" "tf-keras~=2.21" && export TF_USE_LEGACY_KERAS=1',
       "transformers 5 release notes")
_check("environment.framework-missing", "The case's framework is not installed",
       "framework: tensorflow without TensorFlow, or pytorch without torch.",
       "Nothing can be run on the model without its framework.",
       "pip install 'hf-debug-wizard[tf]'   # or [torch]")

# --- data ----------------------------------------------------------------------------------
_check("data.batch-structure", "The batch as it enters the model",
       "Keys, shapes and dtypes of the first batch, where the labels sit, the first examples "
       "decoded with tokenizer.decode beside their labels.",
       "Looking at the data where it enters the model is the first check of the course.",
       "", "HF course ch. 8, 'Check your data'")
_check("data.labels-in-inputs-with-keras-loss", "Labels are inside the inputs while compile() got a loss",
       "The label column rides inside the input dict (so the model computes its own loss) while "
       "compile(loss=...) asks Keras for another loss.",
       "Old transformers: 'No gradients provided for any variable'. transformers 4.57: the labels "
       "are copied out and Keras silently trains on a loss computed the wrong way (a string loss "
       "assumes probabilities, the model outputs logits).",
       'model.compile(optimizer=...)  # no loss=: the model uses its internal loss',
       "HF course ch. 8; measured with transformers 4.57.6: initial loss 2.23 where ln 3 = 1.10")
_check("data.labels-out-of-range", "Labels outside 0..num_labels-1",
       "Label values >= model.config.num_labels (or < 0, other than -100).",
       "TF on CPU: 'Received a label value of 2 which is outside the valid range of [0, 2)'; "
       "TF with XLA or on GPU: NaN loss on exactly those samples; PyTorch: 'Target 2 is out of bounds'.",
       'model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=3)',
       "HF course ch. 8, 'Check your model'")
_check("data.label-balance", "Label balance and baselines",
       "Share of the majority class, the rarest class, and the loss/accuracy of uniform-random "
       "and majority-constant predictions.",
       "A model that only predicts the majority class can look good on accuracy; the initial loss "
       "should be near ln(C).", "", "HF course ch. 8, 'Check your data again'")

# --- model ---------------------------------------------------------------------------------
_check("model.forward", "One batch through the model",
       "Runs the first batch through the model and checks the outputs are finite.",
       "NaN or Inf in the logits of an untrained step points at the inputs or the weights.",
       "", "HF course ch. 8, 'Check your model'")
_check("model.nan-loss-samples", "Samples whose loss is NaN",
       "Per-sample loss of one batch: which samples give NaN or Inf, and their labels.",
       "NaN spreads to the whole model within a step; finding the first samples isolates the cause.",
       "", "HF course ch. 8 (np.flatnonzero(np.isnan(loss)))")
_check("model.initial-loss", "Initial loss against ln(C)",
       "The loss of the untrained head on one batch compared with ln(number of classes).",
       "A freshly initialised classifier predicts near-uniform probabilities, so its cross-entropy "
       "is close to ln(C); a large gap means the loss is wired wrong or the head is saturated.",
       "", "HF course ch. 8; threshold: |loss - ln C| > 0.5 * ln C")

# --- hyperparameters -----------------------------------------------------------------------
_check("hyperparameters.hidden-defaults", "Defaults hidden by string shortcuts",
       "Optimizer/loss given as strings (e.g. 'adam'), and the values they stand for.",
       "'adam' means Adam(learning_rate=0.001), which is rarely what a transformer needs.",
       "", "HF course ch. 8")
_check("hyperparameters.learning-rate-too-high", "Learning rate too high for fine-tuning a transformer",
       "An Adam-family learning rate above 1e-4 while fine-tuning a pretrained transformer.",
       "Transformers are fine-tuned at 1e-5..1e-4; 1e-3 (Keras's 'adam' default) makes the loss "
       "stall high or diverge.",
       "from tf_keras.optimizers import Adam\nmodel.compile(optimizer=Adam(learning_rate=5e-5))",
       "HF course ch. 8; BERT paper (2e-5..5e-5); threshold 1e-4")

# --- memory (wizard/probes/memory.py, wizard/memory_estimate.py) ---------------------------

# --- training (wizard/probes/training.py) --------------------------------------------------

# --- curves (wizard/probes/curves.py) ------------------------------------------------------
_check("curves.summary", "The loss curves read from the training logs",
       "Training and validation loss read from trainer_state.json, a Keras CSVLogger/History "
       "file or TensorBoard events: counts, first/last/min loss, and the plot.",
       "The loss curve is the first thing to look at when training misbehaves.", "",
       "KDnuggets, 'Visual debugging tools for ML workflows' (loss curves)")
_check("curves.nan", "The loss becomes NaN or Inf",
       "The first NaN/Inf in the training or validation loss, with its step or epoch.",
       "After the first NaN step the weights are NaN and nothing more is learned; the step "
       "points at the batch or the moment (learning rate, fp16 overflow) that broke it.",
       "args = TrainingArguments(..., learning_rate=2e-5, max_grad_norm=1.0, bf16=True)\n"
       "# Keras: model.fit(..., callbacks=[tf_keras.callbacks.TerminateOnNaN()])",
       "any non-finite value (no threshold)")
_check("curves.overfitting", "Validation loss rises while training loss falls",
       "The point where the (median-of-3 smoothed) validation loss has its minimum and then "
       "rises for at least 2 evaluations while the training loss keeps falling.",
       "The model memorises the training set; the checkpoint at the onset is the best one.",
       "args = TrainingArguments(..., load_best_model_at_end=True, metric_for_best_model="
       "\"eval_loss\")\n"
       "trainer = Trainer(..., callbacks=[EarlyStoppingCallback(early_stopping_patience=2)])\n"
       "# Keras: tf_keras.callbacks.EarlyStopping(monitor=\"val_loss\", patience=2, "
       "restore_best_weights=True)",
       "Rule from KDnuggets 'Visual debugging tools' (val rises while train falls); thresholds "
       "are own heuristics: >= 4 evaluations, >= 2 after the minimum, smoothed end >= 5 % above "
       "the minimum, each of the last two >= 2.5 % above it, train loss >= 2 % lower at the end "
       "than at the onset")
_check("curves.plateau", "The loss is flat from the start (nothing learned)",
       "Training loss (validation if there is none) that stays flat over the first half of the "
       "run and never falls meaningfully below its start; notes when it sits at ln(C).",
       "Both curves flattening early means the model is not learning: usually the learning rate "
       "(Keras 'adam' = 1e-3) or the data/labels.",
       "model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5))\n"
       "# Trainer: TrainingArguments(..., learning_rate=5e-5)",
       "Symptom from KDnuggets 'Visual debugging tools'; thresholds are own heuristics on chunk "
       "medians (up to 8 chunks): first half within 2 % of the start, whole run never 5 % below "
       "it, >= 5 points")
_check("curves.spikes", "Isolated loss spikes",
       "Single points far above the median of the points on both sides of them, with steps.",
       "Spikes come from bad batches or too-large updates and often precede divergence or NaN.",
       "args = TrainingArguments(..., max_grad_norm=1.0, warmup_steps=100)\n"
       "# Keras: tf_keras.optimizers.Adam(learning_rate=5e-5, clipnorm=1.0)",
       "Own heuristic: >= 1.5x the larger median of the 3 points on each side and >= 6 robust "
       "standard deviations (1.4826 * MAD) above it")
_check("curves.oscillation", "The loss oscillates",
       "Successive loss differences that mostly flip sign, with a large swing.",
       "The optimiser overshoots back and forth: the learning rate is too high for the batch.",
       "args = TrainingArguments(..., learning_rate=2e-5, gradient_accumulation_steps=4)\n"
       "# Keras: tf_keras.optimizers.Adam(learning_rate=2e-5)",
       "Own heuristic: >= 12 points, >= 80 % sign flips of successive differences (iid noise "
       "gives ~67 %), median |difference| >= 10 % of the median loss")
_check("curves.logs-unreadable", "The training logs cannot be read",
       "case.logs points at a missing file or a format that is not a Trainer trainer_state.json, "
       "a Keras CSVLogger/History file or a TensorBoard event folder.",
       "The curves checks need the logs.",
       "logs: output_dir/checkpoint-500/trainer_state.json")

# --- triage (wizard/triage.py) -------------------------------------------------------------

# --- report (reports/) ---------------------------------------------------------------------
