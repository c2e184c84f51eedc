"""Errors of serving or running a fine-tuned model outside transformers: vLLM and SGLang (tensor
parallel sizes, unsupported architectures, context lengths, out-of-vocabulary ids, quantization
flags, memory at start-up), Ollama, llama.cpp and mlx-lm (architectures a runtime does not know,
GGUF files newer than the runtime, converters that do not know the tokenizer), Gradio (behind a
proxy, with a pydantic it does not read), text-generation-inference (warm-up, sharding, CPUs
without AVX), ZeroGPU (quota, CUDA in the main process), and accelerator stacks outside CUDA
(IPEX, Gaudi)."""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.env_answers import BINARY, OLD, SETUP, answer
from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature, signature_maker

# a volume of `docker run`: -v HOST:CONTAINER (or --volume)
_VOLUME = re.compile(r"(?:-v|--volume)[ =]\s*(?P<host>[^\s:]+):(?P<inside>/[^\s:]*)")


def refine_vllm_architecture(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A task class vLLM's registry lacks, with no import failure printed and no headless save:
    the installed vLLM predates its support. A class the printed list of supported ones holds
    failed to load (the import error above it)."""
    arch = re.search(r"Model architectures \[(?P<arch>[^\]\n]{1,200})\]", parsed.text)
    names = re.findall(r"\w+", arch.group("arch")) if arch else []
    listed = re.search(r"Supported architectures: \[(?P<list>[^\]]*)", parsed.text)
    supported = set(re.findall(r"\w+", listed.group("list"))) if listed else set()
    if not names or re.search(r"\b(?:ImportError|ModuleNotFoundError)\b", parsed.text) or \
            any(re.fullmatch(r"\w+Model", n) for n in names) or supported & set(names):
        return None
    return answer(OLD, "vllm", f"The installed vLLM has no model class for {', '.join(names)} in "
                  "its registry: vLLM supports architectures release by release, and this one "
                  "came later (or not yet).", "pip install -U vllm   # then check the supported "
                  "models list of that release\n# not there yet: vllm serve MODEL "
                  "--model-impl transformers", ev)


def refine_container_path(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A host path given to a program in a container: the container sees only its volumes. A
    path inside a mounted volume's container side is there (another cause)."""
    path = next((v for k, v in ev.items() if k.startswith("path") and v), "")
    mounts = [(m.group("host"), m.group("inside")) for m in _VOLUME.finditer(parsed.text)]
    if any(path == inside or path.startswith(inside.rstrip("/") + "/") for _, inside in mounts):
        return {"reject": True}
    if mounts:
        host, inside = mounts[0]
        return {"cause": f"The program runs in a container, which sees only the folders mounted "
                         f"into it (-v {host}:{inside}); {path} is a path on the host, so inside "
                         "the container it does not exist (and a model id that is no folder is "
                         "taken for a Hub repository name).",
                "fix": f"docker run ... -v <the folder holding the model>:{inside} ... --model-id "
                       f"{inside}/<its subfolder>   # a path as the container sees it"}
    return None

_r = signature_maker(14)


SERVING_SIGNATURES: list[Signature] = [
    _r("vllm-batched-tokens-below-mm-item",
       r"max_tokens_per_mm_item \((?P<item>\d+)\) is larger than max_num_batched_tokens "
       r"\((?P<batched>\d+)\)",
       "vLLM's token budget per step (max_num_batched_tokens) is smaller than one multimodal "
       "item (an image or video's tokens), and chunked multimodal input is off.",
       "One image's tokens must fit in one step when they cannot be split.", ["memory.estimate"],
       "vllm serve MODEL --max-num-batched-tokens 8192   # above the largest item",
       title="vLLM's step budget below one image"),
    _r("ollama-file-not-gguf",
       r"Error: invalid file magic",
       "ollama create read the file FROM names as GGUF and it is not one: a safetensors or "
       "PyTorch checkpoint of an architecture this ollama release cannot convert itself (its "
       "converter knows a few families), or an adapter that is not GGUF.",
       "ollama runs GGUF files; it converts only the safetensors architectures its release "
       "supports.", ["environment.package-versions"],
       "python llama.cpp/convert_hf_to_gguf.py ./model --outfile model.gguf   # then in the "
       "Modelfile: FROM ./model.gguf\n# or a newer ollama, which converts more architectures",
       title="ollama was given a file that is not GGUF",
       requires=r"(?i)ollama|Modelfile"),
    _r("container-path-not-mounted",
       r"Repo id must be in the form 'repo_name' or 'namespace/repo_name': '(?P<path>/[^'\n]+)'|"
       r"No such file or directory: '(?P<path2>/[^'\n]+)'|"
       r"(?:path|folder|directory) (?P<path3>/[^\s'\n]+) (?:does not exist|not found)|"
       r"(?<![\w/])(?P<path4>/(?:home|root|mnt|workspace|Users|opt|srv)/[^\s'\n]+) (?:does not "
       r"exist|not found)",
       "A path on the host was given to a program running in a container (docker run): the "
       "container sees only the folders mounted into it, so the path does not exist there.",
       "A container has its own filesystem; `-v HOST:CONTAINER` makes a host folder visible at "
       "the container path.", ["environment.model-not-found"],
       "docker run ... -v /path/to/models:/data ... --model-id /data/<model folder>",
       title="A host path inside a container", refine=refine_container_path,
       requires=r"\bdocker run\b|\[x\] Docker\b|\bpodman run\b"),
    _r("tensor-parallel-not-dividing-heads",
       r"(?:Total number of attention heads|number of (?:key-value|kv) heads)[^\n]{0,80}must be "
       r"divisible by tensor parallel size",
       "The tensor parallel size does not divide the model's attention heads (or key-value "
       "heads): vLLM splits heads evenly across the GPUs.",
       "Each GPU holds an equal share of the heads.", ["environment.device"],
       "vllm serve MODEL --tensor-parallel-size 2   # a divisor of num_attention_heads and "
       "num_key_value_heads (config.json)", title="A tensor parallel size that does not divide "
       "the heads"),
    _r("tensor-parallel-size-not-divisor",
       r"input size is not aligned with the quantized weight shape",
       "The tensor parallel size does not divide the quantized layers' shapes: each GPU takes "
       "an equal slice of every weight, and an AWQ/GPTQ weight splits only along its groups.",
       "Each GPU holds an equal share of every layer, in whole quantization groups.",
       ["environment.device"],
       "vllm serve MODEL --tensor-parallel-size 2   # a size that divides intermediate_size / "
       "group_size\n# or pad intermediate_size before quantizing the fine-tuned model",
       title="A tensor parallel size that does not divide the quantized weights"),
    _r("serving-quantization-flags-missing",
       r"KeyError: '[\w.]+\.(?:absmax|nested_absmax|quant_map|quant_state[\w.]*|SCB)'",
       "vLLM loads a bitsandbytes-quantized checkpoint as plain weights: without being told the "
       "format, its loader meets bitsandbytes' quantization tensors (absmax, quant_state) it has "
       "no place for.", "vLLM picks the loader from its flags, not from the checkpoint.",
       ["environment.package-versions"],
       "vllm serve CKPT --quantization bitsandbytes --load-format bitsandbytes\n"
       "# Python: LLM(model=CKPT, quantization='bitsandbytes', load_format='bitsandbytes')",
       title="A bitsandbytes checkpoint served without its flags",
       requires=r"\bvllm\b"),
    _r("vllm-architecture-not-loaded",
       r"are not supported for now\. Supported architectures:|Model architectures "
       r"\[(?P<arch>[^\]\n]{1,200})\] are not supported for no",
       "vLLM could not use the checkpoint's architecture: usually importing its model class "
       "failed (the real ImportError is printed just above, e.g. a flash-attn build), or the "
       "saved config names a headless class (LlamaModel, not LlamaForCausalLM).",
       "vLLM maps config.architectures to its own model classes.",
       ["environment.package-versions"],
       "# read the error printed above this line; then e.g.: pip install -U vllm\n# a headless "
       "save: save the ...ForCausalLM (config.architectures)",
       title="vLLM does not load the architecture", refine=refine_vllm_architecture),
    _r("serving-context-longer-than-model",
       r"is greater than the derived max_model_len|is longer than the maximum model length of",
       "The serving context does not fit: --max-model-len asks for more than the checkpoint's "
       "max_position_embeddings, or a prompt is longer than the max_model_len the server runs "
       "with.", "vLLM sizes positions and the KV cache by max_model_len.",
       ["data.sequence-longer-than-positions"],
       "vllm serve CKPT --max-model-len 8192   # <= max_position_embeddings; prompts + "
       "max_tokens within it", family="sequence-longer-than-max",
       title="A context longer than the model's"),
    _r("generated-id-out-of-vocabulary",
       r"Token id \d+ is out of vocabulary",
       "The model produced an id beyond the tokenizer's vocabulary: its embedding is padded "
       "past the tokenizer (untrained rows), often reached through a chat template the model "
       "was not trained with.", "Padded embedding rows have no token.",
       ["data.chat-template-mismatch"],
       "# serve with the chat template the model was trained with;\n# or resize the embeddings "
       "to len(tokenizer) before saving", title="A generated id outside the vocabulary"),
    _r("served-tokenizer-without-chat-template",
       r"default chat template is no longer allowed, so you must provide a chat template",
       "The fine-tuned tokenizer has no chat_template (a base model's, or saved without it), "
       "and transformers 4.44 and later no longer fall back to a default.",
       "The chat endpoint formats messages with the tokenizer's template.",
       ["data.chat-template-missing"],
       "vllm serve CKPT --chat-template ./template.jinja\n# or save it with the fine-tune: "
       "tokenizer.chat_template = base_tokenizer.chat_template; tokenizer.save_pretrained(out)",
       family="chat-template-not-set", title="No chat template to serve with"),
    _r("serving-quantization-flag-mismatch",
       r"does not match the quantization method specified in the `?quantization`? argument",
       "--quantization names another method than the checkpoint's quantization_config.",
       "vLLM reads the method from the checkpoint.", ["environment.package-versions"],
       "vllm serve CKPT   # drop --quantization: the checkpoint's config decides",
       title="A quantization flag that contradicts the checkpoint"),
    _r("serving-memory-at-startup",
       r"Not enough memory\. Please try to increase --mem-fraction-static|on startup is less "
       r"than desired GPU memory utilization",
       "The server cannot reserve the memory it is told to at start-up: SGLang's static "
       "fraction is too small for the weights and cache, or vLLM's gpu_memory_utilization asks "
       "for more than is free (another process holds the GPU).",
       "Both servers reserve a fixed share of the GPU before serving.",
       ["memory.gpu-held-by-other-process"],
       "python -m sglang.launch_server --model-path CKPT --mem-fraction-static 0.9\n"
       "LLM(model=ckpt, gpu_memory_utilization=0.6)   # <= the free share; or free the GPU",
       title="Not enough GPU memory at start-up"),
    _r("runtime-architecture-unsupported",
       r"Error: unsupported architecture|error=\"?unsupported architecture|Model type "
       r"[\w.-]{1,60} not supported\.",
       "The local runtime (Ollama importing safetensors, mlx-lm, LM Studio's MLX engine) does not "
       "know this architecture yet.", "Each runtime implements architectures one by one.",
       ["environment.package-versions"],
       "python llama.cpp/convert_hf_to_gguf.py ./merged --outfile model.gguf   # then FROM "
       "./model.gguf in the Modelfile\n# mlx: pip install -U mlx-lm", family=OLD,
       title="An architecture the runtime does not know", priority=18),
    _r("gguf-newer-than-runtime",
       r"create_tensor: tensor '[^'\n]{1,120}' not found|BPE pre-tokenizer was not recognized",
       "The GGUF and the llama.cpp that reads (or writes) it disagree: the runtime is older than "
       "the converter that wrote the file, or the converter is older than the model's "
       "tokenizer.", "GGUF tensor names and pre-tokenizers are added release by release.",
       ["environment.package-versions"],
       "git -C llama.cpp pull && pip install -r llama.cpp/requirements.txt   # convert and run "
       "with one recent llama.cpp\n# Ollama / LM Studio: update the app", family=OLD,
       title="A GGUF and a llama.cpp of different ages"),
    _r("mlx-parameters-not-in-model",
       r"Received parameters not in model",
       "The weights hold parameters the installed mlx-lm's model class lacks: an older mlx-lm "
       "(or mlx-examples' lora.py) that implements another variant of the architecture.",
       "mlx-lm loads weights strictly.", ["environment.package-versions"],
       "pip install -U mlx mlx-lm\nmlx_lm.lora --train --model <repo> --data ./data",
       family=OLD, title="mlx-lm older than the model"),
    _r("ipex-torch-mismatch",
       r"Intel(?:®|\(R\))? Extension for PyTorch\*? needs to work with PyTorch [\d.*]+, but "
       r"PyTorch \S+ is found", "The installed Intel Extension for PyTorch was built for another torch "
       "release.", "IPEX pins the torch minor release it was built against.",
       ["environment.package-versions"],
       "pip install \"torch==<the release IPEX names>\"   # or the IPEX release for your torch",
       family=BINARY, title="IPEX and torch releases differ"),
    _r("gaudi-stack-missing",
       r"No module named '?habana_frameworks",
       "habana_frameworks ships with the Gaudi software stack (SynapseAI), not with pip: the "
       "code runs outside the Gaudi container (or on a machine without Gaudi).",
       "optimum-habana needs the SynapseAI release its version was validated with.",
       ["environment.device"],
       "docker run -it --runtime=habana vault.habana.ai/gaudi-docker/<SynapseAI version>/...   # "
       "the image matching optimum-habana", family=SETUP, title="The Gaudi stack is missing",
       priority=20),
    _r("gradio-pydantic-schema",
       r"argument of type 'bool' is not iterable",
       "gradio_client cannot read the JSON schemas pydantic 2.11 writes (a boolean where it "
       "expects a dict), so building the app's API info fails.",
       "Older gradio_client walks the schema expecting dicts.", ["environment.package-versions"],
       "pip install -U gradio   # or pin: pip install \"pydantic==2.10.6\"",
       requires=r"gradio", family="env-version-too-old", title="Gradio and pydantic 2.11"),
    _r("gradio-endpoint-not-named",
       r"This app has no endpoint (?P<endpoint>/[\w/]+?)/?\.?[\"'}]",
       "The request names an endpoint the app does not expose: a Gradio app's routes follow "
       "each event's api_name (and the route layout of the Gradio release), so a hand-written "
       "/api/predict reaches nothing unless an event is named predict.",
       "Gradio serves one endpoint per event listener, named by api_name.",
       ["environment.package-versions"],
       "from gradio_client import Client\nclient = Client(url)\nclient.view_api()   # the "
       "endpoints the app has\nclient.predict(\"Hello World\", api_name=\"/predict\")   # or "
       "name the event in the app: btn.click(fn, ..., api_name=\"predict\")",
       title="No such Gradio endpoint"),
    _r("gradio-localhost-behind-proxy",
       r"When localhost is not accessible, a shareable link must be created",
       "Gradio could not reach its own server on localhost: a proxy or VPN intercepts "
       "127.0.0.1 (or an older gradio failed on pydantic 2.11's schemas first).",
       "launch() checks its local URL before returning.", ["environment.package-versions"],
       "export no_proxy=localhost,127.0.0.1,::1   # let localhost bypass the proxy\n# or: pip "
       "install -U gradio", title="Gradio cannot reach localhost"),
    _r("tgi-prefill-memory",
       r"Not enough memory to handle \d+ (?:total tokens with \d+ )?prefill tokens",
       "text-generation-inference's warm-up could not fit the batch of prefill tokens its flags "
       "ask for in the GPU memory left after the weights.",
       "TGI reserves the KV cache for --max-batch-prefill-tokens at start-up.",
       ["memory.will-not-fit"],
       "--max-batch-prefill-tokens 2048 --max-batch-total-tokens 4096   # smaller, or a "
       "quantized model", title="TGI's warm-up out of memory"),
    _r("tgi-sharding-needs-flash",
       r"Sharded \w{1,40} requires Flash Attention enabled models",
       "text-generation-inference shards this model only with flash attention, which the GPU "
       "(V100, T4) or the container (no CUDA visible) does not offer.",
       "TGI's sharded models are written for its flash-attention kernels.",
       ["environment.device"], "--num-shard 1   # one GPU; or an Ampere or newer GPU",
       title="TGI sharding without flash attention"),
    _r("tgi-cpu-without-avx",
       r"Shard process was signaled to shutdown with signal 4",
       "The host CPU lacks an instruction set the server's binaries use (AVX on some VMs): the "
       "shard dies of an illegal instruction.", "Signal 4 is SIGILL.", ["environment.device"],
       "# a host (or VM type) whose CPU exposes AVX/AVX2; check: grep avx /proc/cpuinfo",
       title="A CPU without AVX"),
    _r("zerogpu-quota",
       r"You have exceeded your (?:free )?GPU quota",
       "A ZeroGPU Space's per-user GPU time ran out: a quota, not an error of the app.",
       "ZeroGPU meters GPU seconds per visitor.", ["environment.device"],
       "# log in (or PRO) for more quota, lower @spaces.GPU(duration=...), or duplicate the Space "
       "onto paid hardware", title="ZeroGPU quota exceeded"),
    _r("zerogpu-cuda-in-main-process",
       r"CUDA must not be initialized in the main process on Spaces with Stateless GPU",
       "On ZeroGPU the code touches CUDA outside a @spaces.GPU function (model.to('cuda') at "
       "import, torch.cuda calls at module level).",
       "ZeroGPU attaches a GPU only inside decorated functions.", ["environment.device"],
       "model.to('cuda')   # at module level is fine only after `import spaces`; CUDA calls "
       "inside @spaces.GPU functions", title="CUDA in ZeroGPU's main process"),
]
