//! The notification log: its events, and an iterator that waits for new events: what Impala's catalog
//! and Hive's replication read from `get_next_notification`, in-process.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use hivestore_engine::Result;

pub use hivestore_engine::events::{
    EventBody, EventFilter, EventKind, EventRecord, NotificationEvent,
};

use crate::Metastore;

/// How many events one read of the log fetches.
pub const EVENT_PAGE_COUNT: usize = 1_000;
/// How long [`Events`] sleeps between looks at the log while it waits for an event, unless
/// [`Events::poll_interval`] says otherwise. A look is one read of the event counter.
pub const EVENT_POLL_INTERVAL_DEFAULT: Duration = Duration::from_millis(20);

impl Metastore {
    /// The id of the newest event, 0 before the first. Ids grow in commit order without
    /// gaps and never change meaning.
    pub fn current_event_id(&self) -> Result<u64> {
        self.settled(|store| store.current_event_id())
    }

    /// Up to `max_count` events after `last_event_id` that `filter` accepts, in id order
    /// (Hive's `get_next_notification`); fewer, or none, when the log holds no more yet.
    pub fn next_events(
        &self,
        last_event_id: u64,
        max_count: usize,
        filter: &EventFilter,
    ) -> Result<Vec<NotificationEvent>> {
        self.settled(|store| store.next_events(last_event_id, max_count, filter))
    }

    /// The events after `last_event_id` that `filter` accepts, as an iterator that waits for
    /// new ones when it has given every event written so far: `next()` returns when the next
    /// event is written (an error ends nothing: the next call tries again). Only events a
    /// crash cannot take back are given.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// use hivestore::events::{EventFilter, EventKind};
    /// use hivestore::{Database, Metastore, StoreOptions};
    ///
    /// let metastore = Metastore::in_memory(StoreOptions::new("s3a://bucket/warehouse"))?;
    /// let start = metastore.current_event_id()?;
    /// let mut events = metastore.events(start, EventFilter::default());
    /// metastore.create_database(Database { name: "sales".into(), ..Database::default() })?;
    ///
    /// let event = events.next_within(Duration::from_secs(5))?.expect("an event");
    /// assert_eq!(event.event_id, start + 1);
    /// assert_eq!(event.record.kind, EventKind::CreateDatabase);
    /// assert_eq!(event.record.db_name, "sales");
    /// assert!(events.next_within(Duration::from_millis(50))?.is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn events(&self, last_event_id: u64, filter: EventFilter) -> Events<'_> {
        Events {
            metastore: self,
            last_event_id,
            scanned_to: last_event_id,
            filter,
            fetched: VecDeque::new(),
            poll_interval: EVENT_POLL_INTERVAL_DEFAULT,
        }
    }
}

/// The notification log from an event id on; see [`Metastore::events`].
#[derive(Debug)]
pub struct Events<'m> {
    metastore: &'m Metastore,
    /// The id of the last event given.
    last_event_id: u64,
    /// The id up to which the log was read: events fetched and not given yet, or left out
    /// by the filter, lie between the two.
    scanned_to: u64,
    filter: EventFilter,
    fetched: VecDeque<NotificationEvent>,
    poll_interval: Duration,
}

impl Events<'_> {
    /// Looks at the log every `interval` while waiting (at least a millisecond);
    /// [`EVENT_POLL_INTERVAL_DEFAULT`] unless set.
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// The id of the last event given: where a reader that stops now resumes
    /// ([`Metastore::events`] from it).
    pub fn last_event_id(&self) -> u64 {
        self.last_event_id
    }

    /// The next event, waiting at most `timeout` for it to be written; `None` when none came.
    pub fn next_within(&mut self, timeout: Duration) -> Result<Option<NotificationEvent>> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(event) = self.next_fetched()? {
                return Ok(Some(event));
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            std::thread::sleep(self.poll_interval.min(deadline - now));
        }
    }

    /// The next event written so far, without waiting.
    pub fn try_next(&mut self) -> Result<Option<NotificationEvent>> {
        self.next_fetched()
    }

    fn next_fetched(&mut self) -> Result<Option<NotificationEvent>> {
        if self.fetched.is_empty() {
            let current = self.metastore.current_event_id()?;
            if current <= self.scanned_to {
                return Ok(None);
            }
            let page =
                self.metastore
                    .next_events(self.scanned_to, EVENT_PAGE_COUNT, &self.filter)?;
            // An empty page: the filter left out every event up to `current`.
            self.scanned_to = page.last().map_or(current, |last| last.event_id);
            self.fetched.extend(page);
        }
        let event = self.fetched.pop_front();
        if let Some(event) = &event {
            self.last_event_id = event.event_id;
        }
        Ok(event)
    }
}

impl Iterator for Events<'_> {
    type Item = Result<NotificationEvent>;

    /// The next event, waiting for it as long as it takes.
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.next_within(Duration::from_secs(3600)) {
                Ok(Some(event)) => return Some(Ok(event)),
                Ok(None) => continue,
                Err(error) => return Some(Err(error)),
            }
        }
    }
}
