"""Environment rules for skew between two libraries: one library builds a call that a newer
release of another rejects (sentence-transformers' unbatched input to a newer transformers), told
apart from the same error raised by the user's own call.
"""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.env_answers import NEW, answer, importer_of
from wizard.triage.parse import ParsedError

# code of the paste that calls a model (or a Keras predict) directly with token ids
_DIRECT_CALL = re.compile(r"\b\w*model\w*(?:\.predict)?\((?:[^()\n]*\b(?:input_ids|inputs?|"
                          r"encod\w*|tokens?|ids)\b|\*\*)", re.I)
# a library between the user and the model that builds the batch itself
_BUILDERS = re.compile(r"\b(?:sentence_transformers|SentenceTransformer|txtai|simpletransformers|"
                       r"flair|bertopic|setfit)\b", re.I)


def refine_unbatched_input(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """1-D input_ids reached a transformers model. From the user's own call: the batch dimension
    is missing. Through a library that builds the batch (sentence-transformers and the tools on
    top of it): that library is older than the installed transformers, which stopped accepting
    unbatched input (3.1)."""
    user = parsed.innermost_user_frame
    own = (user is not None and bool(_DIRECT_CALL.search(user.code or ""))) or \
        (not _BUILDERS.search(parsed.text) and bool(_DIRECT_CALL.search(parsed.text)))
    builder = importer_of(parsed, "transformers") or (
        m.group(0) if (m := _BUILDERS.search(parsed.text)) else None)
    if not ev.get("flat") and (own or builder is None):
        return {"reject": True}       # no shape shown, no library building the batch: unknown
    if own or builder is None:
        return {"id": "missing-batch-dimension",
                "cause": "The model got one sequence without its batch dimension: input_ids of "
                         "shape (seq_len,) instead of (batch, seq_len).",
                "fix": "input_ids = input_ids.unsqueeze(0)   # or np.expand_dims(x, 0); or pass "
                       "the tokenizer's batched output (return_tensors='pt')"}
    lib = "sentence-transformers" if re.search(r"sentence|SentenceTransformer|txtai|setfit|"
                                               r"bertopic", builder, re.I) else builder
    return answer(NEW, "transformers", f"{lib} passes unbatched (1-D) input_ids, which the "
                  "installed transformers rejects since 3.1: it is newer than that "
                  f"{lib} release supports.",
                  f'pip install -U {lib}   # a release made for the installed transformers\n'
                  '# or: pip install "transformers<3.1"', ev, (lib,))
