//! Thrift's JSON protocol (`TJSONProtocol`), write side only, and plain JSON text.
//!
//! Hive's notification messages carry Thrift objects (`tableObjJson`, `partitionListJson`,
//! ...) as the text `TSerializer(new TJSONProtocol.Factory())` makes of them; consumers read
//! them back with Thrift's JSON reader. The `thrift` crate has no JSON protocol, so this is
//! one: a struct is an object of fields keyed by field id, each field an object of its type
//! name and value (`{"1":{"str":"t"},"2":{"i32":7}}`); a list is `["<type>",<count>,...]`; a
//! map is `["<key type>","<value type>",<count>,{...}]`; booleans are 1 and 0; binary is
//! base64 without padding. Numbers in key position are quoted, as JSON requires.

use thrift::protocol::{
    TFieldIdentifier, TListIdentifier, TMapIdentifier, TMessageIdentifier, TOutputProtocol,
    TSerializable, TSetIdentifier, TStructIdentifier, TType,
};

/// How deep structures may nest before the writer refuses (Hive objects nest a few levels).
const NESTING_DEPTH_MAX: usize = 64;

/// Where the writer is: what separates the next value from the previous one.
#[derive(Debug, Clone, Copy)]
enum Context {
    /// The top level: one value.
    Top,
    /// Inside `[...]`: values separated by `,`; `first` until the first is written.
    List { first: bool },
    /// Inside `{...}`: keys and values alternating, `:` after a key, `,` after a value.
    Object { first: bool, at_key: bool },
}

/// A one-way `TJSONProtocol` writing into a string.
pub struct JsonOutputProtocol {
    text: String,
    contexts: Vec<Context>,
}

impl JsonOutputProtocol {
    fn new() -> Self {
        JsonOutputProtocol {
            text: String::new(),
            contexts: vec![Context::Top],
        }
    }

    /// Writes the separator the current context needs; answers whether the value is a key.
    fn separate(&mut self) -> bool {
        let Some(context) = self.contexts.last_mut() else {
            return false;
        };
        match context {
            Context::Top => false,
            Context::List { first } => {
                if !*first {
                    self.text.push(',');
                }
                *first = false;
                false
            }
            Context::Object { first, at_key } => {
                let is_key = *at_key;
                if !*first {
                    self.text.push(if is_key { ',' } else { ':' });
                }
                *first = false;
                *at_key = !is_key;
                is_key
            }
        }
    }

    fn open(&mut self, bracket: char, context: Context) -> thrift::Result<()> {
        if self.contexts.len() >= NESTING_DEPTH_MAX {
            return Err(thrift::Error::Protocol(thrift::ProtocolError::new(
                thrift::ProtocolErrorKind::DepthLimit,
                "a Thrift object nests too deep for JSON",
            )));
        }
        self.separate();
        self.text.push(bracket);
        self.contexts.push(context);
        Ok(())
    }

    fn close(&mut self, bracket: char) {
        self.contexts.pop();
        self.text.push(bracket);
    }

    fn string(&mut self, value: &str) {
        self.separate();
        push_json_string(&mut self.text, value);
    }

    fn number(&mut self, value: impl std::fmt::Display) {
        let quoted = self.separate();
        if quoted {
            self.text.push('"');
        }
        self.text.push_str(&value.to_string());
        if quoted {
            self.text.push('"');
        }
    }
}

/// The JSON protocol's name of a type.
fn type_name(field_type: TType) -> &'static str {
    match field_type {
        TType::Bool => "tf",
        TType::I08 => "i8",
        TType::I16 => "i16",
        TType::I32 => "i32",
        TType::I64 => "i64",
        TType::Double => "dbl",
        TType::Struct => "rec",
        TType::Map => "map",
        TType::Set => "set",
        TType::List => "lst",
        TType::Uuid => "uid",
        _ => "str",
    }
}

impl TOutputProtocol for JsonOutputProtocol {
    fn write_message_begin(&mut self, _identifier: &TMessageIdentifier) -> thrift::Result<()> {
        Err(thrift::Error::Protocol(thrift::ProtocolError::new(
            thrift::ProtocolErrorKind::NotImplemented,
            "the JSON writer writes objects, not messages",
        )))
    }

    fn write_message_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn write_struct_begin(&mut self, _identifier: &TStructIdentifier) -> thrift::Result<()> {
        self.open(
            '{',
            Context::Object {
                first: true,
                at_key: true,
            },
        )
    }

    fn write_struct_end(&mut self) -> thrift::Result<()> {
        self.close('}');
        Ok(())
    }

    fn write_field_begin(&mut self, identifier: &TFieldIdentifier) -> thrift::Result<()> {
        self.number(identifier.id.unwrap_or_default());
        self.open(
            '{',
            Context::Object {
                first: true,
                at_key: true,
            },
        )?;
        self.string(type_name(identifier.field_type));
        Ok(())
    }

    fn write_field_end(&mut self) -> thrift::Result<()> {
        self.close('}');
        Ok(())
    }

    fn write_field_stop(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn write_bool(&mut self, b: bool) -> thrift::Result<()> {
        self.number(u8::from(b));
        Ok(())
    }

    fn write_bytes(&mut self, b: &[u8]) -> thrift::Result<()> {
        self.separate();
        self.text.push('"');
        push_base64(&mut self.text, b);
        self.text.push('"');
        Ok(())
    }

    fn write_i8(&mut self, i: i8) -> thrift::Result<()> {
        self.number(i);
        Ok(())
    }

    fn write_i16(&mut self, i: i16) -> thrift::Result<()> {
        self.number(i);
        Ok(())
    }

    fn write_i32(&mut self, i: i32) -> thrift::Result<()> {
        self.number(i);
        Ok(())
    }

    fn write_i64(&mut self, i: i64) -> thrift::Result<()> {
        self.number(i);
        Ok(())
    }

    fn write_double(&mut self, d: f64) -> thrift::Result<()> {
        // Java writes special values as quoted names.
        if d.is_nan() {
            self.string("NaN");
        } else if d.is_infinite() {
            self.string(if d > 0.0 { "Infinity" } else { "-Infinity" });
        } else {
            self.number(java_double(d));
        }
        Ok(())
    }

    fn write_uuid(&mut self, uuid: &uuid::Uuid) -> thrift::Result<()> {
        self.string(&uuid.to_string());
        Ok(())
    }

    fn write_string(&mut self, s: &str) -> thrift::Result<()> {
        self.string(s);
        Ok(())
    }

    fn write_list_begin(&mut self, identifier: &TListIdentifier) -> thrift::Result<()> {
        self.open('[', Context::List { first: true })?;
        self.string(type_name(identifier.element_type));
        self.number(identifier.size);
        Ok(())
    }

    fn write_list_end(&mut self) -> thrift::Result<()> {
        self.close(']');
        Ok(())
    }

    fn write_set_begin(&mut self, identifier: &TSetIdentifier) -> thrift::Result<()> {
        self.open('[', Context::List { first: true })?;
        self.string(type_name(identifier.element_type));
        self.number(identifier.size);
        Ok(())
    }

    fn write_set_end(&mut self) -> thrift::Result<()> {
        self.close(']');
        Ok(())
    }

    fn write_map_begin(&mut self, identifier: &TMapIdentifier) -> thrift::Result<()> {
        self.open('[', Context::List { first: true })?;
        self.string(type_name(identifier.key_type.unwrap_or(TType::String)));
        self.string(type_name(identifier.value_type.unwrap_or(TType::String)));
        self.number(identifier.size);
        self.open(
            '{',
            Context::Object {
                first: true,
                at_key: true,
            },
        )
    }

    fn write_map_end(&mut self) -> thrift::Result<()> {
        self.close('}');
        self.close(']');
        Ok(())
    }

    fn flush(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn write_byte(&mut self, b: u8) -> thrift::Result<()> {
        self.number(b);
        Ok(())
    }
}

/// `object` as Thrift's JSON protocol writes it.
pub fn to_tjson<T: TSerializable>(object: &T) -> thrift::Result<String> {
    let mut protocol = JsonOutputProtocol::new();
    object.write_to_out_protocol(&mut protocol)?;
    Ok(protocol.text)
}

/// A double as Java prints it closely enough for any JSON reader: integral values keep a
/// `.0`.
fn java_double(d: f64) -> String {
    if d.fract() == 0.0 && d.abs() < 1e16 {
        format!("{d:.1}")
    } else {
        format!("{d}")
    }
}

/// Appends `value` as a JSON string: quotes, backslashes and control characters escaped.
pub fn push_json_string(text: &mut String, value: &str) {
    text.push('"');
    for ch in value.chars() {
        match ch {
            '"' => text.push_str("\\\""),
            '\\' => text.push_str("\\\\"),
            '\n' => text.push_str("\\n"),
            '\r' => text.push_str("\\r"),
            '\t' => text.push_str("\\t"),
            '\u{08}' => text.push_str("\\b"),
            '\u{0C}' => text.push_str("\\f"),
            ch if u32::from(ch) < 0x20 => text.push_str(&format!("\\u{:04x}", u32::from(ch))),
            ch => text.push(ch),
        }
    }
    text.push('"');
}

const BASE64_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Appends `bytes` in base64 without padding, as Thrift's JSON protocol writes binary.
fn push_base64(text: &mut String, bytes: &[u8]) {
    for group in bytes.chunks(3) {
        let word = group.iter().enumerate().fold(0u32, |word, (index, byte)| {
            word | u32::from(*byte) << (16 - 8 * index)
        });
        for index in 0..=group.len() {
            let sextet = (word >> (18 - 6 * index)) & 0x3F;
            text.push(char::from(BASE64_ALPHABET[sextet as usize]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hivestore_idl::hive_metastore as idl;

    #[test]
    fn structs_lists_and_maps_take_thrifts_json_shape() {
        let schema = idl::FieldSchema {
            name: Some("a\"b".to_string()),
            type_: Some("int".to_string()),
            comment: None,
        };
        assert_eq!(
            to_tjson(&schema).unwrap(),
            r#"{"1":{"str":"a\"b"},"2":{"str":"int"}}"#
        );
        let order = idl::Order {
            col: Some("c".to_string()),
            order: Some(1),
        };
        assert_eq!(
            to_tjson(&order).unwrap(),
            r#"{"1":{"str":"c"},"2":{"i32":1}}"#
        );
        let serde = idl::SerDeInfo {
            name: None,
            serialization_lib: None,
            parameters: Some([("k".to_string(), "v".to_string())].into()),
            description: None,
            serializer_class: None,
            deserializer_class: None,
            serde_type: None,
        };
        assert_eq!(
            to_tjson(&serde).unwrap(),
            r#"{"3":{"map":["str","str",1,{"k":"v"}]}}"#
        );
    }

    #[test]
    fn binary_is_base64_without_padding() {
        let mut text = String::new();
        push_base64(&mut text, b"Man");
        push_base64(&mut text, b"Ma");
        push_base64(&mut text, b"M");
        assert_eq!(text, "TWFuTWETQ");
    }
}
