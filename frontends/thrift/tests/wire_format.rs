//! The protocol detector and the whole-message reader against messages written by the `thrift`
//! crate's own protocols, in every protocol, transport and header style.

use std::io::Cursor;

use hivestore_thrift::detect::{
    detect, Detection, Handshake, Protocol, Transport, WireFormat, DETECT_BYTES,
};
use hivestore_thrift::limits::Limits;
use hivestore_thrift::message::{
    read_one_message, MessageReader, ReadError, IDLE_BUFFER_BYTES_MAX, READ_BYTES_MIN,
};
use proptest::prelude::*;
use thrift::protocol::{
    TBinaryOutputProtocol, TCompactOutputProtocol, TFieldIdentifier, TListIdentifier,
    TMapIdentifier, TMessageIdentifier, TMessageType, TOutputProtocol, TStructIdentifier, TType,
};

/// A value to put in a call's argument struct.
#[derive(Clone, Debug)]
enum Value {
    Bool(bool),
    I32(i32),
    I64(i64),
    Double(f64),
    Text(String),
    List(Vec<i64>),
    Map(Vec<(String, String)>),
    Struct(Vec<(i16, Value)>),
}

fn value_strategy() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::I32),
        any::<i64>().prop_map(Value::I64),
        any::<f64>().prop_map(Value::Double),
        ".{0,40}".prop_map(Value::Text),
        prop::collection::vec(any::<i64>(), 0..40).prop_map(Value::List),
        prop::collection::vec((".{0,8}", ".{0,8}"), 0..20).prop_map(Value::Map),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop::collection::vec((1i16..200, inner), 0..6).prop_map(Value::Struct)
    })
}

fn write_value(out: &mut dyn TOutputProtocol, value: &Value) -> thrift::Result<()> {
    match value {
        Value::Bool(b) => out.write_bool(*b),
        Value::I32(v) => out.write_i32(*v),
        Value::I64(v) => out.write_i64(*v),
        Value::Double(v) => out.write_double(*v),
        Value::Text(s) => out.write_string(s),
        Value::List(items) => {
            out.write_list_begin(&TListIdentifier::new(TType::I64, items.len() as i32))?;
            for item in items {
                out.write_i64(*item)?;
            }
            out.write_list_end()
        }
        Value::Map(entries) => {
            let ident = TMapIdentifier::new(TType::String, TType::String, entries.len() as i32);
            out.write_map_begin(&ident)?;
            for (key, item) in entries {
                out.write_string(key)?;
                out.write_string(item)?;
            }
            out.write_map_end()
        }
        Value::Struct(fields) => write_struct(out, fields),
    }
}

fn type_of(value: &Value) -> TType {
    match value {
        Value::Bool(_) => TType::Bool,
        Value::I32(_) => TType::I32,
        Value::I64(_) => TType::I64,
        Value::Double(_) => TType::Double,
        Value::Text(_) => TType::String,
        Value::List(_) => TType::List,
        Value::Map(_) => TType::Map,
        Value::Struct(_) => TType::Struct,
    }
}

fn write_struct(out: &mut dyn TOutputProtocol, fields: &[(i16, Value)]) -> thrift::Result<()> {
    out.write_struct_begin(&TStructIdentifier::new("args"))?;
    let mut seen = std::collections::HashSet::new();
    for (id, value) in fields {
        if !seen.insert(*id) {
            continue;
        }
        out.write_field_begin(&TFieldIdentifier::new("f", type_of(value), *id))?;
        write_value(out, value)?;
        out.write_field_end()?;
    }
    out.write_field_stop()?;
    out.write_struct_end()
}

/// A whole call message; `strict` only matters for the binary protocol.
fn message(protocol: Protocol, strict: bool, name: &str, fields: &[(i16, Value)]) -> Vec<u8> {
    let mut bytes = Vec::new();
    {
        let mut out: Box<dyn TOutputProtocol + '_> = match protocol {
            Protocol::Binary => Box::new(TBinaryOutputProtocol::new(&mut bytes, strict)),
            Protocol::Compact => Box::new(TCompactOutputProtocol::new(&mut bytes)),
        };
        out.write_message_begin(&TMessageIdentifier::new(name, TMessageType::Call, 7))
            .unwrap();
        write_struct(&mut *out, fields).unwrap();
        out.write_message_end().unwrap();
        out.flush().unwrap();
    }
    bytes
}

fn framed(message: &[u8]) -> Vec<u8> {
    let mut bytes = (message.len() as i32).to_be_bytes().to_vec();
    bytes.extend_from_slice(message);
    bytes
}

fn detected(stream: &[u8]) -> Detection {
    // Detection must give the same answer however the first bytes arrive.
    for cut in 1..DETECT_BYTES {
        match detect(&stream[..cut.min(stream.len())]) {
            Detection::NeedMore => {}
            verdict => return verdict,
        }
    }
    detect(&stream[..DETECT_BYTES.min(stream.len())])
}

fn round_trip(stream: &[u8], format: WireFormat, expected: &[u8]) {
    let mut reader = MessageReader::new(Cursor::new(stream.to_vec()));
    let message = reader.read_message(format, &Limits::default()).unwrap();
    assert_eq!(message, expected, "the reader returns exactly one message");
    let after = reader
        .read_message(format, &Limits::default())
        .map(<[u8]>::to_vec);
    assert!(matches!(after, Err(ReadError::Closed)), "{after:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_format_is_detected_and_read_whole(
        name in "[a-z_][a-zA-Z_]{0,40}",
        fields in prop::collection::vec((1i16..300, value_strategy()), 0..8),
        strict in any::<bool>(),
    ) {
        let cases = [
            (Protocol::Binary, Transport::Buffered),
            (Protocol::Binary, Transport::Framed),
            (Protocol::Compact, Transport::Buffered),
            (Protocol::Compact, Transport::Framed),
        ];
        for (protocol, transport) in cases {
            let body = message(protocol, strict, &name, &fields);
            let stream = match transport {
                Transport::Buffered => body.clone(),
                Transport::Framed => framed(&body),
            };
            let format = WireFormat { protocol, transport };
            prop_assert_eq!(detected(&stream), Detection::Format(format));
            round_trip(&stream, format, &body);
        }
    }

    #[test]
    fn a_truncated_message_is_never_taken_for_a_whole_one(
        fields in prop::collection::vec((1i16..300, value_strategy()), 1..6),
        compact in any::<bool>(),
        cut_fraction in 0.0f64..1.0,
    ) {
        let protocol = if compact { Protocol::Compact } else { Protocol::Binary };
        let body = message(protocol, true, "get_table", &fields);
        let cut = ((body.len() as f64) * cut_fraction) as usize;
        let cut = cut.clamp(1, body.len() - 1);
        let format = WireFormat { protocol, transport: Transport::Buffered };
        let mut reader = Cursor::new(body[..cut].to_vec());
        let result = read_one_message(&mut reader, format, &Limits::default(), &mut Vec::new());
        prop_assert!(matches!(result, Err(ReadError::Truncated)), "{:?}", result);
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_reader(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let limits = Limits { message_bytes_max: 1024, ..Limits::default() };
        for protocol in [Protocol::Binary, Protocol::Compact] {
            for transport in [Transport::Buffered, Transport::Framed] {
                let mut reader = Cursor::new(bytes.clone());
                let mut buffer = Vec::new();
                let _ = read_one_message(&mut reader, WireFormat { protocol, transport }, &limits, &mut buffer);
                prop_assert!(buffer.len() <= 1024);
            }
        }
        let _ = detect(&bytes);
    }
}

#[test]
fn non_strict_binary_is_detected_in_both_transports() {
    let body = message(Protocol::Binary, false, "getName", &[]);
    let buffered = WireFormat {
        protocol: Protocol::Binary,
        transport: Transport::Buffered,
    };
    let framed_format = WireFormat {
        protocol: Protocol::Binary,
        transport: Transport::Framed,
    };
    assert_eq!(detected(&body), Detection::Format(buffered));
    assert_eq!(detected(&framed(&body)), Detection::Format(framed_format));
}

#[test]
fn an_http_request_line_is_a_handshake_whatever_its_method() {
    for line in [
        &b"POST /metastore HTTP/1.1\r\n"[..],
        b"GET / HTTP/1.1\r\n",
        b"PUT /x HTTP/1.0",
    ] {
        assert_eq!(detected(line), Detection::Handshake(Handshake::Http));
    }
}

#[test]
fn foreign_protocols_are_refused_with_a_reason() {
    let cases: [(&[u8], &str); 1] = [(&[0x7f, b'E', b'L', b'F', 0x02, 0x01], "unrecognised")];
    for (bytes, expected) in cases {
        match detect(bytes) {
            Detection::Refused(reason) => assert!(reason.contains(expected), "{reason}"),
            other => panic!("{bytes:02x?} detected as {other:?}"),
        }
    }
}

#[test]
fn a_sasl_start_frame_is_a_handshake_and_a_16_mib_frame_is_not() {
    let start = [0x01, 0x00, 0x00, 0x00, 0x06, b'G'];
    assert_eq!(detected(&start), Detection::Handshake(Handshake::Sasl));
    let framed_16_mib = [0x01, 0x00, 0x00, 0x00, 0x80, 0x01];
    assert!(matches!(detected(&framed_16_mib), Detection::Format(_)));
}

#[test]
fn a_tls_client_hello_is_a_handshake_whatever_its_version() {
    // Record versions 3.0 (SSL 3.0) to 3.4; TLS 1.2 and 1.3 clients send 3.1 in the first record.
    for minor in 0..=4u8 {
        let hello = [0x16, 0x03, minor, 0x02, 0x00, 0x01];
        assert_eq!(detected(&hello), Detection::Handshake(Handshake::Tls));
    }
    // Not a TLS record version: a (huge) frame, which the message limit refuses later.
    assert_ne!(
        detected(&[0x16, 0x03, 0x09, 0x00, 0x80, 0x01]),
        Detection::Handshake(Handshake::Tls)
    );
    // A ClientHello arriving a byte at a time is told only once its header is there.
    assert_eq!(detect(&[0x16, 0x03]), Detection::NeedMore);
}

#[test]
fn lengths_beyond_the_limits_are_refused_before_reading_them() {
    let limits = Limits {
        message_bytes_max: 1000,
        string_bytes_max: 100,
        ..Limits::default()
    };
    let binary = WireFormat {
        protocol: Protocol::Binary,
        transport: Transport::Buffered,
    };
    let framed_binary = WireFormat {
        protocol: Protocol::Binary,
        transport: Transport::Framed,
    };
    // A frame that claims more than the limit.
    let mut reader = Cursor::new(vec![0x7f, 0xff, 0xff, 0xff, 0x80, 0x01]);
    let result = read_one_message(&mut reader, framed_binary, &limits, &mut Vec::new());
    assert!(matches!(result, Err(ReadError::Invalid(_))), "{result:?}");
    // A negative frame length.
    let mut reader = Cursor::new(vec![0xff, 0xff, 0xff, 0xf0, 0x80, 0x01]);
    let result = read_one_message(&mut reader, framed_binary, &limits, &mut Vec::new());
    assert!(matches!(result, Err(ReadError::Invalid(_))), "{result:?}");
    // A string argument longer than the string limit.
    let long = "x".repeat(101);
    let body = message(
        Protocol::Binary,
        true,
        "get_database",
        &[(1, Value::Text(long))],
    );
    let result = read_one_message(&mut Cursor::new(body), binary, &limits, &mut Vec::new());
    assert!(
        matches!(result, Err(ReadError::Invalid(ref reason)) if reason.contains("string")),
        "{result:?}"
    );
    // A list that claims two billion elements.
    let mut body = message(Protocol::Binary, true, "get_tables", &[]);
    body.pop(); // drop the struct's stop byte
    body.extend_from_slice(&[15, 0, 1, 11, 0x7f, 0xff, 0xff, 0xff]);
    let result = read_one_message(&mut Cursor::new(body), binary, &limits, &mut Vec::new());
    assert!(
        matches!(result, Err(ReadError::Invalid(ref reason)) if reason.contains("list")),
        "{result:?}"
    );
}

/// A source that hands out its bytes in fragments ending at the given cuts, as a socket may.
struct Fragments {
    bytes: Vec<u8>,
    cuts: Vec<usize>,
    at: usize,
}

impl std::io::Read for Fragments {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let cut = self
            .cuts
            .iter()
            .copied()
            .find(|cut| *cut > self.at)
            .unwrap_or(self.bytes.len());
        let count = (cut - self.at).min(out.len());
        out[..count].copy_from_slice(&self.bytes[self.at..self.at + count]);
        self.at += count;
        Ok(count)
    }
}

const FORMATS: [(Protocol, Transport); 4] = [
    (Protocol::Binary, Transport::Buffered),
    (Protocol::Binary, Transport::Framed),
    (Protocol::Compact, Transport::Buffered),
    (Protocol::Compact, Transport::Framed),
];

/// The stream of `bodies` in one format, and the bytes each read must return.
fn stream_of(bodies: &[Vec<u8>], transport: Transport) -> Vec<u8> {
    bodies
        .iter()
        .flat_map(|body| match transport {
            Transport::Buffered => body.clone(),
            Transport::Framed => framed(body),
        })
        .collect()
}

/// Reads every message of `source` and checks each against `bodies`, then the clean end.
fn read_all(
    source: Fragments,
    format: WireFormat,
    bodies: &[Vec<u8>],
) -> Result<(), TestCaseError> {
    let mut reader = MessageReader::new(source);
    for (index, body) in bodies.iter().enumerate() {
        let message = reader.read_message(format, &Limits::default());
        prop_assert!(
            message.is_ok(),
            "message {} in {:?}: {:?}",
            index,
            format,
            message.err()
        );
        prop_assert_eq!(
            message.unwrap(),
            &body[..],
            "message {} in {:?}",
            index,
            format
        );
    }
    let after = reader
        .read_message(format, &Limits::default())
        .map(<[u8]>::to_vec);
    prop_assert!(matches!(after, Err(ReadError::Closed)), "{:?}", after);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Goal: bytes read past the end of a message belong to the next one and are never lost,
    /// however the stream is cut into reads. Method: messages back to back (as pipelining
    /// clients send them), handed out in random fragments, read one by one.
    #[test]
    fn messages_back_to_back_are_read_one_by_one_whatever_the_fragments(
        calls in prop::collection::vec(
            ("[a-z_][a-z_]{0,20}", prop::collection::vec((1i16..300, value_strategy()), 0..5)),
            1..6,
        ),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        for (protocol, transport) in FORMATS {
            let bodies: Vec<Vec<u8>> = calls
                .iter()
                .map(|(name, fields)| message(protocol, true, name, fields))
                .collect();
            let bytes = stream_of(&bodies, transport);
            let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut.index(bytes.len())).collect();
            cuts.sort_unstable();
            let source = Fragments { bytes, cuts, at: 0 };
            read_all(source, WireFormat { protocol, transport }, &bodies)?;
        }
    }

    /// Goal: a message split between two reads at any byte is read whole, and the message
    /// after it too. Method: every cut position of a two-message stream, in every format.
    #[test]
    fn a_message_split_at_every_byte_is_read_whole(
        fields in prop::collection::vec((1i16..300, value_strategy()), 0..4),
    ) {
        for (protocol, transport) in FORMATS {
            let bodies = vec![
                message(protocol, true, "add_partitions", &fields),
                message(protocol, true, "get_table", &[(1, Value::Text("db".into()))]),
            ];
            let bytes = stream_of(&bodies, transport);
            for cut in 1..bytes.len() {
                let source = Fragments { bytes: bytes.clone(), cuts: vec![cut], at: 0 };
                read_all(source, WireFormat { protocol, transport }, &bodies)?;
            }
        }
    }

    /// Goal: a stream that ends inside a message is `Truncated`, also when a whole message came
    /// before it in the same read, and in framed streams.
    #[test]
    fn a_stream_ending_inside_a_message_is_truncated(
        fields in prop::collection::vec((1i16..300, value_strategy()), 1..5),
        cut_fraction in 0.0f64..1.0,
    ) {
        for (protocol, transport) in FORMATS {
            let format = WireFormat { protocol, transport };
            let first = message(protocol, true, "get_database", &[]);
            let second = message(protocol, true, "get_table", &fields);
            let whole = stream_of(&[first.clone(), second], transport);
            let first_bytes = stream_of(std::slice::from_ref(&first), transport).len();
            let cut = first_bytes + ((whole.len() - first_bytes) as f64 * cut_fraction) as usize;
            let cut = cut.clamp(first_bytes + 1, whole.len() - 1);
            let mut reader = MessageReader::new(Cursor::new(whole[..cut].to_vec()));
            let message = reader.read_message(format, &Limits::default()).map(<[u8]>::to_vec);
            prop_assert_eq!(message.ok(), Some(first));
            let result = reader.read_message(format, &Limits::default()).map(<[u8]>::to_vec);
            prop_assert!(matches!(result, Err(ReadError::Truncated)), "{:?}: {:?}", format, result);
        }
    }
}

#[test]
fn a_buffer_grown_for_a_big_message_is_given_back_and_keeps_what_follows() {
    let big = message(
        Protocol::Binary,
        true,
        "alter_table",
        &[(1, Value::Text("x".repeat(3 << 20)))],
    );
    let small = message(Protocol::Binary, true, "get_table", &[]);
    let bytes = stream_of(
        &[big.clone(), small.clone(), small.clone()],
        Transport::Buffered,
    );
    let format = WireFormat {
        protocol: Protocol::Binary,
        transport: Transport::Buffered,
    };
    let mut reader = MessageReader::new(Cursor::new(bytes));
    assert_eq!(
        reader.read_message(format, &Limits::default()).unwrap(),
        &big[..]
    );
    assert!(reader.buffer_bytes() > IDLE_BUFFER_BYTES_MAX);
    assert_eq!(
        reader.read_message(format, &Limits::default()).unwrap(),
        &small[..]
    );
    assert_eq!(reader.buffer_bytes(), READ_BYTES_MIN);
    assert_eq!(
        reader.buffered(),
        &small[..],
        "the bytes after it were kept"
    );
    assert_eq!(
        reader.read_message(format, &Limits::default()).unwrap(),
        &small[..]
    );
}

#[test]
fn a_message_of_exactly_the_limit_is_read_and_one_byte_more_is_refused() {
    let body = message(
        Protocol::Binary,
        true,
        "get_table",
        &[(1, Value::Text("y".repeat(200)))],
    );
    for transport in [Transport::Buffered, Transport::Framed] {
        let format = WireFormat {
            protocol: Protocol::Binary,
            transport,
        };
        let stream = stream_of(std::slice::from_ref(&body), transport);
        let exact = Limits {
            message_bytes_max: body.len(),
            ..Limits::default()
        };
        let mut reader = MessageReader::new(Cursor::new(stream.clone()));
        assert_eq!(reader.read_message(format, &exact).unwrap(), &body[..]);
        let short = Limits {
            message_bytes_max: body.len() - 1,
            ..Limits::default()
        };
        let mut reader = MessageReader::new(Cursor::new(stream));
        let result = reader.read_message(format, &short).map(<[u8]>::to_vec);
        assert!(matches!(result, Err(ReadError::Invalid(_))), "{result:?}");
    }
}
