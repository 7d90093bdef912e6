//! Column statistics between the IDL (`ColumnStatisticsObj`, the `ColumnStatisticsData` union)
//! and the engine's flat [`engine::ColumnStatistics`].

use hivestore_engine as engine;
use hivestore_idl::hive_metastore as idl;
use thrift::OrderedFloat;

use engine::{StatsDecimal, StatsKind, StatsValue};

fn integer(value: Option<i64>) -> Option<StatsValue> {
    value.map(StatsValue::Integer)
}

fn double(value: Option<OrderedFloat<f64>>) -> Option<StatsValue> {
    value.map(|value| StatsValue::Double(value.0))
}

fn decimal(value: Option<idl::Decimal>) -> Option<StatsValue> {
    value.map(|value| {
        StatsValue::Decimal(StatsDecimal {
            unscaled: value.unscaled,
            scale: value.scale,
        })
    })
}

/// One column's statistics from the wire: names and types lowercased, as Hive normalises them.
pub fn column_stats_from_idl(object: idl::ColumnStatisticsObj) -> engine::ColumnStatistics {
    use idl::ColumnStatisticsData as Data;
    let name = object.col_name.trim().to_lowercase();
    let column_type = object.col_type.trim().to_lowercase();
    let new = |kind| engine::ColumnStatistics::new(&name, &column_type, kind);
    match object.stats_data {
        Data::BooleanStats(data) => {
            let mut stats = new(StatsKind::Boolean);
            stats.num_trues = data.num_trues;
            stats.num_falses = data.num_falses;
            stats.num_nulls = data.num_nulls;
            stats.bit_vectors = data.bit_vectors;
            stats
        }
        Data::LongStats(data) => {
            let mut stats = new(StatsKind::Long);
            stats.low_value = integer(data.low_value);
            stats.high_value = integer(data.high_value);
            stats.num_nulls = data.num_nulls;
            stats.num_distinct_values = data.num_d_vs;
            stats.bit_vectors = data.bit_vectors;
            stats.histogram = data.histogram;
            stats
        }
        Data::DoubleStats(data) => {
            let mut stats = new(StatsKind::Double);
            stats.low_value = double(data.low_value);
            stats.high_value = double(data.high_value);
            stats.num_nulls = data.num_nulls;
            stats.num_distinct_values = data.num_d_vs;
            stats.bit_vectors = data.bit_vectors;
            stats.histogram = data.histogram;
            stats
        }
        Data::StringStats(data) => {
            let mut stats = new(StatsKind::String);
            stats.max_length = data.max_col_len;
            stats.avg_length = data.avg_col_len.0;
            stats.num_nulls = data.num_nulls;
            stats.num_distinct_values = data.num_d_vs;
            stats.bit_vectors = data.bit_vectors;
            stats
        }
        Data::BinaryStats(data) => {
            let mut stats = new(StatsKind::Binary);
            stats.max_length = data.max_col_len;
            stats.avg_length = data.avg_col_len.0;
            stats.num_nulls = data.num_nulls;
            stats.bit_vectors = data.bit_vectors;
            stats
        }
        Data::DecimalStats(data) => {
            let mut stats = new(StatsKind::Decimal);
            stats.low_value = decimal(data.low_value);
            stats.high_value = decimal(data.high_value);
            stats.num_nulls = data.num_nulls;
            stats.num_distinct_values = data.num_d_vs;
            stats.bit_vectors = data.bit_vectors;
            stats.histogram = data.histogram;
            stats
        }
        Data::DateStats(data) => {
            let mut stats = new(StatsKind::Date);
            stats.low_value = integer(data.low_value.map(|date| date.days_since_epoch));
            stats.high_value = integer(data.high_value.map(|date| date.days_since_epoch));
            stats.num_nulls = data.num_nulls;
            stats.num_distinct_values = data.num_d_vs;
            stats.bit_vectors = data.bit_vectors;
            stats.histogram = data.histogram;
            stats
        }
        Data::TimestampStats(data) => {
            let mut stats = new(StatsKind::Timestamp);
            let seconds = |value: Option<idl::Timestamp>| {
                integer(value.map(|timestamp| timestamp.seconds_since_epoch))
            };
            stats.low_value = seconds(data.low_value);
            stats.high_value = seconds(data.high_value);
            stats.num_nulls = data.num_nulls;
            stats.num_distinct_values = data.num_d_vs;
            stats.bit_vectors = data.bit_vectors;
            stats.histogram = data.histogram;
            stats
        }
    }
}

/// A bound of an integral kind (long, date, timestamp) as the wire carries it: a double bound
/// truncated, a decimal one dropped.
pub(crate) fn integer_bound(value: Option<&StatsValue>) -> Option<i64> {
    match value? {
        StatsValue::Integer(value) => Some(*value),
        StatsValue::Double(value) => Some(*value as i64),
        StatsValue::Decimal(_) => None,
    }
}

/// A bound of the double kind as the wire carries it; a decimal one dropped.
pub(crate) fn double_bound(value: Option<&StatsValue>) -> Option<f64> {
    match value? {
        StatsValue::Integer(value) => Some(*value as f64),
        StatsValue::Double(value) => Some(*value),
        StatsValue::Decimal(_) => None,
    }
}

/// A bound of the decimal kind as the wire carries it; any other dropped.
pub(crate) fn decimal_bound(value: Option<&StatsValue>) -> Option<&StatsDecimal> {
    match value? {
        StatsValue::Decimal(decimal) => Some(decimal),
        _ => None,
    }
}

fn as_integer(value: Option<StatsValue>) -> Option<i64> {
    integer_bound(value.as_ref())
}

fn as_double(value: Option<StatsValue>) -> Option<OrderedFloat<f64>> {
    double_bound(value.as_ref()).map(OrderedFloat)
}

fn as_decimal(value: Option<StatsValue>) -> Option<idl::Decimal> {
    decimal_bound(value.as_ref()).map(|decimal| idl::Decimal {
        unscaled: decimal.unscaled.clone(),
        scale: decimal.scale,
    })
}

/// One column's statistics toward the wire, in the union variant of its kind.
pub fn column_stats_to_idl(stats: engine::ColumnStatistics) -> idl::ColumnStatisticsObj {
    use idl::ColumnStatisticsData as Data;
    let data = match stats.kind {
        StatsKind::Boolean => Data::BooleanStats(idl::BooleanColumnStatsData {
            num_trues: stats.num_trues,
            num_falses: stats.num_falses,
            num_nulls: stats.num_nulls,
            bit_vectors: stats.bit_vectors,
        }),
        StatsKind::Long => Data::LongStats(idl::LongColumnStatsData {
            low_value: as_integer(stats.low_value),
            high_value: as_integer(stats.high_value),
            num_nulls: stats.num_nulls,
            num_d_vs: stats.num_distinct_values,
            bit_vectors: stats.bit_vectors,
            histogram: stats.histogram,
        }),
        StatsKind::Double => Data::DoubleStats(idl::DoubleColumnStatsData {
            low_value: as_double(stats.low_value),
            high_value: as_double(stats.high_value),
            num_nulls: stats.num_nulls,
            num_d_vs: stats.num_distinct_values,
            bit_vectors: stats.bit_vectors,
            histogram: stats.histogram,
        }),
        StatsKind::String => Data::StringStats(idl::StringColumnStatsData {
            max_col_len: stats.max_length,
            avg_col_len: OrderedFloat(stats.avg_length),
            num_nulls: stats.num_nulls,
            num_d_vs: stats.num_distinct_values,
            bit_vectors: stats.bit_vectors,
        }),
        StatsKind::Binary => Data::BinaryStats(idl::BinaryColumnStatsData {
            max_col_len: stats.max_length,
            avg_col_len: OrderedFloat(stats.avg_length),
            num_nulls: stats.num_nulls,
            bit_vectors: stats.bit_vectors,
        }),
        StatsKind::Decimal => Data::DecimalStats(idl::DecimalColumnStatsData {
            low_value: as_decimal(stats.low_value),
            high_value: as_decimal(stats.high_value),
            num_nulls: stats.num_nulls,
            num_d_vs: stats.num_distinct_values,
            bit_vectors: stats.bit_vectors,
            histogram: stats.histogram,
        }),
        StatsKind::Date => Data::DateStats(idl::DateColumnStatsData {
            low_value: as_integer(stats.low_value).map(|days| idl::Date {
                days_since_epoch: days,
            }),
            high_value: as_integer(stats.high_value).map(|days| idl::Date {
                days_since_epoch: days,
            }),
            num_nulls: stats.num_nulls,
            num_d_vs: stats.num_distinct_values,
            bit_vectors: stats.bit_vectors,
            histogram: stats.histogram,
        }),
        StatsKind::Timestamp => Data::TimestampStats(idl::TimestampColumnStatsData {
            low_value: as_integer(stats.low_value).map(|seconds| idl::Timestamp {
                seconds_since_epoch: seconds,
            }),
            high_value: as_integer(stats.high_value).map(|seconds| idl::Timestamp {
                seconds_since_epoch: seconds,
            }),
            num_nulls: stats.num_nulls,
            num_d_vs: stats.num_distinct_values,
            bit_vectors: stats.bit_vectors,
            histogram: stats.histogram,
        }),
    };
    idl::ColumnStatisticsObj {
        col_name: stats.column_name.into(),
        col_type: stats.column_type.into(),
        stats_data: data,
    }
}
