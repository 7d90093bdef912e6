//! `add_partitions` read as it arrives, through a whole connection (`serve_stream`): the calls
//! are the generated client's bytes, cut in fragments as a socket may cut them, and the replies are
//! read back with the generated client. Goal: the one-pass reading answers exactly as the whole
//! message did, keeps the stream in step, and refuses what the message walk refuses, adding
//! nothing then.

mod common;
use common::Shared;
use std::io::{self, Read};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::{Durability, Store, StoreOptions};
use hivestore_idl::hive_metastore::{
    Database, FieldSchema, Partition, SerDeInfo, StorageDescriptor, TThriftHiveMetastoreSyncClient,
    Table, ThriftHiveMetastoreSyncClient,
};
use hivestore_thrift::limits::Limits;
use hivestore_thrift::server::serve_stream;
use hivestore_thrift::service::ServerState;
use proptest::prelude::*;
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};

/// A source handing out at most `fragment` bytes a read.
struct Fragments {
    bytes: Vec<u8>,
    at: usize,
    fragment: usize,
}

impl Read for Fragments {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let count = (self.bytes.len() - self.at)
            .min(out.len())
            .min(self.fragment);
        out[..count].copy_from_slice(&self.bytes[self.at..self.at + count]);
        self.at += count;
        Ok(count)
    }
}

type Client = ThriftHiveMetastoreSyncClient<
    TBinaryInputProtocol<io::Cursor<Vec<u8>>>,
    TBinaryOutputProtocol<Shared>,
>;

/// A generated client that writes its calls to `requests` and reads `replies`; its calls fail
/// once the replies run out, which is how the requests are recorded.
fn client(requests: &Shared, replies: Vec<u8>) -> Client {
    ThriftHiveMetastoreSyncClient::new(
        TBinaryInputProtocol::new(io::Cursor::new(replies), true),
        TBinaryOutputProtocol::new(requests.clone(), true),
    )
}

fn table() -> Table {
    let column = |name: &str, type_: &str| FieldSchema {
        name: Some(name.to_string()),
        type_: Some(type_.to_string()),
        comment: None,
    };
    Table {
        db_name: Some("db".to_string()),
        table_name: Some("t".to_string()),
        table_type: Some("EXTERNAL_TABLE".to_string()),
        partition_keys: Some(vec![column("ds", "string"), column("hr", "int")]),
        sd: Some(StorageDescriptor {
            cols: Some(
                (0..20)
                    .map(|index| column(&format!("c{index}"), "bigint"))
                    .collect(),
            ),
            location: Some("s3a://bucket/db/t".to_string()),
            input_format: Some("org.apache.hadoop.mapred.TextInputFormat".to_string()),
            serde_info: Some(SerDeInfo {
                serialization_lib: Some(
                    "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe".to_string(),
                ),
                ..SerDeInfo::default()
            }),
            ..StorageDescriptor::default()
        }),
        ..Table::default()
    }
}

fn partitions(table: &Table, count: usize, value_bytes: usize) -> Vec<Partition> {
    (0..count)
        .map(|index| Partition {
            values: Some(vec![
                format!(
                    "2024-01-{:0>width$}",
                    index / 24,
                    width = value_bytes.max(2)
                ),
                (index % 24).to_string(),
            ]),
            db_name: table.db_name.clone(),
            table_name: table.table_name.clone(),
            sd: table.sd.clone().map(|sd| StorageDescriptor {
                location: None,
                ..sd
            }),
            ..Partition::default()
        })
        .collect()
}

/// The calls of one connection, made by one generated client (sequence ids 1 to 4): create
/// the database and the table, add `added` in one call, list the names.
fn calls(added: &[Partition]) -> [Vec<u8>; 4] {
    let requests = Shared::default();
    let mut client = client(&requests, Vec::new());
    let _ = client.create_database(Database {
        name: Some("db".to_string()),
        ..Database::default()
    });
    let database = requests.take();
    let _ = client.create_table(table());
    let table = requests.take();
    let _ = client.add_partitions(added.to_vec());
    let add = requests.take();
    let _ = client.get_partition_names("db".to_string(), "t".to_string(), -1);
    [database, table, add, requests.take()]
}

/// Serves `stream` handed out `fragment` bytes a read, with `limits`: how the connection ended,
/// and its replies.
fn serve(stream: Vec<u8>, fragment: usize, limits: Limits) -> (Result<(), String>, Vec<u8>) {
    let mut options = StoreOptions::new("s3a://bucket/warehouse".to_string());
    options.durability = Durability::Memory;
    let store = Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap();
    let state = Arc::new(ServerState::new(store));
    let replies = Shared::default();
    let peer = SocketAddr::from((Ipv4Addr::LOCALHOST, 1));
    let source = Fragments {
        bytes: stream,
        at: 0,
        fragment,
    };
    let ended = serve_stream(source, replies.clone(), peer, state, limits);
    (ended, replies.take())
}

/// Reads the replies to [`calls`]: the count added and the names listed.
fn read_replies(added: &[Partition], replies: Vec<u8>) -> (i32, Vec<String>) {
    let mut client = client(&Shared::default(), replies);
    client
        .create_database(Database::default())
        .expect("database created");
    client.create_table(table()).expect("table created");
    let count = client
        .add_partitions(added.to_vec())
        .expect("partitions added");
    let names = client
        .get_partition_names(String::new(), String::new(), -1)
        .expect("names listed");
    (count, names)
}

#[test]
fn an_add_arriving_in_fragments_is_answered_as_a_whole_one_and_the_stream_stays_in_step() {
    let added = partitions(&table(), 300, 2);
    let stream = calls(&added).concat();
    let (ended, whole) = serve(stream.clone(), usize::MAX, Limits::default());
    assert_eq!(ended, Ok(()));
    let (count, names) = read_replies(&added, whole.clone());
    assert_eq!(count, 300);
    assert_eq!(names.len(), 300);
    for fragment in [1, 7, 1000, 65_536] {
        let (ended, replies) = serve(stream.clone(), fragment, Limits::default());
        assert_eq!(ended, Ok(()), "{fragment} bytes a read");
        assert_eq!(replies, whole, "{fragment} bytes a read");
    }
}

#[test]
fn an_add_past_the_limits_closes_its_connection_and_adds_nothing() {
    let stream = calls(&partitions(&table(), 300, 2)).concat();
    let message_limit = Limits {
        message_bytes_max: 16 * 1024,
        ..Limits::default()
    };
    let string_limit = Limits {
        string_bytes_max: 55,
        ..Limits::default()
    };
    let container_limit = Limits {
        container_elements_max: 100,
        ..Limits::default()
    };
    let long_values = calls(&partitions(&table(), 3, 60)).concat();
    for (stream, limits, reason) in [
        (
            stream.clone(),
            message_limit,
            "exceeds the limit of 16384 bytes",
        ),
        (
            long_values,
            string_limit,
            "string length 68 is outside 0..=55",
        ),
        (
            stream,
            container_limit,
            "list length 300 is outside 0..=100",
        ),
    ] {
        for fragment in [5, usize::MAX] {
            let (ended, replies) = serve(stream.clone(), fragment, limits);
            let error = ended.expect_err("the connection is closed");
            assert!(error.contains(reason), "{error:?} names {reason:?}");
            // The database and the table were answered; nothing else was.
            let mut client = client(&Shared::default(), replies);
            client.create_database(Database::default()).unwrap();
            client.create_table(table()).unwrap();
            assert!(
                client.add_partitions(Vec::new()).is_err(),
                "no reply to the add"
            );
        }
    }
}

#[test]
fn an_add_cut_short_is_truncated() {
    let [database, table, add, _] = calls(&partitions(&table(), 50, 2));
    for kept in [add.len() - 1, add.len() - 500, 30] {
        let stream = [database.clone(), table.clone(), add[..kept].to_vec()].concat();
        let (ended, _) = serve(stream, 100, Limits::default());
        assert_eq!(
            ended,
            Err("connection closed in the middle of a message".to_string())
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any bytes after an `add_partitions` header, in any fragments: the connection ends with a
    /// reply or an error, never a panic.
    #[test]
    fn arbitrary_bytes_after_an_add_header_never_panic(
        tail in prop::collection::vec(any::<u8>(), 0..512),
        fragment in 1usize..64,
    ) {
        let [database, table, add, _] = calls(&[]);
        // An empty add's arguments: a list field's header (3 bytes), the list's (5), a stop.
        let header = &add[..add.len() - 9];
        let stream = [database, table, header.to_vec(), tail].concat();
        let _ = serve(stream, fragment, Limits {
            message_bytes_max: 4096,
            string_bytes_max: 256,
            container_elements_max: 64,
            ..Limits::default()
        });
    }
}
