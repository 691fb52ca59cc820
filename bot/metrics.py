"""What an operator's scraper reads at GET /metrics, in Prometheus's text format (0.0.4): whether
the store answered, the job backlog and the processes live on it. Counts only: no workspace,
channel, user or text, and nothing of the database's address."""

from __future__ import annotations

KINDS = ("serve", "work", "clock")  # always listed, so an alert can fire on a zero


def exposition(backlog: dict | None, live: dict[str, int] | None) -> str:
    """The scrape's text; `backlog` (JobQueue.backlog) and `live` (heartbeats.live_counts) are
    None when the store did not answer, and only `gpu_advisor_database_up 0` is said then."""
    up = backlog is not None and live is not None
    lines = [
        "# HELP gpu_advisor_database_up 1 when the store answered this scrape, else 0.",
        "# TYPE gpu_advisor_database_up gauge",
        f"gpu_advisor_database_up {int(up)}",
    ]
    if not up:
        return "\n".join(lines) + "\n"
    lines += [
        "# HELP gpu_advisor_jobs Jobs in the store: queued (waiting for a planner) or running (claimed).",
        "# TYPE gpu_advisor_jobs gauge",
        *(f'gpu_advisor_jobs{{state="{state}"}} {backlog[state]}' for state in ("queued", "running")),
        "# HELP gpu_advisor_oldest_job_wait_seconds Since its ack, the wait of the oldest due job not claimed.",
        "# TYPE gpu_advisor_oldest_job_wait_seconds gauge",
        f"gpu_advisor_oldest_job_wait_seconds {backlog['oldest_s']:.3f}",
        "# HELP gpu_advisor_processes Processes live and well on the store, by kind (gpu-advisor health).",
        "# TYPE gpu_advisor_processes gauge",
        *(
            f'gpu_advisor_processes{{kind="{kind}"}} {live.get(kind, 0)}'
            for kind in (*KINDS, *sorted(set(live) - set(KINDS)))
        ),
    ]
    return "\n".join(lines) + "\n"
