//! Turns one complete request message into its reply.
//!
//! Implemented methods go to the generated processor. Every other call — a method hivestore
//! does not implement yet, or a name the IDL does not know — is answered `UNKNOWN_METHOD` here,
//! whatever its arguments, after skipping them whole so the stream stays in step. One-way calls
//! get no reply. Every reply is settled before it goes out: it waits until what the call read
//! is durable, or becomes an `INTERNAL_ERROR` when that cannot be (engine `visibility.rs`).

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use hivestore_idl::handler::{Adapter, Method};
use hivestore_idl::hive_metastore::ThriftHiveMetastoreSyncProcessor;
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
    TInputProtocol, TMessageIdentifier, TMessageType, TOutputProtocol, TType,
};
use thrift::server::TProcessor;
use thrift::{ApplicationError, ApplicationErrorKind, TConfiguration};

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::audit::{
    self, AuditLog, AuditRecord, CallOutcome, Quoted, AUDIT_COMMAND_CHARS_MAX,
    AUDIT_MESSAGE_CHARS_MAX,
};
use crate::detect::Protocol;
pub use crate::direct::Arrived;
use crate::direct::{self, Answer};
use crate::errors::{exception, Declared};
use crate::following::{Following, Route};
use crate::forwarding::{self, CatchUp, Forwarder, Waited};
use crate::limits::Limits;
use crate::message::Arriving;
use crate::methods::{self, Family};
use crate::service::{CallTargets, ServerState, Session};

/// What became of a request.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A reply was appended to the reply buffer.
    Reply,
    /// A one-way call: nothing to send back.
    NoReply,
}

/// The audit outcome of a call that ended its connection: unreadable, or its reply unwritable.
const CONNECTION_CLOSED: &str = "ConnectionClosed";
/// The most fields of an exception in a reply read for its message.
const EXCEPTION_FIELDS_MAX: usize = 16;

/// How a call was answered, as its audit line needs it.
#[derive(Default)]
enum Answered {
    /// By the generated processor.
    #[default]
    Generic,
    /// By a fast path.
    Fast(Answer),
    /// `UNKNOWN_METHOD`, for the method named (cut).
    Unknown(Quoted),
}

/// What the dispatcher learned of one call.
#[derive(Default)]
struct Call {
    /// The IDL's method, when the name is one.
    method: Option<&'static Method>,
    /// How it was answered.
    answer: Answered,
}

impl Call {
    /// The audit line's command: the method's wire name, or the unknown name cut; `None` when
    /// the message was unreadable before its name.
    fn command(&self) -> Option<std::borrow::Cow<'static, str>> {
        match (&self.answer, self.method) {
            (Answered::Unknown(name), _) if name.is_cut() => {
                Some(format!("{}...({} chars)", name.prefix, name.chars).into())
            }
            (Answered::Unknown(name), _) => Some(name.prefix.clone().into()),
            (_, Some(method)) => Some(method.name.into()),
            (_, None) => None,
        }
    }

    /// The outcome its reply (`reply`, empty for a one-way call) tells, when the handler
    /// reported no failure: a fast path's declared exception, or the generated processor's
    /// application error for arguments it could not read.
    fn outcome_of_reply(&self, protocol: Protocol, reply: &[u8]) -> CallOutcome {
        match &self.answer {
            Answered::Unknown(name) => {
                let message = format!("Invalid method name: '{}'", name.prefix);
                CallOutcome::failed(
                    audit::application_kind(ApplicationErrorKind::UnknownMethod),
                    &message,
                )
            }
            Answered::Fast(Answer::Written) => CallOutcome::Ok,
            _ if reply.is_empty() => CallOutcome::Ok,
            _ => read_reply_outcome(self.method, protocol, reply).unwrap_or_else(|error| {
                CallOutcome::failed("TProtocolException", &format!("unreadable reply: {error}"))
            }),
        }
    }
}

/// Reads a reply's outcome: its application error, or the declared exception its result
/// holds (type by field id, as `method` declares it), or `Ok`.
fn read_reply_outcome(
    method: Option<&'static Method>,
    protocol: Protocol,
    reply: &[u8],
) -> thrift::Result<CallOutcome> {
    let config = TConfiguration::default();
    let mut input = input_protocol(protocol, reply, config);
    let header = input.read_message_begin()?;
    if header.message_type == TMessageType::Exception {
        let error = thrift::Error::read_application_error_from_in_protocol(&mut *input)?;
        return Ok(CallOutcome::failed(
            audit::application_kind(error.kind),
            &error.message,
        ));
    }
    input.read_struct_begin()?;
    let field = input.read_field_begin()?;
    let Some(id) = field.id.filter(|id| *id != 0) else {
        return Ok(CallOutcome::Ok);
    };
    let kind = method
        .and_then(|method| method.throws.iter().find(|(_, field_id)| *field_id == id))
        .map_or("TException", |(kind, _)| *kind);
    input.read_struct_begin()?;
    for _ in 0..EXCEPTION_FIELDS_MAX {
        let field = input.read_field_begin()?;
        if field.field_type == TType::Stop {
            break;
        }
        if field.id == Some(1) && field.field_type == TType::String {
            let message = input.read_string()?;
            return Ok(CallOutcome::Failed {
                kind,
                message: Quoted::of(&message, AUDIT_MESSAGE_CHARS_MAX),
            });
        }
        input.skip(field.field_type)?;
        input.read_field_end()?;
    }
    Ok(CallOutcome::failed(kind, ""))
}

/// A call to forward, as the dispatcher read it.
struct Forward<'a> {
    following: &'a Arc<Following>,
    method: &'static Method,
    family: Family,
    sequence: i32,
    one_way: bool,
    wait: bool,
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
    /// The connection's upstream while following, once it forwarded a call; closed with it.
    forwarder: Mutex<Option<Forwarder>>,
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
            forwarder: Mutex::new(None),
        }
    }

    /// Answers `message` (one whole request), appending the reply to `reply`, counts the
    /// time it took against the method called, and writes its audit line.
    pub fn dispatch(
        &self,
        message: &[u8],
        protocol: Protocol,
        reply: &mut Vec<u8>,
    ) -> Result<Outcome, DispatchError> {
        let started = Instant::now();
        let mark = self.state.store().read_mark();
        let reply_start = reply.len();
        let mut call = Call::default();
        let mut outcome = self.answer(message, protocol, reply, &mut call);
        let mut replaced = None;
        if let Ok(Outcome::Reply) = outcome {
            match self.settle(mark, protocol, reply, reply_start) {
                Ok(reason) => replaced = reason,
                Err(error) => outcome = Err(error),
            }
        }
        if let Some(method) = call.method {
            self.state
                .counters
                .record_server_time(method.name, started.elapsed());
        }
        let targets = self.session.take_targets();
        let failure = self.session.take_failure();
        if let (Some(audit), Some(command)) = (self.session.audit(), call.command()) {
            let result = match (&outcome, replaced) {
                (Err(error), _) => CallOutcome::failed(CONNECTION_CLOSED, &error.0),
                (Ok(_), Some(reason)) => CallOutcome::failed(
                    audit::application_kind(ApplicationErrorKind::InternalError),
                    &reason,
                ),
                (Ok(_), None) => failure.unwrap_or_else(|| {
                    call.outcome_of_reply(protocol, &reply[reply_start.min(reply.len())..])
                }),
            };
            self.write_audit(audit, started, &command, &targets, &result);
        }
        outcome
    }

    /// Writes the audit line of a call that began at `started`.
    fn write_audit(
        &self,
        audit: &AuditLog,
        started: Instant,
        command: &str,
        targets: &CallTargets,
        outcome: &CallOutcome,
    ) {
        let duration = started.elapsed();
        let user = self.session.user();
        audit.write(&AuditRecord {
            time: SystemTime::now()
                .checked_sub(duration)
                .unwrap_or(UNIX_EPOCH),
            user: user.as_deref(),
            caller: self.session.caller(),
            ip: self.session.peer().ip(),
            command,
            targets,
            outcome,
            duration,
        });
    }

    fn answer(
        &self,
        message: &[u8],
        protocol: Protocol,
        reply: &mut Vec<u8>,
        call: &mut Call,
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
        call.method = method;
        let (Some(method), Some(row)) = (method, found.and_then(|(_, row)| row)) else {
            call.answer = Answered::Unknown(Quoted::of(&header.name, AUDIT_COMMAND_CHARS_MAX));
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
        tracing::debug!(
            method = method.name,
            user = self.session.user().as_deref().unwrap_or("-"),
            "call"
        );
        let refusal = match self.state.following() {
            Some(following) => match following.route(row) {
                Route::Served => {
                    self.close_upstream_after_cut_over(following);
                    None
                }
                Route::Forwarded { wait } => match following.start_forward() {
                    Some(_in_flight) => {
                        let forward = Forward {
                            following,
                            method,
                            family: row.family,
                            sequence: header.sequence_number,
                            one_way: one_way || method.oneway,
                            wait,
                        };
                        return self.forward(&forward, message, protocol, reply, call);
                    }
                    // A cut-over is under way: the call is served here once it is done.
                    None => cut_over_refusal(following, method.name),
                },
                Route::Refused(refusal) => Some(refusal),
            },
            None => None,
        }
        .or_else(|| self.reader_refusal(row));
        if let Some(refusal) = refusal {
            return self.refuse(
                method,
                &header,
                &mut *input,
                protocol,
                reply,
                call,
                one_way,
                refusal,
            );
        }
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
                Ok(answer @ (Answer::Written | Answer::Failed)) => {
                    call.answer = Answered::Fast(answer);
                    return Ok(Outcome::Reply);
                }
                Ok(Answer::Declined) => {
                    reply.truncate(reply_start);
                    // The generic path names the call's objects again.
                    self.session.take_targets();
                }
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

    /// On a server that reads beside the one writing its store: the error a call of `method`
    /// gets, or `None` once the store has caught up with the writer's last commit, so that
    /// the call sees what any other server acknowledged before it began.
    fn reader_refusal(&self, method: &methods::Implemented) -> Option<thrift::Error> {
        let store = self.state.store();
        if !store.is_reader() {
            return None;
        }
        if !crate::following::served_by_reader(method) {
            return Some(exception(
                Declared::Meta,
                format!(
                    "{} is refused: this server reads beside the hivestore server that writes \
                     its PostgreSQL database; send writes to that server",
                    method.name
                ),
            ));
        }
        let caught_up = store.catch_up().err()?;
        Some(exception(
            Declared::Meta,
            format!(
                "{}: cannot read the store's latest changes: {caught_up}",
                method.name
            ),
        ))
    }

    /// Answers a call with `refusal`, its arguments skipped.
    #[allow(clippy::too_many_arguments)]
    fn refuse(
        &self,
        method: &'static Method,
        header: &TMessageIdentifier,
        input: &mut dyn TInputProtocol,
        protocol: Protocol,
        reply: &mut Vec<u8>,
        call: &mut Call,
        one_way: bool,
        refusal: thrift::Error,
    ) -> Result<Outcome, DispatchError> {
        input
            .skip(TType::Struct)
            .map_err(|error| DispatchError(format!("unreadable arguments: {error}")))?;
        call.answer = Answered::Fast(Answer::Failed);
        hivestore_idl::handler::Handler::observe(&*self.session, method.name, true);
        if one_way || method.oneway {
            return Ok(Outcome::NoReply);
        }
        direct::write_refusal(
            method.name,
            header.sequence_number,
            protocol,
            reply,
            refusal,
        )
        .map_err(|error| DispatchError(format!("writing a reply: {error}")))?;
        Ok(Outcome::Reply)
    }

    /// Sends a call to the followed source over this connection's upstream and writes the
    /// source's reply; a write's reply waits for the follower. A call the source could not
    /// be asked or did not answer gets a `MetaException` saying so.
    fn forward(
        &self,
        forward: &Forward<'_>,
        message: &[u8],
        protocol: Protocol,
        reply: &mut Vec<u8>,
        call: &mut Call,
    ) -> Result<Outcome, DispatchError> {
        let Some(forwarding) = forward.following.forwarding() else {
            return Err(DispatchError(
                "a call routed to a source not forwarded to".into(),
            ));
        };
        let method = forward.method;
        let user = self.session.user();
        let request = forwarding::Call {
            message,
            protocol,
            one_way: forward.one_way,
            user: user.as_deref(),
        };
        // A wait of 0 is none.
        let wait = forward.wait && !forwarding.write_wait.is_zero();
        let catch_up: Option<(&dyn CatchUp, Duration)> =
            wait.then_some((&**forward.following as &dyn CatchUp, forwarding.write_wait));
        let counts = self.state.counters.forwards();
        let forwarded = {
            let mut forwarder = self
                .forwarder
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            forwarder
                .get_or_insert_with(|| Forwarder::new(Arc::clone(&forwarding.upstream)))
                .forward(&request, reply, catch_up)
        };
        let failed = match forwarded {
            Ok(forwarded) => {
                counts.forwarded.fetch_add(1, Ordering::Relaxed);
                match forwarded.waited {
                    Waited::Expired { event_id } => {
                        counts.waits_expired.fetch_add(1, Ordering::Relaxed);
                        tracing::warn!(
                            method = method.name,
                            event_id,
                            position = forward.following.position(),
                            "a forwarded write was answered before the follower applied it"
                        );
                    }
                    Waited::Unknown(error) => {
                        counts.errors.fetch_add(1, Ordering::Relaxed);
                        tracing::warn!(
                            method = method.name,
                            %error,
                            "the source's event id after a forwarded write could not be read"
                        );
                    }
                    Waited::No | Waited::CaughtUp => {}
                }
                if !forwarded.failed && forward.family == Family::RolesAndPrivileges {
                    // Grants have no events: the follower reads them again.
                    forward.following.request_grants_sync();
                }
                forwarded.failed
            }
            Err(error) => {
                counts.errors.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(method = method.name, %error, "a forwarded call failed");
                call.answer = Answered::Fast(Answer::Failed);
                if !forward.one_way {
                    let message = format!(
                        "{} was forwarded to {}, which this hivestore follows until cut-over, \
                         and got no answer: {error}; it may or may not have been made there",
                        method.name, forwarding.upstream.uri
                    );
                    direct::write_refusal(
                        method.name,
                        forward.sequence,
                        protocol,
                        reply,
                        exception(Declared::Meta, message),
                    )
                    .map_err(|error| DispatchError(format!("writing a reply: {error}")))?;
                }
                true
            }
        };
        hivestore_idl::handler::Handler::observe(&*self.session, method.name, failed);
        if forward.one_way {
            return Ok(Outcome::NoReply);
        }
        Ok(Outcome::Reply)
    }

    /// Closes this connection's upstream once its server cut over: nothing is forwarded then.
    fn close_upstream_after_cut_over(&self, following: &Following) {
        if following.is_following() {
            return;
        }
        if let Some(forwarder) = self
            .forwarder
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            forwarder.close();
        }
    }

    /// The method an unframed binary call of `name` calls, when this dispatcher reads such calls
    /// as they arrive ([`Dispatcher::dispatch_arriving`]).
    pub fn arriving_method(&self, name: &str) -> Option<&'static str> {
        // While following, such a call (a write) is read whole, for `dispatch` to forward.
        let following = self
            .state
            .following()
            .is_some_and(|following| following.is_following());
        // A reader's calls too, for `dispatch` to catch up with the writer first.
        let whole = following || self.state.store().is_reader();
        methods::implemented(name)
            .filter(|method| method.is_read_arriving() && !whole)
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
        let call = Call {
            method: methods::lookup(method).map(|(method, _)| method),
            answer: Answered::Generic,
        };
        let arrived = direct::answer_arriving(method, message, &self.limits, reply, &self.session)
            .map_err(|error| DispatchError(format!("{method}: {error}")));
        let result = match &arrived {
            Ok(Arrived::Answered(_)) => {
                let settled = self.settle(mark, Protocol::Binary, reply, reply_start);
                tracing::debug!(
                    method,
                    user = self.session.user().as_deref().unwrap_or("-"),
                    "call"
                );
                self.state
                    .counters
                    .record_server_time(method, started.elapsed());
                match settled {
                    Ok(None) => call.outcome_of_reply(Protocol::Binary, &reply[reply_start..]),
                    Ok(Some(reason)) => CallOutcome::failed(
                        audit::application_kind(ApplicationErrorKind::InternalError),
                        &reason,
                    ),
                    Err(error) => CallOutcome::failed(CONNECTION_CLOSED, &error.0),
                }
            }
            Ok(Arrived::Declined) => {
                reply.truncate(reply_start);
                // Read whole and dispatched next: that call names its objects again.
                self.session.take_targets();
                return arrived;
            }
            Ok(Arrived::Broken(error)) => {
                reply.truncate(reply_start);
                CallOutcome::failed(CONNECTION_CLOSED, &error.to_string())
            }
            Err(error) => CallOutcome::failed(CONNECTION_CLOSED, &error.0),
        };
        let targets = self.session.take_targets();
        self.session.take_failure();
        if let Some(audit) = self.session.audit() {
            self.write_audit(audit, started, method, &targets, &result);
        }
        arrived
    }

    /// Lets the reply from `reply_start` on go out only once what its call read is durable;
    /// otherwise replaces it with an `INTERNAL_ERROR` saying why (the client may retry), and
    /// returns the reason.
    fn settle(
        &self,
        mark: hivestore_engine::ReadMark,
        protocol: Protocol,
        reply: &mut Vec<u8>,
        reply_start: usize,
    ) -> Result<Option<String>, DispatchError> {
        let Err(error) = self.state.store().settle(mark) else {
            return Ok(None);
        };
        let header = input_protocol(protocol, &reply[reply_start..], TConfiguration::default())
            .read_message_begin()
            .map_err(|error| DispatchError(format!("rereading a reply's header: {error}")))?;
        tracing::warn!(method = %header.name, %error, "an answer did not settle; sent as an error");
        reply.truncate(reply_start);
        let reason = error.to_string();
        write_application_error(
            &header,
            ApplicationErrorKind::InternalError,
            reason.clone(),
            protocol,
            reply,
        )?;
        Ok(Some(reason))
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

/// While a cut-over is under way: nothing once it finished within the forwarded writes' wait
/// (the call is then served here), else the refusal of a call of `method`.
fn cut_over_refusal(following: &Following, method: &str) -> Option<thrift::Error> {
    let within = following
        .forwarding()
        .map_or(Duration::ZERO, |forwarding| forwarding.write_wait);
    if following.wait_for_cut_over(within) {
        return None;
    }
    Some(exception(
        Declared::Meta,
        format!(
            "{method} is refused: this hivestore is cutting over from {} and did not finish \
             within {} ms; retry",
            following.source(),
            within.as_millis()
        ),
    ))
}
