//! The server's counters: per-method calls, errors and server time (with its latency
//! histogram), connections, bytes on the wire, and background tasks' state. fb303
//! `getCounters` ([`Counters::snapshot`]) and the Prometheus endpoint (`metrics/`) both read
//! these, so each event is counted once. Every count is a relaxed atomic add on the path
//! that makes it; the few values recorded by background tasks sit behind a mutex that only
//! those tasks and readers take.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hivestore_engine::size::LiveSize;
use hivestore_engine::PrewarmReport;
use hivestore_idl::handler::METHODS;

/// The counter of a method's server time: `<method>.server_ns`.
pub const SERVER_NANOS_SUFFIX: &str = "server_ns";

/// The upper bounds of the server-time histogram's buckets, in nanoseconds: 1, 2.5 and 5 per
/// decade from 10 µs to 10 s. A call slower than the last falls in the `+Inf` bucket.
pub const LATENCY_BUCKET_BOUNDS_NANOS: [u64; 19] = [
    10_000,
    25_000,
    50_000,
    100_000,
    250_000,
    500_000,
    1_000_000,
    2_500_000,
    5_000_000,
    10_000_000,
    25_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    1_000_000_000,
    2_500_000_000,
    5_000_000_000,
    10_000_000_000,
];

/// Buckets of the histogram: one per bound, and `+Inf`.
pub const LATENCY_BUCKET_COUNT: usize = LATENCY_BUCKET_BOUNDS_NANOS.len() + 1;

const _: () = {
    let mut index = 1;
    while index < LATENCY_BUCKET_BOUNDS_NANOS.len() {
        assert!(LATENCY_BUCKET_BOUNDS_NANOS[index - 1] < LATENCY_BUCKET_BOUNDS_NANOS[index]);
        index += 1;
    }
};

/// The bucket a call of `nanos` falls in: the first whose bound it does not exceed.
fn latency_bucket(nanos: u64) -> usize {
    LATENCY_BUCKET_BOUNDS_NANOS
        .iter()
        .position(|bound| nanos <= *bound)
        .unwrap_or(LATENCY_BUCKET_BOUNDS_NANOS.len())
}

#[derive(Default)]
struct MethodCount {
    calls: AtomicU64,
    errors: AtomicU64,
    server_nanos: AtomicU64,
    /// Calls by server time, each bucket on its own (not cumulative).
    latency_buckets: [AtomicU64; LATENCY_BUCKET_COUNT],
}

/// One method's counts, as read at once (each count on its own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodCounts {
    /// The method's wire name.
    pub method: &'static str,
    /// Calls answered.
    pub calls: u64,
    /// Calls that failed.
    pub errors: u64,
    /// Server time of all its calls, in nanoseconds.
    pub server_nanos: u64,
    /// Calls by server time, per bucket of [`LATENCY_BUCKET_BOUNDS_NANOS`] then `+Inf`; not
    /// cumulative.
    pub latency_buckets: [u64; LATENCY_BUCKET_COUNT],
}

/// What the notification event cleaner did (`event_cleaner.rs`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CleanerState {
    /// Rounds run.
    pub rounds: u64,
    /// When the last round ended, in seconds since the Unix epoch (0: none yet).
    pub last_round_seconds: u64,
    /// Expired events deleted.
    pub events_deleted: u64,
    /// Empty aborted transactions purged.
    pub txns_purged: u64,
    /// Batches that failed (retried next round).
    pub errors: u64,
}

/// Where the statistics prewarm run at start is.
#[derive(Debug, Default, Clone, PartialEq)]
pub enum PrewarmState {
    /// Not over yet (or not started yet).
    #[default]
    Running,
    /// Turned off (`--prewarm-mb 0`).
    Off,
    /// Over, with what it kept and how long it took.
    Done(PrewarmReport, Duration),
    /// Failed after this long; reads are only slower the first time.
    Failed(Duration),
}

impl PrewarmState {
    /// Whether it is over, one way or another.
    pub fn is_over(&self) -> bool {
        !matches!(self, PrewarmState::Running)
    }
}

/// The store's live data as last counted (`store_size.rs`).
#[derive(Debug, Clone)]
pub struct LiveCount {
    /// What was counted.
    pub live: LiveSize,
    /// How long the count took.
    pub took: Duration,
    /// When it ended, in seconds since the Unix epoch.
    pub at_seconds: u64,
}

/// Counts of calls and failed calls for every method of the service, plus connection counts.
pub struct Counters {
    by_method: HashMap<&'static str, MethodCount>,
    connections_accepted: AtomicU64,
    connections_refused: AtomicU64,
    connections_evicted: AtomicU64,
    connections_timed_out: AtomicU64,
    /// Connections of the poller's that are not closed yet (`connection.rs`).
    connections_open: AtomicI64,
    authentications_failed: AtomicU64,
    requests_over_budget: AtomicU64,
    /// Bytes read from and written to client sockets (`socket.rs`).
    bytes_read: AtomicU64,
    bytes_written: AtomicU64,
    /// The statistics prewarm (`statistics_prewarm.*`).
    prewarm: Mutex<PrewarmState>,
    /// The store's live data as last counted (`store.live_*`), by `store_size.rs`.
    live_size: Mutex<Option<LiveCount>>,
    /// Live-data counts that failed.
    live_count_errors: AtomicU64,
    /// The notification event cleaner's rounds.
    cleaner: Mutex<CleanerState>,
    /// Online backups: made, failed, and the last one made (`backups.*`).
    backups: Mutex<BackupCounts>,
    /// Calls forwarded to a followed source (`follow.*`).
    forwards: ForwardCounts,
}

/// Calls forwarded to a followed source (`serve --follow-from`).
#[derive(Debug, Default)]
pub struct ForwardCounts {
    /// Calls the source answered (its reply sent on, an exception or not).
    pub forwarded: AtomicU64,
    /// Calls the source could not be asked or did not answer, and writes whose event id could
    /// not be read after them.
    pub errors: AtomicU64,
    /// Writes answered before the follower applied them: their wait expired.
    pub waits_expired: AtomicU64,
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
            connections_open: AtomicI64::new(0),
            authentications_failed: AtomicU64::new(0),
            requests_over_budget: AtomicU64::new(0),
            bytes_read: AtomicU64::new(0),
            bytes_written: AtomicU64::new(0),
            prewarm: Mutex::new(PrewarmState::Running),
            live_size: Mutex::new(None),
            live_count_errors: AtomicU64::new(0),
            cleaner: Mutex::new(CleanerState::default()),
            backups: Mutex::new(BackupCounts::default()),
            forwards: ForwardCounts::default(),
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
            count.latency_buckets[latency_bucket(nanos)].fetch_add(1, Ordering::Relaxed);
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

    /// Records a connection opened on the poller; [`Counters::record_connection_closed`]
    /// when it goes.
    pub fn record_connection_opened(&self) {
        self.connections_open.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a connection of the poller's closed.
    pub fn record_connection_closed(&self) {
        self.connections_open.fetch_sub(1, Ordering::Relaxed);
    }

    /// Records `count` bytes read from a client's socket.
    pub fn record_bytes_read(&self, count: usize) {
        let count = u64::try_from(count).unwrap_or(u64::MAX);
        self.bytes_read.fetch_add(count, Ordering::Relaxed);
    }

    /// Records `count` bytes written to a client's socket.
    pub fn record_bytes_written(&self, count: usize) {
        let count = u64::try_from(count).unwrap_or(u64::MAX);
        self.bytes_written.fetch_add(count, Ordering::Relaxed);
    }

    /// Records where the statistics prewarm is.
    pub fn record_prewarm(&self, state: PrewarmState) {
        *lock(&self.prewarm) = state;
    }

    /// Records the store's live data as counted, in `took`.
    pub fn record_live_size(&self, live: LiveSize, took: Duration) {
        *lock(&self.live_size) = Some(LiveCount {
            live,
            took,
            at_seconds: unix_seconds_now(),
        });
    }

    /// Records a count of the store's live data that failed.
    pub fn record_live_count_failed(&self) {
        self.live_count_errors.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a round of the notification event cleaner: events deleted, transactions
    /// purged, and batches that failed.
    pub fn record_cleaner_round(&self, events_deleted: usize, txns_purged: usize, errors: u64) {
        let count = |value: usize| u64::try_from(value).unwrap_or(u64::MAX);
        let mut cleaner = lock(&self.cleaner);
        cleaner.rounds += 1;
        cleaner.last_round_seconds = unix_seconds_now();
        cleaner.events_deleted += count(events_deleted);
        cleaner.txns_purged += count(txns_purged);
        cleaner.errors += errors;
    }

    /// Every method called at least once, with its counts.
    pub fn methods(&self) -> Vec<MethodCounts> {
        let mut methods: Vec<MethodCounts> = self
            .by_method
            .iter()
            .filter_map(|(method, count)| {
                let latency_buckets = std::array::from_fn(|index| {
                    count.latency_buckets[index].load(Ordering::Relaxed)
                });
                let counts = MethodCounts {
                    method,
                    calls: count.calls.load(Ordering::Relaxed),
                    errors: count.errors.load(Ordering::Relaxed),
                    server_nanos: count.server_nanos.load(Ordering::Relaxed),
                    latency_buckets,
                };
                (counts.calls > 0 || counts.latency_buckets.iter().any(|calls| *calls > 0))
                    .then_some(counts)
            })
            .collect();
        methods.sort_by_key(|counts| counts.method);
        methods
    }

    /// Connections accepted, refused, evicted, timed out, open now; failed authentications;
    /// requests over the in-flight budget; bytes read and written.
    pub fn wire(&self) -> WireCounts {
        WireCounts {
            connections_accepted: self.connections_accepted.load(Ordering::Relaxed),
            connections_refused: self.connections_refused.load(Ordering::Relaxed),
            connections_evicted: self.connections_evicted.load(Ordering::Relaxed),
            connections_timed_out: self.connections_timed_out.load(Ordering::Relaxed),
            connections_open: u64::try_from(self.connections_open.load(Ordering::Relaxed))
                .unwrap_or(0),
            authentications_failed: self.authentications_failed.load(Ordering::Relaxed),
            requests_over_budget: self.requests_over_budget.load(Ordering::Relaxed),
            bytes_read: self.bytes_read.load(Ordering::Relaxed),
            bytes_written: self.bytes_written.load(Ordering::Relaxed),
        }
    }

    /// Where the statistics prewarm is.
    pub fn prewarm(&self) -> PrewarmState {
        lock(&self.prewarm).clone()
    }

    /// The store's live data as last counted, if it was.
    pub fn live_count(&self) -> Option<LiveCount> {
        lock(&self.live_size).clone()
    }

    /// Counts of the store's live data that failed.
    pub fn live_count_errors(&self) -> u64 {
        self.live_count_errors.load(Ordering::Relaxed)
    }

    /// The notification event cleaner's rounds.
    pub fn cleaner(&self) -> CleanerState {
        *lock(&self.cleaner)
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

    /// Calls forwarded to a followed source.
    pub fn forwards(&self) -> &ForwardCounts {
        &self.forwards
    }

    /// Every non-zero counter by name: `<method>.calls`, `<method>.errors`,
    /// `<method>.server_ns` (nanoseconds in all), `connections.accepted`, `connections.refused`,
    /// `connections.evicted`, `connections.timed_out`, `connections.open`,
    /// `connections.authentication_failed`, `requests.over_inflight_budget`, `bytes.read`,
    /// `bytes.written`; once the statistics prewarm is over, `statistics_prewarm.done` (1),
    /// `.columns`, `.bytes`, `.ms` and `.complete` (1 when every table's statistics fitted);
    /// once the store's live data was counted, `store.live_bytes`, `store.live_keys`,
    /// `store.live_count_ms` and `store.live_bytes.<KEYSPACE>` (keys and values of each);
    /// online backups' `backups.done`, `backups.failed`, and the last one's
    /// `backups.last_unix_ms` (when it was written), `backups.last_bytes` and `backups.last_ms`;
    /// calls forwarded to a followed source, `follow.forwarded_calls`, `.forward_errors` and
    /// `.forward_waits_expired`.
    pub fn snapshot(&self) -> BTreeMap<String, i64> {
        let mut counters = BTreeMap::new();
        let mut put = |name: String, value: u64| {
            if value > 0 {
                counters.insert(name, i64::try_from(value).unwrap_or(i64::MAX));
            }
        };
        for method in self.methods() {
            let name = method.method;
            put(format!("{name}.calls"), method.calls);
            put(format!("{name}.errors"), method.errors);
            put(format!("{name}.{SERVER_NANOS_SUFFIX}"), method.server_nanos);
        }
        let wire = self.wire();
        put("connections.accepted".into(), wire.connections_accepted);
        put("connections.refused".into(), wire.connections_refused);
        put("connections.evicted".into(), wire.connections_evicted);
        put("connections.timed_out".into(), wire.connections_timed_out);
        put("connections.open".into(), wire.connections_open);
        put(
            "connections.authentication_failed".into(),
            wire.authentications_failed,
        );
        put(
            "requests.over_inflight_budget".into(),
            wire.requests_over_budget,
        );
        put("bytes.read".into(), wire.bytes_read);
        put("bytes.written".into(), wire.bytes_written);
        if let PrewarmState::Done(report, took) = self.prewarm() {
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
        if let Some(LiveCount { live, took, .. }) = self.live_count() {
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
        let forwards = &self.forwards;
        let load = |count: &AtomicU64| count.load(Ordering::Relaxed);
        put("follow.forwarded_calls".into(), load(&forwards.forwarded));
        put("follow.forward_errors".into(), load(&forwards.errors));
        put(
            "follow.forward_waits_expired".into(),
            load(&forwards.waits_expired),
        );
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

/// The connection and wire counts, as read at once (each count on its own).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WireCounts {
    /// Connections accepted.
    pub connections_accepted: u64,
    /// Connections refused at the cap, every connection in a call.
    pub connections_refused: u64,
    /// Connections closed to make room at the cap.
    pub connections_evicted: u64,
    /// Connections closed at a deadline.
    pub connections_timed_out: u64,
    /// Connections open now.
    pub connections_open: u64,
    /// Connections closed for a failed authentication.
    pub authentications_failed: u64,
    /// Requests refused for want of in-flight budget.
    pub requests_over_budget: u64,
    /// Bytes read from clients' sockets.
    pub bytes_read: u64,
    /// Bytes written to clients' sockets.
    pub bytes_written: u64,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Seconds since the Unix epoch, now.
fn unix_seconds_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_falls_in_the_first_bucket_whose_bound_it_does_not_exceed() {
        assert_eq!(latency_bucket(0), 0);
        assert_eq!(latency_bucket(10_000), 0);
        assert_eq!(latency_bucket(10_001), 1);
        assert_eq!(latency_bucket(1_000_000), 6);
        assert_eq!(latency_bucket(10_000_000_000), 18);
        assert_eq!(latency_bucket(u64::MAX), LATENCY_BUCKET_COUNT - 1);
    }

    #[test]
    fn server_times_fill_the_histogram_and_the_sum() {
        let counters = Counters::default();
        let method = METHODS[0].name;
        counters.record_call(method, false);
        counters.record_server_time(method, Duration::from_micros(5));
        counters.record_call(method, true);
        counters.record_server_time(method, Duration::from_millis(3));
        counters.record_call("no such method", false);
        let methods = counters.methods();
        assert_eq!(methods.len(), 1, "{methods:?}");
        let counts = &methods[0];
        assert_eq!((counts.calls, counts.errors), (2, 1));
        assert_eq!(counts.server_nanos, 3_005_000);
        assert_eq!(counts.latency_buckets[0], 1);
        assert_eq!(counts.latency_buckets[latency_bucket(3_000_000)], 1);
        assert_eq!(counts.latency_buckets.iter().sum::<u64>(), 2);
        let snapshot = counters.snapshot();
        assert_eq!(snapshot.get(&format!("{method}.calls")), Some(&2));
    }
}
