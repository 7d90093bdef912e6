//! `COLUMN_STATS_ACCURATE`, the table or partition parameter in which Hive records which
//! statistics are up to date: `{"BASIC_STATS":"true","COLUMN_STATS":{"a":"true"}}`, booleans as
//! strings, `BASIC_STATS` left out when false, `COLUMN_STATS` when empty, columns sorted.

use std::collections::BTreeSet;

/// The parameter key.
pub const COLUMN_STATS_ACCURATE: &str = "COLUMN_STATS_ACCURATE";

/// How deep a stored value may nest before it is taken as unparsable.
const JSON_DEPTH_MAX: usize = 8;

/// What a `COLUMN_STATS_ACCURATE` value says is accurate.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StatsAccuracy {
    /// `BASIC_STATS`: numRows, numFiles, totalSize, rawDataSize are up to date.
    pub basic: bool,
    /// `COLUMN_STATS`: the columns whose statistics are up to date.
    pub columns: BTreeSet<String>,
}

impl StatsAccuracy {
    /// Reads a stored value as Hive does: JSON, or the legacy `true` (basic only); anything
    /// else says nothing is accurate.
    pub fn parse(value: Option<&str>) -> StatsAccuracy {
        let Some(value) = value else {
            return StatsAccuracy::default();
        };
        let mut parser = Parser {
            bytes: value.as_bytes(),
            position: 0,
        };
        match parser.accuracy() {
            Some(accuracy) => accuracy,
            None => StatsAccuracy {
                basic: value.trim().eq_ignore_ascii_case("true"),
                columns: BTreeSet::new(),
            },
        }
    }

    /// The value as Hive writes it.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{");
        if self.basic {
            out.push_str("\"BASIC_STATS\":\"true\"");
        }
        if !self.columns.is_empty() {
            if self.basic {
                out.push(',');
            }
            out.push_str("\"COLUMN_STATS\":{");
            for (index, column) in self.columns.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                push_json_string(&mut out, column);
                out.push_str(":\"true\"");
            }
            out.push('}');
        }
        out.push('}');
        out
    }
}

fn push_json_string(out: &mut String, text: &str) {
    out.push('"');
    // Column names rarely need escaping: copy them whole.
    if !text
        .bytes()
        .any(|byte| byte == b'"' || byte == b'\\' || byte < 0x20)
    {
        out.push_str(text);
        out.push('"');
        return;
    }
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            control if (control as u32) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", control as u32));
            }
            other => out.push(other),
        }
    }
    out.push('"');
}

/// A JSON value, as far as this parameter (and a materialized view's snapshot) needs one.
pub(crate) enum Json {
    Text(String),
    Bool(bool),
    Object(Vec<(String, Json)>),
    Other,
}

fn is_true(value: &Json) -> bool {
    match value {
        Json::Text(text) => text.eq_ignore_ascii_case("true"),
        Json::Bool(flag) => *flag,
        _ => false,
    }
}

/// The fields of `text` when it is one JSON object (strings, literals and objects read;
/// numbers and `null` as [`Json::Other`]), else `None`.
pub(crate) fn json_object(text: &str) -> Option<Vec<(String, Json)>> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        position: 0,
    };
    let Json::Object(fields) = parser.value(0)? else {
        return None;
    };
    parser.skip_space();
    (parser.position == parser.bytes.len()).then_some(fields)
}

/// A small JSON reader: objects, strings, literals; numbers and arrays are skipped over.
struct Parser<'a> {
    bytes: &'a [u8],
    position: usize,
}

impl Parser<'_> {
    fn accuracy(&mut self) -> Option<StatsAccuracy> {
        let Json::Object(fields) = self.value(0)? else {
            return None;
        };
        self.skip_space();
        if self.position != self.bytes.len() {
            return None;
        }
        let mut accuracy = StatsAccuracy::default();
        for (key, value) in fields {
            match (key.as_str(), value) {
                ("BASIC_STATS", value) => accuracy.basic = is_true(&value),
                ("COLUMN_STATS", Json::Object(columns)) => {
                    let accurate = columns.into_iter().filter(|(_, value)| is_true(value));
                    accuracy.columns = accurate.map(|(column, _)| column).collect();
                }
                _ => {}
            }
        }
        Some(accuracy)
    }

    fn skip_space(&mut self) {
        while self
            .bytes
            .get(self.position)
            .is_some_and(u8::is_ascii_whitespace)
        {
            self.position += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip_space();
        if self.bytes.get(self.position) == Some(&byte) {
            self.position += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Option<Json> {
        if depth > JSON_DEPTH_MAX {
            return None;
        }
        self.skip_space();
        match self.bytes.get(self.position)? {
            b'{' => self.object(depth),
            b'"' => self.string().map(Json::Text),
            b'[' => None,
            _ => self.literal(),
        }
    }

    fn object(&mut self, depth: usize) -> Option<Json> {
        self.position += 1;
        let mut fields = Vec::new();
        if self.eat(b'}') {
            return Some(Json::Object(fields));
        }
        loop {
            self.skip_space();
            let key = self.string()?;
            if !self.eat(b':') {
                return None;
            }
            fields.push((key, self.value(depth + 1)?));
            if self.eat(b'}') {
                return Some(Json::Object(fields));
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    fn literal(&mut self) -> Option<Json> {
        let start = self.position;
        while self
            .bytes
            .get(self.position)
            .is_some_and(|byte| byte.is_ascii_alphanumeric() || b"+-.".contains(byte))
        {
            self.position += 1;
        }
        match &self.bytes[start..self.position] {
            b"true" => Some(Json::Bool(true)),
            b"false" => Some(Json::Bool(false)),
            b"" => None,
            _ => Some(Json::Other),
        }
    }

    fn string(&mut self) -> Option<String> {
        if self.bytes.get(self.position) != Some(&b'"') {
            return None;
        }
        self.position += 1;
        // Without escapes (column names), the string is the bytes up to the quote.
        let rest = &self.bytes[self.position..];
        let end = rest
            .iter()
            .position(|byte| *byte == b'"' || *byte == b'\\')?;
        if rest[end] == b'"' {
            let text = std::str::from_utf8(&rest[..end]).ok()?.to_string();
            self.position += end + 1;
            return Some(text);
        }
        let mut out = Vec::new();
        loop {
            let byte = *self.bytes.get(self.position)?;
            self.position += 1;
            match byte {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let escaped = *self.bytes.get(self.position)?;
                    self.position += 1;
                    match escaped {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let hex = self.bytes.get(self.position..self.position + 4)?;
                            self.position += 4;
                            let code =
                                u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
                            let character = char::from_u32(code).unwrap_or('\u{FFFD}');
                            out.extend_from_slice(character.to_string().as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                other => out.push(other),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_and_writes_hives_form() {
        let text = r#"{"BASIC_STATS":"true","COLUMN_STATS":{"a":"true","b":"true"}}"#;
        let accuracy = StatsAccuracy::parse(Some(text));
        assert!(accuracy.basic);
        assert_eq!(accuracy.columns.len(), 2);
        assert_eq!(accuracy.to_json(), text);
        let columns_only = StatsAccuracy::parse(Some(r#"{"COLUMN_STATS":{"x":"true"}}"#));
        assert!(!columns_only.basic);
        assert_eq!(columns_only.to_json(), r#"{"COLUMN_STATS":{"x":"true"}}"#);
        assert_eq!(StatsAccuracy::default().to_json(), "{}");
    }

    #[test]
    fn legacy_and_garbage_values() {
        assert!(StatsAccuracy::parse(Some("TRUE")).basic);
        assert_eq!(
            StatsAccuracy::parse(Some("{\"a\":")),
            StatsAccuracy::default()
        );
        assert_eq!(StatsAccuracy::parse(Some("[1]")), StatsAccuracy::default());
        let deep = "{\"a\":".repeat(100);
        assert_eq!(StatsAccuracy::parse(Some(&deep)), StatsAccuracy::default());
    }

    proptest! {
        #[test]
        fn json_round_trips(basic: bool, columns in proptest::collection::btree_set(".{0,6}", 0..5)) {
            let accuracy = StatsAccuracy { basic, columns };
            prop_assert_eq!(StatsAccuracy::parse(Some(&accuracy.to_json())), accuracy);
        }

        #[test]
        fn parsing_never_panics(text in ".{0,40}") {
            let _ = StatsAccuracy::parse(Some(&text));
        }
    }
}
