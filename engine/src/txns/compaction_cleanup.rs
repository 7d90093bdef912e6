//! The compaction calls around cleaning: `submit_for_cleanup`,
//! `get_latest_committed_compaction_info` and `abort_Compactions`.
//!
//! A request submitted for cleanup is `ready for cleaning` until a cleaner marks it cleaned;
//! `get_latest_committed_compaction_info` reports those and the `succeeded` ones, as Hive
//! does. Aborting an initiated request marks it `aborted`, as Hive moves it to its completed
//! compactions; it then no longer blocks a new request for the same partition.

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::model::names;
use crate::store::Store;
use crate::txns::locks::now_ms;

use super::compactions::{
    normalise_request, Compaction, CompactionEntry, CompactionQueue, CompactionState,
    COMPACTION_COUNT_MAX,
};

/// What `abort_Compactions` answers for a compaction id (Hive's
/// `AbortCompactionResponseElement`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionAbortOutcome {
    /// The id asked for.
    pub id: i64,
    /// `Success` or `Error`, as Hive says.
    pub status: String,
    /// Hive's message.
    pub message: String,
}

/// Hive's error message of a compaction aborted by request.
pub const COMPACTION_ABORTED_MESSAGE: &str = "Compaction Aborted by Abort Comapction request.";

fn outcome(id: i64, status: &str, message: impl Into<String>) -> CompactionAbortOutcome {
    CompactionAbortOutcome {
        id,
        status: status.to_string(),
        message: message.into(),
    }
}

impl Store {
    /// Hive's `submit_for_cleanup`: queues `request`, compacted elsewhere up to
    /// `highest_write_id` by transaction `txn_id`, as ready for cleaning. Always true, as in
    /// Hive (which does not look for an earlier request either).
    pub fn submit_for_cleanup(
        &self,
        request: Compaction,
        highest_write_id: i64,
        txn_id: i64,
    ) -> Result<bool> {
        let request = normalise_request(request)?;
        let non_negative = |value: i64, what: &str| {
            u64::try_from(value).map_err(|_| {
                Error::InvalidInput(format!(
                    "submit_for_cleanup of {}.{}: {what} {value} is negative",
                    request.database, request.table
                ))
            })
        };
        let highest_write_id = non_negative(highest_write_id, "the highest write id")?;
        let txn_id = non_negative(txn_id, "the transaction id")?;
        let _acid = self.acid()?;
        let mut queue = CompactionQueue::load(self.reader())?;
        let mut puts = Vec::new();
        let entry = CompactionEntry {
            highest_write_id: Some(highest_write_id),
            txn_id: Some(txn_id),
            ..CompactionEntry::queued(request, CompactionState::ReadyForCleaning)
        };
        queue.push(entry, &mut puts)?;
        queue.finish(&mut puts, &mut Vec::new());
        self.write_puts(puts)?;
        Ok(true)
    }

    /// Hive's `get_latest_committed_compaction_info`: the latest committed (ready for
    /// cleaning or succeeded) compaction of `database.table` per partition, of the partitions named (all
    /// when none), after `last_compaction_id` when given, newest first.
    pub fn latest_committed_compactions(
        &self,
        database: &str,
        table: &str,
        partitions: &[String],
        last_compaction_id: Option<i64>,
    ) -> Result<Vec<CompactionEntry>> {
        let (database, table) = (names::normalize(database), names::normalize(table));
        if database.is_empty() || table.is_empty() {
            return Err(Error::InvalidInput(
                "Database name and table name cannot be null.".to_string(),
            ));
        }
        let _acid = self.acid()?;
        let queue = CompactionQueue::load(self.reader())?;
        let wanted: BTreeSet<&str> = partitions.iter().map(String::as_str).collect();
        let mut seen_partitions = BTreeSet::new();
        let mut latest = Vec::new();
        for entry in queue.entries.into_iter().rev() {
            let request = &entry.request;
            let after_last = last_compaction_id
                .is_none_or(|last| i64::try_from(request.id).is_ok_and(|id| id > last));
            let partition_wanted = wanted.is_empty()
                || request
                    .partition
                    .as_deref()
                    .is_some_and(|name| wanted.contains(name));
            let committed = matches!(
                entry.state,
                CompactionState::ReadyForCleaning | CompactionState::Succeeded
            );
            if !committed
                || request.database != database
                || request.table != table
                || !after_last
                || !partition_wanted
            {
                continue;
            }
            // Only the latest of each partition (or of the table) is reported.
            if seen_partitions.insert(request.partition.clone()) {
                latest.push(entry);
            }
        }
        Ok(latest)
    }

    /// Hive's `abort_Compactions`: aborts each initiated request of `ids`; answers, per id,
    /// `Success` or `Error` with Hive's message (no such id, or not initiated).
    pub fn abort_compactions(&self, ids: &[i64]) -> Result<Vec<CompactionAbortOutcome>> {
        if ids.len() > COMPACTION_COUNT_MAX {
            return Err(Error::InvalidInput(format!(
                "abort_Compactions names {} compactions; at most {COMPACTION_COUNT_MAX} are allowed",
                ids.len()
            )));
        }
        let _acid = self.acid()?;
        let mut queue = CompactionQueue::load(self.reader())?;
        let mut puts = Vec::new();
        let mut outcomes = Vec::with_capacity(ids.len());
        let mut aborted = BTreeSet::new();
        for id in ids {
            let found = queue
                .entries
                .iter()
                .find(|entry| i64::try_from(entry.request.id).is_ok_and(|own| own == *id));
            let Some(entry) = found else {
                outcomes.push(outcome(*id, "Error", "No Such Compaction Id Available"));
                continue;
            };
            if entry.state != CompactionState::Initiated && !aborted.contains(id) {
                let message = format!(
                    "Error while aborting compaction as compaction is in state-{}",
                    entry.state.hive_name()
                );
                outcomes.push(outcome(*id, "Error", message));
                continue;
            }
            if aborted.insert(*id) {
                let mut entry = entry.clone();
                entry.state = CompactionState::Aborted;
                entry.error_message = Some(COMPACTION_ABORTED_MESSAGE.to_string());
                entry.ended_at_ms = Some(now_ms());
                queue.put(&entry, &mut puts)?;
            }
            outcomes.push(outcome(*id, "Success", "Successfully aborted compaction"));
        }
        self.write_puts(puts)?;
        Ok(outcomes)
    }
}
