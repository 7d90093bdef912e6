"""Confinement: the server makes, moves and deletes data only under its warehouse and its
external roots (docs/security.md, "Confinement").

Goal: a client cannot make hivestore touch a directory elsewhere. Without the rule, a managed
table created at any directory the server can write, then dropped with deleteData, deleted it.

Method: a hivestore server with its warehouse alone (no --external-root), and a "foreign"
directory made outside pytest's temporary directories (the other tests' servers take those as
a root), holding a sentinel file. Each attempt goes through the pyiceberg-vendored client:
a managed table created there; an alter giving a table or a partition that location; a link
inside the warehouse pointing there; a drop with deleteData of a table whose partition is
there (written while a root allowed it, then served without the root, as a catalog imported
from elsewhere). Each is refused with a MetaException naming the path, and after each the
foreign directory and its sentinel are as they were. The same flow then succeeds on a server
given the directory as --external-root. Hive has no such rule: these run on hivestore only.
"""

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hive_metastore.ttypes import (
    Database,
    FieldSchema,
    MetaException,
    NoSuchObjectException,
    Partition,
)

from conftest import hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import (
    connected,
    local_path,
    make_table,
    raises_hms,
    storage_descriptor,
    unique_name,
    warehouse_root,
)

SENTINEL = "sentinel"
SENTINEL_TEXT = "data the metastore must never touch\n"
KEYS = [FieldSchema("p", "string", None)]

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("HMS_URI")), reason="confinement is hivestore's rule; Hive has none")


@pytest.fixture()
def foreign():
    """A directory outside pytest's temporary directories, holding a sentinel; removed after."""
    path = Path(tempfile.mkdtemp(prefix="hivestore-foreign-"))
    (path / SENTINEL).write_text(SENTINEL_TEXT)
    try:
        yield path
    finally:
        shutil.rmtree(path)


@pytest.fixture(scope="module")
def confined(tmp_path_factory):
    """A server with its warehouse alone as the place it may touch."""
    running = start_hivestore(hivestore_binary(), tmp_path_factory.mktemp("confined"),
                              external_roots=())
    try:
        yield running
    finally:
        stop_hivestore(running)


def assert_untouched(foreign: Path, *also: str):
    """`foreign` holds its sentinel, unchanged, and exactly the entries `also`."""
    assert sorted(os.listdir(foreign)) == sorted([SENTINEL, *also])
    assert (foreign / SENTINEL).read_text() == SENTINEL_TEXT


def partition(db, table, values, location=None):
    return Partition(values=list(values), dbName=db, tableName=table,
                     sd=storage_descriptor(None, location), parameters={})


def new_database(client):
    name = unique_name("confine")
    client.create_database(Database(name=name))
    return name


def test_a_managed_table_at_a_foreign_directory_is_refused(confined, foreign):
    with connected(confined) as client:
        db = new_database(client)
        for location in (str(foreign), f"file:{foreign}", str(foreign / "made")):
            with raises_hms(MetaException, str(foreign), "outside the warehouse",
                            "--external-root"):
                client.create_table(make_table(db, "t", location=location))
            with pytest.raises(NoSuchObjectException):
                client.get_table(db, "t")
        with raises_hms(MetaException, str(foreign / "d.db")):
            client.create_database(Database(name=unique_name("confine"),
                                            locationUri=str(foreign / "d.db")))
        escape = f"{warehouse_root(client)}/{db}.db/../../../{foreign.name}"
        with raises_hms(MetaException, "outside the warehouse"):
            client.create_table(make_table(db, "t", location=escape))
    assert_untouched(foreign)


def test_an_alter_to_a_foreign_location_is_refused(confined, foreign):
    with connected(confined) as client:
        db = new_database(client)
        client.create_table(make_table(db, "t", partition_keys=KEYS))
        client.add_partition(partition(db, "t", ["1"]))
        table = client.get_table(db, "t")
        moved = client.get_table(db, "t")
        moved.sd.location = str(foreign)
        with raises_hms(MetaException, str(foreign)):
            client.alter_table(db, "t", moved)
        assert client.get_table(db, "t").sd.location == table.sd.location
        part = client.get_partition(db, "t", ["1"])
        kept = part.sd.location
        part.sd.location = str(foreign / "p=1")
        with raises_hms(MetaException, str(foreign / "p=1")):
            client.alter_partition(db, "t", part)
        assert client.get_partition(db, "t", ["1"]).sd.location == kept
        # A table at an allowed place moves within the warehouse as before.
        renamed = client.get_table(db, "t")
        renamed.tableName = "t2"
        client.alter_table(db, "t", renamed)
        assert os.path.isdir(local_path(client.get_table(db, "t2").sd.location))
    assert_untouched(foreign)


def test_a_link_inside_the_warehouse_to_a_foreign_directory_is_refused(confined, foreign):
    with connected(confined) as client:
        db = new_database(client)
        link = Path(warehouse_root(client)) / f"{db}.db" / "evil"
        link.symlink_to(foreign, target_is_directory=True)
        for location in (link, link / "t"):
            with raises_hms(MetaException, str(location), str(foreign.resolve())):
                client.create_table(make_table(db, "t", location=str(location)))
        client.create_table(make_table(db, "p", partition_keys=KEYS))
        with raises_hms(MetaException, str(link)):
            client.add_partition(partition(db, "p", ["1"], location=str(link / "p=1")))
    assert_untouched(foreign)


def test_a_drop_with_data_of_a_table_whose_partition_is_foreign_is_refused(
        tmp_path, foreign):
    workdir = tmp_path / "imported"
    workdir.mkdir()
    allowed = start_hivestore(hivestore_binary(), workdir, external_roots=(foreign,))
    try:
        with connected(allowed) as client:
            db = new_database(client)
            client.create_table(make_table(db, "t", partition_keys=KEYS))
            client.add_partition(partition(db, "t", ["1"], location=str(foreign / "p=1")))
            (foreign / "p=1" / "rows").write_text("1\n")
    finally:
        stop_hivestore(allowed)
    confined = start_hivestore(hivestore_binary(), workdir, external_roots=())
    try:
        with connected(confined) as client:
            with raises_hms(MetaException, str(foreign / "p=1"), "drop without deleteData"):
                client.drop_table(db, "t", True)
            assert client.get_table(db, "t").tableName == "t"
            with raises_hms(MetaException, str(foreign / "p=1")):
                client.drop_partition(db, "t", ["1"], True)
            assert client.get_partition_names(db, "t", -1) == ["p=1"]
            # Without deleteData a drop only forgets: it always works.
            client.drop_table(db, "t", False)
            with pytest.raises(NoSuchObjectException):
                client.get_table(db, "t")
    finally:
        stop_hivestore(confined)
    assert_untouched(foreign, "p=1")
    assert (foreign / "p=1" / "rows").read_text() == "1\n"


def test_under_an_external_root_the_same_flow_succeeds(tmp_path, foreign):
    workdir = tmp_path / "rooted"
    workdir.mkdir()
    server = start_hivestore(hivestore_binary(), workdir, external_roots=(foreign,))
    try:
        with connected(server) as client:
            db = new_database(client)
            location = foreign / "t"
            client.create_table(make_table(db, "t", location=str(location),
                                           partition_keys=KEYS))
            assert location.is_dir()
            client.add_partition(partition(db, "t", ["1"], location=str(foreign / "p=1")))
            (location / "rows").write_text("1\n")
            moved = client.get_table(db, "t")
            moved.tableName = "t2"
            client.alter_table(db, "t", moved)
            client.drop_table(db, "t2", True)
            with pytest.raises(NoSuchObjectException):
                client.get_table(db, "t2")
    finally:
        stop_hivestore(server)
    assert not (foreign / "t").exists()
    assert not (foreign / "p=1").exists()
    assert_untouched(foreign)


def test_the_environment_names_external_roots_too(tmp_path, foreign):
    workdir = tmp_path / "from-env"
    workdir.mkdir()
    other = tmp_path / "other-root"
    environment = dict(os.environ, HIVESTORE_EXTERNAL_ROOTS=f"{other},{foreign}")
    server = start_hivestore(hivestore_binary(), workdir, env=environment, external_roots=())
    try:
        with connected(server) as client:
            db = new_database(client)
            client.create_table(make_table(db, "t", location=str(foreign / "t")))
            client.drop_table(db, "t", True)
    finally:
        stop_hivestore(server)
    assert_untouched(foreign)
