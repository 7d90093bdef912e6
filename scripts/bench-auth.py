#!/usr/bin/env python3
"""get_table over Kerberos (SASL GSSAPI, each QOP), over TLS and over plain Thrift, from one
Python client (pyiceberg's generated client; thrift_sasl over pure-sasl for SASL), one run.

Starts a throwaway MIT KDC (tests/python/kdc.py) and two hivestore servers on loopback: one with
--authentication KERBEROS, one NOSASL serving TLS beside plain. Each endpoint gets a warm-up,
then CALLS get_table calls on one connection, timed one by one; prints a Markdown table.

usage: scripts/bench-auth.py [--calls N] [--binary target/release/hivestore]
(run with the venv of scripts/test.sh: .venv/bin/python scripts/bench-auth.py)
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))

from conftest import start_hivestore, stop_hivestore  # noqa: E402
from hms_helpers import open_client, open_sasl_client  # noqa: E402
from kdc import REALM, SERVICE, Kdc  # noqa: E402

WARMUP_CALLS = 200
CALLS_MAX = 100_000


def make_table(client, database):
    from hive_metastore.ttypes import (Database, FieldSchema, SerDeInfo, StorageDescriptor,
                                       Table)
    client.create_database(Database(name=database, description="bench", parameters={}))
    columns = [FieldSchema(name=f"c{i}", type="string", comment="") for i in range(20)]
    sd = StorageDescriptor(cols=columns, inputFormat="org.apache.hadoop.mapred.TextInputFormat",
                           outputFormat="org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
                           serdeInfo=SerDeInfo(serializationLib="org.apache.hadoop.hive.serde2."
                                               "lazy.LazySimpleSerDe", parameters={}),
                           parameters={})
    client.create_table(Table(tableName="t", dbName=database, sd=sd, partitionKeys=[],
                              parameters={}, tableType="MANAGED_TABLE"))


def measure(client, database, calls):
    for _ in range(WARMUP_CALLS):
        client.get_table(database, "t")
    times = []
    started = time.perf_counter()
    for _ in range(calls):
        before = time.perf_counter_ns()
        client.get_table(database, "t")
        times.append((time.perf_counter_ns() - before) / 1000)
    elapsed = time.perf_counter() - started
    times.sort()
    return {"calls/s": calls / elapsed, "p50": statistics.median(times),
            "p90": times[int(0.9 * len(times))], "p99": times[int(0.99 * len(times))]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--binary", default=str(ROOT / "target" / "release" / "hivestore"))
    args = parser.parse_args()
    calls = max(1, min(args.calls, CALLS_MAX))
    binary = Path(args.binary)
    with tempfile.TemporaryDirectory(prefix="bench-auth-") as scratch:
        scratch = Path(scratch)
        (scratch / "kdc").mkdir()
        kdc = Kdc(scratch / "kdc").start()
        certs = scratch / "certs"
        certs.mkdir()
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", str(certs / "server.key"), "-out", str(certs / "server.pem")],
                       check=True, capture_output=True, timeout=60)
        (scratch / "krb").mkdir()
        (scratch / "plain").mkdir()
        kerberized = start_hivestore(binary, scratch / "krb", [
            "--authentication", "KERBEROS", "--kerberos-principal", f"hive/_HOST@{REALM}",
            "--kerberos-host", "localhost", "--kerberos-keytab", str(kdc.keytab(SERVICE)),
            "--sasl-qop", "auth-conf,auth-int,auth"], env=kdc.server_env())
        plain = start_hivestore(binary, scratch / "plain", [
            "--tls-cert", str(certs / "server.pem"), "--tls-key", str(certs / "server.key"),
            "--tls-allow-plain"])
        rows = []
        try:
            env = kdc.client_env("alice")
            for name in ("KRB5_CONFIG", "KRB5CCNAME"):
                os.environ[name] = env[name]
            for qop in ("auth", "auth-int", "auth-conf"):
                client, trans = open_sasl_client(kerberized, "GSSAPI", host="localhost",
                                                 service="hive", qops=[qop.encode()])
                database = f"bench_{qop.replace('-', '_')}"
                make_table(client, database)
                rows.append((f"Kerberos {qop}", measure(client, database, calls)))
                trans.close()
            from thrift.transport import TSSLSocket
            client, trans = open_client(plain)
            make_table(client, "bench_plain")
            rows.append(("plain", measure(client, "bench_plain", calls)))
            trans.close()
            sock = TSSLSocket.TSSLSocket(plain.host, plain.port, ca_certs=str(certs / "server.pem"),
                                         server_hostname="localhost")
            client, trans = open_client(plain, sock=sock)
            rows.append(("TLS", measure(client, "bench_plain", calls)))
            trans.close()
        finally:
            stop_hivestore(kerberized)
            stop_hivestore(plain)
            kdc.stop()
    load = os.getloadavg()[0]
    print(f"get_table, one Python client connection, {calls} calls each "
          f"(load average {load:.1f} at the end)\n")
    print("| endpoint | calls/s | p50 µs | p90 µs | p99 µs |")
    print("|---|---:|---:|---:|---:|")
    for name, figures in rows:
        print(f"| {name} | {figures['calls/s']:.0f} | {figures['p50']:.0f} | "
              f"{figures['p90']:.0f} | {figures['p99']:.0f} |")


if __name__ == "__main__":
    main()
