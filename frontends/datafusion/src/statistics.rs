//! The metastore's statistics as DataFusion's: row counts from `numRows`, nulls, bounds and
//! distinct values from column statistics; all `Inexact`, as a writer's statistics may be
//! stale.

use datafusion::arrow::datatypes::{DataType, Schema, TimeUnit};
use datafusion::common::stats::Precision;
use datafusion::common::{ColumnStatistics, ScalarValue, Statistics};

use crate::source::{ColumnSummary, StatsBound};

/// A big-endian two's complement integer of at most 16 bytes (Hive's decimal `unscaled`).
pub(crate) fn unscaled_from_bytes(bytes: &[u8]) -> Option<i128> {
    if bytes.is_empty() || bytes.len() > 16 {
        return None;
    }
    let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut wide = [fill; 16];
    wide[16 - bytes.len()..].copy_from_slice(bytes);
    Some(i128::from_be_bytes(wide))
}

/// Statistics of a scan of `schema`'s columns: `rows` if known, and each column's summary
/// from `summaries` where one is found by name.
pub(crate) fn statistics(
    schema: &Schema,
    rows: Option<u64>,
    summaries: &[ColumnSummary],
) -> Statistics {
    let mut statistics = Statistics::new_unknown(schema);
    if let Some(rows) = rows.and_then(|rows| usize::try_from(rows).ok()) {
        statistics.num_rows = Precision::Inexact(rows);
    }
    for (field, column) in schema
        .fields()
        .iter()
        .zip(&mut statistics.column_statistics)
    {
        if let Some(summary) = summaries
            .iter()
            .find(|summary| summary.column == *field.name())
        {
            *column = column_statistics(field.data_type(), summary);
        }
    }
    statistics
}

fn inexact_count(count: Option<u64>) -> Precision<usize> {
    count
        .and_then(|count| usize::try_from(count).ok())
        .map_or(Precision::Absent, Precision::Inexact)
}

fn column_statistics(data_type: &DataType, summary: &ColumnSummary) -> ColumnStatistics {
    let bound = |bound: &Option<StatsBound>| {
        bound
            .as_ref()
            .and_then(|bound| scalar(data_type, bound))
            .map_or(Precision::Absent, Precision::Inexact)
    };
    ColumnStatistics::new_unknown()
        .with_null_count(inexact_count(summary.null_count))
        .with_distinct_count(inexact_count(summary.distinct_count))
        .with_min_value(bound(&summary.min))
        .with_max_value(bound(&summary.max))
}

/// A bound as a scalar of the column's type; `None` where it does not fit the type.
fn scalar(data_type: &DataType, bound: &StatsBound) -> Option<ScalarValue> {
    let value = match (data_type, bound) {
        (DataType::Int8, StatsBound::Integer(value)) => {
            ScalarValue::Int8(Some(i8::try_from(*value).ok()?))
        }
        (DataType::Int16, StatsBound::Integer(value)) => {
            ScalarValue::Int16(Some(i16::try_from(*value).ok()?))
        }
        (DataType::Int32, StatsBound::Integer(value)) => {
            ScalarValue::Int32(Some(i32::try_from(*value).ok()?))
        }
        (DataType::Int64, StatsBound::Integer(value)) => ScalarValue::Int64(Some(*value)),
        (DataType::Date32, StatsBound::Integer(days)) => {
            ScalarValue::Date32(Some(i32::try_from(*days).ok()?))
        }
        (DataType::Timestamp(TimeUnit::Microsecond, None), StatsBound::Integer(seconds)) => {
            ScalarValue::TimestampMicrosecond(Some(seconds.checked_mul(1_000_000)?), None)
        }
        (DataType::Float32, StatsBound::Double(value)) => ScalarValue::Float32(Some(*value as f32)),
        (DataType::Float64, StatsBound::Double(value)) => ScalarValue::Float64(Some(*value)),
        (
            DataType::Decimal128(precision, scale),
            StatsBound::Decimal {
                unscaled,
                scale: from,
            },
        ) => {
            let shift = i16::from(*scale) - *from;
            let factor = 10i128.checked_pow(u32::try_from(shift.abs()).ok()?)?;
            let value = if shift >= 0 {
                unscaled.checked_mul(factor)?
            } else {
                // Rounding toward zero widens neither bound correctly: keep exact ones only.
                (unscaled % factor == 0).then(|| unscaled / factor)?
            };
            ScalarValue::Decimal128(Some(value), *precision, *scale)
        }
        _ => return None,
    };
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::Field;

    #[test]
    fn unscaled_bytes_are_signed_big_endian() {
        assert_eq!(unscaled_from_bytes(&[0x01, 0x00]), Some(256));
        assert_eq!(unscaled_from_bytes(&[0xff]), Some(-1));
        assert_eq!(unscaled_from_bytes(&[]), None);
        assert_eq!(unscaled_from_bytes(&[0; 17]), None);
    }

    #[test]
    fn summaries_become_column_statistics_by_name() {
        let schema = Schema::new(vec![
            Field::new("id", DataType::Int32, true),
            Field::new("price", DataType::Decimal128(10, 2), true),
            Field::new("name", DataType::Utf8, true),
        ]);
        let summaries = [
            ColumnSummary {
                column: "price".into(),
                null_count: Some(3),
                distinct_count: Some(40),
                min: Some(StatsBound::Decimal {
                    unscaled: 15,
                    scale: 1,
                }),
                max: Some(StatsBound::Decimal {
                    unscaled: 999,
                    scale: 2,
                }),
            },
            ColumnSummary {
                column: "id".into(),
                null_count: Some(0),
                distinct_count: Some(100),
                min: Some(StatsBound::Integer(1)),
                // Outside int: no bound rather than a wrong one.
                max: Some(StatsBound::Integer(i64::MAX)),
            },
        ];
        let statistics = statistics(&schema, Some(1000), &summaries);
        assert_eq!(statistics.num_rows, Precision::Inexact(1000));
        let [id, price, name] = &statistics.column_statistics[..] else {
            panic!("three columns");
        };
        assert_eq!(
            id.min_value,
            Precision::Inexact(ScalarValue::Int32(Some(1)))
        );
        assert_eq!(id.max_value, Precision::Absent);
        assert_eq!(id.distinct_count, Precision::Inexact(100));
        assert_eq!(price.null_count, Precision::Inexact(3));
        let min = ScalarValue::Decimal128(Some(150), 10, 2);
        assert_eq!(price.min_value, Precision::Inexact(min));
        assert_eq!(name.null_count, Precision::Absent);
    }
}
