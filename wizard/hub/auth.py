"""Which token the wizard sends to the Hub, and where it came from."""
from __future__ import annotations

import os
from typing import Any


def resolve_token(token: str | bool | None = None,
                  oauth_token: Any = None) -> tuple[str | None, str]:
    """(token, where it came from): argument, oauth (the app's login), HF_TOKEN, saved login, or
    none.

    `token=False` sends none; `True` or None looks further, as huggingface_hub does. `oauth_token`
    may be a string or an object with `.token` (gradio's OAuthToken).
    """
    if token is False:
        return None, "none"
    if isinstance(token, str) and token:
        return token, "argument"
    if oauth_token is not None:
        value = getattr(oauth_token, "token", oauth_token)
        if isinstance(value, str) and value:
            return value, "oauth"
    from huggingface_hub import constants, get_token

    if getattr(constants, "HF_HUB_DISABLE_IMPLICIT_TOKEN", False):
        return None, "none"
    env = os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN")
    if env and env.strip():
        return env.strip(), "HF_TOKEN"
    try:
        saved = get_token()
    except Exception:  # a broken token file or OIDC setup must not crash resolution
        saved = None
    return (saved, "saved login") if saved else (None, "none")
