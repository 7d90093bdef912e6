//! Partition name listings: `get_partition_names` and `get_partition_names_ps`, written from
//! the store's name listing (one buffer, kept while the table is unchanged) with no `String`
//! per name. Each reads its arguments with the generated processor's reader and makes its
//! [`Listing`] with the function of `calls::partition_listings` the generic path uses.

use hivestore_engine::NameListing;
use hivestore_idl::hive_metastore::{
    ThriftHiveMetastoreGetPartitionNamesArgs, ThriftHiveMetastoreGetPartitionNamesPsArgs,
};
use thrift::protocol::{TInputProtocol, TType};

use super::wire::Encoder;
use super::{write_failure, write_store_failure, Answer};
use crate::calls::partition_listings::{names_listing, ps_listing, Listing};
use crate::service::Session;

/// Most bytes a name's length prefix takes (binary: 4; compact: a varint of at most 5).
const LENGTH_PREFIX_MAX: usize = 5;

/// `get_partition_names(db_name, tbl_name, max_parts)`.
pub(super) fn get_partition_names(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok(args) = ThriftHiveMetastoreGetPartitionNamesArgs::read_from_in_protocol(input) else {
        return Ok(Answer::Declined);
    };
    let listing = names_listing(session, &args.db_name, args.tbl_name, args.max_parts);
    answer_names(("get_partition_names", sequence), output, session, listing)
}

/// `get_partition_names_ps(db_name, tbl_name, part_vals, max_parts)`.
pub(super) fn get_partition_names_ps(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok(args) = ThriftHiveMetastoreGetPartitionNamesPsArgs::read_from_in_protocol(input) else {
        return Ok(Answer::Declined);
    };
    let listing = ps_listing(
        session,
        &args.db_name,
        args.tbl_name,
        &args.part_vals,
        args.max_parts,
    );
    answer_names(
        ("get_partition_names_ps", sequence),
        output,
        session,
        listing,
    )
}

/// Answers call `sequence` of `method` with the names of `listing`; a listing the arguments do
/// not make, or the store's error, is the call's error.
fn answer_names(
    (method, sequence): (&str, i32),
    output: &mut Encoder<'_>,
    session: &Session,
    listing: thrift::Result<Listing<'_>>,
) -> thrift::Result<Answer> {
    let listing = match listing {
        Ok(listing) => listing,
        Err(error) => return write_failure(output, method, sequence, &error),
    };
    match listing.name_listing(session) {
        Ok(names) => write_names(output, method, sequence, &names),
        Err(error) => write_store_failure(output, (method, sequence), error, listing.declared),
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
