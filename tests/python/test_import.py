"""`hivestore import`: a live metastore's catalog copied into a data directory.

Goal: a Java HMS 2.3.10 filled by Spark (a database, partitioned tables with statistics, a view,
a function) imports with `--verify` showing no difference and Spark then reads the same tables
through hivestore; a rerun writes nothing; `--verify` prints a change made on the source; an
import killed midway finishes when run again; a hivestore source (Hive 4's API: catalogs,
constraints, roles, grants, statistics) imports the same way, its event id carried over, and
`--follow` applies writes made on the source afterwards; bad input (a wrong URI, an unreachable
source, limits out of range) is refused with a clear error and nothing written.

Method: the reference HMS is started with /work/shared/tools/reference-hms/start.sh (skipped
without Java); Spark runs in a child process to fill it and in this process to read the copy;
hivestore sources are filled through the Thrift client; the import runs as the binary.
"""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import (free_loopback_port, hivestore_binary, port_accepts, start_hivestore,
                      stop_hivestore)
from hms_helpers import Server, connected, make_table, make_view
from spark_sessions import java_available, spark_session

REFERENCE_START = Path("/work/shared/tools/reference-hms/start.sh")
# Bounds every import run and every wait of these tests.
IMPORT_TIMEOUT_S = 300
FOLLOW_WAIT_S = 60
REFERENCE_START_TIMEOUT_S = 300

SPARK_FILL = r"""
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[4])
from hms_helpers import Server
from spark_sessions import spark_session
server = Server("127.0.0.1", int(sys.argv[1]))
with spark_session(server, Path(sys.argv[2]), Path(sys.argv[3]), "import-fill") as spark:
    spark.sql("CREATE DATABASE shop COMMENT 'the shop'")
    spark.sql("CREATE TABLE shop.sales (id INT, amount DOUBLE, item STRING) USING parquet "
              "PARTITIONED BY (ds STRING)")
    spark.sql("INSERT INTO shop.sales VALUES (1, 2.5, 'a', '2024-01-01'), "
              "(2, 3.5, 'b', '2024-01-02'), (3, 1.0, 'c', '2024-01-02')")
    spark.sql("ANALYZE TABLE shop.sales COMPUTE STATISTICS FOR COLUMNS id, amount, item")
    spark.sql("ANALYZE TABLE shop.sales PARTITION (ds) COMPUTE STATISTICS")
    spark.sql("CREATE TABLE shop.hive_part (k STRING, v INT) PARTITIONED BY (p INT) "
              "STORED AS PARQUET")
    spark.sql("INSERT INTO shop.hive_part PARTITION (p=1) VALUES ('x', 1)")
    spark.sql("CREATE VIEW shop.big_sales AS SELECT * FROM shop.sales WHERE amount > 2")
    spark.sql("CREATE FUNCTION shop.my_upper AS "
              "'org.apache.hadoop.hive.ql.udf.generic.GenericUDFUpper'")
"""


def run_import(*args, timeout=IMPORT_TIMEOUT_S):
    """Runs `hivestore import` with `args`; returns the completed process."""
    command = [str(hivestore_binary()), "import", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def import_into(source_uri, data_dir, warehouse, *args):
    return run_import("--from", source_uri, "--data-dir", data_dir, "--warehouse", warehouse,
                      *args)


def serve_copy(workdir: Path, data_dir: Path, warehouse: Path, *extra) -> Server:
    """`hivestore serve` on a copied data directory, with `extra` flags."""
    port = free_loopback_port()
    log_path = workdir / f"copy-serve-{port}.log"
    command = [str(hivestore_binary()), "serve", "--listen", f"127.0.0.1:{port}",
               "--data-dir", str(data_dir), "--warehouse", str(warehouse), *map(str, extra)]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL)
    server = Server("127.0.0.1", port, process=process, log_path=str(log_path),
                    started_s=time.time())
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and process.poll() is None:
        if port_accepts("127.0.0.1", port):
            return server
        time.sleep(0.05)
    process.kill()
    process.wait(timeout=15)
    pytest.fail(f"the copy's server did not start; log:\n{server.log_tail()}")


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The Java reference HMS 2.3.10, filled by Spark; stopped after the module."""
    if not java_available():
        pytest.skip("no java for the reference HMS and PySpark")
    if not REFERENCE_START.is_file():
        pytest.skip(f"no reference HMS script at {REFERENCE_START}")
    base = tmp_path_factory.mktemp("reference")
    port = free_loopback_port()
    environment = dict(os.environ, PYSPARK_VENV=str(Path(sys.prefix)))
    started = subprocess.run(["bash", str(REFERENCE_START), str(port), str(base / "hms")],
                             capture_output=True, text=True, env=environment,
                             timeout=REFERENCE_START_TIMEOUT_S)
    if started.returncode != 0:
        pytest.skip(f"the reference HMS did not start: {started.stdout}{started.stderr}")
    pid = int((base / "hms" / "hms.pid").read_text())
    try:
        server = Server("127.0.0.1", port)
        warehouse = base / "hms" / "warehouse"
        fill = subprocess.run(
            [sys.executable, "-c", SPARK_FILL, str(port), str(warehouse), str(base / "spark"),
             str(Path(__file__).resolve().parent)],
            capture_output=True, text=True, timeout=REFERENCE_START_TIMEOUT_S)
        assert fill.returncode == 0, f"Spark could not fill the reference:\n{fill.stderr[-4000:]}"
        yield server, warehouse
    finally:
        os.kill(pid, signal.SIGTERM)


def test_a_spark_filled_hive_2_imports_verified_and_spark_reads_the_copy(reference, tmp_path):
    source, warehouse = reference
    data_dir = tmp_path / "copy"
    done = import_into(source.uri, data_dir, warehouse, "--verify")
    assert done.returncode == 0, done.stderr
    assert "verify: source and copy are the same" in done.stderr
    assert "dialect=Hive2" in done.stderr
    # A second run finds everything there and writes nothing.
    again = import_into(source.uri, data_dir, warehouse)
    assert again.returncode == 0, again.stderr
    assert "(0 written)" in again.stderr and "partitions (0 written" in again.stderr
    copy = serve_copy(tmp_path, data_dir, warehouse)
    try:
        with connected(copy) as client:
            table = client.get_table("shop", "sales")
            assert table.sd.location.endswith("shop.db/sales")
            assert sorted(client.get_partition_names("shop", "sales", -1)) == [
                "ds=2024-01-01", "ds=2024-01-02"]
            assert client.get_function("shop", "my_upper").className.endswith("GenericUDFUpper")
            assert client.get_current_notificationEventId().eventId == 0
        with spark_session(copy, warehouse, tmp_path / "spark", "import-read") as spark:
            rows = spark.sql("SELECT id, amount, item, ds FROM shop.sales ORDER BY id").collect()
            assert [tuple(row) for row in rows] == [
                (1, 2.5, "a", "2024-01-01"), (2, 3.5, "b", "2024-01-02"),
                (3, 1.0, "c", "2024-01-02")]
            assert spark.sql("SELECT count(*) FROM shop.big_sales").collect()[0][0] == 2
            assert spark.sql("SELECT k, v, p FROM shop.hive_part").collect()[0][:] == ("x", 1, 1)
            assert spark.sql("SELECT shop.my_upper('a')").collect()[0][0] == "A"
            described = spark.sql("DESCRIBE EXTENDED shop.sales amount").collect()
            assert ("max", "3.5") in [(row[0], row[1]) for row in described]
    finally:
        stop_hivestore(copy)


def test_verify_prints_what_changed_on_the_source(reference, tmp_path):
    source, warehouse = reference
    data_dir = tmp_path / "copy"
    assert import_into(source.uri, data_dir, warehouse).returncode == 0
    with connected(source) as client:
        table = client.get_table("shop", "hive_part")
        table.parameters["owner_team"] = "billing"
        client.alter_table("shop", "hive_part", table)
    try:
        checked = import_into(source.uri, data_dir, warehouse, "--skip-copy", "--verify")
        assert checked.returncode == 2, checked.stderr
        assert ("differs: table shop.hive_part: parameters[owner_team]: source Some(\"billing\"),"
                " copy None") in checked.stdout
        assert "verify found 1 differences" in checked.stderr
        # Importing again carries the change over.
        assert import_into(source.uri, data_dir, warehouse, "--verify").returncode == 0
    finally:
        with connected(source) as client:
            table = client.get_table("shop", "hive_part")
            del table.parameters["owner_team"]
            client.alter_table("shop", "hive_part", table)


def fill_partitions(server, database, tables, partitions):
    """`tables` partitioned tables of `partitions` partitions each in a new `database`."""
    from hive_metastore.ttypes import Database, FieldSchema, Partition
    with connected(server) as client:
        client.create_database(Database(name=database, parameters={}))
        for index in range(tables):
            name = f"t{index}"
            client.create_table(make_table(database, name,
                                           partition_keys=[FieldSchema("ds", "string", None)]))
            sd = client.get_table(database, name).sd
            for start in range(0, partitions, 1000):
                batch = [Partition(values=[f"d{value:06d}"], dbName=database, tableName=name,
                                   sd=sd, parameters={"n": str(value)})
                         for value in range(start, min(start + 1000, partitions))]
                client.add_partitions(batch)


@pytest.fixture()
def hivestore_source(tmp_path):
    workdir = tmp_path / "source"
    workdir.mkdir()
    running = start_hivestore(hivestore_binary(), workdir)
    try:
        yield running
    finally:
        stop_hivestore(running)


def test_an_import_killed_midway_finishes_when_run_again(hivestore_source, tmp_path):
    fill_partitions(hivestore_source, "big", tables=3, partitions=3000)
    data_dir, warehouse = tmp_path / "copy", tmp_path / "warehouse"
    # One partition a call, each written and flushed on its own: some seconds for 9,000.
    command = [str(hivestore_binary()), "import", "--from", hivestore_source.uri,
               "--data-dir", str(data_dir), "--warehouse", str(warehouse),
               "--batch-size", "1", "--connections", "1"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               stdin=subprocess.DEVNULL)
    time.sleep(1.5)
    assert process.poll() is None, "the import ended before it could be interrupted"
    process.kill()
    process.wait(timeout=15)
    finished = import_into(hivestore_source.uri, data_dir, warehouse, "--verify")
    assert finished.returncode == 0, finished.stdout[-4000:] + finished.stderr[-4000:]
    # The second run wrote only what the first had not: some, not all, of the partitions.
    written = re.search(r"9000 partitions \((\d+) written", finished.stderr)
    assert written, finished.stderr[-4000:]
    assert 0 < int(written.group(1)) < 9000, finished.stderr[-4000:]
    assert not warehouse.exists(), "the import made the warehouse directory"


def fill_hive4(server):
    """Hive 4's objects on a hivestore source: a catalog, constraints, a role with a member,
    grants, column statistics of a table and a partition."""
    from hive_metastore.ttypes import (
        AddForeignKeyRequest, AddPrimaryKeyRequest, Catalog, ColumnStatistics,
        ColumnStatisticsData, ColumnStatisticsDesc, ColumnStatisticsObj, CreateCatalogRequest,
        Database, FieldSchema, Function, HiveObjectPrivilege, HiveObjectRef, HiveObjectType,
        LongColumnStatsData, Partition, PrincipalType, PrivilegeBag, PrivilegeGrantInfo, Role,
        SQLForeignKey, SQLPrimaryKey)
    with connected(server) as client:
        client.create_catalog(CreateCatalogRequest(Catalog(
            name="lake", description="the lake", locationUri="s3a://bucket/lake")))
        client.create_database(Database(name="raw", catalogName="lake",
                                        locationUri="s3a://bucket/lake/raw.db", parameters={}))
        client.create_database(Database(name="dw", description="warehouse",
                                        locationUri="s3a://bucket/dw.db", parameters={"a": "b"}))
        client.create_table(make_table("dw", "dim", columns=[FieldSchema("id", "int", None),
                                                          FieldSchema("name", "string", None)]))
        client.create_table(make_table("dw", "fact", columns=[FieldSchema("id", "int", None),
                                                           FieldSchema("dim_id", "int", None)],
                                       partition_keys=[FieldSchema("ds", "string", None)]))
        client.create_table(make_table("raw", "events", catName="lake",
                                       columns=[FieldSchema("x", "string", None)]))
        sd = client.get_table("dw", "fact").sd
        client.add_partitions([Partition(values=[f"2024-0{day}"], dbName="dw", tableName="fact",
                                         sd=sd, parameters={}) for day in range(1, 4)])
        client.add_primary_key(AddPrimaryKeyRequest([SQLPrimaryKey(
            table_db="dw", table_name="dim", column_name="id", key_seq=1, pk_name="dim_pk",
            enable_cstr=False, validate_cstr=False, rely_cstr=True)]))
        client.add_foreign_key(AddForeignKeyRequest([SQLForeignKey(
            pktable_db="dw", pktable_name="dim", pkcolumn_name="id", fktable_db="dw",
            fktable_name="fact", fkcolumn_name="dim_id", key_seq=1, update_rule=0,
            delete_rule=0, fk_name="fact_dim_fk", pk_name="dim_pk", enable_cstr=False,
            validate_cstr=False, rely_cstr=True)]))
        client.create_function(Function(functionName="f", dbName="dw", className="a.B",
                                        ownerName="alice", ownerType=PrincipalType.USER,
                                        createTime=0, functionType=1, resourceUris=[]))
        client.create_role(Role(roleName="analysts", ownerName="admin"))
        client.grant_role("analysts", "bob", PrincipalType.USER, "admin", PrincipalType.USER,
                          False)
        grant = PrivilegeGrantInfo("SELECT", 0, "admin", PrincipalType.USER, False)
        client.grant_privileges(PrivilegeBag([HiveObjectPrivilege(
            HiveObjectRef(HiveObjectType.TABLE, "dw", "fact", None, None), "analysts",
            PrincipalType.ROLE, grant, "SQL")]))

        def long_stats(low, high, partition=None):
            return ColumnStatistics(
                statsDesc=ColumnStatisticsDesc(isTblLevel=partition is None, dbName="dw",
                                               tableName="fact", partName=partition),
                statsObj=[ColumnStatisticsObj("id", "int", ColumnStatisticsData(
                    longStats=LongColumnStatsData(lowValue=low, highValue=high, numNulls=0,
                                                  numDVs=high - low + 1)))],
                engine="hive")
        client.update_table_column_statistics(long_stats(1, 30))
        client.update_partition_column_statistics(long_stats(1, 10, "ds=2024-01"))
        return client.get_current_notificationEventId().eventId


def test_a_hive_4_source_imports_catalogs_constraints_roles_grants_and_its_event_id(
        hivestore_source, tmp_path):
    event_id = fill_hive4(hivestore_source)
    data_dir, warehouse = tmp_path / "copy", tmp_path / "warehouse"
    done = import_into(hivestore_source.uri, data_dir, warehouse, "--verify")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "dialect=Hive4" in done.stderr
    copy = serve_copy(tmp_path, data_dir, warehouse)
    try:
        from hive_metastore.ttypes import (AllTableConstraintsRequest, GetCatalogRequest,
                                           PartitionsStatsRequest)
        with connected(copy) as client:
            assert client.get_current_notificationEventId().eventId == event_id
            assert client.get_catalog(GetCatalogRequest("lake")).catalog.locationUri == \
                "s3a://bucket/lake"
            assert client.get_table("@lake#raw", "events").catName == "lake"
            constraints = client.get_all_table_constraints(
                AllTableConstraintsRequest("dw", "fact", "hive")).allTableConstraints
            assert [fk.fk_name for fk in constraints.foreignKeys] == ["fact_dim_fk"]
            assert "analysts" in client.get_role_names()
            stats = client.get_partitions_statistics_req(
                PartitionsStatsRequest("dw", "fact", ["id"], ["ds=2024-01"], engine="hive"))
            assert stats.partStats["ds=2024-01"][0].statsData.longStats.highValue == 10
            # The import wrote no events of its own: the copy's log is empty up to the id.
            from hive_metastore.ttypes import NotificationEventRequest
            assert client.get_next_notification(NotificationEventRequest(0, 100)).events == []
    finally:
        stop_hivestore(copy)


def wait_for_line(stream_path: Path, fragment: str, process) -> None:
    deadline = time.monotonic() + FOLLOW_WAIT_S
    while time.monotonic() < deadline:
        if fragment in stream_path.read_text():
            return
        assert process.poll() is None, f"the follower ended:\n{stream_path.read_text()[-4000:]}"
        time.sleep(0.1)
    pytest.fail(f"no {fragment!r} within {FOLLOW_WAIT_S}s:\n{stream_path.read_text()[-4000:]}")


def test_follow_applies_the_sources_writes_after_the_import(hivestore_source, tmp_path):
    from hive_metastore.ttypes import FieldSchema, Partition
    fill_partitions(hivestore_source, "live", tables=2, partitions=5)
    data_dir, warehouse = tmp_path / "copy", tmp_path / "warehouse"
    log_path = tmp_path / "follow.log"
    command = [str(hivestore_binary()), "import", "--from", hivestore_source.uri,
               "--data-dir", str(data_dir), "--warehouse", str(warehouse), "--follow",
               "--follow-interval-ms", "100"]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL)
    try:
        wait_for_line(log_path, "following the source's notification log", process)
        with connected(hivestore_source) as client:
            client.create_table(make_table("live", "new_table"))
            sd = client.get_table("live", "t0").sd
            client.add_partitions([Partition(values=["d100000"], dbName="live", tableName="t0",
                                             sd=sd, parameters={})])
            table = client.get_table("live", "t1")
            table.parameters["changed"] = "yes"
            table.sd.cols.append(FieldSchema("extra", "string", None))
            client.alter_table("live", "t1", table)
            client.drop_partition_by_name("live", "t0", "ds=d000001", False)
            client.create_table(make_view("live", "v", "SELECT 1"))
            last = client.get_current_notificationEventId().eventId
        wait_for_line(log_path, f"last_event_id={last}", process)
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=30)
    assert code == 0, log_path.read_text()[-4000:]
    checked = import_into(hivestore_source.uri, data_dir, warehouse, "--skip-copy", "--verify")
    assert checked.returncode == 0, checked.stdout[-4000:] + checked.stderr[-4000:]
    copy = serve_copy(tmp_path, data_dir, warehouse)
    try:
        with connected(copy) as client:
            assert client.get_current_notificationEventId().eventId == last
            assert "new_table" in client.get_all_tables("live")
            names = client.get_partition_names("live", "t0", -1)
            assert "ds=d100000" in names and "ds=d000001" not in names
            assert client.get_table("live", "t1").parameters["changed"] == "yes"
    finally:
        stop_hivestore(copy)


@pytest.fixture()
def sketching_source(tmp_path):
    """A hivestore source whose statistics reads return their sketches."""
    workdir = tmp_path / "sketching-source"
    workdir.mkdir()
    running = start_hivestore(hivestore_binary(), workdir, extra_args=("--stats-fetch-sketches",))
    try:
        yield running
    finally:
        stop_hivestore(running)


BIT_VECTORS = b"HL\x00\x01\xff"
PARTITION_BIT_VECTORS = b"FM\x10\x00\x07\x08"


def fill_fine_grants_and_sketches(server):
    """Grants on a partition, a table column and a partition column; statistics with NDV
    sketches on a table and a partition."""
    from hive_metastore.ttypes import (
        ColumnStatistics, ColumnStatisticsData, ColumnStatisticsDesc, ColumnStatisticsObj,
        Database, FieldSchema, HiveObjectPrivilege, HiveObjectRef, HiveObjectType,
        LongColumnStatsData, Partition, PrincipalType, PrivilegeBag, PrivilegeGrantInfo)
    with connected(server) as client:
        client.create_database(Database(name="g", parameters={}))
        client.create_table(make_table("g", "t", columns=[FieldSchema("id", "int", None),
                                                       FieldSchema("name", "string", None)],
                                       partition_keys=[FieldSchema("ds", "string", None)]))
        sd = client.get_table("g", "t").sd
        client.add_partitions([Partition(values=[day], dbName="g", tableName="t", sd=sd,
                                         parameters={}) for day in ("d1", "d2")])

        def grant(kind, values, column, user, privilege):
            return HiveObjectPrivilege(
                HiveObjectRef(kind, "g", "t", values, column), user, PrincipalType.USER,
                PrivilegeGrantInfo(privilege, 0, "admin", PrincipalType.USER, False), "SQL")
        client.grant_privileges(PrivilegeBag([
            grant(HiveObjectType.PARTITION, ["d1"], None, "carol", "SELECT"),
            grant(HiveObjectType.COLUMN, None, "name", "dave", "SELECT"),
            grant(HiveObjectType.COLUMN, ["d2"], "id", "erin", "SELECT")]))

        def sketched(sketch, partition=None):
            return ColumnStatistics(
                statsDesc=ColumnStatisticsDesc(isTblLevel=partition is None, dbName="g",
                                               tableName="t", partName=partition),
                statsObj=[ColumnStatisticsObj("id", "int", ColumnStatisticsData(
                    longStats=LongColumnStatsData(lowValue=1, highValue=9, numNulls=0,
                                                  numDVs=9, bitVectors=sketch)))],
                engine="hive")
        client.update_table_column_statistics(sketched(BIT_VECTORS))
        client.update_partition_column_statistics(sketched(PARTITION_BIT_VECTORS, "ds=d1"))


def fine_grants(client):
    """Every partition, table column and partition column grant, as comparable tuples."""
    from hive_metastore.ttypes import HiveObjectRef, HiveObjectType
    found = set()
    for kind, values in ((HiveObjectType.PARTITION, None), (HiveObjectType.COLUMN, None),
                         (HiveObjectType.COLUMN, [""])):
        for grant in client.list_privileges(None, None, HiveObjectRef(kind, None, None,
                                                                     values, None)):
            found.add((grant.hiveObject.objectType, tuple(grant.hiveObject.partValues or ()),
                       grant.hiveObject.columnName, grant.principalName,
                       grant.grantInfo.privilege))
    return found


def test_partition_and_column_grants_and_sketches_are_copied_and_verified(
        sketching_source, tmp_path):
    fill_fine_grants_and_sketches(sketching_source)
    data_dir, warehouse = tmp_path / "copy", tmp_path / "warehouse"
    done = import_into(sketching_source.uri, data_dir, warehouse, "--verify")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    with connected(sketching_source) as client:
        source_grants = fine_grants(client)
    assert len(source_grants) == 3, source_grants
    copy = serve_copy(tmp_path, data_dir, warehouse, "--stats-fetch-sketches")
    try:
        from hive_metastore.ttypes import PartitionsStatsRequest, TableStatsRequest
        with connected(copy) as client:
            assert fine_grants(client) == source_grants
            table = client.get_table_statistics_req(TableStatsRequest("g", "t", ["id"],
                                                                      engine="hive"))
            assert table.tableStats[0].statsData.longStats.bitVectors == BIT_VECTORS
            partition = client.get_partitions_statistics_req(
                PartitionsStatsRequest("g", "t", ["id"], ["ds=d1"], engine="hive"))
            assert partition.partStats["ds=d1"][0].statsData.longStats.bitVectors == \
                PARTITION_BIT_VECTORS
    finally:
        stop_hivestore(copy)
    # A revoked grant and a changed sketch on the source are differences, then copied.
    from hive_metastore.ttypes import (HiveObjectPrivilege, HiveObjectRef, HiveObjectType,
                                       PrincipalType, PrivilegeBag, PrivilegeGrantInfo)
    with connected(sketching_source) as client:
        client.revoke_privileges(PrivilegeBag([HiveObjectPrivilege(
            HiveObjectRef(HiveObjectType.COLUMN, "g", "t", None, "name"), "dave",
            PrincipalType.USER, PrivilegeGrantInfo("SELECT", 0, "admin", PrincipalType.USER,
                                                   False), "SQL")]))
        from hive_metastore.ttypes import (ColumnStatistics, ColumnStatisticsData,
                                           ColumnStatisticsDesc, ColumnStatisticsObj,
                                           LongColumnStatsData)
        client.update_table_column_statistics(ColumnStatistics(
            statsDesc=ColumnStatisticsDesc(isTblLevel=True, dbName="g", tableName="t"),
            statsObj=[ColumnStatisticsObj("id", "int", ColumnStatisticsData(
                longStats=LongColumnStatsData(lowValue=1, highValue=9, numNulls=0, numDVs=9,
                                              bitVectors=b"HL\x00\x02\xfe")))],
            engine="hive"))
    checked = import_into(sketching_source.uri, data_dir, warehouse, "--skip-copy", "--verify")
    assert checked.returncode == 2, checked.stdout[-4000:] + checked.stderr[-4000:]
    lines = checked.stdout.splitlines()
    assert any(line.startswith("extra in copy: privilege") and "dave" in line
               for line in lines), checked.stdout
    assert any(line.startswith("differs: statistics of table g.t column id") for line in lines), \
        checked.stdout
    again = import_into(sketching_source.uri, data_dir, warehouse, "--verify")
    assert again.returncode == 0, again.stdout[-4000:] + again.stderr[-4000:]


def wait_until(check, what):
    """Polls `check` until it is true, within FOLLOW_WAIT_S."""
    deadline = time.monotonic() + FOLLOW_WAIT_S
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    pytest.fail(f"not within {FOLLOW_WAIT_S}s: {what}")


def metrics_get(port, path):
    import urllib.error
    import urllib.request
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_serve_follow_from_serves_reads_and_cuts_over(hivestore_source, tmp_path):
    from hive_metastore.ttypes import Database, MetaException
    fill_partitions(hivestore_source, "live", tables=1, partitions=3)
    data_dir, warehouse = tmp_path / "copy", tmp_path / "warehouse"
    done = import_into(hivestore_source.uri, data_dir, warehouse)
    assert done.returncode == 0, done.stderr[-4000:]
    metrics_port = free_loopback_port()
    follower = serve_copy(tmp_path, data_dir, warehouse, "--follow-from", hivestore_source.uri,
                          "--follow-interval-ms", "100", "--metrics-listen",
                          f"127.0.0.1:{metrics_port}")
    try:
        # A write on the source is read through the follower.
        with connected(hivestore_source) as source:
            source.create_table(make_table("live", "written_on_source"))
            last = source.get_current_notificationEventId().eventId
        with connected(follower) as client:
            wait_until(lambda: "written_on_source" in client.get_all_tables("live"),
                       "the source's new table on the follower")
            wait_until(lambda: client.get_current_notificationEventId().eventId == last,
                       "the follower's event id at the source's")
            # Delegation tokens are refused, naming the source and the cut-over (writes go to
            # the source: test_follow_forwarding.py).
            with pytest.raises(MetaException) as refused:
                client.get_delegation_token("alice", "renewer")
            assert hivestore_source.uri in refused.value.message
            assert "SIGUSR2" in refused.value.message
        status, body = metrics_get(metrics_port, "/ready")
        assert status == 200 and f"following {hivestore_source.uri}" in body, body
        status, text = metrics_get(metrics_port, "/metrics")
        assert "hivestore_follow_following 1" in text and "hivestore_follow_lag_events" in text
        # Cut-over: the follower catches up, then serves writes itself.
        with connected(hivestore_source) as source:
            source.create_table(make_table("live", "before_cut_over"))
        follower.process.send_signal(signal.SIGUSR2)
        wait_until(lambda: "hivestore_follow_following 0" in metrics_get(metrics_port,
                                                                         "/metrics")[1],
                   "the cut-over after SIGUSR2")
        with connected(follower) as client:
            client.create_database(Database(name="here", parameters={}))
            assert "before_cut_over" in client.get_all_tables("live")
            copy_id = client.get_current_notificationEventId().eventId
        with connected(hivestore_source) as source:
            assert "here" not in source.get_all_databases()
            source_id = source.get_current_notificationEventId().eventId
        # The copy logs its own write from the source's id on.
        assert copy_id == source_id + 1, (copy_id, source_id)
        status, text = metrics_get(metrics_port, "/metrics")
        assert "hivestore_follow_following 0" in text
        assert (data_dir / "cut-over").is_file()
    finally:
        stop_hivestore(follower)
    # A copy cut over is not followed again.
    command = [str(hivestore_binary()), "serve", "--listen", f"127.0.0.1:{free_loopback_port()}",
               "--data-dir", str(data_dir), "--warehouse", str(warehouse), "--follow-from",
               hivestore_source.uri]
    again = subprocess.run(command, capture_output=True, text=True, timeout=60,
                           stdin=subprocess.DEVNULL)
    assert again.returncode == 1
    assert "was cut over" in again.stderr and "without --follow-from" in again.stderr


def test_a_wrong_uri_or_a_dead_source_is_refused_and_nothing_is_written(tmp_path):
    data_dir = tmp_path / "copy"
    wrong = import_into("http://127.0.0.1:9083", data_dir, tmp_path / "w")
    assert wrong.returncode == 1
    assert "--from" in wrong.stderr and "must start with thrift://" in wrong.stderr
    port = free_loopback_port()
    dead = import_into(f"thrift://127.0.0.1:{port}", data_dir, tmp_path / "w")
    assert dead.returncode == 1
    assert "cannot read the source" in dead.stderr and str(port) in dead.stderr
    for limit, value in (("--batch-size", "0"), ("--connections", "65"),
                         ("--batch-size", "10001"), ("--connections", "0"),
                         ("--follow-interval-ms", "60001")):
        refused = import_into(f"thrift://127.0.0.1:{port}", data_dir, tmp_path / "w", limit,
                              value)
        assert refused.returncode == 1
        assert f"{limit} {value} is out of range" in refused.stderr
    assert not data_dir.exists(), "a refused import wrote its data directory"
