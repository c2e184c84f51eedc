"""Environment rules read from what a release says about itself (wizard/triage/env_releases.py):
each with the paste it answers and a control it must leave alone."""
from __future__ import annotations

from wizard.triage.match import triage
from wizard.triage.versions import pastes_from_elsewhere

_SCRIPT = ("FileNotFoundError: Couldn't find file locally at wiki_movies/wiki_movies.py, or "
           "remotely at https://raw.githubusercontent.com/huggingface/datasets/{ref}/datasets/"
           "wiki_movies/wiki_movies.py")


def test_a_dataset_script_looked_up_under_the_installed_release() -> None:
    with pastes_from_elsewhere():
        t = triage(_SCRIPT.format(ref="1.1.2"))
        assert t.cause_id == "env-version-too-old"
        assert "datasets 1.1.2" in t.primary.cause and "pip install -U" in t.primary.fix
        # looked up on master: the script is nowhere, so the release is not the cause
        assert triage(_SCRIPT.format(ref="master")).cause_id != "env-version-too-old"


def test_an_example_script_of_main_against_an_older_release() -> None:
    run = ("!python3 ./ner/run_tf_ner.py --data_dir /data --model_type bert "
           "--model_name_or_path bert-base-multilingual-cased\n")
    with pastes_from_elsewhere():
        t = triage(run + "i encounter the ImportError. Any suggestions?")
        assert t.cause_id == "env-version-too-old"
        assert "git+https://github.com/huggingface/transformers" in t.primary.fix
        # the same script failing otherwise is not a release question
        other = triage(run + "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB")
        assert other.cause_id != "env-version-too-old"
        # a named import is answered from the library's history (the more precise rule)
        named = triage(run + "ImportError: cannot import name 'AutoModelForCausalLM' from "
                       "'transformers'")
        assert named.primary.signature.id != "env-example-script-release"


def test_a_library_that_does_not_support_it_yet() -> None:
    quoted = ("With transformers 4.26.1 I am getting an error at trainer.py, line 362\n"
              "    if getattr(model, 'is_loaded_in_8bit', False):\n        raise ValueError(\n"
              "            'The model you want to train is loaded in 8-bit precision. '\n"
              "            'Training an 8-bit model is not supported yet. '\n")
    with pastes_from_elsewhere():
        t = triage(quoted)
        assert t.cause_id == "env-version-too-old"
        assert "transformers 4.26.1" in t.primary.cause and "(Training an 8-bit model)" in \
            t.primary.cause and "github.com/huggingface/transformers" in t.primary.fix
        # a release that used to do it: a regression, not a feature still to come
        assert triage(quoted + "It worked with transformers 4.25.1.").cause_id != \
            "env-version-too-old"
        # no library in sight: whose release would it be?
        assert triage("Exporting this shape is not supported yet.").cause_id != \
            "env-version-too-old"


def test_a_library_constructor_that_now_requires_an_argument() -> None:
    paste = ('  File "train_dreambooth.py", line 692, in main\n    unet = LoraModel(config, unet)\n'
             "TypeError: LoraModel.__init__() missing 1 required positional argument: "
             "'adapter_name'")
    with pastes_from_elsewhere():
        t = triage(paste)
        assert t.cause_id == "env-version-too-new" and "peft" in t.primary.fix
        # a class of the user's own (defined in the paste) is their signature, not a release's
        own = "class LoraModel(nn.Module):\n    def __init__(self, model, config, adapter_name):\n"
        assert triage(own + paste).cause_id != "env-version-too-new"
        mine = paste.replace("LoraModel", "SentimentModel")
        assert triage("class SentimentModel(nn.Module):\n    pass\n" + mine).cause_id != \
            "env-version-too-new"


def test_a_keyword_the_libraries_gained_passed_to_an_unnamed_class() -> None:
    paste = ("TypeError: __init__() got an unexpected keyword argument 'token'\n"
             "I updated the fine-tuning project to its latest version.")
    with pastes_from_elsewhere():
        t = triage(paste)
        assert t.cause_id == "env-version-too-old"
        # the releases that gained it, read from the released wheels
        assert "datasets 2.14" in t.primary.cause and "pip install -U" in t.primary.fix
        # a class of the paste's own without the keyword: its code, not a release
        own = triage("class Loader:\n    def __init__(self, path):\n        self.path = path\n"
                     "Loader('x', token='hf_x')\n" + paste)
        assert own.cause_id != "env-version-too-old"
        # a keyword no library gained (a project's own) tells nothing about a release
        assert triage(paste.replace("'token'", "'data_path'")).cause_id != "env-version-too-old"
        # a class the message names is answered for that class's own library
        named = triage("TypeError: SentenceTransformer.__init__() got an unexpected keyword "
                       "argument 'trust_remote_code'")
        assert named.cause_id == "env-version-too-old"
        assert named.primary.fix == 'pip install -U "sentence-transformers"'


def test_flash_attention_2_names_under_flash_attn_1() -> None:
    with pastes_from_elsewhere():
        t = triage('  File "/x/site-packages/openchat/llama_attn.py", line 12, in forward\n'
                   "    out = flash_attn_varlen_func(q, k, v, cu, cu, n, n)\n"
                   "NameError: name 'flash_attn_varlen_func' is not defined")
        assert t.cause_id == "env-version-too-old"
        assert 'flash-attn>=2.0.0" --no-build-isolation' in t.primary.fix
        old = triage("ImportError: cannot import name 'flash_attn_unpadded_func' from "
                     "'flash_attn.flash_attn_interface'")
        assert old.cause_id == "env-version-too-new" and "flash_attn_varlen_func" in old.primary.fix
        # a lowercase name of the user's own left undefined is no release question
        assert triage("NameError: name 'tokenized_ds' is not defined").cause_id == "unknown"


def test_pins_that_cannot_be_installed_together() -> None:
    paste = ("ERROR: Cannot install -r requirements.txt (line 36) and tokenizers==0.10.3 because "
             "these package versions have conflicting dependencies.\n\nThe conflict is caused by:\n"
             "    The user requested tokenizers==0.10.3\n"
             "    transformers 4.32.0 depends on tokenizers!=0.11.3, <0.14 and >=0.11.1\n")
    t = triage(paste)
    assert t.cause_id == "requirements-pins-conflict"
    assert 'pip install "tokenizers!=0.11.3,<0.14,>=0.11.1"' in t.primary.fix


def test_a_compiled_extension_built_for_another_torch_and_a_missing_cuda_toolkit() -> None:
    with pastes_from_elsewhere():
        x = triage("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built "
                   "for:\n    PyTorch 2.5.1+cu124 with CUDA 1204 (you have 2.6.0+cu124)\n")
        assert x.cause_id == "env-binary-incompatible" and "torch==2.5.1" in x.primary.fix
        cuda = triage("AssertionError: CUDA_HOME does not exist, unable to compile CUDA op(s)")
        assert cuda.cause_id == "env-setup-step-skipped" and "nvcc" in cuda.primary.cause


def test_bitsandbytes_unusable_on_a_mac_or_missing() -> None:
    error = ("ImportError: Using `load_in_8bit=True` requires Accelerate: `pip install accelerate` "
             "and the latest version of bitsandbytes `pip install bitsandbytes`")
    with pastes_from_elsewhere():
        mac = triage('  File "/Users/b/study/captionit3.py", line 14, in <module>\n' + error)
        assert mac.cause_id == "bnb-requires-cuda-gpu"
        linux = triage('  File "/home/b/captionit3.py", line 14, in <module>\n' + error)
        assert linux.cause_id == "env-missing-package"


def test_an_optional_name_left_undefined_by_a_missing_package_or_by_a_library() -> None:
    error = ('  File "/usr/local/lib/python3.10/dist-packages/trl/trainer/utils.py", line 718, in '
             "get_peft_config\n    peft_config = LoraConfig(\nNameError: name 'LoraConfig' is "
             "not defined")
    with pastes_from_elsewhere():
        used = triage('  File "sft.py", line 112, in <module>\n    peft_config=get_peft_config('
                      "model_config),\n" + error)
        assert used.cause_id == "env-missing-package" and "pip install peft" in used.primary.fix
        # the reporter does not use PEFT: the library referenced it unguarded
        unused = triage("trainer = SFTTrainer('facebook/opt-350m', train_dataset=ds)\n"
                        "NameError: name 'PeftModel' is not defined\nIf I downgrade to 0.4.0 "
                        "the issue is no longer there.")
        assert unused.cause_id == "library-bug"


def test_warnings_that_report_a_skipped_optional_import() -> None:
    t = triage("A matching Triton is not available, some optimizations will not be enabled.\n"
               "Error caught was: No module named 'triton'\nthe lora training keeps going ok")
    assert t.cause_id == "triton-missing-warning-harmless" and t.primary.signature.benign
    # the import failing outright is a missing package
    assert triage("ModuleNotFoundError: No module named 'triton'").cause_id == \
        "env-missing-package"
