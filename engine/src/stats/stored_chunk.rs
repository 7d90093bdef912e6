//! A statistics chunk kept as its stored value (sled's bytes, shared), read in place.
//!
//! A first aggregation over 10k partitions × 50 columns used to deserialise every chunk into
//! fresh vectors (about 20 MiB), and on this machine the kernel zeroing those fresh pages cost
//! more than the fold itself. Kept this way, a chunk costs the positions of its arrays in the
//! stored archive, found once when the archive is validated; the fold and the partition read
//! take the numbers from the stored little-endian bytes where they lie.

use std::ops::Range;
use std::sync::OnceLock;

use super::chunk::{bound_value, HAS_HIGH, HAS_LOW};
use super::packed::{ArchivedPackedStatsChunk, PackedStatsChunk};
use super::{ColumnStatistics, SmolStr, StatsKind};
use crate::error::{Error, Result};
use crate::storage::values::ValueView;

/// An array of `i64` (or `f64` bits) stored little-endian, read in place; possibly empty,
/// which the packed form uses for an array that is zero everywhere.
#[derive(Clone, Copy, Default)]
pub(crate) struct StoredIntegers<'a>(&'a [u8]);

/// The bytes of one stored `i64`.
const INTEGER_BYTE_COUNT: usize = 8;

impl<'a> StoredIntegers<'a> {
    /// `bytes` as integers; a length that is not a multiple of 8 drops the tail (never the
    /// case for a validated archive, whose arrays these are).
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        let whole = bytes.len() - bytes.len() % INTEGER_BYTE_COUNT;
        StoredIntegers(&bytes[..whole])
    }

    /// How many integers the array holds.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.0.len() / INTEGER_BYTE_COUNT
    }

    /// Whether the array is stored empty (zero everywhere).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The integer at `offset`, if the array holds one there.
    #[inline]
    pub(crate) fn get(&self, offset: usize) -> Option<i64> {
        let start = offset.checked_mul(INTEGER_BYTE_COUNT)?;
        let bytes = self.0.get(start..)?.first_chunk::<INTEGER_BYTE_COUNT>()?;
        Some(i64::from_le_bytes(*bytes))
    }

    /// The integer at `offset`, or 0 past the end (an array stored empty).
    #[inline]
    pub(crate) fn at(&self, offset: usize) -> i64 {
        self.get(offset).unwrap_or(0)
    }

    /// The double whose bits are at `offset`, or 0.0 past the end.
    #[inline]
    pub(crate) fn double_at(&self, offset: usize) -> f64 {
        f64::from_bits(self.at(offset) as u64)
    }

    /// The integers `range`, or an empty array when it is stored empty (or `range` passes its
    /// end).
    #[inline]
    pub(crate) fn part(&self, range: Range<usize>) -> StoredIntegers<'a> {
        let bytes = range
            .start
            .checked_mul(INTEGER_BYTE_COUNT)
            .and_then(|start| {
                let end = range.end.checked_mul(INTEGER_BYTE_COUNT)?;
                self.0.get(start..end)
            });
        StoredIntegers(bytes.unwrap_or_default())
    }

    /// The integers, copied into `buffer` (on the caller's stack: memory already in use) so
    /// that loops over them run as over any slice; as many as fit.
    #[inline]
    pub(crate) fn read_into<'b, const N: usize>(&self, buffer: &'b mut [i64; N]) -> &'b [i64] {
        let count = self.len().min(N);
        let bytes = self.0.chunks_exact(INTEGER_BYTE_COUNT);
        for (value, bytes) in buffer[..count].iter_mut().zip(bytes) {
            *value = i64::from_le_bytes(bytes.try_into().unwrap_or_default());
        }
        &buffer[..count]
    }

    /// The integers in order.
    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = i64> + 'a {
        self.0.chunks_exact(INTEGER_BYTE_COUNT).map(|bytes| {
            let bytes: [u8; INTEGER_BYTE_COUNT] = bytes.try_into().unwrap_or_default();
            i64::from_le_bytes(bytes)
        })
    }
}

/// Where one chunk's arrays lie in its stored archive, found when it was validated.
struct ChunkLayout {
    kinds: Range<usize>,
    flags: Range<usize>,
    type_indexes: Range<usize>,
    last_analyzed: Range<usize>,
    num_nulls: Range<usize>,
    num_distinct_values: Range<usize>,
    lows: Range<usize>,
    highs: Range<usize>,
    max_lengths: Range<usize>,
    avg_lengths: Range<usize>,
    num_trues: Range<usize>,
    num_falses: Range<usize>,
    decimal_bytes: Range<usize>,
    decimal_ends: Range<usize>,
}

/// Where `slice` lies in `archive`, which holds it.
fn span_of<T>(archive: &[u8], slice: &[T]) -> Range<usize> {
    let start = slice.as_ptr() as usize - archive.as_ptr() as usize;
    start..start + std::mem::size_of_val(slice)
}

impl ChunkLayout {
    fn of(archive: &[u8], archived: &ArchivedPackedStatsChunk) -> Self {
        ChunkLayout {
            kinds: span_of(archive, archived.kinds.as_slice()),
            flags: span_of(archive, archived.flags.as_slice()),
            type_indexes: span_of(archive, archived.type_indexes.as_slice()),
            last_analyzed: span_of(archive, archived.last_analyzed.as_slice()),
            num_nulls: span_of(archive, archived.num_nulls.as_slice()),
            num_distinct_values: span_of(archive, archived.num_distinct_values.as_slice()),
            lows: span_of(archive, archived.lows.as_slice()),
            highs: span_of(archive, archived.highs.as_slice()),
            max_lengths: span_of(archive, archived.max_lengths.as_slice()),
            avg_lengths: span_of(archive, archived.avg_lengths.as_slice()),
            num_trues: span_of(archive, archived.num_trues.as_slice()),
            num_falses: span_of(archive, archived.num_falses.as_slice()),
            decimal_bytes: span_of(archive, archived.decimal_bytes.as_slice()),
            decimal_ends: span_of(archive, archived.decimal_ends.as_slice()),
        }
    }
}

/// A statistics chunk kept (`kept_chunks.rs`): its stored value, validated once, and where
/// its arrays lie in it. A read after a write that left the chunk's stored bytes as they were
/// takes it over without validating it again.
pub(crate) struct KeptStatsChunk {
    view: ValueView<PackedStatsChunk>,
    layout: ChunkLayout,
    /// The chunk's distinct column types (a few bytes: usually one name), each shared by the
    /// statistics read from the chunk.
    type_names: Vec<SmolStr>,
    /// What an aggregation needs of the whole chunk, found by the first that needs it.
    summary: OnceLock<Option<ChunkSummary>>,
}

impl KeptStatsChunk {
    /// The chunk stored in `view`, validated; arrays that do not fit are corruption.
    pub(crate) fn from_view(view: ValueView<PackedStatsChunk>) -> Result<Self> {
        let archived = view.archived()?;
        if !archived.is_consistent() {
            let reason = "packed statistics arrays that do not fit";
            return Err(Error::corruption(view.key(), reason));
        }
        let layout = ChunkLayout::of(view.archive(), archived);
        let names = archived.type_names.iter();
        let type_names = names.map(|name| SmolStr::new(name.as_str())).collect();
        Ok(KeptStatsChunk {
            view,
            layout,
            type_names,
            summary: OnceLock::new(),
        })
    }

    /// Whether the summary for aggregations was found already.
    #[cfg(test)]
    pub(crate) fn has_summary(&self) -> bool {
        self.summary.get().is_some_and(Option::is_some)
    }

    /// The bytes of the stored value kept.
    pub(crate) fn stored_len(&self) -> usize {
        self.view.archive().len()
    }

    /// The heap bytes the chunk keeps alive: its stored value, its type names, and itself
    /// (its summary inline).
    pub(crate) fn kept_bytes(&self) -> usize {
        let names: usize = self.type_names.iter().map(|name| name.len() + 16).sum();
        self.stored_len() + names + std::mem::size_of::<Self>()
    }

    /// Whether `view` holds the very bytes this chunk was read from.
    pub(crate) fn is_stored_as(&self, view: &ValueView<PackedStatsChunk>) -> bool {
        self.view.archive() == view.archive()
    }

    /// The chunk's arrays, in place.
    pub(crate) fn arrays(&self) -> StoredChunk<'_> {
        let archive = self.view.archive();
        let bytes = |range: &Range<usize>| archive.get(range.clone()).unwrap_or_default();
        let integers = |range: &Range<usize>| StoredIntegers::new(bytes(range));
        let layout = &self.layout;
        StoredChunk {
            kinds: bytes(&layout.kinds),
            flags: bytes(&layout.flags),
            type_indexes: bytes(&layout.type_indexes),
            type_names: &self.type_names,
            last_analyzed: integers(&layout.last_analyzed),
            num_nulls: integers(&layout.num_nulls),
            num_distinct_values: integers(&layout.num_distinct_values),
            lows: integers(&layout.lows),
            highs: integers(&layout.highs),
            max_lengths: integers(&layout.max_lengths),
            avg_lengths: integers(&layout.avg_lengths),
            num_trues: integers(&layout.num_trues),
            num_falses: integers(&layout.num_falses),
            decimal_bytes: bytes(&layout.decimal_bytes),
            decimal_ends: bytes(&layout.decimal_ends),
            summary: &self.summary,
        }
    }
}

/// One kept chunk's arrays, in place (the stored form of `packed.rs`). Arrays other than
/// `kinds`, `flags`, `type_indexes` and `last_analyzed` may be empty (zero everywhere).
#[derive(Clone, Copy)]
pub(crate) struct StoredChunk<'a> {
    pub(crate) kinds: &'a [u8],
    pub(crate) flags: &'a [u8],
    type_indexes: &'a [u8],
    type_names: &'a [SmolStr],
    pub(crate) last_analyzed: StoredIntegers<'a>,
    pub(crate) num_nulls: StoredIntegers<'a>,
    pub(crate) num_distinct_values: StoredIntegers<'a>,
    pub(crate) lows: StoredIntegers<'a>,
    pub(crate) highs: StoredIntegers<'a>,
    pub(crate) max_lengths: StoredIntegers<'a>,
    /// The doubles' bits.
    pub(crate) avg_lengths: StoredIntegers<'a>,
    pub(crate) num_trues: StoredIntegers<'a>,
    pub(crate) num_falses: StoredIntegers<'a>,
    decimal_bytes: &'a [u8],
    /// u32 little-endian, two per offset (see `packed.rs`), or none.
    decimal_ends: &'a [u8],
    summary: &'a OnceLock<Option<ChunkSummary>>,
}

impl<'a> StoredChunk<'a> {
    /// The summary of the whole chunk for aggregations (`column_fold.rs`), found once.
    pub(crate) fn summary(&self) -> Option<&'a ChunkSummary> {
        self.summary.get_or_init(|| ChunkSummary::of(self)).as_ref()
    }

    /// The column type at `offset`; empty past the end.
    pub(crate) fn column_type(&self, offset: usize) -> &'a str {
        self.shared_column_type(offset).map_or("", SmolStr::as_str)
    }

    /// The column type at `offset`, to share; none past the end.
    fn shared_column_type(&self, offset: usize) -> Option<&'a SmolStr> {
        let index = self.type_indexes.get(offset).copied().unwrap_or_default();
        self.type_names.get(index as usize)
    }

    /// The `index`th decimal end.
    fn decimal_end(&self, index: usize) -> Option<usize> {
        let bytes = self.decimal_ends.get(index.checked_mul(4)?..)?;
        Some(u32::from_le_bytes(*bytes.first_chunk::<4>()?) as usize)
    }

    /// The unscaled bytes of the decimal low (`high` false) or high at `offset`; empty when
    /// the chunk holds no decimals.
    pub(crate) fn decimal_at(&self, offset: usize, high: bool) -> &'a [u8] {
        let index = 2 * offset + usize::from(high);
        let Some(end) = self.decimal_end(index) else {
            return &[];
        };
        let start = match index {
            0 => 0,
            _ => self.decimal_end(index - 1).unwrap_or(0),
        };
        self.decimal_bytes.get(start..end).unwrap_or_default()
    }

    /// Pushes onto `out` the statistics at `offset`, without sketches, and returns them;
    /// `None` (nothing pushed) when the offset holds none (or a kind this build does not
    /// know). Built in place in `out`: a partition read builds thousands.
    pub(crate) fn push_statistics_at<'out>(
        &self,
        offset: usize,
        column_name: &SmolStr,
        out: &'out mut Vec<ColumnStatistics>,
    ) -> Option<&'out mut ColumnStatistics> {
        let kind = StatsKind::from_byte(*self.kinds.get(offset)?)?;
        let flags = *self.flags.get(offset)?;
        let column_type = self.shared_column_type(offset).cloned().unwrap_or_default();
        out.push(ColumnStatistics::new(
            column_name.clone(),
            column_type,
            kind,
        ));
        let stats = out.last_mut()?;
        stats.num_nulls = self.num_nulls.at(offset);
        stats.num_distinct_values = self.num_distinct_values.at(offset);
        let bound = |numbers: StoredIntegers<'_>, high: bool| {
            bound_value(kind, numbers.at(offset), self.decimal_at(offset, high))
        };
        stats.low_value = (flags & HAS_LOW != 0).then(|| bound(self.lows, false));
        stats.high_value = (flags & HAS_HIGH != 0).then(|| bound(self.highs, true));
        stats.max_length = self.max_lengths.at(offset);
        stats.avg_length = self.avg_lengths.double_at(offset);
        stats.num_trues = self.num_trues.at(offset);
        stats.num_falses = self.num_falses.at(offset);
        Some(stats)
    }

    /// The statistics at `offset`, as [`StoredChunk::push_statistics_at`] builds them.
    #[cfg(test)]
    pub(crate) fn statistics_at(
        &self,
        offset: usize,
        column_name: &str,
    ) -> Option<ColumnStatistics> {
        let mut out = Vec::with_capacity(1);
        self.push_statistics_at(offset, &SmolStr::new(column_name), &mut out)?;
        out.pop()
    }
}

#[cfg(test)]
impl KeptStatsChunk {
    /// `chunk` as it is kept once stored packed and read back.
    pub(crate) fn from_chunk(chunk: &super::chunk::StatsChunk) -> Self {
        let stored =
            crate::storage::values::encode(&super::packed::pack(chunk)).expect("encode a chunk");
        Self::from_stored(&stored)
    }

    /// The chunk kept from the stored value `stored` (either stored form).
    pub(crate) fn from_stored(stored: &[u8]) -> Self {
        use std::sync::Arc;
        let key = crate::storage::kv::KvBytes::from_shared(Arc::from(&b"k"[..]));
        let stored = crate::storage::kv::KvBytes::from_shared(Arc::from(stored));
        let view = super::packed::packed_view(key, stored).expect("a view of a chunk");
        KeptStatsChunk::from_view(view).expect("a consistent chunk")
    }
}

/// An integer whose order is `f64::total_cmp`'s order of the double with bits `bits`.
#[inline]
pub(super) fn total_order_key(bits: i64) -> i64 {
    bits ^ (((bits >> 63) as u64) >> 1) as i64
}

/// A number as a chunk stores it (an `i64`, or a double's bits), with an integer of the same
/// order for the run loops.
pub(super) trait StoredNumber: Copy {
    fn from_stored(stored: i64) -> Self;
    fn to_stored(self) -> i64;
    fn order_key(stored: i64) -> i64;
}

impl StoredNumber for i64 {
    #[inline]
    fn from_stored(stored: i64) -> Self {
        stored
    }
    #[inline]
    fn to_stored(self) -> i64 {
        self
    }
    #[inline]
    fn order_key(stored: i64) -> i64 {
        stored
    }
}

impl StoredNumber for f64 {
    #[inline]
    fn from_stored(stored: i64) -> Self {
        f64::from_bits(stored as u64)
    }
    #[inline]
    fn to_stored(self) -> i64 {
        self.to_bits() as i64
    }
    #[inline]
    fn order_key(stored: i64) -> i64 {
        total_order_key(stored)
    }
}

/// A chunk's worth of numbers, copied out of a stored array for the run loops.
pub(super) type RunBuffer = [i64; super::CHUNK_SLOT_COUNT as usize];

/// The least and greatest of a run's stored values (in `V`'s order), with the position in the
/// run of the partition taken as holding each: where several hold it, the last for the least
/// and the first for the greatest (a run's slots rise with its positions; `column_fold.rs`
/// says why).
#[derive(Debug, Clone, Copy)]
pub(super) struct RunExtremes {
    pub(super) min: i64,
    pub(super) min_at: usize,
    pub(super) max: i64,
    pub(super) max_at: usize,
}

/// The extremes of the `len` values of a run, `values` (an array stored empty is zero
/// everywhere); `None` for none.
#[inline]
pub(super) fn run_extremes<V: StoredNumber>(
    values: StoredIntegers<'_>,
    len: usize,
) -> Option<RunExtremes> {
    if values.is_empty() {
        return (len > 0).then_some(RunExtremes {
            min: 0,
            min_at: len - 1,
            max: 0,
            max_at: 0,
        });
    }
    let mut buffer: RunBuffer = [0; super::CHUNK_SLOT_COUNT as usize];
    let values = values.read_into(&mut buffer);
    let &first = values.first()?;
    // One pass, keeping the last position of the least value and the first of the greatest.
    let (mut min, mut max) = (V::order_key(first), V::order_key(first));
    let (mut min_at, mut max_at) = (0, 0);
    for (at, &value) in values.iter().enumerate().skip(1) {
        let value = V::order_key(value);
        if value <= min {
            (min, min_at) = (value, at);
        }
        if value > max {
            (max, max_at) = (value, at);
        }
    }
    Some(RunExtremes {
        min: values[min_at],
        min_at,
        max: values[max_at],
        max_at,
    })
}

/// Values below this, at most [`super::CHUNK_SLOT_COUNT`] of them, sum without overflow.
pub(super) const PLAIN_SUM_VALUE_LIMIT: i64 = 1 << 55;
const _: () = assert!((super::CHUNK_SLOT_COUNT as i64)
    .checked_mul(PLAIN_SUM_VALUE_LIMIT)
    .is_some());

/// The total of `values` (at most a chunk's) when every one is in 0..PLAIN_SUM_VALUE_LIMIT:
/// the total cannot overflow, and partial sums from any start only grow, so adding it with
/// saturation gives what adding them one at a time does. `None` otherwise.
#[inline]
pub(super) fn plain_total(values: StoredIntegers<'_>) -> Option<i64> {
    assert!(values.len() <= super::CHUNK_SLOT_COUNT as usize);
    if values.is_empty() {
        return Some(0);
    }
    let mut buffer: RunBuffer = [0; super::CHUNK_SLOT_COUNT as usize];
    let values = values.read_into(&mut buffer);
    let bits = values.iter().fold(0i64, |bits, value| bits | value);
    if !(0..PLAIN_SUM_VALUE_LIMIT).contains(&bits) {
        return None;
    }
    Some(
        values
            .iter()
            .fold(0i64, |total, value| total.wrapping_add(*value)),
    )
}

/// What a fold needs of a whole stored chunk (every offset it holds), found once per kept
/// chunk (`KeptStatsChunk`): an aggregation whose run covers a chunk (a table's partitions in
/// slot order, the usual request) then adds the chunk in constant time instead of scanning
/// its arrays again on every call.
#[derive(Debug, Clone)]
pub(crate) struct ChunkSummary {
    /// The kind and the bound flags (`HAS_LOW | HAS_HIGH`) of every offset.
    pub(super) kind: u8,
    pub(super) bound_flags: u8,
    /// Totals as [`plain_total`] gives them.
    pub(super) nulls: Option<i64>,
    pub(super) trues: Option<i64>,
    pub(super) falses: Option<i64>,
    pub(super) distinct: RunExtremes,
    pub(super) max_length: RunExtremes,
    pub(super) avg_length: RunExtremes,
    /// In the kind's order (doubles as `total_cmp` orders them), with their first values.
    pub(super) lows: RunExtremes,
    pub(super) lows_first: i64,
    pub(super) highs: RunExtremes,
    pub(super) highs_first: i64,
}

impl ChunkSummary {
    /// The summary of `chunk`; `None` when its offsets differ in kind or in bounds present,
    /// hold none, or hold decimals (those are folded by the run loops or slot by slot).
    pub(crate) fn of(chunk: &StoredChunk<'_>) -> Option<ChunkSummary> {
        let &kind = chunk.kinds.first()?;
        let bounds = HAS_LOW | HAS_HIGH;
        let bound_flags = chunk.flags.first()? & bounds;
        let uniform = chunk.flags.len() == chunk.kinds.len()
            && chunk.kinds.iter().all(|stored| *stored == kind)
            && chunk
                .flags
                .iter()
                .all(|stored| stored & bounds == bound_flags);
        if !uniform {
            return None;
        }
        let len = chunk.kinds.len();
        let (lows, highs) = match StatsKind::from_byte(kind)? {
            StatsKind::Decimal => return None,
            StatsKind::Double => (
                run_extremes::<f64>(chunk.lows, len)?,
                run_extremes::<f64>(chunk.highs, len)?,
            ),
            _ => (
                run_extremes::<i64>(chunk.lows, len)?,
                run_extremes::<i64>(chunk.highs, len)?,
            ),
        };
        Some(ChunkSummary {
            kind,
            bound_flags,
            nulls: plain_total(chunk.num_nulls),
            trues: plain_total(chunk.num_trues),
            falses: plain_total(chunk.num_falses),
            distinct: run_extremes::<i64>(chunk.num_distinct_values, len)?,
            max_length: run_extremes::<i64>(chunk.max_lengths, len)?,
            avg_length: run_extremes::<f64>(chunk.avg_lengths, len)?,
            lows,
            lows_first: chunk.lows.at(0),
            highs,
            highs_first: chunk.highs.at(0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::chunk::StatsChunk;
    use crate::stats::{StatsDecimal, StatsValue};
    use crate::storage::values::encode;
    use proptest::prelude::*;

    #[test]
    fn stored_integers_read_in_place() {
        // Goal: an array of stored little-endian integers reads as the integers, its parts
        // as their slices, and past its end as zero (an array stored empty).
        let values = [3i64, -1, i64::MIN, i64::MAX];
        let bytes: Vec<u8> = values
            .iter()
            .flat_map(|value| value.to_le_bytes())
            .collect();
        let stored = StoredIntegers::new(&bytes);
        assert_eq!(stored.len(), 4);
        assert_eq!(stored.iter().collect::<Vec<_>>(), values);
        assert_eq!(stored.get(2), Some(i64::MIN));
        assert_eq!(stored.get(4), None);
        assert_eq!(stored.at(9), 0);
        assert_eq!(stored.part(1..3).iter().collect::<Vec<_>>(), [-1, i64::MIN]);
        let mut buffer = [7i64; 3];
        assert_eq!(stored.read_into(&mut buffer), &values[..3]);
        let mut buffer = [7i64; 8];
        assert_eq!(stored.read_into(&mut buffer), &values);
        assert!(stored.part(3..9).is_empty());
        assert!(StoredIntegers::default().part(0..2).is_empty());
    }

    fn statistics(kind: StatsKind, number: i64, flags: u8) -> ColumnStatistics {
        let mut stats = ColumnStatistics::new(
            "c",
            ["bigint", "double", "decimal(9,2)"][flags as usize % 3],
            kind,
        );
        stats.num_nulls = number;
        stats.num_distinct_values = number.wrapping_mul(3);
        let bound = |number: i64| match kind {
            StatsKind::Double => StatsValue::Double(number as f64 / 8.0),
            StatsKind::Decimal => StatsValue::Decimal(StatsDecimal {
                unscaled: number.to_be_bytes()[(flags as usize % 8)..].to_vec(),
                scale: 2,
            }),
            _ => StatsValue::Integer(number),
        };
        stats.low_value = (flags & HAS_LOW != 0).then(|| bound(number - 1));
        stats.high_value = (flags & HAS_HIGH != 0).then(|| bound(number + 1));
        stats.max_length = number & 0xff;
        stats.avg_length = number as f64 / 7.0;
        stats.num_trues = number >> 3;
        stats.num_falses = number >> 5;
        stats
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(100))]

        #[test]
        fn a_kept_chunk_reads_as_the_chunk_written(
            slots in proptest::collection::vec(
                (0usize..128, 0u8..9, any::<i64>(), 0u8..4), 0..40),
            unpacked_form in any::<bool>(),
        ) {
            // Goal: every offset of a chunk kept in place (either stored form: packed, or the
            // unpacked form of older stores) reads back the statistics written there, and
            // nothing where none were. Method: random kinds, values, bounds and types.
            let mut chunk = StatsChunk::default();
            for (offset, kind, number, flags) in &slots {
                match StatsKind::from_byte(*kind) {
                    Some(kind) => chunk.set(*offset, &statistics(kind, *number, *flags), *number),
                    None => chunk.clear(*offset),
                }
            }
            let kept = match unpacked_form {
                true => KeptStatsChunk::from_stored(&encode(&chunk).unwrap()),
                false => KeptStatsChunk::from_chunk(&chunk),
            };
            let arrays = kept.arrays();
            for offset in 0..130 {
                prop_assert_eq!(arrays.statistics_at(offset, "c"), chunk.get(offset, "c"));
                if offset < chunk.len() {
                    prop_assert_eq!(arrays.last_analyzed.at(offset), chunk.last_analyzed[offset]);
                    prop_assert_eq!(arrays.flags[offset], chunk.flags[offset]);
                }
            }
        }
    }
}
