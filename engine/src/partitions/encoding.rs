//! One partition's encoding as a frontend's sink writes it: the bytes that are its own, and
//! pieces that many partitions share (a storage descriptor's, the same for every partition
//! that uses it), spliced in by key rather than copied into each partition's bytes.
//!
//! Kept encodings (`kept_encodings.rs`) hold the own bytes per partition and each shared
//! piece once, so a partition of 20 columns keeps some 270 bytes instead of 1.15 KB; a reply
//! is stitched from both ([`EncodedPartition::for_each_piece`]) without building anything.
//!
//! A record (the own bytes of one partition and where its pieces go) is laid out as
//! `own bytes | (at: u32, piece: u32) per splice | splice count: u16`, little-endian, `at`
//! counted from the start of the own bytes and ascending, `piece` an index into the
//! [`SharedPieces`] the record was made with. The table sits at the end so that a sink can
//! write the own bytes first and the record is sealed after it.

use std::collections::HashMap;
use std::ops::Range;

use crate::error::{Error, Result};

/// Names a piece of encoding that many partitions share: which object (a storage
/// descriptor's id, say) and which part of its encoding. Within one listing a key must name
/// the same bytes; kept pieces are compared when they are reused in later listings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PieceKey {
    /// The object the piece encodes.
    pub object: u64,
    /// Which of the object's pieces.
    pub part: u32,
}

/// Bytes of one splice in a record's table: `at` and `piece`, each a `u32`.
const SPLICE_BYTES: usize = 8;
/// Bytes of a record's splice count.
const COUNT_BYTES: usize = 2;
/// Pieces looked for one by one rather than by hash, at most.
const SCAN_PIECES_MAX: usize = 8;

/// Distinct shared pieces, each once, by key.
#[derive(Default)]
pub(crate) struct SharedPieces {
    index: HashMap<PieceKey, u32>,
    pieces: Vec<(PieceKey, Box<[u8]>)>,
}

/// Memory one kept piece takes besides its bytes: its entry and its key's in the index.
pub(crate) const PIECE_OVERHEAD_BYTES: usize =
    std::mem::size_of::<(PieceKey, Box<[u8]>)>() + std::mem::size_of::<(PieceKey, u32)>();

impl SharedPieces {
    /// The index of the piece of `key`, if there is one.
    pub(crate) fn find(&self, key: &PieceKey) -> Option<u32> {
        // A listing has a descriptor or two: a look along them beats hashing the key.
        if self.pieces.len() <= SCAN_PIECES_MAX {
            let found = self.pieces.iter().position(|(kept, _)| kept == key);
            return found.map(|index| index as u32);
        }
        self.index.get(key).copied()
    }

    /// Adds `bytes` as the piece of `key` (which must not be here yet): its index.
    pub(crate) fn add(&mut self, key: PieceKey, bytes: &[u8]) -> Result<u32> {
        let index = u32::try_from(self.pieces.len())
            .map_err(|_| Error::Internal("more than 2^32 shared pieces".into()))?;
        self.pieces.push((key, bytes.into()));
        self.index.insert(key, index);
        Ok(index)
    }

    /// The key and bytes of piece `index`.
    pub(crate) fn get(&self, index: u32) -> Option<(&PieceKey, &[u8])> {
        let (key, bytes) = self.pieces.get(index as usize)?;
        Some((key, bytes))
    }

    #[cfg(test)]
    pub(crate) fn pieces_len(&self) -> usize {
        self.pieces.len()
    }
}

/// Where a sink records that a shared piece goes at a place in the bytes it writes.
pub struct Splicer<'e> {
    start: usize,
    splices: &'e mut Vec<(u32, u32)>,
    pieces: &'e mut SharedPieces,
    failure: &'e mut Option<String>,
}

impl Splicer<'_> {
    /// The piece `bytes` of `key` goes where the sink's bytes are `at` long (their length
    /// when it would have copied the piece). Places must not go back.
    pub fn splice(&mut self, at: usize, key: PieceKey, bytes: &[u8]) {
        let piece = match self.pieces.find(&key) {
            Some(piece) => Ok(piece),
            None => self.pieces.add(key, bytes),
        };
        let at = at
            .checked_sub(self.start)
            .and_then(|at| u32::try_from(at).ok());
        match (at, piece) {
            (Some(at), Ok(piece)) => self.splices.push((at, piece)),
            (None, _) => {
                *self.failure = Some(format!("a piece spliced at {at:?}, before its partition"))
            }
            (_, Err(error)) => *self.failure = Some(error.to_string()),
        }
    }
}

/// What a sink writes one partition's encoding into: its own bytes, appended to
/// [`EncodingOut::parts`]'s vector, and the places of shared pieces, told to its splicer.
pub struct EncodingOut<'e> {
    bytes: &'e mut Vec<u8>,
    splicer: Splicer<'e>,
}

impl<'e> EncodingOut<'e> {
    /// The vector to append the partition's own bytes to, and the splicer of its pieces.
    pub fn parts(self) -> (&'e mut Vec<u8>, Splicer<'e>) {
        (self.bytes, self.splicer)
    }
}

/// Records made in one call, and the shared pieces they splice.
#[derive(Default)]
pub(crate) struct FreshEncodings {
    bytes: Vec<u8>,
    pieces: SharedPieces,
    splices: Vec<(u32, u32)>,
}

impl FreshEncodings {
    /// Bytes of the records so far.
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Drops the records from `start` on (their pieces stay).
    pub(crate) fn truncate(&mut self, start: usize) {
        self.bytes.truncate(start);
    }

    /// Has `encode` write one partition, and seals its record: where it is.
    pub(crate) fn record(
        &mut self,
        encode: impl FnOnce(EncodingOut<'_>) -> Result<()>,
    ) -> Result<Range<usize>> {
        let start = self.bytes.len();
        self.splices.clear();
        let mut failure = None;
        let out = EncodingOut {
            bytes: &mut self.bytes,
            splicer: Splicer {
                start,
                splices: &mut self.splices,
                pieces: &mut self.pieces,
                failure: &mut failure,
            },
        };
        encode(out)?;
        if let Some(failure) = failure {
            return Err(Error::Internal(format!("encoding a partition: {failure}")));
        }
        seal(&mut self.bytes, start, &self.splices)?;
        Ok(start..self.bytes.len())
    }

    /// The record at `range` (made by [`FreshEncodings::record`]) with its pieces.
    pub(crate) fn get(&self, range: Range<usize>) -> Result<EncodedPartition<'_>> {
        let record = self
            .bytes
            .get(range)
            .ok_or_else(|| Error::Internal("a fresh record out of range".into()))?;
        EncodedPartition::new(record, &self.pieces)
    }

    pub(crate) fn pieces(&self) -> &SharedPieces {
        &self.pieces
    }
}

/// Appends the splice table of the record begun at `start` in `bytes`.
fn seal(bytes: &mut Vec<u8>, start: usize, splices: &[(u32, u32)]) -> Result<()> {
    let own_len = bytes.len() - start;
    let ascending = splices.windows(2).all(|pair| pair[0].0 <= pair[1].0);
    let inside = splices.iter().all(|(at, _)| *at as usize <= own_len);
    let count = u16::try_from(splices.len())
        .ok()
        .filter(|_| ascending && inside);
    let count = count.ok_or_else(|| {
        Error::Internal(format!(
            "a partition's {} splices are out of order, past its {own_len} bytes or too many",
            splices.len()
        ))
    })?;
    for (at, piece) in splices {
        bytes.extend_from_slice(&at.to_le_bytes());
        bytes.extend_from_slice(&piece.to_le_bytes());
    }
    bytes.extend_from_slice(&count.to_le_bytes());
    Ok(())
}

/// Copies `record` (made with `from`'s pieces) to `out`, its piece indexes turned into those
/// of `to` by `map`; false (and nothing written) when `map` has no index for one.
pub(crate) fn copy_record(
    record: &EncodedPartition<'_>,
    out: &mut Vec<u8>,
    mut map: impl FnMut(u32) -> Option<u32>,
) -> bool {
    let mut mapped = [(0u32, 0u32); 8];
    let count = record.splice_count();
    if count > mapped.len() {
        return false;
    }
    for (index, mapped_piece) in mapped.iter_mut().take(count).enumerate() {
        let (at, piece) = record.splice(index);
        let Some(piece) = map(piece) else {
            return false;
        };
        *mapped_piece = (at, piece);
    }
    let start = out.len();
    out.extend_from_slice(record.own);
    // Cannot fail: the record's table was checked when it was read.
    seal(out, start, &mapped[..count]).is_ok()
}

/// One partition's encoding: its own bytes, and the shared pieces spliced into them.
pub struct EncodedPartition<'a> {
    own: &'a [u8],
    table: &'a [u8],
    pieces: &'a SharedPieces,
}

impl<'a> EncodedPartition<'a> {
    /// Reads `record`, checking its table against its length and `pieces`.
    pub(crate) fn new(record: &'a [u8], pieces: &'a SharedPieces) -> Result<Self> {
        let broken = || {
            let len = record.len();
            Error::Internal(format!("a kept partition record of {len} bytes is broken"))
        };
        let count_at = record.len().checked_sub(COUNT_BYTES).ok_or_else(broken)?;
        let count = u16::from_le_bytes([record[count_at], record[count_at + 1]]) as usize;
        let table_at = count_at
            .checked_sub(count * SPLICE_BYTES)
            .ok_or_else(broken)?;
        let encoded = EncodedPartition {
            own: &record[..table_at],
            table: &record[table_at..count_at],
            pieces,
        };
        let mut previous = 0;
        for index in 0..count {
            let (at, piece) = encoded.splice(index);
            if at < previous || at as usize > table_at || piece as usize >= pieces.pieces.len() {
                return Err(broken());
            }
            previous = at;
        }
        Ok(encoded)
    }

    fn splice_count(&self) -> usize {
        self.table.len() / SPLICE_BYTES
    }

    #[inline]
    fn splice(&self, index: usize) -> (u32, u32) {
        let entry = &self.table[index * SPLICE_BYTES..(index + 1) * SPLICE_BYTES];
        let at = u32::from_le_bytes([entry[0], entry[1], entry[2], entry[3]]);
        let piece = u32::from_le_bytes([entry[4], entry[5], entry[6], entry[7]]);
        (at, piece)
    }

    /// The whole encoding's length in bytes.
    pub fn len(&self) -> usize {
        let spliced: usize = (0..self.splice_count())
            .map(|index| self.pieces.pieces[self.splice(index).1 as usize].1.len())
            .sum();
        self.own.len() + spliced
    }

    /// Whether the encoding is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Hands `write` the encoding's bytes piece by piece: own bytes and shared pieces in
    /// turn (some of the own bytes' pieces may be empty).
    #[inline]
    pub fn for_each_piece(&self, mut write: impl FnMut(&[u8])) {
        let mut from = 0;
        for index in 0..self.splice_count() {
            let (at, piece) = self.splice(index);
            // Checked when the record was read: places ascend within the own bytes.
            write(&self.own[from..at as usize]);
            write(&self.pieces.pieces[piece as usize].1);
            from = at as usize;
        }
        write(&self.own[from..]);
    }

    /// The whole encoding, copied.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut whole = Vec::with_capacity(self.len());
        self.for_each_piece(|piece| whole.extend_from_slice(piece));
        whole
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(part: u32) -> PieceKey {
        PieceKey { object: 9, part }
    }

    #[test]
    fn records_stitch_their_pieces_into_their_own_bytes() {
        let mut fresh = FreshEncodings::default();
        let first = fresh
            .record(|out| {
                let (bytes, mut splicer) = out.parts();
                bytes.extend_from_slice(b"ab");
                splicer.splice(bytes.len(), key(0), b"XYZ");
                bytes.extend_from_slice(b"c");
                splicer.splice(bytes.len(), key(1), b"--");
                Ok(())
            })
            .unwrap();
        let second = fresh
            .record(|out| {
                let (bytes, mut splicer) = out.parts();
                splicer.splice(bytes.len(), key(0), b"XYZ");
                bytes.extend_from_slice(b"d");
                Ok(())
            })
            .unwrap();
        let first = fresh.get(first).unwrap();
        assert_eq!(first.to_vec(), b"abXYZc--");
        assert_eq!(first.len(), 8);
        assert_eq!(fresh.get(second).unwrap().to_vec(), b"XYZd");
        assert_eq!(fresh.pieces().pieces.len(), 2, "each piece once");
    }

    #[test]
    fn a_record_copied_with_its_pieces_renumbered_stitches_the_same() {
        let mut fresh = FreshEncodings::default();
        let range = fresh
            .record(|out| {
                let (bytes, mut splicer) = out.parts();
                bytes.extend_from_slice(b"own");
                splicer.splice(bytes.len(), key(3), b"shared");
                Ok(())
            })
            .unwrap();
        let mut kept = SharedPieces::default();
        kept.add(key(7), b"other").unwrap();
        kept.add(key(3), b"shared").unwrap();
        let record = fresh.get(range).unwrap();
        let mut copied = Vec::new();
        assert!(copy_record(&record, &mut copied, |_| Some(1)));
        let copied = EncodedPartition::new(&copied, &kept).unwrap();
        assert_eq!(copied.to_vec(), b"ownshared");
        assert!(!copy_record(&record, &mut Vec::new(), |_| None));
    }

    #[test]
    fn broken_records_are_errors() {
        let pieces = SharedPieces::default();
        assert!(EncodedPartition::new(b"", &pieces).is_err());
        // One splice claimed, no table.
        assert!(EncodedPartition::new(&[1, 0], &pieces).is_err());
        // A splice of a piece that is not there.
        let mut record = b"ab".to_vec();
        seal(&mut record, 0, &[(1, 0)]).unwrap();
        assert!(EncodedPartition::new(&record, &pieces).is_err());
        // Places past the own bytes or going back are refused when sealing.
        assert!(seal(&mut Vec::new(), 0, &[(1, 0)]).is_err());
        assert!(seal(&mut b"abc".to_vec(), 0, &[(2, 0), (1, 0)]).is_err());
    }
}
