"""Data connectors and REMOTE databases through the pyiceberg-vendored Hive 4 client (Hive 4.0's
create_dataconnector, get_dataconnector_req, get_dataconnectors, alter_dataconnector and
drop_dataconnector, whose two flags carry the field ids -1 and -2), and the `_req` forms of
create, alter and drop that pyiceberg's IDL predates, as raw calls.

Hive 4's behaviour (HMSHandler, ObjectStore, MDataConnector): names are stored lowercased; an
unset name is MetaException "Data connector name cannot be null.", a taken one
AlreadyExistsException "DataConnector <name> already exists", an invalid one
InvalidObjectException "<name> is not a valid dataconnector name"; the owner defaults to the
caller and its type to USER; get and alter of a missing connector are NoSuchObjectException
"Dataconnector named <name> does not exist:null"; drop of a missing one NoSuchObjectException
"DataConnector <name> doesn't exist" unless ifNotExists; alter replaces URL, parameters and
owner and keeps name, type and create time (and the description, unless a non-blank one is
sent); get_dataconnectors lists names ascending. A drop does not look at the databases naming
the connector. A REMOTE database keeps its connector and remote names; a table cannot be
created in it; its drop is not logged. No event for connectors.

Hive 2.3 has none of these: on the 2.3 reference the tests skip where it answers UNKNOWN_METHOD.
"""

import pytest
from hive_metastore.ttypes import (
    AlreadyExistsException, DataConnector, Database, DatabaseType, GetDataConnectorRequest,
    InvalidObjectException, InvalidOperationException, MetaException, NoSuchObjectException,
    NotificationEventRequest, PrincipalType,
)
from thrift.Thrift import TType

from conftest import hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import (
    TEST_USER, call_method, call_or_skip_on_reference, connected, make_struct, make_table,
    raises_hms, unique_name,
)

DB_PREFIX = "dc"


def connector(name, url="jdbc:mysql://db.example:3306", owner=None, description="orders"):
    return DataConnector(name=name, type="mysql", url=url, description=description,
                         parameters={"hive.sql.dbcp.username": "reader"}, ownerName=owner)


def get(client, name):
    return client.get_dataconnector_req(GetDataConnectorRequest(connectorName=name))


# Hive 4's `_req` forms, not in pyiceberg's client.
CREATE_REQUEST = make_struct("CreateDataConnectorRequest", [
    (1, TType.STRUCT, "connector", [DataConnector, None], None)])
ALTER_REQUEST = make_struct("AlterDataConnectorRequest", [
    (1, TType.STRING, "connectorName", "UTF8", None),
    (2, TType.STRUCT, "newConnector", [DataConnector, None], None)])
DROP_REQUEST = make_struct("DropDataConnectorRequest", [
    (1, TType.STRING, "connectorName", "UTF8", None),
    (2, TType.BOOL, "ifNotExists", None, None),
    (3, TType.BOOL, "checkReferences", None, None)])


def create_req(client, value):
    request = CREATE_REQUEST(connector=value)
    return call_method(client, "create_dataconnector_req",
                       [(1, TType.STRUCT, "connectorReq", [CREATE_REQUEST, None], request)],
                       [(1, TType.STRUCT, "o1", [AlreadyExistsException, None]),
                        (2, TType.STRUCT, "o2", [InvalidObjectException, None]),
                        (3, TType.STRUCT, "o3", [MetaException, None])])


def alter_req(client, name, value):
    request = ALTER_REQUEST(connectorName=name, newConnector=value)
    return call_method(client, "alter_dataconnector_req",
                       [(1, TType.STRUCT, "alterReq", [ALTER_REQUEST, None], request)],
                       [(1, TType.STRUCT, "o1", [MetaException, None]),
                        (2, TType.STRUCT, "o2", [NoSuchObjectException, None])])


def drop_req(client, name, if_not_exists=None):
    request = DROP_REQUEST(connectorName=name, ifNotExists=if_not_exists)
    return call_method(client, "drop_dataconnector_req",
                       [(1, TType.STRUCT, "dropDcReq", [DROP_REQUEST, None], request)],
                       [(1, TType.STRUCT, "o1", [NoSuchObjectException, None]),
                        (2, TType.STRUCT, "o2", [InvalidOperationException, None]),
                        (3, TType.STRUCT, "o3", [MetaException, None])])


def test_connector_lifecycle(client, server):
    name = unique_name("Orders_Conn")
    call_or_skip_on_reference(server, client.create_dataconnector, connector(name))
    got = get(client, name.upper())
    assert (got.name, got.type, got.url, got.description) == (
        name.lower(), "mysql", "jdbc:mysql://db.example:3306", "orders")
    assert got.parameters == {"hive.sql.dbcp.username": "reader"}
    assert (got.ownerName, got.ownerType) == (TEST_USER, PrincipalType.USER)
    assert got.createTime > 0
    other = unique_name("a_conn")
    client.create_dataconnector(connector(other, owner="ops"))
    assert get(client, other).ownerName == "ops"
    names = client.get_dataconnectors()
    assert {name.lower(), other} <= set(names)
    assert names == sorted(names)

    change = DataConnector(name="ignored", type="postgres", url="jdbc:postgresql://other",
                           description="  ", parameters=None, ownerName="dba",
                           ownerType=PrincipalType.ROLE)
    client.alter_dataconnector(name, change)
    got = get(client, name)
    assert (got.name, got.type, got.url, got.description) == (
        name.lower(), "mysql", "jdbc:postgresql://other", "orders")
    assert (got.parameters, got.ownerName, got.ownerType) == ({}, "dba", PrincipalType.ROLE)

    client.drop_dataconnector(name.upper(), False, False)
    with raises_hms(NoSuchObjectException, f"Dataconnector named {name} does not exist:null"):
        get(client, name)
    client.drop_dataconnector(name, True, False)
    with raises_hms(NoSuchObjectException, f"DataConnector {name} doesn't exist"):
        client.drop_dataconnector(name, False, True)
    client.drop_dataconnector(other, False, False)
    assert other not in client.get_dataconnectors()


def test_connector_errors(client, server):
    name = unique_name("taken")
    call_or_skip_on_reference(server, client.create_dataconnector, connector(name))
    with raises_hms(AlreadyExistsException, f"DataConnector {name.upper()} already exists"):
        client.create_dataconnector(connector(name.upper()))
    with raises_hms(InvalidObjectException, "no good is not a valid dataconnector name"):
        client.create_dataconnector(connector("no good"))
    with raises_hms(MetaException, "Data connector name cannot be null."):
        client.create_dataconnector(connector(None))
    missing = unique_name("missing")
    with raises_hms(NoSuchObjectException, f"Dataconnector named {missing} does not exist:null"):
        client.alter_dataconnector(missing, connector(missing))
    assert missing not in client.get_dataconnectors()
    client.drop_dataconnector(name, False, False)


def test_connector_values_hive_cannot_store_are_refused(client, server):
    if server.external:
        pytest.skip("Hive fails on these in its store; hivestore's own messages")
    untyped = connector(unique_name("untyped"))
    untyped.type = None
    with raises_hms(InvalidObjectException, "The data connector's type is not set"):
        client.create_dataconnector(untyped)
    with raises_hms(InvalidObjectException, "data connector description is 257 bytes"):
        client.create_dataconnector(connector(unique_name("wide"), description="d" * 257))
    with raises_hms(InvalidObjectException, "dataconnector name is 129 bytes"):
        client.create_dataconnector(connector("c" * 129))
    name = unique_name("kept")
    client.create_dataconnector(connector(name))
    with raises_hms(MetaException, "The data connector's url is not set"):
        client.alter_dataconnector(name, connector(name, url=None))
    assert get(client, name).url == "jdbc:mysql://db.example:3306"
    client.drop_dataconnector(name, False, False)


def test_req_forms(client, server):
    name = unique_name("req_conn")
    call_or_skip_on_reference(server, create_req, client, connector(name))
    assert get(client, name).type == "mysql"
    with raises_hms(AlreadyExistsException, f"DataConnector {name} already exists"):
        create_req(client, connector(name))
    alter_req(client, name, connector(name, url="jdbc:mysql://moved"))
    assert get(client, name).url == "jdbc:mysql://moved"
    with raises_hms(NoSuchObjectException, "Dataconnector named nope_x does not exist:null"):
        alter_req(client, "nope_x", connector("nope_x"))
    drop_req(client, name)
    with raises_hms(NoSuchObjectException, f"DataConnector {name} doesn't exist"):
        drop_req(client, name)
    drop_req(client, name, if_not_exists=True)


def test_remote_databases(client, server):
    source = unique_name("src_conn")
    call_or_skip_on_reference(server, client.create_dataconnector, connector(source))
    remote = unique_name("mirror")
    client.create_database(Database(name=remote, type=DatabaseType.REMOTE,
                                    connector_name=source, remote_dbname="orders"))
    got = client.get_database(remote)
    assert (got.type, got.connector_name, got.remote_dbname) == (
        DatabaseType.REMOTE, source, "orders")
    with raises_hms(MetaException, f"Create table in REMOTE database {remote} is not allowed"):
        client.create_table(make_table(remote, "t"))
    # An alter changes neither type nor connector nor remote name (Hive's alterDatabase).
    client.alter_database(remote, Database(name=remote, description="described",
                                           type=DatabaseType.NATIVE, connector_name="other"))
    got = client.get_database(remote)
    assert (got.description, got.type, got.connector_name, got.remote_dbname) == (
        "described", DatabaseType.REMOTE, source, "orders")
    # Hive drops a connector that databases still name; they keep the name.
    client.drop_dataconnector(source, False, True)
    assert client.get_database(remote).connector_name == source
    if not server.external:
        before = client.get_current_notificationEventId().eventId
    client.drop_database(remote, False, False)
    if not server.external:
        # Hive's drop_remote_database_core tells no listener.
        events = client.get_next_notification(
            NotificationEventRequest(lastEvent=before, maxEvents=10)).events
        assert events == []


def test_connectors_log_no_events(client, server):
    if server.external:
        pytest.skip("the reference runs without DbNotificationListener")
    before = client.get_current_notificationEventId().eventId
    name = unique_name("quiet")
    client.create_dataconnector(connector(name))
    client.alter_dataconnector(name, connector(name, url="jdbc:mysql://elsewhere"))
    client.drop_dataconnector(name, False, False)
    events = client.get_next_notification(
        NotificationEventRequest(lastEvent=before, maxEvents=10)).events
    assert events == []


def test_connectors_survive_a_restart(tmp_path, server):
    if server.external:
        pytest.skip("restarts a hivestore of its own")
    workdir = tmp_path / "connectors"
    workdir.mkdir()
    running = start_hivestore(hivestore_binary(), workdir)
    try:
        with connected(running) as client:
            client.create_dataconnector(connector("Kept_Conn", owner="ops"))
            client.create_database(Database(name="mirror", type=DatabaseType.REMOTE,
                                            connector_name="kept_conn", remote_dbname="o"))
    finally:
        stop_hivestore(running)
    again = start_hivestore(hivestore_binary(), workdir)
    try:
        with connected(again) as client:
            got = get(client, "kept_conn")
            assert (got.type, got.url, got.ownerName) == (
                "mysql", "jdbc:mysql://db.example:3306", "ops")
            assert client.get_dataconnectors() == ["kept_conn"]
            assert client.get_database("mirror").connector_name == "kept_conn"
    finally:
        stop_hivestore(again)
