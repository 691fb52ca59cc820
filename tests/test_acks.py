"""bot/acks.py on a real Bolt app: the response leaves when the listener acks, while what the
listener does after its ack goes on; an error before the ack still gets Bolt's own answer."""

import threading
import time
from urllib.parse import urlencode

from slack_bolt import App, BoltRequest
from slack_bolt.authorization import AuthorizeResult

from bot.acks import AckWaitingExecutor, SignallingAck, after, give_signalling_ack, inline


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


def test_an_inline_listener_runs_in_the_request_thread_and_its_work_after_the_ack_on_the_pool(monkeypatch):
    import slack_bolt.listener.thread_runner as runner

    request_thread, naps = threading.current_thread(), []
    real_sleep = time.sleep
    monkeypatch.setattr(
        runner.time,
        "sleep",
        lambda s: (naps.append(s) if threading.current_thread() is request_thread else None, real_sleep(s)),
    )
    app = _app()
    ran_in, later_in = [], []
    release, finished = threading.Event(), threading.Event()

    def later(word):
        later_in.append((threading.current_thread(), word))
        release.wait(10)  # a slow Web API call after the ack
        finished.set()

    @app.command("/gpu", middleware=[inline])
    def listener(ack):
        ran_in.append(threading.current_thread())
        ack(text="working")
        after(later, "locale")

    response = app.dispatch(_command("70B"))
    assert (response.status, response.body) == (200, "working")
    assert ran_in == [request_thread] and naps == []  # no hand-off, and Bolt never napped
    assert not finished.is_set()  # the response did not wait for the work after the ack
    release.set()
    assert finished.wait(10)
    assert [w for _, w in later_in] == ["locale"] and later_in[0][0] is not request_thread


def test_an_inline_listener_that_fails_before_its_ack_gets_bolts_answer_and_the_next_runs_on_the_pool():
    app = _app()
    threads = []

    @app.command("/gpu", middleware=[inline])
    def failing(ack):
        raise RuntimeError("boom")

    @app.command("/other")
    def pooled(ack):
        threads.append(threading.current_thread())
        after(threads.append, "now")  # not inline: runs here and now
        ack()

    assert app.dispatch(_command("70B")).status == 500
    other = BoltRequest(
        body=urlencode({"command": "/other", "text": "x", "team_id": "T1", "user_id": "U1", "channel_id": "C1"}),
        headers={"content-type": ["application/x-www-form-urlencoded"]},
    )
    assert app.dispatch(other).status == 200
    assert threads[1] == "now" and threads[0] is not threading.current_thread()  # the flag did not stick


def test_work_after_the_ack_that_fails_is_logged(caplog):
    app = _app()
    done = threading.Event()

    def broken():
        try:
            raise ValueError("users.info down")
        finally:
            done.set()

    @app.command("/gpu", middleware=[inline])
    def listener(ack):
        ack()
        after(broken)

    assert app.dispatch(_command("70B")).status == 200
    assert done.wait(10)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and "after the ack: broken failed" not in caplog.text:
        time.sleep(0.01)
    assert "after the ack: broken failed" in caplog.text
