//! The listener: one thread per connection (metastore clients hold connections open for hours),
//! a cap on how many, and a graceful stop.
//!
//! Reads give up at a connection's idle and message deadlines ([`crate::activity`]). At the
//! cap, the connection that has waited longest for its next message (silent, or sending it
//! slowly) is closed to make room for the newcomer, so that idle or slow sockets cannot keep
//! clients out; only when every connection is in a call is the newcomer refused.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::activity::{eviction_choice, Activity, TimedStream};
use crate::detect::{detect, Detection, Protocol, Transport, WireFormat, DETECT_BYTES};
use crate::dispatch::Arrived;
use crate::dispatch::{Dispatcher, Outcome};
use crate::limits::Limits;
use crate::message::{MessageReader, ReadError, IDLE_BUFFER_BYTES_MAX};
use crate::service::{ServerState, Session};

/// Stack of a connection thread; decoding is bounded in depth, so this is ample.
const CONNECTION_STACK_BYTES: usize = 2 * 1024 * 1024;
/// How long a stop waits for calls in flight before it gives up on them.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// A bound, not yet serving, metastore server.
pub struct Server {
    listener: TcpListener,
    local_addr: SocketAddr,
    limits: Limits,
    state: Arc<ServerState>,
    shared: Arc<Shared>,
}

/// What the listener and the stop handle share.
struct Shared {
    /// Set once a stop was asked for; no connection is accepted after it.
    stopping: AtomicBool,
    /// Open connections by id, so that a stop can end their reads and the cap can make room.
    connections: Mutex<HashMap<u64, Registered>>,
}

/// An open connection as the listener sees it.
struct Registered {
    stream: TcpStream,
    activity: Arc<Activity>,
}

/// Stops a running server from another thread (a signal handler's thread, a test).
#[derive(Clone)]
pub struct StopHandle {
    shared: Arc<Shared>,
    local_addr: SocketAddr,
}

impl StopHandle {
    /// Stops accepting, ends every connection's wait for its next call, and lets calls in
    /// flight finish. [`Server::run`] returns once they have.
    pub fn stop(&self) {
        if self.shared.stopping.swap(true, Ordering::SeqCst) {
            return;
        }
        // Wake the blocking accept; the connection itself is dropped at once.
        let _ = TcpStream::connect_timeout(&self.local_addr, Duration::from_secs(1));
        for connection in lock(&self.shared.connections).values() {
            let _ = connection.stream.shutdown(Shutdown::Read);
        }
    }
}

impl Server {
    /// Binds `listen` (port 0 picks a free port).
    pub fn bind(listen: &str, limits: Limits, state: Arc<ServerState>) -> io::Result<Server> {
        limits
            .validate()
            .map_err(|reason| io::Error::new(io::ErrorKind::InvalidInput, reason))?;
        let listener = TcpListener::bind(listen)?;
        let local_addr = listener.local_addr()?;
        Ok(Server {
            listener,
            local_addr,
            limits,
            state,
            shared: Arc::new(Shared {
                stopping: AtomicBool::new(false),
                connections: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// A handle that stops this server.
    pub fn stop_handle(&self) -> StopHandle {
        StopHandle {
            shared: Arc::clone(&self.shared),
            local_addr: self.local_addr,
        }
    }

    /// Serves until stopped, then waits (boundedly) for open calls to finish.
    pub fn run(self) -> io::Result<()> {
        tracing::info!(listen = %self.local_addr, "hivestore is serving");
        let next_id = AtomicU64::new(0);
        let mut workers: Vec<(u64, JoinHandle<()>)> = Vec::new();
        for incoming in self.listener.incoming() {
            if self.shared.stopping.load(Ordering::SeqCst) {
                break;
            }
            let stream = match incoming {
                Ok(stream) => stream,
                Err(error) => {
                    // Out of descriptors and the like: back off instead of spinning.
                    tracing::warn!(%error, "accept failed");
                    thread::sleep(Duration::from_millis(50));
                    continue;
                }
            };
            workers.retain(|(_, worker)| !worker.is_finished());
            if !self.make_room() {
                self.state.counters.record_connection_refused();
                tracing::warn!(
                    peer = ?stream.peer_addr().ok(),
                    cap = self.limits.connections_max,
                    "connection refused: the server is at its connection cap, every connection in a call"
                );
                continue;
            }
            let id = next_id.fetch_add(1, Ordering::Relaxed);
            match self.spawn_connection(id, stream) {
                Ok(worker) => workers.push((id, worker)),
                Err(error) => tracing::error!(%error, "could not start a connection thread"),
            }
        }
        self.finish(workers);
        Ok(())
    }

    /// Whether there is room for one more connection: below the cap, or once the connection
    /// that waited longest for a message is closed.
    fn make_room(&self) -> bool {
        let connections = lock(&self.shared.connections);
        let open = connections
            .values()
            .filter(|connection| !connection.activity.evicted())
            .count();
        if open < self.limits.connections_max {
            return true;
        }
        let waiting = connections
            .iter()
            .map(|(id, connection)| (*id, &*connection.activity));
        let Some(id) = eviction_choice(waiting) else {
            return false;
        };
        let victim = &connections[&id];
        victim.activity.evict();
        let _ = victim.stream.shutdown(Shutdown::Both);
        self.state.counters.record_connection_evicted();
        tracing::warn!(
            peer = ?victim.stream.peer_addr().ok(),
            connection = id,
            cap = self.limits.connections_max,
            "connection closed to make room at the connection cap: it waited longest for a request"
        );
        true
    }

    fn spawn_connection(&self, id: u64, stream: TcpStream) -> io::Result<JoinHandle<()>> {
        let peer = stream.peer_addr()?;
        stream.set_nodelay(true)?;
        // A client that does not read its replies cannot hold its thread forever either.
        stream.set_write_timeout(Some(self.limits.message_timeout))?;
        let activity = Arc::new(Activity::default());
        lock(&self.shared.connections).insert(
            id,
            Registered {
                stream: stream.try_clone()?,
                activity: Arc::clone(&activity),
            },
        );
        self.state.counters.record_connection_accepted();
        let state = Arc::clone(&self.state);
        let shared = Arc::clone(&self.shared);
        let limits = self.limits;
        thread::Builder::new()
            .name(format!("connection-{id}"))
            .stack_size(CONNECTION_STACK_BYTES)
            .spawn(move || {
                tracing::info!(%peer, connection = id, "connection opened");
                let ending = serve_connection(stream, peer, state, limits, activity);
                lock(&shared.connections).remove(&id);
                match ending {
                    Ok(()) => tracing::info!(%peer, connection = id, "connection closed"),
                    Err(reason) => {
                        tracing::warn!(%peer, connection = id, %reason, "connection closed")
                    }
                }
            })
    }

    fn finish(&self, workers: Vec<(u64, JoinHandle<()>)>) {
        tracing::info!(
            open = workers.len(),
            "stopping: waiting for calls in flight"
        );
        let deadline = Instant::now() + STOP_GRACE;
        for (id, worker) in workers {
            while !worker.is_finished() && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(5));
            }
            if worker.is_finished() {
                let _ = worker.join();
            } else {
                tracing::warn!(
                    connection = id,
                    "a call did not finish within the grace period"
                );
            }
        }
        tracing::info!("hivestore stopped");
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Serves one connection until the client leaves or breaks the protocol.
fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    state: Arc<ServerState>,
    limits: Limits,
    activity: Arc<Activity>,
) -> Result<(), String> {
    let reader = stream.try_clone().map_err(|error| error.to_string())?;
    let reader = TimedStream::new(reader, Arc::clone(&activity), limits, Arc::clone(&state));
    serve_timed(reader, stream, peer, state, limits, &activity)
}

/// Serves one client stream: detects its format, then answers message after message until the
/// client leaves (`Ok`) or breaks the protocol (`Err` with the reason). Public so that tests and
/// the fuzzer can drive a connection from memory.
pub fn serve_stream<R: Read, W: Write>(
    reader: R,
    writer: W,
    peer: SocketAddr,
    state: Arc<ServerState>,
    limits: Limits,
) -> Result<(), String> {
    serve_timed(reader, writer, peer, state, limits, &Activity::default())
}

/// [`serve_stream`], telling `activity` when the connection waits for a message and when it
/// is in a call.
fn serve_timed<R: Read, W: Write>(
    mut reader: R,
    mut writer: W,
    peer: SocketAddr,
    state: Arc<ServerState>,
    limits: Limits,
    activity: &Activity,
) -> Result<(), String> {
    let (format, prefix) = match detect_format(&mut reader) {
        Ok(Some(detected)) => detected,
        Ok(None) => return Ok(()),
        Err(reason) => return Err(reason),
    };
    tracing::debug!(%peer, ?format, "wire format detected");
    let mut messages =
        MessageReader::with_prefix(reader, &prefix).with_budget(Arc::clone(&state.inflight));
    let counters = Arc::clone(&state);
    let ended = |error: ReadError| match error {
        ReadError::Closed => Ok(()),
        error => {
            if matches!(error, ReadError::OverBudget { .. }) {
                counters.counters.record_request_over_budget();
            }
            Err(error.to_string())
        }
    };
    let dispatcher = Dispatcher::new(Session::new(Arc::clone(&state), peer), state, limits);
    let mut reply = Vec::new();
    let unframed_binary =
        format.transport == Transport::Buffered && format.protocol == Protocol::Binary;
    loop {
        activity.wait_for_message(!messages.buffered().is_empty());
        if unframed_binary {
            match answer_arriving(&mut messages, &dispatcher, &limits, &mut reply) {
                Ok(true) => {
                    send(&mut writer, format, &mut reply).map_err(|error| error.to_string())?;
                    if reply.capacity() > IDLE_BUFFER_BYTES_MAX {
                        reply = Vec::new();
                    }
                    continue;
                }
                Ok(false) => {}
                Err(error) => return ended(error),
            }
        }
        let message = match messages.read_message(format, &limits) {
            Ok(message) => message,
            Err(error) => return ended(error),
        };
        activity.begin_call();
        reply.clear();
        if format.transport == Transport::Framed {
            reply.extend_from_slice(&[0; 4]);
        }
        let outcome = dispatcher
            .dispatch(message, format.protocol, &mut reply)
            .map_err(|error| error.to_string())?;
        if outcome == Outcome::Reply {
            send(&mut writer, format, &mut reply).map_err(|error| error.to_string())?;
        }
        if dispatcher.session_ended() {
            return Ok(());
        }
        if reply.capacity() > IDLE_BUFFER_BYTES_MAX {
            crate::reply_buffers::give_back(std::mem::take(&mut reply));
        }
    }
}

/// Answers the next message if its decoder reads it as it arrives (`true`: the reply is in
/// `reply`); `false` leaves it, unread, to the message walk.
fn answer_arriving<R: Read>(
    messages: &mut MessageReader<R>,
    dispatcher: &Dispatcher,
    limits: &Limits,
    reply: &mut Vec<u8>,
) -> Result<bool, ReadError> {
    let method = messages.binary_method(limits)?;
    let Some(method) = dispatcher.arriving_method(method) else {
        return Ok(false);
    };
    reply.clear();
    let mut message = messages.arriving(limits);
    let arrived = dispatcher
        .dispatch_arriving(method, &mut message, reply)
        .map_err(|error| ReadError::Invalid(error.to_string()))?;
    match arrived {
        Arrived::Answered(end) => {
            message.finish(end);
            Ok(true)
        }
        Arrived::Declined => Ok(false),
        Arrived::Broken(error) => Err(error),
    }
}

fn send<W: Write>(writer: &mut W, format: WireFormat, reply: &mut [u8]) -> io::Result<()> {
    if format.transport == Transport::Framed {
        let length = i32::try_from(reply.len() - 4).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "reply larger than a frame can carry",
            )
        })?;
        reply[..4].copy_from_slice(&length.to_be_bytes());
    }
    writer.write_all(reply)?;
    writer.flush()
}

/// Reads the first bytes and names the format. `Ok(None)`: the client left without a word.
fn detect_format<R: Read>(reader: &mut R) -> Result<Option<(WireFormat, Vec<u8>)>, String> {
    let mut prefix = [0u8; DETECT_BYTES];
    let mut filled = 0;
    loop {
        let count = match reader.read(&mut prefix[filled..]) {
            Ok(count) => count,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error.to_string()),
        };
        if count == 0 {
            return if filled == 0 {
                Ok(None)
            } else {
                Err(format!(
                    "closed after {filled} bytes, before a whole message header"
                ))
            };
        }
        filled += count;
        match detect(&prefix[..filled]) {
            Detection::Format(format) => return Ok(Some((format, prefix[..filled].to_vec()))),
            Detection::NeedMore => {}
            Detection::Refused(reason) => return Err(reason),
        }
    }
}
