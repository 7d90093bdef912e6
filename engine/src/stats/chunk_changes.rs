//! Which statistics chunks each batch changed, so that the first read after a write re-reads
//! only those and keeps the rest of what it kept, without scanning or comparing them.
//!
//! The kept chunks (`kept_chunks.rs`) key their entries by the version of the table's stripe
//! of the partition sequence lock (`consistent.rs`). Every batch that puts or deletes a chunk
//! key (statistics chunks in keyspace 0x09, their deltas in 0x38, sketch chunks in 0x0A)
//! records here, before it is
//! applied, each such chunk under the version its stripe will have once the batch is applied.
//! A read at version `until` that finds a column's chunks kept at `since` asks which of them a
//! batch changed after `since`: those are read again, the others are the kept ones. A chunk
//! recorded with a version past `until` is read again too (needlessly: that read is retried).
//! An entry whose read a batch overlapped may hold chunks newer than its version: a batch
//! recorded after that version changed them, so they are read again too.
//!
//! The record of a stripe is whole from a version on (at first, the store's open, when
//! nothing is kept yet); a read from before that gets no answer and scans as it did before.
//! Memory is bounded per stripe by [`RECORDED_CHUNK_COUNT_MAX`]: past it the stripe's record
//! is emptied and whole only from the batch that passed it.

use std::borrow::Cow;
use std::sync::Mutex;

use fxhash::FxHashMap;

use crate::storage::consistent::{PartitionVersions, STRIPE_COUNT};
use crate::storage::keys::{self, TableId};
use crate::storage::kv::{WriteBatch, WriteOp};

/// Chunks recorded per stripe; past it the stripe's record is emptied (about 40 bytes each).
pub(crate) const RECORDED_CHUNK_COUNT_MAX: usize = 1 << 14;

/// The length of a chunk number at the end of a chunk key.
const CHUNK_NUMBER_LEN: usize = 4;

/// One stripe's record.
#[derive(Default)]
struct StripeChanges {
    /// Every chunk a batch changed after this version is recorded.
    whole_since: u64,
    /// Per column (a chunk key without its number: keyspace, table, column, engine, and a
    /// sketch chunk's mark), the version of the last batch that changed each chunk.
    columns: FxHashMap<Vec<u8>, FxHashMap<u32, u64>>,
    chunk_count: usize,
}

impl StripeChanges {
    /// Records `chunks` as changed at `version`, or, when they would pass the bound, empties
    /// the record and makes it whole from `version` on.
    fn record(&mut self, chunks: &[(Cow<'_, [u8]>, u32)], version: u64) {
        if self.chunk_count + chunks.len() > RECORDED_CHUNK_COUNT_MAX {
            self.forget_before(version);
            return;
        }
        for (column, number) in chunks {
            let changed = match self.columns.get_mut(column.as_ref()) {
                Some(changed) => changed,
                None => self.columns.entry(column.to_vec()).or_default(),
            };
            if changed.insert(*number, version).is_none() {
                self.chunk_count += 1;
            }
        }
    }

    /// Makes the record whole only from `version` on: a batch changed chunks it cannot name.
    fn forget_before(&mut self, version: u64) {
        self.columns.clear();
        self.chunk_count = 0;
        self.whole_since = version;
    }
}

/// What a batch does to one chunk key's stripe record.
enum ChunkKeyOp<'a> {
    /// The key is no chunk key of keyspace 0x09, 0x0A or 0x38.
    NotAChunk,
    /// A chunk of the column (the chunk's key without its number) changes.
    Chunk(TableId, Cow<'a, [u8]>, u32),
    /// A key of those keyspaces that does not decode: the stripe of `TableId` cannot say.
    Unknown(Option<TableId>),
}

/// Reads what `key` is, without copying it.
fn chunk_key_op(key: &[u8]) -> ChunkKeyOp<'_> {
    let keyspace = key.first().copied();
    let is_chunk_keyspace = matches!(
        keyspace,
        Some(
            keys::KEYSPACE_STATS_CHUNK | keys::KEYSPACE_STATS_SKETCH | keys::KEYSPACE_STATS_RECENT
        )
    );
    if !is_chunk_keyspace {
        return ChunkKeyOp::NotAChunk;
    }
    let table = keys::stats_partition_level_table_id(key).map(TableId);
    let Ok((table_id, _, _, rest)) = keys::decode_stats_column_key(key) else {
        return ChunkKeyOp::Unknown(table);
    };
    let number = match (keyspace, rest.len()) {
        (Some(keys::KEYSPACE_STATS_CHUNK), CHUNK_NUMBER_LEN) => rest,
        // A delta changes its chunk as readers see it (`chunk_delta.rs`): the change is
        // recorded under the chunk's column.
        (Some(keys::KEYSPACE_STATS_RECENT), CHUNK_NUMBER_LEN) => {
            let Ok(number) = <[u8; CHUNK_NUMBER_LEN]>::try_from(rest) else {
                return ChunkKeyOp::Unknown(Some(table_id));
            };
            let mut column = key[..key.len() - CHUNK_NUMBER_LEN].to_vec();
            column[0] = keys::KEYSPACE_STATS_CHUNK;
            let number = u32::from_be_bytes(number);
            return ChunkKeyOp::Chunk(table_id, Cow::Owned(column), number);
        }
        (Some(keys::KEYSPACE_STATS_SKETCH), 8) if rest[..4] == keys::STATS_SKETCH_CHUNK_MARK => {
            &rest[4..]
        }
        // A sketch or histogram of one slot (written before sketch chunks): not kept.
        (Some(keys::KEYSPACE_STATS_SKETCH), 5) => return ChunkKeyOp::NotAChunk,
        _ => return ChunkKeyOp::Unknown(Some(table_id)),
    };
    let Ok(number) = <[u8; CHUNK_NUMBER_LEN]>::try_from(number) else {
        return ChunkKeyOp::Unknown(Some(table_id));
    };
    let column = &key[..key.len() - CHUNK_NUMBER_LEN];
    ChunkKeyOp::Chunk(table_id, Cow::Borrowed(column), u32::from_be_bytes(number))
}

/// The record of every stripe, shared by the store's writers and readers.
pub(crate) struct ChunkChanges {
    stripes: Mutex<Vec<StripeChanges>>,
}

impl Default for ChunkChanges {
    fn default() -> Self {
        let stripes = (0..STRIPE_COUNT)
            .map(|_| StripeChanges::default())
            .collect();
        ChunkChanges {
            stripes: Mutex::new(stripes),
        }
    }
}

impl ChunkChanges {
    /// Forgets every stripe's record up to the version the next batch gives it, as a batch
    /// touching every table does: readers holding older versions read again.
    pub(crate) fn forget_all(&self, versions: &PartitionVersions) {
        let mut stripes = self
            .stripes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for (index, stripe) in stripes.iter_mut().enumerate() {
            stripe.forget_before(versions.version_after_batch(index));
        }
    }

    /// Records the chunks `batch` changes, under the version each chunk's stripe will have
    /// once the batch is applied. Called under the writer lock, before the batch moves the
    /// stripes (so before any reader can see their new version).
    pub(crate) fn record(&self, batch: &WriteBatch, versions: &PartitionVersions) {
        let mut per_stripe: Vec<Vec<(Cow<'_, [u8]>, u32)>> = Vec::new();
        let mut unknown: Vec<usize> = Vec::new();
        for op in batch.ops() {
            let key = match op {
                WriteOp::Put { key, .. } | WriteOp::Delete { key } => key,
            };
            match chunk_key_op(key) {
                ChunkKeyOp::NotAChunk => {}
                ChunkKeyOp::Chunk(table, column, number) => {
                    let stripe = PartitionVersions::stripe_of(table);
                    if per_stripe.is_empty() {
                        per_stripe.resize_with(STRIPE_COUNT, Vec::new);
                    }
                    per_stripe[stripe].push((column, number));
                }
                ChunkKeyOp::Unknown(Some(table)) => {
                    unknown.push(PartitionVersions::stripe_of(table))
                }
                // No table to tell the stripe by: every stripe forgets.
                ChunkKeyOp::Unknown(None) => unknown.extend(0..STRIPE_COUNT),
            }
        }
        if per_stripe.is_empty() && unknown.is_empty() {
            return;
        }
        let Ok(mut stripes) = self.stripes.lock() else {
            return;
        };
        for (stripe, chunks) in per_stripe.iter().enumerate() {
            if !chunks.is_empty() {
                let version = versions.version_after_batch(stripe);
                stripes[stripe].record(chunks, version);
            }
        }
        for stripe in unknown {
            stripes[stripe].forget_before(versions.version_after_batch(stripe));
        }
    }

    /// The chunks of `column` (a chunk key of `table` without its number) that a batch
    /// changed after version `since`, in no order; `None` when the record cannot tell.
    pub(crate) fn changed_since(
        &self,
        table: TableId,
        column: &[u8],
        since: u64,
    ) -> Option<Vec<u32>> {
        let stripes = self.stripes.lock().ok()?;
        let stripe = &stripes[PartitionVersions::stripe_of(table)];
        if stripe.whole_since > since {
            return None;
        }
        let Some(changed) = stripe.columns.get(column) else {
            return Some(Vec::new());
        };
        let after = changed.iter().filter(|(_, version)| **version > since);
        Some(after.map(|(number, _)| *number).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch_of(keys: &[Vec<u8>]) -> WriteBatch {
        let mut batch = WriteBatch::new();
        for (index, key) in keys.iter().enumerate() {
            match index % 2 {
                0 => batch.put(key.clone(), vec![1]),
                _ => batch.delete(key.clone()),
            }
        }
        batch
    }

    fn column(table: TableId, name: &str) -> Vec<u8> {
        let key = keys::stats_chunk_key(table, name, "hive", 0);
        key[..key.len() - CHUNK_NUMBER_LEN].to_vec()
    }

    #[test]
    fn a_batch_names_the_chunks_it_changes_from_its_version_on() {
        // Goal: after a batch writing chunks 1 and 3 of column c (a put and a delete) and a
        // delta of chunk 4, a read kept from before it learns exactly those, one kept
        // from after it none, and other columns, engines and sketch chunks stay apart.
        let table = TableId(5);
        let versions = PartitionVersions::new();
        let changes = ChunkChanges::default();
        let written = [
            keys::stats_chunk_key(table, "c", "hive", 1),
            keys::stats_chunk_key(table, "c", "hive", 3),
            keys::stats_sketch_chunk_key(table, "d", "hive", 7),
            keys::stats_sketch_key(table, "d", "hive", 9, 1),
            keys::partition_prefix(table),
            keys::stats_chunk_delta_key(table, "c", "hive", 4),
        ];
        changes.record(&batch_of(&written), &versions);
        let mut changed = changes
            .changed_since(table, &column(table, "c"), 0)
            .unwrap();
        changed.sort_unstable();
        // A delta is a change of its chunk.
        assert_eq!(changed, vec![1, 3, 4]);
        assert_eq!(
            changes.changed_since(table, &column(table, "c"), 2),
            Some(vec![])
        );
        assert_eq!(
            changes.changed_since(table, &column(table, "e"), 0),
            Some(vec![])
        );
        let sketch = keys::stats_sketch_chunk_key(table, "d", "hive", 0);
        let sketch_column = &sketch[..sketch.len() - CHUNK_NUMBER_LEN];
        assert_eq!(
            changes.changed_since(table, sketch_column, 0),
            Some(vec![7])
        );
        let other_engine = keys::stats_chunk_key(table, "c", "spark", 0);
        let other_engine = &other_engine[..other_engine.len() - CHUNK_NUMBER_LEN];
        assert_eq!(changes.changed_since(table, other_engine, 0), Some(vec![]));
    }

    #[test]
    fn past_its_bound_a_stripe_answers_only_from_then_on() {
        // Goal: a batch that would pass the bound empties the stripe's record, which then
        // answers nothing about versions before that batch, and everything after it.
        let table = TableId(6);
        let versions = PartitionVersions::new();
        let changes = ChunkChanges::default();
        let first: Vec<_> = (0..4)
            .map(|number| keys::stats_chunk_key(table, "c", "hive", number))
            .collect();
        changes.record(&batch_of(&first), &versions);
        let count = u32::try_from(RECORDED_CHUNK_COUNT_MAX).unwrap();
        let many: Vec<_> = (0..count)
            .map(|number| keys::stats_chunk_key(table, "d", "hive", number))
            .collect();
        // Version 2 after the first batch, as if applied; the second one will leave 4.
        versions.bump_stripe_twice_for_test(table);
        changes.record(&batch_of(&many), &versions);
        assert_eq!(changes.changed_since(table, &column(table, "c"), 0), None);
        assert_eq!(changes.changed_since(table, &column(table, "c"), 2), None);
        assert_eq!(
            changes.changed_since(table, &column(table, "d"), 4),
            Some(vec![])
        );
    }

    #[test]
    fn a_chunk_key_that_does_not_decode_makes_its_stripe_forget() {
        // Goal: a key in the chunk keyspace whose tail is no chunk number leaves the stripe
        // unable to answer for versions before it, rather than answering wrongly.
        let table = TableId(7);
        let versions = PartitionVersions::new();
        let changes = ChunkChanges::default();
        let mut odd = keys::stats_chunk_key(table, "c", "hive", 1);
        odd.extend_from_slice(&[0, 0]);
        changes.record(&batch_of(&[odd]), &versions);
        assert_eq!(changes.changed_since(table, &column(table, "c"), 0), None);
        assert_eq!(
            changes.changed_since(table, &column(table, "c"), 2),
            Some(vec![])
        );
    }
}
