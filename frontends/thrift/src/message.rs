//! Reads exactly one whole Thrift message off a connection, within the limits, before anything
//! decodes it.
//!
//! A framed message announces its length. An unframed one does not, so its structure is walked
//! here — header, then every field, value and container — checking each length against
//! [`Limits`] before reading it, and copying the bytes aside. Decoding then runs over a
//! complete, bounded buffer: a bad message can cost its connection, never the server's memory,
//! and a call the server does not know is skipped whole, so the stream stays in step.

use std::io::{self, BufRead, Read};

use crate::detect::{Protocol, Transport, WireFormat, BINARY_VERSION_HIGH, BINARY_VERSION_LOW};
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
}

/// Reads one message into `message` (cleared first).
pub fn read_message<R: BufRead>(
    reader: &mut R,
    format: WireFormat,
    limits: &Limits,
    message: &mut Vec<u8>,
) -> Result<(), ReadError> {
    message.clear();
    match format.transport {
        Transport::Framed => read_frame(reader, limits, message),
        Transport::Buffered => {
            let mut scanner = Scanner {
                reader,
                out: message,
                limits,
            };
            match format.protocol {
                Protocol::Binary => scanner.binary_message(),
                Protocol::Compact => scanner.compact_message(),
            }
        }
    }
}

fn read_frame<R: Read>(
    reader: &mut R,
    limits: &Limits,
    message: &mut Vec<u8>,
) -> Result<(), ReadError> {
    let mut length_bytes = [0u8; 4];
    read_first(reader, &mut length_bytes)?;
    let length = i32::from_be_bytes(length_bytes);
    if length <= 0 || length as usize > limits.message_bytes_max {
        return Err(ReadError::Invalid(format!(
            "frame length {length} is outside 1..={} bytes",
            limits.message_bytes_max
        )));
    }
    // Grow with what arrives rather than trusting the announced length up front.
    let wanted = length as u64;
    let got = reader.take(wanted).read_to_end(message)?;
    if got as u64 != wanted {
        return Err(ReadError::Truncated);
    }
    Ok(())
}

/// Fills `buffer`; a clean end of stream before the first byte is [`ReadError::Closed`].
fn read_first<R: Read>(reader: &mut R, buffer: &mut [u8]) -> Result<(), ReadError> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) if filled == 0 => return Err(ReadError::Closed),
            Ok(0) => return Err(ReadError::Truncated),
            Ok(count) => filled += count,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error.into()),
        }
    }
    Ok(())
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

/// Below this size a value is read in one go; above it, as it arrives.
const EAGER_READ_BYTES_MAX: usize = 64 * 1024;

struct Scanner<'a, R> {
    reader: &'a mut R,
    out: &'a mut Vec<u8>,
    limits: &'a Limits,
}

impl<R: BufRead> Scanner<'_, R> {
    /// Copies the next `count` bytes of the stream into the message and returns where they start.
    fn take(&mut self, count: usize) -> Result<usize, ReadError> {
        let start = self.out.len();
        if start + count > self.limits.message_bytes_max {
            return Err(ReadError::Invalid(format!(
                "message exceeds the limit of {} bytes",
                self.limits.message_bytes_max
            )));
        }
        if count == 0 {
            // Asking the reader would wait for bytes of the next message.
            return Ok(start);
        }
        // Most values sit whole in the reader's buffer: copied from there in one go, without
        // zeroing room for them first.
        // A failed fill is left to the reads below, which retry interruptions and name errors.
        if let Ok(buffered) = self.reader.fill_buf() {
            if buffered.len() >= count {
                self.out.extend_from_slice(&buffered[..count]);
                self.reader.consume(count);
                return Ok(start);
            }
        }
        if count <= EAGER_READ_BYTES_MAX {
            self.out.resize(start + count, 0);
            return match self.reader.read_exact(&mut self.out[start..]) {
                Ok(()) => Ok(start),
                Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => {
                    Err(ReadError::Truncated)
                }
                Err(error) => Err(error.into()),
            };
        }
        let got = (&mut *self.reader)
            .take(count as u64)
            .read_to_end(self.out)?;
        if got != count {
            return Err(ReadError::Truncated);
        }
        Ok(start)
    }

    fn byte(&mut self) -> Result<u8, ReadError> {
        let at = self.take(1)?;
        Ok(self.out[at])
    }

    fn i32_be(&mut self) -> Result<i32, ReadError> {
        let at = self.take(4)?;
        let bytes = &self.out[at..at + 4];
        Ok(i32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    fn first_bytes<const N: usize>(&mut self) -> Result<[u8; N], ReadError> {
        let mut bytes = [0u8; N];
        read_first(self.reader, &mut bytes)?;
        if self.out.len() + N > self.limits.message_bytes_max {
            return Err(ReadError::Invalid("message limit too small".into()));
        }
        self.out.extend_from_slice(&bytes);
        Ok(bytes)
    }

    fn check_length(&self, what: &str, length: i64, max: usize) -> Result<usize, ReadError> {
        if length < 0 || length as u64 > max as u64 {
            return Err(ReadError::Invalid(format!(
                "{what} length {length} is outside 0..={max}"
            )));
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

    fn binary_message(&mut self) -> Result<(), ReadError> {
        let head: [u8; 4] = self.first_bytes()?;
        if head[0] & 0x80 != 0 {
            if head[0] != BINARY_VERSION_HIGH || head[1] != BINARY_VERSION_LOW {
                return Err(ReadError::Invalid(format!(
                    "bad binary protocol version {:02x?}",
                    &head[..2]
                )));
            }
            let name_length = self.i32_be()?;
            let name_length =
                self.check_length("method name", name_length.into(), METHOD_NAME_BYTES_MAX)?;
            self.take(name_length)?;
        } else {
            let name_length = i32::from_be_bytes(head);
            let name_length =
                self.check_length("method name", name_length.into(), METHOD_NAME_BYTES_MAX)?;
            self.take(name_length + 1)?; // the name, then the message type
        }
        self.take(4)?; // sequence id
        self.binary_value(T_STRUCT, 0)
    }

    fn binary_value(&mut self, value_type: u8, depth: usize) -> Result<(), ReadError> {
        match value_type {
            T_BOOL | T_BYTE => self.take(1).map(drop),
            T_I16 => self.take(2).map(drop),
            T_I32 => self.take(4).map(drop),
            T_I64 | T_DOUBLE => self.take(8).map(drop),
            T_UUID => self.take(16).map(drop),
            T_STRING => {
                let length = self.i32_be()?;
                let length =
                    self.check_length("string", length.into(), self.limits.string_bytes_max)?;
                self.take(length).map(drop)
            }
            T_STRUCT => self.binary_struct(depth + 1),
            T_MAP => {
                self.check_depth(depth + 1)?;
                let key_type = self.byte()?;
                let value_type = self.byte()?;
                let count = self.binary_count("map")?;
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
                for _ in 0..count {
                    self.binary_value(element_type, depth + 1)?;
                }
                Ok(())
            }
            other => Err(ReadError::Invalid(format!(
                "unknown binary type code {other}"
            ))),
        }
    }

    fn binary_struct(&mut self, depth: usize) -> Result<(), ReadError> {
        self.check_depth(depth)?;
        loop {
            let field_type = self.byte()?;
            if field_type == T_STOP {
                return Ok(());
            }
            self.take(2)?; // field id
            self.binary_value(field_type, depth)?;
        }
    }

    fn binary_count(&mut self, what: &str) -> Result<usize, ReadError> {
        let count = self.i32_be()?;
        self.check_length(what, count.into(), self.limits.container_elements_max)
    }

    fn compact_message(&mut self) -> Result<(), ReadError> {
        let head: [u8; 2] = self.first_bytes()?;
        if head[1] & COMPACT_VERSION_MASK != COMPACT_VERSION {
            return Err(ReadError::Invalid(format!(
                "unsupported compact protocol version {}",
                head[1] & COMPACT_VERSION_MASK
            )));
        }
        self.varint()?; // sequence id
        let name_length = self.varint()?;
        let name_length = self.check_length("method name", name_length, METHOD_NAME_BYTES_MAX)?;
        self.take(name_length)?;
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
            C_BOOL_TRUE | C_BOOL_FALSE | C_BYTE => self.take(1).map(drop),
            C_I16 | C_I32 | C_I64 => self.varint().map(drop),
            C_DOUBLE => self.take(8).map(drop),
            C_UUID => self.take(16).map(drop),
            C_BINARY => {
                let length = self.varint()?;
                let length = self.check_length("string", length, self.limits.string_bytes_max)?;
                self.take(length).map(drop)
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
