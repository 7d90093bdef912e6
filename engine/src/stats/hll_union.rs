//! Many partitions' HLL sketches merged as Hive merges them into a fresh sketch of
//! [`MERGE_PRECISION`] bits (`Hll::new` then `Hll::merge` for each), without building a
//! sketch per partition: entries and registers are decoded straight into one array of
//! register maxima.
//!
//! Why this gives Hive's answer: the merged sketch's registers are the maxima over every
//! entry of every sketch (register `key mod 2^p` for a sparse entry), whatever the order and
//! whenever it turned dense; and it turns dense once its distinct sparse keys exceed the
//! threshold or a dense (or squashed) sketch comes in, after which it never turns back. So the
//! union keeps the register maxima all along, and the distinct keys until they pass the
//! threshold; its estimate is that of whichever form Hive's merged sketch would have.
//! `hll.rs`'s [`Hll::merge`] stays the reference the tests compare with.

use rkyv::{Archive, Deserialize, Serialize};

use super::hll::{
    dense_count, sparse_count, Hll, SketchError, VarintReader, ENCODING_SPARSE, ENCODING_UNPACKED,
    HLL_MAGIC, MERGE_PRECISION, PRECISION_MAX, PRECISION_MIN, SPARSE_VALUE_BITS,
};

/// Registers of the merged sketch.
const REGISTER_COUNT: usize = 1 << MERGE_PRECISION;
/// Distinct sparse keys past which Hive's merged sketch (bit-packed) turns dense: its
/// `encodingSwitchThreshold`, `2^p · 6 / 8 / 5`.
const SPARSE_KEY_COUNT_MAX: usize = REGISTER_COUNT * 6 / 8 / 5;
/// The sparse entry's value bits.
const SPARSE_VALUE_MASK: i32 = (1 << SPARSE_VALUE_BITS) - 1;

/// About the heap bytes of a union (registers, and sparse keys at most), for the bounds of what is kept.
pub(crate) const UNION_BYTE_COUNT: usize = REGISTER_COUNT + 4 * (SPARSE_KEY_COUNT_MAX + 1);

/// A union as stored beside a chunk's sketches (`sketch_chunk.rs`, value kind 12): its
/// registers (each a non-negative `i8`, as a byte), its distinct sparse keys while the merged
/// sketch would be sparse (sorted, none once dense), and whether it is dense.
#[derive(Debug, Clone, PartialEq, Archive, Serialize, Deserialize)]
pub(crate) struct StoredUnion {
    pub(crate) registers: Vec<u8>,
    pub(crate) sparse_keys: Vec<u32>,
    pub(crate) dense: bool,
}

impl ArchivedStoredUnion {
    /// Whether the parts fit a union of [`MERGE_PRECISION`] bits; one that fails is corrupt.
    pub(crate) fn is_consistent(&self) -> bool {
        let keys = &self.sparse_keys;
        self.registers.len() == REGISTER_COUNT
            && keys.len() <= SPARSE_KEY_COUNT_MAX
            && (!self.dense || keys.is_empty())
            && keys
                .windows(2)
                .all(|pair| pair[0].to_native() < pair[1].to_native())
    }
}

/// A stored union read in place: its registers' bytes, its sparse keys' bytes (u32
/// little-endian), and whether it is dense. Made from a consistent [`ArchivedStoredUnion`].
#[derive(Clone, Copy)]
pub(crate) struct StoredUnionView<'a> {
    pub(crate) registers: &'a [u8],
    pub(crate) sparse_keys: &'a [u8],
    pub(crate) dense: bool,
}

/// A union to merge in: one built in memory, or one stored, read in place.
#[derive(Clone, Copy)]
pub(crate) enum UnionRef<'a> {
    Built(&'a HllUnion),
    Stored(StoredUnionView<'a>),
}

/// The union of HLL sketches, as Hive's merged sketch of [`MERGE_PRECISION`] bits.
pub(crate) struct HllUnion {
    /// Register maxima (a sparse entry counts at `key mod 2^p`); never below 0.
    registers: Box<[i8; REGISTER_COUNT]>,
    /// The distinct sparse keys, sorted, while the merged sketch would be sparse.
    sparse_keys: Vec<u32>,
    dense: bool,
}

impl Default for HllUnion {
    fn default() -> Self {
        HllUnion {
            registers: Box::new([0; REGISTER_COUNT]),
            sparse_keys: Vec::with_capacity(SPARSE_KEY_COUNT_MAX + 1),
            dense: false,
        }
    }
}

impl HllUnion {
    /// Merges the sketch in Hive's `bytes` in; bytes Hive could not read, or a sketch of
    /// fewer register bits (which Hive refuses to merge), are an error.
    pub(crate) fn add(&mut self, bytes: &[u8]) -> Result<(), SketchError> {
        if bytes.len() < 4 || &bytes[..3] != HLL_MAGIC {
            return Err(SketchError("no HLL magic"));
        }
        let precision = bytes[3] >> 4;
        if !(PRECISION_MIN..=PRECISION_MAX).contains(&precision) {
            return Err(SketchError("register index bits outside 4..=16"));
        }
        if precision < MERGE_PRECISION {
            return Err(SketchError(
                "a sketch of fewer register bits cannot be merged in",
            ));
        }
        if precision > MERGE_PRECISION {
            // Rare (Hive writes p = 10 by default): squash as Hive does, then take maxima.
            let squashed = Hll::decode(bytes)?.squash(MERGE_PRECISION);
            let registers = squashed
                .dense_registers()
                .ok_or(SketchError("a squashed sketch is dense"))?;
            self.take_maxima(registers.iter().copied());
            return Ok(());
        }
        let encoding = bytes[3] & 0b111;
        let mut reader = VarintReader { bytes, position: 4 };
        reader.read()?; // the stored estimate, recomputed on use
        if encoding == ENCODING_SPARSE {
            return self.add_sparse(reader);
        }
        let width = if encoding == ENCODING_UNPACKED {
            8
        } else {
            usize::from(encoding)
        };
        let packed = &bytes[reader.position..];
        if packed.len() * 8 < REGISTER_COUNT * width {
            return Err(SketchError("fewer register bytes than 2^p registers need"));
        }
        self.add_dense(packed, width);
        Ok(())
    }

    fn add_sparse(&mut self, mut reader: VarintReader<'_>) -> Result<(), SketchError> {
        let entry_count = reader.read()? as i32;
        if entry_count < 0 || entry_count as usize > reader.bytes.len() - reader.position {
            return Err(SketchError("more sparse entries than bytes"));
        }
        let (bytes, mut position) = (reader.bytes, reader.position);
        let mut previous: i32 = 0;
        for index in 0..entry_count {
            let read = read_varint(bytes, &mut position)? as i32;
            let entry = if index == 0 {
                read
            } else {
                previous.wrapping_add(read)
            };
            previous = entry;
            let value = (entry & SPARSE_VALUE_MASK) as i8;
            let key = (entry as u32) >> SPARSE_VALUE_BITS;
            let register = &mut self.registers[key as usize % REGISTER_COUNT];
            *register = (*register).max(value);
            if !self.dense {
                if let Err(position) = self.sparse_keys.binary_search(&key) {
                    self.sparse_keys.insert(position, key);
                }
            }
        }
        // Hive checks the size once the whole sketch is in.
        if self.sparse_keys.len() > SPARSE_KEY_COUNT_MAX {
            self.turn_dense();
        }
        Ok(())
    }

    /// Registers packed `width` bits each (1 to 6, or 8 unpacked), most significant first.
    fn add_dense(&mut self, packed: &[u8], width: usize) {
        self.turn_dense();
        match width {
            8 => self.take_maxima(packed[..REGISTER_COUNT].iter().map(|byte| *byte as i8)),
            6 => {
                // Four registers in every three bytes.
                let groups = packed[..REGISTER_COUNT * 6 / 8].chunks_exact(3);
                for (group, registers) in groups.zip(self.registers.chunks_exact_mut(4)) {
                    let bits =
                        u32::from(group[0]) << 16 | u32::from(group[1]) << 8 | u32::from(group[2]);
                    for (index, register) in registers.iter_mut().enumerate() {
                        let value = (bits >> (18 - 6 * index) & 0x3F) as i8;
                        *register = (*register).max(value);
                    }
                }
            }
            _ => {
                let mask = (1u64 << width) - 1;
                let (mut buffer, mut buffered_bits) = (0u64, 0usize);
                let mut bytes = packed.iter();
                for register in self.registers.iter_mut() {
                    while buffered_bits < width {
                        // The length was checked: 2^p · width bits are there.
                        let byte = bytes.next().copied().unwrap_or(0);
                        buffer = buffer << 8 | u64::from(byte);
                        buffered_bits += 8;
                    }
                    buffered_bits -= width;
                    let value = (buffer >> buffered_bits & mask) as i8;
                    *register = (*register).max(value);
                }
            }
        }
    }

    /// Merges in `other`, the union of other sketches: as adding those sketches one by one
    /// would. Registers take maxima, and the distinct keys join; the merged sketch is dense if
    /// either was, or if the joined keys pass the threshold (Hive checks after each sketch,
    /// and keys only grow, so the check at the end is the same).
    pub(crate) fn merge_union(&mut self, other: UnionRef<'_>) {
        match other {
            UnionRef::Built(other) => {
                let registers = other.registers.iter().copied();
                self.merge_parts(registers, other.dense, other.sparse_keys.iter().copied());
            }
            UnionRef::Stored(other) => {
                // Registers are stored as the bytes of non-negative i8; keys little-endian.
                let registers = other.registers.iter().map(|byte| *byte as i8);
                let keys = other
                    .sparse_keys
                    .chunks_exact(4)
                    .map(|bytes| u32::from_le_bytes(bytes.try_into().unwrap_or_default()));
                self.merge_parts(registers, other.dense, keys);
            }
        }
    }

    /// [`HllUnion::merge_union`] of a union's registers, form and sorted sparse keys.
    fn merge_parts(
        &mut self,
        registers: impl Iterator<Item = i8>,
        dense: bool,
        sparse_keys: impl Iterator<Item = u32>,
    ) {
        for (register, value) in self.registers.iter_mut().zip(registers) {
            *register = (*register).max(value);
        }
        if self.dense {
            return;
        }
        if dense {
            self.turn_dense();
            return;
        }
        for key in sparse_keys {
            if let Err(position) = self.sparse_keys.binary_search(&key) {
                self.sparse_keys.insert(position, key);
            }
            if self.sparse_keys.len() > SPARSE_KEY_COUNT_MAX {
                self.turn_dense();
                return;
            }
        }
    }

    /// The union as stored beside a chunk's sketches.
    pub(crate) fn to_stored(&self) -> StoredUnion {
        StoredUnion {
            // Never below 0: the bytes read back as the same i8.
            registers: self
                .registers
                .iter()
                .map(|register| *register as u8)
                .collect(),
            sparse_keys: self.sparse_keys.clone(),
            dense: self.dense,
        }
    }

    fn take_maxima(&mut self, values: impl Iterator<Item = i8>) {
        self.turn_dense();
        for (register, value) in self.registers.iter_mut().zip(values) {
            *register = (*register).max(value);
        }
    }

    fn turn_dense(&mut self) {
        self.dense = true;
        self.sparse_keys = Vec::new();
    }

    /// Hive's estimate of the merged sketch, never below 1.
    pub(crate) fn estimate(&self) -> i64 {
        let count = if self.dense {
            dense_count(&self.registers[..])
        } else {
            sparse_count(self.sparse_keys.len())
        };
        count.max(1)
    }
}

/// Hive's varint at `position` (then moved past it): one- and two-byte ones, which sparse
/// entries' deltas mostly are, read inline; longer ones by [`VarintReader`].
#[inline(always)]
fn read_varint(bytes: &[u8], position: &mut usize) -> Result<i64, SketchError> {
    if let Some(&first) = bytes.get(*position) {
        if first < 0x80 {
            *position += 1;
            return Ok(i64::from(first));
        }
        if let Some(&second) = bytes.get(*position + 1) {
            if second < 0x80 {
                *position += 2;
                return Ok(i64::from(first & 0x7F) | i64::from(second) << 7);
            }
        }
    }
    let mut reader = VarintReader {
        bytes,
        position: *position,
    };
    let value = reader.read()?;
    *position = reader.position;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::*;

    fn sketch_of(hashes: &BTreeSet<u64>, precision: u8) -> Hll {
        let mut hll = Hll::new(precision);
        for hash in hashes {
            hll.add_hash(*hash);
        }
        hll
    }

    /// Hive's way: a fresh sketch, each one merged in.
    fn reference(sketches: &[Vec<u8>]) -> Option<i64> {
        let mut merged = Hll::new(MERGE_PRECISION);
        for bytes in sketches {
            merged.merge(&Hll::decode(bytes).ok()?).ok()?;
        }
        merged.estimate()
    }

    fn union(sketches: &[Vec<u8>]) -> Option<i64> {
        let mut union = HllUnion::default();
        for bytes in sketches {
            union.add(bytes).ok()?;
        }
        Some(union.estimate())
    }

    #[test]
    fn bad_bytes_and_smaller_sketches_are_refused() {
        let mut union = HllUnion::default();
        assert!(union.add(b"HL").is_err());
        assert!(union.add(b"HLL\x30\x01").is_err(), "p = 3");
        assert!(union.add(b"HLL\xA1\x01\xFF").is_err(), "too few registers");
        assert!(union.add(b"HLL\xA0\x01\x05\x01").is_err());
        let small = Hll::new(8).encode().unwrap();
        assert!(union.add(&small).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn the_union_estimates_as_hive_merging_one_by_one(
            sets in proptest::collection::vec(
                proptest::collection::btree_set(any::<u64>(), 0..400), 1..12),
            precisions in proptest::collection::vec(10u8..=12, 12),
        ) {
            // Goal: sparse and dense sketches of p = 10 (some packed narrower than 6 bits,
            // some dense after growing), and larger ones squashed, give Hive's estimate.
            let sketches: Vec<Vec<u8>> = sets
                .iter()
                .zip(&precisions)
                .map(|(hashes, precision)| {
                    let hll = sketch_of(hashes, *precision);
                    match hll.encode() {
                        Some(bytes) => bytes,
                        None => hll.squash(10).encode().unwrap(),
                    }
                })
                .collect();
            prop_assert_eq!(union(&sketches), reference(&sketches));
        }

        #[test]
        fn many_small_sparse_sketches_turn_dense_as_hive(
            sets in proptest::collection::vec(
                proptest::collection::btree_set(any::<u64>(), 0..12), 1..60),
        ) {
            let sketches: Vec<Vec<u8>> =
                sets.iter().map(|hashes| sketch_of(hashes, 10).encode().unwrap()).collect();
            prop_assert_eq!(union(&sketches), reference(&sketches));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn unions_of_groups_merge_as_the_union_of_all(
            sets in proptest::collection::vec(
                proptest::collection::btree_set(any::<u64>(), 0..40), 1..40),
            dense in proptest::collection::btree_set(0usize..40, 0..3),
            cuts in proptest::collection::btree_set(1usize..40, 0..6),
            first_stored in any::<bool>(),
        ) {
            // Goal: merging the unions of consecutive groups of sketches (a chunk's, kept, or
            // stored with the chunk and read in place) gives the registers, form and estimate
            // of adding every sketch one by one.
            // Method: small sparse sketches (some made dense by many hashes), cut anywhere.
            let sketches: Vec<Vec<u8>> = sets
                .iter()
                .enumerate()
                .map(|(index, hashes)| {
                    let mut hashes = hashes.clone();
                    if dense.contains(&index) {
                        hashes.extend((0..2000u64).map(|hash| hash.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
                    }
                    sketch_of(&hashes, 10).encode().unwrap()
                })
                .collect();
            let mut whole = HllUnion::default();
            for bytes in &sketches {
                whole.add(bytes).unwrap();
            }
            let mut grouped = HllUnion::default();
            let (mut start, mut stored) = (0, first_stored);
            let ends = cuts.iter().copied().filter(|cut| *cut < sketches.len()).chain([sketches.len()]);
            for end in ends {
                let mut group = HllUnion::default();
                for bytes in &sketches[start..end] {
                    group.add(bytes).unwrap();
                }
                // Every other group as stored beside a chunk and read back in place.
                match stored {
                    true => {
                        let bytes = rkyv::to_bytes::<rkyv::rancor::Error>(&group.to_stored()).unwrap();
                        let archived =
                            rkyv::access::<ArchivedStoredUnion, rkyv::rancor::Error>(&bytes).unwrap();
                        prop_assert!(archived.is_consistent());
                        let keys: Vec<u8> = archived.sparse_keys.iter().flat_map(|key| key.to_native().to_le_bytes()).collect();
                        grouped.merge_union(UnionRef::Stored(StoredUnionView {
                            registers: archived.registers.as_slice(),
                            sparse_keys: &keys,
                            dense: archived.dense,
                        }));
                    }
                    false => grouped.merge_union(UnionRef::Built(&group)),
                }
                stored = !stored;
                start = end;
            }
            prop_assert_eq!(&grouped.registers[..], &whole.registers[..]);
            prop_assert_eq!(grouped.dense, whole.dense);
            prop_assert_eq!(&grouped.sparse_keys, &whole.sparse_keys);
            prop_assert_eq!(grouped.estimate(), whole.estimate());
        }
    }

    #[test]
    fn unpacked_dense_registers_merge_as_hive() {
        // Goal: the unpacked encoding (a byte per register) reads as Hive reads it.
        let mut bytes = HLL_MAGIC.to_vec();
        bytes.push(10 << 4 | ENCODING_UNPACKED);
        bytes.push(1);
        bytes.extend((0..1024).map(|index| (index % 9) as u8));
        assert_eq!(union(std::slice::from_ref(&bytes)), reference(&[bytes]));
    }
}
