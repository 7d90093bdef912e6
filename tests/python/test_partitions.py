"""Partitions through real HMS clients.

Goal: every partition call of the HMS — add_partition(s), add_partitions_req, append_partition
(+ by name), get_partition (+ by name, with auth), get_partitions (+ with auth),
get_partition_names, get_partitions_ps / get_partition_names_ps / get_partitions_ps_with_auth
(partial specs), get_partitions_by_filter, get_num_partitions_by_filter, get_partitions_by_names,
alter_partition(s), rename_partition, drop_partition (+ by name), drop_partitions_req,
partition_name_to_vals/_spec, partition_name_has_valid_characters, and the Hive 3/4 `_req` forms —
behaves as Apache's HMS: the same results in the same order, partition names and directories
escaped as Hive escapes them, the filter language as Hive parses and evaluates it, directories made
on add and removed on drop, and the declared exception types with the message texts clients match.

Method: each expectation was first observed against the Java reference HMS (Hive 2.3.10, run with
scripts/compare-with-reference.sh); where Hive 2.3 lacks a call (the `_req` forms) the test skips
there and asserts the same results as the old form. Where Hive 4 is known to differ from 2.3 the
expectation branches on the generation and a docstring says so; where Hive 2.3's answer is an
accident of its storage layer (e.g. a JDO fallback failing) the test checks it on the reference and
a sensible answer on hivestore, and says so. The pyiceberg-vendored generated client (Hive 4 IDL)
does most of the work; hmsclient and pymetastore run the essential flows through their own APIs.

The table every test uses is partitioned by `ds string, hr int`. Partition names are
`ds=<escaped>/hr=<escaped>`; listings come back in partition-name order (byte order, so
`hr=10` sorts before `hr=2`), except the partial-spec calls (see test_partial_spec_lookups).
Deliberate differences from Hive 2.3 on hivestore (each test says why): partial-spec values match
exactly (not as a regex prefix), and a LIKE next to an int key is evaluated instead of failing.
"""

import os
import time

import pytest
from thrift.Thrift import TApplicationException, TType
from hive_metastore.ttypes import (
    AddPartitionsRequest,
    AlreadyExistsException,
    AlterPartitionsRequest,
    Database,
    DropPartitionsRequest,
    FieldSchema,
    GetPartitionNamesPsRequest,
    GetPartitionRequest,
    GetPartitionsByNamesRequest,
    GetPartitionsPsWithAuthRequest,
    InvalidObjectException,
    InvalidOperationException,
    MetaException,
    NoSuchObjectException,
    Partition,
    PartitionsByExprRequest,
    PartitionsRequest,
    PartitionValuesRequest,
    RenamePartitionRequest,
    RequestPartsSpec,
)

from hms_helpers import (
    call_method,
    call_or_skip_on_reference,
    connected,
    hide_generated_client_frames,
    local_path,
    make_struct,
    make_table,
    raises_hms,
    storage_descriptor,
    unique_name,
)

# Seconds of slack between the test's clock and the server's (same machine, whole seconds).
CLOCK_SLACK_S = 2
DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"
KEYS = [FieldSchema("ds", "string", "day"), FieldSchema("hr", "int", "hour")]
COLUMNS = [FieldSchema("id", "int", "the id"), FieldSchema("name", "string", None),
           FieldSchema("amount", "decimal(10,2)", None)]
# Basic statistics the HMS itself writes into partition parameters on alter (stats autogather);
# the column-statistics tests own them, so parameter comparisons here leave them out.
FAST_STATS_KEYS = {"numFiles", "totalSize", "numFilesErasureCoded"}

# Databases the shared `db` fixture makes are named `pdb_<unique>`.
DB_PREFIX = "pdb"

hide_generated_client_frames()


# ---------------------------------------------------------------- fixtures and helpers

def new_table(client, db, name="t", keys=None, **extra):
    """Create `db.name` partitioned by `ds string, hr int` (or `keys`); returns its directory."""
    client.create_table(make_table(db, name, columns=COLUMNS,
                                   partition_keys=KEYS if keys is None else keys, **extra))
    return local_path(client.get_table(db, name).sd.location)


def part(db, table, values, location=None, parameters=None):
    """A Partition as Hive's client builds one for add_partition: the table's storage
    descriptor, no location (the server fills the default) unless given."""
    return Partition(values=list(values), dbName=db, tableName=table,
                     sd=storage_descriptor(COLUMNS, location),
                     parameters=dict(parameters or {}))


def add(client, db, table, *value_lists):
    for values in value_lists:
        client.add_partition(part(db, table, values))


def vals(partitions):
    return [list(p.values) for p in partitions]


def user_params(partition):
    return {k: v for k, v in partition.parameters.items() if k not in FAST_STATS_KEYS}


def assert_catalog(partitions, hive):
    """Hive 4 fills Partition.catName with the default catalog; Hive 2.3 has no catalogs."""
    for partition in partitions:
        assert partition.catName == ("hive" if hive >= 4 else None)


# The shared, read-only table of the listing and filter tests: (ds, hr) in partition-name order.
# hr is unique, so expectations below list the hr values of the partitions they expect.
SHARED = [
    ("2023-12-31", "23"), ("2024-01-01", "1"), ("2024-01-01", "10"), ("2024-01-01", "2"),
    ("2024-01-02", "3"), ("2024-02-01", "20"), ("ABC", "7"), ("abc-2024", "5"), ("it's", "8"),
    ('say "hi"', "9"), ("x%y", "12"), ("x_y", "11"), ("xay", "13"),
]
SHARED_NAMES = [
    "ds=2023-12-31/hr=23", "ds=2024-01-01/hr=1", "ds=2024-01-01/hr=10", "ds=2024-01-01/hr=2",
    "ds=2024-01-02/hr=3", "ds=2024-02-01/hr=20", "ds=ABC/hr=7", "ds=abc-2024/hr=5",
    "ds=it%27s/hr=8", "ds=say %22hi%22/hr=9", "ds=x%25y/hr=12", "ds=x_y/hr=11", "ds=xay/hr=13",
]
# Added in this order (not name order) so that listings prove they sort; within ds=2024-01-01 the
# order is name order, because Hive 2.3's get_partition_names_ps answers in insertion order.
SHARED_INSERT_ORDER = ["3", "20", "1", "10", "2", "13", "7", "23", "5", "12", "8", "11", "9"]


def hrs(partitions):
    """The hr values of partitions of the shared table, in the order answered."""
    return [int(p.values[1]) for p in partitions]


def shared_names(*hr_values):
    by_hr = {hr: name for (_, hr), name in zip(SHARED, SHARED_NAMES)}
    return [by_hr[str(hr)] for hr in hr_values]


@pytest.fixture(scope="module")
def shared(server):
    """(db, table) of the shared read-only table with the SHARED partitions."""
    db_name, table = unique_name("pdb_shared"), "sales"
    with connected(server) as connection:
        connection.create_database(Database(name=db_name))
        new_table(connection, db_name, table)
        by_hr = {hr: ds for ds, hr in SHARED}
        for hr in SHARED_INSERT_ORDER:
            connection.add_partition(part(db_name, table, [by_hr[hr], hr]))
    return db_name, table


# ---------------------------------------------------------------- add and append

def test_add_partition_stores_it_under_the_table_directory(client, db, hive):
    table_dir = new_table(client, db)
    before = int(time.time())
    added = client.add_partition(part(db, "t", ["2024-01-01", "1"], parameters={"k": "v"}))
    after = int(time.time())
    assert added.values == ["2024-01-01", "1"]
    assert (added.dbName, added.tableName) == (db, "t")
    assert local_path(added.sd.location) == os.path.join(table_dir, "ds=2024-01-01", "hr=1")
    assert os.path.isdir(os.path.join(table_dir, "ds=2024-01-01", "hr=1"))
    assert before - CLOCK_SLACK_S <= added.createTime <= after + CLOCK_SLACK_S
    assert added.parameters == {"k": "v", "transient_lastDdlTime": str(added.createTime)}
    got = client.get_partition(db, "t", ["2024-01-01", "1"])
    assert (got.values, got.dbName, got.tableName) == (["2024-01-01", "1"], db, "t")
    assert got.createTime == added.createTime and got.lastAccessTime == 0
    assert got.parameters == added.parameters
    assert local_path(got.sd.location) == os.path.join(table_dir, "ds=2024-01-01", "hr=1")
    assert [(c.name, c.type, c.comment) for c in got.sd.cols] == [
        ("id", "int", "the id"), ("name", "string", None), ("amount", "decimal(10,2)", None)]
    assert got.sd.inputFormat == "org.apache.hadoop.mapred.TextInputFormat"
    assert got.sd.serdeInfo.serializationLib == (
        "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe")
    assert_catalog([got], hive)
    assert client.get_partition_names(db, "t", -1) == ["ds=2024-01-01/hr=1"]


def test_add_partition_keeps_a_given_location_ddl_time_and_access_time(client, db, tmp_path):
    """Observed on Hive 2.3: createTime is always the server's clock; a given
    transient_lastDdlTime and lastAccessTime are kept; a given location is kept and made."""
    new_table(client, db)
    location = tmp_path / "elsewhere" / "p"
    given = part(db, "t", ["2024-01-01", "1"], location=str(location),
                 parameters={"transient_lastDdlTime": "12345", "x": "y"})
    given.createTime, given.lastAccessTime = 7, 9
    before = int(time.time())
    client.add_partition(given)
    got = client.get_partition(db, "t", ["2024-01-01", "1"])
    assert local_path(got.sd.location) == str(location)
    assert location.is_dir()
    assert got.parameters == {"transient_lastDdlTime": "12345", "x": "y"}
    assert got.createTime >= before - CLOCK_SLACK_S
    assert got.lastAccessTime == 9


def test_add_partitions_adds_all_and_counts_them(client, db):
    table_dir = new_table(client, db)
    count = client.add_partitions([part(db, "t", ["b", "2"]), part(db, "t", ["a", "1"]),
                                   part(db, "t", ["a", "10"])])
    assert count == 3
    assert client.get_partition_names(db, "t", -1) == ["ds=a/hr=1", "ds=a/hr=10", "ds=b/hr=2"]
    for relative in ("ds=a/hr=1", "ds=a/hr=10", "ds=b/hr=2"):
        assert os.path.isdir(os.path.join(table_dir, relative))
    assert client.add_partitions([]) == 0


def test_adding_an_existing_partition_is_already_exists_and_adds_nothing(client, db):
    """Observed on Hive 2.3: "Partition already exists: Partition(values:[a, 1], ...)" (the
    Partition as sent); add_partitions is all or nothing; append_partition(_by_name) words it
    without the space: "Partition already exists:Partition(...)"."""
    new_table(client, db)
    add(client, db, "t", ["a", "1"])
    with raises_hms(AlreadyExistsException, "Partition already exists: ", "values:[a, 1]"):
        client.add_partition(part(db, "t", ["a", "1"]))
    with raises_hms(AlreadyExistsException, "Partition already exists: ", "values:[a, 1]"):
        client.add_partitions([part(db, "t", ["c", "3"]), part(db, "t", ["a", "1"])])
    with raises_hms(AlreadyExistsException, "Partition already exists:", "values:[a, 1]"):
        client.append_partition(db, "t", ["a", "1"])
    with raises_hms(AlreadyExistsException, "Partition already exists:", "values:[a, 1]"):
        client.append_partition_by_name(db, "t", "ds=a/hr=1")
    assert client.get_partition_names(db, "t", -1) == ["ds=a/hr=1"]


def test_add_partitions_rejects_duplicates_and_foreign_partitions(server, client, db):
    """Observed on Hive 2.3: a duplicate within the list is a MetaException
    ("java.io.IOException: Duplicate partitions in the list: Partition(...)"), even with
    ifNotExists; a partition of another table is "Partition does not belong to target table
    <db>.t: Partition(...)". Nothing is added either way. Hive 2.3 also says so when
    add_partitions_req names the table in another case than the partitions do (it compares
    exactly: "... target table PDB.T: ..."); that is checked on the reference only."""
    new_table(client, db)
    new_table(client, db, "other")
    with raises_hms(MetaException, "Duplicate partitions in the list: ", "values:[b, 1]"):
        client.add_partitions([part(db, "t", ["b", "1"]), part(db, "t", ["b", "1"])])
    with raises_hms(MetaException, "Duplicate partitions in the list: "):
        client.add_partitions_req(AddPartitionsRequest(
            dbName=db, tblName="t", parts=[part(db, "t", ["e", "1"]), part(db, "t", ["e", "1"])],
            ifNotExists=True, needResult=True))
    with raises_hms(MetaException, f"Partition does not belong to target table {db}.t"):
        client.add_partitions([part(db, "t", ["d", "1"]), part(db, "other", ["d", "1"])])
    if server.external:
        # Hive 2.3 compares the request's names with the partitions' exactly, case included.
        with raises_hms(MetaException,
                        f"Partition does not belong to target table {db.upper()}.T"):
            client.add_partitions_req(AddPartitionsRequest(
                dbName=db.upper(), tblName="T", parts=[part(db, "t", ["f", "1"])],
                ifNotExists=False, needResult=True))
    assert client.get_partition_names(db, "t", -1) == []
    assert client.get_partition_names(db, "other", -1) == []


def test_add_partitions_req_if_not_exists_and_need_result(client, db, hive):
    """ifNotExists=true skips existing partitions and the result lists only the added ones;
    needResult=false answers no list. Observed on Hive 2.3: an empty request answers no list
    (partitions unset) even with needResult=true."""
    table_dir = new_table(client, db)
    add(client, db, "t", ["a", "1"])
    result = client.add_partitions_req(AddPartitionsRequest(
        dbName=db, tblName="t", parts=[part(db, "t", ["a", "1"]), part(db, "t", ["b", "2"])],
        ifNotExists=True, needResult=True))
    assert vals(result.partitions) == [["b", "2"]]
    assert local_path(result.partitions[0].sd.location) == os.path.join(table_dir, "ds=b", "hr=2")
    result = client.add_partitions_req(AddPartitionsRequest(
        dbName=db, tblName="t", parts=[part(db, "t", ["c", "3"])], ifNotExists=False,
        needResult=False))
    assert result.partitions is None
    with raises_hms(AlreadyExistsException, "Partition already exists: ", "values:[c, 3]"):
        client.add_partitions_req(AddPartitionsRequest(
            dbName=db, tblName="t", parts=[part(db, "t", ["d", "4"]), part(db, "t", ["c", "3"])],
            ifNotExists=False, needResult=True))
    result = client.add_partitions_req(AddPartitionsRequest(
        dbName=db, tblName="t", parts=[], ifNotExists=True, needResult=True))
    if hive < 4:
        assert result.partitions is None
    else:
        assert result.partitions in (None, [])
    assert client.get_partition_names(db, "t", -1) == ["ds=a/hr=1", "ds=b/hr=2", "ds=c/hr=3"]


def test_append_partition_makes_the_default_location(server, client, db, hive):
    """Observed on Hive 2.3: the answer carries the db and table names as the caller spelled
    them (it is stored under the normalized names)."""
    table_dir = new_table(client, db)
    before = int(time.time())
    appended = client.append_partition(db.upper(), "T", ["2024-01-03", "5"])
    assert appended.values == ["2024-01-03", "5"]
    assert (appended.dbName.lower(), appended.tableName.lower()) == (db, "t")
    if server.external:
        assert (appended.dbName, appended.tableName) == (db.upper(), "T")
    got = client.get_partition(db, "t", ["2024-01-03", "5"])
    assert (got.dbName, got.tableName) == (db, "t")
    assert local_path(appended.sd.location) == os.path.join(table_dir, "ds=2024-01-03", "hr=5")
    assert os.path.isdir(os.path.join(table_dir, "ds=2024-01-03", "hr=5"))
    assert appended.createTime >= before - CLOCK_SLACK_S
    assert appended.parameters["transient_lastDdlTime"] == str(appended.createTime)
    assert [c.name for c in appended.sd.cols] == ["id", "name", "amount"]
    assert_catalog([appended, got], hive)


def test_append_partition_by_name_parses_and_unescapes_the_name(client, db):
    """Observed on Hive 2.3: the name's key=value parts may come in any order (values are
    matched to keys by name); values are unescaped (`%2F` is `/`), an invalid escape (`%zz`)
    stays literal; a missing or empty key value is InvalidObjectException "incomplete partition
    name - missing <key>"."""
    table_dir = new_table(client, db)
    assert client.append_partition_by_name(db, "t", "ds=2024-01-04/hr=9").values == [
        "2024-01-04", "9"]
    assert client.append_partition_by_name(db, "t", "hr=8/ds=2024-01-05").values == [
        "2024-01-05", "8"]
    assert client.append_partition_by_name(db, "t", "ds=p%2Fq/hr=3").values == ["p/q", "3"]
    assert client.append_partition_by_name(db, "t", "ds=p%zz/hr=3").values == ["p%zz", "3"]
    assert os.path.isdir(os.path.join(table_dir, "ds=p%2Fq", "hr=3"))
    with raises_hms(InvalidObjectException, "incomplete partition name - missing hr"):
        client.append_partition_by_name(db, "t", "ds=2024-01-06")
    with raises_hms(InvalidObjectException, "incomplete partition name - missing ds"):
        client.append_partition_by_name(db, "t", "ds=/hr=3")
    assert client.get_partition_names(db, "t", -1) == [
        "ds=2024-01-04/hr=9", "ds=2024-01-05/hr=8", "ds=p%25zz/hr=3", "ds=p%2Fq/hr=3"]


def test_wrong_number_of_values_is_meta_exception(client, db):
    """Observed on Hive 2.3 (Warehouse.makePartName): MetaException "Invalid partition key &
    values; keys [ds, hr, ], values [2024-01-03, ]", for every call that takes a full value
    list; a partial spec with too many values words it differently."""
    new_table(client, db)
    add(client, db, "t", ["2024-01-03", "1"])
    short = "Invalid partition key & values; keys [ds, hr, ], values [2024-01-03, ]"
    long = "Invalid partition key & values; keys [ds, hr, ], values [2024-01-03, 1, x, ]"
    with raises_hms(MetaException, short):
        client.add_partition(part(db, "t", ["2024-01-03"]))
    with raises_hms(MetaException, long):
        client.add_partition(part(db, "t", ["2024-01-03", "1", "x"]))
    with raises_hms(MetaException, short):
        client.append_partition(db, "t", ["2024-01-03"])
    with raises_hms(MetaException, short):
        client.get_partition(db, "t", ["2024-01-03"])
    with raises_hms(MetaException, long):
        client.get_partition(db, "t", ["2024-01-03", "1", "x"])
    with raises_hms(MetaException, short):
        client.drop_partition(db, "t", ["2024-01-03"], False)
    with raises_hms(MetaException, short):
        client.alter_partition(db, "t", part(db, "t", ["2024-01-03"]))
    with raises_hms(MetaException, "Incorrect number of partition values. numPartKeys=2, "
                                   "part_val=3"):
        client.get_partitions_ps(db, "t", ["2024-01-03", "1", "x"], -1)
    with raises_hms(MetaException, "Incorrect number of partition values. numPartKeys=2, "
                                   "part_val=3"):
        client.get_partition_names_ps(db, "t", ["2024-01-03", "1", "x"], -1)
    assert client.get_partition_names(db, "t", -1) == ["ds=2024-01-03/hr=1"]


def test_partition_calls_on_a_missing_table(client, db, hive):
    """Observed on Hive 2.3, each call with its own exception type and words. get_partition_names
    there fails with an internal error (its pre-event listener throws NoSuchObjectException,
    which Hive 2.3's IDL does not declare for that call); Hive 4 declares it."""
    missing = part(db, "nope", ["a", "1"])
    with raises_hms(InvalidObjectException,
                    "Unable to add partition because table or database do not exist"):
        client.add_partition(missing)
    with raises_hms(InvalidObjectException,
                    f"Unable to add partitions because database or table {db}.nope does not "
                    "exist"):
        client.add_partitions([missing])
    with raises_hms(InvalidObjectException, "Unable to add partitions because database or table"):
        client.add_partitions_req(AddPartitionsRequest(dbName=db, tblName="nope", parts=[missing],
                                                       ifNotExists=False, needResult=True))
    with raises_hms(InvalidObjectException,
                    "Unable to add partition because table or database do not exist"):
        client.append_partition(db, "nope", ["a", "1"])
    with raises_hms(InvalidObjectException, f"{db}.nope table not found"):
        client.append_partition_by_name(db, "nope", "ds=a/hr=1")
    for call, args in [(client.get_partition, (["a", "1"],)),
                       (client.get_partition_by_name, ("ds=a/hr=1",)),
                       (client.get_partitions, (-1,)),
                       (client.get_partitions_ps, (["a"], -1)),
                       (client.get_partition_names_ps, (["a"], -1)),
                       (client.get_partitions_by_filter, ("ds = 'a'", -1)),
                       (client.get_partitions_by_names, (["ds=a/hr=1"],)),
                       (client.drop_partition_by_name, ("ds=a/hr=1", True))]:
        with raises_hms(NoSuchObjectException, f"{db}.nope table not found"):
            call(db, "nope", *args)
    with raises_hms(NoSuchObjectException,
                    f"Specified database/table does not exist : {db}.nope"):
        client.get_num_partitions_by_filter(db, "nope", "ds = 'a'")
    with raises_hms(NoSuchObjectException, *(["partition values=[a, 1]"] if hive < 4 else [])):
        client.drop_partition(db, "nope", ["a", "1"], True)
    with raises_hms(NoSuchObjectException, f"{db}.nope table not found"):
        client.drop_partitions_req(DropPartitionsRequest(
            dbName=db, tblName="nope", parts=RequestPartsSpec(names=["ds=a/hr=1"]),
            deleteData=False))
    with raises_hms(InvalidOperationException,
                    "Unable to alter partition because table or database does not exist."):
        client.alter_partition(db, "nope", missing)
    with raises_hms(InvalidOperationException,
                    "Unable to alter partitions because table or database does not exist."):
        client.alter_partitions(db, "nope", [missing])
    with raises_hms(InvalidOperationException,
                    "Unable to alter partition because table or database does not exist."):
        client.rename_partition(db, "nope", ["a", "0"], missing)
    if hive < 4:
        with pytest.raises(TApplicationException) as raised:
            client.get_partition_names(db, "nope", -1)
        assert raised.value.type == TApplicationException.INTERNAL_ERROR
        assert raised.value.message == "Internal error processing get_partition_names"
    else:
        with raises_hms(NoSuchObjectException, f"{db}.nope table not found"):
            client.get_partition_names(db, "nope", -1)


def test_partition_calls_on_an_unpartitioned_table(client, db):
    """Observed on Hive 2.3: listings are empty, adding fails in makePartName (keys [])."""
    client.create_table(make_table(db, "flat", columns=COLUMNS))
    assert client.get_partitions(db, "flat", -1) == []
    assert client.get_partition_names(db, "flat", -1) == []
    with raises_hms(MetaException, "Invalid partition key & values; keys [], values [a, ]"):
        client.add_partition(part(db, "flat", ["a"]))
    with raises_hms(MetaException, "Invalid partition key & values; keys [], values [a, ]"):
        client.append_partition(db, "flat", ["a"])
    with raises_hms(MetaException, "Invalid partition key & values; keys [], values []"):
        client.get_partition(db, "flat", [])
    with raises_hms(MetaException, "Specified key <id> is not a partitioning key for the table"):
        client.get_partitions_by_filter(db, "flat", "id = 1", -1)


# ---------------------------------------------------------------- get and list

def test_get_partition_and_get_partition_by_name(client, db, hive):
    """Lookups are by partition name: db and table names are case-blind, values are exact
    text (hr=02 is not hr=2 although hr is an int). Observed on Hive 2.3: get_partition_by_name
    finds the partition with its key=value parts in any order."""
    new_table(client, db)
    add(client, db, "t", ["2024-01-01", "2"], ["2024-01-01", "10"])
    for db_spelling, table_spelling in [(db, "t"), (db.upper(), "T"), (f" {db} ", " t ")]:
        assert client.get_partition(db_spelling, table_spelling, ["2024-01-01", "2"]).values == [
            "2024-01-01", "2"]
    by_name = client.get_partition_by_name(db, "t", "ds=2024-01-01/hr=10")
    assert (by_name.values, by_name.dbName, by_name.tableName) == (["2024-01-01", "10"], db, "t")
    assert client.get_partition_by_name(db, "t", "hr=2/ds=2024-01-01").values == [
        "2024-01-01", "2"]
    assert_catalog([by_name], hive)
    with raises_hms(NoSuchObjectException, "partition values=[2024-01-01, 02]"):
        client.get_partition(db, "t", ["2024-01-01", "02"])


def test_get_missing_partition_is_no_such_object(client, db):
    """Observed on Hive 2.3: "partition values=[2024-01-01, 5]"; get_partition_by_name of a
    name lacking a key is NoSuchObjectException "incomplete partition name - missing hr", of an
    empty name MetaException "Partition name is invalid. "."""
    new_table(client, db)
    add(client, db, "t", ["2024-01-01", "2"])
    with raises_hms(NoSuchObjectException, "partition values=[2024-01-01, 5]"):
        client.get_partition(db, "t", ["2024-01-01", "5"])
    with raises_hms(NoSuchObjectException, "partition values=[2024-01-01, 5]"):
        client.get_partition_by_name(db, "t", "ds=2024-01-01/hr=5")
    with raises_hms(NoSuchObjectException, "incomplete partition name - missing hr"):
        client.get_partition_by_name(db, "t", "ds=2024-01-01")
    with raises_hms(NoSuchObjectException, "incomplete partition name - missing ds"):
        client.get_partition_by_name(db, "t", "garbage")
    with raises_hms(MetaException, "Partition name is invalid."):
        client.get_partition_by_name(db, "t", "")


def test_get_partitions_in_name_order_with_a_limit(client, shared, hive):
    """Observed on Hive 2.3: max_parts -1 (or any negative) is unlimited and 0 answers nothing."""
    db, table = shared
    everything = client.get_partitions(db, table, -1)
    assert [tuple(p.values) for p in everything] == SHARED
    assert_catalog(everything, hive)
    assert hrs(client.get_partitions(db.upper(), table.upper(), 3)) == [23, 1, 10]
    assert hrs(client.get_partitions(db, table, -5)) == [int(hr) for _, hr in SHARED]
    assert client.get_partitions(db, table, 0) == []


def test_get_partition_names_in_name_order_with_a_limit(client, shared):
    """Names sort as text: `hr=10` before `hr=2`, `ABC` before `abc`. Observed on Hive 2.3:
    max_parts 0 answers every name here (while get_partitions with 0 answers none)."""
    db, table = shared
    assert client.get_partition_names(db, table, -1) == SHARED_NAMES
    assert client.get_partition_names(db.upper(), table.upper(), 3) == SHARED_NAMES[:3]
    assert client.get_partition_names(db, table, 0) == SHARED_NAMES


def test_get_partitions_and_partition_with_auth(client, shared):
    db, table = shared
    assert hrs(client.get_partitions_with_auth(db, table, -1, "someone", ["g"])) == [
        int(hr) for _, hr in SHARED]
    assert hrs(client.get_partitions_with_auth(db, table, 2, "someone", [])) == [23, 1]
    got = client.get_partition_with_auth(db, table, ["ABC", "7"], "someone", ["g"])
    assert got.values == ["ABC", "7"]


@pytest.mark.parametrize("spec, expected_hrs", [
    (["2024-01-01"], [1, 10, 2]),
    (["2024-01-01", ""], [1, 10, 2]),
    (["", "2"], [2]),
    (["2024-01-01", "2"], [2]),
    (["", ""], [int(hr) for _, hr in SHARED]),
    (["x", ""], []),
    (["abc", ""], []),
    (["say \"hi\"", ""], [9]),
    (["x%y"], [12]),
], ids=["prefix", "prefix-and-any", "any-and-value", "full", "all-any", "none", "case", "quote",
        "percent"])
def test_partial_spec_lookups(client, shared, spec, expected_hrs):
    """An empty string matches any value of its key, missing trailing values match anything.
    Observed on Hive 2.3: with every value empty the answer is the full listing, in name order;
    otherwise get_partitions_ps(_with_auth) and get_partition_names_ps answer in insertion order
    (their query has no ORDER BY), so the answers are compared in name order."""
    db, table = shared
    by_name = sorted(shared_names(*expected_hrs))
    assert sorted(shared_names(*hrs(client.get_partitions_ps(db, table, spec, -1)))) == by_name
    assert sorted(client.get_partition_names_ps(db, table, spec, -1)) == by_name
    assert sorted(shared_names(*hrs(client.get_partitions_ps_with_auth(
        db, table, spec, -1, "someone", ["g"])))) == by_name
    if not any(spec):
        assert hrs(client.get_partitions_ps(db, table, spec, -1)) == expected_hrs


def test_partial_spec_lookups_with_limits_and_errors(client, shared):
    """Observed on Hive 2.3: max_parts 0 answers nothing; an empty value list is MetaException
    "Invalid partition key & values; keys [], values []". The partitions of ds=2024-01-01 were
    added in name order, so the first two are the same in insertion and in name order."""
    db, table = shared
    assert hrs(client.get_partitions_ps(db, table, ["2024-01-01"], 2)) == [1, 10]
    assert client.get_partition_names_ps(db, table, ["2024-01-01"], 2) == shared_names(1, 10)
    assert client.get_partitions_ps(db, table, ["2024-01-01"], 0) == []
    assert client.get_partition_names_ps(db, table, ["2024-01-01"], 0) == []
    assert client.get_partitions_ps_with_auth(db, table, ["", "1"], 0, "someone", []) == []
    with raises_hms(MetaException, "Invalid partition key & values; keys [], values []"):
        client.get_partitions_ps(db, table, [], -1)
    with raises_hms(MetaException, "Invalid partition key & values; keys [], values []"):
        client.get_partition_names_ps(db, table, [], -1)


def test_partial_spec_values_match_exactly_on_hivestore(server, client, db):
    """Hive (2.3 and 4, MetaStoreUtils.makePartNameMatcher) builds a pattern from the escaped
    values, unquoted, and appends `.*` (not `/.*`) when values are missing. Observed on Hive 2.3:
    `.` matches any character (["2024-01-0.", ""] matches ds=2024-01-01 and 2024-01-02), and with
    trailing values omitted the last given value is a prefix (["abc"] matches ds=abc-2024).
    hive-partition-filter.md §6 asks a reimplementation to match exactly instead; clients (Hive's
    ql layer, Trino) send one value per key, where the two agree."""
    new_table(client, db)
    add(client, db, "t", ["2024-01-01", "1"], ["2024-01-02", "2"], ["2024-01-0.", "3"],
        ["abc", "4"], ["abc-2024", "5"])
    dotted = sorted(vals(client.get_partitions_ps(db, "t", ["2024-01-0.", ""], -1)))
    prefix = sorted(vals(client.get_partitions_ps(db, "t", ["abc"], -1)))
    prefix_names = sorted(client.get_partition_names_ps(db, "t", ["abc"], -1))
    if server.external:
        assert dotted == [["2024-01-0.", "3"], ["2024-01-01", "1"], ["2024-01-02", "2"]]
        assert prefix == [["abc", "4"], ["abc-2024", "5"]]
        assert prefix_names == ["ds=abc-2024/hr=5", "ds=abc/hr=4"]
    else:
        assert dotted == [["2024-01-0.", "3"]]
        assert prefix == [["abc", "4"]]
        assert prefix_names == ["ds=abc/hr=4"]


def test_get_partitions_by_names(client, shared, hive):
    """Observed on Hive 2.3: missing names are silently left out, duplicates answered once, the
    answer is in name order (not request order), names match exactly (case and key order)."""
    db, table = shared
    found = client.get_partitions_by_names(db, table, [
        "ds=xay/hr=13", "ds=2024-01-01/hr=2", "ds=nope/hr=1", "ds=2024-01-01/hr=77",
        "ds=it%27s/hr=8", "ds=2024-01-01/hr=2", "DS=ABC/HR=7", "hr=7/ds=ABC", "garbage"])
    assert hrs(found) == [2, 8, 13]
    assert_catalog(found, hive)
    assert client.get_partitions_by_names(db.upper(), table.upper(), ["ds=ABC/hr=7"])[0].values == [
        "ABC", "7"]
    assert client.get_partitions_by_names(db, table, []) == []


# ---------------------------------------------------------------- filters

# A filter hivestore refuses with MetaException "Error parsing partition filter".
REFUSED = "refused"

# (filter, hr values of the matching shared partitions in name order on Hive 2.3[, the same on
# hivestore where it differs, or REFUSED]).
FILTERS = [
    ('ds = "2024-01-01"', [1, 10, 2]),
    ("ds = '2024-01-01'", [1, 10, 2]),
    ('ds <> "2024-01-01"', [23, 3, 20, 7, 5, 8, 9, 12, 11, 13]),
    ('ds != "2024-01-01"', [23, 3, 20, 7, 5, 8, 9, 12, 11, 13]),
    ('ds < "2024-01-02"', [23, 1, 10, 2]),
    ('ds <= "2024-01-02"', [23, 1, 10, 2, 3]),
    ('ds > "2024-01-02"', [20, 7, 5, 8, 9, 12, 11, 13]),
    ('ds >= "2024-01-02"', [3, 20, 7, 5, 8, 9, 12, 11, 13]),
    ('"2024-01-02" <= ds', [3, 20, 7, 5, 8, 9, 12, 11, 13]),
    ('hr = 2', [2]),
    ('hr <> 2', [23, 1, 10, 3, 20, 7, 5, 8, 9, 12, 11, 13]),
    ('hr > 9', [23, 10, 20, 12, 11, 13]),
    ('hr >= 10', [23, 10, 20, 12, 11, 13]),
    ('hr < 3', [1, 2]),
    ('hr <= 3', [1, 2, 3]),
    ('9 < hr', [23, 10, 20, 12, 11, 13]),
    ('hr = 010', [10]),
    ('hr = -5', []),
    ('ds = "2024-01-01" and hr = 2', [2]),
    ('ds = "2024-01-01" AND hr > 1', [10, 2]),
    ('ds = "2024-01-02" or hr = 10', [10, 3]),
    ('ds = "2024-01-02" OR hr = 10 and ds = "x"', [3]),
    ('(ds = "2024-01-02" OR hr = 10) and ds = "x"', []),
    ('(ds = "2024-01-02" or hr = 10) and ds = "2024-01-01"', [10]),
    ('((hr = 1) or (hr = 2)) and (ds = "2024-01-01")', [1, 2]),
    ('hr between 2 and 10', [10, 2, 3, 7, 5, 8, 9]),
    ('hr not between 2 and 10', [23, 1, 20, 12, 11, 13]),
    ('ds between "2024-01-01" and "2024-01-02"', [1, 10, 2, 3]),
    ('(ds) in ("ABC", "xay")', [7, 13]),
    ('(hr) in (1, 10)', [1, 10]),
    ('(hr) not in (1, 10)', [23, 2, 3, 20, 7, 5, 8, 9, 12, 11, 13]),
    ('(ds) IN ("ABC")', [7]),
    ('DS = "ABC"', [7]),
    ('ds = "abc"', []),
    ('ds = "it\'s"', [8]),
    ("ds = 'say \"hi\"'", [9]),
    ("ds = 'it\\'s'", []),
    ('ds = "x%y"', [12]),
    (" ds\t=\n'xay' ", [13]),
    ("", [int(hr) for _, hr in SHARED]),
    # Hive 2.3 ignores what follows the first complete condition; hivestore refuses it as
    # bad syntax (issue "Partitions": bad syntax is a MetaException quoting the filter).
    ('ds = "ABC" garbage', [7], REFUSED),
    ('ds = "ABC" andd hr = 1', [7], REFUSED),
    ('ds = "ABC" )', [7], REFUSED),
    # LIKE is a Java regex matched against the whole value (JDOQL String.matches): Spark's
    # StartsWith/EndsWith/Contains pushdown (`.*x.*`) relies on it; SQL's % and _ are literal.
    ('ds like ".*abc.*"', [5]),
    ('ds like "2024.*"', [1, 10, 2, 3, 20]),
    ('ds like ".*-01"', [1, 10, 2, 20]),
    ('ds LIKE "ABC"', [7]),
    ('ds like "abc"', []),
    ('ds like "(?i)abc"', [7]),
    ('ds like "x.y"', [12, 11, 13]),
    # hivestore also takes SQL's wildcards, as the issue asks and Hive 4's direct SQL does.
    ('ds like "x_y"', [11], [12, 11, 13]),
    ('ds like "x%y"', [12], [12, 11, 13]),
    ('ds like "2024-01%"', [], [1, 10, 2, 3]),
    ('ds like "%abc%"', [], [5]),
]


@pytest.mark.parametrize("case", FILTERS, ids=[f"{i:02d}:{f[0]}" for i, f in enumerate(FILTERS)])
def test_get_partitions_by_filter(server, client, shared, case):
    """Observed on Hive 2.3, which evaluates with direct SQL (string keys compared as text, int
    keys as numbers, `hr = 010` is hr 10) and falls back to JDOQL for LIKE. AND binds tighter than
    OR; keywords and key names are case-blind, values are not; quotes are stripped but backslash
    escapes are not decoded ('it\\'s' is the value `it\\'s`); an empty filter matches everything.
    Hive 2.3 stops parsing after the first complete condition and ignores what follows
    (`ds = "ABC" garbage` and `ds = "ABC" )` are `ds = "ABC"`); Hive 4's grammar has no EOF
    either."""
    db, table = shared
    filter_text, expected_hrs = case[0], case[1]
    if len(case) > 2 and not server.external:
        expected_hrs = case[2]
    if expected_hrs == REFUSED:
        with raises_hms(MetaException, "Error parsing partition filter", filter_text):
            client.get_partitions_by_filter(db, table, filter_text, -1)
        return
    assert hrs(client.get_partitions_by_filter(db, table, filter_text, -1)) == expected_hrs
    assert client.get_num_partitions_by_filter(db, table, filter_text) == len(expected_hrs)


def test_get_partitions_by_filter_limits(client, shared):
    """Observed on Hive 2.3: max_parts counts in name order; 0 answers nothing."""
    db, table = shared
    assert hrs(client.get_partitions_by_filter(db, table, 'ds >= "2024-01-01"', 2)) == [1, 10]
    assert client.get_partitions_by_filter(db, table, 'ds >= "2024-01-01"', 0) == []
    assert hrs(client.get_partitions_by_filter(db.upper(), table.upper(), "hr = 7", -1)) == [7]


FILTER_ERRORS = [
    ('ds = "2024-01-01" and', "Error parsing partition filter"),
    ("ds = 1.5", "Error parsing partition filter"),
    ("ds is null", "Error parsing partition filter"),
    ('not ds = "x"', "Error parsing partition filter"),
    ('NOT (ds = "x")', "Error parsing partition filter"),
    # hivestore takes IN with a bare key too: ('ds in ("ABC")' is tested below).
    ('ds in ("ABC")', "Error parsing partition filter"),
    ("(ds = 'a'", "Error parsing partition filter"),
    ("ds = ", "Error parsing partition filter"),
    ("= 'a'", "Error parsing partition filter"),
    ("ds = 'a", "Error parsing partition filter"),
    ('foo = "1"', "Specified key <foo> is not a partitioning key for the table"),
    ("id = 1", "Specified key <id> is not a partitioning key for the table"),
    ('hr = "2"', "Filtering is supported only on partition keys of type string"),
    ('hr > "5"', "Filtering is supported only on partition keys of type string"),
    ("ds = 2024", "Filtering is supported only on partition keys of type string"),
    ('hr like "1.*"', "Filtering is supported only on partition keys of type string"),
    ("'a' like ds", "Value should be on the RHS for LIKE operator : Key <ds>"),
]


@pytest.mark.parametrize("filter_text, fragment", FILTER_ERRORS,
                         ids=[f"{i:02d}:{f[0]}" for i, f in enumerate(FILTER_ERRORS)])
def test_bad_filters_are_meta_exception(server, client, shared, filter_text, fragment):
    """Observed on Hive 2.3: the message does not quote the filter. Syntax errors read "Error
    parsing partition filter; lexer error: null; exception NoViableAltException(19@[])" or
    "Error parsing partition filter : line 1:6 no viable alternative at character '.'"; there is
    no unary NOT, no IS NULL, and IN needs the key in parentheses. An unknown or data column is
    "Specified key <foo> is not a partitioning key for the table". Comparing an int key with a
    string or a string key with a number (a bare date is a number here) is not pushed down and
    the JDOQL fallback answers "Filtering is supported only on partition keys of type string"."""
    db, table = shared
    if filter_text == 'ds in ("ABC")' and not server.external:
        assert hrs(client.get_partitions_by_filter(db, table, filter_text, -1)) == [7]
        return
    with raises_hms(MetaException, fragment):
        client.get_partitions_by_filter(db, table, filter_text, -1)
    with raises_hms(MetaException, fragment):
        client.get_num_partitions_by_filter(db, table, filter_text)


def test_filter_generation_differences(client, shared, hive):
    """Hive 4's filter grammar (PartitionFilter.g4) adds `==` and backquoted identifiers, which
    Hive 2.3 rejects ("Error parsing partition filter : line 1:3 no viable alternative at
    character '`'")."""
    db, table = shared
    for filter_text in ('ds == "ABC"', '`ds` = "ABC"'):
        if hive < 4:
            with raises_hms(MetaException, "Error parsing partition filter"):
                client.get_partitions_by_filter(db, table, filter_text, -1)
        else:
            assert hrs(client.get_partitions_by_filter(db, table, filter_text, -1)) == [7]


def test_like_next_to_an_int_key(server, client, shared):
    """Hive 2.3 cannot push LIKE down to SQL, so the whole filter goes to JDOQL, which refuses
    the int key: `hr > 2 and ds like "2024.*"` is MetaException "Filtering is supported only on
    partition keys of type string" there, although each half works alone. That is an accident of
    its two evaluators; hivestore answers the conjunction."""
    db, table = shared
    filter_text = 'hr > 2 and ds like "2024.*"'
    if server.external:
        with raises_hms(MetaException,
                        "Filtering is supported only on partition keys of type string"):
            client.get_partitions_by_filter(db, table, filter_text, -1)
    else:
        assert hrs(client.get_partitions_by_filter(db, table, filter_text, -1)) == [10, 3, 20]
        assert client.get_num_partitions_by_filter(db, table, filter_text) == 3


def test_filters_and_the_default_partition_of_an_int_key(client, db, hive):
    """Observed on Hive 2.3: the default partition of an int key never matches a numeric
    comparison, not even <>; a partial spec with an empty value matches it. Hive 4 accepts
    `hr = "__HIVE_DEFAULT_PARTITION__"` on an int key and matches the default partition with it;
    Hive 2.3 refuses it ("Filtering is supported only on partition keys of type string")."""
    client.create_table(make_table(db, "ti", columns=COLUMNS,
                                   partition_keys=[FieldSchema("hr", "int", None)]))
    add(client, db, "ti", [DEFAULT_PARTITION], ["5"])
    assert client.get_partition_names(db, "ti", -1) == ["hr=5", f"hr={DEFAULT_PARTITION}"]
    assert vals(client.get_partitions_by_filter(db, "ti", "hr > 1", -1)) == [["5"]]
    assert client.get_partitions_by_filter(db, "ti", "hr <> 5", -1) == []
    assert client.get_num_partitions_by_filter(db, "ti", "hr <> 5") == 0
    assert vals(client.get_partitions_ps(db, "ti", [""], -1)) == [["5"], [DEFAULT_PARTITION]]
    assert vals(client.get_partitions_ps(db, "ti", [DEFAULT_PARTITION], -1)) == [
        [DEFAULT_PARTITION]]
    default_filter = f'hr = "{DEFAULT_PARTITION}"'
    if hive < 4:
        with raises_hms(MetaException,
                        "Filtering is supported only on partition keys of type string"):
            client.get_partitions_by_filter(db, "ti", default_filter, -1)
    else:
        assert vals(client.get_partitions_by_filter(db, "ti", default_filter, -1)) == [
            [DEFAULT_PARTITION]]


# ---------------------------------------------------------------- alter and rename

def test_alter_partition_replaces_it_and_keeps_its_identity(client, db):
    """The new Partition replaces parameters and storage; createTime and location stay.
    transient_lastDdlTime is set to now when absent or "0", else kept (observed on Hive 2.3)."""
    table_dir = new_table(client, db)
    add(client, db, "t", ["a", "1"])
    original = client.get_partition(db, "t", ["a", "1"])
    changed = client.get_partition(db, "t", ["a", "1"])
    changed.parameters = {"new": "1"}
    changed.sd.cols = [FieldSchema("id", "int", None), FieldSchema("extra", "string", None)]
    before = int(time.time())
    client.alter_partition(db.upper(), "T", changed)
    got = client.get_partition(db, "t", ["a", "1"])
    assert [(c.name, c.type) for c in got.sd.cols] == [("id", "int"), ("extra", "string")]
    assert got.createTime == original.createTime
    assert local_path(got.sd.location) == os.path.join(table_dir, "ds=a", "hr=1")
    assert set(user_params(got)) == {"new", "transient_lastDdlTime"}
    assert int(got.parameters["transient_lastDdlTime"]) >= before - CLOCK_SLACK_S
    changed.parameters = {"transient_lastDdlTime": "0", "x": "y"}
    client.alter_partition(db, "t", changed)
    got = client.get_partition(db, "t", ["a", "1"])
    assert user_params(got)["x"] == "y"
    assert int(got.parameters["transient_lastDdlTime"]) >= before - CLOCK_SLACK_S
    changed.parameters = {"transient_lastDdlTime": "123"}
    client.alter_partition(db, "t", changed)
    assert user_params(client.get_partition(db, "t", ["a", "1"])) == {
        "transient_lastDdlTime": "123"}


def test_alter_missing_partition_is_invalid_operation(client, db):
    """Observed on Hive 2.3: InvalidOperationException "alter is not possible"."""
    new_table(client, db)
    with raises_hms(InvalidOperationException, "alter is not possible"):
        client.alter_partition(db, "t", part(db, "t", ["zz", "1"]))


def test_alter_partitions_is_all_or_nothing(client, db):
    """Observed on Hive 2.3: one missing partition fails the batch with InvalidOperationException
    "Alter partition operation failed: NoSuchObjectException(message:partition values=[nope, 9])"
    and none of the others changes; an empty batch is accepted."""
    new_table(client, db)
    add(client, db, "t", ["a", "1"], ["b", "1"])
    batch = client.get_partitions(db, "t", -1)
    for partition in batch:
        partition.parameters = {"batch": "1"}
    client.alter_partitions(db, "t", batch)
    assert [user_params(p)["batch"] for p in client.get_partitions(db, "t", -1)] == ["1", "1"]
    for partition in batch:
        partition.parameters = {"batch": "2"}
    with raises_hms(InvalidOperationException, "Alter partition operation failed: ",
                    "partition values=[nope, 9]"):
        client.alter_partitions(db, "t", batch + [part(db, "t", ["nope", "9"])])
    assert [user_params(p)["batch"] for p in client.get_partitions(db, "t", -1)] == ["1", "1"]
    client.alter_partitions(db, "t", [])


def test_rename_partition_moves_its_directory(client, db):
    table_dir = new_table(client, db)
    add(client, db, "t", ["a", "1"], ["a", "2"])
    with open(os.path.join(table_dir, "ds=a", "hr=2", "part-0"), "w") as data:
        data.write("x\n")
    renamed = client.get_partition(db, "t", ["a", "2"])
    renamed.values = ["re/named", "20"]
    client.rename_partition(db, "T", ["a", "2"], renamed)
    assert client.get_partition_names(db, "t", -1) == ["ds=a/hr=1", "ds=re%2Fnamed/hr=20"]
    got = client.get_partition(db, "t", ["re/named", "20"])
    new_dir = os.path.join(table_dir, "ds=re%2Fnamed", "hr=20")
    assert local_path(got.sd.location) == new_dir
    assert os.path.isfile(os.path.join(new_dir, "part-0"))
    assert not os.path.exists(os.path.join(table_dir, "ds=a", "hr=2"))
    with raises_hms(NoSuchObjectException, "partition values=[a, 2]"):
        client.get_partition(db, "t", ["a", "2"])


def test_rename_partition_errors(client, db):
    """Observed on Hive 2.3: renaming onto an existing partition is InvalidOperationException
    "Partition already exists:<db>.t.[a, 1]", renaming a missing one "Unable to rename partition
    because old partition does not exist"."""
    new_table(client, db)
    add(client, db, "t", ["a", "1"], ["b", "1"])
    target = client.get_partition(db, "t", ["b", "1"])
    target.values = ["a", "1"]
    with raises_hms(InvalidOperationException, "Partition already exists:", "[a, 1]"):
        client.rename_partition(db, "t", ["b", "1"], target)
    target.values = ["c", "1"]
    with raises_hms(InvalidOperationException,
                    "Unable to rename partition because old partition does not exist"):
        client.rename_partition(db, "t", ["missing", "1"], target)
    target.values = ["c"]
    with raises_hms(MetaException, "Invalid partition key & values; keys [ds, hr, ], values [c, ]"):
        client.rename_partition(db, "t", ["b", "1"], target)
    assert client.get_partition_names(db, "t", -1) == ["ds=a/hr=1", "ds=b/hr=1"]


def test_rename_partition_with_no_old_values_alters(client, db):
    """rename_partition with an empty part_vals is alter_partition (that is how Hive's
    alter_partition is implemented)."""
    new_table(client, db)
    add(client, db, "t", ["a", "1"])
    changed = client.get_partition(db, "t", ["a", "1"])
    changed.parameters = {"via": "rename"}
    client.rename_partition(db, "t", [], changed)
    assert user_params(client.get_partition(db, "t", ["a", "1"]))["via"] == "rename"


# ---------------------------------------------------------------- drop

def test_drop_partition_with_delete_data_removes_its_directory(client, db):
    """Observed on Hive 2.3: the partition directory goes, and so do parent directories left
    empty (ds=b once its last hr is dropped), up to the table directory."""
    table_dir = new_table(client, db)
    add(client, db, "t", ["a", "1"], ["a", "2"], ["b", "1"])
    with open(os.path.join(table_dir, "ds=a", "hr=1", "part-0"), "w") as data:
        data.write("x\n")
    assert client.drop_partition(db.upper(), "T", ["a", "1"], True) is True
    assert not os.path.exists(os.path.join(table_dir, "ds=a", "hr=1"))
    assert os.path.isdir(os.path.join(table_dir, "ds=a", "hr=2"))
    assert client.drop_partition(db, "t", ["b", "1"], True) is True
    assert not os.path.exists(os.path.join(table_dir, "ds=b"))
    assert os.path.isdir(table_dir)
    assert client.get_partition_names(db, "t", -1) == ["ds=a/hr=2"]


def test_drop_partition_without_delete_data_keeps_its_directory(client, db):
    table_dir = new_table(client, db)
    add(client, db, "t", ["a", "1"])
    assert client.drop_partition(db, "t", ["a", "1"], False) is True
    assert os.path.isdir(os.path.join(table_dir, "ds=a", "hr=1"))
    assert client.get_partition_names(db, "t", -1) == []
    with raises_hms(NoSuchObjectException, "partition values=[a, 1]"):
        client.drop_partition(db, "t", ["a", "1"], False)


def test_drop_partition_by_name(client, db):
    """Observed on Hive 2.3: the same errors as get_partition_by_name."""
    table_dir = new_table(client, db)
    add(client, db, "t", ["a/b", "1"], ["c", "2"])
    assert client.drop_partition_by_name(db, "t", "ds=a%2Fb/hr=1", True) is True
    assert not os.path.exists(os.path.join(table_dir, "ds=a%2Fb"))
    with raises_hms(NoSuchObjectException, "partition values=[a/b, 1]"):
        client.drop_partition_by_name(db, "t", "ds=a%2Fb/hr=1", True)
    with raises_hms(NoSuchObjectException, "incomplete partition name - missing hr"):
        client.drop_partition_by_name(db, "t", "ds=c", True)
    with raises_hms(MetaException, "Partition name is invalid."):
        client.drop_partition_by_name(db, "t", "", True)
    assert client.drop_partition_by_name(db, "t", "hr=2/ds=c", False) is True
    assert os.path.isdir(os.path.join(table_dir, "ds=c", "hr=2"))
    assert client.get_partition_names(db, "t", -1) == []


def test_drop_partitions_req(client, db):
    """Observed on Hive 2.3: with ifExists (the default) missing names are skipped and the result
    lists what was dropped; without it one missing name fails the request with
    NoSuchObjectException "Some partitions to drop are missing" and nothing is dropped;
    needResult=false answers no list; an empty name list drops nothing."""
    table_dir = new_table(client, db)
    add(client, db, "t", ["a", "1"], ["a", "2"], ["b", "1"], ["c", "1"])
    result = client.drop_partitions_req(DropPartitionsRequest(
        dbName=db, tblName="t", parts=RequestPartsSpec(names=["ds=a/hr=2", "ds=zz/hr=1",
                                                              "ds=a/hr=1"]),
        deleteData=True, ifExists=True, needResult=True))
    assert sorted(vals(result.partitions)) == [["a", "1"], ["a", "2"]]
    assert not os.path.exists(os.path.join(table_dir, "ds=a"))
    with raises_hms(NoSuchObjectException, "Some partitions to drop are missing"):
        client.drop_partitions_req(DropPartitionsRequest(
            dbName=db, tblName="t", parts=RequestPartsSpec(names=["ds=b/hr=1", "ds=zz/hr=1"]),
            deleteData=True, ifExists=False, needResult=True))
    assert client.get_partition_names(db, "t", -1) == ["ds=b/hr=1", "ds=c/hr=1"]
    result = client.drop_partitions_req(DropPartitionsRequest(
        dbName=db, tblName="t", parts=RequestPartsSpec(names=["ds=b/hr=1"]), deleteData=False,
        ifExists=False, needResult=False))
    assert result.partitions is None
    assert os.path.isdir(os.path.join(table_dir, "ds=b", "hr=1"))
    result = client.drop_partitions_req(DropPartitionsRequest(
        dbName=db, tblName="t", parts=RequestPartsSpec(names=[]), deleteData=False,
        ifExists=False, needResult=True))
    assert result.partitions == []
    assert client.get_partition_names(db, "t", -1) == ["ds=c/hr=1"]


def test_drop_partition_of_an_external_table_keeps_its_data(client, db, tmp_path):
    new_table(client, db, "ext", table_type="EXTERNAL_TABLE", parameters={"EXTERNAL": "TRUE"},
              location=str(tmp_path / "ext"))
    add(client, db, "ext", ["a", "1"])
    assert (tmp_path / "ext" / "ds=a" / "hr=1").is_dir()
    assert client.drop_partition(db, "ext", ["a", "1"], True) is True
    assert (tmp_path / "ext" / "ds=a" / "hr=1").is_dir()
    assert client.get_partition_names(db, "ext", -1) == []


def test_drop_partition_at_its_own_location_removes_it(client, db, tmp_path):
    """A managed table's partition outside the table directory: deleteData removes it."""
    new_table(client, db)
    location = tmp_path / "custom"
    client.add_partition(part(db, "t", ["loc", "1"], location=str(location)))
    assert location.is_dir()
    client.drop_partition(db, "t", ["loc", "1"], True)
    assert not location.exists()


# Values a trim, a case fold, a `%` decoding, a path normalisation or a unicode normalisation
# would make one: each pair is two partitions, and must be two directories.
LOOK_ALIKE_VALUES = [("x", "x "), ("x", "\tx"), ("x", "X"), ("A", "%41"), ("a%2Fb", "a/b"),
                     ("a/b", "a//b"), ("b", "a/../b"), (".", ".."), ("\u00e9", "e\u0301")]


def test_look_alike_values_keep_their_own_directories(client, db):
    """Partition names are escaped as Hive escapes them (a tab as `%09`; spaces, case and non-ASCII
    kept as they are) and the location is used exactly as escaped, so two partitions never
    share a directory: deleteData of one leaves the other's files and listing. hivestore once
    trimmed locations on their way to the filesystem, so dropping `p=x ` deleted `p=x`'s files."""
    table_dir = new_table(client, db, "alike", keys=[FieldSchema("p", "string")])
    for kept, doomed in LOOK_ALIKE_VALUES:
        client.add_partition(part(db, "alike", [kept]))
        client.add_partition(part(db, "alike", [doomed]))
        kept_dir = client.get_partition(db, "alike", [kept]).sd.location
        doomed_dir = client.get_partition(db, "alike", [doomed]).sd.location
        kept_dir, doomed_dir = kept_dir[len("file:"):], doomed_dir[len("file:"):]
        assert os.path.dirname(kept_dir) == os.path.dirname(doomed_dir) == table_dir
        assert os.path.realpath(kept_dir) != os.path.realpath(doomed_dir), (kept, doomed)
        for directory, content in ((kept_dir, "kept"), (doomed_dir, "doomed")):
            with open(os.path.join(directory, "part-0"), "w") as data:
                data.write(content)
        assert client.drop_partition(db, "alike", [doomed], True) is True
        assert not os.path.exists(doomed_dir), (kept, doomed)
        with open(os.path.join(kept_dir, "part-0")) as data:
            assert data.read() == "kept", (kept, doomed)
        assert client.get_partition(db, "alike", [kept]).values == [kept]
        assert client.drop_partition(db, "alike", [kept], True) is True
    assert client.get_partition_names(db, "alike", -1) == []


def test_drop_with_data_of_a_directory_another_partition_uses_is_refused(server, client, db):
    """A location given with `..` (or `//`, `.`) can name the directory of another partition.
    Hive deletes it anyway; hivestore refuses the drop with deleteData (MetaException naming the
    location, nothing dropped) while a partition that stays, or the table, uses that directory
    or one inside it. Dropped with the other partition, or without deleteData, it goes."""
    if server.external:
        pytest.skip("hivestore's refusal: Hive deletes the shared directory")
    table_dir = new_table(client, db)
    add(client, db, "t", ["a", "1"])
    data_path = os.path.join(table_dir, "ds=a", "hr=1", "part-0")
    with open(data_path, "w") as data:
        data.write("kept\n")
    for value, location in (("b", f"{table_dir}/ds=z/../ds=a/hr=1"),
                            ("c", f"{table_dir}//ds=a/./hr=1/"),
                            ("d", f"{table_dir}/ds=a")):
        client.add_partition(part(db, "t", [value, "1"], location=location))
        with raises_hms(MetaException, f"ds={value}/hr=1", location, "ds=a/hr=1"):
            client.drop_partition(db, "t", [value, "1"], True)
        assert client.get_partition(db, "t", [value, "1"]).sd.location == location
        assert os.path.exists(data_path)
    with raises_hms(MetaException, "Refusing to delete"):
        client.drop_partitions_req(DropPartitionsRequest(
            dbName=db, tblName="t", parts=RequestPartsSpec(names=["ds=b/hr=1"]),
            deleteData=True, ifExists=False, needResult=True))
    assert client.drop_partition(db, "t", ["b", "1"], False) is True
    assert client.drop_partitions_req(DropPartitionsRequest(
        dbName=db, tblName="t", parts=RequestPartsSpec(names=["ds=a/hr=1", "ds=c/hr=1",
                                                              "ds=d/hr=1"]),
        deleteData=True, ifExists=False, needResult=False)) is not None
    assert not os.path.exists(data_path)
    assert os.path.isdir(table_dir)
    assert client.get_partition_names(db, "t", -1) == []


def test_get_partition_values(server, client, db):
    """get_partition_values: the values of the keys asked for, over the partitions the filter
    selects, distinct by default, ordered by partitionOrder (Hive 2.3 differs: see below)."""
    new_table(client, db)
    add(client, db, "t", ["a", "1"], ["a", "2"], ["b", "1"], ["c", "3"])
    hr, ds = FieldSchema("hr", "int"), FieldSchema("ds", "string")

    def rows(**fields):
        request = PartitionValuesRequest(dbName=db, tblName="t", **fields)
        response = call_or_skip_on_reference(server, client.get_partition_values, request)
        return [row.row for row in response.partitionValues]

    assert rows(partitionKeys=[ds]) == [["a"], ["b"], ["c"]]
    assert rows(partitionKeys=[ds], applyDistinct=False) == [["a"], ["a"], ["b"], ["c"]]
    assert rows(partitionKeys=[hr], partitionOrder=[hr]) == [["1"], ["2"], ["3"]]
    # Hive 2.3 ignores partitionOrder and ascending here (it answers [["1", "a"], ["1", "b"]]),
    # and with a filter answers every key's values ([["a", "1"], ["b", "1"]]).
    if not server.external:
        assert rows(partitionKeys=[hr, ds], partitionOrder=[hr], ascending=False,
                    maxParts=2) == [["3", "c"], ["2", "a"]]
        assert rows(partitionKeys=[ds], filter='hr = 1') == [["a"], ["b"]]
    # Hive 2.3's MetaException quotes a failed SQL query instead.
    with raises_hms(MetaException, "" if server.external else "nope is not a partition key"):
        rows(partitionKeys=[FieldSchema("nope", "string")])


def test_truncate_table_empties_the_named_partitions_or_all(server, client, db):
    """truncate_table (Hive 3+; skipped on 2.3) deletes the files of the partitions named, or
    of every partition without names, and keeps their directories and the partitions."""
    table_dir = new_table(client, db)
    add(client, db, "t", ["a", "1"], ["b", "2"])
    files = [os.path.join(table_dir, "ds=a", "hr=1", "part-0"),
             os.path.join(table_dir, "ds=b", "hr=2", "part-0")]
    for path in files:
        with open(path, "w") as data:
            data.write("x\n")
    call_or_skip_on_reference(server, client.truncate_table, db, "t", ["ds=a/hr=1", "ds=z/hr=9"])
    assert not os.path.exists(files[0]) and os.path.exists(files[1])
    assert os.path.isdir(os.path.dirname(files[0]))
    client.truncate_table(db, "t", None)
    assert not os.path.exists(files[1]) and os.path.isdir(os.path.dirname(files[1]))
    assert client.get_partition_names(db, "t", -1) == ["ds=a/hr=1", "ds=b/hr=2"]


def test_dropping_a_table_drops_its_partitions(client, db):
    table_dir = new_table(client, db)
    add(client, db, "t", ["z", "1"], ["z", "2"])
    client.drop_table(db, "t", True)
    assert not os.path.exists(table_dir)
    assert new_table(client, db) == table_dir
    assert client.get_partition_names(db, "t", -1) == []
    assert client.get_partitions(db, "t", -1) == []
    with raises_hms(NoSuchObjectException, "partition values=[z, 1]"):
        client.get_partition(db, "t", ["z", "1"])
    assert os.listdir(table_dir) == []


# ---------------------------------------------------------------- names and escaping

@pytest.mark.parametrize("name, values, spec", [
    ("ds=2024-01-01/hr=1", ["2024-01-01", "1"], {"ds": "2024-01-01", "hr": "1"}),
    ("ds=a%2Fb/hr=1", ["a/b", "1"], {"ds": "a/b", "hr": "1"}),
    ("a=1/b=2/c=x%3Dy", ["1", "2", "x=y"], {"a": "1", "b": "2", "c": "x=y"}),
    ("x%3Dy=1", ["1"], {"x=y": "1"}),
    ("A=1", ["1"], {"A": "1"}),
    ("a=%", ["%"], {"a": "%"}),
    ("a=%2", ["%2"], {"a": "%2"}),
    ("a=%zz", ["%zz"], {"a": "%zz"}),
    ("ds=2024-01-01/hr=1/", ["2024-01-01", "1"], {"ds": "2024-01-01", "hr": "1"}),
    ("a=b=c", ["c"], {"a=b": "c"}),
    ("a=1/b", ["1"], {"a": "1"}),
    ("a", [], {}),
    ("=1", [], {}),
    ("a=", [], {}),
    ("", [], {}),
], ids=["plain", "escaped-slash", "three", "escaped-key", "key-case", "lone-percent",
        "short-escape", "bad-escape", "trailing-slash", "two-equals", "part-without-equals",
        "no-equals", "no-key", "no-value", "empty"])
def test_partition_name_to_vals_and_spec(client, name, values, spec):
    """Observed on Hive 2.3 (Warehouse.makeSpecFromName): each `/` part is matched against
    `([^/]+)=([^/]+)` (greedy, so "a=b=c" is key "a=b", value "c"); parts that do not match are
    skipped; keys and values are unescaped, invalid escapes kept literally; keys keep their case."""
    assert client.partition_name_to_vals(name) == values
    assert client.partition_name_to_spec(name) == spec


def test_partition_name_has_valid_characters(client):
    """No metastore.partition.name.whitelist.pattern is configured: every value is valid."""
    for values in (["a", "b"], ["a/b"], ["a\u0001"], [], [""]):
        assert client.partition_name_has_valid_characters(values, False) is True
    assert client.partition_name_has_valid_characters(["a\u0001"], True) is True


# (value, its escaped form in partition names and directories)
SPECIAL_VALUES = [
    ("a/b", "a%2Fb"), ("x=1", "x%3D1"), ("50%", "50%25"), ("10:30:00", "10%3A30%3A00"),
    ("with space", "with space"), ("a#b?c*d", "a%23b%3Fc%2Ad"), ("tab\tx", "tab%09x"),
    ("q'\"", "q%27%22"), ("br[a]{c}^", "br%5Ba%5D%7Bc}%5E"), ("back\\s", "back%5Cs"),
    ("semi;co,mma", "semi;co,mma"), ("é€", "é€"),
]


def test_special_characters_are_escaped_in_names_and_directories(client, db):
    """FileUtils.escapePathName: `"#%'*/:=?\\^{[]` and control characters become %XX (upper-case
    hex); space, `,;}` and non-ASCII stay. Observed on Hive 2.3. Every lookup by name takes the
    escaped form; values come back unescaped."""
    table_dir = new_table(client, db)
    for hr, (value, _) in enumerate(SPECIAL_VALUES):
        added = client.add_partition(part(db, "t", [value, str(hr)]))
        assert added.values == [value, str(hr)]
    expected = sorted((f"ds={escaped}/hr={hr}", value, hr)
                      for hr, (value, escaped) in enumerate(SPECIAL_VALUES))
    assert client.get_partition_names(db, "t", -1) == [name for name, _, _ in expected]
    assert sorted(os.listdir(table_dir)) == sorted(f"ds={e}" for _, e in SPECIAL_VALUES)
    for name, value, hr in expected:
        assert client.partition_name_to_vals(name) == [value, str(hr)]
        got = client.get_partition_by_name(db, "t", name)
        assert got.values == [value, str(hr)]
        assert local_path(got.sd.location) == os.path.join(table_dir, *name.split("/"))
        assert os.path.isdir(os.path.join(table_dir, *name.split("/")))
        assert vals(client.get_partitions_ps(db, "t", [value], -1)) == [[value, str(hr)]]
        assert client.get_partition_names_ps(db, "t", [value, str(hr)], -1) == [name]
    assert vals(client.get_partitions_by_names(db, "t", ["ds=a%2Fb/hr=0", "ds=a/b/hr=0",
                                                          "ds=x%3D1/hr=1"])) == [
        ["a/b", "0"], ["x=1", "1"]]
    for value, hr in (("a/b", 0), ("x=1", 1), ("50%", 2), ("with space", 4)):
        assert vals(client.get_partitions_by_filter(db, "t", f'ds = "{value}"', -1)) == [
            [value, str(hr)]]


def test_an_empty_value_is_the_default_partition(server, client, db):
    """Observed on Hive 2.3: an empty value is stored as "" but named and placed as
    `__HIVE_DEFAULT_PARTITION__`, so it collides with the literal value of that name
    (AlreadyExistsException). get_partition answers the values as asked, so asking with either
    spelling finds it and echoes the spelling used. `ds = ""` finds the empty value,
    `ds = "__HIVE_DEFAULT_PARTITION__"` only a literal one.

    hivestore stores the empty value as the default partition's name (one partition, one
    spelling: its name, its directory and its values agree), so it answers that spelling."""
    table_dir = new_table(client, db)
    added = client.add_partition(part(db, "t", ["", "6"]))
    if not server.external:
        assert added.values == [DEFAULT_PARTITION, "6"]
        default_dir = os.path.join(table_dir, f"ds={DEFAULT_PARTITION}", "hr=6")
        assert local_path(added.sd.location) == default_dir
        with raises_hms(AlreadyExistsException, "Partition already exists: "):
            client.add_partition(part(db, "t", [DEFAULT_PARTITION, "6"]))
        assert client.get_partition(db, "t", ["", "6"]).values == [DEFAULT_PARTITION, "6"]
        assert vals(client.get_partitions_by_filter(
            db, "t", f'ds = "{DEFAULT_PARTITION}"', -1)) == [[DEFAULT_PARTITION, "6"]]
        return
    assert added.values == ["", "6"]
    default_dir = os.path.join(table_dir, f"ds={DEFAULT_PARTITION}", "hr=6")
    assert local_path(added.sd.location) == default_dir
    assert os.path.isdir(default_dir)
    with raises_hms(AlreadyExistsException, "Partition already exists: "):
        client.add_partition(part(db, "t", [DEFAULT_PARTITION, "6"]))
    add(client, db, "t", [DEFAULT_PARTITION, "7"])
    assert client.get_partition_names(db, "t", -1) == [
        f"ds={DEFAULT_PARTITION}/hr=6", f"ds={DEFAULT_PARTITION}/hr=7"]
    assert client.get_partition(db, "t", ["", "6"]).values == ["", "6"]
    assert client.get_partition(db, "t", [DEFAULT_PARTITION, "6"]).values == [
        DEFAULT_PARTITION, "6"]
    assert vals(client.get_partitions_by_filter(db, "t", 'ds = ""', -1)) == [["", "6"]]
    assert vals(client.get_partitions_by_filter(
        db, "t", f'ds = "{DEFAULT_PARTITION}"', -1)) == [[DEFAULT_PARTITION, "7"]]
    assert vals(client.get_partitions(db, "t", -1)) == [["", "6"], [DEFAULT_PARTITION, "7"]]


# ---------------------------------------------------------------- Hive 3/4 request forms
# Hive 2.3 answers each with UNKNOWN_METHOD, so these skip on the reference; they must answer
# what the old form answers.

def get_partitions_by_filter_req(client, request):
    """get_partitions_by_filter_req(GetPartitionsByFilterRequest) -> list<Partition> (Hive 4;
    not in pyiceberg 0.12's vendored IDL)."""
    return call_method(client, "get_partitions_by_filter_req",
                       [(1, TType.STRUCT, "req", [type(request), None], request)],
                       [(0, TType.LIST, "success", (TType.STRUCT, [Partition, None], False)),
                        (1, TType.STRUCT, "o1", [MetaException, None]),
                        (2, TType.STRUCT, "o2", [NoSuchObjectException, None])])


def get_partitions_by_filter_request_struct():
    return make_struct("GetPartitionsByFilterRequest", [
        (1, TType.STRING, "catName", "UTF8", None),
        (2, TType.STRING, "dbName", "UTF8", None),
        (3, TType.STRING, "tblName", "UTF8", None),
        (4, TType.STRING, "filter", "UTF8", None),
        (5, TType.I16, "maxParts", None, -1),
        (6, TType.BOOL, "skipColumnSchemaForPartition", None, None),
        (7, TType.STRING, "includeParamKeyPattern", "UTF8", None),
        (8, TType.STRING, "excludeParamKeyPattern", "UTF8", None),
    ])


def test_get_partitions_req(server, client, shared, hive):
    db, table = shared
    response = call_or_skip_on_reference(server, client.get_partitions_req,
                                         PartitionsRequest(dbName=db, tblName=table))
    assert vals(response.partitions) == vals(client.get_partitions(db, table, -1))
    assert_catalog(response.partitions, hive)
    response = client.get_partitions_req(PartitionsRequest(
        catName="hive", dbName=db.upper(), tblName=table.upper(), maxParts=3))
    assert hrs(response.partitions) == [23, 1, 10]
    with raises_hms(NoSuchObjectException, "nope table not found"):
        client.get_partitions_req(PartitionsRequest(dbName=db, tblName="nope"))


def test_get_partition_names_req(server, client, shared):
    """PartitionsByExprRequest with the one-byte expression 0xFF, which Hive's ObjectStore takes
    for "no filter" (a real expression is a Kryo-serialized ExprNodeDesc)."""
    db, table = shared
    names = call_or_skip_on_reference(server, client.get_partition_names_req,
                                      PartitionsByExprRequest(dbName=db, tblName=table,
                                                              expr=b"\xff"))
    assert names == client.get_partition_names(db, table, -1) == SHARED_NAMES
    assert client.get_partition_names_req(PartitionsByExprRequest(
        dbName=db, tblName=table, expr=b"\xff", maxParts=2, catName="hive")) == SHARED_NAMES[:2]


def test_get_partition_req(server, client, shared):
    db, table = shared
    response = call_or_skip_on_reference(server, client.get_partition_req, GetPartitionRequest(
        dbName=db, tblName=table, partVals=["ABC", "7"]))
    old = client.get_partition(db, table, ["ABC", "7"])
    assert response.partition.values == old.values == ["ABC", "7"]
    assert response.partition.sd.location == old.sd.location
    with raises_hms(NoSuchObjectException, "partition values=[ABC, 8]"):
        client.get_partition_req(GetPartitionRequest(catName="hive", dbName=db, tblName=table,
                                                     partVals=["ABC", "8"]))


def test_get_partitions_by_names_req(server, client, shared):
    db, table = shared
    names = ["ds=xay/hr=13", "ds=nope/hr=1", "ds=2024-01-01/hr=2"]
    result = call_or_skip_on_reference(server, client.get_partitions_by_names_req,
                                       GetPartitionsByNamesRequest(db_name=db, tbl_name=table,
                                                                   names=names))
    assert vals(result.partitions) == vals(client.get_partitions_by_names(db, table, names))
    assert hrs(result.partitions) == [2, 13]
    result = client.get_partitions_by_names_req(GetPartitionsByNamesRequest(
        db_name=f"@hive#{db}", tbl_name=table, names=["ds=ABC/hr=7"]))
    assert hrs(result.partitions) == [7]


def test_get_partitions_ps_with_auth_req(server, client, shared):
    db, table = shared
    response = call_or_skip_on_reference(
        server, client.get_partitions_ps_with_auth_req, GetPartitionsPsWithAuthRequest(
            dbName=db, tblName=table, partVals=["2024-01-01"], userName="someone",
            groupNames=["g"]))
    assert vals(response.partitions) == vals(client.get_partitions_ps(
        db, table, ["2024-01-01"], -1))
    assert hrs(response.partitions) == [1, 10, 2]
    response = client.get_partitions_ps_with_auth_req(GetPartitionsPsWithAuthRequest(
        catName="hive", dbName=db, tblName=table, partVals=["", "2"], maxParts=-1))
    assert hrs(response.partitions) == [2]


def test_get_partition_names_ps_req(server, client, shared):
    db, table = shared
    response = call_or_skip_on_reference(
        server, client.get_partition_names_ps_req, GetPartitionNamesPsRequest(
            dbName=db, tblName=table, partValues=["2024-01-01"]))
    assert sorted(response.names) == sorted(client.get_partition_names_ps(
        db, table, ["2024-01-01"], -1)) == shared_names(1, 10, 2)
    response = client.get_partition_names_ps_req(GetPartitionNamesPsRequest(
        catName="hive", dbName=db, tblName=table, partValues=["", "13"], maxParts=5))
    assert response.names == shared_names(13)


def test_get_partitions_by_filter_req(server, client, shared):
    db, table = shared
    request_class = get_partitions_by_filter_request_struct()
    found = call_or_skip_on_reference(server, get_partitions_by_filter_req, client, request_class(
        dbName=db, tblName=table, filter='ds = "2024-01-01" and hr > 1'))
    assert vals(found) == vals(client.get_partitions_by_filter(
        db, table, 'ds = "2024-01-01" and hr > 1', -1))
    assert hrs(found) == [10, 2]
    found = get_partitions_by_filter_req(client, request_class(
        catName="hive", dbName=db, tblName=table, filter='ds >= "2024-01-01"', maxParts=2))
    assert hrs(found) == [1, 10]
    with raises_hms(MetaException, "Specified key <foo> is not a partitioning key for the table"):
        get_partitions_by_filter_req(client, request_class(dbName=db, tblName=table,
                                                           filter='foo = "1"'))


def test_rename_partition_req(server, client, db):
    table_dir = new_table(client, db)
    add(client, db, "t", ["a", "1"], ["b", "1"])
    renamed = client.get_partition(db, "t", ["a", "1"])
    renamed.values = ["z", "9"]
    call_or_skip_on_reference(server, client.rename_partition_req, RenamePartitionRequest(
        dbName=db, tableName="t", partVals=["a", "1"], newPart=renamed))
    assert client.get_partition_names(db, "t", -1) == ["ds=b/hr=1", "ds=z/hr=9"]
    assert local_path(client.get_partition(db, "t", ["z", "9"]).sd.location) == os.path.join(
        table_dir, "ds=z", "hr=9")
    renamed.values = ["b", "1"]
    with raises_hms(InvalidOperationException, "Partition already exists:"):
        client.rename_partition_req(RenamePartitionRequest(
            catName="hive", dbName=db, tableName="t", partVals=["z", "9"], newPart=renamed))


def test_alter_partitions_req(server, client, db):
    new_table(client, db)
    add(client, db, "t", ["a", "1"], ["b", "1"])
    batch = client.get_partitions(db, "t", -1)
    for partition in batch:
        partition.parameters = {"via": "req"}
    call_or_skip_on_reference(server, client.alter_partitions_req, AlterPartitionsRequest(
        dbName=db, tableName="t", partitions=batch))
    assert [user_params(p)["via"] for p in client.get_partitions(db, "t", -1)] == ["req", "req"]
    with raises_hms(InvalidOperationException, "Alter partition operation failed: "):
        client.alter_partitions_req(AlterPartitionsRequest(
            catName="hive", dbName=db, tableName="t",
            partitions=batch + [part(db, "t", ["nope", "9"])]))


# ---------------------------------------------------------------- hmsclient 0.1.1

def test_hmsclient_partition_flow(server, client, db):
    """hmsclient's helpers: add_partition(table, values) builds the Partition from the table's
    storage descriptor (location `<table>/ds=a/hr=1`, unescaped); check_for_named_partition;
    drop_partitions(db, t, names, need_result) builds DropPartitionsRequest positionally, so
    need_result lands in deleteData; drop_all_partitions calls get_partition_names without
    max_parts, which its own generated client refuses (TypeError)."""
    from hmsclient import hmsclient
    from hmsclient.genthrift.hive_metastore import ttypes as hms_types

    table_dir = new_table(client, db)
    with hmsclient.HMSClient(host=server.host, port=server.port) as hms:
        hms._oprot.trans._TBufferedTransport__trans.setTimeout(10_000)
        table = hms.get_table(db, "t")
        for values in (["a", "1"], ["b", "2"], ["c", "3"]):
            hms.add_partition(table, values)
        with pytest.raises(ValueError):
            hms.add_partition(table, ["a"])
        assert local_path(hms.get_partition(db, "t", ["a", "1"]).sd.location) == os.path.join(
            table_dir, "ds=a", "hr=1")
        assert hms.check_for_named_partition(db, "t", "ds=a/hr=1") is True
        assert hms.check_for_named_partition(db, "t", "ds=z/hr=1") is False
        assert hms.get_partition_names(db, "t", -1) == ["ds=a/hr=1", "ds=b/hr=2", "ds=c/hr=3"]
        assert vals(hms.get_partitions_by_filter(db, "t", "ds = 'c'", -1)) == [["c", "3"]]
        assert vals(hms.get_partitions_ps(db, "t", ["b"], -1)) == [["b", "2"]]
        assert hms.partition_name_to_spec("ds=c/hr=3") == {"ds": "c", "hr": "3"}
        result = hms.drop_partitions(db, "t", ["ds=a/hr=1"], True)
        assert vals(result.partitions) == [["a", "1"]]
        assert not os.path.exists(os.path.join(table_dir, "ds=a"))
        result = hms.drop_partitions(db, "t", ["ds=b/hr=2"])
        assert vals(result.partitions) == [["b", "2"]]
        assert os.path.isdir(os.path.join(table_dir, "ds=b", "hr=2"))
        assert hms.drop_partitions(db, "t", []) is None
        with pytest.raises(TypeError):
            hms.drop_all_partitions(db, "t")
        with pytest.raises(hms_types.NoSuchObjectException):
            hms.get_partition(db, "t", ["zz", "1"])
        with pytest.raises(hms_types.AlreadyExistsException):
            hms.add_partition(table, ["c", "3"])
        assert hms.get_partition_names(db, "t", -1) == ["ds=c/hr=3"]


# ---------------------------------------------------------------- pymetastore 0.4.2

def test_pymetastore_partition_flow(server, client, db, hive):
    """pymetastore's list_partitions (get_partition_names), get_partition (by name) and
    get_partitions, which asserts that every Partition has a string catName: Hive 2.3 has no
    catalogs, so there it fails (AssertionError) and only Hive 4 answers it."""
    from pymetastore.metastore import HMS

    new_table(client, db)
    add(client, db, "t", ["2024-01-02", "1"], ["2024-01-01", "10"], ["2024-01-01", "2"])
    with HMS.create(host=server.host, port=server.port) as hms:
        hms.client._iprot.trans._TBufferedTransport__trans.setTimeout(10_000)
        assert hms.list_partitions(db, "t") == [
            "ds=2024-01-01/hr=10", "ds=2024-01-01/hr=2", "ds=2024-01-02/hr=1"]
        assert hms.list_partitions(db, "t", 1) == ["ds=2024-01-01/hr=10"]
        got = hms.get_partition(db, "t", "ds=2024-01-01/hr=2")
        assert (got.database_name, got.table_name, got.values) == (db, "t", ["2024-01-01", "2"])
        if hive >= 4:
            assert [p.values for p in hms.get_partitions(db, "t")] == [
                ["2024-01-01", "10"], ["2024-01-01", "2"], ["2024-01-02", "1"]]
        else:
            with pytest.raises(AssertionError):
                hms.get_partitions(db, "t")
