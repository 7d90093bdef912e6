#!/usr/bin/env bash
# get_table latency and throughput of hivestore against Apache's Java Hive Metastore (2.3.10,
# the reference), measured the same way by `hivestore bench`, side by side. One command:
#
#   scripts/bench-vs-java.sh
#
# Builds hivestore (release), starts it and the reference HMS on free loopback ports with fresh
# data, runs get_table and get_table_req in latency mode (one connection) and throughput mode
# (1, 4 and 16 connections), writes the report under target/bench-report/ (bench.txt: the
# table and the machine; bench.csv), and stops both servers (also on failure or Ctrl-C).
# Client and servers share the machine and talk over loopback only.
#
# Env: BENCH_SECONDS        time bound of each measurement (default 5)
#      BENCH_WARMUP         unmeasured calls per connection first (default 500; bounded by
#                           BENCH_SECONDS too)
#      BENCH_WORKLOADS      workloads (default get_table,get_table_req)
#      JVM_WARMUP_SECONDS   an unreported run of each workload against the Java HMS first, so
#                           that its JIT has compiled the call paths (default 15; 0 skips it)
#      PYSPARK_VENV         venv with pyspark 4.3.0 for the reference (default: the repository's
#                           .venv, made by scripts/test.sh; start.sh makes one if it is missing)
#      REFERENCE_HMS_START  the reference's start script
#                           (default /work/shared/tools/reference-hms/start.sh)
#      CARGO_TARGET_DIR     where cargo builds (default target/)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

SECONDS_EACH="${BENCH_SECONDS:-5}"
WARMUP="${BENCH_WARMUP:-500}"
WORKLOADS="${BENCH_WORKLOADS:-get_table,get_table_req}"
JVM_WARMUP_SECONDS="${JVM_WARMUP_SECONDS:-15}"
START="${REFERENCE_HMS_START:-/work/shared/tools/reference-hms/start.sh}"
export PYSPARK_VENV="${PYSPARK_VENV:-$ROOT/.venv}"
REPORT="$ROOT/target/bench-report"
WORK="$REPORT/work"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/hivestore"
[ -x "$START" ] || { echo "no reference HMS start script at $START"; exit 2; }

HIVESTORE_PID=""
stop_servers() {
  local pid
  for pid in "$HIVESTORE_PID" "$( [ -f "$WORK/reference/hms.pid" ] && cat "$WORK/reference/hms.pid" )"; do
    [ -n "$pid" ] || continue
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
}
trap stop_servers EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_for_port() {
  for _ in $(seq 1 100); do
    if (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listens on 127.0.0.1:$1"; return 1
}

echo "==> building hivestore (release)"
cargo build --release --quiet -p hivestore-thrift --bin hivestore

rm -rf "$WORK"
mkdir -p "$WORK"
HIVESTORE_PORT="$(free_port)"
echo "==> starting hivestore on 127.0.0.1:$HIVESTORE_PORT"
"$BIN" serve --listen "127.0.0.1:$HIVESTORE_PORT" --data-dir "$WORK/hivestore/data" \
  --warehouse "$WORK/hivestore/warehouse" > "$WORK/hivestore.log" 2>&1 &
HIVESTORE_PID=$!
wait_for_port "$HIVESTORE_PORT"

REFERENCE_PORT=""
for attempt in 1 2 3; do
  candidate="$(free_port)"
  echo "==> starting the reference HMS on 127.0.0.1:$candidate (attempt $attempt)"
  if timeout 300 "$START" "$candidate" "$WORK/reference"; then REFERENCE_PORT="$candidate"; break; fi
done
[ -n "$REFERENCE_PORT" ] || { echo "the reference HMS did not start"; exit 1; }

{
  echo "hivestore bench: hivestore against the Java HMS (Hive 2.3.10, Derby), $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'),"
  echo "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) memory, $(uname -sr); client and both servers on this machine, over loopback."
  echo "Each measurement: ${SECONDS_EACH} s at most after ${WARMUP} warm-up calls per connection; latency mode also stops at 100,000 calls."
  echo "The Java HMS first ran each workload unreported for ${JVM_WARMUP_SECONDS} s on 4 connections (JIT warm-up)."
  echo "Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
} > "$REPORT/bench.txt"

if [ "$JVM_WARMUP_SECONDS" != 0 ]; then
  echo "==> warming the Java HMS up: ${WORKLOADS} on 4 connections, ${JVM_WARMUP_SECONDS} s each, not reported"
  "$BIN" bench --uri "thrift://127.0.0.1:$REFERENCE_PORT" --workload "$WORKLOADS" \
    --mode throughput --connections 4 --seconds "$JVM_WARMUP_SECONDS" --warmup 0 > /dev/null
fi

echo "==> measuring (${WORKLOADS}; latency, then throughput at 1, 4, 16 connections; ${SECONDS_EACH} s each)"
"$BIN" bench --uri "thrift://127.0.0.1:$HIVESTORE_PORT" --compare "thrift://127.0.0.1:$REFERENCE_PORT" \
  --workload "$WORKLOADS" --mode latency,throughput --connections 1,4,16 \
  --seconds "$SECONDS_EACH" --warmup "$WARMUP" --csv-out "$REPORT/bench.csv" \
  | tee -a "$REPORT/bench.txt"
echo "==> report: $REPORT/bench.txt and $REPORT/bench.csv"
