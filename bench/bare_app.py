"""The baseline for bench/ack_latency.py: a Bolt app that only acks /gpu, behind the same
Flask adapter."""

from __future__ import annotations

import os

from flask import Flask, request
from slack_bolt import App
from slack_bolt.adapter.flask import SlackRequestHandler
from slack_sdk import WebClient


def create() -> Flask:
    bolt = App(
        client=WebClient(token=os.environ["SLACK_BOT_TOKEN"], base_url=os.environ["SLACK_API_URL"]),
        signing_secret=os.environ["SLACK_SIGNING_SECRET"],
    )
    bolt.command("/gpu")(lambda ack: ack())
    handler = SlackRequestHandler(bolt)
    web = Flask("bare")

    @web.post("/slack/events")
    def events():
        return handler.handle(request)

    @web.get("/healthz")
    def healthz():
        return {"ok": True}

    return web
