//! Evaluating a [`PartitionFilter`] on partition values, as Hive's
//! metastore does: its direct-SQL path first, and where that refuses a
//! comparison, its JDOQL path (`ObjectStore.getPartitionsByFilter`). A
//! comparison neither accepts is an error, never a silent full listing.
//!
//! Per key type (parameters stripped, `varchar(10)` is `varchar`):
//!
//! - `string`, `char`, `varchar`: values compare as strings, byte by byte
//!   (the stored order); date and timestamp literals as their text; an
//!   integer literal is refused.
//! - `tinyint`, `smallint`, `int`, `bigint`: against an integer literal,
//!   values compare as numbers, and a value that is not a number (the
//!   default partition) matches nothing. `=` also requires the canonical
//!   text (Hive adds `PART_NAME like 'k=7/%'`), so `p = 7` misses a stored
//!   `007`. A text literal is refused, but for the default partition name,
//!   compared as text (Hive 4).
//! - `date`: against a date literal, or a text that is a date, values
//!   compare as dates; values that are not dates match nothing. Other texts
//!   compare as strings (Hive 4's JDOQL path). Integers are refused.
//! - `timestamp`: the same with timestamps.
//! - Other types are refused: `Filtering is supported only on partition
//!   keys of type string`.
//!
//! `LIKE` is the JDOQL path's: the literal becomes a regular expression, `%`
//! → `.*`, `_` → `.`, `\%` and `\_` literal, every other character as is, so
//! both SQL patterns (`2024-01%`) and the regular expressions Spark sends
//! (`.*abc.*`) work; it must match the whole value. Only string, date and
//! timestamp keys take it.

use std::ops::Bound;

use regex::Regex;

use crate::error::{Error, Result};
use crate::model::partition_name::DEFAULT_PARTITION_NAME;
use crate::model::table::FieldSchema;
use crate::partitions::filter::{Expression, Literal, Operator, PartitionFilter};

/// The most key ranges a filter is turned into; past it, one full scan.
const VALUE_RANGE_COUNT_MAX: usize = 10_000;

/// The type class of a partition key, as Hive's filter code sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyClass {
    Text,
    Integral,
    Date,
    Timestamp,
    Other,
}

fn key_class(type_name: &str) -> KeyClass {
    let lowered = type_name.trim().to_ascii_lowercase();
    let base = lowered
        .split(|character: char| !character.is_ascii_alphanumeric() && character != '_')
        .next()
        .unwrap_or_default();
    match base {
        "string" | "char" | "varchar" => KeyClass::Text,
        "tinyint" | "smallint" | "int" | "integer" | "bigint" => KeyClass::Integral,
        "date" => KeyClass::Date,
        "timestamp" => KeyClass::Timestamp,
        _ => KeyClass::Other,
    }
}

/// A calendar date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Date {
    year: u32,
    month: u32,
    day: u32,
}

impl std::fmt::Display for Date {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "{:04}-{:02}-{:02}",
            self.year, self.month, self.day
        )
    }
}

fn days_in_month(year: u32, month: u32) -> u32 {
    let leap = (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400);
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn digits(text: &str, length_min: usize, length_max: usize) -> Option<u32> {
    let valid = (length_min..=length_max).contains(&text.len())
        && text.bytes().all(|byte| byte.is_ascii_digit());
    valid.then(|| text.parse().ok()).flatten()
}

/// `yyyy-m[m]-d[d]`, a real calendar date (Hive's non-lenient parse).
pub(crate) fn parse_date(text: &str) -> Option<Date> {
    let mut parts = text.split('-');
    let year = digits(parts.next()?, 4, 4)?;
    let month = digits(parts.next()?, 1, 2)?;
    let day = digits(parts.next()?, 1, 2)?;
    let valid = parts.next().is_none()
        && (1..=12).contains(&month)
        && (1..=days_in_month(year, month)).contains(&day);
    valid.then_some(Date { year, month, day })
}

/// A timestamp: date, second of day, nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Timestamp {
    date: Date,
    second: u32,
    nanosecond: u32,
}

/// `yyyy-mm-dd hh:mm:ss[.f{1,9}]`.
pub(crate) fn parse_timestamp(text: &str) -> Option<Timestamp> {
    let (date, time) = text.split_once(' ')?;
    let date = parse_date(date)?;
    let (clock, fraction) = match time.split_once('.') {
        Some((clock, fraction)) => (clock, Some(fraction)),
        None => (time, None),
    };
    let mut parts = clock.split(':');
    let hour = digits(parts.next()?, 2, 2)?;
    let minute = digits(parts.next()?, 2, 2)?;
    let second = digits(parts.next()?, 2, 2)?;
    if parts.next().is_some() || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let nanosecond = match fraction {
        Some(fraction) => digits(fraction, 1, 9)? * 10u32.pow(9 - fraction.len() as u32),
        None => 0,
    };
    Some(Timestamp {
        date,
        second: hour * 3600 + minute * 60 + second,
        nanosecond,
    })
}

/// An integer as a SQL cast to `decimal(21,0)` reads it: optional sign,
/// digits.
fn parse_integral(text: &str) -> Option<i128> {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    let valid =
        !digits.is_empty() && digits.len() <= 30 && digits.bytes().all(|b| b.is_ascii_digit());
    valid.then(|| text.parse().ok()).flatten()
}

/// What one comparison does with a value.
#[derive(Debug)]
enum Test {
    Text(Operator, String),
    Integral(Operator, i64),
    Date(Operator, Date),
    Timestamp(Operator, Timestamp),
    Like(Regex),
}

fn holds(operator: Operator, ordering: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    match operator {
        Operator::Equals => ordering == Equal,
        Operator::NotEquals => ordering != Equal,
        Operator::Less => ordering == Less,
        Operator::LessOrEqual => ordering != Greater,
        Operator::Greater => ordering == Greater,
        Operator::GreaterOrEqual => ordering != Less,
        Operator::Like => false,
    }
}

impl Test {
    fn matches(&self, value: &str) -> bool {
        match self {
            Test::Text(operator, literal) => holds(*operator, value.cmp(literal.as_str())),
            Test::Integral(operator, literal) => {
                let Some(number) = parse_integral(value) else {
                    return false;
                };
                let canonical = *operator != Operator::Equals || value == literal.to_string();
                canonical && holds(*operator, number.cmp(&i128::from(*literal)))
            }
            Test::Date(operator, literal) => parse_date(value).is_some_and(|date| {
                let canonical = *operator != Operator::Equals || value == literal.to_string();
                canonical && holds(*operator, date.cmp(literal))
            }),
            Test::Timestamp(operator, literal) => parse_timestamp(value)
                .is_some_and(|timestamp| holds(*operator, timestamp.cmp(literal))),
            Test::Like(regex) => regex.is_match(value),
        }
    }
}

#[derive(Debug)]
enum Node {
    And(Vec<Node>),
    Or(Vec<Node>),
    Leaf { key: usize, test: Test },
}

impl Node {
    /// The one key every leaf tests, if there is one.
    fn single_key(&self) -> Option<usize> {
        match self {
            Node::Leaf { key, .. } => Some(*key),
            Node::And(members) | Node::Or(members) => {
                let mut keys = members.iter().map(Node::single_key);
                let first = keys.next()??;
                keys.all(|key| key == Some(first)).then_some(first)
            }
        }
    }

    fn matches<V: AsRef<str>>(&self, values: &[V]) -> bool {
        match self {
            Node::And(members) => members.iter().all(|member| member.matches(values)),
            Node::Or(members) => members.iter().any(|member| member.matches(values)),
            Node::Leaf { key, test } => values
                .get(*key)
                .is_some_and(|value| test.matches(value.as_ref())),
        }
    }
}

/// A filter resolved against a table's partition keys.
#[derive(Debug)]
pub struct CompiledFilter {
    /// `None` selects every partition.
    root: Option<Node>,
    key_count: usize,
}

/// Partitions whose leading values equal `prefix`, and whose next value
/// lies between `lower` and `upper` (byte order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ValueRange {
    pub(crate) prefix: Vec<String>,
    pub(crate) lower: Bound<String>,
    pub(crate) upper: Bound<String>,
}

impl CompiledFilter {
    pub(crate) fn new(filter: &PartitionFilter, keys: &[FieldSchema]) -> Result<Self> {
        let root = match filter.expression() {
            Some(expression) => Some(compile(filter.text(), expression, keys)?),
            None => None,
        };
        Ok(CompiledFilter {
            root,
            key_count: keys.len(),
        })
    }

    /// Whether a partition with `values` (one per key) passes.
    pub fn matches<V: AsRef<str>>(&self, values: &[V]) -> bool {
        self.root.as_ref().is_none_or(|root| root.matches(values))
    }

    /// The one key the filter reads, when it reads one: its verdict is then a function of
    /// that key's value ([`CompiledFilter::matches_value`]).
    pub(crate) fn single_key(&self) -> Option<usize> {
        self.root.as_ref()?.single_key()
    }

    /// Whether partitions whose value of `key` is `value` pass, for a filter that reads only
    /// `key` (what the other keys hold does not matter).
    pub(crate) fn matches_value(&self, key: usize, value: &str) -> bool {
        let mut values = vec![""; self.key_count.max(key + 1)];
        values[key] = value;
        self.matches(&values)
    }

    /// Value ranges holding every partition that passes (more, maybe: the
    /// filter is re-applied), or `None` for a full scan.
    pub(crate) fn value_ranges(&self) -> Option<Vec<ValueRange>> {
        let ranges = node_ranges(self.root.as_ref()?, self.key_count)?;
        (ranges.len() <= VALUE_RANGE_COUNT_MAX).then_some(ranges)
    }
}

fn compile(filter: &str, expression: &Expression, keys: &[FieldSchema]) -> Result<Node> {
    match expression {
        Expression::And(members) | Expression::Or(members) => {
            let mut compiled = Vec::with_capacity(members.len());
            for member in members {
                compiled.push(compile(filter, member, keys)?);
            }
            Ok(match expression {
                Expression::And(_) => Node::And(compiled),
                _ => Node::Or(compiled),
            })
        }
        Expression::Compare {
            key,
            operator,
            literal,
        } => {
            let index = keys
                .iter()
                .position(|candidate| candidate.name.eq_ignore_ascii_case(key))
                .ok_or_else(|| {
                    Error::Refused(format!(
                        "Specified key <{key}> is not a partitioning key for the table \
                         (filter \"{filter}\")"
                    ))
                })?;
            let class = key_class(&keys[index].type_name);
            if let (Operator::Like, Literal::Text(pattern)) = (operator, literal) {
                // A pattern the type would take but that is too costly or malformed.
                if matches!(class, KeyClass::Text | KeyClass::Date | KeyClass::Timestamp) {
                    let test = like_test(pattern).map_err(|reason| {
                        Error::Refused(format!("{reason} (filter \"{filter}\")"))
                    })?;
                    return Ok(Node::Leaf { key: index, test });
                }
            }
            let test = leaf_test(class, *operator, literal)
                .map_err(|reason| refused_comparison(filter, &keys[index], &reason))?;
            Ok(Node::Leaf { key: index, test })
        }
    }
}

fn refused_comparison(filter: &str, key: &FieldSchema, reason: &str) -> Error {
    Error::Refused(format!(
        "Filtering is supported only on partition keys of type string: partition key {} \
         of type {} {reason} (filter \"{filter}\")",
        key.name, key.type_name
    ))
}

/// The test of `key operator literal` for a key of `class`, or why Hive
/// refuses it.
fn leaf_test(
    class: KeyClass,
    operator: Operator,
    literal: &Literal,
) -> std::result::Result<Test, String> {
    if operator == Operator::Like {
        return Err(match literal {
            Literal::Text(_) => "cannot be matched with LIKE".to_string(),
            literal => format!("cannot be matched with LIKE against {}", describe(literal)),
        });
    }
    match (class, literal) {
        (_, Literal::Text(text)) if text == DEFAULT_PARTITION_NAME => {
            Ok(Test::Text(operator, text.clone()))
        }
        (KeyClass::Text, Literal::Text(text) | Literal::Date(text) | Literal::Timestamp(text)) => {
            Ok(Test::Text(operator, text.clone()))
        }
        (KeyClass::Integral, Literal::Integer(value)) => Ok(Test::Integral(operator, *value)),
        (KeyClass::Date, Literal::Date(text)) => parse_date(text)
            .map(|date| Test::Date(operator, date))
            .ok_or_else(|| format!("cannot compare with the invalid date {text}")),
        (KeyClass::Date, Literal::Text(text)) => Ok(match parse_date(text) {
            Some(date) => Test::Date(operator, date),
            None => Test::Text(operator, text.clone()),
        }),
        (KeyClass::Timestamp, Literal::Timestamp(text) | Literal::Text(text)) => {
            Ok(match parse_timestamp(text) {
                Some(timestamp) => Test::Timestamp(operator, timestamp),
                None => Test::Text(operator, text.clone()),
            })
        }
        (KeyClass::Other, _) => Err("cannot be filtered on".to_string()),
        (_, literal) => Err(format!("cannot be compared with {}", describe(literal))),
    }
}

fn describe(literal: &Literal) -> String {
    match literal {
        Literal::Text(text) => format!("the text '{text}'"),
        Literal::Integer(value) => format!("the integer {value}"),
        Literal::Date(date) => format!("the date {date}"),
        Literal::Timestamp(text) => format!("the timestamp {text}"),
    }
}

/// The test of `LIKE pattern` on a key that takes it.
fn like_test(pattern: &str) -> std::result::Result<Test, String> {
    let source = || format!("^(?:{})$", like_to_regex(pattern));
    crate::catalog::pattern::compile_bounded("LIKE pattern", pattern, source, false).map(Test::Like)
}

/// Hive's JDOQL conversion of a LIKE pattern to a regular expression.
fn like_to_regex(pattern: &str) -> String {
    let mut regex = String::with_capacity(pattern.len() + 8);
    let mut characters = pattern.chars().peekable();
    while let Some(character) = characters.next() {
        match character {
            '\\' if matches!(characters.peek(), Some('%' | '_')) => {
                if let Some(escaped) = characters.next() {
                    regex.push(escaped);
                }
            }
            '%' => regex.push_str(".*"),
            '_' => regex.push('.'),
            other => regex.push(other),
        }
    }
    regex
}

/// The exact stored value an equality leaf requires, if it requires one.
fn equality_value(test: &Test) -> Option<String> {
    match test {
        Test::Text(Operator::Equals, text) => Some(text.clone()),
        Test::Integral(Operator::Equals, value) => Some(value.to_string()),
        Test::Date(Operator::Equals, date) => Some(date.to_string()),
        _ => None,
    }
}

/// Value ranges for `node` (a superset of what passes), or `None`.
fn node_ranges(node: &Node, key_count: usize) -> Option<Vec<ValueRange>> {
    match node {
        Node::Or(members) => {
            let mut ranges = Vec::new();
            for member in members {
                ranges.extend(node_ranges(member, key_count)?);
                if ranges.len() > VALUE_RANGE_COUNT_MAX {
                    return None;
                }
            }
            Some(ranges)
        }
        Node::And(members) => conjunction_ranges(members, key_count),
        leaf => conjunction_ranges(std::slice::from_ref(leaf), key_count),
    }
}

/// Equalities on keys 0..k, then bounds on key k, from the leaves of a
/// conjunction; else the ranges of its first member that has some.
fn conjunction_ranges(members: &[Node], key_count: usize) -> Option<Vec<ValueRange>> {
    let leaves: Vec<(usize, &Test)> = members
        .iter()
        .filter_map(|member| match member {
            Node::Leaf { key, test } => Some((*key, test)),
            _ => None,
        })
        .collect();
    let mut prefix = Vec::new();
    while prefix.len() < key_count {
        let key = prefix.len();
        let equal = leaves
            .iter()
            .filter(|(leaf_key, _)| *leaf_key == key)
            .find_map(|(_, test)| equality_value(test));
        match equal {
            Some(value) => prefix.push(value),
            None => break,
        }
    }
    let (lower, upper) = bounds_on(&leaves, prefix.len());
    let bounded = !matches!((&lower, &upper), (Bound::Unbounded, Bound::Unbounded));
    if prefix.is_empty() && !bounded {
        return members.iter().find_map(|member| match member {
            Node::Leaf { .. } => None,
            other => node_ranges(other, key_count),
        });
    }
    Some(vec![ValueRange {
        prefix,
        lower,
        upper,
    }])
}

/// The tightest byte-order bounds the string comparisons of `leaves` put
/// on key `key`.
fn bounds_on(leaves: &[(usize, &Test)], key: usize) -> (Bound<String>, Bound<String>) {
    let (mut lower, mut upper) = (Bound::Unbounded, Bound::Unbounded);
    for (leaf_key, test) in leaves {
        let Test::Text(operator, text) = test else {
            continue;
        };
        if *leaf_key != key {
            continue;
        }
        match operator {
            Operator::Greater => lower = tighter_lower(lower, Bound::Excluded(text.clone())),
            Operator::GreaterOrEqual => lower = tighter_lower(lower, Bound::Included(text.clone())),
            Operator::Less => upper = tighter_upper(upper, Bound::Excluded(text.clone())),
            Operator::LessOrEqual => upper = tighter_upper(upper, Bound::Included(text.clone())),
            _ => {}
        }
    }
    (lower, upper)
}

fn bound_value(bound: &Bound<String>) -> Option<&String> {
    match bound {
        Bound::Included(value) | Bound::Excluded(value) => Some(value),
        Bound::Unbounded => None,
    }
}

fn tighter_lower(current: Bound<String>, candidate: Bound<String>) -> Bound<String> {
    match (bound_value(&current), bound_value(&candidate)) {
        (None, _) => candidate,
        (Some(old), Some(new)) if new > old => candidate,
        (Some(old), Some(new)) if new == old && matches!(candidate, Bound::Excluded(_)) => {
            candidate
        }
        _ => current,
    }
}

fn tighter_upper(current: Bound<String>, candidate: Bound<String>) -> Bound<String> {
    match (bound_value(&current), bound_value(&candidate)) {
        (None, _) => candidate,
        (Some(old), Some(new)) if new < old => candidate,
        (Some(old), Some(new)) if new == old && matches!(candidate, Bound::Excluded(_)) => {
            candidate
        }
        _ => current,
    }
}
