//! Roles and privileges on an in-memory store: Hive's rules for each call, what drops and
//! renames do to grants, and the kept view's answers (`roles_of`, `holds`) after each write.

use std::collections::BTreeMap;

use super::*;
use crate::model::grants::{GrantTarget, PrivilegeGrant};
use crate::model::principal::{PrincipalPrivilegeSet, PrincipalType, PrivilegeGrantInfo};
use crate::store::{memory_store_with_databases, Store};
use crate::{
    AddPartitionsOptions, DropPartitionsOptions, FieldSchema, Partition, StorageDescriptor, Table,
};

fn partitioned(name: &str) -> Table {
    let column = |name: &str| FieldSchema {
        name: name.to_string(),
        type_name: "string".to_string(),
        comment: None,
    };
    Table {
        db_name: "db".to_string(),
        table_name: name.to_string(),
        partition_keys: vec![column("ds")],
        sd: Some(StorageDescriptor {
            cols: vec![column("a")],
            ..StorageDescriptor::default()
        }),
        ..Table::default()
    }
}

fn store_with_table() -> Store {
    let store = memory_store_with_databases(&["db"]);
    store.create_table(partitioned("t")).unwrap();
    let partition = Partition {
        values: vec!["1".to_string()],
        ..Partition::default()
    };
    let options = AddPartitionsOptions::default();
    store
        .add_partitions("hive", "db", "t", vec![partition], &options)
        .unwrap();
    store
}

fn request(
    object: GrantObject,
    principal: &str,
    kind: PrincipalType,
    privilege: &str,
) -> GrantRequest {
    GrantRequest {
        object,
        principal_name: principal.to_string(),
        principal_type: kind,
        privilege: privilege.to_string(),
        grantor: Some("admin_user".to_string()),
        grantor_type: Some(PrincipalType::User),
        grant_option: false,
        authorizer: Some(SQL_AUTHORIZER.to_string()),
    }
}

fn table_object(table: &str) -> GrantObject {
    GrantObject::Table {
        catalog: "hive".to_string(),
        database: "db".to_string(),
        table: table.to_string(),
    }
}

fn partition_object(value: &str) -> GrantObject {
    GrantObject::Partition {
        catalog: String::new(),
        database: "DB".to_string(),
        table: "T".to_string(),
        values: vec![value.to_string()],
    }
}

fn role_grant(role: &str, principal: &str, kind: PrincipalType) -> RoleGrant {
    RoleGrant {
        role: role.to_string(),
        principal_name: principal.to_string(),
        principal_type: kind,
        grantor: Some("admin_user".to_string()),
        grantor_type: Some(PrincipalType::User),
        grant_option: false,
    }
}

fn privileges_of(
    store: &Store,
    principal: &str,
    kind: PrincipalType,
) -> Vec<(GrantTarget, String)> {
    let grants = store
        .list_privileges(Some((principal, kind)), &PrivilegeFilter::Every)
        .unwrap();
    grants
        .into_iter()
        .map(|grant| (grant.target, grant.privilege))
        .collect()
}

fn table_target(table: &str) -> GrantTarget {
    GrantTarget::table("hive", "db", table)
}

#[test]
fn a_new_store_has_admin_with_all_and_public() {
    let store = memory_store_with_databases(&[]);
    let view = store.grants_view().unwrap();
    let names: Vec<&str> = view.roles().map(|role| role.name.as_str()).collect();
    assert_eq!(names, ["admin", "public"]);
    let grants: Vec<&PrivilegeGrant> = view.grants_on(&GrantTarget::Global).collect();
    assert_eq!(grants.len(), 1);
    assert_eq!(
        (
            grants[0].principal_name.as_str(),
            grants[0].privilege.as_str()
        ),
        ("admin", "All")
    );
    assert!(grants[0].grant_option);
    let admin_roles = [ADMIN_ROLE.to_string()].into_iter().collect();
    assert!(view.holds("x", &[], &admin_roles, &table_target("t"), "DROP", true));
}

#[test]
fn default_roles_cannot_be_dropped_or_public_created() {
    let store = memory_store_with_databases(&[]);
    for role in [ADMIN_ROLE, PUBLIC_ROLE] {
        let error = store.drop_role(role).unwrap_err();
        assert_eq!(error.to_string(), "public,admin roles can't be dropped.");
    }
    let error = store.create_role(PUBLIC_ROLE, None).unwrap_err();
    assert!(error.to_string().contains("public role implicitly exists"));
}

#[test]
fn create_role_twice_is_refused_and_drop_of_a_missing_role_is_not() {
    let store = memory_store_with_databases(&[]);
    store.create_role("analysts", Some("alice")).unwrap();
    let error = store.create_role("analysts", None).unwrap_err();
    assert!(
        matches!(error, crate::Error::InvalidObject(ref message) if message == "Role analysts already exists.")
    );
    store.create_role("Analysts", None).unwrap();
    store.drop_role("nobody").unwrap();
    let long = "r".repeat(GRANT_NAME_BYTES_MAX + 1);
    assert!(store.create_role(&long, None).is_err());
}

#[test]
fn role_grants_follow_hives_rules() {
    let store = memory_store_with_databases(&[]);
    store.create_role("a", None).unwrap();
    store.create_role("b", None).unwrap();
    let error = store
        .grant_role(role_grant("nope", "u", PrincipalType::User))
        .unwrap_err();
    assert_eq!(error.to_string(), "nope role can not be found.");
    let error = store
        .grant_role(role_grant(PUBLIC_ROLE, "u", PrincipalType::User))
        .unwrap_err();
    assert!(error
        .to_string()
        .starts_with("No user can be added to public."));
    store
        .grant_role(role_grant("a", "u", PrincipalType::User))
        .unwrap();
    let error = store
        .grant_role(role_grant("a", "u", PrincipalType::User))
        .unwrap_err();
    assert_eq!(error.to_string(), "Principal u already has the role a");
    // b belongs to a; granting a to b would make a cycle, as would a to itself.
    store
        .grant_role(role_grant("a", "b", PrincipalType::Role))
        .unwrap();
    let error = store
        .grant_role(role_grant("b", "a", PrincipalType::Role))
        .unwrap_err();
    assert!(error.to_string().ends_with("(no cycles allowed)"));
    let error = store
        .grant_role(role_grant("a", "a", PrincipalType::Role))
        .unwrap_err();
    assert!(error.to_string().ends_with("(no cycles allowed)"));
    let error = store
        .grant_role(role_grant("a", "ghost", PrincipalType::Role))
        .unwrap_err();
    assert_eq!(error.to_string(), "Role ghost does not exist");
}

#[test]
fn roles_of_follows_groups_and_roles_transitively() {
    let store = memory_store_with_databases(&[]);
    for role in ["a", "b", "c", "lonely"] {
        store.create_role(role, None).unwrap();
    }
    store
        .grant_role(role_grant("a", "g", PrincipalType::Group))
        .unwrap();
    store
        .grant_role(role_grant("b", "a", PrincipalType::Role))
        .unwrap();
    store
        .grant_role(role_grant("c", "b", PrincipalType::Role))
        .unwrap();
    store
        .grant_role(role_grant("c", PUBLIC_ROLE, PrincipalType::Role))
        .unwrap();
    let view = store.grants_view().unwrap();
    let held: Vec<String> = view.roles_of("u", &["g".to_string()]).into_iter().collect();
    assert_eq!(held, ["a", "b", "c", "public"]);
    let alone: Vec<String> = view.roles_of("u", &[]).into_iter().collect();
    assert_eq!(alone, ["c", "public"]);
}

#[test]
fn revoke_role_takes_the_role_or_only_its_admin_option() {
    let store = memory_store_with_databases(&[]);
    store.create_role("a", None).unwrap();
    let mut grant = role_grant("a", "u", PrincipalType::User);
    grant.grant_option = true;
    store.grant_role(grant).unwrap();
    store
        .revoke_role("a", "u", PrincipalType::User, true)
        .unwrap();
    let view = store.grants_view().unwrap();
    assert!(!view.members_of("a")[0].grant_option);
    let error = store
        .revoke_role("a", "u", PrincipalType::User, true)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "User u does not have grant option with role a"
    );
    store
        .revoke_role("a", "u", PrincipalType::User, false)
        .unwrap();
    assert!(store.grants_view().unwrap().members_of("a").is_empty());
    // Revoking what is not held is no error, as in Hive.
    store
        .revoke_role("a", "u", PrincipalType::User, false)
        .unwrap();
    let error = store
        .revoke_role(PUBLIC_ROLE, "u", PrincipalType::User, false)
        .unwrap_err();
    assert_eq!(error.to_string(), "public role can't be revoked.");
}

#[test]
fn dropping_a_role_removes_its_members_memberships_and_grants() {
    let store = store_with_table();
    store.create_role("a", None).unwrap();
    store.create_role("b", None).unwrap();
    store
        .grant_role(role_grant("a", "u", PrincipalType::User))
        .unwrap();
    store
        .grant_role(role_grant("b", "a", PrincipalType::Role))
        .unwrap();
    let grant = request(table_object("t"), "a", PrincipalType::Role, "SELECT");
    store.grant_privileges(&[grant]).unwrap();
    store.drop_role("a").unwrap();
    let view = store.grants_view().unwrap();
    assert!(view.role("a").is_none());
    assert!(view.members_of("b").is_empty());
    assert!(view.memberships_of(PrincipalType::User, "u").is_empty());
    assert!(privileges_of(&store, "a", PrincipalType::Role).is_empty());
}

#[test]
fn grants_split_at_commas_and_refuse_what_the_grantor_granted_already() {
    let store = store_with_table();
    let grant = request(table_object("T"), "u", PrincipalType::User, "SELECT,INSERT");
    store
        .grant_privileges(std::slice::from_ref(&grant))
        .unwrap();
    let held = privileges_of(&store, "u", PrincipalType::User);
    assert_eq!(held.len(), 2);
    let error = store
        .grant_privileges(std::slice::from_ref(&grant))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "SELECT is already granted on table [db,t] by admin_user"
    );
    // Another grantor may grant it again.
    let mut other = grant;
    other.grantor = Some("bob".to_string());
    store.grant_privileges(&[other]).unwrap();
    assert_eq!(privileges_of(&store, "u", PrincipalType::User).len(), 4);
}

#[test]
fn grants_on_missing_objects_do_nothing_but_a_missing_database_or_role_is_refused() {
    let store = store_with_table();
    store
        .grant_privileges(&[request(
            table_object("nope"),
            "u",
            PrincipalType::User,
            "SELECT",
        )])
        .unwrap();
    store
        .grant_privileges(&[request(
            partition_object("9"),
            "u",
            PrincipalType::User,
            "SELECT",
        )])
        .unwrap();
    assert!(privileges_of(&store, "u", PrincipalType::User).is_empty());
    let database = GrantObject::Database {
        catalog: String::new(),
        database: "nodb".to_string(),
    };
    let error = store
        .grant_privileges(&[request(database, "u", PrincipalType::User, "SELECT")])
        .unwrap_err();
    assert_eq!(error.to_string(), "There is no database hive.nodb");
    let error = store
        .grant_privileges(&[request(
            table_object("t"),
            "ghost",
            PrincipalType::Role,
            "SELECT",
        )])
        .unwrap_err();
    assert_eq!(error.to_string(), "Role ghost does not exist");
}

#[test]
fn revokes_take_the_grant_or_its_option_and_refuse_what_is_not_granted() {
    let store = store_with_table();
    let mut grant = request(partition_object("1"), "u", PrincipalType::User, "SELECT");
    grant.grant_option = true;
    store
        .grant_privileges(std::slice::from_ref(&grant))
        .unwrap();
    store
        .revoke_privileges(std::slice::from_ref(&grant), true)
        .unwrap();
    let listed = store
        .list_privileges(Some(("u", PrincipalType::User)), &PrivilegeFilter::Every)
        .unwrap();
    assert!(!listed[0].grant_option);
    assert_eq!(
        listed[0].target.partition_values(),
        Some(vec!["1".to_string()])
    );
    let error = store
        .revoke_privileges(std::slice::from_ref(&grant), true)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "User u does not have grant option with privilege SELECT"
    );
    // Revokes on tables compare privileges in any case.
    let mut lower = grant.clone();
    lower.privilege = "select".to_string();
    store.revoke_privileges(&[lower], false).unwrap();
    let error = store.revoke_privileges(&[grant], false).unwrap_err();
    assert_eq!(
        error.to_string(),
        "No grant (SELECT) found  on table t, partition is ds=1, database is db"
    );
    let global = request(GrantObject::Global, "u", PrincipalType::User, "DROP");
    let error = store.revoke_privileges(&[global], false).unwrap_err();
    assert_eq!(error.to_string(), "No user grant found for privileges DROP");
}

#[test]
fn a_failed_request_changes_nothing() {
    let store = store_with_table();
    let first = request(table_object("t"), "u", PrincipalType::User, "SELECT");
    let bad = request(table_object("t"), "ghost", PrincipalType::Role, "SELECT");
    assert!(store.grant_privileges(&[first, bad]).is_err());
    assert!(privileges_of(&store, "u", PrincipalType::User).is_empty());
}

#[test]
fn drops_take_grants_and_a_rename_keeps_them() {
    let store = store_with_table();
    let column = GrantObject::Column {
        catalog: String::new(),
        database: "db".to_string(),
        table: "t".to_string(),
        values: None,
        column: "A".to_string(),
    };
    let grants = [
        request(table_object("t"), "u", PrincipalType::User, "SELECT"),
        request(partition_object("1"), "u", PrincipalType::User, "SELECT"),
        request(column, "u", PrincipalType::User, "SELECT"),
    ];
    store.grant_privileges(&grants).unwrap();
    let mut renamed = store.get_table("hive", "db", "t").unwrap();
    renamed.table_name = "t2".to_string();
    store.alter_table("hive", "db", "t", renamed).unwrap();
    let held = privileges_of(&store, "u", PrincipalType::User);
    assert_eq!(held.len(), 3);
    assert!(held
        .iter()
        .all(|(target, _)| matches!(target, GrantTarget::Table { table, .. } if table == "t2")));
    let values = [vec!["1".to_string()]];
    let options = DropPartitionsOptions::default();
    store
        .drop_partitions("hive", "db", "t2", &values, &options)
        .unwrap();
    assert_eq!(privileges_of(&store, "u", PrincipalType::User).len(), 2);
    store.drop_table("hive", "db", "t2").unwrap();
    assert!(privileges_of(&store, "u", PrincipalType::User).is_empty());
    // A table made again under the old name has none of the old grants.
    store.create_table(partitioned("t2")).unwrap();
    assert!(privileges_of(&store, "u", PrincipalType::User).is_empty());
}

#[test]
fn dropping_a_database_takes_its_grants_and_its_tables() {
    let store = store_with_table();
    let database = GrantObject::Database {
        catalog: "hive".to_string(),
        database: "db".to_string(),
    };
    let grants = [
        request(database, "u", PrincipalType::User, "CREATE"),
        request(table_object("t"), "u", PrincipalType::User, "SELECT"),
        request(GrantObject::Global, "u", PrincipalType::User, "SELECT"),
    ];
    store.grant_privileges(&grants).unwrap();
    let options = crate::DropDatabaseOptions {
        cascade: true,
        ..crate::DropDatabaseOptions::default()
    };
    store
        .drop_database_with_options("hive", "db", &options)
        .unwrap();
    let held = privileges_of(&store, "u", PrincipalType::User);
    assert_eq!(held, [(GrantTarget::Global, "SELECT".to_string())]);
}

#[test]
fn a_created_tables_privileges_become_grants() {
    let store = memory_store_with_databases(&["db"]);
    let info = |privilege: &str| PrivilegeGrantInfo {
        privilege: privilege.to_string(),
        create_time: 0,
        grantor: "owner".to_string(),
        grantor_type: PrincipalType::User,
        grant_option: true,
    };
    let mut table = partitioned("t");
    table.privileges = Some(PrincipalPrivilegeSet {
        user_privileges: BTreeMap::from([("owner".to_string(), vec![info("ALL")])]),
        role_privileges: BTreeMap::from([("r".to_string(), vec![info("SELECT")])]),
        ..PrincipalPrivilegeSet::default()
    });
    store.create_table(table).unwrap();
    let view = store.grants_view().unwrap();
    let grants: Vec<&PrivilegeGrant> = view.grants_on(&table_target("t")).collect();
    assert_eq!(grants.len(), 2);
    assert!(grants
        .iter()
        .all(|grant| grant.authorizer.as_deref() == Some(SQL_AUTHORIZER)));
    let roles = view.roles_of("owner", &[]);
    assert!(view.holds("owner", &[], &roles, &table_target("t"), "INSERT", true));
}

#[test]
fn holds_looks_up_through_what_holds_the_object() {
    let store = store_with_table();
    store.create_role("readers", None).unwrap();
    store
        .grant_role(role_grant("readers", "g", PrincipalType::Group))
        .unwrap();
    let database = GrantObject::Database {
        catalog: String::new(),
        database: "db".to_string(),
    };
    let mut grant = request(database, "readers", PrincipalType::Role, "select");
    grant.grant_option = true;
    store.grant_privileges(&[grant]).unwrap();
    let view = store.grants_view().unwrap();
    let groups = ["g".to_string()];
    let roles = view.roles_of("u", &groups);
    let column = GrantTarget::Table {
        catalog: "hive".to_string(),
        database: "db".to_string(),
        table: "t".to_string(),
        partition: Some("ds=1".to_string()),
        column: Some("a".to_string()),
    };
    assert!(view.holds("u", &groups, &roles, &column, "SELECT", true));
    assert!(!view.holds("u", &groups, &roles, &column, "INSERT", false));
    let none = view.roles_of("u", &[]);
    assert!(!view.holds("u", &[], &none, &column, "SELECT", false));
}

#[test]
fn the_view_is_kept_until_a_grant_write() {
    let store = store_with_table();
    let first = store.grants_view().unwrap();
    let again = store.grants_view().unwrap();
    assert!(std::sync::Arc::ptr_eq(&first, &again));
    // A write elsewhere keeps it.
    store.create_table(partitioned("other")).unwrap();
    assert!(std::sync::Arc::ptr_eq(
        &first,
        &store.grants_view().unwrap()
    ));
    store.create_role("new", None).unwrap();
    let after = store.grants_view().unwrap();
    assert!(!std::sync::Arc::ptr_eq(&first, &after));
    assert!(after.role("new").is_some());
}

#[test]
fn refresh_replaces_one_authorizers_grants_on_the_object() {
    let store = store_with_table();
    let mut other_authorizer = request(table_object("t"), "v", PrincipalType::User, "SELECT");
    other_authorizer.authorizer = Some("RANGER".to_string());
    let kept = request(table_object("t"), "u", PrincipalType::User, "SELECT");
    let dropped = request(table_object("t"), "u", PrincipalType::User, "INSERT");
    store
        .grant_privileges(&[other_authorizer, kept.clone(), dropped])
        .unwrap();
    let added = request(table_object("t"), "w", PrincipalType::User, "UPDATE");
    store
        .refresh_privileges(&table_object("t"), Some(SQL_AUTHORIZER), &[kept, added])
        .unwrap();
    let view = store.grants_view().unwrap();
    let mut left: Vec<(String, String)> = view
        .grants_on(&table_target("t"))
        .map(|grant| (grant.principal_name.clone(), grant.privilege.clone()))
        .collect();
    left.sort();
    let expected = [("u", "SELECT"), ("v", "SELECT"), ("w", "UPDATE")];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(name, privilege)| (name.to_string(), privilege.to_string()))
        .collect();
    assert_eq!(left, expected);
}

#[test]
fn privilege_sets_have_hives_shape() {
    let store = store_with_table();
    store.create_role("r", None).unwrap();
    store
        .grant_role(role_grant("r", "u", PrincipalType::User))
        .unwrap();
    store
        .grant_privileges(&[
            request(table_object("t"), "u", PrincipalType::User, "SELECT"),
            request(GrantObject::Global, "g", PrincipalType::Group, "CREATE"),
        ])
        .unwrap();
    let groups = ["g".to_string(), "h".to_string()];
    let set = store
        .privilege_set(&table_object("t"), Some("u"), &groups)
        .unwrap();
    assert_eq!(set.users.unwrap()["u"].len(), 1);
    assert_eq!(set.groups.unwrap().len(), 2);
    let roles: Vec<String> = set.roles.unwrap().into_keys().collect();
    assert_eq!(roles, ["public", "r"]);
    let global = store
        .privilege_set(&GrantObject::Global, Some("u"), &groups)
        .unwrap();
    assert!(global.users.is_none());
    assert_eq!(global.groups.unwrap().len(), 1);
    assert!(global.roles.is_none());
}

#[test]
fn too_many_privileges_in_one_request_are_refused() {
    let store = store_with_table();
    let many = vec!["SELECT"; GRANTS_PER_REQUEST_MAX + 1].join(",");
    let grant = request(table_object("t"), "u", PrincipalType::User, &many);
    let error = store.grant_privileges(&[grant]).unwrap_err();
    assert!(error.to_string().contains("more than the"));
}
