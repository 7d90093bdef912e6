"""HPL/SQL's stored procedures and packages through the pyiceberg-vendored Hive 4 client.

Hive 4's behaviour (HMSHandler, ObjectStore, MStoredProc, MPackage): create_stored_procedure and
add_package create or replace a routine of a database; catalog and database names are
normalised, the routine's name is kept and compared as given; a missing database is
NoSuchObjectException "There is no database <cat>.<db>"; a procedure (not a package) in a
REMOTE database is MetaException "Operation create_stored_procedure not support for REMOTE
database". get_stored_procedure and find_package of a missing routine return no result, which
the client raises as TApplicationException MISSING_RESULT "<method> failed: unknown result";
the drops of a missing routine are no error; the listings name a database's routines or, with
no database, the catalog's. drop_database without cascade refuses a database holding either
("Database <db> is not empty. One or more stored procedures exist." / "... packages exist."),
with cascade it drops them. No notification events.

Hive 2.3 has none of these calls: on the 2.3 reference the tests skip where it answers
UNKNOWN_METHOD.
"""

import pytest
from hive_metastore.ttypes import (
    AddPackageRequest, Database, DatabaseType, DropPackageRequest, GetPackageRequest,
    InvalidOperationException, ListPackageRequest, ListStoredProcedureRequest, MetaException,
    NoSuchObjectException, NotificationEventRequest, StoredProcedure, StoredProcedureRequest,
)
from thrift.Thrift import TApplicationException

from conftest import hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import call_or_skip_on_reference, connected, raises_hms, unique_name

DB_PREFIX = "proc"


def procedure(db, name, source="BEGIN PRINT 'hi'; END", owner="alice", cat="hive"):
    return StoredProcedure(name=name, dbName=db, catName=cat, ownerName=owner, source=source)


def package(db, name, body="BODY", owner="bob", cat="hive"):
    return AddPackageRequest(catName=cat, dbName=db, packageName=name, ownerName=owner,
                             header=f"CREATE PACKAGE {name} AS END", body=body)


def proc_request(db, name, cat="hive"):
    return StoredProcedureRequest(catName=cat, dbName=db, procName=name)


def missing_result(method):
    """What Hive's client raises for a reply without a result."""
    return raises_hms(TApplicationException, f"{method} failed: unknown result")


def test_procedures_are_created_replaced_listed_and_dropped(client, db, server):
    call_or_skip_on_reference(server, client.create_stored_procedure,
                              procedure(db.upper(), "Greet", "v1"))
    client.create_stored_procedure(procedure(db, "add_one"))
    got = client.get_stored_procedure(proc_request(f" {db.upper()}", "Greet", cat="HIVE"))
    assert (got.name, got.dbName, got.catName, got.ownerName, got.source) == (
        "Greet", db, "hive", "alice", "v1")
    # The name is compared as given.
    with missing_result("get_stored_procedure"):
        client.get_stored_procedure(proc_request(db, "greet"))
    client.create_stored_procedure(procedure(db, "Greet", "v2", owner="carol"))
    got = client.get_stored_procedure(proc_request(db, "Greet"))
    assert (got.source, got.ownerName) == ("v2", "carol")
    names = client.get_all_stored_procedures(ListStoredProcedureRequest(catName="hive",
                                                                        dbName=db))
    assert sorted(names) == ["Greet", "add_one"]
    everywhere = client.get_all_stored_procedures(ListStoredProcedureRequest(catName="hive"))
    assert {"Greet", "add_one"} <= set(everywhere)
    client.drop_stored_procedure(proc_request(db, "Greet"))
    with missing_result("get_stored_procedure"):
        client.get_stored_procedure(proc_request(db, "Greet"))
    # Dropping what is not there is no error.
    client.drop_stored_procedure(proc_request(db, "Greet"))
    client.drop_stored_procedure(proc_request(unique_name("nodb"), "Greet"))
    assert client.get_all_stored_procedures(
        ListStoredProcedureRequest(catName="hive", dbName=db)) == ["add_one"]
    assert client.get_all_stored_procedures(
        ListStoredProcedureRequest(catName="hive", dbName=unique_name("nodb"))) == []


def test_procedure_errors(client, db, server):
    missing = unique_name("nodb")
    with raises_hms(NoSuchObjectException, f"There is no database hive.{missing}"):
        call_or_skip_on_reference(server, client.create_stored_procedure,
                                  procedure(missing, "p"))
    remote = unique_name("remote")
    client.create_database(Database(name=remote, type=DatabaseType.REMOTE,
                                    connector_name="some_connector", remote_dbname="src"))
    with raises_hms(MetaException,
                    "Operation create_stored_procedure not support for REMOTE database"):
        client.create_stored_procedure(procedure(remote, "p"))
    assert client.get_all_stored_procedures(
        ListStoredProcedureRequest(catName="hive", dbName=remote)) == []
    client.drop_database(remote, False, False)


def test_procedure_fields_hive_cannot_store_are_refused(client, db, server):
    if server.external:
        pytest.skip("Hive fails on these in its store; hivestore's own messages")
    with raises_hms(MetaException, "The stored procedure's source is not set"):
        client.create_stored_procedure(procedure(db, "p", source=None))
    with raises_hms(MetaException, "The stored procedure's owner is not set"):
        client.create_stored_procedure(procedure(db, "p", owner=None))
    with raises_hms(MetaException, "The stored procedure's name is 257 bytes, longer than "
                                   "the 256 bytes allowed"):
        client.create_stored_procedure(procedure(db, "p" * 257))
    with raises_hms(MetaException, "source is 16777216 bytes, longer than the 16777215"):
        client.create_stored_procedure(procedure(db, "big", source="s" * (1 << 24)))
    with raises_hms(NoSuchObjectException, f"There is no database null.{db}"):
        client.create_stored_procedure(procedure(db, "p", cat=None))
    assert client.get_all_stored_procedures(
        ListStoredProcedureRequest(catName="hive", dbName=db)) == []


def test_packages_are_added_replaced_found_and_dropped(client, db, server):
    call_or_skip_on_reference(server, client.add_package, package(db, "Pkg"))
    found = client.find_package(GetPackageRequest(catName="hive", dbName=db.upper(),
                                                  packageName="Pkg"))
    assert (found.catName, found.dbName, found.packageName, found.ownerName) == (
        "hive", db, "Pkg", "bob")
    assert (found.header, found.body) == ("CREATE PACKAGE Pkg AS END", "BODY")
    client.add_package(package(db, "Pkg", body="NEW BODY"))
    assert client.find_package(GetPackageRequest(catName="hive", dbName=db,
                                                 packageName="Pkg")).body == "NEW BODY"
    client.add_package(package(db, "other"))
    assert sorted(client.get_all_packages(ListPackageRequest(catName="hive", dbName=db))) == [
        "Pkg", "other"]
    assert {"Pkg", "other"} <= set(client.get_all_packages(ListPackageRequest(catName="hive")))
    with missing_result("find_package"):
        client.find_package(GetPackageRequest(catName="hive", dbName=db, packageName="pkg"))
    missing = unique_name("nodb")
    with raises_hms(MetaException, f"There is no database hive.{missing}"):
        client.add_package(package(missing, "x"))
    client.drop_package(DropPackageRequest(catName="hive", dbName=db, packageName="Pkg"))
    client.drop_package(DropPackageRequest(catName="hive", dbName=db, packageName="Pkg"))
    with missing_result("find_package"):
        client.find_package(GetPackageRequest(catName="hive", dbName=db, packageName="Pkg"))
    assert client.get_all_packages(ListPackageRequest(catName="hive", dbName=db)) == ["other"]


def test_a_remote_database_takes_packages(client, server):
    remote = unique_name("remote")
    call_or_skip_on_reference(server, client.create_database,
                              Database(name=remote, type=DatabaseType.REMOTE,
                                       connector_name="c", remote_dbname="src"))
    client.add_package(package(remote, "pkg"))
    assert client.get_all_packages(ListPackageRequest(catName="hive", dbName=remote)) == ["pkg"]
    client.drop_package(DropPackageRequest(catName="hive", dbName=remote, packageName="pkg"))
    client.drop_database(remote, False, False)


def test_drop_database_refuses_or_takes_routines(client, server):
    name = unique_name("routines")
    client.create_database(Database(name=name))
    call_or_skip_on_reference(server, client.create_stored_procedure, procedure(name, "p"))
    with raises_hms(InvalidOperationException,
                    f"Database {name} is not empty. One or more stored procedures exist."):
        client.drop_database(name, False, False)
    client.drop_stored_procedure(proc_request(name, "p"))
    client.add_package(package(name, "pkg"))
    with raises_hms(InvalidOperationException,
                    f"Database {name} is not empty. One or more packages exist."):
        client.drop_database(name, False, False)
    client.create_stored_procedure(procedure(name, "p"))
    client.drop_database(name, False, True)
    client.create_database(Database(name=name))
    assert client.get_all_stored_procedures(
        ListStoredProcedureRequest(catName="hive", dbName=name)) == []
    assert client.get_all_packages(ListPackageRequest(catName="hive", dbName=name)) == []
    client.drop_database(name, False, False)


def test_routines_log_no_events(client, db, server):
    if server.external:
        pytest.skip("the reference runs without DbNotificationListener")
    before = client.get_current_notificationEventId().eventId
    client.create_stored_procedure(procedure(db, "quiet"))
    client.drop_stored_procedure(proc_request(db, "quiet"))
    client.add_package(package(db, "quiet"))
    client.drop_package(DropPackageRequest(catName="hive", dbName=db, packageName="quiet"))
    events = client.get_next_notification(
        NotificationEventRequest(lastEvent=before, maxEvents=10)).events
    assert events == []


def test_routines_survive_a_restart(tmp_path, server):
    if server.external:
        pytest.skip("restarts a hivestore of its own")
    workdir = tmp_path / "routines"
    workdir.mkdir()
    running = start_hivestore(hivestore_binary(), workdir)
    try:
        with connected(running) as client:
            client.create_database(Database(name="kept"))
            client.create_stored_procedure(procedure("kept", "Proc", "the source"))
            client.add_package(package("kept", "Pkg", body="the body"))
    finally:
        stop_hivestore(running)
    again = start_hivestore(hivestore_binary(), workdir)
    try:
        with connected(again) as client:
            got = client.get_stored_procedure(proc_request("kept", "Proc"))
            assert (got.source, got.ownerName) == ("the source", "alice")
            found = client.find_package(GetPackageRequest(catName="hive", dbName="kept",
                                                          packageName="Pkg"))
            assert found.body == "the body"
            assert client.get_all_stored_procedures(
                ListStoredProcedureRequest(catName="hive", dbName="kept")) == ["Proc"]
    finally:
        stop_hivestore(again)
