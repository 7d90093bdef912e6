//! Tables: named within a database, stored under a surrogate id that their
//! partitions hang off, so a rename rewrites a handful of keys.

use crate::catalog::lookup::{
    catalog_or_default, dangling_index, find_database_id, require_database_id,
};
use crate::catalog::lookup::{
    dangling_table_index, find_table_id, normalize_names, table_not_found,
};
use crate::catalog::table_rules;
use crate::confinement::Action;
use crate::error::{Error, Result};
use crate::events::{EventBody, EventKind, EventRecord};
use crate::model::database::Database;
use crate::model::names;
use crate::model::table::{Table, DDL_TIME_PARAMETER};
use crate::storage::keys::{self, DatabaseId, TableId};
use crate::storage::kv::KeyRange;
use crate::storage::values::ValueView;
use crate::store::{now_seconds, Store, WriteTxn};
use crate::warehouse::WarehouseReport;

/// The location whose data Hive deletes when `table` is dropped with
/// `deleteData`: managed tables', and external ones' with
/// `external.table.purge=true`; never a view's.
pub(crate) fn data_location_to_delete(table: &Table) -> Option<&str> {
    if table.is_view() || (table.is_external() && !table.is_external_table_purge()) {
        return None;
    }
    table
        .location()
        .filter(|location| !location.trim().is_empty())
}

/// What [`Store::drop_table_with_options`] removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedTable {
    /// The table as it was.
    pub table: Table,
    /// What happened to its data, with `delete_data`.
    pub warehouse: WarehouseReport,
}

/// The options of [`Store::drop_table_with_options`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DropTableOptions {
    /// Hive's `deleteData`: after the commit, delete the data of a managed
    /// table, or of an external one with `external.table.purge=true`.
    pub delete_data: bool,
}

/// A table checked and completed for its creation, with its name as the client gave it
/// (Hive's messages quote it so).
pub(crate) struct NewTable {
    table: Table,
    given_name: String,
}

/// Database `id` (named `catalog.name`), read in a write.
pub(crate) fn read_database(
    txn: &WriteTxn<'_>,
    catalog: &str,
    name: &str,
    id: DatabaseId,
) -> Result<Database> {
    txn.view::<Database>(&keys::database_key(id))?
        .ok_or_else(|| dangling_index(catalog, name, id))?
        .to_owned()
}

impl Store {
    /// Creates `table` in `table.cat_name` (empty means `hive`) and
    /// `table.db_name`, as Hive's `create_table`:
    ///
    /// - names are normalised and validated, column and partition key names
    ///   lowercased, column types checked against Hive's grammar
    ///   (`InvalidObject` with Hive's message);
    /// - the table type is reconciled with parameter `EXTERNAL`;
    /// - without a location, a table (not a view) gets
    ///   `<database location>/<table>`, and its directory is made;
    /// - the id and create time are assigned, `transient_lastDdlTime` set if
    ///   absent.
    ///
    /// Returns the table as stored.
    pub fn create_table(&self, table: Table) -> Result<Table> {
        let prepared = self.prepare_table_for_create(table)?;
        let mut undo = Vec::new();
        self.write_with_undo(&mut undo, |txn| Ok(self.stage_new_table(txn, prepared)?.1))
    }

    /// `table` checked and completed for [`Store::create_table`], before its write.
    pub(crate) fn prepare_table_for_create(&self, table: Table) -> Result<NewTable> {
        let mut table = table;
        // Hive validates the name as given, then stores it trimmed and lowercased; its
        // messages name the table as given.
        let given_name = table.table_name.clone();
        names::validate_table_name(&given_name)?;
        (table.cat_name, table.db_name, table.table_name) =
            normalize_names(&table.cat_name, &table.db_name, &table.table_name);
        table_rules::prepare_for_create(&mut table)?;
        crate::catalog::transactional::check_create(&mut table)?;
        self.options().value_limits.check_table(&table)?;
        let now = now_seconds();
        table.create_time = now;
        table
            .parameters
            .entry(DDL_TIME_PARAMETER.to_string())
            .or_insert_with(|| now.to_string());
        Ok(NewTable { table, given_name })
    }

    /// Stages the creation of a prepared table in `txn` (its directory made, its
    /// `CREATE_TABLE` event logged); returns its id and the table as stored.
    pub(crate) fn stage_new_table(
        &self,
        txn: &mut WriteTxn<'_>,
        prepared: NewTable,
    ) -> Result<(TableId, Table)> {
        let NewTable {
            mut table,
            given_name,
        } = prepared;
        let database_id = require_database_id(txn.reader(), &table.cat_name, &table.db_name)?;
        let database = read_database(txn, &table.cat_name, &table.db_name, database_id)?;
        // HIVE-24425: a remote database's tables are its source's, never created here.
        if database.database_type == Some(crate::model::database::DatabaseType::Remote) {
            return Err(Error::Refused(format!(
                "Create table in REMOTE database {} is not allowed",
                database.name
            )));
        }
        let name_key = keys::table_name_key(database_id, &table.table_name);
        if txn.get(&name_key)?.is_some() {
            return Err(Error::AlreadyExists(format!(
                "Table {}.{}.{given_name} already exists",
                table.cat_name, table.db_name
            )));
        }
        table_rules::fill_default_location(&mut table, &database);
        table_rules::check_location(&table)?;
        let mut made_dir = false;
        if let (false, Some(location)) = (table.is_view(), table.location()) {
            let made = self
                .warehouse()
                .make_dir(location)
                .map_err(Error::Refused)?;
            made_dir = made.is_some();
            txn.record_undo(made);
        }
        crate::stats::update_table_stats_on_create(self, &mut table, made_dir);
        let id = TableId(txn.allocate_id());
        table.id = i64::try_from(id.0)
            .map_err(|_| Error::Internal(format!("table id {} overflows i64", id.0)))?;
        txn.put_raw(name_key, id.0.to_be_bytes().to_vec());
        txn.put_value(keys::table_key(id), &table)?;
        crate::grants::stage_table_privileges(txn, &table, table.create_time)?;
        crate::stats::record_view_sources(txn, id, &table)?;
        let body = EventBody::Table {
            before: None,
            after: table.clone(),
            is_truncate: false,
        };
        txn.emit(EventRecord::of_table(EventKind::CreateTable, &table, body))?;
        Ok((id, table))
    }

    /// Table `catalog.database.name`, read in place.
    pub fn get_table_view(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
    ) -> Result<ValueView<Table>> {
        let (catalog, database, name) = normalize_names(catalog, database, name);
        // A missing database reads as a missing table, as Hive reports it.
        let database_id = find_database_id(self.reader(), &catalog, &database)?
            .ok_or_else(|| table_not_found(&catalog, &database, &name))?;
        let id = find_table_id(self.reader(), database_id, &name)?
            .ok_or_else(|| table_not_found(&catalog, &database, &name))?;
        self.view::<Table>(&keys::table_key(id))?
            .ok_or_else(|| dangling_table_index(database_id, &name, id))
    }

    /// Table `catalog.database.name`.
    /// A materialized view comes with its source tables (`CreationMetadata::source_tables`).
    pub fn get_table(&self, catalog: &str, database: &str, name: &str) -> Result<Table> {
        let mut table = self.get_table_view(catalog, database, name)?.to_owned()?;
        if let Some(metadata) = &mut table.creation_metadata {
            let id = TableId(table.id.unsigned_abs());
            self.fill_view_sources(id, metadata)?;
        }
        Ok(table)
    }

    /// The names of the tables of `catalog.database`, ascending.
    /// A database that does not exist has no tables, as Hive answers.
    pub fn list_tables(&self, catalog: &str, database: &str) -> Result<Vec<String>> {
        let (catalog, database) = (catalog_or_default(catalog), names::normalize(database));
        let database_id = match require_database_id(self.reader(), &catalog, &database) {
            Ok(id) => id,
            Err(Error::NoSuchObject(_)) => return Ok(Vec::new()),
            Err(error) => return Err(error),
        };
        self.scan(KeyRange::prefix(&keys::table_name_prefix(database_id)))
            .map(|entry| {
                entry
                    .and_then(|(key, _)| keys::decode_table_name_key(&key))
                    .map(|(_, name)| name)
            })
            .collect()
    }

    /// Every table of `catalog.database`, by name, read in place.
    pub fn table_views(&self, catalog: &str, database: &str) -> Result<Vec<ValueView<Table>>> {
        let (catalog, database) = (catalog_or_default(catalog), names::normalize(database));
        let database_id = require_database_id(self.reader(), &catalog, &database)?;
        self.table_views_of(database_id)
    }

    /// Every table of database `database_id`, by name, read in place.
    pub(crate) fn table_views_of(&self, database_id: DatabaseId) -> Result<Vec<ValueView<Table>>> {
        let mut views = Vec::new();
        for entry in self.scan(KeyRange::prefix(&keys::table_name_prefix(database_id))) {
            let (key, stored) = entry?;
            let (_, name) = keys::decode_table_name_key(&key)?;
            let id = TableId(keys::decode_id_value(&key, &stored)?);
            let view = self.view::<Table>(&keys::table_key(id))?;
            views.push(view.ok_or_else(|| dangling_table_index(database_id, &name, id))?);
        }
        Ok(views)
    }

    /// Drops table `catalog.database.name` with its partitions, metadata only
    /// (Hive's `deleteData=false`); returns it.
    pub fn drop_table(&self, catalog: &str, database: &str, name: &str) -> Result<Table> {
        let options = DropTableOptions::default();
        Ok(self
            .drop_table_with_options(catalog, database, name, &options)?
            .table)
    }

    /// Drops table `catalog.database.name` with its partitions. With
    /// `delete_data`, once the drop is committed, the data of a managed
    /// table (or of an external one with `external.table.purge=true`) is
    /// removed; failures there are reported, never undoing the drop.
    pub fn drop_table_with_options(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        options: &DropTableOptions,
    ) -> Result<DroppedTable> {
        let (catalog, database, name) = normalize_names(catalog, database, name);
        let (table, partition_locations) = self.write(|txn| {
            let database_id = require_database_id(txn.reader(), &catalog, &database)?;
            let id = find_table_id(txn.reader(), database_id, &name)?
                .ok_or_else(|| table_not_found(&catalog, &database, &name))?;
            let table = drop_table_keys(txn, database_id, &name, id)?;
            // Hive deletes partitions outside the table directory one by one.
            let outside = match (options.delete_data, data_location_to_delete(&table)) {
                (true, Some(location)) => {
                    crate::partitions::partitioned::partition_locations_outside(
                        txn.reader(),
                        id,
                        Some(location),
                    )?
                }
                _ => Vec::new(),
            };
            if let (true, Some(location)) = (options.delete_data, data_location_to_delete(&table)) {
                let doomed = outside.iter().map(String::as_str).chain([location]);
                self.warehouse()
                    .confine_all(Action::Delete, doomed.clone())
                    .map_err(Error::Refused)?;
                let doomed = doomed.map(|location| (location, location));
                let doomed = crate::catalog::dir_users::DoomedDirs::new(self.warehouse(), doomed);
                let dropping = format!("table {}", table.qualified_name());
                doomed.refuse_live_tables(txn, &dropping, |other| {
                    other.qualified_name() == table.qualified_name()
                })?;
            }
            Ok((table, outside))
        })?;
        self.finish_removals();
        let mut warehouse = WarehouseReport::default();
        if let (true, Some(location)) = (options.delete_data, data_location_to_delete(&table)) {
            let protected = [self.options().warehouse_root.as_str()];
            for partition_location in &partition_locations {
                self.warehouse()
                    .remove_dir(partition_location, &protected, &mut warehouse);
            }
            self.warehouse()
                .remove_dir(location, &protected, &mut warehouse);
        }
        Ok(DroppedTable { table, warehouse })
    }
}

/// Stages the removal of table `id` (name index, value) and schedules its
/// partitions' (deleted after the commit by [`Store::sweep_pending_removals`]).
fn drop_table_keys(
    txn: &mut WriteTxn<'_>,
    database: DatabaseId,
    name: &str,
    id: TableId,
) -> Result<Table> {
    let key = keys::table_key(id);
    let old = txn
        .view::<Table>(&key)?
        .ok_or_else(|| dangling_table_index(database, name, id))?;
    let old = old.to_owned()?;
    crate::catalog::removal::schedule_partition_removal(txn, id);
    crate::grants::stage_drop_table_grants(txn, &old.cat_name, &old.db_name, &old.table_name)?;
    crate::constraints::drop::remove_table_constraints(txn, id)?;
    txn.delete(keys::table_name_key(database, name));
    txn.delete(key);
    // Hive logs a dropped table's partitions with it, not one by one.
    let body = EventBody::Table {
        before: None,
        after: old.clone(),
        is_truncate: false,
    };
    txn.emit(EventRecord::of_table(EventKind::DropTable, &old, body))?;
    Ok(old)
}

/// Stages the removal of every table named in `table_names` (a range of
/// `database`'s table name index); returns them.
pub(crate) fn drop_all_tables(
    txn: &mut WriteTxn<'_>,
    database: DatabaseId,
    table_names: KeyRange,
) -> Result<Vec<Table>> {
    let entries: Vec<_> = txn.scan(table_names).collect::<Result<_>>()?;
    let mut tables = Vec::with_capacity(entries.len());
    for (key, stored) in entries {
        let (_, name) = keys::decode_table_name_key(&key)?;
        let id = TableId(keys::decode_id_value(&key, &stored)?);
        tables.push(drop_table_keys(txn, database, &name, id)?);
    }
    Ok(tables)
}
