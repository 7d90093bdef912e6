//! Reads exactly one whole Thrift message off a connection, within the limits, before anything
//! decodes it.
//!
//! A [`MessageReader`] owns the connection's read buffer: it asks the socket for big reads and
//! hands out each message as a slice of that buffer, without copying it. A framed message
//! announces its length. An unframed one does not, so its structure is walked here by index over
//! the buffered bytes — header, then every field, value and container — checking each length
//! against [`Limits`] before waiting for its bytes. Bytes read past the end of a message stay
//! buffered for the next one: clients may send calls back to back without waiting for replies.
//! Decoding then runs over a complete, bounded slice: a bad message can cost its connection,
//! never the server's memory, and a call the server does not know is skipped whole, so the
//! stream stays in step.
//!
//! The biggest requests skip the walk: an unframed binary call whose decoder reads it as it
//! arrives ([`Arriving`], [`MessageReader::arriving`]) is read once, by that decoder, which
//! checks the same limits; should it give up on the message, the walk reads it from its start.
//!
//! A buffer grows past one read's size only with bytes taken from the server's budget for
//! unfinished messages ([`InflightBytes`]), and gives them back when it shrinks.

use std::io::{self, Read};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::detect::{Protocol, Transport, WireFormat, BINARY_VERSION_HIGH, BINARY_VERSION_LOW};
use crate::inflight::InflightBytes;
use crate::limits::{Limits, METHOD_NAME_BYTES_MAX, NESTING_DEPTH_MAX};

/// Why no message could be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The peer closed the connection between two messages.
    #[error("connection closed")]
    Closed,
    /// The peer closed the connection in the middle of a message.
    #[error("connection closed in the middle of a message")]
    Truncated,
    /// The bytes break the protocol or a limit; the connection cannot continue.
    #[error("{0}")]
    Invalid(String),
    /// The socket failed.
    #[error("i/o error: {0}")]
    Io(#[from] io::Error),
    /// Other connections' unfinished messages hold the server's whole budget for them.
    #[error(
        "refused: unfinished requests of all connections already hold the server's budget of \
         {max} bytes (max_inflight_bytes), and this one needs {needed} more"
    )]
    OverBudget {
        /// The bytes this message's buffer asked for.
        needed: usize,
        /// The budget.
        max: usize,
    },
}

/// Room asked of the socket at a time, at least, in bytes; also a new reader's buffer size.
pub const READ_BYTES_MIN: usize = 64 * 1024;
/// A buffer that grew past this for a big message is given back before the next message.
pub const IDLE_BUFFER_BYTES_MAX: usize = 1024 * 1024;
/// How long a growing buffer waits for others to give back budget before its message is
/// refused.
const BUDGET_WAIT: Duration = Duration::from_secs(1);
/// Bytes before a framed message's payload: its length.
const FRAME_HEADER_BYTES: usize = 4;

/// The messages of one connection, read through a buffer of its own.
pub struct MessageReader<R> {
    source: R,
    /// Bytes read from the source; `buffer[next..filled]` were read but not handed out yet.
    buffer: Vec<u8>,
    /// Where the next message starts.
    next: usize,
    /// How much of `buffer` holds bytes read.
    filled: usize,
    /// The budget the buffer's growth is taken from, if any.
    budget: Option<Arc<InflightBytes>>,
    /// Bytes taken from the budget: the buffer's size past one read's size.
    taken: usize,
    /// Walks look at the buffered bytes only, never reading from the source.
    buffered_only: bool,
}

impl<R: Read> MessageReader<R> {
    /// A reader of the messages of `source`.
    pub fn new(source: R) -> Self {
        Self::with_prefix(source, &[])
    }

    /// A reader of a stream that starts with `prefix` (bytes already taken from `source`, such
    /// as those format detection looked at) and goes on with `source`.
    pub fn with_prefix(source: R, prefix: &[u8]) -> Self {
        let mut buffer = vec![0; READ_BYTES_MIN.max(prefix.len())];
        buffer[..prefix.len()].copy_from_slice(prefix);
        MessageReader {
            source,
            buffer,
            next: 0,
            filled: prefix.len(),
            budget: None,
            taken: 0,
            buffered_only: false,
        }
    }

    /// A reader of `source` that holds no buffer until bytes arrive, for a connection that
    /// may stay silent for hours.
    pub fn unbuffered(source: R) -> Self {
        MessageReader {
            source,
            buffer: Vec::new(),
            next: 0,
            filled: 0,
            budget: None,
            taken: 0,
            buffered_only: false,
        }
    }

    /// Appends bytes read from the source by someone else (the poller), after those buffered.
    /// The buffer grows to hold them exactly; the caller bounds how many it pushes.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.buffer.len() - self.filled < bytes.len() {
            self.buffer.copy_within(self.next..self.filled, 0);
            self.filled -= self.next;
            self.next = 0;
            if self.buffer.len() - self.filled < bytes.len() {
                self.buffer.resize(self.filled + bytes.len(), 0);
            }
        }
        self.buffer[self.filled..self.filled + bytes.len()].copy_from_slice(bytes);
        self.filled += bytes.len();
    }

    /// Whether the buffered bytes hold the next message whole; reads nothing. An error: the
    /// bytes buffered already break the protocol or a limit.
    pub fn holds_whole_message(
        &mut self,
        format: WireFormat,
        limits: &Limits,
    ) -> Result<bool, ReadError> {
        let next = self.next;
        self.buffered_only = true;
        let mut walk = self.walk(format.transport, limits);
        let walked = match (format.transport, format.protocol) {
            (Transport::Framed, _) => walk.frame(),
            (Transport::Buffered, Protocol::Binary) => walk.binary_message(),
            (Transport::Buffered, Protocol::Compact) => walk.compact_message(),
        };
        self.buffered_only = false;
        self.next = next;
        match walked {
            Ok(()) => Ok(true),
            Err(ReadError::Io(error)) if error.kind() == io::ErrorKind::WouldBlock => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// Frees the buffer of a connection that waits for its next message with nothing of it
    /// buffered: an idle connection holds no buffer.
    pub fn release_idle_buffer(&mut self) {
        if self.next == self.filled {
            self.buffer = Vec::new();
            self.next = 0;
            self.filled = 0;
            self.give_back_growth();
        }
    }

    /// This reader with its buffer's growth taken from `budget`.
    pub fn with_budget(mut self, budget: Arc<InflightBytes>) -> Self {
        self.budget = Some(budget);
        self
    }

    /// The bytes read past the last message handed out.
    pub fn buffered(&self) -> &[u8] {
        &self.buffer[self.next..self.filled]
    }

    /// The size of the read buffer, in bytes.
    pub fn buffer_bytes(&self) -> usize {
        self.buffer.len()
    }

    /// Reads the next message: for an unframed one, all its bytes; for a framed one, its frame's
    /// payload. The slice lives until the next call.
    pub fn read_message(
        &mut self,
        format: WireFormat,
        limits: &Limits,
    ) -> Result<&[u8], ReadError> {
        self.reclaim();
        let header_bytes = match format.transport {
            Transport::Framed => FRAME_HEADER_BYTES,
            Transport::Buffered => 0,
        };
        let mut walk = self.walk(format.transport, limits);
        match (format.transport, format.protocol) {
            (Transport::Framed, _) => walk.frame()?,
            (Transport::Buffered, Protocol::Binary) => walk.binary_message()?,
            (Transport::Buffered, Protocol::Compact) => walk.compact_message()?,
        }
        let (start, end) = (walk.start, walk.start + walk.at);
        self.next = end;
        Ok(&self.buffer[start + header_bytes..end])
    }

    /// The method an unframed binary message calls, once its header arrived (a name that is
    /// not UTF-8 is empty); the message stays unread.
    pub fn binary_method(&mut self, limits: &Limits) -> Result<&str, ReadError> {
        self.reclaim();
        let mut walk = self.walk(Transport::Buffered, limits);
        let name = walk.binary_header()?;
        let start = walk.start;
        self.next = start;
        let name = &self.buffer[start + name.start..start + name.end];
        Ok(std::str::from_utf8(name).unwrap_or_default())
    }

    /// The next unframed message, for a decoder that reads it as it arrives, within `limits`.
    pub fn arriving<'a>(&'a mut self, limits: &'a Limits) -> ArrivingMessage<'a, R> {
        self.reclaim();
        ArrivingMessage {
            walk: self.walk(Transport::Buffered, limits),
        }
    }

    /// A walk over the next message, from its start.
    fn walk<'a>(&'a mut self, transport: Transport, limits: &'a Limits) -> Walk<'a, R> {
        let header_bytes = match transport {
            Transport::Framed => FRAME_HEADER_BYTES,
            Transport::Buffered => 0,
        };
        let bytes_max = limits.message_bytes_max + header_bytes;
        Walk {
            start: self.next,
            at: 0,
            available: (self.filled - self.next).min(bytes_max),
            bytes_max,
            limits,
            input: self,
        }
    }

    /// Rewinds an emptied buffer, and gives back one that grew for a big message (and its
    /// budget), keeping the bytes not handed out yet.
    fn reclaim(&mut self) {
        let pending = self.filled - self.next;
        if pending == 0 {
            self.next = 0;
            self.filled = 0;
        }
        // Back to one read's size once a message that grew it is handed out: the growth is budget
        // other connections may need.
        let grown = self.buffer.len() > IDLE_BUFFER_BYTES_MAX || self.taken > 0;
        if grown && pending <= READ_BYTES_MIN {
            let mut buffer = vec![0; READ_BYTES_MIN];
            buffer[..pending].copy_from_slice(&self.buffer[self.next..self.filled]);
            self.buffer = buffer;
            self.next = 0;
            self.filled = pending;
            self.give_back_growth();
        }
    }

    /// Takes what growing the buffer to `size` bytes needs from the budget; waits a little for
    /// others to give some back before refusing.
    fn take_growth(&mut self, size: usize, max: usize) -> Result<(), ReadError> {
        let needed = size
            .saturating_sub(READ_BYTES_MIN)
            .saturating_sub(self.taken);
        let Some(budget) = &self.budget else {
            return Ok(());
        };
        if needed == 0 {
            return Ok(());
        }
        let waited_from = Instant::now();
        while !budget.try_take(needed, max) {
            if waited_from.elapsed() >= BUDGET_WAIT {
                return Err(ReadError::OverBudget { needed, max });
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.taken += needed;
        Ok(())
    }

    fn give_back_growth(&mut self) {
        if let Some(budget) = &self.budget {
            budget.give_back(self.taken);
        }
        self.taken = 0;
    }
}

impl<R> Drop for MessageReader<R> {
    fn drop(&mut self) {
        if let Some(budget) = &self.budget {
            budget.give_back(self.taken);
        }
    }
}

/// Reads one message from `reader` into `message` (cleared first). Bytes that `reader` yields
/// past the message are lost with the temporary buffer: for one-message streams (tests, tools);
/// a connection keeps one [`MessageReader`] instead.
pub fn read_one_message<R: Read>(
    reader: R,
    format: WireFormat,
    limits: &Limits,
    message: &mut Vec<u8>,
) -> Result<(), ReadError> {
    message.clear();
    let mut reader = MessageReader::new(reader);
    message.extend_from_slice(reader.read_message(format, limits)?);
    Ok(())
}

/// The bytes of one message as they arrive, for a decoder that reads it in one pass.
pub trait Arriving {
    /// The message's bytes that arrived, from its first; never more than its limit.
    fn arrived(&self) -> &[u8];
    /// Waits for more of the message. An error ends the connection: the peer closed it in the
    /// middle of the message, the message passed its limit, or the socket failed.
    fn arrive_more(&mut self) -> Result<(), ReadError>;
}

/// A message in memory has arrived whole: there is no more of it.
impl Arriving for &[u8] {
    fn arrived(&self) -> &[u8] {
        self
    }

    fn arrive_more(&mut self) -> Result<(), ReadError> {
        Err(ReadError::Truncated)
    }
}

/// The next unframed message of a [`MessageReader`], read as it arrives: more is read from the
/// source as the decoder asks, read by read, up to the message limit.
pub struct ArrivingMessage<'a, R> {
    walk: Walk<'a, R>,
}

impl<R: Read> ArrivingMessage<'_, R> {
    /// The decoder read the message through its first `end` bytes: the next message starts
    /// there, and the bytes past it stay buffered.
    ///
    /// # Panics
    /// If `end` is past the bytes that arrived: a decoder's bug.
    pub fn finish(self, end: usize) {
        assert!(
            end <= self.walk.available,
            "a message ends where it arrived"
        );
        self.walk.input.next = self.walk.start + end;
    }
}

impl<R: Read> Arriving for ArrivingMessage<'_, R> {
    fn arrived(&self) -> &[u8] {
        let start = self.walk.start;
        &self.walk.input.buffer[start..start + self.walk.available]
    }

    fn arrive_more(&mut self) -> Result<(), ReadError> {
        let end = self.walk.available + 1;
        self.walk.fill(end)
    }
}

// Thrift type codes of the binary protocol.
const T_STOP: u8 = 0;
const T_BOOL: u8 = 2;
const T_BYTE: u8 = 3;
const T_DOUBLE: u8 = 4;
const T_I16: u8 = 6;
const T_I32: u8 = 8;
const T_I64: u8 = 10;
const T_STRING: u8 = 11;
const T_STRUCT: u8 = 12;
const T_MAP: u8 = 13;
const T_SET: u8 = 14;
const T_LIST: u8 = 15;
const T_UUID: u8 = 16;

// Type codes of the compact protocol.
const C_BOOL_TRUE: u8 = 1;
const C_BOOL_FALSE: u8 = 2;
const C_BYTE: u8 = 3;
const C_I16: u8 = 4;
const C_I32: u8 = 5;
const C_I64: u8 = 6;
const C_DOUBLE: u8 = 7;
const C_BINARY: u8 = 8;
const C_LIST: u8 = 9;
const C_SET: u8 = 10;
const C_MAP: u8 = 11;
const C_STRUCT: u8 = 12;
const C_UUID: u8 = 13;
const COMPACT_VERSION: u8 = 1;
const COMPACT_VERSION_MASK: u8 = 0x1f;
const VARINT_BYTES_MAX: usize = 10;

/// The size of a binary-protocol value of `value_type`, when fixed.
#[inline]
fn binary_fixed_size(value_type: u8) -> Option<usize> {
    match value_type {
        T_BOOL | T_BYTE => Some(1),
        T_I16 => Some(2),
        T_I32 => Some(4),
        T_I64 | T_DOUBLE => Some(8),
        T_UUID => Some(16),
        _ => None,
    }
}

#[cold]
fn length_error(what: &str, length: i64, max: usize) -> ReadError {
    ReadError::Invalid(format!("{what} length {length} is outside 0..={max}"))
}

/// The walk over one message in the reader's buffer.
struct Walk<'a, R> {
    input: &'a mut MessageReader<R>,
    /// Where the message starts in the buffer (it moves when the buffer is compacted).
    start: usize,
    /// How many bytes of the message were walked.
    at: usize,
    /// How many bytes of the message can be walked without reading: those buffered, up to the
    /// limit.
    available: usize,
    /// The most bytes the message may take, headers included.
    bytes_max: usize,
    limits: &'a Limits,
}

impl<R: Read> Walk<'_, R> {
    /// Makes sure the next `count` bytes of the message are in the buffer.
    #[inline(always)]
    fn need(&mut self, count: usize) -> Result<(), ReadError> {
        let end = self.at + count;
        if end <= self.available {
            return Ok(());
        }
        self.fill(end)
    }

    /// Reads from the source until the message's first `end` bytes are buffered.
    #[cold]
    fn fill(&mut self, end: usize) -> Result<(), ReadError> {
        if end > self.bytes_max {
            return Err(ReadError::Invalid(format!(
                "message exceeds the limit of {} bytes",
                self.limits.message_bytes_max
            )));
        }
        if self.input.buffered_only {
            return Err(ReadError::Io(io::ErrorKind::WouldBlock.into()));
        }
        while self.start + end > self.input.filled {
            self.make_room()?;
            let input = &mut *self.input;
            match input.source.read(&mut input.buffer[input.filled..]) {
                // Nothing of this message arrived: the client left between two messages.
                Ok(0) if input.filled == self.start => return Err(ReadError::Closed),
                Ok(0) => return Err(ReadError::Truncated),
                Ok(count) => input.filled += count,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error.into()),
            }
        }
        self.available = (self.input.filled - self.start).min(self.bytes_max);
        Ok(())
    }

    /// Moves the message to the front of the buffer, then grows the buffer if little room is
    /// left: by doubling as bytes arrive, never on a length's word alone, and never past the
    /// message limit and one read's size.
    fn make_room(&mut self) -> Result<(), ReadError> {
        let input = &mut *self.input;
        if self.start > 0 {
            input.buffer.copy_within(self.start..input.filled, 0);
            input.filled -= self.start;
            input.next = 0;
            self.start = 0;
        }
        if input.buffer.len() - input.filled < READ_BYTES_MIN {
            let doubled = (input.buffer.len() * 2).max(input.filled + READ_BYTES_MIN);
            let most = self.bytes_max + READ_BYTES_MIN;
            let size = doubled.min(most).max(input.buffer.len());
            input.take_growth(size, self.limits.inflight_bytes_max)?;
            input.buffer.resize(size, 0);
        }
        assert!(input.buffer.len() > input.filled, "room to read into");
        Ok(())
    }

    #[inline(always)]
    fn skip(&mut self, count: usize) -> Result<(), ReadError> {
        self.need(count)?;
        self.at += count;
        Ok(())
    }

    #[inline(always)]
    fn byte(&mut self) -> Result<u8, ReadError> {
        self.need(1)?;
        let byte = self.input.buffer[self.start + self.at];
        self.at += 1;
        Ok(byte)
    }

    #[inline(always)]
    fn i32_be(&mut self) -> Result<i32, ReadError> {
        self.need(4)?;
        let from = self.start + self.at;
        let bytes = &self.input.buffer[from..from + 4];
        self.at += 4;
        Ok(i32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    #[inline(always)]
    fn check_length(&self, what: &str, length: i64, max: usize) -> Result<usize, ReadError> {
        if length < 0 || length as u64 > max as u64 {
            return Err(length_error(what, length, max));
        }
        Ok(length as usize)
    }

    fn check_depth(&self, depth: usize) -> Result<(), ReadError> {
        if depth > NESTING_DEPTH_MAX {
            return Err(ReadError::Invalid(format!(
                "values nested deeper than {NESTING_DEPTH_MAX} levels"
            )));
        }
        Ok(())
    }

    fn frame(&mut self) -> Result<(), ReadError> {
        let length = self.i32_be()?;
        let message_bytes_max = self.limits.message_bytes_max;
        if length <= 0 || length as usize > message_bytes_max {
            return Err(ReadError::Invalid(format!(
                "frame length {length} is outside 1..={message_bytes_max} bytes"
            )));
        }
        self.skip(length as usize)
    }

    fn binary_message(&mut self) -> Result<(), ReadError> {
        self.binary_header()?;
        self.binary_value(T_STRUCT, 0)
    }

    /// Walks a binary message's header (strict or old-style); where its method name lies.
    fn binary_header(&mut self) -> Result<std::ops::Range<usize>, ReadError> {
        let head = self.i32_be()?.to_be_bytes();
        let name = if head[0] & 0x80 != 0 {
            if head[0] != BINARY_VERSION_HIGH || head[1] != BINARY_VERSION_LOW {
                return Err(ReadError::Invalid(format!(
                    "bad binary protocol version {:02x?}",
                    &head[..2]
                )));
            }
            let name_length = self.i32_be()?;
            let name_length =
                self.check_length("method name", name_length.into(), METHOD_NAME_BYTES_MAX)?;
            let name = self.at..self.at + name_length;
            self.skip(name_length)?;
            name
        } else {
            let name_length = i32::from_be_bytes(head);
            let name_length =
                self.check_length("method name", name_length.into(), METHOD_NAME_BYTES_MAX)?;
            let name = self.at..self.at + name_length;
            self.skip(name_length + 1)?; // the name, then the message type
            name
        };
        self.skip(4)?; // sequence id
        Ok(name)
    }

    fn binary_value(&mut self, value_type: u8, depth: usize) -> Result<(), ReadError> {
        if let Some(size) = binary_fixed_size(value_type) {
            return self.skip(size);
        }
        match value_type {
            T_STRING => self.binary_string(),
            T_STRUCT => self.binary_struct(depth + 1),
            T_MAP => {
                self.check_depth(depth + 1)?;
                let key_type = self.byte()?;
                let value_type = self.byte()?;
                let count = self.binary_count("map")?;
                if key_type == T_STRING && value_type == T_STRING {
                    for _ in 0..count * 2 {
                        self.binary_string()?;
                    }
                    return Ok(());
                }
                for _ in 0..count {
                    self.binary_value(key_type, depth + 1)?;
                    self.binary_value(value_type, depth + 1)?;
                }
                Ok(())
            }
            T_SET | T_LIST => {
                self.check_depth(depth + 1)?;
                let element_type = self.byte()?;
                let count = self.binary_count("list")?;
                self.binary_elements(element_type, count, depth + 1)
            }
            other => Err(ReadError::Invalid(format!(
                "unknown binary type code {other}"
            ))),
        }
    }

    /// The `count` elements of a list or set: fixed-size ones in one step, strings in a loop of
    /// their own, the rest one by one.
    fn binary_elements(
        &mut self,
        element_type: u8,
        count: usize,
        depth: usize,
    ) -> Result<(), ReadError> {
        if let Some(size) = binary_fixed_size(element_type) {
            // At most a million elements of at most 16 bytes: no overflow.
            return self.skip(count * size);
        }
        if element_type == T_STRING {
            for _ in 0..count {
                self.binary_string()?;
            }
            return Ok(());
        }
        for _ in 0..count {
            self.binary_value(element_type, depth)?;
        }
        Ok(())
    }

    #[inline(always)]
    fn binary_string(&mut self) -> Result<(), ReadError> {
        let length = self.i32_be()?;
        let length = self.check_length("string", length.into(), self.limits.string_bytes_max)?;
        self.skip(length)
    }

    fn binary_struct(&mut self, depth: usize) -> Result<(), ReadError> {
        self.check_depth(depth)?;
        loop {
            let field_type = self.byte()?;
            if field_type == T_STOP {
                return Ok(());
            }
            self.skip(2)?; // field id
                           // Strings and numbers, most fields, without a call of their own.
            if field_type == T_STRING {
                self.binary_string()?;
            } else if let Some(size) = binary_fixed_size(field_type) {
                self.skip(size)?;
            } else {
                self.binary_value(field_type, depth)?;
            }
        }
    }

    fn binary_count(&mut self, what: &str) -> Result<usize, ReadError> {
        let count = self.i32_be()?;
        self.check_length(what, count.into(), self.limits.container_elements_max)
    }

    fn compact_message(&mut self) -> Result<(), ReadError> {
        self.skip(2)?;
        let version = self.input.buffer[self.start + 1] & COMPACT_VERSION_MASK;
        if version != COMPACT_VERSION {
            return Err(ReadError::Invalid(format!(
                "unsupported compact protocol version {version}"
            )));
        }
        self.varint()?; // sequence id
        let name_length = self.varint()?;
        let name_length = self.check_length("method name", name_length, METHOD_NAME_BYTES_MAX)?;
        self.skip(name_length)?;
        self.compact_struct(1)
    }

    /// Reads a varint of at most 10 bytes and returns it as a non-negative i64 when it fits.
    fn varint(&mut self) -> Result<i64, ReadError> {
        let mut value: u64 = 0;
        for index in 0..VARINT_BYTES_MAX {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7f) << (7 * index);
            if byte & 0x80 == 0 {
                return Ok(value.min(i64::MAX as u64) as i64);
            }
        }
        Err(ReadError::Invalid("varint longer than 10 bytes".into()))
    }

    fn compact_struct(&mut self, depth: usize) -> Result<(), ReadError> {
        self.check_depth(depth)?;
        loop {
            let header = self.byte()?;
            if header == 0 {
                return Ok(());
            }
            if header >> 4 == 0 {
                self.varint()?; // a field id too far from the previous one for a delta
            }
            self.compact_value(header & 0x0f, depth, true)?;
        }
    }

    fn compact_value(
        &mut self,
        value_type: u8,
        depth: usize,
        in_field: bool,
    ) -> Result<(), ReadError> {
        match value_type {
            // In a field header the boolean is the type itself; in a container it is a byte.
            C_BOOL_TRUE | C_BOOL_FALSE if in_field => Ok(()),
            C_BOOL_TRUE | C_BOOL_FALSE | C_BYTE => self.skip(1),
            C_I16 | C_I32 | C_I64 => self.varint().map(drop),
            C_DOUBLE => self.skip(8),
            C_UUID => self.skip(16),
            C_BINARY => {
                let length = self.varint()?;
                let length = self.check_length("string", length, self.limits.string_bytes_max)?;
                self.skip(length)
            }
            C_STRUCT => self.compact_struct(depth + 1),
            C_LIST | C_SET => {
                self.check_depth(depth + 1)?;
                let header = self.byte()?;
                let mut count = i64::from(header >> 4);
                if count == 15 {
                    count = self.varint()?;
                }
                let count = self.check_length("list", count, self.limits.container_elements_max)?;
                for _ in 0..count {
                    self.compact_value(header & 0x0f, depth + 1, false)?;
                }
                Ok(())
            }
            C_MAP => {
                self.check_depth(depth + 1)?;
                let count = self.varint()?;
                let count = self.check_length("map", count, self.limits.container_elements_max)?;
                if count == 0 {
                    return Ok(());
                }
                let types = self.byte()?;
                for _ in 0..count {
                    self.compact_value(types >> 4, depth + 1, false)?;
                    self.compact_value(types & 0x0f, depth + 1, false)?;
                }
                Ok(())
            }
            other => Err(ReadError::Invalid(format!(
                "unknown compact type code {other}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::{Protocol, Transport, WireFormat};

    const FRAMED: WireFormat = WireFormat {
        transport: Transport::Framed,
        protocol: Protocol::Binary,
    };

    fn frame(payload_bytes: usize) -> Vec<u8> {
        let mut frame = (payload_bytes as i32).to_be_bytes().to_vec();
        frame.resize(4 + payload_bytes, 7);
        frame
    }

    #[test]
    fn a_message_past_the_inflight_budget_is_refused_and_others_are_read() {
        let limits = Limits {
            message_bytes_max: 1 << 20,
            inflight_bytes_max: 1 << 20,
            ..Limits::default()
        };
        let budget = Arc::new(InflightBytes::default());
        // Another connection holds most of the budget.
        assert!(budget.try_take(900 << 10, limits.inflight_bytes_max));
        let big = frame(600 << 10);
        let mut reader = MessageReader::new(&big[..]).with_budget(Arc::clone(&budget));
        let error = reader.read_message(FRAMED, &limits).unwrap_err();
        assert!(matches!(error, ReadError::OverBudget { .. }), "{error:?}");
        assert!(error.to_string().contains("max_inflight_bytes"), "{error}");
        drop(reader);
        assert_eq!(budget.used(), 900 << 10);

        let small = frame(10 << 10);
        let mut reader = MessageReader::new(&small[..]).with_budget(Arc::clone(&budget));
        assert_eq!(
            reader.read_message(FRAMED, &limits).unwrap().len(),
            10 << 10
        );

        budget.give_back(900 << 10);
        let mut stream = frame(600 << 10);
        stream.extend_from_slice(&frame(5));
        let mut reader = MessageReader::new(&stream[..]).with_budget(Arc::clone(&budget));
        assert_eq!(
            reader.read_message(FRAMED, &limits).unwrap().len(),
            600 << 10
        );
        assert!(budget.used() > 0, "the big message's buffer holds budget");
        assert_eq!(reader.read_message(FRAMED, &limits).unwrap().len(), 5);
        assert_eq!(
            budget.used(),
            0,
            "given back once the big message was handed out"
        );
        assert_eq!(reader.buffer_bytes(), READ_BYTES_MIN);
    }

    #[test]
    fn pushed_bytes_are_walked_without_reading_and_an_idle_reader_holds_no_buffer() {
        let limits = Limits::default();
        let mut stream = frame(100);
        stream.extend_from_slice(&frame(3)[..5]);
        let nothing: &[u8] = &[];
        let mut reader = MessageReader::unbuffered(nothing);
        assert_eq!(reader.buffer_bytes(), 0);
        reader.push(&stream[..50]);
        assert!(!reader.holds_whole_message(FRAMED, &limits).unwrap());
        reader.push(&stream[50..]);
        assert!(reader.holds_whole_message(FRAMED, &limits).unwrap());
        assert_eq!(reader.read_message(FRAMED, &limits).unwrap().len(), 100);
        assert!(!reader.holds_whole_message(FRAMED, &limits).unwrap());
        reader.release_idle_buffer();
        assert!(
            reader.buffer_bytes() > 0,
            "a started message keeps its bytes"
        );
        reader.push(&frame(3)[5..]);
        assert_eq!(reader.read_message(FRAMED, &limits).unwrap().len(), 3);
        reader.release_idle_buffer();
        assert_eq!(reader.buffer_bytes(), 0);
        let past_the_limit = (limits.message_bytes_max as i32 + 1).to_be_bytes();
        reader.push(&past_the_limit);
        assert!(matches!(
            reader.holds_whole_message(FRAMED, &limits),
            Err(ReadError::Invalid(_))
        ));
    }
}
