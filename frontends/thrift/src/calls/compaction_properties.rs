//! A compaction's properties as Hive's compactor carries them in
//! `CompactionInfoStruct.properties`: the text of Hive's `StringableMap` — the entry count,
//! `:`, then per entry the key's length, `:`, the key, the value's length, `:`, the value.
//! Lengths count UTF-16 code units, as Java's `String.length()`; an empty or null string is
//! written with length 0 (or -1) and no text, and reads back as empty.

/// `properties` in Hive's `StringableMap` text.
pub fn to_stringable_map(properties: &[(String, String)]) -> String {
    let mut text = format!("{}:", properties.len());
    for (key, value) in properties {
        for part in [key, value] {
            text.push_str(&format!("{}:", part.encode_utf16().count()));
            text.push_str(part);
        }
    }
    text
}

/// Reads a length and its `:` off the front of `text`.
fn take_length<'a>(text: &'a str, whole: &str) -> Result<(i64, &'a str), String> {
    let (number, rest) = text.split_once(':').ok_or_else(|| {
        format!("Invalid compaction properties '{whole}': a length lacks its ':'")
    })?;
    let length = number
        .parse::<i64>()
        .map_err(|_| format!("Invalid compaction properties '{whole}': '{number}' is no length"))?;
    Ok((length, rest))
}

/// Takes `length` UTF-16 code units off the front of `text`.
fn take_text<'a>(text: &'a str, length: i64, whole: &str) -> Result<(String, &'a str), String> {
    let Ok(wanted) = usize::try_from(length) else {
        return Ok((String::new(), text));
    };
    let mut units = 0;
    for (at, character) in text.char_indices() {
        if units == wanted {
            return Ok((text[..at].to_string(), &text[at..]));
        }
        units += character.len_utf16();
    }
    if units == wanted {
        return Ok((text.to_string(), ""));
    }
    Err(format!(
        "Invalid compaction properties '{whole}': a string is shorter than its length {length}"
    ))
}

/// The properties in Hive's `StringableMap` text `text`.
pub fn from_stringable_map(text: &str) -> Result<Vec<(String, String)>, String> {
    let (count, mut rest) = take_length(text, text)?;
    let mut properties = Vec::new();
    for _ in 0..count.max(0) {
        let (key_length, after) = take_length(rest, text)?;
        let (key, after) = take_text(after, key_length, text)?;
        let (value_length, after) = take_length(after, text)?;
        let (value, after) = take_text(after, value_length, text)?;
        properties.push((key, value));
        rest = after;
    }
    Ok(properties)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_round_trip_in_hives_text() {
        let properties = vec![
            (
                "compactor.mapreduce.map.memory.mb".to_string(),
                "2048".to_string(),
            ),
            ("clé:😀".to_string(), "".to_string()),
        ];
        let text = to_stringable_map(&properties);
        assert_eq!(
            text,
            "2:33:compactor.mapreduce.map.memory.mb4:20486:clé:😀0:"
        );
        assert_eq!(from_stringable_map(&text).unwrap(), properties);
        assert_eq!(from_stringable_map("0:").unwrap(), vec![]);
        assert_eq!(
            from_stringable_map("1:-1:-1:").unwrap(),
            vec![(String::new(), String::new())]
        );
        for bad in ["", "x:", "1:", "1:5:ab", "2:1:a1:b"] {
            assert!(from_stringable_map(bad).is_err(), "{bad}");
        }
    }
}
