//! The one place where engine errors become the exceptions HMS clients switch on.
//!
//! Each call declares which exceptions it may throw; an engine error of a kind the call does not
//! declare becomes `MetaException` (which nearly every call declares), as Hive's handlers wrap
//! unexpected failures. Internal failures never leak as a disconnect: the client gets a message.
//! Every message sent goes through [`exception`] or [`undeclared`], which bound what it quotes
//! of the client's input (`hivestore_engine::bounded_message`).

use hivestore_engine::{bounded_message, Error as EngineError};
use hivestore_idl::hive_metastore::{
    AlreadyExistsException, InvalidInputException, InvalidObjectException,
    InvalidOperationException, InvalidPartitionException, MetaException, NoSuchLockException,
    NoSuchObjectException, NoSuchTxnException, TxnAbortedException, TxnOpenException,
    UnknownDBException, UnknownTableException,
};
use thrift::{ApplicationError, ApplicationErrorKind};

/// An exception type a call declares in the IDL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Declared {
    /// `NoSuchObjectException`
    NoSuchObject,
    /// `AlreadyExistsException`
    AlreadyExists,
    /// `InvalidObjectException`
    InvalidObject,
    /// `InvalidOperationException`
    InvalidOperation,
    /// `InvalidInputException`
    InvalidInput,
    /// `UnknownDBException`
    UnknownDb,
    /// `UnknownTableException`
    UnknownTable,
    /// `InvalidPartitionException`
    InvalidPartition,
    /// `MetaException`
    Meta,
    /// `NoSuchLockException`
    NoSuchLock,
    /// `NoSuchTxnException`
    NoSuchTxn,
    /// `TxnAbortedException`
    TxnAborted,
    /// `TxnOpenException`
    TxnOpen,
}

/// Builds the exception of `kind` carrying `message`.
pub fn exception(kind: Declared, message: impl Into<String>) -> thrift::Error {
    let message = Some(bounded_message(message.into()));
    let error: Box<dyn std::error::Error + Send + Sync> = match kind {
        Declared::NoSuchObject => Box::new(NoSuchObjectException { message }),
        Declared::AlreadyExists => Box::new(AlreadyExistsException { message }),
        Declared::InvalidObject => Box::new(InvalidObjectException { message }),
        Declared::InvalidOperation => Box::new(InvalidOperationException { message }),
        Declared::InvalidInput => Box::new(InvalidInputException { message }),
        Declared::UnknownDb => Box::new(UnknownDBException { message }),
        Declared::UnknownTable => Box::new(UnknownTableException { message }),
        Declared::InvalidPartition => Box::new(InvalidPartitionException { message }),
        Declared::Meta => Box::new(MetaException { message }),
        Declared::NoSuchLock => Box::new(NoSuchLockException { message }),
        Declared::NoSuchTxn => Box::new(NoSuchTxnException { message }),
        Declared::TxnAborted => Box::new(TxnAbortedException { message }),
        Declared::TxnOpen => Box::new(TxnOpenException { message }),
    };
    thrift::Error::User(error)
}

/// Converts an engine error for a call that declares `declared`.
pub fn to_thrift(error: EngineError, declared: &[Declared]) -> thrift::Error {
    let (natural, message) = match error {
        EngineError::NoSuchObject(message) => (Declared::NoSuchObject, message),
        EngineError::AlreadyExists(message) => (Declared::AlreadyExists, message),
        EngineError::InvalidObject(message) => (Declared::InvalidObject, message),
        EngineError::InvalidOperation(message) => (Declared::InvalidOperation, message),
        EngineError::InvalidInput(message) => (Declared::InvalidInput, message),
        EngineError::Refused(message) => (Declared::Meta, message),
        EngineError::NoSuchLock(message) => (Declared::NoSuchLock, message),
        EngineError::NoSuchTxn(message) => (Declared::NoSuchTxn, message),
        EngineError::TxnAborted(message) => (Declared::TxnAborted, message),
        EngineError::TxnOpen(message) => (Declared::TxnOpen, message),
        other => {
            tracing::error!(error = %other, "engine failure");
            (Declared::Meta, other.to_string())
        }
    };
    let kind = if declared.contains(&natural) {
        natural
    } else if declared.contains(&Declared::Meta) {
        Declared::Meta
    } else {
        // A call that declares no MetaException (`lock`, `show_locks`, ...): Hive's server
        // answers with a TApplicationException; ours carries the message.
        return undeclared(message);
    };
    exception(kind, message)
}

/// The IDL name and message of a declared exception that `error` carries, if it carries one:
/// what a reply needs to put it in its field of the call's result.
pub fn declared_parts(error: &thrift::Error) -> Option<(&'static str, Option<&str>)> {
    let thrift::Error::User(error) = error else {
        return None;
    };
    macro_rules! first_of {
        ($($kind:ident),*) => {
            $(if let Some(exception) = error.downcast_ref::<$kind>() {
                return Some((stringify!($kind), exception.message.as_deref()));
            })*
        };
    }
    first_of!(
        NoSuchObjectException,
        AlreadyExistsException,
        InvalidObjectException,
        InvalidOperationException,
        InvalidInputException,
        UnknownDBException,
        UnknownTableException,
        InvalidPartitionException,
        MetaException,
        NoSuchLockException,
        NoSuchTxnException,
        TxnAbortedException,
        TxnOpenException
    );
    None
}

/// The answer to a failure a call declares no exception for.
pub fn undeclared(message: impl Into<String>) -> thrift::Error {
    thrift::Error::Application(ApplicationError::new(
        ApplicationErrorKind::InternalError,
        bounded_message(message.into()),
    ))
}

/// Shorthand for the exception lists of the IDL, named by what the calls are.
pub mod throws {
    use super::Declared::{self, *};

    /// `get_*`: `NoSuchObjectException`, `MetaException`.
    pub const GET: &[Declared] = &[NoSuchObject, Meta];
    /// `create_*`: `AlreadyExistsException`, `InvalidObjectException`, `MetaException`,
    /// `NoSuchObjectException`.
    pub const CREATE: &[Declared] = &[AlreadyExists, InvalidObject, Meta, NoSuchObject];
    /// `drop_*`: `NoSuchObjectException`, `InvalidOperationException`, `MetaException`.
    pub const DROP: &[Declared] = &[NoSuchObject, InvalidOperation, Meta];
    /// `alter_*`: `InvalidOperationException`, `MetaException`, `NoSuchObjectException`.
    pub const ALTER: &[Declared] = &[InvalidOperation, Meta, NoSuchObject];
    /// Listings: `MetaException` only.
    pub const LIST: &[Declared] = &[Meta];
    /// `get_table_objects_by_name_req` and friends.
    pub const LIST_TABLES: &[Declared] = &[Meta, InvalidOperation, UnknownDb];
    /// `update_creation_metadata`: `MetaException`, `InvalidOperationException`,
    /// `UnknownDBException`.
    pub const CREATION_METADATA: &[Declared] = &[Meta, InvalidOperation, UnknownDb];
    /// `get_fields`, `get_schema`: `MetaException`, `UnknownTableException`,
    /// `UnknownDBException`.
    pub const FIELDS: &[Declared] = &[Meta, UnknownDb];
    /// `lock`: `NoSuchTxnException`, `TxnAbortedException`.
    pub const LOCK: &[Declared] = &[NoSuchTxn, TxnAborted];
    /// `check_lock`: `NoSuchTxnException`, `TxnAbortedException`, `NoSuchLockException`.
    pub const CHECK_LOCK: &[Declared] = &[NoSuchTxn, TxnAborted, NoSuchLock];
    /// `unlock`: `NoSuchLockException`, `TxnOpenException`.
    pub const UNLOCK: &[Declared] = &[NoSuchLock, TxnOpen];
    /// `heartbeat`: `NoSuchLockException`, `NoSuchTxnException`, `TxnAbortedException`.
    pub const HEARTBEAT: &[Declared] = &[NoSuchLock, NoSuchTxn, TxnAborted];
    /// `commit_txn`: `NoSuchTxnException`, `TxnAbortedException`.
    pub const COMMIT_TXN: &[Declared] = &[NoSuchTxn, TxnAborted];
    /// `abort_txn(s)`: `NoSuchTxnException`.
    pub const ABORT_TXN: &[Declared] = &[NoSuchTxn];
    /// `allocate_table_write_ids`: `NoSuchTxnException`, `TxnAbortedException`,
    /// `MetaException`.
    pub const ALLOCATE_WRITE_IDS: &[Declared] = &[NoSuchTxn, TxnAborted, Meta];
    /// `get_valid_write_ids`: `NoSuchTxnException`, `MetaException`.
    pub const VALID_WRITE_IDS: &[Declared] = &[NoSuchTxn, Meta];
    /// Calls that declare no exception (`show_locks`, `heartbeat_txn_range`, ...).
    pub const NONE: &[Declared] = &[];
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message_of(error: thrift::Error) -> String {
        match error {
            thrift::Error::User(error) => {
                let exception = error.downcast_ref::<NoSuchObjectException>().unwrap();
                exception.message.clone().unwrap()
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_huge_name_is_quoted_as_a_prefix_and_its_length() {
        let name = "n".repeat(100 << 20);
        let error = EngineError::NoSuchObject(format!("Database hive.{name} not found"));
        let message = message_of(to_thrift(error, throws::GET));
        assert_eq!(
            message,
            format!(
                "Database hive.{}… (104857600 bytes) not found",
                "n".repeat(256)
            )
        );
        let thrift::Error::Application(error) = undeclared(format!("bad {name}")) else {
            panic!()
        };
        assert!(error.message.len() < 300, "{}", error.message.len());
    }
}
