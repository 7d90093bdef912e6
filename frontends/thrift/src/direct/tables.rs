//! `get_table` and `get_table_req` from the archived table, and their errors. They mirror
//! `calls::tables::get` and `calls::tables::get_req`, which answer what is declined here: a
//! reader's snapshot, a materialized view, an archive that fails validation.

use hivestore_engine::{Table, ValueView};
use hivestore_idl::hive_metastore::GetTableRequest;
use thrift::protocol::{TInputProtocol, TType};

use super::wire::Encoder;
use super::{
    encode, read_string_arguments, read_struct_argument, write_failure, write_success, Answer,
};
use crate::calls::{catalog_or_default, require_database_name};
use crate::detect::Protocol;
use crate::errors::{throws, to_thrift};
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
            let error = to_thrift(error, throws::GET);
            return write_failure(output, "get_table", sequence, &error);
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
            let error = to_thrift(error, throws::GET);
            return write_failure(output, "get_table_req", sequence, &error);
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use hivestore_idl::handler::Adapter;
    use hivestore_idl::hive_metastore::ThriftHiveMetastoreSyncProcessor;
    use thrift::protocol::{
        TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
        TFieldIdentifier, TMessageIdentifier, TMessageType, TOutputProtocol, TSerializable,
        TStructIdentifier,
    };
    use thrift::server::TProcessor;

    use super::*;
    use crate::service::ServerState;

    fn output(protocol: Protocol, out: &mut Vec<u8>) -> Box<dyn TOutputProtocol + '_> {
        match protocol {
            Protocol::Binary => Box::new(TBinaryOutputProtocol::new(out, true)),
            Protocol::Compact => Box::new(TCompactOutputProtocol::new(out)),
        }
    }

    fn input(protocol: Protocol, bytes: &[u8]) -> Box<dyn TInputProtocol + '_> {
        match protocol {
            Protocol::Binary => Box::new(TBinaryInputProtocol::new(bytes, true)),
            Protocol::Compact => Box::new(TCompactInputProtocol::new(bytes)),
        }
    }

    /// A call of `method` whose arguments `write_arguments` writes.
    fn call(
        method: &str,
        protocol: Protocol,
        write_arguments: impl FnOnce(&mut dyn TOutputProtocol),
    ) -> Vec<u8> {
        let mut message = Vec::new();
        let mut writer = output(protocol, &mut message);
        let o = &mut *writer;
        let header = TMessageIdentifier::new(method, TMessageType::Call, 9);
        o.write_message_begin(&header).unwrap();
        o.write_struct_begin(&TStructIdentifier::new("args"))
            .unwrap();
        write_arguments(o);
        o.write_field_stop().unwrap();
        o.write_struct_end().unwrap();
        o.write_message_end().unwrap();
        drop(writer);
        message
    }

    fn get_table_call(protocol: Protocol, database: &str, table: &str) -> Vec<u8> {
        call("get_table", protocol, |o| {
            for (id, value) in [(1, database), (2, table)] {
                o.write_field_begin(&TFieldIdentifier::new("name", TType::String, id))
                    .unwrap();
                o.write_string(value).unwrap();
                o.write_field_end().unwrap();
            }
        })
    }

    fn get_table_req_call(protocol: Protocol, database: &str, table: &str) -> Vec<u8> {
        call("get_table_req", protocol, |o| {
            let request = GetTableRequest {
                db_name: database.to_string(),
                tbl_name: table.to_string(),
                capabilities: None,
                cat_name: None,
                valid_write_id_list: None,
                get_column_stats: None,
                processor_capabilities: None,
                processor_identifier: None,
                engine: None,
                id: None,
            };
            o.write_field_begin(&TFieldIdentifier::new("req", TType::Struct, 1))
                .unwrap();
            request.write_to_out_protocol(o).unwrap();
            o.write_field_end().unwrap();
        })
    }

    /// The fast path's reply and what it said, and the generated processor's reply.
    fn both_replies(
        session: Session,
        message: &[u8],
        protocol: Protocol,
    ) -> (Answer, Vec<u8>, Vec<u8>) {
        let mut input_protocol = input(protocol, message);
        let header = input_protocol.read_message_begin().unwrap();
        let method = if header.name == "get_table" {
            "get_table"
        } else {
            "get_table_req"
        };
        let mut fast = Vec::new();
        let answer = super::super::answer(
            method,
            header.sequence_number,
            message,
            &mut *input_protocol,
            protocol,
            &mut fast,
            &session,
        )
        .unwrap();
        let processor = ThriftHiveMetastoreSyncProcessor::new(Adapter(Arc::new(session)));
        let mut generated = Vec::new();
        processor
            .process(
                &mut *input(protocol, message),
                &mut *output(protocol, &mut generated),
            )
            .unwrap();
        (answer, fast, generated)
    }

    /// A missing table or database, and a name with a catalog marker but no separator, are
    /// answered on the fast path with the bytes the generated processor writes for them.
    #[test]
    fn errors_are_answered_here_as_the_generated_processor_answers_them() {
        let state = Arc::new(ServerState::new(super::super::memory_store_with_db()));
        let session = || Session::new(Arc::clone(&state), "127.0.0.1:9083".parse().unwrap());
        let cases = [
            ("db", "nope"),
            ("nodb", "t"),
            ("@hive", "t"),
            ("@nocat#db", "t"),
        ];
        for protocol in [Protocol::Binary, Protocol::Compact] {
            for (database, table) in cases {
                let messages = [
                    get_table_call(protocol, database, table),
                    get_table_req_call(protocol, database, table),
                ];
                for message in messages {
                    let (answer, fast, generated) = both_replies(session(), &message, protocol);
                    let case = format!("{protocol:?} {database}.{table}");
                    assert_eq!(answer, Answer::Failed, "{case}");
                    assert_eq!(fast, generated, "{case}");
                }
            }
        }
    }
}
