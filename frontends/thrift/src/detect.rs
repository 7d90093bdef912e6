//! Recognises, from the first bytes of a connection, which Thrift protocol and transport the
//! client speaks, so that one port serves every client configuration.
//!
//! What each combination looks like on the wire:
//!
//! | first bytes                         | meaning                                 |
//! |-------------------------------------|-----------------------------------------|
//! | `80 01 ..`                          | binary protocol, strict header, unframed |
//! | `82 ..`                             | compact protocol, unframed              |
//! | `LL LL LL LL 80 01`                 | framed (length `L`), binary strict       |
//! | `LL LL LL LL 82`                    | framed, compact                         |
//! | `LL LL LL LL 00`                    | framed, binary non-strict (name length) |
//! | `NN NN NN NN` + letter              | binary non-strict, unframed (name length, name) |
//!
//! A non-strict unframed message starts with the method name's length, which is short, so its
//! fifth byte is the name's first letter; a framed message's fifth byte is a protocol marker or
//! the high byte of a short name length, never a letter.
//!
//! A connection may also open with a handshake that wraps the Thrift stream: a TLS ClientHello
//! (`16 03 ..`, a handshake record) is reported as [`Detection::Handshake`], for the listener to
//! take over or refuse, and so are a SASL START frame (`01 00 00 00 NN`, a mechanism name's
//! length) and an HTTP request line (`POST /metastore HTTP/1.1`, Hive's HTTP transport, whose
//! calls come in request bodies: [`crate::http`]); the Thrift stream inside is detected again
//! once the handshake is done. Anything else (garbage) is refused with a reason.

use crate::limits::METHOD_NAME_BYTES_MAX;

/// The first byte of a strict binary message header (the high byte of version 1).
pub const BINARY_VERSION_HIGH: u8 = 0x80;
/// The second byte of a strict binary message header.
pub const BINARY_VERSION_LOW: u8 = 0x01;
/// The first byte of every compact protocol message.
pub const COMPACT_PROTOCOL_ID: u8 = 0x82;
/// How many bytes detection needs at most.
pub const DETECT_BYTES: usize = 5;

/// The protocol a connection speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// TBinaryProtocol; message headers may be strict or not.
    Binary,
    /// TCompactProtocol.
    Compact,
}

/// The transport a connection uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// Messages back to back on the stream.
    Buffered,
    /// Each message preceded by its length as a big-endian i32.
    Framed,
}

/// A connection's protocol and transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireFormat {
    /// The protocol.
    pub protocol: Protocol,
    /// The transport.
    pub transport: Transport,
}

/// What the first bytes tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Detection {
    /// The format is known.
    Format(WireFormat),
    /// More bytes are needed to tell (at most [`DETECT_BYTES`]).
    NeedMore,
    /// The connection opens with a handshake that wraps the Thrift stream.
    Handshake(Handshake),
    /// Not a Thrift stream this server speaks; the reason names what it looks like.
    Refused(String),
}

/// A handshake a connection may open with, before its Thrift messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handshake {
    /// A TLS record of the handshake type, a ClientHello.
    Tls,
    /// A SASL negotiation's START frame (Hive's `TSaslServerTransport`).
    Sasl,
    /// An HTTP request line: Thrift calls in HTTP request bodies.
    Http,
}

/// The content type of a TLS handshake record, a connection's first byte under TLS.
pub const TLS_HANDSHAKE_RECORD: u8 = 0x16;
/// The major version byte of every TLS record (SSL 3.0 to TLS 1.3 all say 3).
pub const TLS_VERSION_MAJOR: u8 = 0x03;

/// Classifies the first bytes of a connection. `prefix` holds what has arrived so far.
pub fn detect(prefix: &[u8]) -> Detection {
    let Some(&first) = prefix.first() else {
        return Detection::NeedMore;
    };
    if first == BINARY_VERSION_HIGH {
        return format(Protocol::Binary, Transport::Buffered);
    }
    if first == COMPACT_PROTOCOL_ID {
        return format(Protocol::Compact, Transport::Buffered);
    }
    if prefix.len() < DETECT_BYTES {
        return Detection::NeedMore;
    }
    let length = i32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
    let fifth = prefix[4];
    if is_tls_record(prefix) {
        return Detection::Handshake(Handshake::Tls);
    }
    if is_http_request(prefix) {
        return Detection::Handshake(Handshake::Http);
    }
    if is_sasl_start(prefix) {
        return Detection::Handshake(Handshake::Sasl);
    }
    if length <= 0 {
        return Detection::Refused(format!("frame or name length {length} is not positive"));
    }
    match fifth {
        BINARY_VERSION_HIGH => format(Protocol::Binary, Transport::Framed),
        COMPACT_PROTOCOL_ID => format(Protocol::Compact, Transport::Framed),
        0x00 => format(Protocol::Binary, Transport::Framed),
        letter if is_name_start(letter) && length as usize <= METHOD_NAME_BYTES_MAX => {
            format(Protocol::Binary, Transport::Buffered)
        }
        other => Detection::Refused(format!(
            "unrecognised Thrift stream: bytes {:02x?} (fifth byte {other:#04x})",
            &prefix[..DETECT_BYTES]
        )),
    }
}

fn format(protocol: Protocol, transport: Transport) -> Detection {
    Detection::Format(WireFormat {
        protocol,
        transport,
    })
}

fn is_name_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_'
}

/// The start of an HTTP request line. As a frame or name length, these bytes would be over a
/// billion: no Thrift client sends one. Methods other than POST are answered 405 by the HTTP
/// transport rather than refused unanswered.
fn is_http_request(prefix: &[u8]) -> bool {
    const HTTP_METHODS: [&[u8]; 9] = [
        b"POST", b"GET ", b"PUT ", b"HEAD", b"OPTI", b"DELE", b"PATC", b"TRAC", b"CONN",
    ];
    HTTP_METHODS.iter().any(|method| prefix.starts_with(method))
}

/// A TLS handshake record: its type, then version 3.x with a minor version SSL 3.0 to TLS 1.3
/// use. As a frame length, `16 03 0x ..` would be a message over 369 MB: no Thrift client
/// sends one.
fn is_tls_record(prefix: &[u8]) -> bool {
    prefix[0] == TLS_HANDSHAKE_RECORD && prefix[1] == TLS_VERSION_MAJOR && prefix[2] <= 0x04
}

/// The status byte of a SASL negotiation's first frame (Thrift's `NegotiationStatus.START`).
pub const SASL_START: u8 = 0x01;
/// Longest SASL mechanism name (RFC 4422: 1 to 20 characters).
pub const SASL_MECHANISM_NAME_MAX: u8 = 20;

/// A SASL negotiation starts with the START status and the mechanism name's length, 1 to 20.
/// As a frame length, `01 00 00 00` would be a message of 16 MiB whose fifth byte is a
/// protocol marker (`80`, `82`) or a name length's high byte (`00`), never 1 to 20.
fn is_sasl_start(prefix: &[u8]) -> bool {
    prefix[0] == SASL_START
        && prefix[1..4] == [0, 0, 0]
        && (1..=SASL_MECHANISM_NAME_MAX).contains(&prefix[4])
}
