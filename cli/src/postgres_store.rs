//! A store on PostgreSQL for `serve`: connected (as a standby, waiting for the database,
//! when `--standby` asks; beside the writing server, reading, when `--reader` does), its
//! point reads kept in memory (`--cache-mb`), and, on the writing server, watched for the
//! rest of the process's life, so that a server another has taken the database from stops
//! instead of answering from what it keeps in memory.

use std::sync::Arc;
use std::time::Duration;

use hivestore_engine::kv::{
    redacted_postgres_url, KvBackend, PostgresBackend, ReadCache, ServerLockWait,
};
use hivestore_engine::{Store, StoreOptions};
use hivestore_thrift::config::PostgresRole;
use hivestore_thrift::metrics::MetricsSource;

/// How often the server checks that the database is still its own.
pub const POSTGRES_WATCH_INTERVAL: Duration = Duration::from_secs(1);
/// The exit status of a server another has taken the database from (`EX_TEMPFAIL`): a
/// supervisor may start it again, as a standby.
pub const FENCED_EXIT_CODE: i32 = 75;

/// Opens the store in the PostgreSQL database at `url`, as `role` says.
pub fn open(
    url: &str,
    connections: usize,
    role: PostgresRole,
    metrics: &MetricsSource,
    mut options: StoreOptions,
) -> Result<Store, String> {
    let shown = redacted_postgres_url(url);
    let failed =
        |error: hivestore_engine::Error| format!("cannot open the store in {shown}: {error}");
    // Readers beside this server keep what they keep current from the change log.
    options.change_log = true;
    // Point reads are kept in memory, within the page cache's budget: on the writing server
    // because it is the one writer (fenced otherwise, and then it exits), on a reader because
    // it forgets what the change log names before each call.
    let budget = usize::try_from(options.page_cache_bytes).unwrap_or(usize::MAX);
    if role == PostgresRole::Reader {
        let backend = PostgresBackend::connect_reader(url, connections).map_err(failed)?;
        tracing::info!(store = %shown, connections, "reading the store on PostgreSQL beside its writing server");
        let cached = ReadCache::new(Arc::new(backend) as Arc<dyn KvBackend>, budget);
        return Store::open_reader(Arc::new(cached), options).map_err(failed);
    }
    let wait = if role == PostgresRole::Standby {
        metrics.standing_by(true);
        ServerLockWait::Standby
    } else {
        ServerLockWait::Bounded(hivestore_engine::kv::POSTGRES_SERVER_LOCK_WAIT)
    };
    let backend = PostgresBackend::connect_with(url, connections, wait).map_err(failed)?;
    metrics.standing_by(false);
    let backend = Arc::new(backend);
    tracing::info!(store = %shown, connections, epoch = backend.epoch(), "store on PostgreSQL");
    let cached = ReadCache::new(Arc::clone(&backend) as Arc<dyn KvBackend>, budget);
    let store = Store::open_with_backend(Arc::new(cached), options).map_err(failed)?;
    spawn_watch(backend);
    Ok(store)
}

/// Checks the database is still this server's every [`POSTGRES_WATCH_INTERVAL`]; when
/// another server has taken it over, the process exits with [`FENCED_EXIT_CODE`] (its
/// writes are refused already; this stops its reads). A PostgreSQL that cannot be reached
/// is waited for.
fn spawn_watch(backend: Arc<PostgresBackend>) {
    std::thread::Builder::new()
        .name("postgres-watch".into())
        .spawn(move || loop {
            std::thread::sleep(POSTGRES_WATCH_INTERVAL);
            if let Err(error) = backend.watch() {
                if backend.is_fenced() {
                    tracing::error!(%error, "stopping: the database is another server's now");
                    std::process::exit(FENCED_EXIT_CODE);
                }
                tracing::warn!(%error, "cannot check the server lock; trying again");
            }
        })
        .expect("a thread can be started at start-up");
}
