"""Memory: parameter counts (headers, Hub, meta device), the breakdown's rules, the probes (estimate,
will-not-fit, GPU residents, TF memory growth, measured peak, largest batch) and the command."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import threading
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from wizard.core.case import Case
from wizard.estimate.memory import (GiB, ModelGeometry, ModelNotFound, ParamCount, TrainingSetup,
                                    activation_bytes, advise, analytic_param_count, combined_fix,
                                    count_hub, count_local, estimate_memory, estimate_model,
                                    find_largest_batch, optimizer_state, sharding_table)

ROOT = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("torch") is None:
    pytest.skip("the memory tests build PyTorch models", allow_module_level=True)

TINY = {
    "bert": ("BertConfig", "BertForSequenceClassification",
             dict(vocab_size=500, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                  intermediate_size=64, max_position_embeddings=128)),
    "distilbert": ("DistilBertConfig", "DistilBertForSequenceClassification",
                   dict(vocab_size=500, dim=32, n_layers=2, n_heads=2, hidden_dim=64,
                        max_position_embeddings=128)),
    "gpt2": ("GPT2Config", "GPT2LMHeadModel",
             dict(vocab_size=500, n_embd=32, n_layer=2, n_head=2, n_positions=128)),
    "llama": ("LlamaConfig", "LlamaForCausalLM",
              dict(vocab_size=500, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                   num_key_value_heads=2, intermediate_size=64, max_position_embeddings=128)),
    "t5": ("T5Config", "T5ForConditionalGeneration",
           dict(vocab_size=500, d_model=32, num_layers=2, num_heads=2, d_ff=64, d_kv=16,
                decoder_start_token_id=0, pad_token_id=0)),
}


_BUILD = """
import json, sys
import torch, transformers
from wizard.estimate.memory import count_from_config
spec, root = json.loads(sys.argv[1]), sys.argv[2]
out = {}
torch.manual_seed(0)
for name, (cfg_name, cls_name, kw) in spec.items():
    model = getattr(transformers, cls_name)(getattr(transformers, cfg_name)(**kw))
    model.save_pretrained(f"{root}/{name}")
    out[name] = {"exact": sum(p.numel() for p in model.parameters()),
                 "meta": count_from_config(model.config).total}
    if name == "gpt2":
        model.save_pretrained(f"{root}/gpt2-sharded", max_shard_size="40KB")
base = []
for cfg, arch in ((transformers.BertConfig(), "BertForMaskedLM"),
                  (transformers.GPT2Config(), "GPT2LMHeadModel"),
                  (transformers.LlamaConfig(hidden_size=2048, intermediate_size=8192,
                                            num_hidden_layers=16, num_attention_heads=32,
                                            num_key_value_heads=8, vocab_size=128256),
                   "LlamaForCausalLM")):
    cfg.architectures = [arch]
    base.append({"config": cfg.to_dict(), "meta": count_from_config(cfg).total})
print(json.dumps({"models": out, "base": base}))
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Tiny random models saved with save_pretrained, their exact parameter counts and the
    meta-device counts, built in a PyTorch-only child (USE_TF=0: no TensorFlow import here)."""
    root = tmp_path_factory.mktemp("memory-models")
    env = {**os.environ, "USE_TF": "0", "PYTHONPATH": str(ROOT), "TRANSFORMERS_VERBOSITY": "error"}
    proc = subprocess.run([sys.executable, "-c", _BUILD, json.dumps(TINY), str(root)], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    data["root"] = root
    return data


@pytest.fixture(scope="module")
def models(built: dict[str, Any]) -> dict[str, Any]:
    out = {n: {"folder": built["root"] / n, **v} for n, v in built["models"].items()}
    out["gpt2-sharded"] = {**out["gpt2"], "folder": built["root"] / "gpt2-sharded"}
    return out


@pytest.fixture(scope="module", autouse=True)
def runner():
    """One step runner (zygote) for every measured test of this module, started first so its
    imports overlap with the other tests."""
    from wizard.checks.memory.probes import StepRunner

    with StepRunner("pytorch", "cpu", timeout=300) as r:
        yield r


def _case(model: Path, **training: Any) -> Case:
    return Case.from_dict({"model": str(model), "dataset": {"path": "unused"},
                           "preprocessing": {"max_length": training.pop("max_length", 64)},
                           "training": {"batch_size": 8, **training}})


# -- parameter counts -------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(TINY))
def test_parameter_counts_match_the_real_model(models: dict[str, Any], name: str) -> None:
    m = models[name]
    assert m["meta"] == m["exact"]                       # count_from_config on the meta device
    local = count_local(m["folder"])
    assert local is not None and local.source == "safetensors"
    assert local.total == m["exact"]
    assert local.checkpoint_dtype == "fp32"


def test_sharded_safetensors_index_is_followed(models: dict[str, Any], tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "sharded"
    shutil.copytree(models["gpt2-sharded"]["folder"], folder)
    shards = sorted(folder.glob("model-*.safetensors"))
    assert (folder / "model.safetensors.index.json").is_file() and len(shards) > 1
    assert count_local(folder).total == models["gpt2"]["exact"]
    shards[0].unlink()
    with pytest.raises(ModelNotFound, match="missing"):
        count_local(folder)


def test_non_parameters_in_headers_are_not_counted(tmp_path: Path) -> None:
    from safetensors.numpy import save_file
    import numpy as np

    save_file({"h.0.attn.bias": np.ones((1, 1, 8, 8), np.float32),       # GPT-2 causal mask
               "embeddings.position_ids": np.arange(8, dtype=np.int64)[None],
               "w": np.ones((3, 4), np.float32)}, str(tmp_path / "model.safetensors"))
    pc = count_local(tmp_path)
    assert pc.total == 12 and pc.factored_elements == 7


def test_analytic_count_is_close_for_base_sized_configs(built: dict[str, Any]) -> None:
    for row in built["base"]:
        approx = analytic_param_count(ModelGeometry.from_config(row["config"]))
        assert abs(approx - row["meta"]) / row["meta"] < 0.03, (row["config"]["model_type"],
                                                                approx, row["meta"])


# -- the Hub path, against a local server -----------------------------------------------------
COMMIT = "0123456789abcdef0123456789abcdef01234567"


class _Hub(BaseHTTPRequestHandler):
    """HEAD/GET /{repo}/resolve/{rev}/{file} with the headers huggingface_hub reads (X-Repo-Commit,
    ETag / X-Linked-Etag, Content-Length, Range -> 206) and its error codes (X-Error-Code)."""

    repos: dict[str, dict[str, bytes]] = {}
    log: list[tuple[str, str, str | None]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def _answer(self, body: bool) -> None:
        self.log.append((self.command, self.path, self.headers.get("range")))
        path = self.path.split("?")[0].lstrip("/")
        if "/resolve/" not in path:
            return self._error(404, "EntryNotFound")
        repo, rest = path.split("/resolve/", 1)
        rev, _, fname = rest.partition("/")
        if repo not in self.repos:
            return self._error(401, "RepoNotFound")
        if rev not in ("main", "v1", COMMIT):
            return self._error(404, "RevisionNotFound")
        data = self.repos[repo].get(fname)
        if data is None:
            return self._error(404, "EntryNotFound")
        start, end = 0, len(data) - 1
        rng = self.headers.get("range")
        if rng:
            a, _, b = rng.replace("bytes=", "").partition("-")
            start, end = int(a), min(int(b or end), len(data) - 1)
        chunk = data[start:end + 1]
        self.send_response(206 if rng else 200)
        self.send_header("X-Repo-Commit", COMMIT)
        sha = hashlib.sha256(data).hexdigest()
        if fname.endswith(".safetensors"):
            self.send_header("X-Linked-Etag", f'"{sha}"')
            self.send_header("X-Linked-Size", str(len(data)))
        self.send_header("ETag", f'"{sha[:40]}"')
        self.send_header("Content-Length", str(len(chunk)))
        if rng:
            self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        if body:
            self.wfile.write(chunk)

    def _error(self, code: int, error_code: str) -> None:
        msg = json.dumps({"error": error_code}).encode()
        self.send_response(code)
        self.send_header("X-Error-Code", error_code)
        self.send_header("X-Error-Message", error_code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(msg)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(msg)

    def do_HEAD(self) -> None:  # noqa: N802
        self._answer(body=False)

    def do_GET(self) -> None:  # noqa: N802
        self._answer(body=True)


@pytest.fixture()
def hub(models: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from huggingface_hub import constants, utils

    _Hub.repos = {f"tiny/{n}": {p.name: p.read_bytes() for p in models[n]["folder"].iterdir()}
                  for n in ("gpt2", "gpt2-sharded", "bert")}
    _Hub.log = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)   # loopback only
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub-cache"))
    for reset in ("reset_sessions", "close_session"):          # hub 0.36 / 2.x
        if callable(getattr(utils, reset, None)):
            getattr(utils, reset)()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    for reset in ("reset_sessions", "close_session"):
        if callable(getattr(utils, reset, None)):
            getattr(utils, reset)()


def test_hub_safetensors_metadata_single_and_sharded(models: dict[str, Any], hub: str) -> None:
    exact = models["gpt2"]["exact"]
    assert count_hub("tiny/gpt2", endpoint=hub).total == exact
    sharded = count_hub("tiny/gpt2-sharded", endpoint=hub)
    assert sharded.total == exact and sharded.source == "hub-safetensors"
    weight_gets = [(p, r) for m, p, r in _Hub.log if m == "GET" and p.endswith(".safetensors")]
    assert weight_gets and all(r and r.startswith("bytes=") for _, r in weight_gets)  # headers only
    est = estimate_model("tiny/bert", TrainingSetup(batch_size=4, seq_len=32), endpoint=hub,
                         revision="v1")
    assert est.params.total == models["bert"]["exact"] and est.geometry.hidden == 32
    assert any("/resolve/v1/" in p for _, p, _ in _Hub.log)


def test_hub_errors_are_one_sentence(hub: str) -> None:
    with pytest.raises(ModelNotFound, match="no model 'tiny/missing' on the Hub"):
        estimate_model("tiny/missing", endpoint=hub)
    with pytest.raises(ModelNotFound, match="no revision"):
        estimate_model("tiny/bert", endpoint=hub, revision="nope")
    with pytest.raises(ModelNotFound, match="neither a local folder nor a Hub model id"):
        estimate_model("not a/valid/id")


# -- the breakdown's rules --------------------------------------------------------------------
BIG = ParamCount(total=1_000_000_000, by_dtype={"BF16": 1_000_000_000}, source="test",
                 largest_tensor=100_000_000, factored_elements=2_000_000)
LLAMA = ModelGeometry(model_type="llama", hidden=2048, layers=16, heads=32, kv_heads=8,
                      head_dim=64, intermediate=8192, vocab=32000, gated_mlp=True, rms_norm=True,
                      rotary=True, dropout=0.0, attention_dropout=0.0,
                      architectures=["LlamaForCausalLM"])


def _est(**kw: Any):
    return estimate_memory(BIG, LLAMA, TrainingSetup(**{"batch_size": 4, "seq_len": 512, **kw}))


def test_static_memory_per_optimizer_and_precision() -> None:
    p = BIG.total
    base = _est().components
    assert (base["weights"], base["gradients"], base["optimizer"]) == (4 * p, 4 * p, 8 * p)
    assert _est(optimizer="sgd").components["optimizer"] == 0
    assert _est(optimizer="SGD(momentum=0.9)").components["optimizer"] == 4 * p
    assert _est(optimizer="adamw_bnb_8bit").components["optimizer"] == 2 * p
    assert _est(optimizer="adafactor").components["optimizer"] < 0.01 * 8 * p
    mixed = _est(precision="bf16").components
    assert mixed["weights"] == 4 * p and mixed["weights_half_copy"] == 2 * p
    assert mixed["activations"] < 0.6 * base["activations"]
    pure = _est(precision="bf16", weights_dtype="bf16").components
    assert (pure["weights"], pure["gradients"], pure["optimizer"]) == (2 * p, 2 * p, 4 * p)


def test_activations_scale_and_shrink_as_they_should() -> None:
    a1 = activation_bytes(LLAMA, TrainingSetup(batch_size=2, seq_len=256))["saved"]
    a2 = activation_bytes(LLAMA, TrainingSetup(batch_size=4, seq_len=256))["saved"]
    assert abs(a2 / a1 - 2) < 0.01                      # linear in batch
    eager = replace(LLAMA, attention_dropout=0.1)
    e1 = activation_bytes(eager, TrainingSetup(batch_size=2, seq_len=256, attention="eager"))
    e2 = activation_bytes(eager, TrainingSetup(batch_size=2, seq_len=1024, attention="eager"))
    assert e2["saved"] / e1["saved"] > 4.5              # the s^2 scores make it super-linear
    gc = activation_bytes(LLAMA, TrainingSetup(batch_size=4, seq_len=256,
                                               gradient_checkpointing=True))["saved"]
    assert gc < 0.35 * a2
    cpu = activation_bytes(replace(LLAMA, dropout=0.1), TrainingSetup(device="cpu"))["saved"]
    cuda = activation_bytes(replace(LLAMA, dropout=0.1), TrainingSetup(device="cuda"))["saved"]
    assert cpu > cuda                                    # CPU dropout keeps fp32 masks


def test_lora_and_frozen_parameters_cut_gradients_and_optimizer() -> None:
    full = _est().components
    lora = _est(lora_rank=8)
    assert lora.trainable_params < 0.01 * BIG.total
    assert lora.components["weights"] == full["weights"]
    assert lora.components["optimizer"] < 0.01 * full["optimizer"]
    half = _est(trainable_fraction=0.5).components
    assert half["gradients"] == full["gradients"] // 2


def test_sharding_divides_what_each_strategy_shards() -> None:
    one = _est()
    four = {s: _est(gpus=4, strategy=s).components for s in ("ddp", "zero1", "zero2", "zero3",
                                                              "fsdp")}
    p = BIG.total
    assert four["ddp"]["ddp_buckets"] == 4 * p and four["ddp"]["optimizer"] == 8 * p
    assert four["zero1"]["optimizer"] == 2 * p and four["zero1"]["gradients"] == 4 * p
    assert four["zero2"]["gradients"] == p and four["zero2"]["weights"] == 4 * p
    assert four["zero3"]["weights"] == p
    totals = {s: sum(c.values()) for s, c in four.items()}
    # gradients are not resident at the activation peak, so sharding them (ZeRO-2) helps the
    # optimizer-step peak only
    assert totals["ddp"] > one.total > totals["zero1"] >= totals["zero2"] > totals["zero3"]
    table = sharding_table(one)
    assert table["fsdp"][8] < table["fsdp"][2] < table["fsdp"][1]


def test_advice_is_ranked_and_each_estimate_is_real() -> None:
    est = _est(batch_size=16, seq_len=1024)
    ranked = advise(est, 24 * GiB)
    savings = [a.saving for a in ranked]
    assert savings == sorted(savings, reverse=True) and all(s > 0 for s in savings)
    keys = {a.key for a in ranked}
    assert {"halve-batch", "mixed-precision", "gradient-checkpointing", "shorter-max-length",
            "8bit-optimizer", "lora", "smaller-checkpoint", "shard"} <= keys
    ckpt = next(a for a in ranked if a.key == "gradient-checkpointing")
    again = _est(batch_size=16, seq_len=1024, gradient_checkpointing=True)
    assert ckpt.total == again.total + again.overhead
    assert "gradient_checkpointing_enable" in ckpt.code
    fix = combined_fix(est, 24 * GiB)
    assert fix is not None and fix.total <= 24 * GiB and fix.fits
    assert not advise(_est(batch_size=1, seq_len=64, precision="bf16", gradient_checkpointing=True,
                           optimizer="sgd", lora_rank=8))[0].key == "halve-batch"


def test_parse_optimizer_reads_what_users_write() -> None:
    assert optimizer_state("Adam(learning_rate=5e-5)").state_copies == 2
    assert optimizer_state({"name": "sgd", "momentum": 0.9}).state_copies == 1
    assert optimizer_state("sgd").state_copies == 0
    assert optimizer_state("paged_adamw_8bit").state_bytes == 2
    assert optimizer_state("torch.optim.Adafactor").factored
    assert "unknown" in optimizer_state("shampoo").note


# -- the largest-batch search logic -----------------------------------------------------------
def test_search_halves_then_bisects() -> None:
    s = find_largest_batch(lambda b: b <= 37, start=64)
    assert s.largest == 37 and s.first_failure == 38 and s.exact
    assert [b for b, _ in s.attempts[:2]] == [64, 32]
    up = find_largest_batch(lambda b: b <= 37, start=8, limit=256)
    assert up.largest == 37 and [b for b, _ in up.attempts[:4]] == [8, 16, 32, 64]
    assert find_largest_batch(lambda b: False, start=16).largest == 0
    capped = find_largest_batch(lambda b: True, start=8, limit=20)
    assert capped.largest == 20 and capped.first_failure is None
    few = find_largest_batch(lambda b: b <= 37, start=64, max_attempts=3)
    assert len(few.attempts) == 3 and few.largest == 32 and not few.exact


# -- probes -----------------------------------------------------------------------------------
class FakeNVML:
    """The pynvml calls the probes use, for one GPU and a list of (pid, bytes) processes."""

    def __init__(self, total: int, procs: list[tuple[int, int]]):
        self.total, self.procs = total, procs

    def nvmlDeviceGetCount(self) -> int:  # noqa: N802
        return 1

    def nvmlDeviceGetHandleByIndex(self, i: int) -> int:  # noqa: N802
        return i

    def nvmlDeviceGetName(self, h: int) -> str:  # noqa: N802
        return "Fake GPU"

    def nvmlDeviceGetMemoryInfo(self, h: int) -> Any:  # noqa: N802
        used = sum(b for _, b in self.procs)
        return SimpleNamespace(total=self.total, used=used, free=self.total - used)

    def nvmlDeviceGetComputeRunningProcesses(self, h: int) -> list[Any]:  # noqa: N802
        return [SimpleNamespace(pid=p, usedGpuMemory=b) for p, b in self.procs]

    def nvmlDeviceGetGraphicsRunningProcesses(self, h: int) -> list[Any]:  # noqa: N802
        return []


def test_estimate_probe_and_will_not_fit(models: dict[str, Any], tmp_path: Path) -> None:
    from wizard.checks.memory.probes import probe_memory

    case = _case(models["bert"]["folder"])
    quiet = probe_memory(case, device="cpu", capacity_bytes=8 * GiB)
    assert [f.id for f in quiet] == ["memory.estimate"]
    est = quiet[0]
    assert est.status == "info" and est.evidence["parameters"] == models["bert"]["exact"]
    assert est.plots[0].kind == "bar" and "activations" in est.plots[0].series["labels"]
    if importlib.util.find_spec("matplotlib") is not None:
        from wizard.reports.plots import render

        assert render(est.plots[0], tmp_path / "breakdown.png").stat().st_size > 0
    loud = probe_memory(case, device="cpu", capacity_bytes=2 * 1024 ** 2)
    fail = next(f for f in loud if f.id == "memory.will-not-fit")
    assert fail.status == "fail" and fail.evidence["capacity_gib"] < fail.evidence["estimate_gib"]
    assert fail.fix and fail.evidence["best_fix"]
    missing = probe_memory(_case(Path("/nonexistent/model-folder")), device="cpu")
    assert missing[0].status == "skip" and "neither a local folder" in missing[0].evidence["reason"]


def test_other_gpu_processes_are_reported_and_shrink_capacity(models: dict[str, Any]) -> None:
    from wizard.checks.memory.probes import check_gpu_residents, probe_memory

    me, other = os.getpid(), 999_999
    busy = FakeNVML(GiB, [(me, 100 * 1024 ** 2), (other, 800 * 1024 ** 2)])
    f = check_gpu_residents(busy)
    assert f is not None and f.status == "warn"
    assert [p["pid"] for p in f.evidence["processes"]] == [other]
    assert check_gpu_residents(FakeNVML(GiB, [(me, 900 * 1024 ** 2)])) is None
    case = _case(models["bert"]["folder"])
    ids = [x.id for x in probe_memory(case, nvml=busy)]          # 0.2 GiB left: too little
    assert "memory.gpu-held-by-other-process" in ids and "memory.will-not-fit" in ids
    ids = [x.id for x in probe_memory(case, nvml=FakeNVML(GiB, []))]
    assert ids == ["memory.estimate"]


def test_tensorflow_without_memory_growth_is_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    from wizard.checks.memory.probes import check_tf_memory_growth

    def fake_tf(growth: bool) -> Any:
        exp = SimpleNamespace(get_memory_growth=lambda g: growth)
        return SimpleNamespace(config=SimpleNamespace(
            list_physical_devices=lambda kind: [SimpleNamespace(name="/physical_device:GPU:0")],
            experimental=exp))

    monkeypatch.delenv("TF_FORCE_GPU_ALLOW_GROWTH", raising=False)
    f = check_tf_memory_growth(fake_tf(False))
    assert f is not None and f.id == "memory.tf-grabs-all-gpu-memory" and "set_memory_growth" in f.fix
    assert check_tf_memory_growth(fake_tf(True)) is None
    monkeypatch.setenv("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    assert check_tf_memory_growth(fake_tf(False)) is None


def test_measured_peak_on_cpu_is_near_the_estimate(models: dict[str, Any], runner: Any) -> None:
    from wizard.checks.memory.probes import probe_memory_measure

    case = _case(models["gpt2"]["folder"], max_length=128, batch_size=8)
    case.task = "causal-lm"
    [f] = probe_memory_measure(case, device="cpu", runner=runner)
    assert f.id == "memory.measured-peak" and f.status == "info", f.evidence
    ratio = f.evidence["estimate_gib"] / f.evidence["measured_peak_gib"]
    assert 0.67 < ratio < 1.5, f.evidence


def test_out_of_memory_in_the_step_becomes_a_finding(models: dict[str, Any], runner: Any) -> None:
    from wizard.checks.memory.probes import probe_memory_measure

    case = _case(models["bert"]["folder"])
    [f] = probe_memory_measure(case, device="cpu", runner=runner, memory_cap_bytes=256 * 1024)
    assert f.id == "memory.will-not-fit" and f.status == "fail"
    assert f.evidence["source"] == "measured" and f.fix


def test_largest_batch_for_real_under_a_memory_cap(models: dict[str, Any], runner: Any,
                                                   tmp_path: Path) -> None:
    from wizard.checks.memory.probes import probe_largest_batch

    case = _case(models["bert"]["folder"], batch_size=64, max_length=128)
    [f] = probe_largest_batch(case, device="cpu", runner=runner, memory_cap_bytes=24 * 1024 ** 2,
                              max_attempts=4)
    ev = f.evidence
    assert f.id == "memory.largest-batch" and f.status == "warn", ev
    assert 1 <= ev["largest"] < 64
    assert all(b <= ev["largest"] for b, ok in ev["attempts"] if ok)
    assert all(b > ev["largest"] for b, ok in ev["attempts"] if not ok)
    assert f"per_device_train_batch_size={ev['largest']}" in f.fix
    if importlib.util.find_spec("matplotlib") is not None:
        from wizard.reports.plots import render

        assert render(f.plots[0], tmp_path / "search.png").stat().st_size > 0


# -- the command ------------------------------------------------------------------------------
def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "wizard", "memory", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_memory_command_json(models: dict[str, Any]) -> None:
    folder = str(models["gpt2"]["folder"])
    ok = _cli(folder, "--batch-size", "8", "--seq-len", "128", "--gpu-memory", "24", "--json")
    assert ok.returncode == 0, ok.stderr
    r = json.loads(ok.stdout)
    assert r["fits"] is True and r["params"]["total"] == models["gpt2"]["exact"]
    assert set(r["components"]) >= {"weights", "gradients", "optimizer", "activations"}
    assert r["total"] == sum(r["components"].values())
    assert [a["saving"] for a in r["advice"]] == sorted((a["saving"] for a in r["advice"]),
                                                        reverse=True)
    small = _cli(folder, "--batch-size", "64", "--seq-len", "128", "--gpu-memory", "0.6", "--json")
    r2 = json.loads(small.stdout)
    assert small.returncode == 1 and r2["fits"] is False and r2["best_fix"]["fits"]
    bad = _cli(str(Path(folder) / "nope"))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("name,kwargs", [
    ("LlamaConfig", {"num_key_value_heads": 2}),
    ("LlamaConfig", {"tie_word_embeddings": True, "attention_bias": True, "mlp_bias": True}),
    ("MistralConfig", {"num_key_value_heads": 2}),
    ("Qwen2Config", {"num_key_value_heads": 2}),
])
def test_decoder_counts_from_the_config_match_the_model_built_on_the_meta_device(name, kwargs):
    """The formula (no framework import) agrees exactly with the model the config builds."""
    pytest.importorskip("torch")
    import transformers

    from wizard.estimate.memory import count_from_config, exact_decoder_count

    config = getattr(transformers, name)(hidden_size=64, intermediate_size=160,
                                         num_attention_heads=4, num_hidden_layers=3,
                                         vocab_size=1000, **kwargs)
    config.architectures = [name.replace("Config", "ForCausalLM")]
    exact = exact_decoder_count(config.to_dict())
    meta = count_from_config(config, "lm")
    assert exact is not None and exact.total == meta.total and exact.tensors == meta.tensors
    assert exact.factored_elements == meta.factored_elements
    assert exact_decoder_count({**config.to_dict(), "architectures": ["LlamaModel"]}) is None


def test_a_tf_checkpoint_is_counted_from_its_h5_file_without_tensorflow(demo_dir):
    """A TF-only folder (tf_model.h5) is counted from the HDF5 shapes: the same number as the
    PyTorch weights of the same model, with no framework imported (the wizard's own process)."""
    pytest.importorskip("h5py")
    if not (demo_dir / "model-tf").is_dir():
        pytest.skip("the demo fixtures were built without TensorFlow")
    from wizard.estimate.memory import count_local

    tf_count = count_local(demo_dir / "model-tf")
    assert tf_count is not None and tf_count.source == "tf-h5"
    assert tf_count.total == count_local(demo_dir / "model").total
