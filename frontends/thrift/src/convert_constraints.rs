//! Hive's constraint structs (`SQLPrimaryKey`, `SQLForeignKey`, ...) to and from the engine's
//! [`ConstraintRow`]: one row per column either way.

use hivestore_engine::{ConstraintKind, ConstraintRow, ReferencedColumn};
use hivestore_idl::hive_metastore::{
    SQLCheckConstraint, SQLDefaultConstraint, SQLForeignKey, SQLNotNullConstraint, SQLPrimaryKey,
    SQLUniqueConstraint,
};

/// A row with the fields every kind has.
#[allow(clippy::too_many_arguments)]
fn row(
    kind: ConstraintKind,
    catalog: Option<String>,
    db: Option<String>,
    table: Option<String>,
    column: Option<String>,
    key_seq: Option<i32>,
    name: Option<String>,
    flags: [Option<bool>; 3],
) -> ConstraintRow {
    let [enable, validate, rely] = flags.map(|flag| flag.unwrap_or(false));
    ConstraintRow {
        kind,
        catalog: catalog.unwrap_or_default(),
        db_name: db.unwrap_or_default(),
        table_name: table.unwrap_or_default(),
        column,
        key_seq: key_seq.unwrap_or(0),
        name,
        referenced: None,
        value: None,
        update_rule: None,
        delete_rule: None,
        enable,
        validate,
        rely,
    }
}

/// `SQLPrimaryKey` rows.
pub fn primary_keys(keys: Vec<SQLPrimaryKey>) -> Vec<ConstraintRow> {
    keys.into_iter()
        .map(|key| {
            let flags = [key.enable_cstr, key.validate_cstr, key.rely_cstr];
            let (kind, catalog) = (ConstraintKind::PrimaryKey, key.cat_name);
            let (db, table, column) = (key.table_db, key.table_name, key.column_name);
            row(
                kind,
                catalog,
                db,
                table,
                column,
                key.key_seq,
                key.pk_name,
                flags,
            )
        })
        .collect()
}

/// `SQLForeignKey` rows: the row's table is the foreign (child) one.
pub fn foreign_keys(keys: Vec<SQLForeignKey>) -> Vec<ConstraintRow> {
    keys.into_iter()
        .map(|key| {
            let flags = [key.enable_cstr, key.validate_cstr, key.rely_cstr];
            let (kind, catalog) = (ConstraintKind::ForeignKey, key.cat_name);
            let (db, table, column) = (key.fktable_db, key.fktable_name, key.fkcolumn_name);
            ConstraintRow {
                referenced: Some(ReferencedColumn {
                    db_name: key.pktable_db.unwrap_or_default(),
                    table_name: key.pktable_name.unwrap_or_default(),
                    column: key.pkcolumn_name.unwrap_or_default(),
                    key_name: key.pk_name,
                }),
                update_rule: key.update_rule,
                delete_rule: key.delete_rule,
                ..row(
                    kind,
                    catalog,
                    db,
                    table,
                    column,
                    key.key_seq,
                    key.fk_name,
                    flags,
                )
            }
        })
        .collect()
}

/// `SQLUniqueConstraint` rows.
pub fn unique_constraints(keys: Vec<SQLUniqueConstraint>) -> Vec<ConstraintRow> {
    keys.into_iter()
        .map(|key| {
            let flags = [key.enable_cstr, key.validate_cstr, key.rely_cstr];
            let (kind, catalog) = (ConstraintKind::Unique, key.cat_name);
            let (db, table, column) = (key.table_db, key.table_name, key.column_name);
            row(
                kind,
                catalog,
                db,
                table,
                column,
                key.key_seq,
                key.uk_name,
                flags,
            )
        })
        .collect()
}

/// `SQLNotNullConstraint` rows.
pub fn not_null_constraints(constraints: Vec<SQLNotNullConstraint>) -> Vec<ConstraintRow> {
    constraints
        .into_iter()
        .map(|c| {
            let flags = [c.enable_cstr, c.validate_cstr, c.rely_cstr];
            let (kind, catalog) = (ConstraintKind::NotNull, c.cat_name);
            let (db, table, column) = (c.table_db, c.table_name, c.column_name);
            row(kind, catalog, db, table, column, Some(1), c.nn_name, flags)
        })
        .collect()
}

/// `SQLDefaultConstraint` rows.
pub fn default_constraints(constraints: Vec<SQLDefaultConstraint>) -> Vec<ConstraintRow> {
    constraints
        .into_iter()
        .map(|c| {
            let flags = [c.enable_cstr, c.validate_cstr, c.rely_cstr];
            let (kind, catalog) = (ConstraintKind::Default, c.cat_name);
            let (db, table, column) = (c.table_db, c.table_name, c.column_name);
            ConstraintRow {
                value: c.default_value,
                ..row(kind, catalog, db, table, column, Some(1), c.dc_name, flags)
            }
        })
        .collect()
}

/// `SQLCheckConstraint` rows.
pub fn check_constraints(constraints: Vec<SQLCheckConstraint>) -> Vec<ConstraintRow> {
    constraints
        .into_iter()
        .map(|c| {
            let flags = [c.enable_cstr, c.validate_cstr, c.rely_cstr];
            let (kind, catalog) = (ConstraintKind::Check, c.cat_name);
            let (db, table, column) = (c.table_db, c.table_name, c.column_name);
            ConstraintRow {
                value: c.check_expression,
                ..row(kind, catalog, db, table, column, Some(1), c.dc_name, flags)
            }
        })
        .collect()
}

/// Rows as `SQLPrimaryKey`s.
pub fn to_primary_keys(rows: &[ConstraintRow]) -> Vec<SQLPrimaryKey> {
    rows.iter()
        .map(|row| SQLPrimaryKey {
            table_db: Some(row.db_name.clone()),
            table_name: Some(row.table_name.clone()),
            column_name: row.column.clone(),
            key_seq: Some(row.key_seq),
            pk_name: row.name.clone(),
            enable_cstr: Some(row.enable),
            validate_cstr: Some(row.validate),
            rely_cstr: Some(row.rely),
            cat_name: Some(row.catalog.clone()),
        })
        .collect()
}

/// Rows as `SQLForeignKey`s.
pub fn to_foreign_keys(rows: &[ConstraintRow]) -> Vec<SQLForeignKey> {
    rows.iter()
        .map(|row| {
            let referenced = row.referenced.clone().unwrap_or_default();
            SQLForeignKey {
                pktable_db: Some(referenced.db_name),
                pktable_name: Some(referenced.table_name),
                pkcolumn_name: Some(referenced.column),
                fktable_db: Some(row.db_name.clone()),
                fktable_name: Some(row.table_name.clone()),
                fkcolumn_name: row.column.clone(),
                key_seq: Some(row.key_seq),
                update_rule: row.update_rule,
                delete_rule: row.delete_rule,
                fk_name: row.name.clone(),
                pk_name: referenced.key_name,
                enable_cstr: Some(row.enable),
                validate_cstr: Some(row.validate),
                rely_cstr: Some(row.rely),
                cat_name: Some(row.catalog.clone()),
            }
        })
        .collect()
}

/// Rows as `SQLUniqueConstraint`s.
pub fn to_unique_constraints(rows: &[ConstraintRow]) -> Vec<SQLUniqueConstraint> {
    rows.iter()
        .map(|row| SQLUniqueConstraint {
            cat_name: Some(row.catalog.clone()),
            table_db: Some(row.db_name.clone()),
            table_name: Some(row.table_name.clone()),
            column_name: row.column.clone(),
            key_seq: Some(row.key_seq),
            uk_name: row.name.clone(),
            enable_cstr: Some(row.enable),
            validate_cstr: Some(row.validate),
            rely_cstr: Some(row.rely),
        })
        .collect()
}

/// Rows as `SQLNotNullConstraint`s.
pub fn to_not_null_constraints(rows: &[ConstraintRow]) -> Vec<SQLNotNullConstraint> {
    rows.iter()
        .map(|row| SQLNotNullConstraint {
            cat_name: Some(row.catalog.clone()),
            table_db: Some(row.db_name.clone()),
            table_name: Some(row.table_name.clone()),
            column_name: row.column.clone(),
            nn_name: row.name.clone(),
            enable_cstr: Some(row.enable),
            validate_cstr: Some(row.validate),
            rely_cstr: Some(row.rely),
        })
        .collect()
}

/// Rows as `SQLDefaultConstraint`s.
pub fn to_default_constraints(rows: &[ConstraintRow]) -> Vec<SQLDefaultConstraint> {
    rows.iter()
        .map(|row| SQLDefaultConstraint {
            cat_name: Some(row.catalog.clone()),
            table_db: Some(row.db_name.clone()),
            table_name: Some(row.table_name.clone()),
            column_name: row.column.clone(),
            default_value: row.value.clone(),
            dc_name: row.name.clone(),
            enable_cstr: Some(row.enable),
            validate_cstr: Some(row.validate),
            rely_cstr: Some(row.rely),
        })
        .collect()
}

/// Rows as `SQLCheckConstraint`s.
pub fn to_check_constraints(rows: &[ConstraintRow]) -> Vec<SQLCheckConstraint> {
    rows.iter()
        .map(|row| SQLCheckConstraint {
            cat_name: Some(row.catalog.clone()),
            table_db: Some(row.db_name.clone()),
            table_name: Some(row.table_name.clone()),
            column_name: row.column.clone(),
            check_expression: row.value.clone(),
            dc_name: row.name.clone(),
            enable_cstr: Some(row.enable),
            validate_cstr: Some(row.validate),
            rely_cstr: Some(row.rely),
        })
        .collect()
}
