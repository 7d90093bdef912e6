"""Hive's registries and cache calls: the old type registry, the schema registry with its
versions and SerDes, the file-metadata cache calls, flushCache and translate_table_dryrun,
through the pyiceberg-vendored Hive 4 client, and types through Hive 2.3's Java client
(PySpark's JVM).

Hive 4's behaviour (HMSHandler, ObjectStore, MetastoreDefaultTransformer): a type name must be
`[\\w_]+` ("Invalid type name"), a taken one is AlreadyExistsException "Type <name> already
exists", a missing one NoSuchObjectException 'Type "<name>" not found.'; drop_type answers true
even for a missing type (Hive 4's store), get_type_all is MetaException "Not yet implemented".
Schemas live in a database; versions are numbered; a schema with a version cannot be dropped;
messages name schemas and versions as Thrift's toString prints them. The file-metadata cache is
off by default (isSupported false; clear_file_metadata fails with an internal error).
The dry run turns a non-transactional managed table into an external table that purges.

The schema registry, translate_table_dryrun and the file-metadata calls are Hive 3+; on the
Hive 2.3 reference those checks skip where it answers UNKNOWN_METHOD. Where 2.3 differs, Hive 4
wins (`hive == 4`).
"""

import pytest
from hive_metastore.ttypes import (
    AlreadyExistsException, AlterISchemaRequest, CacheFileMetadataRequest,
    ClearFileMetadataRequest, CreateTableRequest, Database, FieldSchema,
    FindSchemasByColsRqst, GetFileMetadataByExprRequest, GetFileMetadataRequest,
    GetSerdeRequest, InvalidObjectException, InvalidOperationException, ISchema, ISchemaName,
    MapSchemaVersionToSerdeRequest, MetaException, NoSuchObjectException,
    NotificationEventRequest, PutFileMetadataRequest, SchemaCompatibility, SchemaType,
    SchemaValidation, SchemaVersion, SchemaVersionDescriptor, SchemaVersionState,
    SerDeInfo, SerdeType, SetSchemaVersionStateRequest, Type,
)
from thrift.Thrift import TApplicationException

from hms_helpers import call_or_skip_on_reference, make_table, raises_hms, unique_name
from spark_sessions import spark_session

DB_PREFIX = "reg"


def new_type(name):
    return Type(name=name, type1="string", type2=None,
                fields=[FieldSchema("x", "int", "across"), FieldSchema("y", "int", None)])


# --- types ----------------------------------------------------------------------------------

def test_types_create_get_drop(client, hive):
    name = unique_name("point")
    assert client.create_type(new_type(name)) is True
    got = client.get_type(name)
    assert (got.name, got.type1) == (name, "string")
    assert [(f.name, f.type, f.comment) for f in got.fields] == [
        ("x", "int", "across"), ("y", "int", None)]
    with raises_hms(AlreadyExistsException, f"Type {name} already exists"):
        client.create_type(new_type(name))
    with raises_hms(InvalidObjectException, "Invalid type name"):
        client.create_type(new_type("no-dashes"))
    with raises_hms(MetaException, "Not yet implemented"):
        client.get_type_all(name)
    assert client.drop_type(name) is True
    with raises_hms(NoSuchObjectException, f'Type "{name}" not found.'):
        client.get_type(name)
    if hive == 4:
        # Hive 4's store answers true for a type that is not there.
        assert client.drop_type(name) is True


def test_long_type_names_are_refused(client, server):
    if server.external:
        pytest.skip("hivestore's own limit (Hive's column is varchar(128))")
    with raises_hms(InvalidObjectException, "longer than the 128 bytes allowed"):
        client.create_type(new_type("t" * 129))


# --- the schema registry --------------------------------------------------------------------

def schema_name(db, name):
    return ISchemaName(catName="hive", dbName=db, schemaName=name)


def make_schema(db, name):
    return ISchema(schemaType=SchemaType.AVRO, name=name, catName="hive", dbName=db,
                   compatibility=SchemaCompatibility.BACKWARD,
                   validationLevel=SchemaValidation.ALL, canEvolve=True,
                   schemaGroup="group1", description="first")


def make_version(db, name, number, columns, serde=None, state=None):
    return SchemaVersion(schema=schema_name(db, name), version=number, createdAt=10,
                         cols=columns, state=state, description="v", schemaText="{}",
                         fingerprint="md5", name=f"v{number}", serDe=serde)


def test_schema_lifecycle(client, db, server):
    call_or_skip_on_reference(server, client.create_ischema, make_schema(db, "Orders"))
    got = client.get_ischema(schema_name(db, "ORDERS"))
    assert (got.name, got.dbName, got.catName, got.schemaType) == (
        "orders", db, "hive", SchemaType.AVRO)
    assert (got.compatibility, got.validationLevel, got.canEvolve, got.schemaGroup) == (
        SchemaCompatibility.BACKWARD, SchemaValidation.ALL, True, "group1")
    with raises_hms(AlreadyExistsException, f"Schema with name {db}.orders already exists"):
        client.create_ischema(make_schema(db, "orders"))
    with raises_hms(NoSuchObjectException):
        client.create_ischema(make_schema(unique_name("nodb"), "s"))

    changed = make_schema(db, "ignored")
    changed.compatibility, changed.canEvolve = SchemaCompatibility.BOTH, False
    changed.schemaGroup, changed.description = None, "second"
    client.alter_ischema(AlterISchemaRequest(name=schema_name(db, "orders"), newSchema=changed))
    got = client.get_ischema(schema_name(db, "orders"))
    assert (got.name, got.compatibility, got.canEvolve) == (
        "orders", SchemaCompatibility.BOTH, False)
    assert (got.schemaGroup, got.description) == ("group1", "second")

    missing = f"ISchemaName(catName:hive, dbName:{db}, schemaName:nope)"
    with raises_hms(NoSuchObjectException, f"No schema named {missing} exists"):
        client.get_ischema(schema_name(db, "nope"))
    with raises_hms(NoSuchObjectException, f"Could not find schema {missing}"):
        client.alter_ischema(AlterISchemaRequest(name=schema_name(db, "nope"),
                                                 newSchema=changed))
    with raises_hms(NoSuchObjectException, f"Schema {missing} does not exist"):
        client.drop_ischema(schema_name(db, "nope"))
    client.drop_ischema(schema_name(db, "orders"))
    with raises_hms(NoSuchObjectException):
        client.get_ischema(schema_name(db, "orders"))


def test_schema_versions(client, db, server):
    call_or_skip_on_reference(server, client.create_ischema, make_schema(db, "s"))
    serde = SerDeInfo(name=unique_name("inline_serde"), serializationLib="lib",
                      parameters={}, serializerClass="ser", deserializerClass="de",
                      description="inline")
    client.add_schema_version(make_version(db, "s", 1, [FieldSchema("A", "int", None)], serde))
    client.add_schema_version(make_version(db, "s", 3, [FieldSchema("a", "int", None),
                                                        FieldSchema("b", "date", "ns=x")]))
    client.add_schema_version(make_version(db, "s", 2, [FieldSchema("a", "int", None)]))
    name = schema_name(db, "s")
    with raises_hms(AlreadyExistsException, "version 2 already exists"):
        client.add_schema_version(make_version(db, "s", 2, []))
    with raises_hms(NoSuchObjectException, "No schema named"):
        client.add_schema_version(make_version(db, "none", 1, []))

    first = client.get_schema_version(SchemaVersionDescriptor(schema=name, version=1))
    assert (first.version, first.createdAt, first.state, first.name) == (1, 10, None, "v1")
    assert [c.name for c in first.cols] == ["a"]
    assert (first.serDe.name, first.serDe.serializerClass) == (serde.name, "ser")
    assert client.get_schema_latest_version(name).version == 3
    assert [v.version for v in client.get_schema_all_versions(name)] == [3, 2, 1]
    described = (f"SchemaVersionDescriptor(schema:ISchemaName(catName:hive, dbName:{db}, "
                 "schemaName:s), version:9)")
    with raises_hms(NoSuchObjectException, f"No schema version {described}exists"):
        client.get_schema_version(SchemaVersionDescriptor(schema=name, version=9))

    with raises_hms(InvalidOperationException, "cannot be dropped, it has at least one valid"):
        client.drop_ischema(name)
    with raises_hms(InvalidOperationException, "One or more schemas exist."):
        client.drop_database(db, True, True)
    assert client.get_ischema(name).name == "s"

    client.set_schema_version_state(SetSchemaVersionStateRequest(
        schemaVersion=SchemaVersionDescriptor(schema=name, version=2),
        state=SchemaVersionState.REVIEWED))
    assert client.get_schema_version(
        SchemaVersionDescriptor(schema=name, version=2)).state == SchemaVersionState.REVIEWED

    for number in (1, 2, 3):
        client.drop_schema_version(SchemaVersionDescriptor(schema=name, version=number))
    with raises_hms(NoSuchObjectException, "No versions of schema ISchemaName("):
        client.get_schema_latest_version(name)
    with raises_hms(NoSuchObjectException):
        client.get_schema_all_versions(name)
    client.drop_ischema(name)
    client.drop_database(db, True, True)
    client.create_database(Database(name=db))


def test_schemas_by_columns(client, db, server):
    call_or_skip_on_reference(server, client.create_ischema, make_schema(db, "one"))
    client.create_ischema(make_schema(db, "two"))
    client.add_schema_version(make_version(db, "one", 1, [FieldSchema("alpha", "bigint", None),
                                                          FieldSchema("beta", "date", None)]))
    client.add_schema_version(make_version(db, "two", 1, [FieldSchema("ALPHA", "smallint", None),
                                                          FieldSchema("gamma", "string",
                                                                      "namespace=x")]))

    def found(**query):
        answer = client.get_schemas_by_cols(FindSchemasByColsRqst(**query))
        return sorted((d.schema.dbName, d.schema.schemaName, d.version)
                      for d in answer.schemaVersions if d.schema.dbName == db)

    assert found(colName="Alpha") == [(db, "one", 1), (db, "two", 1)]
    assert found(colName="alpha", type="SMALLINT") == [(db, "two", 1)]
    assert found(colNamespace="namespace=x") == [(db, "two", 1)]
    assert found(colName="alpha", type="string") == []
    with raises_hms(MetaException, "You must specify column name or column namespace"):
        client.get_schemas_by_cols(FindSchemasByColsRqst(type="int"))
    for schema in ("one", "two"):
        client.drop_schema_version(SchemaVersionDescriptor(schema=schema_name(db, schema),
                                                           version=1))
        client.drop_ischema(schema_name(db, schema))


def test_serdes_and_mapping(client, db, server):
    serde_name = unique_name("serde")
    serde = SerDeInfo(name=serde_name, serializationLib="serdeLib", parameters={"a": "b"},
                      description="d", serializerClass="s", deserializerClass="ds",
                      serdeType=SerdeType.SCHEMA_REGISTRY)
    call_or_skip_on_reference(server, client.add_serde, serde)
    got = client.get_serde(GetSerdeRequest(serdeName=serde_name))
    assert (got.name, got.serializationLib, got.parameters, got.serdeType) == (
        serde_name, "serdeLib", {"a": "b"}, SerdeType.SCHEMA_REGISTRY)
    with raises_hms(AlreadyExistsException, f"Serde with name {serde_name} already exists"):
        client.add_serde(serde)
    with raises_hms(NoSuchObjectException, "No SerDe named nope_serde"):
        client.get_serde(GetSerdeRequest(serdeName="nope_serde"))

    client.create_ischema(make_schema(db, "mapped"))
    client.add_schema_version(make_version(db, "mapped", 1, [FieldSchema("x", "boolean", None)]))
    version = SchemaVersionDescriptor(schema=schema_name(db, "mapped"), version=1)
    with raises_hms(NoSuchObjectException, "No SerDe named nope_serde"):
        client.map_schema_version_to_serde(
            MapSchemaVersionToSerdeRequest(schemaVersion=version, serdeName="nope_serde"))
    client.map_schema_version_to_serde(
        MapSchemaVersionToSerdeRequest(schemaVersion=version, serdeName=serde_name))
    assert client.get_schema_version(version).serDe.name == serde_name
    missing = SchemaVersionDescriptor(schema=schema_name(db, "mapped"), version=5)
    with raises_hms(NoSuchObjectException, "No schema version"):
        client.map_schema_version_to_serde(
            MapSchemaVersionToSerdeRequest(schemaVersion=missing, serdeName=serde_name))
    with raises_hms(NoSuchObjectException, "No schema version"):
        client.set_schema_version_state(SetSchemaVersionStateRequest(
            schemaVersion=missing, state=SchemaVersionState.ENABLED))
    client.drop_schema_version(version)
    client.drop_ischema(schema_name(db, "mapped"))


def test_registry_changes_log_no_events(client, db, server):
    if server.external:
        pytest.skip("the reference runs without DbNotificationListener")
    before = client.get_current_notificationEventId().eventId
    client.create_ischema(make_schema(db, "quiet"))
    client.add_schema_version(make_version(db, "quiet", 1, []))
    client.drop_schema_version(SchemaVersionDescriptor(schema=schema_name(db, "quiet"),
                                                       version=1))
    client.drop_ischema(schema_name(db, "quiet"))
    assert client.create_type(new_type(unique_name("quiet_type")))
    events = client.get_next_notification(
        NotificationEventRequest(lastEvent=before, maxEvents=10)).events
    assert events == []


# --- the file-metadata cache and flushCache -------------------------------------------------

def test_file_metadata_cache_is_not_supported(client, db, server):
    answer = call_or_skip_on_reference(
        server, client.get_file_metadata, GetFileMetadataRequest(fileIds=[1, 2]))
    assert (answer.isSupported, answer.metadata) == (False, {})
    by_expr = client.get_file_metadata_by_expr(
        GetFileMetadataByExprRequest(fileIds=[1], expr=b"\x00"))
    assert (by_expr.isSupported, by_expr.metadata) == (False, {})
    client.put_file_metadata(PutFileMetadataRequest(fileIds=[1], metadata=[b"footer"]))
    assert client.get_file_metadata(GetFileMetadataRequest(fileIds=[1])).metadata == {}
    cached = client.cache_file_metadata(
        CacheFileMetadataRequest(dbName=db, tblName="whatever"))
    assert cached.isSupported is False
    with pytest.raises(TApplicationException) as refused:
        client.clear_file_metadata(ClearFileMetadataRequest(fileIds=[1]))
    assert refused.value.type == TApplicationException.INTERNAL_ERROR
    assert "clear_file_metadata" in refused.value.message
    client.flushCache()
    assert client.get_database(db).name == db


# --- translate_table_dryrun -----------------------------------------------------------------

def dry_run(client, server, table, capabilities=None):
    request = CreateTableRequest(table=table, processorCapabilities=capabilities,
                                 processorIdentifier="hivestore-tests")
    return call_or_skip_on_reference(server, client.translate_table_dryrun, request)


def test_dry_run_translates_managed_to_external(client, db, server):
    location = client.get_database(db).locationUri
    proposed = make_table(db, "Ctas", parameters={"transactional": "false", "k": "v"})
    translated = dry_run(client, server, proposed)
    assert translated.tableType == "EXTERNAL_TABLE"
    assert translated.catName == "hive"
    assert translated.parameters == {
        "k": "v", "EXTERNAL": "TRUE", "external.table.purge": "TRUE",
        "TRANSLATED_TO_EXTERNAL": "TRUE"}
    assert translated.sd.location.rstrip("/") == location.rstrip("/") + "/ctas"
    with raises_hms(NoSuchObjectException):
        client.get_table(db, "ctas")

    placed = make_table(db, "placed", location="file:///elsewhere/placed")
    assert dry_run(client, server, placed).sd.location == "file:///elsewhere/placed"
    external = make_table(db, "ext", table_type="EXTERNAL_TABLE")
    assert dry_run(client, server, external).sd.location.endswith("/ext")
    view = make_table(db, "v", table_type="VIRTUAL_VIEW")
    assert dry_run(client, server, view).tableType == "VIRTUAL_VIEW"
    with raises_hms(MetaException, "could not be found"):
        dry_run(client, server, make_table(unique_name("nodb"), "t"))


def test_dry_run_keeps_acid_tables_for_capable_clients(client, db, server):
    acid = make_table(db, "acid", parameters={"transactional": "true"})
    with raises_hms(MetaException, "Processor has no capabilities, cannot create an ACID table."):
        dry_run(client, server, acid)
    with raises_hms(MetaException, "does not have capabilities to create a FULL ACID table"):
        dry_run(client, server, acid, ["HIVEMANAGESTATS"])
    kept = dry_run(client, server, acid, ["HIVEFULLACIDWRITE"])
    assert kept.tableType == "MANAGED_TABLE"
    assert kept.parameters == {"transactional": "true"}
    assert kept.sd.location.endswith("/acid")
    insert_only = make_table(db, "mm", parameters={
        "transactional": "true", "transactional_properties": "insert_only"})
    with raises_hms(MetaException, "create a INSERT ACID table:[HIVEMANAGEDINSERTWRITE"):
        dry_run(client, server, insert_only, ["HIVEFULLACIDWRITE"])
    assert dry_run(client, server, insert_only,
                   ["HIVEMANAGEDINSERTWRITE"]).tableType == "MANAGED_TABLE"
    outside = make_table(db, "out", parameters={"transactional": "true"},
                         location="file:///not/the/warehouse/out")
    with raises_hms(MetaException, "A managed table's location should be located within"):
        dry_run(client, server, outside, ["HIVEFULLACIDWRITE"])


# --- Hive 2.3's Java client -----------------------------------------------------------------

@pytest.fixture(scope="module")
def spark(server, tmp_path_factory):
    scratch = tmp_path_factory.mktemp("spark_registry")
    with spark_session(server, scratch / "warehouse", scratch, "hivestore-test-registry") as session:
        yield session


def test_hive_23_java_client_types(spark, server):
    jvm = spark._jvm
    api = jvm.org.apache.hadoop.hive.metastore.api
    conf = jvm.org.apache.hadoop.hive.conf.HiveConf()
    conf.set("hive.metastore.uris", server.uri)
    java_client = jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(conf)
    name = unique_name("jtype")
    try:
        fields = jvm.java.util.ArrayList()
        fields.add(api.FieldSchema("x", "double", "across"))
        made = api.Type(name)
        made.setType1("struct")
        made.setFields(fields)
        assert java_client.createType(made) is True
        got = java_client.getType(name)
        assert (got.getName(), got.getType1(), got.getFields().get(0).getType()) == (
            name, "struct", "double")
        with pytest.raises(Exception) as taken:
            java_client.createType(made)
        assert "AlreadyExistsException" in str(taken.value)
        with pytest.raises(Exception) as not_yet:
            java_client.getTypeAll(name)
        assert "Not yet implemented" in str(not_yet.value)
        assert java_client.dropType(name) is True
        with pytest.raises(Exception) as missing:
            java_client.getType(name)
        assert "NoSuchObjectException" in str(missing.value)
    finally:
        java_client.close()
