"""Readers beside the writer on PostgreSQL (`hivestore serve --store postgres://... --reader`).

Goal: docs/postgres.md's promise for servers that read beside the one that writes: a call to
a reader sees every write any server acknowledged before the call began (a client that
writes on one server and reads on another sees its write), whatever the reader kept from
earlier calls (listings, the table, statistics); a reader refuses writes, locks and
transactions with a MetaException that says where to send them, changes nothing, and goes on
serving reads when the writing server dies.

Method: a PostgreSQL of the test's own; a writing server and two readers on it, each with its
own empty data directory. The Hive 4 client (vendored in pyiceberg) writes on the writer and
reads on the readers right after each acknowledged write, with no pause between: partitions
added, a table altered, statistics written, a partition dropped. Then writes to a reader, and
the writer killed. Bounded: ROUNDS writes. hivestore only: skipped under HMS_URI.
"""

import os
import signal
import subprocess

import pytest
from thrift.Thrift import TApplicationException
from hive_metastore.ttypes import (ColumnStatistics, ColumnStatisticsData, ColumnStatisticsDesc,
                                   ColumnStatisticsObj, Database, FieldSchema, LockComponent,
                                   LockLevel, LockRequest, LockType, LongColumnStatsData,
                                   MetaException, OpenTxnRequest, Partition,
                                   PartitionsStatsRequest)

from conftest import hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import connected, make_table, raises_hms, storage_descriptor
from postgres_server import PostgresServer

pytestmark = pytest.mark.skipif(bool(os.environ.get("HMS_URI")),
                                reason="starts servers on PostgreSQL: hivestore only")

ROUNDS = 60
START_TIMEOUT_S = 30.0


def partition(day: int) -> Partition:
    return Partition(values=[f"d{day:04}"], dbName="sales", tableName="orders",
                     sd=storage_descriptor([FieldSchema("id", "bigint", None)]), parameters={})


def statistics(day: int, nulls: int) -> ColumnStatistics:
    data = ColumnStatisticsData(longStats=LongColumnStatsData(
        lowValue=day, highValue=day + 10, numNulls=nulls, numDVs=11))
    return ColumnStatistics(
        statsDesc=ColumnStatisticsDesc(isTblLevel=False, dbName="sales", tableName="orders",
                                       partName=f"ds=d{day:04}"),
        statsObj=[ColumnStatisticsObj(colName="id", colType="bigint", statsData=data)],
        engine="hive")


def nulls_of(client, day: int) -> int:
    request = PartitionsStatsRequest(dbName="sales", tblName="orders", colNames=["id"],
                                     partNames=[f"ds=d{day:04}"], engine="hive")
    found = client.get_partitions_statistics_req(request).partStats[f"ds=d{day:04}"]
    return found[0].statsData.longStats.numNulls


def test_readers_see_every_acknowledged_write_and_refuse_writes(tmp_path):
    with PostgresServer() as postgres:
        postgres.create_database("metastore")
        url = postgres.url("metastore")
        for name in ("writer", "reader1", "reader2"):
            (tmp_path / name).mkdir()
        writer = start_hivestore(hivestore_binary(), tmp_path / "writer",
                                 extra_args=["--store", url])
        readers = [start_hivestore(hivestore_binary(), tmp_path / name,
                                   extra_args=["--store", url, "--reader"])
                   for name in ("reader1", "reader2")]
        try:
            with connected(writer) as w, connected(readers[0]) as r1, \
                    connected(readers[1]) as r2:
                w.create_database(Database(name="sales", parameters={}))
                w.create_table(make_table("sales", "orders",
                                          columns=[FieldSchema("id", "bigint", None)],
                                          partition_keys=[FieldSchema("ds", "string", None)]))
                w.add_partitions([partition(day) for day in range(100)])
                for reader in (r1, r2):
                    assert len(reader.get_partition_names("sales", "orders", -1)) == 100
                    assert reader.get_table("sales", "orders").parameters.get("round") is None

                # Each write read back at once on a reader that kept what it read before.
                for round_ in range(ROUNDS):
                    reader = (r1, r2)[round_ % 2]
                    day = 100 + round_
                    w.add_partition(partition(day))
                    names = reader.get_partition_names("sales", "orders", -1)
                    assert f"ds=d{day:04}" in names and len(names) == day + 1, round_
                    filtered = reader.get_partitions_by_filter("sales", "orders",
                                                               f"ds >= 'd{day:04}'", -1)
                    assert [p.values[0] for p in filtered] == [f"d{day:04}"], round_
                    table = w.get_table("sales", "orders")
                    table.parameters["round"] = str(round_)
                    w.alter_table("sales", "orders", table)
                    assert reader.get_table("sales", "orders").parameters["round"] == \
                        str(round_), round_
                    w.update_partition_column_statistics(statistics(round_, round_ + 1))
                    assert nulls_of(reader, round_) == round_ + 1, round_
                w.drop_partition("sales", "orders", ["d0000"], False)
                for reader in (r1, r2):
                    names = reader.get_partition_names("sales", "orders", -1)
                    assert "ds=d0000" not in names and len(names) == 100 + ROUNDS - 1
                    assert reader.get_current_notificationEventId().eventId == \
                        w.get_current_notificationEventId().eventId

                # Writes, locks and transactions go to the writer; a reader changes nothing.
                with raises_hms(MetaException, "create_database is refused",
                                "send writes to that server"):
                    r1.create_database(Database(name="elsewhere", parameters={}))
                lock = LockRequest(component=[LockComponent(
                    type=LockType.SHARED_READ, level=LockLevel.TABLE, dbname="sales",
                    tablename="orders")], user="alice", hostname="test")
                # lock and open_txns declare no MetaException: the refusal is an application error.
                with raises_hms(TApplicationException, "lock is refused"):
                    r2.lock(lock)
                with raises_hms(TApplicationException, "open_txns is refused"):
                    r2.open_txns(OpenTxnRequest(num_txns=1, user="alice", hostname="test"))
                assert "elsewhere" not in w.get_all_databases()

                # The writer dies: the readers go on answering what it acknowledged.
                writer.process.send_signal(signal.SIGKILL)
                writer.process.wait(timeout=START_TIMEOUT_S)
                for reader in (r1, r2):
                    assert len(reader.get_partition_names("sales", "orders", -1)) == \
                        100 + ROUNDS - 1
        finally:
            if writer.process.poll() is None:
                writer.process.kill()
                writer.process.wait(timeout=START_TIMEOUT_S)
            for reader in readers:  # each must stop cleanly, having served all along
                stop_hivestore(reader)


def test_a_reader_needs_a_database_a_writer_served(tmp_path):
    with PostgresServer() as postgres:
        postgres.create_database("empty")
        command = [str(hivestore_binary()), "serve", "--listen", "127.0.0.1:0",
                   "--data-dir", str(tmp_path / "data"), "--warehouse", str(tmp_path / "wh"),
                   "--store", postgres.url("empty"), "--reader"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=START_TIMEOUT_S,
                              check=False)
        assert done.returncode != 0
        assert "start its writing server first" in done.stdout + done.stderr
