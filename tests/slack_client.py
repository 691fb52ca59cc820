"""Signed requests to the bot over real HTTP, as Slack sends them (HMAC-SHA256 over
v0:timestamp:body with the signing secret)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from itertools import count

_ids = count(1)


class SlackSender:
    def __init__(self, base_url: str, secret: str, fake):
        self.base = base_url
        self.secret = secret
        self.fake = fake

    def post(
        self,
        body: bytes,
        content_type: str,
        timestamp: int | None = None,
        secret: str | None = None,
        headers: dict | None = None,
    ) -> tuple[int, str]:
        ts = str(int(time.time()) if timestamp is None else timestamp)
        base = f"v0:{ts}:{body.decode()}".encode()
        sig = "v0=" + hmac.new((secret or self.secret).encode(), base, hashlib.sha256).hexdigest()
        req = urllib.request.Request(
            self.base + "/slack/events",
            data=body,
            method="POST",
            headers={
                "Content-Type": content_type,
                "X-Slack-Request-Timestamp": ts,
                "X-Slack-Signature": sig,
                **(headers or {}),
            },
        )
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode()

    def command(
        self, text: str, channel: str = "C1", user: str = "U1", team: str = "T1", serial: str | None = None, **kw
    ):
        """A signed /gpu; `serial` names its trigger and response URL (default: this process's next
        number, which a second process would repeat: a replay)."""
        n = serial or next(_ids)
        form = {
            "command": "/gpu",
            "text": text,
            "channel_id": channel,
            "user_id": user,
            "team_id": team,
            "response_url": self.fake.response_url(f"cmd{n}"),
            "trigger_id": f"trigger{n}",
            "channel_name": "general",
            "user_name": "someone",
        }
        return self.post(urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded", **kw)

    def event(self, event: dict, event_id: str | None = None, team: str = "T1", headers: dict | None = None, **kw):
        body = {
            "type": "event_callback",
            "team_id": team,
            "api_app_id": "A1",
            "event_id": event_id or f"Ev{next(_ids)}",
            "event_time": int(time.time()),
            "authorizations": [{"team_id": team, "user_id": "UBOT", "is_bot": True}],
            "event": event,
        }
        return self.post(json.dumps(body).encode(), "application/json", headers=headers, **kw)

    def thread_message(
        self, text: str, thread_ts: str, ts: str | None = None, channel: str = "C1", user: str = "U2", **kw
    ):
        event = {
            "type": "message",
            "channel": channel,
            "user": user,
            "text": text,
            "ts": ts or f"{time.time():.6f}",
            "thread_ts": thread_ts,
            "channel_type": "channel",
        }
        return self.event(event, **kw), event

    def mention(
        self,
        text: str,
        channel: str = "C1",
        user: str = "U2",
        ts: str | None = None,
        thread_ts: str | None = None,
        **kw,
    ):
        event = {
            "type": "app_mention",
            "channel": channel,
            "user": user,
            "text": f"<@UBOT> {text}",
            "ts": ts or f"{time.time():.6f}",
        }
        if thread_ts:
            event["thread_ts"] = thread_ts
        return self.event(event, **kw), event

    def interaction(self, payload: dict, **kw):
        body = urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()
        return self.post(body, "application/x-www-form-urlencoded", **kw)

    def button(self, action_id: str, message_ts: str, channel: str = "C1", user: str = "U1", team: str = "T1"):
        return self.interaction(
            {
                "type": "block_actions",
                "team": {"id": team},
                "user": {"id": user},
                "api_app_id": "A1",
                "channel": {"id": channel},
                "trigger_id": f"trigger{next(_ids)}",
                "container": {"type": "message", "message_ts": message_ts, "channel_id": channel},
                "actions": [
                    {
                        "action_id": action_id,
                        "block_id": "plan_actions",
                        "type": "button",
                        "value": action_id,
                        "action_ts": f"{time.time():.6f}",
                    }
                ],
            }
        )

    def submit_form(self, values: dict, channel: str = "C1", user: str = "U1", team: str = "T1"):
        state = {}
        for field, value in values.items():
            if field in ("method", "gpu", "lang"):
                state[field] = {"value": {"type": "static_select", "selected_option": {"value": value}}}
            else:
                state[field] = {"value": {"type": "plain_text_input", "value": value}}
        return self.interaction(
            {
                "type": "view_submission",
                "team": {"id": team},
                "user": {"id": user},
                "api_app_id": "A1",
                "trigger_id": f"trigger{next(_ids)}",
                "view": {
                    "id": "V1",
                    "type": "modal",
                    "callback_id": "gpu_request",
                    "private_metadata": json.dumps({"channel": channel}),
                    "state": {"values": state},
                },
            }
        )


def visible(body) -> str:
    """What a person reads in a message or an ack body (JSON or a dict): its text and every text
    of its blocks, unescaped from JSON (Chinese stays Chinese)."""
    msg = json.loads(body) if isinstance(body, (str, bytes)) else body
    if not isinstance(msg, dict):
        return str(body)
    out = [msg.get("text") or ""]

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "text" and isinstance(value, str):
                    out.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(msg.get("blocks") or [])
    return "\n".join(out)
