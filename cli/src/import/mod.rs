//! `hivestore import`: copies a live Hive Metastore's catalog (Hive 2.3 to 4, or another
//! hivestore) into a stopped hivestore's data directory, compares the two (`--verify`), and
//! keeps applying the source's changes until cut-over (`--follow`). See docs/migration.md.
//!
//! The copy is written through the Thrift handler's `Session` in process, so every Hive rule
//! applies as it does for a client, over a store opened with no warehouse filesystem (the
//! source's locations are recorded as they are; no directory is made, moved or deleted) and
//! without event logging (the copy's notification id is raised to the source's instead).

mod compare;
pub mod copy;
pub mod follow;
mod progress;
pub mod reads;
mod verify;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use hivestore_engine::{Store, StoreOptions};
use hivestore_loadgen::Endpoint;
use hivestore_thrift::service::{ServerSettings, ServerState};

use copy::PARTITION_BATCH_SIZE_MAX;
use copy::{Copier, CONNECTIONS_DEFAULT, CONNECTIONS_MAX, PARTITION_BATCH_SIZE_DEFAULT};
use follow::{FOLLOW_GRANTS_INTERVAL_SECS_DEFAULT, FOLLOW_INTERVAL_MS_DEFAULT};
use progress::Reporter;
use reads::{Side, SourceCalls};
use verify::Verifier;

/// `hivestore import`'s flags.
#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// The metastore to copy from: thrift://host:port (Hive 2.3 to 4, or hivestore).
    #[arg(long)]
    pub from: String,
    /// The data directory of the copy; created if missing. The copy is written while no
    /// server runs on it: stop `hivestore serve` first (the store locks its directory).
    #[arg(long, default_value = hivestore_thrift::config::DATA_DIR_DEFAULT)]
    pub data_dir: PathBuf,
    /// The copy's warehouse root, as `serve --warehouse` will be given (the default catalog's
    /// location). Give the source's `hive.metastore.warehouse.dir`. Nothing is created there.
    #[arg(long, default_value = hivestore_thrift::config::WAREHOUSE_DEFAULT)]
    pub warehouse: String,
    /// Connections to the source that partitions are read over in parallel (1 to 64).
    #[arg(long, default_value_t = CONNECTIONS_DEFAULT)]
    pub connections: usize,
    /// Partitions read and written per call (`get_partitions_by_names`, statistics; 1 to
    /// 10000).
    #[arg(long, default_value_t = PARTITION_BATCH_SIZE_DEFAULT)]
    pub batch_size: usize,
    /// Do not copy: only compare (`--verify`) or follow (`--follow`) an earlier copy
    /// [default: off, copy].
    #[arg(long)]
    pub skip_copy: bool,
    /// After the copy, compare source and copy object by object and print every difference;
    /// exits 2 if there is any [default: off].
    #[arg(long)]
    pub verify: bool,
    /// After the copy, apply the source's notification log to the copy until SIGINT or
    /// SIGTERM (the source must log events: Hive's DbNotificationListener, or hivestore)
    /// [default: off].
    #[arg(long)]
    pub follow: bool,
    /// How long `--follow` waits after a poll that found no event, in milliseconds (at most
    /// 60000).
    #[arg(long, default_value_t = FOLLOW_INTERVAL_MS_DEFAULT)]
    pub follow_interval_ms: u64,
    /// How often `--follow` makes the copy's grants the source's, in seconds (no event
    /// announces a grant; at least 1).
    #[arg(long, default_value_t = FOLLOW_GRANTS_INTERVAL_SECS_DEFAULT)]
    pub follow_grants_interval_secs: u64,
    /// Use the framed transport to the source (default: buffered).
    #[arg(long)]
    pub framed: bool,
    /// Use the compact protocol to the source (default: binary).
    #[arg(long)]
    pub compact: bool,
    /// Connect to the source over TLS, trusting the CA certificates of this PEM file
    /// [default: plain TCP].
    #[arg(long)]
    pub tls_ca: Option<PathBuf>,
    /// The user announced to the source with `set_ugi` (default: none).
    #[arg(long)]
    pub user: Option<String>,
}

/// Why an import ended without success, and its exit code.
pub enum Failure {
    /// The import could not be done; the message says why.
    Error(String),
    /// `--verify` found differences (printed).
    Differences(u64),
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Error(message)
    }
}

/// Runs `hivestore import`.
pub fn run(args: &ImportArgs) -> Result<(), Failure> {
    check(args)?;
    let endpoint = endpoint(args)?;
    // The source first: a wrong URI or a dead source writes nothing, not even a new store.
    let mut sources = Vec::with_capacity(args.connections);
    for _ in 0..args.connections {
        let client = endpoint
            .connect_admin()
            .map_err(|error| format!("cannot read the source: {error}"))?;
        sources.push(Side::detect(SourceCalls(client))?);
    }
    let dialect = sources[0].dialect;
    tracing::info!(source = %endpoint.uri, ?dialect, "source reached");
    let state = Arc::new(copy_state(open_store(args)?));
    let copier = Copier::new(sources, Arc::clone(&state), args.batch_size);
    if !args.skip_copy {
        let reporter = Reporter::start(Arc::clone(&copier.counters));
        let copied = copier.run();
        reporter.finish();
        let event_id = copied?;
        tracing::info!(event_id, "copy done; the copy's event id is the source's");
    }
    if args.verify {
        let differences = verify_all(&copier, args.batch_size)?;
        if differences > 0 {
            return Err(Failure::Differences(differences));
        }
        eprintln!("verify: source and copy are the same");
    }
    if args.follow {
        let stop = Arc::new(AtomicBool::new(false));
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            signal_hook::flag::register(signal, Arc::clone(&stop))
                .map_err(|error| format!("cannot install signal handlers: {error}"))?;
        }
        let interval = Duration::from_millis(args.follow_interval_ms);
        let grants_interval = Duration::from_secs(args.follow_grants_interval_secs);
        follow::follow(&copier, &stop, interval, grants_interval)?;
    }
    Ok(())
}

/// The copy's server state: its statistics reads return sketches, so that the sketches a
/// source returns are compared, and copied, byte for byte.
pub fn copy_state(store: Store) -> ServerState {
    let settings = ServerSettings {
        stats_fetch_sketches: true,
        ..ServerSettings::default()
    };
    ServerState::new(store).with_settings(settings)
}

fn check(args: &ImportArgs) -> Result<(), String> {
    if !(1..=CONNECTIONS_MAX).contains(&args.connections) {
        return Err(format!(
            "--connections {} is out of range: 1 to {CONNECTIONS_MAX}",
            args.connections
        ));
    }
    if !(1..=PARTITION_BATCH_SIZE_MAX).contains(&args.batch_size) {
        return Err(format!(
            "--batch-size {} is out of range: 1 to {PARTITION_BATCH_SIZE_MAX}",
            args.batch_size
        ));
    }
    follow::check_intervals(args.follow_interval_ms, args.follow_grants_interval_secs)?;
    if args.skip_copy && !args.verify && !args.follow {
        return Err("--skip-copy leaves nothing to do without --verify or --follow".to_string());
    }
    Ok(())
}

fn endpoint(args: &ImportArgs) -> Result<Endpoint, String> {
    let endpoint = Endpoint::parse(&args.from, args.framed, args.compact)
        .map_err(|error| format!("--from: {error}"))?
        .with_user(args.user.clone());
    Ok(match &args.tls_ca {
        Some(ca) => endpoint.with_tls(ca.clone()),
        None => endpoint,
    })
}

/// The copy's store: no warehouse filesystem (the source's locations are recorded, nothing
/// is touched), no events (the id follows the source's), and every column type change the
/// source accepted accepted.
fn open_store(args: &ImportArgs) -> Result<Store, String> {
    std::fs::create_dir_all(&args.data_dir).map_err(|error| {
        format!(
            "cannot create data dir {}: {error}",
            args.data_dir.display()
        )
    })?;
    let mut options = StoreOptions::new(warehouse_uri(&args.warehouse)?).metadata_only();
    options.log_events = false;
    options.disallow_incompatible_col_type_changes = false;
    Store::open(&args.data_dir, options).map_err(|error| {
        format!(
            "cannot open the store in {} (is a server running on it?): {error}",
            args.data_dir.display()
        )
    })
}

/// The warehouse root as `serve` takes it, without making it: a local path becomes an
/// absolute `file:` URI; a URI is kept.
fn warehouse_uri(warehouse: &str) -> Result<String, String> {
    if warehouse.contains("://") || warehouse.starts_with("file:") {
        return Ok(warehouse.to_string());
    }
    let absolute = std::path::absolute(warehouse)
        .map_err(|error| format!("cannot resolve warehouse {warehouse}: {error}"))?;
    Ok(format!("file:{}", absolute.display()))
}

/// Compares the source with the copy, printing each difference on standard output.
fn verify_all(copier: &Copier, batch_size: usize) -> Result<u64, String> {
    let mut copy = copier.copy_side();
    let mut source = copier.source();
    // Not a difference: the source moves on; the copy's id is where the copy or --follow left it.
    eprintln!(
        "verify: event id: source {}, copy {}",
        source.current_event_id()?,
        copy.current_event_id()?
    );
    let mut report = |line: String| println!("{line}");
    let mut verifier = Verifier {
        source: &mut source,
        copy: &mut copy,
        batch_size,
        report: &mut report,
        differences: 0,
    };
    verifier.run()
}
