"""Behaviours Hive's own metastore test suite checks, each compared with the Java HMS.

Each test holds one finding of Hive's suite against hivestore: the answer of the Java HMS 2.3
reference where it has the behaviour (the same test passes with `HMS_URI`), or Hive 4's where
the two differ (a comment names the Hive 4 source, and the test skips on 2.3). Clients: the
pyiceberg-vendored Hive 4 client, raw calls where its IDL lacks a declaration, and Hive 2.3's
`HiveMetaStoreClient` from the pyspark jars through PySpark's JVM.
"""

import shutil

import pytest
from thrift.Thrift import TType
from hive_metastore.ttypes import (
    Database,
    FieldSchema,
    InvalidOperationException,
    MetaException,
    NoSuchObjectException,
    UnknownDBException,
)

from hms_helpers import (
    call_method,
    connected,
    hide_generated_client_frames,
    make_table,
    raises_hms,
    unique_name,
)

DB_PREFIX = "hsf"

hide_generated_client_frames()


def skip_unless_hive4(hive, why):
    if hive < 4:
        pytest.skip(f"Hive 2.3 differs: {why}")


# --- get_table_objects_by_name as Hive 0.x-3 declared it -----------------------------------

def get_table_objects_by_name(client, db_name, names):
    """The call with the exceptions Hive 2.3's IDL declares for it (pyiceberg's copy has none):
    MetaException o1, InvalidOperationException o2, UnknownDBException o3. `names=None` leaves
    the argument out, as a Java client sends null."""
    from hive_metastore.ttypes import Table

    return call_method(
        client, "get_table_objects_by_name",
        [(1, TType.STRING, "dbname", "UTF8", db_name),
         (2, TType.LIST, "tbl_names", (TType.STRING, "UTF8", False), names)],
        [(0, TType.LIST, "success", (TType.STRUCT, [Table, None], False)),
         (1, TType.STRUCT, "o1", [MetaException, None]),
         (2, TType.STRUCT, "o2", [InvalidOperationException, None]),
         (3, TType.STRUCT, "o3", [UnknownDBException, None])])


def test_get_table_objects_by_name_declares_hives_exceptions(client, db):
    client.create_table(make_table(db, "alpha"))
    missing = unique_name("hsf_missing")
    # Hive 2.3: "Could not find database <db>"; Hive 4 qualifies it with its catalog.
    with raises_hms(UnknownDBException, "Could not find database ", missing):
        get_table_objects_by_name(client, missing, ["alpha"])
    with raises_hms(UnknownDBException, "DB name is null or empty"):
        get_table_objects_by_name(client, "", ["alpha"])
    # A name given twice (in any case) is answered once: Hive's store queries by name.
    tables = get_table_objects_by_name(client, db, ["alpha", "ALPHA", "alpha", "nope"])
    assert [t.tableName for t in tables] == ["alpha"]


def test_get_table_objects_by_name_refuses_a_null_name_list(client, db):
    with raises_hms(InvalidOperationException, f"{db} cannot find null tables"):
        get_table_objects_by_name(client, db, None)
    # An empty list is no null: it finds no tables.
    assert get_table_objects_by_name(client, db, []) == []


# --- databases -------------------------------------------------------------------------------

def test_create_database_qualifies_a_location_without_scheme(client, tmp_path):
    """Hive's `Warehouse.getDnsPath` puts a scheme-less path on the default filesystem."""
    name = unique_name("hsf_loc")
    location = tmp_path / "plain_location"
    client.create_database(Database(name=name, locationUri=f"{location}/"))
    try:
        assert client.get_database(name).locationUri == f"file:{location}"
        assert location.is_dir()
    finally:
        client.drop_database(name, True, True)


def test_create_database_fills_an_unset_owner_with_the_caller(server, hive):
    """Hive 4's create_database_core sets an unset owner to the short name of the caller's
    UGI, which `set_ugi` makes the caller's (TUGIBasedProcessor runs the call as that user);
    Hive 2.3 stores no owner."""
    name = unique_name("hsf_owner")
    with connected(server, user="ada") as client:
        client.create_database(Database(name=name))
        try:
            stored = client.get_database(name)
            skip_unless_hive4(hive, "2.3 leaves the owner unset")
            assert (stored.ownerName, stored.ownerType) == ("ada", 1)  # PrincipalType.USER
        finally:
            client.drop_database(name, True, True)


# --- tables ----------------------------------------------------------------------------------

def test_create_table_accepts_a_partition_key_that_is_also_a_column(client, db):
    """Only Hive's DDL analyser refuses it (`Column repeated in partitioning columns`)."""
    columns = [FieldSchema("id", "int", None), FieldSchema("ds", "string", None)]
    client.create_table(make_table(db, "twice", columns=columns,
                                   partition_keys=[FieldSchema("ds", "string", None)]))
    table = client.get_table(db, "twice")
    assert [c.name for c in table.sd.cols] == ["id", "ds"]
    assert [k.name for k in table.partitionKeys] == ["ds"]


# --- transactional tables (TransactionalValidationListener) ----------------------------------

ORC_INPUT = "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat"
ORC_OUTPUT = "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat"
ORC_SERDE = "org.apache.hadoop.hive.ql.io.orc.OrcSerde"


def orc_table(db, name, parameters, bucketed=True, **extra):
    """An ORC table; bucketed by `id` into 2 buckets unless `bucketed` is false (Hive 2.3 asks
    full ACID tables to be bucketed, Hive 4 does not)."""
    table = make_table(db, name, parameters=parameters, **extra)
    table.sd.inputFormat, table.sd.outputFormat = ORC_INPUT, ORC_OUTPUT
    table.sd.serdeInfo.serializationLib = ORC_SERDE
    if bucketed:
        table.sd.numBuckets, table.sd.bucketCols = 2, ["id"]
    return table


def test_transactional_must_be_true(client, db):
    for value in ("", "foobar"):
        with raises_hms(MetaException,
                        "'transactional' property of TBLPROPERTIES may only have value 'true'"):
            client.create_table(orc_table(db, "t_bad", {"transactional": value}))
    assert client.get_tables(db, "*") == []
    # `false` (any case) is the same as no parameter: Hive drops it.
    client.create_table(make_table(db, "t_false", parameters={"TRANSACTIONAL": "False"}))
    stored = client.get_table(db, "t_false").parameters
    assert not {k for k in stored if k.lower() == "transactional"}


def test_transactional_needs_an_acid_format_unless_insert_only(client, db, hive):
    with raises_hms(MetaException, "stored using an ACID compliant format (such as ORC)"):
        client.create_table(make_table(db, "t_text", parameters={"transactional": "true"}))
    assert client.get_tables(db, "*") == []
    with raises_hms(MetaException, "cannot be declared transactional because it's an external "
                                   "table"):
        client.create_table(orc_table(db, "t_ext", {"transactional": "true", "EXTERNAL": "TRUE"},
                                      table_type="EXTERNAL_TABLE"))
    client.create_table(orc_table(db, "t_orc", {"Transactional": "TRUE"}))
    stored = client.get_table(db, "t_orc").parameters
    assert stored["transactional"] == "true" and "Transactional" not in stored
    skip_unless_hive4(hive, "2.3 has no insert-only tables and asks ACID tables to be bucketed")
    # Hive 4 (TransactionalValidationListener): the default properties are written out, an
    # insert-only table may use any format, and full ACID needs no bucketing.
    assert stored["transactional_properties"] == "default"
    client.create_table(make_table(db, "t_insert_only", parameters={
        "transactional": "true", "transactional_properties": "INSERT_ONLY"}))
    stored = client.get_table(db, "t_insert_only").parameters
    assert (stored["transactional"], stored["transactional_properties"]) == ("true",
                                                                            "insert_only")
    client.create_table(orc_table(db, "t_unbucketed", {"transactional": "true"},
                                  bucketed=False))
    with raises_hms(MetaException, "Invalid transactional properties specified for "
                                   f"{db}.t_bad with the error unknown value nope for "
                                   "transactional_properties"):
        client.create_table(orc_table(db, "t_bad", {"transactional": "true",
                                                    "transactional_properties": "nope"}))


def test_transactional_cannot_be_unset(client, db, hive):
    client.create_table(orc_table(db, "t_acid", {"transactional": "true"}))
    for value in ("false", "foobar"):
        altered = client.get_table(db, "t_acid")
        altered.parameters["transactional"] = value
        with raises_hms(MetaException,
                        "TBLPROPERTIES with 'transactional'='true' cannot be unset"):
            client.alter_table(db, "t_acid", altered)
    assert client.get_table(db, "t_acid").parameters["transactional"] == "true"
    # Made transactional by an alter: the rules of create apply.
    client.create_table(make_table(db, "t_plain"))
    altered = client.get_table(db, "t_plain")
    altered.parameters["transactional"] = "true"
    with raises_hms(MetaException, "stored using an ACID compliant format (such as ORC)"):
        client.alter_table(db, "t_plain", altered)
    skip_unless_hive4(hive, "2.3 has no transactional_properties rule on alter")
    altered = client.get_table(db, "t_acid")
    altered.parameters["transactional_properties"] = "insert_only"
    with raises_hms(MetaException, "TBLPROPERTIES with 'transactional_properties' cannot be "
                                   "altered after the table is created"):
        client.alter_table(db, "t_acid", altered)


# --- filters ---------------------------------------------------------------------------------

def test_table_filter_with_an_unknown_key(client, db):
    client.create_table(make_table(db, "t"))
    with raises_hms(MetaException, "Invalid key name in filter"):
        client.get_table_names_by_filter(db, 'owner_name = "x"', -1)


def test_partition_filter_on_a_missing_table(client, db, hive):
    """A missing database is a missing table (Hive 4 qualifies the name with the catalog and
    lowercases it; Hive 2.3 quotes it as sent)."""
    with raises_hms(NoSuchObjectException, f"{db}.invtablename table not found"):
        client.get_partitions_by_filter(db, "invtablename", 'ds = "x"', -1)
    named = "invdbname.invtablename" if hive >= 4 else "invDBName.invTableName"
    with raises_hms(NoSuchObjectException, f"{named} table not found"):
        client.get_partitions_by_filter("invDBName", "invTableName", 'ds = "x"', -1)


# --- partitions whose columns are unset ------------------------------------------------------

def test_a_partition_added_without_columns_reads_back_without_them(client, db, hive):
    """The Java HMS keeps a partition's `sd.cols` unset when the client leaves it unset (no
    column descriptor), and an empty list as an empty list, through every read: by values,
    by names, listings (hivestore's fast paths among them) and after an alter. Hive 2.3 fails
    an alter from or to unset columns with a NullPointerException; hivestore takes it."""
    from hive_metastore.ttypes import GetPartitionsByNamesRequest, Partition

    from hms_helpers import storage_descriptor

    keys = [FieldSchema("ds", "string", None)]
    client.create_table(make_table(db, "t", partition_keys=keys))

    def partition(value, columns):
        sd = storage_descriptor()
        sd.cols = columns
        return Partition(values=[value], dbName=db, tableName="t", sd=sd)

    def alter_columns(value, columns):
        altered = client.get_partition(db, "t", [value])
        altered.sd.cols = columns
        client.alter_partition(db, "t", altered)

    client.add_partition(partition("unset", None))
    client.add_partitions([partition("empty", []),
                           partition("some", [FieldSchema("y", "int", None)])])
    alter_columns("some", [FieldSchema("x", "int", None)])

    def columns_by_value(partitions):
        return {p.values[0]: p.sd.cols for p in partitions}

    expected = {"unset": None, "empty": [], "some": [FieldSchema("x", "int", None)]}
    assert client.get_partition(db, "t", ["unset"]).sd.cols is None
    assert client.get_partition_by_name(db, "t", "ds=empty").sd.cols == []
    assert columns_by_value(client.get_partitions(db, "t", -1)) == expected
    assert columns_by_value(client.get_partitions_by_filter(db, "t", 'ds >= "a"', -1)) == expected
    names = ["ds=unset", "ds=empty", "ds=some"]
    assert columns_by_value(client.get_partitions_by_names(db, "t", names)) == expected
    if hive >= 4:
        request = GetPartitionsByNamesRequest(db_name=db, tbl_name="t", names=names)
        found = client.get_partitions_by_names_req(request).partitions
        assert columns_by_value(found) == expected
    # An alter that leaves them unset makes them unset (Hive's alter handler fails with a
    # NullPointerException on it).
    if hive >= 4:
        alter_columns("some", None)
        assert client.get_partition(db, "t", ["some"]).sd.cols is None


def test_a_database_created_without_a_type_is_native(client, db, hive):
    """Hive 4's store answers NATIVE for a database created without a type (2.3 has none)."""
    from hive_metastore.ttypes import DatabaseType

    skip_unless_hive4(hive, "its Database has no type")
    assert client.get_database(db).type == DatabaseType.NATIVE


# ---------------------------------------------------------------- the partition request limit

@pytest.fixture()
def limited_server(tmp_path):
    from conftest import hivestore_binary, start_hivestore, stop_hivestore

    server = start_hivestore(hivestore_binary(), tmp_path, ["--limit-partition-request", "3"])
    yield server
    stop_hivestore(server)


def test_limit_partition_request(limited_server):
    """Hive 4's metastore.limit.partition.request, as its GetPartitionsHandler applies it: a
    call that may fetch more whole partitions than the limit (all of them, or a maximum above
    the limit) and matches more is refused with Hive's MetaException; a filter's matches are
    counted to one past the limit; by names, the names asked count; name listings are free.
    Hive 2.3 checked differently (the requested maximum alone): hivestore's own server."""
    from hive_metastore.ttypes import GetPartitionsByNamesRequest, Partition, PartitionsRequest

    from hms_helpers import storage_descriptor

    def refused(scanned):
        return raises_hms(MetaException, f"Number of partitions scanned (={scanned}) on table "
                          "'t' exceeds limit (=3). This is controlled on the metastore server "
                          "by metastore.limit.partition.request.")

    columns = [FieldSchema("id", "int", None)]
    with connected(limited_server) as client:
        assert client.get_config_value("metastore.limit.partition.request", "") == "3"
        assert client.get_config_value("hive.metastore.limit.partition.request", "") == "3"
        client.create_database(Database(name="lim"))
        client.create_table(make_table("lim", "t", columns=columns,
                                       partition_keys=[FieldSchema("ds", "string", None)]))
        days = [f"2024-01-0{day}" for day in range(1, 6)]
        client.add_partitions([Partition(values=[day], dbName="lim", tableName="t",
                                         sd=storage_descriptor(columns)) for day in days])
        with refused(5):
            client.get_partitions("lim", "t", -1)
        with refused(5):
            client.get_partitions("lim", "t", 10)
        assert len(client.get_partitions("lim", "t", 3)) == 3
        with refused(5):
            client.get_partitions_req(PartitionsRequest(dbName="lim", tblName="t"))
        with refused(5):
            client.get_partitions_ps("lim", "t", [""], -1)
        with refused(4):
            client.get_partitions_by_filter("lim", "t", "ds >= '2024-01-01'", -1)
        assert len(client.get_partitions_by_filter("lim", "t", "ds >= '2024-01-04'", -1)) == 2
        names = [f"ds={day}" for day in days[:4]]
        with refused(4):
            client.get_partitions_by_names("lim", "t", names)
        with refused(4):
            client.get_partitions_by_names_req(
                GetPartitionsByNamesRequest(db_name="lim", tbl_name="t", names=names))
        assert len(client.get_partitions_by_names("lim", "t", names[:3])) == 3
        assert len(client.get_partition_names("lim", "t", -1)) == 5
