//! Every bound the server puts on what a client may send or hold, in one place.
//!
//! Each length that arrives on the wire is checked against one of these before anything is
//! allocated for it. The defaults follow Apache's HMS where it has one
//! (`metastore.server.max.message.size` = 100 MiB, `metastore.server.max.threads` = 1000).

/// Default cap on the size of one message (a frame, or one unframed message), in bytes.
pub const MESSAGE_BYTES_MAX_DEFAULT: usize = 100 * 1024 * 1024;
/// Default cap on one string or binary value, in bytes.
pub const STRING_BYTES_MAX_DEFAULT: usize = 100 * 1024 * 1024;
/// Default cap on the element count of one list, set or map.
pub const CONTAINER_ELEMENTS_MAX_DEFAULT: usize = 1_000_000;
/// Default cap on concurrently open connections (one thread each).
pub const CONNECTIONS_MAX_DEFAULT: usize = 1000;
/// Nesting depth of structs and containers that the decoder follows before it gives up.
pub const NESTING_DEPTH_MAX: usize = 64;
/// Longest method name accepted in a message header, in bytes. Hive's longest is far shorter.
pub const METHOD_NAME_BYTES_MAX: usize = 256;

/// The configurable limits of one server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest message accepted, in bytes.
    pub message_bytes_max: usize,
    /// Largest string or binary value accepted, in bytes.
    pub string_bytes_max: usize,
    /// Largest list, set or map accepted, in elements.
    pub container_elements_max: usize,
    /// Most connections served at once; further ones are closed on accept.
    pub connections_max: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            message_bytes_max: MESSAGE_BYTES_MAX_DEFAULT,
            string_bytes_max: STRING_BYTES_MAX_DEFAULT,
            container_elements_max: CONTAINER_ELEMENTS_MAX_DEFAULT,
            connections_max: CONNECTIONS_MAX_DEFAULT,
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
        Ok(())
    }
}

const _: () = assert!(MESSAGE_BYTES_MAX_DEFAULT <= i32::MAX as usize);
const _: () = assert!(STRING_BYTES_MAX_DEFAULT <= MESSAGE_BYTES_MAX_DEFAULT);
