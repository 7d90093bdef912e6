//! Metrics and health over HTTP (`--metrics-listen`): `GET /metrics` in Prometheus's text
//! format, `GET /health` and `GET /ready`, on a small listener of its own ([`listener`]) so
//! that scrapers never share the metastore port's threads or limits.
//!
//! Everything served is read from what the server counts anyway ([`crate::counters`], the
//! store's [`hivestore_engine::StoreUsage`], sizes): atomics and short snapshots, never the
//! store's writer lock, so a scrape costs the Thrift port nothing. fb303 `getCounters` reads
//! the same counters.

pub mod exposition;
mod families;
pub mod listener;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use crate::service::ServerState;

/// What the metrics endpoints read: the process's start, the server's state once the store is
/// open, and whether the server is stopping.
pub struct MetricsSource {
    started: Instant,
    state: OnceLock<Arc<ServerState>>,
    stopping: AtomicBool,
    standby: AtomicBool,
}

/// Whether the server is ready for clients, and if not why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    /// The store is open and the statistics prewarm is over.
    Ready,
    /// Not (or no longer) ready, for this reason.
    NotReady(&'static str),
}

impl MetricsSource {
    /// A source for a process starting now, its store not open yet.
    pub fn new() -> Arc<MetricsSource> {
        Arc::new(MetricsSource {
            started: Instant::now(),
            state: OnceLock::new(),
            stopping: AtomicBool::new(false),
            standby: AtomicBool::new(false),
        })
    }

    /// Serves `state`'s counters from now on: the store is open. The first state given stays.
    pub fn store_opened(&self, state: Arc<ServerState>) {
        let _ = self.state.set(state);
    }

    /// Records whether the server waits as a standby (`--standby`) for another server's
    /// database: not ready while it does.
    pub fn standing_by(&self, standby: bool) {
        self.standby.store(standby, Ordering::Release);
    }

    /// Records that the server is stopping: it is no longer ready.
    pub fn stopping(&self) {
        self.stopping.store(true, Ordering::Release);
    }

    /// The server's state, once the store is open.
    pub fn state(&self) -> Option<&Arc<ServerState>> {
        self.state.get()
    }

    /// Seconds since the process started (since this source was made).
    pub fn uptime_seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Whether the server is ready: its store open, the statistics prewarm over (done, failed
    /// or off), and not stopping.
    pub fn readiness(&self) -> Readiness {
        if self.stopping.load(Ordering::Acquire) {
            return Readiness::NotReady("the server is stopping");
        }
        if self.standby.load(Ordering::Acquire) {
            return Readiness::NotReady("a standby: another server serves the database");
        }
        let Some(state) = self.state.get() else {
            return Readiness::NotReady("the store is opening");
        };
        if !state.counters.prewarm().is_over() {
            return Readiness::NotReady("the statistics prewarm is running");
        }
        Readiness::Ready
    }

    /// What `/ready` adds about the follower of `--follow-from`: its source, position, lag and
    /// last error; empty without one.
    pub fn following_note(&self) -> String {
        let Some(following) = self.state().and_then(|state| state.following()) else {
            return String::new();
        };
        if !following.is_following() {
            return format!("; cut over from {}", following.source());
        }
        let error = following
            .last_error()
            .map(|error| format!("; last error: {error}"))
            .unwrap_or_default();
        format!(
            "; following {} (writes refused): at event {}, {} behind{error}",
            following.source(),
            following.position(),
            following.lag_events()
        )
    }

    /// The metrics, in Prometheus's text format.
    pub fn render(&self) -> String {
        families::render(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::PrewarmState;
    use hivestore_engine as engine;

    fn memory_state() -> Arc<ServerState> {
        let mut options = engine::StoreOptions::new("memory:/warehouse");
        options.durability = engine::Durability::Memory;
        let backend = Arc::new(engine::kv::MemoryBackend::new());
        let store = engine::Store::open_with_backend(backend, options).unwrap();
        Arc::new(ServerState::new(store))
    }

    #[test]
    fn ready_once_the_store_is_open_and_the_prewarm_over_until_stopping() {
        // Goal: each step of a start moves readiness, in order, and a stop takes it back.
        let source = MetricsSource::new();
        assert_eq!(
            source.readiness(),
            Readiness::NotReady("the store is opening")
        );
        source.standing_by(true);
        assert_eq!(
            source.readiness(),
            Readiness::NotReady("a standby: another server serves the database")
        );
        source.standing_by(false);
        let state = memory_state();
        source.store_opened(Arc::clone(&state));
        assert_eq!(
            source.readiness(),
            Readiness::NotReady("the statistics prewarm is running")
        );
        crate::prewarm::run(&state, 1024 * 1024);
        assert!(matches!(state.counters.prewarm(), PrewarmState::Done(..)));
        assert_eq!(source.readiness(), Readiness::Ready);
        source.stopping();
        assert_eq!(
            source.readiness(),
            Readiness::NotReady("the server is stopping")
        );
    }

    #[test]
    fn a_prewarm_turned_off_or_failed_does_not_hold_readiness() {
        for over in [
            PrewarmState::Off,
            PrewarmState::Failed(std::time::Duration::ZERO),
        ] {
            let source = MetricsSource::new();
            let state = memory_state();
            source.store_opened(Arc::clone(&state));
            state.counters.record_prewarm(over);
            assert_eq!(source.readiness(), Readiness::Ready);
        }
    }

    #[test]
    fn every_sample_belongs_to_a_family_declared_before_it() {
        // Goal: the exposition is well formed whatever was counted. Method: a served state
        // with a call counted, its text walked line by line.
        let source = MetricsSource::new();
        let state = memory_state();
        source.store_opened(Arc::clone(&state));
        let method = hivestore_idl::handler::METHODS[0].name;
        state.counters.record_call(method, true);
        state
            .counters
            .record_server_time(method, std::time::Duration::from_micros(30));
        let text = source.render();
        let mut declared: Vec<(String, String)> = Vec::new();
        for line in text.lines() {
            if let Some(help) = line.strip_prefix("# HELP ") {
                let name = help.split(' ').next().unwrap();
                assert!(name.starts_with("hivestore_"), "{line}");
                continue;
            }
            if let Some(kind) = line.strip_prefix("# TYPE ") {
                let (name, kind) = kind.split_once(' ').unwrap();
                declared.push((name.to_string(), kind.to_string()));
                continue;
            }
            let name = line.split(['{', ' ']).next().unwrap();
            let (family, kind) = declared.last().expect("a sample after a family");
            let suffixed = ["_bucket", "_sum", "_count"]
                .iter()
                .any(|suffix| name == format!("{family}{suffix}"));
            assert!(
                name == family || (kind == "histogram" && suffixed),
                "{name} under {family}"
            );
        }
        let calls = format!("hivestore_calls_total{{method=\"{method}\"}} 1");
        assert!(text.lines().any(|line| line == calls), "{text}");
        let count = format!("hivestore_call_duration_seconds_count{{method=\"{method}\"}} 1");
        assert!(text.lines().any(|line| line == count), "{text}");
        let names: Vec<&str> = declared.iter().map(|(name, _)| name.as_str()).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "a family declared twice");
    }
}
