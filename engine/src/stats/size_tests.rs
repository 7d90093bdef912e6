//! What statistics writes leave in the store: rewriting a partition's statistics replaces
//! them, so the live data of the statistics keyspaces does not grow with the writes beyond the
//! recent slots a chunk may hold.

use std::sync::Arc;

use super::chunk_delta::RECENT_SLOT_COUNT_MAX;
use super::test_store;
use super::CHUNK_SLOT_COUNT;
use super::{ColumnStatistics, StatsKind, StatsValue, StatsWriteOptions};
use crate::keys;
use crate::size::{measure_live, LiveSize};
use crate::storage::kv::MemoryBackend;
use crate::Store;

const PARTITION_COUNT: usize = 300;

fn statistics(round: i64) -> ColumnStatistics {
    let mut stats = ColumnStatistics::new("l", "bigint", StatsKind::Long);
    stats.low_value = Some(StatsValue::Integer(round));
    stats.high_value = Some(StatsValue::Integer(1000 + round));
    stats.num_nulls = round;
    stats.num_distinct_values = 7;
    stats
}

/// One `update_partition_column_statistics` call per partition, as `ANALYZE` makes them.
fn write_each_partition(store: &Store, round: i64) {
    let options = StatsWriteOptions {
        last_analyzed: round,
        ..StatsWriteOptions::default()
    };
    for index in 0..PARTITION_COUNT {
        let writes = vec![(format!("ds={index}"), vec![statistics(round)])];
        store
            .update_partition_column_statistics("hive", "db", "p", writes, &options)
            .unwrap();
    }
}

fn keyspace_bytes(live: &LiveSize, tag: u8) -> u64 {
    let found = live.keyspaces.iter().find(|keyspace| keyspace.tag == tag);
    found.map_or(0, |keyspace| keyspace.live_bytes())
}

/// The chunks' bytes with their deltas'.
fn chunk_bytes(live: &LiveSize) -> u64 {
    keyspace_bytes(live, keys::KEYSPACE_STATS_CHUNK)
        + keyspace_bytes(live, keys::KEYSPACE_STATS_RECENT)
}

#[test]
fn rewritten_statistics_do_not_grow_the_live_data() {
    // Goal: issue 30's planners run ANALYZE after every insert; the statistics and the
    // partitions they mark take the same bytes however often they are rewritten (only the
    // notification log grows, until its time-to-live), but for the recent slots a chunk's
    // delta may hold (`chunk_delta.rs`), at most RECENT_SLOT_COUNT_MAX of them.
    let backend = Arc::new(MemoryBackend::new());
    let store = test_store::store_with_partitions(backend.clone(), PARTITION_COUNT, true);
    write_each_partition(&store, 1);
    let first = measure_live(backend.as_ref()).unwrap();
    let mut chunk_sizes = vec![chunk_bytes(&first)];
    let mut later = first.clone();
    for round in 2..6 {
        write_each_partition(&store, round);
        later = measure_live(backend.as_ref()).unwrap();
        chunk_sizes.push(chunk_bytes(&later));
    }
    for tag in [
        keys::KEYSPACE_PARTITION,
        keys::KEYSPACE_STATS_SLOT,
        keys::KEYSPACE_STATS_SKETCH,
        keys::KEYSPACE_TABLE_STATS,
    ] {
        assert_eq!(
            keyspace_bytes(&first, tag),
            keyspace_bytes(&later, tag),
            "keyspace 0x{tag:02X}"
        );
    }
    let chunk_count = PARTITION_COUNT.div_ceil(CHUNK_SLOT_COUNT as usize) as u64;
    let recent_bytes_max =
        chunk_count * (RECENT_SLOT_COUNT_MAX * test_store::RECENT_SLOT_BYTES_MAX) as u64;
    let (least, most) = (
        chunk_sizes.iter().min().copied().unwrap_or_default(),
        chunk_sizes.iter().max().copied().unwrap_or_default(),
    );
    assert!(least > 0);
    assert!(most - least <= recent_bytes_max, "{chunk_sizes:?}");
    assert!(
        keyspace_bytes(&later, keys::KEYSPACE_EVENT) > keyspace_bytes(&first, keys::KEYSPACE_EVENT)
    );
}
