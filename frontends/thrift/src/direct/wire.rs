//! A Thrift writer for replies built straight from stored values: binary (strict) and compact
//! protocol into a `Vec<u8>`, one inlined branch per value instead of a virtual call and a
//! field-name allocation per field as the `thrift` crate's protocols take. Only what replies
//! need: message header, structs, fields, strings and bytes, integers, doubles, booleans, lists
//! and maps.

use thrift::protocol::{
    TBinaryOutputProtocol, TCompactOutputProtocol, TOutputProtocol, TSerializable, TType,
};

use hivestore_engine::{PieceKey, Splicer};

use crate::detect::Protocol;

/// Binary protocol, strict: version 1 in the high word, the message type in the low byte.
const BINARY_VERSION_1: u32 = 0x8001_0000;
/// Compact protocol: protocol id, then version 1 with the message type in the top 3 bits.
const COMPACT_PROTOCOL_ID: u8 = 0x82;
const COMPACT_VERSION: u8 = 1;
/// The message type of a reply.
const MESSAGE_TYPE_REPLY: u8 = 2;
/// The message type of an application error, the reply to a call that failed undeclared.
const MESSAGE_TYPE_EXCEPTION: u8 = 3;

/// Writes one reply.
pub(crate) struct Encoder<'a> {
    out: &'a mut Vec<u8>,
    compact: bool,
    /// Compact only: the last field id written in the current struct (ids are sent as deltas)
    /// and those of the structs around it.
    last_id: i16,
    outer_ids: Vec<i16>,
    /// Where pieces shared by many partitions go instead of being copied, when the engine
    /// keeps what is written ([`Encoder::shared`]).
    splicer: Option<Splicer<'a>>,
}

impl<'a> Encoder<'a> {
    /// Appends to `out` in `protocol`.
    pub(crate) fn new(out: &'a mut Vec<u8>, protocol: Protocol) -> Self {
        Encoder {
            out,
            compact: protocol == Protocol::Compact,
            last_id: 0,
            outer_ids: Vec::new(),
            splicer: None,
        }
    }

    /// Appends to `out` in `protocol`, telling `splicer` where shared pieces go.
    pub(crate) fn splicing(out: &'a mut Vec<u8>, splicer: Splicer<'a>, protocol: Protocol) -> Self {
        let mut encoder = Encoder::new(out, protocol);
        encoder.splicer = Some(splicer);
        encoder
    }

    /// Continues a struct whose last field written was `last_id`: for bytes encoded apart and
    /// spliced into a struct later (see [`Encoder::raw`]).
    pub(crate) fn continuing(out: &'a mut Vec<u8>, protocol: Protocol, last_id: i16) -> Self {
        let mut encoder = Encoder::new(out, protocol);
        encoder.last_id = last_id;
        encoder
    }

    /// How many bytes the reply buffer holds: where a message written next begins.
    pub(crate) fn position(&self) -> usize {
        self.out.len()
    }

    /// Drops what was written from `position` (a message's beginning) on, to write another
    /// message there.
    pub(crate) fn discard_from(&mut self, position: usize) {
        self.out.truncate(position);
        self.last_id = 0;
        self.outer_ids.clear();
    }

    /// Makes room for `additional` more bytes at once: a big reply then grows once rather
    /// than doubling (and copying) its way up.
    pub(crate) fn reserve(&mut self, additional: usize) {
        crate::reply_buffers::reserve(self.out, additional);
    }

    /// Appends bytes encoded apart, in the same protocol, whose last field was `last_id`.
    pub(crate) fn raw(&mut self, bytes: &[u8], last_id: i16) {
        self.out.extend_from_slice(bytes);
        self.last_id = last_id;
    }

    /// Bytes encoded apart, as [`Encoder::raw`], that many partitions share under `key`: left
    /// to the splicer when there is one (the engine then keeps them once), else copied.
    pub(crate) fn shared(&mut self, key: PieceKey, bytes: &[u8], last_id: i16) {
        match self.splicer.as_mut() {
            Some(splicer) => splicer.splice(self.out.len(), key, bytes),
            None => self.out.extend_from_slice(bytes),
        }
        self.last_id = last_id;
    }

    /// Appends a whole struct encoded apart, in the same protocol, as a list element (a
    /// struct's bytes do not depend on what surrounds it).
    pub(crate) fn raw_element(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    /// A reply message header for `method`, call `sequence`.
    pub(crate) fn reply_begin(&mut self, method: &str, sequence: i32) {
        self.message_begin(MESSAGE_TYPE_REPLY, method, sequence);
    }

    /// The header of an application error's message; its body is the error's struct.
    pub(crate) fn exception_begin(&mut self, method: &str, sequence: i32) {
        self.message_begin(MESSAGE_TYPE_EXCEPTION, method, sequence);
    }

    fn message_begin(&mut self, message_type: u8, method: &str, sequence: i32) {
        if self.compact {
            self.out.push(COMPACT_PROTOCOL_ID);
            self.out.push(COMPACT_VERSION | (message_type << 5));
            self.varint(u64::from(sequence as u32));
            self.string(method);
        } else {
            self.out
                .extend_from_slice(&(BINARY_VERSION_1 | u32::from(message_type)).to_be_bytes());
            self.string(method);
            self.out.extend_from_slice(&sequence.to_be_bytes());
        }
    }

    pub(crate) fn struct_begin(&mut self) {
        if self.compact {
            self.outer_ids.push(self.last_id);
            self.last_id = 0;
        }
    }

    /// Ends a struct: its stop field, then back to the struct around it.
    pub(crate) fn struct_end(&mut self) {
        self.out.push(0);
        if self.compact {
            self.last_id = self.outer_ids.pop().unwrap_or(0);
        }
    }

    /// The header of field `id`, of any type but bool (see [`Encoder::bool_field`]).
    pub(crate) fn field(&mut self, field_type: TType, id: i16) {
        if self.compact {
            self.compact_field(compact_type(field_type), id);
        } else {
            self.out.push(binary_type(field_type));
            self.out.extend_from_slice(&id.to_be_bytes());
        }
    }

    fn compact_field(&mut self, type_nibble: u8, id: i16) {
        let delta = i32::from(id) - i32::from(self.last_id);
        // The `thrift` crate takes the short form for deltas 1 to 14 (the format allows 15).
        if (1..15).contains(&delta) {
            self.out.push(((delta as u8) << 4) | type_nibble);
        } else {
            self.out.push(type_nibble);
            self.varint(zigzag(i64::from(id)));
        }
        self.last_id = id;
    }

    pub(crate) fn string_field(&mut self, id: i16, value: &str) {
        self.field(TType::String, id);
        self.string(value);
    }

    pub(crate) fn i32_field(&mut self, id: i16, value: i32) {
        self.field(TType::I32, id);
        self.i32(value);
    }

    pub(crate) fn i64_field(&mut self, id: i16, value: i64) {
        if self.compact {
            self.field(TType::I64, id);
            self.varint(zigzag(value));
        } else {
            // One append, not three: statistics replies are mostly these.
            let mut field = [binary_type(TType::I64); 11];
            field[1..3].copy_from_slice(&id.to_be_bytes());
            field[3..].copy_from_slice(&value.to_be_bytes());
            self.out.extend_from_slice(&field);
        }
    }

    pub(crate) fn i16_field(&mut self, id: i16, value: i16) {
        self.field(TType::I16, id);
        if self.compact {
            self.varint(zigzag(i64::from(value)));
        } else {
            self.out.extend_from_slice(&value.to_be_bytes());
        }
    }

    /// A double field: big-endian in binary, little-endian in compact (as the `thrift`
    /// crate writes it).
    pub(crate) fn double_field(&mut self, id: i16, value: f64) {
        self.field(TType::Double, id);
        if self.compact {
            self.out.extend_from_slice(&value.to_le_bytes());
        } else {
            self.out.extend_from_slice(&value.to_be_bytes());
        }
    }

    /// A `binary` field: written as a string of any bytes.
    pub(crate) fn bytes_field(&mut self, id: i16, value: &[u8]) {
        self.field(TType::String, id);
        self.bytes(value);
    }

    pub(crate) fn i8_field(&mut self, id: i16, value: i8) {
        self.field(TType::I08, id);
        self.out.push(value as u8);
    }

    /// A bool field: in compact protocol the value is the field header's type.
    pub(crate) fn bool_field(&mut self, id: i16, value: bool) {
        if self.compact {
            self.compact_field(if value { 1 } else { 2 }, id);
        } else {
            self.out.push(binary_type(TType::Bool));
            self.out.extend_from_slice(&id.to_be_bytes());
            self.out.push(u8::from(value));
        }
    }

    pub(crate) fn string(&mut self, value: &str) {
        self.bytes(value.as_bytes());
    }

    /// A length, then the bytes: a string or a `binary` value.
    pub(crate) fn bytes(&mut self, value: &[u8]) {
        if self.compact {
            self.varint(value.len() as u64);
        } else {
            // Longer strings cannot come from the store: values are bounded well below 2 GiB.
            self.out
                .extend_from_slice(&(value.len() as u32).to_be_bytes());
        }
        self.out.extend_from_slice(value);
    }

    pub(crate) fn i32(&mut self, value: i32) {
        if self.compact {
            self.varint(zigzag(i64::from(value)));
        } else {
            self.out.extend_from_slice(&value.to_be_bytes());
        }
    }

    /// A list header: `count` elements of `element_type` follow.
    pub(crate) fn list_begin(&mut self, element_type: TType, count: usize) -> thrift::Result<()> {
        let count = length(count)?;
        if self.compact {
            let element = compact_type(element_type);
            if count < 15 {
                self.out.push(((count as u8) << 4) | element);
            } else {
                self.out.push(0xf0 | element);
                self.varint(count as u64);
            }
        } else {
            self.out.push(binary_type(element_type));
            self.out.extend_from_slice(&count.to_be_bytes());
        }
        Ok(())
    }

    /// A list of the `count` strings of `strings`.
    pub(crate) fn string_list<'s>(
        &mut self,
        count: usize,
        strings: impl Iterator<Item = &'s str>,
    ) -> thrift::Result<()> {
        self.list_begin(TType::String, count)?;
        for string in strings.take(count) {
            self.string(string);
        }
        Ok(())
    }

    /// A map header: `count` key-value pairs follow.
    pub(crate) fn map_begin(
        &mut self,
        key: TType,
        value: TType,
        count: usize,
    ) -> thrift::Result<()> {
        let count = length(count)?;
        if self.compact {
            if count == 0 {
                self.out.push(0);
            } else {
                self.varint(count as u64);
                self.out
                    .push((compact_type(key) << 4) | compact_type(value));
            }
        } else {
            self.out.push(binary_type(key));
            self.out.push(binary_type(value));
            self.out.extend_from_slice(&count.to_be_bytes());
        }
        Ok(())
    }

    /// Field `id` holding `value`, written by its generated code: for parts too rare to be
    /// worth writing by hand. A struct's bytes do not depend on what surrounds it.
    pub(crate) fn generated_struct_field<T: TSerializable>(
        &mut self,
        id: i16,
        value: &T,
    ) -> thrift::Result<()> {
        self.field(TType::Struct, id);
        let mut protocol: Box<dyn TOutputProtocol + '_> = if self.compact {
            Box::new(TCompactOutputProtocol::new(&mut *self.out))
        } else {
            Box::new(TBinaryOutputProtocol::new(&mut *self.out, true))
        };
        value.write_to_out_protocol(&mut *protocol)
    }

    /// Built on the stack and appended once (a `push` per byte checks capacity each time).
    fn varint(&mut self, mut value: u64) {
        let mut bytes = [0u8; 10];
        let mut length = 0;
        while value >= 0x80 {
            bytes[length] = (value as u8) | 0x80;
            value >>= 7;
            length += 1;
        }
        bytes[length] = value as u8;
        self.out.extend_from_slice(&bytes[..=length]);
    }
}

fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

fn length(count: usize) -> thrift::Result<i32> {
    i32::try_from(count).map_err(|_| {
        thrift::Error::Protocol(thrift::ProtocolError::new(
            thrift::ProtocolErrorKind::SizeLimit,
            format!("a collection of {count} elements is too long for Thrift"),
        ))
    })
}

/// The binary protocol's type byte.
fn binary_type(field_type: TType) -> u8 {
    match field_type {
        TType::Stop => 0,
        TType::Void => 1,
        TType::Bool => 2,
        TType::I08 => 3,
        TType::Double => 4,
        TType::I16 => 6,
        TType::I32 => 8,
        TType::I64 => 10,
        TType::String | TType::Utf7 => 11,
        TType::Struct => 12,
        TType::Map => 13,
        TType::Set => 14,
        TType::List => 15,
        TType::Uuid => 16,
    }
}

/// The compact protocol's type nibble (bool elements: 1, as the `thrift` crate writes them).
fn compact_type(field_type: TType) -> u8 {
    match field_type {
        TType::Stop | TType::Void => 0,
        TType::Bool => 1,
        TType::I08 => 3,
        TType::I16 => 4,
        TType::I32 => 5,
        TType::I64 => 6,
        TType::Double => 7,
        TType::String | TType::Utf7 => 8,
        TType::List => 9,
        TType::Set => 10,
        TType::Map => 11,
        TType::Struct => 12,
        TType::Uuid => 13,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use thrift::protocol::{
        TFieldIdentifier, TListIdentifier, TMapIdentifier, TMessageIdentifier, TMessageType,
        TStructIdentifier,
    };

    use super::*;

    /// One value of a reply, as both writers can write it.
    #[derive(Debug, Clone)]
    enum Element {
        Header(String, i32),
        StructBegin,
        StructEnd,
        StringField(i16, String),
        I32Field(i16, i32),
        I64Field(i16, i64),
        I8Field(i16, i8),
        I16Field(i16, i16),
        DoubleField(i16, f64),
        BytesField(i16, Vec<u8>),
        BoolField(i16, bool),
        StringList(i16, Vec<String>),
        StringMap(i16, Vec<(String, String)>),
    }

    fn element() -> impl Strategy<Value = Element> {
        let id = 0i16..400;
        prop_oneof![
            ("[a-z_]{0,20}", any::<i32>()).prop_map(|(name, seq)| Element::Header(name, seq)),
            Just(Element::StructBegin),
            Just(Element::StructEnd),
            (id.clone(), ".{0,8}").prop_map(|(id, value)| Element::StringField(id, value)),
            (id.clone(), any::<i32>()).prop_map(|(id, value)| Element::I32Field(id, value)),
            (id.clone(), any::<i64>()).prop_map(|(id, value)| Element::I64Field(id, value)),
            (id.clone(), any::<i8>()).prop_map(|(id, value)| Element::I8Field(id, value)),
            (id.clone(), any::<i16>()).prop_map(|(id, value)| Element::I16Field(id, value)),
            (id.clone(), any::<f64>()).prop_map(|(id, value)| Element::DoubleField(id, value)),
            (id.clone(), prop::collection::vec(any::<u8>(), 0..8))
                .prop_map(|(id, value)| Element::BytesField(id, value)),
            (id.clone(), any::<bool>()).prop_map(|(id, value)| Element::BoolField(id, value)),
            (id.clone(), prop::collection::vec(".{0,4}", 0..20))
                .prop_map(|(id, values)| Element::StringList(id, values)),
            (id, prop::collection::vec((".{0,4}", ".{0,4}"), 0..20))
                .prop_map(|(id, pairs)| Element::StringMap(id, pairs)),
        ]
    }

    fn field(o: &mut dyn TOutputProtocol, field_type: TType, id: i16) {
        o.write_field_begin(&TFieldIdentifier::new::<Option<String>, String, i16>(
            None, field_type, id,
        ))
        .unwrap();
    }

    fn through_thrift(elements: &[Element], o: &mut dyn TOutputProtocol) {
        let mut depth = 0;
        for element in elements {
            match element {
                Element::Header(name, seq) => o
                    .write_message_begin(&TMessageIdentifier::new(
                        name.clone(),
                        TMessageType::Reply,
                        *seq,
                    ))
                    .unwrap(),
                Element::StructBegin => {
                    depth += 1;
                    o.write_struct_begin(&TStructIdentifier::new("s")).unwrap()
                }
                Element::StructEnd if depth > 0 => {
                    depth -= 1;
                    o.write_field_stop().unwrap();
                    o.write_struct_end().unwrap()
                }
                Element::StructEnd => {}
                Element::StringField(id, value) => {
                    field(o, TType::String, *id);
                    o.write_string(value).unwrap();
                }
                Element::I32Field(id, value) => {
                    field(o, TType::I32, *id);
                    o.write_i32(*value).unwrap();
                }
                Element::I64Field(id, value) => {
                    field(o, TType::I64, *id);
                    o.write_i64(*value).unwrap();
                }
                Element::I8Field(id, value) => {
                    field(o, TType::I08, *id);
                    o.write_i8(*value).unwrap();
                }
                Element::I16Field(id, value) => {
                    field(o, TType::I16, *id);
                    o.write_i16(*value).unwrap();
                }
                Element::DoubleField(id, value) => {
                    field(o, TType::Double, *id);
                    o.write_double(*value).unwrap();
                }
                Element::BytesField(id, value) => {
                    field(o, TType::String, *id);
                    o.write_bytes(value).unwrap();
                }
                Element::BoolField(id, value) => {
                    field(o, TType::Bool, *id);
                    o.write_bool(*value).unwrap();
                }
                Element::StringList(id, values) => {
                    field(o, TType::List, *id);
                    let count = values.len() as i32;
                    o.write_list_begin(&TListIdentifier::new(TType::String, count))
                        .unwrap();
                    values
                        .iter()
                        .for_each(|value| o.write_string(value).unwrap());
                }
                Element::StringMap(id, pairs) => {
                    field(o, TType::Map, *id);
                    let count = pairs.len() as i32;
                    o.write_map_begin(&TMapIdentifier::new(TType::String, TType::String, count))
                        .unwrap();
                    for (key, value) in pairs {
                        o.write_string(key).unwrap();
                        o.write_string(value).unwrap();
                    }
                }
            }
        }
    }

    fn through_encoder(elements: &[Element], o: &mut Encoder<'_>) {
        let mut depth = 0;
        for element in elements {
            match element {
                Element::Header(name, seq) => o.reply_begin(name, *seq),
                Element::StructBegin => {
                    depth += 1;
                    o.struct_begin()
                }
                Element::StructEnd if depth > 0 => {
                    depth -= 1;
                    o.struct_end()
                }
                Element::StructEnd => {}
                Element::StringField(id, value) => o.string_field(*id, value),
                Element::I32Field(id, value) => o.i32_field(*id, *value),
                Element::I64Field(id, value) => o.i64_field(*id, *value),
                Element::I8Field(id, value) => o.i8_field(*id, *value),
                Element::I16Field(id, value) => o.i16_field(*id, *value),
                Element::DoubleField(id, value) => o.double_field(*id, *value),
                Element::BytesField(id, value) => o.bytes_field(*id, value),
                Element::BoolField(id, value) => o.bool_field(*id, *value),
                Element::StringList(id, values) => {
                    o.field(TType::List, *id);
                    o.string_list(values.len(), values.iter().map(String::as_str))
                        .unwrap();
                }
                Element::StringMap(id, pairs) => {
                    o.field(TType::Map, *id);
                    o.map_begin(TType::String, TType::String, pairs.len())
                        .unwrap();
                    for (key, value) in pairs {
                        o.string(key);
                        o.string(value);
                    }
                }
            }
        }
    }

    proptest! {
        /// Whatever sequence of values, the encoder writes the bytes the `thrift` crate's
        /// protocols write, in binary and in compact.
        #[test]
        fn the_encoder_writes_what_the_thrift_protocols_write(
            elements in prop::collection::vec(element(), 0..40),
            compact in any::<bool>(),
        ) {
            let mut expected = Vec::new();
            if compact {
                through_thrift(&elements, &mut TCompactOutputProtocol::new(&mut expected));
            } else {
                through_thrift(&elements, &mut TBinaryOutputProtocol::new(&mut expected, true));
            }
            let mut written = Vec::new();
            let protocol = if compact { Protocol::Compact } else { Protocol::Binary };
            through_encoder(&elements, &mut Encoder::new(&mut written, protocol));
            prop_assert_eq!(written, expected);
        }
    }
}
