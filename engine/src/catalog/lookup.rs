//! Resolving catalog, database and table names to ids as Hive does (names normalised, an
//! empty catalog meaning `hive`), and Hive's messages when a name resolves to nothing.

use crate::error::{Error, Result};
use crate::model::names::{self, DEFAULT_CATALOG_NAME};
use crate::storage::keys::{self, DatabaseId, TableId};
use crate::storage::kv::KvBackend;

/// Hive's message for a missing database.
pub(crate) fn no_such_database(catalog: &str, name: &str) -> Error {
    Error::NoSuchObject(format!("database {catalog}.{name}"))
}

/// The id of database `catalog.name`, if it exists. Names are normalised.
pub(crate) fn find_database_id(
    reader: &dyn KvBackend,
    catalog: &str,
    name: &str,
) -> Result<Option<DatabaseId>> {
    let key = keys::database_name_key(catalog, name);
    match reader.get(&key)? {
        Some(stored) => Ok(Some(DatabaseId(keys::decode_id_value(&key, &stored)?))),
        None => Ok(None),
    }
}

/// The id of database `catalog.name`, or Hive's not-found error.
pub(crate) fn require_database_id(
    reader: &dyn KvBackend,
    catalog: &str,
    name: &str,
) -> Result<DatabaseId> {
    find_database_id(reader, catalog, name)?.ok_or_else(|| no_such_database(catalog, name))
}

/// A name index entry whose database value is missing.
pub(crate) fn dangling_index(catalog: &str, name: &str, id: DatabaseId) -> Error {
    let key = keys::database_name_key(catalog, name);
    Error::corruption(
        &key,
        format!("names database id {} which has no value", id.0),
    )
}

/// The catalog name, normalised; empty means the default catalog.
pub(crate) fn catalog_or_default(catalog: &str) -> String {
    let catalog = names::normalize(catalog);
    if catalog.is_empty() {
        DEFAULT_CATALOG_NAME.to_string()
    } else {
        catalog
    }
}

pub(crate) fn table_not_found(catalog: &str, database: &str, table: &str) -> Error {
    Error::NoSuchObject(format!("{catalog}.{database}.{table} table not found"))
}

/// The id of table `name` in database `database`, if it exists.
pub(crate) fn find_table_id(
    reader: &dyn KvBackend,
    database: DatabaseId,
    name: &str,
) -> Result<Option<TableId>> {
    let key = keys::table_name_key(database, name);
    match reader.get(&key)? {
        Some(stored) => Ok(Some(TableId(keys::decode_id_value(&key, &stored)?))),
        None => Ok(None),
    }
}

/// The id of table `catalog.database.name` (names normalized as Hive does), if it exists.
pub(crate) fn table_id_in(
    reader: &dyn KvBackend,
    catalog: &str,
    database: &str,
    name: &str,
) -> Result<Option<TableId>> {
    let (catalog, database, name) = normalize_names(catalog, database, name);
    match find_database_id(reader, &catalog, &database)? {
        Some(database_id) => find_table_id(reader, database_id, &name),
        None => Ok(None),
    }
}

pub(crate) fn dangling_table_index(database: DatabaseId, name: &str, id: TableId) -> Error {
    let key = keys::table_name_key(database, name);
    Error::corruption(&key, format!("names table id {} which has no value", id.0))
}

/// Normalised `(catalog, database, table)` names.
pub(crate) fn normalize_names(
    catalog: &str,
    database: &str,
    table: &str,
) -> (String, String, String) {
    (
        catalog_or_default(catalog),
        names::normalize(database),
        names::normalize(table),
    )
}
