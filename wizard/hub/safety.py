"""What the wizard will not do without an explicit yes: run a repo's own code, unpickle weights."""
from __future__ import annotations

from pathlib import Path

from wizard.hub.errors import HubPickleWeightsOnly, HubRemoteCodeRequired
from wizard.hub.refs import ModelRef


def ensure_remote_code_allowed(model_ref: ModelRef, trust_remote_code: bool = False) -> None:
    """Raise HubRemoteCodeRequired unless the user said yes; the wizard never turns it on by
    itself."""
    if model_ref.needs_remote_code and trust_remote_code is not True:
        files = ", ".join(model_ref.code_files[:4]) or ", ".join(
            str(v) for v in list(model_ref.auto_map.values())[:3])
        raise HubRemoteCodeRequired(
            f"The model {model_ref.name!r} needs its own Python code ({files}) and the wizard "
            "never runs repo code without your explicit yes; read that code, then set "
            "trust_remote_code: true in the case.", repo=model_ref.name,
            fix="trust_remote_code: true   # in the case file, after reading the repo's .py files",
            evidence={"auto_map": model_ref.auto_map, "code_files": model_ref.code_files})


def unsafe_weights(model_ref: ModelRef, framework: str | None = None) -> bool:
    """True when the only weights are pickle files, or HDF5 files for a non-TensorFlow user."""
    return model_ref.weights_format == "pickle" or (model_ref.weights_format == "h5"
                                                    and framework != "tensorflow")


def ensure_safe_weights(model_ref: ModelRef, allow_pickle: bool = False,
                        framework: str | None = None) -> None:
    """Raise HubPickleWeightsOnly when the only weights are pickle (.bin) files (or .h5 outside
    TensorFlow)."""
    if unsafe_weights(model_ref, framework) and not allow_pickle:
        raise HubPickleWeightsOnly(_pickle_message(model_ref), repo=model_ref.name,
                                   fix=_pickle_fix(model_ref),
                                   evidence={"weight_files": model_ref.weight_files})


def _pickle_message(mref: ModelRef) -> str:
    files = ", ".join(Path(f).name for f in mref.weight_files[:3])
    if mref.weights_format == "h5":
        return (f"The model {mref.name!r} has only TensorFlow HDF5 weights ({files}) and no "
                "safetensors; PyTorch cannot load them without from_tf=True, so prefer a revision "
                "with model.safetensors or convert once.")
    return (f"The model {mref.name!r} has only pickle weights ({files}) and no safetensors; "
            "unpickling can run arbitrary code, so prefer a revision with model.safetensors (often "
            "a 'safetensors' PR, revision='refs/pr/N') or convert a trusted copy once.")


def _pickle_fix(mref: ModelRef) -> str:
    return ("from transformers import AutoModel\n"
            f'model = AutoModel.from_pretrained("{mref.location}", use_safetensors=False)  '
            "# only if you trust it\n"
            'model.save_pretrained("model-safetensors", safe_serialization=True)')
