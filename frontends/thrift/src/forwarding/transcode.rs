//! One Thrift message rewritten from one protocol to the other, value by value: a compact
//! client's call goes upstream in the binary protocol, and the upstream's reply comes back
//! compact.

use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
    TInputProtocol, TListIdentifier, TMapIdentifier, TOutputProtocol, TSetIdentifier,
    TStructIdentifier, TType,
};
use thrift::TConfiguration;

use crate::detect::Protocol;

/// How deep structs and containers may nest in a message rewritten (Thrift's own skip depth).
pub const TRANSCODE_DEPTH_MAX: usize = 64;

/// `message`, one whole message in `from`, rewritten in `to` and appended to `out`.
pub fn transcode(
    message: &[u8],
    from: Protocol,
    to: Protocol,
    out: &mut Vec<u8>,
) -> thrift::Result<()> {
    // Nothing in a message is longer than the message.
    let config = TConfiguration::builder()
        .max_message_size(Some(message.len()))
        .max_frame_size(Some(message.len()))
        .max_string_size(Some(message.len()))
        .max_container_size(Some(message.len()))
        .build()?;
    let mut input: Box<dyn TInputProtocol + '_> = match from {
        Protocol::Binary => Box::new(TBinaryInputProtocol::with_config(message, false, config)),
        Protocol::Compact => Box::new(TCompactInputProtocol::with_config(message, config)),
    };
    let mut output: Box<dyn TOutputProtocol + '_> = match to {
        Protocol::Binary => Box::new(TBinaryOutputProtocol::new(out, true)),
        Protocol::Compact => Box::new(TCompactOutputProtocol::new(out)),
    };
    let header = input.read_message_begin()?;
    output.write_message_begin(&header)?;
    copy(&mut *input, &mut *output, TType::Struct, 0)?;
    input.read_message_end()?;
    output.write_message_end()?;
    output.flush()
}

fn copy(
    input: &mut dyn TInputProtocol,
    output: &mut dyn TOutputProtocol,
    kind: TType,
    depth: usize,
) -> thrift::Result<()> {
    if depth >= TRANSCODE_DEPTH_MAX {
        return Err(thrift::Error::Protocol(thrift::ProtocolError::new(
            thrift::ProtocolErrorKind::DepthLimit,
            format!("values nested deeper than {TRANSCODE_DEPTH_MAX}"),
        )));
    }
    match kind {
        TType::Bool => output.write_bool(input.read_bool()?),
        TType::I08 => output.write_i8(input.read_i8()?),
        TType::I16 => output.write_i16(input.read_i16()?),
        TType::I32 => output.write_i32(input.read_i32()?),
        TType::I64 => output.write_i64(input.read_i64()?),
        TType::Double => output.write_double(input.read_double()?),
        TType::String => output.write_bytes(&input.read_bytes()?),
        TType::Uuid => output.write_uuid(&input.read_uuid()?),
        TType::Struct => {
            input.read_struct_begin()?;
            output.write_struct_begin(&TStructIdentifier::new("struct"))?;
            loop {
                let field = input.read_field_begin()?;
                if field.field_type == TType::Stop {
                    break;
                }
                output.write_field_begin(&field)?;
                copy(input, output, field.field_type, depth + 1)?;
                input.read_field_end()?;
                output.write_field_end()?;
            }
            input.read_struct_end()?;
            output.write_field_stop()?;
            output.write_struct_end()
        }
        TType::List => {
            let list = input.read_list_begin()?;
            output.write_list_begin(&TListIdentifier::new(list.element_type, list.size))?;
            for _ in 0..list.size {
                copy(input, output, list.element_type, depth + 1)?;
            }
            input.read_list_end()?;
            output.write_list_end()
        }
        TType::Set => {
            let set = input.read_set_begin()?;
            output.write_set_begin(&TSetIdentifier::new(set.element_type, set.size))?;
            for _ in 0..set.size {
                copy(input, output, set.element_type, depth + 1)?;
            }
            input.read_set_end()?;
            output.write_set_end()
        }
        TType::Map => {
            let map = input.read_map_begin()?;
            // The compact protocol writes no types for an empty map; the binary one needs some.
            let key = map.key_type.unwrap_or(TType::String);
            let value = map.value_type.unwrap_or(TType::String);
            output.write_map_begin(&TMapIdentifier::new(key, value, map.size))?;
            for _ in 0..map.size {
                copy(input, output, key, depth + 1)?;
                copy(input, output, value, depth + 1)?;
            }
            input.read_map_end()?;
            output.write_map_end()
        }
        TType::Stop | TType::Void | TType::Utf7 => {
            Err(thrift::Error::Protocol(thrift::ProtocolError::new(
                thrift::ProtocolErrorKind::InvalidData,
                format!("a value of type {kind} cannot be rewritten"),
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hivestore_idl::hive_metastore::{Database, FieldSchema};
    use thrift::protocol::{TMessageIdentifier, TMessageType, TSerializable};

    fn encoded(protocol: Protocol) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut output: Box<dyn TOutputProtocol + '_> = match protocol {
            Protocol::Binary => Box::new(TBinaryOutputProtocol::new(&mut bytes, true)),
            Protocol::Compact => Box::new(TCompactOutputProtocol::new(&mut bytes)),
        };
        let header = TMessageIdentifier::new("create_database", TMessageType::Call, 7);
        output.write_message_begin(&header).unwrap();
        output
            .write_struct_begin(&TStructIdentifier::new("args"))
            .unwrap();
        output
            .write_field_begin(&thrift::protocol::TFieldIdentifier::new(
                "database",
                TType::Struct,
                1,
            ))
            .unwrap();
        let database = Database {
            name: Some("d".into()),
            description: Some("é".into()),
            location_uri: None,
            parameters: Some(Default::default()),
            privileges: None,
            owner_name: Some("alice".into()),
            owner_type: None,
            catalog_name: None,
            create_time: Some(3),
            managed_location_uri: None,
            type_: None,
            connector_name: None,
            remote_dbname: None,
        };
        database.write_to_out_protocol(&mut *output).unwrap();
        output.write_field_end().unwrap();
        let columns = [FieldSchema {
            name: Some("c".into()),
            type_: Some("int".into()),
            comment: None,
        }];
        output
            .write_field_begin(&thrift::protocol::TFieldIdentifier::new(
                "columns",
                TType::List,
                2,
            ))
            .unwrap();
        output
            .write_list_begin(&TListIdentifier::new(TType::Struct, 1))
            .unwrap();
        columns[0].write_to_out_protocol(&mut *output).unwrap();
        output.write_list_end().unwrap();
        output.write_field_end().unwrap();
        output
            .write_field_begin(&thrift::protocol::TFieldIdentifier::new(
                "flag",
                TType::Bool,
                3,
            ))
            .unwrap();
        output.write_bool(true).unwrap();
        output.write_field_end().unwrap();
        output.write_field_stop().unwrap();
        output.write_struct_end().unwrap();
        output.write_message_end().unwrap();
        output.flush().unwrap();
        drop(output);
        bytes
    }

    #[test]
    fn a_message_rewritten_either_way_is_the_one_written_in_that_protocol() {
        let binary = encoded(Protocol::Binary);
        let compact = encoded(Protocol::Compact);
        let mut rewritten = Vec::new();
        transcode(
            &compact,
            Protocol::Compact,
            Protocol::Binary,
            &mut rewritten,
        )
        .unwrap();
        assert_eq!(rewritten, binary);
        rewritten.clear();
        transcode(&binary, Protocol::Binary, Protocol::Compact, &mut rewritten).unwrap();
        assert_eq!(rewritten, compact);
    }

    #[test]
    fn a_cut_message_is_refused() {
        let binary = encoded(Protocol::Binary);
        let mut rewritten = Vec::new();
        let cut = &binary[..binary.len() - 3];
        assert!(transcode(cut, Protocol::Binary, Protocol::Compact, &mut rewritten).is_err());
    }
}
