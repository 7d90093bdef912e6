//! Privileges: granted, revoked, refreshed and read (Hive 4's `HMSHandler`:
//! `grant_privileges`, `revoke_privileges`, `grant_revoke_privileges`, `refresh_privileges`,
//! `list_privileges`, `get_privilege_set`), and the grants `get_partition_with_auth` and its
//! listings attach to partitions.
//!
//! A grant or revoke needs the right to grant each privilege on the object (the server for
//! global grants, the table for a partition's or a column's); reads need nothing.

use hivestore_engine::{self as engine, GrantObject, GrantRequest, PrivilegeFilter};
use hivestore_idl::hive_metastore as idl;

use crate::access::{Need, Privilege, Target};
use crate::calls::roles::unknown_request_type;
use crate::convert::principal_type_from_idl;
use crate::convert_grants::{
    filter_from_idl, grant_requests_from_idl, missing, object_from_idl, privilege_set_to_idl,
    privilege_to_idl, target_of, wrapped,
};
use crate::errors::{to_thrift, Declared};
use crate::service::Session;

/// The table parameter that makes Hive keep and answer grants per partition.
pub const PARTITION_LEVEL_PRIVILEGE: &str = "PARTITION_LEVEL_PRIVILEGE";

fn store_error(error: engine::Error) -> thrift::Error {
    to_thrift(error, &[Declared::Meta])
}

/// Names, for each privilege of each request, the right to grant it on its object; a
/// privilege Hive's SQL-standard authorizer does not know needs the right to grant all.
fn authorize_grants(session: &Session, requests: &[GrantRequest]) -> thrift::Result<()> {
    for request in requests {
        for privilege in request.privilege.split(',') {
            let privilege = Privilege::parse(privilege).unwrap_or(Privilege::All);
            session.authorize(Need::Grant(privilege), target_of(&request.object))?;
        }
    }
    Ok(())
}

fn grant(session: &Session, bag: Option<idl::PrivilegeBag>) -> thrift::Result<bool> {
    let requests = grant_requests_from_idl(bag)?;
    authorize_grants(session, &requests)?;
    session
        .store()
        .grant_privileges(&requests)
        .map_err(wrapped)?;
    Ok(true)
}

fn revoke(
    session: &Session,
    bag: Option<idl::PrivilegeBag>,
    grant_option_only: bool,
) -> thrift::Result<bool> {
    let requests = grant_requests_from_idl(bag)?;
    authorize_grants(session, &requests)?;
    session
        .store()
        .revoke_privileges(&requests, grant_option_only)
        .map_err(wrapped)?;
    Ok(true)
}

/// `grant_privileges` (Hive 2's form).
pub fn grant_privileges(session: &Session, privileges: idl::PrivilegeBag) -> thrift::Result<bool> {
    grant(session, Some(privileges))
}

/// `revoke_privileges` (Hive 2's form): the grants themselves.
pub fn revoke_privileges(session: &Session, privileges: idl::PrivilegeBag) -> thrift::Result<bool> {
    revoke(session, Some(privileges), false)
}

/// `grant_revoke_privileges`: a grant, or a revoke of the grants or (`revokeGrantOption`)
/// only of their grant option.
pub fn grant_revoke(
    session: &Session,
    request: idl::GrantRevokePrivilegeRequest,
) -> thrift::Result<idl::GrantRevokePrivilegeResponse> {
    let success = match request.request_type {
        Some(idl::GrantRevokeType::GRANT) => grant(session, request.privileges)?,
        Some(idl::GrantRevokeType::REVOKE) => {
            let grant_option_only = request.revoke_grant_option.unwrap_or(false);
            revoke(session, request.privileges, grant_option_only)?
        }
        other => return Err(unknown_request_type(other)),
    };
    Ok(idl::GrantRevokePrivilegeResponse::new(success))
}

/// `refresh_privileges`: `authorizer`'s grants on a database, a table or (a `COLUMN` object
/// without a column name) every column of a table become the request's.
pub fn refresh(
    session: &Session,
    object: idl::HiveObjectRef,
    authorizer: String,
    grant_request: idl::GrantRevokePrivilegeRequest,
) -> thrift::Result<idl::GrantRevokePrivilegeResponse> {
    let object = object_from_idl(&object)?;
    session.authorize(Need::Grant(Privilege::All), target_of(&object))?;
    let requests = grant_requests_from_idl(grant_request.privileges)?;
    authorize_grants(session, &requests)?;
    let authorizer = Some(authorizer).filter(|authorizer| !authorizer.is_empty());
    session
        .store()
        .refresh_privileges(&object, authorizer.as_deref(), &requests)
        .map_err(wrapped)?;
    Ok(idl::GrantRevokePrivilegeResponse::new(true))
}

/// `list_privileges`: the grants the object reference selects (a reference without a
/// database selects every object of its kind; one without a type, every grant), of the
/// principal when one is named.
pub fn list(
    session: &Session,
    principal_name: Option<String>,
    principal_type: Option<idl::PrincipalType>,
    object: idl::HiveObjectRef,
) -> thrift::Result<Vec<idl::HiveObjectPrivilege>> {
    let filter = filter_from_idl(&object);
    session.authorize(Need::Anyone, filter_target(&filter))?;
    let principal = match (principal_name, principal_type) {
        (Some(name), Some(kind)) => Some((name, principal_type_from_idl(kind))),
        (Some(_), None) => return Err(missing("principalType")),
        (None, _) => None,
    };
    let principal = principal
        .as_ref()
        .map(|(name, kind)| (name.as_str(), *kind));
    let grants = session
        .store()
        .list_privileges(principal, &filter)
        .map_err(store_error)?;
    Ok(grants.into_iter().map(privilege_to_idl).collect())
}

fn filter_target(filter: &PrivilegeFilter) -> Target<'_> {
    match filter {
        PrivilegeFilter::Database {
            catalog,
            database: Some(database),
        } => Target::Database { catalog, database },
        PrivilegeFilter::Table {
            catalog,
            table: Some((database, Some(table))),
        }
        | PrivilegeFilter::Partition {
            catalog,
            partition: Some((database, table, _)),
        }
        | PrivilegeFilter::Column {
            catalog,
            column: Some((database, table, _)),
            ..
        } => Target::Table {
            catalog,
            database,
            table,
        },
        _ => Target::Server,
    }
}

/// `get_privilege_set`: the user's, its groups' and its roles' grants on the object itself.
pub fn privilege_set(
    session: &Session,
    object: idl::HiveObjectRef,
    user_name: String,
    group_names: Vec<String>,
) -> thrift::Result<idl::PrincipalPrivilegeSet> {
    let mut object = object_from_idl(&object)?;
    if let GrantObject::Column { values, .. } = &mut object {
        *values = values.take().filter(|values| !values.is_empty());
    }
    session.authorize(Need::Anyone, target_of(&object))?;
    let set = session
        .store()
        .privilege_set(&object, Some(&user_name), &group_names)
        .map_err(store_error)?;
    Ok(privilege_set_to_idl(set))
}

/// Hive's `get_partition_with_auth` and its listings: when the table keeps grants per
/// partition (`PARTITION_LEVEL_PRIVILEGE=TRUE`), each partition carries the grants on it of
/// `user`, its `groups` and their roles; otherwise partitions are answered as they are.
pub fn attach_partition_privileges(
    session: &Session,
    partitions: &mut [idl::Partition],
    user: &str,
    groups: &[String],
) -> thrift::Result<()> {
    let Some(first) = partitions.first() else {
        return Ok(());
    };
    let catalog = first.cat_name.clone().unwrap_or_default();
    let database = first.db_name.clone().unwrap_or_default();
    let table = first.table_name.clone().unwrap_or_default();
    let kept = session.store().get_table(&catalog, &database, &table);
    let per_partition = kept.is_ok_and(|table| {
        table
            .parameters
            .get(PARTITION_LEVEL_PRIVILEGE)
            .is_some_and(|value| value.eq_ignore_ascii_case("TRUE"))
    });
    if !per_partition {
        return Ok(());
    }
    for partition in partitions {
        let object = GrantObject::Partition {
            catalog: catalog.clone(),
            database: database.clone(),
            table: table.clone(),
            values: partition.values.clone().unwrap_or_default(),
        };
        let set = session
            .store()
            .privilege_set(&object, Some(user), groups)
            .map_err(store_error)?;
        partition.privileges = Some(privilege_set_to_idl(set));
    }
    Ok(())
}
