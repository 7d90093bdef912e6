#!/usr/bin/env bash
# Issue 30's last target: hivestore's data directory against the Java HMS's Derby database with
# Hive's notification listener on, after the same workload, both servers run side by side: a
# table of PARTITIONS partitions (2 keys, 20 columns, 3 parameters each), then CALLS
# single-partition `update_partition_column_statistics` calls of 4 columns (bench's
# stats_update workload). One command:
#
#   HCAT_LISTENER_JAR=/path/to/listener.jar scripts/derby-size.sh [DIR]
#
# The listener: `org.apache.hive.hcatalog.listener.DbNotificationListener`, which Hive ships in
# hive-hcatalog-server-extensions, a jar the reference HMS (pyspark's jars) lacks. Build one
# outside this repository: compile that class (Hive 2.3's source, or a class of that name that
# logs each listener event as Hive's does, a NOTIFICATION_LOG row through
# `HMSHandler.getMSForConf(conf).addNotificationEvent` with the message of Hive's
# `MessageFactory`) with `javac -cp "PYSPARK/jars/*"`, then `jar cf listener.jar -C classes .`.
# Without HCAT_LISTENER_JAR the script says so and stops.
#
# Starts the reference HMS (/work/shared/tools/reference-hms/start.sh, or REFERENCE_HMS) with
# the listener's classes on its class path and `hive.metastore.event.listeners` set in
# `hivemetastore-site.xml`, and `target/release/hivestore serve`, each on a fresh directory
# and a free loopback port; runs `hivestore bench` against both at once; stops both; prints the
# sizes of Derby's directory and hivestore's data directory (without its disk reserve), and
# each side's notification event id.
# Env: PARTITIONS (default 10000), CALLS (default 5000), HIVESTORE (default
#      target/release/hivestore), PYTHON (default .venv/bin/python), REFERENCE_HMS,
#      PYSPARK_VENV (passed to start.sh; default .venv, which holds pyspark).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${HCAT_LISTENER_JAR:-}" ] || [ ! -f "$HCAT_LISTENER_JAR" ]; then
  echo "derby-size: set HCAT_LISTENER_JAR to a jar holding" \
    "org.apache.hive.hcatalog.listener.DbNotificationListener (see this script's header)"
  exit 2
fi
DIR="${1:-target/derby-size}"
PARTITIONS="${PARTITIONS:-10000}"
CALLS="${CALLS:-5000}"
HIVESTORE="${HIVESTORE:-target/release/hivestore}"
PYTHON="${PYTHON:-.venv/bin/python}"
REFERENCE_HMS="${REFERENCE_HMS:-/work/shared/tools/reference-hms/start.sh}"
export PYSPARK_VENV="${PYSPARK_VENV:-$(pwd)/.venv}"
rm -rf "$DIR" && mkdir -p "$DIR/hms/conf"
DIR="$(cd "$DIR" && pwd)"
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
HMS_PORT="$(free_port)"
HS_PORT="$(free_port)"
HS_PID=""
stop() {
  [ -n "$HS_PID" ] && kill "$HS_PID" 2>/dev/null && wait "$HS_PID" 2>/dev/null || true
  HS_PID=""
  if [ -f "$DIR/hms/hms.pid" ]; then
    kill "$(cat "$DIR/hms/hms.pid")" 2>/dev/null || true
    for _ in $(seq 1 60); do
      kill -0 "$(cat "$DIR/hms/hms.pid")" 2>/dev/null || break
      sleep 1
    done
    rm -f "$DIR/hms/hms.pid"
  fi
}
trap stop EXIT
# start.sh puts BASE/conf first on the class path and rewrites only hive-site.xml there; the
# metastore also reads hivemetastore-site.xml.
(cd "$DIR/hms/conf" && unzip -q -o "$HCAT_LISTENER_JAR" 'org/*')
cat >"$DIR/hms/conf/hivemetastore-site.xml" <<'XML'
<?xml version="1.0"?>
<configuration>
  <property><name>hive.metastore.event.listeners</name>
    <value>org.apache.hive.hcatalog.listener.DbNotificationListener</value></property>
</configuration>
XML
# The metastore's schema, made by DataNucleus from hive-metastore's package.jdo, gives
# NOTIFICATION_LOG.MESSAGE Derby's LONG VARCHAR (32,700 characters), too short for the message of
# an add_partitions of 1,000 partitions; Hive's own Derby schema script makes it a CLOB. The two
# notification tables are made first as that script makes them.
JARS="$(echo "$PYSPARK_VENV"/lib/python3*/site-packages/pyspark/jars)"
cat >"$DIR/notification-tables.sql" <<SQL
CONNECT 'jdbc:derby:;databaseName=$DIR/hms/derby;create=true';
CREATE TABLE APP.NOTIFICATION_LOG (NL_ID BIGINT NOT NULL PRIMARY KEY, DB_NAME VARCHAR(128),
  EVENT_ID BIGINT NOT NULL, EVENT_TIME INTEGER NOT NULL, EVENT_TYPE VARCHAR(32) NOT NULL,
  MESSAGE CLOB, TBL_NAME VARCHAR(256), MESSAGE_FORMAT VARCHAR(16));
CREATE TABLE APP.NOTIFICATION_SEQUENCE (NNI_ID BIGINT NOT NULL PRIMARY KEY,
  NEXT_EVENT_ID BIGINT NOT NULL);
EXIT;
SQL
java -Dderby.stream.error.file="$DIR/derby-tables.log" -cp "$JARS/*" org.apache.derby.tools.ij \
  "$DIR/notification-tables.sql" >"$DIR/notification-tables.out"
"$REFERENCE_HMS" "$HMS_PORT" "$DIR/hms"
"$HIVESTORE" serve --data-dir "$DIR/hivestore" --warehouse "$DIR/warehouse" \
  --listen "127.0.0.1:$HS_PORT" >"$DIR/hivestore.log" 2>&1 &
HS_PID=$!
for _ in $(seq 1 100); do
  (echo >/dev/tcp/127.0.0.1/"$HS_PORT") 2>/dev/null && break
  sleep 0.1
done
bench() {
  "$HIVESTORE" bench --uri "thrift://127.0.0.1:$1" --workload stats_update \
    --partitions "$PARTITIONS" --calls "$CALLS" --warmup 0 --seconds 3600 --tables 1 \
    --call-timeout 600 --keep-database >"$DIR/bench-$2.txt" 2>"$DIR/bench-$2.log"
}
bench "$HMS_PORT" java & JAVA_BENCH=$!
bench "$HS_PORT" hivestore & HS_BENCH=$!
wait "$JAVA_BENCH" "$HS_BENCH"
event_id() {
  "$PYTHON" - "$1" <<'PY'
import sys
from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport
from hive_metastore import ThriftHiveMetastore
transport = TTransport.TBufferedTransport(TSocket.TSocket("127.0.0.1", int(sys.argv[1])))
transport.open()
client = ThriftHiveMetastore.Client(TBinaryProtocol.TBinaryProtocol(transport))
print(client.get_current_notificationEventId().eventId)
transport.close()
PY
}
echo "Java HMS notification event id: $(event_id "$HMS_PORT")"
echo "hivestore notification event id: $(event_id "$HS_PORT")"
stop
echo "== after $PARTITIONS partitions and $CALLS single-partition statistics writes"
echo "Derby (derby/): $(du -sb "$DIR/hms/derby" | cut -f1) bytes" \
  "(seg0 $(du -sb "$DIR/hms/derby/seg0" | cut -f1), log $(du -sb "$DIR/hms/derby/log" | cut -f1))"
"$HIVESTORE" stats --data-dir "$DIR/hivestore"
grep -h "calls/s\|throughput" "$DIR"/bench-*.txt || true
