#!/usr/bin/env python3
"""The first statistics reads after a server restart, by the server's own clock.

    scripts/stats-after-restart.py setup   DATA_DIR   # a table of 10,000 partitions x 50 columns
    scripts/stats-after-restart.py measure DATA_DIR   # restart the server, time the first calls

`measure` starts `hivestore serve` on DATA_DIR (ROUNDS times, default 3), and on each start
times REPS (default 3) calls of `get_aggr_stats_for` over every partition and column, then of
`get_partitions_statistics_req` of 1,000 partitions x 20 columns whose reply is read raw
(Python's decoding of 20,000 objects would otherwise hold the server's writes back). The
server's time of each call is the difference of its fb303 counter `<method>.server_ns` around
it. PREWARM says when the first call goes: `wait` (default) once the server's statistics
prewarm is over (fb303 counter `statistics_prewarm.done`), `race` as soon as the server
answers (while it prewarms), `off` with the prewarm turned off (`--prewarm-mb 0`). Env:
HIVESTORE_BIN (default target/release/hivestore), PORT (default 19631), PARTITIONS, COLUMNS. Run with the test venv's python (.venv/bin/python): it uses pyiceberg's client.
"""

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))

from hive_metastore import ThriftHiveMetastore  # noqa: E402
from hive_metastore.ttypes import (  # noqa: E402
    ColumnStatistics, ColumnStatisticsData, ColumnStatisticsDesc, ColumnStatisticsObj, Database,
    FieldSchema, LongColumnStatsData, Partition, PartitionsStatsRequest,
    SetPartitionsStatsRequest)
from thrift.protocol import TBinaryProtocol  # noqa: E402
from thrift.transport import TSocket, TTransport  # noqa: E402

from hms_helpers import make_table  # noqa: E402

# The thrift library logs every refused connection while the server starts.
logging.getLogger("thrift").setLevel(logging.CRITICAL)

BIN = os.environ.get("HIVESTORE_BIN", str(ROOT / "target" / "release" / "hivestore"))
PORT = int(os.environ.get("PORT", "19631"))
PARTITIONS = int(os.environ.get("PARTITIONS", "10000"))
COLUMNS = int(os.environ.get("COLUMNS", "50"))
READ_PARTITIONS, READ_COLUMNS = 1000, 20
START_TIMEOUT_S = 30
DB, TABLE = "restart_bench", "t"


def serve(data_dir, extra_args=()):
    """Starts the server; returns (process, client, transport) once it answers."""
    process = subprocess.Popen(
        [BIN, "serve", "--listen", f"127.0.0.1:{PORT}", "--data-dir", data_dir,
         "--warehouse", "s3a://bench/warehouse", *extra_args],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        sock = TSocket.TSocket("127.0.0.1", PORT)
        sock.setTimeout(60_000)
        transport = TTransport.TBufferedTransport(sock)
        try:
            transport.open()
        except TTransport.TTransportException:
            time.sleep(0.1)
            continue
        client = ThriftHiveMetastore.Client(TBinaryProtocol.TBinaryProtocol(transport))
        return process, client, transport
    process.kill()
    raise SystemExit(f"{BIN} did not answer within {START_TIMEOUT_S} s")


def stop(process, transport):
    transport.close()
    process.terminate()
    process.wait(timeout=30)


names = [f"ds={index:06d}" for index in range(PARTITIONS)]
columns = [f"c{index}" for index in range(COLUMNS)]


def setup(data_dir):
    process, client, transport = serve(data_dir)
    client.create_database(Database(name=DB, description=None, locationUri=None, parameters={}))
    fields = [FieldSchema(column, "bigint", None) for column in columns]
    client.create_table(make_table(DB, TABLE, fields, [FieldSchema("ds", "string", None)]))
    sd = client.get_table(DB, TABLE).sd
    for start in range(0, PARTITIONS, 1000):
        client.add_partitions([
            Partition(values=[f"{index:06d}"], dbName=DB, tableName=TABLE, sd=sd, parameters={})
            for index in range(start, min(PARTITIONS, start + 1000))])
    for start in range(0, PARTITIONS, 500):
        batch = []
        for index in range(start, min(PARTITIONS, start + 500)):
            objects = [ColumnStatisticsObj(column, "bigint", ColumnStatisticsData(
                longStats=LongColumnStatsData(
                    lowValue=index * 1000 + position, highValue=index * 1000 + position + 500,
                    numNulls=index % 13, numDVs=100 + index % 50)))
                for position, column in enumerate(columns)]
            desc = ColumnStatisticsDesc(isTblLevel=False, dbName=DB, tableName=TABLE,
                                        partName=names[index])
            batch.append(ColumnStatistics(statsDesc=desc, statsObj=objects))
        client.set_aggr_stats_for(SetPartitionsStatsRequest(colStats=batch))
    stop(process, transport)
    print(f"{DB}.{TABLE}: {PARTITIONS} partitions x {COLUMNS} columns with statistics")


def server_ns(client, method):
    return client.getCounters().get(f"{method}.server_ns", 0)


def read_raw(transport):
    """Reads a reply's bytes without decoding them: until the socket is quiet for 0.3 s."""
    sock = transport._TBufferedTransport__trans.handle
    sock.settimeout(0.3)
    received = 0
    try:
        while chunk := sock.recv(1 << 20):
            received += len(chunk)
    except OSError:
        pass
    sock.settimeout(60)
    return received


def measure(data_dir):
    aggregate = PartitionsStatsRequest(dbName=DB, tblName=TABLE, colNames=columns,
                                       partNames=names)
    read = PartitionsStatsRequest(dbName=DB, tblName=TABLE, colNames=columns[:READ_COLUMNS],
                                  partNames=names[:READ_PARTITIONS])
    prewarm = os.environ.get("PREWARM", "wait")
    if prewarm not in ("wait", "race", "off"):
        raise SystemExit(f"PREWARM must be wait, race or off, not {prewarm!r}")
    for round_index in range(int(os.environ.get("ROUNDS", "3"))):
        extra_args = ["--prewarm-mb", "0"] if prewarm == "off" else []
        process, client, transport = serve(data_dir, extra_args)
        timings = []
        if prewarm == "wait":
            deadline = time.monotonic() + START_TIMEOUT_S
            while "statistics_prewarm.done" not in (counters := client.getCounters()):
                if time.monotonic() > deadline:
                    raise SystemExit(f"no prewarm within {START_TIMEOUT_S} s")
                time.sleep(0.01)
            timings.append(f"prewarm {counters.get('statistics_prewarm.ms', 0)} ms")
        client.get_table(DB, TABLE)  # the connection warm, not the statistics
        for method in ("get_aggr_stats_for", "get_partitions_statistics_req"):
            for call in range(int(os.environ.get("REPS", "3"))):
                before = server_ns(client, method)
                if method == "get_aggr_stats_for":
                    assert client.get_aggr_stats_for(aggregate).partsFound == PARTITIONS
                else:
                    client.send_get_partitions_statistics_req(read)
                    assert read_raw(transport) > 0
                took_ms = (server_ns(client, method) - before) / 1e6
                timings.append(f"{method} #{call + 1} {took_ms:.1f} ms")
        print(f"start {round_index + 1} (prewarm {prewarm}): " + "; ".join(timings))
        stop(process, transport)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("setup", "measure"):
        raise SystemExit(__doc__)
    {"setup": setup, "measure": measure}[sys.argv[1]](sys.argv[2])
