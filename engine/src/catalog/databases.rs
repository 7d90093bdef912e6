//! Databases: named, with a surrogate id that their tables hang off.

use crate::catalog::catalogs::require_catalog;
use crate::catalog::lookup::{
    catalog_or_default, dangling_index, find_database_id, require_database_id,
};
use crate::confinement::Action;
use crate::error::{Error, Result};
use crate::events::{EventBody, EventKind, EventRecord};
use crate::model::catalog::Catalog;
use crate::model::database::{Database, DatabaseType};
use crate::model::names::{
    self, DEFAULT_CATALOG_NAME, DEFAULT_DATABASE_DESCRIPTION, DEFAULT_DATABASE_NAME,
};
use crate::model::principal::PrincipalType;
use crate::model::table::Table;
use crate::storage::keys::{self, DatabaseId};
use crate::storage::kv::KeyRange;
use crate::storage::values::ValueView;
use crate::store::{now_seconds, Store, WriteTxn};
use crate::warehouse::{join_location, WarehouseReport};

/// What [`Store::drop_database`] removed: the database and, with cascade,
/// its tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedDatabase {
    /// The database as it was.
    pub database: Database,
    /// The tables dropped with it, by name.
    pub tables: Vec<Table>,
    /// What happened to the data, with `delete_data`.
    pub warehouse: WarehouseReport,
}

/// The options of [`Store::drop_database_with_options`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DropDatabaseOptions {
    /// Drop the database's tables too; without it a database holding tables
    /// is not dropped.
    pub cascade: bool,
    /// Delete the data of the dropped managed (and purgeable external)
    /// tables and the database directories, after the commit.
    pub delete_data: bool,
}

impl Store {
    /// Creates `database` in its catalog (`catalog_name`; empty means
    /// `hive`). Names are normalised and validated; the create time is set.
    /// Without a location it gets Hive's default, `<catalog location>/<db>.db`
    /// (see [`default_database_location`]); its directories are made, as Hive
    /// does, on the store's filesystem.
    pub fn create_database(&self, database: Database) -> Result<Database> {
        let mut database = database;
        // Hive looks for an existing database first (by the trimmed, lowercased name), then
        // validates the name as given, and stores it trimmed and lowercased; its messages name
        // the database as given.
        let given_name = database.name.clone();
        database.name = names::normalize(&database.name);
        database.catalog_name = catalog_or_default(&database.catalog_name);
        database.create_time = Some(now_seconds());
        clear_blank(&mut database.location_uri);
        clear_blank(&mut database.managed_location_uri);
        qualify(&mut database.location_uri);
        qualify(&mut database.managed_location_uri);
        self.check_database_values(&database)?;
        let mut undo = Vec::new();
        self.write_with_undo(&mut undo, |txn| {
            let catalog =
                require_catalog(txn, &database.catalog_name).map_err(|error| match error {
                    Error::NoSuchObject(_) => {
                        Error::InvalidObject(format!("No such catalog {}", database.catalog_name))
                    }
                    other => other,
                })?;
            let name_key = keys::database_name_key(&database.catalog_name, &database.name);
            if txn.get(&name_key)?.is_some() {
                let message = format!("Database {given_name} already exists");
                return Err(Error::AlreadyExists(message));
            }
            names::validate_database_name(&given_name)?;
            let database = self.insert_database(txn, &catalog, database, &given_name)?;
            let body = EventBody::Database {
                before: None,
                after: database.clone(),
            };
            let (catalog, name) = (&database.catalog_name, &database.name);
            txn.emit(EventRecord::new(
                EventKind::CreateDatabase,
                catalog,
                name,
                "",
                body,
            ))?;
            Ok(database)
        })
    }

    /// Adds `database` (normalised) to `catalog` within `txn`: default location, directories,
    /// id and keys. `given_name` is the name as the caller spelled it, for messages.
    pub(crate) fn insert_database(
        &self,
        txn: &mut WriteTxn<'_>,
        catalog: &Catalog,
        mut database: Database,
        given_name: &str,
    ) -> Result<Database> {
        let name_key = keys::database_name_key(&database.catalog_name, &database.name);
        if txn.get(&name_key)?.is_some() {
            let message = format!("Database {given_name} already exists");
            return Err(Error::AlreadyExists(message));
        }
        if database.location_uri.is_none() {
            let location = default_database_location(catalog, &database.name);
            database.location_uri = Some(location);
        }
        self.make_database_dirs(txn, &database)?;
        let id = DatabaseId(txn.allocate_id());
        txn.put_raw(name_key, id.0.to_be_bytes().to_vec());
        txn.put_value(keys::database_key(id), &database)?;
        Ok(database)
    }

    /// Makes the location and managed location of `database`, recording the
    /// undo in `txn`.
    fn make_database_dirs(&self, txn: &mut WriteTxn<'_>, database: &Database) -> Result<()> {
        let locations = [&database.location_uri, &database.managed_location_uri];
        for location in locations.into_iter().flatten() {
            let made = self
                .warehouse()
                .make_dir(location)
                .map_err(Error::Refused)?;
            txn.record_undo(made);
        }
        Ok(())
    }

    /// Database `catalog.name`, read in place.
    pub fn get_database_view(&self, catalog: &str, name: &str) -> Result<ValueView<Database>> {
        let (catalog, name) = (names::normalize(catalog), names::normalize(name));
        let id = require_database_id(self.reader(), &catalog, &name)?;
        self.view::<Database>(&keys::database_key(id))?
            .ok_or_else(|| dangling_index(&catalog, &name, id))
    }

    /// Database `catalog.name`.
    pub fn get_database(&self, catalog: &str, name: &str) -> Result<Database> {
        self.get_database_view(catalog, name)?.to_owned()
    }

    /// The names of the databases of `catalog`, ascending.
    pub fn list_databases(&self, catalog: &str) -> Result<Vec<String>> {
        let catalog = names::normalize(catalog);
        self.scan(KeyRange::prefix(&keys::database_name_prefix(&catalog)))
            .map(|entry| {
                entry
                    .and_then(|(key, _)| keys::decode_database_name_key(&key))
                    .map(|(_, name)| name)
            })
            .collect()
    }

    /// Refuses a database whose description, owner, parameters or locations are too long.
    fn check_database_values(&self, database: &Database) -> Result<()> {
        let limits = &self.options().value_limits;
        limits.check_description("database", &database.description)?;
        crate::model::value_limits::check_database_owner(&database.owner_name)?;
        limits.check_parameters("database parameter", &database.parameters)?;
        crate::model::value_limits::check_location("database", &database.location_uri)?;
        crate::model::value_limits::check_remote_names(database)?;
        crate::model::value_limits::check_location(
            "database managed",
            &database.managed_location_uri,
        )
    }

    /// Replaces database `catalog.name` with `database`. Name, catalog, create time, type,
    /// connector and remote name are kept.
    pub fn alter_database(
        &self,
        catalog: &str,
        name: &str,
        database: Database,
    ) -> Result<Database> {
        let (catalog, name) = (names::normalize(catalog), names::normalize(name));
        let new_name = names::normalize(&database.name);
        if !new_name.is_empty() && new_name != name {
            let message = format!("Cannot rename database {catalog}.{name} to {new_name}");
            return Err(Error::InvalidOperation(message));
        }
        self.write(|txn| {
            let id = require_database_id(txn.reader(), &catalog, &name)?;
            let key = keys::database_key(id);
            let old = txn
                .view::<Database>(&key)?
                .ok_or_else(|| dangling_index(&catalog, &name, id))?;
            let old = old.to_owned()?;
            let mut database = database;
            // Hive qualifies the new location on alter as on create (not the managed one).
            qualify(&mut database.location_uri);
            let merged = merge_database_change(old.clone(), database);
            self.check_database_values(&merged)?;
            let relocations = [
                (&old.location_uri, &merged.location_uri),
                (&old.managed_location_uri, &merged.managed_location_uri),
            ];
            for (before, after) in relocations {
                self.warehouse()
                    .confine_relocation(before.as_deref(), after.as_deref())
                    .map_err(Error::Refused)?;
            }
            txn.put_value(key, &merged)?;
            let body = EventBody::Database {
                before: Some(old),
                after: merged.clone(),
            };
            txn.emit(EventRecord::new(
                EventKind::AlterDatabase,
                &catalog,
                &name,
                "",
                body,
            ))?;
            Ok(merged)
        })
    }

    /// Drops database `catalog.name`, metadata only: Hive's
    /// `drop_database(name, deleteData=false, cascade)`. See
    /// [`Store::drop_database_with_options`].
    pub fn drop_database(
        &self,
        catalog: &str,
        name: &str,
        cascade: bool,
    ) -> Result<DroppedDatabase> {
        let options = DropDatabaseOptions {
            cascade,
            delete_data: false,
        };
        self.drop_database_with_options(catalog, name, &options)
    }

    /// Drops database `catalog.name`. Without `cascade` it must hold no
    /// table, function, stored procedure or package; with it, those and the tables'
    /// partitions go too, in the same atomic write. `default` in catalog `hive` cannot be dropped.
    ///
    /// With `delete_data`, once the metadata is committed, the data of the
    /// dropped tables that Hive deletes (managed tables, and external ones
    /// with `external.table.purge=true`) and the database directories are
    /// removed; failures there are in the returned report, never undoing
    /// the drop.
    pub fn drop_database_with_options(
        &self,
        catalog: &str,
        name: &str,
        options: &DropDatabaseOptions,
    ) -> Result<DroppedDatabase> {
        let (catalog, name) = (names::normalize(catalog), names::normalize(name));
        if catalog == DEFAULT_CATALOG_NAME && name == DEFAULT_DATABASE_NAME {
            let message = format!(
                "Can not drop {DEFAULT_DATABASE_NAME} database in catalog {DEFAULT_CATALOG_NAME}"
            );
            return Err(Error::Refused(message));
        }
        let mut dropped = self.write(|txn| {
            let id = require_database_id(txn.reader(), &catalog, &name)?;
            let key = keys::database_key(id);
            let old = txn
                .view::<Database>(&key)?
                .ok_or_else(|| dangling_index(&catalog, &name, id))?;
            let table_names = KeyRange::prefix(&keys::table_name_prefix(id));
            if !options.cascade && txn.scan(table_names.clone()).next().transpose()?.is_some() {
                let message = format!("Database {name} is not empty. One or more tables exist.");
                return Err(Error::InvalidOperation(message));
            }
            if !options.cascade && crate::catalog::functions::has_functions(txn, id)? {
                let message = format!("Database {name} is not empty. One or more functions exist.");
                return Err(Error::InvalidOperation(message));
            }
            if !options.cascade
                && crate::procedures::has_routines(txn, keys::KEYSPACE_PROCEDURE, id)?
            {
                let message =
                    format!("Database {name} is not empty. One or more stored procedures exist.");
                return Err(Error::InvalidOperation(message));
            }
            if !options.cascade && crate::procedures::has_routines(txn, keys::KEYSPACE_PACKAGE, id)?
            {
                let message = format!("Database {name} is not empty. One or more packages exist.");
                return Err(Error::InvalidOperation(message));
            }
            // Hive's schema registry references its database without a cascade: its drop
            // fails at that foreign key, cascade or not.
            if crate::registry::schemas::has_schemas(txn, id)? {
                let message = format!("Database {name} is not empty. One or more schemas exist.");
                return Err(Error::InvalidOperation(message));
            }
            // Hive drops the functions first, each with its event, then the tables.
            crate::catalog::functions::drop_all_functions(txn, id)?;
            crate::procedures::drop_all_routines(txn, keys::KEYSPACE_PROCEDURE, id)?;
            crate::procedures::drop_all_routines(txn, keys::KEYSPACE_PACKAGE, id)?;
            let tables = crate::catalog::tables::drop_all_tables(txn, id, table_names)?;
            crate::grants::stage_drop_database_grants(txn, &catalog, &name)?;
            txn.delete(keys::database_name_key(&catalog, &name));
            txn.delete(key);
            let old = old.to_owned()?;
            if options.delete_data {
                let database_dirs = [&old.location_uri, &old.managed_location_uri];
                let database_dirs: Vec<&str> = database_dirs
                    .into_iter()
                    .filter_map(|location| location.as_deref())
                    .collect();
                let table_dirs = tables
                    .iter()
                    .filter_map(crate::catalog::tables::data_location_to_delete);
                let doomed = database_dirs.iter().copied().chain(table_dirs);
                self.warehouse()
                    .confine_all(Action::Delete, doomed.clone())
                    .map_err(Error::Refused)?;
                let doomed = doomed.map(|location| (location, location));
                let doomed = crate::catalog::dir_users::DoomedDirs::new(self.warehouse(), doomed);
                let dropping = format!("database {catalog}.{name}");
                doomed.refuse_live_tables(txn, &dropping, |table| {
                    table.cat_name == catalog && table.db_name == name
                })?;
            }
            // Hive drops a remote database without telling its listeners
            // (`drop_remote_database_core`), so no DROP_DATABASE is logged for one.
            if old.database_type != Some(DatabaseType::Remote) {
                let body = EventBody::Database {
                    before: None,
                    after: old.clone(),
                };
                txn.emit(EventRecord::new(
                    EventKind::DropDatabase,
                    &catalog,
                    &name,
                    "",
                    body,
                ))?;
            }
            Ok(DroppedDatabase {
                database: old,
                tables,
                warehouse: WarehouseReport::default(),
            })
        })?;
        self.finish_removals();
        if options.delete_data {
            dropped.warehouse = self.delete_database_data(&dropped);
        }
        Ok(dropped)
    }

    /// Removes the data of a dropped database: its tables' directories
    /// outside the database directory, then the database directories.
    fn delete_database_data(&self, dropped: &DroppedDatabase) -> WarehouseReport {
        let mut report = WarehouseReport::default();
        let protected = [self.options().warehouse_root.as_str()];
        let database_locations: Vec<&str> = [
            &dropped.database.location_uri,
            &dropped.database.managed_location_uri,
        ]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
        for table in &dropped.tables {
            let Some(location) = crate::catalog::tables::data_location_to_delete(table) else {
                continue;
            };
            let inside = database_locations
                .iter()
                .any(|database| is_inside(location, database));
            if !inside {
                self.warehouse()
                    .remove_dir(location, &protected, &mut report);
            }
        }
        for location in database_locations {
            self.warehouse()
                .remove_dir(location, &protected, &mut report);
        }
        report
    }
}

/// Whether `location` lies under directory `parent`.
fn is_inside(location: &str, parent: &str) -> bool {
    let parent = crate::warehouse::normalize_location(parent);
    location
        .strip_prefix(parent)
        .is_some_and(|rest| rest.starts_with('/'))
}

/// Hive's default location of database `name` in `catalog`:
/// `<catalog location>/<name>.db`. The `default` database of catalog `hive`
/// is the warehouse root itself, set up on first open.
pub fn default_database_location(catalog: &Catalog, name: &str) -> String {
    // Every catalog's `default` database sits at the catalog's own location, as in Hive.
    if name == DEFAULT_DATABASE_NAME {
        return catalog.location_uri.clone();
    }
    join_location(&catalog.location_uri, &format!("{name}.db"))
}

/// Hive's `alterDatabase`: parameters are replaced; description and locations change only
/// when the new value is not blank, owner only when given; name, catalog and create time stay.
fn merge_database_change(old: Database, new: Database) -> Database {
    let not_blank = |value: Option<String>| value.filter(|text| !text.trim().is_empty());
    Database {
        parameters: new.parameters,
        description: not_blank(new.description).or(old.description),
        location_uri: not_blank(new.location_uri).or(old.location_uri),
        managed_location_uri: not_blank(new.managed_location_uri).or(old.managed_location_uri),
        owner_name: new.owner_name.or(old.owner_name),
        owner_type: new.owner_type.or(old.owner_type),
        privileges: new.privileges.or(old.privileges),
        // Hive's `alterDatabase` never changes a database's type, connector or remote name.
        ..old
    }
}

/// Turns a blank location into none.
pub(crate) fn clear_blank(location: &mut Option<String>) {
    if location
        .as_deref()
        .is_some_and(|text| text.trim().is_empty())
    {
        *location = None;
    }
}

/// Qualifies a scheme-less absolute location ([`crate::warehouse::qualified_location`]).
fn qualify(location: &mut Option<String>) {
    if let Some(text) = location.as_mut() {
        *text = crate::warehouse::qualified_location(text);
    }
}

/// Creates database `default` in catalog `hive` if missing.
pub(crate) fn bootstrap_default_database(
    txn: &mut WriteTxn<'_>,
    warehouse_root: &str,
) -> Result<()> {
    if find_database_id(txn.reader(), DEFAULT_CATALOG_NAME, DEFAULT_DATABASE_NAME)?.is_some() {
        return Ok(());
    }
    let database = Database {
        name: DEFAULT_DATABASE_NAME.to_string(),
        description: Some(DEFAULT_DATABASE_DESCRIPTION.to_string()),
        location_uri: Some(warehouse_root.to_string()),
        owner_name: Some("public".to_string()),
        owner_type: Some(PrincipalType::Role),
        catalog_name: DEFAULT_CATALOG_NAME.to_string(),
        create_time: Some(now_seconds()),
        ..Database::default()
    };
    let id = DatabaseId(txn.allocate_id());
    let name_key = keys::database_name_key(DEFAULT_CATALOG_NAME, DEFAULT_DATABASE_NAME);
    txn.put_raw(name_key, id.0.to_be_bytes().to_vec());
    txn.put_value(keys::database_key(id), &database)
}
