//! The PostgreSQL backend against a PostgreSQL server of the test's own (Debian's
//! `postgresql` binaries, installed by `.ci/run`; initdb and the server run as the
//! `postgres` user when the tests run as root): checked against the memory backend over a
//! random sequence of operations, a store over it across a reopen, the one-server lock,
//! reconnection after the server dropped every connection, fencing of a server that lost
//! the lock, and a standby taking over.
#![cfg(feature = "postgres")]

use std::ops::Bound;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use hivestore_engine::kv::{
    self, KeyRange, KvBackend, MemoryBackend, PostgresBackend, WriteBatch,
    POSTGRES_STATEMENT_ROWS_MAX,
};
use hivestore_engine::{
    AddPartitionsOptions, Database, Durability, Error, FieldSchema, Partition, StorageDescriptor,
    Store, StoreOptions, Table,
};

/// A PostgreSQL server in a temporary directory, stopped on drop.
struct Postgres {
    _dir: tempfile::TempDir,
    data: PathBuf,
    bin: PathBuf,
    port: u16,
    /// `runuser -u postgres --` when the tests run as root (PostgreSQL refuses root).
    as_postgres: bool,
}

fn bin_dir() -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path().join("bin")))
                .filter(|bin| bin.join("initdb").is_file())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found.pop().expect(
        "PostgreSQL's server binaries (/usr/lib/postgresql/*/bin/initdb) are missing: install \
         Debian's postgresql package (.ci/run does)",
    )
}

fn running_as_root() -> bool {
    let id = Command::new("id").arg("-u").output().expect("id -u");
    String::from_utf8_lossy(&id.stdout).trim() == "0"
}

impl Postgres {
    fn start() -> Postgres {
        let dir = tempfile::tempdir().unwrap();
        let as_postgres = running_as_root();
        if as_postgres {
            let status = Command::new("chown")
                .args(["postgres:postgres"])
                .arg(dir.path())
                .status()
                .unwrap();
            assert!(status.success(), "chown of the server's directory");
        }
        let data = dir.path().join("data");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let server = Postgres {
            data,
            bin: bin_dir(),
            port,
            as_postgres,
            _dir: dir,
        };
        server.run(
            "initdb",
            &[
                "-D",
                &server.data_path(),
                "-A",
                "trust",
                "-U",
                "hive",
                "--no-sync",
                "-E",
                "UTF8",
            ],
        );
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1",
            server.data_path()
        );
        let log = server.data.parent().unwrap().join("server.log");
        let log = log.display().to_string();
        server.run(
            "pg_ctl",
            &[
                "-D",
                &server.data_path(),
                "-l",
                &log,
                "-o",
                &options,
                "-w",
                "start",
            ],
        );
        server
    }

    fn data_path(&self) -> String {
        self.data.display().to_string()
    }

    fn run(&self, program: &str, args: &[&str]) {
        let program = self.bin.join(program);
        let output = if self.as_postgres {
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(&program)
                .args(args)
                .output()
        } else {
            Command::new(&program).args(args).output()
        }
        .unwrap();
        assert!(
            output.status.success(),
            "{} {args:?}: {}{}",
            program.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    fn url(&self, database: &str) -> String {
        format!("postgres://hive@127.0.0.1:{}/{database}", self.port)
    }

    fn admin(&self) -> postgres::Client {
        postgres::Client::connect(&self.url("postgres"), postgres::NoTls).unwrap()
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let data = self.data_path();
        let stop = self.bin.join("pg_ctl");
        let mut command = if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(stop);
            command
        } else {
            Command::new(stop)
        };
        let _ = command
            .args(["-D", &data, "-m", "immediate", "stop"])
            .output();
    }
}

/// A small deterministic generator (xorshift), so that a failure repeats.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }

    /// Keys over a small alphabet, so that they collide, share prefixes and hit 0x00/0xFF.
    fn key(&mut self) -> Vec<u8> {
        let length = self.below(4) as usize;
        (0..length)
            .map(|_| [0u8, 1, 0xFF, b'a'][self.below(4) as usize])
            .collect()
    }

    fn bound(&mut self) -> Bound<Vec<u8>> {
        match self.below(3) {
            0 => Bound::Included(self.key()),
            1 => Bound::Excluded(self.key()),
            _ => Bound::Unbounded,
        }
    }
}

fn plain(entries: Vec<(kv::KvBytes, kv::KvBytes)>) -> Vec<(Vec<u8>, Vec<u8>)> {
    entries
        .into_iter()
        .map(|(key, value)| (key.to_vec(), value.to_vec()))
        .collect()
}

#[test]
fn the_backend_answers_as_the_memory_model_does() {
    let server = Postgres::start();
    let backend = PostgresBackend::connect(&server.url("postgres"), 2).unwrap();
    let model = MemoryBackend::new();
    let mut random = Random(0x9E37_79B9_7F4A_7C15);
    for step in 0..600 {
        match random.below(10) {
            0..=3 => {
                let (mut batch, mut copy) = (WriteBatch::new(), WriteBatch::new());
                for _ in 0..=random.below(5) {
                    let key = random.key();
                    if random.below(3) == 0 {
                        batch.delete(key.clone());
                        copy.delete(key);
                    } else {
                        let length = random.below(40) as usize;
                        let value: Vec<u8> = (0..length).map(|_| random.next() as u8).collect();
                        batch.put(key.clone(), value.clone());
                        copy.put(key, value);
                    }
                }
                backend.apply(batch).unwrap();
                model.apply(copy).unwrap();
            }
            4 | 5 => {
                let key = random.key();
                let expected = model.get(&key).unwrap().map(|value| value.to_vec());
                let found = backend.get(&key).unwrap().map(|value| value.to_vec());
                assert_eq!(found, expected, "step {step}: get {key:?}");
            }
            6..=8 => {
                let range = KeyRange {
                    start: random.bound(),
                    end: random.bound(),
                };
                let limit = 1 + random.below(6) as usize;
                let expected = plain(model.scan(&range, limit).unwrap());
                let found = plain(backend.scan(&range, limit).unwrap());
                assert_eq!(found, expected, "step {step}: scan {range:?} limit {limit}");
            }
            _ => {
                let prefix = random.key();
                let page = 1 + random.below(3) as usize;
                let expected: Vec<_> = kv::scan(&model, KeyRange::prefix(&prefix), page)
                    .map(|entry| entry.unwrap())
                    .collect();
                let found: Vec<_> = kv::scan(&backend, KeyRange::prefix(&prefix), page)
                    .map(|entry| entry.unwrap())
                    .collect();
                assert_eq!(
                    plain(found),
                    plain(expected),
                    "step {step}: prefix {prefix:?}"
                );
            }
        }
    }
}

#[test]
fn a_batch_of_many_statements_is_one_transaction() {
    let server = Postgres::start();
    let backend = PostgresBackend::connect(&server.url("postgres"), 1).unwrap();
    let count = POSTGRES_STATEMENT_ROWS_MAX * 2 + 7;
    let mut batch = WriteBatch::new();
    for index in 0..count {
        batch.put(format!("key{index:06}").into_bytes(), vec![1u8; 16]);
    }
    // A key put and deleted in the same batch ends deleted.
    batch.put(b"gone".to_vec(), b"x".to_vec());
    batch.delete(b"gone".to_vec());
    backend.apply(batch).unwrap();
    let all: Vec<_> = kv::scan(&backend, KeyRange::all(), 4096)
        .map(|entry| entry.unwrap())
        .collect();
    assert_eq!(all.len(), count);
    assert!(backend.get(b"gone").unwrap().is_none());
    assert!(backend.size_on_disk().unwrap().unwrap() > 0);
}

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.to_string(),
        type_name: type_name.to_string(),
        comment: None,
    }
}

fn open_store(url: &str) -> Store {
    let backend = PostgresBackend::connect(url, 2).unwrap();
    let mut options = StoreOptions::new("s3a://bucket/warehouse").metadata_only();
    options.durability = Durability::Flush;
    Store::open_with_backend(Arc::new(backend), options).unwrap()
}

#[test]
fn a_store_on_postgres_keeps_everything_across_a_reopen_and_one_server_holds_it() {
    let server = Postgres::start();
    let url = server.url("postgres");
    let store = open_store(&url);
    store
        .create_database(Database {
            name: "sales".into(),
            ..Database::default()
        })
        .unwrap();
    store
        .create_table(Table {
            db_name: "sales".into(),
            table_name: "orders".into(),
            sd: Some(StorageDescriptor {
                cols: vec![column("id", "bigint")],
                ..StorageDescriptor::default()
            }),
            partition_keys: vec![column("ds", "string")],
            ..Table::default()
        })
        .unwrap();
    let partitions: Vec<Partition> = (0..1500)
        .map(|day| Partition {
            values: vec![format!("d{day:04}")],
            ..Partition::default()
        })
        .collect();
    store
        .add_partitions(
            "hive",
            "sales",
            "orders",
            partitions,
            &AddPartitionsOptions::default(),
        )
        .unwrap();
    let events = store.current_event_id().unwrap();

    // A second server on the same database is refused while the first holds it.
    let error = PostgresBackend::connect(&url, 1).unwrap_err();
    assert!(matches!(error, Error::Unavailable(_)), "{error:?}");
    assert!(
        error.to_string().contains("another hivestore server"),
        "{error}"
    );

    drop(store);
    let store = open_store(&url);
    let names = store
        .list_partition_names_by_filter("hive", "sales", "orders", "ds >= 'd1490'", -1)
        .unwrap();
    assert_eq!(names.len(), 10);
    assert_eq!(store.current_event_id().unwrap(), events);
    assert_eq!(
        store
            .get_table("hive", "sales", "orders")
            .unwrap()
            .table_name,
        "orders"
    );
}

#[test]
fn lost_connections_are_made_again() {
    let server = Postgres::start();
    let url = server.url("postgres");
    let store = open_store(&url);
    store
        .create_database(Database {
            name: "before".into(),
            ..Database::default()
        })
        .unwrap();
    // The server ends every connection of the store's, the one holding the lock included.
    let mut admin = server.admin();
    let ended = admin
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE pid <> pg_backend_pid() AND datname = 'postgres'",
            &[],
        )
        .unwrap();
    assert!(
        ended.len() >= 3,
        "the lock holder and two for the store: {}",
        ended.len()
    );
    // Reads and writes go on, on new connections.
    store
        .create_database(Database {
            name: "after".into(),
            ..Database::default()
        })
        .unwrap();
    let databases = store.list_databases_matching("hive", None).unwrap();
    assert_eq!(databases, ["after", "before", "default"]);
    // And the lock was taken again: another server is still refused.
    let error = PostgresBackend::connect(&url, 1).unwrap_err();
    assert!(
        error.to_string().contains("another hivestore server"),
        "{error}"
    );
}

fn put(backend: &dyn KvBackend, key: &[u8]) -> Result<(), Error> {
    let mut batch = WriteBatch::new();
    batch.put(key.to_vec(), b"v".to_vec());
    backend.apply(batch)
}

#[test]
fn a_server_that_lost_the_database_is_fenced_and_a_standby_takes_it_over() {
    let server = Postgres::start();
    let url = server.url("postgres");
    let first = PostgresBackend::connect(&url, 2).unwrap();
    put(&first, b"before").unwrap();

    // Only the lock's connection ends: the first backend's pool lives on, unaware.
    let mut admin = server.admin();
    let ended = admin
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_locks \
             WHERE locktype = 'advisory' AND granted",
            &[],
        )
        .unwrap();
    assert_eq!(ended.len(), 1, "one connection holds the lock");
    let second = PostgresBackend::connect(&url, 1).unwrap();
    assert_eq!(second.epoch(), first.epoch() + 1);

    // The first one's next batch meets the raised epoch: refused, nothing written, and so
    // is everything after it.
    let error = put(&first, b"fenced").unwrap_err();
    assert!(matches!(error, Error::Unavailable(_)), "{error:?}");
    assert!(error.to_string().contains("taken over"), "{error}");
    assert!(first.is_fenced());
    assert!(first.get(b"before").is_err());
    assert!(first.watch().is_err());
    assert!(second.get(b"fenced").unwrap().is_none());
    assert!(second.get(b"before").unwrap().is_some());
    put(&second, b"second").unwrap();

    // A standby waits while the second serves, and takes over once it is gone.
    let (sender, receiver) = std::sync::mpsc::channel();
    let standby_url = url.clone();
    let standby = std::thread::spawn(move || {
        let backend =
            PostgresBackend::connect_with(&standby_url, 1, kv::ServerLockWait::Standby).unwrap();
        sender.send(backend.epoch()).unwrap();
        backend
    });
    let waited = receiver.recv_timeout(std::time::Duration::from_millis(1500));
    assert!(
        waited.is_err(),
        "the standby waited while the second served"
    );
    let second_epoch = second.epoch();
    drop(second);
    let epoch = receiver
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the standby took over");
    assert_eq!(epoch, second_epoch + 1);
    let third = standby.join().unwrap();
    assert!(third.get(b"second").unwrap().is_some());
    put(&third, b"third").unwrap();
}
