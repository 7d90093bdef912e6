"""The notification log: every change is one event of Hive's type, in order, with a JSON message
Hive's deserializer can read, and a consumer polling get_next_notification sees each event once,
across a restart and a kill -9.

Method: a client makes changes of every family (databases, tables, partitions, statistics,
transactions, inserts through fire_listener_event) and reads the events after the id current
before it started; types, names and messages are compared with what Hive's DbNotificationListener
writes. Thrift objects inside messages are read back with Thrift's own JSON protocol (the Python
library's TJSONProtocol), which checks our one-way encoder against a real reader. The restart and
crash tests run their own server on one data directory; the TTL test runs one with a one-second
time-to-live and waits, bounded, for the cleaner.

hivestore only: the Java 2.3 reference from the pyspark jars runs without DbNotificationListener
(its notification log stays empty), so there is nothing to compare there.
"""

import json
import os
import signal
import time

import pytest
from thrift.protocol import TJSONProtocol
from thrift.TSerialization import deserialize
from thrift.Thrift import TType

from hive_metastore.ttypes import (
    AbortTxnRequest, AllocateTableWriteIdsRequest, GetAllWriteEventInfoRequest,
    WriteNotificationLogRequest, ColumnStatistics, ColumnStatisticsData, ColumnStatisticsDesc,
    ColumnStatisticsObj, CommitTxnRequest, Database, FieldSchema, FireEventRequest,
    FireEventRequestData, InsertEventRequestData, LongColumnStatsData, NotificationEventRequest,
    NotificationEventResponse, NotificationEventsCountRequest, OpenTxnRequest, Partition, Table)

from conftest import hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import (call_method, connected, make_struct, make_table, storage_descriptor,
                         unique_name)

pytestmark = pytest.mark.skipif(bool(os.environ.get("HMS_URI")),
                                reason="the reference HMS runs without DbNotificationListener")

DB_PREFIX = "notif"
COLUMNS = [FieldSchema("id", "int", None), FieldSchema("name", "string", None)]
KEYS = [FieldSchema("ds", "string", None)]
TTL_WAIT_S = 15.0


def current_id(client) -> int:
    return client.get_current_notificationEventId().eventId


def events_after(client, last_event, **filters):
    """get_next_notification; Hive 4's filters (catName, dbName, tableNames), which the vendored
    IDL lacks, go in a request struct built here."""
    if not set(filters) & {"catName", "dbName", "tableNames"}:
        request = NotificationEventRequest(lastEvent=last_event, **filters)
        return client.get_next_notification(request).events
    request_class = make_struct("NotificationEventRequest", [
        (1, TType.I64, "lastEvent", None, None), (2, TType.I32, "maxEvents", None, None),
        (3, TType.LIST, "eventTypeSkipList", (TType.STRING, "UTF8", False), None),
        (4, TType.STRING, "catName", "UTF8", None), (5, TType.STRING, "dbName", "UTF8", None),
        (6, TType.LIST, "tableNames", (TType.STRING, "UTF8", False), None)])
    request = request_class(lastEvent=last_event, **filters)
    response = call_method(
        client, "get_next_notification",
        [(1, TType.STRUCT, "rqst", [request_class, None], request)],
        [(0, TType.STRUCT, "success", [NotificationEventResponse, None])])
    return response.events


def thrift_object(text, kind):
    return deserialize(kind(), text.encode(), TJSONProtocol.TJSONProtocolFactory())


def partition(db, table, value):
    return Partition(values=[value], dbName=db, tableName=table, sd=storage_descriptor(COLUMNS),
                     parameters={})


def test_each_change_is_one_event_of_hives_type_in_order(client):
    start = current_id(client)
    db = unique_name(DB_PREFIX)
    client.create_database(Database(name=db))
    client.create_table(make_table(db, "t", columns=COLUMNS, partition_keys=KEYS))
    client.add_partitions([partition(db, "t", "1"), partition(db, "t", "2")])
    altered = client.get_partition(db, "t", ["1"])
    altered.parameters["k"] = "v"
    client.alter_partition(db, "t", altered)
    client.drop_partition(db, "t", ["2"], False)
    table = client.get_table(db, "t")
    table.parameters["owner_note"] = "x"
    client.alter_table(db, "t", table)
    stats = ColumnStatistics(
        statsDesc=ColumnStatisticsDesc(isTblLevel=True, dbName=db, tableName="t"),
        statsObj=[ColumnStatisticsObj("id", "int", ColumnStatisticsData(
            longStats=LongColumnStatsData(lowValue=1, highValue=9, numNulls=0, numDVs=5)))],
        engine="hive")
    client.update_table_column_statistics(stats)
    txns = client.open_txns(OpenTxnRequest(num_txns=2, user="u", hostname="h")).txn_ids
    client.commit_txn(CommitTxnRequest(txnid=txns[0]))
    client.abort_txn(AbortTxnRequest(txnid=txns[1]))
    client.drop_table(db, "t", False)
    client.drop_database(db, False, False)

    events = events_after(client, start)
    expected = [
        ("CREATE_DATABASE", db, None), ("CREATE_TABLE", db, "t"), ("ADD_PARTITION", db, "t"),
        ("ALTER_PARTITION", db, "t"), ("DROP_PARTITION", db, "t"), ("ALTER_TABLE", db, "t"),
        ("UPDATE_TABLE_COLUMN_STAT", db, "t"), ("OPEN_TXN", None, None),
        ("COMMIT_TXN", None, None), ("ABORT_TXN", None, None), ("DROP_TABLE", db, "t"),
        ("DROP_DATABASE", db, None)]
    assert [(e.eventType, e.dbName, e.tableName) for e in events] == expected
    assert [e.eventId for e in events] == list(range(start + 1, start + 1 + len(expected)))
    assert current_id(client) == start + len(expected)
    for event in events:
        assert event.messageFormat == "json-0.2"
        assert event.eventTime > 0
        json.loads(event.message)

    messages = [json.loads(event.message) for event in events]
    assert thrift_object(messages[0]["dbJson"], Database).name == db
    created = thrift_object(messages[1]["tableObjJson"], Table)
    assert (created.dbName, created.tableName, created.partitionKeys) == (db, "t", KEYS)
    assert messages[1]["tableType"] == "MANAGED_TABLE" and messages[1]["files"] == []
    added = messages[2]
    assert added["partitions"] == [{"ds": "1"}, {"ds": "2"}]
    objects = [thrift_object(text, Partition) for text in added["partitionListJson"]]
    assert [p.values for p in objects] == [["1"], ["2"]]
    assert objects[0].sd.cols == COLUMNS and objects[0].sd.location.endswith("/t/ds=1")
    assert messages[3]["keyValues"] == {"ds": "1"}
    before = thrift_object(messages[3]["partitionObjBeforeJson"], Partition)
    after = thrift_object(messages[3]["partitionObjAfterJson"], Partition)
    assert "k" not in before.parameters and after.parameters["k"] == "v"
    assert messages[4]["partitions"] == [{"ds": "2"}]
    assert messages[5]["isTruncateOp"] == "false"
    assert "owner_note" in thrift_object(messages[5]["tableObjAfterJson"], Table).parameters
    stats_read = thrift_object(messages[6]["colStatsJson"], ColumnStatistics)
    assert stats_read.statsObj[0].statsData.longStats.highValue == 9
    assert messages[7]["txnIds"] == txns
    assert messages[8]["txnid"] == txns[0] and messages[9]["txnid"] == txns[1]
    assert thrift_object(messages[10]["tableObjJson"], Table).tableName == "t"


def test_filters_skip_lists_and_counts(client):
    db, other = unique_name(DB_PREFIX), unique_name(DB_PREFIX)
    start = current_id(client)
    client.create_database(Database(name=db))
    client.create_database(Database(name=other))
    for name in ("a", "b"):
        client.create_table(make_table(db, name, columns=COLUMNS))
    client.create_table(make_table(other, "a", columns=COLUMNS))

    assert len(events_after(client, start, dbName=db)) == 3
    only_b = events_after(client, start, dbName=db, tableNames=["b"],
                          eventTypeSkipList=["CREATE_DATABASE"])
    assert [(e.eventType, e.tableName) for e in only_b] == [("CREATE_TABLE", "b")]
    assert len(events_after(client, start, maxEvents=2)) == 2
    assert events_after(client, start, eventTypeSkipList=["CREATE_TABLE", "CREATE_DATABASE"]) == []
    count = client.get_notification_events_count(
        NotificationEventsCountRequest(fromEventId=start, dbName=db))
    assert count.eventsCount == 3
    limited = client.get_notification_events_count(
        NotificationEventsCountRequest(fromEventId=start, dbName=db, limit=2))
    assert limited.eventsCount == 2


def test_fire_listener_event_logs_inserts_with_their_ids(client, db):
    client.create_table(make_table(db, "p", columns=COLUMNS, partition_keys=KEYS))
    client.add_partitions([partition(db, "p", "1")])
    data = InsertEventRequestData(replace=True, filesAdded=["file:/w/p/ds=1/f0"])
    response = client.fire_listener_event(FireEventRequest(
        successful=True, data=FireEventRequestData(insertData=data), dbName=db, tableName="p",
        partitionVals=["1"]))
    assert len(response.eventIds) == 1
    event = events_after(client, response.eventIds[0] - 1, maxEvents=1)[0]
    assert (event.eventId, event.eventType, event.tableName) == (
        response.eventIds[0], "INSERT", "p")
    message = json.loads(event.message)
    assert message["replace"] == "true" and message["files"] == ["file:/w/p/ds=1/f0"]
    assert thrift_object(message["ptnObjJson"], Partition).values == ["1"]
    missing = FireEventRequest(successful=True, data=FireEventRequestData(insertData=data),
                               dbName=db, tableName="p", partitionVals=["9"])
    before = current_id(client)
    with pytest.raises(Exception):
        client.fire_listener_event(missing)
    assert current_id(client) == before


def test_transaction_writes_feed_acid_write_commit_and_write_event_info(client, db):
    client.create_table(make_table(db, "w", columns=COLUMNS, partition_keys=KEYS))
    client.add_partitions([partition(db, "w", "1")])
    txn = client.open_txns(OpenTxnRequest(num_txns=1, user="u", hostname="h")).txn_ids[0]
    allocated = client.allocate_table_write_ids(
        AllocateTableWriteIdsRequest(dbName=db, tableName="w", txnIds=[txn]))
    write_id = allocated.txnToWriteIds[0].writeId
    start = current_id(client)
    client.add_write_notification_log(WriteNotificationLogRequest(
        txnId=txn, writeId=write_id, db=db, table="w",
        fileInfo=InsertEventRequestData(filesAdded=["file:/w/delta_1/b0"]), partitionVals=["1"]))
    infos = client.get_all_write_event_info(GetAllWriteEventInfoRequest(txnId=txn, dbName=db))
    assert [(i.writeId, i.table, i.partition, i.files) for i in infos] == [
        (write_id, "w", "ds=1", "file:/w/delta_1/b0")]
    assert thrift_object(infos[0].tableObj, Table).tableName == "w"
    client.commit_txn(CommitTxnRequest(txnid=txn))
    events = events_after(client, start)
    assert [e.eventType for e in events] == ["ACID_WRITE", "COMMIT_TXN"]
    acid = json.loads(events[0].message)
    assert (acid["txnid"], acid["writeId"], acid["partition"]) == (txn, write_id, "ds=1")
    commit = json.loads(events[1].message)
    assert (commit["txnid"], commit["writeIds"], commit["tables"]) == (txn, [write_id], ["w"])
    assert thrift_object(commit["partitionObjs"][0], Partition).values == ["1"]


def test_a_consumer_sees_every_event_once_across_restart_and_kill(tmp_path):
    """Poll from id 0 while changes are made; stop (SIGTERM), restart, change, kill -9,
    restart, change: the ids the consumer saw are 1..n, each once, and every change is there."""
    binary = hivestore_binary()
    server = start_hivestore(binary, tmp_path)
    seen = []
    made = 0

    def change(srv, count):
        nonlocal made
        with connected(srv) as client:
            for _ in range(count):
                client.create_database(Database(name=unique_name(DB_PREFIX)))
                made += 1

    def poll(srv):
        with connected(srv) as client:
            last = seen[-1] if seen else 0
            seen.extend(event.eventId for event in events_after(client, last))

    change(server, 5)
    poll(server)
    stop_hivestore(server)
    server = start_hivestore(binary, tmp_path)
    change(server, 5)
    server.process.send_signal(signal.SIGKILL)
    server.process.wait(timeout=30)
    server = start_hivestore(binary, tmp_path)
    poll(server)
    change(server, 3)
    poll(server)
    stop_hivestore(server)
    assert seen == list(range(1, made + 1))


def test_a_big_add_is_one_whole_event_across_a_restart_and_a_kill(tmp_path):
    """An add of 2,000 partitions (an event of about 1 MB, which the engine stores in parts)
    reads back as one ADD_PARTITION event with every partition, before and after a restart, and
    one acknowledged just before a kill -9 is there whole after it."""
    binary = hivestore_binary()
    server = start_hivestore(binary, tmp_path)
    db = unique_name(DB_PREFIX)
    values = [f"2026-{day:05d}" for day in range(2000)]

    def added_values(srv):
        with connected(srv) as client:
            adds = [e for e in events_after(client, 0, maxEvents=100)
                    if e.eventType == "ADD_PARTITION"]
            return [[p["ds"] for p in json.loads(e.message)["partitions"]] for e in adds]

    with connected(server) as client:
        client.create_database(Database(name=db))
        client.create_table(make_table(db, "t", columns=COLUMNS, partition_keys=KEYS))
        parts = [partition(db, "t", value) for value in values]
        for part in parts:
            part.parameters = {"note": "x" * 100}
        assert client.add_partitions(parts) == len(values)
        event = [e for e in events_after(client, 0) if e.eventType == "ADD_PARTITION"][0]
        message = json.loads(event.message)
        objects = [thrift_object(text, Partition) for text in message["partitionListJson"]]
        assert [p.values for p in objects] == [[value] for value in values]
        assert all(p.parameters["note"] == "x" * 100 for p in objects)
    assert added_values(server) == [values]
    stop_hivestore(server)
    server = start_hivestore(binary, tmp_path)
    assert added_values(server) == [values]
    with connected(server) as client:
        more = [partition(db, "t", f"b-{n:05d}") for n in range(2000)]
        assert client.add_partitions(more) == 2000
    server.process.send_signal(signal.SIGKILL)
    server.process.wait(timeout=30)
    server = start_hivestore(binary, tmp_path)
    try:
        assert added_values(server) == [values, [p.values[0] for p in more]]
        with connected(server) as client:
            assert len(client.get_partition_names(db, "t", -1)) == 4000
    finally:
        stop_hivestore(server)


def test_the_cleaner_deletes_events_older_than_the_ttl(tmp_path):
    server = start_hivestore(hivestore_binary(), tmp_path,
                             ["--event-ttl-secs", "1", "--event-clean-interval-secs", "1"])
    try:
        with connected(server) as client:
            client.create_database(Database(name=unique_name(DB_PREFIX)))
            assert len(events_after(client, 0)) == 1
            deadline = time.monotonic() + TTL_WAIT_S
            while events_after(client, 0) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert events_after(client, 0) == []
            # Ids never go back once the log is empty.
            assert current_id(client) == 1
            client.create_database(Database(name=unique_name(DB_PREFIX)))
            assert [e.eventId for e in events_after(client, 0)] == [2]
    finally:
        stop_hivestore(server)


def test_the_cleaner_also_drops_expired_writes_and_empty_aborted_transactions(tmp_path):
    """With a one-second time-to-live, the write recorded by add_write_notification_log goes
    with its ACID_WRITE event, and of two aborted transactions the one that wrote nothing is
    purged while the one with a write id stays listed (its write id stays invalid)."""
    server = start_hivestore(hivestore_binary(), tmp_path,
                             ["--event-ttl-secs", "1", "--event-clean-interval-secs", "1"])
    try:
        with connected(server) as client:
            db = unique_name(DB_PREFIX)
            client.create_database(Database(name=db))
            client.create_table(make_table(db, "w", columns=COLUMNS))
            writer, idle = client.open_txns(OpenTxnRequest(num_txns=2, user="u",
                                                           hostname="h")).txn_ids
            client.allocate_table_write_ids(
                AllocateTableWriteIdsRequest(dbName=db, tableName="w", txnIds=[writer]))
            client.add_write_notification_log(WriteNotificationLogRequest(
                txnId=writer, writeId=1, db=db, table="w",
                fileInfo=InsertEventRequestData(filesAdded=["file:/w/delta_1/b0"])))
            for txn in (writer, idle):
                client.abort_txn(AbortTxnRequest(txnid=txn))

            def write_infos():
                return client.get_all_write_event_info(GetAllWriteEventInfoRequest(txnId=writer))

            def listed():
                return {txn.id for txn in client.get_open_txns_info().open_txns}

            assert len(write_infos()) == 1 and {writer, idle} <= listed()
            deadline = time.monotonic() + TTL_WAIT_S
            while (write_infos() or idle in listed()) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert write_infos() == []
            assert writer in listed() and idle not in listed()
    finally:
        stop_hivestore(server)


def test_hive_23s_own_deserializer_reads_the_messages(client, tmp_path):
    """Hive 2.3's JSONMessageDeserializer (from the pyspark jars) reads every message it has a
    class for, with the Thrift objects inside (tests/java/EventMessages.java)."""
    from java_clients import require_java, run_java

    require_java()
    start = current_id(client)
    db = unique_name(DB_PREFIX)
    client.create_database(Database(name=db))
    client.create_table(make_table(db, "t", columns=COLUMNS, partition_keys=KEYS))
    client.add_partitions([partition(db, "t", "1"), partition(db, "t", "2")])
    altered = client.get_partition(db, "t", ["1"])
    altered.parameters["k"] = "v"
    client.alter_partition(db, "t", altered)
    table = client.get_table(db, "t")
    table.parameters["note"] = "x"
    client.alter_table(db, "t", table)
    client.fire_listener_event(FireEventRequest(
        successful=True, data=FireEventRequestData(insertData=InsertEventRequestData(
            filesAdded=["file:/w/f0", "file:/w/f1"])), dbName=db, tableName="t",
        partitionVals=["2"]))
    client.drop_partition(db, "t", ["2"], False)
    client.drop_table(db, "t", False)
    client.drop_database(db, False, False)
    events = events_after(client, start)
    lines = tmp_path / "events.tsv"
    lines.write_text("".join(f"{e.eventType}\t{e.message}\n" for e in events), encoding="utf-8")

    ran = run_java("EventMessages", [str(lines)], tmp_path, timeout=120)
    verdicts = ran["verdicts"]
    assert len(verdicts) == len(events), f"{ran['stdout']}\n{ran['stderr']}"
    assert not [v for v in verdicts if v.startswith("FAIL")], "\n".join(verdicts)
    read = dict(v.split(" ", 2)[1:] for v in verdicts)
    assert "[1]" in read["3"] and "{ds=1}, {ds=2}" in read["3"]
    assert "{ds=2}" in read["6"] and "file:/w/f0" in read["6"]
