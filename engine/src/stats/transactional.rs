//! Hive 4's `update_transaction_statistics`: how many rows transactions inserted, updated and
//! deleted in a table. Hive adds them to its `MV_TABLES_USED` rows, one per materialized view
//! reading the table, whose counters tell a rebuild whether it may be incremental (inserts
//! only) or must be full; a table no view reads has no row, and the call changes nothing.
//!
//! hivestore keeps one running total per table instead, beside the table's column statistics
//! (`0x0B + table id + 0x00 0x00`), so the totals follow a rename and go with a drop. A view's
//! counts since it was built are the totals now minus the totals then; hivestore stores no
//! `sourceTables` for materialized views yet, so that difference is not served.

use rkyv::{Archive, Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::keys::{self, TableId};
use crate::store::Store;
use crate::values::{stored_value, ValueKind};

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

/// The key of table `table_id`'s totals, or none for an id no table can have.
fn totals_key(table_id: i64) -> Option<Vec<u8>> {
    let id = u64::try_from(table_id).ok()?;
    Some(keys::transaction_statistics_key(TableId(id)))
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
        let Some(key) = totals_key(table_id) else {
            return Ok(());
        };
        let table_key = keys::table_key(TableId(table_id.unsigned_abs()));
        self.write(|txn| {
            if txn.get(&table_key)?.is_none() {
                return Ok(());
            }
            let totals = match txn.view::<TransactionStatistics>(&key)? {
                Some(stored) => stored.to_owned()?,
                None => TransactionStatistics::default(),
            };
            let totals = totals.plus(&change, table_id)?;
            txn.put_value(key, &totals)
        })
    }

    /// The totals `update_transaction_statistics` added up for table `table_id`: zeros for a
    /// table that has none, or for an id of no table.
    pub fn transaction_statistics(&self, table_id: i64) -> Result<TransactionStatistics> {
        let Some(key) = totals_key(table_id) else {
            return Ok(TransactionStatistics::default());
        };
        match self.view::<TransactionStatistics>(&key)? {
            Some(stored) => stored.to_owned(),
            None => Ok(TransactionStatistics::default()),
        }
    }
}
