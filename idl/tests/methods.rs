//! `METHODS` against the generated code: every handler method of both services, by wire
//! name, once.

use std::collections::HashSet;

use hivestore_idl::handler::{Method, METHODS};

const HMS_RS: &str = include_str!("../src/generated/hive_metastore.rs");
const FB303_RS: &str = include_str!("../src/generated/fb303.rs");

/// Number of `fn handle_` declarations in the body of `pub trait <name>`.
fn handler_count(src: &str, trait_name: &str) -> usize {
    let start = src
        .find(&format!("pub trait {trait_name} "))
        .unwrap_or_else(|| panic!("trait {trait_name} not found"));
    let body = &src[start..];
    let end = body.find("\n}\n").expect("end of trait");
    body[..end].matches("fn handle_").count()
}

fn method(name: &str) -> Method {
    *METHODS
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("{name} is not in METHODS"))
}

#[test]
fn no_duplicates() {
    let mut seen = HashSet::new();
    for m in METHODS {
        assert!(seen.insert(m.name), "{} is listed twice", m.name);
    }
}

#[test]
fn count_matches_generated_handler_traits() {
    let hms = handler_count(HMS_RS, "ThriftHiveMetastoreSyncHandler");
    let fb303 = handler_count(FB303_RS, "FacebookServiceSyncHandler");
    assert_eq!(fb303, 13);
    assert_eq!(METHODS.len(), hms + fb303);
}

#[test]
fn wire_names_and_oneway() {
    for name in [
        // re-added methods that Hive 4's IDL dropped
        "get_table",
        "get_table_objects_by_name",
        "create_dataconnector",
        "drop_dataconnector",
        "alter_dataconnector",
        "get_indexes",
        // Hive 4
        "get_table_req",
        "get_table_objects_by_name_req",
        "get_partitions_by_filter",
        "get_aggr_stats_for",
        "get_all_write_event_info",
        // names that are not snake_case on the wire
        "getMetaConf",
        "setMetaConf",
        "abort_Compactions",
        "isPartitionMarkedForEvent",
        // fb303
        "getName",
        "getCounters",
        "aliveSince",
    ] {
        assert!(!method(name).oneway, "{name} must not be oneway");
    }
    assert!(method("shutdown").oneway);
    assert!(method("reinitialize").oneway);
    assert_eq!(METHODS.iter().filter(|m| m.oneway).count(), 2);
}
