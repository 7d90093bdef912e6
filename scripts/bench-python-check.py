#!/usr/bin/env python3
"""An independent check of `hivestore bench`'s numbers: the same call timed from another client.

    .venv/bin/python scripts/bench-python-check.py --uri thrift://127.0.0.1:PORT \
        [--bench target/release/hivestore] [--calls 2000] [--seconds 20]

Against any metastore: creates database `hivestore_pycheck` (marked as bench's; one of that
name without the mark is refused) with a 20-column table of bench's shape, times `get_table`
of it from pyiceberg's vendored Python client (Hive 4 IDL, the thrift library's pure-Python
binary protocol, buffered transport: what PyIceberg's HiveCatalog uses), then runs
`hivestore bench --workload get_table --mode latency` against the same server, and prints both
medians. The Python client decodes the reply in Python, which adds its own time per call; the
line `python decode` measures that alone (the same reply bytes decoded from memory), so that
`python - decode` is comparable with bench's figure. Drops the database at the end.
"""

import argparse
import csv
import io
import statistics
import subprocess
import sys
import time
from urllib.parse import urlparse

from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport

from hive_metastore import ThriftHiveMetastore
from hive_metastore.ttypes import (Database, FieldSchema, NoSuchObjectException, SerDeInfo,
                                   StorageDescriptor, Table)

DATABASE = "hivestore_pycheck"
TABLE = "pycheck_table"
MARKER = ("hivestore.bench.created_by", "hivestore bench")
TYPES = ["bigint", "string", "int", "double", "timestamp", "decimal(18,2)", "boolean", "date",
         "array<string>", "map<string,int>"]


def connect(uri):
    parsed = urlparse(uri)
    sock = TSocket.TSocket(parsed.hostname, parsed.port or 9083)
    sock.setTimeout(600_000)
    transport = TTransport.TBufferedTransport(sock)
    protocol = TBinaryProtocol.TBinaryProtocol(transport, strictRead=True, strictWrite=True)
    transport.open()
    return ThriftHiveMetastore.Client(protocol), transport


def bench_table():
    cols = [FieldSchema(name=f"c{i:02}", type=TYPES[i % len(TYPES)]) for i in range(20)]
    serde = SerDeInfo(name=TABLE,
                      serializationLib="org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
                      parameters={"serialization.format": "1"})
    sd = StorageDescriptor(
        cols=cols, inputFormat="org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
        outputFormat="org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
        compressed=False, numBuckets=-1, serdeInfo=serde, bucketCols=[], sortCols=[],
        parameters={}, storedAsSubDirectories=False)
    return Table(tableName=TABLE, dbName=DATABASE, owner="hivestore-bench", sd=sd,
                 partitionKeys=[FieldSchema(name="ds", type="string")],
                 parameters={"comment": "hivestore bench table", "numFiles": "0"},
                 tableType="MANAGED_TABLE")


def set_up(client):
    try:
        existing = client.get_database(DATABASE)
    except NoSuchObjectException:
        existing = None
    if existing is not None:
        if (existing.parameters or {}).get(MARKER[0]) != MARKER[1]:
            sys.exit(f"database {DATABASE} exists and was not created by this check; refusing")
        client.drop_database(DATABASE, True, True)
    client.create_database(Database(name=DATABASE, description="hivestore bench python check",
                                    parameters=dict([MARKER]), ownerName="hivestore-bench"))
    client.create_table(bench_table())


def time_python(client, calls, seconds):
    """Per-call latencies in µs of get_table, after a warm-up of a tenth as many."""
    for _ in range(max(calls // 10, 1)):
        client.get_table(DATABASE, TABLE)
    latencies = []
    deadline = time.monotonic() + seconds
    while len(latencies) < calls and time.monotonic() < deadline:
        began = time.perf_counter_ns()
        client.get_table(DATABASE, TABLE)
        latencies.append((time.perf_counter_ns() - began) / 1000)
    return latencies


def time_decode(table, repeats=2000):
    """µs to decode one get_table reply's struct from memory: the Python client's own share."""
    buffer = TTransport.TMemoryBuffer()
    table.write(TBinaryProtocol.TBinaryProtocol(buffer))
    data = buffer.getvalue()
    began = time.perf_counter_ns()
    for _ in range(repeats):
        decoded = Table()
        decoded.read(TBinaryProtocol.TBinaryProtocol(TTransport.TMemoryBuffer(data)))
    return (time.perf_counter_ns() - began) / 1000 / repeats


def time_bench(binary, uri, calls, seconds):
    """bench's p50 and mean (µs) of get_table on the same server, from its CSV."""
    out = subprocess.run(
        [binary, "bench", "--uri", uri, "--workload", "get_table", "--mode", "latency",
         "--calls", str(calls), "--seconds", str(seconds), "--warmup", str(max(calls // 10, 1)),
         "--database", "hivestore_pycheck_bench", "--format", "csv"],
        check=True, capture_output=True, text=True).stdout
    row = next(csv.DictReader(io.StringIO(out)))
    return float(row["p50_us"]), float(row["mean_us"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uri", required=True)
    parser.add_argument("--bench", default="target/release/hivestore")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    client, transport = connect(args.uri)
    set_up(client)
    try:
        latencies = time_python(client, args.calls, args.seconds)
        decode = time_decode(client.get_table(DATABASE, TABLE))
    finally:
        client.drop_database(DATABASE, True, True)
        transport.close()
    bench_p50, bench_mean = time_bench(args.bench, args.uri, args.calls, args.seconds)
    python_p50 = statistics.median(latencies)
    print(f"server: {args.uri}; get_table of a 20-column table, one connection, {len(latencies)} calls")
    print(f"python (pyiceberg's vendored client)  p50 {python_p50:8.1f} us  mean {statistics.fmean(latencies):8.1f} us")
    print(f"python decode of the reply alone           {decode:8.1f} us")
    print(f"python - decode                       p50 {python_p50 - decode:8.1f} us")
    print(f"hivestore bench                       p50 {bench_p50:8.1f} us  mean {bench_mean:8.1f} us")
    print(f"ratio (python - decode) / bench: {(python_p50 - decode) / bench_p50:.2f}")


if __name__ == "__main__":
    main()
