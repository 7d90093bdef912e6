"""Partitions in Hive's spec form through the pyiceberg-vendored client.

Goal: `get_partitions_pspec`, `get_part_specs_by_filter`, `add_partitions_pspec` and Hive 3/4's
`get_partitions_with_specs` (filter spec by names, values and expressions; field projection with
parameter key patterns) answer as Apache's HMS does: the old calls one list spec rooted at the
table's location unless the table sets `hive.hcatalog.partition.spec.grouping.enabled=true`, and
grouped specs then (partitions under the table's directory sharing one storage descriptor, each
with its path relative to the table's; partitions elsewhere in one list spec).

Method: the old calls' expectations were observed against the Java reference HMS (Hive 2.3.10,
scripts/compare-with-reference.sh); Hive 2.3 lacks `get_partitions_with_specs`, whose
expectations follow Hive 4's handler (MetaStoreServerUtils grouping, PartitionProjectionEvaluator
field names), and those tests skip on the reference.
"""

import pytest
from hive_metastore.ttypes import (
    FieldSchema,
    GetPartitionsFilterSpec,
    GetPartitionsRequest,
    GetProjectionsSpec,
    MetaException,
    Partition,
    PartitionFilterMode,
    PartitionListComposingSpec,
    PartitionSpec,
)

from hms_helpers import (
    call_or_skip_on_reference,
    hide_generated_client_frames,
    local_path,
    make_table,
    raises_hms,
    storage_descriptor,
    unique_name,
)

KEYS = [FieldSchema("ds", "string", None), FieldSchema("hr", "int", None)]
COLUMNS = [FieldSchema("id", "int", "the id"), FieldSchema("name", "string", None)]
GROUPING = "hive.hcatalog.partition.spec.grouping.enabled"

# Databases the shared `db` fixture makes are named `sdb_<unique>`.
DB_PREFIX = "sdb"

hide_generated_client_frames()


def new_table(client, db, name="t", parameters=None):
    client.create_table(make_table(db, name, columns=COLUMNS, partition_keys=KEYS,
                                   parameters=parameters))
    return client.get_table(db, name)


def part(db, table, values, location=None, parameters=None):
    return Partition(values=list(values), dbName=db, tableName=table,
                     sd=storage_descriptor(COLUMNS, location), parameters=dict(parameters or {}))


def add_three(client, db, table, tmp_path):
    """Two partitions in the table's directory, one elsewhere; returns the elsewhere path."""
    elsewhere = str(tmp_path / unique_name("elsewhere"))
    client.add_partitions([
        part(db, table, ["2024-01-01", "1"], parameters={"numRows": "10", "owner": "a"}),
        part(db, table, ["2024-01-01", "2"]),
        part(db, table, ["2024-01-02", "1"], location=elsewhere),
    ])
    return elsewhere


def values_of_specs(specs):
    """Every partition's values, spec by spec, in answer order."""
    found = []
    for spec in specs:
        if spec.sharedSDPartitionSpec is not None:
            found.extend(p.values for p in spec.sharedSDPartitionSpec.partitions)
        if spec.partitionList is not None:
            found.extend(p.values for p in spec.partitionList.partitions)
    return found


# ---------------------------------------------------------------- the old calls

def test_pspec_without_grouping_is_one_list_spec_rooted_at_the_table(client, db, tmp_path):
    table = new_table(client, db)
    empty = client.get_partitions_pspec(db, "t", -1)
    assert len(empty) == 1 and empty[0].partitionList.partitions == [], \
        "one spec even for no partitions"
    assert empty[0].rootPath == table.sd.location
    add_three(client, db, "t", tmp_path)
    specs = client.get_partitions_pspec(db, "t", -1)
    assert len(specs) == 1
    spec = specs[0]
    assert (spec.dbName, spec.tableName, spec.rootPath) == (db, "t", table.sd.location)
    assert spec.sharedSDPartitionSpec is None
    assert [p.values for p in spec.partitionList.partitions] == [
        ["2024-01-01", "1"], ["2024-01-01", "2"], ["2024-01-02", "1"]]
    assert all(p.sd.location for p in spec.partitionList.partitions)
    limited = client.get_partitions_pspec(db, "t", 2)
    assert len(limited[0].partitionList.partitions) == 2


def test_part_specs_by_filter_select_as_the_filter_does(client, db, tmp_path):
    new_table(client, db)
    add_three(client, db, "t", tmp_path)
    specs = client.get_part_specs_by_filter(db, "t", 'ds = "2024-01-01"', -1)
    assert values_of_specs(specs) == [["2024-01-01", "1"], ["2024-01-01", "2"]]
    with raises_hms(MetaException):
        client.get_part_specs_by_filter(db, "t", "nokey = 1", -1)


def test_grouping_shares_the_descriptor_of_partitions_under_the_table(client, db, tmp_path):
    table = new_table(client, db, parameters={GROUPING: "true"})
    elsewhere = add_three(client, db, "t", tmp_path)
    specs = client.get_partitions_pspec(db, "t", -1)
    shared = [s for s in specs if s.sharedSDPartitionSpec is not None]
    lists = [s for s in specs if s.partitionList is not None]
    assert len(shared) == 1 and len(lists) == 1
    group = shared[0]
    assert group.rootPath == table.sd.location == group.sharedSDPartitionSpec.sd.location
    assert group.sharedSDPartitionSpec.sd.cols == COLUMNS
    members = group.sharedSDPartitionSpec.partitions
    assert [(p.values, p.relativePath) for p in members] == [
        (["2024-01-01", "1"], "/ds=2024-01-01/hr=1"),
        (["2024-01-01", "2"], "/ds=2024-01-01/hr=2")]
    assert members[0].parameters["numRows"] == "10"
    outside = lists[0].partitionList.partitions
    assert [p.values for p in outside] == [["2024-01-02", "1"]]
    assert local_path(outside[0].sd.location) == elsewhere
    assert (lists[0].dbName, lists[0].tableName) == (db, "t")


def test_add_partitions_pspec_takes_partition_lists(client, db):
    new_table(client, db)
    spec = PartitionSpec(dbName=db, tableName="t", partitionList=PartitionListComposingSpec(
        partitions=[part(db, "t", ["2024-02-01", "1"]), part(db, "t", ["2024-02-01", "2"])]))
    assert client.add_partitions_pspec([spec]) == 2
    assert client.get_partition_names(db, "t", -1) == [
        "ds=2024-02-01/hr=1", "ds=2024-02-01/hr=2"]


def test_add_partitions_pspec_takes_the_shared_descriptor_specs_hive_hands_out(client, db,
                                                                               tmp_path):
    """Issue 22, defect 9: the grouped specs of `get_partitions_pspec` and
    `get_part_specs_by_filter` go back in whole. Each member becomes a partition with the shared
    descriptor at `sd.location + relativePath`, as Hive's PartitionSpecWithSharedSDProxy joins
    them (Hive 2.3 and 4 alike)."""
    new_table(client, db, parameters={GROUPING: "true"})
    values = [["2024-03-01", "1"], ["2024-03-01", "2"]]
    client.add_partitions([part(db, "t", v, parameters={"k": v[1]}) for v in values])
    before = client.get_partitions(db, "t", -1)
    for listing in (lambda: client.get_partitions_pspec(db, "t", -1),
                    lambda: client.get_part_specs_by_filter(db, "t", 'ds = "2024-03-01"', -1)):
        specs = listing()
        assert [s.sharedSDPartitionSpec is not None for s in specs] == [True]
        for v in values:
            client.drop_partition(db, "t", v, False)
        assert client.add_partitions_pspec(specs) == 2
        after = client.get_partitions(db, "t", -1)
        assert [(p.values, p.sd.location, p.sd.cols, p.parameters["k"]) for p in after] == [
            (p.values, p.sd.location, p.sd.cols, p.parameters["k"]) for p in before]


def test_add_partitions_pspec_joins_the_shared_location_and_relative_paths(client, db,
                                                                           tmp_path):
    """A hand-made shared spec: the location is the shared one followed by the relative path
    (`null` when there is none: Java's `+`); a shared descriptor without a location is refused
    (Hive fails on the relative path `null/...` it makes). Observed on Hive 2.3."""
    from hive_metastore.ttypes import PartitionSpecWithSharedSD, PartitionWithoutSD
    new_table(client, db)
    base = str(tmp_path / unique_name("base"))

    def shared_spec(location, relative_path, hr):
        member = PartitionWithoutSD(values=["2024-04-01", hr], createTime=0, lastAccessTime=0,
                                    relativePath=relative_path, parameters={})
        return PartitionSpec(dbName=db, tableName="t", rootPath=location,
                             sharedSDPartitionSpec=PartitionSpecWithSharedSD(
                                 partitions=[member], sd=storage_descriptor(COLUMNS, location)))

    assert client.add_partitions_pspec([shared_spec(base, "/hr=1", "1")]) == 1
    added = client.get_partition(db, "t", ["2024-04-01", "1"])
    assert local_path(added.sd.location) == f"{base}/hr=1"
    assert added.sd.cols == COLUMNS
    assert client.add_partitions_pspec([shared_spec(base, None, "2")]) == 1
    assert local_path(client.get_partition(db, "t", ["2024-04-01", "2"]).sd.location) == \
        f"{base}null"
    with raises_hms(MetaException):
        client.add_partitions_pspec([shared_spec(None, "/hr=3", "3")])
    assert client.get_partition_names(db, "t", -1) == [
        "ds=2024-04-01/hr=1", "ds=2024-04-01/hr=2"]


def test_pspec_of_a_missing_table_is_no_such_object(client, db):
    from hive_metastore.ttypes import NoSuchObjectException
    with pytest.raises(NoSuchObjectException):
        client.get_partitions_pspec(db, "missing", -1)


# ---------------------------------------------------------------- get_partitions_with_specs

def with_specs(server, client, db, table="t", fields=None, mode=None, filters=None,
               include=None, exclude=None):
    request = GetPartitionsRequest(
        dbName=db, tblName=table,
        projectionSpec=GetProjectionsSpec(fieldList=list(fields or []),
                                          includeParamKeyPattern=include,
                                          excludeParamKeyPattern=exclude),
        filterSpec=GetPartitionsFilterSpec(filterMode=mode, filters=filters))
    return call_or_skip_on_reference(server, client.get_partitions_with_specs,
                                     request).partitionSpec


def test_with_specs_always_groups_and_filters_by_names_values_and_expressions(
        server, client, db, tmp_path):
    table = new_table(client, db)
    add_three(client, db, "t", tmp_path)
    specs = with_specs(server, client, db)
    assert values_of_specs(specs) == [
        ["2024-01-01", "1"], ["2024-01-01", "2"], ["2024-01-02", "1"]]
    shared = [s for s in specs if s.sharedSDPartitionSpec is not None]
    assert len(shared) == 1 and shared[0].rootPath == table.sd.location
    by_names = with_specs(server, client, db, mode=PartitionFilterMode.BY_NAMES,
                          filters=["ds=2024-01-01/hr=2", "ds=2024-01-02/hr=1", "ds=x/hr=9"])
    assert values_of_specs(by_names) == [["2024-01-01", "2"], ["2024-01-02", "1"]]
    by_values = with_specs(server, client, db, mode=PartitionFilterMode.BY_VALUES,
                           filters=["", "1"])
    assert values_of_specs(by_values) == [["2024-01-01", "1"], ["2024-01-02", "1"]]
    by_expr = with_specs(server, client, db, mode=PartitionFilterMode.BY_EXPR,
                         filters=['ds = "2024-01-01"', "hr > 1"])
    assert values_of_specs(by_expr) == [["2024-01-01", "2"]], "expressions are ANDed"
    assert with_specs(server, client, db, mode=PartitionFilterMode.BY_NAMES,
                      filters=["ds=none/hr=1"]) == []


def test_with_specs_refuses_an_empty_filter_list_and_unknown_fields(server, client, db):
    new_table(client, db)
    with raises_hms(MetaException, "Invalid filter expressions in the filter spec"):
        with_specs(server, client, db, mode=PartitionFilterMode.BY_EXPR, filters=[])
    with raises_hms(MetaException, "Invalid field name bogus"):
        with_specs(server, client, db, fields=["values", "bogus"])
    with raises_hms(MetaException):
        with_specs(server, client, db, mode=PartitionFilterMode.BY_EXPR, filters=["nokey = 1"])
    with raises_hms(MetaException, "table not found"):
        with_specs(server, client, db, table="missing")


def test_with_specs_projects_the_fields_asked_for(server, client, db, tmp_path):
    table = new_table(client, db)
    add_three(client, db, "t", tmp_path)
    # Without the descriptor, every partition is in one group with an empty descriptor.
    specs = with_specs(server, client, db, fields=["values", "createTime"])
    assert len(specs) == 1
    group = specs[0].sharedSDPartitionSpec
    assert group.sd.location is None and group.sd.cols is None
    assert [p.values for p in group.partitions] == [
        ["2024-01-01", "1"], ["2024-01-01", "2"], ["2024-01-02", "1"]]
    assert all(p.createTime > 0 and p.parameters is None and p.relativePath is None
               for p in group.partitions)
    # The location alone: grouped under the table's directory, relative paths set.
    specs = with_specs(server, client, db, fields=["values", "sd.location"])
    shared = [s.sharedSDPartitionSpec for s in specs if s.sharedSDPartitionSpec is not None]
    assert shared[0].sd.location == table.sd.location and shared[0].sd.cols is None
    assert [p.relativePath for p in shared[0].partitions] == [
        "/ds=2024-01-01/hr=1", "/ds=2024-01-01/hr=2"]
    outside = [s.partitionList for s in specs if s.partitionList is not None][0].partitions
    assert outside[0].sd.location and outside[0].sd.inputFormat is None
    # A prefix stands for all the fields under it.
    specs = with_specs(server, client, db, fields=["values", "sd.serdeInfo"],
                       mode=PartitionFilterMode.BY_NAMES, filters=["ds=2024-01-02/hr=1"])
    serde = specs[0].sharedSDPartitionSpec.sd.serdeInfo
    assert serde.serializationLib == storage_descriptor().serdeInfo.serializationLib
    assert serde.parameters == {"serialization.format": "1"}


def test_with_specs_filters_parameters_by_sql_like_patterns(server, client, db, tmp_path):
    new_table(client, db)
    add_three(client, db, "t", tmp_path)
    names = ["ds=2024-01-01/hr=1"]

    def parameters(**patterns):
        specs = with_specs(server, client, db, fields=["values", "parameters"],
                           mode=PartitionFilterMode.BY_NAMES, filters=names, **patterns)
        return specs[0].sharedSDPartitionSpec.partitions[0].parameters

    everything = parameters()
    assert everything["numRows"] == "10" and everything["owner"] == "a"
    assert set(parameters(include="num%")) == {"numRows"}
    assert "owner" not in parameters(exclude="o_ner")
    assert set(parameters(include="%", exclude="%Rows")) == set(everything) - {"numRows"}
