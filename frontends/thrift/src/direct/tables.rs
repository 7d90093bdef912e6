//! `get_table` and `get_table_req` from the archived table, and their errors. They mirror
//! `calls::tables::get` and `calls::tables::get_req`, which answer what is declined here: a
//! reader's snapshot, a materialized view, an archive that fails validation.

use hivestore_engine::{Table, ValueView};
use hivestore_idl::hive_metastore::GetTableRequest;
use thrift::protocol::{TInputProtocol, TType};

use super::wire::Encoder;
use super::{
    encode, read_string_arguments, read_struct_argument, write_failure, write_store_failure,
    write_success, Answer,
};
use crate::calls::{catalog_or_default, require_database_name};
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
    let Ok([Some(database), Some(name)]) = read_string_arguments::<2>(input) else {
        return Ok(Answer::Declined);
    };
    let (catalog, database) = match require_database_name(&database) {
        Ok(names) => names,
        Err(error) => return write_failure(output, "get_table", sequence, &error),
    };
    let view = match session.store().get_table_view(&catalog, &database, &name) {
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
    let Ok(Some(request)) = read_struct_argument::<GetTableRequest>(input) else {
        return Ok(Answer::Declined);
    };
    // A reader's snapshot may change the answer (statistics compliance): the generated path.
    if request.valid_write_id_list.is_some() {
        return Ok(Answer::Declined);
    }
    let catalog = catalog_or_default(request.cat_name);
    let store = session.store();
    let view = match store.get_table_view(&catalog, &request.db_name, &request.tbl_name) {
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
