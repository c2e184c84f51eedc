"""Training-memory estimates from metadata: parameter counts, a per-component breakdown, advice.

Parameter counts come, cheapest first, from safetensors headers (local files or the Hub), from the
config alone (the model built on the meta device), or from an analytic formula. The breakdown
covers weights, gradients, optimizer state, activations (a function of batch size and sequence
length), mixed precision, gradient checkpointing, frozen/LoRA parameters and sharding over N GPUs.

The activation model starts from Transformer Math 101 / Korthikanti et al. (sbh(34 + 5as/h) bytes
per layer in 16-bit) but counts the tensors each op saves for backward, per architecture family,
so that it holds for fp32, AMP, eager vs fused attention and CPU vs CUDA dropout masks; its
constants were checked against saved-tensor traces and measured peaks (benchmarks/memory_accuracy.py).
Nothing here imports torch or transformers at module level.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from wizard.core.optimizer import parse_optimizer
from wizard.errors import ModelNotFound
from wizard.hub.auth import resolve_token
from wizard.hub.download import download_file
from wizard.hub.errors import HubError
from wizard.hub.refs import hub_id
from wizard.hub.safetensors import hub_headers, read_header, weight_files

GiB = 1024 ** 3
MiB = 1024 ** 2
FLOAT_DTYPES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "F8_E4M3": 1, "F8_E5M2": 1,
                "F8_E4M3FN": 1, "F8_E8M0": 1}
DTYPE_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}
# bitsandbytes' quantised linear weights, bytes per parameter: NF4 is 4 bits plus its block
# constants (double quantisation: ~0.127 bit); int8 keeps one scale per row (negligible)
QUANT_BYTES = {"nf4": 0.5 + 0.127 / 8, "int8": 1.0}
_DTYPE_NAMES = {"F32": "fp32", "F16": "fp16", "BF16": "bf16", "F64": "fp64"}
# Persistent buffers some checkpoints carry that are not parameters (GPT-2's causal masks, ids).
_BUFFER_NAMES = re.compile(r"(\.attn\.(masked_)?bias$|position_ids$|\.inv_freq$|_float_tensor$)")
CUDA_CONTEXT_BYTES = int(0.5 * GiB)  # CUDA context + cuBLAS workspace: not in max_memory_allocated
STRATEGIES = ("single", "ddp", "zero1", "zero2", "zero3", "fsdp")




# --------------------------------------------------------------------------------------------
# Parameter counts
# --------------------------------------------------------------------------------------------
@dataclass
class ParamCount:
    """How many parameters a checkpoint has, by dtype, and where the number comes from."""

    total: int
    by_dtype: dict[str, int] = field(default_factory=dict)
    source: str = ""            # safetensors | hub-safetensors | pytorch-bin | config-meta | analytic
    location: str = ""
    largest_tensor: int = 0     # elements of the largest tensor
    factored_elements: int = 0  # Adafactor's factored second moment: sum of rows+cols per matrix
    tensors: int = 0

    @property
    def checkpoint_dtype(self) -> str:
        if not self.by_dtype:
            return "fp32"
        top = max(self.by_dtype, key=self.by_dtype.get)
        return _DTYPE_NAMES.get(top, top.lower())

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["checkpoint_dtype"] = self.checkpoint_dtype
        return d


def _factored(shape: list[int]) -> int:
    """Adafactor state size of one tensor: rows + cols for matrices, the full size for vectors."""
    if len(shape) >= 2:
        lead = math.prod(shape[:-2]) if len(shape) > 2 else 1
        return lead * (shape[-2] + shape[-1])
    return math.prod(shape) if shape else 1


def count_from_headers(headers: dict[str, dict[str, Any]], source: str, location: str) -> ParamCount:
    """Count parameters from parsed safetensors headers ({filename: header dict})."""
    by_dtype: dict[str, int] = {}
    largest = factored = n = 0
    for header in headers.values():
        for name, info in header.items():
            if name == "__metadata__" or not isinstance(info, dict):
                continue
            dtype = str(info.get("dtype", ""))
            if dtype not in FLOAT_DTYPES or _BUFFER_NAMES.search(name):
                continue
            shape = [int(x) for x in info.get("shape", [])]
            numel = math.prod(shape) if shape else 1
            by_dtype[dtype] = by_dtype.get(dtype, 0) + numel
            largest = max(largest, numel)
            factored += _factored(shape)
            n += 1
    return ParamCount(sum(by_dtype.values()), by_dtype, source, location, largest, factored, n)


def count_local(folder: str | Path) -> ParamCount | None:
    """Count parameters of a local save_pretrained folder from its weight files, or None."""
    folder = Path(folder)
    files = weight_files(folder)
    if files:
        missing = [f.name for f in files if not f.is_file()]
        if missing:
            raise ModelNotFound(f"The shard {missing[0]} named in {folder}/model.safetensors."
                                "index.json is missing; copy the whole folder again.")
        try:
            headers = {f.name: read_header(f) for f in files}
        except HubError as err:
            raise ModelNotFound(err.message) from None
        return count_from_headers(headers, "safetensors", str(folder))
    bins = sorted(folder.glob("pytorch_model*.bin"))
    if bins:
        return _count_torch_bins(bins, str(folder))
    h5 = folder / "tf_model.h5"
    if h5.is_file():
        return _count_h5(h5, str(folder))
    return None


def _count_h5(path: Path, location: str) -> ParamCount | None:
    """A TF checkpoint's weights from its HDF5 file (h5py reads the shapes; TensorFlow is not
    imported); None without h5py."""
    try:
        import h5py
    except ImportError:
        return None
    names = {"float32": "F32", "float16": "F16", "bfloat16": "BF16", "float64": "F64"}
    headers: dict[str, dict[str, Any]] = {path.name: {}}

    def visit(name: str, obj: Any) -> None:
        if isinstance(obj, h5py.Dataset) and obj.shape:
            headers[path.name][name] = {"dtype": names.get(str(obj.dtype), "F32"),
                                        "shape": list(obj.shape)}

    with h5py.File(path, "r") as fh:
        fh.visititems(visit)
    return count_from_headers(headers, "tf-h5", location) if headers[path.name] else None


def _count_torch_bins(files: list[Path], location: str) -> ParamCount:
    import torch  # only for legacy .bin checkpoints; mmap keeps it from reading the data

    headers: dict[str, dict[str, Any]] = {}
    names = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64"}
    for f in files:
        sd = torch.load(f, map_location="meta", mmap=True, weights_only=True)
        headers[f.name] = {k: {"dtype": names.get(v.dtype, "I64"), "shape": list(v.shape)}
                           for k, v in sd.items() if hasattr(v, "shape")}
    return count_from_headers(headers, "pytorch-bin", location)


def count_hub(repo_id: str, revision: str | None = None, endpoint: str | None = None,
              token: str | bool | None = None) -> ParamCount:
    """Count parameters of a Hub model from its safetensors headers (HTTP range requests only);
    a HubError when the Hub cannot say."""
    headers = hub_headers(repo_id, revision=revision, endpoint=endpoint, token=token)
    return count_from_headers(headers, "hub-safetensors", repo_id)


def torch_class(config: Any, task: str | None) -> Any:
    import transformers

    arches = list(getattr(config, "architectures", None) or [])
    for arch in arches:
        name = re.sub(r"^(TF|Flax)", "", arch)
        cls = getattr(transformers, name, None)
        if cls is not None:
            return cls
    auto = {"cls": "AutoModelForSequenceClassification", "token": "AutoModelForTokenClassification",
            "qa": "AutoModelForQuestionAnswering"}.get(task or "", None)
    if task == "lm":
        auto = ("AutoModelForSeq2SeqLM" if getattr(config, "is_encoder_decoder", False)
                else "AutoModelForCausalLM")
    return getattr(transformers, auto or "AutoModel")


def count_from_config(config: Any, task: str | None = None) -> ParamCount:
    """Build the model on the meta device (no memory, no weights) and count its parameters.

    A TensorFlow-only checkpoint is counted with the PyTorch class of the same architecture.
    """
    import torch

    cls = torch_class(config, task)
    # torch.device("meta") rather than accelerate.init_empty_weights: the latter unties tied
    # embeddings (GPT-2's lm_head), which would count them twice.
    with torch.device("meta"):
        model = cls.from_config(config) if hasattr(cls, "from_config") else cls(config)
    by_dtype: dict[str, int] = {}
    largest = factored = n = 0
    names = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}
    for p in model.parameters():
        key = names.get(p.dtype, str(p.dtype))
        by_dtype[key] = by_dtype.get(key, 0) + p.numel()
        largest = max(largest, p.numel())
        factored += _factored(list(p.shape))
        n += 1
    return ParamCount(sum(by_dtype.values()), by_dtype, "config-meta",
                      getattr(config, "_name_or_path", "") or "", largest, factored, n)


# --------------------------------------------------------------------------------------------
# Model geometry
# --------------------------------------------------------------------------------------------
_GATED_TYPES = {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma",
                "gemma2", "gemma3", "gemma3_text", "phi3", "olmo", "olmo2", "cohere", "granite",
                "smollm3", "deepseek_v2", "deepseek_v3", "starcoder2_gated", "glm", "glm4", "exaone",
                "internlm2", "yi", "baichuan", "stablelm_gated", "arcee", "helium", "ministral"}
_RMS_TYPES = _GATED_TYPES | {"t5", "mt5", "umt5", "longt5", "mamba"}
_ROTARY_TYPES = _GATED_TYPES | {"gpt_neox", "gptj", "phi", "stablelm", "falcon", "persimmon",
                                "starcoder2", "qwen", "codegen", "rope"}
_NO_SDPA_BEFORE_V5 = {"t5", "mt5", "umt5", "longt5", "bart", "mbart", "marian", "pegasus",
                      "albert", "electra", "xlnet", "deberta", "deberta-v2", "funnel", "mpnet"}
_COMPOSITE_ACTS = {"gelu_new": 3, "gelu_fast": 3, "quick_gelu": 1, "gelu_python": 3, "mish": 2,
                   "swish_python": 1}


def _first(d: dict[str, Any], *keys: str, default: Any = None) -> Any:
    for k in keys:
        v = d.get(k)
        if v is not None:
            return v
    return default


@dataclass
class ModelGeometry:
    """The shape of a transformer, read from its config (any of the common key spellings)."""

    model_type: str = ""
    hidden: int = 768
    layers: int = 12
    decoder_layers: int = 0
    heads: int = 12
    kv_heads: int = 12
    head_dim: int = 64
    intermediate: int = 3072
    vocab: int = 30522
    max_positions: int | None = 512
    activation: str = "gelu"
    gated_mlp: bool = False
    rms_norm: bool = False
    rotary: bool = False
    dropout: float = 0.1
    attention_dropout: float = 0.1
    is_encoder_decoder: bool = False
    tie_embeddings: bool = True
    architectures: list[str] = field(default_factory=list)
    num_labels: int = 2

    @classmethod
    def from_config(cls, config: Any) -> "ModelGeometry":
        d = config if isinstance(config, dict) else config.to_dict()
        if isinstance(d.get("text_config"), dict) and not d.get("hidden_size"):
            d = {**d["text_config"], "architectures": d.get("architectures")}
        mt = str(d.get("model_type", ""))
        hidden = int(_first(d, "hidden_size", "n_embd", "d_model", "dim", "embed_dim", default=768))
        heads = int(_first(d, "num_attention_heads", "n_head", "num_heads", "n_heads",
                           "encoder_attention_heads", default=12))
        kv = int(_first(d, "num_key_value_heads", "num_kv_heads", "n_head_kv", default=heads))
        layers = int(_first(d, "num_hidden_layers", "n_layer", "num_layers", "n_layers",
                            "encoder_layers", default=12))
        enc_dec = bool(d.get("is_encoder_decoder", False))
        dec = int(_first(d, "num_decoder_layers", "decoder_layers", default=layers)) if enc_dec else 0
        inter = _first(d, "intermediate_size", "n_inner", "d_ff", "ffn_dim", "encoder_ffn_dim",
                       "hidden_dim" if "dim" in d else "__none__")
        act = str(_first(d, "hidden_act", "activation_function", "activation", "feed_forward_proj",
                         default="gelu"))
        gated = mt in _GATED_TYPES or act.startswith("gated") or "glu" in act
        head_dim = int(_first(d, "head_dim", "d_kv", default=hidden // max(heads, 1)) or
                       hidden // max(heads, 1))
        drop = float(_first(d, "hidden_dropout_prob", "resid_pdrop", "dropout_rate", "dropout",
                            "hidden_dropout", default=0.0) or 0.0)
        adrop = float(_first(d, "attention_probs_dropout_prob", "attn_pdrop", "attention_dropout",
                             "dropout_rate", default=0.0) or 0.0)
        labels = d.get("id2label")
        return cls(
            model_type=mt, hidden=hidden, layers=layers, decoder_layers=dec, heads=heads,
            kv_heads=kv, head_dim=head_dim, intermediate=int(inter or 4 * hidden),
            vocab=int(_first(d, "vocab_size", default=32000)),
            max_positions=_first(d, "max_position_embeddings", "n_positions", "n_ctx"),
            activation=act.replace("gated-", ""), gated_mlp=gated,
            rms_norm=mt in _RMS_TYPES or "rms_norm_eps" in d, rotary=mt in _ROTARY_TYPES
            or "rope_theta" in d or "rope_scaling" in d, dropout=drop, attention_dropout=adrop,
            is_encoder_decoder=enc_dec, tie_embeddings=bool(d.get("tie_word_embeddings", True)),
            architectures=list(d.get("architectures") or []),
            num_labels=len(labels) if isinstance(labels, dict) and labels else
            int(d.get("num_labels", 2) or 2))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def head_kind(self, task: str | None = None) -> str:
        """lm (vocabulary logits), cls, token or qa, from the task or the architecture name."""
        kinds = {"text-classification": "cls", "sequence-classification": "cls", "cls": "cls",
                 "token-classification": "token", "ner": "token", "token": "token",
                 "question-answering": "qa", "qa": "qa"}
        if task in kinds:
            return kinds[task]
        if task and any(w in task for w in ("lm", "generation", "mask", "summar", "translat",
                                            "seq2seq", "text2text", "causal")):
            return "lm"
        arch = self.architectures[0] if self.architectures else ""
        if re.search(r"(LMHead|ForCausalLM|ForMaskedLM|ForConditionalGeneration|ForPreTraining)",
                     arch):
            return "lm"
        if "TokenClassification" in arch:
            return "token"
        if "QuestionAnswering" in arch:
            return "qa"
        if "SequenceClassification" in arch or task:
            return "cls"
        return "lm" if self.is_encoder_decoder or self.rotary else "cls"


# Decoder LLM families whose parameter count follows exactly from config.json (checked against
# the model built on the meta device in the tests): model_type -> q/k/v biases always present.
EXACT_DECODERS = {"llama": False, "mistral": False, "qwen2": True}


def exact_decoder_count(config: dict[str, Any], task: str | None = None) -> ParamCount | None:
    """The exact parameter count of a causal LM of an EXACT_DECODERS family, from its config
    alone, without importing a framework; None for any other model or head."""
    mt = str(config.get("model_type", ""))
    if mt not in EXACT_DECODERS or config.get("text_config") or config.get("quantization_config"):
        return None
    g = ModelGeometry.from_config(config)
    if g.head_kind(task) != "lm" or any("ForCausalLM" not in a for a in g.architectures):
        return None
    h, i, heads, kv, hd = g.hidden, g.intermediate, g.heads, g.kv_heads, g.head_dim
    qkv_bias = EXACT_DECODERS[mt] or bool(config.get("attention_bias", False))
    layer: list[list[int]] = [[heads * hd, h], [kv * hd, h], [kv * hd, h], [h, heads * hd],
                              [i, h], [i, h], [h, i], [h], [h]]
    if qkv_bias:
        layer += [[heads * hd], [kv * hd], [kv * hd]]
    if config.get("attention_bias"):
        layer += [[h]]
    if config.get("mlp_bias"):
        layer += [[i], [i], [h]]
    shapes = [[g.vocab, h], *layer * g.layers, [h]]
    if not config.get("tie_word_embeddings", False):
        shapes.append([g.vocab, h])
    sizes = [math.prod(s) for s in shapes]
    return ParamCount(sum(sizes), {"F32": sum(sizes)}, "config-formula",
                      str(config.get("_name_or_path", "")), max(sizes),
                      sum(_factored(s) for s in shapes), len(shapes))


def analytic_param_count(g: ModelGeometry) -> int:
    """Parameters from the geometry alone (embeddings + layers + head), for when no weights exist."""
    h, i = g.hidden, g.intermediate
    attn = h * g.heads * g.head_dim * 2 + 2 * h * g.kv_heads * g.head_dim
    mlp = (3 if g.gated_mlp else 2) * h * i
    norms = (2 if g.rms_norm else 4) * h
    per_layer = attn + mlp + norms + (0 if g.rms_norm else 4 * h + i)  # biases
    emb = g.vocab * h + (0 if g.rotary or g.model_type.startswith("t5") else
                         int(g.max_positions or 0) * h)
    total = emb + g.layers * per_layer
    if g.is_encoder_decoder:
        total += g.decoder_layers * (per_layer + attn)
    if not g.tie_embeddings:
        total += g.vocab * h
    return int(total)


def read_config(model: str | Path, revision: str | None = None, endpoint: str | None = None,
                token: str | bool | None = None) -> tuple[dict[str, Any], Path | None]:
    """The config.json of a local folder or Hub model as a dict, and the local file it came from."""
    p = Path(model)
    if p.is_dir():
        cfg = p / "config.json"
        if not cfg.is_file():
            raise ModelNotFound(f"{p} has no config.json; point at a folder written by "
                                "save_pretrained().")
        return json.loads(cfg.read_text()), cfg
    if p.is_file() and p.suffix == ".json":
        return json.loads(p.read_text()), p
    try:
        repo_id = hub_id(str(model), "model")
        path = download_file(repo_id, "config.json", revision=revision,
                             token=resolve_token(token)[0], endpoint=endpoint)
    except HubError as err:
        raise ModelNotFound(err.message) from None
    return json.loads(Path(path).read_text()), Path(path)


def resolve_params(model: str | Path, config: dict[str, Any], config_file: Path | None,
                   task: str | None = None, revision: str | None = None,
                   endpoint: str | None = None, token: str | bool | None = None,
                   build: bool = True) -> ParamCount:
    """Cheapest parameter count: local weight headers, Hub headers, cache, an exact formula,
    the model built on the meta device (imports torch; not when `build` is False), the
    approximate formula."""
    p = Path(model)
    if p.is_dir():
        found = count_local(p)
        if found is not None:
            return found
    elif not p.is_file():
        try:
            return count_hub(str(model), revision=revision, endpoint=endpoint, token=token)
        except Exception:  # offline or not a safetensors repo: fall back to the cache / config
            pass
        if config_file is not None:
            found = count_local(config_file.parent)
            if found is not None:
                found.source = "cached-" + found.source
                return found
    exact = exact_decoder_count(config, task)
    if exact is not None:
        return exact
    try:
        if not build:
            raise LookupError("no framework import here")
        from transformers import AutoConfig

        cfg_obj = AutoConfig.from_pretrained(str(config_file.parent if config_file else p))
        return count_from_config(cfg_obj, task)
    except Exception:
        g = ModelGeometry.from_config(config)
        return ParamCount(analytic_param_count(g), {}, "analytic", str(model),
                          g.vocab * g.hidden, 0, 0)


# --------------------------------------------------------------------------------------------
# Training setup and optimizers
# --------------------------------------------------------------------------------------------
@dataclass
class OptimizerState:
    """An optimizer's state per trainable parameter."""

    name: str
    state_copies: float = 2.0   # full-size copies of the parameter (Adam: m and v)
    state_bytes: float | None = None  # fixed bytes per parameter instead (8-bit states)
    factored: bool = False      # Adafactor: rows + cols instead of a full second moment
    momentum: bool = False
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def optimizer_state(opt: Any) -> OptimizerState:
    """What an optimizer keeps per trainable parameter, for any way a user writes it."""
    spec = parse_optimizer(opt)
    key = spec.key
    has_mom = spec.momentum > 0
    if "8bit" in key or "bnb" in key or "8_bit" in key:
        return OptimizerState(key, 0, 2.0 if "lion" not in key else 1.0,
                              note="bitsandbytes keeps 8-bit states (tensors < 4096 stay 32-bit)")
    if "adafactor" in key:
        beta1 = spec.kwargs.get("beta1")
        return OptimizerState(key, 1.0 if isinstance(beta1, (int, float)) and beta1 > 0 else 0.0,
                              factored=True, note="factored second moment (rows + columns)")
    if key.startswith(("adam", "nadam", "radam", "lamb", "adamax")):
        return OptimizerState(key, 2.0, momentum=True)
    if "lion" in key:
        return OptimizerState(key, 1.0, momentum=True)
    if key.startswith("sgd"):
        return OptimizerState(key, 1.0 if has_mom else 0.0, momentum=has_mom)
    if key in ("rmsprop", "adagrad", "adadelta"):
        return OptimizerState(key, 2.0 if key == "adadelta" or has_mom else 1.0, momentum=has_mom)
    return OptimizerState(key, 2.0, momentum=True,
                          note=f"unknown optimizer {spec.name!r}: counted like Adam (two states)")


@dataclass
class TrainingSetup:
    """What the training run looks like; batch_size is per device."""

    batch_size: int = 8
    seq_len: int = 512
    optimizer: str = "adamw"
    precision: str = "fp32"          # fp32 | fp16 | bf16 (mixed precision, fp32 master weights)
    weights_dtype: str = "fp32"      # fp32, bf16/fp16 (pure half), nf4/int8 (a quantised base)
    gradient_checkpointing: bool = False
    trainable_fraction: float = 1.0  # 1.0 = full fine-tuning; LoRA/frozen layers: less
    lora_rank: int | None = None
    lora_targets: tuple[str, ...] | None = None  # peft's target_modules; None: q and v
    gpus: int = 1
    strategy: str = "ddp"            # single | ddp | zero1 | zero2 | zero3 | fsdp
    device: str = "cuda"             # cuda | cpu: CPU dropout keeps full-size masks
    attention: str = "auto"          # auto | eager | sdpa | flash_attention_2
    task: str | None = None          # cls | token | qa | lm (or a case task string)
    gradient_accumulation_steps: int = 1
    framework: str = "pytorch"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# --------------------------------------------------------------------------------------------
# Activations
# --------------------------------------------------------------------------------------------
def _attention_materialized(g: ModelGeometry, s: TrainingSetup) -> bool:
    """Whether attention probabilities (b*a*s*s) are kept for backward."""
    impl = s.attention
    if impl == "auto":
        impl = "sdpa"
        if g.model_type in _NO_SDPA_BEFORE_V5 and _transformers_major() < 5:
            impl = "eager"
    if impl == "eager":
        return True
    if impl.startswith("flash"):
        return False
    # sdpa: CUDA uses flash / memory-efficient kernels; CPU falls back to the math kernel when
    # attention dropout is on (measured: BERT/GPT-2 keep s*s tensors, LLaMA with p=0 does not).
    return s.device == "cpu" and g.attention_dropout > 0


def _mixed_fp32_weights(st: TrainingSetup) -> bool:
    return st.precision in ("fp16", "bf16") and st.weights_dtype == "fp32"


def _transformers_major() -> int:
    try:
        from importlib.metadata import version

        return int(version("transformers").split(".")[0])
    except Exception:
        return 5


def _block_bytes(g: ModelGeometry, st: TrainingSetup, b: int, s: int, *, cross: bool = False,
                 kv_len: int | None = None) -> dict[str, float]:
    """Bytes one transformer block saves for backward, split into attention and MLP."""
    e = 2 if st.precision in ("fp16", "bf16") or st.weights_dtype != "fp32" else 4
    # dropout: CUDA keeps a 1-byte mask; CPU multiplies by a full-size noise tensor.
    mask = 1 if st.device != "cpu" else e
    th = b * s * g.hidden
    tq = b * s * g.heads * g.head_dim
    kv_s = kv_len or s
    tkv = b * kv_s * g.kv_heads * g.head_dim
    ti = b * s * g.intermediate
    ta = b * g.heads * s * kv_s
    # norms: LayerNorm keeps its input; the python RMSNorm keeps input and the normalised tensor
    # in fp32 even under autocast. Under autocast with fp32 weights the residual stream (norm
    # inputs and outputs) stays fp32; only the linears' inputs are cast to half.
    res = 4 if _mixed_fp32_weights(st) else e
    norm = 2 * th * 4 if g.rms_norm else th * res
    attn = norm + th * e + (tq + 2 * tkv) * e + tq * e   # norm, q/k/v input, q k v, o_proj input
    if _attention_materialized(g, st):
        attn += ta * e + tq * e                         # softmax output, scaled q copy
        if st.attention == "eager" and _mixed_fp32_weights(st):
            attn += ta * 4                              # softmax(..., dtype=float32) before .to()
        if g.attention_dropout > 0:
            attn += ta * (mask + e)                     # dropout mask + its output
    else:
        attn += tq * e                                  # fused kernel keeps its output
    if g.dropout > 0:
        attn += th * mask
    if cross:
        return {"attention": attn, "mlp": 0.0}
    mlp = norm + th * e
    if g.gated_mlp:
        mlp += 4 * ti * e                               # gate, act(gate), up, act*up
    else:
        mlp += 2 * ti * e + _COMPOSITE_ACTS.get(g.activation, 0) * ti * e
        if g.model_type.startswith(("t5", "mt5", "umt5")) and g.dropout > 0:
            mlp += ti * (mask + e)                      # T5 drops out inside its MLP
    if g.dropout > 0:
        mlp += th * mask
    return {"attention": attn, "mlp": mlp}


def activation_bytes(g: ModelGeometry, st: TrainingSetup, batch_size: int | None = None,
                     seq_len: int | None = None) -> dict[str, int]:
    """Activation memory of one training step: what is saved for backward and the peak extra.

    Returns {"saved": ..., "transient": ...} in bytes. Gradient checkpointing keeps each block's
    input and recomputes one block at a time in backward.
    """
    b = batch_size or st.batch_size
    s = seq_len or st.seq_len
    e = 2 if st.precision in ("fp16", "bf16") or st.weights_dtype != "fp32" else 4
    th = b * s * g.hidden
    blk = _block_bytes(g, st, b, s)
    per_layer = blk["attention"] + blk["mlp"]
    layers = g.layers
    dec_layer = 0.0
    if g.is_encoder_decoder:
        cross = _block_bytes(g, st, b, s, cross=True)["attention"]
        dec_layer = per_layer + cross
    mask = 1 if st.device != "cpu" else e
    res = 4 if _mixed_fp32_weights(st) else e
    embed = th * (res + (mask if g.dropout > 0 else 0)) + th * res  # embeddings, dropout, final norm
    inputs = (layers + g.decoder_layers) * th * e
    body = (inputs if st.gradient_checkpointing
            else layers * per_layer + g.decoder_layers * dec_layer)
    ta = b * g.heads * s * s if _attention_materialized(g, st) else 0
    # backward of one block: a few gradient buffers of its widest tensors
    layer_ws = 2 * b * s * max(g.intermediate, g.hidden) * e + 2 * ta * e
    if st.gradient_checkpointing:   # one block recomputed at a time, after the head's backward
        layer_ws += max(per_layer, dec_layer)
    head = g.head_kind(st.task)
    tokens_out = b * s
    if head == "lm":
        logits = tokens_out * g.vocab
        # saved: lm_head input + log_softmax output (fp32); at the start of backward: the logits
        # a training loop holds (outputs.logits) plus two fp32 gradient buffers of that size.
        saved_head = th * e + logits * 4
        transient = max(logits * (e + 8), layer_ws)
    else:
        width = g.num_labels if head != "qa" else 2
        saved_head = th * e + b * g.hidden * e * 2 + tokens_out * width * 4
        transient = layer_ws
    if g.is_encoder_decoder:
        embed *= 2
    return {"saved": int(body + embed + saved_head), "transient": int(transient),
            "per_layer": int(per_layer)}


# --------------------------------------------------------------------------------------------
# The estimate
# --------------------------------------------------------------------------------------------
@dataclass
class MemoryEstimate:
    """Per-device memory of one training step, by component (bytes), for setup.strategy."""

    model: str
    params: ParamCount
    geometry: ModelGeometry
    setup: TrainingSetup
    components: dict[str, int]
    trainable_params: int
    overhead: int = 0                      # CUDA context: on the card, outside the allocator
    per_strategy: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return int(sum(self.components.values()))

    def fits(self, capacity_bytes: int | None) -> bool | None:
        if not capacity_bytes:
            return None
        return self.total + self.overhead <= capacity_bytes

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "params": self.params.to_dict(),
                "geometry": self.geometry.to_dict(), "setup": self.setup.to_dict(),
                "components": dict(self.components), "total": self.total,
                "total_gib": round(self.total / GiB, 3), "overhead": self.overhead,
                "trainable_params": self.trainable_params,
                "per_strategy": dict(self.per_strategy), "notes": list(self.notes)}


# LoRA target module names (peft's target_modules, across architectures) -> the projection
_LORA_ROLES = {
    "q": ("q_proj", "query", "q", "q_lin", "wq"), "k": ("k_proj", "key", "k", "k_lin", "wk"),
    "v": ("v_proj", "value", "v", "v_lin", "wv"),
    "o": ("o_proj", "out_proj", "o", "out_lin", "dense", "attn.c_proj"),
    "qkv": ("c_attn", "qkv_proj", "query_key_value", "Wqkv", "qkv"),
    "gate": ("gate_proj", "w1"),
    "up": ("up_proj", "fc1", "c_fc", "lin1", "wi", "dense_h_to_4h", "w3", "intermediate.dense"),
    "down": ("down_proj", "fc2", "lin2", "wo", "dense_4h_to_h", "w2", "mlp.c_proj",
             "output.dense"),
}
_ROLE_OF = {name.lower(): role for role, names in _LORA_ROLES.items() for name in names}
_ATTENTION_ROLES = ("q", "k", "v", "o", "qkv")


def lora_roles(g: ModelGeometry, targets: Any = None) -> list[str]:
    """The projections a LoRA config adapts in each block: peft's target_modules as written
    (names, "all-linear"), or the default q and v; an unknown name counts as a square one."""
    if targets is None:
        return ["q", "v"]
    targets = [targets] if isinstance(targets, str) else list(targets)
    if "all-linear" in targets:
        return ["q", "k", "v", "o", *(["gate"] if g.gated_mlp else []), "up", "down"]
    return [_ROLE_OF.get(str(t).lower(), _ROLE_OF.get(str(t).lower().rsplit(".", 1)[-1], "square"))
            for t in targets]


def lora_params(g: ModelGeometry, rank: int, targets: Any = None) -> int:
    """LoRA adapter parameters: r x (in + out) per adapted projection, per block (a decoder
    block of an encoder-decoder counts its cross-attention too)."""
    h, qd, kvd, i = g.hidden, g.heads * g.head_dim, g.kv_heads * g.head_dim, g.intermediate
    shapes = {"q": (h, qd), "k": (h, kvd), "v": (h, kvd), "o": (qd, h), "qkv": (h, qd + 2 * kvd),
              "gate": (h, i), "up": (h, i), "down": (i, h), "square": (h, h)}
    total = 0
    for role in lora_roles(g, targets):
        blocks = g.layers + g.decoder_layers * (2 if role in _ATTENTION_ROLES else 1)
        total += blocks * rank * sum(shapes[role])
    return int(total)


def weight_bytes(params: ParamCount, g: ModelGeometry, st: TrainingSetup) -> int:
    """The weights in memory: every parameter in weights_dtype, or for a quantised base the
    linear layers at QUANT_BYTES and the rest (embeddings, an untied head) in fp32, as peft's
    prepare_model_for_kbit_training leaves them."""
    if st.weights_dtype not in QUANT_BYTES:
        return int(params.total * DTYPE_BYTES.get(st.weights_dtype, 4))
    kept = min(params.total, g.vocab * g.hidden * (1 if g.tie_embeddings else 2))
    return int((params.total - kept) * QUANT_BYTES[st.weights_dtype] + kept * 4)


def trainable_count(params: ParamCount, g: ModelGeometry, st: TrainingSetup) -> int:
    if st.lora_rank:
        head = g.hidden * g.num_labels if g.head_kind(st.task) != "lm" else 0
        return lora_params(g, st.lora_rank, st.lora_targets) + head
    return int(params.total * max(0.0, min(1.0, st.trainable_fraction)))


def _optimizer_bytes(params: ParamCount, g: ModelGeometry, st: TrainingSetup, pt: int) -> int:
    spec = optimizer_state(st.optimizer)
    wb = DTYPE_BYTES.get(st.weights_dtype, 4)
    if spec.state_bytes is not None:
        return int(pt * spec.state_bytes)
    if spec.factored:
        frac = pt / params.total if params.total else 1.0
        fact = params.factored_elements or (
            (g.layers + 2 * g.decoder_layers) * (8 * g.hidden + 2 * (g.hidden + g.intermediate))
            + g.vocab + g.hidden)
        return int(fact * frac * 4 + pt * spec.state_copies * 4)
    return int(pt * spec.state_copies * wb)


def _strategy_components(params: ParamCount, g: ModelGeometry, st: TrainingSetup,
                         strategy: str, n: int) -> dict[str, int]:
    p, pt = params.total, trainable_count(params, g, st)
    wb = DTYPE_BYTES.get(st.weights_dtype, 4)
    mixed = st.precision in ("fp16", "bf16")
    act = activation_bytes(g, st)
    spec = optimizer_state(st.optimizer)
    quantised = st.weights_dtype in QUANT_BYTES
    weights, grads = weight_bytes(params, g, st), pt * wb
    half_copy = pt * 2 if mixed and wb == 4 else 0       # autocast's cached half weights
    opt = _optimizer_bytes(params, g, st, pt)
    extra: dict[str, int] = {}
    n = max(1, n)
    if strategy in ("zero1", "zero2", "zero3"):
        if mixed and wb == 4 and not quantised:   # DeepSpeed: half weights and grads, fp32 master inside the optimizer
            weights, grads, half_copy = p * 2, pt * 2, 0
            opt += pt * 4
        opt //= n
        if strategy in ("zero2", "zero3"):
            grads //= n
        if strategy == "zero3":
            weights //= n
    elif strategy == "fsdp":
        weights, grads, opt = weights // n, grads // n, opt // n
        half_copy = 0
    if strategy in ("zero3", "fsdp") and n > 1:
        layer = max((p - g.vocab * g.hidden) // max(1, g.layers + g.decoder_layers), 1)
        extra["gathered_params"] = int(2 * max(layer, g.vocab * g.hidden) * (2 if mixed else wb))
    if strategy == "ddp" and n > 1:
        extra["ddp_buckets"] = int(pt * wb)
    # optimizer step: CUDA's foreach Adam makes one full-size temporary; CPU works per tensor.
    if spec.state_bytes is None and spec.state_copies >= 2 and not spec.factored:
        temp = pt * wb if st.device != "cpu" else 2 * params.largest_tensor * wb
        temp //= n if strategy in ("zero1", "zero2", "zero3", "fsdp") else 1
    else:
        temp = 0
    # The peak: PyTorch frees saved activations during backward while it allocates gradients
    # (zero_grad(set_to_none=True), the default since 2.0), so the two peak at different times:
    # activations at the start of backward, gradients at the optimizer step (plus its
    # temporaries). Keras computes every gradient while the tape still holds the activations.
    resident = grads if st.framework == "tensorflow" else 0
    act_peak = act["saved"] + act["transient"] + resident
    step_peak = grads + temp
    comps = {"weights": int(weights), "weights_half_copy": int(half_copy),
             "gradients": int(grads), "optimizer": int(opt),
             "activations": int(act["saved"]), "backward_workspace": int(act["transient"])}
    comps.update(extra)
    adjust = max(act_peak, step_peak) - (grads + act["saved"] + act["transient"])
    comps["optimizer_step_temp"] = int(max(adjust, 0))
    comps["overlap"] = int(min(adjust, 0))   # never resident at once (<= 0)
    return comps


def estimate_memory(params: ParamCount, geometry: ModelGeometry, setup: TrainingSetup | None = None,
                    model: str = "") -> MemoryEstimate:
    """The breakdown for one device of the run described by `setup`, and every strategy's total."""
    st = setup or TrainingSetup()
    n = max(1, st.gpus)
    strategy = st.strategy if n > 1 else "single"
    comps = _strategy_components(params, geometry, st, strategy, n)
    per = {s: int(sum(_strategy_components(params, geometry, st, s, n).values()))
           for s in (STRATEGIES if n > 1 else ("single",))}
    notes = []
    if params.source == "analytic":
        notes.append("no weights or torch model available: parameters estimated from the config")
    spec = optimizer_state(st.optimizer)
    if spec.note:
        notes.append(spec.note)
    if st.framework == "tensorflow":
        notes.append("Keras keeps activations on its GradientTape much like autograd; "
                     "the figures are the PyTorch ones")
    if _attention_materialized(geometry, st):
        notes.append("attention keeps batch*heads*seq^2 probabilities (eager or CPU math kernel)")
    return MemoryEstimate(model=model, params=params, geometry=geometry, setup=st,
                          components=comps, trainable_params=trainable_count(params, geometry, st),
                          overhead=CUDA_CONTEXT_BYTES if st.device == "cuda" else 0,
                          per_strategy=per, notes=notes)


def estimate_model(model: str | Path, setup: TrainingSetup | None = None, *,
                   revision: str | None = None, endpoint: str | None = None,
                   token: str | bool | None = None) -> MemoryEstimate:
    """Estimate from metadata only: config.json plus weight headers (or the meta-device model)."""
    config, config_file = read_config(model, revision, endpoint, token)
    geometry = ModelGeometry.from_config(config)
    st = setup or TrainingSetup()
    task = geometry.head_kind(st.task)
    params = resolve_params(model, config, config_file, task, revision, endpoint, token)
    return estimate_memory(params, geometry, st, model=str(model))


def sharding_table(est: MemoryEstimate, gpus: tuple[int, ...] = (1, 2, 4, 8)) -> dict[str, dict[int, int]]:
    """Per-GPU totals for each strategy and GPU count: what would fit where."""
    table: dict[str, dict[int, int]] = {}
    for strat in STRATEGIES[1:]:
        table[strat] = {n: int(sum(_strategy_components(est.params, est.geometry, est.setup,
                                                        strat if n > 1 else "single", n).values()))
                        for n in gpus}
    return table


def largest_batch_by_estimate(est: MemoryEstimate, capacity_bytes: int) -> int:
    """The largest per-device batch the estimate says fits (activations grow linearly with it)."""
    def total(b: int) -> int:
        e = estimate_memory(est.params, est.geometry, replace(est.setup, batch_size=b), est.model)
        return e.total + e.overhead
    t1, t2 = total(1), total(2)
    if t1 > capacity_bytes:
        return 0
    slope = max(t2 - t1, 1)
    b = int(1 + (capacity_bytes - t1) // slope)
    while b > 1 and total(b) > capacity_bytes:
        b -= max(1, b // 50)
    return b


# --------------------------------------------------------------------------------------------
# Advice
# --------------------------------------------------------------------------------------------
SMALLER = {"bert": "distilbert-base-uncased", "roberta": "distilroberta-base",
           "gpt2": "distilgpt2", "t5": "t5-small", "bart": "sshleifer/distilbart-cnn-6-6",
           "xlm-roberta": "distilbert-base-multilingual-cased",
           "deberta-v2": "microsoft/deberta-v3-small", "llama": "meta-llama/Llama-3.2-1B",
           "mistral": "a 1-3B checkpoint of the same family", "qwen2": "Qwen/Qwen2.5-0.5B",
           "distilbert": "a 4-layer DistilBERT-style checkpoint"}


@dataclass
class Advice:
    """One change, the estimate after it, and the code to make it."""

    key: str
    action: str
    code: str
    total: int
    saving: int
    fits: bool | None = None
    changes: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["total_gib"] = round(self.total / GiB, 3)
        return d


def _halved_params(params: ParamCount, g: ModelGeometry) -> tuple[ParamCount, ModelGeometry]:
    emb = g.vocab * g.hidden
    body = max(params.total - emb, 0)
    p2 = replace(params, total=emb + body // 2, by_dtype={}, source=params.source + "-halved",
                 factored_elements=params.factored_elements // 2)
    g2 = replace(g, layers=max(1, g.layers // 2), decoder_layers=g.decoder_layers // 2)
    return p2, g2


def smaller_batch_code(framework: str, batch: int, accumulation: int) -> str:
    """The fix to paste for a smaller per-step batch that keeps the effective batch."""
    if framework == "tensorflow":
        return (f"tf_train = ds.to_tf_dataset(columns=..., batch_size={batch}, shuffle=True)\n"
                f"# or an existing tf.data pipeline: tf_train = tf_dataset.rebatch({batch})\n"
                "model.fit(tf_train, ...)\n"
                f"# keep the effective batch: accumulate {accumulation} steps in a custom "
                "train_step (transformers.GradientAccumulator holds the sums) or lower the "
                "learning rate with the batch")
    return (f"TrainingArguments(..., per_device_train_batch_size={batch}, "
            f"gradient_accumulation_steps={accumulation})")


def _code(key: str, st: TrainingSetup, g: ModelGeometry, extra: dict[str, Any]) -> str:
    keras = st.framework == "tensorflow"
    if key == "halve-batch":
        return smaller_batch_code(st.framework, extra["batch_size"],
                                  extra["gradient_accumulation_steps"])
    if key == "mixed-precision":
        if keras:
            return ("import tf_keras as keras\n"
                    "keras.mixed_precision.set_global_policy('mixed_float16')")
        return ("TrainingArguments(..., bf16=True)   # Ampere or newer; fp16=True on older GPUs\n"
                "# plain loop: with torch.autocast('cuda', dtype=torch.bfloat16): loss = model(**batch).loss")
    if key == "gradient-checkpointing":
        return ("model.gradient_checkpointing_enable()\n"
                "# or TrainingArguments(..., gradient_checkpointing=True)")
    if key == "shorter-max-length":
        return (f"tokenizer(batch['text'], truncation=True, max_length={extra['seq_len']})\n"
                "# and pad per batch: DataCollatorWithPadding(tokenizer)")
    if key == "8bit-optimizer":
        return ("# pip install bitsandbytes\n"
                "TrainingArguments(..., optim='adamw_bnb_8bit')\n"
                "# plain loop: bnb.optim.AdamW8bit(model.parameters(), lr=2e-5)")
    if key == "lora":
        return ("# pip install peft\nfrom peft import LoraConfig, get_peft_model\n"
                f"model = get_peft_model(model, LoraConfig(r={extra['lora_rank']}, lora_alpha=16, "
                "target_modules='all-linear', lora_dropout=0.05))\nmodel.print_trainable_parameters()")
    if key == "smaller-checkpoint":
        name = SMALLER.get(g.model_type, "a checkpoint with half the layers")
        auto = {"cls": "AutoModelForSequenceClassification", "token":
                "AutoModelForTokenClassification", "qa": "AutoModelForQuestionAnswering"}.get(
            g.head_kind(st.task),
            "AutoModelForSeq2SeqLM" if g.is_encoder_decoder else "AutoModelForCausalLM")
        if keras:
            auto = "TF" + auto
        return f"model = {auto}.from_pretrained({name!r})"
    if key == "shard":
        n = extra["gpus"]
        return (f"accelerate launch --num_processes {n} --use_fsdp "
                "--fsdp_sharding_strategy FULL_SHARD train.py\n"
                f"# or DeepSpeed ZeRO-3: TrainingArguments(..., deepspeed='ds_zero3.json') on {n} GPUs")
    return ""


def advise(est: MemoryEstimate, capacity_bytes: int | None = None) -> list[Advice]:
    """Changes ranked by how much memory each saves, with the new estimate for each."""
    st, g, p = est.setup, est.geometry, est.params
    base = est.total + est.overhead
    keras = st.framework == "tensorflow"
    options: list[tuple[str, str, TrainingSetup, ParamCount, ModelGeometry, dict[str, Any]]] = []
    if st.batch_size > 1:
        b = st.batch_size // 2
        ch = {"batch_size": b, "gradient_accumulation_steps": st.gradient_accumulation_steps * 2}
        options.append(("halve-batch", f"Halve the batch to {b} and accumulate gradients over "
                        f"{ch['gradient_accumulation_steps']} steps (same effective batch)",
                        replace(st, **ch), p, g, ch))
    if st.precision == "fp32":
        options.append(("mixed-precision", "Train in mixed precision (bf16, or fp16 on pre-Ampere "
                        "GPUs)", replace(st, precision="bf16"), p, g, {"precision": "bf16"}))
    if not st.gradient_checkpointing and not keras:
        options.append(("gradient-checkpointing", "Turn on gradient checkpointing (about 20-30 % "
                        "slower)", replace(st, gradient_checkpointing=True), p, g,
                        {"gradient_checkpointing": True}))
    if st.seq_len > 64:
        s = st.seq_len // 2
        options.append(("shorter-max-length", f"Truncate to max_length={s}",
                        replace(st, seq_len=s), p, g, {"seq_len": s}))
    spec = optimizer_state(st.optimizer)
    if spec.state_bytes is None and spec.state_copies >= 2 and not keras:
        options.append(("8bit-optimizer", "Use an 8-bit optimizer (bitsandbytes AdamW8bit)",
                        replace(st, optimizer="adamw_bnb_8bit"), p, g,
                        {"optimizer": "adamw_bnb_8bit"}))
    if not st.lora_rank and st.trainable_fraction > 0.2 and not keras:
        options.append(("lora", "Fine-tune LoRA adapters (r=8) instead of all weights",
                        replace(st, lora_rank=8), p, g, {"lora_rank": 8}))
    if g.layers >= 4:
        p2, g2 = _halved_params(p, g)
        options.append(("smaller-checkpoint", "Start from a smaller checkpoint (half the layers, "
                        f"e.g. {SMALLER.get(g.model_type, 'a distilled variant')})", st, p2, g2,
                        {"model": SMALLER.get(g.model_type)}))
    if not keras:
        choices = [st.gpus] if st.gpus > 1 else [2, 4, 8]
        pick = choices[0]
        for n in choices if capacity_bytes else []:
            e = estimate_memory(p, g, replace(st, gpus=n, strategy="fsdp"))
            pick = n
            if e.total + e.overhead <= capacity_bytes:
                break
        options.append(("shard", f"Shard weights, gradients and optimizer over {pick} GPUs "
                        "(FSDP FULL_SHARD / ZeRO-3)", replace(st, gpus=pick, strategy="fsdp"), p, g,
                        {"gpus": pick, "strategy": "fsdp"}))
    out = []
    for key, action, st2, p2, g2, ch in options:
        e = estimate_memory(p2, g2, st2, est.model)
        total = e.total + e.overhead
        out.append(Advice(key, action, _code(key, st, g, {**ch, "gpus": st2.gpus,
                                                          "seq_len": st2.seq_len}),
                          total, base - total,
                          None if not capacity_bytes else total <= capacity_bytes, ch))
    out.sort(key=lambda a: -a.saving)
    return [a for a in out if a.saving > 0]


def combined_fix(est: MemoryEstimate, capacity_bytes: int) -> Advice | None:
    """Apply the ranked changes one after another until the estimate fits; None if nothing does."""
    st, p, g = est.setup, est.params, est.geometry
    applied: list[str] = []
    changes: dict[str, Any] = {}
    for adv in advise(est, capacity_bytes):
        if adv.key in ("smaller-checkpoint", "shard"):
            continue
        ch = dict(adv.changes)
        if adv.key == "halve-batch":
            ch = {"batch_size": max(1, st.batch_size // 2),
                  "gradient_accumulation_steps": st.gradient_accumulation_steps * 2}
        st = replace(st, **ch)
        changes.update(ch)
        applied.append(adv.key)
        e = estimate_memory(p, g, st, est.model)
        if e.total + e.overhead <= capacity_bytes:
            codes = "\n".join(_code(k, est.setup, g, {**changes, "gpus": st.gpus,
                                                      "seq_len": st.seq_len,
                                                      "batch_size": st.batch_size,
                                                      "gradient_accumulation_steps":
                                                      st.gradient_accumulation_steps,
                                                      "lora_rank": st.lora_rank or 8})
                              for k in applied)
            total = e.total + e.overhead
            return Advice("combined", " + ".join(applied), codes, total,
                          est.total + est.overhead - total, True, changes)
    return None


# --------------------------------------------------------------------------------------------
# Largest batch search (the logic; the probe supplies an isolated `fits`)
# --------------------------------------------------------------------------------------------
@dataclass
class BatchSearch:
    largest: int                       # 0: not even batch 1 fits
    first_failure: int | None          # smallest batch seen failing
    attempts: list[tuple[int, bool]] = field(default_factory=list)

    @property
    def exact(self) -> bool:
        return self.first_failure is not None and self.first_failure - self.largest <= 1

    def to_dict(self) -> dict[str, Any]:
        return {"largest": self.largest, "first_failure": self.first_failure,
                "attempts": [list(a) for a in self.attempts], "exact": self.exact}


def find_largest_batch(fits: Callable[[int], bool], start: int, limit: int | None = None,
                       max_attempts: int = 16) -> BatchSearch:
    """Halve from `start` until a batch fits (as accelerate's find_executable_batch_size does),
    or double up to `limit` while it fits, then bisect between the last fit and the first failure.
    """
    attempts: list[tuple[int, bool]] = []

    def run(b: int) -> bool:
        ok = bool(fits(b))
        attempts.append((b, ok))
        return ok

    start = max(1, int(start))
    lo, hi = 0, None
    if run(start):
        lo = start
        while (limit is None or lo < limit) and len(attempts) < max_attempts:
            nxt = lo * 2 if limit is None else min(lo * 2, limit)
            if run(nxt):
                lo = nxt
            else:
                hi = nxt
                break
    else:
        hi = b = start
        while b > 1 and len(attempts) < max_attempts:
            b //= 2
            if run(b):
                lo = b
                break
            hi = b
    if lo == 0 or hi is None:
        return BatchSearch(lo, hi, attempts)
    while hi - lo > 1 and len(attempts) < max_attempts:
        mid = (lo + hi) // 2
        if run(mid):
            lo = mid
        else:
            hi = mid
    return BatchSearch(lo, hi, attempts)
