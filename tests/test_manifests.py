"""The manifests create the app the code expects: every scope the code needs, no more, and
every event it listens to."""

from pathlib import Path

import pytest
import yaml

from bot.app import BOT_SCOPES

ROOT = Path(__file__).resolve().parent.parent
EVENTS = {"app_mention", "message.channels", "message.groups", "app_home_opened", "app_uninstalled", "tokens_revoked"}


@pytest.mark.parametrize("name,socket", [("manifest.yml", False), ("manifest-socket.yml", True)])
def test_manifest(name, socket):
    m = yaml.safe_load((ROOT / name).read_text())
    assert sorted(m["oauth_config"]["scopes"]["bot"]) == sorted(BOT_SCOPES)
    assert set(m["settings"]["event_subscriptions"]["bot_events"]) == EVENTS
    assert m["settings"]["socket_mode_enabled"] is socket
    assert m["settings"]["interactivity"]["is_enabled"] is True
    assert m["features"]["slash_commands"][0]["command"] == "/gpu"
    assert m["features"]["app_home"]["home_tab_enabled"] is True
    urls = [
        m["features"]["slash_commands"][0].get("url"),
        m["settings"]["event_subscriptions"].get("request_url"),
        m["settings"]["interactivity"].get("request_url"),
    ]
    if socket:
        assert urls == [None, None, None]
    else:
        assert all(u.endswith("/slack/events") for u in urls)
