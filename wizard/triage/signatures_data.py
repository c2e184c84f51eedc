"""Errors of the data on its way into the model: labels of the wrong rank or integer width for
the loss, raw values at the default collate, an index one dimension too many, streamed datasets
where a length is needed, ClassLabel values outside their names, map() workers that die or
cannot receive their function, files that are not UTF-8, images and audio a processor cannot
take as they are, formatting functions and split words the tokenizer does not expect, and
logits decoded as token ids.
"""
from __future__ import annotations

import re
from typing import Any

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


_CHANNEL_FIXES = {
    (3, 4): ("image-has-alpha-channel",
             "The image has 4 channels (RGBA: a PNG with an alpha channel) and the model takes 3 "
             "(RGB).",
             "image = Image.open(path).convert('RGB')   # drops the alpha channel\n"
             "# arrays: x = x[..., :3]"),
    (3, 1): ("grayscale-input-to-rgb-model",
             "The image has 1 channel (grayscale) and the model takes 3 (RGB).",
             "image = Image.open(path).convert('RGB')   # 3 channels\n# tensors: "
             "x = x.repeat(1, 3, 1, 1) (channels first) or np.repeat(x, 3, axis=-1) (channels "
             "last); torchvision: transforms.Grayscale(num_output_channels=3)"),
    (1, 3): ("rgb-input-to-grayscale-model",
             "The image has 3 channels (RGB) and the model takes 1 (grayscale).",
             "image = Image.open(path).convert('L')   # 1 channel\n# torchvision: "
             "transforms.Grayscale(num_output_channels=1)"),
}


def refine_image_channels(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """An image's channels against the model's: RGBA or grayscale into an RGB model, RGB into
    a grayscale one; other counts are not an image's."""
    want = ev.get("want") or ev.get("want2")
    got = ev.get("got") or ev.get("got2")
    found = _CHANNEL_FIXES.get((want, got))
    if found is None:
        return {"reject": True}
    rule_id, cause, fix = found
    return {"id": rule_id, "cause": cause, "fix": fix}


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


_m = signature_maker(12)


DATA_SIGNATURES: list[Signature] = [
    _m("squad-v2-flag-missing",
       r"For training, each question should have exactly 1 answer",
       "The data holds questions with no answer (SQuAD 2.0 style) and the script reads it as "
       "SQuAD 1.1, where every training question has exactly one answer.",
       "SQuAD 2.0's unanswerable questions need the script's version-2 flag.",
       ["data.batch-structure"],
       "python run_squad.py ... --version_2_with_negative   # SQuAD 2.0 data (run_qa.py: "
       "--version_2_with_negative too)", title="SQuAD 2.0 data read as SQuAD 1.1"),
    _m("faiss-index-not-on-queried-dataset",
       r"Index with index_name '(?P<index>[^']+)' not initialized yet",
       "The dataset queried (get_nearest_examples / search) has no FAISS index of that name: "
       "the index was added to another dataset object (map and filter return new ones) or not "
       "added at all.",
       "An index lives on the Dataset object it was added to; a dataset derived from it does "
       "not carry it.", ["data.batch-structure"],
       "ds = ds.map(embed)   # the dataset you will query\nds.add_faiss_index(column='"
       "embeddings')\nscores, examples = ds.get_nearest_examples('embeddings', query, k=5)",
       title="No FAISS index on the dataset queried"),
    _m("dataset-trust-remote-code-required",
       # datasets 2.16-2.20: the error and the FutureWarning
       r"contains custom code which must be executed to correctly load the dataset|passing the argument `?trust_remote_code=True`?\. Passing `?trust_remote_code=True`? will be mandatory to load this dataset|"
       r"Loading this dataset requires you to execute custom code contained in the dataset "
       r"repository|Please set the option `?trust_remote_code=True`? to permit loading of this "
       r"dataset|"
       # datasets 2.20-2.21: "Loading super_glue requires you to execute the dataset script in
       # that repo"
       r"requires you to execute the dataset script in that repo",
       "The dataset is a loading script (Python code in its repository), which datasets runs only "
       "when allowed.",
       "datasets 2.16 to 3.x ask for trust_remote_code=True before running a dataset's script; "
       "datasets 4 no longer runs scripts at all.",
       ["environment.dataset-config"],
       "ds = load_dataset(name, trust_remote_code=True)   # datasets < 4, after reading the "
       "script\n# datasets >= 4: load its parquet export: load_dataset(name, "
       "revision='refs/convert/parquet')",
       title="The dataset's script needs trust_remote_code=True"),
    _m("labels-with-extra-dimension",
       # torch 1.7; torch 0.3
       r"(?:^|[^D] )1D target tensor expected, multi-target not supported|RuntimeError: multi-target not supported at|"
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
    _m("label-dtype-int-expected-long",
       # torch 0.4's words (0.3's: "Variable[torch.LongTensor]")
       r"Expected object of type (?:Variable\[)?torch\.(?:cuda\.)?LongTensor\]? but found type "
       r"(?:Variable\[)?torch\.(?:cuda\.)?IntTensor\]? for argument #\d+ 'target'|"
       r"\"?nll_loss\w*\"? not implemented for 'Int'|expected scalar type Long but found Int\b|"
       r"Expected object of scalar type Long but got scalar type Int for argument #\d+ 'target'",
       "Class labels reached the loss as int32 (from NumPy on Windows, TensorFlow-style "
       "preprocessing or an explicit .int()); PyTorch's cross-entropy takes int64 class ids.",
       "nll_loss is implemented for Long targets only.",
       ["data.label-dtype-problem-type"],
       "labels = labels.long()\n"
       "dataset = dataset.cast_column('labels', Value('int64'))   # from datasets import Value",
       title="int32 labels for cross-entropy", framework="pytorch"),
    _m("text-column-reaches-collate",
       # torch < 1.0, without the prefix and numpy arrays
       r"(?<!default_collate: )batch must contain tensors, numbers, dicts or lists; found <class '(?:str|NoneType|PIL\.\w+\.\w+)'>|"
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
    _m("too-many-indices",
       r"too many indices for (?:tensor|array) of dimension (?P<ndim>\d+)",
       "Code indexes a tensor with more indices than it has dimensions: a single example "
       "without its batch dimension, or 1-D class labels indexed like one-hot rows.",
       "Each index consumes one dimension; a 1-D tensor takes one index.",
       ["data.batch-structure"],
       "print(tensor.shape)   # then index by that shape; add a batch dimension with "
       ".unsqueeze(0)", title="Too many indices for the tensor", priority=14,
       refine=refine_extra_index),
    _m("iterable-dataset-without-length",
       r"max_steps must be set to a positive value if dataloader does not have a length|"
       r"train_dataset does not implement __len__, max_steps has to be specified|"
       r"object of type '(?:Iterable\w*Dataset|IterableDatasetDict|generator)' has no len\(\)",
       "A streamed dataset (load_dataset(..., streaming=True), an IterableDataset or a "
       "generator) has no length, and the Trainer (or the code) needs one to plan the epochs.",
       "An iterable dataset is read as it goes; nothing knows how many rows it has.",
       ["data.batch-structure"],
       "TrainingArguments(..., max_steps=10_000)   # steps instead of epochs for a stream\n"
       "# or load it without streaming=True when it fits on disk",
       title="A streamed dataset has no length"),
    _m("truncation-stride-too-large",
       r"Truncation error: Sequence to truncate too short to respect the provided max_length",
       "With truncation='only_second' and a stride (question answering, long documents), the "
       "part that may not be truncated (the question) leaves too little room: max_length minus "
       "the question is shorter than the stride.",
       "Each window keeps the whole question plus a slice of the context overlapping the "
       "previous one by `stride` tokens.", ["data.text-lengths"],
       "tokenizer(questions, contexts, truncation='only_second', max_length=384, stride=128,\n"
       "          return_overflowing_tokens=True)   # stride well below max_length - question "
       "length; truncate long questions first", title="Stride too large for the question"),
    _m("data-files-mixed-formats",
       r"Couldn't infer the same data file format for all splits",
       "The splits' data_files are of different formats (JSON for one, CSV for another) in one "
       "load_dataset call.", "One builder (json, csv, parquet ...) reads all splits of a call.",
       ["environment.dataset-source"],
       "train = load_dataset('json', data_files='train.jsonl', split='train')\n"
       "valid = load_dataset('csv', data_files='valid.csv', split='train')   # one call per "
       "format", title="Data files of different formats", priority=12),
    _m("arrow-offset-overflow",
       r"ArrowCapacityError: array cannot contain more than \d+ bytes|"
       r"offset overflow while concatenating arrays|Capacity error: array cannot contain more "
       r"than \d+ bytes",
       "One Arrow chunk of a column holds more than 2 GB (long texts, images or token lists in "
       "a large map batch): Arrow's 32-bit offsets overflow.",
       "datasets writes each map batch as one Arrow chunk.", ["data.text-lengths"],
       "dataset.map(fn, batched=True, batch_size=100, writer_batch_size=100)   # smaller chunks",
       title="Arrow chunk over 2 GB", priority=12),
    _m("label-column-not-classlabel",
       r"'(?:Value|Sequence)' object has no attribute '(?:names|int2str|str2int|num_classes)'|"
       r"Stratifying by column is only supported for ClassLabel column|is not (?:a|of type) "
       r"ClassLabel",
       "The label column is a plain Value (strings or ints, as loaded from CSV/JSON), not a "
       "ClassLabel feature, so it has no class names (names, int2str) and cannot stratify.",
       "Only a ClassLabel feature records the class names; load_dataset infers a Value from "
       "raw files.", ["data.string-labels", "data.label-balance"],
       "dataset = dataset.class_encode_column('label')   # Value -> ClassLabel, names sorted\n"
       "# or: dataset.cast_column('label', ClassLabel(names=[...]))",
       title="The label column is not a ClassLabel", priority=15),
    _m("dataset-split-sizes-changed",
       r"NonMatchingSplitsSizesError",
       "The splits load_dataset built differ in size from the ones the dataset's metadata "
       "records (dataset_infos.json or the card): the source data or the Hub repository changed "
       "after the metadata was written, the loading script or its metadata is stale, or a "
       "cached download is partial.",
       "load_dataset verifies the generated splits against the recorded sizes.",
       ["environment.dataset-source"],
       'ds = load_dataset(name, config, verification_mode="no_checks")   # older datasets: '
       'ignore_verifications=True\n# or a fresh copy: load_dataset(name, '
       'download_mode="force_redownload")', priority=10,
       title="Dataset splits differ from the recorded sizes"),
    _m("arrow-nested-chunked",
       r"Nested data conversions not implemented for chunked array outputs",
       "A parquet file has a nested column (conversations, messages) whose data in one row group "
       "is too large for pyarrow to read as a single array.",
       "pyarrow cannot assemble nested types from an internally chunked array.",
       ["environment.dataset-source"],
       "import pyarrow.parquet as pq\nt = pq.read_table(path)   # if it reads; else iterate "
       "pq.ParquetFile(path).iter_batches(1000)\npq.write_table(t, fixed_path, "
       "row_group_size=1000)   # smaller row groups", title="A nested parquet column too big"),
    _m("dataset-features-not-aligned",
       r"The features can't be aligned because the key (?P<key>\S+) of features",
       "concatenate_datasets got datasets whose column of one name has different types (a column "
       "all None in one inferred as null, a list of dicts against a Sequence).",
       "Concatenation needs one schema.", ["data.batch-structure"],
       "ds2 = ds2.cast(ds1.features)   # before concatenate_datasets([ds1, ds2])",
       title="Datasets with different column types"),
    _m("iterable-dataset-map-args",
       r"IterableDataset\.map\(\) got an unexpected keyword argument '(?P<arg>num_proc|desc|"
       r"load_from_cache_file|cache_file_name)'",
       "A streamed dataset (streaming=True gives an IterableDataset) reached code that calls "
       ".map with num_proc (or desc, caching arguments), which no release of IterableDataset.map "
       "takes (older SFTTrainer releases did this).",
       "A stream is mapped lazily in one process, without a cache.", ["data.batch-structure"],
       "kwargs = {} if isinstance(ds, IterableDataset) else {'num_proc': 4}\n"
       "ds = ds.map(fn, batched=True, **kwargs)   # SFTTrainer: pip install -U trl",
       priority=18, title="Map arguments a streamed dataset does not take"),
    _m("load-from-disk-wrong-folder",
       r"is neither a `?Dataset`? directory nor a `?DatasetDict`? directory",
       "load_from_disk was pointed at a folder save_to_disk did not write (raw json/parquet "
       "files, a download or clone of a Hub dataset repository).",
       "load_from_disk reads only save_to_disk's Arrow layout.", ["environment.dataset-source"],
       "ds = load_dataset('/path/to/folder')   # or load_dataset('parquet', data_files=...)",
       title="load_from_disk on files save_to_disk did not write"),
    _m("load-dataset-on-saved-folder",
       r"You are trying to load a dataset that was saved using `save_to_disk`",
       "load_dataset was given a folder written by save_to_disk, which only load_from_disk reads.",
       "The two functions read different layouts.", ["environment.dataset-source"],
       "from datasets import load_from_disk\nds = load_from_disk('/path/to/saved')",
       title="load_dataset on a save_to_disk folder"),
    _m("dataset-empty-directory",
       r"EmptyDatasetError: The directory at \S+ doesn't contain any data files",
       "load_dataset resolved the name to a local folder with no data file it reads: a folder "
       "named like the Hub dataset in the working directory (or cache_dir) hides it, or data_dir "
       "names a file instead of its folder.",
       "A local path wins over a Hub id of the same name.", ["environment.dataset-source"],
       "import os; print(os.path.isdir('<name>'))   # a local folder of that name?\n"
       "ds = load_dataset('imagefolder', data_dir='path/to/folder')   # a folder, not a file",
       title="The dataset folder holds no data files"),
    _m("json-not-json-lines",
       r"straddling object straddles two block boundaries",
       "A JSON file read as JSON Lines holds objects larger than pyarrow's block: a "
       "pretty-printed or array JSON file, or one very long line (old datasets releases did not "
       "grow the block).", "pyarrow reads JSON in blocks, one object per line.",
       ["environment.dataset-source"],
       "pip install -U datasets   # grows the block size itself\n# or write JSON Lines: one "
       "object per line", title="A JSON file that is not JSON Lines"),
    _m("dataset-too-small-to-split",
       r"the resulting train set will be empty",
       "train_test_split got 0 or 1 rows: the data loaded empty (a wrong path or filter) or "
       "shrank to one row (packing a few short texts into one block).",
       "A split needs at least one row on each side.", ["data.empty-text"],
       "print(len(dataset))   # before the split: at least 2, and test_size * len >= 1",
       title="Too few rows to split"),
    _m("classlabel-out-of-range",
       # ClassLabel.int2str
       r"Invalid integer class label (?P<label4>-?\d+)|"
       r"Class label (?P<label>-?\d+) greater than configured num_classes (?P<num_classes>\d+)|"
       r"Class label (?P<label2>-?\d+) less than -1|Invalid string class label (?P<label3>[^\n]{1,80})",
       "A label value lies outside the dataset's ClassLabel feature (its names list has fewer "
       "classes than the data uses, or the ids do not start at 0).",
       "ClassLabel stores ids 0..num_classes-1 (and -1 for no label).",
       ["data.labels-out-of-range", "data.label-balance"],
       "from datasets import ClassLabel\n"
       "dataset = dataset.cast_column('label', ClassLabel(names=sorted(set(dataset['label']))))"
       "   # every class", title="A label outside the ClassLabel names", priority=12),
    _m("map-worker-died",
       r"One of the subprocesses has abruptly died during map operation",
       "A worker process of Dataset.map(num_proc=N) died: usually out of RAM (each process holds "
       "its own copy of what the function uses, e.g. a model or a large tokenizer), or a crash "
       "inside the function.", "map(num_proc=N) runs the function in N processes.",
       ["memory.estimate"],
       "dataset.map(fn, batched=True, num_proc=1)   # shows the function's own error; then "
       "fewer processes (num_proc=2) or smaller batches (batch_size=100)",
       title="A map() worker process died", priority=12),
    _m("map-function-not-picklable",
       # Python < 3.8
       r"[Cc]an't pickle (?P<obj2>\w{1,80}) objects|"
       r"cannot pickle '(?P<obj>[\w.]{1,80})' object|Can't pickle (?:local object|<function "
       r"<lambda>)",
       "An object that cannot be pickled (a lock, a client, a model or tokenizer holding one, a "
       "local function) is sent to another process: Dataset.map(num_proc>1), DataLoader workers "
       "started by spawn (Windows, macOS), or multiprocessing.",
       "Other processes receive the function and what it captures by pickling them.",
       ["data.batch-structure"],
       "dataset.map(fn, num_proc=1)   # or build the object inside the function;\n"
       "# DataLoader: num_workers=0 (or define functions at module level, under if __name__ == "
       "'__main__':)", title="An object that cannot be pickled", priority=11),
    _m("file-not-utf8",
       r"'utf-?8' codec can't decode byte 0x[0-9a-f]{2} in position \d+",
       "A file read as UTF-8 text is not UTF-8: a data file in another encoding, or a binary "
       "file read where a text file is expected.",
       "Python decodes text files as UTF-8 by default; other bytes fail to decode.",
       ["data.batch-structure"],
       "open(path, encoding='latin-1')   # the file's real encoding; or re-save it as UTF-8",
       title="File is not UTF-8", refine=refine_utf8),
    _m("default-encoding-not-utf8",
       r"'(?P<codec>charmap|cp\d{3,4}|gbk|gb2312|mbcs|ascii)' codec can't (?:decode|encode) "
       r"(?:byte|character)",
       "Python opened a UTF-8 file (or printed UTF-8 text) with the system's default encoding, "
       "which is not UTF-8 here: Windows' code page ('charmap' is cp1252; gbk on Chinese "
       "Windows), or ascii under a C/POSIX locale.",
       "open() without encoding= uses the locale's encoding; on Windows that is not UTF-8.",
       ["data.batch-structure"],
       "open(path, encoding=\"utf-8\")   # in the line that reads it (json.load(open(...)))\n"
       "# or for the whole run: set PYTHONUTF8=1 (Windows: setx PYTHONUTF8 1; Linux: export "
       "LANG=C.UTF-8)", title="A UTF-8 file read with the system's default encoding",
       priority=12),
    _m("image-channels-mismatch",
       # Keras: a 4-D channels-last input against the model's; PyTorch: a convolution's
       r"expected shape=\((?:None|\d+), ?(?:None|\d+), ?(?:None|\d+), ?(?P<want>\d)\), found "
       r"shape=\(\d+, ?\d+, ?\d+, ?(?P<got>\d)\)|expected input\[\d+, ?(?P<got2>\d), ?\d+, ?\d+\] "
       r"to have (?P<want2>\d) channels, but got \d channels instead",
       "The images have another number of channels than the model's first layer takes.",
       "A convolution's weights are built for a fixed number of input channels: 3 for RGB, "
       "1 for grayscale.", ["data.batch-structure"],
       "image = Image.open(path).convert('RGB')   # the channels the model takes",
       title="An image with other channels than the model takes", priority=14,
       refine=refine_image_channels),
    _m("image-channels-unknown",
       r"Unable to infer channel dimension format",
       "An image of an unusual shape reached the image processor: grayscale (2-D), RGBA (4 "
       "channels) or a batch of one with an extra dimension, so it cannot tell where the "
       "channels are.", "Image processors guess channels-first or channels-last from a "
       "dimension of size 1 or 3.", ["data.batch-structure"],
       "images = [img.convert('RGB') for img in batch['image']]   # PIL images, 3 channels\n"
       "# or: processor(images, input_data_format='channels_last')",
       title="The image's channels cannot be inferred"),
    _m("audio-sampling-rate-mismatch",
       r"was trained using a sampling rate of (?P<expected>\d+)\. Please make sure that the "
       r"provided `?raw_speech`? input was sampled with \d+ and not (?P<got>\d+)",
       "The audio was recorded at another sampling rate than the model's feature extractor "
       "was trained on.", "Speech models read features computed at one fixed rate.",
       ["data.batch-structure"],
       "from datasets import Audio\n"
       "dataset = dataset.cast_column('audio', Audio(sampling_rate=16_000))   # the extractor's "
       "rate", title="Audio at the wrong sampling rate"),
    _m("formatting-func-returns-string",
       r"The `?formatting_func`? should return a list of processed strings",
       "SFTTrainer calls formatting_func on a batch of examples (each field a list), and it "
       "returned one string instead of a list of strings, one per example.",
       "This TRL release maps formatting_func over batches.",
       ["data.batch-structure"],
       "def formatting_func(batch):\n"
       "    return [f\"### Question: {q}\\n### Answer: {a}\" for q, a in zip(batch['question'], "
       "batch['answer'])]", title="formatting_func must return a list of strings", priority=12),
    _m("add-prefix-space-for-pretokenized",
       r"You need to instantiate (?P<cls>\w+) with add_prefix_space=True to use it with "
       r"pretokenized inputs",
       "Words already split (is_split_into_words=True, token classification) were given to a "
       "byte-level BPE tokenizer (RoBERTa, GPT-2, BART, Longformer) created without "
       "add_prefix_space=True.",
       "Byte-level BPE encodes the space before a word into its first token; split words need "
       "that space added back.",
       ["data.token-labels-misaligned"],
       "tokenizer = AutoTokenizer.from_pretrained(checkpoint, add_prefix_space=True)",
       priority=12, title="add_prefix_space=True needed for split words"),
    _m("decode-logits-not-ids",
       r"argument '(?:ids|token_ids)': '(?:list|float|numpy\.ndarray)' object cannot be "
       r"interpreted as an integer|TypeError: argument 'ids': (?:Can't extract|'float' object)",
       "compute_metrics decodes something that is not token ids: logits or a tuple (with "
       "predict_with_generate=False the predictions are the model's logits), or floats.",
       "batch_decode takes lists of integer ids.",
       ["hyperparameters.hidden-defaults"],
       "Seq2SeqTrainingArguments(..., predict_with_generate=True)\n"
       "preds = preds[0] if isinstance(preds, tuple) else preds\n"
       "preds = np.where(preds != -100, preds, tokenizer.pad_token_id)",
       title="Decoding logits instead of token ids", priority=12),
    _m("conversational-data-as-text-field",
       r"KeyError: None\b|dataset\[0\]\[dataset_text_field\]",
       "The dataset is conversational (a messages column of role/content turns), and the "
       "SFTTrainer in use (an older TRL, or Unsloth's wrapper) neither applies the chat template "
       "itself nor got a formatting_func: it reads the row's dataset_text_field (None, or "
       "'text'), which the rows lack.", "Older SFTTrainers train on one text column.",
       ["data.chat-template-mismatch"],
       "def to_text(row):\n    return tokenizer.apply_chat_template(row['messages'], "
       "tokenize=False)\nSFTTrainer(..., formatting_func=to_text)   # or: pip install -U trl "
       "(reads messages itself)", title="Conversational data without a formatting function",
       requires=r"messages|conversation", family="sft-missing-text-field"),
]
