//! The `hivestore` command.
#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use hivestore_thrift::config::{ServeArgs, ServeConfig};
use hivestore_thrift::server::Server;
use hivestore_thrift::service::ServerState;
use signal_hook::consts::{SIGINT, SIGTERM};
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
    Serve(ServeArgs),
}

fn main() -> ExitCode {
    init_logging();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => args.resolve().and_then(|config| serve(&config)),
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

fn serve(config: &ServeConfig) -> Result<(), String> {
    for dir in [
        config.data_dir.as_path(),
        std::path::Path::new(&config.warehouse),
    ] {
        std::fs::create_dir_all(dir)
            .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    }
    let state = Arc::new(ServerState::new());
    let server = Server::bind(&config.listen, config.limits, state)
        .map_err(|error| format!("cannot listen on {}: {error}", config.listen))?;
    let stop = server.stop_handle();
    let mut signals = Signals::new([SIGTERM, SIGINT])
        .map_err(|error| format!("cannot install signal handlers: {error}"))?;
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            tracing::info!(signal, "stop requested");
            stop.stop();
        }
    });
    server
        .run()
        .map_err(|error| format!("server failed: {error}"))
}
