"""Keras errors around a pretrained layer: inputs fit() cannot take, Keras 3 tensors or layers
beside a Keras 2 (tf-keras) model, classes Keras does not know when it loads a model, tensors of
two Keras implementations in one model, weights read from a layer that was never built, and an
optimizer reused across models."""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature, signature_maker
from wizard.triage.tf_builds import (
    TF_NO_GPU,
    refine_gpu_libraries,
    refine_tf_cuda_extras,
    refine_tf_other_cuda,
    refine_windows_tf_gpu,
)
from wizard.triage.versions import paste_versions

_HF_TF = re.compile(r"\btransformers\b|\bTF[A-Z]\w*(?:Model|For\w+)\b|from_pretrained", re.I)


def refine_keras_tensor(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A Keras 3 KerasTensor meeting TensorFlow code: with a transformers TF model, Keras 3 is
    installed beside it; in plain Keras it is a TF op in a functional model."""
    if _HF_TF.search(parsed.text) or re.search(r"keras\.src\.|Keras 3", parsed.text):
        return {"id": "keras-3-installed",
                "cause": "A Keras 3 tensor or object reached a Keras 2 (tf-keras) model: "
                         "TensorFlow >= 2.16 ships Keras 3, while transformers' TF models are "
                         "tf-keras models.",
                "probes": ["environment.keras-3"],
                "fix": 'pip install "tf-keras~=2.16"   # the same minor version as tensorflow\n'
                       "export TF_USE_LEGACY_KERAS=1   # before importing tensorflow"}
    return None


# layers of the user's own on a library's output, or a second Keras library beside the first
_OWN_LAYERS = re.compile(r"\b(?:layers\.)?(?:Dense|Lambda|Dropout|Concatenate|Bidirectional|LSTM|"
                         r"GRU|Conv1D|Add|Multiply|Flatten)\(|\b(?:keras\.)?models?\.Model\(|"
                         r"\bModel\(\s*(?:inputs?=)?[\w\[]|\btf\.keras\b|TF_KERAS", re.I)
_KERAS_LIBS = re.compile(r"\b(?:keras[-_](?:bert|xlnet|gpt-?2|transformer|albert)|(?:bert|xlnet|"
                         r"albert|gpt-?2)[-_]keras|bert4keras|kashgari)\b", re.I)


def refine_mixed_keras(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Two Keras implementations need two builders: the user's own layers (or a second Keras
    library) on a library's model. When the library builds the whole model alone (its loader,
    its own test script), it reads its own tensors with another Keras than it was written for:
    a release mismatch between it and the installed TensorFlow/Keras."""
    libs = {re.sub(r"[-_]", "", m.lower()) for m in _KERAS_LIBS.findall(parsed.text)}
    if _OWN_LAYERS.search(parsed.text) or len(libs) > 1:
        return None
    stated = ", ".join(f"{k} {v}" for k, v in paste_versions(parsed.text).items()
                       if "keras" in k or "tensorflow" in k or k in ("tf", "bert4keras"))
    return {"id": "env-version-too-new",
            "cause": "The library builds the whole model itself, and reads its own tensors' Keras "
                     "history with another Keras than it was written for: its release does not "
                     "match the installed TensorFlow/Keras" + (f" ({stated})" if stated else "")
                     + ".",
            "fix": "pip install <the TensorFlow and Keras releases the library's README names>   "
                   "# or the library release written for the installed ones"}


def refine_unbuilt_weights(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """An IndexError on a line reading a layer's weights by index: only when that line is the
    failing one (the innermost frame's code, or the line the notebook arrow points at)."""
    inner = parsed.innermost_frame
    line = (inner.code if inner is not None else "") or ""
    arrow = re.search(r"^-+> ?\d+ (?P<code>.*)$", parsed.text, re.M)
    code = line or (arrow.group("code") if arrow else "")
    if not re.search(r"\.(?:weights|trainable_weights|variables|trainable_variables)\s*\[|"
                     r"\.get_weights\(\)\s*\[", code):
        return {"reject": True}
    return None


# files only Keras 3 has (Keras 2.13-2.15 also live under keras/src/, with other file names)
_KERAS3_FILE = re.compile(r"keras[/\\]src[/\\](?:layers[/\\]layer\.py|trainers[/\\]|backend[/\\]"
                          r"tensorflow[/\\]|ops[/\\]|models[/\\]functional\.py)")


def refine_tf_model_on_keras3(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Frames in Keras 3's own files beside frames of a transformers TF model."""
    files = [f.file or "" for f in parsed.frames]
    if any(_KERAS3_FILE.search(f) for f in files) and any(
            re.search(r"transformers[/\\].*modeling_tf_", f) for f in files):
        return None
    return {"reject": True}


def refine_position_add(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Only a batch longer than the table (a shorter one is another fault)."""
    if int(ev.get("length", 0)) <= int(ev.get("positions", 0)):
        return {"reject": True}
    return {"id": "sequence-longer-than-max"}


def refine_get_config(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A bare NotImplementedError is Keras' serialisation only when Keras' get_config (or the
    serialiser) raised it."""
    if any(f.function in ("get_config", "serialize_keras_object", "get_network_config") and
           f.package in ("keras", "tensorflow", "tf_keras") for f in parsed.frames):
        return {"id": "keras-h5-save-unsupported"}
    return {"reject": True}


_k = signature_maker(11)


def refine_single_image_x(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """x of one image's shape (height, width, channels) against many labels: x is a Python
    list of images, of which Keras read the first; a shorter batch of images is another
    fault."""
    dims = [d.strip() for d in str(ev.get("x_shape", "")).split(",") if d.strip()]
    return None if len(dims) == 3 and dims[-1] in ("1", "3", "4") else {"reject": True}


def refine_predict_list(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Only where the list comes from Keras' predict() (a model with several outputs)."""
    return None if re.search(r"\.predict\(", parsed.text) else {"reject": True}


KERAS_SIGNATURES: list[Signature] = [
    _k("tf1-hub-module-in-eager-mode",
       r"Exporting/importing meta graphs is not supported when eager execution is enabled",
       "hub.Module (a TensorFlow 1 Hub module) is used under TensorFlow 2's eager execution.",
       "TF1 Hub modules import a graph; TensorFlow 2 has none by default. TF2 SavedModels load "
       "with hub.load or hub.KerasLayer.", ["model.forward"],
       "layer = hub.KerasLayer('https://tfhub.dev/.../2')   # a TF2 version of the model\n# or, "
       "for a TF1 module: tf.compat.v1.disable_eager_execution() before building the graph",
       title="A TF1 Hub module under eager execution", framework="tensorflow"),
    _k("keras-preset-unknown",
       r"Unknown preset identifier\.[\s\S]{0,600}?Received: preset=['\"]?(?P<preset>[^'\"\s]+)",
       "from_preset got a name that is no registered preset of that class: misspelt, renamed in "
       "a later release (presets are renamed when a family gains sizes), or of another model "
       "family.",
       "KerasHub presets are looked up by name in the class's registry, or loaded from a Kaggle "
       "handle or a local folder.", ["environment.model-not-found"],
       "print(keras_hub.models.CausalLM.presets.keys())   # the names it knows (the class you "
       "call)\n# or a Kaggle handle: kaggle://keras/<model>/keras/<preset>",
       title="Unknown KerasHub preset"),
    _k("inputs-not-numpy-array",
       r"`x` \(images tensor\) and `y` \(labels\) should have the same length\. Found: x\.shape "
       r"= \((?P<x_shape>[^()\n]*)\), y\.shape = \((?P<y_shape>[^()\n]*)\)",
       "The images are a Python list, not one array: Keras reads the list's first image as the "
       "whole x, so its height stands where the number of images belongs.",
       "ImageDataGenerator.flow() and fit() take x as one array [images, height, width, "
       "channels].", ["data.batch-structure"],
       "x_train = np.array(x_train)   # [images, height, width, channels]\n"
       "y_train = np.array(y_train)",
       title="A list of images where one array belongs", framework="tensorflow",
       refine=refine_single_image_x),
    _k("keras-fit-unsupported-input",
       r"Failed to find data adapter that can handle input: (?P<input_type>[^\n]{1,200})|"
       r"Unrecognized data type: x=(?P<x>[^\n]{1,120})|"
       r"Attempt to convert a value \(<transformers\.tokenization_utils_base\.BatchEncoding",
       "model.fit() got a type Keras cannot iterate: the tokenizer's BatchEncoding, a dict of "
       "Python lists, a datasets Dataset or a pandas object.",
       "Keras accepts NumPy arrays, tensors, a dict of them, or a tf.data.Dataset.",
       ["data.batch-structure"],
       "model.fit(dict(tokenizer(texts, padding=True, truncation=True, return_tensors='np')), "
       "np.array(labels))\n# or: tf_ds = model.prepare_tf_dataset(tokenized['train'], "
       "batch_size=16, shuffle=True, tokenizer=tokenizer)",
       title="Failed to find data adapter that can handle input", framework="tensorflow"),
    _k("keras-fit-without-targets",
       r"Target data is missing\. Your model was compiled with (?:loss=)?",
       "fit() got inputs without labels while compile() was given a loss: the tf.data dataset "
       "yields only features (to_tf_dataset/prepare_tf_dataset without the labels), or fit(x) "
       "was called without y.",
       "A loss passed to compile() needs targets from fit(); transformers TF models compute "
       "their own loss from a 'labels' key when compile() gets no loss.",
       ["data.batch-structure", "hyperparameters.string-loss-defaults"],
       "model.compile(optimizer=tf.keras.optimizers.Adam(3e-5))   # no loss: the model uses "
       "its 'labels'\ntf_ds = model.prepare_tf_dataset(tokenized['train'], batch_size=16, "
       "shuffle=True, tokenizer=tokenizer)   # keeps the labels column",
       title="Target data is missing", framework="tensorflow"),
    _k("keras-get-config-not-implemented",
       r"^NotImplementedError\b",
       "Keras cannot serialise the model: a subclassed model, or a layer of transformers inside "
       "it, has no get_config(), which model.save() to H5/.keras needs.",
       "H5/.keras saving stores each layer's constructor arguments; a subclassed network "
       "raises NotImplementedError in get_config.",
       ["model.forward"], "model.save_weights('weights.h5')   # or tf.saved_model.save(model, "
       "'saved/')\n# transformers models: model.save_pretrained('dir')",
       title="get_config() not implemented for this model", framework="tensorflow",
       refine=refine_get_config),
    _k("tf-position-add-incompatible",
       r"Incompatible shapes: \[\d+,(?P<length>\d+),\d+\] vs\. \[\d+,(?P<positions>\d+),\d+\]"
       r"[^\n]{0,20}\n?[^\n]{0,200}?(?:node|Node:?) '?[\w/-]*?position[\w/-]*",
       "The sequences are longer than the model's position embeddings: the graph adds a "
       "position table of fixed length to embeddings of the batch's length.",
       "Each position needs a row of the position embedding table; it has max_position_"
       "embeddings rows.", ["data.sequence-longer-than-positions"],
       "tokenizer(texts, truncation=True, max_length=512)   # the model's max_position_"
       "embeddings (keras-bert/bert4keras: maxlen=512)",
       title="Embeddings longer than the position table", framework="tensorflow", priority=13,
       refine=refine_position_add),
    _k("keras-load-model-on-weights-file",
       # Keras < 2.4
       r"No model found in config file|"
       r"No model config found in the file at",
       "load_model() was given a file of weights only (saved with save_weights, or a "
       "transformers tf_model.h5), which holds no model architecture to rebuild.",
       "load_model rebuilds the model from the config stored beside the weights; save_weights "
       "stores none.",
       ["model.forward"],
       "model = TFAutoModelForSequenceClassification.from_pretrained('saved_dir')   # a "
       "save_pretrained folder\n# or: build the model in code, then model.load_weights(path)",
       title="load_model on a weights-only file", framework="tensorflow"),
    _k("keras-model-not-compiled",
       r"You must (?:call `?compile\(\)`? before|compile (?:a|your) model before) "
       r"(?:using|training/testing|training|fitting)",
       "fit() or evaluate() was called on a model that has not been compiled: compile() was "
       "skipped, or the model was loaded with compile=False (or rebuilt) after compiling.",
       "Keras needs an optimizer (and a loss, unless the model computes its own) from compile() "
       "before training; a newly built or reloaded model has none.",
       ["hyperparameters.string-loss-defaults"],
       "model.compile(optimizer=tf.keras.optimizers.Adam(3e-5))   # transformers TF models "
       "compute their own loss\nmodel.fit(train_ds, validation_data=val_ds, epochs=3)",
       title="The model was not compiled", framework="tensorflow"),
    _k("softmax-output-with-from-logits",
       r"received `?from_logits=True`?,\s+but the `?output`? argument was produced by a\s+"
       r"(?P<activation>Softmax|sigmoid)(?: or softmax)? activation",
       "The loss is told the model outputs logits (from_logits=True) while its last layer "
       "already applies softmax (or sigmoid): the probabilities go through softmax twice and "
       "the model learns slowly or not at all.",
       "from_logits=True applies softmax inside the loss.",
       ["hyperparameters.from-logits-mismatch"],
       "tf.keras.layers.Dense(num_classes)   # no activation on the last layer, with\n"
       "loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)\n"
       "# or keep the softmax and use from_logits=False",
       title="from_logits=True on softmax outputs", framework="tensorflow", priority=10),
    # TensorFlow >= 2.5's words ("symbolic tf.Tensor"); the older "symbolic Tensor" inside RNN
    # layers is the NumPy 1.20 skew (env-numpy-symbolic-tensor)
    _k("numpy-call-on-symbolic-tensor",
       r"Cannot convert a symbolic tf\.Tensor \((?P<tensor>[^)\n]{1,80})\) to a numpy array",
       "NumPy (or a Python tokenizer) was called on a symbolic tensor inside graph code: a "
       "tf.data map() function, a custom layer's call() or a tf.function, where tensors have no "
       "values yet.",
       "tf.data and Keras trace functions into a graph; .numpy() and NumPy calls need eager "
       "values.", ["model.tf-run-eagerly"],
       "# tokenize before building the tf.data pipeline (dataset.map of the datasets library), "
       "or in the graph:\n"
       "ds = ds.map(lambda x, y: (tf.py_function(encode, [x], Tout=tf.int32), y))\n"
       "# in a layer: use tf ops (tf.reduce_mean ...) instead of np.*",
       title="NumPy on a symbolic tensor", framework="tensorflow"),
    _k("tf-gpu-libraries-missing",
       # TF <= 2.10: the loader's own line
       r"Could not load dynamic library '(?:cudart|cublas|cudnn|cufft|curand|cusolver|cusparse)\w*\.(?:dll|so)[\w.]*'; dlerror|"
       r"Cannot dlopen some GPU libraries",
       "TensorFlow found no CUDA/cuDNN libraries it can load, so it runs on the CPU only: the "
       "tensorflow wheel was installed without its CUDA packages, or the system CUDA does not "
       "match the release.",
       "Since 2.14, TensorFlow on Linux ships its CUDA libraries as pip extras.",
       ["environment.device"],
       "pip install \"tensorflow[and-cuda]\"   # Linux; then: "
       "python -c \"import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))\"",
       title="TensorFlow cannot load the GPU libraries", family="env-missing-package",
       framework="tensorflow", priority=12, refine=refine_gpu_libraries),
    _k("tf-function-retracing-warning",
       r"triggered tf\.function retracing",
       "Not an error: a tf.function was traced again for new input shapes or Python values "
       "(predict() called in a loop, inputs of varying length); it only costs time.",
       "Each new input signature builds a new graph.", [],
       "model.predict(np.stack(batch))   # one call on a batch, not one per example; or pad to a "
       "fixed length", title="tf.function retracing (a warning)", priority=0, benign=True),
    _k("keras-input-ran-out-of-data",
       r"Your input ran out of data; interrupting training",
       "fit() was told to take more batches (steps_per_epoch x epochs) than the dataset yields: "
       "a tf.data pipeline without .repeat(), or steps computed from another size or batch "
       "size.", "Keras stops the epoch when the iterator is exhausted.",
       ["data.batch-structure"],
       "model.fit(train_ds, epochs=3)   # no steps_per_epoch: one pass per epoch\n"
       "# or: train_ds.repeat() with steps_per_epoch = num_examples // batch_size",
       title="The input ran out of data", framework="tensorflow"),
    _k("keras-monitor-metric-missing",
       r"conditioned on metric `?(?P<metric>\w+)`? which is not available|Can save best model "
       r"only with (?P<metric2>\w+) available",
       "A callback (EarlyStopping, ModelCheckpoint) watches a metric the logs do not have: "
       "val_* without validation_data, or a metric name that differs from the compiled one.",
       "Keras logs loss and the compiled metrics, with val_ only when it validates.",
       ["hyperparameters.hidden-defaults"],
       "model.fit(train_ds, validation_data=val_ds, callbacks=[EarlyStopping(monitor='val_loss')])"
       "\n# the metric names logged: print(history.history.keys())",
       title="The monitored metric is not logged", framework="tensorflow"),
    _k("keras-save-instead-of-save-pretrained",
       r"serving_output\(\) takes 1 positional argument but 2 were given",
       "Keras' model.save() traced the transformers TF model's serving function, which only "
       "the model's own save_pretrained exports.",
       "A transformers TF model is saved with save_pretrained; saved_model=True adds a "
       "SavedModel.", ["model.forward"],
       "model.save_pretrained('out', saved_model=True)   # config, weights and out/saved_model/1",
       title="model.save() on a transformers TF model", framework="tensorflow"),
    _k("keras-h5-duplicate-names",
       # older h5py; the group form
       r"Unable to create (?:link|group) \((?:N|n)ame already exists\)|"
       r"Unable to (?:synchronously )?create dataset \(name already exists\)",
       "The model saved to HDF5 (.h5) has two weights of one name (transformers TF models, "
       "layers reused or named alike), which HDF5 cannot store.",
       "HDF5 stores weights by name.", ["model.forward"],
       "model.save_pretrained('out')   # transformers models\n"
       "model.save('model.keras')   # or the SavedModel / .keras format instead of .h5",
       title="HDF5 cannot store duplicate weight names", framework="tensorflow"),
    # Keras 3's own source layout in the frames of a transformers TF model: the model runs on
    # Keras 3, whatever the error says (the pattern takes any error; the refine reads the frames)
    _k("keras-3-under-tf-model",
       r"(?m)^\W{0,4}(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)\b",
       "A transformers TensorFlow model runs on Keras 3 (TensorFlow 2.16 and later, keras-nightly "
       "or keras>=3 installed), while its classes are written for Keras 2 (tf-keras): internals "
       "they call behave otherwise or are gone.",
       "TensorFlow >= 2.16 makes Keras 3 tf.keras unless TF_USE_LEGACY_KERAS=1 with tf-keras.",
       ["environment.keras-3"],
       'pip install "tf-keras~=2.16"   # the same minor version as tensorflow\n'
       "export TF_USE_LEGACY_KERAS=1   # before importing tensorflow",
       title="A transformers TF model on Keras 3", framework="tensorflow", priority=13,
       family="keras-3-installed", behaviour_change=True, refine=refine_tf_model_on_keras3),
    _k("tf-gpu-unsupported-on-native-windows",
       TF_NO_GPU + r"|No version [\d.]+ of the tensorflow-gpu was found|No matching distribution "
       r"found for tensorflow-gpu",
       "TensorFlow 2.11 and later have no GPU build for native Windows: the installed release "
       "runs on the CPU whatever CUDA and cuDNN are installed.",
       "TensorFlow 2.10 was the last release with GPU support on native Windows.",
       ["environment.device"],
       "# in WSL2: pip install \"tensorflow[and-cuda]\"\n"
       "# or native Windows: pip install \"tensorflow<2.11\"   # with CUDA 11.2 / cuDNN 8.1",
       title="No TensorFlow GPU build on native Windows", framework="tensorflow", priority=12,
       refine=refine_windows_tf_gpu),
    _k("tf-built-for-other-cuda", TF_NO_GPU,
       "TensorFlow is built against another CUDA release than the one installed, so it cannot "
       "load the CUDA libraries and runs on the CPU.",
       "TensorFlow up to 2.13 loads the system CUDA by its versioned library names.",
       ["environment.device"], "# install the CUDA and cuDNN releases your TensorFlow is built "
       "against (tensorflow.org: tested build configurations)",
       title="TensorFlow built for another CUDA", framework="tensorflow", priority=12,
       family="env-binary-incompatible", refine=refine_tf_other_cuda),
    _k("tf-cuda-extras-not-found", TF_NO_GPU,
       "TensorFlow on Linux loads its CUDA libraries from pip packages (tensorflow[and-cuda]) "
       "since 2.14; without them (or with them out of the loader's reach) it runs on the CPU.",
       "From 2.14 the Linux wheels take CUDA and cuDNN from the nvidia-* pip packages.",
       ["environment.device"], 'pip install "tensorflow[and-cuda]"',
       title="TensorFlow's CUDA packages missing or not found", framework="tensorflow",
       priority=12, family="env-setup-step-skipped", refine=refine_tf_cuda_extras),
    _k("keras-data-cardinality",
       # Keras < 2.4
       r"Input arrays should have the same number of samples as target arrays|"
       r"Data cardinality is ambiguous",
       "x and y hold different numbers of examples (e.g. the tokenizer output's keys vs the "
       "labels, or labels of another split).",
       "Keras needs one label per example in fit(x, y).",
       ["data.batch-structure"],
       "print({k: len(v) for k, v in x.items()}, len(y))   # one count\n"
       "model.fit(dict(encodings), np.array(labels))",
       title="Data cardinality is ambiguous", framework="tensorflow"),
    _k("keras-tensor-with-keras-3",
       r"A KerasTensor cannot be used as input to a TensorFlow function|Data of type <class "
       r"'keras\.src\.[\w.]*KerasTensor'> is not allowed",
       "A Keras tensor was passed to TensorFlow code that needs a concrete tensor.",
       "In Keras 3, KerasTensors of a functional model only go through Keras layers and ops.",
       ["environment.keras-3"],
       "import keras\nx = keras.layers.Lambda(lambda t: tf_function(t))(inputs)   # wrap TF ops",
       title="A KerasTensor reached TensorFlow code", framework="tensorflow", priority=13,
       refine=refine_keras_tensor),
    _k("keras-3-model-keras-2-layer",
       r"Only instances of `?keras\.Layer`? can be added to a Sequential model\. Received: "
       r"<(?P<module>(?:tensorflow_hub|tf_keras|transformers|keras\.engine)\b[\w.]*)|"
       # the same in a reporter's words, the message cut off
       r"`?(?:hub\.)?KerasLayer`? (?:can ?not|can't|could not|couldn't) be added to (?:the |a )?"
       r"Sequential",
       "A Keras 2 layer (tf-keras: TF Hub's KerasLayer, transformers' TF models) was added to a "
       "Keras 3 model: TensorFlow >= 2.16 makes tf.keras Keras 3, and Keras 3 accepts only its "
       "own layers.",
       "tf.keras is Keras 3 from TensorFlow 2.16; TF Hub layers and transformers' TF models are "
       "built on tf-keras (Keras 2), so the two cannot be mixed in one model.",
       ["environment.keras-3"],
       'pip install "tf-keras~=2.16"   # the same minor version as tensorflow\n'
       "export TF_USE_LEGACY_KERAS=1   # before importing tensorflow: tf.keras is tf-keras again\n"
       "# or build the model with tf-keras itself: import tf_keras as keras",
       title="A Keras 2 layer in a Keras 3 model", framework="tensorflow", priority=14,
       family="keras-3-installed"),
    _k("keras-model-input-count",
       # TF 2.1
       r"expects (?P<expected2>\d+) inputs?, but it received (?P<got2>\d+) input tensors|"
       r"Layer \"?\w+\"? expects (?P<expected>\d+) input\(s\), but it received (?P<got>\d+) input "
       r"tensors",
       "The Keras model takes several named inputs (input_ids, attention_mask ...) and fit() or "
       "call() got another number of them: a bare array instead of a dict, or columns missing.",
       "A functional model with several Input layers takes a dict keyed by their names (or a "
       "list in their order).", ["data.batch-structure"],
       "model.fit({'input_ids': ids, 'attention_mask': mask}, labels)   # one entry per Input",
       priority=13, framework="tensorflow", title="Another number of inputs than the model has"),
    _k("tf-int-dtype-mismatch",
       r"Tensor conversion requested dtype (?P<wanted>int32|int64) for Tensor with dtype "
       r"(?P<got>int32|int64)",
       "The token ids are int64 where the model's inputs (or a layer) are int32, or the reverse: "
       "NumPy arrays default to int64, Keras Input layers to what they were declared.",
       "TensorFlow does not cast between integer dtypes implicitly.",
       ["data.batch-structure"],
       "ids = tf.cast(ids, tf.int32)   # or Input(shape=(None,), dtype=tf.int64) to match",
       priority=12, framework="tensorflow", title="int32 and int64 token ids"),
    _k("keras-optimizer-reused",
       # Keras 3
       r"Unknown variable: <KerasVariable[^\n]{0,200}This optimizer can only be called for the variables it was originally built with|"
       r"The optimizer cannot recognize variable (?P<var>\S+)\. This usually means you are trying "
       r"to call the optimizer to update different parts of the model separately",
       "One Keras optimizer (Keras >= 2.11) was built for other variables: the same optimizer "
       "object reused for a second model or a second compile, or a model rebuilt after it.",
       "The new Keras optimizers create their slots for the variables of the first model they "
       "update.", ["hyperparameters.keras3-optimizer"],
       "model.compile(optimizer=tf.keras.optimizers.Adam(3e-5))   # a new optimizer per model\n"
       "# or: tf.keras.optimizers.legacy.Adam(3e-5)", priority=13, framework="tensorflow",
       title="A Keras optimizer reused for other variables"),
    Signature(
        "keras-custom-objects-on-load",
        r"Unknown (?:layer|object|loss|metric|optimizer|activation)(?: type| function)?:? "
        r"'?(?P<name>\w+)'?\. Please ensure "
        r"(?:this object|you are using a `keras\.utils\.custom_object_scope`)|"
        # older Keras: "ValueError: Unknown layer: TokenEmbedding"
        r"(?m:Unknown (?:layer|loss|metric|activation(?: function)?): ?'?(?:Custom>)?"
        r"(?P<name2>\w+)'?\s*$)|"
        # Keras 3: a functional model whose custom parts do not rebuild
        r"<class 'keras\.src\.models\.functional\.Functional'> could not be deserialized",
        "The saved Keras model contains a class Keras does not know at load time (a transformers "
        "layer such as TFBertMainLayer, a layer of the library that built the model, or your own "
        "layer/loss).",
        "load_model rebuilds each layer by class name; classes outside Keras must be passed in.",
        ["model.forward"],
        "model.save_pretrained('out'); model = TFAutoModelForSequenceClassification."
        "from_pretrained('out')\n# or: tf_keras.models.load_model(path, custom_objects="
        "{'TFBertMainLayer': TFBertMainLayer})   # import the layers of the library that built it",
        title="Unknown layer on load_model", framework="tensorflow", priority=11),
    _k("tf-dataset-unknown-shape",
       r"its rank is undefined, but the layer requires a defined rank|"
       r"as_list\(\) is not defined on an unknown TensorShape",
       "The tensors of the tf.data pipeline have no static shape (parsed from TFRecords, made by "
       "tf.py_function or tf.numpy_function), so the model cannot tell their rank.",
       "Keras builds each layer from its input's static shape; an op whose output shape "
       "TensorFlow cannot infer leaves it unknown.", ["data.batch-structure"],
       "def parse(example):\n    x = ...\n    x = tf.ensure_shape(x, [None, None, 3])   # or "
       "x.set_shape([...])\n    return x, y",
       title="A tf.data tensor without a known shape", framework="tensorflow"),
    _k("legacy-tf-layer-in-keras-model",
       r"The following are legacy tf\.layers\.Layers",
       "A custom layer subclasses TensorFlow 1's tf.layers.Layer (tf.compat.v1.layers), and a "
       "tf.keras Model refuses such layers.",
       "tf.keras models are built from tf.keras layers only; the legacy tf.layers classes belong "
       "to TensorFlow 1's graph API.",
       ["model.forward"],
       "class MyLayer(tf.keras.layers.Layer):   # not tf.layers.Layer",
       title="A legacy tf.layers layer in a Keras model", framework="tensorflow"),
    Signature(
        "keras-and-tf-keras-mixed",
        r"'tuple' object has no attribute 'layer'|'Tensor' object has no attribute "
        r"'_keras_history'",
        "Standalone Keras and tf.keras are mixed in one model: a library built its layers with "
        "one implementation and your code adds layers of the other, which does not understand "
        "their tensors.",
        "Each Keras implementation records a tensor's history its own way; a tensor of the other "
        "one has none it can read.",
        ["model.forward"],
        "import os; os.environ['TF_KERAS'] = '1'   # before importing keras-bert (and friends): "
        "build on tf.keras\nfrom tensorflow import keras   # and use this keras everywhere",
        title="keras and tf.keras in one model", framework="tensorflow", priority=12,
        refine=refine_mixed_keras),
    Signature(
        "weights-loaded-before-build",
        r"IndexError: list index out of range",
        "The weights were read from (or loaded into) a Keras layer before it was built: a layer "
        "creates its weights only when it first sees an input shape, so its weight list is "
        "still empty.",
        "Keras builds a layer on its first call or model.build(); until then .weights is [].",
        ["model.forward"],
        "model.build(input_shape=(None, max_seq_len))   # or one call: layer(tf.zeros((1, 128)))"
        "\n# then load the weights",
        title="Weights of a layer that was never built", framework="tensorflow", priority=8,
        refine=refine_unbuilt_weights),
    _k("keras-predict-returns-list",
       r"'list' object has no attribute '(?:shape|argmax|reshape|dtype)'",
       "The model has several outputs (a TF transformers model: hidden states and pooled "
       "output), so Keras predict() returns a list with one array per output, which the code "
       "reads as one array.", "predict() returns one array per model output.",
       ["model.forward"],
       "outputs = model.predict(x)\nhidden = outputs[0]   # or the named output: "
       "model.predict(x)['logits'] for a model with a head", title="predict() returned a list",
       framework="tensorflow", family="model-output-misread", refine=refine_predict_list),
    _k("saved-model-input-structure",
       r"Could not find matching (?:concrete )?function to call loaded from the SavedModel",
       "A model reloaded from a SavedModel only holds the functions traced when it was saved; "
       "it was called with another input structure (a tuple or bare tensor where a list or a "
       "dict was traced, other shapes or dtypes), which matches none of them. The message's "
       "'Expected ... Option N' lists what it accepts.",
       "A SavedModel keeps concrete functions, not the Python code that could trace new ones.",
       ["model.forward"],
       "result = loaded(list(inputs))   # the structure it was saved with (see 'Option 1')\n"
       "# transformers models: model.save_pretrained(d) / TFAutoModel...from_pretrained(d)",
       title="A SavedModel called with another input structure", framework="tensorflow"),
    _k("tensor-as-python-bool-in-graph",
       r"OperatorNotAllowedInGraphError",
       "In graph mode (model.fit, tf.function, XLA) a tensor is used as a Python bool (an `if` "
       "or `and` on a tensor); eagerly the same code runs. Inside a transformers TF model that "
       "was a bug of older releases: upgrading transformers fixed it.",
       "Graph tracing cannot branch in Python on a value known only when the graph runs.",
       ["model.tf-run-eagerly"],
       "pip install -U \"transformers<5\"   # transformers' own TF models\n# confirm it is "
       "graph-only: model.compile(..., run_eagerly=True); your code: tf.cond / tf.where",
       title="A tensor used as a Python bool in graph mode", framework="tensorflow"),
    # the reporter's own reading: "the text module is missing in Keras 3"
    _k("keras-3-removed-in-reporters-words",
       r"\b(?:missing|removed|gone|not available|no longer (?:available|exists?|supported|there)|"
       r"does(?:n't| not) exist|not (?:found|present))\b[^.\n]{0,40}?\b(?:in|from|with|since) "
       r"Keras[ -]?3\b|\bKeras[ -]?3 (?:removed|dropped|no longer (?:has|supports|includes))\b",
       "Code written for Keras 2 runs on Keras 3 (TensorFlow 2.16 and later install it), which "
       "removed the module or name it uses (keras.preprocessing.text, keras.engine, ...).",
       "Keras 3 dropped TensorFlow-only modules and Keras 2 internals.", ["environment.keras-3"],
       "pip install tf-keras; export TF_USE_LEGACY_KERAS=1   # keep Keras 2 (import tf_keras)\n"
       "# or Keras 3's replacement: keras.layers.TextVectorization for the text Tokenizer",
       title="A Keras 2 name removed in Keras 3", framework="tensorflow",
       family="keras-3-installed"),
    _k("keras3-savedmodel-load",
       r"Keras (?:3|Core) only supports V3 `?\.keras`? (?:files and legacy H5 format files|and "
       r"`?\.weights\.h5`? files)",
       "Keras 3 (TensorFlow 2.16 and later) cannot load a SavedModel folder written by Keras 2 "
       "(model.save('dir') or save_format='tf'): load_model reads .keras and .h5 files only.",
       "Keras 3 chose the format by the file extension and dropped SavedModel loading.",
       ["environment.keras-3"],
       "layer = keras.layers.TFSMLayer(path, call_endpoint='serving_default')   # inference\n"
       "# or keep Keras 2: pip install \"tf-keras~=2.16\"; export TF_USE_LEGACY_KERAS=1",
       title="A Keras 2 SavedModel loaded by Keras 3", framework="tensorflow",
       family="keras-3-installed", priority=14),
    _k("keras3-checkpoint-extension",
       r"(?:the filepath provided|The filename) must end in `?\.(?:weights\.h5|keras)`?|"
       r"Invalid filepath extension "
       r"for saving|The `?save_format`? argument is deprecated in Keras 3",
       "Code written for Keras 2 saves the Keras 2 way (ModelCheckpoint to cp.ckpt or model.h5, "
       "model.save(dir), save_format='tf'); Keras 3 (TensorFlow 2.16 and later) picks the format "
       "by the extension: .keras for models, .weights.h5 for weights.",
       "Keras 3 removed save_format and the TF checkpoint weights format.",
       ["environment.keras-3"],
       "ModelCheckpoint('ckpt/epoch_{epoch:02d}.weights.h5', save_weights_only=True)\n"
       "model.save('model.keras')   # a SavedModel for serving: model.export('export_dir')",
       title="Keras 2 file names under Keras 3", framework="tensorflow",
       family="keras-3-installed", priority=14),
    _k("keras3-tensor-in-keras2-layer",
       r"A KerasTensor is symbolic: it's a placeholder for a shape an? a dtype",
       "A Keras 2 layer (a tensorflow_hub KerasLayer, a tf-keras model) is called on a Keras 3 "
       "Input (TensorFlow 2.16 and later): it tries to compute on the symbolic tensor.",
       "Keras 3 symbolic tensors have no value; Keras 2 layers expect tf tensors.",
       ["environment.keras-3"],
       "pip install \"tf-keras~=2.16\"\nimport os; os.environ['TF_USE_LEGACY_KERAS'] = '1'   # "
       "before importing tensorflow\n# or a keras_hub model instead of the TF Hub layer",
       title="A Keras 3 tensor in a Keras 2 layer", framework="tensorflow",
       family="keras-3-installed", priority=14),
    _k("nested-task-model-metrics-unbuilt",
       r"Cannot get result\(\) since the metric has not yet been built",
       "A compiled KerasHub task model (from_preset compiles it) is nested inside another Keras "
       "model: its own compiled metrics are never built, and fit() fails collecting them.",
       "from_preset(...) returns a compiled task by default.", ["model.forward"],
       "inner = keras_hub.models.GemmaCausalLM.from_preset(name, compile=False)\n# or nest the "
       "backbone: keras_hub.models.Backbone.from_preset(name)",
       title="A compiled task model nested in another", framework="tensorflow"),
    _k("kaggle-preset-access",
       r"permission to access resource at URL: https://www\.kaggle\.com/models/",
       "KerasHub presets download from Kaggle, not the Hugging Face Hub: Kaggle refuses when the "
       "model's license was not accepted on its Kaggle page, or kagglehub finds no credentials "
       "(KAGGLE_USERNAME / KAGGLE_KEY).", "Kaggle models are gated per account.",
       ["environment.hub-auth-required"],
       "# accept the license on the model's Kaggle page, then:\nimport os\nos.environ"
       "['KAGGLE_USERNAME'] = '<user>'; os.environ['KAGGLE_KEY'] = '<key>'\n# or the preset "
       "from the Hub: from_preset('hf://google/gemma-2b-keras')",
       title="A Kaggle preset without access", family="hub-gated-repo"),
]
