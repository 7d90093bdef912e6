//! Hive 4's `update_transaction_statistics`: how many rows transactions inserted, updated and
//! deleted in a table. Hive adds them to its `MV_TABLES_USED` rows, one per materialized view
//! reading the table, whose counters tell a rebuild whether it may be incremental (inserts
//! only) or must be full; a table no view reads has no row, and the call changes nothing.
//!
//! hivestore keeps one running total per table instead, beside the table's column statistics
//! (`0x0B + table id + 0x00 0x00`), so the totals follow a rename and go with a drop. A view
//! keeps, for each table it reads (`0x0B + view id + 0x00 0x00 0x01`), the counts it was
//! created with and the table's totals then: its counts now are those plus what the totals
//! grew by since, which is what Hive's rows hold after the same updates.

use rkyv::{Archive, Deserialize, Serialize};

use crate::catalog::lookup::find_database_id;
use crate::catalog::lookup::{
    dangling_table_index, find_table_id, normalize_names, table_not_found,
};
use crate::error::{Error, Result};
use crate::model::table::{CreationMetadata, SourceTable, Table, MATERIALIZED_VIEW};
use crate::storage::keys::{self, TableId};
use crate::storage::kv::KvBackend;
use crate::storage::values::{stored_value, ValueKind};
use crate::store::{read_view, Store, WriteTxn};

/// Rows inserted, updated and deleted in one table by transactions, as Hive's
/// `UpdateTransactionalStatsRequest` reports them and `SourceTable` returns them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct TransactionStatistics {
    /// Rows inserted.
    pub inserted_count: i64,
    /// Rows updated.
    pub updated_count: i64,
    /// Rows deleted.
    pub deleted_count: i64,
}

stored_value!(TransactionStatistics, ValueKind::TransactionStatistics);

impl TransactionStatistics {
    /// The counts as `(name, value)` pairs, in the request's order, for checks and messages.
    fn named(&self) -> [(&'static str, i64); 3] {
        [
            ("insertCount", self.inserted_count),
            ("updatedCount", self.updated_count),
            ("deletedCount", self.deleted_count),
        ]
    }

    /// `self + change`, or an error naming the table and the count that would overflow.
    fn plus(&self, change: &TransactionStatistics, table_id: i64) -> Result<TransactionStatistics> {
        let overflow = |name: &str| {
            Error::Refused(format!(
                "update_transaction_statistics: {name} of table id {table_id} would overflow a \
                 64-bit count"
            ))
        };
        Ok(TransactionStatistics {
            inserted_count: (self.inserted_count.checked_add(change.inserted_count))
                .ok_or_else(|| overflow("insertCount"))?,
            updated_count: (self.updated_count.checked_add(change.updated_count))
                .ok_or_else(|| overflow("updatedCount"))?,
            deleted_count: (self.deleted_count.checked_add(change.deleted_count))
                .ok_or_else(|| overflow("deletedCount"))?,
        })
    }
}

/// The totals of table `table` in `reader`: zeros when it has none.
fn totals_in(reader: &dyn KvBackend, table: TableId) -> Result<TransactionStatistics> {
    match read_view::<TransactionStatistics>(reader, &keys::transaction_statistics_key(table))? {
        Some(stored) => stored.to_owned(),
        None => Ok(TransactionStatistics::default()),
    }
}

impl Store {
    /// Hive 4's `update_transaction_statistics`: adds `change` to the totals of the table
    /// whose id is `table_id`. An id of no table changes nothing, as in Hive. A negative
    /// count is refused (Hive would subtract it): rows are counted, never uncounted.
    pub fn update_transaction_statistics(
        &self,
        table_id: i64,
        change: TransactionStatistics,
    ) -> Result<()> {
        for (name, value) in change.named() {
            if value < 0 {
                return Err(Error::Refused(format!(
                    "update_transaction_statistics: {name} is {value} for table id {table_id}; \
                     a count of rows cannot be negative"
                )));
            }
        }
        // A negative id names no table.
        let Ok(id) = u64::try_from(table_id).map(TableId) else {
            return Ok(());
        };
        self.write(|txn| {
            if txn.get(&keys::table_key(id))?.is_none() {
                return Ok(());
            }
            let totals = totals_in(txn.reader(), id)?.plus(&change, table_id)?;
            txn.put_value(keys::transaction_statistics_key(id), &totals)
        })
    }

    /// The totals `update_transaction_statistics` added up for table `table_id`: zeros for a
    /// table that has none, or for an id of no table.
    pub fn transaction_statistics(&self, table_id: i64) -> Result<TransactionStatistics> {
        match u64::try_from(table_id) {
            Ok(id) => totals_in(self.reader(), TableId(id)),
            Err(_) => Ok(TransactionStatistics::default()),
        }
    }
}

/// One table a materialized view reads, as stored with the view.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
struct ViewSource {
    /// The table's id: the source follows a rename.
    table: u64,
    /// The counts the view was created with.
    counts: TransactionStatistics,
    /// The table's totals when the view was created.
    totals_then: TransactionStatistics,
}

/// The tables a materialized view reads.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub(crate) struct ViewSources {
    sources: Vec<ViewSource>,
}

stored_value!(ViewSources, ValueKind::ViewSources);

impl TransactionStatistics {
    /// `self + (now - then)`: counts moved on by what totals grew by.
    fn moved_on(&self, then: &TransactionStatistics, now: &TransactionStatistics) -> Self {
        let moved =
            |count: i64, then: i64, now: i64| count.saturating_add(now.saturating_sub(then));
        TransactionStatistics {
            inserted_count: moved(self.inserted_count, then.inserted_count, now.inserted_count),
            updated_count: moved(self.updated_count, then.updated_count, now.updated_count),
            deleted_count: moved(self.deleted_count, then.deleted_count, now.deleted_count),
        }
    }
}

/// Stages the sources of `view` (with id `view_id`), a materialized view being created:
/// its `sourceTables` with their counts, else its `tablesUsed` (`db.table`) with zeros, as
/// Hive records them. Every source must exist, in the view's catalog.
pub(crate) fn record_view_sources(
    txn: &mut WriteTxn<'_>,
    view_id: TableId,
    view: &Table,
) -> Result<()> {
    let Some(metadata) = &view.creation_metadata else {
        return Ok(());
    };
    let named: Vec<(String, String, TransactionStatistics)> = match &metadata.source_tables {
        Some(sources) => sources
            .iter()
            .map(|source| {
                let counts = TransactionStatistics {
                    inserted_count: source.inserted_count,
                    updated_count: source.updated_count,
                    deleted_count: source.deleted_count,
                };
                (
                    source.table.db_name.clone(),
                    source.table.table_name.clone(),
                    counts,
                )
            })
            .collect(),
        None => metadata
            .tables_used
            .iter()
            .map(|qualified| {
                let (database, table) = qualified.split_once('.').unwrap_or(("", qualified));
                let zero = TransactionStatistics::default();
                (database.to_string(), table.to_string(), zero)
            })
            .collect(),
    };
    let mut sources = Vec::with_capacity(named.len());
    for (database, table, counts) in named {
        let id =
            crate::catalog::lookup::table_id_in(txn.reader(), &view.cat_name, &database, &table)?
                .ok_or_else(|| {
                Error::Refused(format!(
                    "Specified catalog.database.table does not exist : {}.{}.{}",
                    view.cat_name,
                    database.to_lowercase(),
                    table.to_lowercase()
                ))
            })?;
        sources.push(ViewSource {
            table: id.0,
            counts,
            totals_then: totals_in(txn.reader(), id)?,
        });
    }
    txn.put_value(keys::view_sources_key(view_id), &ViewSources { sources })
}

impl Store {
    /// Fills `metadata.source_tables` of materialized view `view_id` (and its `tables_used`,
    /// by the sources' names now), when sources are stored for it: each source as it is now,
    /// with its counts moved on by its totals. A source dropped since is left out.
    pub(crate) fn fill_view_sources(
        &self,
        view_id: TableId,
        metadata: &mut CreationMetadata,
    ) -> Result<()> {
        let Some(stored) = self.view::<ViewSources>(&keys::view_sources_key(view_id))? else {
            return Ok(());
        };
        let stored = stored.to_owned()?;
        let mut sources = Vec::with_capacity(stored.sources.len());
        for source in stored.sources {
            let Some(table) = self.view::<Table>(&keys::table_key(TableId(source.table)))? else {
                continue;
            };
            let table = table.to_owned()?;
            let now = totals_in(self.reader(), TableId(source.table))?;
            let counts = source.counts.moved_on(&source.totals_then, &now);
            sources.push(SourceTable {
                table,
                inserted_count: counts.inserted_count,
                updated_count: counts.updated_count,
                deleted_count: counts.deleted_count,
            });
        }
        let mut used: Vec<String> = sources
            .iter()
            .map(|source| format!("{}.{}", source.table.db_name, source.table.table_name))
            .collect();
        used.sort();
        used.dedup();
        metadata.tables_used = used;
        metadata.source_tables = Some(sources);
        Ok(())
    }
}

impl Store {
    /// Hive's `update_creation_metadata`, sent when a materialized view is rebuilt: the view's
    /// tables used, transaction snapshot and materialization time become `metadata`'s, and its
    /// sources are recorded anew as at create (counts as sent, totals as they are now), so
    /// later `update_transaction_statistics` count from the rebuild. Every source must exist.
    /// Hive fires no event for it, nor does this.
    pub fn update_creation_metadata(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        metadata: CreationMetadata,
    ) -> Result<()> {
        let (catalog, database, name) = normalize_names(catalog, database, name);
        self.write(|txn| {
            let missing = || table_not_found(&catalog, &database, &name);
            let database_id =
                find_database_id(txn.reader(), &catalog, &database)?.ok_or_else(missing)?;
            let id = find_table_id(txn.reader(), database_id, &name)?.ok_or_else(missing)?;
            let mut view = txn
                .view::<Table>(&keys::table_key(id))?
                .ok_or_else(|| dangling_table_index(database_id, &name, id))?
                .to_owned()?;
            if view.table_type.as_deref() != Some(MATERIALIZED_VIEW) {
                return Err(Error::InvalidOperation(format!(
                    "{catalog}.{database}.{name} is not a materialized view: it has no creation \
                     metadata to update"
                )));
            }
            // The view's own names stay; what a rebuild changes is taken from `metadata`.
            let kept = view
                .creation_metadata
                .take()
                .unwrap_or_else(|| CreationMetadata {
                    cat_name: catalog.clone(),
                    db_name: database.clone(),
                    tbl_name: name.clone(),
                    ..CreationMetadata::default()
                });
            view.creation_metadata = Some(CreationMetadata {
                tables_used: metadata.tables_used,
                valid_txn_list: metadata.valid_txn_list,
                materialization_time: metadata.materialization_time,
                source_tables: metadata.source_tables,
                ..kept
            });
            record_view_sources(txn, id, &view)?;
            txn.put_value(keys::table_key(id), &view)
        })
    }
}
