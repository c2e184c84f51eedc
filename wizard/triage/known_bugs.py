"""The offline table of known, fixed library bugs: how each one's error reads, where and when it
was fixed. A paste that matches one on a release before the fix gets "known bug, fixed in X:
upgrade", with the thread: the first answer a maintainer gives."""
from __future__ import annotations

import re
from dataclasses import dataclass

from wizard.triage.packages import version_lt


@dataclass(frozen=True)
class KnownBug:
    """A library bug a maintainer confirmed and fixed: how its error reads, where it was fixed."""

    package: str
    pattern: str                      # the error as the affected releases print it
    fixed_in: str
    url: str
    summary: str
    introduced: str | None = None     # first affected release (then the version must be known)
    requires: str | None = None       # another regex the paste must contain (the set-up)

    def affects(self, version: str | None) -> bool:
        """Whether a release has the bug (unknown version: only when any release before the fix
        would show this error)."""
        if version is None:
            return self.introduced is None
        pre = re.search(r"(?:dev|rc|a|b)\d*$", version) is not None
        release = re.match(r"\d+(?:\.\d+)*", version)
        before_fix = bool(version_lt(version, self.fixed_in)) or (
            pre and release is not None and version_lt(release.group(0), self.fixed_in) is False
            and version_lt(self.fixed_in, release.group(0)) is False)
        return before_fix and (self.introduced is None
                               or version_lt(version, self.introduced) is False)


# Built from the dev split of tests/data/real_errors (library_bug: true with a fixed_in), so the
# held split stays unseen; each pattern is the error the affected releases print.
KNOWN_BUGS: tuple[KnownBug, ...] = (
    KnownBug("datasets", r"Config name is missing", "2.16.1",
             "https://github.com/huggingface/datasets/issues/6533",
             "datasets 2.16.0 ignores config keyword arguments (e.g. language_pair=, year=) and "
             "asks for a config name", introduced="2.16.0"),
    KnownBug("peft", r"add_adapter\(\) got an unexpected keyword argument '?low_cpu_mem_usage",
             "0.14.0", "https://github.com/huggingface/peft/issues/2246",
             "PeftModelForSequenceClassification.add_adapter did not accept low_cpu_mem_usage"),
    KnownBug("transformers", r"in num_examples[\s\S]{0,600}object of type 'NoneType' has no len",
             "4.6.0", "https://github.com/huggingface/transformers/issues/11381",
             "Trainer._remove_unused_columns returned None with remove_unused_columns=False",
             introduced="4.6.0.dev0"),
    KnownBug("bitsandbytes", r"(?:AdamW?8bit|8-?bit ?AdamW?|adamw_bnb_8bit|paged_adamw_8bit)"
             r"[\s\S]{0,400}?\bnan\b|\bnan\b[\s\S]{0,400}?(?:AdamW?8bit|8-?bit ?AdamW?)",
             "0.41.1", "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/227",
             "a mis-indented block in create_dynamic_map built a wrong quantization map for the "
             "8-bit optimizers, so their losses went NaN", introduced="0.36.0"),
    KnownBug("accelerate", r"properly initialize your accelerator via `?accelerator = "
             r"Accelerator\(\)", "1.9.0", "https://github.com/huggingface/trl/issues/2329",
             "with DeepSpeed, Accelerator() read AcceleratorState before it existed (PPO/RLOO "
             "trainers)", introduced="1.0.0", requires=r"deepspeed"),
    KnownBug("unsloth", r"_unsloth_get_batch_samples\(\) takes \d+ positional arguments? but \d+ "
             r"were given", "2025.3.18", "https://github.com/unslothai/unsloth/issues/2148",
             "transformers 4.50 passes one more argument to Trainer.get_batch_samples, which "
             "unsloth's patched replacement did not take"),
    KnownBug("transformers", r"cannot import name '?call_context'?", "4.30.1",
             "https://github.com/huggingface/transformers/issues/24133",
             "transformers 4.30.0 imported Keras' call_context from the path of TensorFlow 2.11 "
             "and later, so TF models failed to import on older TensorFlow",
             introduced="4.30.0"),
    KnownBug("transformers", r"module 'torch' has no attribute 'float8_e4m3fn'", "4.43.2",
             "https://github.com/hiyouga/LLaMA-Factory/issues/4958",
             "transformers 4.43.0 and 4.43.1 compared weights' dtypes with torch.float8_e4m3fn, "
             "which torch before 2.1 lacks, so loading any model failed", introduced="4.43.0"),
    # gathered from other threads of the same bugs (none of them in the corpus): the first
    # release with the fix checked against the release history or the wheels
    KnownBug("sentence-transformers",
             r"SentenceTransformerTrainer\.compute_loss\(\) got an unexpected keyword argument "
             r"'num_items_in_batch'",
             "3.3.0", "https://github.com/huggingface/sentence-transformers/issues/3021",
             "transformers 4.46 began passing num_items_in_batch to Trainer.compute_loss, and "
             "the SentenceTransformerTrainer override in sentence-transformers <=3.2.1 did not "
             "accept it, so every training step failed. Support for transformers 4.46 arrived "
             "in 3.3.0."),
    KnownBug("transformers",
             r"no_sync context manager is incompatible with gradient partitioning logic of ZeRO "
             r"stage|in no_sync\s+assert not self\.zero_optimization_partition_gradients\(\)",
             "4.47.1", "https://github.com/huggingface/transformers/pull/35157",
             "With gradient_accumulation_steps > 1, Trainer wrapped non-final micro-batches in "
             "accelerator.no_sync(). DeepSpeed 0.16.0 added an assertion that rejects this for "
             "ZeRO-2/3, so training crashed at the first step.",
             requires=r"transformers|accelerate|Trainer|gradient_accumulation"),
    KnownBug("trl",
             r"seed_worker\(\) missing 2 required positional arguments: 'num_workers' and 'rank'",
             "0.18.2", "https://github.com/huggingface/trl/pull/3568",
             "transformers 4.52 changed seed_worker to require num_workers and rank. "
             "GRPOTrainer (trl <=0.18.1) still passed seed_worker bare as worker_init_fn, so "
             "training crashed when the dataloader started with dataloader_num_workers > 0."),
    KnownBug("accelerate",
             r"No module named 'pytest'",
             "1.5.1", "https://github.com/huggingface/accelerate/issues/3438",
             "accelerate 1.5.0 imported pytest at module level in "
             "accelerate/test_utils/testing.py, which the CLI imports. So `accelerate launch`, "
             "and anything that imports accelerate.test_utils, failed when pytest was not "
             "installed.",
             introduced="1.5.0", requires=r"accelerate/test_utils"),
    KnownBug("datasets",
             r"module 'PIL\.Image' has no attribute 'ExifTags'",
             "2.19.2", "https://github.com/huggingface/datasets/issues/6881",
             "datasets 2.19.0 began decoding images with PIL.Image.ExifTags for EXIF "
             "orientation.",
             introduced="2.19.0", requires=r"datasets/features/image\.py"),
    KnownBug("bitsandbytes",
             r"zip\(\) takes no keyword arguments",
             "0.44.1", "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1376",
             "bitsandbytes 0.44.0 used zip(..., strict=True) in Optimizer8bit.load_state_dict, "
             "which only works on Python 3.10+. On Python <= 3.9, any 8-bit/paged optimizer "
             "broke when accelerate/Trainer prepared it, or when a checkpoint was resumed.",
             introduced="0.44.0", requires=r"bitsandbytes/optim/optimizer\.py"),
    KnownBug("bitsandbytes",
             r"has no attribute 'quant_state'",
             "0.49.1", "https://github.com/bitsandbytes-foundation/bitsandbytes/pull/1837",
             "bitsandbytes 0.49.0 added a CPU packing-format check to "
             "Linear4bit._save_to_state_dict that read self.weight.quant_state unconditionally. "
             "Saving a QLoRA checkpoint through accelerator.get_state_dict / model.state_dict() "
             "failed when the weight had no quant_state attribute (for example sharded or "
             "wrapped params).",
             introduced="0.49.0", requires=r"packing_format_for_cpu"),
    KnownBug("transformers",
             r"Weights only load failed\. Re\-running `torch\.load` with `weights_only` set to "
             r"`False` will likely succeed",
             "4.52.0", "https://github.com/huggingface/transformers/pull/37162",
             "Starting in 4.51.0, Trainer._load_rng_state called torch.load(rng_file, "
             "weights_only=True), but on torch < 2.6 the numpy globals were not allowlisted. "
             "Resuming with resume_from_checkpoint therefore failed while reading "
             "rng_state*.pth (a regression from PR.",
             introduced="4.51.0", requires=r"_load_rng_state"),
    KnownBug("transformers",
             r"argument of type 'NoneType' is not iterable",
             "4.53.0", "https://github.com/huggingface/transformers/issues/38935",
             "In 4.52.x, ALL_PARALLEL_STYLES is None when torch < 2.5, but "
             "PreTrainedModel.post_init still checked `v not in ALL_PARALLEL_STYLES` for every "
             "model with a tp_plan on torch >= 2.3. So from_pretrained crashed for "
             "Llama/Qwen/Gemma-family models on torch 2.3/2.4.",
             introduced="4.52.0", requires=r"ALL_PARALLEL_STYLES"),
    KnownBug("trl",
             r"TrainingArguments' object has no attribute 'packing'",
             "0.9.4", "https://github.com/huggingface/trl/pull/1707",
             "After the SFTConfig refactor (trl 0.9.2/0.9.3), SFTTrainer read args.packing "
             "directly. Passing a plain transformers TrainingArguments, or a subclass such as "
             "UnslothTrainingArguments, crashed in SFTTrainer.__init__."),
    KnownBug("deepspeed",
             r"cannot import name '_get_socket_with_port' from "
             r"'torch\.distributed\.elastic\.agent\.server\.api'",
             "0.14.4", "https://github.com/deepspeedai/DeepSpeed/issues/5603",
             "deepspeed/elasticity/elastic_agent.py imported the private torch helper "
             "_get_socket_with_port, which PyTorch 2.4 removed. Importing deepspeed (or running "
             "ds_report) failed on torch >= 2.4."),
    KnownBug("deepspeed",
             r"cannot import name 'log' from 'torch\.distributed\.elastic\.agent\.server\.api'",
             "0.14.1", "https://github.com/deepspeedai/DeepSpeed/pull/5346",
             "Older deepspeed imported `log` from torch.distributed.elastic.agent.server.api. "
             "PyTorch 2.4 renamed it to `logger`, so importing deepspeed (and TRL/Trainer paths "
             "that import it) failed."),
    KnownBug("huggingface_hub",
             r"FileNotFoundError: \[Errno 2\] No such file or directory",
             "0.17.3", "https://github.com/huggingface/huggingface_hub/issues/1690",
             "The free-disk-space check added in 0.17.0 called shutil.disk_usage() on the "
             "target folder before that folder existed. snapshot_download/hf_hub_download into "
             "a new local_dir or cache path therefore raised FileNotFoundError.",
             introduced="0.17.0", requires=r"_check_disk_space"),
    KnownBug("huggingface_hub",
             r"'type' object is not subscriptable",
             "0.26.1", "https://github.com/huggingface/huggingface_hub/pull/2620",
             "huggingface_hub 0.26.0 used a PEP 585 annotation (list[str]) in commands/user.py. "
             "Any huggingface-cli command (for example `huggingface-cli login`) crashed at "
             "import time on Python 3.8.",
             introduced="0.26.0", requires=r"huggingface_hub/commands/user\.py"),
    KnownBug("huggingface_hub",
             r"cannot import name 'get_token' from partially initialized module "
             r"'huggingface_hub\._login'",
             "0.20.1", "https://github.com/huggingface/huggingface_hub/pull/1930",
             "In 0.20.0, get_token lived in the high-level _login module while low-level utils "
             "imported it, creating a circular import. `from huggingface_hub import login` (as "
             "in many fine-tuning notebooks) failed.",
             introduced="0.20.0"),
    KnownBug("transformers",
             r"name 'AcceleratorState' is not defined",
             "4.37.0", "https://github.com/huggingface/transformers/pull/28171",
             "In transformers <= 4.36.2, training_args.py imported AcceleratorState only if "
             "accelerate >= 0.21.0, but _setup_devices only checked accelerate >= 0.20.1. With "
             "accelerate 0.20.x, TrainingArguments/Trainer raised a NameError instead of a "
             "clear version error.",
             requires=r"training_args\.py"),
    KnownBug("peft",
             r"No module named 'huggingface_hub\.errors'",
             "0.14.0", "https://github.com/huggingface/peft/issues/2097",
             "peft 0.13.x imported HFValidationError from huggingface_hub.errors (in "
             "peft/utils/loftq_utils.py) but still allowed huggingface_hub>=0.17. With an older "
             "hub, even `from peft import LoraConfig` failed.",
             introduced="0.13.0", requires=r"peft"),
    KnownBug("unsloth",
             r"name 'Version' is not defined",
             "2024.12.9", "https://github.com/unslothai/unsloth/issues/1469",
             "unsloth/save.py started calling packaging's Version() in the merged-save path "
             "without importing it. model.save_pretrained_merged / push_to_hub_merged (for "
             "example for fine-tuned vision models) raised NameError.",
             introduced="2024.12.5", requires=r"unsloth/save\.py"),
    KnownBug("tokenizers",
             r"'tuple' object cannot be converted to 'PyList'",
             "0.20.3", "https://github.com/huggingface/tokenizers/issues/1672",
             "After the PyO3 0.22 upgrade, Tokenizer.encode_batch/encode_batch_fast in 0.20.2 "
             "accepted only Python lists. Batches given as tuples, for example "
             "tok.batch_encode_plus((\"a\", \"b\")) or tuple columns, failed with a TypeError.",
             introduced="0.20.2"),
    KnownBug("tokenizers",
             r"'ndarray' object cannot be converted to '",
             "0.20.4", "https://github.com/huggingface/tokenizers/pull/1679",
             "tokenizers 0.20.2 and 0.20.3 stopped accepting numpy arrays of strings in "
             "encode_batch/encode_batch_fast. The error says 'PyList' in 0.20.2 and 'Sequence' "
             "in 0.20.3, and it shows up for example when a tokenizer is called on "
             "df[col].values.",
             introduced="0.20.2"),
    KnownBug("accelerate",
             r"it's not the same object as accelerate\.data_loader\.DataLoader",
             "0.34.1", "https://github.com/huggingface/accelerate/issues/3070",
             "accelerate 0.34.0.",
             introduced="0.34.0"),
    KnownBug("sentence-transformers",
             r"but you didn't pass an `eval_dataset` to `Trainer`",
             "3.3.0", "https://github.com/huggingface/sentence-transformers/issues/3032",
             "transformers 4.46 made Trainer.__init__ raise when eval_strategy != \"no\" and "
             "eval_dataset is None. SentenceTransformerTrainer < 3.3.0 forwarded "
             "eval_dataset=None even when only an `evaluator` was given (a documented setup), "
             "so trainer construction failed.",
             requires=r"sentence_transformers/trainer\.py"),
    KnownBug("trl",
             r"'GRPOTrainer' object has no attribute 'current_gradient_accumulation_steps'",
             "0.27.1", "https://github.com/huggingface/trl/issues/4010",
             "GRPOTrainer._compute_loss (loss_type grpo/bnpo/dr_grpo/sapo) divides by "
             "self.current_gradient_accumulation_steps, which transformers only sets inside the "
             "training loop. Evaluation before the first optimizer step (eval_on_start=True, or "
             "trainer.evaluate() before train()) raised AttributeError.",
             introduced="0.22.0", requires=r"in _evaluate"),
    KnownBug("bitsandbytes",
             r"libbitsandbytes_cpu\.so: cannot open shared object file: No such file or directory",
             "0.45.5", "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1584",
             "The bitsandbytes 0.45.4 manylinux x86_64 wheel was built without "
             "libbitsandbytes_cpu.so (a CI runner change; checked in the wheel contents), so "
             "importing bitsandbytes on machines that fall back to the CPU library logged this "
             "error. 0.45.5.",
             introduced="0.45.4", requires=r"Could not load bitsandbytes native library"),
    KnownBug("huggingface-hub",
             r"WinError 1314|A required privilege is not held by the client",
             "0.10.0", "https://github.com/huggingface/huggingface_hub/pull/1067",
             "The cache symlinks its files, which Windows refuses without Developer Mode or an "
             "administrator; 0.10.0 falls back to copies (with a warning).",
             requires=r"huggingface|hf_hub|snapshot|from_pretrained|\.cache"),
    KnownBug("transformers",
             r"Some non-default generation parameters are set in the model config",
             "4.45.2", "https://github.com/huggingface/transformers/pull/33906",
             "4.45 made saving a config that holds generation parameters (Whisper's max_length, "
             "suppress_tokens) raise, also from model.config.save_pretrained on checkpoints the "
             "user did not write; 4.45.2 warns instead.", introduced="4.45.0"),
    KnownBug("transformers",
             r"`?token_type_ids`? is required as a model input when training",
             "5.6.0", "https://github.com/huggingface/trl/issues/5807",
             "Gemma 3 / PaliGemma made token_type_ids mandatory in training, which text-only "
             "collators do not produce (until then: batch['token_type_ids'] = "
             "torch.zeros_like(batch['input_ids']))."),
    KnownBug("transformers",
             r"_set_gradient_checkpointing\(\) got an unexpected keyword argument '?enable",
             "4.36.0", "https://github.com/huggingface/transformers/pull/27610",
             "4.35 calls _set_gradient_checkpointing(enable=..., gradient_checkpointing_func=...), "
             "which models with their own code on the Hub (Qwen, ChatGLM, Baichuan) still "
             "defined with value=; 4.36 falls back to the old signature (or pin 4.34.1)."),
    KnownBug("transformers",
             r"Error\(s\) in loading state_dict for PeftModel\w{0,40}:\s{0,20}Missing key\(s\) in "
             r"state_dict: \"base_model\.model\.", "4.38.0",
             "https://github.com/huggingface/transformers/pull/28746",
             "resuming a PEFT run under DeepSpeed loaded the adapter-only checkpoint strictly, so "
             "every frozen base weight was reported missing", requires=r"deepspeed"),
    KnownBug("transformers",
             r"Object of type '?Tensor'? is not JSON serializable", "4.39.0",
             "https://github.com/huggingface/transformers/issues/29270",
             "4.38 logged DeepSpeed's grad_norm as a tensor, so trainer_state.json could not be "
             "written at a checkpoint or save_state()",
             requires=r"grad.?norm"),   # the Trainer passes grad_norm from 4.38 on
    KnownBug("transformers",
             r"Loading a quantized checkpoint into non-quantized Linear8bitLt is not supported",
             "4.30.0", "https://github.com/huggingface/transformers/pull/23443",
             "load_best_model_at_end reloaded an 8-bit model's best checkpoint with "
             "load_state_dict, which Linear8bitLt refuses", requires=r"_load_best_model|"
             r"load_best_model_at_end"),
    KnownBug("setfit",
             r"on_init_end\(\) missing 1 required positional argument: '?trainer", "1.1.2",
             "https://github.com/huggingface/setfit/pull/603",
             "SetFit 1.1.0/1.1.1 called its callbacks' on_init_end the way sentence-transformers "
             "3.4 and later no longer do"),
    KnownBug("transformers",
             r"No such file or directory: '?[^'\n]{0,200}tmp-checkpoint-\d+'? -> ", "4.36.1",
             "https://github.com/huggingface/transformers/pull/28009",
             "with several GPUs every process renamed the temporary checkpoint folder, and all "
             "but the first found it gone"),
    KnownBug("transformers",
             r"Directory not empty: '?[^'\n]{0,200}tmp-checkpoint-\w+'? -> ", "4.49.0",
             "https://github.com/huggingface/transformers/pull/36112",
             "a 4.49 development build renamed a random temporary checkpoint folder onto the same "
             "checkpoint from every process (reverted before the release; its random suffix "
             "marks that build)"),
    KnownBug("datasets",
             r"Can only convert 1-dimensional array values", "1.12.1",
             "https://github.com/huggingface/datasets/pull/2922",
             "datasets 1.12.0 stopped converting the multi-dimensional numpy arrays a map "
             "function returns (image processors' pixel_values)"),
    # checked against the wheels: accelerate 0.10.0 gives DeepSpeedOptimizerWrapper
    # step_was_skipped; evaluate 0.4.1 imports datasets' own DownloadConfig
    KnownBug("accelerate", r"'DeepSpeedZeroOptimizer\w*' object has no attribute "
             r"'?step_was_skipped", "0.10.0", "https://github.com/huggingface/accelerate/issues/443",
             "with DeepSpeed and fp16, accelerate 0.9 asked DeepSpeed's ZeRO optimizer for "
             "step_was_skipped, which only accelerate's own wrapper (0.10) provides"),
    KnownBug("evaluate", r"'DownloadConfig' object has no attribute '?storage_options", "0.4.1",
             "https://github.com/huggingface/evaluate/issues/449",
             "evaluate 0.4.0 handed its own DownloadConfig to datasets, which reads storage_options "
             "from it since datasets 2.11 (workaround: datasets<2.11)"),
    KnownBug("transformers", r"requires the TensorFlow library but it was not found", "4.2.1",
             "https://github.com/huggingface/transformers/issues/9650",
             "transformers 4.2.0 looked TensorFlow up by its distribution names and missed "
             "tf-nightly, so every TF class said TensorFlow was not installed",
             requires=r"tf[-_]nightly"),
    # checked against the wheels: the check is in datasets 2.3.0 and 2.3.2, not in 2.2.2 or 2.4.0
    KnownBug("datasets", r"Class label -\d+ less than -1", "2.4.0",
             "https://github.com/microsoft/unilm/issues/760",
             "datasets 2.3 refused ClassLabel values below -1, so label columns holding the -100 "
             "ignore index (token classification, LayoutLM) failed to cast; 2.4.0 dropped the "
             "check (or stay on 2.2.2)"),
)
