//! A store written by builds before sketch chunks still works: partition chunks of the
//! unpacked form (value kind 6) whose slots keep their `bitVectors` at their own keys (flag 4
//! without 16) are aggregated, read back and rewritten by this build.

use std::sync::Arc;

use super::chunk::{chunk_of, SKETCH_IN_CHUNK, SKETCH_TAG_BIT_VECTORS};
use super::packed::unpacked_chunk;
use super::sketch_chunk::{SketchChunk, StoredSketches};
use super::slots::find_slot;
use super::test_store;
use super::{ColumnStatistics, StatsKind, StatsValue, StatsWriteOptions};
use crate::partitions::stored::resolve_table;
use crate::storage::kv::{KvBytes, MemoryBackend};
use crate::storage::values::{ValueKind, VALUE_KIND_OFFSET};
use crate::{keys, Store};

const PARTITION_COUNT: usize = 6;

fn store_with_partitions() -> Store {
    test_store::store_with_partitions(Arc::new(MemoryBackend::new()), PARTITION_COUNT, true)
}

/// A sparse HLL of precision 10 holding `key` (run length 1), in Hive's bytes.
fn sparse_hll(key: u32) -> Vec<u8> {
    let entry = key << 6 | 1;
    let mut bytes = b"HLL\xA0\x01\x01".to_vec();
    let mut value = entry;
    while value >= 0x80 {
        bytes.push(0x80 | (value & 0x7F) as u8);
        value >>= 7;
    }
    bytes.push(value as u8);
    bytes
}

fn statistics(index: usize) -> ColumnStatistics {
    let mut stats = ColumnStatistics::new("l", "bigint", StatsKind::Long);
    stats.low_value = Some(StatsValue::Integer(0));
    stats.high_value = Some(StatsValue::Integer(1000));
    stats.num_distinct_values = 1;
    stats.bit_vectors = Some(sparse_hll(index as u32 + 1));
    stats
}

fn write(store: &Store, indexes: std::ops::Range<usize>) {
    let writes = indexes
        .map(|index| (format!("ds={index}"), vec![statistics(index)]))
        .collect();
    let options = StatsWriteOptions {
        engine: "hive".to_string(),
        merge: false,
        last_analyzed: 1,
        ..StatsWriteOptions::default()
    };
    store
        .update_partition_column_statistics("hive", "db", "p", writes, &options)
        .unwrap();
}

/// Rewrites what this build stored in the form of the builds before it: each slot's sketch
/// at its own key, no sketch chunk, chunks unpacked (kind 6) with flag 16 cleared.
fn downgrade(store: &Store) {
    store
        .write(|txn| {
            let table = resolve_table(txn.reader(), "hive", "db", "p")?.id;
            let chunk_key = keys::stats_chunk_key(table, "l", "hive", 0);
            let mut chunk = unpacked_chunk(&chunk_key, txn.get(&chunk_key)?.unwrap())?;
            let sketch_key = keys::stats_sketch_chunk_key(table, "l", "hive", 0);
            assert!(
                txn.get(&sketch_key)?.is_some(),
                "this build stores sketch chunks"
            );
            txn.delete(sketch_key);
            for index in 0..PARTITION_COUNT {
                let slot = find_slot(txn.reader(), table, &[index.to_string()])?.unwrap();
                let (_, offset) = chunk_of(slot);
                chunk.flags[offset] &= !SKETCH_IN_CHUNK;
                let key = keys::stats_sketch_key(table, "l", "hive", slot, SKETCH_TAG_BIT_VECTORS);
                txn.put_raw(key, sparse_hll(index as u32 + 1));
            }
            txn.put_value(chunk_key, &chunk)?;
            Ok(())
        })
        .unwrap();
}

fn names() -> Vec<String> {
    (0..PARTITION_COUNT)
        .map(|index| format!("ds={index}"))
        .collect()
}

fn merged_ndv(store: &Store) -> i64 {
    let columns = vec!["l".to_string()];
    let aggregate = store
        .aggregate_column_statistics("hive", "db", "p", &names(), &columns, "hive")
        .unwrap();
    assert_eq!(aggregate.partitions_found, PARTITION_COUNT as i64);
    aggregate.stats[0].num_distinct_values
}

fn sketches_read_back(store: &Store) -> Vec<Option<Vec<u8>>> {
    let columns = vec!["l".to_string()];
    let read = store
        .partition_column_statistics("hive", "db", "p", &names(), &columns, "hive", true)
        .unwrap();
    read.into_iter()
        .map(|partition| partition.stats[0].bit_vectors.clone())
        .collect()
}

#[test]
fn sketches_stored_one_key_per_slot_are_read_merged_and_rewritten() {
    // Goal: a store of the previous build keeps working. Method: write with this build,
    // rewrite the values in the previous build's forms, then aggregate and read back (the
    // union of six one-key sketches is 6, where the greatest partition NDV would be 1), write
    // half the partitions again (a delta over the old chunk, `chunk_delta.rs`) and
    // check that every answer stays the same; deleting one partition's statistics merges the
    // chunk, which stores it packed with the rewritten half's sketches in a sketch chunk.
    let store = store_with_partitions();
    write(&store, 0..PARTITION_COUNT);
    assert_eq!(merged_ndv(&store), PARTITION_COUNT as i64);
    let mut expected: Vec<Option<Vec<u8>>> = (0..PARTITION_COUNT)
        .map(|index| Some(sparse_hll(index as u32 + 1)))
        .collect();
    assert_eq!(sketches_read_back(&store), expected);

    downgrade(&store);
    assert_eq!(merged_ndv(&store), PARTITION_COUNT as i64);
    assert_eq!(sketches_read_back(&store), expected);

    write(&store, 0..PARTITION_COUNT / 2);
    assert_eq!(merged_ndv(&store), PARTITION_COUNT as i64);
    assert_eq!(sketches_read_back(&store), expected);
    let reader = store.reader();
    let table = resolve_table(reader, "hive", "db", "p").unwrap().id;
    let chunk_key = keys::stats_chunk_key(table, "l", "hive", 0);
    let chunk_kind =
        |store: &Store| store.reader().get(&chunk_key).unwrap().unwrap()[VALUE_KIND_OFFSET];
    assert_eq!(chunk_kind(&store), ValueKind::StatsChunk as u8);

    let last = format!("ds={}", PARTITION_COUNT - 1);
    store
        .delete_partition_column_statistics("hive", "db", "p", &last, None, "hive")
        .unwrap();
    expected.pop();
    assert_eq!(chunk_kind(&store), ValueKind::StatsPackedChunk as u8);
    assert_eq!(sketches_read_back(&store)[..], expected[..]);
    for index in 0..PARTITION_COUNT - 1 {
        let slot = find_slot(reader, table, &[index.to_string()])
            .unwrap()
            .unwrap();
        let key = keys::stats_sketch_key(table, "l", "hive", slot, SKETCH_TAG_BIT_VECTORS);
        let moved = index < PARTITION_COUNT / 2;
        assert_eq!(
            reader.get(&key).unwrap().is_none(),
            moved,
            "partition {index}"
        );
    }

    // Dropping every statistic of the partitions clears both forms.
    for name in &names()[..PARTITION_COUNT - 1] {
        store
            .delete_partition_column_statistics("hive", "db", "p", name, None, "hive")
            .unwrap();
    }
    let prefix = keys::stats_table_prefix(keys::KEYSPACE_STATS_SKETCH, table);
    let left =
        crate::storage::kv::scan(reader, crate::storage::kv::KeyRange::prefix(&prefix), 16).count();
    assert_eq!(left, 0, "no sketch key or value is left");
}

/// The kind of the sketch chunk stored for the test's column.
fn sketch_chunk_kind(store: &Store) -> u8 {
    let reader = store.reader();
    let table = resolve_table(reader, "hive", "db", "p").unwrap().id;
    let key = keys::stats_sketch_chunk_key(table, "l", "hive", 0);
    reader.get(&key).unwrap().unwrap()[VALUE_KIND_OFFSET]
}

/// Rewrites the sketch chunk in the form of the builds before stored unions (kind 9).
fn drop_the_stored_union(store: &Store) {
    store
        .write(|txn| {
            let table = resolve_table(txn.reader(), "hive", "db", "p")?.id;
            let key = keys::stats_sketch_chunk_key(table, "l", "hive", 0);
            let stored = txn.get(&key)?.unwrap();
            let shared_key = KvBytes::from_shared(Arc::from(key.as_slice()));
            let sketches = StoredSketches::new(shared_key, stored)?.to_sketches()?;
            txn.put_value(key, &SketchChunk::from_sketches(&sketches)?.unwrap())?;
            Ok(())
        })
        .unwrap();
}

#[test]
fn sketch_chunks_stored_without_a_union_merge_alike_and_get_one_by_their_next_merge() {
    // Goal: a sketch chunk of the form before stored unions (kind 9) aggregates and reads
    // back as one with its union (kind 12), cold and kept, and its next merge stores the
    // union. Method: write with this build, rewrite the chunk without its union, compare.
    let store = store_with_partitions();
    write(&store, 0..PARTITION_COUNT);
    let with_union = ValueKind::StatsSketchUnionChunk as u8;
    assert_eq!(sketch_chunk_kind(&store), with_union);
    let expected: Vec<Option<Vec<u8>>> = (0..PARTITION_COUNT)
        .map(|index| Some(sparse_hll(index as u32 + 1)))
        .collect();
    assert_eq!(merged_ndv(&store), PARTITION_COUNT as i64);

    drop_the_stored_union(&store);
    assert_eq!(sketch_chunk_kind(&store), ValueKind::StatsSketchChunk as u8);
    for _cold_then_kept in 0..2 {
        assert_eq!(merged_ndv(&store), PARTITION_COUNT as i64);
    }
    assert_eq!(sketches_read_back(&store), expected);

    // Deleting one partition's statistics merges the chunk (`chunk_delta.rs`), and the
    // partition written again is a recent slot in its delta.
    store
        .delete_partition_column_statistics("hive", "db", "p", "ds=0", None, "hive")
        .unwrap();
    write(&store, 0..1);
    assert_eq!(sketch_chunk_kind(&store), with_union);
    assert_eq!(merged_ndv(&store), PARTITION_COUNT as i64);
    assert_eq!(sketches_read_back(&store), expected);
}
