//! Crash safety: a child process writes through the store, printing each
//! write once it is acknowledged; the parent kills it with SIGKILL at a
//! random moment, reopens the store and checks that every acknowledged write
//! is there and that no write is half applied.
//!
//! Method (after sled's own crash test): the test binary re-runs itself with
//! `CRASH_CHILD_DIR` set, so the child is the `crash_child` test below. Each
//! child thread creates a database, ten tables in it (one atomic write each),
//! then drops half of its databases with cascade (one atomic write removing
//! eleven objects). The parent checks the acknowledged log and the integrity
//! of the name indexes against the values.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hivestore_engine::keys::{
    self, DatabaseId, KEYSPACE_DATABASE, KEYSPACE_TABLE, KEYSPACE_TABLE_NAME,
};
use hivestore_engine::kv::{self, KeyRange, KvBackend};
use hivestore_engine::{Database, Store, StoreOptions, Table};

const CHILD_DIR_VARIABLE: &str = "CRASH_CHILD_DIR";
const CHILD_ROUND_VARIABLE: &str = "CRASH_CHILD_ROUND";
const WRITER_THREAD_COUNT: usize = 4;
const TABLES_PER_DATABASE: usize = 10;
const ROUND_COUNT: u64 = 3;

/// The child's body; a no-op unless the parent started it.
#[test]
fn crash_child() {
    let Ok(dir) = std::env::var(CHILD_DIR_VARIABLE) else {
        return;
    };
    let round = std::env::var(CHILD_ROUND_VARIABLE).unwrap_or_default();
    let store = Store::open(
        Path::new(&dir),
        StoreOptions::new("file:/warehouse").metadata_only(),
    )
    .unwrap();
    std::thread::scope(|scope| {
        for thread in 0..WRITER_THREAD_COUNT {
            let store = &store;
            let round = &round;
            scope.spawn(move || write_forever(store, &format!("r{round}w{thread}")));
        }
    });
}

fn acknowledge(line: String) {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(line.as_bytes()).unwrap();
    stdout.flush().unwrap();
}

fn write_forever(store: &Store, writer: &str) {
    for index in 0.. {
        let database = format!("{writer}_{index}");
        let created = Database {
            name: database.clone(),
            ..Database::default()
        };
        store.create_database(created).unwrap();
        acknowledge(format!("database {database}\n"));
        for table in 0..TABLES_PER_DATABASE {
            let created = Table {
                table_name: format!("t{table}"),
                db_name: database.clone(),
                ..Table::default()
            };
            store.create_table(created).unwrap();
            acknowledge(format!("table {database} t{table}\n"));
        }
        if index % 2 == 0 {
            store.drop_database("hive", &database, true).unwrap();
            acknowledge(format!("dropped {database}\n"));
        }
    }
}

/// What the child acknowledged.
#[derive(Default)]
struct Acknowledged {
    databases: BTreeSet<String>,
    tables: BTreeMap<String, BTreeSet<String>>,
    dropped: BTreeSet<String>,
}

impl Acknowledged {
    fn record(&mut self, line: &str) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["database", database] => {
                self.databases.insert(database.to_string());
            }
            ["table", database, table] => {
                self.tables
                    .entry(database.to_string())
                    .or_default()
                    .insert(table.to_string());
            }
            ["dropped", database] => {
                self.dropped.insert(database.to_string());
            }
            _ => panic!("unexpected line from the child: {line:?}"),
        }
    }
}

fn random_delay(round: u64) -> Duration {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.subsec_nanos())
        .unwrap_or(0);
    let spread = u64::from(nanos)
        .wrapping_mul(6364136223846793005)
        .wrapping_add(round)
        % 600;
    Duration::from_millis(150 + spread)
}

/// Runs one child until killed; returns what it acknowledged.
fn run_child(dir: &Path, round: u64, acknowledged: &mut Acknowledged) -> usize {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "crash_child", "--nocapture", "--test-threads=1"])
        .env(CHILD_DIR_VARIABLE, dir)
        .env(CHILD_ROUND_VARIABLE, round.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut lines = Vec::new();
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap_or(0) > 0 {
            // A line cut by the kill has no newline: not acknowledged.
            if line.ends_with('\n') && !line.starts_with("running") && !line.trim().is_empty() {
                lines.push(line.trim_end().to_string());
            }
            line.clear();
        }
        lines
    });
    std::thread::sleep(random_delay(round));
    child.kill().unwrap();
    child.wait().unwrap();
    let lines = reader.join().unwrap();
    let ours = lines
        .iter()
        .filter(|line| !line.starts_with("test ") && !line.contains("test result"));
    let mut count = 0;
    for line in ours {
        acknowledged.record(line);
        count += 1;
    }
    count
}

#[test]
fn acknowledged_writes_survive_sigkill_and_batches_are_atomic() {
    let dir = tempfile::tempdir().unwrap();
    let mut acknowledged = Acknowledged::default();
    let mut total = 0;
    for round in 0..ROUND_COUNT {
        total += run_child(dir.path(), round, &mut acknowledged);
        let store = Store::open(
            dir.path(),
            StoreOptions::new("file:/warehouse").metadata_only(),
        )
        .unwrap();
        check_acknowledged(&store, &acknowledged);
        check_integrity(store.backend().as_ref());
    }
    eprintln!("{total} writes acknowledged over {ROUND_COUNT} rounds");
    assert!(
        total > 0,
        "the child acknowledged nothing before it was killed"
    );
}

fn check_acknowledged(store: &Store, acknowledged: &Acknowledged) {
    for database in &acknowledged.databases {
        let present = store.get_database("hive", database).is_ok();
        check_presence(acknowledged, database, present, database);
    }
    for (database, tables) in &acknowledged.tables {
        for table in tables {
            let present = store.get_table("hive", database, table).is_ok();
            check_presence(
                acknowledged,
                database,
                present,
                &format!("{database}.{table}"),
            );
        }
    }
}

/// An object of an acknowledged database must be present unless the
/// database's drop was acknowledged; when the drop may have been in flight
/// at the kill (all tables acknowledged, an even index), either is allowed.
fn check_presence(acknowledged: &Acknowledged, database: &str, present: bool, object: &str) {
    if acknowledged.dropped.contains(database) {
        assert!(!present, "{object} survived its acknowledged drop");
        return;
    }
    let table_count = acknowledged.tables.get(database).map_or(0, BTreeSet::len);
    let index: usize = database
        .rsplit('_')
        .next()
        .and_then(|index| index.parse().ok())
        .unwrap();
    let drop_in_flight = table_count == TABLES_PER_DATABASE && index.is_multiple_of(2);
    assert!(
        present || drop_in_flight,
        "acknowledged {object} is missing"
    );
}

/// Every name index entry has its value and every value its index entry;
/// every table's database exists. A half-applied create or cascade drop
/// breaks one of these.
fn check_integrity(backend: &dyn KvBackend) {
    let mut database_ids = BTreeSet::new();
    let mut table_ids = BTreeSet::new();
    for entry in kv::scan(
        backend,
        KeyRange::prefix(&[keys::KEYSPACE_DATABASE_NAME]),
        256,
    ) {
        let (key, value) = entry.unwrap();
        let id = keys::decode_id_value(&key, &value).unwrap();
        assert!(backend
            .get(&keys::database_key(DatabaseId(id)))
            .unwrap()
            .is_some());
        database_ids.insert(id);
    }
    for entry in kv::scan(backend, KeyRange::prefix(&[KEYSPACE_TABLE_NAME]), 256) {
        let (key, value) = entry.unwrap();
        let (database, _) = keys::decode_table_name_key(&key).unwrap();
        assert!(
            database_ids.contains(&database.0),
            "a table of a dropped database survived"
        );
        table_ids.insert(keys::decode_id_value(&key, &value).unwrap());
    }
    let next_id_key = keys::meta_key(keys::META_NEXT_ID);
    let next_id = backend
        .get(&next_id_key)
        .unwrap()
        .map(|value| keys::decode_id_value(&next_id_key, &value).unwrap());
    let highest_id = database_ids.iter().chain(&table_ids).max().copied();
    if let Some(highest_id) = highest_id {
        assert!(
            next_id > Some(highest_id),
            "the id counter is behind a stored id"
        );
    }
    let count = |keyspace: u8| kv::scan(backend, KeyRange::prefix(&[keyspace]), 256).count();
    assert_eq!(
        count(KEYSPACE_DATABASE),
        database_ids.len(),
        "database values without a name"
    );
    assert_eq!(
        count(KEYSPACE_TABLE),
        table_ids.len(),
        "table values without a name"
    );
}
