"""Families read from the error's own semantics: who wrote the code that failed decides whose
fault it is (a function the user handed to a library, an attribute the user's code reads, a
package the message says must be installed)."""
from __future__ import annotations

import pytest

from wizard.triage.causes import cause_of
from wizard.core.case import Case
from wizard.triage.match import probe_triage, triage
from wizard.triage.versions import pastes_from_elsewhere

LIB = "/usr/local/lib/python3.10/dist-packages"


def _tb(*frames: tuple[str, int, str, str], error: str) -> str:
    lines = ["Traceback (most recent call last):"]
    for path, line, func, code in frames:
        lines += [f'  File "{path}", line {line}, in {func}', f"    {code}"]
    return "\n".join(lines + [error]) + "\n"


def test_a_library_calling_the_users_function_with_an_undeclared_keyword() -> None:
    paste = _tb(("/content/train.py", 40, "<module>", "trainer.train()"),
                (f"{LIB}/trl/trainer/grpo_trainer.py", 900, "_calculate_rewards",
                 "out = reward_func(prompts=prompts, completions=completions, **kw)"),
                error="TypeError: reward_len() got an unexpected keyword argument 'prompts'")
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.cause_id == "callback-signature-mismatch", t.cause_id
    assert "**kwargs" in t.primary.fix and "reward_len" in t.primary.fix
    assert cause_of(t.cause_id) == "user-code-interface-mismatch"


def test_an_unexpected_keyword_of_a_library_constructor_stays_a_version_question() -> None:
    paste = _tb(("/content/train.py", 8, "<module>", "args = TrainingArguments(out, foo_strategy=1)"),
                (f"{LIB}/transformers/utils/deprecation.py", 172, "wrapped_func",
                 "return func(*args, **kwargs)"),
                error="TypeError: __init__() got an unexpected keyword argument 'foo_strategy'")
    with pastes_from_elsewhere():
        assert triage(paste).cause_id != "callback-signature-mismatch"


def test_the_users_code_reading_a_field_a_library_object_lacks() -> None:
    paste = _tb(("/content/train.py", 12, "compute_metrics", "preds = p.prediction.argmax(-1)"),
                error="AttributeError: 'EvalPrediction' object has no attribute 'prediction'")
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.cause_id == "library-object-missing-attribute" and t.bug is None
    assert ".prediction" in t.primary.cause


def test_the_same_attribute_error_inside_library_code_or_on_the_users_class_is_not_it() -> None:
    inside = _tb(("/content/train.py", 3, "<module>", "trainer.train()"),
                 (f"{LIB}/transformers/trainer.py", 2000, "train", "self.deepspeed.step()"),
                 error="AttributeError: 'PPOv2Trainer' object has no attribute 'deepspeed'")
    own = ("class Head:\n    pass\n" +
           _tb(("/content/train.py", 9, "<module>", "h.size"),
               error="AttributeError: 'Head' object has no attribute 'size'"))
    with pastes_from_elsewhere():
        assert triage(inside).cause_id != "library-object-missing-attribute"
        assert triage(own).cause_id != "library-object-missing-attribute"


def test_a_message_saying_a_package_must_be_installed() -> None:
    paste = ("ValueError: Couldn't instantiate the backend tokenizer from one of:\n(1) a `tokenizers` "
             "library serialization file,\nYou need to have sentencepiece installed to convert a "
             "slow tokenizer to a fast one.")
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.cause_id == "env-missing-package" and "pip install sentencepiece" in t.primary.fix


def test_a_file_missing_at_the_path_given() -> None:
    for paste in ("Exception: No such file or directory (os error 2)",
                  "FileNotFoundError: [Errno 2] No such file or directory: 'bert-base-uncased-vocab.txt'"):
        with pastes_from_elsewhere():
            t = triage(paste)
        assert cause_of(t.cause_id) == "local-file-missing", (paste, t.cause_id)
    with pastes_from_elsewhere():   # a DatasetDict folder read as a Dataset keeps its own cause
        t = triage("FileNotFoundError: [Errno 2] No such file or directory: '/data/ds/state.json'")
    assert t.cause_id == "datasetdict-instead-of-dataset"


def test_an_array_of_python_objects_reaching_a_tensor() -> None:
    paste = "ValueError: Failed to convert a NumPy array to a Tensor (Unsupported object type float)."
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.cause_id == "object-array-to-tensor" and "astype(np.float32)" in t.primary.fix
    assert cause_of(t.cause_id) == "features-not-batchable"


def test_a_library_reading_the_column_an_argument_names() -> None:
    paste = _tb(("/content/sft.py", 30, "<module>", "trainer = SFTTrainer(model, train_dataset=ds)"),
                (f"{LIB}/trl/trainer/sft_trainer.py", 513, "tokenize",
                 "element[dataset_text_field] if formatting_func is None else formatting_func(element),"),
                (f"{LIB}/datasets/formatting/formatting.py", 277, "__getitem__",
                 "value = self.data[key]"),
                error="KeyError: 'text'") + "\nThere is no text field in my dataset, how to fix?\n"
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.cause_id == "column-not-in-dataset" and "dataset_text_field" in t.primary.fix
    plain = paste.replace("element[dataset_text_field]", "element[0]")
    with pastes_from_elsewhere():
        assert triage(plain).cause_id != "column-not-in-dataset"


def test_a_library_passing_its_own_function_an_argument_it_does_not_take_is_a_bug() -> None:
    inner = ("peft_model.load_adapter_x(name, cfg, low_cpu_mem_usage=low_cpu_mem_usage)")
    paste = _tb(("/content/train.py", 40, "<module>", "model = get_peft_model(model, config)"),
                (f"{LIB}/peft/mapping.py", 222, "get_peft_model", inner),
                error="TypeError: PeftModelForSequenceClassification.load_adapter_x() got an "
                      "unexpected keyword argument 'low_cpu_mem_usage'")
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.cause_id == "library-bug" and t.bug is not None and t.bug.package == "peft"
    # a line that only forwards **kwargs passes the user's arguments: a version question
    forwarded = paste.replace(inner, "return func(*args, **kwargs)")
    # the user's own call with an argument the class lacks: not a library bug either
    yours = _tb(("/content/train.py", 40, "<module>", "cfg = LoraConfig(r=8, use_magic=True)"),
                error="TypeError: LoraConfig.__init__() got an unexpected keyword argument "
                      "'use_magic'")
    with pastes_from_elsewhere():
        assert triage(forwarded).cause_id != "library-bug"
        assert triage(yours).cause_id != "library-bug"


def test_a_class_imported_from_a_library_it_does_not_belong_to() -> None:
    with pastes_from_elsewhere():
        t = triage("ImportError: cannot import name 'TrainingArguments' from 'trl'")
        assert t.cause_id == "wrong-import-path" and "from transformers import" in t.primary.fix
        t = triage("ImportError: cannot import name 'BitsAndBytesConfig' from 'peft'")
        assert t.cause_id == "wrong-import-path"
        # a name of the package itself that the installed release lacks stays a version question
        assert triage("ImportError: cannot import name 'GRPOConfig' from 'trl'").cause_id \
            .startswith("env-version")


def test_the_import_line_of_a_paste_that_says_the_import_fails() -> None:
    paste = ("### Reproduction\n\n`from transformers.trainer_pt_utils import PartialState`\n\n"
             "it cannot import the class, even though I tried to downgrade transformers")
    with pastes_from_elsewhere():
        t = triage(paste)
        assert t.cause_id == "wrong-import-path" and "from accelerate import PartialState" in t.primary.fix
        # the same import line in a paste about another error says nothing about imports
        assert triage(paste.replace("cannot import the class", "it works")).cause_id != "wrong-import-path"


def test_a_dataset_the_hub_hides_until_its_license_is_accepted() -> None:
    error = ("FileNotFoundError: Couldn't find a dataset script at /content/x/x.py or any data file "
             "in the same directory. Couldn't find 'org/x' on the Hugging Face Hub either: "
             "FileNotFoundError: Dataset 'org/x' doesn't exist on the Hub")
    with pastes_from_elsewhere():
        assert cause_of(triage(error).cause_id) == "hub-repo-not-found"
        gated = triage("It works once I accept the license on the Hub.\n" + error)
    assert gated.cause_id == "hub-gated-repo"


def test_a_library_reading_an_attribute_of_an_argument_left_at_its_default() -> None:
    def paste(call: str, inner: str) -> str:
        return _tb(("/content/sft.py", 12, "<module>", call),
                   (f"{LIB}/trl/trainer/sft_trainer.py", 150, "__init__", inner),
                   error="AttributeError: 'NoneType' object has no attribute 'model_init_kwargs'")
    with pastes_from_elsewhere():
        t = triage(paste("trainer = SFTTrainer('facebook/opt-350m', train_dataset=ds)",
                         "if args.model_init_kwargs is None:"))
        assert t.cause_id == "library-bug" and t.bug.package == "trl"
        # the user passed the argument themselves: not evidence of a bug
        assert triage(paste("trainer = SFTTrainer(model, args=None, train_dataset=ds)",
                            "if args.model_init_kwargs is None:")).cause_id != "library-bug"
        # an attribute of the library's own object that is None: not this rule
        assert triage(paste("trainer = SFTTrainer(model, train_dataset=ds)",
                            "if self.args.model_init_kwargs is None:")).bug is None


def test_gradients_that_do_not_exist_mean_the_loss_left_the_tape() -> None:
    warning = ("WARNING:tensorflow:Gradients do not exist for variables ['dense/kernel:0', "
               "'dense/bias:0'] when minimizing the loss.")
    printed = "grads = tape.gradient(loss, model.trainable_variables)\nprint(grads)\n[None, None]"
    tape_loop = ("with tf.GradientTape() as tape:\n    logits = model(x)\nloss = -loss\n"
                 "ValueError: No gradients provided for any variable: ['dense/kernel:0'].")
    with pastes_from_elsewhere():
        for paste in (warning, printed, tape_loop):
            t = triage(paste)
            assert t.cause_id == "gradients-are-none", (paste, t.cause_id)
            assert cause_of(t.cause_id) == "loss-not-connected-to-weights"
        # fit() without a tape keeps its own reading (labels inside the inputs, or no loss)
        assert triage(tape_loop.split("ValueError", 1)[0].replace("GradientTape", "x") +
                      "ValueError: No gradients provided for any variable: ['d:0'].").cause_id \
            == "keras-no-gradients"


def test_older_and_other_wordings_of_known_errors() -> None:
    cases = {
        "RuntimeError: CUDA error: out of memory": "gpu-memory-exhausted",
        "RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/"
        "THCCachingAllocator.cpp:510": "gpu-memory-exhausted",
        "RuntimeError: Expected object of device type cuda but got device type cpu for argument "
        "#1 'self' in call to _th_index_select": "devices-differ",
        "RuntimeError: expected device cuda:0 but got device cpu": "devices-differ",
        "RuntimeError: index out of range: Tried to access index 30522 out of table with 30521 "
        "rows. at ../aten/src/TH/generic/THTensorEvenMoreMath.cpp:418": "index-out-of-range-in-self",
        "ValueError: Target size (torch.Size([8])) must be the same as input size "
        "(torch.Size([8, 2]))": "label-shape-mismatch",
        "NotImplementedError: Layer TFBertMainLayer has arguments in `__init__` and therefore "
        "must override `get_config`.": "keras-h5-save-unsupported",
    }
    with pastes_from_elsewhere():
        for paste, cause in cases.items():
            assert cause_of(triage(paste).cause_id) == cause, (paste, triage(paste).cause_id)


def test_a_device_side_assert_names_its_kernel() -> None:
    embedding = ("../aten/src/ATen/native/cuda/Indexing.cu:1093: indexSelectLargeIndex: block: "
                 "[0,0,0], thread: [0,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n"
                 "RuntimeError: CUDA error: device-side assert triggered")
    loss = ("../aten/src/ATen/native/cuda/Loss.cu:240: nll_loss_forward_reduce_cuda_kernel_2d: "
            "block: [0,0,0], thread: [0,0,0] Assertion `t >= 0 && t < n_classes` failed.\n"
            "RuntimeError: CUDA error: device-side assert triggered")
    with pastes_from_elsewhere():
        assert triage(embedding).cause_id == "index-out-of-range-in-self"
        assert cause_of(triage(loss).cause_id) == "label-out-of-range"


def test_regressions_stated_in_other_words() -> None:
    error = "AttributeError: 'PromptEncoderConfig' object has no attribute 'modules_to_save'"
    stated = ("On peft 0.15.1 get_peft_model fails:\n" + error +
              "\nWhen running the code on version **0.14.0**, no errors occur.")
    broke = "transformers 4.35.0 is breaking peft 0.6.0:\nIndexError: tuple index out of range"
    upgrading = ("On upgrading to `transformers==2.10.0`, when instantiating a tokenizer, the "
                 "vocabulary file is not saved after training. A `TypeError` is returned")
    with pastes_from_elsewhere():
        for paste in (stated, broke, upgrading):
            t = triage(paste)
            assert t.cause_id == "library-bug" and t.bug.strong, paste
        assert triage("IndexError: tuple index out of range").bug is None
        # a name the upgraded release removed is the code's version question, not a regression
        removed = triage("On upgrading to transformers 4.39.0 the import fails:\nImportError: "
                         "cannot import name 'top_k_top_p_filtering' from 'transformers'")
        assert removed.cause_id == "env-version-too-new"


def test_a_bare_key_error_followed_by_the_reporters_question() -> None:
    paste = ('Traceback (most recent call last):\n  File "/usr/lib/python3/site-packages/transformers/'
             'models/auto/configuration_auto.py", line 700, in __getitem__\n    raise KeyError(key)\n'
             "KeyError: 'mistral'\n\nI just installed it, what is wrong?")
    with pastes_from_elsewhere():
        assert triage(paste).cause_id == "env-version-too-old"
        assert triage("KeyError: 'input_ids'\n\nany idea?").cause_id == "missing-input-ids"


def test_output_that_shows_a_nan_loss_or_gradient_norm() -> None:
    with pastes_from_elsewhere():
        for paste in ("{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 1.9e-05, 'epoch': 0.1}",
                      "Step 100: train_loss = nan, mel_loss = nan",
                      "The loss becomes NaN after a few hundred steps with mixed precision"):
            assert triage(paste).cause_id == "nan-loss", paste
        assert triage("{'loss': 0.6931, 'grad_norm': 1.25, 'epoch': 0.1}").cause_id != "nan-loss"


def test_more_common_fine_tuning_errors_read_from_their_own_words() -> None:
    cases = {
        "RuntimeError: mat1 and mat2 must have the same dtype": "mixed-dtypes",
        "ImportError: Using `low_cpu_mem_usage=True` or a `device_map` requires Accelerate: "
        "`pip install accelerate`": "env-missing-package",
        "pyarrow.lib.ArrowInvalid: Column 1 named input_ids expected length 1000 but got length "
        "1024": "map-column-length-mismatch",
        "ValueError: The batch received was empty, your model won't be able to train on it.":
            "missing-input-ids",
        "ValueError: fp16 mixed precision requires a GPU (not 'mps').": "precision-needs-cuda",
        "RuntimeError: Input, output and indices must be on the current device": "devices-differ",
        # a weights file safetensors cannot read: a cut or failed download, unless the paste
        # shows a pickled checkpoint given to it, or a clone without git-lfs
        "safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge":
            "incomplete-model-download",
        "load_file('pytorch_lora_weights.bin')\nSafetensorError: Error while deserializing "
        "header: HeaderTooLarge": "pickle-file-loaded-as-safetensors",
        "git clone https://huggingface.co/org/model\nsafetensors_rust.SafetensorError: Error "
        "while deserializing header: HeaderTooLarge": "env-setup-step-skipped",
        "RuntimeError: FlashAttention only supports Ampere GPUs or newer.":
            "flash-attention-needs-ampere",
        "ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the "
        "following error: the package flash_attn seems to be not installed.": "env-missing-package",
    }
    with pastes_from_elsewhere():
        for paste, cause in cases.items():
            assert triage(paste).cause_id == cause, (paste, triage(paste).cause_id)


def test_labels_sent_to_a_model_without_a_head_or_to_an_older_head() -> None:
    error = "TypeError: forward() got an unexpected keyword argument 'labels'"
    with pastes_from_elsewhere():
        base = triage("model = AutoModel.from_pretrained('bert-base-uncased')\n" + error)
        assert base.cause_id == "model-class-without-head"
        assert "AutoModelForSequenceClassification" in base.primary.fix
        # a class with a head takes labels: the error is about its release, not the class
        head = triage("model = RobertaForMaskedLM.from_pretrained('roberta-base')\n" + error)
        assert head.cause_id != "model-class-without-head"


def test_cannot_load_from_a_folder_or_from_an_id() -> None:
    msg = ("OSError: Can't load tokenizer for '{}'. If you were trying to load it from "
           "'https://huggingface.co/models', make sure you don't have a local directory with the "
           "same name.")
    with pastes_from_elsewhere():
        folder = triage(msg.format("./out/checkpoint-500"))
        assert folder.cause_id == "local-file-missing" and "save_pretrained" in folder.primary.fix
        assert cause_of(triage(msg.format("bert-base-uncasd")).cause_id) == "hub-repo-not-found"
        assert triage("Exception: Unk token `<unk>` not found in the vocabulary").cause_id == \
            "tokenizer-unk-token-not-set"
        assert triage("TypeError: Inputs to a layer should be tensors. Got: last_hidden_state"
                      ).cause_id == "env-version-too-new"


def test_an_attribute_error_on_a_library_object_without_frames_is_no_bug_evidence() -> None:
    with pastes_from_elsewhere():
        t = triage("AttributeError: 'MatmulLtState' object has no attribute "
                   "'memory_efficient_backward'")
    assert t.bug is None and t.cause_id != "library-bug"


def test_ragged_collate_token_level_cross_entropy_and_none_tokenizer_classes() -> None:
    with pastes_from_elsewhere():
        assert triage("RuntimeError: stack expects each tensor to be equal size, but got [128] at "
                      "entry 0 and [96] at entry 1").cause_id == "ragged-sequences"
        t = triage("ValueError: Expected target size (8, 50257), got torch.Size([8, 128])")
        assert t.cause_id == "cross-entropy-class-dim" and "view(-1" in t.primary.fix
        none = "TypeError: 'NoneType' object is not callable"
        assert triage('tok = XGLMTokenizer.from_pretrained("facebook/xglm-564M")\n' + none
                      ).cause_id == "env-missing-package"
        assert triage(none).cause_id != "env-missing-package"   # no SentencePiece class named


def test_protobuf_numpy_dll_and_compiled_extension_names() -> None:
    with pastes_from_elsewhere():
        t = triage("TypeError: Descriptors cannot be created directly.\nIf this call came from a "
                   "_pb2.py file, your generated code is out of date and must be regenerated with "
                   "protoc >= 3.19.0.")
        assert t.cause_id == "env-version-too-new" and "protobuf<=3.20.3" in t.primary.fix
        t = triage("ImportError: cannot import name 'builder' from 'google.protobuf.internal'")
        assert t.cause_id == "env-version-too-old" and '"protobuf"' in t.primary.fix
        t = triage("RuntimeError: Numpy is not available")
        assert t.cause_id == "env-binary-incompatible" and "numpy<2" in t.primary.fix
        t = triage("ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-"
                   "310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi")
        assert t.cause_id == "env-binary-incompatible" and " flash-attn " in t.primary.fix
        t = triage('OSError: [WinError 126] The specified module could not be found. Error loading '
                   '"C:\\Python310\\lib\\site-packages\\torch\\lib\\c10.dll" or one of its '
                   'dependencies.')
        assert t.cause_id == "env-binary-incompatible"


def test_sft_collator_template_dataset_split_and_empty_writes() -> None:
    with pastes_from_elsewhere():
        t = triage("UserWarning: Could not find response key `### Answer:` in the following "
                   "instance: <s> ### Question: hi ### Answer: yes</s> This instance will be "
                   "ignored in loss calculation.")
        assert t.cause_id == "response-template-tokenization-mismatch"
        assert "add_special_tokens=False" in t.primary.fix
        assert triage('ValueError: Unknown split "validation". Should be one of [\'train\'].'
                      ).cause_id == "dataset-split-not-found"
        assert triage("ValueError: You need to specify either `text` or `text_target`."
                      ).cause_id == "tokenizer-input-not-text"
        assert triage("ValueError: Please pass `features` or at least one example when writing "
                      "data").cause_id == "empty-dataset"


def test_objects_handed_to_your_functions_are_read_by_your_code() -> None:
    with pastes_from_elsewhere():
        t = triage("AttributeError: 'EvalPrediction' object has no attribute 'prediction'")
        assert t.cause_id == "library-object-missing-attribute" and t.bug is None
        # a trainer object without frames: whose code read it is unknown
        assert triage("AttributeError: 'Trainer' object has no attribute 'foo'").cause_id != \
            "library-object-missing-attribute"


def test_other_wordings_of_a_missing_pad_token_and_a_real_error_beside_the_warning() -> None:
    with pastes_from_elsewhere():
        for paste in ("Using pad_token, but it is not set yet.",
                      "ValueError: You are attempting to pad samples but the tokenizer you are "
                      "using (GPT2Tokenizer) does not have a pad token."):
            assert triage(paste).cause_id == "no-pad-token", paste
        both = "Using pad_token, but it is not set yet.\nRuntimeError: CUDA out of memory."
        assert triage(both).cause_id == "out-of-memory"


def test_drivers_and_gpus_that_are_not_there() -> None:
    with pastes_from_elsewhere():
        t = triage("RuntimeError: The NVIDIA driver on your system is too old (found version "
                   "11040). Please update your GPU driver")
        assert t.cause_id == "env-binary-incompatible" and "download.pytorch.org" in t.primary.fix
        assert triage("RuntimeError: Detected that PyTorch and torchvision were compiled with "
                      "different CUDA versions.").cause_id == "env-binary-incompatible"
        for paste in ("RuntimeError: Found no NVIDIA driver on your system.",
                      "RuntimeError: No CUDA GPUs are available"):
            t = triage(paste)
            assert t.cause_id == "cuda-unavailable" and cause_of(t.cause_id) == \
                "build-unsupported-here"


def test_a_name_not_defined_in_the_reporters_words() -> None:
    with pastes_from_elsewhere():
        t = triage('Since 4.29.0.dev0 TrainingArguments fails: the function or method '
                   '"Partial State" is not defined.')
        assert t.cause_id == "env-version-too-old" and "accelerate" in t.primary.fix
        # a name no release table knows stays unexplained (the user's own name)
        assert triage('my helper "Total Count" is not defined').primary is None


def test_a_library_using_an_internal_another_release_removed_is_its_bug() -> None:
    lib = _tb(("/content/train.py", 3, "<module>", "from transformers import TFBertModel"),
              (f"{LIB}/transformers/modeling_tf_utils.py", 39, "<module>",
               "from keras.saving.hdf5_format import save_attributes_to_hdf5_group"),
              error="ModuleNotFoundError: No module named 'keras.saving.hdf5_format'")
    # no frames: the user's code imports only transformers, which imports the internal
    bare = ("from transformers import TFBertModel  # fails on TF 2.11:\n"
            "ModuleNotFoundError: No module named 'keras.saving.hdf5_format'\n")
    with pastes_from_elsewhere():
        for paste in (lib, bare):
            t = triage(paste)
            assert t.cause_id == "library-bug" and t.bug.package == "transformers", paste
            assert "tensorflow<2.11.0" in " ".join(t.bug.reasons)
        # the user's own import of the internal is their version question
        yours = _tb(("/content/model.py", 2, "<module>", "from keras.engine.topology import Layer"),
                    error="ModuleNotFoundError: No module named 'keras.engine.topology'")
        assert triage(yours).cause_id == "env-version-too-new"
        # a public name removed after deprecation, imported by a library: a version question
        public = _tb(("/content/train.py", 1, "<module>", "import sentence_transformers"),
                     (f"{LIB}/sentence_transformers/util.py", 9, "<module>",
                      "from huggingface_hub.snapshot_download import REPO_ID_SEPARATOR"),
                     error="ModuleNotFoundError: No module named "
                           "'huggingface_hub.snapshot_download'")
        assert triage(public).cause_id == "env-version-too-new"


def test_an_argument_no_release_of_the_config_class_takes() -> None:
    def paste(cls: str, arg: str) -> str:
        return _tb(("/content/train.py", 9, "<module>", f"config = {cls}(r=16, {arg}=False)"),
                   error=f"TypeError: {cls}.__init__() got an unexpected keyword argument "
                         f"'{arg}'")
    with pastes_from_elsewhere():
        t = triage(paste("LoraConfig", "use_original_init"))
        assert t.cause_id == "invalid-config-argument" and "any release" in t.primary.cause
        # an argument a later release added, or an earlier one removed: a version question
        assert triage(paste("LoraConfig", "use_dora")).cause_id == "env-version-too-old"
        assert cause_of(triage(paste("TrainingArguments", "evaluation_strategy")).cause_id) == \
            "version-mismatch"
        assert triage(paste("IA3Config", "use_original_init")).cause_id == \
            "invalid-config-argument"
        # a class the history does not record keeps the version answer
        assert triage(paste("VeraConfig", "use_original_init")).cause_id == "env-version-too-old"


def test_a_tokenizer_the_same_code_saved_and_cannot_load_back() -> None:
    code = ("tokenizer = Tokenizer(BPE())\n{pre}tokenizer.train(files, trainer)\n"
            "tokenizer.save('tok.json')\ntokenizer = Tokenizer.from_file('tok.json')\n")
    error = ("Exception: data did not match any variant of untagged enum ModelWrapper at line 1 "
             "column 5408\n")
    with pastes_from_elsewhere():
        t = triage(code.format(pre="") + error)
        assert t.cause_id == "tokenizer-merges-file-unrepresentable" and t.bug is None
        assert "pre_tokenizer" in t.primary.fix
        # with a pre-tokenizer, or a file from elsewhere: the usual version skew
        with_pre = code.format(pre="tokenizer.pre_tokenizer = Whitespace()\n") + error
        downloaded = "tok = Tokenizer.from_file('llama3/tokenizer.json')\n" + error
        for paste in (with_pre, downloaded):
            assert triage(paste).cause_id == "env-version-too-old"


def test_embeddings_sized_for_another_vocabulary_and_a_template_ending_in_a_space() -> None:
    with pastes_from_elsewhere():
        t = triage("size mismatch for base_model.model.lm_head.weight: copying a param with shape "
                   "torch.Size([151665, 3584]) from checkpoint, the shape in current model is "
                   "torch.Size([152064, 3584]).")
        assert t.cause_id == "vocab-size-mismatch" and "resize_token_embeddings" in t.primary.fix
        head = triage("size mismatch for classifier.weight: copying a param with shape "
                      "torch.Size([2, 768]) from checkpoint, the shape in current model is "
                      "torch.Size([5, 768]).")
        assert head.cause_id == "head-size-mismatch"
        assert cause_of("vocab-size-mismatch") == cause_of("head-size-mismatch")
        spaced = ("the collator fails to find it:\nresponse_template = 'Answer: '\n"
                  "collator = DataCollatorForCompletionOnlyLM(response_template, tokenizer=tok)\n")
        assert triage(spaced).cause_id == "response-template-tokenization-mismatch"
        assert triage(spaced.replace("'Answer: '", "'Answer:'")).primary is None


def test_a_bare_unimplemented_error_is_the_string_cast_only_when_labels_are_strings() -> None:
    tb = ("UnimplementedError                        Traceback (most recent call last)\n"
          "----> 3 model.fit(train_ds, epochs=5)\n")
    with pastes_from_elsewhere():
        said = triage("I get this when using labels as strings; int labels work:\n" + tb)
        assert said.cause_id == "string-labels-not-encoded"
        assert triage("I get this when I call fit on the TPU:\n" + tb).cause_id != \
            "string-labels-not-encoded"


def test_a_sentencepiece_class_without_its_file_and_a_tokenizer_never_asked_to_truncate() -> None:
    sp = ("LlamaTokenizer.from_pretrained('org/neox-model')\n"
          "--> 310     return _sentencepiece.SentencePieceProcessor_LoadFromFile(self, arg)\n"
          "TypeError: not a string\n")
    said = ("The tokenizer is not truncating to max_len:\n"
            "tok = RobertaTokenizerFast.from_pretrained('./model/', max_len=512)\n"
            "print(len(tok.encode(txt)))\n5002\n")
    with pastes_from_elsewhere():
        t = triage(sp)
        assert t.cause_id == "tokenizer-class-mismatch" and "AutoTokenizer" in t.primary.fix
        assert triage("TypeError: not a string").cause_id != "tokenizer-class-mismatch"
        assert triage(said).cause_id == "truncation-not-enabled"
        # the same in a traceback whose frames are parsed
        framed = ('Traceback (most recent call last):\n  File "/x/lib/python3.10/site-packages/'
                  'sentencepiece/__init__.py", line 310, in LoadFromFile\n    return '
                  "_sentencepiece.SentencePieceProcessor_LoadFromFile(self, arg)\n"
                  "TypeError: not a string\n")
        assert triage(framed).cause_id == "tokenizer-class-mismatch"
        # the call asks for truncation: something else is going on
        asked = said.replace("tok.encode(txt)", "tok.encode(txt, truncation=True)")
        assert triage(asked).cause_id != "truncation-not-enabled"


def test_a_paste_pointing_at_the_library_commit_that_broke_it() -> None:
    base = ("### Reproduction\nload an iterable dataset\nuse accelerate prepare on it\n"
            "### Expected behavior\nShould not crash. Crashes instead with \"Attribute Error\"\n")
    link = ("See comment https://github.com/huggingface/accelerate/commit/"
            "9888c7ed2384c4fe78c9dd6ff27e6cb611406573#r160438369\n")
    with pastes_from_elsewhere():
        t = triage(link + base)
        assert t.cause_id == "library-bug" and t.bug.package == "accelerate"
        assert triage(base).cause_id != "library-bug"
        # a known user error in the same paste still explains it
        labels = link + "IndexError: Target 5 is out of bounds.\n"
        assert triage(labels).cause_id != "library-bug"


def test_the_librarys_own_example_script_run_as_given() -> None:
    ran = ("I found this bug while running example/token_classification/run_ner.py.\n"
           "Reproduce: just execute `run_ner.py`\n")
    with pastes_from_elsewhere():
        assert triage(ran).cause_id == "library-bug"
        # the reporter's own modified copy is theirs
        assert triage(ran + "- [x] My own modified scripts\n").cause_id != "library-bug"
        # a script of the user's own named like one: not the library's example folder
        assert triage("I found this bug while running my_run_ner.py\n").cause_id != "library-bug"


def test_a_library_object_missing_an_attribute_with_no_frames_is_version_skew() -> None:
    with pastes_from_elsewhere():
        t = triage("AttributeError: 'MatmulLtState' object has no attribute 'memory_efficient_"
                   "backward'")
        assert t.cause_id == "env-version-too-old" and t.bug is None
        assert "mismatched releases" in t.primary.cause
        # the paste's own code reads the attribute: a wrong name, not a skew
        own = "print(state.memory_efficient_backward)\n" + t.parsed.text
        assert triage(own).cause_id != "env-version-too-old"
        # evidence of a library bug (a stated regression) outweighs the guess
        stated = t.parsed.text + "\nWhen running the code on version 0.14.0, no errors occur."
        assert triage(stated).cause_id == "library-bug"


def test_pyarrow_exceptions_without_an_error_suffix_are_read() -> None:
    t = triage("E   pyarrow.lib.ArrowInvalid: JSON parse error: Invalid value. in row 0\n")
    assert t.parsed.exc_type == "pyarrow.lib.ArrowInvalid"
    assert t.parsed.message.startswith("JSON parse error")


def test_remote_code_not_registered_for_an_auto_class_points_at_the_repository() -> None:
    paste = ("ValueError: Unrecognized configuration class <class 'transformers_modules.org.m."
             "abc123.configuration_m.MConfig'> for this kind of AutoModel: AutoModelForSeq2SeqLM."
             "\nModel type should be one of BartConfig, T5Config.")
    t = triage(paste)
    assert t.cause_id == "library-bug" and "auto_map" in t.bug.reasons[0]
    # a config class of transformers itself: the user picked the wrong Auto class
    plain = paste.replace("transformers_modules.org.m.abc123.configuration_m.MConfig",
                          "transformers.models.bert.configuration_bert.BertConfig")
    assert triage(plain).cause_id != "library-bug"


@pytest.mark.parametrize("paste, cause", [
    ("ValueError: You can't pass `load_in_4bit`or `load_in_8bit` as a kwarg when passing "
     "`quantization_config` argument at the same time.", "quantization-args-conflict"),
    ("ValueError: `.to` is not supported for `4-bit` or `8-bit` bitsandbytes models. Please use "
     "the model as it is", "quantized-model-moved"),
    # the older wording, and a cast rather than a move
    ("ValueError: `.half()` is not supported for `4-bit` or `8-bit` models. Please use the model "
     "as it is, since the model has already been casted to the correct `dtype`.",
     "quantized-model-moved"),
    ("RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) "
     "should be the same", "devices-differ"),
    ("RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) "
     "should be the same", "mixed-dtypes"),
    ("RuntimeError: Placeholder storage has not been allocated on MPS device!", "devices-differ"),
    ("RuntimeError: Index put requires the source and destination dtypes match, got Float for "
     "the destination and BFloat16 for the source.", "mixed-dtypes"),
    ("huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or "
     "'namespace/repo_name': '/content/drive/MyDrive/model'. Use `repo_type` argument if needed.",
     "local-file-missing"),
    ("FileNotFoundError: Unable to find '/content/data/train.csv'", "local-file-missing"),
    ("TypeError: Couldn't cast array of type string to null", "arrow-mixed-column-types"),
    ("NotImplementedError: Loading a dataset cached in a LocalFileSystem is not supported.",
     "env-version-too-old"),
    ("ValueError: Using a `device_map` or `tp_plan` requires `accelerate`. You can install it "
     "with `pip install accelerate`", "env-missing-package"),
    ("ValueError: Unrecognized configuration class <class 'transformers.models.t5.configuration_"
     "t5.T5Config'> for this kind of AutoModel: AutoModelForCausalLM.", "wrong-auto-class"),
    ("TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the "
     "tensor to host memory first.", "tensor-to-numpy"),
    ("RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
     "instead.", "tensor-to-numpy"),
    ("ValueError: Input length of input_ids is 1024, but `max_length` is set to 20.",
     "generate-max-length-too-short"),
    ("ValueError: Can't find a pad token in the tokenizer", "no-pad-token"),
    ("ValueError: Expected a 1D array, got an array with shape (8, 2)", "metric-fed-logits"),
    ("RuntimeError: Expected target size [8, 50257], got [8, 128]", "cross-entropy-class-dim"),
    ("ValueError: Unexpected result of `train_function` (Empty logs).", "empty-dataset"),
    ("ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: "
     "target.shape=(None,), output.shape=(None, 2)", "keras-shapes-incompatible"),
    ("ValueError: You passed `packing=False` to the SFTTrainer/SFTConfig, but you didn't pass a "
     "`dataset_text_field` or `formatting_func` argument.", "sft-missing-text-field"),
])
def test_more_wordings_of_fine_tuning_errors(paste: str, cause: str) -> None:
    with pastes_from_elsewhere():
        assert triage(paste).cause_id == cause


def test_the_new_wordings_stay_quiet_where_they_do_not_apply() -> None:
    with pastes_from_elsewhere():
        # a Hub id in the right form is not a local path
        assert triage("HFValidationError: Repo id must use alphanumeric chars or '-', '_', '.': "
                      "'org/my model'").cause_id != "local-file-missing"
        # same device and dtype words on both sides: not a device fault
        assert triage("RuntimeError: Input type (torch.FloatTensor) and weight type "
                      "(torch.FloatTensor) should be the same").cause_id != "devices-differ"


def test_regressions_and_fixes_stated_without_a_version_pair() -> None:
    base = "TypeError: Loading fails on the data_dir argument\n"
    with pastes_from_elsewhere():
        for said in ("This is recent behavior. Until the past few weeks loading with data_dir "
                     "worked without any issue.",
                     "The problem arises due to this [PR](https://github.com/huggingface/"
                     "transformers/pull/23760).",
                     "when I fall back to version 0.35.4, these problems no longer exist"):
            t = triage(base + said)
            assert t.cause_id == "library-bug" and t.bug.strong, said
        assert triage(base).cause_id != "library-bug"
        # a reporter's own code that "used to work", or a release that "runs out of memory",
        # is no regression of the library
        for said in ("My script used to work before I changed the data.",
                     "With version 4.30 it runs out of memory."):
            assert triage(base + said).bug is None, said
        fixed = triage("Fixing the following bug:\nKeyError: 'train'\n")
        assert fixed.cause_id == "library-bug"
        assert triage("I am fixing my script:\nKeyError: 'train'\n").cause_id != "library-bug"


def test_a_line_of_library_source_blamed_or_edited() -> None:
    link = "https://github.com/org/lib/blob/main/src/lib/models/model.py#L165"
    with pastes_from_elsewhere():
        blamed = triage(f"Could you consider revise [line 165]({link})? This could cause "
                        "`ValueError: Target modules ['q_proj'] not found in the base model.`")
        assert blamed.cause_id == "library-bug"
        edited = triage(f"`ModuleNotFoundError: No module named 'keras'` at {link}\nReplaced it "
                        "with `from tensorflow.python.keras import x` and the error was gone.")
        assert edited.cause_id == "library-bug"
        # the same error without the link to the library's line: the user's setup
        assert triage("ValueError: Target modules ['q_proj'] not found in the base model."
                      ).cause_id == "peft-target-modules-not-found"
        # blamed in Chinese ("this line should be changed to ..., otherwise SFT errors")
        assert triage(f"{link}\n这一行应该改成根据 fp16 来设置, 不然 SFT 会报错").cause_id == \
            "library-bug"
        # the link with a question only ("what does this line do?") blames nothing
        assert triage(f"{link}\n请问这里是什么意思?").cause_id != "library-bug"


def test_a_library_failing_while_only_imported_or_calling_itself_wrongly() -> None:
    site = "/usr/lib/python3.12/site-packages"
    imported = (f"Traceback (most recent call last):\n  File \"train.py\", line 1, in <module>\n"
                f"    from unsloth import FastLanguageModel\n  File \"{site}/unsloth/models/rl.py"
                "\", line 854, in patch_functions\n    last = params.split('\\n')[-2]\n"
                "IndexError: list index out of range")
    own_call = (f"Traceback (most recent call last):\n  File \"{site}/transformers/trainer_tf.py\""
                ", line 138, in get_train_tfdataset\n    n = self.train_dataset.cardinality("
                "self.train_dataset).numpy()\nTypeError: cardinality() takes 1 positional argument"
                " but 2 were given")
    with pastes_from_elsewhere():
        t = triage(imported)
        assert t.cause_id == "library-bug" and "only imports it" in t.bug.reasons[0]
        assert triage(own_call).cause_id == "library-bug"
        # the user's own call into the library: their values, not evidence
        mine = imported.replace("from unsloth import FastLanguageModel", "model = build(cfg)")
        assert triage(mine).cause_id != "library-bug"
        # the library calling a function the paste defines: the user's function
        theirs = "def cardinality(ds):\n    return 1\n" + own_call
        assert triage(theirs).cause_id != "library-bug"
        # the library calling an object of its own with the wrong arguments (header wrapped)
        wrapped = (f"File \"{site}/unsloth/models/llama.py\", line 694, in   \n"
                   "LlamaForCausalLM_fast_forward   \n    outputs = LlamaModel_fast_forward_"
                   "inference(\nTypeError: __call__() takes 2 positional arguments but 4 were "
                   "given")
        t = triage(wrapped)
        assert t.parsed.frames[0].function == "LlamaForCausalLM_fast_forward"
        assert t.cause_id == "library-bug"
        callable_of_theirs = "class Fwd:\n    def __call__(self, x):\n        return x\n" + wrapped
        assert triage(callable_of_theirs).cause_id != "library-bug"


def test_a_silent_wrong_result_on_literal_input() -> None:
    session = (">>> tok = AutoTokenizer.from_pretrained('meta-llama/Meta-Llama-3-8B')\n"
               ">>> tok(['Sample input'], return_offsets_mapping=True)['offset_mapping']\n"
               "[[(0, 0), (0, 0), (6, 6)]]\n")
    with pastes_from_elsewhere():
        assert triage(session + "But for Llama-3 they are not correct").cause_id == "library-bug"
        assert triage(session + "Is this expected?").cause_id != "library-bug"
        own = session.replace(">>> tok = ", ">>> def f(x): pass\n>>> tok = ")
        assert triage(own + "they are not correct").cause_id != "library-bug"


def test_label_cols_label_with_a_transformers_collator() -> None:
    code = ("tf_ds = ds.to_tf_dataset(columns=['input_ids'], label_cols=['label'], batch_size=16,"
            "\n    collate_fn=DefaultDataCollator(return_tensors='tf'))\n")
    err = "AssertionError: in user code:\n    assert set(features.keys()).union(labels.keys())"
    assert triage(code + err).cause_id == "collator-renames-label-to-labels"
    # no transformers collator: the batch keeps `label`
    assert triage(code.replace("DefaultDataCollator(return_tensors='tf')", "my_collate") + err
                  ).cause_id != "collator-renames-label-to-labels"
    # the code alone, nothing failing
    assert triage(code).cause_id != "collator-renames-label-to-labels"


def test_a_sentencepiece_tokenizer_that_will_not_load_in_the_reporters_words() -> None:
    with pastes_from_elsewhere():
        t = triage("Transformers==4.0.0\nNot able to load T5 tokenizer using\n"
                   "`tokenizer = T5Tokenizer.from_pretrained('t5-base')`")
        assert t.cause_id == "env-missing-package" and "sentencepiece" in t.primary.fix
        # a tokenizer class that does not need sentencepiece
        assert triage("Not able to load Bert tokenizer using BertTokenizer.from_pretrained("
                      "'bert-base-cased')").cause_id != "env-missing-package"


def test_a_keras_tokenizer_is_not_a_tokenizers_object() -> None:
    keras = ("from tensorflow.keras.preprocessing.text import Tokenizer\ntok = Tokenizer()\n"
             "AttributeError: 'Tokenizer' object has no attribute 'pad_token'")
    assert triage(keras).cause_id != "tokenizers-object-not-wrapped"
    assert triage(keras.replace("from tensorflow.keras.preprocessing.text import Tokenizer",
                                "from tokenizers import Tokenizer")
                  ).cause_id == "tokenizers-object-not-wrapped"


def test_a_sentencepiece_tokenizer_returning_none_in_the_reporters_words() -> None:
    with pastes_from_elsewhere():
        t = triage("PegasusTokenizer.from_pretrained('google/pegasus-xsum') returns None.")
        assert t.cause_id == "env-missing-package" and "sentencepiece" in t.primary.fix


@pytest.mark.parametrize("paste, cause", [
    ("ValueError: You passed both a ref_model and a peft_config. For training PEFT adapters with "
     "DPO there is no need to pass a reference model.", "dpo-ref-model-with-peft-config"),
    ("ValueError: You passed a `DataCollatorForCompletionOnlyLM` to the SFTTrainer. This is not "
     "compatible with the `packing` argument.", "packing-with-completion-only-collator"),
    ("ValueError: You have to specify either decoder_input_ids or decoder_inputs_embeds",
     "encoder-decoder-missing-decoder-inputs"),
    ("model = AutoModel.from_pretrained('t5-base')\nout = model.generate(input_ids=ids)\n"
     "ValueError: You have to specify either decoder_input_ids or decoder_inputs_embeds",
     "model-class-without-head"),
    # releases before 2.9 said "input_ids" for the decoder too: a seq2seq model called with inputs
    ("model = TFT5ForConditionalGeneration.from_pretrained('t5-large')\n"
     "<ipython-input-17-e0> in build_model(transformer, max_len)\n---> 33     sequence_output = "
     "transformer(input_word_ids)[0]\nValueError: You have to specify either input_ids or "
     "inputs_embeds", "encoder-decoder-missing-decoder-inputs"),
    ("model = TFT5ForConditionalGeneration.from_pretrained('t5-large')\ntransformers 4.30.2\n"
     "<ipython-input-17-e0> in build_model(transformer, max_len)\n---> 33     sequence_output = "
     "transformer(input_word_ids)[0]\nValueError: You have to specify either input_ids or "
     "inputs_embeds", "missing-input-ids"),
    ("model = TFBertModel.from_pretrained('bert-base-cased')\n"
     "<ipython-input-17-e0> in build_model(transformer, max_len)\n---> 33     sequence_output = "
     "transformer(input_word_ids)[0]\nValueError: You have to specify either input_ids or "
     "inputs_embeds", "missing-input-ids"),
    ("ValueError: Unknown signature default in /content/albert_base (available signatures: "
     "_SignatureMap({'mlm': <WrappedFunction object at 0x7f>, 'tokens': <WrappedFunction>}))",
     "hub-signature-not-specified"),
    ("if self.num_train_examples < 0:\n      raise ValueError(\"The training dataset must have an"
     " asserted cardinality\")", "tf-dataset-unknown-cardinality"),
    ("from tokenizers import Tokenizer\ntok = Tokenizer.from_file('t.json')\ntrainer = Trainer("
     "model, args, tokenizer=tok)\nAttributeError: 'Tokenizer' object has no attribute 'pad'",
     "tokenizers-object-not-wrapped"),
    ("I train with a SentencePieceBPETokenizer but it is missing several attributes as well as "
     "methods (e.g., `pad`)", "tokenizers-object-not-wrapped"),
    ("model = TFBertModel.from_pretrained('dbmdz/bert-base-italian-cased')\nAssertionError: Error "
     "retrieving file /root/.cache/torch/transformers/076c0d3e.h5", "no-tf-weights-on-hub"),
    ("ValueError: Can only automatically infer lengths for datasets whose items are dictionaries "
     "with an 'input_ids' key.", "group-by-length-without-input-ids"),
    ("`bf16 mixed precision requires PyTorch >= 1.10 and a supported device.`",
     "bf16-unsupported-gpu"),
    ("ptxas /tmp/compile-ptx-src-38292b, line 104; error   : Feature 'cvt with .f32.bf16' "
     "requires .target sm_80 or higher", "bf16-unsupported-gpu"),
    ("TypeError: forward() got an unexpected keyword argument 'token_type_ids'",
     "unsupported-token-type-ids"),
    ("ImportError: cannot import name 'AutoModelForCausalLMWithValueHead' from 'trl'",
     "env-version-too-new"),
    ("datasets.utils.info_utils.NonMatchingSplitsSizesError: [{'expected': SplitInfo(name='test',"
     " num_bytes=1, num_examples=4358, shard_lengths=None, dataset_name=None), 'recorded': "
     "SplitInfo(name='test', num_bytes=5, num_examples=17432, shard_lengths=None, "
     "dataset_name='parquet')}]", "env-version-too-old"),
    ("it reports error : ValueError : Unable to create tensor , you should probably activate "
     "truncation and/or padding with 'padding=True'", "unable-to-create-tensor"),
    ("embedder = SentenceTransformer(modules=[m])\nTypeError: encode() got an unexpected keyword "
     "argument 'convert_to_tensor'", "env-version-too-old"),
])
def test_wordings_of_trl_seq2seq_precision_and_release_errors(paste: str, cause: str) -> None:
    with pastes_from_elsewhere():
        assert triage(paste).cause_id == cause


def test_a_name_trl_removed_is_a_release_question_not_a_wrong_import() -> None:
    with pastes_from_elsewhere():
        t = triage("ImportError: cannot import name 'ORPOTrainer' from 'trl'")
        assert t.cause_id == "env-version-too-new"
        assert "trl.experimental.orpo" in t.primary.fix
        # a class of another library imported from trl is still a wrong path
        assert triage("ImportError: cannot import name 'BertModel' from 'trl'").cause_id == \
            "wrong-import-path"


@pytest.mark.parametrize("paste, cause", [
    ("AttributeError: 'Seq2SeqLMOutput' object has no attribute 'shape'", "model-output-misread"),
    ("AttributeError: 'tuple' object has no attribute 'logits'", "model-output-misread"),
    ("TypeError: linear(): argument 'input' (position 1) must be Tensor, not tuple",
     "model-output-misread"),
    ("Asking to truncate to max_length but no maximum length is provided and the model has no "
     "predefined maximum length. Default to no truncation.", "tokenizer-no-max-length"),
    ("ValueError: optimizer got an empty parameter list", "no-trainable-parameters"),
    ("ValueError: No columns in the dataset match the model's forward method signature. The "
     "following columns have been ignored: [text, label].", "dataset-not-tokenized"),
    ("TypeError: Provided `function` which is applied to all elements of table returns a "
     "variable of type <class 'list'>. Make sure provided `function` returns a variable of type "
     "`dict`", "map-function-returns-non-dict"),
    ("ValueError: BuilderConfig 'mrpcx' not found. Available: ['cola', 'mrpc']",
     "dataset-config-name"),
    ("You are using a model of type bert to instantiate a model of type roberta. This is not "
     "supported for all configurations of models and can yield errors.", "model-class-mismatch"),
    ("RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
     "multiprocessing, you must use the 'spawn' start method", "cuda-in-forked-subprocess"),
    ("RuntimeError: DataLoader worker (pid(s) 12345) exited unexpectedly",
     "dataloader-shared-memory"),
    ("ValueError: This tokenizer cannot be instantiated. Please make sure you have "
     "`sentencepiece` installed in order to use this tokenizer.", "env-missing-package"),
    ("RuntimeError: Internal: src/sentencepiece_processor.cc(1101) [model_proto->ParseFromArray("
     "serialized.c_str(), size())]", "env-setup-step-skipped"),
    ("RuntimeError: Error(s) in loading state_dict for BertModel:\n\tUnexpected key(s) in "
     "state_dict: \"embeddings.position_ids\".", "env-version-too-new"),
    ("ValueError: Non-consecutive added token '<pad>' found. Should have index 32000 but has "
     "index 0 in saved vocabulary.", "env-version-too-old"),
    ("ValueError: weight is on the meta device, we need a `value` to put in on 0.",
     "meta-tensor-model"),
    ("ValueError: Can't convert non-rectangular Python sequence to Tensor.", "ragged-sequences"),
    ("RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.",
     "inplace-operation-breaks-autograd"),
    ("ValueError: Input is not valid. Should be a string, a list/tuple of strings or a "
     "list/tuple of integers.", "tokenizer-input-not-text"),
])
def test_wordings_of_outputs_datasets_workers_and_loading(paste: str, cause: str) -> None:
    with pastes_from_elsewhere():
        assert triage(paste).cause_id == cause


def test_the_version_skew_guess_leaves_data_objects_alone() -> None:
    with pastes_from_elsewhere():
        # (IterableDataset.column_names came with datasets 2.11: on 2.14 it is no version gap)
        for paste in ("AttributeError: 'BatchEncoding' object has no attribute 'shape'",
                      "AttributeError: 'IterableDataset' object has no attribute 'column_names'"
                      "\ndatasets 2.14.0"):
            assert triage(paste).cause_id != "env-version-too-old", paste


@pytest.mark.parametrize("paste, cause, fix", [
    # a member the class gained later, on a release before it
    ("AttributeError: 'IterableDataset' object has no attribute 'column_names'\ndatasets 2.10.0",
     "env-version-too-old", 'datasets>=2.11.0'),
    ("AttributeError: 'Dataset' object has no attribute 'to_tf_dataset'", "env-version-too-old",
     'datasets>=1.13.0'),
    # a member a release took away, read by code written before it
    ('Traceback (most recent call last):\n  File "t.py", line 9, in <module>\n'
     "    tok = trainer.tokenizer\nAttributeError: 'Trainer' object has no attribute 'tokenizer'"
     "\ntransformers version: 5.1.0", "env-version-too-new", 'transformers<5.0.0'),
])
def test_members_the_released_wheels_date(paste: str, cause: str, fix: str) -> None:
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.cause_id == cause and fix in t.primary.fix and not t.primary.guess


@pytest.mark.parametrize("paste, cause", [
    ("ValueError: Target module Dropout(p=0.1, inplace=False) is not supported. Currently, only "
     "the following modules are supported: `torch.nn.Linear`", "peft-target-module-unsupported"),
    ("RuntimeError: Expected to have finished reduction in the prior iteration before starting "
     "a new one.", "ddp-unused-parameters"),
    ("RuntimeError: Some tensors share memory, this will lead to duplicate memory on disk and "
     "potential differences when loading them again", "safetensors-shared-tensors"),
    ("ValueError: You can't train a model that has been loaded in 8-bit precision on a different "
     "device than the one you're training on.", "quantized-model-wrong-device"),
    ("ValueError: DeepSpeed Zero-3 is not compatible with `low_cpu_mem_usage=True` or with "
     "passing a `device_map`.", "deepspeed-zero3-device-map"),
    ("ZeRORuntimeException: You are using ZeRO-Offload with a client provided optimizer",
     "deepspeed-offload-client-optimizer"),
    ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
     "distributed-child-failed"),
    ("OSError: [Errno 28] No space left on device", "disk-full"),
    ("ValueError: Unknown loss function: my_loss. Please ensure you are using a "
     "`keras.utils.custom_object_scope`", "keras-custom-objects-on-load"),
    ("ValueError: `rope_scaling` must be a dictionary with two fields, `type` and `factor`, got "
     "{'factor': 8.0, 'rope_type': 'llama3'}", "env-version-too-old"),
    ("ValueError: You are calling `save_pretrained` on a 4-bit converted model. This is "
     "currently not supported", "env-version-too-old"),
    ("ValueError: The model you want to train is loaded in 8-bit precision.  if you want to "
     "fine-tune an 8-bit model, please make sure that you have installed `bitsandbytes>=0.37.0`.",
     "env-version-too-old"),
    ("KeyError: 'qwen2'", "env-version-too-old"),
    ("ImportError: cannot import name 'AdamW' from 'transformers'", "env-version-too-new"),
    ("ValueError: Can't find 'adapter_config.json' at './my-lora'", "local-file-missing"),
])
def test_wordings_of_adapters_distributed_disk_and_releases(paste: str, cause: str) -> None:
    with pastes_from_elsewhere():
        assert triage(paste).cause_id == cause


def test_a_removed_name_is_not_blamed_on_a_release_that_still_had_it() -> None:
    paste = ("!pip install --quiet transformers==4.5.0\nfrom transformers import AdamW\n"
             "ImportError: cannot import name 'AdamW' from 'transformers' (unknown location)")
    with pastes_from_elsewhere():
        t = triage(paste)
        assert t.cause_id == "env-missing-package" and "torch" in t.primary.fix
        assert triage(paste.replace("4.5.0", "4.52.0")).cause_id == "env-version-too-new"


@pytest.mark.parametrize("paste, cause", [
    ("在DPO模式下可能报DPOTrainer.get_batch_logps() got an unexpected keyword argument "
     "'average_log_prob'这个错误", "env-version-too-new"),
    ("使用tensorflow 2.8.0 keras2.8.0 报错\nAttributeError: module'keras.utils' has no attribute "
     "'get_custom_objects'", "env-version-too-old"),
    ("原因：ppopefttrainer.batched_forward_pass()got an unexpected keyword argument"
     "'response_masks'", "env-version-too-new"),
    ("ValueError: Error occurred while packing the dataset. Make sure that your dataset has "
     "enough samples to at least yield one packed sequence.", "packing-dataset-too-small"),
    ("A decoder-only architecture is being used, but right-padding was detected! For correct "
     "generation results, please set `padding_side='left'`", "wrong-padding-side"),
    ("tokenizer.pad_token_id = tokenizer.eos_token_id\nA decoder-only architecture is being "
     "used, but right-padding was detected!", "pad-equals-eos-false-warning"),
    ("FileNotFoundError: Op type not registered 'CaseFoldUTF8' in binary running on host.",
     "env-missing-package"),
    ("AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'",
     "torch-cpu-only-build"),
])
def test_wordings_in_other_scripts_and_spacings(paste: str, cause: str) -> None:
    with pastes_from_elsewhere():
        assert triage(paste).cause_id == cause


def test_a_library_that_says_so_or_contradicts_itself() -> None:
    with pastes_from_elsewhere():
        said = triage("RuntimeError: Unsloth: Please file a bug report! Error patching SFTTrainer")
        assert said.cause_id == "library-bug" and said.bug.strong
        own = triage("the newly pushed changes broke the installation of the library\n"
                     "AttributeError: module 'unsloth.models._utils' has no attribute "
                     "'accelerate_old_send_to_device'")
        assert own.cause_id == "library-bug"
        # a user's code reading a name of a private module: not the library's own use
        mine = ("from unsloth.models._utils import accelerate_old_send_to_device\nAttributeError:"
                " module 'unsloth.models._utils' has no attribute 'accelerate_old_send_to_device'")
        assert triage(mine).cause_id != "library-bug"
        unchanged = triage("It was working fine yesterday, no changes to the notebook.\n"
                           "TypeError: _get_batch_samples() takes 3 positional arguments but 4 "
                           "were given")
        assert unchanged.cause_id == "library-bug"


def test_a_regression_since_a_release_and_a_printed_wrong_result() -> None:
    with pastes_from_elsewhere():
        since = triage("Since (Python) version 0.11.3, `tokenizers` are not dealing with mask "
                       "tokens as single tokens, and instead split them up into characters.")
        assert since.cause_id == "library-bug" and since.bug.strong
        script = ("tokenizer = AutoTokenizer.from_pretrained('dslim/bert-base-NER')\n"
                  "decoded = tokenizer.decode(tokenizer('a ten-year-old boy')['input_ids'])\n"
                  "print(decoded) # [CLS] a ten - year - old boy [SEP]\n")
        assert triage("Decode fails to correctly contract the string:\n" + script
                      ).cause_id == "library-bug"
        assert triage("How do I keep the hyphens?\n" + script).cause_id != "library-bug"
        helper = "def norm(x):\n    return x.lower()\n" + script
        assert triage("Decode fails to correctly contract the string:\n" + helper
                      ).cause_id != "library-bug"


@pytest.mark.parametrize("paste, cause", [
    ('ValueError: Layer "model" expects 3 input(s), but it received 1 input tensors.',
     "keras-model-input-count"),
    ("ValueError: Tensor conversion requested dtype int32 for Tensor with dtype int64",
     "tf-int-dtype-mismatch"),
    ("KeyError: \"The optimizer cannot recognize variable dense/kernel:0. This usually means you "
     "are trying to call the optimizer to update different parts of the model separately.",
     "keras-optimizer-reused"),
    ("ValueError: `logits` and `labels` must have the same shape, received ((None, 2) vs "
     "(None, 1)).", "keras-shapes-incompatible"),
    ("InvalidArgumentError: Incompatible shapes: [8,2] vs. [8]", "keras-shapes-incompatible"),
    ("InvalidArgumentError: Cannot add tensor to the batch: number of elements does not match. "
     "Shapes are: [tensor]: [57], [batch]: [128]", "ragged-sequences"),
    ("ImportError: Keras cannot be imported. Check that it is installed.", "env-missing-package"),
    ("ValueError: Exception encountered when calling layer \"tf_bert_model\".\n\nThe following "
     "keyword arguments are not supported by this model: ['labels'].", "model-class-without-head"),
    ("datasets.exceptions.DatasetGenerationCastError: An error occurred while generating the "
     "dataset\n\nAll the data files must have the same columns, but at some point there are 2 "
     "new columns", "data-files-different-columns"),
    ("ValueError: Instruction \"train\" corresponds to no data!", "empty-dataset"),
    ("huggingface_hub.errors.LocalTokenNotFoundError: Token is required (`token=True`), but no "
     "token found.", "hub-not-logged-in"),
    ("HfHubHTTPError: 403 Forbidden: You don't have the rights to create a model under the "
     "namespace \"org\".", "hub-write-refused"),
    ("ValueError: Invalid token passed!", "hub-invalid-token"),
    ("safetensors_rust.SafetensorError: Error while deserializing header: "
     "MetadataIncompleteBuffer", "incomplete-model-download"),
    ("RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central "
     "directory", "incomplete-model-download"),
    ("_pickle.UnpicklingError: Weights only load failed. In PyTorch 2.6, we changed the default "
     "value of the `weights_only` argument in `torch.load` from `False` to `True`.",
     "env-version-too-new"),
    ("ValueError: Due to a serious vulnerability issue in `torch.load`, even with "
     "`weights_only=True`, we now require users to upgrade torch to at least v2.6",
     "env-version-too-old"),
    ("OSError: ./out does not appear to have a file named config.json.", "local-file-missing"),
    ("OSError: Unable to load weights from h5 file. If you tried to load a TF 2.0 model from a "
     "PyTorch checkpoint, please set from_pt=True.", "model-dir-missing-weights"),
])
def test_wordings_of_keras_datasets_hub_and_weight_files(paste: str, cause: str) -> None:
    with pastes_from_elsewhere():
        assert triage(paste).cause_id == cause


def test_a_hub_id_without_config_is_not_called_a_local_folder() -> None:
    with pastes_from_elsewhere():
        assert triage("OSError: org/lora-adapter does not appear to have a file named "
                      "config.json.").cause_id != "local-file-missing"


@pytest.mark.parametrize("paste, cause", [
    ("AttributeError: 'SentencePieceBPETokenizer' object has no attribute 'pad'",
     "tokenizers-object-not-wrapped"),
    ("AttributeError: 'Tokenizer' object has no attribute 'pad_token_id'",
     "tokenizers-object-not-wrapped"),
    ("TypeError: argument 'files': 'BpeTrainer' object cannot be converted to 'Sequence'",
     "tokenizer-train-argument-order"),
])
def test_tokenizers_library_objects_and_calls(paste: str, cause: str) -> None:
    with pastes_from_elsewhere():
        assert triage(paste).cause_id == cause


def test_a_transformers_tokenizer_is_not_taken_for_a_tokenizers_one() -> None:
    with pastes_from_elsewhere():
        assert triage("AttributeError: 'BertTokenizerFast' object has no attribute 'pad'"
                      ).cause_id != "tokenizers-object-not-wrapped"


def _py(version: str) -> str:
    return f"/usr/local/lib/python{version}/dist-packages"


@pytest.mark.parametrize("paste, needs", [
    # a SyntaxError at a library's f-string under Python 3.5
    ("Traceback (most recent call last):\n"
     '  File "train.py", line 2, in <module>\n    import transformers\n'
     f'  File "{_py("3.5")}/transformers/__init__.py", line 40\n'
     '    logger.info(f"loaded {name}")\n                              ^\n'
     "SyntaxError: invalid syntax\n", "3.6"),
    # the same traceback cut at the line that does not parse (a variable annotation)
    ("Traceback (most recent call last):\n"
     '  File "run.py", line 186, in <module>\n    from kashgari.embeddings import BERTEmbedding\n'
     f'  File "{_py("3.5")}/kashgari/embeddings/embeddings.py", line 70\n'
     "    self._token2idx: Dict[str, int] = None\n", "3.6"),
    # built-in generics evaluated by Python 3.8
    (_tb(("train.py", 1, "<module>", "from trl import SFTTrainer"),
         (f"{_py('3.8')}/trl/trainer/utils.py", 88, "<module>",
          "def pad(tensors: list[torch.Tensor], padding_value: int = 0):"),
         error="TypeError: 'type' object is not subscriptable"), "3.9"),
    # X | Y unions evaluated by Python 3.9
    (_tb(("train.py", 1, "<module>", "import peft"),
         (f"{_py('3.9')}/peft/tuners/lora/config.py", 60, "LoraConfig",
          "target_modules: list[str] | str | None = field(default=None)"),
         error="TypeError: unsupported operand type(s) for |: 'types.GenericAlias' and 'type'"),
     "3.10"),
])
def test_a_library_written_for_a_newer_python(paste: str, needs: str) -> None:
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.cause_id == "env-version-too-old" and t.primary.signature.id == "env-python-too-old"
    assert f"Python {needs}" in t.primary.cause and f"python>={needs}" not in t.primary.fix
    assert f"Python >= {needs}" in t.primary.fix.replace("python", "Python")


@pytest.mark.parametrize("paste", [
    # the user's own file does not parse: their typo, not the Python
    ("Traceback (most recent call last):\n"
     '  File "/content/train.py", line 12\n    x = f"{a"\n        ^\nSyntaxError: invalid syntax\n'),
    # a library's f-string under a Python that has f-strings: something else
    ("Traceback (most recent call last):\n"
     '  File "train.py", line 2, in <module>\n    import transformers\n'
     f'  File "{_py("3.11")}/transformers/__init__.py", line 40\n'
     '    logger.info(f"loaded {name}")\n                              ^\n'
     "SyntaxError: invalid syntax\n"),
    # a library line subscripting a type it built, on a Python that has the generics
    (_tb(("train.py", 3, "<module>", "trainer.train()"),
         (f"{_py('3.11')}/transformers/trainer.py", 88, "train", "x = batch[0]"),
         error="TypeError: 'type' object is not subscriptable")),
])
def test_syntax_and_typing_errors_that_are_not_an_old_python(paste: str) -> None:
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.primary is None or t.primary.signature.id != "env-python-too-old"


def test_a_keras_2_layer_added_to_a_keras_3_model() -> None:
    hub = ("ValueError: Only instances of `keras.Layer` can be added to a Sequential model. "
           "Received: <tensorflow_hub.keras_layer.KerasLayer object at 0x28ac6d4d0> (of type "
           "<class 'tensorflow_hub.keras_layer.KerasLayer'>)")
    own = ("ValueError: Only instances of `keras.Layer` can be added to a Sequential model. "
           "Received: <__main__.Scaler object at 0x7f> (of type <class '__main__.Scaler'>)")
    with pastes_from_elsewhere():
        t = triage(hub)
        assert t.cause_id == "keras-3-installed" and "TF_USE_LEGACY_KERAS" in t.primary.fix
        assert triage(own).cause_id != "keras-3-installed"


def test_the_older_trainers_key_error_on_the_loss() -> None:
    paste = _tb(("m1.py", 122, "<module>", "trainer.train()"),
                (f"{LIB}/transformers/trainer.py", 1105, "compute_loss",
                 'return outputs["loss"] if isinstance(outputs, dict) else outputs[0]'),
                error="KeyError: 'loss'")
    keras = _tb(("fit.py", 30, "<module>", "plt.plot(history.history['loss'])"),
                error="KeyError: 'loss'")
    with pastes_from_elsewhere():
        assert triage(paste).cause_id == "model-returned-no-loss"
        assert triage(keras).cause_id != "model-returned-no-loss"


@pytest.mark.parametrize("path, cause", [
    ("./data/ckpt/init/uncased_base/bert_model.ckpt", "env-setup-step-skipped"),
    ("biobert/model.ckpt-1000000.index", "tf-checkpoint-prefix-wrong"),
])
def test_a_tensorflow_checkpoint_path_with_no_files(path: str, cause: str) -> None:
    paste = f"tensorflow.python.framework.errors_impl.NotFoundError: Unsuccessful " \
            f"TensorSliceReader constructor: Failed to find any matching files for {path}"
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.cause_id == cause and path in t.primary.cause


_UNK = ("tokenizer = Tokenizer(BPE({args}))\ntokenizer.pre_tokenizer = Whitespace()\n"
        'trainer = BpeTrainer(special_tokens=["[UNK]", "[PAD]"])\n'
        "tokenizer.train(files, trainer)\nprint(tokenizer.encode('hello שלום').tokens)\n"
        "['hello']\n{says}\n")


@pytest.mark.parametrize("paste, cause", [
    (_UNK.format(args="", says="The Hebrew word is silently ignored. Why?"),
     "tokenizer-unk-token-not-set"),
    ('from tokenizers.pre_tokenizers import Split\n'
     'tok.pre_tokenizer = Split(pattern=r"\\s+|\\p{P}", behavior="isolated")\n'
     "print(tok.pre_tokenizer.pre_tokenize_str('a b, c'))\n[('a b, c', (0, 7))]\n"
     "The text is not split at all.", "split-pattern-str-not-regex"),
    ("tok = BertWordPieceTokenizer()\ntok.train('corpus.txt')\n"
     "print(tok.encode('café résumé').tokens)\n['cafe', 'resume']\n"
     "The accents are removed, the words are changed.", "tokenizer-strip-accents-default"),
])
def test_tokenizer_pitfalls_read_from_the_code_and_the_symptom(paste: str, cause: str) -> None:
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.cause_id == cause, t.cause_id
    assert t.primary.probes == ["script.run"]


@pytest.mark.parametrize("paste", [
    # the model has its unk_token: nothing is dropped for that reason
    _UNK.format(args='unk_token="[UNK]"', says="The Hebrew word is silently ignored. Why?"),
    # the code alone, with no symptom described
    _UNK.format(args="", says="Training takes 2 minutes on my laptop."),
    # a literal separator, and a regular expression wrapped in Regex
    'from tokenizers.pre_tokenizers import Split\ntok.pre_tokenizer = Split(" ", "removed")\n'
    "It does not split the way I want.",
    "from tokenizers import Regex\nfrom tokenizers.pre_tokenizers import Split\n"
    'tok.pre_tokenizer = Split(pattern=Regex(r"\\s+"), behavior="isolated")\nIt does not work.',
    # re.split in the user's own code is no tokenizers Split
    'import re\nparts = re.split(r"\\s+|,", line)\nThe tokenizers output is wrong.',
    # accents kept on purpose
    "tok = BertWordPieceTokenizer(strip_accents=False, lowercase=False)\n"
    "print(tok.encode('café').tokens)\nThe tokens changed.",
])
def test_tokenizer_pitfall_code_without_its_symptom_or_done_right(paste: str) -> None:
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.cause_id not in {"tokenizer-unk-token-not-set", "split-pattern-str-not-regex",
                              "tokenizer-strip-accents-default"}, t.cause_id


def test_a_failure_with_a_release_is_no_regression() -> None:
    failing = ("The docs say a str works. A `str` does not work, using tokenizers 0.19.1:\n"
               "ValueError: something odd\n")
    fixed_by_old = ("It works with tokenizers 0.13.3 and fails on 0.19.1:\n"
                    "ValueError: something odd\n")
    with pastes_from_elsewhere():
        assert triage(failing).bug is None
        assert triage(fixed_by_old).bug is not None


def test_names_and_arguments_the_released_wheels_date() -> None:
    collator = _tb(("/content/sft.py", 3, "<module>",
                    "from trl import SFTTrainer, DataCollatorForCompletionOnlyLM"),
                   error="ImportError: cannot import name 'DataCollatorForCompletionOnlyLM' from "
                         "'trl' (/usr/local/lib/python3.11/dist-packages/trl/__init__.py)")
    moved = _tb(("/content/sft.py", 30, "<module>",
                 "trainer = SFTTrainer(model, train_dataset=ds, packing=True)"),
                error="TypeError: __init__() got an unexpected keyword argument 'packing'")
    with pastes_from_elsewhere():
        t = triage(collator)
        assert t.cause_id == "env-version-too-new" and 'trl<0.20.0' in t.primary.fix
        t = triage(moved)      # the class is read from the call that passes the argument
        assert t.cause_id == "env-version-too-new", t.cause_id
        assert "SFTConfig(..., packing=...)" in t.primary.fix and "trl<0.13.0" in t.primary.fix


def test_arguments_no_release_has_asked_of_a_projects_authors() -> None:
    paste = ("Hi, could you tell me the version of trl you used? since i found it not mentioned "
             "in requirements.txt.\nAnd i met with the following errors:\n"
             "DPOTrainer.__init__() got an unexpected keyword argument 'gamma'\n")
    with pastes_from_elsewhere():
        t = triage(paste)
        assert t.cause_id == "requires-forked-package" and "pip uninstall trl" in t.primary.fix
        # the same error in the user's own script: an argument of no release
        own = paste.split("\n", 2)[2]
        assert triage(own).cause_id == "invalid-config-argument"


def test_a_package_found_only_as_a_folder() -> None:
    broken = "ImportError: cannot import name 'get_peft_config' from 'peft' (unknown location)"
    whole = ("ImportError: cannot import name 'get_peft_config' from 'peft' "
             "(/usr/local/lib/python3.10/dist-packages/peft/__init__.py)")
    with pastes_from_elsewhere():
        t = triage(broken)
        assert t.cause_id == "broken-package-install" and "pip uninstall -y peft" in t.primary.fix
        assert triage(whole).cause_id != "broken-package-install"


@pytest.mark.parametrize("paste, removed", [
    ("trl 0.13.0 has put `model_init_kwargs` and some other parameters into the SFTConfig and "
     "that causes errors. A fix for now is to use trl < 0.13.0", "0.13.0"),
    ("After upgrading to trl==0.12.1 my script fails:\n"
     "trainer = DPOTrainer(model, ref_model, tokenizer=tokenizer, args=args)", "0.12.0"),
])
def test_a_release_named_beside_an_argument_it_took_out(paste: str, removed: str) -> None:
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.cause_id == "env-version-too-new" and f"trl<{removed}" in t.primary.fix
    # the class the paste names (SFTConfig: SFTTrainer), and where the option went
    if "SFTConfig" in paste:
        assert "out of SFTTrainer" in t.primary.cause and "SFTConfig(" in t.primary.fix


def test_a_release_named_beside_arguments_it_kept_is_no_answer() -> None:
    # tokenizer= left the trl trainers in 0.12; with 0.11.4 it is still accepted
    paste = ("trl==0.11.4\ntrainer = DPOTrainer(model, ref_model, tokenizer=tokenizer, args=args)\n"
             "The loss is 0.693 and never moves.")
    with pastes_from_elsewhere():
        assert triage(paste).cause_id != "env-version-too-new"


def test_an_argument_no_release_of_a_library_function_takes() -> None:
    paste = ("TypeError: prepare_model_for_kbit_training() got an unexpected keyword argument "
             "'output_embedding_layer_name'")
    moved = ("TypeError: load_dataset() got an unexpected keyword argument 'use_auth_token'\n"
             "datasets version: 3.2.0")
    with pastes_from_elsewhere():
        t = triage(paste)
        assert t.cause_id == "invalid-config-argument"
        assert "prepare_model_for_kbit_training in any release" in t.primary.cause
        # an argument a release removed stays a version answer
        assert cause_of(triage(moved).cause_id) == "version-mismatch"


def test_a_library_beside_a_dependency_release_it_does_not_support() -> None:
    block = ("### System Info\n- `transformers` version: {t}\n- `trl` version: 0.12.1\n"
             "- `accelerate` version: {a}\n- Python version: 3.10.12\n\nTraining stops at the "
             "first step with a strange error in the trainer.\n")
    with pastes_from_elsewhere():
        # trl 0.12's wheel requires accelerate>=0.34.0 and transformers<4.47.0
        t = triage(block.format(t="4.46.3", a="0.30.1"))
        assert t.cause_id == "env-version-too-old", t.cause_id
        assert 'pip install "accelerate>=0.34.0"' in t.primary.fix
        assert "trl 0.12.1 requires accelerate" in t.primary.cause
        t = triage(block.format(t="4.48.0", a="1.2.0"))
        assert t.cause_id == "env-version-too-new" and 'transformers<4.47.0' in t.primary.fix
        # the finding's title keeps the releases whole (no cut at 0.12.1's first dot)
        f, = probe_triage(Case(model="m", traceback=block.format(t="4.46.3", a="0.30.1")), None)
        assert "trl 0.12.1 requires accelerate>=0.34.0" in f.title
        # the same block with releases that go together: no such answer
        assert cause_of(triage(block.format(t="4.46.3", a="1.2.0")).cause_id) != \
            "version-mismatch"


def test_the_matmul_dtype_wording_of_torch_mm() -> None:
    with pastes_from_elsewhere():
        t = triage("RuntimeError: self and mat2 must have the same dtype")
        assert t.cause_id == "mixed-dtypes" and "autocast" in t.primary.fix


def test_your_code_reading_an_attribute_no_release_of_the_class_had() -> None:
    def paste(cls: str, attr: str) -> str:
        return _tb(("/content/train.py", 12, "<module>", f"x = obj.{attr}"),
                   error=f"AttributeError: '{cls}' object has no attribute '{attr}'")
    with pastes_from_elsewhere():
        t = triage(paste("Trainer", "modell"))
        assert t.cause_id == "library-object-missing-attribute"
        assert "No release of Trainer has had it" in t.primary.cause
        # a class that forwards attributes (__getattr__) can say nothing of the kind
        t = triage(paste("BatchEncoding", "modell"))
        assert "No release" not in t.primary.cause


def test_bf16_refused_on_a_gpu_shown_older_than_ampere() -> None:
    paste = ("ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere "
             "GPU with cuda>=11.0\n")
    v100 = paste + "CudaDeviceProperties(name='Tesla V100-DGXS-32GB', major=7, minor=0)"
    t = triage(v100)
    assert t.cause_id == "bf16-unsupported-gpu" and "fp16=True" in t.primary.fix
    # no GPU shown: no CUDA at all is as likely, and that answer covers both
    assert triage(paste).cause_id == "precision-needs-cuda"
    assert triage(paste + "CudaDeviceProperties(name='NVIDIA A100', major=8, minor=0)"
                  ).cause_id == "precision-needs-cuda"


@pytest.mark.parametrize("paste, cause", [
    ("`KeyError: 'eval_loss'` when `load_best_model_at_end=True` with multiple eval datasets",
     "metric-for-best-model-not-found"),
    ("HfHubHTTPError: 403 Client Error: Forbidden for url: https://huggingface.co/api/models/"
     "some-org/donut-v1/commit/main\nForbidden: pass `create_pr=1` as a query parameter to "
     "create a Pull Request", "hub-write-refused"),
    ("TypeError: '<=' not supported between instances of 'LoraConfig' and 'int'",
     "wrong-argument-type"),
    ("ValueError: DistributedDataParallel device_ids and output_device arguments only work with "
     "single-device/multiple-device GPU modules or CPU modules, but got device_ids [0], "
     "output_device 0, and module parameters {device(type='cuda', index=0), "
     "device(type='cuda', index=1)}.", "device-map-auto-with-ddp"),
])
def test_more_signatures_in_their_real_wording(paste: str, cause: str) -> None:
    assert cause_of(triage(paste).cause_id) == cause_of(cause)


def test_right_padding_refused_by_flash_attention_in_training_or_generation() -> None:
    error = ("ValueError: You are attempting to perform batched generation with padding_side="
             "'right' this may lead to unexpected behaviour for Flash Attention version of Qwen2.")
    training = triage("trainer = GRPOTrainer(model=model, reward_funcs=[r], args=cfg)\n"
                      "trainer.train()\n" + error)
    assert training.cause_id == "use-cache-on-during-training"
    assert "use_cache = False" in training.primary.fix
    generating = triage("out = model.generate(**batch, max_new_tokens=20)\n" + error)
    assert generating.cause_id == "wrong-padding-side"
    assert "padding_side = 'left'" in generating.primary.fix
    # an unrelated config comparison is no config passed for a number
    assert triage("TypeError: '<' not supported between instances of 'str' and 'int'"
                  ).cause_id != "wrong-argument-type"


@pytest.mark.parametrize("paste, cause", [
    ("model = load_model(path)\nValueError: Unknown layer: TokenEmbedding",
     "keras-custom-objects-on-load"),
    ("outputs = keras.layers.Dense(units=2)(dense)\nAttributeError: 'tuple' object has no "
     "attribute 'layer'", "keras-and-tf-keras-mixed"),
    ("--> 181     match = re_bert.match(bert.weights[0].name)\nIndexError: list index out of range",
     "weights-loaded-before-build"),
    ("It runs on TensorFlow 2.15; on 2.16 I get an error stating that `KerasLayer` cannot be "
     "added to the Sequential model.", "keras-3-installed"),
    ("model = MultiLabelClassificationModel('bert', 'bert-base-uncased', num_labels=22)\n"
     "RuntimeError: shape '[-1, 22]' is invalid for input of size 2",
     "multilabel-labels-not-multi-hot"),
])
def test_keras_and_multi_label_wordings(paste: str, cause: str) -> None:
    assert triage(paste).cause_id == cause


def test_keras_and_multi_label_controls() -> None:
    # an IndexError on a line that reads no layer weights is not an unbuilt layer
    assert triage("--> 12     first = rows[0]\nIndexError: list index out of range"
                  ).cause_id != "weights-loaded-before-build"
    # a reshape outside a multi-label set-up, or with whole rows, is another fault
    assert triage("RuntimeError: shape '[-1, 22]' is invalid for input of size 2"
                  ).cause_id != "multilabel-labels-not-multi-hot"
    assert triage("MultiLabelClassificationModel\nRuntimeError: shape '[-1, 4]' is invalid for "
                  "input of size 8").cause_id != "multilabel-labels-not-multi-hot"
    # a layer of the user's own that Sequential refuses is not a Keras 2 layer
    assert triage("my AttentionBlock cannot be added to the Sequential model").cause_id != \
        "keras-3-installed"


def test_weights_only_in_the_other_framework() -> None:
    paste = ("OSError: tblard/tf-allocine does not appear to have a file named pytorch_model.bin "
             "but there is a file for TensorFlow weights. Use `from_tf=True` to load this model")
    t = triage(paste)
    assert t.cause_id == "no-pytorch-weights-on-hub" and "from_tf=True" in t.primary.fix
    # no weights of any framework: a folder without weights, not a conversion
    bare = triage("OSError: out/ does not appear to have a file named pytorch_model.bin")
    assert bare.cause_id == "model-dir-missing-weights"


def test_a_model_cast_to_fp16_and_trained_collapses_the_loss() -> None:
    paste = ("I was getting a CUDA out of memory issue, so I made the following change:\n"
             "model = AutoModelForCausalLM.from_pretrained(path)\nmodel = model.half()\n"
             "It now fits on my gpu, but the training loss becomes 0 after a single batch, and "
             "the evaluation loss is nan.")
    t = triage(paste)
    assert t.cause_id == "pure-fp16-training" and "bf16=True" in t.primary.fix
    # the same symptom without the cast is a NaN loss of another origin
    assert triage(paste.replace("model = model.half()\n", "")).cause_id == "nan-loss"
    # LoRA on a half-precision base trains fp32 adapters: not pure fp16 training
    lora = paste.replace("model = model.half()\n", "model = model.half()\nmodel = "
                         "get_peft_model(model, LoraConfig(r=8))\n")
    assert triage(lora).cause_id == "nan-loss"
    # an out-of-memory error actually raised is still the answer
    assert triage(paste + "\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate "
                  "2.00 GiB").cause_id == "out-of-memory"


def test_a_nan_loss_in_the_reporters_words() -> None:
    assert triage("All settings are standard, eval loss keeps coming back as `nan`. Why might "
                  "this be?").cause_id == "nan-loss"
    assert triage("The loss keeps going down nicely.").cause_id != "nan-loss"


def test_resuming_from_a_checkpoint_the_trainer_cannot_load() -> None:
    adapter = triage("ValueError: Can't find a valid checkpoint at checkpoint-8000\n"
                     "The folder holds adapter_config.json adapter_model.bin optimizer.pt "
                     "scheduler.pt trainer_state.json")
    assert adapter.cause_id == "adapter-checkpoint-not-resumable"
    assert "is_trainable=True" in adapter.primary.fix
    # no adapter in sight: the path is the question
    plain = triage("ValueError: Can't find a valid checkpoint at out/checkpoint-500")
    assert plain.cause_id == "checkpoint-not-found"


@pytest.mark.parametrize("paste, cause", [
    ("AssertionError: EarlyStoppingCallback requires load_best_model_at_end = True",
     "early-stopping-needs-load-best-model"),
    ("ValueError: Input length of input_ids is 1024, but max_length is set to 1024. This can "
     "lead to unexpected behavior.", "generate-max-length-too-short"),
    ('  File "data_processer.py", line 27, in process\n    input_ids = np.pad(input_ids, (0, n), '
     "'constant', constant_values=(pad_val, pad_val))\nTypeError: int() argument must be a "
     "string, a bytes-like object or a number, not 'NoneType'", "no-pad-token"),
])
def test_trainer_generation_and_padding_wordings(paste: str, cause: str) -> None:
    assert triage(paste).cause_id == cause


def test_the_legacy_tokenizer_warning_is_no_error() -> None:
    warning = ("You are using the legacy behaviour of the <class 'transformers.models.llama."
               "tokenization_llama.LlamaTokenizer'>. This means that tokens that come after "
               "special tokens will not be properly handled.")
    t = triage("When running a full finetune, I get this: `" + warning + "` Is this an issue?")
    assert t.cause_id == "tokenizer-legacy-warning" and t.primary.signature.benign
    # beside a real error, the error is the answer
    assert triage(warning + "\nRuntimeError: CUDA out of memory.").cause_id == "out-of-memory"
    # None in arithmetic of the user's own: no tokenizer in sight
    assert triage("x = a + b\nTypeError: unsupported operand type(s) for +: 'NoneType' and "
                  "'int'").cause_id != "no-pad-token"


def test_two_gpus_in_one_process_started_without_a_launcher() -> None:
    error = ("RuntimeError: Expected all tensors to be on the same device, but found at least two "
             "devices, cuda:0 and cuda:1!")
    plain = triage("I set CUDA_VISIBLE_DEVICES=0,1,2,3 and ran ./train.sh\n" + error)
    assert plain.cause_id == "multi-gpu-without-distributed-launcher"
    assert "torchrun --nproc_per_node" in plain.primary.fix
    # the machine's GPUs told as a count: "2x T4 GPUs", "4个32G的GPU显卡" (four 32 GB GPUs)
    for told in ("Kaggle notebook with 2x T4 GPUs.", "我的服务器有4个32G的GPU显卡，lora时报错如下："):
        assert triage(told + "\n" + error).cause_id == "multi-gpu-without-distributed-launcher"
    assert triage("My server has 1 GPU.\n" + error).cause_id == "devices-differ"
    # launched per GPU, or a model placed with device_map: another cause
    assert triage("CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node 2 train.py\n" + error
                  ).cause_id == "devices-differ"
    # one GPU and the CPU: the batch was not moved
    assert triage("CUDA_VISIBLE_DEVICES=0,1\nRuntimeError: Expected all tensors to be on the same "
                  "device, but found at least two devices, cuda:0 and cpu!").cause_id == \
        "devices-differ"


def test_an_inplace_write_in_library_code_the_reporter_points_at() -> None:
    error = ("RuntimeError: a leaf Variable that requires grad is being used in an in-place "
             "operation.")
    blamed = triage(error + "\nThe error occurs in `modeling_voxtral.py` at line 512 in the "
                    "`forward` method:\n    inputs_embeds[mask] = audio_embeds  # <-- This line "
                    "causes the error")
    assert blamed.cause_id == "library-bug"
    assert triage(error).cause_id == "inplace-operation-breaks-autograd"
    # the user's own frame shown: their code
    own = triage('  File "train.py", line 30, in <module>\n    x += y\n' + error + "\nThe error "
                 "occurs in `modeling_voxtral.py` at line 512, this line causes the error")
    assert own.cause_id == "inplace-operation-breaks-autograd"


def test_an_adapter_loaded_frozen_explains_a_regression_statement() -> None:
    paste = ("orig = LlamaForCausalLM.from_pretrained('base', load_in_8bit=True)\n"
             "out = PeftModel.from_pretrained(orig, 'tloen/alpaca-lora-7b')\n"
             "print(out.print_trainable_parameters())\n"
             "# trainable params: 0 || all params: 6755201024 || trainable%: 0.0\n"
             "This issue was not there a few days ago so I'm guessing a recent commit broke it!")
    t = triage(paste)
    assert t.cause_id == "peft-adapter-loaded-frozen" and "is_trainable=True" in t.primary.fix
    # loaded for training already: something else
    trainable = paste.replace("'tloen/alpaca-lora-7b')", "'tloen/alpaca-lora-7b', "
                              "is_trainable=True)")
    assert triage(trainable).cause_id != "peft-adapter-loaded-frozen"
    # a described fix of library code still makes it a library bug
    fixed = paste + "\nFixes #123: from_pretrained ignored is_trainable"
    assert triage(fixed).cause_id == "library-bug"


@pytest.mark.parametrize("paste, cause", [
    ("ValueError: Please correct the following DeepSpeed config values that mismatch "
     "TrainingArguments values:\n- ds bf16.enabled=True vs hf bf16|bf16_full_eval=False",
     "deepspeed-config-mismatch-training-args"),
    ("ValueError: Cannot merge LORA layers when the model is gptq quantized",
     "merge-into-quantized-unsupported"),
    ("predictions = model.predict(validation_input_ids)\nprint(predictions.shape)\n"
     "AttributeError: 'list' object has no attribute 'shape'", "model-output-misread"),
    ("huggingface_hub.utils._errors.HfHubHTTPError: 500 Server Error: Internal Server Error for "
     "url: https://huggingface.co/api/datasets/ylacombe/jenny-tts-6h-tagged", "hub-unreachable"),
    ("RuntimeError: The size of tensor a (32000) must match the size of tensor b (32002) at "
     "non-singleton dimension 0", "vocab-size-mismatch"),
])
def test_deepspeed_merge_and_predict_wordings(paste: str, cause: str) -> None:
    assert triage(paste).cause_id == cause


def test_sizes_that_are_no_vocabulary_and_its_added_tokens() -> None:
    for a, b in ((512, 514), (32000, 64000)):
        assert triage(f"RuntimeError: The size of tensor a ({a}) must match the size of tensor b "
                      f"({b}) at non-singleton dimension 0").cause_id != "vocab-size-mismatch"


def test_a_server_error_of_another_host_is_not_the_hub_down() -> None:
    assert triage("requests.exceptions.HTTPError: 500 Server Error: Internal Server Error for url: "
                  "https://api.wandb.ai/graphql").cause_id != "hub-unreachable"


def test_a_list_without_predict_is_not_a_keras_output() -> None:
    assert triage("rows = df.values.tolist()\nAttributeError: 'list' object has no attribute "
                  "'shape'").cause_id != "model-output-misread"


def test_a_schedule_type_lacking_its_own_arguments_goes_through_lr_scheduler_kwargs() -> None:
    trainer = _tb(("/content/train.py", 40, "<module>", "trainer.train()"),
                  (f"{LIB}/transformers/optimization.py", 520, "get_scheduler",
                   "return schedule_func(optimizer, num_warmup_steps=num_warmup_steps, "
                   "num_training_steps=num_training_steps, **scheduler_specific_kwargs)"),
                  error="TypeError: get_wsd_schedule() missing 2 required positional arguments: "
                        "'num_stable_steps' and 'num_decay_steps'")
    with pastes_from_elsewhere():
        t = triage(trainer)
        assert t.cause_id == "scheduler-required-kwargs-missing"
        assert "lr_scheduler_kwargs=" in t.primary.fix
        # control: your own call lacking what every schedule takes is not a schedule's own
        own = triage("TypeError: get_linear_schedule_with_warmup() missing 1 required positional "
                     "argument: 'num_training_steps'")
    assert own.cause_id != "scheduler-required-kwargs-missing"


def test_a_base_model_without_a_chat_template_explains_the_regression_it_was_taken_for() -> None:
    said = ("PR #8 introduced the wrapper which switches from generate() to chat(). Base models "
            "don't define a chat template. Since `transformers >= v4.44` no longer provides a "
            "default chat template, calling chat() on these models raises a `ValueError`.")
    with pastes_from_elsewhere():
        t = triage(said)
        assert t.cause_id == "chat-template-not-set" and t.verdict == "known-error"
        # transformers 4.43's own warning says the same
        warned = triage("As of transformers v4.44, default chat template is no longer allowed, "
                        "so you must provide a chat template if the tokenizer does not define one.")
        assert warned.cause_id == "chat-template-not-set"
        # control: the regression alone, without the chat template, stays a possible bug
        assert triage(said.split(". Base models")[0] + " and it crashes now.").verdict == \
            "possible-library-bug"


def test_comet_imported_after_the_framework_it_patches() -> None:
    with pastes_from_elsewhere():
        t = triage("ImportError: You must import Comet before these modules: torch, tensorboard")
    assert t.cause_id == "tracker-imported-after-framework"
    assert t.primary.fix.startswith("import comet_ml")


def test_a_column_listed_yet_not_found_has_invisible_characters_in_its_name() -> None:
    autotrain = ("ERROR   Columns 'sentence' could not be found in the provided file (which has "
                 "columns: 'sentence','label')")
    spaced = ("ValueError: Column to remove ['text'] not in the dataset. Current columns in the "
              "dataset: ['text ', 'label']")
    other = spaced.replace("'text ', ", "'sentence', ")
    with pastes_from_elsewhere():
        for paste in (autotrain, spaced):
            t = triage(paste)
            assert t.cause_id == "column-name-whitespace" and "utf-8-sig" in t.primary.fix
        # control: a name the dataset does not have at all
        assert triage(other).cause_id == "column-not-in-dataset"


def test_a_gradio_endpoint_the_app_does_not_expose() -> None:
    with pastes_from_elsewhere():
        t = triage('response2: {"error":"This app has no endpoint /api/predict/."}')
    assert t.cause_id == "gradio-endpoint-not-named" and "view_api()" in t.primary.fix


def test_the_ffmpeg_program_an_audio_pipeline_runs_is_a_missing_package() -> None:
    with pastes_from_elsewhere():
        t = triage("pipe = pipeline('automatic-speech-recognition', model=m)\npipe('talk.mp3')\n"
                   "ValueError: ffmpeg was not found but is required to load audio files from "
                   "filename")
    assert t.primary.signature.id == "ffmpeg-binary-missing"
    assert t.cause_id == "env-missing-package" and "apt-get install -y ffmpeg" in t.primary.fix
    # control: a Python package the message names is not the program
    with pastes_from_elsewhere():
        other = triage("ImportError: soundfile was not found but is required to load audio")
    assert other.primary is None or other.primary.signature.id != "ffmpeg-binary-missing"


def test_the_launchers_local_rank_refused_by_hfargumentparser() -> None:
    with pastes_from_elsewhere():
        t = triage("python -m torch.distributed.launch --nproc_per_node=1 train.py --bf16\n"
                   "ValueError: Some specified arguments are not used by the HfArgumentParser: "
                   "['--local-rank=0']")
    assert t.cause_id == "local-rank-argument" and "torchrun" in t.primary.fix
    # control: a misspelt flag of the user's is not the launcher's
    with pastes_from_elsewhere():
        other = triage("ValueError: Some specified arguments are not used by the "
                       "HfArgumentParser: ['--learning-rate', '3e-5']")
    assert other.cause_id == "hf-argparser-unused-args"


def test_a_token_read_with_its_line_break_is_refused_as_a_header() -> None:
    for message in ("ValueError: Invalid header value b'Bearer hf_XpZeFKCOhqmEjRJk\\n'",
                    "requests.exceptions.InvalidHeader: Invalid leading whitespace, reserved "
                    "character(s), or return character(s) in header value: 'Bearer hf_abc\\n'"):
        with pastes_from_elsewhere():
            t = triage(message)
        assert t.cause_id == "token-has-trailing-newline" and ".strip()" in t.primary.fix
    # control: the same header without a line break is not this cause
    with pastes_from_elsewhere():
        clean = triage("ValueError: Invalid header value b'Bearer hf_XpZeFKCOhqmEjRJk'")
    assert clean.cause_id != "token-has-trailing-newline"


def test_trainingarguments_on_an_accelerate_that_passes_backend_twice() -> None:
    paste = ('  File "/env/site-packages/transformers/training_args.py", line 1550, in '
             "_setup_devices\n    self.distributed_state = PartialState(backend=self.xpu_backend)\n"
             "TypeError: torch.distributed.distributed_c10d.init_process_group() got multiple "
             "values for keyword argument 'backend'")
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.primary.signature.id == "env-accelerate-backend-twice"
    assert t.cause_id == "env-version-mismatch" and "accelerate>=0.19.0" in t.primary.fix
    # control: another argument given twice is not this mismatch
    with pastes_from_elsewhere():
        other = triage(paste.replace("'backend'", "'rank'"))
    assert other.primary is None or other.primary.signature.id != "env-accelerate-backend-twice"


def test_an_empty_dataset_in_other_words() -> None:
    for message in ("RuntimeError: Empty dataset!",
                    "datasets.arrow_writer.SchemaInferenceError: Please pass features or at least "
                    "one example when writing data"):
        with pastes_from_elsewhere():
            assert triage(message).cause_id == "empty-dataset", message
    with pastes_from_elsewhere():   # control: "empty" about something else
        assert triage("ValueError: Empty module name").cause_id != "empty-dataset"
