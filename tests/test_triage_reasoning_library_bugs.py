"""Reasoning rules about library bugs, learned from the later rounds of real reports: who reads
what (one library reading another's object, a library reaching for another package's private
name, calling a changed private function or opening its own missing file), and what the
reporter blames. Each rule with the paste it answers and a control it must leave alone."""
from __future__ import annotations

from tests.helpers import SITE
from tests.helpers import triage_elsewhere as _t
from wizard.triage.match import triage
from wizard.triage.versions import pastes_from_elsewhere


def test_a_library_reaching_for_another_packages_private_name_is_a_library_bug() -> None:
    paste = ("```python\nfrom bert4keras.models import build_transformer_model\n"
             "model = build_transformer_model(config_path, checkpoint_path)\n```\n"
             "AttributeError: module 'tensorflow.python.framework.ops' has no attribute "
             "'_TensorLike'")
    t = _t(paste)
    assert t.cause_id == "library-bug"
    assert any("_TensorLike" in r for r in t.bug.reasons)
    # the user's own code using the private name: theirs to change, not a library bug
    mine = paste.replace("model = build", "x = tf.python.framework.ops._TensorLike\nmodel = build")
    assert _t(mine).cause_id != "library-bug"
    # the message alone shows no library reaching for it
    assert _t(paste.split("```\n")[-1]).cause_id != "library-bug"
    # the library's own line shown under its frame names the private name: still the library's
    framed = ('  File "pg.py", line 79, in __init__\n'
              "    model = tl.models.Model(inputs=x, outputs=y)\n"
              f'  File "{SITE}/tensorlayer/models/core.py", line 213, in __init__\n'
              "    if isinstance(check_argu, tf_ops._TensorLike):\n" + paste.split("```\n")[-1])
    assert _t(framed).cause_id == "library-bug"
    # the same line under the user's own frame is the user's use of it
    assert _t(framed.replace(f"{SITE}/tensorlayer/models/core.py", "mymodels/core.py")
              ).cause_id != "library-bug"
    # a companion package of the same project out of step: upgrade both, a version answer
    pair = ("from unsloth import FastLanguageModel\nImportError: cannot import name "
            "'_unsloth_get_batch_samples' from 'unsloth_zoo.loss_utils'")
    assert _t(pair).cause_id == "env-version-too-old"


def test_blame_written_before_a_link_to_the_librarys_source() -> None:
    paste = ("`ds.map(f, remove_columns=['i'])` on an IterableDataset returns [{}, {}].\n"
             "The issue seems to be [here](https://github.com/huggingface/datasets/blob/6c6a82a/"
             "src/datasets/iterable_dataset.py#L1093): the columns are removed after the mapping.")
    assert _t(paste).cause_id == "library-bug"
    link_only = ("See https://github.com/huggingface/datasets/blob/6c6a82a/src/datasets/"
                 "iterable_dataset.py#L1093 for the map I use.")
    assert _t(link_only).cause_id != "library-bug"


def test_a_pull_request_the_reporter_says_led_to_the_failure() -> None:
    paste = ("torch 1.13 + transformers 4.39.0\n`torch.optim.LRScheduler` was only exposed in torch "
             "2. This recent PR included in 4.39.0 imports it and lead to a hard requirement on "
             "torch 2:\n- https://github.com/huggingface/transformers/pull/29588")
    assert _t(paste).cause_id == "library-bug"
    asked = ("torch 1.13 + transformers 4.39.0\nWill this PR lead to a new release soon?\n"
             "- https://github.com/huggingface/transformers/pull/29588")
    assert _t(asked).cause_id != "library-bug"


def test_a_dependency_the_library_forgot_to_declare() -> None:
    paste = ("`pip install -e transformers` then `python -c \"import transformers\"` fails on a fresh "
             "container:\nModuleNotFoundError: No module named 'packaging'\nLooks like this "
             "dependency was recently added, so adding it to setup.py requirements.")
    assert _t(paste).cause_id == "library-bug"
    mine = paste.replace("adding it to setup.py requirements", "adding it to my requirements.txt")
    assert _t(mine).cause_id == "env-missing-package"


def test_two_known_bugs_checked_against_the_wheels() -> None:
    zero = ("Version of accelerate: {v}\n"
            "AttributeError: 'DeepSpeedZeroOptimizer' object has no attribute 'step_was_skipped'")
    t = _t(zero.format(v="0.9.0"))
    assert t.bug is not None and t.bug.known is not None and t.bug.known.fixed_in == "0.10.0"
    after = _t(zero.format(v="0.10.0"))
    assert after.bug is None or after.bug.known is None
    config = ("datasets==2.11.0 and evaluate=={v}\n"
              "AttributeError: 'DownloadConfig' object has no attribute 'storage_options'")
    assert _t(config.format(v="0.4.0")).bug.known.fixed_in == "0.4.1"
    fixed = _t(config.format(v="0.4.1")).bug
    assert fixed is None or fixed.known is None


def test_an_attribute_hook_raises_for_the_code_that_read_the_attribute() -> None:
    frames = ('  File "/work/KIVI/models/llama_kivi.py", line 25, in __init__\n'
              "    self.attention_dropout = config.attention_dropout\n"
              '  File "/usr/lib/python3.10/site-packages/transformers/configuration_utils.py", '
              "line 262, in {}\n    return super().__getattribute__(key)\n"
              "AttributeError: 'LlamaConfig' object has no attribute 'attention_dropout'")
    with pastes_from_elsewhere():
        # a project's model code reading a field the installed config lacks: no library bug
        assert triage("Traceback (most recent call last):\n"
                      + frames.format("__getattribute__")).cause_id != "library-bug"
        # control: the library's own method reading a field no release of its object has
        # (a field some release has is a version answer: test_a_model_config_field_...)
        assert triage("Traceback (most recent call last):\n" + frames.format("to_dict").replace(
            "attention_dropout'", "attention_dropout_rate'")).cause_id == "library-bug"


def test_a_name_missing_from_a_release_the_project_declares_supported() -> None:
    paste = ("### System Info\n\npython 3.10.14\ntransformers 4.49.0\n\nImportError: cannot import "
             "name 'shard_checkpoint' from 'transformers.modeling_utils'\n\n### Reproduction\n\n"
             "transformers>=4.41.2,<=4.49.0,!=4.46.*,!=4.47.*,!=4.48.*\n")
    with pastes_from_elsewhere():
        t = triage(paste)
        assert t.cause_id == "library-bug" and t.bug.package != "transformers"
        assert "requirements declare it supported" in t.bug.reasons[0]
        # control: a release outside the declared range is the user's installation
        outside = triage(paste.replace("transformers 4.49.0", "transformers 4.50.0"))
        assert outside.cause_id.startswith("env-")


def test_a_library_calling_its_own_class_by_its_package_name_with_a_wrong_argument() -> None:
    paste = (f'File "{SITE}/sillm/dpo.py", line 97, in <module>\n'
             "    template = sillm.Template(model.tokenizer, template=args.template)\n"
             "TypeError: Template.__init__() got an unexpected keyword argument 'template'")
    t = _t(paste)
    assert t.cause_id == "library-bug" and t.bug.package == "sillm"
    # the user's own call of the class: a question of the user's code or release, not a bug
    user = paste.replace(f"{SITE}/sillm/dpo.py", "/home/me/dpo.py")
    assert _t(user).bug is None


def test_library_code_missing_its_own_private_attribute_is_a_library_bug() -> None:
    paste = ("Traceback (most recent call last):\n"
             '  File "/root/train.py", line 192, in <module>\n    trainer = SFTTrainer(\n'
             f'  File "{SITE}/unsloth/models/llama.py", line 2737, in for_training\n'
             "    del model._unwrapped_old_generate\n"
             f'  File "{SITE}/torch/nn/modules/module.py", line 2040, in __delattr__\n'
             "    super().__delattr__(name)\n"
             "AttributeError: _unwrapped_old_generate")
    t = _t(paste)
    assert t.cause_id == "library-bug" and t.bug.package == "unsloth"
    # the user's own line reads the private attribute: theirs to fix
    own = paste.replace("    trainer = SFTTrainer(", "    trainer = model._unwrapped_old_generate")
    assert _t(own).cause_id != "library-bug"
    # a public attribute missing is no evidence of this kind
    public = paste.replace("_unwrapped_old_generate", "unwrapped_old_generate")
    assert _t(public).cause_id != "library-bug"


def test_a_projects_own_subclass_of_a_library_config_is_read_from_its_base() -> None:
    # axolotl's AxolotlGRPOConfig is trl's GRPOConfig with a prefix: the base's history decides
    never = ("TypeError: AxolotlGRPOConfig.__init__() got an unexpected keyword argument "
             "'rollout_func'")
    bug = _t(never + "\nThe failure occurs while Axolotl constructs the GRPO training arguments.")
    assert bug.cause_id == "library-bug" and bug.bug.package == "axolotl"
    removed = _t("Traceback (most recent call last):\n"
                 f'  File "{SITE}/axolotl/core/builders/rl.py", line 88, in build\n'
                 "    training_args = training_args_cls(**training_args_kwargs)\n"
                 "TypeError: AxolotlGRPOConfig.__init__() got an unexpected keyword argument "
                 "'max_prompt_length'")
    assert removed.cause_id == "env-version-too-new"
    assert "trl" in removed.primary.cause and "removed in" in removed.primary.cause
    assert "transformers" not in removed.primary.cause
    # the user's own call with that argument is theirs, and a class of their own is theirs
    own_call = never + "\nargs = AxolotlGRPOConfig(output_dir='o', rollout_func=my_rollout)"
    assert _t(own_call).cause_id != "library-bug"
    own_class = never + "\nclass AxolotlGRPOConfig(GRPOConfig):\n    pass"
    assert _t(own_class).cause_id != "library-bug"


def test_a_library_source_line_named_in_prose_is_the_reader() -> None:
    paste = ("accelerate test --config_file ./my_config.yaml throws\n"
             "`AttributeError: 'DeepSpeedPlugin' object has no attribute 'fp16'`\n"
             "which seems to be stemming from `accelerate/state.py` line 232:\n"
             "`use_fp16 = self.deepspeed_plugin.fp16`")
    result = _t(paste)
    assert result.cause_id == "library-bug" and result.bug.package == "accelerate"
    # the same error with no source named says nothing about who read it
    assert _t(paste.split("\nwhich")[0]).cause_id != "library-bug"
    # a file of the user's own project named is no library's line
    assert _t(paste.replace("accelerate/state.py", "myproj/train.py")).cause_id != "library-bug"


def test_a_regression_stated_as_runnable_after_a_downgrade() -> None:
    paste = ("When use v0.24.0 to create commit to a pr, 404 error is occurred.\n"
             "But when i downgrade it to 0.23.5, it's runnable.\n"
             "huggingface_hub.utils._errors.RevisionNotFoundError: 404 Client Error.\n"
             "Revision Not Found for url: https://huggingface.co/api/datasets/a/b/revision/x.")
    assert _t(paste).cause_id == "library-bug"
    # a downgrade mentioned for fine-tuning is no statement that it works
    control = paste.replace("But when i downgrade it to 0.23.5, it's runnable.",
                            "I will downgrade to 0.23.5 for finetuning later.")
    assert _t(control).cause_id != "library-bug"


def test_a_reporter_who_read_the_library_code_and_found_it_wrong() -> None:
    frames = ("Traceback (most recent call last):\n"
              f'  File "{SITE}/transformers/trainer.py", line 1283, in _rotate_checkpoints\n'
              "    checkpoints_sorted = self._sorted_checkpoints(use_mtime=use_mtime)\n"
              f'  File "{SITE}/transformers/trainer.py", line 1274, in _sorted_checkpoints\n'
              "    checkpoints_sorted[best_model_index],\n"
              "TypeError: 'str' object does not support item assignment")
    said = "After debugging I found that it wrongly tries to index into the string.\n"
    assert _t(said + frames).cause_id == "library-bug"
    # without the reading, or with the user's own frame innermost, no such evidence
    assert _t(frames).cause_id != "library-bug"
    own = frames.replace(f"{SITE}/transformers/trainer.py\", line 1274",
                         "/home/me/train.py\", line 12")
    assert _t(said + own).cause_id != "library-bug"


def test_a_library_taking_an_accelerators_path_the_machine_lacks() -> None:
    lib = '/usr/local/lib/python3.6/dist-packages/transformers/modeling_utils.py'
    paste = ("Traceback (most recent call last):\n"
             '  File "qa.py", line 4, in <module>\n'
             '    model = AutoModelWithLMHead.from_pretrained("mrm8488/t5-base-finetuned-squadv2")\n'
             f'  File "{lib}", line 798, in from_pretrained\n'
             "    import torch_xla.core.xla_model as xm\n"
             "ModuleNotFoundError: No module named 'torch_xla'")
    t = _t(paste)
    assert t.verdict == "possible-library-bug" and t.bug.package == "transformers"
    # control: the user's own import of the backend is a package to install
    own = ("Traceback (most recent call last):\n"
           '  File "train.py", line 2, in <module>\n    import torch_xla.core.xla_model as xm\n'
           "ModuleNotFoundError: No module named 'torch_xla'")
    assert _t(own).cause_id == "env-missing-package"


def test_a_library_calling_a_private_function_whose_signature_changed() -> None:
    paste = ("Traceback (most recent call last):\n"
             f'  File "{SITE}/yunchang/ring/ring_flash_attn.py", line 33, in '
             "ring_flash_attn_forward\n"
             "    block_out, _, _, _, _, block_lse, _, _ = _flash_attn_forward(\n"
             "TypeError: _flash_attn_forward() missing 1 required positional argument: 'softcap'")
    t = _t(paste)
    assert t.bug is not None and t.bug.package == "yunchang"
    # control: the user's own code calling its own private helper wrongly is no library's bug
    own = paste.replace(f"{SITE}/yunchang/ring/ring_flash_attn.py", "train.py")
    assert _t(own).bug is None


def test_a_library_calling_a_torch_operator_whose_arguments_changed() -> None:
    paste = ("Traceback (most recent call last):\n"
             f'  File "{SITE}/apex/contrib/multihead_attn/self_multihead_attn_func.py", line 233, '
             "in backward\n"
             "    softmax_grads = torch._softmax_backward_data(dropout_grads, softmax_results, -1, "
             "softmax_results)\n"
             "TypeError: _softmax_backward_data(): argument 'input_dtype' (position 4) must be "
             "torch.dtype, not Tensor")
    t = _t(paste)
    assert t.bug is not None and t.bug.package == "apex"
    # control: the user's own line calling it so is the user's call
    own = paste.replace(f"{SITE}/apex/contrib/multihead_attn/self_multihead_attn_func.py",
                        "train.py")
    assert _t(own).bug is None


def test_a_package_missing_its_own_data_file_is_a_packaging_bug() -> None:
    paste = ("Traceback (most recent call last):\n"
             f'  File "{SITE}/mteb/abstasks/AbsTaskSpeedTask.py", line 35, in load_data\n'
             '    with file_path.open("r") as f:\n'
             '  File "/usr/lib/python3.12/pathlib.py", line 1013, in open\n'
             "    return io.open(self, mode, buffering, encoding, errors, newline)\n"
             "FileNotFoundError: [Errno 2] No such file or directory: "
             f"'{SITE}/mteb/abstasks/the_ugly_duckling.txt'")
    t = _t(paste)
    assert t.bug is not None and t.bug.package == "mteb"
    # control: the user's own code opening a path there is the user's path question
    own = paste.replace(f'  File "{SITE}/mteb/abstasks/AbsTaskSpeedTask.py", line 35, in load_data',
                        '  File "train.py", line 35, in main')
    assert _t(own).bug is None


def test_a_library_model_hard_coding_float32_under_mixed_precision() -> None:
    paste = ("tf.keras.mixed_precision.experimental.set_policy('mixed_float16')\n"
             "model = TFBertForQuestionAnswering.from_pretrained('bert-base-uncased')\n"
             'transformers/modeling_tf_bert.py", line 174, in _embedding\n'
             "    embeddings = inputs_embeds + position_embeddings + token_type_embeddings\n"
             "tensorflow.python.framework.errors_impl.InvalidArgumentError: cannot compute AddV2 "
             "as input #1(zero-based) was expected to be a half tensor but is a float tensor "
             "[Op:AddV2]")
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.verdict == "possible-library-bug" and t.bug.package == "transformers"
    # without the policy the half tensor is the user's own cast
    with pastes_from_elsewhere():
        assert triage(paste.split("\n", 1)[1]).verdict != "possible-library-bug"


def test_a_library_renaming_a_file_across_file_systems() -> None:
    paste = (f'  File "{SITE}/huggingface_hub/file_download.py", line 1555, in _chmod_and_replace\n'
             "    os.replace(src, dst)\nOSError: [Errno 18] Invalid cross-device link: "
             "'/root/.cache/huggingface/hub/tmpz' -> '/mnt/disk/model/.gitattributes'")
    t = _t(paste)
    assert t.cause_id == "library-bug" and any("shutil.move" in r for r in t.bug.reasons)
    # control: the user's own rename across disks is theirs to change
    mine = paste.replace(f"{SITE}/huggingface_hub/file_download.py", "/home/me/train.py")
    assert _t(mine).cause_id != "library-bug"


def test_a_shortened_library_path_and_a_blamed_pull_request_link() -> None:
    paste = ("The issue was introduced in [#3669: *feat: Pass trainer state to reward functions*]"
             "(https://github.com/huggingface/trl/pull/3669):\n```\n"
             'File ".../trl/trainer/grpo_trainer.py", line 1332, in _calculate_rewards\n'
             "    row = {k: v[i] for k, v in reward_kwargs.items()}\n"
             "TypeError: 'TrainerState' object is not subscriptable\n```")
    t = _t(paste)
    assert t.parsed.frames[-1].package == "trl" and t.parsed.frames[-1].is_library
    assert t.cause_id == "library-bug" and any("regression" in r for r in t.bug.reasons)
    # control: a link to a pull request that is not blamed for anything
    plain = paste.replace("The issue was introduced in", "I read")
    assert not any("regression" in r for r in (_t(plain).bug.reasons if _t(plain).bug else []))


def test_the_reporter_explaining_what_the_librarys_code_tries_to_do() -> None:
    paste = ("The seqeval metric returns the following error when computed:\n```\n"
             "~/.cache/huggingface/modules/datasets_modules/metrics/seqeval/78a9/seqeval.py in "
             "_compute(self, predictions, references)\n    103         for type_name, score in "
             "report.items():\n--> 104             scores[type_name][\"precision\"] = "
             "score[\"precision\"]\n\nKeyError: 'LOC'\n```\nThis is because the current code "
             "basically tries to do `scores['LOC']['precision'] = x`.")
    assert _t(paste).cause_id == "library-bug"
    # the same lines in the user's own metric file: theirs to fix
    mine = paste.replace("~/.cache/huggingface/modules/datasets_modules/metrics/seqeval/78a9/",
                         "/home/me/project/")
    assert _t(mine).cause_id != "library-bug"


def test_a_project_that_worked_last_week_and_fails_after_git_pull_is_its_regression() -> None:
    frames = ("Traceback (most recent call last):\n"
              '  File "/workspace/proj/src/utils/common.py", line 100, in init_adapter\n'
              "    assert os.path.exists(os.path.join(model_args.checkpoint_dir[0], CONFIG_NAME))\n"
              "TypeError: 'NoneType' object is not subscriptable")
    for said in ("上周的版本Lora可以正常跑，今天git pull更新后lora报错，信息如下：\n",
                 "今天git pull之后训练报错：\n"):
        t = _t(said + frames)
        assert t.cause_id == "library-bug", said
        assert any("regression" in r for r in t.bug.reasons)
    # control: the same error with no word of a version that worked
    assert _t("训练时报错，信息如下：\n" + frames).cause_id != "library-bug"
