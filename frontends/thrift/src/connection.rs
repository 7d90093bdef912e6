//! One client connection: its format, its messages, its session; served from memory
//! ([`serve_stream`], for tests and the fuzzer) or, in the server, in turns.
//!
//! In the server a connection is parked with the poller while it waits for a request: the
//! poller reads whatever arrives into the connection's buffer ([`Connection::read_arrived`]),
//! and only once a whole request is buffered hands the connection to a worker, which answers
//! every whole request buffered ([`Connection::serve_turn`]) and gives it back. A request that
//! fills the first 64 KiB of the buffer without ending is a big one: its connection gets a
//! thread of its own that reads the rest as it arrives (blocking, within the message deadline
//! and the in-flight budget; `add_partitions` is decoded as it arrives there), so that slow big
//! requests never hold the workers; so does a connection whose client does not take a reply.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::activity::{Activity, TimedStream};
use crate::auth::Caller;
use crate::detect::{detect, Detection, Handshake, Protocol, Transport, WireFormat, DETECT_BYTES};
use crate::dispatch::{Arrived, Dispatcher, Outcome};
use crate::limits::Limits;
use crate::message::{MessageReader, ReadError, IDLE_BUFFER_BYTES_MAX, READ_BYTES_MIN};
use crate::service::{ServerState, Session};
use crate::socket::CountedSocket;

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
    serve_detected(reader, writer, peer, state, limits, &Activity::default())
}

/// [`serve_stream`], with the connection's `activity` kept up to date (its deadlines are those
/// of the reader, a [`TimedStream`] in the server). A stream that opens with a SASL START frame
/// is authenticated first ([`crate::auth::sasl`]); a plain one is served only when the server
/// does not require authentication.
pub(crate) fn serve_detected<R: Read, W: Write>(
    mut reader: R,
    writer: W,
    peer: SocketAddr,
    state: Arc<ServerState>,
    limits: Limits,
    activity: &Activity,
) -> Result<(), String> {
    let (opening, prefix) = match detect_opening(&mut reader) {
        Ok(Some(detected)) => detected,
        Ok(None) => return Ok(()),
        Err(reason) => return Err(reason),
    };
    match opening {
        Opening::Format(format) => {
            if let Some(reason) = state.auth().plain_refused() {
                return Err(reason);
            }
            let session = Session::new(Arc::clone(&state), peer);
            serve_messages(
                reader, &prefix, writer, format, session, state, limits, activity,
            )
        }
        Opening::Handshake(Handshake::Sasl) => crate::auth::sasl::serve(
            io::Cursor::new(prefix).chain(reader),
            writer,
            peer,
            state,
            limits,
            activity,
        ),
        Opening::Handshake(Handshake::Http) if !state.auth().http_served() => Err(format!(
            "an HTTP request, but this server authenticates with SASL \
             (metastore.authentication={}): HTTP is served under NOSASL and JWT",
            state.auth().authentication
        )),
        Opening::Handshake(Handshake::Http) => crate::http::serve(
            io::Cursor::new(prefix).chain(reader),
            writer,
            peer,
            state,
            limits,
            activity,
        ),
        Opening::Handshake(handshake) => Err(format!(
            "a {handshake:?} handshake where a Thrift message was expected"
        )),
    }
}

/// Serves the Thrift stream inside an authenticated transport, as `caller`.
pub(crate) fn serve_authenticated<R: Read, W: Write>(
    mut reader: R,
    writer: W,
    peer: SocketAddr,
    state: Arc<ServerState>,
    limits: Limits,
    activity: &Activity,
    caller: Caller,
) -> Result<(), String> {
    let (opening, prefix) = match detect_opening(&mut reader) {
        Ok(Some(detected)) => detected,
        Ok(None) => return Ok(()),
        Err(reason) => return Err(reason),
    };
    let Opening::Format(format) = opening else {
        return Err("a second handshake inside an authenticated connection".to_string());
    };
    let session = Session::new(Arc::clone(&state), peer).authenticated(caller);
    serve_messages(
        reader, &prefix, writer, format, session, state, limits, activity,
    )
}

/// Answers message after message until the client leaves or breaks the protocol.
#[allow(clippy::too_many_arguments)]
fn serve_messages<R: Read, W: Write>(
    reader: R,
    prefix: &[u8],
    mut writer: W,
    format: WireFormat,
    session: Session,
    state: Arc<ServerState>,
    limits: Limits,
    activity: &Activity,
) -> Result<(), String> {
    let mut messages =
        MessageReader::with_prefix(reader, prefix).with_budget(Arc::clone(&state.inflight));
    let dispatcher = Dispatcher::new(session, Arc::clone(&state), limits);
    let mut reply = Vec::new();
    loop {
        let served = serve_one(
            &mut messages,
            &mut writer,
            &dispatcher,
            format,
            &limits,
            &mut reply,
            activity,
        );
        if let Err(error) = served {
            return ending(error, &state).map_or(Ok(()), Err);
        }
    }
}

/// The reason a connection ends with a read error, counted; `None` when the client left
/// between two requests.
fn ending(error: ReadError, state: &ServerState) -> Option<String> {
    match error {
        ReadError::Closed => None,
        error => {
            if matches!(error, ReadError::OverBudget { .. }) {
                state.counters.record_request_over_budget();
            }
            Some(error.to_string())
        }
    }
}

/// Answers the next request: read as it arrives (unframed binary `add_partitions`) or read
/// whole, then dispatched; the reply is written to `writer`.
fn serve_one<R: Read, W: Write>(
    messages: &mut MessageReader<R>,
    writer: &mut W,
    dispatcher: &Dispatcher,
    format: WireFormat,
    limits: &Limits,
    reply: &mut Vec<u8>,
    activity: &Activity,
) -> Result<(), ReadError> {
    let unframed_binary =
        format.transport == Transport::Buffered && format.protocol == Protocol::Binary;
    let mut answered = false;
    if unframed_binary {
        answered = answer_arriving(messages, dispatcher, limits, reply)?;
        if answered {
            send(writer, format, reply)?;
        }
    }
    if !answered {
        let message = messages.read_message(format, limits)?;
        activity.begin_call();
        reply.clear();
        if format.transport == Transport::Framed {
            reply.extend_from_slice(&[0; 4]);
        }
        let outcome = dispatcher
            .dispatch(message, format.protocol, reply)
            .map_err(|error| ReadError::Invalid(error.to_string()))?;
        if outcome == Outcome::Reply {
            send(writer, format, reply)?;
        }
    }
    if reply.capacity() > IDLE_BUFFER_BYTES_MAX {
        crate::reply_buffers::give_back(std::mem::take(reply));
    }
    activity.wait_for_message(!messages.buffered().is_empty());
    Ok(())
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

/// How a stream opens: with Thrift messages of a format, or with a handshake.
enum Opening {
    Format(WireFormat),
    Handshake(Handshake),
}

/// Reads the first bytes and tells how the stream opens, with the bytes read. `Ok(None)`: the
/// client left without a word.
fn detect_opening<R: Read>(reader: &mut R) -> Result<Option<(Opening, Vec<u8>)>, String> {
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
            Detection::Format(format) => {
                return Ok(Some((Opening::Format(format), prefix[..filled].to_vec())))
            }
            Detection::NeedMore => {}
            Detection::Handshake(handshake) => {
                return Ok(Some((
                    Opening::Handshake(handshake),
                    prefix[..filled].to_vec(),
                )))
            }
            Detection::Refused(reason) => return Err(reason),
        }
    }
}

/// A connection handed over for its whole life to a thread of its own (a TLS or SASL
/// handshake): what it is served with beside its socket.
pub(crate) struct Handoff {
    pub stream: Arc<TcpStream>,
    pub activity: Arc<Activity>,
    pub peer: SocketAddr,
    /// The bytes the listener read before it handed the connection over.
    pub replay: Vec<u8>,
    pub state: Arc<ServerState>,
    pub stopping: Arc<AtomicBool>,
}

/// Serves a connection that opened with a handshake other than TLS's to its end, on the calling
/// thread, over its blocking socket within its deadlines (the handshake's first).
pub(crate) fn serve_handoff(handoff: Handoff, limits: Limits) -> Result<(), String> {
    let stream = &handoff.stream;
    stream
        .set_nonblocking(false)
        .and_then(|()| stream.set_nodelay(true))
        .and_then(|()| stream.set_write_timeout(Some(limits.message_timeout)))
        .map_err(|error| error.to_string())?;
    let timed = TimedStream::new(
        Arc::clone(stream),
        Arc::clone(&handoff.activity),
        limits,
        Arc::clone(&handoff.state),
        Arc::clone(&handoff.stopping),
    );
    let state = Arc::clone(&handoff.state);
    serve_detected(
        io::Cursor::new(handoff.replay).chain(timed),
        CountedSocket::new(stream, &state.counters),
        handoff.peer,
        handoff.state,
        limits,
        &handoff.activity,
    )
}

/// Bytes the poller may walk, over all the tries, per byte of a request buffered: a request
/// arriving in a few fragments is walked at each, and one dripping in byte by byte cannot make the
/// poller walk its growing prefix again and again (its further tries wait for the deadline scan).
const WALKS_PER_BYTE: usize = 8;

/// How long a worker waits for a client to take (some of) a reply before it hands the rest to
/// a thread of its own: a client that stops reading cannot hold the workers.
const WORKER_WRITE_WAIT: std::time::Duration = std::time::Duration::from_millis(100);

/// Writes replies to the socket until one write waits longer than its timeout; from there on
/// keeps the bytes in `unsent`, for a thread of the connection's own to write.
struct WorkerWriter<'a> {
    socket: CountedSocket<'a>,
    unsent: &'a mut Vec<u8>,
}

impl Write for WorkerWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.unsent.is_empty() {
            match self.socket.write(bytes) {
                Err(error)
                    if matches!(
                        error.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) => {}
                written => return written,
            }
        }
        self.unsent.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What the poller does with a connection after reading what arrived.
#[derive(Debug)]
pub(crate) enum Readable {
    /// Not a whole request yet: keep it parked.
    Wait,
    /// A whole request is buffered: hand it to a worker.
    Ready,
    /// A big request is arriving: give it a reader thread.
    Big,
    /// The connection opens with a handshake: the listener takes it over, or refuses it.
    Handshake(Handshake),
    /// Close it: the client left (`None`) or broke the protocol.
    Close(Option<String>),
}

/// What a connection needs after a turn on a worker.
#[derive(Debug)]
pub(crate) enum Turn {
    /// Back to the poller, to wait for its next request.
    Park,
    /// A big request is arriving, or the client does not take its replies: give it a thread
    /// of its own.
    Big,
    /// Close it, with the reason if it is not the client's doing.
    Close(Option<String>),
}

/// A connection of the server, parked with the poller or taking a turn on a worker.
pub(crate) struct Connection {
    pub id: u64,
    pub peer: SocketAddr,
    pub stream: Arc<TcpStream>,
    pub activity: Arc<Activity>,
    format: Option<WireFormat>,
    /// The rest of a reply the client did not take in time on a worker.
    unsent: Vec<u8>,
    /// Bytes the poller walked looking for the end of the request arriving.
    walked: usize,
    /// Bytes buffered at the poller's last walk.
    walked_at: usize,
    messages: MessageReader<TimedStream>,
    dispatcher: Dispatcher,
    state: Arc<ServerState>,
}

impl Connection {
    /// A connection over `stream`, holding no read buffer yet.
    pub fn new(
        id: u64,
        stream: TcpStream,
        peer: SocketAddr,
        state: &Arc<ServerState>,
        limits: Limits,
        stopping: &Arc<AtomicBool>,
    ) -> Connection {
        let stream = Arc::new(stream);
        let activity = Arc::new(Activity::default());
        state.counters.record_connection_opened();
        let timed = TimedStream::new(
            Arc::clone(&stream),
            Arc::clone(&activity),
            limits,
            Arc::clone(state),
            Arc::clone(stopping),
        );
        Connection {
            id,
            peer,
            stream,
            activity,
            format: None,
            unsent: Vec::new(),
            walked: 0,
            walked_at: 0,
            messages: MessageReader::unbuffered(timed).with_budget(Arc::clone(&state.inflight)),
            dispatcher: Dispatcher::new(
                Session::new(Arc::clone(state), peer),
                Arc::clone(state),
                limits,
            ),
            state: Arc::clone(state),
        }
    }

    /// On the poller, with the socket non-blocking: reads what arrived (up to the first read
    /// of a request, into `scratch`, then the buffer) and tells what the connection needs.
    /// `plain_refused`: why a plain Thrift stream is not served, if it is not.
    pub fn read_arrived(
        &mut self,
        scratch: &mut [u8],
        limits: &Limits,
        plain_refused: Option<&str>,
    ) -> Readable {
        loop {
            let room = READ_BYTES_MIN
                .saturating_sub(self.messages.buffered().len())
                .min(scratch.len());
            if room == 0 {
                break;
            }
            let mut socket = CountedSocket::new(&self.stream, &self.state.counters);
            match socket.read(&mut scratch[..room]) {
                Ok(0) if self.messages.buffered().is_empty() => return Readable::Close(None),
                Ok(0) => {
                    return Readable::Close(Some(
                        "connection closed in the middle of a message".into(),
                    ))
                }
                Ok(count) => {
                    self.activity.bytes_arrived();
                    self.messages.push(&scratch[..count]);
                }
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => break,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Readable::Close(Some(error.to_string())),
            }
        }
        let format = match self.format {
            Some(format) => format,
            None => {
                let buffered = self.messages.buffered();
                match detect(&buffered[..buffered.len().min(DETECT_BYTES)]) {
                    Detection::Format(_) if plain_refused.is_some() => {
                        return Readable::Close(plain_refused.map(str::to_string))
                    }
                    Detection::Handshake(handshake) => return Readable::Handshake(handshake),
                    Detection::Format(format) => {
                        tracing::debug!(peer = %self.peer, ?format, "wire format detected");
                        self.format = Some(format);
                        format
                    }
                    Detection::NeedMore => return Readable::Wait,
                    Detection::Refused(reason) => return Readable::Close(Some(reason)),
                }
            }
        };
        let buffered = self.messages.buffered().len();
        if buffered < READ_BYTES_MIN && self.walked > WALKS_PER_BYTE * buffered {
            return Readable::Wait;
        }
        self.walk(format, limits)
    }

    /// On the poller's deadline scan: walks again a request whose walks were put off, if
    /// bytes arrived since the last one.
    pub fn walk_put_off(&mut self, limits: &Limits) -> Readable {
        match self.format {
            Some(format) if self.messages.buffered().len() > self.walked_at => {
                self.walk(format, limits)
            }
            _ => Readable::Wait,
        }
    }

    fn walk(&mut self, format: WireFormat, limits: &Limits) -> Readable {
        let buffered = self.messages.buffered().len();
        self.walked += buffered;
        self.walked_at = buffered;
        let readable = match self.messages.holds_whole_message(format, limits) {
            Ok(true) => Readable::Ready,
            Ok(false) if buffered >= READ_BYTES_MIN => Readable::Big,
            Ok(false) => Readable::Wait,
            Err(error) => Readable::Close(Some(error.to_string())),
        };
        if matches!(readable, Readable::Ready | Readable::Big) {
            self.walked = 0;
            self.walked_at = 0;
        }
        readable
    }

    /// What a connection handed to a thread of its own for its whole life is served with.
    pub fn handoff(&self, stopping: &Arc<AtomicBool>) -> Handoff {
        Handoff {
            stream: Arc::clone(&self.stream),
            activity: Arc::clone(&self.activity),
            peer: self.peer,
            replay: self.messages.buffered().to_vec(),
            state: Arc::clone(&self.state),
            stopping: Arc::clone(stopping),
        }
    }

    /// On a worker (or a big request's thread, `big`), with the socket blocking: answers every
    /// whole request buffered, reading the rest of a big one as it arrives, then tells what
    /// the connection needs.
    pub fn serve_turn(&mut self, reply: &mut Vec<u8>, limits: &Limits, big: bool) -> Turn {
        let Some(format) = self.format else {
            return Turn::Close(Some("served before its format was known".into()));
        };
        // A worker waits little for a client to take its replies; a thread of its own waits
        // as long as a request may take to arrive.
        let write_wait = if big {
            limits.message_timeout
        } else {
            WORKER_WRITE_WAIT
        };
        let blocking = self
            .stream
            .set_nonblocking(false)
            .and_then(|()| self.stream.set_write_timeout(Some(write_wait)));
        if let Err(error) = blocking {
            return Turn::Close(Some(error.to_string()));
        }
        if !self.unsent.is_empty() {
            let unsent = std::mem::take(&mut self.unsent);
            let mut socket = CountedSocket::new(&self.stream, &self.state.counters);
            if let Err(error) = socket.write_all(&unsent) {
                return Turn::Close(Some(format!("a reply was not taken: {error}")));
            }
            if let Some(turn) = self.after_request(format, limits, big) {
                return turn;
            }
        }
        loop {
            let mut writer = WorkerWriter {
                socket: CountedSocket::new(&self.stream, &self.state.counters),
                unsent: &mut self.unsent,
            };
            let served = serve_one(
                &mut self.messages,
                &mut writer,
                &self.dispatcher,
                format,
                limits,
                reply,
                &self.activity,
            );
            if let Err(error) = served {
                return Turn::Close(ending(error, &self.state));
            }
            if !self.unsent.is_empty() {
                if big {
                    return Turn::Close(Some(format!(
                        "a reply was not taken within {} s (message_timeout_secs)",
                        limits.message_timeout.as_secs_f64()
                    )));
                }
                // The client is not reading: the rest is written on a thread of its own.
                return Turn::Big;
            }
            if let Some(turn) = self.after_request(format, limits, big) {
                return turn;
            }
        }
    }

    /// What the connection needs once a request is answered; `None`: serve the next one here.
    fn after_request(&mut self, format: WireFormat, limits: &Limits, big: bool) -> Option<Turn> {
        match self.messages.holds_whole_message(format, limits) {
            Ok(true) => None,
            Ok(false) if self.messages.buffered().len() >= READ_BYTES_MIN => {
                (!big).then_some(Turn::Big)
            }
            Ok(false) => {
                self.messages.release_idle_buffer();
                Some(Turn::Park)
            }
            Err(error) => Some(Turn::Close(ending(error, &self.state))),
        }
    }
}

impl Drop for Connection {
    /// However a connection ends (closed by the poller, lost with a thread that could not
    /// start), it is no longer open.
    fn drop(&mut self) {
        self.state.counters.record_connection_closed();
    }
}
