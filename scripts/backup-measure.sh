#!/usr/bin/env bash
# Measures backups of a store of PARTITIONS partitions (docs/backups.md): `hivestore bench`
# fills a store through the Thrift API and keeps it, then dump, restore and check are timed on
# the stopped store, and the write latency of `create_drop_table` is measured without and with
# an online backup (SIGUSR1) running. Everything is made under WORK and deleted at the end.
#
#   scripts/backup-measure.sh [WORK] [PARTITIONS]     # defaults: /tmp/hivestore-backup-measure 1000000
set -euo pipefail

WORK=${1:-/tmp/hivestore-backup-measure}
PARTITIONS=${2:-1000000}
BIN=${HIVESTORE_BIN:-target/release/hivestore}
PORT=${PORT:-19183}
LATENCY_SECONDS=${LATENCY_SECONDS:-20}

rm -rf "$WORK"
mkdir -p "$WORK"
trap 'if [[ -n "${SERVER:-}" ]]; then kill "$SERVER" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT

start() {
    "$BIN" serve --listen "127.0.0.1:$PORT" --data-dir "$WORK/data" --warehouse "$WORK/wh" \
        --backup-dir "$WORK/backups" "$@" >"$WORK/serve.log" 2>&1 &
    SERVER=$!
    for _ in $(seq 1 300); do
        if (echo >"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then return; fi
        sleep 0.1
    done
    echo "the server did not start"; cat "$WORK/serve.log"; exit 1
}

stop() {
    kill -TERM "$SERVER"
    wait "$SERVER" || true
    SERVER=
}

timed() {
    local start end
    start=$(date +%s.%N)
    "$@"
    end=$(date +%s.%N)
    echo "  took $(echo "$end - $start" | bc) s"
}

echo "== filling a store of $PARTITIONS partitions"
start
timed "$BIN" bench --uri "thrift://127.0.0.1:$PORT" --workload get_partition_names \
    --partitions "$PARTITIONS" --calls 1 --warmup 0 --keep-database >/dev/null
stop
"$BIN" stats --data-dir "$WORK/data" | tail -4

echo "== dump (zstd) to a file"
timed "$BIN" dump --data-dir "$WORK/data" --out "$WORK/store.dump"
ls -l "$WORK/store.dump"
echo "== dump (uncompressed) to a pipe"
timed bash -c "'$BIN' dump --data-dir '$WORK/data' --out - --no-compression | wc -c"
echo "== restore"
timed "$BIN" restore --in "$WORK/store.dump" --data-dir "$WORK/restored"
du -sb "$WORK/restored"
echo "== check"
timed "$BIN" check --data-dir "$WORK/restored"
rm -rf "$WORK/restored"

echo "== write latency (create_drop_table), no backup"
start
"$BIN" bench --uri "thrift://127.0.0.1:$PORT" --workload create_drop_table --mode latency \
    --seconds "$LATENCY_SECONDS" --database backup_measure
echo "== write latency (create_drop_table), online backups back to back"
(
    sleep 1
    for _ in $(seq 1 20); do
        kill -USR1 "$SERVER" 2>/dev/null || exit 0
        sleep 1
    done
) &
"$BIN" bench --uri "thrift://127.0.0.1:$PORT" --workload create_drop_table --mode latency \
    --seconds "$LATENCY_SECONDS" --database backup_measure
grep "backup written" "$WORK/serve.log" | tail -3 || echo "no backup finished during the measurement"
ls -l "$WORK/backups"
stop
