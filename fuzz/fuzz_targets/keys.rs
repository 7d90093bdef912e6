//! Feeds arbitrary bytes to every key decoder of `keys.rs`, as a corrupt or foreign store
//! would: each must answer a value or an error, never panic. A key that decodes must encode
//! back to the same bytes, so that two keys never decode to one value.
#![no_main]

use hivestore_engine::keys::{self, DatabaseId, TableId};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(catalog) = keys::decode_catalog_key(data) {
        assert_eq!(keys::catalog_key(&catalog), data);
    }
    if let Ok((catalog, database)) = keys::decode_database_name_key(data) {
        assert_eq!(keys::database_name_key(&catalog, &database), data);
    }
    if let Ok((DatabaseId(database), table)) = keys::decode_table_name_key(data) {
        assert_eq!(keys::table_name_key(DatabaseId(database), &table), data);
    }
    if let Ok((TableId(table), values)) = keys::decode_partition_key(data) {
        assert_eq!(keys::partition_key(TableId(table), &values), data);
    }
    if let Ok((txn, database, table)) = keys::decode_min_history_key(data) {
        assert_eq!(keys::min_history_key(txn, &database, &table), data);
    }
    let _ = keys::decode_id_value(b"k", data);
    let _ = keys::decode_pending_removal_key(data);
    let _ = keys::decode_stats_slot_key(data);
    let _ = keys::decode_stats_column_key(data);
    let _ = keys::decode_lock_key(data);
    let _ = keys::decode_txn_key(data);
    let _ = keys::decode_write_set_key(data);
    let _ = keys::decode_write_id_key(data);
    let _ = keys::decode_event_key(data);
});
