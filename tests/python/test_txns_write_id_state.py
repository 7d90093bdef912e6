"""Write id state for conversion and replication, the lowest open write ids a reader saw,
conflicts a transaction may still meet, and writes reported with a commit, through the
pyiceberg-vendored client (Hive 4 IDL).

Goal: `seed_write_id` starts the write ids of a table that has none and refuses one that has
some, changing nothing; `repl_tbl_writeid_state` gives a table the replicated high water mark
and aborted write ids (each behind an aborted transaction, a major compaction queued) and is
a no-op when repeated; `add_write_ids_to_min_history` is refused for a transaction that is not
open and for a malformed table name; `get_latest_txnid_in_conflict` names the latest committed
transaction that updated what an open one updates; `commit_txn` with `writeEventInfos` records
them as `add_write_notification_log` does (`get_all_write_event_info`, `ACID_WRITE` events)
and, when one names a missing table, changes nothing and leaves the transaction open;
`commit_txn` with `keyValue` sets an existing `_meta` table parameter with the commit, and
refuses any other key (changing nothing).

Method: names and transactions are unique per test. Hive 2.3 has none of these calls (write
ids came with Hive 3, the rest with Hive 4): against the reference every test skips on its
UNKNOWN_METHOD answer.
"""

import json

import pytest

from hive_metastore.ttypes import (
    AbortTxnRequest,
    AllocateTableWriteIdsRequest,
    CommitTxnKeyValue,
    CommitTxnRequest,
    Database,
    DataOperationType,
    FieldSchema,
    GetAllWriteEventInfoRequest,
    GetOpenTxnsRequest,
    GetValidWriteIdsRequest,
    LockComponent,
    LockLevel,
    LockRequest,
    LockType,
    MaxAllocatedTableWriteIdRequest,
    MetaException,
    NotificationEventRequest,
    OpenTxnRequest,
    Partition,
    ReplTblWriteIdStateRequest,
    SeedTableWriteIdsRequest,
    ShowCompactRequest,
    TxnState,
    WriteEventInfo,
)
from thrift.Thrift import TApplicationException, TType

from hms_helpers import (
    call_method,
    call_or_skip_on_reference,
    connected,
    make_table,
    raises_hms,
    storage_descriptor,
    unique_name,
)

COLUMNS = [FieldSchema("id", "int", None)]
KEYS = [FieldSchema("ds", "string", None)]


def open_txn(client):
    return client.open_txns(OpenTxnRequest(num_txns=1, user="txntester",
                                           hostname="localhost")).txn_ids[0]


def max_write_id(client, db, table):
    return client.get_max_allocated_table_write_id(
        MaxAllocatedTableWriteIdRequest(dbName=db, tableName=table)).maxWriteId


def test_seed_write_id_starts_a_table_once(server):
    db = unique_name("wid")
    with connected(server) as client:
        call_or_skip_on_reference(server, client.seed_write_id,
                                  SeedTableWriteIdsRequest(dbName=db, tableName="T", seedWriteId=41))
        assert max_write_id(client, db, "t") == 41
        txn = open_txn(client)
        allocated = client.allocate_table_write_ids(
            AllocateTableWriteIdsRequest(dbName=db, tableName="t", txnIds=[txn]))
        assert [pair.writeId for pair in allocated.txnToWriteIds] == [42]
        with raises_hms(MetaException, f"{db}.t already has write ids"):
            client.seed_write_id(SeedTableWriteIdsRequest(dbName=db, tableName="t", seedWriteId=7))
        with raises_hms(MetaException, "is negative"):
            client.seed_write_id(SeedTableWriteIdsRequest(dbName=db, tableName="u", seedWriteId=-1))
        assert max_write_id(client, db, "t") == 42 and max_write_id(client, db, "u") == 0
        client.abort_txn(AbortTxnRequest(txnid=txn))


def test_repl_write_id_state_aborts_the_aborted_write_ids_once(server):
    db = unique_name("wid")
    table = f"{db}.r"
    with connected(server) as client:
        request = ReplTblWriteIdStateRequest(
            validWriteIdlist=f"{table}:6:3:3:2,5", user="repl", hostName="replhost",
            dbName=db, tableName="r", partNames=["ds=1", "ds=2"])
        call_or_skip_on_reference(server, client.repl_tbl_writeid_state, request)
        assert max_write_id(client, db, "r") == 6
        (ids,) = client.get_valid_write_ids(GetValidWriteIdsRequest(
            fullTableNames=[table])).tblValidWriteIds
        assert (ids.writeIdHighWaterMark, ids.invalidWriteIds) == (6, [2, 5])
        assert ids.abortedBits == b"\x03" and ids.minOpenWriteId is None
        aborted = [txn for txn in client.get_open_txns_info().open_txns
                   if txn.user == "repl" and txn.hostname == "replhost"
                   and txn.state == TxnState.ABORTED]
        assert len(aborted) >= 2
        compactions = [(c.partitionname, c.type, c.state)
                       for c in client.show_compact(ShowCompactRequest()).compacts
                       if c.dbname == db]
        assert [c[0] for c in compactions] == ["ds=1", "ds=2"]
        assert {c[2] for c in compactions} == {"initiated"}

        before = max_write_id(client, db, "r")
        client.repl_tbl_writeid_state(request)
        assert max_write_id(client, db, "r") == before
        shown = client.show_compact(ShowCompactRequest()).compacts
        assert len([c for c in shown if c.dbname == db]) == 2

        bad = ReplTblWriteIdStateRequest(validWriteIdlist="nonsense", user="repl",
                                         hostName="h", dbName=db, tableName="other")
        try:
            client.repl_tbl_writeid_state(bad)
            raise AssertionError("a malformed validWriteIdList was accepted")
        except TApplicationException as error:
            assert "validWriteIdList" in error.message and "malformed" in error.message
        assert max_write_id(client, db, "other") == 0


def add_min_history(client, txn, write_ids):
    """add_write_ids_to_min_history, which the vendored (older) IDL lacks."""
    return call_method(
        client, "add_write_ids_to_min_history",
        [(1, TType.I64, "txnId", None, txn),
         (2, TType.MAP, "writeIds", (TType.STRING, "UTF8", TType.I64, None, False), write_ids)],
        [(1, TType.STRUCT, "o2", [MetaException, None])])


def test_min_history_is_refused_for_transactions_that_are_not_open(server):
    db = unique_name("wid")
    with connected(server) as client:
        txn = open_txn(client)
        call_or_skip_on_reference(server, add_min_history, client, txn,
                                  {f"{db}.t": 3, f"{db}.u": 1})
        with raises_hms(MetaException, "is not a full table name"):
            add_min_history(client, txn, {"no_dot": 1})
        with raises_hms(MetaException, "is not positive"):
            add_min_history(client, txn, {f"{db}.t": 0})
        client.commit_txn(CommitTxnRequest(txnid=txn))
        with raises_hms(MetaException, f"txnid:{txn}", "is not open"):
            add_min_history(client, txn, {f"{db}.t": 3})
        with raises_hms(MetaException, "no such transaction"):
            add_min_history(client, -4, {f"{db}.t": 3})


def update_lock(db, txn, partition="ds=1"):
    return LockRequest(component=[LockComponent(
        type=LockType.SHARED_WRITE, level=LockLevel.PARTITION, dbname=db, tablename="t",
        partitionname=partition, isTransactional=True, operationType=DataOperationType.UPDATE)],
        txnid=txn, user="txntester", hostname="localhost")


def test_latest_txnid_in_conflict_names_a_later_committed_update(server):
    db = unique_name("wid")
    with connected(server) as client:
        first, second, other = client.open_txns(OpenTxnRequest(
            num_txns=3, user="txntester", hostname="localhost")).txn_ids
        assert call_or_skip_on_reference(server, client.get_latest_txnid_in_conflict, second) == 0
        client.lock(update_lock(db, first))
        client.lock(update_lock(db, second))
        client.lock(update_lock(db, other, partition="ds=2"))
        client.commit_txn(CommitTxnRequest(txnid=first))
        assert client.get_latest_txnid_in_conflict(second) == first
        assert client.get_latest_txnid_in_conflict(other) == 0
        assert client.get_latest_txnid_in_conflict(first) == 0, "a committed one has no writes"
        assert client.get_latest_txnid_in_conflict(-1) == 0
        client.abort_txn(AbortTxnRequest(txnid=second))
        client.abort_txn(AbortTxnRequest(txnid=other))


def test_commit_records_its_write_event_infos(server):
    db = unique_name("wid")
    with connected(server) as client:
        client.create_database(Database(name=db, description="", locationUri=None,
                                        parameters={}))
        client.create_table(make_table(db, "w", columns=COLUMNS, partition_keys=KEYS))
        client.add_partitions([Partition(values=["1"], dbName=db, tableName="w",
                                         sd=storage_descriptor(COLUMNS), parameters={})])
        txn = open_txn(client)
        (pair,) = call_or_skip_on_reference(
            server, client.allocate_table_write_ids,
            AllocateTableWriteIdsRequest(dbName=db, tableName="w", txnIds=[txn])).txnToWriteIds
        missing = WriteEventInfo(writeId=pair.writeId, database=db, table="gone",
                                 files="file:/x/b0")
        try:
            client.commit_txn(CommitTxnRequest(txnid=txn, writeEventInfos=[missing]))
            raise AssertionError("a write to a missing table was committed")
        except TApplicationException as error:
            assert "gone" in error.message
        assert txn in client.get_open_txns_req(GetOpenTxnsRequest()).open_txns
        assert not client.get_all_write_event_info(GetAllWriteEventInfoRequest(txnId=txn))

        start = client.get_current_notificationEventId().eventId
        info = WriteEventInfo(writeId=pair.writeId, database=db, table="w",
                              files="file:/w/ds=1/delta_1/b0,file:/w/ds=1/delta_1/b1",
                              partition="ds=1")
        client.commit_txn(CommitTxnRequest(txnid=txn, writeEventInfos=[info]))
        infos = client.get_all_write_event_info(GetAllWriteEventInfoRequest(txnId=txn))
        assert [(i.writeId, i.table, i.partition, i.files) for i in infos] == [
            (pair.writeId, "w", "ds=1", info.files)]
        events = client.get_next_notification(NotificationEventRequest(lastEvent=start)).events
        assert [e.eventType for e in events] == ["ACID_WRITE", "COMMIT_TXN"]
        commit = json.loads(events[1].message)
        assert (commit["txnid"], commit["writeIds"], commit["tables"]) == (
            txn, [pair.writeId], ["w"])


def test_commit_sets_a_meta_table_parameter_with_the_transaction(server):
    if server.external:
        pytest.skip("Hive 2.3's CommitTxnRequest has no keyValue: it would ignore the field")
    db = unique_name("wid")
    with connected(server) as client:
        client.create_database(Database(name=db, description="", locationUri=None,
                                        parameters={}))
        table = make_table(db, "k", columns=COLUMNS)
        table.parameters = {"_meta.snapshot": "1", "plain": "p"}
        client.create_table(table)
        table_id = client.get_table(db, "k").id
        txn = open_txn(client)

        def commit(key):
            value = CommitTxnKeyValue(tableId=table_id, key=key, value="2")
            client.commit_txn(CommitTxnRequest(txnid=txn, keyValue=value))

        for refused, text in (("plain", "key should start with _meta"),
                              ("_meta.missing", "has no parameter _meta.missing")):
            try:
                commit(refused)
                raise AssertionError(f"key {refused} was committed")
            except TApplicationException as error:
                assert text in error.message
        assert client.get_table(db, "k").parameters["_meta.snapshot"] == "1"
        assert txn in client.get_open_txns_req(GetOpenTxnsRequest()).open_txns
        commit("_meta.snapshot")
        parameters = client.get_table(db, "k").parameters
        assert (parameters["_meta.snapshot"], parameters["plain"]) == ("2", "p")
        assert txn not in client.get_open_txns_req(GetOpenTxnsRequest()).open_txns
