"""A small fake of the Hugging Face Hub and dataset viewer, served on 127.0.0.1 in a thread.

It answers the routes `wizard.hub` (and, through it, huggingface_hub and datasets) use, with the
response shapes and headers of the real services:

- GET  /api/{models,datasets}/{repo}[/revision/{rev}]      repo info (siblings, safetensors, config)
- GET  /api/{models,datasets}/{repo}/tree/{rev}[/{path}]   file listing (recursive=1)
- POST /api/{models,datasets}/{repo}/paths-info/{rev}      info on named paths (form data)
- HEAD/GET /{repo}/resolve/{rev}/{path}, /datasets/{repo}/resolve/{rev}/{path}
  with X-Repo-Commit, ETag, Content-Length, Range support
- GET  /datasets-server/{splits,info,first-rows}            the dataset viewer API

Errors carry the headers huggingface_hub's `hf_raise_for_status` reads: X-Error-Code RepoNotFound,
GatedRepo, RevisionNotFound, EntryNotFound (and X-Error-Message). As on the real Hub, a request
without a token for a missing or private repo gets 401 RepoNotFound; with a token, 404.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

LFS_SUFFIXES = (".safetensors", ".bin", ".h5", ".msgpack", ".pt", ".parquet")
VIEWER_PREFIX = "/datasets-server"


def _git_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _commit_sha(repo_id: str, rev: str) -> str:
    return hashlib.sha1(f"{repo_id}@{rev}".encode()).hexdigest()


@dataclass
class FakeRepo:
    repo_id: str
    repo_type: str  # "model" | "dataset"
    commits: dict[str, dict[str, bytes]]  # commit sha -> {path: content}
    refs: dict[str, str]  # branch/tag -> commit sha
    private: bool = False
    gated: str | bool = False  # False, "auto" or "manual"
    granted: set[str] = field(default_factory=set)  # tokens that accepted the gate
    owners: set[str] = field(default_factory=set)  # tokens that may read a private repo
    info: dict[str, Any] = field(default_factory=dict)  # extra repo-info fields
    delay: float = 0.0  # seconds to sleep before answering (timeouts)
    status: int | None = None  # answer every request with this HTTP status (outages)
    viewer: dict[str, Any] | None = None  # {config: {"features":..., "splits": {split: rows}}}


class FakeHub:
    """Register repos, then `with FakeHub() as hub:` serves them at `hub.url`."""

    def __init__(self) -> None:
        self.repos: dict[tuple[str, str], FakeRepo] = {}
        self.log: list[tuple[str, str, bool]] = []  # (method, path, had Authorization)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- registering repos ---------------------------------------------------------------
    def add_model(self, repo_id: str, files: dict[str, bytes], *, branches: dict[str, dict[str, bytes]] | None = None,
                  private: bool = False, gated: str | bool = False, owners: set[str] | None = None,
                  granted: set[str] | None = None, safetensors: dict[str, Any] | None = None,
                  pipeline_tag: str | None = "text-classification", library_name: str = "transformers",
                  delay: float = 0.0) -> FakeRepo:
        """A model repo; `files` are on main, `branches` adds other refs with their own files."""
        repo = self._add(repo_id, "model", files, branches, private, gated, owners, granted, delay)
        config = json.loads(files["config.json"]) if "config.json" in files else {}
        hub_config = {k: config[k] for k in ("architectures", "model_type", "auto_map") if k in config}
        repo.info = {"pipeline_tag": pipeline_tag, "library_name": library_name, "config": hub_config,
                     "tags": [library_name, "safetensors"] if safetensors else [library_name],
                     "transformersInfo": {"auto_model": "AutoModelForSequenceClassification",
                                          "pipeline_tag": pipeline_tag, "processor": "AutoTokenizer"}}
        if safetensors:
            repo.info["safetensors"] = safetensors
        return repo

    def add_dataset(self, repo_id: str, splits: dict[str, list[dict[str, Any]]], *, config: str = "default",
                    private: bool = False, gated: str | bool = False, owners: set[str] | None = None,
                    granted: set[str] | None = None, viewer: bool = True, delay: float = 0.0) -> FakeRepo:
        """A dataset repo with one CSV file per split under data/, and its viewer responses."""
        files = {f"data/{name}.csv": _to_csv(rows) for name, rows in splits.items()}
        files["README.md"] = (f"---\nconfigs:\n- config_name: {config}\n  data_files:\n"
                              + "".join(f"  - split: {n}\n    path: data/{n}.csv\n" for n in splits)
                              + "---\n# A test dataset\n").encode()
        repo = self._add(repo_id, "dataset", files, None, private, gated, owners, granted, delay)
        repo.info = {"cardData": {"configs": [{"config_name": config}]}, "tags": ["format:csv"]}
        if viewer:
            repo.viewer = {config: {"features": _features(next(iter(splits.values()))), "splits": splits}}
        return repo

    def _add(self, repo_id: str, repo_type: str, files: dict[str, bytes],
             branches: dict[str, dict[str, bytes]] | None, private: bool, gated: str | bool,
             owners: set[str] | None, granted: set[str] | None, delay: float) -> FakeRepo:
        commits, refs = {}, {}
        for name, content in {"main": files, **(branches or {})}.items():
            sha = _commit_sha(repo_id, name)
            commits[sha], refs[name] = content, sha
        repo = FakeRepo(repo_id, repo_type, commits, refs, private, gated, set(granted or ()),
                        set(owners or ()), delay=delay)
        self.repos[(repo_type, repo_id)] = repo
        return repo

    # -- server --------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None, "start the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def viewer_url(self) -> str:
        return self.url + VIEWER_PREFIX

    def start(self) -> "FakeHub":
        hub = self

        class Handler(_Handler):
            fake = hub

        self._server = _QuietServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "FakeHub":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def paths_requested(self, needle: str = "") -> list[str]:
        return [p for _, p, _ in self.log if needle in p]


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:  # clients that hang up early
        pass


def _to_csv(rows: list[dict[str, Any]]) -> bytes:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue().encode()


def _features(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def dtype(v: Any) -> str:
        return "int64" if isinstance(v, int) else "float64" if isinstance(v, float) else "string"
    return {k: {"dtype": dtype(v), "_type": "Value"} for k, v in rows[0].items()}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeHub
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    # -- plumbing ------------------------------------------------------------------------
    def _token(self) -> str | None:
        auth = self.headers.get("Authorization") or ""
        return auth[7:] if auth.startswith("Bearer ") else None

    def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None,
              content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
                self.close_connection = True

    def _json(self, data: Any, status: int = 200, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(data).encode(), headers)

    def _error(self, status: int, code: str | None, message: str, extra: dict[str, str] | None = None) -> None:
        headers = {"X-Error-Message": message, **(extra or {})}
        if code:
            headers["X-Error-Code"] = code
        self._json({"error": message}, status, headers)

    def _repo(self, repo_type: str, repo_id: str, files_access: bool) -> FakeRepo | None:
        """The repo if this request may see it; otherwise the error is sent and None returned."""
        token = self._token()
        repo = self.fake.repos.get((repo_type, repo_id))
        if repo is not None and repo.delay:
            time.sleep(repo.delay)
        if repo is not None and repo.status:
            self._error(repo.status, None, "Service Unavailable")
            return None
        if repo is None or (repo.private and token not in repo.owners):
            self._error(401 if token is None else 404, "RepoNotFound", "Repository not found")
            return None
        if files_access and repo.gated and token not in repo.granted:
            msg = (f"Access to {repo_type} {repo_id} is restricted. You must have access to it and be "
                   "authenticated to access it. Please log in." if token is None else
                   f"Access to {repo_type} {repo_id} is restricted and you are not in the authorized "
                   f"list. Visit https://huggingface.co/{repo_id} to ask for access.")
            self._error(401 if token is None else 403, "GatedRepo", msg)
            return None
        return repo

    def _commit(self, repo: FakeRepo, rev: str) -> str | None:
        rev = unquote(rev)
        sha = repo.refs.get(rev) or (rev if rev in repo.commits else None)
        if sha is None:
            self._error(404, "RevisionNotFound", f"Invalid rev id: {rev}")
        return sha

    # -- routes --------------------------------------------------------------------------
    def do_HEAD(self) -> None:
        self._route()

    def do_GET(self) -> None:
        self._route()

    def do_POST(self) -> None:
        self._route()

    def _route(self) -> None:
        url = urlsplit(self.path)
        path, query = url.path, parse_qs(url.query)
        self.fake.log.append((self.command, self.path, "Authorization" in self.headers))
        if path.startswith(VIEWER_PREFIX + "/"):
            return self._viewer(path[len(VIEWER_PREFIX) + 1:], query)
        parts = [unquote(p) for p in path.strip("/").split("/")]
        if parts[:1] == ["api"] and len(parts) >= 4 and parts[1] in ("models", "datasets"):
            return self._api(parts[1][:-1], parts[2:], query)
        repo_type = "model"
        if parts[:1] == ["datasets"]:
            repo_type, parts = "dataset", parts[1:]
        if len(parts) >= 5 and parts[2] == "resolve":
            return self._resolve(repo_type, f"{parts[0]}/{parts[1]}", parts[3], "/".join(parts[4:]))
        self._error(404, None, f"no route for {path}")

    def _api(self, repo_type: str, rest: list[str], query: dict[str, list[str]]) -> None:
        repo_id, rest = f"{rest[0]}/{rest[1]}", rest[2:]
        if rest and rest[0] in ("tree", "paths-info"):
            repo = self._repo(repo_type, repo_id, files_access=False)
            if repo is None:
                return
            sha = self._commit(repo, rest[1] if len(rest) > 1 else "main")
            if sha is None:
                return
            files = repo.commits[sha]
            if rest[0] == "tree":
                prefix = "/".join(rest[2:])
                recursive = query.get("recursive", ["false"])[0].lower() in ("1", "true")
                return self._json(_tree(files, prefix, recursive))
            length = int(self.headers.get("Content-Length") or 0)
            form = parse_qs(self.rfile.read(length).decode())
            wanted = form.get("paths", [])
            entries = [e for e in _tree(files, "", True) if e["path"] in wanted]
            entries += [e for e in _tree(files, "", True, folders_only=True) if e["path"] in wanted]
            return self._json(entries)
        repo = self._repo(repo_type, repo_id, files_access=False)
        if repo is None:
            return
        rev = rest[1] if len(rest) >= 2 and rest[0] == "revision" else "main"
        sha = self._commit(repo, rev)
        if sha is None:
            return
        self._json(_repo_info(repo, sha, with_blobs="blobs" in query))

    def _resolve(self, repo_type: str, repo_id: str, rev: str, filename: str) -> None:
        repo = self._repo(repo_type, repo_id, files_access=True)
        if repo is None:
            return
        sha = self._commit(repo, rev)
        if sha is None:
            return
        content = repo.commits[sha].get(filename)
        if content is None:
            return self._error(404, "EntryNotFound", f"{filename} does not exist on \"{rev}\"",
                               {"X-Repo-Commit": sha})
        lfs = filename.endswith(LFS_SUFFIXES)
        etag = hashlib.sha256(content).hexdigest() if lfs else _git_sha1(content)
        headers = {"X-Repo-Commit": sha, "ETag": f'"{etag}"', "Accept-Ranges": "bytes"}
        rng = self.headers.get("Range")
        if rng and rng.startswith("bytes=") and self.command == "GET":
            start_s, _, end_s = rng[6:].partition("-")
            start = int(start_s or 0)
            end = min(int(end_s) if end_s else len(content) - 1, len(content) - 1)
            headers["Content-Range"] = f"bytes {start}-{end}/{len(content)}"
            return self._send(206, content[start:end + 1], headers, "application/octet-stream")
        self._send(200, content, headers, "application/octet-stream")

    def _viewer(self, route: str, query: dict[str, list[str]]) -> None:
        name = query.get("dataset", [""])[0]
        repo = self.fake.repos.get(("dataset", name))
        token = self._token()
        if repo is None or (repo.private and token not in repo.owners) or (repo.gated and token not in repo.granted):
            if token is None:
                return self._error(401, "ExternalUnauthenticatedError",
                                   "The dataset does not exist, or is not accessible without authentication "
                                   "(private or gated). Please check the spelling of the dataset name or retry "
                                   "with authentication.")
            return self._error(404, "ExternalAuthenticatedError",
                               "The dataset does not exist, or is not accessible with the current credentials "
                               "(private or gated).")
        if repo.viewer is None:
            return self._error(500, "ConfigNamesError", "Cannot get the config names for the dataset.")
        if route == "splits":
            return self._json({"splits": [{"dataset": name, "config": c, "split": s}
                                          for c, v in repo.viewer.items() for s in v["splits"]],
                               "pending": [], "failed": []})
        config = query.get("config", [None])[0]
        if config not in repo.viewer:
            return self._error(404, "ResponseNotFound", "Not found.")
        view = repo.viewer[config]
        if route == "info":
            splits = {s: {"name": s, "num_bytes": len(_to_csv(rows)), "num_examples": len(rows),
                          "dataset_name": name.split("/")[-1]} for s, rows in view["splits"].items()}
            return self._json({"dataset_info": {"description": "", "citation": "", "homepage": "",
                                                "license": "", "features": view["features"],
                                                "builder_name": "csv", "dataset_name": name.split("/")[-1],
                                                "config_name": config, "splits": splits,
                                                "download_size": sum(v["num_bytes"] for v in splits.values()),
                                                "dataset_size": sum(v["num_bytes"] for v in splits.values())},
                               "partial": False})
        if route == "first-rows":
            split = query.get("split", [None])[0]
            if split not in view["splits"]:
                return self._error(404, "ResponseNotFound", "Not found.")
            features = [{"feature_idx": i, "name": k, "type": t} for i, (k, t) in enumerate(view["features"].items())]
            rows = [{"row_idx": i, "row": r, "truncated_cells": []} for i, r in enumerate(view["splits"][split][:100])]
            return self._json({"dataset": name, "config": config, "split": split, "features": features,
                               "rows": rows, "truncated": len(view["splits"][split]) > 100})
        self._error(404, None, "Not found.")


def _tree(files: dict[str, bytes], prefix: str, recursive: bool, folders_only: bool = False) -> list[dict[str, Any]]:
    """Entries as /api/.../tree returns them: files with size, oid and lfs; folders with oid."""
    prefix = prefix.strip("/")
    entries: dict[str, dict[str, Any]] = {}
    for path, content in sorted(files.items()):
        if prefix and not path.startswith(prefix + "/"):
            continue
        rel = path[len(prefix) + 1:] if prefix else path
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            folder = "/".join(([prefix] if prefix else []) + parts[:depth])
            if recursive or depth == 1:
                entries.setdefault(folder, {"type": "directory", "oid": _git_sha1(folder.encode()), "size": 0,
                                            "path": folder})
        if folders_only or (not recursive and len(parts) > 1):
            continue
        entry: dict[str, Any] = {"type": "file", "oid": _git_sha1(content), "size": len(content), "path": path}
        if path.endswith(LFS_SUFFIXES):
            entry["lfs"] = {"oid": hashlib.sha256(content).hexdigest(), "size": len(content), "pointerSize": 134}
        entries[path] = entry
    if folders_only:
        return [e for e in entries.values() if e["type"] == "directory"]
    return list(entries.values())


def _repo_info(repo: FakeRepo, sha: str, with_blobs: bool) -> dict[str, Any]:
    files = repo.commits[sha]
    siblings = []
    for path, content in sorted(files.items()):
        s: dict[str, Any] = {"rfilename": path}
        if with_blobs:
            s.update(blobId=_git_sha1(content), size=len(content))
            if path.endswith(LFS_SUFFIXES):
                s["lfs"] = {"sha256": hashlib.sha256(content).hexdigest(), "size": len(content), "pointerSize": 134}
        siblings.append(s)
    name = repo.repo_id
    return {"_id": hashlib.md5(name.encode()).hexdigest()[:24], "id": name, "author": name.split("/")[0],
            "sha": sha, "lastModified": "2024-05-01T12:00:00.000Z", "createdAt": "2024-04-01T12:00:00.000Z",
            "private": repo.private, "gated": repo.gated, "disabled": False, "downloads": 42, "likes": 1,
            "siblings": siblings, "usedStorage": sum(len(c) for c in files.values()), **repo.info}
