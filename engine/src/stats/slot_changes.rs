//! Which statistics slots each batch handed out or removed, so that a kept slot index
//! (`kept_slots.rs`) is brought up to date by the changes since it was scanned instead of
//! scanned again: the first aggregation after a new partition got statistics (a day's
//! partition analysed) scanned all 10,000 slot keys of its table again, half of its cost.
//!
//! The kept slots key their entries by the version of the table's stripe of the store's slot
//! versions (`consistent.rs`). Every batch that puts or deletes a slot key records here,
//! before it is applied, each such key in batch order under the version its stripe will have
//! once the batch is applied. A read at version `until` that finds the table's index kept at
//! `since` applies the changes of the versions after `since` up to `until`, in order.
//!
//! The record of a stripe is whole from a version on (at first, the store's open, when
//! nothing is kept yet); a read from before that gets no answer and scans as before. Memory is
//! bounded per stripe by [`RECORDED_CHANGE_COUNT_MAX`]: past it the stripe's record is emptied
//! and whole only from the batch that passed it.

use std::sync::Mutex;

use crate::storage::consistent::{PartitionVersions, STRIPE_COUNT};
use crate::storage::keys::{self, TableId};
use crate::storage::kv::{WriteBatch, WriteOp};

/// Changes recorded per stripe; past it the stripe's record is emptied. About 90 bytes each
/// (the values on the heap included), so at most some 23 MB over the 64 stripes; a batch
/// giving more partitions their first statistics than this leaves the next read to scan.
pub(crate) const RECORDED_CHANGE_COUNT_MAX: usize = 1 << 12;

/// One slot key a batch put or deleted.
struct SlotChange {
    version: u64,
    table: TableId,
    /// The slot key without its keyspace and table: the partition's values as components.
    values: Box<[u8]>,
    /// The slot put, or `None` for a delete.
    slot: Option<u32>,
}

/// One stripe's record, in the order batches were applied.
#[derive(Default)]
struct StripeChanges {
    /// Every slot key a batch changed after this version is recorded.
    whole_since: u64,
    changes: Vec<SlotChange>,
}

impl StripeChanges {
    /// Makes the record whole only from `version` on: a batch changed slots it does not hold.
    fn forget_before(&mut self, version: u64) {
        self.changes = Vec::new();
        self.whole_since = version;
    }
}

/// What one key of a batch is to the record.
enum SlotKeyOp<'a> {
    /// Not a slot key (the slot counter included: the index does not hold it).
    NotASlot,
    /// Partition `values` (as components) of a table, with the slot put (`None`: deleted).
    Slot(TableId, &'a [u8], Option<u32>),
    /// A slot key whose value is no slot: its stripe (if known) cannot say.
    Unknown(Option<TableId>),
}

fn slot_key_op<'a>(key: &'a [u8], value: Option<&[u8]>) -> SlotKeyOp<'a> {
    if key.first() != Some(&keys::KEYSPACE_STATS_SLOT) {
        return SlotKeyOp::NotASlot;
    }
    let Some(table) = keys::stats_slot_table_id(key).map(TableId) else {
        return SlotKeyOp::Unknown(None);
    };
    if key == keys::stats_slot_counter_key(table).as_slice() {
        return SlotKeyOp::NotASlot;
    }
    let prefix_len = keys::stats_table_prefix(keys::KEYSPACE_STATS_SLOT, table).len();
    let values = &key[prefix_len..];
    match value {
        None => SlotKeyOp::Slot(table, values, None),
        Some(value) => match <[u8; 4]>::try_from(value) {
            Ok(bytes) => SlotKeyOp::Slot(table, values, Some(u32::from_be_bytes(bytes))),
            Err(_) => SlotKeyOp::Unknown(Some(table)),
        },
    }
}

/// The record of every stripe, shared by the store's writers and readers.
pub(crate) struct SlotChanges {
    stripes: Mutex<Vec<StripeChanges>>,
}

impl Default for SlotChanges {
    fn default() -> Self {
        let stripes = (0..STRIPE_COUNT)
            .map(|_| StripeChanges::default())
            .collect();
        SlotChanges {
            stripes: Mutex::new(stripes),
        }
    }
}

impl SlotChanges {
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

    /// Records the slot keys `batch` puts or deletes, under the version each one's stripe of
    /// `versions` (the store's slot versions) will have once the batch is applied. Called
    /// under the writer lock, before the batch moves the stripes.
    pub(crate) fn record(&self, batch: &WriteBatch, versions: &PartitionVersions) {
        let mut found: Vec<(TableId, &[u8], Option<u32>)> = Vec::new();
        let mut unknown: Vec<usize> = Vec::new();
        for op in batch.ops() {
            let (key, value) = match op {
                WriteOp::Put { key, value } => (key, Some(value.as_slice())),
                WriteOp::Delete { key } => (key, None),
            };
            match slot_key_op(key, value) {
                SlotKeyOp::NotASlot => {}
                SlotKeyOp::Slot(table, values, slot) => found.push((table, values, slot)),
                SlotKeyOp::Unknown(Some(table)) => {
                    unknown.push(PartitionVersions::stripe_of(table))
                }
                // No table to tell the stripe by: every stripe forgets.
                SlotKeyOp::Unknown(None) => unknown.extend(0..STRIPE_COUNT),
            }
        }
        if found.is_empty() && unknown.is_empty() {
            return;
        }
        let Ok(mut stripes) = self.stripes.lock() else {
            return;
        };
        for (table, values, slot) in found {
            let index = PartitionVersions::stripe_of(table);
            let version = versions.version_after_batch(index);
            let stripe = &mut stripes[index];
            if stripe.whole_since >= version {
                continue; // this batch passed the bound: forgotten whole
            }
            if stripe.changes.len() >= RECORDED_CHANGE_COUNT_MAX {
                stripe.forget_before(version);
                continue;
            }
            stripe.changes.push(SlotChange {
                version,
                table,
                values: values.into(),
                slot,
            });
        }
        for stripe in unknown {
            stripes[stripe].forget_before(versions.version_after_batch(stripe));
        }
    }

    /// Calls `apply` with each slot key of `table` that a batch changed after version `since`
    /// up to `until`, in the order they were applied (the values as components, and the slot
    /// put or `None`); `false` without calling it when the record cannot tell, or when there
    /// are more than `count_max` of them.
    pub(crate) fn changes_between(
        &self,
        table: TableId,
        (since, until): (u64, u64),
        count_max: usize,
        mut apply: impl FnMut(&[u8], Option<u32>),
    ) -> bool {
        let Ok(stripes) = self.stripes.lock() else {
            return false;
        };
        let stripe = &stripes[PartitionVersions::stripe_of(table)];
        if stripe.whole_since > since {
            return false;
        }
        let first = stripe
            .changes
            .partition_point(|change| change.version <= since);
        let changes = stripe.changes[first..]
            .iter()
            .take_while(|change| change.version <= until)
            .filter(|change| change.table == table);
        if changes.clone().count() > count_max {
            return false;
        }
        for change in changes {
            apply(&change.values, change.slot);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(value: &str) -> Vec<u8> {
        let mut values = Vec::new();
        keys::push_component(&mut values, value.as_bytes());
        values
    }

    fn changes(
        record: &SlotChanges,
        table: TableId,
        range: (u64, u64),
    ) -> Option<Vec<(Vec<u8>, Option<u32>)>> {
        let mut found = Vec::new();
        let answered = record.changes_between(table, range, usize::MAX, |values, slot| {
            found.push((values.to_vec(), slot))
        });
        answered.then_some(found)
    }

    #[test]
    fn a_batch_records_its_slot_keys_in_order_from_its_version_on() {
        // Goal: puts and deletes of slot keys are recorded in batch order under the version
        // after the batch, the counter and other keys are not, and other tables stay apart.
        let table = TableId(5);
        let other = TableId(5 + STRIPE_COUNT as u64); // same stripe
        let versions = PartitionVersions::new();
        let record = SlotChanges::default();
        let mut batch = WriteBatch::new();
        batch.put(
            keys::stats_slot_key(table, &["a"]),
            7u32.to_be_bytes().to_vec(),
        );
        batch.put(
            keys::stats_slot_counter_key(table),
            8u32.to_be_bytes().to_vec(),
        );
        batch.delete(keys::stats_slot_key(table, &["b"]));
        batch.put(
            keys::stats_slot_key(other, &["c"]),
            1u32.to_be_bytes().to_vec(),
        );
        batch.put(keys::stats_chunk_key(table, "x", "hive", 0), vec![1]);
        record.record(&batch, &versions);
        let expected = vec![(values("a"), Some(7)), (values("b"), None)];
        assert_eq!(changes(&record, table, (0, 2)), Some(expected));
        assert_eq!(changes(&record, table, (0, 0)), Some(vec![]));
        assert_eq!(changes(&record, table, (2, 4)), Some(vec![]));
        assert_eq!(changes(&record, other, (0, 2)).unwrap().len(), 1);
        let mut none = true;
        assert!(!record.changes_between(table, (0, 2), 1, |_, _| none = false));
        assert!(
            none,
            "nothing applied when there are more changes than asked for"
        );
    }

    #[test]
    fn past_its_bound_a_stripe_answers_only_from_then_on() {
        // Goal: a batch that passes the bound empties the stripe's record, which then answers
        // nothing about versions before that batch and everything after it.
        let table = TableId(6);
        let versions = PartitionVersions::new();
        let record = SlotChanges::default();
        let mut first = WriteBatch::new();
        first.put(
            keys::stats_slot_key(table, &["a"]),
            0u32.to_be_bytes().to_vec(),
        );
        record.record(&first, &versions);
        versions.bump_stripe_twice_for_test(table);
        let mut many = WriteBatch::new();
        for slot in 0..RECORDED_CHANGE_COUNT_MAX as u32 {
            let key = keys::stats_slot_key(table, &[slot.to_string()]);
            many.put(key, slot.to_be_bytes().to_vec());
        }
        record.record(&many, &versions);
        versions.bump_stripe_twice_for_test(table);
        assert_eq!(changes(&record, table, (0, 4)), None);
        assert_eq!(changes(&record, table, (2, 4)), None);
        assert_eq!(changes(&record, table, (4, 4)), Some(vec![]));
        let mut next = WriteBatch::new();
        next.delete(keys::stats_slot_key(table, &["a"]));
        record.record(&next, &versions);
        assert_eq!(
            changes(&record, table, (4, 6)),
            Some(vec![(values("a"), None)])
        );
    }

    #[test]
    fn a_slot_value_that_does_not_decode_makes_its_stripe_forget() {
        // Goal: a slot key put with a value that is no slot leaves the stripe unable to answer
        // for versions before it, rather than answering wrongly.
        let table = TableId(7);
        let versions = PartitionVersions::new();
        let record = SlotChanges::default();
        let mut batch = WriteBatch::new();
        batch.put(keys::stats_slot_key(table, &["a"]), vec![1, 2]);
        record.record(&batch, &versions);
        assert_eq!(changes(&record, table, (0, 2)), None);
        assert_eq!(changes(&record, table, (2, 2)), Some(vec![]));
    }
}
