"""The Slack suites' core scenarios again, on Postgres: the same test functions (imported from
test_bot, test_threads and test_surfaces) with the real Bolt app over HTTP on loopback and its
planning processes on DATABASE_URL (a fresh database on the tests' Postgres) instead of the
SQLite file. Skipped, with the reason, where Postgres cannot be started."""

import os
import sys
from pathlib import Path

import pytest
from conftest import BOT_TOKEN, SECRET, BotServer
from test_bot import (  # noqa: F401  (collected here too: run on Postgres)
    test_chinese_request_gets_a_chinese_answer,
    test_mention_outside_a_thread_answers_in_its_thread,
    test_retries_and_duplicate_events_reply_once,
    test_slash_command_acks_at_once_and_posts_the_plan,
    test_thread_what_if_replans_with_one_change,
    test_user_locale_zh_gets_chinese,
)
from test_surfaces import test_app_home_lists_recent_plans_with_links  # noqa: F401
from test_threads import test_replan_button_answers_in_the_same_thread  # noqa: F401

# As in test_bot: a fake with no calls recorded; replies still in flight land before the next test.
pytestmark = pytest.mark.usefixtures("settled_fake")


def _new_pool():
    """The planning processes read the store from their environment when they start: a pool
    started for another store is replaced."""
    from bot import planner_pool

    if planner_pool._pool is not None and planner_pool._pool_pid == os.getpid():
        planner_pool._pool.shutdown(wait=True, cancel_futures=True)
    planner_pool._pool = None


@pytest.fixture(scope="module")
def postgres_bot_env(tmp_path_factory, bot_env):
    from conftest import drop_postgres, fresh_postgres

    try:
        url, server = fresh_postgres(tmp_path_factory)
    except RuntimeError as err:
        pytest.skip(f"Postgres could not be started: {err}")
    old = {k: os.environ.get(k) for k in ("DATABASE_URL", "GPU_ADVISOR_DB")}
    must_not_exist = tmp_path_factory.mktemp("pgbot") / "must-not-exist.db"
    os.environ.update(DATABASE_URL=url, GPU_ADVISOR_DB=str(must_not_exist))
    _new_pool()
    yield url
    _new_pool()
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    from bot import dispatcher

    dispatcher.store().url = None
    assert not must_not_exist.exists(), "a SQLite file was written with DATABASE_URL set"
    drop_postgres(url, server)


@pytest.fixture(scope="module")
def bot(fake_slack, postgres_bot_env):
    sys.path.insert(0, str(Path(__file__).parent))
    from slack_client import SlackSender

    assert os.environ["SLACK_BOT_TOKEN"] == BOT_TOKEN
    server = BotServer(fake_slack, None)
    yield SlackSender(server.url, SECRET, fake_slack), server
    server.stop()


@pytest.fixture(autouse=True)
def _no_remembered_locales_on_postgres(postgres_bot_env):
    from advisor import db

    with db.connect() as conn:
        conn.execute("DELETE FROM user_locales")
    yield
