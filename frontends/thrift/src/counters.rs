//! Per-method call and error counts and the server's time, served by fb303 `getCounters`.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use hivestore_engine::size::LiveSize;
use hivestore_engine::PrewarmReport;
use hivestore_idl::handler::METHODS;

/// The counter of a method's server time: `<method>.server_ns`.
pub const SERVER_NANOS_SUFFIX: &str = "server_ns";

#[derive(Default)]
struct MethodCount {
    calls: AtomicU64,
    errors: AtomicU64,
    server_nanos: AtomicU64,
}

/// Counts of calls and failed calls for every method of the service, plus connection counts.
pub struct Counters {
    by_method: HashMap<&'static str, MethodCount>,
    connections_accepted: AtomicU64,
    connections_refused: AtomicU64,
    connections_evicted: AtomicU64,
    connections_timed_out: AtomicU64,
    authentications_failed: AtomicU64,
    requests_over_budget: AtomicU64,
    /// The statistics prewarm, once it is over, and how long it took (`statistics_prewarm.*`).
    prewarm: Mutex<Option<(PrewarmReport, Duration)>>,
    /// The store's live data as last counted (`store.live_*`), by `store_size.rs`.
    live_size: Mutex<Option<(LiveSize, Duration)>>,
    /// Online backups: made, failed, and the last one made (`backups.*`).
    backups: Mutex<BackupCounts>,
}

impl Default for Counters {
    fn default() -> Self {
        Counters {
            by_method: METHODS
                .iter()
                .map(|method| (method.name, MethodCount::default()))
                .collect(),
            connections_accepted: AtomicU64::new(0),
            connections_refused: AtomicU64::new(0),
            connections_evicted: AtomicU64::new(0),
            connections_timed_out: AtomicU64::new(0),
            authentications_failed: AtomicU64::new(0),
            requests_over_budget: AtomicU64::new(0),
            prewarm: Mutex::new(None),
            live_size: Mutex::new(None),
            backups: Mutex::new(BackupCounts::default()),
        }
    }
}

impl Counters {
    /// Records one call of `method` (a wire name) and whether it failed.
    pub fn record_call(&self, method: &str, failed: bool) {
        if let Some(count) = self.by_method.get(method) {
            count.calls.fetch_add(1, Ordering::Relaxed);
            if failed {
                count.errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Adds the time the server spent on one call of `method`: from its whole request read to
    /// its reply ready to send (decoding, the store, encoding; not the socket). A load generator
    /// reads it before and after a run to tell the server's share of what it measured.
    pub fn record_server_time(&self, method: &str, time: Duration) {
        if let Some(count) = self.by_method.get(method) {
            let nanos = u64::try_from(time.as_nanos()).unwrap_or(u64::MAX);
            count.server_nanos.fetch_add(nanos, Ordering::Relaxed);
        }
    }

    /// Records an accepted connection.
    pub fn record_connection_accepted(&self) {
        self.connections_accepted.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a connection closed on accept because the server was at its cap.
    pub fn record_connection_refused(&self) {
        self.connections_refused.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a connection closed to make room for a newcomer at the cap.
    pub fn record_connection_evicted(&self) {
        self.connections_evicted.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a connection closed for silence or for a message that arrived too slowly.
    pub fn record_connection_timed_out(&self) {
        self.connections_timed_out.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a connection closed because its client failed to authenticate.
    pub fn record_authentication_failed(&self) {
        self.authentications_failed.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a request refused because unfinished requests held the in-flight budget.
    pub fn record_request_over_budget(&self) {
        self.requests_over_budget.fetch_add(1, Ordering::Relaxed);
    }

    /// Records the statistics prewarm as over, after `took`.
    pub fn record_prewarm(&self, report: PrewarmReport, took: Duration) {
        if let Ok(mut prewarm) = self.prewarm.lock() {
            *prewarm = Some((report, took));
        }
    }

    /// Records the store's live data as counted, in `took`.
    pub fn record_live_size(&self, live: LiveSize, took: Duration) {
        if let Ok(mut last) = self.live_size.lock() {
            *last = Some((live, took));
        }
    }

    /// Records a backup: its bytes when it was written, `None` when it failed, after `took`.
    pub fn record_backup(&self, bytes: Option<u64>, took: Duration) {
        if let Ok(mut backups) = self.backups.lock() {
            match bytes {
                Some(bytes) => {
                    backups.done += 1;
                    backups.last_bytes = bytes;
                    backups.last_ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX).max(1);
                    backups.last_unix_ms = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |since| {
                            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
                        });
                }
                None => backups.failed += 1,
            }
        }
    }

    /// Every non-zero counter by name: `<method>.calls`, `<method>.errors`,
    /// `<method>.server_ns` (nanoseconds in all), `connections.accepted`, `connections.refused`,
    /// `connections.evicted`, `connections.timed_out`, `requests.over_inflight_budget`;
    /// once the statistics prewarm is over, `statistics_prewarm.done` (1), `.columns`,
    /// `.bytes`, `.ms` and `.complete` (1 when every table's statistics fitted); once the
    /// store's live data was counted, `store.live_bytes`, `store.live_keys`,
    /// `store.live_count_ms` and `store.live_bytes.<KEYSPACE>` (keys and values of each);
    /// online backups' `backups.done`, `backups.failed`, and the last one's
    /// `backups.last_unix_ms` (when it was written), `backups.last_bytes` and `backups.last_ms`.
    pub fn snapshot(&self) -> BTreeMap<String, i64> {
        let mut counters = BTreeMap::new();
        let mut put = |name: String, value: u64| {
            if value > 0 {
                counters.insert(name, i64::try_from(value).unwrap_or(i64::MAX));
            }
        };
        for (method, count) in &self.by_method {
            put(
                format!("{method}.calls"),
                count.calls.load(Ordering::Relaxed),
            );
            put(
                format!("{method}.errors"),
                count.errors.load(Ordering::Relaxed),
            );
            put(
                format!("{method}.{SERVER_NANOS_SUFFIX}"),
                count.server_nanos.load(Ordering::Relaxed),
            );
        }
        put(
            "connections.accepted".into(),
            self.connections_accepted.load(Ordering::Relaxed),
        );
        put(
            "connections.refused".into(),
            self.connections_refused.load(Ordering::Relaxed),
        );
        put(
            "connections.evicted".into(),
            self.connections_evicted.load(Ordering::Relaxed),
        );
        put(
            "connections.timed_out".into(),
            self.connections_timed_out.load(Ordering::Relaxed),
        );
        put(
            "connections.authentication_failed".into(),
            self.authentications_failed.load(Ordering::Relaxed),
        );
        put(
            "requests.over_inflight_budget".into(),
            self.requests_over_budget.load(Ordering::Relaxed),
        );
        let prewarm = self.prewarm.lock().ok().and_then(|prewarm| prewarm.clone());
        if let Some((report, took)) = prewarm {
            let count = |value: usize| u64::try_from(value).unwrap_or(u64::MAX);
            put("statistics_prewarm.done".into(), 1);
            put("statistics_prewarm.columns".into(), count(report.columns));
            put("statistics_prewarm.bytes".into(), count(report.bytes));
            let millis = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
            put("statistics_prewarm.ms".into(), millis);
            put(
                "statistics_prewarm.complete".into(),
                u64::from(report.complete),
            );
        }
        let live = self.live_size.lock().ok().and_then(|live| live.clone());
        if let Some((live, took)) = live {
            put("store.live_bytes".into(), live.live_bytes());
            put("store.live_keys".into(), live.keys());
            let millis = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
            put("store.live_count_ms".into(), millis.max(1));
            for keyspace in &live.keyspaces {
                let name = format!("store.live_bytes.{}", keyspace.name());
                put(name, keyspace.live_bytes());
            }
        }
        let backups = self
            .backups
            .lock()
            .map(|backups| *backups)
            .unwrap_or_default();
        put("backups.done".into(), backups.done);
        put("backups.failed".into(), backups.failed);
        put("backups.last_unix_ms".into(), backups.last_unix_ms);
        put("backups.last_bytes".into(), backups.last_bytes);
        put("backups.last_ms".into(), backups.last_ms);
        counters
    }
}

/// The online backups' counts.
#[derive(Debug, Clone, Copy, Default)]
struct BackupCounts {
    done: u64,
    failed: u64,
    last_unix_ms: u64,
    last_bytes: u64,
    last_ms: u64,
}
