"""`markPartitionForEvent` and `isPartitionMarkedForEvent` through the pyiceberg-vendored client.

Goal: Hive's partition events (HCatalog's "load done" marks) behave as Apache's HMS: a full spec
of a table's partition can be marked and asked about, whether or not the partition exists; a
missing table is UnknownTableException, a spec that does not name every partition key exactly
InvalidPartitionException, with Hive's texts.

Method: every expectation was observed against the Java reference HMS (Hive 2.3.10,
scripts/compare-with-reference.sh).
"""

import pytest
from hive_metastore.ttypes import (
    Database,
    FieldSchema,
    InvalidPartitionException,
    PartitionEventType,
    UnknownTableException,
)

from hms_helpers import (
    hide_generated_client_frames,
    make_table,
    raises_hms,
    unique_name,
)

KEYS = [FieldSchema("ds", "string", None), FieldSchema("hr", "int", None)]
LOAD_DONE = PartitionEventType.LOAD_DONE

hide_generated_client_frames()


@pytest.fixture()
def table(client):
    db = unique_name("edb")
    client.create_database(Database(name=db))
    client.create_table(make_table(db, "t", partition_keys=KEYS))
    return db, "t"


def test_marks_are_kept_per_partition_spec(client, table):
    db, name = table
    spec = {"ds": "2024-01-01", "hr": "1"}
    assert client.isPartitionMarkedForEvent(db, name, spec, LOAD_DONE) is False
    client.markPartitionForEvent(db, name, spec, LOAD_DONE)
    assert client.isPartitionMarkedForEvent(db, name, spec, LOAD_DONE) is True
    assert client.isPartitionMarkedForEvent(db, name, {"ds": "2024-01-01", "hr": "2"},
                                            LOAD_DONE) is False
    client.markPartitionForEvent(db, name, spec, LOAD_DONE)  # again: still marked, no error
    # Hive keeps marks under the names as spelled (its table lookup ignores case).
    assert client.isPartitionMarkedForEvent(db, name.upper(), spec, LOAD_DONE) is False
    assert client.get_partition_names(db, name, -1) == [], "marking creates no partition"


def test_a_missing_table_is_unknown(client, table):
    db, _ = table
    spec = {"ds": "1", "hr": "1"}
    with raises_hms(UnknownTableException, "missing"):
        client.markPartitionForEvent(db, "missing", spec, LOAD_DONE)
    with raises_hms(UnknownTableException, "missing"):
        client.isPartitionMarkedForEvent(db, "missing", spec, LOAD_DONE)


def test_specs_must_name_every_partition_key(client, table):
    db, name = table
    with raises_hms(InvalidPartitionException,
                    "Number of partition columns in table: 2 doesn't match with number of "
                    "supplied partition values: 1"):
        client.markPartitionForEvent(db, name, {"ds": "1"}, LOAD_DONE)
    with raises_hms(InvalidPartitionException, "No value found for partition column: hr"):
        client.isPartitionMarkedForEvent(db, name, {"ds": "1", "other": "1"}, LOAD_DONE)
