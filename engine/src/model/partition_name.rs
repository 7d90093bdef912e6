//! Partition names as Hive writes and reads them: `k1=v1/k2=v2`, each key
//! and value escaped with Hive's `%XX` rule.
//!
//! - [`escape_path_name`] is Hive's `FileUtils.escapePathName`: the
//!   characters `0x00`–`0x1F`, `"` `#` `%` `'` `*` `/` `:` `=` `?` `\`
//!   `0x7F` `{` `[` `]` `^` become `%` and two upper-case hex digits; every
//!   other character, non-ASCII included, is kept. An empty value becomes
//!   [`DEFAULT_PARTITION_NAME`].
//! - [`unescape_path_name`] is `FileUtils.unescapePathName`: `%` followed by
//!   two characters that Java's `Integer.parseInt(_, 16)` reads as a
//!   non-negative number becomes that character; anything else stays. Java
//!   accepts a sign there, so `%+A` is `\n` and `%-0` is `\0`: kept, to
//!   read names exactly as Hive does.
//! - [`make_partition_name`] is `Warehouse.makePartName`: keys lowercased
//!   and escaped, values escaped, joined with `=` and `/`.
//! - [`partition_name_to_spec`] and [`partition_name_to_values`] are
//!   `Warehouse.makeSpecFromName`, behind HMS's `partition_name_to_spec` and
//!   `partition_name_to_vals`.

use regex::Regex;

use crate::error::{Error, Result};

/// The name Hive gives a null or empty partition value
/// (`hive.exec.default.partition.name`).
pub const DEFAULT_PARTITION_NAME: &str = "__HIVE_DEFAULT_PARTITION__";
/// The name of Hive's setting for the partition value whitelist.
pub const PARTITION_NAME_WHITELIST_SETTING: &str = "metastore.partition.name.whitelist.pattern";

/// Whether Hive escapes `character` in path names.
fn needs_escaping(character: char) -> bool {
    matches!(
        character,
        '\u{0}'
            ..='\u{1F}'
                | '"'
                | '#'
                | '%'
                | '\''
                | '*'
                | '/'
                | ':'
                | '='
                | '?'
                | '\\'
                | '\u{7F}'
                | '{'
                | '['
                | ']'
                | '^'
    )
}

/// Hive's `escapePathName(value)`: see the module documentation.
pub fn escape_path_name(value: &str) -> String {
    if value.is_empty() {
        return DEFAULT_PARTITION_NAME.to_string();
    }
    let mut escaped = String::with_capacity(value.len());
    push_escaped(&mut escaped, value);
    escaped
}

/// Whether `value` is written unchanged in a path name: not empty, nothing to escape. Only ASCII
/// characters are escaped, and in UTF-8 an ASCII byte is always an ASCII character.
pub(crate) fn is_plain(value: &str) -> bool {
    !value.is_empty()
        && !value
            .bytes()
            .any(|byte| byte.is_ascii() && needs_escaping(char::from(byte)))
}

/// Appends `value` escaped (empty → the default partition name) to `out`.
pub(crate) fn push_escaped(out: &mut String, value: &str) {
    if value.is_empty() {
        out.push_str(DEFAULT_PARTITION_NAME);
        return;
    }
    // Most values need no escaping and are copied whole.
    if is_plain(value) {
        out.push_str(value);
        return;
    }
    for character in value.chars() {
        if needs_escaping(character) {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            let code = character as usize;
            out.push('%');
            out.push(char::from(HEX[(code >> 4) & 0xF]));
            out.push(char::from(HEX[code & 0xF]));
        } else {
            out.push(character);
        }
    }
}

/// What Java's `Integer.parseInt(text, 16)` gives for two characters, when
/// it is not negative: two hex digits, or a sign and one.
fn java_hex_pair(first: char, second: char) -> Option<u32> {
    let digit = |character: char| character.to_digit(16);
    match first {
        '+' => digit(second),
        '-' => digit(second).filter(|value| *value == 0),
        _ => Some(digit(first)? * 16 + digit(second)?),
    }
}

/// Hive's `unescapePathName(name)`: see the module documentation.
pub fn unescape_path_name(name: &str) -> String {
    let characters: Vec<char> = name.chars().collect();
    let mut unescaped = String::with_capacity(name.len());
    let mut position = 0;
    while position < characters.len() {
        let character = characters[position];
        if character == '%' && position + 2 < characters.len() {
            let code = java_hex_pair(characters[position + 1], characters[position + 2]);
            if let Some(decoded) = code.and_then(char::from_u32) {
                unescaped.push(decoded);
                position += 3;
                continue;
            }
        }
        unescaped.push(character);
        position += 1;
    }
    unescaped
}

/// Hive's `Warehouse.makePartName(keys, values)`: `k1=v1/k2=v2`, keys
/// lowercased. `keys` and `values` must have the same length.
///
/// # Panics
/// If the lengths differ: callers check values against the table first.
pub fn make_partition_name<K: AsRef<str>, V: AsRef<str>>(keys: &[K], values: &[V]) -> String {
    let mut name = String::with_capacity(keys.len() * 16);
    push_partition_name(&mut name, &escaped_keys(keys), values);
    name
}

/// The partition keys as a name shows them, lower-cased and escaped: what
/// [`push_partition_name`] takes, made once for many names.
pub(crate) fn escaped_keys<K: AsRef<str>>(keys: &[K]) -> Vec<String> {
    let escape = |key: &K| {
        let mut escaped = String::new();
        push_escaped(&mut escaped, &key.as_ref().to_lowercase());
        escaped
    };
    keys.iter().map(escape).collect()
}

/// Appends the name of `values` to `name`, the keys given by [`escaped_keys`].
pub(crate) fn push_partition_name<V: AsRef<str>>(
    name: &mut String,
    escaped_keys: &[String],
    values: &[V],
) {
    assert_eq!(
        escaped_keys.len(),
        values.len(),
        "one value per partition key"
    );
    for (index, (key, value)) in escaped_keys.iter().zip(values).enumerate() {
        if index > 0 {
            name.push('/');
        }
        name.push_str(key);
        name.push('=');
        push_escaped(name, value.as_ref());
    }
}

/// Splits one `k=v` component as Hive's pattern `([^/]+)=([^/]+)` does:
/// at the last `=` that leaves both sides non-empty.
fn split_component(component: &str) -> Option<(&str, &str)> {
    let bytes = component.as_bytes();
    (1..bytes.len().saturating_sub(1))
        .rev()
        .find(|index| bytes[*index] == b'=')
        .map(|index| (&component[..index], &component[index + 1..]))
}

/// Hive's `partition_name_to_spec`: the `(key, value)` pairs of `name`, in
/// order, unescaped. Components without `=` (or with an empty side) are
/// skipped, as Hive's parser skips them; a key seen twice keeps its first
/// position and its last value. An empty name gives no pairs.
pub fn partition_name_to_spec(name: &str) -> Vec<(String, String)> {
    let mut spec: Vec<(String, String)> = Vec::new();
    for component in name.split('/').filter(|part| !part.is_empty()) {
        let Some((key, value)) = split_component(component) else {
            continue;
        };
        let (key, value) = (unescape_path_name(key), unescape_path_name(value));
        match spec.iter_mut().find(|(seen, _)| *seen == key) {
            Some(entry) => entry.1 = value,
            None => spec.push((key, value)),
        }
    }
    spec
}

/// Hive's `partition_name_to_vals`: the values of `name`, in order.
pub fn partition_name_to_values(name: &str) -> Vec<String> {
    partition_name_to_spec(name)
        .into_iter()
        .map(|(_, value)| value)
        .collect()
}

/// Hive's `metastore.partition.name.whitelist.pattern`: partition values
/// must match it whole (Java's `Matcher.matches`).
#[derive(Debug, Clone)]
pub struct PartitionNameWhitelist {
    pattern: String,
    regex: Regex,
}

impl PartitionNameWhitelist {
    /// Compiles `pattern`; errors quote it.
    pub fn new(pattern: &str) -> Result<Self> {
        let regex = Regex::new(&format!("^(?:{pattern})$")).map_err(|error| {
            Error::InvalidInput(format!(
                "invalid {PARTITION_NAME_WHITELIST_SETTING} '{pattern}': {error}"
            ))
        })?;
        Ok(PartitionNameWhitelist {
            pattern: pattern.to_string(),
            regex,
        })
    }

    /// The pattern as given.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Hive's `validatePartitionNameCharacters`: the first value not
    /// matching is refused with Hive's message.
    pub fn check<V: AsRef<str>>(&self, values: &[V]) -> Result<()> {
        match values
            .iter()
            .find(|value| !self.regex.is_match(value.as_ref()))
        {
            None => Ok(()),
            Some(value) => Err(Error::Refused(format!(
                "Partition value '{}' contains a character not matched by whitelist pattern \
                 '{}'.  (configure with {PARTITION_NAME_WHITELIST_SETTING})",
                value.as_ref(),
                self.pattern
            ))),
        }
    }
}

/// Hive's `partition_name_has_valid_characters(values, throw)`: whether
/// every value matches `whitelist` (always, without one). With
/// `throw_error`, a mismatch is Hive's `MetaException` instead of `false`.
pub fn partition_name_has_valid_characters<V: AsRef<str>>(
    values: &[V],
    whitelist: Option<&PartitionNameWhitelist>,
    throw_error: bool,
) -> Result<bool> {
    let Some(whitelist) = whitelist else {
        return Ok(true);
    };
    match whitelist.check(values) {
        Ok(()) => Ok(true),
        Err(error) if throw_error => Err(error),
        Err(_) => Ok(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn escaping_follows_hive() {
        assert_eq!(escape_path_name("a/b"), "a%2Fb");
        assert_eq!(escape_path_name("x=1"), "x%3D1");
        assert_eq!(
            escape_path_name("2024-01-01 10:00:00"),
            "2024-01-01 10%3A00%3A00"
        );
        assert_eq!(escape_path_name("50%"), "50%25");
        assert_eq!(escape_path_name("\u{1}\u{7F}{[]^}"), "%01%7F%7B%5B%5D%5E}");
        assert_eq!(escape_path_name(" ,;&+$!@()-_.~|<>é"), " ,;&+$!@()-_.~|<>é");
        assert_eq!(escape_path_name(""), DEFAULT_PARTITION_NAME);
    }

    #[test]
    fn unescaping_reads_as_java_does() {
        assert_eq!(unescape_path_name("a%2Fb"), "a/b");
        assert_eq!(unescape_path_name("a%2fb"), "a/b");
        assert_eq!(unescape_path_name("50%"), "50%");
        assert_eq!(unescape_path_name("%2"), "%2");
        assert_eq!(unescape_path_name("%zz%41"), "%zzA");
        assert_eq!(unescape_path_name("%+A"), "\n");
        assert_eq!(unescape_path_name("%-0"), "\u{0}");
        assert_eq!(unescape_path_name("%-1"), "%-1");
        assert_eq!(unescape_path_name("%E9"), "é");
    }

    #[test]
    fn names_are_made_and_read_as_hive_does() {
        let name = make_partition_name(&["DS", "hr"], &["2024-01-01", "a/b"]);
        assert_eq!(name, "ds=2024-01-01/hr=a%2Fb");
        assert_eq!(
            partition_name_to_spec(&name),
            vec![
                ("ds".to_string(), "2024-01-01".to_string()),
                ("hr".to_string(), "a/b".to_string())
            ]
        );
        assert_eq!(partition_name_to_values("a=1//b=2/"), vec!["1", "2"]);
        assert_eq!(partition_name_to_values("a=b=c"), vec!["c"]);
        assert_eq!(partition_name_to_spec("a=b=")[0], ("a".into(), "b=".into()));
        assert!(partition_name_to_values("").is_empty());
        assert!(partition_name_to_values("novalue/k=").is_empty());
        assert_eq!(partition_name_to_values("a=1/a=2"), vec!["2"]);
    }

    #[test]
    fn whitelist_uses_hive_message() {
        let whitelist = PartitionNameWhitelist::new("[a-z0-9-]*").unwrap();
        let ok = partition_name_has_valid_characters(&["ab-1"], Some(&whitelist), true);
        assert!(ok.unwrap());
        let bad = partition_name_has_valid_characters(&["ok", "A!"], Some(&whitelist), false);
        assert!(!bad.unwrap());
        let error = whitelist.check(&["ok", "A!"]).unwrap_err().to_string();
        assert_eq!(
            error,
            "Partition value 'A!' contains a character not matched by whitelist pattern \
             '[a-z0-9-]*'.  (configure with metastore.partition.name.whitelist.pattern)"
        );
        assert!(partition_name_has_valid_characters(&["A!"], None, true).unwrap());
        assert!(PartitionNameWhitelist::new("(").is_err());
    }

    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z0-9%=/: ._-]{1,8}",
            ".{1,6}",
            Just("__HIVE_DEFAULT_PARTITION__".to_string()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn escape_round_trips(text in ".{0,12}") {
            let expected = if text.is_empty() { DEFAULT_PARTITION_NAME.to_string() } else { text.clone() };
            prop_assert_eq!(unescape_path_name(&escape_path_name(&text)), expected);
        }

        #[test]
        fn escaped_names_have_no_separators(text in ".{1,12}") {
            let escaped = escape_path_name(&text);
            prop_assert!(!escaped.contains('/') && !escaped.contains('='));
        }

        #[test]
        fn name_values_name_round_trips(
            keys in proptest::collection::vec("[a-z][a-z0-9_]{0,5}", 1..4),
            values in proptest::collection::vec(value(), 4),
        ) {
            let mut unique = keys.clone();
            unique.dedup();
            prop_assume!(unique.len() == keys.len()
                && keys.iter().collect::<std::collections::BTreeSet<_>>().len() == keys.len());
            let values = &values[..keys.len()];
            let name = make_partition_name(&keys, values);
            let parsed = partition_name_to_values(&name);
            prop_assert_eq!(&parsed, values);
            prop_assert_eq!(make_partition_name(&keys, &parsed), name);
        }
    }
}
