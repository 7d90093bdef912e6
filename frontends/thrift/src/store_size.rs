//! The store's size as fb303 counters: the bytes its files take on disk, read at each
//! `getCounters` (a file's length and a directory listing), and its live data (keys and values
//! per keyspace), which takes a scan of every key and so is counted on a thread of its own
//! every `--size-count-interval-secs`, never per call.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::service::ServerState;

/// How often the live data is counted by default: hourly, since a count reads the whole store
/// (a few seconds for a million partitions).
pub const SIZE_COUNT_INTERVAL_SECS_DEFAULT: u64 = 3600;

/// How long after start the first count runs: after the statistics prewarm has had its turn.
const FIRST_COUNT_DELAY: Duration = Duration::from_secs(60);

/// Starts counting the live data every `interval`, the first time shortly after start.
pub fn spawn(state: Arc<ServerState>, interval: Duration) {
    let spawned = std::thread::Builder::new()
        .name("store-size".to_string())
        .spawn(move || {
            std::thread::sleep(FIRST_COUNT_DELAY.min(interval));
            loop {
                count_once(&state);
                std::thread::sleep(interval);
            }
        });
    if let Err(error) = spawned {
        tracing::error!(%error, "cannot start counting the store's live data");
    }
}

/// Counts the live data once and records it for the counters.
pub fn count_once(state: &ServerState) {
    let start = Instant::now();
    match hivestore_engine::size::measure_live(state.store().backend().as_ref()) {
        Ok(live) => {
            let took = start.elapsed();
            tracing::debug!(
                live_bytes = live.live_bytes(),
                ?took,
                "counted the store's live data"
            );
            state.counters.record_live_size(live, took);
        }
        Err(error) => {
            state.counters.record_live_count_failed();
            tracing::warn!(%error, "counting the store's live data failed; retried next round")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hivestore_engine as engine;

    #[test]
    fn a_count_shows_as_the_live_counters() {
        // Goal: the counters hold the last count, keyspace by keyspace, and none before it.
        let mut options = engine::StoreOptions::new("memory:/warehouse");
        options.durability = engine::Durability::Memory;
        let backend = Arc::new(engine::kv::MemoryBackend::new());
        let store = engine::Store::open_with_backend(backend, options).unwrap();
        let state = ServerState::new(store);
        assert!(!state.counters.snapshot().contains_key("store.live_bytes"));
        count_once(&state);
        let counters = state.counters.snapshot();
        let live = engine::size::measure_live(state.store().backend().as_ref()).unwrap();
        let expected = i64::try_from(live.live_bytes()).unwrap();
        assert!(expected > 0);
        assert_eq!(counters.get("store.live_bytes"), Some(&expected));
        // A new store holds catalog `hive` and database `default`.
        assert!(
            counters.contains_key("store.live_bytes.CATALOG"),
            "{counters:?}"
        );
        assert!(
            counters.contains_key("store.live_bytes.DATABASE"),
            "{counters:?}"
        );
    }
}
