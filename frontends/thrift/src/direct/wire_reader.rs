//! Reading binary-protocol values by index over a message in memory: no reader object per
//! value, no copy but the strings kept.
//!
//! Anything this reader does not expect is [`Unusual`]: the caller then leaves the message to
//! the generated decoder, which reads it as it always did (and fails where it always failed).
//! A message may also be read as it arrives ([`Pass`]): a read that runs past the bytes that
//! arrived waits for more and reads its unit (a field, a partition) again.

use std::collections::BTreeMap;

use crate::limits::Limits;
use crate::message::{Arriving, ReadError};

/// The message holds something this reader leaves to the generated decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unusual;

/// What a read gives: the value, or [`Unusual`].
pub(crate) type Read<T> = Result<T, Unusual>;

// Type codes of the binary protocol.
pub(crate) const T_STOP: u8 = 0;
pub(crate) const T_BOOL: u8 = 2;
pub(crate) const T_I32: u8 = 8;
pub(crate) const T_I64: u8 = 10;
pub(crate) const T_STRING: u8 = 11;
pub(crate) const T_STRUCT: u8 = 12;
pub(crate) const T_MAP: u8 = 13;
pub(crate) const T_LIST: u8 = 15;

/// Elements reserved ahead for a list, at most: a count is bounded by the message's bytes,
/// but one byte on the wire can become hundreds in memory, so bigger lists grow as they are read.
pub(crate) const RESERVED_ELEMENTS_MAX: usize = 1024;

/// The bounds a reader of arriving bytes checks lengths against, as the message walk does for
/// whole messages (`message.rs`); a whole message was walked within them already.
#[derive(Clone, Copy)]
pub(crate) struct WireLimits {
    string_bytes_max: usize,
    container_elements_max: usize,
}

impl WireLimits {
    /// No bounds but the bytes: for a whole message, already walked within the limits.
    pub(crate) const WHOLE: WireLimits = WireLimits {
        string_bytes_max: usize::MAX,
        container_elements_max: usize::MAX,
    };

    /// The server's limits.
    pub(crate) fn of(limits: &Limits) -> WireLimits {
        WireLimits {
            string_bytes_max: limits.string_bytes_max,
            container_elements_max: limits.container_elements_max,
        }
    }
}

/// A position in a binary-protocol message.
pub(crate) struct WireReader<'a> {
    bytes: &'a [u8],
    at: usize,
    limits: WireLimits,
    /// A read needed bytes past the end of `bytes`.
    ran_out: bool,
}

impl<'a> WireReader<'a> {
    /// A reader of `bytes`, the start of a message, from `at`.
    pub(crate) fn at(bytes: &'a [u8], at: usize, limits: WireLimits) -> Self {
        WireReader {
            bytes,
            at,
            limits,
            ran_out: false,
        }
    }

    /// Where the reader is, in bytes from the start.
    pub(crate) fn position(&self) -> usize {
        self.at
    }

    /// All the bytes read over, from the start.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The bounds this reader checks lengths against.
    pub(crate) fn limits(&self) -> WireLimits {
        self.limits
    }

    /// Whether a read failed for want of bytes past the end, rather than for what it read.
    pub(crate) fn ran_out(&self) -> bool {
        self.ran_out
    }

    /// Moves on by `count` bytes, which the caller saw are there.
    pub(crate) fn advance(&mut self, count: usize) -> Read<()> {
        self.take(count).map(drop)
    }

    fn take(&mut self, count: usize) -> Read<&'a [u8]> {
        let end = self.at.checked_add(count).ok_or(Unusual)?;
        let Some(taken) = self.bytes.get(self.at..end) else {
            self.ran_out = true;
            return Err(Unusual);
        };
        self.at = end;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self) -> Read<[u8; N]> {
        let taken = self.take(N)?;
        let mut array = [0u8; N];
        array.copy_from_slice(taken);
        Ok(array)
    }

    pub(crate) fn u8(&mut self) -> Read<u8> {
        Ok(self.array::<1>()?[0])
    }

    pub(crate) fn i16(&mut self) -> Read<i16> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    pub(crate) fn i32(&mut self) -> Read<i32> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    pub(crate) fn i64(&mut self) -> Read<i64> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    /// A boolean as the `thrift` crate reads one: any byte but zero is true.
    pub(crate) fn bool(&mut self) -> Read<bool> {
        Ok(self.u8()? != 0)
    }

    /// A string, borrowed; one that is not UTF-8 is unusual (the generated decoder fails it).
    pub(crate) fn str(&mut self) -> Read<&'a str> {
        let length = usize::try_from(self.i32()?).map_err(|_| Unusual)?;
        if length > self.limits.string_bytes_max {
            return Err(Unusual);
        }
        std::str::from_utf8(self.take(length)?).map_err(|_| Unusual)
    }

    pub(crate) fn string(&mut self) -> Read<String> {
        self.str().map(str::to_string)
    }

    /// The next field's type and id, or `None` at the end of the struct.
    pub(crate) fn field(&mut self) -> Read<Option<(u8, i16)>> {
        let field_type = self.u8()?;
        if field_type == T_STOP {
            return Ok(None);
        }
        Ok(Some((field_type, self.i16()?)))
    }

    /// A list header whose elements must be of `element_type`; returns the count, which cannot
    /// exceed the bytes left (every element takes at least one).
    pub(crate) fn list(&mut self, element_type: u8) -> Read<usize> {
        if self.u8()? != element_type {
            return Err(Unusual);
        }
        self.count()
    }

    /// A map header whose keys and values must be of the given types; returns the count.
    pub(crate) fn map(&mut self, key_type: u8, value_type: u8) -> Read<usize> {
        let types = self.array::<2>()?;
        if types != [key_type, value_type] {
            return Err(Unusual);
        }
        self.count()
    }

    /// A container's element count; every element takes a byte at least, so a count past the
    /// bytes left waits for more of an arriving message.
    fn count(&mut self) -> Read<usize> {
        let count = usize::try_from(self.i32()?).map_err(|_| Unusual)?;
        if count > self.limits.container_elements_max {
            return Err(Unusual);
        }
        if count > self.bytes.len() - self.at {
            self.ran_out = true;
            return Err(Unusual);
        }
        Ok(count)
    }

    /// A `list<string>`, borrowed from the message.
    pub(crate) fn strs(&mut self) -> Read<Vec<&'a str>> {
        let count = self.list(T_STRING)?;
        let mut strings = Vec::with_capacity(count.min(RESERVED_ELEMENTS_MAX));
        for _ in 0..count {
            strings.push(self.str()?);
        }
        Ok(strings)
    }

    /// A `list<string>`.
    pub(crate) fn strings(&mut self) -> Read<Vec<String>> {
        let count = self.list(T_STRING)?;
        let mut strings = Vec::with_capacity(count.min(RESERVED_ELEMENTS_MAX));
        for _ in 0..count {
            strings.push(self.string()?);
        }
        Ok(strings)
    }

    /// A `map<string, string>`; a repeated key keeps its last value, as the generated code does.
    pub(crate) fn string_map(&mut self) -> Read<BTreeMap<String, String>> {
        let count = self.map(T_STRING, T_STRING)?;
        let mut map = BTreeMap::new();
        for _ in 0..count {
            let key = self.string()?;
            map.insert(key, self.string()?);
        }
        Ok(map)
    }
}

/// The message type code of a call.
pub(crate) const MESSAGE_CALL: u8 = 1;

/// Reads a binary-protocol message header (strict or old-style): its message type and sequence
/// id. The method name is the caller's to know.
fn header(reader: &mut WireReader<'_>) -> Read<(u8, i32)> {
    let head = reader.i32()?;
    let message_type = if head < 0 {
        // Strict: version and type, then the name.
        let name_length = usize::try_from(reader.i32()?).map_err(|_| Unusual)?;
        reader.advance(name_length)?;
        head.to_be_bytes()[3]
    } else {
        // Old style: the name, then the type.
        let name_length = usize::try_from(head).map_err(|_| Unusual)?;
        reader.advance(name_length)?;
        reader.u8()?
    };
    Ok((message_type, reader.i32()?))
}

/// One pass over a binary-protocol message, as it arrives or whole: each unit of it (the
/// header, a field, a partition) is read from where the last ended, and read again once more
/// bytes arrived when it ran past those that had.
pub(crate) struct Pass<'m> {
    message: &'m mut dyn Arriving,
    at: usize,
    limits: WireLimits,
    /// Why no more bytes came, once that happened: the connection cannot go on.
    broken: Option<ReadError>,
}

impl<'m> Pass<'m> {
    /// A pass over `message` from its first byte, its lengths checked against `limits`.
    pub(crate) fn new(message: &'m mut dyn Arriving, limits: WireLimits) -> Self {
        Pass {
            message,
            at: 0,
            limits,
            broken: None,
        }
    }

    /// Where the pass is: the end of the last unit read, in bytes from the message's start.
    pub(crate) fn position(&self) -> usize {
        self.at
    }

    /// Why the message could not be read to its end, when that was the socket's or the limits'
    /// doing rather than the bytes'.
    pub(crate) fn take_broken(&mut self) -> Option<ReadError> {
        self.broken.take()
    }

    /// Reads the message's header: its message type and sequence id; the arguments follow.
    pub(crate) fn header(&mut self) -> Read<(u8, i32)> {
        self.unit(header)
    }

    /// Reads one unit with `read`, from where the last ended. A unit that ran out of bytes
    /// [`UNIT_READS_MAX`] times is left to the walk: reading it again at each arrival would cost
    /// its size times the arrivals, which a client sending in small fragments would make quadratic.
    pub(crate) fn unit<T>(
        &mut self,
        mut read: impl FnMut(&mut WireReader<'_>) -> Read<T>,
    ) -> Read<T> {
        for _ in 0..UNIT_READS_MAX {
            let mut reader = WireReader::at(self.message.arrived(), self.at, self.limits);
            match read(&mut reader) {
                Ok(value) => {
                    self.at = reader.position();
                    return Ok(value);
                }
                Err(Unusual) if reader.ran_out() => {
                    if let Err(error) = self.message.arrive_more() {
                        self.broken = Some(error);
                        return Err(Unusual);
                    }
                }
                Err(Unusual) => return Err(Unusual),
            }
        }
        Err(Unusual)
    }
}

/// How many times a unit of an arriving message is read before it is left to the walk: a
/// partition of a request arriving by socket reads of 64 KiB nearly always needs one read, two
/// when it straddles one's end.
pub(crate) const UNIT_READS_MAX: usize = 16;
