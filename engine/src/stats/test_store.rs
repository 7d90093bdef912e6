//! A store for the statistics module's own tests: database `db`, table `p` of one `bigint`
//! column `l` partitioned by `ds`, with partitions `ds=0`, `ds=1`, ...

use std::sync::Arc;

use crate::storage::kv::MemoryBackend;
use crate::{
    Database, Durability, FieldSchema, Partition, StorageDescriptor, Store, StoreOptions, Table,
};

/// The most a recent slot (`recent_slots.rs`) of the tests' columns stages, key and value: a
/// key of about 25 bytes (keyspace, table id, column, engine, chunk, offset) and a value of an
/// 8-byte header and a 144-byte archive (two bytes, a type name, eleven numbers, two empty
/// byte vectors), with room for a longer type name. A whole chunk of 128 `bigint` slots is
/// 4.8 KB.
pub(super) const RECENT_SLOT_BYTES_MAX: usize = 256;

/// A store on `backend`, made or opened again: the database, table and `partition_count`
/// partitions are made only when `make` is set.
pub(super) fn store_with_partitions(
    backend: Arc<MemoryBackend>,
    partition_count: usize,
    make: bool,
) -> Store {
    let mut options = StoreOptions::new("/warehouse").metadata_only();
    options.durability = Durability::Memory;
    let store = Store::open_with_backend(backend, options).unwrap();
    if !make {
        return store;
    }
    let database = Database {
        name: "db".to_string(),
        ..Database::default()
    };
    store.create_database(database).unwrap();
    let column = |name: &str| FieldSchema {
        name: name.to_string(),
        type_name: "bigint".to_string(),
        comment: None,
    };
    let table = Table {
        table_name: "p".to_string(),
        db_name: "db".to_string(),
        sd: Some(StorageDescriptor {
            cols: vec![column("l")],
            ..StorageDescriptor::default()
        }),
        partition_keys: vec![column("ds")],
        ..Table::default()
    };
    store.create_table(table).unwrap();
    let partitions = (0..partition_count)
        .map(|index| Partition {
            values: vec![index.to_string()],
            ..Partition::default()
        })
        .collect();
    store
        .add_partitions("hive", "db", "p", partitions, &Default::default())
        .unwrap();
    store
}
