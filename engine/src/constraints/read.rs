//! Reading constraints back as Hive's rows: a table's own by kind, and foreign keys by
//! either end. Table names are read from the tables' records, so a renamed table's
//! constraints (keyed by id) name it as it is now.

use std::collections::HashMap;

use crate::catalog::lookup::{catalog_or_default, table_id_in};
use crate::error::Result;
use crate::model::constraint::{ConstraintKind, ConstraintRow, ReferencedColumn, StoredConstraint};
use crate::model::names::normalize;
use crate::model::table::Table;
use crate::storage::keys::{self, TableId};
use crate::storage::kv::KeyRange;
use crate::store::Store;

/// Which foreign keys to read: every name given must match; `None` matches any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ForeignKeyFilter {
    /// The catalog; empty means `hive`.
    pub catalog: String,
    /// The referenced table's database.
    pub parent_db: Option<String>,
    /// The referenced table.
    pub parent_table: Option<String>,
    /// The database of the table the keys are declared on.
    pub foreign_db: Option<String>,
    /// The table the keys are declared on.
    pub foreign_table: Option<String>,
}

/// Tables read once per call, by id.
#[derive(Default)]
struct Tables(HashMap<u64, Option<Table>>);

impl Tables {
    fn get(&mut self, store: &Store, id: TableId) -> Result<Option<&Table>> {
        if let std::collections::hash_map::Entry::Vacant(entry) = self.0.entry(id.0) {
            let table = match store.view::<Table>(&keys::table_key(id))? {
                Some(view) => Some(view.to_owned()?),
                None => None,
            };
            entry.insert(table);
        }
        Ok(self.0.get(&id.0).and_then(Option::as_ref))
    }
}

impl Store {
    /// The constraints of `kind` declared on `catalog.db.table` (not foreign keys: see
    /// [`Store::foreign_keys`]), by name then `KEY_SEQ`. A table that does not exist has none,
    /// as Hive answers.
    pub fn table_constraints(
        &self,
        catalog: &str,
        db: &str,
        table: &str,
        kind: ConstraintKind,
    ) -> Result<Vec<ConstraintRow>> {
        let Some(id) = table_id_in(self.reader(), catalog, db, table)? else {
            return Ok(Vec::new());
        };
        let mut tables = Tables::default();
        let prefix = keys::constraint_kind_prefix(id, kind.tag());
        let mut rows = Vec::new();
        for entry in self.scan(KeyRange::prefix(&prefix)) {
            let (key, _) = entry?;
            let (parent, _, name) = keys::decode_constraint_key(&key)?;
            if let Some(view) = self.view::<StoredConstraint>(&key)? {
                let constraint = view.to_owned()?;
                self.push_rows(&mut tables, kind, parent, &name, &constraint, &mut rows)?;
            }
        }
        Ok(rows)
    }

    /// The foreign keys `filter` selects, by name then `KEY_SEQ`. Tables that do not exist
    /// have none.
    pub fn foreign_keys(&self, filter: &ForeignKeyFilter) -> Result<Vec<ConstraintRow>> {
        let catalog = catalog_or_default(&filter.catalog);
        let normalized = |name: &Option<String>| name.as_deref().map(normalize);
        let (parent_db, parent_table) = (
            normalized(&filter.parent_db),
            normalized(&filter.parent_table),
        );
        let (foreign_db, foreign_table) = (
            normalized(&filter.foreign_db),
            normalized(&filter.foreign_table),
        );
        let mut candidates: Vec<(TableId, String)> = Vec::new();
        if let (Some(db), Some(table)) = (&parent_db, &parent_table) {
            let Some(parent) = table_id_in(self.reader(), &catalog, db, table)? else {
                return Ok(Vec::new());
            };
            let tag = ConstraintKind::ForeignKey.tag();
            let prefix = keys::constraint_kind_prefix(parent, tag);
            for entry in self.scan(KeyRange::prefix(&prefix)) {
                let (key, _) = entry?;
                let (_, _, name) = keys::decode_constraint_key(&key)?;
                candidates.push((parent, name));
            }
        } else if let (Some(db), Some(table)) = (&foreign_db, &foreign_table) {
            let Some(child) = table_id_in(self.reader(), &catalog, db, table)? else {
                return Ok(Vec::new());
            };
            let prefix = keys::foreign_key_child_prefix(child);
            for entry in self.scan(KeyRange::prefix(&prefix)) {
                let (key, _) = entry?;
                let (_, parent, name) = keys::decode_foreign_key_child_key(&key)?;
                candidates.push((parent, name));
            }
        } else {
            // Neither end named whole: every foreign key, filtered below.
            let prefix = [keys::KEYSPACE_CONSTRAINT, keys::CONSTRAINT_BY_PARENT];
            for entry in self.scan(KeyRange::prefix(&prefix)) {
                let (key, _) = entry?;
                let (parent, tag, name) = keys::decode_constraint_key(&key)?;
                if tag == ConstraintKind::ForeignKey.tag() {
                    candidates.push((parent, name));
                }
            }
        }
        let mut tables = Tables::default();
        let mut rows = Vec::new();
        let tag = ConstraintKind::ForeignKey.tag();
        for (parent, name) in candidates {
            let key = keys::constraint_key(parent, tag, &name);
            if let Some(view) = self.view::<StoredConstraint>(&key)? {
                let constraint = view.to_owned()?;
                let kind = ConstraintKind::ForeignKey;
                self.push_rows(&mut tables, kind, parent, &name, &constraint, &mut rows)?;
            }
        }
        let matches = |wanted: &Option<String>, found: &str| {
            wanted.as_deref().is_none_or(|wanted| wanted == found)
        };
        rows.retain(|row| {
            let referenced = row.referenced.as_ref();
            row.catalog == catalog
                && matches(&foreign_db, &row.db_name)
                && matches(&foreign_table, &row.table_name)
                && matches(&parent_db, referenced.map_or("", |r| r.db_name.as_str()))
                && matches(
                    &parent_table,
                    referenced.map_or("", |r| r.table_name.as_str()),
                )
        });
        rows.sort_by(|a, b| (&a.name, a.key_seq).cmp(&(&b.name, b.key_seq)));
        Ok(rows)
    }

    /// The name of table `id`'s primary key, if it has one.
    fn primary_key_name(&self, id: TableId) -> Result<Option<String>> {
        let prefix = keys::constraint_kind_prefix(id, ConstraintKind::PrimaryKey.tag());
        match self.scan(KeyRange::prefix(&prefix)).next() {
            Some(entry) => {
                let (key, _) = entry?;
                Ok(Some(keys::decode_constraint_key(&key)?.2))
            }
            None => Ok(None),
        }
    }

    fn push_rows(
        &self,
        tables: &mut Tables,
        kind: ConstraintKind,
        parent: TableId,
        name: &str,
        constraint: &StoredConstraint,
        rows: &mut Vec<ConstraintRow>,
    ) -> Result<()> {
        let Some(table) = tables.get(self, TableId(constraint.table_id))?.cloned() else {
            return Ok(());
        };
        let referenced = if kind == ConstraintKind::ForeignKey {
            let key_name = self.primary_key_name(parent)?;
            let Some(parent_table) = tables.get(self, parent)? else {
                return Ok(());
            };
            Some((parent_table.clone(), key_name))
        } else {
            None
        };
        for column in &constraint.columns {
            rows.push(ConstraintRow {
                kind,
                catalog: table.cat_name.clone(),
                db_name: table.db_name.clone(),
                table_name: table.table_name.clone(),
                column: column.column.clone(),
                key_seq: column.key_seq,
                name: Some(name.to_string()),
                referenced: referenced
                    .as_ref()
                    .map(|(parent, key_name)| ReferencedColumn {
                        db_name: parent.db_name.clone(),
                        table_name: parent.table_name.clone(),
                        column: column.referenced_column.clone().unwrap_or_default(),
                        key_name: key_name.clone(),
                    }),
                value: constraint.value.clone(),
                update_rule: column.update_rule,
                delete_rule: column.delete_rule,
                enable: column.flags & 4 != 0,
                validate: column.flags & 2 != 0,
                rely: column.flags & 1 != 0,
            });
        }
        Ok(())
    }
}
