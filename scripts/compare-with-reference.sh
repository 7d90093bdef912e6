#!/usr/bin/env bash
# Run the Python client tests against Apache's Java Hive Metastore (2.3.10, the reference) instead
# of hivestore, to check that what the tests expect is what Hive does.
#
#   scripts/compare-with-reference.sh [PYTEST_ARGS...]
#
# Starts the reference HMS (/work/shared/tools/reference-hms/start.sh) on a free loopback port
# with a fresh Derby database and warehouse, runs pytest with HMS_URI pointing at it, stops it
# (also on failure or Ctrl-C), and prints a summary. Without arguments it runs every file of
# tests/python; with arguments they go to pytest instead (files, -k, ...).
# Tests of calls Hive 2.3 lacks skip there; hivestore-only tests (crash recovery) skip too.
#
# Env: REFERENCE_HMS_START  start.sh to use (default /work/shared/tools/reference-hms/start.sh)
#      REFERENCE_BASE       directory for the reference's conf, Derby and warehouse
#                           (default: a new temporary directory, removed afterwards)
#      PYSPARK_VENV         venv with pyspark 4.3.0 (default: the repository's .venv)
#      HMS_COMBOS           passed through (default buffered-binary, all Apache's HMS speaks)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

START="${REFERENCE_HMS_START:-/work/shared/tools/reference-hms/start.sh}"
VENV="$ROOT/.venv"
export PYSPARK_VENV="${PYSPARK_VENV:-$VENV}"
[ -x "$START" ] || { echo "no reference HMS start script at $START"; exit 2; }
[ -x "$VENV/bin/python" ] || { echo "no venv at $VENV; run scripts/test.sh once"; exit 2; }

if [ -n "${REFERENCE_BASE:-}" ]; then
  BASE="$REFERENCE_BASE"
  KEEP_BASE=1
else
  BASE="$(mktemp -d /tmp/hivestore-reference.XXXXXX)/base"
  KEEP_BASE=0
fi

free_port() {
  "$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

stop_reference() {
  local pid
  if [ -f "$BASE/hms.pid" ]; then
    pid="$(cat "$BASE/hms.pid")"
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -9 "$pid" 2>/dev/null || true
    fi
  fi
  if [ "$KEEP_BASE" = 0 ]; then rm -rf "$(dirname "$BASE")"; fi
}
trap stop_reference EXIT

PORT=""
for attempt in 1 2 3; do
  candidate="$(free_port)"
  echo "==> starting the reference HMS on 127.0.0.1:$candidate (attempt $attempt, base $BASE)"
  if timeout 300 "$START" "$candidate" "$BASE"; then PORT="$candidate"; break; fi
done
[ -n "$PORT" ] || { echo "the reference HMS did not start"; exit 1; }

if [ "$#" -eq 0 ]; then set -- tests/python; fi
echo "==> pytest against thrift://127.0.0.1:$PORT: $*"
start_s=$(date +%s)
LOG="$BASE/pytest.log"
set +e
HMS_URI="thrift://127.0.0.1:$PORT" timeout 3600 "$VENV/bin/python" -m pytest -q -rs --tb=short \
  -p no:cacheprovider "$@" 2>&1 | tee "$LOG"
status="${PIPESTATUS[0]}"
set -e
echo "==> summary"
echo "  reference: Apache Hive Metastore 2.3.10 (pyspark 4.3.0 jars), 127.0.0.1:$PORT"
echo "  pytest:    $(grep -E '(passed|failed|error|skipped)' "$LOG" | tail -1)"
echo "  skipped:   $(grep -c '^SKIPPED' "$LOG" || true) reasons (calls or behaviours Hive 2.3 lacks)"
echo "  time:      $(($(date +%s) - start_s))s; exit $status"
exit "$status"
