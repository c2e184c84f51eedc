"""Environment rules whose cause is a release: too old for the code (env-version-too-old) or too
new for it (env-version-too-new, an API a release removed or changed)."""
from __future__ import annotations

from wizard.triage.env_answers import (
    MISMATCH,
    NEW,
    OLD,
    QUOTE,
)
from wizard.triage.env_arguments import (
    refine_cli_option,
    refine_cli_subcommand,
    refine_hook_arity,
    refine_keras_kwargs,
    refine_kwarg_newer_than_stated,
    refine_release_removed,
    refine_removed_argument_in_code,
    refine_unexpected_kwarg,
)
from wizard.triage.env_imports import (
    refine_cannot_import,
    refine_import_line,
    refine_module_attribute,
    refine_name_not_defined,
)
from wizard.triage.env_refines import (
    refine_config_class,
    refine_fixed_on_main,
    refine_older_release_works,
    refine_model_type_key,
    refine_model_type_taken,
    refine_output_unpacked,
    refine_peft_config_dict,
    refine_release_skew_guess,
    refine_requirement_violated,
    refine_requires_version,
    refine_processor_class,
    refine_tokenizer_class,
    refine_tokenizers_format,
    refine_upgrade_fixed_it,
)
from wizard.triage.env_releases import (
    refine_constructor_argument,
    refine_dataset_script_release,
    refine_packaged_builder,
    refine_example_script,
    refine_not_supported_yet,
)
from wizard.triage.env_signature import env_signature as _sig
from wizard.triage.env_stated import (
    refine_import_cut,
    refine_model_type_said_unsupported,
    refine_name_said_removed,
)
from wizard.triage.env_skew import (
    refine_installed_conflict,
    refine_pins_conflict,
    refine_unbatched_input,
)
from wizard.triage.python_syntax import refine_python_too_old
from wizard.triage.signature import Signature

VERSION_SIGNATURES: list[Signature] = [
    _sig("env-datasets-column-object", NEW,
         r"(?:Tensors|list|tuple|sequence|ndarray|str)[^\n]{0,40}, not (?:Iterable)?Column\b|"
         r"'(?:Iterable)?Column' object (?:has no attribute|is not|does not)|"
         r"\bdatasets\.(?:\w+\.)?(?:Iterable)?Column\b|\bIterableColumn\b",
         "Since datasets 4.0, dataset[\"column\"] returns a lazy Column (IterableColumn for a "
         "streamed dataset) instead of a Python list: code written for datasets 3 (torch.stack "
         "of it, .sort(), list methods, json) meets the new object.",
         "values = list(ds[\"column\"])   # or ds[\"column\"][:] : a list, as before\n"
         '# or keep the release the code was written for: pip install "datasets<4.0.0"',
         requires=r"\bdatasets\b|load_dataset|\bDataset\b", priority=14),
    _sig("env-datasets-lazy-decoder", NEW,
         r"'(?P<decoder>AudioDecoder|VideoDecoder)' object (?:is not subscriptable|has no "
         r"attribute '(?:array|sampling_rate|get|keys|items)')",
         "Since datasets 4.0, an Audio (or Video) column gives torchcodec decoder objects that "
         "decode on demand, instead of the dict with 'array' and 'sampling_rate' that code "
         "written for datasets 3 reads.",
         "samples = example[\"audio\"].get_all_samples()   # samples.data, samples.sample_rate\n"
         "array = samples.data.squeeze(0).numpy()\n"
         '# or keep the release the code was written for: pip install "datasets<4.0.0"',
         priority=14),
    _sig("env-hub-cli-removed", NEW,
         r"huggingface-cli(?:\.exe)?: (?:command )?not found|'huggingface-cli' is not recognized "
         r"as an internal or external command|huggingface-cli`?[^\n]{0,80}?\b(?:is )?"
         r"(?:deprecated|no longer (?:callable|works|available|supported))",
         "huggingface_hub 1.0 removed the `huggingface-cli` command: its `hf` command replaces it "
         "(same subcommands and arguments, `login` under `hf auth`). If `hf` is missing too, "
         "huggingface_hub is not installed in this environment.",
         "hf auth login          # was: huggingface-cli login\n"
         "hf download <repo_id>  # was: huggingface-cli download <repo_id>\n"
         "# no hf command: pip install -U huggingface_hub", priority=14),
    _sig("env-tiktoken-encoding-unknown", OLD,
         r"Unknown encoding (?P<encoding>\w+)\. Plugins found",
         "The installed tiktoken does not know that encoding: encodings arrive with tiktoken "
         "releases (o200k_base, GPT-4o's, came in 0.7.0).",
         'pip install -U tiktoken   # then restart the runtime', priority=14),
    _sig("env-lazy-module-without-spec", NEW,
         r"\b(?P<module>(?:transformers|diffusers|datasets)(?:\.\w+)+)\.__spec__ is None",
         "Another installed package probes (importlib.util.find_spec) a module of a release that "
         "loads its modules lazily without a __spec__: a newer prober (torchmetrics 0.7 and "
         "later, pytorch-lightning, ...) against an older transformers.",
         'pip install -U transformers   # lazy modules carry a __spec__ in later releases\n'
         '# or keep the prober at the release before it probed: pip install "torchmetrics<0.7"',
         priority=14),
    # checked against the wheels: accelerate 0.18.0's PartialState calls
    # init_process_group(backend="nccl", **kwargs); 0.19.0 pops the backend from kwargs first
    _sig("env-accelerate-backend-twice", MISMATCH,
         r"init_process_group\(\) got multiple values for (?:keyword )?argument '?backend",
         "transformers' TrainingArguments (the 4.29 development builds on) hands backend= to "
         "accelerate's PartialState, and accelerate before 0.19 passed its own backend to "
         "init_process_group as well: a newer transformers with an older accelerate.",
         'pip install -U "accelerate>=0.19.0"   # or keep transformers==4.28.1', priority=14),
    _sig("env-state-dict-position-ids", NEW,
         r"Unexpected key\(s\) in state_dict:[^\n]*position_ids|"
         # load_state_dict(strict=False)'s return value
         r"_IncompatibleKeys\([^\n]{0,300}?unexpected_keys=\[[^\]\n]*position_ids",
         "The state dict was saved by a transformers older than 4.31, which stored position_ids "
         "as a buffer; the installed release no longer has it, so a strict load_state_dict "
         "refuses the extra key.",
         "model.load_state_dict(state_dict, strict=False)   # position_ids is rebuilt\n"
         '# or: pip install "transformers<4.31"', priority=16),
    _sig("env-state-dict-position-ids-missing", OLD,
         r"Missing key\(s\) in state_dict: (?:\"[\w.]*position_ids\",? ?)+\.?[ \t]*(?:\n|$)",
         "The state dict was saved by transformers 4.31 or later, which no longer stores "
         "position_ids; the transformers loading it is older and expects the buffer.",
         "pip install -U transformers   # or: model.load_state_dict(state_dict, strict=False)",
         priority=16),
    _sig("env-torch-dtype-itemsize", OLD,
         r"'torch\.dtype' object has no attribute 'itemsize'",
         "A library (transformers, accelerate, peft) reads torch.dtype.itemsize, which torch "
         "added in 2.1; the installed torch is older.",
         'pip install -U "torch>=2.1"   # or pin the library to a release that supports your '
         "torch", priority=16),
    _sig("env-rouge-scores-are-floats", NEW,
         r"'numpy\.float64' object has no attribute '(?:mid|low|high|fmeasure)'",
         "The code reads ROUGE scores as the AggregateScore tuples (.mid.fmeasure) of the old "
         "datasets.load_metric; evaluate's rouge returns plain floats.",
         "result = rouge.compute(predictions=preds, references=refs)\n"
         "result = {k: round(v * 100, 4) for k, v in result.items()}   # already the F-measures",
         priority=16),
    _sig("env-peft-config-dict", NEW,
         r"'dict' object has no attribute '(?P<attr>\w+)'",
         "The code reads model.peft_config as one config object; since peft 0.3 it is a dict of "
         "configs keyed by adapter name ('default'), so the code was written for an older peft.",
         "model.peft_config['default'].save_pretrained(path)   # or model.save_pretrained(path)\n"
         "# or: pip install the peft release the project pins", refine=refine_peft_config_dict,
         priority=16),
    _sig("env-empty-adapter-state-dict-override", NEW,
         # a size in bytes, not a model's (Qwen2-VL-72B)
         r"adapter_model\.(?:bin|safetensors)[^\n]{0,200}?\b(?:(?:only|just) )?(?:(?:4\d\d|"
         r"[1-9]\d?) ?bytes?|4\d\d ?B)\b|\b(?:(?:4\d\d|[1-9]\d?) ?bytes?|4\d\d ?B)\b[^\n]{0,120}?"
         r"adapter_model|"
         r"adapter_model\.(?:bin|safetensors)[^\n]{0,120}?\b(?:is )?empty\b",
         "The saved adapter is empty: the training script (alpaca-lora's finetune.py and the "
         "scripts copied from it) replaces model.state_dict with get_peft_model_state_dict, and "
         "the peft release installed applies it again in save_pretrained, filtering out every "
         "key: the script was written for an older peft.",
         "# delete the override in the script:\n#   model.state_dict = (lambda self, *_, **__: "
         "get_peft_model_state_dict(self, old_state_dict())).__get__(model, type(model))\n"
         "# or: pip install the peft release the script pins", priority=16),
    _sig("env-non-consecutive-added-token", OLD,
         r"Non-consecutive added token '[^'\n]*' found",
         "The tokenizer was saved by a newer transformers (added tokens are stored "
         "differently since 4.34) than the one loading it.", 'pip install -U transformers',
         priority=16),
    _sig("env-rope-scaling-llama3", OLD,
         r"[`']rope_scaling[`'] must be a dictionary with (?:two|with two) fields, [`']type[`'] "
         r"and [`']factor[`']",
         "The checkpoint's rope_scaling (Llama 3.1 and later: rope_type 'llama3') is newer than "
         "the installed transformers, which knows only {type, factor}.",
         'pip install -U "transformers>=4.43"', priority=17),
    _sig("env-bnb-4bit-serialization", OLD,
         r"You are calling `save_pretrained` on a 4-bit converted model",
         "Saving a 4-bit model needs a newer bitsandbytes (and transformers) than installed.",
         'pip install -U "bitsandbytes>=0.41.3" transformers   # or save only the adapter: '
         "model.save_pretrained(dir) on the PeftModel", priority=16),
    _sig("env-torch-weights-only", NEW,
         r"Weights only load failed\. In PyTorch 2\.6, we changed the default value of the "
         r"`weights_only` argument",
         "PyTorch 2.6 loads checkpoints with weights_only=True by default; this file (an "
         "optimizer state, a pickled object of an older library) needs the old behaviour.",
         "torch.load(path, weights_only=False)   # only for files you trust\n"
         "# or: pip install -U transformers accelerate   # releases that load these files",
         priority=17),
    _sig("env-torch-load-needs-2-6", OLD,
         r"Due to a serious vulnerability issue in `torch\.load`, even with `weights_only=True`, "
         r"we now require users to upgrade torch to at least v2\.6",
         "transformers refuses torch.load of .bin checkpoints with torch older than 2.6.",
         'pip install -U "torch>=2.6"   # or load a .safetensors copy of the weights',
         priority=17),
    _sig("env-requires-version", OLD,
         r"(?<![\w-])(?P<pkg>[A-Za-z][\w-]*)\s*(?:>=\s*(?P<low>\d[\w.]*)(?:,\s*!=\s*[\d.]+)*(?:,\s*<\s*"
         r"(?P<high>\d[\w.]*))?|<\s*(?P<below>\d[\w.]*)) is required for a normal functioning of "
         r"this module, but found "
         r"[\w-]+==(?P<found>\d[\w.]*)|"
         r"requires?\s+(?:the\s+)?`?(?:package\s+)?`?(?P<pkg2>[A-Za-z][\w-]*)`?\s*(?:version\s*)?"
         r"(?:>=|>|~=)\s*`?(?P<low2>\d[\w.]*)|"
         r"make sure (?:that )?you have installed `(?P<pkg3>[A-Za-z][\w-]*)>=(?P<low3>\d[\w.]*)`|"
         # "longlora.py requires transformers between 4.41.2 and 4.45.0"
         r"requires?\s+`?(?P<pkg4>[A-Za-z][\w-]*)`?\s+(?:version\s+)?between\s+v?"
         r"(?P<low4>\d[\w.]*\d)\s+and\s+v?(?P<high4>\d[\w.]*\d)|"
         # "Please either install transformers<5.0.0 or create ..."
         r"\b(?:please |either |pip )install `?['\"]?(?P<pkg5>[A-Za-z][\w-]*)\s*<\s*"
         r"(?P<below5>\d[\w.]*\d)",
         "A package is older (or newer) than the code requires.", "pip install -U <package>",
         refine=refine_requires_version, priority=17),
    _sig("env-protobuf-too-new", NEW,
         r"Descriptors cannot (?:not )?be created directly|'MessageFactory' object has no attribute "
         r"'GetPrototype'",
         "The installed protobuf is newer than the generated code of a package that uses it "
         "(protobuf 4 rejects code generated by protoc < 3.19; protobuf 5 removed "
         "MessageFactory.GetPrototype).",
         'pip install "protobuf<=3.20.3"   # or: upgrade the package whose _pb2 files fail\n'
         "# or: export PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python", priority=17),
    _sig("env-bnb-training", OLD,
         r"is quantized with QuantizationMethod\.BITS_AND_BYTES but that quantization method do "
         r"not support training",
         "transformers allows training an 8-bit bitsandbytes model only with bitsandbytes 0.37.0 "
         "or later; the installed bitsandbytes is older.",
         'pip install -U "bitsandbytes>=0.37.0"   # then restart the runtime', priority=18),
    _sig("env-cli-command-unknown", OLD,
         r"error: argument (?:command|subcommand|\{[\w,-]+\}|[\w_]+): invalid choice: "
         r"'(?P<command>[\w-]+)' \(choose from (?P<choices>[^)\n]{1,400})\)",
         "The library's command-line tool has no such command in the installed release.",
         "pip install -U <the package>", refine=refine_cli_subcommand, priority=15),
    _sig("env-cli-option-unknown", OLD,
         r"(?m)(?:^|[\s\"'`:\u201c\uff1a])(?P<prog>[A-Za-z][\w.-]*): error: unrecognized "
         r"arguments: (?P<options>[^\n]+)|"
         # ms-swift's parser: the arguments none of its dataclasses took
         r"remaining_argv: \[(?P<argv>[^\]\n]+)\]",
         "The library's command-line tool has no such option in the installed release.",
         "pip install -U <the package>", refine=refine_cli_option, priority=14),
    _sig("env-kwarg-newer-than-release", OLD,
         r"missing \d+ required positional arguments?: '\w+'",
         "The code passes a keyword that a later release introduced.", "pip install -U <package>",
         refine=refine_kwarg_newer_than_stated, priority=9),
    _sig("env-fixed-on-main-branch", OLD,
         # "pip install spacy-llm --upgrade ... does not add the change. Installing from github
         # resolves the issue"
         r"\bpip3? install (?:-U |--upgrade )?(?P<pkg>[A-Za-z][\w.-]*)[^\n]*(?:\n[^\n]*){0,12}?\n"
         r"[^\n]*\b(?:install\w*|build\w*) (?:it |them )?from (?:the )?(?:github|git|source|"
         r"main(?: branch)?|master(?: branch)?)\b[^\n]{0,40}?\b(?:resolv\w*|fix\w*|solv\w*|works?|"
         r"worked)\b",
         "The fix is on the package's main branch, not in a release yet.",
         "pip install git+<the package's repository>", refine=refine_fixed_on_main, priority=14),
    _sig("env-upgrade-fixed-it", OLD,
         # "I was able to fix this by upgrading to `datasets>=2.6.0`", "upgrading peft to 0.5
         # solved it" (not "upgrading did not help")
         r"\b(?:fix(?:ed)?|solved?|resolved?) (?:it |this |that |the (?:issue|problem|error) )?by "
         r"(?:upgrad|updat)\w* (?:to )?`?(?P<pkg>[A-Za-z][\w.-]*?)`?(?:\s*(?:>=|==|to|version)\s*"
         r"v?(?P<ver>\d+\.\d+[\w.]*))?`?(?![\w.-])|"
         r"\b(?:upgrad|updat)\w* `?(?P<pkg2>[A-Za-z][\w.-]*?)`? to (?:version )?`?v?(?P<ver2>\d+"
         r"\.\d+[\w.]*)`? (?:fixe[sd]|solve[sd]|resolve[sd]) (?:it|this|the)|"
         # "Upgrading to `timm-0.4.12` fixed it": pip's name-version spelling
         r"\b(?:upgrad|updat)\w* to `?(?P<pkg5>[A-Za-z][\w.]*?)-v?(?P<ver5>\d+\.\d+[\w.]*)`? "
         r"(?:fixe[sd]|solve[sd]|resolve[sd]) (?:it|this|the)|"
         r"\b(?:once|after) (?:I )?(?:updat|upgrad)\w* (?:to )?(?:the )?(?:latest |newest )?(?:version "
         r"(?:of )?)?`?(?P<pkg3>[A-Za-z][\w.-]*?)`?,? (?:this |the )?(?:problem|issue|error) "
         r"(?:is|was|went) (?:gone|away|solved|fixed|resolved)|"
         # "trl == 0.14.0 would get error: ...\nupgrade to 0.15.0 is ok."
         r"\b(?P<pkg4>[A-Za-z][\w.-]*) ?==? ?v?\d+\.\d+[\w.]*\b[^\n]{0,60}?\b(?:errors?|fails?)\b"
         r"[^\n]*\n[^\n]{0,40}?\bupgrad\w* to (?:version )?v?(?P<ver4>\d+\.\d+[\w.]*),? (?:is "
         r"(?:ok|okay|fine)|works?|fixe[sd] it|solve[sd] it)\b",
         "The reporter found that upgrading a package fixed it.", "pip install -U <the package>",
         refine=refine_upgrade_fixed_it, priority=14, outcome=True),
    _sig("env-older-release-works", NEW,
         # "in torchtext 0.2.3, it works well" (beside the newer release the paste runs)
         r"\b(?:in|with|on|using|under) `?(?P<pkg>[A-Za-z][\w.-]*?)`?(?:\s*==\s*|\s+v?|-)"
         r"(?P<ver>\d+(?:\.\d+)+)`?,? (?:it |everything |all |this |that |the (?:code|script) )?"
         r"(?:works?|worked|runs?|ran)(?! not)\b|"
         # "I downgraded PyTorch to 1.5.0 and it worked" (not "it needs a downgrade")
         r"\b(?:downgrad|revert|roll(?:ed|ing)? back|went back|going back)\w*(?: \w+)? to `?"
         r"(?P<pkg2>[A-Za-z][\w.-]*?)`?(?:\s*==\s*|\s+v?|-)(?P<ver2>\d+(?:\.\d+)+)`?"
         r"[^\n.]{0,40}?\b(?:works?|worked|fixe[sd]|solve[sd]|resolve[sd])\b|"
         r"\b(?:downgrad|revert|roll(?:ed|ing)? back)\w* `?(?P<pkg3>[A-Za-z][\w.-]*?)`? to (?:version )?"
         r"`?v?(?P<ver3>\d+(?:\.\d+)+)`?[^\n.]{0,40}?\b(?:works?|worked|fixe[sd]|solve[sd]|"
         r"resolve[sd])\b",
         "The reporter found that an older release of a package works.",
         "pip install \"<package>==<the release that works>\"",
         refine=refine_older_release_works, priority=13, outcome=True),
    _sig("env-model-type-taken", NEW,
         r"'(?P<key>[\w-]+)' is already used by a Transformers config, pick another name",
         "A package registers a model type that the installed transformers already has.",
         "pip install -U <the package that registers it>", refine=refine_model_type_taken,
         priority=14),
    _sig("env-release-skew-guess", MISMATCH,
         r"(?<![\w.])(?P<callee>[A-Za-z_][\w.]*)\(\) (?:got an unexpected keyword argument|"
         r"missing \d+ required (?:positional|keyword-only) arguments?:) ['\"`]?(?P<arg>\w+)|"
         r"\bmodule ['\"`]?(?P<module>[A-Za-z_][\w.]*)['\"`]? has no attribute ['\"`]?"
         r"(?P<name>\w+)",
         "The code and the installed release of a package disagree on an argument or a name.",
         "pip list   # then the release the code was written for",
         refine=refine_release_skew_guess, priority=1, fallback=True),
    _sig("env-config-names-missing-class", OLD,
         # hyperpyyaml (SpeechBrain) resolving a class a model's saved config names
         r"There is no such class as (?P<path>[A-Za-z_]\w*(?:\.\w+)+)",
         "A saved configuration (a model's hyperparams.yaml on the Hub) names a class that the "
         "installed release of its library does not have: the model was saved with a newer "
         "release.", "pip install -U <the library>", refine=refine_config_class, priority=13),
    _sig("env-torch-zip-checkpoint", OLD,
         r"is a zip archive \(did you mean to use torch\.jit\.load\(\)\?\)",
         "The checkpoint was saved by PyTorch 1.6 or later, in the zip-based format, and the "
         "installed PyTorch predates that format: it takes the zip file for a TorchScript "
         "archive.",
         'pip install -U "torch>=1.6"   # or, where torch 1.6+ runs: torch.save(obj, path, '
         "_use_new_zipfile_serialization=False) for the older torch", priority=14),
    _sig("env-pins-conflict", OLD,
         r"Cannot install (?P<what>[^\n]{1,200}?) because these package versions have conflicting "
         r"dependencies",
         "Pinned versions cannot be installed together.", "loosen one of the pins",
         refine=refine_pins_conflict, priority=18),
    # pip after an install: "trl 0.12.0 requires transformers>=4.46.0, but you have
    # transformers 4.44.2 which is incompatible" (older pip: "has requirement ... you'll have")
    _sig("env-installed-conflict", NEW,
         r"(?P<who>[A-Za-z][\w.-]{0,60}) (?:\d[\w.]* )?(?:requires|has requirement) "
         r"(?P<pkg>[A-Za-z][\w.-]{0,60})(?:\[[\w,-]{1,60}\])?(?P<spec>[<>=!~][^,\s]{1,30}(?:,"
         r"[<>=!~][^,\s]{1,30}){0,4}), but you(?:'ll)? have (?:(?P=pkg) )?(?P<found>\d[\w.+]*) "
         r"which is incompatible",
         "An installed package sits beside a release of its dependency outside the range it "
         "requires.", "pip install <the range it requires>", refine=refine_installed_conflict,
         priority=17),
    _sig("env-dataset-scripts", NEW,
         r"Dataset scripts are no longer supported|`?trust_remote_code`? is not supported "
         r"anymore\.\s*Please check that the Hugging Face dataset",
         "datasets 4 removed loading scripts; this dataset is still a script on the Hub.",
         'pip install "datasets<4.0.0"   # or load a script-free (parquet) revision:\n'
         "# load_dataset(name, revision='refs/convert/parquet')", priority=18),
    _sig("env-fsspec-glob", OLD,
         r"Invalid pattern: '\*\*' can only be an entire path component|"
         r"Loading a (?:streaming )?dataset cached in a LocalFileSystem is not supported",
         "The installed datasets is older than the installed fsspec: fsspec 2023.10 changed how "
         "'**' globs are read and how its local file system is named, which datasets before "
         "2.14.6 does not handle.",
         'pip install -U "datasets>=2.14.6"   # or: pip install "fsspec<=2023.9.2"',
         priority=18),
    _sig("env-tokenizer-not-callable", OLD,
         r"'(?P<cls>\w*Tokenizer(?:Fast)?)' object is not callable",
         "Calling the tokenizer itself (tokenizer(texts, ...)) needs transformers 3.0 or later; "
         "an older transformers (2.x, often pinned by another package) is installed.",
         'pip install -U "transformers>=3.0.0"   # or, on 2.x: tokenizer.encode_plus(...) / '
         "tokenizer.batch_encode_plus(...)", priority=16),
    _sig("env-datasets-map-tensors", OLD,
         r"Provided `function` which is applied to all elements of table returns a `dict` of "
         r"types\s+\[<class '(?:torch\.Tensor|tensorflow)",
         "Dataset.map before datasets 2.5.0 takes only lists and NumPy arrays from the function; "
         "this one returns tensors (tokenizer(..., return_tensors='pt')).",
         'pip install -U "datasets>=2.5.0"   # or return lists: tokenizer(batch["text"]) and '
         'ds.set_format("torch") afterwards', priority=16),
    _sig("env-datasets-parquet-splits", OLD,
         r"NonMatchingSplitsSizesError[\s\S]{0,600}?'recorded': SplitInfo\([^)]{0,300}?"
         r"dataset_name='parquet'",
         "The Hub now serves this dataset as parquet files, whose split sizes differ from the "
         "ones its old loading script recorded; the installed datasets still verifies against "
         "the script's numbers.",
         'pip install -U datasets   # reads the parquet export with its own split info',
         priority=16),
    _sig("env-numpy-symbolic-tensor", NEW,
         r"Cannot convert a symbolic Tensor \([^)\n]*\) to a numpy array",
         "NumPy 1.20 or later with TensorFlow 2.4 or older: that TensorFlow's RNN layers call a "
         "NumPy function NumPy 1.20 no longer accepts tensors in.",
         'pip install "numpy<1.20"   # or: pip install -U tensorflow', priority=16),
    _sig("env-gguf-older-than-converter", OLD,
         r"type object '(?:MODEL_ARCH|MODEL_TENSOR|GGMLQuantizationType|LlamaFileType|VocabType)"
         r"' has no attribute '(?P<member>\w+)'",
         "llama.cpp's conversion script is newer than the installed gguf package: it names an "
         "architecture or tensor type that gguf release does not have yet.",
         "pip install -U gguf   # or, from the llama.cpp checkout the script comes from:\n"
         "pip install -e ./gguf-py", priority=16),
    _sig("env-keras-tf-mismatch", NEW,
         r"Another metric with the same name already exists",
         "The standalone keras package is of another release than TensorFlow (keras 2.7 "
         "installed beside TensorFlow 2.6): both register the same metrics on import.",
         'pip install "keras==2.6.*"   # the keras of your TensorFlow release (TensorFlow 2.6 -> '
         'keras 2.6)', priority=16),
    _sig("env-keras-new-optimizer", NEW,
         r"(?:decay|lr) is deprecated in the new Keras optimizer|is not a legacy optimizer|"
         r"Could not interpret optimizer identifier: <keras\.optimizers\.legacy|"
         r"restore a checkpoint from a legacy Keras optimizer into a v2\.11\+ Optimizer",
         "TensorFlow 2.11 made the new Keras optimizers the default; code written for the "
         "older ones passes their arguments (decay=, lr=), mixes the two kinds, or restores "
         "a checkpoint an older optimizer saved.",
         "tf.keras.optimizers.legacy.Adam(learning_rate=3e-5, decay=...)   # the older "
         "optimizer\n# or the new one without decay: tf.keras.optimizers.Adam(learning_rate="
         "tf.keras.optimizers.schedules.PolynomialDecay(...))", priority=16),
    _sig("env-model-output-tuple", NEW,
         r"argument '\w+' \(position \d+\) must be Tensor, not str|"
         # the TensorFlow form: the key names of a ModelOutput reach a Keras layer
         r"Inputs to a layer should be tensors\. Got: (?:last_hidden_state|pooler_output|logits|"
         r"hidden_states)\b|"
         # the loss unpacked from the output is its first key's name: loss.item() on "loss"
         r"'str' object has no attribute '(?:item|backward)'|"
         # the pooled output unpacked as `_, pooled = bert(...)` meets a tensor method
         r"'str' object has no attribute '(?P<tensor_attr>size|dim|shape)'",
         "Since transformers 4 models return a ModelOutput (a dict), not a tuple: unpacking it "
         "(`_, pooled = bert(...)`) gives the key names (strings), which the next layer gets.",
         "outputs = self.bert(input_ids, attention_mask=mask)\npooled = outputs.pooler_output\n"
         "# or: self.bert(..., return_dict=False)", priority=16, refine=refine_output_unpacked),
    _sig("env-unknown-architecture", OLD,
         r"does not recognize this architecture|model type `?(?P<model_type>[\w-]+)`? but "
         r"Transformers does not recognize",
         "The checkpoint's model type is newer than the installed transformers.",
         'pip install -U transformers', priority=17),
    _sig("env-model-type-said-unsupported", OLD,
         r"(?-i:\b[Tt]ransformers?)`?(?:==|\s+v?|\s+version\s+)(?P<version>\d+\.\d+(?:\.\d+)?)"
         r"`?[^\n]{0,30}?\b(?:do(?:es)?n[o']?t|not|never) support[^\n]{0,20}?"
         r"[`'\"](?P<model_type>[a-z][a-z0-9_]{1,40})[`'\"]",
         "The checkpoint's model type is newer than the stated transformers release.",
         "pip install -U transformers", refine=refine_model_type_said_unsupported, priority=8),
    _sig("env-model-type-key", OLD,
         r"KeyError: '(?P<model_type>[a-z][a-z0-9_-]{1,40})'(?![\w'])",
         "The checkpoint's model type is newer than the installed transformers.",
         "pip install -U transformers", refine=refine_model_type_key, priority=16),
    _sig("env-tokenizer-class", OLD,
         r"Tokenizer class (?P<cls>\w+) does not exist or is not currently imported",
         "The tokenizer class the checkpoint names is not in the installed transformers.",
         "pip install -U transformers sentencepiece", refine=refine_tokenizer_class),
    _sig("env-processor-class", OLD,
         r"Could not find (?P<cls>\w+) neither in <module '?transformers",
         "The processor class the checkpoint names is not in the installed transformers.",
         "pip install -U transformers", refine=refine_processor_class),
    # vLLM adds LoRA support one architecture at a time
    _sig("env-vllm-lora-unsupported-model", OLD,
         r"(?P<model>\w+For\w+) does not support LoRA(?: yet|, but LoRA is enabled)",
         "The installed vLLM has no LoRA support for this architecture; later releases add it "
         "architecture by architecture.",
         "pip install -U vllm   # a release whose supported-models table marks LoRA for it; or "
         "merge the adapter (model.merge_and_unload()) and serve the merged model",
         title="No LoRA for this architecture in the installed vLLM", priority=15),
    _sig("env-tokenizers-format", OLD,
         r"data did not match any variant of untagged enum (?:ModelWrapper|PyPreTokenizerTypeWrapper"
         r"|PyNormalizerTypeWrapper|PyDecoderWrapper|PreTokenizerWrapper|NormalizerWrapper)",
         "tokenizer.json was written by a newer tokenizers than the one installed (rarely: a "
         "tokenizer saved in a form it cannot read back, e.g. BPE merges containing spaces).",
         'pip install -U tokenizers transformers', refine=refine_tokenizers_format, priority=16),
    _sig("env-keras-no-loss-tf2", OLD,
         r"The model cannot be compiled because it has no loss to optimize",
         "compile() without a loss, with the loss computed in a custom train_step, needs "
         "TensorFlow >= 2.2.", 'pip install -U "tensorflow>=2.2"'),
    # a layer's saved config read back by a Keras release whose layer lacks one of its arguments
    _sig("env-keras-file-from-other-release", OLD,
         r"__init__\(\) got an (?:un)?expected keyword argument '(?P<arg>\w+)'|Keyword argument "
         r"not understood:?['\"]?,?\s*'?(?P<arg2>\w+)",
         "The model file was saved by another Keras release than the one loading it, usually a "
         "newer one (TensorFlow 2.x after the loader's, or Keras 3): a layer's saved config holds "
         "an argument the installed Keras's layer does not take.",
         "pip install -U tensorflow   # load with the Keras release that saved the file, or a "
         "newer one (a Keras 3 file needs Keras 3); or rebuild the model in code and load only "
         "its weights",
         requires=r"\b(?:load_model|model_from_json|model_from_config|model_from_yaml)\(|"
                  r"\bfrom_config\(|\.h5\b|\.keras['\"]|hub\.KerasLayer",
         title="A Keras model file saved by another release", priority=15),
    # ms-swift 3 renamed its 2.x options: --model_id_or_path became --model, --sft_type
    # --train_type
    _sig("env-ms-swift-2-arguments", NEW,
         r"Please set --model <model_id_or_path>",
         "A command written for ms-swift 2 (--model_type, --model_id_or_path, --sft_type) runs "
         "on ms-swift 3, which renamed those options and so sees no model.",
         "swift sft --model Qwen/Qwen2-VL-2B-Instruct --train_type lora ...   # ms-swift 3's "
         "names; or pip install \"ms-swift<3\" for the 2.x command",
         requires=r"--model_id_or_path|--sft_type",   # 2.x only (3.x keeps --model_type)
         title="An ms-swift 2 command on ms-swift 3", priority=15),
    # torch before 1.6 reads every checkpoint as a tar archive; 1.6 and later save zip files
    _sig("env-torch-too-old-for-zip-checkpoint", OLD,
         r"invalid literal for int\(\) with base 8|"
         r"version_ <= kMaxSupportedFileFormatVersion INTERNAL ASSERT FAILED",
         "The checkpoint was saved by a newer PyTorch (1.6 and later write a zip file) than the "
         "one loading it, which reads it as an older format.",
         "pip install -U torch   # 1.6 or later reads the zip checkpoints of newer releases",
         title="A checkpoint newer than the installed PyTorch", priority=15),
    # the CUDA toolkit that compiles an extension predates the GPU's architecture
    _sig("cuda-toolkit-too-old-for-gpu-arch", OLD,
         r"nvcc fatal\s*:?\s*unsupported gpu architecture '?compute_(?P<arch>\d+)",
         "The CUDA toolkit (nvcc) compiling the extension is older than the GPU's architecture: "
         "compute_86 (RTX 30xx, A10, A40) needs CUDA 11.1, compute_89 (RTX 40xx, L4) and "
         "compute_90 (H100) 11.8.",
         "# install a CUDA toolkit new enough for the GPU (and matching torch's CUDA), then "
         "rebuild; or limit the build to the architectures it knows:\nexport "
         "TORCH_CUDA_ARCH_LIST=\"8.0\"",
         title="A CUDA toolkit older than the GPU", priority=15),
    # h5py 3 returns the HDF5 attributes Keras 2.0-2.3 decodes as str already
    _sig("env-h5py3-str-attributes", NEW,
         r"'str' object has no attribute 'decode'",
         "h5py 3 returns an HDF5 file's attributes as str, and the Keras loading the file (Keras "
         "2.0 to 2.3, TensorFlow before 2.4) still decodes them as bytes.",
         "pip install \"h5py<3\"   # h5py 2.10 for that Keras; or a TensorFlow/Keras release "
         "that reads h5py 3's attributes (TensorFlow 2.4 or later)",
         requires=r"\.h5\b|hdf5|h5py|\bload_weights\(|\bload_model\(|keras_version|"
                  r"model_config|training_config",
         title="h5py 3 under an older Keras", priority=15),
    # Keras 3's Lambda traces its function to infer the output; Keras 2's backend functions and
    # TensorFlow ops inside it (code written for Keras 2) do not trace
    _sig("env-keras3-lambda-shape", NEW,
         r"could not automatically infer the shape of the Lambda's output",
         "Keras 3 runs code written for Keras 2: its Lambda layer cannot infer the output shape of "
         "a function built on Keras 2's backend (`K.`) or on TensorFlow ops.",
         "from keras import ops as K   # Keras 3's ops inside the Lambda (or Lambda(fn, "
         "output_shape=...))\n# or keep Keras 2: pip install tf-keras; export "
         "TF_USE_LEGACY_KERAS=1",
         requires=r"\bK\.\w+\(|keras\.backend|backend as K|\btf\.\w+|tensorflow",
         title="Keras 3 cannot infer a Lambda's output", priority=15),
    _sig("env-deepspeed-no-sync-zero", NEW,
         r"no_sync context manager is incompatible with gradient partitioning logic of ZeRO "
         r"stage",
         "DeepSpeed 0.16 and later refuse no_sync() under ZeRO stage 2/3, and the installed "
         "training loop (accelerate's or the Trainer's gradient accumulation, or the project's) "
         "still calls it: the DeepSpeed release is newer than the loop was written for.",
         'pip install "deepspeed<0.16"   # or transformers>=4.47.1, whose Trainer skips '
         "no_sync under DeepSpeed (and a loop of your own: no accelerator.no_sync with ZeRO 2/3)",
         title="DeepSpeed refuses no_sync under ZeRO", priority=16),
    _sig("env-timm-unknown-model", OLD,
         # timm's words for a name missing from its registry
         r"Unknown model \((?P<model>[\w.-]+)\)",
         "The installed timm has no model of that name: it came in a later release (or is only "
         "on timm's main branch), or the name was renamed or misspelt.",
         "python -c \"import timm; print(timm.list_models('<family>*'))\"   # the names the "
         "installed timm knows\npip install -U timm   # newer models; the main branch: pip "
         "install git+https://github.com/huggingface/pytorch-image-models",
         title="timm does not know that model name", priority=14),
    _sig("env-tiktoken-model-unknown", OLD,
         r"Could not automatically map (?P<model>[\w.-]+) to a tokeni[sz]er",
         "The installed tiktoken predates that model name in its table of models and encodings.",
         "pip install -U tiktoken   # newer model names\n# or name the encoding: "
         "tiktoken.get_encoding('cl100k_base')",
         title="tiktoken does not know that model name", priority=14),
    # transformers 4's TF models take input_ids first; Keras refuses a call naming it otherwise
    _sig("env-tf-model-call-inputs-keyword", NEW,
         r"The first argument to `Layer\.call` must always be passed",
         "The code calls a transformers TensorFlow model with inputs= (the first argument's name "
         "in transformers 3); later releases name it input_ids, so Keras sees no first "
         "argument.",
         "outputs = model(input_ids, attention_mask=attention_mask)   # positional, or "
         "input_ids=\n# or the release the code was written for: pip install "
         "\"transformers<4\"",
         # a transformers TF model in the paste: a TF class, the library, or a model family's name
         requires=r"(?s)(?=.*\binputs\s*=)(?=.*(?:\bTF[A-Z]\w+|transformers|from_pretrained|"
                  r"Bert|XLNet|T5|GPT2|Electra))",
         title="A TF model called with inputs=", priority=14),
    _sig("env-keras3-kwargs", NEW,
         r"Unrecognized keyword arguments(?: passed to (?P<callee>\w+))?: \{'(?P<arg>\w+)'",
         "Keras 3 no longer accepts an argument of Keras 2.", "pip install tf-keras",
         refine=refine_keras_kwargs, priority=16),
    _sig("env-python-too-old", OLD,
         r"SyntaxError: (?:invalid syntax|f-string)|'type' object is not subscriptable|"
         r"unsupported operand type\(s\) for \|: '|"
         # no exception line (prose may follow): a traceback cut at the line that does not parse
         r"\A(?![\w.]*(?:Error|Exception)\b)",
         "A library needs a newer Python than the one running it.",
         "# use a newer Python (a new environment)", refine=refine_python_too_old, priority=16),
    _sig("env-requirement-violated", OLD,
         r"(?-i:\b(?:trl|peft|transformers|datasets|accelerate|huggingface[-_]hub|Huggingface_hub))"
         r"`?(?:==|:|\s+v?|\s+version:?\s*)\s*\d+\.\d+",
         "A library runs beside a release of its dependency that it does not support.",
         "pip install -U <the library> <the dependency>   # together", priority=3,
         refine=refine_requirement_violated),
    _sig("env-release-removed-argument", NEW,
         r"(?-i:\b(?P<pkg>trl|peft|transformers|datasets|accelerate))(?:==|\s+v?|\s+version\s+)"
         r"(?P<ver>\d+\.\d+(?:\.\d+)?)\b",
         "A release took out an argument the code passes.", "pip install \"<package><release>\"",
         refine=refine_release_removed, priority=4),
    _sig("env-dataset-builder-newer", OLD,
         r"Couldn't find '(?P<name>[\w-]+)' on the Hugging Face Hub|Dataset '(?P<name2>[\w-]+)' "
         r"doesn't exist on the Hub|Couldn't find a dataset script at \S*?/(?P<name3>[\w-]+)/"
         r"(?P=name3)\.py",
         "The installed datasets predates the builder the code names.",
         "pip install -U datasets", refine=refine_packaged_builder, priority=16),
    _sig("env-dataset-script-release", OLD,
         r"Couldn't find file (?:locally )?at (?P<name>[\w.-]+)/[\w.-]+\.py,? or remotely at "
         r"https://raw\.githubusercontent\.com/huggingface/(?:datasets|nlp)/(?P<release>[\w.]+)/",
         "The installed datasets predates the dataset's loading script.",
         "pip install -U datasets", refine=refine_dataset_script_release, priority=16),
    _sig("env-dataset-script-on-hub", OLD,
         r"Couldn't find file at https?://huggingface\.co/datasets/[\w.-]+/(?P<name>[\w.-]+)/"
         r"resolve/[\w.%-]+/(?P=name)\.py",
         "The installed datasets looks for a loading script named after the dataset in its Hub "
         "repository, as datasets 1.x did; a repository of data files only (parquet, csv, json) "
         "loads with a newer datasets. (If the repository is private or gated, the same lookup "
         "fails without a token.)",
         "pip install -U datasets\n# private or gated: hf auth login first",
         priority=16),
    _sig("env-example-script-release", OLD,
         r"(?P<script>\brun_\w+\.py)\b[\s\S]{0,800}?\b(?:ImportError|cannot import name)\b|"
         r"\b(?:ImportError|cannot import name)\b[\s\S]{0,800}?(?P<script2>\brun_\w+\.py)\b",
         "An example script of the main branch runs against an older installed release.",
         "pip install git+https://github.com/huggingface/transformers",
         refine=refine_example_script, priority=9),
    _sig("env-not-supported-yet", OLD,
         r"\bnot (?:yet )?supported yet\b|\bnot yet supported\b",
         "The library does not support this yet in the installed release.",
         "pip install -U <package>", refine=refine_not_supported_yet, priority=8),
    _sig("env-constructor-argument", NEW,
         r"(?<!\w)(?P<cls>[A-Z]\w{0,80})\.__init__\(\) missing \d+ required positional arguments?: "
         r"'(?P<arg>\w+)'",
         "A library class now requires an argument the code does not pass.",
         "pip install \"<package><installed>\"", refine=refine_constructor_argument, priority=12),
    _sig("env-cannot-import", OLD,
         rf"cannot import name {QUOTE}(?P<name>\w+){QUOTE}(?: from (?P<partial>partially initialized "
         rf"module )?{QUOTE}(?P<module>[\w.]+){QUOTE}(?: \(most likely due to a circular import\))?"
         r"(?P<loc> \([^)\n]*\))?)?",
         "A name cannot be imported from a package.", "pip install -U <package>",
         refine=refine_cannot_import),
    _sig("env-image-processor-size-dict", NEW,
         r"Size should be int or sequence\. Got <class 'dict'>",
         "An image processor's `size` went to torchvision's Resize/CenterCrop as it is: newer "
         "transformers releases store it as a dict ({'height': h, 'width': w} or "
         "{'shortest_edge': s}) where the code was written for the int of older ones.",
         'size = processor.size   # or feature_extractor.size\n'
         'size = size["shortest_edge"] if "shortest_edge" in size else '
         '(size["height"], size["width"])\nResize(size)', priority=14),
    _sig("env-name-said-removed", NEW,
         r"[`'\"](?P<name>[A-Za-z_]\w{2,})[`'\"][^\n`'\"]{0,60}?\b(?:is|was|has been|have been|"
         r"were|got)\s+(?:now\s+|since\s+|completely\s+|fully\s+)?(?:removed|dropped|deleted|"
         r"deprecated)\b(?!,? and (?:will|may|might|is going to)\b)",
         "A name the code uses was removed by a release newer than the code was written for.",
         "pip install \"<the library><the release that removed it>\"",
         refine=refine_name_said_removed, priority=4),
    _sig("env-import-cut", OLD,
         # no exception line: the import is the last frame's code (frames are not searched)
         r"\A(?![\w.]*(?:Error|Exception)\b)",
         "A traceback cut at an import line, beside a release of that library that lacks a name "
         "it imports.", "pip install -U <the library>", refine=refine_import_cut, priority=4),
    _sig("env-import-line", OLD,
         r"(?m)^\s*`*from (?P<module>[A-Za-z_][\w.]*) import (?P<name>[A-Z]\w*)`*\s*$",
         "A class is imported from a library it does not belong to.", "from <its library> import "
         "<name>", refine=refine_import_line, priority=5),
    _sig("env-module-attribute", OLD,
         rf"(?P<kind>module|type object) ?{QUOTE}(?P<module>[A-Za-z_][\w.]*){QUOTE} has no "
         rf"attribute {QUOTE}(?P<name>\w+)",
         "A module of a library lacks a name the code uses.", "pip install -U <package>",
         refine=refine_module_attribute, priority=12),
    _sig("env-unexpected-kwarg", OLD,
         r"(?<![A-Za-z0-9_.])(?P<callee>[A-Za-z_][\w.]*)\(\) ?got an unexpected keyword argument"
         r" ?['\"](?P<arg>\w+)['\"]",
         "A function got an argument the installed release does not have.",
         "pip install -U <package>", refine=refine_unexpected_kwarg, priority=11),
    _sig("env-hook-arity", NEW,
         r"(?<![\w.])(?:\w{1,80}\.)?(?P<hook>training_step|compute_loss|prediction_step|"
         r"evaluation_loop|train_step|test_step|_prepare_inputs|log|create_optimizer)\(\) takes "
         r"(?:from \d+ to )?(?P<takes>\d+) positional arguments? but (?P<given>\d+) (?:were|was) "
         r"given",
         "A Trainer hook is overridden with fewer parameters than the library now passes.",
         "def <hook>(self, *args, **kwargs)", refine=refine_hook_arity, priority=11),
    _sig("env-unbatched-input", NEW,
         r"Wrong shape for input_ids(?P<flat> \(shape (?:torch\.Size\(\[\d+\]\)|\(\d+,?\))\))?",
         "A transformers model got input_ids without a batch dimension.",
         "input_ids.unsqueeze(0)", refine=refine_unbatched_input, priority=12),
    _sig("env-removed-argument-in-code", NEW,
         # or the reporter tells of an error without pasting it
         r"\bTypeError\b|\b(?:getting|get|got|facing|having|encounter\w*) (?:this|the following|an?|"
         r"the same) error\b",
         "The code passes an argument the installed release removed.",
         "drop or rename the argument", refine=refine_removed_argument_in_code, priority=2),
    _sig("env-name-not-defined", OLD,
         r"name '(?P<name>[A-Z]\w*|flash_attn_\w+)' is not defined|"
         # the same in a reporter's words: 'The function or method "Partial State" is not defined'
         r"[\"'`](?P<name2>[A-Z][\w ]{0,40}?)[\"'`] is not defined",
         "A name imported only when an optional package is recent enough is undefined.",
         "pip install -U <package>", refine=refine_name_not_defined, priority=12),
    _sig("env-bitsandbytes-4bit-version", OLD,
         r"You have a version of `?bitsandbytes`? that is not compatible with (?:4|8)bit",
         "transformers found a bitsandbytes too old for 4/8-bit loading, or a broken or duplicate "
         "install whose metadata reports another version.",
         "pip install -U --force-reinstall bitsandbytes   # then restart the runtime",
         priority=17),
    _sig("env-datasets-list-feature", OLD,
         r"Feature type '(?:List|Json)' not found",
         "The data (its dataset_info or parquet metadata) was written by datasets 4, whose List "
         "feature type the installed datasets 3 or older does not know.",
         'pip install -U "datasets>=4.0"   # the release that wrote it; or write the data again '
         "with the release you train with", priority=17),
    _sig("env-dynamo-python-too-new", OLD,
         r"Dynamo is not supported on Python 3\.1\d\+",
         "torch.compile supports Python 3.12 only from PyTorch 2.4 (3.13 from 2.6); the "
         "installed torch is older than the interpreter.",
         'pip install -U "torch>=2.4"   # or Python 3.11, or TrainingArguments(torch_compile=False)',
         priority=17),
    _sig("env-mps-autocast-unsupported", NEW,
         r"User specified an unsupported autocast device_type 'mps'",
         "transformers 4.38.2 wrapped rotary embeddings in torch.autocast(device_type=...), which "
         "the installed PyTorch does not offer for 'mps'.",
         'pip install -U "transformers>=4.39"   # or pin transformers==4.38.1', priority=17),
    _sig("env-legacy-package-hub-id", OLD,
         r"(?:OSError|EnvironmentError): file (?P<id>[\w.-]+/[\w.-]+) not found",
         "pytorch_transformers and pytorch_pretrained_bert, transformers' predecessors, know only "
         "their own shortcut names (bert-base-uncased ...): they predate the Hub's namespaced "
         "ids (organisation/model), so they look for a local file of that name.",
         "pip install -U transformers   # then: from transformers import BertModel; "
         "BertModel.from_pretrained(\"organisation/model\")",
         requires=r"pytorch_transformers|pytorch_pretrained_bert", priority=15),
    _sig("env-quantization-method-unknown", OLD,
         r"Unknown quantization type, got (?P<method>\w+) - supported types are",
         "The checkpoint's quantization_config names a quant_method the installed transformers "
         "does not know (fp8 checkpoints such as DeepSeek-V3 need 4.50 or later).",
         'pip install -U transformers   # knows more quantization methods\n# or load a bf16 '
         "conversion of the checkpoint", priority=17),
]
