"""A fake Slack Web API on loopback: records every call, answers like Slack, and can be told
to fail (429 with Retry-After, 5xx, an error body) for the next calls of a method. Also
accepts slash-command response_url posts."""

from __future__ import annotations

import itertools
import json
import threading
import time
import urllib.parse
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeSlack:
    def __init__(self):
        self.calls: list[dict] = []
        self.responses: list[dict] = []  # response_url posts
        self.uploads: list[dict] = []  # file bodies sent to an upload URL
        self.locales: dict[str, str] = {}
        self.oauth_team = "T2"
        self.history: dict[str, list[dict]] = {}  # channel -> messages posted there
        self._script: dict[str, list[tuple[int, dict, dict]]] = defaultdict(list)
        self._delays: dict[str, list[float]] = defaultdict(list)  # method -> seconds before answering
        self._severed: dict[str, int] = defaultdict(int)  # method -> connections to drop unanswered
        self._lock = threading.Lock()
        self._ts = itertools.count(1)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _reply(self, status, body, headers=None):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _args(self):
                query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if self.headers.get("Content-Type", "").startswith("application/json") and raw:
                    query.update(json.loads(raw))
                elif raw:
                    query.update(dict(urllib.parse.parse_qsl(raw.decode())))
                return query

            def do_GET(self):
                self.do_POST()

            def do_POST(self):
                path = urllib.parse.urlsplit(self.path).path
                if path.startswith("/upload/"):  # the file body itself (files_upload_v2's second call)
                    body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                    with fake._lock:
                        fake.uploads.append({"id": path.rsplit("/", 1)[1], "size": len(body), "body": body})
                    self._reply(200, {"ok": True})
                    return
                args = self._args()
                if path.startswith("/response/"):
                    with fake._lock:
                        fake.responses.append({"id": path.rsplit("/", 1)[1], **args})
                    self._reply(200, {"ok": True})
                    return
                method = path.removeprefix("/api/")
                with fake._lock:
                    fake.calls.append(
                        {
                            "method": method,
                            "args": args,
                            "authorization": self.headers.get("Authorization", ""),
                            "at": time.time(),
                        }
                    )
                    scripted = fake._script[method].pop(0) if fake._script[method] else None
                    delay = fake._delays[method].pop(0) if fake._delays[method] else 0.0
                    severed = fake._severed[method] > 0
                    if severed:
                        fake._severed[method] -= 1
                if severed:  # a connection error: closed without an answer
                    self.close_connection = True
                    return
                if scripted:
                    time.sleep(delay)
                    self._reply(*scripted)
                    return
                answer = fake.answer(method, args)  # done (posted) before the delay: a slow answer
                time.sleep(delay)
                try:
                    self._reply(200, answer)
                except OSError:  # the client gave up waiting
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    # -- control ------------------------------------------------------------------
    def start(self) -> FakeSlack:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/api/"

    def response_url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/response/{name}"

    def fail(
        self, method: str, status: int = 429, body: dict | None = None, headers: dict | None = None, times: int = 1
    ) -> None:
        body = body or {"ok": False, "error": "ratelimited"}
        headers = headers if headers is not None else ({"Retry-After": "1"} if status == 429 else {})
        with self._lock:
            self._script[method].extend([(status, body, headers)] * times)

    def delay(self, method: str, seconds: float, times: int = 1) -> None:
        """Answer the next `times` calls of `method` only after `seconds` (the call is done at
        once: a post is in the channel even if the client gives up waiting)."""
        with self._lock:
            self._delays[method].extend([seconds] * times)

    def sever(self, method: str, times: int = 1) -> None:
        """Drop the next `times` connections for `method` without an answer (nothing done)."""
        with self._lock:
            self._severed[method] += times

    def top_level_posts(self, channel: str) -> list[dict]:
        with self._lock:
            return [
                c
                for c in self.calls
                if c["method"] == "chat.postMessage"
                and c["args"].get("channel") == channel
                and not c["args"].get("thread_ts")
            ]

    def reset(self) -> None:
        with self._lock:
            self.calls.clear()
            self.responses.clear()
            self.uploads.clear()
            self._script.clear()
            self._delays.clear()
            self._severed.clear()

    # -- answers ------------------------------------------------------------------
    def answer(self, method: str, args: dict) -> dict:
        if method == "auth.test":
            return {
                "ok": True,
                "url": "https://example.slack.com/",
                "team": "Test",
                "user": "gpu-advisor",
                "team_id": "T1",
                "user_id": "UBOT",
                "bot_id": "BBOT",
            }
        if method == "chat.postMessage":
            ts = f"{1700000000 + next(self._ts)}.000100"
            message = {"text": args.get("text"), "ts": ts, "metadata": args.get("metadata")}
            if args.get("thread_ts"):
                message["thread_ts"] = args.get("thread_ts")
            asked = args.get("channel") or ""
            # as Slack does: a post to a user ID lands in the app's DM with them, and the answer
            # names that conversation ("D…"), which later events and clicks on it carry
            channel = self.dm(asked) if asked[:1] in ("U", "W") else asked
            for where in {asked, channel}:
                self.history.setdefault(where, []).append(message)
            return {"ok": True, "channel": channel, "ts": ts, "message": message}
        if method == "conversations.history":
            return {"ok": True, "messages": list(reversed(self.history.get(args.get("channel"), [])))}
        if method == "conversations.replies":
            parent = args.get("ts")
            return {
                "ok": True,
                "messages": [
                    m
                    for m in self.history.get(args.get("channel"), [])
                    if m.get("thread_ts") == parent or m.get("ts") == parent
                ],
            }
        base = self.url.removesuffix("/api/")
        if method in ("views.open", "views.update", "views.publish"):
            return {"ok": True, "view": {"id": f"V{next(self._ts)}"}}
        if method == "chat.getPermalink":
            return {
                "ok": True,
                "permalink": f"https://example.slack.com/archives/{args.get('channel')}/"
                f"p{str(args.get('message_ts', '')).replace('.', '')}",
            }
        if method == "files.getUploadURLExternal":
            file_id = f"F{next(self._ts)}"
            return {"ok": True, "upload_url": f"{base}/upload/{file_id}", "file_id": file_id}
        if method == "files.completeUploadExternal":
            files = args.get("files")
            files = json.loads(files) if isinstance(files, str) else files
            return {"ok": True, "files": [{"id": f["id"], "title": f.get("title", "")} for f in files]}
        if method == "oauth.v2.access":
            team = self.oauth_team
            return {
                "ok": True,
                "access_token": f"xoxb-{team}-token",
                "token_type": "bot",
                "scope": "commands,chat:write",
                "bot_user_id": "UBOT",
                "app_id": "A1",
                "team": {"id": team, "name": team},
                "enterprise": None,
                "authed_user": {"id": "UINSTALLER"},
                "is_enterprise_install": False,
            }
        if method == "users.info":
            user = args.get("user", "")
            return {"ok": True, "user": {"id": user, "locale": self.locales.get(user, "en-US")}}
        return {"ok": True}

    @staticmethod
    def dm(user: str) -> str:
        """The ID of the app's DM with `user`, as chat.postMessage to the user answers it."""
        return "D" + user

    # -- reading ------------------------------------------------------------------
    def calls_of(self, method: str) -> list[dict]:
        with self._lock:
            return [c for c in self.calls if c["method"] == method]

    def wait_for(self, method: str, count: int = 1, timeout: float = 60.0, where=None) -> list[dict]:
        deadline = time.time() + timeout
        while time.time() < deadline:
            found = [c for c in self.calls_of(method) if where is None or where(c)]
            if len(found) >= count:
                return found
            time.sleep(0.05)
        raise AssertionError(
            f"expected {count} {method} call(s), got {len(self.calls_of(method))}: {[c['method'] for c in self.calls]}"
        )

    def wait_for_response(self, timeout: float = 60.0) -> list[dict]:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.responses:
                return list(self.responses)
            time.sleep(0.05)
        raise AssertionError("no response_url post")


if __name__ == "__main__":  # a standalone fake, for benchmarks: prints its URL, serves until killed
    fake = FakeSlack().start()
    print(fake.url, flush=True)
    threading.Event().wait()
