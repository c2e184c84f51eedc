"""Redaction: a corpus of secrets in realistic contexts must show zero leaks, and ordinary report
text (tracebacks, configs, model ids, hashes) must come out unchanged."""
from __future__ import annotations

import json
import random
import socket
import string
from pathlib import Path

import pytest

from wizard.reports.redact import find_secrets, redact

DATA = Path(__file__).parent / "data"
ALNUM = string.ascii_letters + string.digits
USER, HOST = "zoltan", "zoltan-rig"


@pytest.fixture(autouse=True)
def machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fixed identity for this machine, so results do not depend on who runs the tests."""
    monkeypatch.setenv("HOME", f"/home/{USER}")
    for var in ("USER", "LOGNAME", "USERNAME"):
        monkeypatch.setenv(var, USER)
    monkeypatch.delenv("USERPROFILE", raising=False)
    monkeypatch.setattr(socket, "gethostname", lambda: HOST)


def _rnd(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    while True:  # a real key has digits and both cases; make the fakes look the same
        s = "".join(rng.choice(alphabet) for _ in range(n))
        if alphabet != ALNUM or (any(c.isdigit() for c in s) and any(c.isupper() for c in s)
                                 and any(c.islower() for c in s)):
            return s


def make_secrets(seed: int = 0) -> dict[str, str]:
    """Fake credentials in the shapes of the real ones (assembled here, never stored)."""
    r = random.Random(seed)
    hexd = "0123456789abcdef"
    return {
        "hf": "hf_" + _rnd(r, 34),
        "hf2": "hf_" + _rnd(r, 34),
        "hf_org": "api_org_" + _rnd(r, 34),
        "openai": "sk-" + _rnd(r, 48),
        "openai_proj": "sk-proj-" + _rnd(r, 40) + "-" + _rnd(r, 20) + "_" + _rnd(r, 20),
        "anthropic": "sk-ant-api03-" + _rnd(r, 60) + "-" + _rnd(r, 20),
        "ghp": "ghp_" + _rnd(r, 36),
        "gho": "gho_" + _rnd(r, 36),
        "github_pat": "github_pat_" + _rnd(r, 22) + "_" + _rnd(r, 59),
        "aws_id": "AKIA" + _rnd(r, 16, string.ascii_uppercase + string.digits),
        "aws_secret": _rnd(r, 40, ALNUM + "/+"),
        "aws_session": _rnd(r, 120, ALNUM + "/+="),
        "slack": "xoxb-" + _rnd(r, 12, string.digits) + "-" + _rnd(r, 13, string.digits) + "-" + _rnd(r, 24),
        "google": "AIza" + _rnd(r, 35, ALNUM + "_-"),
        "wandb": _rnd(r, 40, hexd),
        "wandb2": _rnd(r, 40, hexd),
        "generic": _rnd(r, 24),
        "generic2": _rnd(r, 32, ALNUM + "-_"),
        "sig": _rnd(r, 43, ALNUM + "%"),
        "password": _rnd(r, 14, ALNUM + "!%^*-_+=@#&"),
        "password2": _rnd(r, 10, ALNUM),
        "db_password": _rnd(r, 16, ALNUM + "!-_"),
        "jwt": "eyJ" + _rnd(r, 30, ALNUM + "_-") + ".eyJ" + _rnd(r, 60, ALNUM + "_-") + "." + _rnd(r, 43, ALNUM + "_-"),
        "pem_body": _rnd(r, 64, ALNUM + "+/"),
        "cookie": _rnd(r, 32, ALNUM),
        "email": "zoltan.kovacs+hf@example-corp.com",
        "email2": "jane_doe@uni-example.ac.uk",
    }


def make_corpus(s: dict[str, str]) -> list[str]:
    """Secrets where people actually paste them: tracebacks, env dumps, YAML, shell history,
    URLs, notebook JSON, Python code, netrc, Windows shells, Docker."""
    home = f"/home/{USER}"
    pem = ("-----BEGIN " + "RSA PRIVATE KEY-----\n" + s["pem_body"] + "\n" + s["pem_body"][::-1]
           + "\n-----END " + "RSA PRIVATE KEY-----")
    return [
        # traceback with locals (rich / better-exceptions style) and paths
        f'''Traceback (most recent call last):
  File "{home}/projects/sentiment/train.py", line 12, in <module>
    model.push_to_hub("sentiment-bert", token="{s['hf']}")
  File "{home}/miniconda3/envs/ft/lib/python3.11/site-packages/transformers/modeling_utils.py", line 3120, in push_to_hub
    token = '{s['hf']}'
    url = 'https://huggingface.co/api/repos/create?token={s['generic']}'
huggingface_hub.errors.HfHubHTTPError: 401 Client Error: Unauthorized for url: https://huggingface.co/api/whoami-v2?access_token={s['generic2']}''',
        # env dump
        f'''HOME={home}
USER={USER}
LOGNAME={USER}
HOSTNAME={HOST}
PWD={home}/projects/sentiment
HF_TOKEN={s['hf']}
HUGGING_FACE_HUB_TOKEN={s['hf2']}
OPENAI_API_KEY={s['openai']}
ANTHROPIC_API_KEY={s['anthropic']}
GITHUB_TOKEN={s['ghp']}
AWS_ACCESS_KEY_ID={s['aws_id']}
AWS_SECRET_ACCESS_KEY={s['aws_secret']}
AWS_SESSION_TOKEN={s['aws_session']}
SLACK_BOT_TOKEN={s['slack']}
GOOGLE_API_KEY={s['google']}
WANDB_API_KEY={s['wandb']}
DB_PASSWORD={s['db_password']}
GIT_AUTHOR_EMAIL={s['email']}
MAIL=/var/mail/{USER}''',
        # YAML config
        f'''model_name_or_path: bert-base-uncased
push_to_hub: true
hub_token: {s['generic']}
hub_model_id: sentiment-bert
wandb:
  project: sentiment
  api_key: {s['wandb']}
database:
  user: admin
  password: {s['password']}
maintainer: {s['email2']}
output_dir: {home}/runs/sentiment''',
        # shell history
        f'''  501  export HF_TOKEN={s['hf']}
  502  huggingface-cli login --token {s['hf2']} --add-to-git-credential
  503  hf auth login --token={s['generic']}
  504  wandb login {s['wandb2']}
  505  wandb login --relogin {s['wandb']}
  506  curl -H "Authorization: Bearer {s['generic2']}" https://huggingface.co/api/whoami-v2
  507  curl -H 'Authorization: token {s['gho']}' https://api.github.com/user
  508  git clone https://{USER}:{s['ghp']}@github.com/{USER}/private-repo.git
  509  git remote add hf https://{USER}:{s['hf']}@huggingface.co/{USER}/sentiment-bert
  510  aws configure set aws_secret_access_key {s['aws_secret']}
  511  docker login -u {USER} -p {s['password2']} registry.example.com
  512  pip install --index-url https://deploy:{s['password2']}@pypi.example.com/simple private-pkg
  513  mysql --user=root --password={s['db_password']} mydb
  514  python run_glue.py --push_to_hub --hub_token {s['generic']} --output_dir out
  515  export OPENAI_API_KEY="{s['openai_proj']}"''',
        # URLs with secrets in query strings
        f'''GET https://huggingface.co/api/models?token={s['hf']}&limit=5
GET https://example.com/api/v1/items?api_key={s['generic']}&page=2
GET https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key={s['google']}
GET https://bucket.s3.amazonaws.com/model.bin?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={s['aws_id']}%2F20240101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature={s['sig']}
GET https://acct.blob.core.windows.net/c/model.safetensors?sv=2022-11-02&sr=b&sig={s['sig']}
DEBUG:urllib3.connectionpool:https://huggingface.co:443 "GET /api/models/x?password={s['password2']} HTTP/1.1" 200 None''',
        # notebook output: JSON with escaped quotes and newlines inside strings
        json.dumps({"cells": [{"cell_type": "code", "outputs": [{
            "name": "stdout", "output_type": "stream",
            "text": [f"HF_TOKEN={s['hf']}\n",
                     json.dumps({"api_key": s["generic"], "user": USER}) + "\n",
                     f"Token has been saved to {home}/.cache/huggingface/token\n"]}],
            "source": ["import os\n", f'os.environ["HF_TOKEN"] = "{s["hf2"]}"\n',
                       f"os.environ['WANDB_API_KEY'] = '{s['wandb']}'\n"]}]}, indent=1),
        # Python code
        f'''from huggingface_hub import login, HfApi
login(token="{s['hf']}")
api = HfApi(token='{s['hf_org']}')
wandb.login(key="{s['wandb2']}")
openai.api_key = "{s['openai']}"
client = Anthropic(api_key="{s['anthropic']}")
requests.get(url, headers={{"Authorization": "Bearer {s['generic2']}"}})
self.password = "{s['password']}"
conn = connect(host="db", password='{s['db_password']}')
SLACK = "{s['slack']}"
key = os.getenv("MY_SERVICE_API_KEY", "{s['generic2']}")
callback = "https://example.com/login?next=https%3A%2F%2Fapp.example%2Fcb%3Ftoken%3D{s['generic']}"
JWT = "{s['jwt']}"''',
        # JSON config and Python repr
        f'''{{"hf_token": "{s['hf']}", "github_token": "{s['github_pat']}", "client_secret": "{s['generic2']}"}}
{{'token': '{s['generic']}', 'password': '{s['password']}', 'email': '{s['email']}'}}''',
        # netrc (wandb writes one) and git credentials
        f'''machine api.wandb.ai
  login user
  password {s['wandb']}
machine huggingface.co login {USER} password {s['hf2']}
https://{USER}:{s['ghp']}@github.com''',
        # Windows shells
        f'''C:\\Users\\Zoltan\\projects> set HF_TOKEN={s['hf']}
PS C:\\Users\\{USER}> $env:OPENAI_API_KEY="{s['openai']}"
  File "C:\\Users\\Zoltan\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\site-packages\\transformers\\trainer.py", line 2240, in train
"C:\\\\Users\\\\Zoltan\\\\AppData\\\\Roaming\\\\wandb\\\\settings"''',
        # Docker
        f'''FROM python:3.11
ENV HF_TOKEN {s['hf']}
ENV WANDB_API_KEY={s['wandb']}
RUN --mount=type=secret,id=hf echo ok
docker run -e HF_TOKEN={s['hf2']} -e AWS_SECRET_ACCESS_KEY={s['aws_secret']} image
docker build --build-arg GITHUB_TOKEN={s['gho']} .''',
        # headers, cookies, keys
        f'''> GET /api/whoami-v2 HTTP/1.1
> Host: huggingface.co
> Authorization: Bearer {s['hf']}
> Cookie: token={s['cookie']}; session-id={s['cookie'][::-1]}
< Set-Cookie: __Secure-session={s['cookie']}; Path=/; HttpOnly
{pem}''',
        # shell prompt and plain mentions
        f'''(ft) {USER}@{HOST}:~/projects/sentiment$ python train.py
[{USER}@{HOST} sentiment]$ nvidia-smi
Written by {s['email']} on {HOST}; ask {s['email2']}. Signed-off-by: Zoltan
Saved model to /Users/{USER}/models and {home}/models (file://{home}/models/config.json)''',
    ]


SECRET_KEYS = [k for k in make_secrets() if k not in ("email", "email2")]


def _leaks(out: str, secrets: dict[str, str]) -> list[str]:
    """Secret values, or any 8-character piece of one, still present in `out`."""
    found = []
    for name, value in secrets.items():
        pieces = {value} | ({value[i:i + 8] for i in range(len(value) - 7)}
                            if name in SECRET_KEYS else {value.split("@")[0]})
        if any(p in out for p in pieces):
            found.append(name)
    lowered = out.lower()
    if USER in lowered:
        found.append("user name")
    if HOST in lowered:
        found.append("host name")
    return found


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_secret_corpus_has_zero_leaks(seed: int) -> None:
    secrets = make_secrets(seed)
    for snippet in make_corpus(secrets):
        out = redact(snippet)
        assert _leaks(out, secrets) == [], out


def test_whole_corpus_in_one_pass_has_zero_leaks() -> None:
    """The corpus as one pasted text is clean in one pass too, and redacting is idempotent."""
    secrets = make_secrets(7)
    text = "\n\n".join(make_corpus(secrets))
    out = redact(text)
    assert _leaks(out, secrets) == []
    assert redact(out) == out  # idempotent


def test_placeholders_are_specific() -> None:
    s = make_secrets()
    cases = {
        f"export HF_TOKEN={s['hf']}": "export HF_TOKEN=<HF_TOKEN>",
        f"key {s['hf_org']}": "key <HF_TOKEN>",
        f"OPENAI_API_KEY={s['openai']}": "OPENAI_API_KEY=<OPENAI_KEY>",
        f"token {s['ghp']} and {s['github_pat']}": "token <GITHUB_TOKEN> and <GITHUB_TOKEN>",
        f"id {s['aws_id']}": "id <AWS_ACCESS_KEY_ID>",
        f"aws_secret_access_key = {s['aws_secret']}": "aws_secret_access_key = <AWS_SECRET_KEY>",
        f"slack {s['slack']}": "slack <SLACK_TOKEN>",
        f"google {s['google']}": "google <GOOGLE_API_KEY>",
        f"WANDB_API_KEY={s['wandb']}": "WANDB_API_KEY=<WANDB_API_KEY>",
        f"password: {s['password2']}": "password: <PASSWORD>",
        f"mail {s['email']} now": "mail <EMAIL> now",
        f"see /home/{USER}/x.py": "see ~/x.py",
        f"{USER}@{HOST}:~$ ls": "<USER>@<HOST>:~$ ls",
    }
    for text, expected in cases.items():
        assert redact(text) == expected


def test_site_packages_paths_are_shortened() -> None:
    cases = {
        '  File "/home/alice/miniconda3/envs/ft/lib/python3.11/site-packages/transformers/trainer.py", line 1':
            '  File "…/site-packages/transformers/trainer.py", line 1',
        '  File "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", line 1736':
            '  File "…/dist-packages/torch/nn/modules/module.py", line 1736',
        r'  File "C:\Users\Bob Smith\AppData\Local\Programs\Python\Python311\Lib\site-packages\torch\nn\functional.py"':
            r'  File "…\site-packages\torch\nn\functional.py"',
        "Location: /opt/conda/lib/python3.11/site-packages":
            "Location: …/site-packages",
    }
    for text, expected in cases.items():
        assert redact(text) == expected


def test_home_paths_become_tilde(monkeypatch: pytest.MonkeyPatch) -> None:
    assert redact("/home/alice/data and /Users/bob/x and /home/zoltan") == "~/data and ~/x and ~"
    assert redact(r"C:\Users\Carol\proj and C:/Users/Dave/p") == r"~\proj and ~/p"
    assert redact("/mnt/c/Users/erin/file.txt") == "~/file.txt"
    # the current user's home, wherever it is, and the user name on its own
    monkeypatch.setenv("HOME", "/data/people/zoltan")
    assert redact("/data/people/zoltan/ckpt; zoltan ran it") == "~/ckpt; <USER> ran it"


def test_find_secrets_reports_kinds_and_exact_spans() -> None:
    s = make_secrets()
    text = f"HF_TOKEN={s['hf']} mail={s['email']} path=/home/{USER}/x"
    found = find_secrets(text)
    kinds = [k for k, _ in found]
    assert kinds == ["hf_token", "email", "home_path"]
    spans = [text[a:b] for _, (a, b) in found]
    assert spans == [s["hf"], s["email"], f"/home/{USER}"]


def test_extra_and_environment_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "the passphrase is correct horse battery staple; the service said plainlowercasevalue"
    assert redact(text) == text  # neither looks like a secret by shape
    out = redact(text, extra_secrets=["correct horse battery staple"])
    assert "correct horse" not in out and "<SECRET>" in out
    monkeypatch.setenv("MY_SERVICE_TOKEN", "plainlowercasevalue")
    assert "plainlowercasevalue" not in redact(text)


def test_harmless_text_is_unchanged() -> None:
    text = (DATA / "harmless_corpus.txt").read_text(encoding="utf-8")
    out = redact(text)
    changed = [(a, b) for a, b in zip(text.splitlines(), out.splitlines()) if a != b]
    assert changed == []
    assert find_secrets(text) == []


@pytest.mark.parametrize("text", [
    "bert-base-uncased", "google-bert/bert-base-uncased", "distilbert/distilbert-base-uncased",
    "cf30153c4c131c8164ee7798e5022d810682e2cb", "0x7f3a2b1c4d50", "3.14159e-05",
    "1,234,567 parameters", "hf_hub_download(repo_id='x', filename='config.json')",
    "use_auth_token=True", "token=None", "pad_token_id=0", "git@github.com:huggingface/datasets.git",
    "sk-learn", "x@self.proj(h)", "", "   ",
])
def test_ordinary_strings_survive(text: str) -> None:
    assert redact(text) == text


def test_user_named_like_a_model_family_keeps_model_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("USER", "albert")
    monkeypatch.setenv("LOGNAME", "albert")
    monkeypatch.setenv("HOME", "/home/albert")
    text = 'from_pretrained("albert-base-v2") in /home/albert/x'
    assert redact(text) == 'from_pretrained("albert-base-v2") in ~/x'


@pytest.mark.parametrize("text, kept", [
    ("wandb key: 0123456789abcdef0123456789abcdef01234567", False),
    ("the api token 0123456789abcdef0123456789abcdef01234567 expired", False),
    ("commit 0123456789abcdef0123456789abcdef01234567", True),
    ('revision="0123456789abcdef0123456789abcdef01234567"', True),
    ("snapshots/0123456789abcdef0123456789abcdef01234567/config.json", True),
])
def test_a_wandb_api_key_is_redacted_and_a_commit_hash_is_not(text, kept):
    key = "0123456789abcdef0123456789abcdef01234567"
    assert (key in redact(text)) is kept
