"""bot/acks.py on a real Bolt app: the response leaves when the listener acks, while what the
listener does after its ack goes on; an error before the ack still gets Bolt's own answer."""

import threading
import time
from urllib.parse import urlencode

from slack_bolt import App, BoltRequest
from slack_bolt.authorization import AuthorizeResult

from bot.acks import AckWaitingExecutor, SignallingAck, give_signalling_ack


def _app() -> App:
    app = App(
        signing_secret="secret",
        request_verification_enabled=False,
        # no Web API call: the workspace is authorised as given
        authorize=lambda **_: AuthorizeResult(enterprise_id=None, team_id="T1", bot_token="xoxb-test", bot_id="B1"),
        listener_executor=AckWaitingExecutor(),
    )
    app.use(give_signalling_ack)
    return app


def _command(text: str) -> BoltRequest:
    body = urlencode(
        {
            "command": "/gpu",
            "text": text,
            "team_id": "T1",
            "user_id": "U1",
            "channel_id": "C1",
            "trigger_id": "1.2.3",
            "response_url": "http://127.0.0.1:9/hook",
        }
    )
    return BoltRequest(body=body, headers={"content-type": ["application/x-www-form-urlencoded"]})


def test_the_response_leaves_at_the_ack_while_the_listener_goes_on():
    app = _app()
    after_ack = threading.Event()
    finished = threading.Event()

    @app.command("/gpu")
    def listener(ack, context):
        assert isinstance(context.ack, SignallingAck)
        ack(text="working")
        after_ack.wait(10)  # the work after the ack, held until the response is checked
        finished.set()

    response = app.dispatch(_command("70B"))
    assert (response.status, response.body) == (200, "working")
    assert not finished.is_set()  # Bolt answered before the listener ended
    after_ack.set()
    assert finished.wait(10)


def test_the_first_look_finds_the_ack(monkeypatch):
    # Bolt's request thread sleeps 10 ms between looks for the ack; with the ack made 50 ms into
    # the listener it would look about five times. Here it never sleeps: its first look finds it.
    import slack_bolt.listener.thread_runner as runner

    request_thread, naps = threading.current_thread(), []
    real_sleep = time.sleep

    def sleep(seconds):
        if threading.current_thread() is request_thread:
            naps.append(seconds)
        real_sleep(seconds)

    monkeypatch.setattr(runner.time, "sleep", sleep)
    app = _app()

    @app.command("/gpu")
    def listener(ack):
        real_sleep(0.05)
        ack()

    assert app.dispatch(_command("70B")).status == 200
    assert naps == []


def test_an_error_before_the_ack_gets_bolts_answer():
    app = _app()

    @app.command("/gpu")
    def listener(ack):
        raise RuntimeError("boom")

    response = app.dispatch(_command("70B"))
    assert response.status == 500


def test_a_submit_without_a_pending_ack_returns_at_once():
    executor = AckWaitingExecutor(max_workers=1)
    release = threading.Event()
    future = executor.submit(release.wait, 10)
    assert not future.done()
    release.set()
    assert future.result(10)
    executor.shutdown()
