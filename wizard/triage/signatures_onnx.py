"""Errors of exporting a fine-tuned model to ONNX and optimising it with optimum: model types the
exporter has no config for, BetterTransformer's end, SDPA below opset 14, token_type_ids the
tokenizer does not return, protobuf's 2 GB limit, and the export's validation tolerance."""
from __future__ import annotations

from wizard.triage.env_answers import OLD
from wizard.triage.signature import Signature, signature_maker

_o = signature_maker(14)


ONNX_SIGNATURES: list[Signature] = [
    _o("repo-missing-onnx-weights",
       # transformers.js (and other ONNX runtimes) fetch onnx/<file>.onnx from the repository
       r"Could not locate file:? ['\"]?(?:https?://[^\s'\"]*?/resolve/[^/\s]+/)?(?:[^\s'\"]*/)?"
       r"onnx/(?P<file>[\w.-]+\.onnx)|"
       r"missing ['\"]?(?P<file2>(?:\w+_)?model(?:_\w+)?\.onnx)['\"]?",
       "The runtime loads ONNX files from the repository's onnx/ folder (transformers.js: "
       "onnx/model.onnx, or decoder_model_merged[_quantized].onnx in older exports), and this "
       "repository has none of that name: it holds PyTorch or safetensors weights only, or an "
       "export under other file names than the runtime's release looks for.",
       "transformers.js runs ONNX exports, not the PyTorch weights; a release looks for the file "
       "names of the exporter it was built with.",
       ["environment.package-versions"],
       "# a repository converted for the runtime (the Xenova/ or onnx-community/ copy of the "
       "model), or convert it yourself:\noptimum-cli export onnx --model <model id> onnx/   # "
       "then put the files under onnx/ in your repository",
       title="The repository has no ONNX weights the runtime can load"),
    _o("onnx-export-unsupported-architecture",
       r"Trying to export a [\w-]{1,80} model, that is a custom or unsupported architecture",
       "The installed optimum has no ONNX export config for this model type (a new "
       "architecture, or remote code): support comes in later optimum / optimum-onnx releases.",
       "The exporter needs a per-architecture config of inputs and outputs.",
       ["environment.package-versions"],
       "pip install -U optimum optimum-onnx\n# a type still unsupported: main_export(..., "
       "custom_onnx_configs={...})", family=OLD, title="A model type the ONNX exporter does not "
       "know"),
    _o("bettertransformer-retired",
       r"is not yet supported to be used with BetterTransformer|BetterTransformer requires "
       r"transformers<[\d.]+",
       "BetterTransformer is retired: transformers runs PyTorch's SDPA natively, optimum does "
       "not add architectures to it and refuses transformers 4.49 and later. Upgrading does not "
       "help.", "SDPA gives the fused attention BetterTransformer used to.",
       ["environment.package-versions"],
       "model = AutoModelForCausalLM.from_pretrained(name, attn_implementation='sdpa')   # "
       "instead of BetterTransformer.transform(model)", title="BetterTransformer retired"),
    _o("onnx-sdpa-opset",
       r"Exporting the operator '?aten::scaled_dot_product_attention'? to ONNX opset version "
       r"\d+ is not supported",
       "The model runs attention through torch SDPA, and the ONNX exporter converts SDPA only "
       "from opset 14 (torch 2.1 and later).",
       "transformers models use SDPA by default.", ["environment.package-versions"],
       "torch.onnx.export(model, args, 'model.onnx', opset_version=14)   # torch >= 2.1\n# or "
       "load for export with attn_implementation='eager'", title="SDPA below ONNX opset 14"),
    _o("onnx-token-type-ids-missing",
       r"Required inputs \(\['token_type_ids'\]\) are missing from input feed",
       "The exported graph takes token_type_ids (a BERT-type model such as multilingual-e5) but "
       "its tokenizer (XLM-R's) does not return them, and the installed optimum does not add a "
       "default.", "onnxruntime requires every graph input.", ["data.batch-structure"],
       "enc = tokenizer(texts, return_tensors='np', return_token_type_ids=True)\n# or: pip "
       "install -U optimum   # newer ORTModel fills them in",
       title="token_type_ids missing from the ONNX feed"),
    _o("onnx-over-2gb",
       r"ModelProto exceeds maximum protobuf size of 2 ?GB",
       "One .onnx protobuf holds at most 2 GB; a larger model (over about 500M fp32 parameters) "
       "must keep its weights as external data.", "Protobuf messages are limited to 2 GB.",
       ["memory.estimate"],
       "onnx.save_model(model, 'model.onnx', save_as_external_data=True, "
       "all_tensors_to_one_file=True, location='model.onnx_data')",
       title="An ONNX model over 2 GB"),
    _o("onnx-validation-tolerance",
       r"maximum absolute difference between the output of the reference model and the ONNX "
       r"exported model is not within the set tolerance|values not close enough, max diff: "
       r"[\d.e-]{1,30} \(atol: [\d.e-]{1,20}\)",
       "The export worked; its check that ONNX and PyTorch outputs agree to atol 1e-5 failed by "
       "a small margin, usual for large models, fp16 or optimised graphs.",
       "optimum validates the export with a tight default tolerance.", ["model.forward"],
       "optimum-cli export onnx --model ./my_model --atol 1e-4 out_dir/",
       title="ONNX outputs outside the validation tolerance"),
]
