#!/usr/bin/env bash
# What counting and serving metrics costs the metastore port: the same `hivestore bench` run,
# side by side (`--compare`), against two servers started alike, one with `--metrics-listen`
# and scraped every second during the run, one without (the figures of
# docs/benchmarks/metrics.md). One command:
#
#   scripts/bench-metrics.sh [DIR]        (default DIR: target/bench-metrics)
#
# The counters themselves are counted in both servers (they serve fb303 too); what differs is
# the listener and the scrapes. To measure the counting too, give BASELINE, a binary built
# before it (without the latency histogram and byte counts), for the server without metrics.
# Env: WORKLOAD (default get_table,get_all_databases: small calls, where a fixed cost per call
# shows most), CONNECTIONS (default 1,4), BENCH_SECONDS (default 5), HIVESTORE (default
# target/release/hivestore), BASELINE (default HIVESTORE).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="${1:-target/bench-metrics}"
WORKLOAD="${WORKLOAD:-get_table,get_all_databases}"
CONNECTIONS="${CONNECTIONS:-1,4}"
SECONDS_EACH="${BENCH_SECONDS:-5}"
HIVESTORE="${HIVESTORE:-target/release/hivestore}"
BASELINE="${BASELINE:-$HIVESTORE}"
rm -rf "$DIR" && mkdir -p "$DIR"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PLAIN_PORT="$(free_port)"
METERED_PORT="$(free_port)"
METRICS_PORT="$(free_port)"
PIDS=()
start() { # BINARY NAME PORT [ARGS...]
  local binary="$1" name="$2" port="$3"
  shift 3
  "$binary" serve --data-dir "$DIR/$name/data" --warehouse "$DIR/$name/warehouse" \
    --listen "127.0.0.1:$port" "$@" >>"$DIR/$name.log" 2>&1 &
  PIDS+=("$!")
  for _ in $(seq 1 100); do
    (echo >/dev/tcp/127.0.0.1/"$port") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "hivestore ($name) did not open port $port"; exit 1
}
stop() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" || true; done; }
trap stop EXIT
start "$BASELINE" plain "$PLAIN_PORT"
start "$HIVESTORE" metered "$METERED_PORT" --metrics-listen "127.0.0.1:$METRICS_PORT"
# Scrapes once a second, bounded: at most an hour's worth, ended with the run.
( for _ in $(seq 1 3600); do
    python3 -c 'import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read()' \
      "$METRICS_PORT" 2>>"$DIR/scrape.log" && echo ok >>"$DIR/scrapes" || true
    sleep 1
  done ) &
SCRAPER=$!
"$HIVESTORE" bench --uri "thrift://127.0.0.1:$PLAIN_PORT" \
  --compare "thrift://127.0.0.1:$METERED_PORT" --workload "$WORKLOAD" \
  --mode latency,throughput --connections "$CONNECTIONS" --seconds "$SECONDS_EACH" \
  | tee "$DIR/bench.txt"
kill "$SCRAPER" 2>/dev/null || true
wait "$SCRAPER" 2>/dev/null || true
echo "scrapes during the run: $(wc -l <"$DIR/scrapes" 2>/dev/null || echo 0)"
