//! Hive's column types as Arrow's, and partition values as scalars of those types.

use datafusion::arrow::datatypes::{DataType, TimeUnit, DECIMAL128_MAX_PRECISION};
use datafusion::common::{plan_err, ScalarValue};
use datafusion::error::Result;
use hivestore::DEFAULT_PARTITION_NAME;

use crate::source::HiveColumn;

/// Hive's precision and scale of a `decimal` declared without them.
const DECIMAL_DEFAULT: (u8, i8) = (10, 0);

/// The Hive types read, for error messages.
const SUPPORTED: &str = "tinyint, smallint, int, bigint, float, double, decimal(p,s), boolean, \
                         string, varchar(n), char(n), binary, date, timestamp";

/// The Arrow type column `column` of table `table` is read as; an error naming the column
/// when hivestore-datafusion reads no such type (arrays, maps, structs, unions, intervals).
pub(crate) fn arrow_type(table: &str, column: &HiveColumn) -> Result<DataType> {
    let type_name = column.type_name.trim().to_ascii_lowercase();
    let (base, arguments) = match type_name.split_once('(') {
        Some((base, rest)) => (base.trim(), Some(rest.trim_end_matches(')'))),
        None => (type_name.as_str(), None),
    };
    let data_type = match base {
        "tinyint" => DataType::Int8,
        "smallint" => DataType::Int16,
        "int" | "integer" => DataType::Int32,
        "bigint" => DataType::Int64,
        "float" => DataType::Float32,
        "double" | "double precision" => DataType::Float64,
        "boolean" => DataType::Boolean,
        "string" | "varchar" | "char" => DataType::Utf8,
        "binary" => DataType::Binary,
        "date" => DataType::Date32,
        // Hive's timestamps have no zone; Spark and Hive write micro- or nanoseconds (INT96),
        // both read into microseconds.
        "timestamp" => DataType::Timestamp(TimeUnit::Microsecond, None),
        "decimal" | "numeric" => decimal(arguments).map_or_else(
            || {
                plan_err!(
                    "column `{}` of table `{table}` has Hive type `{}`: not a decimal \
                     precision of 1 to {DECIMAL128_MAX_PRECISION} and a scale within it",
                    column.name,
                    column.type_name
                )
            },
            Ok,
        )?,
        _ => {
            return plan_err!(
                "column `{}` of table `{table}` has Hive type `{}`, which hivestore-datafusion \
                 does not read (it reads {SUPPORTED})",
                column.name,
                column.type_name
            )
        }
    };
    Ok(data_type)
}

fn decimal(arguments: Option<&str>) -> Option<DataType> {
    let (precision, scale) = match arguments {
        None => DECIMAL_DEFAULT,
        Some(arguments) => {
            let mut parts = arguments.split(',').map(str::trim);
            let precision: u8 = parts.next()?.parse().ok()?;
            let scale: i8 = parts.next().map_or(Some(0), |scale| scale.parse().ok())?;
            if parts.next().is_some() {
                return None;
            }
            (precision, scale)
        }
    };
    let valid = (1..=DECIMAL128_MAX_PRECISION).contains(&precision)
        && scale >= 0
        && scale as u8 <= precision;
    valid.then_some(DataType::Decimal128(precision, scale))
}

/// Partition value `value` of key `key` as a scalar of `data_type`: Hive's default
/// partition name is null.
pub(crate) fn partition_value(key: &str, value: &str, data_type: &DataType) -> Result<ScalarValue> {
    if value == DEFAULT_PARTITION_NAME {
        return ScalarValue::try_new_null(data_type);
    }
    ScalarValue::try_from_string(value.to_string(), data_type).map_err(|error| {
        datafusion::error::DataFusionError::Plan(format!(
            "partition value {value:?} of key `{key}` is not a {data_type}: {error}"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(type_name: &str) -> Result<DataType> {
        let column = HiveColumn {
            name: "c".into(),
            type_name: type_name.into(),
        };
        arrow_type("db.t", &column)
    }

    #[test]
    fn hive_types_map_to_arrow_types() {
        assert_eq!(read("BIGINT").unwrap(), DataType::Int64);
        assert_eq!(read("varchar(20)").unwrap(), DataType::Utf8);
        assert_eq!(read("decimal(12, 2)").unwrap(), DataType::Decimal128(12, 2));
        assert_eq!(read("decimal").unwrap(), DataType::Decimal128(10, 0));
        assert_eq!(read("date").unwrap(), DataType::Date32);
    }

    #[test]
    fn an_unread_type_is_an_error_naming_the_column() {
        let error = read("map<string,int>").unwrap_err().to_string();
        assert!(error.contains("column `c` of table `db.t`"), "{error}");
        assert!(error.contains("map<string,int>"), "{error}");
        assert!(read("decimal(39,2)").is_err());
        assert!(read("decimal(5,6)").is_err());
    }

    #[test]
    fn partition_values_become_typed_scalars() {
        let value = partition_value("year", "2024", &DataType::Int32).unwrap();
        assert_eq!(value, ScalarValue::Int32(Some(2024)));
        let null = partition_value("year", DEFAULT_PARTITION_NAME, &DataType::Int32).unwrap();
        assert_eq!(null, ScalarValue::Int32(None));
        let error = partition_value("year", "abc", &DataType::Int32).unwrap_err();
        assert!(error.to_string().contains("key `year`"), "{error}");
    }
}
