"""Reasoning rules about the installation, learned from the later rounds of real reports:
which release had a name, what the reporter says worked or fixed it, packages shadowed, missing,
built for something else or set up halfway. Each rule with the paste it answers and a control
it must leave alone."""
from __future__ import annotations

from tests.helpers import SITE
from tests.helpers import triage_elsewhere as _t
from wizard.triage.match import triage
from wizard.triage.parse import parse_traceback
from wizard.triage.versions import paste_versions, pastes_from_elsewhere


def test_a_keras_library_building_its_model_alone_is_a_release_mismatch() -> None:
    alone = ("model = keras_bert.load_trained_model_from_checkpoint(config_file=config_path,\n"
             "    checkpoint_file=checkpoint_path)\n"
             "AttributeError: 'tuple' object has no attribute 'layer'")
    assert _t(alone).cause_id == "env-version-too-new"
    # layers of the user's own on the library's output: two Keras implementations mixed
    mixed = alone + ("\ndense = model.get_layer('NSP-Dense').output\n"
                     "outputs = keras.layers.Dense(units=2, activation='softmax')(dense)")
    assert _t(mixed).cause_id == "keras-and-tf-keras-mixed"
    # two Keras libraries in one project: mixed as well
    two = alone + "\nkeras-xlnet.version '0.16.0'\nkeras-bert.version '0.41.0'"
    assert _t(two).cause_id == "keras-and-tf-keras-mixed"


def test_one_library_reading_another_librarys_object_is_version_skew() -> None:
    paste = ("Traceback (most recent call last):\n"
             '  File "train.py", line 4, in <module>\n    emb = model.encode(texts)\n'
             f'  File "{SITE}/sentence_transformers/models/BERT.py", line 64, in '
             "get_sentence_features\n"
             "    return self.tokenizer.prepare_for_model(tokens, max_length=128)\n"
             "AttributeError: 'BertTokenizer' object has no attribute 'prepare_for_model'")
    t = _t(paste)
    assert t.cause_id == "env-version-too-new"
    assert "sentence_transformers" in t.primary.cause and "transformers" in t.primary.fix
    # the same library on its own class is not skew between two packages
    own = paste.replace("sentence_transformers/models/BERT.py", "transformers/tokenization_utils.py")
    assert _t(own).cause_id != "env-version-too-new"
    # a class only named like one of transformers' (evaluate's DownloadConfig handed to datasets)
    config = ("Traceback (most recent call last):\n"
              '  File "m.py", line 3, in <module>\n    metric = evaluate.load("bleurt")\n'
              f'  File "{SITE}/datasets/utils/file_utils.py", line 195, in cached_path\n'
              "    storage_options=download_config.storage_options,\n"
              "AttributeError: 'DownloadConfig' object has no attribute 'storage_options'")
    assert _t(config).cause_id != "env-version-too-new"


def test_a_library_cli_without_the_subcommand_is_a_release_too_old() -> None:
    paste = ("$ trl vllm-serve --model Qwen/Qwen2.5-7B-Instruct\nusage: trl\nTRL CLI: error: "
             "argument command: invalid choice: 'vllm-serve' (choose from 'chat', 'dpo', 'env', "
             "'grpo', 'kto', 'sft')")
    t = _t(paste)
    assert t.cause_id == "env-version-too-old" and t.primary.fix == 'pip install -U "trl"'
    typo = paste.replace("vllm-serve", "sftt")
    assert _t(typo).cause_id == "cli-command-typo"
    # a script's own argparse is not a library's release
    own = ("usage: train.py\ntrain.py: error: argument command: invalid choice: 'fit' (choose "
           "from 'train', 'eval')")
    assert _t(own).cause_id != "env-version-too-old"


def test_the_reporters_upgrade_that_fixed_it_names_the_old_release() -> None:
    paste = ("I get a KeyError from trainer.train(). I was able to fix this by upgrading to "
             "`datasets>=2.6.0`.\nKeyError: 'ner_tags'")
    t = _t(paste)
    assert t.cause_id == "env-version-too-old" and "datasets>=2.6.0" in t.primary.fix
    tried = "I tried upgrading datasets to 2.6.0 but it did not help.\nKeyError: 'ner_tags'"
    assert _t(tried).cause_id != "env-version-too-old"


def test_an_upper_bound_requirement_names_the_newer_release() -> None:
    t = _t("ImportError: transformers<4.42 is required for a normal functioning of this module, "
           "but found transformers==4.42.4")
    assert t.cause_id == "env-version-too-new" and 'transformers<4.42' in t.primary.fix


def test_unsloth_not_supporting_a_model_yet_is_a_release_too_old() -> None:
    t = _t("NotImplementedError: Unsloth: microsoft/Phi-3-medium-128k-instruct not supported yet!")
    assert t.cause_id == "env-version-too-old" and "unsloth" in t.primary.fix


def test_a_notebook_traceback_cut_before_its_message_keeps_the_raised_text() -> None:
    paste = ("ImportError                               Traceback (most recent call last)\n"
             "<ipython-input-26-cfdcb4612c2d> in <cell line: 1>()\n"
             "----> 1 training_args = TrainingArguments(\n"
             f"{SITE}/transformers/training_args.py in _setup_devices(self)\n"
             "   1786             if not is_accelerate_available(min_version=\"0.20.1\"):\n"
             "-> 1787                 raise ImportError(\n"
             "   1788                     \"Using the `Trainer` with `PyTorch` requires "
             "`accelerate>=0.20.1`: Please run `pip install accelerate -U`\"\n")
    parsed = parse_traceback(paste)
    assert parsed.message.startswith("Using the `Trainer` with `PyTorch` requires")
    assert _t(paste).cause_id == "env-version-too-old"
    # a message printed after the frames wins over the code's literal
    printed = parse_traceback(paste + "ImportError: something else entirely\n")
    assert printed.message == "something else entirely"


def test_a_pytorch_class_every_release_exports_is_missing_torch() -> None:
    paste = ("from transformers import AutoTokenizer, AutoModelForQuestionAnswering\n"
             "ImportError: cannot import name 'AutoModelForQuestionAnswering' from 'transformers' "
             "(C:\\Users\\me\\anaconda3\\lib\\site-packages\\transformers\\__init__.py)")
    assert _t(paste).cause_id == "env-missing-package"
    # another library importing it: that library needs a newer transformers
    lib = ("from simpletransformers.question_answering import QuestionAnsweringModel\n"
           + paste.split("\n", 1)[1])
    assert _t(lib).cause_id == "env-version-too-old"
    # a release older than any scanned one: the class may simply not exist there yet
    old = "ImportError: cannot import name 'ReformerModel' from 'transformers'\n- transformers 2.8.0"
    assert _t(old).cause_id == "env-version-too-old"


def test_a_submodule_missing_from_a_stated_release_moved_or_went() -> None:
    paste = ("- bert4keras==0.10.6\n"
             "ModuleNotFoundError: No module named 'bert4keras.bert'")
    assert paste_versions(paste)["bert4keras"] == "0.10.6"
    assert _t(paste).cause_id == "env-version-too-new"
    assert _t("ModuleNotFoundError: No module named 'bert4keras.bert'").cause_id != \
        "env-version-too-new"


def test_messages_of_setfit_tensorflow_and_pip_builds() -> None:
    multilabel = ("trainer = SetFitTrainer(model=model, train_dataset=ds)\n"
                  "model = SetFitModel.from_pretrained(name, multi_target_strategy='one-vs-rest')\n"
                  "IndexError: too many indices for array: array is 1-dimensional, but 2 were "
                  "indexed")
    assert _t(multilabel).cause_id == "multilabel-labels-not-multi-hot"
    assert _t("IndexError: too many indices for array: array is 1-dimensional, but 2 were "
              "indexed").cause_id != "multilabel-labels-not-multi-hot"
    assert _t("DataLossError (see above for traceback): Checksum does not match: stored 2361353507 "
              "vs. calculated on the restored bytes 3689058997").cause_id == \
        "incomplete-model-download"
    assert _t("× Building wheel for tokenizers (pyproject.toml) did not run successfully.\n"
              "│ exit code: 1").cause_id == "rust-compiler-not-found"


def test_custom_code_lacking_a_method_newer_transformers_calls() -> None:
    paste = ("It was running perfectly with transformers 4.46.0; when I upgrade to 4.49.0 it stops "
             "with the error \"Config' object has no attribute 'get_text_config\". If I downgrade "
             "back to 4.46.0 the node works well again.")
    t = _t(paste)
    assert t.cause_id == "env-version-too-new"
    assert 'transformers<4.45' in t.primary.fix       # get_text_config came with 4.45
    # a method every release of the base class had: nothing dates it
    older = paste.replace("get_text_config", "to_dict")
    assert _t(older).cause_id != "env-version-too-new"


def test_a_module_attribute_missing_from_the_release_an_interactive_session_prints() -> None:
    paste = ("bert_embed = BERTEmbedding(folder, task=kashgari.LABELING, sequence_length=100)\n"
             "AttributeError: module 'kashgari' has no attribute 'LABELING'\n"
             ">>> kashgari.__version__\n'2.0.0.alpha'")
    assert paste_versions(paste)["kashgari"] == "2.0.0.alpha"
    t = _t(paste)
    assert t.cause_id == "env-version-too-new" and 'kashgari<2.0.0' in t.primary.fix
    # no release shown: nothing to say which release the code was written for
    assert _t(paste.split(">>>")[0]).cause_id != "env-version-too-new"


def test_a_clone_of_the_project_imported_instead_of_the_installed_package() -> None:
    paste = (">>> from bert import run_classifier\nTraceback (most recent call last):\n"
             '  File "<stdin>", line 1, in <module>\n'
             '  File "/home/me/bert/run_classifier.py", line 24, in <module>\n    import modeling\n'
             "ModuleNotFoundError: No module named 'modeling'\n"
             "$ pip install bert-tensorflow\nSuccessfully installed bert-tensorflow-1.0.1")
    t = _t(paste)
    assert t.cause_id == "local-module-shadows-library" and "/home/me/bert" in t.primary.cause
    # nothing installed under that name: the user's own project missing a module
    own = paste.split("$ pip")[0]
    assert _t(own).cause_id != "local-module-shadows-library"


def test_syntax_a_newer_python_introduced_in_a_library_or_a_package_being_built() -> None:
    unpack = ("Traceback (most recent call last):\n"
              '  File "/usr/local/lib/python2.7/dist-packages/bert_serving/server/__init__.py", '
              "line 191\n    sink.send_multipart([client, msg, jsonapi.dumps({**status_runtime,\n"
              "                                                      ^\nSyntaxError: invalid syntax")
    assert _t(unpack).cause_id == "env-version-too-old"
    # the reporter states Python 3.7, yet f-strings do not parse: pip of another interpreter
    build = ("- Python version: 3.7.8\n$ pip install git+https://github.com/huggingface/"
             "transformers\n    Traceback (most recent call last):\n"
             '      File "<string>", line 1, in <module>\n'
             '      File "/tmp/pip-req-build-BEpAl9/setup.py", line 192\n'
             "        entries = \"\\n\".join([f'    \"{k}\": \"{v}\",' for k, v in deps.items()])\n"
             "                                                ^\n    SyntaxError: invalid syntax")
    t = _t(build)
    assert t.cause_id == "env-version-too-old" and "python -m pip" in t.primary.fix
    # a SyntaxError in the user's own script is theirs
    mine = build.replace("/tmp/pip-req-build-BEpAl9/setup.py", "/home/me/train.py")
    assert _t(mine).cause_id != "env-version-too-old"


def test_a_keyword_newer_than_the_stated_release() -> None:
    paste = ("Name: transformers\nVersion: 4.21.2\n"
             "labels = tokenizer_label(text_target=targets, padding=False, truncation=True)\n"
             "TypeError: __call__() missing 1 required positional argument: 'text'")
    t = _t(paste)
    assert t.cause_id == "env-version-too-old" and "transformers>=4.22" in t.primary.fix
    # the release has it: something else is missing
    assert _t(paste.replace("4.21.2", "4.30.0")).cause_id != "env-version-too-old"


def test_the_reporter_saying_the_problem_went_away_after_updating() -> None:
    t = _t("KeyError: 'bert.embeddings.LayerNorm.weight'\nOnce updated to latest version of "
           "transformers, this problem is gone.")
    assert t.cause_id == "env-version-too-old" and "transformers" in t.primary.fix


def test_an_error_told_but_not_pasted_beside_a_removed_argument() -> None:
    paste = ("I used the orpo colab example and I am getting this error.\n"
             "from trl import ORPOConfig, ORPOTrainer\n"
             "orpo_trainer = ORPOTrainer(\n    model = model,\n    train_dataset = dataset,\n"
             "    tokenizer = tokenizer,\n    args = ORPOConfig(max_prompt_length = 512),\n)")
    t = _t(paste)
    assert t.cause_id == "env-version-too-new" and "trl" in t.primary.fix
    other = paste + "\nValueError: The batch received was empty, your model won't be able to train"
    assert _t(other).primary is None or _t(other).primary.signature.id != \
        "env-removed-argument-in-code"


def test_the_environment_block_states_the_version_not_a_mention_in_the_prose() -> None:
    paste = ("`transformers >= 5` references `torch.float8_e8m0fnu` (added in `torch 2.7`) at "
             "import.\n\n```\nAttributeError: module 'torch' has no attribute "
             "'float8_e8m0fnu'\n```\n\n### Environment\n\n- `torch` 2.6.0\n- `transformers` 5.10.2\n")
    assert paste_versions(paste) == {"torch": "2.6.0", "transformers": "5.10.2"}
    with pastes_from_elsewhere():
        assert triage(paste).cause_id == "env-version-too-old"   # torch older than it needs
    # control: with no environment block, the first mention still counts
    assert paste_versions("I run torch 2.1 here, upgrading to torch 2.4 did not help") == \
        {"torch": "2.1"}


def test_a_file_named_like_the_package_it_imports_shadows_it() -> None:
    msg = ("ImportError: cannot import name 'SentenceTransformer' from partially initialized "
           "module 'sentence_transformers' (most likely due to a circular import) ({})")
    with pastes_from_elsewhere():
        own = triage(msg.format("/home/ana/project/sentence_transformers.py"))
        assert own.cause_id == "local-module-shadows-library"
        assert "mv /home/ana/project/sentence_transformers.py" in own.primary.fix
        # control: the installed package's own circular import is no file of the user's
        lib = triage(msg.format("/usr/lib/python3.10/site-packages/sentence_transformers/"
                                "__init__.py"))
        assert lib.cause_id != "local-module-shadows-library"


def test_a_release_written_as_a_wheel_or_folder_name_is_stated() -> None:
    assert paste_versions("With transformers-4.48.1 I get this; transformers-4.47.0 worked") == \
        {"transformers": "4.48.1"}
    assert paste_versions("bert-base-uncased and /site-packages/torch-2.1.0.dist-info") == {}


def test_an_argument_no_release_took_after_an_upgrade_is_the_upgrade() -> None:
    error = "TypeError: SFTConfig.__init__() got an unexpected keyword argument 'cache_dir'"
    with pastes_from_elsewhere():
        upgraded = triage(f"Upgrading to version `trl>0.9` throws `{error}` when instantiating "
                          "SFTConfig with our training arguments.")
        assert upgraded.cause_id == "env-version-too-new"
        assert 'pip install "trl<0.9"' in upgraded.primary.fix
        # control: the same error with no upgrade said: an argument SFTConfig never took
        assert triage(error).cause_id == "invalid-config-argument"


def test_a_tokenizer_lacking_a_method_in_transformers_5_words() -> None:
    paste = ("AttributeError: BertTokenizer has no attribute batch_encode_plus. Did you mean: "
             "'_encode_plus'?\n\nI was using the v5 of the transformers library; the error "
             "disappears when switching to transformers v4.")
    with pastes_from_elsewhere():
        assert triage(paste).cause_id in ("env-version-too-old", "env-version-too-new")
        # a module-qualified class reads the same as the bare one
        dotted = triage("AttributeError: 'tokenizers.Tokenizer' object has no attribute "
                        "'encode_batch_fast'")
        assert dotted.primary.evidence["cls"] == "Tokenizer"
        # control: the user's own code reading an attribute no release had is their code
        own = triage("print(tok.batch_encode_plus_fast)\nAttributeError: BertTokenizer has no "
                     "attribute batch_encode_plus_fast")
        assert not own.cause_id.startswith("env-")


def test_an_old_datasets_looking_for_a_loading_script_in_a_hub_repository() -> None:
    paste = ("dataset = load_dataset('Babelscape/wikineural', split='train_fr')\n"
             "FileNotFoundError: Couldn't find file at https://huggingface.co/datasets/Babelscape/"
             "wikineural/resolve/main/wikineural.py")
    t = _t(paste)
    assert t.cause_id == "env-version-too-old" and "pip install -U datasets" in t.primary.fix
    # a data file of the repository that is not there is not the script lookup
    other = paste.replace("resolve/main/wikineural.py", "resolve/main/data/train.json")
    assert _t(other).cause_id != "env-version-too-old"


def test_a_model_config_field_another_transformers_release_has() -> None:
    added = _t("    self.attention_dropout = config.attention_dropout\n"
               "AttributeError: 'LlamaConfig' object has no attribute 'attention_dropout'")
    assert added.cause_id == "env-version-too-old" and "4.36" in added.primary.fix
    moved = _t("transformers 5.0.0\n    base = config.rope_theta\n"
               "AttributeError: 'Qwen2Config' object has no attribute 'rope_theta'")
    assert moved.cause_id == "env-version-too-new" and '"transformers<5.0.0"' in moved.primary.fix
    # the release the paste states has the field: not this answer
    has = _t("transformers==4.40.0\nAttributeError: 'LlamaConfig' object has no attribute "
             "'attention_dropout'")
    assert "4.36" not in (has.primary.fix if has.primary else "")


def test_bitsandbytes_loading_its_cpu_build_on_a_gpu_machine() -> None:
    paste = ("AttributeError: /opt/conda/lib/python3.10/site-packages/bitsandbytes/"
             "libbitsandbytes_cpu.so: undefined symbol: cget_col_row_stats")
    # the CPU build loaded: CUDA not found (the release alone does not say why)
    assert _t(paste).cause_id == "env-binary-incompatible"
    # a release before 0.43 searched for the CUDA runtime by path: upgrade
    old = _t("requirements.txt pins bitsandbytes==0.39.0\n" + paste)
    assert old.cause_id == "env-version-too-old"
    assert "pip install -U bitsandbytes" in old.primary.fix
    assert _t("bitsandbytes==0.45.0\n" + paste).cause_id == "env-binary-incompatible"


def test_a_frame_inside_an_installed_egg_belongs_to_its_package() -> None:
    from wizard.triage.frames import classify_path
    egg = "/env/lib/python3.6/site-packages/seq2seq-0.1.4-py3.6.egg/seq2seq/trainer/trainer.py"
    assert classify_path(egg) == ("library", "seq2seq")
    assert classify_path("/env/lib/python3.10/site-packages/peft/tuners/lora.py") == \
        ("library", "peft")


def test_a_first_frame_whose_file_prefix_the_selection_cut_is_read() -> None:
    paste = ("may i ask what is the version for transformers and peft?\n"
             'miniconda3/envs/lora/lib/python3.9/site-packages/peft/tuners/lora.py", line 154, in '
             "_find_and_replace\n"
             '    "memory_efficient_backward": target.state.memory_efficient_backward,\n'
             "AttributeError: 'MatmulLtState' object has no attribute 'memory_efficient_backward'")
    p = parse_traceback(paste)
    assert [(f.package, f.line, f.function) for f in p.frames] == \
        [("peft", 154, "_find_and_replace")]
    # peft's code reading bitsandbytes' object: two packages of mismatched releases
    assert _t(paste).cause_id == "env-version-too-new"
    # a string literal ending in .py", line is not a frame
    assert not parse_traceback('x = f("run.py", line)\nValueError: bad').frames


def test_a_module_attribute_no_release_had_but_another_spelling_did() -> None:
    t = _t("AttributeError: module transformers has no attribute LLaMATokenizer")
    assert t.cause_id == "wrong-import-path" and "LlamaTokenizer" in t.primary.cause
    # a name a release did have is a version answer
    assert _t("transformers==5.0.0\nAttributeError: module 'transformers' has no attribute "
              "'TFBertModel'").cause_id == "env-version-too-new"


def test_a_pipeline_class_imported_from_diffusers_is_dated_not_moved() -> None:
    t = _t("diffusers==0.25.0\nImportError: cannot import name 'FluxPipeline' from 'diffusers'")
    assert t.cause_id == "env-version-too-old" and '"diffusers>=0.30.0"' in t.primary.fix
    # a transformers class imported from another library is still the wrong import path
    assert _t("ImportError: cannot import name 'AutoTokenizer' from 'peft'").cause_id == \
        "wrong-import-path"


def test_a_name_missing_from_the_projects_own_files_is_no_release_question() -> None:
    paste = ("ImportError: cannot import name 'LlavaLlamaForCausalLM' from 'llava.model' "
             "(/home/LLaVA/llava/model/__init__.py)")
    t = _t(paste)
    assert t.cause_id == "own-module-lacks-name"
    assert 'grep -rn "LlavaLlamaForCausalLM" /home/LLaVA/llava/model' in t.primary.fix
    # the same package installed is a release question; a library's own checkout too
    assert _t(paste.replace("/home/LLaVA", "/usr/lib/python3.10/site-packages")).cause_id == \
        "env-version-too-old"
    assert _t("ImportError: cannot import name 'Qwen3Config' from 'transformers' (/home/me/"
              "transformers/src/transformers/__init__.py)").cause_id == "env-version-too-old"


def test_a_tokenizers_method_a_later_release_added() -> None:
    t = _t("AttributeError: 'tokenizers.Tokenizer' object has no attribute 'encode_batch_fast'")
    assert t.cause_id == "env-version-too-old" and '"tokenizers>=0.20.0"' in t.primary.fix
    # the release the paste states has it: not the upgrade to 0.20
    stated = _t("tokenizers==0.21.0\nAttributeError: 'tokenizers.Tokenizer' object has no "
                "attribute 'encode_batch_fast'")
    assert '"tokenizers>=0.20.0"' not in (stated.primary.fix if stated.primary else "")


def test_an_upgrade_the_reporter_found_fixes_it() -> None:
    paste = ("trl == 0.14.0 would get error: ImportError: cannot import name "
             "'selective_log_softmax'\nupgrade to 0.15.0 is ok.")
    result = _t(paste)
    assert result.cause_id == "env-version-too-old" and 'trl>=0.15.0' in result.primary.fix
    # asking whether an upgrade helps is no finding
    assert _t(paste.replace("upgrade to 0.15.0 is ok.", "should I upgrade to 0.15.0?")).cause_id \
        != "env-version-too-old"


def test_weights_saved_as_safetensors_that_the_search_leaves_out() -> None:
    msg = ("OSError: Error no file named pytorch_model.bin, tf_model.h5, model.ckpt.index or "
           "flax_model.msgpack found in directory ./ce-model")
    missing = _t(msg + "\nThe model is saved as `model.safetensors` in that folder.")
    assert missing.cause_id == "env-missing-package" and "pip install safetensors" in \
        missing.primary.fix
    # the same search over a folder of checkpoints: the folder's content is wrong
    assert _t(msg + "\nThe folder holds optimizer.pt and trainer_state.json.").cause_id == \
        "model-dir-missing-weights"


def test_a_lazy_module_without_spec_probed_by_another_package() -> None:
    result = _t('"ValueError: transformers.models.auto.__spec__ is None"')
    assert result.cause_id == "env-version-too-new" and "transformers" in result.primary.fix
    assert _t("ValueError: mypkg.utils.__spec__ is None").cause_id != "env-version-too-new"


def test_a_model_argument_transformers_renamed_in_4_0() -> None:
    unused = _t("ValueError: The following `model_kwargs` are not used by the model: ['past'] "
                "(note: typos in the generate arguments will also show up in this list)")
    assert unused.cause_id == "env-version-too-new"
    assert "4.0.0" in unused.primary.cause and "past_key_values" in unused.primary.fix
    typo = _t("ValueError: The following `model_kwargs` are not used by the model: "
              "['max_seq_length'] (note: typos in the generate arguments will also show up)")
    assert typo.cause_id == "generate-unused-kwargs"
    # reached through torch's module dispatch: torch is not the code that passes it
    forward = _t("Traceback (most recent call last):\n"
                 '  File "gen.py", line 9, in <module>\n    out = model(input_ids, past=past)\n'
                 f'  File "{SITE}/torch/nn/modules/module.py", line 1501, in _call_impl\n'
                 "    return forward_call(*args, **kwargs)\n"
                 "TypeError: forward() got an unexpected keyword argument 'past'")
    assert forward.cause_id == "env-version-too-new" and "(torch)" not in forward.primary.cause


def test_a_tokenizer_class_is_read_against_every_release() -> None:
    msg = "ValueError: Tokenizer class {} does not exist or is not currently imported."
    remote = _t(msg.format("BaiChuanTokenizer"))
    assert remote.cause_id == "trust-remote-code-required"
    assert "trust_remote_code=True" in remote.primary.fix
    stale = _t(msg.format("LLaMATokenizer"))
    assert stale.cause_id == "stale-tokenizer-class-name" and "LlamaTokenizer" in stale.primary.fix
    later = _t(msg.format("Qwen2TokenizerFast"))
    assert later.cause_id == "env-version-too-old" and "transformers>=4.37" in later.primary.fix


def test_a_module_imported_again_mid_import_is_no_release_question() -> None:
    msg = ("ImportError: cannot import name 'PeftModel' from partially initialized module 'peft' "
           "(most likely due to a circular import)")
    circular = _t(msg)
    assert circular.cause_id == "local-module-shadows-library"
    assert "import peft; print(peft.__file__)" in circular.primary.fix
    # the same name missing from a fully imported module is a release question
    assert _t("ImportError: cannot import name 'PeftModel' from 'peft'").cause_id != \
        "local-module-shadows-library"


def test_a_version_range_a_project_requires() -> None:
    result = _t("qwenvl2.5 must use the latest transformer version, but longlora.py requires "
                "transformers between 4.41.2 and 4.45.0, when will this be fixed?")
    assert result.cause_id == "env-version-too-old"
    assert 'transformers>=4.41.2,<4.45.0' in result.primary.fix


def test_a_message_that_asks_for_an_older_release() -> None:
    result = _t("RuntimeError: Tying encoder and decoder weights is not currently supported for "
                "transformers version >= 5.0.0. Please either install transformers<5.0.0 or "
                "create DenoisingAutoEncoderLoss with tie_encoder_decoder=False.")
    assert result.cause_id == "env-version-too-new"
    assert 'transformers<5.0.0' in result.primary.fix
    # installing a lower bound is no pin from above
    assert _t("I did pip install transformers>=4.30 and now: RuntimeError: CUDA error: "
              "device-side assert triggered").cause_id != "env-version-too-new"


def test_the_module_transformers_writes_for_remote_code_is_no_package() -> None:
    slash = _t("ModuleNotFoundError: No module named 'transformers_modules.THUDM/chatglm-6b'")
    assert slash.cause_id == "remote-code-module-name-invalid"
    gone = _t("ModuleNotFoundError: No module named 'transformers_modules.chatglm_6b'")
    assert gone.cause_id == "remote-code-module-missing" and "pip install" not in \
        gone.primary.fix


def test_a_class_method_of_another_release_of_an_untracked_library() -> None:
    code = ("from flair.models import TextClassifier\n"
            "classifier = TextClassifier.load_from_file('final-model.pt')\n")
    result = _t(code + "AttributeError: type object 'TextClassifier' has no attribute "
                "'load_from_file'")
    assert result.cause_id == "env-version-too-old" and "flair" in result.primary.cause
    # a class of the paste's own: the user's naming
    own = ("class TextClassifier:\n    pass\nTextClassifier.load_from_file('m.pt')\n"
           "AttributeError: type object 'TextClassifier' has no attribute 'load_from_file'")
    assert _t(own).cause_id != "env-version-too-old"


def test_an_architecture_vllm_does_not_know_yet() -> None:
    msg = ("ValueError: Model architectures ['InternLM2ForCausalLM'] are not supported for now. "
           "Supported architectures: ['LlamaForCausalLM', 'MistralForCausalLM']")
    assert _t(msg).cause_id == "env-version-too-old"
    # the real failure printed above it is an import
    assert _t("ImportError: libcudart.so.12: cannot open shared object file\n" + msg).cause_id \
        != "env-version-too-old"
    # a headless save
    assert _t(msg.replace("InternLM2ForCausalLM", "LlamaModel")).cause_id == \
        "vllm-architecture-not-loaded"


def test_chatglm_quantization_without_its_kernels() -> None:
    result = _t("NameError: name 'round_up' is not defined\nquantization_bit 4")
    assert result.cause_id == "env-missing-package" and "cpm_kernels" in result.primary.fix


def test_a_missing_submodule_of_a_package_that_imports_is_a_release_question() -> None:
    sub = _t("ModuleNotFoundError: No module named 'colossalai.accelerator'")
    assert sub.cause_id == "env-version-too-old" and "colossalai" in sub.primary.cause
    # the package itself missing is a package to install
    assert _t("ModuleNotFoundError: No module named 'colossalai'").cause_id == \
        "env-missing-package"
    # a namespace package's submodule is another distribution
    assert _t("ModuleNotFoundError: No module named 'google.protobuf'").cause_id == \
        "env-missing-package"
    # the package found is a folder of the user's (a clone run from its sources)
    clone = _t("Traceback (most recent call last):\n"
               '  File "/workspace/axolotl/src/axolotl/cli/train.py", line 9, in <module>\n'
               "    from axolotl.utils.validation import check\n"
               "ModuleNotFoundError: No module named 'axolotl.utils.validation'")
    assert clone.cause_id == "own-module-lacks-name"
    assert "git -C /workspace/axolotl/src/axolotl pull" in clone.primary.fix


def test_an_encoding_the_installed_tiktoken_does_not_know() -> None:
    result = _t("ValueError: Unknown encoding o200k_base. Plugins found: "
                "['tiktoken_ext.openai_public']")
    assert result.cause_id == "env-version-too-old" and "tiktoken" in result.primary.fix


def test_a_refined_cause_is_not_explained_with_the_signatures_other_reading() -> None:
    from wizard.api import check

    # no frame, no code reading it: a library reads another's object (a version question); the
    # signature's own reading ("your code reads a field the object lacks") would contradict it
    skew = "AttributeError: 'RemoteExperienceMaker' object has no attribute 'tokenizer'"
    m = _t(skew).primary
    assert m.cause_id == "env-version-too-old"
    assert "in your own code" not in m.explanation
    report = check({}, traceback=skew, device="cpu")
    known = next(f for f in report.findings if f.id == "triage.known-error")
    assert "Library code reads .tokenizer" in known.explanation
    assert "in your own code" not in known.explanation
    # control: the user's own line reads it, the signature's reading stands with its explanation
    own = ("Traceback (most recent call last):\n"
           '  File "train.py", line 9, in <module>\n    print(out.logitz)\n'
           "AttributeError: 'SequenceClassifierOutput' object has no attribute 'logitz'")
    m = _t(own).primary
    assert m.cause_id == "library-object-missing-attribute"
    assert "in your own code" in m.explanation


def test_a_file_named_like_the_package_lacking_a_name_every_release_has() -> None:
    shadow = ("ImportError: cannot import name 'load_dataset' from 'datasets' "
              "(/home/me/proj/datasets/__init__.py)")
    t = _t(shadow)
    assert t.cause_id == "local-module-shadows-library"
    assert "mv /home/me/proj/datasets my_datasets" in t.primary.fix
    script = ("ImportError: cannot import name 'pipeline' from 'transformers' "
              "(/content/transformers.py)")
    assert "mv /content/transformers.py my_transformers.py" in _t(script).primary.fix
    # controls: a name a release removed, or one added later (a copy of an older release, vendored
    # or installed with --target), is the version question; a relative location may be a
    # site-packages path cut short; a library's own src/ checkout is its release
    assert _t("ImportError: cannot import name 'AdamW' from 'transformers' "
              "(/home/me/proj/transformers/__init__.py)").cause_id == "env-version-too-new"
    assert _t("ImportError: cannot import name 'SFTConfig' from 'trl' "
              "(/home/me/proj/trl/__init__.py)").cause_id == "env-version-too-old"
    assert _t("ImportError: cannot import name 'load_dataset' from 'datasets' "
              "(datasets/__init__.py)").cause_id != "local-module-shadows-library"
    assert _t("ImportError: cannot import name 'load_dataset' from 'datasets' "
              "(/home/me/datasets/src/datasets/__init__.py)").cause_id != \
        "local-module-shadows-library"


def test_a_folder_named_like_the_package_holding_modules_no_release_had() -> None:
    paste = ('  File "datasets/process_reward_dataset.py", line 8, in <module>\n'
             "    from openrlhf.utils.utils import convert_token_to_id\n"
             "ImportError: cannot import name 'interleave_datasets' from 'datasets'")
    assert _t(paste).cause_id == "local-module-shadows-library"
    # controls: the installed package's own modules, wherever they are
    for path in (f"{SITE}/datasets/load.py", "/home/me/datasets/arrow_dataset.py"):
        other = (f'  File "{path}", line 8, in <module>\n'
                 "ImportError: cannot import name 'interleave_datasets' from 'datasets'")
        assert _t(other).cause_id == "env-version-too-old"


def test_a_fast_tokenizer_class_of_a_model_that_has_only_a_slow_one() -> None:
    t = _t("ValueError: Tokenizer class PhobertTokenizerFast does not exist or is not currently "
           "imported.")
    assert t.cause_id == "fast-tokenizer-class-unavailable" and "use_fast=False" in t.primary.fix
    # controls: a fast class transformers has (an older install), a class of the repository's
    # own code
    assert _t("ValueError: Tokenizer class BertTokenizerFast does not exist or is not currently "
              "imported.").cause_id == "env-version-too-old"
    assert _t("ValueError: Tokenizer class QWenTokenizer does not exist or is not currently "
              "imported.").cause_id == "trust-remote-code-required"


def test_auto_gptq_kernels_missing_however_the_message_is_quoted() -> None:
    paste = ('With AutoGPTQ it shows "CUDA extension not installed" or "name autogptq_cuda_256 '
             'not defined" errors')
    assert _t(paste).primary.signature.id == "env-autogptq-kernels-missing"
    # control: the words alone, without GPTQ, belong to other extensions
    assert _t("CUDA extension not installed.").primary is None


def test_a_package_installed_for_another_python_or_hidden_by_pip_build_isolation() -> None:
    build = ("pip install flash-attn\n  Getting requirements to build wheel ... error\n"
             "  ModuleNotFoundError: No module named 'torch'")
    t = _t(build)
    assert t.cause_id == "pip-build-isolation" and "--no-build-isolation" in t.primary.fix
    stated = _t("ModuleNotFoundError: No module named 'torch'\n\ntorch actually installed")
    assert stated.cause_id == "pip-and-python-different-environments"
    assert "another interpreter" in stated.primary.cause and "sys.executable" in stated.primary.fix
    # controls: nothing said about it, or said not installed: the plain missing package
    for paste in ("ModuleNotFoundError: No module named 'peft'",
                  "ModuleNotFoundError: No module named 'peft'\npeft is not installed"):
        t = _t(paste)
        assert t.cause_id == "env-missing-package" and "another interpreter" not in t.primary.cause


def test_a_traceback_flattened_onto_one_line() -> None:
    flat = ("Traceback (most recent call last): File \"train_ner.py\", line 49, in <module> "
            "main(sys.argv) File \"/root/ner/ner.py\", line 205, in evaluate "
            "names[self.tag_map[category]] = category IndexError: list assignment index out of "
            "range")
    p = parse_traceback(flat)
    assert p.exc_name == "IndexError" and [f.line for f in p.frames] == [49, 205]
    assert p.frames[-1].code == "names[self.tag_map[category]] = category"
    one = ("File \"train.py\", line 23, in <module> from transformers import "
           "DeformableDetrForObjectDetection ModuleNotFoundError: No module named 'transformers'")
    assert _t(one).cause_id == "env-missing-package"
    cell = 'File "/tmp/ipython-input-1.py", line 1, in <cell line: 0> x = 1 / 0 ZeroDivisionError: x'
    assert parse_traceback(cell).frames[0].code == "x = 1 / 0"
    # control: a traceback printed line by line stays as it is
    plain = parse_traceback('  File "train.py", line 23, in <module>\n    x = 1\nValueError: bad')
    assert plain.frames[0].code == "x = 1" and plain.exc_name == "ValueError"


def test_traceback_lines_in_inline_code_after_prose_or_below_their_exception() -> None:
    ticked = parse_traceback('Output:\n\n`File "/content/strhub/models/base.py", line 145, in agg\n'
                             '    acc = total_n_correct / total_size\nZeroDivisionError: '
                             'division by zero`')
    assert ticked.exc_name == "ZeroDivisionError" and ticked.message == "division by zero"
    assert [f.line for f in ticked.frames] == [145]
    one = parse_traceback('`File "Qwen-7B/tokenization_qwen.py", line 165, in _add_tokens  raise '
                          'ValueError("not supported")  ValueError: Adding unknown special tokens '
                          'is not supported`')
    assert one.exc_name == "ValueError" and one.frames[0].function == "_add_tokens"
    assert one.message == "Adding unknown special tokens is not supported"
    after = parse_traceback('why do I get [rank0]:   File "/x/xtuner/dispatch.py", line 261, in '
                            'check\n[rank0]:     assert V >= LOWEST[\n[rank0]: KeyError: '
                            "'BaichuanForCausalLM'")
    assert after.exc_name == "KeyError" and after.frames[0].function == "check"
    bare = parse_traceback('error : "/env/lib/python3.10/site-packages/bitsandbytes/nn/modules.py"'
                           ', line 254, in _load_from_state_dict\n    self.bias.data = b.to(d)\n'
                           "AttributeError: 'NoneType' object has no attribute 'to'")
    assert bare.frames[0].package == "bitsandbytes" and bare.exc_name == "AttributeError"
    above = parse_traceback('ValueError: zero-dimensional arrays cannot be concatenated\n'
                            '  File "/usr/lib/python3.6/dist-packages/transformers/trainer.py", '
                            'line 707, in _prediction_loop\n    preds = xm.mesh_reduce(p)\n')
    assert above.exc_name == "ValueError" and above.frames[0].package == "transformers"
    # controls: code in backticks stays; a message that goes on with its frames (TensorFlow's
    # graph errors, Keras' "in user code:") keeps them inside its message
    code = parse_traceback("ValueError: `x` must be set")
    assert code.message == "`x` must be set"
    # the error stated in inline code, then its traceback behind a fence glued with spaces
    stated = parse_traceback("I get this error:\n`ValueError: 'dac' is already used`\n\n```  File "
                             f'"{SITE}/parler_tts/modeling.py", line 64, in <module>\n'
                             '    AutoConfig.register("dac", DACConfig)\n'
                             "ValueError: 'dac' is already used```\n```")
    assert stated.frames and stated.frames[0].package == "parler_tts"
    # VS Code's two-line exception, then a frame in inline code
    vscode = parse_traceback("Exception has occurred: RuntimeError\ncuDNN version "
                             'incompatibility\n\n`File "/home/x/main.py", line 56, in <module>`\n'
                             "    `model = model.cuda()`\nHow to solve this?")
    assert vscode.exc_name == "RuntimeError" and vscode.message.startswith("cuDNN")
    # a log's own prefix before every frame is not the reporter's words
    log = parse_traceback('stderr:   File "/x/accelerate/accelerator.py", line 1151, in prep\n'
                          "stderr:     return self.prepare_model(obj)\nstderr: RuntimeError: "
                          "User specified an unsupported autocast device_type 'mps'")
    assert log.exc_name == "RuntimeError" and "autocast" in log.message
    graph = parse_traceback('InvalidArgumentError: Graph execution error:\n'
                            '  File "/x/train.py", line 3, in <module>\n    model.fit(ds)\n')
    assert graph.exc_name == "InvalidArgumentError" and not graph.frames


def test_a_circular_import_inside_an_installed_package_is_a_shadowing_file() -> None:
    msg = ("RuntimeError: Failed to import optimum.onnxruntime.modeling_ort because of the "
           "following error (look up to see its traceback):\ncannot import name 'export_models' "
           "from partially initialized module 'optimum.exporters.onnx' (most likely due to a "
           f"circular import) ({SITE}/optimum/exporters/onnx/__init__.py)")
    t = _t(msg)
    assert t.cause_id == "local-module-shadows-library" and "onnx.py" in t.primary.fix
    # control: the same name missing from a module that is not mid-import is a release question
    plain = _t("ImportError: cannot import name 'export_models' from 'optimum.exporters.onnx' "
               f"({SITE}/optimum/exporters/onnx/__init__.py)")
    assert plain.cause_id != "local-module-shadows-library"


def test_more_wordings_of_a_missing_or_outdated_package() -> None:
    assert _t("I get this error `The package optimum is required to use Better Transformer.`"
              ).cause_id == "env-missing-package"
    t = _t("Using `timm-0.3.2` is throwing `ImportError: cannot import name 'container_abcs'`. "
           "Upgrading to `timm-0.4.12` fixed it.")
    assert t.cause_id == "env-version-too-old" and "timm>=0.4.12" in t.primary.fix
    said = _t("AttributeError: module 'timm.data' has no attribute 'resolve_model_data_config' "
              "is raised because this function is only available in future versions of timm, "
              "not 0.6.12 as specified in the requirements.")
    assert said.cause_id == "env-version-too-old" and "0.6.12" in said.primary.cause
    # control: the same error of an untracked package, nothing said: no claim of a direction
    # (only the guess that some release differs)
    assert _t("AttributeError: module 'timm.data' has no attribute 'resolve_model_data_config'"
              ).cause_id == "env-version-mismatch"


def test_numpys_removed_names_read_from_its_wheels() -> None:
    bufsize = _t("ImportError: cannot import name 'BUFSIZE' from 'numpy' "
                 "(/root/env/lib/python3.10/site-packages/numpy/__init__.py)")
    assert bufsize.cause_id == "env-version-too-new" and "2.0.0" in bufsize.primary.cause
    trapz = _t("AttributeError: module 'numpy' has no attribute 'trapz'")
    assert "2.4.0" in trapz.primary.cause and "np.trapezoid" in trapz.primary.fix
    assert "1.24.0" in _t("AttributeError: module 'numpy' has no attribute 'float'").primary.cause
    # controls: numpy's bare names are common words elsewhere; a name numpy 2 still serves
    assert _t("TypeError: foo() got an unexpected keyword argument 'source'").cause_id not in \
        ("env-version-too-new", "env-version-too-old")
    assert _t("AttributeError: module 'numpy' has no attribute 'chararray'").cause_id != \
        "env-version-too-new"


def test_an_attribute_named_without_its_quotes() -> None:
    t = _t("Attribute Error: 'LoraModel' object has no attribute _get_submodules(). I suspect "
           "this might be because of latest changes in peft as previously it was working.")
    assert t.cause_id == "env-version-too-new" and "_get_submodules" in t.primary.cause


def test_a_pull_request_offered_does_not_outweigh_the_installation() -> None:
    paste = ("1. `ImportError: cannot import name 'BUFSIZE' from 'numpy' "
             "(/root/env/lib/python3.10/site-packages/numpy/__init__.py)`\n"
             "I was able to figure these out by changing a few versions of some dependencies, I "
             "will open a PR soon")
    assert _t(paste).cause_id == "env-version-too-new"
    # control: beside a user-error signature, the offered fix still points at the library
    assert _t("When you run the example with a custom tokenizer you get `CUDA runtime error (59) "
              ": device-side assert triggered`. I will open a PR to resize the embeddings."
              ).verdict == "possible-library-bug"


def test_tflite_flex_ops_and_legacy_packages_without_hub_ids() -> None:
    assert _t("RuntimeError: Regular TensorFlow ops are not supported by this interpreter. Make "
              "sure you apply/link the Flex delegate before inference.Node number 0 (FlexShape) "
              "failed to prepare.").cause_id == "tflite-select-tf-ops-needed"
    legacy = ("from pytorch_transformers.modeling_bert import BertModel\n"
              "BertModel.from_pretrained('aubmindlab/bert-base-arabertv01')\n"
              "OSError: file aubmindlab/bert-base-arabertv01 not found")
    t = _t(legacy)
    assert t.cause_id == "env-version-too-old" and "pip install -U transformers" in t.primary.fix
    # control: the same words without the legacy package are a missing file of another kind
    assert _t("OSError: file aubmindlab/bert-base-arabertv01 not found").cause_id != \
        "env-version-too-old"


def test_a_reinstall_that_did_not_help_is_another_environment() -> None:
    error = "ImportError: cannot import name 'Qwen2VLForConditionalGeneration' from 'transformers'"
    t = _t(error + "\npip install -U transformers\nstill the same error")
    assert t.cause_id == "pip-and-python-different-environments"
    # controls: nothing reinstalled (the release question); a pin below the release adding it
    assert _t(error).cause_id == "env-version-too-old"
    assert _t(error + "\npip install transformers==4.40.0\nstill the same error").cause_id == \
        "env-version-too-old"


def test_the_projects_own_package_run_from_inside_it() -> None:
    paste = ('  File "C:/Users/h/llama-models/models/llama3_1/scripts/example_chat_completion.py", '
             "line 14, in <module>\n    from models.llama3_1.api.datatypes import (\n"
             "ModuleNotFoundError: No module named 'models'")
    t = _t(paste)
    assert t.cause_id == "env-setup-step-skipped" and "PYTHONPATH=C:/Users/h/llama-models" in \
        t.primary.fix
    # control: the same module missing, run from elsewhere: a package to install
    assert _t("ModuleNotFoundError: No module named 'models'").cause_id == "env-missing-package"


def test_prose_wordings_of_memory_and_of_a_none_tokenizer() -> None:
    assert _t("I finetuned with 2 A100 cards and got error CUDA OOM.").cause_id == \
        "out-of-memory"
    t = _t("tokenizer = AlbertTokenizer.from_pretrained('Rostlab/prot_albert')\nand checking the "
           "type with type(tokenizer), it returns a NoneType object.")
    assert t.primary.signature.id == "env-sentencepiece-none"


def test_an_installed_command_line_tool_refusing_an_option() -> None:
    t = _t("there is an error, it says: \u201chelm-run: error: unrecognized arguments: "
           "--enable-huggingface-models stanford-crfm/BioMedLM\u201d")
    assert t.cause_id == "env-version-too-old" and "helm-run --help" in t.primary.fix
    # controls: a script's own arguments, and a project's module run with python -m
    assert _t("run_clm.py: error: unrecognized arguments: --foo 1").primary is None
    assert _t("python -m gpt2 train --iterations 10\n"
              "gpt2: error: unrecognized arguments: --iterations 10").primary is None


def test_a_fix_only_on_the_main_branch_and_a_skipped_download_step() -> None:
    main = ("You will get the error:\nConfigValidationError: labels str type expected\n"
            "```\npip install spacy-llm --upgrade\n```\nThis installs 0.2.0 but it does not add the "
            "change.\n\nInstalling from github resolves the issue.")
    t = _t(main)
    assert t.cause_id == "env-version-too-old" and "spacy-llm" in t.primary.fix
    # control: installing from GitHub that did not help is no such statement
    assert _t(main.replace("resolves the issue", "does not change anything")).cause_id != \
        "env-version-too-old"
    asked = _t("At TrainingArguments('test-trainer') the colab fails and asks to run pip install "
               "accelerate.")
    assert asked.cause_id == "env-missing-package" and "accelerate" in asked.primary.fix
    data = _t("OSError: Can't load config for '/root/.camel_tools/data/ner/arabert'. Make sure "
              "that:")
    assert data.cause_id == "env-setup-step-skipped"
    # controls: the Hugging Face cache and a folder of the user's are no library data folder
    for path in ("/root/.cache/huggingface/hub/x", "./my-model"):
        assert _t(f"OSError: Can't load config for '{path}'. Make sure that:").cause_id == \
            "local-file-missing"


def test_a_pip_installed_package_lacking_a_module_attribute_is_an_older_release() -> None:
    paste = ("```bash\n!pip install ray -q -U\n```\n```python\nimport ray\nfrom ray import tune\n"
             "all_trials = tune.run(tune_wrapper)\n```\n"
             "AttributeError: module 'ray.tune' has no attribute 'run'")
    t = _t(paste)
    assert t.cause_id == "env-version-too-old" and "pip install -U \"ray\"" in t.primary.fix
    # control: without a sign that the module is an installed package it may be the project's
    assert _t(paste.split("```python\n")[1]).cause_id != "env-version-too-old"


def test_the_reporter_saying_an_older_release_works_sets_the_direction() -> None:
    paste = ("pytorch: 0.4\ntorchtext: 0.3\n```\nTraceback (most recent call last):\n"
             '  File "preprocess.py", line 191, in main\n'
             "    fields = onmt.io.get_fields(opt.data_type, src_nfeats, tgt_nfeats)\n"
             "TypeError: __init__() got an unexpected keyword argument 'tensor_type'\n```\n"
             "But in torchtext 0.2.3, it works well.")
    t = _t(paste)
    assert t.cause_id == "env-version-too-new" and 'torchtext==0.2.3' in t.primary.fix
    said = _t("Running Torch version 1.8.1 raises:\ncannot import name 'save_state_warning' from "
              "'torch.optim.lr_scheduler'\nI downgraded PyTorch to 1.5.0 and it worked.")
    assert said.cause_id == "env-version-too-new" and '"torch==1.5.0"' in said.primary.fix
    # controls: a release that works but is newer than the one that ran is no downgrade; a
    # downgrade only suggested is no outcome
    newer = _t(paste.replace("torchtext: 0.3", "torchtext: 0.2")).primary
    assert newer is None or "0.2.3" not in newer.fix
    assert _t("AttributeError: module 'torch' has no attribute 'compile'\nseems it needs a "
              "downgrade to torch 1.13").primary.signature.id != "env-older-release-works"


def test_a_compiled_extension_of_a_package_that_was_never_built() -> None:
    paste = ("I have installed fairseq by pip install. When I run \"from fairseq import libnat\" "
             "it reports: ImportError: cannot import name 'libnat'..")
    t = _t(paste)
    assert t.cause_id == "env-setup-step-skipped" and "build_ext" in t.primary.fix
    # control: a Python name a package lacks stays a release question
    assert _t(paste.replace("libnat", "checkpoint_utils")).cause_id != "env-setup-step-skipped"


def test_a_package_registering_a_model_type_transformers_now_ships() -> None:
    frames = (f'  File "{SITE}/parler_tts/modeling_parler_tts.py", line 64, in <module>\n'
              '    AutoConfig.register("dac", DACConfig)\n'
              f'  File "{SITE}/transformers/models/auto/configuration_auto.py", line 737, in '
              "register\n")
    error = "ValueError: 'dac' is already used by a Transformers config, pick another name."
    t = _t("Traceback (most recent call last):\n" + frames + error)
    assert t.cause_id == "env-version-too-new" and "pip install -U parler-tts" in t.primary.fix
    # control: the user's own config registered under a taken name is theirs to rename
    own = _t('Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n'
             '    AutoConfig.register("dac", MyConfig)\n' + frames.split("\n", 2)[2] + error)
    assert own.cause_id == "model-type-name-taken"


def test_an_argument_or_name_no_rule_knows_is_guessed_a_release_question() -> None:
    paste = ("When I install the latest OpenNMT-py and pip install -r requirements.txt I get:\n"
             "Traceback (most recent call last):\n"
             '  File "OpenNMT-py/onmt/io/TextDataset.py", line 231, in get_fields\n'
             "    postprocessing=make_src, sequential=False)\n"
             "TypeError: __init__() got an unexpected keyword argument 'tensor_type'")
    t = _t(paste)
    assert t.cause_id == "env-version-mismatch" and t.primary.guess
    attr = _t("For the section with optuna: AttributeError: module 'ray.train' has no attribute "
              "'RunConfig'")
    assert attr.cause_id == "env-version-mismatch"
    # controls: the paste's own function, and a module of the user's own project
    own = paste + "\n\ndef __init__(self, text, postprocessing=None):\n    pass"
    assert _t(own).cause_id != "env-version-mismatch"
    mine = _t('Traceback (most recent call last):\n  File "/home/me/proj/helpers/io.py", line 3, '
              "in <module>\n    helpers.load()\nAttributeError: module 'helpers' has no "
              "attribute 'load'")
    assert mine.cause_id != "env-version-mismatch"
    # a rule that knows the case answers instead of the guess
    known = _t("TypeError: TrainingArguments.__init__() got an unexpected keyword argument "
               "'evaluation_strategy'")
    assert known.cause_id == "env-version-too-new"


def test_an_integration_split_out_into_its_own_package() -> None:
    t = _t("ModuleNotFoundError: No module named 'llama_index.llms.huggingface'")
    assert t.cause_id == "env-missing-package" and \
        "pip install llama-index-llms-huggingface" in t.primary.fix
    # control: the core package's own modules are no integration
    assert "llama-index-core" not in (_t("ModuleNotFoundError: No module named "
                                         "'llama_index.core.indices'").primary.fix or "")


def test_runtimes_configs_and_caches_that_hold_other_files_than_expected() -> None:
    onnx = _t('Error: Could not locate file: "https://huggingface.co/Upstage/SOLAR-10.7B-Instruct-'
              'v1.0/resolve/main/onnx/decoder_model_merged_quantized.onnx".')
    assert onnx.cause_id == "repo-missing-onnx-weights" and "optimum-cli export onnx" in \
        onnx.primary.fix
    # control: another file a runtime cannot find is no ONNX export question
    assert _t('Error: Could not locate file: "https://huggingface.co/x/y/resolve/main/'
              'tokenizer.json".').cause_id != "repo-missing-onnx-weights"
    config = _t("ImportError: There is no such class as speechbrain.lobes.models.transformer."
                "TransformerASR.EncoderWrapper")
    assert config.cause_id == "env-version-too-old" and "speechbrain" in config.primary.fix
    hub = ("torch.hub.load('pyannote/pyannote-audio', 'dia') failed with:\n"
           "ImportError: cannot import name 'Pretrained' from 'pyannote.audio.features'\n"
           "Using cache found in /Users/abc/.cache/torch/hub/pyannote_pyannote-audio_master")
    t = _t(hub)
    assert t.cause_id == "stale-torch-hub-cache" and "force_reload=True" in t.primary.fix
    # control: without the cached copy it is the import question it looks like
    assert _t(hub.rsplit("\n", 1)[0]).cause_id != "stale-torch-hub-cache"


def test_checkpoints_of_a_wrapped_model_of_another_format_or_cut() -> None:
    dp = _t('    model_ft.load_state_dict(checkpoint["state_dict"])\n'
            "KeyError: 'unexpected key \"module.model.0.0.weight\" in state_dict'")
    assert dp.cause_id == "state-dict-key-prefix" and "removeprefix('module.')" in dp.primary.fix
    compiled = _t("RuntimeError: Error(s) in loading state_dict for GPT:\n\tMissing key(s) in "
                  'state_dict: "wte.weight".\n\tUnexpected key(s) in state_dict: '
                  '"_orig_mod.wte.weight".')
    assert compiled.cause_id == "compiled-state-dict-prefix" and \
        "torch.compile" in compiled.primary.cause
    # control: keys that differ otherwise are no wrapper's prefix
    assert _t("RuntimeError: Error(s) in loading state_dict for GPT:\n\tUnexpected key(s) in "
              'state_dict: "lm_head.bias".').cause_id != "state-dict-key-prefix"
    zipped = _t("RuntimeError: ./checkpoints/wild_gt_tcc.pth is a zip archive (did you mean to use "
                "torch.jit.load()?)")
    assert zipped.cause_id == "env-version-too-old" and "torch>=1.6" in zipped.primary.fix
    cut = _t("loading the 14b model stops half way: Error while deserializing header: "
             "MetadataIncompleteBuffer")
    assert cut.cause_id == "incomplete-model-download"


def test_a_keras_model_file_saved_by_another_release() -> None:
    paste = ("from keras.models import load_model\nmodel = load_model('keras_model.h5')\n"
             "TypeError: __init__() got an unexpected keyword argument 'ragged'")
    t = _t(paste)
    assert t.cause_id == "env-version-too-old"
    assert t.primary.signature.id == "env-keras-file-from-other-release"
    # the same words from a constructor call of the user's own are not a saved file's
    assert _t("layer = MyLayer(units=3, ragged=True)\nTypeError: __init__() got an unexpected "
              "keyword argument 'ragged'").primary.signature.id != \
        "env-keras-file-from-other-release"


def test_keras_3_running_a_lambda_written_for_keras_2() -> None:
    t = _t("tensorflow_version=2.19\nfeatures = Lambda(lambda x: K.expand_dims(x, axis=-1))(f)\n"
           "We could not automatically infer the shape of the Lambda's output. Please specify "
           "the `output_shape` argument for this Lambda layer.")
    assert t.cause_id == "env-version-too-new" and "keras import ops" in t.primary.fix


def test_an_installed_tool_leaving_an_option_it_does_not_know() -> None:
    paste = ("[rank0]: ValueError: remaining_argv: ['--mcore_adapters', 'out/v1']\n\n"
             "swift export \\\n    --model Qwen2.5-14B-Instruct \\\n    --mcore_adapters out/v1")
    t = _t(paste)
    assert t.cause_id == "env-version-too-old" and "ms-swift" in t.primary.fix
    # a project's own script: its own arguments, not a release
    assert _t(paste.replace("swift export", "python export.py")).cause_id != \
        "env-version-too-old"


def test_deepspeed_refusing_no_sync_under_zero() -> None:
    t = _t("AssertionError: no_sync context manager is incompatible with gradient partitioning "
           "logic of ZeRO stage 2")
    assert t.cause_id == "env-version-too-new" and "deepspeed<0.16" in t.primary.fix


def test_timm_without_a_model_of_that_name() -> None:
    t = _t("m = timm.create_model('convnext_pico', pretrained=True)\n"
           "RuntimeError: Unknown model (convnext_pico)")
    assert t.cause_id == "env-version-too-old" and "list_models" in t.primary.fix


def test_a_tokenizer_method_a_later_release_added() -> None:
    paste = (">>> inputs = tokenizer.apply_chat_template(messages, return_tensors='pt')\n"
             "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n"
             "AttributeError: 'LlamaTokenizerFast' object has no attribute 'apply_chat_template'")
    t = _t(paste)
    assert t.cause_id == "env-version-too-old" and "transformers" in t.primary.fix
    # a tokenizer of the tokenizers library is not a transformers tokenizer
    assert _t(paste.replace("LlamaTokenizerFast", "BertWordPieceTokenizer")).cause_id != \
        "env-version-too-old"


def test_a_transformers_placeholder_class_without_from_pretrained() -> None:
    t = _t("processor = Speech2TextProcessor.from_pretrained('facebook/s2t-small-librispeech-asr')"
           "\nAttributeError: type object 'Speech2TextProcessor' has no attribute "
           "'from_pretrained'")
    assert t.cause_id == "env-missing-package" and "sentencepiece" in t.primary.fix


def test_tiktoken_older_than_a_model_name() -> None:
    t = _t("KeyError: 'Could not automatically map gpt-4 to a tokeniser. Please use "
           "`tiktok.get_encoding` to explicitly get the tokeniser you expect.'")
    assert t.cause_id == "env-version-too-old" and "pip install -U tiktoken" in t.primary.fix


def test_a_tf_model_called_with_the_old_first_argument_name() -> None:
    paste = ("model = TFXLNetModel.from_pretrained('Rostlab/prot_xlnet')\n"
             "embedding, memory = model(inputs=input_ids, attention_mask=attention_mask)\n"
             "ValueError: The first argument to `Layer.call` must always be passed")
    assert _t(paste).cause_id == "env-version-too-new"
    assert _t(paste.replace("inputs=input_ids", "x")).cause_id != "env-version-too-new"


def test_the_projects_own_package_run_from_inside_its_folder() -> None:
    paste = ("python squad/build_squad_dataset.py\nTraceback (most recent call last):\n"
             '  File "squad/build_squad_dataset.py", line 10, in <module>\n'
             "    from docqa import config\nModuleNotFoundError: No module named 'docqa'\n"
             "(env) me@box:~/projects/document-qa-master/docqa$ ")
    t = _t(paste)
    assert t.cause_id == "env-setup-step-skipped" and "~/projects/document-qa-master" in t.primary.fix
    # a prompt elsewhere leaves the missing package a package to install
    assert _t(paste.replace("/docqa$", "/other$")).cause_id == "env-missing-package"


def test_a_keyword_keras_does_not_know_in_the_users_own_layer_is_no_saved_file() -> None:
    own = ("x = tf.keras.layers.Dense(3, activaton='relu')(x)\n"
           "TypeError: ('Keyword argument not understood:', 'activaton')")
    assert _t(own).primary is None or \
        _t(own).primary.signature.id != "env-keras-file-from-other-release"
    saved = "model = tf.keras.models.load_model('model.keras')\n" + own.split("\n", 1)[1]
    assert _t(saved).primary.signature.id == "env-keras-file-from-other-release"


def test_a_keras_model_of_ones_own_called_with_another_first_name_is_no_release() -> None:
    own = ("out = my_model(inputs=x)\n"
           "ValueError: The first argument to `Layer.call` must always be passed")
    assert _t(own).cause_id != "env-version-too-new"


def test_a_class_of_ones_own_without_from_pretrained_is_no_placeholder() -> None:
    own = ("class SpeechModel(nn.Module):\n    ...\nmodel = SpeechModel.from_pretrained('x')\n"
           "AttributeError: type object 'SpeechModel' has no attribute 'from_pretrained'")
    assert _t(own).cause_id != "env-missing-package"


def test_a_processor_class_the_installed_transformers_lacks() -> None:
    known = _t("ValueError: Could not find Qwen2VLVideoProcessor neither in <module "
               "'transformers.models.qwen2_vl'> nor in <module 'transformers'>!")
    assert known.cause_id == "env-version-too-old" and "transformers>=4.52" in known.primary.fix
    # a name no release has: a release question, direction unknown
    unknown = _t("ValueError: Could not find Qwen9VLVideoProcessor neither in <module "
                 "'transformers.models.qwen9_vl'> nor in <module 'transformers'>!")
    assert unknown.cause_id == "env-version-mismatch"


def test_vllm_without_lora_for_an_architecture() -> None:
    t = _t("ValueError: Gemma4ForConditionalGeneration does not support LoRA yet.")
    assert t.cause_id == "env-version-too-old" and "pip install -U vllm" in t.primary.fix
    # LoRA settings refused for another reason are not this
    assert _t("ValueError: max_loras (4) must be <= max_num_seqs (2)").cause_id != \
        "env-version-too-old"


_OWN_IMPORT = """---------------------------------------------------------------------------
ImportError                               Traceback (most recent call last)
Cell In[10], line 14
---> 14 from timm.models.layers import trunc_normal_, DropPath

File /opt/conda/lib/python3.10/site-packages/timm/models/layers/__init__.py:40
---> 40 from timm.layers.space_to_depth import SpaceToDepthModule

ImportError: cannot import name 'SpaceToDepthModule' from 'timm.layers.space_to_depth' \
(/opt/conda/lib/python3.10/site-packages/timm/layers/space_to_depth.py)"""


def test_a_package_whose_own_code_cannot_import_its_own_name() -> None:
    # IPython 8 prints a module-level frame without ", in <module>": it is still a frame
    t = _t(_OWN_IMPORT)
    assert [f.package for f in t.parsed.frames][-1] == "timm"
    assert t.cause_id == "env-restart-runtime" and "restart" in t.primary.fix.lower()
    # the same outside a notebook: an install that mixes two releases
    script = ('Traceback (most recent call last):\n  File "train.py", line 14, in <module>\n'
              "    from timm.models.layers import trunc_normal_\n  File \"/usr/lib/python3.10/"
              "site-packages/timm/models/layers/__init__.py\", line 40, in <module>\n"
              "    from timm.layers.space_to_depth import SpaceToDepthModule\nImportError: "
              "cannot import name 'SpaceToDepthModule' from 'timm.layers.space_to_depth'")
    assert _t(script).cause_id == "broken-package-install"
    # the user's own import of a name the installed release lacks stays a release question
    user = _t("  File \"train.py\", line 3, in <module>\n    from timm.layers import Foo\n"
              "ImportError: cannot import name 'Foo' from 'timm.layers'")
    assert user.cause_id not in ("env-restart-runtime", "broken-package-install")


def test_frames_in_pytest_and_cut_python_forms() -> None:
    """pytest's CI tracebacks ("pkg/mod.py:28: in <module>", "E   Error") and a header whose
    function name the copy lost ('line 222, in') are frames like any other."""
    pytest_log = (f"{SITE}/tensorflow_text/python/ops/bert_tokenizer.py:28: in <module>\n"
                  "    from tensorflow_text.python.ops import regex_split_ops\n"
                  f"{SITE}/tensorflow/python/framework/load_library.py:54: in load_op_library\n"
                  "    lib_handle = py_tf.TF_LoadLibrary(library_filename)\n"
                  "E   tensorflow.python.framework.errors_impl.NotFoundError: undefined symbol")
    p = parse_traceback(pytest_log)
    assert [f.package for f in p.frames] == ["tensorflow_text", "tensorflow"]
    assert p.exc_name == "NotFoundError"
    cut = parse_traceback('  File "main.py", line 222, in\n  File "models/model.py", line 425, '
                          "in evaluate\nTypeError: wer() got an unexpected keyword argument "
                          "'standardize'")
    assert len(cut.frames) == 2 and cut.exc_name == "TypeError"


def test_the_error_a_paste_states_before_its_traceback_or_before_prose() -> None:
    # a report opening with the error line, then the traceback without it
    opened = parse_traceback("TypeError: GRPOTrainer._get_train_sampler() takes 1 positional "
                             "argument but 2 were given\n\nHello, thanks for the repository.\n"
                             "Traceback (most recent call last):\n  File \"train.py\", line 9, "
                             "in <module>\n    trainer.train()\n")
    assert opened.exc_name == "TypeError" and len(opened.frames) == 1
    # "During handling ..." followed by the reporter's prose, not a second exception
    chained = parse_traceback("Traceback (most recent call last):\n  File \"hub.py\", line 27, "
                              "in <module>\n    from subword_nmt import apply_bpe\n"
                              "ModuleNotFoundError: No module named 'subword_nmt'\n\nDuring "
                              "handling of the above exception, another exception occurred:\n"
                              "Also would you mind adding hub command into CI?")
    assert chained.exc_name == "ModuleNotFoundError"


def test_frames_of_a_librarys_source_checkout_are_library_frames() -> None:
    from wizard.triage.frames import classify_path
    assert classify_path("/home/me/trl/trl/trainer/dpo_trainer.py") == ("library", "trl")
    assert classify_path("/w/peft/src/peft/tuners/lora.py") == ("library", "peft")
    # a metric's or a dataset's script that datasets / evaluate fetched into their cache
    assert classify_path("~/.cache/huggingface/modules/datasets_modules/metrics/seqeval/78a9/"
                         "seqeval.py") == ("library", "datasets")
    assert classify_path("/root/.cache/huggingface/modules/evaluate_modules/metrics/"
                         "evaluate-metric--rouge/1a2b/rouge.py") == ("library", "evaluate")
    # a project laid out like a package of its own name is the user's
    assert classify_path("/home/me/proj/proj/train.py") == ("user", None)


def test_tensorflow_built_for_another_cuda_than_the_one_stated() -> None:
    report = ("- OS Platform and Distribution: Ubuntu 18.04\n- TensorFlow version: 2.1.0\n"
              "- CUDA/cuDNN version: 10.2.89\n\nWhen I run `tf.config.list_physical_devices(None)` "
              "I get\n\n`[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]`\n")
    t = _t(report)
    assert t.cause_id == "env-binary-incompatible"
    assert "CUDA 10.1" in t.primary.cause and "cudatoolkit=10.1" in t.primary.fix
    # the CUDA it is built against, a CUDA 11 beside a CUDA 11 build (minor-version
    # compatibility), or only the driver's CUDA from nvidia-smi: no such finding
    for healthy in (report.replace("10.2.89", "10.1.243"),
                    report.replace("2.1.0", "2.6.0").replace("10.2.89", "11.4"),
                    report.replace("- CUDA/cuDNN version: 10.2.89", "| NVIDIA-SMI 525.60 "
                                   "Driver Version: 525.60 CUDA Version: 12.0 |"),
                    report.replace("- CUDA/cuDNN version: 10.2.89", "torch.version.cuda: 11.8")):
        assert "tf-built-for-other-cuda" not in {m.signature.id for m in _t(healthy).matches}
    # the loader's own complaint with the same versions: the mismatch, not a missing package
    loader = ("TensorFlow 2.4.1, CUDA 10.2\nW tensorflow/stream_executor/platform/default/"
              "dso_loader.cc:60] Could not load dynamic library 'libcudart.so.11.0'; dlerror: "
              "libcudart.so.11.0: cannot open shared object file")
    t = _t(loader)
    assert t.cause_id == "env-binary-incompatible" and "built against CUDA 11.0" in t.primary.cause
    assert "built against CUDA" not in _t(loader.replace("CUDA 10.2", "")).primary.cause


def test_tensorflow_from_2_11_on_windows_in_the_issue_template() -> None:
    report = ("### Tensorflow Version\n\n2.11.0\n\n### OS Platform and Distribution\n\n"
              "Windows 11\n\n### CUDA/cuDNN version\n\n11.6/8.6\n\n```shell\nimport tensorflow "
              "as tf\nprint(tf.test.is_build_with_cuda()) #  false is returned\n"
              "tf.config.list_physical_devices('GPU') # [] is returned\n```")
    t = _t(report)
    assert t.cause_id == "tf-gpu-unsupported-on-native-windows" and "WSL2" in t.primary.fix
    assert _t(report.replace("2.11.0", "2.10.0")).cause_id != "tf-gpu-unsupported-on-native-windows"


def test_tensorflow_from_2_14_on_linux_without_a_gpu_needs_its_cuda_packages() -> None:
    report = ("### TensorFlow version\n\nTF 2.16.1\n\n### OS platform and distribution\n\n"
              "Linux Ubuntu 22.04.4 LTS\n\n### Current behavior?\n\nI installed TF with: pip "
              "install tensorflow\nWhen I run tf.config.list_physical_devices('GPU')\nI get an "
              "empty list  [ ]\n")
    t = _t(report)
    assert (t.primary.signature.id, t.cause_id) == ("tf-cuda-extras-not-found",
                                                    "env-setup-step-skipped")
    assert 'tensorflow[and-cuda]' in t.primary.fix and "skipped them" in t.primary.cause
    extras = _t(report.replace("pip install tensorflow", "pip install tensorflow[and-cuda]"))
    assert "LD_LIBRARY_PATH" in extras.primary.cause
    # controls: a release that loads the system CUDA, native Windows, no release stated
    for other in (report.replace("TF 2.16.1", "TF 2.12.0"),
                  report.replace("Linux Ubuntu 22.04.4 LTS", "Windows 11"),
                  report.replace("TF 2.16.1", "")):
        ids = {m.signature.id for m in _t(other).matches}
        assert "tf-cuda-extras-not-found" not in ids


def test_a_datasets_builder_newer_than_the_installed_release() -> None:
    error = ("FileNotFoundError: Couldn't find a dataset script at /kaggle/working/audiofolder/"
             "audiofolder.py or any data file in the same directory. Couldn't find 'audiofolder' "
             "on the Hugging Face Hub either\n")
    old = _t(error + "- `datasets` version: 2.1.0")
    assert old.cause_id == "env-version-too-old" and '"datasets>=2.5' in old.primary.fix
    # a release that has the builder, a name that is no builder, or one every release had
    for other in (error + "- `datasets` version: 2.14.0", error.replace("audiofolder", "my_data"),
                  error.replace("audiofolder", "csv")):
        ids = {m.signature.id for m in _t(other).matches}
        assert "env-dataset-builder-newer" not in ids


def test_an_mp3_that_an_old_libsndfile_cannot_read() -> None:
    error = "RuntimeError: Error opening '000/000002.mp3': Format not recognised."
    t = _t("data, sr = soundfile.read(path)\n" + error)
    assert t.cause_id == "env-version-too-old" and "soundfile>=0.12" in t.primary.fix
    # a .wav it cannot read is another matter (a broken or mislabelled file)
    assert _t(error.replace(".mp3", ".wav")).cause_id != "env-version-too-old"


def test_windows_system_runtime_and_setup_steps_of_their_own() -> None:
    dll = ('ERROR    Could not load torch: [WinError 126] The specified module could not be found. '
           'Error loading\n    "P:\\AI\\venv\\lib\\site-packages\\torch\\lib\\fbgemm.dll" or one '
           "of its dependencies.")
    t = _t(dll)
    assert t.primary.signature.id == "system-runtime-library-missing" and "VCRedist" in \
        t.primary.fix
    # control: a DLL of another package is not torch's runtime
    other = _t(dll.replace("fbgemm.dll", "mylib.dll"))
    assert "system-runtime-library-missing" not in {m.signature.id for m in other.matches}
    unidic = ("default dictionary path: /u/venv/lib/python3.10/site-packages/unidic/dicdir\n"
              "[ifs] no such file or directory: /u/venv/lib/python3.10/site-packages/unidic/"
              "dicdir/mecabrc")
    t = _t(unidic)
    assert t.cause_id == "env-setup-step-skipped" and "python -m unidic download" in t.primary.fix


def test_a_wheel_for_another_python_names_that_python() -> None:
    t = _t("ERROR: torch_xla-2.0-cp39-cp39-linux_x86_64.whl is not a supported wheel on this "
           "platform.")
    assert t.cause_id == "no-wheel-for-python-version" and "Python 3.9" in t.primary.cause
    # without a CPython tag it is the platform
    t = _t("ERROR: mypkg-1.0-py3-none-win_amd64.whl is not a supported wheel on this platform.")
    assert t.cause_id == "no-wheel-for-platform"
