"""Hive 4's calls for rewriting with and rebuilding materialized views, through the
pyiceberg-vendored client: `get_materialized_views_for_rewriting`,
`get_all_materialized_view_objects_for_rewriting`, `get_materialization_invalidation_info`,
`get_lock_materialization_rebuild`, `heartbeat_lock_materialization_rebuild`.

Goal: the listings answer the views with rewriting enabled (none for a missing database);
the invalidation info says whether a transaction committed after the view's snapshot and
visible in the caller's updated or deleted a source (inserts do not count), and whether a
source was compacted or has a compaction queued, and answers none (`MISSING_RESULT`) where
Hive's handler returns null; a rebuild lock is held by one transaction per view, heartbeated,
released by its rebuild transaction's commit, expires once its transaction ended and the
transaction timeout passed, and survives a restart. The cleaner's `mark_cleaned` of a table
forgets its updates and deletes up to the compaction's highest write id.

Method: sources are transactional ORC tables; transactions allocate write ids and lock their
tables with Hive's operation types, as HiveServer2 does. Hive 2.3 has none of these calls:
every test skips on the reference.
"""

import os
import time

import pytest
from hive_metastore.ttypes import (
    AbortTxnRequest,
    AllocateTableWriteIdsRequest,
    CommitTxnRequest,
    CompactionType,
    CreationMetadata,
    DataOperationType,
    LockComponent,
    LockLevel,
    LockRequest,
    LockState,
    LockType,
    MetaException,
    OpenTxnRequest,
    TxnType,
)
from thrift.Thrift import TApplicationException

from hms_helpers import call_or_skip_on_reference, connected, make_table, raises_hms
from test_compactor import compact, find_next, info, open_compaction_txn
from test_hive_suite_findings import orc_table

NOTHING_OPEN = 9223372036854775807
EXPIRY_TIMEOUT_MS = 1500


def source(client, db, name="src"):
    client.create_table(orc_table(db, name, {"transactional": "true"}))


def view(db, name, snapshot, sources=("src",), rewrite=True):
    table = make_table(db, name, table_type="MATERIALIZED_VIEW",
                       viewOriginalText="select * from src", viewExpandedText="select * from src",
                       rewriteEnabled=rewrite)
    table.creationMetadata = metadata(db, name, snapshot, sources)
    return table


def metadata(db, name, snapshot, sources=("src",)):
    return CreationMetadata(catName="hive", dbName=db, tblName=name,
                            tablesUsed={f"{db}.{table}" for table in sources},
                            validTxnList=snapshot, materializationTime=1700000000000)


def open_txn(client, txn_type=None):
    request = OpenTxnRequest(num_txns=1, user="hive", hostname="localhost", txn_type=txn_type)
    return client.open_txns(request).txn_ids[0]


def write(client, db, table, operation, commit=True):
    """A transaction writing `table` as HiveServer2 does: a write id, then its lock."""
    txn = open_txn(client)
    write_id = client.allocate_table_write_ids(AllocateTableWriteIdsRequest(
        dbName=db, tableName=table, txnIds=[txn])).txnToWriteIds[0].writeId
    lock_type = LockType.SHARED_READ if operation == DataOperationType.INSERT else \
        LockType.SHARED_WRITE
    client.lock(LockRequest(component=[LockComponent(
        type=lock_type, level=LockLevel.TABLE, dbname=db, tablename=table,
        isTransactional=True, operationType=operation)],
        txnid=txn, user="hive", hostname="localhost", agentInfo="test_materialized_views"))
    if commit:
        client.commit_txn(CommitTxnRequest(txnid=txn))
    return txn, write_id


def snapshot(txn_mark, db, *tables):
    """A view's snapshot: `ValidTxnWriteIdList` of (table, high water mark, min open)."""
    parts = [str(txn_mark)] + [f"{db}.{table}:{mark}:{min_open}::"
                               for table, mark, min_open in tables]
    return "$".join(parts)


def now_list(txn_mark, open_ids=()):
    """A caller's `ValidTxnList` with `open_ids` open."""
    min_open = min(open_ids) if open_ids else NOTHING_OPEN
    return f"{txn_mark}:{min_open}:{','.join(map(str, open_ids))}:"


def invalidation(client, creation_metadata, valid_txn_list):
    answer = client.get_materialization_invalidation_info(creation_metadata, valid_txn_list)
    return (answer.sourceTablesUpdateDeleteModified, answer.sourceTablesCompacted)


def assert_no_answer(client, creation_metadata, valid_txn_list):
    with pytest.raises(TApplicationException) as raised:
        client.get_materialization_invalidation_info(creation_metadata, valid_txn_list)
    assert raised.value.type == TApplicationException.MISSING_RESULT
    assert raised.value.message == "get_materialization_invalidation_info failed: unknown result"


def test_views_enabled_for_rewriting_are_listed(client, db, server):
    names = call_or_skip_on_reference(server, client.get_materialized_views_for_rewriting, db)
    assert names == []
    source(client, db)
    first = snapshot(1, db, ("src", 0, NOTHING_OPEN))
    client.create_table(view(db, "mv_b", first))
    client.create_table(view(db, "mv_a", first))
    client.create_table(view(db, "mv_off", first, rewrite=False))
    assert client.get_materialized_views_for_rewriting(db) == ["mv_a", "mv_b"]
    assert client.get_materialized_views_for_rewriting("@hive#" + db) == ["mv_a", "mv_b"]
    assert client.get_materialized_views_for_rewriting(db + "_missing") == []
    everything = client.get_all_materialized_view_objects_for_rewriting()
    mine = [table for table in everything if table.dbName == db]
    assert [table.tableName for table in mine] == ["mv_a", "mv_b"]
    whole = mine[0]
    assert whole.tableType == "MATERIALIZED_VIEW" and whole.rewriteEnabled is True
    assert whole.creationMetadata.tablesUsed == {db + ".src"}
    assert whole.creationMetadata.validTxnList == first
    assert [s.table.tableName for s in whole.creationMetadata.sourceTables] == ["src"]
    assert whole.id == client.get_table(db, "mv_a").id


def test_updates_deletes_and_compactions_invalidate_a_view(client, db, server):
    call_or_skip_on_reference(server, client.get_materialized_views_for_rewriting, db)
    source(client, db)
    built_txn, built_write = write(client, db, "src", DataOperationType.INSERT)
    built = metadata(db, "mv", snapshot(built_txn, db, ("src", built_write, NOTHING_OPEN)))
    client.create_table(view(db, "mv", built.validTxnList))
    assert invalidation(client, built, now_list(built_txn)) == (False, False)

    # An insert after the snapshot invalidates nothing.
    inserted_txn, _ = write(client, db, "src", DataOperationType.INSERT)
    assert invalidation(client, built, now_list(inserted_txn)) == (False, False)

    # An update not yet committed: the table's lowest open write id moved, so Hive answers
    # nothing, unless the caller's snapshot is from before the update started.
    updating, _ = write(client, db, "src", DataOperationType.UPDATE, commit=False)
    assert_no_answer(client, built, now_list(updating, [updating]))
    assert invalidation(client, built, now_list(inserted_txn)) == (False, False)
    client.commit_txn(CommitTxnRequest(txnid=updating))
    assert invalidation(client, built, now_list(updating)) == (True, False)
    # A caller whose snapshot does not see the update is not told of it.
    assert invalidation(client, built, now_list(inserted_txn)) == (False, False)

    # A delete of another table counts for the views reading it only.
    source(client, db, "other")
    write(client, db, "other", DataOperationType.DELETE)
    only_other = metadata(db, "mv2", snapshot(updating, db, ("src", 3, NOTHING_OPEN)))
    latest = client.get_open_txns().txn_high_water_mark
    assert invalidation(client, only_other, now_list(latest)) == (False, False)

    # A queued compaction, then a completed one above the snapshot, mark a view compacted; a
    # view built after the compaction's write id is not.
    queued = compact(client, db, "src")
    assert queued.accepted
    assert invalidation(client, built, now_list(latest)) == (True, True)
    ci = find_next(client)
    assert ci.id == queued.id
    compactor_txn = open_compaction_txn(client)
    client.update_compactor_state(info(ci, highestWriteId=3, runas="hive"), compactor_txn)
    client.mark_compacted(info(ci))
    client.commit_txn(CommitTxnRequest(txnid=compactor_txn))
    client.mark_cleaned(info(ci, highestWriteId=3))
    latest = client.get_open_txns().txn_high_water_mark
    # Cleaning the table forgot its update up to the compaction's write id, as Hive deletes
    # its COMPLETED_TXN_COMPONENTS rows there: the view is told it was compacted.
    assert invalidation(client, built, now_list(latest)) == (False, True)
    rebuilt = metadata(db, "mv", snapshot(latest, db, ("src", 3, NOTHING_OPEN)))
    assert invalidation(client, rebuilt, now_list(latest)) == (False, False)
    # An update above it is kept through another cleaning of a lower write id.
    updated_again, _ = write(client, db, "src", DataOperationType.UPDATE)
    client.mark_cleaned(info(ci, highestWriteId=3))
    assert invalidation(client, rebuilt, now_list(updated_again)) == (True, False)


def test_the_views_snapshot_in_hives_forms(client, db, server):
    call_or_skip_on_reference(server, client.get_materialized_views_for_rewriting, db)
    source(client, db)
    txn, write_id = write(client, db, "src", DataOperationType.INSERT)
    bare = snapshot(txn, db, ("src", write_id, NOTHING_OPEN))
    updated, _ = write(client, db, "src", DataOperationType.UPDATE)
    as_json = metadata(db, "mv", '{"validTxnList":"%s","tableSnapshots":null}' % bare)
    assert invalidation(client, as_json, now_list(updated)) == (True, False)
    # Hive answers nothing for non-native sources, no tables used, or a source the snapshot
    # does not list.
    iceberg = metadata(db, "mv", '{"validTxnList":null,"tableSnapshots":{"%s.src":{}}}' % db)
    assert_no_answer(client, iceberg, now_list(updated))
    assert_no_answer(client, metadata(db, "mv", bare, sources=()), now_list(updated))
    source(client, db, "unlisted")
    assert_no_answer(client, metadata(db, "mv", bare, sources=("src", "unlisted")),
                     now_list(updated))
    with raises_hms(MetaException, "validTxnList", "is malformed"):
        client.get_materialization_invalidation_info(metadata(db, "mv", "x$y"), now_list(1))
    with raises_hms(MetaException, "validTxnList", "is malformed"):
        client.get_materialization_invalidation_info(metadata(db, "mv", bare), "zz")
    with raises_hms(MetaException, "is not <database>.<table>"):
        odd = CreationMetadata(catName="hive", dbName=db, tblName="mv", tablesUsed={"plain"},
                               validTxnList=f"{txn}$plain:1:{NOTHING_OPEN}::")
        client.get_materialization_invalidation_info(odd, now_list(updated))


def lock(client, db, name, txn):
    return client.get_lock_materialization_rebuild(db, name, txn)


def test_a_rebuild_lock_is_held_by_one_transaction_until_its_rebuild_commits(client, db, server):
    rebuild = open_txn(client, TxnType.MATER_VIEW_REBUILD)
    acquired = call_or_skip_on_reference(server, lock, client, db, "mv", rebuild)
    assert (acquired.lockid, acquired.state) == (rebuild, LockState.ACQUIRED)
    other = open_txn(client)
    assert lock(client, db, "mv", other).state == LockState.NOT_ACQUIRED
    # Hive refuses the holder a second time too.
    assert lock(client, db, "mv", rebuild).state == LockState.NOT_ACQUIRED
    assert lock(client, db, "mv_other", other).state == LockState.ACQUIRED
    assert client.heartbeat_lock_materialization_rebuild(db, "mv", rebuild) is True
    assert client.heartbeat_lock_materialization_rebuild(db, "mv", other) is False
    assert client.heartbeat_lock_materialization_rebuild(db, "nothing", rebuild) is False
    client.commit_txn(CommitTxnRequest(txnid=rebuild))
    assert client.heartbeat_lock_materialization_rebuild(db, "mv", rebuild) is False
    later = open_txn(client, TxnType.MATER_VIEW_REBUILD)
    assert lock(client, db, "mv", later).state == LockState.ACQUIRED
    # A transaction of another type keeps its lock past its commit, until the timeout.
    client.commit_txn(CommitTxnRequest(txnid=other))
    assert lock(client, db, "mv_other", later).state == LockState.NOT_ACQUIRED
    client.commit_txn(CommitTxnRequest(txnid=later))
    with pytest.raises(TApplicationException) as raised:
        lock(client, db, "v" * 300, later)
    assert "at most 256" in raised.value.message


@pytest.fixture()
def own_server(tmp_path):
    """A hivestore with a short transaction timeout, restartable on the same data."""
    if os.environ.get("HMS_URI"):
        pytest.skip("needs a server started with a short --txn-timeout-ms, and restarted")
    from conftest import hivestore_binary, start_hivestore, stop_hivestore

    arguments = ["--txn-timeout-ms", str(EXPIRY_TIMEOUT_MS)]
    servers = [start_hivestore(hivestore_binary(), tmp_path, arguments)]

    def restart():
        stop_hivestore(servers[-1])
        servers.append(start_hivestore(hivestore_binary(), tmp_path, arguments))
        return servers[-1]

    yield servers[0], restart
    if servers[-1].process.poll() is None:
        stop_hivestore(servers[-1])


def test_a_rebuild_lock_expires_after_its_transaction_ended(own_server):
    server, _ = own_server
    with connected(server) as client:
        aborted = open_txn(client, TxnType.MATER_VIEW_REBUILD)
        assert lock(client, "db", "mv", aborted).state == LockState.ACQUIRED
        client.abort_txn(AbortTxnRequest(txnid=aborted))
        waiting = open_txn(client, TxnType.MATER_VIEW_REBUILD)
        assert lock(client, "db", "mv", waiting).state == LockState.NOT_ACQUIRED
        # Heartbeating the lock (and its transaction) keeps it past the timeout.
        holder = open_txn(client, TxnType.MATER_VIEW_REBUILD)
        assert lock(client, "db", "kept", holder).state == LockState.ACQUIRED
        for _ in range(6):
            time.sleep(EXPIRY_TIMEOUT_MS / 4000)
            client.heartbeat_txn_range(_range(holder, waiting))
            assert client.heartbeat_lock_materialization_rebuild("db", "kept", holder) is True
        assert lock(client, "db", "kept", waiting).state == LockState.NOT_ACQUIRED
        # The aborted transaction's lock was not heartbeated: it is gone.
        assert client.heartbeat_lock_materialization_rebuild("db", "mv", aborted) is False
        assert lock(client, "db", "mv", waiting).state == LockState.ACQUIRED


def _range(first, second):
    from hive_metastore.ttypes import HeartbeatTxnRangeRequest
    return HeartbeatTxnRangeRequest(min=min(first, second), max=max(first, second))


def test_rebuild_locks_and_update_marks_survive_a_restart(own_server):
    server, restart = own_server
    with connected(server) as client:
        from hive_metastore.ttypes import Database
        client.create_database(Database(name="durable"))
        source(client, "durable")
        built_txn, built_write = write(client, "durable", "src", DataOperationType.INSERT)
        built = metadata("durable", "mv",
                         snapshot(built_txn, "durable", ("src", built_write, NOTHING_OPEN)))
        updated, _ = write(client, "durable", "src", DataOperationType.UPDATE)
        holder = open_txn(client, TxnType.MATER_VIEW_REBUILD)
        assert lock(client, "durable", "mv", holder).state == LockState.ACQUIRED
    server = restart()
    with connected(server) as client:
        other = open_txn(client, TxnType.MATER_VIEW_REBUILD)
        assert lock(client, "durable", "mv", other).state == LockState.NOT_ACQUIRED
        assert client.heartbeat_lock_materialization_rebuild("durable", "mv", holder) is True
        assert invalidation(client, built, now_list(updated)) == (True, False)
        client.commit_txn(CommitTxnRequest(txnid=holder))
        assert lock(client, "durable", "mv", other).state == LockState.ACQUIRED
