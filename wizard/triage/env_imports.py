"""Environment rules for imports that fail: a module not found, a name a package does not export,
a module attribute missing, a name left undefined (answered from the API table and the released
wheels' history in versions.py).
"""
from __future__ import annotations

import difflib
import re
from typing import Any

from wizard.triage import api_history
from wizard.triage.env_answers import (
    BACKENDS,
    BINARY,
    HOME,
    LIBRARIES,
    MISSING,
    NEW,
    OLD,
    QUOTE,
    SETUP,
    answer,
    answer_from_change,
    fold_groups,
    foreign_private,
    import_within_declared,
    importer_of,
    installed_in_paste,
    libclass,
    pin,
    stated_version,
    top_of,
    upgrade,
)
from wizard.triage.parse import ParsedError
from wizard.triage.packages import dist_key, pip_name, version_lt
from wizard.triage.versions import api_change, installed_version, paste_versions


def own_submodule_missing(parsed: ParsedError, module: str) -> bool:
    """A package's own code importing a submodule of itself that is not there (the release
    shipped without it, or an install left it half-updated): not a package to install."""
    top = top_of(module)
    lib = [f for f in parsed.frames if f.is_library]
    return "." in module and bool(lib) and lib[-1].package == top


# packages that exist only for one kind of accelerator: a library importing one has decided the
# machine has that hardware
_HARDWARE_BACKENDS = frozenset({"torch_xla", "torch_npu", "torch_mlu", "habana_frameworks",
                                "intel_extension_for_pytorch", "oneccl_bindings_for_pytorch",
                                "torch_musa"})


def hardware_path_taken(parsed: ParsedError, module: str) -> str | None:
    """The library whose own line imports a hardware backend this machine lacks (torch_xla on a
    GPU machine): its device detection took that accelerator's path (a flag saved in a config, an
    environment variable), so the fix is the detection, not installing the backend."""
    lib = [f for f in parsed.frames if f.kind != "other"]
    if top_of(module) not in _HARDWARE_BACKENDS or not lib or not lib[-1].is_library:
        return None
    code = lib[-1].code or ""
    if not re.search(rf"\bimport\s+{re.escape(top_of(module))}\b|from\s+{re.escape(top_of(module))}"
                     r"[\w.]*\s+import\b", code):
        return None
    return pip_name(top_of(lib[-1].package or "")) or None


# the reporter's own reading of the release history: "this function is only available in future
# versions of timm", "was added in 0.9"
_SAID_NEWER = re.compile(r"\b(?:only (?:available|exists?|present|defined|introduced) (?:in|from|"
                         r"since) (?:the )?(?:future|newer|later|recent|latest|new)\b|(?:was|were|is|"
                         r"got) (?:only )?(?:added|introduced) in (?:a )?(?:later|newer|recent|"
                         r"version|v?\d+\.\d+))(?:[^.\n]|\.(?=\w)){0,60}", re.I)


def _said_newer(text: str) -> str | None:
    m = _SAID_NEWER.search(text)
    return m.group(0).strip()[:100] if m else None


# the names of compiled extension modules inside a Python package (fairseq's libnat, a
# package's _C, foo_cuda, bar_ext, baz_cpp): built from C++/CUDA sources by its build step
_COMPILED_NAME = re.compile(r"^(?:lib[a-z]\w*|_C|\w+_(?:cuda|ext|cpp|kernels?))$")


_HUB_CACHE = re.compile(r"Using cache found in (?P<cache>\S*?torch[/\\]hub[/\\](?P<repo>[\w.-]+))")


def _stale_hub_cache(parsed: ParsedError) -> dict[str, Any] | None:
    """torch.hub.load ran a clone of the repository cached by an earlier call: its code is the
    branch as it was then, out of step with the packages installed since."""
    m = _HUB_CACHE.search(parsed.text)
    if m is None:
        return None
    return {"id": "stale-torch-hub-cache",
            "cause": f"torch.hub.load used the copy of the repository it cached earlier "
                     f"({m.group('cache')}): that code is the branch as it was when first "
                     "loaded, and it does not match the packages installed now.",
            "fix": "torch.hub.load(<repo>, <model>, force_reload=True)   # fetch the branch "
                   f"again\n# or delete the cached copy: rm -rf {m.group('cache')}"}


def _pip_installed(top: str, text: str) -> bool:
    """The paste installs `top` with pip, or its issue form says how it was installed ("Ray
    installed from: binary"): a package, not a module of the project's own."""
    names = "|".join(re.escape(n) for n in {top, pip_name(top)})
    return re.search(rf"(?im)\bpip3? install\b[^\n]*?(?<![\w.-])(?:{names})(?![\w-])|"
                     rf"^\W*(?:{names}) installed from\b", text) is not None


def _not_in_stated_release(what: str, top: str, stated: str, ev: dict) -> dict[str, Any]:
    """`what` is missing from the release of `top` the paste states: the code (or its tutorial)
    was written for another release."""
    return answer(NEW, top, f"The code uses {what}, which {pip_name(top)} {stated} (the release the "
                  "paste shows) does not have: a release moved or removed it, and the code was "
                  "written for another one.",
                  f"pip install \"{pip_name(top)}<{stated}\"   # the release the code was written "
                  "for (its README or requirements name it); or port it to this release's API", ev)


def _local_clone(parsed: ParsedError) -> tuple[str, str] | None:
    """(package, folder) when the failing code runs from a folder named like a package the paste
    imports and installs with pip: a clone of the project's repository in the working directory,
    imported instead of the installed package."""
    user = parsed.innermost_user_frame
    m = re.search(r"(?P<folder>(?:.*[/\\])?(?P<pkg>[A-Za-z_]\w*))[/\\][\w.-]+\.py$", user.file) \
        if user is not None else None
    if m is None:
        return None
    pkg = re.escape(m.group("pkg"))
    imported = re.search(rf"^\W*(?:from|import)\s+{pkg}\b", parsed.text, re.M)
    installed = re.search(rf"(?:pip3? install|Successfully installed|Requirement already "
                          rf"satisfied:?)[^\n]*\b{pkg}\b", parsed.text, re.I)
    return (m.group("pkg"), m.group("folder")) if imported and installed else None


def _own_file_named_like(top: str, loc: str) -> str | None:
    """The file (or package folder) named like `top` that a message's location shows outside
    any installed packages' folder: the user's own module shadowing the package."""
    path = loc.strip(" ()")
    m = re.search(rf"(?:^|[/\\]){re.escape(top)}(?:\.py|[/\\]__init__\.py)$", path) if top else None
    if m is None or re.search(r"(?:site|dist)-packages", path):
        return None
    return path


def _folder_named_like(top: str, text: str) -> str | None:
    """A file the paste shows in a folder named like the package (outside any installed
    packages' folder), of a module no release of the package ever had: a folder of the user's
    (or of a project run from its own directory) that Python imports as the package."""
    if not top or not api_history.releases(top):
        return None
    for m in re.finditer(rf"(?:^|[\s\"'(/\\])(?P<path>(?:[^\s\"'()]*[/\\])?{re.escape(top)}[/\\]"
                         r"(?P<module>[A-Za-z_]\w*)\.py)\b", text, re.M):
        path = m.group("path")
        if re.search(r"(?:site|dist)-packages|[/\\]src[/\\]", path) or m.group("module") == "__init__":
            continue
        if api_history.module(f"{top}.{m.group('module')}") is None:
            return path
    return None


def _remote_code_module(name: str) -> dict[str, Any]:
    """transformers_modules.<name>: the module transformers writes for a checkpoint's own code
    (trust_remote_code), never a package to install."""
    if re.search(r"[/\\]", name):
        return {"id": "remote-code-module-name-invalid",
                "cause": f"transformers names the module of the checkpoint's own code "
                         f"(trust_remote_code) after the folder it was loaded from, and {name!r} "
                         "holds a path separator (a relative local path such as THUDM/chatglm-6b, "
                         "typically on Windows): no module can have that name.",
                "fix": "model = AutoModel.from_pretrained(r\"C:\\models\\chatglm-6b\", "
                       "trust_remote_code=True)   # an absolute path to a folder without '/' or "
                       "'.' in its name\n# or a transformers release that sanitizes the name: "
                       "pip install -U transformers"}
    return {"id": "remote-code-module-missing",
            "cause": f"transformers_modules.{name} is the module transformers writes for the "
                     "checkpoint's own code (trust_remote_code) into its modules cache, not a "
                     "package: the cached copy is gone or unreadable (the cache was cleaned, "
                     "HF_HOME differs between processes, or several processes load the model at "
                     "once).",
            "fix": "rm -rf ~/.cache/huggingface/modules/transformers_modules   # then load again "
                   "with trust_remote_code=True, on one process first"}


# namespace packages: their submodules come from separate distributions (google.protobuf is
# protobuf's), so a missing one is a package to install
# projects whose integrations became packages of their own: llama_index.llms.huggingface is
# llama-index-llms-huggingface since llama-index 0.10
_SPLIT_OUT = {"llama_index": ("llama-index", "0.10")}
_NAMESPACES = frozenset({"google", "azure", "nvidia", "backports", "zope", "jaraco", "ruamel",
                         "sphinxcontrib", "mpl_toolkits"})


# packages whose setup.py imports the build's dependencies (torch) while pip builds them
_BUILD_DEPENDENCIES = frozenset({"torch", "numpy", "packaging", "setuptools", "wheel", "Cython",
                                 "pybind11", "psutil"})
_PIP_BUILD = re.compile(r"Getting requirements to build (?:wheel|editable)|Preparing metadata "
                        r"\(setup\.py\)|setup\.py (?:egg_info|bdist_wheel|develop)|Building wheels? "
                        r"for|pip3? install\b[^\n]*(?:flash[-_]attn|xformers|mamba[-_]ssm|"
                        r"causal[-_]conv1d|auto[-_]gptq|deepspeed|apex|bitsandbytes)")


def _project_package_folder(top: str, parsed: ParsedError) -> str | None:
    """The folder holding a package `top` of the project's own, when a frame of the failing
    script runs from inside it (C:/repo/models/llama3_1/scripts/x.py importing `models`)."""
    for f in parsed.frames:
        path = (f.file or "").replace("\\", "/")
        if f.is_library or re.search(r"(?:site|dist)-packages|/lib/python\d", path):
            continue
        m = re.search(rf"^(?P<root>.*?)/{re.escape(top)}/", path)
        if m and m.group("root"):
            return m.group("root")
    # a shell prompt standing in that folder: "user@host:~/repo/docqa$", "C:\repo\docqa>"
    prompt = re.search(rf"(?P<root>(?:~|/|[A-Za-z]:\\)[\w./\\ -]*?)[/\\]{re.escape(top)}"
                       rf"(?:\$|>)(?:\s|$)", parsed.text)
    return prompt.group("root") if prompt else None


_IN_VAIN = re.compile(r"\bstill\b|same (?:error|problem|issue)|(?:did ?n[o']t|does ?n[o']t|not) "
                      r"(?:help|work|fix|solve)|no (?:luck|change)|仍然|还是|依然|没有解决|未解决")


def _reinstalled_in_vain(package: str, added: str, text: str) -> bool:
    """The paste installs (or upgrades) the package, not pinned below the release that added
    the name, and says the error stays."""
    name = re.escape(pip_name(package)).replace("\\-", "[-_]")
    line = re.search(rf"\bpip3? install\b[^\n]*(?:\b{name}\b|/{name}(?:\.git)?\b)(?P<pin>"
                     r"\s*==\s*v?\d+(?:\.\d+)*)?", text, re.I)
    if line is None or not _IN_VAIN.search(text):
        return False
    pinned = re.sub(r"[\s=v]", "", line.group("pin") or "")
    return not (pinned and version_lt(pinned, added))


def _says_installed(top: str, pkg: str, text: str) -> bool:
    """The paste states the package is installed ("torch actually installed", "I have already
    installed peft", pip's "Requirement already satisfied: torch")."""
    name = rf"(?:{re.escape(top)}|{re.escape(pkg)})"
    return bool(re.search(rf"\b{name}\b[^.\n]{{0,30}}?\b(?:is|was|are|has been)? ?(?:actually |"
                          rf"already |definitely |clearly |properly )?installed\b(?! in (?:a|another))"
                          rf"|\b(?:have|has|had) (?:already |successfully )?installed \W?{name}\b|"
                          rf"Requirement already satisfied: {name}\b", text, re.I)) and \
        not re.search(rf"\b{name}\b[^.\n]{{0,30}}\b(?:not|isn't|wasn't|never) (?:been )?installed",
                      text, re.I)


def refine_no_module(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    module = str(ev.get("module", "")).strip(".")
    clone = _local_clone(parsed)
    if clone is not None:
        pkg, folder = clone
        return {"id": "local-module-shadows-library",
                "cause": f"Python imported the folder {folder} (a clone of the project's sources) "
                         f"as {pkg}, not the package pip installed: its modules import {module} as "
                         "a top-level module, which exists only inside the clone.",
                "fix": f"cd <another directory>   # or rename {folder}; then: python -c \"import "
                       f"{pkg}; print({pkg}.__file__)\"   # now the installed package"}
    if module.startswith("transformers_modules."):   # the whole name, '/' and all
        full = re.search(r"No module named ['\"](transformers_modules\.[^'\"\n]+)", parsed.text)
        return _remote_code_module((full.group(1) if full else module).split(".", 1)[1])
    top = top_of(module)
    parts = module.split(".")
    if not module or re.search(r"(?:Error caught was|was caught):\s*No module named", parsed.text):
        return {"reject": True}       # a warning that reports the import it tried and skipped
    if module == "numpy._core" or module.startswith("numpy._core."):
        return answer(OLD, "numpy", "The data or model was saved with NumPy 2, and the installed "
                      "NumPy 1.x cannot unpickle it (numpy._core is NumPy 2's module).",
                      upgrade("numpy", "2"), ev)
    if (len(parts) > 1 and (parts[-1] == "_C" or parts[-1] == parts[0]
                            or parts[-1].startswith("_multiarray"))):
        return answer(BINARY, top, f"{module} is the compiled extension of {top}; it is missing or "
                      "was built for another Python or platform (a source tree or another "
                      "interpreter's install shadows the wheel).",
                      f"pip install --force-reinstall --no-cache-dir {pip_name(top)}   "
                      "# with the pip of the Python that runs the code", ev)
    change = api_change(module)
    if change is not None:
        return answer_from_change(change, f"The module {module}", parsed, ev, importer_of(parsed))
    split = _SPLIT_OUT.get(top)
    if split and len(parts) >= 3 and parts[1] not in ("core", "legacy"):
        dist = f"{split[0]}-" + "-".join(p.replace("_", "-") for p in parts[1:3])
        return answer(MISSING, dist, f"{module} is an integration that {split[0]} {split[1]} split "
                      f"out of the core into its own package, {dist}, which is not installed.",
                      f"pip install {dist}   # then restart the runtime", ev)
    if len(parts) > 2 and parts[-2] == "models" and (top == "transformers"
                                                     or own_submodule_missing(parsed, module)):
        # a model-type registry (transformers, mlx_lm, vllm...): one module per architecture
        return answer(OLD, top, f"{module} is a model the installed {top} does not have yet "
                      "(support for it was added in a later release).", upgrade(top), ev)
    if len(parts) > 1 and top in LIBRARIES:
        importer = importer_of(parsed)
        return answer(NEW, top, f"{module} is no longer a module of the installed {top}: a "
                      f"release moved or removed it, and the code importing it "
                      f"({importer or 'yours'}) was written for an older {top}.",
                      f"{upgrade(importer) if importer and importer != pip_name(top) else ''}"
                      f"{'   # or: ' if importer and importer != pip_name(top) else ''}"
                      f"pip install \"{pip_name(top)}<{installed_version(top) or 'the version it was written for'}\"",
                      ev, (importer or "",))
    if own_submodule_missing(parsed, module):
        return {"reject": True}       # the package cannot import itself: see library.py
    stated = stated_version(parsed, top)
    if len(parts) > 1 and stated:     # the package is there: its release lacks the submodule
        return _not_in_stated_release(f"the module {module}", top, stated, ev)
    pkg = pip_name(top)
    local = next((f.file for f in parsed.user_frames
                  if re.search(rf"[/\\]{re.escape(top)}[/\\]", f.file)), None)
    if len(parts) > 1 and local:      # the package Python found is a folder outside site-packages
        cut = list(re.finditer(rf"[/\\]{re.escape(top)}(?=[/\\])", local))[-1]
        folder = local[:cut.end()]    # the innermost folder named like the package
        return {"id": "own-module-lacks-name",
                "cause": f"Python imports {top} from the folder {folder} (your own package, or a "
                         f"clone of the project run from its sources), not from an installed "
                         f"release, and that folder has no {module}: the checkout is another "
                         "version than the code importing it expects.",
                "fix": f'python -c "import {top}; print({top}.__file__)"   # the folder it uses\n'
                       f"git -C {folder} pull   # a clone: update it; or run from another "
                       f"directory to use the installed {pkg}"}
    if len(parts) > 1 and top not in _NAMESPACES:   # top imported (else Python names it)
        return answer(OLD, top, f"{module} is not a module of the installed {pkg}, though {top} "
                      "itself imports: the code was written for another release of it (one that "
                      f"added or moved that module), or a folder named {top} shadows the package.",
                      f"pip show {pkg}   # the installed release; the code's needs another: "
                      f"{upgrade(top)}", ev)
    if hardware_path_taken(parsed, module):
        return {"reject": True}       # the library's device detection: see library.py
    project = _project_package_folder(top, parsed) if len(parts) == 1 else None
    if project:
        return {"id": SETUP,
                "cause": f"{top} is the project's own package (the folder {project}/{top}, where "
                         f"the script runs from), not one to install: Python finds it only when "
                         f"{project} is on sys.path, and the script was started without it.",
                "fix": f"cd {project} && python -m <the script's module path>   # or: "
                       f"PYTHONPATH={project} python <the script>, as the project's README runs "
                       "it"}
    if top in _BUILD_DEPENDENCIES and _PIP_BUILD.search(parsed.text):
        building = _PIP_BUILD.search(parsed.text)
        return {"id": "pip-build-isolation",
                "cause": f"pip builds the package it installs in an isolated, empty environment, "
                         f"and that package's setup.py imports {top} while it is built: your "
                         f"installed {pkg} is not there (\"{building.group(0).strip()[:60]}\").",
                "fix": f"pip install packaging ninja wheel   # the build tools, beside {pkg}\n"
                       "pip install <the package> --no-build-isolation   # build against your "
                       f"installed {pkg}\n# or a prebuilt wheel for your torch/CUDA/Python"}
    cause = f"The package {pkg} is not installed in the Python environment that runs the code."
    if _says_installed(top, pkg, parsed.text):
        cause = (f"{pkg} is installed, as the paste says, but not in the Python environment that "
                 "runs the code: pip installed it for another interpreter (another venv or conda "
                 "env, the system Python, a notebook kernel started before the install).")
        return answer("pip-and-python-different-environments", module, cause,
                      "python -c \"import sys; print(sys.executable)\"   # the Python that runs "
                      f"the code\npython -m pip install {pkg}   # with that python; then restart "
                      "the kernel", ev)
    if top in ("torch", "tensorflow", "flax", "jax"):
        cause += " transformers needs it for the model classes of that framework."
    if installed_version(module):
        cause += (" It is installed here, so the code ran with another interpreter (a notebook "
                  "kernel or venv other than this one): install it with that Python's pip.")
        return answer(MISSING, module, cause, f"python -m pip install {pkg}   # with the python "
                      "that runs the code; then restart the kernel", ev)
    return answer(MISSING, module, cause, f"pip install {pkg}   # then restart the runtime", ev)


def _near_name(package: str, name: str) -> str | None:
    """The name `package` really exports that `name` misspells (other case, a letter off), when
    no scanned release exported `name` itself."""
    names = api_history.top_names(package)
    if not names or name in names or api_history.module(f"{package}.{name}") is not None:
        return None
    same = [n for n in names if n.lower() == name.lower()]
    if same:
        return same[0]
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.9) if len(name) >= 6 else []
    return close[0] if close else None


def _own_source(top: str, loc: str) -> str | None:
    """The file a name was looked up in, when it is a project's own source, not an installed
    package (nor a known library's checkout, whose age is a release question)."""
    m = re.fullmatch(r"\s*\((?P<path>(?:/|~|[A-Za-z]:[\\/]|\.)[^()\n]*\.py)\)\s*", loc)
    if not m or top in LIBRARIES or re.search(r"(?:site|dist)-packages|\.egg\b|/lib/python\d",
                                              m.group("path")):
        return None
    return m.group("path").replace("\\", "/")


def _misspelt(top: str, name: str, ev: dict, attribute: bool = False) -> dict[str, Any] | None:
    """The answer for a name no release of `top` had, when a release had a near spelling."""
    near = _near_name(top, name)
    if near is None:
        return None
    ev["did_you_mean"] = near
    use = f"{top}.{near}   # or: from {top} import {near}" if attribute else \
        f"from {top} import {near}"
    return {"id": "wrong-import-path",
            "cause": f"No release of {pip_name(top)} exports {name}; it exports {near}: the "
                     "name is misspelt (or taken from a fork or a pre-release pull request).",
            "fix": use}


def _own_import_broken(top: str, name: str, parsed: ParsedError) -> dict[str, Any] | None:
    """The package's own code fails to import from its own module: one release never disagrees
    with itself, so the files loaded mix two releases. In a notebook the kernel still holds the
    modules imported before a pip install (restart it); elsewhere the install is half-updated."""
    raised = next((e for e in parsed.all_errors if name in (e.message or e.raw_message or "")),
                  parsed)             # the error that says it (a launcher's traceback wraps it)
    inner = raised.innermost_frame
    if not top or inner is None or not inner.is_library or not inner.package or \
            dist_key(top_of(inner.package)) != dist_key(top) or \
            not re.search(rf"\bimport\b.*\b{re.escape(name)}\b", inner.code or ""):
        return None                   # (its own import line must show it)
    pkg = pip_name(top)
    if any(f.origin == "ipython" for f in parsed.frames) or "Cell In[" in parsed.text:
        return {"id": "env-restart-runtime",
                "cause": f"{pkg}'s own code cannot import a name from its own module: the kernel "
                         f"holds modules of the {pkg} it imported before the latest pip install, "
                         "and they meet files of the new release.",
                "fix": "# restart the kernel (Runtime > Restart), then run the imports again\n"
                       f"# if it persists: pip install --force-reinstall --no-cache-dir {pkg}"}
    return {"id": "broken-package-install",
            "cause": f"{pkg}'s own code cannot import a name from its own module: the installed "
                     "files mix two releases (an upgrade over an old install that left files "
                     "behind, or two installs in one environment).",
            "fix": f"pip uninstall -y {pkg} && pip install --no-cache-dir {pkg}"}


def refine_cannot_import(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    stale = _stale_hub_cache(parsed)
    if stale:
        return stale
    name, module = str(ev.get("name", "")), str(ev.get("module", "") or "")
    if not module:                    # "cannot import name 'X'": the paste's own import line
        m = re.search(rf"from\s+([\w.]+)\s+import\s+[^\n]*\b{re.escape(name)}\b", parsed.text)
        module = m.group(1) if m else ""
        found = api_history.exporters(name) if not module else []
        named = [f for f in found if re.search(rf"\b{re.escape(f)}\b", parsed.text)]
        if len(found) == 1 or len(named) == 1:   # the one library that exports the name,
            module = found[0] if len(found) == 1 else named[0]   # or the one the paste names
        ev["module"] = module or None
    top = top_of(module) if module else ""
    if not name or foreign_private(parsed) or import_within_declared(parsed):
        return {"reject": True}       # (the project's own fault: see library.py)
    own = _own_file_named_like(top, str(ev.get("loc") or "")) if ev.get("partial") else None
    if own:
        ev["shadowed"] = top
        return {"id": "local-module-shadows-library",
                "cause": f"Python imported your file {own} as {top}, not the installed package: "
                         f"it is named like the package, so `import {top}` inside it imports "
                         "itself (hence the circular import).",
                "fix": f"mv {own} my_{top}.py   # any other name; and delete __pycache__ beside it"}
    # a module imported again mid-import, its file not shown: no release question (a location
    # inside the installed package is its own cycle, or a module it imports shadowed)
    if ev.get("partial") and top and not ev.get("loc"):
        ev["shadowed"] = top
        return {"id": "local-module-shadows-library",
                "cause": f"{module} was imported again while its own import was still running (a "
                         f"circular import), so {name} was not defined yet: most often a file of "
                         f"yours named like the package ({top}.py, or a folder {top}/ in the "
                         "working directory) that Python imports instead of the installed one, or "
                         "a module of the package run as a script (its folder then comes first on "
                         "sys.path). The installed release is not the question.",
                "fix": f'python -c "import {top}; print({top}.__file__)"   # must be the installed '
                       f"package\n# rename your {top}.py (and delete __pycache__), or run a "
                       f"module of the package as: python -m {top}.<module>"}
    last = module.rsplit(".", 1)[-1]
    if ev.get("partial") and top and last != top and \
            re.search(r"(?:site|dist)-packages", str(ev.get("loc"))):
        # a submodule's cycle inside an installed release (optimum.exporters.onnx): its tests
        # would have met it, so the package it wraps is most likely a file of yours (onnx.py)
        names = f"{last}.py"
        ev["shadowed"] = last
        return {"id": "local-module-shadows-library",
                "cause": f"{module}, inside the installed {pip_name(top)}, was imported again "
                         f"while its own import was still running (a circular import), so {name} "
                         "was not defined yet. A released package does not import itself in a "
                         f"circle: most often a file or folder of yours named like a module it "
                         f"imports ({names} in the working directory or beside the script) is "
                         "imported in its place. The installed release is not the question.",
                "fix": f"ls {last}.py {last}/ {top}.py   # in the working directory: rename what "
                       f"is there (and delete __pycache__)\npython -c \"import {last}; "
                       f"print({last}.__file__)\"   # must be an installed package's file"}
    own = _own_import_broken(top, name, parsed)
    if own is not None:
        return own
    if top and _COMPILED_NAME.match(name) and api_history.top_name(pip_name(top), name) is None:
        return answer(SETUP, top, f"{name} is a compiled (C++/CUDA) extension of {top}, built "
                      "from its source by the package's build step; an install or checkout that "
                      "skipped that step has the Python files only.",
                      f"cd <the {top} source folder> && pip install -e .   # compiles the "
                      "extensions\n# or: python setup.py build_ext --inplace", ev)
    if "unknown location" in str(ev.get("loc", "")) and top in LIBRARIES and top != "transformers":
        pkg = pip_name(top)
        return {"id": "broken-package-install",
                "cause": f"Python found {top} only as a folder without its package files (a "
                         f"namespace package, hence 'unknown location'): the {pkg} install is "
                         f"broken, or a folder named {top} in the working directory shadows it.",
                "fix": f'python -c "import {top}; print({top}.__path__)"   # where it is found\n'
                       f"pip uninstall -y {pkg} && pip install --no-cache-dir {pkg}"}
    # a file at a full path (a relative one is often a site-packages path cut short by the
    # reporter) named like the package, lacking a name that every release of the package has:
    # no release lacks it, so that file is no release (a copy of an older release, vendored or
    # installed with --target, would lack only a newer name: the version answer below)
    shadow = _own_file_named_like(top, str(ev.get("loc") or "")) \
        if top in LIBRARIES and not ev.get("partial") else None
    if shadow and not re.match(r"(?:/|~|[A-Za-z]:[\\/])", shadow):
        shadow = None
    always = api_history.top_name(top, name) if shadow else None
    if always is None or always.removed or always.gaps or \
            always.first != api_history.releases(top)[0]:
        shadow = None
    # a library's own checkout (src/<top>/, or <repo>/<top>/ named alike: trl/trl, DeepSpeed/
    # deepspeed) installed from source is a release question, not a file of the user's
    checkout = rf"(?:src|[\w.-]*{re.escape(top).replace('_', '[_-]')}[\w.-]*)[/\\]{re.escape(top)}[/\\]"
    if shadow and not re.search(checkout, shadow, re.I):
        ev["shadowed"] = top
        return {"id": "local-module-shadows-library",
                "cause": f"Python imported {shadow}, a file of yours named like {top}, instead of "
                         f"the installed {pip_name(top)}: {name} is looked up in your file, which "
                         "does not define it. The installed release is not the question.",
                "fix": (f"mv {shadow[:-len('/__init__.py')]} my_{top}"
                        if shadow.endswith("__init__.py") else f"mv {shadow} my_{top}.py")
                       + "   # any other name; and delete the __pycache__ beside it"}
    folder = _folder_named_like(top, parsed.text) if top in LIBRARIES else None
    if folder and not shadow:
        ev["shadowed"] = top
        return {"id": "local-module-shadows-library",
                "cause": f"The paste runs {folder}, a module no release of {pip_name(top)} has: a "
                         f"folder named {top} of yours (or of the project, run from its own "
                         f"directory) is imported as {top}, and {name} is looked up there. The "
                         "installed release is not the question.",
                "fix": f"python -c \"import {top}; print({top}.__file__)\"   # must be the "
                       f"installed package\n# rename that {top}/ folder, or run from the "
                       "directory above it (for Ray: a working_dir that does not make it "
                       "top-level)"}
    source = _own_source(top, str(ev.get("loc") or "")) if not ev.get("partial") else None
    if source:
        return {"id": "own-module-lacks-name",
                "cause": f"{module} is a module of the project's own files ({source}), not an "
                         f"installed release: at import time it does not define {name}. Either "
                         f"that checkout's files lack it (renamed, another branch, an older "
                         f"clone), or the import that defines it failed and the package "
                         "swallowed the error (a try/except around an optional import such as "
                         "flash-attn or bitsandbytes, built for another torch).",
                "fix": f"grep -rn \"{name}\" {source.rsplit('/', 1)[0]}   # the file that "
                       "defines it\npython -c \"import <that module>\"   # shows the error "
                       "its package hid; or git pull / the branch the code was written for"}
    change = api_change(name, pip_name(top) if top else None) or api_change(f"{module}.{name}")
    if change is not None and change.removed and not change.added and \
            version_lt(installed_in_paste(parsed, change.package), change.removed):
        change = None                 # the paste's release still had it: something else
    home = HOME.get(name) or libclass(name)
    if home and top and api_history.top_name(top, name) is not None:
        home = None                   # a release of the package it is imported from has it
    if home and top and top != home and top in LIBRARIES and not (change and change.removed):
        ev["home"] = home
        return {"id": "wrong-import-path",
                "cause": f"{name} belongs to {home}, not to {module}.",
                "fix": f"from {home} import {name}"}
    prefix = next((p for p in BACKENDS if name.startswith(p) and name[len(p):len(p) + 1]
                   .isupper()), None) if top == "transformers" else None
    if prefix and change is not None and change.removed == "5.0.0":
        change = None                 # transformers 4 exports them only beside their backend
    near = _misspelt(top, name, ev) if change is None and module == top else None
    if near:
        return near
    if change is not None and change.added and not change.removed and \
            _reinstalled_in_vain(change.package, change.added, parsed.text):
        pkg = pip_name(change.package)
        return {"id": "pip-and-python-different-environments",
                "cause": f"{name} is in {pkg} from {change.added} on, and the paste says "
                         f"installing {pkg} again did not help: pip installs into another Python "
                         "environment than the one that runs the code (another venv or conda "
                         "env, the system Python, a notebook kernel started before).",
                "fix": f"python -m pip install -U \"{pkg}>={change.added}\"   # with the python "
                       "that runs the code\npython -c \"import sys, "
                       f"{top_of(change.package)}; print(sys.executable, "
                       f"{top_of(change.package)}.__file__)\""}
    if change is not None:
        return answer_from_change(change, f"{name} ({module or change.package})", parsed, ev,
                            importer_of(parsed))
    if top == "transformers":
        tf_ver = stated_version(parsed, "tensorflow")
        if prefix and version_lt(stated_version(parsed, "transformers"), "5.0.0") is False:
            return answer(NEW, "transformers", f"transformers 5 removed its {prefix} classes; "
                          f"{name} exists only in transformers 4.", pin("transformers", "5"),
                          ev)
        if prefix == "TF" and tf_ver and version_lt(tf_ver, "2.3.0"):
            return answer(OLD, "tensorflow", f"transformers exports its TF classes ({name}) only "
                          f"with TensorFlow >= 2.3; TensorFlow {tf_ver} is too old.",
                          upgrade("tensorflow", "2.3"), ev, ("transformers",))
        if prefix:
            backend = BACKENDS[prefix]
            return answer(MISSING, backend, f"transformers exports {name} only when {backend} is "
                          f"installed in the same environment, and it is not (or not "
                          "importable).", f"pip install {backend}   # then restart the runtime",
                          ev, ("transformers",))
        if "unknown location" in str(ev.get("loc", "")):
            return answer(MISSING, "torch", f"transformers exports its PyTorch objects ({name}) "
                          "only when PyTorch is installed in the same environment.",
                          "pip install torch   # or: pip install 'transformers[torch]'", ev,
                          ("transformers",))
        stated = stated_version(parsed, "transformers")
        own_import = re.search(rf"^\W*from\s+transformers\s+import\s[^\n]*\b{re.escape(name)}\b",
                               parsed.text, re.M)
        if own_import and _always_a_torch_class(name) and not version_lt(
                stated, api_history.releases("transformers")[0]):
            return answer(MISSING, "torch", f"Every release of transformers exports {name}, "
                          "but only when PyTorch is importable in the same environment: it is "
                          "not installed there (or fails to import).",
                          "pip install torch   # in the environment that runs the code; then "
                          "restart the runtime", ev, ("transformers",))
    if not top or top not in LIBRARIES | {top_of(k) for k in ("sentence_transformers",)}:
        if not top and parsed.innermost_library_package is None:
            return {"reject": True}
    pkg = (module if module and top not in LIBRARIES else top) or \
        parsed.innermost_library_package or ""
    if not pkg:
        return {"reject": True}
    importer = importer_of(parsed)
    who = importer if importer and importer != pip_name(pkg) else "the code"
    return answer(OLD, pkg, f"{name} is not in the installed {pip_name(pkg)}: {who} needs a "
                  f"newer release (names are added over releases; if {name} was removed "
                  "instead, pin the release the code was written for).", upgrade(pkg), ev,
                  (importer or "",))


_TORCH_CLASS = re.compile(r"^(?:AutoModel\w*|[A-Z]\w*(?:For[A-Z]\w*|Model|PreTrainedModel))$")


def _always_a_torch_class(name: str) -> bool:
    """A PyTorch model class (no TF/Flax prefix) that every scanned transformers release has."""
    span = api_history.top_name("transformers", name)
    rels = api_history.releases("transformers")
    return bool(_TORCH_CLASS.match(name) and not name.startswith(("TF", "Flax")) and span
                and rels and span.first == rels[0] and not span.removed and not span.gaps)


def refine_import_line(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The paste's own import line takes a class from a library it does not belong to, and the
    paste says the import fails (the error line itself may be missing)."""
    name, module = str(ev.get("name", "")), str(ev.get("module", ""))
    home = HOME.get(name) or libclass(name)
    top = top_of(module)
    failed = re.search(r"ImportError|can(?:no|')t import|can not import|unable to import|"
                       r"fail(?:s|ed)? to import", parsed.text, re.I)
    if not failed or not home or top not in LIBRARIES or dist_key(top) == dist_key(home):
        return {"reject": True}
    ev["home"] = home
    return {"id": "wrong-import-path", "cause": f"{name} belongs to {home}, not to {module}.",
            "fix": f"from {home} import {name}"}


def _shadowed(module: str, name: str) -> str | None:
    """The library (pip name) a top-level `module` is, when every scanned release of it
    exports `name`: a module without it is something else of the same name."""
    if "." in module or not name:
        return None
    span = api_history.top_name(pip_name(module), name)
    rels = api_history.releases(module)
    if span is None or not rels or span.first != rels[0] or span.removed or span.gaps:
        return None
    return pip_name(module)


_NOT_PROJECTS = frozenset({"python", "torch", "cuda", "cudnn", "tensorflow", "numpy", "pip",
                           "nvidia-driver", "os", "platform"})


def _class_method_of_another_release(cls: str, name: str, parsed: ParsedError,
                                     ev: dict) -> dict[str, Any] | None:
    """`type object 'TextClassifier' has no attribute 'load'`: the paste's code calls a class
    method of a library's class (imported from it, or the one library whose version the paste
    states) that the installed release lacks: code for another release of its API. None when
    the paste defines the class, does not call it so, or names no such library."""
    if re.search(rf"^\s*class {re.escape(cls)}\b", parsed.text, re.M) or \
            not re.search(rf"(?<![\w.]){re.escape(cls)}\.{re.escape(name)}\(", parsed.text):
        return None
    imported = re.search(rf"^\s*from\s+(?P<pkg>[A-Za-z_]\w*)[\w.]*\s+import\s+[^\n]*\b"
                         rf"{re.escape(cls)}\b", parsed.text, re.M)
    stated = [k for k in paste_versions(parsed.text) if k not in _NOT_PROJECTS]
    pkg = imported.group("pkg") if imported else libclass(cls) or \
        (stated[0] if len(stated) == 1 else None)
    if not pkg or api_history.releases(pkg):
        return None                   # unknown, or a library whose history answers it
    version = stated_version(parsed, pkg)
    return answer(OLD, pkg, f"{cls}.{name}() is not in the installed {pip_name(pkg)}"
                  + (f" {version}" if version else "") + ": the code follows another release's "
                  "API (the method was added later, or renamed: older releases may call it "
                  "otherwise).", f"pip show {pip_name(pkg)}   # the installed release; then the "
                  f"code's release: {upgrade(pkg)}, or the method name of yours", ev)


def refine_module_attribute(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    stale = _stale_hub_cache(parsed)
    if stale:
        return stale
    module, name = str(ev.get("module", "")), str(ev.get("name", ""))
    if foreign_private(parsed):
        return {"reject": True}       # a library's use of another's internal: see library.py
    if str(ev.get("kind", "")).startswith("type") and "." not in module:   # a class, not a module
        return _class_method_of_another_release(module, name, parsed, ev) or {"reject": True}
    top = top_of(module)
    stated = stated_version(parsed, top)
    if top not in LIBRARIES and stated and module == top and \
            re.search(rf"(?<![\w.]){re.escape(top)}\.{re.escape(name)}\b", parsed.text):
        return _not_in_stated_release(f"{top}.{name}", top, stated, ev)
    said = _said_newer(parsed.text) if top not in LIBRARIES else None
    if said:
        return answer(OLD, top, f"{module}.{name} is not in the installed {pip_name(top)}; as the "
                      f"paste says (\"{said}\"), a newer release has it: the code was written for "
                      "it.", f"{upgrade(top)}   # then restart the runtime", ev)
    if top not in LIBRARIES:
        importer = importer_of(parsed)
        if _pip_installed(top, parsed.text) and importer in (None, pip_name(top)):
            return answer(OLD, top, f"{module} has no {name} in the installed {pip_name(top)}: "
                          "the code (or the documentation it follows) was written for a newer "
                          "release.", f"{upgrade(top)}   # or follow the documentation of the "
                          f"installed release (pip show {pip_name(top)})", ev)
        return {"reject": True}
    change = api_change(name, pip_name(top)) or api_change(f"{module}.{name}") or \
        api_change(module)
    if change is None and top in ("keras", "tensorflow"):
        change = api_change(name, "tensorflow")
    importer = importer_of(parsed)
    if change is not None:
        return answer_from_change(change, f"{module}.{name}", parsed, ev, importer)
    shadow = _shadowed(module, name)
    if shadow:
        ev["shadowed"] = module
        return {"id": "local-module-shadows-library",
                "cause": f"Every release of {shadow} exports {name}, so the {module} that Python "
                         f"imported is not the library: a file {module}.py or a folder "
                         f"{module}/ in the working directory (or the script's own folder) "
                         "hides it.",
                "fix": f'python -c "import {module}; print({module}.__file__)"   # the file it '
                       f"imported\n# rename that {module}.py / {module}/ (and delete its "
                       "__pycache__)"}
    near = _misspelt(top, name, ev, attribute=True) \
        if module == top and ev.get("kind") == "module" else None
    if near:
        return near
    private = name.startswith("_") or any(p.startswith("_") for p in module.split(".")[1:])
    if private and (not importer or importer == pip_name(top)) and \
            not re.search(rf"(?<!has no attribute ){QUOTE}{re.escape(name)}\b",
                          parsed.text.replace(f"attribute '{name}'", "")):
        return {"reject": True}       # the library's own private module: see library.py
    if private and importer and importer != pip_name(top):
        return answer(NEW, top, f"{importer} uses {module}.{name}, an internal of {top} that a "
                      f"newer {top} moved or removed.", f"{upgrade(importer)}   # or: "
                      f"{pin(top, installed_version(top))}", ev, (importer,))
    return answer(OLD, top, f"{module} has no {name} in the installed {pip_name(top)}: the code "
                  "(or a library that uses it) needs a newer release.", upgrade(top), ev,
                  (importer or "",))




# code or a command line that uses an optional package's feature (then that package is needed)
_FEATURE_USE = {"peft": re.compile(r"\bpeft_config\s*=|--use_peft\b|\buse_peft\s*=\s*True|"
                                   r"\bget_peft_\w+\(|\bLoraConfig\(|--lora_r\b")}


def refine_name_not_defined(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    fold_groups(ev, ("name",))
    name = str(ev.get("name", "")).replace(" ", "")
    home = HOME.get(name) or libclass(name)
    change = api_change(name, home) if home else None
    if change is None:
        uses = _FEATURE_USE.get(home or "")
        found = uses.search(parsed.text.replace(f"name '{name}'", "")) if uses else None
        if found is None:
            return {"reject": True}   # not the user's feature: a library's unguarded name
        importer = importer_of(parsed) or "the library"
        return answer(MISSING, home, f"{importer} imports {name} only when {home} is installed, "
                      f"and the run uses {home} ({found.group(0).strip()}) in an environment "
                      f"without it.", f"pip install {pip_name(home)}   # then restart the "
                      "runtime", ev)
    return answer(OLD, change.package, f"{name} is imported only when {change.package} >= "
                  f"{change.added} is installed; an older (or missing) {change.package} leaves "
                  "it undefined.", upgrade(change.package, change.added) +
                  "   # then restart the runtime", ev)
