//! What a crash or a full disk may take, checked on a simulated disk that loses every write
//! after the last flush when it "crashes" (a `kill -9` keeps the page cache, so the crash tests
//! with real processes cannot show this) and fails flushes as a full disk does:
//!
//! - an answer is settled only once what it read is durable: a reader never shows a write a
//!   crash can still lose, nor an event id that is later given to another event;
//! - a write whose flush fails is gone for readers at once, reads go on while the disk is
//!   full, and writes work again once it has room, without a restart;
//! - driven through random operations (partitions and tables added and dropped, partitions'
//!   statistics written one partition a call, as recent slots and merged chunks) with crashes
//!   and full disks in between, the store keeps every acknowledged write, shows no failed one,
//!   and every event a reader saw keeps its id and content.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hivestore_engine::events::{EventFilter, EventKind, EventRecord};
use hivestore_engine::kv::{KeyRange, KvBackend, KvBytes, SimulatedDisk, WriteBatch};
use hivestore_engine::{
    AddPartitionsOptions, ColumnStatistics, Database, Durability, Error, FieldSchema, Partition,
    Result, StatsKind, StatsWriteOptions, StorageDescriptor, Store, StoreOptions, Table,
};

fn options() -> StoreOptions {
    let mut options = StoreOptions::new("s3a://bucket/warehouse").metadata_only();
    options.durability = Durability::Flush;
    options
}

fn open(disk: &Arc<SimulatedDisk>) -> Store {
    Store::open_with_backend(disk.clone(), options()).unwrap()
}

fn create_partitioned_table(store: &Store, name: &str) {
    store
        .create_table(Table {
            table_name: name.to_string(),
            db_name: "db".to_string(),
            sd: Some(StorageDescriptor {
                cols: vec![FieldSchema {
                    name: "id".to_string(),
                    type_name: "bigint".to_string(),
                    comment: None,
                }],
                ..StorageDescriptor::default()
            }),
            partition_keys: vec![FieldSchema {
                name: "p".to_string(),
                type_name: "string".to_string(),
                comment: None,
            }],
            ..Table::default()
        })
        .unwrap();
}

fn setup(store: &Store) {
    store
        .create_database(Database {
            name: "db".to_string(),
            ..Database::default()
        })
        .unwrap();
    create_partitioned_table(store, "t");
}

fn add(store: &Store, table: &str, value: &str) -> Result<Vec<Partition>> {
    let partition = Partition {
        values: vec![value.to_string()],
        ..Partition::default()
    };
    store.add_partitions(
        "hive",
        "db",
        table,
        vec![partition],
        &AddPartitionsOptions::default(),
    )
}

/// A read as a frontend makes it: marked, then settled before its answer counts.
fn settled<T>(store: &Store, read: impl FnOnce(&Store) -> Result<T>) -> Result<T> {
    let mark = store.read_mark();
    let answer = read(store)?;
    store.settle(mark)?;
    Ok(answer)
}

fn names(store: &Store, table: &str) -> Vec<String> {
    settled(store, |store| {
        store.list_partition_names("hive", "db", table, -1)
    })
    .unwrap()
}

#[test]
fn a_failed_flush_is_invisible_at_once_and_writes_resume_when_there_is_room() {
    // Goal: on a full disk the batch whose flush failed is not readable (before: it answered
    // get_partition until a restart, then was gone), reads keep working, and writes work
    // again once the disk has room, with no restart.
    let disk = Arc::new(SimulatedDisk::new());
    let store = open(&disk);
    setup(&store);
    add(&store, "t", "kept").unwrap();

    disk.set_full(true);
    let failed = add(&store, "t", "lost").unwrap_err();
    assert!(matches!(failed, Error::DiskFull(_)), "{failed:?}");
    let lookup = store.get_partition("hive", "db", "t", &["lost".to_string()]);
    assert!(matches!(lookup, Err(Error::NoSuchObject(_))), "{lookup:?}");
    assert_eq!(names(&store, "t"), vec!["p=kept"]);
    let filtered = settled(&store, |store| {
        store.list_partition_names_by_filter("hive", "db", "t", "p like 'k%'", -1)
    });
    assert_eq!(filtered.unwrap(), vec!["p=kept"]);
    assert_eq!(store.reopen_count(), 1);

    let refused = add(&store, "t", "while_full").unwrap_err();
    assert!(matches!(refused, Error::DiskFull(_)), "{refused:?}");
    assert_eq!(names(&store, "t"), vec!["p=kept"]);

    disk.set_full(false);
    add(&store, "t", "after").unwrap();
    assert_eq!(names(&store, "t"), vec!["p=after", "p=kept"]);

    drop(store);
    disk.crash();
    let store = open(&disk);
    assert_eq!(names(&store, "t"), vec!["p=after", "p=kept"]);
}

#[test]
fn event_ids_seen_before_a_failed_flush_are_never_given_to_other_events() {
    // Goal: an id a reader has seen keeps its meaning. The failed write's event id is handed
    // out again after the store goes back, but no reader saw it, since its answer could not
    // settle.
    let disk = Arc::new(SimulatedDisk::new());
    let store = open(&disk);
    setup(&store);
    let seen = settled(&store, |store| {
        store.next_events(0, 100, &EventFilter::default())
    })
    .unwrap();
    let last_seen = seen.last().unwrap().event_id;
    disk.set_full(true);
    add(&store, "t", "lost").unwrap_err();
    disk.set_full(false);
    add(&store, "t", "next").unwrap();
    let after = settled(&store, |store| {
        store.next_events(0, 100, &EventFilter::default())
    })
    .unwrap();
    assert_eq!(&after[..seen.len()], &seen[..]);
    assert_eq!(after.len(), seen.len() + 1);
    assert_eq!(after[seen.len()].event_id, last_seen + 1);
    assert_eq!(after[seen.len()].record.kind, EventKind::AddPartition);
}

/// A disk whose flushes wait for a go-ahead, so that a test can read between a write's apply
/// and its flush.
struct GatedDisk {
    disk: Arc<SimulatedDisk>,
    gate: Mutex<Option<Receiver<bool>>>,
}

impl KvBackend for GatedDisk {
    fn get(&self, key: &[u8]) -> Result<Option<KvBytes>> {
        self.disk.get(key)
    }
    fn scan(&self, range: &KeyRange, count: usize) -> Result<Vec<(KvBytes, KvBytes)>> {
        self.disk.scan(range, count)
    }
    fn apply(&self, batch: WriteBatch) -> Result<()> {
        self.disk.apply(batch)
    }
    fn flush(&self) -> Result<()> {
        if let Some(gate) = self.gate.lock().unwrap().as_ref() {
            // `false`: fail this flush as a full disk does; a dropped sender lets every flush go.
            if !gate.recv_timeout(Duration::from_secs(30)).unwrap_or(true) {
                self.disk.set_full(true);
                let failed = self.disk.flush();
                self.disk.set_full(false);
                return failed;
            }
        }
        self.disk.flush()
    }
    fn reopen(&self) -> Result<()> {
        self.disk.reopen()
    }
}

impl GatedDisk {
    /// From now on each flush waits for a word from the sender.
    fn close_gate(&self) -> Sender<bool> {
        let (open_gate, gate) = channel();
        *self.gate.lock().unwrap() = Some(gate);
        open_gate
    }
}

/// A store set up on a gated disk, and the gate, closed.
fn gated() -> (Arc<SimulatedDisk>, Store, Sender<bool>) {
    let disk = Arc::new(SimulatedDisk::new());
    let gated = Arc::new(GatedDisk {
        disk: disk.clone(),
        gate: Mutex::new(None),
    });
    let store = Store::open_with_backend(gated.clone(), options()).unwrap();
    setup(&store);
    let open_gate = gated.close_gate();
    (disk, store, open_gate)
}

#[test]
fn an_answer_that_saw_a_write_waits_for_its_flush() {
    // Goal: a reader that reads a partition whose flush has not happened yet does not answer
    // until it has (before: it answered at once, and a crash could then lose what it showed).
    let (disk, store, open_gate) = gated();
    std::thread::scope(|scope| {
        let writer = scope.spawn(|| add(&store, "t", "new"));
        while disk.unflushed_batch_count() == 0 {
            std::thread::yield_now();
        }
        let reader = scope.spawn(|| {
            let mark = store.read_mark();
            let seen = store.list_partition_names("hive", "db", "t", -1).unwrap();
            store
                .settle(mark)
                .map(|()| (seen, disk.unflushed_batch_count()))
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !reader.is_finished(),
            "the reader answered before the flush"
        );
        open_gate.send(true).unwrap();
        drop(open_gate); // later flushes go ahead at once
        writer.join().unwrap().unwrap();
        let (seen, unflushed) = reader.join().unwrap().unwrap();
        assert_eq!(seen, vec!["p=new"]);
        assert_eq!(
            unflushed, 0,
            "what the reader showed was durable when it answered"
        );
    });
}

#[test]
fn an_answer_that_saw_a_write_whose_flush_failed_is_refused() {
    // Goal: a reader that saw a batch whose flush then failed gets an error instead of
    // showing it; right after, the partition is not there.
    let (disk, store, open_gate) = gated();
    std::thread::scope(|scope| {
        let writer = scope.spawn(|| add(&store, "t", "doomed"));
        while disk.unflushed_batch_count() == 0 {
            std::thread::yield_now();
        }
        let mark = store.read_mark();
        let seen = store.list_partition_names("hive", "db", "t", -1).unwrap();
        assert_eq!(seen, vec!["p=doomed"], "visible before its flush");
        open_gate.send(false).unwrap();
        assert!(writer.join().unwrap().is_err());
        drop(open_gate); // later flushes go ahead at once
        let settled = store.settle(mark);
        assert!(matches!(settled, Err(Error::Unavailable(_))), "{settled:?}");
        assert!(names(&store, "t").is_empty());
    });
}

/// A small deterministic generator (xorshift), so that a failing seed can be run again.
struct Random(u64);

impl Random {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}

/// What the model expects of each partition: acknowledged present or absent.
#[derive(Default)]
struct Model {
    partitions: BTreeMap<(String, String), bool>,
    /// Every event a settled read showed, by id.
    events: BTreeMap<u64, EventRecord>,
    /// The highest current event id a settled read showed.
    current_event_id: u64,
    /// Tables besides `t` and `u` (which stay): acknowledged present or absent.
    tables: BTreeMap<String, bool>,
    /// The null count of the statistics of column `id` acknowledged for each partition that
    /// has some.
    statistics: BTreeMap<(String, String), i64>,
}

const TABLES: [&str; 2] = ["t", "u"];
const STEPS_PER_SEED: usize = 400;
const SEEDS: [u64; 6] = [1, 2, 3, 0x5eed, 0xdead_beef, 77];

#[test]
fn random_operations_with_crashes_and_full_disks_keep_what_was_acknowledged() {
    for seed in SEEDS {
        run_model(seed);
    }
}

fn run_model(seed: u64) {
    let disk = Arc::new(SimulatedDisk::new());
    let mut store = open(&disk);
    setup(&store);
    create_partitioned_table(&store, "u");
    let mut model = Model::default();
    let mut random = Random(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    for step in 0..STEPS_PER_SEED {
        let table = TABLES[random.below(2) as usize];
        let value = format!("v{}", random.below(24));
        let key = (table.to_string(), value.clone());
        match random.below(100) {
            0..=29 => {
                if let Ok(added) = add(&store, table, &value) {
                    assert_eq!(added.len(), 1);
                    model.partitions.insert(key, true);
                }
            }
            30..=44 => {
                let nulls = step as i64;
                if write_statistics(&store, table, &value, nulls).is_ok() {
                    model.statistics.insert(key, nulls);
                }
            }
            45..=59 => {
                if store
                    .drop_partition("hive", "db", table, &[value], false)
                    .is_ok()
                {
                    model.statistics.remove(&key);
                    model.partitions.insert(key, false);
                }
            }
            60..=64 => {
                let name = format!("x{}", random.below(6));
                let created = Table {
                    table_name: name.clone(),
                    db_name: "db".to_string(),
                    ..Table::default()
                };
                if store.create_table(created).is_ok() {
                    model.tables.insert(name, true);
                }
            }
            65..=68 => {
                let name = format!("x{}", random.below(6));
                if store.drop_table("hive", "db", &name).is_ok() {
                    model.tables.insert(name, false);
                }
            }
            69..=74 => check_reads(&store, &mut model, seed, step),
            75..=84 => disk.set_full(true),
            85..=92 => disk.set_full(false),
            _ => {
                drop(store);
                disk.crash();
                disk.set_full(false);
                store = open(&disk);
                check_reads(&store, &mut model, seed, step);
            }
        }
    }
    disk.set_full(false);
    drop(store);
    disk.crash();
    let store = open(&disk);
    check_reads(&store, &mut model, seed, STEPS_PER_SEED);
}

/// Writes statistics of column `id` of one partition, `nulls` its null count.
fn write_statistics(store: &Store, table: &str, value: &str, nulls: i64) -> Result<()> {
    let mut stats = ColumnStatistics::new("id", "bigint", StatsKind::Long);
    stats.num_nulls = nulls;
    let writes = vec![(format!("p={value}"), vec![stats])];
    let options = StatsWriteOptions::default();
    store.update_partition_column_statistics("hive", "db", table, writes, &options)
}

/// Checks the statistics each partition of `table` shows against the model, settled.
fn check_statistics(store: &Store, table: &str, model: &Model, context: &str) {
    let names: Vec<String> = (0..24).map(|value| format!("p=v{value}")).collect();
    let Ok(read) = settled(store, |store| {
        let columns = ["id".to_string()];
        store.partition_column_statistics("hive", "db", table, &names, &columns, "hive", false)
    }) else {
        return; // a read may fail while the disk is full
    };
    let read: BTreeMap<String, i64> = read
        .into_iter()
        .map(|partition| (partition.partition_name, partition.stats[0].num_nulls))
        .collect();
    let expected: BTreeMap<String, i64> = model
        .statistics
        .iter()
        .filter(|((model_table, _), _)| model_table == table)
        .map(|((_, value), nulls)| (format!("p={value}"), *nulls))
        .collect();
    assert_eq!(read, expected, "{context}: statistics of {table}");
}

/// Reads everything the model knows of, settled; checks it against the model and adds what
/// it saw of the log.
fn check_reads(store: &Store, model: &mut Model, seed: u64, step: usize) {
    let context = format!("seed {seed} step {step}");
    for table in TABLES {
        check_statistics(store, table, model, &context);
        let Ok(listed) = settled(store, |store| {
            store.list_partition_names("hive", "db", table, -1)
        }) else {
            continue; // a read may fail while the disk is full: then it shows nothing
        };
        let listed: BTreeSet<String> = listed.into_iter().collect();
        for ((model_table, value), present) in &model.partitions {
            if model_table == table {
                assert_eq!(
                    listed.contains(&format!("p={value}")),
                    *present,
                    "{context}: partition {table}/{value}"
                );
            }
        }
        for name in &listed {
            let value = name.trim_start_matches("p=").to_string();
            assert!(
                model.partitions.contains_key(&(table.to_string(), value)),
                "{context}: {table}/{name} was never acknowledged"
            );
        }
    }
    if let Ok(tables) = settled(store, |store| store.list_tables("hive", "db")) {
        let tables: BTreeSet<String> = tables.into_iter().collect();
        for (name, present) in &model.tables {
            assert_eq!(tables.contains(name), *present, "{context}: table {name}");
        }
        for name in &tables {
            assert!(
                TABLES.contains(&name.as_str()) || model.tables.contains_key(name),
                "{context}: table {name} was never acknowledged"
            );
        }
    }
    let Ok(events) = settled(store, |store| {
        store.next_events(0, 100_000, &EventFilter::default())
    }) else {
        return;
    };
    let mut previous = 0;
    for event in &events {
        assert!(event.event_id > previous, "{context}: ids grow");
        previous = event.event_id;
        if let Some(seen) = model.events.get(&event.event_id) {
            assert_eq!(
                seen, &event.record,
                "{context}: event {} changed",
                event.event_id
            );
        }
    }
    let present: BTreeSet<u64> = events.iter().map(|event| event.event_id).collect();
    for id in model.events.keys() {
        assert!(present.contains(id), "{context}: event {id} was lost");
    }
    for event in events {
        model.events.insert(event.event_id, event.record);
    }
    if let Ok(current) = settled(store, |store| store.current_event_id()) {
        assert!(
            current >= model.current_event_id,
            "{context}: current event id went back from {} to {current}",
            model.current_event_id
        );
        model.current_event_id = current;
    }
}
