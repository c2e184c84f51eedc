"""Errors of downloading from the Hub where the network or the cache gets in the way: hf_transfer
and hf_xet without retries, a connection cut mid-file, the Hub down (504), a proxy answering
instead of the Hub, a stale lock, a shared cache raced by several processes, resumed downloads
of a finished file, quotas and stale NFS handles; and serving: Gradio behind a proxy or with a
pydantic it does not read, text-generation-inference's warm-up, sharding and CPU, ZeroGPU's
quota and CUDA in the main process, lm-evaluation-harness's task lookup."""
from __future__ import annotations

from wizard.triage.signature import Signature, signature_maker

_n = signature_maker(14)


HUB_DOWNLOAD_SIGNATURES: list[Signature] = [
    _n("hf-transfer-without-retries",
       r"An error occurred while downloading using `?hf_transfer`?",
       "hf_transfer (HF_HUB_ENABLE_HF_TRANSFER=1) downloads without retries or resume, so an "
       "unstable connection ends the download.", "hf_transfer trades robustness for speed.",
       ["environment.hub-unreachable"],
       "export HF_HUB_ENABLE_HF_TRANSFER=0   # the regular downloader retries and resumes",
       title="hf_transfer on an unstable connection"),
    _n("hub-connection-cut",
       r"(?:ChunkedEncodingError|ProtocolError)[^\n]{0,200}(?:Connection broken|IncompleteRead)|"
       r"Connection broken: IncompleteRead|IncompleteRead\(\d+ bytes read, \d+ more expected\)|"
       r"Data processing error: CAS service error",
       "The connection to the Hub broke in the middle of a file (a proxy, a flaky network, or "
       "hf_xet before 1.1.2, which did not retry).", "A cut download leaves an .incomplete "
       "file that the next attempt resumes.", ["environment.hub-unreachable"],
       "# run the download again (it resumes); with hf_xet: pip install -U hf-xet  (or "
       "HF_HUB_DISABLE_XET=1)", title="The download was cut"),
    _n("hub-down",
       r"50[234] Server Error: (?:Gateway Time-?out|Bad Gateway|Service Unavailable) for url: "
       r"https://huggingface\.co",
       "The Hub itself did not answer (a gateway timeout or an outage), not the code.",
       "The Hub returns 5xx while it is down or overloaded.", ["environment.hub-unreachable"],
       "# retry later; meanwhile load from the cache:\nexport HF_HUB_OFFLINE=1   # or "
       "from_pretrained(..., local_files_only=True)", family="hub-unreachable",
       title="The Hub is down"),
    _n("proxy-answers-for-hub",
       r"Distant resource does not seem to be on huggingface\.co",
       "Something between the machine and the Hub (a corporate proxy, a captive portal, a "
       "mirror) answered instead of huggingface.co, without the Hub's headers.",
       "huggingface_hub checks the answer's X-Repo-Commit / ETag headers.",
       ["environment.hub-unreachable"],
       "export HTTPS_PROXY=http://proxy:port   # the proxy the network requires\n# or a mirror: "
       "export HF_ENDPOINT=https://<mirror>", family="hub-unreachable",
       title="A proxy answered for the Hub"),
    _n("stale-download-lock",
       r"still waiting to acquire lock on \S{0,300}\.locks",
       "A download waits on a lock file left by a process that died (or held by another "
       "process on a shared cache): nothing is downloading.",
       "Downloads lock each file in the cache's .locks folder.", ["environment.hub-unreachable"],
       "rm -rf ~/.cache/huggingface/hub/.locks/models--<org>--<name>   # when no other process "
       "downloads it", title="A stale download lock"),
    _n("shared-cache-download-race",
       r"unable to open file <[^>\n]{0,300}snapshots[^>\n]{0,300}> in read-only mode: No such file "
       r"or directory",
       "Several processes downloaded the same model into one cache at once, and one read the "
       "snapshot link before another finished writing it (huggingface_hub before 0.24.7).",
       "The snapshot points at a blob the other process is still moving.",
       ["environment.hub-unreachable"],
       "pip install -U \"huggingface_hub>=0.24.7\"\n# or download once before launching: "
       "huggingface-cli download <repo>", title="Processes racing on a shared cache"),
    _n("resumed-download-finished",
       r"416 Client Error: Range Not Satisfiable",
       "A download resumed an .incomplete file that was already complete; the server refuses the "
       "range (fixed in huggingface_hub 0.25).", "Resuming asks for the bytes after the file's "
       "size.", ["environment.hub-unreachable"],
       "pip install -U \"huggingface_hub>=0.25\"   # or delete the .incomplete file in the cache",
       title="A resumed download of a finished file"),
    _n("cache-quota-exceeded",
       r"\[Errno 122\] Disk quota exceeded",
       "The cache (HF_HOME, the dataset cache) or the output folder is on a volume with a per-user "
       "quota, which is full.", "Cluster home directories have small quotas.",
       ["environment.download-size"],
       "export HF_HOME=/scratch/$USER/hf   # a volume with room, before starting",
       family="disk-full", title="A disk quota exceeded"),
    _n("stale-nfs-handle",
       r"\[Errno 116\] Stale file handle",
       "The cache is on NFS and another node replaced or removed a file this process had open "
       "(datasets' cache, locks).", "NFS invalidates handles to files changed elsewhere.",
       ["environment.download-size"],
       "export HF_DATASETS_CACHE=/local/disk/hf_datasets   # a local disk per node",
       title="A stale NFS file handle"),
    _n("gradio-pydantic-schema",
       r"argument of type 'bool' is not iterable",
       "gradio_client cannot read the JSON schemas pydantic 2.11 writes (a boolean where it "
       "expects a dict), so building the app's API info fails.",
       "Older gradio_client walks the schema expecting dicts.", ["environment.package-versions"],
       "pip install -U gradio   # or pin: pip install \"pydantic==2.10.6\"",
       requires=r"gradio", family="env-version-too-old", title="Gradio and pydantic 2.11"),
    _n("gradio-localhost-behind-proxy",
       r"When localhost is not accessible, a shareable link must be created",
       "Gradio could not reach its own server on localhost: a proxy or VPN intercepts "
       "127.0.0.1 (or an older gradio failed on pydantic 2.11's schemas first).",
       "launch() checks its local URL before returning.", ["environment.package-versions"],
       "export no_proxy=localhost,127.0.0.1,::1   # let localhost bypass the proxy\n# or: pip "
       "install -U gradio", title="Gradio cannot reach localhost"),
    _n("tgi-prefill-memory",
       r"Not enough memory to handle \d+ (?:total tokens with \d+ )?prefill tokens",
       "text-generation-inference's warm-up could not fit the batch of prefill tokens its flags "
       "ask for in the GPU memory left after the weights.",
       "TGI reserves the KV cache for --max-batch-prefill-tokens at start-up.",
       ["memory.will-not-fit"],
       "--max-batch-prefill-tokens 2048 --max-batch-total-tokens 4096   # smaller, or a "
       "quantized model", title="TGI's warm-up out of memory"),
    _n("tgi-sharding-needs-flash",
       r"Sharded \w{1,40} requires Flash Attention enabled models",
       "text-generation-inference shards this model only with flash attention, which the GPU "
       "(V100, T4) or the container (no CUDA visible) does not offer.",
       "TGI's sharded models are written for its flash-attention kernels.",
       ["environment.device"], "--num-shard 1   # one GPU; or an Ampere or newer GPU",
       title="TGI sharding without flash attention"),
    _n("tgi-cpu-without-avx",
       r"Shard process was signaled to shutdown with signal 4",
       "The host CPU lacks an instruction set the server's binaries use (AVX on some VMs): the "
       "shard dies of an illegal instruction.", "Signal 4 is SIGILL.", ["environment.device"],
       "# a host (or VM type) whose CPU exposes AVX/AVX2; check: grep avx /proc/cpuinfo",
       title="A CPU without AVX"),
    _n("zerogpu-quota",
       r"You have exceeded your (?:free )?GPU quota",
       "A ZeroGPU Space's per-user GPU time ran out: a quota, not an error of the app.",
       "ZeroGPU meters GPU seconds per visitor.", ["environment.device"],
       "# log in (or PRO) for more quota, lower @spaces.GPU(duration=...), or duplicate the Space "
       "onto paid hardware", title="ZeroGPU quota exceeded"),
    _n("zerogpu-cuda-in-main-process",
       r"CUDA must not be initialized in the main process on Spaces with Stateless GPU",
       "On ZeroGPU the code touches CUDA outside a @spaces.GPU function (model.to('cuda') at "
       "import, torch.cuda calls at module level).",
       "ZeroGPU attaches a GPU only inside decorated functions.", ["environment.device"],
       "model.to('cuda')   # at module level is fine only after `import spaces`; CUDA calls "
       "inside @spaces.GPU functions", title="CUDA in ZeroGPU's main process"),
    _n("lm-eval-task-shadowed",
       r"No tasks specified, or no tasks found\. Please verify the task names",
       "lm-evaluation-harness found no task of that name: a folder named like the task in the "
       "current directory (./mmlu) shadows it, or the run is inside an edited checkout.",
       "lm_eval resolves task names against paths first.", ["environment.package-versions"],
       "cd /tmp && lm_eval --model hf --tasks mmlu ...   # a directory without a ./mmlu\n"
       "lm_eval --tasks list   # the names this release knows", title="lm-eval found no task"),
]
