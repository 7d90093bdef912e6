//! The SASL transport Hive's clients speak (Thrift's `TSaslClientTransport`): a negotiation in
//! status frames, then the Thrift stream in data frames through the mechanism's security layer.
//!
//! Negotiation frames are a status byte, a big-endian 4-byte length and a payload. The client
//! opens with START naming the mechanism, then sends its initial response (OK, or COMPLETE when
//! it has nothing more to say); the server answers each response with a challenge (OK) until the
//! mechanism is done (COMPLETE, with the mechanism's last message), or refuses (BAD, with why).
//! After it, each message in either direction is a frame of a 4-byte length and a payload, which
//! the mechanism wraps and unwraps under QOP `auth-int` and `auth-conf`. Java's client writes a
//! frame per flush, so a frame is a whole message or more; the reader here does not rely on it.

use std::cell::RefCell;
use std::fmt;
use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::Arc;

use crate::activity::Activity;
use crate::auth::{SaslMechanism, SaslStep};
use crate::limits::Limits;
use crate::service::ServerState;

/// A negotiation frame's status: the client starts.
pub const START: u8 = 1;
/// A negotiation frame's status: the negotiation goes on.
pub const OK: u8 = 2;
/// A negotiation frame's status: the peer refused what it was sent.
pub const BAD: u8 = 3;
/// A negotiation frame's status: the peer failed.
pub const ERROR: u8 = 4;
/// A negotiation frame's status: the sender is done.
pub const COMPLETE: u8 = 5;

/// Longest payload of a negotiation frame. A Kerberos ticket with a large authorization
/// payload (a Windows PAC) stays under 64 KiB; this leaves room and bounds what a client can
/// make the server hold before it authenticated.
pub const NEGOTIATION_PAYLOAD_BYTES_MAX: usize = 256 * 1024;
/// Most negotiation frames one login may take: GSSAPI needs four or so, DIGEST-MD5 two.
pub const NEGOTIATION_STEPS_MAX: usize = 16;
/// Overhead a security layer adds to a data frame's payload (GSSAPI's wrap token: a header
/// and a checksum or padding), allowed beyond the largest message.
const WRAP_OVERHEAD_BYTES_MAX: usize = 64 * 1024;

/// Creates the server side of a mechanism for one connection of the server whose state it is
/// given.
type MechanismFactory =
    Box<dyn Fn(&Arc<ServerState>) -> Result<Box<dyn SaslMechanism>, String> + Send + Sync>;

/// The SASL mechanisms a server offers, by name, each made anew for every connection.
#[derive(Default)]
pub struct SaslServers {
    offered: Vec<(&'static str, MechanismFactory)>,
}

impl fmt::Debug for SaslServers {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.debug_list().entries(self.names()).finish()
    }
}

impl SaslServers {
    /// Offers mechanism `name`, made by `factory` for each connection that starts it.
    pub fn offer(
        &mut self,
        name: &'static str,
        factory: impl Fn(&Arc<ServerState>) -> Result<Box<dyn SaslMechanism>, String>
            + Send
            + Sync
            + 'static,
    ) {
        self.offered.retain(|(offered, _)| *offered != name);
        self.offered.push((name, Box::new(factory)));
    }

    /// The names of the mechanisms offered, in the order offered.
    pub fn names(&self) -> Vec<&'static str> {
        self.offered.iter().map(|(name, _)| *name).collect()
    }

    /// Whether any mechanism is offered.
    pub fn is_empty(&self) -> bool {
        self.offered.is_empty()
    }

    fn start(
        &self,
        name: &str,
        state: &Arc<ServerState>,
    ) -> Option<Result<Box<dyn SaslMechanism>, String>> {
        self.offered
            .iter()
            .find(|(offered, _)| *offered == name)
            .map(|(_, factory)| factory(state))
    }
}

/// Serves a connection that opened with a SASL START frame: the negotiation within the
/// handshake deadline, then the Thrift stream inside, as the authenticated caller. `Err`
/// carries why the connection ended, when not the client's leaving.
pub(crate) fn serve<R: Read, W: Write>(
    mut reader: R,
    mut writer: W,
    peer: SocketAddr,
    state: Arc<ServerState>,
    limits: Limits,
    activity: &Activity,
) -> Result<(), String> {
    activity.begin_handshake(&limits);
    let negotiated = negotiate(&mut reader, &mut writer, &state);
    activity.end_handshake();
    let (mechanism, caller) = match negotiated {
        Ok(negotiated) => negotiated,
        Err(why) => {
            state.counters.record_authentication_failed();
            return Err(format!("SASL authentication failed: {why}"));
        }
    };
    tracing::info!(
        %peer,
        mechanism = mechanism.name(),
        principal = %caller.principal,
        user = %caller.user,
        "SASL authentication succeeded"
    );
    activity.wait_for_message(false);
    let mechanism = Rc::new(RefCell::new(mechanism));
    let reader = FrameReader {
        inner: reader,
        mechanism: Rc::clone(&mechanism),
        payload: Vec::new(),
        position: 0,
        frame_bytes_max: limits.message_bytes_max + WRAP_OVERHEAD_BYTES_MAX,
    };
    let writer = FrameWriter {
        inner: writer,
        mechanism,
        pending: Vec::new(),
    };
    crate::connection::serve_authenticated(reader, writer, peer, state, limits, activity, caller)
}

/// Runs the negotiation to its end: the mechanism, done, and whom it authenticated.
fn negotiate<R: Read, W: Write>(
    reader: &mut R,
    writer: &mut W,
    state: &Arc<ServerState>,
) -> Result<(Box<dyn SaslMechanism>, crate::auth::Caller), String> {
    let servers = &state.auth().sasl;
    // Refuses with a BAD frame that tells the client why; the reason, for the log.
    let told = |writer: &mut W, why: String| -> String {
        match write_frame(writer, BAD, why.as_bytes()) {
            Ok(()) => why,
            Err(error) => format!("{why} (telling the client failed: {error})"),
        }
    };
    let (status, name) = read_frame(reader)?;
    if status != START {
        return Err(told(
            writer,
            format!("expected a START frame, got status {status}"),
        ));
    }
    let name = String::from_utf8_lossy(&name).into_owned();
    let started = servers.start(&name, state);
    let Some(started) = started else {
        let offered = servers.names();
        let why = if offered.is_empty() {
            format!(
                "SASL mechanism {name:?} is not offered: this server does not use SASL \
                 (metastore.authentication=NOSASL); connect without SASL"
            )
        } else {
            format!(
                "SASL mechanism {name:?} is not offered; offered: {}",
                offered.join(", ")
            )
        };
        return Err(told(writer, why));
    };
    let mut mechanism = started.map_err(|why| told(writer, format!("{name}: {why}")))?;
    for _ in 0..NEGOTIATION_STEPS_MAX {
        let (status, response) = read_frame(reader)?;
        match status {
            OK | COMPLETE => {}
            BAD | ERROR => {
                return Err(format!(
                    "the client gave up: {}",
                    String::from_utf8_lossy(&response)
                ))
            }
            other => {
                return Err(told(
                    writer,
                    format!("expected an OK or COMPLETE frame, got status {other}"),
                ))
            }
        }
        match mechanism.step(&response) {
            Ok(SaslStep::Challenge(challenge)) => {
                write_frame(writer, OK, &challenge).map_err(|error| error.to_string())?;
            }
            Ok(SaslStep::Complete { caller, last }) => {
                write_frame(writer, COMPLETE, &last).map_err(|error| error.to_string())?;
                return Ok((mechanism, caller));
            }
            Err(why) => {
                // The client learns only that it failed: the reason may tell which users
                // exist, or name files and servers.
                let _ = write_frame(
                    writer,
                    BAD,
                    format!("{name}: authentication failed").as_bytes(),
                );
                let why = if why.starts_with(name.as_str()) {
                    why
                } else {
                    format!("{name}: {why}")
                };
                return Err(why);
            }
        }
    }
    Err(told(
        writer,
        format!("{name}: no end after {NEGOTIATION_STEPS_MAX} steps"),
    ))
}

/// Reads one negotiation frame: its status and payload.
fn read_frame<R: Read>(reader: &mut R) -> Result<(u8, Vec<u8>), String> {
    let mut header = [0u8; 5];
    reader
        .read_exact(&mut header)
        .map_err(|error| format!("reading a negotiation frame: {error}"))?;
    let length = u32::from_be_bytes([header[1], header[2], header[3], header[4]]) as usize;
    if length > NEGOTIATION_PAYLOAD_BYTES_MAX {
        return Err(format!(
            "a negotiation frame of {length} bytes, over the limit of \
             {NEGOTIATION_PAYLOAD_BYTES_MAX}"
        ));
    }
    let mut payload = Vec::new();
    reader
        .take(length as u64)
        .read_to_end(&mut payload)
        .map_err(|error| format!("reading a negotiation frame: {error}"))?;
    if payload.len() < length {
        return Err(format!(
            "closed after {} of a negotiation frame's {length} bytes",
            payload.len()
        ));
    }
    Ok((header[0], payload))
}

/// Writes one negotiation frame.
fn write_frame<W: Write>(writer: &mut W, status: u8, payload: &[u8]) -> io::Result<()> {
    let length = u32::try_from(payload.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "frame too long"))?;
    let mut frame = Vec::with_capacity(5 + payload.len());
    frame.push(status);
    frame.extend_from_slice(&length.to_be_bytes());
    frame.extend_from_slice(payload);
    writer.write_all(&frame)?;
    writer.flush()
}

/// The Thrift stream inside the data frames a client sends.
struct FrameReader<R> {
    inner: R,
    mechanism: Rc<RefCell<Box<dyn SaslMechanism>>>,
    /// The current frame's payload, unwrapped, and how much of it was read.
    payload: Vec<u8>,
    position: usize,
    frame_bytes_max: usize,
}

impl<R: Read> FrameReader<R> {
    /// Reads the next frame whole; `false` when the client left between two frames.
    fn next_frame(&mut self) -> io::Result<bool> {
        let mut header = [0u8; 4];
        let mut filled = 0;
        while filled < header.len() {
            match self.inner.read(&mut header[filled..]) {
                Ok(0) if filled == 0 => return Ok(false),
                Ok(0) => return Err(cut("a data frame's length")),
                Ok(count) => filled += count,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
        let length = u32::from_be_bytes(header) as usize;
        if length > self.frame_bytes_max {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "a SASL data frame of {length} bytes, over the limit of {} \
                     (message_bytes_max and a security layer's overhead)",
                    self.frame_bytes_max
                ),
            ));
        }
        // Grows as bytes arrive, so a length alone reserves nothing.
        let mut frame = Vec::new();
        (&mut self.inner)
            .take(length as u64)
            .read_to_end(&mut frame)?;
        if frame.len() < length {
            return Err(cut("a data frame"));
        }
        self.payload = self
            .mechanism
            .borrow_mut()
            .unwrap(frame)
            .map_err(|why| io::Error::new(io::ErrorKind::InvalidData, why))?;
        self.position = 0;
        Ok(true)
    }
}

fn cut(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("the client closed the connection inside {what}"),
    )
}

impl<R: Read> Read for FrameReader<R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        while self.position == self.payload.len() {
            if !self.next_frame()? {
                return Ok(0);
            }
        }
        let count = buffer.len().min(self.payload.len() - self.position);
        buffer[..count].copy_from_slice(&self.payload[self.position..self.position + count]);
        self.position += count;
        if self.position == self.payload.len() {
            self.payload = Vec::new();
            self.position = 0;
        }
        Ok(count)
    }
}

/// The data frames the server sends: what is written until a flush is one frame.
struct FrameWriter<W> {
    inner: W,
    mechanism: Rc<RefCell<Box<dyn SaslMechanism>>>,
    pending: Vec<u8>,
}

impl<W: Write> Write for FrameWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return self.inner.flush();
        }
        let payload = std::mem::take(&mut self.pending);
        let wrapped = self
            .mechanism
            .borrow_mut()
            .wrap(payload)
            .map_err(|why| io::Error::new(io::ErrorKind::InvalidData, why))?;
        let length = u32::try_from(wrapped.len()).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "reply larger than a frame can carry",
            )
        })?;
        let mut frame = Vec::with_capacity(4 + wrapped.len());
        frame.extend_from_slice(&length.to_be_bytes());
        frame.extend_from_slice(&wrapped);
        self.inner.write_all(&frame)?;
        self.inner.flush()
    }
}
