//! Turns one complete request message into its reply.
//!
//! Implemented methods go to the generated processor. Every other call — a method hivestore
//! does not implement yet, or a name the IDL does not know — is answered `UNKNOWN_METHOD` here,
//! whatever its arguments, after skipping them whole so the stream stays in step. One-way calls
//! get no reply.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Instant;

use hivestore_idl::handler::{Adapter, Method, METHODS};
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
use crate::service::{is_implemented, ServerState, Session};

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
        let mut method_called = None;
        let outcome = self.answer(message, protocol, reply, &mut method_called);
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
        let method = method_by_name(&header.name);
        *method_called = method.map(|method| method.name);
        let Some(method) = method.filter(|method| is_implemented(method.name)) else {
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
            write_unknown_method(&header, method.is_some(), protocol, reply)?;
            return Ok(Outcome::Reply);
        };
        tracing::debug!(method = method.name, "call");
        let reply_start = reply.len();
        if !one_way && direct::serves(method.name) {
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
                Ok(Answer::Written) => return Ok(Outcome::Reply),
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
        method_by_name(name)
            .map(|method| method.name)
            .filter(|method| is_implemented(method) && direct::answers_arriving(method))
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
        let reply_start = reply.len();
        let arrived = direct::answer_arriving(method, message, &self.limits, reply, &self.session)
            .map_err(|error| DispatchError(format!("{method}: {error}")))?;
        match &arrived {
            Arrived::Answered(_) => {
                tracing::debug!(method, "call");
                self.state
                    .counters
                    .record_server_time(method, started.elapsed());
            }
            Arrived::Declined | Arrived::Broken(_) => reply.truncate(reply_start),
        }
        Ok(arrived)
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

fn method_by_name(name: &str) -> Option<&'static Method> {
    static INDEX: OnceLock<HashMap<&'static str, &'static Method>> = OnceLock::new();
    INDEX
        .get_or_init(|| METHODS.iter().map(|method| (method.name, method)).collect())
        .get(name)
        .copied()
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

/// `in_idl`: the method exists in Hive's API but hivestore does not implement it yet.
fn write_unknown_method(
    header: &TMessageIdentifier,
    in_idl: bool,
    protocol: Protocol,
    reply: &mut Vec<u8>,
) -> Result<(), DispatchError> {
    let message = if in_idl {
        format!("hivestore does not implement {} yet", header.name)
    } else {
        format!("Invalid method name: '{}'", header.name)
    };
    let error = ApplicationError::new(ApplicationErrorKind::UnknownMethod, message);
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
