"""Replication's calls through the pyiceberg-vendored Hive 4 client: replication metrics,
replayed transactions, the change manager's cm_recycle and fb303's getCpuProfile.

Goal: `add_replication_metrics` keeps one entry per scheduled execution id, a later report
updating its metadata and progress (when non-empty) and message format, never its policy or
dump execution id; `get_replication_metrics` answers a policy's entries highest execution id
first, or one execution's, nothing for an empty policy, a negative or unknown id, and no result
(MISSING_RESULT) when the request names neither, as Hive 4's ObjectStore answers; bounds on
the stored strings refuse the whole call. `open_txns` with `replPolicy` and type REPL_CREATED
maps each source transaction to a new one and answers the same transactions when asked again;
`allocate_table_write_ids` with `srcTxnToWriteIdList` gives them the source's write ids;
`commit_txn`/`abort_txn` with the policy resolve the source id, end the mapped transaction and
forget the mapping (a second call is a no-op, as Hive's retry handling); a `DEFAULT`
transaction with a policy logs no events. `commit_txn`'s `replLastIdInfo` sets `repl.last.id`
on the database, table and partitions named, with the commit, and a database, table or
partition that does not exist fails the commit with Hive's message, changing nothing; a
replayed commit's `writeEventInfos` are recorded at this table's (or partition's) location, the
source's file names under their subdirectories, as Hive's `commit_txn` rewrites them (a location
on HDFS, whose checksums Hive reads, is refused). An abort of a replayed transaction that does
not come from the load marks the database of its policy `repl.incompatible=true`.
`cm_recycle` moves nothing with the change manager off (Hive's default). `getCpuProfile`
answers the empty string.

Method: names and ids are unique per test. Hive 2.3 lacks the metrics calls, `cm_recycle` and
the replication fields of the transaction calls (it ignores them): those tests skip on the
reference; `getCpuProfile` is compared with it.
"""

import json
import time

import pytest
from hive_metastore.ttypes import (
    AbortTxnRequest,
    AllocateTableWriteIdsRequest,
    CmRecycleRequest,
    CommitTxnRequest,
    Database,
    FieldSchema,
    GetAllWriteEventInfoRequest,
    GetOpenTxnsRequest,
    GetReplicationMetricsRequest,
    MetaException,
    NoSuchTxnException,
    NotificationEventRequest,
    OpenTxnRequest,
    Partition,
    ReplicationMetricList,
    ReplicationMetrics,
    ReplLastIdInfo,
    TxnToWriteId,
    TxnType,
    WriteEventInfo,
)
from thrift.Thrift import TApplicationException

from conftest import hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import (
    call_or_skip_on_reference,
    connected,
    make_table,
    raises_hms,
    storage_descriptor,
    unique_name,
)

EXECUTION_BASE = int(time.time() * 1000) % 10**12


def metric(execution_id, policy, progress="progress", metadata="metadata", dump=1, fmt=None):
    return ReplicationMetrics(scheduledExecutionId=execution_id, policy=policy,
                              dumpExecutionId=dump, metadata=metadata, progress=progress,
                              messageFormat=fmt)


def add(client, *metrics):
    client.add_replication_metrics(ReplicationMetricList(replicationMetricList=list(metrics)))


def by_policy(client, policy):
    return client.get_replication_metrics(
        GetReplicationMetricsRequest(policy=policy)).replicationMetricList


def by_execution(client, execution_id):
    return client.get_replication_metrics(
        GetReplicationMetricsRequest(scheduledExecutionId=execution_id)).replicationMetricList


def shape(metrics):
    return [(m.scheduledExecutionId, m.policy, m.dumpExecutionId, m.metadata, m.progress,
             m.messageFormat) for m in metrics]


def test_get_cpu_profile_is_empty(client):
    assert client.getCpuProfile(5) == ""


def test_metrics_are_kept_per_execution_and_updated(client, server):
    policy, other = unique_name("repl"), unique_name("repl")
    first = EXECUTION_BASE + 10
    call_or_skip_on_reference(server, add, client, metric(first, policy),
                              metric(first + 1, policy))
    add(client, metric(first + 2, other), metric(first + 3, other))
    assert shape(by_policy(client, policy)) == [
        (first + 1, policy, 1, "metadata", "progress", None),
        (first, policy, 1, "metadata", "progress", None)]
    # An update: new progress, empty metadata keeps the old, policy and dump id stay.
    add(client, metric(first, other, progress="progress1", metadata="", dump=7,
                       fmt="gzip(json-2.0)"))
    assert shape(by_execution(client, first)) == [
        (first, policy, 1, "metadata", "progress1", "gzip(json-2.0)")]
    assert [m.scheduledExecutionId for m in by_policy(client, other)] == [first + 3, first + 2]
    # The message format is replaced by every report, even when it is not given.
    add(client, metric(first, policy, progress=None, metadata="metadata2"))
    assert shape(by_execution(client, first)) == [
        (first, policy, 1, "metadata2", "progress1", None)]


def test_metrics_queries_that_find_nothing(client, server):
    policy = unique_name("repl")
    call_or_skip_on_reference(server, add, client, metric(EXECUTION_BASE + 20, policy))
    assert by_policy(client, unique_name("none")) == []
    assert by_policy(client, "") == []
    assert by_execution(client, EXECUTION_BASE + 21) == []
    assert by_execution(client, -1) == []
    # The policy wins over the execution id when both are given.
    both = client.get_replication_metrics(GetReplicationMetricsRequest(
        policy=policy, scheduledExecutionId=EXECUTION_BASE + 21)).replicationMetricList
    assert [m.scheduledExecutionId for m in both] == [EXECUTION_BASE + 20]
    with pytest.raises(TApplicationException) as raised:
        client.get_replication_metrics(GetReplicationMetricsRequest())
    assert raised.value.type == TApplicationException.MISSING_RESULT
    assert "get_replication_metrics failed: unknown result" in raised.value.message


def test_metrics_bounds_refuse_the_whole_call(client, server):
    if server.external:
        pytest.skip("hivestore's bounds: Hive's database columns refuse them differently")
    policy = unique_name("repl")
    first = EXECUTION_BASE + 30
    with raises_hms(MetaException, "progress of 10001 bytes", "10000 bytes allowed"):
        add(client, metric(first, policy), metric(first + 1, policy, progress="p" * 10001))
    with raises_hms(MetaException, "metadata of 4001 bytes"):
        add(client, metric(first, policy, metadata="m" * 4001))
    with raises_hms(MetaException, "policy of 257 bytes"):
        add(client, metric(first, "p" * 257))
    with raises_hms(MetaException, "message format of 17 bytes"):
        add(client, metric(first, policy, fmt="f" * 17))
    assert by_policy(client, policy) == []
    assert by_execution(client, first) == []


def test_metrics_survive_a_restart(tmp_path, server):
    if server.external:
        pytest.skip("restarts a hivestore of its own")
    first = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(first) as client:
            add(client, metric(5, "kept", progress="p5"), metric(6, "kept"))
    finally:
        stop_hivestore(first)
    again = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(again) as client:
            assert [(m.scheduledExecutionId, m.progress) for m in by_policy(client, "kept")] == [
                (6, "progress"), (5, "p5")]
    finally:
        stop_hivestore(again)


def test_cm_recycle_moves_nothing_with_the_change_manager_off(client, server, tmp_path):
    data = tmp_path / "table_dir"
    data.mkdir()
    (data / "part-0").write_bytes(b"rows")
    response = call_or_skip_on_reference(server, client.cm_recycle,
                                         CmRecycleRequest(dataPath=f"file:{data}", purge=True))
    assert response is not None
    assert (data / "part-0").read_bytes() == b"rows"
    client.cm_recycle(CmRecycleRequest(dataPath="file:/nonexistent/dir", purge=False))
    with pytest.raises(TApplicationException) as raised:
        client.cm_recycle(CmRecycleRequest(dataPath="", purge=False))
    assert raised.value.type == TApplicationException.INTERNAL_ERROR


def skip_on_reference(server):
    if server.external:
        pytest.skip("Hive 2.3 has no replicated transactions: it ignores replPolicy")


def open_replayed(client, policy, sources):
    return client.open_txns(OpenTxnRequest(
        num_txns=len(sources), user="repl", hostname="target", replPolicy=policy,
        replSrcTxnIds=sources, txn_type=TxnType.REPL_CREATED)).txn_ids


def events_since(client, start):
    return client.get_next_notification(NotificationEventRequest(lastEvent=start)).events


def test_replayed_transactions_map_their_source_ids(client, server):
    skip_on_reference(server)
    db = unique_name("repl")
    client.create_database(Database(name=db, description="", locationUri=None, parameters={}))
    client.create_table(make_table(db, "t"))
    policy = f"{db}.*"
    start = client.get_current_notificationEventId().eventId
    targets = open_replayed(client, policy, [9001, 9002])
    assert len(targets) == 2 and targets[1] == targets[0] + 1
    # Asked again (a retried load), the same transactions; nothing new opened.
    assert open_replayed(client, policy, [9001, 9002]) == targets
    assert open_replayed(client, policy, [9002, 9003])[:1] == [targets[1]]
    # Another policy maps the same source ids to transactions of its own.
    other = open_replayed(client, f"{db}_other.*", [9001])
    assert other[0] not in targets
    assert [e.eventType for e in events_since(client, start)] == ["OPEN_TXN", "OPEN_TXN"]
    open_now = client.get_open_txns_req(GetOpenTxnsRequest()).open_txns
    assert set(targets) <= set(open_now)

    # The source's write ids, from the first one given.
    allocated = client.allocate_table_write_ids(AllocateTableWriteIdsRequest(
        dbName=db, tableName="t", replPolicy=policy,
        srcTxnToWriteIdList=[TxnToWriteId(txnId=9001, writeId=5),
                             TxnToWriteId(txnId=9002, writeId=6)])).txnToWriteIds
    assert [(p.txnId, p.writeId) for p in allocated] == [(targets[0], 5), (targets[1], 6)]
    # Asked again, the same write ids; an unmapped source allocates nothing.
    again = client.allocate_table_write_ids(AllocateTableWriteIdsRequest(
        dbName=db, tableName="t", replPolicy=policy,
        srcTxnToWriteIdList=[TxnToWriteId(txnId=9001, writeId=5),
                             TxnToWriteId(txnId=9002, writeId=6)])).txnToWriteIds
    assert [(p.txnId, p.writeId) for p in again] == [(targets[0], 5), (targets[1], 6)]
    assert client.allocate_table_write_ids(AllocateTableWriteIdsRequest(
        dbName=db, tableName="t", replPolicy=policy,
        srcTxnToWriteIdList=[TxnToWriteId(txnId=777, writeId=9)])).txnToWriteIds == []

    # Commit and abort by the source id: the mapped transaction ends, the mapping goes.
    start = client.get_current_notificationEventId().eventId
    client.commit_txn(CommitTxnRequest(txnid=9001, replPolicy=policy,
                                       txn_type=TxnType.REPL_CREATED))
    client.abort_txn(AbortTxnRequest(txnid=9002, replPolicy=policy,
                                     txn_type=TxnType.REPL_CREATED))
    events = events_since(client, start)
    assert [e.eventType for e in events] == ["COMMIT_TXN", "ABORT_TXN"]
    assert json.loads(events[0].message)["txnid"] == targets[0]
    # Again (a retry): nothing to do, no error, no event.
    client.commit_txn(CommitTxnRequest(txnid=9001, replPolicy=policy,
                                       txn_type=TxnType.REPL_CREATED))
    client.abort_txn(AbortTxnRequest(txnid=9002, replPolicy=policy,
                                     txn_type=TxnType.REPL_CREATED))
    assert len(events_since(client, start)) == 2
    info = {t.id: t.state for t in client.get_open_txns_info().open_txns}
    assert targets[0] not in info
    # Once ended, the source id opens a new transaction.
    fresh = open_replayed(client, policy, [9001])
    assert fresh[0] > other[0]
    assert "repl.incompatible" not in client.get_database(db).parameters
    client.abort_txn(AbortTxnRequest(txnid=fresh[0]))
    # A plain abort of the target forgets its mapping too, and marks the policy's database:
    # a replication load no longer holds what it replayed.
    assert open_replayed(client, policy, [9001])[0] > fresh[0]
    assert client.get_database(db).parameters["repl.incompatible"] == "true"


def test_source_side_transactions_log_no_events(client, server):
    skip_on_reference(server)
    start = client.get_current_notificationEventId().eventId
    txn = client.open_txns(OpenTxnRequest(num_txns=1, user="repl", hostname="source",
                                          replPolicy="src.*", txn_type=TxnType.DEFAULT)).txn_ids[0]
    other = client.open_txns(OpenTxnRequest(num_txns=1, user="repl", hostname="source",
                                            replPolicy="src.*",
                                            txn_type=TxnType.DEFAULT)).txn_ids[0]
    client.commit_txn(CommitTxnRequest(txnid=txn, replPolicy="src.*", txn_type=TxnType.DEFAULT))
    client.abort_txn(AbortTxnRequest(txnid=other, replPolicy="src.*", txn_type=TxnType.DEFAULT))
    assert events_since(client, start) == []
    open_now = client.get_open_txns_req(GetOpenTxnsRequest()).open_txns
    assert txn not in open_now


def test_replication_refusals_change_nothing(client, server):
    skip_on_reference(server)
    policy = unique_name("repl") + ".*"
    with pytest.raises(TApplicationException) as raised:
        client.open_txns(OpenTxnRequest(num_txns=2, user="repl", hostname="t",
                                        replPolicy=policy, replSrcTxnIds=[1],
                                        txn_type=TxnType.REPL_CREATED))
    assert "names 1 source transactions" in raised.value.message
    with pytest.raises(TApplicationException) as raised:
        client.open_txns(OpenTxnRequest(num_txns=1, user="repl", hostname="t",
                                        txn_type=TxnType.REPL_CREATED))
    assert "needs replPolicy" in raised.value.message
    with pytest.raises(TApplicationException) as raised:
        client.open_txns(OpenTxnRequest(num_txns=1, user="repl", hostname="t",
                                        replPolicy="p" * 257, replSrcTxnIds=[1],
                                        txn_type=TxnType.REPL_CREATED))
    assert "257 bytes" in raised.value.message
    with raises_hms(MetaException, "needs a non-empty srcTxnToWriteIdList"):
        client.allocate_table_write_ids(AllocateTableWriteIdsRequest(
            dbName="default", tableName="t", replPolicy=policy, srcTxnToWriteIdList=[]))
    [target] = open_replayed(client, policy, [4242])
    missing = unique_name("missing")
    with pytest.raises(TApplicationException) as raised:
        client.commit_txn(CommitTxnRequest(txnid=4242, replPolicy=policy,
                                           txn_type=TxnType.REPL_CREATED,
                                           replLastIdInfo=ReplLastIdInfo(database=missing,
                                                                         lastReplId=3)))
    assert raised.value.message == f"DB with name {missing} does not exist in catalog hive"
    with pytest.raises(TApplicationException) as raised:
        client.commit_txn(CommitTxnRequest(
            txnid=4242, replPolicy=policy, txn_type=TxnType.REPL_CREATED,
            writeEventInfos=[WriteEventInfo(writeId=1, database=missing, table="t",
                                            files="f")]))
    assert "table not found" in raised.value.message
    with pytest.raises(TApplicationException) as raised:
        client.commit_txn(CommitTxnRequest(txnid=target, txn_type=TxnType.REPL_CREATED))
    assert "needs its replPolicy" in raised.value.message
    assert target in client.get_open_txns_req(GetOpenTxnsRequest()).open_txns
    # An unknown source id of a known policy is a no-op; the target commits by its own id.
    client.commit_txn(CommitTxnRequest(txnid=4243, replPolicy=policy,
                                       txn_type=TxnType.REPL_CREATED))
    # The database of the policy does not exist: an abort outside replay cannot mark it
    # incompatible and fails, as Hive's.
    with pytest.raises(TApplicationException) as raised:
        client.abort_txn(AbortTxnRequest(txnid=target))
    assert raised.value.message == (
        f"DB with name {policy.split('.')[0]} does not exist in catalog hive")
    assert target in client.get_open_txns_req(GetOpenTxnsRequest()).open_txns
    client.commit_txn(CommitTxnRequest(txnid=target))
    with raises_hms(NoSuchTxnException, "already committed"):
        client.abort_txn(AbortTxnRequest(txnid=target))


def partitioned_source(client, db, location=None):
    client.create_database(Database(name=db, description="", locationUri=None, parameters={}))
    client.create_table(make_table(db, "w", partition_keys=[FieldSchema("ds", "string", None)],
                                   location=location))
    for value in ("1", "2"):
        client.add_partition(Partition(values=[value], dbName=db, tableName="w",
                                       sd=storage_descriptor(), parameters={}))


def last_ids(client, db):
    parameters = [client.get_database(db).parameters, client.get_table(db, "w").parameters]
    parameters += [p.parameters for p in client.get_partitions(db, "w", -1)]
    return [found.get("repl.last.id") for found in parameters]


def test_repl_last_id_is_set_with_the_commit_or_not_at_all(client, server):
    skip_on_reference(server)
    db = unique_name("repl")
    partitioned_source(client, db)
    policy = f"{db}.*"
    [target] = open_replayed(client, policy, [71])
    start = client.get_current_notificationEventId().eventId

    def commit(**info):
        client.commit_txn(CommitTxnRequest(
            txnid=71, replPolicy=policy, txn_type=TxnType.REPL_CREATED,
            replLastIdInfo=ReplLastIdInfo(database=db.upper(), lastReplId=1234, **info)))

    with pytest.raises(TApplicationException) as raised:
        commit(table="gone")
    assert raised.value.message == f"Table with name gone does not exist in db hive.{db}"
    with pytest.raises(TApplicationException) as raised:
        commit(table="w", partitionList=["ds=1", "ds=9"])
    assert raised.value.message == (
        f"1 Number of partition among [ds=1, ds=9] does not exist in table hive.{db}.w")
    assert last_ids(client, db) == [None, None, None, None]
    assert target in client.get_open_txns_req(GetOpenTxnsRequest()).open_txns
    assert events_since(client, start) == []

    commit(table="W", catalog="HIVE", partitionList=["ds=2"])
    assert last_ids(client, db) == ["1234", "1234", None, "1234"]
    # No event but the commit's, as Hive writes the parameters directly.
    assert [e.eventType for e in events_since(client, start)] == ["COMMIT_TXN"]
    assert target not in client.get_open_txns_req(GetOpenTxnsRequest()).open_txns
    # A retry (the source no longer mapped) changes nothing.
    client.commit_txn(CommitTxnRequest(
        txnid=71, replPolicy=policy, txn_type=TxnType.REPL_CREATED,
        replLastIdInfo=ReplLastIdInfo(database=db, lastReplId=99)))
    assert last_ids(client, db) == ["1234", "1234", None, "1234"]
    # A database alone, with any commit.
    txn = client.open_txns(OpenTxnRequest(num_txns=1, user="repl", hostname="t")).txn_ids[0]
    client.commit_txn(CommitTxnRequest(txnid=txn,
                                       replLastIdInfo=ReplLastIdInfo(database=db, lastReplId=5)))
    assert last_ids(client, db) == ["5", "1234", None, "1234"]


def test_a_replayed_commits_writes_are_recorded_at_this_warehouse(client, server, tmp_path):
    skip_on_reference(server)
    db = unique_name("repl")
    partitioned_source(client, db, location=f"file:{tmp_path}/w")
    policy = f"{db}.*"
    [target] = open_replayed(client, policy, [81])
    client.allocate_table_write_ids(AllocateTableWriteIdsRequest(
        dbName=db, tableName="w", replPolicy=policy,
        srcTxnToWriteIdList=[TxnToWriteId(txnId=81, writeId=3)]))
    partition_root = client.get_partition(db, "w", ["1"]).sd.location
    source_file = "hdfs://source:8020/warehouse/w/ds=1/delta_3_3/bucket_00000"
    start = client.get_current_notificationEventId().eventId
    infos = [WriteEventInfo(writeId=3, database=db, table="w", partition="ds=1",
                            files=f"{source_file}#c0ffee#hdfs://source/cmroot#delta_3_3 , "
                                  "hdfs://source:8020/warehouse/w/ds=1/base_2/bucket_1")]
    client.commit_txn(CommitTxnRequest(txnid=81, replPolicy=policy,
                                       txn_type=TxnType.REPL_CREATED, writeEventInfos=infos))
    recorded = client.get_all_write_event_info(GetAllWriteEventInfoRequest(txnId=target,
                                                                           dbName=db))
    assert [(i.writeId, i.table, i.partition, i.files) for i in recorded] == [
        (3, "w", "ds=1",
         f"{partition_root}/delta_3_3/bucket_00000,{partition_root}/bucket_1")]
    events = events_since(client, start)
    assert [e.eventType for e in events] == ["ACID_WRITE", "COMMIT_TXN"]
    assert json.loads(events[0].message)["txnid"] == target

    # A table on HDFS: Hive would read each file's checksum there; refused, nothing changes.
    on_hdfs = unique_name("repl")
    client.create_database(Database(name=on_hdfs, description="", locationUri=None,
                                    parameters={}))
    client.create_table(make_table(on_hdfs, "h", location="hdfs://nn:8020/warehouse/h"))
    hdfs_policy = f"{on_hdfs}.*"
    [held] = open_replayed(client, hdfs_policy, [82])
    start = client.get_current_notificationEventId().eventId
    with pytest.raises(TApplicationException) as raised:
        client.commit_txn(CommitTxnRequest(
            txnid=82, replPolicy=hdfs_policy, txn_type=TxnType.REPL_CREATED,
            writeEventInfos=[WriteEventInfo(writeId=1, database=on_hdfs, table="h",
                                            files=source_file)]))
    assert "hdfs file system" in raised.value.message
    assert events_since(client, start) == []
    assert held in client.get_open_txns_req(GetOpenTxnsRequest()).open_txns


def test_replayed_transactions_survive_a_restart(tmp_path, server):
    if server.external:
        pytest.skip("restarts a hivestore of its own")
    first = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(first) as client:
            targets = open_replayed(client, "p.*", [31, 32])
            partitioned_source(client, "p")
            [_, lost] = open_replayed(client, "p.*", [33, 34])
            client.commit_txn(CommitTxnRequest(
                txnid=33, replPolicy="p.*", txn_type=TxnType.REPL_CREATED,
                replLastIdInfo=ReplLastIdInfo(database="p", lastReplId=7, table="w",
                                              partitionList=["ds=1"])))
            client.abort_txn(AbortTxnRequest(txnid=lost))
    finally:
        stop_hivestore(first)
    again = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(again) as client:
            assert open_replayed(client, "p.*", [31, 32]) == targets
            client.commit_txn(CommitTxnRequest(txnid=31, replPolicy="p.*",
                                               txn_type=TxnType.REPL_CREATED))
            assert targets[0] not in client.get_open_txns_req(GetOpenTxnsRequest()).open_txns
            assert last_ids(client, "p") == ["7", "7", "7", None]
            assert client.get_database("p").parameters["repl.incompatible"] == "true"
    finally:
        stop_hivestore(again)
