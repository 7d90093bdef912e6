//! Hive's `Database`.

use std::collections::BTreeMap;

use rkyv::{Archive, Deserialize, Serialize};

use crate::model::principal::{PrincipalPrivilegeSet, PrincipalType};
use crate::storage::values::{stored_value, ValueKind};

/// Hive's `DatabaseType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub enum DatabaseType {
    /// A database whose tables live in this metastore.
    #[default]
    Native,
    /// A database mapped from a remote source through a data connector.
    Remote,
}

/// Hive's `Database`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct Database {
    /// The database name, normalised.
    pub name: String,
    /// A description.
    pub description: Option<String>,
    /// The location of external tables (and of all tables, when no managed
    /// location is set).
    pub location_uri: Option<String>,
    /// User parameters.
    pub parameters: BTreeMap<String, String>,
    /// Privileges granted at creation.
    pub privileges: Option<PrincipalPrivilegeSet>,
    /// The owner.
    pub owner_name: Option<String>,
    /// The owner's principal type.
    pub owner_type: Option<PrincipalType>,
    /// The catalog, normalised; always set on stored databases.
    pub catalog_name: String,
    /// Creation time, seconds since the epoch; set on create.
    pub create_time: Option<i32>,
    /// The location of managed tables.
    pub managed_location_uri: Option<String>,
    /// Native or remote.
    pub database_type: Option<DatabaseType>,
    /// The data connector of a remote database.
    pub connector_name: Option<String>,
    /// The name of a remote database at its source.
    pub remote_database_name: Option<String>,
}

stored_value!(Database, ValueKind::Database);
