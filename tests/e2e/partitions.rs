//! Partitions under concurrency, through the generated Rust client over loopback: writers
//! adding and dropping whole batches while readers list, each on its own connection. Every
//! batch is one atomic write, so no listing may show part of one, and at the end the table
//! holds exactly what was added and not dropped.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::mpsc;
use std::thread;

use hivestore_idl::hive_metastore::{
    Database, DropPartitionsRequest, FieldSchema, Partition, RequestPartsSpec, StorageDescriptor,
    TThriftHiveMetastoreSyncClient, Table,
};
use hivestore_tests::{client, Client, TestServer, ALL_FORMATS};

const DATABASE: &str = "concurrent";
const TABLE: &str = "events";
/// Partitions per batch: each batch is one `add_partitions` and, later, one drop.
const BATCH_LEN: usize = 40;
const WRITERS: usize = 4;
const BATCHES_PER_WRITER: usize = 12;
const DROPPERS: usize = 2;
const READERS: usize = 2;
const LISTINGS_PER_READER: usize = 40;

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: Some(name.to_string()),
        type_: Some(type_name.to_string()),
        comment: None,
    }
}

fn connect(server: &TestServer) -> Client {
    client(server.addr, ALL_FORMATS[0])
}

fn create_table(client: &mut Client) {
    client
        .create_database(Database {
            name: Some(DATABASE.to_string()),
            description: None,
            location_uri: None,
            parameters: Some(BTreeMap::new()),
            privileges: None,
            owner_name: None,
            owner_type: None,
            catalog_name: None,
            create_time: None,
            managed_location_uri: None,
            type_: None,
            connector_name: None,
            remote_dbname: None,
        })
        .unwrap();
    let sd = StorageDescriptor {
        cols: Some(vec![column("id", "bigint"), column("payload", "string")]),
        location: None,
        input_format: None,
        output_format: None,
        compressed: Some(false),
        num_buckets: Some(-1),
        serde_info: None,
        bucket_cols: Some(Vec::new()),
        sort_cols: Some(Vec::new()),
        parameters: Some(BTreeMap::new()),
        skewed_info: None,
        stored_as_sub_directories: None,
    };
    client
        .create_table(Table {
            table_name: Some(TABLE.to_string()),
            db_name: Some(DATABASE.to_string()),
            owner: None,
            create_time: None,
            last_access_time: None,
            retention: None,
            sd: Some(sd),
            partition_keys: Some(vec![column("batch", "string"), column("item", "int")]),
            parameters: Some(BTreeMap::new()),
            view_original_text: None,
            view_expanded_text: None,
            table_type: Some("MANAGED_TABLE".to_string()),
            privileges: None,
            temporary: None,
            rewrite_enabled: None,
            creation_metadata: None,
            cat_name: None,
            owner_type: None,
            write_id: None,
            is_stats_compliant: None,
            col_stats: None,
            access_type: None,
            required_read_capabilities: None,
            required_write_capabilities: None,
            id: None,
            file_metadata: None,
            dictionary: None,
            txn_id: None,
        })
        .unwrap();
}

fn partition(batch: &str, item: usize) -> Partition {
    Partition {
        values: Some(vec![batch.to_string(), item.to_string()]),
        db_name: Some(DATABASE.to_string()),
        table_name: Some(TABLE.to_string()),
        create_time: None,
        last_access_time: None,
        sd: None,
        parameters: Some(BTreeMap::new()),
        privileges: None,
        cat_name: None,
        write_id: None,
        is_stats_compliant: None,
        col_stats: None,
        file_metadata: None,
    }
}

/// Items per batch in a listing's values; every batch must be whole.
fn batch_sizes(values: impl Iterator<Item = Vec<String>>) -> BTreeMap<String, usize> {
    let mut sizes = BTreeMap::new();
    for values in values {
        *sizes.entry(values[0].clone()).or_insert(0) += 1;
    }
    sizes
}

fn assert_whole(sizes: &BTreeMap<String, usize>, what: &str) {
    for (batch, size) in sizes {
        assert_eq!(
            *size, BATCH_LEN,
            "{what} shows {size} partitions of batch {batch}"
        );
    }
}

#[test]
fn concurrent_adds_drops_and_listings_never_lose_or_split_a_batch() {
    let server = TestServer::start();
    create_table(&mut connect(&server));
    let (added_sender, added_receiver) = mpsc::channel::<String>();
    let added_receiver = std::sync::Arc::new(std::sync::Mutex::new(added_receiver));
    thread::scope(|scope| {
        let mut writers = Vec::new();
        for writer in 0..WRITERS {
            let sender = added_sender.clone();
            let server = &server;
            writers.push(scope.spawn(move || {
                let mut client = connect(server);
                let mut added = Vec::new();
                for index in 0..BATCHES_PER_WRITER {
                    let batch = format!("w{writer}_b{index:02}");
                    let partitions = (0..BATCH_LEN).map(|item| partition(&batch, item)).collect();
                    let count = client.add_partitions(partitions).unwrap();
                    assert_eq!(count, BATCH_LEN as i32);
                    added.push(batch.clone());
                    let _ = sender.send(batch);
                }
                added
            }));
        }
        drop(added_sender);
        let mut droppers = Vec::new();
        for _ in 0..DROPPERS {
            let receiver = std::sync::Arc::clone(&added_receiver);
            let server = &server;
            droppers.push(scope.spawn(move || {
                let mut client = connect(server);
                let mut dropped = Vec::new();
                loop {
                    // Take every other added batch; the rest must survive.
                    let next = receiver.lock().unwrap().recv();
                    let Ok(batch) = next else { break };
                    let skip = receiver.lock().unwrap().recv();
                    let names = (0..BATCH_LEN)
                        .map(|item| format!("batch={batch}/item={item}"))
                        .collect();
                    let result = client
                        .drop_partitions_req(DropPartitionsRequest {
                            db_name: DATABASE.to_string(),
                            tbl_name: TABLE.to_string(),
                            parts: RequestPartsSpec::Names(names),
                            delete_data: Some(true),
                            if_exists: Some(false),
                            ignore_protection: None,
                            environment_context: None,
                            need_result: Some(true),
                            cat_name: None,
                            skip_column_schema_for_partition: None,
                        })
                        .unwrap();
                    assert_eq!(result.partitions.map(|list| list.len()), Some(BATCH_LEN));
                    dropped.push(batch);
                    if skip.is_err() {
                        break;
                    }
                }
                dropped
            }));
        }
        for _ in 0..READERS {
            let server = &server;
            scope.spawn(move || {
                let mut client = connect(server);
                for round in 0..LISTINGS_PER_READER {
                    let listed = client.get_partitions(DATABASE.to_string(), TABLE.to_string(), -1);
                    let values = listed.unwrap().into_iter().map(|p| p.values.unwrap());
                    assert_whole(&batch_sizes(values), "get_partitions");
                    let names = client
                        .get_partition_names(DATABASE.to_string(), TABLE.to_string(), -1)
                        .unwrap();
                    let values = names.iter().map(|name| {
                        let batch = name.split('/').next().unwrap().trim_start_matches("batch=");
                        vec![batch.to_string()]
                    });
                    assert_whole(&batch_sizes(values), "get_partition_names");
                    let filter = format!("batch like \"w{}_.*\"", round % WRITERS);
                    let filtered = client
                        .get_partitions_by_filter(
                            DATABASE.to_string(),
                            TABLE.to_string(),
                            filter,
                            -1,
                        )
                        .unwrap();
                    let values = filtered.into_iter().map(|p| p.values.unwrap());
                    assert_whole(&batch_sizes(values), "get_partitions_by_filter");
                }
            });
        }
        let added: BTreeSet<String> = writers
            .into_iter()
            .flat_map(|writer| writer.join().unwrap())
            .collect();
        let dropped: BTreeSet<String> = droppers
            .into_iter()
            .flat_map(|dropper| dropper.join().unwrap())
            .collect();
        assert_eq!(added.len(), WRITERS * BATCHES_PER_WRITER);
        assert!(!dropped.is_empty());
        let expected: BTreeSet<String> = added.difference(&dropped).cloned().collect();
        let mut client = connect(&server);
        let listed = client
            .get_partitions(DATABASE.to_string(), TABLE.to_string(), -1)
            .unwrap();
        let sizes = batch_sizes(listed.into_iter().map(|p| p.values.unwrap()));
        assert_whole(&sizes, "the final listing");
        assert_eq!(sizes.keys().cloned().collect::<BTreeSet<_>>(), expected);
    });
}
