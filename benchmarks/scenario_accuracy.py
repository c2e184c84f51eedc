"""How often the wizard names the cause an expert would name, on the fine-tuning setups in
benchmarks/scenarios/ (see its README.md): each setup through the three ways in.

    python benchmarks/scenario_accuracy.py [--only NAME ...] [--mode case|script|run ...]
                                           [--framework pytorch|tensorflow] [--json OUT.json]
                                           [--cache DIR] [--plain] [--list]

Modes (all three by default):
  case    python -m wizard check CASE.yaml --json OUT --no-input     (the setup as described)
  script  python -m wizard check --script train.py --json OUT        (read, never run)
  run     python -m wizard run train.py --steps 3 --json OUT         (run with the wizard attached)

Setups come in rounds (`round:` in scenario.yaml; absent: 1). Round 1 was written and tuned on
together; each later round is scored as it comes, before any tuning on it, and split by setup:
"held" when the SHA-256 of the setup's name starts with a hex digit below 5, else "dev". Tune on
dev (its misses are listed); held is only scored (counts, no misses).

A setup scores when verdict.kind equals its key's kind and, for a fault, verdict.primary is the
key's primary id (or one of the ids its key lists under `also`, which name the same cause). A
healthy key scores on the kind alone (the primary of a healthy verdict is only its first warning).

Each setup runs in the virtualenv of its framework: .venv-tf (TF_USE_LEGACY_KERAS=1) for
TensorFlow, .venv-modern (USE_TF=0) for PyTorch; override with --python-tf / --python-modern.
Everything is offline (HF_HUB_OFFLINE=1). The fixtures (tiny random models, local tokenizers,
small datasets; benchmarks/scenarios/fixtures.py) are built once into the cache folder:
--cache, else $WIZARD_CACHE/scenario-bench, else /tmp/hf-wizard-scenario-bench. Each setup's
rendered case.yaml and train.py, its outputs and the wizard's JSON go to CACHE/runs/<name>/.

--only NAME (repeatable) picks setups by name or shell pattern (e.g. 'tf-*', '*healthy*');
--plain runs the scripts without the wizard and prints how each ends (to check the corpus);
--list prints the setups and their keys. A full run takes tens of minutes on a CPU (TensorFlow
setups dominate: each command imports TensorFlow in fresh processes).
"""
from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "benchmarks" / "scenarios"
PLACEHOLDER = "@FIXTURES@"
MODES = ("case", "script", "run")
KINDS = ("user-error", "healthy", "inconclusive", "library-bug")

try:
    import yaml
except ImportError:  # re-run under a project environment that has PyYAML
    venv = ROOT / ".venv-modern" / "bin" / "python"
    if venv.exists() and Path(sys.executable).resolve() != venv.resolve():
        os.execv(str(venv), [str(venv), *sys.argv])
    raise


@dataclass
class Scenario:
    name: str
    folder: Path
    framework: str
    style: str
    fault: str
    kind: str
    primary: str | None
    also: list[str] = field(default_factory=list)
    script_set: dict[str, Any] = field(default_factory=dict)
    run_args: list[str] = field(default_factory=list)
    round: int = 1

    @property
    def split(self) -> str:
        """'tuned' for round 1; from round 2 on 'held' or 'dev' by a hash of the name."""
        if self.round == 1:
            return "tuned"
        return "held" if hashlib.sha256(self.name.encode()).hexdigest()[0] < "5" else "dev"

    def accepts(self, kind: str | None, primary: str | None) -> bool:
        if kind != self.kind:
            return False
        if self.kind == "healthy":
            return True
        return primary == self.primary or primary in self.also

    @property
    def key(self) -> str:
        return self.kind if self.kind == "healthy" else f"{self.kind} {self.primary}"


def load_scenarios() -> list[Scenario]:
    out = []
    for meta_file in sorted(SCENARIOS.glob("*/scenario.yaml")):
        meta = yaml.safe_load(meta_file.read_text(encoding="utf-8"))
        expect = meta["expect"]
        if expect["kind"] not in KINDS:
            raise SystemExit(f"{meta_file}: expect.kind {expect['kind']!r} is not one of {KINDS}")
        out.append(Scenario(
            name=meta_file.parent.name, folder=meta_file.parent, framework=meta["framework"],
            style=meta["style"], fault=meta["fault"], kind=expect["kind"],
            primary=expect.get("primary"), also=list(expect.get("also") or []),
            script_set=dict(meta.get("script_set") or {}), run_args=list(meta.get("run_args") or []),
            round=int(meta.get("round", 1))))
    return out


# -- environments and fixtures -------------------------------------------------------------------
def default_cache() -> Path:
    base = os.environ.get("WIZARD_CACHE")
    return Path(base) / "scenario-bench" if base else Path("/tmp/hf-wizard-scenario-bench")


def framework_env(framework: str) -> dict[str, str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false", "TF_CPP_MIN_LOG_LEVEL": "3", "MPLBACKEND": "Agg",
           "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1",
           # the newer-release lookup must never wait on the network
           "WIZARD_INDEX_URL": os.environ.get("WIZARD_INDEX_URL", "http://127.0.0.1:9/simple")}
    if framework == "tensorflow":
        env["TF_USE_LEGACY_KERAS"] = "1"
        env.pop("USE_TF", None)
    else:
        env["USE_TF"] = "0"
    return env


def build_fixtures(cache: Path, framework: str, python: str) -> Path:
    folder = cache / framework
    print(f"fixtures ({framework}): {folder}", flush=True)
    proc = subprocess.run([python, str(SCENARIOS / "fixtures.py"), str(cache), framework],
                          env=framework_env(framework), capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
        raise SystemExit(f"building the {framework} fixtures failed:\n{tail}")
    return folder


def render(s: Scenario, cache: Path) -> Path:
    """CACHE/runs/<name>/ with case.yaml and train.py pointing at the fixtures (fresh)."""
    run_dir = cache / "runs" / s.name
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    fixtures = str(cache / s.framework)
    for name in ("case.yaml", "train.py"):
        text = (s.folder / name).read_text(encoding="utf-8")
        (run_dir / name).write_text(text.replace(PLACEHOLDER, fixtures), encoding="utf-8")
    return run_dir


# -- one command ---------------------------------------------------------------------------------
def command(mode: str, s: Scenario, run_dir: Path, python: str) -> list[str]:
    out = ["--json", str(run_dir / f"{mode}.json"), "--out", str(run_dir / f"wizard-out-{mode}"),
           "--quiet"]
    if mode == "case":
        return [python, "-m", "wizard", "check", str(run_dir / "case.yaml"), *out, "--no-input"]
    if mode == "script":
        sets = [a for k, v in s.script_set.items() for a in ("--set", f"{k}={v}")]
        return [python, "-m", "wizard", "check", "--script", str(run_dir / "train.py"), *out, *sets]
    return [python, "-m", "wizard", "run", "--steps", "3", *out, str(run_dir / "train.py"),
            *s.run_args]


def run_mode(mode: str, s: Scenario, run_dir: Path, python: str, timeout: float) -> dict[str, Any]:
    json_path = run_dir / f"{mode}.json"
    json_path.unlink(missing_ok=True)
    start = time.perf_counter()
    try:
        proc = subprocess.run(command(mode, s, run_dir, python), cwd=run_dir,
                              env=framework_env(s.framework), capture_output=True, text=True,
                              timeout=timeout)
        rc, stderr = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired:
        rc, stderr = None, f"timed out after {timeout:.0f} s"
    seconds = time.perf_counter() - start
    (run_dir / f"{mode}.stderr.txt").write_text(stderr or "", encoding="utf-8")
    got: dict[str, Any] = {"mode": mode, "exit": rc, "seconds": round(seconds, 1),
                           "kind": None, "primary": None}
    if json_path.exists():
        try:
            verdict = json.loads(json_path.read_text(encoding="utf-8"))["verdict"]
            got["kind"], got["primary"] = verdict.get("kind"), verdict.get("primary")
            got["summary"] = verdict.get("summary")
        except (ValueError, KeyError) as exc:
            got["error"] = f"unreadable JSON: {exc}"
    else:
        lines = [ln for ln in (stderr or "").strip().splitlines() if ln.strip()]
        got["error"] = f"exit {rc}, no JSON: {lines[-1][:200] if lines else 'no output'}"
    got["ok"] = s.accepts(got["kind"], got["primary"])
    return got


def shown(got: dict[str, Any]) -> str:
    if got.get("error"):
        return got["error"]
    if got["kind"] == "healthy" or not got["primary"]:
        return str(got["kind"])
    return f"{got['kind']} {got['primary']}"


# -- the plain run (no wizard) -------------------------------------------------------------------
def plain(scenarios: list[Scenario], cache: Path, pythons: dict[str, str], timeout: float) -> None:
    for s in scenarios:
        run_dir = render(s, cache)
        start = time.perf_counter()
        try:
            proc = subprocess.run([pythons[s.framework], "train.py", *s.run_args], cwd=run_dir,
                                  env=framework_env(s.framework), capture_output=True, text=True,
                                  timeout=timeout)
            lines = [ln for ln in (proc.stdout + proc.stderr).strip().splitlines() if ln.strip()]
            errors = [ln for ln in lines if ln[:1].isalpha() and ("Error" in ln.split(":")[0]
                                                                 or "Exception" in ln.split(":")[0])]
            end = "ok" if proc.returncode == 0 else (errors[-1] if errors else f"exit {proc.returncode}")
            losses = [ln for ln in proc.stdout.splitlines() if "loss" in ln][-2:]
        except subprocess.TimeoutExpired:
            end, losses = f"timed out after {timeout:.0f} s", []
        print(f"{s.name:38s} {time.perf_counter() - start:6.1f}s  {end[:160]}", flush=True)
        for ln in losses:
            print(f"{'':46s}{ln.strip()[:150]}")


# -- report --------------------------------------------------------------------------------------
def report(scenarios: list[Scenario], results: dict[str, dict[str, dict]], modes: list[str]) -> None:
    width = max(len(s.name) for s in scenarios)
    print()
    print(f"{'setup':{width}s}  {'key':52s}  " + "  ".join(f"{m:6s}" for m in modes))
    for s in scenarios:
        if s.split == "held":
            continue
        marks = "  ".join(f"{'ok' if results[s.name][m]['ok'] else 'MISS':6s}" for m in modes)
        print(f"{s.name:{width}s}  {s.key[:52]:52s}  {marks}")
    healthy = [s for s in scenarios if s.kind == "healthy"]
    faulty = [s for s in scenarios if s.kind != "healthy"]
    for m in modes:
        got = {s.name: results[s.name][m] for s in scenarios}
        right = sum(g["ok"] for g in got.values())
        kind_right = sum(g["kind"] == s.kind for s, g in zip(scenarios, got.values()))
        fault_right = sum(got[s.name]["ok"] for s in faulty)
        healthy_right = sum(got[s.name]["kind"] == "healthy" for s in healthy)
        false_healthy = sum(got[s.name]["kind"] == "healthy" for s in faulty)
        seconds = sum(g["seconds"] for g in got.values())
        n = len(scenarios)
        print(f"\n== mode {m}: {right}/{n} right ({right / n:.0%}); verdict kind right "
              f"{kind_right}/{n}; faults named {fault_right}/{len(faulty)}; healthy setups "
              f"healthy {healthy_right}/{len(healthy)}; faulty setups called healthy "
              f"{false_healthy}/{len(faulty)}; time {seconds:.0f} s ({seconds / n:.1f} s per setup)")
        for part in ("tuned", "dev", "held"):
            some = [s for s in scenarios if s.split == part]
            if some and len(some) < n:
                print(f"   {part:5s}: {sum(got[s.name]['ok'] for s in some)}/{len(some)} right")
        for r in sorted({s.round for s in scenarios} - {1}):
            some = [s for s in scenarios if s.round == r]
            print(f"   round {r}: {sum(got[s.name]['ok'] for s in some)}/{len(some)} right")
        misses = [s for s in scenarios if not got[s.name]["ok"] and s.split != "held"]
        if misses:
            print("misses (setup: expected -> got):")
            for s in misses:
                print(f"  {s.name}: {s.key} -> {shown(got[s.name])}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", metavar="NAME",
                    help="a setup name or shell pattern (repeatable)")
    ap.add_argument("--mode", action="append", choices=MODES, help="repeatable; default: all three")
    ap.add_argument("--framework", choices=("pytorch", "tensorflow"))
    ap.add_argument("--json", metavar="OUT.json", help="write every result as JSON")
    ap.add_argument("--cache", type=Path, default=None, help="fixture and run folder")
    ap.add_argument("--python-tf", default=str(ROOT / ".venv-tf" / "bin" / "python"))
    ap.add_argument("--python-modern", default=str(ROOT / ".venv-modern" / "bin" / "python"))
    ap.add_argument("--timeout", type=float, default=600, help="seconds per command (default 600)")
    ap.add_argument("--plain", action="store_true", help="run the scripts without the wizard")
    ap.add_argument("--list", action="store_true", help="print the setups and their keys")
    args = ap.parse_args(argv)

    scenarios = load_scenarios()
    if args.only:
        scenarios = [s for s in scenarios if any(fnmatch.fnmatch(s.name, p) for p in args.only)]
    if args.framework:
        scenarios = [s for s in scenarios if s.framework == args.framework]
    if not scenarios:
        print("no setup matches", file=sys.stderr)
        return 2
    if args.list:
        for s in scenarios:
            if s.split == "held":
                print(f"{s.name:38s} {s.framework:10s} {s.style:7s} (held: key not shown)")
                continue
            print(f"{s.name:38s} {s.framework:10s} {s.style:7s} {s.key:60s} {s.fault}")
        print(f"{len(scenarios)} setups, {sum(s.kind == 'healthy' for s in scenarios)} healthy")
        return 0
    modes = list(dict.fromkeys(args.mode or MODES))
    pythons = {"tensorflow": args.python_tf, "pytorch": args.python_modern}
    cache = (args.cache or default_cache()).resolve()
    for fw in sorted({s.framework for s in scenarios}):
        build_fixtures(cache, fw, pythons[fw])
    if args.plain:
        plain(scenarios, cache, pythons, args.timeout)
        return 0

    started = time.perf_counter()
    results: dict[str, dict[str, dict]] = {}
    for i, s in enumerate(scenarios, 1):
        run_dir = render(s, cache)
        results[s.name] = {}
        for m in modes:
            got = run_mode(m, s, run_dir, pythons[s.framework], args.timeout)
            results[s.name][m] = got
            if s.split == "held":     # scored, never read case by case
                print(f"[{i}/{len(scenarios)}] (a held setup) {m} ({got['seconds']:.0f} s)",
                      flush=True)
                continue
            print(f"[{i}/{len(scenarios)}] {s.name} {m}: {'ok  ' if got['ok'] else 'MISS'} "
                  f"{shown(got)} ({got['seconds']:.0f} s)", flush=True)
    report(scenarios, results, modes)
    print(f"\ntotal {time.perf_counter() - started:.0f} s for {len(scenarios)} setups x "
          f"{len(modes)} mode(s); runs in {cache / 'runs'}")
    if args.json:
        payload = {"modes": modes, "cache": str(cache), "setups": [
            {"name": s.name, "framework": s.framework, "style": s.style, "fault": s.fault,
             "expect": {"kind": s.kind, "primary": s.primary, "also": s.also},
             "results": results[s.name]} for s in scenarios]}
        Path(args.json).write_text(json.dumps(payload, indent=2), encoding="utf-8")
        print(f"json: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
