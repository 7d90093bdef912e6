//! `get_table` and `get_table_req` from the archived table, and their errors. Each reads its
//! arguments with the generated processor's reader and names its table with the function of
//! `calls::tables` the generic path uses. The generic path answers what is declined here: a
//! reader's snapshot, a materialized view, an archive that fails validation.

use hivestore_engine::{Table, ValueView};
use hivestore_idl::hive_metastore::{
    ThriftHiveMetastoreGetTableArgs, ThriftHiveMetastoreGetTableReqArgs,
};
use thrift::protocol::{TInputProtocol, TType};

use super::wire::Encoder;
use super::{encode, write_failure, write_store_failure, write_success, Answer};
use crate::calls::tables::{get_req_table_name, get_table_name};
use crate::detect::Protocol;
use crate::errors::throws;
use crate::service::Session;

/// `get_table(dbname, tbl_name)`.
pub(super) fn get_table(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok(args) = ThriftHiveMetastoreGetTableArgs::read_from_in_protocol(input) else {
        return Ok(Answer::Declined);
    };
    let table = match get_table_name(session, &args.dbname, args.tbl_name) {
        Ok(table) => table,
        Err(error) => return write_failure(output, "get_table", sequence, &error),
    };
    let view = session
        .store()
        .get_table_view(&table.catalog, &table.database, &table.name);
    let view = match view {
        Ok(view) => view,
        Err(error) => {
            return write_store_failure(output, ("get_table", sequence), error, throws::GET)
        }
    };
    let Some(encoded) = encoded_table(session, protocol, &view) else {
        return Ok(Answer::Declined);
    };
    write_success(output, "get_table", sequence, |o| {
        o.raw(&encoded, 0);
        Ok(())
    })?;
    Ok(Answer::Written)
}

/// `get_table_req(GetTableRequest)` without a `validWriteIdList`: a `GetTableResult` without
/// `isStatsCompliant`.
pub(super) fn get_table_req(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    protocol: Protocol,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok(args) = ThriftHiveMetastoreGetTableReqArgs::read_from_in_protocol(input) else {
        return Ok(Answer::Declined);
    };
    let request = args.req;
    // A reader's snapshot may change the answer (statistics compliance): the generated path.
    if request.valid_write_id_list.is_some() {
        return Ok(Answer::Declined);
    }
    let names = (request.cat_name, request.db_name, request.tbl_name);
    let table = match get_req_table_name(session, names) {
        Ok(table) => table,
        Err(error) => return write_failure(output, "get_table_req", sequence, &error),
    };
    let view = session
        .store()
        .get_table_view(&table.catalog, &table.database, &table.name);
    let view = match view {
        Ok(view) => view,
        Err(error) => {
            return write_store_failure(output, ("get_table_req", sequence), error, throws::GET)
        }
    };
    let Some(encoded) = encoded_table(session, protocol, &view) else {
        return Ok(Answer::Declined);
    };
    write_success(output, "get_table_req", sequence, |o| {
        o.struct_begin();
        o.field(TType::Struct, 1);
        o.raw(&encoded, 1);
        o.struct_end();
        Ok(())
    })?;
    Ok(Answer::Written)
}

/// The table's encoding as a whole struct: the one made before from the same stored bytes, or
/// a new one from the validated archive. `None` when the archive fails validation (the
/// generated path then reports the corruption).
fn encoded_table(
    session: &Session,
    protocol: Protocol,
    view: &ValueView<Table>,
) -> Option<Vec<u8>> {
    let kept = session.encoded_tables();
    let mut encoded = Vec::new();
    let reused = kept.use_if_current(view.key(), protocol, view.archive(), |bytes| {
        encoded.extend_from_slice(bytes)
    });
    if reused {
        return Some(encoded);
    }
    let table = view.archived().ok()?;
    // A materialized view's source tables and counts live apart from its record: the
    // engine's owned table carries them.
    if table.creation_metadata.is_some() {
        return None;
    }
    encode::table(&mut Encoder::new(&mut encoded, protocol), table).ok()?;
    kept.insert(view.key(), protocol, view.archive(), &encoded);
    Some(encoded)
}
