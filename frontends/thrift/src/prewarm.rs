//! The statistics prewarm a server runs when it starts (`Store::prewarm_statistics`), on a
//! thread of its own so that the port opens at once; its outcome is logged and served as the
//! fb303 counters `statistics_prewarm.*` and in the metrics, and the server is ready
//! (`/ready`) once it is over.

use std::sync::Arc;
use std::time::Instant;

use crate::counters::PrewarmState;
use crate::service::ServerState;

/// Starts the prewarm of up to `byte_budget` bytes of statistics; nothing when it is 0.
pub fn spawn(state: Arc<ServerState>, byte_budget: usize) {
    if byte_budget == 0 {
        state.counters.record_prewarm(PrewarmState::Off);
        return;
    }
    let running = Arc::clone(&state);
    let spawned = std::thread::Builder::new()
        .name("statistics-prewarm".to_string())
        .spawn(move || run(&running, byte_budget));
    if let Err(error) = spawned {
        tracing::error!(%error, "cannot start the statistics prewarm");
        // The server serves all the same, only its first statistics reads are slower.
        state
            .counters
            .record_prewarm(PrewarmState::Failed(std::time::Duration::ZERO));
    }
}

/// Runs the prewarm and records what it did.
pub fn run(state: &ServerState, byte_budget: usize) {
    let start = Instant::now();
    match state.store().prewarm_statistics(byte_budget) {
        Ok(report) => {
            let took = start.elapsed();
            tracing::info!(?report, ?took, "statistics prewarmed");
            state
                .counters
                .record_prewarm(PrewarmState::Done(report, took));
        }
        // Only a slower first read follows: the reads it would have made fail the same way.
        Err(error) => {
            tracing::warn!(%error, "statistics prewarm failed");
            state
                .counters
                .record_prewarm(PrewarmState::Failed(start.elapsed()));
        }
    }
}
