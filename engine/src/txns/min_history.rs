//! Hive's `add_write_ids_to_min_history`: for an open transaction, the lowest open write id
//! of each table its reader saw (Hive's `MIN_HISTORY_WRITE_ID`). Hive's cleaner keeps the
//! files those write ids may still read; hivestore runs no cleaner, so the entries are kept
//! while the transaction is open (and reported by [`Store::min_history_write_ids`]) and go
//! when it commits or aborts, in the same batch, as in Hive.

use crate::error::{Error, Result};
use crate::model::names;
use crate::storage::keys;
use crate::store::Store;
use crate::txns::locks::{now_ms, txn_id_text, AcidChanges};

use super::state::{TxnSpace, TxnStatus};

/// The most tables one `add_write_ids_to_min_history` may name.
pub const MIN_HISTORY_TABLE_COUNT_MAX: usize = 10_000;

/// Forgets the entries of `txn_id`, which committed or aborted.
pub(crate) fn forget(txns: &mut TxnSpace, txn_id: u64, changes: &mut AcidChanges) {
    let Some(history) = txns.min_history.remove(&txn_id) else {
        return;
    };
    for (database, table) in history.keys() {
        changes
            .deletes
            .push(keys::min_history_key(txn_id, database, table));
    }
}

/// Splits Hive's `db.table` key of the write id map.
fn split_full_table_name(full_table_name: &str) -> Result<(String, String)> {
    let parts = full_table_name.split_once('.');
    let (database, table) = parts
        .map(|(database, table)| (names::normalize(database), names::normalize(table)))
        .filter(|(database, table)| !database.is_empty() && !table.is_empty())
        .ok_or_else(|| {
            Error::InvalidInput(format!(
                "add_write_ids_to_min_history: {full_table_name:?} is not a full table name <database>.<table>"
            ))
        })?;
    Ok((database, table))
}

impl Store {
    /// Hive's `add_write_ids_to_min_history`: records, for open transaction `txn_id`, the
    /// lowest open write id of each `db.table` in `write_ids`. A later call for the same
    /// table replaces the entry. Hive inserts rows for any id; hivestore refuses a
    /// transaction that is not open, since nothing would ever remove its entries.
    pub fn add_write_ids_to_min_history(
        &self,
        txn_id: u64,
        write_ids: &[(String, i64)],
    ) -> Result<()> {
        if write_ids.len() > MIN_HISTORY_TABLE_COUNT_MAX {
            return Err(Error::InvalidInput(format!(
                "add_write_ids_to_min_history names {} tables; at most {MIN_HISTORY_TABLE_COUNT_MAX} are allowed",
                write_ids.len()
            )));
        }
        let mut parsed = Vec::with_capacity(write_ids.len());
        for (full_table_name, write_id) in write_ids {
            let (database, table) = split_full_table_name(full_table_name)?;
            let write_id = u64::try_from(*write_id).ok().filter(|id| *id > 0).ok_or_else(|| {
                Error::InvalidInput(format!(
                    "add_write_ids_to_min_history: write id {write_id} of {database}.{table} is not positive"
                ))
            })?;
            parsed.push((database, table, write_id));
        }
        self.with_acid(now_ms(), |acid, changes| {
            if acid.txns.status(txn_id) != TxnStatus::Open {
                return Err(Error::Refused(format!(
                    "add_write_ids_to_min_history: transaction {} is not open",
                    txn_id_text(txn_id)
                )));
            }
            let history = acid.txns.min_history.entry(txn_id).or_default();
            for (database, table, write_id) in parsed {
                let key = keys::min_history_key(txn_id, &database, &table);
                changes.puts.push((key, write_id.to_be_bytes().to_vec()));
                history.insert((database, table), write_id);
            }
            Ok(())
        })
    }

    /// The minimum history write ids recorded for open transaction `txn_id`, by database and
    /// table.
    pub fn min_history_write_ids(&self, txn_id: u64) -> Result<Vec<(String, String, u64)>> {
        self.with_acid(now_ms(), |acid, _| {
            let history = acid.txns.min_history.get(&txn_id);
            Ok(history
                .into_iter()
                .flatten()
                .map(|((database, table), write_id)| (database.clone(), table.clone(), *write_id))
                .collect())
        })
    }
}
