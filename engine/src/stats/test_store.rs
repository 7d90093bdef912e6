//! A store for the statistics module's own tests: database `db`, table `p` of one `bigint`
//! column `l` partitioned by `ds`, with partitions `ds=0`, `ds=1`, ...

use std::sync::Arc;

use crate::storage::kv::MemoryBackend;
use crate::{
    Database, Durability, FieldSchema, Partition, StorageDescriptor, Store, StoreOptions, Table,
};

/// The most live bytes a recent slot (`chunk_delta.rs`) of the tests' columns takes with its
/// share of its delta's key and header: a slot of a packed chunk (three bytes and up to eight
/// numbers) and its offset, with room for a type name of its own; a delta of 16 holds far
/// less than 16 of these. A whole chunk of 128 `bigint` slots is 4.8 KB.
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
