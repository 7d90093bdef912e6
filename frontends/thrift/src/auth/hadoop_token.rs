//! Hadoop's encodings of delegation tokens: the `Writable` layouts of a token identifier
//! (`AbstractDelegationTokenIdentifier`), a token (`Token`), a master key (`DelegationKey`)
//! and what Hive's token store keeps of a token (its password and renewal date), with
//! Hadoop's variable-length integers and `Text`; and the base64 flavours they travel in.
//!
//! Everything read here came from a client: every length is checked against what is left and
//! against a named bound before anything is allocated, and bad bytes are an error naming what
//! was wrong, never a panic.

use base64::alphabet;
use base64::engine::{DecodePaddingMode, Engine, GeneralPurpose, GeneralPurposeConfig};

/// The kind of the metastore's tokens (Hive's `DelegationTokenIdentifier.HIVE_DELEGATION_KIND`).
pub const HIVE_DELEGATION_KIND: &str = "HIVE_DELEGATION_TOKEN";
/// The identifier layout's version byte (`AbstractDelegationTokenIdentifier.VERSION`).
pub const IDENTIFIER_VERSION: u8 = 0;
/// The longest token string (`token_str_form`) decoded, in characters.
pub const TOKEN_STRING_CHARS_MAX: usize = 16 << 10;
/// The longest name (owner, renewer, real user) in an identifier, in bytes.
pub const NAME_BYTES_MAX: usize = 1 << 10;
/// The longest identifier, password, kind or service in a token, in bytes.
pub const TOKEN_FIELD_BYTES_MAX: usize = 4 << 10;

/// Why bytes are not what they should be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Not base64 in either of Hadoop's alphabets.
    #[error("not base64: {0}")]
    Base64(String),
    /// The bytes end before the field does.
    #[error("the {0} is cut short")]
    Short(&'static str),
    /// A length or number out of its range.
    #[error("the {what} is out of range ({value})")]
    OutOfRange {
        /// The field.
        what: &'static str,
        /// The value read.
        value: i64,
    },
    /// A name that is not UTF-8.
    #[error("the {0} is not UTF-8")]
    NotUtf8(&'static str),
    /// An identifier of another layout version.
    #[error("unknown version {0} of delegation token identifier")]
    Version(u8),
    /// Bytes after the last field.
    #[error("{0} bytes follow the {1}")]
    Trailing(usize, &'static str),
    /// A token of another kind than Hive's.
    #[error("a token of kind {0:?}, not {HIVE_DELEGATION_KIND}")]
    Kind(String),
    /// The whole string is longer than its bound.
    #[error("{0} characters, longer than the {TOKEN_STRING_CHARS_MAX} allowed")]
    TooLong(usize),
}

/// The URL-safe alphabet without padding, as Hadoop writes (commons-codec's URL-safe mode).
const URL_SAFE: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);
/// The standard alphabet with padding (SASL user names and passwords).
const STANDARD: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_encode_padding(true)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Hadoop's `encodeWritable`/`encodeToUrlString`: URL-safe base64, no padding.
pub fn url_encode(bytes: &[u8]) -> String {
    URL_SAFE.encode(bytes)
}

/// Standard base64 with padding, as Hadoop's SASL layer writes user names and passwords.
pub fn standard_encode(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Reads base64 in either alphabet, padded or not, as commons-codec does.
pub fn decode_base64(text: &str) -> Result<Vec<u8>, DecodeError> {
    if text.len() > TOKEN_STRING_CHARS_MAX {
        return Err(DecodeError::TooLong(text.len()));
    }
    let text = text.trim();
    let result = if text.contains(['-', '_']) {
        URL_SAFE.decode(text)
    } else {
        STANDARD.decode(text)
    };
    result.map_err(|error| DecodeError::Base64(error.to_string()))
}

/// Hadoop's `WritableUtils.writeVLong`.
pub fn write_vlong(out: &mut Vec<u8>, value: i64) {
    if (-112..=127).contains(&value) {
        out.push(value as u8);
        return;
    }
    let (magnitude, base) = if value < 0 {
        (!value, -120_i32)
    } else {
        (value, -112_i32)
    };
    let length = 8 - (magnitude.leading_zeros() / 8) as usize;
    out.push((base - length as i32) as u8);
    for index in (0..length).rev() {
        out.push((magnitude >> (index * 8)) as u8);
    }
}

/// Hadoop's `WritableUtils.writeVInt`.
pub fn write_vint(out: &mut Vec<u8>, value: i32) {
    write_vlong(out, i64::from(value));
}

/// Hadoop's `Text.write`: the UTF-8 length as a vint, then the bytes.
pub fn write_text(out: &mut Vec<u8>, text: &str) {
    write_bytes(out, text.as_bytes());
}

fn write_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    write_vint(out, i32::try_from(bytes.len()).unwrap_or(i32::MAX));
    out.extend_from_slice(bytes);
}

/// Reads the fields of a `Writable` from the front of its bytes.
pub struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader over `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { rest: bytes }
    }

    fn byte(&mut self, what: &'static str) -> Result<u8, DecodeError> {
        let (first, rest) = self.rest.split_first().ok_or(DecodeError::Short(what))?;
        self.rest = rest;
        Ok(*first)
    }

    fn take(&mut self, length: usize, what: &'static str) -> Result<&'a [u8], DecodeError> {
        if length > self.rest.len() {
            return Err(DecodeError::Short(what));
        }
        let (taken, rest) = self.rest.split_at(length);
        self.rest = rest;
        Ok(taken)
    }

    /// Hadoop's `WritableUtils.readVLong`.
    pub fn vlong(&mut self, what: &'static str) -> Result<i64, DecodeError> {
        let first = self.byte(what)? as i8;
        if first >= -112 {
            return Ok(i64::from(first));
        }
        let negative = first < -120;
        let length = if negative {
            -120 - i32::from(first)
        } else {
            -112 - i32::from(first)
        } as usize;
        let mut magnitude = 0_i64;
        for byte in self.take(length, what)? {
            magnitude = (magnitude << 8) | i64::from(*byte);
        }
        Ok(if negative { !magnitude } else { magnitude })
    }

    /// Hadoop's `WritableUtils.readVInt`.
    pub fn vint(&mut self, what: &'static str) -> Result<i32, DecodeError> {
        let value = self.vlong(what)?;
        i32::try_from(value).map_err(|_| DecodeError::OutOfRange { what, value })
    }

    /// A big-endian `long` (`DataInput.readLong`).
    pub fn long(&mut self, what: &'static str) -> Result<i64, DecodeError> {
        let bytes: [u8; 8] = self
            .take(8, what)?
            .try_into()
            .map_err(|_| DecodeError::Short(what))?;
        Ok(i64::from_be_bytes(bytes))
    }

    /// A vint length, then that many bytes, at most `max`.
    pub fn bytes(&mut self, what: &'static str, max: usize) -> Result<&'a [u8], DecodeError> {
        let length = self.vint(what)?;
        let length = usize::try_from(length)
            .ok()
            .filter(|length| *length <= max)
            .ok_or(DecodeError::OutOfRange {
                what,
                value: i64::from(length),
            })?;
        self.take(length, what)
    }

    /// Hadoop's `Text`, at most `max` bytes.
    pub fn text(&mut self, what: &'static str, max: usize) -> Result<String, DecodeError> {
        let bytes = self.bytes(what, max)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| DecodeError::NotUtf8(what))
    }

    /// Checks that nothing follows the last field of `what`.
    pub fn end(self, what: &'static str) -> Result<(), DecodeError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(DecodeError::Trailing(self.rest.len(), what))
        }
    }
}

/// A delegation token's identifier (`AbstractDelegationTokenIdentifier`), times in
/// milliseconds since the epoch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenIdentifier {
    /// Who the token stands for.
    pub owner: String,
    /// The short name of who may renew it (empty: nobody).
    pub renewer: String,
    /// Who asked for it on the owner's behalf (empty when the owner did).
    pub real_user: String,
    /// When it was issued.
    pub issue_date: i64,
    /// When it expires whatever its renewals.
    pub max_date: i64,
    /// Its number among the tokens the secret manager issued.
    pub sequence_number: i32,
    /// The sequence id of the master key that signed it.
    pub master_key_id: i32,
}

impl TokenIdentifier {
    /// The `Writable` bytes, which the token carries and its password signs.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![IDENTIFIER_VERSION];
        write_text(&mut out, &self.owner);
        write_text(&mut out, &self.renewer);
        write_text(&mut out, &self.real_user);
        write_vlong(&mut out, self.issue_date);
        write_vlong(&mut out, self.max_date);
        write_vint(&mut out, self.sequence_number);
        write_vint(&mut out, self.master_key_id);
        out
    }

    /// Reads the `Writable` bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut reader = Reader::new(bytes);
        let version = reader.byte("identifier version")?;
        if version != IDENTIFIER_VERSION {
            return Err(DecodeError::Version(version));
        }
        let identifier = TokenIdentifier {
            owner: reader.text("owner", NAME_BYTES_MAX)?,
            renewer: reader.text("renewer", NAME_BYTES_MAX)?,
            real_user: reader.text("real user", NAME_BYTES_MAX)?,
            issue_date: reader.vlong("issue date")?,
            max_date: reader.vlong("max date")?,
            sequence_number: reader.vint("sequence number")?,
            master_key_id: reader.vint("master key id")?,
        };
        reader.end("identifier")?;
        Ok(identifier)
    }

    /// The identifier as Hive's token store keys it (`encodeWritable`: URL-safe base64).
    pub fn store_key(&self) -> String {
        url_encode(&self.to_bytes())
    }
}

impl std::fmt::Display for TokenIdentifier {
    /// As Hadoop prints an identifier in its messages.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "{HIVE_DELEGATION_KIND} owner={}, renewer={}, realUser={}, issueDate={}, \
             maxDate={}, sequenceNumber={}, masterKeyId={}",
            self.owner,
            self.renewer,
            self.real_user,
            self.issue_date,
            self.max_date,
            self.sequence_number,
            self.master_key_id
        )
    }
}

/// A token (`Token`): its identifier's bytes, its password, kind and service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The identifier's `Writable` bytes.
    pub identifier: Vec<u8>,
    /// HMAC-SHA1 of the identifier's bytes under its master key.
    pub password: Vec<u8>,
    /// The token's kind ([`HIVE_DELEGATION_KIND`]).
    pub kind: String,
    /// The service it is for (empty as the metastore issues it; clients set it).
    pub service: String,
}

impl Token {
    /// The `Writable` bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        write_bytes(&mut out, &self.identifier);
        write_bytes(&mut out, &self.password);
        write_text(&mut out, &self.kind);
        write_text(&mut out, &self.service);
        out
    }

    /// Reads the `Writable` bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut reader = Reader::new(bytes);
        let token = Token {
            identifier: reader
                .bytes("token identifier", TOKEN_FIELD_BYTES_MAX)?
                .to_vec(),
            password: reader
                .bytes("token password", TOKEN_FIELD_BYTES_MAX)?
                .to_vec(),
            kind: reader.text("token kind", TOKEN_FIELD_BYTES_MAX)?,
            service: reader.text("token service", TOKEN_FIELD_BYTES_MAX)?,
        };
        reader.end("token")?;
        Ok(token)
    }

    /// Hadoop's `encodeToUrlString`: the string clients hold (`token_str_form`).
    pub fn to_url_string(&self) -> String {
        url_encode(&self.to_bytes())
    }

    /// Hadoop's `decodeFromUrlString`, then the identifier within, which must be a Hive
    /// delegation token's.
    pub fn from_url_string(text: &str) -> Result<(Token, TokenIdentifier), DecodeError> {
        let token = Token::from_bytes(&decode_base64(text)?)?;
        if token.kind != HIVE_DELEGATION_KIND {
            return Err(DecodeError::Kind(token.kind));
        }
        let identifier = TokenIdentifier::from_bytes(&token.identifier)?;
        Ok((token, identifier))
    }
}

/// A master key (`DelegationKey`): its sequence id, expiry (milliseconds) and secret.
#[derive(Clone, PartialEq, Eq)]
pub struct DelegationKey {
    /// The sequence id the token store gave it.
    pub key_id: i32,
    /// When tokens it signed can no longer be valid.
    pub expiry_date: i64,
    /// The HMAC-SHA1 secret.
    pub secret: Vec<u8>,
}

impl std::fmt::Debug for DelegationKey {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("DelegationKey")
            .field("key_id", &self.key_id)
            .field("expiry_date", &self.expiry_date)
            .finish_non_exhaustive()
    }
}

impl DelegationKey {
    /// As Hive's token store keeps it (`encodeWritable`: URL-safe base64 of the `Writable`).
    pub fn to_store_string(&self) -> String {
        let mut out = Vec::new();
        write_vint(&mut out, self.key_id);
        write_vlong(&mut out, self.expiry_date);
        write_bytes(&mut out, &self.secret);
        url_encode(&out)
    }

    /// Reads what [`DelegationKey::to_store_string`] wrote.
    pub fn from_store_string(text: &str) -> Result<Self, DecodeError> {
        let bytes = decode_base64(text)?;
        let mut reader = Reader::new(&bytes);
        let key = DelegationKey {
            key_id: reader.vint("key id")?,
            expiry_date: reader.vlong("key expiry date")?,
            secret: reader.bytes("key secret", TOKEN_FIELD_BYTES_MAX)?.to_vec(),
        };
        reader.end("master key")?;
        Ok(key)
    }
}

/// What Hive's token store keeps of a token (`DelegationTokenInformation`): its password and
/// the time (milliseconds) it expires unless renewed.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenInformation {
    /// The token's password.
    pub password: Vec<u8>,
    /// When it expires unless renewed.
    pub renew_date: i64,
}

impl std::fmt::Debug for TokenInformation {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("TokenInformation")
            .field("renew_date", &self.renew_date)
            .finish_non_exhaustive()
    }
}

impl TokenInformation {
    /// As Hive's `DBTokenStore` keeps it: URL-safe base64 of the password's length (vint),
    /// the password and the renewal date (a big-endian long).
    pub fn to_store_string(&self) -> String {
        let mut out = Vec::new();
        write_bytes(&mut out, &self.password);
        out.extend_from_slice(&self.renew_date.to_be_bytes());
        url_encode(&out)
    }

    /// Reads what [`TokenInformation::to_store_string`] wrote.
    pub fn from_store_string(text: &str) -> Result<Self, DecodeError> {
        let bytes = decode_base64(text)?;
        let mut reader = Reader::new(&bytes);
        let information = TokenInformation {
            password: reader
                .bytes("token password", TOKEN_FIELD_BYTES_MAX)?
                .to_vec(),
            renew_date: reader.long("token renewal date")?,
        };
        reader.end("token information")?;
        Ok(information)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identifier() -> TokenIdentifier {
        TokenIdentifier {
            owner: "alice".into(),
            renewer: "hive".into(),
            real_user: String::new(),
            issue_date: 1_700_000_000_000,
            max_date: 1_700_604_800_000,
            sequence_number: 3,
            master_key_id: 200,
        }
    }

    #[test]
    fn vlongs_are_written_as_hadoop_writes_them() {
        let cases: [(i64, &[u8]); 7] = [
            (0, &[0x00]),
            (127, &[0x7f]),
            (-112, &[0x90]),
            (128, &[0x8f, 0x80]),
            (-113, &[0x87, 0x70]),
            (300, &[0x8e, 0x01, 0x2c]),
            (
                i64::MAX,
                &[0x88, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
            ),
        ];
        for (value, bytes) in cases {
            let mut out = Vec::new();
            write_vlong(&mut out, value);
            assert_eq!(out, bytes, "{value}");
            let mut reader = Reader::new(bytes);
            assert_eq!(reader.vlong("v").unwrap(), value);
            reader.end("v").unwrap();
        }
        for value in [i64::MIN, -1, -129, 1 << 40, -(1 << 40), 65_535] {
            let mut out = Vec::new();
            write_vlong(&mut out, value);
            assert_eq!(Reader::new(&out).vlong("v").unwrap(), value);
        }
    }

    #[test]
    fn an_identifier_has_hadoops_layout_and_reads_back() {
        let bytes = identifier().to_bytes();
        // Version, then "alice", "hive" and "" as Text.
        assert_eq!(&bytes[..13], b"\x00\x05alice\x04hive\x00");
        assert_eq!(TokenIdentifier::from_bytes(&bytes).unwrap(), identifier());
        assert!(identifier().to_string().starts_with(
            "HIVE_DELEGATION_TOKEN owner=alice, renewer=hive, realUser=, issueDate=1700000000000"
        ));
    }

    #[test]
    fn a_token_string_reads_back_in_either_alphabet_and_garbage_is_a_clear_error() {
        let token = Token {
            identifier: identifier().to_bytes(),
            password: vec![0xfb; 20],
            kind: HIVE_DELEGATION_KIND.into(),
            service: String::new(),
        };
        let text = token.to_url_string();
        assert!(!text.contains(['+', '/', '=']), "{text}");
        assert_eq!(
            Token::from_url_string(&text).unwrap(),
            (token.clone(), identifier())
        );
        let standard = standard_encode(&token.to_bytes());
        assert_eq!(Token::from_url_string(&standard).unwrap().0, token);

        let cases = [
            ("", "the token identifier is cut short"),
            ("!!!!", "not base64"),
            (&text[..text.len() / 8 * 4], "cut short"),
            ("_____w", "out of range"),
        ];
        for (garbage, wanted) in cases {
            let error = Token::from_url_string(garbage).unwrap_err().to_string();
            assert!(error.contains(wanted), "{garbage:?}: {error}");
        }
        let other = Token {
            kind: "HDFS_DELEGATION_TOKEN".into(),
            ..token.clone()
        };
        let error = Token::from_url_string(&other.to_url_string()).unwrap_err();
        assert_eq!(error, DecodeError::Kind("HDFS_DELEGATION_TOKEN".into()));
        let mut versioned = token.clone();
        versioned.identifier[0] = 1;
        let error = Token::from_url_string(&versioned.to_url_string()).unwrap_err();
        assert_eq!(error, DecodeError::Version(1));
        let long = "A".repeat(TOKEN_STRING_CHARS_MAX + 1);
        assert!(matches!(
            Token::from_url_string(&long),
            Err(DecodeError::TooLong(_))
        ));
    }

    #[test]
    fn any_bytes_decode_to_a_token_or_an_error_without_a_panic() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let valid = Token {
            identifier: identifier().to_bytes(),
            password: vec![1; 20],
            kind: HIVE_DELEGATION_KIND.into(),
            service: "svc".into(),
        }
        .to_bytes();
        for round in 0..2_000 {
            let mut bytes = valid.clone();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed as usize) % bytes.len();
            bytes[at] = (seed >> 32) as u8;
            bytes.truncate(bytes.len() - round % 5);
            let _ = Token::from_url_string(&url_encode(&bytes));
            let _ = TokenInformation::from_store_string(&url_encode(&bytes));
            let _ = DelegationKey::from_store_string(&url_encode(&bytes));
        }
    }

    #[test]
    fn keys_and_token_information_read_back_from_their_store_strings() {
        let key = DelegationKey {
            key_id: 12,
            expiry_date: 1_700_000_000_000,
            secret: vec![7; 64],
        };
        let text = key.to_store_string();
        assert_eq!(DelegationKey::from_store_string(&text).unwrap(), key);
        let information = TokenInformation {
            password: vec![9; 20],
            renew_date: 1_700_086_400_000,
        };
        let text = information.to_store_string();
        assert_eq!(
            TokenInformation::from_store_string(&text).unwrap(),
            information
        );
        let mut bytes = decode_base64(&text).unwrap();
        assert_eq!(bytes[0], 20);
        assert_eq!(&bytes[21..], 1_700_086_400_000_i64.to_be_bytes());
        bytes.push(0);
        let error = TokenInformation::from_store_string(&url_encode(&bytes)).unwrap_err();
        assert_eq!(error, DecodeError::Trailing(1, "token information"));
    }
}
