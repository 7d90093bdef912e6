"""Tables through real HMS clients.

Goal: every table call of the HMS — create_table (+ with environment context, create_table_req),
get_table, get_table_req, get_table_objects_by_name(_req), get_tables, get_tables_by_type,
get_all_tables, get_table_meta, get_tables_ext, get_table_names_by_filter, get_fields/get_schema
(+ environment context, `_req`), alter_table (+ environment context, cascade, alter_table_req;
renames within and across databases; Iceberg's compare-and-set), drop_table (+ environment
context, drop_table_req), truncate_table(_req) — behaves as Apache's HMS: names trimmed and
lowercased, Hive's name and column-type validation and messages, MANAGED/EXTERNAL reconciled with
the EXTERNAL parameter, default locations `<warehouse>/<db>.db/<table>` whose directories are
made on create, moved on rename and removed on drop with deleteData, transient_lastDdlTime, and
the declared exception types with the message texts clients match.

Method: each expectation was first observed against the Java reference HMS (Hive 2.3.10); where
Hive 2.3 lacks a call (the `_req` forms, truncate_table, get_tables_ext) the test skips there, and
where Hive 4 behaves differently from 2.3 the expectation follows Hive 4's HMSHandler /
HiveAlterHandler / ObjectStore and a comment says so. The pyiceberg-vendored generated client
(Hive 4 IDL) does most of the work; hmsclient and pymetastore then run the essential flows through
their own APIs. Each test makes its own database, so tests never see each other's tables.
"""

import copy
import os
import time

import pytest
from thrift.Thrift import TApplicationException
from hive_metastore.ttypes import (
    AlreadyExistsException,
    AlterTableRequest,
    CreateTableRequest,
    Database,
    EnvironmentContext,
    FieldSchema,
    GetFieldsRequest,
    GetSchemaRequest,
    GetTableRequest,
    GetTablesExtRequest,
    GetTablesRequest,
    InvalidObjectException,
    InvalidOperationException,
    MetaException,
    NoSuchObjectException,
    TruncateTableRequest,
    UnknownDBException,
    UnknownTableException,
)

from hms_helpers import (
    alter_table_req,
    alter_table_request_struct,
    call_or_skip_on_reference,
    connected,
    drop_table_req,
    drop_table_request_struct,
    hide_generated_client_frames,
    hivestore_xfail,
    local_path,
    make_table,
    make_view,
    raises_hms,
    unique_name,
    warehouse_root,
)

CAS_KEY = "metadata_location"
# Seconds of slack between the test's clock and the server's (same machine, whole seconds).
CLOCK_SLACK_S = 2


# Databases the shared `db` fixture makes are named `tdb_<unique>`.
DB_PREFIX = "tdb"

hide_generated_client_frames()


@pytest.fixture(scope="module")
def warehouse(server):
    with connected(server) as connection:
        return warehouse_root(connection)


def skip_unless_hive4(hive, why):
    if hive < 4:
        pytest.skip(f"Hive 2.3 differs: {why}")


def table_dir(warehouse, db, table):
    return os.path.join(warehouse, f"{db}.db", table)


def cas_context(value, key=CAS_KEY):
    return EnvironmentContext(properties={"expected_parameter_key": key,
                                          "expected_parameter_value": value})


# ---------------------------------------------------------------- create and get

def test_create_table_stores_the_table_as_hive_does(client, db, warehouse, hive):
    columns = [FieldSchema("Id", "int", "the id"), FieldSchema("NAME", "varchar(10)", None),
               FieldSchema("s", "struct<A:int,b:string>", "nested")]
    keys = [FieldSchema("DS", "string", "day")]
    before = int(time.time())
    client.create_table(make_table(db, "T_Main", columns=columns, partition_keys=keys,
                                   parameters={"Mixed": "Case", "k": "v"}, owner="frank"))
    after = int(time.time())
    table = client.get_table(db, "t_main")
    assert (table.tableName, table.dbName, table.owner) == ("t_main", db, "frank")
    assert table.tableType == "MANAGED_TABLE"
    # Column and partition-key names are lowercased; types and comments are kept verbatim.
    assert [(c.name, c.type, c.comment) for c in table.sd.cols] == [
        ("id", "int", "the id"), ("name", "varchar(10)", None),
        ("s", "struct<A:int,b:string>", "nested")]
    assert [(k.name, k.type, k.comment) for k in table.partitionKeys] == [("ds", "string", "day")]
    assert before - CLOCK_SLACK_S <= table.createTime <= after + CLOCK_SLACK_S
    assert table.lastAccessTime == 0
    assert table.parameters["Mixed"] == "Case" and table.parameters["k"] == "v"
    assert table.parameters["transient_lastDdlTime"] == str(table.createTime)
    assert table.sd.inputFormat == "org.apache.hadoop.mapred.TextInputFormat"
    assert table.sd.serdeInfo.serializationLib == (
        "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe")
    assert table.sd.serdeInfo.parameters == {"serialization.format": "1"}
    assert local_path(table.sd.location) == table_dir(warehouse, db, "t_main")
    assert os.path.isdir(table_dir(warehouse, db, "t_main"))
    if hive >= 4:
        assert table.catName == "hive"  # Hive 4 fills catName; Hive 2.3 has no catalogs


def test_given_transient_last_ddl_time_is_kept_on_create_and_create_time_is_not(client, db):
    before = int(time.time())
    client.create_table(make_table(db, "t1", parameters={"transient_lastDdlTime": "12345"},
                                   createTime=5))
    table = client.get_table(db, "t1")
    assert table.parameters["transient_lastDdlTime"] == "12345"
    assert table.createTime >= before - CLOCK_SLACK_S


def test_table_lookups_are_trimmed_and_case_blind(client, db):
    client.create_table(make_table(db, "MiXeD"))
    for db_spelling, table_spelling in [(db, "mixed"), (db.upper(), "MIXED"),
                                        (f" {db} ", "  MiXeD "), (f"\t{db.upper()}", "mixed\t")]:
        assert client.get_table(db_spelling, table_spelling).tableName == "mixed"
    assert client.get_all_tables(db) == ["mixed"]


def test_create_table_with_environment_context(client, db, warehouse):
    client.create_table_with_environment_context(
        make_table(db, "with_ctx"), EnvironmentContext(properties={"k": "v"}))
    table = client.get_table(db, "with_ctx")
    assert table.tableName == "with_ctx"
    assert os.path.isdir(table_dir(warehouse, db, "with_ctx"))


def test_create_table_req(server, client, db, warehouse):
    call_or_skip_on_reference(server, client.create_table_req,
                              CreateTableRequest(table=make_table(db, "Via_Req")))
    table = client.get_table(db, "via_req")
    assert local_path(table.sd.location) == table_dir(warehouse, db, "via_req")
    with raises_hms(AlreadyExistsException, "already exists"):
        client.create_table_req(CreateTableRequest(table=make_table(db, "via_req")))


def test_create_table_at_a_given_location_keeps_it_and_makes_it(client, db, tmp_path):
    location = tmp_path / "elsewhere" / "t"
    client.create_table(make_table(db, "located", location=str(location)))
    assert local_path(client.get_table(db, "located").sd.location) == str(location)
    assert location.is_dir()


def test_create_existing_table_is_already_exists(client, db):
    """Hive 2.3 says "Table t1 already exists", Hive 4 "Table hive.<db>.t1 already exists"."""
    client.create_table(make_table(db, "t1"))
    for spelling in ("t1", "T1"):
        with raises_hms(AlreadyExistsException, "Table ", " already exists"):
            client.create_table(make_table(db, spelling, columns=[FieldSchema("x", "int", None)]))
    assert [c.name for c in client.get_table(db, "t1").sd.cols] == ["id", "name"]


def test_already_exists_names_the_table_as_sent(client, db):
    """Observed on Hive 2.3: 'Table T1 already exists'; Hive 4 builds the message from the
    Table as sent too (getCatalogQualifiedTableName)."""
    client.create_table(make_table(db, "t1"))
    with raises_hms(AlreadyExistsException, "T1 already exists"):
        client.create_table(make_table(db, "T1"))


@pytest.mark.parametrize("bad_name", [
    "my-table",
    " T1 ",
    "", "semi;colon", "dot.ted"], ids=["hyphen", "spaces", "empty", "semicolon", "dot"])
def test_invalid_table_names_are_invalid_object(client, db, bad_name):
    """validateName on the name as sent (before trimming). Observed on Hive 2.3; Hive 4 the same."""
    with raises_hms(InvalidObjectException, f"{bad_name} is not a valid object name"):
        client.create_table(make_table(db, bad_name))
    assert client.get_all_tables(db) == []


def test_slash_is_allowed_in_table_names(client, db):
    """metastore.support.special.characters.tablename defaults to true (observed on Hive 2.3)."""
    client.create_table(make_table(db, "a/b"))
    assert client.get_table(db, "a/b").tableName == "a/b"
    assert client.get_all_tables(db) == ["a/b"]


def test_create_table_in_missing_database_is_invalid_object(client):
    """Hive 2.3 observed InvalidObjectException naming the database; Hive 4 converts the
    NoSuchObjectException of get_database_core into InvalidObjectException too."""
    missing = unique_name("tdb_missing")
    with raises_hms(InvalidObjectException, missing):
        client.create_table(make_table(missing, "t1"))


@pytest.mark.parametrize("bad_type", ["INT", "foo", "Struct<a:int>", "varchar2(10)"])
def test_unknown_column_types_are_invalid_object(client, db, bad_type):
    """The first token of a type must be a lowercase Hive type name."""
    with raises_hms(InvalidObjectException, f"Invalid column type: {bad_type}"):
        client.create_table(make_table(db, "t1", columns=[FieldSchema("a", bad_type, None)]))
    with raises_hms(InvalidObjectException, f"Invalid partition column type: {bad_type}"):
        client.create_table(make_table(db, "t1", partition_keys=[FieldSchema("p", bad_type, None)]))
    assert client.get_all_tables(db) == []


def test_hive_column_types_are_stored_verbatim(client, db):
    types = ["tinyint", "smallint", "int", "bigint", "float", "double", "decimal(10,2)",
             "decimal", "string", "varchar(10)", "char(5)", "boolean", "binary", "date",
             "timestamp", "array<int>", "map<string,array<int>>",
             "struct<a:int,B:string,c:map<string,decimal(3,1)>>", "uniontype<int,string>",
             "array<struct<x:bigint>>"]
    columns = [FieldSchema(f"c{i}", t, None) for i, t in enumerate(types)]
    client.create_table(make_table(db, "typed", columns=columns))
    assert [c.type for c in client.get_table(db, "typed").sd.cols] == types
    assert [c.type for c in client.get_fields(db, "typed")] == types


def test_get_missing_table_is_no_such_object_table_not_found(client, db):
    """Hive 2.3: "<db>.<t> table not found"; Hive 4 prefixes the catalog: "hive.<db>.<t> ..."."""
    with raises_hms(NoSuchObjectException, f"{db}.nope table not found"):
        client.get_table(db, "nope")
    missing = unique_name("tdb_missing")
    with raises_hms(NoSuchObjectException, missing):
        client.get_table(missing, "nope")


def test_get_table_in_missing_database_says_table_not_found(client):
    """get_table_core does not look the database up (Hive 4: "appears exception is not thrown
    currently if db doesnt exist"); observed on Hive 2.3."""
    missing = unique_name("tdb_missing")
    with raises_hms(NoSuchObjectException, f"{missing}.nope table not found"):
        client.get_table(missing, "nope")


def test_get_table_req(server, client, db, hive):
    client.create_table(make_table(db, "t1"))
    result = call_or_skip_on_reference(server, client.get_table_req,
                                       GetTableRequest(dbName=db.upper(), tblName="T1"))
    assert (result.table.tableName, result.table.dbName) == ("t1", db)
    if hive >= 4:
        result = client.get_table_req(GetTableRequest(dbName=db, tblName="t1", catName="hive"))
        assert result.table.catName == "hive"
    with raises_hms(NoSuchObjectException, "nope table not found"):
        client.get_table_req(GetTableRequest(dbName=db, tblName="nope"))


# ---------------------------------------------------------------- table types

def test_external_parameter_reconciles_the_table_type(client, db, hive, tmp_path):
    """EXTERNAL_TABLE needs EXTERNAL=TRUE, else it is stored MANAGED_TABLE; MANAGED_TABLE with
    EXTERNAL=TRUE becomes EXTERNAL_TABLE. Hive 2.3 compared "TRUE" exactly (observed: "true"
    stays MANAGED_TABLE); Hive 4 uses Boolean.parseBoolean (case-insensitive)."""
    cases = {
        "ext_true": ("EXTERNAL_TABLE", {"EXTERNAL": "TRUE"}, "EXTERNAL_TABLE"),
        "ext_no_param": ("EXTERNAL_TABLE", {}, "MANAGED_TABLE"),
        "man_upper": ("MANAGED_TABLE", {"EXTERNAL": "TRUE"}, "EXTERNAL_TABLE"),
        "man_lower": ("MANAGED_TABLE", {"EXTERNAL": "true"},
                      "EXTERNAL_TABLE" if hive >= 4 else "MANAGED_TABLE"),
        "man_false": ("MANAGED_TABLE", {"EXTERNAL": "FALSE"}, "MANAGED_TABLE"),
    }
    for name, (table_type, parameters, expected) in cases.items():
        client.create_table(make_table(db, name, table_type=table_type, parameters=parameters,
                                       location=str(tmp_path / name)))
        table = client.get_table(db, name)
        assert table.tableType == expected, name
        for key, value in parameters.items():
            assert table.parameters[key] == value, name
        assert (tmp_path / name).is_dir(), f"{name}: external and managed tables get their dir"
    assert client.get_tables_by_type(db, "*", "EXTERNAL_TABLE") == sorted(
        name for name, case in cases.items() if case[2] == "EXTERNAL_TABLE")


def test_a_table_sent_without_a_type_reads_back_managed(client, db):
    """Observed on Hive 2.3: ObjectStore fills a missing type in on read (MANAGED_TABLE, or
    EXTERNAL_TABLE when EXTERNAL=TRUE)."""
    client.create_table(make_table(db, "untyped", table_type=None))
    client.create_table(make_table(db, "untyped_ext", table_type=None,
                                   parameters={"EXTERNAL": "TRUE"}))
    assert client.get_table(db, "untyped").tableType == "MANAGED_TABLE"
    assert client.get_table(db, "untyped_ext").tableType == "EXTERNAL_TABLE"


def test_views_have_no_location_and_keep_their_text(client, db, warehouse):
    sql = "SELECT `id` FROM `t1` WHERE name <> 'x'"
    client.create_table(make_table(db, "t1"))
    client.create_table(make_view(db, "V1", sql))
    view = client.get_table(db, "v1")
    assert view.tableType == "VIRTUAL_VIEW"
    assert view.sd.location is None
    assert (view.viewOriginalText, view.viewExpandedText) == (sql, sql)
    assert not os.path.exists(table_dir(warehouse, db, "v1"))
    assert client.get_tables_by_type(db, "*", "VIRTUAL_VIEW") == ["v1"]
    assert [f.name for f in client.get_fields(db, "v1")] == ["id", "name"]
    client.drop_table(db, "v1", True)
    assert client.get_all_tables(db) == ["t1"]


# ---------------------------------------------------------------- listings

def create_listing_tables(client, db):
    client.create_table(make_table(db, "alpha"))
    client.create_table(make_table(db, "alpine", parameters={"comment": "mountain"}))
    client.create_table(make_table(db, "beta", table_type="EXTERNAL_TABLE",
                                   parameters={"EXTERNAL": "TRUE", "owner_team": "x"}))
    client.create_table(make_table(db, "gamma", table_type="EXTERNAL_TABLE",
                                   parameters={"EXTERNAL": "TRUE", "owner_team": "y"},
                                   owner="grace"))
    client.create_table(make_view(db, "view1", "SELECT 1"))


def test_get_tables_pattern_language(client, db):
    """Same pattern language as get_databases; results sorted (observed on Hive 2.3)."""
    create_listing_tables(client, db)
    everything = ["alpha", "alpine", "beta", "gamma", "view1"]
    assert client.get_tables(db, "*") == everything
    assert client.get_tables(db, ".*") == everything
    assert client.get_tables(db.upper(), "AL*") == ["alpha", "alpine"]
    assert client.get_tables(db, "alp.ne|gamma") == ["alpine", "gamma"]
    assert client.get_tables(db, "alp") == []  # whole-name match
    assert client.get_all_tables(db) == everything
    assert client.get_all_tables(f" {db.upper()} ") == everything


def test_get_tables_with_an_empty_pattern_matches_nothing(client, db):
    """Observed on Hive 2.3; only null and "*" mean "every table"."""
    client.create_table(make_table(db, "t1"))
    assert client.get_tables(db, "") == []


def test_listing_a_missing_database_is_empty(client):
    """Observed on Hive 2.3: get_tables and get_table_names_by_filter answer []."""
    missing = unique_name("tdb_missing")
    assert client.get_tables(missing, "*") == []
    assert client.get_table_names_by_filter(missing, 'hive_filter_field_owner__ = "x"', -1) == []


def test_get_all_tables_of_a_missing_database_is_empty(client):
    assert client.get_all_tables(unique_name("tdb_missing")) == []


def test_get_tables_by_type(client, db):
    create_listing_tables(client, db)
    assert client.get_tables_by_type(db, "*", "MANAGED_TABLE") == ["alpha", "alpine"]
    assert client.get_tables_by_type(db, "*", "EXTERNAL_TABLE") == ["beta", "gamma"]
    assert client.get_tables_by_type(db, "*", "VIRTUAL_VIEW") == ["view1"]
    assert client.get_tables_by_type(db, "a*|g*", "EXTERNAL_TABLE") == ["gamma"]
    assert client.get_tables_by_type(db, "*", "MATERIALIZED_VIEW") == []
    # Hive parses the type with Java's Enum.valueOf: exact spelling, or a MetaException.
    for unknown in ("BOGUS", "managed_table"):
        with raises_hms(MetaException, "No enum constant",
                        f"org.apache.hadoop.hive.metastore.TableType.{unknown}"):
            client.get_tables_by_type(db, "*", unknown)


def test_get_table_meta(client, db, hive):
    """TableMeta{dbName, tableName, tableType, comments = the "comment" parameter}. Hive 4 also
    fills catName. (Hive 2.3 answered this too; it drops the connection only for tables stored
    without a type, which this test doesn't make.)"""
    create_listing_tables(client, db)
    metas = client.get_table_meta(db, "*", [])
    got = [(m.dbName, m.tableName, m.tableType, m.comments) for m in metas]
    assert sorted(got) == [
        (db, "alpha", "MANAGED_TABLE", None), (db, "alpine", "MANAGED_TABLE", "mountain"),
        (db, "beta", "EXTERNAL_TABLE", None), (db, "gamma", "EXTERNAL_TABLE", None),
        (db, "view1", "VIRTUAL_VIEW", None)]
    if hive >= 4:
        assert {m.catName for m in metas} == {"hive"}
    typed = client.get_table_meta(db.upper(), "*", ["EXTERNAL_TABLE", "VIRTUAL_VIEW"])
    assert sorted(m.tableName for m in typed) == ["beta", "gamma", "view1"]
    assert sorted(m.tableName for m in client.get_table_meta(f"{db[:-4]}*", "al*|g*", [])) == [
        "alpha", "alpine", "gamma"]
    assert client.get_table_meta(unique_name("tdb_missing"), "*", []) == []


def test_get_table_objects_by_name(client, db):
    """Names are normalised; missing ones are silently left out (observed on Hive 2.3)."""
    create_listing_tables(client, db)
    tables = client.get_table_objects_by_name(db.upper(), ["ALPHA", "nope", " beta "])
    assert sorted(t.tableName for t in tables) == ["alpha", "beta"]
    assert all(t.dbName == db and t.sd is not None for t in tables)
    assert client.get_table_objects_by_name(db, []) == []


def test_get_table_objects_by_name_req(client, db):
    create_listing_tables(client, db)
    result = client.get_table_objects_by_name_req(
        GetTablesRequest(dbName=db, tblNames=["gamma", "VIEW1", "missing"]))
    assert sorted((t.tableName, t.tableType) for t in result.tables) == [
        ("gamma", "EXTERNAL_TABLE"), ("view1", "VIRTUAL_VIEW")]
    missing = unique_name("tdb_missing")
    # Hive 2.3: "Could not find database <db>"; Hive 4 names it with its catalog: "hive.<db>".
    with raises_hms(UnknownDBException, "Could not find database ", missing):
        client.get_table_objects_by_name_req(GetTablesRequest(dbName=missing, tblNames=["t"]))


def test_get_tables_ext(server, client, db):
    """Hive 4: ExtendedTableInfo per table matching the pattern, up to `limit`."""
    create_listing_tables(client, db)
    request = GetTablesExtRequest(catalog="hive", database=db, tableNamePattern="*",
                                  requestedFields=1, limit=-1)
    infos = call_or_skip_on_reference(server, client.get_tables_ext, request)
    assert sorted(info.tblName for info in infos) == ["alpha", "alpine", "beta", "gamma", "view1"]
    request.tableNamePattern = "al*"
    assert sorted(info.tblName for info in client.get_tables_ext(request)) == ["alpha", "alpine"]
    request.tableNamePattern, request.limit = "*", 2
    assert len(client.get_tables_ext(request)) == 2


def test_get_table_names_by_filter(client, db):
    """Hive's table filter language over owner, last access time and parameters; order is not
    sorted by Hive 2.3 (observed), so results are compared as sets."""
    create_listing_tables(client, db)

    def names(filter_text, max_tables=-1):
        return sorted(client.get_table_names_by_filter(db, filter_text, max_tables))

    assert names('hive_filter_field_params__EXTERNAL = "TRUE"') == ["beta", "gamma"]
    assert names('hive_filter_field_params__owner_team <> "x"') == ["gamma"]
    assert names('hive_filter_field_owner__ = "grace"') == ["gamma"]
    assert names('hive_filter_field_owner__ like "gr.*"') == ["gamma"]
    assert names('hive_filter_field_params__EXTERNAL = "TRUE" and '
                 'hive_filter_field_params__owner_team = "y"') == ["gamma"]
    assert names('hive_filter_field_owner__ = "grace" or '
                 'hive_filter_field_owner__ = "nobody"') == ["gamma"]
    assert names("hive_filter_field_last_access__ = 0") == [
        "alpha", "alpine", "beta", "gamma", "view1"]
    assert len(names('hive_filter_field_params__EXTERNAL = "TRUE"', 1)) == 1
    with pytest.raises(MetaException):
        client.get_table_names_by_filter(db, "garbage ((", -1)


def test_get_fields_and_get_schema(client, db, server):
    client.create_table(make_table(db, "t1", columns=[FieldSchema("A", "int", "c")],
                                   partition_keys=[FieldSchema("ds", "string", "day")]))
    fields = [("a", "int", "c")]
    schema = fields + [("ds", "string", "day")]

    def triples(result):
        return [(f.name, f.type, f.comment) for f in result]

    assert triples(client.get_fields(db.upper(), "T1")) == fields
    assert triples(client.get_schema(db, "t1")) == schema
    context = EnvironmentContext(properties={})
    assert triples(client.get_fields_with_environment_context(db, "t1", context)) == fields
    assert triples(client.get_schema_with_environment_context(db, "t1", context)) == schema
    # Observed on Hive 2.3: UnknownTableException "<db>.<t> table not found".
    with raises_hms(UnknownTableException, "nope table not found"):
        client.get_fields(db, "nope")
    with raises_hms(UnknownTableException, "nope table not found"):
        client.get_schema(db, "nope")
    with pytest.raises((UnknownTableException, UnknownDBException)):
        client.get_fields(unique_name("tdb_missing"), "nope")


def test_get_fields_req_and_get_schema_req(server, client, db):
    client.create_table(make_table(db, "t1", partition_keys=[FieldSchema("ds", "string", None)]))
    response = call_or_skip_on_reference(server, client.get_fields_req,
                                         GetFieldsRequest(dbName=db, tblName="T1"))
    assert [f.name for f in response.fields] == ["id", "name"]
    response = client.get_schema_req(GetSchemaRequest(dbName=db, tblName="t1", catName="hive"))
    assert [f.name for f in response.fields] == ["id", "name", "ds"]
    with raises_hms(UnknownTableException, "table not found"):
        client.get_fields_req(GetFieldsRequest(dbName=db, tblName="nope"))


# ---------------------------------------------------------------- alter

def test_alter_table_replaces_parameters_and_refreshes_ddl_time_only_when_absent(client, db):
    """HMS sets transient_lastDdlTime on alter only when the new table lacks it (observed)."""
    client.create_table(make_table(db, "t1", parameters={"a": "1"}))
    original = client.get_table(db, "t1")
    time.sleep(1.1)
    changed = copy.deepcopy(original)
    changed.parameters = {"b": "2"}
    client.alter_table(db, "t1", changed)
    after = client.get_table(db, "t1")
    assert after.parameters["b"] == "2" and "a" not in after.parameters
    assert int(after.parameters["transient_lastDdlTime"]) > original.createTime
    kept = copy.deepcopy(after)
    kept.parameters["transient_lastDdlTime"] = "777"
    client.alter_table(db.upper(), "T1", kept)
    assert client.get_table(db, "t1").parameters["transient_lastDdlTime"] == "777"
    assert client.get_table(db, "t1").createTime == original.createTime


def test_alter_missing_table_is_invalid_operation(client, db):
    """Hive 2.3: "<db>.<t> table not found"; Hive 4: "table hive.<db>.<t> doesn't exist"."""
    client.create_table(make_table(db, "t1"))
    table = client.get_table(db, "t1")
    table.tableName = "nope"
    with raises_hms(InvalidOperationException, "nope"):
        client.alter_table(db, "nope", table)
    missing = unique_name("tdb_missing")
    table.tableName, table.dbName = "t1", missing
    with raises_hms(InvalidOperationException, missing):
        client.alter_table(missing, "t1", table)


def test_alter_of_a_missing_table_is_reported_before_the_new_name(client, db):
    """HiveAlterHandler looks the old table up first (observed on Hive 2.3)."""
    client.create_table(make_table(db, "t1"))
    with raises_hms(InvalidOperationException, "nope"):
        client.alter_table(db, "nope", client.get_table(db, "t1"))


def with_columns(table, *columns):
    changed = copy.deepcopy(table)
    changed.sd.cols = [FieldSchema(name, column_type, None) for name, column_type in columns]
    return changed


def test_alter_table_column_type_compatibility(client, db):
    """metastore.disallow.incompatible.col.type.changes (default true): columns compared by
    position; widening numbers, numbers to strings, and appending are fine; anything else is
    InvalidOperationException naming the new columns (observed on Hive 2.3; Hive 4's
    ColumnType.areColTypesCompatible has the same rules)."""
    client.create_table(make_table(db, "t1", columns=[FieldSchema("a", "int", None),
                                                      FieldSchema("b", "string", None)]))
    incompatible = ("The following columns have types incompatible with the existing columns "
                    "in their respective positions :\n")
    table = client.get_table(db, "t1")
    with raises_hms(InvalidOperationException, incompatible + "a"):
        client.alter_table(db, "t1", with_columns(table, ("a", "smallint"), ("b", "string")))
    # A reorder shifts types: position 0 int -> string passes, position 1 string -> int doesn't;
    # the message names the new column at the failing position.
    with raises_hms(InvalidOperationException, incompatible + "a"):
        client.alter_table(db, "t1", with_columns(table, ("b", "string"), ("a", "int")))
    with raises_hms(InvalidOperationException, "Invalid column type: foo"):
        client.alter_table(db, "t1", with_columns(table, ("a", "foo"), ("b", "string")))
    assert [c.type for c in client.get_table(db, "t1").sd.cols] == ["int", "string"]

    client.alter_table(db, "t1", with_columns(table, ("a", "bigint"), ("b", "varchar(5)"),
                                              ("c", "double")))
    table = client.get_table(db, "t1")
    assert [(c.name, c.type) for c in table.sd.cols] == [
        ("a", "bigint"), ("b", "varchar(5)"), ("c", "double")]
    client.alter_table(db, "t1", with_columns(table, ("a", "string"), ("b", "string")))
    assert [c.type for c in client.get_table(db, "t1").sd.cols] == ["string", "string"]
    table = client.get_table(db, "t1")
    with raises_hms(InvalidOperationException, incompatible + "a"):
        client.alter_table(db, "t1", with_columns(table, ("a", "int"), ("b", "string")))


def test_alter_table_cannot_change_partition_keys(client, db):
    client.create_table(make_table(db, "t1", partition_keys=[FieldSchema("ds", "string", None)]))
    changed = client.get_table(db, "t1")
    changed.partitionKeys = [FieldSchema("hr", "string", None)]
    with raises_hms(InvalidOperationException, "partition keys can not be changed."):
        client.alter_table(db, "t1", changed)


def test_alter_table_flips_type_with_the_external_parameter(client, db):
    client.create_table(make_table(db, "t1"))
    changed = client.get_table(db, "t1")
    changed.parameters["EXTERNAL"] = "TRUE"
    client.alter_table(db, "t1", changed)
    assert client.get_table(db, "t1").tableType == "EXTERNAL_TABLE"
    changed = client.get_table(db, "t1")
    del changed.parameters["EXTERNAL"]
    client.alter_table(db, "t1", changed)
    assert client.get_table(db, "t1").tableType == "MANAGED_TABLE"


def test_rename_moves_a_managed_table_and_its_directory(client, db, warehouse):
    client.create_table(make_table(db, "old_name"))
    with open(os.path.join(table_dir(warehouse, db, "old_name"), "part-0"), "w") as data:
        data.write("1\tx\n")
    renamed = client.get_table(db, "old_name")
    renamed.tableName = "New_Name"
    client.alter_table(db, "OLD_NAME", renamed)
    with raises_hms(NoSuchObjectException, "old_name table not found"):
        client.get_table(db, "old_name")
    table = client.get_table(db, "new_name")
    assert table.tableName == "new_name"
    assert local_path(table.sd.location) == table_dir(warehouse, db, "new_name")
    assert not os.path.exists(table_dir(warehouse, db, "old_name"))
    assert os.path.isfile(os.path.join(table_dir(warehouse, db, "new_name"), "part-0"))
    assert client.get_all_tables(db) == ["new_name"]


def test_rename_across_databases_moves_the_directory(client, db, warehouse):
    other = unique_name("tdb_other")
    client.create_database(Database(name=other))
    client.create_table(make_table(db, "mover"))
    moved = client.get_table(db, "mover")
    moved.dbName = other.upper()
    client.alter_table(db, "mover", moved)
    assert client.get_all_tables(db) == []
    table = client.get_table(other, "mover")
    assert table.dbName == other
    assert local_path(table.sd.location) == table_dir(warehouse, other, "mover")
    assert os.path.isdir(table_dir(warehouse, other, "mover"))
    assert not os.path.exists(table_dir(warehouse, db, "mover"))


def test_rename_keeps_the_location_of_external_and_custom_located_tables(client, db, tmp_path):
    client.create_table(make_table(db, "ext", table_type="EXTERNAL_TABLE",
                                   parameters={"EXTERNAL": "TRUE"}, location=str(tmp_path / "e")))
    client.create_table(make_table(db, "custom", location=str(tmp_path / "c")))
    for name, place in (("ext", "e"), ("custom", "c")):
        table = client.get_table(db, name)
        table.tableName = f"{name}_renamed"
        client.alter_table(db, name, table)
        assert local_path(client.get_table(db, f"{name}_renamed").sd.location) == str(
            tmp_path / place)
        assert (tmp_path / place).is_dir()


def test_rename_onto_an_existing_directory_is_refused(client, db, warehouse):
    """A managed table's rename moves its directory; if the new default directory already
    exists, HiveAlterHandler refuses (observed on Hive 2.3; Hive 4 names the catalog too)."""
    client.create_table(make_table(db, "m1"))
    os.makedirs(table_dir(warehouse, db, "m9"))
    table = client.get_table(db, "m1")
    table.tableName = "m9"
    with raises_hms(InvalidOperationException, "New location for this table ",
                    f"{db}.m9 already exists : "):
        client.alter_table(db, "m1", table)
    assert client.get_all_tables(db) == ["m1"]
    assert os.path.isdir(table_dir(warehouse, db, "m1"))


def test_rename_a_view(client, db):
    client.create_table(make_view(db, "v1", "SELECT 1"))
    view = client.get_table(db, "v1")
    view.tableName = "v2"
    client.alter_table(db, "v1", view)
    renamed = client.get_table(db, "v2")
    assert (renamed.tableType, renamed.viewOriginalText, renamed.sd.location) == (
        "VIRTUAL_VIEW", "SELECT 1", None)
    assert client.get_all_tables(db) == ["v2"]


def test_rename_errors(client, db):
    client.create_table(make_table(db, "t1"))
    client.create_table(make_table(db, "t2"))
    table = client.get_table(db, "t1")
    table.tableName = "bad-name"
    with raises_hms(InvalidOperationException, "bad-name is not a valid object name"):
        client.alter_table(db, "t1", table)
    table.tableName = "t2"
    with raises_hms(InvalidOperationException, f"new table {db}.t2 already exists"):
        client.alter_table(db, "t1", table)
    missing = unique_name("tdb_missing")
    table.tableName, table.dbName = "t1", missing
    with raises_hms(InvalidOperationException, missing):
        client.alter_table(db, "t1", table)
    assert client.get_all_tables(db) == ["t1", "t2"]


def test_alter_table_compare_and_set_for_iceberg(client, db):
    """HIVE-26882 (present in the reference's Hive 2.3.10 too): with env context
    expected_parameter_key/value the alter applies only if the stored parameter still has the
    expected value. Iceberg retries on exactly this message prefix."""
    client.create_table(make_table(db, "ice", table_type="EXTERNAL_TABLE",
                                   parameters={"EXTERNAL": "TRUE", CAS_KEY: "m0"}))
    update = client.get_table(db, "ice")
    update.parameters[CAS_KEY] = "m1"
    client.alter_table_with_environment_context(db, "ice", update, cas_context("m0"))
    assert client.get_table(db, "ice").parameters[CAS_KEY] == "m1"

    stale = client.get_table(db, "ice")
    stale.parameters[CAS_KEY] = "m2"
    stale.parameters["other"] = "change"
    with raises_hms(MetaException, f"The table has been modified. The parameter value for key "
                                   f"'{CAS_KEY}' is 'm1'. The expected was value was 'm0'"):
        client.alter_table_with_environment_context(db, "ice", stale, cas_context("m0"))
    after = client.get_table(db, "ice")
    assert after.parameters[CAS_KEY] == "m1" and "other" not in after.parameters

    with raises_hms(MetaException, f"The table has been modified. The parameter value for key "
                                   f"'absent_key' is 'null'. The expected was value was 'v'"):
        changed = client.get_table(db, "ice")
        changed.parameters["absent_key"] = "w"
        client.alter_table_with_environment_context(db, "ice", changed,
                                                    cas_context("v", "absent_key"))
    unset = client.get_table(db, "ice")
    del unset.parameters[CAS_KEY]
    with raises_hms(MetaException, f"New value for expected key {CAS_KEY} is not set"):
        client.alter_table_with_environment_context(db, "ice", unset, cas_context("m1"))
    assert client.get_table(db, "ice").parameters[CAS_KEY] == "m1"


def test_alter_table_with_cascade(client, db):
    client.create_table(make_table(db, "t1", partition_keys=[FieldSchema("ds", "string", None)]))
    table = client.get_table(db, "t1")
    changed = with_columns(table, ("id", "int"), ("name", "string"), ("extra", "string"))
    changed.partitionKeys = table.partitionKeys
    client.alter_table_with_cascade(db, "t1", changed, True)
    assert [c.name for c in client.get_table(db, "t1").sd.cols] == ["id", "name", "extra"]


def test_alter_table_req_with_compare_and_set_fields(server, client, db):
    """AlterTableRequest fields 10/11 carry the expected key/value (Hive 4)."""
    client.create_table(make_table(db, "ice", table_type="EXTERNAL_TABLE",
                                   parameters={"EXTERNAL": "TRUE", CAS_KEY: "m0"}))
    request_class = alter_table_request_struct()
    update = client.get_table(db, "ice")
    update.parameters[CAS_KEY] = "m1"
    call_or_skip_on_reference(server, alter_table_req, client, request_class(
        dbName=db, tableName="ICE", table=update, expectedParameterKey=CAS_KEY,
        expectedParameterValue="m0"))
    assert client.get_table(db, "ice").parameters[CAS_KEY] == "m1"
    update.parameters[CAS_KEY] = "m2"
    with raises_hms(MetaException, f"The table has been modified. The parameter value for key "
                                   f"'{CAS_KEY}' is 'm1'. The expected was value was 'm0'"):
        alter_table_req(client, request_class(
            dbName=db, tableName="ice", table=update, expectedParameterKey=CAS_KEY,
            expectedParameterValue="m0"))
    renamed = client.get_table(db, "ice")
    renamed.tableName = "ice2"
    alter_table_req(client, request_class(catName="hive", dbName=db, tableName="ice",
                                          table=renamed))
    assert client.get_all_tables(db) == ["ice2"]
    renamed.tableName = "nope"
    with raises_hms(InvalidOperationException, "nope"):
        alter_table_req(client, request_class(dbName=db, tableName="nope", table=renamed))


def test_alter_table_req_with_environment_context(server, client, db):
    """The pyiceberg-vendored client's own alter_table_req (fields 1-9): an environment context
    with the compare-and-set keys works through the request too."""
    client.create_table(make_table(db, "t1", parameters={CAS_KEY: "a"}))
    update = client.get_table(db, "t1")
    update.parameters[CAS_KEY] = "b"
    call_or_skip_on_reference(server, client.alter_table_req, AlterTableRequest(
        dbName=db, tableName="t1", table=update, environmentContext=cas_context("a")))
    assert client.get_table(db, "t1").parameters[CAS_KEY] == "b"
    with raises_hms(MetaException, "The table has been modified."):
        client.alter_table_req(AlterTableRequest(
            dbName=db, tableName="t1", table=update, environmentContext=cas_context("a")))


# ---------------------------------------------------------------- drop and truncate

def test_drop_managed_table_with_delete_data_removes_its_directory(client, db, warehouse):
    client.create_table(make_table(db, "t1"))
    path = table_dir(warehouse, db, "t1")
    with open(os.path.join(path, "part-0"), "w") as data:
        data.write("x\n")
    client.drop_table(db.upper(), "T1", True)
    with raises_hms(NoSuchObjectException, "t1 table not found"):
        client.get_table(db, "t1")
    assert not os.path.exists(path)
    assert client.get_all_tables(db) == []


def test_drop_table_without_delete_data_keeps_the_directory(client, db, warehouse):
    client.create_table(make_table(db, "t1"))
    client.drop_table(db, "t1", False)
    assert client.get_all_tables(db) == []
    assert os.path.isdir(table_dir(warehouse, db, "t1"))


def test_drop_external_table_keeps_data_unless_purge_is_set(client, db, hive, tmp_path):
    """External data stays; with external.table.purge=true Hive 4 deletes it (Hive 2.3 predates
    that parameter and kept it, observed)."""
    client.create_table(make_table(db, "ext", table_type="EXTERNAL_TABLE",
                                   parameters={"EXTERNAL": "TRUE"}, location=str(tmp_path / "e")))
    client.create_table(make_table(db, "purged", table_type="EXTERNAL_TABLE",
                                   parameters={"EXTERNAL": "TRUE", "external.table.purge": "true"},
                                   location=str(tmp_path / "p")))
    client.drop_table(db, "ext", True)
    client.drop_table(db, "purged", True)
    assert client.get_all_tables(db) == []
    assert (tmp_path / "e").is_dir()
    assert (tmp_path / "p").is_dir() == (hive < 4)


def test_look_alike_table_locations_keep_their_own_directories(client, db, tmp_path):
    """Given locations are used exactly: `x` and `x ` (or `X`, `%41` against `A`, NFC against
    NFD) are two directories, and dropping one table with deleteData leaves the other's files.
    hivestore once trimmed locations on their way to the filesystem (`x ` was `x`)."""
    for index, (kept, doomed) in enumerate([("x", "x "), ("x", "X"), ("A", "%41"),
                                            ("\u00e9", "e\u0301")]):
        kept_dir, doomed_dir = tmp_path / f"l{index}" / kept, tmp_path / f"l{index}" / doomed
        client.create_table(make_table(db, f"a{index}", location=f"file:{kept_dir}"))
        client.create_table(make_table(db, f"b{index}", location=f"file:{doomed_dir}"))
        assert os.path.realpath(kept_dir) != os.path.realpath(doomed_dir)
        (kept_dir / "part-0").write_text("kept")
        (doomed_dir / "part-0").write_text("doomed")
        client.drop_table(db, f"b{index}", True)
        assert not doomed_dir.exists(), (kept, doomed)
        assert (kept_dir / "part-0").read_text() == "kept", (kept, doomed)


def test_drop_with_data_of_a_directory_another_table_uses_is_refused(server, client, db,
                                                                     tmp_path):
    """A given location can name another table's directory (`y/../x`) or hold it. Hive deletes
    it anyway; hivestore refuses the drop with deleteData (MetaException naming the location and
    the other table, nothing dropped). Without deleteData it goes."""
    if server.external:
        pytest.skip("hivestore's refusal: Hive deletes the shared directory")
    client.create_table(make_table(db, "kept", location=f"file:{tmp_path}/x"))
    (tmp_path / "x" / "part-0").write_text("kept")
    for name, location in (("dotted", f"file:{tmp_path}/y/../x"),
                           ("parent", f"file:{tmp_path}")):
        client.create_table(make_table(db, name, location=location))
        with raises_hms(MetaException, "Refusing to delete", location, f"{db}.kept"):
            client.drop_table(db, name, True)
        assert client.get_table(db, name).sd.location == location
        assert (tmp_path / "x" / "part-0").read_text() == "kept"
        client.drop_table(db, name, False)
    client.drop_table(db, "kept", True)
    assert not (tmp_path / "x").exists()


def test_drop_missing_table_is_no_such_object(client, db):
    with raises_hms(NoSuchObjectException, f"{db}.nope table not found"):
        client.drop_table(db, "nope", True)
    # With the database missing too, Hive 2.3 says "<db>.nope table not found" and Hive 4's
    # DropTableHandler (which reads the database first) "database hive.<db>": both name it.
    missing = unique_name("tdb_missing")
    with raises_hms(NoSuchObjectException, missing):
        client.drop_table(missing, "nope", True)


def test_drop_table_with_environment_context(client, db, warehouse):
    client.create_table(make_table(db, "t1"))
    client.drop_table_with_environment_context(db, "t1", True,
                                               EnvironmentContext(properties={"ifPurge": "TRUE"}))
    assert client.get_all_tables(db) == []
    assert not os.path.exists(table_dir(warehouse, db, "t1"))
    with raises_hms(NoSuchObjectException, "t1 table not found"):
        client.drop_table_with_environment_context(db, "t1", True, None)


def test_drop_table_req(server, client, db, warehouse):
    client.create_table(make_table(db, "t1"))
    client.create_table(make_table(db, "t2"))
    request_class = drop_table_request_struct()
    call_or_skip_on_reference(server, drop_table_req, client, request_class(
        catalogName="hive", dbName=db, tableName="T1", deleteData=True))
    assert not os.path.exists(table_dir(warehouse, db, "t1"))
    drop_table_req(client, request_class(dbName=db, tableName="t2", deleteData=False))
    assert os.path.isdir(table_dir(warehouse, db, "t2"))
    assert client.get_all_tables(db) == []
    with raises_hms(NoSuchObjectException, "t1"):
        drop_table_req(client, request_class(dbName=db, tableName="t1", deleteData=True))


def test_truncate_table_removes_the_files_and_keeps_the_table(server, client, db, warehouse):
    client.create_table(make_table(db, "t1"))
    path = table_dir(warehouse, db, "t1")
    for name in ("part-0", "part-1"):
        with open(os.path.join(path, name), "w") as data:
            data.write("x\n")
    call_or_skip_on_reference(server, client.truncate_table, db, "T1", None)
    assert client.get_table(db, "t1").tableName == "t1"
    assert os.path.isdir(path)
    assert os.listdir(path) == []
    with pytest.raises((MetaException, NoSuchObjectException, TApplicationException)):
        client.truncate_table(db, "nope", None)


def test_truncate_table_req(server, client, db, warehouse):
    client.create_table(make_table(db, "t1"))
    path = table_dir(warehouse, db, "t1")
    with open(os.path.join(path, "part-0"), "w") as data:
        data.write("x\n")
    call_or_skip_on_reference(server, client.truncate_table_req,
                              TruncateTableRequest(dbName=db, tableName="t1"))
    assert os.listdir(path) == []
    assert client.get_all_tables(db) == ["t1"]


# ---------------------------------------------------------------- hmsclient 0.1.1

def test_hmsclient_table_flow(server, db, warehouse):
    """hmsclient's own helpers (make_schema) and generated calls with its own types."""
    from hmsclient import hmsclient
    from hmsclient.genthrift.hive_metastore import ttypes as hms_types

    with hmsclient.HMSClient(host=server.host, port=server.port) as hms:
        hms._oprot.trans._TBufferedTransport__trans.setTimeout(10_000)
        columns = hms.make_schema(["id:int", "Name", "price:decimal(10,2)"])
        table = hms_types.Table(
            tableName="From_Hmsclient", dbName=db, owner="hank", tableType="MANAGED_TABLE",
            partitionKeys=hms.make_schema(["ds"]), parameters={},
            sd=hms_types.StorageDescriptor(
                cols=columns, inputFormat=hmsclient.INPUT_FORMAT,
                outputFormat=hmsclient.OUTPUT_FORMAT,
                serdeInfo=hms_types.SerDeInfo(serializationLib=hmsclient.SIMPLE_SERDE,
                                              parameters={})))
        hms.create_table(table)
        got = hms.get_table(db, "from_hmsclient")
        assert [(c.name, c.type) for c in got.sd.cols] == [
            ("id", "int"), ("name", "string"), ("price", "decimal(10,2)")]
        assert [k.name for k in got.partitionKeys] == ["ds"]
        assert local_path(got.sd.location) == table_dir(warehouse, db, "from_hmsclient")
        assert list(hms.parse_schema(hms.get_schema(db, "from_hmsclient"))) == [
            "id\tint", "name\tstring", "price\tdecimal(10,2)", "ds\tstring"]
        assert hms.get_all_tables(db) == ["from_hmsclient"]
        with pytest.raises(hms_types.AlreadyExistsException):
            hms.create_table(table)
        got.parameters["touched"] = "yes"
        hms.alter_table(db, "from_hmsclient", got)
        assert hms.get_table(db, "from_hmsclient").parameters["touched"] == "yes"
        hms.drop_table(db, "from_hmsclient", True)
        with pytest.raises(hms_types.NoSuchObjectException):
            hms.get_table(db, "from_hmsclient")
        assert not os.path.exists(table_dir(warehouse, db, "from_hmsclient"))


# ---------------------------------------------------------------- pymetastore 0.4.2

def test_pymetastore_table_flow(server, client, db):
    """pymetastore's HMS API: list_tables, get_table -> HTable (which parses every column
    type with its own type parser), list_columns (get_table + get_schema)."""
    from pymetastore.metastore import HMS

    client.create_table(make_table(
        db, "seen_by_pymetastore", owner="ivy",
        columns=[FieldSchema("id", "bigint", "key"), FieldSchema("tags", "array<string>", None),
                 FieldSchema("attrs", "map<string,int>", None)],
        partition_keys=[FieldSchema("ds", "string", None)], parameters={"p": "1"}))
    client.create_table(make_table(db, "second", table_type="EXTERNAL_TABLE",
                                   parameters={"EXTERNAL": "TRUE"}))
    with HMS.create(host=server.host, port=server.port) as hms:
        hms.client._iprot.trans._TBufferedTransport__trans.setTimeout(10_000)
        assert hms.list_tables(db) == ["second", "seen_by_pymetastore"]
        table = hms.get_table(db, "seen_by_pymetastore")
        assert (table.database_name, table.name, table.table_type, table.owner) == (
            db, "seen_by_pymetastore", "MANAGED_TABLE", "ivy")
        assert [c.name for c in table.columns] == ["id", "tags", "attrs"]
        assert [c.name for c in table.partition_columns] == ["ds"]
        assert table.parameters["p"] == "1"
        assert table.storage.storage_format.serde == (
            "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe")
        assert hms.list_columns(db, "seen_by_pymetastore") == ["id", "tags", "attrs"]
        assert hms.get_table(db, "second").table_type == "EXTERNAL_TABLE"
