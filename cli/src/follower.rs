//! `hivestore serve --follow-from`: the server serves a copy made by `hivestore import` while a
//! thread of its own applies the source's notification log to it, as `import --follow` does
//! (`import/follow.rs`, `import/copy.rs`). Until cut-over the source is the authority: clients
//! read the copy and their writes are forwarded to the source (`hivestore_thrift::following`),
//! each reply held until this thread applied the write (it polls at once when asked); the copy
//! logs no events of its own, so its notification id is the follower's position, and the
//! warehouse filesystem is left alone (the source made, moved and deleted its directories).
//!
//! Cut-over (SIGUSR2): the follower applies the source's events up to the source's last, writes
//! the cut-over file into the data directory, starts logging events and touching the
//! warehouse, and serves writes itself. A later start with `--follow-from` on that directory is
//! refused: the copy is the authority from then on.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hivestore_loadgen::Endpoint;
use hivestore_thrift::following::Following;
use hivestore_thrift::forwarding::Upstream;
use hivestore_thrift::service::ServerState;

use crate::import::copy::Copier;
use crate::import::follow::{
    self, FOLLOW_GRANTS_INTERVAL_SECS_DEFAULT, FOLLOW_INTERVAL_MS_DEFAULT, STOP_CHECK,
};
use crate::import::reads::{Side, SourceCalls};

/// The file in the data directory that records a cut-over: the source and the event id.
pub const CUT_OVER_FILE: &str = "cut-over";
/// Partitions read per call when the follower re-reads a table's (as `import`'s default).
const FOLLOW_BATCH_SIZE: usize = crate::import::copy::PARTITION_BATCH_SIZE_DEFAULT;

/// `serve`'s flags for following a source until cut-over.
#[derive(clap::Args, Debug, Clone)]
pub struct FollowFromArgs {
    /// Serve the data directory's copy of this metastore (thrift://host:port; the copy made
    /// by `hivestore import`) while applying its notification log; reads only until cut-over
    /// (SIGUSR2). Refused on a copy already cut over [default: off].
    #[arg(long)]
    pub follow_from: Option<String>,
    /// How long the follower waits after a poll that found no event, in milliseconds (at
    /// most 60000).
    #[arg(long, default_value_t = FOLLOW_INTERVAL_MS_DEFAULT)]
    pub follow_interval_ms: u64,
    /// How often the follower makes the copy's grants the source's, in seconds (at least 1).
    #[arg(long, default_value_t = FOLLOW_GRANTS_INTERVAL_SECS_DEFAULT)]
    pub follow_grants_interval_secs: u64,
}

/// A follower checked and connected, before the store opens.
pub struct Prepared {
    endpoint: Endpoint,
    interval: Duration,
    grants_interval: Duration,
    cut_over_file: PathBuf,
}

/// Checks `args` and the data directory, and reaches the source once: `None` without
/// `--follow-from`. `data_dir` is the embedded store's directory (`None`: another store,
/// which cannot follow).
pub fn prepare(args: &FollowFromArgs, data_dir: Option<&Path>) -> Result<Option<Prepared>, String> {
    let Some(from) = &args.follow_from else {
        return Ok(None);
    };
    follow::check_intervals(args.follow_interval_ms, args.follow_grants_interval_secs)?;
    let data_dir = data_dir.ok_or("--follow-from needs the embedded store (--data-dir)")?;
    let cut_over_file = data_dir.join(CUT_OVER_FILE);
    if let Ok(recorded) = std::fs::read_to_string(&cut_over_file) {
        return Err(format!(
            "--follow-from {from}: this copy was cut over ({}: {}); it serves writes itself \
             now: start it without --follow-from",
            cut_over_file.display(),
            recorded.trim().replace('\n', ", ")
        ));
    }
    let endpoint =
        Endpoint::parse(from, false, false).map_err(|error| format!("--follow-from: {error}"))?;
    connect(&endpoint)?;
    Ok(Some(Prepared {
        endpoint,
        interval: Duration::from_millis(args.follow_interval_ms),
        grants_interval: Duration::from_secs(args.follow_grants_interval_secs),
        cut_over_file,
    }))
}

impl Prepared {
    /// The source, as given.
    pub fn source(&self) -> &str {
        &self.endpoint.uri
    }

    /// The source as forwarded writes reach it: its wire format, replies up to
    /// `reply_bytes_max`.
    pub fn upstream(&self, reply_bytes_max: usize) -> Upstream {
        Upstream::new(
            self.endpoint.uri.clone(),
            self.endpoint.authority.clone(),
            self.endpoint.framed,
            reply_bytes_max,
        )
    }

    /// Starts the follower's thread over `state`'s store, from its event id.
    pub fn start(self, state: Arc<ServerState>) -> Result<(), String> {
        let following = Arc::clone(
            state
                .following()
                .expect("a followed server's state has its Following"),
        );
        std::thread::Builder::new()
            .name("follower".to_string())
            .spawn(move || run(&self, &state, &following))
            .map_err(|error| format!("cannot start the follower: {error}"))?;
        Ok(())
    }
}

fn connect(endpoint: &Endpoint) -> Result<Side<SourceCalls>, String> {
    let client = endpoint
        .connect_admin()
        .map_err(|error| format!("cannot reach {}: {error}", endpoint.uri))?;
    Side::detect(SourceCalls(client))
}

/// The follower's loop: polls, records where it is, and cuts over when asked. A failure is
/// recorded and retried over a new connection after the interval.
fn run(prepared: &Prepared, state: &Arc<ServerState>, following: &Following) {
    let mut copier: Option<Copier> = None;
    let mut grants_synced: Option<Instant> = None;
    tracing::info!(
        source = following.source(),
        from_event_id = following.position(),
        "following the source's notification log; writes go to the source until cut-over (SIGUSR2)"
    );
    loop {
        let current = match &copier {
            Some(current) => current,
            None => match connect(&prepared.endpoint) {
                Ok(source) => {
                    let made = Copier::new(vec![source], Arc::clone(state), FOLLOW_BATCH_SIZE);
                    copier.insert(made)
                }
                Err(error) => {
                    failed(following, error, prepared.interval);
                    continue;
                }
            },
        };
        let grants_due = following.take_grants_request()
            || grants_synced.is_none_or(|at| at.elapsed() >= prepared.grants_interval);
        let step = if following.cut_over_requested() {
            cut_over(current, state, following, &prepared.cut_over_file).map(|()| None)
        } else if grants_due {
            current.sync_all_grants().map(|()| {
                grants_synced = Some(Instant::now());
                Some(1)
            })
        } else {
            step(current, following)
        };
        match step {
            Ok(None) => return,
            Ok(Some(applied)) => {
                following.record_error(None);
                if applied == 0 {
                    following.pause(prepared.interval);
                }
            }
            Err(error) => {
                failed(following, error, prepared.interval);
                copier = None;
            }
        }
    }
}

/// One poll of the source; returns how many events were applied.
fn step(copier: &Copier, following: &Following) -> Result<Option<u64>, String> {
    let source_event_id = copier.source().current_event_id()?;
    following.record_source_event_id(source_event_id);
    let (position, applied) = follow::poll(copier, following.position(), &|| false)?;
    following.record_position(position);
    if applied > 0 {
        tracing::info!(
            applied,
            last_event_id = position,
            "applied the source's events"
        );
    }
    Ok(Some(applied))
}

/// Applies the source's events up to its last, records the cut-over, and lets writes in.
fn cut_over(
    copier: &Copier,
    state: &ServerState,
    following: &Following,
    cut_over_file: &Path,
) -> Result<(), String> {
    // No call starts forwarding now; those in flight wait for the follower to apply them.
    while following.forwards_in_flight(STOP_CHECK) > 0 {
        let (position, _) = follow::poll(copier, following.position(), &|| false)?;
        following.record_position(position);
    }
    let target = copier.source().current_event_id()?;
    following.record_source_event_id(target);
    while following.position() < target {
        let (position, applied) = follow::poll(copier, following.position(), &|| false)?;
        following.record_position(position);
        if applied == 0 {
            break;
        }
    }
    copier.sync_all_grants()?;
    let position = following.position();
    let record = format!("source {}\nevent id {position}\n", following.source());
    std::fs::write(cut_over_file, record)
        .map_err(|error| format!("cannot write {}: {error}", cut_over_file.display()))?;
    let store = state.store();
    store
        .start_logging_events()
        .map_err(|error| format!("cannot start logging events: {error}"))?;
    store.set_warehouse_untouched(false);
    following.finish_cut_over();
    tracing::info!(
        source = following.source(),
        event_id = position,
        "cut over: this server serves writes itself from now on; the source is no longer read"
    );
    Ok(())
}

fn failed(following: &Following, error: String, interval: Duration) {
    tracing::warn!(source = following.source(), %error, "the follower failed; retrying");
    following.record_error(Some(error));
    following.pause(interval);
}
