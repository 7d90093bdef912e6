//! HPL/SQL stored procedures: Hive 4's `create_stored_procedure` (which replaces one of the
//! same name), `get_stored_procedure`, `drop_stored_procedure` and
//! `get_all_stored_procedures` (HMSHandler, ObjectStore).

use super::{
    check_room, require_routine_database, required_text, RoutineName, StoredProcedure,
    ROUTINE_NAME_LEN_MAX, ROUTINE_OWNER_LEN_MAX, ROUTINE_TEXT_BYTES_MAX,
};
use crate::error::{Error, Result};
use crate::model::database::DatabaseType;
use crate::storage::keys::{self, KEYSPACE_PROCEDURE};
use crate::store::{now_seconds, Store};

/// What `create_stored_procedure` stores: its place and name, owner and source as sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewStoredProcedure {
    /// The catalog, as given.
    pub catalog: Option<String>,
    /// The database, as given.
    pub database: Option<String>,
    /// The name, as given.
    pub name: Option<String>,
    /// The owner.
    pub owner_name: Option<String>,
    /// The HPL/SQL source.
    pub source: Option<String>,
}

const WHAT: &str = "stored procedure";

impl Store {
    /// Hive's `create_stored_procedure`: stores `procedure` in its database, replacing one of
    /// the same name. A missing database is `NoSuchObject` ("There is no database c.d"), a
    /// remote one refused as Hive refuses it, a missing or too long name, owner or source
    /// refused.
    pub fn create_stored_procedure(&self, procedure: NewStoredProcedure) -> Result<()> {
        let place = RoutineName {
            catalog: procedure.catalog.as_deref(),
            database: procedure.database.as_deref(),
            name: procedure.name.as_deref(),
        };
        let (catalog, database) = place.normalized_place();
        self.write(|txn| {
            let (id, found) = require_routine_database(txn, &catalog, &database)?;
            if found.database_type == Some(DatabaseType::Remote) {
                let message = "Operation create_stored_procedure not support for REMOTE database";
                return Err(Error::Refused(message.to_string()));
            }
            let name = required_text(WHAT, "name", &procedure.name, ROUTINE_NAME_LEN_MAX)?;
            let owner = required_text(WHAT, "owner", &procedure.owner_name, ROUTINE_OWNER_LEN_MAX)?;
            let source = required_text(WHAT, "source", &procedure.source, ROUTINE_TEXT_BYTES_MAX)?;
            let key = keys::procedure_key(id, name);
            let create_time = match txn.view::<StoredProcedure>(&key)? {
                Some(old) => old.to_owned()?.create_time,
                None => {
                    check_room(txn, &keys::procedure_prefix(id), "stored procedures")?;
                    now_seconds()
                }
            };
            let stored = StoredProcedure {
                name: name.to_string(),
                db_name: found.name.clone(),
                cat_name: found.catalog_name.clone(),
                owner_name: owner.to_string(),
                source: source.to_string(),
                create_time,
            };
            txn.put_value(key, &stored)
        })
    }

    /// Hive's `get_stored_procedure`: the procedure, if its database and it exist (catalog and
    /// database normalised, the name compared as given).
    pub fn get_stored_procedure(&self, place: RoutineName<'_>) -> Result<Option<StoredProcedure>> {
        self.find_routine(KEYSPACE_PROCEDURE, place)
    }

    /// Hive's `drop_stored_procedure`: removes the procedure if it is there; a missing one
    /// (or database) is no error, as in Hive.
    pub fn drop_stored_procedure(&self, place: RoutineName<'_>) -> Result<()> {
        self.drop_routine(KEYSPACE_PROCEDURE, place)
    }

    /// Hive's `get_all_stored_procedures`: the names in database `database` of `catalog`, or
    /// in every database of `catalog` when none is named; names in key order (each database's
    /// by name).
    pub fn list_stored_procedures(
        &self,
        catalog: Option<&str>,
        database: Option<&str>,
    ) -> Result<Vec<String>> {
        self.list_routines(KEYSPACE_PROCEDURE, catalog, database)
    }
}
