//! Every bound the server puts on what a client may send or hold, in one place.
//!
//! Each length that arrives on the wire is checked against one of these before anything is
//! allocated for it. The defaults follow Apache's HMS where it has one
//! (`metastore.server.max.message.size` = 100 MiB, `metastore.server.max.threads` = 1000).

use std::time::Duration;

/// Default cap on the size of one message (a frame, or one unframed message), in bytes.
pub const MESSAGE_BYTES_MAX_DEFAULT: usize = 100 * 1024 * 1024;
/// Default cap on one string or binary value, in bytes.
pub const STRING_BYTES_MAX_DEFAULT: usize = 100 * 1024 * 1024;
/// Default cap on the element count of one list, set or map.
pub const CONTAINER_ELEMENTS_MAX_DEFAULT: usize = 1_000_000;
/// Default cap on concurrently open connections (one thread each).
pub const CONNECTIONS_MAX_DEFAULT: usize = 1000;
/// Default silence allowed between two calls: the 600 s that Hive's clients wait for a reply
/// (`metastore.client.socket.timeout`). Hive's client reconnects when it finds its
/// connection closed.
pub const IDLE_TIMEOUT_SECS_DEFAULT: u64 = 600;
/// Default time a message may take to arrive once its first byte did: Hive's largest message
/// (100 MiB) at 1 MiB/s, with room to spare.
pub const MESSAGE_TIMEOUT_SECS_DEFAULT: u64 = 120;
/// Default time a connection's opening handshake (TLS) may take, from its first byte to its
/// end: a client on a slow link needs a few round trips; a stalled one is closed.
pub const HANDSHAKE_TIMEOUT_SECS_DEFAULT: u64 = 10;
/// Default bound on the bytes of unfinished messages held across all connections: ten of the
/// largest messages.
pub const INFLIGHT_BYTES_MAX_DEFAULT: usize = 1024 * 1024 * 1024;
/// Default number of worker threads that answer whole requests. Calls that wait for the disk
/// (every acknowledged write is flushed) overlap on them; connections waiting for a request
/// take none.
pub const WORKER_THREADS_DEFAULT: usize = 16;
/// Nesting depth of structs and containers that the decoder follows before it gives up.
pub const NESTING_DEPTH_MAX: usize = 64;
/// Longest method name accepted in a message header, in bytes. Hive's longest is far shorter.
pub const METHOD_NAME_BYTES_MAX: usize = 256;

/// Most bytes of an HTTP request's head (request line and headers): room for a large JWT.
pub const HTTP_HEAD_BYTES_MAX: usize = 64 * 1024;
/// Most headers of an HTTP request.
pub const HTTP_HEADERS_MAX: usize = 100;

/// The configurable limits of one server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest message accepted, in bytes.
    pub message_bytes_max: usize,
    /// Largest string or binary value accepted, in bytes.
    pub string_bytes_max: usize,
    /// Largest list, set or map accepted, in elements.
    pub container_elements_max: usize,
    /// Most connections served at once; at the cap, the connection waiting longest for its
    /// next message is closed to make room (or, when every one is in a call, the newcomer).
    pub connections_max: usize,
    /// Longest silence between two messages before the connection is closed.
    pub idle_timeout: Duration,
    /// Longest a message may take to arrive, from its first byte to its last.
    pub message_timeout: Duration,
    /// Longest an opening handshake (TLS) may take, from the connection's first byte.
    pub handshake_timeout: Duration,
    /// Most bytes of unfinished messages held at once across all connections, beyond the
    /// read buffer each connection starts with; a message that would pass it is refused.
    pub inflight_bytes_max: usize,
    /// Threads that answer whole requests, for all connections.
    pub worker_threads: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            message_bytes_max: MESSAGE_BYTES_MAX_DEFAULT,
            string_bytes_max: STRING_BYTES_MAX_DEFAULT,
            container_elements_max: CONTAINER_ELEMENTS_MAX_DEFAULT,
            connections_max: CONNECTIONS_MAX_DEFAULT,
            idle_timeout: Duration::from_secs(IDLE_TIMEOUT_SECS_DEFAULT),
            message_timeout: Duration::from_secs(MESSAGE_TIMEOUT_SECS_DEFAULT),
            handshake_timeout: Duration::from_secs(HANDSHAKE_TIMEOUT_SECS_DEFAULT),
            inflight_bytes_max: INFLIGHT_BYTES_MAX_DEFAULT,
            worker_threads: WORKER_THREADS_DEFAULT,
        }
    }
}

impl Limits {
    /// Checks the relationships between the limits that the decoder relies on.
    pub fn validate(&self) -> Result<(), String> {
        if self.message_bytes_max < 64 {
            return Err(format!(
                "max message size {} bytes is too small to hold any call",
                self.message_bytes_max
            ));
        }
        if i32::try_from(self.message_bytes_max).is_err() {
            return Err(format!(
                "max message size {} bytes exceeds what a Thrift frame can carry ({})",
                self.message_bytes_max,
                i32::MAX
            ));
        }
        if self.string_bytes_max == 0 || self.container_elements_max == 0 {
            return Err("string and container limits must be positive".to_string());
        }
        if self.connections_max == 0 {
            return Err("max connections must be at least 1".to_string());
        }
        if self.worker_threads == 0 {
            return Err("worker threads must be at least 1".to_string());
        }
        if self.idle_timeout.is_zero()
            || self.message_timeout.is_zero()
            || self.handshake_timeout.is_zero()
        {
            return Err("idle, message and handshake timeouts must be positive".to_string());
        }
        if self.inflight_bytes_max < self.message_bytes_max {
            return Err(format!(
                "max in-flight bytes {} is less than the max message size {}: no big message \
                 could ever be read",
                self.inflight_bytes_max, self.message_bytes_max
            ));
        }
        Ok(())
    }
}

const _: () = assert!(MESSAGE_BYTES_MAX_DEFAULT <= i32::MAX as usize);
const _: () = assert!(STRING_BYTES_MAX_DEFAULT <= MESSAGE_BYTES_MAX_DEFAULT);
const _: () = assert!(MESSAGE_BYTES_MAX_DEFAULT <= INFLIGHT_BYTES_MAX_DEFAULT);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_timeouts_and_a_budget_below_one_message_are_refused() {
        assert_eq!(Limits::default().validate(), Ok(()));
        let zero_idle = Limits {
            idle_timeout: Duration::ZERO,
            ..Limits::default()
        };
        assert!(zero_idle.validate().unwrap_err().contains("timeout"));
        let zero_message = Limits {
            message_timeout: Duration::ZERO,
            ..Limits::default()
        };
        assert!(zero_message.validate().unwrap_err().contains("timeout"));
        let small_budget = Limits {
            inflight_bytes_max: MESSAGE_BYTES_MAX_DEFAULT - 1,
            ..Limits::default()
        };
        assert!(small_budget.validate().unwrap_err().contains("in-flight"));
    }
}
