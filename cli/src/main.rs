//! The `hivestore` command.
#![forbid(unsafe_code)]

mod follower;
mod import;
mod postgres_store;
mod store_backup;
mod store_stats;

use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use hivestore_engine::{Store, StoreOptions};
use hivestore_thrift::audit::AuditLog;
use hivestore_thrift::auth::digest_md5::DigestMd5;
use hivestore_thrift::auth::gssapi::Kerberos;
use hivestore_thrift::auth::jwt::JwtVerifier;
use hivestore_thrift::auth::{AuthPolicy, Authentication};
use hivestore_thrift::config::{LogFormat, ServeArgs, ServeConfig, StoreLocation};
use hivestore_thrift::following::{Following, Forwarding};
use hivestore_thrift::http::HttpSettings;
use hivestore_thrift::metrics::listener::{MetricsHandle, MetricsServer};
use hivestore_thrift::metrics::MetricsSource;
use hivestore_thrift::server::Server;
use hivestore_thrift::service::{ServerSettings, ServerState};
use hivestore_thrift::tls::Tls;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR1, SIGUSR2};
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
    // Both boxed: the two flag sets are large and of very different sizes.
    /// Serve the Hive Metastore Thrift API.
    Serve(Box<ServeCommand>),
    /// Measure the latency and throughput of a Hive Metastore (this one or any other).
    Bench(Box<hivestore_loadgen::BenchArgs>),
    /// Read a password from standard input (one line) and print the `user:hash` line to add to
    /// the --password-file of authentication CUSTOM (argon2id).
    Passwd {
        /// The user the password is for.
        user: String,
    },
    /// Copy a live Hive Metastore's catalog into a data directory (no server may run on it),
    /// compare the two (--verify) and keep applying the source's changes (--follow).
    Import(Box<import::ImportArgs>),
    /// Print a stopped store's live data per keyspace (keys, key and value bytes) and the
    /// bytes its files take on disk.
    Stats(store_stats::StatsArgs),
    /// Write a stopped store's keys and values to a dump (docs/backup-format.md): versioned,
    /// checksummed, zstd-compressed blocks. A served store is backed up by the server
    /// (`serve --backup-dir`, SIGUSR1).
    Dump(store_backup::DumpArgs),
    /// Make a new store from a dump, checking every block, the trailer's counts and the whole
    /// dump's checksum; a refused dump leaves no store.
    Restore(store_backup::RestoreArgs),
    /// Check a stopped store's integrity: every key and value, references between them, and
    /// counters; prints each problem with its key and exits non-zero if there is any.
    Check(store_backup::CheckArgs),
}

/// `serve`'s flags: the server's, and following a source until cut-over.
#[derive(clap::Args)]
struct ServeCommand {
    #[command(flatten)]
    serve: ServeArgs,
    #[command(flatten)]
    follow: follower::FollowFromArgs,
}

/// The server answers from archived values with few allocations, but Thrift decoding (of
/// requests here, of replies in `hivestore bench`) allocates per string; glibc's allocator
/// costs a fifth of a `get_table` round trip in the load generator. mimalloc halves that.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => args.serve.resolve().and_then(|config| {
            init_logging(config.log_format);
            serve(&config, &args.follow)
        }),
        Command::Bench(args) => {
            init_logging(LogFormat::Text);
            bench(&args)
        }
        Command::Passwd { user } => passwd(&user),
        Command::Stats(args) => {
            init_logging(LogFormat::Text);
            store_stats::run(&args)
        }
        Command::Import(args) => {
            init_logging(LogFormat::Text);
            return import(&args);
        }
        Command::Dump(args) => {
            init_logging(LogFormat::Text);
            store_backup::dump(&args)
        }
        Command::Restore(args) => {
            init_logging(LogFormat::Text);
            store_backup::restore(&args)
        }
        Command::Check(args) => {
            init_logging(LogFormat::Text);
            store_backup::check(&args)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(reason) => {
            eprintln!("hivestore: {reason}");
            ExitCode::FAILURE
        }
    }
}

fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("HIVESTORE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let log = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        // Colours only for a person at a terminal: a log file or a collector gets plain text.
        LogFormat::Text => log
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .init(),
        // A collector parses every line: no colour, wherever it goes.
        LogFormat::Json => log.json().with_ansi(false).init(),
    }
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

/// An external root as the store takes it: a relative path is made absolute (not resolved:
/// the store resolves its links); URIs and absolute paths are kept.
fn external_root_uri(root: &str) -> Result<String, String> {
    if root.contains(':') || root.starts_with('/') {
        return Ok(root.to_string());
    }
    let absolute = std::path::absolute(root)
        .map_err(|error| format!("cannot resolve external root {root}: {error}"))?;
    Ok(absolute.display().to_string())
}

/// The store `--store` names: the embedded one in the data directory, or PostgreSQL.
fn open_store(
    config: &ServeConfig,
    metrics: &MetricsSource,
    options: StoreOptions,
) -> Result<Store, String> {
    match &config.store {
        StoreLocation::Sled => {
            std::fs::create_dir_all(&config.data_dir).map_err(|error| {
                format!(
                    "cannot create data dir {}: {error}",
                    config.data_dir.display()
                )
            })?;
            Store::open(&config.data_dir, options).map_err(|error| {
                format!(
                    "cannot open the store in {}: {error}",
                    config.data_dir.display()
                )
            })
        }
        StoreLocation::Postgres {
            url,
            connections,
            role,
        } => postgres_store::open(url, *connections, *role, metrics, options),
    }
}

fn serve(config: &ServeConfig, follow: &follower::FollowFromArgs) -> Result<(), String> {
    let data_dir = matches!(config.store, StoreLocation::Sled).then_some(config.data_dir.as_path());
    // The source first: a wrong URI, a dead source or a copy cut over opens nothing.
    let follower = follower::prepare(follow, data_dir)?;
    // Served from before the store opens, so that /ready can tell an opening store.
    let metrics = MetricsSource::new();
    let metrics_listener = start_metrics(config, &metrics)?;
    let served = serve_store(config, &metrics, follower);
    if let Some(listener) = metrics_listener {
        listener.stop();
    }
    served
}

/// Starts the metrics listener when `--metrics-listen` asks for one.
fn start_metrics(
    config: &ServeConfig,
    metrics: &Arc<MetricsSource>,
) -> Result<Option<MetricsHandle>, String> {
    let Some(listen) = &config.metrics_listen else {
        return Ok(None);
    };
    let server = MetricsServer::bind(listen, Arc::clone(metrics))
        .map_err(|error| format!("cannot listen for metrics on {listen}: {error}"))?;
    let handle = server
        .spawn()
        .map_err(|error| format!("cannot serve metrics on {listen}: {error}"))?;
    Ok(Some(handle))
}

fn serve_store(
    config: &ServeConfig,
    metrics: &Arc<MetricsSource>,
    follower: Option<follower::Prepared>,
) -> Result<(), String> {
    let mut options = StoreOptions::new(warehouse_uri(&config.warehouse)?);
    // A follower's copy logs no events of its own: its id is the follower's position.
    options.log_events = follower.is_none();
    options.txn_timeout = config.txn_timeout;
    options.page_cache_bytes = config.page_cache_bytes;
    options.disk_reserve_bytes = config.disk_reserve_bytes;
    options.recent_slot_count_max = config.stats_recent_slots;
    options.value_limits = config.value_limits;
    options.external_roots = config
        .external_roots
        .iter()
        .map(|root| external_root_uri(root))
        .collect::<Result<_, _>>()?;
    let store = open_store(config, metrics, options)?;
    if store.is_reader() && follower.is_some() {
        return Err(
            "a reader cannot follow another metastore: the writing server does".to_string(),
        );
    }
    let following = match &follower {
        Some(prepared) => {
            // The source made, moved and deleted the directories already.
            store.set_warehouse_untouched(true);
            let position = store
                .current_event_id()
                .map_err(|error| format!("cannot read the copy's event id: {error}"))?;
            let position = i64::try_from(position).unwrap_or(i64::MAX);
            let forwarding = Forwarding {
                upstream: Arc::new(prepared.upstream(config.limits.message_bytes_max)),
                write_wait: config.follow_write_wait,
            };
            Some(Arc::new(
                Following::new(prepared.source().to_string(), position).with_forwarding(forwarding),
            ))
        }
        None => None,
    };
    let settings = ServerSettings {
        event_ttl: config.event_ttl,
        event_clean_interval: config.event_clean_interval,
        limit_partition_request: config.limit_partition_request,
        delegation_tokens: config.delegation_tokens,
        stats_fetch_sketches: config.stats_fetch_sketches,
    };
    let auth = auth_policy(config)?;
    let jwt = match &config.jwt {
        Some(settings) => Some(Arc::new(JwtVerifier::load(settings.clone())?)),
        None => None,
    };
    if let Some(jwt) = &jwt {
        tracing::info!(
            jwks = %jwt.settings().jwks.display(),
            keys = jwt.key_count(),
            path = %config.http_path,
            "HTTP requests need a JWT bearer token"
        );
    }
    let http = HttpSettings {
        path: config.http_path.clone(),
        jwt: jwt.clone(),
    };
    let audit = AuditLog::start(&config.audit)
        .map_err(|error| error.to_string())?
        .map(Arc::new);
    let mut state = ServerState::new(store)
        .with_settings(settings)
        .with_http(http)
        .with_auth(auth)
        .with_access(config.access.policy());
    if let Some(audit) = &audit {
        tracing::info!(destination = ?config.audit.destination, "writing the audit log");
        state = state.with_audit(Arc::clone(audit));
    }
    if let Some(following) = following {
        state = state.with_following(following);
    }
    if config.access.enforce {
        tracing::info!(
            admin_users = config.access.admin_users.len(),
            admin_groups = config.access.admin_groups.len(),
            "authorization is enforced: each call is checked against ownership and grants"
        );
    }
    let state = Arc::new(state);
    metrics.store_opened(Arc::clone(&state));
    if let Some(follower) = follower {
        follower.start(Arc::clone(&state))?;
    }
    // A reader writes nothing: the writing server cleans the log and makes the backups.
    let reader = state.store().is_reader();
    if !reader {
        hivestore_thrift::event_cleaner::spawn(
            state.clone(),
            config.event_ttl,
            config.event_clean_interval,
        );
    }
    hivestore_thrift::prewarm::spawn(state.clone(), config.prewarm_bytes);
    hivestore_thrift::store_size::spawn(state.clone(), config.size_count_interval);
    let backups = match &config.backups {
        Some(_) if reader => {
            return Err("online backups are made by the writing server, not a reader".to_string())
        }
        Some(settings) => {
            tracing::info!(dir = %settings.dir.display(), interval = ?settings.interval, keep = settings.keep, "online backups on SIGUSR1 and at the interval");
            Some(hivestore_thrift::backups::spawn(
                state.clone(),
                settings.clone(),
            )?)
        }
        None => None,
    };
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
    let server = Server::bind_with_tls(&config.listen, config.limits, state.clone(), tls.clone())
        .map_err(|error| format!("cannot listen on {}: {error}", config.listen))?;
    let stop = server.stop_handle();
    let mut signals = Signals::new([SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2])
        .map_err(|error| format!("cannot install signal handlers: {error}"))?;
    let signal_audit = audit.clone();
    let signal_metrics = Arc::clone(metrics);
    std::thread::spawn(move || {
        for signal in signals.forever() {
            if signal == SIGUSR1 {
                match &backups {
                    Some(backups) => backups.request(),
                    None => tracing::warn!("SIGUSR1: no backup made, --backup-dir is not set"),
                }
                continue;
            }
            if signal == SIGUSR2 {
                match state.following() {
                    Some(following) if following.is_following() => {
                        tracing::info!(source = following.source(), "SIGUSR2: cutting over");
                        following.request_cut_over();
                    }
                    Some(_) => tracing::info!("SIGUSR2: already cut over"),
                    None => tracing::warn!("SIGUSR2: no cut-over, --follow-from is not set"),
                }
                continue;
            }
            if signal == SIGHUP {
                reload(tls.as_deref());
                reload_jwks(jwt.as_deref());
                reload_passwords(&state);
                if let Some(audit) = &signal_audit {
                    audit.reopen();
                }
                continue;
            }
            tracing::info!(signal, "stop requested");
            signal_metrics.stopping();
            stop.stop();
            return;
        }
    });
    let served = server
        .run()
        .map_err(|error| format!("server failed: {error}"));
    // The last calls' lines reach the file before the process ends.
    if let Some(audit) = &audit {
        audit.flush();
    }
    served
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

/// What clients must prove, with the SASL mechanisms the mode offers; the flags of every mode
/// are checked against the mode chosen here.
fn auth_policy(config: &ServeConfig) -> Result<AuthPolicy, String> {
    let mut auth = AuthPolicy::new(config.authentication, &config.plain)?;
    match (config.authentication, &config.kerberos) {
        (Authentication::Kerberos, Some(settings)) => {
            let kerberos = Arc::new(Kerberos::start(settings)?);
            tracing::info!(
                principal = kerberos.principal(),
                keytab = %settings.keytab.display(),
                "accepting Kerberos (SASL GSSAPI)"
            );
            auth.sasl
                .offer("GSSAPI", move |_| Ok(Box::new(kerberos.mechanism())));
            // Delegation tokens log in by DIGEST-MD5, under Kerberos only (as Hive's bridge),
            // with the same protections as Kerberos logins.
            let qops = settings.qop.clone();
            auth.sasl.offer("DIGEST-MD5", move |state| {
                Ok(Box::new(DigestMd5::for_tokens(Arc::clone(state), &qops)?))
            });
        }
        (Authentication::Kerberos, None) => {
            return Err("authentication KERBEROS needs --kerberos-principal and \
                        --kerberos-keytab"
                .into())
        }
        (mode, Some(_)) => {
            return Err(format!(
                "--kerberos-principal and --kerberos-keytab need --authentication KERBEROS \
                 (it is {mode})"
            ))
        }
        (_, None) => {}
    }
    match (config.authentication, &config.jwt) {
        (Authentication::Jwt, None) => {
            return Err(
                "authentication JWT needs --jwks-file, the keys tokens are signed with".into(),
            )
        }
        (mode, Some(_)) if mode != Authentication::Jwt => {
            return Err(format!(
                "--jwks-file needs --authentication JWT (it is {mode})"
            ))
        }
        _ => {}
    }
    auth.check()?;
    if auth.authentication != Authentication::NoSasl {
        tracing::info!(
            authentication = %auth.authentication,
            sasl = ?auth.sasl.names(),
            "clients must authenticate"
        );
    }
    Ok(auth)
}

/// SIGHUP: reads the password file again (CUSTOM); on an error the passwords in use are kept.
fn reload_passwords(state: &ServerState) {
    if state.auth().password_check.is_none() {
        return;
    }
    match state.auth().reload() {
        Ok(()) => tracing::info!("SIGHUP: passwords reloaded"),
        Err(reason) => {
            tracing::error!(%reason, "SIGHUP: passwords not reloaded; the ones in use are kept")
        }
    }
}

/// SIGHUP: reads the JWKS again; on an error the keys in use are kept.
fn reload_jwks(jwt: Option<&JwtVerifier>) {
    let Some(jwt) = jwt else {
        return;
    };
    match jwt.reload() {
        Ok(()) => tracing::info!(
            jwks = %jwt.settings().jwks.display(),
            keys = jwt.key_count(),
            "SIGHUP: JWKS reloaded; new requests are checked against it"
        ),
        Err(reason) => {
            tracing::error!(%reason, "SIGHUP: JWKS not reloaded; the keys in use are kept")
        }
    }
}

/// Hashes the first line of standard input (its line ending dropped) for `user`.
fn passwd(user: &str) -> Result<(), String> {
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .map_err(|error| format!("cannot read the password from standard input: {error}"))?;
    let password = line
        .strip_suffix('\n')
        .map(|rest| rest.strip_suffix('\r').unwrap_or(rest))
        .unwrap_or(&line);
    println!(
        "{}",
        hivestore_thrift::auth::passwords::password_line(user, password)?
    );
    Ok(())
}

/// `hivestore import`: exit 1 when it could not be done, 2 when `--verify` found differences.
fn import(args: &import::ImportArgs) -> ExitCode {
    match import::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(import::Failure::Error(reason)) => {
            eprintln!("hivestore import: {reason}");
            ExitCode::FAILURE
        }
        Err(import::Failure::Differences(count)) => {
            eprintln!("hivestore import: verify found {count} differences");
            ExitCode::from(2)
        }
    }
}

fn bench(args: &hivestore_loadgen::BenchArgs) -> Result<(), String> {
    let report = hivestore_loadgen::run(args).map_err(|error| error.to_string())?;
    print!("{report}");
    Ok(())
}
