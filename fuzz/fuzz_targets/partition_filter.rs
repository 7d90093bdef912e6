//! Feeds arbitrary text to the partition filter parser, then compiles what parses against a
//! table's keys of each type class and tests it on a few values. Any panic, hang or unbounded
//! allocation is a bug.
#![no_main]

use hivestore_engine::{FieldSchema, PartitionFilter};
use libfuzzer_sys::fuzz_target;

fn key(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.to_string(),
        type_name: type_name.to_string(),
        comment: None,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(filter) = PartitionFilter::parse(text) else {
        return;
    };
    let keys = [
        key("a", "string"),
        key("b", "int"),
        key("c", "date"),
        key("d", "timestamp"),
        key("e", "varchar(5)"),
    ];
    let Ok(compiled) = filter.compile(&keys) else {
        return;
    };
    let rows = [
        ["x", "7", "2024-01-31", "2024-01-31 10:00:00", "é"],
        ["", "-3", "2024-02-30", "x", "__HIVE_DEFAULT_PARTITION__"],
        ["aaaaaaaaaaaaaaaa", "007", "0000-01-01", "2024-01-31 10:00:00.123", "a/b"],
    ];
    for row in &rows {
        let _ = compiled.matches(row);
    }
});
