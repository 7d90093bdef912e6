#!/usr/bin/env bash
# Measures `hivestore import`: starts a source metastore on 127.0.0.1, fills one table with
# PARTITIONS partitions (two columns of statistics on each), imports it into a temporary data
# directory and prints the import's last progress line and its wall time. Deletes what it made.
#
# usage: scripts/import-rate.sh hivestore|reference [PARTITIONS] [import flags...]
#   hivestore  a `hivestore serve` from target/release as the source
#   reference  Apache's HMS 2.3.10 (/work/shared/tools/reference-hms/start.sh; needs Java)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KIND="${1:?usage: import-rate.sh hivestore|reference [PARTITIONS] [import flags...]}"
PARTITIONS="${2:-10000}"
shift; [ $# -gt 0 ] && shift
BIN="$ROOT/target/release/hivestore"
PYTHON="$ROOT/.venv/bin/python"
WORK="$(mktemp -d /tmp/import-rate.XXXXXX)"
PORT="$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
SOURCE_PID=""
cleanup() {
  [ -n "$SOURCE_PID" ] && kill "$SOURCE_PID" 2>/dev/null && wait "$SOURCE_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
case "$KIND" in
  hivestore)
    "$BIN" serve --listen "127.0.0.1:$PORT" --data-dir "$WORK/source" --warehouse "$WORK/wh" \
      > "$WORK/source.log" 2>&1 &
    SOURCE_PID=$!
    for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
    ;;
  reference)
    PYSPARK_VENV="$(cd "$ROOT/.venv" && pwd -P)" /work/shared/tools/reference-hms/start.sh "$PORT" "$WORK/ref"
    SOURCE_PID="$(cat "$WORK/ref/hms.pid")"
    ;;
  *) echo "unknown source $KIND: hivestore or reference"; exit 1 ;;
esac
# Apache's HMS on Derby is slow to add partitions: smaller calls, each within the timeout.
FILL_BATCH=1000; [ "$KIND" = reference ] && FILL_BATCH=200
"$PYTHON" - "$PORT" "$PARTITIONS" "$FILL_BATCH" <<'PY'
import sys, time
sys.path.insert(0, "tests/python")
import hms_helpers
from hms_helpers import Server, connected, make_table
from hive_metastore.ttypes import (ColumnStatistics, ColumnStatisticsData, ColumnStatisticsDesc,
    ColumnStatisticsObj, Database, FieldSchema, LongColumnStatsData, Partition,
    SetPartitionsStatsRequest, StringColumnStatsData)
port, count, batch = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
hms_helpers.SOCKET_TIMEOUT_S = 600  # Derby under load takes its time
started = time.time()
with connected(Server("127.0.0.1", port)) as client:
    client.create_database(Database(name="rate", parameters={}))
    client.create_table(make_table("rate", "t", partition_keys=[FieldSchema("ds", "string", None)]))
    sd = client.get_table("rate", "t").sd
    for start in range(0, count, batch):
        values = range(start, min(start + batch, count))
        client.add_partitions([Partition(values=[f"d{v:07d}"], dbName="rate", tableName="t",
                                         sd=sd, parameters={"n": str(v)}) for v in values])
        stats = [ColumnStatistics(
            statsDesc=ColumnStatisticsDesc(isTblLevel=False, dbName="rate", tableName="t",
                                           partName=f"ds=d{v:07d}"),
            statsObj=[ColumnStatisticsObj("id", "int", ColumnStatisticsData(
                          longStats=LongColumnStatsData(lowValue=0, highValue=v, numNulls=0, numDVs=v + 1))),
                      ColumnStatisticsObj("name", "string", ColumnStatisticsData(
                          stringStats=StringColumnStatsData(maxColLen=9, avgColLen=4.5, numNulls=1, numDVs=7)))],
            engine="hive") for v in values]
        client.set_aggr_stats_for(SetPartitionsStatsRequest(colStats=stats, needMerge=False))
print(f"filled {count} partitions in {time.time() - started:.0f} s", file=sys.stderr)
PY
uptime
/usr/bin/time -f "import took %e s wall, %U s user, %S s system" \
  "$BIN" import --from "thrift://127.0.0.1:$PORT" --data-dir "$WORK/copy" --warehouse "$WORK/wh" "$@" \
  2> "$WORK/import.log" || { tail -20 "$WORK/import.log"; exit 1; }
grep "^import:" "$WORK/import.log" | tail -1
tail -1 "$WORK/import.log"
