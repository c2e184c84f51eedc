"""Strip secrets and personal details from text before it is shown or sent anywhere.

Removed: Hugging Face tokens and other API keys (by their shape, and as values of keys,
headers, flags and URLs that carry secrets), passwords, private keys, e-mail addresses, home
folders (to `~`), the paths in front of `site-packages` (to `…/site-packages`), the current
user's name and the machine's host name. Model ids, commit hashes, numbers and the rest of a
traceback stay as they are.
"""
from __future__ import annotations

import getpass
import os
import re
import socket
from dataclasses import dataclass
from typing import Callable, Iterable

# Severity decides which placeholder wins when two findings overlap (lower = more secret).
_TOKEN, _SECRET, _PERSON, _PATH = 0, 1, 2, 3


@dataclass(frozen=True)
class _Hit:
    start: int
    end: int
    kind: str
    placeholder: str
    severity: int


@dataclass(frozen=True)
class _Shape:
    """A secret recognisable by its own shape; `group` is the part that is replaced."""

    kind: str
    placeholder: str
    pattern: re.Pattern[str]
    group: int | str = 0
    accept: Callable[[str], bool] | None = None


def _mixed(s: str) -> bool:
    """True for random-looking strings (a digit and an upper-case letter), not for words."""
    return any(c.isdigit() for c in s) and any(c.isupper() for c in s)


_SHAPES: tuple[_Shape, ...] = (
    _Shape("private_key", "<PRIVATE_KEY>", re.compile(
        r"-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END[A-Z ]*PRIVATE KEY(?: BLOCK)?-----|\Z)")),
    _Shape("hf_token", "<HF_TOKEN>", re.compile(
        r"(?<![A-Za-z0-9])(?:hf_[A-Za-z0-9]{20,}|api_org_[A-Za-z0-9]{20,}|api_[A-Za-z]{30,})"
        r"(?![A-Za-z0-9])"), accept=lambda s: len(set(s.split("_")[-1])) > 3),
    _Shape("anthropic_key", "<ANTHROPIC_KEY>", re.compile(
        r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}")),
    _Shape("openai_key", "<OPENAI_KEY>", re.compile(
        r"(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}"),
        accept=_mixed),
    _Shape("github_token", "<GITHUB_TOKEN>", re.compile(
        r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})")),
    _Shape("gitlab_token", "<GITLAB_TOKEN>", re.compile(r"(?<![\w-])glpat-[A-Za-z0-9_-]{20,}")),
    _Shape("aws_access_key_id", "<AWS_ACCESS_KEY_ID>", re.compile(
        r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])")),
    _Shape("aws_secret_key", "<AWS_SECRET_KEY>", re.compile(
        r"(?i:aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)"
        r"(?:\\?[\"'])?\]?(?:\s*[:=]\s*|[ \t]+)(?:\\?[\"'])?"
        r"(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"),
        group="v"),
    _Shape("slack_token", "<SLACK_TOKEN>", re.compile(r"(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,}")),
    _Shape("slack_webhook", "<SLACK_WEBHOOK>", re.compile(
        r"(?<=hooks\.slack\.com/services/)[A-Za-z0-9/_-]+")),
    _Shape("discord_webhook", "<DISCORD_WEBHOOK>", re.compile(
        r"(?<=/api/webhooks/)\d+/[A-Za-z0-9_-]+")),
    _Shape("google_api_key", "<GOOGLE_API_KEY>", re.compile(r"(?<![\w-])AIza[0-9A-Za-z_-]{35}")),
    _Shape("google_oauth_token", "<GOOGLE_TOKEN>", re.compile(
        r"(?<![\w-])ya29\.[0-9A-Za-z_-]{20,}")),
    _Shape("stripe_key", "<STRIPE_KEY>", re.compile(
        r"(?<![\w-])(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}")),
    _Shape("sendgrid_key", "<SENDGRID_KEY>", re.compile(r"(?<![\w-])SG\.[\w-]{16,}\.[\w-]{16,}")),
    _Shape("npm_token", "<NPM_TOKEN>", re.compile(r"(?<![\w-])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])")),
    _Shape("pypi_token", "<PYPI_TOKEN>", re.compile(r"(?<![\w-])pypi-[A-Za-z0-9_-]{50,}")),
    _Shape("replicate_token", "<REPLICATE_TOKEN>", re.compile(
        r"(?<![\w-])r8_[A-Za-z0-9]{30,}(?![A-Za-z0-9])")),
    _Shape("groq_key", "<GROQ_KEY>", re.compile(r"(?<![\w-])gsk_[A-Za-z0-9]{40,}(?![A-Za-z0-9])")),
    _Shape("jwt", "<JWT>", re.compile(
        r"(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
)

# --- secrets given as the value of a key -----------------------------------------------------
_KEYWORDS = (r"(?:token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|secret|client[_-]?secret"
             r"|password|passwd|passphrase|private[_-]?key|auth)")
# A quoted value ('...', "...", \"...\" inside JSON strings) or a bare one.
_VALUE = (r"(?:[rbfuRBFU]{0,2}(?P<q>\\?[\"'])(?P<qv>[^\n]{0,400}?)(?P=q)"
          r"|(?P<bv>[^\s\"'`,;&)\]}<>|\\]+))")
_KEY_VALUE = re.compile(
    r"(?:(?<=%3F)|(?<=%26)|(?<![\w$%-]))"  # after ?/& (percent-encoded) or a non-word char
    r"(?P<key>[A-Za-z0-9_-]*?" + _KEYWORDS + r")(?![A-Za-z0-9])"
    r"(?:\\?[\"'])?\]?[ \t]*(?:=(?!=)|:(?![:/\\=])|%3D)[ \t]*" + _VALUE, re.I)
_ENV_DEFAULT = re.compile(  # os.getenv("HF_TOKEN", "<default>"), os.environ.get(...)
    r"(?:getenv|environ\.get|environ\.setdefault)\(\s*"
    r"(?:\\?[\"'])(?P<key>[\w-]+)(?:\\?[\"'])\s*,\s*" + _VALUE)
_CLI_FLAG = re.compile(
    r"(?<![\w-])--?(?P<key>[A-Za-z0-9_-]*?(?:token|api[_-]?key|apikey|password|passwd|secret))"
    r"(?:=|[ \t]+)(?!-)" + _VALUE, re.I)
_AUTH_HEADER = re.compile(
    r"(?i)\b(?:proxy-)?authorization\b(?:\\?[\"'])?[ \t]*[:=][ \t]*(?:[rbfu]{0,2}\\?[\"'])?[ \t]*"
    r"(?:(?:bearer|basic|token|digest|bot)[ \t]+)?(?P<v>[^\s\"',;\\]+)")
_BEARER = re.compile(r"(?i)\bbearer[ \t]+(?P<v>[A-Za-z0-9._~+/=-]{16,})")
_COOKIE = re.compile(r"(?i)\b(?:set-)?cookie[ \t]*:[ \t]*(?P<v>[^\"'\n\\]+)")
_QUERY = re.compile(
    r"(?i)[?&](?:key|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token"
    r"|client_secret|refresh_token)=(?P<v>[^&#\s\"'<>\\]+)")
_URL_USERINFO = re.compile(
    r"(?i)(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,30}://"
    r"(?P<user>[^\s/?#@:\"'<>\\]*):(?P<v>[^\s/?#@\"'<>\\]+)@")
_WANDB_LOGIN = re.compile(r"(?i)\bwandb\s+login(?:[ \t]+--?[\w-]+)*[ \t]+(?P<v>[^\s$-]\S*)")
# a W&B API key (40 hex characters) a few characters after a word that names it as a key, not
# a commit hash (commit, revision, sha are not such words)
_HEX_KEY = re.compile(r"(?i)\b(?:wandb|key|token|api|secret)\w*\b[^\n0-9a-f]{0,12}"
                      r"(?<![0-9A-Fa-f])(?P<v>[0-9a-f]{40})(?![0-9A-Za-z])")
_LOGIN_KEY_ARG = re.compile(r"(?i)\blogin\s*\([^)\n]*?\bkey\s*=\s*" + _VALUE)
_DOCKER_PASSWORD = re.compile(  # docker login -u USER -p PASSWORD
    r"(?im)^(?=[^\n]*\blogin\b)[^\n]*?(?<!\S)-p(?:[ \t]+|=)(?P<v>[^\s-]\S*)")
_NETRC_PASSWORD = re.compile(r"(?im)(?:^[ \t]*|\bmachine[ \t]+\S+[ \t]+(?:login[ \t]+\S+[ \t]+)?)"
                             r"password[ \t]+(?P<v>\S+)[ \t]*$")
_DOCKER_ENV = re.compile(
    r"(?m)^[ \t]*ENV[ \t]+(?P<key>\w*(?:TOKEN|KEY|SECRET|PASSWORD)\w*)[ \t]+(?P<v>[^\s=][^\n]*)")

_TOKEN_HINTS = ("hf", "hub", "hugging", "access", "auth", "api", "bearer", "git", "wandb",
                "openai", "refresh", "session", "secret", "bot", "slack", "discord", "telegram",
                "npm", "pypi", "comet", "neptune", "private", "personal", "oauth", "jwt", "csrf",
                "xsrf", "security", "aws", "azure", "gcp", "google", "service", "write", "read",
                "user", "login", "upload", "deploy", "replicate", "groq", "anthropic", "cohere",
                "mistral", "kaggle", "client", "app")
# Tokenizer vocabulary, not credentials: pad_token, eos_token, image_token, ...
_VOCAB_PREFIXES = ("pad", "eos", "bos", "unk", "sep", "cls", "mask", "special", "start", "end",
                   "image", "video", "audio", "eot", "eom", "boi", "eoi", "think", "tool", "fim",
                   "vision", "prefix", "suffix", "middle", "chat", "sample", "new", "next",
                   "first", "last", "prev", "current", "input", "output", "target", "ignore")
_LITERALS = {"true", "false", "none", "null", "nil", "yes", "no", "on", "off", "undefined",
             "required", "optional", "str", "string", "int", "bool", "bytes", "any", "redacted",
             "hidden", "masked", "secret", "token", "password", "not set", "unset", "..."}
_SECRETISH_NAME = re.compile(r"(?i)token|key|secret|pass|auth|cred|pwd")
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def _key_family(key: str) -> str | None:
    """'password', 'wandb', 'token', 'secret', or None when the key is not a credential."""
    k = key.lower().replace("-", "_")
    if k.endswith(("password", "passwd", "passphrase")):
        return "password"
    if "wandb" in k:
        return "wandb"
    if k.endswith("auth"):
        stem = k[:-4].rstrip("_")
        return "token" if stem in ("", "basic", "http", "proxy") or key.isupper() else None
    if k.endswith("token"):
        prefix = k[:-5].rstrip("_")
        if not prefix:
            return "token"
        if prefix.split("_")[-1] in _VOCAB_PREFIXES or prefix in ("decoder_start", "additional"):
            return None
        if key.isupper() or any(h in prefix for h in _TOKEN_HINTS):
            return "token"
        return None
    return "secret"


def _exempt(value: str, quoted: bool, family: str) -> bool:
    """True when a value is a literal, a placeholder, or code that names a secret elsewhere."""
    s = value.strip()
    if not s or s.lower() in _LITERALS or re.fullmatch(r"[-+]?\d+(?:\.\d+)?", s):
        return True
    if s[0] in "<$%[{*#~" or set(s) <= set("*xX.-_•?"):
        return True  # <placeholder>, $VAR, ${{ secrets.X }}, %(x)s, [PAD], {...}, ***
    if "{" in s and "}" in s:
        return True  # f-string / template
    if not quoted:
        if "(" in s or "[" in s:
            return True  # a call or a subscript: code, not a value
        if _DOTTED_NAME.fullmatch(s) and _SECRETISH_NAME.search(s):
            return True  # token=hf_token, password=args.password
        if re.fullmatch(r"(?:Optional|Union|List|Dict|Literal)\b.*", s):
            return True  # a type hint
    if family == "password":
        return False
    if family in ("token", "wandb"):
        # A credential is long and random; a decoded word or a sentence is not.
        mixed_case = any(c.isupper() for c in s) and any(c.islower() for c in s)
        return (len(s) < 8 or bool(re.search(r"\s", s))
                or not (any(c.isdigit() for c in s) or mixed_case))
    return len(s) < 6 or bool(re.search(r"\s", s))


def _value_span(m: re.Match[str]) -> tuple[int, int, str, bool]:
    if m.group("qv") is not None:
        return m.start("qv"), m.end("qv"), m.group("qv"), True
    return m.start("bv"), m.end("bv"), m.group("bv"), False


_FAMILY_PLACEHOLDER = {"password": ("password", "<PASSWORD>"),
                       "wandb": ("wandb_api_key", "<WANDB_API_KEY>"),
                       "token": ("secret", "<SECRET>"), "secret": ("secret", "<SECRET>")}


def _keyed_hits(text: str) -> Iterable[_Hit]:
    for rx in (_KEY_VALUE, _CLI_FLAG, _ENV_DEFAULT):
        for m in rx.finditer(text):
            family = _key_family(m.group("key"))
            if family is None:
                continue
            start, end, value, quoted = _value_span(m)
            if not _exempt(value, quoted, family):
                kind, placeholder = _FAMILY_PLACEHOLDER[family]
                yield _Hit(start, end, kind, placeholder, _SECRET)
    for m in _LOGIN_KEY_ARG.finditer(text):
        start, end, value, quoted = _value_span(m)
        if not _exempt(value, quoted, "secret"):
            yield _Hit(start, end, "secret", "<SECRET>", _SECRET)
    simple = ((_AUTH_HEADER, "auth_header", "<SECRET>"), (_BEARER, "auth_header", "<SECRET>"),
              (_COOKIE, "cookie", "<SECRET>"), (_QUERY, "url_secret", "<SECRET>"),
              (_URL_USERINFO, "url_password", "<SECRET>"),
              (_WANDB_LOGIN, "wandb_api_key", "<WANDB_API_KEY>"),
              (_HEX_KEY, "wandb_api_key", "<WANDB_API_KEY>"),
              (_DOCKER_PASSWORD, "password", "<PASSWORD>"),
              (_NETRC_PASSWORD, "password", "<PASSWORD>"), (_DOCKER_ENV, "secret", "<SECRET>"))
    for rx, kind, placeholder in simple:
        for m in rx.finditer(text):
            value = m.group("v")
            if value.strip() and not _exempt(value, True, "password"):
                yield _Hit(m.start("v"), m.end("v"), kind, placeholder, _SECRET)
    for m in _URL_USERINFO.finditer(text):
        user = m.group("user")
        if user and user.lower() not in _GENERIC_URL_USERS and not user.startswith("<"):
            yield _Hit(m.start("user"), m.end("user"), "user", "<USER>", _PERSON)


_GENERIC_URL_USERS = {"git", "oauth2", "x-access-token", "x-token-auth", "__token__", "token",
                      "api", "user", "anonymous", "default"}

# --- people, machines, paths ------------------------------------------------------------------
_COMMON_TLDS = {
    "com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "name", "pro", "dev", "app",
    "cloud", "tech", "email", "online", "site", "xyz", "page", "blog", "team", "company",
    "works", "mail", "science", "systems", "solutions", "digital", "studio", "design", "school",
    "university", "academy", "institute", "research", "health", "group", "global", "world",
    "network", "software", "services", "consulting", "agency", "media", "news", "live", "life",
    "space", "today", "codes", "tools", "host", "zone", "inc", "llc", "ltd", "gmbh", "run",
    "ventures", "capital", "finance", "bio", "eco", "art", "fun", "one", "top", "icu", "rocks",
}
_URL_PREFIX = re.compile(r"(?i)(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,30}://(?:[^\s/?#@\"'<>\\]*:)?\Z")
_NOT_EMAIL_TLDS = {"py", "js", "ts", "md", "gz", "pb", "so", "sh", "pt"}
_EMAIL = re.compile(
    r"(?<![\w.%+-])(?P<local>[A-Za-z0-9][A-Za-z0-9._%+-]*)(?:@|%40)"
    r"(?P<domain>(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+(?P<tld>[A-Za-z]{2,24}))(?![\w-])")
_SITE_PACKAGES_POSIX = re.compile(
    r"(?<![\w.~/+-])(?:/+[^\s/\"'`<>:|*?,;()\[\]{}\\]{1,255}){1,64}"
    r"/(?P<sp>site-packages|dist-packages)(?=/|\b)")
_SITE_PACKAGES_WIN = re.compile(
    r"(?i)(?<![\w])[A-Z]:(?P<sep0>\\\\|\\|/)(?:[^\\/\n\"'<>|:*?]+(?:\\\\|\\|/))*?"
    r"(?P<sp>site-packages|dist-packages)(?=\\|/|\b)")
_HOME_POSIX = re.compile(
    r"(?:(?<=file://)|(?<![\w.~:/-]))(?:/[\w.-]+)*?/(?:home|Users)/"
    r"(?P<name>[^/\s\"'`:,;()<>\[\]{}\\]+)")
_HOME_WIN = re.compile(
    r"(?i)(?<![\w])[A-Z]:(?:\\\\|\\|/)+(?:Users|Documents and Settings)(?:\\\\|\\|/)+"
    r"(?P<name>[^\\/\s\"'`:*?<>|]+)")
_ENV_USER = re.compile(
    r"(?<![\w$])(?:USER|LOGNAME|USERNAME|SUDO_USER)(?:\\?[\"'])?[ \t]*[=:][ \t]*(?:\\?[\"'])?"
    r"(?P<v>[A-Za-z0-9._-]+)")
_ENV_HOST = re.compile(
    r"(?<![\w$])(?:HOSTNAME|COMPUTERNAME)(?:\\?[\"'])?[ \t]*[=:][ \t]*(?:\\?[\"'])?"
    r"(?P<v>[A-Za-z0-9._-]+)")
_PROMPT = re.compile(
    r"(?<![\w.@/%+-])(?P<user>[a-z_][a-z0-9_.-]*)@(?P<host>[A-Za-z0-9][\w.-]*):(?=[~/])")
_GENERIC_USERS = {
    "root", "user", "users", "admin", "administrator", "ubuntu", "debian", "centos", "fedora",
    "jovyan", "runner", "vscode", "codespace", "app", "nobody", "colab", "kaggle", "ec2-user",
    "pi", "guest", "default", "test", "home", "dev", "developer", "docker", "www-data", "daemon",
    "system", "owner", "circleci", "jenkins", "gitpod", "node", "git", "shared", "public",
    "model", "data", "train", "python", "torch", "main", "master", "work", "lab", "demo",
    "notebook", "project", "ml", "ai", "gpu", "cpu", "student", "researcher",
    # model families that are also first names or words: "bert-base-uncased" must survive
    "bert", "albert", "roberta", "bart", "electra", "marian", "llama", "mistral", "falcon",
    "bloom", "opt", "gemma", "phi", "qwen", "whisper", "clip", "flan", "pegasus", "longformer",
    "deberta", "camembert", "flaubert", "funnel", "reformer", "ernie", "luke", "dino", "sam",
}
_GENERIC_HOSTS = {
    "localhost", "ubuntu", "debian", "vm", "host", "server", "docker", "container", "sandbox",
    "colab", "kaggle", "default", "computer", "desktop", "laptop", "linux", "box", "machine",
    "node", "master", "main", "runner", "gpu", "workstation", "raspberrypi", "local", "pc",
}


def _identity() -> tuple[list[str], list[str], list[str]]:
    """(home folders, user names, host names) of this machine, for literal replacement."""
    homes: list[str] = []
    for h in (os.path.expanduser("~"), os.environ.get("HOME"), os.environ.get("USERPROFILE")):
        h = (h or "").rstrip("/\\")
        if len(h) >= 2 and h not in homes:
            homes.append(h)
    users: list[str] = []
    try:
        users.append(getpass.getuser())
    except Exception:
        pass
    users += [os.path.basename(h) for h in homes]
    users = [u for u in dict.fromkeys(users) if len(u) >= 3 and u.lower() not in _GENERIC_USERS]
    hosts: list[str] = []
    for name in (_hostname(),):
        if name:
            hosts += [name, name.split(".")[0]]
    hosts = [h for h in dict.fromkeys(hosts) if len(h) >= 3 and h.lower() not in _GENERIC_HOSTS]
    return homes, users, hosts


def _hostname() -> str:
    try:
        return socket.gethostname()
    except Exception:
        return ""


def _env_secrets() -> list[str]:
    """Values of this process's secret-named environment variables (HF_TOKEN, *_API_KEY, ...)."""
    name_rx = re.compile(r"(?i)(?:^|_)(?:TOKEN|API_?KEY|SECRET(?:_KEY)?|PASSWORD|PASSWD|"
                         r"ACCESS_KEY|PAT)(?:_|$)")
    found = []
    for name, value in os.environ.items():
        value = value.strip()
        if (name_rx.search(name) and len(value) >= 8 and not re.search(r"\s", value)
                and value[0] not in "/~." and "://" not in value
                and value.lower() not in _LITERALS):
            found.append(value)
    return found


def _bounded(literal: str) -> re.Pattern[str]:
    return re.compile(r"(?<![A-Za-z0-9])" + re.escape(literal) + r"(?![A-Za-z0-9])", re.I)


def _person_hits(text: str) -> Iterable[_Hit]:
    for m in _EMAIL.finditer(text):
        local, domain, tld = m.group("local"), m.group("domain").lower(), m.group("tld").lower()
        if local.lower() == "git" or domain.split(".")[0] in ("self", "cls"):
            continue
        if _URL_PREFIX.search(text, max(0, m.start() - 300), m.start()):
            # https://USER@host or https://USER:PASS@host: the part before @ is a login
            if local.lower() not in _GENERIC_URL_USERS:
                yield _Hit(m.start("local"), m.end("local"), "user", "<USER>", _PERSON)
            continue
        if (len(tld) == 2 and tld not in _NOT_EMAIL_TLDS) or tld in _COMMON_TLDS:
            yield _Hit(m.start(), m.end(), "email", "<EMAIL>", _PERSON)
    for m in _PROMPT.finditer(text):
        if m.group("user") not in _GENERIC_USERS:
            yield _Hit(m.start("user"), m.end("user"), "user", "<USER>", _PERSON)
        if m.group("host").lower() not in _GENERIC_HOSTS:
            yield _Hit(m.start("host"), m.end("host"), "host", "<HOST>", _PERSON)
    for rx, kind, placeholder, generic in ((_ENV_USER, "user", "<USER>", _GENERIC_USERS),
                                           (_ENV_HOST, "host", "<HOST>", _GENERIC_HOSTS)):
        for m in rx.finditer(text):
            if m.group("v").lower() not in generic:
                yield _Hit(m.start("v"), m.end("v"), kind, placeholder, _PERSON)


def _path_hits(text: str, homes: list[str]) -> Iterable[_Hit]:
    for m in _SITE_PACKAGES_POSIX.finditer(text):
        yield _Hit(m.start(), m.end(), "site_packages", "…/" + m.group("sp"), _PATH)
    for m in _SITE_PACKAGES_WIN.finditer(text):
        placeholder = "…" + m.group("sep0") + m.group("sp")
        yield _Hit(m.start(), m.end(), "site_packages", placeholder, _PATH)
    for rx in (_HOME_POSIX, _HOME_WIN):
        for m in rx.finditer(text):
            if m.group("name").lower() != "shared":
                yield _Hit(m.start(), m.end(), "home_path", "~", _PATH)
    for home in homes:
        variants = {home, home.replace("\\", "\\\\")}
        for v in variants:
            rx = re.compile(r"(?<![\w.-])" + re.escape(v) + r"(?![^\\/\s\"'`:,;)\]}>])")
            for m in rx.finditer(text):
                yield _Hit(m.start(), m.end(), "home_path", "~", _PATH)


def _all_hits(text: str, extra_secrets: Iterable[str]) -> list[_Hit]:
    homes, users, hosts = _identity()
    hits: list[_Hit] = []
    literals = sorted({s for s in list(extra_secrets) + _env_secrets() if len(s.strip()) >= 4},
                      key=len, reverse=True)
    for secret in literals:
        for m in re.finditer(re.escape(secret), text):
            hits.append(_Hit(m.start(), m.end(), "extra_secret", "<SECRET>", -1))
    for shape in _SHAPES:
        for m in shape.pattern.finditer(text):
            if shape.accept is None or shape.accept(m.group(shape.group)):
                hits.append(_Hit(m.start(shape.group), m.end(shape.group), shape.kind,
                                 shape.placeholder, _TOKEN))
    hits += _keyed_hits(text)
    hits += _person_hits(text)
    hits += _path_hits(text, homes)
    for literal_list, kind, placeholder in ((users, "user", "<USER>"), (hosts, "host", "<HOST>")):
        for literal in literal_list:
            hits += [_Hit(m.start(), m.end(), kind, placeholder, _PERSON)
                     for m in _bounded(literal).finditer(text)]
    return _resolve(hits)


def _resolve(hits: list[_Hit]) -> list[_Hit]:
    """Non-overlapping hits: a hit inside another is dropped; partly overlapping hits merge
    (so no fragment of a secret survives) and keep the more secret placeholder."""
    out: list[_Hit] = []
    for h in sorted(hits, key=lambda h: (h.start, -(h.end - h.start), h.severity)):
        if out and h.start < out[-1].end:
            last = out[-1]
            if h.end > last.end:
                keep = h if h.severity < last.severity else last
                out[-1] = _Hit(last.start, h.end, keep.kind, keep.placeholder,
                               min(h.severity, last.severity))
            continue
        out.append(h)
    return out


def find_secrets(text: str,
                 extra_secrets: Iterable[str] = ()) -> list[tuple[str, tuple[int, int]]]:
    """Everything `redact` would replace, as (kind, (start, end)) in text order.

    Kinds include hf_token, openai_key, github_token, aws_access_key_id, aws_secret_key,
    slack_token, google_api_key, jwt, private_key, secret, password, wandb_api_key,
    auth_header, url_password, url_secret, email, user, host, home_path, site_packages,
    extra_secret.
    """
    return [(h.kind, (h.start, h.end)) for h in _all_hits(text, extra_secrets)]


def redact(text: str, extra_secrets: Iterable[str] = ()) -> str:
    """`text` with secrets, e-mails, user/host names and home paths replaced by placeholders.

    `extra_secrets` are literal strings to remove as well (e.g. a token the user typed in);
    ones shorter than 4 characters are ignored, as they would match all over the text. Values
    of this process's secret-named environment variables (HF_TOKEN, *_API_KEY, ...) are
    removed the same way.
    Redacting twice gives the same text as redacting once.
    """
    if not text:
        return text
    parts: list[str] = []
    pos = 0
    for h in _all_hits(text, extra_secrets):
        parts.append(text[pos:h.start])
        parts.append(h.placeholder)
        pos = h.end
    parts.append(text[pos:])
    return "".join(parts)
