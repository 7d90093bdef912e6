//! The notification log's id counter, held by the store's writer under its lock: ids are
//! handed out in commit order, persisted in the batch that uses them (`0x19`), and given
//! back when that batch fails, so that they never repeat and leave no gap.

use crate::error::{Error, Result};
use crate::storage::keys::{self, FIRST_ID};
use crate::storage::kv::{KvBackend, WriteBatch};

/// The next event id.
pub(crate) struct EventCounter {
    next_event_id: u64,
    /// Whether events are written at all ([`crate::StoreOptions::log_events`]).
    logging: bool,
}

impl EventCounter {
    /// The counter as persisted.
    pub(crate) fn load(backend: &dyn KvBackend, logging: bool) -> Result<EventCounter> {
        let next_event_id = read_next_event_id(backend)?;
        Ok(EventCounter {
            next_event_id,
            logging,
        })
    }

    /// Whether changes write their events.
    pub(crate) fn is_logging(&self) -> bool {
        self.logging
    }

    /// Starts writing events from the next change on.
    pub(crate) fn start_logging(&mut self) {
        self.logging = true;
    }

    /// Moves the counter up so that the next id is at least `next_event_id`; it never goes
    /// down. Returns whether it moved.
    pub(crate) fn raise_to(&mut self, next_event_id: u64) -> bool {
        if next_event_id <= self.next_event_id {
            return false;
        }
        self.next_event_id = next_event_id;
        true
    }

    /// The id the next event gets.
    pub(crate) fn next_id(&self) -> u64 {
        self.next_event_id
    }

    /// Hands out [`EventCounter::next_id`].
    pub(crate) fn advance(&mut self) {
        self.next_event_id += 1;
    }

    /// Takes back the ids handed out since the counter stood at `before`: their write failed.
    pub(crate) fn give_back(&mut self, before: u64) {
        self.next_event_id = before;
    }

    /// Stages the counter in `batch` if ids were handed out since it stood at `before`.
    pub(crate) fn stage_if_moved(&self, before: u64, batch: &mut WriteBatch) {
        if self.next_event_id != before {
            assert!(self.next_event_id > before, "event ids must grow");
            batch.put(
                keys::event_counter_key(),
                self.next_event_id.to_be_bytes().to_vec(),
            );
        }
    }
}

/// The next event id, as persisted (the first id on a fresh store).
pub(crate) fn read_next_event_id(backend: &dyn KvBackend) -> Result<u64> {
    let key = keys::event_counter_key();
    match backend.get(&key)? {
        Some(stored) => {
            let next = keys::decode_id_value(&key, &stored)?;
            if next < FIRST_ID {
                return Err(Error::corruption(
                    &key,
                    format!("next event id {next} is below {FIRST_ID}"),
                ));
            }
            Ok(next)
        }
        None => Ok(FIRST_ID),
    }
}
