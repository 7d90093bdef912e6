//! Feeds arbitrary text to the table filter parser (`get_table_names_by_filter`), then tests
//! what parses on a few tables. Any panic, hang or unbounded allocation is a bug.
#![no_main]

use hivestore_engine::{Table, TableFilter};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(filter) = TableFilter::parse(text) else {
        return;
    };
    let plain = Table::default();
    let mut with_parameters = Table {
        owner: Some("alice".to_string()),
        last_access_time: 7,
        ..Table::default()
    };
    for (key, value) in [("table_type", "ICEBERG"), ("k", ""), ("é", "a\"b")] {
        with_parameters
            .parameters
            .insert(key.to_string(), value.to_string());
    }
    let _ = filter.matches(&plain);
    let _ = filter.matches(&with_parameters);
});
