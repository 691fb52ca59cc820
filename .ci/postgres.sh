# Sourced by .ci/run: a real PostgreSQL for the tests that run on both engines. Debian's
# postgresql is installed when missing, and a throwaway cluster is started on loopback (as the
# user postgres, in a temporary folder) for the run; its URL is exported as GPU_ADVISOR_TEST_PG
# and it is stopped when the run ends. Where it cannot be started, the Postgres half of those
# tests is skipped with the reason (a plain `python -m pytest` starts a cluster per worker when
# PostgreSQL is installed).
if ! command -v initdb >/dev/null && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null) \
            || echo "could not install postgresql: the Postgres half of the tests will be skipped"
    fi
fi
PG_DIR="$(mktemp -d /tmp/gpu-advisor-ci-pg.XXXXXX)"
if GPU_ADVISOR_TEST_PG="$(python3 tests/pg_cluster.py start "$PG_DIR")"; then
    export GPU_ADVISOR_TEST_PG
    trap 'python3 tests/pg_cluster.py stop "$PG_DIR"; rm -rf "$PG_DIR"' EXIT
    echo "PostgreSQL for the tests: $GPU_ADVISOR_TEST_PG"
else
    echo "PostgreSQL could not be started: the Postgres half of the tests will be skipped"
fi
