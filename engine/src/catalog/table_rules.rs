//! Hive's rules for a table about to be stored: column names, column types,
//! the table type, the default location.

use crate::catalog::column_type;
use crate::error::{Error, Result};
use crate::model::database::Database;
use crate::model::table::{
    FieldSchema, StorageDescriptor, Table, EXTERNAL_TABLE, MANAGED_TABLE, VIRTUAL_VIEW,
};
use crate::warehouse::{is_root_location, join_location};

/// The checks and normalisation of `create_table`, failing with
/// `InvalidObject` and Hive's messages.
pub(crate) fn prepare_for_create(table: &mut Table) -> Result<()> {
    lowercase_column_names(table);
    column_type::validate_columns(columns(table), "Invalid column")?;
    column_type::validate_columns(&table.partition_keys, "Invalid partition column")?;
    reject_duplicates(table)?;
    reconcile_table_type(table);
    clear_blank_location(table);
    Ok(())
}

/// The checks and normalisation of `alter_table`: as on create, but Hive's
/// alter handler reports them as `InvalidOperation`, and checks only the
/// columns (not the partition keys, which may not change anyway).
pub(crate) fn prepare_for_alter(table: &mut Table) -> Result<()> {
    lowercase_column_names(table);
    let as_operation = |error: Error| match error {
        Error::InvalidObject(message) => Error::InvalidOperation(message),
        other => other,
    };
    column_type::validate_columns(columns(table), "Invalid column").map_err(as_operation)?;
    reject_duplicates(table).map_err(as_operation)?;
    reconcile_table_type(table);
    clear_blank_location(table);
    Ok(())
}

fn columns(table: &Table) -> &[FieldSchema] {
    table.sd.as_ref().map_or(&[], |sd| sd.cols.as_slice())
}

/// Hive stores column and partition key names lowercased
/// (`ObjectStore.convertToMFieldSchemas`); types stay verbatim.
fn lowercase_column_names(table: &mut Table) {
    let sd_columns = table.sd.iter_mut().flat_map(|sd| sd.cols.iter_mut());
    for column in sd_columns.chain(table.partition_keys.iter_mut()) {
        column.name = column.name.to_lowercase();
    }
}

/// No column name twice among the columns, nor among the partition keys
/// (`Duplicate column name: <c>`). A partition key that is also a column is
/// accepted, as the HMS does: only Hive's DDL analyser refuses it.
fn reject_duplicates(table: &Table) -> Result<()> {
    let column_names = columns(table).iter().map(|column| column.name.as_str());
    column_type::reject_duplicate_names(column_names)?;
    let key_names = table.partition_keys.iter().map(|key| key.name.as_str());
    column_type::reject_duplicate_names(key_names)
}

/// Hive's `ObjectStore.convertToMTable` rule: `MANAGED_TABLE` with
/// `EXTERNAL=true` becomes `EXTERNAL_TABLE`; `EXTERNAL_TABLE` without it
/// becomes `MANAGED_TABLE`. A missing type becomes `MANAGED_TABLE`, or
/// `EXTERNAL_TABLE` with `EXTERNAL=true` (Hive would store no type).
pub(crate) fn reconcile_table_type(table: &mut Table) {
    let external = table.is_external();
    let reconciled = match table.table_type.as_deref() {
        None | Some("") | Some(MANAGED_TABLE) | Some(EXTERNAL_TABLE) if external => EXTERNAL_TABLE,
        None | Some("") | Some(MANAGED_TABLE) | Some(EXTERNAL_TABLE) => MANAGED_TABLE,
        Some(_) => return,
    };
    table.table_type = Some(reconciled.to_string());
}

fn clear_blank_location(table: &mut Table) {
    if let Some(sd) = table.sd.as_mut() {
        crate::catalog::databases::clear_blank(&mut sd.location);
    }
}

/// Hive's default location of table `name` in `database`: under the managed
/// location for managed tables when the database has one, else under its
/// location. `None` when the database has no location.
pub fn default_table_location(database: &Database, name: &str, managed: bool) -> Option<String> {
    let base = match (&database.managed_location_uri, &database.location_uri) {
        (Some(managed_location), _) if managed => managed_location,
        (_, Some(location)) => location,
        _ => return None,
    };
    Some(join_location(base, name))
}

/// Gives a table (not a view) without a location its default one.
pub(crate) fn fill_default_location(table: &mut Table, database: &Database) {
    if table.table_type.as_deref() == Some(VIRTUAL_VIEW) || table.location().is_some() {
        return;
    }
    let managed = !table.is_external();
    let Some(location) = default_table_location(database, &table.table_name, managed) else {
        return;
    };
    let sd = table.sd.get_or_insert_with(|| StorageDescriptor {
        num_buckets: -1,
        ..StorageDescriptor::default()
    });
    sd.location = Some(location);
}

/// Hive refuses a table whose location is a filesystem root.
pub(crate) fn check_location(table: &Table) -> Result<()> {
    match table.location() {
        Some(location) if !table.is_view() && is_root_location(location) => {
            Err(Error::InvalidObject(format!(
                "{} location must not be root path",
                table.table_name
            )))
        }
        _ => Ok(()),
    }
}
