//! The token store's tokens: added only when absent, read, replaced, removed, listed.

use super::{check_length, DelegationToken, TOKEN_BYTES_MAX, TOKEN_IDENTIFIER_BYTES_MAX};
use crate::error::Result;
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::store::Store;

impl Store {
    /// Hive's `addToken`: stores `token` under `identifier` unless one is stored there already;
    /// says whether it stored it (an existing token is kept, and the answer is false).
    pub fn add_token(&self, identifier: &str, token: &str) -> Result<bool> {
        check_length("token identifier", identifier, TOKEN_IDENTIFIER_BYTES_MAX)?;
        check_length("token", token, TOKEN_BYTES_MAX)?;
        let key = keys::delegation_token_key(identifier);
        self.write(|txn| {
            if txn.get(&key)?.is_some() {
                return Ok(false);
            }
            let value = DelegationToken {
                token: token.to_owned(),
            };
            txn.put_value(key.clone(), &value)?;
            Ok(true)
        })
    }

    /// Stores `token` under `identifier`, replacing what is there (a renewal's new expiry).
    pub fn replace_token(&self, identifier: &str, token: &str) -> Result<()> {
        check_length("token identifier", identifier, TOKEN_IDENTIFIER_BYTES_MAX)?;
        check_length("token", token, TOKEN_BYTES_MAX)?;
        let key = keys::delegation_token_key(identifier);
        let value = DelegationToken {
            token: token.to_owned(),
        };
        self.write(|txn| txn.put_value(key.clone(), &value))
    }

    /// Hive's `getToken`: the token stored under `identifier`, if any.
    pub fn token(&self, identifier: &str) -> Result<Option<String>> {
        if identifier.len() > TOKEN_IDENTIFIER_BYTES_MAX {
            return Ok(None);
        }
        let key = keys::delegation_token_key(identifier);
        match self.view::<DelegationToken>(&key)? {
            Some(view) => Ok(Some(view.archived()?.token.as_str().to_owned())),
            None => Ok(None),
        }
    }

    /// Hive's `removeToken`: deletes the token under `identifier`; says whether there was one.
    pub fn remove_token(&self, identifier: &str) -> Result<bool> {
        if identifier.len() > TOKEN_IDENTIFIER_BYTES_MAX {
            return Ok(false);
        }
        let key = keys::delegation_token_key(identifier);
        self.write(|txn| {
            if txn.get(&key)?.is_none() {
                return Ok(false);
            }
            txn.delete(key.clone());
            Ok(true)
        })
    }

    /// Hive's `getAllTokenIdentifiers`, in identifier order.
    pub fn token_identifiers(&self) -> Result<Vec<String>> {
        let mut identifiers = Vec::new();
        for entry in self.scan(KeyRange::prefix(&[keys::KEYSPACE_DELEGATION_TOKEN])) {
            let (key, _) = entry?;
            identifiers.push(keys::decode_delegation_token_key(&key)?);
        }
        Ok(identifiers)
    }

    /// Every stored token with its identifier, in identifier order.
    pub fn tokens(&self) -> Result<Vec<(String, String)>> {
        let mut tokens = Vec::new();
        for entry in self.scan(KeyRange::prefix(&[keys::KEYSPACE_DELEGATION_TOKEN])) {
            let (key, _) = entry?;
            let Some(view) = self.view::<DelegationToken>(&key)? else {
                continue;
            };
            let identifier = keys::decode_delegation_token_key(&key)?;
            tokens.push((identifier, view.archived()?.token.as_str().to_owned()));
        }
        Ok(tokens)
    }
}
