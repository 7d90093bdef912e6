//! A server that serves a copy while it follows another metastore (`hivestore serve
//! --follow-from`): the source stays the authority until cut-over, so calls that would change
//! the copy are forwarded to the source (`forwarding/`), each client's over a connection of its
//! own, and their replies held until the follower applied the source's log up to them; reads
//! are answered from the copy. The follower itself (in the CLI) reports its position, the
//! source's last event and its last error here, for the metrics, `/ready` and the forwarded
//! calls' waits; a cut-over request (SIGUSR2) is recorded here for it to act on.
//!
//! Which calls go where is decided by family, then by name ([`Following::route`]):
//! - the fb303, session and file-metadata cache families change nothing stored, or only the
//!   connection's own state: served here;
//! - the families the copy holds (catalogs, databases, tables, partitions, statistics,
//!   constraints, functions, roles and privileges): a `get_`, `list_`, `fetch_`, `find_` or
//!   `partition_name_` call is served from the copy, any other forwarded and waited for;
//!   a materialized view's rebuild lock is forwarded without a wait (it is a lock);
//! - delegation tokens: refused (the source's tokens cannot log into this server, nor this
//!   server's into the source);
//! - every other family (locks, transactions and write ids, compactions, the notification
//!   log, and the state the copy does not hold: types, the schema registry, stored
//!   procedures, data connectors, workload management, query services, replication, the
//!   property store): forwarded whole, reads too, without a wait (the follower applies none
//!   of their events).

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::errors::{exception, Declared};
use crate::forwarding::{CatchUp, Upstream};
use crate::methods::{Family, Implemented};

/// The name prefixes of the calls of the copied families served from the copy (reads).
const READ_PREFIXES: [&str; 5] = ["get_", "list_", "fetch_", "find_", "partition_name_"];
/// Families served whole while following: they change nothing stored.
const SERVED_FAMILIES: [Family; 3] = [Family::Fb303, Family::Session, Family::Caches];
/// Families whose objects the copy holds and the follower applies.
const COPIED_FAMILIES: [Family; 8] = [
    Family::Catalogs,
    Family::Databases,
    Family::Tables,
    Family::Partitions,
    Family::Statistics,
    Family::Constraints,
    Family::Functions,
    Family::RolesAndPrivileges,
];
/// Families refused whole while following.
const REFUSED_FAMILIES: [Family; 1] = [Family::DelegationTokens];
/// Calls of the copied families that take or keep a lock: forwarded, not waited for.
const LOCKING_CALLS: [&str; 2] = [
    "get_lock_materialization_rebuild",
    "heartbeat_lock_materialization_rebuild",
];

/// The most a forwarded write may wait for the follower, in milliseconds
/// (`--follow-write-wait-ms`): Hive's clients wait 600 s for a reply.
pub const FOLLOW_WRITE_WAIT_MS_MAX: u64 = 600_000;
/// How long a forwarded write waits for the follower by default, in milliseconds.
pub const FOLLOW_WRITE_WAIT_MS_DEFAULT: u64 = 10_000;

/// Where a call goes while following.
#[derive(Debug)]
pub enum Route {
    /// Answered here, from the copy.
    Served,
    /// Sent to the source; `wait`: its reply held until the follower applied the source's
    /// log up to it.
    Forwarded {
        /// Whether to wait for the follower.
        wait: bool,
    },
    /// Refused with this error.
    Refused(thrift::Error),
}

/// Forwarding writes to the source: where, and how long a write waits for the follower.
#[derive(Debug)]
pub struct Forwarding {
    /// The source, as forwarded calls reach it.
    pub upstream: Arc<Upstream>,
    /// How long a forwarded write's reply waits for the follower (`--follow-write-wait-ms`).
    pub write_wait: Duration,
}

/// The follower's state, shared by the follower's thread, the dispatcher and the metrics.
#[derive(Debug)]
pub struct Following {
    /// The source, as `--follow-from` gave it.
    source: String,
    /// The last source event applied to the copy (the copy's notification id).
    position: AtomicI64,
    /// Signalled when `position` moves or the cut-over is done, under its mutex.
    applied: (Mutex<()>, Condvar),
    /// The source's last event id, as last read.
    source_event_id: AtomicI64,
    /// The follower's last error, cleared by its next good poll.
    last_error: Mutex<Option<String>>,
    /// Whether a forwarded write asked the follower to poll now.
    poll_requested: AtomicBool,
    /// Signalled when a poll or the cut-over is asked for, under its mutex.
    woken: (Mutex<()>, Condvar),
    /// Whether a forwarded grant asked the follower to sync the grants now.
    grants_requested: AtomicBool,
    /// Whether a cut-over was asked for.
    cut_over_requested: AtomicBool,
    /// Forwarded calls between their start and their reply, counted under the mutex that
    /// also orders them with the cut-over's request; signalled when one ends.
    in_flight: (Mutex<usize>, Condvar),
    /// Whether the cut-over is done: writes are served from then on.
    cut_over: AtomicBool,
    /// Where writes go until cut-over; `None`: they are refused.
    forwarding: Option<Forwarding>,
}

impl Following {
    /// A follower of `source`, at `position`, refusing writes.
    pub fn new(source: String, position: i64) -> Following {
        Following {
            source,
            position: AtomicI64::new(position),
            applied: (Mutex::new(()), Condvar::new()),
            source_event_id: AtomicI64::new(position),
            last_error: Mutex::new(None),
            poll_requested: AtomicBool::new(false),
            woken: (Mutex::new(()), Condvar::new()),
            grants_requested: AtomicBool::new(false),
            cut_over_requested: AtomicBool::new(false),
            in_flight: (Mutex::new(0), Condvar::new()),
            cut_over: AtomicBool::new(false),
            forwarding: None,
        }
    }

    /// The same follower, forwarding writes to its source as `forwarding` says.
    pub fn with_forwarding(mut self, forwarding: Forwarding) -> Following {
        self.forwarding = Some(forwarding);
        self
    }

    /// Where writes go until cut-over, when they are forwarded.
    pub fn forwarding(&self) -> Option<&Forwarding> {
        self.forwarding.as_ref()
    }

    /// The source followed.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the copy still follows (writes are forwarded or refused).
    pub fn is_following(&self) -> bool {
        !self.cut_over.load(Ordering::Acquire)
    }

    /// Records that the copy applied the source's events up to `position`.
    pub fn record_position(&self, position: i64) {
        self.position.store(position, Ordering::Release);
        self.source_event_id.fetch_max(position, Ordering::AcqRel);
        self.signal_applied();
    }

    fn signal_applied(&self) {
        let (lock, changed) = &self.applied;
        let _guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        changed.notify_all();
    }

    /// Records the source's last event id, as read.
    pub fn record_source_event_id(&self, event_id: i64) {
        self.source_event_id.fetch_max(event_id, Ordering::AcqRel);
    }

    /// Records the follower's last error (`None`: it polled well since).
    pub fn record_error(&self, error: Option<String>) {
        *self
            .last_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = error;
    }

    /// The last source event applied.
    pub fn position(&self) -> i64 {
        self.position.load(Ordering::Acquire)
    }

    /// How many of the source's events the copy has not applied, as last read.
    pub fn lag_events(&self) -> i64 {
        (self.source_event_id.load(Ordering::Acquire) - self.position()).max(0)
    }

    /// The follower's last error, if its last poll failed.
    pub fn last_error(&self) -> Option<String> {
        self.last_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether a forwarded write asked for a poll since the last call; clears the request.
    pub fn take_poll_request(&self) -> bool {
        self.poll_requested.swap(false, Ordering::AcqRel)
    }

    /// The follower's pause between polls: `within`, or less when a poll (cleared) or the
    /// cut-over is asked for.
    pub fn pause(&self, within: Duration) {
        let deadline = Instant::now() + within;
        let (lock, woken) = &self.woken;
        let mut guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        while !self.take_poll_request() && !self.cut_over_requested() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            guard = woken
                .wait_timeout(guard, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    fn wake(&self) {
        let (lock, woken) = &self.woken;
        let _guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        woken.notify_all();
    }

    /// Asks the follower to make the copy's grants the source's at its next step (grants
    /// have no events).
    pub fn request_grants_sync(&self) {
        self.grants_requested.store(true, Ordering::Release);
        self.hurry();
    }

    /// Whether a grants sync was asked for since the last call; clears the request.
    pub fn take_grants_request(&self) -> bool {
        self.grants_requested.swap(false, Ordering::AcqRel)
    }

    /// Asks the follower to cut over: catch up with the source, stop, let writes in.
    pub fn request_cut_over(&self) {
        {
            let _in_flight = self
                .in_flight
                .0
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            self.cut_over_requested.store(true, Ordering::Release);
        }
        self.wake();
    }

    /// Starts a forwarded call, unless a cut-over was asked for (`None`): a call forwarded
    /// after the follower read the source's last id would be missing from the copy. The call
    /// counts as in flight until the guard is dropped.
    pub fn start_forward(&self) -> Option<InFlight<'_>> {
        let mut in_flight = self
            .in_flight
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if self.cut_over_requested() {
            return None;
        }
        *in_flight += 1;
        Some(InFlight(self))
    }

    /// How many forwarded calls are in flight; waits up to `within` for one to end first
    /// when some are.
    pub fn forwards_in_flight(&self, within: Duration) -> usize {
        let (lock, ended) = &self.in_flight;
        let in_flight = lock.lock().unwrap_or_else(PoisonError::into_inner);
        if *in_flight == 0 {
            return 0;
        }
        *ended
            .wait_timeout(in_flight, within)
            .unwrap_or_else(PoisonError::into_inner)
            .0
    }

    /// Waits up to `within` for the cut-over to be done; whether it is.
    pub fn wait_for_cut_over(&self, within: Duration) -> bool {
        self.wait_for(i64::MAX, within)
    }

    /// Whether a cut-over was asked for.
    pub fn cut_over_requested(&self) -> bool {
        self.cut_over_requested.load(Ordering::Acquire)
    }

    /// Records that the cut-over is done: calls are served here from then on.
    pub fn finish_cut_over(&self) {
        self.cut_over.store(true, Ordering::Release);
        self.signal_applied();
    }

    /// Where a call of `method` goes: served here once cut over.
    pub fn route(&self, method: &Implemented) -> Route {
        if !self.is_following() || SERVED_FAMILIES.contains(&method.family) {
            return Route::Served;
        }
        let copied = COPIED_FAMILIES.contains(&method.family);
        let refused = REFUSED_FAMILIES.contains(&method.family);
        if copied && !LOCKING_CALLS.contains(&method.name) && is_read_name(method.name) {
            return Route::Served;
        }
        if refused || self.forwarding.is_none() {
            return Route::Refused(self.refusal(method.name, refused));
        }
        Route::Forwarded {
            wait: copied && !LOCKING_CALLS.contains(&method.name),
        }
    }

    /// The error a call of `method` gets while following when it cannot be forwarded.
    fn refusal(&self, method: &str, tokens: bool) -> thrift::Error {
        let source = &self.source;
        let message = if tokens {
            format!(
                "{method} is refused: this hivestore follows {source} until cut-over and \
                 neither issues nor checks its delegation tokens meanwhile; ask {source}, or \
                 cut over (SIGUSR2 to hivestore serve) and ask here"
            )
        } else {
            format!(
                "{method} is refused: this hivestore follows {source} and serves reads only \
                 until cut-over; write to {source} meanwhile, or cut over (SIGUSR2 to \
                 hivestore serve) and write here"
            )
        };
        exception(Declared::Meta, message)
    }
}

/// A forwarded call in flight ([`Following::start_forward`]).
pub struct InFlight<'a>(&'a Following);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        let (lock, ended) = &self.0.in_flight;
        let mut in_flight = lock.lock().unwrap_or_else(PoisonError::into_inner);
        *in_flight = in_flight.saturating_sub(1);
        ended.notify_all();
    }
}

impl CatchUp for Following {
    fn hurry(&self) {
        self.poll_requested.store(true, Ordering::Release);
        self.wake();
    }

    /// Done at cut-over too: the copy serves its own writes from then on.
    fn wait_for(&self, event_id: i64, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        let (lock, changed) = &self.applied;
        let mut guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if self.position() >= event_id || !self.is_following() {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            guard = changed
                .wait_timeout(guard, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// Whether `name` is a read's by its prefix.
/// Families whose state a server reading beside another's writes holds only in memory, or
/// that take something on the server: a reader refuses their calls, reads too.
const WRITER_FAMILIES: [Family; 5] = [
    Family::Locks,
    Family::Transactions,
    Family::Compactions,
    Family::Compactor,
    Family::DelegationTokens,
];

/// Whether a server that reads beside the one writing its store (`serve --reader`) answers a
/// call of `method`: the fb303, session and cache families, and the reads (by name) of every
/// family but those whose state only the writer holds.
pub fn served_by_reader(method: &Implemented) -> bool {
    SERVED_FAMILIES.contains(&method.family)
        || (!WRITER_FAMILIES.contains(&method.family)
            && !LOCKING_CALLS.contains(&method.name)
            && is_read_name(method.name))
}

fn is_read_name(name: &str) -> bool {
    READ_PREFIXES.iter().any(|prefix| name.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::{implemented, IMPLEMENTED};

    fn row(name: &str) -> &'static Implemented {
        implemented(name).unwrap_or_else(|| panic!("{name} is not implemented"))
    }

    fn forwarding() -> Following {
        let upstream = Upstream::new("thrift://old:9083".into(), "old:9083".into(), false, 1);
        Following::new("thrift://old:9083".to_string(), 7).with_forwarding(Forwarding {
            upstream: Arc::new(upstream),
            write_wait: Duration::from_secs(1),
        })
    }

    fn route(following: &Following, name: &str) -> &'static str {
        match following.route(row(name)) {
            Route::Served => "served",
            Route::Forwarded { wait: true } => "waited",
            Route::Forwarded { wait: false } => "forwarded",
            Route::Refused(_) => "refused",
        }
    }

    #[test]
    fn a_reader_serves_reads_but_not_what_only_the_writer_holds() {
        for served in [
            "get_table",
            "get_partitions_by_filter",
            "get_next_notification",
            "get_current_notificationEventId",
            "getCounters",
            "set_ugi",
        ] {
            assert!(served_by_reader(row(served)), "{served}");
        }
        for refused in [
            "create_table",
            "add_partitions",
            "lock",
            "open_txns",
            "get_open_txns",
            "get_valid_write_ids",
            "show_compact",
            "get_delegation_token",
            "get_lock_materialization_rebuild",
        ] {
            assert!(!served_by_reader(row(refused)), "{refused}");
        }
    }

    #[test]
    fn reads_are_served_writes_waited_for_and_the_sources_state_forwarded() {
        let following = forwarding();
        for (name, expected) in [
            ("get_table", "served"),
            ("get_partitions_by_names", "served"),
            ("list_privileges", "served"),
            ("set_ugi", "served"),
            ("getMetaConf", "served"),
            ("getName", "served"),
            ("partition_name_to_vals", "served"),
            ("create_table", "waited"),
            ("alter_partitions", "waited"),
            ("add_partitions", "waited"),
            ("grant_privileges", "waited"),
            ("drop_database", "waited"),
            ("set_aggr_stats_for", "waited"),
            ("open_txns", "forwarded"),
            ("get_open_txns", "forwarded"),
            ("lock", "forwarded"),
            ("get_valid_write_ids", "forwarded"),
            ("get_current_notificationEventId", "forwarded"),
            ("get_next_notification", "forwarded"),
            ("get_lock_materialization_rebuild", "forwarded"),
            ("get_delegation_token", "refused"),
        ] {
            assert_eq!(route(&following, name), expected, "{name}");
        }
        // Every row has a route, and each route has rows.
        for expected in ["served", "waited", "forwarded", "refused"] {
            assert!(IMPLEMENTED
                .iter()
                .any(|method| route(&following, method.name) == expected));
        }
    }

    #[test]
    fn without_forwarding_writes_are_refused_naming_the_source_until_cut_over() {
        let following = Following::new("thrift://old:9083".to_string(), 7);
        let Route::Refused(refused) = following.route(row("create_table")) else {
            panic!("not refused");
        };
        let (kind, message) = crate::errors::declared_parts(&refused).expect("declared");
        assert_eq!(kind, "MetaException");
        let message = message.unwrap_or_default();
        assert!(message.contains("thrift://old:9083"), "{message}");
        assert!(message.contains("SIGUSR2"), "{message}");
        assert!(matches!(following.route(row("get_table")), Route::Served));
        following.record_source_event_id(10);
        assert_eq!(following.lag_events(), 3);
        following.record_position(10);
        assert_eq!(following.lag_events(), 0);
        following.finish_cut_over();
        assert!(matches!(
            following.route(row("create_table")),
            Route::Served
        ));
    }

    #[test]
    fn a_wait_ends_when_the_follower_applies_the_event_or_at_its_bound() {
        let following = Arc::new(forwarding());
        assert!(following.wait_for(7, Duration::ZERO));
        assert!(!following.wait_for(8, Duration::from_millis(1)));
        following.hurry();
        following.pause(Duration::from_secs(600));
        assert!(!following.take_poll_request());
        let applier = Arc::clone(&following);
        let applied = std::thread::spawn(move || applier.record_position(9));
        assert!(following.wait_for(9, Duration::from_secs(600)));
        applied.join().unwrap();
        following.finish_cut_over();
        assert!(following.wait_for(1_000, Duration::from_secs(600)));
    }

    #[test]
    fn no_call_starts_forwarding_once_a_cut_over_is_asked_for() {
        let following = forwarding();
        let in_flight = following.start_forward().expect("forwarded");
        assert_eq!(following.forwards_in_flight(Duration::ZERO), 1);
        following.request_cut_over();
        assert!(following.start_forward().is_none());
        drop(in_flight);
        assert_eq!(following.forwards_in_flight(Duration::from_secs(600)), 0);
        assert!(!following.wait_for_cut_over(Duration::from_millis(1)));
        following.finish_cut_over();
        assert!(following.wait_for_cut_over(Duration::from_secs(600)));
    }
}
