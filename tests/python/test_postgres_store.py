"""The catalog on PostgreSQL (`hivestore serve --store postgres://...`), through a real client.

Goal: a server on PostgreSQL answers as one on the embedded store; what it wrote lives in
PostgreSQL, not in its data directory; one server per database.

Method: a PostgreSQL server of the test's own (postgres_server.py); hivestore started on it
with an empty data directory; the pyiceberg-vendored Hive 4 client creates a database, a
partitioned table, 2,500 partitions in two calls and their statistics, and prunes them by
filter; a second hivestore on the same database exits at start saying why; the first is
stopped and a third, on yet another empty data directory, answers the same listings,
statistics and event id. A sled store moves to PostgreSQL and back through `dump` and
`restore --store`. kill -9 under writes is covered by test_crash_recovery.py, which
runs on PostgreSQL too. hivestore only: skipped under HMS_URI.
"""

import os
import subprocess

import pytest
from hive_metastore.ttypes import (ColumnStatistics, ColumnStatisticsData, ColumnStatisticsDesc,
                                   ColumnStatisticsObj, Database, FieldSchema, LongColumnStatsData,
                                   Partition, PartitionsStatsRequest)

from conftest import hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import connected, make_table, storage_descriptor
from postgres_server import PostgresServer

pytestmark = pytest.mark.skipif(bool(os.environ.get("HMS_URI")),
                                reason="starts servers on PostgreSQL: hivestore only")

PARTITION_COUNT = 2_500
START_TIMEOUT_S = 30.0
COMMAND_TIMEOUT_S = 120.0


def partition(db: str, table: str, day: int) -> Partition:
    return Partition(values=[f"d{day:05}"], dbName=db, tableName=table,
                     sd=storage_descriptor([FieldSchema("id", "bigint", None)]), parameters={})


def id_statistics(db: str, table: str, day: int) -> ColumnStatistics:
    data = ColumnStatisticsData(longStats=LongColumnStatsData(
        lowValue=day, highValue=day + 100, numNulls=day % 7, numDVs=101))
    return ColumnStatistics(
        statsDesc=ColumnStatisticsDesc(isTblLevel=False, dbName=db, tableName=table,
                                       partName=f"ds=d{day:05}"),
        statsObj=[ColumnStatisticsObj(colName="id", colType="bigint", statsData=data)],
        engine="hive")


def what_a_planner_reads(client, db: str, table: str):
    names = client.get_partitions_by_filter(db, table, "ds >= 'd02490'", -1)
    request = PartitionsStatsRequest(dbName=db, tblName=table, colNames=["id"],
                                     partNames=[f"ds=d{day:05}" for day in (10, 20, 2490)],
                                     engine="hive")
    statistics = client.get_partitions_statistics_req(request).partStats
    return (len(client.get_partition_names(db, table, -1)),
            sorted(p.values[0] for p in names),
            {name: [(s.colName, s.statsData.longStats.lowValue) for s in stats]
             for name, stats in statistics.items()},
            client.get_current_notificationEventId().eventId)


def test_a_catalog_on_postgres_outlives_its_servers_and_one_server_holds_it(tmp_path):
    with PostgresServer() as postgres:
        postgres.create_database("metastore")
        store = ["--store", postgres.url("metastore")]
        for name in ("first", "third"):
            (tmp_path / name).mkdir()
        first = start_hivestore(hivestore_binary(), tmp_path / "first", extra_args=store)
        try:
            with connected(first) as client:
                client.create_database(Database(name="sales", parameters={}))
                client.create_table(make_table("sales", "orders",
                                               columns=[FieldSchema("id", "bigint", None)],
                                               partition_keys=[FieldSchema("ds", "string",
                                                                           None)]))
                half = PARTITION_COUNT // 2
                for days in (range(half), range(half, PARTITION_COUNT)):
                    client.add_partitions([partition("sales", "orders", day) for day in days])
                for day in (10, 20, 2490):
                    client.update_partition_column_statistics(id_statistics("sales", "orders",
                                                                            day))
                seen = what_a_planner_reads(client, "sales", "orders")
            assert seen[0] == PARTITION_COUNT
            assert seen[1] == [f"d{day:05}" for day in range(2490, PARTITION_COUNT)]
            assert seen[2] == {f"ds=d{day:05}": [("id", day)] for day in (10, 20, 2490)}

            # A second server on the same database is refused at start, saying why.
            second = subprocess.run(
                [str(hivestore_binary()), "serve", "--listen", "127.0.0.1:0",
                 "--data-dir", str(tmp_path / "second"), "--warehouse",
                 str(tmp_path / "second-warehouse"), *store],
                capture_output=True, text=True, timeout=START_TIMEOUT_S)
            assert second.returncode != 0
            assert "another hivestore server" in second.stderr, second.stderr
        finally:
            first.process.terminate()
            assert first.process.wait(timeout=START_TIMEOUT_S) == 0

        # The catalog was in PostgreSQL: a server on a new, empty data directory has it.
        third = start_hivestore(hivestore_binary(), tmp_path / "third", extra_args=store)
        try:
            assert not any((tmp_path / "third").glob("data*/*")), "nothing in the data dir"
            with connected(third) as client:
                assert what_a_planner_reads(client, "sales", "orders") == seen
        finally:
            third.process.terminate()
            third.process.wait(timeout=START_TIMEOUT_S)


def hivestore(*args: str, stdin=None, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run([str(hivestore_binary()), *args], stdin=stdin, stdout=stdout,
                          stderr=subprocess.PIPE, text=stdout == subprocess.PIPE,
                          timeout=COMMAND_TIMEOUT_S)


def test_a_store_moves_from_sled_to_postgres_and_back_through_a_dump(tmp_path):
    """dump | restore --store, check --store, dump --store: the catalog a sled server held is
    served from PostgreSQL, then from a sled directory again, the same; a restore into a
    database that holds a store, or beside a server on it, is refused and changes nothing."""
    for name in ("sled", "postgres", "back"):
        (tmp_path / name).mkdir()
    sled = start_hivestore(hivestore_binary(), tmp_path / "sled")
    try:
        with connected(sled) as client:
            client.create_database(Database(name="sales", parameters={}))
            client.create_table(make_table("sales", "orders",
                                           columns=[FieldSchema("id", "bigint", None)],
                                           partition_keys=[FieldSchema("ds", "string", None)]))
            client.add_partitions([partition("sales", "orders", day)
                                   for day in range(PARTITION_COUNT)])
            for day in (10, 20, 2490):
                client.update_partition_column_statistics(id_statistics("sales", "orders", day))
            seen = what_a_planner_reads(client, "sales", "orders")
    finally:
        stop_hivestore(sled)
    assert seen[0] == PARTITION_COUNT

    with PostgresServer() as postgres:
        postgres.create_database("metastore")
        url = postgres.url("metastore")
        dump = tmp_path / "sled.dump"
        done = hivestore("dump", "--data-dir", str(tmp_path / "sled" / "data0"),
                         "--out", str(dump))
        assert done.returncode == 0, done.stderr
        with open(dump, "rb") as dumped:
            done = hivestore("restore", "--in", "-", "--store", url, stdin=dumped)
        assert done.returncode == 0, done.stderr
        keys = postgres.sql("SELECT count(*) FROM hivestore_kv", "metastore").strip()
        assert int(keys) > PARTITION_COUNT

        # Refused into a database that holds a store: nothing changes.
        with open(dump, "rb") as dumped:
            again = hivestore("restore", "--in", "-", "--store", url, stdin=dumped)
        assert again.returncode != 0
        assert "holds keys" in again.stderr, again.stderr
        assert postgres.sql("SELECT count(*) FROM hivestore_kv", "metastore").strip() == keys

        checked = hivestore("check", "--store", url)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "0 problems" in checked.stderr

        served = start_hivestore(hivestore_binary(), tmp_path / "postgres",
                                 extra_args=["--store", url])
        try:
            with connected(served) as client:
                assert what_a_planner_reads(client, "sales", "orders") == seen
            # An offline command never runs beside a server on the same database.
            beside = hivestore("dump", "--store", url, "--out", str(tmp_path / "beside.dump"))
            assert beside.returncode != 0
            assert "another hivestore server" in beside.stderr, beside.stderr
            assert not (tmp_path / "beside.dump").exists()
        finally:
            stop_hivestore(served)

        back_dump = tmp_path / "postgres.dump"
        done = hivestore("dump", "--store", url, "--out", str(back_dump))
        assert done.returncode == 0, done.stderr
    done = hivestore("restore", "--in", str(back_dump), "--data-dir",
                     str(tmp_path / "back" / "data0"))
    assert done.returncode == 0, done.stderr
    back = start_hivestore(hivestore_binary(), tmp_path / "back")
    try:
        with connected(back) as client:
            assert what_a_planner_reads(client, "sales", "orders") == seen
    finally:
        stop_hivestore(back)
