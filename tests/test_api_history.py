"""The API-history table: facts checked by hand against the released wheels' sources."""

from __future__ import annotations

import json

import pytest

from wizard.triage import api_history as ah
from wizard.triage.packages import parse_version


def test_table_is_compact_and_every_span_is_within_its_releases():
    ah._data.cache_clear()
    data = ah._data()
    assert ah._DATA.stat().st_size < 3_000_000   # read once per process (~0.1 s here)
    rels = data["releases"]
    assert set(rels) == {"transformers", "peft", "trl", "datasets", "accelerate", "huggingface_hub",
                         "sentence_transformers", "evaluate", "diffusers", "tokenizers"}
    for pkg, versions in rels.items():
        keys = [parse_version(v) for v in versions]
        assert keys == sorted(keys) and len(set(keys)) == len(keys), pkg

    def check(pkg: str, pair: list[int]) -> None:
        assert 0 <= pair[0] <= pair[1] < len(rels[pkg]), (pkg, pair)

    for section in ("top", "modules"):
        for pkg, table in data[section].items():
            for pair in table.values():
                check(pkg, pair)
    for key, table in data["kwargs"].items():
        pkg = key.split(".")[0]
        check(pkg, data["callables"][key])
        for pair in table.values():
            check(pkg, pair)
    for key, runs in data["varkw"].items():
        for pair in runs:
            check(key.split(".")[0], pair)
    for section in ("top_gaps", "module_gaps"):
        for pkg, table in data[section].items():
            for name, runs in table.items():
                first, last = data[section.replace("_gaps", "s").replace("tops", "top")][pkg][name]
                assert all(first < a <= b < last for a, b in runs), (pkg, name)
    for key, table in data["kwarg_gaps"].items():
        for arg, runs in table.items():
            first, last = data["kwargs"][key][arg]
            assert all(first < a <= b < last for a, b in runs), (key, arg)
    for key, base in data["bases"].items():
        assert key in data["kwargs"] and base in data["kwargs"]
    # compact and with sorted keys, so rebuilds diff cleanly
    text = ah._DATA.read_text()
    assert text.strip() == json.dumps(data, sort_keys=True, separators=(",", ":"))


def test_package_spellings_and_versions():
    assert ah.releases("huggingface-hub") == ah.releases("huggingface_hub") != []
    assert ah.releases("transformers")[0] == "3.0.2"
    assert "4.41.2" in ah.releases("transformers")
    assert ah.releases("no-such-package") == []
    assert parse_version("4.41.0") < parse_version("4.100.0")
    assert parse_version("v0.9.0rc1") == (0, 9, 0)
    assert ah.top_name("huggingface-hub", "hf_hub_download").package == "huggingface-hub"


def test_removed_top_level_names():
    # peft/__init__.py of 0.9.0 imports it; 0.10.0's does not
    span = ah.top_name("peft", "prepare_model_for_int8_training")
    assert span.last == "0.9.0" and span.removed == "0.10.0"
    # transformers/__init__.py lists "AdamW" in 4.49.0, not in 4.50.x
    span = ah.top_name("transformers", "AdamW")
    assert (span.first, span.last) == ("3.0.2", "4.49.0")
    assert span.removed.startswith("4.50.")


def test_added_top_level_names():
    span = ah.top_name("trl", "SFTConfig")  # not in trl 0.8.6's __init__, in 0.9.6's
    assert span.first.startswith("0.9.") and span.removed is None
    # a model exported through transformers' dynamic import structure (models/*/__all__)
    span = ah.top_name("transformers", "LlamaForCausalLM")
    assert span.last == span.latest and span.removed is None
    assert ah.top_name("transformers", "TFAutoModel").last.startswith("4.57.")  # TF gone in v5


def test_names_in_no_release():
    assert ah.top_name("transformers", "LlamaForCasualLM") is None
    assert ah.top_name("peft", "LoRAConfig") is None
    assert ah.module("transformers.models.lama") is None
    assert ah.owner("NoSuchTrainer") is None
    assert ah.kwarg("trl.SFTTrainer", "no_such_argument") is None


def test_modules():
    # transformers/generation_utils.py is in the 4.39.3 wheel, not in 4.40.2's
    span = ah.module("transformers.generation_utils")
    assert span.last == "4.39.3" and span.removed == "4.40.2"
    assert ah.module("transformers.models.llama.modeling_llama").removed is None
    assert ah.module("huggingface-hub.hf_api").package == "huggingface-hub"
    assert ah.top_name("transformers", "models") is not None  # a submodule imports too


def test_names_of_a_module():
    # transformers/utils/import_utils.py defines it up to 4.57.x; 5.0's does not
    span = ah.module_name("transformers.utils.import_utils", "is_torch_fx_available")
    assert span.last.startswith("4.57.") and span.removed.startswith("5.0.")
    # modeling_llama.py: the FlashAttention-2 class from 4.34 until the 4.48 attention refactor
    span = ah.module_name("transformers.models.llama.modeling_llama", "LlamaFlashAttention2")
    assert span.first.startswith("4.34.") and span.removed.startswith("4.48.")
    # a name moved to another module and imported back stays importable where it was
    span = ah.module_name("transformers.generation.utils", "GenerationMode")
    assert span.first.startswith("4.32.") and span.removed is None
    # a name every release of the module has is not recorded, nor what it imports from others
    assert ah.module_name("transformers.modeling_utils", "PreTrainedModel") is None
    assert ah.module_name("transformers.modeling_utils", "Optional") is None


def test_owner_spellings():
    assert ah.owner("SFTTrainer.__init__") == "trl.SFTTrainer"
    assert ah.owner("SFTTrainer") == "trl.SFTTrainer"
    assert ah.owner("trl.SFTConfig") == "trl.SFTConfig"
    assert ah.owner("trl.trainer.sft_trainer.SFTTrainer") == "trl.SFTTrainer"
    assert ah.owner("TrainingArguments.__init__") == "transformers.TrainingArguments"
    assert ah.owner("Dataset.map") == "datasets.Dataset.map"
    assert ah.owner("huggingface-hub.hf_hub_download") == "huggingface_hub.hf_hub_download"


def test_training_arguments_strategy_rename():
    # training_args.py: `eval_strategy` field from 4.41 (absent in 4.40.2); `evaluation_strategy`
    # kept as a deprecated field through 4.50.3 and gone in 4.51.3 (its warning had said 4.46)
    new = ah.kwarg("transformers.TrainingArguments", "eval_strategy")
    assert new.first == "4.41.2" and new.removed is None
    old = ah.kwarg("transformers.TrainingArguments", "evaluation_strategy")
    assert old.first == "3.2.0" and old.last == "4.50.3" and old.removed == "4.51.3"
    # its predecessor, evaluate_during_training, lived beside it from 3.2 and left with 4.0
    before = ah.kwarg("transformers.TrainingArguments", "evaluate_during_training")
    assert (before.first, before.last, before.removed) == ("3.0.2", "3.5.1", "4.0.1")
    assert ah.kwarg_in_no_release("transformers.TrainingArguments", "learnin_rate")


def test_sft_trainer_never_took_torch_dtype():
    # SFTTrainer.__init__ in 0.7.11, 0.8.6, 0.12.2, 0.13.0 and 1.16.0 has no `torch_dtype` and no
    # **kwargs; up to 0.12.x it took `model_init_kwargs` (where torch_dtype belongs), 0.13.0 not
    assert ah.kwarg("trl.SFTTrainer", "torch_dtype") is None
    assert ah.kwarg_in_no_release("trl.SFTTrainer", "torch_dtype")
    span = ah.kwarg("trl.SFTTrainer", "model_init_kwargs")
    assert span.last == "0.12.2" and span.removed == "0.13.0" and span.owner == "trl.SFTTrainer"
    assert ah.kwarg("trl.SFTConfig", "model_init_kwargs").removed is None


def test_config_inherits_training_arguments():
    assert ah._data()["bases"]["trl.SFTConfig"] == "transformers.TrainingArguments"
    span = ah.kwarg("trl.SFTConfig", "learning_rate")
    assert span is not None and span.package == "transformers"
    assert span.owner == "transformers.TrainingArguments" and span.first == "3.0.2"
    span = ah.kwarg("trl.SFTConfig", "dataset_text_field")
    assert span.owner == "trl.SFTConfig" and span.package == "trl"
    assert not ah.kwarg_in_no_release("trl.SFTConfig", "learning_rate")
    assert ah.kwarg_in_no_release("trl.SFTConfig", "torch_dtype_x")


def test_varkw_callables():
    # BitsAndBytesConfig.__init__(..., **kwargs) in 4.41.2; GenerationConfig(**kwargs) pops its keys
    assert not ah.kwarg_in_no_release("transformers.BitsAndBytesConfig", "anything_at_all")
    assert ah.kwarg("transformers.GenerationConfig", "max_new_tokens") is not None
    assert not ah.kwarg_in_no_release("transformers.GenerationConfig", "anything_at_all")
    assert not ah.kwarg_in_no_release("no.Such", "x")


@pytest.mark.parametrize("key", ["transformers.Trainer", "peft.LoraConfig", "datasets.Dataset.map",
                                 "accelerate.Accelerator", "huggingface_hub.HfApi.create_repo"])
def test_common_callables_have_their_usual_arguments(key):
    usual = {"transformers.Trainer": "train_dataset", "peft.LoraConfig": "target_modules",
             "datasets.Dataset.map": "batched", "accelerate.Accelerator": "mixed_precision",
             "huggingface_hub.HfApi.create_repo": "private"}
    span = ah.kwarg(key, usual[key])
    assert span is not None and span.removed is None


def test_gaps_between_first_and_last():
    # huggingface_hub/__init__.py imports `login` from hf_api in 0.5.1, lacks it in 0.10.1 (only
    # notebook_login) and imports it from ._login again in 0.11.1
    span = ah.top_name("huggingface_hub", "login")
    assert span.first == "0.5.1" and span.removed is None and span.gaps
    assert span.present_in("0.5.1") and span.present_in("0.11.0") and span.present_in("2.4.0")
    assert not span.present_in("0.10.1")
    assert ah.top_name("peft", "prepare_model_for_int8_training").present_in("0.9.0")
    assert not ah.top_name("peft", "prepare_model_for_int8_training").present_in("0.10.0")


def test_legacy_module_aliases_of_transformers_5():
    # transformers 5.x's __init__ serves tokenization_utils_fast etc. from new modules
    # (_LEGACY_MODULE_ALIASES, _LEGACY_FAST_IMAGE_PROCESSOR_MODULE)
    assert ah.module("transformers.tokenization_utils_fast").removed is None
    assert ah.module("transformers.models.vit.image_processing_vit_fast").removed is None


# ---------------------------------------------------------------------------- class members


def test_member_tables_are_within_their_releases():
    data = ah._data()
    rels = data["releases"]
    for key, (first, last) in data["classes"].items():
        pkg = key.split(".")[0]
        assert 0 <= first <= last < len(rels[pkg]), key
        for name, (a, b) in data["members"][key].items():
            assert first <= a <= b <= last, (key, name)
        for name, runs in data["member_gaps"].get(key, {}).items():
            a, b = data["members"][key][name]
            assert all(a < x <= y < b for x, y in runs), (key, name)
        for reason, runs in data["member_open"].get(key, {}).items():
            assert all(first <= x <= y <= last for x, y in runs), (key, reason)
    assert set(data["members"]) == set(data["classes"])
    for key, bases in data["member_bases"].items():
        assert key in data["classes"] and all(b in data["classes"] for b in bases)
        assert all(b.split(".")[0] != key.split(".")[0] for b in bases)  # same package: folded in


def test_member_class_spellings():
    assert ah.member_class("Trainer") == "transformers.Trainer"
    assert ah.member_class("transformers.Trainer") == "transformers.Trainer"
    assert ah.member_class("SFTTrainer") == "trl.SFTTrainer"
    assert ah.member_class("trl.trainer.sft_trainer.SFTTrainer") == "trl.SFTTrainer"
    assert ah.member_class("huggingface-hub.HfApi") == "huggingface_hub.HfApi"
    assert ah.member_class("Dataset") == "datasets.Dataset"
    assert ah.member_class("NoSuchClass") is None
    assert ah.member("NoSuchClass", "train") is None
    assert not ah.member_in_no_release("NoSuchClass", "train")
    # renamed PreTrainedConfig in 5.0 (configuration_utils.py keeps `PretrainedConfig = ...`)
    assert ah.member("PretrainedConfig", "to_dict").removed is None
    assert ah.member("PreTrainedConfig", "to_dict").removed is None


def test_dataset_to_tf_dataset_from_datasets_1_13():
    # arrow_dataset.py: not in 1.12.1; 1.13.3 adds TensorflowDatasetMixin.to_tf_dataset, a base of
    # Dataset in the same package (folded into Dataset's record)
    span = ah.member("Dataset", "to_tf_dataset")
    assert span.first == "1.13.3" and span.owner == "datasets.Dataset"
    assert span.package == "datasets"
    assert not span.present_in("1.12.1") and span.present_in("2.14.0")


def test_trainer_tokenizer_became_processing_class():
    # trainer.py: `self.tokenizer = tokenizer` from 3.1.0 (not in 3.0.2) through 4.45.2; 4.46.3 sets
    # `self.processing_class` and keeps `tokenizer` as a deprecated property, through 4.57.6;
    # 5.0.0 has no `tokenizer`
    old = ah.member("transformers.Trainer", "tokenizer")
    assert (old.first, old.last, old.removed) == ("3.1.0", "4.57.6", "5.0.0")
    new = ah.member("Trainer", "processing_class")
    assert new.first == "4.46.3" and new.removed is None and new.owner == "transformers.Trainer"


def test_apply_chat_template_from_4_34():
    # tokenization_utils_base.py: not in 4.33.3, `def apply_chat_template` in 4.34.1
    span = ah.member("PreTrainedTokenizerBase", "apply_chat_template")
    assert span.first == "4.34.1" and span.removed is None
    # the fast tokenizer inherits it from PreTrainedTokenizerBase (same package, folded in)
    assert ah.member("PreTrainedTokenizerFast", "apply_chat_template").first == "4.34.1"


def test_gather_for_metrics_from_accelerate_0_12():
    # accelerator.py: `gather` only in 0.11.0, `def gather_for_metrics` in 0.12.0
    span = ah.member("Accelerator", "gather_for_metrics")
    assert span.first == "0.12.0" and span.removed is None and span.package == "accelerate"


def test_merge_and_unload_lives_on_lora_model():
    # peft: LoraModel.merge_and_unload from 0.3.0 (not in 0.2.0; in 0.21.2 on its base BaseTuner);
    # PeftModel never defines it but forwards unknown attributes with __getattr__ (0.2.0 .. 0.21.2)
    span = ah.member("LoraModel", "merge_and_unload")
    assert span.first == "0.3.0" and span.removed is None and span.owner == "peft.LoraModel"
    assert ah.member("PeftModel", "merge_and_unload") is None
    assert "__getattr__" in ah.member_open("PeftModel")
    assert not ah.member_in_no_release("PeftModel", "merge_and_unload")
    assert not ah.member_in_no_release("peft.PeftModelForCausalLM", "merge_and_unload")


def test_made_up_members_of_closed_classes_are_in_no_release():
    # Trainer, TrainingArguments and DatasetDict (a dict subclass) define no __getattr__
    assert ah.member("Trainer", "train_with_magic") is None
    assert ah.member_in_no_release("Trainer", "train_with_magic")
    assert ah.member_in_no_release("transformers.TrainingArguments", "learnin_rate")
    assert ah.member_in_no_release("DatasetDict", "to_tf_datset")
    assert ah.member("DatasetDict", "keys") is not None  # a dict's methods count
    assert not ah.member_in_no_release("Trainer", "processing_class")


def test_classes_that_forward_attributes_answer_nothing():
    # tokenization_utils_base.py: BatchEncoding(UserDict) defines __getattr__ (3.0.2 and 5.25.0)
    assert not ah.member_in_no_release("BatchEncoding", "anything")
    assert "__getattr__" in ah.member_open("BatchEncoding")
    # torch.nn.Module (itself with __getattr__) is outside the scanned packages
    assert "base Module" in ah.member_open("PreTrainedModel")
    assert not ah.member_in_no_release("PreTrainedModel", "lm_head")
    # GenerationConfig(**kwargs) sets any attribute it is given
    assert "setattr" in ah.member_open("GenerationConfig")
    # ModelOutput has no __getattr__, but its instances are subclasses with their own fields
    assert not ah.member_in_no_release("ModelOutput", "logits")


def test_members_inherited_from_another_package():
    # trl 0.4.7: `class SFTTrainer(Trainer)` (from transformers); 1.16.0: SFTTrainer(_BaseTrainer),
    # `class _BaseTrainer(Trainer)` in trl/trainer/base_trainer.py
    assert ah._data()["member_bases"]["trl.SFTTrainer"] == ["transformers.Trainer"]
    span = ah.member("SFTTrainer", "processing_class")
    assert span.owner == "transformers.Trainer" and span.package == "transformers"
    assert span.first == "4.46.3"
    span = ah.member("trl.SFTConfig", "learning_rate")
    assert span.owner == "transformers.TrainingArguments"
    assert ah.member_in_no_release("SFTTrainer", "train_with_magic")


def test_requirements_of_a_release_from_its_wheel_metadata():
    # Requires-Dist of the wheels (extras left out), read for the release's scanned minor
    assert ah.requirements("transformers", "4.41.0")["tokenizers"] == "<0.20,>=0.19"
    assert ah.requirements("peft", "0.10.0")["accelerate"] == ">=0.21.0"
    assert ah.requirements("trl", "0.12.1")["transformers"] == "<4.47.0"     # 0.12.2's pin
    assert ah.requirements("trl", "0.12.1")["accelerate"] == ">=0.34.0"
    assert ah.requirements("transformers", "2.11.0") == {}      # before the first scanned release
    assert ah.requirements("no-such-package", "1.0") == {}


def test_sentence_transformers_and_evaluate_names_are_dated() -> None:
    trainer = ah.top_name("sentence_transformers", "SentenceTransformerTrainer")
    assert trainer is not None and trainer.first.startswith("3.0")
    combine = ah.top_name("evaluate", "combine")
    assert combine is not None and combine.first.startswith("0.2")
    assert ah.top_name("sentence_transformers", "NoSuchTrainer") is None


def test_model_config_fields_are_dated() -> None:
    """The configs of the models most fine-tuned: a field added later, one transformers 5 moved."""
    dropout = ah.member("LlamaConfig", "attention_dropout")
    assert dropout.first == "4.36.2" and dropout.removed is None
    theta = ah.member("Qwen2Config", "rope_theta")
    assert theta.removed == "5.0.0" and ah.member("LlamaConfig", "rope_parameters").first == "5.0.0"
    assert ah.member("BertConfig", "hidden_dropout_prob").first == "3.0.2"


def test_config_fields_of_the_installed_transformers_agree_with_the_table() -> None:
    """What the table says the installed release's LlamaConfig has (or not) is what it has."""
    transformers = pytest.importorskip("transformers")
    config = transformers.LlamaConfig()
    version = transformers.__version__
    for field in ("attention_dropout", "rope_theta", "rope_parameters", "head_dim",
                  "num_key_value_heads", "tie_word_embeddings"):
        span = ah.member("LlamaConfig", field)
        assert (span is not None and span.present_in(version)) == hasattr(config, field), field


def test_diffusers_pipelines_are_dated() -> None:
    assert ah.top_name("diffusers", "StableDiffusionXLPipeline").first == "0.18.2"
    assert ah.top_name("diffusers", "FluxPipeline").first == "0.30.3"
    assert ah.top_name("diffusers", "StableDiffusionPipeline").first == "0.3.0"
    assert ah.kwarg("diffusers.DiffusionPipeline.from_pretrained", "torch_dtype") is not None


def test_tokenizers_members_are_read_from_its_type_stubs() -> None:
    """tokenizers is compiled: its Tokenizer's methods come from the wheels' .pyi stubs."""
    assert ah.member("tokenizers.Tokenizer", "encode_batch_fast").first == "0.20.3"
    assert ah.member("tokenizers.Tokenizer", "encode_batch").first == "0.13.3"
    assert ah.member_in_no_release("tokenizers.Tokenizer", "encode_batchh")
    assert ah.top_name("tokenizers", "Tokenizer") is not None
