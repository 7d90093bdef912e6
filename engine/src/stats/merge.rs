//! Hive's merge of two statistics of one column (`needMerge`, and partitions named twice in
//! one request): low the least, high the greatest, counts summed, lengths and distinct values
//! the greatest.
//!
//! Distinct values follow Hive's `mergeNumDistinctValueEstimator`: two sketches that merge
//! (HLL with HLL, FM with FM of as many vectors) give the merged sketch and its estimate; a
//! sketch on one side only is kept; otherwise the greater NDV. Histograms are kept when one
//! side has one; two are dropped (Hive merges its KLL sketches; hivestore does not read them).

use std::cmp::Ordering;

use super::fm::{FmSketch, FM_MAGIC};
use super::hll::Hll;
use super::{ColumnStatistics, StatsDecimal, StatsValue};

/// Decimals with an unscaled value of at most this many bytes compare exactly (as `i128`).
const EXACT_DECIMAL_LEN_MAX: usize = 16;

/// The unscaled value of `decimal` as an `i128`, if it fits.
pub(crate) fn unscaled_i128(decimal: &StatsDecimal) -> Option<i128> {
    let bytes = &decimal.unscaled;
    if bytes.is_empty() || bytes.len() > EXACT_DECIMAL_LEN_MAX {
        return None;
    }
    let fill = if bytes[0] & 0x80 != 0 { 0xFF } else { 0x00 };
    let mut full = [fill; EXACT_DECIMAL_LEN_MAX];
    full[EXACT_DECIMAL_LEN_MAX - bytes.len()..].copy_from_slice(bytes);
    Some(i128::from_be_bytes(full))
}

/// `decimal` as a double (inexact for long unscaled values).
pub(crate) fn decimal_to_f64(decimal: &StatsDecimal) -> f64 {
    let unscaled = match unscaled_i128(decimal) {
        Some(value) => value as f64,
        None => {
            // Longer than 16 bytes: accumulate the two's complement bytes in floating point.
            let negative = decimal
                .unscaled
                .first()
                .is_some_and(|byte| byte & 0x80 != 0);
            let magnitude = decimal.unscaled.iter().fold(0.0, |sum, byte| {
                let byte = if negative { !byte } else { *byte };
                sum * 256.0 + f64::from(byte)
            });
            if negative {
                -(magnitude + 1.0)
            } else {
                magnitude
            }
        }
    };
    unscaled / 10f64.powi(i32::from(decimal.scale))
}

/// The decimal Hive makes of an extrapolated double: Java's `Double.toString` text read as a
/// `BigDecimal` (`8.0` → unscaled 80, scale 1; `1.5E10` → unscaled 15, scale -9). Rust's
/// shortest round-trip digits stand in for Java's; non-finite values become zero.
pub(crate) fn decimal_from_java_double(value: f64) -> StatsDecimal {
    if !value.is_finite() {
        return StatsDecimal {
            unscaled: vec![0],
            scale: 0,
        };
    }
    let magnitude = value.abs();
    let (digits, scale) = if magnitude == 0.0 || (1e-3..1e7).contains(&magnitude) {
        let text = format!("{magnitude}");
        let (whole, fraction) = text.split_once('.').unwrap_or((text.as_str(), "0"));
        (format!("{whole}{fraction}"), fraction.len() as i64)
    } else {
        let text = format!("{magnitude:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((text.as_str(), "0"));
        let exponent: i64 = exponent.parse().unwrap_or(0);
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, "0"));
        (
            format!("{whole}{fraction}"),
            fraction.len() as i64 - exponent,
        )
    };
    let unscaled: i128 = digits.parse().unwrap_or(0);
    let unscaled = if value < 0.0 { -unscaled } else { unscaled };
    let scale = i16::try_from(scale).unwrap_or(0);
    StatsDecimal {
        unscaled: minimal_twos_complement(unscaled),
        scale,
    }
}

/// The shortest big-endian two's complement bytes of `value`, as Java's
/// `BigInteger.toByteArray` writes them.
fn minimal_twos_complement(value: i128) -> Vec<u8> {
    let bytes = value.to_be_bytes();
    let mut start = 0;
    while start + 1 < bytes.len() {
        let redundant = (bytes[start] == 0x00 && bytes[start + 1] & 0x80 == 0)
            || (bytes[start] == 0xFF && bytes[start + 1] & 0x80 != 0);
        if !redundant {
            break;
        }
        start += 1;
    }
    bytes[start..].to_vec()
}

fn compare_decimals(left: &StatsDecimal, right: &StatsDecimal) -> Ordering {
    if let (Some(left_unscaled), Some(right_unscaled)) = (unscaled_i128(left), unscaled_i128(right))
    {
        let scale = left.scale.max(right.scale);
        let widen = |value: i128, from: i16| {
            let factor = 10i128.checked_pow(u32::try_from(scale - from).ok()?)?;
            value.checked_mul(factor)
        };
        if let (Some(left), Some(right)) = (
            widen(left_unscaled, left.scale),
            widen(right_unscaled, right.scale),
        ) {
            return left.cmp(&right);
        }
    }
    decimal_to_f64(left).total_cmp(&decimal_to_f64(right))
}

/// The order of two bounds of one kind; bounds of different kinds compare as doubles.
pub(crate) fn compare_values(left: &StatsValue, right: &StatsValue) -> Ordering {
    match (left, right) {
        (StatsValue::Integer(left), StatsValue::Integer(right)) => left.cmp(right),
        (StatsValue::Decimal(left), StatsValue::Decimal(right)) => compare_decimals(left, right),
        _ => value_to_f64(left).total_cmp(&value_to_f64(right)),
    }
}

/// A bound as a double, for extrapolation and mixed comparisons.
pub(crate) fn value_to_f64(value: &StatsValue) -> f64 {
    match value {
        StatsValue::Integer(value) => *value as f64,
        StatsValue::Double(value) => *value,
        StatsValue::Decimal(decimal) => decimal_to_f64(decimal),
    }
}

/// The lesser (`want` = Less) or greater of two optional bounds; a missing one loses.
pub(crate) fn pick_bound(
    left: Option<StatsValue>,
    right: Option<StatsValue>,
    want: Ordering,
) -> Option<StatsValue> {
    match (left, right) {
        (Some(left), Some(right)) => {
            if compare_values(&right, &left) == want {
                Some(right)
            } else {
                Some(left)
            }
        }
        (left, right) => left.or(right),
    }
}

/// `new` merged with `old` by Hive's rules; `new`'s name and type win.
pub(crate) fn merge(old: ColumnStatistics, mut new: ColumnStatistics) -> ColumnStatistics {
    if old.kind != new.kind {
        // Hive's mergers cast to one type and fail on another; a kind change is a rewrite.
        return new;
    }
    new.low_value = pick_bound(old.low_value, new.low_value.take(), Ordering::Less);
    new.high_value = pick_bound(old.high_value, new.high_value.take(), Ordering::Greater);
    new.num_nulls = new.num_nulls.saturating_add(old.num_nulls);
    new.num_trues = new.num_trues.saturating_add(old.num_trues);
    new.num_falses = new.num_falses.saturating_add(old.num_falses);
    new.max_length = new.max_length.max(old.max_length);
    new.avg_length = new.avg_length.max(old.avg_length);
    merge_distinct_values(old.num_distinct_values, old.bit_vectors, &mut new);
    new.histogram = match (new.histogram.take(), old.histogram) {
        (Some(_), Some(_)) => None,
        (mine, theirs) => mine.or(theirs),
    };
    new
}

/// The NDV and sketch of `new` merged with the stored ones, as Hive's merger does with `new`
/// as the aggregate: it keeps its own sketch, or takes the stored one when it has none.
fn merge_distinct_values(old_ndv: i64, old_sketch: Option<Vec<u8>>, new: &mut ColumnStatistics) {
    let greatest = new.num_distinct_values.max(old_ndv);
    let (ndv, sketch) = match (new.bit_vectors.take(), old_sketch) {
        (None, None) => (greatest, None),
        (None, Some(theirs)) => match sketch_estimate(&theirs) {
            Some(estimate) => (new.num_distinct_values.max(estimate), Some(theirs)),
            // Bytes that are no sketch: Hive would fail the write; the NDV still merges.
            None => (greatest, None),
        },
        (Some(mine), None) => (greatest, Some(mine)),
        (Some(mine), Some(theirs)) => match merged_sketch(&mine, &theirs) {
            Some((merged, estimate)) => (estimate, Some(merged)),
            None => (greatest, Some(mine)),
        },
    };
    new.num_distinct_values = ndv;
    new.bit_vectors = sketch;
}

/// The estimate of a serialized sketch (Hive's dispatch: `FM` first, else an HLL).
fn sketch_estimate(bytes: &[u8]) -> Option<i64> {
    if bytes.starts_with(FM_MAGIC) {
        return Some(FmSketch::decode(bytes).ok()?.estimate());
    }
    Hll::decode(bytes).ok()?.estimate()
}

/// `theirs` merged into `mine` and the merged estimate; `None` when they do not merge (other
/// kinds, FM sizes, an HLL of fewer bits into one of more), or when the merged HLL cannot be
/// estimated here (dense, of another precision than Hive's stats write).
fn merged_sketch(mine: &[u8], theirs: &[u8]) -> Option<(Vec<u8>, i64)> {
    match (mine.starts_with(FM_MAGIC), theirs.starts_with(FM_MAGIC)) {
        (true, true) => {
            let mut merged = FmSketch::decode(mine).ok()?;
            merged.merge(&FmSketch::decode(theirs).ok()?).ok()?;
            Some((merged.encode(), merged.estimate()))
        }
        (false, false) => {
            let mut merged = Hll::decode(mine).ok()?;
            merged.merge(&Hll::decode(theirs).ok()?).ok()?;
            let estimate = merged.estimate()?;
            Some((merged.encode()?, estimate))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::StatsKind;
    use proptest::prelude::*;

    fn decimal(unscaled: i128, scale: i16) -> StatsDecimal {
        let bytes = unscaled.to_be_bytes().to_vec();
        StatsDecimal {
            unscaled: bytes,
            scale,
        }
    }

    #[test]
    fn extrapolated_decimals_read_like_javas_double_text() {
        let eight = decimal_from_java_double(8.0);
        assert_eq!((eight.unscaled, eight.scale), (vec![80], 1));
        let zero = decimal_from_java_double(0.0);
        assert_eq!((zero.unscaled, zero.scale), (vec![0], 1));
        let negative = decimal_from_java_double(-2.25);
        assert_eq!((unscaled_i128(&negative), negative.scale), (Some(-225), 2));
        let large = decimal_from_java_double(1.5e10);
        assert_eq!((unscaled_i128(&large), large.scale), (Some(15), -9));
    }

    #[test]
    fn merging_follows_hives_rules() {
        let mut old = ColumnStatistics::new("c", "bigint", StatsKind::Long);
        old.low_value = Some(StatsValue::Integer(-3));
        old.high_value = Some(StatsValue::Integer(10));
        old.num_nulls = 2;
        old.num_distinct_values = 9;
        let mut new = ColumnStatistics::new("c", "bigint", StatsKind::Long);
        new.high_value = Some(StatsValue::Integer(12));
        new.num_nulls = 1;
        new.num_distinct_values = 4;
        new.histogram = Some(b"KLL".to_vec());
        let merged = merge(old, new);
        assert_eq!(merged.low_value, Some(StatsValue::Integer(-3)));
        assert_eq!(merged.high_value, Some(StatsValue::Integer(12)));
        assert_eq!((merged.num_nulls, merged.num_distinct_values), (3, 9));
        assert_eq!(merged.bit_vectors, None);
        assert_eq!(merged.histogram, Some(b"KLL".to_vec()));
    }

    fn hll_of(hashes: impl IntoIterator<Item = u64>) -> Hll {
        let mut hll = Hll::new(10);
        for hash in hashes {
            hll.add_hash(hash);
        }
        hll
    }

    fn long_stats(ndv: i64, sketch: Option<Vec<u8>>) -> ColumnStatistics {
        let mut stats = ColumnStatistics::new("c", "bigint", StatsKind::Long);
        stats.num_distinct_values = ndv;
        stats.bit_vectors = sketch;
        stats
    }

    fn fm_bytes(vectors: &[u32]) -> Vec<u8> {
        let mut bytes = FM_MAGIC.to_vec();
        bytes.extend_from_slice(&(vectors.len() as u16).to_le_bytes());
        for vector in vectors {
            bytes.extend_from_slice(&vector.to_le_bytes());
        }
        bytes
    }

    #[test]
    fn a_sketch_on_one_side_is_kept() {
        // Goal: as Hive's merger with the written statistics as aggregate: the stored sketch
        // is taken (NDV the greater of the written NDV and its estimate) when the written
        // statistics have none; the written sketch stays (NDV the greater) when the stored
        // have none.
        let stored = hll_of(0..40).encode().unwrap();
        let stored_estimate = Hll::decode(&stored).unwrap().estimate().unwrap();
        let merged = merge(long_stats(3, Some(stored.clone())), long_stats(5, None));
        assert_eq!(merged.bit_vectors.as_deref(), Some(stored.as_slice()));
        assert_eq!(merged.num_distinct_values, stored_estimate.max(5));
        let written = hll_of(0..7).encode().unwrap();
        let merged = merge(long_stats(90, None), long_stats(7, Some(written.clone())));
        assert_eq!(merged.bit_vectors, Some(written));
        assert_eq!(merged.num_distinct_values, 90);
    }

    #[test]
    fn sketches_that_do_not_merge_keep_the_written_one_and_the_greater_ndv() {
        let written = fm_bytes(&[0b111, 0b1]);
        for stored in [
            fm_bytes(&[0b1]),
            hll_of(0..3).encode().unwrap(),
            b"junk".to_vec(),
        ] {
            let merged = merge(
                long_stats(50, Some(stored)),
                long_stats(4, Some(written.clone())),
            );
            assert_eq!(merged.bit_vectors.as_deref(), Some(written.as_slice()));
            assert_eq!(merged.num_distinct_values, 50);
        }
        let merged = merge(
            long_stats(1, Some(fm_bytes(&[0b1000, 0]))),
            long_stats(2, Some(written.clone())),
        );
        let expected = FmSketch::decode(&fm_bytes(&[0b1111, 0b1])).unwrap();
        assert_eq!(merged.bit_vectors, Some(expected.encode()));
        assert_eq!(merged.num_distinct_values, expected.estimate());
    }

    proptest! {
        #[test]
        fn merged_hll_statistics_carry_the_sketch_of_the_union(
            stored in proptest::collection::btree_set(any::<u64>(), 0..2000),
            written in proptest::collection::btree_set(any::<u64>(), 0..2000),
        ) {
            // Goal: needMerge of two HLL sketches gives the sketch of the union of what they
            // counted (the same registers, so the same estimate) and that estimate as NDV.
            let union = hll_of(stored.iter().chain(&written).copied());
            let merged = merge(
                long_stats(1, hll_of(stored.iter().copied()).encode()),
                long_stats(1, hll_of(written.iter().copied()).encode()),
            );
            let sketch = Hll::decode(merged.bit_vectors.as_deref().unwrap()).unwrap();
            prop_assert_eq!(sketch.estimate(), union.estimate());
            prop_assert_eq!(Some(merged.num_distinct_values), union.estimate());
            prop_assert_eq!(sketch.dense_registers(), union.dense_registers());
        }

        #[test]
        fn decimals_compare_by_value(a in -1_000_000i64..1_000_000, b in -1_000_000i64..1_000_000, sa in 0i16..6, sb in 0i16..6) {
            let left = decimal(i128::from(a), sa);
            let right = decimal(i128::from(b), sb);
            let exact = (i128::from(a) * 10i128.pow((6 - sa) as u32)).cmp(&(i128::from(b) * 10i128.pow((6 - sb) as u32)));
            prop_assert_eq!(compare_decimals(&left, &right), exact);
        }
    }
}
