#!/usr/bin/env python3
"""Connection cost of a running metastore: RSS with many idle connections, get_table latency
with many active ones. Loopback only; bounded in count and time.

    scripts/conns-measure.py --pid PID --port PORT idle --connections 10000
    scripts/conns-measure.py --pid PID --port PORT active --connections 1000 --seconds 10 \
        --pause-ms 100 --bench target/release/hivestore

idle:   opens N connections (raising this process's open-file limit), each makes one call
        (fb303 getStatus, strict binary, unframed) and then stays silent; prints the server's
        RSS (VmRSS) before, with all N open, and a few seconds after they are closed.
active: runs `hivestore bench --mode throughput --workload get_table --connections N
        --pause-ms P` (each connection pauses P ms after each call; 0: as fast as answered)
        and prints its report (p50, p99 per call) with the server's RSS after.
The server must allow N connections (`--max-connections`) and itself have an open-file limit
above N (`ulimit -n` where it is started).
"""

import argparse
import resource
import socket
import struct
import subprocess
import sys
import time

CALL_TIMEOUT_S = 10.0


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def threads(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return -1


def get_status_call() -> bytes:
    name = b"getStatus"
    return struct.pack(">Ii", 0x80010001, len(name)) + name + struct.pack(">i", 1) + b"\x00"


def raise_open_files(count: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = count + 256
    if soft < wanted:
        if hard != resource.RLIM_INFINITY and hard < wanted:
            sys.exit(f"open-file hard limit {hard} is below {wanted}: raise it (ulimit -Hn)")
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def idle(args) -> None:
    raise_open_files(args.connections)
    call = get_status_call()
    before = rss_kib(args.pid)
    sockets = []
    started = time.monotonic()
    try:
        for index in range(args.connections):
            if time.monotonic() - started > args.time_bound:
                sys.exit(f"only {index} connections within {args.time_bound} s")
            sock = socket.create_connection(("127.0.0.1", args.port), timeout=CALL_TIMEOUT_S)
            sock.settimeout(CALL_TIMEOUT_S)
            sock.sendall(call)
            reply = sock.recv(64)
            if not reply.startswith(struct.pack(">I", 0x80010002)):
                sys.exit(f"connection {index}: no getStatus reply ({reply!r})")
            sockets.append(sock)
        time.sleep(2)
        held = rss_kib(args.pid)
        held_threads = threads(args.pid)
        # Each one still served after all that.
        for sock in sockets[:: max(1, len(sockets) // 100)]:
            sock.sendall(call)
            if not sock.recv(64).startswith(struct.pack(">I", 0x80010002)):
                sys.exit("an idle connection was not served")
    finally:
        for sock in sockets:
            sock.close()
    time.sleep(3)
    after = rss_kib(args.pid)
    print(f"idle connections: {args.connections}")
    print(f"server RSS before: {before / 1024:.1f} MiB")
    print(f"server RSS with them open: {held / 1024:.1f} MiB "
          f"({(held - before) / args.connections:.1f} KiB a connection), {held_threads} threads")
    print(f"server RSS after they closed: {after / 1024:.1f} MiB")


def active(args) -> None:
    raise_open_files(args.connections)
    command = [args.bench, "bench", "--uri", f"thrift://127.0.0.1:{args.port}",
               "--mode", "throughput", "--workload", "get_table",
               "--connections", str(args.connections), "--seconds", str(args.seconds),
               "--warmup", "20", "--pause-ms", str(args.pause_ms)]
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True, timeout=args.time_bound)
    print(f"server RSS after: {rss_kib(args.pid) / 1024:.1f} MiB, {threads(args.pid)} threads")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pid", type=int, required=True, help="the server's process id")
    parser.add_argument("--port", type=int, required=True, help="its loopback port")
    parser.add_argument("--time-bound", type=float, default=300.0, help="seconds, at most")
    sub = parser.add_subparsers(dest="what", required=True)
    idle_parser = sub.add_parser("idle")
    idle_parser.add_argument("--connections", type=int, default=10_000)
    active_parser = sub.add_parser("active")
    active_parser.add_argument("--connections", type=int, default=1000)
    active_parser.add_argument("--seconds", type=int, default=10)
    active_parser.add_argument("--pause-ms", type=int, default=0)
    active_parser.add_argument("--bench", default="target/release/hivestore")
    args = parser.parse_args()
    {"idle": idle, "active": active}[args.what](args)


if __name__ == "__main__":
    main()
