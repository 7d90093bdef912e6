//! Table constraints: primary and foreign keys, unique, not-null, default and check
//! constraints, with Hive 4's rules and messages, stored under their parent table's id
//! (`0x0F`, `docs/storage-format.md`) so that a rename carries them and a drop removes them
//! in its own batch.
//!
//! - `add.rs`: validation and staging (`ConstraintBatch`), Hive's generated names in
//!   `names.rs`;
//! - `read.rs`: a table's constraints by kind, foreign keys by either end;
//! - `drop.rs`: `drop_constraint`, and a dropped table's constraints;
//! - `altered_columns.rs`: the columns an alter of the table removes, taken out of them.

pub(crate) mod add;
pub(crate) mod altered_columns;
pub(crate) mod drop;
pub(crate) mod names;
pub(crate) mod read;

use crate::error::Result;
use crate::events::{EventBody, EventKind, EventRecord};
use crate::model::constraint::{ConstraintKind, ConstraintRow};
use crate::model::table::Table;
use crate::store::{Store, WriteTxn};

use add::{event_names, ConstraintBatch};

/// The event Hive logs for constraints of `kind` added.
fn event_kind(kind: ConstraintKind) -> EventKind {
    match kind {
        ConstraintKind::PrimaryKey => EventKind::AddPrimaryKey,
        ConstraintKind::ForeignKey => EventKind::AddForeignKey,
        ConstraintKind::Unique => EventKind::AddUniqueConstraint,
        ConstraintKind::NotNull => EventKind::AddNotNullConstraint,
        ConstraintKind::Default => EventKind::AddDefaultConstraint,
        ConstraintKind::Check => EventKind::AddCheckConstraint,
    }
}

/// Logs one event for `rows`, all of one kind, named after the first row as Hive's listener
/// names it; nothing for no rows.
pub(crate) fn emit_added(txn: &mut WriteTxn<'_>, rows: &[ConstraintRow]) -> Result<()> {
    let Some(first) = rows.first() else {
        return Ok(());
    };
    let (catalog, db, table) = event_names(first);
    let record = EventRecord::new(
        event_kind(first.kind),
        catalog,
        db,
        table,
        EventBody::Constraints(rows.to_vec()),
    );
    txn.emit(record)?;
    Ok(())
}

/// The order constraints of a new table are validated in: keys a foreign key of the same
/// table may reference come before it.
const VALIDATION_ORDER: [ConstraintKind; 6] = [
    ConstraintKind::PrimaryKey,
    ConstraintKind::Unique,
    ConstraintKind::NotNull,
    ConstraintKind::Default,
    ConstraintKind::Check,
    ConstraintKind::ForeignKey,
];

impl Store {
    /// Adds constraints of `kind` (Hive's `add_primary_key`, `add_foreign_key`, ...): one
    /// row per column, every row's kind taken as `kind`. Validated with Hive's rules and
    /// messages, written and logged (one `ADD_*` event) in one batch; nothing is written when
    /// a row is refused. Returns the rows normalised, with their names (generated as Hive
    /// generates them where absent). No rows: nothing happens.
    pub fn add_constraints(
        &self,
        kind: ConstraintKind,
        rows: Vec<ConstraintRow>,
    ) -> Result<Vec<ConstraintRow>> {
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        self.write(|txn| {
            let mut batch = ConstraintBatch::default();
            let added = batch.add(txn, kind, rows)?;
            batch.stage(txn)?;
            emit_added(txn, &added)?;
            Ok(added)
        })
    }

    /// Creates `table` with `constraints` (rows of any kind) in one atomic write, as Hive's
    /// `create_table_with_constraints` and `create_table_req`: the table is checked and
    /// created as [`Store::create_table`] does, then the constraints, which may name it,
    /// as [`Store::add_constraints`] adds them. Logs `CREATE_TABLE`, then one event per kind
    /// in Hive's order. Returns the table and the rows as added.
    pub fn create_table_with_constraints(
        &self,
        table: Table,
        constraints: Vec<ConstraintRow>,
    ) -> Result<(Table, Vec<ConstraintRow>)> {
        let prepared = self.prepare_table_for_create(table)?;
        let mut undo = Vec::new();
        self.write_with_undo(&mut undo, |txn| {
            let (id, table) = self.stage_new_table(txn, prepared)?;
            let mut batch = ConstraintBatch::with_new_table(id, &table);
            let mut added = Vec::new();
            for kind in VALIDATION_ORDER {
                let rows: Vec<ConstraintRow> = constraints
                    .iter()
                    .filter(|row| row.kind == kind)
                    .cloned()
                    .collect();
                if !rows.is_empty() {
                    added.extend(batch.add(txn, kind, rows)?);
                }
            }
            batch.stage(txn)?;
            for kind in ConstraintKind::EVENT_ORDER {
                let rows: Vec<ConstraintRow> = added
                    .iter()
                    .filter(|row| row.kind == kind)
                    .cloned()
                    .collect();
                emit_added(txn, &rows)?;
            }
            Ok((table, added))
        })
    }
}

#[cfg(test)]
mod tests;
