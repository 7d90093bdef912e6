//! A backend over PostgreSQL: the store's keys and values as rows of one table, ordered by
//! PostgreSQL's `bytea` comparison (bytewise, then by length: the order of sled and of
//! [`super::MemoryBackend`]). The only file that knows PostgreSQL.
//!
//! A batch is one PostgreSQL transaction, durable at its commit (`synchronous_commit` as the
//! server has it: on by default), so [`KvBackend::flush`] has nothing left to do. One
//! server at a time: the backend holds a session advisory lock on a connection of its own
//! for its whole life, and refuses to open while another holds it (or, as a standby, waits
//! until it can take it); the engine's in-memory state (its writer lock, kept listings, the
//! lock table) is one process's.
//!
//! The lock alone does not stop a server that lost it without noticing (its lock's
//! connection ended, its pool's lived on) from writing beside the next one. So each holder
//! raises an epoch row when it takes the lock, and every batch reads that row `FOR SHARE`
//! in its transaction and commits only if the epoch is still its own: the next holder's
//! raise waits for batches in flight and fences every later one. A fenced backend refuses
//! every operation from then on.

use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use postgres::types::ToSql;
use postgres::{Client, NoTls};

use super::{KeyRange, KvBackend, KvBytes, WriteBatch, WriteOp, SCAN_PAGE_ENTRY_COUNT_MAX};
use crate::error::{Error, Result};

/// The table the keys and values live in.
pub const POSTGRES_TABLE: &str = "hivestore_kv";
/// Connections for reads and writes by default (`--postgres-connections`); one more holds
/// the advisory lock.
pub const POSTGRES_CONNECTIONS_DEFAULT: usize = 8;
/// At most this many rows go in one statement of a batch, so that a batch of a million
/// partitions is many bounded statements in one transaction rather than one huge one.
pub const POSTGRES_STATEMENT_ROWS_MAX: usize = 1_000;
/// At most this many bytes of keys and values go in one statement of a batch.
pub const POSTGRES_STATEMENT_BYTES_MAX: usize = 8 * 1024 * 1024;
/// How often an operation that lost its connection reconnects before it fails, and the
/// first wait between tries (doubled each time: 50 ms to 1.6 s, about 3 s in all).
pub const POSTGRES_RECONNECT_ATTEMPTS: u32 = 6;
const RECONNECT_WAIT_FIRST: Duration = Duration::from_millis(50);
/// How long a starting server waits for the one-server lock: a server killed a moment ago
/// holds it until PostgreSQL has seen its connections close.
pub const POSTGRES_SERVER_LOCK_WAIT: Duration = Duration::from_secs(10);
const SERVER_LOCK_RETRY: Duration = Duration::from_millis(200);
/// How long a standby waits before it connects again to a PostgreSQL it lost.
const STANDBY_RECONNECT_WAIT: Duration = Duration::from_secs(1);
/// How long the check that the lock's connection still lives may take.
const LOCK_CHECK_TIMEOUT: Duration = Duration::from_secs(5);
/// The advisory lock's key: `hivestore` in ASCII, as a big-endian integer.
const SERVER_LOCK_KEY: i64 = 0x68_69_76_65_73_74_6f;
/// The table of the one row that holds the lock holders' epoch.
pub const POSTGRES_EPOCH_TABLE: &str = "hivestore_server";

/// How long a starting server waits for the one-server lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerLockWait {
    /// At most this long, then the backend refuses to open.
    Bounded(Duration),
    /// As long as another server holds it: a standby, which takes the database over when
    /// that server stops or dies.
    Standby,
}

/// The store's table in a PostgreSQL database.
pub struct PostgresBackend {
    url: String,
    connections: Vec<Mutex<Option<Connection>>>,
    next: AtomicUsize,
    /// The connection that holds the advisory lock while the backend lives; `None` for a
    /// reader ([`PostgresBackend::connect_reader`]), which takes no lock.
    lock_holder: Mutex<Option<Client>>,
    /// Whether this backend only reads, beside the server that holds the lock.
    reader: bool,
    /// The epoch this backend raised when it took the lock.
    epoch: i64,
    /// Set once another server has taken the database over: every operation is refused.
    fenced: AtomicBool,
}

impl std::fmt::Debug for PostgresBackend {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("PostgresBackend")
            .field("url", &redacted(&self.url))
            .field("connections", &self.connections.len())
            .finish()
    }
}

/// A pooled connection, with the statements it has prepared: a read is then one round trip
/// to PostgreSQL, not a prepare and an execute.
pub(crate) struct Connection {
    client: Client,
    statements: std::collections::HashMap<String, postgres::Statement>,
}

impl Connection {
    fn new(client: Client) -> Connection {
        Connection {
            client,
            statements: std::collections::HashMap::new(),
        }
    }

    /// `sql` prepared on this connection, once (the texts are the backend's own, a few).
    fn prepared(&mut self, sql: &str) -> std::result::Result<postgres::Statement, postgres::Error> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql)?;
        self.statements.insert(sql.to_string(), statement.clone());
        Ok(statement)
    }
}

/// `url` without its password, for messages and logs.
pub fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    match rest.split_once('@') {
        Some((credentials, host)) => match credentials.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

/// Whether `error` means the connection is gone: closed, ended by the server (SQLSTATE class
/// 57, operator intervention: a shutdown, `pg_terminate_backend`), broken (class 08), or an
/// I/O error on its socket (a read that met the server's end before the client saw it close).
fn connection_lost(error: &postgres::Error) -> bool {
    let io_failed = std::error::Error::source(error)
        .is_some_and(|cause| cause.downcast_ref::<std::io::Error>().is_some());
    error.is_closed()
        || io_failed
        || error
            .as_db_error()
            .is_some_and(|db| matches!(&db.code().code()[..2], "57" | "08"))
}

fn storage_error(url: &str, what: &str, error: &postgres::Error) -> Error {
    let reason = match error.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => error.to_string(),
    };
    let text = format!("PostgreSQL at {} failed to {what}: {reason}", redacted(url));
    if connection_lost(error) {
        Error::Unavailable(text)
    } else {
        Error::Storage(text)
    }
}

impl PostgresBackend {
    /// Connects to the PostgreSQL database of `url` (`postgres://user:password@host:port/db`,
    /// or the key-value form PostgreSQL's libraries take) with `connection_count` connections
    /// (at least one), takes the one-server lock (waiting up to [`POSTGRES_SERVER_LOCK_WAIT`]
    /// for it), and creates the tables if they are missing.
    pub fn connect(url: &str, connection_count: usize) -> Result<Self> {
        Self::connect_with(
            url,
            connection_count,
            ServerLockWait::Bounded(POSTGRES_SERVER_LOCK_WAIT),
        )
    }

    /// [`PostgresBackend::connect`], waiting for the one-server lock as `wait` says.
    pub fn connect_with(url: &str, connection_count: usize, wait: ServerLockWait) -> Result<Self> {
        let mut holder = take_server_lock(url, wait)?;
        for statement in [
            format!(
                "CREATE TABLE IF NOT EXISTS {POSTGRES_TABLE} (k bytea PRIMARY KEY, v bytea NOT NULL)"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {POSTGRES_EPOCH_TABLE} \
                 (id smallint PRIMARY KEY, epoch bigint NOT NULL)"
            ),
            format!("INSERT INTO {POSTGRES_EPOCH_TABLE} VALUES (1, 0) ON CONFLICT (id) DO NOTHING"),
        ] {
            holder
                .batch_execute(&statement)
                .map_err(|error| storage_error(url, "create its tables", &error))?;
        }
        // Waits for the batches of a previous holder still in flight, and fences its later ones.
        let raise = format!(
            "UPDATE {POSTGRES_EPOCH_TABLE} SET epoch = epoch + 1 WHERE id = 1 RETURNING epoch"
        );
        let epoch: i64 = holder
            .query_one(&raise, &[])
            .and_then(|row| row.try_get(0))
            .map_err(|error| storage_error(url, "raise the server epoch", &error))?;
        let connections = pool(url, connection_count)?;
        Ok(PostgresBackend {
            url: url.to_string(),
            connections,
            next: AtomicUsize::new(0),
            lock_holder: Mutex::new(Some(holder)),
            reader: false,
            epoch,
            fenced: AtomicBool::new(false),
        })
    }

    /// Connects to read the database beside the server that holds its lock: no lock is
    /// taken, no table created, and every batch is refused. The database must have been
    /// served once (its tables made).
    pub fn connect_reader(url: &str, connection_count: usize) -> Result<Self> {
        let connections = pool(url, connection_count)?;
        let backend = PostgresBackend {
            url: url.to_string(),
            connections,
            next: AtomicUsize::new(0),
            lock_holder: Mutex::new(None),
            reader: true,
            epoch: 0,
            fenced: AtomicBool::new(false),
        };
        let query = format!("SELECT to_regclass('{POSTGRES_TABLE}') IS NOT NULL");
        let exists: bool = backend.with_client("find the store's table", |connection| {
            connection.client.query_one(&query, &[])?.try_get(0)
        })?;
        if !exists {
            return Err(Error::Unavailable(format!(
                "the PostgreSQL database at {} holds no hivestore store yet: start its writing \
                 server first",
                redacted(url)
            )));
        }
        Ok(backend)
    }

    /// Whether this backend only reads ([`PostgresBackend::connect_reader`]).
    pub fn is_reader(&self) -> bool {
        self.reader
    }

    /// The epoch this backend raised when it took the database.
    pub fn epoch(&self) -> i64 {
        self.epoch
    }

    /// Whether another server has taken the database over from this backend.
    pub fn is_fenced(&self) -> bool {
        self.fenced.load(Ordering::Acquire)
    }

    /// Checks that the one-server lock is still this backend's (taking it again if only its
    /// connection was lost and nobody took the database meanwhile). `Err` if it is not, or
    /// PostgreSQL cannot be reached; [`PostgresBackend::is_fenced`] tells the two apart.
    pub fn watch(&self) -> Result<()> {
        if self.reader {
            return Ok(());
        }
        self.refuse_if_fenced()?;
        self.check_lock_holder()
    }

    fn fenced_error(&self) -> Error {
        Error::Unavailable(format!(
            "another hivestore server has taken over the PostgreSQL database at {}: this \
             server no longer serves it",
            redacted(&self.url)
        ))
    }

    fn refuse_if_fenced(&self) -> Result<()> {
        if self.is_fenced() {
            return Err(self.fenced_error());
        }
        Ok(())
    }

    fn fence(&self) -> Error {
        if !self.fenced.swap(true, Ordering::AcqRel) {
            tracing::error!(
                store = %redacted(&self.url),
                epoch = self.epoch,
                "another server has taken over the database: every operation is refused"
            );
        }
        self.fenced_error()
    }

    /// Runs `operation` on a connection of the pool, connecting again (with back-off) when
    /// the connection was lost; a PostgreSQL error that is not a lost connection fails at
    /// once.
    fn with_client<T>(
        &self,
        what: &str,
        mut operation: impl FnMut(&mut Connection) -> std::result::Result<T, postgres::Error>,
    ) -> Result<T> {
        let index = self.next.fetch_add(1, Ordering::Relaxed) % self.connections.len();
        let mut slot = self.connections[index]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut wait = RECONNECT_WAIT_FIRST;
        let mut last_error = None;
        for attempt in 0..=POSTGRES_RECONNECT_ATTEMPTS {
            if attempt > 0 {
                std::thread::sleep(wait);
                wait *= 2;
            }
            if slot
                .as_ref()
                .is_none_or(|connection| connection.client.is_closed())
            {
                match Client::connect(&self.url, NoTls) {
                    Ok(client) => *slot = Some(Connection::new(client)),
                    Err(error) => {
                        last_error = Some(storage_error(&self.url, "connect", &error));
                        continue;
                    }
                }
                if !self.reader {
                    self.check_lock_holder()?;
                }
            }
            let connection = slot.as_mut().expect("connected above");
            match operation(connection) {
                Ok(answer) => return Ok(answer),
                Err(error) if connection_lost(&error) => {
                    last_error = Some(storage_error(&self.url, what, &error));
                    *slot = None;
                }
                Err(error) => return Err(storage_error(&self.url, what, &error)),
            }
        }
        Err(last_error.unwrap_or_else(|| Error::Unavailable(format!("{what}: no connection"))))
    }

    /// After a lost connection: the one-server lock must still be this process's, else
    /// another server may have taken the database over, and nothing more may be written.
    fn check_lock_holder(&self) -> Result<()> {
        let mut holder = self
            .lock_holder
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(client) = holder.as_mut() {
            if client.is_valid(LOCK_CHECK_TIMEOUT).is_ok() {
                return Ok(());
            }
        }
        let mut client = Client::connect(&self.url, NoTls)
            .map_err(|error| storage_error(&self.url, "connect", &error))?;
        if !try_server_lock(&mut client, &self.url)? {
            return Err(self.fence());
        }
        if read_epoch(&mut client, &self.url)? != self.epoch {
            return Err(self.fence());
        }
        *holder = Some(client);
        Ok(())
    }
}

/// `connection_count` connections (at least one) for reads and writes.
fn pool(url: &str, connection_count: usize) -> Result<Vec<Mutex<Option<Connection>>>> {
    (0..connection_count.max(1))
        .map(|_| {
            let client = Client::connect(url, NoTls)
                .map_err(|error| storage_error(url, "connect", &error))?;
            Ok(Mutex::new(Some(Connection::new(client))))
        })
        .collect()
}

/// A connection that holds the one-server lock, taken as `wait` says.
fn take_server_lock(url: &str, wait: ServerLockWait) -> Result<Client> {
    let connect =
        || Client::connect(url, NoTls).map_err(|error| storage_error(url, "connect", &error));
    let deadline = match wait {
        ServerLockWait::Bounded(wait) => Some(Instant::now() + wait),
        ServerLockWait::Standby => None,
    };
    let mut holder = connect()?;
    let mut told = false;
    loop {
        match try_server_lock(&mut holder, url) {
            Ok(true) => {
                if told {
                    tracing::info!(store = %redacted(url), "took the database over");
                }
                return Ok(holder);
            }
            Ok(false) => {}
            // A standby outlives PostgreSQL's restarts; a bounded wait fails.
            Err(error) if deadline.is_none() && matches!(error, Error::Unavailable(_)) => {
                tracing::warn!(%error, "standby: PostgreSQL is unreachable, trying again");
                std::thread::sleep(STANDBY_RECONNECT_WAIT);
                if let Ok(client) = connect() {
                    holder = client;
                }
                continue;
            }
            Err(error) => return Err(error),
        }
        match deadline {
            Some(deadline) if Instant::now() >= deadline => {
                return Err(Error::Unavailable(format!(
                    "another hivestore server is serving the PostgreSQL database at {} (one \
                     server per database; start this one with --standby to wait and take over \
                     when that server stops)",
                    redacted(url)
                )));
            }
            Some(_) => {}
            None if !told => {
                tracing::info!(
                    store = %redacted(url),
                    "standby: another server serves the database; waiting to take it over"
                );
                told = true;
            }
            None => {}
        }
        std::thread::sleep(SERVER_LOCK_RETRY);
    }
}

/// The epoch row's value.
fn read_epoch(client: &mut Client, url: &str) -> Result<i64> {
    let query = format!("SELECT epoch FROM {POSTGRES_EPOCH_TABLE} WHERE id = 1");
    client
        .query_one(&query, &[])
        .and_then(|row| row.try_get(0))
        .map_err(|error| storage_error(url, "read the server epoch", &error))
}

/// Takes the one-server lock on `client`'s session if nobody holds it; whether it did.
fn try_server_lock(client: &mut Client, url: &str) -> Result<bool> {
    client
        .query_one("SELECT pg_try_advisory_lock($1)", &[&SERVER_LOCK_KEY])
        .and_then(|row| row.try_get(0))
        .map_err(|error| storage_error(url, "take the server lock", &error))
}

/// The `WHERE` clause of `range` with its parameters from `$1`.
fn range_clause(range: &KeyRange) -> (String, Vec<Vec<u8>>) {
    let mut conditions = Vec::new();
    let mut parameters = Vec::new();
    let mut bound = |bound: &Bound<Vec<u8>>, inclusive: &str, exclusive: &str| match bound {
        Bound::Included(key) => {
            parameters.push(key.clone());
            conditions.push(format!("k {inclusive} ${}", parameters.len()));
        }
        Bound::Excluded(key) => {
            parameters.push(key.clone());
            conditions.push(format!("k {exclusive} ${}", parameters.len()));
        }
        Bound::Unbounded => {}
    };
    bound(&range.start, ">=", ">");
    bound(&range.end, "<=", "<");
    let clause = if conditions.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conditions.join(" AND "))
    };
    (clause, parameters)
}

/// Keys and the values to put at them.
type Puts = Vec<(Vec<u8>, Vec<u8>)>;

/// The batch's last operation on each key, puts and deletes apart, in key order.
fn last_operations(batch: WriteBatch) -> (Puts, Vec<Vec<u8>>) {
    let mut last = std::collections::BTreeMap::new();
    for op in batch.into_ops() {
        match op {
            WriteOp::Put { key, value } => last.insert(key, Some(value)),
            WriteOp::Delete { key } => last.insert(key, None),
        };
    }
    let mut puts = Vec::new();
    let mut deletes = Vec::new();
    for (key, value) in last {
        match value {
            Some(value) => puts.push((key, value)),
            None => deletes.push(key),
        }
    }
    (puts, deletes)
}

/// `rows` cut into statements of at most [`POSTGRES_STATEMENT_ROWS_MAX`] rows and
/// [`POSTGRES_STATEMENT_BYTES_MAX`] bytes (a longer row goes alone).
fn statements<T>(rows: &[T], bytes: impl Fn(&T) -> usize) -> Vec<&[T]> {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut size = 0;
    for (index, row) in rows.iter().enumerate() {
        let row_bytes = bytes(row);
        let full = index - start == POSTGRES_STATEMENT_ROWS_MAX
            || (index > start && size + row_bytes > POSTGRES_STATEMENT_BYTES_MAX);
        if full {
            chunks.push(&rows[start..index]);
            start = index;
            size = 0;
        }
        size += row_bytes;
    }
    if start < rows.len() {
        chunks.push(&rows[start..]);
    }
    chunks
}

impl KvBackend for PostgresBackend {
    fn get(&self, key: &[u8]) -> Result<Option<KvBytes>> {
        self.refuse_if_fenced()?;
        let query = format!("SELECT v FROM {POSTGRES_TABLE} WHERE k = $1");
        let row = self.with_client("read a key", |connection| {
            let statement = connection.prepared(&query)?;
            connection.client.query_opt(&statement, &[&key])
        })?;
        match row {
            None => Ok(None),
            Some(row) => {
                let value: Vec<u8> = row
                    .try_get(0)
                    .map_err(|error| storage_error(&self.url, "read a value", &error))?;
                Ok(Some(KvBytes::from_shared(Arc::from(value))))
            }
        }
    }

    fn scan(&self, range: &KeyRange, entry_count_max: usize) -> Result<Vec<(KvBytes, KvBytes)>> {
        self.refuse_if_fenced()?;
        assert!(entry_count_max <= SCAN_PAGE_ENTRY_COUNT_MAX);
        if range.is_empty() || entry_count_max == 0 {
            return Ok(Vec::new());
        }
        let (clause, keys) = range_clause(range);
        let limit = i64::try_from(entry_count_max).unwrap_or(i64::MAX);
        let query = format!(
            "SELECT k, v FROM {POSTGRES_TABLE} {clause} ORDER BY k LIMIT ${}",
            keys.len() + 1
        );
        let rows = self.with_client("scan keys", |connection| {
            let mut parameters: Vec<&(dyn ToSql + Sync)> =
                keys.iter().map(|key| key as &(dyn ToSql + Sync)).collect();
            parameters.push(&limit);
            let statement = connection.prepared(&query)?;
            connection.client.query(&statement, &parameters)
        })?;
        let mut entries = Vec::with_capacity(rows.len());
        for row in rows {
            let read = |index| -> Result<Vec<u8>> {
                row.try_get(index)
                    .map_err(|error| storage_error(&self.url, "read a row", &error))
            };
            let (key, value) = (read(0)?, read(1)?);
            entries.push((
                KvBytes::from_shared(Arc::from(key)),
                KvBytes::from_shared(Arc::from(value)),
            ));
        }
        Ok(entries)
    }

    fn apply(&self, batch: WriteBatch) -> Result<()> {
        self.refuse_if_fenced()?;
        if self.reader {
            return Err(Error::Refused(format!(
                "this server reads the PostgreSQL database at {} beside the server that \
                 writes it",
                redacted(&self.url)
            )));
        }
        if batch.is_empty() {
            return Ok(());
        }
        let (puts, deletes) = last_operations(batch);
        let upsert = format!(
            "INSERT INTO {POSTGRES_TABLE} (k, v) SELECT * FROM unnest($1::bytea[], $2::bytea[]) \
             ON CONFLICT (k) DO UPDATE SET v = excluded.v"
        );
        let delete = format!("DELETE FROM {POSTGRES_TABLE} WHERE k = ANY($1::bytea[])");
        let epoch = format!("SELECT epoch FROM {POSTGRES_EPOCH_TABLE} WHERE id = 1 FOR SHARE");
        let taken_over = self.with_client("apply a batch", |connection| {
            let mut transaction = connection.client.transaction()?;
            if transaction.query_one(&epoch, &[])?.try_get::<_, i64>(0)? != self.epoch {
                return Ok(true);
            }
            for chunk in statements(&deletes, Vec::len) {
                transaction.execute(&delete, &[&chunk])?;
            }
            for chunk in statements(&puts, |(key, value)| key.len() + value.len()) {
                let keys: Vec<&[u8]> = chunk.iter().map(|(key, _)| key.as_slice()).collect();
                let values: Vec<&[u8]> = chunk.iter().map(|(_, value)| value.as_slice()).collect();
                transaction.execute(&upsert, &[&keys, &values])?;
            }
            transaction.commit().map(|()| false)
        })?;
        if taken_over {
            return Err(self.fence());
        }
        Ok(())
    }

    fn flush(&self) -> Result<()> {
        Ok(())
    }

    fn size_on_disk(&self) -> Result<Option<u64>> {
        self.refuse_if_fenced()?;
        let query = format!("SELECT pg_total_relation_size('{POSTGRES_TABLE}')");
        let bytes: i64 = self.with_client("read the table's size", |connection| {
            connection.client.query_one(&query, &[])?.try_get(0)
        })?;
        Ok(Some(u64::try_from(bytes).unwrap_or(0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_never_shows() {
        assert_eq!(
            redacted("postgres://hive:secret@db:5432/metastore"),
            "postgres://hive:***@db:5432/metastore"
        );
        assert_eq!(
            redacted("postgres://db/metastore"),
            "postgres://db/metastore"
        );
        assert_eq!(redacted("host=db user=hive"), "host=db user=hive");
    }

    #[test]
    fn ranges_become_where_clauses() {
        let (clause, parameters) = range_clause(&KeyRange::all());
        assert_eq!((clause.as_str(), parameters.len()), ("", 0));
        let range = KeyRange {
            start: Bound::Excluded(vec![1]),
            end: Bound::Included(vec![2]),
        };
        let (clause, parameters) = range_clause(&range);
        assert_eq!(clause, "WHERE k > $1 AND k <= $2");
        assert_eq!(parameters, vec![vec![1], vec![2]]);
    }

    #[test]
    fn a_batch_keeps_the_last_operation_on_each_key() {
        let mut batch = WriteBatch::new();
        batch.put(b"b".to_vec(), b"1".to_vec());
        batch.delete(b"b".to_vec());
        batch.put(b"a".to_vec(), b"2".to_vec());
        batch.delete(b"c".to_vec());
        batch.put(b"c".to_vec(), b"3".to_vec());
        let (puts, deletes) = last_operations(batch);
        assert_eq!(
            puts,
            vec![
                (b"a".to_vec(), b"2".to_vec()),
                (b"c".to_vec(), b"3".to_vec())
            ]
        );
        assert_eq!(deletes, vec![b"b".to_vec()]);
    }

    #[test]
    fn statements_are_bounded_in_rows_and_bytes() {
        let rows: Vec<usize> = vec![1; POSTGRES_STATEMENT_ROWS_MAX * 2 + 1];
        let chunks = statements(&rows, |size| *size);
        let lengths: Vec<usize> = chunks.iter().map(|chunk| chunk.len()).collect();
        assert_eq!(
            lengths,
            [POSTGRES_STATEMENT_ROWS_MAX, POSTGRES_STATEMENT_ROWS_MAX, 1]
        );
        let big = POSTGRES_STATEMENT_BYTES_MAX / 2 + 1;
        let rows = vec![big, big, big, POSTGRES_STATEMENT_BYTES_MAX * 2];
        let lengths: Vec<usize> = statements(&rows, |size| *size)
            .iter()
            .map(|chunk| chunk.len())
            .collect();
        assert_eq!(lengths, [1, 1, 1, 1]);
    }
}
