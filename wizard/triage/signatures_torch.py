"""PyTorch runtime errors of fine-tuning that the other catalogue modules do not cover: labels of
the wrong rank or integer width for the loss, strings reaching the default collate, sampling from
non-finite probabilities, a process the kernel killed for lack of RAM, NCCL failures and
timeouts, a model offloaded to disk without a folder, an attention implementation the model
does not have, a streamed dataset where a length is needed, torch.load's weights-only default,
torch.compile without Triton, and images or audio the processor cannot take as they are.
"""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.env_answers import MISSING, NEW
from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature, signature_maker


def refine_extra_index(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Too many indices: raised in library model code, the input lacks its batch dimension; in
    the user's own code (or no frames), the code indexes one dimension too many."""
    relevant = [f for f in parsed.frames if f.kind != "other"]
    if relevant and relevant[-1].is_library and relevant[-1].package in ("transformers", "torch"):
        return {"id": "missing-batch-dimension",
                "cause": "A single example without its batch dimension reached the model: "
                         "its code indexes input_ids as [batch, sequence], and the tensor has "
                         "only the sequence dimension.",
                "fix": "inputs = tokenizer(text, return_tensors='pt')   # shape [1, seq_len]\n"
                       "# or: input_ids = input_ids.unsqueeze(0)"}
    return None


def refine_utf8(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A file that is not UTF-8: a data file in another encoding (load_dataset, read_csv), or a
    binary file (weights, a pickle, a zip) read where a text or JSON file is expected."""
    if re.search(r"load_dataset|read_csv|\.csv\b|\.tsv\b|\.txt\b|\.jsonl?\b|open\(", parsed.text):
        return {"cause": "A data file is not encoded in UTF-8 (a spreadsheet export in Latin-1 "
                         "or Windows-1252, a UTF-16 file), and it is read as UTF-8.",
                "fix": "load_dataset('csv', data_files='data.csv', encoding='latin-1')   # the "
                       "file's encoding\n# or: pd.read_csv('data.csv', encoding='latin-1'); or "
                       "re-save the file as UTF-8"}
    if re.search(r"from_pretrained|tokenizer|config\.json|json", parsed.text, re.I):
        return {"cause": "A binary file (model weights, a pickle, a zip, a git-lfs object) is "
                         "read where a text or JSON file is expected: the path names the weights "
                         "file instead of the model folder, or a file of another kind sits under "
                         "the expected name.",
                "fix": "AutoTokenizer.from_pretrained('path/to/model_folder')   # the folder, "
                       "not a file in it\n# ls path/to/model_folder   # tokenizer.json, "
                       "config.json ... must be text"}
    return None


_t = signature_maker(12)


TORCH_SIGNATURES: list[Signature] = [
    _t("labels-with-extra-dimension",
       r"0D or 1D target tensor expected, multi-target not supported",
       "Class labels reached the cross-entropy loss with an extra dimension: shape (batch, 1) "
       "or one-hot rows (batch, num_classes) instead of one class id per example.",
       "nn.CrossEntropyLoss (and nll_loss) takes a 1-D tensor of class ids for 2-D logits.",
       ["data.batch-structure", "data.label-dtype-problem-type"],
       "labels = labels.squeeze(-1)            # (batch, 1) -> (batch,)\n"
       "labels = labels.argmax(dim=-1)         # one-hot -> class ids\n"
       "# multi-label (several classes per example): "
       "problem_type='multi_label_classification' and float multi-hot labels",
       title="Labels have an extra dimension", framework="pytorch"),
    _t("label-dtype-int-expected-long",
       r"\"?nll_loss\w*\"? not implemented for 'Int'|expected scalar type Long but found Int\b|"
       r"Expected object of scalar type Long but got scalar type Int for argument #\d+ 'target'",
       "Class labels reached the loss as int32 (from NumPy on Windows, TensorFlow-style "
       "preprocessing or an explicit .int()); PyTorch's cross-entropy takes int64 class ids.",
       "nll_loss is implemented for Long targets only.",
       ["data.label-dtype-problem-type"],
       "labels = labels.long()\n"
       "dataset = dataset.cast_column('labels', Value('int64'))   # from datasets import Value",
       title="int32 labels for cross-entropy", framework="pytorch"),
    _t("text-column-reaches-collate",
       r"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
       r"found <class '(?:str|NoneType|PIL\.\w+\.\w+)'>",
       "A column of raw values (text, None, images) reached the DataLoader's default collate: "
       "the dataset still has its untokenized columns (remove_unused_columns=False, a custom "
       "DataLoader, set_format without columns=).",
       "default_collate can only stack tensors, arrays and numbers.",
       ["data.raw-text-columns", "data.batch-structure"],
       "tokenized = dataset.map(tokenize, batched=True, remove_columns=dataset.column_names)\n"
       "# or: tokenized.set_format('torch', columns=['input_ids', 'attention_mask', 'labels'])",
       title="Raw values reach the default collate", framework="pytorch"),
    _t("sampling-from-non-finite-logits",
       r"probability tensor contains either `?inf`?, `?nan`? or element < 0",
       "generate(do_sample=True) drew from logits that are inf or NaN: the model runs in float16 "
       "and overflows (common for Llama-family weights), its weights became NaN in training, or "
       "a temperature near 0 divided the logits into inf.",
       "Sampling turns the logits into probabilities with softmax; one inf or NaN makes the "
       "whole distribution invalid.",
       ["model.fp16-overflow-risk", "model.nan-loss-samples"],
       "model = AutoModelForCausalLM.from_pretrained(ckpt, torch_dtype=torch.bfloat16)   # not "
       "float16\n"
       "print(any(torch.isnan(p).any() for p in model.parameters()))   # weights NaN after "
       "training?\nmodel.generate(**inputs, do_sample=True, temperature=0.7)   # or "
       "do_sample=False", title="Sampling from inf/NaN probabilities", framework="pytorch"),
    _t("host-memory-exhausted",
       r"(?m)^\W{0,4}Killed\s*$|<Signals\.SIGKILL: 9>|exit(?:ed with)? ?code[ \t]*:?[ \t]*-9\b|"
       r"returned non-zero exit status -9\b|Signal 9 \(SIGKILL\) received by PID",
       "The operating system killed the process for lack of RAM (not GPU memory): a model "
       "loaded on the CPU in float32 before moving to the GPU, a whole dataset held in memory, "
       "or several processes each loading the full model.",
       "Linux's out-of-memory killer ends the largest process with SIGKILL (exit code -9); "
       "Python prints no traceback.",
       ["memory.estimate"],
       "model = AutoModelForCausalLM.from_pretrained(ckpt, torch_dtype=torch.bfloat16, "
       "device_map='auto',\n                                             low_cpu_mem_usage=True)\n"
       "dataset = load_dataset(..., streaming=True)   # for data larger than RAM\n"
       "# free -g; dmesg | grep -i oom   # confirm", title="Killed: out of RAM",
       priority=14),
    _t("nccl-collective-timeout",
       r"Watchdog caught collective operation timeout|ProcessGroupNCCL\w*\.cpp[^\n]{0,200}"
       r"Timeout\(ms\)=\d+|NCCL (?:communicator|watchdog)[^\n]{0,80}time(?:d )?out",
       "One process of a distributed run did work the others waited on for longer than the "
       "collective timeout (30 minutes by default): tokenizing or mapping the dataset, "
       "evaluating or saving on the main process only, or processes that took different paths.",
       "Every rank must reach each collective operation; NCCL's watchdog aborts the run when "
       "one does not within the timeout.",
       ["environment.device"],
       "TrainingArguments(..., ddp_timeout=7200)   # seconds\n"
       "# or prepare the dataset once before launching (map with cache), or with accelerate:\n"
       "Accelerator(kwargs_handlers=[InitProcessGroupKwargs(timeout=timedelta(hours=2))])",
       title="NCCL collective timed out", priority=11),
    _t("nccl-system-error",
       r"NCCL error in:?[^\n]{0,200}(?:unhandled system error|unhandled cuda error|internal "
       r"error|invalid usage)",
       "NCCL could not set up communication between the GPUs: a container's small /dev/shm, "
       "peer-to-peer or InfiniBand transport the machine does not support, or the wrong network "
       "interface.",
       "NCCL picks shared memory, P2P, InfiniBand or sockets per machine; a transport that "
       "fails at setup ends the run with a generic system error.",
       ["environment.device"],
       "NCCL_DEBUG=INFO torchrun ...   # shows which transport fails\n"
       "NCCL_P2P_DISABLE=1 NCCL_IB_DISABLE=1 torchrun ...   # or: docker run --shm-size=16g",
       title="NCCL failed to set up", priority=11),
    _t("model-offloaded-without-folder",
       r"had weights offloaded to the disk\. Please provide an `?offload_folder`?|"
       r"We need an `?offload_dir`? to dispatch this model",
       "device_map='auto' found the model too big for the GPUs and the CPU RAM together and "
       "placed some weights on disk, which needs a folder to write them to.",
       "accelerate fills the GPUs, then the CPU, then the disk; disk offload is very slow.",
       ["memory.will-not-fit", "memory.estimate"],
       "model = AutoModelForCausalLM.from_pretrained(ckpt, device_map='auto', "
       "torch_dtype=torch.bfloat16,\n"
       "                                             offload_folder='offload')\n"
       "# better: a smaller or 4-bit model (BitsAndBytesConfig(load_in_4bit=True)), or more GPU "
       "memory", title="Weights offloaded to disk without a folder", priority=15),
    _t("attention-implementation-unsupported",
       r"does not support an attention implementation through torch\.nn\.functional\."
       r"scaled_dot_product_attention yet|does not support Flash Attention 2\.0 yet",
       "attn_implementation asks for SDPA or FlashAttention-2 on a model class that does not "
       "implement it (in the installed transformers release).",
       "Each architecture lists the attention kernels it implements; newer releases add them.",
       ["environment.device"],
       "model = AutoModel.from_pretrained(ckpt, attn_implementation='eager')\n"
       "# or: pip install -U transformers   # newer releases implement sdpa for more models",
       title="Attention implementation not supported by this model", framework="pytorch"),
    _t("file-not-utf8",
       r"'utf-?8' codec can't decode byte 0x[0-9a-f]{2} in position \d+",
       "A file read as UTF-8 text is not UTF-8: a data file in another encoding, or a binary "
       "file read where a text file is expected.",
       "Python decodes text files as UTF-8 by default; other bytes fail to decode.",
       ["data.batch-structure"],
       "open(path, encoding='latin-1')   # the file's real encoding; or re-save it as UTF-8",
       title="File is not UTF-8", refine=refine_utf8),
    _t("too-many-indices",
       r"too many indices for (?:tensor|array) of dimension (?P<ndim>\d+)",
       "Code indexes a tensor with more indices than it has dimensions: a single example "
       "without its batch dimension, or 1-D class labels indexed like one-hot rows.",
       "Each index consumes one dimension; a 1-D tensor takes one index.",
       ["data.batch-structure"],
       "print(tensor.shape)   # then index by that shape; add a batch dimension with "
       ".unsqueeze(0)", title="Too many indices for the tensor", priority=14,
       refine=refine_extra_index),
    _t("iterable-dataset-without-length",
       r"max_steps must be set to a positive value if dataloader does not have a length|"
       r"object of type '(?:Iterable\w*Dataset|IterableDatasetDict|generator)' has no len\(\)",
       "A streamed dataset (load_dataset(..., streaming=True), an IterableDataset or a "
       "generator) has no length, and the Trainer (or the code) needs one to plan the epochs.",
       "An iterable dataset is read as it goes; nothing knows how many rows it has.",
       ["data.batch-structure"],
       "TrainingArguments(..., max_steps=10_000)   # steps instead of epochs for a stream\n"
       "# or load it without streaming=True when it fits on disk",
       title="A streamed dataset has no length"),
    _t("torch-load-weights-only",
       r"Weights only load failed|WeightsUnpickler error: Unsupported global",
       "torch 2.6 made torch.load(weights_only=True) the default; the checkpoint holds pickled "
       "Python objects besides tensors (a Trainer checkpoint's RNG state or optimizer, NumPy "
       "values, a whole saved model), which that mode refuses.",
       "weights_only=True loads only tensors and allow-listed types, to avoid running code "
       "from untrusted pickles.",
       ["environment.pickle-weights-only"],
       "torch.load(path, weights_only=False)   # only for a checkpoint you trust\n"
       "pip install -U transformers   # resumes Trainer checkpoints under torch>=2.6\n"
       "# or: pip install \"torch<2.6\"", title="torch.load refuses the checkpoint (weights "
       "only)", family=NEW, behaviour_change=True, priority=14),
    _t("torch-compile-without-triton",
       r"Cannot find a working triton installation",
       "torch.compile's default backend (inductor) generates Triton kernels for the GPU, and "
       "Triton is not installed (or has no build for this platform, e.g. Windows).",
       "inductor compiles GPU code with Triton; without it compilation fails.",
       ["environment.device"],
       "pip install triton   # Linux; on Windows: pip install triton-windows\n"
       "# or train without compiling: TrainingArguments(torch_compile=False)",
       title="torch.compile needs Triton", family=MISSING, priority=14),
    _t("image-channels-unknown",
       r"Unable to infer channel dimension format",
       "An image of an unusual shape reached the image processor: grayscale (2-D), RGBA (4 "
       "channels) or a batch of one with an extra dimension, so it cannot tell where the "
       "channels are.", "Image processors guess channels-first or channels-last from a "
       "dimension of size 1 or 3.", ["data.batch-structure"],
       "images = [img.convert('RGB') for img in batch['image']]   # PIL images, 3 channels\n"
       "# or: processor(images, input_data_format='channels_last')",
       title="The image's channels cannot be inferred"),
    _t("audio-sampling-rate-mismatch",
       r"was trained using a sampling rate of (?P<expected>\d+)\. Please make sure that the "
       r"provided `?raw_speech`? input was sampled with \d+ and not (?P<got>\d+)",
       "The audio was recorded at another sampling rate than the model's feature extractor "
       "was trained on.", "Speech models read features computed at one fixed rate.",
       ["data.batch-structure"],
       "from datasets import Audio\n"
       "dataset = dataset.cast_column('audio', Audio(sampling_rate=16_000))   # the extractor's "
       "rate", title="Audio at the wrong sampling rate"),
]
