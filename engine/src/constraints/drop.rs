//! Removing constraints: by name (`drop_constraint`), and all of a table's when it is
//! dropped, in the drop's own batch.

use crate::catalog::lookup::{normalize_names, table_id_in};
use crate::error::{Error, Result};
use crate::events::{EventBody, EventKind, EventRecord};
use crate::model::constraint::{ConstraintKind, StoredConstraint};
use crate::model::names::normalize;
use crate::storage::keys::{self, TableId};
use crate::storage::kv::KeyRange;
use crate::store::{Store, WriteTxn};

/// Stages the removal of constraint `name` of kind `tag` whose parent is `parent`, with its
/// foreign key child index; whether it was there.
fn remove_one(txn: &mut WriteTxn<'_>, parent: TableId, tag: u8, name: &str) -> Result<bool> {
    let key = keys::constraint_key(parent, tag, name);
    let Some(view) = txn.view::<StoredConstraint>(&key)? else {
        return Ok(false);
    };
    if tag == ConstraintKind::ForeignKey.tag() {
        let child = TableId(view.to_owned()?.table_id);
        txn.delete(keys::foreign_key_child_key(child, parent, name));
    }
    txn.delete(key);
    Ok(true)
}

/// Stages the removal of every constraint table `id` takes part in, as Hive's `dropTable`
/// does: its own, the foreign keys declared on it, and the foreign keys of other tables that
/// reference it.
pub(crate) fn remove_table_constraints(txn: &mut WriteTxn<'_>, id: TableId) -> Result<()> {
    let prefix = keys::constraint_parent_prefix(id);
    let owned: Vec<_> = txn.scan(KeyRange::prefix(&prefix)).collect::<Result<_>>()?;
    for (key, _) in owned {
        let (parent, tag, name) = keys::decode_constraint_key(&key)?;
        remove_one(txn, parent, tag, &name)?;
    }
    let prefix = keys::foreign_key_child_prefix(id);
    let declared: Vec<_> = txn.scan(KeyRange::prefix(&prefix)).collect::<Result<_>>()?;
    for (key, _) in declared {
        let (_, parent, name) = keys::decode_foreign_key_child_key(&key)?;
        remove_one(txn, parent, ConstraintKind::ForeignKey.tag(), &name)?;
        txn.delete(key.to_vec());
    }
    Ok(())
}

impl Store {
    /// Drops the constraints named `name` of table `catalog.db.table` (Hive's
    /// `drop_constraint`): those whose parent is the table (its own, and foreign keys of that
    /// name referencing it) and the foreign keys of that name declared on it. Logs
    /// `DROP_CONSTRAINT`. Nothing of that name: `NoSuchObject` with Hive's message, naming
    /// the table and constraint as given. A primary key that foreign keys reference is dropped
    /// all the same, as Hive does; those keys stay, naming no primary key.
    pub fn drop_constraint(&self, catalog: &str, db: &str, table: &str, name: &str) -> Result<()> {
        let missing = || {
            Error::NoSuchObject(format!(
                "The constraint: {name} does not exist for the associated table: {db}.{table}"
            ))
        };
        let (catalog_name, db_name, table_name) = normalize_names(catalog, db, table);
        let constraint = normalize(name);
        self.write(|txn| {
            let id = table_id_in(txn.reader(), &catalog_name, &db_name, &table_name)?
                .ok_or_else(missing)?;
            let mut dropped = false;
            for kind in ConstraintKind::EVENT_ORDER {
                dropped |= remove_one(txn, id, kind.tag(), &constraint)?;
            }
            let prefix = keys::foreign_key_child_prefix(id);
            let declared: Vec<_> = txn.scan(KeyRange::prefix(&prefix)).collect::<Result<_>>()?;
            for (key, _) in declared {
                let (_, parent, declared_name) = keys::decode_foreign_key_child_key(&key)?;
                if declared_name == constraint {
                    dropped |=
                        remove_one(txn, parent, ConstraintKind::ForeignKey.tag(), &constraint)?;
                }
            }
            if !dropped {
                return Err(missing());
            }
            let body = EventBody::DropConstraint {
                name: constraint.clone(),
            };
            let kind = EventKind::DropConstraint;
            txn.emit(EventRecord::new(
                kind,
                &catalog_name,
                &db_name,
                &table_name,
                body,
            ))?;
            Ok(())
        })
    }
}
