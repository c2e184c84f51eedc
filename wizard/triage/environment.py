"""The environment family: errors whose cause is the installation, not the code or the data.

Five causes, each answered with the command that fixes it: env-missing-package (pip install X),
env-version-too-old (pip install -U "X>=V"), env-version-too-new (an API a release removed or
changed: the pin, or the new spelling), env-binary-incompatible (compiled packages built against
other versions) and env-setup-step-skipped (the step that was left out: git lfs, a restart after
pip install, a download); and a guess, env-version-mismatch, for an argument or a name that no
rule knows (some release differs from the one the code was written for; which way is not told). Several rules (signatures) lead to each cause; a rule's refine decides
which cause it is from the names and versions in the paste and the table in versions.py, and
names the versions installed here.
"""
from __future__ import annotations

from wizard.triage.signature import Signature
from wizard.triage.signatures_env_install import INSTALL_SIGNATURES
from wizard.triage.signatures_env_versions import VERSION_SIGNATURES

ENV_SIGNATURES: list[Signature] = VERSION_SIGNATURES + INSTALL_SIGNATURES
