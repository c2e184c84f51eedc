"""The wizard's settings: the one place that reads its WIZARD_* environment variables, and the
defaults every front end shares."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

PROBE_TIMEOUT = 300.0            # seconds one probe may run before its worker is stopped
DEFAULT_VIEWER_URL = "https://datasets-server.huggingface.co"
DEFAULT_GITHUB_API = "https://api.github.com"
REPRO_BUDGET = 240.0             # seconds for all reproduction candidates (below PROBE_TIMEOUT)


@dataclass(frozen=True)
class Settings:
    """Settings from the environment (a Space sets the app's through its variables)."""

    device: str = "auto"              # WIZARD_DEVICE: auto | cpu | cuda
    probe_timeout: float = PROBE_TIMEOUT  # WIZARD_PROBE_TIMEOUT
    concurrency: int = 2              # WIZARD_CONCURRENCY: app sessions whose checks run at once
    max_file_size: str = "25mb"       # WIZARD_MAX_FILE_SIZE: per uploaded file in the app
    gpu_duration: int = 120           # WIZARD_GPU_DURATION: ZeroGPU seconds per run
    run_time_limit: int = 1800        # WIZARD_RUN_TIME_LIMIT: seconds for one app session's checks
    cache_dir: str | None = None      # WIZARD_CACHE: where the demo fixtures are built
    viewer_url: str = DEFAULT_VIEWER_URL  # WIZARD_VIEWER_URL: the dataset viewer's API
    index_url: str | None = None      # WIZARD_INDEX_URL: package index for release checks ("off")
    repro_budget: float = REPRO_BUDGET  # WIZARD_REPRO_BUDGET
    run_scripts: bool | None = None   # WIZARD_RUN_SCRIPTS: 1/0, the app runs pasted scripts
                                      # (unset: on the user's own machine only, not on a Space)
    github_api: str = DEFAULT_GITHUB_API  # WIZARD_GITHUB_API: where issue searches go
    github_token: str | None = None   # GITHUB_TOKEN (or GH_TOKEN): sent with issue searches

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        env = os.environ if env is None else env
        return cls(device=env.get("WIZARD_DEVICE", "auto"),
                   probe_timeout=float(env.get("WIZARD_PROBE_TIMEOUT") or PROBE_TIMEOUT),
                   concurrency=int(env.get("WIZARD_CONCURRENCY") or 2),
                   max_file_size=env.get("WIZARD_MAX_FILE_SIZE") or "25mb",
                   gpu_duration=int(env.get("WIZARD_GPU_DURATION") or 120),
                   run_time_limit=int(env.get("WIZARD_RUN_TIME_LIMIT") or 1800),
                   cache_dir=env.get("WIZARD_CACHE") or None,
                   viewer_url=env.get("WIZARD_VIEWER_URL") or DEFAULT_VIEWER_URL,
                   index_url=(env.get("WIZARD_INDEX_URL") or "").strip() or None,
                   repro_budget=float(env.get("WIZARD_REPRO_BUDGET") or REPRO_BUDGET),
                   run_scripts={"1": True, "0": False}.get(
                       (env.get("WIZARD_RUN_SCRIPTS") or "").strip()),
                   github_api=env.get("WIZARD_GITHUB_API") or DEFAULT_GITHUB_API,
                   github_token=env.get("GITHUB_TOKEN") or env.get("GH_TOKEN") or None)


def current() -> Settings:
    """The settings as the environment has them now."""
    return Settings.from_env()
