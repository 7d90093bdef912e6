//! The `hivestore` command.
#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use hivestore_engine::{Store, StoreOptions};
use hivestore_thrift::config::{ServeArgs, ServeConfig};
use hivestore_thrift::server::Server;
use hivestore_thrift::service::{ServerSettings, ServerState};
use hivestore_thrift::tls::Tls;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// hivestore: a fast Hive Metastore.
#[derive(Parser)]
#[command(name = "hivestore", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the Hive Metastore Thrift API.
    Serve(Box<ServeArgs>),
    /// Measure the latency and throughput of a Hive Metastore (this one or any other).
    Bench(Box<hivestore_loadgen::BenchArgs>),
}

/// The server answers from archived values with few allocations, but Thrift decoding (of
/// requests here, of replies in `hivestore bench`) allocates per string; glibc's allocator
/// costs a fifth of a `get_table` round trip in the load generator. mimalloc halves that.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    init_logging();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => args.resolve().and_then(|config| serve(&config)),
        Command::Bench(args) => bench(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(reason) => {
            eprintln!("hivestore: {reason}");
            ExitCode::FAILURE
        }
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("HIVESTORE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}

/// The warehouse root as a URI: a local path becomes an absolute `file:` URI (created if
/// missing), as Hive qualifies it; a URI with a scheme is kept as given.
fn warehouse_uri(warehouse: &str) -> Result<String, String> {
    if warehouse.contains("://") || warehouse.starts_with("file:") {
        return Ok(warehouse.to_string());
    }
    std::fs::create_dir_all(warehouse)
        .map_err(|error| format!("cannot create warehouse {warehouse}: {error}"))?;
    let absolute = std::fs::canonicalize(warehouse)
        .map_err(|error| format!("cannot resolve warehouse {warehouse}: {error}"))?;
    Ok(format!("file:{}", absolute.display()))
}

fn serve(config: &ServeConfig) -> Result<(), String> {
    std::fs::create_dir_all(&config.data_dir).map_err(|error| {
        format!(
            "cannot create data dir {}: {error}",
            config.data_dir.display()
        )
    })?;
    let mut options = StoreOptions::new(warehouse_uri(&config.warehouse)?);
    options.txn_timeout = config.txn_timeout;
    options.page_cache_bytes = config.page_cache_bytes;
    options.disk_reserve_bytes = config.disk_reserve_bytes;
    options.value_limits = config.value_limits;
    let store = Store::open(&config.data_dir, options).map_err(|error| {
        format!(
            "cannot open the store in {}: {error}",
            config.data_dir.display()
        )
    })?;
    let settings = ServerSettings {
        event_ttl: config.event_ttl,
        event_clean_interval: config.event_clean_interval,
        limit_partition_request: config.limit_partition_request,
        delegation_tokens: config.delegation_tokens,
    };
    let state = Arc::new(ServerState::new(store).with_settings(settings));
    hivestore_thrift::event_cleaner::spawn(
        state.clone(),
        config.event_ttl,
        config.event_clean_interval,
    );
    hivestore_thrift::prewarm::spawn(state.clone(), config.prewarm_bytes);
    let tls = match &config.tls {
        Some(settings) => Some(Arc::new(Tls::load(settings.clone())?)),
        None => None,
    };
    if let Some(tls) = &tls {
        tracing::info!(
            cert = %tls.settings().cert.display(),
            client_certificates = tls.settings().client_ca.is_some(),
            plain_allowed = tls.settings().allow_plain,
            "serving TLS"
        );
    }
    let server = Server::bind_with_tls(&config.listen, config.limits, state, tls.clone())
        .map_err(|error| format!("cannot listen on {}: {error}", config.listen))?;
    let stop = server.stop_handle();
    let mut signals = Signals::new([SIGTERM, SIGINT, SIGHUP])
        .map_err(|error| format!("cannot install signal handlers: {error}"))?;
    std::thread::spawn(move || {
        for signal in signals.forever() {
            if signal == SIGHUP {
                reload(tls.as_deref());
                continue;
            }
            tracing::info!(signal, "stop requested");
            stop.stop();
            return;
        }
    });
    server
        .run()
        .map_err(|error| format!("server failed: {error}"))
}

/// SIGHUP: reads the TLS certificate and key again; on an error the ones in use are kept.
fn reload(tls: Option<&Tls>) {
    let Some(tls) = tls else {
        tracing::info!("SIGHUP: nothing to reload, TLS is not configured");
        return;
    };
    match tls.reload() {
        Ok(()) => tracing::info!(
            cert = %tls.settings().cert.display(),
            "SIGHUP: TLS certificate and key reloaded; new connections use them"
        ),
        Err(reason) => tracing::error!(
            %reason,
            "SIGHUP: TLS certificate and key not reloaded; the ones in use are kept"
        ),
    }
}

fn bench(args: &hivestore_loadgen::BenchArgs) -> Result<(), String> {
    let report = hivestore_loadgen::run(args).map_err(|error| error.to_string())?;
    print!("{report}");
    Ok(())
}
