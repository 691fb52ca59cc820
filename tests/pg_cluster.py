"""A throwaway PostgreSQL cluster on loopback for the tests (.ci/run starts one and exports its
URL as GPU_ADVISOR_TEST_PG; a test session without it starts its own, once per worker).

`python tests/pg_cluster.py start DIR` prints the URL of a cluster it started in DIR;
`python tests/pg_cluster.py stop DIR` stops it. Run as root, the cluster runs as the user
`postgres` (initdb refuses root)."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import sys
from pathlib import Path


def _bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    base = Path("/usr/lib/postgresql")
    if base.is_dir():
        for version in sorted(base.iterdir(), reverse=True):
            candidate = version / "bin" / name
            if candidate.exists():
                return str(candidate)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise RuntimeError("running as root and there is no 'postgres' user to run the cluster as") from None
    return ["runuser", "-u", "postgres", "--", *cmd]


def _opts(port, folder) -> str:
    # Tests: no fsync (nothing here outlives a crash of the cluster). A cluster made with
    # durable=True (bench/multihost.py restarts it mid-burst) commits as Postgres does by default.
    fast = "" if (Path(folder) / "durable").exists() else " -c fsync=off -c synchronous_commit=off"
    return f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=300{fast}"


def start(folder: str | Path, durable: bool = False) -> str:
    """Start a cluster in `folder` (made if missing); its URL. Raises RuntimeError with the reason
    when Postgres is not installed or will not start."""
    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    if not initdb or not pg_ctl:
        raise RuntimeError("PostgreSQL is not installed (no initdb/pg_ctl; .ci/run installs Debian's postgresql)")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if durable:
        (folder / "durable").write_text("")
    data = folder / "data"
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    if not data.exists():
        done = subprocess.run(
            _as_user([initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]),
            capture_output=True,
            text=True,
        )
        if done.returncode:
            raise RuntimeError("initdb failed: " + (done.stderr or done.stdout)[-500:])
    port = _free_port()
    opts = _opts(port, folder)
    done = subprocess.run(
        _as_user([pg_ctl, "-D", str(data), "-o", opts, "-l", str(folder / "log"), "-w", "-t", "60", "start"]),
        capture_output=True,
        text=True,
    )
    if done.returncode:
        log = (folder / "log").read_text()[-800:] if (folder / "log").exists() else ""
        raise RuntimeError("pg_ctl start failed: " + (done.stderr or done.stdout)[-400:] + log)
    (folder / "port").write_text(str(port))
    return f"postgresql://postgres@127.0.0.1:{port}/postgres"


def stop(folder: str | Path, mode: str = "fast") -> None:
    pg_ctl = _bin("pg_ctl")
    data = Path(folder) / "data"
    if pg_ctl and data.exists():
        subprocess.run(_as_user([pg_ctl, "-D", str(data), "-m", mode, "-w", "stop"]), capture_output=True)


def restart(folder: str | Path) -> None:
    """Stop and start the cluster again on the same port (a Postgres restart)."""
    pg_ctl = _bin("pg_ctl")
    folder = Path(folder)
    port = (folder / "port").read_text().strip()
    opts = _opts(port, folder)
    subprocess.run(
        _as_user(
            [
                pg_ctl,
                "-D",
                str(folder / "data"),
                "-o",
                opts,
                "-l",
                str(folder / "log"),
                "-m",
                "immediate",
                "-w",
                "restart",
            ]
        ),
        capture_output=True,
        check=True,
    )


if __name__ == "__main__":
    what, where = sys.argv[1], sys.argv[2]
    if what == "start":
        print(start(where))
    else:
        stop(where)
