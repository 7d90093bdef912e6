//! One column's statistics (`ColumnStatisticsObj`) written from the engine's flat
//! `ColumnStatistics`, with the bytes the generated code writes for what
//! `convert_stats::column_stats_to_idl` builds: no IDL struct, no copied string. The bounds
//! go through the same rules as there (`integer_bound`, ...).

use hivestore_engine::{ColumnStatistics, StatsKind};
use thrift::protocol::TType;

use super::wire::Encoder;
use crate::convert_stats::{decimal_bound, double_bound, integer_bound};

/// About the bytes `column_statistics` writes for `stats` (a little more, so a reply reserved
/// by these hints is not grown): length prefixes, headers and numbers take at most 128 bytes
/// besides the names, sketches and decimal bounds.
pub(super) fn size_hint(stats: &ColumnStatistics) -> usize {
    let sketch = |value: &Option<Vec<u8>>| value.as_ref().map_or(0, Vec::len);
    let decimal = |value| decimal_bound(value).map_or(0, |decimal| decimal.unscaled.len());
    128 + stats.column_name.len()
        + stats.column_type.len()
        + sketch(&stats.bit_vectors)
        + sketch(&stats.histogram)
        + decimal(stats.low_value.as_ref())
        + decimal(stats.high_value.as_ref())
}

/// A `ColumnStatisticsObj` as a struct (a list element or a field's value).
pub(super) fn column_statistics(o: &mut Encoder<'_>, stats: &ColumnStatistics) {
    o.struct_begin();
    o.string_field(1, &stats.column_name);
    o.string_field(2, &stats.column_type);
    o.field(TType::Struct, 3);
    // The `ColumnStatisticsData` union: one field, the variant's struct.
    o.struct_begin();
    o.field(TType::Struct, variant_id(stats.kind));
    o.struct_begin();
    match stats.kind {
        StatsKind::Boolean => {
            o.i64_field(1, stats.num_trues);
            o.i64_field(2, stats.num_falses);
            o.i64_field(3, stats.num_nulls);
            optional_bytes_field(o, 4, stats.bit_vectors.as_deref());
        }
        StatsKind::Long => {
            integer_bounds(o, stats, |o, id, value| o.i64_field(id, value));
            counts_and_sketches(o, stats);
        }
        StatsKind::Double => {
            if let Some(low) = double_bound(stats.low_value.as_ref()) {
                o.double_field(1, low);
            }
            if let Some(high) = double_bound(stats.high_value.as_ref()) {
                o.double_field(2, high);
            }
            counts_and_sketches(o, stats);
        }
        StatsKind::String => {
            o.i64_field(1, stats.max_length);
            o.double_field(2, stats.avg_length);
            o.i64_field(3, stats.num_nulls);
            o.i64_field(4, stats.num_distinct_values);
            optional_bytes_field(o, 5, stats.bit_vectors.as_deref());
        }
        StatsKind::Binary => {
            o.i64_field(1, stats.max_length);
            o.double_field(2, stats.avg_length);
            o.i64_field(3, stats.num_nulls);
            optional_bytes_field(o, 4, stats.bit_vectors.as_deref());
        }
        StatsKind::Decimal => {
            let bounds = [&stats.low_value, &stats.high_value];
            for (id, bound) in (1..).zip(bounds) {
                if let Some(decimal) = decimal_bound(bound.as_ref()) {
                    // `Decimal`: unscaled (1), scale (3).
                    o.field(TType::Struct, id);
                    o.struct_begin();
                    o.bytes_field(1, &decimal.unscaled);
                    o.i16_field(3, decimal.scale);
                    o.struct_end();
                }
            }
            counts_and_sketches(o, stats);
        }
        // `Date` and `Timestamp` are structs of one i64 (field 1).
        StatsKind::Date | StatsKind::Timestamp => {
            integer_bounds(o, stats, |o, id, value| {
                o.field(TType::Struct, id);
                o.struct_begin();
                o.i64_field(1, value);
                o.struct_end();
            });
            counts_and_sketches(o, stats);
        }
    }
    o.struct_end();
    o.struct_end();
    o.struct_end();
}

/// The union field of each kind.
fn variant_id(kind: StatsKind) -> i16 {
    match kind {
        StatsKind::Boolean => 1,
        StatsKind::Long => 2,
        StatsKind::Double => 3,
        StatsKind::String => 4,
        StatsKind::Binary => 5,
        StatsKind::Decimal => 6,
        StatsKind::Date => 7,
        StatsKind::Timestamp => 8,
    }
}

/// Fields 1 (low) and 2 (high) of an integral kind, each written by `write` when known.
fn integer_bounds(
    o: &mut Encoder<'_>,
    stats: &ColumnStatistics,
    mut write: impl FnMut(&mut Encoder<'_>, i16, i64),
) {
    if let Some(low) = integer_bound(stats.low_value.as_ref()) {
        write(o, 1, low);
    }
    if let Some(high) = integer_bound(stats.high_value.as_ref()) {
        write(o, 2, high);
    }
}

/// Fields 3 to 6 of the kinds with bounds: nulls, distinct values, bitVectors, histogram.
fn counts_and_sketches(o: &mut Encoder<'_>, stats: &ColumnStatistics) {
    o.i64_field(3, stats.num_nulls);
    o.i64_field(4, stats.num_distinct_values);
    optional_bytes_field(o, 5, stats.bit_vectors.as_deref());
    optional_bytes_field(o, 6, stats.histogram.as_deref());
}

fn optional_bytes_field(o: &mut Encoder<'_>, id: i16, value: Option<&[u8]>) {
    if let Some(value) = value {
        o.bytes_field(id, value);
    }
}
