//! One column's fold over the requested partitions, for `get_aggr_stats_for` (`aggregate.rs`
//! says what Hive computes).
//!
//! Requested partitions usually come in slot order (a table's partitions are given slots as
//! their statistics are first written, and planners ask for them in name order), so the
//! request is cut into *runs*: consecutive request positions whose slots are consecutive in
//! one chunk. A run whose slots all hold statistics of the column's kind is folded with one
//! tight loop per array over the chunk's plain slices (sums, least and greatest values, the
//! position of an extreme looked for only when the extreme moves); anything else (the first
//! slot seen, another kind, decimals, bounds present in some slots only) is folded slot by
//! slot. A run that covers a whole kept chunk, as a request for a table's every partition
//! makes, is added from the chunk's summary ([`ChunkSummary`], found once per kept chunk)
//! without reading its arrays. All give the same result, which the tests hold them to.
//!
//! Where several partitions hold the least (greatest) value, the one taken as holding it is
//! the one whose statistics were first written last (first): Hive's SQL path reads the
//! partitions ordered by the value alone and takes the first and the last row, and its default
//! store, Derby, returns equal values in the reverse order of their rows' insertion. Slots are
//! given in that order, so the greatest slot holds the least value and the least slot the
//! greatest.

use std::cmp::Ordering;

use super::aggregate::{linear_double, linear_integer, linear_value, Aim};
use super::chunk::{bound_value, HAS_BIT_VECTORS, HAS_HIGH, HAS_LOW, SKETCH_IN_CHUNK};
use super::merge::compare_values;
use super::stored_chunk::{
    plain_total, run_extremes, ChunkSummary, RunBuffer, RunExtremes, StoredChunk, StoredIntegers,
    StoredNumber,
};
use super::{ColumnStatistics, StatsKind, StatsValue};

/// The least and greatest value of one statistic, where in the request they are, and the
/// slots holding them (ties go to the greater slot for the least, the lesser for the greatest).
#[derive(Debug, Clone)]
pub(super) struct Extremes<T> {
    pub(super) min: T,
    pub(super) min_index: usize,
    pub(super) min_slot: u32,
    pub(super) max: T,
    pub(super) max_index: usize,
    pub(super) max_slot: u32,
}

impl<T: Clone> Extremes<T> {
    fn new(value: T, index: usize, slot: u32) -> Self {
        Extremes {
            min: value.clone(),
            min_index: index,
            min_slot: slot,
            max: value,
            max_index: index,
            max_slot: slot,
        }
    }

    fn add(&mut self, value: T, index: usize, slot: u32, compare: impl Fn(&T, &T) -> Ordering) {
        let to_min = compare(&value, &self.min).then(self.min_slot.cmp(&slot));
        if to_min == Ordering::Less {
            self.min = value.clone();
            (self.min_index, self.min_slot) = (index, slot);
        }
        let to_max = compare(&value, &self.max).then(self.max_slot.cmp(&slot));
        if to_max == Ordering::Greater {
            self.max = value;
            (self.max_index, self.max_slot) = (index, slot);
        }
    }
}

fn add_extreme<T: Clone>(
    extremes: &mut Option<Extremes<T>>,
    value: T,
    at: (usize, u32),
    compare: impl Fn(&T, &T) -> Ordering,
) {
    let (index, slot) = at;
    match extremes {
        Some(extremes) => extremes.add(value, index, slot, compare),
        None => *extremes = Some(Extremes::new(value, index, slot)),
    }
}

fn integer_order(left: &i64, right: &i64) -> Ordering {
    left.cmp(right)
}

fn double_order(left: &f64, right: &f64) -> Ordering {
    left.total_cmp(right)
}

/// Adds to `extremes` those of `run`, a run's: as many additions one at a time, in order,
/// would give.
#[inline]
fn add_run_extremes<V: StoredNumber>(extremes: &mut Extremes<V>, run: RunExtremes, at: &Run) {
    let (min_slot, max_slot) = (at.slot + run.min_at as u32, at.slot + run.max_at as u32);
    let to_min = V::order_key(run.min)
        .cmp(&V::order_key(extremes.min.to_stored()))
        .then(extremes.min_slot.cmp(&min_slot));
    if to_min == Ordering::Less {
        extremes.min = V::from_stored(run.min);
        (extremes.min_index, extremes.min_slot) = (at.index + run.min_at, min_slot);
    }
    let to_max = V::order_key(run.max)
        .cmp(&V::order_key(extremes.max.to_stored()))
        .then(extremes.max_slot.cmp(&max_slot));
    if to_max == Ordering::Greater {
        extremes.max = V::from_stored(run.max);
        (extremes.max_index, extremes.max_slot) = (at.index + run.max_at, max_slot);
    }
}

/// Adds to `extremes` the stored `values` of `run` (`values` empty when the array is stored
/// empty, zero everywhere).
#[inline]
fn add_run_array<V: StoredNumber>(
    extremes: &mut Extremes<V>,
    values: StoredIntegers<'_>,
    run: &Run,
) {
    if let Some(extremes_of_run) = run_extremes::<V>(values, run.len) {
        add_run_extremes(extremes, extremes_of_run, run);
    }
}

/// `sum` plus each of `values` (at most a chunk's) with saturation, as as many
/// `saturating_add` in order give.
#[inline]
fn saturating_sum(sum: i64, values: StoredIntegers<'_>) -> i64 {
    add_total(sum, plain_total(values), values)
}

/// `sum` plus `values` as [`saturating_sum`] adds them, given their [`plain_total`] `total`.
#[inline]
fn add_total(sum: i64, total: Option<i64>, values: StoredIntegers<'_>) -> i64 {
    match total {
        Some(total) => sum.saturating_add(total),
        None => {
            let mut buffer: RunBuffer = [0; super::CHUNK_SLOT_COUNT as usize];
            let values = values.read_into(&mut buffer);
            values
                .iter()
                .fold(sum, |sum, value| sum.saturating_add(*value))
        }
    }
}

/// Starts `extremes` at the run's first value if nothing was folded yet, then adds the run.
#[inline]
fn add_run_bounds<V: StoredNumber>(
    extremes: &mut Option<Extremes<V>>,
    values: StoredIntegers<'_>,
    run: &Run,
) {
    if let Some(extremes_of_run) = run_extremes::<V>(values, run.len) {
        add_bound_extremes(extremes, values.at(0), extremes_of_run, run);
    }
}

/// Starts `extremes` at `first` (a run's first value) if nothing was folded yet, then adds
/// the run's extremes `extremes_of_run`.
#[inline]
fn add_bound_extremes<V: StoredNumber>(
    extremes: &mut Option<Extremes<V>>,
    first: i64,
    extremes_of_run: RunExtremes,
    run: &Run,
) {
    let extremes =
        extremes.get_or_insert_with(|| Extremes::new(V::from_stored(first), run.index, run.slot));
    add_run_extremes(extremes, extremes_of_run, run);
}

/// The least low and greatest high of one column, kept in its kind's representation: integers
/// and doubles as read from the arrays (no value built per partition), decimals as values.
enum BoundFold {
    Integer {
        low: Option<Extremes<i64>>,
        high: Option<Extremes<i64>>,
    },
    Double {
        low: Option<Extremes<f64>>,
        high: Option<Extremes<f64>>,
    },
    Decimal {
        low: Option<Extremes<StatsValue>>,
        high: Option<Extremes<StatsValue>>,
    },
}

impl BoundFold {
    fn new(kind: StatsKind) -> Self {
        match kind {
            StatsKind::Double => BoundFold::Double {
                low: None,
                high: None,
            },
            StatsKind::Decimal => BoundFold::Decimal {
                low: None,
                high: None,
            },
            _ => BoundFold::Integer {
                low: None,
                high: None,
            },
        }
    }

    /// Adds the bounds of the slot at `offset` of `chunk`, `at` (request position, slot).
    fn add(&mut self, chunk: &StoredChunk<'_>, offset: usize, at: (usize, u32), kind: StatsKind) {
        let flags = chunk.flags.get(offset).copied().unwrap_or_default();
        let (has_low, has_high) = (flags & HAS_LOW != 0, flags & HAS_HIGH != 0);
        match self {
            BoundFold::Integer { low, high } => {
                if has_low {
                    add_extreme(low, chunk.lows.at(offset), at, integer_order);
                }
                if has_high {
                    add_extreme(high, chunk.highs.at(offset), at, integer_order);
                }
            }
            BoundFold::Double { low, high } => {
                if has_low {
                    let value = chunk.lows.double_at(offset);
                    add_extreme(low, value, at, double_order);
                }
                if has_high {
                    let value = chunk.highs.double_at(offset);
                    add_extreme(high, value, at, double_order);
                }
            }
            BoundFold::Decimal { low, high } => {
                let value = |numbers: StoredIntegers<'_>, high: bool| {
                    bound_value(kind, numbers.at(offset), chunk.decimal_at(offset, high))
                };
                if has_low {
                    add_extreme(low, value(chunk.lows, false), at, compare_values);
                }
                if has_high {
                    add_extreme(high, value(chunk.highs, true), at, compare_values);
                }
            }
        }
    }

    /// Adds the bounds of a run whose slots all have both bounds or all lack one (`flags`
    /// tells), as [`BoundFold::add`] slot by slot would; `false` (nothing added) for decimals.
    fn add_run(&mut self, chunk: &StoredChunk<'_>, run: &Run, flags: u8) -> bool {
        let range = run.offset..run.offset + run.len;
        let (lows, highs) = (chunk.lows.part(range.clone()), chunk.highs.part(range));
        let (with_low, with_high) = (flags & HAS_LOW != 0, flags & HAS_HIGH != 0);
        match self {
            BoundFold::Integer { low, high } => {
                if with_low {
                    add_run_bounds(low, lows, run);
                }
                if with_high {
                    add_run_bounds(high, highs, run);
                }
            }
            BoundFold::Double { low, high } => {
                // Doubles' bits, ordered as `total_cmp` orders the doubles.
                if with_low {
                    add_run_bounds(low, lows, run);
                }
                if with_high {
                    add_run_bounds(high, highs, run);
                }
            }
            BoundFold::Decimal { .. } => return false,
        }
        true
    }

    /// Adds the bounds of a run over a whole chunk from the chunk's summary, as
    /// [`BoundFold::add_run`] would; `false` (nothing added) for decimals, which have none.
    fn add_summary(&mut self, summary: &ChunkSummary, run: &Run) -> bool {
        let (with_low, with_high) = (
            summary.bound_flags & HAS_LOW != 0,
            summary.bound_flags & HAS_HIGH != 0,
        );
        match self {
            BoundFold::Integer { low, high } => {
                if with_low {
                    add_bound_extremes(low, summary.lows_first, summary.lows, run);
                }
                if with_high {
                    add_bound_extremes(high, summary.highs_first, summary.highs, run);
                }
            }
            BoundFold::Double { low, high } => {
                if with_low {
                    add_bound_extremes(low, summary.lows_first, summary.lows, run);
                }
                if with_high {
                    add_bound_extremes(high, summary.highs_first, summary.highs, run);
                }
            }
            BoundFold::Decimal { .. } => return false,
        }
        true
    }

    /// The least low and greatest high, as values.
    fn into_values(self) -> (Option<Extremes<StatsValue>>, Option<Extremes<StatsValue>>) {
        fn to_values<T>(
            extremes: Option<Extremes<T>>,
            value: impl Fn(T) -> StatsValue,
        ) -> Option<Extremes<StatsValue>> {
            extremes.map(|extremes| Extremes {
                min: value(extremes.min),
                min_index: extremes.min_index,
                min_slot: extremes.min_slot,
                max: value(extremes.max),
                max_index: extremes.max_index,
                max_slot: extremes.max_slot,
            })
        }
        match self {
            BoundFold::Integer { low, high } => (
                to_values(low, StatsValue::Integer),
                to_values(high, StatsValue::Integer),
            ),
            BoundFold::Double { low, high } => (
                to_values(low, StatsValue::Double),
                to_values(high, StatsValue::Double),
            ),
            BoundFold::Decimal { low, high } => (low, high),
        }
    }
}

/// Consecutive request positions `index..index + len` whose slots `slot..slot + len` are
/// offsets `offset..offset + len` of the chunk at `chunk_index` of the loaded range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Run {
    pub(super) chunk_index: usize,
    pub(super) offset: usize,
    pub(super) len: usize,
    pub(super) index: usize,
    pub(super) slot: u32,
}

/// The runs of `slots` ((request position, slot), in request order), chunks numbered from
/// `first_chunk`.
pub(super) fn runs_of(slots: &[(usize, u32)], first_chunk: u32) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for &(index, slot) in slots {
        let (chunk, offset) = super::chunk::chunk_of(slot);
        let chunk_index = (chunk - first_chunk) as usize;
        if let Some(last) = runs.last_mut() {
            let continues = last.chunk_index == chunk_index
                && last.index + last.len == index
                && last.offset + last.len == offset;
            if continues {
                last.len += 1;
                continue;
            }
        }
        runs.push(Run {
            chunk_index,
            offset,
            len: 1,
            index,
            slot,
        });
    }
    runs
}

/// One column's fold over the requested partitions.
pub(super) struct Accumulator {
    kind: StatsKind,
    column_type: String,
    count: i64,
    nulls_sum: i64,
    trues_sum: i64,
    falses_sum: i64,
    distinct: Extremes<i64>,
    max_length: Extremes<i64>,
    avg_length: Extremes<f64>,
    bounds: BoundFold,
    /// The slots counted, while every one of them has a sketch (with whether it is in its
    /// chunk's sketch value); `None` once one has none.
    pub(super) sketched_slots: Option<Vec<(u32, bool)>>,
}

impl Accumulator {
    /// The fold of a column whose first partition with statistics, at request position
    /// `index`, is at `offset` of `chunk` (which [`Accumulator::add`] then adds, changing no
    /// extreme); `None` when that slot holds none.
    fn new(chunk: &StoredChunk<'_>, offset: usize, index: usize, slot: u32) -> Option<Self> {
        let kind = StatsKind::from_byte(*chunk.kinds.get(offset)?)?;
        Some(Accumulator {
            kind,
            column_type: chunk.column_type(offset).to_string(),
            count: 0,
            nulls_sum: 0,
            trues_sum: 0,
            falses_sum: 0,
            distinct: Extremes::new(chunk.num_distinct_values.at(offset), index, slot),
            max_length: Extremes::new(chunk.max_lengths.at(offset), index, slot),
            avg_length: Extremes::new(chunk.avg_lengths.double_at(offset), index, slot),
            bounds: BoundFold::new(kind),
            sketched_slots: Some(Vec::new()),
        })
    }

    /// Adds the partition at request position `index`, at `offset` of `chunk`, slot
    /// `slot_number`. Statistics of another kind than the first seen (the column was written
    /// with two types), or none, are not counted.
    fn add(&mut self, chunk: &StoredChunk<'_>, offset: usize, index: usize, slot: u32) -> bool {
        if chunk.kinds.get(offset) != Some(&(self.kind as u8)) {
            return false;
        }
        self.count += 1;
        let flags = chunk.flags.get(offset).copied().unwrap_or_default();
        if flags & HAS_BIT_VECTORS == 0 {
            self.sketched_slots = None;
        } else if let Some(sketched) = &mut self.sketched_slots {
            sketched.push((slot, flags & SKETCH_IN_CHUNK != 0));
        }
        let nulls = chunk.num_nulls.at(offset);
        self.nulls_sum = self.nulls_sum.saturating_add(nulls);
        let trues = chunk.num_trues.at(offset);
        self.trues_sum = self.trues_sum.saturating_add(trues);
        let falses = chunk.num_falses.at(offset);
        self.falses_sum = self.falses_sum.saturating_add(falses);
        let distinct = chunk.num_distinct_values.at(offset);
        self.distinct.add(distinct, index, slot, integer_order);
        let max_length = chunk.max_lengths.at(offset);
        self.max_length.add(max_length, index, slot, integer_order);
        let avg_length = chunk.avg_lengths.double_at(offset);
        self.avg_length.add(avg_length, index, slot, double_order);
        self.bounds.add(chunk, offset, (index, slot), self.kind);
        true
    }

    /// Adds a whole run in tight loops when every slot of it holds statistics of the column's
    /// kind with the same bounds present, as [`Accumulator::add`] slot by slot would; `false`
    /// (nothing added) otherwise.
    fn add_run<'a>(&mut self, chunk: &StoredChunk<'a>, run: &Run) -> bool {
        if run.offset == 0 && run.len == chunk.kinds.len() {
            if let Some(summary) = chunk.summary() {
                return self.add_whole_chunk(chunk, summary, run);
            }
        }
        let range = run.offset..run.offset + run.len;
        let (Some(kinds), Some(flags)) = (
            chunk.kinds.get(range.clone()),
            chunk.flags.get(range.clone()),
        ) else {
            return false;
        };
        // Folds without early exits, which vectorise: the run is short, and usually passes.
        let kind = self.kind as u8;
        if kinds
            .iter()
            .fold(0, |other, stored| other | (stored ^ kind))
            != 0
        {
            return false;
        }
        let bound_flags = flags[0] & (HAS_LOW | HAS_HIGH);
        let differ =
            |other: u8, stored: &u8| other | ((stored & (HAS_LOW | HAS_HIGH)) ^ bound_flags);
        if flags.iter().fold(0, differ) != 0 {
            return false;
        }
        if !self.bounds.add_run(chunk, run, bound_flags) {
            return false;
        }
        self.count += run.len as i64;
        self.add_sketched(flags, run.slot);
        let part = |values: StoredIntegers<'a>| values.part(range.clone());
        self.nulls_sum = saturating_sum(self.nulls_sum, part(chunk.num_nulls));
        self.trues_sum = saturating_sum(self.trues_sum, part(chunk.num_trues));
        self.falses_sum = saturating_sum(self.falses_sum, part(chunk.num_falses));
        let distinct = part(chunk.num_distinct_values);
        add_run_array(&mut self.distinct, distinct, run);
        add_run_array(&mut self.max_length, part(chunk.max_lengths), run);
        add_run_array(&mut self.avg_length, part(chunk.avg_lengths), run);
        true
    }

    /// Adds a run that covers every offset of `chunk`, from the chunk's summary, as
    /// [`Accumulator::add_run`]'s loops would; `false` (nothing added) for another kind.
    fn add_whole_chunk(
        &mut self,
        chunk: &StoredChunk<'_>,
        summary: &ChunkSummary,
        run: &Run,
    ) -> bool {
        if summary.kind != self.kind as u8 {
            return false;
        }
        if !self.bounds.add_summary(summary, run) {
            return false;
        }
        self.count += run.len as i64;
        self.add_sketched(chunk.flags, run.slot);
        self.nulls_sum = add_total(self.nulls_sum, summary.nulls, chunk.num_nulls);
        self.trues_sum = add_total(self.trues_sum, summary.trues, chunk.num_trues);
        self.falses_sum = add_total(self.falses_sum, summary.falses, chunk.num_falses);
        add_run_extremes(&mut self.distinct, summary.distinct, run);
        add_run_extremes(&mut self.max_length, summary.max_length, run);
        add_run_extremes(&mut self.avg_length, summary.avg_length, run);
        true
    }

    /// Records the sketches of a run's slots from `slot` on, whose flags are `flags`: their
    /// slots while every one has one, else none from then on.
    fn add_sketched(&mut self, flags: &[u8], slot: u32) {
        let sketched = flags
            .iter()
            .fold(HAS_BIT_VECTORS, |all, stored| all & stored)
            != 0;
        match (&mut self.sketched_slots, sketched) {
            (Some(slots), true) => slots.extend(
                flags
                    .iter()
                    .zip(slot..)
                    .map(|(stored, slot)| (slot, stored & SKETCH_IN_CHUNK != 0)),
            ),
            (slots, _) => *slots = None,
        }
    }

    /// How many partitions were counted.
    pub(super) fn found(&self) -> usize {
        usize::try_from(self.count).unwrap_or(usize::MAX)
    }

    /// Whether Hive would merge sketches for the NDV: every partition that has statistics
    /// has a sketch, and no extrapolation (all requested partitions found, or fewer than two).
    pub(super) fn merges_sketches(&self, requested: usize) -> bool {
        let found = self.found();
        let sketched = self
            .sketched_slots
            .as_ref()
            .is_some_and(|slots| !slots.is_empty());
        sketched && (found >= requested || found < 2)
    }

    /// The statistics folded; `sketch_ndv` is the NDV of the merged sketches, when they
    /// merged (Hive then takes it as it is, without capping it by the value range).
    pub(super) fn finish(
        self,
        column: &str,
        requested: usize,
        sketch_ndv: Option<i64>,
    ) -> ColumnStatistics {
        let mut stats = ColumnStatistics::new(column, &self.column_type, self.kind);
        let (low, high) = self.bounds.into_values();
        let found = usize::try_from(self.count).unwrap_or(usize::MAX);
        let extrapolate = found >= 2 && found < requested;
        if extrapolate {
            let border = requested - 1;
            let scale = |sum: i64| {
                let scaled = i128::from(sum / self.count) * requested as i128;
                i64::try_from(scaled).unwrap_or(i64::MAX)
            };
            stats.num_nulls = scale(self.nulls_sum);
            stats.num_trues = scale(self.trues_sum);
            stats.num_falses = scale(self.falses_sum);
            stats.num_distinct_values = linear_integer(&self.distinct, Aim::Max, border);
            stats.max_length = linear_integer(&self.max_length, Aim::Max, border);
            stats.avg_length = linear_double(&self.avg_length, Aim::Max, border);
            stats.low_value = low.map(|low| linear_value(&low, Aim::Min, border));
            stats.high_value = high.map(|high| linear_value(&high, Aim::Max, border));
        } else {
            stats.num_nulls = self.nulls_sum;
            stats.num_trues = self.trues_sum;
            stats.num_falses = self.falses_sum;
            stats.num_distinct_values = self.distinct.max;
            stats.max_length = self.max_length.max;
            stats.avg_length = self.avg_length.max;
            stats.low_value = low.map(|low| low.min);
            stats.high_value = high.map(|high| high.max);
        }
        if let Some(ndv) = sketch_ndv {
            stats.num_distinct_values = ndv;
        } else if self.kind.has_integer_bounds() {
            if let (Some(StatsValue::Integer(low)), Some(StatsValue::Integer(high))) =
                (&stats.low_value, &stats.high_value)
            {
                let span = i128::from(*high) - i128::from(*low) + 1;
                if span > 0 && i128::from(stats.num_distinct_values) > span {
                    stats.num_distinct_values = i64::try_from(span).unwrap_or(i64::MAX);
                }
            }
        }
        stats
    }
}

/// How a column is folded: by runs where they allow it, or slot by slot (the reference the
/// tests compare the runs with).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FoldBy {
    Runs,
    #[cfg_attr(not(test), allow(dead_code))]
    Slots,
}

/// How many of the requested columns each request position was found with: counted per run
/// for runs added whole (a column adds one to a run, not to each of its positions), per
/// position for those added slot by slot.
pub(super) struct ColumnsFound {
    by_position: Vec<usize>,
    by_run: Vec<usize>,
}

impl ColumnsFound {
    pub(super) fn new(positions: usize, runs: &[Run]) -> Self {
        ColumnsFound {
            by_position: vec![0; positions],
            by_run: vec![0; runs.len()],
        }
    }

    /// The count of each request position.
    pub(super) fn by_position(mut self, runs: &[Run]) -> Vec<usize> {
        for (run, found) in runs.iter().zip(&self.by_run) {
            for position in &mut self.by_position[run.index..run.index + run.len] {
                *position += found;
            }
        }
        self.by_position
    }
}

/// Folds one column over `runs`, its chunks given by number minus the first of the range;
/// each request position counted gets one more in `found`. `None` when no requested
/// partition has statistics for the column.
pub(super) fn fold_column<'a>(
    chunk_at: impl Fn(usize) -> Option<StoredChunk<'a>>,
    runs: &[Run],
    found: &mut ColumnsFound,
    by: FoldBy,
) -> Option<Accumulator> {
    let mut accumulator: Option<Accumulator> = None;
    for (run_number, run) in runs.iter().enumerate() {
        let Some(chunk) = chunk_at(run.chunk_index) else {
            continue;
        };
        if let (Some(folding), FoldBy::Runs) = (&mut accumulator, by) {
            if folding.add_run(&chunk, run) {
                found.by_run[run_number] += 1;
                continue;
            }
        }
        for step in 0..run.len {
            let (offset, index) = (run.offset + step, run.index + step);
            let folding = match &mut accumulator {
                Some(folding) => folding,
                None => match Accumulator::new(&chunk, offset, index, run.slot + step as u32) {
                    Some(started) => accumulator.insert(started),
                    None => continue,
                },
            };
            if folding.add(&chunk, offset, index, run.slot + step as u32) {
                found.by_position[index] += 1;
            }
        }
    }
    accumulator
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::chunk::StatsChunk;
    use crate::stats::stored_chunk::KeptStatsChunk;
    use crate::stats::stored_chunk::PLAIN_SUM_VALUE_LIMIT;
    use crate::stats::StatsDecimal;
    use proptest::prelude::*;

    /// Statistics of some kind, with values drawn from `numbers` (small ranges, so that
    /// extremes tie and positions matter).
    fn statistics(kind: u8, numbers: [i64; 8], flags: u8) -> Option<ColumnStatistics> {
        let kind = StatsKind::from_byte(kind)?;
        let mut stats =
            ColumnStatistics::new("c", ["bigint", "int"][numbers[7] as usize & 1], kind);
        stats.num_nulls = numbers[0];
        stats.num_distinct_values = numbers[1];
        let bound = |number: i64| match kind {
            StatsKind::Double => StatsValue::Double(number as f64 / 4.0),
            StatsKind::Decimal => StatsValue::Decimal(StatsDecimal {
                unscaled: vec![number as u8],
                scale: 1,
            }),
            _ => StatsValue::Integer(number),
        };
        stats.low_value = (flags & 1 != 0).then(|| bound(numbers[2]));
        stats.high_value = (flags & 2 != 0).then(|| bound(numbers[3]));
        stats.max_length = numbers[4];
        stats.avg_length = numbers[5] as f64 / 3.0;
        stats.num_trues = numbers[6];
        stats.num_falses = numbers[7];
        stats.bit_vectors = (flags & 4 != 0).then(|| vec![1]);
        Some(stats)
    }

    fn slot_strategy() -> impl Strategy<Value = (u8, [i64; 8], u8)> {
        // Kinds 0 (none), 2 (long, most), 3 (double), 6 (decimal); numbers mostly small,
        // sometimes huge (saturation) or negative.
        let kind = prop_oneof![4 => Just(2u8), 1 => Just(0u8), 1 => Just(3u8), 1 => Just(6u8)];
        let number = prop_oneof![8 => -3i64..20, 1 => Just(i64::MAX / 2), 1 => Just(i64::MIN / 2)];
        let numbers = proptest::array::uniform8(number);
        (kind, numbers, prop_oneof![6 => Just(7u8), 1 => 0u8..8])
    }

    /// Folds `slots` ((kind, numbers, flags) by slot) by runs and slot by slot and returns both
    /// results (statistics, columns found, sketched slots), formatted. `order` makes gaps in
    /// a request in slot order, or shuffles it.
    fn fold_both_ways(
        slots: &[(u8, [i64; 8], u8)],
        order: &[usize],
        shuffled: bool,
    ) -> (String, String) {
        // Goal: folding by runs gives exactly what folding slot by slot gives, whatever
        // the kinds, bounds, sketches, values (ties, negatives, saturation) and request
        // order. Method: random chunks; requests in slot order with gaps, or shuffled.
        let mut unpacked: Vec<StatsChunk> = Vec::new();
        for (slot, (kind, numbers, flags)) in slots.iter().enumerate() {
            let (chunk, offset) = crate::stats::chunk::chunk_of(slot as u32);
            if unpacked.len() <= chunk as usize {
                unpacked.resize_with(chunk as usize + 1, StatsChunk::default);
            }
            if let Some(stats) = statistics(*kind, *numbers, *flags) {
                unpacked[chunk as usize].set(offset, &stats, 1);
            }
        }
        // Kept as the store keeps them: stored values read in place.
        let chunks: Vec<KeptStatsChunk> = unpacked.iter().map(KeptStatsChunk::from_chunk).collect();
        let mut requested: Vec<u32> = (0..slots.len() as u32).collect();
        if shuffled {
            for (step, swap) in order.iter().enumerate() {
                let (left, right) = (step % requested.len(), swap % requested.len());
                requested.swap(left, right);
            }
        } else {
            // Gaps: some slots left out of the request (their positions too).
            requested.retain(|slot| !order.contains(&(*slot as usize)));
        }
        let positions: Vec<(usize, u32)> = requested.iter().copied().enumerate().collect();
        let runs = runs_of(&positions, 0);
        let fold = |by| {
            let mut found = ColumnsFound::new(requested.len(), &runs);
            let folded = fold_column(
                |index| chunks.get(index).map(KeptStatsChunk::arrays),
                &runs,
                &mut found,
                by,
            );
            let found = found.by_position(&runs);
            let sketched = folded
                .as_ref()
                .and_then(|folded| folded.sketched_slots.clone());
            let result = folded.map(|folded| {
                let requested = requested.len() + usize::from(shuffled);
                folded.finish("c", requested, None)
            });
            (result, found, sketched)
        };
        let (by_runs, by_slots) = (fold(FoldBy::Runs), fold(FoldBy::Slots));
        // Doubles compared by bits (NaN-free here, but -0.0 and 0.0 must not blur).
        (format!("{:?}", by_runs), format!("{:?}", by_slots))
    }

    /// Slots whose chunks are each of one kind (long or double) with the same bounds present,
    /// as most are, so that whole chunks fold from their summaries; sketches vary. Most chunks
    /// hold small non-negative numbers around a chunk's own base (so that a later chunk moves
    /// the extremes, and totals are plain), some the wild numbers of [`slot_strategy`].
    fn uniform_chunks_strategy() -> impl Strategy<Value = Vec<(u8, [i64; 8], u8)>> {
        let wild = prop_oneof![8 => -3i64..20, 1 => Just(i64::MAX / 2), 1 => Just(i64::MIN / 2)];
        let slot = (
            proptest::array::uniform8(0i64..1000),
            proptest::array::uniform8(wild),
            any::<bool>(),
        );
        let chunk = (
            prop_oneof![Just(2u8), Just(3u8)],
            0u8..4,
            0i64..100_000,
            proptest::bool::weighted(0.75),
            proptest::collection::vec(slot, 128),
        );
        proptest::collection::vec(chunk, 1..5).prop_flat_map(|chunks| {
            let slots: Vec<(u8, [i64; 8], u8)> = chunks
                .into_iter()
                .flat_map(|(kind, bounds, base, plain, slots)| {
                    slots.into_iter().map(move |(small, wild, sketched)| {
                        let numbers = match plain {
                            true => small.map(|number| base + number),
                            false => wild,
                        };
                        (kind, numbers, bounds | if sketched { 4 } else { 0 })
                    })
                })
                .collect();
            let total = slots.len();
            // The last chunk partly filled, as a table's newest.
            (Just(slots), 1..=total).prop_map(|(mut slots, len)| {
                slots.truncate(len);
                slots
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn runs_fold_as_slot_by_slot(
            slots in proptest::collection::vec(slot_strategy(), 1..300),
            order in proptest::collection::vec(0usize..400, 0..40),
            shuffled in any::<bool>(),
        ) {
            // Goal: folding by runs gives exactly what folding slot by slot gives, whatever
            // the kinds, bounds, sketches, values (ties, negatives, saturation) and request
            // order. Method: random chunks; requests in slot order with gaps, or shuffled.
            let (by_runs, by_slots) = fold_both_ways(&slots, &order, shuffled);
            prop_assert_eq!(by_runs, by_slots);
        }

        #[test]
        fn whole_chunks_fold_from_their_summaries_as_slot_by_slot(
            slots in uniform_chunks_strategy(),
            order in proptest::collection::vec(0usize..400, 0..3),
            shuffled in proptest::bool::weighted(0.1),
        ) {
            // Goal: a run over a whole chunk, added from the chunk's summary, gives what
            // folding its slots one by one gives. Method: chunks of one kind and bounds each
            // (else no summary is made), values with ties, negatives and saturation; requests
            // mostly whole, some with a gap or two, a few shuffled.
            let (by_runs, by_slots) = fold_both_ways(&slots, &order, shuffled);
            prop_assert_eq!(by_runs, by_slots);
        }
    }

    #[test]
    fn runs_break_at_chunks_gaps_and_order() {
        let positions = [(0, 126), (1, 127), (2, 128), (3, 129), (4, 131), (5, 130)];
        let runs = runs_of(&positions, 0);
        let starts: Vec<(usize, usize, usize)> = runs
            .iter()
            .map(|run| (run.chunk_index, run.offset, run.len))
            .collect();
        assert_eq!(starts, vec![(0, 126, 2), (1, 0, 2), (1, 3, 1), (1, 2, 1)]);
    }

    #[test]
    fn saturating_sums_match_one_at_a_time() {
        let cases: [&[i64]; 6] = [
            &[i64::MAX, 1, -5],
            &[PLAIN_SUM_VALUE_LIMIT - 1, PLAIN_SUM_VALUE_LIMIT - 1, 5],
            &[PLAIN_SUM_VALUE_LIMIT, i64::MAX / 2, i64::MAX / 2, 3],
            &[i64::MAX - 1, 1, 1],
            &[-1, i64::MIN, -1, i64::MAX],
            &[1, 2, 3],
        ];
        for values in cases {
            for start in [0, i64::MIN, i64::MAX, -7] {
                let expected = values
                    .iter()
                    .fold(start, |sum, value| sum.saturating_add(*value));
                let bytes: Vec<u8> = values
                    .iter()
                    .flat_map(|value| value.to_le_bytes())
                    .collect();
                assert_eq!(
                    saturating_sum(start, StoredIntegers::new(&bytes)),
                    expected,
                    "{start} + {values:?}"
                );
            }
        }
    }
}
