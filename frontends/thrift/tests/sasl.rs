//! The SASL transport over loopback, with a mechanism of the test's own: the negotiation's
//! frames, a security layer applied to every data frame, the caller owning what it creates,
//! refusals (unknown mechanism, wrong password, plain connections when authentication is
//! required) and the handshake deadline. Every wait is bounded.

mod running;
use running::{connect, Running, WAIT};

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::{Durability, Store, StoreOptions};
use hivestore_idl::hive_metastore::{
    Database, TThriftHiveMetastoreSyncClient, ThriftHiveMetastoreSyncClient,
};
use hivestore_thrift::auth::sasl::{NEGOTIATION_PAYLOAD_BYTES_MAX, NEGOTIATION_STEPS_MAX};
use hivestore_thrift::auth::{
    AuthMethod, AuthPolicy, Authentication, Caller, SaslMechanism, SaslServers, SaslStep,
};
use hivestore_thrift::limits::Limits;
use hivestore_thrift::service::ServerState;
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};

/// The test mechanism's security layer: every byte flipped, behind a marker byte.
const LAYER_MARK: u8 = 0xA5;

/// A two-step mechanism: the user name, then its password `secret`; its layer flips bits.
struct Flip {
    user: Option<String>,
}

impl SaslMechanism for Flip {
    fn name(&self) -> &'static str {
        "X-FLIP"
    }

    fn step(&mut self, response: &[u8]) -> Result<SaslStep, String> {
        match self.user.take() {
            None => {
                self.user = Some(String::from_utf8_lossy(response).into_owned());
                Ok(SaslStep::Challenge(b"password?".to_vec()))
            }
            Some(user) if response == b"secret" => Ok(SaslStep::Complete {
                caller: Caller {
                    principal: format!("{user}@TEST"),
                    user,
                    method: AuthMethod::Password,
                },
                last: b"welcome".to_vec(),
            }),
            Some(_) => Err("wrong password".to_string()),
        }
    }

    fn wrap(&mut self, payload: Vec<u8>) -> Result<Vec<u8>, String> {
        Ok(flip(&payload))
    }

    fn unwrap(&mut self, payload: Vec<u8>) -> Result<Vec<u8>, String> {
        match payload.split_first() {
            Some((&LAYER_MARK, rest)) => Ok(rest.iter().map(|byte| !byte).collect()),
            _ => Err("not wrapped by the layer".to_string()),
        }
    }
}

/// A mechanism that challenges for ever.
struct Endless;

impl SaslMechanism for Endless {
    fn name(&self) -> &'static str {
        "X-ENDLESS"
    }

    fn step(&mut self, _response: &[u8]) -> Result<SaslStep, String> {
        Ok(SaslStep::Challenge(b"more?".to_vec()))
    }
}

fn flip(payload: &[u8]) -> Vec<u8> {
    let mut wrapped = vec![LAYER_MARK];
    wrapped.extend(payload.iter().map(|byte| !byte));
    wrapped
}

fn serve(authentication: Authentication, limits: Limits) -> Running {
    let mut options = StoreOptions::new("s3a://bucket/warehouse".to_string());
    options.durability = Durability::Memory;
    let store = Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap();
    let mut sasl = SaslServers::default();
    if authentication.required() {
        sasl.offer("X-FLIP", |_| Ok(Box::new(Flip { user: None })));
        sasl.offer("X-ENDLESS", |_| Ok(Box::new(Endless)));
    }
    let policy = AuthPolicy {
        authentication,
        sasl,
        password_check: None,
    };
    running::serve(Arc::new(ServerState::new(store).with_auth(policy)), limits)
}

fn send_frame(stream: &mut TcpStream, status: u8, payload: &[u8]) {
    let mut frame = vec![status];
    frame.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    frame.extend_from_slice(payload);
    stream.write_all(&frame).unwrap();
}

fn read_frame(stream: &mut TcpStream) -> io::Result<(u8, Vec<u8>)> {
    let mut header = [0u8; 5];
    stream.read_exact(&mut header)?;
    let length = u32::from_be_bytes([header[1], header[2], header[3], header[4]]) as usize;
    let mut payload = vec![0u8; length];
    stream.read_exact(&mut payload)?;
    Ok((header[0], payload))
}

/// Negotiates as `user` with `password`; the server's last frame.
fn negotiate(stream: &mut TcpStream, user: &str, password: &str) -> (u8, Vec<u8>) {
    send_frame(stream, 1, b"X-FLIP");
    send_frame(stream, 2, user.as_bytes());
    let (status, challenge) = read_frame(stream).unwrap();
    assert_eq!((status, challenge.as_slice()), (2, &b"password?"[..]));
    send_frame(stream, 2, password.as_bytes());
    read_frame(stream).unwrap()
}

/// The client side of the data frames after the negotiation, through the test's layer.
struct Frames {
    stream: TcpStream,
    pending: Vec<u8>,
    received: io::Cursor<Vec<u8>>,
}

impl Read for Frames {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        if self.received.position() as usize == self.received.get_ref().len() {
            let mut length = [0u8; 4];
            self.stream.read_exact(&mut length)?;
            let mut frame = vec![0u8; u32::from_be_bytes(length) as usize];
            self.stream.read_exact(&mut frame)?;
            assert_eq!(frame.first(), Some(&LAYER_MARK), "replies are wrapped");
            self.received = io::Cursor::new(frame[1..].iter().map(|byte| !byte).collect());
        }
        self.received.read(buffer)
    }
}

impl Write for Frames {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let wrapped = flip(&std::mem::take(&mut self.pending));
        self.stream
            .write_all(&(wrapped.len() as u32).to_be_bytes())?;
        self.stream.write_all(&wrapped)
    }
}

#[test]
fn an_authenticated_caller_is_served_through_the_layer_and_owns_what_it_creates() {
    let running = serve(Authentication::Custom, Limits::default());
    let mut stream = connect(running.address);
    let (status, last) = negotiate(&mut stream, "alice", "secret");
    assert_eq!((status, last.as_slice()), (5, &b"welcome"[..]));
    let frames = Frames {
        stream: stream.try_clone().unwrap(),
        pending: Vec::new(),
        received: io::Cursor::new(Vec::new()),
    };
    let reader = Frames {
        stream,
        pending: Vec::new(),
        received: io::Cursor::new(Vec::new()),
    };
    let mut client = ThriftHiveMetastoreSyncClient::new(
        TBinaryInputProtocol::new(reader, true),
        TBinaryOutputProtocol::new(frames, true),
    );
    // set_ugi cannot change who an authenticated connection is: only a proxy user may act
    // as another user.
    let refused = client.set_ugi("mallory".into(), vec![]).unwrap_err();
    let thrift::Error::User(refused) = refused else {
        panic!("set_ugi was not refused with a declared exception: {refused}");
    };
    let refused = refused
        .downcast_ref::<hivestore_idl::hive_metastore::MetaException>()
        .expect("a MetaException");
    let message = refused.message.as_deref().unwrap_or_default();
    assert!(
        message.contains("is not allowed to impersonate mallory"),
        "{message}"
    );
    let database = Database {
        name: Some("sales".into()),
        location_uri: Some("s3a://bucket/sales".into()),
        ..Database::default()
    };
    // The generated Default fills optional fields; the owner must be absent.
    let database = Database {
        owner_name: None,
        owner_type: None,
        ..database
    };
    client.create_database(database).unwrap();
    let created = client.get_database("sales".into()).unwrap();
    assert_eq!(created.owner_name.as_deref(), Some("alice"));
}

#[test]
fn a_wrong_password_is_told_in_a_bad_frame_and_closes_only_that_connection() {
    let running = serve(Authentication::Custom, Limits::default());
    let mut stream = connect(running.address);
    let (status, why) = negotiate(&mut stream, "alice", "guess");
    assert_eq!(status, 3, "BAD");
    let why = String::from_utf8_lossy(&why);
    assert_eq!(
        why, "X-FLIP: authentication failed",
        "the reason stays in the log"
    );
    let mut byte = [0u8; 1];
    assert!(matches!(stream.read(&mut byte), Ok(0) | Err(_)), "closed");
    let counters = running.state.counters.snapshot();
    assert_eq!(counters.get("connections.authentication_failed"), Some(&1));
    let mut again = connect(running.address);
    assert_eq!(negotiate(&mut again, "bob", "secret").0, 5);
}

#[test]
fn an_unknown_mechanism_is_refused_naming_those_offered() {
    let running = serve(Authentication::Custom, Limits::default());
    let mut stream = connect(running.address);
    send_frame(&mut stream, 1, b"GSSAPI");
    send_frame(&mut stream, 2, b"");
    let (status, why) = read_frame(&mut stream).unwrap();
    let why = String::from_utf8_lossy(&why);
    assert_eq!(status, 3, "{why}");
    assert!(
        why.contains("\"GSSAPI\" is not offered; offered: X-FLIP"),
        "{why}"
    );
}

#[test]
fn sasl_to_a_nosasl_server_is_refused_saying_so() {
    let running = serve(Authentication::NoSasl, Limits::default());
    let mut stream = connect(running.address);
    send_frame(&mut stream, 1, b"PLAIN");
    send_frame(&mut stream, 2, b"\0alice\0secret");
    let (status, why) = read_frame(&mut stream).unwrap();
    let why = String::from_utf8_lossy(&why);
    assert_eq!(status, 3, "{why}");
    assert!(why.contains("metastore.authentication=NOSASL"), "{why}");
}

#[test]
fn a_plain_connection_is_refused_when_authentication_is_required() {
    let running = serve(Authentication::Custom, Limits::default());
    let mut stream = connect(running.address);
    // A strict binary getStatus call.
    let mut call = vec![0x80, 0x01, 0x00, 0x01, 0, 0, 0, 9];
    call.extend_from_slice(b"getStatus");
    call.extend_from_slice(&[0, 0, 0, 1, 0]);
    stream.write_all(&call).unwrap();
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    assert!(reply.is_empty(), "no answer, only the close: {reply:02x?}");
}

#[test]
fn a_stalled_negotiation_is_closed_at_the_handshake_deadline() {
    let limits = Limits {
        handshake_timeout: Duration::from_secs(1),
        ..Limits::default()
    };
    let running = serve(Authentication::Custom, limits);
    let mut stream = connect(running.address);
    send_frame(&mut stream, 1, b"X-FLIP");
    let started = Instant::now();
    let mut byte = [0u8; 1];
    let read = stream.read(&mut byte);
    assert!(matches!(read, Ok(0) | Err(_)), "closed: {read:?}");
    assert!(
        started.elapsed() < WAIT,
        "closed by the deadline, not the read timeout"
    );
    let mut again = connect(running.address);
    assert_eq!(negotiate(&mut again, "bob", "secret").0, 5);
}

#[test]
fn a_negotiation_frame_over_its_limit_closes_the_connection_before_its_bytes_arrive() {
    let running = serve(Authentication::Custom, Limits::default());
    let mut stream = connect(running.address);
    send_frame(&mut stream, 1, b"X-FLIP");
    let mut header = vec![2];
    header.extend_from_slice(&(NEGOTIATION_PAYLOAD_BYTES_MAX as u32 + 1).to_be_bytes());
    stream.write_all(&header).unwrap();
    let mut byte = [0u8; 1];
    assert!(matches!(stream.read(&mut byte), Ok(0) | Err(_)), "closed");
    let counters = running.state.counters.snapshot();
    assert_eq!(counters.get("connections.authentication_failed"), Some(&1));
}

#[test]
fn a_negotiation_without_end_is_refused_after_its_steps() {
    let running = serve(Authentication::Custom, Limits::default());
    let mut stream = connect(running.address);
    send_frame(&mut stream, 1, b"X-ENDLESS");
    for _ in 0..NEGOTIATION_STEPS_MAX {
        send_frame(&mut stream, 2, b"again");
        let (status, challenge) = read_frame(&mut stream).unwrap();
        assert_eq!((status, challenge.as_slice()), (2, &b"more?"[..]));
    }
    // The last challenge is followed at once by the refusal.
    let (status, why) = read_frame(&mut stream).unwrap();
    let why = String::from_utf8_lossy(&why);
    assert_eq!(status, 3, "{why}");
    assert!(
        why.contains(&format!("no end after {NEGOTIATION_STEPS_MAX} steps")),
        "{why}"
    );
}
