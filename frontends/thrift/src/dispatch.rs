//! Turns one complete request message into its reply.
//!
//! Implemented methods go to the generated processor. Every other call — a method hivestore
//! does not implement yet, or a name the IDL does not know — is answered `UNKNOWN_METHOD` here,
//! whatever its arguments, after skipping them whole so the stream stays in step. One-way calls
//! get no reply. Every reply is settled before it goes out: it waits until what the call read
//! is durable, or becomes an `INTERNAL_ERROR` when that cannot be (engine `visibility.rs`).

use std::time::Instant;

use hivestore_idl::handler::Adapter;
use hivestore_idl::hive_metastore::ThriftHiveMetastoreSyncProcessor;
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
    TInputProtocol, TMessageIdentifier, TMessageType, TOutputProtocol, TType,
};
use thrift::server::TProcessor;
use thrift::{ApplicationError, ApplicationErrorKind, TConfiguration};

use std::sync::Arc;

use crate::detect::Protocol;
pub use crate::direct::Arrived;
use crate::direct::{self, Answer};
use crate::limits::Limits;
use crate::message::Arriving;
use crate::methods;
use crate::service::{ServerState, Session};

/// What became of a request.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A reply was appended to the reply buffer.
    Reply,
    /// A one-way call: nothing to send back.
    NoReply,
}

/// A request that cannot be answered; the connection must close.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DispatchError(String);

/// Answers the requests of one connection.
pub struct Dispatcher {
    processor: ThriftHiveMetastoreSyncProcessor<Adapter<Session>>,
    session: Arc<Session>,
    state: Arc<ServerState>,
    limits: Limits,
}

impl Dispatcher {
    /// A dispatcher whose calls go to `session`.
    pub fn new(session: Session, state: Arc<ServerState>, limits: Limits) -> Self {
        let session = Arc::new(session);
        Dispatcher {
            processor: ThriftHiveMetastoreSyncProcessor::new(Adapter(Arc::clone(&session))),
            session,
            state,
            limits,
        }
    }

    /// Answers `message` (one whole request), appending the reply to `reply`, and counts the
    /// time it took against the method called.
    pub fn dispatch(
        &self,
        message: &[u8],
        protocol: Protocol,
        reply: &mut Vec<u8>,
    ) -> Result<Outcome, DispatchError> {
        let started = Instant::now();
        let mark = self.state.store().read_mark();
        let reply_start = reply.len();
        let mut method_called = None;
        let outcome = self.answer(message, protocol, reply, &mut method_called);
        if let Ok(Outcome::Reply) = outcome {
            self.settle(mark, protocol, reply, reply_start)?;
        }
        if let Some(method) = method_called {
            self.state
                .counters
                .record_server_time(method, started.elapsed());
        }
        outcome
    }

    fn answer(
        &self,
        message: &[u8],
        protocol: Protocol,
        reply: &mut Vec<u8>,
        method_called: &mut Option<&'static str>,
    ) -> Result<Outcome, DispatchError> {
        let config = self.decode_config(message.len())?;
        let mut input = input_protocol(protocol, message, config.clone());
        let header = input
            .read_message_begin()
            .map_err(|error| DispatchError(format!("unreadable message header: {error}")))?;
        if !matches!(
            header.message_type,
            TMessageType::Call | TMessageType::OneWay
        ) {
            return Err(DispatchError(format!(
                "a client sent a {:?} message for {}",
                header.message_type, header.name
            )));
        }
        let one_way = header.message_type == TMessageType::OneWay;
        let found = methods::lookup(&header.name);
        let method = found.map(|(method, _)| method);
        *method_called = method.map(|method| method.name);
        let (Some(method), Some(row)) = (method, found.and_then(|(_, row)| row)) else {
            tracing::debug!(method = %header.name, "call of a method hivestore does not implement");
            input
                .skip(TType::Struct)
                .map_err(|error| DispatchError(format!("unreadable arguments: {error}")))?;
            let one_way = one_way || method.is_some_and(|method| method.oneway);
            if let Some(method) = method {
                self.state.counters.record_call(method.name, true);
            }
            if one_way {
                return Ok(Outcome::NoReply);
            }
            write_unknown_method(&header, protocol, reply)?;
            return Ok(Outcome::Reply);
        };
        tracing::debug!(method = method.name, "call");
        let reply_start = reply.len();
        if !one_way && row.has_fast_path() {
            let sequence = header.sequence_number;
            let answer = direct::answer(
                method.name,
                sequence,
                message,
                &mut *input,
                protocol,
                reply,
                &self.session,
            );
            match answer {
                Ok(Answer::Written | Answer::Failed) => return Ok(Outcome::Reply),
                Ok(Answer::Declined) => reply.truncate(reply_start),
                Err(error) => return Err(DispatchError(format!("{}: {error}", method.name))),
            }
        }
        let mut input = input_protocol(protocol, message, config);
        let result = {
            let mut output = output_protocol(protocol, reply);
            self.processor.process(&mut *input, &mut *output)
        };
        result.map_err(|error| DispatchError(format!("{}: {error}", method.name)))?;
        if method.oneway || one_way {
            reply.truncate(reply_start);
            return Ok(Outcome::NoReply);
        }
        Ok(Outcome::Reply)
    }

    /// The method an unframed binary call of `name` calls, when this dispatcher reads such calls
    /// as they arrive ([`Dispatcher::dispatch_arriving`]).
    pub fn arriving_method(&self, name: &str) -> Option<&'static str> {
        methods::implemented(name)
            .filter(|method| method.is_read_arriving())
            .map(|method| method.name)
    }

    /// Answers an unframed binary call of `method` (from [`Dispatcher::arriving_method`]) read
    /// once, as it arrives, appending the reply to `reply`; or declines it, having done nothing
    /// (the message is then read whole and [`Dispatcher::dispatch`]ed). The time counted against
    /// the method includes the wait for its bytes after the header.
    pub fn dispatch_arriving(
        &self,
        method: &'static str,
        message: &mut dyn Arriving,
        reply: &mut Vec<u8>,
    ) -> Result<Arrived, DispatchError> {
        let started = Instant::now();
        let mark = self.state.store().read_mark();
        let reply_start = reply.len();
        let arrived = direct::answer_arriving(method, message, &self.limits, reply, &self.session)
            .map_err(|error| DispatchError(format!("{method}: {error}")))?;
        match &arrived {
            Arrived::Answered(_) => {
                self.settle(mark, Protocol::Binary, reply, reply_start)?;
                tracing::debug!(method, "call");
                self.state
                    .counters
                    .record_server_time(method, started.elapsed());
            }
            Arrived::Declined | Arrived::Broken(_) => reply.truncate(reply_start),
        }
        Ok(arrived)
    }

    /// Lets the reply from `reply_start` on go out only once what its call read is durable;
    /// otherwise replaces it with an `INTERNAL_ERROR` saying why (the client may retry).
    fn settle(
        &self,
        mark: hivestore_engine::ReadMark,
        protocol: Protocol,
        reply: &mut Vec<u8>,
        reply_start: usize,
    ) -> Result<(), DispatchError> {
        let Err(error) = self.state.store().settle(mark) else {
            return Ok(());
        };
        let header = input_protocol(protocol, &reply[reply_start..], TConfiguration::default())
            .read_message_begin()
            .map_err(|error| DispatchError(format!("rereading a reply's header: {error}")))?;
        tracing::warn!(method = %header.name, %error, "an answer did not settle; sent as an error");
        reply.truncate(reply_start);
        write_application_error(
            &header,
            ApplicationErrorKind::InternalError,
            error.to_string(),
            protocol,
            reply,
        )
    }

    /// The session its calls go to, for the tests that read what a call named.
    #[cfg(test)]
    pub(crate) fn session(&self) -> &Session {
        &self.session
    }

    /// Limits for decoding one message: nothing in it can be longer than the message itself.
    fn decode_config(&self, message_bytes: usize) -> Result<TConfiguration, DispatchError> {
        let limits = &self.limits;
        TConfiguration::builder()
            .max_message_size(Some(message_bytes))
            .max_frame_size(Some(message_bytes))
            .max_string_size(Some(limits.string_bytes_max.min(message_bytes)))
            .max_container_size(Some(limits.container_elements_max.min(message_bytes)))
            .build()
            .map_err(|error| DispatchError(format!("decoder configuration: {error}")))
    }
}

fn input_protocol<'a>(
    protocol: Protocol,
    message: &'a [u8],
    config: TConfiguration,
) -> Box<dyn TInputProtocol + 'a> {
    match protocol {
        // Non-strict reading accepts both strict and old-style message headers.
        Protocol::Binary => Box::new(TBinaryInputProtocol::with_config(message, false, config)),
        Protocol::Compact => Box::new(TCompactInputProtocol::with_config(message, config)),
    }
}

fn output_protocol<'a>(
    protocol: Protocol,
    reply: &'a mut Vec<u8>,
) -> Box<dyn TOutputProtocol + 'a> {
    match protocol {
        Protocol::Binary => Box::new(TBinaryOutputProtocol::new(reply, true)),
        Protocol::Compact => Box::new(TCompactOutputProtocol::new(reply)),
    }
}

/// Answers a method hivestore does not implement, or a name the IDL does not know, with
/// Thrift's own text for both.
fn write_unknown_method(
    header: &TMessageIdentifier,
    protocol: Protocol,
    reply: &mut Vec<u8>,
) -> Result<(), DispatchError> {
    let message = format!("Invalid method name: '{}'", header.name);
    write_application_error(
        header,
        ApplicationErrorKind::UnknownMethod,
        message,
        protocol,
        reply,
    )
}

/// Appends a `TApplicationException` of `kind` answering the call `header` names.
fn write_application_error(
    header: &TMessageIdentifier,
    kind: ApplicationErrorKind,
    message: String,
    protocol: Protocol,
    reply: &mut Vec<u8>,
) -> Result<(), DispatchError> {
    let error = ApplicationError::new(kind, message);
    let ident = TMessageIdentifier::new(
        header.name.clone(),
        TMessageType::Exception,
        header.sequence_number,
    );
    let mut output = output_protocol(protocol, reply);
    let written = output
        .write_message_begin(&ident)
        .and_then(|()| thrift::Error::write_application_error_to_out_protocol(&error, &mut *output))
        .and_then(|()| output.write_message_end())
        .and_then(|()| output.flush());
    written.map_err(|error| DispatchError(format!("writing a reply: {error}")))
}
