//! The two LDAP messages a simple bind needs (RFC 4511), in BER: the BindRequest written, the
//! BindResponse read, every length read checked against what is there.

/// The longest LDAP reply read, in bytes: a BindResponse is a few dozen bytes and a
/// diagnostic message.
pub const LDAP_REPLY_BYTES_MAX: usize = 64 * 1024;

const SEQUENCE: u8 = 0x30;
const INTEGER: u8 = 0x02;
const OCTET_STRING: u8 = 0x04;
const ENUMERATED: u8 = 0x0a;
const BIND_REQUEST: u8 = 0x60;
const BIND_RESPONSE: u8 = 0x61;
const UNBIND_REQUEST: u8 = 0x42;
const EXTENDED_RESPONSE: u8 = 0x78;
const SIMPLE_AUTHENTICATION: u8 = 0x80;

/// What the server answered to a bind.
#[derive(Debug, PartialEq, Eq)]
pub struct BindResult {
    /// The LDAP result code: 0 is success, 49 invalid credentials.
    pub code: u32,
    /// The server's diagnostic message, possibly empty.
    pub diagnostic: String,
}

impl BindResult {
    /// The code with its RFC 4511 name, for the log.
    pub fn describe(&self) -> String {
        let name = match self.code {
            0 => "success",
            1 => "operationsError",
            2 => "protocolError",
            32 => "noSuchObject",
            34 => "invalidDNSyntax",
            48 => "inappropriateAuthentication",
            49 => "invalidCredentials",
            50 => "insufficientAccessRights",
            51 => "busy",
            52 => "unavailable",
            53 => "unwillingToPerform",
            _ => "result",
        };
        if self.diagnostic.is_empty() {
            format!("{name} ({})", self.code)
        } else {
            format!("{name} ({}): {}", self.code, self.diagnostic)
        }
    }
}

/// A BindRequest for a simple bind as `dn` with `password`, LDAP version 3.
pub fn bind_request(message_id: u32, dn: &str, password: &str) -> Vec<u8> {
    let mut bind = Vec::new();
    tlv(&mut bind, INTEGER, &[3]);
    tlv(&mut bind, OCTET_STRING, dn.as_bytes());
    tlv(&mut bind, SIMPLE_AUTHENTICATION, password.as_bytes());
    envelope(message_id, BIND_REQUEST, &bind)
}

/// An UnbindRequest: the polite end of a connection.
pub fn unbind_request(message_id: u32) -> Vec<u8> {
    envelope(message_id, UNBIND_REQUEST, &[])
}

fn envelope(message_id: u32, operation: u8, body: &[u8]) -> Vec<u8> {
    let mut message = Vec::new();
    tlv(&mut message, INTEGER, &integer(message_id));
    tlv(&mut message, operation, body);
    let mut out = Vec::with_capacity(message.len() + 6);
    tlv(&mut out, SEQUENCE, &message);
    out
}

/// A non-negative integer's shortest two's-complement bytes.
fn integer(value: u32) -> Vec<u8> {
    let bytes = value.to_be_bytes();
    let skip = bytes.iter().take(3).take_while(|&&byte| byte == 0).count();
    let mut out = bytes[skip..].to_vec();
    if out[0] & 0x80 != 0 {
        out.insert(0, 0);
    }
    out
}

fn tlv(out: &mut Vec<u8>, tag: u8, value: &[u8]) {
    out.push(tag);
    let length = value.len();
    if length < 0x80 {
        out.push(length as u8);
    } else {
        let bytes = (length as u64).to_be_bytes();
        let skip = bytes.iter().take_while(|&&byte| byte == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(value);
}

/// How many bytes the LDAP message whose first bytes are `head` takes in all, once enough of
/// its head is there (`Ok(None)`: read more first). Errors for what is not a message, or one
/// over [`LDAP_REPLY_BYTES_MAX`].
pub fn message_length(head: &[u8]) -> Result<Option<usize>, String> {
    let Some(&tag) = head.first() else {
        return Ok(None);
    };
    if tag != SEQUENCE {
        return Err(format!("not an LDAP message: it starts with 0x{tag:02x}"));
    }
    let Some(&first) = head.get(1) else {
        return Ok(None);
    };
    let (header, content) = if first < 0x80 {
        (2, first as usize)
    } else {
        let count = (first & 0x7f) as usize;
        if count == 0 || count > 4 {
            return Err(format!(
                "an LDAP message with a length of {count} bytes (indefinite or too long)"
            ));
        }
        let Some(bytes) = head.get(2..2 + count) else {
            return Ok(None);
        };
        let content = bytes
            .iter()
            .fold(0usize, |sum, &byte| (sum << 8) | byte as usize);
        (2 + count, content)
    };
    let total = header + content;
    if total > LDAP_REPLY_BYTES_MAX {
        return Err(format!(
            "an LDAP reply of {total} bytes, over the limit of {LDAP_REPLY_BYTES_MAX}"
        ));
    }
    Ok(Some(total))
}

/// Reads a whole reply to the bind with `message_id`. A Notice of Disconnection (the server
/// hanging up) is an error carrying its message.
pub fn bind_response(message: &[u8], message_id: u32) -> Result<BindResult, String> {
    let mut outer = Reader::new(message);
    let mut envelope = Reader::new(outer.expect(SEQUENCE, "the LDAP message")?);
    let id = read_integer(envelope.expect(INTEGER, "the message ID")?)?;
    let (operation, body) = envelope.next("the protocol operation")?;
    let mut body = Reader::new(body);
    let result = BindResult {
        code: read_integer(body.expect(ENUMERATED, "the result code")?)?,
        diagnostic: {
            body.expect(OCTET_STRING, "the matched DN")?;
            let text = body.expect(OCTET_STRING, "the diagnostic message")?;
            String::from_utf8_lossy(&text[..text.len().min(512)]).into_owned()
        },
    };
    match (id, operation) {
        (0, EXTENDED_RESPONSE) => Err(format!(
            "the LDAP server closed the connection: {}",
            result.describe()
        )),
        (id, BIND_RESPONSE) if id == message_id => Ok(result),
        (id, BIND_RESPONSE) => Err(format!(
            "a BindResponse to message {id}, not to the bind sent ({message_id})"
        )),
        (_, operation) => Err(format!(
            "an LDAP reply of operation 0x{operation:02x}, not a BindResponse"
        )),
    }
}

/// A BindResponse as a server writes it.
#[cfg(test)]
pub fn bind_response_bytes(message_id: u32, code: u8, diagnostic: &str) -> Vec<u8> {
    let mut body = Vec::new();
    tlv(&mut body, ENUMERATED, &[code]);
    tlv(&mut body, OCTET_STRING, b"");
    tlv(&mut body, OCTET_STRING, diagnostic.as_bytes());
    envelope(message_id, BIND_RESPONSE, &body)
}

fn read_integer(bytes: &[u8]) -> Result<u32, String> {
    if bytes.is_empty() || bytes.len() > 4 || bytes[0] & 0x80 != 0 {
        return Err(format!(
            "an LDAP integer of {} bytes, not a small non-negative one",
            bytes.len()
        ));
    }
    Ok(bytes
        .iter()
        .fold(0u32, |sum, &byte| (sum << 8) | byte as u32))
}

/// Walks the elements of one BER value, definite lengths only.
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { rest: bytes }
    }

    fn next(&mut self, what: &str) -> Result<(u8, &'a [u8]), String> {
        let truncated = || format!("the LDAP reply ends within {what}");
        let (&tag, rest) = self.rest.split_first().ok_or_else(truncated)?;
        let (&first, rest) = rest.split_first().ok_or_else(truncated)?;
        let (length, rest) = if first < 0x80 {
            (first as usize, rest)
        } else {
            let count = (first & 0x7f) as usize;
            if count == 0 || count > 4 || rest.len() < count {
                return Err(format!("a bad length in {what}"));
            }
            let length = rest[..count]
                .iter()
                .fold(0usize, |sum, &byte| (sum << 8) | byte as usize);
            (length, &rest[count..])
        };
        if length > rest.len() {
            return Err(format!(
                "{what} claims {length} bytes where {} are left",
                rest.len()
            ));
        }
        let (value, rest) = rest.split_at(length);
        self.rest = rest;
        Ok((tag, value))
    }

    fn expect(&mut self, tag: u8, what: &str) -> Result<&'a [u8], String> {
        let (found, value) = self.next(what)?;
        if found != tag {
            return Err(format!("{what} has tag 0x{found:02x}, not 0x{tag:02x}"));
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(id: u32, code: u8, diagnostic: &str) -> Vec<u8> {
        bind_response_bytes(id, code, diagnostic)
    }

    #[test]
    fn bind_request_is_the_ber_rfc_4511_gives() {
        assert_eq!(
            bind_request(1, "uid=a", "pw"),
            [
                0x30, 0x13, 0x02, 0x01, 0x01, 0x60, 0x0e, 0x02, 0x01, 0x03, 0x04, 0x05, b'u', b'i',
                b'd', b'=', b'a', 0x80, 0x02, b'p', b'w'
            ]
        );
        assert_eq!(
            unbind_request(2),
            [0x30, 0x05, 0x02, 0x01, 0x02, 0x42, 0x00]
        );
        assert_eq!(integer(0x80), [0x00, 0x80]);
        assert_eq!(integer(0x1234), [0x12, 0x34]);
        assert_eq!(integer(0), [0x00]);
    }

    #[test]
    fn long_values_take_the_long_length_form_and_read_back() {
        let dn = format!("uid={},dc=example", "x".repeat(300));
        let request = bind_request(7, &dn, "pw");
        assert_eq!(&request[..2], [0x30, 0x82]);
        assert_eq!(message_length(&request), Ok(Some(request.len())));
        let mut outer = Reader::new(&request);
        let mut envelope = Reader::new(outer.expect(SEQUENCE, "message").unwrap());
        assert_eq!(envelope.expect(INTEGER, "id").unwrap(), [7]);
        let mut bind = Reader::new(envelope.expect(BIND_REQUEST, "bind").unwrap());
        assert_eq!(bind.expect(INTEGER, "version").unwrap(), [3]);
        assert_eq!(bind.expect(OCTET_STRING, "dn").unwrap(), dn.as_bytes());
        assert_eq!(
            bind.expect(SIMPLE_AUTHENTICATION, "password").unwrap(),
            b"pw"
        );
    }

    #[test]
    fn bind_responses_read_their_code_and_message() {
        let ok = bind_response(&response(3, 0, ""), 3).unwrap();
        assert_eq!(
            ok,
            BindResult {
                code: 0,
                diagnostic: String::new()
            }
        );
        assert_eq!(ok.describe(), "success (0)");
        let refused = bind_response(&response(4, 49, "bad"), 4).unwrap();
        assert_eq!(refused.describe(), "invalidCredentials (49): bad");
        let mut notice_body = Vec::new();
        tlv(&mut notice_body, ENUMERATED, &[52]);
        tlv(&mut notice_body, OCTET_STRING, b"");
        tlv(&mut notice_body, OCTET_STRING, b"shutting down");
        let notice = envelope(0, EXTENDED_RESPONSE, &notice_body);
        let error = bind_response(&notice, 5).unwrap_err();
        assert!(
            error.contains("closed the connection: unavailable (52): shutting down"),
            "{error}"
        );
        let error = bind_response(&response(9, 0, ""), 5).unwrap_err();
        assert!(
            error.contains("message 9, not to the bind sent (5)"),
            "{error}"
        );
    }

    #[test]
    fn malformed_replies_are_errors_not_panics() {
        let good = response(1, 0, "fine");
        for cut in 0..good.len() {
            assert!(bind_response(&good[..cut], 1).is_err(), "cut at {cut}");
        }
        let mut lying = good.clone();
        lying[1] = 0x7f;
        assert!(bind_response(&lying, 1)
            .unwrap_err()
            .contains("claims 127 bytes"));
        let cases: [(&[u8], &str); 5] = [
            (&[0x04, 0x00], "tag 0x04, not 0x30"),
            (&[0x30, 0x80], "a bad length"),
            (&[0x30, 0x85, 1, 1, 1, 1, 1], "a bad length"),
            (
                &[0x30, 0x03, 0x02, 0x01, 0x01],
                "ends within the protocol operation",
            ),
            (&[0x30, 0x06, 0x02, 0x05, 1, 2, 3, 4, 5], "claims 5 bytes"),
        ];
        for (bytes, expected) in cases {
            let error = bind_response(bytes, 1).unwrap_err();
            assert!(error.contains(expected), "{bytes:?}: {error}");
        }
        let big_id = [0x30, 0x07, 0x02, 0x05, 0, 0, 0, 0, 1];
        assert!(bind_response(&big_id, 1).unwrap_err().contains("5 bytes"));
        let negative = [0x30, 0x05, 0x02, 0x01, 0xff, 0x61, 0x00];
        assert!(bind_response(&negative, 1)
            .unwrap_err()
            .contains("non-negative"));
    }

    #[test]
    fn message_length_waits_for_the_head_and_bounds_the_whole() {
        assert_eq!(message_length(&[]), Ok(None));
        assert_eq!(message_length(&[0x30]), Ok(None));
        assert_eq!(message_length(&[0x30, 0x05]), Ok(Some(7)));
        assert_eq!(message_length(&[0x30, 0x82, 0x01]), Ok(None));
        assert_eq!(message_length(&[0x30, 0x82, 0x01, 0x00]), Ok(Some(260)));
        let huge = message_length(&[0x30, 0x84, 0x7f, 0xff, 0xff, 0xff]).unwrap_err();
        assert!(huge.contains("over the limit of 65536"), "{huge}");
        assert!(message_length(&[0x30, 0x80])
            .unwrap_err()
            .contains("indefinite"));
        assert!(message_length(&[0x16, 0x03]).unwrap_err().contains("0x16"));
    }
}
