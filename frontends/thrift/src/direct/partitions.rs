//! Partition listings from the archived partitions: `get_partitions`,
//! `get_partitions_by_filter`, `get_partitions_by_names`, `get_partitions_ps` and the `_req`
//! forms of the first and third. Each reads its arguments with the generated processor's
//! reader and makes its [`Listing`] with the function of `calls::partition_listings` the
//! generic path uses; only the reply is written here. The generic path answers what is
//! declined: a request for a part of each partition, or an internal error.

use hivestore_engine::{self as engine, PartitionSink};
use hivestore_idl::hive_metastore::{
    ThriftHiveMetastoreGetPartitionsArgs, ThriftHiveMetastoreGetPartitionsByExprArgs,
    ThriftHiveMetastoreGetPartitionsByFilterArgs, ThriftHiveMetastoreGetPartitionsByNamesArgs,
    ThriftHiveMetastoreGetPartitionsByNamesReqArgs, ThriftHiveMetastoreGetPartitionsPsArgs,
    ThriftHiveMetastoreGetPartitionsReqArgs,
};
use thrift::protocol::{TInputProtocol, TType};

use super::encode::PartitionWriter;
use super::wire::Encoder;
use super::wire_reader::{Pass, Read, Unusual, WireLimits, WireReader, T_LIST, T_STRING};
use super::{write_failure, write_store_failure, write_success, Answer};
use crate::calls::partition_expressions::ExprListing;
use crate::calls::partition_listings::{
    all_listing, all_req_listing, borrowed, by_filter_listing, by_names_listing,
    by_names_req_listing, ps_listing, Listing,
};
use crate::detect::Protocol;
use crate::service::Session;

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

/// Writes the partitions of `listing` as a list (its header included).
fn write_partitions(
    o: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
    listing: &Listing<'_>,
) -> engine::Result<()> {
    let mut sink = ReplyPartitions::new(o, protocol);
    let table = &listing.table;
    session
        .store()
        .write_partitions(
            &table.catalog,
            &table.database,
            &table.name,
            listing.selection,
            listing.max_parts,
            &mut sink,
        )
        .map(drop)
}

/// What a listing that failed with `error` answers, in place of the reply begun at `start`
/// ([`write_store_failure`]).
fn answer_failed_listing(
    (method, sequence): (&str, i32),
    o: &mut Encoder<'_>,
    start: usize,
    error: engine::Error,
    listing: &Listing<'_>,
) -> thrift::Result<Answer> {
    o.discard_from(start);
    write_store_failure(o, (method, sequence), error, listing.declared)
}

/// Answers call `sequence` of `method` with the partitions of `listing`, as a bare list; a
/// listing the arguments do not make is the call's error.
fn answer_list(
    (method, sequence): (&str, i32),
    o: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
    listing: thrift::Result<Listing<'_>>,
) -> thrift::Result<Answer> {
    let listing = match listing.and_then(|listing| listing.within_limit(session)) {
        Ok(listing) => listing,
        Err(error) => return write_failure(o, method, sequence, &error),
    };
    let start = o.position();
    o.reply_begin(method, sequence);
    o.struct_begin();
    o.field(TType::List, 0);
    if let Err(error) = write_partitions(o, protocol, session, &listing) {
        return answer_failed_listing((method, sequence), o, start, error, &listing);
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
    let Ok(args) = ThriftHiveMetastoreGetPartitionsArgs::read_from_in_protocol(input) else {
        return Ok(Answer::Declined);
    };
    let listing = all_listing(session, &args.db_name, args.tbl_name, args.max_parts);
    let call = ("get_partitions", sequence);
    answer_list(call, output, protocol, session, listing)
}

/// `get_partitions_by_filter(db_name, tbl_name, filter, max_parts)`.
pub(super) fn get_partitions_by_filter(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok(args) = ThriftHiveMetastoreGetPartitionsByFilterArgs::read_from_in_protocol(input)
    else {
        return Ok(Answer::Declined);
    };
    let listing = by_filter_listing(
        session,
        &args.db_name,
        args.tbl_name,
        &args.filter,
        args.max_parts,
    );
    let call = ("get_partitions_by_filter", sequence);
    answer_list(call, output, protocol, session, listing)
}

/// `get_partitions_by_names(db_name, tbl_name, names)`, call `sequence` of `message`. The
/// names of a binary-protocol call are read where they lie in the message: a string each
/// from the generated reader is an allocation each, which took a sixth of the call's time for
/// 10,000 names.
pub(super) fn get_partitions_by_names(
    (sequence, message): (i32, &[u8]),
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
) -> thrift::Result<Answer> {
    let call = ("get_partitions_by_names", sequence);
    if let Ok(([database, name], names)) = by_names_in_place(protocol, message) {
        let listing = by_names_listing(session, database, name.to_string(), &names);
        return answer_list(call, output, protocol, session, listing);
    }
    let Ok(args) = ThriftHiveMetastoreGetPartitionsByNamesArgs::read_from_in_protocol(input) else {
        return Ok(Answer::Declined);
    };
    let names = borrowed(&args.names);
    let listing = by_names_listing(session, &args.db_name, args.tbl_name, &names);
    answer_list(call, output, protocol, session, listing)
}

/// The arguments of a binary-protocol `get_partitions_by_names` call read in place from its
/// whole `message`: the database and table arguments, and the names. A field of another id
/// or type, a missing argument or another protocol is [`Unusual`]: the generated reader reads
/// it.
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

/// `get_partitions_ps(db_name, tbl_name, part_vals, max_parts)`.
pub(super) fn get_partitions_ps(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok(args) = ThriftHiveMetastoreGetPartitionsPsArgs::read_from_in_protocol(input) else {
        return Ok(Answer::Declined);
    };
    let listing = ps_listing(
        session,
        &args.db_name,
        args.tbl_name,
        &args.part_vals,
        args.max_parts,
    );
    let call = ("get_partitions_ps", sequence);
    answer_list(call, output, protocol, session, listing)
}

/// Answers a `_req` call whose response struct holds the partitions of `listing` as field 1;
/// a listing the request does not make is the call's error.
fn answer_response(
    call: (&str, i32),
    o: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
    listing: thrift::Result<Listing<'_>>,
) -> thrift::Result<Answer> {
    answer_response_with(call, o, (protocol, session), listing, |_| {})
}

/// [`answer_response`] for a response struct with more fields after the partitions: `rest`
/// writes them.
fn answer_response_with(
    (method, sequence): (&str, i32),
    o: &mut Encoder<'_>,
    (protocol, session): (Protocol, &Session),
    listing: thrift::Result<Listing<'_>>,
    rest: impl FnOnce(&mut Encoder<'_>),
) -> thrift::Result<Answer> {
    let listing = match listing.and_then(|listing| listing.within_limit(session)) {
        Ok(listing) => listing,
        Err(error) => return write_failure(o, method, sequence, &error),
    };
    let start = o.position();
    let mut written = Ok(());
    write_success(o, method, sequence, |o| {
        o.struct_begin();
        o.field(TType::List, 1);
        written = write_partitions(o, protocol, session, &listing);
        rest(o);
        o.struct_end();
        Ok(())
    })?;
    match written {
        Ok(()) => Ok(Answer::Written),
        Err(error) => answer_failed_listing((method, sequence), o, start, error, &listing),
    }
}

/// A request's projection: `skipColumnSchemaForPartition`, `includeParamKeyPattern`,
/// `excludeParamKeyPattern`.
type Projection<'r> = (Option<bool>, &'r Option<String>, &'r Option<String>);

/// Whether a request's projection keeps whole partitions (the kept encodings are whole).
fn asks_whole_partitions((skip_columns, include, exclude): Projection<'_>) -> bool {
    skip_columns != Some(true) && include.is_none() && exclude.is_none()
}

/// `get_partitions_req(PartitionsRequest)`; requests for a part of each partition (skipped
/// columns, parameter patterns) are declined.
pub(super) fn get_partitions_req(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok(args) = ThriftHiveMetastoreGetPartitionsReqArgs::read_from_in_protocol(input) else {
        return Ok(Answer::Declined);
    };
    let request = args.req;
    let projection = (
        request.skip_column_schema_for_partition,
        &request.include_param_key_pattern,
        &request.exclude_param_key_pattern,
    );
    if !asks_whole_partitions(projection) {
        return Ok(Answer::Declined);
    }
    let listing = all_req_listing(session, &request);
    let call = ("get_partitions_req", sequence);
    answer_response(call, output, protocol, session, listing)
}

/// `get_partitions_by_names_req(GetPartitionsByNamesRequest)`; requests for column statistics,
/// file metadata or a part of each partition are declined.
pub(super) fn get_partitions_by_names_req(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok(args) = ThriftHiveMetastoreGetPartitionsByNamesReqArgs::read_from_in_protocol(input)
    else {
        return Ok(Answer::Declined);
    };
    let request = args.req;
    let projection = (
        request.skip_column_schema_for_partition,
        &request.include_param_key_pattern,
        &request.exclude_param_key_pattern,
    );
    let whole = request.get_col_stats != Some(true)
        && request.get_file_metadata != Some(true)
        && asks_whole_partitions(projection);
    if !whole {
        return Ok(Answer::Declined);
    }
    let names = request.names.as_deref().map(borrowed).unwrap_or_default();
    let listing = by_names_req_listing(session, &request, &names);
    let call = ("get_partitions_by_names_req", sequence);
    answer_response(call, output, protocol, session, listing)
}

/// `get_partitions_by_expr(PartitionsByExprRequest)`: the expression is decoded and evaluated
/// as the generic path does ([`ExprListing`]); the partitions it keeps are written as
/// `get_partitions_by_filter`'s are, then `hasUnknownPartitions`. Requests for a part of each
/// partition are declined.
pub(super) fn get_partitions_by_expr(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok(args) = ThriftHiveMetastoreGetPartitionsByExprArgs::read_from_in_protocol(input) else {
        return Ok(Answer::Declined);
    };
    let request = args.req;
    let projection = (
        request.skip_column_schema_for_partition,
        &request.include_param_key_pattern,
        &request.exclude_param_key_pattern,
    );
    if !asks_whole_partitions(projection) {
        return Ok(Answer::Declined);
    }
    let call = ("get_partitions_by_expr", sequence);
    let expression = match ExprListing::of(session, &request) {
        Ok(expression) => expression,
        Err(error) => return write_failure(output, call.0, sequence, &error),
    };
    let has_unknown = expression.has_unknown();
    expression.with_listing(|listing| {
        let rest = |o: &mut Encoder<'_>| o.bool_field(2, has_unknown);
        answer_response_with(call, output, (protocol, session), Ok(listing), rest)
    })
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

    /// What the generated reader reads from `message`: the database, the table and the names.
    fn generic(message: &[u8]) -> Option<(String, String, Vec<String>)> {
        let mut input = TBinaryInputProtocol::new(message, false);
        input.read_message_begin().ok()?;
        let args = ThriftHiveMetastoreGetPartitionsByNamesArgs::read_from_in_protocol(&mut input);
        let args = args.ok()?;
        Some((args.db_name, args.tbl_name, args.names))
    }

    /// The goal: the names read in place are those the generated reader reads, in any field
    /// order; anything else (another field, a missing argument, another protocol, a cut
    /// message) is left to the generated reader rather than read differently.
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
