"""Warnings of the attention implementations that fine-tuning runs print and people take for the
error: FlashAttention-2 on a float32 or CPU-built model, SDPA falling back for attention weights
or sliding windows, use_reentrant, the tuple cache's deprecation, Phi-3's and Gemma 3's advice.
Each is benign (the real error, if any, is elsewhere in the paste)."""
from __future__ import annotations

from wizard.triage.signature import Signature, signature_maker

_a = signature_maker(0)


ATTENTION_SIGNATURES: list[Signature] = [
    _a("flash-attention-float32-warning",
       r"Flash Attention 2(?:\.0)? only supports torch\.float16 and torch\.bfloat16 dtypes, but "
       r"the current dt?ype in \w{1,80} is torch\.float32",
       "A warning: the model is built in float32 with attn_implementation='flash_attention_2' "
       "(FSDP/DeepSpeed master weights, RL actors); under bf16/fp16 autocast the kernels still "
       "get half precision. Only without autocast is it a fault.",
       "FlashAttention-2 kernels take fp16/bf16; autocast casts the activations.", [],
       "# harmless under bf16/fp16 autocast; otherwise load in half precision:\n"
       "AutoModelForCausalLM.from_pretrained(name, attn_implementation='flash_attention_2', "
       "torch_dtype=torch.bfloat16)", title="FlashAttention-2 on a float32 model (a warning)",
       benign=True),
    _a("flash-attention-model-on-cpu-warning",
       r"You are attempting to use Flash Attention 2(?:\.0)? with a model not initialized on GPU",
       "A warning at loading: the model is built on the CPU (as DeepSpeed ZeRO-3, FSDP and Ray "
       "trainers do before sharding it onto the GPUs); harmless once it is on the GPU.",
       "transformers checks the device when the attention is chosen, before training moves it.",
       [], "AutoModelForCausalLM.from_pretrained(name, attn_implementation='flash_attention_2', "
       "torch_dtype=torch.bfloat16, device_map={'': 0})   # silences it without ZeRO-3",
       title="FlashAttention-2 on a CPU-built model (a warning)", benign=True),
    _a("use-reentrant-warning",
       r"please pass in use_reentrant=True or use_reentrant=False explicitly|calling checkpoint "
       r"without use_reentrant will raise an exception",
       "A PyTorch (>= 2.1) deprecation warning: gradient checkpointing calls "
       "torch.utils.checkpoint without use_reentrant (transformers before 4.37, or the Trainer "
       "before 4.45, did not pass it). Training is not affected.",
       "PyTorch will change the default to use_reentrant=False.", [],
       "TrainingArguments(..., gradient_checkpointing=True, "
       "gradient_checkpointing_kwargs={'use_reentrant': False})",
       title="use_reentrant not passed (a warning)", benign=True),
    _a("sliding-window-sdpa-warning",
       r"Sliding Window Attention is enabled but not implemented for `?\w{1,40}`?",
       "A warning that transformers 4.49 printed for Qwen2-family models whose config has a "
       "sliding_window size but use_sliding_window false: no sliding window is used (fixed in "
       "4.50). Only a model that really uses one needs flash_attention_2.",
       "Qwen2 configs carry a window size even when it is off.", [],
       "pip install -U \"transformers>=4.50\"   # the warning only when use_sliding_window is "
       "true", title="Sliding window with sdpa (a warning)", benign=True),
    _a("tuple-cache-deprecation-warning",
       r"passing `?past_key_values`? as a tuple (?:of tuples )?(?:and )?this is deprecated|"
       r"Passing a tuple of `?past_key_values`? is deprecated",
       "A deprecation warning of transformers 4.42-4.44, printed even when no cache is passed "
       "(evaluation in SFTTrainer, a plain forward with use_cache on). Training is unaffected.",
       "The models moved from tuple caches to Cache classes.", [],
       "model.config.use_cache = False   # while training\n# or: pip install -U "
       "\"transformers>=4.45\"", title="The tuple cache's deprecation (a warning)", benign=True),
    _a("remote-code-without-flash-attention-warning",
       r"You are not running the flash-attention implementation, expect numerical differences",
       "A warning of Phi-3's own modeling code: flash-attn is not installed (or the GPU is older "
       "than Ampere), so eager attention runs. Fine-tuning and inference work.",
       "The model code prefers flash-attn when it can import it.", [],
       "# nothing to fix; on an Ampere or newer GPU: pip install flash-attn "
       "--no-build-isolation", title="Not running flash-attention (a warning)", benign=True),
    _a("gemma3-eager-attention-warning",
       r"strongly recommended to train Gemma3 models with the `?eager`? attention",
       "A warning copied from Gemma 2's advice: Gemma 3 has no attention soft-capping, so sdpa "
       "and flash attention train it correctly.", "Gemma 2's cap needed eager; Gemma 3's QK "
       "norm does not.", [],
       "AutoModelForCausalLM.from_pretrained(name, attn_implementation='eager')   # silences it",
       title="Gemma 3 and eager attention (a warning)", benign=True),
    _a("sdpa-output-attentions-fallback-warning",
       r"does not support `?output_attentions=True`?[^\n]{0,80}\. Falling back to the manual "
       r"attention implementation",
       "A warning: attention weights were asked for (output_attentions=True) from a model "
       "running SDPA, which cannot return them; that call falls back to eager. Results are the "
       "same.", "SDPA's fused kernel computes no attention matrix.", [],
       "AutoModelForCausalLM.from_pretrained(name, attn_implementation='eager')   # when you "
       "need attention weights", title="SDPA falls back for attention weights (a warning)",
       benign=True),
]
