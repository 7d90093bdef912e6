//! Chunk deltas (`chunk_delta.rs`) against whole chunks: what a one-partition write stages,
//! that every read answers as over chunks written whole, that the kept chunks follow, that a
//! delta takes each slot once and merges when full, and that drops take deltas along.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use super::chunk_delta::{RecentSlots, RECENT_SLOT_COUNT_MAX};
use super::chunk_run::CHUNK_NUMBER_LEN;
use super::{ColumnStatistics, StatsKind, StatsValue, StatsWriteOptions};
use crate::error::Result;
use crate::keys;
use crate::storage::kv::{KeyRange, KvBackend, KvBytes, MemoryBackend, WriteBatch, WriteOp};
use crate::{
    Database, Durability, FieldSchema, Partition, StorageDescriptor, Store, StoreOptions, Table,
};

const PARTITION_COUNT: usize = 300;
/// The most a recent slot of [`COLUMNS`] adds to its chunk's delta: a slot of a packed chunk
/// (three bytes and up to seven numbers of 8 bytes) and its offset, with room to spare.
const RECENT_SLOT_BYTES_MAX: usize = 80;
/// The most a delta of [`COLUMNS`] stages past its slots, key and value: a key of about 25
/// bytes, the value's 8-byte header, the packed arrays' offsets and lengths (8 bytes each) and
/// the column's type name.
const DELTA_HEADER_BYTES_MAX: usize = 256;
/// The columns of the table, with their types: those of `hivestore bench --workload
/// stats_update`.
const COLUMNS: [(&str, &str); 4] = [
    ("b", "bigint"),
    ("i", "int"),
    ("s", "string"),
    ("d", "double"),
];

/// What one batch staged in the statistics keyspaces 0x09, 0x0A and 0x38.
#[derive(Debug, Default, Clone, Copy)]
struct StagedStatistics {
    bytes: usize,
    /// Puts of whole chunks (not deltas).
    chunk_puts: usize,
}

/// A memory backend that records what each batch stages in the statistics keyspaces.
#[derive(Default)]
struct CountingBackend {
    inner: MemoryBackend,
    batches: Mutex<Vec<StagedStatistics>>,
}

impl CountingBackend {
    fn take(&self) -> Vec<StagedStatistics> {
        std::mem::take(&mut *self.batches.lock().unwrap())
    }
}

fn is_statistics_key(key: &[u8]) -> bool {
    matches!(
        key.first(),
        Some(
            &keys::KEYSPACE_STATS_CHUNK
                | &keys::KEYSPACE_STATS_SKETCH
                | &keys::KEYSPACE_STATS_RECENT
        )
    )
}

impl KvBackend for CountingBackend {
    fn get(&self, key: &[u8]) -> Result<Option<KvBytes>> {
        self.inner.get(key)
    }

    fn scan(&self, range: &KeyRange, count: usize) -> Result<Vec<(KvBytes, KvBytes)>> {
        self.inner.scan(range, count)
    }

    fn apply(&self, batch: WriteBatch) -> Result<()> {
        let mut staged = StagedStatistics::default();
        for op in batch.ops() {
            let (key, value_len) = match op {
                WriteOp::Put { key, value } => (key, value.len()),
                WriteOp::Delete { key } => (key, 0),
            };
            if !is_statistics_key(key) {
                continue;
            }
            staged.bytes += key.len() + value_len;
            let is_chunk = key[0] == keys::KEYSPACE_STATS_CHUNK
                && keys::decode_stats_column_key(key)
                    .is_ok_and(|(_, _, _, rest)| rest.len() == CHUNK_NUMBER_LEN);
            if is_chunk && matches!(op, WriteOp::Put { .. }) {
                staged.chunk_puts += 1;
            }
        }
        if staged.bytes > 0 {
            self.batches.lock().unwrap().push(staged);
        }
        self.inner.apply(batch)
    }

    fn flush(&self) -> Result<()> {
        self.inner.flush()
    }
}

fn open(backend: Arc<dyn KvBackend>) -> Store {
    let mut options = StoreOptions::new("/warehouse").metadata_only();
    options.durability = Durability::Memory;
    Store::open_with_backend(backend, options).unwrap()
}

/// Database `db`, table `p` of [`COLUMNS`] partitioned by `ds`, partitions `ds=0`, `ds=1`...
fn make_table(store: &Store) {
    let database = Database {
        name: "db".to_string(),
        ..Database::default()
    };
    store.create_database(database).unwrap();
    let column = |(name, type_name): (&str, &str)| FieldSchema {
        name: name.to_string(),
        type_name: type_name.to_string(),
        comment: None,
    };
    let table = Table {
        table_name: "p".to_string(),
        db_name: "db".to_string(),
        sd: Some(StorageDescriptor {
            cols: COLUMNS.into_iter().map(column).collect(),
            ..StorageDescriptor::default()
        }),
        partition_keys: vec![column(("ds", "string"))],
        ..Table::default()
    };
    store.create_table(table).unwrap();
    let partitions = (0..PARTITION_COUNT)
        .map(|index| Partition {
            values: vec![index.to_string()],
            ..Partition::default()
        })
        .collect();
    store
        .add_partitions("hive", "db", "p", partitions, &Default::default())
        .unwrap();
}

/// A sparse HLL of precision 10 holding `key` (run length 1), in Hive's bytes.
fn sparse_hll(key: u32) -> Vec<u8> {
    let mut bytes = b"HLL\xA0\x01\x01".to_vec();
    let mut value = key << 6 | 1;
    while value >= 0x80 {
        bytes.push(0x80 | (value & 0x7F) as u8);
        value >>= 7;
    }
    bytes.push(value as u8);
    bytes
}

/// Statistics of every column for partition `index` in round `round`, a sketch with each when
/// `sketched`.
fn statistics(index: usize, round: i64, sketched: bool) -> Vec<ColumnStatistics> {
    let number = index as i64 * 7 + round;
    COLUMNS
        .iter()
        .map(|(name, type_name)| {
            let kind = match *type_name {
                "string" => StatsKind::String,
                "double" => StatsKind::Double,
                _ => StatsKind::Long,
            };
            let mut stats = ColumnStatistics::new(*name, *type_name, kind);
            stats.num_nulls = number % 11;
            stats.num_distinct_values = 1 + number % 5;
            match kind {
                StatsKind::String => {
                    stats.max_length = number % 30;
                    stats.avg_length = (number % 30) as f64 / 2.0;
                }
                StatsKind::Double => {
                    stats.low_value = Some(StatsValue::Double(-(number as f64) / 4.0));
                    stats.high_value = Some(StatsValue::Double(number as f64));
                }
                _ => {
                    stats.low_value = Some(StatsValue::Integer(-number));
                    stats.high_value = Some(StatsValue::Integer(number * 3));
                }
            }
            if sketched {
                stats.bit_vectors = Some(sparse_hll(number as u32 % 1000 + 1));
            }
            stats
        })
        .collect()
}

fn write(store: &Store, writes: Vec<(String, Vec<ColumnStatistics>)>) {
    let options = StatsWriteOptions {
        last_analyzed: 5,
        ..StatsWriteOptions::default()
    };
    store
        .update_partition_column_statistics("hive", "db", "p", writes, &options)
        .unwrap();
}

fn name(index: usize) -> String {
    format!("ds={index}")
}

fn column_names() -> Vec<String> {
    COLUMNS.iter().map(|(name, _)| name.to_string()).collect()
}

/// The recent slots stored, by chunk: each delta's slot count, by its key; the chunk keyspace
/// holds chunks only.
fn recent_slots_by_chunk(backend: &dyn KvBackend) -> BTreeMap<Vec<u8>, usize> {
    let chunks = KeyRange::prefix(&[keys::KEYSPACE_STATS_CHUNK]);
    for entry in crate::storage::kv::scan(backend, chunks, 1000) {
        let (key, _) = entry.unwrap();
        let (_, _, _, rest) = keys::decode_stats_column_key(&key).unwrap();
        assert_eq!(rest.len(), CHUNK_NUMBER_LEN);
    }
    let range = KeyRange::prefix(&[keys::KEYSPACE_STATS_RECENT]);
    let mut by_chunk = BTreeMap::new();
    for entry in crate::storage::kv::scan(backend, range, 1000) {
        let (key, value) = entry.unwrap();
        let (_, _, _, rest) = keys::decode_stats_column_key(&key).unwrap();
        assert_eq!(rest.len(), CHUNK_NUMBER_LEN);
        let delta = RecentSlots::decode(key.clone(), value).unwrap();
        assert_ne!(delta.len(), 0, "an empty delta is deleted, not stored");
        by_chunk.insert(key.to_vec(), delta.len());
    }
    by_chunk
}

/// The sketches stored at their slot's own key.
fn own_sketch_count(backend: &dyn KvBackend) -> usize {
    let range = KeyRange::prefix(&[keys::KEYSPACE_STATS_SKETCH]);
    let own = crate::storage::kv::scan(backend, range, 1000).filter(|entry| {
        let (key, _) = entry.as_ref().unwrap();
        let (_, _, _, rest) = keys::decode_stats_column_key(key).unwrap();
        rest.len() == 5 && rest[4] == super::chunk::SKETCH_TAG_BIT_VECTORS
    });
    own.count()
}

#[test]
fn a_one_partition_write_stages_the_bytes_of_its_slots_not_of_their_chunks() {
    // Goal: issue 30's ANALYZE after every insert writes one partition a call; such a write
    // stages its chunk's delta per column (the recent slots since the last merge), not a
    // 128-slot chunk per column, and the merges, shared by many writes, keep the average well
    // under a chunk. Method: full chunks written whole (as every build before deltas wrote
    // them), then one write per partition, each batch's statistics keys and values counted.
    let backend = Arc::new(CountingBackend::default());
    let store = open(backend.clone());
    make_table(&store);
    let all = (0..PARTITION_COUNT)
        .map(|index| (name(index), statistics(index, 0, false)))
        .collect();
    write(&store, all);
    let whole = backend.take();
    assert_eq!(whole.len(), 1);
    let chunk_count = PARTITION_COUNT.div_ceil(128) * COLUMNS.len();
    assert_eq!(whole[0].chunk_puts, chunk_count);
    let whole_chunk_bytes = whole[0].bytes / chunk_count;
    for index in 0..PARTITION_COUNT {
        write(&store, vec![(name(index), statistics(index, 1, false))]);
    }
    let batches = backend.take();
    assert_eq!(batches.len(), PARTITION_COUNT);
    let (merging, deltas): (Vec<StagedStatistics>, Vec<StagedStatistics>) =
        batches.iter().partition(|batch| batch.chunk_puts > 0);
    assert!(deltas.len() > merging.len() * RECENT_SLOT_COUNT_MAX / 2);
    // The n-th write after a merge stages a delta of n slots per column: a header and n
    // slots, each within RECENT_SLOT_BYTES_MAX.
    let mut since_merge = 0;
    for batch in &batches {
        if batch.chunk_puts > 0 {
            since_merge = 0;
            continue;
        }
        since_merge += 1;
        let bound = COLUMNS.len() * (DELTA_HEADER_BYTES_MAX + since_merge * RECENT_SLOT_BYTES_MAX);
        assert!(
            batch.bytes <= bound,
            "{batch:?}, {since_merge} since a merge"
        );
    }
    // A merge rewrites each column's chunk once for RECENT_SLOT_COUNT_MAX + 1 writes.
    let total: usize = batches.iter().map(|batch| batch.bytes).sum();
    let per_write_per_column = total / (PARTITION_COUNT * COLUMNS.len());
    let delta_average = DELTA_HEADER_BYTES_MAX + RECENT_SLOT_COUNT_MAX / 2 * RECENT_SLOT_BYTES_MAX;
    let amortized_bound = delta_average + whole_chunk_bytes / RECENT_SLOT_COUNT_MAX;
    eprintln!(
        "a chunk {whole_chunk_bytes} B; per write per column {per_write_per_column} B; \
         delta writes {:?} B",
        deltas
            .iter()
            .take(RECENT_SLOT_COUNT_MAX)
            .map(|batch| batch.bytes)
            .collect::<Vec<_>>()
    );
    assert!(
        per_write_per_column <= amortized_bound,
        "{per_write_per_column} bytes a column a write, chunks of {whole_chunk_bytes}"
    );
    assert!(per_write_per_column * 3 < whole_chunk_bytes);
}

#[test]
fn a_delta_takes_each_slot_once_and_merges_when_full() {
    // Goal: a write to a slot already in its chunk's delta replaces it there (the delta does
    // not grow), the write that would pass RECENT_SLOT_COUNT_MAX slots merges the chunk, and a
    // write that clears a slot merges too. Method: one column's chunk written whole, then one
    // partition a write, the delta's slot count and the chunk puts looked at after each.
    let backend = Arc::new(CountingBackend::default());
    let store = open(backend.clone());
    make_table(&store);
    let all = (0..128)
        .map(|index| (name(index), statistics(index, 0, false)))
        .collect();
    write(&store, all);
    backend.take();
    let delta_slots = || {
        recent_slots_by_chunk(backend.as_ref())
            .values()
            .sum::<usize>()
    };
    for round in 1..4 {
        write(&store, vec![(name(7), statistics(7, round, false))]);
        assert_eq!(delta_slots(), COLUMNS.len(), "round {round}");
    }
    for index in 1..RECENT_SLOT_COUNT_MAX {
        write(&store, vec![(name(index + 7), statistics(index, 1, false))]);
    }
    assert_eq!(delta_slots(), COLUMNS.len() * RECENT_SLOT_COUNT_MAX);
    assert!(backend.take().iter().all(|batch| batch.chunk_puts == 0));
    write(&store, vec![(name(7), statistics(7, 9, false))]);
    assert_eq!(delta_slots(), COLUMNS.len() * RECENT_SLOT_COUNT_MAX);
    write(&store, vec![(name(100), statistics(100, 1, false))]);
    assert_eq!(delta_slots(), 0, "a full delta merges");
    assert!(backend
        .take()
        .iter()
        .any(|batch| batch.chunk_puts == COLUMNS.len()));
    write(&store, vec![(name(101), statistics(101, 1, false))]);
    assert_eq!(delta_slots(), COLUMNS.len());
    store
        .delete_partition_column_statistics("hive", "db", "p", &name(3), None, "hive")
        .unwrap();
    assert_eq!(delta_slots(), 0, "a cleared slot merges");
    let read = store
        .partition_column_statistics("hive", "db", "p", &[name(7)], &column_names(), "hive", true)
        .unwrap();
    assert_eq!(read[0].stats, statistics(7, 9, false));
}

/// Reads that must answer the same over deltas as over whole chunks.
fn reads(
    store: &Store,
) -> (
    Vec<super::PartitionStatistics>,
    Vec<super::AggregateStatistics>,
) {
    let names: Vec<String> = (0..PARTITION_COUNT).map(name).collect();
    let partitions = store
        .partition_column_statistics("hive", "db", "p", &names, &column_names(), "hive", true)
        .unwrap();
    let aggregate = |names: &[String]| {
        store
            .aggregate_column_statistics("hive", "db", "p", names, &column_names(), "hive")
            .unwrap()
    };
    let aggregates = vec![
        aggregate(&names),
        aggregate(&names[..128]),
        aggregate(&names[100..230]),
        aggregate(&[name(3), name(140), name(299)]),
    ];
    (partitions, aggregates)
}

/// 900 writes of one partition each in a scattered order (two thirds with sketches) and, one
/// in ten, a delete of a partition's statistics, reads in between; `model` follows them.
fn scattered_writes(store: &Store, model: &mut BTreeMap<usize, Vec<ColumnStatistics>>) {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound as u64) as usize
    };
    for step in 0..900 {
        let index = next(PARTITION_COUNT);
        match next(10) {
            0 => {
                store
                    .delete_partition_column_statistics(
                        "hive",
                        "db",
                        "p",
                        &name(index),
                        None,
                        "hive",
                    )
                    .unwrap();
                model.remove(&index);
            }
            choice => {
                let stats = statistics(index, step as i64, choice % 3 != 0);
                write(store, vec![(name(index), stats.clone())]);
                model.insert(index, stats);
            }
        }
        if step % 97 == 0 {
            reads(store);
        }
    }
}

#[test]
fn reads_over_recent_slots_answer_as_over_chunks_written_whole() {
    // Goal: every read answers the same whether the chunks hold the statistics or recent
    // slots laid over them, the kept chunks never serve a stale slot, and the recent slots
    // per chunk stay within their bound. Method: a store written whole, then one partition a
    // write in a scattered order (some with sketches, some deletes), reads in between;
    // its reads (kept), a new store's on the same data (nothing kept) and those of a
    // store written whole with the final statistics must all agree, and match the model.
    let backend = Arc::new(MemoryBackend::new());
    let store = open(backend.clone());
    make_table(&store);
    let mut model: BTreeMap<usize, Vec<ColumnStatistics>> = BTreeMap::new();
    let first: Vec<_> = (0..PARTITION_COUNT)
        .map(|index| (name(index), statistics(index, 0, true)))
        .collect();
    for (index, (_, stats)) in first.iter().enumerate() {
        model.insert(index, stats.clone());
    }
    write(&store, first);
    scattered_writes(&store, &mut model);
    let by_chunk = recent_slots_by_chunk(backend.as_ref());
    assert!(!by_chunk.is_empty());
    assert!(
        by_chunk
            .values()
            .all(|count| *count <= RECENT_SLOT_COUNT_MAX),
        "{by_chunk:?}"
    );

    let kept = reads(&store);
    let fresh = reads(&open(backend));
    let whole_store = open(Arc::new(MemoryBackend::new()));
    make_table(&whole_store);
    let final_writes = model
        .iter()
        .map(|(index, stats)| (name(*index), stats.clone()))
        .collect();
    write(&whole_store, final_writes);
    let whole = reads(&whole_store);
    assert_eq!(kept, fresh);
    assert_eq!(kept, whole);
    let expected: Vec<(String, Vec<ColumnStatistics>)> = model
        .into_iter()
        .map(|(index, stats)| (name(index), stats))
        .collect();
    let mut read: Vec<(String, Vec<ColumnStatistics>)> = kept
        .0
        .into_iter()
        .map(|partition| (partition.partition_name, partition.stats))
        .collect();
    read.sort_by_key(|(name, _)| name.trim_start_matches("ds=").parse::<usize>().unwrap());
    assert_eq!(read, expected);
}

#[test]
fn drops_take_deltas_along() {
    // Goal: a dropped partition's recent slot and its sketch go with it, and a dropped table
    // leaves no statistics key. Method: one partition a write (deltas), a drop of one
    // partition, then of the table, the keyspaces looked at.
    let backend = Arc::new(MemoryBackend::new());
    let store = open(backend.clone());
    make_table(&store);
    for index in 0..6 {
        write(&store, vec![(name(index), statistics(index, 1, true))]);
    }
    // The first write stored the chunk; the next five are a recent slot per column each in
    // the chunks' deltas, their sketches at their slots' own keys.
    assert_eq!(
        recent_slots_by_chunk(backend.as_ref())
            .values()
            .sum::<usize>(),
        5 * 4
    );
    assert_eq!(own_sketch_count(backend.as_ref()), 5 * 4);
    store
        .drop_partition("hive", "db", "p", &["2".to_string()], false)
        .unwrap();
    // The drop merged the chunks: no delta is left, the sketches moved into the chunks'
    // sketch values, and partition 2 has nothing.
    assert!(recent_slots_by_chunk(backend.as_ref()).is_empty());
    assert_eq!(own_sketch_count(backend.as_ref()), 0);
    let names: Vec<String> = (0..6).map(name).collect();
    let read = store
        .partition_column_statistics("hive", "db", "p", &names, &column_names(), "hive", true)
        .unwrap();
    let read_names: Vec<&str> = read.iter().map(|p| p.partition_name.as_str()).collect();
    assert_eq!(read_names, ["ds=0", "ds=1", "ds=3", "ds=4", "ds=5"]);
    assert!(read
        .iter()
        .all(|p| p.stats.iter().all(|s| s.bit_vectors.is_some())));
    for index in 0..3 {
        write(&store, vec![(name(index + 10), statistics(index, 2, true))]);
    }
    store.drop_table("hive", "db", "p").unwrap();
    for keyspace in [
        keys::KEYSPACE_STATS_CHUNK,
        keys::KEYSPACE_STATS_RECENT,
        keys::KEYSPACE_STATS_SKETCH,
    ] {
        let left = backend.scan(&KeyRange::prefix(&[keyspace]), 1).unwrap();
        assert!(left.is_empty(), "keyspace 0x{keyspace:02X}");
    }
}
