"""Version rules that read the call rather than the release: a hook overridden with an older
signature, arguments a newer release removed (read from the code when the message is cut off),
members a release removed, and one library's unbatched input to a newer transformers. Each with
the paste it answers and a control it must leave alone."""
from __future__ import annotations

from wizard.triage.match import triage
from wizard.triage.versions import pastes_from_elsewhere


def test_a_trainer_hook_overridden_with_the_older_signature() -> None:
    paste = ("TypeError: Seq2SeqTrainer.training_step() takes 3 positional arguments but 4 were "
             "given\n- transformers=4.46.1")
    with pastes_from_elsewhere():
        t = triage(paste)
        assert t.cause_id == "env-version-too-new"
        assert "num_items_in_batch=None" in t.primary.fix and "transformers<4.46.0" in t.primary.fix
        # compute_loss keeps its return_outputs; Python's "from N to M" wording counts too
        loss = triage("class T(Trainer):\n    def compute_loss(self, model, inputs, "
                      "return_outputs=False):\n        ...\nTypeError: T.compute_loss() takes "
                      "from 3 to 4 positional arguments but 5 were given")
        assert loss.cause_id == "env-version-too-new"
        assert "return_outputs=False, num_items_in_batch=None" in loss.primary.fix
        # fewer arguments given than taken is another fault (a call of the user's)
        fewer = triage(paste.replace("but 4 were", "but 2 were"))
        assert fewer.cause_id != "env-version-too-new"
        # a function of that name outside any trainer is the user's own
        assert triage("TypeError: log() takes 1 positional argument but 2 were given"
                      ).cause_id != "env-version-too-new"


_BOOK = ("---------------------------------------------------------------------------\n"
         "TypeError                                 Traceback (most recent call last)\n"
         "Cell In[26], line 3\n----> 3 training_args = TrainingArguments(\n"
         '      4     output_dir="out",\n      5     evaluation_strategy="epoch",\n'
         "      6     fp16=True,\n")


def test_a_hook_the_trainer_calls_on_itself_is_an_override_lagging() -> None:
    paste = ('  File "/usr/lib/python3.10/site-packages/transformers/trainer.py", line 3045, in '
             "_maybe_log_save_evaluate"
             "\n    self.log(logs, start_time)\nTypeError: log() takes 2 positional arguments but "
             "3 were given")
    with pastes_from_elsewhere():
        t = triage(paste)
    assert t.cause_id == "env-version-too-new" and t.bug is None
    assert "def log(self, logs, start_time=None):" in t.primary.fix
    assert 'transformers<4.47.0' in t.primary.fix


def test_a_removed_argument_read_from_the_code_when_the_message_is_cut_off() -> None:
    with pastes_from_elsewhere():
        t = triage(_BOOK)
        assert t.cause_id == "env-version-too-new"
        assert "evaluation_strategy= (transformers 4.51)" in t.primary.cause
        assert "transformers<4.51.0" in t.primary.fix and "eval_strategy" in t.primary.fix
        # a release that still took it, stated in the paste: the call was not the fault
        assert triage(_BOOK + "transformers version: 4.40.0").cause_id != "env-version-too-new"
        # a complete message about something else: the call went through
        other = _BOOK.replace("TypeError                                 Traceback",
                              "Traceback") + "TypeError: 'NoneType' object is not subscriptable"
        assert triage(other).cause_id != "env-version-too-new"
        # a renamed keyword of a non-config class may still be accepted (a deprecation shim):
        # Trainer(tokenizer=...) is no evidence
        shim = _BOOK.replace("TrainingArguments(", "Trainer(").replace(
            'evaluation_strategy="epoch"', "tokenizer=tok")
        assert triage(shim).cause_id != "env-version-too-new"


def test_a_member_a_release_removed_from_every_class_of_a_family() -> None:
    paste = "AttributeError: 'OneDeviceStrategy' object has no attribute 'experimental_run_v2'"
    with pastes_from_elsewhere():
        t = triage(paste)
        assert t.cause_id == "env-version-too-new" and "strategy.run" in t.primary.fix
        # a TensorFlow release that still had it: something else
        assert triage(paste + "\ntensorflow==2.3.1").cause_id != "env-version-too-new"


_FRAMES = ('  File "/env/site-packages/sentence_transformers/SentenceTransformer.py", line 187, '
           "in encode\n    out_features = self.forward(features)\n"
           '  File "/env/site-packages/transformers/modeling_utils.py", line 260, in '
           "get_extended_attention_mask\n    raise ValueError(\n")
_WRONG = ("ValueError: Wrong shape for input_ids (shape torch.Size([6])) or attention_mask "
          "(shape torch.Size([6]))")


def test_unbatched_input_from_a_library_or_from_your_own_call() -> None:
    with pastes_from_elsewhere():
        lib = triage('  File "demo.py", line 3, in <module>\n    vec = model.encode(sentences)\n'
                     + _FRAMES + _WRONG)
        assert lib.cause_id == "env-version-too-new"
        assert "sentence-transformers" in lib.primary.fix
        own = triage('  File "t.py", line 9, in <module>\n    out = model(input_ids=ids)\n'
                     + _FRAMES.split("  File", 2)[0] + _WRONG)
        assert own.cause_id == "missing-batch-dimension" and "unsqueeze(0)" in own.primary.fix
        # a batched (2-D) input with the wrong shape is another fault
        assert triage(_WRONG.replace("[6]", "[2, 3, 4]")).cause_id not in (
            "env-version-too-new", "missing-batch-dimension")


def test_a_projects_override_of_a_private_trainer_method_is_a_library_bug() -> None:
    paste = ("TypeError: GRPOTrainer._get_train_sampler() takes 1 positional argument but 2 were "
             "given\nWhen attempting to run the post-training script I receive this error")
    t = triage(paste)
    assert t.cause_id == "library-bug" and "_get_train_sampler" in t.bug.reasons[0]
    # the paste's own override: the user's code to update
    own = triage("class MyTrainer(Trainer):\n    def _get_train_sampler(self):\n        ...\n"
                 + paste)
    assert own.cause_id != "library-bug"


def test_a_model_registry_without_the_architecture_is_a_release_too_old() -> None:
    """A package importing its own `<pkg>.models.<type>` module (one module per architecture)
    lacks that architecture: it came in a later release, whatever the package is."""
    site = "/home/u/venv/lib/python3.11/site-packages"
    paste = ("Traceback (most recent call last):\n"
             '  File "/home/u/train.py", line 3, in <module>\n'
             '    model, tokenizer = load("mlx-community/gemma-3-4b-it-4bit")\n'
             f'  File "{site}/mlx_lm/utils.py", line 90, in _get_classes\n'
             '    arch = importlib.import_module(f"mlx_lm.models.{model_type}")\n'
             "ModuleNotFoundError: No module named 'mlx_lm.models.gemma3'")
    with pastes_from_elsewhere():
        t = triage(paste)
        assert t.cause_id == "env-version-too-old"
        assert t.primary.fix == 'pip install -U "mlx-lm"'
        # the user's own package of that shape is not a release question
        own = paste.replace(f"{site}/mlx_lm/utils.py", "/home/u/mlx_lm/utils.py")
        assert triage(own).cause_id != "env-version-too-old"
