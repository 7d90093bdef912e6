#!/usr/bin/env bash
# hivestore against Apache's Java Hive Metastore (2.3.10, the reference), measured the same way
# by `hivestore bench`, side by side. One command:
#
#   scripts/bench-vs-java.sh [tables|partitions|stats|hmsbench|all]      (default: tables)
#
# Builds hivestore (release), starts it and the reference HMS on free loopback ports with fresh
# data, runs the suite, writes the report under target/bench-report/, and stops both servers
# (also on failure or Ctrl-C). Client and servers share the machine and talk over loopback only.
#
# tables:     get_table and get_table_req in latency mode (one connection) and throughput mode
#             (1, 4 and 16 connections); bench.txt (the table and the machine) and bench.csv.
# partitions: the partition workloads on a table of 2 keys and 20 columns at 10,000 and 100,000
#             partitions (BENCH_PARTITIONS), in latency mode, on each server in turn: the
#             listings and planners (with the loopback limit and the ratio to it), the
#             server's peak RSS (VmHWM) after them, then add_partitions on its own;
#             partitions.txt (all of it, and a side-by-side table), partitions-hivestore.csv,
#             partitions-java.csv, and -add.csv of each.
# stats:      column statistics on a table of 2 keys and 20 columns with statistics for 5
#             columns of every partition, at 10,000 partitions (STATS_PARTITIONS), on each
#             server in turn: get_aggr_stats_for and get_partitions_statistics_req over every
#             partition, set_aggr_stats_for of 1,000 partitions a call; stats.txt (all of it,
#             and a side-by-side table), stats-hivestore.csv and stats-java.csv.
# hmsbench:   every benchmark of Apache's hmsbench (and its ACID ones) by its names, at its sizes
#             -N = HMSBENCH_NUMBERS (default 100,1000,10000), in latency mode, on each server in
#             turn, with the planners (trino_plan, spark_plan, hive_plan) at the same partition counts; the
#             Java HMS's writes at JAVA_WRITE_NUMBERS only (default 100,1000: each sample of a
#             write at N sets up and removes N objects, minutes a sample at 10,000 there);
#             then the chart (hmsbench.svg, median latency, log scale, scripts/bench-chart.py)
#             and the independent check of get_table from Python against the Java HMS
#             (python-check.txt, scripts/bench-python-check.py); hmsbench.txt has it all,
#             hmsbench-{hivestore,java}{,-writes}.csv the rows.
#
# Env: BENCH_SECONDS        time bound of each measurement (default 5)
#      BENCH_WARMUP         unmeasured calls per connection first (default 500; bounded by
#                           BENCH_SECONDS too)
#      BENCH_WORKLOADS      workloads (default get_table,get_table_req)
#      JVM_WARMUP_SECONDS   an unreported run of each workload against the Java HMS first, so
#                           that its JIT has compiled the call paths (default 15; 0 skips it;
#                           tables suite only: the partition workloads warm up in their own
#                           measurements, BENCH_PARTITION_WARMUP calls each)
#      BENCH_PARTITIONS     partition counts of the partitions suite (default 10000,100000)
#      JAVA_PARTITIONS      the same for the Java HMS (default BENCH_PARTITIONS): on a loaded
#                           2-core machine it adds some 20 partitions/s and drops about as
#                           slowly, so 100,000 take hours there
#      STATS_PARTITIONS     partition counts of the stats suite (default 10000)
#      BENCH_PARTITION_WARMUP  unmeasured samples before each partition measurement (default 3;
#                           bounded by BENCH_SECONDS too)
#      BENCH_CALL_TIMEOUT   seconds one measured call may take before it counts as failed
#                           (default 600; bench's own default is 60)
#      HMSBENCH_NUMBERS     hmsbench's -N sizes (default 100,1000,10000)
#      JAVA_HMSBENCH_NUMBERS   the same for the Java HMS's reads (default HMSBENCH_NUMBERS)
#      JAVA_WRITE_NUMBERS   the Java HMS's sizes for the writes (default 100,1000)
#      HMSBENCH_WARMUP      unmeasured samples before each hmsbench measurement (default 3,
#                           bounded by BENCH_SECONDS too; hmsbench's own default is 15)
#      HMS_HEAP             the Java HMS's heap (default 4g: get_partitions of 100k partitions
#                           builds them all in memory)
#      PYSPARK_VENV         venv with pyspark 4.3.0 for the reference (default: the repository's
#                           .venv, made by scripts/test.sh; start.sh makes one if it is missing)
#      REFERENCE_HMS_START  the reference's start script
#                           (default /work/shared/tools/reference-hms/start.sh)
#      CARGO_TARGET_DIR     where cargo builds (default target/)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

SUITE="${1:-tables}"
case "$SUITE" in
  tables|partitions|stats|hmsbench|all) ;;
  *) echo "usage: $0 [tables|partitions|stats|hmsbench|all]"; exit 2 ;;
esac

SECONDS_EACH="${BENCH_SECONDS:-5}"
# The Java HMS takes minutes for some single calls here (add_partitions of 1,000 under load).
CALL_TIMEOUT="${BENCH_CALL_TIMEOUT:-600}"
WARMUP="${BENCH_WARMUP:-500}"
WORKLOADS="${BENCH_WORKLOADS:-get_table,get_table_req}"
JVM_WARMUP_SECONDS="${JVM_WARMUP_SECONDS:-15}"
PARTITIONS="${BENCH_PARTITIONS:-10000,100000}"
JAVA_PARTITIONS="${JAVA_PARTITIONS:-$PARTITIONS}"
PARTITION_WARMUP="${BENCH_PARTITION_WARMUP:-3}"
STATS_PARTITIONS="${STATS_PARTITIONS:-10000}"
HMSBENCH_NUMBERS="${HMSBENCH_NUMBERS:-100,1000,10000}"
JAVA_HMSBENCH_NUMBERS="${JAVA_HMSBENCH_NUMBERS:-$HMSBENCH_NUMBERS}"
JAVA_WRITE_NUMBERS="${JAVA_WRITE_NUMBERS:-100,1000}"
HMSBENCH_WARMUP="${HMSBENCH_WARMUP:-3}"
# hmsbench's benchmarks that only read (or open and close transactions), with the planners,
# and those whose samples write N objects (and set them up or remove them, unmeasured).
HMSBENCH_READS='getNid,listDatabases,getTable,createTable,dropTable,commitTxn,listTables,listPartitions,getPartitions,getPartitionNames,getPartitionsByNames,getPartitionsByFilter#simple,getPartitionsByFilter#multiOr,getPartitionsByFilter#multiAnd,getPartitionsByPs,getPartitionsStat,openTxns,abortTxns,lock,getValidWriteIds,allocateTableWriteIds,trino_plan,spark_plan,hive_plan'
HMSBENCH_WRITES='addPartition,addPartitions,dropPartition,dropPartitions,alterPartitions,updatePartitionsStat,renameTable,dropTableWithPartitions,dropTableMetaOnlyWithPartitions,dropDatabase'
STATS_WORKLOADS=stats_aggregate,stats_partitions,stats_write
LISTINGS=get_partition_names,get_partitions,get_partitions_by_filter_leading_key,get_partitions_by_filter_second_key,get_partitions_by_names,trino_plan,spark_plan,hive_plan
export HMS_HEAP="${HMS_HEAP:-4g}"
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

# A process's peak resident set (VmHWM) and current one (VmRSS), from /proc.
memory_of() {
  [ -r "/proc/$1/status" ] || { echo "memory unknown (process $1 gone)"; return; }
  awk '/^VmHWM/ {peak = $2 " " $3} /^VmRSS/ {now = $2 " " $3} END {print "peak RSS " peak ", RSS now " now}' \
    "/proc/$1/status"
}

wait_for_port() {
  for _ in $(seq 1 100); do
    if (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listens on 127.0.0.1:$1"; return 1
}

echo "==> building hivestore (release)"
cargo build --release --quiet -p hivestore-cli --bin hivestore

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

describe_machine() {
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'),"
  echo "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) memory, $(uname -sr); client and both servers on this machine, over loopback."
}

tables_suite() {
  {
    echo "hivestore bench: hivestore against the Java HMS (Hive 2.3.10, Derby), $(date -u +%Y-%m-%dT%H:%MZ)"
    describe_machine
    echo "Each measurement: ${SECONDS_EACH} s at most after ${WARMUP} warm-up calls per connection; latency mode also stops at 100,000 calls."
    echo "The Java HMS first ran each workload unreported for ${JVM_WARMUP_SECONDS} s on 4 connections (JIT warm-up)."
    echo "Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
  } > "$REPORT/bench.txt"

  if [ "$JVM_WARMUP_SECONDS" != 0 ]; then
    echo "==> warming the Java HMS up: ${WORKLOADS} on 4 connections, ${JVM_WARMUP_SECONDS} s each, not reported"
    "$BIN" bench --call-timeout "$CALL_TIMEOUT" --uri "thrift://127.0.0.1:$REFERENCE_PORT" --workload "$WORKLOADS" \
      --mode throughput --connections 4 --seconds "$JVM_WARMUP_SECONDS" --warmup 0 > /dev/null
  fi

  echo "==> measuring (${WORKLOADS}; latency, then throughput at 1, 4, 16 connections; ${SECONDS_EACH} s each)"
  "$BIN" bench --call-timeout "$CALL_TIMEOUT" --uri "thrift://127.0.0.1:$HIVESTORE_PORT" --compare "thrift://127.0.0.1:$REFERENCE_PORT" \
    --workload "$WORKLOADS" --mode latency,throughput --connections 1,4,16 \
    --seconds "$SECONDS_EACH" --warmup "$WARMUP" --csv-out "$REPORT/bench.csv" \
    | tee -a "$REPORT/bench.txt"
  echo "==> report: $REPORT/bench.txt and $REPORT/bench.csv"
}

# The listings and planners at each size on hivestore (its table grows from one size to the
# next, then is dropped), its memory after them, then add_partitions alone (so that its
# scratch tables do not count in the listings' memory); then the same on the Java HMS; then
# the two side by side. Separate runs rather than --compare, so that each server's memory is
# read right after its own run and each can have its own sizes.
partitions_suite() {
  local report="$REPORT/partitions.txt"
  local reference_pid
  reference_pid="$(cat "$WORK/reference/hms.pid")"
  {
    echo "hivestore bench: partition workloads, hivestore against the Java HMS (Hive 2.3.10, Derby, heap ${HMS_HEAP}), $(date -u +%Y-%m-%dT%H:%MZ)"
    describe_machine
    echo "Table: 20 columns, partitioned by ds string (one value a day) and hr int (24 a day), added 1,000 partitions per add_partitions call;"
    echo "hivestore at ${PARTITIONS} partitions, the Java HMS at ${JAVA_PARTITIONS}."
    echo "Each measurement: ${SECONDS_EACH} s at most (and at least one call) after ${PARTITION_WARMUP} warm-up calls; one connection."
    echo "loopback: the same reply bytes per call through a loopback socket between two threads of the bench, 64 KiB reads, no decoding."
    echo "bench CPU: the share of hivestore's mean call time that the bench's own thread spent on the CPU (request, reading, decoding the reply)."
    echo "Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)."
  } > "$report"
  measure_partitions hivestore "$HIVESTORE_PORT" "$HIVESTORE_PID" "$PARTITIONS"
  measure_partitions java "$REFERENCE_PORT" "$reference_pid" "$JAVA_PARTITIONS"
  echo | tee -a "$report"
  compare_partitions partitions | tee -a "$report"
  echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)." | tee -a "$report"
  echo "==> report: $report and $REPORT/partitions-{hivestore,java}{,-add}.csv"
}

# measure_partitions NAME PORT PID SIZES: the listings, the server's memory, add_partitions.
measure_partitions() {
  local name="$1" port="$2" pid="$3" sizes="$4" report="$REPORT/partitions.txt"
  echo "==> $name: partition listings at $sizes partitions (setup progress on stderr)"
  echo | tee -a "$report"
  "$BIN" bench --call-timeout "$CALL_TIMEOUT" --uri "thrift://127.0.0.1:$port" --workload "$LISTINGS" --partitions "$sizes" \
    --mode latency --seconds "$SECONDS_EACH" --warmup "$PARTITION_WARMUP" \
    --csv-out "$REPORT/partitions-$name.csv" | tee -a "$report"
  echo "$name after the listings (its table at the largest size, then dropped): $(memory_of "$pid")" \
    | tee -a "$report"
  echo "==> $name: add_partitions at $sizes partitions"
  "$BIN" bench --call-timeout "$CALL_TIMEOUT" --uri "thrift://127.0.0.1:$port" --workload add_partitions --partitions "$sizes" \
    --mode latency --seconds "$SECONDS_EACH" --warmup 1 \
    --csv-out "$REPORT/partitions-$name-add.csv" | tee -a "$report"
}

# Each step measured on both, side by side: p50, partitions/s, the ratio to loopback, and the
# share of hivestore's call time the bench itself spent on the CPU (mostly decoding the reply).
# compare_partitions PREFIX: from PREFIX-{hivestore,java}{,-add}.csv.
compare_partitions() {
  python3 - "$REPORT" "$1" <<'PY'
import csv, sys
report, prefix = sys.argv[1], sys.argv[2]
def rows(name):
    found = {}
    for suffix in ("", "-add"):
        try:
            with open(f"{report}/{prefix}-{name}{suffix}.csv") as file:
                for row in csv.DictReader(file):
                    found[(row["workload"], row["table_partitions"])] = row
        except FileNotFoundError:
            pass
    return found
ours, theirs = rows("hivestore"), rows("java")
def cell(row):
    if row is None:
        return "not run", "", ""
    if row["status"] != "ok":
        return row["status"], "", ""
    return f'{float(row["p50_us"]) / 1000:.2f} ms', f'{float(row["partitions_per_second"]):,.0f}', row["loopback_ratio"] or "-"
def bench_share(row):
    if row is None or row["status"] != "ok" or not row["client_cpu_us_per_call"]:
        return ""
    return f'{float(row["client_cpu_us_per_call"]) / max(float(row["mean_us"]), 1e-9):.0%}'
def times(ratio):
    return f"{ratio:,.1f}x" if ratio < 10 else f"{ratio:,.0f}x"
print("| workload | partitions | hivestore p50 | partitions/s | of loopback | bench CPU | Java HMS p50 | partitions/s | of loopback | p50 ratio |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for key in sorted(set(ours) | set(theirs), key=lambda key: (int(key[1] or 0), key[0])):
    mine, other = ours.get(key), theirs.get(key)
    ratio = ""
    if mine and other and mine["status"] == other["status"] == "ok" and float(mine["p50_us"]) > 0:
        ratio = times(float(other["p50_us"]) / float(mine["p50_us"]))
    print("| " + " | ".join([f"`{key[0]}`", f"{int(key[1]):,}", *cell(mine), bench_share(mine), *cell(other), ratio]) + " |")
PY
}

# Column statistics on each server in turn (the setup writes every partition's statistics
# with set_aggr_stats_for, 500 partitions a call), then side by side.
stats_suite() {
  local report="$REPORT/stats.txt" name port
  {
    echo "hivestore bench: column statistics, hivestore against the Java HMS (Hive 2.3.10, Derby, heap ${HMS_HEAP}), $(date -u +%Y-%m-%dT%H:%MZ)"
    describe_machine
    echo "Table: 20 columns, partitioned by ds string and hr int, ${STATS_PARTITIONS} partitions, statistics for 5 columns (bigint, int, string, double, boolean) of every partition."
    echo "stats_aggregate: get_aggr_stats_for of every partition and the 5 columns; stats_partitions: get_partitions_statistics_req of the same;"
    echo "stats_write: set_aggr_stats_for of 1,000 partitions x 5 columns a call (partitions/s is statistics of partitions written a second)."
    echo "Each measurement: ${SECONDS_EACH} s at most (and at least one call) after ${PARTITION_WARMUP} warm-up calls; one connection."
    echo "Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)."
  } > "$report"
  for name in hivestore java; do
    port="$HIVESTORE_PORT"; [ "$name" = java ] && port="$REFERENCE_PORT"
    echo "==> $name: $STATS_WORKLOADS at $STATS_PARTITIONS partitions (setup progress on stderr)"
    echo | tee -a "$report"
    "$BIN" bench --call-timeout "$CALL_TIMEOUT" --uri "thrift://127.0.0.1:$port" --workload "$STATS_WORKLOADS" \
      --partitions "$STATS_PARTITIONS" --mode latency --seconds "$SECONDS_EACH" --warmup "$PARTITION_WARMUP" \
      --csv-out "$REPORT/stats-$name.csv" | tee -a "$report"
  done
  echo | tee -a "$report"
  compare_partitions stats | tee -a "$report"
  echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)." | tee -a "$report"
  echo "==> report: $report and $REPORT/stats-{hivestore,java}.csv"
}

# hmsbench's suite on one server: the reads at its sizes, then the writes at its write sizes.
# measure_hmsbench NAME PORT NUMBERS WRITE_NUMBERS
measure_hmsbench() {
  local name="$1" port="$2" numbers="$3" write_numbers="$4" report="$REPORT/hmsbench.txt"
  echo "==> $name: hmsbench reads and the planners at N = $numbers" | tee -a "$report"
  "$BIN" bench --call-timeout "$CALL_TIMEOUT" --uri "thrift://127.0.0.1:$port" --workload "$HMSBENCH_READS" --number "$numbers" \
    --partitions "$numbers" --mode latency --seconds "$SECONDS_EACH" --warmup "$HMSBENCH_WARMUP" \
    --csv-out "$REPORT/hmsbench-$name.csv" | tee -a "$report"
  echo "==> $name: hmsbench writes at N = $write_numbers" | tee -a "$report"
  "$BIN" bench --call-timeout "$CALL_TIMEOUT" --uri "thrift://127.0.0.1:$port" --workload "$HMSBENCH_WRITES" --number "$write_numbers" \
    --mode latency --seconds "$SECONDS_EACH" --warmup "$HMSBENCH_WARMUP" \
    --csv-out "$REPORT/hmsbench-$name-writes.csv" | tee -a "$report"
}

hmsbench_suite() {
  local report="$REPORT/hmsbench.txt" started
  started="$(date +%s)"
  {
    echo "hivestore bench: Apache hmsbench's benchmarks, hivestore against the Java HMS (Hive 2.3.10, Derby, heap ${HMS_HEAP}), $(date -u +%Y-%m-%dT%H:%MZ)"
    describe_machine
    echo "hivestore at N = ${HMSBENCH_NUMBERS}; the Java HMS at N = ${JAVA_HMSBENCH_NUMBERS}, its writes at ${JAVA_WRITE_NUMBERS}."
    echo "Each measurement: one connection, ${SECONDS_EACH} s at most (and at least one sample) after ${HMSBENCH_WARMUP} warm-up samples at most;"
    echo "only the sample's calls are timed (hmsbench's pre and post are not). Latencies in microseconds."
    echo "Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
  } > "$report"
  measure_hmsbench hivestore "$HIVESTORE_PORT" "$HMSBENCH_NUMBERS" "$HMSBENCH_NUMBERS"
  measure_hmsbench java "$REFERENCE_PORT" "$JAVA_HMSBENCH_NUMBERS" "$JAVA_WRITE_NUMBERS"
  echo "==> chart: $REPORT/hmsbench.svg"
  python3 "$ROOT/scripts/bench-chart.py" "$REPORT/hmsbench.svg" \
    "hivestore=$REPORT/hmsbench-hivestore.csv,$REPORT/hmsbench-hivestore-writes.csv" \
    "Java HMS 2.3.10=$REPORT/hmsbench-java.csv,$REPORT/hmsbench-java-writes.csv" \
    --title "hmsbench's benchmarks: hivestore against the Java HMS 2.3.10 (one connection, p50)" \
    --markdown "$REPORT/hmsbench.md"
  echo "==> the Java HMS's get_table timed from Python too: $REPORT/python-check.txt"
  "$PYSPARK_VENV/bin/python" "$ROOT/scripts/bench-python-check.py" \
    --uri "thrift://127.0.0.1:$REFERENCE_PORT" --bench "$BIN" --calls 2000 --seconds "$((SECONDS_EACH * 4))" \
    | tee "$REPORT/python-check.txt" | tee -a "$report"
  echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(( ($(date +%s) - started) / 60 )) min." | tee -a "$report"
  echo "==> report: $report, $REPORT/hmsbench.svg and $REPORT/hmsbench-*.csv"
}

case "$SUITE" in
  tables) tables_suite ;;
  partitions) partitions_suite ;;
  stats) stats_suite ;;
  hmsbench) hmsbench_suite ;;
  all) tables_suite; partitions_suite; stats_suite; hmsbench_suite ;;
esac
