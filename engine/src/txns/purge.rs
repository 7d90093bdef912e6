//! Purging aborted transactions that wrote nothing (Hive's
//! `cleanEmptyAbortedAndCommittedTxns`): such a transaction hides nothing from a reader, so
//! it no longer needs to be listed, and the aborted set does not grow for ever (clients
//! that open and abandon transactions, timeouts). One that was given write ids or recorded
//! updates stays listed until a cleaner's `mark_cleaned` forgets them, as does a compactor's
//! transaction that worked on a table or partition (`compactor.rs`): a reader must not take
//! what it wrote for committed. Committed transactions are never kept (see `mod.rs`).

use crate::error::Result;
use crate::store::Store;
use crate::txns::locks::now_ms;

use super::TxnState;

/// Hive's `hive.txn.opentxn.timeout`: a transaction started within this window is never
/// purged, so that a client that just saw it aborted still finds it so.
pub const OPEN_TXN_WINDOW_MS: i64 = 1_000;

impl Store {
    /// Purges up to `max_count` aborted transactions that were given no write ids and
    /// recorded no updates or deletes, started more than [`OPEN_TXN_WINDOW_MS`] ago;
    /// returns how many went. The housekeeping thread calls it until it purges fewer than it
    /// asked for.
    pub fn purge_empty_aborted_txns(&self, max_count: usize) -> Result<usize> {
        let started_before = now_ms().saturating_sub(OPEN_TXN_WINDOW_MS);
        self.purge_empty_aborted_txns_started_before(started_before, max_count)
    }

    /// As [`Store::purge_empty_aborted_txns`], for transactions started before
    /// `started_before` (milliseconds since the epoch).
    pub(crate) fn purge_empty_aborted_txns_started_before(
        &self,
        started_before: i64,
        max_count: usize,
    ) -> Result<usize> {
        self.with_acid(now_ms(), |acid, changes| {
            let compactor_txns = self.compactor_txns()?;
            let empty: Vec<u64> = acid
                .txns
                .txns
                .iter()
                .filter(|(_, txn)| txn.record.state == TxnState::Aborted)
                .filter(|(_, txn)| txn.record.write_ids.is_empty() && txn.record.writes.is_empty())
                .filter(|(_, txn)| txn.record.started_at_ms < started_before)
                .filter(|(txn_id, _)| !compactor_txns.contains(txn_id))
                .map(|(txn_id, _)| *txn_id)
                .take(max_count)
                .collect();
            for txn_id in &empty {
                acid.txns.txns.remove(txn_id);
                changes.txns_removed.push(*txn_id);
            }
            Ok(empty.len())
        })
    }
}
