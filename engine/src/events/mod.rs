//! The notification log: every change the metastore makes, as Hive's `DbNotificationListener`
//! records it in `NOTIFICATION_LOG`.
//!
//! A change appends its events through `WriteTxn::emit` (`store.rs`) in the very batch that
//! makes the change, so a change and its events are both there or neither is. Event ids come
//! from a counter under the writer lock, persisted in the same batch (`0x19`): they grow in
//! commit order, never repeat (also across a crash), and leave no gap, since a write that fails
//! gives its ids back. An event holds the objects as they were in that batch
//! ([`EventBody`]), so what a consumer reads does not depend on later changes; the frontend
//! renders Hive's JSON messages from them.
//!
//! Old events are deleted by [`Store::delete_events_before`], which a background cleaner calls
//! with Hive's time-to-live (`hive.metastore.event.db.listener.timetolive`).

pub(crate) mod counter;
pub(crate) mod model;
pub(crate) mod parts;
mod writes;

use counter::read_next_event_id;

use crate::error::Result;
use crate::storage::keys;
use crate::storage::kv::{KeyRange, WriteBatch};
use crate::storage::values::{self, ValueView};
use crate::store::{Store, WriteTxn};

pub use model::{
    ArchivedEventRecord, EventBody, EventKind, EventRecord, InsertData, NotificationEvent,
    PartitionImage, PartitionImages, StoredPartitionImage, StoredPartitions, StoredStatistics,
    TableImage, WriteEvent,
};
pub(crate) use writes::{
    build_write_event, read_write_events, relocate_replayed_write, write_event_record,
};
pub use writes::{
    InsertEvent, WriteNotification, INSERT_EVENT_COUNT_MAX, WRITE_NOTIFICATION_COUNT_MAX,
};

/// At most this many events are answered by one read.
pub const EVENT_READ_COUNT_MAX: usize = 100_000;
/// At most this many events are looked at by one read or count (filters may skip most).
pub const EVENT_SCAN_COUNT_MAX: usize = 10_000_000;
/// Hive's `hive.metastore.event.db.listener.timetolive` default: a day.
pub const EVENT_TIME_TO_LIVE_DEFAULT: std::time::Duration = std::time::Duration::from_secs(86_400);
/// How many old events one cleaner batch deletes.
pub const EVENT_CLEAN_BATCH_COUNT: usize = 10_000;

/// Which events a read or count wants (Hive's `NotificationEventRequest` filters).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventFilter {
    /// Event types to leave out (Hive's names, any case).
    pub skip_types: Vec<String>,
    /// Only events of this catalog, if set (normalised here).
    pub catalog: Option<String>,
    /// Only events of this database, if set.
    pub database: Option<String>,
    /// Only events of these tables, if not empty (database-level events still pass, as in
    /// Hive 4, which filters on `TBL_NAME IS NULL OR TBL_NAME IN (...)`).
    pub tables: Vec<String>,
    /// Only events up to this id, if set.
    pub to_event_id: Option<u64>,
}

impl EventFilter {
    fn normalised(&self) -> EventFilter {
        let normalise = |name: &String| crate::model::names::normalize(name);
        EventFilter {
            skip_types: self
                .skip_types
                .iter()
                .map(|t| t.trim().to_uppercase())
                .collect(),
            catalog: self
                .catalog
                .as_ref()
                .map(normalise)
                .filter(|c| !c.is_empty()),
            database: self
                .database
                .as_ref()
                .map(normalise)
                .filter(|d| !d.is_empty()),
            tables: self.tables.iter().map(normalise).collect(),
            to_event_id: self.to_event_id,
        }
    }

    fn accepts(&self, event: &ArchivedEventRecord) -> bool {
        let kind = event.event_kind().hive_name();
        if self.skip_types.iter().any(|skipped| skipped == kind) {
            return false;
        }
        if let Some(catalog) = &self.catalog {
            if !event.catalog_name.is_empty() && event.catalog_name.as_str() != catalog {
                return false;
            }
        }
        if let Some(database) = &self.database {
            if event.db_name.as_str() != database {
                return false;
            }
        }
        let table = event.table_name.as_str();
        self.tables.is_empty() || table.is_empty() || self.tables.iter().any(|t| t == table)
    }
}

impl WriteTxn<'_> {
    /// Appends `event` to the notification log in this write, with the next event id;
    /// returns the id.
    pub(crate) fn emit(&mut self, mut event: EventRecord) -> Result<u64> {
        self.emit_reused(&mut event)
    }

    /// [`WriteTxn::emit`], leaving `event` with the caller: a write logging one event per
    /// partition refills a few fields of one record instead of cloning its table each time.
    /// Under [`crate::StoreOptions::log_events`] off nothing is written and the id the event
    /// would have had is returned, not handed out.
    pub(crate) fn emit_reused(&mut self, event: &mut EventRecord) -> Result<u64> {
        let (counter, _) = self.event_log();
        if !counter.is_logging() {
            return Ok(counter.next_id());
        }
        event.event_time = self.event_time();
        let stored = values::encode(&*event)?;
        let (counter, batch) = self.event_log();
        let event_id = counter.next_id();
        parts::stage(batch, event_id, stored)?;
        counter.advance();
        Ok(event_id)
    }
}

impl Store {
    /// Hive's `get_next_notification`: the events after `last_event_id` that `filter`
    /// accepts, in id order, at most `max_count` (and [`EVENT_READ_COUNT_MAX`]).
    pub fn next_events(
        &self,
        last_event_id: u64,
        max_count: usize,
        filter: &EventFilter,
    ) -> Result<Vec<NotificationEvent>> {
        let filter = filter.normalised();
        let max_count = max_count.min(EVENT_READ_COUNT_MAX);
        let mut events = Vec::new();
        self.scan_events(last_event_id, &filter, |event_id, view| {
            if events.len() >= max_count {
                return Ok(false);
            }
            let record = view.to_owned()?.readable()?;
            events.push(NotificationEvent { event_id, record });
            Ok(events.len() < max_count)
        })?;
        Ok(events)
    }

    /// Hive's `get_notification_events_count`: how many events after `from_event_id`
    /// `filter` accepts, at most `limit` when given.
    pub fn count_events(
        &self,
        from_event_id: u64,
        filter: &EventFilter,
        limit: Option<u64>,
    ) -> Result<u64> {
        let filter = filter.normalised();
        let limit = limit.unwrap_or(u64::MAX);
        let mut count = 0u64;
        if limit == 0 {
            return Ok(0);
        }
        self.scan_events(from_event_id, &filter, |_, _| {
            count += 1;
            Ok(count < limit)
        })?;
        Ok(count)
    }

    /// Hive's `get_current_notificationEventId`: the id of the last event written, 0 when
    /// there is none yet.
    pub fn current_event_id(&self) -> Result<u64> {
        Ok(read_next_event_id(self.reader())?.saturating_sub(1))
    }

    /// Moves the notification log's counter up so that [`Store::current_event_id`] is at least
    /// `event_id`, durably; it never goes down (ids must not repeat). An import ends its copy
    /// at its source's id this way, so that consumers of the log continue where they were.
    /// Returns the current id after the call.
    pub fn raise_event_id(&self, event_id: u64) -> Result<u64> {
        let next_event_id = event_id.checked_add(1).ok_or_else(|| {
            crate::error::Error::InvalidInput(format!("event id {event_id} is too large"))
        })?;
        self.write(|txn| {
            let (counter, _) = txn.event_log();
            counter.raise_to(next_event_id);
            Ok(counter.next_id() - 1)
        })
    }

    /// Starts logging events on a store opened with [`crate::StoreOptions::log_events`] off:
    /// a copy that followed another metastore's log (its id raised to each event applied)
    /// serves writes of its own from now on, their ids going on from that id. Until the
    /// store is opened again; a reopen after a failed write keeps it.
    pub fn start_logging_events(&self) -> Result<u64> {
        self.write(|txn| {
            let (counter, _) = txn.event_log();
            counter.start_logging();
            Ok(counter.next_id() - 1)
        })
    }

    /// Deletes events written before `cutoff` (seconds since the epoch), oldest first, at
    /// most `max_count`; returns how many went. The write recorded with an expiring
    /// `ACID_WRITE` event goes with it (Hive's cleaner deletes `TXN_WRITE_NOTIFICATION_LOG`
    /// rows by the same time-to-live), unless a later write replaced it. The retention
    /// cleaner calls it until it deletes fewer than it asked for.
    pub fn delete_events_before(&self, cutoff: i32, max_count: usize) -> Result<usize> {
        let mut doomed = Vec::new();
        let mut doomed_writes = Vec::new();
        let mut doomed_parts = Vec::new();
        let range = KeyRange::prefix(&keys::event_prefix());
        for entry in self.scan(range) {
            let (key, stored) = entry?;
            if doomed.len() >= max_count {
                break;
            }
            let event_id = keys::decode_event_key(&key)?;
            let part_keys = parts::part_keys(&key, event_id, &stored)?;
            // Only this cleaner deletes events: `None` would be another call having done so.
            let Some(stored) = parts::whole(self.reader(), &key, event_id, stored)? else {
                continue;
            };
            let view = ValueView::<EventRecord>::new(key.clone(), stored)?;
            let archived = view.archived()?;
            if archived.event_time.to_native() >= cutoff {
                break;
            }
            if archived.event_kind() == EventKind::AcidWrite {
                if let EventBody::AcidWrite(write) = view.to_owned()?.body {
                    doomed_writes.extend(self.unreplaced_write_key(&write)?);
                }
            }
            doomed.push(key.to_vec());
            doomed_parts.extend(part_keys);
        }
        if doomed.is_empty() {
            return Ok(0);
        }
        // Deleting old events is no change to log, and needs no fsync of its own (a crash may
        // bring some back, to be deleted again); answers that saw them gone settle as usual.
        let mut batch = WriteBatch::new();
        let count = doomed.len();
        for key in doomed.into_iter().chain(doomed_writes).chain(doomed_parts) {
            batch.delete(key);
        }
        self.apply_without_waiting(batch)?;
        Ok(count)
    }

    /// The key of the stored write `write`, if it is still the one stored there.
    fn unreplaced_write_key(&self, write: &WriteEvent) -> Result<Option<Vec<u8>>> {
        let partition = write.partition.as_deref().unwrap_or("");
        let key = keys::write_event_key(write.txn_id, &write.database, &write.table, partition);
        let Some(stored) = self.reader().get(&key)? else {
            return Ok(None);
        };
        let shared = crate::storage::kv::KvBytes::from_shared(std::sync::Arc::from(key.as_slice()));
        let current = ValueView::<WriteEvent>::new(shared, stored)?.to_owned()?;
        Ok((current == *write).then_some(key))
    }

    /// Calls `visit` with each event after `after_event_id` that `filter` accepts, in id
    /// order, until it answers false or [`EVENT_SCAN_COUNT_MAX`] events were looked at.
    fn scan_events(
        &self,
        after_event_id: u64,
        filter: &EventFilter,
        mut visit: impl FnMut(u64, &ValueView<EventRecord>) -> Result<bool>,
    ) -> Result<()> {
        let mut range = KeyRange::prefix(&keys::event_prefix());
        let start = keys::event_key(after_event_id.saturating_add(1));
        range.start = std::ops::Bound::Included(start);
        for (looked_at, entry) in self.scan(range).enumerate() {
            if looked_at >= EVENT_SCAN_COUNT_MAX {
                break;
            }
            let (key, stored) = entry?;
            let event_id = keys::decode_event_key(&key)?;
            if filter.to_event_id.is_some_and(|to| event_id > to) {
                break;
            }
            let Some(stored) = parts::whole(self.reader(), &key, event_id, stored)? else {
                continue;
            };
            let view = ValueView::<EventRecord>::new(key, stored)?;
            if filter.accepts(view.archived()?) && !visit(event_id, &view)? {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
