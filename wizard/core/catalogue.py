"""The one catalogue of check ids. An id, once published, keeps its meaning.

Each entry says what the check detects, why it matters, the usual fix, and where its threshold
comes from. `docs/checks.md` is generated from this module (`python -m wizard checks --markdown`).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

CATEGORIES = ("environment", "data", "model", "hyperparameters", "memory", "training", "curves",
              "triage", "report", "wizard", "script", "metrics")


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
_check("wizard.step-skipped", "A step or check did not run",
       "An earlier finding made it impossible: the framework cannot run here, the model or dataset "
       "cannot be reached, or the batch cannot be built (no label column, string labels, no pad "
       "token). Each skip names that finding.",
       "Checks that could not run are neither passed nor failed: the verdict says so.",
       "Fix or resolve the finding the step names, then run the checks again.")

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
_check("environment.keras-3", "Keras 3 beside transformers' TensorFlow models",
       "A TensorFlow case where Keras 3 is installed as keras, and either tf-keras is missing "
       "(fail) or TF_USE_LEGACY_KERAS is not set, so tf.keras is Keras 3 (warn).",
       "transformers' TF models are Keras 2 (tf-keras) models: without tf-keras they refuse to "
       "load, and objects built with Keras 3 fail inside them.",
       'pip install "tf-keras~=2.21" && export TF_USE_LEGACY_KERAS=1',
       "transformers PR #28588 (tf_keras first, Keras 3 refused)")
_check("environment.package-versions", "Installed libraries outside each other's ranges",
       "An installed Hugging Face library release (transformers, datasets, accelerate, peft, trl, "
       "huggingface_hub, sentence-transformers, evaluate) beside another library at a version "
       "outside the range that release's wheel requires.",
       "The release was built and tested against that range; outside it imports and calls "
       "between the two fail, often as ImportError or unexpected keyword arguments.",
       'pip install "<dependency><range>"   # or upgrade both together',
       "the releases' Requires-Dist, recorded in wizard/triage/api_history.json")
_check("environment.framework-missing", "The case's framework is not installed",
       "framework: tensorflow without TensorFlow, or pytorch without torch.",
       "Nothing can be run on the model without its framework.",
       "pip install 'hf-debug-wizard[tf]'   # or [torch]")
# Hub resolution (wizard/hub/, wizard/checks/hub.py)
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
       "stood in, skip when the repo is not cached (the checks that need it are listed as skipped, "
       "not counted as faults).",
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

# --- data, more (labels/text/tokenizer/collation: wizard/checks/labels.py, text.py, ...) ---
_check("data.label-column-missing", "The label column does not reach the model",
       "The label column is not in the dataset, preprocessing removed it, or it has a name "
       "other than label/labels/label_ids so Trainer's remove_unused_columns drops it (or a "
       "loop / Keras passes it as an unknown keyword instead of `labels`).",
       "Without labels the model computes no loss: 'The model did not return a loss from the "
       "inputs', or an unexpected keyword argument.",
       'dataset = dataset.rename_column("sentiment", "labels")',
       "transformers Trainer._set_signature_columns_if_needed (forward args + label, label_ids); "
       "DataCollatorWithPadding renames label/label_ids to labels")
_check("data.string-labels", "String labels never mapped to class ids",
       "The label column holds strings (e.g. 'positive').",
       "Losses need integer class ids; PyTorch's collator fails with 'Unable to create tensor "
       "... (`label` in this case)', TensorFlow's loss with 'Cast string to int64 is not "
       "supported'.",
       'label2id = {"negative": 0, "positive": 1}\n'
       'dataset = dataset.map(lambda x: {"labels": label2id[x["label"]]}, remove_columns=["label"])',
       "any string label (no threshold)")
_check("data.class-ids-for-one-hot-loss", "Class ids for a loss that takes one-hot rows",
       "A Keras model compiled with CategoricalCrossentropy (not the Sparse one) while the "
       "labels are class ids, one integer per example.",
       "CategoricalCrossentropy needs a one-hot row per example: fit() raises 'Shapes (None, 1) "
       "and (None, N) are incompatible'.",
       "loss = tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True)",
       "tf_keras.losses: CategoricalCrossentropy (one-hot) vs SparseCategoricalCrossentropy "
       "(integer class ids)")
_check("data.labels-not-zero-based", "Labels numbered from 1",
       "Integer labels forming 1..C with 0 never used, in every split checked.",
       "Class ids must start at 0: label C has no output in a C-way head (fail), or a C+1-way "
       "head keeps an output that is never trained and every id is one off (warn).",
       'dataset = dataset.map(lambda x: {"labels": x["label"] - 1}, remove_columns=["label"])',
       "at least 2 distinct labels, exactly 1..C")
_check("data.label-dtype-problem-type", "Label dtype against the loss transformers picks",
       "PyTorch: float labels with num_labels > 1 (transformers switches to multi-label BCE), "
       "problem_type='multi_label_classification' with one id per example or with integer "
       "multi-hot vectors; TensorFlow: multi-hot labels without a Keras loss (the TF models' "
       "own loss is single-label); both frameworks: num_labels=1 with integer labels "
       "(regression on class ids, warn). The user's model is run on two rows for the real error.",
       "transformers picks the loss from num_labels, problem_type and the labels' dtype; a "
       "mismatch fails with 'Target size ... must be the same as input size' or 'result type "
       "Float can't be cast to the desired output type Long', or silently trains a regression.",
       'from datasets import Value\ndataset = dataset.cast_column("label", Value("int64"))',
       "transformers ...ForSequenceClassification loss selection (no threshold)")
_check("data.token-labels-for-sequence-head", "Token-level labels for a sequence-classification head",
       "The labels are lists (one per token, or ragged) while the model predicts one class per "
       "example; multi-hot 0/1 vectors of length num_labels are not flagged.",
       "'Expected input batch_size (X) to match target batch_size (Y)' (PyTorch), '`labels.shape` "
       "must equal `logits.shape`' (TF), or 'Unable to create tensor' in the collator.",
       "model = AutoModelForTokenClassification.from_pretrained(checkpoint, num_labels=n)\n"
       "data_collator = DataCollatorForTokenClassification(tokenizer)",
       "any list label that is not a multi-hot vector of length num_labels")
_check("data.eval-classes-unseen", "Eval classes the train rows never show",
       "Label values in the eval split that do not occur among the train rows checked.",
       "The model cannot learn those classes; their eval rows are always wrong. A train split "
       "sorted by label looks like this in its first rows.",
       "dataset['train'] = dataset['train'].shuffle(seed=0)  # or re-split with "
       "stratify_by_column", "any unseen class: fail when the whole train split was read "
       "(fewer rows than dataset.max_samples), warn when only a sample was")
_check("data.eval-label-shift", "Eval labels distributed unlike train",
       "Class shares of eval vs train (integer or string labels): total variation distance and a "
       "chi-square test of homogeneity; with the eval accuracy of the train majority class.",
       "Eval metrics then measure another class mix than training optimises for.",
       "dataset['train'] = dataset['train'].shuffle(seed=0)",
       "own thresholds: >= 30 rows per split, chi-square p < 1e-3 and total variation >= 0.15")
_check("data.empty-text", "Empty or missing texts",
       "None or non-string values (fail: the tokenizer raises) and empty/whitespace-only strings "
       "(warn from 1 % of a split) in the text columns, with row indices.",
       "Tokenizers accept only strings ('TextEncodeInput must be Union[...]'); an empty text "
       "keeps its label while the model sees only special tokens.",
       'dataset = dataset.filter(lambda x: isinstance(x["text"], str) and x["text"].strip())',
       "own threshold: empty strings in >= 1 % of a split's rows")
_check("data.train-eval-duplicates", "Eval texts that are also train texts (leakage)",
       "Eval rows whose text columns are exactly equal to a train row's, with both indices and "
       "whether the labels differ.",
       "Scoring on texts the model trained on overstates its quality on new text.",
       "train_texts = set(dataset['train']['text'])\n"
       "dataset['validation'] = dataset['validation'].filter(lambda x: x['text'] not in train_texts)",
       "own threshold: warn from 1 % of the eval rows (info below), fail from 10 % (the eval "
       "metrics then measure memory more than generalisation); on the sampled rows")
_check("data.text-lengths", "Token lengths and the share truncated",
       "Tokens per example with the user's tokenizer before truncation (median, p90, p99, max, a "
       "histogram), against the truncation limit and the model's positions; share of examples "
       "truncated, share of padding with padding='max_length'.",
       "Truncation drops the end of long examples; when the limit is well below the model's "
       "maximum, a longer max_length keeps that text.",
       "tokenizer(texts, truncation=True, max_length=256)",
       "own threshold: warn when >= 20 % of the examples are cut by a max_length below the "
       "model's maximum")
_check("data.sequence-longer-than-positions", "Sequences longer than the model's positions",
       "Sequences as the model gets them (after the case's truncation and padding) longer than "
       "max_position_embeddings (minus the padding offset for RoBERTa-style models); the model "
       "is run on one such row on CPU.",
       "Past the last position embedding the lookup fails: 'index out of range in self', a "
       "tensor size mismatch, a device-side assert on GPU; models that extrapolate run (warn).",
       "tokenizer(texts, truncation=True, max_length=model.config.max_position_embeddings)",
       "config.max_position_embeddings; RobertaEmbeddings position ids start at padding_idx + 1")
_check("data.no-pad-token", "No pad token, or a pad id the model does not know",
       "The tokenizer has no pad token while the batch needs padding (the collator is run on "
       "two rows of different lengths), or model.config.pad_token_id differs from the "
       "tokenizer's and one row's logits change when it is padded.",
       "'Asking to pad but the tokenizer does not have a padding token'; decoder models' "
       "classification heads pool the last non-pad token found by config.pad_token_id ('Cannot "
       "handle batch sizes > 1 if no padding token is defined', or a silently wrong token).",
       "tokenizer.pad_token = tokenizer.eos_token\nmodel.config.pad_token_id = tokenizer.pad_token_id",
       "logits tolerance 1e-3 + 1e-2 x max |logit|")
_check("data.token-ids-out-of-vocab", "Token ids past the embedding table",
       "Token ids in the tokenized rows >= the model's input embedding rows (fail, the model is "
       "run on one such row on CPU), or a tokenizer longer than the table (warn).",
       "Tokens added to the tokenizer without resize_token_embeddings make the lookup fail: "
       "'index out of range in self' (PyTorch CPU), a device-side assert (GPU), 'must be "
       "smaller than the embedding layer's input dimension' (TF).",
       "model.resize_token_embeddings(len(tokenizer))",
       "any id >= the number of embedding rows")
_check("data.tokenizer-model-mismatch", "A tokenizer from another checkpoint",
       "The tokenizer saved with the model (available locally) numbers the shared tokens "
       "differently from the user's (fail), or the tokenizer is much smaller than the embedding "
       "table (warn); special ids that differ from the config's are listed.",
       "The model reads the ids as other tokens: training starts from garbage embeddings, "
       "silently.",
       "tokenizer = AutoTokenizer.from_pretrained(checkpoint)  # the model's own",
       "own thresholds: > 1 % of the shared tokens with other ids; tokenizer > 10 % smaller "
       "than the table (padded tables differ by ~2 %)")
_check("data.ragged-batch", "Rows of different lengths and nothing pads them",
       "padding: none (or max_length that does not pad every row, or a pasted ragged-tensor "
       "error) while the first batch's rows differ in length; the collator the setup uses "
       "(default_data_collator, to_tf_dataset without collate_fn) is run on them.",
       "A batch must be rectangular: 'expected sequence of length X at dim 1 (got Y)', 'all "
       "input arrays must have the same shape'.",
       "data_collator = DataCollatorWithPadding(tokenizer)",
       "any length difference within the first batch")
_check("data.raw-text-columns", "Raw columns still in the dataset at collation",
       "PyTorch loop over a tokenized dataset that still has its text/extra columns (a live "
       "dataset, or a pasted error naming the column): DataCollatorWithPadding is run on the "
       "rows with every column.",
       "'Unable to create tensor, you should probably activate truncation and/or padding ... "
       "(`premise` in this case)'; only Trainer's remove_unused_columns drops such columns.",
       'tokenized = tokenized.remove_columns(["premise", "hypothesis", "idx"])',
       "the real collator's error (no threshold)")

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
# model: head, trainable parameters, precision, framework hints (wizard/checks/model_head.py,
# trainable.py, precision.py)
_check("model.head-size-mismatch", "The checkpoint's head has another size than num_labels",
       "Loads the checkpoint as the case does (num_labels as passed) with output_loading_info: "
       "the head's weights have other shapes in the checkpoint (a model fine-tuned on another "
       "number of classes); the real loading error is reproduced and the shapes listed.",
       "from_pretrained raises 'size mismatch for classifier.weight' (transformers 4) or 'You "
       "set ignore_mismatched_sizes to False' with a MISMATCH report (transformers 5); TF "
       "raises 'cannot reshape array'. The script cannot start.",
       "model = AutoModelForSequenceClassification.from_pretrained(\n    checkpoint, "
       "num_labels=3, ignore_mismatched_sizes=True)",
       "transformers loading info (mismatched_keys); no threshold")
_check("model.new-head", "Weights newly initialised at loading",
       "The loading info's missing keys: a new classification head (info: expected when "
       "fine-tuning a base checkpoint), or weights of the pretrained body that did not load "
       "(warn), plus the checkpoint weights left unused.",
       "The 'Some weights ... were not initialized' warning is expected for the head; body "
       "weights starting random mean the checkpoint does not fit the architecture.",
       "model, info = AutoModelForSequenceClassification.from_pretrained(checkpoint, "
       "output_loading_info=True)\nprint(info['missing_keys'])",
       "transformers output_loading_info; head = parameters outside base_model_prefix")
_check("model.num-labels-vs-classes", "The head's outputs against the dataset's classes",
       "num_labels (as passed, or the checkpoint's) against the classes of the data (ClassLabel "
       "names or the largest label + 1); more outputs than classes is reported as info.",
       "Unused outputs still train, but the initial loss is ln(num_labels) rather than ln(C) and "
       "a non-existent class can be predicted. Fewer outputs than classes is "
       "data.labels-out-of-range.",
       "model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=3)",
       "exact comparison; no threshold")
_check("model.label-mapping", "id2label / label2id against the dataset's label names",
       "config.id2label compared with the dataset's ClassLabel names: generic LABEL_i names "
       "(info), the same classes in another order (warn), other classes (info), label2id not "
       "the inverse of id2label (warn).",
       "A fine-tuned checkpoint numbering the classes differently reads every prediction as the "
       "wrong class; generic names make predictions and the saved model unreadable.",
       "model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=3,\n"
       "    id2label={0: 'entailment', 1: 'neutral', 2: 'contradiction'},\n"
       "    label2id={'entailment': 0, 'neutral': 1, 'contradiction': 2})",
       "case-insensitive name comparison; no threshold")
_check("model.nothing-trainable", "Nothing in the model is trainable",
       "Counts trainable parameters (requires_grad in PyTorch, trainable_weights in TF).",
       "With every parameter frozen, Keras raises 'No gradients provided for any variable' and "
       "PyTorch 'element 0 of tensors does not require grad'; nothing can be learned.",
       "for p in model.parameters():\n    p.requires_grad = True\n"
       "# Keras: model.trainable = True, then compile again", "zero trainable parameters")
_check("model.frozen-parameters", "A frozen body, a frozen head, or frozen modules",
       "Frozen parameters by module: the pretrained body frozen (fail at a fine-tuning "
       "learning rate of 1e-4 or less, where the head alone barely moves; else info, warn when "
       "the symptom is a loss that does not fall or a wrong metric), the head frozen while the "
       "body trains (warn), other frozen modules (info).",
       "A frozen body is feature extraction: accuracy is capped and the head needs a higher "
       "learning rate; a frozen, randomly initialised head cannot fit the classes.",
       "for p in model.base_model.parameters():\n    p.requires_grad = True",
       "body = parameters under base_model_prefix; static flags only (gradient flow is "
       "training.*); head-only rate: keras.io/guides/transfer_learning trains the new head over "
       "a frozen base at 1e-3 and fine-tunes at 1e-5")
_check("model.no-loss", "The model returns no loss for the batch the trainer sends",
       "Runs the model on the first batch as Trainer (after remove_unused_columns), a plain "
       "loop (model(**batch)) or Keras without a compile loss sends it, and checks outputs.loss.",
       "Trainer raises 'The model did not return a loss from the inputs' when the labels never "
       "reach the model (a label column it drops) or the class has no head (AutoModel); a loop's "
       "outputs.loss is None.",
       "dataset = dataset.rename_column('target', 'labels')\n"
       "model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=3)",
       "transformers Trainer.compute_loss message; no threshold")
_check("model.fp16-overflow-risk", "fp16 overflow risk",
       "With fp16 requested: the largest activation of one fp32 forward (hidden states and "
       "logits) against the fp16 maximum 65504, an fp16 autocast forward (PyTorch), and the "
       "T5 family (t5, mt5, umt5, longt5, switch_transformers).",
       "Values above 65504 become Inf in fp16 and the loss NaN; T5-family checkpoints were "
       "pretrained in bfloat16 and overflow in fp16 during fine-tuning.",
       "args = TrainingArguments(..., bf16=True)  # or fp32",
       "fp16 max 65504; warn below 8x headroom (own heuristic); T5: transformers issues #4586, "
       "#5651 (66246 > 65504), google-research/text-to-text-transfer-transformer#539 (bf16)")
_check("model.precision-unsupported", "fp16/bf16 not supported (or not useful) on this device",
       "Trainer: TrainingArguments(fp16/bf16=True) built on this device (it raises 'Your setup "
       "doesn't support bf16/gpu' on CPU and pre-Ampere GPUs); a loop: torch.cuda."
       "is_bf16_supported without emulation; Keras: the GPU's compute capability (7.0 for "
       "mixed_float16, 8.0 for mixed_bfloat16) or no GPU at all.",
       "The run stops at start-up, or runs slower than fp32.",
       "args = TrainingArguments(..., fp16=True)  # pre-Ampere GPU; on CPU: use_cpu=True, no bf16",
       "transformers TrainingArguments checks; TF mixed-precision guide (compute capability 7.0)")
_check("model.cpu-rerun", "The failing batch re-run on CPU",
       "With a pasted 'device-side assert triggered': the training batches, in order, run "
       "through a CPU copy of the model until one raises; the readable error, the batch and "
       "its rows, labels against num_labels and token ids against the vocabulary.",
       "CUDA reports asserts asynchronously and poisons the context; on CPU the same fault is a "
       "plain Python error (e.g. 'Target 2 is out of bounds', 'index out of range in self').",
       "model = model.cpu()\nbatch = {k: v.cpu() for k, v in batch.items()}\nmodel(**batch)",
       "HF course ch. 8; up to 64 batches or 60 s")
_check("model.tf-run-eagerly", "The graph error re-run eagerly",
       "With a pasted TensorFlow graph error ('Graph execution error', 'Detected at node'): one "
       "training step on the first batch with compile(run_eagerly=True), weights restored; the "
       "plain error and the innermost Python frames.",
       "Graph errors name graph nodes; run eagerly, the same fault raises at the Python line "
       "that causes it.",
       "model.compile(optimizer=optimizer, run_eagerly=True)  # debugging only: slow\n"
       "model.fit(tf_train_dataset.take(1))", "HF course ch. 8 (TensorFlow)")

# --- hyperparameters -----------------------------------------------------------------------
_check("hyperparameters.hidden-defaults", "Defaults hidden by string shortcuts",
       "Optimizer/loss given as strings (e.g. 'adam'), and the values they stand for.",
       "'adam' means Adam(learning_rate=0.001), which is rarely what a transformer needs.",
       "", "HF course ch. 8")
_check("hyperparameters.learning-rate-too-high", "Learning rate too high for the model",
       "An Adam-family learning rate above 1e-4 while fine-tuning a pretrained transformer; on a "
       "plain network (Python API), Adam above 1e-2 or SGD above 0.3 (fail above 0.1 / 1.0).",
       "Transformers are fine-tuned at 1e-5..1e-4; 1e-3 (Keras's 'adam' default) makes the loss "
       "stall high or diverge.",
       "from tf_keras.optimizers import Adam\nmodel.compile(optimizer=Adam(learning_rate=5e-5))",
       "HF course ch. 8; BERT paper (2e-5..5e-5); threshold 1e-4; plain networks: Keras/PyTorch "
       "defaults (Adam 1e-3, SGD 1e-2) with a 10-30x margin")
# hyperparameters: losses, decay, warmup, Keras 3 optimizers (wizard/checks/optimizer_checks.py)
_check("hyperparameters.string-loss-defaults", "What a string loss (and string metrics) hide",
       "compile(loss='...') given as a string: the tf_keras class it stands for and its "
       "defaults (from_logits=False, ignore_class, reduction sum_over_batch_size); string "
       "metrics such as 'accuracy' and the metric Keras picks for them.",
       "from_logits=False assumes the model ends with a softmax; transformers models output "
       "logits.",
       "model.compile(optimizer=optimizer,\n"
       "              loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))",
       "HF course ch. 3 (TF): pass the loss object, not its name; defaults read from tf_keras")
_check("hyperparameters.from-logits-mismatch", "from_logits does not match the model's outputs",
       "Keras with labels passed separately: whether the model outputs logits or probabilities "
       "(rows in [0, 1] summing to 1), against from_logits (explicit, or a string loss's "
       "False); the loss computed both ways on the first batch.",
       "Logits read as probabilities are clipped to (0, 1): wrong loss, lost gradients. "
       "Probabilities read as logits get a second softmax: flat predictions, small gradients.",
       "loss = tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True)  # transformers "
       "models output logits", "measured on the first batch; softmax rows: |sum - 1| <= 1e-3")
_check("hyperparameters.weight-decay-too-high", "Weight decay too high for fine-tuning",
       "The weight decay the run uses (optimizer argument, training.weight_decay, or the "
       "optimizer's default) above 0.1, with the share of the weights kept after 1000 steps of "
       "decoupled decay; notes when Adam/SGD apply it as coupled L2.",
       "Strong decay pulls the pretrained weights towards zero and costs accuracy.",
       "args = TrainingArguments(..., weight_decay=0.01)\n"
       "# torch: torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01)",
       "BERT (Devlin et al. 2019) and the transformers examples use 0.01; threshold 0.1 (the top "
       "of common use, e.g. LLM recipes)")
_check("hyperparameters.warmup-longer-than-training", "The warmup outlasts the run",
       "warmup_steps is at least the number of optimizer updates the run makes (max_steps, or "
       "epochs x the train split's batches / gradient_accumulation_steps).",
       "A linear warmup that never ends keeps the learning rate below the value it was set to "
       "for the whole run: the loss barely moves. A recipe's warmup_steps copied onto a smaller "
       "dataset does this.",
       "TrainingArguments(..., warmup_ratio=0.1)   # a tenth of the run, whatever its length",
       "the Trainer's step count: len(train_dataloader) // gradient_accumulation_steps x epochs")
_check("hyperparameters.no-warmup", "No warmup at a high learning rate",
       "An Adam-family learning rate of 1e-4 or more with no warmup (TrainingArguments' default "
       "0, a constant Keras learning rate, create_optimizer without num_warmup_steps); info when "
       "the rate is already too high (lower it first).",
       "Adam's first updates are large while its moment estimates are noisy; without warmup, "
       "fine-tuning at high rates spikes or diverges early.",
       "args = TrainingArguments(..., learning_rate=5e-5, warmup_ratio=0.1)",
       "Liu et al. 2020 (RAdam: variance of adaptive rates early on); RoBERTa/BERT fine-tuning "
       "recipes (6-10 % warmup); threshold 1e-4")
_check("hyperparameters.keras3-optimizer", "A Keras 3 optimizer handed to a tf-keras model",
       "The case's optimizer names tensorflow.keras / tf.keras / keras (or the paste says 'Could "
       "not interpret optimizer identifier'): the Keras 3 optimizer class is built and compiled "
       "into the user's model for real.",
       "With Keras 3 installed (TF >= 2.16), tensorflow.keras is Keras 3 unless "
       "TF_USE_LEGACY_KERAS=1 is set before importing TensorFlow; transformers' TF models are "
       "tf-keras models and reject it.",
       "import os\nos.environ['TF_USE_LEGACY_KERAS'] = '1'  # before importing tensorflow\n"
       "import tf_keras\nmodel.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5))",
       "measured on TF 2.21 / Keras 3.15 / tf-keras 2.21: 'Could not interpret optimizer "
       "identifier'")
_check("hyperparameters.metric-fed-logits", "The metric gets logits instead of class ids",
       "The user's compute_metrics called as Trainer/KerasMetricCallback call it, with the raw "
       "logits: it raises, and works when given argmax class ids (or the paste shows 'only "
       "size-1 arrays can be converted to Python scalars' and the metric raises on logits).",
       "Accuracy/F1 compare one class id per example; logits are a row of scores per example.",
       "def compute_metrics(eval_pred):\n    logits, labels = eval_pred\n"
       "    predictions = np.argmax(logits, axis=-1)\n"
       "    return metric.compute(predictions=predictions, references=labels)",
       "HF course ch. 8 ('problem with your metric'); no threshold")

# --- script (wizard/script_reader.py, wizard/script_checks.py, wizard/instrument.py) -------
_check("script.read", "What was read from the training script",
       "The case fields read statically from the user's script (each with its line), the "
       "values it only knows at run time (questions, with their line), and what could not be "
       "read (no training call, a custom loop, a dataset built in memory).",
       "Reading the script the user already has avoids re-describing it field by field; the "
       "lines show exactly where each value came from.",
       "python -m wizard check --script train.py   # or: python -m wizard run train.py",
       "Python's ast module: the script is parsed, never executed")
_check("script.trainer-hook-signature", "A Trainer hook overridden with an older signature",
       "A subclass of Trainer (Seq2SeqTrainer, SFTTrainer, ...) overrides compute_loss, "
       "training_step or log without the argument the installed transformers passes to it "
       "(num_items_in_batch since 4.46, log's start_time since 4.47) and without **kwargs.",
       "The override was copied from a recipe older than the release: training fails on the "
       "first step with 'got an unexpected keyword argument'.",
       "def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):",
       "transformers' Trainer hook signatures, by release (read from the released wheels)")
_check("script.adapter-new-tokens-frozen", "Added tokens left untrained by LoRA",
       "The script adds tokens (other than a pad token) to the tokenizer and resizes the "
       "embeddings, and its LoraConfig trains neither the embeddings (modules_to_save) nor "
       "the new rows (trainable_token_indices).",
       "The added rows keep their initial values: the model cannot learn the new tokens (a chat "
       "template's markers, its end-of-turn token, so generation does not stop).",
       'LoraConfig(..., modules_to_save=["embed_tokens", "lm_head"])',
       "peft's LoRA trains target modules only; modules_to_save / trainable_token_indices")
_check("script.generate-right-padding", "Batched generation on right-padded prompts",
       "A causal LM script calls generate() on prompts tokenized with padding, and nothing "
       "sets the tokenizer's padding_side to 'left' (nor does the local tokenizer's config).",
       "The shorter prompts end in pad tokens and their answers are generated after them: "
       "generation-based evaluation reads answers the model was never trained to give.",
       'tokenizer.padding_side = "left"',
       "transformers' warning 'A decoder-only architecture is being used, but right-padding "
       "was detected'")
_check("script.keras-h5-whole-model", "A transformers TF model saved whole to HDF5",
       "A Keras script on a transformers TF model writes the whole model to an .h5 file: "
       "ModelCheckpoint('....h5') without save_weights_only=True, or model.save('....h5').",
       "The model is a subclassed Keras model, which HDF5 cannot hold: saving raises "
       "NotImplementedError, after the first epoch has trained.",
       'ModelCheckpoint("best.weights.h5", save_weights_only=True)   # or save_pretrained',
       "Keras: HDF5 whole-model saving needs a Functional or Sequential model")
_check("script.no-truncation", "The tokenizer call does not truncate",
       "The tokenization function passes no truncation=True (or truncation=False) to the "
       "tokenizer.",
       "A text longer than the model's maximum length reaches the position embeddings and "
       "fails with an index error, on the first long sample, possibly hours into training.",
       "tokenizer(examples[\"premise\"], examples[\"hypothesis\"], truncation=True)",
       "transformers tokenizer defaults (truncation=False); model_max_length")
_check("script.from-logits-mismatch", "from_logits contradicts the model's head",
       "A Keras cross-entropy loss with from_logits=False (or left at that default, as the "
       "string losses are) on a transformers model, which outputs raw logits; or "
       "from_logits=True on a model whose last layer is a softmax.",
       "The loss is computed on values of the wrong kind: wrong gradients, no error.",
       "model.compile(optimizer=optimizer,\n"
       "              loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))",
       "transformers TF models return logits (TFSequenceClassifierOutput.logits); Keras "
       "losses default to from_logits=False")
_check("script.keras3-with-tf-keras", "A Keras 3 object is handed to a tf-keras model",
       "An optimizer, callback or metric from `keras` 3 or from `tensorflow.keras` (Keras 3 "
       "from TensorFlow 2.16 unless TF_USE_LEGACY_KERAS=1) given to compile()/fit() of a "
       "transformers TF model, which is a tf-keras (Keras 2) model.",
       "compile() raises 'Could not interpret optimizer identifier'; Keras 3 callbacks and "
       "metrics raise AttributeError inside fit().",
       "import tf_keras\nmodel.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5))",
       "measured with TensorFlow 2.21, tf-keras 2.21 and Keras 3.15 (losses still work)")
_check("script.zero-grad-missing", "The training loop never clears the gradients",
       "A custom PyTorch loop that calls backward() and optimizer.step() but never "
       "optimizer.zero_grad() / model.zero_grad() (nor sets .grad to None).",
       "backward() adds to the stored gradients: each step applies the sum of every earlier "
       "gradient, so updates grow and the loss stalls or diverges, without an error.",
       "loss.backward()\noptimizer.step()\noptimizer.zero_grad()",
       "PyTorch autograd semantics (gradients accumulate in .grad); HF course ch. 3's loop")
_check("script.schedule-ends-early", "The learning-rate schedule lasts one epoch",
       "A schedule (transformers' get_scheduler / get_*_schedule_with_warmup / create_optimizer, "
       "Keras' PolynomialDecay / CosineDecay) whose length is len() of the training batches, "
       "while training runs several epochs.",
       "The learning rate reaches its end value (0) after the first epoch: the later epochs "
       "do not train, and the loss stays flat from there.",
       "num_training_steps = num_epochs * len(train_dataloader)",
       "HF course ch. 3 (num_training_steps = num_epochs * len(train_dataloader))")
_check("script.tf-dataset-not-batched", "fit() gets a tf.data dataset that is never batched",
       "model.fit(ds) where ds comes from tf.data.Dataset.from_tensor_slices (or from_tensors, "
       "from_generator) and no .batch() / .padded_batch() follows.",
       "fit() takes a tf.data.Dataset's elements as batches as they are: each example's "
       "token ids arrive as a batch of their own, so the model fails on their shape.",
       "train_dataset = tf.data.Dataset.from_tensor_slices((dict(enc), labels)).shuffle(1000)"
       ".batch(16)",
       "tf.keras Model.fit: 'batch_size: do not specify for datasets (they generate batches)'")
_check("script.run", "The instrumented run of the script",
       "What `python -m wizard run` captured while the script ran: where it entered training "
       "(Keras fit, Trainer.train or an optimizer.step loop), the first batch as it entered the "
       "model, the settings read from the live objects, the loss of each step, how the run "
       "ended (finished, stopped after --steps, raised, non-finite loss).",
       "The probes then run on the real objects of the user's own script, with nothing to "
       "re-describe.",
       "python -m wizard run --steps 20 train.py --your-args",
       "hooks on tf_keras/keras Model.fit, transformers Trainer.train and PreTrainedModel "
       "calls, torch.optim optimizer-step hooks and Tensor.backward")

# --- metrics (wizard/checks/metrics.py) ----------------------------------------------------
_check("metrics.baselines", "The metric on baseline predictions",
       "Accuracy, macro F1/precision/recall and MCC (the wizard's own), and the user's metrics, "
       "on uniform-random and majority-class predictions for the eval labels and on the "
       "untrained model's predictions for the first batch.",
       "A trained model must beat both baselines; a metric that scores a baseline as well as "
       "the model measures the wrong thing.", "",
       "HF course ch. 8 ('what metric would random or constant predictions give'); random "
       "predictions drawn with seed 0")
_check("metrics.metric-unavailable", "The user's Hub metric cannot be loaded here",
       "evaluate.load('accuracy') and other Hub metrics fail (offline, HF_HUB_OFFLINE=1, or no "
       "network); the wizard then computes accuracy/f1/precision/recall/matthews_correlation "
       "itself with evaluate's defaults (info), or says it has no stand-in (warn).",
       "Hub metrics are scripts downloaded from the Hub; offline, evaluate's message says the "
       "module 'doesn't exist on the Hub', which is misleading.",
       "metric = evaluate.load('./accuracy')  # a local copy of the metric folder",
       "evaluate 0.4 loading; no threshold")
_check("metrics.metric-error", "The metric raises on well-formed predictions",
       "The user's metric raises on one class id per example (e.g. f1 with the default "
       "average='binary' on more than two classes), a local metric that does not load, or a "
       "compute_metrics that fails for another reason.",
       "Evaluation crashes at the end of the first epoch, after the training time is spent.",
       "metric.compute(predictions=predictions, references=labels, average='macro')",
       "sklearn/evaluate defaults (average='binary', pos_label=1)")
_check("metrics.prediction-label-mismatch", "Predictions and labels do not match in shape or type",
       "Eval labels that are text or not one per example (one-hot, multi-label), or a "
       "compute_metrics that fails with a length/shape/type error on logits and class ids "
       "alike.",
       "Metrics compare one predicted id with one reference id; text references never equal "
       "ids, other lengths or shapes raise.",
       "dataset = dataset.class_encode_column('label')\n"
       "predictions = np.argmax(logits, axis=-1)", "no threshold")
_check("metrics.value-disagrees", "compute_metrics disagrees with a direct computation",
       "compute_metrics, called with the first batch's logits as Trainer does, returns an "
       "accuracy or MCC that differs from the same value computed directly on argmax(logits); "
       "for a token classifier, an accuracy that differs from the one over the labelled "
       "positions (fails when it counts the -100 positions too).",
       "A silent metric bug (probabilities truncated to 0, argmax over the wrong axis, special "
       "tokens and padding scored) reports numbers that do not describe the model.",
       "predictions = np.argmax(logits, axis=-1)", "difference > 1e-3")
_check("metrics.eval-label-set", "The eval split's labels against train's",
       "An eval split without labels (all -1, as GLUE test splits), ClassLabel names that differ "
       "from train's, classes in eval never seen in train (warn) or train classes missing "
       "from eval (info), in the loaded samples.",
       "The metric then measures nothing, compares different classes, or counts unlearnable "
       "classes as errors.",
       "eval_dataset = dataset['validation']  # the labelled split",
       "exact comparison of the loaded samples (dataset.max_samples rows per split)")

# --- memory (wizard/checks/memory/probes.py, wizard/memory_estimate.py) ---------------------------
_check("memory.estimate", "Training memory estimated from metadata",
       "Per-device memory of one training step from the config and the safetensors headers (no "
       "weights downloaded): weights, gradients, optimizer state, activations for the batch size "
       "and sequence length, mixed precision, checkpointing, LoRA, and per-GPU figures under "
       "DDP, ZeRO-1/2/3 and FSDP; with the ranked changes and combined plans that shrink it (a "
       "smaller batch with accumulation, checkpointing, 8-bit state, sharding, LoRA on bf16 "
       "weights, QLoRA on a 4-bit base).",
       "Out-of-memory is the most common wall when fine-tuning; knowing which part dominates "
       "says which fix works.",
       "TrainingArguments(..., per_device_train_batch_size=8, gradient_accumulation_steps=2, "
       "bf16=True, gradient_checkpointing=True)",
       "Transformer Math 101 (EleutherAI) and Korthikanti et al. 2022 (sbh(34+5as/h) per layer), "
       "refined per op and checked against saved-tensor traces (BERT, DistilBERT, GPT-2, LLaMA, "
       "T5: within 10 %): CPU dropout keeps full-size masks, fused SDPA keeps no s^2 scores, the "
       "LM head keeps fp32 log-probabilities; then calibrated on measured CPU peaks: the LM "
       "head's backward holds the logits plus two fp32 gradient buffers, and gradients are not "
       "resident with the activations (zero_grad(set_to_none=True)); under autocast the residual "
       "stream stays fp32. Measured on CPU: BERT/GPT-2/LLaMA/T5 x 3 sizes + checkpointing and "
       "bf16 rows, mean |error| 3.9 %, worst 14.6 % (benchmarks/memory_accuracy.py)")
_check("memory.will-not-fit", "The training step will not fit the device",
       "The estimate (or a measured step that ran out of memory) exceeds the device's memory "
       "(the case's target GPU when it names one, per card; else GPU total minus what other "
       "processes hold; CPU: available RAM). The fix is the least disruptive plan that fits.",
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
       "and reports the second step's peak: torch.cuda.max_memory_allocated on CUDA, "
       "tf.config.experimental.get_memory_info('GPU:0')['peak'] for a Keras step on a GPU, the "
       "RSS high-water mark above the pre-model baseline on CPU; next to the estimate. Skipped "
       "when the case's target GPU is not here; capped to its memory on a larger GPU here.",
       "The measurement is the ground truth for this model, device and library versions.",
       "", "the estimate's error on the benchmark set is <= 15 %; larger gaps point at custom code")
_check("memory.largest-batch", "Largest batch that fits",
       "Halves the batch from the case's value until a step fits (or doubles while it fits), then "
       "bisects, as accelerate's find_executable_batch_size does; each attempt in its own "
       "process so an out-of-memory cannot poison the next (PyTorch or a Keras train_on_batch).",
       "Gives the per-device batch to use with gradient accumulation for the effective batch.",
       "TrainingArguments(..., per_device_train_batch_size=LARGEST, gradient_accumulation_steps=N)",
       "accelerate.utils.find_executable_batch_size")

# --- training (wizard/checks/training.py) --------------------------------------------------
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

# --- curves (wizard/checks/curves.py) ------------------------------------------------------
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
_check("curves.divergence", "The training loss climbs (divergence)",
       "A training loss whose last stretch (its last fifth, at least 2 points) has a median >= 1.5x "
       "the lowest stretch before it, every point of it >= 1.25x that level, and the rise >= 4 "
       "standard errors of the point-to-point noise; with the step where the climb starts.",
       "The updates are too large (learning rate, no warmup, no clipping, fp16 overflow): the run "
       "gets worse with every step and usually ends in NaN.",
       "args = TrainingArguments(..., learning_rate=2e-5, warmup_steps=100, max_grad_norm=1.0)\n"
       "# Keras: tf_keras.optimizers.Adam(learning_rate=5e-5, clipnorm=1.0)",
       "Own heuristic: stretch medians (robust to single spikes), noise from the MAD/RMS of the "
       "second differences of log(loss) (exponential growth is not noise)")
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
_check("report.reproduction", "A standalone reproduction script, verified",
       "When the failure points into library code and the user-side checks are clean, written "
       "two ways. From a case: a script that inlines the failing sample(s) as token ids/masks, "
       "uses public APIs only and (where the weights do not matter) a tiny random model of the "
       "same architecture; it must fail with the same error signature (exception type + "
       "normalised message) or raise its NaN/Inf-logits assertion. From your own script "
       "(`wizard run`): the script sliced to the statements the failing line depends on (ast "
       "def-use), sys.argv and paths inlined, the data it loads swapped for a few rows of the "
       "same columns and, unless the fault needs the real weights, the checkpoint swapped for a "
       "tiny random model of the same config class; it must raise the same exception type from "
       "the same library function, then statements are dropped one by one while it still does. "
       "Each candidate runs in a fresh interpreter. warn: reproduced (verified, the script is "
       "in `fix` and written as repro.py); info: not reproduced or nothing to reproduce (no "
       "script is offered as a reproduction).",
       "A library bug is only claimed once a maintainer-ready script reproduces it; the "
       "smallest one (fewest samples, smallest batch, tiny config, fewest statements) is what a "
       "maintainer can act on in minutes.",
       "python repro.py   # written next to the report; attach it to the issue",
       "From a case: 1 sample (padding trimmed) -> the failing samples -> the whole batch, each "
       "with a tiny config (hidden 32, 2 layers, 2 heads, FFN 64) then the checkpoint; 120 s per "
       "run, 240 s in all ($WIZARD_REPRO_BUDGET). From a script: the slice then the script up "
       "to the failing line, each with a tiny model then the checkpoint; 150 s per run, 420 s "
       "in all, shrinking included")
_check("report.latest-release", "Does it still fail on the latest release?",
       "The verified reproduction rerun in a throwaway virtual environment layered over yours "
       "(`python -m venv --system-site-packages` plus your package folders), with only the "
       "library the error comes from upgraded from the package index: warn \"still fails on "
       "X.Y\", pass \"fixed in X.Y: upgrade\", skip when no index can be reached or nothing newer "
       "exists (the reason is given).",
       "The first question a maintainer asks is whether the bug is still there in the newest "
       "release; a bug fixed already needs an upgrade, not an issue.",
       'pip install -U "<package>==<latest>"   # when it is fixed there',
       "pip's configured index or $WIZARD_INDEX_URL (\"off\" skips it); at most 420 s")
_check("report.framework-mismatch", "The same weights in the other framework (differential run)",
       "The loaded model saved and loaded in the other framework (PyTorch -> TensorFlow with "
       "from_pt, TensorFlow -> PyTorch by weight conversion), the same batch through both: "
       "warn when the logits disagree beyond the tolerance or only one side fails (points at "
       "that implementation); info when both fail (a shared cause: inputs, config, weights); "
       "pass when they agree; skip without both frameworks beside transformers 4.x. From a "
       "script reproduction (`wizard run`): the verified script rerun with the other "
       "framework's classes (TFAutoModelFor... <-> AutoModelFor...): warn when only one side "
       "fails, info when both do.",
       "Two implementations of one architecture on the same weights must agree; a gap isolates "
       "the fault to library code, independent of the user's data pipeline.",
       "",
       "max |logits_pt - logits_tf| <= 1e-4: transformers' own PT/TF equivalence tests use "
       "1e-5 by default and 5e-5..5e-4 for some models (check_pt_tf_outputs)")
_check("report.newer-release", "A newer release of the failing library exists",
       "`pip index versions` for the libraries in the failing frames (transformers, datasets, "
       "tokenizers, torch, tensorflow, accelerate, ...) against the installed versions: warn "
       "when a newer final release this case can use exists (transformers 5 dropped "
       "TensorFlow, so a TF case is pointed at the newest 4.x), info when the index could not "
       "be reached, pass when up to date.",
       "A bug may already be fixed in a newer release; maintainers ask for the newest version "
       "first.",
       'pip install -U "transformers==<newer>"   # then run the check again',
       "pip's configured index, or $WIZARD_INDEX_URL (\"off\" skips the check); 15 s timeout, "
       "no retries")
_check("report.reported-before", "The same error among the library's GitHub issues",
       "Only when asked for (the case's `search_issues`, `--search-issues`, the question after "
       "a pasted error) and no known cause explains the failure (a pasted error triage does "
       "not know, not raised in your own code, or a failure inside library code with a clean "
       "setup): GitHub's issue search in the repository of the library the error points at, "
       "for the words of the message that "
       "every report shares (no paths, names, numbers or code of yours). info: the issues "
       "found, closed-as-solved first, each with its state and link, and what closed the first "
       "solved one (a merged pull request, a commit: then the upgrade) (or none found); skip when "
       "GitHub cannot be reached or its rate limit is used up (the reason and the search's "
       "page are given).",
       "A maintainer's first look is whether the error was reported before: a solved thread "
       "holds the answer, an open one the workaround and where to add a reproduction.",
       "# read the first solved issue's thread; its fix or the release it names",
       "GitHub's search API (api.github.com/search/issues, or $WIZARD_GITHUB_API), $GITHUB_TOKEN "
       "when set; 10 s timeout")

# --- tasks: causal LM / SFT and adapters (wizard/checks/causal_lm.py, adapters.py) ---------
_check("wizard.not-for-task", "A check that does not apply to the case's task",
       "A check built for another task (a label column, a classification head, classification "
       "metrics for a causal LM) is skipped, saying why.",
       "Running a classification check on a causal LM would fail on a healthy setup.",
       "Nothing to fix; set `task:` if the case names the wrong one.")
_check("data.lm-labels", "A causal LM's labels against its input_ids",
       "The first batch's labels as the collation makes them: equal to input_ids wherever they "
       "are not -100 (the model shifts them itself), padding masked, the prompt masked when "
       "the loss is on the completion only.",
       "Labels are where a causal LM's loss comes from; the faults below hide in them.",
       "DataCollatorForLanguageModeling(tokenizer, mlm=False)",
       "transformers' causal LM loss: labels shifted inside the model, -100 ignored")
_check("data.lm-labels-missing", "The causal LM batch has no labels",
       "The batch that enters the model carries no `labels`: the model returns no loss, and "
       "Trainer raises 'The model did not return a loss from the inputs'.",
       "Without labels there is nothing to train on.",
       "data_collator = DataCollatorForLanguageModeling(tokenizer, mlm=False)  # labels from input_ids")
_check("data.lm-padding-in-loss", "Padding tokens are trained on",
       "Labels at padding positions (attention_mask 0) are real token ids, not -100: a share of "
       "the loss teaches the model to predict padding after every text.",
       "The model learns to emit pad tokens and the loss looks lower than it is; with "
       "padding='max_length' most of each sequence can be padding.",
       'labels = [[t if m else -100 for t, m in zip(ids, mask)] for ids, mask in '
       'zip(batch["input_ids"], batch["attention_mask"])]   # or DataCollatorForLanguageModeling',
       "any share of padding positions with a label other than -100")
_check("data.lm-prompt-in-loss", "The prompt is trained on as well as the completion",
       "A prompt/completion (or chat) dataset whose labels keep the prompt's tokens: the loss "
       "is spent on reproducing the questions, not only the answers.",
       "SFT usually trains on the completion only (TRL's completion_only_loss / "
       "assistant_only_loss); training on prompts dilutes the signal. A warning: some setups "
       "want it.",
       "SFTConfig(completion_only_loss=True)   # or set the prompt's labels to -100",
       "TRL SFTTrainer defaults (completion_only_loss for prompt/completion data)")
_check("data.lm-completion-truncated", "Truncation cuts the completion",
       "The loss is on the completion only (completion-only SFT, or a prompt/completion "
       "dataset), and the examples are longer than max_length with truncation keeping the "
       "start: the completion at the end of each is cut, or cut away entirely when the prompt "
       "alone fills max_length.",
       "A cut answer is what the model learns; an example with no completion token left trains "
       "on nothing (TRL drops it; with every row dropped train() fails on an empty dataset).",
       "SFTConfig(max_length=...)   # room for prompt and completion; or shorten the prompts",
       "fails when 20% or more of the examples are cut (warns below); TRL's "
       "truncation_mode='keep_start'")
_check("data.lm-eos-masked", "The end-of-sequence token is masked out of the labels (pad = eos)",
       "pad_token is set to eos_token and the collator sets every pad_token_id to -100, so the "
       "real eos at the end of each text is masked too: the model never learns to stop.",
       "Generation then runs on to max_new_tokens after fine-tuning: the classic "
       "`tokenizer.pad_token = tokenizer.eos_token` pitfall.",
       'tokenizer.add_special_tokens({"pad_token": "<pad>"}); '
       "model.resize_token_embeddings(len(tokenizer))   # a pad distinct from eos",
       "DataCollatorForLanguageModeling masks labels by pad_token_id")
_check("data.lm-no-eos", "The training texts do not end with the eos token",
       "No sample of the first batch has an eos token among its labels: nothing teaches the "
       "model where an answer ends.",
       "An SFT model that never saw eos keeps generating; pretraining-style text may not need it.",
       'texts = [t + tokenizer.eos_token for t in texts]   # or let the chat template add it')
_check("data.chat-template-missing", "Chat-shaped data but the tokenizer has no chat template",
       "The dataset's rows are lists of {role, content} messages and tokenizer.chat_template "
       "is not set: apply_chat_template raises, or the roles are flattened into plain text.",
       "The model learns a format it will not see at inference, or the run fails.",
       "tokenizer.chat_template = AutoTokenizer.from_pretrained(INSTRUCT_MODEL).chat_template"
       "   # or TRL's clone_chat_template / setup_chat_format")
_check("data.chat-template-mismatch", "The texts are formatted for another chat template",
       "The training texts carry one family's chat markers (<|im_start|>, [INST], "
       "<|start_header_id|>, <start_of_turn>) that the tokenizer's chat template does not use, "
       "or that the tokenizer splits into several tokens.",
       "Training and inference then see different formats; markers that are not single tokens "
       "cost length and learn poorly.",
       "text = tokenizer.apply_chat_template(messages, tokenize=False)   # format with the "
       "model's own template")
_check("model.adapter", "The LoRA / QLoRA adapter",
       "The adapter put on the model as the script does (peft's get_peft_model): the modules "
       "it matched and the trainable share of the parameters.",
       "An adapter on too few or the wrong modules learns little; a trainable share near 100% "
       "means the adapter is not what trains.",
       "LoraConfig(r=16, lora_alpha=32, target_modules=\"all-linear\", task_type=\"CAUSAL_LM\")",
       "peft get_peft_model / print_trainable_parameters")
_check("model.adapter-targets-not-found", "The adapter's target modules match nothing",
       "LoraConfig(target_modules=...) names modules the model does not have (q_proj/v_proj on "
       "GPT-2, whose attention is c_attn): peft refuses, or nothing would train.",
       "Module names differ between architectures.",
       "LoraConfig(..., target_modules=\"all-linear\")   # or the names the finding lists")
_check("model.adapter-unavailable", "The adapter could not be checked here",
       "peft is not installed here, or the 4-bit base (bitsandbytes) needs a CUDA GPU this "
       "machine lacks: that part is reported, not judged.",
       "Unchecked is not the same as fine.",
       "pip install 'hf-debug-wizard[llm]'   # peft and trl; bitsandbytes needs a CUDA GPU")
# token classification (wizard/checks/token_cls.py)
_check("data.token-labels", "Token labels against the words",
       "The first batch's labels against word_ids(): special tokens and padding at -100, each "
       "word's tag on its first subword (or on every subword with label_all_tokens).",
       "Word labels must be re-aligned after subword tokenization.",
       "", "HF course chapter 7 (token classification): align_labels_with_tokens")
_check("data.token-labels-misaligned", "Token labels are not aligned with the words",
       "Special tokens or padding carry a tag, or a subword carries another word's tag: the "
       "labels were given one per word (not re-aligned with word_ids()).",
       "The model learns tags shifted against the tokens; the metric stays low with no error.",
       "labels = [-100 if w is None or w == prev else tags[w] ...]   # see the finding's fix",
       "any labelled special token, padding position or subword whose tag is not its word's")
_check("data.token-labels-out-of-range", "Tags beyond the token head's num_labels",
       "The highest tag id (or the number of tag names) exceeds the head's num_labels.",
       "An index error on the GPU, a NaN loss, or a silently wrong head.",
       "AutoModelForTokenClassification.from_pretrained(checkpoint, num_labels=len(label_names))")
# seq2seq (wizard/checks/seq2seq.py)
_check("data.seq2seq-labels", "Seq2seq labels and decoder inputs",
       "The first batch's labels are the tokenized targets padded with -100, and the model has a "
       "decoder_start_token_id to shift them into its decoder inputs.",
       "The model makes its decoder inputs from the labels; padding must stay out of the loss.",
       "", "HF course chapter 7 (translation, summarization): DataCollatorForSeq2Seq")
_check("model.decoder-start-missing", "No decoder_start_token_id",
       "The seq2seq model's config has no decoder_start_token_id (an EncoderDecoderModel "
       "assembled from two checkpoints, a config edited by hand).",
       "The forward with labels raises: the labels cannot be shifted into decoder inputs.",
       "model.config.decoder_start_token_id = tokenizer.cls_token_id   # T5: pad_token_id")
_check("data.seq2seq-label-padding", "Seq2seq labels padded with the pad id",
       "Label positions hold the pad token id instead of -100 (targets padded to max_length by "
       "the tokenizer, or label_pad_token_id=tokenizer.pad_token_id).",
       "The model learns to write padding after every target; the loss is diluted.",
       "DataCollatorForSeq2Seq(tokenizer, model=model, label_pad_token_id=-100)",
       "any label position holding the pad id (after the first eos when pad = eos)")
_check("data.seq2seq-targets-truncated", "Targets cut by max_target_length",
       "More than 5 % of the sample's targets are longer than max_target_length and lose their "
       "end (and their eos).",
       "The model learns to stop mid-sentence; generation is scored against unseen text.",
       "tokenizer(text_target=targets, max_length=P99_LENGTH, truncation=True)",
       "targets cut / targets > 0.05")
_check("data.seq2seq-targets-as-inputs", "Targets tokenized as inputs",
       "The targets were tokenized like the inputs (tokenizer(targets)) and this tokenizer's "
       "target mode gives other ids (a target language code, another vocabulary).",
       "The model is taught the wrong target tokens.",
       "tokenizer(inputs, text_target=targets, max_length=..., truncation=True)",
       "any of the first 64 targets whose ids differ between tokenizer(t) and "
       "tokenizer(text_target=t)")
# extractive QA (wizard/checks/qa.py)
_check("data.qa-positions", "Answer positions inside the context",
       "Every training window's start/end positions sit on the answer's tokens inside the context "
       "(or on CLS when the window does not hold it); the share of answers lost to truncation.",
       "Positions are token indices found with offset_mapping and sequence_ids().",
       "", "HF course chapter 7 (question answering): prepare_train_features")
_check("data.qa-positions-wrong", "Answer positions off the answer",
       "Start/end positions outside the sequence, on question tokens, end before start, or a "
       "span that does not hold the answer text (character positions used as token positions).",
       "The model is taught to point at the wrong tokens; the loss falls, exact match stays low.",
       "start/end positions from offset_mapping and sequence_ids() (see the finding's fix)",
       "any window with such a position")
_check("data.qa-answers-truncated", "Answers lost to truncation",
       "More than 5 % of the answers appear in no training window (the context was cut before "
       "them), so they are trained as 'no answer' (CLS).",
       "The model learns that the context does not answer the question.",
       'tokenizer(q, c, truncation="only_second", stride=128, return_overflowing_tokens=True, '
       "return_offsets_mapping=True)",
       "answers lost / answers > 0.05")
# packing (wizard/checks/packing.py)
_check("data.packing", "Packed examples",
       "With packing, each example ends with an eos inside the blocks, and a block fits the "
       "model's context.", "Packed examples must stay apart; positions past the context are untrained.",
       "", "TRL SFTConfig(packing=True); the HF course's group_texts")
_check("data.packing-no-eos", "Packed examples with no eos between them",
       "Joins between packed examples carry no eos token: the examples run together.",
       "The model learns to continue one text with the next and never to stop.",
       'raw = raw.map(lambda e: {"text": e["text"] + tokenizer.eos_token})',
       "any join without an eos")
_check("data.packing-too-long", "Packing length beyond the model's context",
       "The packed block (max_length / block_size) is longer than the model's "
       "max_position_embeddings.",
       "An index error (learned positions) or training on positions never seen (rotary).",
       "SFTConfig(packing=True, max_length=MODEL_CONTEXT)",
       "block length > max_position_embeddings")
