//! Tables: named within a database, stored under a surrogate id that their
//! partitions hang off, so a rename rewrites a handful of keys.

use std::collections::BTreeMap;

use rkyv::{Archive, Deserialize, Serialize};

use crate::database::{
    catalog_or_default, dangling_index, find_database_id, require_database_id, Database,
};
use crate::error::{Error, Result};
use crate::events::{EventBody, EventKind, EventRecord};
use crate::keys::{self, DatabaseId, TableId};
use crate::kv::{KeyRange, KvBackend};
use crate::names;
use crate::principal::{PrincipalPrivilegeSet, PrincipalType};
use crate::store::{now_seconds, Store, WriteTxn};
use crate::table_rules;
use crate::values::{stored_value, ValueKind, ValueView};
use crate::warehouse::WarehouseReport;

/// The table parameter Hive keeps the last DDL time in (seconds, decimal).
pub const DDL_TIME_PARAMETER: &str = "transient_lastDdlTime";
/// The table type of views: no location, no directory, and they may change
/// their partition keys and column types.
pub const VIRTUAL_VIEW: &str = "VIRTUAL_VIEW";
/// The table type of tables whose data the metastore owns.
pub const MANAGED_TABLE: &str = "MANAGED_TABLE";
/// The table type of tables whose data the metastore does not own.
pub const EXTERNAL_TABLE: &str = "EXTERNAL_TABLE";
/// The table type of materialized views (stored like managed tables).
pub const MATERIALIZED_VIEW: &str = "MATERIALIZED_VIEW";
/// The table parameter that makes a table external (`TRUE`, any case).
pub const EXTERNAL_PARAMETER: &str = "EXTERNAL";
/// The table parameter that makes dropping an external table delete its
/// data (`true`, any case).
pub const EXTERNAL_TABLE_PURGE_PARAMETER: &str = "external.table.purge";

/// Hive's `FieldSchema`: a column or partition key.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct FieldSchema {
    /// The column name.
    pub name: String,
    /// The type, verbatim (`varchar(10)`, `struct<a:int>`).
    pub type_name: String,
    /// A comment.
    pub comment: Option<String>,
}

/// Hive's `SerdeType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub enum SerdeType {
    /// A Hive SerDe class.
    Hive,
    /// A schema registry.
    SchemaRegistry,
}

/// Hive's `SerDeInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct SerDeInfo {
    /// The SerDe name.
    pub name: Option<String>,
    /// The SerDe class.
    pub serialization_lib: Option<String>,
    /// SerDe parameters.
    pub parameters: BTreeMap<String, String>,
    /// A description.
    pub description: Option<String>,
    /// The serializer class.
    pub serializer_class: Option<String>,
    /// The deserializer class.
    pub deserializer_class: Option<String>,
    /// The SerDe type.
    pub serde_type: Option<SerdeType>,
}

/// Hive's `Order`: a sort column.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct Order {
    /// The column.
    pub col: String,
    /// 1 ascending, 0 descending.
    pub order: i32,
}

/// One entry of `SkewedInfo.skewedColValueLocationMaps`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct SkewedValueLocation {
    /// The skewed values.
    pub values: Vec<String>,
    /// Their location.
    pub location: String,
}

/// Hive's `SkewedInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct SkewedInfo {
    /// The skewed columns.
    pub skewed_col_names: Vec<String>,
    /// The skewed value tuples.
    pub skewed_col_values: Vec<Vec<String>>,
    /// Value tuple → location.
    pub skewed_col_value_location_maps: Vec<SkewedValueLocation>,
}

/// Hive's `StorageDescriptor`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct StorageDescriptor {
    /// The columns.
    pub cols: Vec<FieldSchema>,
    /// The location; views have none.
    pub location: Option<String>,
    /// The input format class.
    pub input_format: Option<String>,
    /// The output format class.
    pub output_format: Option<String>,
    /// Whether the data is compressed.
    pub compressed: bool,
    /// The bucket count; -1 when not bucketed.
    pub num_buckets: i32,
    /// The SerDe.
    pub serde_info: Option<SerDeInfo>,
    /// The bucketing columns.
    pub bucket_cols: Vec<String>,
    /// The sort columns.
    pub sort_cols: Vec<Order>,
    /// Parameters.
    pub parameters: BTreeMap<String, String>,
    /// Skew information.
    pub skewed_info: Option<SkewedInfo>,
    /// Whether skewed data is stored in subdirectories.
    pub stored_as_sub_directories: Option<bool>,
}

/// A table a materialized view reads, and the rows transactions inserted, updated and deleted
/// in it as Hive counts them for the view (Hive 4's `SourceTable`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SourceTable {
    /// The table; on create only its database and name are read.
    pub table: Table,
    /// Rows inserted.
    pub inserted_count: i64,
    /// Rows updated.
    pub updated_count: i64,
    /// Rows deleted.
    pub deleted_count: i64,
}

/// Hive's `CreationMetadata` (materialized views).
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct CreationMetadata {
    /// The view's catalog.
    pub cat_name: String,
    /// The view's database.
    pub db_name: String,
    /// The view's name.
    pub tbl_name: String,
    /// The tables it reads, `db.table`.
    pub tables_used: Vec<String>,
    /// The transaction snapshot it was built at.
    pub valid_txn_list: Option<String>,
    /// When it was built.
    pub materialization_time: Option<i64>,
    /// The tables it reads with their counts. Not part of the table's record: stored apart
    /// (`stats/transactional.rs`), so the archive of a table is as it was; filled by
    /// [`Store::get_table`] and read by [`Store::create_table`].
    #[rkyv(with = rkyv::with::Skip)]
    pub source_tables: Option<Vec<SourceTable>>,
}

/// Hive's `FileMetadata`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct FileMetadata {
    /// The metadata type (1 = Impala).
    pub metadata_type: i8,
    /// The metadata version.
    pub version: i8,
    /// The serialized metadata.
    pub data: Vec<Vec<u8>>,
}

/// Hive's `Table`, as stored. Column statistics live apart.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct Table {
    /// The table name, normalised.
    pub table_name: String,
    /// The database name, normalised.
    pub db_name: String,
    /// The owner.
    pub owner: Option<String>,
    /// Creation time, seconds since the epoch; set on create.
    pub create_time: i32,
    /// Last access time; stored, never updated.
    pub last_access_time: i32,
    /// Retention.
    pub retention: i32,
    /// The storage descriptor.
    pub sd: Option<StorageDescriptor>,
    /// The partition keys.
    pub partition_keys: Vec<FieldSchema>,
    /// Parameters.
    pub parameters: BTreeMap<String, String>,
    /// A view's original text.
    pub view_original_text: Option<String>,
    /// A view's expanded text.
    pub view_expanded_text: Option<String>,
    /// `MANAGED_TABLE`, `EXTERNAL_TABLE`, `VIRTUAL_VIEW`, `MATERIALIZED_VIEW`.
    pub table_type: Option<String>,
    /// Privileges granted at creation.
    pub privileges: Option<PrincipalPrivilegeSet>,
    /// Whether the table is temporary.
    pub temporary: bool,
    /// Whether a materialized view may be used for rewriting.
    pub rewrite_enabled: Option<bool>,
    /// A materialized view's creation metadata.
    pub creation_metadata: Option<CreationMetadata>,
    /// The catalog, normalised; always set on stored tables.
    pub cat_name: String,
    /// The owner's principal type.
    pub owner_type: Option<PrincipalType>,
    /// The ACID write id; -1 when none.
    pub write_id: i64,
    /// The access type granted to the client.
    pub access_type: Option<i8>,
    /// Capabilities a client needs to read.
    pub required_read_capabilities: Option<Vec<String>>,
    /// Capabilities a client needs to write.
    pub required_write_capabilities: Option<Vec<String>>,
    /// The table id, assigned by the store; a caller's value is ignored.
    pub id: i64,
    /// File metadata for some engines.
    pub file_metadata: Option<FileMetadata>,
    /// Hive's `ObjectDictionary`: name → serialized objects.
    pub dictionary: Option<BTreeMap<String, Vec<Vec<u8>>>>,
    /// The transaction that created the table.
    pub txn_id: Option<i64>,
}

stored_value!(Table, ValueKind::Table);

impl Table {
    /// `cat.db.table`, as Hive's messages name a table.
    pub fn qualified_name(&self) -> String {
        format!("{}.{}.{}", self.cat_name, self.db_name, self.table_name)
    }

    /// Whether the table is a view (`VIRTUAL_VIEW`).
    pub fn is_view(&self) -> bool {
        self.table_type.as_deref() == Some(VIRTUAL_VIEW)
    }

    /// Hive's `isExternalTable`: parameter `EXTERNAL` is `TRUE`, any case.
    pub fn is_external(&self) -> bool {
        parameter_is_true(&self.parameters, EXTERNAL_PARAMETER)
    }

    /// Hive's `isExternalTablePurge`: `external.table.purge` is `true`.
    pub fn is_external_table_purge(&self) -> bool {
        parameter_is_true(&self.parameters, EXTERNAL_TABLE_PURGE_PARAMETER)
    }

    /// The storage location, if any.
    pub fn location(&self) -> Option<&str> {
        self.sd.as_ref().and_then(|sd| sd.location.as_deref())
    }
}

fn parameter_is_true(parameters: &BTreeMap<String, String>, key: &str) -> bool {
    parameters
        .get(key)
        .is_some_and(|value| value.eq_ignore_ascii_case("true"))
}

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
        let mut table = table;
        // Hive validates the name as given, then stores it trimmed and lowercased; its
        // messages name the table as given.
        let given_name = table.table_name.clone();
        names::validate_table_name(&given_name)?;
        (table.cat_name, table.db_name, table.table_name) =
            normalize_names(&table.cat_name, &table.db_name, &table.table_name);
        table_rules::prepare_for_create(&mut table)?;
        self.options().value_limits.check_table(&table)?;
        let now = now_seconds();
        table.create_time = now;
        table
            .parameters
            .entry(DDL_TIME_PARAMETER.to_string())
            .or_insert_with(|| now.to_string());
        let mut undo = Vec::new();
        self.write_with_undo(&mut undo, |txn| {
            let database_id = require_database_id(txn.reader(), &table.cat_name, &table.db_name)?;
            let name_key = keys::table_name_key(database_id, &table.table_name);
            if txn.get(&name_key)?.is_some() {
                return Err(Error::AlreadyExists(format!(
                    "Table {}.{}.{given_name} already exists",
                    table.cat_name, table.db_name
                )));
            }
            let database = read_database(txn, &table.cat_name, &table.db_name, database_id)?;
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
            crate::stats::record_view_sources(txn, id, &table)?;
            let body = EventBody::Table {
                before: None,
                after: table.clone(),
                is_truncate: false,
            };
            txn.emit(EventRecord::of_table(EventKind::CreateTable, &table, body))?;
            Ok(table)
        })
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
                (true, Some(location)) => crate::partition_write::partition_locations_outside(
                    txn.reader(),
                    id,
                    Some(location),
                )?,
                _ => Vec::new(),
            };
            if let (true, Some(location)) = (options.delete_data, data_location_to_delete(&table)) {
                let doomed = outside.iter().map(String::as_str).chain([location]);
                let doomed = doomed.map(|location| (location, location));
                let doomed = crate::dir_users::DoomedDirs::new(self.warehouse(), doomed);
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
    crate::removal::schedule_partition_removal(txn, id);
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
