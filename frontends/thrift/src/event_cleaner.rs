//! The retention of the notification log: a background thread deletes events older than the
//! time-to-live (Hive's `hive.metastore.event.db.listener.timetolive`), and the transaction
//! writes recorded with them, as Hive's `DbNotificationListener` cleaner does, in bounded
//! batches so that writers never wait long. The same round purges aborted transactions that
//! wrote nothing (Hive's housekeeping, `cleanEmptyAbortedAndCommittedTxns`).

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hivestore_engine::events::EVENT_CLEAN_BATCH_COUNT;

/// How many empty aborted transactions one purge batch removes.
const TXN_PURGE_BATCH_COUNT: usize = 10_000;

use crate::service::ServerState;

/// At most this many batches per round; the rest waits for the next round.
const CLEAN_BATCH_COUNT_PER_ROUND_MAX: usize = 100;

/// Starts the cleaner: every `interval`, events older than `ttl` go.
pub fn spawn(state: Arc<ServerState>, ttl: Duration, interval: Duration) {
    let spawned = std::thread::Builder::new()
        .name("event-cleaner".to_string())
        .spawn(move || loop {
            std::thread::sleep(interval);
            run_round(&state, ttl);
        });
    if let Err(error) = spawned {
        tracing::error!(%error, "cannot start the notification event cleaner");
    }
}

/// One round of the cleaner: expired events, then empty aborted transactions; recorded for
/// the counters.
pub fn run_round(state: &ServerState, ttl: Duration) {
    let (deleted, clean_errors) = clean_once(state, ttl);
    let (purged, purge_errors) = purge_empty_aborted_txns(state);
    state
        .counters
        .record_cleaner_round(deleted, purged, clean_errors + purge_errors);
}

/// One round: deletes expired events batch by batch until none is left or the round's bound
/// is reached; returns how many went, and how many batches failed (0 or 1: a failure ends
/// the round).
pub fn clean_once(state: &ServerState, ttl: Duration) -> (usize, u64) {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    let cutoff = now.saturating_sub(ttl.as_secs());
    let cutoff = i32::try_from(cutoff).unwrap_or(i32::MAX);
    let mut deleted = 0;
    let mut errors = 0;
    for _ in 0..CLEAN_BATCH_COUNT_PER_ROUND_MAX {
        match state
            .store()
            .delete_events_before(cutoff, EVENT_CLEAN_BATCH_COUNT)
        {
            Ok(count) => {
                deleted += count;
                if count < EVENT_CLEAN_BATCH_COUNT {
                    break;
                }
            }
            Err(error) => {
                tracing::warn!(%error, "notification event cleanup failed; retried next round");
                errors += 1;
                break;
            }
        }
    }
    if deleted > 0 {
        tracing::info!(deleted, "expired notification events deleted");
    }
    (deleted, errors)
}

/// One round of transaction housekeeping: purges aborted transactions that wrote nothing,
/// batch by batch, bounded; returns how many went, and how many batches failed (0 or 1).
pub fn purge_empty_aborted_txns(state: &ServerState) -> (usize, u64) {
    let mut purged = 0;
    let mut errors = 0;
    for _ in 0..CLEAN_BATCH_COUNT_PER_ROUND_MAX {
        match state
            .store()
            .purge_empty_aborted_txns(TXN_PURGE_BATCH_COUNT)
        {
            Ok(count) => {
                purged += count;
                if count < TXN_PURGE_BATCH_COUNT {
                    break;
                }
            }
            Err(error) => {
                tracing::warn!(%error, "purging empty aborted transactions failed; retried next round");
                errors += 1;
                break;
            }
        }
    }
    if purged > 0 {
        tracing::info!(purged, "aborted transactions without writes purged");
    }
    (purged, errors)
}
