//! Roles and privileges, as Hive's `ObjectStore` keeps them (`ROLES`, `ROLE_MAP` and the six
//! privilege tables) and its `HMSHandler` serves them: roles created, dropped, granted to
//! users, groups and other roles (never in a cycle); privileges granted on the server, a
//! database, a table, a partition or a column, to users, groups and roles, each with its
//! grantor, grant option and Hive 4's authorizer.
//!
//! The roles `admin` and `public` exist from the store's creation, with Hive's global `All`
//! granted to `admin` (`createDefaultRoles`); neither can be dropped, and `public` is every
//! user's without a membership. A dropped role takes its memberships and grants with it; a
//! dropped database, table or partition its grants (`cascade.rs`); a renamed table keeps them.
//! Objects are named by their names in the keys (`keys::KEYSPACE_PRIVILEGE`), so that a
//! prefix holds an object's grants with all that it holds.
//!
//! Reads go through [`GrantsView`] (`view.rs`): every role, membership and grant in memory,
//! read again only after a batch touched them, so that an authorization check costs no store
//! read. Hive writes no notification event for roles or grants (its `DbNotificationListener`
//! has none), and neither does hivestore.

mod cascade;
mod privileges;
mod roles;
#[cfg(test)]
mod tests;
mod view;

pub(crate) use cascade::{
    stage_drop_database_grants, stage_drop_partition_grants, stage_drop_table_grants,
    stage_rename_partition_grants, stage_rename_table_grants, stage_table_privileges,
};
pub use privileges::{GrantObject, GrantRequest, PrivilegeFilter, PrivilegeSet};
pub(crate) use roles::bootstrap_default_roles;
pub use roles::RoleGrant;
pub use view::GrantsView;
pub(crate) use view::KeptGrants;

use crate::error::{Error, Result};
use crate::model::grants::GrantTarget;
use crate::model::principal::PrincipalType;

/// The role every admin holds, made at the store's creation with `All` on the server.
pub const ADMIN_ROLE: &str = "admin";
/// The role every user holds implicitly; it has no members.
pub const PUBLIC_ROLE: &str = "public";
/// The authorizer Hive 4 names its SQL-standard grants with (the default roles' and a
/// table's creation grants).
pub const SQL_AUTHORIZER: &str = "SQL";
/// The longest role, principal, grantor, privilege or authorizer name accepted, in bytes
/// (Hive's `ROLE_NAME`, `PRINCIPAL_NAME`, `GRANTOR`, `*_PRIV` and `AUTHORIZER` are
/// `varchar(128)`).
pub const GRANT_NAME_BYTES_MAX: usize = 128;
/// The longest column or partition name a grant may name, in bytes (Hive's `COLUMN_NAME` and
/// `PART_NAME` are `varchar(767)`).
pub const GRANT_OBJECT_NAME_BYTES_MAX: usize = 767;
/// The most privileges one grant, revoke or refresh may name (after splitting Hive's
/// comma-separated privilege lists).
pub const GRANTS_PER_REQUEST_MAX: usize = 10_000;
/// The most roles, memberships and grants a store holds together: [`GrantsView`] keeps them
/// all in memory.
pub const GRANT_ENTRIES_MAX: usize = 1_000_000;

/// Hive's `PrincipalType` values, as the keys carry them.
pub(crate) fn principal_type_byte(principal_type: PrincipalType) -> u8 {
    match principal_type {
        PrincipalType::User => 1,
        PrincipalType::Role => 2,
        PrincipalType::Group => 3,
    }
}

/// Refuses a name longer than `max` bytes, naming what it is.
pub(crate) fn check_name_length(what: &str, name: &str, max: usize) -> Result<()> {
    if name.len() > max {
        return Err(Error::Refused(format!(
            "The {what} '{}' is {} bytes long; at most {max} are allowed",
            crate::error::bounded_message(name.to_string()),
            name.len()
        )));
    }
    Ok(())
}

/// The five components of a target's keys (see `keys::KEYSPACE_PRIVILEGE`).
pub(crate) fn target_parts(target: &GrantTarget) -> [&str; 5] {
    match target {
        GrantTarget::Global => ["", "", "", "", ""],
        GrantTarget::Database { catalog, database } => [catalog, database, "", "", ""],
        GrantTarget::Table {
            catalog,
            database,
            table,
            partition,
            column,
        } => [
            catalog,
            database,
            table,
            partition.as_deref().unwrap_or(""),
            column.as_deref().unwrap_or(""),
        ],
    }
}
