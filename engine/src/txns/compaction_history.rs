//! Hive's retention of completed compactions (`PurgeCompactionHistoryFunction`), applied to
//! a table or partition whenever one of its compactions completes: of its history, newest
//! first, the last `did not initiate`, `failed`, `succeeded` and `refused` entries are kept
//! up to Hive's default counts; older `did not initiate`, `failed` and `refused` entries
//! also go once older than the retention timeout when a newer major (or, for a minor one,
//! any) compaction succeeded. Aborted entries are kept, as Hive keeps them.

use super::compactions::{Compaction, CompactionQueue, CompactionState, CompactionType};

/// Hive's `metastore.compactor.history.retention.did.not.initiate`.
pub const HISTORY_RETAINED_DID_NOT_INITIATE: usize = 2;
/// Hive's `metastore.compactor.history.retention.failed` (3, above the initiator's failed
/// threshold of 2, so Hive uses it as is).
pub const HISTORY_RETAINED_FAILED: usize = 3;
/// Hive's `metastore.compactor.history.retention.succeeded`.
pub const HISTORY_RETAINED_SUCCEEDED: usize = 3;
/// Hive's `metastore.compactor.history.retention.refused`.
pub const HISTORY_RETAINED_REFUSED: usize = 3;
/// Hive's `metastore.compactor.history.retention.timeout` (7d).
pub const HISTORY_RETENTION_TIMEOUT_MS: i64 = 7 * 24 * 3600 * 1000;

impl CompactionQueue {
    /// Purges the history of the table or partition of `request` as Hive's housekeeping
    /// does, `now` being the time in milliseconds since the epoch.
    pub(crate) fn purge_history_of(&mut self, request: &Compaction, now: i64) {
        let timeout_before = now.saturating_sub(HISTORY_RETENTION_TIMEOUT_MS);
        let mut history: Vec<(u64, CompactionState, CompactionType, i64)> = self
            .entries
            .iter()
            .filter(|entry| !entry.state.is_queued())
            .filter(|entry| {
                entry.request.database == request.database
                    && entry.request.table == request.table
                    && entry.request.partition == request.partition
            })
            .map(|entry| {
                let start = entry.started_at_ms.unwrap_or(0);
                (
                    entry.request.id,
                    entry.state,
                    entry.request.compaction_type,
                    start,
                )
            })
            .collect();
        history.sort_by_key(|(id, ..)| std::cmp::Reverse(*id));
        let mut left = [
            HISTORY_RETAINED_DID_NOT_INITIATE,
            HISTORY_RETAINED_FAILED,
            HISTORY_RETAINED_SUCCEEDED,
            HISTORY_RETAINED_REFUSED,
        ];
        let (mut major_succeeded, mut minor_succeeded) = (false, false);
        let mut purged = Vec::new();
        for (id, state, kind, start) in history {
            let timed_out = start < timeout_before
                && (major_succeeded || (minor_succeeded && kind == CompactionType::Minor));
            let slot = match state {
                CompactionState::DidNotInitiate => 0,
                CompactionState::Failed => 1,
                CompactionState::Succeeded => 2,
                CompactionState::Refused => 3,
                _ => continue,
            };
            let over = left[slot] == 0;
            left[slot] = left[slot].saturating_sub(1);
            if state == CompactionState::Succeeded {
                match kind {
                    CompactionType::Major => major_succeeded = true,
                    _ => minor_succeeded = true,
                }
                if over {
                    purged.push(id);
                }
            } else if over || timed_out {
                purged.push(id);
            }
        }
        for id in purged {
            self.remove(id);
        }
    }
}
