//! The metastore's delegation token secret manager, as Hive's
//! `TokenStoreDelegationTokenSecretManager` over its `DBTokenStore` runs it: tokens and master
//! keys live in the engine's token store (so they survive a restart, and a HiveServer2 that
//! keeps its tokens in this metastore sees the same tables), in Hive's encodings.
//!
//! A token's password is HMAC-SHA1 of its identifier under the current master key, which is
//! replaced every key update interval (the old ones stay until they expire, to check the
//! tokens they signed). Tokens expire a renew interval after issue or renewal, and never
//! outlive their max lifetime. Expired tokens are removed when used, and by a sweep of the
//! store that runs at most once a GC interval, when a token is issued (no thread of its own).

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hivestore_engine::Store;
use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};

use super::hadoop_token::{
    DelegationKey, Token, TokenIdentifier, TokenInformation, HIVE_DELEGATION_KIND,
};
use super::{AuthMethod, Caller};

/// Hive's default `metastore.cluster.delegation.token.renew-interval`: a day.
pub const RENEW_INTERVAL_SECS_DEFAULT: u64 = 86_400;
/// Hive's default `metastore.cluster.delegation.token.max-lifetime`: seven days.
pub const MAX_LIFETIME_SECS_DEFAULT: u64 = 7 * 86_400;
/// Hive's default `metastore.cluster.delegation.key.update-interval`: a day.
pub const KEY_UPDATE_INTERVAL_SECS_DEFAULT: u64 = 86_400;
/// Hive's default `metastore.cluster.delegation.token.gc-interval`: fifteen minutes.
pub const GC_INTERVAL_SECS_DEFAULT: u64 = 15 * 60;
/// The length of a master key's secret: what Java's HmacSHA1 key generator makes.
pub const MASTER_SECRET_BYTES: usize = 64;

/// How long tokens and master keys live (Hive's `metastore.cluster.delegation.*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenSettings {
    /// A token expires this long after it was issued or last renewed.
    pub renew_interval: Duration,
    /// No token lives longer than this after its issue.
    pub max_lifetime: Duration,
    /// A new master key signs the tokens issued this long after the previous one was made.
    pub key_update_interval: Duration,
    /// Expired tokens are swept from the store at most this often.
    pub gc_interval: Duration,
}

impl Default for TokenSettings {
    fn default() -> Self {
        TokenSettings {
            renew_interval: Duration::from_secs(RENEW_INTERVAL_SECS_DEFAULT),
            max_lifetime: Duration::from_secs(MAX_LIFETIME_SECS_DEFAULT),
            key_update_interval: Duration::from_secs(KEY_UPDATE_INTERVAL_SECS_DEFAULT),
            gc_interval: Duration::from_secs(GC_INTERVAL_SECS_DEFAULT),
        }
    }
}

/// The time now in milliseconds since the epoch, as Hadoop stamps tokens.
pub fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// The short name of a Kerberos principal (`hive/host@REALM` → `hive`), as Hadoop's default
/// `auth_to_local` rule maps names of the default realm.
pub fn short_name(principal: &str) -> &str {
    principal.split(['/', '@']).next().unwrap_or(principal)
}

/// The message Hive's authentication bridge refuses token calls with.
fn not_kerberos(caller: Option<&Caller>) -> String {
    let method = caller.map_or("SIMPLE", |caller| caller.method.name());
    format!(
        "Delegation Token can be issued only with kerberos authentication. Current \
         AuthenticationMethod: {method}"
    )
}

/// The master key tokens are signed with now.
struct CurrentKey {
    key: DelegationKey,
    /// When it was made (milliseconds).
    made_at: i64,
}

#[derive(Default)]
struct ManagerState {
    current: Option<CurrentKey>,
    /// The last sequence number given a token; read from the stored tokens on first use.
    last_sequence: Option<i32>,
    /// When expired tokens were last swept (milliseconds).
    last_sweep: i64,
}

/// The secret manager: issues, renews, cancels and checks the metastore's tokens.
pub struct SecretManager {
    settings: TokenSettings,
    random: SystemRandom,
    state: Mutex<ManagerState>,
}

impl SecretManager {
    /// A manager whose tokens and keys live as long as `settings` says.
    pub fn new(settings: TokenSettings) -> Self {
        SecretManager {
            settings,
            random: SystemRandom::new(),
            state: Mutex::new(ManagerState::default()),
        }
    }

    /// How long tokens and keys live.
    pub fn settings(&self) -> TokenSettings {
        self.settings
    }

    fn state(&self) -> std::sync::MutexGuard<'_, ManagerState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Hive's `get_delegation_token`: a token for `owner`, renewable by `renewer`, issued to a
    /// caller who authenticated by Kerberos. The owner must be the caller (their short names
    /// equal): Hive lets a proxy user ask for another owner only where Hadoop's
    /// `hadoop.proxyuser.*` rules allow it, and none are configured here, so such a request is
    /// refused with Hadoop's message.
    pub fn issue(
        &self,
        store: &Store,
        caller: Option<&Caller>,
        owner: &str,
        renewer: &str,
        now: i64,
    ) -> Result<String, String> {
        let caller = match caller {
            Some(caller) if caller.method == AuthMethod::Kerberos => caller,
            other => return Err(not_kerberos(other)),
        };
        if short_name(owner) != caller.user || owner.is_empty() {
            return Err(format!(
                "User: {} is not allowed to impersonate {owner}",
                caller.principal
            ));
        }
        let mut state = self.state();
        self.sweep_if_due(store, &mut state, now);
        let key = self.current_key(store, &mut state, now)?;
        let last = match state.last_sequence {
            Some(last) => last,
            None => last_sequence_stored(store)?,
        };
        let sequence_number = last.checked_add(1).unwrap_or(1);
        state.last_sequence = Some(sequence_number);
        let identifier = TokenIdentifier {
            owner: owner.to_owned(),
            renewer: short_name(renewer).to_owned(),
            real_user: owner.to_owned(),
            issue_date: now,
            max_date: now.saturating_add(millis(self.settings.max_lifetime)),
            sequence_number,
            master_key_id: key.key_id,
        };
        let identifier_bytes = identifier.to_bytes();
        let password = sign(&key.secret, &identifier_bytes);
        let information = TokenInformation {
            password: password.clone(),
            renew_date: now.saturating_add(millis(self.settings.renew_interval)),
        };
        let added = store
            .add_token(&identifier.store_key(), &information.to_store_string())
            .map_err(|error| format!("cannot store the delegation token: {error}"))?;
        if !added {
            return Err(format!("a token ({identifier}) is stored already"));
        }
        tracing::info!(token = %identifier, "delegation token issued");
        let token = Token {
            identifier: identifier_bytes,
            password,
            kind: HIVE_DELEGATION_KIND.to_string(),
            service: String::new(),
        };
        Ok(token.to_url_string())
    }

    /// Hive's `renew_delegation_token`: the token's new expiry, the earlier of a renew
    /// interval from now and its max date. Only its renewer may renew it, authenticated by
    /// Kerberos.
    pub fn renew(
        &self,
        store: &Store,
        caller: Option<&Caller>,
        token_string: &str,
        now: i64,
    ) -> Result<i64, String> {
        let caller = match caller {
            Some(caller) if caller.method == AuthMethod::Kerberos => caller,
            other => return Err(not_kerberos(other)),
        };
        let renewer = caller.user.as_str();
        let (token, identifier) = decode(token_string)?;
        let stored_key = identifier.store_key();
        if stored_information(store, &stored_key)?.is_none() {
            return Err(format!("token does not exist: {identifier}"));
        }
        if identifier.max_date < now {
            return Err(format!(
                "{renewer} tried to renew an expired token ({identifier}) max expiration date: \
                 {} currentTime: {now}",
                identifier.max_date
            ));
        }
        if identifier.renewer.is_empty() {
            return Err(format!(
                "{renewer} tried to renew a token ({identifier}) without a renewer"
            ));
        }
        if identifier.renewer != renewer {
            return Err(format!(
                "{renewer} tries to renew a token ({identifier}) with non-matching renewer {}",
                identifier.renewer
            ));
        }
        let key = master_key(store, identifier.master_key_id)?.ok_or_else(|| {
            format!(
                "Unable to find master key for keyId={} from cache. Failed to renew an \
                 unexpired token ({identifier}) with sequenceNumber={}",
                identifier.master_key_id, identifier.sequence_number
            )
        })?;
        let check = hmac::Key::new(hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY, &key.secret);
        if hmac::verify(&check, &token.identifier, &token.password).is_err() {
            return Err(format!(
                "{renewer} is trying to renew a token ({identifier}) with wrong password"
            ));
        }
        let renew_date = now
            .saturating_add(millis(self.settings.renew_interval))
            .min(identifier.max_date);
        let information = TokenInformation {
            password: token.password,
            renew_date,
        };
        store
            .replace_token(&stored_key, &information.to_store_string())
            .map_err(|error| format!("cannot store the renewed token: {error}"))?;
        Ok(renew_date)
    }

    /// Hive's `cancel_delegation_token`: removes the token; its owner or its renewer may. A
    /// token already gone is no error (Hive's token store removes without asking).
    pub fn cancel(
        &self,
        store: &Store,
        caller: Option<&Caller>,
        token_string: &str,
    ) -> Result<(), String> {
        let (_, identifier) = decode(token_string)?;
        let allowed = caller.is_some_and(|caller| {
            caller.principal == identifier.owner
                || caller.user == identifier.owner
                || (!identifier.renewer.is_empty() && caller.user == identifier.renewer)
        });
        if !allowed {
            let canceller = caller.map_or("an unauthenticated caller", |c| c.principal.as_str());
            return Err(format!(
                "{canceller} is not authorized to cancel the token ({identifier})"
            ));
        }
        store
            .remove_token(&identifier.store_key())
            .map_err(|error| format!("cannot remove the token: {error}"))?;
        tracing::info!(token = %identifier, "delegation token cancelled");
        Ok(())
    }

    /// What a DIGEST-MD5 login with a token proves: the identifier's bytes (the SASL user
    /// name, decoded) name a stored, unexpired token; answers its owner as the caller and its
    /// password. An expired token is removed on the way.
    pub fn check(
        &self,
        store: &Store,
        identifier_bytes: &[u8],
        now: i64,
    ) -> Result<(Caller, Vec<u8>), String> {
        let identifier = TokenIdentifier::from_bytes(identifier_bytes)
            .map_err(|error| format!("not a delegation token identifier: {error}"))?;
        let stored_key = identifier.store_key();
        let information = stored_information(store, &stored_key)?
            .ok_or_else(|| format!("token expired or does not exist: {identifier}"))?;
        if information.renew_date < now {
            let _ = store.remove_token(&stored_key);
            return Err(format!(
                "token ({identifier}) is expired, current time: {now} expected renewal time: {}",
                information.renew_date
            ));
        }
        let caller = Caller {
            principal: identifier.owner.clone(),
            user: short_name(&identifier.owner).to_owned(),
            method: AuthMethod::Token,
        };
        Ok((caller, information.password))
    }

    /// Removes expired tokens from the store; answers how many.
    pub fn sweep(&self, store: &Store, now: i64) -> usize {
        let mut state = self.state();
        state.last_sweep = now;
        sweep_expired(store, now)
    }

    fn sweep_if_due(&self, store: &Store, state: &mut ManagerState, now: i64) {
        if now.saturating_sub(state.last_sweep) >= millis(self.settings.gc_interval) {
            state.last_sweep = now;
            sweep_expired(store, now);
        }
    }

    /// The key to sign with now: the one made within the key update interval, else a new one
    /// (and the expired keys go).
    fn current_key(
        &self,
        store: &Store,
        state: &mut ManagerState,
        now: i64,
    ) -> Result<DelegationKey, String> {
        if let Some(current) = &state.current {
            let due = current
                .made_at
                .saturating_add(millis(self.settings.key_update_interval));
            if now < due {
                return Ok(current.key.clone());
            }
        }
        let key = self.roll_key(store, now)?;
        state.current = Some(CurrentKey {
            key: key.clone(),
            made_at: now,
        });
        Ok(key)
    }

    /// Makes and stores a new master key, as Hive's manager does: added, then updated to
    /// carry the sequence id the store gave it. Removes the keys past their expiry.
    fn roll_key(&self, store: &Store, now: i64) -> Result<DelegationKey, String> {
        let mut secret = vec![0; MASTER_SECRET_BYTES];
        self.random
            .fill(&mut secret)
            .map_err(|_| "the system's random generator failed".to_string())?;
        let expiry_date = now
            .saturating_add(millis(self.settings.key_update_interval))
            .saturating_add(millis(self.settings.max_lifetime));
        let mut key = DelegationKey {
            key_id: 0,
            expiry_date,
            secret,
        };
        let stored = |error| format!("cannot store a master key: {error}");
        key.key_id = store
            .add_master_key(&key.to_store_string())
            .map_err(stored)?;
        store
            .update_master_key(key.key_id, &key.to_store_string())
            .map_err(stored)?;
        for (id, text) in store.master_keys().map_err(stored)? {
            let expired = DelegationKey::from_store_string(&text)
                .is_ok_and(|old| old.expiry_date < now && id != key.key_id);
            if expired {
                let _ = store.remove_master_key(id);
            }
        }
        tracing::info!(key_id = key.key_id, "new delegation token master key");
        Ok(key)
    }
}

fn sign(secret: &[u8], identifier: &[u8]) -> Vec<u8> {
    let key = hmac::Key::new(hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY, secret);
    hmac::sign(&key, identifier).as_ref().to_vec()
}

fn decode(token_string: &str) -> Result<(Token, TokenIdentifier), String> {
    Token::from_url_string(token_string)
        .map_err(|error| format!("not a delegation token string: {error}"))
}

fn stored_information(store: &Store, key: &str) -> Result<Option<TokenInformation>, String> {
    let Some(text) = store
        .token(key)
        .map_err(|error| format!("cannot read the token store: {error}"))?
    else {
        return Ok(None);
    };
    TokenInformation::from_store_string(&text)
        .map(Some)
        .map_err(|error| format!("the stored token cannot be read: {error}"))
}

fn master_key(store: &Store, id: i32) -> Result<Option<DelegationKey>, String> {
    let Some(text) = store
        .master_key(id)
        .map_err(|error| format!("cannot read the master keys: {error}"))?
    else {
        return Ok(None);
    };
    DelegationKey::from_store_string(&text)
        .map(Some)
        .map_err(|error| format!("master key {id} cannot be read: {error}"))
}

/// The highest sequence number among the stored tokens this manager can read.
fn last_sequence_stored(store: &Store) -> Result<i32, String> {
    let identifiers = store
        .token_identifiers()
        .map_err(|error| format!("cannot read the token store: {error}"))?;
    Ok(identifiers
        .iter()
        .filter_map(|text| super::hadoop_token::decode_base64(text).ok())
        .filter_map(|bytes| TokenIdentifier::from_bytes(&bytes).ok())
        .map(|identifier| identifier.sequence_number)
        .max()
        .unwrap_or(0))
}

/// Removes the stored tokens whose renewal date passed (those in Hive's encoding; anything
/// else a client stored is left alone).
fn sweep_expired(store: &Store, now: i64) -> usize {
    let tokens = match store.tokens() {
        Ok(tokens) => tokens,
        Err(error) => {
            tracing::warn!(%error, "cannot sweep expired delegation tokens");
            return 0;
        }
    };
    let mut removed = 0;
    for (identifier, text) in tokens {
        let expired = TokenInformation::from_store_string(&text)
            .is_ok_and(|information| information.renew_date < now);
        if expired && store.remove_token(&identifier).unwrap_or(false) {
            removed += 1;
        }
    }
    if removed > 0 {
        tracing::info!(removed, "expired delegation tokens removed");
    }
    removed
}
