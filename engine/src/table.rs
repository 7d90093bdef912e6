//! Tables: named within a database, stored under a surrogate id that their
//! partitions hang off, so a rename rewrites a handful of keys.

use std::collections::BTreeMap;

use rkyv::{Archive, Deserialize, Serialize};

use crate::database::{catalog_or_default, require_database_id};
use crate::error::{Error, Result};
use crate::keys::{self, DatabaseId, TableId};
use crate::kv::{KeyRange, KvBackend};
use crate::names;
use crate::principal::{PrincipalPrivilegeSet, PrincipalType};
use crate::store::{now_seconds, Store, WriteTxn};
use crate::values::{stored_value, ValueKind, ValueView};

/// The table parameter Hive keeps the last DDL time in (seconds, decimal).
pub const DDL_TIME_PARAMETER: &str = "transient_lastDdlTime";
/// The table type of views, which may change their partition keys.
pub const VIRTUAL_VIEW: &str = "VIRTUAL_VIEW";

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

/// Hive's `CreationMetadata` (materialized views), without `sourceTables`.
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
}

fn table_not_found(catalog: &str, database: &str, table: &str) -> Error {
    Error::NoSuchObject(format!("{catalog}.{database}.{table} table not found"))
}

/// The id of table `name` in database `database`, if it exists.
fn find_table_id(
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

fn dangling_table_index(database: DatabaseId, name: &str, id: TableId) -> Error {
    let key = keys::table_name_key(database, name);
    Error::corruption(&key, format!("names table id {} which has no value", id.0))
}

/// Normalised `(catalog, database, table)` names.
fn normalize_names(catalog: &str, database: &str, table: &str) -> (String, String, String) {
    (
        catalog_or_default(catalog),
        names::normalize(database),
        names::normalize(table),
    )
}

impl Store {
    /// Creates `table` in `table.cat_name` (empty means `hive`) and
    /// `table.db_name`. Names are normalised and validated, the id and create
    /// time assigned, and `transient_lastDdlTime` set if absent. Returns the
    /// table as stored.
    pub fn create_table(&self, table: Table) -> Result<Table> {
        let mut table = table;
        (table.cat_name, table.db_name, table.table_name) =
            normalize_names(&table.cat_name, &table.db_name, &table.table_name);
        names::validate_table_name(&table.table_name)?;
        let now = now_seconds();
        table.create_time = now;
        table
            .parameters
            .entry(DDL_TIME_PARAMETER.to_string())
            .or_insert_with(|| now.to_string());
        self.write(|txn| {
            let database = require_database_id(txn.reader(), &table.cat_name, &table.db_name)?;
            let name_key = keys::table_name_key(database, &table.table_name);
            if txn.get(&name_key)?.is_some() {
                return Err(Error::AlreadyExists(format!(
                    "Table {} already exists",
                    table.qualified_name()
                )));
            }
            let id = TableId(txn.allocate_id());
            table.id = i64::try_from(id.0)
                .map_err(|_| Error::Internal(format!("table id {} overflows i64", id.0)))?;
            txn.put_raw(name_key, id.0.to_be_bytes().to_vec());
            txn.put_value(keys::table_key(id), &table)?;
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
        let database_id = require_database_id(self.reader(), &catalog, &database)?;
        let id = find_table_id(self.reader(), database_id, &name)?
            .ok_or_else(|| table_not_found(&catalog, &database, &name))?;
        self.view::<Table>(&keys::table_key(id))?
            .ok_or_else(|| dangling_table_index(database_id, &name, id))
    }

    /// Table `catalog.database.name`.
    pub fn get_table(&self, catalog: &str, database: &str, name: &str) -> Result<Table> {
        self.get_table_view(catalog, database, name)?.to_owned()
    }

    /// The names of the tables of `catalog.database`, ascending.
    pub fn list_tables(&self, catalog: &str, database: &str) -> Result<Vec<String>> {
        let (catalog, database) = (catalog_or_default(catalog), names::normalize(database));
        let database_id = require_database_id(self.reader(), &catalog, &database)?;
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

    /// Replaces table `catalog.database.name` with `table`, which may carry a
    /// new name and database (a rename moves only the name index). The id
    /// and create time are kept; the catalog and the partition keys (but for
    /// views) cannot change.
    pub fn alter_table(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        table: Table,
    ) -> Result<Table> {
        let (catalog, database, name) = normalize_names(catalog, database, name);
        let mut table = table;
        let new_catalog = catalog_or_default(&table.cat_name);
        if new_catalog != catalog {
            let message =
                format!("Cannot move table {catalog}.{database}.{name} to catalog {new_catalog}");
            return Err(Error::InvalidOperation(message));
        }
        (table.cat_name, table.db_name, table.table_name) =
            normalize_names(&catalog, &table.db_name, &table.table_name);
        names::validate_table_name(&table.table_name)?;
        self.write(|txn| {
            let old_database = require_database_id(txn.reader(), &catalog, &database)?;
            let missing = || {
                Error::InvalidOperation(format!("table {catalog}.{database}.{name} doesn't exist"))
            };
            let id = find_table_id(txn.reader(), old_database, &name)?.ok_or_else(missing)?;
            let old = txn.view::<Table>(&keys::table_key(id))?;
            let old = old
                .ok_or_else(|| dangling_table_index(old_database, &name, id))?
                .to_owned()?;
            check_alteration(&old, &table)?;
            let new_database = database_for_rename(txn, &table)?;
            let renamed = new_database != old_database || table.table_name != name;
            if renamed {
                move_name_index(txn, (old_database, &name), (new_database, &table), id)?;
            }
            table.id = old.id;
            table.create_time = old.create_time;
            let now = now_seconds().to_string();
            table
                .parameters
                .entry(DDL_TIME_PARAMETER.to_string())
                .or_insert(now);
            txn.put_value(keys::table_key(id), &table)?;
            Ok(table)
        })
    }

    /// Drops table `catalog.database.name` with its partitions; returns it.
    pub fn drop_table(&self, catalog: &str, database: &str, name: &str) -> Result<Table> {
        let (catalog, database, name) = normalize_names(catalog, database, name);
        self.write(|txn| {
            let database_id = require_database_id(txn.reader(), &catalog, &database)?;
            let id = find_table_id(txn.reader(), database_id, &name)?
                .ok_or_else(|| table_not_found(&catalog, &database, &name))?;
            drop_table_keys(txn, database_id, &name, id)
        })
    }
}

/// Hive's rules on what an alter may change, besides names.
fn check_alteration(old: &Table, new: &Table) -> Result<()> {
    let is_view = old.table_type.as_deref() == Some(VIRTUAL_VIEW);
    if !is_view && old.partition_keys != new.partition_keys {
        return Err(Error::InvalidOperation(
            "partition keys can not be changed.".to_string(),
        ));
    }
    Ok(())
}

/// The id of the database `table` is to live in after an alter.
fn database_for_rename(txn: &WriteTxn<'_>, table: &Table) -> Result<DatabaseId> {
    require_database_id(txn.reader(), &table.cat_name, &table.db_name).map_err(|_| {
        let message = format!(
            "Unable to change partition or table. Database {} does not exist",
            table.db_name
        );
        Error::InvalidOperation(message)
    })
}

/// Moves the name index entry of table `id` from `from` to `to`.
fn move_name_index(
    txn: &mut WriteTxn<'_>,
    from: (DatabaseId, &str),
    to: (DatabaseId, &Table),
    id: TableId,
) -> Result<()> {
    let (to_database, table) = to;
    let new_key = keys::table_name_key(to_database, &table.table_name);
    if txn.get(&new_key)?.is_some() {
        let message = format!(
            "new table {}.{} already exists",
            table.db_name, table.table_name
        );
        return Err(Error::InvalidOperation(message));
    }
    txn.delete(keys::table_name_key(from.0, from.1));
    txn.put_raw(new_key, id.0.to_be_bytes().to_vec());
    Ok(())
}

/// Stages the removal of table `id` (name index, value, partitions).
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
    txn.delete_range(KeyRange::prefix(&keys::partition_prefix(id)))?;
    txn.delete(keys::table_name_key(database, name));
    txn.delete(key);
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
