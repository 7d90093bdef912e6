//! Group commit: many concurrent writers, one fsync.
//!
//! A writer applies its atomic batch to the backend, then calls
//! [`CommitPipeline::wait_durable`]. That puts a ticket on a bounded channel
//! and blocks. One flusher thread takes the first ticket, drains every ticket
//! already queued behind it (up to [`GROUP_TICKET_COUNT_MAX`]), calls
//! [`KvBackend::flush`] once and answers them all. A flush makes durable every
//! batch applied before it started, so each writer's batch, applied before
//! its ticket was queued, is durable when its ticket is answered. While one
//! flush runs, the next group gathers: N concurrent writers cost about one
//! fsync, not N. Readers settling an answer (`visibility.rs`) queue tickets too.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, Receiver, Sender};

use crate::error::{Error, Result};
use crate::storage::kv::KvBackend;
use crate::storage::visibility::Visibility;

/// How many writers may wait for a flush at once; more block on the queue.
pub const COMMIT_QUEUE_CAPACITY: usize = 1024;

/// The most tickets one flush answers.
pub const GROUP_TICKET_COUNT_MAX: usize = COMMIT_QUEUE_CAPACITY;

/// How long a flush may be held back for writers that are applying their
/// batch right now and will queue a ticket in a moment.
pub const GATHER_WAIT_MAX: Duration = Duration::from_micros(200);

const _: () = assert!(GROUP_TICKET_COUNT_MAX >= 1);
const _: () = assert!(GROUP_TICKET_COUNT_MAX <= COMMIT_QUEUE_CAPACITY);

/// The answer to a ticket: `Ok` once durable, else the flush's error.
type Answer = std::result::Result<(), Error>;

/// A waiting writer: the channel its answer goes to.
type Ticket = Sender<Answer>;

/// Counters of the pipeline, for tests and benchmarks.
#[derive(Debug, Default)]
pub struct CommitCounters {
    flush_count: AtomicU64,
    ticket_count: AtomicU64,
}

impl CommitCounters {
    /// How many flushes (fsyncs) the pipeline has made.
    pub fn flush_count(&self) -> u64 {
        self.flush_count.load(Ordering::Relaxed)
    }

    /// How many writes have waited for durability.
    pub fn ticket_count(&self) -> u64 {
        self.ticket_count.load(Ordering::Relaxed)
    }
}

/// The flusher thread and the queue in front of it.
pub(crate) struct CommitPipeline {
    /// `None` once shut down.
    queue: Option<Sender<Ticket>>,
    flusher: Option<JoinHandle<()>>,
    counters: Arc<CommitCounters>,
    /// Writers between [`CommitPipeline::announce`] and queueing their ticket.
    in_flight: Arc<AtomicUsize>,
}

/// A writer on its way to [`CommitPipeline::wait_durable`]; the flusher
/// holds a flush back briefly while there are any.
pub(crate) struct Announcement<'a> {
    in_flight: &'a AtomicUsize,
}

impl Drop for Announcement<'_> {
    fn drop(&mut self) {
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

impl CommitPipeline {
    /// Starts the flusher thread over `backend`.
    pub(crate) fn start(backend: Arc<dyn KvBackend>, visibility: Arc<Visibility>) -> Result<Self> {
        let (queue, tickets) = bounded::<Ticket>(COMMIT_QUEUE_CAPACITY);
        let counters = Arc::new(CommitCounters::default());
        let thread_counters = counters.clone();
        let in_flight = Arc::new(AtomicUsize::new(0));
        let thread_in_flight = in_flight.clone();
        let flusher = std::thread::Builder::new()
            .name("hivestore-flusher".to_string())
            .spawn(move || {
                run_flusher(
                    backend.as_ref(),
                    &visibility,
                    &tickets,
                    &thread_counters,
                    &thread_in_flight,
                )
            })
            .map_err(|error| Error::Storage(format!("cannot start the flusher thread: {error}")))?;
        Ok(CommitPipeline {
            queue: Some(queue),
            flusher: Some(flusher),
            counters,
            in_flight,
        })
    }

    /// Announces a writer that will apply a batch and then wait; call before
    /// taking the writer lock.
    pub(crate) fn announce(&self) -> Announcement<'_> {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        Announcement {
            in_flight: &self.in_flight,
        }
    }

    /// Blocks until every batch this thread applied before the call is
    /// durable.
    pub(crate) fn wait_durable(&self, announcement: Announcement<'_>) -> Result<()> {
        let queue = self
            .queue
            .as_ref()
            .ok_or_else(|| Error::Unavailable("the commit pipeline is stopped".to_string()))?;
        let (answer_sender, answer_receiver) = bounded::<Answer>(1);
        self.counters.ticket_count.fetch_add(1, Ordering::Relaxed);
        let sent = queue.send(answer_sender);
        drop(announcement);
        sent.map_err(|_| Error::Unavailable("the flusher thread has stopped".to_string()))?;
        answer_receiver.recv().map_err(|_| {
            Error::Unavailable("the flusher thread stopped before answering".to_string())
        })?
    }

    pub(crate) fn counters(&self) -> &Arc<CommitCounters> {
        &self.counters
    }
}

impl Drop for CommitPipeline {
    fn drop(&mut self) {
        // Closing the queue ends the flusher's loop once it has answered
        // every ticket already queued.
        drop(self.queue.take());
        if let Some(flusher) = self.flusher.take() {
            if flusher.join().is_err() {
                tracing::error!("the flusher thread panicked");
            }
        }
    }
}

/// The flusher's loop: one flush per group of queued tickets.
fn run_flusher(
    backend: &dyn KvBackend,
    visibility: &Visibility,
    tickets: &Receiver<Ticket>,
    counters: &CommitCounters,
    in_flight: &AtomicUsize,
) {
    let mut group: Vec<Ticket> = Vec::with_capacity(GROUP_TICKET_COUNT_MAX);
    while let Ok(first) = tickets.recv() {
        group.push(first);
        gather(tickets, in_flight, &mut group);
        let applied = visibility.applied();
        let answer = backend.flush();
        counters.flush_count.fetch_add(1, Ordering::Relaxed);
        match &answer {
            Ok(()) => visibility.flushed(applied),
            Err(error) => {
                visibility.set_broken();
                tracing::error!(%error, waiting = group.len(), "flush failed");
            }
        }
        for ticket in group.drain(..) {
            // A writer that gave up waiting has dropped its receiver; nothing
            // to tell it.
            let _ = ticket.send(answer.clone());
        }
    }
}

/// Adds to `group` every ticket queued, then waits up to
/// [`GATHER_WAIT_MAX`] for writers still applying their batch.
fn gather(tickets: &Receiver<Ticket>, in_flight: &AtomicUsize, group: &mut Vec<Ticket>) {
    let deadline = Instant::now() + GATHER_WAIT_MAX;
    while group.len() < GROUP_TICKET_COUNT_MAX {
        match tickets.try_recv() {
            Ok(ticket) => group.push(ticket),
            Err(_) if in_flight.load(Ordering::Acquire) > 0 && Instant::now() < deadline => {
                std::thread::yield_now();
            }
            Err(_) => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::kv::MemoryBackend;

    #[test]
    fn concurrent_writers_share_flushes() {
        let backend: Arc<dyn KvBackend> = Arc::new(SlowFlush(MemoryBackend::new()));
        let pipeline =
            Arc::new(CommitPipeline::start(backend, Arc::new(Visibility::default())).unwrap());
        let writer_count = 16;
        let rounds = 8;
        std::thread::scope(|scope| {
            for _ in 0..writer_count {
                let pipeline = pipeline.clone();
                scope.spawn(move || {
                    for _ in 0..rounds {
                        pipeline.wait_durable(pipeline.announce()).unwrap();
                    }
                });
            }
        });
        let counters = pipeline.counters();
        assert_eq!(counters.ticket_count(), writer_count * rounds);
        assert!(
            counters.flush_count() < counters.ticket_count() / 2,
            "{} flushes for {} tickets",
            counters.flush_count(),
            counters.ticket_count()
        );
    }

    /// A backend whose flush takes a while, like an fsync.
    struct SlowFlush(MemoryBackend);

    impl KvBackend for SlowFlush {
        fn get(&self, key: &[u8]) -> Result<Option<crate::storage::kv::KvBytes>> {
            self.0.get(key)
        }
        fn scan(
            &self,
            range: &crate::storage::kv::KeyRange,
            entry_count_max: usize,
        ) -> Result<Vec<(crate::storage::kv::KvBytes, crate::storage::kv::KvBytes)>> {
            self.0.scan(range, entry_count_max)
        }
        fn apply(&self, batch: crate::storage::kv::WriteBatch) -> Result<()> {
            self.0.apply(batch)
        }
        fn flush(&self) -> Result<()> {
            std::thread::sleep(std::time::Duration::from_millis(2));
            Ok(())
        }
    }
}
