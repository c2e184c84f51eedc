"""Everyday errors and evidence the catalogue lacked: a model repository's code importing
flash_attn, NumPy's C-API version check, streaming datasets under a newer fsspec, model forward
arguments a release added, names imported without their module, a wrapped model's methods,
non-contiguous tensors at save time, weights of another shape at load time, GPU indices that do
not exist, and regressions stated in Chinese or as "till yesterday". Each with the paste it
answers and a control it must leave alone."""
from __future__ import annotations

import pytest

from wizard.triage.match import triage
from wizard.triage.versions import pastes_from_elsewhere

_REMOTE = ('  File "/usr/local/lib/python3.10/site-packages/transformers/dynamic_module_utils.py", '
           "line 180, in check_imports\n    raise ImportError(\n")


def _cause(text: str) -> str:
    with pastes_from_elsewhere():
        return triage(text).cause_id


@pytest.mark.parametrize("paste, expected", [
    (_REMOTE + "ImportError: This modeling file requires the following packages that were not "
     "found in your environment: flash_attn. Run `pip install flash_attn`",
     "env-missing-package"),
    ("NotImplementedError: Loading a streaming dataset cached in a LocalFileSystem is not "
     "supported yet.", "env-version-too-old"),
    ("anchor_utils.py:63: UserWarning: Failed to initialize NumPy: module compiled against API "
     "version 0x10 but this version of numpy is 0xf (Triggered internally at "
     "..\\torch\\csrc\\utils\\tensor_numpy.cpp:84.)", "env-binary-incompatible"),
    ("I fine-tune a CrossEncoder and get:\nTypeError: forward() got an unexpected keyword "
     "argument 'return_dict'", "env-version-too-old"),
    ("I installed transformers 2.1.1 as the README says.\nImportError: cannot import name "
     "'get_linear_schedule_with_warmup'", "env-version-too-old"),
    ("ValueError: The model you are trying to fine-tune is quantized with "
     "QuantizationMethod.BITS_AND_BYTES but that quantization method do not support training. "
     "Please open an issue on GitHub", "env-version-too-old"),
    ("AttributeError: 'NoneType' object has no attribute 'cadam32bit_grad_fp32'",
     "env-binary-incompatible"),
    ("RuntimeError: Error(s) in loading state_dict for BertModel:\n\tMissing key(s) in "
     "state_dict: \"embeddings.position_ids\". \n", "env-version-too-old"),
    ('  File "eval.py", line 30, in evaluate\n    out = model.generate(**batch)\n'
     "AttributeError: 'DistributedDataParallel' object has no attribute 'generate'",
     "wrapped-model-attribute"),
    ("ValueError: You are trying to save a non contiguous tensor: `encoder.block.0.layer.0."
     "SelfAttention.q.weight` which is not allowed.", "safetensors-non-contiguous"),
    ('ValueError: Trying to set a tensor of shape torch.Size([32001, 4096]) in "weight" (which '
     "has shape torch.Size([32000, 4096])), this looks incorrect.",
     "checkpoint-tensor-shape-mismatch"),
    ("RuntimeError: CUDA error: invalid device ordinal\nCUDA kernel errors might be "
     "asynchronously reported at some other API call", "invalid-device-ordinal"),
    ("ValueError: Token is required (write-access action) but no token found. You need to "
     "provide a token or be logged in to Hugging Face with `huggingface-cli login`",
     "hub-not-logged-in"),
    ("ValueError: Can't find 'adapter_config.json' at 'outputs/checkpoint-500'",
     "local-file-missing"),
    ("ImportError: DeepSpeed is not available => install it using `pip install deepspeed` or "
     "build it from source", "env-missing-package"),
    ("RuntimeError: Error building extension 'fused_adam'", "env-setup-step-skipped"),
    ("ValueError: Loading this dataset requires you to execute custom code contained in the "
     "dataset repository on your local machine. Please set the option `trust_remote_code=True` "
     "to permit loading of this dataset.", "dataset-trust-remote-code-required"),
    ("requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='huggingface.co', port=443): "
     "Read timed out. (read timeout=10)", "hub-unreachable"),
    ("NotImplementedError: The operator 'aten::isin.Tensor_Tensor_out' is not currently "
     "implemented for the MPS device.", "mps-op-not-implemented"),
    # TensorFlow / Keras
    ("UnimplementedError: Graph execution error:\n\nDetected at node 'Cast_1'\nCast string to "
     "float is not supported", "string-labels-not-encoded"),
    ("NotImplementedError: Layer TFBertMainLayer has arguments ['self', 'config'] in "
     "`__init__` and therefore must override `get_config()`.", "keras-h5-save-unsupported"),
    ("TypeError: Exception encountered when calling layer 'tf_bert_for_sequence_classification' "
     "(type TFBertForSequenceClassification).\n\ncall() got an unexpected keyword argument "
     "'label'", "labels-column-misnamed"),
    ("ValueError: Target data is missing. Your model was compiled with loss=sparse_categorical_"
     "crossentropy, and therefore expects target data to be provided in `fit()`.",
     "keras-fit-without-targets"),
    ("ValueError: No model config found in the file at <tensorflow.python.platform.gfile.GFile "
     "object at 0x7f>.", "keras-load-model-on-weights-file"),
    ("InvalidArgumentError: Cannot batch tensors with different shapes in component 0. First "
     "element had shape [128] and element 1 had shape [97].", "ragged-sequences"),
    ("ValueError: Attempt to convert a value (<transformers.tokenization_utils_base."
     "BatchEncoding object at 0x7f>) with an unsupported type (<class 'transformers."
     "tokenization_utils_base.BatchEncoding'>) to a Tensor.", "keras-fit-unsupported-input"),
    ("W tensorflow/core/common_runtime/bfc_allocator.cc:479] Allocator (GPU_0_bfc) ran out of "
     "memory trying to allocate 1.50GiB (rounded to 1610612736)requested by op MatMul",
     "out-of-memory"),
    ("ValueError: Input 0 is incompatible with layer model: expected shape=(None, 512), found "
     "shape=(16, 600)", "layer-input-shape-mismatch"),
    ("AttributeError: 'torch.dtype' object has no attribute 'itemsize'", "env-version-too-old"),
    ("hf_hub_download(repo_id='runwayml/stable-diffusion-inpainting', filename='x.ckpt')\n"
     "HTTPError: 403 Client Error: Forbidden for url: https://huggingface.co/runwayml/"
     "stable-diffusion-inpainting/resolve/main/x.ckpt", "hub-gated-repo"),
    ("NotImplementedError                       Traceback (most recent call last)\n"
     "<ipython-input-269-557c9cec7497> in <module>\n----> 1 model.save('model.h5')\n\n"
     "/usr/local/lib/python3.7/site-packages/tensorflow/python/keras/engine/network.py in "
     "get_config(self)\n    966     if not self._is_graph_network:\n--> 967       raise "
     "NotImplementedError\n\nNotImplementedError: ", "keras-h5-save-unsupported"),
    # evaluation, generation and placement
    ("ValueError: Target is multiclass but average='binary'. Please choose another average "
     "setting, one of [None, 'micro', 'macro', 'weighted'].",
     "metric-average-binary-on-multiclass"),
    ("ValueError: Found input variables with inconsistent numbers of samples: [872, 223232]",
     "metric-inputs-different-lengths"),
    ("ValueError: Greedy methods without beam search do not support `num_return_sequences` "
     "different than 1 (got 4).", "num-return-sequences-greedy"),
    ("ValueError: You are trying to offload the whole model to the disk. Please use the "
     "`disk_offload` function instead.", "whole-model-offloaded-to-disk"),
    ("ValueError: You have set `args.eval_strategy` to IntervalStrategy.STEPS but you didn't "
     "pass an `eval_dataset` to `Trainer`. Either set `args.eval_strategy` to `no` or pass an "
     "`eval_dataset`.", "eval-dataset-missing"),
    ("ValueError: The train_dataset does not implement __len__, max_steps has to be specified.",
     "iterable-dataset-without-length"),
    ("ValueError: Unable to create tensor, you should probably activate padding with "
     "'padding=True' to have batched tensors with the same length.", "unable-to-create-tensor"),
    # datasets and batches
    ("ValueError: Config name is missing.\nPlease pick one among the available configs: ['cola',"
     " 'sst2']\nExample of usage:\n\t`load_dataset('glue', 'cola')`", "dataset-config-name"),
    ("ValueError: Split train not found. Available splits: ['test']", "dataset-split-not-found"),
    ("ValueError: Column 'label' doesn't exist.", "column-not-in-dataset"),
    ("ValueError: Invalid string class label positive", "classlabel-out-of-range"),
    ("ValueError: Features of the new split don't match the features of the existing splits.",
     "data-files-different-columns"),
    ("datasets.table.CastError: Couldn't cast\ntext: string\nto\n{'sentence': Value(dtype="
     "'string', id=None)}\nbecause column names don't match", "data-files-different-columns"),
    ('  File "train.py", line 61, in compute_metrics\n    decoded_labels = tokenizer.batch_decode('
     "labels, skip_special_tokens=True)\nOverflowError: out of range integral type conversion "
     "attempted", "decode-negative-ids"),
    ("OverflowError: can't convert negative int to unsigned", "decode-negative-ids"),
    ("AttributeError: 'dict' object has no attribute 'to'", "dict-moved-to-device"),
    ("OSError: Incorrect path_or_model_id: './model'. Please provide either the path to a local "
     "folder or the repo_id of a model on the Hub.", "local-file-missing"),
    ("OSError: output_dir/checkpoint-139805 is not a local folder and is not a valid model "
     "identifier listed on 'https://huggingface.co/models'", "local-file-missing"),
    ("ImportError: cannot import name 'LLaMAForCausalLM' from 'transformers' (/usr/local/lib/"
     "python3.9/dist-packages/transformers/__init__.py)", "wrong-import-path"),
    ("/usr/lib/python3/site-packages/torch/utils/checkpoint.py:61: UserWarning: None of the "
     "inputs have requires_grad=True. Gradients will be None",
     "gradient-checkpointing-inputs-no-grad"),
    ("W0000 00:00:1712345678.123 op_kernel.cc:1839] OP_REQUIRES failed at xla_ops.cc:574 : "
     "UNIMPLEMENTED: Could not find compiler for platform CUDA: NOT_FOUND: could not find "
     "registered compiler for platform CUDA", "env-setup-step-skipped"),
    ("UserWarning: Merge lora module to 4-bit linear may get different generations due to "
     "rounding errors.", "merge-into-4bit-rounding-warning"),
    ("ValueError: The model has been loaded with `accelerate` and therefore cannot be moved to a "
     "specific device. Please discard the `device` argument when creating your pipeline object.",
     "pipeline-device-with-device-map"),
    ("OSError: Unable to load weights from pytorch checkpoint file for './m/pytorch_model.bin' "
     "at './m/pytorch_model.bin'. If you tried to load a PyTorch model from a TF 2.0 checkpoint, "
     "please set from_tf=True.", "checkpoint-file-unreadable"),
    ("_pickle.UnpicklingError: invalid load key, 'v'.\n\nDuring handling of the above "
     "exception, another exception occurred:\n\nOSError: Unable to load weights from pytorch "
     "checkpoint file for './m/pytorch_model.bin'", "env-setup-step-skipped"),
    ("safetensors_rust.SafetensorError: Error while deserializing header: "
     "InvalidHeaderDeserialization", "incomplete-model-download"),
    ("OSError: Can't load the configuration of './model'. If you were trying to load it from "
     "'https://huggingface.co/models', make sure you don't have a local directory with the same "
     "name.", "local-file-missing"),
    ("TypeError: argmax(): argument 'input' (position 1) must be Tensor, not tuple",
     "model-output-misread"),
    ("ValueError: This tokenizer does not have a mask token which is necessary for masked "
     "language modeling. You should pass `mlm=False` to train on causal language modeling "
     "instead.", "mlm-collator-on-causal-tokenizer"),
    ("ValueError: Mismatch in the number of predictions (200) and references (100)",
     "metric-inputs-different-lengths"),
    ("ValueError: Got a string but expected a list instead: 'the cat sat on the mat'",
     "metric-references-not-lists"),
    ('  File "train.py", line 40, in compute_metrics\n    result = {key: value.mid.fmeasure * 100 '
     "for key, value in result.items()}\nAttributeError: 'numpy.float64' object has no "
     "attribute 'mid'", "env-version-too-new"),
    ("使用qwen2、fp16 进行sft全参数微调的时候，有些token会输出nan, 导致loss为0。",
     "fp16-overflow-bf16-model"),
    ("RuntimeError: Head dim > 64 backward requires A100 or H100", "flash-attention-needs-ampere"),
    ("InvalidArgumentError: Incompatible shapes: [8,514,768] vs. [8,512,768]\n\t [[{{node "
     "model_2/Embedding-Position/add}} = Add[T=DT_FLOAT]]]", "sequence-longer-than-max"),
    ('  File "run_clm_pt_with_peft.py", line 615, in main\n    unwrap_model(model).peft_config.'
     "save_pretrained(lora_path)\nAttributeError: 'dict' object has no attribute "
     "'save_pretrained'", "env-version-too-new"),
    ("accelerate/accelerator.py:205: UserWarning: `log_with=wandb` was passed but no supported "
     "trackers are currently installed.", "env-missing-package"),
    ("FileNotFoundError: Couldn't find a module script at /data/wer/wer.py. Module 'wer' "
     "doesn't exist on the Hugging Face Hub either.", "hub-unreachable"),
    ("FileNotFoundError: [Errno 2] No such file or directory: '/home/u/.cache/torch/"
     "sentence_transformers/sbert.net_models_distilbert-base-nli-mean-tokens/modules.json'",
     "incomplete-model-download"),
    ("_auth.py:104: UserWarning: Error while fetching `HF_TOKEN` secret value from your vault: "
     "'Requesting secret HF_TOKEN timed out.'.\nYou are not authenticated with the Hugging Face "
     "Hub in this notebook.", "hub-not-logged-in"),
    ("Training finished fine, but the adapter_model.bin never updated and instead I have a "
     "443 byte file", "env-version-too-new"),
])
def test_everyday_errors(paste: str, expected: str) -> None:
    assert _cause(paste) == expected


def test_flash_attn_for_remote_code_gives_the_import_check_workaround() -> None:
    with pastes_from_elsewhere():
        t = triage(_REMOTE + "ImportError: This modeling file requires the following packages "
                   "that were not found in your environment: flash_attn, einops. Run `pip "
                   "install flash_attn einops`")
    assert t.primary is not None
    assert "pip install flash-attn einops --no-build-isolation" in t.primary.fix
    assert "get_imports" in t.primary.fix and "trust_remote_code" in t.primary.cause


def test_numpy_api_direction_decides_the_fix() -> None:
    with pastes_from_elsewhere():
        older = triage("RuntimeError: module compiled against API version 0x10 but this "
                       "version of numpy is 0xe")
        newer = triage("RuntimeError: module compiled against API version 0xe but this "
                       "version of numpy is 0x10\nImportError: numpy.core.multiarray failed to "
                       "import")
    assert older.primary is not None and "pip install -U numpy" in older.primary.fix
    assert newer.primary is not None and "pip install -U numpy" not in newer.primary.fix


def test_a_forward_of_the_users_own_is_no_version_question() -> None:
    paste = ("class Net(torch.nn.Module):\n    def forward(self, input_ids):\n        return "
             "self.fc(input_ids)\n\nTypeError: forward() got an unexpected keyword argument "
             "'return_dict'")
    assert _cause(paste) == "callback-signature-mismatch"
    takes_all = paste.replace("input_ids):", "input_ids, **kwargs):")
    assert _cause(takes_all) != "callback-signature-mismatch"


def test_an_import_name_two_libraries_export_is_not_guessed() -> None:
    # `logging` is exported by several libraries: no library is named for it
    assert _cause("ImportError: cannot import name 'logging'") != "env-version-too-old"


def test_a_wrapper_is_only_the_parallel_wrappers() -> None:
    assert _cause("AttributeError: 'PeftModelForCausalLM' object has no attribute 'foo'") != \
        "wrapped-model-attribute"


def test_missing_keys_besides_position_ids_are_no_release_question() -> None:
    paste = ("RuntimeError: Error(s) in loading state_dict for BertModel:\n\tMissing key(s) in "
             "state_dict: \"embeddings.position_ids\", \"pooler.dense.weight\".")
    assert _cause(paste) != "env-version-too-old"


@pytest.mark.parametrize("paste", [
    "如题，单机多卡微调报错如下（老版能成功训练）：\nRuntimeError: shape mismatch",
    "当时的解决方案是将transformers 固定为4.50.2版本\nAttributeError: 'NoneType' object",
    "Loading the adapter was working fine till yesterday.\nKeyError: 'base_model'",
])
def test_regressions_stated_in_other_words(paste: str) -> None:
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.bug is not None and any(r.startswith("a regression") for r in t.bug.reasons)


@pytest.mark.parametrize("paste", [
    "新版本也不行，报错如下：\nRuntimeError: shape mismatch",
    "It never worked, not even yesterday.\nKeyError: 'base_model'",
])
def test_no_regression_without_an_older_release_that_worked(paste: str) -> None:
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.bug is None or not any(r.startswith("a regression") for r in t.bug.reasons)


def test_an_org_slash_name_is_still_a_hub_id() -> None:
    assert _cause("ValueError: Can't find 'adapter_config.json' at 'someuser/my-adapter'") != \
        "local-file-missing"


def test_the_gradient_checkpointing_cache_notice_is_benign() -> None:
    with pastes_from_elsewhere():
        t = triage("Caching is incompatible with gradient checkpointing in LlamaDecoderLayer. "
                   "Setting `use_cache=False`.")
    assert t.primary is not None and t.primary.signature.benign


def test_a_bare_unimplemented_error_is_still_no_string_label_answer() -> None:
    assert _cause("UnimplementedError: Graph execution error:\nDetected at node 'x'") != \
        "string-labels-not-encoded"


def test_a_label_argument_of_a_forward_of_the_users_own_is_no_column_name_question() -> None:
    paste = ("    def forward(self, input_ids, labels=None):\n        ...\nTypeError: "
             "forward() got an unexpected keyword argument 'label'")
    assert _cause(paste) != "labels-column-misnamed"


def test_a_403_on_a_push_is_no_gate() -> None:
    paste = ("model.push_to_hub('org/name')\nHTTPError: 403 Client Error: Forbidden for url: "
             "https://huggingface.co/api/models/org/name/commit/main")
    assert _cause(paste) != "hub-gated-repo"


def test_a_bare_not_implemented_error_elsewhere_is_no_keras_save() -> None:
    paste = ('  File "train.py", line 3, in <module>\n    model.foo()\n  File '
             '"/usr/lib/python3.10/site-packages/torch/nn/modules/module.py", line 9, in '
             "_forward_unimplemented\n    raise NotImplementedError\nNotImplementedError")
    assert _cause(paste) != "keras-h5-save-unsupported"


def test_an_org_and_name_is_still_looked_up_on_the_hub() -> None:
    assert _cause("OSError: someorg/some-model is not a local folder and is not a valid model "
                  "identifier listed on 'https://huggingface.co/models'") != "local-file-missing"


def test_a_name_a_release_exported_is_no_misspelling() -> None:
    # removed in transformers 5, so a release question, not a typo
    assert _cause("ImportError: cannot import name 'top_k_top_p_filtering' from "
                  "'transformers'") == "env-version-too-new"
    with pastes_from_elsewhere():
        t = triage("ImportError: cannot import name 'LLaMATokenizer' from 'transformers'")
    assert t.primary is not None and "LlamaTokenizer" in t.primary.fix


@pytest.mark.parametrize("paste", [
    "Special tokens have been added in the vocabulary, make sure the associated word embeddings "
    "are fine-tuned or trained.",
    "huggingface/tokenizers: The current process just got forked, after parallelism has already "
    "been used. Disabling parallelism to avoid deadlocks...",
    "`torch_dtype` is deprecated! Use `dtype` instead!",
    "FutureWarning: `tokenizer` is deprecated and will be removed in version 5.0.0 for "
    "`Trainer.__init__`. Use `processing_class` instead.",
    "The attention mask is not set and cannot be inferred from input because pad token is same "
    "as eos token. As a consequence, you may observe unexpected behavior.",
    "UserWarning: To copy construct from a tensor, it is recommended to use "
    "sourceTensor.clone().detach() or sourceTensor.clone().detach().requires_grad_(True)",
])
def test_warnings_alone_are_answered_as_no_error(paste: str) -> None:
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.primary is not None and t.primary.signature.benign


def test_a_benign_warning_does_not_hide_the_error_after_it() -> None:
    paste = ("Special tokens have been added in the vocabulary, make sure the associated word "
             "embeddings are fine-tuned or trained.\nValueError: Asking to pad but the tokenizer "
             "does not have a padding token.")
    assert _cause(paste) == "no-pad-token"


def test_fp16_nan_of_a_model_not_released_in_bf16_is_no_overflow_answer() -> None:
    assert _cause("Training bert-base-uncased with fp16: the loss is nan after 10 steps") != \
        "fp16-overflow-bf16-model"
    assert _cause("model = model.half()  # qwen2\nfp16 training: loss: nan") != \
        "fp16-overflow-bf16-model"


def test_a_package_importing_its_own_missing_submodule_is_its_bug() -> None:
    paste = ("----> 4 from simpletransformers.classification import ClassificationModel\n\n"
             "/usr/local/lib/python3.6/dist-packages/simpletransformers/classification/"
             "classification_model.py in <module>()\n---> 45 from simpletransformers."
             "classification."
             "transformer_models.bert_model import BertForSequenceClassification\n\n"
             "ModuleNotFoundError: No module named 'simpletransformers.classification."
             "transformer_models'")
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.cause_id == "library-bug" and t.bug is not None
    assert t.bug.package == "simpletransformers"
    # no package's frame: no bug of one; mypkg itself imported, so the mypkg found lacks utils
    own_code = "ModuleNotFoundError: No module named 'mypkg.utils'"
    with pastes_from_elsewhere():
        t = triage(own_code)
    assert t.cause_id != "library-bug" and t.primary is not None
    assert "pip show mypkg" in t.primary.fix and "shadows" in t.primary.cause


def test_a_reward_function_parameter_the_trainer_does_not_pass() -> None:
    paste = ("GRPO with my reward functions:\nTypeError: CosineReward.__call__() missing 1 "
             "required positional argument: 'solution'")
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.primary is not None
    assert t.primary.signature.id == "reward-function-parameter-not-passed"
    assert t.cause_id == "callback-signature-mismatch"
    # the trainer always passes completions: their absence is no dataset question
    assert _cause("TypeError: my_reward() missing 1 required positional argument: "
                  "'completions'") != "callback-signature-mismatch"
    # a function of no GRPO run
    assert _cause("TypeError: build() missing 1 required positional argument: 'solution'") != \
        "callback-signature-mismatch"


def test_unsloths_generated_trainers_are_library_code() -> None:
    from wizard.triage.frames import classify_path
    assert classify_path("/content/unsloth_compiled_cache/UnslothGRPOTrainer.py") == \
        ("library", "unsloth")


def test_a_metric_no_one_published_is_a_name_question() -> None:
    assert _cause("FileNotFoundError: Couldn't find a module script at /x/my_metricz/"
                  "my_metricz.py. Module 'my_metricz' doesn't exist on the Hugging Face Hub "
                  "either.") == "model-id-not-found"


def test_a_missing_file_outside_any_download_cache_is_no_download_question() -> None:
    assert _cause("FileNotFoundError: [Errno 2] No such file or directory: "
                  "'/home/u/data/train.csv'") != "incomplete-model-download"
    # accelerate's own config lives beside the caches, and nothing downloads it
    assert _cause("FileNotFoundError: [Errno 2] No such file or directory: "
                  "'/root/.cache/huggingface/accelerate/default_config.yaml'") != \
        "incomplete-model-download"


def test_an_adapter_of_megabytes_is_no_empty_adapter() -> None:
    assert _cause("adapter_model.bin is 67 MB and loading it fails:\nKeyError: 'base_model'") \
        != "env-version-too-new"


def test_the_environment_check_the_family_names_reads_installed_ranges() -> None:
    from wizard.checks.environment import _version_conflicts
    from wizard.core.catalogue import CHECKS

    assert "environment.package-versions" in CHECKS   # named by the environment family
    mismatched = {"trl": "0.12.0", "transformers": "4.48.0", "accelerate": "0.30.0",
                  "datasets": "3.0.0"}
    found = _version_conflicts(mismatched.get)
    assert {f.evidence["requires"] for f in found} == {"accelerate>=0.34.0", "transformers<4.47.0"}
    assert all(f.id == "environment.package-versions" and f.status == "warn" for f in found)
    fitting = {"trl": "0.12.0", "transformers": "4.46.3", "accelerate": "0.34.2",
               "datasets": "3.0.0"}
    assert _version_conflicts(fitting.get) == []
    assert _version_conflicts() == []   # this machine's own installation fits


def test_the_keras_3_check_the_keras_signatures_name() -> None:
    """Keras 3 beside transformers 4's TF models: a fault without tf-keras, a warning while
    tf.keras is still Keras 3; nothing with both set up, with Keras 2, or on transformers 5."""
    from wizard.checks.environment import _keras_3
    from wizard.core.case import Case
    from wizard.checks.environment import probe_environment
    from wizard.triage.signatures import unknown_probe_ids

    assert "environment.keras-3" not in unknown_probe_ids()
    k3 = {"keras": "3.15.1", "transformers": "4.57.6"}
    [missing] = _keras_3({**k3}.get, "1")
    assert missing.status == "fail" and "tf-keras" in missing.fix
    [unset] = _keras_3({**k3, "tf-keras": "2.21.0"}.get, None)
    assert unset.status == "warn" and "TF_USE_LEGACY_KERAS=1" in unset.fix
    assert _keras_3({**k3, "tf-keras": "2.21.0"}.get, "1") == []
    assert _keras_3({"keras": "2.15.0", "transformers": "4.57.6"}.get, None) == []
    assert _keras_3({**k3, "transformers": "5.2.0"}.get, None) == []
    # this machine's test environments are set up right: the TF case gets nothing
    here = probe_environment(Case(model="m", framework="tensorflow"))
    assert not [f for f in here if f.id == "environment.keras-3"]


@pytest.mark.parametrize("paste, fix", [
    # trl 0.14-0.15 (open-r1#249): 7 processes x 1 completion, 8 generations
    ("[rank1]:   File \"/opt/conda/lib/python3.10/site-packages/trl/trainer/grpo_trainer.py\", "
     "line 321, in __init__\n[rank1]:     raise ValueError(\n[rank1]: ValueError: The global "
     "train batch size (7 x 1) must be evenly divisible by the number of generations per prompt "
     "(8). Given the current train batch size, the valid values for the number of generations "
     "are: [7].", "per_device_train_batch_size=8"),
    # trl#2858: one GPU, a batch of 1
    ("ValueError: The global train batch size (1 x 1) must be evenly divisible by the number of "
     "generations per prompt (8). Given the current train batch size, the valid values for the "
     "number of generations are: [].", "per_device_train_batch_size=8"),
    ("ValueError: generation_batch_size (6) must be divisible by num_generations (4).",
     "num_generations=4"),
    # trl PR #3199's message for num_generations=1
    ("ValueError: GRPO requires at least 2 generations per prompt to calculate the advantages. "
     "You provided 1, which is less than the minimum required.", "num_generations=4"),
])
def test_grpo_batch_must_hold_whole_groups(paste: str, fix: str) -> None:
    with pastes_from_elsewhere():
        m = triage(paste).primary
    assert m is not None and m.cause_id == "grpo-batch-not-divisible-by-generations"
    assert fix in m.fix
    assert _cause("ValueError: The global train batch size must be at least 1") != \
        "grpo-batch-not-divisible-by-generations"
