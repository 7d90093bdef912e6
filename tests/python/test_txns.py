"""Transactions and write ids through the pyiceberg-vendored client (Hive 4 IDL).

Goal: the sequence Hive's clients drive — open transactions, lock inside them, abort or commit
them, list them (`get_open_txns` with its aborted bit set, `get_open_txns_info`), heartbeat
them, allocate table write ids and turn a transaction snapshot into valid write ids — answers
as Apache's HMS does, with Hive's exception types and texts for transactions that are aborted,
committed or unknown; commit and abort release the transaction's locks, which `unlock` may not
release; a transaction that stops heartbeating is aborted after the timeout.

Method: transaction ids are global to a metastore, so each test compares only the ids it
opened. The transaction sequence runs against the Java reference HMS 2.3 too
(`scripts/compare-with-reference.sh tests/python/test_txns.py`); write ids are Hive 3+ calls,
so those tests skip there; the timeout needs a server of its own (hivestore only).
"""

import os
import time

import pytest
from hive_metastore.ttypes import (
    AbortTxnRequest,
    AbortTxnsRequest,
    AddDynamicPartitions,
    AllocateTableWriteIdsRequest,
    CheckLockRequest,
    CommitTxnRequest,
    CompactionRequest,
    CompactionType,
    DataOperationType,
    GetOpenTxnsRequest,
    GetValidWriteIdsRequest,
    HeartbeatRequest,
    HeartbeatTxnRangeRequest,
    LockComponent,
    LockLevel,
    LockRequest,
    LockState,
    LockType,
    MaxAllocatedTableWriteIdRequest,
    MetaException,
    NoSuchTxnException,
    OpenTxnRequest,
    SeedTxnIdRequest,
    ShowCompactRequest,
    ShowLocksRequest,
    TxnAbortedException,
    TxnOpenException,
    TxnState,
    UnlockRequest,
)

from hms_helpers import (
    call_or_skip_on_reference,
    connected,
    hive_generation,
    raises_hms,
    unique_name,
)

TXN_TIMEOUT_MS = 1500
POLL_COUNT_MAX = 100


def open_txns(client, count):
    response = client.open_txns(OpenTxnRequest(num_txns=count, user="txntester",
                                               hostname="localhost", agentInfo="test_txns"))
    return response.txn_ids


def aborted_flags(response):
    """Which of `response.open_txns` are aborted, from Java's BitSet bytes."""
    bits = response.abortedBits or b""
    return {txn: bool(index // 8 < len(bits) and bits[index // 8] >> (index % 8) & 1)
            for index, txn in enumerate(response.open_txns)}


def txn_states(client):
    """Transaction id -> TxnState of every transaction listed by get_open_txns_info (Hive
    2.3 answers get_open_txns with a set where Hive 4 has a list, unreadable across)."""
    return {txn.id: txn.state for txn in client.get_open_txns_info().open_txns}


def txn_lock(db, txn_id, lock_type=LockType.SHARED_WRITE, table="t"):
    """A lock in a transaction, for an INSERT as Hive's clients send it (Hive 2.3 refuses a
    transactional component without an operation type)."""
    return LockRequest(component=[LockComponent(type=lock_type, level=LockLevel.TABLE, dbname=db,
                                                tablename=table, isTransactional=True,
                                                operationType=DataOperationType.INSERT)],
                       txnid=txn_id, user="txntester", hostname="localhost", agentInfo="test_txns")


def test_open_txns_opens_at_most_one_batch_as_hive_does(server):
    """Hive opens at most `hive.txn.max.open.batch` (1,000) transactions a call and answers a
    larger request with that many ids; hmsbench's openTxns.10000 relies on it."""
    with connected(server) as client:
        opened = open_txns(client, 1500)
        try:
            assert len(opened) == 1000
            assert opened == list(range(opened[0], opened[0] + 1000))
        finally:
            client.abort_txns(AbortTxnsRequest(txn_ids=opened))


def test_open_lock_abort_commit_and_list_transactions(server):
    db = unique_name("txns")
    with connected(server) as client:
        first, second, third = open_txns(client, 3)
        assert [second, third] == [first + 1, first + 2]

        info = {txn.id: txn for txn in client.get_open_txns_info().open_txns}
        assert client.get_open_txns_info().txn_high_water_mark >= third
        assert [info[txn].state for txn in (first, second, third)] == [TxnState.OPEN] * 3
        assert (info[first].user, info[first].hostname) == ("txntester", "localhost")

        lock = client.lock(txn_lock(db, first))
        assert lock.state == LockState.ACQUIRED
        shown = client.show_locks(ShowLocksRequest(dbname=db)).locks
        assert [(entry.lockid, entry.txnid) for entry in shown] == [(lock.lockid, first)]
        with raises_hms(TxnOpenException, "Unlocking locks associated with transaction not permitted"):
            client.unlock(UnlockRequest(lockid=lock.lockid))

        client.abort_txn(AbortTxnRequest(txnid=second))
        states = txn_states(client)
        assert [states[txn] for txn in (first, second, third)] == [
            TxnState.OPEN, TxnState.ABORTED, TxnState.OPEN]

        client.commit_txn(CommitTxnRequest(txnid=first))
        assert first not in txn_states(client)
        assert not client.show_locks(ShowLocksRequest(dbname=db)).locks, "commit released the lock"
        client.abort_txn(AbortTxnRequest(txnid=third))


def test_closed_and_unknown_transactions_answer_hives_exceptions(server):
    db = unique_name("txns")
    with connected(server) as client:
        committed, aborted = open_txns(client, 2)
        # A transaction that wrote: Hive 2.3 only knows a commit by what it wrote.
        client.lock(txn_lock(db, committed))
        client.commit_txn(CommitTxnRequest(txnid=committed))
        client.abort_txn(AbortTxnRequest(txnid=aborted))
        client.abort_txn(AbortTxnRequest(txnid=aborted))  # aborting again is harmless
        unknown = client.get_open_txns_info().txn_high_water_mark + 1000

        with raises_hms(TxnAbortedException, f"Transaction txnid:{aborted} already aborted"):
            client.commit_txn(CommitTxnRequest(txnid=aborted))
        client.commit_txn(CommitTxnRequest(txnid=committed))  # a retried commit: harmless
        with raises_hms(NoSuchTxnException, f"No such transaction txnid:{unknown}"):
            client.commit_txn(CommitTxnRequest(txnid=unknown))
        with raises_hms(NoSuchTxnException, f"Transaction txnid:{committed} is already committed."):
            client.abort_txn(AbortTxnRequest(txnid=committed))
        with raises_hms(NoSuchTxnException, f"No such transaction txnid:{unknown}"):
            client.abort_txn(AbortTxnRequest(txnid=unknown))
        with raises_hms(TxnAbortedException, f"Transaction txnid:{aborted} already aborted"):
            client.heartbeat(HeartbeatRequest(txnid=aborted))
        with raises_hms(TxnAbortedException, f"Transaction txnid:{aborted} already aborted"):
            client.lock(txn_lock(db, aborted))
        assert not client.show_locks(ShowLocksRequest(dbname=db)).locks


def test_heartbeats_and_abort_txns(server):
    with connected(server) as client:
        first, second, third = open_txns(client, 3)
        client.abort_txn(AbortTxnRequest(txnid=second))
        client.commit_txn(CommitTxnRequest(txnid=first))
        client.heartbeat(HeartbeatRequest(txnid=third))
        ranged = client.heartbeat_txn_range(HeartbeatTxnRangeRequest(min=first, max=third))
        assert (set(ranged.aborted), set(ranged.nosuch)) == ({second}, {first})
        unknown = client.get_open_txns_info().txn_high_water_mark + 1000
        client.abort_txns(AbortTxnsRequest(txn_ids=[third, unknown]))
        assert txn_states(client)[third] == TxnState.ABORTED


def test_get_open_txns_flags_aborted_transactions_in_a_bit_set(server):
    if hive_generation(server) < 4:
        pytest.skip("Hive 2.3 answers open_txns as a set<i64>, Hive 3+ as a list with abortedBits")
    with connected(server) as client:
        first, second, third = open_txns(client, 3)
        client.abort_txn(AbortTxnRequest(txnid=second))
        listed = client.get_open_txns()
        assert listed.txn_high_water_mark >= third
        assert listed.min_open_txn is not None and listed.min_open_txn <= first
        flags = aborted_flags(listed)
        assert (flags[first], flags[second], flags[third]) == (False, True, False)
        client.commit_txn(CommitTxnRequest(txnid=first))
        client.abort_txn(AbortTxnRequest(txnid=third))
        assert first not in client.get_open_txns().open_txns


def test_a_lock_of_a_transaction_waits_and_commit_hands_it_on(server):
    db = unique_name("txns")
    with connected(server) as client:
        writer, other = open_txns(client, 2)
        held = client.lock(txn_lock(db, writer, LockType.EXCLUSIVE))
        waiting = client.lock(txn_lock(db, other, LockType.EXCLUSIVE))
        assert (held.state, waiting.state) == (LockState.ACQUIRED, LockState.WAITING)
        client.commit_txn(CommitTxnRequest(txnid=writer))
        assert client.check_lock(CheckLockRequest(lockid=waiting.lockid)).state == LockState.ACQUIRED
        client.abort_txn(AbortTxnRequest(txnid=other))
        assert not client.show_locks(ShowLocksRequest(dbname=db)).locks


def valid_txn_list(response):
    """Hive's ValidTxnList string for a reader that starts now, from get_open_txns."""
    flags = aborted_flags(response)
    open_ids = [txn for txn, aborted in flags.items() if not aborted]
    aborted_ids = [txn for txn, aborted in flags.items() if aborted]
    min_open = min(open_ids) if open_ids else 9223372036854775807
    return (f"{response.txn_high_water_mark}:{min_open}:"
            f"{','.join(map(str, open_ids))}:{','.join(map(str, aborted_ids))}")


def test_write_ids_follow_their_transactions(server):
    db = unique_name("txns")
    table = f"{db}.events"
    with connected(server) as client:
        first, second, third = open_txns(client, 3)
        allocated = call_or_skip_on_reference(server, client.allocate_table_write_ids,
                                              AllocateTableWriteIdsRequest(dbName=db, tableName="Events",
                                                                           txnIds=[second, first]))
        assert [(pair.txnId, pair.writeId) for pair in allocated.txnToWriteIds] == [
            (first, 1), (second, 2)]
        again = client.allocate_table_write_ids(
            AllocateTableWriteIdsRequest(dbName=db, tableName="events", txnIds=[first]))
        assert [(pair.txnId, pair.writeId) for pair in again.txnToWriteIds] == [(first, 1)]
        maximum = client.get_max_allocated_table_write_id(
            MaxAllocatedTableWriteIdRequest(dbName=db, tableName="events"))
        assert maximum.maxWriteId == 2

        client.commit_txn(CommitTxnRequest(txnid=first))
        snapshot = valid_txn_list(client.get_open_txns())
        valid = client.get_valid_write_ids(
            GetValidWriteIdsRequest(fullTableNames=[table], validTxnList=snapshot))
        (ids,) = valid.tblValidWriteIds
        assert (ids.fullTableName, ids.writeIdHighWaterMark) == (table, 2)
        assert ids.invalidWriteIds == [2] and ids.minOpenWriteId == 2
        assert not any(ids.abortedBits or b"")

        client.abort_txn(AbortTxnRequest(txnid=second))
        snapshot = valid_txn_list(client.get_open_txns())
        (ids,) = client.get_valid_write_ids(
            GetValidWriteIdsRequest(fullTableNames=[table], validTxnList=snapshot)).tblValidWriteIds
        assert ids.invalidWriteIds == [2] and ids.minOpenWriteId is None
        assert ids.abortedBits == b"\x01"
        with raises_hms(TxnAbortedException, "Write ID allocation", f"txnid:{second}"):
            client.allocate_table_write_ids(
                AllocateTableWriteIdsRequest(dbName=db, tableName="events", txnIds=[second]))
        client.commit_txn(CommitTxnRequest(txnid=third))


def test_get_open_txns_req_excludes_the_types_asked(server):
    with connected(server) as client:
        (txn,) = open_txns(client, 1)
        listed = call_or_skip_on_reference(server, client.get_open_txns_req,
                                           GetOpenTxnsRequest(excludeTxnTypes=[]))
        assert txn in listed.open_txns
        client.abort_txn(AbortTxnRequest(txnid=txn))


@pytest.fixture()
def short_timeout_server(tmp_path):
    if os.environ.get("HMS_URI"):
        pytest.skip("needs a server started with a short --txn-timeout-ms")
    from conftest import hivestore_binary, start_hivestore, stop_hivestore

    running = start_hivestore(hivestore_binary(), tmp_path,
                              ["--txn-timeout-ms", str(TXN_TIMEOUT_MS)])
    yield running
    stop_hivestore(running)


def test_a_transaction_that_stops_heartbeating_is_aborted_with_its_locks(short_timeout_server):
    db = unique_name("txns")
    with connected(short_timeout_server) as client:
        silent, alive = open_txns(client, 2)
        client.lock(txn_lock(db, silent, LockType.EXCLUSIVE))
        waiting = client.lock(txn_lock(db, alive, LockType.EXCLUSIVE))
        assert waiting.state == LockState.WAITING
        state = waiting.state
        for _ in range(POLL_COUNT_MAX):  # check_lock heartbeats the live transaction
            time.sleep(TXN_TIMEOUT_MS / 4000)
            state = client.check_lock(CheckLockRequest(lockid=waiting.lockid)).state
            if state == LockState.ACQUIRED:
                break
        assert state == LockState.ACQUIRED
        with raises_hms(TxnAbortedException, f"Transaction txnid:{silent} already aborted"):
            client.commit_txn(CommitTxnRequest(txnid=silent))
        client.commit_txn(CommitTxnRequest(txnid=alive))


def test_a_second_update_of_a_partition_is_aborted_on_commit_as_a_write_conflict(server):
    """Two transactions update one partition; the one that commits second started before the
    first committed, so Hive aborts it (Hive 2.3 also makes its lock wait: SHARED_WRITE locks
    exclude each other there, not in Hive 4)."""
    db = unique_name("txns")

    def update_lock(txn_id):
        return LockRequest(component=[LockComponent(
            type=LockType.SHARED_WRITE, level=LockLevel.PARTITION, dbname=db, tablename="t",
            partitionname="p=1", isTransactional=True, operationType=DataOperationType.UPDATE)],
            txnid=txn_id, user="txntester", hostname="localhost", agentInfo="test_txns")

    with connected(server) as client:
        first, second = open_txns(client, 2)
        assert client.lock(update_lock(first)).state == LockState.ACQUIRED
        waiting = client.lock(update_lock(second))
        client.commit_txn(CommitTxnRequest(txnid=first))
        assert client.check_lock(CheckLockRequest(lockid=waiting.lockid)).state == LockState.ACQUIRED
        with raises_hms(TxnAbortedException, f"Aborting [txnid:{second},",
                        f"due to a write conflict on {db}/t/p=1 committed by [txnid:{first},",
                        "u/u"):
            client.commit_txn(CommitTxnRequest(txnid=second))
        assert txn_states(client)[second] == TxnState.ABORTED
        assert not client.show_locks(ShowLocksRequest(dbname=db)).locks


def test_dynamic_partitions_added_later_conflict_like_static_ones(server):
    """A dynamic-partition UPDATE locks the table and names its partitions afterwards with
    add_dynamic_partitions; two overlapping ones on one partition conflict on commit."""
    if hive_generation(server) < 4:
        pytest.skip("Hive 3 renumbered AddDynamicPartitions (writeid became field 2): Hive 2.3 "
                    "cannot read the Hive 4 client's request")
    db = unique_name("txns")

    def dynamic_lock(txn_id):
        return LockRequest(component=[LockComponent(
            type=LockType.SHARED_WRITE, level=LockLevel.TABLE, dbname=db, tablename="t",
            isTransactional=True, isDynamicPartitionWrite=True,
            operationType=DataOperationType.UPDATE)],
            txnid=txn_id, user="txntester", hostname="localhost", agentInfo="test_txns")

    def add_partitions(txn_id):
        client.add_dynamic_partitions(AddDynamicPartitions(
            txnid=txn_id, writeid=0, dbname=db, tablename="t", partitionnames=["p=1"],
            operationType=DataOperationType.UPDATE))

    with connected(server) as client:
        first, second = open_txns(client, 2)
        client.lock(dynamic_lock(first))
        waiting = client.lock(dynamic_lock(second))
        add_partitions(first)
        client.commit_txn(CommitTxnRequest(txnid=first))
        assert client.check_lock(CheckLockRequest(lockid=waiting.lockid)).state == LockState.ACQUIRED
        add_partitions(second)
        with raises_hms(TxnAbortedException, f"due to a write conflict on {db}/t/p=1"):
            client.commit_txn(CommitTxnRequest(txnid=second))
        with raises_hms(TxnAbortedException, f"txnid:{second}"):
            add_partitions(second)


def test_seed_txn_id_moves_the_next_id_forward_only(server):
    with connected(server) as client:
        (txn,) = open_txns(client, 1)
        client.abort_txn(AbortTxnRequest(txnid=txn))
        with raises_hms(MetaException, f"Invalid txnId seed {txn}, the highWaterMark is"):
            call_or_skip_on_reference(server, client.seed_txn_id, SeedTxnIdRequest(seedTxnId=txn))
        high_water_mark = client.get_open_txns_info().txn_high_water_mark
        client.seed_txn_id(SeedTxnIdRequest(seedTxnId=high_water_mark + 50))
        (seeded,) = open_txns(client, 1)
        assert seeded == high_water_mark + 50
        client.abort_txn(AbortTxnRequest(txnid=seeded))


def test_compaction_requests_are_queued_once_and_shown(server):
    """compact2 queues a request unless one for the same table or partition is queued
    (Hive 4 answers a refused request with id -1 and state `refused`); show_compact lists
    them as initiated."""
    db = unique_name("txns")
    with connected(server) as client:
        first = client.compact2(CompactionRequest(dbname=db, tablename="t",
                                                  type=CompactionType.MAJOR, runas="txntester"))
        assert (first.state, first.accepted) == ("initiated", True)
        again = client.compact2(CompactionRequest(dbname=db, tablename="t",
                                                  type=CompactionType.MINOR))
        assert again.accepted is False
        if not server.external:  # Hive 2.3 answered the queued request's id and state
            assert (again.id, again.state) == (-1, "refused")
            assert again.errormessage == (
                f"Compaction is already scheduled with state='initiated' and id={first.id}")
        partition = client.compact2(CompactionRequest(dbname=db, tablename="t",
                                                      partitionname="p=1",
                                                      type=CompactionType.MINOR))
        assert partition.accepted and partition.id > first.id
        client.compact(CompactionRequest(dbname=db, tablename="u", type=CompactionType.MAJOR))
        shown = [element for element in client.show_compact(ShowCompactRequest()).compacts
                 if element.dbname == db]
        assert [(e.tablename, e.partitionname, e.type, e.state) for e in shown] == [
            ("t", None, CompactionType.MAJOR, "initiated"),
            ("t", "p=1", CompactionType.MINOR, "initiated"),
            ("u", None, CompactionType.MAJOR, "initiated"),
        ]
