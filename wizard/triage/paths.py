"""What a name in a paste is: a local path or a Hub repository id."""
from __future__ import annotations

import re

# ./x, ../x, /x, ~/x, C:\x
LOCAL_PATH = r"(?:\.{1,2}[/\\]|[/~]|[A-Za-z]:[/\\])"
# a training run's folder: a Trainer checkpoint, or an output folder of a script ("outputs/x")
_RUN_FOLDER = re.compile(r"(?:^|[/\\])checkpoint-\d+[/\\]?$|^(?:outputs?|output_dir|results?|"
                         r"checkpoints?|ckpts?|runs|saved?_models?|tmp|logs?)[/\\]")


def is_local_path(name: str) -> bool:
    """Whether a name given to from_pretrained is a local path, not an org/name Hub id: it starts
    like a path, has more than one folder, or is a training run's folder."""
    return bool(re.match(LOCAL_PATH, name) or name.count("/") > 1 or _RUN_FOLDER.search(name))
