//! Hive column types: validation on create and alter, and the compatibility
//! rule `metastore.disallow.incompatible.col.type.changes` enforces.
//!
//! Hive's metastore (`MetaStoreUtils.validateColumnType`) checks only the
//! first alphanumeric token of a type string against its lowercase type
//! names. hivestore checks that token the same way, with Hive's message, and
//! then the rest of the type against Hive's type grammar: primitive names
//! (`decimal(p,s)`, `varchar(n)`, `char(n)` with their ranges),
//! `array<t>`, `map<k,v>`, `struct<name:t,...>` and `uniontype<t,...>`,
//! nested. Nested type names are case-insensitive, as in Hive's type parser.
//! Struct field names are lenient — anything but `:`, `,`, `<`, `>`, or any
//! text in backquotes — because engines (Iceberg, Trino, Spark) write field
//! names verbatim and Hive's metastore never looked inside.

use crate::error::{Error, Result};
use crate::model::table::FieldSchema;

/// The type string Hive stores for columns a SerDe derives.
pub const TYPE_FROM_DESERIALIZER: &str = "<derived from deserializer>";
/// The deepest nesting of complex types accepted.
pub const TYPE_DEPTH_MAX: usize = 64;
/// The longest type string accepted, in bytes.
pub const TYPE_LEN_MAX: usize = 1 << 20;

/// The names Hive's metastore accepts as the first token of a type
/// (`hiveThriftTypeMap`: primitive, collection, struct and union names).
const FIRST_TOKEN_NAMES: &[&str] = &[
    "void",
    "boolean",
    "tinyint",
    "smallint",
    "int",
    "bigint",
    "float",
    "double",
    "string",
    "varchar",
    "char",
    "date",
    "datetime",
    "timestamp",
    "interval_year_month",
    "interval_day_time",
    "decimal",
    "binary",
    "array",
    "map",
    "struct",
    "uniontype",
];

/// Primitive names without parameters, as Hive's type parser knows them.
const PLAIN_PRIMITIVES: &[&str] = &[
    "void",
    "boolean",
    "tinyint",
    "smallint",
    "int",
    "bigint",
    "float",
    "double",
    "string",
    "date",
    "datetime",
    "timestamp",
    "binary",
    "interval_year_month",
    "interval_day_time",
];

/// The longest `varchar(n)` and `char(n)`, and the most decimal digits.
const VARCHAR_LEN_MAX: u32 = 65535;
const CHAR_LEN_MAX: u32 = 255;
const DECIMAL_PRECISION_MAX: u32 = 38;

/// Checks every column of `columns`: Hive's type check with Hive's message
/// (`<what> type: <type>`, e.g. `Invalid column type: foo`), and no name twice.
/// `what` is `Invalid column` or `Invalid partition column`.
pub(crate) fn validate_columns(columns: &[FieldSchema], what: &str) -> Result<()> {
    for column in columns {
        if !is_valid_type(&column.type_name) {
            let message = format!("{what} type: {}", column.type_name);
            return Err(Error::InvalidObject(message));
        }
    }
    Ok(())
}

/// Fails on the first name that appears twice among `names` (lowercase),
/// with Hive's ql message.
pub(crate) fn reject_duplicate_names<'a>(names: impl Iterator<Item = &'a str>) -> Result<()> {
    let mut seen = std::collections::BTreeSet::new();
    for name in names {
        if !seen.insert(name) {
            return Err(Error::InvalidObject(format!(
                "Duplicate column name: {name}"
            )));
        }
    }
    Ok(())
}

/// Whether `type_name` is a valid Hive column type.
pub fn is_valid_type(type_name: &str) -> bool {
    if type_name == TYPE_FROM_DESERIALIZER {
        return true;
    }
    if type_name.len() > TYPE_LEN_MAX || !first_token_is_known(type_name) {
        return false;
    }
    let mut parser = TypeParser {
        input: type_name.as_bytes(),
        position: 0,
    };
    parser.parse_type(0).is_some() && {
        parser.skip_spaces();
        parser.position == parser.input.len()
    }
}

/// Hive's `validateColumnType`: the first run of `[A-Za-z0-9_]` (or of
/// other characters) must be a known lowercase type name.
fn first_token_is_known(type_name: &str) -> bool {
    let Some(first) = type_name.chars().next() else {
        return false;
    };
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let first_is_word = is_word(first);
    let end = type_name
        .char_indices()
        .find(|(_, c)| is_word(*c) != first_is_word)
        .map_or(type_name.len(), |(index, _)| index);
    FIRST_TOKEN_NAMES.contains(&&type_name[..end])
}

/// A recursive-descent parser over Hive's type grammar; `None` = invalid.
struct TypeParser<'a> {
    input: &'a [u8],
    position: usize,
}

impl TypeParser<'_> {
    fn skip_spaces(&mut self) {
        while self
            .input
            .get(self.position)
            .is_some_and(u8::is_ascii_whitespace)
        {
            self.position += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip_spaces();
        if self.input.get(self.position) == Some(&byte) {
            self.position += 1;
            true
        } else {
            false
        }
    }

    fn word(&mut self) -> Option<String> {
        self.skip_spaces();
        let start = self.position;
        while self
            .input
            .get(self.position)
            .is_some_and(|byte| byte.is_ascii_alphanumeric() || *byte == b'_')
        {
            self.position += 1;
        }
        let word = std::str::from_utf8(&self.input[start..self.position]).ok()?;
        (!word.is_empty()).then(|| word.to_ascii_lowercase())
    }

    fn number(&mut self) -> Option<u32> {
        let word = self.word()?;
        word.parse().ok()
    }

    fn parse_type(&mut self, depth: usize) -> Option<()> {
        if depth > TYPE_DEPTH_MAX {
            return None;
        }
        let name = self.word()?;
        match name.as_str() {
            "array" => self.parse_arguments(depth, Some(1)),
            "map" => self.parse_arguments(depth, Some(2)),
            "uniontype" => self.parse_arguments(depth, None),
            "struct" => self.parse_struct(depth),
            "varchar" => self.parse_length(VARCHAR_LEN_MAX),
            "char" => self.parse_length(CHAR_LEN_MAX),
            "decimal" => self.parse_decimal(),
            "timestamp" => self.parse_time_zone_suffix(),
            plain => PLAIN_PRIMITIVES.contains(&plain).then_some(()),
        }
    }

    /// `<t, ...>` with `count` types (any number when `None`, at least one).
    fn parse_arguments(&mut self, depth: usize, count: Option<usize>) -> Option<()> {
        if !self.eat(b'<') {
            return None;
        }
        let mut parsed = 0;
        loop {
            self.parse_type(depth + 1)?;
            parsed += 1;
            if self.eat(b'>') {
                break;
            }
            if !self.eat(b',') {
                return None;
            }
        }
        count.is_none_or(|count| count == parsed).then_some(())
    }

    /// `<name:t, ...>`, possibly empty (`struct<>`, as Spark writes it).
    fn parse_struct(&mut self, depth: usize) -> Option<()> {
        if !self.eat(b'<') {
            return None;
        }
        if self.eat(b'>') {
            return Some(());
        }
        loop {
            self.parse_field_name()?;
            if !self.eat(b':') {
                return None;
            }
            self.parse_type(depth + 1)?;
            if self.eat(b'>') {
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// A struct field name: backquoted text, or anything up to `:`.
    fn parse_field_name(&mut self) -> Option<()> {
        self.skip_spaces();
        if self.input.get(self.position) == Some(&b'`') {
            let rest = self.input.get(self.position + 1..)?;
            let close = rest.iter().position(|byte| *byte == b'`')?;
            self.position += close + 2;
            return Some(());
        }
        let start = self.position;
        while self
            .input
            .get(self.position)
            .is_some_and(|byte| !matches!(byte, b':' | b',' | b'<' | b'>'))
        {
            self.position += 1;
        }
        (self.position > start).then_some(())
    }

    /// An optional `(n)` with `1 <= n <= max`.
    fn parse_length(&mut self, max: u32) -> Option<()> {
        if !self.eat(b'(') {
            return Some(());
        }
        let length = self.number()?;
        ((1..=max).contains(&length) && self.eat(b')')).then_some(())
    }

    /// An optional `(p)` or `(p,s)` with `1 <= p <= 38` and `s <= p`.
    fn parse_decimal(&mut self) -> Option<()> {
        if !self.eat(b'(') {
            return Some(());
        }
        let precision = self.number()?;
        let scale = if self.eat(b',') { self.number()? } else { 0 };
        let valid = (1..=DECIMAL_PRECISION_MAX).contains(&precision) && scale <= precision;
        (valid && self.eat(b')')).then_some(())
    }

    /// `timestamp`, `timestamp with local time zone`, `timestamp with time zone`.
    fn parse_time_zone_suffix(&mut self) -> Option<()> {
        let mark = self.position;
        if self.word().as_deref() != Some("with") {
            self.position = mark;
            return Some(());
        }
        let mut next = self.word()?;
        if next == "local" {
            next = self.word()?;
        }
        (next == "time" && self.word().as_deref() == Some("zone")).then_some(())
    }
}

/// Hive's `ColumnType.getTypeName`: lowercase, first `\W`-delimited token,
/// `integer` → `int`, `numeric` → `decimal`.
fn type_family(type_name: &str) -> String {
    let lower = type_name.to_lowercase();
    let first = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or_default();
    match first {
        "integer" => "int".to_string(),
        "numeric" => "decimal".to_string(),
        other => other.to_string(),
    }
}

const STRING_FAMILIES: &[&str] = &["string", "varchar", "char"];
const DATE_TIME_FAMILIES: &[&str] = &["date", "datetime", "timestamp"];
/// Numeric families in Hive's widening order.
const NUMERIC_ORDER: &[&str] = &[
    "tinyint", "smallint", "int", "bigint", "decimal", "float", "double",
];
const OTHER_PRIMITIVE_FAMILIES: &[&str] = &[
    "void",
    "boolean",
    "binary",
    "interval_year_month",
    "interval_day_time",
];

fn is_primitive_family(family: &str) -> bool {
    STRING_FAMILIES.contains(&family)
        || DATE_TIME_FAMILIES.contains(&family)
        || NUMERIC_ORDER.contains(&family)
        || OTHER_PRIMITIVE_FAMILIES.contains(&family)
}

/// Hive's `ColumnType.areColTypesCompatible` on type families: equal; or both
/// primitive and string → string, a wider numeric, void → anything,
/// date/time → string, numeric → string.
pub(crate) fn are_compatible(old_type: &str, new_type: &str) -> bool {
    let (from, to) = (type_family(old_type), type_family(new_type));
    if from == to {
        return true;
    }
    if !is_primitive_family(&from) || !is_primitive_family(&to) {
        return false;
    }
    let rank = |family: &str| NUMERIC_ORDER.iter().position(|name| *name == family);
    let to_string = STRING_FAMILIES.contains(&to.as_str());
    match (rank(&from), rank(&to)) {
        (Some(from_rank), Some(to_rank)) => from_rank < to_rank,
        (Some(_), None) => to_string,
        _ => {
            (STRING_FAMILIES.contains(&from.as_str()) && to_string)
                || from == "void"
                || (DATE_TIME_FAMILIES.contains(&from.as_str()) && to_string)
        }
    }
}

/// Hive's `checkColTypeChangeCompatible`: columns compared by position, up to
/// the shorter list; the names of the new columns whose type is incompatible
/// fail the alter with Hive's message.
pub(crate) fn check_type_changes(old: &[FieldSchema], new: &[FieldSchema]) -> Result<()> {
    let incompatible: Vec<&str> = old
        .iter()
        .zip(new)
        .filter(|(old, new)| !are_compatible(&old.type_name, &new.type_name))
        .map(|(_, new)| new.name.as_str())
        .collect();
    if incompatible.is_empty() {
        return Ok(());
    }
    Err(Error::InvalidOperation(format!(
        "The following columns have types incompatible with the existing columns in their \
         respective positions :\n{}",
        incompatible.join(",")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hive_types_are_valid() {
        for valid in [
            "string",
            "int",
            "decimal",
            "decimal(10,2)",
            "decimal(38, 18)",
            "varchar(10)",
            "char(1)",
            "timestamp",
            "timestamp with local time zone",
            "interval_day_time",
            "array<string>",
            "array<STRING>",
            "map<string,array<int>>",
            "map<string, int>",
            "struct<a:int,b:struct<c:varchar(3)>>",
            "struct<>",
            "struct<`a:b`:int,some name:string,a-b:int>",
            "uniontype<int,string>",
            TYPE_FROM_DESERIALIZER,
        ] {
            assert!(is_valid_type(valid), "{valid}");
        }
    }

    #[test]
    fn malformed_types_are_invalid() {
        for invalid in [
            "",
            "foo",
            "INT",
            "String",
            "int32",
            "array",
            "array<>",
            "array<int,int>",
            "map<string>",
            "struct<a int>",
            "struct<a:int",
            "varchar(0)",
            "varchar(70000)",
            "char(256)",
            "decimal(39)",
            "decimal(5,6)",
            "decimal(x)",
            "int extra",
            "array<foo>",
            "timestamp with zone",
        ] {
            assert!(!is_valid_type(invalid), "{invalid}");
        }
        let deep = format!("{}int{}", "array<".repeat(100), ">".repeat(100));
        assert!(!is_valid_type(&deep));
    }

    #[test]
    fn compatibility_follows_hive() {
        for (old, new) in [
            ("int", "bigint"),
            ("int", "double"),
            ("bigint", "decimal(20,0)"),
            ("decimal(10,2)", "decimal(12,2)"),
            ("string", "varchar(10)"),
            ("int", "string"),
            ("date", "string"),
            ("void", "int"),
            ("struct<a:int>", "struct<a:int,b:string>"),
            ("integer", "int"),
        ] {
            assert!(are_compatible(old, new), "{old} -> {new}");
        }
        for (old, new) in [
            ("bigint", "int"),
            ("string", "int"),
            ("double", "float"),
            ("int", "array<int>"),
            ("boolean", "int"),
            ("string", "date"),
        ] {
            assert!(!are_compatible(old, new), "{old} -> {new}");
        }
    }
}
