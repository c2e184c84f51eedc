"""Does the reproduction still fail on the latest release? Rerun it in a throwaway venv.

The venv is layered over the user's environment (`python -m venv --system-site-packages`, plus
a .pth file naming this interpreter's own package folders, since a venv made from a venv would
otherwise only see the base Python's), so everything the user has is there; only the suspected package is upgraded from the package
index (`pip install -U`, $WIZARD_INDEX_URL or pip's own configuration, or a local folder of
wheels given as `find_links`). The reproduction then runs in that venv: failing the same way
means "still fails on X.Y", running clean means "fixed in X.Y: upgrade". With no index
reachable, or nothing newer on it, the step says so and is skipped. The venv is deleted after.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from wizard.evidence.release import (check_disabled, check_newer_release, configured_index_url,
                                     installed_distribution)
from wizard.evidence.repro import Outcome, run_script
from wizard.evidence.reprex import Signature, same_failure

INSTALL_TIMEOUT = 300.0
BUDGET = 420.0


@dataclass
class Rerun:
    """The answer to "does it still fail on the latest release?"."""

    package: str
    distribution: str | None
    installed: str | None
    status: str                       # still-fails | fixed | not-newer | skipped
    latest: str | None = None         # the version the venv got
    why: str = ""                     # for skipped/not-newer, and what the rerun raised
    seconds: float = 0.0

    @property
    def line(self) -> str:
        """The sentence for the report."""
        name = self.distribution or self.package
        if self.status == "still-fails":
            return f"Still fails on {name} {self.latest} (the latest release; installed {self.installed})."
        if self.status == "fixed":
            return (f"Fixed in {name} {self.latest}: upgrade (`pip install -U "
                    f"\"{name}=={self.latest}\"`); installed {self.installed}.")
        if self.status == "not-newer":
            return (f"Still fails on {name} {self.installed}, already the latest release usable "
                    f"here: {self.why}")
        return f"Not checked against the latest {name} release: {self.why}"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["line"] = self.line
        d["seconds"] = round(self.seconds, 1)
        return d


def _venv_python(folder: Path) -> Path:
    return folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _pip_install(python: Path, distribution: str, index_url: str | None,
                 find_links: str | None, timeout: float, no_deps: bool = False
                 ) -> tuple[bool, str]:
    cmd = [str(python), "-m", "pip", "install", "--upgrade"] + (["--no-deps"] if no_deps else []) + [
           "--disable-pip-version-check", "--no-input", "--retries", "0", "--timeout", "15",
           distribution]
    if find_links:
        cmd += ["--no-index", "--find-links", find_links]
    elif index_url:
        cmd += ["--index-url", index_url]
    env = _clean_env({"PIP_NO_INPUT": "1", "PYTHONWARNINGS": "ignore"})
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return False, f"pip did not finish within {timeout:.0f} s"
    if proc.returncode == 0:
        return True, ""
    if "--no-deps" not in cmd and "No matching distribution" in (proc.stderr or ""):
        # a new dependency the index lacks: upgrade the package alone, over the user's others
        return _pip_install(python, distribution, index_url, find_links, timeout, no_deps=True)
    lines = [ln.strip() for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip()]
    return False, next((ln.removeprefix("ERROR: ") for ln in reversed(lines)
                        if ln.startswith("ERROR")), lines[-1] if lines else "pip failed")


def user_layers() -> list[str]:
    """This interpreter's package folders (site-packages and sys.path entries outside the
    standard library), in import order: what the throwaway venv sees beneath its own."""
    import sysconfig

    stdlib = {os.path.realpath(sysconfig.get_paths()[k]) for k in ("stdlib", "platstdlib")}
    out: list[str] = []
    for entry in sys.path:
        path = os.path.realpath(entry) if entry else ""
        if not path or not os.path.isdir(path) or path in stdlib or path in out:
            continue
        if any(path.startswith(s + os.sep) for s in stdlib) and "-packages" not in path:
            continue
        out.append(path)
    return out


def _layer(python: Path, layers: list[str]) -> None:
    """Write the .pth that puts the user's package folders under the venv's own."""
    proc = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], capture_output=True, text=True, timeout=60,
                          env=_clean_env())
    purelib = Path(proc.stdout.strip())
    purelib.mkdir(parents=True, exist_ok=True)
    (purelib / "wizard-user-env.pth").write_text("\n".join(layers) + "\n", encoding="utf-8")


def _clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for the venv's processes: no PYTHONPATH (it would shadow the upgrade)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(extra or {})
    env["PYTHONPATH"] = ""           # set and empty: run_script merges os.environ underneath
    return env


def _version_in(python: Path, distribution: str) -> str | None:
    code = ("import importlib.metadata as m, sys\ntry: print(m.version(sys.argv[1]))\n"
            "except Exception: pass")
    proc = subprocess.run([str(python), "-c", code, distribution], capture_output=True,
                          text=True, timeout=60, env=_clean_env())
    return proc.stdout.strip() or None


def rerun_on_latest(script: str, expected: Signature, package: str,
                    index_url: str | None = None, find_links: str | None = None,
                    env: dict[str, str] | None = None, python: str | None = None,
                    run_timeout: float = 120.0, budget: float = BUDGET,
                    layers: list[str] | None = None, same_major: bool = False,
                    same_major_why: str = "",
                    on_progress: Callable[[str], None] | None = None) -> Rerun:
    """Upgrade only `package` in a throwaway venv over this environment and rerun `script`
    (`layers`: the package folders beneath the venv's own; this interpreter's by default)."""
    say = on_progress or (lambda _msg: None)
    start = time.monotonic()
    dist, installed = installed_distribution(package)
    info = Rerun(package, dist, installed, "skipped")
    if installed is None or dist is None:
        info.why = f"{package} is not installed here"
        return info
    if check_disabled() and not find_links:
        info.why = "the release check is switched off ($WIZARD_INDEX_URL=off)"
        return info
    index_url = index_url or configured_index_url()
    target = dist
    if not find_links:
        say(f"latest release: asking the package index for {dist}")
        newest = check_newer_release(package, installed, index_url=index_url)
        if not newest.checked:
            info.why = (newest.error or "the package index could not be asked").removeprefix(
                "could not be checked: ") + "; skipped."
            return info
        if not newest.newer:
            info.status, info.latest = "not-newer", newest.latest
            info.why = "the index has nothing newer."
            return info
        newer = [v for v in newest.newer if not same_major or
                 v.split(".")[0] == (installed or "").split(".")[0]]
        if not newer:
            info.status, info.latest = "not-newer", newest.latest_same_major
            info.why = (f"the index has {newest.latest}, a major release this setup cannot use "
                        f"({same_major_why})." if same_major_why else
                        "the index has nothing newer.")
            return info
        target = f"{dist}=={newer[0]}"
    folder = Path(tempfile.mkdtemp(prefix="wizard-latest-"))
    try:
        say(f"latest release: a throwaway venv over this one, upgrading only {dist}")
        base = python or sys.executable
        made = subprocess.run([base, "-m", "venv", "--system-site-packages", "--without-pip",
                               str(folder)], capture_output=True, text=True, timeout=120)
        if made.returncode != 0:
            info.why = f"a virtual environment could not be made ({made.stderr.strip()[:200]})"
            return info
        venv_python = _venv_python(folder)
        _layer(venv_python, layers if layers is not None else user_layers())
        left = budget - (time.monotonic() - start)
        ok, why = _pip_install(venv_python, target, index_url, find_links,
                               min(INSTALL_TIMEOUT, max(10.0, left)))
        if not ok:
            where = find_links or index_url or "pip's configured index"
            info.why = f"the package index ({where}) gave no release to install: {why}"
            return info
        latest = _version_in(venv_python, dist)
        info.latest = latest
        if latest is None or latest == installed:
            info.status = "not-newer"
            info.why = "pip found nothing newer to install."
            return info
        say(f"latest release: rerunning the reproduction on {dist} {latest}")
        left = budget - (time.monotonic() - start)
        outcome: Outcome = run_script(script, timeout=min(run_timeout, max(5.0, left)),
                                      env=_clean_env(env), python=str(venv_python))
        same, why = same_failure(outcome, expected)
        info.status = "still-fails" if same else "fixed" if outcome.returncode == 0 else \
            "skipped"
        if info.status == "skipped":
            info.why = f"on {dist} {latest} the script fails differently ({why})"
        else:
            info.why = why
        return info
    finally:
        info.seconds = time.monotonic() - start
        shutil.rmtree(folder, ignore_errors=True)
