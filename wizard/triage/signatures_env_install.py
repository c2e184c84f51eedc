"""Environment rules whose cause is the installation itself: a package missing
(env-missing-package), compiled packages built against other versions
(env-binary-incompatible), or a setup step left out (env-setup-step-skipped)."""
from __future__ import annotations

from wizard.triage.env_answers import (
    BINARY,
    MISSING,
    QUOTE,
    SETUP,
)
from wizard.triage.env_imports import (
    refine_no_module,
)
from wizard.triage.env_refines import (
    refine_binary,
    refine_bnb,
    refine_bnb_unavailable,
    refine_placeholder_class,
    refine_requires_package,
    refine_tf_checkpoint,
    refine_tf_op,
)
from wizard.triage.env_signature import env_signature as _sig
from wizard.triage.env_skew import (
    refine_binary_built_for,
)
from wizard.triage.signature import Signature

INSTALL_SIGNATURES: list[Signature] = [
    # ChatGLM's remote quantization code takes round_up and its kernels from cpm_kernels, whose
    # failed import it swallows
    _sig("env-cpm-kernels-missing", MISSING,
         r"name '(?:round_up|compress_int4_weight|extract_weight_to_half)' is not defined",
         "The model's own quantization code (ChatGLM's quantization.py, run with trust_remote_code) "
         "takes its CUDA kernels from the cpm_kernels package, which is not installed: the code "
         "swallows that import error and fails later on the names it would have defined.",
         "pip install cpm_kernels   # then restart; or load the model without quantization",
         priority=14),
    _sig("env-git-lfs-pointer", SETUP,
         r"invalid load key, '?v'?|version https://git-lfs|git-lfs\.github\.com/spec|"
         r"cloned a repository without having git-lfs|"
         r"Parquet magic bytes not found in footer",
         "The weights file is a Git LFS pointer (a small text file): the repo was cloned without "
         "git-lfs, so the weights were never downloaded.",
         "git lfs install && git lfs pull   # in the cloned folder\n"
         "# or load by repo id: from_pretrained('org/name')", priority=19),
    _sig("env-spm-model-unreadable", SETUP,
         r"sentencepiece_processor\.cc\(\d+\)\s*\[model_proto->ParseFromArray|"
         # newer sentencepiece
         r"could not parse ModelProto from",
         "The tokenizer.model file is not a SentencePiece model: a Git LFS pointer (cloned "
         "without git-lfs), an HTML page or a cut download.",
         "git lfs install && git lfs pull   # in the cloned folder; or load by Hub id\n"
         "head -c 200 tokenizer.model   # a text pointer or HTML means the file never came",
         priority=17),
    _sig("env-tf-op-not-registered", MISSING,
         r"Op type not registered '(?P<op>\w+)'",
         "The SavedModel uses a TensorFlow op that no installed package registers.",
         "pip install tensorflow-text   # then: import tensorflow_text  (before loading)",
         refine=refine_tf_op, priority=16),
    # transformers exports a placeholder class when a backend the real one needs is missing
    _sig("env-transformers-placeholder-class", MISSING,
         r"type object '(?P<cls>[A-Z]\w+)' has no attribute '(?:from_pretrained|from_config|"
         r"from_dict)'",
         "The class transformers gave is a placeholder: the real one needs a backend that is not "
         "installed (sentencepiece, tokenizers, torch, tensorflow, torchaudio or Pillow), and "
         "transformers exports a stand-in without its methods in that case.",
         "pip install sentencepiece protobuf   # the usual one for tokenizers and processors\n"
         "python -c \"import transformers.utils as u; print(u.is_sentencepiece_available(), "
         "u.is_torch_available(), u.is_torchaudio_available())\"   # which backend is missing",
         title="A transformers class without from_pretrained (a missing backend)", priority=14,
         refine=refine_placeholder_class),
    _sig("env-keras-missing", MISSING,
         r"Keras cannot be imported\. Check that it is installed",
         "TensorFlow's Keras (tf-keras for transformers' TF models) is not installed.",
         "pip install tf-keras   # then: export TF_USE_LEGACY_KERAS=1", priority=16),
    _sig("env-restart-runtime", SETUP,
         # not the advice closing transformers' "requires the X library but it was not found"
         # ("Please note that you may need to restart your runtime after installation")
         r"(?<!may )(?:must|need to|please) restart (?:the|your) (?:runtime|kernel|session)|"
         r"restart the runtime in order to use newly installed",
         "Packages were installed or upgraded inside a running session; the old versions stay "
         "loaded until the runtime restarts.", "# restart the runtime / kernel, then re-run"),
    _sig("env-nltk-resource", SETUP,
         r"Resource (?P<resource>\w+) not found\.\s+Please use the NLTK Downloader|"
         # the first line cut off
         r"Please use the NLTK Downloader to obtain the resource:\s+(?:>>> import nltk\s+)?"
         r">>> nltk\.download\('(?P<resource2>\w+)'\)",
         "An NLTK data package was never downloaded.",
         "python -c \"import nltk; nltk.download('punkt')\"   # the resource the error names"),
    _sig("env-spacy-model", SETUP,
         r"Can't find model '(?P<model>[\w-]+)'\. It doesn't seem to be a Python package",
         "The spaCy pipeline was never downloaded.", "python -m spacy download en_core_web_sm"),
    _sig("env-binary", BINARY,
         r"numpy\.dtype size changed|numpy\.core\.multiarray failed to import|compiled using "
         r"NumPy 1\.x cannot be run in\s+NumPy 2|_ARRAY_API not found|undefined symbol: \w+|"
         r"DLL load failed|with CUDA capability sm_\d+ is not compatible with the current PyTorch "
         r"installation|GLIBC(?:XX)?_[\d.]+'? not found|Expected \d+ from C header, got \d+ "
         r"from PyObject|incompatible architecture \(have|no kernel image is available for "
         r"execution on the device|cannot open shared object file|"
         r"Error loading \"[^\"\n]+\.dll\" or one of its dependencies|Numpy is not available|"
         r"module compiled against (?:ABI|API) version (?P<built>0x[0-9a-fA-F]{1,4}) but this "
         r"version of numpy is (?P<have>0x[0-9a-fA-F]{1,4})",
         "Compiled packages were built against other versions of their dependencies.",
         "pip install --force-reinstall --no-cache-dir <package>", refine=refine_binary,
         priority=17),
    _sig("env-driver-too-old", BINARY,
         r"The NVIDIA driver on your system is too old \(found version (?P<driver>\d+)\)|"
         # CUDA init failing: a runtime (often a container's, with cuda-compat) above the driver
         r"Unexpected error from cudaGetDeviceCount\(\)|CUDA driver version is insufficient for "
         r"CUDA runtime version",
         "The installed PyTorch (or the container's CUDA runtime) was built for a newer CUDA than "
         "the NVIDIA driver supports (forward compatibility works only on datacenter GPUs).",
         "# update the NVIDIA driver, or install a torch built for an older CUDA, e.g.:\n"
         "pip install torch --index-url https://download.pytorch.org/whl/cu118", priority=17),
    _sig("env-torchvision-cuda", BINARY,
         r"PyTorch and torchvision were compiled with different CUDA versions|"
         r"operator torchvision::nms does not exist",
         "torchvision was built for another torch or CUDA than the installed one (torch upgraded "
         "alone, or the two from different indexes).",
         "pip install --force-reinstall torch torchvision   # together, from one index",
         priority=17),
    _sig("env-bitsandbytes-cpu", BINARY,
         r"bitsandbytes was compiled without GPU support|installed version of bitsandbytes was "
         r"compiled without GPU support|CUDA Setup failed despite GPU being available|"
         r"No GPU found\. A GPU is needed for quantization|"
         # its CPU build loaded, then asked for a GPU kernel
         r"libbitsandbytes_cpu\.(?:so|dll)\W{0,3}(?:undefined symbol|function '\w+' not found)|"
         r"'NoneType' object has no attribute 'c(?:adam|quantize|dequantize)\w*'",
         "bitsandbytes cannot use a GPU here.", "python -m bitsandbytes", refine=refine_bnb,
         priority=18),
    _sig("env-bnb-unavailable", MISSING,
         r"Using `bitsandbytes` (?:4|8)-bit quantization requires (?:the latest version of "
         r"bitsandbytes|Accelerate)|Using `load_in_(?:8|4)bit=True` requires Accelerate:? `?pip "
         r"install accelerate`? and the latest version of bitsandbytes",
         "transformers finds no usable bitsandbytes.", "pip install -U bitsandbytes accelerate",
         refine=refine_bnb_unavailable, priority=18),
    _sig("env-xla-cuda-compiler-missing", SETUP,
         r"Could not find compiler for platform CUDA|could not find registered compiler for "
         r"platform CUDA|Can't find libdevice directory",
         "TensorFlow compiles the model with XLA (jit_compile, the default of Keras 3's fit on a "
         "GPU) and finds no CUDA compiler tools (ptxas, libdevice) for it: the CUDA toolkit "
         "TensorFlow's XLA needs is not installed.",
         "pip install \"tensorflow[and-cuda]\"   # brings the CUDA tools XLA needs\n"
         "# or: model.compile(..., jit_compile=False)", priority=16),
    _sig("env-cuda-toolkit-missing", SETUP,
         r"CUDA_HOME does not exist, unable to compile CUDA op|CUDA_HOME environment variable is "
         r"not set|nvcc (?:was )?not found|No CUDA runtime is found, using CUDA_HOME|"
         r"Error building extension '\w+'",
         "Building a CUDA extension (DeepSpeed ops, flash-attn, apex) needs the CUDA compiler "
         "(nvcc, from a CUDA toolkit); the torch wheel ships only the runtime.",
         "conda install -c nvidia cuda-toolkit   # or the CUDA toolkit of your torch's CUDA "
         "version\nexport CUDA_HOME=/usr/local/cuda   # where nvcc is: $CUDA_HOME/bin/nvcc",
         priority=17),
    _sig("env-extension-built-for-other-torch", BINARY,
         r"(?P<ext>xFormers) was built for:\s*PyTorch (?P<built>\S+)[^\n]*\(you have "
         r"(?P<have>[^)\s]+)\)",
         "A compiled extension was built for another torch release than the installed one.",
         "pip install -U xformers", refine=refine_binary_built_for, priority=17),
    _sig("env-tf-checkpoint-missing", SETUP,
         r"(?:Failed to get matching files on|Failed to find any matching files for) "
         r"(?P<path>[^\s]+)",
         "No TensorFlow checkpoint files at the path given.",
         "ls <checkpoint prefix>*   # expect .index and .data-* files\n"
         "# download and unpack the checkpoint the README names, then point the flag at its prefix",
         refine=refine_tf_checkpoint, priority=15),
    _sig("env-notebook-widgets-missing", MISSING,
         r"I(?:nt)?Progress not found\. Please update jupyter and ipywidgets|"
         r"name 'I(?:nt)?Progress' is not defined",
         "The notebook's progress bars (tqdm.auto: checkpoint shards, Hub downloads) need "
         "ipywidgets, which the kernel's environment lacks.",
         "pip install ipywidgets   # in the kernel's environment, then restart the kernel",
         priority=18),
    _sig("env-no-module", MISSING,
         rf"No module (?:named|found) {QUOTE}(?P<module>[A-Za-z_][\w.]*){QUOTE}",
         "A module cannot be imported.", "pip install <package>", refine=refine_no_module),
    _sig("env-tracker-missing", MISSING,
         r"`?log_with=\[?'?(?P<pkg>wandb|tensorboard|comet_ml|mlflow|aim|clearml|dvclive|swanlab)'?"
         r"\]?`? was passed but no supported trackers are currently installed",
         "The experiment tracker asked for (log_with=...) is not installed, so accelerate logs "
         "nowhere.", "pip install <tracker>", refine=refine_requires_package, priority=15),
    # builds that do not match each other, and build tools missing (several threads each)
    _sig("env-xformers-build-mismatch", BINARY,
         r"No operator found for `?memory_efficient_attention_\w+`?|xFormers wasn't build with "
         r"CUDA support|xFormers can't load C\+\+/CUDA extensions",
         "The installed xformers was built for another torch/CUDA than the one installed (a "
         "runtime that changed torch under a pinned xformers), so it has no kernel to run.",
         "python -m xformers.info   # 'built for PyTorch X, you have Y'\npip install -U xformers "
         "--index-url https://download.pytorch.org/whl/cu121   # the build for the installed "
         "torch", priority=17),
    _sig("env-cuda-toolkit-mismatch", BINARY,
         r"The detected CUDA version \((?P<toolkit>[\d.]+)\) mismatches the version that was"
         r"\s+used to compile\s+PyTorch \((?P<torch_cuda>[\d.]+)\)|Installed CUDA version "
         r"(?P<toolkit2>[\d.]+) does not match the version torch was compiled with "
         r"(?P<torch_cuda2>[\d.]+)",
         "A CUDA extension (flash-attn, xformers, apex, DeepSpeed's ops) is compiled with the "
         "system CUDA toolkit, whose version differs from the CUDA the torch wheel was built with.",
         "nvcc --version; python -c \"import torch; print(torch.version.cuda)\"\n# make them "
         "match: a torch built for the toolkit, or CUDA_HOME pointing at the toolkit torch "
         "needs; or a prebuilt wheel of the extension", priority=17),
    _sig("env-cudnn-shadowed", BINARY,
         r"cuDNN version incompatibility: PyTorch was compiled\s+against \([\d, ]+\) but found "
         r"runtime version \([\d, ]+\)",
         "torch loads an older cuDNN than the one its wheel was built against: a system or "
         "conda cuDNN on LD_LIBRARY_PATH shadows the one bundled with torch.",
         "unset LD_LIBRARY_PATH   # or drop the old cuDNN folder from it\n"
         "pip install --force-reinstall torch   # its bundled cuDNN", priority=17),
    # TensorFlow's convolutions find no cuDNN they can load (none, or another major release)
    _sig("env-tf-cudnn-not-found", BINARY,
         r"DNN library is not found",
         "TensorFlow cannot load a cuDNN matching the one it was built against: none is "
         "installed, or the system's (a Colab image, a conda env) is another major release.",
         "pip install \"tensorflow[and-cuda]\"   # TensorFlow 2.14+ installs its own cuDNN; an "
         "older TensorFlow needs the cuDNN its release table names", priority=17),
    _sig("env-mkl-gomp-conflict", BINARY,
         r"MKL_THREADING_LAYER=INTEL is incompatible with libgomp",
         "Intel MKL (a conda numpy or torch) and GNU OpenMP (a pip torch) are loaded in one "
         "process, and a new process refuses the mix.",
         "export MKL_THREADING_LAYER=GNU   # before the training script (or reinstall numpy from "
         "pip, without MKL)", priority=17),
    _sig("env-build-tool-missing", MISSING,
         r"Ninja is required to load C\+\+ extensions|Failed to find C compiler\. Please specify "
         r"via CC environment variable",
         "A kernel is compiled at run time (DeepSpeed's ops, a custom extension, Triton's launcher "
         "for torch.compile, Unsloth or Liger) and its build tool (ninja, a C compiler) is missing.",
         "pip install ninja   # and a C compiler: apt-get install -y build-essential (Windows: the "
         "MSVC build tools)", priority=17),
    _sig("env-protobuf-duplicate-proto", BINARY,
         r"Couldn't build proto file into descriptor pool: duplicate file name "
         r"\(?sentencepiece_model\.proto\)?",
         "Two packages register their own copy of sentencepiece_model.proto with protobuf 4's "
         "C++ backend, which refuses the duplicate.",
         'pip install "protobuf==3.20.3"   # or: export PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python',
         priority=17),
    _sig("system-runtime-library-missing", BINARY,
         r"\[WinError 126\][^\n]{0,200}?(?:\n[^\n]{0,200}?)?(?:fbgemm|c10|torch_cpu|"
         r"shm|caffe2_nvrtc|libiomp5md|cudnn\w*)\.dll",
         "Windows cannot load a DLL of the installed torch (fbgemm.dll, c10.dll) because a "
         "system library it depends on is missing: the Microsoft Visual C++ runtime (its OpenMP "
         "library, libomp140.x86_64.dll / vcomp140.dll), which torch's wheels do not ship.",
         "winget install Microsoft.VCRedist.2015+.x64   # the Visual C++ 2015-2022 "
         "redistributable (or the MSVC v143 build tools in the Visual Studio Installer)\n"
         "# then open a new terminal and retry", priority=17),
    _sig("env-unidic-dictionary-not-downloaded", SETUP,
         r"unidic[\\/]dicdir[\\/]mecabrc",
         "The unidic package installs without its dictionary: MeCab (used by Japanese text "
         "frontends such as MeloTTS, fugashi) finds no mecabrc until the dictionary is "
         "downloaded, a step of its own.",
         "python -m unidic download   # once per environment (or: pip install unidic-lite)",
         priority=17),
    _sig("env-torchcodec-unloadable", BINARY,
         r"Could not load libtorchcodec",
         "datasets 4 decodes audio and video with torchcodec, whose library needs a shared FFmpeg "
         "of a supported major version and the torch its wheel was built for.",
         "conda install -c conda-forge \"ffmpeg<8\"   # or apt-get install ffmpeg\npip install "
         "torchcodec==<the release matching your torch>", priority=17),
    _sig("env-pyarrow-numpy-dtype", BINARY,
         r"Did not pass numpy\.dtype object",
         "pyarrow older than 3.0 beside NumPy 1.20 or later, whose dtype classes it no longer "
         "recognises.", 'pip install -U "pyarrow>=3.0"   # or: pip install "numpy<1.20"',
         priority=17),
    _sig("env-autogptq-kernels-missing", BINARY,
         r"auto_gptq[\w.]*:CUDA extension not installed|(?<![\w-])CUDA extension not installed\b|"
         r"name '?autogptq_cuda_(?:64|256)'? (?:is )?not defined",
         "auto-gptq's compiled CUDA kernels cannot be imported: the wheel does not match the "
         "installed torch/CUDA (or torch is a CPU build), so GPTQ layers run slow fallbacks or "
         "fail.",
         "pip uninstall -y auto-gptq && pip install auto-gptq --no-build-isolation "
         "--extra-index-url https://huggingface.github.io/autogptq-index/whl/cu118/   # the wheel "
         "for torch.version.cuda", priority=17,
         requires=r"auto_?gptq|AutoGPTQ|GPTQ|exllama"),
    _sig("env-requires-package", MISSING,
         r"requires the (?P<pkg>[\w-]+) library but it was not found|"
         r"(?:please|you need to|you must|you should|make sure to) (?:first )?(?:pip )?install "
         r"(?!the following)"
         r"(?:it with )?`?['\"]?(?:pip install )?(?P<pkg2>[A-Za-z][\w\[\].-]*)['\"`]?(?![\w.]*\s*"
         r"(?:>=|==|>))|(?<![\w-])(?!(?:kernels?|extensions?|modules?|packages?|library|libraries|"
         r"backends?|dependency|dependencies|drivers?|plugins?|components?|it|this|that)\b)"
         r"(?P<pkg3>[A-Za-z][\w-]*)`? (?:is|are|seems to be|appears to be) not installed|"
         r"requires `?(?P<pkg4>[A-Za-z][\w-]*)`? to be installed|"
         r"(?:need|must) (?:to )?have `?(?P<pkg5>[A-Za-z][\w-]*)`? installed|"
         r"requires [A-Za-z][\w-]*:? `pip install ['\"]?(?P<pkg6>[A-Za-z][\w\[\].-]*)|"
         r"requires `(?P<pkg7>[A-Za-z][\w-]*)`\.? You can install it with `pip install|"
         r"make sure (?:that )?you have `?(?P<pkg8>[A-Za-z][\w-]*)`? installed|"
         # evaluate's metrics: "you need to install the following dependencies['nltk'] using ..."
         r"install the following dependencies ?\[['\"]?(?P<pkg9>[A-Za-z][\w.-]*)|"
         # "requires optimum (`pip install optimum`)", "Try `pip install hf_transfer`"
         r"requires (?:the )?(?:latest version of )?`?(?P<pkg10>[A-Za-z][\w-]*)`?(?: library)? "
         r"\(`pip install|\bTry `pip install (?P<pkg11>[A-Za-z][\w\[\].-]*)`|"
         # a model repository's own code (trust_remote_code) imports it
         r"requires the following packages that were not found in your environment: "
         r"(?P<pkg12>[A-Za-z][\w.-]*)|"
         r"(?<![\w-])(?P<pkg13>[A-Za-z][\w-]*) is not available => install it using `pip install|"
         # transformers' "The package optimum is required to use Better Transformer."
         r"\bThe package `?(?P<pkg14>[A-Za-z][\w-]*)`? is required to use\b|"
         # the reporter's words for it: "the colab fails and asks to run pip install accelerate"
         r"\b(?:asks?|asked|tells?|told|says?|said) (?:me |you |us )?to (?:run )?[`'\"]?!?pip "
         r"install (?:-U )?(?P<pkg15>[A-Za-z][\w\[\].-]*)|"
         # huggingface_hub's fast download: "'hf_transfer' package is not available in your
         # environment"
         r"['\"`](?P<pkg16>[A-Za-z][\w-]*)['\"`] package is not available in your environment",
         "An optional package the feature needs is not installed.", "pip install <package>",
         refine=refine_requires_package, priority=13),
]
