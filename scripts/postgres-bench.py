#!/usr/bin/env python3
"""hivestore on PostgreSQL against hivestore on sled, in one run (docs/benchmarks/postgres.md).

Starts a PostgreSQL of its own (Debian's binaries, as tests/python/postgres_server.py does),
one hivestore on the embedded store and one on the PostgreSQL database, then runs
`hivestore bench --uri <sled> --compare <postgres>` over the reads a planner repeats and the
partition workloads at the sizes given. With --reader, instead: the server on PostgreSQL
against a reader beside it (`serve --reader`) over the reads, the reader's tables made through
the writing server. Loopback only; every bench run is bounded by its
--seconds and --calls. Needs the venv and release build scripts/test.sh makes.

    scripts/postgres-bench.py [--partitions 10000] [--seconds 5] [--out FILE.csv] [--reader]
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "python"))

from conftest import free_loopback_port, port_accepts  # noqa: E402
from postgres_server import PostgresServer  # noqa: E402

STARTUP_TIMEOUT_S = 60.0
READS = "get_table,get_tables,get_partition_names,get_partitions_by_filter_leading_key,spark_plan"


def start(binary, workdir, name, extra):
    port = free_loopback_port()
    (workdir / name).mkdir()
    log = open(workdir / name / "hivestore.log", "wb")
    process = subprocess.Popen(
        [str(binary), "serve", "--listen", f"127.0.0.1:{port}",
         "--data-dir", str(workdir / name / "data"),
         "--warehouse", str(workdir / name / "warehouse"), *extra],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not port_accepts("127.0.0.1", port):
        if process.poll() is not None or time.monotonic() > deadline:
            sys.exit(f"{name} did not start: see {workdir / name / 'hivestore.log'}")
        time.sleep(0.05)
    return process, f"thrift://127.0.0.1:{port}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", default="10000")
    parser.add_argument("--seconds", default="5")
    parser.add_argument("--out", help="also write the rows as CSV here")
    parser.add_argument("--reader", action="store_true",
                        help="compare the writing server with a reader beside it")
    parser.add_argument("--bin", default=str(ROOT / "target" / "release" / "hivestore"))
    args = parser.parse_args()
    binary = Path(args.bin)
    with tempfile.TemporaryDirectory(prefix="hivestore-pgbench-") as tmp, \
            PostgresServer() as postgres:
        workdir = Path(tmp)
        postgres.create_database("metastore")
        pg, pg_uri = start(binary, workdir, "postgres", ["--store", postgres.url("metastore")])
        if args.reader:
            other, other_uri = start(binary, workdir, "reader",
                                     ["--store", postgres.url("metastore"), "--reader"])
            runs = [(READS, "latency,throughput", ["--uri", pg_uri, "--compare", other_uri,
                                                   "--compare-setup-via", pg_uri])]
        else:
            other, other_uri = start(binary, workdir, "sled", [])
            runs = [(workloads, modes, ["--uri", other_uri, "--compare", pg_uri])
                    for workloads, modes in ((READS, "latency,throughput"),
                                             ("add_partitions", "latency"))]
        try:
            for workloads, modes, endpoints in runs:
                command = [str(binary), "bench", *endpoints,
                           "--workload", workloads, "--mode", modes, "--connections", "1,16",
                           "--partitions", args.partitions, "--seconds", args.seconds]
                if args.out:
                    command += ["--csv-out", f"{args.out}.{workloads.split(',')[0]}"]
                print("$", " ".join(command), flush=True)
                subprocess.run(command, check=True)
        finally:
            for process in (other, pg):
                process.terminate()
                process.wait(timeout=STARTUP_TIMEOUT_S)


if __name__ == "__main__":
    main()
