//! What one connection is doing, as its read deadlines and the listener's choice of whom to
//! close at the connection cap see it.
//!
//! A connection is either waiting for a message (silent since `waiting_since`, or receiving
//! one since `message_since`) or in a call. Reads time out at the idle deadline while nothing
//! of the next message arrived, and at the message deadline once its first byte did.

use std::io::{self, Read};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::counters::Counters;
use crate::limits::Limits;
use crate::socket::CountedSocket;

/// No message is arriving.
const NONE: u64 = u64::MAX;

/// The clock connections are compared on: milliseconds since the first use.
fn now_ms() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    u64::try_from(epoch.elapsed().as_millis()).unwrap_or(NONE - 1)
}

/// The state of one connection, shared by its thread and the listener.
#[derive(Debug)]
pub struct Activity {
    in_call: AtomicBool,
    /// Closed by the listener to make room; not to be chosen twice.
    evicted: AtomicBool,
    /// When the connection last started waiting for a message.
    waiting_since: AtomicU64,
    /// When the first byte of the message being received arrived (`NONE`: none yet).
    message_since: AtomicU64,
    /// When the opening handshake under way must be over (`NONE`: no handshake).
    handshake_until: AtomicU64,
}

impl Default for Activity {
    fn default() -> Self {
        Activity {
            in_call: AtomicBool::new(false),
            evicted: AtomicBool::new(false),
            waiting_since: AtomicU64::new(now_ms()),
            message_since: AtomicU64::new(NONE),
            handshake_until: AtomicU64::new(NONE),
        }
    }
}

impl Activity {
    /// The connection waits for its next message; `started`: some of it is buffered already.
    pub fn wait_for_message(&self, started: bool) {
        let now = now_ms();
        self.waiting_since.store(now, Ordering::Release);
        self.message_since
            .store(if started { now } else { NONE }, Ordering::Release);
        self.in_call.store(false, Ordering::Release);
    }

    /// A whole message arrived and is being answered.
    pub fn begin_call(&self) {
        self.in_call.store(true, Ordering::Release);
    }

    /// Bytes arrived: the first of a message starts its deadline.
    pub fn bytes_arrived(&self) {
        let _ = self.message_since.compare_exchange(
            NONE,
            now_ms(),
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }

    /// An opening handshake (SASL) begins: reads give up `limits.handshake_timeout` from now
    /// until [`Activity::end_handshake`], whatever the other deadlines.
    pub fn begin_handshake(&self, limits: &Limits) {
        let until = now_ms().saturating_add(millis(limits.handshake_timeout));
        self.handshake_until.store(until, Ordering::Release);
    }

    /// The opening handshake is over.
    pub fn end_handshake(&self) {
        self.handshake_until.store(NONE, Ordering::Release);
    }

    /// When reads give up, and why.
    fn deadline(&self, limits: &Limits) -> (u64, DeadlinePassed) {
        let handshake_until = self.handshake_until.load(Ordering::Acquire);
        if handshake_until != NONE {
            return (handshake_until, DeadlinePassed::Handshake);
        }
        let message_since = self.message_since.load(Ordering::Acquire);
        if message_since == NONE {
            let since = self.waiting_since.load(Ordering::Acquire);
            (
                since.saturating_add(millis(limits.idle_timeout)),
                DeadlinePassed::Idle,
            )
        } else {
            let until = message_since.saturating_add(millis(limits.message_timeout));
            (until, DeadlinePassed::Message)
        }
    }

    /// Why the connection must close now, if a deadline passed.
    pub fn deadline_passed(&self, limits: &Limits) -> Option<String> {
        let (deadline, passed) = self.deadline(limits);
        (now_ms() >= deadline).then(|| passed.reason(limits))
    }

    /// Marks the connection closed by the listener.
    pub fn evict(&self) {
        self.evicted.store(true, Ordering::Release);
    }

    /// Whether the listener closed the connection to make room.
    pub fn evicted(&self) -> bool {
        self.evicted.load(Ordering::Acquire)
    }

    /// How long the connection has waited, for the listener's choice at the cap: `None` when
    /// it is in a call or already evicted.
    pub fn waiting_since(&self) -> Option<u64> {
        if self.in_call.load(Ordering::Acquire) || self.evicted() {
            return None;
        }
        Some(self.waiting_since.load(Ordering::Acquire))
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(NONE - 1)
}

/// Which deadline a read passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DeadlinePassed {
    Idle,
    Message,
    Handshake,
}

impl DeadlinePassed {
    fn reason(self, limits: &Limits) -> String {
        match self {
            DeadlinePassed::Idle => format!(
                "no request for {} s (idle_timeout_secs)",
                limits.idle_timeout.as_secs_f64()
            ),
            DeadlinePassed::Message => format!(
                "a request took over {} s to arrive (message_timeout_secs)",
                limits.message_timeout.as_secs_f64()
            ),
            DeadlinePassed::Handshake => format!(
                "the opening handshake took over {} s (handshake_timeout_secs)",
                limits.handshake_timeout.as_secs_f64()
            ),
        }
    }
}

/// Longest a read blocks before it looks at the deadlines and the stop flag again.
const READ_WAIT_MAX: Duration = Duration::from_millis(250);

/// Of the connections given (id, activity), the one to close to make room for a newcomer:
/// the one waiting longest, whether silent or sending slowly; none when all are in calls.
pub fn eviction_choice<'a, I>(connections: I) -> Option<u64>
where
    I: IntoIterator<Item = (u64, &'a Activity)>,
{
    connections
        .into_iter()
        .filter_map(|(id, activity)| Some((activity.waiting_since()?, id)))
        .min()
        .map(|(_, id)| id)
}

/// A connection's socket, read (blocking) within its deadlines, and given up when the server
/// stops.
pub struct TimedStream {
    stream: Arc<TcpStream>,
    activity: Arc<Activity>,
    limits: Limits,
    state: Arc<crate::service::ServerState>,
    stopping: Arc<AtomicBool>,
}

impl TimedStream {
    /// Reads of `stream` give up at `activity`'s deadlines under `limits`, or once `stopping`.
    pub fn new(
        stream: Arc<TcpStream>,
        activity: Arc<Activity>,
        limits: Limits,
        state: Arc<crate::service::ServerState>,
        stopping: Arc<AtomicBool>,
    ) -> Self {
        TimedStream {
            stream,
            activity,
            limits,
            state,
            stopping,
        }
    }

    /// The server's counters.
    pub(crate) fn counters(&self) -> &Counters {
        &self.state.counters
    }
}

impl Read for TimedStream {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        loop {
            let (deadline, passed) = self.activity.deadline(&self.limits);
            let now = now_ms();
            if now >= deadline {
                self.counters().record_connection_timed_out();
                let reason = passed.reason(&self.limits);
                return Err(io::Error::new(io::ErrorKind::TimedOut, reason));
            }
            if self.stopping.load(Ordering::Acquire) {
                return Err(io::Error::new(
                    io::ErrorKind::ConnectionAborted,
                    "the server is stopping",
                ));
            }
            let wait = Duration::from_millis(deadline - now).min(READ_WAIT_MAX);
            self.stream.set_read_timeout(Some(wait))?;
            match CountedSocket::new(&self.stream, self.counters()).read(buffer) {
                Ok(count) => {
                    if count > 0 {
                        self.activity.bytes_arrived();
                    }
                    return Ok(count);
                }
                Err(error)
                    if matches!(
                        error.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) => {}
                Err(error) => return Err(error),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connection_waiting_longest_is_chosen_and_never_one_in_a_call() {
        let oldest_in_call = Activity::default();
        oldest_in_call.begin_call();
        std::thread::sleep(Duration::from_millis(3));
        let slow_sender = Activity::default();
        slow_sender.wait_for_message(true);
        std::thread::sleep(Duration::from_millis(3));
        let silent = Activity::default();
        let all = [(1, &oldest_in_call), (2, &slow_sender), (3, &silent)];
        assert_eq!(eviction_choice(all), Some(2));
        slow_sender.evict();
        assert_eq!(eviction_choice(all), Some(3));
        silent.begin_call();
        assert_eq!(eviction_choice(all), None);
    }

    #[test]
    fn the_idle_deadline_holds_until_a_byte_arrives_then_the_message_deadline() {
        let limits = Limits {
            idle_timeout: Duration::from_secs(600),
            message_timeout: Duration::from_secs(5),
            ..Limits::default()
        };
        let activity = Activity::default();
        let (idle_until, passed) = activity.deadline(&limits);
        assert_eq!(passed, DeadlinePassed::Idle);
        activity.bytes_arrived();
        let (message_until, passed) = activity.deadline(&limits);
        assert_eq!(passed, DeadlinePassed::Message);
        assert!(message_until < idle_until);
        activity.wait_for_message(false);
        assert_eq!(activity.deadline(&limits).1, DeadlinePassed::Idle);
    }
}
