use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Mutex;

use thrift::protocol::{
    TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol, TFieldIdentifier,
    TMessageIdentifier, TOutputProtocol, TStructIdentifier, TType,
};

use super::*;

/// What the fake upstream saw: each call's name and, for `set_ugi`, its user.
type Seen = Arc<Mutex<Vec<String>>>;

/// A fake upstream on a port of its own: answers `set_ugi`, `get_current_notificationEventId`
/// (42), `drop_database` with a `NoSuchObjectException` (field 1) and any other call with a
/// void success; framed or not. Serves connections one after the other.
fn fake_upstream(framed: bool) -> (Arc<Upstream>, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let seen = Seen::default();
    let recorded = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            while let Some(message) = read_call(&mut stream, framed) {
                let answer = answer(&message, &recorded);
                if framed {
                    let length = i32::try_from(answer.len()).unwrap();
                    stream.write_all(&length.to_be_bytes()).unwrap();
                }
                stream.write_all(&answer).unwrap();
            }
        }
    });
    let upstream = Upstream::new(
        format!("thrift://{address}"),
        address.to_string(),
        framed,
        1 << 20,
    );
    (Arc::new(upstream), seen)
}

fn read_call(stream: &mut std::net::TcpStream, framed: bool) -> Option<Vec<u8>> {
    if framed {
        let mut length = [0u8; 4];
        stream.read_exact(&mut length).ok()?;
        let mut message = vec![0; usize::try_from(i32::from_be_bytes(length)).ok()?];
        stream.read_exact(&mut message).ok()?;
        return Some(message);
    }
    let mut message = Vec::new();
    {
        let recorded = upstream::tests_support::recording(stream, &mut message);
        let mut input = TBinaryInputProtocol::new(recorded, false);
        input.read_message_begin().ok()?;
        input.skip(TType::Struct).ok()?;
    }
    Some(message)
}

fn answer(message: &[u8], seen: &Seen) -> Vec<u8> {
    let mut input = TBinaryInputProtocol::new(message, false);
    let header = input.read_message_begin().unwrap();
    let mut entry = header.name.clone();
    if header.name == "set_ugi" {
        input.read_struct_begin().unwrap();
        input.read_field_begin().unwrap();
        entry = format!("set_ugi {}", input.read_string().unwrap());
    }
    seen.lock().unwrap().push(entry);
    let mut reply = Vec::new();
    {
        let mut output = TBinaryOutputProtocol::new(&mut reply, true);
        let ident =
            TMessageIdentifier::new(&header.name, TMessageType::Reply, header.sequence_number);
        output.write_message_begin(&ident).unwrap();
        output
            .write_struct_begin(&TStructIdentifier::new("result"))
            .unwrap();
        let field = |output: &mut TBinaryOutputProtocol<&mut Vec<u8>>, kind: TType, id: i16| {
            output
                .write_field_begin(&TFieldIdentifier::new("f", kind, id))
                .unwrap();
        };
        match header.name.as_str() {
            "set_ugi" => {
                field(&mut output, TType::List, 0);
                output
                    .write_list_begin(&thrift::protocol::TListIdentifier::new(TType::String, 0))
                    .unwrap();
                output.write_list_end().unwrap();
                output.write_field_end().unwrap();
            }
            "get_current_notificationEventId" => {
                field(&mut output, TType::Struct, 0);
                CurrentEvent(42).write(&mut output);
                output.write_field_end().unwrap();
            }
            "drop_database" => {
                field(&mut output, TType::Struct, 1);
                output
                    .write_struct_begin(&TStructIdentifier::new("e"))
                    .unwrap();
                field(&mut output, TType::String, 1);
                output.write_string("no database d").unwrap();
                output.write_field_end().unwrap();
                output.write_field_stop().unwrap();
                output.write_struct_end().unwrap();
                output.write_field_end().unwrap();
            }
            _ => {}
        }
        output.write_field_stop().unwrap();
        output.write_struct_end().unwrap();
        output.write_message_end().unwrap();
    }
    reply
}

struct CurrentEvent(i64);

impl CurrentEvent {
    fn write(&self, output: &mut dyn TOutputProtocol) {
        output
            .write_struct_begin(&TStructIdentifier::new("c"))
            .unwrap();
        output
            .write_field_begin(&TFieldIdentifier::new("eventId", TType::I64, 1))
            .unwrap();
        output.write_i64(self.0).unwrap();
        output.write_field_end().unwrap();
        output.write_field_stop().unwrap();
        output.write_struct_end().unwrap();
    }
}

/// A call of `method` with no arguments, in `protocol`.
fn call_of(method: &str, protocol: Protocol) -> Vec<u8> {
    let mut bytes = Vec::new();
    {
        let mut output: Box<dyn TOutputProtocol + '_> = match protocol {
            Protocol::Binary => Box::new(TBinaryOutputProtocol::new(&mut bytes, true)),
            Protocol::Compact => Box::new(TCompactOutputProtocol::new(&mut bytes)),
        };
        let ident = TMessageIdentifier::new(method, TMessageType::Call, 9);
        output.write_message_begin(&ident).unwrap();
        output
            .write_struct_begin(&TStructIdentifier::new("a"))
            .unwrap();
        output.write_field_stop().unwrap();
        output.write_struct_end().unwrap();
        output.write_message_end().unwrap();
    }
    bytes
}

/// A copy that reaches `position` when hurried, if `applies`.
struct FakeCopy {
    position: AtomicI64,
    applies: bool,
    hurried: AtomicBool,
}

impl CatchUp for FakeCopy {
    fn hurry(&self) {
        self.hurried.store(true, Ordering::Relaxed);
        if self.applies {
            self.position.store(42, Ordering::Relaxed);
        }
    }

    fn wait_for(&self, event_id: i64, _within: Duration) -> bool {
        self.position.load(Ordering::Relaxed) >= event_id
    }
}

fn copy(applies: bool) -> FakeCopy {
    FakeCopy {
        position: AtomicI64::new(40),
        applies,
        hurried: AtomicBool::new(false),
    }
}

#[test]
fn a_call_goes_upstream_as_the_user_and_its_reply_comes_back_unchanged() {
    for framed in [false, true] {
        let (upstream, seen) = fake_upstream(framed);
        let mut forwarder = Forwarder::new(Arc::clone(&upstream));
        assert_eq!(upstream.open_connections(), 0);
        let message = call_of("create_database", Protocol::Binary);
        let call = Call {
            message: &message,
            protocol: Protocol::Binary,
            one_way: false,
            user: Some("alice"),
        };
        let copy = copy(true);
        let mut reply = b"kept".to_vec();
        let forwarded = forwarder
            .forward(&call, &mut reply, Some((&copy, Duration::from_secs(1))))
            .unwrap();
        assert!(!forwarded.failed);
        assert_eq!(forwarded.waited, Waited::CaughtUp);
        assert!(copy.hurried.load(Ordering::Relaxed));
        let mut input = TBinaryInputProtocol::new(&reply[4..], true);
        let header = input.read_message_begin().unwrap();
        assert_eq!(
            (header.name.as_str(), header.sequence_number),
            ("create_database", 9)
        );
        assert_eq!(upstream.open_connections(), 1);
        // The user is announced once; a refusal comes back as the upstream wrote it, unwaited.
        let message = call_of("drop_database", Protocol::Binary);
        let call = Call {
            message: &message,
            ..call
        };
        reply.clear();
        let forwarded = forwarder
            .forward(&call, &mut reply, Some((&copy, Duration::from_secs(1))))
            .unwrap();
        assert!(forwarded.failed);
        assert_eq!(forwarded.waited, Waited::No);
        assert!(String::from_utf8_lossy(&reply).contains("no database d"));
        assert_eq!(
            *seen.lock().unwrap(),
            [
                "set_ugi alice",
                "create_database",
                "get_current_notificationEventId",
                "drop_database"
            ]
        );
        forwarder.close();
        assert_eq!(upstream.open_connections(), 0);
    }
}

#[test]
fn a_compact_client_is_answered_in_compact_and_an_unapplied_write_expires() {
    let (upstream, seen) = fake_upstream(false);
    let mut forwarder = Forwarder::new(upstream);
    let message = call_of("create_database", Protocol::Compact);
    let call = Call {
        message: &message,
        protocol: Protocol::Compact,
        one_way: false,
        user: None,
    };
    let stuck = copy(false);
    let mut reply = Vec::new();
    let forwarded = forwarder
        .forward(&call, &mut reply, Some((&stuck, Duration::from_millis(1))))
        .unwrap();
    assert_eq!(forwarded.waited, Waited::Expired { event_id: 42 });
    let mut input = TCompactInputProtocol::new(&reply[..]);
    let header = input.read_message_begin().unwrap();
    assert_eq!(header.name, "create_database");
    assert_eq!(header.message_type, TMessageType::Reply);
    // No user, no set_ugi.
    assert_eq!(seen.lock().unwrap()[0], "create_database");
}

#[test]
fn an_unreachable_upstream_fails_the_call_and_leaves_the_reply_alone() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let upstream = Arc::new(Upstream::new(
        "thrift://gone".into(),
        format!("127.0.0.1:{port}"),
        false,
        1 << 20,
    ));
    let mut forwarder = Forwarder::new(Arc::clone(&upstream));
    let message = call_of("create_database", Protocol::Binary);
    let call = Call {
        message: &message,
        protocol: Protocol::Binary,
        one_way: false,
        user: Some("alice"),
    };
    let mut reply = b"kept".to_vec();
    assert!(forwarder.forward(&call, &mut reply, None).is_err());
    assert_eq!(reply, b"kept");
    assert_eq!(upstream.open_connections(), 0);
}
