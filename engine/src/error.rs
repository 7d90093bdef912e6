//! The engine's one error type.
//!
//! Every variant but [`Error::Internal`] is an *expected* error: a caller or the
//! disk can cause it, and its message names the object and what was wrong.
//! `Internal` is a bug in the engine; no input should ever produce it.

/// The result type of every fallible engine call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An engine error. The frontends map each kind to one HMS exception.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The named object does not exist (`NoSuchObjectException`).
    #[error("{0}")]
    NoSuchObject(String),
    /// An object of that name already exists (`AlreadyExistsException`).
    #[error("{0}")]
    AlreadyExists(String),
    /// The object given is malformed: bad name, missing field
    /// (`InvalidObjectException`).
    #[error("{0}")]
    InvalidObject(String),
    /// The operation is not allowed in the current state, e.g. dropping a
    /// non-empty database (`InvalidOperationException`).
    #[error("{0}")]
    InvalidOperation(String),
    /// An argument of the call is malformed (`InvalidInputException`).
    #[error("{0}")]
    InvalidInput(String),
    /// An operation Hive refuses with its generic `MetaException`, e.g.
    /// dropping the `hive` catalog or the `default` database.
    #[error("{0}")]
    Refused(String),
    /// Stored bytes failed validation. `key` is the stored key, printed with
    /// non-printable bytes escaped.
    #[error("corrupt value at key {key}: {reason}")]
    Corruption {
        /// The key whose bytes failed validation, escaped for printing.
        key: String,
        /// What check failed.
        reason: String,
    },
    /// The storage backend failed (an I/O error, ...).
    #[error("storage error: {0}")]
    Storage(String),
    /// The disk holding the store is full: the write was not made, and writes are refused
    /// until the disk has room again. Reads go on.
    #[error("the disk holding the store is full: {0}")]
    DiskFull(String),
    /// The engine cannot serve the call now: it is shutting down, or getting back to its
    /// durable state after a failed write. A retry may succeed.
    #[error("the store is unavailable: {0}")]
    Unavailable(String),
    /// No lock has that id, or it was released or timed out (`NoSuchLockException`).
    #[error("{0}")]
    NoSuchLock(String),
    /// No transaction has that id (`NoSuchTxnException`).
    #[error("{0}")]
    NoSuchTxn(String),
    /// The transaction was aborted, by its client or by a timeout
    /// (`TxnAbortedException`).
    #[error("{0}")]
    TxnAborted(String),
    /// The operation needs the transaction to be over (`TxnOpenException`).
    #[error("{0}")]
    TxnOpen(String),
    /// A bug in the engine: an invariant did not hold. Never caused by input.
    #[error("internal error: {0}")]
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

/// Renders bytes as ASCII with everything non-printable as `\xNN`.
pub(crate) fn escape_bytes(bytes: &[u8]) -> String {
    bytes
        .iter()
        .flat_map(|byte| std::ascii::escape_default(*byte))
        .map(char::from)
        .collect()
}
