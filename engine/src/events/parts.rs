//! Long events stored in parts.
//!
//! An event whose stored value is longer than [`PART_LEN_MAX`] (an `ADD_PARTITION` event of
//! a big batch: about 1 KB a partition) is kept as a short [`EventParts`] value at its key,
//! and its stored bytes cut in parts at `1B ID(event) u32 BE(index)`. Why: sled keeps a node
//! longer than a quarter of its 512 KiB segment in a file of its own, created, written and
//! later removed apart from its log. Alone, 200 batches of 1,000 keys of 290 bytes plus one
//! 1 MB value each went in at 63-68k keys a second; with the same megabyte in parts of 7,000
//! bytes, 126k. A leaf holds at most 17 entries, so parts of 6 KiB keep a leaf of parts within
//! a quarter segment.
//!
//! Readers go through [`whole`], which hands back every other value as it is.

use rkyv::{Archive, Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::storage::keys;
use crate::storage::kv::{KeyRange, KvBackend, KvBytes, WriteBatch};
use crate::storage::values::{self, stored_value, ValueKind, ValueView, VALUE_KIND_OFFSET};

/// The longest part; longer stored events are cut (see the module's note for the size).
pub(crate) const PART_LEN_MAX: usize = 6 * 1024;

/// Parts read per page when putting an event together.
const PART_PAGE_ENTRY_COUNT: usize = 256;

/// What an event stored in parts keeps at its own key.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub(crate) struct EventParts {
    /// The length of the event's stored value, all parts together.
    pub(crate) length: u64,
    /// How many parts hold it, at indexes `0..part_count`.
    pub(crate) part_count: u32,
}

stored_value!(EventParts, ValueKind::EventPieces);

/// Stages the stored event `stored` under `event_id`: whole when short, else in parts.
pub(crate) fn stage(batch: &mut WriteBatch, event_id: u64, stored: Vec<u8>) -> Result<()> {
    if stored.len() <= PART_LEN_MAX {
        batch.put(keys::event_key(event_id), stored);
        return Ok(());
    }
    let part_count = u32::try_from(stored.len().div_ceil(PART_LEN_MAX)).map_err(|_| {
        Error::Internal(format!(
            "an event of {} bytes has too many pieces",
            stored.len()
        ))
    })?;
    let parts = EventParts {
        length: stored.len() as u64,
        part_count,
    };
    batch.put(keys::event_key(event_id), values::encode(&parts)?);
    for (index, part) in (0..part_count).zip(stored.chunks(PART_LEN_MAX)) {
        batch.put(keys::event_part_key(event_id, index), part.to_vec());
    }
    Ok(())
}

/// The keys of the parts of the event `stored` at `event_id` (none for a whole event), for
/// a delete.
pub(crate) fn part_keys(key: &[u8], event_id: u64, stored: &KvBytes) -> Result<Vec<Vec<u8>>> {
    let Some(parts) = read_parts(key, stored)? else {
        return Ok(Vec::new());
    };
    Ok((0..parts.part_count)
        .map(|index| keys::event_part_key(event_id, index))
        .collect())
}

/// The whole stored value of the event read as `stored` at `key`: `stored` itself, or its
/// parts put together. `None` when the event was deleted (the retention cleaner) between
/// reading `stored` and reading its parts.
pub(crate) fn whole(
    reader: &dyn KvBackend,
    key: &[u8],
    event_id: u64,
    stored: KvBytes,
) -> Result<Option<KvBytes>> {
    let Some(parts) = read_parts(key, &stored)? else {
        return Ok(Some(stored));
    };
    // Checked before anything is allocated for it: a damaged value must not ask for memory.
    let most = u64::from(parts.part_count) * PART_LEN_MAX as u64;
    let length = match usize::try_from(parts.length) {
        Ok(length)
            if parts.length <= most && parts.length > most.saturating_sub(PART_LEN_MAX as u64) =>
        {
            length
        }
        _ => {
            return Err(Error::corruption(
                key,
                format!(
                    "an event of {} bytes in {} pieces",
                    parts.length, parts.part_count
                ),
            ))
        }
    };
    let mut joined = Vec::with_capacity(length);
    let mut found = 0u32;
    let range = KeyRange::prefix(&keys::event_part_prefix(event_id));
    for entry in crate::storage::kv::scan(reader, range, PART_PAGE_ENTRY_COUNT) {
        let (part_key, part) = entry?;
        if part_key.as_ref() != keys::event_part_key(event_id, found).as_slice() {
            return Err(Error::corruption(
                &part_key,
                format!("piece {found} of the event expected"),
            ));
        }
        if joined.len() + part.len() > length {
            return Err(Error::corruption(
                key,
                "the event's pieces are longer than it",
            ));
        }
        joined.extend_from_slice(&part);
        found += 1;
    }
    if found == 0 && reader.get(key)?.is_none() {
        // Deleted with its parts in one batch after `stored` was read.
        return Ok(None);
    }
    if found != parts.part_count || joined.len() != length {
        return Err(Error::corruption(
            key,
            format!(
                "{found} pieces of {} bytes where the event has {} of {length}",
                joined.len(),
                parts.part_count
            ),
        ));
    }
    Ok(Some(KvBytes::from_shared(joined.into())))
}

/// The [`EventParts`] that `stored` is, or `None` for any other value.
fn read_parts(key: &[u8], stored: &KvBytes) -> Result<Option<EventParts>> {
    if stored.get(VALUE_KIND_OFFSET) != Some(&(ValueKind::EventPieces as u8)) {
        return Ok(None);
    }
    let key = KvBytes::from_shared(key.into());
    let view = ValueView::<EventParts>::new(key, stored.clone())?;
    Ok(Some(view.to_owned()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::kv::MemoryBackend;

    fn stored_of(len: usize) -> Vec<u8> {
        (0..len).map(|at| (at * 7 % 251) as u8).collect()
    }

    fn staged(backend: &MemoryBackend, event_id: u64, stored: Vec<u8>) {
        let mut batch = WriteBatch::new();
        stage(&mut batch, event_id, stored).unwrap();
        backend.apply(batch).unwrap();
    }

    fn read_back(backend: &MemoryBackend, event_id: u64) -> Result<Option<KvBytes>> {
        let key = keys::event_key(event_id);
        let stored = backend.get(&key)?.unwrap();
        whole(backend, &key, event_id, stored)
    }

    #[test]
    fn long_events_are_cut_and_put_together_at_every_length() {
        // Goal: every length round-trips, at and around part boundaries; short ones stay whole.
        let backend = MemoryBackend::new();
        let lengths = [
            0,
            1,
            PART_LEN_MAX - 1,
            PART_LEN_MAX,
            PART_LEN_MAX + 1,
            3 * PART_LEN_MAX,
            100_003,
        ];
        for (event_id, length) in (1u64..).zip(lengths) {
            staged(&backend, event_id, stored_of(length));
            let back = read_back(&backend, event_id).unwrap().unwrap();
            assert_eq!(
                back.as_ref(),
                stored_of(length).as_slice(),
                "length {length}"
            );
            let parts = crate::storage::kv::scan(
                &backend,
                KeyRange::prefix(&keys::event_part_prefix(event_id)),
                16,
            )
            .count();
            let expected = if length <= PART_LEN_MAX {
                0
            } else {
                length.div_ceil(PART_LEN_MAX)
            };
            assert_eq!(parts, expected, "length {length}");
            let stored = backend.get(&keys::event_key(event_id)).unwrap().unwrap();
            let doomed = part_keys(&keys::event_key(event_id), event_id, &stored).unwrap();
            assert_eq!(doomed.len(), expected);
        }
    }

    #[test]
    fn an_event_deleted_meanwhile_reads_as_gone_and_a_missing_piece_as_corruption() {
        // Goal: a reader racing the retention cleaner skips the event; a lost part is reported.
        let backend = MemoryBackend::new();
        staged(&backend, 5, stored_of(4 * PART_LEN_MAX));
        let key = keys::event_key(5);
        let stored = backend.get(&key).unwrap().unwrap();

        let mut lose_one = WriteBatch::new();
        lose_one.delete(keys::event_part_key(5, 2));
        backend.apply(lose_one).unwrap();
        let error = whole(&backend, &key, 5, stored.clone()).unwrap_err();
        assert!(matches!(error, Error::Corruption { .. }), "{error:?}");
        let claims_too_much = EventParts {
            length: u64::MAX,
            part_count: 4,
        };
        let damaged = KvBytes::from_shared(values::encode(&claims_too_much).unwrap().into());
        let error = whole(&backend, &key, 5, damaged).unwrap_err();
        assert!(matches!(error, Error::Corruption { .. }), "{error:?}");

        let mut cleaner = WriteBatch::new();
        cleaner.delete(key.clone());
        for index in 0..4 {
            cleaner.delete(keys::event_part_key(5, index));
        }
        backend.apply(cleaner).unwrap();
        assert!(whole(&backend, &key, 5, stored).unwrap().is_none());
    }
}
