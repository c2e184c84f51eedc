"""Reasoning rules learned from the later rounds of real reports: who reads what (one library
reading another's object, a library reaching for another package's private name or its own
private attribute, a library's own Keras model), what the reporter says fixed it, how pastes are
cut and decorated, and which release had a name. Each rule with the paste it answers and a
control it must leave alone."""
from __future__ import annotations

from wizard.triage.match import probe_triage, triage
from wizard.triage.parse import parse_traceback
from wizard.triage.versions import paste_versions, pastes_from_elsewhere

SITE = "/usr/local/lib/python3.10/dist-packages"


def _t(paste: str):
    with pastes_from_elsewhere():
        return triage(paste)


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
    # a companion package of the same project out of step: upgrade both, a version answer
    pair = ("from unsloth import FastLanguageModel\nImportError: cannot import name "
            "'_unsloth_get_batch_samples' from 'unsloth_zoo.loss_utils'")
    assert _t(pair).cause_id == "env-version-too-old"


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


def test_a_name_the_users_code_never_imported() -> None:
    paste = ("----> 1 word_embedding_model = models.BERT('bert-base-uncased')\n"
             "NameError: name 'models' is not defined")
    t = _t(paste)
    assert t.cause_id == "missing-import"
    assert t.primary.fix.startswith("from sentence_transformers import models")
    imported = "from sentence_transformers import models\n" + paste
    assert _t(imported).cause_id != "missing-import"
    # raised in library code: not the user's import
    lib = ("Traceback (most recent call last):\n"
           f'  File "{SITE}/somelib/core.py", line 3, in run\n    return helper(x)\n'
           "NameError: name 'helper' is not defined")
    assert _t(lib).cause_id != "missing-import"


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


def test_blame_written_before_a_link_to_the_librarys_source() -> None:
    paste = ("`ds.map(f, remove_columns=['i'])` on an IterableDataset returns [{}, {}].\n"
             "The issue seems to be [here](https://github.com/huggingface/datasets/blob/6c6a82a/"
             "src/datasets/iterable_dataset.py#L1093): the columns are removed after the mapping.")
    assert _t(paste).cause_id == "library-bug"
    link_only = ("See https://github.com/huggingface/datasets/blob/6c6a82a/src/datasets/"
                 "iterable_dataset.py#L1093 for the map I use.")
    assert _t(link_only).cause_id != "library-bug"


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


def test_a_pull_request_the_reporter_says_led_to_the_failure() -> None:
    paste = ("torch 1.13 + transformers 4.39.0\n`torch.optim.LRScheduler` was only exposed in torch "
             "2. This recent PR included in 4.39.0 imports it and lead to a hard requirement on "
             "torch 2:\n- https://github.com/huggingface/transformers/pull/29588")
    assert _t(paste).cause_id == "library-bug"
    asked = ("torch 1.13 + transformers 4.39.0\nWill this PR lead to a new release soon?\n"
             "- https://github.com/huggingface/transformers/pull/29588")
    assert _t(asked).cause_id != "library-bug"


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


def test_a_tensorflow_checkpoint_of_another_shape() -> None:
    t = _t("InvalidArgumentError (see above for traceback): Assign requires shapes of both tensors "
           "to match. lhs shape= [1811,128] rhs shape= [23,128]")
    assert t.cause_id == "stale-checkpoint-in-output-dir" and "output_dir" in t.primary.fix


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


def test_setfit_creating_a_head_for_a_sentence_transformer_is_expected() -> None:
    note = ("model_head.pkl not found on HuggingFace Hub, initialising classification head with "
            "random weights. You should TRAIN this model on a downstream task to use it for "
            "predictions and inference.")
    with pastes_from_elsewhere():
        assert triage(note).cause_id == "newly-initialized-head"
        # an error after it is the answer, not the note
        assert triage(note + "\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"
                      ).cause_id == "out-of-memory"


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
        # control: the user's own code reading the attribute is answered as their code
        own = triage("print(tok.batch_encode_plus)\nAttributeError: BertTokenizer has no "
                     "attribute batch_encode_plus")
        assert not own.cause_id.startswith("env-")


def test_a_file_missing_from_the_local_cache_offline_is_the_hub_unreachable() -> None:
    offline = ("requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', "
               "port=443): Max retries exceeded with url: /x/y/resolve/main/config.json (Caused "
               "by NewConnectionError('Failed to establish a new connection: [Errno 101] Network "
               "is unreachable'))\n\n"
               "huggingface_hub.utils._errors.LocalEntryNotFoundError: An error happened while "
               "trying to locate the file on the Hub and we cannot find the requested files in "
               "the local cache.")
    assert _t(offline).cause_id == "hub-unreachable"
    # the Hub answered: that file is not in the repository
    missing = ("huggingface_hub.utils._errors.EntryNotFoundError: 404 Client Error. Entry Not "
               "Found for url: https://huggingface.co/x/y/resolve/main/tokenizer.json.")
    assert _t(missing).cause_id == "hub-file-not-in-repo"


def test_a_message_in_markdown_bold_inside_a_sentence_is_read() -> None:
    paste = ("It actually complains about **Unknown layer: TokenEmbedding**\n```\n"
             "model = load_model('saved_model.h5')\n```")
    assert _t(paste).cause_id == "keras-custom-objects-on-load"
    # `**kwargs` in a frame's code is code, not emphasis
    kw = parse_traceback('Traceback (most recent call last):\n  File "a.py", line 3, in f\n'
                         "    g(**kwargs, **extra)\nTypeError: g() got multiple values for "
                         "keyword argument 'x'")
    assert kw.frames[0].code == "g(**kwargs, **extra)"


def test_a_library_calling_its_own_class_by_its_package_name_with_a_wrong_argument() -> None:
    paste = (f'File "{SITE}/sillm/dpo.py", line 97, in <module>\n'
             "    template = sillm.Template(model.tokenizer, template=args.template)\n"
             "TypeError: Template.__init__() got an unexpected keyword argument 'template'")
    t = _t(paste)
    assert t.cause_id == "library-bug" and t.bug.package == "sillm"
    # the user's own call of the class: a question of the user's code or release, not a bug
    user = paste.replace(f"{SITE}/sillm/dpo.py", "/home/me/dpo.py")
    assert _t(user).bug is None


def test_errors_pasted_one_after_another_without_their_headers_are_separate() -> None:
    first = ('File "/home/me/run.py", line 3, in <module>\n    import missing_mod\n'
             "ModuleNotFoundError: No module named 'missing_mod'\n\nthen, after installing it:\n\n")
    second = ('File "/home/me/run.py", line 9, in <module>\n    x = model(batch)\n'
              "IndexError: Target 5 is out of bounds.")
    p = parse_traceback(first + second)
    assert p.exc_name == "IndexError" and "Target 5" in p.message
    assert "missing_mod" not in p.message and p.chain[-1].exc_type == "ModuleNotFoundError"
    # a message that continues on an indented frame-like line stays one error
    one = parse_traceback('File "/home/me/run.py", line 3, in <module>\n    f()\n'
                          'ValueError: bad value\n  File "cfg.yaml", line 2\n')
    assert not one.chain and one.exc_name == "ValueError"


def test_a_configuration_pydantic_rejects_names_the_field_and_its_fault() -> None:
    head = "pydantic_core._pydantic_core.ValidationError: 1 validation error for AxolotlConfig\n"
    wrong = _t(head + "pretraining_dataset\n  Input should be a valid list [type=list_type, "
                      "input_value={'path': 'c4'}, input_type=dict]")
    assert wrong.cause_id == "config-field-wrong-type"
    assert "pretraining_dataset" in wrong.primary.cause and "valid list" in wrong.primary.cause
    unknown = _t("pydantic.error_wrappers.ValidationError: 1 validation error for TrainConfig\n"
                 "lora_alpah\n  extra fields not permitted (type=value_error.extra)")
    assert unknown.cause_id == "config-field-unknown" and "lora_alpah" in unknown.primary.cause
    missing = _t(head + "base_model\n  Field required [type=missing, input_value={}, "
                        "input_type=dict]")
    assert missing.cause_id == "config-field-missing"
    # a validation error without pydantic's field report is not read as a configuration's
    assert _t("ValidationError: the dataset failed validation").cause_id != \
        "config-field-wrong-type"


def test_momentum_cycled_on_an_optimizer_without_it() -> None:
    keras = _t("learner.fit_onecycle(1e-4, 3)\n"
               "AttributeError: 'RMSprop' object has no attribute 'beta_1'")
    assert keras.cause_id == "optimizer-lacks-cycled-momentum"
    torch = _t("ValueError: optimizer must support momentum or beta1 with `cycle_momentum` "
               "option enabled")
    assert torch.cause_id == "optimizer-lacks-cycled-momentum"
    # an optimizer lacking its own hyperparameter is something else (a release, a wrapper)
    assert _t("AttributeError: 'SGD' object has no attribute 'momentum'").cause_id != \
        "optimizer-lacks-cycled-momentum"


def test_an_old_datasets_looking_for_a_loading_script_in_a_hub_repository() -> None:
    paste = ("dataset = load_dataset('Babelscape/wikineural', split='train_fr')\n"
             "FileNotFoundError: Couldn't find file at https://huggingface.co/datasets/Babelscape/"
             "wikineural/resolve/main/wikineural.py")
    t = _t(paste)
    assert t.cause_id == "env-version-too-old" and "pip install -U datasets" in t.primary.fix
    # a data file of the repository that is not there is not the script lookup
    other = paste.replace("resolve/main/wikineural.py", "resolve/main/data/train.json")
    assert _t(other).cause_id != "env-version-too-old"


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


def test_resuming_from_an_unfinished_checkpoint() -> None:
    t = _t("FileNotFoundError: [Errno 2] No such file or directory: "
           "'/cos1/output/run/checkpoint-25/trainer_state.json'")
    assert t.cause_id == "incomplete-checkpoint-resumed"
    assert t.primary.fix.startswith("rm -rf /cos1/output/run/checkpoint-25")
    # a saved dataset's own state.json is the DatasetDict fault, trainer_state.json is not
    assert _t("FileNotFoundError: [Errno 2] No such file or directory: '/data/ds/state.json'"
              ).cause_id == "datasetdict-instead-of-dataset"
    assert _t("FileNotFoundError: [Errno 2] No such file or directory: 'out/trainer_state.json'"
              ).cause_id != "datasetdict-instead-of-dataset"


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


def test_an_upgrade_the_reporter_found_fixes_it() -> None:
    paste = ("trl == 0.14.0 would get error: ImportError: cannot import name "
             "'selective_log_softmax'\nupgrade to 0.15.0 is ok.")
    result = _t(paste)
    assert result.cause_id == "env-version-too-old" and 'trl>=0.15.0' in result.primary.fix
    # asking whether an upgrade helps is no finding
    assert _t(paste.replace("upgrade to 0.15.0 is ok.", "should I upgrade to 0.15.0?")).cause_id \
        != "env-version-too-old"


def test_an_empty_weight_shard_of_zero3() -> None:
    msg = ("RuntimeError: The size of tensor a (0) must match the size of tensor b (4096) at "
           "non-singleton dimension 1")
    merged = _t(f"{msg}\n... when the `model.merge_and_unload()` runs")
    assert merged.cause_id == "zero3-partitioned-weights-used"
    # a size-0 tensor in a forward with nothing of ZeRO-3 or merging: not this
    assert _t(f"{msg}\noutputs = model(**batch)").cause_id != "zero3-partitioned-weights-used"


def test_weights_saved_as_safetensors_that_the_search_leaves_out() -> None:
    msg = ("OSError: Error no file named pytorch_model.bin, tf_model.h5, model.ckpt.index or "
           "flax_model.msgpack found in directory ./ce-model")
    missing = _t(msg + "\nThe model is saved as `model.safetensors` in that folder.")
    assert missing.cause_id == "env-missing-package" and "pip install safetensors" in \
        missing.primary.fix
    # the same search over a folder of checkpoints: the folder's content is wrong
    assert _t(msg + "\nThe folder holds optimizer.pt and trainer_state.json.").cause_id == \
        "model-dir-missing-weights"


def test_no_distribution_on_windows_names_the_platform() -> None:
    msg = ("ERROR: Could not find a version that satisfies the requirement tensorflow-text "
           "(from versions: none)\nERROR: No matching distribution found for tensorflow-text")
    windows = _t(msg + "\nPython:  3.7.7 (default) [MSC v.1916 64 bit (AMD64)]\nWindows 10")
    assert windows.cause_id == "no-wheel-for-python-version"
    assert "Windows" in windows.primary.cause and "WSL2" in windows.primary.fix
    linux = _t(msg + "\nPython 3.13 on Ubuntu 22.04")
    assert linux.cause_id == "no-wheel-for-python-version" and "Windows" not in \
        linux.primary.cause


def test_a_lazy_module_without_spec_probed_by_another_package() -> None:
    result = _t('"ValueError: transformers.models.auto.__spec__ is None"')
    assert result.cause_id == "env-version-too-new" and "transformers" in result.primary.fix
    assert _t("ValueError: mypkg.utils.__spec__ is None").cause_id != "env-version-too-new"


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


def test_the_forward_history_records_real_removals_only() -> None:
    from wizard.triage import api_history

    span = api_history.forward_kwarg_removed("masked_lm_labels")
    assert span is not None and span.removed.startswith("4.0")
    # transformers 5 moved explicit forward arguments into **kwargs: still accepted
    assert api_history.forward_kwarg_removed("cache_position") is None
    assert api_history.forward_kwarg_removed("labels") is None


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


def test_a_saved_weight_that_the_config_reshapes_wrongly() -> None:
    load = "model = TFRobertaForSequenceClassification.from_pretrained('pdelobelle/robbert')\n"
    result = _t(load + "ValueError: cannot reshape array of size 30708480 into shape (40000,768)")
    assert result.cause_id == "checkpoint-weight-reshape-failed"
    assert "39985 rows" in result.primary.cause and "vocab_size=39985" in result.primary.fix
    # a size that is no whole number of rows is no config mismatch; nor is it without loading
    assert _t(load + "ValueError: cannot reshape array of size 30708481 into shape (40000,768)"
              ).cause_id != "checkpoint-weight-reshape-failed"
    assert _t("x = np.zeros(30708480)\nValueError: cannot reshape array of size 30708480 into "
              "shape (40000,768)").cause_id != "checkpoint-weight-reshape-failed"


def test_unused_checkpoint_weights_of_the_body_are_lost_layers() -> None:
    body = _t("Some weights of the model checkpoint at roberta-base were not used when "
              "initializing FlaxRobertaModel: {('encoder', 'layer', '9', 'attention', 'layer_norm',"
              " 'beta'), ('encoder', 'layer', '0', 'attention', 'self', 'out', 'kernel')}")
    assert body.cause_id == "checkpoint-weights-unused"
    heads = _t("Some weights of the model checkpoint at bert-base-uncased were not used when "
               "initializing BertForSequenceClassification: ['cls.predictions.transform.dense."
               "weight', 'cls.seq_relationship.weight', "
               "'cls.predictions.transform.LayerNorm.bias']")
    assert heads.cause_id == "library-info-warning"


def test_fsdp_parameters_of_two_dtypes() -> None:
    result = _t("ValueError: FlatParameter requires uniform dtype but got torch.float16 and "
                "torch.float32")
    assert result.cause_id == "fsdp-flat-param-mixed-dtypes" and "torch.float32" in \
        result.primary.fix


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


def test_a_host_path_given_to_a_container() -> None:
    error = ("huggingface_hub.utils._validators.HFValidationError: Repo id must be in the form "
             "'repo_name' or 'namespace/repo_name': '/home/me/models/llama_local'.")
    run = "docker run --gpus all -p 8080:80 -v $PWD/data:/data ghcr.io/huggingface/tgi:1.0 "
    host = _t(run + "--model-id /home/me/models/llama_local\n" + error)
    assert host.cause_id == "container-path-not-mounted" and "/data" in host.primary.fix
    # a path on the container's side of a volume is there: another cause
    inside = _t(run + "--model-id /data/llama_local\nOSError: No such file or directory: "
                "'/data/llama_local/config.json'")
    assert inside.cause_id != "container-path-not-mounted"
    # no container at all
    assert _t(error).cause_id != "container-path-not-mounted"


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


def test_data_that_is_not_there() -> None:
    none = _t("trainer = SetFitTrainer(model=model, eval_dataset=test_ds)\n"
              "AttributeError: 'NoneType' object has no attribute 'column_names'")
    assert none.cause_id == "dataset-argument-none"
    assert _t("AttributeError: 'NoneType' object has no attribute 'device'").cause_id != \
        "dataset-argument-none"
    short = _t("ix = torch.randint(len(data) - block_size, (batch_size,))\nRuntimeError: random_ "
               "expects 'from' to be less than 'to', but got from=0 >= to=0")
    assert short.cause_id == "empty-dataset"


def test_an_encoding_the_installed_tiktoken_does_not_know() -> None:
    result = _t("ValueError: Unknown encoding o200k_base. Plugins found: "
                "['tiktoken_ext.openai_public']")
    assert result.cause_id == "env-version-too-old" and "tiktoken" in result.primary.fix


def test_a_sentencepiece_vocabulary_larger_than_its_text_allows() -> None:
    result = _t("spm.SentencePieceTrainer.Train('--input=farhang.txt --model_prefix=m "
                "--vocab_size=1000')\nRuntimeError: Internal: C:\\projects\\sentencepiece\\src\\"
                "trainer_interface.cc(468) [(trainer_spec_.vocab_size()) == "
                "(model_proto->pieces_size())]")
    assert result.cause_id == "spm-vocab-size-too-large-for-corpus"
    assert "hard_vocab_limit=False" in result.primary.fix


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


def test_a_bare_model_class_transformers_never_exported_is_not_its_model() -> None:
    from wizard.triage import api_history

    # pyreft's ReftModel wraps a model: nothing says it is a transformers PreTrainedModel
    assert api_history.member_class("ReftModel") is None
    paste = "AttributeError: 'ReftModel' object has no attribute '_keys_to_ignore_on_save'"
    assert "from transformers 4.0.1 on" not in _t(paste).primary.cause
    # controls: a class transformers exports, and a model class with a task head (a model
    # repository's own code names its classes so) are model classes
    assert api_history.member_class("BertModel") == "transformers.PreTrainedModel"
    assert api_history.member_class("ChatGLMForConditionalGeneration") == \
        "transformers.PreTrainedModel"


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


def test_apple_silicon_out_of_memory() -> None:
    paste = ("Special tokens have been added in the vocabulary, make sure the associated word "
             "embeddings are fine-tuned or trained.\n"
             "libc++abi: terminating due to uncaught exception of type std::runtime_error: "
             "[METAL] Command buffer execution failed: Insufficient Memory "
             "(00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)")
    assert _t(paste).cause_id == "out-of-memory"


def test_llama_cpps_llama_only_converter_on_another_architecture() -> None:
    paste = ("When running convert.py ./phi-2 to make a GGUF we get this error:\n"
             '  File "/content/convert.py", line 257, in loadHFTransformerJson\n'
             '    f_norm_eps        = config["rms_norm_eps"],\n'
             "KeyError: 'rms_norm_eps'")
    t = _t(paste)
    assert t.cause_id == "gguf-legacy-convert-script" and "convert_hf_to_gguf.py" in t.primary.fix
    # controls: another project's convert.py, and llama.cpp's Hugging Face converter
    assert _t("python convert.py my_model\nKeyError: 'label'").cause_id != \
        "gguf-legacy-convert-script"
    assert _t("python convert-hf-to-gguf.py ./m   (llama.cpp)\nKeyError: 'rms_norm_eps'"
              ).cause_id != "gguf-legacy-convert-script"


def test_verl_samples_without_the_fields_its_preprocessing_writes() -> None:
    empty = "NotImplementedError: Reward function is not implemented for data_source=''"
    assert _t(empty + "\n(verl main_ppo)").cause_id == "dataset-format-mismatch"
    field = ('  File "/workspace/verl/verl/workers/reward_manager/naive.py", line 203, in __call__\n'
             '    ground_truth = data_item.non_tensor_batch["reward_model"]["ground_truth"]\n'
             "KeyError: 'reward_model'")
    assert _t(field).cause_id == "dataset-format-mismatch"
    # control: the same key missing outside verl is someone else's dict
    assert _t("KeyError: 'reward_model'").cause_id != "dataset-format-mismatch"


def test_auto_gptq_kernels_missing_however_the_message_is_quoted() -> None:
    paste = ('With AutoGPTQ it shows "CUDA extension not installed" or "name autogptq_cuda_256 '
             'not defined" errors')
    assert _t(paste).primary.signature.id == "env-autogptq-kernels-missing"
    # control: the words alone, without GPTQ, belong to other extensions
    assert _t("CUDA extension not installed.").primary is None


def test_a_reporter_pointing_at_the_check_in_the_library_source() -> None:
    paste = ("RuntimeError: bf16 precision was requested but not available on this hardware. "
             "Please use fp32 precision instead.\nHowever, I verified bf16 is supported.\n"
             "It appears the bf16 check is verifing cuda packaging `verify_bf16_support()` which "
             "won't be true for rocm?\n"
             "https://github.com/pytorch/torchtune/blob/a79554e/torchtune/utils/precision.py#L72")
    assert _t(paste).verdict == "possible-library-bug"
    # control: the same link without words blaming the code
    plain = paste.replace("It appears the bf16 check is verifing cuda packaging", "I use")
    assert _t(plain).verdict != "possible-library-bug"


def test_a_launcher_reporting_its_childs_exit() -> None:
    for line in ("subprocess.CalledProcessError: Command '['/usr/bin/python3', 'train.py', '--lr', "
                 "'1e-4']' returned non-zero exit status 1.",
                 "[2023-04-21 03:07:25,713] [ERROR] [launch.py:434:sigkill_handler] "
                 "['/opt/conda/bin/python3.9', '-u', 'main.py', '--local_rank=1'] exits with "
                 "return code = 1",
                 "RuntimeError: Step 1 exited with non-zero status 1"):
        assert _t(line).primary.signature.id == "distributed-child-failed", line
    # killed by the kernel: out of RAM
    killed = "[launch.py:434:sigkill_handler] ['python', 'main.py'] exits with return code = -9"
    assert _t(killed).primary.signature.id == "host-memory-exhausted"
    # controls: pip or a build failing is no launch; the child's own error, when pasted, answers
    assert _t("subprocess.CalledProcessError: Command '['/usr/bin/python3', '-m', 'pip', "
              "'install', 'x']' returned non-zero exit status 1.").primary is None
    child = ("Traceback (most recent call last):\n"
             '  File "train.py", line 5, in <module>\n    trainer.train()\n'
             "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
             "Traceback (most recent call last):\n"
             '  File "/usr/bin/accelerate", line 8, in <module>\n    sys.exit(main())\n'
             "subprocess.CalledProcessError: Command '['/usr/bin/python3', 'train.py']' returned "
             "non-zero exit status 1.")
    assert _t(child).cause_id == "out-of-memory"


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


def test_older_and_other_wordings_of_known_errors() -> None:
    script = ("ValueError: Loading super_glue requires you to execute the dataset script in that "
              "repo on your local machine. Make sure you have read the code there to avoid "
              "malicious use, then set the option `trust_remote_code=True` to remove this error.")
    assert _t(script).cause_id == "dataset-trust-remote-code-required"
    model = script.replace("super_glue", "THUDM/chatglm-6b").replace("dataset script",
                                                                     "configuration file")
    assert _t(model).cause_id == "trust-remote-code-required"
    assert _t("UnexpectedStatusException: Error for Training job x: Failed. Reason: ClientError: "
              "Artifact upload failed:Insufficient disk space").cause_id == "disk-full"
    assert _t("MPS does not support cumsum op with int64 input").cause_id == \
        "mps-op-not-implemented"


def test_flash_attn_prebuilt_wheel_not_downloaded() -> None:
    log = ("running bdist_wheel\nGuessing wheel URL:  https://github.com/Dao-AILab/flash-attention"
           "/releases/download/v2.2.3.post2/flash_attn-2.2.3.post2+cu118torch2.0cxx11abiFALSE-"
           "cp311-cp311-linux_x86_64.whl\nerror: Remote end closed connection without response\n"
           "ERROR: Failed building wheel for flash-attn")
    assert _t(log).cause_id == "flash-attn-wheel-download-failed"
    # control: no wheel for that combination (a 404), then the build: not a download problem
    missing = log.replace("Remote end closed connection without response",
                          "HTTP Error 404: Not Found")
    assert _t(missing).cause_id != "flash-attn-wheel-download-failed"


def test_the_childs_error_is_the_subject_of_a_launchers_report() -> None:
    child = ("Traceback (most recent call last):\n"
             '  File "train.py", line 5, in <module>\n    x = foo()\n'
             "ZeroDivisionError: division by zero\n"
             "Traceback (most recent call last):\n"
             '  File "/usr/bin/accelerate", line 8, in <module>\n    sys.exit(main())\n')
    p = parse_traceback(child + "subprocess.CalledProcessError: Command '['/usr/bin/python3', "
                                "'train.py']' returned non-zero exit status 1.")
    assert p.exc_name == "ZeroDivisionError" and p.innermost_user_frame.code == "x = foo()"
    assert [c.exc_name for c in p.chain] == ["CalledProcessError"]
    # control: pip failing after an earlier error is itself the subject
    pip = parse_traceback(child + "subprocess.CalledProcessError: Command '['/usr/bin/python3', "
                                  "'-m', 'pip', 'install', 'x']' returned non-zero exit status 1.")
    assert pip.exc_name == "CalledProcessError"


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


def test_audio_symlinks_and_presets() -> None:
    mp3 = _t("RuntimeError: Failed to load audio from ./assets/bach.mp3")
    assert mp3.primary.signature.id == "audio-backend-missing"
    assert _t("RuntimeError: Failed to load audio from ./a.wav").primary is None
    assert _t("OSError: [WinError 1314] A required privilege is not held by the client"
              ).cause_id == "windows-symlink-not-permitted"
    preset = _t("ValueError: Unknown preset identifier. A preset must be a one of:\n"
                "1) a built in preset identifier like `'bert_base_en'`\n"
                "Received: preset='mistral_base_en'")
    assert preset.cause_id == "keras-preset-unknown" and "presets.keys()" in preset.primary.fix


def test_a_tokenizer_of_one_kind_loaded_with_the_class_of_another() -> None:
    msg = ("OSError: Model name './m' was not found in tokenizers model name list (roberta-base). "
           "We assumed './m' was a path, a model identifier, or url to a directory containing "
           "vocabulary files named ['vocab.json', 'merges.txt'] but couldn't find such vocabulary "
           "files at this path or url.")
    t = _t("I trained a BertWordPieceTokenizer and saved it.\n" + msg)
    assert t.cause_id == "tokenizer-class-mismatch" and "BertTokenizerFast" in t.primary.fix
    # control: nothing says which tokenizer was saved: the folder lacks the files
    assert _t(msg).cause_id == "local-file-missing"


def test_a_reporter_about_to_send_the_fix() -> None:
    paste = ("When you run `run_lm_finetuning.py` with a custom tokenizer you need to resize the "
             "model embedding, otherwise you get `CUDA runtime error (59) : device-side assert "
             "triggered`.\nI fixed this issue and going to create a PR if it's okay?")
    assert _t(paste).verdict == "possible-library-bug"
    assert _t(paste.split("\nI fixed")[0]).verdict != "possible-library-bug"


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


def test_an_installed_command_line_tool_refusing_an_option() -> None:
    t = _t("there is an error, it says: \u201chelm-run: error: unrecognized arguments: "
           "--enable-huggingface-models stanford-crfm/BioMedLM\u201d")
    assert t.cause_id == "env-version-too-old" and "helm-run --help" in t.primary.fix
    # controls: a script's own arguments, and a project's module run with python -m
    assert _t("run_clm.py: error: unrecognized arguments: --foo 1").primary is None
    assert _t("python -m gpt2 train --iterations 10\n"
              "gpt2: error: unrecognized arguments: --iterations 10").primary is None


def test_ollama_given_a_file_that_is_not_gguf() -> None:
    paste = ("> ollama create test -f Modelfile\ntransferring model data\ncreating model layer\n"
             "Error: invalid file magic")
    assert _t(paste).cause_id == "ollama-file-not-gguf"
    assert _t("Error: invalid file magic").primary is None


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


def test_a_converter_given_an_architecture_it_does_not_know() -> None:
    paste = ("python inference/convert_composer_to_hf.py --composer_path ckpt.pt "
             "--hf_output_path out\n"
             "    attn_config['attn_pdrop'] = hf_config_dict['attn_pdrop']\n"
             "KeyError: 'attn_pdrop'")
    assert _t(paste).cause_id == "converter-unsupported-architecture"
    table = _t("ValueError: No conversion is registered for the model configuration MllamaConfig "
               "(supported configurations are: BartConfig, BertConfig)\n"
               "ct2-transformers-converter --model ./llama-vision --output_dir ct2")
    assert table.cause_id == "converter-unsupported-architecture"
    # control: the same KeyError in a training script is not a converter's
    assert _t(paste.replace("python inference/convert_composer_to_hf.py --composer_path ckpt.pt "
                            "--hf_output_path out", "python train.py")).cause_id != \
        "converter-unsupported-architecture"


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


def test_nccl_failing_between_the_nodes_of_a_multi_node_run() -> None:
    error = ("[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to "
             "the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
             "corrupted/incomplete data.")
    multi = _t("$ torchrun --nproc_per_node=8 --nnodes=2 --node_rank=0 --master_addr=10.0.0.1 "
               "train.py\n" + error)
    assert multi.cause_id == "nccl-internode-transport" and "NCCL_IB_DISABLE=1" in multi.primary.fix
    # control: one machine's run has no inter-node transport to blame
    assert _t("$ torchrun --nproc_per_node=8 train.py\n" + error).cause_id != \
        "nccl-internode-transport"


def test_an_input_shorter_than_a_convolutions_kernel() -> None:
    paste = ('  File "/usr/local/lib/python3.6/dist-packages/torch/nn/functional.py", line 83, in '
             "conv1d\n    return f(input, weight, bias)\n"
             "RuntimeError: Given input size: (8 x 1 x 4). Calculated output size: (50 x 1 x 0). "
             "Output size is too small at /pytorch/torch/lib/THNN/generic/SpatialConvolutionMM.c:45")
    assert _t(paste).cause_id == "input-shorter-than-cnn-filter"
    # control: today's wording in a speech model keeps the audio answer
    assert _t("wav2vec2 on short audio clips:\nRuntimeError: Calculated padded input size per "
              "channel: (1). Kernel size: (10). Kernel size can't be greater than actual input "
              "size").cause_id == "audio-clip-too-short"


def test_a_framework_feature_asserting_the_model_type() -> None:
    paste = ("when I finetune llava-1.6-mistral-7b using longlora, an error occured:\n\n"
             "assert LongLoRAModelType.LLAMA in args.model_type\n"
             "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\nAssertionError")
    assert _t(paste).cause_id == "feature-unsupported-model-type"
    # control: another assertion says nothing about model types
    assert _t(paste.replace("LongLoRAModelType.LLAMA in args.model_type",
                            "len(batch) == 2")).cause_id != "feature-unsupported-model-type"


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


def test_sentence_transformers_evaluators_given_the_wrong_kind_of_model() -> None:
    t = _t("test_evaluator(model, output_path='out')\n"
           "AttributeError: 'DebertaV2Model' object has no attribute 'encode'")
    assert t.cause_id == "evaluator-given-non-sentence-transformer"
    ce = _t("model.evaluate(CEBinaryClassificationEvaluator(sentences, scores))\n"
            "ModuleAttributeError: 'SentenceTransformer' object has no attribute 'predict'")
    assert ce.cause_id == "cross-encoder-evaluator-on-bi-encoder"
    # control: another missing attribute of a transformers model is not this
    assert _t("AttributeError: 'DebertaV2Model' object has no attribute 'generate'").cause_id != \
        "evaluator-given-non-sentence-transformer"


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


def test_webdataset_in_a_distributed_run_without_a_nodesplitter() -> None:
    t = _t("ValueError: you need to add an explicit nodesplitter to your input pipeline for "
           "multi-node training Webdataset.")
    assert t.cause_id == "webdataset-nodesplitter-missing" and "split_by_node" in t.primary.fix


def test_a_guess_is_shown_as_one() -> None:
    class Case:
        traceback = "TypeError: __init__() got an unexpected keyword argument 'tensor_type'"

    finding = probe_triage(Case())[0]
    assert finding.title.startswith("A likely cause, guessed")
    Case.traceback = ("TypeError: TrainingArguments.__init__() got an unexpected keyword "
                      "argument 'evaluation_strategy'")
    assert probe_triage(Case())[0].title.startswith("The error is a known one")


def test_a_metric_given_shapes_that_fit_no_task() -> None:
    t = _t("ValueError: y and y_pred must have same shape of (batch_size, num_categories, ...).")
    assert t.cause_id == "metric-input-shape-mismatch" and "output_transform" in t.primary.fix
    # control: a loss's shape error is not the metric's
    assert _t("ValueError: Target size (torch.Size([8])) must be the same as input size "
              "(torch.Size([8, 2]))").cause_id != "metric-input-shape-mismatch"


def test_serving_an_adapter_trained_on_another_base_model() -> None:
    t = _t("ValueError: While loading /models/llama3-8b-lora, expected target modules in "
           "['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] but "
           "received ['w2', 'w3', 'w1']. Please verify that the loaded LoRA module is correct")
    assert t.cause_id == "lora-adapter-for-another-model" and "adapter_config.json" in \
        t.primary.fix
    # control: PEFT's own wording when training keeps its own answer
    assert _t("ValueError: Target modules {'c_attn'} not found in the base model. Please check "
              "the target modules and try again.").cause_id == "peft-target-modules-not-found"
