//! The engine's one error type.
//!
//! Every variant but [`Error::Internal`] is an *expected* error: a caller or the
//! disk can cause it, and its message names the object and what was wrong.
//! `Internal` is a bug in the engine; no input should ever produce it.

use std::borrow::Cow;

/// The result type of every fallible engine call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An engine error. The frontends map each kind to one HMS exception. Its text is
/// [`bounded_message`]: a message quoting a huge input shows a prefix of it and its length.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The named object does not exist (`NoSuchObjectException`).
    #[error("{}", bounded(.0))]
    NoSuchObject(String),
    /// An object of that name already exists (`AlreadyExistsException`).
    #[error("{}", bounded(.0))]
    AlreadyExists(String),
    /// The object given is malformed: bad name, missing field
    /// (`InvalidObjectException`).
    #[error("{}", bounded(.0))]
    InvalidObject(String),
    /// The operation is not allowed in the current state, e.g. dropping a
    /// non-empty database (`InvalidOperationException`).
    #[error("{}", bounded(.0))]
    InvalidOperation(String),
    /// An argument of the call is malformed (`InvalidInputException`).
    #[error("{}", bounded(.0))]
    InvalidInput(String),
    /// An operation Hive refuses with its generic `MetaException`, e.g.
    /// dropping the `hive` catalog or the `default` database.
    #[error("{}", bounded(.0))]
    Refused(String),
    /// Stored bytes failed validation. `key` is the stored key, printed with
    /// non-printable bytes escaped.
    #[error("corrupt value at key {}: {}", bounded(key), bounded(reason))]
    Corruption {
        /// The key whose bytes failed validation, escaped for printing.
        key: String,
        /// What check failed.
        reason: String,
    },
    /// The storage backend failed (an I/O error, ...).
    #[error("storage error: {}", bounded(.0))]
    Storage(String),
    /// The disk holding the store is full: the write was not made, and writes are refused
    /// until the disk has room again. Reads go on.
    #[error("the disk holding the store is full: {}", bounded(.0))]
    DiskFull(String),
    /// The engine cannot serve the call now: it is shutting down, or getting back to its
    /// durable state after a failed write. A retry may succeed.
    #[error("the store is unavailable: {}", bounded(.0))]
    Unavailable(String),
    /// No lock has that id, or it was released or timed out (`NoSuchLockException`).
    #[error("{}", bounded(.0))]
    NoSuchLock(String),
    /// No transaction has that id (`NoSuchTxnException`).
    #[error("{}", bounded(.0))]
    NoSuchTxn(String),
    /// The transaction was aborted, by its client or by a timeout
    /// (`TxnAbortedException`).
    #[error("{}", bounded(.0))]
    TxnAborted(String),
    /// The operation needs the transaction to be over (`TxnOpenException`).
    #[error("{}", bounded(.0))]
    TxnOpen(String),
    /// A bug in the engine: an invariant did not hold. Never caused by input.
    #[error("internal error: {}", bounded(.0))]
    Internal(String),
}

impl Error {
    /// Builds an [`Error::Corruption`] for `key`, escaping it for printing.
    pub(crate) fn corruption(key: &[u8], reason: impl Into<String>) -> Self {
        Error::Corruption {
            key: escape_bytes(key),
            reason: reason.into(),
        }
    }
}

/// The most of one quoted input an error message keeps, in bytes.
pub const QUOTED_BYTES_MAX: usize = 256;
/// The longest error message sent whole, in bytes; a longer one (an input of many short
/// words quoted whole) is cut there.
pub const MESSAGE_BYTES_MAX: usize = 4096;

/// `message` fit to send back: messages quote the client's input (names, filters, values),
/// which may be megabytes long. Each word (a run between spaces, quotes, brackets, dots,
/// commas and the ellipsis the cut itself writes, so that a bounded message stays as it is)
/// longer than [`QUOTED_BYTES_MAX`] keeps its first bytes and gains its length, as
/// `abc… (104857600 bytes)`; the whole is then cut the same way at [`MESSAGE_BYTES_MAX`].
pub fn bounded_message(message: String) -> String {
    match bounded(&message) {
        Cow::Borrowed(_) => message,
        Cow::Owned(bounded) => bounded,
    }
}

/// [`bounded_message`] of a borrowed message: itself when it is short enough.
pub fn bounded(message: &str) -> Cow<'_, str> {
    if message.len() <= QUOTED_BYTES_MAX {
        return Cow::Borrowed(message);
    }
    let is_separator =
        |character: char| character.is_whitespace() || "'\"`<>()[]{},.;…".contains(character);
    let mut bounded = String::with_capacity(message.len().min(2 * MESSAGE_BYTES_MAX));
    let mut rest = message;
    while !rest.is_empty() {
        let word_end = rest.find(is_separator).unwrap_or(rest.len());
        let (word, after) = rest.split_at(word_end);
        push_cut(&mut bounded, word, QUOTED_BYTES_MAX);
        let separator_end = after
            .char_indices()
            .find(|&(_, character)| !is_separator(character))
            .map_or(after.len(), |(index, _)| index);
        bounded.push_str(&after[..separator_end]);
        rest = &after[separator_end..];
        if bounded.len() > MESSAGE_BYTES_MAX {
            break;
        }
    }
    if bounded.len() > MESSAGE_BYTES_MAX || !rest.is_empty() {
        let mut end = MESSAGE_BYTES_MAX.min(bounded.len());
        while !bounded.is_char_boundary(end) {
            end -= 1;
        }
        bounded.truncate(end);
        bounded.push_str(&format!("… ({} bytes)", message.len()));
    }
    if bounded == message {
        return Cow::Borrowed(message);
    }
    Cow::Owned(bounded)
}

/// Appends `text`, or its first `max` bytes (on a char boundary) and its length.
fn push_cut(out: &mut String, text: &str, max: usize) {
    if text.len() <= max {
        out.push_str(text);
        return;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    out.push_str(&text[..end]);
    out.push_str(&format!("… ({} bytes)", text.len()));
}

/// Renders bytes as ASCII with everything non-printable as `\xNN`.
pub(crate) fn escape_bytes(bytes: &[u8]) -> String {
    bytes
        .iter()
        .flat_map(|byte| std::ascii::escape_default(*byte))
        .map(char::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_messages_are_kept_whole() {
        let message = format!("Database hive.{} not found", "a".repeat(200));
        assert_eq!(bounded_message(message.clone()), message);
    }

    #[test]
    fn a_long_word_keeps_a_prefix_and_its_length() {
        let name = "x".repeat(100 << 20);
        let message = bounded_message(format!("Database hive.{name} not found"));
        assert_eq!(
            message,
            format!(
                "Database hive.{}… (104857600 bytes) not found",
                "x".repeat(256)
            )
        );
        let quoted = bounded_message(format!("invalid name pattern '{name}': oops"));
        assert!(quoted.ends_with("… (104857600 bytes)': oops"), "{quoted}");
    }

    #[test]
    fn a_cut_falls_on_a_char_boundary() {
        // 3-byte chars: 256 is not a boundary, 255 is.
        let message = bounded_message(format!("name {} x", "€".repeat(1000)));
        assert_eq!(message, format!("name {}… (3000 bytes) x", "€".repeat(85)));
    }

    #[test]
    fn many_short_words_are_cut_whole() {
        let filter = "a = 1 or ".repeat(1 << 20);
        let message = bounded_message(format!("Error parsing partition filter: {filter}"));
        assert!(message.len() < MESSAGE_BYTES_MAX + 64, "{}", message.len());
        assert!(
            message.ends_with(&format!("… ({} bytes)", filter.len() + 32)),
            "{}",
            &message[message.len() - 40..]
        );
    }

    #[test]
    fn a_bounded_message_stays_as_it_is() {
        let name = "€".repeat(1 << 20);
        let once = bounded_message(format!("Table hive.db.{name} not found"));
        assert_eq!(bounded_message(once.clone()), once);
    }

    #[test]
    fn errors_show_their_messages_bounded() {
        let name = "x".repeat(1 << 20);
        let error = Error::NoSuchObject(format!("Database hive.{name} not found"));
        let shown = error.to_string();
        assert_eq!(
            shown,
            format!(
                "Database hive.{}… (1048576 bytes) not found",
                "x".repeat(256)
            )
        );
        let error = Error::Storage(format!("cannot open {name}"));
        assert!(error.to_string().ends_with("… (1048576 bytes)"));
        assert!(error
            .to_string()
            .starts_with("storage error: cannot open xxx"));
    }
}
