"""Catalogs and databases through real HMS clients.

Goal: the catalog calls (create/alter/get/list/drop_catalog) and the database calls
(create/get/alter/drop_database and their Hive 4 `_req` forms, get_databases(pattern),
get_all_databases, the `@cat#db` encoding of the old calls) behave as Apache's HMS: names
trimmed and lowercased, Hive's name validation and messages, the default database at the
warehouse root, `<warehouse>/<db>.db` default locations whose directories are made on create and
removed on drop with deleteData, and the exception types (with the message texts clients match).

Method: every expectation below was first observed against the Java reference HMS (Hive 2.3.10,
`/work/shared/tools/reference-hms/start.sh`), or, where Hive 2.3 lacks the call or behaves
differently from Hive 4, taken from Hive 4's HMSHandler/ObjectStore; those places say so and
the test branches on `hive_generation`. Calls Hive 2.3 lacks (catalogs, the `_req` forms) skip
against it. The pyiceberg-vendored generated client does most of the work; the same essential
flows then go through `hmsclient` and `pymetastore`'s own APIs. Directories are checked on the
local filesystem, which both servers use here.
"""

import os

import pytest
from hive_metastore.ttypes import (
    AlreadyExistsException,
    Catalog,
    CreateCatalogRequest,
    AlterCatalogRequest,
    CreateDatabaseRequest,
    Database,
    DropCatalogRequest,
    DropDatabaseRequest,
    GetCatalogRequest,
    GetDatabaseRequest,
    InvalidObjectException,
    InvalidOperationException,
    MetaException,
    NoSuchObjectException,
    PrincipalType,
)

from hms_helpers import (
    TEST_USER,
    alter_database_req,
    call_or_skip_on_reference,
    connected,
    create_database_req,
    hide_generated_client_frames,
    local_path,
    make_table,
    raises_hms,
    unique_name,
    warehouse_root,
)


hide_generated_client_frames()


@pytest.fixture(scope="module")
def warehouse(server):
    with connected(server) as connection:
        return warehouse_root(connection)


def skip_unless_hive4(hive, why):
    if hive < 4:
        pytest.skip(f"Hive 2.3 differs: {why}")


# ---------------------------------------------------------------- the default database

def test_default_database_is_at_the_warehouse_root_owned_by_role_public(server, client):
    """Observed on Hive 2.3, same code in Hive 4 (HMSHandler.createDefaultDB_core)."""
    default = client.get_database("default")
    assert default.name == "default"
    assert default.description == "Default Hive database"
    assert default.ownerName == "public"
    assert default.ownerType == PrincipalType.ROLE
    if not server.external:
        # The fixture started hivestore with --warehouse <workdir>/warehouseN.
        log_dir = os.path.dirname(server.log_path)
        attempt = os.path.basename(server.log_path)[len("hivestore"):-len(".log")]
        assert local_path(default.locationUri) == os.path.join(log_dir, f"warehouse{attempt}")
    assert "default" in client.get_all_databases()


def test_default_database_cannot_be_dropped(client):
    # Hive 2.3: "Can not drop default database"; Hive 4 appends " in catalog hive".
    with raises_hms(MetaException, "Can not drop default database"):
        client.drop_database("default", True, True)
    assert client.get_database("default").name == "default"


# ---------------------------------------------------------------- create / get

def test_create_database_keeps_its_fields_and_makes_its_directory(client, warehouse):
    name = unique_name("db_fields")
    client.create_database(Database(name=name, description="a comment",
                                    parameters={"k1": "v1", "Key2": "Value2"},
                                    ownerName="bob", ownerType=PrincipalType.ROLE))
    db = client.get_database(name)
    assert db.name == name
    assert db.description == "a comment"
    assert db.parameters == {"k1": "v1", "Key2": "Value2"}
    assert (db.ownerName, db.ownerType) == ("bob", PrincipalType.ROLE)
    expected = os.path.join(warehouse, f"{name}.db")
    assert local_path(db.locationUri) == expected
    assert os.path.isdir(expected), f"{expected} was not created"


def test_database_names_are_lowercased_on_create_and_lookups_are_trimmed_and_case_blind(
        client, warehouse):
    name = unique_name("db_case")
    client.create_database(Database(name=name.upper()))
    db = client.get_database(name)
    assert db.name == name
    assert local_path(db.locationUri) == os.path.join(warehouse, f"{name}.db")
    for spelling in (name.upper(), f"  {name} ", f" {name.upper()}\t"):
        assert client.get_database(spelling).name == name, spelling
    assert name in client.get_all_databases()
    assert name.upper() not in client.get_all_databases()


def test_create_database_owner_defaults_to_the_set_ugi_user(client, hive):
    """Hive 4 create_database_core sets ownerName to the caller's UGI (the set_ugi user); Hive 2.3
    left it null (observed). ownerType is USER when unset (ObjectStore, both versions)."""
    name = unique_name("db_owner")
    client.create_database(Database(name=name))
    db = client.get_database(name)
    assert db.ownerType == PrincipalType.USER
    if hive >= 4:
        assert db.ownerName == TEST_USER
    else:
        assert db.ownerName is None


def test_create_database_at_a_given_location_keeps_it_and_makes_it(client, tmp_path):
    name = unique_name("db_loc")
    location = tmp_path / "custom" / "place"
    client.create_database(Database(name=name, locationUri=str(location)))
    assert local_path(client.get_database(name).locationUri) == str(location)
    assert location.is_dir()


def test_create_existing_database_is_already_exists(client):
    name = unique_name("db_dup")
    client.create_database(Database(name=name))
    with raises_hms(AlreadyExistsException, f"Database {name} already exists"):
        client.create_database(Database(name=name))
    with raises_hms(AlreadyExistsException, "already exists"):
        client.create_database(Database(name=name.upper(), description="other"))
    assert client.get_database(name).description in (None, "")


def test_an_existing_database_is_found_before_the_name_is_validated(client):
    """HMSHandler.create_database calls get_database_core (which trims and lowercases) before
    create_database_core validates the name as sent (observed on Hive 2.3)."""
    name = unique_name("db_dup_order")
    client.create_database(Database(name=name))
    with raises_hms(AlreadyExistsException, f"Database  {name.upper()} already exists"):
        client.create_database(Database(name=f" {name.upper()}"))


def test_already_exists_names_the_database_as_sent(client):
    """HMSHandler.create_database: "Database " + db.getName() + " already exists" (observed on
    Hive 2.3: 'Database EX1_DB already exists')."""
    name = unique_name("db_dup_sent")
    client.create_database(Database(name=name))
    with raises_hms(AlreadyExistsException, f"Database {name.upper()} already exists"):
        client.create_database(Database(name=name.upper()))


@pytest.mark.parametrize("bad_name", [
    "bad-name",
    " spaced ",
    "", "semi;colon", "dot.ted"], ids=["hyphen", "spaces", "empty", "semicolon", "dot"])
def test_invalid_database_names_are_invalid_object(client, bad_name):
    """validateName runs on the name as sent, before trimming (Hive 2.3 observed; Hive 4 the same)."""
    with raises_hms(InvalidObjectException, f"{bad_name} is not a valid database name"):
        client.create_database(Database(name=bad_name))
    assert bad_name.strip().lower() not in client.get_all_databases()


def test_get_missing_database_is_no_such_object_naming_it(client):
    name = unique_name("db_missing")
    with raises_hms(NoSuchObjectException, name):
        client.get_database(name)


# ---------------------------------------------------------------- patterns

def test_get_databases_pattern_language(client):
    """`|` separates alternatives, `*` is `.*`, the rest is a case-insensitive Java regex matched
    against the whole name; results sorted. (Observed on Hive 2.3; Hive 4 ObjectStore.getDatabases
    is the same pattern code.)"""
    prefix = unique_name("pat")
    names = [f"{prefix}_alpha", f"{prefix}_beta", f"{prefix}_gamma", f"{prefix}_alpha2"]
    for name in reversed(names):
        client.create_database(Database(name=name))
    assert client.get_databases(f"{prefix}*") == sorted(names)
    assert client.get_databases(f"{prefix.upper()}_A*") == [f"{prefix}_alpha", f"{prefix}_alpha2"]
    assert client.get_databases(f"{prefix}_beta|{prefix}_gamma") == [f"{prefix}_beta",
                                                                     f"{prefix}_gamma"]
    # `.` is a regex wildcard, and the match is of the whole name, not a prefix.
    assert client.get_databases(f"{prefix}_alph.") == [f"{prefix}_alpha"]
    assert client.get_databases(f"{prefix}_alp") == []
    assert client.get_databases(f"{prefix}_gam*|nothing_like_this") == [f"{prefix}_gamma"]
    everything = client.get_databases("*")
    assert set(names) | {"default"} <= set(everything)
    assert everything == sorted(everything)
    assert client.get_all_databases() == everything


def test_get_databases_with_an_empty_pattern_matches_nothing(client):
    """Observed on Hive 2.3; Hive 4's ObjectStore.getDatabases treats only null and "*" as
    "everything", and "" matches no name."""
    client.create_database(Database(name=unique_name("db_empty_pattern")))
    assert client.get_databases("") == []


# ---------------------------------------------------------------- alter

def test_alter_database_replaces_parameters_and_owner(client, hive, tmp_path):
    name = unique_name("db_alter")
    client.create_database(Database(name=name, description="before", parameters={"a": "1"}))
    before = client.get_database(name)
    changed = Database(name=name, description="after", parameters={"b": "2"},
                       ownerName="carol", ownerType=PrincipalType.GROUP,
                       locationUri=str(tmp_path / "moved"))
    client.alter_database(name.upper(), changed)
    after = client.get_database(name)
    assert after.parameters == {"b": "2"}
    assert (after.ownerName, after.ownerType) == ("carol", PrincipalType.GROUP)
    if hive >= 4:
        # Hive 4 ObjectStore.alterDatabase also takes a non-blank description and location;
        # Hive 2.3 kept both (observed).
        assert after.description == "after"
        assert local_path(after.locationUri) == str(tmp_path / "moved")
    else:
        assert after.description == before.description
        assert after.locationUri == before.locationUri


def test_alter_database_with_blank_description_keeps_the_old_one(client, hive):
    skip_unless_hive4(hive, "alter_database never changes the description in 2.3")
    name = unique_name("db_alter_blank")
    client.create_database(Database(name=name, description="kept", parameters={}))
    location = client.get_database(name).locationUri
    client.alter_database(name, Database(name=name, description="", parameters={"x": "y"}))
    after = client.get_database(name)
    assert after.description == "kept"
    assert after.locationUri == location
    assert after.parameters == {"x": "y"}


def test_alter_missing_database_is_no_such_object(client, hive):
    """Hive 4: get_database_core throws NoSuchObjectException. Hive 2.3 silently did nothing
    (observed), so this is checked on Hive 4 only."""
    skip_unless_hive4(hive, "alter_database of a missing database returns normally")
    name = unique_name("db_alter_missing")
    with raises_hms(NoSuchObjectException, name):
        client.alter_database(name, Database(name=name, parameters={}))
    with raises_hms(NoSuchObjectException, name):
        client.get_database(name)


# ---------------------------------------------------------------- drop

def test_drop_database_with_delete_data_removes_it_and_its_directory(client, warehouse):
    name = unique_name("db_drop")
    client.create_database(Database(name=name))
    path = os.path.join(warehouse, f"{name}.db")
    assert os.path.isdir(path)
    client.drop_database(name.upper(), True, False)
    with raises_hms(NoSuchObjectException, name):
        client.get_database(name)
    assert name not in client.get_all_databases()
    assert not os.path.exists(path), f"{path} survived drop_database(deleteData=true)"


def test_drop_database_without_delete_data_keeps_the_directory(client, warehouse):
    name = unique_name("db_drop_keep")
    client.create_database(Database(name=name))
    client.drop_database(name, False, False)
    assert name not in client.get_all_databases()
    assert os.path.isdir(os.path.join(warehouse, f"{name}.db"))


def test_drop_non_empty_database_without_cascade_is_invalid_operation(client, warehouse):
    """The message is what Iceberg, Spark and Gravitino map to "namespace not empty"."""
    name = unique_name("db_nonempty")
    client.create_database(Database(name=name))
    client.create_table(make_table(name, "t1"))
    with raises_hms(InvalidOperationException,
                    f"Database {name} is not empty. One or more tables exist."):
        client.drop_database(name.upper(), True, False)
    assert client.get_database(name).name == name
    assert client.get_all_tables(name) == ["t1"]
    client.drop_database(name, True, True)
    assert name not in client.get_all_databases()
    assert not os.path.exists(os.path.join(warehouse, f"{name}.db", "t1"))
    assert not os.path.exists(os.path.join(warehouse, f"{name}.db"))
    # The cascade dropped the table's metadata too: a new database of the same name is empty.
    client.create_database(Database(name=name))
    assert client.get_all_tables(name) == []


def test_drop_database_cascade_without_delete_data_keeps_directories(client, warehouse):
    name = unique_name("db_cascade_keep")
    client.create_database(Database(name=name))
    client.create_table(make_table(name, "t1"))
    client.drop_database(name, False, True)
    assert name not in client.get_all_databases()
    assert os.path.isdir(os.path.join(warehouse, f"{name}.db", "t1"))


def test_drop_missing_database_is_no_such_object(client, hive):
    """Hive 4: NoSuchObjectException. Hive 2.3 answered MetaException with a
    NullPointerException text (observed), so this is checked on Hive 4 only."""
    skip_unless_hive4(hive, "drop_database of a missing database is a MetaException (NPE)")
    name = unique_name("db_drop_missing")
    with raises_hms(NoSuchObjectException, name):
        client.drop_database(name, True, False)


# ---------------------------------------------------------------- @cat#db and catalogs (Hive 3+)

def test_old_calls_accept_the_catalog_encoded_database_name(server, client, hive):
    """Hive 3/4 Java clients send `@<cat>#<db>` in every plain-argument call
    (MetaStoreUtils.parseDbName); Hive 2.3 took it for a literal (observed: not found)."""
    skip_unless_hive4(hive, "no catalogs; '@hive#db' is looked up literally")
    name = unique_name("db_encoded")
    client.create_database(Database(name=name))
    assert client.get_database(f"@hive#{name}").name == name
    assert client.get_database(f"@HIVE#{name.upper()}").name == name
    assert name in client.get_databases("@hive#*")
    assert client.get_databases(f"@hive#{name}") == [name]
    # Table.dbName is a plain name (Table has its own catName); the encoding is for the
    # plain-argument calls.
    client.create_table(make_table(name, "t1"))
    assert client.get_all_tables(f"@hive#{name}") == ["t1"]
    assert client.get_table(f"@hive#{name}", "T1").tableName == "t1"
    with raises_hms(InvalidOperationException, "is not empty"):
        client.drop_database(f"@hive#{name}", True, False)
    client.drop_database(f"@hive#{name}", True, True)
    with raises_hms(NoSuchObjectException, name):
        client.get_database(name)


def test_default_catalog_hive_is_listed_at_the_warehouse_root(server, client, warehouse):
    names = call_or_skip_on_reference(server, client.get_catalogs).names
    assert "hive" in names
    hive_catalog = client.get_catalog(GetCatalogRequest(name="hive")).catalog
    assert hive_catalog.name == "hive"
    assert local_path(hive_catalog.locationUri) == warehouse
    assert client.get_database("default").catalogName == "hive"


def test_catalog_lifecycle(server, client, tmp_path):
    """create_catalog makes its directory and a `default` database at the catalog's location;
    databases live per catalog; drop_catalog refuses while a non-default database exists
    (HMSHandler.dropCatalogCore messages) and then removes catalog and default database."""
    call_or_skip_on_reference(server, client.get_catalogs)
    catalog = unique_name("cat")
    location = tmp_path / "catalog_root"
    client.create_catalog(CreateCatalogRequest(Catalog(name=catalog, description="test catalog",
                                                       locationUri=str(location))))
    assert location.is_dir()
    got = client.get_catalog(GetCatalogRequest(name=catalog.upper())).catalog
    assert (got.name, got.description) == (catalog, "test catalog")
    assert local_path(got.locationUri) == str(location)
    assert catalog in client.get_catalogs().names

    # A database in the catalog: default location <catalog>/<db>.db; invisible in catalog hive.
    db = unique_name("catdb")
    client.create_database(Database(name=db, catalogName=catalog, parameters={}))
    got_db = client.get_database(f"@{catalog}#{db}")
    assert (got_db.name, got_db.catalogName) == (db, catalog)
    assert local_path(got_db.locationUri) == str(location / f"{db}.db")
    assert (location / f"{db}.db").is_dir()
    assert client.get_database_req(GetDatabaseRequest(name=db, catalogName=catalog)).name == db
    with raises_hms(NoSuchObjectException, db):
        client.get_database(db)
    assert db not in client.get_all_databases()
    assert db in client.get_databases(f"@{catalog}#*")

    with raises_hms(MetaException, "Can not drop hive catalog"):
        client.drop_catalog(DropCatalogRequest(name="hive"))
    with raises_hms(InvalidOperationException, catalog):
        client.drop_catalog(DropCatalogRequest(name=catalog))
    client.drop_database(f"@{catalog}#{db}", True, False)
    client.drop_catalog(DropCatalogRequest(name=catalog))
    assert catalog not in client.get_catalogs().names
    with raises_hms(NoSuchObjectException, catalog):
        client.get_catalog(GetCatalogRequest(name=catalog))


def test_create_catalog_makes_its_default_database(server, client, tmp_path):
    """HMSHandler.create_catalog creates database `default` ("Default database for catalog
    <cat>") at the catalog's location; drop_catalog drops it with the catalog."""
    call_or_skip_on_reference(server, client.get_catalogs)
    catalog = unique_name("cat_default")
    location = tmp_path / "root"
    client.create_catalog(CreateCatalogRequest(Catalog(name=catalog, locationUri=str(location))))
    default = client.get_database_req(GetDatabaseRequest(name="default", catalogName=catalog))
    assert (default.name, default.catalogName) == ("default", catalog)
    assert local_path(default.locationUri) == str(location)
    assert client.get_databases(f"@{catalog}#*") == ["default"]
    client.drop_catalog(DropCatalogRequest(name=catalog))
    with raises_hms(NoSuchObjectException):
        client.get_database_req(GetDatabaseRequest(name="default", catalogName=catalog))


def test_create_catalog_errors(server, client, tmp_path):
    call_or_skip_on_reference(server, client.get_catalogs)
    catalog = unique_name("cat_err")
    client.create_catalog(CreateCatalogRequest(Catalog(name=catalog,
                                                       locationUri=str(tmp_path / "c"))))
    with raises_hms(AlreadyExistsException, f"Catalog {catalog} already exists"):
        client.create_catalog(CreateCatalogRequest(Catalog(name=catalog,
                                                           locationUri=str(tmp_path / "d"))))
    with raises_hms(AlreadyExistsException, "Catalog hive already exists"):
        client.create_catalog(CreateCatalogRequest(Catalog(name="hive",
                                                           locationUri=str(tmp_path / "e"))))
    with raises_hms(InvalidObjectException, "bad-cat is not a valid catalog name"):
        client.create_catalog(CreateCatalogRequest(Catalog(name="bad-cat",
                                                           locationUri=str(tmp_path / "f"))))
    with raises_hms(InvalidObjectException):
        client.create_catalog(CreateCatalogRequest(Catalog(name=unique_name("cat_noloc"))))
    missing = unique_name("cat_missing")
    with raises_hms(NoSuchObjectException, missing):
        client.get_catalog(GetCatalogRequest(name=missing))
    with raises_hms(NoSuchObjectException, missing):
        client.drop_catalog(DropCatalogRequest(name=missing))


def test_create_database_in_a_missing_catalog_is_invalid_object(server, client):
    call_or_skip_on_reference(server, client.get_catalogs)
    missing = unique_name("cat_missing")
    with raises_hms(InvalidObjectException, f"No such catalog {missing}"):
        client.create_database(Database(name=unique_name("db"), catalogName=missing))


def test_drop_catalog_with_databases_message(server, client, tmp_path):
    call_or_skip_on_reference(server, client.get_catalogs)
    catalog = unique_name("cat_busy")
    client.create_catalog(CreateCatalogRequest(Catalog(name=catalog,
                                                       locationUri=str(tmp_path / "c"))))
    client.create_database(Database(name=unique_name("db"), catalogName=catalog, parameters={}))
    with raises_hms(InvalidOperationException,
                    f"There are non-default databases in the catalog {catalog} so it cannot be "
                    "dropped."):
        client.drop_catalog(DropCatalogRequest(name=catalog))


def test_create_catalog_without_location_message(server, client):
    call_or_skip_on_reference(server, client.get_catalogs)
    with raises_hms(InvalidObjectException, "You must specify a path for the catalog"):
        client.create_catalog(CreateCatalogRequest(Catalog(name=unique_name("cat_noloc"))))


def test_alter_catalog_changes_description_and_location(server, client, tmp_path):
    call_or_skip_on_reference(server, client.get_catalogs)
    catalog = unique_name("cat_alter")
    client.create_catalog(CreateCatalogRequest(Catalog(name=catalog, description="one",
                                                       locationUri=str(tmp_path / "a"))))
    client.alter_catalog(AlterCatalogRequest(name=catalog, newCat=Catalog(
        name=catalog, description="two", locationUri=str(tmp_path / "b"))))
    got = client.get_catalog(GetCatalogRequest(name=catalog)).catalog
    assert got.description == "two"
    assert local_path(got.locationUri) == str(tmp_path / "b")
    missing = unique_name("cat_nope")
    with raises_hms(NoSuchObjectException, missing):
        client.alter_catalog(AlterCatalogRequest(name=missing, newCat=Catalog(
            name=missing, locationUri=str(tmp_path / "x"))))
    # ObjectStore.alterCatalog refuses to change the name.
    with pytest.raises(InvalidOperationException):
        client.alter_catalog(AlterCatalogRequest(name=catalog, newCat=Catalog(
            name=unique_name("cat_other"), locationUri=str(tmp_path / "b"))))
    assert client.get_catalog(GetCatalogRequest(name=catalog)).catalog.description == "two"


# ---------------------------------------------------------------- Hive 4 `_req` forms

def test_get_database_req(server, client):
    name = unique_name("db_getreq")
    client.create_database(Database(name=name, description="via req"))
    got = call_or_skip_on_reference(server, client.get_database_req,
                                    GetDatabaseRequest(name=name.upper()))
    assert (got.name, got.description, got.catalogName) == (name, "via req", "hive")
    got = client.get_database_req(GetDatabaseRequest(name=name, catalogName="hive"))
    assert got.name == name
    with raises_hms(NoSuchObjectException, name + "_nope"):
        client.get_database_req(GetDatabaseRequest(name=name + "_nope"))


def test_create_database_req(server, client, warehouse):
    name = unique_name("db_createreq")
    call_or_skip_on_reference(server, create_database_req, client, CreateDatabaseRequest(
        databaseName=name, description="made by req", parameters={"p": "q"},
        ownerName="dora", ownerType=PrincipalType.USER))
    db = client.get_database(name)
    assert (db.description, db.parameters, db.ownerName) == ("made by req", {"p": "q"}, "dora")
    assert local_path(db.locationUri) == os.path.join(warehouse, f"{name}.db")
    assert os.path.isdir(os.path.join(warehouse, f"{name}.db"))
    with raises_hms(AlreadyExistsException, f"Database {name} already exists"):
        create_database_req(client, CreateDatabaseRequest(databaseName=name))
    with raises_hms(InvalidObjectException, "no-good is not a valid database name"):
        create_database_req(client, CreateDatabaseRequest(databaseName="no-good"))


def test_alter_database_req(server, client):
    name = unique_name("db_alterreq")
    client.create_database(Database(name=name, description="d", parameters={"a": "b"}))
    call_or_skip_on_reference(server, alter_database_req, client, name,
                              Database(name=name, description="d2", parameters={"c": "d"}))
    db = client.get_database(name)
    assert (db.description, db.parameters) == ("d2", {"c": "d"})
    missing = unique_name("db_alterreq_missing")
    with raises_hms(NoSuchObjectException, missing):
        alter_database_req(client, missing, Database(name=missing, parameters={}))


def test_drop_database_req(server, client, warehouse):
    name = unique_name("db_dropreq")
    client.create_database(Database(name=name))
    client.create_table(make_table(name, "t1"))
    request = DropDatabaseRequest(name=name, catalogName="hive", ignoreUnknownDb=False,
                                  deleteData=True, cascade=False)
    with raises_hms(InvalidOperationException, f"Database {name} is not empty"):
        call_or_skip_on_reference(server, client.drop_database_req, request)
    request.cascade = True
    client.drop_database_req(request)
    assert name not in client.get_all_databases()
    assert not os.path.exists(os.path.join(warehouse, f"{name}.db"))
    with raises_hms(NoSuchObjectException, name):
        client.drop_database_req(request)
    request.ignoreUnknownDb = True
    client.drop_database_req(request)  # a missing database is fine when asked to ignore it


# ---------------------------------------------------------------- hmsclient 0.1.1

def test_hmsclient_database_flow(server):
    """hmsclient's own client class with its own generated types (an older Hive IDL)."""
    from hmsclient import hmsclient
    from hmsclient.genthrift.hive_metastore import ttypes as hms_types

    name = unique_name("db_hmsclient")
    with hmsclient.HMSClient(host=server.host, port=server.port) as hms:
        hms._oprot.trans._TBufferedTransport__trans.setTimeout(10_000)
        hms.create_database(hms_types.Database(name=name, description="from hmsclient",
                                               parameters={"via": "hmsclient"}))
        db = hms.get_database(name)
        assert (db.name, db.description, db.parameters) == (
            name, "from hmsclient", {"via": "hmsclient"})
        assert name in hms.get_all_databases()
        assert hms.get_databases(f"{name[:-3]}*") == [name]
        with pytest.raises(hms_types.AlreadyExistsException):
            hms.create_database(hms_types.Database(name=name))
        hms.drop_database(name, True, False)
        with pytest.raises(hms_types.NoSuchObjectException):
            hms.get_database(name)


# ---------------------------------------------------------------- pymetastore 0.4.2

def test_pymetastore_database_flow(server, warehouse):
    """pymetastore's HMS API (list_databases, get_database -> HDatabase); creation goes through
    the generated client it wraps, as pymetastore has no create call of its own."""
    from pymetastore.hive_metastore import ttypes as pm_types
    from pymetastore.metastore import HMS, HPrincipalType

    name = unique_name("db_pymetastore")
    with HMS.create(host=server.host, port=server.port) as hms:
        hms.client._iprot.trans._TBufferedTransport__trans.setTimeout(10_000)
        hms.client.create_database(pm_types.Database(
            name=name, description="from pymetastore", parameters={"a": "b"},
            ownerName="erin", ownerType=pm_types.PrincipalType.USER))
        assert name in hms.list_databases()
        db = hms.get_database(name)
        assert (db.name, db.comment, db.parameters, db.owner_name) == (
            name, "from pymetastore", {"a": "b"}, "erin")
        assert db.owner_type == HPrincipalType.USER
        assert local_path(db.location) == os.path.join(warehouse, f"{name}.db")
        assert hms.list_tables(name) == []
        with pytest.raises(pm_types.NoSuchObjectException):
            hms.get_database(name + "_nope")
        hms.client.drop_database(name, True, False)
        assert name not in hms.list_databases()
