"""Hive 4's property store through the pyiceberg-vendored client, as raw calls (its IDL
predates get_properties and set_properties): set_properties validates keys and values against
the `hms` namespace's schemas (one fragment a cluster property, two a database's, three a
table's) and stores all or nothing; get_properties answers the maps whose names start with
mapPrefix and meet mapPredicate (a JEXL subset), keyed by map name, with every declared
property's value or default, or only the properties of mapSelection.

Hive declares the `hms` schemas empty (its tests declare properties in-process); hivestore
declares the properties Hive's property tests declare, so these tests are hivestore's. Hive
2.3 lacks both calls: every test skips on the reference.
"""

import pytest
from hive_metastore.ttypes import MetaException, NoSuchObjectException
from thrift.Thrift import TType

from conftest import hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import call_method, call_or_skip_on_reference, connected, make_struct, raises_hms

PropertySetRequest = make_struct("PropertySetRequest", [
    (1, TType.STRING, "nameSpace", "UTF8", None),
    (2, TType.MAP, "propertyMap", (TType.STRING, "UTF8", TType.STRING, "UTF8", False), None),
])
PropertyGetRequest = make_struct("PropertyGetRequest", [
    (1, TType.STRING, "nameSpace", "UTF8", None),
    (2, TType.STRING, "mapPrefix", "UTF8", None),
    (3, TType.STRING, "mapPredicate", "UTF8", None),
    (4, TType.LIST, "mapSelection", (TType.STRING, "UTF8", False), None),
])
PropertyGetResponse = make_struct("PropertyGetResponse", [
    (1, TType.MAP, "properties",
     (TType.STRING, "UTF8", TType.MAP, (TType.STRING, "UTF8", TType.STRING, "UTF8", False),
      False), None),
])
DECLARED = [(1, TType.STRUCT, "e1", [MetaException, None]),
            (2, TType.STRUCT, "e2", [NoSuchObjectException, None])]


def set_properties(client, properties, namespace="hms"):
    request = PropertySetRequest(nameSpace=namespace, propertyMap=properties)
    return call_method(client, "set_properties",
                       [(1, TType.STRUCT, "req", [PropertySetRequest, None], request)],
                       [(0, TType.BOOL, "success", None), *DECLARED])


def get_properties(client, prefix, predicate=None, selection=None, namespace="hms"):
    request = PropertyGetRequest(nameSpace=namespace, mapPrefix=prefix, mapPredicate=predicate,
                                 mapSelection=selection)
    response = call_method(client, "get_properties",
                           [(1, TType.STRUCT, "req", [PropertyGetRequest, None], request)],
                           [(0, TType.STRUCT, "success", [PropertyGetResponse, None]),
                            *DECLARED])
    return response.properties


@pytest.fixture
def store(client, server):
    if server.external:
        # Hive 2.3 answers UNKNOWN_METHOD (skipped); Hive 4 declares no property over Thrift.
        call_or_skip_on_reference(server, get_properties, client, "")
        pytest.skip("the `hms` schemas are hivestore's (Hive declares them in its tests)")
    return client


def tables(prefix, count, first=0):
    """Hive's HMSTestBase.createProperties1, for `count` tables."""
    properties = {}
    for i in range(first, first + count):
        table = f"{prefix}.table{i:x}."
        properties[table + "id"] = str(1000 + i)
        properties[table + "name"] = f"TABLE_{i}"
        properties[table + "fillFactor"] = str(100 - i)
        properties[table + "someb"] = "true" if i % 2 == 0 else "false"
    return properties


def test_set_then_get_by_prefix(store):
    assert set_properties(store, tables("pdb0", 16)) is True
    maps = get_properties(store, "pdb0.table")
    assert sorted(maps) == sorted(f"pdb0.table{i:x}" for i in range(16))
    # Every declared property with its value or default, as the types format them.
    assert maps["pdb0.tablea"] == {
        "id": "1010", "name": "TABLE_10", "fillFactor": "90.0", "someb": "true",
        "project": "Hive"}
    # The prefix is a prefix of map names, not of fragments.
    assert sorted(get_properties(store, "pdb0.table1")) == ["pdb0.table1"]
    assert sorted(get_properties(store, "pdb0.tabl")) == sorted(maps)
    assert get_properties(store, "nothere") == {}


def test_cluster_database_and_deeper_keys(store):
    set_properties(store, {"clstrp0": "Trino", "pdb1.store": "parquet",
                           "pdb1.t.x.name": "four fragments"})
    everything = get_properties(store, "")
    assert everything["hms"] == {"clstrp0": "Trino"}
    assert everything["pdb1"] == {"store": "parquet"}
    # Past three fragments the map name takes the extra ones, the last is the property.
    assert everything["pdb1.t.x"]["name"] == "four fragments"


def test_values_are_typed(store):
    set_properties(store, {
        "pdb2.t.someb": "TRUE",
        "pdb2.t.fillFactor": " 1e7 ",
        "pdb2.t.id": "+42",
        "pdb2.t.creation date": "2023-01-06T12:16:00.5Z",
        "pdb2.t.policy": "{'Table-name': 'table01', \"Compaction\": {\"target-size\": 128}}",
        "pdb2.t.maint_status": "in_progress",
        "pdb2.t.maint_operation": "Compaction",
    })
    got = get_properties(store, "pdb2.t")["pdb2.t"]
    assert got["someb"] == "true"
    assert got["fillFactor"] == "1.0E7"
    assert got["id"] == "42"
    assert got["creation date"] == "2023-01-06T12:16:00.05Z"
    assert got["policy"] == '{"Table-name":"table01","Compaction":{"target-size":128.0}}'
    assert got["maint_status"] == "IN_PROGRESS"
    assert got["maint_operation"] == "COMPACTION"


def test_predicates_select_maps(store):
    set_properties(store, tables("pdb3", 16))
    # HMSTestBase.runOtherProperties1's predicate.
    selected = get_properties(store, "pdb3.table", "someb && fillFactor < 95")
    assert sorted(selected) == sorted(f"pdb3.table{i:x}" for i in range(6, 16, 2))
    assert sorted(get_properties(store, "pdb3.table", "fillFactor > 98")) == [
        "pdb3.table0", "pdb3.table1"]
    assert sorted(get_properties(store, "pdb3.table", "!someb and id >= 1013")) == [
        "pdb3.tabled", "pdb3.tablef"]
    assert sorted(get_properties(store, "pdb3.table", "name =^ 'TABLE_1' || id == 1002")) == [
        "pdb3.table1", "pdb3.table2", "pdb3.tablea", "pdb3.tableb", "pdb3.tablec",
        "pdb3.tabled", "pdb3.tablee", "pdb3.tablef"]
    assert sorted(get_properties(store, "pdb3.table", "name =$ '_15'")) == ["pdb3.tablef"]
    # Only `true` selects; a number is not.
    assert get_properties(store, "pdb3.table", "fillFactor") == {}
    # Members of a json value, as HMSTestBase.runOtherProperties0 reads them.
    set_properties(store, {"pdb3.pol.policy": '{"Table-name": "table07"}'})
    assert list(get_properties(store, "pdb3.", "policy.'Table-name' =^ 'table0'")) == [
        "pdb3.pol"]


def test_selection_projects_properties(store):
    set_properties(store, tables("pdb4", 4))
    projected = get_properties(store, "pdb4.", "fillFactor > 97", ["fillFactor", "project"])
    assert projected == {
        "pdb4.table0": {"fillFactor": "100.0", "project": "Hive"},
        "pdb4.table1": {"fillFactor": "99.0", "project": "Hive"},
        "pdb4.table2": {"fillFactor": "98.0", "project": "Hive"}}
    # A map with none of the selected properties valued is left out; unknown names ignored.
    assert get_properties(store, "pdb4.", None, ["uuid", "nonesuch"]) == {}


def test_refusals_change_nothing(store):
    with raises_hms(NoSuchObjectException,
                    "no PropertyManager namespace is declared, namespace nons"):
        set_properties(store, {"clstrp0": "x"}, namespace="nons")
    with raises_hms(NoSuchObjectException, "namespace nons"):
        get_properties(store, "", namespace="nons")
    with raises_hms(MetaException, "property nope is not declared"):
        set_properties(store, {"pdb5.t.id": "1", "pdb5.t.nope": "x"})
    with raises_hms(MetaException, "property id, type integer, one"):
        set_properties(store, {"pdb5.t.id": "one"})
    with raises_hms(MetaException, "property someb, type boolean, yes"):
        set_properties(store, {"pdb5.t.someb": "yes"})
    with raises_hms(MetaException, "property policy, type json, {"):
        set_properties(store, {"pdb5.t.policy": "{"})
    with raises_hms(MetaException, "No enum constant org.apache.hadoop.hive.metastore."
                    "properties.HMSPropertyManager.MaintenanceOpStatus.LATE"):
        set_properties(store, {"pdb5.t.maint_status": "late"})
    assert get_properties(store, "pdb5") == {}
    for predicate, part in [("size(name) > 1", "calling 'size'"),
                            ("name =~ 'T.*'", "'=~'"),
                            ("fillFactor + 1 > 2", "'+'"),
                            ("(someb", "not closed")]:
        with raises_hms(MetaException, "is not supported", part):
            get_properties(store, "", predicate)
    with raises_hms(MetaException, "The selection", "is not supported"):
        get_properties(store, "", None, ["{ 'a' : fillFactor }"])


def test_bounds(store):
    with raises_hms(MetaException, "A property key is 1025 bytes long",
                    "longer than the 1024 bytes allowed"):
        set_properties(store, {"k" * 1025: "1"})
    with raises_hms(MetaException, "The value of property pdb6.t.name is 65537 bytes long"):
        set_properties(store, {"pdb6.t.name": "v" * 65537})
    with raises_hms(MetaException, "10001 properties are more than the 10000"):
        set_properties(store, {f"pdb6.t{i}.id": "1" for i in range(10001)})
    with raises_hms(MetaException, "longer than the 4096 bytes allowed"):
        get_properties(store, "", "someb || " * 500 + "someb")
    with raises_hms(MetaException, "nests deeper than 64 levels"):
        get_properties(store, "", "(" * 100 + "someb" + ")" * 100)
    with raises_hms(MetaException, "A selection of 257 names is more than the 256 allowed"):
        get_properties(store, "", None, [f"p{i}" for i in range(257)])
    with raises_hms(MetaException, "The map prefix is 1025 bytes long"):
        get_properties(store, "p" * 1025)
    assert get_properties(store, "pdb6") == {}


def test_properties_survive_a_restart(tmp_path, server):
    if server.external:
        pytest.skip("restarts a hivestore of its own")
    first = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(first) as client:
            set_properties(client, tables("kept", 2))
            before = get_properties(client, "kept.")
    finally:
        stop_hivestore(first)
    again = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(again) as client:
            assert get_properties(client, "kept.") == before
            assert before["kept.table1"]["someb"] == "false"
    finally:
        stop_hivestore(again)
