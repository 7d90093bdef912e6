"""Failover on PostgreSQL: two hivestore servers on one database, one serving, one a standby
(`--standby`); the serving one is killed again and again under write load.

Goal: docs/postgres.md's high-availability promise seen from a client that knows both
addresses (as Hive's clients take several `hive.metastore.uris`): when the serving server
dies, the standby takes the database over and serves, no acknowledged write is lost, event
ids never repeat, and a server that lost the database to another stops serving.

Method: a PostgreSQL of the test's own; servers A (serving) and B (standby, not listening
while it waits). A writer adds one partition a call, trying the addresses in turn after a
failure, and keeps a ledger: acknowledged, or unknown (the call failed, its answer lost). The
serving server is killed with SIGKILL after a few acknowledged writes, restarted as a
standby, and so on for KILLS kills; then the serving server's lock connection alone is ended
by PostgreSQL (`pg_terminate_backend`): whichever server then holds the database serves, and
the other, if it lost, exits with the fenced status. At the end every acknowledged partition
is listed, every listed one was written, and the notification log's ids rise with no repeat.
Bounded: WRITES_MAX writes, every wait has a deadline. hivestore only: skipped under HMS_URI.
"""

import os
import signal
import subprocess
import threading
import time

import pytest
from hive_metastore.ttypes import (AlreadyExistsException, Database, FieldSchema,
                                   NotificationEventRequest, Partition)

from conftest import free_loopback_port, hivestore_binary, port_accepts
from hms_helpers import Server, connected, make_table, open_client, storage_descriptor
from postgres_server import PostgresServer

KILLS = 3
WRITES_BETWEEN_KILLS = 40
WRITES_MAX = 2_000
WRITER_DEADLINE_S = 180.0
FAILOVER_DEADLINE_S = 60.0
STARTUP_TIMEOUT_S = 30.0
STANDBY_SETTLE_S = 1.0
FENCE_SETTLE_S = 5.0  # several of the server's lock checks, one a second
RETRY_PAUSE_S = 0.05
FENCED_EXIT_CODE = 75
KEYS = [FieldSchema("ds", "string", None)]

pytestmark = pytest.mark.skipif(bool(os.environ.get("HMS_URI")),
                                reason="kills servers on PostgreSQL: hivestore only")


class Node:
    """One hivestore server on the shared database, at a fixed address across restarts."""

    started = []  # every process, killed after the test whatever happened

    def __init__(self, name, workdir, url):
        self.name = name
        self.workdir = workdir / name
        self.workdir.mkdir()
        self.warehouse = workdir / "warehouse"  # one for both, as HDFS or S3 would be
        self.url = url
        self.port = free_loopback_port()
        self.process = None
        self.starts = 0

    def start(self, standby: bool) -> None:
        log = open(self.workdir / f"hivestore{self.starts}.log", "wb")
        self.starts += 1
        command = [str(hivestore_binary()), "serve", "--listen", f"127.0.0.1:{self.port}",
                   "--data-dir", str(self.workdir / "data"),
                   "--warehouse", str(self.warehouse), "--store", self.url]
        if standby:
            command.append("--standby")
        with log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, cwd=self.workdir)
        Node.started.append(self.process)

    def serves(self) -> bool:
        return self.process.poll() is None and port_accepts("127.0.0.1", self.port)

    def wait_serving(self, deadline_s: float) -> float:
        started = time.monotonic()
        while time.monotonic() - started < deadline_s:
            if self.serves():
                return time.monotonic() - started
            if self.process.poll() is not None:
                pytest.fail(f"{self.name} exited with {self.process.returncode}:\n{self.log()}")
            time.sleep(0.05)
        pytest.fail(f"{self.name} did not serve within {deadline_s}s:\n{self.log()}")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=STARTUP_TIMEOUT_S)

    def log(self) -> str:
        logs = sorted(self.workdir.glob("hivestore*.log"))
        return logs[-1].read_text(errors="replace")[-3000:] if logs else ""

    def server(self) -> Server:
        return Server("127.0.0.1", self.port, process=self.process)


class Writer(threading.Thread):
    """Adds partitions one a call through whichever node answers; a ledger of the outcomes."""

    def __init__(self, nodes):
        super().__init__(daemon=True)
        self.nodes = nodes
        self.acknowledged = set()
        self.unknown = set()
        self.failures = 0
        self.last_failure = None
        self.stop = threading.Event()
        self.error = None

    def acknowledged_count(self) -> int:
        return len(self.acknowledged)

    def run(self):
        try:
            self.write()
        except Exception as error:  # reported by the test, not lost in the thread
            self.error = error

    def connect(self, deadline):
        while time.monotonic() < deadline and not self.stop.is_set():
            for node in self.nodes:
                try:
                    client, transport = open_client(node.server())
                    client.set_ugi("hive", [])
                    return client, transport
                except Exception:
                    continue
            time.sleep(0.05)
        return None, None

    def write(self):
        deadline = time.monotonic() + WRITER_DEADLINE_S
        client, transport = None, None
        for index in range(WRITES_MAX):
            if self.stop.is_set() or time.monotonic() > deadline:
                break
            value = f"p{index:05}"
            if client is None:
                client, transport = self.connect(deadline)
                if client is None:
                    break
            try:
                client.add_partition(Partition(values=[value], dbName="ha", tableName="t",
                                               sd=storage_descriptor(), parameters={}))
                self.acknowledged.add(value)
            except AlreadyExistsException:
                self.acknowledged.add(value)
            except Exception as error:
                # The server died or was fenced mid-call: the write may or may not be there.
                self.last_failure = repr(error)
                self.unknown.add(value)
                self.failures += 1
                transport.close()
                client, transport = None, None
                time.sleep(RETRY_PAUSE_S)
        if transport is not None:
            transport.close()


def wait_for_writes(writer, count):
    deadline = time.monotonic() + FAILOVER_DEADLINE_S
    while writer.acknowledged_count() < count:
        if time.monotonic() > deadline or not writer.is_alive():
            pytest.fail(f"the writer reached {writer.acknowledged_count()} of {count} "
                        f"acknowledged writes (error: {writer.error}, last failure: {writer.last_failure})")
        time.sleep(0.02)


def test_a_standby_takes_over_and_nothing_acknowledged_is_lost(tmp_path):
    with PostgresServer() as postgres:
        postgres.create_database("metastore")
        url = postgres.url("metastore")
        nodes = [Node("a", tmp_path, url), Node("b", tmp_path, url)]
        serving, standby = nodes
        serving.start(standby=False)
        serving.wait_serving(STARTUP_TIMEOUT_S)
        standby.start(standby=True)
        time.sleep(STANDBY_SETTLE_S)
        assert standby.process.poll() is None, standby.log()
        assert not port_accepts("127.0.0.1", standby.port), "a standby does not listen"
        with connected(serving.server()) as client:
            client.create_database(Database(name="ha", parameters={}))
            client.create_table(make_table("ha", "t", partition_keys=KEYS))

        writer = Writer(nodes)
        writer.start()
        failovers = []
        try:
            for kill in range(KILLS):
                wait_for_writes(writer, (kill + 1) * WRITES_BETWEEN_KILLS)
                serving.kill()
                failovers.append(standby.wait_serving(FAILOVER_DEADLINE_S))
                serving.start(standby=True)
                serving, standby = standby, serving
            wait_for_writes(writer, (KILLS + 1) * WRITES_BETWEEN_KILLS)

            # Only the serving server's lock connection ends: one of the two takes the
            # database (the standby, nearly always), and a server that lost it stops.
            postgres.sql("SELECT pg_terminate_backend(pid) FROM pg_locks "
                         "WHERE locktype = 'advisory' AND granted", "metastore")
            settled = time.monotonic() + FENCE_SETTLE_S
            while time.monotonic() < settled and serving.process.poll() is None:
                time.sleep(0.05)
            assert standby.process.poll() is None, standby.log()
            if serving.process.poll() is not None:
                assert serving.process.returncode == FENCED_EXIT_CODE, serving.log()
                assert "another server" in serving.log()
                standby.wait_serving(FAILOVER_DEADLINE_S)
                serving, standby = standby, serving
                print("the standby took the database; the server that lost it was fenced")
            else:
                print("the serving server took its lock again before the standby")
            wait_for_writes(writer, (KILLS + 2) * WRITES_BETWEEN_KILLS)
        finally:
            writer.stop.set()
            writer.join(timeout=WRITER_DEADLINE_S)
        assert writer.error is None, writer.error
        print(f"failovers took {', '.join(f'{s:.2f}s' for s in failovers)}; "
              f"{len(writer.acknowledged)} writes acknowledged, {len(writer.unknown)} unknown")

        with connected(serving.server()) as client:
            listed = set(client.get_partition_names("ha", "t", -1))
            seen = client.get_next_notification(NotificationEventRequest(lastEvent=0,
                                                                         maxEvents=100_000))
        listed_values = {name.split("=", 1)[1] for name in listed}
        missing = writer.acknowledged - listed_values
        assert not missing, f"acknowledged and lost: {sorted(missing)[:10]}"
        assert listed_values <= writer.acknowledged | writer.unknown
        ids = [event.eventId for event in seen.events]
        assert ids == sorted(set(ids)), "event ids rise, none repeats"
        added = [event for event in seen.events if event.eventType == "ADD_PARTITION"]
        assert len(added) >= len(writer.acknowledged)


@pytest.fixture(autouse=True)
def no_server_left(request):
    yield
    for process in Node.started:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=STARTUP_TIMEOUT_S)
    Node.started.clear()
