//! HPL/SQL packages: Hive 4's `add_package` (which replaces one of the same name),
//! `find_package`, `drop_package` and `get_all_packages` (HMSHandler, ObjectStore).

use super::{
    check_room, require_routine_database, required_text, Package, RoutineName,
    ROUTINE_NAME_LEN_MAX, ROUTINE_OWNER_LEN_MAX, ROUTINE_TEXT_BYTES_MAX,
};
use crate::error::Result;
use crate::storage::keys::{self, KEYSPACE_PACKAGE};
use crate::store::{now_seconds, Store};

/// What `add_package` stores: its place and name, owner, header and body as sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewPackage {
    /// The catalog, as given.
    pub catalog: Option<String>,
    /// The database, as given.
    pub database: Option<String>,
    /// The name, as given.
    pub name: Option<String>,
    /// The owner.
    pub owner_name: Option<String>,
    /// The header.
    pub header: Option<String>,
    /// The body.
    pub body: Option<String>,
}

const WHAT: &str = "package";

impl Store {
    /// Hive's `add_package`: stores `package` in its database, replacing one of the same
    /// name. A missing database is `NoSuchObject` ("There is no database c.d"); a missing or
    /// too long name, owner, header or body is refused. Hive adds packages to remote
    /// databases too, and so does this.
    pub fn add_package(&self, package: NewPackage) -> Result<()> {
        let place = RoutineName {
            catalog: package.catalog.as_deref(),
            database: package.database.as_deref(),
            name: package.name.as_deref(),
        };
        let (catalog, database) = place.normalized_place();
        self.write(|txn| {
            let (id, found) = require_routine_database(txn, &catalog, &database)?;
            let name = required_text(WHAT, "name", &package.name, ROUTINE_NAME_LEN_MAX)?;
            let owner = required_text(WHAT, "owner", &package.owner_name, ROUTINE_OWNER_LEN_MAX)?;
            let header = required_text(WHAT, "header", &package.header, ROUTINE_TEXT_BYTES_MAX)?;
            let body = required_text(WHAT, "body", &package.body, ROUTINE_TEXT_BYTES_MAX)?;
            let key = keys::package_key(id, name);
            let create_time = match txn.view::<Package>(&key)? {
                Some(old) => old.to_owned()?.create_time,
                None => {
                    check_room(txn, &keys::package_prefix(id), "packages")?;
                    now_seconds()
                }
            };
            let stored = Package {
                name: name.to_string(),
                db_name: found.name.clone(),
                cat_name: found.catalog_name.clone(),
                owner_name: owner.to_string(),
                header: header.to_string(),
                body: body.to_string(),
                create_time,
            };
            txn.put_value(key, &stored)
        })
    }

    /// Hive's `find_package`: the package, if its database and it exist.
    pub fn find_package(&self, place: RoutineName<'_>) -> Result<Option<Package>> {
        self.find_routine(KEYSPACE_PACKAGE, place)
    }

    /// Hive's `drop_package`: removes the package if it is there; a missing one is no error.
    pub fn drop_package(&self, place: RoutineName<'_>) -> Result<()> {
        self.drop_routine(KEYSPACE_PACKAGE, place)
    }

    /// Hive's `get_all_packages`: the names in database `database` of `catalog`, or in every
    /// database of `catalog` when none is named.
    pub fn list_packages(
        &self,
        catalog: Option<&str>,
        database: Option<&str>,
    ) -> Result<Vec<String>> {
        self.list_routines(KEYSPACE_PACKAGE, catalog, database)
    }
}
