"""Hive's lock calls through the pyiceberg-vendored client (Hive 4 IDL).

Goal: `lock`, `check_lock`, `unlock`, `show_locks` and `heartbeat` behave as Apache's HMS does
for the lock requests engines send (Iceberg's and PyIceberg's commits take an EXCLUSIVE table
lock, poll `check_lock` while WAITING, and unlock): a conflicting lock waits and is acquired
once the holder unlocks, shared reads coexist, locks on other tables and partitions do not
interfere, `show_locks` lists every lock with its state, and a client that dies without
unlocking loses its lock after the timeout (`--txn-timeout-ms`, Hive's
`metastore.txn.timeout`).

Method: each test uses its own database name (locks need no existing objects), two client
connections stand for two engines, and every poll is bounded. Every expectation shared with
the Java reference HMS 2.3 (`scripts/compare-with-reference.sh tests/python/test_locks.py`)
runs there too; where Hive 4 differs from 2.3 (arrival order behind waiting locks, names
lowercased) the test says which Hive it follows and checks 2.3's answer on 2.3. The expiry
and restart tests need a server started with a short timeout or restarted, so they run on
hivestore only.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hive_metastore.ttypes import (
    CheckLockRequest,
    HeartbeatRequest,
    LockComponent,
    LockLevel,
    LockRequest,
    LockState,
    LockType,
    NoSuchLockException,
    NoSuchTxnException,
    ShowLocksRequest,
    UnlockRequest,
)
from thrift.Thrift import TApplicationException

from hms_helpers import connected, hive_generation, raises_hms, unique_name

POLL_COUNT_MAX = 200
POLL_INTERVAL_S = 0.1
EXPIRY_TIMEOUT_MS = 1500


def component(db, table=None, partition=None, lock_type=LockType.EXCLUSIVE):
    level = LockLevel.DB if table is None else (
        LockLevel.TABLE if partition is None else LockLevel.PARTITION)
    return LockComponent(type=lock_type, level=level, dbname=db, tablename=table,
                         partitionname=partition)


def request(*components, agent="test_locks", txnid=None):
    return LockRequest(component=list(components), user="locktester", hostname="localhost",
                       agentInfo=agent, txnid=txnid)


def poll_until_acquired(client, lockid):
    """check_lock until ACQUIRED, bounded in count and time; the last state otherwise."""
    state = None
    for _ in range(POLL_COUNT_MAX):
        state = client.check_lock(CheckLockRequest(lockid=lockid)).state
        if state == LockState.ACQUIRED:
            return state
        time.sleep(POLL_INTERVAL_S)
    return state


def show(client, db, table=None):
    response = client.show_locks(ShowLocksRequest(dbname=db, tablename=table))
    return sorted(response.locks or [], key=lambda lock: (lock.lockid, lock.lockIdInternal or 0))


def test_a_conflicting_exclusive_lock_waits_until_the_holder_unlocks(server):
    db = unique_name("locks")
    with connected(server) as first, connected(server) as second:
        held = first.lock(request(component(db, "t")))
        assert held.state == LockState.ACQUIRED
        waiting = second.lock(request(component(db, "t")))
        assert waiting.state == LockState.WAITING
        assert waiting.lockid > held.lockid
        assert second.check_lock(CheckLockRequest(lockid=waiting.lockid)).state == LockState.WAITING
        first.unlock(UnlockRequest(lockid=held.lockid))
        assert poll_until_acquired(second, waiting.lockid) == LockState.ACQUIRED
        second.unlock(UnlockRequest(lockid=waiting.lockid))
        assert show(first, db) == []


def test_shared_reads_coexist_and_an_exclusive_lock_waits_for_all_of_them(server):
    db = unique_name("locks")
    with connected(server) as first, connected(server) as second:
        read1 = first.lock(request(component(db, "t", lock_type=LockType.SHARED_READ)))
        read2 = second.lock(request(component(db, "t", lock_type=LockType.SHARED_READ)))
        assert (read1.state, read2.state) == (LockState.ACQUIRED, LockState.ACQUIRED)
        write = first.lock(request(component(db, "t")))
        assert write.state == LockState.WAITING
        first.unlock(UnlockRequest(lockid=read1.lockid))
        assert first.check_lock(CheckLockRequest(lockid=write.lockid)).state == LockState.WAITING
        second.unlock(UnlockRequest(lockid=read2.lockid))
        assert poll_until_acquired(first, write.lockid) == LockState.ACQUIRED
        first.unlock(UnlockRequest(lockid=write.lockid))


def test_a_read_queues_behind_a_waiting_exclusive_lock_in_hive_4(server):
    """Hive 4 blocks a lock behind any earlier conflicting lock, waiting or not, so readers
    cannot starve a writer; Hive 2.3 lets the read pass the waiting writer."""
    db = unique_name("locks")
    with connected(server) as first, connected(server) as second:
        read1 = first.lock(request(component(db, "t", lock_type=LockType.SHARED_READ)))
        write = second.lock(request(component(db, "t")))
        assert write.state == LockState.WAITING
        read2 = first.lock(request(component(db, "t", lock_type=LockType.SHARED_READ)))
        expected = LockState.WAITING if hive_generation(server) >= 4 else LockState.ACQUIRED
        assert read2.state == expected
        for lock in (read1, read2, write):
            first.unlock(UnlockRequest(lockid=lock.lockid))


def test_locks_on_other_tables_partitions_and_databases_do_not_conflict(server):
    db = unique_name("locks")
    other_db = unique_name("locks")
    with connected(server) as client:
        taken = [client.lock(request(component(db, "t", "ds=1"))),
                 client.lock(request(component(db, "t", "ds=2"))),
                 client.lock(request(component(db, "u"))),
                 client.lock(request(component(other_db, "t")))]
        assert [lock.state for lock in taken] == [LockState.ACQUIRED] * 4
        table_lock = client.lock(request(component(db, "t")))
        assert table_lock.state == LockState.WAITING, "a table lock covers its partitions"
        database_lock = client.lock(request(component(db)))
        assert database_lock.state == LockState.WAITING, "a database lock covers its tables"
        for lock in taken + [table_lock, database_lock]:
            client.unlock(UnlockRequest(lockid=lock.lockid))
        assert show(client, db) == [] and show(client, other_db) == []


def test_a_request_with_several_components_is_acquired_whole_or_waits_whole(server):
    db = unique_name("locks")
    with connected(server) as client:
        blocker = client.lock(request(component(db, "b")))
        both = client.lock(request(component(db, "a"), component(db, "b")))
        assert both.state == LockState.WAITING
        listed = show(client, db)
        assert [(lock.lockid, lock.tablename, lock.state) for lock in listed] == [
            (blocker.lockid, "b", LockState.ACQUIRED),
            (both.lockid, "a", LockState.WAITING),
            (both.lockid, "b", LockState.WAITING),
        ]
        client.unlock(UnlockRequest(lockid=blocker.lockid))
        assert poll_until_acquired(client, both.lockid) == LockState.ACQUIRED
        client.unlock(UnlockRequest(lockid=both.lockid))


def test_show_locks_lists_each_lock_with_its_holder_state_and_times(server):
    db = unique_name("locks")
    with connected(server) as client:
        before_ms = int(time.time() * 1000) - 60_000
        held = client.lock(request(component(db, "t"), agent="Iceberg-1234"))
        waiting = client.lock(request(component(db, "t", lock_type=LockType.SHARED_READ)))
        client.lock(request(component(db, "u")))
        listed = show(client, db, "t")
        assert [lock.lockid for lock in listed] == [held.lockid, waiting.lockid]
        first, second = listed
        assert (first.dbname, first.tablename, first.partname) == (db, "t", None)
        assert (first.state, first.type) == (LockState.ACQUIRED, LockType.EXCLUSIVE)
        assert (second.state, second.type) == (LockState.WAITING, LockType.SHARED_READ)
        assert (first.user, first.hostname, first.agentInfo) == ("locktester", "localhost",
                                                                  "Iceberg-1234")
        assert first.acquiredat is not None and first.acquiredat >= before_ms
        assert first.lastheartbeat >= before_ms
        assert not second.acquiredat
        assert first.txnid in (None, 0)
        everything = client.show_locks(ShowLocksRequest()).locks or []
        assert {held.lockid, waiting.lockid} <= {lock.lockid for lock in everything}
        for lock in show(client, db):
            client.unlock(UnlockRequest(lockid=lock.lockid))


def test_check_lock_and_heartbeat_of_an_unknown_lock_are_no_such_lock(server):
    db = unique_name("locks")
    with connected(server) as client:
        lock = client.lock(request(component(db, "t")))
        client.heartbeat(HeartbeatRequest(lockid=lock.lockid))
        client.unlock(UnlockRequest(lockid=lock.lockid))
        with raises_hms(NoSuchLockException, f"No such lock lockid:{lock.lockid}"):
            client.check_lock(CheckLockRequest(lockid=lock.lockid))
        with raises_hms(NoSuchLockException, "No such lock", str(lock.lockid)):
            client.heartbeat(HeartbeatRequest(lockid=lock.lockid))


def test_unlocking_a_released_lock_is_harmless(server):
    """unlock is idempotent (Hive 4, and Hive 2.3.10 as observed)."""
    db = unique_name("locks")
    with connected(server) as client:
        lock = client.lock(request(component(db, "t")))
        client.unlock(UnlockRequest(lockid=lock.lockid))
        client.unlock(UnlockRequest(lockid=lock.lockid))
        assert show(client, db) == []


def test_lock_names_are_case_insensitive_in_hive_4(server):
    """Hive 4 lowercases database and table names of lock components, as everywhere; Hive 2.3
    compares them as given, so `T` and `t` do not conflict there."""
    db = unique_name("locks")
    with connected(server) as client:
        lower = client.lock(request(component(db, "t")))
        upper = client.lock(request(component(db.upper(), "T")))
        expected = LockState.WAITING if hive_generation(server) >= 4 else LockState.ACQUIRED
        assert upper.state == expected
        if hive_generation(server) >= 4:
            assert {lock.dbname for lock in show(client, db)} == {db}
        for lock in (lower, upper):
            client.unlock(UnlockRequest(lockid=lock.lockid))


def test_a_lock_in_a_transaction_that_is_not_open_is_no_such_txn(server):
    db = unique_name("locks")
    with connected(server) as client:
        with raises_hms(NoSuchTxnException, "No such transaction txnid:987654321"):
            client.lock(request(component(db, "t"), txnid=987654321))
        assert show(client, db) == []


def test_malformed_lock_requests_are_refused_and_change_nothing(server):
    if server.external:
        pytest.skip("hivestore's own checks: Hive takes these requests as they are")
    db = unique_name("locks")
    with connected(server) as client:
        bad = [request(),
               request(LockComponent(type=LockType.EXCLUSIVE, level=LockLevel.TABLE, dbname=db)),
               request(LockComponent(type=LockType.EXCLUSIVE, level=LockLevel.PARTITION,
                                     dbname=db, tablename="t")),
               request(LockComponent(type=LockType.EXCLUSIVE, level=LockLevel.TABLE, dbname="",
                                     tablename="t")),
               request(LockComponent(type=99, level=LockLevel.TABLE, dbname=db, tablename="t"))]
        for lock_request in bad:
            with pytest.raises(TApplicationException) as caught:
                client.lock(lock_request)
            assert caught.value.message, "the error says what was wrong"
        assert show(client, db) == []
        good = client.lock(request(component(db, "t")))
        assert good.state == LockState.ACQUIRED
        client.unlock(UnlockRequest(lockid=good.lockid))


# --- Expiry and restart: a server of their own, on hivestore only ----------------------------

HOLDER_SCRIPT = """
import sys, time
sys.path.insert(0, {helpers!r})
from hms_helpers import Server, open_client
from hive_metastore.ttypes import LockComponent, LockLevel, LockRequest, LockType
client, transport = open_client(Server("127.0.0.1", {port}))
response = client.lock(LockRequest(component=[LockComponent(type=LockType.EXCLUSIVE,
    level=LockLevel.TABLE, dbname={db!r}, tablename="t")], user="dead", hostname="localhost",
    agentInfo="dead-client"))
print(response.lockid, response.state, flush=True)
time.sleep(600)
"""


@pytest.fixture()
def own_server(tmp_path):
    """A hivestore with a short lock timeout, restartable on the same data directory."""
    if os.environ.get("HMS_URI"):
        pytest.skip("needs a server started with a short --txn-timeout-ms, or restarted")
    from conftest import hivestore_binary, start_hivestore, stop_hivestore

    arguments = ["--txn-timeout-ms", str(EXPIRY_TIMEOUT_MS)]
    servers = [start_hivestore(hivestore_binary(), tmp_path, arguments)]

    def restart(kill=False):
        if kill:
            servers[-1].process.send_signal(signal.SIGKILL)
            servers[-1].process.wait(timeout=30)
        else:
            stop_hivestore(servers[-1])
        servers.append(start_hivestore(hivestore_binary(), tmp_path, arguments))
        return servers[-1]

    yield servers[0], restart
    if servers[-1].process.poll() is None:
        stop_hivestore(servers[-1])


def test_the_lock_of_a_killed_client_expires_and_the_waiter_gets_it(own_server):
    server, _ = own_server
    db = unique_name("locks")
    script = HOLDER_SCRIPT.format(helpers=str(Path(__file__).resolve().parent),
                                  port=server.port, db=db)
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        line = holder.stdout.readline().split()
        assert line and int(line[1]) == LockState.ACQUIRED, line
        dead_lockid = int(line[0])
        with connected(server) as client:
            waiting = client.lock(request(component(db, "t")))
            assert waiting.state == LockState.WAITING
            holder.send_signal(signal.SIGKILL)
            holder.wait(timeout=10)
            # The waiter keeps polling (check_lock heartbeats it); the dead holder cannot.
            assert poll_until_acquired(client, waiting.lockid) == LockState.ACQUIRED
            with raises_hms(NoSuchLockException, f"No such lock lockid:{dead_lockid}"):
                client.check_lock(CheckLockRequest(lockid=dead_lockid))
            client.unlock(UnlockRequest(lockid=waiting.lockid))
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=10)


def test_heartbeats_keep_a_lock_past_the_timeout(own_server):
    server, _ = own_server
    db = unique_name("locks")
    with connected(server) as client:
        lock = client.lock(request(component(db, "t")))
        for _ in range(6):  # three timeouts' worth, heartbeating at a quarter of it
            time.sleep(EXPIRY_TIMEOUT_MS / 4000)
            client.heartbeat(HeartbeatRequest(lockid=lock.lockid))
        assert [held.lockid for held in show(client, db)] == [lock.lockid]
        client.unlock(UnlockRequest(lockid=lock.lockid))


def test_locks_survive_a_restart_in_their_order(own_server):
    server, restart = own_server
    db = unique_name("locks")
    with connected(server) as client:
        held = client.lock(request(component(db, "t")))
        waiting = client.lock(request(component(db, "t")))
    server = restart()
    with connected(server) as client:
        listed = show(client, db)
        assert [(lock.lockid, lock.state) for lock in listed] == [
            (held.lockid, LockState.ACQUIRED), (waiting.lockid, LockState.WAITING)]
        fresh = client.lock(request(component(db, "u")))
        assert fresh.lockid > waiting.lockid, "lock ids are never reused"
        client.unlock(UnlockRequest(lockid=held.lockid))
        assert poll_until_acquired(client, waiting.lockid) == LockState.ACQUIRED
        for lock in (waiting, fresh):
            client.unlock(UnlockRequest(lockid=lock.lockid))


def test_every_acknowledged_lock_change_survives_a_kill_9(own_server):
    """Each lock call answers only once its change is durable: after kill -9 the locks taken,
    released and acquired are exactly as last acknowledged."""
    server, restart = own_server
    db = unique_name("locks")
    with connected(server) as client:
        taken = [client.lock(request(component(db, f"t{index % 3}"))) for index in range(9)]
        for lock in taken[:3]:
            client.unlock(UnlockRequest(lockid=lock.lockid))
        for lock in taken[3:6]:  # the first lock of each table is gone: these acquire
            assert poll_until_acquired(client, lock.lockid) == LockState.ACQUIRED
        expected = [(lock.lockid, lock.lockid in {held.lockid for held in taken[3:6]})
                    for lock in taken[3:]]
    server = restart(kill=True)
    with connected(server) as client:
        listed = show(client, db)
        assert [(lock.lockid, lock.state == LockState.ACQUIRED) for lock in listed] == expected
        for lock in listed:
            client.unlock(UnlockRequest(lockid=lock.lockid))
