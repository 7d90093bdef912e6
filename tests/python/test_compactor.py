"""The compactor's calls, as HiveServer2's initiator, workers and cleaner make them, through
the pyiceberg-vendored client and raw calls for the Hive 4 fields its IDL lacks.

Goal: `find_next_compact(2)` hands the oldest initiated request (of the worker's pool) to a
worker and marks it `working` with the worker's id, version and start; the answer is Hive's
struct field for field (properties in Hive's `StringableMap` text, the unset state a NUL);
`update_compactor_state`, `set_hadoop_jobid`, `mark_compacted` (ready for cleaning, worker
cleared), the commit of the compactor's transaction (next txn id, commit time) and
`mark_cleaned` (succeeded, reported by `get_latest_committed_compaction_info`) move it as
Hive's `CompactionTxnHandler` does; `mark_failed` / `mark_refused` move it to the history, an
id never queued is `did not initiate`, and unknown ids and malformed structs get Hive's
errors and change nothing; the history keeps Hive's counts; `find_columns_with_stats` names
the columns with statistics; the metrics calls answer as Hive's; all of it survives a
restart.

Method: every test leaves no request initiated, so that `find_next_compact` answers only its
own. Hive 2.3 has none of these calls: against the reference every test skips.
"""

import json

import pytest
from hive_metastore.ttypes import (
    ColumnStatistics,
    ColumnStatisticsData,
    ColumnStatisticsDesc,
    ColumnStatisticsObj,
    CommitTxnRequest,
    CompactionInfoStruct,
    CompactionMetricsDataRequest,
    CompactionMetricsDataStruct,
    CompactionMetricsMetricType,
    CompactionType,
    Database,
    DoubleColumnStatsData,
    FieldSchema,
    FindNextCompactRequest,
    GetLatestCommittedCompactionInfoRequest,
    LongColumnStatsData,
    MetaException,
    NotificationEventRequest,
    OpenTxnRequest,
    Partition,
    ShowCompactRequest,
    TxnType,
)
from thrift.Thrift import TApplicationException, TType

from hms_helpers import (
    call_method,
    call_or_skip_on_reference,
    connected,
    make_struct,
    make_table,
    raises_hms,
    storage_descriptor,
    unique_name,
)

S = "UTF8"
REBALANCE = 3  # Hive 4's CompactionType.REBALANCE, which pyiceberg's IDL lacks
COMPACTION_REQUEST = make_struct("CompactionRequest", [
    (1, TType.STRING, "dbname", S, None), (2, TType.STRING, "tablename", S, None),
    (3, TType.STRING, "partitionname", S, None), (4, TType.I32, "type", None, None),
    (5, TType.STRING, "runas", S, None),
    (6, TType.MAP, "properties", (TType.STRING, S, TType.STRING, S, False), None),
    (7, TType.STRING, "initiatorId", S, None), (8, TType.STRING, "initiatorVersion", S, None),
    (9, TType.STRING, "poolName", S, None), (10, TType.I32, "numberOfBuckets", None, None),
    (11, TType.STRING, "orderByClause", S, None)])
COMPACTION_RESPONSE = make_struct("CompactionResponse", [
    (1, TType.I64, "id", None, None), (2, TType.STRING, "state", S, None),
    (3, TType.BOOL, "accepted", None, None), (4, TType.STRING, "errormessage", S, None)])
INFO = make_struct("CompactionInfoStruct", [
    (1, TType.I64, "id", None, None), (2, TType.STRING, "dbname", S, None),
    (3, TType.STRING, "tablename", S, None), (4, TType.STRING, "partitionname", S, None),
    (5, TType.I32, "type", None, None), (6, TType.STRING, "runas", S, None),
    (7, TType.STRING, "properties", S, None), (8, TType.BOOL, "toomanyaborts", None, None),
    (9, TType.STRING, "state", S, None), (10, TType.STRING, "workerId", S, None),
    (11, TType.I64, "start", None, None), (12, TType.I64, "highestWriteId", None, None),
    (13, TType.STRING, "errorMessage", S, None), (14, TType.BOOL, "hasoldabort", None, None),
    (15, TType.I64, "enqueueTime", None, None), (16, TType.I64, "retryRetention", None, None),
    (17, TType.STRING, "poolname", S, None), (18, TType.I32, "numberOfBuckets", None, None),
    (19, TType.STRING, "orderByClause", S, None)])
OPTIONAL_INFO = make_struct("OptionalCompactionInfoStruct",
                            [(1, TType.STRUCT, "ci", [INFO, None], None)])
NEXT_REQUEST = make_struct("FindNextCompactRequest", [
    (1, TType.STRING, "workerId", S, None), (2, TType.STRING, "workerVersion", S, None),
    (3, TType.STRING, "poolName", S, None)])
ELEMENT = make_struct("ShowCompactResponseElement", [
    (1, TType.STRING, "dbname", S, None), (2, TType.STRING, "tablename", S, None),
    (3, TType.STRING, "partitionname", S, None), (4, TType.I32, "type", None, None),
    (5, TType.STRING, "state", S, None), (6, TType.STRING, "workerid", S, None),
    (7, TType.I64, "start", None, None), (8, TType.STRING, "runAs", S, None),
    (9, TType.I64, "hightestTxnId", None, None), (10, TType.STRING, "metaInfo", S, None),
    (11, TType.I64, "endTime", None, None), (12, TType.STRING, "hadoopJobId", S, "None"),
    (13, TType.I64, "id", None, None), (14, TType.STRING, "errorMessage", S, None),
    (15, TType.I64, "enqueueTime", None, None), (16, TType.STRING, "workerVersion", S, None),
    (17, TType.STRING, "initiatorId", S, None), (18, TType.STRING, "initiatorVersion", S, None),
    (19, TType.I64, "cleanerStart", None, None), (20, TType.STRING, "poolName", S, None),
    (21, TType.I64, "nextTxnId", None, None), (22, TType.I64, "txnId", None, None),
    (23, TType.I64, "commitTime", None, None), (24, TType.I64, "hightestWriteId", None, None)])
SHOW_RESPONSE = make_struct("ShowCompactResponse", [
    (1, TType.LIST, "compacts", (TType.STRUCT, [ELEMENT, None], False), None)])
META = (1, TType.STRUCT, "o1", [MetaException, None])


def compact(client, db, table="t", partition=None, **fields):
    request = COMPACTION_REQUEST(dbname=db, tablename=table, partitionname=partition,
                                 type=fields.pop("type", CompactionType.MAJOR), **fields)
    return call_method(client, "compact2",
                       [(1, TType.STRUCT, "rqst", [COMPACTION_REQUEST, None], request)],
                       [(0, TType.STRUCT, "success", [COMPACTION_RESPONSE, None])])


def find_next(client, worker="host-17", version="4.0.1", pool=None):
    request = NEXT_REQUEST(workerId=worker, workerVersion=version, poolName=pool)
    answer = call_method(client, "find_next_compact2",
                         [(1, TType.STRUCT, "rqst", [NEXT_REQUEST, None], request)],
                         [(0, TType.STRUCT, "success", [OPTIONAL_INFO, None]), META])
    return answer.ci


def shown(client, db):
    response = call_method(
        client, "show_compact",
        [(1, TType.STRUCT, "rqst", [ShowCompactRequest, None], ShowCompactRequest())],
        [(0, TType.STRUCT, "success", [SHOW_RESPONSE, None])])
    return {element.id: element for element in response.compacts if element.dbname == db}


def info(ci, **changes):
    """The struct a worker sends back: what it was handed, with its own fields set."""
    fields = dict(id=ci.id, dbname=ci.dbname, tablename=ci.tablename,
                  partitionname=ci.partitionname, type=ci.type, runas=ci.runas,
                  properties=ci.properties, state=ci.state)
    fields.update(changes)
    return CompactionInfoStruct(**fields)


def open_compaction_txn(client):
    request = OpenTxnRequest(num_txns=1, user="hive", hostname="localhost",
                             txn_type=TxnType.COMPACTION)
    return client.open_txns(request).txn_ids[0]


def test_a_worker_round_moves_a_request_through_hives_states(server):
    db = unique_name("compactor")
    with connected(server) as client:
        call_or_skip_on_reference(server, client.find_next_compact, "probe")
        queued = compact(client, db, "t", "p=1", properties={"compactor.k": "v"},
                         initiatorId="initiator-1")
        assert (queued.state, queued.accepted) == ("initiated", True)
        ci = find_next(client)
        assert (ci.id, ci.dbname, ci.tablename, ci.partitionname, ci.type) == (
            queued.id, db, "t", "p=1", CompactionType.MAJOR)
        # Hive's struct: read before the request is marked working, state never set.
        assert (ci.properties, ci.state, ci.workerId, ci.runas) == (
            "1:11:compactor.k1:v", "\x00", None, None)
        assert (ci.start, ci.highestWriteId, ci.enqueueTime, ci.numberOfBuckets) == (0, 0, 0, 0)
        assert (ci.toomanyaborts, ci.hasoldabort, ci.poolname) == (False, False, None)
        working = shown(client, db)[queued.id]
        assert (working.state, working.workerid, working.workerVersion) == (
            "working", "host-17", "4.0.1")
        assert working.start > 0 and working.metaInfo is None
        assert find_next(client) is None
        refused = compact(client, db, "t", "p=1")
        assert (refused.id, refused.state, refused.accepted) == (-1, "refused", False)
        assert refused.errormessage == (
            f"Compaction is already scheduled with state='working' and id={queued.id}")

        txn = open_compaction_txn(client)
        client.update_compactor_state(info(ci, highestWriteId=3, runas="hive"), txn)
        client.set_hadoop_jobid("job_1700000000000_0001", queued.id)
        client.mark_compacted(info(ci))
        compacted = shown(client, db)[queued.id]
        assert (compacted.state, compacted.workerid, compacted.hadoopJobId) == (
            "ready for cleaning", None, "job_1700000000000_0001")
        assert (compacted.hightestWriteId, compacted.txnId, compacted.runAs) == (3, txn, "hive")
        assert (compacted.nextTxnId, compacted.commitTime) == (None, None)
        (later,) = client.open_txns(OpenTxnRequest(num_txns=1, user="u",
                                                   hostname="h")).txn_ids
        last_event = client.get_current_notificationEventId().eventId
        client.commit_txn(CommitTxnRequest(txnid=txn))
        events = client.get_next_notification(
            NotificationEventRequest(lastEvent=last_event)).events
        assert [e.eventType for e in events] == ["COMMIT_TXN", "COMMIT_COMPACTION"]
        logged = events[1]
        assert (logged.catName, logged.dbName, logged.tableName) == ("hive", db, "t")
        message = json.loads(logged.message)
        assert {key: message[key] for key in (
            "txnid", "compactionId", "type", "dbname", "tableName", "partName")} == {
            "txnid": txn, "compactionId": queued.id, "type": "MAJOR", "dbname": db,
            "tableName": "t", "partName": "p=1"}
        committed = shown(client, db)[queued.id]
        assert committed.nextTxnId == later and committed.commitTime >= compacted.start
        latest = client.get_latest_committed_compaction_info(
            GetLatestCommittedCompactionInfoRequest(dbname=db, tablename="t"))
        assert [c.id for c in latest.compactions] == [queued.id]

        client.mark_cleaned(info(ci, highestWriteId=3))
        cleaned = shown(client, db)[queued.id]
        assert cleaned.state == "succeeded" and cleaned.endTime >= committed.commitTime
        latest = client.get_latest_committed_compaction_info(
            GetLatestCommittedCompactionInfoRequest(dbname=db, tablename="t"))
        assert [c.id for c in latest.compactions] == [queued.id]
        with raises_hms(MetaException,
                        "The update count was 0 which is not the expected. Rolling back."):
            client.mark_compacted(info(ci))
        again = compact(client, db, "t", "p=1")
        assert again.accepted and again.id > queued.id
        assert find_next(client, worker="host-18").id == again.id
        client.mark_refused(info(find_next_struct(again.id, db, "t", "p=1"),
                                 errorMessage="not now"))
        assert shown(client, db)[again.id].state == "refused"


def find_next_struct(id_, db, table, partition):
    return CompactionInfoStruct(id=id_, dbname=db, tablename=table, partitionname=partition,
                                type=CompactionType.MAJOR)


def test_failures_and_bad_reports_get_hives_errors_and_change_nothing(server):
    db = unique_name("compactor")
    with connected(server) as client:
        call_or_skip_on_reference(server, client.find_next_compact, "probe")
        queued = compact(client, db)
        ci = find_next(client, worker="host-3")
        client.mark_failed(info(ci, errorMessage="java.io.IOException: disk"))
        failed = shown(client, db)[queued.id]
        assert (failed.state, failed.errorMessage, failed.workerid) == (
            "failed", "java.io.IOException: disk", "host-3")
        assert failed.endTime >= failed.start > 0
        before = shown(client, db)
        with raises_hms(TApplicationException,
                        f"No record with CQ_ID={queued.id} found in COMPACTION_QUEUE"):
            client.mark_failed(info(ci))
        with raises_hms(TApplicationException, "No record with CQ_ID="):
            client.mark_refused(info(ci))
        unknown = queued.id + 1_000_000
        with raises_hms(MetaException, "The update count was 0"):
            client.mark_compacted(find_next_struct(unknown, db, "t", None))
        with raises_hms(TApplicationException, "The update count was 0"):
            client.set_hadoop_jobid("job_1", unknown)
        with raises_hms(TApplicationException, "The update count was 0"):
            client.update_compactor_state(find_next_struct(unknown, db, "t", None),
                                          open_compaction_txn(client))
        with raises_hms(TApplicationException,
                        "State should only be one character but it was set to ab"):
            client.mark_failed(info(ci, state="ab"))
        with raises_hms(TApplicationException, "Invalid compaction properties"):
            client.mark_cleaned(CompactionInfoStruct(
                id=queued.id, dbname=db, tablename="t", type=CompactionType.MAJOR,
                properties="2:1:a"))
        # mark_cleaned of an id not queued changes no entry, as Hive's copy finds no row.
        client.mark_cleaned(find_next_struct(unknown, db, "t", None))
        assert shown(client, db) == before

        # Id 0: the initiator failed before it queued anything.
        client.mark_failed(CompactionInfoStruct(
            id=0, dbname=db, tablename="u", partitionname="p=9", type=CompactionType.MINOR,
            errorMessage="Caught exception while trying to determine if we should compact"))
        (never,) = [e for e in shown(client, db).values() if e.tablename == "u"]
        assert (never.state, never.type, never.partitionname) == (
            "did not initiate", CompactionType.MINOR, "p=9")
        assert never.id > queued.id and never.start == never.endTime


def test_the_history_keeps_hives_retention_per_partition(server):
    db = unique_name("compactor")
    with connected(server) as client:
        call_or_skip_on_reference(server, client.find_next_compact, "probe")
        succeeded = []
        for _ in range(5):
            queued = compact(client, db, "t", "p=1")
            ci = find_next(client)
            client.mark_compacted(info(ci))
            client.mark_cleaned(info(ci))
            succeeded.append(queued.id)
        refused = []
        for _ in range(4):
            queued = compact(client, db, "t", "p=1")
            client.mark_refused(info(find_next(client)))
            refused.append(queued.id)
        other = compact(client, db, "t", "p=2")
        client.mark_refused(info(find_next(client)))
        kept = shown(client, db)
        assert sorted(kept) == succeeded[2:] + refused[1:] + [other.id]


def test_workers_of_a_pool_take_only_its_requests(server):
    db = unique_name("compactor")
    with connected(server) as client:
        call_or_skip_on_reference(server, client.find_next_compact, "probe")
        pooled = compact(client, db, "a", poolName="etl", numberOfBuckets=4,
                         orderByClause="ORDER BY id", type=REBALANCE)
        plain = compact(client, db, "b")
        assert client.find_next_compact("old-worker").ci.id == plain.id
        assert find_next(client) is None
        assert find_next(client, pool="  ") is None
        ci = find_next(client, pool="etl")
        assert (ci.id, ci.poolname, ci.numberOfBuckets, ci.orderByClause, ci.type) == (
            pooled.id, "etl", 4, "ORDER BY id", REBALANCE)
        by_id = shown(client, db)
        assert by_id[plain.id].workerid == "old-worker"
        assert by_id[plain.id].workerVersion is None
        assert by_id[pooled.id].poolName == "etl"
        for taken in (plain.id, pooled.id):
            client.mark_refused(find_next_struct(taken, db, "t", None))


def test_find_columns_with_stats_names_the_columns_that_have_some(server):
    db = unique_name("compactor")
    with connected(server) as client:
        call_or_skip_on_reference(server, client.find_next_compact, "probe")
        client.create_database(Database(name=db))
        columns = [FieldSchema("id", "int", None), FieldSchema("amount", "double", None)]
        client.create_table(make_table(db, "p", columns=columns,
                                       partition_keys=[FieldSchema("ds", "string", None)]))
        client.add_partitions([Partition(values=["01"], dbName=db, tableName="p",
                                         sd=storage_descriptor(columns), parameters={})])
        long_stats = ColumnStatisticsData(longStats=LongColumnStatsData(
            lowValue=1, highValue=9, numNulls=0, numDVs=3))
        double_stats = ColumnStatisticsData(doubleStats=DoubleColumnStatsData(
            lowValue=0.5, highValue=2.5, numNulls=1, numDVs=2))
        client.update_table_column_statistics(ColumnStatistics(
            ColumnStatisticsDesc(isTblLevel=True, dbName=db, tableName="p"),
            [ColumnStatisticsObj("id", "int", long_stats)]))
        client.update_partition_column_statistics(ColumnStatistics(
            ColumnStatisticsDesc(isTblLevel=False, dbName=db, tableName="p", partName="ds=01"),
            [ColumnStatisticsObj("amount", "double", double_stats)]))
        assert client.find_columns_with_stats(find_next_struct(0, db, "p", None)) == ["id"]
        assert client.find_columns_with_stats(
            find_next_struct(0, db, "p", "ds=01")) == ["amount"]
        assert client.find_columns_with_stats(find_next_struct(0, db, "p", "ds=02")) == []
        assert client.find_columns_with_stats(find_next_struct(0, db, "missing", None)) == []


def test_metrics_calls_answer_as_hives(server):
    db = unique_name("compactor")
    with connected(server) as client:
        call_or_skip_on_reference(server, client.find_next_compact, "probe")

        def update(value, partition="p=1"):
            return client.update_compaction_metrics_data(CompactionMetricsDataStruct(
                dbname=db, tblname="t", partitionname=partition,
                type=CompactionMetricsMetricType.NUM_DELTAS, metricvalue=value, version=7,
                threshold=10))

        assert update(3) is True
        assert update(12) is True and update(15) is True
        assert update(2) is True
        client.remove_compaction_metrics_data(CompactionMetricsDataRequest(
            dbName=db, tblName="t", partitionName=None,
            type=CompactionMetricsMetricType.NUM_SMALL_DELTAS))
        with raises_hms(MetaException, "needs a database and a table name"):
            client.update_compaction_metrics_data(CompactionMetricsDataStruct(
                dbname="", tblname="t", type=CompactionMetricsMetricType.NUM_DELTAS,
                metricvalue=1, version=1, threshold=0))
        with raises_hms(TApplicationException, "Unexpected metric type 9"):
            client.remove_compaction_metrics_data(CompactionMetricsDataRequest(
                dbName=db, tblName="t", type=9))


@pytest.fixture()
def own_server(tmp_path):
    """A hivestore of this test's own, to restart."""
    import os

    if os.environ.get("HMS_URI"):
        pytest.skip("restarts a hivestore of its own")
    from conftest import hivestore_binary, start_hivestore, stop_hivestore

    return hivestore_binary, start_hivestore, stop_hivestore, tmp_path


def test_the_queue_and_worker_fields_survive_a_restart(own_server):
    binary, start, stop, workdir = own_server
    db = unique_name("compactor")
    running = start(binary(), workdir)
    try:
        with connected(running) as client:
            queued = compact(client, db, "t", None, properties={"a": "b"})
            ci = find_next(client, worker="host-9")
            txn = open_compaction_txn(client)
            client.update_compactor_state(info(ci, highestWriteId=4, runas="hive"), txn)
            client.set_hadoop_jobid("job_9", queued.id)
            client.mark_compacted(info(ci))
            failing = compact(client, db, "u", None)
            client.mark_failed(info(find_next(client), errorMessage="boom"))
            before = shown(client, db)
    finally:
        stop(running)
    running = start(binary(), workdir)
    try:
        with connected(running) as client:
            after = shown(client, db)
            assert after == before
            assert (after[queued.id].state, after[failing.id].state) == (
                "ready for cleaning", "failed")
            client.commit_txn(CommitTxnRequest(txnid=txn))
            client.mark_cleaned(info(ci, highestWriteId=4))
            assert shown(client, db)[queued.id].state == "succeeded"
            assert find_next(client) is None
    finally:
        stop(running)
