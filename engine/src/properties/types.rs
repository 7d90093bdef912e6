//! The property types of Hive's property store (`PropertyType`, and `HMSPropertyManager`'s
//! two maintenance enums): how a value given as text is validated, and the text it is
//! stored and answered as (Java's and Gson's formats).

use crate::calendar::{civil_from_days, days_from_civil, days_in_month};

/// The deepest nesting of arrays and objects a `json` value may have (hivestore's bound).
pub const PROPERTY_JSON_DEPTH_MAX: usize = 64;

/// A property's declared type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropertyType {
    /// `string`: any text.
    String,
    /// `boolean`: `true` or `false`, in any case.
    Boolean,
    /// `integer`: Java's `Integer.parseInt`.
    Integer,
    /// `long`: Java's `Long.parseLong`.
    Long,
    /// `double`: Java's `Double.parseDouble` (decimal forms).
    Double,
    /// `date`: `yyyy-MM-dd'T'HH:mm:ss.SS'Z'`, in UTC.
    Date,
    /// `json`: a JSON value, answered as Gson writes it.
    Json,
    /// `MaintenanceOperation`: a `MaintenanceOpType` name, in any case.
    MaintenanceOperation,
    /// `MaintenanceStatus`: a `MaintenanceOpStatus` name, in any case.
    MaintenanceStatus,
}

/// `HMSPropertyManager.MaintenanceOpType`, in declaration order.
pub const MAINTENANCE_OPERATIONS: &[&str] = &[
    "COMPACTION",
    "SNAPSHOT_EXPIRY",
    "STATS_REBUILD",
    "MV_BUILD",
    "MV_REFRESH",
    "SHUFFLE_TO_NEW_PART",
    "RECOMPRESS",
    "REORG",
];

/// `HMSPropertyManager.MaintenanceOpStatus`, in declaration order.
pub const MAINTENANCE_STATUSES: &[&str] = &[
    "MAINTENANCE_NEEDED",
    "SCHEDULED",
    "IN_PROGRESS",
    "DONE",
    "CLEANUP_NEEDED",
    "FAILED",
];

/// Why a value was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CastError {
    /// Not a value of the type (Hive: `property <name>, type <type>, <value>`).
    NotOfType,
    /// Not a name of the enum (Hive: Java's `valueOf` text, naming the enum class).
    NoEnumConstant(String),
}

impl PropertyType {
    /// The type's name, as Hive's `PropertyType.getName`.
    pub fn name(self) -> &'static str {
        match self {
            PropertyType::String => "string",
            PropertyType::Boolean => "boolean",
            PropertyType::Integer => "integer",
            PropertyType::Long => "long",
            PropertyType::Double => "double",
            PropertyType::Date => "date",
            PropertyType::Json => "json",
            PropertyType::MaintenanceOperation => "MaintenanceOperation",
            PropertyType::MaintenanceStatus => "MaintenanceStatus",
        }
    }

    /// Validates `text` as a value of this type and answers its canonical text: what Hive
    /// stores (its typed value) formatted back as Hive formats it.
    pub fn cast(self, text: &str) -> Result<String, CastError> {
        match self {
            PropertyType::String => Ok(text.to_owned()),
            PropertyType::Boolean => {
                if text.eq_ignore_ascii_case("true") {
                    Ok("true".to_owned())
                } else if text.eq_ignore_ascii_case("false") {
                    Ok("false".to_owned())
                } else {
                    Err(CastError::NotOfType)
                }
            }
            PropertyType::Integer => text
                .parse::<i32>()
                .map(|value| value.to_string())
                .map_err(|_| CastError::NotOfType),
            PropertyType::Long => text
                .parse::<i64>()
                .map(|value| value.to_string())
                .map_err(|_| CastError::NotOfType),
            PropertyType::Double => parse_java_double(text)
                .map(java_double_text)
                .ok_or(CastError::NotOfType),
            PropertyType::Date => parse_date_millis(text)
                .map(format_date_millis)
                .ok_or(CastError::NotOfType),
            PropertyType::Json => parse_json(text)
                .map(|value| value.to_gson())
                .ok_or(CastError::NotOfType),
            PropertyType::MaintenanceOperation => {
                enum_constant(text, MAINTENANCE_OPERATIONS, "MaintenanceOpType")
            }
            PropertyType::MaintenanceStatus => {
                enum_constant(text, MAINTENANCE_STATUSES, "MaintenanceOpStatus")
            }
        }
    }
}

fn enum_constant(text: &str, names: &[&str], class: &str) -> Result<String, CastError> {
    let upper = text.to_uppercase();
    if names.contains(&upper.as_str()) {
        Ok(upper)
    } else {
        Err(CastError::NoEnumConstant(format!(
            "No enum constant org.apache.hadoop.hive.metastore.properties.HMSPropertyManager.\
             {class}.{upper}"
        )))
    }
}

/// Java's `Double.parseDouble` on decimal forms: surrounding whitespace (Java trims
/// characters up to U+0020), a sign, digits with an optional point and exponent, an optional
/// `d`/`f` suffix, or `NaN`/`Infinity`. Hexadecimal forms are refused.
pub fn parse_java_double(text: &str) -> Option<f64> {
    let trimmed = text.trim_matches(|c: char| c <= ' ');
    let (sign, body) = match trimmed.as_bytes().first() {
        Some(b'-') => (-1.0, &trimmed[1..]),
        Some(b'+') => (1.0, &trimmed[1..]),
        _ => (1.0, trimmed),
    };
    match body {
        "NaN" => return Some(f64::NAN),
        "Infinity" => return Some(sign * f64::INFINITY),
        _ => {}
    }
    let body = body.strip_suffix(['d', 'D', 'f', 'F']).unwrap_or(body);
    let bytes = body.as_bytes();
    let mut index = 0;
    let int_digits = count_digits(&bytes[index..]);
    index += int_digits;
    let mut frac_digits = 0;
    if bytes.get(index) == Some(&b'.') {
        index += 1;
        frac_digits = count_digits(&bytes[index..]);
        index += frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if matches!(bytes.get(index), Some(b'e' | b'E')) {
        index += 1;
        if matches!(bytes.get(index), Some(b'+' | b'-')) {
            index += 1;
        }
        let exp_digits = count_digits(&bytes[index..]);
        if exp_digits == 0 {
            return None;
        }
        index += exp_digits;
    }
    if index != bytes.len() {
        return None;
    }
    body.parse::<f64>().ok().map(|value| sign * value)
}

fn count_digits(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|b| b.is_ascii_digit()).count()
}

/// Java's `Double.toString`: `NaN`, `Infinity`, a decimal with at least one fractional digit
/// between 10^-3 and 10^7, otherwise `d.dddE±n`.
pub fn java_double_text(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    if value == 0.0 {
        return if value.is_sign_negative() {
            "-0.0"
        } else {
            "0.0"
        }
        .to_owned();
    }
    let magnitude = value.abs();
    let sign = if value < 0.0 { "-" } else { "" };
    // The shortest digits that read back as the value, and their decimal exponent.
    let scientific = format!("{magnitude:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (1e-3..1e7).contains(&magnitude) {
        let point = exponent + 1;
        let (int_part, frac_part) = if point <= 0 {
            (
                "0".to_owned(),
                format!("{}{}", "0".repeat((-point) as usize), digits),
            )
        } else if point as usize >= digits.len() {
            (
                format!("{}{}", digits, "0".repeat(point as usize - digits.len())),
                String::new(),
            )
        } else {
            (
                digits[..point as usize].to_owned(),
                digits[point as usize..].to_owned(),
            )
        };
        let frac_part = if frac_part.is_empty() {
            "0".to_owned()
        } else {
            frac_part
        };
        format!("{sign}{int_part}.{frac_part}")
    } else {
        let frac = if digits.len() > 1 { &digits[1..] } else { "0" };
        format!("{sign}{}.{frac}E{exponent}", &digits[..1])
    }
}

/// `yyyy-MM-dd'T'HH:mm:ss.SS'Z'` in UTC to milliseconds since the epoch; fields out of their
/// range are refused.
pub fn parse_date_millis(text: &str) -> Option<i64> {
    let mut rest = text.as_bytes();
    let mut field = |min_digits: usize, max_digits: usize, end: Option<u8>| -> Option<i64> {
        let digits = count_digits(rest).min(max_digits);
        if digits < min_digits {
            return None;
        }
        let value: i64 = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
        rest = &rest[digits..];
        if let Some(end) = end {
            if rest.first() != Some(&end) {
                return None;
            }
            rest = &rest[1..];
        }
        Some(value)
    };
    let year = field(1, 9, Some(b'-'))?;
    let month = field(1, 2, Some(b'-'))?;
    let day = field(1, 2, Some(b'T'))?;
    let hour = field(1, 2, Some(b':'))?;
    let minute = field(1, 2, Some(b':'))?;
    let second = field(1, 2, Some(b'.'))?;
    let millis = field(1, 3, Some(b'Z'))?;
    if !rest.is_empty()
        || !(1..=12).contains(&month)
        || day < 1
        || day > i64::from(days_in_month(year, month as u32))
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let days = days_from_civil(year, month as u32, day as u32);
    Some(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis)
}

/// Milliseconds since the epoch as `yyyy-MM-dd'T'HH:mm:ss.SS'Z'` (milliseconds in at least
/// two digits, as Java's `SS` writes them).
pub fn format_date_millis(millis: i64) -> String {
    let days = millis.div_euclid(86_400_000);
    let in_day = millis.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:02}Z",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    )
}

/// A JSON value, as Gson reads one into `Object`: numbers are doubles, objects keep their
/// keys' order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, keys in their order.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The value as Gson's `toJson` writes it: compact, numbers as Java doubles, HTML-safe
    /// escapes.
    pub fn to_gson(&self) -> String {
        let mut out = String::new();
        self.write_gson(&mut out);
        out
    }

    fn write_gson(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
            Json::Number(value) => out.push_str(&java_double_text(*value)),
            Json::String(text) => write_gson_string(text, out),
            Json::Array(items) => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    item.write_gson(out);
                }
                out.push(']');
            }
            Json::Object(members) => {
                out.push('{');
                for (index, (key, value)) in members.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    write_gson_string(key, out);
                    out.push(':');
                    value.write_gson(out);
                }
                out.push('}');
            }
        }
    }

    /// The member `name` of an object.
    pub fn member(&self, name: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value),
            _ => None,
        }
    }
}

fn write_gson_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '=' | '\'' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Parses one JSON value (strings in double or single quotes, as Gson's lenient reader
/// takes them), nested at most [`PROPERTY_JSON_DEPTH_MAX`] deep. `None` when malformed, as
/// Hive's `json` type answers `null` for what Gson refuses.
pub fn parse_json(text: &str) -> Option<Json> {
    let mut parser = JsonParser {
        bytes: text.as_bytes(),
        text,
        at: 0,
    };
    let value = parser.value(0)?;
    parser.skip_space();
    (parser.at == parser.bytes.len()).then_some(value)
}

struct JsonParser<'a> {
    bytes: &'a [u8],
    text: &'a str,
    at: usize,
}

impl JsonParser<'_> {
    fn skip_space(&mut self) {
        while matches!(self.bytes.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<Json> {
        if depth > PROPERTY_JSON_DEPTH_MAX {
            return None;
        }
        self.skip_space();
        match *self.bytes.get(self.at)? {
            b'{' => {
                self.at += 1;
                let mut members: Vec<(String, Json)> = Vec::new();
                self.skip_space();
                if self.bytes.get(self.at) == Some(&b'}') {
                    self.at += 1;
                    return Some(Json::Object(members));
                }
                loop {
                    self.skip_space();
                    let key = self.string()?;
                    if members.iter().any(|(existing, _)| *existing == key) {
                        return None;
                    }
                    self.skip_space();
                    if self.bytes.get(self.at) != Some(&b':') {
                        return None;
                    }
                    self.at += 1;
                    let value = self.value(depth + 1)?;
                    members.push((key, value));
                    self.skip_space();
                    match self.bytes.get(self.at)? {
                        b',' => self.at += 1,
                        b'}' => {
                            self.at += 1;
                            return Some(Json::Object(members));
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                self.skip_space();
                if self.bytes.get(self.at) == Some(&b']') {
                    self.at += 1;
                    return Some(Json::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.skip_space();
                    match self.bytes.get(self.at)? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Some(Json::Array(items));
                        }
                        _ => return None,
                    }
                }
            }
            b'"' | b'\'' => self.string().map(Json::String),
            b't' => self.word("true", Json::Bool(true)),
            b'f' => self.word("false", Json::Bool(false)),
            b'n' => self.word("null", Json::Null),
            _ => {
                let start = self.at;
                while matches!(
                    self.bytes.get(self.at),
                    Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                ) {
                    self.at += 1;
                }
                let number = &self.text[start..self.at];
                let valid =
                    !number.is_empty() && !number.starts_with('+') && number.parse::<f64>().is_ok();
                valid.then(|| Json::Number(number.parse().unwrap_or(0.0)))
            }
        }
    }

    fn word(&mut self, word: &str, value: Json) -> Option<Json> {
        if self.text[self.at..].starts_with(word) {
            self.at += word.len();
            Some(value)
        } else {
            None
        }
    }

    fn string(&mut self) -> Option<String> {
        let quote = *self.bytes.get(self.at)?;
        if quote != b'"' && quote != b'\'' {
            return None;
        }
        self.at += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.at..];
            let c = rest.chars().next()?;
            self.at += c.len_utf8();
            match c {
                c if c as u32 == u32::from(quote) => return Some(out),
                '\\' => {
                    let escaped = *self.bytes.get(self.at)?;
                    self.at += 1;
                    match escaped {
                        b'"' => out.push('"'),
                        b'\'' => out.push('\''),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hex = self.text.get(self.at..self.at + 4)?;
                            let code = u32::from_str_radix(hex, 16).ok()?;
                            self.at += 4;
                            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                        }
                        _ => return None,
                    }
                }
                c => out.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_read_and_written_as_java_does() {
        for (text, expected) in [
            ("100", "100.0"),
            ("0.75", "0.75"),
            (" 95 ", "95.0"),
            ("1e7", "1.0E7"),
            ("12345678.5", "1.23456785E7"),
            ("0.0001", "1.0E-4"),
            ("0.001", "0.001"),
            ("-2.5d", "-2.5"),
            ("NaN", "NaN"),
            ("-Infinity", "-Infinity"),
        ] {
            assert_eq!(
                PropertyType::Double.cast(text).as_deref(),
                Ok(expected),
                "{text}"
            );
        }
        for bad in ["", "abc", "1.2.3", "inf", "0x10", "1e", "."] {
            assert_eq!(
                PropertyType::Double.cast(bad),
                Err(CastError::NotOfType),
                "{bad}"
            );
        }
    }

    #[test]
    fn integers_booleans_dates_and_enums() {
        assert_eq!(PropertyType::Integer.cast("+42").as_deref(), Ok("42"));
        assert_eq!(
            PropertyType::Integer.cast("2147483648"),
            Err(CastError::NotOfType)
        );
        assert_eq!(
            PropertyType::Long.cast("2147483648").as_deref(),
            Ok("2147483648")
        );
        assert_eq!(PropertyType::Boolean.cast("TRUE").as_deref(), Ok("true"));
        assert_eq!(PropertyType::Boolean.cast("yes"), Err(CastError::NotOfType));
        assert_eq!(
            PropertyType::Date.cast("2023-01-06T12:16:00.5Z").as_deref(),
            Ok("2023-01-06T12:16:00.05Z")
        );
        assert_eq!(
            PropertyType::Date.cast("2023-02-30T12:16:00.00Z"),
            Err(CastError::NotOfType)
        );
        assert_eq!(
            PropertyType::MaintenanceStatus.cast("done").as_deref(),
            Ok("DONE")
        );
        assert_eq!(
            PropertyType::MaintenanceOperation.cast("vacuum"),
            Err(CastError::NoEnumConstant(
                "No enum constant org.apache.hadoop.hive.metastore.properties.\
                 HMSPropertyManager.MaintenanceOpType.VACUUM"
                    .to_owned()
            ))
        );
    }

    #[test]
    fn json_as_gson_reads_and_writes_it() {
        assert_eq!(
            PropertyType::Json
                .cast(r#"{ "b": [1, 2.5, true, null], 'a': "x<y" }"#)
                .as_deref(),
            Ok(r#"{"b":[1.0,2.5,true,null],"a":"x\u003cy"}"#)
        );
        for bad in ["", "{", "{\"a\":1,\"a\":2}", "[1,]", "tru"] {
            assert_eq!(
                PropertyType::Json.cast(bad),
                Err(CastError::NotOfType),
                "{bad}"
            );
        }
        let deep = format!(
            "{}{}",
            "[".repeat(PROPERTY_JSON_DEPTH_MAX + 2),
            "]".repeat(PROPERTY_JSON_DEPTH_MAX + 2)
        );
        assert_eq!(PropertyType::Json.cast(&deep), Err(CastError::NotOfType));
    }
}
