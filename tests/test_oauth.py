"""Many workspaces: OAuth install, per-workspace tokens, isolation and uninstall."""

import re
import threading
import time
import urllib.request

import pytest
from conftest import SECRET
from werkzeug.serving import make_server


@pytest.fixture(scope="module")
def oauth_bot(fake_slack, bot_env):
    from slack_client import SlackSender

    from bot.settings import Settings
    from bot.web import create_flask_app

    settings = Settings(
        signing_secret=SECRET, api_url=fake_slack.url, client_id="111.222", client_secret="oauth-client-secret-xyz"
    )
    http = make_server("127.0.0.1", 0, create_flask_app(settings), threaded=True)
    thread = threading.Thread(target=http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{http.server_port}"
    yield SlackSender(url, SECRET, fake_slack), url
    http.shutdown()
    http.server_close()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _install(url: str, fake, team: str) -> int:
    fake.oauth_team = team
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        resp = opener.open(url + "/slack/install", timeout=10)
        page, cookie = resp.read().decode(), resp.headers.get("Set-Cookie", "")
    except urllib.error.HTTPError as err:  # a 302 straight to Slack when the page is off
        page, cookie = err.headers.get("Location", ""), err.headers.get("Set-Cookie", "")
    state = re.search(r"state=([^&\"']+)", page).group(1)
    req = urllib.request.Request(
        f"{url}/slack/oauth_redirect?code=abc&state={state}", headers={"Cookie": cookie.split(";")[0]}
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        return resp.status


def test_install_then_requests_use_that_workspaces_token(oauth_bot, fake_slack):
    send, url = oauth_bot
    fake_slack.reset()
    assert _install(url, fake_slack, "T2") == 200
    assert fake_slack.calls_of("oauth.v2.access")
    fake_slack.reset()
    send.command("7b lora 20GB 3d", team="T2", channel="C2")
    post = fake_slack.wait_for("chat.postMessage")[0]
    assert post["authorization"] == "Bearer xoxb-T2-token" and post["args"]["channel"] == "C2"


@pytest.mark.sqlite_only("the OAuth app runs on slack_sdk's SQLite stores, beside the bot's SQLite file")
def test_a_workspace_never_sees_another_workspaces_plans(oauth_bot, fake_slack, answered, drain):
    send, url = oauth_bot
    _install(url, fake_slack, "T2")
    fake_slack.reset()
    # T1's thread, addressed from T2: not ours there, so no reply
    send.thread_message("what if 30 days?", answered, team="T2")
    send.event({"type": "app_home_opened", "user": "U1", "channel": "D1", "tab": "home"}, team="T2")
    view = str(fake_slack.wait_for("views.publish")[0]["args"]["view"])
    drain()
    assert fake_slack.calls_of("chat.postMessage") == []
    assert answered.replace(".", "") not in view and "archives/C1" not in view


def test_uninstall_deletes_the_workspaces_tokens_and_data(oauth_bot, fake_slack, bot_env):
    from slack_sdk.oauth.installation_store.sqlite3 import SQLite3InstallationStore

    from bot import conversations, locales, subscriptions

    send, url = oauth_bot
    _install(url, fake_slack, "T3")
    send.command("7b lora 20GB 3d", team="T3", channel="C3", user="U3")
    fake_slack.wait_for("chat.postMessage", 1)  # the card alone
    deadline = time.time() + 20
    while time.time() < deadline and not conversations.recent("T3"):
        time.sleep(0.1)
    assert locales.known("U3") == "en"  # the plan asked Slack for U3's locale
    subscriptions.subscribe(subscriptions.Subscription(workspace="T3", channel="C3"))
    store = SQLite3InstallationStore(database=str(bot_env), client_id="111.222")
    assert store.find_installation(enterprise_id=None, team_id="T3") is not None
    status, _ = send.event({"type": "app_uninstalled"}, team="T3")
    assert status == 200

    def gone():  # the listener deletes the tokens, then the threads, then the subscriptions
        return (
            store.find_installation(enterprise_id=None, team_id="T3") is None
            and conversations.recent("T3") == []
            and subscriptions.of_workspace("T3") == []
            and locales.known("U3") is None
        )

    deadline = time.time() + 20
    while time.time() < deadline and not gone():
        time.sleep(0.1)
    assert store.find_installation(enterprise_id=None, team_id="T3") is None
    assert conversations.recent("T3") == [] and subscriptions.of_workspace("T3") == []
    assert locales.known("U3") is None


def test_a_workspaces_requests_ask_slack_who_the_bot_is_once(oauth_bot, fake_slack, drain):
    # Bolt's default authorisation had called auth.test before every ack (operator review: a slow
    # Slack held each ack 2.5 s); the result is kept per token, the installation still read each time
    send, url = oauth_bot
    _install(url, fake_slack, "T4")
    fake_slack.reset()
    for text in ("7b lora 20GB 3d", "13b lora 10GB 2d"):
        send.command(text, team="T4", channel="C4")
    fake_slack.wait_for("chat.postMessage", 2)
    drain()
    assert len(fake_slack.calls_of("auth.test")) == 1
