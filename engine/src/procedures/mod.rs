//! HPL/SQL's stored procedures and packages, which Hive 4 keeps in its metastore
//! (`STORED_PROCS`, `PACKAGES`): plain text owned by a database, stored under the database's
//! id (`0x24`, `0x25`) so that a database's routines are one prefix and go with it.
//!
//! - `stored.rs`: `create_stored_procedure` (create or replace), get, drop, list;
//! - `packages.rs`: `add_package` (create or replace), find, drop, list;
//! - what both share is here: the values, Hive's names and limits, finding the database.
//!
//! Hive's `DbNotificationListener` logs none of these changes, so neither does the engine.

pub(crate) mod packages;
pub(crate) mod stored;
#[cfg(test)]
mod tests;

use rkyv::{Archive, Deserialize, Serialize};

use crate::catalog::lookup::find_database_id;
use crate::error::{Error, Result};
use crate::model::database::Database;
use crate::model::names;
use crate::storage::keys::{self, DatabaseId};
use crate::storage::kv::{KeyRange, KvBackend};
use crate::storage::values::{stored_value, StoredValue, ValueKind};
use crate::store::WriteTxn;

/// The longest procedure or package name accepted, in bytes (`STORED_PROCS.NAME` and
/// `PACKAGES.NAME varchar(256)`).
pub const ROUTINE_NAME_LEN_MAX: usize = 256;
/// The longest owner name accepted, in bytes (`STORED_PROCS.OWNER_NAME varchar(128)`).
pub const ROUTINE_OWNER_LEN_MAX: usize = 128;
/// The longest source, package header or package body accepted, in bytes. Hive keeps them in
/// `CLOB`s of up to 2^30 characters (`MStoredProc.MAX_SOURCE_SIZE`); 16 MiB, the width of a
/// view's text on MySQL, keeps one routine far below a message.
pub const ROUTINE_TEXT_BYTES_MAX: usize = (1 << 24) - 1;
/// The most stored procedures one database may hold, and the most packages: what a
/// listing of a database's routines may carry.
pub const ROUTINES_PER_DATABASE_MAX: usize = 10_000;

/// Hive's `StoredProcedure`: an HPL/SQL procedure's source, kept as given.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct StoredProcedure {
    /// The name, as given (Hive compares it as given).
    pub name: String,
    /// The database, normalised.
    pub db_name: String,
    /// The catalog, normalised.
    pub cat_name: String,
    /// The owner.
    pub owner_name: String,
    /// The HPL/SQL source.
    pub source: String,
    /// When it was first stored, seconds since the epoch (Hive's `CREATE_TIME`, not sent).
    pub create_time: i32,
}

stored_value!(StoredProcedure, ValueKind::StoredProcedure);

/// Hive's `Package`: an HPL/SQL package's header and body, kept as given.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct Package {
    /// The name, as given.
    pub name: String,
    /// The database, normalised.
    pub db_name: String,
    /// The catalog, normalised.
    pub cat_name: String,
    /// The owner.
    pub owner_name: String,
    /// The package's header (its declarations).
    pub header: String,
    /// The package's body.
    pub body: String,
    /// When it was first stored, seconds since the epoch (not sent).
    pub create_time: i32,
}

stored_value!(Package, ValueKind::Package);

/// Where a routine lives: catalog and database as a request names them. Hive normalises
/// both and takes neither as a default, so a missing one names no database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoutineName<'a> {
    /// The catalog, as given.
    pub catalog: Option<&'a str>,
    /// The database, as given.
    pub database: Option<&'a str>,
    /// The routine's name, as given.
    pub name: Option<&'a str>,
}

impl RoutineName<'_> {
    /// Catalog and database normalised, as Hive's `normalizeIdentifier` leaves them (a
    /// missing one stays missing).
    fn normalized_place(&self) -> (Option<String>, Option<String>) {
        (
            self.catalog.map(names::normalize),
            self.database.map(names::normalize),
        )
    }
}

/// Hive's text for a value it prints that is not set.
fn or_null(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("null")
}

/// The id of the database a routine names, if both names are given and it exists.
fn find_routine_database(
    reader: &dyn KvBackend,
    catalog: &Option<String>,
    database: &Option<String>,
) -> Result<Option<DatabaseId>> {
    match (catalog, database) {
        (Some(catalog), Some(database)) => find_database_id(reader, catalog, database),
        _ => Ok(None),
    }
}

/// The database a routine is written to, or Hive's `getMDatabase` message.
fn require_routine_database(
    txn: &WriteTxn<'_>,
    catalog: &Option<String>,
    database: &Option<String>,
) -> Result<(DatabaseId, Database)> {
    let missing = || {
        Error::NoSuchObject(format!(
            "There is no database {}.{}",
            or_null(catalog),
            or_null(database)
        ))
    };
    let id = find_routine_database(txn.reader(), catalog, database)?.ok_or_else(missing)?;
    let view = txn
        .view::<Database>(&keys::database_key(id))?
        .ok_or_else(missing)?;
    Ok((id, view.to_owned()?))
}

/// A routine field Hive's schema declares `NOT NULL`: refused when missing, as Hive's
/// store fails there, and when longer than `max`.
fn required_text<'a>(
    what: &str,
    field: &str,
    value: &'a Option<String>,
    max: usize,
) -> Result<&'a str> {
    let Some(value) = value.as_deref() else {
        return Err(Error::Refused(format!("The {what}'s {field} is not set")));
    };
    if value.len() > max {
        return Err(Error::Refused(format!(
            "The {what}'s {field} is {} bytes, longer than the {max} bytes allowed",
            value.len()
        )));
    }
    Ok(value)
}

/// Refuses a new routine in a database that holds [`ROUTINES_PER_DATABASE_MAX`] of its kind.
fn check_room(txn: &WriteTxn<'_>, prefix: &[u8], kind: &str) -> Result<()> {
    let mut count = 0usize;
    for entry in txn.scan(KeyRange::prefix(prefix)) {
        entry?;
        count += 1;
        if count >= ROUTINES_PER_DATABASE_MAX {
            return Err(Error::Refused(format!(
                "A database holds at most {ROUTINES_PER_DATABASE_MAX} {kind}"
            )));
        }
    }
    Ok(())
}

/// Whether database `id` holds a routine of `keyspace`.
pub(crate) fn has_routines(txn: &WriteTxn<'_>, keyspace: u8, id: DatabaseId) -> Result<bool> {
    let range = KeyRange::prefix(&keys::routine_prefix(keyspace, id));
    Ok(txn.scan(range).next().transpose()?.is_some())
}

/// Drops every routine of `keyspace` of database `id` within `txn` (Hive's cascade drop).
pub(crate) fn drop_all_routines(
    txn: &mut WriteTxn<'_>,
    keyspace: u8,
    id: DatabaseId,
) -> Result<()> {
    txn.delete_range(KeyRange::prefix(&keys::routine_prefix(keyspace, id)))
}

impl crate::store::Store {
    /// The routine of `keyspace` that `place` names, if its database and it exist (catalog
    /// and database normalised, the name compared as given).
    fn find_routine<T: StoredValue>(
        &self,
        keyspace: u8,
        place: RoutineName<'_>,
    ) -> Result<Option<T>> {
        let (catalog, database) = place.normalized_place();
        let Some(id) = find_routine_database(self.reader(), &catalog, &database)? else {
            return Ok(None);
        };
        let Some(name) = place.name else {
            return Ok(None);
        };
        match self.view::<T>(&keys::routine_key(keyspace, id, name))? {
            Some(view) => Ok(Some(view.to_owned()?)),
            None => Ok(None),
        }
    }

    /// Removes the routine of `keyspace` that `place` names if it is there; a missing one (or
    /// database) is no error, as in Hive.
    fn drop_routine(&self, keyspace: u8, place: RoutineName<'_>) -> Result<()> {
        let (catalog, database) = place.normalized_place();
        self.write(|txn| {
            let Some(id) = find_routine_database(txn.reader(), &catalog, &database)? else {
                return Ok(());
            };
            let Some(name) = place.name else {
                return Ok(());
            };
            let key = keys::routine_key(keyspace, id, name);
            if txn.get(&key)?.is_some() {
                txn.delete(key);
            }
            Ok(())
        })
    }

    /// The names of the routines of `keyspace` in database `database` of `catalog`, or in
    /// every database of `catalog` when none is named. Hive normalises both names; a
    /// missing catalog names none.
    pub(crate) fn list_routines(
        &self,
        keyspace: u8,
        catalog: Option<&str>,
        database: Option<&str>,
    ) -> Result<Vec<String>> {
        let Some(catalog) = catalog.map(names::normalize) else {
            return Ok(Vec::new());
        };
        let databases = match database {
            Some(database) => {
                let found = find_database_id(self.reader(), &catalog, &names::normalize(database))?;
                found.into_iter().collect()
            }
            None => self.database_ids(&catalog)?,
        };
        let mut listed = Vec::new();
        for id in databases {
            let prefix = keys::routine_prefix(keyspace, id);
            for entry in self.scan(KeyRange::prefix(&prefix)) {
                let (key, _) = entry?;
                listed.push(keys::decode_routine_key(keyspace, &key)?.1);
            }
        }
        Ok(listed)
    }

    /// The ids of the databases of `catalog`, in name order.
    fn database_ids(&self, catalog: &str) -> Result<Vec<DatabaseId>> {
        let prefix = keys::database_name_prefix(catalog);
        self.scan(KeyRange::prefix(&prefix))
            .map(|entry| {
                let (key, stored) = entry?;
                Ok(DatabaseId(keys::decode_id_value(&key, &stored)?))
            })
            .collect()
    }
}
