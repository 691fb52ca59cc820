"""What the bot reads from the environment (CONTRACT section 2). Secrets stay here: they are
never logged, echoed or rendered."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

DEFAULT_API_URL = "https://slack.com/api/"


@dataclass(frozen=True)
class Settings:
    bot_token: str | None = field(default=None, repr=False)
    signing_secret: str | None = field(default=None, repr=False)
    app_token: str | None = field(default=None, repr=False)
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    api_url: str = DEFAULT_API_URL
    port: int = 3000
    # the address `serve` listens on: every interface, as behind a load balancer; 127.0.0.1 (or
    # ::1) where a proxy on the same host is the only one to reach it
    bind: str = "0.0.0.0"

    @classmethod
    def from_env(cls) -> Settings:
        url = os.environ.get("SLACK_API_URL") or DEFAULT_API_URL
        if not url.endswith("/"):
            url += "/"  # WebClient drops the last path segment without it (slack_sdk base_url)
        return cls(
            bot_token=(os.environ.get("SLACK_BOT_TOKEN") or "").strip() or None,
            signing_secret=(os.environ.get("SLACK_SIGNING_SECRET") or "").strip() or None,
            app_token=(os.environ.get("SLACK_APP_TOKEN") or "").strip() or None,
            client_id=(os.environ.get("SLACK_CLIENT_ID") or "").strip() or None,
            client_secret=(os.environ.get("SLACK_CLIENT_SECRET") or "").strip() or None,
            api_url=url,
            port=int(os.environ.get("PORT") or 3000),
            bind=bind_address(),
        )

    @property
    def oauth(self) -> bool:
        """Many workspaces: install through OAuth, one token per workspace."""
        return bool(self.client_id and self.client_secret)

    def missing_for_http(self) -> list[str]:
        token = () if self.oauth else (("SLACK_BOT_TOKEN", self.bot_token),)
        return [name for name, value in (*token, ("SLACK_SIGNING_SECRET", self.signing_secret)) if not value]

    def missing_for_posting(self) -> list[str]:
        """`work` and `clock` post to Slack: a bot token, or OAuth's client id and secret (each
        workspace's token then comes from its installation)."""
        return [] if self.oauth or self.bot_token else ["SLACK_BOT_TOKEN"]

    def missing_for_socket(self) -> list[str]:
        return [
            name
            for name, value in (("SLACK_BOT_TOKEN", self.bot_token), ("SLACK_APP_TOKEN", self.app_token))
            if not value
        ]


def bind_address(environ=None) -> str:
    """GPU_ADVISOR_BIND, the address `serve` listens on (0.0.0.0 when unset)."""
    environ = os.environ if environ is None else environ
    return (environ.get("GPU_ADVISOR_BIND") or "").strip() or "0.0.0.0"


def bind_problem(address: str) -> bool:
    """Whether `address` is no IP address to listen on (a host name is not taken: gunicorn would
    listen on whatever it resolves to)."""
    import ipaddress

    try:
        ipaddress.ip_address(address)
    except ValueError:
        return True
    return False


def host_port(address: str, port: int) -> str:
    """gunicorn's bind for `address` and `port` (an IPv6 address in brackets)."""
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
