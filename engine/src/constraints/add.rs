//! Adding constraints with Hive 4's rules (`ObjectStore.addPrimaryKeys`, `addForeignKeys`,
//! `addUniqueConstraints`, `addNotNullConstraints`, `addDefaultConstraints`,
//! `addCheckConstraints`) and its messages. A write's reads see only the committed state, so
//! a [`ConstraintBatch`] keeps what it staged (and a table being created in the same write)
//! and consults both.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use crate::catalog::lookup::{catalog_or_default, table_id_in};
use crate::constraints::names::{generated_name, now_millis, GENERATED_NAME_ATTEMPTS};
use crate::error::{Error, Result};
use crate::model::constraint::{
    ConstraintKind, ConstraintRow, ReferencedColumn, StoredColumn, StoredConstraint,
};
use crate::model::names::normalize;
use crate::model::table::{FieldSchema, Table};
use crate::storage::keys::{self, TableId};
use crate::storage::kv::KeyRange;
use crate::store::WriteTxn;

/// A table a constraint names, resolved once per write.
pub(crate) struct TableEntry {
    id: TableId,
    table: Table,
}

impl TableEntry {
    /// The table's column named `name` (any case), among its columns, then its partition keys.
    fn column(&self, name: &str) -> Option<&FieldSchema> {
        let columns = self.table.sd.iter().flat_map(|sd| sd.cols.iter());
        columns
            .chain(self.table.partition_keys.iter())
            .find(|column| column.name.eq_ignore_ascii_case(name))
    }
}

type TableNames = (String, String, String);
type StagedKey = (u64, u8, String);

/// The constraints one write adds.
#[derive(Default)]
pub(crate) struct ConstraintBatch {
    tables: HashMap<TableNames, Option<Arc<TableEntry>>>,
    staged: BTreeMap<StagedKey, StoredConstraint>,
}

/// The constraint being built from consecutive rows: its parent table and name.
type Current = Option<(u64, String)>;

impl ConstraintBatch {
    /// A batch that knows `table`, created in the same write with id `id`.
    pub(crate) fn with_new_table(id: TableId, table: &Table) -> Self {
        let mut batch = ConstraintBatch::default();
        let names = (
            table.cat_name.clone(),
            table.db_name.clone(),
            table.table_name.clone(),
        );
        let entry = TableEntry {
            id,
            table: table.clone(),
        };
        batch.tables.insert(names, Some(Arc::new(entry)));
        batch
    }

    fn table(
        &mut self,
        txn: &WriteTxn<'_>,
        catalog: &str,
        db: &str,
        name: &str,
    ) -> Result<Option<Arc<TableEntry>>> {
        let names = (catalog.to_string(), db.to_string(), name.to_string());
        if let Some(entry) = self.tables.get(&names) {
            return Ok(entry.clone());
        }
        let entry = match table_id_in(txn.reader(), catalog, db, name)? {
            Some(id) => match txn.view::<Table>(&keys::table_key(id))? {
                Some(view) => Some(Arc::new(TableEntry {
                    id,
                    table: view.to_owned()?,
                })),
                None => None,
            },
            None => None,
        };
        self.tables.insert(names, entry.clone());
        Ok(entry)
    }

    /// Whether a constraint of any kind whose parent is `parent` is named `name` (Hive:
    /// `constraintNameAlreadyExists`, per parent table).
    fn name_taken(&self, txn: &WriteTxn<'_>, parent: TableId, name: &str) -> Result<bool> {
        let staged = self.staged.keys();
        if staged
            .into_iter()
            .any(|(table, _, staged)| *table == parent.0 && staged == name)
        {
            return Ok(true);
        }
        for kind in ConstraintKind::EVENT_ORDER {
            if txn
                .get(&keys::constraint_key(parent, kind.tag(), name))?
                .is_some()
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The constraints of `kind` whose parent is `parent`, committed and staged, by name.
    fn constraints_of(
        &self,
        txn: &WriteTxn<'_>,
        parent: TableId,
        kind: ConstraintKind,
    ) -> Result<BTreeMap<String, StoredConstraint>> {
        let mut found = BTreeMap::new();
        let prefix = keys::constraint_kind_prefix(parent, kind.tag());
        let entries: Vec<_> = txn.scan(KeyRange::prefix(&prefix)).collect::<Result<_>>()?;
        for (key, _) in entries {
            let (_, _, name) = keys::decode_constraint_key(&key)?;
            if let Some(view) = txn.view::<StoredConstraint>(&key)? {
                found.insert(name, view.to_owned()?);
            }
        }
        for ((table, tag, name), constraint) in &self.staged {
            if *table == parent.0 && *tag == kind.tag() {
                found.insert(name.clone(), constraint.clone());
            }
        }
        Ok(found)
    }

    /// A name Hive would generate from `parameters` that no constraint of `parent` has.
    fn generate_name(
        &self,
        txn: &WriteTxn<'_>,
        parent: TableId,
        parameters: &[Option<&str>],
    ) -> Result<String> {
        let millis = now_millis();
        for attempt in 0..GENERATED_NAME_ATTEMPTS {
            let name = generated_name(parameters, millis, attempt);
            if !self.name_taken(txn, parent, &name)? {
                return Ok(name);
            }
        }
        Err(Error::Refused(format!(
            "Error while trying to generate the constraint name for {}",
            crate::constraints::names::parameter_text(parameters)
        )))
    }

    /// The name of the constraint `row` belongs to: given (normalised), continuing the one
    /// being built, or generated. A given name another constraint of the parent has is refused
    /// with Hive's message.
    #[allow(clippy::too_many_arguments)]
    fn choose_name(
        &self,
        txn: &WriteTxn<'_>,
        current: &mut Current,
        kind: ConstraintKind,
        parent: &TableEntry,
        row: &ConstraintRow,
        parameters: &[Option<&str>],
    ) -> Result<String> {
        let continues = |name: &str| {
            kind.has_key_columns()
                && row.key_seq != 1
                && current
                    .as_ref()
                    .is_some_and(|(table, held)| *table == parent.id.0 && held == name)
        };
        let name = match row.name.as_deref().map(normalize) {
            None => match current {
                Some((table, held)) if kind.has_key_columns() && row.key_seq != 1 => {
                    if *table == parent.id.0 {
                        held.clone()
                    } else {
                        self.generate_name(txn, parent.id, parameters)?
                    }
                }
                _ => self.generate_name(txn, parent.id, parameters)?,
            },
            Some(name) => {
                if !continues(&name) && self.name_taken(txn, parent.id, &name)? {
                    return Err(Error::InvalidObject(format!(
                        "Constraint name already exists: {}.{}.{name}",
                        parent.table.db_name, parent.table.table_name
                    )));
                }
                name
            }
        };
        *current = Some((parent.id.0, name.clone()));
        Ok(name)
    }

    fn stage_column(
        &mut self,
        parent: TableId,
        kind: ConstraintKind,
        name: &str,
        table_id: TableId,
        value: Option<String>,
        column: StoredColumn,
    ) {
        let key = (parent.0, kind.tag(), name.to_string());
        let constraint = self.staged.entry(key).or_insert_with(|| StoredConstraint {
            table_id: table_id.0,
            value,
            columns: Vec::new(),
        });
        constraint.columns.push(column);
        constraint.columns.sort_by_key(|column| column.key_seq);
    }

    /// Validates and stages `rows`, all of `kind`; returns them normalised, named.
    pub(crate) fn add(
        &mut self,
        txn: &WriteTxn<'_>,
        kind: ConstraintKind,
        rows: Vec<ConstraintRow>,
    ) -> Result<Vec<ConstraintRow>> {
        match kind {
            ConstraintKind::ForeignKey => self.add_foreign_keys(txn, rows),
            _ => self.add_own(txn, kind, rows),
        }
    }

    /// Primary keys, unique, not-null, default and check constraints: each row names a column
    /// of the table the constraint is on, which is its parent.
    fn add_own(
        &mut self,
        txn: &WriteTxn<'_>,
        kind: ConstraintKind,
        rows: Vec<ConstraintRow>,
    ) -> Result<Vec<ConstraintRow>> {
        let mut added = Vec::with_capacity(rows.len());
        let mut current: Current = None;
        for mut row in rows {
            row.kind = kind;
            row.catalog = catalog_or_default(&row.catalog);
            row.db_name = normalize(&row.db_name);
            row.table_name = normalize(&row.table_name);
            row.column = row.column.as_deref().map(normalize);
            let Some(entry) = self.table(txn, &row.catalog, &row.db_name, &row.table_name)? else {
                return Err(Error::InvalidObject(format!(
                    "Parent table not found: {}",
                    row.table_name
                )));
            };
            // A check constraint may be on the table as a whole; every other row names a
            // column of the table.
            let column_found = match &row.column {
                Some(column) => entry.column(column).is_some(),
                None => kind == ConstraintKind::Check,
            };
            if !column_found {
                return Err(Error::InvalidObject(format!(
                    "Parent column not found: {}",
                    row.column.as_deref().unwrap_or("null")
                )));
            }
            if kind == ConstraintKind::PrimaryKey {
                self.refuse_second_primary_key(txn, &entry, &row, &current)?;
            }
            let parameters = [
                Some(row.db_name.as_str()),
                Some(row.table_name.as_str()),
                row.column.as_deref(),
                Some(kind.name_suffix()),
            ];
            let name = self.choose_name(txn, &mut current, kind, &entry, &row, &parameters)?;
            if !kind.has_key_columns() {
                row.key_seq = 1;
            }
            let column = StoredColumn {
                key_seq: row.key_seq,
                column: row.column.clone(),
                referenced_column: None,
                update_rule: None,
                delete_rule: None,
                flags: row.flags(),
            };
            self.stage_column(entry.id, kind, &name, entry.id, row.value.clone(), column);
            row.name = Some(name);
            added.push(row);
        }
        Ok(added)
    }

    /// Hive: " Primary key already exists for: cat.db.table" when the table has a primary
    /// key other than the one being built.
    fn refuse_second_primary_key(
        &self,
        txn: &WriteTxn<'_>,
        entry: &TableEntry,
        row: &ConstraintRow,
        current: &Current,
    ) -> Result<()> {
        let existing = self.constraints_of(txn, entry.id, ConstraintKind::PrimaryKey)?;
        let building = current
            .as_ref()
            .filter(|(table, _)| *table == entry.id.0 && row.key_seq != 1)
            .map(|(_, name)| name);
        if existing.keys().any(|name| Some(name) != building) {
            return Err(Error::Refused(format!(
                " Primary key already exists for: {}.{}.{}",
                row.catalog, row.db_name, row.table_name
            )));
        }
        Ok(())
    }

    /// Foreign keys: rows up to the next `KEY_SEQ` 1 make one key; its parent is the table it
    /// references, whose primary key or a unique constraint must have exactly its columns
    /// with the foreign columns' types.
    fn add_foreign_keys(
        &mut self,
        txn: &WriteTxn<'_>,
        rows: Vec<ConstraintRow>,
    ) -> Result<Vec<ConstraintRow>> {
        let catalogs: BTreeSet<String> = rows
            .iter()
            .map(|row| catalog_or_default(&row.catalog))
            .collect();
        if catalogs.len() > 1 {
            return Err(Error::InvalidObject(
                "Foreign keys cannot span catalogs".to_string(),
            ));
        }
        let mut added = Vec::with_capacity(rows.len());
        let mut start = 0;
        while start < rows.len() {
            let mut end = start + 1;
            while end < rows.len() && rows[end].key_seq != 1 {
                end += 1;
            }
            added.extend(self.add_foreign_key(txn, rows[start..end].to_vec())?);
            start = end;
        }
        Ok(added)
    }

    fn add_foreign_key(
        &mut self,
        txn: &WriteTxn<'_>,
        rows: Vec<ConstraintRow>,
    ) -> Result<Vec<ConstraintRow>> {
        let first = &rows[0];
        let catalog = catalog_or_default(&first.catalog);
        let (child_db, child_name) = (normalize(&first.db_name), normalize(&first.table_name));
        let referenced = first.referenced.clone().unwrap_or_default();
        let (parent_db, parent_name) = (
            normalize(&referenced.db_name),
            normalize(&referenced.table_name),
        );
        let Some(child) = self.table(txn, &catalog, &child_db, &child_name)? else {
            return Err(Error::InvalidObject(format!(
                "Child table not found: {child_name}"
            )));
        };
        let Some(parent) = self.table(txn, &catalog, &parent_db, &parent_name)? else {
            return Err(Error::InvalidObject(format!(
                "Parent table not found: {parent_name}"
            )));
        };
        let same_table = child.id == parent.id;
        let primary = self.constraints_of(txn, parent.id, ConstraintKind::PrimaryKey)?;
        let unique = self.constraints_of(txn, parent.id, ConstraintKind::Unique)?;
        if primary.is_empty() && unique.is_empty() {
            return Err(Error::Refused(
                "Trying to define foreign key but there are no primary keys or unique keys \
                 for referenced table"
                    .to_string(),
            ));
        }
        let valid_keys = key_signatures(&parent, primary.values().chain(unique.values()));
        let mut foreign_signature = String::new();
        let mut referenced_signature = String::new();
        let mut current: Current = None;
        let mut added = Vec::with_capacity(rows.len());
        for mut row in rows {
            row.kind = ConstraintKind::ForeignKey;
            row.catalog = catalog.clone();
            row.db_name = child_db.clone();
            row.table_name = child_name.clone();
            let column = normalize(row.column.as_deref().unwrap_or_default());
            let Some(child_column) = child.column(&column) else {
                return Err(Error::InvalidObject(format!(
                    "Child column not found: {column}"
                )));
            };
            let column_type = child_column.type_name.clone();
            let mut reference = row.referenced.clone().unwrap_or_default();
            let parent_column = normalize(&reference.column);
            if parent.column(&parent_column).is_none() {
                return Err(Error::InvalidObject(format!(
                    "Parent column not found: {parent_column}"
                )));
            }
            let parameters = [
                Some(child_db.as_str()),
                Some(child_name.as_str()),
                Some(parent_db.as_str()),
                Some(parent_name.as_str()),
                Some(parent_column.as_str()),
                Some(column.as_str()),
                Some(ConstraintKind::ForeignKey.name_suffix()),
            ];
            let name = self.choose_name(
                txn,
                &mut current,
                ConstraintKind::ForeignKey,
                &parent,
                &row,
                &parameters,
            )?;
            foreign_signature.push_str(&format!("{column}:{column_type};"));
            referenced_signature.push_str(&format!("{parent_column}:{column_type};"));
            let stored = StoredColumn {
                key_seq: row.key_seq,
                column: Some(column.clone()),
                referenced_column: Some(parent_column.clone()),
                update_rule: row.update_rule,
                delete_rule: row.delete_rule,
                flags: row.flags(),
            };
            self.stage_column(
                parent.id,
                ConstraintKind::ForeignKey,
                &name,
                child.id,
                None,
                stored,
            );
            reference.db_name = parent_db.clone();
            reference.table_name = parent_name.clone();
            reference.column = parent_column;
            row.referenced = Some(reference);
            row.column = Some(column);
            row.name = Some(name);
            added.push(row);
        }
        if !valid_keys.contains(&referenced_signature) {
            let possible: Vec<&str> = valid_keys.iter().map(String::as_str).collect();
            return Err(Error::Refused(format!(
                "Foreign key references {referenced_signature} but no corresponding primary key \
                 or unique key exists. Possible keys: [{}]",
                possible.join(", ")
            )));
        }
        if same_table && foreign_signature == referenced_signature {
            return Err(Error::Refused(format!(
                "Cannot be both foreign key and primary/unique key on same table: \
                 {referenced_signature}"
            )));
        }
        Ok(added)
    }

    /// Stages every constraint the batch holds, and the child index of its foreign keys.
    pub(crate) fn stage(self, txn: &mut WriteTxn<'_>) -> Result<()> {
        for ((parent, tag, name), constraint) in self.staged {
            let parent = TableId(parent);
            if tag == ConstraintKind::ForeignKey.tag() {
                let child = TableId(constraint.table_id);
                txn.put_raw(
                    keys::foreign_key_child_key(child, parent, &name),
                    Vec::new(),
                );
            }
            txn.put_value(keys::constraint_key(parent, tag, &name), &constraint)?;
        }
        Ok(())
    }
}

/// Hive's key signatures of a referenced table's primary key and unique constraints: per
/// key, `column:type;` for each of its columns in `KEY_SEQ` order, types as the parent has
/// them.
fn key_signatures<'a>(
    parent: &TableEntry,
    keys: impl Iterator<Item = &'a StoredConstraint>,
) -> BTreeSet<String> {
    keys.map(|key| {
        let mut signature = String::new();
        for column in &key.columns {
            let name = column.column.as_deref().unwrap_or_default();
            let type_name = parent
                .column(name)
                .map_or("null", |field| field.type_name.as_str());
            signature.push_str(&format!("{name}:{type_name};"));
        }
        signature
    })
    .collect()
}

/// The event's names for rows of one kind: a foreign key's are its referenced table's, as
/// Hive's listener names them.
pub(crate) fn event_names(row: &ConstraintRow) -> (&str, &str, &str) {
    match (&row.kind, &row.referenced) {
        (
            ConstraintKind::ForeignKey,
            Some(ReferencedColumn {
                db_name,
                table_name,
                ..
            }),
        ) => (&row.catalog, db_name, table_name),
        _ => (&row.catalog, &row.db_name, &row.table_name),
    }
}
