//! Roles and privileges between the IDL's structs and the engine's (`calls/roles.rs`,
//! `calls/privileges.rs`), and Hive 4's way of reporting its store's refusals from these
//! calls: `MetaException` `"Got exception: <class> <message>"` (`HMSHandler`'s
//! `convertToMetaExIfInstance`).

use std::collections::BTreeMap;

use hivestore_engine::{
    self as engine, GrantObject, GrantRequest, GrantTarget, PrivilegeFilter, PrivilegeGrant,
    PrivilegeSet, DEFAULT_CATALOG_NAME,
};
use hivestore_idl::hive_metastore as idl;

use crate::access::Target;
use crate::convert::{principal_type_from_idl, principal_type_to_idl};
use crate::errors::{exception, to_thrift, Declared};

/// Hive 4's answer for its store's `InvalidObjectException` and `NoSuchObjectException` in
/// the role and grant calls; every other refusal keeps its message.
pub fn wrapped(error: engine::Error) -> thrift::Error {
    let (class, message) = match error {
        engine::Error::InvalidObject(message) => ("InvalidObjectException", message),
        engine::Error::NoSuchObject(message) => ("NoSuchObjectException", message),
        other => return to_thrift(other, &[Declared::Meta]),
    };
    exception(
        Declared::Meta,
        format!("Got exception: org.apache.hadoop.hive.metastore.api.{class} {message}"),
    )
}

/// A `MetaException` naming a field the call needs.
pub fn missing(what: &str) -> thrift::Error {
    exception(Declared::Meta, format!("{what} is required"))
}

fn catalog_of(object: &idl::HiveObjectRef) -> String {
    object
        .cat_name
        .clone()
        .filter(|catalog| !catalog.is_empty())
        .unwrap_or_else(|| DEFAULT_CATALOG_NAME.to_string())
}

/// The object a `HiveObjectRef` names, for a grant or revoke (every name it needs given).
pub fn object_from_idl(object: &idl::HiveObjectRef) -> thrift::Result<GrantObject> {
    let catalog = catalog_of(object);
    let database = || object.db_name.clone().ok_or_else(|| missing("dbName"));
    let table = || {
        object
            .object_name
            .clone()
            .ok_or_else(|| missing("objectName"))
    };
    let kind = object.object_type.ok_or_else(|| missing("objectType"))?;
    Ok(match kind {
        idl::HiveObjectType::GLOBAL => GrantObject::Global,
        idl::HiveObjectType::DATABASE => GrantObject::Database {
            catalog,
            database: database()?,
        },
        idl::HiveObjectType::TABLE => GrantObject::Table {
            catalog,
            database: database()?,
            table: table()?,
        },
        idl::HiveObjectType::PARTITION => GrantObject::Partition {
            catalog,
            database: database()?,
            table: table()?,
            values: object
                .part_values
                .clone()
                .ok_or_else(|| missing("partValues"))?,
        },
        idl::HiveObjectType::COLUMN => GrantObject::Column {
            catalog,
            database: database()?,
            table: table()?,
            values: object
                .part_values
                .clone()
                .filter(|values| !values.is_empty()),
            column: object.column_name.clone().unwrap_or_default(),
        },
        other => {
            return Err(exception(
                Declared::Meta,
                format!("Unexpected object type {}", other.0),
            ))
        }
    })
}

/// What `session.authorize` names for an object: the server for global grants, the table
/// for a partition's or a column's.
pub fn target_of(object: &GrantObject) -> Target<'_> {
    match object {
        GrantObject::Global => Target::Server,
        GrantObject::Database { catalog, database } => Target::Database { catalog, database },
        GrantObject::Table {
            catalog,
            database,
            table,
        }
        | GrantObject::Partition {
            catalog,
            database,
            table,
            ..
        }
        | GrantObject::Column {
            catalog,
            database,
            table,
            ..
        } => Target::Table {
            catalog,
            database,
            table,
        },
    }
}

/// One `HiveObjectPrivilege` of a grant or revoke.
pub fn grant_request_from_idl(privilege: idl::HiveObjectPrivilege) -> thrift::Result<GrantRequest> {
    let object = privilege.hive_object.ok_or_else(|| missing("hiveObject"))?;
    let info = privilege.grant_info.ok_or_else(|| missing("grantInfo"))?;
    Ok(GrantRequest {
        object: object_from_idl(&object)?,
        principal_name: privilege
            .principal_name
            .ok_or_else(|| missing("principalName"))?,
        principal_type: principal_type_from_idl(
            privilege
                .principal_type
                .ok_or_else(|| missing("principalType"))?,
        ),
        privilege: info.privilege.unwrap_or_default(),
        grantor: info.grantor,
        grantor_type: info.grantor_type.map(principal_type_from_idl),
        grant_option: info.grant_option.unwrap_or(false),
        authorizer: privilege.authorizer,
    })
}

/// Every `HiveObjectPrivilege` of a bag.
pub fn grant_requests_from_idl(
    bag: Option<idl::PrivilegeBag>,
) -> thrift::Result<Vec<GrantRequest>> {
    let privileges = bag.and_then(|bag| bag.privileges).unwrap_or_default();
    privileges.into_iter().map(grant_request_from_idl).collect()
}

/// What `list_privileges` selects with a `HiveObjectRef` (Hive's `HMSHandler.list_privileges`).
pub fn filter_from_idl(object: &idl::HiveObjectRef) -> PrivilegeFilter {
    let catalog = catalog_of(object);
    let database = object.db_name.clone();
    let table = object.object_name.clone();
    match object.object_type {
        None => PrivilegeFilter::Every,
        Some(idl::HiveObjectType::GLOBAL) => PrivilegeFilter::Global,
        Some(idl::HiveObjectType::DATABASE) => PrivilegeFilter::Database { catalog, database },
        Some(idl::HiveObjectType::TABLE) => PrivilegeFilter::Table {
            catalog,
            table: database.map(|database| (database, table)),
        },
        Some(idl::HiveObjectType::PARTITION) => PrivilegeFilter::Partition {
            catalog,
            partition: database.map(|database| {
                let values = object.part_values.clone().unwrap_or_default();
                (database, table.unwrap_or_default(), values)
            }),
        },
        Some(_) => PrivilegeFilter::Column {
            catalog,
            values: object.part_values.clone(),
            column: database.map(|database| {
                (
                    database,
                    table.unwrap_or_default(),
                    object.column_name.clone(),
                )
            }),
        },
    }
}

/// A target as Hive's listings name it: a partition by its values, the catalog unset for the
/// server.
pub fn target_to_idl(target: &GrantTarget) -> idl::HiveObjectRef {
    let values = target.partition_values();
    match target {
        GrantTarget::Global => {
            idl::HiveObjectRef::new(idl::HiveObjectType::GLOBAL, None, None, None, None, None)
        }
        GrantTarget::Database { catalog, database } => idl::HiveObjectRef::new(
            idl::HiveObjectType::DATABASE,
            database.clone(),
            None,
            None,
            None,
            catalog.clone(),
        ),
        GrantTarget::Table {
            catalog,
            database,
            table,
            partition,
            column,
        } => {
            let kind = match (partition, column) {
                (_, Some(_)) => idl::HiveObjectType::COLUMN,
                (Some(_), None) => idl::HiveObjectType::PARTITION,
                (None, None) => idl::HiveObjectType::TABLE,
            };
            idl::HiveObjectRef::new(
                kind,
                database.clone(),
                table.clone(),
                values,
                column.clone(),
                catalog.clone(),
            )
        }
    }
}

/// A grant's `PrivilegeGrantInfo`.
pub fn grant_info_to_idl(grant: &PrivilegeGrant) -> idl::PrivilegeGrantInfo {
    idl::PrivilegeGrantInfo::new(
        grant.privilege.clone(),
        grant.create_time,
        grant.grantor.clone(),
        grant.grantor_type.map(principal_type_to_idl),
        grant.grant_option,
    )
}

/// A grant as `list_privileges` answers it.
pub fn privilege_to_idl(grant: PrivilegeGrant) -> idl::HiveObjectPrivilege {
    idl::HiveObjectPrivilege::new(
        target_to_idl(&grant.target),
        grant.principal_name.clone(),
        principal_type_to_idl(grant.principal_type),
        grant_info_to_idl(&grant),
        grant.authorizer.clone(),
    )
}

fn infos_to_idl(
    grants: Option<BTreeMap<String, Vec<PrivilegeGrant>>>,
) -> Option<BTreeMap<String, Vec<idl::PrivilegeGrantInfo>>> {
    grants.map(|grants| {
        grants
            .into_iter()
            .map(|(name, grants)| (name, grants.iter().map(grant_info_to_idl).collect()))
            .collect()
    })
}

/// `get_privilege_set`'s answer.
pub fn privilege_set_to_idl(set: PrivilegeSet) -> idl::PrincipalPrivilegeSet {
    idl::PrincipalPrivilegeSet {
        user_privileges: infos_to_idl(set.users),
        group_privileges: infos_to_idl(set.groups),
        role_privileges: infos_to_idl(set.roles),
    }
}

/// A role.
pub fn role_to_idl(role: &engine::Role) -> idl::Role {
    idl::Role::new(role.name.clone(), role.create_time, role.owner_name.clone())
}

/// A membership as `get_principals_in_role` and `get_role_grants_for_principal` answer it.
pub fn member_to_idl(member: &engine::RoleMember) -> idl::RolePrincipalGrant {
    idl::RolePrincipalGrant::new(
        member.role.clone(),
        member.principal_name.clone(),
        principal_type_to_idl(member.principal_type),
        member.grant_option,
        member.grant_time,
        member.grantor.clone(),
        member.grantor_type.map(principal_type_to_idl),
    )
}
