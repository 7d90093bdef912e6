//! Delegation tokens: issued, renewed and cancelled by the secret manager
//! (`auth/delegation.rs`), and Hive's raw token store (`add_token`, `add_master_key`, ...),
//! which a HiveServer2 whose `DBTokenStore` points at this metastore keeps its own tokens in,
//! with `ObjectStore`'s answers.
//!
//! The raw store holds the master keys that sign tokens, so a caller who logged in with a
//! delegation token may not use it (it could mint tokens); Hive leaves it open to all.

use crate::access::{Need, Target};
use crate::auth::delegation::now_millis;
use crate::auth::AuthMethod;
use crate::errors::{exception, to_thrift, undeclared, Declared};
use crate::service::Session;

/// What the token calls and `add_master_key` declare.
const META: &[Declared] = &[Declared::Meta];
/// What `update_master_key` declares.
const UPDATE_KEY: &[Declared] = &[Declared::NoSuchObject, Declared::Meta];
/// What the other raw store calls declare: nothing.
const NOTHING: &[Declared] = &[];

fn meta(message: String) -> thrift::Error {
    exception(Declared::Meta, message)
}

/// Refuses the raw token store to a caller who logged in with a token.
fn raw_store_allowed(session: &Session, declared: &[Declared]) -> thrift::Result<()> {
    if session
        .caller()
        .is_some_and(|caller| caller.method == AuthMethod::Token)
    {
        let message = "A caller authenticated by a delegation token may not use the token store";
        return Err(if declared.contains(&Declared::Meta) {
            meta(message.to_string())
        } else {
            undeclared(message)
        });
    }
    Ok(())
}

/// `get_delegation_token`: a token for `owner`, renewable by `renewer`; the caller must have
/// authenticated by Kerberos, and be the owner.
pub fn get(session: &Session, owner: String, renewer: String) -> thrift::Result<String> {
    session.authorize(Need::Anyone, Target::Server)?;
    session
        .secret_manager()
        .issue(
            session.store(),
            session.caller(),
            &owner,
            &renewer,
            now_millis(),
        )
        .map_err(meta)
}

/// `renew_delegation_token`: the token's new expiry, in milliseconds since the epoch.
pub fn renew(session: &Session, token: String) -> thrift::Result<i64> {
    session.authorize(Need::Anyone, Target::Server)?;
    session
        .secret_manager()
        .renew(session.store(), session.caller(), &token, now_millis())
        .map_err(meta)
}

/// `cancel_delegation_token`.
pub fn cancel(session: &Session, token: String) -> thrift::Result<()> {
    session.authorize(Need::Anyone, Target::Server)?;
    session
        .secret_manager()
        .cancel(session.store(), session.caller(), &token)
        .map_err(meta)
}

/// `add_token`: false when a token is stored under the identifier already.
pub fn add_token(session: &Session, identifier: String, token: String) -> thrift::Result<bool> {
    session.authorize(Need::Admin, Target::Server)?;
    raw_store_allowed(session, NOTHING)?;
    session
        .store()
        .add_token(&identifier, &token)
        .map_err(|error| to_thrift(error, NOTHING))
}

/// `remove_token`: whether there was one.
pub fn remove_token(session: &Session, identifier: String) -> thrift::Result<bool> {
    session.authorize(Need::Admin, Target::Server)?;
    raw_store_allowed(session, NOTHING)?;
    session
        .store()
        .remove_token(&identifier)
        .map_err(|error| to_thrift(error, NOTHING))
}

/// `get_token`: the token, or the empty string when there is none (Hive's answer, since
/// Thrift cannot return null).
pub fn get_token(session: &Session, identifier: String) -> thrift::Result<String> {
    session.authorize(Need::Admin, Target::Server)?;
    raw_store_allowed(session, NOTHING)?;
    let token = session
        .store()
        .token(&identifier)
        .map_err(|error| to_thrift(error, NOTHING))?;
    Ok(token.unwrap_or_default())
}

/// `get_all_token_identifiers`.
pub fn all_token_identifiers(session: &Session) -> thrift::Result<Vec<String>> {
    session.authorize(Need::Admin, Target::Server)?;
    raw_store_allowed(session, NOTHING)?;
    session
        .store()
        .token_identifiers()
        .map_err(|error| to_thrift(error, NOTHING))
}

/// `add_master_key`: the sequence id the key is stored under.
pub fn add_master_key(session: &Session, key: String) -> thrift::Result<i32> {
    session.authorize(Need::Admin, Target::Server)?;
    raw_store_allowed(session, META)?;
    session
        .store()
        .add_master_key(&key)
        .map_err(|error| to_thrift(error, META))
}

/// `update_master_key`: `NoSuchObjectException` for an unknown sequence id.
pub fn update_master_key(session: &Session, sequence_id: i32, key: String) -> thrift::Result<()> {
    session.authorize(Need::Admin, Target::Server)?;
    raw_store_allowed(session, UPDATE_KEY)?;
    session
        .store()
        .update_master_key(sequence_id, &key)
        .map_err(|error| to_thrift(error, UPDATE_KEY))
}

/// `remove_master_key`: whether there was one.
pub fn remove_master_key(session: &Session, sequence_id: i32) -> thrift::Result<bool> {
    session.authorize(Need::Admin, Target::Server)?;
    raw_store_allowed(session, NOTHING)?;
    session
        .store()
        .remove_master_key(sequence_id)
        .map_err(|error| to_thrift(error, NOTHING))
}

/// `get_master_keys`, in sequence id order.
pub fn master_keys(session: &Session) -> thrift::Result<Vec<String>> {
    session.authorize(Need::Admin, Target::Server)?;
    raw_store_allowed(session, NOTHING)?;
    let keys = session
        .store()
        .master_keys()
        .map_err(|error| to_thrift(error, NOTHING))?;
    Ok(keys.into_iter().map(|(_, key)| key).collect())
}

#[cfg(test)]
#[path = "delegation_token_tests.rs"]
mod tests;
