//! `add_partitions` and `add_partitions_req`, the biggest requests, read from the message's
//! bytes straight into the engine's partitions (`partition_decode.rs`) instead of into the
//! generated structs first. `calls::partitions` then adds them as it adds those the generated
//! decoder read, and the reply (success or Hive's exception) is written here as the generated
//! processor writes it.
//!
//! Binary protocol only; a compact request, or one holding anything unusual, is declined before
//! anything was done, and the generated processor answers it. An unframed request is read as it
//! arrives (`answer_arriving`), a partition at a time, without the message walk before it.

use hivestore_engine as engine;

use super::partition_decode::{partition, DescriptorMemo};
use super::wire::Encoder;
use super::wire_reader::{
    Pass, Read, Unusual, WireLimits, MESSAGE_CALL, RESERVED_ELEMENTS_MAX, T_BOOL, T_LIST, T_STRING,
    T_STRUCT,
};
use super::{write_failure_after_acting, Answer};
use crate::calls::partitions::{add_decoded, add_req_result, PartitionsToAdd, TableName};
use crate::detect::Protocol;
use crate::limits::Limits;
use crate::message::{Arriving, ReadError};
use crate::service::Session;

/// Answers `add_partitions` or `add_partitions_req` from `message`, or declines it.
pub(super) fn answer(
    method: &'static str,
    sequence: i32,
    message: &[u8],
    protocol: Protocol,
    reply: &mut Vec<u8>,
    session: &Session,
) -> thrift::Result<Answer> {
    if protocol != Protocol::Binary {
        return Ok(Answer::Declined);
    }
    let Ok(request) = decode(method, message) else {
        return Ok(Answer::Declined);
    };
    answer_request(method, sequence, request, reply, session)
}

/// What became of a call read as it arrived.
#[derive(Debug)]
pub enum Arrived {
    /// Answered; the message took this many bytes.
    Answered(usize),
    /// Not answered, nothing done: the message is for the walk and the generated decoder.
    Declined,
    /// The message cannot be read to its end; the connection must close.
    Broken(ReadError),
}

/// Answers a binary-protocol call of `method` (one of the two), reading its message once, as
/// it arrives, within `limits`; or declines it, having only read it.
pub(super) fn answer_arriving(
    method: &'static str,
    message: &mut dyn Arriving,
    limits: &Limits,
    reply: &mut Vec<u8>,
    session: &Session,
) -> thrift::Result<Arrived> {
    let mut pass = Pass::new(message, WireLimits::of(limits));
    match decode_call(method, &mut pass) {
        Ok((sequence, request)) => {
            answer_request(method, sequence, request, reply, session)?;
            Ok(Arrived::Answered(pass.position()))
        }
        Err(Unusual) => Ok(match pass.take_broken() {
            Some(error) => Arrived::Broken(error),
            None => Arrived::Declined,
        }),
    }
}

/// Adds the partitions of `request` and writes the reply, as the generated processor would:
/// [`Answer::Written`] or [`Answer::Failed`], never declined, for the call has acted.
fn answer_request(
    method: &'static str,
    sequence: i32,
    request: Request,
    reply: &mut Vec<u8>,
    session: &Session,
) -> thrift::Result<Answer> {
    let need_result = request.need_result;
    let added = add_decoded(session, request.batch);
    hivestore_idl::handler::Handler::observe(session, method, added.is_err());
    let o = &mut Encoder::new(reply, Protocol::Binary);
    match (added, need_result) {
        (Ok(added), None) => {
            let count = i32::try_from(added.len()).unwrap_or(i32::MAX);
            o.reply_begin(method, sequence);
            o.struct_begin();
            o.i32_field(0, count);
            o.struct_end();
            Ok(Answer::Written)
        }
        (Ok(added), Some(need_result)) => {
            let result = add_req_result(added, need_result);
            o.reply_begin(method, sequence);
            o.struct_begin();
            o.generated_struct_field(0, &result)?;
            o.struct_end();
            Ok(Answer::Written)
        }
        (Err(error), _) => {
            write_failure_after_acting(o, method, sequence, error)?;
            Ok(Answer::Failed)
        }
    }
}

/// A decoded request: the partitions with their table, and for `add_partitions_req` whether the
/// added partitions are asked back (`needResult`, and that some were sent).
pub(super) struct Request {
    pub(super) batch: PartitionsToAdd,
    pub(super) need_result: Option<bool>,
}

/// Reads the arguments of a binary-protocol call of `method` (one of the two) in `message`.
pub(super) fn decode(method: &str, message: &[u8]) -> Read<Request> {
    let mut whole = message;
    let mut pass = Pass::new(&mut whole, WireLimits::WHOLE);
    pass.header()?;
    arguments(method, &mut pass)
}

/// Reads a call of `method` (one of the two) from its first byte: its sequence id and request.
pub(super) fn decode_call(method: &str, pass: &mut Pass<'_>) -> Read<(i32, Request)> {
    let (message_type, sequence) = pass.header()?;
    if message_type != MESSAGE_CALL {
        return Err(Unusual);
    }
    Ok((sequence, arguments(method, pass)?))
}

/// The arguments of `method`, from where `pass` is (past the header).
fn arguments(method: &str, pass: &mut Pass<'_>) -> Read<Request> {
    match method {
        "add_partitions" => add_partitions_arguments(pass),
        _ => add_partitions_req_arguments(pass),
    }
}

/// `add_partitions(1: list<Partition> new_parts)`.
fn add_partitions_arguments(pass: &mut Pass<'_>) -> Read<Request> {
    let mut partitions = Vec::new();
    while let Some((field_type, id)) = pass.unit(|reader| reader.field())? {
        match (id, field_type) {
            (1, T_LIST) => partitions = partition_list(pass)?,
            _ => return Err(Unusual),
        }
    }
    Ok(Request {
        batch: PartitionsToAdd {
            table: None,
            partitions,
            if_not_exists: false,
        },
        need_result: None,
    })
}

/// `add_partitions_req(1: AddPartitionsRequest request)`.
fn add_partitions_req_arguments(pass: &mut Pass<'_>) -> Read<Request> {
    let mut request = None;
    while let Some((field_type, id)) = pass.unit(|reader| reader.field())? {
        match (id, field_type) {
            (1, T_STRUCT) => request = Some(add_partitions_request(pass)?),
            _ => return Err(Unusual),
        }
    }
    // An absent request is left to the generated code.
    request.ok_or(Unusual)
}

/// An `AddPartitionsRequest`; a missing required field is left to the generated code.
fn add_partitions_request(pass: &mut Pass<'_>) -> Read<Request> {
    let (mut database, mut table, mut partitions, mut if_not_exists) = (None, None, None, None);
    let (mut need_result, mut catalog) = (None, None);
    while let Some((field_type, id)) = pass.unit(|reader| reader.field())? {
        match (id, field_type) {
            (1, T_STRING) => database = Some(pass.unit(|reader| reader.string())?),
            (2, T_STRING) => table = Some(pass.unit(|reader| reader.string())?),
            (3, T_LIST) => partitions = Some(partition_list(pass)?),
            (4, T_BOOL) => if_not_exists = Some(pass.unit(|reader| reader.bool())?),
            (5, T_BOOL) => need_result = Some(pass.unit(|reader| reader.bool())?),
            (6, T_STRING) => catalog = Some(pass.unit(|reader| reader.string())?),
            // validWriteIdList and skipColumnSchemaForPartition: not used by the add.
            (7, T_STRING) => pass.unit(|reader| reader.str().map(drop))?,
            (8, T_BOOL) => drop(pass.unit(|reader| reader.bool())?),
            _ => return Err(Unusual),
        }
    }
    let (Some(database), Some(table), Some(partitions), Some(if_not_exists)) =
        (database, table, partitions, if_not_exists)
    else {
        return Err(Unusual);
    };
    let asked = !partitions.is_empty();
    Ok(Request {
        batch: PartitionsToAdd {
            table: Some(TableName::request(catalog, database, table)),
            partitions,
            if_not_exists,
        },
        need_result: Some(need_result.unwrap_or(true) && asked),
    })
}

/// A `list<Partition>`, a partition at a time.
fn partition_list(pass: &mut Pass<'_>) -> Read<Vec<engine::NewPartition>> {
    let count = pass.unit(|reader| reader.list(T_STRUCT))?;
    let mut partitions = Vec::with_capacity(count.min(RESERVED_ELEMENTS_MAX));
    let mut memo: Option<DescriptorMemo> = None;
    for _ in 0..count {
        partitions.push(pass.unit(|reader| partition(reader, &mut memo))?);
    }
    Ok(partitions)
}
