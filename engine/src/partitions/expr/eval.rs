//! Evaluation of an expression over partition values, as Hive's `PartitionPruner` does it:
//! each value is converted to its key's type (the default partition name and values that do
//! not convert are null), the tree is evaluated in SQL's three-valued logic, and a partition
//! whose verdict is null is *unknown*: kept, and reported through `hasUnknownPartitions`.
//! Functions hivestore does not evaluate ([`ExprFunction::Unknown`]) and literals of types it
//! does not read are null, so they leave partitions unknown, never wrongly pruned. As Hive
//! 4's `replaceEqualDefaultPartition` does, `key = '__HIVE_DEFAULT_PARTITION__'` reads as
//! `key IS NULL` (and `<>` as `IS NOT NULL`).

use std::cmp::Ordering;

use super::{Decimal, ExprConstant, ExprFunction, ExprNode, PartitionExpression};
use crate::calendar;
use crate::error::{Error, Result};
use crate::model::table::FieldSchema;
use crate::partitions::filter::Operator;

/// How a value of a partition key's type is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KeyType {
    Text,
    Integer,
    Decimal {
        scale: u8,
        precision: u8,
    },
    Double,
    Date,
    Boolean,
    /// A type hivestore does not convert values to (timestamp, interval): null.
    Other,
}

impl KeyType {
    fn of(type_name: &str) -> KeyType {
        let lower = type_name.trim().to_ascii_lowercase();
        let base = lower.split('(').next().unwrap_or("").trim();
        match base {
            "string" | "varchar" | "char" => KeyType::Text,
            "tinyint" | "smallint" | "int" | "integer" | "bigint" => KeyType::Integer,
            "float" | "double" => KeyType::Double,
            "date" => KeyType::Date,
            "boolean" => KeyType::Boolean,
            "decimal" | "numeric" => {
                let numbers: Vec<u8> = lower
                    .split(['(', ',', ')'])
                    .skip(1)
                    .filter_map(|part| part.trim().parse().ok())
                    .collect();
                // Hive's defaults: decimal is decimal(10,0).
                let precision = numbers.first().copied().unwrap_or(10).clamp(1, 38);
                let scale = numbers.get(1).copied().unwrap_or(0).min(precision);
                KeyType::Decimal { scale, precision }
            }
            _ => KeyType::Other,
        }
    }
}

/// A value during evaluation.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Datum {
    Null,
    Boolean(bool),
    Integer(i64),
    Decimal(Decimal),
    Double(f64),
    Text(String),
    Date(i32),
}

/// A node with its keys resolved to their positions.
#[derive(Debug, Clone)]
pub(super) enum Node {
    Key(usize),
    /// A literal and its Hive type name.
    Constant(Datum, String),
    Function(ExprFunction, Vec<Node>),
}

/// An expression compiled against a table's partition keys.
#[derive(Debug, Clone)]
pub struct CompiledExpression {
    pub(super) root: Node,
    key_types: Vec<KeyType>,
    pub(super) default_partition_name: String,
}

impl PartitionExpression {
    /// Resolves the expression's keys against the table's partition keys (case-insensitively,
    /// as Hive's struct fields are): a name of none is Hive's "cannot find field" error.
    pub fn compile(
        &self,
        keys: &[FieldSchema],
        default_partition_name: &str,
    ) -> Result<CompiledExpression> {
        let root = resolve(&self.root, keys, default_partition_name)?;
        Ok(CompiledExpression {
            root,
            key_types: keys.iter().map(|key| KeyType::of(&key.type_name)).collect(),
            default_partition_name: default_partition_name.to_string(),
        })
    }
}

fn resolve(node: &ExprNode, keys: &[FieldSchema], default_name: &str) -> Result<Node> {
    match node {
        ExprNode::Column { name, .. } => keys
            .iter()
            .position(|key| key.name.eq_ignore_ascii_case(name))
            .map(Node::Key)
            .ok_or_else(|| {
                let fields: Vec<String> = keys
                    .iter()
                    .enumerate()
                    .map(|(index, key)| format!("{index}:{}", key.name))
                    .collect();
                Error::Refused(format!(
                    "cannot find field {name} from [{}]",
                    fields.join(", ")
                ))
            }),
        ExprNode::Constant { value, type_name } => {
            Ok(Node::Constant(constant_datum(value), type_name.clone()))
        }
        ExprNode::Function {
            function, children, ..
        } => {
            if let Some(rewritten) = default_partition_test(function, children, keys, default_name)?
            {
                return Ok(rewritten);
            }
            let mut resolved = Vec::with_capacity(children.len());
            for child in children {
                resolved.push(resolve(child, keys, default_name)?);
            }
            Ok(Node::Function(function.clone(), resolved))
        }
    }
}

/// `key = '<default partition name>'` as `key IS NULL`, `<>` as `IS NOT NULL`.
fn default_partition_test(
    function: &ExprFunction,
    children: &[ExprNode],
    keys: &[FieldSchema],
    default_name: &str,
) -> Result<Option<Node>> {
    let test = match function {
        ExprFunction::Compare(Operator::Equals) => ExprFunction::IsNull,
        ExprFunction::Compare(Operator::NotEquals) => ExprFunction::IsNotNull,
        _ => return Ok(None),
    };
    let is_default = |node: &ExprNode| matches!(node, ExprNode::Constant { value: ExprConstant::Text(text), .. } if text == default_name);
    let column = match children {
        [column @ ExprNode::Column { .. }, constant] if is_default(constant) => column,
        [constant, column @ ExprNode::Column { .. }] if is_default(constant) => column,
        _ => return Ok(None),
    };
    Ok(Some(Node::Function(
        test,
        vec![resolve(column, keys, default_name)?],
    )))
}

fn constant_datum(constant: &ExprConstant) -> Datum {
    match constant {
        ExprConstant::Null | ExprConstant::Unknown => Datum::Null,
        ExprConstant::Boolean(value) => Datum::Boolean(*value),
        ExprConstant::Integer(value) => Datum::Integer(*value),
        ExprConstant::Double(value) => Datum::Double(*value),
        ExprConstant::Decimal(value) => Datum::Decimal(*value),
        ExprConstant::Text(value) => Datum::Text(value.clone()),
        ExprConstant::Date(days) => Datum::Date(*days),
    }
}

impl CompiledExpression {
    pub(super) fn key_type(&self, index: usize) -> KeyType {
        self.key_types.get(index).copied().unwrap_or(KeyType::Other)
    }

    /// The verdict on one partition's values: `Some(true)` selected, `Some(false)` pruned,
    /// `None` unknown (kept, and reported).
    pub fn evaluate<V: AsRef<str>>(&self, values: &[V]) -> Option<bool> {
        let row = Row {
            values,
            expression: self,
        };
        match row.eval(&self.root) {
            Datum::Boolean(verdict) => Some(verdict),
            _ => None,
        }
    }
}

struct Row<'a, V> {
    values: &'a [V],
    expression: &'a CompiledExpression,
}

impl<V: AsRef<str>> Row<'_, V> {
    fn key(&self, index: usize) -> Datum {
        let Some(value) = self.values.get(index).map(AsRef::as_ref) else {
            return Datum::Null;
        };
        if value == self.expression.default_partition_name {
            return Datum::Null;
        }
        match self
            .expression
            .key_types
            .get(index)
            .copied()
            .unwrap_or(KeyType::Other)
        {
            KeyType::Text => Datum::Text(value.to_string()),
            KeyType::Other => Datum::Null,
            other => cast(Datum::Text(value.to_string()), other),
        }
    }

    fn eval(&self, node: &Node) -> Datum {
        match node {
            Node::Key(index) => self.key(*index),
            Node::Constant(datum, _) => datum.clone(),
            Node::Function(function, children) => self.function(function, children),
        }
    }

    fn function(&self, function: &ExprFunction, children: &[Node]) -> Datum {
        let arg = |index: usize| {
            children
                .get(index)
                .map_or(Datum::Null, |child| self.eval(child))
        };
        match function {
            ExprFunction::And => self.and(children),
            ExprFunction::Or => self.or(children),
            ExprFunction::Not => match arg(0) {
                Datum::Boolean(value) => Datum::Boolean(!value),
                _ => Datum::Null,
            },
            ExprFunction::IsNull => Datum::Boolean(arg(0) == Datum::Null),
            ExprFunction::IsNotNull => Datum::Boolean(arg(0) != Datum::Null),
            ExprFunction::Compare(operator) => compare_with(*operator, &arg(0), &arg(1)),
            ExprFunction::EqualNullSafe | ExprFunction::NotEqualNullSafe => {
                let (left, right) = (arg(0), arg(1));
                let equal = match (&left, &right) {
                    (Datum::Null, Datum::Null) => true,
                    (Datum::Null, _) | (_, Datum::Null) => false,
                    _ => compare(&left, &right) == Some(Ordering::Equal),
                };
                Datum::Boolean(equal == (*function == ExprFunction::EqualNullSafe))
            }
            ExprFunction::In => self.within(children),
            ExprFunction::Between => {
                let invert = matches!(arg(0), Datum::Boolean(true));
                let value = arg(1);
                let low = compare_with(Operator::GreaterOrEqual, &value, &arg(2));
                let high = compare_with(Operator::LessOrEqual, &value, &arg(3));
                match (low, high) {
                    (Datum::Boolean(low), Datum::Boolean(high)) => {
                        Datum::Boolean((low && high) != invert)
                    }
                    _ => Datum::Null,
                }
            }
            ExprFunction::Like => match (arg(0), arg(1)) {
                (Datum::Null, _) | (_, Datum::Null) => Datum::Null,
                (value, pattern) => Datum::Boolean(like(&text_of(&value), &text_of(&pattern))),
            },
            ExprFunction::Cast(type_name) => match KeyType::of(type_name) {
                KeyType::Text => match arg(0) {
                    Datum::Null => Datum::Null,
                    value => Datum::Text(text_of(&value)),
                },
                KeyType::Other => Datum::Null,
                other => cast(arg(0), other),
            },
            ExprFunction::Unknown(_) => Datum::Null,
        }
    }

    fn and(&self, children: &[Node]) -> Datum {
        self.connective(children, false)
    }

    fn or(&self, children: &[Node]) -> Datum {
        self.connective(children, true)
    }

    /// AND (`decisive` false) or OR (`decisive` true) in three-valued logic: `decisive` as
    /// soon as a child is, else null when a child is unknown, else `!decisive`.
    fn connective(&self, children: &[Node], decisive: bool) -> Datum {
        let mut unknown = false;
        for child in children {
            match self.eval(child) {
                Datum::Boolean(value) if value == decisive => return Datum::Boolean(decisive),
                Datum::Boolean(_) => {}
                _ => unknown = true,
            }
        }
        if unknown {
            Datum::Null
        } else {
            Datum::Boolean(!decisive)
        }
    }

    /// `x IN (a, b, ...)`: null when `x` is, or when nothing equals and a member is null.
    fn within(&self, children: &[Node]) -> Datum {
        let Some((first, members)) = children.split_first() else {
            return Datum::Null;
        };
        let value = self.eval(first);
        if value == Datum::Null {
            return Datum::Null;
        }
        let mut unknown = false;
        for member in members {
            match compare_with(Operator::Equals, &value, &self.eval(member)) {
                Datum::Boolean(true) => return Datum::Boolean(true),
                Datum::Boolean(false) => {}
                _ => unknown = true,
            }
        }
        if unknown {
            Datum::Null
        } else {
            Datum::Boolean(false)
        }
    }
}

fn compare_with(operator: Operator, left: &Datum, right: &Datum) -> Datum {
    let Some(ordering) = compare(left, right) else {
        return Datum::Null;
    };
    Datum::Boolean(match operator {
        Operator::Equals => ordering == Ordering::Equal,
        Operator::NotEquals => ordering != Ordering::Equal,
        Operator::Less => ordering == Ordering::Less,
        Operator::LessOrEqual => ordering != Ordering::Greater,
        Operator::Greater => ordering == Ordering::Greater,
        Operator::GreaterOrEqual => ordering != Ordering::Less,
        Operator::Like => return Datum::Null,
    })
}

/// Compares two values in the type Hive's `getCommonClassForComparison` picks: strings as
/// bytes; a string and a date as dates; a string and a number as doubles; numbers in the
/// wider of their types. `None` when either is null or does not convert.
fn compare(left: &Datum, right: &Datum) -> Option<Ordering> {
    use Datum::*;
    match (left, right) {
        (Null, _) | (_, Null) => None,
        (Text(a), Text(b)) => Some(a.as_bytes().cmp(b.as_bytes())),
        (Boolean(a), Boolean(b)) => Some(a.cmp(b)),
        (Date(a), Date(b)) => Some(a.cmp(b)),
        (Text(_), Date(_)) => compare(&cast(left.clone(), KeyType::Date), right),
        (Date(_), Text(_)) => compare(left, &cast(right.clone(), KeyType::Date)),
        (Integer(a), Integer(b)) => Some(a.cmp(b)),
        (Integer(a), Decimal(b)) => compare_decimals(&super::Decimal::new(i128::from(*a), 0), b),
        (Decimal(a), Integer(b)) => compare_decimals(a, &super::Decimal::new(i128::from(*b), 0)),
        (Decimal(a), Decimal(b)) => compare_decimals(a, b),
        _ => {
            let a = as_double(left)?;
            let b = as_double(right)?;
            a.partial_cmp(&b)
        }
    }
}

fn compare_decimals(a: &Decimal, b: &Decimal) -> Option<Ordering> {
    let scale = a.scale().max(b.scale());
    let widen = |value: &Decimal| {
        10i128
            .checked_pow(u32::from(scale - value.scale()))
            .and_then(|factor| value.unscaled().checked_mul(factor))
    };
    match (widen(a), widen(b)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => decimal_to_double(a).partial_cmp(&decimal_to_double(b)),
    }
}

fn decimal_to_double(value: &Decimal) -> f64 {
    value.unscaled() as f64 / 10f64.powi(i32::from(value.scale()))
}

fn as_double(value: &Datum) -> Option<f64> {
    match value {
        Datum::Integer(value) => Some(*value as f64),
        Datum::Decimal(value) => Some(decimal_to_double(value)),
        Datum::Double(value) => Some(*value),
        Datum::Text(text) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|value| value.is_finite()),
        Datum::Boolean(_) | Datum::Date(_) | Datum::Null => None,
    }
}

fn text_of(value: &Datum) -> String {
    match value {
        Datum::Null => String::new(),
        Datum::Boolean(value) => value.to_string(),
        Datum::Integer(value) => value.to_string(),
        Datum::Decimal(value) => decimal_text(value),
        Datum::Double(value) => value.to_string(),
        Datum::Text(value) => value.clone(),
        Datum::Date(days) => date_text(*days),
    }
}

fn decimal_text(value: &Decimal) -> String {
    let digits = value.unscaled().unsigned_abs().to_string();
    let scale = usize::from(value.scale());
    let sign = if value.unscaled() < 0 { "-" } else { "" };
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (whole, fraction) = padded.split_at(padded.len() - scale);
    format!("{sign}{whole}.{fraction}")
}

/// `yyyy-mm-dd` of days since 1970-01-01 (proleptic Gregorian).
pub(super) fn date_text(days: i32) -> String {
    let (year, month, day) = calendar::civil_from_days(i64::from(days));
    format!("{year:04}-{month:02}-{day:02}")
}

/// `yyyy-m[m]-d[d]`, optionally followed by a time after a space or `T`, as Hive's
/// string-to-date conversion reads it; days since 1970-01-01.
fn parse_date(text: &str) -> Option<i32> {
    let text = text.trim();
    let date = text.split([' ', 'T']).next()?;
    let mut parts = date.splitn(3, '-');
    let year: i64 = parts.next().filter(|part| part.len() == 4)?.parse().ok()?;
    let month: u32 = parts
        .next()
        .filter(|part| (1..=2).contains(&part.len()))?
        .parse()
        .ok()?;
    let day: u32 = parts
        .next()
        .filter(|part| (1..=2).contains(&part.len()))?
        .parse()
        .ok()?;
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&month) || day == 0 || day > month_days[month as usize - 1] {
        return None;
    }
    i32::try_from(calendar::days_from_civil(year, month, day)).ok()
}

/// Converts a value to a key type as Hive's converters do; what does not convert is null.
fn cast(value: Datum, to: KeyType) -> Datum {
    match (to, value) {
        (_, Datum::Null) => Datum::Null,
        (KeyType::Text, value) => Datum::Text(text_of(&value)),
        (KeyType::Integer, Datum::Text(text)) => {
            parse_integer(&text).map_or(Datum::Null, Datum::Integer)
        }
        (KeyType::Integer, Datum::Integer(value)) => Datum::Integer(value),
        (KeyType::Integer, Datum::Decimal(value)) => {
            let whole = value.unscaled() / 10i128.pow(u32::from(value.scale()));
            i64::try_from(whole).map_or(Datum::Null, Datum::Integer)
        }
        (KeyType::Integer, Datum::Double(value)) if value.is_finite() => {
            Datum::Integer(value.trunc() as i64)
        }
        (KeyType::Integer, Datum::Boolean(value)) => Datum::Integer(i64::from(value)),
        (KeyType::Double, value) => as_double(&value).map_or(Datum::Null, Datum::Double),
        (KeyType::Decimal { scale, precision }, value) => {
            to_decimal(&value, scale, precision).map_or(Datum::Null, Datum::Decimal)
        }
        (KeyType::Date, Datum::Text(text)) => parse_date(&text).map_or(Datum::Null, Datum::Date),
        (KeyType::Date, Datum::Date(days)) => Datum::Date(days),
        (KeyType::Boolean, Datum::Boolean(value)) => Datum::Boolean(value),
        (KeyType::Boolean, Datum::Text(text)) => match text.to_ascii_lowercase().as_str() {
            "true" => Datum::Boolean(true),
            "false" => Datum::Boolean(false),
            _ => Datum::Null,
        },
        _ => Datum::Null,
    }
}

/// Hive's `LazyInteger`-like parse: an optional sign and digits; a fraction is dropped.
fn parse_integer(text: &str) -> Option<i64> {
    let text = text.trim();
    let whole = match text.split_once('.') {
        Some((whole, fraction)) if fraction.bytes().all(|byte| byte.is_ascii_digit()) => whole,
        Some(_) => return None,
        None => text,
    };
    let digits = whole.strip_prefix(['+', '-']).unwrap_or(whole);
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    whole.strip_prefix('+').unwrap_or(whole).parse().ok()
}

/// A value as `decimal(precision, scale)`: rounded half up to the scale, null when its
/// integer digits do not fit (Hive's `enforcePrecisionScale`).
fn to_decimal(value: &Datum, scale: u8, precision: u8) -> Option<Decimal> {
    let decimal = match value {
        Datum::Integer(value) => Decimal::new(i128::from(*value), 0),
        Datum::Decimal(value) => *value,
        Datum::Text(text) => parse_decimal(text.trim())?,
        Datum::Double(value) => parse_decimal(&format!("{value}"))?,
        _ => return None,
    };
    let rescaled = rescale(&decimal, scale)?;
    let limit = 10i128.checked_pow(u32::from(precision))?;
    (rescaled.unscaled().abs() < limit).then_some(rescaled)
}

fn rescale(value: &Decimal, scale: u8) -> Option<Decimal> {
    if value.scale() <= scale {
        let factor = 10i128.checked_pow(u32::from(scale - value.scale()))?;
        return Some(Decimal::new(value.unscaled().checked_mul(factor)?, scale));
    }
    let divisor = 10i128.checked_pow(u32::from(value.scale() - scale))?;
    let quotient = value.unscaled() / divisor;
    let remainder = value.unscaled() % divisor;
    let rounded = if remainder.abs() * 2 >= divisor {
        quotient + value.unscaled().signum()
    } else {
        quotient
    };
    Some(Decimal::new(rounded, scale))
}

/// `[+-]digits[.digits]`, at most 38 digits.
fn parse_decimal(text: &str) -> Option<Decimal> {
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let digits = format!("{whole}{fraction}");
    if digits.is_empty() || digits.len() > 38 || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    let magnitude: i128 = digits.parse().ok()?;
    let scale = u8::try_from(fraction.len()).ok()?;
    Some(Decimal::new(
        if negative { -magnitude } else { magnitude },
        scale,
    ))
}

/// One element of a `LIKE` pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LikeToken {
    /// `%`: any run of characters.
    Run,
    /// `_`: one character.
    One,
    /// A character, escaped or not.
    Literal(char),
}

/// SQL `LIKE` over the whole value: `%` any run, `_` one character, `\` escapes the next.
pub(super) fn like(value: &str, pattern: &str) -> bool {
    let value: Vec<char> = value.chars().collect();
    let mut tokens = Vec::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        tokens.push(match c {
            '\\' => LikeToken::Literal(chars.next().unwrap_or('\\')),
            '%' => LikeToken::Run,
            '_' => LikeToken::One,
            other => LikeToken::Literal(other),
        });
    }
    // Wildcard matching with one backtrack point: linear in value × pattern.
    let (mut v, mut t) = (0usize, 0usize);
    let mut run: Option<(usize, usize)> = None;
    while v < value.len() {
        match tokens.get(t) {
            Some(LikeToken::Run) => {
                run = Some((t, v));
                t += 1;
            }
            Some(LikeToken::One) => {
                v += 1;
                t += 1;
            }
            Some(LikeToken::Literal(c)) if *c == value[v] => {
                v += 1;
                t += 1;
            }
            _ => match run {
                Some((run_token, run_value)) => {
                    t = run_token + 1;
                    v = run_value + 1;
                    run = Some((run_token, run_value + 1));
                }
                None => return false,
            },
        }
    }
    tokens[t..].iter().all(|token| *token == LikeToken::Run)
}
