"""Errors of pushing a fine-tuned model to the Hub: creating a repo that exists, files git
pushes without LFS, and model-card metadata the Hub's validator refuses."""
from __future__ import annotations

from wizard.triage.signature import Signature, signature_maker

_h = signature_maker(14)


HUB_PUSH_SIGNATURES: list[Signature] = [
    _h("hub-repo-already-exists",
       r"(?:409 )?Client Error: Conflict for url: \S{0,80}/api/repos/create|"
       r"You already created this \w{1,20} repo|\bthis repo(?:sitory)? already exists?\b",
       "The push creates the repo, and a repo of that id exists already (the same repo_id or "
       "project name run again): create_repo was called without exist_ok=True.",
       "Creating a repo that exists is a conflict unless exist_ok is set.",
       ["environment.model-source"],
       "from huggingface_hub import create_repo\ncreate_repo(repo_id, exist_ok=True)   # then "
       "push\n# autotrain: a new --project-name, or delete the old repo",
       title="The repo exists already"),
    _h("hub-push-without-lfs",
       r"push was rejected because it contains files larger than 10 ?M",
       "A git push to the Hub holds a file over 10 MB (tf_model.h5, a TensorBoard events file, "
       "a checkpoint) that .gitattributes does not track with git-lfs.",
       "The Hub takes large files through LFS only.", ["environment.model-source"],
       "git lfs install && git lfs track \"*.h5\" \"*.tfevents*\" \"*.ckpt\"\ngit add "
       ".gitattributes && git commit --amend   # re-commit the file through LFS\n# or: "
       "HfApi().upload_folder(folder_path=out, repo_id=repo_id)   # uses LFS itself",
       title="A large file pushed without LFS"),
    _h("hub-card-metadata-rejected",
       r"Bad request(?: for commit endpoint)?:\s{0,40}(?:E\s{1,20})?\"[\w\[\].-]{1,80}\" "
       r"(?:must be|is not allowed|with value)|api/validate-yaml\b|rejected during YAML "
       r"metadata verification",
       "The README.md model card written by the push (Trainer.push_to_hub, autotrain, skops) "
       "holds YAML metadata the Hub refuses (an empty base_model, a local path under datasets, "
       "widget not a list, a model-index value of the wrong type), so the whole commit is "
       "refused.", "The Hub validates a model card's metadata on every commit.",
       ["environment.model-source"],
       "# fix the field the message names before pushing, e.g.\ntrainer.push_to_hub(dataset="
       "None)   # no local dataset path in the card\n# or upgrade the library that writes the "
       "card", title="Model-card metadata the Hub refuses"),
]
