//! The hottest read calls, answered from the store's archived values written straight to the
//! wire: no owned copy of the object, no IDL struct, no allocation per field. And the biggest
//! requests, `add_partitions(_req)`, read from the message's bytes straight into the engine's
//! partitions (`add_partitions.rs`). Partitions' column statistics are written from the
//! engine's statistics, without IDL structs (`stats.rs`).
//!
//! Each call's arguments are read with the generated processor's own reader, and handed to the
//! function of `calls/` that the generic path calls with them (the table a call names, a
//! partition listing, the statistics found), which also names what the call does
//! (`Session::authorize`); only the reply is written here. A call's error — a missing table, a
//! bad filter, a bad argument, a refusal — is answered here, as the generated processor would
//! write it ([`write_failure`]; `failure_tests.rs` and `stats_tests.rs` hold the two
//! together). A call declined after it named its objects forgets them: the generic path names
//! them again. What is declined — arguments the generated reader refuses, internal errors — is
//! left to the generated processor and `calls/`; `add_partitions(_req)`, which acts before it
//! replies, answers every outcome itself ([`write_failure_after_acting`]). `encode.rs` writes the same bytes the generated code writes for what
//! `convert.rs` builds; its tests hold the two together.

mod add_partitions;
#[cfg(test)]
mod add_partitions_tests;
mod encode;
mod encoded_tables;
#[cfg(test)]
mod failure_tests;
mod partition_decode;
mod partition_names;
mod partitions;
mod stats;
mod stats_encode;
#[cfg(test)]
mod stats_tests;
mod tables;
mod wire;
mod wire_reader;

use thrift::protocol::{TInputProtocol, TType};

pub use add_partitions::Arrived;
pub use encoded_tables::EncodedTables;

use crate::detect::Protocol;
use crate::service::Session;
use wire::Encoder;

/// An in-memory store holding the empty database `db`, for the tests of direct answers.
#[cfg(test)]
pub(crate) fn memory_store_with_db() -> hivestore_engine::Store {
    use hivestore_engine as engine;
    let mut options = engine::StoreOptions::new("memory:/warehouse");
    options.durability = engine::Durability::Memory;
    let backend = std::sync::Arc::new(engine::kv::MemoryBackend::new());
    let store = engine::Store::open_with_backend(backend, options).unwrap();
    store
        .create_database(engine::Database {
            name: "db".into(),
            ..engine::Database::default()
        })
        .unwrap();
    store
}

/// What became of a call offered here.
#[derive(Debug, PartialEq, Eq)]
pub enum Answer {
    /// The reply was written.
    Written,
    /// The call failed, and its exception was written as the reply.
    Failed,
    /// Not answered (the store said no, or the arguments are missing or unreadable): nothing
    /// was written; the generated processor answers it, as it would have.
    Declined,
}

/// Answers an unframed binary call of `method` (one read as it arrives, `methods.rs`) reading its
/// message once, as it arrives, within `limits`; or declines it, having done nothing.
pub fn answer_arriving(
    method: &'static str,
    message: &mut dyn crate::message::Arriving,
    limits: &crate::limits::Limits,
    reply: &mut Vec<u8>,
    session: &Session,
) -> thrift::Result<Arrived> {
    assert!(
        crate::methods::implemented(method).is_some_and(|method| method.is_read_arriving()),
        "{method} is not read as it arrives"
    );
    add_partitions::answer_arriving(method, message, limits, reply, session)
}

/// Answers a call of `method` whose header was read from `input` (over `message`, the whole
/// request), appending the reply to `reply` in `protocol`, or declines it.
pub fn answer(
    method: &'static str,
    sequence: i32,
    message: &[u8],
    input: &mut dyn TInputProtocol,
    protocol: Protocol,
    reply: &mut Vec<u8>,
    session: &Session,
) -> thrift::Result<Answer> {
    if matches!(method, "add_partitions" | "add_partitions_req") {
        return add_partitions::answer(method, sequence, message, protocol, reply, session);
    }
    let output = &mut Encoder::new(reply, protocol);
    let answer = match method {
        "get_table" => tables::get_table(sequence, input, output, protocol, session)?,
        "get_table_req" => tables::get_table_req(sequence, input, output, protocol, session)?,
        "get_partition_names" => {
            partition_names::get_partition_names(sequence, input, output, session)?
        }
        "get_partition_names_ps" => {
            partition_names::get_partition_names_ps(sequence, input, output, session)?
        }
        "get_partitions" => partitions::get_partitions(sequence, input, output, protocol, session)?,
        "get_partitions_req" => {
            partitions::get_partitions_req(sequence, input, output, protocol, session)?
        }
        "get_partitions_by_expr" => {
            partitions::get_partitions_by_expr(sequence, input, output, protocol, session)?
        }
        "get_partitions_by_filter" => {
            partitions::get_partitions_by_filter(sequence, input, output, protocol, session)?
        }
        "get_partitions_by_names" => {
            let call = (sequence, message);
            partitions::get_partitions_by_names(call, input, output, protocol, session)?
        }
        "get_partitions_by_names_req" => {
            partitions::get_partitions_by_names_req(sequence, input, output, protocol, session)?
        }
        "get_partitions_ps" => {
            partitions::get_partitions_ps(sequence, input, output, protocol, session)?
        }
        "get_partitions_statistics_req" => {
            stats::get_partitions_statistics_req(sequence, input, output, session)?
        }
        _ => {
            return Err(thrift::Error::Application(thrift::ApplicationError::new(
                thrift::ApplicationErrorKind::InternalError,
                format!("{method} has no fast path, yet methods.rs gives it one"),
            )))
        }
    };
    if answer == Answer::Declined {
        drop(session.take_targets());
    } else {
        hivestore_idl::handler::Handler::observe(session, method, answer == Answer::Failed);
    }
    Ok(answer)
}

/// Writes `error` as the reply to a call of `method` that was not served: its declared
/// exception when the method declares the error's kind, else a `TApplicationException`.
pub fn write_refusal(
    method: &str,
    sequence: i32,
    protocol: Protocol,
    reply: &mut Vec<u8>,
    error: thrift::Error,
) -> thrift::Result<()> {
    write_failure_after_acting(&mut Encoder::new(reply, protocol), method, sequence, error)
}

/// Writes the reply to a call that succeeded: the header, then the result struct whose
/// `success` field (id 0) is the struct `body` writes.
fn write_success(
    o: &mut Encoder<'_>,
    method: &str,
    sequence: i32,
    body: impl FnOnce(&mut Encoder<'_>) -> thrift::Result<()>,
) -> thrift::Result<()> {
    o.reply_begin(method, sequence);
    o.struct_begin();
    o.field(TType::Struct, 0);
    body(o)?;
    o.struct_end();
    Ok(())
}

/// Writes the reply to a call of `method` whose store call failed with `error`: the exception
/// of those `declared`, as the generic path converts it. An internal error (an encoding's, say)
/// is declined, for the generic path to answer.
fn write_store_failure(
    o: &mut Encoder<'_>,
    (method, sequence): (&str, i32),
    error: hivestore_engine::Error,
    declared: &[crate::errors::Declared],
) -> thrift::Result<Answer> {
    if matches!(error, hivestore_engine::Error::Internal(_)) {
        return Ok(Answer::Declined);
    }
    write_failure(
        o,
        method,
        sequence,
        &crate::errors::to_thrift(error, declared),
    )
}

/// Writes the reply to a call of `method` that failed with `error` after it acted, so that it
/// cannot be declined: a declared exception in its field of the result struct, anything else
/// as the application error the generated processor makes of it.
fn write_failure_after_acting(
    o: &mut Encoder<'_>,
    method: &str,
    sequence: i32,
    error: thrift::Error,
) -> thrift::Result<()> {
    if write_failure(o, method, sequence, &error)? == Answer::Failed {
        return Ok(());
    }
    let application = match error {
        thrift::Error::Application(application) => application,
        // An exception the method does not declare: its message, which its Display lacks.
        other => {
            let message = match crate::errors::declared_parts(&other) {
                Some((kind, Some(message))) => format!("{kind}: {message}"),
                _ => other.to_string(),
            };
            thrift::ApplicationError::new(
                thrift::ApplicationErrorKind::Unknown,
                hivestore_engine::bounded_message(message),
            )
        }
    };
    o.exception_begin(method, sequence);
    o.struct_begin();
    o.string_field(1, &application.message);
    o.i32_field(2, application.kind as i32);
    o.struct_end();
    Ok(())
}

/// Writes the reply to a call of `method` that failed with `error` as the generated processor
/// writes it: a declared exception in its field of the result struct. An error the method does
/// not declare is declined, for the generated processor to answer.
fn write_failure(
    o: &mut Encoder<'_>,
    method: &str,
    sequence: i32,
    error: &thrift::Error,
) -> thrift::Result<Answer> {
    let Some((kind, message)) = crate::errors::declared_parts(error) else {
        return Ok(Answer::Declined);
    };
    let field = crate::methods::lookup(method)
        .and_then(|(declared, _)| declared.throws.iter().find(|(name, _)| *name == kind))
        .map(|(_, id)| *id);
    let Some(field) = field else {
        return Ok(Answer::Declined);
    };
    o.reply_begin(method, sequence);
    o.struct_begin();
    o.field(TType::Struct, field);
    o.struct_begin();
    if let Some(message) = message {
        o.string_field(1, message);
    }
    o.struct_end();
    o.struct_end();
    Ok(Answer::Failed)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use thrift::protocol::{
        TBinaryInputProtocol, TBinaryOutputProtocol, TMessageIdentifier, TMessageType,
        TOutputProtocol, TStructIdentifier,
    };

    use super::*;
    use crate::methods::IMPLEMENTED;
    use crate::service::ServerState;

    /// Every method the table gives a fast path is answered here: a call without arguments is
    /// answered or declined, never refused as a method without a fast path.
    #[test]
    fn every_fast_path_in_the_table_is_answered_here() {
        let state = Arc::new(ServerState::new(memory_store_with_db()));
        let session = Session::new(state, "127.0.0.1:9083".parse().unwrap());
        let fast: Vec<_> = IMPLEMENTED.iter().filter(|m| m.has_fast_path()).collect();
        assert!(!fast.is_empty());
        for method in fast {
            let mut message = Vec::new();
            let mut output = TBinaryOutputProtocol::new(&mut message, true);
            let header = TMessageIdentifier::new(method.name, TMessageType::Call, 1);
            output.write_message_begin(&header).unwrap();
            output
                .write_struct_begin(&TStructIdentifier::new("args"))
                .unwrap();
            output.write_field_stop().unwrap();
            output.write_struct_end().unwrap();
            output.write_message_end().unwrap();
            let mut input = TBinaryInputProtocol::new(&message[..], true);
            input.read_message_begin().unwrap();
            let mut reply = Vec::new();
            let answer = answer(
                method.name,
                1,
                &message,
                &mut input,
                Protocol::Binary,
                &mut reply,
                &session,
            );
            if let Err(error) = answer {
                panic!("{}: {error}", method.name);
            }
        }
    }
}
