//! `alter_table` and `truncate_table`, as Hive's `HiveAlterHandler` and
//! `HMSHandler.truncate_table` do them.

use crate::catalog::column_type;
use crate::catalog::lookup::{
    dangling_table_index, find_table_id, normalize_names, table_not_found,
};
use crate::catalog::lookup::{find_database_id, require_database_id};
use crate::catalog::table_rules;
use crate::catalog::tables::read_database;
use crate::confinement::Action;
use crate::error::{Error, Result};
use crate::events::{EventBody, EventKind, EventRecord};
use crate::model::database::Database;
use crate::model::names;
use crate::model::table::{Table, DDL_TIME_PARAMETER};
use crate::stats::StatsContext;
use crate::storage::keys::{self, DatabaseId, TableId};
use crate::store::{now_seconds, Store, WriteTxn};
use crate::warehouse::normalize_location;

/// The options of [`Store::alter_table_with_options`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AlterTableOptions {
    /// Hive's `cascade` (environment context `CASCADE=true`): push column
    /// changes to every partition. Accepted; partitions do not store their
    /// own columns yet, so it changes nothing today.
    pub cascade: bool,
    /// Hive 4's compare-and-set (environment context keys
    /// `expected_parameter_key` / `expected_parameter_value`, or
    /// `AlterTableRequest` fields 10 and 11): the alter applies only if the
    /// stored table's parameter has this value, checked atomically with it.
    pub expected_parameter: Option<ExpectedParameter>,
    /// What the environment context says about statistics (`DO_NOT_UPDATE_STATS`,
    /// `STATS_GENERATED`): an alter that is not a rename of an unpartitioned table relists
    /// its fast statistics and updates `COLUMN_STATS_ACCURATE` unless told not to.
    pub stats: StatsContext,
    /// Hive's `metastore.disallow.incompatible.col.type.changes` for this alter, when the
    /// caller set it for its connection (`setMetaConf`); the store's setting otherwise.
    pub disallow_incompatible_col_type_changes: Option<bool>,
}

/// A table parameter the stored table must have for an alter to apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedParameter {
    /// The parameter name, e.g. `metadata_location` (Iceberg).
    pub key: String,
    /// The value it must have.
    pub value: String,
}

/// The names of an alter: where the table is, and what it becomes.
struct AlterNames {
    catalog: String,
    database: String,
    name: String,
}

impl AlterNames {
    fn missing(&self) -> Error {
        Error::InvalidOperation(format!(
            "table {}.{}.{} doesn't exist",
            self.catalog, self.database, self.name
        ))
    }

    fn renamed(&self, table: &Table) -> bool {
        table.db_name != self.database || table.table_name != self.name
    }
}

impl Store {
    /// [`Store::alter_table_with_options`] with no options.
    pub fn alter_table(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        table: Table,
    ) -> Result<Table> {
        self.alter_table_with_options(
            catalog,
            database,
            name,
            table,
            &AlterTableOptions::default(),
        )
    }

    /// Replaces table `catalog.database.name` with `table`, as Hive's
    /// `alter_table`: a full replacement, not a merge.
    ///
    /// - An empty catalog, database or name in `table` means unchanged; a
    ///   new database or name renames the table (across databases too).
    /// - Checked as on create (names, column types, duplicates), failing
    ///   with `InvalidOperation` as Hive's alter handler does; the table type
    ///   is reconciled with `EXTERNAL`.
    /// - Partition keys cannot change (but for views); column types may
    ///   change only compatibly, unless the store allows it.
    /// - `options.expected_parameter` is Hive 4's compare-and-set.
    /// - Renaming a managed table at its default location moves its
    ///   directory to the new default location, before the commit, and back
    ///   if the commit fails.
    /// - The id and create time are kept; `transient_lastDdlTime` is set to
    ///   now only if `table` lacks it.
    /// - Unless it renames, an alter of an unpartitioned table does Hive's
    ///   statistics work as `options.stats` allows: fast statistics relisted,
    ///   `COLUMN_STATS_ACCURATE` updated (`crate::stats` `basic.rs`).
    pub fn alter_table_with_options(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        table: Table,
        options: &AlterTableOptions,
    ) -> Result<Table> {
        let (catalog, database, name) = normalize_names(catalog, database, name);
        let names = AlterNames {
            catalog,
            database,
            name,
        };
        let table = normalize_new_table(&names, table)?;
        self.options().value_limits.check_table(&table)?;
        let mut undo = Vec::new();
        self.write_with_undo(&mut undo, |txn| {
            self.apply_alter(txn, &names, table, options)
        })
    }

    fn apply_alter(
        &self,
        txn: &mut WriteTxn<'_>,
        names: &AlterNames,
        mut table: Table,
        options: &AlterTableOptions,
    ) -> Result<Table> {
        // The table altered must exist before its new name is checked: Hive's handler reads
        // the old table first (for its pre-event), so that is the error a client sees.
        let old_database = find_database_id(txn.reader(), &names.catalog, &names.database)?
            .ok_or_else(|| names.missing())?;
        let id = find_table_id(txn.reader(), old_database, &names.name)?
            .ok_or_else(|| names.missing())?;
        let rename = names.renamed(&table);
        let new_database = if rename {
            rename_target(txn, names, &table)?
        } else {
            old_database
        };
        let old = txn
            .view::<Table>(&keys::table_key(id))?
            .ok_or_else(|| dangling_table_index(old_database, &names.name, id))?
            .to_owned()?;
        check_expected_parameter(&old, &table, options)?;
        crate::catalog::transactional::check_alter(&old, &mut table)?;
        let disallow = options
            .disallow_incompatible_col_type_changes
            .unwrap_or(self.options().disallow_incompatible_col_type_changes);
        if disallow && !old.is_view() {
            let columns = |table: &Table| table.sd.as_ref().map(|sd| sd.cols.clone());
            let (old_columns, new_columns) = (columns(&old), columns(&table));
            column_type::check_type_changes(
                old_columns.as_deref().unwrap_or_default(),
                new_columns.as_deref().unwrap_or_default(),
            )?;
        }
        check_partition_keys(&old, &table)?;
        self.warehouse()
            .confine_relocation(old.location(), table.location())
            .map_err(Error::Refused)?;
        crate::constraints::altered_columns::forget_removed_columns(txn, id, &old, &table)?;
        if rename {
            self.move_renamed_data(txn, names, (&old, old_database), (&mut table, new_database))?;
            txn.delete(keys::table_name_key(old_database, &names.name));
            let new_key = keys::table_name_key(new_database, &table.table_name);
            txn.put_raw(new_key, id.0.to_be_bytes().to_vec());
            crate::grants::stage_rename_table_grants(
                txn,
                (&names.catalog, &names.database, &names.name),
                (&table.cat_name, &table.db_name, &table.table_name),
            )?;
        }
        crate::stats::forget_altered_columns(txn, id, &old, &mut table)?;
        if !rename {
            crate::stats::update_table_stats_on_alter(self, &mut table, &options.stats);
        }
        table.id = old.id;
        table.create_time = old.create_time;
        let now = now_seconds().to_string();
        table
            .parameters
            .entry(DDL_TIME_PARAMETER.to_string())
            .or_insert(now);
        txn.put_value(keys::table_key(id), &table)?;
        // Hive names the table as it was before a rename.
        let body = EventBody::Table {
            before: Some(old.clone()),
            after: table.clone(),
            is_truncate: false,
        };
        txn.emit(EventRecord::of_table(EventKind::AlterTable, &old, body))?;
        Ok(table)
    }

    /// Hive's rename rule: a managed table (not a view) whose location is
    /// unchanged (or emptied) and is its default location gets the new
    /// default location, and its directory moves there. Locations hivestore
    /// does not manage keep their place.
    fn move_renamed_data(
        &self,
        txn: &mut WriteTxn<'_>,
        names: &AlterNames,
        old: (&Table, DatabaseId),
        new: (&mut Table, DatabaseId),
    ) -> Result<()> {
        let ((old, old_database_id), (table, new_database_id)) = (old, new);
        let Some(old_location) = old.location() else {
            return Ok(());
        };
        let location_kept = table.location().is_none_or(|location| {
            normalize_location(location) == normalize_location(old_location)
        });
        if old.is_view() || old.is_external() || !location_kept {
            return Ok(());
        }
        let old_database = read_database(txn, &names.catalog, &names.database, old_database_id)?;
        let old_default = table_rules::default_table_location(&old_database, &names.name, true);
        let at_default = old_default.is_some_and(|default| {
            normalize_location(&default) == normalize_location(old_location)
        });
        if !at_default || !self.warehouse().handles(old_location) {
            return Ok(());
        }
        let new_database = read_database(txn, &names.catalog, &table.db_name, new_database_id)?;
        let Some(new_location) = new_default_location(&new_database, table) else {
            return Ok(());
        };
        self.move_table_dir(txn, names, old_location, &new_location, table)?;
        let id = TableId(u64::try_from(old.id).unwrap_or_default());
        crate::partitions::write::relocate_partitions(txn, id, old_location, &new_location)?;
        if let Some(sd) = table.sd.as_mut() {
            sd.location = Some(new_location);
        }
        Ok(())
    }

    fn move_table_dir(
        &self,
        txn: &mut WriteTxn<'_>,
        names: &AlterNames,
        from: &str,
        to: &str,
        table: &Table,
    ) -> Result<()> {
        self.warehouse()
            .confine_all(Action::Move, [from, to])
            .map_err(Error::Refused)?;
        let exists = self
            .warehouse()
            .exists(to)
            .map_err(Error::InvalidOperation)?;
        if exists {
            return Err(Error::InvalidOperation(format!(
                "New location for this table {}.{}.{} already exists : {to}",
                names.catalog, table.db_name, table.table_name
            )));
        }
        let moved = self.warehouse().move_dir(from, to).map_err(|reason| {
            Error::InvalidOperation(format!(
                "Alter Table operation for {}.{} failed to move data due to: '{reason}' \
                 See hive log file for details.",
                names.database, names.name
            ))
        })?;
        txn.record_undo(moved);
        Ok(())
    }

    /// Hive's `truncate_table` for a whole table: the files inside a managed
    /// table's directory are deleted (the directory stays), and its basic
    /// statistics reset as Hive 4 resets them (see
    /// [`Store::truncate_partitions`]). External tables (unless
    /// `external.table.purge=true`) and views are refused with Hive's
    /// message. Returns the table as stored.
    pub fn truncate_table(&self, catalog: &str, database: &str, name: &str) -> Result<Table> {
        self.truncate_partitions(catalog, database, name, &[])
    }

    /// Hive's `truncate_table` with partition names: the files of the
    /// partitions named (of every partition when `partition_names` is empty)
    /// are deleted, their directories kept; names of no partition are
    /// skipped. A table without partition keys is truncated whole, and may
    /// name no partitions.
    ///
    /// Statistics as Hive 4's truncate handler leaves them: in the parameters
    /// of each partition truncated (of the table, when it has no partition
    /// keys) every basic statistic present becomes `0` and
    /// `COLUMN_STATS_ACCURATE` is `{"BASIC_STATS":"true"}`; the column
    /// statistics stay, no longer marked accurate. A partitioned table's own
    /// parameters are not touched. Each partition gets a new
    /// `transient_lastDdlTime` and an `ALTER_PARTITION` event; an
    /// unpartitioned table an `ALTER_TABLE` event.
    pub fn truncate_partitions(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partition_names: &[String],
    ) -> Result<Table> {
        let (catalog, database, name) = normalize_names(catalog, database, name);
        let table = self.get_table(&catalog, &database, &name)?;
        if table.is_view() || (table.is_external() && !table.is_external_table_purge()) {
            return Err(Error::InvalidOperation(format!(
                "Cannot truncate non-managed table {name}."
            )));
        }
        if table.partition_keys.is_empty() {
            if !partition_names.is_empty() {
                return Err(Error::InvalidOperation(format!(
                    "Table {catalog}.{database}.{name} has no partitions to truncate"
                )));
            }
            if let Some(location) = table.location() {
                self.warehouse()
                    .confine(Action::Empty, location)
                    .map_err(Error::Refused)?;
                self.warehouse()
                    .empty_dir(location)
                    .map_err(Error::Refused)?;
            }
            return self.write(|txn| {
                let database_id = require_database_id(txn.reader(), &catalog, &database)?;
                let id = find_table_id(txn.reader(), database_id, &name)?
                    .ok_or_else(|| table_not_found(&catalog, &database, &name))?;
                reset_stats_parameters(txn, database_id, &name, id)
            });
        }
        let partition_names: Vec<&str> = partition_names.iter().map(String::as_str).collect();
        let selection = if partition_names.is_empty() {
            crate::partitions::list::PartitionSelection::All
        } else {
            crate::partitions::list::PartitionSelection::Names(&partition_names)
        };
        let mut partitions =
            self.list_partitions_selected(&catalog, &database, &name, selection, -1, true)?;
        let locations = partitions
            .iter()
            .filter_map(crate::model::partition::Partition::location);
        self.warehouse()
            .confine_all(Action::Empty, locations)
            .map_err(Error::Refused)?;
        for location in partitions
            .iter()
            .filter_map(crate::model::partition::Partition::location)
        {
            self.warehouse()
                .empty_dir(location)
                .map_err(Error::Refused)?;
        }
        let now = now_seconds().to_string();
        for partition in &mut partitions {
            crate::stats::reset_stats_for_truncate(&mut partition.parameters);
            partition
                .parameters
                .insert(DDL_TIME_PARAMETER.to_string(), now.clone());
        }
        self.truncate_partition_parameters(&catalog, &database, &name, partitions)?;
        Ok(table)
    }
}

/// The new table of an alter, with unchanged parts filled in and Hive's
/// checks applied.
fn normalize_new_table(names: &AlterNames, mut table: Table) -> Result<Table> {
    let new_catalog = names::normalize(&table.cat_name);
    if !new_catalog.is_empty() && new_catalog != names.catalog {
        return Err(Error::InvalidOperation(format!(
            "Tables cannot be moved between catalogs, old catalog{}, new catalog {new_catalog}",
            names.catalog
        )));
    }
    table.cat_name = names.catalog.clone();
    table.db_name = non_empty_or(&table.db_name, &names.database);
    table.table_name = non_empty_or(&table.table_name, &names.name);
    if names::validate_table_name(&table.table_name).is_err() {
        return Err(Error::InvalidOperation(format!(
            "{} is not a valid object name",
            table.table_name
        )));
    }
    table_rules::prepare_for_alter(&mut table)?;
    Ok(table)
}

fn non_empty_or(name: &str, default: &str) -> String {
    let name = names::normalize(name);
    if name.is_empty() {
        default.to_string()
    } else {
        name
    }
}

/// The database a renamed table moves to; its new name must be free.
fn rename_target(txn: &WriteTxn<'_>, names: &AlterNames, table: &Table) -> Result<DatabaseId> {
    let Some(database) = find_database_id(txn.reader(), &names.catalog, &table.db_name)? else {
        return Err(Error::InvalidOperation(format!(
            "Unable to change partition or table. Database {} does not exist Check metastore \
             logs for detailed stack.database {}.{}",
            names.database, names.catalog, table.db_name
        )));
    };
    if find_table_id(txn.reader(), database, &table.table_name)?.is_some() {
        return Err(Error::InvalidOperation(format!(
            "new table {}.{} already exists",
            table.db_name, table.table_name
        )));
    }
    Ok(database)
}

/// Hive 4's compare-and-set (HIVE-26882), with its exact messages: Iceberg
/// retries a commit whose error contains `The table has been modified. The
/// parameter value for key '<k>' is`.
fn check_expected_parameter(old: &Table, new: &Table, options: &AlterTableOptions) -> Result<()> {
    let Some(expected) = &options.expected_parameter else {
        return Ok(());
    };
    if !new.parameters.contains_key(&expected.key) {
        return Err(Error::Refused(format!(
            "New value for expected key {} is not set",
            expected.key
        )));
    }
    let current = old.parameters.get(&expected.key);
    if current != Some(&expected.value) {
        return Err(Error::Refused(format!(
            "The table has been modified. The parameter value for key '{}' is '{}'. \
             The expected was value was '{}'",
            expected.key,
            current.map_or("null", String::as_str),
            expected.value
        )));
    }
    Ok(())
}

/// Partition keys may not change, but for views; comments may.
fn check_partition_keys(old: &Table, new: &Table) -> Result<()> {
    let same_keys = old.partition_keys.len() == new.partition_keys.len()
        && old
            .partition_keys
            .iter()
            .zip(&new.partition_keys)
            .all(|(old, new)| old.name == new.name && old.type_name == new.type_name);
    if old.is_view() || same_keys {
        return Ok(());
    }
    Err(Error::InvalidOperation(
        "partition keys can not be changed.".to_string(),
    ))
}

fn new_default_location(database: &Database, table: &Table) -> Option<String> {
    table_rules::default_table_location(database, &table.table_name, true)
}

fn reset_stats_parameters(
    txn: &mut WriteTxn<'_>,
    database: DatabaseId,
    name: &str,
    id: TableId,
) -> Result<Table> {
    let key = keys::table_key(id);
    let mut table = txn
        .view::<Table>(&key)?
        .ok_or_else(|| dangling_table_index(database, name, id))?
        .to_owned()?;
    let before = table.clone();
    crate::stats::reset_stats_for_truncate(&mut table.parameters);
    txn.put_value(key, &table)?;
    let body = EventBody::Table {
        before: Some(before),
        after: table.clone(),
        is_truncate: true,
    };
    txn.emit(EventRecord::of_table(EventKind::AlterTable, &table, body))?;
    Ok(table)
}
