"""Spark SQL (PySpark 4.3.0, its built-in Hive 2.3.10 metastore client) against the metastore.

Goal: the everyday Spark SQL statements work against the server exactly as against Apache's HMS:
create/drop databases, managed and external parquet tables with INSERT and SELECT, CTAS, views,
ALTER TABLE ... RENAME TO (the metastore moves a managed table's directory), SHOW TABLES,
DESCRIBE FORMATTED, a Hive-format table, and the errors Spark surfaces from the metastore.

Method: one SparkSession for the module (local[1], enableHiveSupport, hive.metastore.uris = the
server, spark.sql.warehouse.dir = the server's warehouse), statements in order; results are
checked through Spark and, independently, through the pyiceberg-vendored Thrift client and the
local filesystem.

Metastore calls Spark makes for these statements, traced with
/work/shared/tools/thrift_trace_proxy.py in front of the Java reference HMS (Hive 2.3.10). Every
one must be implemented for this module to pass; "exc" marks a declared exception Spark expects
and handles:

  session start (first statement)  set_ugi(user, [user]); get_database("default"). No
                                   get_all_functions: Spark 4 opens its Hive 2.3 client without
                                   registering functions (Hive.getWithoutRegisterFns)
  SHOW DATABASES                   get_databases("*")
  CREATE DATABASE d COMMENT 'c'    create_database(Database{name d, description 'c', locationUri
                                   file:<warehouse>/d.db, ownerName user}); Spark computes the
                                   location itself
  CREATE DATABASE IF NOT EXISTS d  create_database -> exc AlreadyExistsException "Database d
                                   already exists" (Spark ignores it)
  DESCRIBE DATABASE d, USE d       get_database(d)
  CREATE TABLE d.t ... USING       get_database(d) (6-8 times), get_table(d, t) -> exc
  parquet [LOCATION], CTAS,        NoSuchObjectException "d.t table not found" (3 times, existence
  CREATE VIEW, CREATE TABLE ...    checks), create_table_with_environment_context(table, null),
  STORED AS PARQUET                get_table(d, t). With the first table Spark's Hive client
                                   also reconnects: oneway shutdown on the old connection, then
                                   new connections that each start with set_ugi
  INSERT INTO, SELECT, DESCRIBE    get_table(d, t); SELECT from a view also get_table of the
  FORMATTED, SHOW TBLPROPERTIES    tables it reads
  ALTER TABLE t SET TBLPROPERTIES  get_table(d, t) (several), get_database(d),
                                   alter_table_with_environment_context(d, t, table, null)
  ALTER TABLE t RENAME TO u        get_table(d, t) (several), get_database(d), get_table(d, u) ->
                                   exc NoSuchObjectException, alter_table_with_environment_context
                                   (d, t, table named u, null): the metastore moves a managed
                                   table's directory to <warehouse>/d.db/u
  SHOW TABLES IN d [LIKE 'p']      get_database(d) (twice), get_tables(d, "*") (Spark applies
                                   LIKE itself)
  DROP VIEW v, DROP TABLE t        get_table(d, t) (up to 4 times; for a view also the tables it
                                   reads), drop_table_with_environment_context(d, t, true, null)
  DROP TABLE IF EXISTS missing     get_table -> exc NoSuchObjectException, nothing else
  DROP DATABASE d (not empty)      get_database(d) (4 times), drop_database(d, true, false) -> exc
                                   InvalidOperationException "Database d is not empty. One or
                                   more tables exist." (Spark: SCHEMA_NOT_EMPTY)
  DROP DATABASE d CASCADE          get_database(d), get_tables(d, "*"), get_all_tables(d), per
                                   table get_table(d, t) + drop_table_with_environment_context
                                   (d, t, true, null), then drop_database(d, true, true)

So: set_ugi, shutdown (oneway), get_database, get_databases, create_database, drop_database,
get_table, get_tables, get_all_tables, create_table_with_environment_context,
alter_table_with_environment_context, drop_table_with_environment_context.

Runs against hivestore (the fixture) or, with HMS_URI, any metastore whose warehouse directory is
local. Takes about a minute, mostly Spark's start.
"""

import os

import pytest
from hive_metastore.ttypes import NoSuchObjectException

from hms_helpers import connected, local_path, raises_hms, unique_name, warehouse_root

from spark_sessions import spark_session
# Bounded metastore calls: the Hive client's socket timeout and retry counts.


@pytest.fixture(scope="module")
def warehouse(server):
    with connected(server) as client:
        return warehouse_root(client)


@pytest.fixture(scope="module")
def spark(server, warehouse, tmp_path_factory):
    scratch = tmp_path_factory.mktemp("spark")
    with spark_session(server, warehouse, scratch, "hivestore-test-spark-sql") as session:
        yield session


@pytest.fixture(scope="module")
def database(spark, warehouse):
    """The module's database, made by Spark; the tests below run in order against it."""
    name = unique_name("spark_db")
    spark.sql(f"CREATE DATABASE {name} COMMENT 'made by spark'")
    return name


def rows(spark, sql):
    return [tuple(row) for row in spark.sql(sql).collect()]


def data_files(path):
    return sorted(f for f in os.listdir(path) if f.endswith(".parquet"))


def test_show_databases_lists_default_and_the_new_database(spark, database):
    names = {row[0] for row in rows(spark, "SHOW DATABASES")}
    assert {"default", database} <= names


def test_create_database_is_visible_to_thrift_clients(spark, client, database, warehouse):
    db = client.get_database(database)
    assert db.description == "made by spark"
    assert local_path(db.locationUri) == os.path.join(warehouse, f"{database}.db")
    assert os.path.isdir(os.path.join(warehouse, f"{database}.db"))
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {database}")
    described = dict(rows(spark, f"DESCRIBE DATABASE {database}"))
    assert described["Comment"] == "made by spark"
    assert local_path(described["Location"]) == os.path.join(warehouse, f"{database}.db")


def test_managed_parquet_table_insert_and_select(spark, client, database, warehouse):
    spark.sql(f"CREATE TABLE {database}.managed (id INT, name STRING) USING parquet")
    spark.sql(f"INSERT INTO {database}.managed VALUES (1, 'a'), (2, 'b')")
    assert rows(spark, f"SELECT id, name FROM {database}.managed ORDER BY id") == [
        (1, "a"), (2, "b")]
    table = client.get_table(database, "managed")
    assert table.tableType == "MANAGED_TABLE"
    assert table.parameters["spark.sql.sources.provider"] == "parquet"
    path = os.path.join(warehouse, f"{database}.db", "managed")
    assert local_path(table.sd.location) == path
    assert data_files(path), f"no parquet files under {path}"


def test_external_parquet_table_keeps_its_location(spark, client, database, tmp_path_factory):
    location = tmp_path_factory.mktemp("spark_external") / "ext"
    spark.sql(f"CREATE TABLE {database}.ext (id INT, v STRING) USING parquet "
              f"LOCATION '{location}'")
    spark.sql(f"INSERT INTO {database}.ext VALUES (3, 'c')")
    assert rows(spark, f"SELECT * FROM {database}.ext") == [(3, "c")]
    table = client.get_table(database, "ext")
    assert table.tableType == "EXTERNAL_TABLE"
    assert table.parameters.get("EXTERNAL") == "TRUE"
    assert local_path(table.sd.location) == str(location)
    assert data_files(location)


def test_ctas(spark, database):
    spark.sql(f"CREATE TABLE {database}.ctas USING parquet AS "
              f"SELECT id, upper(name) AS name FROM {database}.managed WHERE id > 1")
    assert rows(spark, f"SELECT * FROM {database}.ctas") == [(2, "B")]


def test_view(spark, client, database):
    spark.sql(f"CREATE VIEW {database}.view1 AS SELECT id FROM {database}.managed WHERE id < 2")
    assert rows(spark, f"SELECT * FROM {database}.view1") == [(1,)]
    view = client.get_table(database, "view1")
    assert view.tableType == "VIRTUAL_VIEW"
    assert "managed" in view.viewOriginalText
    assert view.sd.location is None


def test_alter_table_set_properties(spark, client, database):
    spark.sql(f"ALTER TABLE {database}.ctas SET TBLPROPERTIES ('team' = 'data')")
    assert client.get_table(database, "ctas").parameters["team"] == "data"
    properties = dict(rows(spark, f"SHOW TBLPROPERTIES {database}.ctas"))
    assert properties["team"] == "data"


def test_rename_moves_the_managed_table_and_its_data(spark, client, database, warehouse):
    spark.sql(f"ALTER TABLE {database}.managed RENAME TO {database}.renamed")
    assert rows(spark, f"SELECT id, name FROM {database}.renamed ORDER BY id") == [
        (1, "a"), (2, "b")]
    with raises_hms(NoSuchObjectException, "managed table not found"):
        client.get_table(database, "managed")
    old_path = os.path.join(warehouse, f"{database}.db", "managed")
    new_path = os.path.join(warehouse, f"{database}.db", "renamed")
    assert local_path(client.get_table(database, "renamed").sd.location) == new_path
    assert data_files(new_path)
    assert not os.path.exists(old_path)


def test_show_tables(spark, database):
    listed = {row[1] for row in rows(spark, f"SHOW TABLES IN {database}")}
    assert listed == {"renamed", "ext", "ctas", "view1"}
    assert {row[1] for row in rows(spark, f"SHOW TABLES IN {database} LIKE 're*'")} == {
        "renamed"}


def test_describe_formatted(spark, database, warehouse):
    described = {}
    for name, value, _ in rows(spark, f"DESCRIBE FORMATTED {database}.renamed"):
        described.setdefault(name.strip(), (value or "").strip())
    assert described["id"] == "int" and described["name"] == "string"
    assert described["Database"] == database
    assert described["Table"] == "renamed"
    assert described["Type"] == "MANAGED"
    assert described["Provider"] == "parquet"
    assert local_path(described["Location"]) == os.path.join(
        warehouse, f"{database}.db", "renamed")


def test_hive_format_table(spark, client, database, warehouse):
    spark.sql(f"CREATE TABLE {database}.hive_fmt (id INT, tag STRING) STORED AS PARQUET")
    spark.sql(f"INSERT INTO {database}.hive_fmt VALUES (7, 'seven')")
    assert rows(spark, f"SELECT * FROM {database}.hive_fmt") == [(7, "seven")]
    table = client.get_table(database, "hive_fmt")
    assert table.sd.serdeInfo.serializationLib == (
        "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe")
    assert local_path(table.sd.location) == os.path.join(warehouse, f"{database}.db", "hive_fmt")


def test_drop_view_and_tables(spark, client, database, warehouse):
    spark.sql(f"DROP VIEW {database}.view1")
    spark.sql(f"DROP TABLE {database}.renamed")
    spark.sql(f"DROP TABLE IF EXISTS {database}.never_existed")
    assert sorted(client.get_all_tables(database)) == ["ctas", "ext", "hive_fmt"]
    assert not os.path.exists(os.path.join(warehouse, f"{database}.db", "renamed"))


def test_drop_non_empty_database_needs_cascade(spark, client, database, warehouse):
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException) as raised:
        spark.sql(f"DROP DATABASE {database}")
    assert "SCHEMA_NOT_EMPTY" in str(raised.value) or "not empty" in str(raised.value)
    assert client.get_database(database).name == database
    external = local_path(client.get_table(database, "ext").sd.location)
    spark.sql(f"DROP DATABASE {database} CASCADE")
    assert database not in {row[0] for row in rows(spark, "SHOW DATABASES")}
    assert database not in client.get_all_databases()
    assert not os.path.exists(os.path.join(warehouse, f"{database}.db"))
    assert data_files(external), "dropping the database must keep the external table's data"
