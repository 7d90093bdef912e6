"""Crash recovery: every acknowledged DDL call survives `kill -9`, and nothing is half applied.

Goal: hivestore's promise that an acknowledged write is durable and atomic, seen from a client.

Method: start hivestore on a data directory; one client runs a seeded random stream of DDL
(create_database, create_table, alter_table changing two parameters and appending a column in
one call, rename, drop_table, drop_database cascade) and applies each call to an in-memory model
only once the server acknowledged it. A second thread sends SIGKILL to the server after a random
number of acknowledged calls plus a random few milliseconds, so the kill usually lands while a
call is in flight. The server is restarted on the same data directory and the whole visible state
of the test's databases is read back through the Thrift API: it must equal the model, or (for
the one call in flight at the kill, whose answer never arrived) the model with that call applied,
as a whole. Several rounds run on the same data directory, so recovery after recovery is covered
too. Bounded: at most ROUNDS rounds of at most OPS_MAX calls and ROUND_DEADLINE_S seconds each.
It runs twice: on the embedded store, and on a PostgreSQL database (`--store postgres://`,
a PostgreSQL server of the test's own). hivestore only: skipped under HMS_URI. The seed is printed; set HIVESTORE_CRASH_SEED to replay.
"""

import contextlib
import copy
import os
import random
import signal
import subprocess
import threading
import time

import pytest
from hive_metastore.ttypes import Database, FieldSchema

from conftest import hivestore_binary, free_loopback_port, port_accepts
from hms_helpers import Server, connected, make_table
from postgres_server import PostgresServer

ROUNDS = 8
OPS_MAX = 400
ROUND_DEADLINE_S = 60.0
STARTUP_TIMEOUT_S = 30.0
KILL_AFTER_ACKS = (15, 150)
KILL_JITTER_S = 0.01
DATABASES_MAX = 4

pytestmark = pytest.mark.skipif(bool(os.environ.get("HMS_URI")),
                                reason="kills and restarts the server: hivestore only")


class Hivestore:
    """A hivestore process on a fixed data and warehouse directory, restartable."""

    def __init__(self, workdir):
        self.binary = hivestore_binary()
        self.workdir = workdir
        self.data_dir = workdir / "data"
        self.warehouse = workdir / "warehouse"
        self.process = None
        self.server = None
        self.starts = 0
        self.extra_args = []      # more `serve` flags
        self.log_dir = workdir    # where each start's log goes

    def start(self) -> Server:
        for _ in range(3):
            port = free_loopback_port()
            log_path = self.log_dir / f"hivestore-start{self.starts}.log"
            self.starts += 1
            with open(log_path, "wb") as log:
                self.process = subprocess.Popen(
                    [str(self.binary), "serve", "--listen", f"127.0.0.1:{port}",
                     "--data-dir", str(self.data_dir), "--warehouse", str(self.warehouse),
                     *self.extra_args],
                    stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                    cwd=self.workdir)
            self.server = Server("127.0.0.1", port, process=self.process, log_path=str(log_path))
            deadline = time.monotonic() + STARTUP_TIMEOUT_S
            while time.monotonic() < deadline and self.process.poll() is None:
                if port_accepts("127.0.0.1", port):
                    return self.server
                time.sleep(0.05)
            if self.process.poll() is None:
                self.kill()
                pytest.fail(f"hivestore did not open port {port}; log:\n{self.server.log_tail()}")
            if "in use" not in self.server.log_tail().lower():
                pytest.fail(f"hivestore exited with {self.process.returncode} at start "
                            f"(data dir {self.data_dir}); log:\n{self.server.log_tail()}")
        pytest.fail("hivestore could not bind a free port")

    def kill(self):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=STARTUP_TIMEOUT_S)

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                code = self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
                pytest.fail("hivestore did not exit within 15 s of SIGTERM")
            assert code == 0, f"hivestore exited with {code}; log:\n{self.server.log_tail()}"


# ---------------------------------------------------------------- the model
# state: {database: {table: (parameters v, w, note), column names}}; names are unique per run.

def table_state(v: int, note: str, columns):
    return {"v": str(v), "w": str(v), "note": note, "columns": tuple(columns)}


class Workload:
    """Seeded random DDL against a model of what the server acknowledged."""

    def __init__(self, rng: random.Random, prefix: str):
        self.rng = rng
        self.prefix = prefix
        self.state = {}
        self.counter = 0

    def fresh(self, kind):
        self.counter += 1
        return f"{self.prefix}_{kind}{self.counter}"

    def next_op(self):
        """(description, function(client), model after) for one random call."""
        rng, state = self.rng, self.state
        tables = [(db, t) for db, ts in state.items() for t in ts]
        choices = ["create_database"] if len(state) < DATABASES_MAX else []
        if state:
            choices += ["create_table"] * 4
        if tables:
            choices += ["alter_table"] * 5 + ["rename_table", "drop_table"]
        if len(state) > 1:
            choices.append("drop_database")
        kind = rng.choice(choices)
        after = copy.deepcopy(state)
        if kind == "create_database":
            db = self.fresh("db")
            after[db] = {}
            return (kind, db), lambda c: c.create_database(Database(name=db, parameters={})), after
        if kind == "create_table":
            db = rng.choice(sorted(state))
            table = self.fresh("t")
            note = f"n{rng.randrange(10**6)}"
            after[db][table] = table_state(0, note, ["id", "name"])
            definition = make_table(db, table, parameters={"v": "0", "w": "0", "note": note})
            return (kind, db, table), lambda c: c.create_table(definition), after
        if kind == "drop_database":
            db = rng.choice(sorted(state))
            del after[db]
            return (kind, db), lambda c: c.drop_database(db, True, True), after
        db, table = rng.choice(sorted(tables))
        old = state[db][table]
        if kind == "alter_table":
            version = int(old["v"]) + 1
            note = f"n{rng.randrange(10**6)}"
            columns = list(old["columns"]) + [f"c{version}"]
            after[db][table] = table_state(version, note, columns)

            def alter(c):
                changed = c.get_table(db, table)
                changed.parameters.update({"v": str(version), "w": str(version), "note": note})
                changed.sd.cols = changed.sd.cols + [FieldSchema(f"c{version}", "string", None)]
                c.alter_table(db, table, changed)
            return (kind, db, table, version), alter, after
        if kind == "rename_table":
            new_name = self.fresh("t")
            after[db][new_name] = after[db].pop(table)

            def rename(c):
                changed = c.get_table(db, table)
                changed.tableName = new_name
                c.alter_table(db, table, changed)
            return (kind, db, table, new_name), rename, after
        del after[db][table]
        return (kind, db, table), lambda c: c.drop_table(db, table, True), after


def observed_state(client, prefix):
    """Everything the server shows of this run's databases, in the model's shape."""
    state = {}
    for db in client.get_databases(f"{prefix}_db*"):
        tables = {}
        for name in client.get_all_tables(db):
            table = client.get_table(db, name)
            params = table.parameters
            assert params.get("v") == params.get("w"), (
                f"half-applied alter visible on {db}.{name}: {params}")
            tables[name] = table_state(int(params["v"]), params.get("note"),
                                       [column.name for column in table.sd.cols])
        state[db] = tables
    return state


def run_round(hivestore, workload, rng, round_number):
    """Writes until the kill; returns (model before the in-flight call, model after it or None)."""
    server = hivestore.start()
    acknowledged = 0
    lock = threading.Lock()
    target = rng.randint(*KILL_AFTER_ACKS)
    jitter_s = rng.uniform(0, KILL_JITTER_S)
    killed = threading.Event()

    def killer():
        deadline = time.monotonic() + ROUND_DEADLINE_S
        while time.monotonic() < deadline:
            with lock:
                if acknowledged >= target:
                    break
            time.sleep(0.001)
        time.sleep(jitter_s)
        hivestore.kill()
        killed.set()

    thread = threading.Thread(target=killer, daemon=True)
    in_flight = None
    with connected(server) as client:
        thread.start()
        deadline = time.monotonic() + ROUND_DEADLINE_S
        for _ in range(OPS_MAX):
            if time.monotonic() > deadline or killed.is_set():
                break
            description, call, after = workload.next_op()
            in_flight = (description, after)
            try:
                call(client)
            except Exception:  # noqa: BLE001 - the connection died with the server
                if not killed.wait(timeout=STARTUP_TIMEOUT_S):
                    raise
                break
            workload.state = after
            in_flight = None
            with lock:
                acknowledged += 1
    thread.join(timeout=ROUND_DEADLINE_S + STARTUP_TIMEOUT_S)
    assert killed.is_set(), "the killer thread did not kill the server"
    print(f"round {round_number}: {acknowledged} calls acknowledged, kill after {target} "
          f"+ {jitter_s * 1000:.1f} ms; in flight: {in_flight[0] if in_flight else None}")
    return workload.state, (in_flight[1] if in_flight else None), in_flight


@pytest.mark.parametrize("store", ["sled", "postgres"])
def test_acknowledged_ddl_survives_kill_9_and_nothing_is_half_applied(tmp_path, store):
    seed = int(os.environ.get("HIVESTORE_CRASH_SEED", random.randrange(2**32)))
    print(f"HIVESTORE_CRASH_SEED={seed}")
    with contextlib.ExitStack() as stack:
        hivestore = Hivestore(tmp_path)
        if store == "postgres":
            postgres = stack.enter_context(PostgresServer())
            hivestore.extra_args = ["--store", postgres.url()]
        run_crash_rounds(hivestore, seed)


def run_crash_rounds(hivestore, seed):
    rng = random.Random(seed)
    workload = Workload(random.Random(rng.randrange(2**32)), f"crash{seed % 100000}")
    try:
        for round_number in range(ROUNDS):
            before, after, in_flight = run_round(hivestore, workload, rng, round_number)
            server = hivestore.start()
            with connected(server) as client:
                got = observed_state(client, workload.prefix)
                if got != before:
                    assert after is not None and got == after, (
                        f"seed {seed}, round {round_number}: after restart the server shows\n"
                        f"{got}\nexpected the acknowledged state\n{before}\n"
                        + (f"or, with the in-flight {in_flight[0]} applied,\n{after}"
                           if in_flight else "(no call was in flight)"))
                    workload.state = after  # the in-flight call did land, as a whole
                # The recovered server takes writes again.
                probe = f"{workload.prefix}_probe{round_number}"
                client.create_database(Database(name=f"{probe}", parameters={}))
                client.drop_database(probe, True, True)
            hivestore.stop()
    finally:
        hivestore.kill()
