//! Roles, role memberships and privilege grants as stored: Hive's `ROLES`, `ROLE_MAP` and its
//! six privilege tables (`GLOBAL_PRIVS`, `DB_PRIVS`, `TBL_PRIVS`, `PART_PRIVS`,
//! `TBL_COL_PRIVS`, `PART_COL_PRIVS`) as one value kind each, objects named by their names.

use rkyv::{Archive, Deserialize, Serialize};

use crate::model::principal::PrincipalType;
use crate::storage::values::{stored_value, ValueKind};

/// A role (Hive's `Role`).
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct Role {
    /// The name, as given (role names are case-sensitive in Hive's store).
    pub name: String,
    /// When it was created, seconds since the epoch.
    pub create_time: i32,
    /// Its owner, as the creator named it.
    pub owner_name: Option<String>,
}

stored_value!(Role, ValueKind::Role);

/// A principal's membership of a role (Hive's `RolePrincipalGrant`, `ROLE_MAP`).
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct RoleMember {
    /// The role held.
    pub role: String,
    /// Who holds it.
    pub principal_name: String,
    /// A user, a group or another role.
    pub principal_type: PrincipalType,
    /// Who granted it.
    pub grantor: Option<String>,
    /// The grantor's principal type.
    pub grantor_type: Option<PrincipalType>,
    /// Hive's "admin option": the holder may grant the role on.
    pub grant_option: bool,
    /// When it was granted, seconds since the epoch.
    pub grant_time: i32,
}

stored_value!(RoleMember, ValueKind::RoleMember);

/// What a privilege is granted on, by names (Hive's `HiveObjectRef`, with the partition by its
/// name). Names are as the store keeps them: catalog, database, table and column lowercased,
/// the partition name as Hive makes it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Archive, Serialize, Deserialize)]
#[rkyv(derive(Debug, PartialEq, Eq))]
pub enum GrantTarget {
    /// The server (`GLOBAL`).
    Global,
    /// A database.
    Database {
        /// Its catalog.
        catalog: String,
        /// Its name.
        database: String,
    },
    /// A table, one of its partitions, or a column of either.
    Table {
        /// Its catalog.
        catalog: String,
        /// Its database.
        database: String,
        /// Its name.
        table: String,
        /// A partition of it, by name (`ds=2024/h=1`).
        partition: Option<String>,
        /// A column of the table or of that partition.
        column: Option<String>,
    },
}

impl GrantTarget {
    /// The table of a table, partition or column target.
    pub fn table(catalog: &str, database: &str, table: &str) -> GrantTarget {
        GrantTarget::Table {
            catalog: catalog.to_string(),
            database: database.to_string(),
            table: table.to_string(),
            partition: None,
            column: None,
        }
    }

    /// What holds this target: a column its partition or table, a partition its table, a
    /// table its database, a database the server; `None` for the server.
    pub fn parent(&self) -> Option<GrantTarget> {
        match self {
            GrantTarget::Global => None,
            GrantTarget::Database { .. } => Some(GrantTarget::Global),
            GrantTarget::Table {
                catalog,
                database,
                table,
                partition,
                column,
            } => Some(match (partition, column) {
                (None, None) => GrantTarget::Database {
                    catalog: catalog.clone(),
                    database: database.clone(),
                },
                (Some(partition), Some(_)) => GrantTarget::Table {
                    catalog: catalog.clone(),
                    database: database.clone(),
                    table: table.clone(),
                    partition: Some(partition.clone()),
                    column: None,
                },
                _ => GrantTarget::table(catalog, database, table),
            }),
        }
    }
}

/// One privilege granted to one principal on one object (Hive's `HiveObjectPrivilege`).
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct PrivilegeGrant {
    /// What it is granted on.
    pub target: GrantTarget,
    /// Who holds it.
    pub principal_name: String,
    /// A user, a group or a role.
    pub principal_type: PrincipalType,
    /// The privilege, as the grant spelled it (`SELECT`, `select`, `All`).
    pub privilege: String,
    /// When it was granted, seconds since the epoch.
    pub create_time: i32,
    /// Who granted it.
    pub grantor: Option<String>,
    /// The grantor's principal type.
    pub grantor_type: Option<PrincipalType>,
    /// Whether the holder may grant it on.
    pub grant_option: bool,
    /// Which authorizer made it (Hive 4's `authorizer`: `SQL` for SQL-standard grants).
    pub authorizer: Option<String>,
}

stored_value!(PrivilegeGrant, ValueKind::PrivilegeGrant);
