//! The primitives of Kryo's `Input` (Kryo 4 and 5 write them alike): variable-length
//! integers, zigzag integers, big-endian fixed integers, and strings in Kryo's two forms.
//! Every read checks the bytes left first, so a truncated blob is an error naming what was
//! being read, never a panic; a string or count is bounded by the bytes left.

/// Why a blob could not be read, naming what was being read and where.
pub(crate) type DecodeError = String;

/// A cursor over a blob.
pub(crate) struct KryoInput<'a> {
    bytes: &'a [u8],
    position: usize,
}

impl<'a> KryoInput<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        KryoInput { bytes, position: 0 }
    }

    /// The offset of the next byte.
    pub(crate) fn position(&self) -> usize {
        self.position
    }

    /// The bytes not read yet.
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.position
    }

    pub(crate) fn truncated(&self, what: &str) -> DecodeError {
        format!(
            "the expression ends at byte {} inside {what}",
            self.bytes.len()
        )
    }

    pub(crate) fn byte(&mut self, what: &str) -> Result<u8, DecodeError> {
        let byte = *self
            .bytes
            .get(self.position)
            .ok_or_else(|| self.truncated(what))?;
        self.position += 1;
        Ok(byte)
    }

    fn fixed<const N: usize>(&mut self, what: &str) -> Result<[u8; N], DecodeError> {
        if self.remaining() < N {
            return Err(self.truncated(what));
        }
        let mut out = [0u8; N];
        out.copy_from_slice(&self.bytes[self.position..self.position + N]);
        self.position += N;
        Ok(out)
    }

    /// Kryo's `readVarInt(true)`: up to five groups of seven bits, low group first.
    pub(crate) fn var_u32(&mut self, what: &str) -> Result<u32, DecodeError> {
        let mut result: u32 = 0;
        for group in 0..5u32 {
            let byte = self.byte(what)?;
            if group == 4 {
                return Ok(result | (u32::from(byte) << 28));
            }
            result |= u32::from(byte & 0x7F) << (7 * group);
            if byte & 0x80 == 0 {
                return Ok(result);
            }
        }
        unreachable!("the fifth group returns")
    }

    /// Kryo's `readVarLong(true)`: up to nine groups, the ninth of eight bits.
    pub(crate) fn var_u64(&mut self, what: &str) -> Result<u64, DecodeError> {
        let mut result: u64 = 0;
        for group in 0..9u32 {
            let byte = self.byte(what)?;
            if group == 8 {
                return Ok(result | (u64::from(byte) << 56));
            }
            result |= u64::from(byte & 0x7F) << (7 * group);
            if byte & 0x80 == 0 {
                return Ok(result);
            }
        }
        unreachable!("the ninth group returns")
    }

    /// `readVarInt(false)`: a zigzag-encoded signed integer.
    pub(crate) fn zigzag_i32(&mut self, what: &str) -> Result<i32, DecodeError> {
        let raw = self.var_u32(what)?;
        Ok(((raw >> 1) as i32) ^ -((raw & 1) as i32))
    }

    /// `readVarLong(false)`: a zigzag-encoded signed long.
    pub(crate) fn zigzag_i64(&mut self, what: &str) -> Result<i64, DecodeError> {
        let raw = self.var_u64(what)?;
        Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64))
    }

    /// `readLong()`: eight bytes, big-endian.
    pub(crate) fn fixed_i64(&mut self, what: &str) -> Result<i64, DecodeError> {
        Ok(i64::from_be_bytes(self.fixed::<8>(what)?))
    }

    /// `readInt()`: four bytes, big-endian.
    pub(crate) fn fixed_i32(&mut self, what: &str) -> Result<i32, DecodeError> {
        Ok(i32::from_be_bytes(self.fixed::<4>(what)?))
    }

    /// `readShort()`: two bytes, big-endian.
    pub(crate) fn fixed_i16(&mut self, what: &str) -> Result<i16, DecodeError> {
        Ok(i16::from_be_bytes(self.fixed::<2>(what)?))
    }

    /// `readBytes(n)`, `n` checked against the bytes left.
    pub(crate) fn bytes(&mut self, count: usize, what: &str) -> Result<&'a [u8], DecodeError> {
        if self.remaining() < count {
            return Err(self.truncated(what));
        }
        let slice = &self.bytes[self.position..self.position + count];
        self.position += count;
        Ok(slice)
    }

    /// A count of items of at least one byte each, checked against the bytes left.
    pub(crate) fn count(&mut self, what: &str) -> Result<usize, DecodeError> {
        let count = self.var_u32(what)? as usize;
        if count > self.remaining() {
            return Err(format!(
                "{what} at byte {} claims {count} items but only {} bytes follow",
                self.position,
                self.remaining()
            ));
        }
        Ok(count)
    }

    /// `readString()`: `None` for Java's null. Two forms: ASCII bytes whose last has its
    /// high bit set, or (first byte's high bit set) a length of characters plus one, then the
    /// characters as UTF-16 units in one to three bytes each.
    pub(crate) fn string(&mut self, what: &str) -> Result<Option<String>, DecodeError> {
        let first = self.byte(what)?;
        if first & 0x80 == 0 {
            return self.ascii(first, what).map(Some);
        }
        let length = self.utf8_length(first, what)?;
        match length {
            0 => Ok(None),
            1 => Ok(Some(String::new())),
            _ => self.utf16_units(length - 1, what).map(Some),
        }
    }

    fn ascii(&mut self, first: u8, what: &str) -> Result<String, DecodeError> {
        let mut text = String::new();
        text.push(char::from(first));
        loop {
            let byte = self.byte(what)?;
            text.push(char::from(byte & 0x7F));
            if byte & 0x80 != 0 {
                return Ok(text);
            }
        }
    }

    /// The length of the second form: six bits, then up to four groups of seven.
    fn utf8_length(&mut self, first: u8, what: &str) -> Result<usize, DecodeError> {
        let mut length = u32::from(first & 0x3F);
        if first & 0x40 == 0 {
            return Ok(length as usize);
        }
        for (group, shift) in [6u32, 13, 20, 27].into_iter().enumerate() {
            let byte = self.byte(what)?;
            length |= u32::from(byte & 0x7F) << shift;
            if byte & 0x80 == 0 || group == 3 {
                break;
            }
        }
        let length = length as usize;
        if length > self.remaining() + 1 {
            return Err(format!(
                "{what} at byte {} claims {} characters but only {} bytes follow",
                self.position,
                length.saturating_sub(1),
                self.remaining()
            ));
        }
        Ok(length)
    }

    fn utf16_units(&mut self, count: usize, what: &str) -> Result<String, DecodeError> {
        let mut units = Vec::with_capacity(count);
        for _ in 0..count {
            let byte = self.byte(what)?;
            let unit = match byte >> 4 {
                0..=7 => u16::from(byte),
                12 | 13 => {
                    let second = self.byte(what)?;
                    (u16::from(byte & 0x1F) << 6) | u16::from(second & 0x3F)
                }
                14 => {
                    let second = self.byte(what)?;
                    let third = self.byte(what)?;
                    (u16::from(byte & 0x0F) << 12)
                        | (u16::from(second & 0x3F) << 6)
                        | u16::from(third & 0x3F)
                }
                _ => {
                    return Err(format!(
                        "{what} holds byte {byte:#04x} at {}, which starts no character",
                        self.position - 1
                    ))
                }
            };
            units.push(unit);
        }
        String::from_utf16(&units).map_err(|_| {
            format!(
                "{what} ending at byte {} holds a lone surrogate",
                self.position
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_read_low_groups_first() {
        assert_eq!(KryoInput::new(&[0x7F]).var_u32("n"), Ok(127));
        assert_eq!(KryoInput::new(&[0x80, 0x01]).var_u32("n"), Ok(128));
        assert_eq!(KryoInput::new(&[0x0e]).zigzag_i32("n"), Ok(7));
        assert_eq!(KryoInput::new(&[0x0d]).zigzag_i64("n"), Ok(-7));
        assert!(KryoInput::new(&[0x80]).var_u32("n").is_err());
    }

    #[test]
    fn strings_read_in_both_forms() {
        // "ds" in the ASCII form, "t" and "" and null in the length form.
        assert_eq!(
            KryoInput::new(&[0x64, 0xf3]).string("s"),
            Ok(Some("ds".into()))
        );
        assert_eq!(
            KryoInput::new(&[0x82, 0x74]).string("s"),
            Ok(Some("t".into()))
        );
        assert_eq!(KryoInput::new(&[0x81]).string("s"), Ok(Some(String::new())));
        assert_eq!(KryoInput::new(&[0x80]).string("s"), Ok(None));
        // "é" as a two-byte unit.
        assert_eq!(
            KryoInput::new(&[0x82, 0xc3, 0xa9]).string("s"),
            Ok(Some("é".into()))
        );
        // A length beyond the blob is refused before anything is allocated.
        let error = KryoInput::new(&[0xff, 0xff, 0xff, 0xff, 0x7f])
            .string("s")
            .unwrap_err();
        assert!(error.contains("claims"), "{error}");
    }
}
