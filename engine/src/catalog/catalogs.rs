//! Catalogs (Hive 3+): the outermost namespace. Catalog `hive` always exists.

use crate::catalog::databases::DropDatabaseOptions;
use crate::error::{Error, Result};
use crate::events::{EventBody, EventKind, EventRecord};
use crate::model::catalog::Catalog;
use crate::model::database::Database;
use crate::model::names::{self, DEFAULT_CATALOG_NAME, DEFAULT_DATABASE_NAME};
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::store::{now_seconds, Store, WriteTxn};

fn no_such_catalog(name: &str) -> Error {
    Error::NoSuchObject(format!("No catalog {name}"))
}

impl Store {
    /// Creates `catalog`. Its name is normalised and validated; its create
    /// time is set to now; its location directory is made, as Hive does.
    ///
    /// Like Hive, it also creates the catalog's `default` database at the catalog's location,
    /// in the same atomic write.
    pub fn create_catalog(&self, catalog: Catalog) -> Result<Catalog> {
        let mut catalog = catalog;
        names::validate_catalog_name(&catalog.name)?;
        catalog.name = names::normalize(&catalog.name);
        if catalog.location_uri.trim().is_empty() {
            let message = "You must specify a path for the catalog".to_string();
            return Err(Error::InvalidObject(message));
        }
        catalog.create_time = Some(now_seconds());
        self.check_catalog_values(&catalog)?;
        let mut undo = Vec::new();
        self.write_with_undo(&mut undo, |txn| {
            let key = keys::catalog_key(&catalog.name);
            if txn.get(&key)?.is_some() {
                let message = format!("Catalog {} already exists", catalog.name);
                return Err(Error::AlreadyExists(message));
            }
            let made = self.warehouse().make_dir(&catalog.location_uri);
            txn.record_undo(made.map_err(Error::Refused)?);
            txn.put_value(key, &catalog)?;
            let default = Database {
                name: DEFAULT_DATABASE_NAME.to_string(),
                description: Some(format!("Default database for catalog {}", catalog.name)),
                catalog_name: catalog.name.clone(),
                create_time: Some(now_seconds()),
                ..Database::default()
            };
            self.insert_database(txn, &catalog, default, DEFAULT_DATABASE_NAME)?;
            let body = EventBody::Catalog(catalog.clone());
            txn.emit(EventRecord::new(
                EventKind::CreateCatalog,
                &catalog.name,
                "",
                "",
                body,
            ))?;
            Ok(catalog)
        })
    }

    /// The catalog called `name`.
    pub fn get_catalog(&self, name: &str) -> Result<Catalog> {
        let name = names::normalize(name);
        match self.view::<Catalog>(&keys::catalog_key(&name))? {
            Some(view) => view.to_owned(),
            None => Err(no_such_catalog(&name)),
        }
    }

    /// The names of every catalog, ascending.
    pub fn list_catalogs(&self) -> Result<Vec<String>> {
        self.scan(KeyRange::prefix(&keys::catalog_prefix()))
            .map(|entry| entry.and_then(|(key, _)| keys::decode_catalog_key(&key)))
            .collect()
    }

    /// Refuses a catalog whose description or location is too long.
    fn check_catalog_values(&self, catalog: &Catalog) -> Result<()> {
        let limits = &self.options().value_limits;
        limits.check_description("catalog", &catalog.description)?;
        let too_long = catalog.location_uri.len() > crate::model::value_limits::LOCATION_LEN_MAX;
        let location = too_long.then(|| catalog.location_uri.clone());
        crate::model::value_limits::check_location("catalog", &location)
    }

    /// Replaces catalog `name` with `catalog`. The name cannot change; the
    /// create time is kept.
    pub fn alter_catalog(&self, name: &str, catalog: Catalog) -> Result<Catalog> {
        let name = names::normalize(name);
        let mut catalog = catalog;
        catalog.name = names::normalize(&catalog.name);
        if !catalog.name.is_empty() && catalog.name != name {
            let message = format!("Cannot rename catalog {name} to {}", catalog.name);
            return Err(Error::InvalidOperation(message));
        }
        catalog.name = name.clone();
        self.check_catalog_values(&catalog)?;
        self.write(|txn| {
            let key = keys::catalog_key(&name);
            let Some(old) = txn.view::<Catalog>(&key)? else {
                return Err(no_such_catalog(&name));
            };
            let old = old.to_owned()?;
            self.warehouse()
                .confine_relocation(Some(&old.location_uri), Some(&catalog.location_uri))
                .map_err(Error::Refused)?;
            catalog.create_time = old.create_time;
            txn.put_value(key, &catalog)?;
            let body = EventBody::Catalog(catalog.clone());
            txn.emit(EventRecord::new(
                EventKind::AlterCatalog,
                &name,
                "",
                "",
                body,
            ))?;
            Ok(catalog)
        })
    }

    /// Drops catalog `name`, which must hold no database. Catalog `hive`
    /// cannot be dropped.
    ///
    /// Like Hive, a catalog whose only database is its (empty) `default` drops it too; any
    /// other database keeps the catalog.
    pub fn drop_catalog(&self, name: &str) -> Result<Catalog> {
        let name = names::normalize(name);
        if name == DEFAULT_CATALOG_NAME {
            return Err(Error::Refused("Can not drop hive catalog".to_string()));
        }
        self.get_catalog(&name)?;
        let databases = self.list_databases(&name)?;
        if databases
            .iter()
            .any(|database| database != DEFAULT_DATABASE_NAME)
        {
            let message = format!(
                "There are non-default databases in the catalog {name} so it cannot be dropped."
            );
            return Err(Error::InvalidOperation(message));
        }
        if !databases.is_empty() {
            let options = DropDatabaseOptions::default();
            self.drop_database_with_options(&name, DEFAULT_DATABASE_NAME, &options)?;
        }
        self.write(|txn| {
            let key = keys::catalog_key(&name);
            let Some(old) = txn.view::<Catalog>(&key)? else {
                return Err(no_such_catalog(&name));
            };
            let databases = KeyRange::prefix(&keys::database_name_prefix(&name));
            if txn.scan(databases).next().transpose()?.is_some() {
                let message = format!(
                    "There are non-default databases in the catalog {name} so it cannot be dropped."
                );
                return Err(Error::InvalidOperation(message));
            }
            txn.delete(key);
            let old = old.to_owned()?;
            let body = EventBody::Catalog(old.clone());
            txn.emit(EventRecord::new(
                EventKind::DropCatalog,
                &name,
                "",
                "",
                body,
            ))?;
            Ok(old)
        })
    }

    /// Creates catalog `hive`, database `default` and the store's UUID if missing.
    pub(crate) fn bootstrap(&self) -> Result<()> {
        let root = self.options().warehouse_root.clone();
        self.write(|txn| {
            let key = keys::catalog_key(DEFAULT_CATALOG_NAME);
            if txn.get(&key)?.is_none() {
                let catalog = Catalog {
                    name: DEFAULT_CATALOG_NAME.to_string(),
                    description: Some("Default catalog for Hive".to_string()),
                    location_uri: root.clone(),
                    create_time: Some(now_seconds()),
                };
                txn.put_value(key, &catalog)?;
            }
            crate::store_uuid::bootstrap_uuid(txn)?;
            crate::grants::bootstrap_default_roles(txn)?;
            crate::catalog::databases::bootstrap_default_database(txn, &root)
        })
    }
}

/// Catalog `name`, or Hive's not-found error.
pub(crate) fn require_catalog(txn: &WriteTxn<'_>, name: &str) -> Result<Catalog> {
    match txn.view::<Catalog>(&keys::catalog_key(name))? {
        Some(view) => view.to_owned(),
        None => Err(no_such_catalog(name)),
    }
}
