//! A server that serves a copy while it follows another metastore (`hivestore serve
//! --follow-from`): the source stays the authority until cut-over, so calls that would change
//! the copy are refused, naming the source and how to cut over, and reads are answered from
//! the copy. The follower itself (in the CLI) reports its position, the source's last event
//! and its last error here, for the metrics and `/ready`; a cut-over request (SIGUSR2) is
//! recorded here for it to act on.
//!
//! Which calls are reads is decided by name and family, not per method: a `get_`, `list_`,
//! `fetch_`, `find_` or `partition_name_` call, or one of the fb303, session and file-metadata
//! cache families (which change nothing stored, or only the connection's own state), is
//! served; every other call is refused. Locks, transactions, compactions and delegation tokens
//! are refused whatever their names: the copy holds none of the source's.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::errors::{exception, Declared};
use crate::methods::{Family, Implemented};

/// The name prefixes of the calls served while following (reads).
const READ_PREFIXES: [&str; 5] = ["get_", "list_", "fetch_", "find_", "partition_name_"];
/// Families served whole while following: they change nothing stored.
const SERVED_FAMILIES: [Family; 3] = [Family::Fb303, Family::Session, Family::Caches];
/// Families refused whole while following: the copy holds none of the source's state there.
const REFUSED_FAMILIES: [Family; 5] = [
    Family::Locks,
    Family::Transactions,
    Family::Compactions,
    Family::Compactor,
    Family::DelegationTokens,
];
/// Reads by name that take something on the server: a materialized view's rebuild lock.
const REFUSED_READS: [&str; 1] = ["get_lock_materialization_rebuild"];

/// The follower's state, shared by the follower's thread, the dispatcher and the metrics.
#[derive(Debug)]
pub struct Following {
    /// The source, as `--follow-from` gave it.
    source: String,
    /// The last source event applied to the copy (the copy's notification id).
    position: AtomicI64,
    /// The source's last event id, as last read.
    source_event_id: AtomicI64,
    /// The follower's last error, cleared by its next good poll.
    last_error: Mutex<Option<String>>,
    /// Whether a cut-over was asked for.
    cut_over_requested: AtomicBool,
    /// Whether the cut-over is done: writes are served from then on.
    cut_over: AtomicBool,
}

impl Following {
    /// A follower of `source`, at `position`.
    pub fn new(source: String, position: i64) -> Following {
        Following {
            source,
            position: AtomicI64::new(position),
            source_event_id: AtomicI64::new(position),
            last_error: Mutex::new(None),
            cut_over_requested: AtomicBool::new(false),
            cut_over: AtomicBool::new(false),
        }
    }

    /// The source followed.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the copy still follows (writes are refused).
    pub fn is_following(&self) -> bool {
        !self.cut_over.load(Ordering::Acquire)
    }

    /// Records that the copy applied the source's events up to `position`.
    pub fn record_position(&self, position: i64) {
        self.position.store(position, Ordering::Release);
        self.source_event_id.fetch_max(position, Ordering::AcqRel);
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

    /// Asks the follower to cut over: catch up with the source, stop, let writes in.
    pub fn request_cut_over(&self) {
        self.cut_over_requested.store(true, Ordering::Release);
    }

    /// Whether a cut-over was asked for.
    pub fn cut_over_requested(&self) -> bool {
        self.cut_over_requested.load(Ordering::Acquire)
    }

    /// Records that the cut-over is done: calls are no longer refused.
    pub fn finish_cut_over(&self) {
        self.cut_over.store(true, Ordering::Release);
    }

    /// The error a call of `method` gets while following, or `None` when it is served.
    pub fn refusal(&self, method: &Implemented) -> Option<thrift::Error> {
        if !self.is_following() || is_read(method) {
            return None;
        }
        Some(exception(
            Declared::Meta,
            format!(
                "{} is refused: this hivestore follows {} and serves reads only until \
                 cut-over; write to {} meanwhile, or cut over (SIGUSR2 to hivestore serve) \
                 and write here",
                method.name, self.source, self.source
            ),
        ))
    }
}

/// Whether a call of `method` is served while following.
pub fn is_read(method: &Implemented) -> bool {
    if REFUSED_FAMILIES.contains(&method.family) || REFUSED_READS.contains(&method.name) {
        return false;
    }
    SERVED_FAMILIES.contains(&method.family)
        || READ_PREFIXES
            .iter()
            .any(|prefix| method.name.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::{implemented, IMPLEMENTED};

    fn row(name: &str) -> &'static Implemented {
        implemented(name).unwrap_or_else(|| panic!("{name} is not implemented"))
    }

    #[test]
    fn reads_are_served_and_writes_locks_and_transactions_refused() {
        for name in [
            "get_table",
            "get_partitions_by_names",
            "list_privileges",
            "get_next_notification",
            "set_ugi",
            "getMetaConf",
            "getName",
            "partition_name_to_vals",
        ] {
            assert!(is_read(row(name)), "{name}");
        }
        for name in [
            "create_table",
            "alter_partitions",
            "add_partitions",
            "grant_privileges",
            "drop_database",
            "open_txns",
            "get_open_txns",
            "lock",
            "get_valid_write_ids",
            "get_delegation_token",
            "get_lock_materialization_rebuild",
            "set_aggr_stats_for",
        ] {
            assert!(!is_read(row(name)), "{name}");
        }
        // Every row is one or the other; the refused ones outnumber nothing unexpected.
        let served = IMPLEMENTED.iter().filter(|row| is_read(row)).count();
        assert!(served > 0 && served < IMPLEMENTED.len());
    }

    #[test]
    fn a_refusal_names_the_source_and_ends_at_cut_over() {
        let following = Following::new("thrift://old:9083".to_string(), 7);
        let refused = following.refusal(row("create_table")).expect("refused");
        let (kind, message) = crate::errors::declared_parts(&refused).expect("declared");
        assert_eq!(kind, "MetaException");
        let message = message.unwrap_or_default();
        assert!(message.contains("thrift://old:9083"), "{message}");
        assert!(message.contains("SIGUSR2"), "{message}");
        assert!(following.refusal(row("get_table")).is_none());
        following.record_source_event_id(10);
        assert_eq!(following.lag_events(), 3);
        following.record_position(10);
        assert_eq!(following.lag_events(), 0);
        following.finish_cut_over();
        assert!(following.refusal(row("create_table")).is_none());
    }
}
