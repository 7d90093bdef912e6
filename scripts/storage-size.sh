#!/usr/bin/env bash
# What a store takes on disk against its live data after issue 30's write pattern: a table of
# PARTITIONS partitions (2 keys, 20 columns, 3 parameters each), then CALLS single-partition
# `update_partition_column_statistics` calls of 4 columns (bench's stats_update workload), as
# planners' ANALYZE after every insert makes them. One command:
#
#   scripts/storage-size.sh [DIR]        (default DIR: target/storage-size)
#
# Starts `target/release/hivestore serve` on a free loopback port with a fresh data directory
# of its own for each figure, prints `hivestore stats` after the partitions are added, then after the writes (with
# the bytes the server wrote to disk for them, from /proc), and again after a restart (the
# figures of docs/benchmarks/storage-size.md).
# Env: PARTITIONS (default 10000), CALLS (default 40000), HIVESTORE (default
#      target/release/hivestore), UNCOMPRESSED=1 (the stores start with sled's log
#      uncompressed, as stores made before compression: the "before" figures), RECENT_SLOTS
#      (passed as `serve --stats-recent-slots`; 0 rewrites statistics chunks at every write, as
#      before recent slots).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="${1:-target/storage-size}"
PARTITIONS="${PARTITIONS:-10000}"
CALLS="${CALLS:-40000}"
HIVESTORE="${HIVESTORE:-target/release/hivestore}"
rm -rf "$DIR" && mkdir -p "$DIR"
DATA="$DIR/data-added"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
PID=""
start() {
  if [ "${UNCOMPRESSED:-0}" = 1 ] && [ ! -e "$DATA/conf" ]; then
    # sled's storage parameters as a store made without compression recorded them.
    mkdir -p "$DATA"
    python3 -c 'import sys, zlib, struct
text = b"segment_size: 524288\nuse_compression: false\nversion: 0.34\n"
open(sys.argv[1], "wb").write(text + struct.pack("<I", zlib.crc32(text)))' "$DATA/conf"
  fi
  "$HIVESTORE" serve --data-dir "$DATA" --warehouse "$DIR/warehouse" --listen "127.0.0.1:$PORT" \
    ${RECENT_SLOTS:+--stats-recent-slots "$RECENT_SLOTS"} >>"$DIR/server.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 100); do
    (echo >/dev/tcp/127.0.0.1/"$PORT") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "hivestore did not open port $PORT"; exit 1
}
# What the server wrote to its disk (the kernel's count of the process's write_bytes).
written() { [ -n "$PID" ] && awk '/^write_bytes/ {print $2}' "/proc/$PID/io" 2>/dev/null || echo 0; }
stop() { [ -n "$PID" ] && kill "$PID" && wait "$PID" || true; PID=""; }
trap stop EXIT
bench() {
  "$HIVESTORE" bench --uri "thrift://127.0.0.1:$PORT" --workload stats_update \
    --partitions "$PARTITIONS" --calls "$1" --warmup 0 --seconds 3600 --tables 1 \
    --keep-database >>"$DIR/bench.txt" 2>>"$DIR/bench.log"
}
# bench drops a kept database when it starts, so each figure has a store of its own.
start
bench 1
TABLE_WRITTEN="$(written)"
stop
echo "== after adding $PARTITIONS partitions (and 1 statistics write)"
"$HIVESTORE" stats --data-dir "$DATA"
DATA="$DIR/data-written"
start
bench "$CALLS"
WRITTEN="$(written)"
stop
echo "== after adding $PARTITIONS partitions and $CALLS single-partition statistics writes"
# Less what the first store's server wrote for the table and its one call.
echo "the server wrote $((WRITTEN - TABLE_WRITTEN)) bytes to disk for the calls" \
  "($(( (WRITTEN - TABLE_WRITTEN) / CALLS )) a call; $TABLE_WRITTEN for the table)"
"$HIVESTORE" stats --data-dir "$DATA"
start
stop
echo "== after a restart"
"$HIVESTORE" stats --data-dir "$DATA"
