"""Authorization enforced (`--authorization enforce`), through the pyiceberg-vendored client.

Goal: with enforcement on, a user cannot drop, alter or read what its ownership and grants do not
allow, each refusal is a MetaException naming the user, the privilege and the object, and a
refused call changes nothing (the table, its partitions and its directory stay); owners and
admins (by name, by group, by the admin role) may; a grant opens exactly what it names and a
revoke closes it again. Under NOSASL the caller is the user `set_ugi` names, as Hive takes it.
On an authenticated connection (SASL PLAIN, authentication NONE) `set_ugi` acts as another user
only under the proxy-user rules.
"""

import os

import pytest
from hive_metastore.ttypes import (
    Database,
    FieldSchema,
    HiveObjectPrivilege,
    HiveObjectRef,
    HiveObjectType,
    MetaException,
    NoSuchObjectException,
    Partition,
    PrincipalType,
    PrivilegeBag,
    PrivilegeGrantInfo,
    Role,
)

from conftest import hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import connected, make_table, open_sasl_client, storage_descriptor, unique_name

ADMIN, OWNER, OTHER, ANALYST = "root_admin", "alice", "bob", "carol"


@pytest.fixture(scope="module")
def enforced(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("authorization")
    server = start_hivestore(hivestore_binary(), workdir, [
        "--authorization", "enforce",
        "--admin-users", ADMIN,
        "--admin-groups", "ops",
        # Groups are given, so that the test does not depend on this machine's users.
        "--group-mapping-overrides", f"{OWNER}=;{OTHER}=;{ADMIN}=;{ANALYST}=ops",
    ])
    yield server
    stop_hivestore(server)


def refused(call, *arguments, user, privilege, target):
    with pytest.raises(MetaException) as caught:
        call(*arguments)
    message = caught.value.message
    assert message.startswith("Permission denied"), message
    assert f"user [{user}]" in message, message
    assert privilege in message and target in message, message
    return message


def owned_table(server, user=OWNER, partitioned=True):
    """A database and a partitioned table of `user`, with one partition."""
    database, table = unique_name("authz_db"), unique_name("t")
    with connected(server, user=user, groups=[]) as client:
        # Anyone may create a database, as in Hive; it owns what it creates.
        client.create_database(Database(name=database, description="authorization"))
        keys = [FieldSchema("ds", "string", None)] if partitioned else []
        client.create_table(make_table(database, table, partition_keys=keys))
        if partitioned:
            sd = storage_descriptor()
            client.add_partition(Partition(values=["2026-12-07"], dbName=database,
                                           tableName=table, sd=sd, parameters={}))
        location = client.get_table(database, table).sd.location
    return database, table, location


def test_an_owner_may_and_another_user_may_not_drop_alter_or_read(enforced):
    database, table, location = owned_table(enforced)
    target = f"table hive.{database}.{table}"
    with connected(enforced, user=OTHER, groups=[]) as client:
        refused(client.drop_table, database, table, True,
                user=OTHER, privilege="[DROP]", target=target)
        original = None
        with connected(enforced, user=OWNER, groups=[]) as owner:
            original = owner.get_table(database, table)
        changed = make_table(database, table, partition_keys=original.partitionKeys)
        changed.parameters = {"stolen": "yes"}
        refused(client.alter_table, database, table, changed,
                user=OTHER, privilege="[ALTER]", target=target)
        refused(client.get_table, database, table,
                user=OTHER, privilege="[SELECT]", target=target)
        refused(client.get_partitions, database, table, -1,
                user=OTHER, privilege="[SELECT]", target=target)
        refused(client.get_partition_names, database, table, -1,
                user=OTHER, privilege="[SELECT]", target=target)
        refused(client.drop_partition, database, table, ["2026-12-07"], True,
                user=OTHER, privilege="[DELETE]", target=target)
        refused(client.drop_database, database, True, True,
                user=OTHER, privilege="[DROP]", target=f"database hive.{database}")
        # Listing names is not reading: Hive's metastore lists them to anyone.
        assert table in client.get_all_tables(database)
    # Nothing the refused calls asked for happened.
    with connected(enforced, user=OWNER, groups=[]) as client:
        kept = client.get_table(database, table)
        assert "stolen" not in (kept.parameters or {})
        assert client.get_partition_names(database, table, -1) == ["ds=2026-12-07"]
        assert os.path.isdir(location.removeprefix("file:"))
        client.drop_table(database, table, True)
        client.drop_database(database, True, True)
    assert not os.path.exists(location.removeprefix("file:"))


def test_admins_by_name_and_by_group_may_do_anything(enforced):
    database, table, _ = owned_table(enforced)
    with connected(enforced, user=ANALYST, groups=[]) as client:
        assert client.get_table(database, table).owner == OWNER
    with connected(enforced, user=ADMIN, groups=[]) as client:
        client.drop_table(database, table, True)
        client.drop_database(database, True, True)
        with pytest.raises(NoSuchObjectException):
            client.get_database(database)


def test_creating_in_a_database_needs_its_ownership_and_its_tables_are_their_owners(enforced):
    database, table, _ = owned_table(enforced)
    other_table = unique_name("t")
    with connected(enforced, user=OTHER, groups=[]) as client:
        refused(client.create_table, make_table(database, other_table),
                user=OTHER, privilege="[CREATE]", target=f"database hive.{database}")
    with connected(enforced, user=OWNER, groups=[]) as client:
        client.create_table(make_table(database, other_table, owner=OTHER))
        # Owning the database is not owning the tables inside (Hive's default database is
        # owned by the role every user holds).
        refused(client.drop_table, database, other_table, True,
                user=OWNER, privilege="[DROP]", target=f"table hive.{database}.{other_table}")
    with connected(enforced, user=OTHER, groups=[]) as client:
        client.drop_table(database, other_table, True)
    with connected(enforced, user=OWNER, groups=[]) as client:
        client.drop_table(database, table, True)
        client.drop_database(database, True, True)


def test_anyone_may_create_tables_in_default_and_only_owners_drop_them(enforced):
    table = unique_name("t")
    with connected(enforced, user=OWNER, groups=[]) as client:
        client.create_table(make_table("default", table))
    with connected(enforced, user=OTHER, groups=[]) as client:
        refused(client.drop_table, "default", table, True,
                user=OTHER, privilege="[DROP]", target=f"table hive.default.{table}")
    with connected(enforced, user=OWNER, groups=[]) as client:
        client.drop_table("default", table, True)


def test_a_connection_without_a_user_may_only_do_what_anyone_may(enforced):
    database, table, _ = owned_table(enforced)
    with connected(enforced, set_ugi=False) as client:
        assert database in client.get_all_databases()
        with pytest.raises(MetaException, match="named no user"):
            client.get_table(database, table)
    with connected(enforced, user=OWNER, groups=[]) as client:
        client.drop_database(database, True, True)


def test_a_proxy_user_acts_as_another_user_and_others_may_not(tmp_path):
    server = start_hivestore(hivestore_binary(), tmp_path, [
        "--authentication", "NONE",
        "--proxy-user-users", "gateway=alice",
        "--proxy-user-hosts", "gateway=127.0.0.1",
        "--group-mapping-overrides", "alice=;bob=;gateway=",
    ])
    try:
        database = unique_name("proxied")
        client, trans = open_sasl_client(server, "PLAIN", username="gateway", password="x")
        try:
            client.set_ugi("alice", [])
            client.create_database(Database(name=database, description="as alice"))
            assert client.get_database(database).ownerName == "alice"
            with pytest.raises(MetaException, match="User: gateway is not allowed to impersonate bob"):
                client.set_ugi("bob", [])
            # Naming itself ends the acting.
            client.set_ugi("gateway", [])
            other = unique_name("own")
            client.create_database(Database(name=other, description="as gateway"))
            assert client.get_database(other).ownerName == "gateway"
        finally:
            trans.close()
        client, trans = open_sasl_client(server, "PLAIN", username="bob", password="x")
        try:
            with pytest.raises(MetaException, match="User: bob is not allowed to impersonate alice"):
                client.set_ugi("alice", [])
        finally:
            trans.close()
        assert "set_ugi refused" in server.log_tail(100000)
    finally:
        stop_hivestore(server)


def table_grant(database, table, grantee, privilege, grantor, kind=PrincipalType.USER,
                grant_option=False):
    return PrivilegeBag(privileges=[HiveObjectPrivilege(
        hiveObject=HiveObjectRef(objectType=HiveObjectType.TABLE, dbName=database,
                                 objectName=table, catName="hive"),
        principalName=grantee, principalType=kind,
        grantInfo=PrivilegeGrantInfo(privilege=privilege, createTime=0, grantor=grantor,
                                     grantorType=PrincipalType.USER, grantOption=grant_option))])


def test_a_grant_opens_what_it_names_and_a_revoke_closes_it(enforced):
    database, table, _ = owned_table(enforced)
    target = f"table hive.{database}.{table}"
    with connected(enforced, user=OTHER, groups=[]) as client:
        refused(client.get_table, database, table, user=OTHER, privilege="[SELECT]", target=target)
        # Without the grant option, a user may not grant what it does not hold.
        refused(client.grant_privileges, table_grant(database, table, ANALYST, "SELECT", OTHER),
                user=OTHER, privilege="[SELECT]", target=target)
    with connected(enforced, user=OWNER, groups=[]) as client:
        assert client.grant_privileges(table_grant(database, table, OTHER, "SELECT", OWNER))
    with connected(enforced, user=OTHER, groups=[]) as client:
        assert client.get_table(database, table).tableName == table
        assert client.get_partition_names(database, table, -1) == ["ds=2026-12-07"]
        # SELECT is not DROP, nor ALTER.
        refused(client.drop_table, database, table, True,
                user=OTHER, privilege="[DROP]", target=target)
    with connected(enforced, user=OWNER, groups=[]) as client:
        assert client.revoke_privileges(table_grant(database, table, OTHER, "SELECT", OWNER))
    with connected(enforced, user=OTHER, groups=[]) as client:
        refused(client.get_table, database, table, user=OTHER, privilege="[SELECT]", target=target)
    with connected(enforced, user=OWNER, groups=[]) as client:
        client.drop_database(database, True, True)


def test_a_roles_database_grant_reaches_its_tables_and_alter_cannot_change_the_owner(enforced):
    database, table, _ = owned_table(enforced)
    role = unique_name("editors")
    with connected(enforced, user=OTHER, groups=[]) as client:
        refused(client.create_role, Role(roleName=role, createTime=0, ownerName=OTHER),
                user=OTHER, privilege="admin", target=f"role {role}")
    with connected(enforced, user=ADMIN, groups=[]) as client:
        assert client.create_role(Role(roleName=role, createTime=0, ownerName=ADMIN))
        assert client.grant_role(role, OTHER, PrincipalType.USER, ADMIN, PrincipalType.USER,
                                 False)
        bag = PrivilegeBag(privileges=[HiveObjectPrivilege(
            hiveObject=HiveObjectRef(objectType=HiveObjectType.DATABASE, dbName=database,
                                     catName="hive"),
            principalName=role, principalType=PrincipalType.ROLE,
            grantInfo=PrivilegeGrantInfo(privilege="ALL", createTime=0, grantor=ADMIN,
                                         grantorType=PrincipalType.USER, grantOption=False))])
        assert client.grant_privileges(bag)
    with connected(enforced, user=OTHER, groups=[]) as client:
        kept = client.get_table(database, table)
        kept.parameters = dict(kept.parameters or {}, edited="yes")
        client.alter_table(database, table, kept)
        kept.owner = OTHER
        refused(client.alter_table, database, table, kept,
                user=OTHER, privilege="does not own", target=f"table hive.{database}.{table}")
        assert client.get_table(database, table).owner == OWNER
    with connected(enforced, user=ADMIN, groups=[]) as client:
        assert client.drop_role(role)
    with connected(enforced, user=OTHER, groups=[]) as client:
        refused(client.get_table, database, table, user=OTHER, privilege="[SELECT]",
                target=f"table hive.{database}.{table}")
    with connected(enforced, user=OWNER, groups=[]) as client:
        client.drop_database(database, True, True)
