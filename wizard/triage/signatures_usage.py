"""Errors of using an API with values it cannot take: broad families read from what the error
itself says (the shapes, dtypes, types and names it prints), the way a maintainer reads them,
each with its usual cause in fine-tuning and the fix.
"""
from __future__ import annotations

from wizard.triage.refine import refine_dtypes_many_gpus
from wizard.triage.signature import Signature, signature_maker
from wizard.triage.usage_refines import (
    refine_auto_class,
    refine_float_labels,
    refine_hidden_column_characters,
    refine_inplace_owner,
    refine_layer_shapes,
    refine_multilabel_view,
    refine_object_attribute,
    refine_quantized_target,
    refine_reward_parameter,
    refine_row_key,
    refine_schedule_arguments,
    refine_target_list,
    refine_truncation_not_asked,
    refine_unused_model_kwargs,
    refine_vocabulary_rows,
)

_u = signature_maker(11)


USAGE_SIGNATURES: list[Signature] = [
    _u("bce-target-size-mismatch",
       # torch < 1.0: a deprecation warning before the error
       r"Using a target size \(torch\.Size\(\[(?P<target2>[\d, ]*)\]\)\) that is different to the input size \(torch\.Size\(\[(?P<input2>[\d, ]*)\]\)\)|"
       r"Target size \(torch\.Size\(\[(?P<target>[\d, ]*)\]\)\) must be the same as input size "
       r"\(torch\.Size\(\[(?P<input>[\d, ]*)\]\)\)",
       "A binary cross-entropy loss (multi-label classification, or BCEWithLogitsLoss in your "
       "code) got labels of another shape than the logits: one class id per example where it "
       "needs one 0/1 value per class, or two logits per example against one 0/1 label.",
       "BCEWithLogitsLoss compares logits and labels element by element, so both need the same "
       "shape, and float labels.",
       ["data.batch-structure", "model.num-labels-vs-classes"],
       "labels = torch.nn.functional.one_hot(labels, num_classes=num_labels).float()  # multi-hot\n"
       "# or single-label classification: problem_type='single_label_classification' (cross-entropy)",
       title="Target size must be the same as input size"),
    _u("multilabel-labels-not-multi-hot",
       r"shape '\[-1, (?P<num_labels>\d+)\]' is invalid for input of size (?P<size>\d+)|"
       # SetFit's multi_target_strategy indexing the labels as rows of a 2-D array
       r"too many indices for array: array is 1-dimensional, but 2 were indexed",
       "A multi-label model got one label per example: it reshapes the labels to [-1, "
       "num_labels], which needs one 0/1 value per class (a multi-hot list) in each row.",
       "Multi-label classification compares every class's logit with its own 0/1 label.",
       ["data.batch-structure", "model.num-labels-vs-classes"],
       "df['labels'] = df[label_columns].values.tolist()   # one multi-hot list per row, "
       "num_labels long", title="Multi-label labels are not multi-hot lists",
       refine=refine_multilabel_view),
    _u("map-column-length-mismatch",
       r"Column \d+ named (?P<column>\w+) expected length (?P<expected>\d+) but got length "
       r"(?P<got>\d+)",
       "A batched map returned columns of different lengths: the function changed the number "
       "of rows (chunking, splitting, filtering) for the columns it returns, while the input "
       "columns it left alone kept the old count.",
       "datasets writes every column of a batch to one Arrow table, so all of them need the same "
       "number of rows.",
       ["data.batch-structure"],
       "ds = ds.map(group_texts, batched=True, remove_columns=ds.column_names)   # drop the old "
       "columns",
       title="A batched map returned columns of different lengths"),
    _u("cross-entropy-class-dim",
       r"Expected target size \((?P<expected>[\d, ]+)\), got torch\.Size\(\[(?P<got>[\d, ]+)\]\)|"
       r"Expected target size \[(?P<expected2>[\d, ]+)\], got \[(?P<got2>[\d, ]+)\]",
       "cross_entropy got logits of shape [batch, seq, vocab] with labels [batch, seq]: it reads "
       "the classes from dimension 1, so token-level logits must be flattened (or permuted) "
       "first.",
       "CrossEntropyLoss takes (N, C) logits with (N,) targets, or (N, C, d) with (N, d).",
       ["data.batch-structure"],
       "loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), "
       "ignore_index=-100)",
       title="Expected target size (cross-entropy over the wrong dimension)"),
    _u("response-template-not-found",
       r"Could not find response key|response_template\s*=\s*(?P<q>['\"])[^'\"\n]*?[ \t](?P=q)",
       "The response template's token ids do not appear in the tokenized example: encoded on its "
       "own, the template tokenizes differently than inside the text (a leading space or newline "
       "merges with its neighbour), or truncation cut it off; the example then trains on nothing.",
       "DataCollatorForCompletionOnlyLM looks for the template's token ids in each example's ids.",
       ["data.batch-structure"],
       "ids = tokenizer.encode('\\n### Answer:', add_special_tokens=False)[2:]   # with its "
       "context, then drop the context's tokens\n"
       "collator = DataCollatorForCompletionOnlyLM(ids, tokenizer=tokenizer)",
       title="Could not find response key", family="response-template-tokenization-mismatch"),
    _u("vocab-size-mismatch",
       r"size mismatch for [\w.]*?\b(?:lm_head|embed_tokens|wte|word_embeddings|embed_out)\b|"
       # two vocabularies' rows meeting in one operation (e.g. merging weights)
       r"The size of tensor a \((?P<rows_a>\d+)\) must match the size of tensor b "
       r"\((?P<rows_b>\d+)\) at non-singleton dimension 0\b",
       "The checkpoint's embeddings (or lm_head) are sized for another vocabulary than the model "
       "built to load them: tokens were added and the embeddings resized during training (the "
       "adapter or checkpoint saved them at the new size), but the base model was rebuilt at "
       "its original size.",
       "Loading copies each weight into a tensor of the model's own shape; a vocabulary of "
       "another size gives another number of rows.",
       ["model.head-size-mismatch"],
       "model = AutoModelForCausalLM.from_pretrained(base)\n"
       "model.resize_token_embeddings(len(tokenizer))   # the tokenizer saved with the adapter\n"
       "model = PeftModel.from_pretrained(model, adapter_path)",
       title="size mismatch for lm_head / embed_tokens", priority=14,
       refine=refine_vocabulary_rows),
    _u("dataset-split-not-found",
       # TensorFlow Datasets' quotes
       r"Unknown split '(?P<split3>[^'\n]+)'\. Should be one of (?P<splits3>\[[^\]\n]*\])|"
       r"Unknown split \"(?P<split>[^\"\n]+)\"\. Should be one of (?P<splits>\[[^\]\n]*\])|"
       r"Split (?P<split2>[\w.-]+) not found\. Available splits: (?P<splits2>\[[^\]\n]*\])",
       "The code asks for a split the dataset does not have (many datasets ship only 'train').",
       "load_dataset(..., split=name) and DatasetDict[name] need a split the data files define.",
       ["environment.dataset-config"],
       "ds = load_dataset(name, split='train').train_test_split(test_size=0.1)   # make the "
       "validation split",
       title="Unknown split"),
    _u("object-array-to-tensor",
       r"Failed to convert a NumPy array to a Tensor \(Unsupported object type (?P<type>[\w.]+)\)|"
       r"can't convert np\.ndarray of type numpy\.object_?",
       "The array holds Python objects (dtype=object): values of mixed types, None/NaN beside "
       "numbers, strings, or lists of different lengths, so it cannot become a numeric tensor.",
       "pandas columns and lists of mixed values become NumPy arrays of dtype object; tensors "
       "need one numeric dtype (and one length per row).",
       ["data.batch-structure"],
       "X = np.asarray(X).astype(np.float32)   # fails on the value that is not a number: find it\n"
       "y = np.asarray(y).astype(np.int64)     # class ids (float32 for regression)",
       title="An array of Python objects cannot become a tensor"),
    _u("library-object-missing-attribute",
       # (a reporter's retyped quotes may not pair: "Config' object has no attribute 'x")
       r"[\"'](?:[a-z_]\w*\.)*(?P<cls>[A-Z]\w+)' object has no attribute '(?P<attr>\w+)[\"']|"
       # retyped without the attribute's quotes: "'LoraModel' object has no attribute
       # _get_submodules()"
       r"'(?P<cls3>[A-Z]\w+)' object has no attribute (?P<attr3>[A-Za-z_]\w*)(?:\(\))?(?=[\s.,;:]|$)|"
       # transformers 5's tokenizers: "BertTokenizer has no attribute batch_encode_plus"
       r"\b(?P<cls2>[A-Z]\w*Tokenizer\w*) has no attribute (?P<attr2>\w+)",
       "Your code reads an attribute that an object of a library does not have.",
       "An object the library returns or passes to your code (an output, an EvalPrediction, a "
       "batch, a config) has a fixed set of fields; reading another name raises AttributeError "
       "in your own code.",
       ["data.batch-structure"],
       "print(dir(obj))   # the attributes the object has",
       priority=4, title="Your code reads an attribute the object does not have",
       refine=refine_object_attribute),
    _u("layer-input-shape-mismatch",
       # Keras in TF 2.4
       r"expected axis -?\d+ of input shape to have value (?P<expected2>\d+) but received input with shape (?P<found2>\([^)\n]{1,80}\))|"
       r"mat1 and mat2 shapes cannot be multiplied \((?P<a>\d+x\d+) and (?P<b>\d+x\d+)\)|"
       r"Input \d+ (?:of layer \"?[\w/-]+\"? )?is incompatible with (?:the )?layer(?: "
       r"\"?[\w/-]+\"?)?: expected "
       r"(?P<expected>[^\n]{1,80}?), found (?P<found>[^\n]{1,80})|"
       r"size mismatch, m1: \[(?P<m1>[^\]]+)\], m2: \[(?P<m2>[^\]]+)\]",
       "A layer got inputs of another width or rank than it was built for: a custom head sized "
       "for another hidden size (e.g. 512 instead of the model's 768), the whole model output "
       "(not the pooled or [CLS] vector) passed on, or inputs missing their batch dimension.",
       "A Linear/Dense layer multiplies its input by a weight of fixed shape; the last dimension "
       "of the input must equal the layer's in_features.",
       ["model.forward", "data.batch-structure"],
       "hidden = model.config.hidden_size   # size the head from the config\n"
       "self.classifier = torch.nn.Linear(hidden, num_labels)\n"
       "pooled = outputs.last_hidden_state[:, 0]   # [batch, hidden], not the whole output",
       title="Shapes of a layer's input and weight do not fit", refine=refine_layer_shapes),
    _u("tokenizer-input-not-text",
       r"TextEncodeInput must be Union\[TextInputSequence|TextInputSequence must be str|"
       r"text input must (?:be )?of type [`'\"]?str[`'\"]? \(single example\)|"
       r"PreTokenizedEncodeInput must be Union|"
       r"input must be of type `?str`?|You need to specify either `text` or `text_target`|"
       r"Input (?:None |nan )?is not valid\. Should be a string, a list/tuple of strings or a "
       r"list/tuple of integers",
       "The tokenizer got something that is not a string: an empty value (None/NaN, e.g. a "
       "missing cell of a CSV), a number, or a nested list from the text column.",
       "Tokenizers encode str (or lists of str); one None or float among the texts fails the "
       "whole batch.",
       ["data.batch-structure", "data.raw-text-columns"],
       "dataset = dataset.filter(lambda x: isinstance(x['text'], str) and x['text'])\n"
       "# pandas: df = df.dropna(subset=['text']); df['text'] = df['text'].astype(str)",
       title="The tokenizer got a value that is not text"),
    _u("tokenizer-class-mismatch",
       r"(?s:SentencePieceProcessor_LoadFromFile.{0,400}?not a string)|"
       # the same raised in a traceback whose frames are parsed (their code is not prose)
       r"^TypeError: not a string$",
       "A SentencePiece tokenizer class (LlamaTokenizer, T5Tokenizer ...) found no SentencePiece "
       "model file for this checkpoint: the checkpoint uses another tokenizer (a BPE "
       "tokenizer.json, e.g. a GPT-NeoX based model), or its tokenizer.model was not saved.",
       "The slow SentencePiece classes load tokenizer.model; with none, the path is None.",
       ["environment.hub-file-missing"],
       "tokenizer = AutoTokenizer.from_pretrained(name)   # the class the checkpoint declares",
       title="not a string (SentencePiece loading no file)", priority=12,
       requires=r"LoadFromFile|sentencepiece"),
    _u("truncation-not-enabled",
       r"(?:not|isn't|doesn't|does not|no longer) (?:actually )?truncat\w*",
       "The tokenizer does not truncate because the call does not ask it to: max_len / "
       "model_max_length only records the model's limit; truncation=True in the call (or "
       "enable_truncation on a tokenizers object) cuts the sequences.",
       "Tokenizers truncate only when asked, whatever limit they know.",
       ["data.sequence-longer-than-positions"],
       "tokenizer(texts, truncation=True, max_length=tokenizer.model_max_length)",
       title="The tokenizer does not truncate", refine=refine_truncation_not_asked),
    _u("mixed-dtypes",
       # torch <= 1.7
       r"Expected object of scalar type (?P<expected3>Half|Float|Double) but got scalar type (?P<found3>Half|Float|Double) for argument #\d+ '(?:mat\d|weight|input|other|self)'|"
       r"expected (?:scalar type|mat1 and mat2 to have the same dtype, but got:?) "
       r"(?P<expected>Half|Float|BFloat16|Double|c10::Half|c10::BFloat16|float|double)"
       r"(?: but found| !=) (?P<found>Half|Float|BFloat16|Double|c10::Half|c10::BFloat16|float|"
       r"double)|Input type \(\w*?(?P<in_t>Half|Float|BFloat16|Double)\w*\) and (?:weight|bias) "
       r"type \(\w*?(?P<w_t>Half|Float|BFloat16|Double)\w*\) should be the same|"
       # the same device, two dtypes: Input type (torch.cuda.HalfTensor) and weight type
       # (torch.cuda.FloatTensor)
       r"Input type \((?:torch\.)?(?P<dev>cuda\.)?(?P<in_t2>\w+)Tensor\) and (?:weight|bias) type "
       r"\((?:torch\.)?(?P=dev)(?!(?P=in_t2)Tensor)\w+Tensor\) should be the same|"
       r"(?:mat1|self) and mat2 must have the same dtype|"
       r"Index put requires the source and destination dtypes match, got (?P<dst>\w+) for the "
       r"destination and (?P<src>\w+) for the source",
       "Two tensors of one operation have different floating dtypes: a float16/bfloat16 model "
       "fed float32 inputs (or a float32 layer added to a half-precision model) without autocast.",
       "Matrix products need both operands in one dtype; autocast (fp16=True / bf16=True in the "
       "Trainer, torch.autocast in a loop) converts them.",
       ["model.precision-unsupported"],
       "with torch.autocast('cuda', dtype=torch.float16):\n    outputs = model(**batch)\n"
       "# or load one dtype: from_pretrained(..., torch_dtype=torch.float32); Trainer: fp16=True",
       title="Half and float tensors in one operation", framework="pytorch",
       refine=refine_dtypes_many_gpus),
    _u("input-ids-not-integer",
       r"Expected tensor for argument #1 'indices' to have (?:one of the following )?scalar "
       r"types?:? (?:Long|Int)|(?:embedding|Embedding)\(\): argument 'indices' .{0,40}must be "
       r"Tensor|indices must be integers|Value passed to parameter 'indices' has DataType float",
       "Token ids reached the embedding as floats: the ids were stored or converted as float "
       "(e.g. a float NumPy array, padding with NaN, torch.Tensor(...) instead of torch.tensor).",
       "An embedding looks rows up by integer index.",
       ["data.batch-structure"],
       "input_ids = torch.tensor(ids, dtype=torch.long)   # torch.Tensor(ids) makes floats",
       title="Token ids are not integers"),
    _u("loss-not-scalar",
       r"grad can be implicitly created only for scalar outputs",
       "backward() was called on a loss that is not one number: DataParallel returns one loss "
       "per GPU, or the loss was computed with reduction='none'.",
       "Autograd starts from a scalar; a vector needs .mean() (or a gradient argument).",
       ["model.initial-loss"],
       "loss = outputs.loss.mean()   # one loss per GPU under DataParallel\nloss.backward()",
       title="grad can be implicitly created only for scalar outputs", framework="pytorch"),
    _u("backward-through-graph-twice",
       r"Trying to backward through the graph a second time",
       "A tensor from a previous step's graph is reused: a loss or hidden state carried across "
       "iterations (e.g. accumulated without .detach(), or a cached output) is backpropagated "
       "again after its graph was freed.",
       "backward() frees the graph; a second backward through it needs it kept, which is almost "
       "never what is meant.",
       ["training.gradient-flow"],
       "total_loss += loss.item()   # not: total_loss += loss\nhidden = hidden.detach()   "
       "# state carried between steps", title="Trying to backward through the graph a second "
       "time", framework="pytorch"),
    _u("inplace-operation-breaks-autograd",
       r"one of the variables needed for gradient computation has been modified by an inplace "
       r"operation|a leaf Variable that requires grad is being used in an in-place operation",
       "A tensor that autograd saved for the backward pass was modified in place (x += ..., "
       "x[...] = ..., ReLU(inplace=True), or the optimizer stepping between two backward "
       "passes).",
       "Autograd checks each saved tensor's version when it goes backward.",
       ["training.gradient-flow"],
       "x = x + y   # instead of x += y\ntorch.autograd.set_detect_anomaly(True)   # names the "
       "operation", title="modified by an inplace operation", framework="pytorch",
       refine=refine_inplace_owner),
    _u("generate-unused-kwargs",
       r"The following `?model_kwargs`? are not used by the model: (?P<kwargs>\[[^\]\n]*\])",
       "generate() got arguments the model's forward does not take (e.g. token_type_ids from a "
       "BERT-style tokenizer for a decoder-only model, or a misspelt generation argument).",
       "generate passes unknown keyword arguments to the model and checks them first.",
       ["model.forward"],
       "inputs = tokenizer(prompt, return_tensors='pt', return_token_type_ids=False)\n"
       "model.generate(**inputs, max_new_tokens=50)",
       title="model_kwargs are not used by the model", refine=refine_unused_model_kwargs),
    _u("peft-target-modules-not-found",
       r"Target modules? (?P<modules>[^\n]{1,200}?) not found in the base model|"
       r"Please specify `target_modules` in `peft_config`",
       "LoraConfig's target_modules names layers the base model does not have: module names "
       "differ between architectures (q_proj/v_proj for Llama, query/value for BERT, c_attn for "
       "GPT-2).",
       "PEFT matches target_modules against the model's module names.",
       ["model.frozen-parameters"],
       "print({n.split('.')[-1] for n, _ in model.named_modules()})   # the names to target\n"
       "LoraConfig(target_modules=['query', 'value'], ...)   # e.g. for BERT",
       title="Target modules not found in the base model", refine=refine_target_list),
    _u("hf-argparser-unused-args",
       r"Some (?:specified arguments|keys) are not used by the HfArgumentParser: "
       r"(?P<args>\[[^\]\n]*\])",
       "A command-line flag is not an argument of the script's dataclasses: misspelt, or one "
       "that the script's (or transformers') release does not have.",
       "HfArgumentParser rejects arguments none of its dataclasses defines.",
       ["environment.package-versions"],
       "python train.py --help   # the arguments this script and release accept",
       title="Some specified arguments are not used by the HfArgumentParser"),
    _u("chat-template-not-set",
       # a processor's words (vision-language models)
       r"No chat template is set for this processor|processor does not have a chat template|"
       r"chat_template is not set|Cannot use chat template functions because|"
       # transformers 4.43's own warning, and the reporter's words for it
       r"default chat template is no longer allowed|"
       r"no longer provides? (?:a )?default chat templates?|default chat templates? (?:was|were|"
       r"has been|have been) removed",
       "The tokenizer has no chat template (a base model, not an instruct model), so "
       "apply_chat_template has nothing to format with.",
       "Only chat/instruct checkpoints ship a chat template in tokenizer_config.json; "
       "transformers 4.44 stopped falling back to a default template.",
       ["data.tokenizer-model-mismatch"],
       "tokenizer = AutoTokenizer.from_pretrained('<the -Instruct / -chat checkpoint>')\n"
       "# or set one: tokenizer.chat_template = '...'",
       title="The tokenizer has no chat template", behaviour_change=True),
    _u("column-name-whitespace",
       r"Columns? '(?P<column>[^'\n]{1,80})' could not be found in the provided file \(which "
       r"has columns: (?P<listed>[^)\n]{1,400})\)|"
       r"Columns? (?:to remove )?\[?'(?P<column2>[^'\n]{1,80})'\]? not in the dataset\. Current "
       r"columns in the dataset: \[(?P<listed2>[^\]\n]{1,400})\]",
       "The column is there under a name that only looks the same: the file's header carries "
       "invisible characters (a UTF-8 byte-order mark that Excel writes before the first name, "
       "spaces around a name, a non-breaking space), so the name asked for does not match it.",
       "Column names are compared character by character.", ["data.batch-structure"],
       "df = pd.read_csv(path, encoding=\"utf-8-sig\")   # drops the byte-order mark\n"
       "df.columns = df.columns.str.strip()   # and the spaces; then save it again\n"
       "# datasets: dataset = dataset.rename_columns({c: c.strip() for c in "
       "dataset.column_names})", title="A column name with invisible characters",
       priority=13, refine=refine_hidden_column_characters),
    _u("column-not-in-dataset",
       r"Column (?:to remove )?\[?'?(?P<column>[^\]'\n]{1,80})'?\]? not in the dataset|"
       r"Columns? (?P<column2>\w+|\[[^\]\n]{1,200}\]) not in the dataset\. Current columns in the "
       r"dataset:|Column '(?P<column3>[^'\n]{1,80})' doesn't exist",
       "The code names a column the dataset does not have (another name, or already removed "
       "or renamed by an earlier map).",
       "datasets checks column names against the dataset's current columns.",
       ["data.batch-structure", "data.label-column-missing"],
       "print(dataset.column_names)   # then use those names",
       title="Column not in the dataset"),
    _u("column-not-in-dataset-row",
       r"(?m)^KeyError: '(?P<key>[^'\n]{1,80})'$",
       "The code reads a column the dataset's rows do not have (another name, or one an "
       "earlier map removed or renamed).",
       "datasets looks the name up in the row or batch it passes to your function and raises "
       "KeyError when that column is not there.",
       ["data.batch-structure", "data.label-column-missing"],
       "print(dataset.column_names)   # then use those names in your function",
       title="Column not in the dataset", family="column-not-in-dataset",
       refine=refine_row_key),
    _u("reward-function-parameter-not-passed",
       r"(?<![\w.])(?P<fn>\w{1,80})(?:\.__call__)?\(\) missing \d+ required positional "
       r"arguments?: '(?P<column>\w+)'",
       "The reward function declares a parameter the trainer never passes: GRPO trainers (trl, "
       "ms-swift) pass prompts, completions and each dataset column by name, so a parameter "
       "without a column of that name (misnamed, or missing from the dataset) is never given.",
       "Reward functions get prompts, completions and every other column of the dataset as "
       "keyword arguments.", ["data.batch-structure"],
       "print(dataset.column_names)   # the reward function's parameters must be among them\n"
       "dataset = dataset.rename_column('answer', 'solution')   # or give the parameter a default",
       title="A reward function's parameter the trainer does not pass",
       family="callback-signature-mismatch",
       refine=refine_reward_parameter, priority=13),
    _u("meta-tensor-model",
       # an op meeting a weight never loaded
       r"Tensor on device meta is not on the expected device|"
       r"Cannot copy out of meta tensor; no data|is on the meta device, we need a `value` to put "
       r"in on",
       "Part of the model was never loaded with weights (meta tensors from low_cpu_mem_usage / "
       "device_map) and is then moved with .to() or trained.",
       "With device_map the weights are placed while loading; moving the model afterwards finds "
       "empty (meta) tensors.",
       ["model.forward"],
       "model = AutoModelForCausalLM.from_pretrained(checkpoint, device_map='auto')   "
       "# and no model.to(...) afterwards", title="Cannot copy out of meta tensor",
       framework="pytorch"),
    _u("label-dtype-float-expected-long",
       r"expected scalar type Long but found Float|Expected object of scalar type Long but got "
       r"scalar type Float for argument #\d+ '(?P<what>target)'|\"?nll_loss\w*\"? not "
       r"implemented for 'Float'",
       "Class labels reached the cross-entropy loss as floats; classification labels must be "
       "integer class ids (int64).",
       "CrossEntropyLoss takes class indices as Long (or class probabilities of the logits' "
       "shape).",
       ["data.label-dtype-problem-type"],
       "dataset = dataset.map(lambda b: {'labels': [int(x) for x in b['labels']]}, batched=True)\n"
       "labels = labels.long()", title="Float labels for cross-entropy", framework="pytorch",
       priority=12, refine=refine_float_labels),
    _u("decode-negative-ids",
       r"out of range integral type conversion attempted|piece id is out of range|"
       r"OverflowError: can.t convert negative int to unsigned",
       "Token ids that are not ids reached decode(): labels still hold -100 (the ignored "
       "positions), typically in compute_metrics of a seq2seq or generation run.",
       "decode() looks every id up in the vocabulary; -100 has no entry.",
       ["data.batch-structure"],
       "labels = np.where(labels != -100, labels, tokenizer.pad_token_id)\n"
       "decoded = tokenizer.batch_decode(labels, skip_special_tokens=True)",
       title="decode() got ids outside the vocabulary (-100)"),
    _u("offsets-need-fast-tokenizer",
       r"return_offset_mapping is not available when using Python tokenizers|"
       r"word_ids\(\) is not available when using (?:non-fast tokenizers|Python-based "
       r"tokenizers)|offset_mapping is not available",
       "Offsets and word ids come only from a fast (Rust) tokenizer; this one is a slow (Python) "
       "tokenizer (use_fast=False, or the model has no fast tokenizer).",
       "Token classification and question answering align labels through the offsets.",
       ["data.tokenizer-model-mismatch"],
       "tokenizer = AutoTokenizer.from_pretrained(checkpoint, use_fast=True)\n"
       "assert tokenizer.is_fast", title="Offsets need a fast tokenizer"),
    _u("trust-remote-code-required",
       r"set the option `?trust_remote_code=True`? to remove this error|requires you to execute "
       r"the (?:configuration|modeling|tokenizer)? ?file in that repo on your local machine|"
       r"Please pass the argument `trust_remote_code=True`",
       "The checkpoint ships its own model code (auto_map in its config), which runs only when "
       "you allow it.", "transformers never runs a repository's code without "
       "trust_remote_code=True.", ["environment.model-not-found"],
       "model = AutoModel.from_pretrained(checkpoint, trust_remote_code=True)   # after reading "
       "its code\n# or upgrade transformers: newer releases often have the model built in",
       title="trust_remote_code=True is needed"),
    _u("quantized-model-without-adapters",
       r"You cannot perform fine-tuning on purely quantized models|"
       r"attach trainable adapters on top of the quantized model",
       "A 4/8-bit quantized model was passed to the Trainer without LoRA adapters: quantized "
       "weights cannot be trained directly.", "Quantized fine-tuning (QLoRA) trains adapters on "
       "top of frozen quantized weights.", ["model.nothing-trainable"],
       "from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training\n"
       "model = prepare_model_for_kbit_training(model)\n"
       "model = get_peft_model(model, LoraConfig(task_type='CAUSAL_LM'))",
       title="Fine-tuning a purely quantized model"),
    _u("load-best-model-strategy-mismatch",
       r"--load_best_model_at_end requires the save and eval strategy to match|"
       r"load_best_model_at_end requires the saving steps to be a round multiple",
       "load_best_model_at_end needs a checkpoint at every evaluation: save_strategy (and "
       "save_steps) must match eval_strategy (eval_steps).",
       "The Trainer can only reload a checkpoint that was saved when the metric was measured.",
       ["hyperparameters.hidden-defaults"],
       "TrainingArguments(..., eval_strategy='epoch', save_strategy='epoch', "
       "load_best_model_at_end=True)", title="save and eval strategy must match", priority=9),
    _u("metric-for-best-model-not-found",
       r"The `metric_for_best_model` training argument is set to '(?P<metric>[^'\n]+)', which is "
       r"not found in the evaluation metrics|(?m:^`?KeyError: 'eval_(?P<metric2>\w+)'(?:`|$))",
       "metric_for_best_model names a metric the evaluation does not report (compute_metrics "
       "returns other keys, or there is no eval loss because labels are missing from the eval "
       "set).", "The Trainer prefixes each key compute_metrics returns with 'eval_'.",
       ["data.label-column-missing"],
       "TrainingArguments(..., metric_for_best_model='accuracy')   # a key compute_metrics "
       "returns", title="metric_for_best_model not in the evaluation metrics"),
    _u("dataset-argument-none",
       r"'NoneType' object has no attribute '(?P<attr>column_names|features|num_rows|"
       r"remove_columns|train_test_split|set_format|with_format)'",
       "A dataset argument is None: the trainer or function got no train_dataset (or "
       "eval_dataset), or the variable holding it was never assigned (a split lookup, a function "
       "that returns nothing).",
       "Only a Dataset has column_names, features and num_rows; None reaches the code that "
       "reads them.", ["data.batch-structure"],
       "print(type(train_dataset), train_dataset)   # a Dataset, not None\n"
       "trainer = Trainer(..., train_dataset=dataset['train'])   # pass it by name",
       title="A dataset argument is None"),
    _u("empty-dataset",
       r"num_samples should be a positive integer value, but got num_samples=0|Invalid key: \d+ "
       r"is out of bounds for size 0|The dataset is empty|dataset (?:is|was) empty|"
       r"\bEmpty dataset\b|"
       r"Please pass `?features`? or at least one example when writing data|"
       r"Instruction \"?\w+\"? corresponds to no data|"
       # Keras 3 / TF >= 2.13: fit() ran an epoch in which the dataset yielded no batch
       r"Unexpected result of `train_function` \(Empty logs\)|Expected input data to be non-empty|"
       # a random start drawn from an empty range: no tokens, or fewer than one block
       r"random_ expects 'from' to be less than 'to', but got from=0 >= to=(?:0|-\d+)",
       "The dataset is empty: a filter or map removed every row, the split or data_files matched "
       "nothing, or the text column is empty after preprocessing (or, for a random block of "
       "tokens, there are fewer tokens than one block).",
       "A sampler (or indexing) over zero rows fails before the first step.",
       ["data.batch-structure"],
       "print(dataset)   # num_rows of each split, before and after each filter/map",
       title="The dataset is empty"),
    _u("metric-average-binary-on-multiclass",
       r"Target is multiclass but average='binary'",
       "compute_metrics calls precision/recall/F1 with the default average='binary' on labels "
       "of more than two classes.",
       "scikit-learn's binary average scores one positive class; several classes need a way "
       "to combine them.", ["data.label-balance"],
       "f1_score(labels, preds, average='macro')   # or 'weighted' / 'micro'",
       title="average='binary' on a multiclass task"),
    _u("metric-inputs-different-lengths",
       r"Found input variables with inconsistent numbers of samples: \[(?P<a>\d+), (?P<b>\d+)\]|"
       r"Mismatch in the number of predictions \((?P<a2>\d+)\) and references \((?P<b2>\d+)\)",
       "compute_metrics hands the metric predictions and labels of different lengths: the "
       "predictions are not reduced to one class id per example (argmax over the wrong axis, or "
       "the logits tuple of a model with several outputs), or token-level labels meet "
       "sequence-level predictions.",
       "scikit-learn's metrics compare the two arrays element by element.",
       ["data.batch-structure"],
       "logits = eval_pred.predictions[0] if isinstance(eval_pred.predictions, tuple) else "
       "eval_pred.predictions\npreds = np.argmax(logits, axis=-1)   # one id per example",
       title="Predictions and labels of different lengths"),
    _u("eval-predictions-tuple",
       r"axis 1 is out of bounds for array of dimension 1|'tuple' object has no attribute "
       r"'(?:shape|reshape|squeeze|astype)'",
       "compute_metrics takes eval_pred.predictions as the logits array, but the Trainer hands it "
       "a tuple: the logits plus the model's other outputs (hidden states, past key values), "
       "which NumPy turns into a one-dimensional array of objects.",
       "The Trainer gathers every output of the model that is not the loss; a model (or a "
       "release) that returns more than the logits makes predictions a tuple.",
       ["data.batch-structure"],
       "logits = eval_pred.predictions[0] if isinstance(eval_pred.predictions, tuple) else "
       "eval_pred.predictions\npreds = np.argmax(logits, axis=-1)",
       requires=r"compute_metrics|eval_pred|EvalPrediction|\bTrainer\b|trainer\.(?:train|"
                r"evaluate)|evaluation_strategy|eval_strategy|hugging ?face|transformers",
       behaviour_change=True, title="compute_metrics reads a tuple of outputs as the logits"),
    _u("mlm-collator-on-causal-tokenizer",
       r"This tokenizer does not have a mask token which is necessary for masked language "
       r"modeling",
       "DataCollatorForLanguageModeling masks tokens by default (mlm=True, BERT-style), and the "
       "tokenizer of a causal model (GPT-2, Llama ...) has no mask token.",
       "Causal language models learn to predict the next token: their collator only copies the "
       "inputs into the labels.", ["data.lm-labels"],
       "collator = DataCollatorForLanguageModeling(tokenizer, mlm=False)",
       title="A masked-LM collator for a causal model"),
    _u("metric-references-not-lists",
       r"Got a string but expected a list instead: ",
       "A generation metric (BLEU, sacreBLEU, chrF) got each reference as a string; it takes a "
       "list of references per prediction.",
       "Several valid translations may exist per example, so references are lists of strings.",
       ["data.batch-structure"],
       "metric.compute(predictions=preds, references=[[ref] for ref in refs])",
       title="References must be lists of strings"),
    _u("eval-dataset-missing",
       r"Trainer: evaluation requires an eval_dataset|(?:eval(?:uation)?_strategy`? (?:is set )?"
       r"to [\w.]+ but you didn't pass an `?eval_dataset|eval(?:uation)?_strategy is set to \w+ "
       r"but no eval_dataset)",
       "Evaluation is on (eval_strategy, load_best_model_at_end or trainer.evaluate()) but the "
       "Trainer got no eval_dataset.", "The Trainer evaluates only on the eval_dataset it was "
       "given.", ["data.batch-structure"],
       "Trainer(model, args, train_dataset=train, eval_dataset=tokenized['validation'])",
       title="evaluation requires an eval_dataset"),
    _u("numpy-value-not-json-serializable",
       r"Object of type '?(?:int64|int32|float32|float64|ndarray|Tensor)'? is not JSON serializable",
       "A NumPy or torch value went into a config or log that is saved as JSON (e.g. id2label "
       "built from NumPy labels, or a metric returned as np.float32).",
       "json cannot write NumPy scalars; Python int/float are needed.",
       ["model.head-size-mismatch"],
       "id2label = {int(i): str(l) for i, l in enumerate(labels)}\n"
       "return {'accuracy': float(acc)}   # from compute_metrics",
       title="A NumPy value is not JSON serializable"),
    _u("quantization-args-conflict",
       r"You can't pass `load_in_4bit`\s*or `load_in_8bit` as a kwarg when passing "
       r"`quantization_config`",
       "from_pretrained got load_in_4bit/load_in_8bit and a quantization_config: the quantization "
       "is set twice.",
       "With a quantization_config, the quantization is described there only; the older "
       "keyword arguments beside it are refused.",
       ["model.precision-unsupported"],
       "bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16)\n"
       "model = AutoModelForCausalLM.from_pretrained(name, quantization_config=bnb)   # no "
       "load_in_4bit=", priority=14, title="Quantization set twice"),
    _u("scheduler-required-kwargs-missing",
       r"get_(?P<fn>\w*schedule\w*)\(\) missing \d+ required positional arguments?: "
       r"(?P<args>[^\n]+)|One of min_lr or min_lr_rate should be set",
       "The lr_scheduler_type picked needs arguments of its own (warmup_stable_decay: "
       "num_stable_steps and num_decay_steps; cosine_with_min_lr: min_lr or min_lr_rate), and "
       "the Trainer passes a schedule nothing but the optimizer, the warmup and the total steps.",
       "The schedule's own arguments go through TrainingArguments' lr_scheduler_kwargs.",
       ["hyperparameters.hidden-defaults"],
       "TrainingArguments(..., lr_scheduler_type=\"warmup_stable_decay\",\n"
       "                  lr_scheduler_kwargs={\"num_stable_steps\": 800, "
       "\"num_decay_steps\": 100})\n# cosine_with_min_lr: lr_scheduler_kwargs={\"min_lr_rate\": 0.1}",
       priority=12, title="The learning-rate schedule lacks its own arguments",
       refine=refine_schedule_arguments),
    _u("wrong-auto-class",
       r"Unrecognized configuration class <class '(?P<config>[\w.]+)'> for this kind of "
       r"AutoModel: (?P<auto>\w+)",
       "The checkpoint's architecture has no class for that task: the Auto class does not fit "
       "the model (an encoder-decoder loaded as a causal LM, a text model as sequence-to-"
       "sequence, ...).",
       "Each AutoModelFor... maps a config class to the model class of that task; the error "
       "lists the configs it knows.",
       ["model.forward"],
       "from transformers import AutoConfig; print(AutoConfig.from_pretrained(name)."
       "architectures)   # then the Auto class of that task (T5: AutoModelForSeq2SeqLM)",
       priority=12, title="The Auto class does not fit the checkpoint",
       refine=refine_auto_class),
    _u("tensor-to-numpy",
       # torch < 1.0
       r"can't convert CUDA tensor to numpy|Can't call numpy\(\) on Variable that requires grad|"
       r"can't convert (?:cuda|mps|xpu):?\d* device type tensor to numpy|Can't call numpy\(\) on "
       r"Tensor that requires grad",
       "Your code turns a tensor into a NumPy array while it is still on the GPU or part of the "
       "autograd graph.",
       "NumPy arrays live in CPU memory without gradients: a tensor must be detached and moved "
       "first.",
       ["data.batch-structure"],
       "array = tensor.detach().cpu().numpy()", priority=12,
       title="A GPU tensor (or one that requires grad) to NumPy"),
    _u("early-stopping-needs-load-best-model",
       r"EarlyStoppingCallback requires load_best_model_at_end = True|EarlyStoppingCallback "
       r"requires IntervalStrategy of steps or epoch",
       "EarlyStoppingCallback is on (early_stopping_patience, or the callback itself) but "
       "load_best_model_at_end is off, or there is no evaluation to compare.",
       "Early stopping compares metric_for_best_model at each evaluation and keeps the best "
       "checkpoint, so it needs evaluation, saving at the same interval, and the best model "
       "loaded at the end.", ["hyperparameters.hidden-defaults"],
       "TrainingArguments(..., eval_strategy='steps', save_strategy='steps', "
       "load_best_model_at_end=True, metric_for_best_model='eval_loss')",
       title="EarlyStoppingCallback requires load_best_model_at_end"),
    _u("tokenizer-legacy-warning",
       r"You are using the (?:default )?legacy behaviou?r of the <class '[\w.]*Tokenizer\w*'>",
       "Not an error: the Llama/T5 SentencePiece tokenizer warns that it keeps its previous "
       "(legacy) handling of the text after special tokens, which is what checkpoints trained "
       "with it expect.", "transformers asks to choose legacy=True/False explicitly; fine-tuning "
       "an existing checkpoint keeps the behaviour it was trained with.", [],
       "AutoTokenizer.from_pretrained(checkpoint, legacy=True)   # silences it, same behaviour"
       "\n# legacy=False only for a new model or one trained with the fixed behaviour",
       title="The legacy tokenizer warning (not an error)", priority=0, benign=True),
    _u("generate-max-length-too-short",
       r"Input length of input_ids is (?P<input_len>\d+), but `?max_length`? is set to "
       r"(?P<max_length>\d+)",
       "generate() stops at max_length, which counts the prompt: the default (20) or the value "
       "given is shorter than the prompt itself.",
       "max_length bounds prompt plus answer; max_new_tokens bounds only the answer.",
       ["model.forward"],
       "outputs = model.generate(**inputs, max_new_tokens=128)   # not max_length",
       priority=12, title="max_length shorter than the prompt"),
    _u("model-output-misread",
       r"'(?P<cls>\w*Output\w*|BatchEncoding|BatchFeature)' object has no attribute "
       r"'(?P<attr>shape|size|dim|numpy|detach|cpu|cuda|to|float|long|view|argmax|softmax)'|"
       r"'tuple' object has no attribute '(?P<field>logits|loss|last_hidden_state|"
       r"pooler_output|hidden_states|attentions|argmax)'|(?:linear|dropout|layer_norm|embedding|argmax|"
       r"softmax|log_softmax|sigmoid|max|topk)\(\): "
       r"argument 'input' \(position 1\) must be Tensor, not (?:tuple|dict|\w*Output\w*)",
       "Your code reads the model's output (or the tokenizer's batch) in another form than it "
       "has: a ModelOutput or BatchEncoding used as a tensor, or a tuple (return_dict=False, "
       "an old release) read by field name.",
       "Models return a ModelOutput (fields: loss, logits, hidden_states ...) and tokenizers a "
       "BatchEncoding (a dict of tensors); neither is a tensor itself.",
       ["model.forward"],
       "outputs = model(**batch)\nlogits = outputs.logits   # the tensor; the tokenizer's batch: "
       "batch['input_ids']", priority=11, title="The model's output read in the wrong form"),
    _u("tokenizer-no-max-length",
       r"Asking to truncate to max_length but no maximum length is provided and the model has "
       r"no predefined maximum length",
       "truncation=True without max_length, on a tokenizer that knows no model_max_length "
       "(saved without its tokenizer_config, or a custom one): nothing is truncated, and "
       "sequences longer than the model's positions reach it.",
       "The tokenizer truncates to max_length, else to model_max_length from its config.",
       ["data.sequence-longer-than-positions"],
       "tokenizer(texts, truncation=True, max_length=512)   # or: tokenizer.model_max_length = 512",
       priority=12, title="No maximum length to truncate to"),
    _u("no-trainable-parameters",
       # fp16's GradScaler found no gradient in any parameter
       r"No inf checks were recorded for this optimizer|"
       r"optimizer got an empty parameter list",
       "The optimizer was given no parameters: every weight is frozen (requires_grad=False), or "
       "the parameters were taken from another object than the model.",
       "An optimizer updates the parameters it was built with; a frozen model has none that "
       "need updating.", ["model.nothing-trainable"],
       "print(sum(p.numel() for p in model.parameters() if p.requires_grad))   # > 0\n"
       "optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-5)",
       priority=12, title="No trainable parameters"),
    _u("dataset-not-tokenized",
       r"No columns in the dataset match the model's forward method signature",
       "The dataset given to the Trainer has none of the model's inputs (input_ids, "
       "attention_mask, labels): it was not tokenized, or the tokenized copy was not the one "
       "passed.", "The Trainer drops the columns the model's forward does not take.",
       ["data.batch-structure"],
       "tokenized = dataset.map(lambda b: tokenizer(b['text'], truncation=True), batched=True)\n"
       "Trainer(..., train_dataset=tokenized['train'])", priority=13,
       title="The dataset was not tokenized"),
    _u("map-function-returns-non-dict",
       r"Provided `function` which is applied to all elements of table returns a variable of "
       r"type <class '(?P<returned>\w+)'>",
       "The function given to Dataset.map returns something other than a dict of columns (a "
       "list, a string, None from a missing return ...).",
       "map() merges the returned dict into the row (or batch) as columns.",
       ["data.batch-structure"],
       "def preprocess(batch):\n    return tokenizer(batch['text'], truncation=True)   # a dict",
       priority=13, title="The map function returns no dict"),
    _u("dataset-config-name",
       r"BuilderConfig '?(?P<config>[^'\n]*)'? not found\. Available: |Config name is missing\.\s+"
       r"Please pick one among the available configs",
       "The dataset has several configurations (subsets) and none, or a wrong one, was named.",
       "load_dataset(path, name) picks a configuration; the error lists those that exist.",
       ["environment.dataset-config"],
       "from datasets import get_dataset_config_names\nprint(get_dataset_config_names(path))\n"
       "ds = load_dataset(path, '<one of them>')", priority=12,
       title="Which configuration of the dataset?"),
    _u("model-class-mismatch",
       r"You are using a model of type (?P<saved>\w+) to instantiate a model of type "
       r"(?P<wanted>\w+)\. This is not supported",
       "The checkpoint is of one architecture and the class loading it of another (e.g. a "
       "RobertaModel class on a BERT checkpoint): weights are missing or misplaced.",
       "from_pretrained builds the class it is called on; only Auto classes follow the "
       "checkpoint's model_type.", ["model.forward"],
       "model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=N)",
       priority=12, title="The model class does not match the checkpoint"),
    _u("peft-target-module-unsupported",
       r"Target module (?P<module>[^\n]{1,120}?) is not supported\. Currently, only (?:the following "
       r"modules|`torch\.nn\.Linear`(?: and `Conv1D`)?) are supported",
       "target_modules matches modules LoRA cannot wrap (a Dropout, a LayerNorm, a whole "
       "block): a name or regex too broad for this architecture.",
       "LoRA adapts Linear, Embedding, Conv and GPT-2's Conv1D layers only.",
       ["model.adapter-targets-not-found"],
       "print({n.split('.')[-1] for n, m in model.named_modules() if isinstance(m, "
       "torch.nn.Linear)})\nLoraConfig(target_modules=['q_proj', 'v_proj'], ...)   # Linear "
       "layers by name, or target_modules='all-linear'", priority=14,
       title="LoRA targets a module it cannot wrap", refine=refine_quantized_target),
    _u("safetensors-shared-tensors",
       r"Some tensors share memory, this will lead to duplicate memory on disk",
       "The model has tied weights (embeddings and LM head) and was saved with safetensors' "
       "save_file, which refuses tensors that share memory.",
       "save_pretrained / safetensors.torch.save_model handle tied weights; save_file does not.",
       ["model.forward"],
       "model.save_pretrained('out')   # or: safetensors.torch.save_model(model, 'model."
       "safetensors')", priority=13, title="Tied weights saved with save_file"),
    _u("tokenizer-train-argument-order",
       r"argument 'files': '\w*Trainer' object cannot be converted to 'Sequence'|"
       # tokenizers 0.10's wording
       r"Can't convert <tokenizers\.trainers\.\w+ object at 0x[0-9a-f]+> to Sequence",
       "Tokenizer.train takes the files first and the trainer second (since tokenizers 0.10); "
       "train(trainer, files) is the order of older releases and their docs.",
       "The trainer became an optional second argument.", ["data.batch-structure"],
       "tokenizer.train(files, trainer)   # or: tokenizer.train(files=files, trainer=trainer)",
       priority=13, title="Tokenizer.train(files, trainer)"),
]
