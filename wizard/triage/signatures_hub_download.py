"""Errors of downloading from the Hub where the network or the cache gets in the way: hf_transfer
and hf_xet without retries, a connection cut mid-file, the Hub down (a 5xx), a proxy answering
instead of the Hub, a stale lock, a shared cache raced by several processes, resumed downloads
of a finished file, quotas and stale NFS handles."""
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
       r"50[0234] Server Error: (?:Gateway Time-?out|Bad Gateway|Service Unavailable|Internal "
       r"Server Error) for url: https://huggingface\.co",
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
       "hf download <repo>", title="Processes racing on a shared cache"),
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
]
