//! Hive's token store: delegation tokens by identifier and the master keys that sign them, as
//! Hive's `ObjectStore` keeps them (`DELEGATION_TOKENS`, `MASTER_KEYS`) for its
//! `DBTokenStore`. Both are opaque strings here: the secret manager that gives them meaning
//! (the Thrift frontend's, or a HiveServer2 whose token store is this metastore) encodes them.
//!
//! Tokens are keyed by their identifier string; master keys by a sequence id the store hands
//! out, increasing and never reused (the counter outlives the newest key's removal), as
//! Hive's identity column does.

mod master_keys;
mod stored;
#[cfg(test)]
mod tests;

use rkyv::{Archive, Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::storage::values::{stored_value, ValueKind};

/// The longest token identifier accepted, in bytes (hivestore's bound; an identifier Hive
/// writes is the URL-safe base64 of a few short names and numbers).
pub const TOKEN_IDENTIFIER_BYTES_MAX: usize = 4 << 10;
/// The longest token accepted, in bytes (hivestore's bound).
pub const TOKEN_BYTES_MAX: usize = 16 << 10;
/// The longest master key accepted, in bytes (hivestore's bound).
pub const MASTER_KEY_BYTES_MAX: usize = 16 << 10;

/// A stored delegation token: the string its secret manager gave `add_token`.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct DelegationToken {
    /// The token's information as its secret manager encoded it.
    pub token: String,
}

stored_value!(DelegationToken, ValueKind::DelegationToken);

/// A stored master key: the string its secret manager gave `add_master_key`.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct MasterKey {
    /// The key as its secret manager encoded it.
    pub key: String,
}

stored_value!(MasterKey, ValueKind::MasterKey);

fn check_length(what: &str, text: &str, max: usize) -> Result<()> {
    if text.len() > max {
        return Err(Error::Refused(format!(
            "A {what} of {} bytes is longer than the {max} bytes allowed",
            text.len()
        )));
    }
    Ok(())
}
