//! Hive's name patterns for `get_databases`, `get_tables`, `get_table_meta`.
//!
//! Not SQL `LIKE`: the pattern is split on `|` into alternatives, `*` in each
//! becomes `.*`, and a name matches when it matches any alternative as a
//! whole, case-insensitively, as a regular expression (so `.` and `[...]`
//! stay live, as in Hive's Java regex). `None`, empty and `*` match
//! everything.

use regex::{Regex, RegexBuilder};

use crate::error::{Error, Result};

/// The longest pattern accepted, in bytes.
pub const NAME_PATTERN_LEN_MAX: usize = 4096;
/// The most memory a compiled pattern may take.
const COMPILED_SIZE_MAX: usize = 1 << 20;

/// A compiled name pattern.
#[derive(Debug, Clone)]
pub struct NamePattern {
    /// `None` matches everything.
    regex: Option<Regex>,
}

impl NamePattern {
    /// Compiles Hive's pattern `pattern`; `None`, `""` and `"*"` match all.
    pub fn new(pattern: Option<&str>) -> Result<Self> {
        // No pattern, or `*`, is everything; an empty pattern matches no name (Hive matches
        // the whole name against it).
        let pattern = match pattern {
            None | Some("*") => return Ok(NamePattern { regex: None }),
            Some(pattern) => pattern,
        };
        if pattern.len() > NAME_PATTERN_LEN_MAX {
            return Err(Error::InvalidInput(format!(
                "name pattern of {} bytes is longer than the {NAME_PATTERN_LEN_MAX} allowed",
                pattern.len()
            )));
        }
        let alternatives: Vec<String> = pattern
            .split('|')
            .map(|alternative| format!("(?:{})", alternative.trim().replace('*', ".*")))
            .collect();
        let source = format!("^(?:{})$", alternatives.join("|"));
        let regex = RegexBuilder::new(&source)
            .case_insensitive(true)
            .size_limit(COMPILED_SIZE_MAX)
            .build()
            .map_err(|error| {
                Error::InvalidInput(format!("invalid name pattern '{pattern}': {error}"))
            })?;
        Ok(NamePattern { regex: Some(regex) })
    }

    /// Whether `name` matches.
    pub fn matches(&self, name: &str) -> bool {
        self.regex.as_ref().is_none_or(|regex| regex.is_match(name))
    }

    /// Whether the pattern matches everything.
    pub fn is_all(&self) -> bool {
        self.regex.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, name: &str) -> bool {
        NamePattern::new(Some(pattern)).unwrap().matches(name)
    }

    #[test]
    fn hive_patterns_match_like_hive() {
        assert!(matches("*", "anything"));
        assert!(NamePattern::new(None).unwrap().matches("x"));
        assert!(matches("sales*", "sales_2024"));
        assert!(matches("SALES*", "sales_2024"));
        assert!(!matches("sales", "sales_2024"));
        assert!(matches("a|b*", "b1"));
        assert!(matches("a|b*", "a"));
        assert!(!matches("a|b*", "ab"));
        assert!(matches(".*", "x"));
        assert!(matches("t.", "t1"));
        assert!(matches("t[0-9]", "t7"));
        assert!(!matches("", "t7"), "an empty pattern matches no name");
    }

    #[test]
    fn malformed_patterns_are_invalid_input() {
        let error = NamePattern::new(Some("a(")).unwrap_err();
        assert!(matches!(error, Error::InvalidInput(message) if message.contains("'a('")));
    }
}
