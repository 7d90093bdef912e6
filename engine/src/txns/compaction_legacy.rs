//! Compaction entries as stores written before compaction workers hold them (kind 20): read
//! as [`CompactionEntry`] with no worker, never written again.

use rkyv::{Archive, Deserialize, Serialize};

use super::compactions::{Compaction, CompactionEntry, CompactionState};
use crate::storage::values::{stored_value, ValueKind};

/// The states a kind-20 entry can hold, in their archived order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub(crate) enum LegacyCompactionState {
    Initiated,
    ReadyForCleaning,
    Aborted,
}

/// A kind-20 compaction entry, field for field as archived.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub(crate) struct LegacyCompactionEntry {
    pub request: Compaction,
    pub state: LegacyCompactionState,
    pub highest_write_id: Option<u64>,
    pub txn_id: Option<u64>,
    pub error_message: Option<String>,
    pub ended_at_ms: Option<i64>,
}

stored_value!(LegacyCompactionEntry, ValueKind::CompactionEntry);

impl From<LegacyCompactionEntry> for CompactionEntry {
    fn from(old: LegacyCompactionEntry) -> CompactionEntry {
        let state = match old.state {
            LegacyCompactionState::Initiated => CompactionState::Initiated,
            LegacyCompactionState::ReadyForCleaning => CompactionState::ReadyForCleaning,
            LegacyCompactionState::Aborted => CompactionState::Aborted,
        };
        CompactionEntry {
            highest_write_id: old.highest_write_id,
            txn_id: old.txn_id,
            error_message: old.error_message,
            ended_at_ms: old.ended_at_ms,
            ..CompactionEntry::queued(old.request, state)
        }
    }
}
