//! Connections over loopback and from memory: fb303 `shutdown` forgets the user; silent and
//! slow connections are closed at their deadlines; at the cap, the connection that waited
//! longest makes room for a newcomer. Every wait is bounded.

mod common;
mod running;
use common::Shared;
use running::{connect, Running, WAIT};
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::{Durability, Store, StoreOptions};
use hivestore_idl::fb303::TFacebookServiceSyncClient;
use hivestore_idl::hive_metastore::{
    Database, TThriftHiveMetastoreSyncClient, ThriftHiveMetastoreSyncClient,
};
use hivestore_thrift::limits::Limits;
use hivestore_thrift::server::serve_stream;
use hivestore_thrift::service::ServerState;
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};

fn state() -> Arc<ServerState> {
    let mut options = StoreOptions::new("s3a://bucket/warehouse".to_string());
    options.durability = Durability::Memory;
    let store = Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap();
    Arc::new(ServerState::new(store))
}

/// A strict binary call of `name` with `strings` as its string arguments (fields 1, 2, ...).
fn call(name: &str, sequence: i32, strings: &[&[u8]]) -> Vec<u8> {
    let mut message = vec![0x80, 0x01, 0x00, 0x01];
    message.extend_from_slice(&(name.len() as i32).to_be_bytes());
    message.extend_from_slice(name.as_bytes());
    message.extend_from_slice(&sequence.to_be_bytes());
    for (field, string) in (1i16..).zip(strings) {
        message.push(11);
        message.extend_from_slice(&field.to_be_bytes());
        message.extend_from_slice(&(string.len() as i32).to_be_bytes());
        message.extend_from_slice(string);
    }
    message.push(0); // the arguments' stop
    message
}

fn get_status(sequence: i32) -> Vec<u8> {
    call("getStatus", sequence, &[])
}

/// A generated client that writes its calls to `requests` and reads `replies`.
fn client(
    requests: &Shared,
    replies: Vec<u8>,
) -> ThriftHiveMetastoreSyncClient<
    TBinaryInputProtocol<io::Cursor<Vec<u8>>>,
    TBinaryOutputProtocol<Shared>,
> {
    ThriftHiveMetastoreSyncClient::new(
        TBinaryInputProtocol::new(io::Cursor::new(replies), true),
        TBinaryOutputProtocol::new(requests.clone(), true),
    )
}

fn database(name: &str) -> Database {
    Database {
        name: Some(name.to_string()),
        location_uri: Some(format!("s3a://bucket/{name}")),
        // The generated default is an empty owner, which the server would keep.
        owner_name: None,
        ..Database::default()
    }
}

#[test]
fn an_fb303_shutdown_forgets_the_user_and_keeps_the_connection() {
    let requests = Shared::default();
    let mut calls = client(&requests, Vec::new());
    let _ = calls.set_ugi("alice".to_string(), Vec::new());
    let _ = calls.create_database(database("before"));
    calls.shutdown().unwrap(); // one-way: nothing to read
    let _ = calls.create_database(database("after"));
    let _ = calls.get_database("before".to_string());
    let _ = calls.get_database("after".to_string());
    let stream = requests.take();
    let mut replies = Vec::new();
    let peer = SocketAddr::from((Ipv4Addr::LOCALHOST, 1));
    let ended = serve_stream(&stream[..], &mut replies, peer, state(), Limits::default());
    assert_eq!(ended, Ok(()));
    let mut answers = client(&Shared::default(), replies);
    answers.set_ugi(String::new(), Vec::new()).unwrap();
    answers.create_database(Database::default()).unwrap();
    answers.shutdown().unwrap(); // keeps the sequence ids in step
    answers.create_database(Database::default()).unwrap();
    let before = answers.get_database(String::new()).unwrap();
    let after = answers.get_database(String::new()).unwrap();
    assert_eq!(before.owner_name.as_deref(), Some("alice"));
    assert_eq!(
        after.owner_name, None,
        "the user is forgotten after shutdown"
    );
}

fn serve(limits: Limits) -> Running {
    running::serve(state(), limits)
}

/// Bytes of a getStatus reply: header, name, sequence id, then the result struct (an i32).
const GET_STATUS_REPLY_BYTES: usize = 4 + 4 + 9 + 4 + (1 + 2 + 4) + 1;

/// Whether the server answers a getStatus on `stream` (with a strict reply header).
fn answered(stream: &mut TcpStream) -> bool {
    if stream.write_all(&get_status(7)).is_err() {
        return false;
    }
    let mut reply = [0u8; GET_STATUS_REPLY_BYTES];
    stream.read_exact(&mut reply).is_ok() && reply[..4] == [0x80, 0x01, 0x00, 0x02]
}

/// Whether the server closed `stream` within `WAIT` (a read sees its end or a reset).
fn closed_by_server(stream: &mut TcpStream) -> bool {
    let mut byte = [0u8; 1];
    match stream.read(&mut byte) {
        Ok(0) => true,
        Ok(_) => false,
        Err(error) => error.kind() == io::ErrorKind::ConnectionReset,
    }
}

fn counter(running: &Running, name: &str) -> i64 {
    let counters = running.state.counters.snapshot();
    counters.get(name).copied().unwrap_or(0)
}

#[test]
fn a_silent_connection_is_closed_at_the_idle_deadline_and_a_slow_one_at_the_message_deadline() {
    let running = serve(Limits {
        idle_timeout: Duration::from_secs(1),
        message_timeout: Duration::from_secs(2),
        ..Limits::default()
    });
    let started = Instant::now();
    let mut silent = connect(running.address);
    let mut slow = connect(running.address);
    slow.write_all(&get_status(1)[..3]).unwrap();
    assert!(closed_by_server(&mut silent));
    // Sending a byte now and then keeps the idle deadline away, not the message one.
    let mut sent_more = 0;
    let message = get_status(1);
    while sent_more < 8 && started.elapsed() < WAIT {
        thread::sleep(Duration::from_millis(400));
        if slow
            .write_all(&message[3 + sent_more..4 + sent_more])
            .is_err()
        {
            break;
        }
        sent_more += 1;
    }
    assert!(sent_more < 8, "the slow message was never cut off");
    assert!(closed_by_server(&mut slow));
    assert!(counter(&running, "connections.timed_out") >= 2);
    let mut active = connect(running.address);
    assert!(answered(&mut active));
}

#[test]
fn at_the_cap_the_connection_waiting_longest_makes_room_for_a_newcomer() {
    let running = serve(Limits {
        connections_max: 4,
        ..Limits::default()
    });
    let mut held: Vec<TcpStream> = (0..4).map(|_| connect(running.address)).collect();
    // Let every one of them register before the newcomers arrive.
    for stream in &mut held[1..] {
        assert!(answered(stream));
    }
    for _ in 0..3 {
        let mut newcomer = connect(running.address);
        assert!(answered(&mut newcomer), "a newcomer at the cap is served");
        held.push(newcomer);
    }
    assert!(closed_by_server(&mut held[0]), "the silent one made room");
    assert_eq!(counter(&running, "connections.evicted"), 3);
    assert_eq!(counter(&running, "connections.refused"), 0);
    // The latest connections are still served.
    let last = held.len() - 1;
    assert!(answered(&mut held[last]));
}

#[test]
fn a_request_dripping_in_byte_by_byte_is_answered() {
    let running = serve(Limits::default());
    let mut stream = connect(running.address);
    stream.set_nodelay(true).unwrap();
    // Past a few dozen bytes the poller puts off walking it at every byte; it is still found
    // whole.
    let mut dripped = get_status(1);
    dripped.extend_from_slice(&get_status(2));
    for byte in &dripped {
        stream.write_all(std::slice::from_ref(byte)).unwrap();
        thread::sleep(Duration::from_millis(2));
    }
    let mut replies = [0u8; 2 * GET_STATUS_REPLY_BYTES];
    stream.read_exact(&mut replies).unwrap();
    assert_eq!(replies[..4], [0x80, 0x01, 0x00, 0x02]);
    assert_eq!(
        replies[GET_STATUS_REPLY_BYTES..GET_STATUS_REPLY_BYTES + 4],
        [0x80, 0x01, 0x00, 0x02]
    );
}

#[test]
fn a_client_that_does_not_read_its_replies_does_not_hold_the_workers() {
    let running = serve(Limits {
        worker_threads: 1,
        ..Limits::default()
    });
    let mut greedy = connect(running.address);
    let value = vec![b'v'; 60 * 1024];
    for index in 0..40 {
        let key = format!("key{index}");
        greedy
            .write_all(&call("setOption", index, &[key.as_bytes(), &value]))
            .unwrap();
        let mut reply = [0u8; 4 + 4 + 9 + 4 + 1];
        greedy.read_exact(&mut reply).unwrap();
    }
    // Twenty replies of 2.4 MB each, asked for and never read: far more than socket buffers.
    let asks: Vec<u8> = (0..20)
        .flat_map(|index| call("getOptions", index, &[]))
        .collect();
    greedy.write_all(&asks).unwrap();
    thread::sleep(Duration::from_millis(500));
    let mut other = connect(running.address);
    assert!(answered(&mut other), "the one worker is free for others");
    drop(greedy);
}
