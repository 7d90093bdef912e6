"""Functions: the pyiceberg-vendored Hive 4 client, PySpark SQL, and Hive 2.3's Java
HiveMetaStoreClient (the pyspark jars, driven through PySpark's JVM).

Hive's behaviour (HMSHandler, ObjectStore): names are lowercased; create checks name, class,
owner type and function type before the store; a missing database is NoSuchObjectException, a
taken name AlreadyExistsException "Function <name> already exists"; get_function of a missing
one is NoSuchObjectException "Function <db>.<name> does not exist", drop_function's "Function
<name> does not exist"; get_functions of a missing database is empty; alter_function changes
name, database, owner, class and type (not the resources) and refuses with MetaException only;
drop_database refuses a database with functions unless cascade. CREATE_FUNCTION and
DROP_FUNCTION are logged (hivestore only: the reference runs without DbNotificationListener).

Where Hive 2.3 differs, Hive 4 wins and the check runs only on Hive 4's API (`hive == 4`): 2.3
stores a function name as given yet looks names up lowercased (a mixed-case name cannot be
found again), and lacks the null checks of create and alter (it fails with an internal error).
"""

import pytest
from hive_metastore.ttypes import (
    AlreadyExistsException, Database, Function, FunctionType,
    InvalidObjectException, InvalidOperationException, MetaException, NoSuchObjectException,
    NotificationEventRequest, PrincipalType, ResourceType, ResourceUri,
)

from thrift.Thrift import TType

from hms_helpers import (
    call_method, call_or_skip_on_reference, connected, make_struct, raises_hms, unique_name,
)
from spark_sessions import spark_session

DB_PREFIX = "fn"
CLASS = "org.example.udf.Upper"
JAR = "file:///opt/udfs/upper.jar"


def function(db, name, class_name=CLASS, resources=None):
    if resources is None:
        resources = [ResourceUri(ResourceType.JAR, JAR),
                     ResourceUri(ResourceType.FILE, "file:///opt/udfs/words.txt")]
    return Function(functionName=name, dbName=db, className=class_name, ownerName="alice",
                    ownerType=PrincipalType.USER, createTime=0, functionType=FunctionType.JAVA,
                    resourceUris=resources)


def test_create_get_list_and_get_all(client, db, hive):
    client.create_function(function(db, "My_Upper" if hive == 4 else "my_upper"))
    client.create_function(function(db, "lower", resources=[]))
    got = client.get_function(db, "MY_UPPER" if hive == 4 else "my_upper")
    assert (got.functionName, got.dbName, got.className) == ("my_upper", db, CLASS)
    assert (got.ownerName, got.ownerType, got.functionType) == (
        "alice", PrincipalType.USER, FunctionType.JAVA)
    assert got.createTime > 0
    assert [(r.resourceType, r.uri) for r in got.resourceUris] == [
        (ResourceType.JAR, JAR), (ResourceType.FILE, "file:///opt/udfs/words.txt")]
    assert client.get_functions(db, "*") == ["lower", "my_upper"]
    assert client.get_functions(db, "my*|nothing") == ["my_upper"]
    assert client.get_functions(unique_name("missing"), "*") == []
    everywhere = client.get_all_functions().functions
    mine = sorted(f.functionName for f in everywhere if f.dbName == db)
    assert mine == ["lower", "my_upper"]


def get_functions_req(client, db, pattern, return_names=None):
    """Hive 4's get_functions_req (pyiceberg's vendored IDL predates it)."""
    request_class = make_struct("GetFunctionsRequest", [
        (1, TType.STRING, "dbName", "UTF8", None),
        (2, TType.STRING, "catalogName", "UTF8", None),
        (3, TType.STRING, "pattern", "UTF8", None),
        (4, TType.BOOL, "returnNames", None, None),
    ])
    response_class = make_struct("GetFunctionsResponse", [
        (1, TType.LIST, "function_names", (TType.STRING, "UTF8", False), None),
        (2, TType.LIST, "functions", (TType.STRUCT, [Function, None], False), None),
    ])
    request = request_class(dbName=db, pattern=pattern, returnNames=return_names)
    return call_method(client, "get_functions_req",
                       [(1, TType.STRUCT, "request", [request_class, None], request)],
                       [(0, TType.STRUCT, "success", [response_class, None]),
                        (1, TType.STRUCT, "o1", [MetaException, None])])


def test_get_functions_req_names_or_objects(client, db, server):
    client.create_function(function(db, "f1"))
    names = call_or_skip_on_reference(server, get_functions_req, client, db, "f*")
    assert names.function_names == ["f1"]
    objects = get_functions_req(client, db, "*", return_names=False)
    assert [f.className for f in objects.functions] == [CLASS]


def test_bad_creates_are_refused_with_hives_exceptions(client, db, hive):
    client.create_function(function(db, "dup"))
    with raises_hms(AlreadyExistsException, "Function dup already exists"):
        client.create_function(function(db, "dup"))
    with raises_hms(NoSuchObjectException):
        client.create_function(function(unique_name("nodb"), "f"))
    with raises_hms(InvalidObjectException, "bad-name is not a valid object name"):
        client.create_function(function(db, "bad-name"))
    if hive == 4:
        assert_hive_4_null_checks(client, db)
    assert client.get_functions(db, "*") == ["dup"]


def assert_hive_4_null_checks(client, db):
    with raises_hms(AlreadyExistsException, "Function DUP already exists"):
        client.create_function(function(db, "DUP"))
    with raises_hms(InvalidObjectException, "Function class name cannot be null"):
        client.create_function(function(db, "f", class_name=None))
    no_type = function(db, "f")
    no_type.functionType = None
    with raises_hms(MetaException, "Function type cannot be null."):
        client.create_function(no_type)
    no_owner_type = function(db, "f")
    no_owner_type.ownerType = None
    with raises_hms(MetaException, "Function owner type cannot be null."):
        client.create_function(no_owner_type)


def test_missing_functions_are_named_as_hive_names_them(client, db):
    with raises_hms(NoSuchObjectException, f"Function {db}.nope does not exist"):
        client.get_function(db, "nope")
    with raises_hms(NoSuchObjectException, "Function Nope does not exist"):
        client.drop_function(db, "Nope")


def test_alter_renames_across_databases_and_keeps_resources(client, db, hive):
    client.create_function(function(db, "f"))
    created = client.get_function(db, "f")
    other = unique_name("fn_other")
    client.create_database(Database(name=other))
    new = function(other, "G" if hive == 4 else "g", class_name="org.example.udf.Other",
                   resources=[])
    new.ownerName, new.ownerType = "admins", PrincipalType.ROLE
    client.alter_function(db, "f", new)
    with raises_hms(NoSuchObjectException):
        client.get_function(db, "f")
    altered = client.get_function(other, "g")
    assert (altered.dbName, altered.className, altered.ownerName, altered.ownerType) == (
        other, "org.example.udf.Other", "admins", PrincipalType.ROLE)
    assert altered.resourceUris == created.resourceUris
    assert altered.createTime == created.createTime
    with raises_hms(MetaException, "doesn't exist"):
        client.alter_function(db, "missing", function(db, "x"))
    if hive == 4:
        with raises_hms(MetaException, "doesn't exist."):
            client.alter_function(other, "g", function(unique_name("nodb"), "g"))
        with raises_hms(MetaException, "bad-name is not a valid object name"):
            client.alter_function(other, "g", function(other, "bad-name"))
    client.drop_function(other, "g")
    client.drop_database(other, True, False)


def test_drop_database_with_functions_needs_cascade(client, db):
    client.create_function(function(db, "f"))
    with raises_hms(InvalidOperationException,
                    f"Database {db} is not empty. One or more functions exist."):
        client.drop_database(db, True, False)
    assert client.get_functions(db, "*") == ["f"]
    client.drop_database(db, True, True)
    client.create_database(Database(name=db))
    assert client.get_functions(db, "*") == []


def test_function_events_are_logged(client, db, server):
    if server.external:
        pytest.skip("the reference runs without DbNotificationListener")
    before = client.get_current_notificationEventId().eventId
    client.create_function(function(db, "logged"))
    client.drop_function(db, "logged")
    events = client.get_next_notification(
        NotificationEventRequest(lastEvent=before, maxEvents=10)).events
    assert [(e.eventType, e.dbName, e.tableName) for e in events] == [
        ("CREATE_FUNCTION", db, None), ("DROP_FUNCTION", db, None)]
    assert '"functionObjJson"' in events[0].message and CLASS in events[0].message
    assert '"functionName":"logged"' in events[1].message


# --- PySpark SQL and Hive 2.3's Java client -------------------------------------------------

@pytest.fixture(scope="module")
def spark(server, tmp_path_factory):
    scratch = tmp_path_factory.mktemp("spark_functions")
    with spark_session(server, scratch / "warehouse", scratch, "hivestore-test-functions") as session:
        yield session


def test_spark_create_show_describe_drop_function(spark, server):
    db = unique_name("fn_spark")
    spark.sql(f"CREATE DATABASE {db}")
    spark.sql(f"CREATE FUNCTION {db}.shout AS '{CLASS}' USING JAR '{JAR}'")
    shown = [row[0] for row in spark.sql(f"SHOW USER FUNCTIONS IN {db}").collect()]
    assert any(name.endswith(f"{db}.shout") for name in shown), shown
    described = " ".join(row[0] for row in spark.sql(f"DESCRIBE FUNCTION {db}.shout").collect())
    assert CLASS in described and "shout" in described
    with connected(server) as client:
        stored = client.get_function(db, "shout")
        assert stored.className == CLASS
        assert [(r.resourceType, r.uri) for r in stored.resourceUris] == [(ResourceType.JAR, JAR)]
    spark.sql(f"CREATE FUNCTION IF NOT EXISTS {db}.shout AS '{CLASS}' USING JAR '{JAR}'")
    spark.sql(f"DROP FUNCTION {db}.shout")
    assert spark.sql(f"SHOW USER FUNCTIONS IN {db}").collect() == []
    spark.sql(f"DROP FUNCTION IF EXISTS {db}.shout")
    spark.sql(f"DROP DATABASE {db}")


def test_hive_23_java_client_functions(spark, server):
    jvm = spark._jvm
    api = jvm.org.apache.hadoop.hive.metastore.api
    conf = jvm.org.apache.hadoop.hive.conf.HiveConf()
    conf.set("hive.metastore.uris", server.uri)
    java_client = jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(conf)
    db = unique_name("fn_java")
    try:
        java_client.createDatabase(api.Database(db, "", None, None))
        resources = jvm.java.util.ArrayList()
        resources.add(api.ResourceUri(api.ResourceType.JAR, JAR))
        made = api.Function("twice", db, CLASS, "bob", api.PrincipalType.USER, 0,
                            api.FunctionType.JAVA, resources)
        java_client.createFunction(made)
        got = java_client.getFunction(db, "twice")
        assert (got.getFunctionName(), got.getClassName(), got.getOwnerName()) == (
            "twice", CLASS, "bob")
        assert got.getResourceUris().get(0).getUri() == JAR
        assert list(java_client.getFunctions(db, "*")) == ["twice"]
        everywhere = java_client.getAllFunctions().getFunctions()
        assert any(f.getDbName() == db and f.getFunctionName() == "twice" for f in everywhere)
        renamed = api.Function("thrice", db, CLASS + "3", "bob", api.PrincipalType.USER, 0,
                               api.FunctionType.JAVA, jvm.java.util.ArrayList())
        java_client.alterFunction(db, "twice", renamed)
        assert java_client.getFunction(db, "thrice").getClassName() == CLASS + "3"
        with pytest.raises(Exception) as refused:
            java_client.createFunction(api.Function(
                "thrice", db, CLASS, "bob", api.PrincipalType.USER, 0, api.FunctionType.JAVA,
                jvm.java.util.ArrayList()))
        assert "AlreadyExistsException" in str(refused.value)
        java_client.dropFunction(db, "thrice")
        with pytest.raises(Exception) as missing:
            java_client.getFunction(db, "thrice")
        assert "NoSuchObjectException" in str(missing.value)
    finally:
        java_client.dropDatabase(db, True, True, True)
        java_client.close()
