"""What a client may send: huge names, values and patterns through the pyiceberg client.

Goal: a client's oversized input costs a short, specific error and changes nothing.
- Errors quote at most 256 bytes of any one input, then its length (`… (8388608 bytes)`), so a
  huge name or filter does not come back as a huge exception.
- Names, parameters and comments have Hive 4's schema widths (values configurable: a 90 MB
  partition parameter is refused, not stored to make every listing of its table 90 MB).
- Patterns and filters compile within bounds named in their errors.

Method: hivestore only (these are hivestore's own bounds; Hive's would fail inside its RDBMS),
each check asserting the exception's type, the field, limit and length it names, the
message's size, and that nothing was stored.
"""

import os

import pytest
from hive_metastore.ttypes import (
    ColumnStatistics,
    ColumnStatisticsData,
    ColumnStatisticsDesc,
    ColumnStatisticsObj,
    Database,
    FieldSchema,
    InvalidObjectException,
    LongColumnStatsData,
    MetaException,
    NoSuchObjectException,
    Partition,
    TableStatsRequest,
)

from hms_helpers import (
    hide_generated_client_frames,
    make_table,
    raises_hms,
    storage_descriptor,
)

DB_PREFIX = "ldb"
HUGE = 8 << 20
# An error message quoting a huge input: its own words, 256 bytes of the input, the length.
MESSAGE_BYTES_MAX = 1024

hide_generated_client_frames()

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("HMS_URI")), reason="hivestore's own input bounds")

KEYS = [FieldSchema("ds", "string", None)]
COLUMNS = [FieldSchema("id", "int", None)]


def new_table(client, db, name="t"):
    client.create_table(make_table(db, name, columns=COLUMNS, partition_keys=KEYS))


def part(db, values, parameters=None, table="t"):
    return Partition(values=list(values), dbName=db, tableName=table,
                     sd=storage_descriptor(COLUMNS), parameters=dict(parameters or {}))


def short_message(error, *fragments):
    message = error.message
    assert len(message.encode()) < MESSAGE_BYTES_MAX, len(message)
    for fragment in fragments:
        assert fragment in message, message
    return message


# ---------------------------------------------------------------- item 9: echoed input

def test_a_huge_name_comes_back_as_a_prefix_and_its_length(client, db):
    name = "n" * HUGE
    with pytest.raises(NoSuchObjectException) as error:
        client.get_database(name)
    message = short_message(error.value, f"… ({HUGE} bytes)")
    assert "n" * 256 in message and "n" * 257 not in message
    with pytest.raises(NoSuchObjectException) as error:
        client.get_table(db, name)
    short_message(error.value, f"… ({HUGE} bytes)")
    with pytest.raises(InvalidObjectException) as error:
        client.create_table(make_table(db, name, columns=COLUMNS))
    short_message(error.value, f"{HUGE} bytes, longer than the 256 bytes allowed")
    assert client.get_all_tables(db) == []


def test_a_long_filter_comes_back_as_a_prefix_and_its_length(client, db):
    """Filters under their own length bound (1 MiB, 64 KiB) but refused for another reason."""
    new_table(client, db)
    value = "v" * 900_000
    with pytest.raises(MetaException) as error:
        client.get_partitions_by_filter(db, "t", f"ds = '{value}' and nokey = 1", -1)
    short_message(error.value, "nokey", "… (900000 bytes)")
    value = "v" * 60_000
    with pytest.raises(MetaException) as error:
        client.get_table_names_by_filter(
            db, f'hive_filter_field_params__k = "{value}" and hive_filter_field_owner__ =', -1)
    short_message(error.value, "… (60000 bytes)")


# ---------------------------------------------------------------- item 10: oversized values

def test_a_90_mb_partition_parameter_is_refused_and_nothing_is_added(client, db):
    new_table(client, db)
    huge = {"k": "v" * (90 << 20)}
    with raises_hms(InvalidObjectException, "partition parameter 'k' is 94371840 bytes",
                    "longer than the 32672 bytes allowed", "max_param_value_bytes"):
        client.add_partition(part(db, ["a"], huge))
    assert client.get_partitions(db, "t", -1) == []
    client.add_partition(part(db, ["a"]))
    with raises_hms(MetaException, "partition parameter 'k' is 94371840 bytes"):
        client.alter_partition(db, "t", part(db, ["a"], huge))
    [stored] = client.get_partitions(db, "t", -1)
    assert "k" not in stored.parameters


def test_names_and_comments_have_hives_widths(client, db):
    with raises_hms(InvalidObjectException,
                    "database name is 129 bytes, longer than the 128 bytes allowed"):
        client.create_database(Database(name="d" * 129))
    with raises_hms(InvalidObjectException, "database description is 4001 bytes"):
        client.create_database(Database(name=db + "_2", description="x" * 4001))
    long_column = [FieldSchema("c" * 768, "int", None)]
    with raises_hms(InvalidObjectException, "column name is 768 bytes",
                    "longer than the 767 bytes allowed"):
        client.create_table(make_table(db, "t1", columns=long_column))
    commented = [FieldSchema("c", "int", "x" * 4001)]
    with raises_hms(InvalidObjectException, "column 'c' comment is 4001 bytes",
                    "longer than the 4000 bytes allowed", "max_comment_bytes"):
        client.create_table(make_table(db, "t2", columns=commented))
    new_table(client, db)
    with raises_hms(InvalidObjectException, "partition value of key 'ds' is 257 bytes",
                    "longer than the 256 bytes allowed"):
        client.add_partition(part(db, ["x" * 257]))
    assert client.get_all_tables(db) == ["t"]
    assert client.get_partitions(db, "t", -1) == []


def test_owners_table_types_and_view_texts_have_hives_widths(client, db):
    with raises_hms(InvalidObjectException,
                    "database owner is 129 bytes, longer than the 128 bytes allowed"):
        client.create_database(Database(name=db + "_2", ownerName="o" * 129))
    owned = make_table(db, "t1")
    owned.owner = "o" * 768
    with raises_hms(InvalidObjectException,
                    "table owner is 768 bytes, longer than the 767 bytes allowed"):
        client.create_table(owned)
    view = make_table(db, "v1")
    view.tableType = "VIRTUAL_VIEW"
    view.viewOriginalText = "select 1"
    view.viewExpandedText = "x" * (1 << 24)
    with raises_hms(InvalidObjectException, "view expanded text is 16777216 bytes",
                    "longer than the 16777215 bytes allowed"):
        client.create_table(view)
    new_table(client, db)
    retyped = client.get_table(db, "t")
    retyped.tableType = "T" * 129
    with raises_hms(MetaException, "table type is 129 bytes"):
        client.alter_table(db, "t", retyped)
    assert client.get_all_tables(db) == ["t"]
    assert client.get_table(db, "t").tableType != "T" * 129
    assert db + "_2" not in client.get_all_databases()


@pytest.fixture()
def small_limits_server(tmp_path):
    from conftest import hivestore_binary, start_hivestore, stop_hivestore

    arguments = ["--max-param-value-bytes", "100", "--max-type-name-bytes", "30",
                 "--max-params-bytes", "1000", "--max-stats-sketch-bytes", "100"]
    server = start_hivestore(hivestore_binary(), tmp_path, arguments)
    yield server
    stop_hivestore(server)


def test_value_limits_are_configurable(small_limits_server):
    from hms_helpers import connected

    with connected(small_limits_server) as client:
        client.create_database(Database(name="small"))
        with raises_hms(InvalidObjectException, "table parameter 'k' is 101 bytes",
                        "longer than the 100 bytes allowed"):
            client.create_table(make_table("small", "t", columns=COLUMNS,
                                           parameters={"k": "x" * 101}))
        wide = [FieldSchema("s", "struct<a:int,b:int,c:int,d:int>", None)]
        with raises_hms(InvalidObjectException, "column 's' type is 31 bytes",
                        "longer than the 30 bytes allowed", "max_type_name_bytes"):
            client.create_table(make_table("small", "t", columns=wide))
        many = {f"k{i}": "x" * 98 for i in range(11)}
        with raises_hms(InvalidObjectException, "table parameters are over 1000 bytes together",
                        "max_params_bytes"):
            client.create_table(make_table("small", "t", columns=COLUMNS, parameters=many))
        client.create_table(make_table("small", "t", columns=COLUMNS,
                                       parameters={"k": "x" * 100}))
        assert client.get_table("small", "t").parameters["k"] == "x" * 100

        def statistics(bit_vectors):
            data = LongColumnStatsData(lowValue=1, highValue=9, numNulls=0, numDVs=5,
                                       bitVectors=bit_vectors)
            desc = ColumnStatisticsDesc(isTblLevel=True, dbName="small", tableName="t")
            column = ColumnStatisticsObj("id", "int", ColumnStatisticsData(longStats=data))
            return ColumnStatistics(statsDesc=desc, statsObj=[column], engine="hive")

        with raises_hms(InvalidObjectException, "column 'id' statistics bit vector is 101 bytes",
                        "longer than the 100 bytes allowed", "max_stats_sketch_bytes"):
            client.update_table_column_statistics(statistics(b"x" * 101))
        request = TableStatsRequest(dbName="small", tblName="t", colNames=["id"], engine="hive")
        assert client.get_table_statistics_req(request).tableStats == []
        client.update_table_column_statistics(statistics(b"x" * 100))
        # Sketches are not read back by default (Hive's metastore.stats.fetch.bitvector).
        stored = client.get_table_statistics_req(request).tableStats
        assert [s.statsData.longStats.numDVs for s in stored] == [5]


# ---------------------------------------------------------------- item 8: patterns

def test_costly_patterns_are_refused_naming_the_bound(client, db):
    new_table(client, db)
    client.add_partition(part(db, ["a"]))
    with raises_hms(MetaException, "LIKE pattern '(a{1,100}){1,100}b'",
                    "more than the 100 times allowed"):
        client.get_partitions_by_filter(db, "t", "ds like '(a{1,100}){1,100}b'", -1)
    with raises_hms(MetaException, "LIKE pattern of 5000 bytes",
                    "longer than the 4096 bytes allowed"):
        client.get_partitions_by_filter(db, "t", "ds like '" + "a" * 5000 + "'", -1)
    with raises_hms(MetaException, "name pattern of 1048576 bytes",
                    "longer than the 4096 bytes allowed"):
        client.get_databases("a" * (1 << 20))
    likes = " or ".join(["ds like 'a%'"] * 65)
    with raises_hms(MetaException, "more than the 64 LIKE comparisons allowed"):
        client.get_partitions_by_filter(db, "t", likes, -1)
    [found] = client.get_partitions_by_filter(db, "t", "ds like '(a{1,10}){1,10}'", -1)
    assert found.values == ["a"]
