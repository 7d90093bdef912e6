//! Slots: a partition's place in its table's statistics arrays, handed out once by a
//! per-table counter and found through an index by partition values (keyspace 0x08).

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::storage::keys::{self, TableId};
use crate::storage::kv::KvBackend;
use crate::store::WriteTxn;

/// The length of a stored slot or counter: a u32, big-endian.
const SLOT_VALUE_LEN: usize = 4;

pub(crate) fn decode_slot(key: &[u8], value: &[u8]) -> Result<u32> {
    let bytes: [u8; SLOT_VALUE_LEN] = value.try_into().map_err(|_| {
        Error::corruption(
            key,
            format!(
                "a statistics slot of {} bytes, not {SLOT_VALUE_LEN}",
                value.len()
            ),
        )
    })?;
    Ok(u32::from_be_bytes(bytes))
}

/// The slot of partition `values` of `table`, if statistics were ever written for it.
pub(crate) fn find_slot(
    reader: &dyn KvBackend,
    table: TableId,
    values: &[String],
) -> Result<Option<u32>> {
    let key = keys::stats_slot_key(table, values);
    match reader.get(&key)? {
        Some(stored) => Ok(Some(decode_slot(&key, &stored)?)),
        None => Ok(None),
    }
}

/// How many slots `table` has handed out (dropped partitions' included).
pub(crate) fn slot_count(reader: &dyn KvBackend, table: TableId) -> Result<u32> {
    let key = keys::stats_slot_counter_key(table);
    match reader.get(&key)? {
        Some(stored) => decode_slot(&key, &stored),
        None => Ok(0),
    }
}

/// Hands out slots within one write: existing ones are found, new ones numbered from the
/// table's counter, which is staged once at the end ([`SlotAllocator::finish`]).
pub(crate) struct SlotAllocator {
    table: TableId,
    next: u32,
    first: u32,
    handed_out: HashMap<Vec<String>, u32>,
}

impl SlotAllocator {
    pub(crate) fn load(txn: &WriteTxn<'_>, table: TableId) -> Result<SlotAllocator> {
        let key = keys::stats_slot_counter_key(table);
        let next = match txn.get(&key)? {
            Some(stored) => decode_slot(&key, &stored)?,
            None => 0,
        };
        Ok(SlotAllocator {
            table,
            next,
            first: next,
            handed_out: HashMap::new(),
        })
    }

    /// The slot of partition `values`, allocated (and its index entry staged) if it has none.
    pub(crate) fn slot_for(&mut self, txn: &mut WriteTxn<'_>, values: &[String]) -> Result<u32> {
        if let Some(slot) = self.handed_out.get(values) {
            return Ok(*slot);
        }
        let slot = match find_slot(txn.reader(), self.table, values)? {
            Some(slot) => slot,
            None => {
                let slot = self.next;
                self.next = self.next.checked_add(1).ok_or_else(|| {
                    Error::InvalidOperation(format!(
                        "table id {} has used every statistics slot ({})",
                        self.table.0,
                        u32::MAX
                    ))
                })?;
                let key = keys::stats_slot_key(self.table, values);
                txn.put_raw(key, slot.to_be_bytes().to_vec());
                slot
            }
        };
        self.handed_out.insert(values.to_vec(), slot);
        Ok(slot)
    }

    /// Stages the counter if slots were handed out.
    pub(crate) fn finish(self, txn: &mut WriteTxn<'_>) {
        assert!(self.next >= self.first, "slots are never handed back");
        if self.next != self.first {
            let key = keys::stats_slot_counter_key(self.table);
            txn.put_raw(key, self.next.to_be_bytes().to_vec());
        }
    }
}
