//! Partition name listings: `get_partition_names` and `get_partition_names_ps`, written from
//! the store's name listing (one buffer, kept while the table is unchanged) with no `String`
//! per name. They mirror `calls::partitions::names` and `names_ps`, which answer whenever
//! these decline (an empty partial spec, an unusual argument); the store's errors (a missing
//! table, a partial spec longer than the keys) are answered here.

use hivestore_engine::{NameListing, PartitionSelection};
use thrift::protocol::{TInputProtocol, TType};

use super::partitions::{read_arguments, table_or_answer, Argument};
use super::wire::Encoder;
use super::{write_store_failure, Answer};
use crate::calls::partitions::throws;
use crate::service::Session;

/// Most bytes a name's length prefix takes (binary: 4; compact: a varint of at most 5).
const LENGTH_PREFIX_MAX: usize = 5;

/// `get_partition_names(db_name, tbl_name, max_parts)`; Hive answers every name for
/// `max_parts` 0.
pub(super) fn get_partition_names(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok([database, name, Some(Argument::I16(max_parts))]) = read_arguments::<3>(input) else {
        return Ok(Answer::Declined);
    };
    let method = "get_partition_names";
    let [catalog, database, name] =
        match table_or_answer((method, sequence), output, database, name) {
            Ok(table) => table,
            Err(answer) => return answer,
        };
    let max_parts = match max_parts {
        0 => -1,
        other => i32::from(other),
    };
    let selection = PartitionSelection::All;
    let names = session
        .store()
        .partition_names(&catalog, &database, &name, selection, max_parts);
    match names {
        Ok(names) => write_names(output, method, sequence, &names),
        Err(error) => write_store_failure(output, (method, sequence), error, throws::GET),
    }
}

/// `get_partition_names_ps(db_name, tbl_name, part_vals, max_parts)`.
pub(super) fn get_partition_names_ps(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok([database, name, Some(Argument::Strings(values)), Some(Argument::I16(max_parts))]) =
        read_arguments::<4>(input)
    else {
        return Ok(Answer::Declined);
    };
    let method = "get_partition_names_ps";
    let [catalog, database, name] =
        match table_or_answer((method, sequence), output, database, name) {
            Ok(table) => table,
            Err(answer) => return answer,
        };
    // An empty partial spec is Hive's error, made by `calls::partitions`.
    if values.is_empty() {
        return Ok(Answer::Declined);
    }
    let selection = PartitionSelection::PartialValues(&values);
    let max_parts = i32::from(max_parts);
    let names = session
        .store()
        .partition_names(&catalog, &database, &name, selection, max_parts);
    match names {
        Ok(names) => write_names(output, method, sequence, &names),
        Err(error) => write_store_failure(output, (method, sequence), error, throws::GET),
    }
}

/// The reply of `method`: a result struct whose `success` (field 0) is the list of `names`.
fn write_names(
    o: &mut Encoder<'_>,
    method: &str,
    sequence: i32,
    names: &NameListing,
) -> thrift::Result<Answer> {
    o.reserve(names.text_len() + names.len() * LENGTH_PREFIX_MAX + 64);
    o.reply_begin(method, sequence);
    o.struct_begin();
    o.field(TType::List, 0);
    o.string_list(names.len(), names.iter())?;
    o.struct_end();
    Ok(Answer::Written)
}
