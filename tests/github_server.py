"""A fake of GitHub's issue search (GET /search/issues), served on 127.0.0.1 in a thread.

It answers with the real response's shape (total_count, items with number, title, html_url,
state, state_reason, comments, closed_at) and records every query it was asked, so a test can
check what left the machine; the solved issue's timeline (GET /repos/.../issues/29876/timeline)
names the merged pull request that closed it. `rate_limited` answers 403 with X-RateLimit-Remaining: 0, as
GitHub does when the unauthenticated limit is used up.
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator
from urllib.parse import parse_qs, urlsplit

ISSUES = [
    {"number": 30001, "title": "Trainer: grad accumulation state out of sync", "state": "open",
     "state_reason": None, "comments": 2, "closed_at": None},
    {"number": 29876, "title": "out of sync with the scheduler after resuming",
     "state": "closed", "state_reason": "completed", "comments": 7,
     "closed_at": "2024-05-02T10:00:00Z"},
    {"number": 29001, "title": "Question about gradient accumulation", "state": "closed",
     "state_reason": "not_planned", "comments": 1, "closed_at": "2024-03-01T10:00:00Z"},
]

TIMELINE = [
    {"event": "commented"},
    {"event": "cross-referenced", "source": {"type": "issue", "issue": {
        "number": 29901, "html_url": "https://github.com/huggingface/transformers/pull/29901",
        "pull_request": {"merged_at": "2024-05-02T09:00:00Z"},
        "repository": {"full_name": "huggingface/transformers"}}}},
    {"event": "closed", "commit_id": None},
]


@dataclass
class FakeGitHub:
    url: str = ""
    queries: list[dict[str, Any]] = field(default_factory=list)
    rate_limited: bool = False
    issues: list[dict[str, Any]] = field(default_factory=lambda: [dict(i) for i in ISSUES])


def serve() -> Iterator[FakeGitHub]:
    """Yield a running fake (its url is the API endpoint); stopped afterwards."""
    fake = FakeGitHub()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - the http.server name
            parts = urlsplit(self.path)
            if parts.path.endswith("/issues/29876/timeline"):   # closed by a merged PR
                return self._send(200, TIMELINE)
            if parts.path != "/search/issues":
                return self._send(404, {"message": "Not Found"})
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            fake.queries.append({**query, "authorization": self.headers.get("Authorization")})
            if fake.rate_limited:
                return self._send(403, {"message": "API rate limit exceeded"},
                                  {"X-RateLimit-Remaining": "0"})
            repo = query.get("q", "").split("repo:")[-1].split()[0]
            items = [{**i, "html_url": f"https://github.com/{repo}/issues/{i['number']}"}
                     for i in fake.issues]
            self._send(200, {"total_count": len(items), "incomplete_results": False,
                             "items": items})

        def _send(self, code: int, body: dict[str, Any],
                  headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    fake.url = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
