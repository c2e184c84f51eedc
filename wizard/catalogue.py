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
# Hub resolution (wizard/hub.py, wizard/probes/hub.py)
_check("environment.model-source", "Where the model comes from",
       "The resolved model: local folder, Hub id at a commit, or the Hub cache; pipeline tag, library, "
       "model type, parameter count from the safetensors metadata, file count.",
       "Metadata first: the repo is read from model_info and config.json alone, before any weights.", "",
       "huggingface_hub model_info / hf_hub_download")
_check("environment.dataset-source", "Where the dataset comes from",
       "The resolved dataset: Hub id (described by the dataset viewer), save_to_disk folder or data files; "
       "configs, splits with row counts, features and the first rows.",
       "The columns and splits are known before anything is downloaded.", "",
       "dataset viewer API /splits, /info, /first-rows")
_check("environment.hub-unreachable", "The Hub cannot be reached",
       "Offline mode (HF_HUB_OFFLINE=1), no network, or a timeout while reading a repo; info when the cache "
       "stood in, fail when the repo is not cached.",
       "Nothing that is not in the cache can be resolved or downloaded.",
       "unset HF_HUB_OFFLINE   # or run once online: hf download owner/name",
       "huggingface_hub OfflineModeIsEnabled / connection errors; timeout: HF_HUB_ETAG_TIMEOUT (10 s)")
_check("environment.model-not-found", "The model does not exist (or is not visible)",
       "The Hub answered RepositoryNotFound for the model id, or the local folder does not exist or has "
       "no config.json.",
       "A typo in the id, a missing owner prefix, or a folder saved without save_pretrained.",
       "model: distilbert-base-uncased   # copy the id from the model page",
       "huggingface_hub RepositoryNotFoundError")
_check("environment.dataset-not-found", "The dataset does not exist (or is not visible)",
       "The Hub answered RepositoryNotFound for the dataset id, or the local folder / data files do not "
       "exist or cannot be read.",
       "A typo in the id or path, or files in a format datasets cannot parse.",
       "dataset:\n  path: nyu-mll/glue\n  config: mrpc", "huggingface_hub RepositoryNotFoundError")
_check("environment.hub-auth-required", "The repo needs a token",
       "A repo not found while no token was available (HF_TOKEN, hf auth login, or the app's login): "
       "private repos look missing without one.",
       "The Hub answers 401 for private repos to anonymous requests.",
       "hf auth login   # or: export HF_TOKEN=hf_...", "Hub authentication docs")
_check("environment.gated-repo", "The repo is gated and access was not granted",
       "GatedRepoError: the repo's conditions were not accepted by the token's account (or no token).",
       "Gated repos serve their files only to accounts that accepted the conditions.",
       "# open the repo page, accept the conditions, then: hf auth login",
       "huggingface_hub GatedRepoError (401/403 X-Error-Code GatedRepo)")
_check("environment.revision-not-found", "The revision does not exist",
       "The branch, tag or commit given as revision is not in the repo.",
       "A typo, a deleted branch, or a commit of another repo.", "revision: main",
       "huggingface_hub RevisionNotFoundError")
_check("environment.hub-file-missing", "A file the model needs is missing from the repo",
       "The repo has no config.json (not a transformers checkpoint) or no weight files at all.",
       "from_pretrained needs config.json and one weights file.",
       "model: distilbert-base-uncased   # a transformers checkpoint with config.json and weights",
       "huggingface_hub EntryNotFoundError")
_check("environment.dataset-config", "Dataset config or split not found",
       "The dataset has several configs and none was chosen, the config is unknown, or a split named in "
       "the case does not exist.",
       "load_dataset fails with 'Config name is missing' or 'Unknown split'.",
       "dataset:\n  config: mrpc\n  train_split: train\n  eval_split: validation",
       "dataset viewer /splits")
_check("environment.needs-remote-code", "The model needs trust_remote_code",
       "config.json maps the model classes to Python files in the repo (auto_map).",
       "Loading runs that code on your machine; the wizard never enables it without an explicit yes.",
       "trust_remote_code: true   # in the case file, after reading the repo's .py files",
       "transformers auto_map / trust_remote_code")
_check("environment.pickle-weights-only", "Only pickle (or HDF5) weights, no safetensors",
       "The repo has pytorch_model.bin / tf_model.h5 but no *.safetensors.",
       "Unpickling a .bin file can run arbitrary code; safetensors cannot, and loads faster.",
       'model = AutoModel.from_pretrained(path, use_safetensors=False)  # trusted copy only\n'
       'model.save_pretrained("model-safetensors", safe_serialization=True)',
       "safetensors documentation")
_check("environment.download-size", "How much will be downloaded",
       "Total size of the files a fine-tuning run needs (config, tokenizer, one weights format), and how "
       "much of it is already in the Hub cache, from the repo's file list.",
       "A multi-GB download on a slow link is worth knowing before it starts.", "",
       "repo file list (model_info siblings / list_repo_tree); time at an assumed 10 MB/s")

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
_check("model.forward-raised", "The forward pass itself raises",
       "One batch through the freshly loaded model, without labels, raises; says whether the "
       "innermost frames are library code.",
       "With clean data checks, an exception deep inside transformers/torch/TF is a library-bug "
       "candidate: the wizard then writes and verifies a standalone reproduction.",
       "", "innermost frame classification: wizard/triage.py")
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
_check("memory.estimate", "Training memory estimated from metadata",
       "Per-device memory of one training step from the config and the safetensors headers (no "
       "weights downloaded): weights, gradients, optimizer state, activations for the batch size "
       "and sequence length, mixed precision, checkpointing, LoRA, and per-GPU figures under "
       "DDP, ZeRO-1/2/3 and FSDP; with the ranked changes that shrink it.",
       "Out-of-memory is the most common wall when fine-tuning; knowing which part dominates "
       "says which fix works.",
       "TrainingArguments(..., per_device_train_batch_size=8, gradient_accumulation_steps=2, "
       "bf16=True, gradient_checkpointing=True)",
       "Transformer Math 101 (EleutherAI) and Korthikanti et al. 2022 (sbh(34+5as/h) per layer), "
       "refined per op (CPU dropout keeps full-size masks, fused SDPA keeps no s^2 scores, the LM "
       "head keeps fp32 log-probabilities and two gradient buffers) and calibrated against "
       "measured peaks on CPU: GPT-2/BERT/DistilBERT/LLaMA/T5 random configs within 15 % "
       "(benchmarks/memory_accuracy.py)")
_check("memory.will-not-fit", "The training step will not fit the device",
       "The estimate (or a measured step that ran out of memory) exceeds the device's memory "
       "(GPU total minus what other processes hold; CPU: available RAM).",
       "The run would crash with CUDA out of memory / ResourceExhaustedError at the first step.",
       "model.gradient_checkpointing_enable()\n"
       "TrainingArguments(..., bf16=True, per_device_train_batch_size=4, gradient_accumulation_steps=4)",
       "estimate + 0.5 GiB CUDA context > capacity; the best fix is the first ranked change whose "
       "own estimate fits, else the ranked changes combined")
_check("memory.gpu-held-by-other-process", "Another process holds GPU memory",
       "NVML (as nvidia-smi) lists other processes using >= 256 MiB on the GPU.",
       "That memory is unavailable to training; an idle notebook kernel is the usual holder.",
       "nvidia-smi   # then stop the idle process or restart that notebook kernel",
       "nvmlDeviceGetComputeRunningProcesses; threshold 256 MiB")
_check("memory.tf-grabs-all-gpu-memory", "TensorFlow reserves all GPU memory",
       "A TensorFlow case on a GPU with memory growth off (and TF_FORCE_GPU_ALLOW_GROWTH unset).",
       "TensorFlow maps nearly all free GPU memory at start-up: nvidia-smi shows the card full and "
       "any other process on it runs out of memory.",
       "for gpu in tf.config.list_physical_devices('GPU'):\n"
       "    tf.config.experimental.set_memory_growth(gpu, True)",
       "TensorFlow GPU guide, 'Limiting GPU memory growth'")
_check("memory.measured-peak", "Measured peak of one training step",
       "Runs two real training steps in a fresh child process (random weights from the config) "
       "and reports the second step's peak: torch.cuda.max_memory_allocated on CUDA, the RSS "
       "high-water mark above the pre-model baseline on CPU; next to the estimate.",
       "The measurement is the ground truth for this model, device and library versions.",
       "", "the estimate's error on the benchmark set is <= 15 %; larger gaps point at custom code")
_check("memory.largest-batch", "Largest batch that fits",
       "Halves the batch from the case's value until a step fits (or doubles while it fits), then "
       "bisects, as accelerate's find_executable_batch_size does; each attempt in its own "
       "process so an out-of-memory cannot poison the next.",
       "Gives the per-device batch to use with gradient accumulation for the effective batch.",
       "TrainingArguments(..., per_device_train_batch_size=LARGEST, gradient_accumulation_steps=N)",
       "accelerate.utils.find_executable_batch_size")

# --- training (wizard/probes/training.py) --------------------------------------------------
_check("training.overfit-batch", "The model overfits one batch",
       "Trains on the first batch alone for a bounded number of steps with the user's optimizer "
       "settings; the loss falls below half its start. Carries the loss curve.",
       "The course's test: a model that can memorise one batch can learn; only then tune.", "",
       "HF course ch. 8 ('overfit one batch', fit(batch, epochs=20)); pass when the final loss "
       "(inference mode) <= 50 % of the initial loss within 40 steps")
_check("training.cannot-overfit-batch", "The model cannot overfit one batch",
       "The user's run on one batch does not bring the loss below half its start within 40 "
       "steps; a known-good run (Adam, 3e-3 under 10M trainable parameters, else 1e-4) on the "
       "same batch tells what it points to: the learning rate (the known-good run learns; fail "
       "when the user's loss diverges or the user's rate is above the known-good one, warn when "
       "it is below), a frozen model (no trainable parameters), or the data/labels/loss (neither "
       "run learns; notes a loss stuck at the batch's label entropy and identical inputs with "
       "different labels). skip when a training step raises.",
       "A model that cannot memorise 16 samples will not learn the dataset; the comparison "
       "separates optimizer settings from data faults.",
       "model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5))\n"
       "# Trainer: TrainingArguments(..., learning_rate=5e-5)",
       "HF course ch. 8; calibrated on a random 2-layer 32-dim DistilBERT: Adam 3e-3 takes the "
       "loss from 1.10 to 0.07 (PyTorch) / 0.05 (TF) in 50 steps, Adam 5e-5 leaves it at 1.10; "
       "judged relative to each run's own initial loss, never against an absolute zero")
_check("training.gradient-flow", "Gradient flow per layer",
       "Mean |gradient| per layer (grouped by block, ordered input to output) after one "
       "backward pass on the first batch (and after the user's optimizer has run on it), as a "
       "bar chart, with per-layer histograms of log10 |gradient|.",
       "Gradients that shrink or grow across layers are invisible in the loss alone.", "",
       "KDnuggets, 'Visual debugging tools for ML workflows' (gradient magnitudes and histograms)")
_check("training.vanishing-gradients", "Vanishing gradients",
       "The first non-embedding layer's mean |gradient| is below 1e-3 of the last layer's and "
       "below 1e-4 in absolute terms.",
       "The early layers barely learn: training is slow or stalls (deep sigmoid/tanh stacks).",
       "torch.nn.ReLU() / GELU, residual connections, LayerNorm, kaiming_normal_ initialisation",
       "AUTOTRAINER (Zhang et al., ICSE 2021) thresholds: ratio < 1e-3 and first layer < 1e-4; "
       "measured as mean |gradient| so layers of different sizes compare (the article's measure)")
_check("training.exploding-gradients", "Exploding gradients",
       "Non-finite gradients or loss (fail), or a first-layer mean |gradient| above 70x the last "
       "layer's (warn), at step 0 or after the user's optimizer has run on the batch.",
       "Huge or NaN updates destroy the weights: the loss spikes, then becomes NaN.",
       "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
       "# Keras: tf_keras.optimizers.Adam(learning_rate=5e-5, clipnorm=1.0)",
       "AUTOTRAINER (Zhang et al., ICSE 2021): first/last ratio > 70, or NaN/Inf")
_check("training.dead-units", "Dead units (zero gradients)",
       "A non-embedding layer where >= 70 % of the gradient entries are exactly zero (fail at "
       ">= 99 %: the layer gets no signal), with the count of units whose incoming weights all "
       "got zero.",
       "Dead ReLUs output 0 for every input and never recover; the capacity is lost.",
       "torch.nn.LeakyReLU(0.01)  # or GELU; zero biases; a lower learning rate",
       "AUTOTRAINER (Zhang et al., ICSE 2021) dying-ReLU threshold: >= 70 % zero gradients; "
       "embedding layers are excluded (rows of unused tokens are zero by design)")
_check("training.no-gradient", "Parameters that get no gradient",
       "Trainable parameters whose gradient is None after backward (fail when none gets one, "
       "warn when some do not), or a model with no trainable parameters at all (fail).",
       "Keras: 'No gradients provided for any variable'; PyTorch: weights that silently never "
       "change (unused modules, detached tensors, a frozen model).",
       "model.compile(optimizer=optimizer)  # Keras: the model's own loss\n"
       "for p in model.parameters(): p.requires_grad_(True)",
       "HF course ch. 8 ('No gradients provided for any variable'); any None gradient")
_check("training.embeddings", "Embedding projection",
       "PCA (numpy SVD) of the model's pooled last hidden state (first token when the inputs "
       "start with [CLS], else the mask-mean; the input of the last Linear layer for plain "
       "networks) for up to 128 samples, coloured by label, with the silhouette score and a "
       "leave-one-out nearest-centroid accuracy beside the majority share.",
       "Shows whether the representation separates the classes the head must tell apart.", "",
       "KDnuggets, 'Visual debugging tools for ML workflows' (embedding projections)")
_check("training.loss-output-mismatch", "The loss does not match the model's output",
       "The values the model outputs (probabilities: rows in [0, 1] summing to 1; sigmoid: all "
       "in [0, 1]; log-probabilities; logits) against what the loss expects (from_logits=True, "
       "CrossEntropyLoss, BCEWithLogitsLoss: logits; Keras losses with from_logits=False, "
       "BCELoss: probabilities; NLLLoss: log-probabilities).",
       "softmax + from_logits=True squashes the gradients (learning stalls); logits into a "
       "probability loss are clipped (a wrong loss); logits into NLLLoss run away to -inf.",
       "tf_keras.layers.Dense(num_classes)  # no softmax, with from_logits=True\n"
       "# PyTorch: no nn.Softmax before nn.CrossEntropyLoss",
       "framework documentation of each loss; rows summing to 1 within 1e-3")
_check("training.non-finite-step", "First non-finite loss or gradient in a live run",
       "The callback's record of the first training step whose loss or gradient norm is NaN/Inf, "
       "with the epoch, the step and the batch that produced it.",
       "Everything after the first non-finite step is lost; the batch and the step name the "
       "cause (a bad sample, a learning-rate spike, fp16 overflow).",
       "args = TrainingArguments(..., max_grad_norm=1.0, bf16=True)  # and inspect that batch",
       "any non-finite value (no threshold)")

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
       "standard deviations (1.4826 * MAD of up to 10 points each side) above it")
_check("curves.oscillation", "The loss oscillates",
       "Successive loss differences that mostly flip sign, with a large swing.",
       "The optimiser overshoots back and forth: the learning rate is too high for the batch.",
       "args = TrainingArguments(..., learning_rate=2e-5, gradient_accumulation_steps=4)\n"
       "# Keras: tf_keras.optimizers.Adam(learning_rate=2e-5)",
       "Own heuristic: >= 12 points, >= 85 % sign flips of successive differences (iid noise "
       "gives ~67 %; < 4 % false alarms in simulation at 30 % noise), median |difference| >= "
       "10 % of the median loss")
_check("curves.logs-unreadable", "The training logs cannot be read",
       "case.logs points at a missing file or a format that is not a Trainer trainer_state.json, "
       "a Keras CSVLogger/History file or a TensorBoard event folder.",
       "The curves checks need the logs.",
       "logs: output_dir/checkpoint-500/trainer_state.json")

# --- triage (wizard/triage.py) -------------------------------------------------------------
_check("triage.known-error", "The pasted error matches a known signature",
       "The pasted traceback or message matches an entry of the signature catalogue "
       "(wizard/triage.py SIGNATURES); evidence carries the numbers it names (labels, batch "
       "sizes, shapes, memory), the innermost user frame and the checks that confirm the cause.",
       "Most fine-tuning errors are a handful of known faults; naming the cause and the check "
       "that proves it saves the hunt.",
       "The fix of the matched signature (in the finding).",
       "Signature catalogue built from the transformers/torch/TensorFlow error texts; a match "
       "in the final exception ranks above one in a chained exception or elsewhere in the paste")
_check("triage.unknown-error", "The pasted error matches no known signature",
       "No signature matches, and the innermost frame is the user's own code (or no frames "
       "were pasted).",
       "The wizard's other checks still run; the user's frame is where to start reading.",
       "Read the innermost frame of your code shown in the evidence; TF graph errors: "
       "model.compile(..., run_eagerly=True) for a readable error.")
_check("triage.possible-library-bug", "Unknown error raised inside library code",
       "No signature matches and the innermost (non-standard-library) frame is library code "
       "(site-packages/dist-packages or a transformers, datasets, torch, tensorflow, keras, "
       "tf_keras, accelerate, tokenizers, huggingface_hub source tree).",
       "Combined with clean user-side checks this points at a library bug: the report step "
       "writes a minimal, verified reproduction for an issue.",
       "python -m wizard check case.yaml --report report/ --format github",
       "Frame classification by path; verdict only together with clean data/model checks")

# --- report (reports/) ---------------------------------------------------------------------
