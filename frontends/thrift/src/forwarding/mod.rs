//! Forwarding a client's calls to another metastore, the upstream: each client connection
//! gets an upstream connection of its own ([`Forwarder`]), opened at its first forwarded call
//! and closed with the client's connection, on which the client's user is announced
//! (`set_ugi`) before its calls. A call goes as the upstream reads it (the binary protocol,
//! buffered or framed; a compact client's call is rewritten) and the upstream's reply comes
//! back unchanged, exceptions included. After a call that succeeded, the caller may have the
//! reply wait until a copy of the upstream has applied the upstream's notification log up to
//! the call ([`CatchUp`]), so that the client reads its write from the copy.
//!
//! Which calls are forwarded, and to what, is the caller's to decide: `serve --follow-from`
//! forwards writes to its source (`following.rs`). The store is not touched here.

mod transcode;
mod upstream;

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use thrift::protocol::{TBinaryInputProtocol, TInputProtocol, TMessageType};

use crate::detect::Protocol;
pub use transcode::{transcode, TRANSCODE_DEPTH_MAX};
pub use upstream::{
    Upstream, UpstreamConnection, UpstreamError, UPSTREAM_CALL_TIMEOUT, UPSTREAM_CONNECT_TIMEOUT,
};

/// Something that applies the upstream's notification log to a copy: a follower.
pub trait CatchUp {
    /// Asks it to read the upstream's log now rather than after its interval.
    fn hurry(&self);
    /// Waits until it applied the upstream's events up to `event_id`, at most `within`;
    /// whether it did.
    fn wait_for(&self, event_id: i64, within: Duration) -> bool;
}

/// One call to forward.
pub struct Call<'a> {
    /// The whole message as the client sent it.
    pub message: &'a [u8],
    /// The client's protocol; its reply is written in it.
    pub protocol: Protocol,
    /// A one-way call: no reply is read or written.
    pub one_way: bool,
    /// The client's user, announced upstream before the call.
    pub user: Option<&'a str>,
}

/// What became of the wait after a forwarded call.
#[derive(Debug, PartialEq, Eq)]
pub enum Waited {
    /// No wait: none was asked for, or the upstream refused the call.
    No,
    /// The copy applied the upstream's log up to the call.
    CaughtUp,
    /// The copy had not applied the upstream's log up to `event_id` within the wait.
    Expired {
        /// The upstream's last event id after the call.
        event_id: i64,
    },
    /// The upstream's event id could not be read after the call (the reason).
    Unknown(String),
}

/// A forwarded call's outcome, its reply written.
#[derive(Debug)]
pub struct Forwarded {
    /// Whether the reply is an exception.
    pub failed: bool,
    /// The wait for the copy.
    pub waited: Waited,
}

/// The upstream connection of one client connection.
pub struct Forwarder {
    upstream: Arc<Upstream>,
    connection: Option<UpstreamConnection>,
}

impl Forwarder {
    /// A forwarder to `upstream`, with no connection open yet.
    pub fn new(upstream: Arc<Upstream>) -> Self {
        Forwarder {
            upstream,
            connection: None,
        }
    }

    /// The upstream.
    pub fn upstream(&self) -> &Upstream {
        &self.upstream
    }

    /// Closes the upstream connection, if one is open.
    pub fn close(&mut self) {
        self.connection = None;
    }

    /// Forwards `call`, appending the upstream's reply to `reply` in the client's protocol;
    /// when the call succeeded and `catch_up` is given, waits for it up to the upstream's event
    /// id after the call, at most the duration given. A failure closes the upstream connection
    /// (the next call opens another) and leaves `reply` as it was.
    pub fn forward(
        &mut self,
        call: &Call<'_>,
        reply: &mut Vec<u8>,
        catch_up: Option<(&dyn CatchUp, Duration)>,
    ) -> Result<Forwarded, UpstreamError> {
        let reply_start = reply.len();
        let result = self.exchange(call, reply);
        let failed = match result {
            Ok(failed) => failed,
            Err(error) => {
                reply.truncate(reply_start);
                self.connection = None;
                return Err(error);
            }
        };
        let waited = match catch_up {
            Some((catch_up, within)) if !failed && !call.one_way => self.wait(catch_up, within),
            _ => Waited::No,
        };
        Ok(Forwarded { failed, waited })
    }

    /// Sends the call and writes its reply; whether the reply is an exception.
    fn exchange(&mut self, call: &Call<'_>, reply: &mut Vec<u8>) -> Result<bool, UpstreamError> {
        let message = match call.protocol {
            Protocol::Binary => Cow::Borrowed(call.message),
            Protocol::Compact => {
                let mut binary = Vec::with_capacity(call.message.len() * 2);
                transcode(
                    call.message,
                    Protocol::Compact,
                    Protocol::Binary,
                    &mut binary,
                )?;
                Cow::Owned(binary)
            }
        };
        let connection = match &mut self.connection {
            Some(connection) => connection,
            None => self
                .connection
                .insert(UpstreamConnection::open(&self.upstream)?),
        };
        connection.announce(call.user)?;
        let answer = connection.call(&message, call.one_way)?;
        if call.one_way {
            return Ok(false);
        }
        let failed = is_exception(&answer)?;
        match call.protocol {
            Protocol::Binary => reply.extend_from_slice(&answer),
            Protocol::Compact => transcode(&answer, Protocol::Binary, Protocol::Compact, reply)?,
        }
        Ok(failed)
    }

    fn wait(&mut self, catch_up: &dyn CatchUp, within: Duration) -> Waited {
        let Some(connection) = &mut self.connection else {
            return Waited::No;
        };
        match connection.current_event_id() {
            Ok(event_id) => {
                catch_up.hurry();
                if catch_up.wait_for(event_id, within) {
                    Waited::CaughtUp
                } else {
                    Waited::Expired { event_id }
                }
            }
            Err(error) => {
                self.connection = None;
                Waited::Unknown(error.to_string())
            }
        }
    }
}

/// Whether a reply (binary protocol) is an exception: an application error, or a result
/// whose first field is not its success (field 0).
fn is_exception(reply: &[u8]) -> Result<bool, UpstreamError> {
    let mut input = TBinaryInputProtocol::new(reply, false);
    let header = input.read_message_begin()?;
    if header.message_type == TMessageType::Exception {
        return Ok(true);
    }
    input.read_struct_begin()?;
    let field = input.read_field_begin()?;
    Ok(field.id.is_some_and(|id| id != 0))
}

#[cfg(test)]
mod tests;
