"""wizard.hub against a local fake Hub (tests/hub_server.py): success, every failure, the offline cache."""
from __future__ import annotations

import json
import socket
import struct
from pathlib import Path
from typing import Any

import pytest

from tests.hub_server import FakeHub
from wizard.hub.auth import resolve_token
from wizard.hub.connection import is_offline, set_offline
from wizard.hub.dataset import load_dataset_sample, resolve_dataset
from wizard.hub.download import download_model, download_size, model_file_patterns
from wizard.hub.errors import (HubAuthRequired, HubDatasetSpecError, HubEntryNotFound, HubError,
                               HubGated, HubInvalidRef, HubNotFound, HubOffline,
                               HubPickleWeightsOnly, HubRemoteCodeRequired, HubRevisionNotFound,
                               HubTimeout, HubUnreachable)
from wizard.hub.refs import PREVIEW_ROWS, DatasetRef, ModelRef
from wizard.hub.resolve import auto_config, load_config, needs_trust_remote_code, resolve_model
from wizard.hub.safetensors import SAFETENSORS_DTYPE_BYTES
from wizard.hub.safety import ensure_remote_code_allowed, ensure_safe_weights, unsafe_weights
from wizard.core.case import Case
from wizard.checks.hub import probe_hub

CONFIG = {"model_type": "bert", "architectures": ["BertForSequenceClassification"], "hidden_size": 8,
          "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16, "vocab_size": 30,
          "num_labels": 2}
TRAIN = [{"premise": f"a man plays {i}", "hypothesis": "someone plays", "label": i % 3} for i in range(12)]
VALID = [{"premise": "a dog runs", "hypothesis": "an animal moves", "label": 0} for _ in range(4)]


def safetensors_bytes(tensors: dict[str, tuple[str, list[int]]]) -> bytes:
    """A valid safetensors file: 8-byte header length, JSON header, zeroed data."""
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, (dtype, shape) in tensors.items():
        n = SAFETENSORS_DTYPE_BYTES[dtype]
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    return struct.pack("<Q", len(raw)) + raw + bytes(offset)


WEIGHTS = safetensors_bytes({"embeddings.weight": ("F32", [30, 8]), "classifier.weight": ("F32", [2, 8]),
                             "classifier.bias": ("F32", [2])})
N_PARAMS = 30 * 8 + 2 * 8 + 2


def model_files(config: dict[str, Any] | None = None, weights: dict[str, bytes] | None = None) -> dict[str, bytes]:
    files = {"config.json": json.dumps(config or CONFIG).encode(), "vocab.txt": b"[PAD]\n[UNK]\nhello\n",
             "tokenizer_config.json": b'{"do_lower_case": true}', "README.md": b"# tiny\n"}
    files.update({"model.safetensors": WEIGHTS} if weights is None else weights)
    return files


@pytest.fixture(scope="module")
def fake() -> Any:
    h = FakeHub()
    st = {"parameters": {"F32": N_PARAMS}, "total": N_PARAMS}
    h.add_model("org/tiny-bert", model_files(), safetensors=st,
                branches={"v1": model_files({**CONFIG, "num_labels": 3})})
    h.add_model("org/private-bert", model_files(), private=True, owners={"hf_owner"}, safetensors=st)
    h.add_model("org/gated-bert", model_files(), gated="manual", granted={"hf_granted"}, safetensors=st)
    remote = {**CONFIG, "model_type": "xbert",
              "auto_map": {"AutoConfig": "configuration_x.XConfig", "AutoModel": "modeling_x.XModel"}}
    h.add_model("org/remote-code", {**model_files(remote), "configuration_x.py": b"# code\n",
                                    "modeling_x.py": b"# code\n"}, safetensors=st)
    h.add_model("org/pickle-only", model_files(weights={"pytorch_model.bin": b"\x80\x04pickle" * 10}))
    h.add_model("org/h5-only", model_files(weights={"tf_model.h5": b"\x89HDF" * 10}))
    h.add_model("org/config-only", model_files(weights={}))
    h.add_model("org/no-config", {"README.md": b"# onnx\n", "model.onnx": b"onnx"}, library_name="onnx")
    h.add_model("org/slow", model_files(), delay=1.5)
    h.add_dataset("org/mnli-tiny", {"train": TRAIN, "validation": VALID})
    multi = h.add_dataset("org/glue-tiny", {"train": TRAIN}, config="mrpc")
    multi.viewer["cola"] = {"features": multi.viewer["mrpc"]["features"], "splits": {"train": TRAIN[:3]}}
    h.add_dataset("org/private-ds", {"train": TRAIN}, private=True, owners={"hf_owner"})
    h.add_dataset("org/gated-ds", {"train": TRAIN}, gated="auto", granted={"hf_granted"})
    h.add_dataset("org/no-viewer", {"train": TRAIN, "test": VALID}, viewer=False)
    with h:
        yield h


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """Online mode, no token anywhere, and Hub/datasets caches in tmp; offline again afterwards."""
    from huggingface_hub import constants

    import datasets

    for var in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_OIDC_RESOURCE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(tmp_path / "token"))
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_IMPLICIT_TOKEN", False, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "datasets")
    was_offline = is_offline()
    set_offline(False)
    yield tmp_path
    set_offline(was_offline)


def model(fake: FakeHub, ref: str, tmp: Path, **kw: Any) -> ModelRef:
    return resolve_model(ref, endpoint=fake.url, cache_dir=tmp / "hub", **kw)


def dataset(fake: FakeHub, ref: str, **kw: Any) -> DatasetRef:
    return resolve_dataset(ref, endpoint=fake.url, viewer_url=fake.viewer_url, **kw)


def one_sentence(err: HubError, *needles: str) -> None:
    text = str(err)
    assert isinstance(err, ValueError) and "\n" not in text and text.endswith("."), text
    for needle in needles:
        assert needle in text, (needle, text)


# --- models: success ---------------------------------------------------------------------
def test_hub_model_metadata_first(fake: FakeHub, online: Path) -> None:
    fake.log.clear()
    ref = model(fake, "org/tiny-bert", online)
    assert (ref.kind, ref.source, ref.repo_id) == ("hub", "hub", "org/tiny-bert")
    assert ref.commit == fake.repos[("model", "org/tiny-bert")].refs["main"]
    assert ref.config["num_labels"] == 2 and ref.model_type == "bert"
    assert (ref.pipeline_tag, ref.library_name) == ("text-classification", "transformers")
    assert ref.safetensors_params == {"F32": N_PARAMS} and ref.num_parameters == N_PARAMS
    assert ref.param_bytes == 4 * N_PARAMS
    assert ref.has_safetensors and ref.weights_format == "safetensors" and not ref.needs_remote_code
    sizes = {f.path: f.size for f in ref.files}
    assert sizes["model.safetensors"] == len(WEIGHTS) and sizes["config.json"] == len(json.dumps(CONFIG))
    assert Path(ref.path, "config.json").is_file() and not Path(ref.path, "model.safetensors").exists()
    assert not [p for p in fake.paths_requested("/resolve/") if "safetensors" in p]  # no weights fetched
    assert "token" not in ref.to_dict() and "hf_" not in repr(ref)


def test_revision_branch_and_commit(fake: FakeHub, online: Path) -> None:
    v1 = model(fake, "org/tiny-bert", online, revision="v1")
    assert v1.config["num_labels"] == 3 and v1.commit == fake.repos[("model", "org/tiny-bert")].refs["v1"]
    pinned = model(fake, "org/tiny-bert", online, revision=v1.commit)
    assert pinned.config["num_labels"] == 3 and pinned.commit == v1.commit


def test_load_config_and_safe_weights_pass(fake: FakeHub, online: Path) -> None:
    ref = model(fake, "org/tiny-bert", online)
    assert load_config(ref)["hidden_size"] == 8
    ensure_safe_weights(ref)  # healthy: no exception
    ensure_remote_code_allowed(ref, trust_remote_code=False)


# --- models: failures --------------------------------------------------------------------
def test_revision_not_found(fake: FakeHub, online: Path) -> None:
    with pytest.raises(HubRevisionNotFound) as e:
        model(fake, "org/tiny-bert", online, revision="no-such-branch")
    one_sentence(e.value, "org/tiny-bert", "no-such-branch")
    assert e.value.kind == "revision-not-found"


def test_not_found_with_token_and_without(fake: FakeHub, online: Path) -> None:
    with pytest.raises(HubNotFound) as e:
        model(fake, "org/does-not-exist", online, token="hf_owner")
    one_sentence(e.value, "org/does-not-exist")
    with pytest.raises(HubAuthRequired) as e2:
        model(fake, "org/does-not-exist", online)
    one_sentence(e2.value, "org/does-not-exist", "hf auth login")
    assert e2.value.kind == "auth-required"


def test_private_repo_tokens(fake: FakeHub, online: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    with pytest.raises(HubAuthRequired):
        model(fake, "org/private-bert", online)
    assert model(fake, "org/private-bert", online, token="hf_owner").token_source == "argument"
    monkeypatch.setenv("HF_TOKEN", "hf_owner")
    assert model(fake, "org/private-bert", online).token_source == "HF_TOKEN"
    monkeypatch.delenv("HF_TOKEN")
    Path(constants.HF_TOKEN_PATH).write_text("hf_owner\n")  # what `hf auth login` saves
    assert model(fake, "org/private-bert", online).token_source == "saved login"
    Path(constants.HF_TOKEN_PATH).unlink()

    class OAuthToken:  # gradio.OAuthToken's shape
        token = "hf_owner"

    ref = model(fake, "org/private-bert", online, oauth_token=OAuthToken())
    assert ref.token_source == "oauth" and ref.private is True


def test_resolve_token_precedence(online: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_token() == (None, "none")
    monkeypatch.setenv("HF_TOKEN", "hf_env")
    assert resolve_token() == ("hf_env", "HF_TOKEN")
    assert resolve_token(oauth_token="hf_oauth") == ("hf_oauth", "oauth")
    assert resolve_token("hf_arg", oauth_token="hf_oauth") == ("hf_arg", "argument")


def test_gated_repo(fake: FakeHub, online: Path) -> None:
    with pytest.raises(HubGated) as e:
        model(fake, "org/gated-bert", online)
    one_sentence(e.value, "org/gated-bert", "no token")
    with pytest.raises(HubGated) as e2:
        model(fake, "org/gated-bert", online, token="hf_owner")
    one_sentence(e2.value, "org/gated-bert", "not been granted", f"{fake.url}/org/gated-bert")
    assert model(fake, "org/gated-bert", online, token="hf_granted").gated == "manual"


def test_remote_code_needs_explicit_yes(fake: FakeHub, online: Path) -> None:
    ref = model(fake, "org/remote-code", online)
    assert ref.needs_remote_code and needs_trust_remote_code(ref)
    assert needs_trust_remote_code(ref.config) and not needs_trust_remote_code(CONFIG)
    assert needs_trust_remote_code("org/remote-code", endpoint=fake.url, cache_dir=online / "hub")
    assert set(ref.code_files) == {"configuration_x.py", "modeling_x.py"}
    for answer in (False, "yes", 1):  # only the boolean True counts as a yes
        with pytest.raises(HubRemoteCodeRequired) as e:
            ensure_remote_code_allowed(ref, answer)  # type: ignore[arg-type]
        one_sentence(e.value, "org/remote-code", "trust_remote_code")
    ensure_remote_code_allowed(ref, True)
    assert "*.py" in model_file_patterns(ref, "pytorch", trust_remote_code=True)
    assert "*.py" not in model_file_patterns(ref, "pytorch")


@pytest.mark.parametrize("repo, fmt", [("org/pickle-only", "pickle"), ("org/h5-only", "h5")])
def test_pickle_weights_only(fake: FakeHub, online: Path, repo: str, fmt: str) -> None:
    ref = model(fake, repo, online)
    assert ref.weights_format == fmt and not ref.has_safetensors
    with pytest.raises(HubPickleWeightsOnly) as e:
        ensure_safe_weights(ref)
    one_sentence(e.value, repo, "safetensors")
    ensure_safe_weights(ref, allow_pickle=True)
    assert unsafe_weights(ref, "tensorflow") is (fmt == "pickle")  # .h5 is TensorFlow's own format
    with pytest.raises(HubPickleWeightsOnly):
        download_model(ref)


def test_repo_without_config(fake: FakeHub, online: Path) -> None:
    with pytest.raises(HubEntryNotFound) as e:
        model(fake, "org/no-config", online)
    one_sentence(e.value, "org/no-config", "config.json")


def test_timeout(fake: FakeHub, online: Path) -> None:
    with pytest.raises(HubTimeout) as e:
        model(fake, "org/slow", online, timeout=0.3)
    one_sentence(e.value, "org/slow", "0.3 s")


def test_hub_outage(fake: FakeHub, online: Path) -> None:
    fake.add_model("org/down", model_files()).status = 503
    with pytest.raises(HubUnreachable) as e:
        model(fake, "org/down", online)
    one_sentence(e.value, "org/down", "HTTP 503")


def closed_port_url() -> str:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}"


def test_unreachable_without_cache(online: Path) -> None:
    with pytest.raises(HubUnreachable) as e:
        resolve_model("org/tiny-bert", endpoint=closed_port_url(), cache_dir=online / "hub", timeout=2)
    one_sentence(e.value, "org/tiny-bert")


def test_invalid_refs(online: Path, tmp_path: Path) -> None:
    for ref, needle in (("", "No model"), ("not a valid id", "not a valid id"), ("./missing-folder", "missing-folder"),
                        ("a/b/c", "a/b/c")):
        with pytest.raises(HubInvalidRef) as e:
            resolve_model(ref)
        one_sentence(e.value, needle)
    (tmp_path / "empty").mkdir()
    with pytest.raises(HubEntryNotFound) as e2:
        resolve_model(str(tmp_path / "empty"))
    one_sentence(e2.value, "config.json", "save_pretrained")


# --- offline and the cache ---------------------------------------------------------------
def test_offline_resolves_from_prepopulated_cache(fake: FakeHub, online: Path) -> None:
    first = model(fake, "org/tiny-bert", online)  # populates tmp/hub
    model(fake, "org/tiny-bert", online, revision="v1")
    fake.log.clear()
    set_offline(True)
    ref = model(fake, "org/tiny-bert", online)
    assert (ref.source, ref.commit, ref.config) == ("cache", first.commit, first.config)
    assert ref.path == first.path and "offline" in ref.notes[0]
    assert model(fake, "org/tiny-bert", online, revision="v1").config["num_labels"] == 3
    assert fake.log == []  # nothing was asked from the Hub
    with pytest.raises(HubOffline) as e:
        model(fake, "org/private-bert", online)
    one_sentence(e.value, "org/private-bert", "HF_HUB_OFFLINE")


def test_unreachable_hub_falls_back_to_cache(fake: FakeHub, online: Path) -> None:
    first = model(fake, "org/tiny-bert", online)
    ref = resolve_model("org/tiny-bert", endpoint=closed_port_url(), cache_dir=online / "hub", timeout=2)
    assert ref.source == "cache" and ref.config == first.config and "could not be reached" in ref.notes[0]


# --- sizes and downloads -----------------------------------------------------------------
def test_download_size_before_download(fake: FakeHub, online: Path) -> None:
    ref = model(fake, "org/tiny-bert", online)
    files = model_files()
    plan = download_size(ref, patterns=model_file_patterns(ref, "pytorch"))
    assert {f.path for f in plan.files} == {"config.json", "vocab.txt", "tokenizer_config.json", "model.safetensors"}
    assert plan.total_bytes == sum(len(files[f.path]) for f in plan.files)
    assert plan.cached_bytes == len(files["config.json"])  # only config.json was fetched
    assert "to download" in plan.describe()
    fake.log.clear()
    exact = download_size("org/tiny-bert", patterns=["model.safetensors"], endpoint=fake.url)
    assert exact.total_bytes == len(WEIGHTS) and fake.paths_requested("/paths-info/")
    tree = download_size("org/tiny-bert", patterns=["*.json"], endpoint=fake.url, revision="v1")
    assert {f.path for f in tree.files} == {"config.json", "tokenizer_config.json"} and fake.paths_requested("/tree/")


def test_download_model_with_progress(fake: FakeHub, online: Path) -> None:
    ref = model(fake, "org/tiny-bert", online)
    calls: list[tuple[str, int, int]] = []
    folder = download_model(ref, framework="pytorch", progress=lambda f, done, total: calls.append((f, done, total)))
    assert Path(folder, "model.safetensors").read_bytes() == WEIGHTS and Path(folder) == Path(ref.path)
    total = sum(len(v) for k, v in model_files().items() if k != "README.md")
    assert calls[-1][1:] == (total, total) and {c[0] for c in calls} >= {"model.safetensors", "vocab.txt"}
    assert [c[1] for c in calls] == sorted(c[1] for c in calls)  # monotonic
    after = download_size(ref, patterns=model_file_patterns(ref, "pytorch"))
    assert after.to_download_bytes == 0 and after.cached_bytes == total


# --- local model folders -----------------------------------------------------------------
def test_local_folder_same_shape_as_hub(tmp_path: Path) -> None:
    folder = tmp_path / "my-model"
    folder.mkdir()
    for name, content in model_files().items():
        (folder / name).write_bytes(content)
    ref = resolve_model(str(folder))
    assert (ref.kind, ref.source, ref.location) == ("local", "local", str(folder.resolve()))
    assert ref.num_parameters == N_PARAMS and ref.safetensors_params == {"F32": N_PARAMS}  # from the header
    assert ref.has_safetensors and ref.config == CONFIG
    assert download_model(ref) == ref.path and download_size(ref).to_download_bytes == 0
    with pytest.raises(HubInvalidRef):
        resolve_model(str(folder / "config.json"))


def test_auto_config_from_local_folder(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(CONFIG))
    ref = resolve_model(str(folder))
    assert auto_config(ref).num_labels == 2
    (folder / "config.json").write_text(json.dumps({**CONFIG, "auto_map": {"AutoConfig": "c.C"}}))
    with pytest.raises(HubRemoteCodeRequired):
        auto_config(resolve_model(str(folder)))


# --- datasets: Hub -----------------------------------------------------------------------
def test_hub_dataset_from_viewer_then_stream_sample(fake: FakeHub, online: Path) -> None:
    fake.log.clear()
    ref = dataset(fake, "org/mnli-tiny")
    assert (ref.kind, ref.viewer, ref.config) == ("hub", True, "default")
    assert ref.splits == {"train": len(TRAIN), "validation": len(VALID)}
    assert ref.features["label"] == {"dtype": "int64", "_type": "Value"} and ref.columns[0] == "premise"
    assert ref.first_rows[0] == TRAIN[0] and len(ref.first_rows) == PREVIEW_ROWS
    assert not fake.paths_requested("/resolve/")  # nothing downloaded yet
    sample = load_dataset_sample(ref, "train", max_samples=7)
    assert len(sample) == 7 and sample.column_names == ["premise", "hypothesis", "label"]
    assert sample[3]["label"] == 0 and fake.paths_requested("data/train.csv")
    assert len(load_dataset_sample(ref, "validation", 100)) == len(VALID)


def test_dataset_config_and_split_errors(fake: FakeHub, online: Path) -> None:
    with pytest.raises(HubDatasetSpecError) as e:
        dataset(fake, "org/glue-tiny")
    assert e.value.kind == "config-required" and e.value.evidence["configs"] == ["mrpc", "cola"]
    one_sentence(e.value, "org/glue-tiny", "mrpc", "cola")
    assert dataset(fake, "org/glue-tiny", config="cola").splits == {"train": 3}
    with pytest.raises(HubDatasetSpecError) as e2:
        dataset(fake, "org/glue-tiny", config="sst2")
    assert e2.value.kind == "config-not-found"
    with pytest.raises(HubDatasetSpecError) as e3:
        dataset(fake, "org/mnli-tiny", split="dev")
    assert e3.value.kind == "split-not-found"
    one_sentence(e3.value, "dev", "validation")


def test_dataset_without_viewer_falls_back(fake: FakeHub, online: Path) -> None:
    ref = dataset(fake, "org/no-viewer")
    assert not ref.viewer and "HTTP 500" in (ref.viewer_error or "") and ref.config == "default"
    sample = load_dataset_sample(ref, "test", 2)
    assert sample["premise"] == [VALID[0]["premise"]] * 2


def test_dataset_access_errors(fake: FakeHub, online: Path) -> None:
    with pytest.raises(HubAuthRequired):
        dataset(fake, "org/private-ds")
    assert dataset(fake, "org/private-ds", token="hf_owner").splits == {"train": len(TRAIN)}
    with pytest.raises(HubNotFound) as e:
        dataset(fake, "org/nope", token="hf_owner")
    one_sentence(e.value, "dataset", "org/nope")
    with pytest.raises(HubGated) as g:
        dataset(fake, "org/gated-ds", token="hf_owner")
    one_sentence(g.value, "org/gated-ds", f"{fake.url}/datasets/org/gated-ds")
    assert dataset(fake, "org/gated-ds", token="hf_granted").viewer


def test_dataset_offline_from_cache(fake: FakeHub, online: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import datasets

    monkeypatch.setattr(datasets.config, "HF_ENDPOINT", fake.url)
    datasets.load_dataset("org/mnli-tiny", cache_dir=str(online / "ds-cache"))  # populate once, online
    set_offline(True)
    ref = resolve_dataset("org/mnli-tiny", cache_dir=online / "ds-cache")
    assert ref.source == "cache" and ref.splits == {"train": len(TRAIN), "validation": len(VALID)}
    assert len(load_dataset_sample(ref, "train", 5)) == 5
    with pytest.raises(HubOffline) as e:
        resolve_dataset("org/never-cached", cache_dir=online / "ds-cache")
    one_sentence(e.value, "org/never-cached", "HF_HUB_OFFLINE")


# --- datasets: local ---------------------------------------------------------------------
def test_save_to_disk_folder(tmp_path: Path) -> None:
    import datasets

    dd = datasets.DatasetDict({"train": datasets.Dataset.from_list(TRAIN),
                               "validation": datasets.Dataset.from_list(VALID)})
    dd.save_to_disk(str(tmp_path / "dd"))
    ref = resolve_dataset(str(tmp_path / "dd"))
    assert (ref.kind, ref.split, ref.splits) == ("disk", "train", {"train": 12, "validation": 4})
    assert ref.first_rows[0] == TRAIN[0] and "hypothesis" in ref.features
    assert load_dataset_sample(ref, "validation", 3)["label"] == [0, 0, 0]
    with pytest.raises(HubDatasetSpecError):
        load_dataset_sample(ref, "test", 3)
    datasets.Dataset.from_list(VALID).save_to_disk(str(tmp_path / "single"))
    single = resolve_dataset(str(tmp_path / "single"))
    assert single.splits == {"train": 4} and len(load_dataset_sample(single, None, 2)) == 2


def test_data_files(tmp_path: Path) -> None:
    import datasets

    datasets.Dataset.from_list(TRAIN).to_csv(str(tmp_path / "train.csv"))
    datasets.Dataset.from_list(VALID).to_json(str(tmp_path / "valid.jsonl"))
    datasets.Dataset.from_list(TRAIN).to_parquet(str(tmp_path / "train.parquet"))
    ref = resolve_dataset(None, data_files={"train": str(tmp_path / "train.csv"),
                                            "validation": str(tmp_path / "train.csv")})
    assert (ref.kind, ref.path, list(ref.splits)) == ("files", "csv", ["train", "validation"])
    assert ref.first_rows[0] == TRAIN[0] and ref.columns == ["premise", "hypothesis", "label"]
    assert load_dataset_sample(ref, "train", 5)["label"] == [0, 1, 2, 0, 1]
    with pytest.raises(HubDatasetSpecError) as bad:
        load_dataset_sample(ref, "dev", 2)
    assert bad.value.evidence["splits"] == ["train", "validation"]
    for name, n in (("valid.jsonl", 4), ("train.parquet", 12)):
        r = resolve_dataset(str(tmp_path / name))
        assert len(load_dataset_sample(r, "train", 50)) == n
    folder = tmp_path / "folder"
    folder.mkdir()
    (tmp_path / "train.csv").rename(folder / "train.csv")
    datasets.Dataset.from_list(VALID).to_csv(str(folder / "test.csv"))
    assert set(resolve_dataset(str(folder)).splits) == {"train", "test"}
    with pytest.raises(HubInvalidRef):  # its train.csv moved away since it was resolved
        load_dataset_sample(ref, "train", 2)
    with pytest.raises(HubInvalidRef) as e:
        resolve_dataset(None, data_files=str(tmp_path / "missing.csv"))
    one_sentence(e.value, "missing.csv")


# --- the probe ---------------------------------------------------------------------------
def case(model_id: str, dataset_id: str = "org/mnli-tiny", **extra: Any) -> Case:
    ds = {"path": dataset_id, "text_columns": ["premise", "hypothesis"], **extra.pop("dataset", {})}
    return Case.from_dict({"model": model_id, "dataset": ds, **extra})


def ctx_for(fake: FakeHub, tmp: Path) -> dict[str, Any]:
    return {"hub_endpoint": fake.url, "viewer_url": fake.viewer_url, "hub_cache_dir": str(tmp / "hub")}


def test_probe_healthy_case(fake: FakeHub, online: Path) -> None:
    ctx = ctx_for(fake, online)
    findings = probe_hub(case("org/tiny-bert"), ctx)
    by_id = {f.id: f for f in findings}
    assert set(by_id) == {"environment.model-source", "environment.download-size", "environment.dataset-source"}
    assert all(f.status == "info" for f in findings)
    assert by_id["environment.model-source"].evidence["num_parameters"] == N_PARAMS
    assert by_id["environment.download-size"].evidence["to_download_bytes"] > len(WEIGHTS)
    assert by_id["environment.dataset-source"].evidence["splits"] == {"train": 12, "validation": 4}
    assert ctx["model_ref"].repo_id == "org/tiny-bert" and ctx["dataset_ref"].repo_id == "org/mnli-tiny"


@pytest.mark.parametrize("kwargs, fid, status", [
    ({"model_id": "org/does-not-exist"}, "environment.hub-auth-required", "fail"),
    ({"model_id": "org/gated-bert"}, "environment.gated-repo", "fail"),
    ({"model_id": "org/tiny-bert", "revision": "nope"}, "environment.revision-not-found", "fail"),
    ({"model_id": "org/no-config"}, "environment.hub-file-missing", "fail"),
    ({"model_id": "org/remote-code"}, "environment.needs-remote-code", "warn"),
    ({"model_id": "org/remote-code", "trust_remote_code": True}, "environment.needs-remote-code", "info"),
    ({"model_id": "org/pickle-only"}, "environment.pickle-weights-only", "warn"),
    ({"model_id": "org/h5-only"}, "environment.pickle-weights-only", "warn"),  # PyTorch user
    ({"model_id": "org/config-only"}, "environment.hub-file-missing", "warn"),
    ({"model_id": "org/tiny-bert", "dataset_id": "org/nope-ds"}, "environment.hub-auth-required", "fail"),
    ({"model_id": "org/tiny-bert", "dataset_id": "./no/such/folder"}, "environment.dataset-not-found", "fail"),
    ({"model_id": "org/tiny-bert", "dataset_id": "org/glue-tiny"}, "environment.dataset-config", "fail"),
    ({"model_id": "org/tiny-bert", "dataset": {"eval_split": "test"}}, "environment.dataset-config", "fail"),
])
def test_probe_faulty_cases(fake: FakeHub, online: Path, kwargs: dict[str, Any], fid: str, status: str) -> None:
    findings = probe_hub(case(**kwargs), ctx_for(fake, online))
    hits = [f for f in findings if f.id == fid]
    assert hits and hits[0].status == status, [(f.id, f.status) for f in findings]
    if status != "info":
        assert hits[0].explanation and hits[0].fix


def test_probe_h5_weights_are_fine_for_tensorflow(fake: FakeHub, online: Path) -> None:
    findings = probe_hub(case("org/h5-only", framework="tensorflow"), ctx_for(fake, online))
    assert not [f for f in findings if f.status != "info"], [(f.id, f.status) for f in findings]
    size = next(f for f in findings if f.id == "environment.download-size")
    assert "*.h5" in size.evidence["patterns"] and "tf_model.h5" in size.evidence["largest"]


def test_probe_offline(fake: FakeHub, online: Path) -> None:
    ctx = ctx_for(fake, online)
    probe_hub(case("org/tiny-bert"), ctx)  # caches config.json
    set_offline(True)
    findings = probe_hub(case("org/tiny-bert", dataset_id="org/never-cached"), ctx)
    got = [(f.id, f.status) for f in findings]
    assert ("environment.model-source", "info") in got and ("environment.hub-unreachable", "info") in got
    unreachable = next(f for f in findings if f.id == "environment.hub-unreachable"
                       and f.status != "info")  # the uncached dataset: not a fault, a skip
    assert unreachable.status == "skip" and unreachable.evidence["blocks"]


# --- the context loads a Hub model through the same path, downloading with progress ------
def test_context_loads_hub_model_from_metadata_then_download(fake: FakeHub, online: Path,
                                                             demo_dir: Path) -> None:
    pytest.importorskip("torch")
    from wizard.context import Context
    from wizard.demo.cases import healthy_case

    folder = demo_dir / "model"
    files = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    fake.add_model("org/demo-distilbert", files)
    case = healthy_case(demo_dir, "pytorch")
    case.model = "org/demo-distilbert"
    messages: list[str] = []
    ctx = Context(case, device="cpu", progress=messages.append)
    ctx.hub_endpoint, ctx.hub_cache_dir = fake.url, str(online / "hub")
    found = {f.id: f for f in probe_hub(case, ctx)}
    assert found["environment.download-size"].evidence["to_download_bytes"] > len(files["config.json"])
    assert not any(m.startswith("downloading") for m in messages)  # metadata first
    fake.log.clear()
    assert ctx.config.num_labels == 3 and ctx.tokenizer("a man plays")["input_ids"]
    weights = [p for p in fake.paths_requested("/resolve/") if p.endswith(".safetensors")]
    assert weights == [] and not any(m.startswith("downloading") for m in messages)  # not yet
    assert {"tokenizer.json", "tokenizer_config.json"} <= {p.rsplit("/", 1)[-1] for p in
                                                      fake.paths_requested("/resolve/")}
    logits = ctx.forward.logits
    assert logits is not None and logits.shape == (case.training.batch_size, 3)
    fetched = {p.rsplit("/", 1)[-1] for p in fake.paths_requested("/resolve/")}
    assert "model.safetensors" in fetched and "tf_model.h5" not in fetched  # one weights format
    progress = [m for m in messages if m.startswith("downloading org/demo-distilbert")]
    assert progress and progress[-1].endswith("(100%)")
    assert Path(ctx.model_location).is_relative_to(online / "hub")


def test_a_session_loads_a_hub_model_from_the_fetched_cache(fake: FakeHub, online: Path,
                                                            demo_dir: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The hub probe runs in the parent; the worker's own context resolves the model again and
    loads it from the files it fetches (one weights format, with progress), not through a second,
    unconfigured download."""
    pytest.importorskip("torch")
    from huggingface_hub import constants, file_download

    from wizard.demo.cases import healthy_case
    from wizard.engine.plan import STEPS
    from wizard.engine.session import Session

    folder = demo_dir / "model"
    fake.add_model("org/session-distilbert", {p.name: p.read_bytes() for p in folder.iterdir()
                                              if p.is_file()})
    monkeypatch.setattr(constants, "ENDPOINT", fake.url)
    template = fake.url + "/{repo_id}/resolve/{revision}/{filename}"
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", template)
    # huggingface_hub 0.x copied the template into file_download when it was imported
    monkeypatch.setattr(file_download, "HUGGINGFACE_CO_URL_TEMPLATE", template, raising=False)
    # (`online` already switched HF_HUB_OFFLINE off for the child; it switches it back after)
    for name, value in (("HF_ENDPOINT", fake.url), ("HF_HUB_CACHE", str(online / "hub")),
                        ("HF_TOKEN_PATH", str(online / "token"))):
        monkeypatch.setenv(name, value)
    case = healthy_case(demo_dir, "pytorch")
    case.model = "org/session-distilbert"
    messages: list[str] = []
    result = Session(case, device="cpu", steps=[STEPS["environment"], STEPS["model"]],
                     on_event=lambda e: messages.append(e.data.get("message", ""))).run()
    assert not [f for f in result.findings if f.status in ("fail", "error")], result.findings
    forward = next(f for f in result.findings if f.id == "model.forward")
    assert forward.status != "error", forward
    fetched = {p.rsplit("/", 1)[-1] for p in fake.paths_requested("/resolve/")}
    assert "model.safetensors" in fetched and "tf_model.h5" not in fetched
    assert any(m.startswith("downloading org/session-distilbert") for m in messages), messages
    assert list((online / "hub").glob("models--org--session-distilbert/snapshots/*/model.safetensors"))


def test_an_unreachable_model_skips_the_steps_it_prevents_and_is_no_fault(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Offline, a Hub id that is not cached: one skip saying so, every later step listed as
    skipped, no fault counted, an inconclusive verdict."""
    from wizard.core.case import Case
    from wizard.engine.session import Session

    data = tmp_path / "data.csv"
    data.write_text("text,label\na,0\nb,1\n")
    case = Case.from_dict({"model": "org/never-cached-model", "framework": "pytorch",
                           "dataset": {"data_files": str(data), "eval_split": None},
                           "symptom": "not-sure"})
    result = Session(case, device="cpu").run()
    assert not result.fails()
    blocked = [f for f in result.findings if f.evidence.get("blocks")]
    assert blocked and blocked[0].status == "skip"
    skipped = [f for f in result.findings if f.id == "wizard.step-skipped"]
    assert {f.evidence["step"] for f in skipped} >= {"data", "model"}
    assert result.verdict.kind == "inconclusive" and "could not run" in result.verdict.summary


def test_a_saved_dataset_is_described_from_its_own_files_without_importing_datasets(demo_dir):
    """The hub probe runs in the wizard's own process: a save_to_disk folder is read from its
    JSON and Arrow files, with the same splits, features and first rows datasets gives."""
    import subprocess
    import sys

    code = ("import json, sys; from wizard.hub.dataset import resolve_dataset; "
            f"d = resolve_dataset({str(demo_dir / 'dataset')!r}); "
            "print(json.dumps([d.splits, sorted(d.features), d.first_rows[0], "
            "'datasets' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    splits, features, first, imported = json.loads(out.stdout.strip().splitlines()[-1])
    import datasets

    ds = datasets.load_from_disk(str(demo_dir / "dataset"))
    assert splits == {k: len(v) for k, v in ds.items()} and not imported
    assert features == sorted(ds["train"].features) and first == dict(ds["train"][0])
