"""Hub probe: resolve the case's model and dataset from metadata only and report what was found.

Runs before anything heavy: no weights are downloaded and no framework is imported. Options come
from the context when it has them (`hub_token`, `oauth_token`, `hub_endpoint`, `viewer_url`,
`hub_cache_dir`, `hub_timeout`); the resolved refs are left on it as `model_ref` / `dataset_ref`.
"""
from __future__ import annotations

from typing import Any

from wizard.core.findings import Finding
from wizard.hub.dataset import resolve_dataset
from wizard.hub.download import download_size, human_bytes, model_file_patterns
from wizard.hub.errors import HubError, HubPickleWeightsOnly, HubRemoteCodeRequired
from wizard.hub.refs import DatasetRef, ModelRef
from wizard.hub.resolve import resolve_model
from wizard.hub.safety import ensure_remote_code_allowed, ensure_safe_weights, unsafe_weights

MODEL_IDS = {"not-found": "environment.model-not-found", "invalid-ref": "environment.model-not-found",
             "entry-not-found": "environment.hub-file-missing"}
DATASET_IDS = {"not-found": "environment.dataset-not-found", "invalid-ref": "environment.dataset-not-found",
               "entry-not-found": "environment.dataset-not-found", "config-required": "environment.dataset-config",
               "config-not-found": "environment.dataset-config", "split-not-found": "environment.dataset-config"}
COMMON_IDS = {"auth-required": "environment.hub-auth-required", "access-denied": "environment.hub-auth-required",
              "disabled": "environment.model-not-found", "gated": "environment.gated-repo",
              "revision-not-found": "environment.revision-not-found", "offline": "environment.hub-unreachable",
              "unreachable": "environment.hub-unreachable", "timeout": "environment.hub-unreachable",
              "needs-remote-code": "environment.needs-remote-code",
              "pickle-weights-only": "environment.pickle-weights-only"}
UNREACHABLE = ("offline", "unreachable", "timeout")  # the Hub did not answer: no verdict on the repo
TITLES = {"not-found": "{what} {repo} not found", "invalid-ref": "{what} {repo} not found",
          "entry-not-found": "{what} {repo} lacks a needed file", "auth-required": "{what} {repo} needs a token",
          "access-denied": "The Hub refused the token for {repo}", "disabled": "{what} {repo} is disabled",
          "gated": "{what} {repo} is gated", "revision-not-found": "Revision not found in {repo}",
          "offline": "{repo} is not cached and the Hub is offline", "unreachable": "The Hub cannot be reached",
          "timeout": "The Hub timed out on {repo}", "config-required": "Dataset {repo} needs a config",
          "config-not-found": "Dataset config not found in {repo}",
          "split-not-found": "Split not found in dataset {repo}"}


def probe_hub(case: Any, ctx: Any = None) -> list[Finding]:
    """Findings for the model and the dataset: where they come from, or why they cannot be resolved."""
    opts = _options(ctx)
    progress = getattr(ctx, "progress", None) or (lambda message: None)
    findings: list[Finding] = []
    if case.model.strip():            # none with only a pasted error
        progress("resolving the model (metadata only)")
        findings += _model_findings(case, ctx, opts)
    if case.dataset.path.strip() or case.dataset.data_files:
        progress("resolving the dataset (metadata only)")
        findings += _dataset_findings(case, ctx, opts)
    return findings


# --- model -------------------------------------------------------------------------------
def _model_findings(case: Any, ctx: Any, opts: dict[str, Any]) -> list[Finding]:
    try:
        ref = resolve_model(case.model, revision=case.revision, token=opts["token"],
                            endpoint=opts["endpoint"], oauth_token=opts["oauth_token"],
                            cache_dir=opts["cache_dir"], timeout=opts["timeout"])
    except HubError as err:
        return [error_finding(err, "model")]
    _remember(ctx, "model_ref", ref)
    out = [Finding("environment.model-source", "info", _model_title(ref), evidence=_model_evidence(ref),
                   explanation="Read from " + ("the local folder" if ref.kind == "local" else
                                               "the Hub cache" if ref.source == "cache" else
                                               "model_info and config.json") + "; no weights were downloaded.")]
    if ref.source == "cache":
        out.append(_cache_note(ref.name, ref.notes))
    if ref.needs_remote_code:
        trusted = getattr(case, "trust_remote_code", False) is True
        evidence = {"auto_map": ref.auto_map, "code_files": ref.code_files, "trust_remote_code": trusted}
        if trusted:
            out.append(Finding("environment.needs-remote-code", "info",
                               f"{ref.name} runs its own code (you allowed it)", evidence=evidence,
                               explanation="trust_remote_code: true is set in the case; the repo's Python files "
                                           "will run when the model is loaded."))
        else:
            try:
                ensure_remote_code_allowed(ref, False)
            except HubRemoteCodeRequired as err:
                out.append(Finding("environment.needs-remote-code", "warn",
                                   f"{ref.name} needs trust_remote_code", evidence=evidence,
                                   explanation=err.message, fix=err.fix))
    framework = getattr(case, "framework", None)
    if unsafe_weights(ref, framework):
        try:
            ensure_safe_weights(ref, allow_pickle=False, framework=framework)
        except HubPickleWeightsOnly as err:
            out.append(Finding("environment.pickle-weights-only", "warn",
                               f"{ref.name} has no safetensors weights", evidence={
                                   "weights_format": ref.weights_format, "weight_files": ref.weight_files},
                               explanation=err.message, fix=err.fix))
    elif ref.weights_format == "none" and ref.files_complete:
        out.append(Finding("environment.hub-file-missing", "warn", f"{ref.name} has no weight files",
                           evidence={"files": [f.path for f in ref.files][:30]},
                           explanation=f"The model {ref.name!r} has a config.json but no weights "
                                       "(*.safetensors, *.bin, *.h5), so from_pretrained would only build a "
                                       "randomly initialised model; point to the folder or repo with weights.",
                           fix="model.save_pretrained(folder)   # writes model.safetensors beside config.json"))
    if ref.kind == "hub" and ref.source == "hub":  # a cache-only ref cannot say what is missing
        out += _download_findings(case, ref)
    return out


def _download_findings(case: Any, ref: ModelRef) -> list[Finding]:
    patterns = model_file_patterns(ref, getattr(case, "framework", None),
                                   getattr(case, "trust_remote_code", False) is True)
    try:
        plan = download_size(ref, patterns=patterns)
    except HubError:
        return []
    largest = sorted(plan.files, key=lambda f: -(f.size or 0))[:5]
    return [Finding("environment.download-size", "info", f"Loading {ref.name}: {plan.describe()}",
                    evidence={"total_bytes": plan.total_bytes, "cached_bytes": plan.cached_bytes,
                              "to_download_bytes": plan.to_download_bytes, "files": len(plan.files),
                              "largest": {f.path: f.size for f in largest},
                              "human": human_bytes(plan.to_download_bytes), "patterns": patterns,
                              "revision": plan.revision},
                    explanation="The files a fine-tuning run needs (config, tokenizer files and one weights "
                                "format), from the repo's file list; the time assumes 10 MB/s.")]


def _model_title(ref: ModelRef) -> str:
    where = ref.path if ref.kind == "local" else f"{ref.repo_id}@{(ref.commit or '')[:7]}"
    size = f", {_count(ref.num_parameters)} parameters" if ref.num_parameters else ""
    return f"Model {where} ({ref.model_type or 'unknown type'}{size})"


def _model_evidence(ref: ModelRef) -> dict[str, Any]:
    return {"kind": ref.kind, "source": ref.source, "location": ref.location, "revision": ref.revision,
            "commit": ref.commit, "pipeline_tag": ref.pipeline_tag, "library_name": ref.library_name,
            "model_type": ref.model_type, "architectures": ref.architectures,
            "num_parameters": ref.num_parameters, "parameters_by_dtype": ref.safetensors_params,
            "weights_format": ref.weights_format, "files": len(ref.files), "private": ref.private,
            "gated": ref.gated, "token": ref.token_source, "notes": ref.notes}


# --- dataset -----------------------------------------------------------------------------
def _dataset_findings(case: Any, ctx: Any, opts: dict[str, Any]) -> list[Finding]:
    spec = case.dataset
    try:
        ref = resolve_dataset(spec.path or None, config=spec.config, split=spec.train_split,
                              token=opts["token"], endpoint=opts["endpoint"], viewer_url=opts["viewer_url"],
                              data_files=spec.data_files, oauth_token=opts["oauth_token"],
                              timeout=opts["timeout"])
    except HubError as err:
        return [error_finding(err, "dataset")]
    _remember(ctx, "dataset_ref", ref)
    out = [Finding("environment.dataset-source", "info", _dataset_title(ref), evidence=_dataset_evidence(ref),
                   explanation=("Described by the dataset viewer" if ref.viewer else "Read from " + {
                       "disk": "the save_to_disk folder", "files": "the first rows of the data files",
                       "hub": "the Hub cache" if ref.source == "cache" else "the dataset card"}[ref.kind])
                   + "; only max_samples rows will be streamed.")]
    if ref.source == "cache":
        out.append(_cache_note(ref.name, ref.notes))
    eval_split = getattr(spec, "eval_split", None)
    if eval_split and ref.splits and eval_split not in ref.splits:
        known = list(ref.splits)
        out.append(Finding("environment.dataset-config", "fail", f"Split {eval_split!r} not found in {ref.name}",
                           evidence={"eval_split": eval_split, "splits": known, "config": ref.config},
                           explanation=f"The dataset {ref.name!r} has no split {eval_split!r}; set "
                                       f"dataset.eval_split to one of {', '.join(known)}, or to null.",
                           fix=f"dataset:\n  eval_split: {_guess_eval(known)}"))
    return out


def _dataset_title(ref: DatasetRef) -> str:
    rows = ", ".join(f"{k}: {v if v is not None else '?'}" for k, v in ref.splits.items())
    cfg = f" [{ref.config}]" if ref.config else ""
    return f"Dataset {ref.name}{cfg} ({rows or 'splits unknown'})"


def _dataset_evidence(ref: DatasetRef) -> dict[str, Any]:
    return {"kind": ref.kind, "source": ref.source, "name": ref.name, "config": ref.config,
            "configs": ref.configs, "splits": ref.splits, "columns": ref.columns,
            "features": {k: (v.get("dtype") or v.get("_type")) if isinstance(v, dict) else str(v)
                         for k, v in ref.features.items()},
            "first_rows": [{k: (v[:200] if isinstance(v, str) else v) for k, v in r.items()}
                           for r in ref.first_rows[:3]],
            "download_bytes": ref.download_bytes, "viewer": ref.viewer, "viewer_error": ref.viewer_error,
            "commit": ref.commit, "token": ref.token_source, "notes": ref.notes}


def _guess_eval(splits: list[str]) -> str:
    for name in ("validation", "validation_matched", "dev", "test"):
        if name in splits:
            return name
    return "null"


# --- shared ------------------------------------------------------------------------------
def error_finding(err: HubError, what: str) -> Finding:
    """A failing finding for a resolution error: the error's sentence, its fix and evidence."""
    ids = {**COMMON_IDS, **(MODEL_IDS if what == "model" else DATASET_IDS)}
    fid = ids.get(err.kind)
    status = "fail"
    if fid is None:
        fid, status = "environment.hub-unreachable", "error"
    if err.kind == "disabled" and what == "dataset":
        fid = "environment.dataset-not-found"
    evidence = {"kind": err.kind, "repo": err.repo, **err.evidence}
    if err.kind in UNREACHABLE:  # not the user's fault: nothing could be checked
        status = "skip"
        evidence["blocks"] = True
    title = TITLES.get(err.kind, "Could not resolve {repo}").format(what=what.capitalize(), repo=err.repo or "?")
    return Finding(fid, status, title, evidence=evidence, explanation=err.message, fix=err.fix)


def _cache_note(name: str, notes: list[str]) -> Finding:
    return Finding("environment.hub-unreachable", "info", f"{name} came from the local cache",
                   evidence={"repo": name, "notes": notes},
                   explanation="The Hub was not asked (offline mode) or did not answer, so the cached copy "
                               "is used; it may be older than the Hub's.",
                   fix="unset HF_HUB_OFFLINE   # to check the Hub for a newer revision")


def _options(ctx: Any) -> dict[str, Any]:
    def get(name: str, default: Any = None) -> Any:
        if isinstance(ctx, dict):
            return ctx.get(name, default)
        return getattr(ctx, name, default) if ctx is not None else default

    return {"token": get("hub_token"), "oauth_token": get("oauth_token"), "endpoint": get("hub_endpoint"),
            "viewer_url": get("viewer_url"),
            "cache_dir": get("hub_cache_dir"), "timeout": get("hub_timeout")}


def _remember(ctx: Any, name: str, value: Any) -> None:
    if isinstance(ctx, dict):
        ctx[name] = value
    elif ctx is not None:
        try:
            setattr(ctx, name, value)
        except AttributeError:
            pass


def _count(n: int) -> str:
    """12_345 -> 12.3K, 66_955_010 -> 67.0M, 1_500_000_000 -> 1.50B."""
    if n >= 1e9:
        return f"{n / 1e9:.2f}B"
    if n >= 1e6:
        return f"{n / 1e6:.1f}M"
    return f"{n / 1e3:.1f}K" if n >= 1e3 else str(n)
