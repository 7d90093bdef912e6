//! Requests encoded before the timed loop and sent as bytes, so that a sample times the call
//! (sending, the server's work, the reply) and not the client's encoding of a big request.
//!
//! The bytes are what the generated client writes for the same arguments: the message header
//! through the protocol, the arguments through the generated structs' own encoders. Only the
//! reply's reading is ours, for the one call that uses this (`add_partitions`).

use std::io::{BufReader, Write};

use hivestore_idl::hive_metastore::{
    AlreadyExistsException, InvalidObjectException, MetaException, Partition,
};
use thrift::protocol::{
    TBinaryOutputProtocol, TCompactOutputProtocol, TFieldIdentifier, TInputProtocol,
    TListIdentifier, TMessageIdentifier, TMessageType, TOutputProtocol, TSerializable,
    TStructIdentifier, TType,
};
use thrift::{ApplicationError, ApplicationErrorKind};

use crate::endpoint::{
    input_protocol, CountingRead, Endpoint, ReplyBytes, Socket, SOCKET_BUFFER_BYTES,
};
use crate::error::Error;

/// The sequence id every encoded request carries; one call is in flight at a time.
const SEQUENCE_ID: i32 = 1;

/// A connection of its own for requests encoded beforehand.
pub struct EncodedCallConnection {
    write: Socket,
    input: Box<dyn TInputProtocol + Send>,
    framed: bool,
    compact: bool,
}

impl EncodedCallConnection {
    /// Connects to `endpoint`; the replies' bytes are added to `reply_bytes`.
    pub fn connect(endpoint: &Endpoint, reply_bytes: ReplyBytes) -> Result<Self, Error> {
        let (write, read) = endpoint.open_stream()?;
        let read = CountingRead::new(read, reply_bytes, endpoint.call_timeout);
        let buffered = BufReader::with_capacity(SOCKET_BUFFER_BYTES, read);
        Ok(EncodedCallConnection {
            write,
            input: input_protocol(buffered, endpoint.framed, endpoint.compact),
            framed: endpoint.framed,
            compact: endpoint.compact,
        })
    }

    /// The bytes of an `add_partitions(new_parts)` call in this connection's format.
    pub fn encode_add_partitions(&self, partitions: &[Partition]) -> thrift::Result<Vec<u8>> {
        encode_add_partitions(partitions, self.framed, self.compact)
    }

    /// Sends `request` (from [`Self::encode_add_partitions`]) and reads its reply: the count of
    /// partitions added, or the error the server answered.
    pub fn add_partitions(&mut self, request: &[u8]) -> thrift::Result<i32> {
        self.write.write_all(request)?;
        let input = &mut *self.input;
        let header = input.read_message_begin()?;
        if header.sequence_number != SEQUENCE_ID || header.name != "add_partitions" {
            return Err(protocol_error(format!(
                "a reply to {} (sequence {}) where add_partitions (sequence {SEQUENCE_ID}) was asked",
                header.name, header.sequence_number
            )));
        }
        if header.message_type == TMessageType::Exception {
            let error = thrift::Error::read_application_error_from_in_protocol(input)?;
            input.read_message_end()?;
            return Err(thrift::Error::Application(error));
        }
        let result = read_add_partitions_result(input);
        input.read_message_end()?;
        result
    }
}

/// The bytes the generated client sends for `add_partitions(partitions)` (sequence id
/// `SEQUENCE_ID`), in the format given.
pub fn encode_add_partitions(
    partitions: &[Partition],
    framed: bool,
    compact: bool,
) -> thrift::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if framed {
        bytes.extend_from_slice(&[0; 4]);
    }
    if compact {
        write_add_partitions(&mut TCompactOutputProtocol::new(&mut bytes), partitions)?;
    } else {
        write_add_partitions(
            &mut TBinaryOutputProtocol::new(&mut bytes, true),
            partitions,
        )?;
    }
    if framed {
        let length = i32::try_from(bytes.len() - 4).map_err(|_| {
            thrift::Error::Application(ApplicationError::new(
                ApplicationErrorKind::Unknown,
                "a request larger than a frame can carry",
            ))
        })?;
        bytes[..4].copy_from_slice(&length.to_be_bytes());
    }
    Ok(bytes)
}

fn write_add_partitions(
    o: &mut dyn TOutputProtocol,
    partitions: &[Partition],
) -> thrift::Result<()> {
    let header = TMessageIdentifier::new("add_partitions", TMessageType::Call, SEQUENCE_ID);
    o.write_message_begin(&header)?;
    o.write_struct_begin(&TStructIdentifier::new("add_partitions_args"))?;
    o.write_field_begin(&TFieldIdentifier::new("new_parts", TType::List, 1))?;
    let count = i32::try_from(partitions.len())
        .map_err(|_| protocol_error("too many partitions for one list".to_string()))?;
    o.write_list_begin(&TListIdentifier::new(TType::Struct, count))?;
    for partition in partitions {
        partition.write_to_out_protocol(o)?;
    }
    o.write_list_end()?;
    o.write_field_end()?;
    o.write_field_stop()?;
    o.write_struct_end()?;
    o.write_message_end()?;
    o.flush()
}

/// The result struct of `add_partitions`: `success` (0), or `o1`..`o3` (its declared exceptions).
fn read_add_partitions_result(input: &mut dyn TInputProtocol) -> thrift::Result<i32> {
    let mut outcome = Err(protocol_error(
        "an add_partitions reply with neither a count nor an exception".to_string(),
    ));
    input.read_struct_begin()?;
    loop {
        let field = input.read_field_begin()?;
        if field.field_type == TType::Stop {
            break;
        }
        outcome = match (field.id, field.field_type) {
            (Some(0), TType::I32) => Ok(input.read_i32()?),
            (Some(1), TType::Struct) => {
                Err(user(InvalidObjectException::read_from_in_protocol(input)?))
            }
            (Some(2), TType::Struct) => {
                Err(user(AlreadyExistsException::read_from_in_protocol(input)?))
            }
            (Some(3), TType::Struct) => Err(user(MetaException::read_from_in_protocol(input)?)),
            _ => {
                input.skip(field.field_type)?;
                outcome
            }
        };
        input.read_field_end()?;
    }
    input.read_struct_end()?;
    outcome
}

fn user(exception: impl std::error::Error + Send + Sync + 'static) -> thrift::Error {
    thrift::Error::User(Box::new(exception))
}

fn protocol_error(message: String) -> thrift::Error {
    thrift::Error::Protocol(thrift::ProtocolError::new(
        thrift::ProtocolErrorKind::InvalidData,
        message,
    ))
}

#[cfg(test)]
mod tests {
    use std::io::{self, Write};
    use std::sync::{Arc, Mutex};

    use hivestore_idl::hive_metastore::{
        TThriftHiveMetastoreSyncClient, ThriftHiveMetastoreSyncClient,
    };
    use thrift::protocol::{TBinaryInputProtocol, TCompactInputProtocol};
    use thrift::transport::TFramedWriteTransport;

    use super::*;
    use crate::partition_table::{partition, partitioned_table};

    /// A writer whose bytes the test reads after the client is done with it.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// What the generated client writes for `add_partitions(partitions)` as its first call
    /// (sequence id 1); its reading of the (absent) reply fails, which is not looked at.
    fn generated(partitions: Vec<Partition>, framed: bool, compact: bool) -> Vec<u8> {
        let written = Shared::default();
        let empty: &'static [u8] = &[];
        let output: Box<dyn TOutputProtocol> = match (compact, framed) {
            (false, false) => Box::new(TBinaryOutputProtocol::new(written.clone(), true)),
            (false, true) => Box::new(TBinaryOutputProtocol::new(
                TFramedWriteTransport::new(written.clone()),
                true,
            )),
            (true, false) => Box::new(TCompactOutputProtocol::new(written.clone())),
            (true, true) => Box::new(TCompactOutputProtocol::new(TFramedWriteTransport::new(
                written.clone(),
            ))),
        };
        let input: Box<dyn TInputProtocol> = if compact {
            Box::new(TCompactInputProtocol::new(empty))
        } else {
            Box::new(TBinaryInputProtocol::new(empty, true))
        };
        let mut client = ThriftHiveMetastoreSyncClient::new(input, output);
        assert!(
            client.add_partitions(partitions).is_err(),
            "no reply to read"
        );
        let bytes = written.0.lock().unwrap().clone();
        bytes
    }

    #[test]
    fn encoded_requests_are_the_generated_clients_bytes_in_every_format() {
        let table = partitioned_table("db", "t");
        let partitions: Vec<Partition> = (0..3).map(|index| partition(&table, index)).collect();
        for (framed, compact) in [(false, false), (true, false), (false, true), (true, true)] {
            let encoded = encode_add_partitions(&partitions, framed, compact).unwrap();
            assert_eq!(
                encoded,
                generated(partitions.clone(), framed, compact),
                "framed {framed}, compact {compact}"
            );
        }
    }
}
