//! Reading binary-protocol values by index over a whole message already in memory: no reader
//! object per value, no copy but the strings kept.
//!
//! Anything this reader does not expect is [`Unusual`]: the caller then leaves the message to
//! the generated decoder, which reads it as it always did (and fails where it always failed).

use std::collections::BTreeMap;

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

/// A position in a binary-protocol message.
pub(crate) struct WireReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> WireReader<'a> {
    /// A reader of `bytes` from their start.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        WireReader { bytes, at: 0 }
    }

    /// Where the reader is, in bytes from the start.
    pub(crate) fn position(&self) -> usize {
        self.at
    }

    /// The bytes from `from` to where the reader is.
    pub(crate) fn since(&self, from: usize) -> &'a [u8] {
        &self.bytes[from..self.at]
    }

    /// The bytes from where the reader is to the end.
    pub(crate) fn rest(&self) -> &'a [u8] {
        &self.bytes[self.at..]
    }

    /// Moves on by `count` bytes, which the caller saw are there.
    pub(crate) fn advance(&mut self, count: usize) -> Read<()> {
        self.take(count).map(drop)
    }

    fn take(&mut self, count: usize) -> Read<&'a [u8]> {
        let end = self.at.checked_add(count).ok_or(Unusual)?;
        let taken = self.bytes.get(self.at..end).ok_or(Unusual)?;
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

    fn count(&mut self) -> Read<usize> {
        let count = usize::try_from(self.i32()?).map_err(|_| Unusual)?;
        if count > self.bytes.len() - self.at {
            return Err(Unusual);
        }
        Ok(count)
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

/// Where a binary-protocol call's argument struct starts in `message`, past its header (strict
/// or not).
pub(crate) fn arguments_start(message: &[u8]) -> Read<usize> {
    let mut reader = WireReader::new(message);
    let head = reader.i32()?;
    if head < 0 {
        // Strict: version and type, then the name.
        let name_length = usize::try_from(reader.i32()?).map_err(|_| Unusual)?;
        reader.advance(name_length)?;
    } else {
        // Old style: the name, then the type.
        let name_length = usize::try_from(head).map_err(|_| Unusual)?;
        reader.advance(name_length + 1)?;
    }
    reader.advance(4)?; // sequence id
    Ok(reader.position())
}
