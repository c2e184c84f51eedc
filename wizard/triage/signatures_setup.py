"""Errors of the training set-up's configuration: a model left out of DeepSpeed under ZeRO-3,
FSDP units mixing frozen and trainable weights, accelerate's DeepSpeed settings given twice,
experiment trackers refusing TrainingArguments' values, and Hub code written for an older
gradient-checkpointing API.
"""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature, signature_maker

_g = signature_maker(12)


def refine_zero3_model(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A weight that is not 2-D is an unprepared ZeRO-3 model only when the paste runs
    DeepSpeed ZeRO-3."""
    return None if re.search(r"zero[_ -]?(?:stage[_ ]?)?3|stage3|zero3|deepspeed|"
                             r"tensor\(\[\], device=", parsed.text, re.I) else {"reject": True}


def refine_mlflow(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    return None if re.search(r"mlflow", parsed.text, re.I) else {"reject": True}


SETUP_SIGNATURES: list[Signature] = [
    _g("zero3-model-not-prepared",
       r"'weight' must be 2-D",
       "Under DeepSpeed ZeRO-3, from_pretrained partitions every model's weights and leaves "
       "empty tensors in their place; a second model (a DPO/PPO reference model, a "
       "distillation teacher, a frozen encoder) was never passed through DeepSpeed, so its "
       "layers run on the empty shards.",
       "ZeRO-3 gathers a layer's weights only inside the engine that owns them.",
       ["model.forward"],
       "ref_model = accelerator.prepare(ref_model)   # or deepspeed.initialize(model=teacher, "
       "config=ds_config)[0]\n# trl: an up-to-date DPOTrainer prepares its ref_model itself",
       framework="pytorch", title="A model left out of DeepSpeed under ZeRO-3",
       refine=refine_zero3_model),
    _g("fsdp-mixed-requires-grad",
       r"Must flatten tensors with uniform `?requires_grad`? when `?use_orig_params=False`?|"
       r"`?FlatParameter`? requires uniform `?requires_grad`?",
       "FSDP flattens each wrapped unit into one parameter, which without use_orig_params must "
       "be all frozen or all trainable; LoRA (or partial freezing) puts frozen base weights and "
       "trainable adapters in the same decoder layer.",
       "use_orig_params=True keeps the original parameters, frozen or not, inside the flat one.",
       ["model.frozen-parameters"],
       "# accelerate config, fsdp_config:\nfsdp_use_orig_params: true\n# or TrainingArguments("
       "fsdp='full_shard auto_wrap', fsdp_config={'use_orig_params': True})",
       framework="pytorch", title="FSDP unit of frozen and trainable weights"),
    _g("accelerate-deepspeed-config-twice",
       r"When using `deepspeed_config_file`, the following accelerate config variables will be "
       r"ignored",
       "accelerate was given a DeepSpeed JSON (deepspeed_config_file) and DeepSpeed settings in "
       "its own config or launch flags as well (often a stale default_config.yaml): gradient "
       "accumulation, clipping, ZeRO stage, offload or mixed precision twice.",
       "With a DeepSpeed JSON, the JSON alone decides; accelerate refuses the duplicates.",
       ["hyperparameters.hidden-defaults"],
       "rm ~/.cache/huggingface/accelerate/default_config.yaml && accelerate config   # keep only "
       "deepspeed_config_file\n# and put those values in the DeepSpeed JSON ('auto' takes the "
       "Trainer's)", title="DeepSpeed settings given twice"),
    _g("nccl-unavailable-on-platform",
       r"Distributed package doesn't have NCCL built in",
       "The run asks torch.distributed for the NCCL backend (a launcher, DeepSpeed, FSDP, or "
       "backend='nccl' in the code) on Windows or macOS, whose PyTorch has no NCCL.",
       "NCCL ships only with PyTorch for Linux.", ["environment.device"],
       "python train.py   # one GPU: no distributed launcher\n# several on Windows: "
       "torch.distributed.init_process_group(backend='gloo'), or Linux / WSL2",
       title="NCCL asked for where PyTorch has none"),
    _g("spawn-without-main-guard",
       r"An attempt has been made to start a new process before the\s+current process has "
       r"finished its bootstrapping phase",
       "On Windows and macOS worker processes are spawned and re-import the main script: "
       "DataLoader workers (num_workers > 0) or Dataset.map(num_proc > 1) started from "
       "top-level code without an `if __name__ == \"__main__\":` guard.",
       "Each spawned process runs the script's top level again.", ["data.batch-structure"],
       "if __name__ == \"__main__\":\n    main()   # the training code under the guard\n# or "
       "dataloader_num_workers=0 and map(..., num_proc=None)",
       title="Worker processes without the main guard"),
    _g("mlflow-param-too-long",
       r"exceeded length limit of (?:250|500|6000)",
       "The MLflow callback logs every TrainingArguments value and the model config as params, "
       "and one of them (id2label, label2id, task_specific_params) is longer than MLflow's "
       "limit; report_to picks MLflow up whenever it is installed (before transformers 5).",
       "MLflow caps the length of a param's value.", ["hyperparameters.hidden-defaults"],
       "TrainingArguments(..., report_to='none')   # or report_to=['tensorboard']; or "
       "pip uninstall mlflow", title="A param too long for MLflow", refine=refine_mlflow),
]
