"""More of the catalogue: errors of datasets, tokenizers, the Hub, PEFT/TRL, Keras, mixed precision
and CUDA set-ups that fine-tuning runs into, each with its usual cause and fix."""
from __future__ import annotations

from wizard.triage.hf_refines import (
    refine_body_weights_unused,
    refine_checkpoint_resume,
    refine_collated_label,
    refine_decoder_call,
    refine_download_forbidden,
    refine_flash_padding,
    refine_frozen_adapter,
    refine_grpo_groups,
    refine_head_missing,
    refine_hub_signature,
    refine_invalid_token,
    refine_load_path,
    refine_loader_path,
    refine_local_folder,
    refine_no_grad,
    refine_no_wheel,
    refine_wheel_tags,
    refine_other_framework_weights,
    refine_padding_side,
    refine_partial_checkpoint,
    refine_sentencepiece,
    refine_string_labels,
    refine_training_args_field,
    refine_unreadable_weights,
    refine_wrapped_load_error,
)
from wizard.triage.paths import LOCAL_PATH
from wizard.triage.signature import Signature, signature_maker

_s = signature_maker(12)


HF_SIGNATURES: list[Signature] = [
    _s("datasetdict-instead-of-dataset",
       r"'DatasetDict' object has no attribute '(?P<attr>\w+)'|No such file or directory: "
       r"'(?:[^'\n]*[/\\])?state\.json'|Expected a \w*Dataset\w* but got a DatasetDict",
       "load_dataset without split= returns a DatasetDict (one Dataset per split); the call "
       "needs one split (a Dataset).",
       "DatasetDict methods apply to every split; Dataset-only methods (train_test_split, "
       "load_from_disk of one split, ...) need dataset['train'].",
       ["data.batch-structure"],
       "dataset = load_dataset('csv', data_files='data.csv', split='train')\n"
       "# or: dataset = dataset['train'];  saved DatasetDict: datasets.load_from_disk(path)",
       title="'DatasetDict' object has no attribute ..."),
    _s("incomplete-checkpoint-resumed",
       r"No such file or directory: '(?P<path>[^'\n]*checkpoint-\d+)[/\\](?:trainer_state\.json|"
       r"optimizer\.pt|scheduler\.pt|rng_state\w*\.pth|training_args\.bin)'",
       "The checkpoint resumed from is incomplete: a run stopped (killed, preempted, out of disk) "
       "while the Trainer was writing it, and resume_from_checkpoint=True takes the newest "
       "checkpoint-N folder whether or not all its files were written.",
       "Trainer writes the model, then the optimizer, scheduler, RNG and trainer_state.json into "
       "checkpoint-N; resuming reads all of them.",
       ["environment.hub-file-missing"],
       "rm -rf <output_dir>/checkpoint-N   # the unfinished one; resuming then takes the previous\n"
       "# or: trainer.train(resume_from_checkpoint='<output_dir>/checkpoint-<an earlier step>')",
       title="Resuming from an unfinished checkpoint", priority=12,
       refine=refine_partial_checkpoint),
    _s("arrow-mixed-column-types",
       r"Couldn't cast array of type[\s\S]{1,300}?\sto\s|"
       r"Could not convert .{1,200}? with type \w+: tried to convert to \w+|changed from "
       r"(?:object|array|string|number) to (?:object|array|string|number)|ArrowTypeError: "
       r"Expected bytes, got an? '\w+' object",
       "A column holds values of different types across rows (numbers and strings, objects and "
       "lists); an Arrow column has exactly one type.",
       "datasets infers each column's type from the first rows and fails on the first row of "
       "another type.",
       ["data.batch-structure"],
       "rows = [{**r, 'col': str(r['col'])} for r in rows]   # one type per column\n"
       "# or: Dataset.from_list(rows, features=Features({'col': Value('string'), ...}))",
       title="ArrowInvalid: Could not convert ... with type ..."),
    _s("invalid-jsonl-format",
       r"Exceeded maximum rows|JSON parse error: (?:Missing a (?:comma|name|closing)|The document "
       r"(?:is empty|root must not be followed))",
       "The file is not JSON Lines (one JSON object per line): several objects share a line, or "
       "it is one big JSON document.",
       "datasets' JSON reader reads one row per line; a whole-file array or glued objects "
       "overflow or break it.",
       ["data.batch-structure"],
       "df.to_json('train.jsonl', orient='records', lines=True)   # one object per line"),
    _s("dataset-script-not-streamable",
       r"FileNotFoundError[\s\S]{0,300}?https?://[^\s'\"]+?\.(?:zip|tar\.gz|tgz|tar|7z)/[^\s'\"]+",
       "The dataset's loading script joins paths inside a downloaded archive as if it were "
       "extracted; with streaming=True the archive is never extracted.",
       "In streaming mode archives are read with dl_manager.iter_archive, not by path.",
       ["environment.dataset-config"],
       "load_dataset(name, split='train')   # without streaming=True\n"
       "# script authors: use dl_manager.iter_archive(...) for files inside archives"),
    _s("hub-invalid-token",
       r"Invalid user token|(?P<password>Invalid username or password)|Invalid credentials in Authorization "
       r"header|token (?:is )?(?:not valid|invalid|expired)|Invalid token passed|401 Client Error:"
       r" Unauthorized for url: https://huggingface\.co/api/(?:repos/create|whoami)",
       "The token in use is invalid (revoked, mistyped, or an HF_TOKEN variable that overrides "
       "the one saved by login).",
       "HF_TOKEN in the environment takes priority over hf auth login.",
       ["environment.hub-auth-required"],
       "unset HF_TOKEN   # or set it to a valid token\nhf auth login\n"
       "hf auth whoami", priority=14, refine=refine_invalid_token),
    _s("token-has-trailing-newline",
       r"Invalid (?:leading whitespace, reserved character\(s\), or return character\(s\) in "
       r"header|header) value:? b?['\"](?:Bearer|token) [^'\"\s]*(?:\\[nr]|\s)+['\"]",
       "The Hugging Face token ends with a line break (read from a file or pasted with its "
       "newline), so the Authorization header carries it and the HTTP library refuses the "
       "header.",
       "A header value may not contain a newline; the token itself is fine.",
       ["environment.hub-auth-required"],
       "token = open('hf_token.txt').read().strip()\n"
       "# or: export HF_TOKEN=$(tr -d '\\n\\r' < hf_token.txt)",
       title="The token carries a line break"),
    _s("hub-gated-repo",
       r"Cannot access gated repo|You are trying to access a gated repo|is a gated (?:repo|"
       r"repository|dataset|model)|GatedRepoError|awaiting a review from the repo authors|"
       # a download refused (403) without the gate named: older huggingface_hub releases
       r"(?P<forbidden>403 (?:Client Error: )?Forbidden for url)|"
       # older huggingface_hub: 401 on a file of a gated (or private, or missing) repository
       r"(?P<unauthorized>401 Client Error: Unauthorized for url: https://huggingface\.co/"
       r"(?!api/)[^\s]+/resolve/)",
       "The repository is gated: accept its terms on the Hub and authenticate.",
       "Gated repos answer 401/403 until the license is accepted and a token is sent.",
       ["environment.gated-repo", "environment.hub-auth-required"],
       "# accept the terms at https://huggingface.co/<repo>, then:\nhf auth login",
       priority=13, refine=refine_download_forbidden),
    _s("hub-upload-too-large",
       r"413 Client Error: Payload Too Large|Payload Too Large for url",
       "The upload exceeds the Hub's limits (50 GB per file, very large commits).",
       "Split large files and upload big folders in several commits.",
       ["environment.download-size"],
       "hf upload <repo> <folder> --repo-type=dataset   # huggingface_hub >= 1.0: several "
       "commits, resumable\n# older: hf upload-large-folder <repo> <folder> --repo-type=dataset"),
    _s("gpu-held-by-other-process",
       r"Blas (?:x?GEMM\w*) launch failed|failed to create cublas handle|CUBLAS_STATUS_"
       r"(?:ALLOC_FAILED|NOT_INITIALIZED)",
       "cuBLAS cannot start because the GPU's memory is already taken: another process "
       "(another notebook kernel) or TensorFlow's pre-allocation holds it.",
       "TensorFlow grabs nearly all GPU memory at start; a second process finds none left.",
       ["memory.gpu-held-by-other-process", "memory.tf-grabs-all-gpu-memory"],
       "nvidia-smi   # stop the other processes\nfor gpu in tf.config.list_physical_devices("
       "'GPU'):\n    tf.config.experimental.set_memory_growth(gpu, True)", priority=13),
    _s("cudnn-failed-to-initialize",
       r"CUDNN_STATUS_(?:INTERNAL_ERROR|NOT_INITIALIZED|ALLOC_FAILED)|cuDNN failed to initialize|"
       r"Could not create cudnn handle",
       "cuDNN could not create its handle, usually because TensorFlow pre-allocated the GPU's "
       "memory (or a CUDA/cuDNN version mismatch).",
       "Memory growth leaves room for cuDNN's workspace.",
       ["memory.tf-grabs-all-gpu-memory", "memory.gpu-held-by-other-process"],
       "for gpu in tf.config.list_physical_devices('GPU'):\n"
       "    tf.config.experimental.set_memory_growth(gpu, True)", priority=13),
    _s("string-labels-not-encoded",
       r"Cast string to (?:float|int\d*) is not supported|too many dimensions 'str'|"
       r"new\(\): invalid data type 'str'|^(?P<unimplemented>UnimplementedError)\b|"
       # a class name cast by int() (a loader or the user's own code)
       r"invalid literal for int\(\) with base 10: '(?P<word>[A-Za-z][\w -]{0,40})'",
       "The labels are strings (class names); losses and collators need integer class ids.",
       "Keras casts targets to numbers and PyTorch builds label tensors; neither takes strings.",
       ["data.string-labels"],
       "dataset = dataset.class_encode_column('label')\n"
       "# or: label2id = {l: i for i, l in enumerate(sorted(set(labels)))}", priority=13,
       refine=refine_string_labels),
    _s("tokenizer-unk-token-not-set",
       r"Missing \[?UNK\]? token from the vocabulary|`?unk_id`? is missing|Encountered an unknown "
       r"token but|Unk token `?[^`\n]{1,20}`? not found in the vocabulary",
       "The tokenizer has no unknown token in its vocabulary (or the model was not told which "
       "it is), so an out-of-vocabulary piece cannot be encoded.",
       "WordPiece/Unigram map unknown pieces to unk_token; the token must be in the vocab and "
       "named to the model/trainer.",
       ["data.tokenizer-model-mismatch"],
       "trainer = trainers.UnigramTrainer(vocab_size=..., special_tokens=['<unk>'], "
       "unk_token='<unk>')\n# or load with the special tokens used in training: "
       "BertWordPieceTokenizer(vocab, unk_token='<unk>')", priority=13),
    _s("tokenizer-stride-too-large",
       r"assertion failed: stride < max_len|stride \(\d+\) (?:is|must be)|stride .{0,30}(?:must|"
       r"should) be (?:strictly )?(?:less|smaller) than",
       "stride must be smaller than max_length minus the special tokens.",
       "The overflow windows overlap by `stride` tokens; with no room left for new tokens the "
       "tokenizer cannot advance.",
       ["data.text-lengths"], "tokenizer(texts, truncation=True, max_length=512, stride=128, "
       "return_overflowing_tokens=True)", priority=14),
    _s("rust-compiler-not-found",
       r"Can ?not find Rust compiler|can't find Rust compiler|error: could not compile `?"
       r"tokenizers|Failed building wheel for tokenizers|Building wheel for tokenizers "
       r"\(pyproject\.toml\) did not run successfully",
       "pip is building tokenizers from source (no wheel for this Python/platform) and finds no "
       "Rust compiler on the PATH of the process that builds it.",
       "Wheels exist for common platforms and Python versions; elsewhere the Rust toolchain is "
       "needed (and sudo drops the user's PATH).",
       ["environment.package-versions"],
       "curl https://sh.rustup.rs -sSf | sh   # then, without sudo: pip install tokenizers\n"
       "# or use a Python version with tokenizers wheels", priority=14),
    _s("no-wheel-for-python-version",
       r"Could not find a version that satisfies the requirement (?P<requirement>[^\s(]+)|"
       r"No matching distribution found for (?P<requirement2>\S+)",
       "pip finds no release of the package for this Python version and platform (or the "
       "pinned version does not exist).",
       "Wheels are built per Python version; new Pythons get them only in later releases.",
       ["environment.package-versions"],
       "python --version   # use a Python the pinned release supports, or a newer release",
       priority=14, refine=refine_no_wheel),
    _s("no-wheel-for-platform",
       r"(?P<wheel>[\w.+-]+\.whl) is not a supported wheel on this platform",
       "pip refuses a wheel built for another platform or Python version than the one that runs "
       "pip: its file name says which (cp39 is Python 3.9; linux_x86_64, win_amd64, "
       "macosx_..._arm64 the platform).",
       "A wheel installs only where its tags match the interpreter.",
       ["environment.package-versions"],
       "python --version; pip debug --verbose | grep -m5 cp   # the tags pip accepts here\n"
       "# then the wheel built for them, or the Python the wheel is built for",
       priority=14, refine=refine_wheel_tags),
    _s("torch-cpu-only-build", r"Torch not compiled with CUDA enabled|module 'torch\._C' has no "
       r"attribute '_cuda_\w+'",
       "The installed PyTorch is a CPU-only build.",
       "CUDA support is chosen at install time by the wheel's index (cu121, cpu, ...).",
       ["environment.device"],
       "pip install torch --index-url https://download.pytorch.org/whl/cu121   # your CUDA",
       priority=15),
    _s("pytorch-model-in-keras",
       r"'?(?:tensorflow\.python\.\w+\.)?(?:Keras)?Tensor'? object has no attribute '?(?:size|"
       r"dim|new_ones)\b",
       "A TensorFlow/Keras tensor reached a PyTorch model (AutoModel loads PyTorch classes).",
       "Keras layers need the TF classes (TFAutoModel...).",
       ["model.forward"], "from transformers import TFAutoModel\n"
       "bert = TFAutoModel.from_pretrained('bert-base-cased')"),
    _s("model-class-without-head",
       r"You have to specify either decoder_input_ids or decoder_inputs_embeds|The current model "
       r"class \(\w+\) is not compatible with `\.generate\(\)`|The following keyword arguments "
       r"are not supported by this model: \['labels?'\]",
       "The model class has no head for the task (AutoModel gives the bare encoder-decoder), so "
       "generate()/training cannot build decoder inputs.",
       "Generation and seq2seq training need ...ForConditionalGeneration / AutoModelForSeq2SeqLM,"
       " which shift the labels into decoder inputs.",
       ["model.no-loss"], "model = AutoModelForSeq2SeqLM.from_pretrained(checkpoint)",
       refine=refine_head_missing),
    _s("no-pretrained-weights-for-model",
       r"Pretrained model URL is invalid, using random initialization|No pretrained weights "
       r"exist (?:or were found )?for this model",
       "timm has no pretrained weights for this model name (the architecture exists, its "
       "weights were never published, or not under that tag): pretrained=True falls back to "
       "random initialization, and training starts from scratch.",
       "timm knows architectures and, separately, the weights published for some of them.",
       ["model.new-head"],
       "import timm\nprint(timm.list_models('<family>*', pretrained=True))   # names that have "
       "weights\nmodel = timm.create_model('<one of them>', pretrained=True, num_classes=n)",
       title="No pretrained weights for this timm model"),
    _s("fp16-weights-with-amp", r"Att?emp?ting to unscale FP16 gradients",
       "The trainable weights are fp16 (model loaded with torch_dtype=float16) and fp16 AMP is "
       "on; the GradScaler needs float32 master weights.",
       "AMP keeps weights in fp32 and computes in fp16; fp16 weights have fp16 gradients.",
       ["model.precision-unsupported"],
       "model = AutoModelForCausalLM.from_pretrained(checkpoint, torch_dtype=torch.float32)\n"
       "# or keep fp16 frozen weights and cast the trainable (LoRA) ones: p.data = p.data.float()"
       "\n# or: TrainingArguments(bf16=True)", priority=14),
    _s("gradient-checkpointing-inputs-no-grad",
       r"element 0 of tensors does not require grad and does not have a grad_fn|"
       # the same, as torch.utils.checkpoint's warning: the loss then trains nothing
       r"None of the inputs have requires_grad=True\. Gradients will be None",
       "Nothing in the loss requires grad: all weights are frozen, or gradient checkpointing "
       "runs on a model whose input embeddings are frozen (LoRA/PEFT).",
       "Reentrant checkpointing needs an input that requires grad.",
       ["model.nothing-trainable", "model.frozen-parameters"],
       "model.enable_input_require_grads()   # before get_peft_model, with checkpointing\n"
       "# or: peft.prepare_model_for_kbit_training(model)", refine=refine_no_grad),
    _s("gradient-checkpointing-with-ddp-find-unused",
       r"Expected to mark a variable ready only once|has been marked as ready twice",
       "Multi-GPU (DDP) training with reentrant gradient checkpointing and "
       "find_unused_parameters=True: the recomputed forward fires DDP's hooks twice.",
       "DDP counts each parameter once per backward; reentrant checkpointing re-runs forward.",
       ["training.gradient-flow"],
       "TrainingArguments(..., ddp_find_unused_parameters=False,\n"
       "                  gradient_checkpointing_kwargs={'use_reentrant': False})",
       priority=14),
    _s("label-dtype-double-expected-float",
       r"Found dtype Double but expected Float|expected scalar type Float but found Double|"
       r"mat1 and mat2 must have the same dtype, but got Double and Float",
       "The labels (or inputs) are float64 (NumPy's default) while the model is float32.",
       "PyTorch does not promote inside the loss's backward; both sides need one dtype.",
       ["data.label-dtype-problem-type"],
       "labels = labels.astype('float32')   # or torch.tensor(labels, dtype=torch.float32)",
       priority=13),
    _s("trl-wrong-config-class",
       r"'(?:Seq2Seq)?TrainingArguments' object has no attribute '(?P<attr>\w+)'",
       "A plain transformers TrainingArguments was passed to a TRL trainer, which needs its own "
       "config class (SFTConfig, DPOConfig, ...) with the trainer's extra fields.",
       "TRL trainers read trainer-specific fields from args.",
       ["hyperparameters.hidden-defaults"],
       "from trl import DPOConfig\nargs = DPOConfig(output_dir='out', ...)", priority=13,
       refine=refine_training_args_field),
    _s("grpo-batch-not-divisible-by-generations",
       r"The (?:global|effective) (?:train|eval) batch size \((?P<processes>\d+) x (?P<batch>\d+)"
       r"(?: x (?P<accum>\d+))?\) must be evenly divisible by the number of generations per "
       r"prompt \((?P<generations>\d+)\)|\bgeneration_batch_size \((?P<gen_batch>\d+)\) must "
       r"be divisible by num_generations \((?P<generations2>\d+)\)|GRPO requires at least 2 "
       r"generations per prompt[^\n]{0,80}?You provided (?P<too_few>\d+)|"
       r"(?<![\w-])eval batch size must be evenly divisible by the number of generations per "
       r"prompt",
       "The GRPO batch does not hold whole groups of completions: num_processes x "
       "per_device_train_batch_size (x gradient_accumulation_steps in newer trl) must be a "
       "multiple of num_generations. In GRPO the batch counts completions, not prompts.",
       "GRPO's advantage compares the completions of one prompt with each other, so every "
       "prompt's num_generations completions must land in the same batch.",
       ["hyperparameters.hidden-defaults"],
       "GRPOConfig(per_device_train_batch_size=8, num_generations=8, ...)   # the batch a "
       "multiple of num_generations", priority=14, refine=refine_grpo_groups),
    _s("sft-missing-text-field",
       r"You passed `packing=False` to the SFTTrainer(?:/SFTConfig)?, but you didn't pass a "
       r"`dataset_text_field` "
       r"or `formatting_func`|You need to (?:pass|provide) (?:either )?(?:a )?`?dataset_text_field"
       r"`? or `?formatting_func",
       "SFTTrainer was not told where the text is: without packing it needs dataset_text_field "
       "or a formatting_func.",
       "It builds the training text from that column or function.",
       ["data.batch-structure"], "SFTTrainer(..., dataset_text_field='text')   # or "
       "formatting_func=..., or packing=True for a packed dataset", priority=14),
    _s("dpo-ref-model-with-peft-config",
       r"You passed both a ref_model and a peft_config",
       "DPOTrainer got a separate reference model and a peft_config: with PEFT the reference is "
       "the base model with the adapter disabled, so a second model is refused.",
       "Training an adapter keeps the base weights; trl uses them, adapter off, as the "
       "reference.", ["model.forward"],
       "DPOTrainer(model, ref_model=None, args=config, peft_config=peft_config, ...)",
       priority=14),
    _s("packing-with-completion-only-collator",
       r"You passed a `?DataCollatorForCompletionOnlyLM`? to the SFTTrainer\. This is not "
       r"compatible with the `?packing`? argument",
       "packing=True and DataCollatorForCompletionOnlyLM do not go together: the collator "
       "masks each example's prompt, which it cannot find inside packed sequences.",
       "Packing concatenates examples into one sequence; the completion-only collator needs "
       "one example per row.", ["data.batch-structure"],
       "SFTConfig(packing=False, ...)   # keep the completion-only loss\n"
       "# or, on a recent trl: a prompt/completion dataset with SFTConfig(packing=True, "
       "completion_only_loss=True)", priority=14),
    _s("encoder-decoder-missing-decoder-inputs",
       r"You have to specify either (?:decoder_)?input(?:_id)?s or (?:decoder_)?inputs_embeds",
       "An encoder-decoder model (T5, BART, mT5 ...) was called with encoder inputs only: its "
       "decoder needs decoder_input_ids, or labels from which the model derives them.",
       "Seq2seq models shift the labels right to build the decoder's inputs; without labels "
       "or decoder inputs the decoder has nothing to read.", ["model.forward"],
       "outputs = model(input_ids=ids, attention_mask=mask, labels=label_ids)\n"
       "# features only: model.get_encoder()(input_ids=ids, attention_mask=mask)",
       priority=14, refine=refine_decoder_call),
    _s("packing-dataset-too-small",
       r"Error occurred while packing the dataset\. Make sure that your dataset has enough "
       r"samples to at least yield one packed sequence",
       "Packing joins the examples into blocks of max_seq_length tokens, and all of the "
       "dataset's text together is shorter than one block (few or short examples, or a "
       "text field that is empty).", "SFTTrainer's packed dataset yields only whole blocks.",
       ["data.batch-structure"],
       "SFTConfig(packing=False, ...)   # or a max_seq_length below the dataset's total tokens",
       priority=14),
    _s("wrong-padding-side",
       r"A decoder-only architecture is being used, but right-padding was detected",
       "The prompts of a batch are padded on the right, so a decoder-only model generates "
       "after the pad tokens.", "generate() continues from the last position of each row; "
       "left padding puts every prompt's end there.", ["data.no-pad-token"],
       "tokenizer.padding_side = 'left'   # for batched generation (right is right for training)",
       priority=12, refine=refine_padding_side),
    _s("flash-attention-right-padding",
       r"You are attempting to perform batched generation with padding_side='right'",
       "A batch padded on the right reached a flash-attention model with use_cache on: for "
       "batched generation the prompts must be padded on the left.",
       "The flash-attention path of the model refuses right padding whenever use_cache is on.",
       ["data.no-pad-token"],
       "tokenizer.padding_side = 'left'   # before tokenizing the prompts for generate()",
       priority=13, family="wrong-padding-side", refine=refine_flash_padding),
    _s("checkpoint-not-found",
       # resume_from_checkpoint=True with no checkpoint-N folder in output_dir
       r"(?P<none_in_dir>No valid checkpoint found in output directory)|"
       # the path cut off
       r"Can't find a valid checkpoint(?! at)|"
       r"Can't find a valid checkpoint at (?P<path>\S{0,300})",
       "resume_from_checkpoint points at a folder without a checkpoint the Trainer can load (a "
       "wrong path, or a folder without model weights).",
       "The Trainer resumes from the model weights, optimizer and scheduler state of a "
       "checkpoint-N folder inside output_dir.", ["environment.hub-file-missing"],
       "trainer.train(resume_from_checkpoint=True)   # the last checkpoint-N in output_dir; or "
       "the full path of one", priority=12, refine=refine_checkpoint_resume),
    _s("peft-adapter-loaded-frozen",
       r"trainable params: 0 \|\| all params",
       "The adapter was loaded for inference: PeftModel.from_pretrained loads a saved adapter "
       "frozen unless is_trainable=True, so nothing is left to train.",
       "A loaded adapter is frozen by default (inference mode); training it further needs "
       "is_trainable=True.", ["model.nothing-trainable"],
       "model = PeftModel.from_pretrained(base_model, adapter_path, is_trainable=True)",
       priority=13, refine=refine_frozen_adapter, behaviour_change=True),
    _s("merge-into-quantized-unsupported",
       r"Cannot merge LORA layers when the model is (?:gptq|awq|loaded in \d-bit|quantized)|"
       # LLaMA-Factory's and ms-swift's export
       r"Cannot merge adapters to a quantized model|is a quantized model and does not support "
       r"merge-lora",
       "merge_and_unload() on a quantized base model (GPTQ, AWQ): its packed quantized weights "
       "cannot take the LoRA delta, so PEFT does not implement the merge.",
       "Merging adds B@A to each weight, which needs weights in a float dtype.",
       ["model.precision-unsupported"],
       "base = AutoModelForCausalLM.from_pretrained(<the unquantized base>, torch_dtype=torch."
       "float16)\nmodel = PeftModel.from_pretrained(base, adapter).merge_and_unload()   # then "
       "quantize the merged model\n# LLaMA-Factory: llamafactory-cli export with "
       "--model_name_or_path <the unquantized base>", priority=13),
    _s("tokenizer-file-not-found",
       r"(?<!\S)(?P<path>\S{1,300}) does not appear to have a file named (?P<file>tokenizer\.model|"
       r"vocab\.(?:txt|json)|merges\.txt|spiece\.model|sentencepiece\.bpe\.model)",
       "The tokenizer class asked for reads a file the repository does not ship: a slow "
       "(SentencePiece/vocab-file) tokenizer, or a conversion script, on a repository that holds "
       "only tokenizer.json (Llama 3 and most recent models keep their original tokenizer.model "
       "in original/, if at all).",
       "Fast tokenizers load from tokenizer.json; slow ones need their own vocabulary files.",
       ["data.tokenizer-model-mismatch"],
       "tokenizer = AutoTokenizer.from_pretrained(repo)   # the fast tokenizer, from "
       "tokenizer.json", family="local-file-missing", title="A tokenizer file the repository "
       "does not ship"),
    _s("label-smoothing-with-multilabel",
       r"gather\(\): Expected dtype int(?:32/int)?64 for index",
       "label_smoothing_factor > 0 makes the Trainer compute the loss with its LabelSmoother, "
       "which gathers log-probabilities at integer class ids; multi-label labels are float "
       "multi-hot vectors and cannot index.",
       "Label smoothing spreads a class id's target; a multi-hot target has no single id.",
       ["hyperparameters.hidden-defaults"],
       "TrainingArguments(..., label_smoothing_factor=0.0)   # multi-label: the model's "
       "BCEWithLogits loss", title="Label smoothing on multi-label targets",
       requires=r"label_smooth|LabelSmoother"),
    _s("folder-without-config",
       r"(?<!\S)(?P<path>\S{1,300}) does not appear to have a file named config\.json|"
       r"Unrecognized model in (?P<path2>\S{1,300}?)\. Should have a `model_type` key in its config\.json",
       "The folder has no usable config.json: it holds only an adapter (LoRA: "
       "adapter_config.json), a training checkpoint of something else, or nothing was saved "
       "there.", "from_pretrained builds the model from config.json, then loads the weights.",
       ["environment.hub-file-missing"],
       "ls <the folder>   # adapter_config.json only: PeftModel.from_pretrained(base_model, "
       "folder)\n# else save it: model.save_pretrained(folder)", priority=11,
       family="local-file-missing", refine=refine_local_folder),
    _s("hub-not-logged-in",
       # transformers 4.x
       r"You specified use_auth_token=True, but a [Hh]ugging ?[Ff]ace token was not found|"
       r"LocalTokenNotFoundError|Token is required \((?:`token=True`|write-access action)\),? "
       r"but no token found|The secret `?HF_TOKEN`? does not exist in your Colab secrets|"
       r"You are not authenticated with the Hugging Face Hub in this notebook",
       "The call needs a Hugging Face token (a push, a private or gated repo) and none is "
       "saved or set on this machine.", "huggingface_hub reads the token from HF_TOKEN or the "
       "login cache.", ["environment.hub-auth-required"],
       "hf auth login   # or: export HF_TOKEN=hf_...  (a token with write access to "
       "push)", priority=14),
    _s("hub-write-refused",
       # another wording; repository creation and LFS uploads refused
       r"You don't have the rights to create a (?:model|dataset|space) under this namespace|403 Client Error: Forbidden for url: https?://[\w.-]{0,40}huggingface\.co/(?:api/repos/create|[\w./-]{1,200}\.git/info/lfs/objects/batch)|"
       r"You don't have the rights to create a (?:model|dataset|space) under the namespace|"
       r"403 Forbidden: [^\n]{0,80}(?:write|rights|permission)|"
       # a commit to a repository the token may only open pull requests on
       r"403 Client Error: Forbidden for url: https?://[\w.-]{0,40}huggingface\.co/api/(?:models|"
       r"datasets|spaces)/[\w.-]{1,96}/[\w.-]{1,96}/(?:commit|preupload)|pass `create_pr=1` as a "
       r"query parameter",
       "The token can read but not write there: a read-only (or fine-grained) token, or a "
       "namespace (organisation) it has no write rights in.",
       "push_to_hub creates and writes the repository with the token's rights.",
       ["environment.hub-auth-required"],
       "hf auth login   # with a token that has the write role\n"
       "# or push to your own namespace: hub_model_id='<your user>/<name>'", priority=14),
    _s("checkpoint-file-unreadable",
       r"Unable to load weights from pytorch checkpoint file",
       "torch.load could not read the weights file; the error it raised (printed above this "
       "one) says why: a Git LFS pointer instead of the weights ('invalid load key'), a cut "
       "download ('failed finding central directory'), a file saved by a newer torch than the "
       "one loading it ('maximum supported version'), or too little RAM.",
       "transformers wraps torch.load's own error in this one, and suggests from_tf only in "
       "case the file is a TensorFlow checkpoint.",
       ["environment.hub-file-missing"],
       "ls -l <the folder>   # a weights file of a few hundred bytes is an LFS pointer: git lfs "
       "pull\npython -c \"import torch; torch.load('pytorch_model.bin', map_location='cpu')\"   "
       "# shows the real error", title="Unable to load weights from pytorch checkpoint file",
       priority=6, refine=refine_wrapped_load_error),
    _s("incomplete-model-download",
       # huggingface_hub's check of a cut download
       r"Consistency check failed: file should be of size \d+ but has size \d+|"
       r"Error while deserializing header: (?:MetadataIncompleteBuffer|InvalidHeaderDeserialization|"
       r"HeaderTooLarge)|"
       r"PytorchStreamReader failed reading zip archive: failed finding central directory|"
       r"Unable to (?:open|synchronously open) file \(file signature not found\)|"
       # TensorFlow restoring a checkpoint whose bytes are not the ones it wrote
       r"Checksum does not match: stored \d+ vs\. calculated on the restored bytes \d+",
       "The weights file is cut or not what its name says (an interrupted download, a full "
       "disk while saving, a Git LFS pointer or an HTML page saved under that name).",
       "safetensors, torch.load and h5py read an index at the end or a signature at the start; "
       "a partial file has neither.", ["environment.hub-file-missing"],
       "ls -l <the weights file>   # far smaller than on the Hub: fetch it again\n"
       "hf download <repo> --force-download   # or git lfs pull in a clone",
       priority=14, title="The weights file is incomplete", refine=refine_unreadable_weights),
    _s("data-files-different-columns",
       r"All the data files must have the same columns|Features of the new split don't match "
       r"the features of the existing splits|Couldn't cast\n[\s\S]{0,2000}?because column names "
       r"don't match",
       "The data files (or the files of one split) do not have the same columns, so datasets "
       "cannot read them into one table.", "load_dataset infers one schema per split from the "
       "first file.", ["data.batch-structure"],
       "load_dataset('json', data_files={'train': 'a.jsonl'})   # one schema per split; or fix "
       "the files so their columns agree", priority=14),
    _s("wrong-argument-type",
       r"has no attribute '?(?:modules|named_parameters|named_modules)\b",
       "An object that is not a torch module (e.g. a Python function) was passed where the "
       "library expects a model.",
       "The library calls module methods (modules(), named_parameters()) on that argument.",
       ["model.forward"], "# pass a model: AutoModelForSequenceClassification.from_pretrained("
       "..., num_labels=1)"),
    _s("config-object-for-a-number",
       r"'(?:<|<=|>|>=|\+|\*|/)' not supported between instances of '(?P<cls>\w{0,60}(?:Config|"
       r"Arguments|Args))' and '(?:int|float)'|unsupported operand type\(s\) for [^\n]{1,4}: "
       r"'(?P<cls2>\w{0,60}(?:Config|Arguments|Args))' and '(?:int|float)'",
       "A config object was passed where the function expects a number: it takes the settings as "
       "keyword arguments (r=..., lora_alpha=...), so the object landed in a numeric parameter.",
       "A positional argument binds to the first parameter, whatever object it is.",
       ["model.forward"], "get_peft_model(model, r=16, lora_alpha=16, target_modules=[...])   # "
       "the function's own keywords, not a config object", family="wrong-argument-type"),
    _s("keras-h5-save-unsupported",
       r"Not JSON Serializable:?'?,? ?<?\w*Config|Object of type '?\w+Config'? is not JSON "
       r"serializable|"
       # Keras' own words for a layer it cannot serialise (a subclassed / transformers layer)
       r"Layer \w+ has arguments (?:\[[^\]\n]*\] )?in `__init__` and therefore must override "
       r"`get_config(?:\(\))?`|Saving the model to HDF5 format requires the model to be a Functional model "
       r"or a Sequential model",
       "Keras cannot serialise a transformers layer (its config object) into the H5/Keras "
       "format.",
       "H5/.keras saving stores each layer's constructor arguments as JSON.",
       ["model.forward"], "tf.saved_model.save(model, 'saved/')   # or model.save_weights(...)"
       "\n# transformers models: model.save_pretrained('dir')"),
    _s("checkpoint-weights-unused",
       r"Some weights of the model checkpoint at (?P<ckpt>\S+) were not used when initializing "
       r"(?P<cls>\w+): (?P<unused>[\[{(][^\n]{0,4000})",
       "The checkpoint's weights of the model's body (its numbered layers) were not used: their "
       "names do not match the class's (a checkpoint saved with an outdated naming or by another "
       "framework's class, another architecture, or a wrapper's prefix), so those layers start "
       "from random values.",
       "from_pretrained loads the weights whose names match the class's parameters and warns "
       "about the rest.", ["model.forward"],
       "model.save_pretrained('resaved')   # after loading with the class it was saved from\n"
       "# compare: set(model.state_dict()) against the checkpoint's keys; a newer revision of "
       "the checkpoint, or from_pt=True / from_tf=True for the other framework's weights",
       title="The checkpoint's layers were not loaded", priority=8,
       refine=refine_body_weights_unused),
    _s("model-dir-missing-weights",
       r"Error no file named \[?'?(?:pytorch_model\.bin|tf_model\.h5|model\.safetensors)|does not "
       r"appear to have a file named (?:pytorch_model\.bin|tf_model\.h5|model\.safetensors|"
       r"flax_model\.msgpack)|model\.safetensors\.index\.json and thus cannot be loaded with "
       r"`?safetensors|Unable to load weights from h5 file\. If you tried to load a TF 2\.0 "
       r"model from a PyTorch checkpoint",
       "The folder has no weights in a format from_pretrained reads (e.g. training checkpoints "
       "instead of a save_pretrained folder, or only the other framework's weights).",
       "from_pretrained looks for model.safetensors / pytorch_model.bin / tf_model.h5 in the "
       "folder.", ["environment.hub-file-missing"],
       "model.save_pretrained('out/model')   # then from_pretrained('out/model')\n"
       "# the other framework's weights: from_pretrained(path, from_tf=True) / from_pt=True",
       priority=12, refine=refine_other_framework_weights),
    _s("no-tf-weights-on-hub",
       r"Error retrieving file [^\n]*\.h5\b",
       "The checkpoint on the Hub has no TensorFlow weights (tf_model.h5), only PyTorch ones, so "
       "a TF model class cannot download its weights.",
       "TF classes load tf_model.h5; older transformers fail to retrieve it and do not fall back "
       "to the PyTorch weights.", ["environment.hub-file-missing"],
       "model = TFBertModel.from_pretrained(name, from_pt=True)   # converts the PyTorch "
       "weights (needs torch installed)", priority=13, framework="tensorflow"),
    _s("group-by-length-without-input-ids",
       r"Can only automatically infer lengths for datasets whose items are dictionaries with an "
       r"'?input_ids'? key",
       "group_by_length sorts examples by the length of their input_ids, and this dataset has "
       "none: pairwise (DPO, reward) examples carry prompt/chosen/rejected ids instead.",
       "Trainer's LengthGroupedSampler reads len(example['input_ids']) of every example.",
       ["data.batch-structure"],
       "TrainingArguments(..., group_by_length=False)   # or a length_column_name the dataset has",
       priority=13),
    _s("collator-renames-label-to-labels",
       r"\blabel_cols\s*=\s*\[?\s*['\"]label['\"]",
       "transformers' data collators rename the column `label` to `labels` in every batch, so "
       "to_tf_dataset's label_cols=['label'] names a key the collated batch no longer has.",
       "DataCollatorWithPadding and DefaultDataCollator return `labels`, whatever the dataset "
       "called it.", ["data.batch-structure"],
       "ds.to_tf_dataset(columns=[...], label_cols=['labels'], batch_size=16, collate_fn=collator)",
       priority=13, refine=refine_collated_label),
    _s("local-file-missing",
       r"No such file or directory(?: \(os error 2\)|: '(?P<path>[^'\n]{1,300})')|"
       r"\[Errno 2\][^\n]{0,40}?'(?P<path2>[^'\n]{1,300})'|"
       # datasets' data_files that match nothing
       r"Unable to find '(?P<path3>[^'\n]{1,300})'|"
       # diffusers' DreamBooth scripts' own check of --instance_data_dir / --class_data_dir
       r"(?:Instance|Class) images root doesn't exists?|"
       # a local path that does not exist, which from_pretrained then reads as a Hub repo id
       r"Repo id must (?:be in the form|use alphanumeric chars)[^\n]{0,200}?: '(?P<path4>"
       + LOCAL_PATH + r"[^'\n]{0,300})'",
       "A file the code or the loader reads is not at the path given: it was never downloaded "
       "or saved there, the path is relative to another working directory, or the name is "
       "misspelt.",
       "Loaders that take a local path (a vocab or merges file, a tokenizer.json, data files, a "
       "checkpoint folder) open it as given; nothing is downloaded for a local path.",
       ["environment.hub-file-missing"],
       "import os; print(os.getcwd(), os.path.exists(PATH))   # the path the error names\n"
       "# download it first (hf_hub_download(repo_id, filename)) or load by Hub id: "
       "from_pretrained('org/name')",
       priority=6, title="A file is not at the path given", refine=refine_loader_path),
    _s("cannot-load-from-path",
       # peft < 0.3: the adapter's config
       r"Can't find config\.json at '(?P<path6>[^'\n]{1,300})'|"
       r"Can't load (?:the )?(?:tokenizer|config|configuration|model|feature extractor|"
       r"image processor|processor) (?:for|of) '(?P<path>[^'\n]{1,300})'|"
       r"Can't find '?adapter_config\.json'? at '(?P<path2>[^'\n]{1,300})'|"
       # transformers 3 and early 4: "- 't5-base' is a correct model identifier listed on ..."
       r"'(?P<path3>[^'\n]{1,300})' is a correct model identifier listed on|"
       r"Incorrect path_or_model_id: '(?P<path4>[^'\n]{1,300})'|"
       # transformers 2 and 3: "Model name 'x' was not found in tokenizers model name list (...)"
       r"Model name '(?P<path5>[^'\n]{1,300})' was not found in (?:tokenizers )?model name list",
       "Nothing loadable of that kind is where the name points: a local folder without those "
       "files, or a Hub id that is misspelt, private or unreachable.",
       "from_pretrained reads a local folder when one of that name exists, else the Hub id.",
       ["environment.model-not-found", "environment.hub-file-missing"],
       "tokenizer.save_pretrained(folder)   # beside model.save_pretrained(folder)\n"
       "# or the Hub id of the original checkpoint: AutoTokenizer.from_pretrained('org/name')",
       priority=7, title="Cannot load from that name", refine=refine_load_path),
    _s("env-sentencepiece-none",
       r"'NoneType' object has no attribute '(?:encode|batch_encode_plus|encode_plus|tokenize|"
       r"decode|convert_tokens_to_ids|prepare_seq2seq_batch|pad|from_pretrained)'|\btype\(tokenizer\)"
       r"[^\n]{0,60}?\bNoneType\b|tokenizer (?:is|returns?) None\b|'NoneType' object is not callable|"
       r"Tokenizer(?:\.from_pretrained\([^)\n]{0,200}\))? (?:is|returns?|gives?|was) None\b|"
       # transformers 4.0 stopped installing sentencepiece: "Not able to load T5 tokenizer"
       r"\b(?:not able|unable|can(?:no|')t|fail(?:s|ed)?) to (?:load|import|create|use) (?:the |a |"
       r"my )?\w{0,20}(?:T5|MT5|Albert|XLNet|Marian\w*|MBart|Pegasus|Camembert|XLMRoberta|Llama)"
       r"[ -]?Tokenizer\b",
       "sentencepiece is not installed: this SentencePiece tokenizer class is a None placeholder "
       "without it, so from_pretrained returns None.",
       "transformers exposes sentencepiece-based tokenizers only when the package is present.",
       ["environment.package-versions"], "pip install sentencepiece   # then restart the runtime",
       priority=13, refine=refine_sentencepiece, family="env-missing-package"),
    _s("tf-dataset-unknown-cardinality",
       r"(?:training|evaluation|eval|test) dataset must have an asserted cardinality",
       "TFTrainer needs a tf.data.Dataset whose length it can read; datasets built with "
       "from_generator, TFRecordDataset or filter report an unknown cardinality (-2).",
       "TFTrainer reads dataset.cardinality() to plan its steps and refuses a negative one; "
       "TFTrainer is deprecated in favour of Keras' model.fit.", ["data.batch-structure"],
       "train_ds = train_ds.apply(tf.data.experimental.assert_cardinality(num_examples))\n"
       "# or, as TFTrainer is deprecated: model.compile(optimizer=...); model.fit(train_ds, ...)",
       title="The dataset's cardinality is unknown", framework="tensorflow", priority=13),
    _s("hub-signature-not-specified",
       r"Unknown signature (?P<signature>[\w-]+) in (?P<handle>[^\n]+?) \(available signatures: "
       r"[^\n]*?'(?P<available>[\w-]+)'",
       "The TF Hub module (TF1 format) has no signature of the name hub.KerasLayer asked for "
       "(`default` when none is given); its signatures are others.",
       "A TF1 Hub module exports named signatures; hub.KerasLayer calls `default` unless "
       "signature= names another, and its outputs need signature_outputs_as_dict=True or "
       "output_key=.", ["script.run"],
       "hub.KerasLayer(handle, signature='tokens', signature_outputs_as_dict=True)   # one of "
       "the signatures the error lists",
       title="The TF Hub module has no such signature", framework="tensorflow", priority=13,
       refine=refine_hub_signature),
]
