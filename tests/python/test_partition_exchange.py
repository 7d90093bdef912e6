"""`exchange_partition` and `exchange_partitions` through the pyiceberg-vendored client.

Goal: Hive's ALTER TABLE ... EXCHANGE PARTITION at the metastore: the source table's partitions
matching a partial spec move, metadata and data, to a destination table of the same schema;
locations are rewritten under the destination; the spec's directory moves; refusals (missing
tables, no matching partition, different schemas, a partition already in the destination) are
MetaExceptions with Hive's texts and change nothing. `exchange_partition` answers an empty
Partition, as Hive does; `exchange_partitions` the moved partitions.

Method: every expectation was observed against the Java reference HMS (Hive 2.3.10,
scripts/compare-with-reference.sh), except for missing tables, which Hive 2.3 does not check
(an internal error) and Hive 4 refuses with "The source/destination table ... not found", and for
a spec that matches no partition, which Hive 2.3 finds out only when moving its directory, and
for a partition already in the destination, on which Hive 2.3 hangs; the test branches on the
generation.
"""

import os

import pytest
from thrift.Thrift import TApplicationException
from hive_metastore.ttypes import Database, FieldSchema, MetaException, Partition

from hms_helpers import (
    hide_generated_client_frames,
    hive_generation,
    local_path,
    make_table,
    raises_hms,
    storage_descriptor,
    unique_name,
)

KEYS = [FieldSchema("ds", "string", None), FieldSchema("hr", "int", None)]
COLUMNS = [FieldSchema("id", "int", None), FieldSchema("name", "string", None)]

# Databases the shared `db` fixture makes are named `xdb_<unique>`.
DB_PREFIX = "xdb"

hide_generated_client_frames()


def new_table(client, db, name, columns=COLUMNS, keys=KEYS):
    client.create_table(make_table(db, name, columns=columns, partition_keys=keys))
    return local_path(client.get_table(db, name).sd.location)


def add(client, db, table, *value_lists):
    client.add_partitions([
        Partition(values=list(values), dbName=db, tableName=table,
                  sd=storage_descriptor(COLUMNS), parameters={"mark": "/".join(values)})
        for values in value_lists])


def names(client, db, table):
    return client.get_partition_names(db, table, -1)


def test_a_partial_spec_moves_its_partitions_and_their_directory(client, db):
    source_dir = new_table(client, db, "src")
    dest_dir = new_table(client, db, "dst")
    add(client, db, "src", ["1", "1"], ["1", "2"], ["2", "1"])
    with open(os.path.join(source_dir, "ds=1", "hr=2", "data.txt"), "w") as file:
        file.write("rows")
    moved = client.exchange_partitions({"ds": "1"}, db, "src", db, "dst")
    assert sorted(p.values for p in moved) == [["1", "1"], ["1", "2"]]
    assert all(p.tableName == "dst" and p.dbName == db for p in moved)
    assert names(client, db, "src") == ["ds=2/hr=1"]
    assert names(client, db, "dst") == ["ds=1/hr=1", "ds=1/hr=2"]
    partition = client.get_partition(db, "dst", ["1", "2"])
    assert local_path(partition.sd.location) == os.path.join(dest_dir, "ds=1", "hr=2")
    assert partition.parameters["mark"] == "1/2", "the partition's own fields go with it"
    assert os.path.isfile(os.path.join(dest_dir, "ds=1", "hr=2", "data.txt"))
    assert not os.path.exists(os.path.join(source_dir, "ds=1"))
    assert os.path.isdir(os.path.join(source_dir, "ds=2", "hr=1"))


def test_exchange_partition_answers_an_empty_partition(client, db):
    new_table(client, db, "src")
    new_table(client, db, "dst")
    add(client, db, "src", ["1", "1"])
    answer = client.exchange_partition({"ds": "1", "hr": "1"}, db, "src", db, "dst")
    assert answer.values is None and answer.tableName is None and answer.sd is None
    assert names(client, db, "dst") == ["ds=1/hr=1"]
    assert names(client, db, "src") == []


def test_refusals_change_nothing(server, client, db):
    new_table(client, db, "src")
    new_table(client, db, "dst")
    new_table(client, db, "other_cols", columns=[FieldSchema("id", "bigint", None)])
    new_table(client, db, "other_keys", keys=[FieldSchema("ds", "string", None)])
    add(client, db, "src", ["1", "1"], ["1", "2"])
    add(client, db, "dst", ["1", "2"])
    if hive_generation(server) == 2:
        # Hive 2.3 does not check, and fails on the missing table (an internal error).
        for source, dest in (("src", "missing"), ("missing", "dst")):
            with pytest.raises(TApplicationException):
                client.exchange_partitions({"ds": "1"}, db, source, db, dest)
    else:
        with raises_hms(MetaException, "The destination table", "missing not found"):
            client.exchange_partitions({"ds": "1"}, db, "src", db, "missing")
        with raises_hms(MetaException, "The source table", "missing not found"):
            client.exchange_partitions({"ds": "1"}, db, "missing", db, "dst")
    # Hive 2.3 goes on to move the spec's directory and fails there; Hive 4 checks first.
    no_match = (("does not exist",) if hive_generation(server) == 2 else
                ("No partition is found with the values {ds=9}", "for the table src"))
    with raises_hms(MetaException, *no_match):
        client.exchange_partitions({"ds": "9"}, db, "src", db, "dst")
    for other in ("other_cols", "other_keys"):
        with raises_hms(MetaException, "The tables have different schemas. "
                                       "Their partitions cannot be exchanged."):
            client.exchange_partitions({"ds": "1"}, db, "src", db, other)
    if hive_generation(server) != 2:
        # Hive 2.3 does not check this either, and its store then hangs until the client's
        # read times out; Hive 4 refuses first.
        with raises_hms(MetaException,
                        "The partition ds=1/hr=2 already exists in the table dst"):
            client.exchange_partitions({"ds": "1"}, db, "src", db, "dst")
    assert names(client, db, "src") == ["ds=1/hr=1", "ds=1/hr=2"]
    assert names(client, db, "dst") == ["ds=1/hr=2"]


def test_exchange_across_databases(client, db):
    other = unique_name("xdb")
    client.create_database(Database(name=other))
    new_table(client, db, "src")
    dest_dir = new_table(client, other, "dst")
    add(client, db, "src", ["1", "1"])
    client.exchange_partitions({"ds": "1", "hr": "1"}, db, "src", other, "dst")
    partition = client.get_partition(other, "dst", ["1", "1"])
    assert partition.dbName == other
    assert local_path(partition.sd.location) == os.path.join(dest_dir, "ds=1", "hr=1")
    assert os.path.isdir(os.path.join(dest_dir, "ds=1", "hr=1"))
