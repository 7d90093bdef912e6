"""Partitioned tables through Spark SQL (PySpark 4.3.0, its built-in Hive 2.3.10 client).

Goal: what Spark does with partitioned tables works against the server exactly as against Apache's
HMS: a managed Hive-format parquet table `PARTITIONED BY (ds STRING, hr INT)`, static and dynamic
INSERT (also INSERT OVERWRITE), SHOW PARTITIONS (all and partial specs), ALTER TABLE ... ADD
PARTITION (IF NOT EXISTS, LOCATION, all-or-nothing batches), DROP PARTITION (full and partial
specs), RENAME TO PARTITION, queries whose partition predicates Spark pushes to the metastore,
partition values with special characters, a partitioned data source table, MSCK REPAIR / RECOVER
PARTITIONS over an external table, and dropping a table with its partitions.

Method: one SparkSession for the module (as in test_spark_sql.py), statements in order against
one database. Results are checked through Spark, through the pyiceberg-vendored Thrift client
(partition names, values, locations, and `get_partitions_by_filter` with the very filter string
Spark sends) and on the local filesystem. Pruning is checked where it happens: Spark counts the
partitions the metastore returned (HiveCatalogMetrics.METRIC_PARTITIONS_FETCHED), so a query must
fetch exactly the partitions its predicate selects. Spark filters the returned partitions again
itself, so the rows alone would not show a metastore that returns too many.

Metastore calls Spark makes, traced with /work/shared/tools/thrift_trace_proxy.py in front of the
Java reference HMS (Hive 2.3.10); every statement also makes several get_table(db, t) and
get_database(db) calls, left out below. "exc" marks a declared exception Spark expects:

  CREATE TABLE ... PARTITIONED BY     get_table -> exc NoSuchObjectException,
  (Hive format or USING parquet)      create_table_with_environment_context(table with
                                      partitionKeys, null)
  INSERT INTO t PARTITION (ds=.., hr=..)  get_partitions_ps_with_auth(db, t, ['2024-01-01', '1'],
  (static; Spark writes the files         -1, user, groups), then
  itself, Hive-format parquet tables      add_partitions_req{db, t, [partition with Spark's own
  are converted to data source writes)    location], ifNotExists=true, needResult=true}; nothing
                                          when the partition exists (also INSERT OVERWRITE)
  INSERT ... PARTITION (ds, hr)       get_partitions_ps_with_auth(db, t, ['', ''], ...) (every
  (dynamic)                           partition: an empty value matches any), then one
                                      add_partitions_req(ifNotExists=true) with the new ones;
                                      PARTITION (ds='x', hr) sends ['x', '']
  INSERT OVERWRITE (data source table, get_partitions_ps_with_auth(db, t, ['']),
  static overwrite mode)              add_partitions_req, then per old partition
                                      get_partitions_ps_with_auth(db, t, [v]) and
                                      drop_partition_with_environment_context(db, t, [v],
                                      deleteData=false)
  SHOW PARTITIONS t                   get_partition_names(db, t, -1)
  SHOW PARTITIONS t PARTITION (..)    get_partition_names_ps(db, t, ['2024-01-01', ''], -1)
  SELECT with partition predicates    get_partitions_by_filter(db, t, FILTER, -1); never
                                      get_partitions_by_expr. FILTER as Spark writes it:
                                        ds = "2024-01-02"         (WHERE ds = '2024-01-02')
                                        hr > 3                    (ints unquoted; hr = '12' too
                                                                   becomes hr = 12)
                                        ds like "2024.*"          (LIKE '2024%': a Java regex)
                                        ds like ".*-02"           (LIKE '%-02')
                                        (ds) in ("2023-12-31", "2024-01-02")
                                        (hr) in (1, 12)
                                        hr >= 2 and hr <= 7       (BETWEEN)
                                        ds = "2024-01-01" and hr < 10
                                        (ds = "2023-12-31" or hr = 2)
                                        ds != "2024-01-01"        (<> and NOT IN (one value))
                                        p = 'say "hi"'            (single quotes around a value
                                                                   holding a double quote)
                                        p = "it's"
                                      with no convertible predicate (none, a data column only,
                                      LIKE with '_', IS NULL) get_partitions(db, t, -1)
  ALTER TABLE t ADD [IF NOT EXISTS]   add_partitions_req{..., ifNotExists, needResult=true}
  PARTITION (..) [LOCATION '..']      (Spark fills in every location); the metastore creates
                                      the directories. An existing partition: exc
                                      AlreadyExistsException "Partition already exists:
                                      Partition(values:[2024-02-01, 0], ...", then
                                      get_partitions_ps_with_auth per spec to name it
                                      (PARTITIONS_ALREADY_EXIST); nothing of the batch is added.
                                      The same spec twice: exc MetaException
                                      "java.io.IOException: Duplicate partitions in the list:
                                      Partition(...)". IF NOT EXISTS with only existing
                                      partitions: the result's `partitions` must be an empty
                                      list, not left out (Hive's client returns null and Spark
                                      fails with a NullPointerException)
  ALTER TABLE t PARTITION (a) RENAME  get_partition_with_auth(db, t, b, user, groups) -> exc
  TO PARTITION (b)                    NoSuchObjectException "partition values=[2024-01-01, 8]",
                                      get_partition_with_auth(db, t, a, ...), then
                                      rename_partition(db, t, a, partition with values b); the
                                      metastore moves a managed partition's directory. A missing
                                      a (NoSuchObjectException) is PARTITIONS_NOT_FOUND; an
                                      existing b is PARTITIONS_ALREADY_EXIST
  ALTER TABLE t DROP [IF EXISTS]      per spec get_partitions_ps_with_auth(db, t, spec padded
  PARTITION (..)[, PARTITION (..)]    with ''), and only when every spec matched,
                                      drop_partition_with_environment_context(db, t, values,
                                      deleteData=true) per partition; a spec matching nothing is
                                      PARTITIONS_NOT_FOUND (IF EXISTS: ignored)
  DROP PARTITION (hr > 5)             none: Spark's parser rejects comparisons (ParseException)
  MSCK REPAIR TABLE t,                (Spark lists the directories itself) add_partitions_req
  ALTER TABLE t RECOVER PARTITIONS    (ifNotExists=true, needResult=true) with every partition
                                      directory found, existing ones too (the answer lists only
                                      the new ones; none: an empty list), then
                                      alter_table_with_environment_context; with SYNC
                                      PARTITIONS first get_partitions_ps_with_auth(db, t,
                                      ['', '']) and per vanished directory
                                      get_partitions_ps_with_auth + drop_partition_with_
                                      environment_context(deleteData=false)
  DESCRIBE FORMATTED t PARTITION (..) get_partition_with_auth
  DROP TABLE t                        drop_table_with_environment_context(db, t, true, null):
                                      the metastore removes the partitions with the table, and
                                      for a managed table also the directories of partitions
                                      located outside the table's directory
  DROP DATABASE d CASCADE (cleanup)   get_tables(d, "*"), get_all_tables(d), per table
                                      drop_table_with_environment_context, drop_database

So, beyond test_spark_sql.py's list: add_partitions_req, get_partitions_ps_with_auth,
get_partition_with_auth, get_partition_names, get_partition_names_ps, get_partitions_by_filter,
get_partitions, rename_partition, drop_partition_with_environment_context.

Partition names are Hive's escaped path names (`ds=a b%2Fc%3Ad%3De/hr=1`: '/', ':', '=', '"',
"'" escaped, space kept) in the order of those names (as strings: hr=12 before hr=7); Spark parses
them back for SHOW PARTITIONS.

Runs against hivestore (the fixture) or, with HMS_URI, any metastore whose warehouse directory is
local. Takes two to three minutes, mostly Spark's start and its writes.
"""

import os
import shutil

import pytest
from hive_metastore.ttypes import NoSuchObjectException

from hms_helpers import connected, local_path, raises_hms, unique_name, warehouse_root

from spark_sessions import spark_session
# Bounded metastore calls: the Hive client's socket timeout and retry counts.
PARQUET_SERDE = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
EVENTS_DDL = ("CREATE TABLE {db}.events (id INT, v STRING) "
              "PARTITIONED BY (ds STRING, hr INT) STORED AS PARQUET")


@pytest.fixture(scope="module")
def warehouse(server):
    with connected(server) as client:
        return warehouse_root(client)


@pytest.fixture(scope="module")
def spark(server, warehouse, tmp_path_factory):
    scratch = tmp_path_factory.mktemp("spark")
    with spark_session(server, warehouse, scratch, "hivestore-test-spark-partitions") as session:
        yield session


@pytest.fixture(scope="module")
def database(spark):
    """The module's database, made by Spark; the tests below run in order against it."""
    name = unique_name("spark_part")
    spark.sql(f"CREATE DATABASE {name}")
    yield name
    try:
        spark.sql(f"DROP DATABASE IF EXISTS {name} CASCADE")
    except Exception:  # noqa: BLE001 - best-effort cleanup; the tests have reported already
        pass


@pytest.fixture(scope="module")
def outside(tmp_path_factory):
    """A directory outside the warehouse for partition LOCATIONs and external tables."""
    return tmp_path_factory.mktemp("spark_partitions_outside")


def rows(spark, sql):
    return [tuple(row) for row in spark.sql(sql).collect()]


def column(spark, sql):
    return [row[0] for row in spark.sql(sql).collect()]


def show_partitions(spark, table, spec=""):
    return column(spark, f"SHOW PARTITIONS {table} {spec}")


def fetched(spark, sql):
    """The query's rows and how many partitions Spark's Hive client got from the metastore."""
    metrics = spark._jvm.org.apache.spark.metrics.source.HiveCatalogMetrics
    metrics.reset()
    result = rows(spark, sql)
    return result, metrics.METRIC_PARTITIONS_FETCHED().getCount()


def data_files(path):
    return sorted(f for f in os.listdir(path) if f.endswith(".parquet"))


def table_dir(warehouse, database, table):
    return os.path.join(warehouse, f"{database}.db", table)


def analysis_error(spark, sql):
    """Run `sql`, which must fail with an AnalysisException; returns (condition, message)."""
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException) as raised:
        spark.sql(sql)
    return raised.value.getCondition(), str(raised.value)


def write_parquet(spark, path, data):
    spark.createDataFrame(data, "id INT, v STRING").coalesce(1).write.parquet(str(path))


# ---------------------------------------------------------------- a managed Hive-format table

def test_create_partitioned_table(spark, client, database, warehouse):
    spark.sql(EVENTS_DDL.format(db=database))
    table = client.get_table(database, "events")
    assert table.tableType == "MANAGED_TABLE"
    assert [(k.name, k.type) for k in table.partitionKeys] == [("ds", "string"), ("hr", "int")]
    assert [(c.name, c.type) for c in table.sd.cols] == [("id", "int"), ("v", "string")]
    assert table.sd.serdeInfo.serializationLib == PARQUET_SERDE
    assert local_path(table.sd.location) == table_dir(warehouse, database, "events")
    assert show_partitions(spark, f"{database}.events") == []
    assert client.get_partition_names(database, "events", -1) == []
    assert rows(spark, f"SELECT * FROM {database}.events") == []


def test_static_partition_insert(spark, client, database, warehouse):
    events = f"{database}.events"
    spark.sql(f"INSERT INTO {events} PARTITION (ds='2024-01-01', hr=1) VALUES (0, 'z')")
    spark.sql(f"INSERT INTO {events} PARTITION (ds='2024-01-01', hr=7) VALUES (3, 'c')")
    spark.sql(f"INSERT OVERWRITE TABLE {events} PARTITION (ds='2024-01-01', hr=1) "
              "VALUES (1, 'a'), (2, 'b')")
    assert show_partitions(spark, events) == ["ds=2024-01-01/hr=1", "ds=2024-01-01/hr=7"]
    assert client.get_partition_names(database, "events", -1) == [
        "ds=2024-01-01/hr=1", "ds=2024-01-01/hr=7"]
    assert rows(spark, f"SELECT id, v, ds, hr FROM {events} ORDER BY id") == [
        (1, "a", "2024-01-01", 1), (2, "b", "2024-01-01", 1), (3, "c", "2024-01-01", 7)]
    partition = client.get_partition(database, "events", ["2024-01-01", "1"])
    assert (partition.dbName, partition.tableName, partition.values) == (
        database, "events", ["2024-01-01", "1"])
    path = os.path.join(table_dir(warehouse, database, "events"), "ds=2024-01-01", "hr=1")
    assert local_path(partition.sd.location) == path
    assert partition.sd.serdeInfo.serializationLib == PARQUET_SERDE
    assert len(data_files(path)) == 1, "INSERT OVERWRITE must have replaced the old file"


def test_dynamic_partition_insert(spark, client, database, warehouse):
    events = f"{database}.events"
    spark.sql("SET hive.exec.dynamic.partition=true")
    spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
    spark.sql(f"INSERT INTO {events} PARTITION (ds, hr) VALUES "
              "(4, 'd', '2024-01-02', 4), (5, 'e', '2023-12-31', 9), (6, 'f', '2024-01-02', 2)")
    spark.sql(f"INSERT INTO {events} PARTITION (ds='2024-01-01', hr) VALUES (7, 'g', 12)")
    # Dynamic overwrite replaces only the partitions written: 2024-01-02/4, not 2024-01-02/2.
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        spark.sql(f"INSERT OVERWRITE TABLE {events} PARTITION (ds='2024-01-02', hr) "
                  "VALUES (8, 'h', 4)")
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    names = ["ds=2023-12-31/hr=9", "ds=2024-01-01/hr=1", "ds=2024-01-01/hr=12",
             "ds=2024-01-01/hr=7", "ds=2024-01-02/hr=2", "ds=2024-01-02/hr=4"]
    assert show_partitions(spark, events) == names
    assert client.get_partition_names(database, "events", -1) == names
    assert rows(spark, f"SELECT id, ds, hr FROM {events} ORDER BY id") == [
        (1, "2024-01-01", 1), (2, "2024-01-01", 1), (3, "2024-01-01", 7), (5, "2023-12-31", 9),
        (6, "2024-01-02", 2), (7, "2024-01-01", 12), (8, "2024-01-02", 4)]
    partition = client.get_partition(database, "events", ["2024-01-01", "12"])
    assert local_path(partition.sd.location) == os.path.join(
        table_dir(warehouse, database, "events"), "ds=2024-01-01", "hr=12")
    assert data_files(local_path(partition.sd.location))


def test_show_partitions_with_partial_specs(spark, database):
    events = f"{database}.events"
    assert show_partitions(spark, events, "PARTITION (ds='2024-01-01')") == [
        "ds=2024-01-01/hr=1", "ds=2024-01-01/hr=12", "ds=2024-01-01/hr=7"]
    assert show_partitions(spark, events, "PARTITION (hr=4)") == ["ds=2024-01-02/hr=4"]
    assert show_partitions(spark, events, "PARTITION (ds='2024-01-02', hr=2)") == [
        "ds=2024-01-02/hr=2"]
    assert show_partitions(spark, events, "PARTITION (ds='1999-01-01')") == []


# (WHERE clause, the filter Spark sends to get_partitions_by_filter or None for get_partitions,
#  the ids selected, the partitions (ds, hr) the metastore must return)
PRUNING_CASES = [
    ("ds = '2024-01-02'", 'ds = "2024-01-02"', [6, 8],
     [("2024-01-02", "2"), ("2024-01-02", "4")]),
    # As numbers, 12 > 3 (as strings it is not).
    ("hr > 3", "hr > 3", [3, 5, 7, 8],
     [("2023-12-31", "9"), ("2024-01-01", "12"), ("2024-01-01", "7"), ("2024-01-02", "4")]),
    ("ds LIKE '2024%'", 'ds like "2024.*"', [1, 2, 3, 6, 7, 8],
     [("2024-01-01", "1"), ("2024-01-01", "12"), ("2024-01-01", "7"), ("2024-01-02", "2"),
      ("2024-01-02", "4")]),
    ("ds LIKE '%-02'", 'ds like ".*-02"', [6, 8], [("2024-01-02", "2"), ("2024-01-02", "4")]),
    ("ds IN ('2023-12-31', '2024-01-02')", '(ds) in ("2023-12-31", "2024-01-02")', [5, 6, 8],
     [("2023-12-31", "9"), ("2024-01-02", "2"), ("2024-01-02", "4")]),
    ("hr IN (1, 12)", "(hr) in (1, 12)", [1, 2, 7], [("2024-01-01", "1"), ("2024-01-01", "12")]),
    ("hr BETWEEN 2 AND 7", "hr >= 2 and hr <= 7", [3, 6, 8],
     [("2024-01-01", "7"), ("2024-01-02", "2"), ("2024-01-02", "4")]),
    ("ds = '2024-01-01' AND hr < 10", 'ds = "2024-01-01" and hr < 10', [1, 2, 3],
     [("2024-01-01", "1"), ("2024-01-01", "7")]),
    ("ds = '2023-12-31' OR hr = 2", '(ds = "2023-12-31" or hr = 2)', [5, 6],
     [("2023-12-31", "9"), ("2024-01-02", "2")]),
    ("ds <> '2024-01-01'", 'ds != "2024-01-01"', [5, 6, 8],
     [("2023-12-31", "9"), ("2024-01-02", "2"), ("2024-01-02", "4")]),
    ("hr = '12'", "hr = 12", [7], [("2024-01-01", "12")]),
    ("ds = '2024-01-01' AND id > 1", 'ds = "2024-01-01"', [2, 3, 7],
     [("2024-01-01", "1"), ("2024-01-01", "12"), ("2024-01-01", "7")]),
    ("ds = '2030-01-01'", 'ds = "2030-01-01"', [], []),
    # Not converted by Spark: every partition is fetched with get_partitions.
    ("v = 'f'", None, [6], None),
    ("ds LIKE '2024-01-0_'", None, [1, 2, 3, 6, 7, 8], None),
]
ALL_EVENTS_PARTITIONS = 6


@pytest.mark.parametrize("where,hms_filter,ids,partitions", PRUNING_CASES,
                         ids=[case[0] for case in PRUNING_CASES])
def test_partition_pruning(spark, client, database, where, hms_filter, ids, partitions):
    got, fetched_count = fetched(
        spark, f"SELECT id FROM {database}.events WHERE {where} ORDER BY id")
    assert [row[0] for row in got] == ids
    if hms_filter is None:
        assert fetched_count == ALL_EVENTS_PARTITIONS
        return
    assert fetched_count == len(partitions), (
        f"the metastore returned {fetched_count} partitions for {hms_filter!r}, "
        f"want {partitions}")
    returned = client.get_partitions_by_filter(database, "events", hms_filter, -1)
    assert sorted(tuple(p.values) for p in returned) == partitions


# ---------------------------------------------------------------- ADD / RENAME / DROP PARTITION

def test_add_partition(spark, client, database, warehouse, outside):
    events = f"{database}.events"
    base = table_dir(warehouse, database, "events")
    spark.sql(f"ALTER TABLE {events} ADD PARTITION (ds='2024-02-01', hr=0)")
    assert os.path.isdir(os.path.join(base, "ds=2024-02-01", "hr=0"))
    assert local_path(client.get_partition(database, "events", ["2024-02-01", "0"]).sd.location) \
        == os.path.join(base, "ds=2024-02-01", "hr=0")

    condition, message = analysis_error(
        spark, f"ALTER TABLE {events} ADD PARTITION (ds='2024-02-01', hr=0)")
    assert condition == "PARTITIONS_ALREADY_EXIST"
    assert "PARTITION (`ds` = 2024-02-01, `hr` = 0)" in message

    spark.sql(f"ALTER TABLE {events} ADD IF NOT EXISTS PARTITION (ds='2024-02-01', hr=0) "
              "PARTITION (ds='2024-02-02', hr=0)")
    assert show_partitions(spark, events, "PARTITION (hr=0)") == [
        "ds=2024-02-01/hr=0", "ds=2024-02-02/hr=0"]

    # A batch with an existing partition adds none of it.
    condition, message = analysis_error(
        spark, f"ALTER TABLE {events} ADD PARTITION (ds='2024-02-03', hr=0) "
               "PARTITION (ds='2024-02-02', hr=0)")
    assert condition == "PARTITIONS_ALREADY_EXIST"
    assert "PARTITION (`ds` = 2024-02-02, `hr` = 0)" in message
    assert "2024-02-03" not in message
    # The same spec twice in one statement: the metastore refuses the batch.
    _, message = analysis_error(
        spark, f"ALTER TABLE {events} ADD PARTITION (ds='2024-02-04', hr=0) "
               "PARTITION (ds='2024-02-04', hr=0)")
    assert "Duplicate partitions in the list" in message
    assert show_partitions(spark, events, "PARTITION (hr=0)") == [
        "ds=2024-02-01/hr=0", "ds=2024-02-02/hr=0"]

    location = outside / "p1"
    spark.sql(f"ALTER TABLE {events} ADD PARTITION (ds='2024-03-01', hr=3) "
              f"LOCATION '{location}'")
    partition = client.get_partition(database, "events", ["2024-03-01", "3"])
    assert local_path(partition.sd.location) == str(location)
    assert os.path.isdir(location), "the metastore creates a new partition's directory"
    spark.sql(f"INSERT INTO {events} PARTITION (ds='2024-03-01', hr=3) VALUES (9, 'i')")
    assert data_files(location)
    assert not os.path.exists(os.path.join(base, "ds=2024-03-01"))
    assert rows(spark, f"SELECT id, v FROM {events} WHERE ds = '2024-03-01'") == [(9, "i")]
    names = ["ds=2023-12-31/hr=9", "ds=2024-01-01/hr=1", "ds=2024-01-01/hr=12",
             "ds=2024-01-01/hr=7", "ds=2024-01-02/hr=2", "ds=2024-01-02/hr=4",
             "ds=2024-02-01/hr=0", "ds=2024-02-02/hr=0", "ds=2024-03-01/hr=3"]
    assert client.get_partition_names(database, "events", -1) == names

    # IF NOT EXISTS with only existing partitions: add_partitions_req must answer an empty list
    # (set, not absent): Hive's client returns it to Spark, which iterates it.
    spark.sql(f"ALTER TABLE {events} ADD IF NOT EXISTS PARTITION (ds='2024-02-01', hr=0) "
              "PARTITION (ds='2024-03-01', hr=3)")
    assert client.get_partition_names(database, "events", -1) == names


def test_rename_partition(spark, client, database, warehouse):
    events = f"{database}.events"
    base = os.path.join(table_dir(warehouse, database, "events"), "ds=2024-01-01")
    spark.sql(f"ALTER TABLE {events} PARTITION (ds='2024-01-01', hr=7) "
              "RENAME TO PARTITION (ds='2024-01-01', hr=8)")
    assert show_partitions(spark, events, "PARTITION (ds='2024-01-01')") == [
        "ds=2024-01-01/hr=1", "ds=2024-01-01/hr=12", "ds=2024-01-01/hr=8"]
    with raises_hms(NoSuchObjectException, "partition values=[2024-01-01, 7]"):
        client.get_partition(database, "events", ["2024-01-01", "7"])
    renamed = client.get_partition(database, "events", ["2024-01-01", "8"])
    assert local_path(renamed.sd.location) == os.path.join(base, "hr=8")
    assert data_files(os.path.join(base, "hr=8")), "the metastore moves the directory"
    assert not os.path.exists(os.path.join(base, "hr=7"))
    assert rows(spark, f"SELECT id, v, ds, hr FROM {events} WHERE hr = 8") == [
        (3, "c", "2024-01-01", 8)]

    condition, message = analysis_error(
        spark, f"ALTER TABLE {events} PARTITION (ds='2024-01-01', hr=7) "
               "RENAME TO PARTITION (ds='2024-01-01', hr=9)")
    assert condition == "PARTITIONS_NOT_FOUND"
    assert "PARTITION (`ds` = 2024-01-01, `hr` = 7)" in message
    condition, message = analysis_error(
        spark, f"ALTER TABLE {events} PARTITION (ds='2024-01-01', hr=1) "
               "RENAME TO PARTITION (ds='2024-01-01', hr=8)")
    assert condition == "PARTITIONS_ALREADY_EXIST"
    assert "PARTITION (`ds` = 2024-01-01, `hr` = 8)" in message
    assert rows(spark, f"SELECT id FROM {events} WHERE ds = '2024-01-01' ORDER BY id") == [
        (1,), (2,), (3,), (7,)]


def test_drop_partition(spark, client, database, warehouse, outside):
    events = f"{database}.events"
    base = table_dir(warehouse, database, "events")
    spark.sql(f"ALTER TABLE {events} DROP PARTITION (ds='2024-02-02', hr=0)")
    assert not os.path.exists(os.path.join(base, "ds=2024-02-02"))
    with raises_hms(NoSuchObjectException):
        client.get_partition(database, "events", ["2024-02-02", "0"])

    condition, message = analysis_error(
        spark, f"ALTER TABLE {events} DROP PARTITION (ds='2024-02-02', hr=0)")
    assert condition == "PARTITIONS_NOT_FOUND"
    assert "PARTITION (`ds` = 2024-02-02, `hr` = 0)" in message
    spark.sql(f"ALTER TABLE {events} DROP IF EXISTS PARTITION (ds='2024-02-02', hr=0)")

    # Spark checks every spec first: one missing spec drops nothing.
    condition, _ = analysis_error(
        spark, f"ALTER TABLE {events} DROP PARTITION (ds='2024-02-01', hr=0), "
               "PARTITION (ds='1999-01-01', hr=0)")
    assert condition == "PARTITIONS_NOT_FOUND"
    assert show_partitions(spark, events, "PARTITION (ds='2024-02-01')") == [
        "ds=2024-02-01/hr=0"]

    # A partial spec drops every partition under it, and their data.
    spark.sql(f"ALTER TABLE {events} DROP PARTITION (ds='2024-01-02')")
    assert show_partitions(spark, events, "PARTITION (ds='2024-01-02')") == []
    assert not os.path.exists(os.path.join(base, "ds=2024-01-02", "hr=2"))
    assert not os.path.exists(os.path.join(base, "ds=2024-01-02", "hr=4"))
    assert not os.path.exists(os.path.join(base, "ds=2024-01-02")), "empty parents go too"

    # A managed table's partition outside the table directory loses its directory too.
    spark.sql(f"ALTER TABLE {events} DROP PARTITION (ds='2024-03-01', hr=3)")
    assert not os.path.exists(outside / "p1")

    assert show_partitions(spark, events) == [
        "ds=2023-12-31/hr=9", "ds=2024-01-01/hr=1", "ds=2024-01-01/hr=12",
        "ds=2024-01-01/hr=8", "ds=2024-02-01/hr=0"]
    assert rows(spark, f"SELECT id FROM {events} ORDER BY id") == [
        (1,), (2,), (3,), (5,), (7,)]


def test_range_drop_partition_is_rejected_by_spark(spark, database):
    """Hive's `DROP PARTITION (hr > 5)` is not Spark SQL: the parser refuses it and nothing
    reaches the metastore."""
    from pyspark.errors import ParseException

    events = f"{database}.events"
    before = show_partitions(spark, events)
    with pytest.raises(ParseException) as raised:
        spark.sql(f"ALTER TABLE {events} DROP PARTITION (hr > 5)")
    assert raised.value.getCondition() == "PARSE_SYNTAX_ERROR"
    assert show_partitions(spark, events) == before


# ---------------------------------------------------------------- special characters

SPECIAL_VALUES = [
    # (value, its escaped partition name, WHERE literal)
    ("a b/c:d=e", "p=a b%2Fc%3Ad%3De", "'a b/c:d=e'"),
    ("it's", "p=it%27s", "'it''s'"),
    ('say "hi"', "p=say %22hi%22", "'say \"hi\"'"),
]


def test_special_characters_in_partition_values(spark, client, database, warehouse):
    table = f"{database}.special"
    spark.sql(f"CREATE TABLE {table} (id INT) PARTITIONED BY (p STRING) STORED AS PARQUET")
    for index, (_, _, literal) in enumerate(SPECIAL_VALUES):
        spark.sql(f"INSERT INTO {table} PARTITION (p={literal}) VALUES ({index})")
    names = sorted(name for _, name, _ in SPECIAL_VALUES)
    assert names == ["p=a b%2Fc%3Ad%3De", "p=it%27s", "p=say %22hi%22"]
    assert show_partitions(spark, table) == names
    assert client.get_partition_names(database, "special", -1) == names
    base = table_dir(warehouse, database, "special")
    assert sorted(d for d in os.listdir(base) if d.startswith("p=")) == names
    for index, (value, name, literal) in enumerate(SPECIAL_VALUES):
        assert fetched(spark, f"SELECT id, p FROM {table} WHERE p = {literal}") == (
            [(index, value)], 1)
        partition = client.get_partition(database, "special", [value])
        assert partition.values == [value]
        assert local_path(partition.sd.location) == os.path.join(base, name)
        assert data_files(os.path.join(base, name))
        assert client.get_partition_by_name(database, "special", name).values == [value]
    # The filter Spark sends for the value holding a double quote.
    assert [p.values for p in client.get_partitions_by_filter(
        database, "special", "p = 'say \"hi\"'", -1)] == [['say "hi"']]
    assert show_partitions(spark, table, "PARTITION (p='a b/c:d=e')") == ["p=a b%2Fc%3Ad%3De"]
    spark.sql(f"ALTER TABLE {table} DROP PARTITION (p='a b/c:d=e')")
    assert not os.path.exists(os.path.join(base, "p=a b%2Fc%3Ad%3De"))
    assert show_partitions(spark, table) == ["p=it%27s", "p=say %22hi%22"]
    assert rows(spark, f"SELECT id, p FROM {table} ORDER BY id") == [(1, "it's"), (2, 'say "hi"')]


# ---------------------------------------------------------------- a data source table

def test_partitioned_data_source_table(spark, client, database):
    table = f"{database}.clicks"
    spark.sql(f"CREATE TABLE {table} (id INT, ds STRING) USING parquet PARTITIONED BY (ds)")
    hms_table = client.get_table(database, "clicks")
    assert [(k.name, k.type) for k in hms_table.partitionKeys] == [("ds", "string")]
    assert hms_table.parameters["spark.sql.sources.provider"] == "parquet"
    spark.sql(f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b')")
    assert client.get_partition_names(database, "clicks", -1) == ["ds=a", "ds=b"]
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "static")
    try:
        # Static overwrite of the whole table: Spark drops the old partitions.
        spark.sql(f"INSERT OVERWRITE TABLE {table} VALUES (3, 'c')")
        assert show_partitions(spark, table) == ["ds=c"]
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
        spark.sql(f"INSERT OVERWRITE TABLE {table} VALUES (4, 'c'), (5, 'd')")
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    assert client.get_partition_names(database, "clicks", -1) == ["ds=c", "ds=d"]
    assert rows(spark, f"SELECT id, ds FROM {table} ORDER BY id") == [(4, "c"), (5, "d")]
    assert fetched(spark, f"SELECT id FROM {table} WHERE ds = 'd'") == ([(5,)], 1)


# ---------------------------------------------------------------- external table, MSCK REPAIR

def test_external_partitioned_table_and_msck_repair(spark, client, database, outside):
    data = outside / "ext_events"
    write_parquet(spark, data / "ds=2024-01-01" / "hr=1", [(1, "a"), (2, "b")])
    write_parquet(spark, data / "ds=2024-01-02" / "hr=5", [(3, "c")])
    table = f"{database}.ext_events"
    spark.sql(f"CREATE EXTERNAL TABLE {table} (id INT, v STRING) "
              f"PARTITIONED BY (ds STRING, hr INT) STORED AS PARQUET LOCATION '{data}'")
    hms_table = client.get_table(database, "ext_events")
    assert hms_table.tableType == "EXTERNAL_TABLE"
    assert local_path(hms_table.sd.location) == str(data)
    assert show_partitions(spark, table) == []
    assert rows(spark, f"SELECT * FROM {table}") == []

    spark.sql(f"MSCK REPAIR TABLE {table}")
    assert show_partitions(spark, table) == ["ds=2024-01-01/hr=1", "ds=2024-01-02/hr=5"]
    partition = client.get_partition(database, "ext_events", ["2024-01-02", "5"])
    assert local_path(partition.sd.location) == str(data / "ds=2024-01-02" / "hr=5")
    assert rows(spark, f"SELECT id, v, ds, hr FROM {table} ORDER BY id") == [
        (1, "a", "2024-01-01", 1), (2, "b", "2024-01-01", 1), (3, "c", "2024-01-02", 5)]
    assert fetched(spark, f"SELECT id FROM {table} WHERE hr > 2") == ([(3,)], 1)

    write_parquet(spark, data / "ds=2024-01-03" / "hr=2", [(4, "d")])
    spark.sql(f"ALTER TABLE {table} RECOVER PARTITIONS")
    assert show_partitions(spark, table) == [
        "ds=2024-01-01/hr=1", "ds=2024-01-02/hr=5", "ds=2024-01-03/hr=2"]

    shutil.rmtree(data / "ds=2024-01-01")
    spark.sql(f"MSCK REPAIR TABLE {table} SYNC PARTITIONS")
    assert show_partitions(spark, table) == ["ds=2024-01-02/hr=5", "ds=2024-01-03/hr=2"]
    assert rows(spark, f"SELECT id FROM {table} ORDER BY id") == [(3,), (4,)]

    # An external table's data stays: on DROP PARTITION and on DROP TABLE.
    spark.sql(f"ALTER TABLE {table} DROP PARTITION (ds='2024-01-02', hr=5)")
    assert show_partitions(spark, table) == ["ds=2024-01-03/hr=2"]
    assert data_files(data / "ds=2024-01-02" / "hr=5")
    spark.sql(f"DROP TABLE {table}")
    assert "ext_events" not in client.get_all_tables(database)
    assert data_files(data / "ds=2024-01-02" / "hr=5")
    assert data_files(data / "ds=2024-01-03" / "hr=2")


# ---------------------------------------------------------------- DROP TABLE

def test_drop_table_removes_its_partitions(spark, client, database, warehouse, outside):
    events = f"{database}.events"
    location = outside / "p2"
    spark.sql(f"ALTER TABLE {events} ADD PARTITION (ds='2024-04-01', hr=1) "
              f"LOCATION '{location}'")
    spark.sql(f"INSERT INTO {events} PARTITION (ds='2024-04-01', hr=1) VALUES (10, 'j')")
    assert data_files(location)
    spark.sql(f"DROP TABLE {events}")
    assert not os.path.exists(table_dir(warehouse, database, "events"))
    assert not os.path.exists(location), (
        "dropping a managed table removes its partitions' directories outside its own")

    spark.sql(EVENTS_DDL.format(db=database))
    assert show_partitions(spark, events) == []
    assert client.get_partition_names(database, "events", -1) == []
    with raises_hms(NoSuchObjectException):
        client.get_partition(database, "events", ["2024-01-01", "1"])
    assert rows(spark, f"SELECT count(*) FROM {events}") == [(0,)]
    spark.sql(f"INSERT INTO {events} PARTITION (ds='2024-01-01', hr=1) VALUES (11, 'k')")
    assert show_partitions(spark, events) == ["ds=2024-01-01/hr=1"]
    assert rows(spark, f"SELECT id, ds, hr FROM {events}") == [(11, "2024-01-01", 1)]
