//! DataFusion predicates on partition keys as Hive's partition filter language, so that the
//! metastore prunes partitions (`Selection::Filter` embedded, `get_partitions_by_filter`
//! over Thrift).
//!
//! A converted filter selects every partition the predicate can hold for, and may select
//! more (Hive's default partition is compared as text, and a conjunct that does not convert
//! is left out): DataFusion applies each predicate again to the rows (`Inexact`), which costs
//! little on partition columns, constant in each file.

use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::temporal_conversions::date32_to_datetime;
use datafusion::common::{Column, ScalarValue};
use datafusion::logical_expr::expr::{Between, InList};
use datafusion::logical_expr::{BinaryExpr, Expr, Operator};

/// A partition key: its name and the type its values are read as.
#[derive(Debug, Clone)]
pub(crate) struct PartitionKey {
    pub name: String,
    pub data_type: DataType,
}

/// `filters` (conjuncts) as one Hive filter, leaving out those that do not convert; `None`
/// when none converts.
pub(crate) fn hive_filter(filters: &[Expr], keys: &[PartitionKey]) -> Option<String> {
    let converted: Vec<String> = filters
        .iter()
        .filter_map(|filter| convert(filter, keys, false))
        .collect();
    join(converted, "and")
}

/// Whether `filter` converts whole: only then does it prune.
pub(crate) fn converts(filter: &Expr, keys: &[PartitionKey]) -> bool {
    convert_whole(filter, keys, false).is_some()
}

fn join(parts: Vec<String>, operator: &str) -> Option<String> {
    match parts.len() {
        0 => None,
        1 => parts.into_iter().next(),
        _ => Some(format!("({})", parts.join(&format!(") {operator} (")))),
    }
}

/// `expr` (negated when `negated`) as a Hive filter selecting a superset of what it holds
/// for; conjuncts that do not convert are dropped.
fn convert(expr: &Expr, keys: &[PartitionKey], negated: bool) -> Option<String> {
    convert_with(expr, keys, negated, true)
}

/// Like [`convert`], but `None` unless every part converts.
fn convert_whole(expr: &Expr, keys: &[PartitionKey], negated: bool) -> Option<String> {
    convert_with(expr, keys, negated, false)
}

fn convert_with(
    expr: &Expr,
    keys: &[PartitionKey],
    negated: bool,
    lenient: bool,
) -> Option<String> {
    match expr {
        Expr::Not(inner) => convert_with(inner, keys, !negated, lenient),
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => match op {
            Operator::And | Operator::Or => {
                // Under negation De Morgan swaps them.
                let conjunction = (*op == Operator::And) != negated;
                let sides = [left, right].map(|side| convert_with(side, keys, negated, lenient));
                if conjunction && lenient {
                    join(sides.into_iter().flatten().collect(), "and")
                } else {
                    let [Some(left), Some(right)] = sides else {
                        return None;
                    };
                    join(vec![left, right], if conjunction { "and" } else { "or" })
                }
            }
            _ => comparison(left, *op, right, keys, negated),
        },
        Expr::InList(InList {
            expr,
            list,
            negated: not_in,
        }) => {
            let key = key_of(expr, keys)?;
            if list.is_empty() {
                return None;
            }
            let values = list
                .iter()
                .map(|value| literal(value, key))
                .collect::<Option<Vec<_>>>()?;
            let not = if *not_in != negated { " not" } else { "" };
            Some(format!(
                "({}){not} in ({})",
                quoted_key(&key.name),
                values.join(", ")
            ))
        }
        Expr::Between(Between {
            expr,
            negated: not_between,
            low,
            high,
        }) => {
            let key = key_of(expr, keys)?;
            let (low, high) = (literal(low, key)?, literal(high, key)?);
            let not = if *not_between != negated { " not" } else { "" };
            Some(format!(
                "{}{not} between {low} and {high}",
                quoted_key(&key.name)
            ))
        }
        _ => None,
    }
}

fn comparison(
    left: &Expr,
    op: Operator,
    right: &Expr,
    keys: &[PartitionKey],
    negated: bool,
) -> Option<String> {
    // `5 < x` is `x > 5`.
    let (key, value, op) = match (key_of(left, keys), key_of(right, keys)) {
        (Some(key), None) => (key, right, op),
        (None, Some(key)) => (key, left, op.swap()?),
        _ => return None,
    };
    let op = if negated { op.negate()? } else { op };
    let symbol = match op {
        Operator::Eq => "=",
        Operator::NotEq => "<>",
        Operator::Lt => "<",
        Operator::LtEq => "<=",
        Operator::Gt => ">",
        Operator::GtEq => ">=",
        _ => return None,
    };
    Some(format!(
        "{} {symbol} {}",
        quoted_key(&key.name),
        literal(value, key)?
    ))
}

fn key_of<'a>(expr: &Expr, keys: &'a [PartitionKey]) -> Option<&'a PartitionKey> {
    let Expr::Column(Column { name, .. }) = expr else {
        return None;
    };
    keys.iter().find(|key| key.name == *name)
}

/// A key name as the filter grammar takes it: bare when it can be, backquoted otherwise.
fn quoted_key(name: &str) -> String {
    let bare = !name.is_empty()
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_');
    if bare {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

/// `expr`, a literal, as a literal of `key`'s type in the filter grammar; `None` for a
/// null, a type that does not match the key's, or text the grammar cannot quote (it keeps
/// backslashes as written, so a text holding one is left to DataFusion).
fn literal(expr: &Expr, key: &PartitionKey) -> Option<String> {
    let Expr::Literal(value, _) = expr else {
        return None;
    };
    match (&key.data_type, value) {
        (
            DataType::Utf8,
            ScalarValue::Utf8(Some(text))
            | ScalarValue::LargeUtf8(Some(text))
            | ScalarValue::Utf8View(Some(text)),
        ) => quoted_text(text),
        (DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64, value) => {
            integer(value).map(|value| value.to_string())
        }
        (DataType::Date32, ScalarValue::Date32(Some(days))) => {
            let date = date32_to_datetime(*days)?.date();
            let text = date.format("%Y-%m-%d").to_string();
            // The grammar's dates have four-digit years.
            (text.len() == 10).then(|| format!("date '{text}'"))
        }
        _ => None,
    }
}

fn quoted_text(text: &str) -> Option<String> {
    if text.contains('\\') {
        None
    } else if !text.contains('\'') {
        Some(format!("'{text}'"))
    } else if !text.contains('"') {
        Some(format!("\"{text}\""))
    } else {
        None
    }
}

fn integer(value: &ScalarValue) -> Option<i64> {
    match value {
        ScalarValue::Int8(Some(value)) => Some(i64::from(*value)),
        ScalarValue::Int16(Some(value)) => Some(i64::from(*value)),
        ScalarValue::Int32(Some(value)) => Some(i64::from(*value)),
        ScalarValue::Int64(Some(value)) => Some(*value),
        ScalarValue::UInt8(Some(value)) => Some(i64::from(*value)),
        ScalarValue::UInt16(Some(value)) => Some(i64::from(*value)),
        ScalarValue::UInt32(Some(value)) => Some(i64::from(*value)),
        ScalarValue::UInt64(Some(value)) => i64::try_from(*value).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::logical_expr::{col, lit};

    fn keys() -> Vec<PartitionKey> {
        vec![
            PartitionKey {
                name: "ds".into(),
                data_type: DataType::Utf8,
            },
            PartitionKey {
                name: "hr".into(),
                data_type: DataType::Int32,
            },
        ]
    }

    fn hive(filters: &[Expr]) -> Option<String> {
        hive_filter(filters, &keys())
    }

    #[test]
    fn comparisons_on_keys_convert() {
        let filters = [col("ds").eq(lit("2024-01-01")), lit(7).lt_eq(col("hr"))];
        assert_eq!(hive(&filters).unwrap(), "(ds = '2024-01-01') and (hr >= 7)");
        let in_list = col("ds").in_list(vec![lit("a"), lit("it's")], false);
        assert_eq!(hive(&[in_list]).unwrap(), "(ds) in ('a', \"it's\")");
        let between = col("hr").between(lit(1), lit(3));
        assert_eq!(hive(&[between]).unwrap(), "hr between 1 and 3");
    }

    #[test]
    fn negation_is_pushed_to_the_comparisons() {
        let expr = !(col("ds").eq(lit("a")).and(col("hr").gt(lit(3))));
        assert_eq!(hive(&[expr]).unwrap(), "(ds <> 'a') or (hr <= 3)");
        let not_in = !col("hr").in_list(vec![lit(1), lit(2)], true);
        assert_eq!(hive(&[not_in]).unwrap(), "(hr) in (1, 2)");
    }

    #[test]
    fn what_does_not_convert_stays_with_datafusion() {
        let data = col("payload").eq(lit("x"));
        assert!(!converts(&data, &keys()));
        assert_eq!(hive(std::slice::from_ref(&data)), None);
        // A disjunction must convert whole; a conjunction keeps what converts.
        let either = col("ds").eq(lit("a")).or(data.clone());
        assert!(!converts(&either, &keys()));
        assert_eq!(hive(&[either]), None);
        let both = col("ds").eq(lit("a")).and(data.clone());
        assert!(!converts(&both, &keys()));
        assert_eq!(hive(&[both]).unwrap(), "ds = 'a'");
        // Under NOT a conjunction is a disjunction: it must convert whole.
        let negated = !(col("ds").eq(lit("a")).and(data));
        assert_eq!(hive(&[negated]), None);
        // A text the grammar cannot quote, a literal of another type, a null.
        assert_eq!(hive(&[col("ds").eq(lit("a\\b"))]), None);
        assert_eq!(hive(&[col("hr").eq(lit("7"))]), None);
        assert_eq!(hive(&[col("ds").eq(lit(ScalarValue::Utf8(None)))]), None);
    }
}
