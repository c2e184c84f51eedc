"""Reasoning rules learned from the later rounds of real reports, about the paste and the
user's own code: how pastes are cut and decorated, what the error's own words say of shapes,
files, launches and set-ups, and when a cause is only a guess. Each rule with the paste it
answers and a control it must leave alone."""
from __future__ import annotations

from tests.helpers import SITE
from tests.helpers import triage_elsewhere as _t
from wizard.triage.match import probe_triage, triage
from wizard.triage.parse import parse_traceback
from wizard.triage.versions import pastes_from_elsewhere


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


def test_a_tensorflow_checkpoint_of_another_shape() -> None:
    t = _t("InvalidArgumentError (see above for traceback): Assign requires shapes of both tensors "
           "to match. lhs shape= [1811,128] rhs shape= [23,128]")
    assert t.cause_id == "stale-checkpoint-in-output-dir" and "output_dir" in t.primary.fix


def test_setfit_creating_a_head_for_a_sentence_transformer_is_expected() -> None:
    note = ("model_head.pkl not found on HuggingFace Hub, initialising classification head with "
            "random weights. You should TRAIN this model on a downstream task to use it for "
            "predictions and inference.")
    with pastes_from_elsewhere():
        assert triage(note).cause_id == "newly-initialized-head"
        # an error after it is the answer, not the note
        assert triage(note + "\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"
                      ).cause_id == "out-of-memory"


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


def test_a_missing_attribute_whose_opening_quote_markdown_ate_is_read() -> None:
    paste = "NllbTokenizerFast' object has no attribute 'lang_code_to_id"
    assert parse_traceback(paste).message == \
        "'NllbTokenizerFast' object has no attribute 'lang_code_to_id'"
    assert _t(paste).cause_id in ("env-version-too-old", "env-version-too-new")
    # a quoted class stays as written
    whole = "AttributeError: 'Trainer' object has no attribute 'x'"
    assert parse_traceback(whole).message == "'Trainer' object has no attribute 'x'"


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


def test_deepspeeds_integer_field_filled_with_a_float_by_an_older_transformers() -> None:
    zero = ("pydantic_core._pydantic_core.ValidationError: 1 validation error for "
            "DeepSpeedZeroConfig\n{field}\n  Input should be a valid integer, got a number with "
            "a fractional part [type=int_from_float, input_value=15099494.4, input_type=float]")
    old = _t(zero.format(field="stage3_prefetch_bucket_size"))
    assert old.cause_id == "env-version-too-old"
    assert 'transformers>=4.45.0' in old.primary.fix
    # control: another field of the config is the config's own value
    assert _t(zero.format(field="reduce_bucket_size")).cause_id == "config-field-wrong-type"


def test_zero_inference_on_a_stage_2_config() -> None:
    hit = _t("  File \"/opt/conda/lib/python3.10/site-packages/transformers/integrations/"
             "deepspeed.py\", line 370, in deepspeed_init\n    raise ValueError(\"ZeRO inference "
             "only makes sense with ZeRO Stage 3 - please adjust your config\")\n"
             "ValueError: ZeRO inference only makes sense with ZeRO Stage 3 - please adjust your "
             "config")
    assert hit.cause_id == "zero-inference-requires-stage3" and "stage-3" in hit.primary.fix
    # control: another DeepSpeed configuration error
    assert _t("ValueError: Please adjust your config: ZeRO stage 2 does not support "
              "offload_param").cause_id != "zero-inference-requires-stage3"


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


def test_an_empty_weight_shard_of_zero3() -> None:
    msg = ("RuntimeError: The size of tensor a (0) must match the size of tensor b (4096) at "
           "non-singleton dimension 1")
    merged = _t(f"{msg}\n... when the `model.merge_and_unload()` runs")
    assert merged.cause_id == "zero3-partitioned-weights-used"
    # a size-0 tensor in a forward with nothing of ZeRO-3 or merging: not this
    assert _t(f"{msg}\noutputs = model(**batch)").cause_id != "zero3-partitioned-weights-used"


def test_zero3_placeholders_saved_listed_or_loaded_into() -> None:
    saved = _t("RuntimeError: Error(s) in loading state_dict for LlamaForCausalLM:\n\tsize mismatch"
               " for model.layers.0.mlp.up_proj.weight: copying a param with shape torch.Size([0])"
               " from checkpoint, the shape in current model is torch.Size([11008, 4096]).")
    assert saved.cause_id == "zero3-empty-weights-saved" and "zero_to_fp32" in saved.primary.fix
    into = _t("RuntimeError: Error(s) in loading state_dict for GPT2LMHeadModel:\n\tsize mismatch "
              "for transformer.wte.weight: copying a param with shape torch.Size([50257, 768]) "
              "from checkpoint, the shape in current model is torch.Size([0]).")
    assert into.cause_id == "zero3-load-state-dict-into-partitioned-model"
    assert "GatheredParameters" in into.primary.fix
    listed = _t("after stage 3 training the weights are empty: zero_pp_rank_0_mp_rank_00_model_"
                "states.pt\ntransformer.word_embeddings.weight : torch.Size([0])")
    assert listed.cause_id == "zero3-empty-weights-saved"
    # control: a head of another size is the head, not ZeRO-3
    head = _t("RuntimeError: Error(s) in loading state_dict for BertForSequenceClassification:\n\t"
              "size mismatch for classifier.weight: copying a param with shape torch.Size([3, 768])"
              " from checkpoint, the shape in current model is torch.Size([2, 768]).")
    assert head.cause_id == "head-size-mismatch"


def test_a_launcher_passing_a_local_rank_the_script_does_not_declare() -> None:
    for flag in ("--local_rank=0", "--local-rank=1"):
        t = _t(f"train.py: error: unrecognized arguments: {flag}")
        assert t.cause_id == "local-rank-argument" and "torchrun" in t.primary.fix
    assert _t("train.py: error: unrecognized arguments: --local_batch=4").cause_id != \
        "local-rank-argument"


def test_kohya_image_folders_named_or_placed_wrong() -> None:
    t = _t("ERROR    No data found. Please verify arguments (train_data_dir must be the parent of "
           "folders with images)")
    assert t.cause_id == "data-dir-points-to-wrong-level" and "parent" in t.primary.fix
    named = ('  File "D:\\kohya_ss\\library\\basics_gui.py", line 50, in gen\n'
             "    repeats = int(folder.split('_')[0])\nValueError: invalid literal for int() "
             "with base 10: '100 Testtraining'")
    assert _t(named).cause_id == "dataset-folder-naming-wrong"
    # control: the same ValueError of a project that has nothing of kohya's
    other = named.replace("kohya_ss\\library\\basics_gui.py", "proj\\read.py")
    assert _t(other).cause_id != "dataset-folder-naming-wrong"


def test_llava_checkpoint_name_and_unsloth_import_order() -> None:
    llava = ("python -m llava.serve.cli --model-path ./pretrained/pMoD\n"
             "AttributeError: 'NoneType' object has no attribute 'image_mean'")
    t = _t(llava)
    assert t.cause_id == "llava-model-path-missing-llava-name" and "llava" in t.primary.fix
    assert _t("x = proc(img)\nAttributeError: 'NoneType' object has no attribute 'image_mean'"
              ).cause_id != "llava-model-path-missing-llava-name"
    eos = ("ValueError: The specified `eos_token` ('<EOS_TOKEN>') is not found in the vocabulary "
           "of the given `processing_class` (Qwen2TokenizerFast).")
    assert _t("from trl import SFTTrainer\nfrom unsloth import FastLanguageModel\n" + eos
              ).cause_id == "import-order-patching"
    assert _t(eos).cause_id != "import-order-patching"      # no unsloth in the paste


def test_a_full_weight_loaded_into_a_4bit_packed_layer() -> None:
    t = _t("RuntimeError: Error(s) in loading state_dict for LlavaLlamaForCausalLM: size mismatch "
           "for model.mm_projector.weight: copying a param with shape torch.Size([4096, 1024]) "
           "from checkpoint, the shape in current model is torch.Size([2097152, 1]).")
    assert t.cause_id == "state-dict-into-quantized-layer" and "4-bit" in t.primary.cause
    assert "llm_int8_skip_modules=['mm_projector']" in t.primary.fix     # the module named
    # control: a [n, 1] head of another size is a head
    head = _t("RuntimeError: Error(s) in loading state_dict for Net: size mismatch for fc.weight: "
              "copying a param with shape torch.Size([3, 1]) from checkpoint, the shape in "
              "current model is torch.Size([2, 1]).")
    assert head.cause_id != "state-dict-into-quantized-layer"


def test_no_distribution_on_windows_names_the_platform() -> None:
    msg = ("ERROR: Could not find a version that satisfies the requirement tensorflow-text "
           "(from versions: none)\nERROR: No matching distribution found for tensorflow-text")
    windows = _t(msg + "\nPython:  3.7.7 (default) [MSC v.1916 64 bit (AMD64)]\nWindows 10")
    assert windows.cause_id == "no-wheel-for-python-version"
    assert "Windows" in windows.primary.cause and "WSL2" in windows.primary.fix
    linux = _t(msg + "\nPython 3.13 on Ubuntu 22.04")
    assert linux.cause_id == "no-wheel-for-python-version" and "Windows" not in \
        linux.primary.cause


def test_the_forward_history_records_real_removals_only() -> None:
    from wizard.triage import api_history

    span = api_history.forward_kwarg_removed("masked_lm_labels")
    assert span is not None and span.removed.startswith("4.0")
    # transformers 5 moved explicit forward arguments into **kwargs: still accepted
    assert api_history.forward_kwarg_removed("cache_position") is None
    assert api_history.forward_kwarg_removed("labels") is None


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


def test_data_that_is_not_there() -> None:
    none = _t("trainer = SetFitTrainer(model=model, eval_dataset=test_ds)\n"
              "AttributeError: 'NoneType' object has no attribute 'column_names'")
    assert none.cause_id == "dataset-argument-none"
    assert _t("AttributeError: 'NoneType' object has no attribute 'device'").cause_id != \
        "dataset-argument-none"
    short = _t("ix = torch.randint(len(data) - block_size, (batch_size,))\nRuntimeError: random_ "
               "expects 'from' to be less than 'to', but got from=0 >= to=0")
    assert short.cause_id == "empty-dataset"


def test_a_sentencepiece_vocabulary_larger_than_its_text_allows() -> None:
    result = _t("spm.SentencePieceTrainer.Train('--input=farhang.txt --model_prefix=m "
                "--vocab_size=1000')\nRuntimeError: Internal: C:\\projects\\sentencepiece\\src\\"
                "trainer_interface.cc(468) [(trainer_spec_.vocab_size()) == "
                "(model_proto->pieces_size())]")
    assert result.cause_id == "spm-vocab-size-too-large-for-corpus"
    assert "hard_vocab_limit=False" in result.primary.fix
    # the other way round: fewer pieces asked for than the characters to cover
    result = _t("RuntimeError: Internal: src/trainer_interface.cc(581) [(static_cast<int>("
                "required_chars_.size() + meta_pieces_.size())) <= (trainer_spec_.vocab_size())]"
                " Vocabulary size is smaller than required_chars. 10000 vs 37051. Increase "
                "vocab_size or decrease character_coverage with --character_coverage option.")
    assert result.cause_id == "spm-vocab-smaller-than-character-set"
    assert "character_coverage" in result.primary.fix


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


def test_ollama_given_a_file_that_is_not_gguf() -> None:
    paste = ("> ollama create test -f Modelfile\ntransferring model data\ncreating model layer\n"
             "Error: invalid file magic")
    assert _t(paste).cause_id == "ollama-file-not-gguf"
    assert _t("Error: invalid file magic").primary is None


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


def test_an_optimizer_of_one_keras_compiled_by_the_other() -> None:
    mixed = ("Traceback (most recent call last):\n"
             f'  File "{SITE}/keras/engine/training.py", line 95, in compile\n'
             "    self.optimizer = optimizers.get(optimizer)\n"
             f'  File "{SITE}/keras/optimizers.py", line 873, in get\n    str(identifier))\n'
             "ValueError: Could not interpret optimizer identifier: "
             "<tensorflow.python.keras.optimizer_v2.adam.Adam object at 0x7f06fa323d90>")
    assert _t(mixed).cause_id == "keras-and-tf-keras-mixed"
    # a Keras 3 optimizer handed to tf-keras is the Keras 3 question, not a mix of two Keras 2
    keras3 = mixed.replace("/keras/", "/tf_keras/src/").replace(
        "tensorflow.python.keras.optimizer_v2.adam.Adam", "keras.src.optimizers.adam.Adam")
    assert _t(keras3).cause_id == "keras-optimizer-identifier"


def test_an_image_with_other_channels_than_the_model_takes() -> None:
    rgba = ("ValueError: Input 0 is incompatible with layer model_3: expected shape=(None, None, "
            "None, 3), found shape=(1, 499, 552, 4)")
    t = _t(rgba)
    assert t.cause_id == "image-has-alpha-channel" and "convert('RGB')" in t.primary.fix
    gray = ("RuntimeError: Given groups=1, weight of size [64, 3, 7, 7], expected input[8, 1, 224, "
            "224] to have 3 channels, but got 1 channels instead")
    assert _t(gray).cause_id == "grayscale-input-to-rgb-model"
    # other widths are a layer's question, not an image's
    assert _t(rgba.replace("3), found", "768), found").replace("4)", "512)")).cause_id != \
        "image-has-alpha-channel"


def test_predictions_that_keep_the_time_axis_against_one_label_per_example() -> None:
    per_step = ("ValueError: `logits` and `labels` must have the same shape, received "
                "((None, 15, 1) vs (None,)`")
    t = _t(per_step)
    assert t.cause_id == "missing-pooling-before-output"
    assert "GlobalAveragePooling1D" in t.primary.fix
    keras3 = ("ValueError: Arguments `target` and `output` must have the same shape. Received: "
              "target.shape=(None,), output.shape=(None, 40, 1)")
    assert _t(keras3).cause_id == "missing-pooling-before-output"
    # one column too many is the labels' encoding, not a time axis
    assert _t("ValueError: `logits` and `labels` must have the same shape, received ((None, 3) vs "
              "(None, 1))").cause_id == "keras-shapes-incompatible"


def test_a_list_of_images_where_one_array_belongs() -> None:
    listed = ("ValueError: `x` (images tensor) and `y` (labels) should have the same length. "
              "Found: x.shape = (80, 80, 1), y.shape = (11047, 10)")
    t = _t(listed)
    assert t.cause_id == "inputs-not-numpy-array" and "np.array(x_train)" in t.primary.fix
    # an array of images that is one short is another fault
    assert _t(listed.replace("(80, 80, 1)", "(11046, 80, 80, 1)")).cause_id != \
        "inputs-not-numpy-array"


def test_per_sequence_labels_given_to_a_per_example_metric() -> None:
    t = _t("NERModel.eval_model(eval_data, f1=sklearn.metrics.f1_score)\n"
           "ValueError: multiclass-multioutput is not supported")
    assert t.cause_id == "metric-inputs-not-flattened" and "-100" in t.primary.fix
    # scores where ids belong stay the logits' answer
    assert _t("ValueError: Classification metrics can't handle a mix of multiclass and "
              "continuous-multioutput targets").cause_id == "metric-fed-logits"


def test_an_sft_dataset_given_to_the_reward_model_stage() -> None:
    t = _t("ValueError: Please use ranked datasets for reward modeling or DPO training.")
    assert t.cause_id == "dataset-not-marked-ranking" and '"ranking": true' in t.primary.fix


def test_timm_without_pretrained_weights_for_a_model() -> None:
    t = _t("learn = timm_learner(dls, 'cspdarknet53_iabn')\n"
           "Pretrained model URL is invalid, using random initialization.")
    assert t.cause_id == "no-pretrained-weights-for-model"
    assert "pretrained=True" in t.primary.fix


def test_resuming_from_checkpoints_saved_with_save_only_model() -> None:
    paste = ("我用了save_only_model后, 加上resume_from_checkpoint:true 之后报错\n"
             "ValueError: Can't find a valid checkpoint at /home/work/model/checkpoint-125")
    t = _t(paste)
    assert t.cause_id == "save-only-model-not-resumable"
    assert _t(paste.replace("save_only_model", "")).cause_id == "checkpoint-not-found"


def test_float16_on_a_gpu_without_bfloat16() -> None:
    paste = ("Since the RTX 8000 does not support bfloat16, I am using float16. The training "
             "loss becomes NaN during the training process.")
    assert _t(paste).cause_id == "fp16-overflow-bf16-model"
    # float16 and NaN alone name no model pretrained in bf16
    assert _t("I am using float16. The training loss becomes NaN.").cause_id != \
        "fp16-overflow-bf16-model"


def test_text_longer_than_clips_context() -> None:
    t = _t("I am receiving an error while using clip.tokenize(text)\n"
           "Error: Input {text} is too long for context length 77")
    assert t.cause_id == "sequence-longer-than-max" and "truncate=True" in t.primary.fix


def test_generate_without_a_pad_token_id() -> None:
    t = _t("ValueError: If `eos_token_id` is defined, make sure that `pad_token_id` is defined.")
    assert t.cause_id == "generation-config-missing-pad-token-id"
    assert "pad_token_id" in t.primary.fix


def test_ctc_labels_beyond_the_models_vocabulary() -> None:
    t = _t("ValueError: Label values must be <= vocab_size: 29")
    assert t.cause_id == "ctc-vocab-not-built-for-dataset"
    assert "len(processor.tokenizer)" in t.primary.fix


def test_a_data_option_missing_from_an_example_config_is_no_converter() -> None:
    paste = ('Traceback (most recent call last):\n  File "train.py", line 80, in run\n'
             '    start_and_end=data_cfg["start_and_end"])\nKeyError: \'start_and_end\'\n'
             "python train.py examples/librispeech/config.json")
    assert _t(paste).cause_id != "converter-unsupported-architecture"
    weights = paste.replace("start_and_end", "model.embed_tokens.weight")
    assert _t(weights).cause_id == "converter-unsupported-architecture"


def test_samples_of_different_image_sizes_in_one_batch() -> None:
    images = ("RuntimeError: stack expects each tensor to be equal size, but got [3, 32, 64] at "
              "entry 0 and [3, 64, 32] at entry 1")
    t = _t(images)
    assert t.cause_id == "inconsistent-sample-shapes-in-batch" and "Resize" in t.primary.fix
    # token sequences of two lengths are the padding question
    tokens = ("RuntimeError: stack expects each tensor to be equal size, but got [128] at entry 0 "
              "and [97] at entry 1")
    assert _t(tokens).cause_id == "ragged-sequences"


def test_a_collator_padding_with_a_missing_pad_token() -> None:
    t = _t("padded_batch[k] = pad_sequence(to_pad, batch_first=True, padding_value=padding_value)"
           "\nTypeError: pad_sequence(): argument 'padding_value' (position 3) must be float, not "
           "NoneType")
    assert t.cause_id == "no-pad-token"


def test_a_value_head_on_a_model_without_the_lm_head_trl_knows() -> None:
    t = _t("model = AutoModelForCausalLMWithValueHead.from_pretrained(path)\nValueError: The model "
           "does not have a language model head, please use a model that has one.")
    assert t.cause_id == "value-head-model-without-lm-head"


def test_too_many_requests_in_lower_case_words() -> None:
    t = _t("requests.exceptions.httperror 429 client error too many requests for url "
           "http://sbert.net/models/bert-base-nli-mean-tokens.zip")
    assert t.cause_id == "hub-rate-limited"


def test_nan_latents_out_of_a_vae_in_float16() -> None:
    t = _t("debug的时候发现，vae好像不能正确编码图像，encode的latent结果是nan，导致训练的时候loss为nan")
    assert t.cause_id == "fp16-numerical-overflow" and "float32" in t.primary.fix
    # a NaN loss said in Chinese, with no VAE, is the NaN loss
    assert _t("训练的时候loss为nan").cause_id == "nan-loss"


def test_a_dreambooth_instance_folder_that_is_not_there() -> None:
    paste = ("[<ipython-input-1-536940ec9714>](https://localhost:8080/#) in __init__(self, "
             "instance_data_root, instance_prompt)\n"
             "     77         if not self.instance_data_root.exists():\n"
             "---> 78             raise ValueError(\"Instance images root doesn't exists.\")\n\n"
             "ValueError: Instance images root doesn't exists.")
    assert _t(paste).cause_id == "local-file-missing"


def test_captions_with_another_extension_than_the_run_reads() -> None:
    t = _t("found directory C:\\AI\\images\\10_girl contains 66 image files\nNo caption file "
           "found for 66 images. Training will continue without captions for these images.")
    assert t.cause_id == "caption-extension-mismatch" and "caption_extension" in t.primary.fix


def test_add_prefix_space_given_to_a_fast_tokenizers_call() -> None:
    t = _t("inputs = tokenizer('This is a sentence.', add_prefix_space=True)\nTypeError: "
           "_batch_encode_plus() got an unexpected keyword argument 'add_prefix_space'")
    assert t.cause_id == "add-prefix-space-passed-at-call"
    assert "from_pretrained('roberta-base', add_prefix_space=True)" in t.primary.fix


def test_compute_metrics_reading_a_tuple_of_outputs_as_the_logits() -> None:
    t = _t("I changed evaluate_during_training=True to evaluation_strategy='epoch'. With this "
           "change, trainer.train produces the error - AxisError: axis 1 is out of bounds for "
           "array of dimension 1.")
    assert t.cause_id == "eval-predictions-tuple" and "predictions[0]" in t.primary.fix
    # the same NumPy error in plain array code, with no Trainer around it, is not this
    plain = _t("x = np.array([1, 2, 3])\nnp.concatenate([x, x], axis=1)\nnumpy.exceptions."
               "AxisError: axis 1 is out of bounds for array of dimension 1")
    assert plain.cause_id != "eval-predictions-tuple"
    # nor Keras training on 1-D labels: "training" alone is no Trainer
    keras = _t("model.fit(x, y)  # training\ny_pred = np.argmax(y, axis=1)\nAxisError: axis 1 is "
               "out of bounds for array of dimension 1")
    assert keras.cause_id != "eval-predictions-tuple"


def test_a_legacy_tf_layers_layer_in_a_keras_model() -> None:
    t = _t("**TypeError: The following are legacy tf.layers.Layers:**\n  <__main__.BertLayer "
           "object at 0x7fa94d2f5048>\n**To use keras as a framework (for instance using the "
           "Network, Model, or Sequential classes), please use the tf.keras.layers "
           "implementation instead.")
    assert t.cause_id == "legacy-tf-layer-in-keras-model"
    assert "tf.keras.layers.Layer" in t.primary.fix


def test_tokenizer_train_with_the_trainer_first_in_older_wordings() -> None:
    t = _t("TypeError: Can’t convert <tokenizers.trainers.BpeTrainer object at 0x7f8641325570> "
           "to Sequence")
    assert t.cause_id == "tokenizer-train-argument-order"
    # the call in the older order is right on the releases before 0.10: the code alone is no
    # evidence, only the error is
    assert _t("tokenizer.train(trainer, ['a.txt'])\nException: Is a directory (os error 21)"
              ).cause_id != "tokenizer-train-argument-order"


def test_errors_whose_own_words_name_the_setting_to_change() -> None:
    """Messages that state their cause: each answer carries the setting the message names."""
    cases = {
        "ValueError: At least one of `do_train` or `do_eval` must be True.":
            ("script-requires-train-or-eval-flag", "--do_train"),
        "MissingIndex: Index with index_name 'embeddings' not initialized yet. Please make sure "
        "that you call `add_faiss_index` or `add_elasticsearch_index` first.":
            ("faiss-index-not-on-queried-dataset", "add_faiss_index"),
        "RuntimeError: Cannot infer the task from a local directory yet, please specify the task "
        "manually.": ("export-task-not-inferable-local-dir", "--task"),
        "ValueError: Chunked MM input disabled but max_tokens_per_mm_item (2496) is larger than "
        "max_num_batched_tokens (2048). Please increase max_num_batched_tokens.":
            ("vllm-batched-tokens-below-mm-item", "--max-num-batched-tokens"),
        "RuntimeError: QuantizedMatmul::vjp no gradient wrt the quantized matrix yet.":
            ("quantized-weights-require-grad", "LoRA"),
        "bert_module = hub.Module(BERT_MODEL_HUB)\nRuntimeError: Exporting/importing meta graphs "
        "is not supported when eager execution is enabled. No graph exists when eager execution "
        "is enabled.": ("tf1-hub-module-in-eager-mode", "hub.KerasLayer"),
    }
    for paste, (cause, fix) in cases.items():
        t = _t(paste)
        assert t.cause_id == cause, paste
        assert fix in t.primary.fix, paste
    # a vLLM budget error about the prompt, not a multimodal item, is not the image's
    assert _t("ValueError: max_num_batched_tokens (2048) is smaller than max_model_len (4096)."
              ).cause_id != "vllm-batched-tokens-below-mm-item"


def test_a_process_the_shell_reports_killed_in_the_reporters_words() -> None:
    t = _t("I try running the command line and it just says killed after the model loads.")
    assert t.cause_id == "host-memory-exhausted"
    # a process someone killed on purpose is not the memory killer
    assert _t("I killed the process after an hour because the loss did not move."
              ).cause_id != "host-memory-exhausted"


def test_deepspeeds_loss_scaler_at_its_minimum_is_an_fp16_overflow() -> None:
    t = _t("Exception: Current loss scale already at minimum - cannot decrease scale anymore. "
           "Exiting run.")
    assert t.cause_id == "fp16-overflow-bf16-model" and "bf16=True" in t.primary.fix


def test_h5py_3_under_a_keras_that_decodes_its_attributes() -> None:
    t = _t("  File \"keras/engine/topology.py\", line 3114, in load_weights_from_hdf5_group_by_name"
           "\n    original_keras_version = f.attrs['keras_version'].decode('utf8')\n"
           "AttributeError: 'str' object has no attribute 'decode'")
    assert t.cause_id == "env-version-too-new" and "h5py<3" in t.primary.fix
    # the same AttributeError on a string of the user's own is not h5py's
    assert _t("line = text.decode('utf8')\nAttributeError: 'str' object has no attribute "
              "'decode'").cause_id != "env-version-too-new"


def test_keras_3s_wording_of_a_weights_file_name() -> None:
    t = _t("ValueError: The filename must end in `.weights.h5`. Received: filepath=/tmp/m.keras")
    assert t.primary.signature.id == "keras3-checkpoint-extension"
    assert ".weights.h5" in t.primary.fix


def test_a_checkpoint_saved_by_a_newer_pytorch_than_the_one_loading_it() -> None:
    t = _t("model = SentenceTransformer('xlm-r-100langs-bert-base-nli-mean-tokens')\n"
           "ValueError: invalid literal for int() with base 8: 'ils\\n_reb'")
    assert t.cause_id == "env-version-too-old" and "torch" in t.primary.fix


def test_a_cuda_toolkit_older_than_the_gpus_architecture() -> None:
    t = _t("When I install deepspeed from source, it gives me `nvcc fatal unsupported gpu "
           "architecture 'compute_86'`. My cuda version is 11.0.")
    assert t.primary.signature.id == "cuda-toolkit-too-old-for-gpu-arch"
    assert t.cause_id == "env-version-too-old" and "TORCH_CUDA_ARCH_LIST" in t.primary.fix


def test_a_tf_data_tensor_without_a_static_shape() -> None:
    t = _t("Model.fit throws\n> ValueError: Input 0 of layer srcnn is incompatible with the "
           "layer: its rank is undefined, but the layer requires a defined rank.")
    assert t.cause_id == "tf-dataset-unknown-shape" and "ensure_shape" in t.primary.fix
    # Keras 3 reading the shape of such a tensor through optree
    t = _t("model.fit(train_ds)\nFile ~/lib/python3.12/site-packages/optree/ops.py:747, in "
           "tree_map\nValueError: as_list() is not defined on an unknown TensorShape.")
    assert t.cause_id == "tf-dataset-unknown-shape"


def test_a_regression_told_as_running_smoothly_on_the_older_release() -> None:
    t = _t("Use `wandb` logging with 4.38. Same script runs smoothly on `4.37` but breaks with "
           "the newer one as grad norms are logged too.\nTypeError: Object of type Tensor is "
           "not JSON serializable")
    assert t.verdict == "possible-library-bug"


def test_the_word_regression_in_code_is_no_regression_of_the_library() -> None:
    code = ("    760         elif output_mode == \"regression\":\nValueError: too many dimensions "
            "'str'")
    assert _t(code).verdict != "possible-library-bug"
    # said in prose, it is
    assert _t("This is a regression: it worked on 4.37.\nTypeError: Object of type Tensor is "
              "not JSON serializable").verdict == "possible-library-bug"


def test_an_ms_swift_2_command_on_ms_swift_3() -> None:
    t = _t("swift sft --model_type qwen2-vl-2b-instruct --model_id_or_path /models/Qwen2-VL\n"
           "ValueError: Please set --model <model_id_or_path>`, model: None")
    assert t.cause_id == "env-version-too-new" and "--train_type" in t.primary.fix
    # ms-swift 3's own command without a model is the user's missing option, not a release
    assert _t("swift sft --train_type lora\nValueError: Please set --model <model_id_or_path>`, "
              "model: None").cause_id != "env-version-too-new"
    # ms-swift 3 keeps --model_type: with it alone, the option missing is the user's
    assert _t("swift sft --model_type qwen2_5 --train_type lora\nValueError: Please set --model "
              "<model_id_or_path>`, model: None").cause_id != "env-version-too-new"


def test_tensorflow_without_a_cudnn_it_can_load() -> None:
    t = _t("Describe the current behavior\nDNN library is not found for Convolution operation")
    assert t.cause_id == "env-binary-incompatible" and "and-cuda" in t.primary.fix


def test_out_of_memory_in_the_reporters_words() -> None:
    assert _t("用A100 单卡40G lora 微调4B的模型报OOM，辛苦帮忙看看").cause_id == "out-of-memory"
    assert _t("With batch size 8 I get OOM on a 24 GB card.").cause_id == "out-of-memory"
    # a setting chosen to avoid it is not the error
    assert _t("To avoid OOM I set per_device_train_batch_size=1, and now the loss is "
              "constant.").cause_id != "out-of-memory"


def test_a_keras_2_module_the_reporter_says_keras_3_removed() -> None:
    t = _t("when i am trying to utilize from keras.preprocessing.text import Tokenizer we found "
           "out the text module is missing in Keras 3.")
    assert t.cause_id == "keras-3-installed" and "tf-keras" in t.primary.fix
    # a feature asked of Keras 3 is not a removal
    assert _t("Is there a way to use mixed precision in Keras 3 with the JAX backend?"
              ).cause_id != "keras-3-installed"


def test_a_tokenizer_file_the_repository_does_not_ship() -> None:
    t = _t("OSError: Meta-Llama-3-8B does not appear to have a file named tokenizer.model.")
    assert t.primary.signature.id == "tokenizer-file-not-found"
    assert "AutoTokenizer" in t.primary.fix
    # the config missing is the folder's, not the tokenizer's
    assert _t("OSError: ./out does not appear to have a file named config.json."
              ).primary.signature.id == "folder-without-config"


def test_a_relative_run_folder_or_metas_original_release_without_config_json() -> None:
    # a relative path of several folders is a local folder, not a Hub id
    t = _t("OSError: work_dirs/chatglm2_qlora/epoch_3.pth/hf does not appear to have a file named "
           "config.json. Checkout 'https://huggingface.co/work_dirs/chatglm2_qlora/epoch_3.pth/hf/"
           "None' for available files.")
    assert t.primary.signature.id == "folder-without-config"
    # control: an org/name id is the Hub's question
    hub = _t("OSError: org/model does not appear to have a file named config.json.")
    assert "folder-without-config" not in {m.signature.id for m in hub.matches}
    meta = _t("错误信息：/llama/llama-2-13b-chat/ does not appear to have a file named config.json."
              "\n模型名字为consolidated.00.pth。")
    assert meta.cause_id == "checkpoint-not-hf-format"
    assert "--input_dir /llama/llama-2-13b-chat/" in meta.primary.fix


def test_a_gguf_models_folder_where_its_file_belongs() -> None:
    said = ("python -m aphrodite.endpoints.openai.api_server --model /root/models/gguf/ "
            "--quantization gguf --max-model-len 4096\nOSError: /root/models/gguf/ does not "
            "appear to have a file named config.json.")
    t = _t(said)
    assert t.cause_id == "folder-instead-of-file-path" and ".gguf" in t.primary.fix
    # the same error without a GGUF model in sight is a folder without its config
    assert _t(said.replace(" --quantization gguf", "")).cause_id == "local-file-missing"
