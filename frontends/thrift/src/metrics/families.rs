//! Every metric `/metrics` serves, read from the server's counters and the store: the one list
//! `docs/metrics.md` documents.

use std::sync::atomic::{AtomicU64, Ordering};

use hivestore_engine::HitsAndMisses;

use super::exposition::{Buckets, Exposition, Kind};
use super::{MetricsSource, Readiness};
use crate::counters::{
    CleanerState, LiveCount, MethodCounts, PrewarmState, LATENCY_BUCKET_BOUNDS_NANOS,
};
use crate::service::ServerState;

const NANOS_PER_SECOND: f64 = 1e9;

/// The exposition of everything `source` knows now.
pub(super) fn render(source: &MetricsSource) -> String {
    let mut out = Exposition::new();
    gauge(
        &mut out,
        "hivestore_uptime_seconds",
        "Seconds since the process started.",
        source.uptime_seconds(),
    );
    gauge(
        &mut out,
        "hivestore_ready",
        "1 when the server is ready for clients (what /ready answers 200 to), else 0.",
        u64::from(source.readiness() == Readiness::Ready),
    );
    if let Some(state) = source.state() {
        calls(&mut out, &state.counters.methods());
        wire(&mut out, state);
        store(&mut out, state);
        kept(&mut out, state);
        background(&mut out, state);
        follow(&mut out, state);
    }
    out.finish()
}

fn gauge(out: &mut Exposition, name: &str, help: &str, value: impl Into<super::exposition::Value>) {
    out.family(name, Kind::Gauge, help);
    out.sample(name, &[], value);
}

fn counter(out: &mut Exposition, name: &str, help: &str, value: u64) {
    out.family(name, Kind::Counter, help);
    out.sample(name, &[], value);
}

/// Per-method calls, errors and server time.
fn calls(out: &mut Exposition, methods: &[MethodCounts]) {
    out.family(
        "hivestore_calls_total",
        Kind::Counter,
        "Calls answered, by HMS method (wire name).",
    );
    for counts in methods {
        out.sample(
            "hivestore_calls_total",
            &[("method", counts.method)],
            counts.calls,
        );
    }
    out.family(
        "hivestore_call_errors_total",
        Kind::Counter,
        "Calls that failed (an exception or an application error), by HMS method.",
    );
    for counts in methods {
        let labels = [("method", counts.method)];
        out.sample("hivestore_call_errors_total", &labels, counts.errors);
    }
    out.family(
        "hivestore_call_duration_seconds",
        Kind::Histogram,
        "Server time of calls, from the whole request read to the reply ready, by HMS method.",
    );
    let bounds = LATENCY_BUCKET_BOUNDS_NANOS.map(|nanos| nanos as f64 / NANOS_PER_SECOND);
    for counts in methods {
        out.histogram(
            "hivestore_call_duration_seconds",
            &[("method", counts.method)],
            &Buckets {
                bounds: &bounds,
                counts: &counts.latency_buckets,
                sum: counts.server_nanos as f64 / NANOS_PER_SECOND,
            },
        );
    }
}

/// Connections, bytes and the in-flight budget of the metastore port.
fn wire(out: &mut Exposition, state: &ServerState) {
    let wire = state.counters.wire();
    gauge(
        out,
        "hivestore_connections_open",
        "Client connections open now.",
        wire.connections_open,
    );
    for (name, help, value) in [
        (
            "hivestore_connections_accepted_total",
            "Client connections accepted.",
            wire.connections_accepted,
        ),
        (
            "hivestore_connections_refused_total",
            "Connections refused at --max-connections, every connection being in a call.",
            wire.connections_refused,
        ),
        (
            "hivestore_connections_evicted_total",
            "Connections closed to make room at --max-connections.",
            wire.connections_evicted,
        ),
        (
            "hivestore_connections_timed_out_total",
            "Connections closed at the idle, message or handshake deadline.",
            wire.connections_timed_out,
        ),
        (
            "hivestore_authentication_failures_total",
            "Connections closed because their client failed to authenticate.",
            wire.authentications_failed,
        ),
        (
            "hivestore_requests_over_inflight_budget_total",
            "Requests refused because unfinished requests held --max-inflight-bytes.",
            wire.requests_over_budget,
        ),
        (
            "hivestore_wire_read_bytes_total",
            "Bytes read from client sockets of the metastore port.",
            wire.bytes_read,
        ),
        (
            "hivestore_wire_written_bytes_total",
            "Bytes written to client sockets of the metastore port.",
            wire.bytes_written,
        ),
    ] {
        counter(out, name, help, value);
    }
    let used = u64::try_from(state.inflight.used()).unwrap_or(u64::MAX);
    gauge(
        out,
        "hivestore_inflight_bytes",
        "Bytes of unfinished requests held now, taken from --max-inflight-bytes.",
        used,
    );
    if let Some(listening) = state.listening() {
        let max = u64::try_from(listening.limits.inflight_bytes_max).unwrap_or(u64::MAX);
        gauge(
            out,
            "hivestore_inflight_bytes_max",
            "The in-flight budget, --max-inflight-bytes.",
            max,
        );
    }
}

/// The store's size, reopens and the audit log's failures.
fn store(out: &mut Exposition, state: &ServerState) {
    match state.store().backend().size_on_disk() {
        Ok(Some(bytes)) => gauge(
            out,
            "hivestore_store_size_on_disk_bytes",
            "Bytes the store's files take on disk.",
            bytes,
        ),
        Ok(None) => {}
        Err(error) => tracing::warn!(%error, "cannot read the store's size on disk"),
    }
    if let Some(LiveCount {
        live,
        took,
        at_seconds,
    }) = state.counters.live_count()
    {
        gauge(
            out,
            "hivestore_store_live_bytes",
            "Bytes of the store's live keys and values, as last counted.",
            live.live_bytes(),
        );
        gauge(
            out,
            "hivestore_store_live_keys",
            "The store's live keys, as last counted.",
            live.keys(),
        );
        out.family(
            "hivestore_store_keyspace_live_bytes",
            Kind::Gauge,
            "Bytes of live keys and values per keyspace, as last counted.",
        );
        for keyspace in &live.keyspaces {
            out.sample(
                "hivestore_store_keyspace_live_bytes",
                &[("keyspace", keyspace.name())],
                keyspace.live_bytes(),
            );
        }
        gauge(
            out,
            "hivestore_store_live_count_duration_seconds",
            "How long the last count of the live data took.",
            took.as_secs_f64(),
        );
        gauge(
            out,
            "hivestore_store_live_count_timestamp_seconds",
            "When the last count of the live data ended, in seconds since the Unix epoch.",
            at_seconds,
        );
    }
    counter(
        out,
        "hivestore_store_live_count_errors_total",
        "Counts of the live data that failed.",
        state.counters.live_count_errors(),
    );
    counter(
        out,
        "hivestore_store_reopens_total",
        "Times the store went back to its durable state after a write failed to reach the disk.",
        state.store().reopen_count(),
    );
    if let Some(audit) = state.audit() {
        counter(
            out,
            "hivestore_audit_write_errors_total",
            "Audit log writes that failed.",
            audit.write_errors(),
        );
    }
}

/// How often the engine's kept structures answered reads.
fn kept(out: &mut Exposition, state: &ServerState) {
    let usage = state.store().usage();
    let kinds: [(&str, HitsAndMisses); 4] = [
        ("name_listings", usage.kept_name_listings),
        ("encodings", usage.kept_encodings),
        ("statistics_chunks", usage.kept_statistics_chunks),
        ("sketch_chunks", usage.kept_sketch_chunks),
    ];
    out.family(
        "hivestore_kept_hits_total",
        Kind::Counter,
        "Reads answered from what the engine keeps in memory, by kind of kept structure.",
    );
    for (kind, counts) in kinds {
        out.sample("hivestore_kept_hits_total", &[("kind", kind)], counts.hits);
    }
    out.family(
        "hivestore_kept_misses_total",
        Kind::Counter,
        "Reads that found nothing kept and read the store, by kind of kept structure.",
    );
    for (kind, counts) in kinds {
        out.sample(
            "hivestore_kept_misses_total",
            &[("kind", kind)],
            counts.misses,
        );
    }
    counter(
        out,
        "hivestore_removal_deleted_keys_total",
        "Keys of dropped tables (partitions, statistics) deleted by removal sweeps.",
        usage.removal_keys_deleted,
    );
    counter(
        out,
        "hivestore_removal_failures_total",
        "Removal sweeps that failed (the next drop or restart finishes them).",
        usage.removal_failures,
    );
}

/// The event cleaner and the statistics prewarm.
fn background(out: &mut Exposition, state: &ServerState) {
    let cleaner: CleanerState = state.counters.cleaner();
    for (name, help, value) in [
        (
            "hivestore_event_cleaner_rounds_total",
            "Rounds of the notification event cleaner.",
            cleaner.rounds,
        ),
        (
            "hivestore_event_cleaner_deleted_events_total",
            "Expired notification events deleted.",
            cleaner.events_deleted,
        ),
        (
            "hivestore_event_cleaner_purged_txns_total",
            "Aborted transactions that wrote nothing, purged.",
            cleaner.txns_purged,
        ),
        (
            "hivestore_event_cleaner_errors_total",
            "Cleaner batches that failed (retried next round).",
            cleaner.errors,
        ),
    ] {
        counter(out, name, help, value);
    }
    gauge(
        out,
        "hivestore_event_cleaner_last_round_timestamp_seconds",
        "When the cleaner's last round ended, in seconds since the Unix epoch (0: none yet).",
        cleaner.last_round_seconds,
    );
    let prewarm = state.counters.prewarm();
    gauge(
        out,
        "hivestore_prewarm_over",
        "1 once the statistics prewarm is over (done, failed or off), else 0.",
        u64::from(prewarm.is_over()),
    );
    gauge(
        out,
        "hivestore_prewarm_failed",
        "1 when the statistics prewarm failed.",
        u64::from(matches!(prewarm, PrewarmState::Failed(_))),
    );
    if let PrewarmState::Done(report, took) = prewarm {
        let count = |value: usize| u64::try_from(value).unwrap_or(u64::MAX);
        gauge(
            out,
            "hivestore_prewarm_duration_seconds",
            "How long the statistics prewarm took.",
            took.as_secs_f64(),
        );
        gauge(
            out,
            "hivestore_prewarm_bytes",
            "Bytes of statistics the prewarm kept.",
            count(report.bytes),
        );
        gauge(
            out,
            "hivestore_prewarm_columns",
            "Columns whose statistics the prewarm kept.",
            count(report.columns),
        );
    }
}

/// The follower of `serve --follow-from`, when there is one.
fn follow(out: &mut Exposition, state: &ServerState) {
    let Some(following) = state.following() else {
        return;
    };
    gauge(
        out,
        "hivestore_follow_following",
        "1 while the server follows its source (writes refused), 0 once cut over.",
        u64::from(following.is_following()),
    );
    gauge(
        out,
        "hivestore_follow_position",
        "The last source event the copy applied (its notification event id).",
        u64::try_from(following.position()).unwrap_or(0),
    );
    gauge(
        out,
        "hivestore_follow_lag_events",
        "Source events not applied yet, as of the follower's last read of the source's id.",
        u64::try_from(following.lag_events()).unwrap_or(0),
    );
    gauge(
        out,
        "hivestore_follow_failing",
        "1 when the follower's last poll failed (its error is in the log and /ready), else 0.",
        u64::from(following.last_error().is_some()),
    );
    let Some(forwarding) = following.forwarding() else {
        return;
    };
    let forwards = state.counters.forwards();
    let load = |count: &AtomicU64| count.load(Ordering::Relaxed);
    counter(
        out,
        "hivestore_follow_forwarded_calls_total",
        "Calls forwarded to the source and answered by it (its exceptions included).",
        load(&forwards.forwarded),
    );
    counter(
        out,
        "hivestore_follow_forward_errors_total",
        "Calls the source could not be asked or did not answer, and forwarded writes whose \
         event id could not be read after them.",
        load(&forwards.errors),
    );
    counter(
        out,
        "hivestore_follow_forward_waits_expired_total",
        "Forwarded writes answered before the follower applied them (--follow-write-wait-ms).",
        load(&forwards.waits_expired),
    );
    gauge(
        out,
        "hivestore_follow_upstream_connections",
        "Connections open to the source for forwarded calls, one per client connection that \
         forwarded a call.",
        forwarding.upstream.open_connections(),
    );
}
