"""Column statistics through the pyiceberg-vendored client (Hive 4 IDL).

Goal: every column-statistics call of the HMS — update_table_column_statistics,
update_partition_column_statistics, their Hive 4 `_req` forms, set_aggr_stats_for (with
needMerge), get_table_column_statistics, get_partition_column_statistics,
get_table_statistics_req, get_partitions_statistics_req, get_aggr_stats_for,
delete_table_column_statistics, delete_partition_column_statistics — behaves as Apache's HMS:
the same statistics back for every ColumnStatisticsData kind, COLUMN_STATS_ACCURATE maintained,
the aggregates Hive computes (including its linear extrapolation when some partitions lack
statistics), statistics following renames and drops, and the declared exceptions with Hive's
message texts.

Method: each expectation was first observed against the Java reference HMS (Hive 2.3.10, run with
scripts/compare-with-reference.sh). Where Hive 2.3 lacks a call or a field (the `_req` forms,
`engine`, timestamp statistics, histograms) the test skips there or checks it on hivestore only.
Each scenario uses a fresh table: Hive 2.3's aggregate-statistics cache answers later
aggregations of the same table and column from earlier ones.

Deliberate differences from Hive 2.3 (each test says so): reading one column without statistics
is NoSuchObjectException (2.3 sends a reply with no result, which its client reports as
MISSING_RESULT); decimal bounds aggregate exactly (2.3 on Derby casts them to DECIMAL(5,0));
needMerge keeps only columns marked accurate, and deletes unmark their columns in
COLUMN_STATS_ACCURATE, as Hive 3/4 do.
"""

import json
import os
import time

import pytest
from thrift.Thrift import TApplicationException
from hive_metastore.ttypes import (
    BinaryColumnStatsData,
    BooleanColumnStatsData,
    ColumnStatistics,
    ColumnStatisticsData,
    ColumnStatisticsDesc,
    ColumnStatisticsObj,
    CreationMetadata,
    Database,
    Date,
    DateColumnStatsData,
    Decimal,
    DecimalColumnStatsData,
    DoubleColumnStatsData,
    EnvironmentContext,
    FieldSchema,
    GetTableRequest,
    InvalidInputException,
    InvalidOperationException,
    LongColumnStatsData,
    MetaException,
    NoSuchObjectException,
    Partition,
    PartitionsStatsRequest,
    SetPartitionsStatsRequest,
    SourceTable,
    StringColumnStatsData,
    TableStatsRequest,
    Timestamp,
    TimestampColumnStatsData,
    UpdateTransactionalStatsRequest,
)

from hms_helpers import (
    call_or_skip_on_reference,
    hide_generated_client_frames,
    make_table,
    open_client,
    raises_hms,
    storage_descriptor,
)

# Databases the shared `db` fixture makes are named `sdb_<unique>`.
DB_PREFIX = "sdb"

hide_generated_client_frames()

# Seconds of slack between the test's clock and the server's.
CLOCK_SLACK_S = 5
COLUMNS = [
    FieldSchema("id", "int", None),
    FieldSchema("name", "string", None),
    FieldSchema("amount", "double", None),
    FieldSchema("dec", "decimal(10,2)", None),
    FieldSchema("flag", "boolean", None),
    FieldSchema("dt", "date", None),
    FieldSchema("payload", "binary", None),
    FieldSchema("ts", "timestamp", None),
]
KEYS = [FieldSchema("ds", "string", None)]


# ---------------------------------------------------------------- fixtures and helpers

def new_table(client, db, name, partitions=0):
    """`db.name` with COLUMNS; partitioned by ds with partitions ds=00, ds=01, ... if asked."""
    client.create_table(make_table(db, name, columns=COLUMNS,
                                   partition_keys=KEYS if partitions else []))
    if partitions:
        client.add_partitions([Partition(values=["%02d" % index], dbName=db, tableName=name,
                                         sd=storage_descriptor(COLUMNS), parameters={})
                               for index in range(partitions)])
    return ["ds=%02d" % index for index in range(partitions)]


def obj(name, type_name, **data):
    return ColumnStatisticsObj(name, type_name, ColumnStatisticsData(**data))


def long_obj(low, high, nulls, ndv, name="id", bit_vectors=None):
    return obj(name, "int", longStats=LongColumnStatsData(
        lowValue=low, highValue=high, numNulls=nulls, numDVs=ndv, bitVectors=bit_vectors))


def double_obj(low, high, nulls, ndv):
    return obj("amount", "double", doubleStats=DoubleColumnStatsData(
        lowValue=low, highValue=high, numNulls=nulls, numDVs=ndv))


def string_obj(max_len, avg_len, nulls, ndv):
    return obj("name", "string", stringStats=StringColumnStatsData(max_len, avg_len, nulls, ndv))


def bool_obj(trues, falses, nulls):
    return obj("flag", "boolean", booleanStats=BooleanColumnStatsData(trues, falses, nulls))


def binary_obj(max_len, avg_len, nulls):
    return obj("payload", "binary", binaryStats=BinaryColumnStatsData(max_len, avg_len, nulls))


def dec(unscaled, scale):
    """A Decimal as Java's BigDecimal writes it: shortest two's complement."""
    length = max(1, (unscaled.bit_length() + 8) // 8)
    return Decimal(scale=scale, unscaled=unscaled.to_bytes(length, "big", signed=True))


def dec_value(decimal):
    unscaled = int.from_bytes(decimal.unscaled, "big", signed=True)
    return unscaled / 10 ** decimal.scale


def decimal_obj(low, high, nulls, ndv):
    return obj("dec", "decimal(10,2)", decimalStats=DecimalColumnStatsData(
        lowValue=low, highValue=high, numNulls=nulls, numDVs=ndv))


def date_obj(low, high, nulls, ndv):
    return obj("dt", "date", dateStats=DateColumnStatsData(
        lowValue=Date(low), highValue=Date(high), numNulls=nulls, numDVs=ndv))


def timestamp_obj(low, high, nulls, ndv):
    return obj("ts", "timestamp", timestampStats=TimestampColumnStatsData(
        lowValue=Timestamp(low), highValue=Timestamp(high), numNulls=nulls, numDVs=ndv))


def stats(db, table, objects, part_name=None):
    desc = ColumnStatisticsDesc(isTblLevel=part_name is None, dbName=db, tableName=table,
                                partName=part_name, lastAnalyzed=1)
    return ColumnStatistics(desc, list(objects))


def every_kind(hive):
    """One object per kind; timestamps only where the server has them (Hive 4)."""
    objects = [long_obj(1, 10, 0, 5),
               double_obj(-0.5, 2.5, 1, 7), string_obj(10, 2.5, 1, 3), bool_obj(3, 4, 1),
               binary_obj(100, 7.5, 2), decimal_obj(dec(-250, 2), dec(1000, 2), 0, 4),
               date_obj(100, 110, 0, 11)]
    if hive >= 4:
        objects.append(timestamp_obj(1_700_000_000, 1_700_086_400, 3, 9))
    return objects


def accurate_columns(parameters):
    value = parameters.get("COLUMN_STATS_ACCURATE")
    if value is None:
        return set()
    return set(json.loads(value).get("COLUMN_STATS", {}))


def by_name(objects):
    return {o.colName: o for o in objects}


def aggregate(client, db, table, columns, names):
    return client.get_aggr_stats_for(PartitionsStatsRequest(db, table, columns, names))


# ---------------------------------------------------------------- table level

def test_table_statistics_of_every_kind_round_trip(client, db, hive):
    """What update_table_column_statistics writes reads back by get_table_column_statistics
    and get_table_statistics_req, column names and types lowercased, bitVectors kept, the
    columns marked in COLUMN_STATS_ACCURATE, lastAnalyzed the server's time."""
    new_table(client, db, "t")
    written = every_kind(hive)
    shouted = [ColumnStatisticsObj(o.colName.upper(), o.colType.upper(), o.statsData)
               for o in written]
    before_s = time.time()
    assert client.update_table_column_statistics(stats(db, "T", shouted)) is True
    for expected in written:
        got = client.get_table_column_statistics(db, "t", expected.colName.upper())
        assert got.statsObj == [expected]
        assert got.statsDesc.isTblLevel is True
        assert (got.statsDesc.dbName, got.statsDesc.tableName) == (db, "t")
        assert before_s - CLOCK_SLACK_S <= got.statsDesc.lastAnalyzed <= time.time() + CLOCK_SLACK_S
    names = [o.colName for o in written]
    result = client.get_table_statistics_req(TableStatsRequest(db, "t", names))
    assert by_name(result.tableStats) == by_name(written)
    assert accurate_columns(client.get_table(db, "t").parameters) == set(names)
    # Overwrite: the new values replace the old ones field by field.
    client.update_table_column_statistics(stats(db, "t", [long_obj(-3, 3, 9, 2)]))
    assert client.get_table_column_statistics(db, "t", "id").statsObj == [long_obj(-3, 3, 9, 2)]


def test_table_statistics_errors(client, db, server):
    """Hive's exceptions: a missing database or table is NoSuchObjectException; writing a
    column the table lacks (partition keys included) is MetaException."""
    new_table(client, db, "t")
    new_table(client, db, "p", partitions=1)
    with raises_hms(NoSuchObjectException, f"Specified database/table does not exist : {db}.nope"):
        client.update_table_column_statistics(stats(db, "nope", [long_obj(1, 2, 0, 1)]))
    with raises_hms(NoSuchObjectException, "Specified database/table does not exist : nodb_x.t"):
        client.update_table_column_statistics(stats("nodb_x", "t", [long_obj(1, 2, 0, 1)]))
    with raises_hms(MetaException, f"Column zzz doesn't exist in table t in database {db}"):
        client.update_table_column_statistics(stats(db, "t", [long_obj(1, 2, 0, 1, name="zzz")]))
    with raises_hms(MetaException, f"Column ds doesn't exist in table p in database {db}"):
        client.update_table_column_statistics(stats(db, "p", [long_obj(1, 2, 0, 1, name="ds")]))
    client.update_table_column_statistics(stats(db, "t", [long_obj(1, 2, 0, 1)]))
    with raises_hms(NoSuchObjectException, f"Specified database/table does not exist : {db}.nope"):
        client.get_table_statistics_req(TableStatsRequest(db, "nope", ["id"]))
    with raises_hms(NoSuchObjectException, f"Specified database/table does not exist : {db}.nope"):
        client.get_table_column_statistics(db, "nope", "id")
    # Columns without statistics, or that the table lacks, are left out of a request's answer.
    result = client.get_table_statistics_req(TableStatsRequest(db, "t", ["id", "flag", "zzz"]))
    assert [o.colName for o in result.tableStats] == ["id"]
    assert client.get_table_statistics_req(TableStatsRequest(db, "t", [])).tableStats == []
    # One column without statistics: Hive 2.3 replies with no result (MISSING_RESULT on the
    # client); hivestore answers the declared NoSuchObjectException.
    if server.external:
        with pytest.raises(TApplicationException):
            client.get_table_column_statistics(db, "t", "flag")
    else:
        with raises_hms(NoSuchObjectException, f"Column stats doesn't exist for db={db} table=t col=flag"):
            client.get_table_column_statistics(db, "t", "flag")


def test_an_empty_statistics_list_writes_nothing(client, db, server):
    """Hive 2.3 fails internally on an empty list (an NPE); hivestore takes it as a no-op."""
    new_table(client, db, "t")
    if server.external:
        pytest.skip("Hive 2.3 answers an internal error here")
    assert client.update_table_column_statistics(stats(db, "t", [])) is True
    assert "COLUMN_STATS_ACCURATE" not in client.get_table(db, "t").parameters


# ---------------------------------------------------------------- partition level

def test_sketches_are_stored_but_not_returned_by_reads(client, db):
    """bitVectors are kept (for aggregation) but reads leave them out, as Hive does with its
    default metastore.stats.fetch.bitvector=false."""
    names = new_table(client, db, "p", partitions=1)
    sketch = b"FM\x01\x00\x00\x00\x00\x00"
    client.update_table_column_statistics(stats(db, "p", [long_obj(1, 10, 0, 5, bit_vectors=sketch)]))
    client.update_partition_column_statistics(
        stats(db, "p", [long_obj(1, 10, 0, 5, bit_vectors=sketch)], names[0]))
    assert client.get_table_column_statistics(db, "p", "id").statsObj == [long_obj(1, 10, 0, 5)]
    result = client.get_partitions_statistics_req(PartitionsStatsRequest(db, "p", ["id"], names))
    assert result.partStats == {names[0]: [long_obj(1, 10, 0, 5)]}


def test_partition_statistics_round_trip(client, db, hive):
    """update_partition_column_statistics per partition; get_partition_column_statistics and
    get_partitions_statistics_req read them back (keys of partition names lowercased, names
    without statistics or partition left out); each partition's COLUMN_STATS_ACCURATE marks the
    columns written."""
    names = new_table(client, db, "p", partitions=3)
    written = every_kind(hive)
    for name in names[:2]:
        assert client.update_partition_column_statistics(stats(db, "p", written, name)) is True
    got = client.get_partition_column_statistics(db, "p", "ds=01", "ID")
    assert got.statsObj == [written[0]]
    assert (got.statsDesc.isTblLevel, got.statsDesc.partName) == (False, "ds=01")
    columns = [o.colName for o in written]
    request = PartitionsStatsRequest(db, "p", [c.upper() for c in columns],
                                     ["DS=00", "ds=01", "ds=02", "ds=99"])
    result = client.get_partitions_statistics_req(request)
    assert sorted(result.partStats) == ["ds=00", "ds=01"]
    for name in ("ds=00", "ds=01"):
        assert by_name(result.partStats[name]) == by_name(written)
    assert accurate_columns(client.get_partition(db, "p", ["00"]).parameters) == set(columns)
    assert accurate_columns(client.get_partition(db, "p", ["02"]).parameters) == set()


@pytest.mark.parametrize("transport,protocol", [("buffered", "binary"), ("buffered", "compact"),
                                                ("framed", "compact")])
def test_partition_statistics_read_over_each_protocol(client, db, server, hive, transport,
                                                      protocol):
    """get_partitions_statistics_req of several partitions, each with statistics of several
    kinds (a name repeated, one without statistics), answers the same in binary and compact
    protocols: hivestore writes this reply without the generated code."""
    if not server.supports(transport, protocol):
        pytest.skip(f"{server.uri} is not configured for {transport} {protocol} (HMS_COMBOS)")
    names = new_table(client, db, "p", partitions=4)
    written = every_kind(hive)
    for index, name in enumerate(names[:3]):
        client.update_partition_column_statistics(stats(db, "p", written[index:], name))
    columns = [o.colName for o in written]
    reader, transport_ = open_client(server, transport, protocol)
    try:
        result = reader.get_partitions_statistics_req(
            PartitionsStatsRequest(db, "p", columns, names + [names[1]]))
    finally:
        transport_.close()
    assert sorted(result.partStats) == names[:3]
    for index, name in enumerate(names[:3]):
        assert by_name(result.partStats[name]) == by_name(written[index:])


def test_partition_statistics_errors(client, db, server):
    names = new_table(client, db, "p", partitions=1)
    new_table(client, db, "t")
    objects = [long_obj(1, 2, 0, 1)]
    with raises_hms(NoSuchObjectException, "Partition for which stats is gathered doesn't exist."):
        client.update_partition_column_statistics(stats(db, "p", objects, "ds=zz"))
    with raises_hms(MetaException, "Partition name is invalid."):
        client.update_partition_column_statistics(stats(db, "p", objects, "garbage"))
    with raises_hms(MetaException, "Partition name is invalid. null"):
        client.update_partition_column_statistics(stats(db, "p", objects, None))
    with raises_hms(MetaException, "Invalid partition key & values; keys [], values []"):
        client.update_partition_column_statistics(stats(db, "t", objects, "ds=00"))
    with raises_hms(NoSuchObjectException, f"Specified database/table does not exist : {db}.nope"):
        client.get_partitions_statistics_req(PartitionsStatsRequest(db, "nope", ["id"], names))
    if server.external:
        with pytest.raises(TApplicationException):
            client.get_partition_column_statistics(db, "p", "ds=00", "id")
    else:
        with raises_hms(NoSuchObjectException, "Column stats doesn't exist for"):
            client.get_partition_column_statistics(db, "p", "ds=00", "id")


# ---------------------------------------------------------------- set_aggr_stats_for

def test_set_aggr_stats_for(client, db, server):
    """An empty request is true; table level takes exactly one object; a batch of partitions is
    written at once, and (on hivestore, where it is one atomic write) not at all when one
    partition is missing."""
    names = new_table(client, db, "p", partitions=2)
    new_table(client, db, "t")
    assert client.set_aggr_stats_for(SetPartitionsStatsRequest([])) is True
    two = [stats(db, "t", [long_obj(1, 2, 0, 1)]), stats(db, "t", [long_obj(1, 2, 0, 1)])]
    with raises_hms(MetaException,
                    "Expecting only 1 ColumnStatistics for table's column stats, but find 2"):
        client.set_aggr_stats_for(SetPartitionsStatsRequest(two))
    assert client.set_aggr_stats_for(SetPartitionsStatsRequest(two[:1])) is True
    assert client.get_table_column_statistics(db, "t", "id").statsObj == [long_obj(1, 2, 0, 1)]
    batch = [stats(db, "p", [long_obj(-5, 3, 2, 5)], names[1]),
             stats(db, "p", [long_obj(0, 30, 0, 5)], names[0])]
    assert client.set_aggr_stats_for(SetPartitionsStatsRequest(batch)) is True
    result = client.get_partitions_statistics_req(PartitionsStatsRequest(db, "p", ["id"], names))
    assert result.partStats == {names[0]: [long_obj(0, 30, 0, 5)], names[1]: [long_obj(-5, 3, 2, 5)]}
    bad = [stats(db, "p", [long_obj(7, 7, 7, 1)], names[0]), stats(db, "p", [long_obj(7, 7, 7, 1)], "ds=zz")]
    with raises_hms(NoSuchObjectException, "Partition for which stats is gathered doesn't exist."):
        client.set_aggr_stats_for(SetPartitionsStatsRequest(bad))
    if not server.external:
        after = client.get_partitions_statistics_req(PartitionsStatsRequest(db, "p", ["id"], names))
        assert after.partStats[names[0]] == [long_obj(0, 30, 0, 5)]


def test_need_merge_merges_with_stored_statistics(client, db, hive):
    """needMerge: least low, greatest high, summed nulls, greatest NDV. A column not marked
    accurate in the partition is written anyway by Hive 2.3, left out by Hive 3/4 and
    hivestore (MetaStoreServerUtils.getMergableCols)."""
    names = new_table(client, db, "p", partitions=1)
    client.set_aggr_stats_for(SetPartitionsStatsRequest([stats(db, "p", [long_obj(-5, 3, 2, 5)], names[0])]))
    merged = [long_obj(-50, 1, 7, 100), string_obj(10, 2.5, 1, 3)]
    request = SetPartitionsStatsRequest([stats(db, "p", merged, names[0])], needMerge=True)
    assert client.set_aggr_stats_for(request) is True
    result = client.get_partitions_statistics_req(PartitionsStatsRequest(db, "p", ["id", "name"], names))
    got = by_name(result.partStats[names[0]])
    assert got["id"] == long_obj(-50, 3, 9, 100)
    if hive >= 4:
        assert "name" not in got
    else:
        assert got["name"] == string_obj(10, 2.5, 1, 3)


def test_statistics_of_transactional_tables_follow_the_write_snapshot(client, db, server):
    """Hive 4 (hive.txn.stats.enabled): statistics of a transactional table carry the write id
    of their write. A write that would change an accurate state must bring its writeId and
    validWriteIdList; reads given a validWriteIdList answer nothing for statistics whose write
    the snapshot cannot see (get_aggr_stats_for nothing at all). Hive 2.3 has none of it."""
    if server.external:
        pytest.skip("Hive 2.3 keeps no write ids with statistics")
    acid = {"transactional": "true", "transactional_properties": "insert_only"}
    accurate = {"COLUMN_STATS_ACCURATE": '{"BASIC_STATS":"true"}'}
    client.create_table(make_table(db, "acid", columns=COLUMNS, partition_keys=KEYS,
                                   parameters=acid))
    client.add_partitions([Partition(values=[value], dbName=db, tableName="acid",
                                     sd=storage_descriptor(COLUMNS), parameters=dict(accurate))
                           for value in ("00", "01")])
    names = ["ds=00", "ds=01"]

    def write(name, write_id=None, snapshot=None):
        request = SetPartitionsStatsRequest([stats(db, "acid", [long_obj(1, 9, 0, 3)], name)],
                                            writeId=write_id, validWriteIdList=snapshot)
        return client.update_partition_column_statistics_req(request)

    with raises_hms(MetaException, "Cannot change stats state for a transactional table "
                                   "%s.acid without providing the transactional write state" % db):
        write("ds=00")
    assert client.get_partitions_statistics_req(
        PartitionsStatsRequest(db, "acid", ["id"], names)).partStats == {}
    sees_write_1 = "%s.acid:1:9223372036854775807::" % db
    write_1_open = "%s.acid:1:1:1:" % db
    assert write("ds=00", 1, sees_write_1).result is True
    assert write("ds=01", 1, sees_write_1).result is True
    assert client.get_partition(db, "acid", ["00"]).writeId == 1

    def read(snapshot):
        request = PartitionsStatsRequest(db, "acid", ["id"], names, validWriteIdList=snapshot)
        return sorted(client.get_partitions_statistics_req(request).partStats)

    assert read(None) == names and read(sees_write_1) == names and read(write_1_open) == []
    aggregate_request = PartitionsStatsRequest(db, "acid", ["id"], names,
                                               validWriteIdList=write_1_open)
    hidden = client.get_aggr_stats_for(aggregate_request)
    assert (hidden.colStats, hidden.partsFound) == ([], 0)
    aggregate_request.validWriteIdList = sees_write_1
    assert client.get_aggr_stats_for(aggregate_request).partsFound == 2

    # Table level: the same check against the table's own write id.
    client.create_table(make_table(db, "acid_t", columns=COLUMNS,
                                   parameters=dict(acid, **accurate)))
    table_request = SetPartitionsStatsRequest([stats(db, "acid_t", [long_obj(1, 9, 0, 3)])],
                                              writeId=3, validWriteIdList="%s.acid_t:3:9223372036854775807::" % db)
    assert client.update_table_column_statistics_req(table_request).result is True
    assert client.get_table(db, "acid_t").writeId == 3

    def read_table(snapshot):
        request = TableStatsRequest(db, "acid_t", ["id"], validWriteIdList=snapshot)
        return client.get_table_statistics_req(request).tableStats

    assert read_table("%s.acid_t:3:9223372036854775807::" % db) == [long_obj(1, 9, 0, 3)]
    assert read_table("%s.acid_t:2:9223372036854775807::" % db) == []
    # get_table_req of an unpartitioned transactional table says whether the reader sees its
    # statistics, and hides their accurate state from one that does not.
    def get_table(snapshot):
        return client.get_table_req(GetTableRequest(dbName=db, tblName="acid_t",
                                                    validWriteIdList=snapshot))
    seen = get_table("%s.acid_t:3:9223372036854775807::" % db)
    assert seen.isStatsCompliant is True and "COLUMN_STATS_ACCURATE" in seen.table.parameters
    unseen = get_table("%s.acid_t:3:3:3:" % db)
    assert unseen.isStatsCompliant is False
    assert "COLUMN_STATS_ACCURATE" not in unseen.table.parameters
    assert get_table(None).isStatsCompliant is None
    with raises_hms(InvalidInputException, "is malformed"):
        write("ds=00", 2, "no snapshot")


# ---------------------------------------------------------------- Hive 4 request forms, engines

def test_update_req_forms(client, db, server):
    """update_table/partition_column_statistics_req (Hive 4): one object, no merge."""
    names = new_table(client, db, "p", partitions=1)
    new_table(client, db, "t")
    request = SetPartitionsStatsRequest([stats(db, "t", [long_obj(1, 9, 0, 3)])])
    response = call_or_skip_on_reference(server, client.update_table_column_statistics_req, request)
    assert response.result is True
    assert client.get_table_column_statistics(db, "t", "id").statsObj == [long_obj(1, 9, 0, 3)]
    request = SetPartitionsStatsRequest([stats(db, "p", [long_obj(2, 8, 1, 3)], names[0])])
    assert client.update_partition_column_statistics_req(request).result is True
    assert client.get_partition_column_statistics(db, "p", names[0], "id").statsObj == [long_obj(2, 8, 1, 3)]
    with raises_hms(InvalidInputException, "Only one stats object expected"):
        client.update_table_column_statistics_req(SetPartitionsStatsRequest([]))
    with raises_hms(InvalidInputException, "Merge is not supported for non-aggregate stats"):
        client.update_partition_column_statistics_req(SetPartitionsStatsRequest(
            [stats(db, "p", [long_obj(2, 8, 1, 3)], names[0])], needMerge=True))


def test_statistics_are_kept_per_engine(client, db, server):
    """Hive 4 keeps statistics per engine; an absent engine means `hive`."""
    if server.external:
        pytest.skip("Hive 2.3 has no engines")
    names = new_table(client, db, "p", partitions=1)
    impala = SetPartitionsStatsRequest([stats(db, "p", [long_obj(0, 1, 0, 2)], names[0])],
                                       engine="impala")
    client.update_partition_column_statistics_req(impala)
    def read(engine):
        request = PartitionsStatsRequest(db, "p", ["id"], names, engine=engine)
        return client.get_partitions_statistics_req(request).partStats
    assert read("impala") == {names[0]: [long_obj(0, 1, 0, 2)]}
    assert read("hive") == {}
    assert client.get_aggr_stats_for(PartitionsStatsRequest(db, "p", ["id"], names)).partsFound == 0
    assert client.delete_partition_column_statistics(db, "p", names[0], "id", "impala") is True
    assert read("impala") == {}


# ---------------------------------------------------------------- get_aggr_stats_for

def test_aggregate_over_partitions_that_all_have_statistics(client, db, server, hive):
    """Observed on Hive 2.3: least low, greatest high, summed nulls/trues/falses, greatest
    lengths, the greatest avgColLen (not a weighted mean), the greatest NDV (for integral kinds
    at most high - low + 1); partsFound counts partitions with every column."""
    names = new_table(client, db, "a", partitions=3)
    rows = [
        [long_obj(1, 10, 1, 5), double_obj(0.5, 2.5, 0, 7), string_obj(10, 2.0, 1, 3),
         bool_obj(3, 4, 1), decimal_obj(dec(150, 2), dec(1000, 2), 0, 4), date_obj(100, 110, 0, 50),
         binary_obj(5, 1.5, 0)],
        [long_obj(-4, 6, 2, 8), double_obj(-1.5, 1.0, 3, 2), string_obj(4, 3.5, 0, 9),
         bool_obj(1, 1, 0), decimal_obj(dec(-250, 2), dec(10, 1), 1, 2), date_obj(90, 95, 1, 3),
         binary_obj(9, 0.5, 1)],
        [long_obj(3, 300, 0, 100), double_obj(1.0, 9.0, 1, 1), string_obj(7, 1.0, 2, 1),
         bool_obj(0, 2, 5), decimal_obj(dec(5, 0), dec(7, 0), 0, 1), date_obj(50, 60, 0, 5),
         binary_obj(2, 4.0, 3)],
    ]
    client.set_aggr_stats_for(SetPartitionsStatsRequest(
        [stats(db, "a", row, name) for row, name in zip(rows, names)]))
    columns = ["id", "amount", "name", "flag", "dec", "dt", "payload"]
    result = aggregate(client, db, "a", columns, names)
    assert result.partsFound == 3
    got = by_name(result.colStats)
    assert got["id"] == long_obj(-4, 300, 3, 100)
    assert got["amount"] == double_obj(-1.5, 9.0, 4, 7)
    assert got["name"] == string_obj(10, 3.5, 3, 9)
    assert got["flag"] == bool_obj(4, 7, 6)
    assert got["dt"] == date_obj(50, 110, 1, 50)
    assert got["payload"] == binary_obj(9, 4.0, 4)
    decimals = got["dec"].statsData.decimalStats
    assert (decimals.numNulls, decimals.numDVs) == (1, 4)
    if server.external:
        # Derby casts the stored decimal text to DECIMAL(5,0): -2.50 becomes -2.
        assert (dec_value(decimals.lowValue), dec_value(decimals.highValue)) == (-2, 10)
    else:
        assert (decimals.lowValue, decimals.highValue) == (dec(-250, 2), dec(1000, 2))
    assert aggregate(client, db, "a", [], names).colStats == []
    assert aggregate(client, db, "a", ["id"], []).partsFound == 0


def sparse_hll(keys):
    """A sparse HyperLogLog of precision 10 in Hive's bytes (HyperLogLogUtils): magic, p << 4,
    the estimate and entry count as varints, then `key << 6 | run` entries, the first whole and
    the rest as deltas. Keys under 16 are in Java HashMap order already."""
    def varint(value):
        out = bytearray()
        while value >= 0x80:
            out.append(0x80 | (value & 0x7F))
            value >>= 7
        out.append(value)
        return bytes(out)
    entries = [key << 6 | 1 for key in keys]
    body = varint(entries[0]) + b"".join(varint(b - a) for a, b in zip(entries, entries[1:]))
    return b"HLL" + bytes([10 << 4]) + varint(len(keys)) + varint(len(keys)) + body


def test_aggregate_merges_hll_sketches(client, db, server):
    """When every partition has an HLL sketch, the NDV is that of their union, merged as Hive's
    aggregators merge them (with metastore.stats.fetch.bitvector): keys {1,2,3}, {3,4}, {5}
    make 5, where the greatest NDV would be 3. One partition without a sketch: the greatest."""
    if server.external:
        pytest.skip("Hive 2.3's metastore merges no HLL sketches")
    names = new_table(client, db, "h", partitions=4)
    key_sets = [[1, 2, 3], [3, 4], [5], [6]]
    for name, keys in zip(names, key_sets):
        sketch = sparse_hll(keys) if name != names[3] else None
        client.update_partition_column_statistics(
            stats(db, "h", [long_obj(0, 100, 0, len(keys), bit_vectors=sketch)], name))
    assert by_name(aggregate(client, db, "h", ["id"], names[:3]).colStats)["id"] == \
        long_obj(0, 100, 0, 5)
    assert by_name(aggregate(client, db, "h", ["id"], names).colStats)["id"] == \
        long_obj(0, 100, 0, 3)


def test_need_merge_merges_hll_sketches(client, db, server):
    """needMerge of two HLL sketches (Hive 3+'s mergers): the stored sketch becomes the union
    of both, whose estimate is the NDV ({1,2,3} and {3,4,5,6} make 6, where the greater NDV
    would be 4); aggregation then reads the merged sketch. A write without a sketch keeps the
    stored one, its NDV the greater of the written NDV and the sketch's estimate."""
    if server.external:
        pytest.skip("Hive 2.3's metastore merges no HLL sketches")
    names = new_table(client, db, "h", partitions=2)

    def write(name, keys, ndv, need_merge):
        sketch = sparse_hll(keys) if keys else None
        objects = [long_obj(0, 10, 0, ndv, bit_vectors=sketch)]
        client.set_aggr_stats_for(
            SetPartitionsStatsRequest([stats(db, "h", objects, name)], needMerge=need_merge))

    def ndv(name):
        request = PartitionsStatsRequest(db, "h", ["id"], [name])
        [got] = client.get_partitions_statistics_req(request).partStats[name]
        return got.statsData.longStats.numDVs

    write(names[0], [1, 2, 3], 3, False)
    write(names[0], [3, 4, 5, 6], 4, True)
    assert ndv(names[0]) == 6
    write(names[1], [7], 1, False)
    assert by_name(aggregate(client, db, "h", ["id"], names).colStats)["id"] == \
        long_obj(0, 10, 0, 7)
    write(names[1], None, 2, True)
    assert ndv(names[1]) == 2
    assert by_name(aggregate(client, db, "h", ["id"], names).colStats)["id"] == \
        long_obj(0, 10, 0, 7)


def test_aggregate_counts_partitions_with_every_column(client, db):
    """partsFound: requested partitions that have statistics for all requested columns;
    columns with statistics nowhere are left out; missing partitions count as without."""
    names = new_table(client, db, "p", partitions=2)
    client.update_partition_column_statistics(stats(db, "p", [long_obj(1, 10, 0, 5)], names[0]))
    client.update_partition_column_statistics(stats(db, "p", [double_obj(1.0, 2.0, 0, 2)], names[1]))
    result = aggregate(client, db, "p", ["id", "amount", "name"], names + ["ds=99"])
    assert result.partsFound == 0
    assert sorted(o.colName for o in result.colStats) == ["amount", "id"]
    assert by_name(result.colStats)["id"] == long_obj(1, 10, 0, 5)
    with raises_hms(NoSuchObjectException, f"Specified database/table does not exist : {db}.nope"):
        aggregate(client, db, "nope", ["id"], names)


def test_aggregate_extrapolates_when_some_partitions_lack_statistics(client, db, server, hive):
    """Hive's linear extrapolation, observed on Hive 2.3: six partitions requested, statistics on
    positions 1 and 3. Sums scale by requested/found after an integer division; lows, highs,
    NDV and lengths extend linearly to the borders of the request."""
    names = new_table(client, db, "b", partitions=6)
    client.set_aggr_stats_for(SetPartitionsStatsRequest([
        stats(db, "b", [long_obj(10, 15, 3, 1000), double_obj(1.0, 2.0, 3, 10),
                        string_obj(10, 2.0, 3, 5), bool_obj(3, 5, 3),
                        decimal_obj(dec(100, 2), dec(200, 2), 1, 5), date_obj(10, 20, 1, 4)], names[1]),
        stats(db, "b", [long_obj(30, 35, 4, 1000), double_obj(5.0, 9.0, 4, 20),
                        string_obj(20, 4.0, 4, 8), bool_obj(4, 6, 4),
                        decimal_obj(dec(300, 2), dec(500, 2), 2, 7), date_obj(30, 40, 2, 6)], names[3]),
    ]))
    result = aggregate(client, db, "b", ["id", "amount", "name", "flag", "dec", "dt"], names)
    assert result.partsFound == 2
    got = by_name(result.colStats)
    assert got["id"] == long_obj(0, 55, 18, 56)
    assert got["amount"] == double_obj(-1.0, 16.0, 18, 30)
    assert got["name"] == string_obj(30, 6.0, 18, 11)
    assert got["flag"] == bool_obj(18, 30, 18)
    assert got["dt"] == date_obj(0, 60, 6, 8)
    # Extrapolated decimals come back as Java's Double.toString read as a BigDecimal.
    assert got["dec"] == decimal_obj(Decimal(scale=1, unscaled=b"\x00"),
                                     Decimal(scale=1, unscaled=b"P"), 6, 9)


def test_aggregate_extrapolates_falling_values(client, db):
    """The least value right of the greatest: Hive's other border formulas."""
    names = new_table(client, db, "c", partitions=6)
    client.set_aggr_stats_for(SetPartitionsStatsRequest([
        stats(db, "c", [long_obj(30, 35, 4, 10)], names[1]),
        stats(db, "c", [long_obj(10, 15, 3, 40)], names[4]),
        stats(db, "c", [long_obj(20, 50, 3, 20)], names[2]),
    ]))
    result = aggregate(client, db, "c", ["ID"], names)
    assert result.partsFound == 3
    assert result.colStats == [long_obj(4, 85, 18, 50)]


def test_aggregate_extrapolation_takes_tied_extremes_as_hive_on_derby(client, db):
    """Issue 22, defect 11: string and binary lengths extrapolated when partitions share the
    least or greatest value. Hive's SQL path (MetaStoreDirectSql / Hive 4's
    DirectSqlAggrStats) orders the rows by the value alone and takes the first and the last;
    Derby, its default store, returns equal values latest written first. So the partition
    whose statistics were written last holds a tied least value, the first written a tied
    greatest. Observed on Hive 2.3 with its aggregate cache off; Hive 4's query is the same."""
    expected = {
        # written in name order: ties go to ds=02 (least maxColLen), ds=04 (least avgColLen)
        (1, 2, 4): {"name": (70, 6.5), "payload": (140, 7.5)},
        # written in reverse: to ds=01 for both
        (4, 2, 1): {"name": (63, 11.5), "payload": (126, 12.5)},
    }
    lengths = {1: (10, 1.5), 2: (10, 4.0), 4: (50, 1.5)}
    for number, (order, want) in enumerate(expected.items()):
        table = f"ties{number}"
        names = new_table(client, db, table, partitions=6)
        for index in order:
            max_len, avg_len = lengths[index]
            client.update_partition_column_statistics(stats(db, table, [
                string_obj(max_len, avg_len, 0, 3),
                binary_obj(2 * max_len, avg_len + 1, 0)], names[index]))
        got = by_name(aggregate(client, db, table, ["name", "payload"], names).colStats)
        assert (got["name"].statsData.stringStats.maxColLen,
                got["name"].statsData.stringStats.avgColLen) == want["name"], order
        assert (got["payload"].statsData.binaryStats.maxColLen,
                got["payload"].statsData.binaryStats.avgColLen) == want["payload"], order


# ---------------------------------------------------------------- deletes

def test_delete_table_column_statistics(client, db, hive):
    new_table(client, db, "t")
    client.update_table_column_statistics(stats(db, "t", [long_obj(1, 2, 0, 1), string_obj(3, 1.0, 0, 2)]))
    assert client.delete_table_column_statistics(db, "t", "ID", "hive") is True
    with raises_hms(NoSuchObjectException, f"Column stats doesn't exist for db={db} table=t col=id"):
        client.delete_table_column_statistics(db, "t", "id", "hive")
    with raises_hms(NoSuchObjectException, f"Column stats doesn't exist for db={db} table=t col=zzz"):
        client.delete_table_column_statistics(db, "t", "zzz", "hive")
    result = client.get_table_statistics_req(TableStatsRequest(db, "t", ["id", "name"]))
    assert [o.colName for o in result.tableStats] == ["name"]
    # Hive 4 unmarks deleted columns; Hive 2.3 leaves the parameter alone.
    expected = {"name"} if hive >= 4 else {"id", "name"}
    assert accurate_columns(client.get_table(db, "t").parameters) == expected
    # No column: every column's, and true even when there are none.
    assert client.delete_table_column_statistics(db, "t", None, "hive") is True
    assert client.delete_table_column_statistics(db, "t", None, "hive") is True
    assert client.get_table_statistics_req(TableStatsRequest(db, "t", ["id", "name"])).tableStats == []
    with raises_hms(NoSuchObjectException, "Table nope  for which stats deletion is requested doesn't exist"):
        client.delete_table_column_statistics(db, "nope", "id", "hive")


def test_delete_partition_column_statistics(client, db):
    names = new_table(client, db, "p", partitions=2)
    for name in names:
        client.update_partition_column_statistics(stats(db, "p", [long_obj(1, 2, 0, 1), bool_obj(1, 1, 0)], name))
    assert client.delete_partition_column_statistics(db, "p", names[0], "id", "hive") is True
    with raises_hms(NoSuchObjectException,
                    f"Column stats doesn't exist for db={db} table=p partition={names[0]} col=id"):
        client.delete_partition_column_statistics(db, "p", names[0], "id", "hive")
    with raises_hms(NoSuchObjectException,
                    "Partition ds=zz for which stats deletion is requested doesn't exist"):
        client.delete_partition_column_statistics(db, "p", "ds=zz", "id", "hive")
    assert client.delete_partition_column_statistics(db, "p", names[1], None, "hive") is True
    result = client.get_partitions_statistics_req(PartitionsStatsRequest(db, "p", ["id", "flag"], names))
    assert result.partStats == {names[0]: [bool_obj(1, 1, 0)]}


# ---------------------------------------------------------------- statistics follow their objects

def write_both_levels(client, db, table, names):
    for name in names:
        client.update_partition_column_statistics(
            stats(db, table, [long_obj(1, 2, 0, 1), bool_obj(1, 1, 0)], name))
    client.update_table_column_statistics(stats(db, table, [long_obj(5, 6, 0, 2), bool_obj(2, 2, 0)]))


def partitions_with_stats(client, db, table, names, columns=("id",)):
    request = PartitionsStatsRequest(db, table, list(columns), list(names))
    return client.get_partitions_statistics_req(request).partStats


def test_renaming_a_partition_keeps_its_statistics(client, db, server):
    """hivestore keeps a renamed partition's statistics (as the issue asks, and Hive 3+ moves
    them); Hive 2.3 was observed to lose them."""
    names = new_table(client, db, "p", partitions=2)
    write_both_levels(client, db, "p", names)
    renamed = client.get_partition(db, "p", ["00"])
    renamed.values = ["10"]
    client.rename_partition(db, "p", ["00"], renamed)
    kept = ["ds=01"] if server.external else ["ds=01", "ds=10"]
    assert sorted(partitions_with_stats(client, db, "p", ["ds=00", "ds=01", "ds=10"])) == kept


def test_renaming_a_table_keeps_its_statistics(client, db, server):
    """hivestore keeps them at both levels (statistics hang off the table id); Hive 2.3 was
    observed to keep the table's and lose the partitions'."""
    names = new_table(client, db, "p", partitions=2)
    write_both_levels(client, db, "p", names)
    table = client.get_table(db, "p")
    table.tableName = "q"
    client.alter_table(db, "p", table)
    assert client.get_table_column_statistics(db, "q", "id").statsObj == [long_obj(5, 6, 0, 2)]
    got = partitions_with_stats(client, db, "q", names)
    assert sorted(got) == ([] if server.external else names)


def test_dropping_removes_statistics(client, db):
    """A partition or table dropped and created again under the same name has no statistics."""
    names = new_table(client, db, "p", partitions=2)
    write_both_levels(client, db, "p", names)
    client.drop_partition(db, "p", ["01"], True)
    client.add_partition(Partition(values=["01"], dbName=db, tableName="p",
                                   sd=storage_descriptor(COLUMNS), parameters={}))
    assert sorted(partitions_with_stats(client, db, "p", names)) == ["ds=00"]
    client.drop_table(db, "p", True)
    new_table(client, db, "p", partitions=2)
    assert partitions_with_stats(client, db, "p", names, ("id", "flag")) == {}
    assert client.get_table_statistics_req(TableStatsRequest(db, "p", ["id", "flag"])).tableStats == []


def test_changing_a_column_type_drops_its_statistics(client, db):
    """int -> bigint, a change Hive allows: the column's table-level statistics go, the other
    columns' stay. Partitions keep their own columns (no cascade), so their statistics stay."""
    names = new_table(client, db, "p", partitions=1)
    write_both_levels(client, db, "p", names)
    table = client.get_table(db, "p")
    table.sd.cols[0] = FieldSchema("id", "bigint", None)
    client.alter_table(db, "p", table)
    result = client.get_table_statistics_req(TableStatsRequest(db, "p", ["id", "flag"]))
    assert [o.colName for o in result.tableStats] == ["flag"]
    got = partitions_with_stats(client, db, "p", names, ("id", "flag"))
    assert got == {names[0]: [long_obj(1, 2, 0, 1), bool_obj(1, 1, 0)]}


# ---------------------------------------------------------------- a planner's sequence

def test_trino_like_sequence(client, db, server):
    """Write statistics for many partitions one call each (as Trino does), read them back in one
    get_partitions_statistics_req, aggregate them with get_aggr_stats_for. 1000 partitions on
    hivestore; 100 on the Java reference, which writes some 60 per second."""
    count = 100 if server.external else 1000
    names = new_table(client, db, "events", partitions=count)
    for index, name in enumerate(names):
        objects = [long_obj(index, index + 10, index % 7, 5), string_obj(index % 50, 1.5, 0, 3)]
        client.update_partition_column_statistics(stats(db, "events", objects, name))
    result = client.get_partitions_statistics_req(
        PartitionsStatsRequest(db, "events", ["id", "name"], names))
    assert len(result.partStats) == count
    for index, name in enumerate(names):
        got = by_name(result.partStats[name])
        assert got["id"] == long_obj(index, index + 10, index % 7, 5)
    aggregated = aggregate(client, db, "events", ["id", "name"], names)
    assert aggregated.partsFound == count
    got = by_name(aggregated.colStats)
    assert got["id"] == long_obj(0, count + 9, sum(index % 7 for index in range(count)), 5)
    assert got["name"] == string_obj(min(count, 50) - 1, 1.5, 0, 3)


# ---------------------------------------------------------------- transactional statistics

def test_update_transaction_statistics_adds_to_the_tables_totals(client, db, server):
    """Hive 4's update_transaction_statistics adds a transaction's inserted, updated and deleted
    row counts to the table's (Hive keeps them for the materialized views reading the table:
    see the next test). That they are kept shows in the refusal of an update that would
    overflow them. An id of no table changes nothing, as in Hive; a
    negative count is refused (hivestore; Hive would subtract it). Hive 2.3 lacks the call."""
    new_table(client, db, "t")
    table_id = client.get_table(db, "t").id
    request = UpdateTransactionalStatsRequest(tableId=table_id, insertCount=2 ** 63 - 1,
                                              updatedCount=0, deletedCount=0)
    assert call_or_skip_on_reference(server, client.update_transaction_statistics, request) is None
    with raises_hms(MetaException, "insertCount of table id %d would overflow" % table_id):
        client.update_transaction_statistics(UpdateTransactionalStatsRequest(table_id, 1, 0, 0))
    with raises_hms(MetaException, "deletedCount is -3"):
        client.update_transaction_statistics(UpdateTransactionalStatsRequest(table_id, 0, 0, -3))
    # The failed updates changed nothing: an update of the other counts still succeeds.
    client.update_transaction_statistics(UpdateTransactionalStatsRequest(table_id, 0, 5, 7))
    client.update_transaction_statistics(UpdateTransactionalStatsRequest(table_id + 1000, 1, 1, 1))
    client.drop_table(db, "t", True)
    # The dropped table's totals went with it: a new table never starts near the overflow.
    new_table(client, db, "t")
    again = UpdateTransactionalStatsRequest(client.get_table(db, "t").id, 1, 0, 0)
    client.update_transaction_statistics(again)


def test_a_materialized_views_sources_count_their_tables_transactions(client, db, server):
    """Hive 4 keeps, for each table a materialized view reads, the rows transactions inserted,
    updated and deleted in it since the view was built (MV_TABLES_USED): the counts the view's
    creationMetadata.sourceTables brought, plus every update_transaction_statistics of the
    table after; get_table of the view answers them with each source table as it is now. A
    source table that does not exist fails the create. Hive 2.3 has neither."""
    if server.external:
        pytest.skip("Hive 2.3 has no sourceTables nor update_transaction_statistics")
    new_table(client, db, "src")
    source = client.get_table(db, "src")
    view = make_table(db, "mv", columns=COLUMNS, table_type="MATERIALIZED_VIEW",
                      viewOriginalText="select * from src", viewExpandedText="select * from src")
    view.creationMetadata = CreationMetadata(
        catName="hive", dbName=db, tblName="mv", tablesUsed={db + ".src"},
        sourceTables=[SourceTable(table=source, insertedCount=1, updatedCount=2, deletedCount=3)])
    client.create_table(view)
    client.update_transaction_statistics(UpdateTransactionalStatsRequest(source.id, 10, 0, 4))
    metadata = client.get_table(db, "mv").creationMetadata
    assert metadata.tablesUsed == {db + ".src"}
    [counted] = metadata.sourceTables
    assert (counted.table.tableName, counted.table.id) == ("src", source.id)
    assert (counted.insertedCount, counted.updatedCount, counted.deletedCount) == (11, 2, 7)
    missing = make_table(db, "mv_missing", columns=COLUMNS, table_type="MATERIALIZED_VIEW",
                         viewOriginalText="select 1", viewExpandedText="select 1")
    missing.creationMetadata = CreationMetadata(catName="hive", dbName=db, tblName="mv_missing",
                                                tablesUsed={db + ".nope"})
    with raises_hms(MetaException, "does not exist : hive.%s.nope" % db):
        client.create_table(missing)
    with raises_hms(NoSuchObjectException, "mv_missing"):
        client.get_table(db, "mv_missing")



def test_update_creation_metadata_gives_a_rebuilt_view_its_new_sources(client, db, server):
    """Hive 3+ sends update_creation_metadata when it rebuilds a materialized view: the view's
    tablesUsed, validTxnList and materializationTime become the new ones, and its source
    counts start again from those sent, then grow with update_transaction_statistics. A
    missing source or view, or a table that is not a materialized view, is refused and
    changes nothing. Hive 2.3 lacks the call."""
    if server.external:
        pytest.skip("Hive 2.3 has no update_creation_metadata")
    new_table(client, db, "old")
    new_table(client, db, "src")
    old, source = client.get_table(db, "old"), client.get_table(db, "src")
    view = make_table(db, "mv", columns=COLUMNS, table_type="MATERIALIZED_VIEW",
                      viewOriginalText="select * from old", viewExpandedText="select * from old")
    view.creationMetadata = CreationMetadata(catName="hive", dbName=db, tblName="mv",
                                             tablesUsed={db + ".old"})
    client.create_table(view)
    client.update_transaction_statistics(UpdateTransactionalStatsRequest(source.id, 50, 0, 0))

    def rebuilt(*names, counts=(0, 0, 0)):
        sources = [SourceTable(client.get_table(db, name), *counts) for name in names]
        return CreationMetadata(catName="hive", dbName=db, tblName="mv",
                                tablesUsed={db + "." + name for name in names},
                                validTxnList="12:9223372036854775807::",
                                materializationTime=1700000000000, sourceTables=sources)

    client.update_creation_metadata("hive", db, "mv", rebuilt("src", counts=(1, 0, 0)))
    client.update_transaction_statistics(UpdateTransactionalStatsRequest(source.id, 3, 1, 0))
    client.update_transaction_statistics(UpdateTransactionalStatsRequest(old.id, 9, 9, 9))
    metadata = client.get_table(db, "mv").creationMetadata
    assert (metadata.tablesUsed, metadata.validTxnList, metadata.materializationTime) == (
        {db + ".src"}, "12:9223372036854775807::", 1700000000000)
    [counted] = metadata.sourceTables
    assert counted.table.tableName == "src"
    assert (counted.insertedCount, counted.updatedCount, counted.deletedCount) == (4, 1, 0)

    before = client.get_table(db, "mv")
    broken = rebuilt("src")
    broken.tablesUsed.add(db + ".nope")
    broken.sourceTables = None
    with raises_hms(MetaException, "does not exist : hive.%s.nope" % db):
        client.update_creation_metadata("hive", db, "mv", broken)
    with raises_hms(InvalidOperationException, "is not a materialized view"):
        client.update_creation_metadata("hive", db, "src", rebuilt("old"))
    with raises_hms(MetaException, "gone"):
        client.update_creation_metadata("hive", db, "gone", rebuilt("old"))
    assert client.get_table(db, "mv") == before


# ---------------------------------------------------------------- basic statistics on alter

def local_dir(location):
    """The local path of a `file:` location as either server writes it."""
    for prefix in ("file://", "file:"):
        if location.startswith(prefix):
            return location[len(prefix):]
    return location


def write_file(directory, name, size):
    with open(os.path.join(local_dir(directory), name), "w") as data:
        data.write("x" * size)


def context(**properties):
    return EnvironmentContext(properties=properties)


def test_alter_table_recounts_fast_statistics_unless_told_not_to(client, db):
    """alter_table of an unpartitioned table relists its files into numFiles and totalSize
    (hidden files skipped) and drops COLUMN_STATS_ACCURATE; DO_NOT_UPDATE_STATS=true in the
    environment context skips all that, and as a table parameter skips it once and is removed;
    STATS_GENERATED=TASK keeps the accurate columns and marks the basic statistics accurate."""
    new_table(client, db, "t")
    location = client.get_table(db, "t").sd.location
    write_file(location, "part-0", 10)
    write_file(location, "part-1", 5)
    write_file(location, ".hidden", 100)
    client.update_table_column_statistics(stats(db, "t", [long_obj(1, 2, 0, 2)]))
    table = client.get_table(db, "t")
    table.parameters["note"] = "a"
    client.alter_table_with_environment_context(db, "t", table,
                                                context(DO_NOT_UPDATE_STATS="true"))
    kept = client.get_table(db, "t").parameters
    assert "numFiles" not in kept and accurate_columns(kept) == {"id"}
    table.parameters["DO_NOT_UPDATE_STATS"] = "true"
    client.alter_table(db, "t", table)
    kept = client.get_table(db, "t").parameters
    assert "numFiles" not in kept and accurate_columns(kept) == {"id"}
    assert "DO_NOT_UPDATE_STATS" not in kept
    client.alter_table_with_environment_context(db, "t", client.get_table(db, "t"),
                                                context(STATS_GENERATED="TASK"))
    task = client.get_table(db, "t").parameters
    assert (task["numFiles"], task["totalSize"]) == ("2", "15")
    assert json.loads(task["COLUMN_STATS_ACCURATE"]) == {"BASIC_STATS": "true",
                                                         "COLUMN_STATS": {"id": "true"}}
    write_file(location, "part-2", 1)
    client.alter_table(db, "t", client.get_table(db, "t"))
    plain = client.get_table(db, "t").parameters
    assert (plain["numFiles"], plain["totalSize"]) == ("3", "16")
    assert "COLUMN_STATS_ACCURATE" not in plain
    # The column statistics themselves stay; only their accuracy mark went.
    assert client.get_table_column_statistics(db, "t", "id").statsObj == [long_obj(1, 2, 0, 2)]


def test_alter_partition_recounts_fast_statistics_unless_told_not_to(client, db):
    """alter_partition(s) relist a partition's files when it lacks fast statistics or changes
    them (then COLUMN_STATS_ACCURATE goes); an alter that keeps them leaves the partition's
    accuracy alone; DO_NOT_UPDATE_STATS=true skips the work."""
    names = new_table(client, db, "p", partitions=2)
    for name in names:
        client.update_partition_column_statistics(stats(db, "p", [long_obj(1, 2, 0, 2)], name))
    partition = client.get_partition(db, "p", ["00"])
    write_file(partition.sd.location, "part-0", 7)
    client.alter_partitions_with_environment_context(db, "p", [partition],
                                                     context(DO_NOT_UPDATE_STATS="true"))
    skipped = client.get_partition(db, "p", ["00"]).parameters
    assert "numFiles" not in skipped and accurate_columns(skipped) == {"id"}
    client.alter_partition(db, "p", partition)
    listed = client.get_partition(db, "p", ["00"]).parameters
    assert (listed["numFiles"], listed["totalSize"]) == ("1", "7")
    assert "COLUMN_STATS_ACCURATE" not in listed
    # Same fast statistics, no context: nothing to do, the accuracy written since stays.
    client.update_partition_column_statistics(stats(db, "p", [long_obj(1, 2, 0, 2)], names[0]))
    unchanged = client.get_partition(db, "p", ["00"])
    unchanged.parameters["note"] = "b"
    client.alter_partitions(db, "p", [unchanged])
    assert accurate_columns(client.get_partition(db, "p", ["00"]).parameters) == {"id"}
    # The other partition was not altered and keeps its mark.
    assert accurate_columns(client.get_partition(db, "p", ["01"]).parameters) == {"id"}


# ---------------------------------------------------------------- truncate

def test_truncate_resets_basic_statistics_and_unmarks_columns(client, db, server):
    """truncate_table as Hive 4's handler: in the parameters of the table (unpartitioned) or of
    each partition truncated, every basic statistic present becomes 0 and COLUMN_STATS_ACCURATE
    becomes {"BASIC_STATS":"true"}; the column statistics stay, unmarked; a partitioned table's
    own parameters and the partitions not named are untouched. Hive 2.3 lacks truncate_table."""
    new_table(client, db, "t")
    client.update_table_column_statistics(stats(db, "t", [long_obj(1, 2, 0, 2)]))
    table = client.get_table(db, "t")
    table.parameters.update(numRows="10", rawDataSize="100")
    client.alter_table_with_environment_context(db, "t", table,
                                                context(DO_NOT_UPDATE_STATS="true"))
    call_or_skip_on_reference(server, client.truncate_table, db, "t", None)
    params = client.get_table(db, "t").parameters
    assert (params["numRows"], params["rawDataSize"]) == ("0", "0")
    assert "numFiles" not in params
    assert json.loads(params["COLUMN_STATS_ACCURATE"]) == {"BASIC_STATS": "true"}
    assert client.get_table_column_statistics(db, "t", "id").statsObj == [long_obj(1, 2, 0, 2)]

    names = new_table(client, db, "p", partitions=2)
    for name in names:
        client.update_partition_column_statistics(stats(db, "p", [long_obj(1, 2, 0, 2)], name))
    table_before = client.get_table(db, "p").parameters
    with_rows = [client.get_partition(db, "p", [value]) for value in ("00", "01")]
    for partition in with_rows:
        partition.parameters["numRows"] = "4"
    client.alter_partitions_with_environment_context(db, "p", with_rows,
                                                     context(DO_NOT_UPDATE_STATS="true"))
    client.truncate_table(db, "p", ["ds=00"])
    truncated = client.get_partition(db, "p", ["00"]).parameters
    assert truncated["numRows"] == "0"
    assert json.loads(truncated["COLUMN_STATS_ACCURATE"]) == {"BASIC_STATS": "true"}
    other = client.get_partition(db, "p", ["01"]).parameters
    assert other["numRows"] == "4" and accurate_columns(other) == {"id"}
    assert client.get_table(db, "p").parameters == table_before
    assert sorted(partitions_with_stats(client, db, "p", names)) == names


def test_a_partition_added_at_an_existing_directory_gets_its_files_counted(client, db):
    """add_partition(s) at a directory that already holds files lists them into numFiles and
    totalSize, as Hive does when it did not make the directory itself; a directory the metastore
    makes is empty and counts nothing, and a partition that brings its own fast statistics keeps
    them."""
    new_table(client, db, "p", partitions=1)
    location = client.get_table(db, "p").sd.location
    for value, size in (("05", 12), ("06", 3)):
        os.makedirs(os.path.join(local_dir(location), "ds=" + value))
        write_file(os.path.join(location, "ds=" + value), "part-0", size)
    own = {"numFiles": "9", "totalSize": "99", "numFilesErasureCoded": "0"}
    client.add_partitions([
        Partition(values=["05"], dbName=db, tableName="p", sd=storage_descriptor(COLUMNS),
                  parameters={}),
        Partition(values=["06"], dbName=db, tableName="p", sd=storage_descriptor(COLUMNS),
                  parameters=dict(own)),
        Partition(values=["07"], dbName=db, tableName="p", sd=storage_descriptor(COLUMNS),
                  parameters={})])
    listed = client.get_partition(db, "p", ["05"]).parameters
    assert (listed["numFiles"], listed["totalSize"]) == ("1", "12")
    brought = client.get_partition(db, "p", ["06"]).parameters
    assert (brought["numFiles"], brought["totalSize"]) == ("9", "99")
    assert "numFiles" not in client.get_partition(db, "p", ["07"]).parameters


def test_a_task_adding_a_partition_at_an_existing_directory_marks_its_counts_accurate(
        client, db, server):
    """add_partition_with_environment_context and append_partition_with_environment_context
    with STATS_GENERATED=TASK (a query's statistics task) at a directory that already holds
    files: the files are counted and the basic statistics marked accurate (BASIC_STATS), as
    Hive 4's updateBasicState; without the context the accuracy marker is dropped. Hive 2.3
    passes no context to it on add (only on append), and drops the marker there."""
    new_table(client, db, "p", partitions=1)
    location = client.get_table(db, "p").sd.location
    for value in ("05", "06", "07"):
        os.makedirs(os.path.join(local_dir(location), "ds=" + value))
        write_file(os.path.join(location, "ds=" + value), "part-0", 4)
    accurate = {"COLUMN_STATS_ACCURATE": '{"BASIC_STATS":"true"}'}
    client.add_partition_with_environment_context(
        Partition(values=["05"], dbName=db, tableName="p", sd=storage_descriptor(COLUMNS),
                  parameters=dict(accurate)),
        context(STATS_GENERATED="TASK"))
    client.append_partition_with_environment_context(db, "p", ["06"],
                                                     context(STATS_GENERATED="TASK"))
    client.add_partition(Partition(values=["07"], dbName=db, tableName="p",
                                   sd=storage_descriptor(COLUMNS), parameters=dict(accurate)))
    for value in ("05", "06"):
        task = client.get_partition(db, "p", [value]).parameters
        assert (task["numFiles"], task["totalSize"]) == ("1", "4")
        if server.external and value == "05":
            assert "COLUMN_STATS_ACCURATE" not in task
        else:
            assert json.loads(task["COLUMN_STATS_ACCURATE"]) == {"BASIC_STATS": "true"}
    plain = client.get_partition(db, "p", ["07"]).parameters
    assert plain["numFiles"] == "1" and "COLUMN_STATS_ACCURATE" not in plain


def test_a_table_created_at_an_existing_directory_gets_its_files_counted(client, db):
    """create_table of an unpartitioned table at a directory that already holds files lists
    them into numFiles and totalSize, as Hive does; a DO_NOT_UPDATE_STATS=true parameter skips
    that and is removed; a partitioned table is not counted."""
    probe = client.get_database(db).locationUri
    for name, size in (("t", 4), ("skipped", 4), ("p", 4)):
        os.makedirs(os.path.join(local_dir(probe), name))
        write_file(os.path.join(probe, name), "part-0", size)
    client.create_table(make_table(db, "t", columns=COLUMNS))
    params = client.get_table(db, "t").parameters
    assert (params["numFiles"], params["totalSize"]) == ("1", "4")
    client.create_table(make_table(db, "skipped", columns=COLUMNS,
                                   parameters={"DO_NOT_UPDATE_STATS": "true"}))
    params = client.get_table(db, "skipped").parameters
    assert "numFiles" not in params and "DO_NOT_UPDATE_STATS" not in params
    client.create_table(make_table(db, "p", columns=COLUMNS, partition_keys=KEYS))
    assert "numFiles" not in client.get_table(db, "p").parameters


# ---------------------------------------------------------------- pymetastore 0.4.2

def test_pymetastore_reads_table_statistics_through_its_helper(server, client, db, hive):
    """pymetastore's stats helper, `HMS.get_table_stats` (one get_table_column_statistics a
    column, typed into its own classes), reads what the pyiceberg client wrote: every kind it
    types, with Hive's values; the descriptor names the table at table level."""
    from pymetastore.metastore import HMS
    from pymetastore.stats import (BinaryTypeStats, BooleanTypeStats, DoubleTypeStats,
                                   LongTypeStats, StringTypeStats)

    new_table(client, db, "t")
    written = every_kind(hive)
    assert client.update_table_column_statistics(stats(db, "t", written)) is True
    with HMS.create(host=server.host, port=server.port) as hms:
        hms.client._iprot.trans._TBufferedTransport__trans.setTimeout(10_000)
        table = hms.get_table(db, "t")
        # A column without statistics is an error for get_table_column_statistics: ask for
        # those written only.
        columns = [column for column in table.columns if column.name in by_name(written)]
        read = {found.columnName: found for found in hms.get_table_stats(table, columns)}
    assert set(read) == set(by_name(written))
    for found in read.values():
        assert (found.dbName, found.tableName, found.isTblLevel) == (db, "t", True)
        assert found.columnType == by_name(written)[found.columnName].colType
    assert read["id"].stats == LongTypeStats(cardinality=5, numNulls=0, lowValue=1, highValue=10)
    assert read["amount"].stats == DoubleTypeStats(cardinality=7, numNulls=1, lowValue=-0.5,
                                                   highValue=2.5)
    assert read["name"].stats == StringTypeStats(avgColLen=2.5, maxColLen=10, cardinality=3,
                                                 numNulls=1)
    assert read["flag"].stats == BooleanTypeStats(numTrues=3, numFalses=4, numNulls=1)
    assert read["payload"].stats == BinaryTypeStats(avgColLen=7.5, maxColLen=100, numNulls=2)
    decimal = read["dec"].stats
    assert (decimal.typeName, decimal.cardinality, decimal.numNulls) == ("decimal", 4, 0)
    assert (dec_value(decimal.lowValue), dec_value(decimal.highValue)) == (-2.5, 10.0)
    date = read["dt"].stats
    assert (date.typeName, date.cardinality, date.numNulls) == ("date", 11, 0)
    assert (date.lowValue.daysSinceEpoch, date.highValue.daysSinceEpoch) == (100, 110)
    if hive >= 4:
        # pymetastore 0.4.2 types no timestamp statistics: the entry is there, untyped.
        assert read["ts"].stats is None


# ---------------------------------------------------------------- prewarm at start

PREWARM_WAIT_S = 30


def test_statistics_prewarmed_at_start_answer_as_before_the_restart(tmp_path):
    """hivestore reads partition statistics into its caches when it starts (`--prewarm-mb`,
    fb303 counters `statistics_prewarm.*` once done); what planners read after it is what they
    read before the restart."""
    if os.environ.get("HMS_URI"):
        pytest.skip("restarts a hivestore of its own")
    from conftest import hivestore_binary, start_hivestore, stop_hivestore
    from hms_helpers import connected

    db = "prewarm"
    first = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(first) as client:
            client.create_database(Database(name=db, parameters={}))
            names = new_table(client, db, "p", partitions=300)
            client.set_aggr_stats_for(SetPartitionsStatsRequest([
                stats(db, "p", [long_obj(-index, index, index % 3, index + 1),
                                double_obj(0.0, index / 4, 1, 2)], name)
                for index, name in enumerate(names)]))
            columns = ["id", "amount"]
            before = (aggregate(client, db, "p", columns, names),
                      aggregate(client, db, "p", columns, names[100:140]),
                      client.get_partitions_statistics_req(
                          PartitionsStatsRequest(db, "p", columns, names[:50])))
    finally:
        stop_hivestore(first)
    second = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(second) as client:
            deadline = time.monotonic() + PREWARM_WAIT_S
            counters = client.getCounters()
            while "statistics_prewarm.done" not in counters and time.monotonic() < deadline:
                time.sleep(0.05)
                counters = client.getCounters()
            assert counters.get("statistics_prewarm.done") == 1, counters
            assert counters["statistics_prewarm.columns"] == 2
            assert counters["statistics_prewarm.complete"] == 1
            assert counters["statistics_prewarm.bytes"] > 0
            after = (aggregate(client, db, "p", columns, names),
                     aggregate(client, db, "p", columns, names[100:140]),
                     client.get_partitions_statistics_req(
                         PartitionsStatsRequest(db, "p", columns, names[:50])))
        assert after == before
        assert after[0].partsFound == 300 and len(after[2].partStats) == 50
    finally:
        stop_hivestore(second)
