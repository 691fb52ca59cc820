"""Bolt answers Slack the moment a listener acks, not at its next 10 ms look.

Bolt runs each listener on its `listener_executor` and, in the request thread, looks for the ack
every 10 ms (slack_bolt ThreadListenerRunner: `while ack.response is None: time.sleep(0.01)`).
An ack that misses one look holds its web thread a tick longer, and under a burst the next
requests queue behind it (docs/reliability.md, "Ack latency"). Here a global middleware gives
each request an Ack that signals when called, and the executor's `submit` returns only once the
listener it starts has acked or ended: Bolt's first look finds the ack. What the listener does
after its ack goes on in the pool thread, as before.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor

from slack_bolt.context.ack import Ack

# Bolt gives a listener 3 s to ack (Listener.ack_timeout); submit waits no longer.
ACK_WAIT_S = 3.0
# Bolt's default pool for listeners (slack_bolt App: ThreadPoolExecutor(max_workers=5)).
LISTENER_THREADS = 5

_request = threading.local()


class SignallingAck(Ack):
    """Bolt's Ack that also sets `done` when called."""

    def __init__(self):
        super().__init__()
        self.done = threading.Event()

    def __call__(self, *args, **kwargs):
        response = super().__call__(*args, **kwargs)
        self.done.set()
        return response


def give_signalling_ack(context, next) -> None:
    """Global middleware, in the request thread before Bolt runs a listener: the request's ack,
    remembered for this thread's next `submit`."""
    ack = SignallingAck()
    context["ack"] = ack
    _request.ack = ack
    next()


class AckWaitingExecutor(ThreadPoolExecutor):
    """Runs listeners on a pool; `submit` from a request thread with a pending ack returns once the
    listener acked (or ended, or ACK_WAIT_S passed). Other submits (lazy listeners) return at once."""

    def __init__(self, max_workers: int = LISTENER_THREADS):
        super().__init__(max_workers=max_workers, thread_name_prefix="bolt-listener")

    def submit(self, fn, /, *args, **kwargs) -> Future:
        ack = getattr(_request, "ack", None)
        _request.ack = None
        if ack is None:
            return super().submit(fn, *args, **kwargs)

        def run():
            try:
                return fn(*args, **kwargs)
            finally:
                ack.done.set()  # an error or no ack at all: Bolt's own handling takes over

        future = super().submit(run)
        ack.done.wait(ACK_WAIT_S)
        return future
