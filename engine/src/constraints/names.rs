//! The names Hive generates for constraints declared without one (`generateConstraintName`):
//! `<suffix>_<hash>_<milliseconds>_<attempt>`, where the hash is Java's `String.hashCode` of
//! the parameters written as commons-lang's `ArrayUtils.toString` writes them (`{a,b,c}`),
//! masked to 28 bits, and the attempt counts names already taken.

/// How many names Hive tries before it gives up.
pub(crate) const GENERATED_NAME_ATTEMPTS: u32 = 10;

/// Java's `String.hashCode`: over UTF-16 code units, wrapping.
pub(crate) fn java_hash(text: &str) -> i32 {
    text.encode_utf16().fold(0i32, |hash, unit| {
        hash.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// `ArrayUtils.toString` of the parameters: `{a,b,c}`, a missing one as `<null>`.
pub(crate) fn parameter_text(parameters: &[Option<&str>]) -> String {
    let parts: Vec<&str> = parameters
        .iter()
        .map(|parameter| parameter.unwrap_or("<null>"))
        .collect();
    format!("{{{}}}", parts.join(","))
}

/// Hive's name for attempt `attempt` at `millis`: the last parameter (the kind's suffix), the
/// masked hash, the time and the attempt.
pub(crate) fn generated_name(parameters: &[Option<&str>], millis: i64, attempt: u32) -> String {
    let hash = java_hash(&parameter_text(parameters)) & 0x0fff_ffff;
    let suffix = parameters
        .last()
        .copied()
        .flatten()
        .unwrap_or("constraint_");
    format!("{suffix}_{hash}_{millis}_{attempt}")
}

/// The current time in milliseconds, as `System.currentTimeMillis`.
pub(crate) fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_javas_string_hash() {
        // Values of Java's "".hashCode(), "a".hashCode(), "hello".hashCode() and a string
        // that overflows.
        assert_eq!(java_hash(""), 0);
        assert_eq!(java_hash("a"), 97);
        assert_eq!(java_hash("hello"), 99_162_322);
        assert_eq!(java_hash("polygenelubricants"), i32::MIN);
    }

    #[test]
    fn names_take_the_suffix_the_masked_hash_the_time_and_the_attempt() {
        let parameters = [Some("db"), Some("t"), Some("id"), Some("pk")];
        assert_eq!(parameter_text(&parameters), "{db,t,id,pk}");
        assert_eq!(parameter_text(&[Some("a"), None]), "{a,<null>}");
        let hash = java_hash("{db,t,id,pk}") & 0x0fff_ffff;
        assert_eq!(
            generated_name(&parameters, 1_700_000_000_123, 2),
            format!("pk_{hash}_1700000000123_2")
        );
    }
}
