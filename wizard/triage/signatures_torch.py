"""Errors of a hand-written PyTorch loop around a model: the scheduler stepped before the
optimizer, a CUDA default device beside the DataLoader's CPU generator, tensors made in inference
mode then trained, tensors that are not leaves handed to the optimizer, InputExample lists at the
default collate, a loss class called with the tensors, and transformers 5's chat template
returning a dict.
"""
from __future__ import annotations

from wizard.triage.signature import Signature, signature_maker

_p = signature_maker(13)
# a loss class given the tensors: nn.CrossEntropyLoss(logits, labels), no keyword options
_LOSS_CALL = (r"\b(?:CrossEntropyLoss|BCEWithLogitsLoss|BCELoss|MSELoss|NLLLoss|L1Loss)"
              r"\((?![^)\n]{0,200}=)[^)\n]{1,200}\)")


TORCH_SIGNATURES: list[Signature] = [
    _p("evaluator-given-non-sentence-transformer",
       r"'(?P<cls>\w*(?:Model|For\w+))' object has no attribute 'encode'",
       "A Sentence Transformers evaluator (or code written for one) calls model.encode(), which "
       "only a SentenceTransformer has; it was given a plain transformers model (AutoModel).",
       "Sentence Transformers wraps a transformers model with pooling and gives it encode(); "
       "the bare model returns token states and has no encode().",
       ["model.forward"],
       "from sentence_transformers import SentenceTransformer\nmodel = SentenceTransformer("
       "'<model id>')   # adds mean pooling to a plain checkpoint\nevaluator(model)",
       title="A transformers model where a SentenceTransformer is expected"),
    _p("cross-encoder-evaluator-on-bi-encoder",
       r"'SentenceTransformer' object has no attribute 'predict'",
       "A CrossEncoder evaluator (the CE... evaluators) calls model.predict(), which a "
       "SentenceTransformer (a bi-encoder) does not have.",
       "CE evaluators score sentence pairs with a CrossEncoder; bi-encoders are evaluated with "
       "the embedding evaluators.",
       ["model.forward"],
       "from sentence_transformers.evaluation import EmbeddingSimilarityEvaluator   # for a "
       "SentenceTransformer\n# or evaluate a CrossEncoder: CrossEncoder('<model id>')",
       title="A CrossEncoder evaluator on a SentenceTransformer"),
    _p("scheduler-stepped-before-optimizer",
       r"Detected call of [`']?lr_scheduler\.step\(\)[`']? before [`']?optimizer\.step\(\)",
       "PyTorch saw scheduler.step() before any optimizer.step(). Under fp16 (AMP) that is "
       "harmless: the grad scaler skips the first optimizer steps while it finds a loss scale. "
       "Without AMP the loop calls them in the wrong order.",
       "Since PyTorch 1.1 the scheduler steps after the optimizer.", ["training.non-finite-step"],
       "optimizer.step()\nscheduler.step()   # in this order\n# AMP: scale = scaler.get_scale(); "
       "scaler.step(optimizer); scaler.update()\n# if scaler.get_scale() >= scale: "
       "scheduler.step()", title="The scheduler stepped before the optimizer", benign=True),
    _p("default-device-vs-loader-generator",
       r"Expected a .cuda. device type for generator but found .cpu.|"
       r"randperm is only implemented for CPU",   # torch < 1.0
       "The script makes CUDA the default device (torch.set_default_tensor_type('torch.cuda."
       "FloatTensor') or torch.set_default_device('cuda')), so the sampler's randperm runs on "
       "CUDA while the DataLoader shuffles with a CPU generator.",
       "A random generator only serves tensors of its own device.", ["environment.device"],
       "DataLoader(ds, shuffle=True, generator=torch.Generator(device='cuda'))\n# better: drop "
       "the CUDA default and move the model and batches with .to(device)",
       title="CUDA default device with a CPU sampler"),
    _p("inference-tensor-in-training",
       r"Inference tensors cannot be saved for backward",
       "A tensor (or weight) made under torch.inference_mode() (a decorator on a helper, an "
       "encode() call, a resize of the embeddings) is then used in a step autograd must "
       "differentiate.", "Inference-mode tensors never record autograd history.",
       ["training.no-gradient"],
       "# torch.no_grad() instead of torch.inference_mode() where the result feeds training,\n"
       "# or clone it outside inference mode: x = x.clone()",
       title="Inference-mode tensors in training"),
    _p("optimizer-given-non-leaf",
       r"can.t optimize a non-leaf Tensor",
       "A tensor handed to the optimizer is the result of an operation (.to(device) or .cuda() "
       "after requires_grad=True, a product, a slice), not a leaf of the graph.",
       "Optimizers update leaf tensors (parameters) only.", ["model.frozen-parameters"],
       "p = torch.randn(n, device=device, requires_grad=True)   # made on the device\n# or "
       "nn.Parameter(...) on the module, then optimizer = AdamW(model.parameters())",
       title="A non-leaf tensor given to the optimizer"),
    _p("input-examples-at-default-collate",
       r"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
       r"found <class '[\w.]{0,120}InputExample'>",
       "A DataLoader over sentence-transformers InputExample objects batches them with PyTorch's "
       "default collate, which cannot: model.fit() used to set model.smart_batching_collate "
       "itself, iterating the loader (or a custom loop) does not.",
       "InputExample is a plain Python object.", ["data.batch-structure"],
       "loader.collate_fn = model.smart_batching_collate\n# sentence-transformers >= 3: a "
       "datasets.Dataset with SentenceTransformerTrainer", title="InputExample at the default "
       "collate"),
    _p("loss-class-called-with-tensors",
       r"(?:Boolean|bool) value of Tensor with more than one (?:value|element) is ambiguous",
       "The loss class is called with the tensors (nn.CrossEntropyLoss(logits, labels)): its "
       "constructor takes them as its options and tests them as booleans.",
       "A loss module is built first, then called.", ["training.loss-output-mismatch"],
       "loss = nn.CrossEntropyLoss()(logits, labels)   # or F.cross_entropy(logits, labels)",
       title="A loss class called with the tensors", priority=15, requires=_LOSS_CALL),
    _p("chat-template-returns-dict",
       r"Could not infer dtype of dict",
       "transformers 5's apply_chat_template(tokenize=True) returns a dict (a BatchEncoding) by "
       "default; code written for 4 passes it to torch.tensor as a list of ids.",
       "transformers 5 made return_dict=True the default.", ["data.chat-template-mismatch"],
       "ids = tokenizer.apply_chat_template(messages, tokenize=True, return_dict=False)\n# or "
       "apply_chat_template(...)['input_ids']; trl: pip install -U trl",
       family="env-version-too-new", title="apply_chat_template returns a dict",
       requires=r"chat_template"),
]
