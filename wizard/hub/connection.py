"""How the wizard talks to the Hub: offline mode, the request timeout, the HfApi client.

Works with huggingface-hub 0.36 (requests) and 2.x (httpx2); huggingface_hub is imported only
when it is used.
"""
from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

DEFAULT_TIMEOUT = 10.0  # seconds; HF_HUB_ETAG_TIMEOUT overrides it, as in huggingface_hub


def is_offline() -> bool:
    """Whether huggingface_hub is in offline mode (HF_HUB_OFFLINE=1)."""
    from huggingface_hub import constants

    check = getattr(constants, "is_offline_mode", None)  # hub 2.x
    return bool(check() if callable(check) else constants.HF_HUB_OFFLINE)


def set_offline(enabled: bool) -> None:
    """Switch offline mode for huggingface_hub and datasets in this process (both read it at
    import)."""
    from huggingface_hub import constants

    os.environ["HF_HUB_OFFLINE"] = "1" if enabled else "0"
    os.environ["HF_DATASETS_OFFLINE"] = "1" if enabled else "0"
    constants.HF_HUB_OFFLINE = enabled
    if "datasets" in sys.modules:
        from datasets import config as ds_config

        ds_config.HF_HUB_OFFLINE = enabled
        if hasattr(ds_config, "HF_DATASETS_OFFLINE"):
            ds_config.HF_DATASETS_OFFLINE = enabled
    _reset_http_sessions()


def _reset_http_sessions() -> None:
    """Drop cached HTTP sessions so a changed offline flag takes effect (0.36 mounts it per
    session)."""
    from huggingface_hub import utils

    for name in ("reset_sessions", "close_session"):  # 0.36, 2.x
        fn = getattr(utils, name, None)
        if callable(fn):
            with contextlib.suppress(Exception):
                fn()


def timeout_seconds(timeout: float | None) -> float:
    """`timeout`, else $HF_HUB_ETAG_TIMEOUT, else DEFAULT_TIMEOUT."""
    if timeout is not None:
        return float(timeout)
    try:
        return float(os.environ.get("HF_HUB_ETAG_TIMEOUT") or DEFAULT_TIMEOUT)
    except ValueError:
        return DEFAULT_TIMEOUT


def hub_api(endpoint: str | None, token: str | None) -> Any:
    """An HfApi for `endpoint` that sends `token`, or no token at all when it is None."""
    from huggingface_hub import HfApi

    return HfApi(endpoint=endpoint, token=token or False, library_name="hf-debug-wizard",
                 library_version="0.1")
