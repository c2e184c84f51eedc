"""What a paste states about releases, checked against the tables read from the released wheels
(wizard/triage/env_stated.py): each statement answers only where the table agrees, with a
control where it does not."""
from __future__ import annotations

from wizard.triage.match import triage
from wizard.triage.versions import pastes_from_elsewhere

_PEFT_IMPORT = (
    'File "/home/u/envs/x/lib/python3.10/site-packages/peft/peft_model.py", line 37, in <module>\n'
    "    from transformers import Cache, DynamicCache, EncoderDecoderCache, PreTrainedModel\n"
    "My environment:\ntokenizers                0.15.2\ntorch                     2.1.2\n"
    "transformers              {version}\n")


def _answer(text: str) -> tuple[str | None, str | None, str]:
    with pastes_from_elsewhere():
        m = triage(text).primary
    return (m.signature.id, m.cause_id, m.fix) if m else (None, None, "")


def test_a_name_the_reporter_says_was_removed_is_a_release_too_new() -> None:
    sig, cause, fix = _answer(
        "`HybridCache` has been deprecated, and is now removed in transformers, causing\n"
        "  .venv/lib/python3.12/site-packages/liger_kernel/transformers/monkey_patch.py:21")
    assert (sig, cause) == ("env-name-said-removed", "env-version-too-new")
    assert 'pip install "transformers<5.0.0"' in fix
    # a module-level helper, found in the module that defined it
    sig, _, fix = _answer("Pin transformers because 5.0 introduced breaking changes for pruning "
                          "heads (`find_pruneable_heads_and_indices` is removed).")
    assert sig == "env-name-said-removed" and "transformers<5.0.0" in fix


def test_deprecated_counts_once_a_release_removed_it() -> None:
    sig, cause, fix = _answer("In recent versions of `transformers`, `AdamW` has been deprecated "
                              "and should now be imported from `torch.optim`.")
    assert (sig, cause) == ("env-name-said-removed", "env-version-too-new")
    assert 'pip install "transformers<4.50.0"' in fix
    # a warning about a future removal is not one
    assert _answer("FutureWarning: `AdamW` is deprecated and will be removed in a future version "
                   "of transformers")[0] != "env-name-said-removed"
    # nor in a release the paste lists that still has it
    assert _answer("transformers==4.30.0\n`AdamW` has been deprecated, what do I use?"
                   )[0] != "env-name-said-removed"


def test_a_removal_the_tables_do_not_show_is_not_taken_on_trust() -> None:
    # every release of transformers has AutoModel: the statement is wrong or about another thing
    assert _answer("`AutoModel` was removed from transformers?")[0] != "env-name-said-removed"
    # a name of no library the tables hold
    assert _answer("`frobnicate_all` was removed in transformers")[0] != "env-name-said-removed"


def test_a_model_type_a_stated_release_does_not_support() -> None:
    sig, cause, fix = _answer("Transformer 4.34.1 do not support 'gemma2' architecture\n"
                              "Please upgrade the docker image.")
    assert (sig, cause) == ("env-model-type-said-unsupported", "env-version-too-old")
    assert fix == 'pip install -U "transformers>=4.42.0"'
    # a release that has the model: the statement is about something else
    assert _answer("transformers 4.45.0 does not support 'gemma2' here"
                   )[0] != "env-model-type-said-unsupported"


def test_a_traceback_cut_at_an_import_beside_the_listed_release() -> None:
    sig, cause, fix = _answer(_PEFT_IMPORT.format(version="4.39.3"))
    assert (sig, cause) == ("env-import-cut", "env-version-too-old")
    assert fix == 'pip install -U "transformers>=4.43.0"'
    # the listed release has every imported name: not this
    assert _answer(_PEFT_IMPORT.format(version="4.45.0"))[0] != "env-import-cut"
    # an exception printed after the import is the error to read
    raised = _PEFT_IMPORT.format(version="4.39.3") + "RuntimeError: CUDA error: out of memory"
    assert _answer(raised)[0] != "env-import-cut"


def test_an_image_processors_size_dict_given_to_torchvision() -> None:
    sig, cause, fix = _answer("Resize(feature_extractor.size)\nTypeError: Size should be int or "
                              "sequence. Got <class 'dict'>")
    assert (sig, cause) == ("env-image-processor-size-dict", "env-version-too-new")
    assert '"shortest_edge"' in fix
    assert _answer("TypeError: Size should be int or sequence. Got <class 'float'>"
                   )[0] != "env-image-processor-size-dict"


def test_bf16_wordings_of_the_compiler_only() -> None:
    assert _answer("ptxas /tmp/x, line 10; error   : Feature '.e4m3' requires .target sm_89 or "
                   "higher")[1] != "bf16-unsupported-gpu"


_AUTO = ("ValueError: Unrecognized configuration class <class '{config}'> for this kind of "
         "AutoModel: {auto}.\nModel type should be one of BertConfig, DistilBertConfig.{tail}")


def test_an_auto_class_refusing_a_model_a_release_has_a_task_class_for_is_a_release_too_old(
) -> None:
    electra = "transformers.configuration_electra.ElectraConfig"
    sig, cause, fix = _answer(_AUTO.format(config=electra,
                                           auto="AutoModelForSequenceClassification", tail=""))
    assert (sig, cause) == ("wrong-auto-class", "env-version-too-old")
    assert fix.startswith('pip install -U "transformers')
    qwen = "transformers.models.qwen2_vl.configuration_qwen2_vl.Qwen2VLConfig"
    _, cause, fix = _answer(_AUTO.format(config=qwen, auto="AutoModelForVision2Seq",
                                         tail="\ntransformers version: 4.40.0"))
    assert cause == "env-version-too-old" and 'transformers>=4.45.0' in fix
    # controls: no release has T5ForCausalLM (the Auto class does not fit), and a stated
    # release that has Qwen2VLForConditionalGeneration is not too old
    t5 = "transformers.models.t5.configuration_t5.T5Config"
    assert _answer(_AUTO.format(config=t5, auto="AutoModelForCausalLM", tail=""))[1] == \
        "wrong-auto-class"
    assert _answer(_AUTO.format(config=qwen, auto="AutoModelForVision2Seq",
                                tail="\ntransformers version: 4.46.1"))[1] == "wrong-auto-class"


def test_the_removed_hub_cli_answers_with_its_replacement() -> None:
    for paste in ("$ huggingface-cli login\nbash: huggingface-cli: command not found",
                  "'huggingface-cli' is not recognized as an internal or external command,\n"
                  "operable program or batch file.",
                  "`huggingface-cli` was deprecated in favor of `hf` and is no longer callable."):
        sig, cause, fix = _answer(paste)
        assert (sig, cause) == ("env-hub-cli-removed", "env-version-too-new")
        assert fix.startswith("hf auth login")
    # control: the Hub's own advice to log in with it is no such statement
    sig, _, fix = _answer("OSError: You are trying to access a gated repo.\nMake sure to have "
                          "access to it at https://huggingface.co/meta-llama/Llama-2-7b-hf.\n"
                          "401 Client Error. Please log in with `huggingface-cli login`.")
    assert sig != "env-hub-cli-removed" and "hf auth login" in fix


def test_a_datasets_column_where_code_expects_a_list_is_datasets_4() -> None:
    for error in ("TypeError: stack(): argument 'tensors' (position 1) must be tuple of Tensors, "
                  "not Column",
                  "AttributeError: 'Column' object has no attribute 'sort'"):
        sig, cause, fix = _answer("ds = load_dataset('lerobot/pusht', split='train')\n"
                                  "torch.stack(ds['timestamp'])\n" + error)
        assert (sig, cause) == ("env-datasets-column-object", "env-version-too-new")
        assert 'datasets<4.0.0' in fix and "list(ds" in fix
    # control: pyspark's Column is another class
    assert _answer("df.select(F.col('a'))\nTypeError: 'Column' object is not callable")[0] != \
        "env-datasets-column-object"


def test_a_torchcodec_decoder_read_as_the_old_audio_dict_is_datasets_4() -> None:
    sig, cause, fix = _answer('    audio = batch["audio"]["array"]\n'
                              "TypeError: 'AudioDecoder' object is not subscriptable")
    assert (sig, cause) == ("env-datasets-lazy-decoder", "env-version-too-new")
    assert "get_all_samples()" in fix and "datasets<4.0.0" in fix
    # control: a dict of another library is no decoder
    assert _answer("TypeError: 'NoneType' object is not subscriptable")[0] != \
        "env-datasets-lazy-decoder"


_FLAG = ("With transformers-{v} I get the following error:\n\n> ImportError: cannot import name "
         "'is_torch_greater_or_equal_than_1_13' from 'transformers.pytorch_utils' "
         "(/home/u/.conda/envs/x/lib/python3.10/site-packages/transformers/pytorch_utils.py)\n")


def test_a_name_the_stated_release_has_is_not_a_release_too_old() -> None:
    # the table has the flag from 4.36 on: 4.48.1 is not "too old", and an older release that
    # worked makes it a regression
    assert _answer(_FLAG.format(v="4.48.1"))[1] != "env-version-too-old"
    with pastes_from_elsewhere():
        result = triage(_FLAG.format(v="4.48.1") + "\ntransformers-4.47.0 worked for me.")
    assert result.verdict == "possible-library-bug"
    # controls: a release before the name came, and a release named as the one that brought it
    assert _answer(_FLAG.format(v="4.30.0"))[1] == "env-version-too-old"
    assert _answer(_FLAG.format(v="4.30.0").replace("With transformers-4.30.0 I get", "I get")
                   + "\nThe flag was introduced in transformers 4.36.0")[1] == "env-version-too-old"
