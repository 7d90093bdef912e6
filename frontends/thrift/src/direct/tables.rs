//! `get_table` and `get_table_req` from the archived table. They mirror `calls::tables::get`
//! and `calls::tables::get_req`, which answer the same calls when the table is not there.

use hivestore_idl::hive_metastore::GetTableRequest;
use thrift::protocol::{TInputProtocol, TType};

use super::wire::Encoder;
use super::{encode, read_string_arguments, read_struct_argument, write_success, Answer};
use crate::calls::{catalog_or_default, require_database_name};
use crate::service::Session;

/// `get_table(dbname, tbl_name)`.
pub(super) fn get_table(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok([Some(database), Some(name)]) = read_string_arguments::<2>(input) else {
        return Ok(Answer::Declined);
    };
    let Ok((catalog, database)) = require_database_name(&database) else {
        return Ok(Answer::Declined);
    };
    let Ok(view) = session.store().get_table_view(&catalog, &database, &name) else {
        return Ok(Answer::Declined);
    };
    let Ok(table) = view.archived() else {
        return Ok(Answer::Declined);
    };
    write_success(output, "get_table", sequence, |o| encode::table(o, table))?;
    Ok(Answer::Written)
}

/// `get_table_req(GetTableRequest)`: a `GetTableResult` without `isStatsCompliant`.
pub(super) fn get_table_req(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok(Some(request)) = read_struct_argument::<GetTableRequest>(input) else {
        return Ok(Answer::Declined);
    };
    let catalog = catalog_or_default(request.cat_name);
    let store = session.store();
    let Ok(view) = store.get_table_view(&catalog, &request.db_name, &request.tbl_name) else {
        return Ok(Answer::Declined);
    };
    let Ok(table) = view.archived() else {
        return Ok(Answer::Declined);
    };
    write_success(output, "get_table_req", sequence, |o| {
        o.struct_begin();
        o.field(TType::Struct, 1);
        encode::table(o, table)?;
        o.struct_end();
        Ok(())
    })?;
    Ok(Answer::Written)
}
