//! Partition listings from the archived partitions: `get_partitions`,
//! `get_partitions_by_filter`, `get_partitions_by_names`, `get_partitions_ps` and the `_req`
//! forms of the first and third. They mirror the functions of `calls::partitions` of the same
//! names, which answer whenever these decline (an unusual argument, an error other than the
//! store's). The store's errors of the listings written by [`answer_list`] and
//! [`answer_response`] (a missing table, a bad filter) are answered here.

use hivestore_engine::{self as engine, PartitionSelection, PartitionSink};
use hivestore_idl::hive_metastore::{GetPartitionsByNamesRequest, PartitionsRequest};
use thrift::protocol::{TInputProtocol, TType};

use super::encode::PartitionWriter;
use super::wire::Encoder;
use super::wire_reader::{Pass, Read, Unusual, WireLimits, WireReader, T_LIST, T_STRING};
use super::{read_struct_argument, write_failure, write_store_failure, write_success, Answer};
use crate::calls::partitions::borrowed;
use crate::calls::partitions::throws;
use crate::calls::{catalog_or_default, require_database_name};
use crate::detect::Protocol;
use crate::errors::Declared;
use crate::service::Session;

/// One argument of an old-style call.
pub(super) enum Argument {
    String(String),
    I16(i16),
    Strings(Vec<String>),
}

/// Reads an argument struct whose arguments have ids `1..=N` and are strings, `i16`s or lists
/// of strings; anything else is an error (the call is declined).
pub(super) fn read_arguments<const N: usize>(
    input: &mut dyn TInputProtocol,
) -> thrift::Result<[Option<Argument>; N]> {
    let mut arguments: [Option<Argument>; N] = std::array::from_fn(|_| None);
    input.read_struct_begin()?;
    loop {
        let field = input.read_field_begin()?;
        if field.field_type == TType::Stop {
            break;
        }
        let argument_index = field
            .id
            .and_then(|id| usize::try_from(id).ok())
            .and_then(|id| id.checked_sub(1))
            .filter(|index| *index < N);
        let Some(index) = argument_index else {
            input.skip(field.field_type)?;
            input.read_field_end()?;
            continue;
        };
        arguments[index] = Some(match field.field_type {
            TType::String => Argument::String(input.read_string()?),
            TType::I16 => Argument::I16(input.read_i16()?),
            TType::List => {
                let list = input.read_list_begin()?;
                if list.element_type != TType::String {
                    return Err(unexpected("a list of strings"));
                }
                let count = usize::try_from(list.size).map_err(|_| unexpected("a list size"))?;
                let mut values = Vec::with_capacity(count.min(1 << 16));
                for _ in 0..count {
                    values.push(input.read_string()?);
                }
                input.read_list_end()?;
                Argument::Strings(values)
            }
            _ => return Err(unexpected("a string, an i16 or a list of strings")),
        });
        input.read_field_end()?;
    }
    input.read_struct_end()?;
    Ok(arguments)
}

fn unexpected(what: &str) -> thrift::Error {
    thrift::Error::Protocol(thrift::ProtocolError::new(
        thrift::ProtocolErrorKind::InvalidData,
        format!("expected {what}"),
    ))
}

/// The table an old-style call names: `None` to decline when the names are missing, the
/// call's error when the database name is not one.
pub(super) fn old_style_table(
    database: Option<Argument>,
    name: Option<Argument>,
) -> Option<thrift::Result<[String; 3]>> {
    let (Some(Argument::String(database)), Some(Argument::String(name))) = (database, name) else {
        return None;
    };
    Some(require_database_name(&database).map(|(catalog, database)| [catalog, database, name]))
}

/// The partitions of a listing written into a reply, from the engine's kept encodings or
/// encoded here ([`PartitionWriter`]).
pub(super) struct ReplyPartitions<'o, 'r> {
    o: &'o mut Encoder<'r>,
    protocol: Protocol,
    writer: Option<PartitionWriter>,
    count: usize,
    reserved: bool,
}

impl<'o, 'r> ReplyPartitions<'o, 'r> {
    pub(super) fn new(o: &'o mut Encoder<'r>, protocol: Protocol) -> Self {
        ReplyPartitions {
            o,
            protocol,
            writer: None,
            count: 0,
            reserved: false,
        }
    }
}

fn thrift_failure(error: thrift::Error) -> engine::Error {
    engine::Error::Internal(format!("encoding a partition: {error}"))
}

impl PartitionSink for ReplyPartitions<'_, '_> {
    fn encoding_kind(&self) -> u32 {
        match self.protocol {
            Protocol::Binary => 0,
            Protocol::Compact => 1,
        }
    }

    fn begin(&mut self, table: &engine::Table, count: usize) -> engine::Result<()> {
        self.o
            .list_begin(TType::Struct, count)
            .map_err(thrift_failure)?;
        self.writer = Some(PartitionWriter::new(table, self.protocol));
        self.count = count;
        Ok(())
    }

    fn encode(
        &mut self,
        partition: &engine::PartitionView<'_>,
        out: engine::EncodingOut<'_>,
    ) -> engine::Result<()> {
        let writer = self.writer.as_mut().ok_or_else(|| {
            engine::Error::Internal("a partition encoded before the listing began".into())
        })?;
        let (bytes, splicer) = out.parts();
        writer
            .write(
                &mut Encoder::splicing(bytes, splicer, self.protocol),
                partition,
            )
            .map_err(thrift_failure)
    }

    fn append(&mut self, encoded: &engine::EncodedPartition<'_>) {
        if !self.reserved {
            // Partitions of a table are about the same size: room for all of them at once,
            // so that a reply of many megabytes is not grown (and copied) a doubling at a time.
            self.o.reserve(encoded.len().saturating_mul(self.count));
            self.reserved = true;
        }
        encoded.for_each_piece(|piece| self.o.raw_element(piece));
    }
}

/// Writes the partitions of `selection` of `table` as a list (its header included).
fn write_partitions(
    o: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
    [catalog, database, name]: &[String; 3],
    selection: PartitionSelection<'_>,
    max_parts: i32,
) -> engine::Result<()> {
    let mut sink = ReplyPartitions::new(o, protocol);
    session
        .store()
        .write_partitions(catalog, database, name, selection, max_parts, &mut sink)
        .map(drop)
}

/// What a listing that failed with `error` answers, in place of the reply begun at `start`
/// ([`write_store_failure`]).
fn answer_failed_listing(
    (method, sequence): (&str, i32),
    o: &mut Encoder<'_>,
    start: usize,
    (error, declared): (engine::Error, &[Declared]),
) -> thrift::Result<Answer> {
    o.discard_from(start);
    write_store_failure(o, (method, sequence), error, declared)
}

/// The table an old-style call names, or its answer: declined, or the call's error.
pub(super) fn table_or_answer(
    (method, sequence): (&str, i32),
    o: &mut Encoder<'_>,
    database: Option<Argument>,
    name: Option<Argument>,
) -> Result<[String; 3], thrift::Result<Answer>> {
    match old_style_table(database, name) {
        None => Err(Ok(Answer::Declined)),
        Some(Ok(table)) => Ok(table),
        Some(Err(error)) => Err(write_failure(o, method, sequence, &error)),
    }
}

/// Answers call `sequence` of `method` with the partitions of `selection`, as a bare list;
/// the store's error as the exception of those `declared`.
fn answer_list(
    (method, sequence, declared): (&str, i32, &[Declared]),
    o: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
    table: &[String; 3],
    selection: PartitionSelection<'_>,
    max_parts: i32,
) -> thrift::Result<Answer> {
    let start = o.position();
    o.reply_begin(method, sequence);
    o.struct_begin();
    o.field(TType::List, 0);
    if let Err(error) = write_partitions(o, protocol, session, table, selection, max_parts) {
        return answer_failed_listing((method, sequence), o, start, (error, declared));
    }
    o.struct_end();
    Ok(Answer::Written)
}

/// `get_partitions(db_name, tbl_name, max_parts)`.
pub(super) fn get_partitions(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok([database, name, Some(Argument::I16(max_parts))]) = read_arguments::<3>(input) else {
        return Ok(Answer::Declined);
    };
    let table = match table_or_answer(("get_partitions", sequence), output, database, name) {
        Ok(table) => table,
        Err(answer) => return answer,
    };
    let max_parts = i32::from(max_parts);
    let selection = PartitionSelection::All;
    answer_list(
        ("get_partitions", sequence, throws::GET),
        output,
        protocol,
        session,
        &table,
        selection,
        max_parts,
    )
}

/// `get_partitions_by_filter(db_name, tbl_name, filter, max_parts)`.
pub(super) fn get_partitions_by_filter(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok([database, name, Some(Argument::String(filter)), Some(Argument::I16(max_parts))]) =
        read_arguments::<4>(input)
    else {
        return Ok(Answer::Declined);
    };
    let method = "get_partitions_by_filter";
    let table = match table_or_answer((method, sequence), output, database, name) {
        Ok(table) => table,
        Err(answer) => return answer,
    };
    let selection = PartitionSelection::Filter(&filter);
    let max_parts = i32::from(max_parts);
    answer_list(
        (method, sequence, throws::GET),
        output,
        protocol,
        session,
        &table,
        selection,
        max_parts,
    )
}

/// `get_partitions_by_names(db_name, tbl_name, names)`, call `sequence` of `message`. The
/// names of a binary-protocol call are read where they lie in the message: a string each
/// from the generic reader is an allocation each, which took a sixth of the call's time for
/// 10,000 names.
pub(super) fn get_partitions_by_names(
    (sequence, message): (i32, &[u8]),
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
) -> thrift::Result<Answer> {
    let read;
    let (table, names) = match by_names_in_place(protocol, message) {
        Ok(([database, name], names)) => {
            let Ok((catalog, database)) = require_database_name(database) else {
                return Ok(Answer::Declined);
            };
            (Some([catalog, database, name.to_string()]), names)
        }
        Err(Unusual) => {
            let Ok([database, name, Some(Argument::Strings(names))]) = read_arguments::<3>(input)
            else {
                return Ok(Answer::Declined);
            };
            read = names;
            let table = old_style_table(database, name).and_then(Result::ok);
            (table, borrowed(&read))
        }
    };
    let Some(table) = table else {
        return Ok(Answer::Declined);
    };
    let method = "get_partitions_by_names";
    let selection = PartitionSelection::Names(&names);
    answer_list(
        (method, sequence, throws::BY_NAMES),
        output,
        protocol,
        session,
        &table,
        selection,
        -1,
    )
}

/// The arguments of a binary-protocol `get_partitions_by_names` call read in place from its
/// whole `message`: the database and table arguments, and the names. A field of another id
/// or type, a missing argument or another protocol is [`Unusual`]: the generic reader reads it.
fn by_names_in_place(protocol: Protocol, message: &[u8]) -> Read<([&str; 2], Vec<&str>)> {
    if protocol != Protocol::Binary {
        return Err(Unusual);
    }
    let mut whole = message;
    let mut pass = Pass::new(&mut whole, WireLimits::WHOLE);
    pass.header()?;
    let mut reader = WireReader::at(message, pass.position(), WireLimits::WHOLE);
    let (mut database, mut name, mut names) = (None, None, None);
    while let Some((field_type, id)) = reader.field()? {
        match (id, field_type) {
            (1, T_STRING) => database = Some(reader.str()?),
            (2, T_STRING) => name = Some(reader.str()?),
            (3, T_LIST) => names = Some(reader.strs()?),
            _ => return Err(Unusual),
        }
    }
    match (database, name, names) {
        (Some(database), Some(name), Some(names)) => Ok(([database, name], names)),
        _ => Err(Unusual),
    }
}

/// `get_partitions_ps(db_name, tbl_name, part_vals, max_parts)`; an empty partial spec is
/// Hive's error, made by `calls::partitions`.
pub(super) fn get_partitions_ps(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok([database, name, Some(Argument::Strings(values)), Some(Argument::I16(max_parts))]) =
        read_arguments::<4>(input)
    else {
        return Ok(Answer::Declined);
    };
    let method = "get_partitions_ps";
    let table = match table_or_answer((method, sequence), output, database, name) {
        Ok(table) => table,
        Err(answer) => return answer,
    };
    if values.is_empty() {
        return Ok(Answer::Declined);
    }
    let selection = PartitionSelection::PartialValues(&values);
    let max_parts = i32::from(max_parts);
    answer_list(
        (method, sequence, throws::GET),
        output,
        protocol,
        session,
        &table,
        selection,
        max_parts,
    )
}

/// Answers a `_req` call whose response struct holds the partitions as field 1; the store's
/// error as the exception of those `declared`.
fn answer_response(
    (method, sequence, declared): (&str, i32, &[Declared]),
    o: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
    table: &[String; 3],
    selection: PartitionSelection<'_>,
    max_parts: i32,
) -> thrift::Result<Answer> {
    let start = o.position();
    let mut written = Ok(());
    write_success(o, method, sequence, |o| {
        o.struct_begin();
        o.field(TType::List, 1);
        written = write_partitions(o, protocol, session, table, selection, max_parts);
        o.struct_end();
        Ok(())
    })?;
    match written {
        Ok(()) => Ok(Answer::Written),
        Err(error) => answer_failed_listing((method, sequence), o, start, (error, declared)),
    }
}

/// `get_partitions_req(PartitionsRequest)`; requests for a part of each partition (skipped
/// columns, parameter patterns) go to `calls::partitions`.
pub(super) fn get_partitions_req(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok(Some(request)) = read_struct_argument::<PartitionsRequest>(input) else {
        return Ok(Answer::Declined);
    };
    let whole = request.skip_column_schema_for_partition != Some(true)
        && request.include_param_key_pattern.is_none()
        && request.exclude_param_key_pattern.is_none();
    if !whole {
        return Ok(Answer::Declined);
    }
    let table = [
        catalog_or_default(request.cat_name),
        request.db_name,
        request.tbl_name,
    ];
    let max_parts = i32::from(request.max_parts.unwrap_or(-1));
    let method = ("get_partitions_req", sequence, throws::GET);
    let selection = PartitionSelection::All;
    answer_response(
        method, output, protocol, session, &table, selection, max_parts,
    )
}

/// `get_partitions_by_names_req(GetPartitionsByNamesRequest)`, without column statistics or
/// file metadata (those requests go to `calls::partitions`).
pub(super) fn get_partitions_by_names_req(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok(Some(request)) = read_struct_argument::<GetPartitionsByNamesRequest>(input) else {
        return Ok(Answer::Declined);
    };
    let whole = request.get_col_stats != Some(true)
        && request.get_file_metadata != Some(true)
        && request.skip_column_schema_for_partition != Some(true)
        && request.include_param_key_pattern.is_none()
        && request.exclude_param_key_pattern.is_none();
    let Ok((catalog, database)) = require_database_name(&request.db_name) else {
        return Ok(Answer::Declined);
    };
    if !whole {
        return Ok(Answer::Declined);
    }
    let names = request.names.unwrap_or_default();
    let names = borrowed(&names);
    let table = [catalog, database, request.tbl_name];
    let method = ("get_partitions_by_names_req", sequence, throws::BY_NAMES);
    let selection = PartitionSelection::Names(&names);
    answer_response(method, output, protocol, session, &table, selection, -1)
}

#[cfg(test)]
mod tests {
    use thrift::protocol::{
        TBinaryInputProtocol, TBinaryOutputProtocol, TCompactOutputProtocol, TFieldIdentifier,
        TListIdentifier, TMessageIdentifier, TMessageType, TOutputProtocol, TStructIdentifier,
    };

    use super::*;

    /// An argument of a test call: a string, or a list of strings.
    enum Value<'v> {
        Text(&'v str),
        Texts(&'v [&'v str]),
    }

    /// A `get_partitions_by_names` call with `fields`, written by the `thrift` crate.
    fn call(out: &mut dyn TOutputProtocol, fields: &[(i16, Value<'_>)]) {
        let header = TMessageIdentifier::new("get_partitions_by_names", TMessageType::Call, 7);
        out.write_message_begin(&header).unwrap();
        out.write_struct_begin(&TStructIdentifier::new("args"))
            .unwrap();
        for (id, value) in fields {
            match value {
                Value::Text(text) => {
                    let field = TFieldIdentifier::new("f", TType::String, *id);
                    out.write_field_begin(&field).unwrap();
                    out.write_string(text).unwrap();
                }
                Value::Texts(texts) => {
                    let field = TFieldIdentifier::new("f", TType::List, *id);
                    out.write_field_begin(&field).unwrap();
                    let list = TListIdentifier::new(TType::String, texts.len() as i32);
                    out.write_list_begin(&list).unwrap();
                    for text in *texts {
                        out.write_string(text).unwrap();
                    }
                    out.write_list_end().unwrap();
                }
            }
            out.write_field_end().unwrap();
        }
        out.write_field_stop().unwrap();
        out.write_struct_end().unwrap();
        out.write_message_end().unwrap();
    }

    fn binary(fields: &[(i16, Value<'_>)]) -> Vec<u8> {
        let mut bytes = Vec::new();
        call(&mut TBinaryOutputProtocol::new(&mut bytes, true), fields);
        bytes
    }

    /// What the generic reader reads from `message`: the database, the table and the names.
    fn generic(message: &[u8]) -> Option<(String, String, Vec<String>)> {
        let mut input = TBinaryInputProtocol::new(message, false);
        input.read_message_begin().ok()?;
        match read_arguments::<3>(&mut input).ok()? {
            [Some(Argument::String(database)), Some(Argument::String(name)), Some(Argument::Strings(names))] => {
                Some((database, name, names))
            }
            _ => None,
        }
    }

    /// The goal: the names read in place are those the generic reader reads, in any field
    /// order; anything else (another field, a missing argument, another protocol, a cut
    /// message) is left to the generic reader rather than read differently.
    #[test]
    fn names_read_in_place_are_those_the_generic_reader_reads() {
        let names: &[&str] = &["ds=2024-01-01/hr=1", "", "ds=a%2Fb/hr=é"];
        let in_order = [
            (1, Value::Text("db")),
            (2, Value::Text("t")),
            (3, Value::Texts(names)),
        ];
        let shuffled = [
            (3, Value::Texts(names)),
            (1, Value::Text("db")),
            (2, Value::Text("t")),
        ];
        for fields in [&in_order[..], &shuffled[..]] {
            let message = binary(fields);
            let (read, names_read) = by_names_in_place(Protocol::Binary, &message).unwrap();
            let expected = generic(&message).unwrap();
            assert_eq!(read, [expected.0.as_str(), expected.1.as_str()]);
            assert_eq!(names_read, expected.2);
            assert_eq!(names_read, names);
        }
        let extra = [
            (1, Value::Text("db")),
            (2, Value::Text("t")),
            (3, Value::Texts(names)),
            (4, Value::Text("x")),
        ];
        let names_as_text = [
            (1, Value::Text("db")),
            (2, Value::Text("t")),
            (3, Value::Text("n")),
        ];
        let no_names = [(1, Value::Text("db")), (2, Value::Text("t"))];
        for fields in [&extra[..], &names_as_text[..], &no_names[..]] {
            assert!(by_names_in_place(Protocol::Binary, &binary(fields)).is_err());
        }
        let message = binary(&in_order);
        for end in 0..message.len() {
            assert!(by_names_in_place(Protocol::Binary, &message[..end]).is_err());
        }
        let mut compact = Vec::new();
        call(&mut TCompactOutputProtocol::new(&mut compact), &in_order);
        assert!(by_names_in_place(Protocol::Compact, &compact).is_err());
    }
}
