"""Roles and privileges through the pyiceberg-vendored client, in Trino's call pattern.

Goal: Trino's `hive.security=sql-standard` statements work against the server as against
Hive's metastore: SHOW ROLES, CREATE ROLE, GRANT role TO user, SHOW ROLE GRANTS, GRANT SELECT
ON t TO user/role, REVOKE, SHOW GRANTS ON t, each answered with what Hive answers, and the
errors and cascades Hive has (duplicate grants, the default roles, drops).

Method: each test makes the calls Trino's ThriftHiveMetastore makes for the statement (the
grantor is the session user, privileges lower-case, authorizer `SQL`, an object's grants listed
with a null principal) and checks every answer. Against the Java reference HMS 2.3 (HMS_URI)
the Hive 4 message checks are skipped: Hive 2.3 answers those refusals with internal errors.
"""

import pytest
from hive_metastore.ttypes import (FieldSchema, GetPrincipalsInRoleRequest,
                                   GetRoleGrantsForPrincipalRequest, GrantRevokePrivilegeRequest,
                                   GrantRevokeRoleRequest, GrantRevokeType, HiveObjectPrivilege,
                                   HiveObjectRef, HiveObjectType, MetaException, Partition,
                                   PrincipalType, PrivilegeBag, PrivilegeGrantInfo, Role)

from hms_helpers import make_table, raises_hms, storage_descriptor, unique_name

DB_PREFIX = "grants"
TRINO_USER = "trino_user"


def table_ref(db, table):
    return HiveObjectRef(HiveObjectType.TABLE, db, table, None, None)


def trino_bag(db, table, grantee, grantee_type, privilege, grant_option=False):
    """Trino's buildPrivilegeBag: one table privilege, lower-case, create time 0, authorizer SQL."""
    info = PrivilegeGrantInfo(privilege, 0, TRINO_USER, PrincipalType.USER, grant_option)
    return PrivilegeBag([HiveObjectPrivilege(table_ref(db, table), grantee, grantee_type, info,
                                             "SQL")])


def show_grants(client, db, table):
    """SHOW GRANTS ON t: Trino lists the table's grants with a null principal."""
    listed = client.list_privileges(None, None, table_ref(db, table))
    return sorted((grant.principalName, grant.principalType, grant.grantInfo.privilege,
                   grant.grantInfo.grantOption) for grant in listed)


@pytest.fixture()
def table(client, db):
    name = unique_name("t")
    client.create_table(make_table(db, name, partition_keys=[FieldSchema("ds", "string", None)]))
    return name


def test_show_roles_lists_the_default_roles(client):
    names = client.get_role_names()
    assert {"admin", "public"} <= set(names)


def test_create_role_grant_it_and_show_role_grants(client, hive):
    role, parent, user = unique_name("r"), unique_name("p"), unique_name("u")
    assert client.create_role(Role(role, 0, TRINO_USER)) is True
    assert client.create_role(Role(parent, 0, TRINO_USER)) is True
    assert {role, parent} <= set(client.get_role_names())
    grant = GrantRevokeRoleRequest(GrantRevokeType.GRANT, role, user, PrincipalType.USER,
                                   TRINO_USER, PrincipalType.USER, False)
    assert client.grant_revoke_role(grant).success is True
    nested = GrantRevokeRoleRequest(GrantRevokeType.GRANT, parent, role, PrincipalType.ROLE,
                                    TRINO_USER, PrincipalType.USER, True)
    assert client.grant_revoke_role(nested).success is True
    # SHOW ROLE GRANTS: the user's own, then public, made up at time 0 by nobody.
    grants = client.get_role_grants_for_principal(
        GetRoleGrantsForPrincipalRequest(user, PrincipalType.USER)).principalGrants
    assert [(g.roleName, g.grantOption, g.grantorName) for g in grants] == [
        (role, False, TRINO_USER), ("public", False, None)]
    # Trino walks roles granted to roles with the ROLE principal type.
    upward = client.get_role_grants_for_principal(
        GetRoleGrantsForPrincipalRequest(role, PrincipalType.ROLE)).principalGrants
    assert [(g.roleName, g.grantOption) for g in upward] == [(parent, True)]
    members = client.get_principals_in_role(GetPrincipalsInRoleRequest(role)).principalGrants
    assert [(m.principalName, m.principalType) for m in members] == [(user, PrincipalType.USER)]
    listed = client.list_roles(user, PrincipalType.USER)
    assert [(r.roleName, r.ownerName) for r in listed] == [(role, TRINO_USER),
                                                          ("public", "public")]
    # A cycle is refused with Hive's message.
    cycle = GrantRevokeRoleRequest(GrantRevokeType.GRANT, role, parent, PrincipalType.ROLE,
                                   TRINO_USER, PrincipalType.USER, False)
    with raises_hms(MetaException, "(no cycles allowed)"):
        client.grant_revoke_role(cycle)
    if hive >= 4:
        with raises_hms(MetaException, f"already has the role {role}"):
            client.grant_revoke_role(grant)
        with raises_hms(MetaException, f"Role {role} already exists."):
            client.create_role(Role(role, 0, TRINO_USER))
    # REVOKE ADMIN OPTION FOR parent FROM ROLE role, then the role itself.
    revoke_option = GrantRevokeRoleRequest(GrantRevokeType.REVOKE, parent, role,
                                           PrincipalType.ROLE, None, None, True)
    assert client.grant_revoke_role(revoke_option).success is True
    upward = client.get_role_grants_for_principal(
        GetRoleGrantsForPrincipalRequest(role, PrincipalType.ROLE)).principalGrants
    assert [(g.roleName, g.grantOption) for g in upward] == [(parent, False)]
    with raises_hms(MetaException, f"does not have grant option with role {parent}"):
        client.grant_revoke_role(revoke_option)
    revoke = GrantRevokeRoleRequest(GrantRevokeType.REVOKE, role, user, PrincipalType.USER,
                                    None, None, False)
    assert client.grant_revoke_role(revoke).success is True
    assert client.get_principals_in_role(GetPrincipalsInRoleRequest(role)).principalGrants == []
    assert client.drop_role(role) is True
    assert client.drop_role(parent) is True
    assert role not in client.get_role_names()


def test_default_roles_stay(client):
    for role in ("admin", "public"):
        with raises_hms(MetaException, "public,admin roles can't be dropped."):
            client.drop_role(role)
    with raises_hms(MetaException, "No user can be added to public."):
        client.grant_role("public", "someone", PrincipalType.USER, TRINO_USER,
                          PrincipalType.USER, False)


def test_grant_show_and_revoke_table_privileges(client, db, table, hive):
    user, role = unique_name("u"), unique_name("r")
    client.create_role(Role(role, 0, TRINO_USER))
    # GRANT SELECT ON t TO USER u: Trino first lists the grantee's grants on the table.
    assert client.list_privileges(user, PrincipalType.USER, table_ref(db, table)) == []
    assert client.grant_privileges(trino_bag(db, table, user, PrincipalType.USER, "select",
                                             True)) is True
    assert client.grant_privileges(trino_bag(db, table, role, PrincipalType.ROLE, "insert"))
    assert show_grants(client, db, table) == sorted([
        (user, PrincipalType.USER, "select", True), (role, PrincipalType.ROLE, "insert", False)])
    listed = client.list_privileges(user, PrincipalType.USER, table_ref(db, table))
    assert len(listed) == 1
    hive_object = listed[0].hiveObject
    assert (hive_object.objectType, hive_object.dbName, hive_object.objectName) == (
        HiveObjectType.TABLE, db, table)
    assert listed[0].grantInfo.grantor == TRINO_USER
    if hive >= 4:
        assert listed[0].authorizer == "SQL"
        assert hive_object.catName == "hive"
        with raises_hms(MetaException, f"select is already granted on table [{db},{table}] by "
                                       f"{TRINO_USER}"):
            client.grant_privileges(trino_bag(db, table, user, PrincipalType.USER, "select"))
    # REVOKE GRANT OPTION FOR SELECT, then REVOKE SELECT (Trino: grant_revoke_privileges).
    bag = trino_bag(db, table, user, PrincipalType.USER, "select")
    option = GrantRevokePrivilegeRequest(GrantRevokeType.REVOKE, bag, True)
    assert client.grant_revoke_privileges(option).success is True
    assert (user, PrincipalType.USER, "select", False) in show_grants(client, db, table)
    with raises_hms(MetaException, f"User {user} does not have grant option with privilege"):
        client.grant_revoke_privileges(option)
    revoke = GrantRevokePrivilegeRequest(GrantRevokeType.REVOKE, bag, False)
    assert client.grant_revoke_privileges(revoke).success is True
    assert show_grants(client, db, table) == [(role, PrincipalType.ROLE, "insert", False)]
    if hive >= 4:
        with raises_hms(MetaException, f"No grant (select) found  on table {table}"):
            client.grant_revoke_privileges(revoke)
    # Dropping the role takes its grants; dropping the table takes the rest.
    client.drop_role(role)
    assert show_grants(client, db, table) == []


def test_privilege_set_and_partition_grants(client, db, hive):
    user, group, role = unique_name("u"), unique_name("g"), unique_name("r")
    table = unique_name("t")
    client.create_table(make_table(db, table, partition_keys=[FieldSchema("ds", "string", None)],
                                   parameters={"PARTITION_LEVEL_PRIVILEGE": "TRUE"}))
    client.add_partition(Partition(["1"], db, table, 0, 0, storage_descriptor(), {}))
    client.create_role(Role(role, 0, TRINO_USER))
    client.grant_role(role, group, PrincipalType.GROUP, TRINO_USER, PrincipalType.USER, False)
    part_ref = HiveObjectRef(HiveObjectType.PARTITION, db, table, ["1"], None)
    info = PrivilegeGrantInfo("SELECT", 0, TRINO_USER, PrincipalType.USER, False)
    bag = PrivilegeBag([HiveObjectPrivilege(part_ref, role, PrincipalType.ROLE, info, "SQL"),
                        HiveObjectPrivilege(table_ref(db, table), user, PrincipalType.USER,
                                            info, "SQL")])
    assert client.grant_privileges(bag) is True
    on_table = client.get_privilege_set(table_ref(db, table), user, [group])
    assert [i.privilege for i in on_table.userPrivileges[user]] == ["SELECT"]
    assert on_table.groupPrivileges == {group: []}
    assert on_table.rolePrivileges == {"public": [], role: []}
    on_partition = client.get_privilege_set(part_ref, user, [group])
    assert [i.privilege for i in on_partition.rolePrivileges[role]] == ["SELECT"]
    partition = client.get_partition_with_auth(db, table, ["1"], user, [group])
    assert [i.privilege for i in partition.privileges.rolePrivileges[role]] == ["SELECT"]
    listed = client.list_privileges(role, PrincipalType.ROLE, part_ref)
    assert [p.hiveObject.partValues for p in listed] == [["1"]]
    client.drop_partition(db, table, ["1"], False)
    assert client.list_privileges(role, PrincipalType.ROLE,
                                  HiveObjectRef(None, None, None, None, None)) == []
    client.drop_role(role)
